/*
 * hs_coll_hier_shape.c -- the hierarchical ring all-reduce's shape and
 * closed form (hs_collective.h), on a scenario with nodes (hs_nodes.h),
 * of equal size or not.  K nodes; node k holds L_k devices, device x on
 * node n with local rank j; L_max the largest node.  Its progress in the
 * replay is sim/hs_coll_hier.c.
 *
 * Three phases, R = 2(L_max-1) + 2(K-1) rounds for every device:
 *   rounds 0 .. L_max-2       reduce-scatter inside the node: a ring over
 *                             the node's devices in local-rank order,
 *                             chunk M/L_n to x's next local rank, over x's
 *                             intra-node edge (edge N + x), in rounds
 *                             0 .. L_n-2; a device of a smaller node is
 *                             idle in the rest (hs_coll_round_t.parts 0:
 *                             it sends and receives nothing; they take no
 *                             time and let every device keep one round
 *                             numbering);
 *   the next 2(K-1) rounds    a ring all-reduce across the K nodes of the
 *                             whole payload in K chunks of M/K, node n's
 *                             share of a chunk sent by its L_n devices at
 *                             once, M/(K L_n) each: x sends to local rank
 *                             j mod L_{n+1} of the next node (nodes in
 *                             listing order) over its inter-node edge
 *                             (edge 2N + x: the link, the NICs of both
 *                             ends shared by the L_n devices sending), and
 *                             receives from local ranks j, j + L_n, ...
 *                             of the node before (none, one or several;
 *                             the chunk is usable when all have come).
 *                             Per round a node's NICs carry M/K out and
 *                             M/K in, 2(K-1)/K M in all, whatever its
 *                             size; with equal L it is one ring per local
 *                             rank of M/(LK) = M/N chunks;
 *   the last L_max-1 rounds   all-gather inside the node, as the first
 *                             phase (the last L_max-L_n idle).
 * Closed form (everyone opening at once, each round as long as x's own):
 *   T_ar(x) = 2(L_n-1) (a_in + (M/L_n) / B_in)
 *             + 2(K-1) (a_out + (M/(K L_n)) / B_out).
 * Its maximum over the devices is the notes' T_hier (docs/nccl-notes.md,
 * 5(d)): max_k 2(L_k-1)/L_k M/B_in,k + 2(K-1)/K M/B_nic when every node's
 * cross-node round takes as long (its NICs bind, and are the same); the
 * replay with everyone ready at once then ends its step there too (the
 * ring of local ranks 0 spans every node, so phase 2 ends for everyone
 * at the slowest node's phase 1 plus 2(K-1) rounds).  L = N (one node) is
 * the flat ring inside the node; L = 1 the flat ring across nodes.
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
    int64_t A, K = hs_coll_hier_nodes(s, &A);

    return 2 * A + 2 * (K - 1);
}

/* Device x of a node of L_x sends 2(L_x - 1) chunks in its node and
   2(K - 1) across the nodes: 2(N - K) + 2N(K - 1) in all. */
static double hs__hier_chunks_of(const hs_scenario_t *s)
{
    int64_t A;
    double K = (double)hs_coll_hier_nodes(s, &A), n = (double)s->n_devices;

    return 2.0 * (n - K) + 2.0 * n * (K - 1.0);
}

static void hs__hier_round(const hs_scenario_t *s, uint32_t x, int64_t r,
                           hs_coll_round_t *out)
{
    uint32_t from, e, p, n, c;

    hs_coll_hier_peer(s, x, r, 1, &out->to, &out->edge, &out->parts,
                      &out->ring_n, &c);
    hs_coll_hier_peer(s, x, r, -1, &from, &e, &p, &n, &c);
    out->from = from;
}

/* The node's ring of L devices (the largest node's when they differ),
   then the ring of the K nodes. */
static size_t hs__hier_rings(const hs_scenario_t *s, size_t ring_n[2])
{
    int64_t A;

    if (s->nodes == NULL || s->nodes->local_max == 0) {
        ring_n[0] = s->n_devices;     /* not runnable: check says why */
        return 1;
    }
    ring_n[1] = hs_coll_hier_nodes(s, &A);
    ring_n[0] = (size_t)A + 1;
    return 2;
}

static int64_t hs__hier_allreduce_ns(const hs_scenario_t *s, uint32_t x)
{
    const hs_profile_t *p = &s->types[s->devices[x].type].profile;
    size_t N = s->n_devices;
    uint32_t Lu;
    int64_t A, K = hs_coll_hier_nodes(s, &A), L;
    double m = hs_profile_payload_bytes(p);
    int64_t t = 0;

    (void)hs_coll_hier_node(s, s->nodes->dev_node[x], &Lu);
    L = Lu;

    if (L > 1)
        t += 2 * (L - 1) *
             hs_edge_chunk_ns(s, hs_edge_index(N, HS_EDGE_INTRA, x), m,
                              (double)L);
    if (K > 1)
        t += 2 * (K - 1) *
             hs_edge_chunk_ns(s, hs_edge_index(N, HS_EDGE_INTER, x), m,
                              (double)(K * L));
    return t;
}

/* Device i's whole all-reduce in double (no int64 ns overflow): fails
   beyond 2^62 ns or without a bandwidth it needs. */
static hs_err_t hs__hier_check_dev(const hs_scenario_t *s, uint32_t i,
                                   hs_error_t *err)
{
    size_t N = s->n_devices;
    uint32_t Lu;
    int64_t A;
    double K = hs_coll_hier_nodes(s, &A), L;
    double m = hs_profile_payload_bytes(&s->types[s->devices[i].type].profile);
    double t = 0;
    uint32_t in = hs_edge_index(N, HS_EDGE_INTRA, i);
    uint32_t out = hs_edge_index(N, HS_EDGE_INTER, i);
    int no_in, no_out;

    (void)hs_coll_hier_node(s, s->nodes->dev_node[i], &Lu);
    L = Lu;
    no_in = Lu > 1 && s->ring_bw_bytes_per_s[in] <= 0;
    no_out = K > 1 && s->ring_bw_bytes_per_s[out] <= 0;
    if (Lu > 1 && !no_in)
        t += 2 * (L - 1) * ((double)s->ring_lat_ns[in] +
                            m / L * 1e9 / s->ring_bw_bytes_per_s[in]);
    if (K > 1 && !no_out)
        t += 2 * (K - 1) *
             ((double)s->ring_lat_ns[out] +
              m / (K * L) * 1e9 / s->ring_bw_bytes_per_s[out]);
    if (!(t < 4.6e18))
        return hs_error_setf(err, HS_ERR_RANGE,
                             "hierarchical: one all-reduce of device %s "
                             "would take %.3g s, beyond the 2^62 ns the "
                             "replay handles",
                             s->devices[i].name, t * 1e-9);
    if (no_in || no_out)
        return hs_error_setf(err, HS_ERR_NETWORK,
                             "hierarchical: device %s has no %s bandwidth "
                             "to its peer",
                             s->devices[i].name,
                             no_in ? "intra-node" : "inter-node");
    return HS_OK;
}

static hs_err_t hs__hier_check(const hs_scenario_t *s, hs_error_t *err)
{
    size_t i;
    hs_err_t rc;

    if (s->nodes == NULL)
        return hs_error_setf(err, HS_ERR_SCHEMA,
                             "hierarchical needs a nodes: section (a flat "
                             "device list has no nodes; use ring)");
    for (i = 0; i < s->n_devices; i++)
        if ((rc = hs__hier_check_dev(s, (uint32_t)i, err)) != HS_OK)
            return rc;
    return HS_OK;
}

/* Phase by phase, as the ring's: the 2(L_max - 1) node rounds x the
   worst intra-node round (device x's chunk M_max / L_x over its intra
   edge), plus the 2(K - 1) rounds across nodes x the worst inter-node
   round (M_max / (K L_x) over x's inter edge, the NICs' share as the
   edge arrays hold it).  A round of either phase ends within its
   phase's worst round after the round before it ended for every device
   it waits for (idle rounds take nothing); its receiver processes one
   chunk, or nf across nodes, each charged w (hs__hier_comm_chunk).  The
   blame names the bigger phase. */
/* What the replay's communication cost charges a received chunk at the
   most, in bytes (it charges every chunk M / parts of device 0's first
   round that sends: at most M over the fewest parts of any device's
   rounds, L_x inside a node of L_x > 1, K L_x across), and the most
   chunks one device receives in a round across nodes (*nf). */
static double hs__hier_comm_chunk(const hs_scenario_t *s, double m,
                                  double *nf)
{
    int64_t A, Ki = hs_coll_hier_nodes(s, &A);
    double parts = 0;
    uint32_t x, Lu, from, e, p, n, c;

    *nf = 1;
    for (x = 0; x < s->n_devices; x++) {
        double px;
        (void)hs_coll_hier_node(s, s->nodes->dev_node[x], &Lu);
        px = Lu > 1 ? (double)Lu : (double)Ki * (double)Lu;
        if (parts == 0 || px < parts)
            parts = px;
        if (Ki > 1) {
            hs_coll_hier_peer(s, x, 2 * A, -1, &from, &e, &p, &n, &c);
            if ((double)c > *nf)
                *nf = (double)c;
        }
    }
    return parts > 0 ? m / parts : m;
}

static void hs__hier_bound_ns(const hs_scenario_t *s, hs_coll_bound_t *b)
{
    size_t N = s->n_devices;
    int64_t A, Ki = hs_coll_hier_nodes(s, &A);
    double K = (double)Ki, m = b->payload_bytes, nf;
    double w = hs__hier_comm_chunk(s, m, &nf);
    hs_coll_bound_t in = *b, out = *b;
    uint32_t x, Lu;

    for (x = 0; x < N; x++) {
        uint32_t e_in = hs_edge_index(N, HS_EDGE_INTRA, x);
        uint32_t e_out = hs_edge_index(N, HS_EDGE_INTER, x);
        uint32_t to, e, p, n, c;
        double L;
        (void)hs_coll_hier_node(s, s->nodes->dev_node[x], &Lu);
        L = (double)Lu;
        if (Lu > 1) {
            hs_coll_hier_peer(s, x, 0, 1, &to, &e, &p, &n, &c);
            hs_coll_bound_link(&in, m / L, w, s->ring_bw_bytes_per_s[e_in],
                               (double)s->ring_lat_ns[e_in], x, to);
        }
        if (Ki > 1) {
            hs_coll_hier_peer(s, x, 2 * A, 1, &to, &e, &p, &n, &c);
            hs_coll_bound_link(&out, m / (K * L), nf * w,
                               s->ring_bw_bytes_per_s[e_out],
                               (double)s->ring_lat_ns[e_out], x, to);
        }
    }
    in.rounds = 2.0 * (double)A;
    out.rounds = 2.0 * (K - 1.0);
    *b = in.rounds * in.round_ns >= out.rounds * out.round_ns ? in : out;
    b->ns = in.rounds * in.round_ns + out.rounds * out.round_ns;
    b->rounds_all = in.rounds + out.rounds;
    b->edge = HS_COLL_EDGE_OWN;
    /* one chunk per node round, up to nf per round across nodes, each
       charged up to w bytes */
    b->recv_chunks = in.rounds + out.rounds * nf;
    b->recv_bytes = b->recv_chunks * w;
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
    hs__hier_rings,
    NULL,   /* allreduce_all_ns: per device */
    hs__hier_chunks_of,
    hs__hier_bound_ns,
    NULL,   /* state_bytes_of: per device only */
    NULL    /* bucket_all_ns: the sum of its rounds */
};
