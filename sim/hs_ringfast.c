/*
 * hs_ringfast.c -- the ring replay as a max-plus recurrence over rounds.
 *
 * Why.  hs_replay.c replays a step of N devices as N * 2(N-1) chunk events
 * on a heap; at N = 10,000 that is 2e8 events per step, tens of seconds.
 * When nothing is drawn at random and every device runs one communication
 * stream, the order of events does not matter, only their times, and
 * every time is a max of earlier times plus a fixed duration.  So a step
 * can be computed round by round, over arrays of end times, with no queue.
 *
 * The model is hs_replay.c's (read its essay); in ring positions j (device
 * ring[j]; j-1 is its prev, j+1 its next, modulo N) and rounds r of one
 * step, with A_r[j] the arrival at j+1 of j's round-r chunk (also the end
 * of j's send), d[j] the transfer time of j's chunk over its edge and
 * O[j] the time j opens its ring (patent: after the first backward op;
 * none: after the whole backward):
 *
 *   enter    E_r[j] = O[j]                               r = 0
 *            E_r[j] = max(A_{r-1}[j], A_{r-1}[j-1])      r > 0
 *   send     S_r[j] = max(E_r[j], E_r[j+1])              rendezvous
 *            S_r[j] = E_r[j]                             eager
 *   arrive   A_r[j] = S_r[j] + d[j]
 *   ring done RD[j] = max(A_{R-1}[j], A_{R-1}[j-1])  (R = 2(N-1); O[j]
 *            when N = 1)
 *
 * so a round under rendezvous is A_r[j] = max(A[j-1], A[j], A[j+1]) +
 * d[j], a three-point max stencil and an add, and under eager a two-point
 * one.  The round loop is branch-free over int64 arrays (structure of
 * arrays, one padding element each side holds the wrap-around), which the
 * compiler vectorises (AVX-512 has a 64-bit max; AVX2 a compare and a
 * blend; the functions are compiled for both and picked at load time).
 * At N = 10,000 two arrays of 80 KB stay in L2 across rounds.
 *
 * Buckets (one stream): one ring per bucket, in order, as one sequence
 * of B * R rounds with bucket b's chunk times; bucket b's round 0 also
 * waits for its opening (the bucket ready, t1 + ready_b * c):
 * E[j] = max(A[j], A[j-1], open_b[j]); done as patent (the backward may
 * end after the rings).  The bucket layout (sizes scaled to M, borrowed
 * by types that list none, ready times made non-decreasing) and its notes
 * are hs_replay.c's, word for word.
 *
 * Around the ring: the backward's end t3 (patent: the device is done when
 * both the ring and the backward are, max(RD, t3)), the optimizer, then
 * F' = max(done, F + t_dl), F the step's start.  Steps chain through F
 * only: a device opens step k's ring after its own step k-1 ring is done,
 * and every chunk of step k-1 reached it before that, so each step's ring
 * starts from its opening times alone.  Under eager a sender may run into
 * step k while its receiver is still in step k-1; without a communication
 * cost the receiver only keeps the chunk, which changes no time.
 *
 * The communication's own cost (comm_ns_per_byte, rendezvous only).  The
 * receiver j of a chunk from j-1 processes it for w[j] from max(its
 * processing free, S[j-1]); the chunk is usable at V[j] = max(A[j-1], that
 * end), and V replaces A[j-1] in E and RD.  Processing that starts before
 * the backward's (moved) end t3 + debt suspends the compute: debt += w.
 * Under rendezvous a chunk of step k reaches j only once j has entered
 * step k's round 0, so no processing ever lands before j opens its ring
 * or in another step's compute: the debt only moves the backward's end.
 * Under eager it can (the sender runs ahead), and then which of two
 * events at the same time comes first (j's ring opening, its step's start,
 * the sender's send) changes the result; the engine decides that by its
 * sequence numbers, which only a replay of the queue reproduces, so the
 * fast path declines eager with a communication cost.  (It could instead
 * run and give up when a chunk's send starts at or before its receiver's
 * opening, S[j-1] <= O[j]: with overlap none only S < O matters, but with
 * patent a homogeneous ring ties there at round 0 every step.)  Buckets
 * with a cost are declined for the same reason: processing moves the
 * buckets' openings, which are events the sends race with.
 *
 * Events.  hs_ringfast_run also counts the events the engine would have
 * dispatched (n_events): per device one initial DL_DONE; per step N *
 * 2(N-1) ARRIVE per ring, a PROC_DONE per chunk whose processing outlasts
 * its arrival, and per device RING_OPEN (patent; buckets: one per bucket)
 * or BWD_DONE (none), a BWD_DONE when the rings beat the backward
 * (patent, buckets), OPT_DONE when t_opt > 0 and DL_DONE when the batch
 * is loaded after the device is done.  The
 * last event is the latest end of the last step (end_ns).  tests/
 * test_ringfast.c checks every figure and these counts against
 * hs_replay_run on shipped scenarios and random rings.
 */
#include "hs_ringfast.h"

#include "hs_collective.h"
#include "hs_replay_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_edge.h"
#include "hs_notes.h"
#include "hs_phases.h"
#include "hs_units.h"

/* Clones of the round kernels for wider vectors, picked when the program
   loads (GCC and clang on x86-64 with ifunc support). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) && \
    !defined(__SANITIZE_ADDRESS__)
#define HS__VEC __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HS__VEC
#endif

static inline int64_t hs__max(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int hs__comm(const hs_scenario_t *s)
{
    size_t t;

    for (t = 0; t < s->n_types; t++)
        if (s->types[t].profile.comm_ns_per_byte > 0)
            return 1;
    return 0;
}

/* Some type has a hop wait (t_hop_wait > 0). */
static int hs__hopwait(const hs_scenario_t *s)
{
    size_t t;

    for (t = 0; t < s->n_types; t++)
        if (s->types[t].profile.t_hop_wait_ns > 0)
            return 1;
    return 0;
}

/* Buckets mode: the first profile listing buckets (the reference), or
   NULL when none does (the replay then runs overlap none).  *bad is set
   when types list different numbers, or some type's buckets hold 0
   bytes (the replay fails on both). */
static const hs_profile_t *hs__bucket_ref(const hs_scenario_t *s, int *bad)
{
    size_t ref_t, odd_t;
    const hs_profile_t *ref = hs_bucket_ref(s, &ref_t, &odd_t);

    *bad = ref != NULL && (odd_t < s->n_types || hs_bucket_empty(s, ref));
    return ref;
}

/* A note for the result (the one notes list; out of memory drops it). */
#define hs__note(r, ...) \
    ((void)hs_notes_add_to(&(r)->notes, &(r)->n_notes, __VA_ARGS__))

int hs_ringfast_supports(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         char *why, size_t why_len)
{
    const char *no = NULL;

    if (s->n_devices == 0 || s->n_devices > UINT32_MAX / 2)
        no = "no devices, or too many";
    else if (o->steps == 0)
        no = "0 steps to replay";
    else if (o->collective != NULL && strcmp(o->collective, "ring") != 0)
        no = "the fast path replays the ring all-reduce only";
    else if (o->stochastic)
        no = "stochastic mode draws per-step times in event order";
    else if (o->overlap != HS_OVERLAP_PATENT &&
             o->overlap != HS_OVERLAP_NONE &&
             o->overlap != HS_OVERLAP_BUCKETS &&
             o->overlap != HS_OVERLAP_LAST_BUCKET)
        no = "unknown overlap mode";
    else if (o->send != HS_SEND_RENDEZVOUS && o->send != HS_SEND_EAGER)
        no = "unknown send mode";
    else if (o->send == HS_SEND_EAGER && hs__comm(s))
        no = "eager sends with the communication's own cost: a chunk may "
             "be processed before its receiver opens its ring, and the "
             "order of such equal-time events is the engine's";
    else if (hs__hopwait(s) && (o->overlap != HS_OVERLAP_NONE ||
                                o->send == HS_SEND_EAGER))
        no = "a hop wait (t_hop_wait) with a ring beside the compute: a "
             "chunk waits when it reaches a device still in its backward, "
             "which the engine tracks (overlap none under rendezvous sends "
             "never has one)";
    if (no == NULL && (o->overlap == HS_OVERLAP_BUCKETS ||
                       o->overlap == HS_OVERLAP_LAST_BUCKET)) {
        int bad;
        const hs_profile_t *ref = hs__bucket_ref(s, &bad);
        if (bad)
            no = "the profiles' gradient buckets do not match (the replay "
                 "reports that)";
        else if (ref != NULL && ref->n_buckets > 1 && o->streams > 1 &&
                 o->overlap == HS_OVERLAP_BUCKETS)
            no = "overlap buckets on several streams: the streams share "
                 "each link chunk by chunk, first come, first served";
        else if (ref != NULL && hs__comm(s))
            no = "overlap buckets with the communication's own cost: "
                 "processing moves the buckets' ready times, and the order "
                 "of such equal-time events is the engine's";
    }
    if (no == NULL)
        return 1;
    if (why != NULL && why_len > 0)
        snprintf(why, why_len, "%s", no);
    return 0;
}

/* ---- the round kernels: a[-1] and a[n] hold the wrap-around ---- */

static inline void hs__wrap(int64_t *a, size_t n)
{
    a[-1] = a[n - 1];
    a[n] = a[0];
}

/* Rendezvous, round 0: out[j] = max(o[j], o[j+1]) + d[j]. */
HS__VEC static void hs__rdv0(int64_t *restrict out, const int64_t *restrict o,
                             const int64_t *restrict d, size_t n)
{
    size_t j;

    for (j = 0; j < n; j++)
        out[j] = hs__max(o[j], o[j + 1]) + d[j];
}

/* Rendezvous, round r > 0: out[j] = max(a[j-1], a[j], a[j+1]) + d[j]. */
HS__VEC static void hs__rdv(int64_t *restrict out, const int64_t *restrict a,
                            const int64_t *restrict d, size_t n)
{
    size_t j;

    for (j = 0; j < n; j++)
        out[j] = hs__max(hs__max(a[j - 1], a[j]), a[j + 1]) + d[j];
}

/* Eager, round r > 0: out[j] = max(a[j-1], a[j]) + d[j]. */
HS__VEC static void hs__eager(int64_t *restrict out, const int64_t *restrict a,
                              const int64_t *restrict d, size_t n)
{
    size_t j;

    for (j = 0; j < n; j++)
        out[j] = hs__max(a[j - 1], a[j]) + d[j];
}

/* Two rendezvous rounds per sweep, a[] -> out[] (tmp is scratch): halves
   the passes over memory at large N. */
HS__VEC static void hs__rdv2(int64_t *restrict out, int64_t *restrict tmp,
                             const int64_t *restrict a,
                             const int64_t *restrict d, size_t n)
{
    size_t j;

    for (j = 0; j < n; j++)
        tmp[j] = hs__max(hs__max(a[j - 1], a[j]), a[j + 1]) + d[j];
    hs__wrap(tmp, n);
    for (j = 0; j < n; j++)
        out[j] = hs__max(hs__max(tmp[j - 1], tmp[j]), tmp[j + 1]) + d[j];
}

/* The state of one run, in ring positions. */
typedef struct hs__fast_s {
    size_t n;
    int64_t rounds;
    int rdv, patent, comm; /* patent: also buckets (the ring may beat
                              the backward) */
    int64_t *buf;       /* one block for every array below */
    int64_t *a, *b;     /* arrivals, padded (round ping-pong) */
    int64_t *e;         /* comm: entries; else scratch; padded */
    int64_t *v;         /* comm: chunk into j usable at */
    int64_t *d, *w;     /* transfer, processing per chunk */
    int buckets;        /* overlap buckets in effect */
    uint32_t nb;        /* rings per step: buckets, else 1 */
    uint32_t *type;     /* [j] the type of the device at position j */
    int64_t *db;        /* [b * n + j] chunk transfer of bucket b (d when
                           nb == 1) */
    int64_t *ob;        /* [b * n + j] bucket b opens (buckets) */
    double *ready;      /* [type * nb + b] bucket ready, unscaled ns */
    int64_t *f;         /* start of the current step */
    int64_t *o, *t3;    /* ring opening, planned end of the backward */
    int64_t *debt, *pf; /* comm: compute suspended; processing free */
    int64_t *sum;       /* sum of steady step durations */
    uint64_t n_events;
} hs__fast_t;

/* One step's ring with the communication's cost (rendezvous).  Leaves
   the ring-done time in rd[]. */
static void hs__ring_comm(hs__fast_t *m, int64_t *rd)
{
    size_t n = m->n, j;
    int64_t r, *a = m->a, *e = m->e, *v = m->v;
    uint64_t nproc = 0;

    for (r = 0; r < m->rounds; r++) {
        if (r == 0)
            memcpy(e, m->o, n * sizeof *e);
        else
            for (j = 0; j < n; j++)
                e[j] = hs__max(a[j], v[j]);
        hs__wrap(e, n);
        for (j = 0; j < n; j++)
            a[j] = hs__max(e[j], e[j + 1]) + m->d[j];
        hs__wrap(a, n);
        for (j = 0; j < n; j++) {
            /* receiver j, chunk from j-1 sent at max(e[j-1], e[j]) */
            int64_t snd = hs__max(e[j - 1], e[j]);
            int64_t ps = hs__max(m->pf[j], snd);
            int64_t w = m->w[j];
            m->debt[j] += ps < m->t3[j] + m->debt[j] ? w : 0;
            m->pf[j] = ps + w;
            v[j] = hs__max(a[j - 1], m->pf[j]);
            nproc += (uint64_t)(m->pf[j] > a[j - 1]);
        }
    }
    for (j = 0; j < n; j++)
        rd[j] = m->rounds > 0 ? hs__max(a[j], v[j]) : m->o[j];
    m->n_events += nproc;
}

/* One ring without it (R >= 1 rounds) from the round-0 entries e0 with
   chunk times d; leaves the last round's arrivals in m->a (wrapped). */
static void hs__ring(hs__fast_t *m, const int64_t *e0, const int64_t *d)
{
    size_t n = m->n, j;
    int64_t r = 0, *a = m->a, *b = m->b, *t;

    if (m->rdv) {
        memcpy(b, e0, n * sizeof *b);
        hs__wrap(b, n);
        hs__rdv0(a, b, d, n);
    } else {
        for (j = 0; j < n; j++)
            a[j] = e0[j] + d[j];
    }
    for (r = 1; r < m->rounds; r++) {
        hs__wrap(a, n);
        if (m->rdv && r + 1 < m->rounds) {
            hs__rdv2(b, m->e, a, d, n);
            r++;
        } else if (m->rdv) {
            hs__rdv(b, a, d, n);
        } else {
            hs__eager(b, a, d, n);
        }
        t = a;
        a = b;
        b = t;
    }
    hs__wrap(a, n);
    m->a = a;
    m->b = b;
}

/* One step's rings without the communication's cost: one ring (patent,
   none), or one per bucket in order, bucket b's round 0 also waiting for
   its opening.  Leaves the ring-done time in rd[]. */
static void hs__rings(hs__fast_t *m, int64_t *rd)
{
    size_t n = m->n, j;
    uint32_t bk;
    int64_t *a;

    if (m->rounds == 0) {
        /* one device: its ring is done when the last ring opens */
        memcpy(rd, m->buckets ? m->ob + (size_t)(m->nb - 1) * n : m->o,
               n * sizeof *rd);
        return;
    }
    for (bk = 0; bk < m->nb; bk++) {
        const int64_t *open = m->buckets ? m->ob + (size_t)bk * n : m->o;
        if (bk == 0) {
            hs__ring(m, open, m->db);
            continue;
        }
        a = m->a;
        for (j = 0; j < n; j++)
            rd[j] = hs__max(hs__max(a[j], a[j - 1]), open[j]);
        hs__ring(m, rd, m->db + (size_t)bk * n);
    }
    a = m->a;
    for (j = 0; j < n; j++)
        rd[j] = hs__max(a[j], a[j - 1]);
}

/* Per ring position: the step's compute (with stragglers where they
   apply), its opening time and backward end.  Returns the dl, opt arrays
   through comp[]. */
static void hs__plan_step(const hs_scenario_t *s, const hs_replay_opts_t *o,
                          hs__fast_t *m, const hs_fast_comp_t *base,
                          hs_fast_comp_t *comp, uint8_t *touched, int64_t k)
{
    size_t n = m->n, j, i;

    memcpy(comp, base, n * sizeof *comp);
    for (i = 0; i < o->n_stragglers; i++) {
        const hs_straggler_t *st = &o->stragglers[i];
        uint32_t pos;
        if (st->device >= n || (int64_t)st->first_step > k ||
            k > (int64_t)st->last_step)
            continue;
        pos = s->devices[st->device].ring_pos;
        if (!touched[pos]) {
            touched[pos] = 1;
            hs_fast_compute(s, o, st->device, k, &comp[pos]);
        }
    }
    for (i = 0; i < o->n_stragglers; i++)
        if (o->stragglers[i].device < n)
            touched[s->devices[o->stragglers[i].device].ring_pos] = 0;
    for (j = 0; j < n; j++) {
        int64_t t1 = m->f[j] + comp[j].fwd, t2 = t1 + comp[j].b1;
        int64_t t3 = t2 + comp[j].rest;
        uint32_t b;
        for (b = 0; m->buckets && b < m->nb; b++) {
            int64_t at = t1 + hs_phases_ready_ns(
                                  m->ready[(size_t)m->type[j] * m->nb + b],
                                  comp[j].c);
            if (at > t3)
                t3 = at;
            m->ob[(size_t)b * n + j] = at;
        }
        m->t3[j] = t3;
        m->o[j] = m->patent ? t2 : t3;
    }
}

static void hs__fast_free(hs__fast_t *m)
{
    free(m->buf);
    free(m->type);
    if (m->db != m->d)
        free(m->db);
    free(m->ob);
    free(m->ready);
}

/* Points the arrays of m into m->buf (3 padded round arrays, 10 plain
   ones of n); returns the last, the round scratch of the ring. */
static int64_t *hs__fast_carve(hs__fast_t *m, size_t n)
{
    m->a = m->buf + 1;
    m->b = m->a + n + 2;
    m->e = m->b + n + 2;
    m->v = m->e + n + 1;
    m->d = m->v + n;
    m->w = m->d + n;
    m->f = m->w + n;
    m->o = m->f + n;
    m->t3 = m->o + n;
    m->debt = m->t3 + n;
    m->pf = m->debt + n;
    m->sum = m->pf + n;
    return m->sum + n;
}

/* The rings of a step: with overlap buckets or last_bucket, the bucket
   layout as hs_replay.c decides it (m->nb, m->db, m->ob, m->ready, and
   each type's bucket bytes into *bbytes, which the caller frees); else
   one ring.  Also m->type.  HS_ERR_NOMEM without a message when out of
   memory. */
static hs_err_t hs__fast_buckets(hs__fast_t *m, const hs_scenario_t *s,
                                 const hs_replay_opts_t *o,
                                 hs_replay_result_t *res, double **bbytes,
                                 hs_error_t *err)
{
    const hs_profile_t *ref = NULL;
    size_t n = m->n, nt = s->n_types ? s->n_types : 1;
    int bad;

    m->nb = 1;
    if (o->overlap == HS_OVERLAP_BUCKETS ||
        o->overlap == HS_OVERLAP_LAST_BUCKET) {
        ref = hs__bucket_ref(s, &bad);
        if (ref == NULL) {
            hs__note(res, "overlap %s: no profile lists gradient "
                          "buckets; one ring after the whole backward "
                          "(as overlap none)",
                     hs_overlap_name(o->overlap));
        } else {
            m->buckets = 1;
            m->patent = 1; /* as patent: the ring may beat the backward */
            m->nb = (uint32_t)ref->n_buckets;
        }
    }
    m->type = calloc(n, sizeof *m->type);
    if (m->type == NULL)
        return HS_ERR_NOMEM;
    m->db = m->d;
    if (!m->buckets)
        return HS_OK;
    m->db = calloc((size_t)m->nb * n, sizeof *m->db);
    m->ob = calloc((size_t)m->nb * n, sizeof *m->ob);
    m->ready = calloc(nt * m->nb, sizeof *m->ready);
    *bbytes = calloc(nt * m->nb, sizeof **bbytes);
    if (m->db == NULL || m->ob == NULL || m->ready == NULL ||
        *bbytes == NULL)
        return HS_ERR_NOMEM;
    hs_err_t rc = hs_bucket_layout(s, ref, m->nb, m->ready, *bbytes,
                                   &res->notes, &res->n_notes, err);
    if (rc != HS_OK)
        return rc;
    if (o->overlap == HS_OVERLAP_LAST_BUCKET) {
        /* one bucket per type: the arrays stay nb-sized, only their
           first entries are used from here on */
        hs_bucket_gather(nt, m->nb, m->ready, *bbytes);
        m->nb = 1;
    }
    return HS_OK;
}

/* Per ring position j: its type, chunk transfer times (whole payload and
   per bucket), processing cost, base compute (base[j]) and the end of
   its first batch load (m->f); returns the earliest such end. */
static int64_t hs__fast_positions(hs__fast_t *m, const hs_scenario_t *s,
                                  const hs_replay_opts_t *o,
                                  hs_fast_comp_t *base, double *payload,
                                  const double *bbytes)
{
    int64_t cl_start0 = INT64_MAX;
    size_t n = m->n, j;

    for (j = 0; j < s->n_types; j++)
        payload[j] = hs_profile_payload_bytes(&s->types[j].profile);
    for (j = 0; j < n; j++) {
        uint32_t x = s->ring[j], t = s->devices[x].type, b;
        const hs_profile_t *p = &s->types[t].profile;
        m->type[j] = t;
        m->d[j] = hs_edge_chunk_ns(s, j, payload[t], (double)n);
        for (b = 0; m->buckets && b < m->nb; b++)
            m->db[(size_t)b * n + j] = hs_edge_chunk_ns(
                s, j, bbytes[(size_t)t * m->nb + b], (double)n);
        m->w[j] = m->comm ? llround(p->comm_ns_per_byte * payload[t] /
                                    (double)n) : 0;
        hs_fast_compute(s, o, x, -1, &base[j]);
        /* time 0: every CPU loads batch 0; step 0 starts when it is in */
        m->f[j] = base[j].dl;
        if (m->f[j] < cl_start0)
            cl_start0 = m->f[j];
    }
    return cl_start0;
}

/* Replays step k of every device (plan, rings, then each device's
   optimizer and next batch), counting the events the engine would have
   run; the step's end into *end_ns. */
static void hs__fast_step(hs__fast_t *m, const hs_scenario_t *s,
                          const hs_replay_opts_t *o, hs_fast_comp_t *base,
                          hs_fast_comp_t *comp, uint8_t *touched, int64_t *rd,
                          uint32_t k, uint32_t steps, int64_t *end_ns)
{
    size_t n = m->n, j;
    int64_t end = INT64_MIN;

    hs__plan_step(s, o, m, base, comp, touched, k);
    if (m->comm) {
        memset(m->debt, 0, n * sizeof *m->debt);
        hs__ring_comm(m, rd);
    } else {
        hs__rings(m, rd);
    }
    /* ARRIVE */
    m->n_events += (uint64_t)n * (uint64_t)m->rounds * m->nb;
    for (j = 0; j < n; j++) {
        int64_t fn;
        /* patent: RING_OPEN (buckets: one per bucket), and BWD_DONE
           when the ring beats the backward; none: the BWD_DONE that
           opens the ring */
        m->n_events += m->buckets ? m->nb : 1;
        fn = hs_fast_dev_end(m->patent, rd[j], m->t3[j] + m->debt[j],
                             &comp[j], &m->f[j], k >= 1 || steps == 1,
                             &m->sum[j], &m->n_events);
        if (fn > end)
            end = fn;
    }
    *end_ns = end;
}

/* What the fast path ran (modes, counts) and what it held, into res. */
static void hs__fast_describe(const hs__fast_t *m, const hs_scenario_t *s,
                              const hs_replay_opts_t *o, uint32_t steps,
                              int64_t end_ns, hs_replay_result_t *res)
{
    size_t n = m->n, nt = s->n_types ? s->n_types : 1;

    res->steps = steps;
    res->overlap = (o->overlap == HS_OVERLAP_BUCKETS ||
                    o->overlap == HS_OVERLAP_LAST_BUCKET) && !m->buckets
                       ? HS_OVERLAP_NONE
                       : o->overlap;
    res->overlap_asked = o->overlap;
    res->collective = "ring";
    res->send = o->send;
    res->hop_wait = o->hop_wait;
    res->stochastic = 0;
    res->seed = o->seed;
    res->n_buckets = m->nb;
    res->streams = 1;
    res->streams_asked = o->streams;
    res->n_events = m->n_events;
    res->end_ns = end_ns;
    res->queue_high_water = 0;
    res->state_bytes = (3 * (n + 2) + 10 * n) * sizeof(int64_t) +
                       n * (2 * sizeof(hs_fast_comp_t) + 1) +
                       steps * sizeof(int64_t) + n * sizeof(uint32_t) +
                       (m->buckets ? 2 * (size_t)m->nb * n * sizeof(int64_t) +
                                         nt * m->nb * sizeof(double) : 0);
}

hs_err_t hs_ringfast_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         hs_replay_result_t **out, hs_error_t *err)
{
    hs__fast_t m;
    hs_replay_result_t *res = NULL;
    hs_prediction_t *pred = NULL;
    hs_fast_comp_t *base = NULL, *comp = NULL;
    uint8_t *touched = NULL;
    int64_t *cl_end = NULL, *rd = NULL, cl_start0, n_sum;
    char why[200];
    hs_err_t rc;
    size_t n, j, nt;
    uint32_t k, steps;
    double *payload = NULL, *bbytes = NULL;

    *out = NULL;
    memset(&m, 0, sizeof m);
    if (!hs_ringfast_supports(s, o, why, sizeof why))
        return hs_error_setf(err, HS_ERR_RANGE, "fast replay: %s", why);
    rc = hs_closed_predict_with(s, &hs_coll_ring, o->overlap, &pred, err);
    if (rc != HS_OK)
        return rc;
    n = s->n_devices;
    steps = o->steps;
    nt = s->n_types ? s->n_types : 1;
    m.n = n;
    m.rounds = 2 * ((int64_t)n - 1);
    m.rdv = o->send == HS_SEND_RENDEZVOUS;
    m.patent = o->overlap == HS_OVERLAP_PATENT;
    m.comm = hs__comm(s);
    /* 3 padded round arrays, 10 plain ones */
    m.buf = calloc(3 * (n + 2) + 10 * n, sizeof *m.buf);
    base = calloc(n, sizeof *base);
    comp = calloc(n, sizeof *comp);
    touched = calloc(n, 1);
    cl_end = malloc(steps * sizeof *cl_end);
    payload = calloc(nt, sizeof *payload);
    res = calloc(1, sizeof *res);
    if (m.buf == NULL || base == NULL || comp == NULL || touched == NULL ||
        cl_end == NULL || payload == NULL || res == NULL)
        goto nomem;
    rd = hs__fast_carve(&m, n);
    if (hs_replay_result_arrays(res, n, s->n_types, steps) != 0)
        goto nomem;
    rc = hs__fast_buckets(&m, s, o, res, &bbytes, err);
    if (rc == HS_ERR_NOMEM)
        goto nomem;
    if (rc != HS_OK)
        goto fail;
    cl_start0 = hs__fast_positions(&m, s, o, base, payload, bbytes);
    m.n_events = n; /* the initial DL_DONEs */
    n_sum = steps > 1 ? (int64_t)steps - 1 : 1;
    for (k = 0; k < steps; k++) {
        if ((rc = hs_fast_stopped(o, err)) != HS_OK)
            goto fail;
        hs__fast_step(&m, s, o, base, comp, touched, rd, k, steps,
                      &cl_end[k]);
    }
    /* back from ring positions to listing order */
    for (j = 0; j < n; j++)
        res->dev_step_ns[s->ring[j]] =
            n_sum > 0 ? llround((double)m.sum[j] / (double)n_sum) : 0;
    rc = hs_replay_figures(s, steps, cl_end, cl_start0, pred, res, err);
    if (rc != HS_OK)
        goto fail;
    hs__fast_describe(&m, s, o, steps, cl_end[steps - 1], res);
    hs__fast_free(&m);
    free(bbytes);
    free(base);
    free(comp);
    free(touched);
    free(cl_end);
    free(payload);
    hs_prediction_free(pred);
    *out = res;
    return HS_OK;
nomem:
    rc = hs_fast_nomem(err, n);
fail:
    hs__fast_free(&m);
    free(bbytes);
    free(base);
    free(comp);
    free(touched);
    free(cl_end);
    free(payload);
    hs_prediction_free(pred);
    hs_replay_result_free(res);
    return rc;
}
