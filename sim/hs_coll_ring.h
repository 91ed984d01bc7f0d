/*
 * hs_coll_ring.h -- the ring all-reduce (METHOD.md S400 and "What hetsim
 * adds"), the first collective of hs_collective.h.
 */
#ifndef HS_COLL_RING_H
#define HS_COLL_RING_H

#include "hs_collective.h"

/* Registered as "ring". */
extern const hs_collective_t hs_coll_ring;

#endif
