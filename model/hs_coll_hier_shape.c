/*
 * hs_coll_hier_shape.c -- the hierarchical ring all-reduce's shape and
 * closed form (hs_collective.h), on a scenario with nodes (hs_nodes.h) of
 * equal size L; K = N / L nodes, device x = n L + j on node n with local
 * rank j.  Its progress in the replay is sim/hs_coll_hier.c.
 *
 * Three phases, R = 2(L-1) + 2(K-1) rounds:
 *   rounds 0 .. L-2           reduce-scatter inside the node: a ring over
 *                             the node's devices in local-rank order,
 *                             chunk M/L to x's next local rank, over x's
 *                             intra-node edge (edge N + x);
 *   rounds L-1 .. L-1+2(K-1)-1  all-reduce of x's shard M/L among the K
 *                             devices of local rank j (one ring per local
 *                             rank, nodes in listing order): 2(K-1)
 *                             rounds of M/(LK) = M/N bytes to the same
 *                             local rank of the next node, over x's
 *                             inter-node edge (edge 2N + x; the node's
 *                             NICs shared by its L rings, hs_nodes.h);
 *   the last L-1 rounds       all-gather inside the node, as the first
 *                             phase.
 * Closed form (everyone opening at once, each round as long as x's own):
 *   T_ar(x) = 2(L-1) (a_in + (M/L) / B_in) + 2(K-1) (a_out + (M/N) / B_out).
 * L = N (one node) is the flat ring inside the node; L = 1 the flat ring
 * across nodes.
 */
#include "hs_coll_hier_shape.h"

#include <stdio.h>

static int64_t hs__hier_rounds(uint32_t n)
{
    /* without nodes: the flat ring's count (not used by the replay) */
    return 2 * ((int64_t)n - 1);
}

static int64_t hs__hier_rounds_of(const hs_scenario_t *s)
{
    int64_t L = s->nodes->local, K = (int64_t)s->n_devices / L;

    return 2 * (L - 1) + 2 * (K - 1);
}

static void hs__hier_round(const hs_scenario_t *s, uint32_t x, int64_t r,
                           hs_coll_round_t *out)
{
    uint32_t from, e, p, n;

    hs_coll_hier_peer(s, x, r, 1, &out->to, &out->edge, &out->parts,
                      &out->ring_n);
    hs_coll_hier_peer(s, x, r, -1, &from, &e, &p, &n);
    out->from = from;
}

/* The node's ring of L devices, then the ring of the K nodes. */
static size_t hs__hier_rings(const hs_scenario_t *s, size_t ring_n[2])
{
    if (s->nodes == NULL || s->nodes->local == 0) {
        ring_n[0] = s->n_devices;     /* not runnable: check says why */
        return 1;
    }
    ring_n[0] = s->nodes->local;
    ring_n[1] = s->n_devices / s->nodes->local;
    return 2;
}

static int64_t hs__hier_allreduce_ns(const hs_scenario_t *s, uint32_t x)
{
    const hs_profile_t *p = &s->types[s->devices[x].type].profile;
    size_t N = s->n_devices;
    int64_t L = s->nodes->local, K = (int64_t)N / L;
    double m = hs_profile_payload_bytes(p);
    int64_t t = 0;

    if (L > 1)
        t += 2 * (L - 1) *
             hs_edge_chunk_ns(s, hs_edge_index(N, HS_EDGE_INTRA, x), m,
                              (double)L);
    if (K > 1)
        t += 2 * (K - 1) *
             hs_edge_chunk_ns(s, hs_edge_index(N, HS_EDGE_INTER, x), m,
                              (double)N);
    return t;
}

static hs_err_t hs__hier_check(const hs_scenario_t *s, hs_error_t *err)
{
    const hs_nodes_t *nd = s->nodes;
    size_t i, N = s->n_devices;

    if (nd == NULL)
        return hs_error_setf(err, HS_ERR_SCHEMA,
                             "hierarchical needs a nodes: section (a flat "
                             "device list has no nodes; use ring)");
    if (nd->local == 0) {
        uint32_t b;
        for (b = 1; b < nd->n_nodes; b++)
            if (nd->node_first[b + 1] - nd->node_first[b] !=
                nd->node_first[1] - nd->node_first[0])
                break;
        return hs_error_setf(
            err, HS_ERR_SCHEMA,
            "hierarchical needs nodes of equal size: node %s has %u "
            "devices, node %s has %u (use ring)",
            s->devices[nd->node_first[0]].addr,
            nd->node_first[1] - nd->node_first[0],
            s->devices[nd->node_first[b]].addr,
            nd->node_first[b + 1] - nd->node_first[b]);
    }
    for (i = 0; i < N; i++) {
        /* the whole all-reduce in double: no int64 ns overflow below */
        double L = nd->local, K = (double)N / L;
        double m = hs_profile_payload_bytes(
            &s->types[s->devices[i].type].profile);
        double t = 0;
        uint32_t in = hs_edge_index(N, HS_EDGE_INTRA, (uint32_t)i);
        uint32_t out = hs_edge_index(N, HS_EDGE_INTER, (uint32_t)i);
        if (nd->local > 1 && s->ring_bw_bytes_per_s[in] > 0)
            t += 2 * (L - 1) * ((double)s->ring_lat_ns[in] +
                                m / L * 1e9 / s->ring_bw_bytes_per_s[in]);
        if (nd->local < N && s->ring_bw_bytes_per_s[out] > 0)
            t += 2 * (K - 1) *
                 ((double)s->ring_lat_ns[out] +
                  m / (double)N * 1e9 / s->ring_bw_bytes_per_s[out]);
        if (!(t < 4.6e18))
            return hs_error_setf(err, HS_ERR_RANGE,
                                 "hierarchical: one all-reduce of device "
                                 "%s would take %.3g s, beyond the 2^62 ns "
                                 "the replay handles",
                                 s->devices[i].name, t * 1e-9);
        if ((nd->local > 1 && s->ring_bw_bytes_per_s[in] <= 0) ||
            (nd->local < N && s->ring_bw_bytes_per_s[out] <= 0))
            return hs_error_setf(err, HS_ERR_NETWORK,
                                 "hierarchical: device %s has no %s "
                                 "bandwidth to its peer",
                                 s->devices[i].name,
                                 s->ring_bw_bytes_per_s[in] <= 0 &&
                                         nd->local > 1
                                     ? "intra-node"
                                     : "inter-node");
    }
    return HS_OK;
}

const hs_collective_t hs_coll_hier = {
    "hierarchical",
    "hierarchical ring: reduce-scatter in each node, a ring all-reduce "
    "across nodes per local rank, all-gather in each node",
    0,
    hs__hier_rounds,
    hs__hier_round,
    hs__hier_allreduce_ns,
    hs__hier_check,
    hs__hier_rounds_of,
    hs__hier_rings
};
