/*
 * hs_coll_hier_shape.h -- the peers of the hierarchical all-reduce
 * (hs_coll_hier_shape.c), inline: its shape (model/) and its progress in
 * the replay (sim/hs_coll_hier.c, per chunk) both ask them.
 */
#ifndef HS_COLL_HIER_SHAPE_H
#define HS_COLL_HIER_SHAPE_H

#include <stdint.h>

#include "hs_collective.h"
#include "hs_edge.h"
#include "hs_nodes.h"

/* Device x's peer in round r (dir +1: whom it sends to, -1: from whom it
   receives), the edge and the parts; returns the first round of r's
   phase. */
static inline int64_t hs_coll_hier_peer(const hs_scenario_t *s,
                                        uint32_t x, int64_t r, int dir,
                                        uint32_t *peer, uint32_t *edge,
                                        uint32_t *parts, uint32_t *ring_n)
{
    uint32_t N = (uint32_t)s->n_devices, L = s->nodes->local;
    uint32_t K = N / L, n = x / L, j = x - n * L;
    int64_t A = (int64_t)L - 1, B = 2 * ((int64_t)K - 1);

    if (r < A || r >= A + B) {
        *peer = n * L + (dir > 0 ? (j + 1) % L : (j + L - 1) % L);
        *edge = hs_edge_index(N, HS_EDGE_INTRA, x);
        *parts = L;
        *ring_n = L;
        return r < A ? 0 : A + B;
    }
    *peer = (dir > 0 ? (n + 1) % K : (n + K - 1) % K) * L + j;
    *edge = hs_edge_index(N, HS_EDGE_INTER, x);
    *parts = N;
    *ring_n = K;
    return A;
}

#endif
