/*
 * hs_coll_hier.h -- the hierarchical ring all-reduce (docs/method.md,
 * "The hierarchical all-reduce"), the second collective of
 * hs_collective.h: reduce-scatter inside each node, a ring all-reduce
 * across the nodes per local rank, all-gather inside each node.
 */
#ifndef HS_COLL_HIER_H
#define HS_COLL_HIER_H

#include "hs_collective.h"

/* Registered as "hierarchical".  Needs a scenario with nodes of equal
   size (its check says why not otherwise). */
extern const hs_collective_t hs_coll_hier;

#endif
