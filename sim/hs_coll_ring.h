/*
 * hs_coll_ring.h -- the ring all-reduce (docs/method.md, S400 and "The
 * replay") in the replay: the engine of model/hs_collective.h's
 * hs_coll_ring.
 */
#ifndef HS_COLL_RING_H
#define HS_COLL_RING_H

#include "hs_coll_engine.h"

/* The engine of hs_coll_ring ("ring"). */
extern const hs_coll_engine_t hs_coll_ring_engine;

#endif
