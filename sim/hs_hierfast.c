/*
 * hs_hierfast.c -- the hierarchical all-reduce's replay as a max-plus
 * recurrence over its rounds (hs_hierfast.h).
 *
 * Why.  The event engine replays a step of the hierarchical all-reduce as
 * one ARRIVE per chunk, N R of them (R = 2(L_max-1) + 2(K-1) rounds); at
 * N = 10,000 in nodes of 8 that is 2.5e7 events, seconds per step.  When
 * nothing is drawn at random, every device runs one stream and no chunk
 * costs its receiver time, the order of events does not matter, only their
 * times, and each is a max of earlier ones plus a fixed duration: a step
 * is computed round by round over arrays, as hs_ringfast.c does for the
 * flat ring.
 *
 * The model is sim/hs_coll_hier.c's.  Per device x and round r of one
 * step, E_r[x] when x enters r, A_r[x] when its chunk of r arrives (the
 * end of its send), O[x] its opening (patent: after the first backward
 * op; none: after the whole backward), d_r[x] its chunk's time on the
 * round's edge, y its receiver in r, P_r(x) the devices that send to it in
 * r (model/hs_coll_hier_shape.h: the previous local rank in the node
 * phases; 0, 1 or more devices of the node before across nodes; none in
 * an idle round):
 *
 *   enter   E_0[x] = O[x]
 *           E_r[x] = max(A_{r-1}[x], max_{s in P_{r-1}(x)} A_{r-1}[s])
 *   send    S_r[x] = max(E_r[x], E_r[y])        rendezvous, or y has
 *                                               several senders in r
 *           S_r[x] = max(E_r[x], E_ph[y])       eager (ph: the first
 *                                               round of r's phase)
 *   arrive  A_r[x] = S_r[x] + d_r[x]            A_r[x] = E_r[x] when x
 *                                               is idle in r
 *   done    RD[x] = max(A_{R-1}[x], max_{s in P_{R-1}(x)} A_{R-1}[s])
 *           (O[x] when R = 0).
 *
 * These are the engine's conditions (a lane enters g when its send of g-1
 * is done and the chunks of g-1 have come; it sends when its receiver has
 * entered g, or g's phase), and the engine applies each as soon as it
 * holds, so every event time is the max-plus value.  Steps chain through
 * the step's start F only, as for the ring: a device opens step k's
 * collective after its step k-1 one is done, and no chunk of step k
 * leaves before its receiver has entered step k's round 0 (a phase
 * boundary, under eager too).  Around the collective: the backward's end
 * t3 (patent: done at max(RD, t3)), the optimizer, then F' = max(done +
 * opt, F + t_dl).
 *
 * Events (n_events, as the engine counts them): per device one initial
 * DL_DONE; per step one ARRIVE per chunk (2(L_x-1) + 2(K-1) for device x
 * on a node of L_x), per device RING_OPEN (patent) or BWD_DONE (none), a
 * BWD_DONE when the all-reduce beats the backward (patent), OPT_DONE when
 * t_opt > 0 and DL_DONE when the batch is loaded after the device is
 * done.  tests/test_hierfast.c checks every figure against the event
 * engine on shipped and random scenarios.
 *
 * Speed.  The rounds across nodes are nearly all of the work (2(K-1) of
 * them over all N devices: 2.5e9 chunk updates per step at N = 100,000 in
 * nodes of 8).  With nodes of one size L in listing order, x's one sender
 * across nodes is x - L and its receiver x + L (mod N); hs__across_round
 * then runs those rounds (after the phase's first) as a stencil over
 * contiguous arrays, without the peer tables, branches or divisions of
 * hs__round, in a loop built per vector width.  The values are hs__round's
 * (max and add on int64 are exact in any order); other layouts, and
 * hs_hierfast_run_rounds, take hs__round for every round, the reference
 * tests/test_hierfast.c checks the stencil against.
 */
#include "hs_hierfast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_coll_hier_shape.h"
#include "hs_collective.h"
#include "hs_edge.h"
#include "hs_phases.h"
#include "hs_replay_int.h"

static inline int64_t hs__max(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

int hs_hierfast_supports(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         const hs_collective_t *coll, char *why,
                         size_t why_len)
{
    return hs_fast_supports_nodes(s, o, coll == &hs_coll_hier,
                                  "this fast path replays the hierarchical "
                                  "all-reduce only",
                                  why, why_len);
}

/* The state of one run, per device in listing order. */
typedef struct hs__hf_s {
    size_t n;
    int64_t A, B, R;      /* node rounds (L_max-1), rounds across nodes,
                             all rounds */
    int rdv, patent;
    size_t stride;        /* nodes of one size L laid out in order: x
                             sends across to x + L and receives from x - L
                             (mod n); 0 otherwise */
    int by_rounds;        /* every round through hs__round (reference) */
    uint32_t *L;          /* size of x's node */
    uint32_t *in_from;    /* previous local rank (node phases) */
    uint32_t *in_to;      /* next local rank */
    uint32_t *out_to;     /* receiver across nodes */
    uint32_t *s0, *nf;    /* senders across nodes: s0 + i L[x], i < nf */
    uint8_t *force;       /* out_to[x] has several senders: x waits for
                             it to enter the very round */
    int64_t *buf;         /* one block for the arrays below */
    int64_t *d_in, *d_out;/* chunk times in and across nodes */
    int64_t *e, *a, *ap;  /* enter, arrive (this round, the last) */
    int64_t *eph;         /* enter at the current phase's first round */
    int64_t *o, *t3, *f, *sum, *rd;
    uint64_t chunks;      /* ARRIVE events per step */
} hs__hf_t;

/* Device x's senders in round r: the latest of their arrivals in ap[]
   (INT64_MIN when none). */
static inline int64_t hs__recv(const hs__hf_t *m, size_t x, int64_t r)
{
    int64_t t = INT64_MIN, q;
    uint32_t i;

    if (r < m->A || r >= m->A + m->B) {
        q = r < m->A ? r : r - m->A - m->B;
        return q < (int64_t)m->L[x] - 1 ? m->ap[m->in_from[x]] : INT64_MIN;
    }
    for (i = 0; i < m->nf[x]; i++)
        t = hs__max(t, m->ap[m->s0[x] + (size_t)i * m->L[x]]);
    return t;
}

/* Swaps the arrival arrays: this round's become the last round's. */
static void hs__swap(hs__hf_t *m)
{
    int64_t *t = m->ap;

    m->ap = m->a;
    m->a = t;
}

/* One round r: E_r from the last round's arrivals, then A_r. */
static void hs__round(hs__hf_t *m, int64_t r)
{
    size_t n = m->n, x;
    int across = r >= m->A && r < m->A + m->B;
    int64_t q = r < m->A ? r : r - m->A - m->B;

    for (x = 0; x < n; x++)
        m->e[x] = r == 0 ? m->o[x] : hs__max(m->ap[x], hs__recv(m, x, r - 1));
    if (r == 0 || r == m->A || r == m->A + m->B)
        memcpy(m->eph, m->e, n * sizeof *m->eph);
    for (x = 0; x < n; x++) {
        int64_t need;
        if (across) {
            need = m->rdv || m->force[x] ? m->e[m->out_to[x]]
                                         : m->eph[m->out_to[x]];
            m->a[x] = hs__max(m->e[x], need) + m->d_out[x];
        } else if (q < (int64_t)m->L[x] - 1) {
            need = m->rdv ? m->e[m->in_to[x]] : m->eph[m->in_to[x]];
            m->a[x] = hs__max(m->e[x], need) + m->d_in[x];
        } else {
            m->a[x] = m->e[x];    /* idle */
        }
    }
    hs__swap(m);
}

/* hs__span's build: with GCC on x86-64 Linux, one clone per vector width
   (AVX-512, AVX2, the baseline; chosen when the program loads) and the
   vectoriser's full cost model (-O3) for this loop alone.  Integer max and
   add give the same values in any order, so every clone computes the same
   numbers; AVX2 and AVX-512 have the 64-bit compares the loop needs. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__linux__)
#define HS__VEC_LOOP \
    __attribute__((target_clones("avx512f", "avx2", "default"), \
                   optimize("O3")))
#else
#define HS__VEC_LOOP
#endif

/* q[x] = max(p[x + dm], p[x], c[x + dp]) + d[x] for lo <= x < hi: the
   across-node round of hs__across_round on a span where the sender is
   x + dm and the receiver's term is c[x + dp].  Branch-free, no division,
   vectorised where HS__VEC_LOOP says. */
HS__VEC_LOOP static void hs__span(int64_t *restrict q, const int64_t *restrict p,
                     const int64_t *restrict c, const int64_t *restrict d,
                     ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t dm, ptrdiff_t dp)
{
    ptrdiff_t x;

    for (x = lo; x < hi; x++) {
        int64_t v = p[x + dm] > p[x] ? p[x + dm] : p[x];
        int64_t w = c[x + dp];
        q[x] = (v > w ? v : w) + d[x];
    }
}

/*
 * One round across nodes after the phase's first, when m->stride = L > 0:
 * hs__round's recurrence with its peers by arithmetic.  x's one sender is
 * s = x - L and its receiver y = x + L (mod n), so
 *   E_r[x] = max(A_{r-1}[x], A_{r-1}[s])
 *   A_r[x] = max(E_r[x], E_r[y]) + d[x]
 *          = max(A_{r-1}[s], A_{r-1}[x], A_{r-1}[y]) + d[x]   rendezvous
 *   A_r[x] = max(E_r[x], E_ph[y]) + d[x]                      eager
 * (no device has several senders, so none is forced).  Max and add on
 * int64 are exact in any order: the same values as hs__round's.  Three
 * spans keep the wrap-around out of the inner loop.
 */
static void hs__across_round(hs__hf_t *m)
{
    ptrdiff_t n = (ptrdiff_t)m->n, L = (ptrdiff_t)m->stride;
    const int64_t *c = m->rdv ? m->ap : m->eph;

    hs__span(m->a, m->ap, c, m->d_out, 0, L, n - L, L);
    hs__span(m->a, m->ap, c, m->d_out, L, n - L, -L, L);
    hs__span(m->a, m->ap, c, m->d_out, n - L, n, -L, L - n);
    hs__swap(m);
}

/* One step's all-reduce from the openings o[]: rd[x] when x's rounds are
   all sent and received. */
static void hs__collective(hs__hf_t *m)
{
    size_t x;
    int64_t r;

    if (m->R == 0) {
        memcpy(m->rd, m->o, m->n * sizeof *m->rd);
        return;
    }
    for (r = 0; r < m->R; r++) {
        if (m->stride > 0 && r > m->A && r < m->A + m->B)
            hs__across_round(m);
        else
            hs__round(m, r);
    }
    for (x = 0; x < m->n; x++)
        m->rd[x] = hs__max(m->ap[x], hs__recv(m, x, m->R - 1));
}

/* L when across nodes every device x has one sender, x - L, and sends to
   x + L (mod n), for L = the first node's size (nodes of one size, in
   order): hs__across_round's premise; else 0. */
static size_t hs__hf_stride(const hs__hf_t *m)
{
    size_t n = m->n, L = m->L[0], x;

    if (L == 0 || n % L != 0 || n < 2 * L)
        return 0;
    for (x = 0; x < n; x++)
        if (m->nf[x] != 1 || m->out_to[x] != (x + L) % n ||
            m->s0[x] != (x + n - L) % n)
            return 0;
    return L;
}

/* The peers and chunk times of every device (hs_coll_hier_shape.h),
   and the chunks of one step. */
static void hs__hf_peers(const hs_scenario_t *s, hs__hf_t *m)
{
    uint32_t x, e, parts, rn, nf;

    for (x = 0; x < m->n; x++) {
        double pay = hs_profile_payload_bytes(
            &s->types[s->devices[x].type].profile);
        (void)hs_coll_hier_node(s,
                                s->nodes->local != 0 ? x / s->nodes->local
                                                     : s->nodes->dev_node[x],
                                &m->L[x]);
        (void)hs_coll_hier_peer(s, x, 0, 1, &m->in_to[x], &e, &parts, &rn,
                                &nf);
        (void)hs_coll_hier_peer(s, x, 0, -1, &m->in_from[x], &e, &parts,
                                &rn, &nf);
        m->d_in[x] = m->L[x] > 1 ? hs_edge_chunk_ns(s, e, pay, m->L[x]) : 0;
        m->chunks += 2 * ((uint64_t)m->L[x] - 1) + (uint64_t)m->B;
        if (m->B == 0)
            continue;
        (void)hs_coll_hier_peer(s, x, m->A, 1, &m->out_to[x], &e, &parts,
                                &rn, &nf);
        m->d_out[x] = hs_edge_chunk_ns(s, e, pay, parts);
        (void)hs_coll_hier_peer(s, x, m->A, -1, &m->s0[x], &e, &parts, &rn,
                                &m->nf[x]);
    }
    for (x = 0; m->B > 0 && x < m->n; x++)
        m->force[x] = m->nf[m->out_to[x]] > 1;
    m->stride = m->B > 0 && !m->by_rounds ? hs__hf_stride(m) : 0;
}

/* Step k's openings o[] and backward ends t3[] from the step starts f[]
   (stragglers where they apply; comp[] then holds the step's compute). */
static void hs__plan_step(const hs_scenario_t *s, const hs_replay_opts_t *o,
                          hs__hf_t *m, const hs_fast_comp_t *base,
                          hs_fast_comp_t *comp, int64_t k)
{
    size_t x, i;

    memcpy(comp, base, m->n * sizeof *comp);
    for (i = 0; i < o->n_stragglers; i++) {
        const hs_straggler_t *st = &o->stragglers[i];
        if (st->device < m->n && (int64_t)st->first_step <= k &&
            k <= (int64_t)st->last_step)
            hs_fast_compute(s, o, st->device, k, &comp[st->device]);
    }
    for (x = 0; x < m->n; x++) {
        int64_t t2 = m->f[x] + comp[x].fwd + comp[x].b1;
        m->t3[x] = t2 + comp[x].rest;
        m->o[x] = m->patent ? t2 : m->t3[x];
    }
}

/* After step k's collective: each device's end (the backward, the
   optimizer, the next batch), its step's length, the events; returns the
   step's latest end. */
static int64_t hs__end_step(hs__hf_t *m, const hs_fast_comp_t *comp, uint32_t k,
                            uint32_t steps, uint64_t *n_events)
{
    size_t x;
    int64_t end = INT64_MIN;

    *n_events += m->chunks;
    for (x = 0; x < m->n; x++) {
        int64_t fn;
        *n_events += 1;     /* RING_OPEN (patent), BWD_DONE (none) */
        fn = hs_fast_dev_end(m->patent, m->rd[x], m->t3[x], &comp[x],
                             &m->f[x], k >= 1 || steps == 1, &m->sum[x],
                             n_events);
        if (fn > end)
            end = fn;
    }
    return end;
}

/* Allocates m's arrays for n devices; 0 when out of memory. */
static int hs__hf_alloc(hs__hf_t *m, size_t n)
{
    m->n = n;
    m->L = calloc(6 * n, sizeof *m->L);
    m->force = calloc(n, 1);
    m->buf = calloc(12 * n, sizeof *m->buf);
    if (m->L == NULL || m->force == NULL || m->buf == NULL)
        return 0;
    m->in_from = m->L + n;
    m->in_to = m->in_from + n;
    m->out_to = m->in_to + n;
    m->s0 = m->out_to + n;
    m->nf = m->s0 + n;
    m->d_in = m->buf;
    m->d_out = m->d_in + n;
    m->e = m->d_out + n;
    m->a = m->e + n;
    m->ap = m->a + n;
    m->eph = m->ap + n;
    m->o = m->eph + n;
    m->t3 = m->o + n;
    m->f = m->t3 + n;
    m->sum = m->f + n;
    m->rd = m->sum + n;
    return 1;
}

static void hs__hf_free(hs__hf_t *m)
{
    free(m->L);
    free(m->force);
    free(m->buf);
}

/* The run's result fields besides the figures. */
static void hs__hf_fill(const hs_replay_opts_t *o, const hs__hf_t *m,
                        uint32_t steps, uint64_t n_events, int64_t end_ns,
                        hs_replay_result_t *res)
{
    hs_fast_describe(o, "hierarchical", steps, n_events, end_ns, res);
    res->state_bytes = 12 * m->n * sizeof(int64_t) +
                       6 * m->n * sizeof(uint32_t) + m->n +
                       2 * m->n * sizeof(hs_fast_comp_t) +
                       steps * sizeof(int64_t);
}

/* hs_hierfast_run; by_rounds: every round through hs__round. */
static hs_err_t hs__hf_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                           int by_rounds, hs_replay_result_t **out,
                           hs_error_t *err)
{
    hs__hf_t m;
    hs_replay_result_t *res = NULL;
    hs_prediction_t *pred = NULL;
    hs_fast_comp_t *base = NULL, *comp = NULL;
    int64_t *cl_end = NULL, cl_start0;
    uint64_t n_events;
    char why[200];
    hs_err_t rc;
    size_t n = s->n_devices;
    uint32_t k, steps = o->steps, K;

    *out = NULL;
    memset(&m, 0, sizeof m);
    m.by_rounds = by_rounds;
    if (!hs_hierfast_supports(s, o, hs_replay_collective(s, o), why,
                              sizeof why))
        return hs_error_setf(err, HS_ERR_RANGE, "fast replay: %s", why);
    rc = hs_closed_predict_with(s, &hs_coll_hier, o->overlap, &pred, err);
    if (rc != HS_OK)
        return rc;
    K = hs_coll_hier_nodes(s, &m.A);
    m.B = 2 * ((int64_t)K - 1);
    m.R = 2 * m.A + m.B;
    m.rdv = o->send == HS_SEND_RENDEZVOUS;
    m.patent = o->overlap == HS_OVERLAP_PATENT;
    base = calloc(n, sizeof *base);
    comp = calloc(n, sizeof *comp);
    cl_end = malloc(steps * sizeof *cl_end);
    res = calloc(1, sizeof *res);
    if (!hs__hf_alloc(&m, n) || base == NULL || comp == NULL ||
        cl_end == NULL || res == NULL)
        goto nomem;
    if (hs_replay_result_arrays(res, n, s->n_types, steps) != 0)
        goto nomem;
    hs__hf_peers(s, &m);
    cl_start0 = hs_fast_first_starts(s, o, base, m.f);
    n_events = n; /* the initial DL_DONEs */
    for (k = 0; k < steps; k++) {
        if ((rc = hs_fast_stopped(o, err)) != HS_OK)
            goto fail;
        hs__plan_step(s, o, &m, base, comp, k);
        hs__collective(&m);
        cl_end[k] = hs__end_step(&m, comp, k, steps, &n_events);
    }
    hs_fast_dev_means(res, m.sum, n, steps);
    rc = hs_replay_figures(s, steps, cl_end, cl_start0, pred, res, err);
    if (rc != HS_OK)
        goto fail;
    hs__hf_fill(o, &m, steps, n_events, cl_end[steps - 1], res);
    hs__hf_free(&m);
    free(base);
    free(comp);
    free(cl_end);
    hs_prediction_free(pred);
    *out = res;
    return HS_OK;
nomem:
    rc = hs_fast_nomem(err, n);
fail:
    hs__hf_free(&m);
    free(base);
    free(comp);
    free(cl_end);
    hs_prediction_free(pred);
    hs_replay_result_free(res);
    return rc;
}

hs_err_t hs_hierfast_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         hs_replay_result_t **out, hs_error_t *err)
{
    return hs__hf_run(s, o, 0, out, err);
}

hs_err_t hs_hierfast_run_rounds(const hs_scenario_t *s,
                                const hs_replay_opts_t *o,
                                hs_replay_result_t **out, hs_error_t *err)
{
    return hs__hf_run(s, o, 1, out, err);
}
