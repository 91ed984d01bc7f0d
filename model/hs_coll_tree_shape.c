/*
 * hs_coll_tree_shape.c -- the double binary tree all-reduce's shape and
 * closed form (hs_collective.h); the trees, the chains and the rounds are
 * hs_coll_tree_shape.h, its progress in the replay sim/hs_coll_tree.c.
 *
 * Closed form.  Every device opens the all-reduce at 0; a round starts
 * when the device's previous round is done and the chunks it needs have
 * arrived; a send takes the link's latency plus its M / (2P) bytes over
 * the link's bandwidth (P = the scenario's tree_chunks:, default 8;
 * hs_chunk_ns, rounded as the replay rounds it).
 * That schedule is a max-plus recursion over the rounds,
 *   done(x, r) = max(done(x, r-1), max_i done(need_i, need_r_i)) + t(x, r),
 * evaluated here in one pass (reduce rounds children first, broadcast
 * rounds parents first, then the last round), O(N R) per device asked.  T_ar(x) is done(x,
 * It is what the replay gives when every device opens at once,
 * with eager sends and no communication cost (the tree's chunks are
 * always eager: NCCL's tree sends into the receiver's buffer).  For P ->
 * infinity it tends to the latencies along the critical path plus the
 * busiest device's bytes over its links: the bracket of
 * docs/nccl-notes.md 5(b), except that a head's sends to its node and
 * across nodes go one after the other here (one chunk per device on the
 * wire), where NCCL overlaps them.
 */
#include "hs_coll_tree_shape.h"

#include <stdio.h>
#include <stdlib.h>

#include "hs_edge.h"

int hs_coll_tree_link(const hs_scenario_t *s, uint32_t x, uint32_t y,
                      double *bw_bytes_per_s, int64_t *lat_ns)
{
    const hs_nodes_t *nd = s->nodes;
    uint32_t a = nd->dev_node[x], b = nd->dev_node[y];
    uint32_t sa = nd->node_first[a + 1] - nd->node_first[a] > 1 ? 2 : 1;
    uint32_t sb = nd->node_first[b + 1] - nd->node_first[b] > 1 ? 2 : 1;

    if (a == b)
        sa = sb = 1;
    return hs_nodes_link(s, x, y, sa, sb, bw_bytes_per_s, lat_ns);
}

static int64_t hs__tree_rounds(uint32_t n)
{
    (void)n;   /* the default chunk count's (rounds_of is what runs) */
    return 8 * (int64_t)HS_TREE_CHUNKS + 1;
}

static int64_t hs__tree_rounds_of(const hs_scenario_t *s)
{
    return hs_coll_tree_rounds(s);
}

static void hs__tree_round(const hs_scenario_t *s, uint32_t x, int64_t r,
                           hs_coll_round_t *out)
{
    hs_tree_step_t st;

    hs_coll_tree_step(s, x, r, &st);
    out->to = st.to == HS_TREE_NONE ? x : st.to;
    out->from = st.n_need > 0 ? st.need[0] : x;
    out->parts = (uint32_t)(2 * hs_coll_tree_chunks(s));
    out->ring_n = (uint32_t)s->n_devices;
    out->edge = HS_COLL_EDGE_OWN;
    out->bw_bytes_per_s = 0;
    out->lat_ns = 0;
    if (st.to != HS_TREE_NONE)
        (void)hs_coll_tree_link(s, x, st.to, &out->bw_bytes_per_s,
                                &out->lat_ns);
}

/* The time device x's send of round r takes (0 without a send). */
static int64_t hs__tree_send_ns(const hs_scenario_t *s, uint32_t x,
                                const hs_tree_step_t *st)
{
    const hs_profile_t *p = &s->types[s->devices[x].type].profile;
    double bw;
    int64_t lat;

    if (st->to == HS_TREE_NONE || !hs_coll_tree_link(s, x, st->to, &bw, &lat))
        return 0;
    return hs_chunk_ns(lat, bw, hs_profile_payload_bytes(p),
                       2.0 * (double)hs_coll_tree_chunks(s));
}

/* Devices of tree t, parents before children (breadth first from the
   root), into order[N]. */
static void hs__tree_order(const hs_scenario_t *s, int t, uint32_t *order)
{
    uint32_t N = (uint32_t)s->n_devices, x, head = 0, tail = 0, i;
    hs_tree_links_t lk;

    for (x = 0; x < N && tail == 0; x++) {
        hs_coll_tree_links(s, t, x, &lk);
        if (lk.parent == HS_TREE_NONE)
            order[tail++] = x;
    }
    while (head < tail) {
        hs_coll_tree_links(s, t, order[head++], &lk);
        for (i = 0; i < lk.n_kids; i++)
            order[tail++] = lk.kids[i];
    }
}

/* The closed form's round times: up[x * 2P + c] when device x's reduce
   round c was done, dn[x * 6 + 3t + slot] its broadcast round `slot` of
   the latest chunk of tree t, last[x] its latest round. */
typedef struct hs__tree_times_s {
    int64_t *up, *dn, *last;
    int64_t *send;   /* [x * 8 + 4t + i]: x's send in tree t to its child
                        i (0-2) or its parent (3), computed once */
} hs__tree_times_t;

/* Fills tm->send: every send's time, once per device and tree. */
static void hs__tree_sends(const hs_scenario_t *s, hs__tree_times_t *tm)
{
    uint32_t x, i;
    int t;

    for (x = 0; x < s->n_devices; x++)
        for (t = 0; t < 2; t++) {
            hs_tree_links_t lk;
            hs_tree_step_t st;
            int64_t *o = &tm->send[(size_t)x * 8 + 4 * (size_t)t];
            hs_coll_tree_links(s, t, x, &lk);
            for (i = 0; i < 4; i++) {
                st.to = i < lk.n_kids ? lk.kids[i]
                                      : i == 3 ? lk.parent : HS_TREE_NONE;
                o[i] = hs__tree_send_ns(s, x, &st);
            }
        }
}

/* When round r of device x, whose round r' needs are known, is done. */
static void hs__tree_eval(const hs_scenario_t *s, uint32_t x, int64_t r,
                          hs__tree_times_t *tm)
{
    const int64_t P2 = 2 * hs_coll_tree_chunks(s);
    hs_tree_step_t st;
    int64_t t = tm->last[x], q;
    uint32_t i;

    hs_coll_tree_step(s, x, r, &st);
    for (i = 0; i < st.n_need; i++) {
        int64_t a;
        q = st.need_r[i];
        if (q < P2)
            a = tm->up[(size_t)st.need[i] * (size_t)P2 + (size_t)q];
        else
            a = tm->dn[(size_t)st.need[i] * 6 +
                       (size_t)(((q - P2) / 3) % 2) * 3 +
                       (size_t)((q - P2) % 3)];
        if (a > t)
            t = a;
    }
    if (st.to != HS_TREE_NONE)
        t += r < P2 ? tm->send[(size_t)x * 8 + 4 * (size_t)(r % 2) + 3]
                    : tm->send[(size_t)x * 8 +
                               4 * (size_t)(((r - P2) / 3) % 2) +
                               (size_t)((r - P2) % 3)];
    if (r < P2)
        tm->up[(size_t)x * (size_t)P2 + (size_t)r] = t;
    else if (r < 4 * P2)
        tm->dn[(size_t)x * 6 + (size_t)(((r - P2) / 3) % 2) * 3 +
               (size_t)((r - P2) % 3)] = t;
    tm->last[x] = t;
}

static int64_t hs__tree_allreduce_ns(const hs_scenario_t *s, uint32_t d)
{
    const int64_t P2 = 2 * hs_coll_tree_chunks(s);
    size_t N = s->n_devices, i;
    uint32_t *order = malloc(2 * N * sizeof *order);
    int64_t *buf = calloc((size_t)(P2 + 15) * N, sizeof *buf);
    hs__tree_times_t tm;
    int64_t c, r, k, t_ar;

    if (order == NULL || buf == NULL) {
        free(order);
        free(buf);
        return INT64_MAX;   /* out of memory: no figure */
    }
    tm.up = buf;
    tm.dn = buf + (size_t)P2 * N;
    tm.last = tm.dn + 6 * N;
    tm.send = tm.last + N;
    hs__tree_sends(s, &tm);
    hs__tree_order(s, 0, order);
    hs__tree_order(s, 1, order + N);
    for (r = 0; r < P2; r++)        /* reduce: children first */
        for (i = N; i-- > 0;)
            hs__tree_eval(s, order[(size_t)(r % 2) * N + i], r, &tm);
    for (c = 0; c < P2; c++)        /* broadcast: parents first */
        for (i = 0; i < N; i++)
            for (k = 0; k < 3; k++)
                hs__tree_eval(s, order[(size_t)(c % 2) * N + i],
                              P2 + 3 * c + k, &tm);
    for (i = 0; i < N; i++)
        hs__tree_eval(s, (uint32_t)i, 4 * P2, &tm);
    t_ar = tm.last[d];
    free(order);
    free(buf);
    return t_ar;
}

/* The devices the tree's closed form evaluates in reasonable time: it is
   O(N R) per device, O(N^2 R) for the whole cluster. */
#define HS__TREE_MAX_DEVICES 1024

static hs_err_t hs__tree_check(const hs_scenario_t *s, hs_error_t *err)
{
    size_t N = s->n_devices;
    uint32_t x, i;
    int t;

    if (s->nodes == NULL)
        return hs_error_setf(err, HS_ERR_SCHEMA,
                             "tree needs a nodes: section (a flat device "
                             "list has no nodes; use ring)");
    if (N > HS__TREE_MAX_DEVICES)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "tree: %zu devices, at most %d (its closed "
                             "form is quadratic in the devices; use ring)",
                             N, HS__TREE_MAX_DEVICES);
    for (x = 0; x < N; x++)
        for (t = 0; t < 2; t++) {
            hs_tree_links_t lk;
            double bw;
            int64_t lat;
            hs_coll_tree_links(s, t, x, &lk);
            for (i = 0; i < lk.n_kids + (lk.parent != HS_TREE_NONE); i++) {
                uint32_t y = i < lk.n_kids ? lk.kids[i] : lk.parent;
                if (!hs_coll_tree_link(s, x, y, &bw, &lat))
                    return hs_error_setf(
                        err, HS_ERR_NETWORK,
                        "tree: device %s has no bandwidth to %s",
                        s->devices[x].name, s->devices[y].name);
                if (!(hs_profile_payload_bytes(
                          &s->types[s->devices[x].type].profile) /
                          (2.0 * (double)hs_coll_tree_chunks(s)) / bw *
                          1e9 * (double)hs_coll_tree_rounds(s) * (double)N <
                      4.6e18))
                    return hs_error_setf(
                        err, HS_ERR_RANGE,
                        "tree: one all-reduce of device %s could take "
                        "beyond the 2^62 ns the replay handles",
                        s->devices[x].name);
            }
        }
    return HS_OK;
}

const hs_collective_t hs_coll_tree = {
    "tree",
    "double binary tree across nodes (NCCL's), a chain inside each node: "
    "reduce up, then broadcast down, pipelined in chunks",
    0,
    hs__tree_rounds,
    hs__tree_round,
    hs__tree_allreduce_ns,
    hs__tree_check,
    hs__tree_rounds_of,
    NULL    /* rings: the hop wait as in a ring of every device */
};
