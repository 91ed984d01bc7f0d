/*
 * hs_coll_hier.h -- the hierarchical ring all-reduce (docs/method.md,
 * "The hierarchical all-reduce") in the replay: the engine of
 * model/hs_collective.h's hs_coll_hier (reduce-scatter inside each node,
 * a ring all-reduce across the nodes per local rank, all-gather inside
 * each node).
 */
#ifndef HS_COLL_HIER_H
#define HS_COLL_HIER_H

#include "hs_coll_engine.h"

/* The engine of hs_coll_hier ("hierarchical"). */
extern const hs_coll_engine_t hs_coll_hier_engine;

#endif
