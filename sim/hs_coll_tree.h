/*
 * hs_coll_tree.h -- the double binary tree all-reduce (docs/method.md,
 * "The double binary tree all-reduce") in the replay: the engine of
 * model/hs_collective.h's hs_coll_tree (NCCL's two trees over the nodes,
 * a chain inside each node, reduce up then broadcast down in chunks).
 */
#ifndef HS_COLL_TREE_H
#define HS_COLL_TREE_H

#include "hs_coll_engine.h"

/* The engine of hs_coll_tree ("tree"). */
extern const hs_coll_engine_t hs_coll_tree_engine;

#endif
