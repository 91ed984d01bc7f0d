/*
 * hs_coll_hier.c -- the hierarchical ring all-reduce as a collective
 * (hs_collective.h), on a scenario with nodes (model/hs_nodes.h) of equal
 * size L; K = N / L nodes, device x = n L + j on node n with local rank j.
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
 *
 * Progress in the replay: as the ring (hs_coll_ring.c), with the peers of
 * round r computed from (x, r) instead of fixed in the lane.  A lane
 * enters round g when its round g-1 send is done, all chunks of rounds
 * < g have arrived (recv_cnt >= g) and the round is open.  The count is
 * enough because chunks reach a device in round order: inside a phase
 * they come from one sender over one edge, and a chunk of a new phase is
 * only sent once its receiver has entered that phase.  Under rendezvous
 * a chunk of round g leaves when the receiver has entered g; under eager
 * when it has entered the first round of g's phase (eager inside a
 * phase, rendezvous at phase boundaries: the phase switches sender).
 * Entering a round tries the send of the lane it receives from in that
 * round (the only one that can be waiting for it).
 */
#include "hs_coll_hier.h"

#include <stdio.h>

#include "hs_edge.h"
#include "hs_nodes.h"
#include "hs_units.h"

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

/* Device x's peer in round r (dir +1: whom it sends to, -1: from whom it
   receives), the edge and the parts; returns the first round of r's
   phase. */
static inline int64_t hs__hier_peer(const hs_scenario_t *s, uint32_t x,
                                    int64_t r, int dir, uint32_t *peer,
                                    uint32_t *edge, uint32_t *parts,
                                    uint32_t *ring_n)
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

static void hs__hier_round(const hs_scenario_t *s, uint32_t x, int64_t r,
                           hs_coll_round_t *out)
{
    uint32_t from, e, p, n;

    hs__hier_peer(s, x, r, 1, &out->to, &out->edge, &out->parts,
                  &out->ring_n);
    hs__hier_peer(s, x, r, -1, &from, &e, &p, &n);
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

static void hs__hier_lane_init(const hs_scenario_t *s, uint32_t x,
                               uint32_t st, uint32_t k, hs_coll_lane_t *l)
{
    hs_coll_round_t rd;

    hs__hier_round(s, x, 0, &rd);
    l->to = rd.to * k + st;
    l->from = rd.from * k + st;
}

/* The lane of device x's peer (dir) in round g; the phase start into
   *ph. */
static inline uint32_t hs__hier_lane(const hs_coll_host_t *h, uint32_t lx,
                                     int64_t g, int dir, int64_t *ph)
{
    uint32_t k = h->k, x = lx / k, st = lx - x * k, peer, e, p, n;
    int64_t r = g % h->rounds;

    *ph = g - r + hs__hier_peer(h->s, x, r, dir, &peer, &e, &p, &n);
    return peer * k + st;
}

/* Lane lx's chunk of round send_cnt leaves if it entered that round and
   its receiver entered the round (rendezvous) or its phase (eager). */
static inline void hs__hier_try_send(hs_engine_t *e, hs_coll_host_t *h,
                                     uint32_t lx, int64_t now)
{
    const hs_coll_lane_t *l = &h->lane[lx];
    int64_t g = l->send_cnt, ph;
    uint32_t ly;

    if (l->busy || l->enter_g != g)
        return;
    ly = hs__hier_lane(h, lx, g, 1, &ph);
    if (h->lane[ly].enter_g < (h->rendezvous ? g : ph))
        return;
    hs_coll_send(e, h, lx, ly, g, now);
}

static inline void hs__hier_poll_in(hs_engine_t *e, hs_coll_host_t *h,
                                    uint32_t lx, int64_t now)
{
    hs_coll_lane_t *l = &h->lane[lx];
    int64_t g = l->send_cnt, ph;

    if (l->busy)
        return;
    if (l->enter_g < g && g < l->g_open && l->recv_cnt >= g) {
        l->enter_g = g;
        hs__hier_try_send(e, h, hs__hier_lane(h, lx, g, -1, &ph), now);
    }
    hs__hier_try_send(e, h, lx, now);
}

static void hs__hier_poll(hs_engine_t *e, hs_coll_host_t *h, uint32_t lx,
                          int64_t now)
{
    hs__hier_poll_in(e, h, lx, now);
}

static int hs__hier_arrive(hs_engine_t *e, void *model, const hs_event_t *ev)
{
    hs_coll_host_t *h = model;
    uint32_t lx = ev->device, ly;
    hs_coll_lane_t *l = &h->lane[lx];
    int64_t now = ev->time_ns, g = ev->arg, ph;

    ly = hs__hier_lane(h, lx, g, 1, &ph);
    l->busy = 0;
    l->send_cnt = g + 1;
    if (hs_coll_delivered(e, h, lx, ly, g, now))
        h->lane[ly].recv_cnt++;
    hs_coll_check(e, h, lx, now);
    hs__hier_poll_in(e, h, lx, now);
    hs_coll_check(e, h, ly, now);
    hs__hier_poll_in(e, h, ly, now);
    return h->failed;
}

static int hs__hier_received(hs_engine_t *e, void *model,
                             const hs_event_t *ev)
{
    hs_coll_host_t *h = model;
    uint32_t ly = ev->device;
    int64_t now = ev->time_ns;

    h->lane[ly].recv_cnt = ev->arg + 1;
    hs_coll_check(e, h, ly, now);
    hs__hier_poll_in(e, h, ly, now);
    return h->failed;
}

const hs_collective_t hs_coll_hier = {
    "hierarchical",
    "hierarchical ring: reduce-scatter in each node, a ring all-reduce "
    "across nodes per local rank, all-gather in each node",
    0,
    hs__hier_rounds,
    hs__hier_round,
    hs__hier_allreduce_ns,
    hs__hier_lane_init,
    hs__hier_poll,
    hs__hier_arrive,
    hs__hier_received,
    hs__hier_check,
    hs__hier_rounds_of,
    hs__hier_rings
};
