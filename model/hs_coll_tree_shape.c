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
 * evaluated here with a worklist (a device moves on as far as the rounds
 * it needs are known, then wakes its tree neighbours;
 * hs_coll_tree_sched_run): O(N R) for the whole cluster, which the closed
 * form asks once (allreduce_all_ns); allreduce_ns of one device runs all
 * of it too.  T_ar(x) is done(x, R-1); a gradient bucket's all-reduce
 * alone (the closed form's overlap buckets) is the same schedule on the
 * bucket's bytes (bucket_all_ns), not the sum of its rounds, which
 * overlap.  The replay's fast path
 * (sim/hs_treefast.c) runs the same schedule from each step's openings.  It is what the replay gives when
 * every device opens at once, with no communication cost (the tree's
 * chunks are always eager: NCCL's tree sends into the receiver's buffer).
 * As P grows it tends to the busiest device's bytes over its links plus
 * the pipeline's fill: with one device per node, X_k M / B_nic of
 * docs/nccl-notes.md 5(b) (X = 1 for K = 2, 1.5 for K = 3, 2 from K = 4;
 * tests/test_tree.c), because the reduce and the broadcast of a device
 * each carry at most M; with chains inside the nodes a head's sends to
 * its node and across nodes go one after the other here (one chunk per
 * device on the wire), where NCCL overlaps them on separate channels.
 */
#include "hs_coll_tree_shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_edge.h"
#include "hs_limits.h"

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

/* Each tree spans the N devices (N - 1 parent links); every link carries
   P chunks up and P down, in both trees: 4P(N - 1) (the count
   hs__tree_sends makes device by device). */
static double hs__tree_chunks_of(const hs_scenario_t *s)
{
    double n = (double)s->n_devices;

    return n > 1.0 ? 4.0 * (double)hs_coll_tree_chunks(s) * (n - 1.0) : 0.0;
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

/* The time device x's send of round r takes (0 without a send) in an
   all-reduce of payload_bytes. */
static int64_t hs__tree_send_ns(const hs_scenario_t *s, uint32_t x,
                                const hs_tree_step_t *st,
                                double payload_bytes)
{
    double bw;
    int64_t lat;

    if (st->to == HS_TREE_NONE || !hs_coll_tree_link(s, x, st->to, &bw, &lat))
        return 0;
    return hs_chunk_ns(lat, bw, payload_bytes,
                       2.0 * (double)hs_coll_tree_chunks(s));
}

/* The schedule's state (hs_coll_tree_shape.h): done[x * R + r] when
   device x's round r was done (valid below next[x]), send[x * 8 + 4t + i]
   x's send in tree t to its child i (0-2) or its parent (3), and a
   worklist of devices that may move (stack, inq). */
struct hs_coll_tree_sched_s {
    size_t n;
    int64_t R, P2;
    int64_t *buf;          /* one block: done, next, send */
    int64_t *done, *next, *send;
    const int64_t *open;   /* the run's openings (NULL: all at 0) */
    uint32_t *stack, n_stack;
    uint8_t *inq;
    hs_tree_links_t *lk;   /* [x * 2 + t]: hs_coll_tree_links, once */
    int8_t *lf;            /* [x]: hs_coll_tree_leaf_first, once */
    uint64_t chunks;       /* sends of one all-reduce, all devices */
};

typedef hs_coll_tree_sched_t hs__tree_cf_t;

/* hs_coll_tree_up_round from the cached links. */
static int64_t hs__tree_up_round(const hs__tree_cf_t *cf, uint32_t x,
                                 int64_t c)
{
    int lf = cf->lf[x];

    if (lf < 0)
        return c;
    return c % 2 == lf ? c / 2 : cf->P2 / 2 + c / 2;
}

/* The slot of child x among parent p's children in tree t, cached. */
static int64_t hs__tree_slot(const hs__tree_cf_t *cf, int t, uint32_t p,
                             uint32_t x)
{
    const hs_tree_links_t *pl = &cf->lk[(size_t)p * 2 + (size_t)t];
    uint32_t i;

    for (i = 0; i < pl->n_kids && pl->kids[i] != x; i++)
        ;
    return i;
}

/* hs_coll_tree_step from the cached links (the same rounds: the replay,
   which asks hs_coll_tree_step, equals this schedule to the ns in
   tests/test_tree.c and tests/test_treefast.c). */
static void hs__tree_step(const hs__tree_cf_t *cf, uint32_t x, int64_t r,
                          hs_tree_step_t *o)
{
    const int64_t P2 = cf->P2, P = P2 / 2;
    const hs_tree_links_t *lk;
    int64_t c, slot;
    uint32_t i;
    int t;

    o->n_need = 0;
    o->to = HS_TREE_NONE;
    if (r < P2) {
        c = cf->lf[x] < 0 ? r
            : r < P ? 2 * r + cf->lf[x] : 2 * (r - P) + (1 - cf->lf[x]);
        lk = &cf->lk[(size_t)x * 2 + (size_t)(c % 2)];
        if ((o->to = lk->parent) == HS_TREE_NONE)
            return;
        for (i = 0; i < lk->n_kids; i++) {
            o->need[o->n_need] = lk->kids[i];
            o->need_r[o->n_need++] = hs__tree_up_round(cf, lk->kids[i], c);
        }
        return;
    }
    if (r == 4 * P2) {
        for (t = 0; t < 2; t++) {
            lk = &cf->lk[(size_t)x * 2 + (size_t)t];
            if (lk->parent == HS_TREE_NONE)
                continue;
            o->need[o->n_need] = lk->parent;
            o->need_r[o->n_need++] = P2 + 3 * (P2 - 2 + t) +
                                     hs__tree_slot(cf, t, lk->parent, x);
        }
        return;
    }
    c = (r - P2) / 3;
    slot = (r - P2) % 3;
    lk = &cf->lk[(size_t)x * 2 + (size_t)(c % 2)];
    if (slot >= lk->n_kids)
        return;
    o->to = lk->kids[slot];
    if (slot > 0)
        return;
    if (lk->parent != HS_TREE_NONE) {
        o->need[0] = lk->parent;
        o->need_r[0] = P2 + 3 * c +
                       hs__tree_slot(cf, (int)(c % 2), lk->parent, x);
        o->n_need = 1;
        return;
    }
    for (i = 0; i < lk->n_kids; i++) {
        o->need[o->n_need] = lk->kids[i];
        o->need_r[o->n_need++] = hs__tree_up_round(cf, lk->kids[i], c);
    }
}

/* Fills cf->send (every send's time, once per device and tree) and
   cf->chunks, for payloads bytes[type * nb + b] (bytes NULL: the
   profiles' payloads). */
static void hs__tree_sends(const hs_scenario_t *s, hs__tree_cf_t *cf,
                           const double *bytes, size_t nb, size_t b)
{
    uint32_t x, i;
    int t;

    cf->chunks = 0;
    for (x = 0; x < cf->n; x++)
        for (t = 0; t < 2; t++) {
            const hs_tree_links_t *lk = &cf->lk[(size_t)x * 2 + (size_t)t];
            size_t ty = s->devices[x].type;
            double pay = bytes != NULL
                             ? bytes[ty * nb + b]
                             : hs_profile_payload_bytes(&s->types[ty].profile);
            hs_tree_step_t st;
            int64_t *o = &cf->send[(size_t)x * 8 + 4 * (size_t)t];
            for (i = 0; i < 4; i++) {
                st.to = i < lk->n_kids ? lk->kids[i]
                                       : i == 3 ? lk->parent : HS_TREE_NONE;
                o[i] = hs__tree_send_ns(s, x, &st, pay);
            }
            /* per tree P chunks up (with a parent), P to each child */
            cf->chunks += (uint64_t)(cf->P2 / 2) *
                          (lk->n_kids + (lk->parent != HS_TREE_NONE));
        }
}

static void hs__tree_push(hs__tree_cf_t *cf, uint32_t x)
{
    if (x == HS_TREE_NONE || cf->inq[x])
        return;
    cf->inq[x] = 1;
    cf->stack[cf->n_stack++] = x;
}

/* The time device x's send of round r takes (0 without one). */
static inline int64_t hs__tree_round_send(const hs__tree_cf_t *cf,
                                          uint32_t x, int64_t r)
{
    int64_t t;

    if (r < cf->P2) {
        t = cf->lf[x] < 0 ? r % 2
            : r < cf->P2 / 2 ? cf->lf[x] : 1 - cf->lf[x];
        return cf->send[(size_t)x * 8 + 4 * (size_t)t + 3];
    }
    return cf->send[(size_t)x * 8 + 4 * (size_t)(((r - cf->P2) / 3) % 2) +
                    (size_t)((r - cf->P2) % 3)];
}

/* Evaluates device x's rounds as far as what they need is known; returns
   whether it moved. */
static int hs__tree_advance(hs__tree_cf_t *cf, uint32_t x)
{
    int64_t *dx = &cf->done[(size_t)x * (size_t)cf->R], r;
    int moved = 0;

    while ((r = cf->next[x]) < cf->R) {
        hs_tree_step_t st;
        int64_t t = r > 0 ? dx[r - 1] : cf->open != NULL ? cf->open[x] : 0;
        uint32_t i;
        hs__tree_step(cf, x, r, &st);
        for (i = 0; i < st.n_need; i++) {
            int64_t at;
            if (cf->next[st.need[i]] <= st.need_r[i])
                return moved;
            at = cf->done[(size_t)st.need[i] * (size_t)cf->R +
                          (size_t)st.need_r[i]];
            if (at > t)
                t = at;
        }
        if (st.to != HS_TREE_NONE)
            t += hs__tree_round_send(cf, x, r);
        dx[r] = t;
        cf->next[x] = r + 1;
        moved = 1;
    }
    return moved;
}

void hs_coll_tree_sched_free(hs_coll_tree_sched_t *cf)
{
    if (cf == NULL)
        return;
    free(cf->buf);
    free(cf->stack);
    free(cf->inq);
    free(cf->lk);
    free(cf->lf);
    free(cf);
}

size_t hs_coll_tree_sched_state_bytes(const hs_scenario_t *s)
{
    size_t n = s->n_devices;

    return ((size_t)hs_coll_tree_rounds(s) + 9) * n * sizeof(int64_t) +
           n * (sizeof(uint32_t) + 2 + 2 * sizeof(hs_tree_links_t)) +
           sizeof(hs_coll_tree_sched_t);
}

hs_err_t hs_coll_tree_sched_new(const hs_scenario_t *s,
                                hs_coll_tree_sched_t **out, hs_error_t *err)
{
    size_t N = s->n_devices;
    hs__tree_cf_t *cf;
    uint32_t x;

    *out = NULL;
    if ((cf = calloc(1, sizeof *cf)) == NULL)
        goto nomem;
    cf->n = N;
    cf->R = hs_coll_tree_rounds(s);
    cf->P2 = 2 * hs_coll_tree_chunks(s);
    cf->buf = malloc((size_t)(cf->R + 9) * N * sizeof *cf->buf);
    cf->stack = malloc(N * sizeof *cf->stack);
    cf->inq = calloc(N, 1);
    cf->lk = malloc(2 * N * sizeof *cf->lk);
    cf->lf = malloc(N);
    if (cf->buf == NULL || cf->stack == NULL || cf->inq == NULL ||
        cf->lk == NULL || cf->lf == NULL)
        goto nomem;
    for (x = 0; x < N; x++) {
        hs_coll_tree_links(s, 0, x, &cf->lk[(size_t)x * 2]);
        hs_coll_tree_links(s, 1, x, &cf->lk[(size_t)x * 2 + 1]);
        cf->lf[x] = (int8_t)hs_coll_tree_leaf_first(s, x);
    }
    cf->done = cf->buf;
    cf->next = cf->buf + (size_t)cf->R * N;
    cf->send = cf->next + N;
    hs__tree_sends(s, cf, NULL, 0, 0);
    *out = cf;
    return HS_OK;
nomem:
    hs_coll_tree_sched_free(cf);
    return hs_error_setf(err, HS_ERR_NOMEM,
                         "out of memory for the tree schedule of %zu "
                         "devices", N);
}

void hs_coll_tree_sched_payload(hs_coll_tree_sched_t *cf,
                                const hs_scenario_t *s, const double *bytes,
                                size_t nb, size_t b)
{
    hs__tree_sends(s, cf, bytes, nb, b);
}

uint64_t hs_coll_tree_sched_chunks(const hs_coll_tree_sched_t *cf)
{
    return cf->chunks;
}

size_t hs_coll_tree_sched_run(hs_coll_tree_sched_t *cf,
                              const int64_t *open_ns, int64_t *done_ns)
{
    size_t N = cf->n, left = 0;
    uint32_t x, i;
    int t;

    cf->open = open_ns;
    cf->n_stack = 0;
    memset(cf->next, 0, N * sizeof *cf->next);
    for (x = (uint32_t)N; x-- > 0;)
        hs__tree_push(cf, x);
    while (cf->n_stack > 0) {
        x = cf->stack[--cf->n_stack];
        cf->inq[x] = 0;
        if (!hs__tree_advance(cf, x))
            continue;
        for (t = 0; t < 2; t++) {   /* who may wait on x */
            const hs_tree_links_t *lk = &cf->lk[(size_t)x * 2 + (size_t)t];
            hs__tree_push(cf, lk->parent);
            for (i = 0; i < lk->n_kids; i++)
                hs__tree_push(cf, lk->kids[i]);
        }
    }
    for (x = 0; x < N; x++) {
        left += cf->next[x] != cf->R;
        done_ns[x] = cf->next[x] == cf->R
                         ? cf->done[(size_t)x * (size_t)cf->R +
                                    (size_t)(cf->R - 1)]
                         : INT64_MAX;
    }
    cf->open = NULL;
    return left;
}

/* T_ar of every device (the schedule with every device opening at 0). */
static hs_err_t hs__tree_allreduce_all_ns(const hs_scenario_t *s,
                                          int64_t *out, hs_error_t *err)
{
    hs_coll_tree_sched_t *cf;
    hs_err_t rc = hs_coll_tree_sched_new(s, &cf, err);

    if (rc != HS_OK)
        return rc;
    (void)hs_coll_tree_sched_run(cf, NULL, out);
    hs_coll_tree_sched_free(cf);
    return HS_OK;
}

/* Each of nb payloads' all-reduce alone, every device opening at 0:
   the schedule run once per payload (bytes[type * nb + b]) into
   out[b * N + x]. */
static hs_err_t hs__tree_bucket_all_ns(const hs_scenario_t *s,
                                       const double *bytes, size_t nb,
                                       int64_t *out, hs_error_t *err)
{
    hs_coll_tree_sched_t *cf;
    hs_err_t rc = hs_coll_tree_sched_new(s, &cf, err);
    size_t b;

    if (rc != HS_OK)
        return rc;
    for (b = 0; b < nb; b++) {
        hs_coll_tree_sched_payload(cf, s, bytes, nb, b);
        (void)hs_coll_tree_sched_run(cf, NULL, out + b * s->n_devices);
    }
    hs_coll_tree_sched_free(cf);
    return HS_OK;
}

/* T_ar of device d alone: the whole schedule, O(N R) (the closed form
   asks hs__tree_allreduce_all_ns once instead). */
static int64_t hs__tree_allreduce_ns(const hs_scenario_t *s, uint32_t d)
{
    int64_t *all = malloc(s->n_devices * sizeof *all), t_ar = INT64_MAX;

    if (all != NULL && hs__tree_allreduce_all_ns(s, all, NULL) == HS_OK)
        t_ar = all[d];
    free(all);
    return t_ar;   /* out of memory: no figure */
}

static hs_err_t hs__tree_check(const hs_scenario_t *s, hs_error_t *err)
{
    size_t N = s->n_devices;
    uint32_t x, i;
    int t;

    if (s->nodes == NULL)
        return hs_error_setf(err, HS_ERR_SCHEMA,
                             "tree needs a nodes: section (a flat device "
                             "list has no nodes; use ring)");
    if ((double)hs_coll_tree_sched_state_bytes(s) >
        (double)HS_LIMIT_STATE_BYTES)
        return hs_error_setf(
            err, HS_ERR_RANGE,
            "tree: %zu devices in %lld rounds need %.1f GiB for the "
            "schedule, beyond the %.0f GiB allowed (fewer devices or a "
            "smaller tree_chunks:, or use ring)",
            N, (long long)hs_coll_tree_rounds(s),
            (double)hs_coll_tree_sched_state_bytes(s) / 1073741824.0,
            (double)HS_LIMIT_STATE_BYTES / 1073741824.0);
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

/* N R x the worst send (a chunk of M_max / (2P) over any tree link of
   any device, parent or child).  The schedule's time is its longest
   path of (device, round) steps, each step the device's previous round
   or a round of a tree neighbour it needs, each adding at most one send;
   a device's rounds on a path are distinct and in order, so a path holds
   at most N R steps (the check's own argument).  Loose by up to the
   tree's spread (a real all-reduce is about R sends plus the trees'
   depth), but the limit it guards is years away for any real cluster.
   A step's receiver may process up to 3 children's chunks (the
   communication cost). */
static void hs__tree_bound_ns(const hs_scenario_t *s, hs_coll_bound_t *b)
{
    double chunk = b->payload_bytes / (2.0 * (double)hs_coll_tree_chunks(s));
    double R = (double)hs_coll_tree_rounds(s);
    uint32_t x, i;
    int t;

    for (x = 0; x < s->n_devices; x++)
        for (t = 0; t < 2; t++) {
            hs_tree_links_t lk;
            hs_coll_tree_links(s, t, x, &lk);
            for (i = 0; i < lk.n_kids + (lk.parent != HS_TREE_NONE); i++) {
                uint32_t y = i < lk.n_kids ? lk.kids[i] : lk.parent;
                double bw;
                int64_t lat;
                if (hs_coll_tree_link(s, x, y, &bw, &lat))
                    hs_coll_bound_link(b, chunk, 3.0 * chunk, bw,
                                       (double)lat, x, y);
            }
        }
    b->rounds = (double)s->n_devices * R;
    b->rounds_all = b->rounds;
    b->ns = b->rounds * b->round_ns;
    b->edge = HS_COLL_EDGE_OWN;
    /* up to 3 children's chunks per round up, the parent's down, both
       trees: at most 3 chunks in each of the R rounds */
    b->recv_chunks = 3.0 * R;
    b->recv_bytes = 3.0 * R * chunk;
}

/* The max-plus schedule the fast path (and the closed form) hold. */
static double hs__tree_state_bytes_of(const hs_scenario_t *s)
{
    return (double)hs_coll_tree_sched_state_bytes(s);
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
    NULL,   /* rings: the hop wait as in a ring of every device */
    hs__tree_allreduce_all_ns,
    hs__tree_chunks_of,
    hs__tree_bound_ns,
    hs__tree_state_bytes_of,
    hs__tree_bucket_all_ns
};
