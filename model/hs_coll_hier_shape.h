/*
 * hs_coll_hier_shape.h -- the peers of the hierarchical all-reduce
 * (hs_coll_hier_shape.c), inline: its shape (model/) and its progress in
 * the replay (sim/hs_coll_hier.c, per chunk) both ask them.
 *
 * Nodes of equal size L are found by arithmetic (device x = n L + j);
 * nodes of different sizes through the node tables of hs_nodes.h.  Both
 * give the same answers where the sizes are equal.
 */
#ifndef HS_COLL_HIER_SHAPE_H
#define HS_COLL_HIER_SHAPE_H

#include <stdint.h>

#include "hs_collective.h"
#include "hs_edge.h"
#include "hs_nodes.h"

/* Node m's first device; its size into *L. */
static inline uint32_t hs_coll_hier_node(const hs_scenario_t *s, uint32_t m,
                                         uint32_t *L)
{
    const hs_nodes_t *nd = s->nodes;

    if (nd->local != 0) {
        *L = nd->local;
        return m * nd->local;
    }
    *L = nd->node_first[m + 1] - nd->node_first[m];
    return nd->node_first[m];
}

/* Nodes (K) and rounds of the first phase (A = L_max - 1) of s. */
static inline uint32_t hs_coll_hier_nodes(const hs_scenario_t *s,
                                          int64_t *A)
{
    const hs_nodes_t *nd = s->nodes;

    if (nd->local != 0) {
        *A = (int64_t)nd->local - 1;
        return (uint32_t)(s->n_devices / nd->local);
    }
    *A = (int64_t)nd->local_max - 1;
    return (uint32_t)nd->n_nodes;
}

/*
 * Device x's peer in round r (dir +1: whom it sends to, -1: from whom it
 * receives), the edge, the parts and the ring size; returns the first
 * round of r's phase.  *n_from: how many devices send to x in round r (1
 * inside a node; across nodes 0, 1 or more when the node before x's is
 * of another size; *peer is then the first of them, x itself when
 * none).  An idle round (x's node is smaller than the largest: the
 * rounds of its node phases past its own L - 1) has *parts = 0, *peer =
 * x and *n_from = 0: x sends and receives nothing in it.
 */
static inline int64_t hs_coll_hier_peer(const hs_scenario_t *s,
                                        uint32_t x, int64_t r, int dir,
                                        uint32_t *peer, uint32_t *edge,
                                        uint32_t *parts, uint32_t *ring_n,
                                        uint32_t *n_from)
{
    const hs_nodes_t *nd = s->nodes;
    uint32_t N = (uint32_t)s->n_devices, L, K, n, j, f, Lm, fm;
    int64_t A, B, ph;

    K = hs_coll_hier_nodes(s, &A);
    n = nd->local != 0 ? x / nd->local : nd->dev_node[x];
    f = hs_coll_hier_node(s, n, &L);
    j = x - f;
    B = 2 * ((int64_t)K - 1);
    if (r < A || r >= A + B) {
        ph = r < A ? 0 : A + B;
        *edge = hs_edge_index(N, HS_EDGE_INTRA, x);
        *ring_n = L;
        if (r - ph >= (int64_t)L - 1) {
            *peer = x;
            *parts = 0;
            *n_from = 0;
            return ph;
        }
        *peer = f + (dir > 0 ? (j + 1) % L : (j + L - 1) % L);
        *parts = L;
        *n_from = 1;
        return ph;
    }
    *edge = hs_edge_index(N, HS_EDGE_INTER, x);
    *parts = K * L;
    *ring_n = K;
    if (dir > 0) {
        fm = hs_coll_hier_node(s, (n + 1) % K, &Lm);
        *peer = fm + j % Lm;
        *n_from = 1;
        return A;
    }
    /* senders: local ranks j, j + L, ... of the node before */
    fm = hs_coll_hier_node(s, (n + K - 1) % K, &Lm);
    *n_from = j < Lm ? (Lm - 1 - j) / L + 1 : 0;
    *peer = *n_from > 0 ? fm + j : x;
    return A;
}

#endif
