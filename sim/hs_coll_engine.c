/*
 * hs_coll_engine.c -- the engines of the registered collectives
 * (hs_coll_engine.h): a static table beside model/hs_collective.c's, one
 * line per collective the replay can run.
 */
#include "hs_coll_engine.h"

#include "hs_coll_hier.h"
#include "hs_coll_ring.h"
#include "hs_coll_tree.h"

static const hs_coll_engine_t *const hs__engines[] = {
    &hs_coll_ring_engine,
    &hs_coll_hier_engine,
    &hs_coll_tree_engine,
};

#define HS__N_ENG (sizeof hs__engines / sizeof hs__engines[0])

const hs_coll_engine_t *hs_coll_engine_of(const hs_collective_t *c)
{
    size_t i;

    for (i = 0; i < HS__N_ENG; i++)
        if (hs__engines[i]->coll == c)
            return hs__engines[i];
    return NULL;
}
