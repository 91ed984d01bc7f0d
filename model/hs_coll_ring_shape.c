/*
 * hs_coll_ring_shape.c -- the ring all-reduce's shape and closed form
 * (hs_collective.h); its progress in the replay is sim/hs_coll_ring.c.
 *
 * N devices in the scenario's ring order, 2(N-1) rounds: N-1 of
 * reduce-scatter, then N-1 of all-gather.  In every round device i sends a
 * chunk of M/N bytes to next(i) over its own edge ring[k] -> ring[k+1]
 * (latency alpha_i, bandwidth B_i) and receives one from prev(i).  So
 * every round of a device has the same edge and chunk (uniform), and the
 * closed form is T_ar(i) = 2(N-1) (alpha_i + (M/N) / B_i).
 */
#include "hs_collective.h"

#include "hs_edge.h"

static int64_t hs__ring_rounds(uint32_t n)
{
    return 2 * ((int64_t)n - 1);
}

static void hs__ring_round(const hs_scenario_t *s, uint32_t x, int64_t r,
                           hs_coll_round_t *out)
{
    (void)r;
    out->to = hs_scenario_next(s, x);
    out->from = hs_scenario_prev(s, x);
    out->edge = s->devices[x].ring_pos;
    out->parts = (uint32_t)s->n_devices;
    out->ring_n = (uint32_t)s->n_devices;
}

static int64_t hs__ring_allreduce_ns(const hs_scenario_t *s, uint32_t d)
{
    const hs_profile_t *p = &s->types[s->devices[d].type].profile;
    uint32_t k = s->devices[d].ring_pos;
    int64_t per_round = hs_edge_chunk_ns(s, k, hs_profile_payload_bytes(p),
                                         (double)s->n_devices);

    return 2 * (int64_t)(s->n_devices - 1) * per_round;
}

/* 2(N-1) rounds x the worst edge's round of M_max / N: every round of
   the ring ends within the worst round of the one before it, on any
   edge (a device enters round r when its own send and the chunk from
   prev of round r-1 are done). */
static void hs__ring_bound_ns(const hs_scenario_t *s, hs_coll_bound_t *b)
{
    double n = (double)s->n_devices, chunk = b->payload_bytes / n;
    size_t k;

    for (k = 0; k < s->n_devices; k++) {
        double before = b->round_ns;
        hs_coll_bound_link(b, chunk, chunk, s->ring_bw_bytes_per_s[k],
                           (double)s->ring_lat_ns[k], s->ring[k],
                           s->ring[k + 1 == s->n_devices ? 0 : k + 1]);
        if (b->round_ns > before)
            b->edge = (uint32_t)k;
    }
    b->rounds = 2.0 * (n - 1.0);
    b->rounds_all = b->rounds;
    b->ns = b->rounds * b->round_ns;
    b->recv_chunks = b->rounds;
    b->recv_bytes = b->rounds * chunk;
}

const hs_collective_t hs_coll_ring = {
    "ring",
    "ring all-reduce: 2(N-1) rounds of M/N bytes to the next device",
    1,
    hs__ring_rounds,
    hs__ring_round,
    hs__ring_allreduce_ns,
    NULL,   /* check: any scenario */
    NULL,   /* rounds_of: rounds(n) */
    NULL,   /* rings: one, of every device */
    NULL,   /* allreduce_all_ns: T_ar(i) is O(1) per device */
    NULL,   /* chunks_of: N x 2(N-1) */
    hs__ring_bound_ns,
    NULL,   /* state_bytes_of: per device only */
    NULL    /* bucket_all_ns: the sum of its rounds */
};
