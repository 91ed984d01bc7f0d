/*
 * test_replay.c -- the training replay against hand computations and the
 * closed form where they must agree:
 *   - a homogeneous ring equals 2(N-1)(alpha + M/(N B)) exactly (in integer
 *     ns with hs_xfer_ns's rounding), in both send modes;
 *   - one slow link, one slow device: replay = closed form;
 *   - the divergent case (scenarios/validate-divergent.yaml): closed form
 *     1.06 s, replay 1.42 s (rendezvous) and 1.33 s (eager);
 *   - each overlap mode on a 3-device case computed by hand;
 *   - eager vs rendezvous on a 3-device ring with a late device, every
 *     chunk's start and end checked against hand timelines;
 *   - stragglers, trace sinks, stochastic reproducibility, determinism of
 *     the CLI's JSON;
 *   - the communication's own cost (comm_ns_per_byte): a homogeneous ring
 *     after the backward equals 2(N-1) max(alpha + M/(N B), c M/N); a ring
 *     hidden in a long backward stretches the compute by 2(N-1) c M/N; the
 *     processing intervals in the trace;
 *   - the hop wait (t_hop_wait): a ring beside the backward, chunk by chunk
 *     by hand; none when the ring runs after it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_coll_ring.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"
#include "hs_units.h"

#define MS 1000000LL

static hs_scenario_t *load_text(const char *text)
{
    hs_scenario_t *s = NULL;
    hs_error_t err;

    hs_error_clear(&err);
    if (hs_scenario_load_text(text, strlen(text), "test.yaml", NULL, &s,
                              &err) != HS_OK) {
        fprintf(stderr, "\nscenario did not load: %s\n", err.msg);
        return NULL;
    }
    return s;
}

static hs_replay_result_t *replay(const hs_scenario_t *s)
{
    hs_replay_result_t *r = NULL;
    hs_error_t err;

    hs_error_clear(&err);
    if (hs_replay_run(s, NULL, NULL, 0, &r, &err) != HS_OK) {
        fprintf(stderr, "\nreplay failed: %s\n", err.msg);
        return NULL;
    }
    return r;
}

/* ---- homogeneous ring: the formula, exactly ---- */

/* 5 devices; the test fills in: profile lines before allreduce_bytes and
   after it, the bandwidth, the send mode, the overlap mode */
static const char homog_yaml[] =
    "name: homog\n"
    "job: {model: x, dataset: {samples: 10000}, epochs: 3}\n"
    "device_types:\n"
    "  - name: gpu\n"
    "    count: 5\n"
    "    batch: 100\n"
    "    profile:\n"
    "      subsystem_size: 2\n"
    "      t_dl: 1ms\n"
    "      t_fwd: 7777777ns\n"
    "      t_b1: 333us\n"
    "%s"
    "      allreduce_bytes: 123456789B\n"
    "%s"
    "network: {default_bandwidth: %s, latency: 17us}\n"
    "simulate: {steps: 6, send: %s, overlap: %s}\n";

static void test_homogeneous_formula(void)
{
    const char *modes[2] = {"rendezvous", "eager"};
    int k;

    for (k = 0; k < 2; k++) {
        char text[2048];
        hs_scenario_t *s;
        hs_replay_result_t *r;
        double M;
        int64_t round_ns, expect;
        uint32_t i, n = 5;

        snprintf(text, sizeof text, homog_yaml, "", "", "3.3GB/s", modes[k],
                 "patent");
        s = load_text(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        M = hs_profile_payload_bytes(&s->types[0].profile);
        HS_ASSERT_DBL_NEAR(M, 123456789.0, 1e-6);
        round_ns = 17000 + hs_xfer_ns(M / n, 3.3e9);
        expect = 7777777 + 333000 + 2 * (n - 1) * round_ns;
        r = replay(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->step_ns, expect);
        HS_ASSERT_I64_EQ(r->first_step_ns, expect);
        HS_ASSERT_I64_EQ(r->closed_step_ns, expect);
        for (i = 0; i < n; i++) {
            HS_ASSERT_I64_EQ(r->dev_step_ns[i], expect);
            HS_ASSERT_I64_EQ(r->dev_closed_ns[i], expect);
        }
        for (i = 0; i < r->steps; i++)
            HS_ASSERT_I64_EQ(r->cluster_step_ns[i], expect);
        HS_ASSERT_I64_EQ(r->step_p95_ns, expect);
        /* epoch: I = ceil(2000 / 100) = 20 steps (10000 samples over 5
           devices of batch 100), 3 epochs */
        HS_ASSERT_I64_EQ(r->iters_per_epoch, 20);
        HS_ASSERT_I64_EQ(r->epoch_ns, 20 * expect);
        HS_ASSERT_I64_EQ(r->total_ns, 60 * expect);
        /* events: per device the batch-0 load, then per step a ring open
           and 2(N-1) chunks (the next batch is loaded and the backward is
           over when the ring is done: no wake-ups needed) */
        HS_ASSERT_I64_EQ(r->n_events, n + 6 * n * (1 + 2 * (n - 1)));
        hs_replay_result_free(r);
        hs_scenario_free(s);
    }
}

/* ---- one slow link, one slow device: replay = closed form ---- */

static const char ring4_yaml[] =
    "name: ring4\n"
    "job: {model: x, dataset: {samples: 4000}, epochs: 1}\n"
    "device_types:\n"
    "  - name: gpu\n"
    "    count: 4\n"
    "    batch: 100\n"
    "    profile:\n"
    "      subsystem_size: 2\n"
    "      t_dl: 2ms\n"
    "      t_fwd: 20ms\n"
    "      t_b1: 1ms\n"
    "      allreduce_bytes: 40MB\n"
    "devices:\n"
    "  - {name: d0, type: gpu, addr: 198.18.0.1}\n"
    "  - {name: d1, type: gpu, addr: 198.18.0.2%s}\n"
    "  - {name: d2, type: gpu, addr: 198.18.0.3}\n"
    "  - {name: d3, type: gpu, addr: 198.18.0.4}\n"
    "ring: [d0, d1, d2, d3]\n"
    "network:\n"
    "  default_bandwidth: 10GB/s\n"
    "  latency: 10us\n"
    "%s"
    "simulate: {steps: 8, send: %s}\n";

static void test_slow_link(void)
{
    const char *modes[2] = {"rendezvous", "eager"};
    int k;

    for (k = 0; k < 2; k++) {
        char text[2048];
        hs_scenario_t *s;
        hs_replay_result_t *r;
        int64_t slow, expect;

        /* d2 -> d3 at 1 GB/s: chunk 10 MB takes 10 ms + 10 us there */
        snprintf(text, sizeof text, ring4_yaml, "",
                 "  links:\n    - [d2, d3, 1GB/s]\n", modes[k]);
        s = load_text(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        slow = 10000 + hs_xfer_ns(10e6, 1e9);
        HS_ASSERT_I64_EQ(slow, 10010000);
        expect = 21 * MS + 6 * slow;
        r = replay(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->closed_step_ns, expect);
        HS_ASSERT_I64_EQ(r->step_ns, expect);
        HS_ASSERT_I64_EQ(r->dev_closed_ns[2], expect);
        HS_ASSERT_I64_EQ(r->dev_step_ns[0], expect);
        hs_replay_result_free(r);
        hs_scenario_free(s);
    }
}

static void test_slow_device(void)
{
    const char *modes[2] = {"rendezvous", "eager"};
    int k;

    for (k = 0; k < 2; k++) {
        char text[2048];
        hs_scenario_t *s;
        hs_replay_result_t *r;
        int64_t fast, expect;

        /* d1 computes 1.5x slower: opens the ring at 31.5 ms */
        snprintf(text, sizeof text, ring4_yaml, ", compute_scale: 1.5", "",
                 modes[k]);
        s = load_text(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        fast = 10000 + hs_xfer_ns(10e6, 10e9);
        expect = 30 * MS + 1500000 + 6 * fast;
        r = replay(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->closed_step_ns, expect);
        HS_ASSERT_I64_EQ(r->dev_closed_ns[1], expect);
        HS_ASSERT_I64_EQ(r->step_ns, expect);
        HS_ASSERT_I64_EQ(r->dev_step_ns[3], expect);
        hs_replay_result_free(r);
        hs_scenario_free(s);
    }
}

/* ---- the divergent case, both behaviours pinned ---- */

static void test_divergent(void)
{
    hs_scenario_t *s = NULL;
    hs_replay_result_t *r;
    hs_error_t err;

    CU_ASSERT_EQUAL_FATAL(
        hs_scenario_load(HS_TEST_SRC "/scenarios/validate-divergent.yaml",
                         &s, &err), HS_OK);
    /* closed form: T(d0) = 99 + 1 + 900 + 6 x 10 ms; T(d2) = 100 + 6 x 100 */
    HS_ASSERT_I64_EQ(hs_closed_device_ns(s, 0), 1060 * MS);
    HS_ASSERT_I64_EQ(hs_closed_device_ns(s, 2), 700 * MS);
    s->send = HS_SEND_RENDEZVOUS;
    r = replay(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->closed_step_ns, 1060 * MS);
    /* the hand timeline of the file's comment */
    HS_ASSERT_I64_EQ(r->first_step_ns, 1510 * MS);
    HS_ASSERT_I64_EQ(r->step_ns, 1420 * MS);
    CU_ASSERT_TRUE(r->step_ns > r->closed_step_ns * 13 / 10);
    hs_replay_result_free(r);
    s->send = HS_SEND_EAGER;
    r = replay(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->first_step_ns, 1420 * MS);
    HS_ASSERT_I64_EQ(r->step_ns, 1330 * MS);
    hs_replay_result_free(r);
    hs_scenario_free(s);
}

/* ---- overlap modes on a small case by hand ---- */

static const char overlap_yaml[] =
    "name: ov\n"
    "job: {model: x, dataset: {samples: 3000}, epochs: 1}\n"
    "device_types:\n"
    "  - name: gpu\n"
    "    count: 3\n"
    "    batch: 100\n"
    "    profile:\n"
    "      subsystem_size: 2\n"
    "      t_dl: 1ms\n"
    "      t_fwd: 10ms\n"
    "      t_b1: 1ms\n"
    "      t_bwd: %s\n"
    "      t_opt: 2ms\n"
    "      allreduce_bytes: 3MB\n"
    "      buckets:\n"
    "%s"
    "network: {default_bandwidth: 1GB/s, latency: 0s}\n"
    "simulate: {steps: 4, overlap: %s}\n";

static int64_t overlap_step(const char *bwd, const char *buckets,
                            const char *mode, size_t *n_notes)
{
    char text[2048];
    hs_scenario_t *s;
    hs_replay_result_t *r;
    int64_t v;

    snprintf(text, sizeof text, overlap_yaml, bwd, buckets, mode);
    s = load_text(text);
    if (s == NULL)
        return -1;
    r = replay(s);
    if (r == NULL) {
        hs_scenario_free(s);
        return -1;
    }
    v = r->step_ns;
    /* every step of a symmetric ring is the same */
    HS_ASSERT_I64_EQ(r->first_step_ns, v);
    if (n_notes != NULL)
        *n_notes = r->n_notes;
    hs_replay_result_free(r);
    hs_scenario_free(s);
    return v;
}

static void test_overlap_modes(void)
{
    const char *b2 = "        - {bytes: 1MB, ready: 2ms}\n"
                     "        - {bytes: 2MB, ready: 7ms}\n";
    const char *b2_half = "        - {bytes: 0.5MB, ready: 2ms}\n"
                          "        - {bytes: 1MB, ready: 7ms}\n";
    const char *b2_early = "        - {bytes: 2MB, ready: 1ms}\n"
                           "        - {bytes: 1MB, ready: 1.5ms}\n";
    size_t notes = 0;

    /* N = 3, M = 3 MB, chunk 1 MB at 1 GB/s = 1 ms, 4 rounds = 4 ms.
       patent: ring 11 -> 15 ms, backward ends 10 + 8 = 18, optimizer 2:
       step 20 ms (= T_ext: 10 + max(8, 1 + 4) + 2) */
    HS_ASSERT_I64_EQ(overlap_step("8ms", b2, "patent", NULL), 20 * MS);
    /* none: ring after the backward, 18 -> 22, optimizer: 24 ms */
    HS_ASSERT_I64_EQ(overlap_step("8ms", b2, "none", NULL), 24 * MS);
    /* buckets: bucket 0 (1 MB, chunk 333333.3 B = 333333 ns) ready at
       10 + 2 = 12 ms, done 12 + 4 x 333333 ns; bucket 1 (2 MB, chunk
       666667 ns) ready at 17 ms, done 17 ms + 4 x 666667 = 19.666668 ms;
       backward ends 18; optimizer: 21.666668 ms */
    HS_ASSERT_I64_EQ(overlap_step("8ms", b2, "buckets", &notes),
                     17 * MS + 4 * 666667 + 2 * MS);
    HS_ASSERT_I64_EQ(notes, 0);
    /* bucket sizes summing to M/2 are scaled to M: same answer, a note */
    HS_ASSERT_I64_EQ(overlap_step("8ms", b2_half, "buckets", &notes),
                     17 * MS + 4 * 666667 + 2 * MS);
    HS_ASSERT_I64_EQ(notes, 1);
    /* buckets in order: bucket 0 (2 MB) ready at 11 ms runs to 11 +
       4 x 666667 ns = 13.666668 ms; bucket 1, ready at 11.5, waits for it
       and ends 13.666668 + 4 x 333333 = 14.999999 ms; backward (2 ms)
       ended at 12; optimizer: 16.999999 ms */
    HS_ASSERT_I64_EQ(overlap_step("2ms", b2_early, "buckets", NULL),
                     11 * MS + 4 * 666667 + 4 * 333333 + 2 * MS);
    /* patent with that short backward: 11 -> 15, optimizer: 17 ms */
    HS_ASSERT_I64_EQ(overlap_step("2ms", b2_early, "patent", NULL),
                     17 * MS);
    /* last_bucket: one ring of M (4 x 1 ms) when the last bucket is
       ready, 10 + 7 = 17 ms -> 21 ms; the backward ended at 18;
       optimizer: 23 ms (between buckets' 21.67 and none's 24) */
    HS_ASSERT_I64_EQ(overlap_step("8ms", b2, "last_bucket", &notes),
                     23 * MS);
    HS_ASSERT_I64_EQ(notes, 0);
    /* sizes summing to M/2 are scaled to M as in buckets mode */
    HS_ASSERT_I64_EQ(overlap_step("8ms", b2_half, "last_bucket", &notes),
                     23 * MS);
    HS_ASSERT_I64_EQ(notes, 1);
    /* the ring beats a short backward: opens at 11.5, ends 15.5 (the
       backward ended at 12); optimizer: 17.5 ms */
    HS_ASSERT_I64_EQ(overlap_step("2ms", b2_early, "last_bucket", NULL),
                     17 * MS + MS / 2);
    /* the last bucket ready when the backward ends: as none (24 ms) */
    HS_ASSERT_I64_EQ(overlap_step("8ms",
                                  "        - {bytes: 1MB, ready: 2ms}\n"
                                  "        - {bytes: 2MB, ready: 8ms}\n",
                                  "last_bucket", NULL),
                     overlap_step("8ms", b2, "none", NULL));
}

/* ---- eager vs rendezvous: every chunk against a hand timeline ---- */

typedef struct cap_s {
    hs_interval_t iv[1024];
    size_t n;
    hs_step_rec_t rec[64];
    size_t n_rec;
    int fail_after; /* write() fails once this many blocks came; -1 never */
    int blocks;
} cap_t;

static hs_err_t cap_write(void *ctx, const hs_interval_t *iv, size_t n,
                          hs_error_t *err)
{
    cap_t *c = ctx;
    size_t i;

    if (c->fail_after >= 0 && c->blocks++ >= c->fail_after)
        return hs_error_setf(err, HS_ERR_IO, "test sink: disk full");
    for (i = 0; i < n && c->n < 1024; i++)
        c->iv[c->n++] = iv[i];
    return HS_OK;
}

static hs_err_t cap_steps(void *ctx, const hs_step_rec_t *rec, size_t n,
                          hs_error_t *err)
{
    cap_t *c = ctx;
    size_t i;

    (void)err;
    for (i = 0; i < n && c->n_rec < 64; i++)
        c->rec[c->n_rec++] = rec[i];
    return HS_OK;
}

static const char late3_yaml[] =
    "name: late3\n"
    "job: {model: x, dataset: {samples: 3000}, epochs: 1}\n"
    "device_types:\n"
    "  - name: gpu\n"
    "    count: 3\n"
    "    batch: 100\n"
    "    profile:\n"
    "      subsystem_size: 2\n"
    "      t_dl: 1ms\n"
    "      t_fwd: 10ms\n"
    "      t_b1: 1ms\n"
    "      allreduce_bytes: 3MB\n"
    "devices:\n"
    "  - {name: d0, type: gpu, addr: 198.18.0.1, extra_compute: 5ms}\n"
    "  - {name: d1, type: gpu, addr: 198.18.0.2}\n"
    "  - {name: d2, type: gpu, addr: 198.18.0.3}\n"
    "ring: [d0, d1, d2]\n"
    "network:\n"
    "  default_bandwidth: 1GB/s\n"
    "  latency: 0s\n"
    "  links:\n"
    "    - [d2, d0, 500MB/s]\n"
    "simulate: {steps: 2, send: %s}\n";

/* send[dev][round] = {start, end} in ms after step 0 starts (t = 1 ms):
   d0 opens the ring at 16 ms, d1 and d2 at 11 ms; chunks take 1 ms, 2 ms
   on d2 -> d0.  Round r starts at max(own r-1 done, r-1 chunk from prev)
   and, under rendezvous, not before next(i) is in round r. */
static const int64_t rdv_send[3][4][2] = {
    {{16, 17}, {18, 19}, {20, 21}, {22, 23}},
    {{11, 12}, {18, 19}, {20, 21}, {22, 23}},
    {{16, 18}, {18, 20}, {20, 22}, {22, 24}}};
static const int64_t rdv_end[3] = {24, 23, 24};
static const int64_t eager_send[3][4][2] = {
    {{16, 17}, {17, 18}, {18, 19}, {20, 21}},
    {{11, 12}, {17, 18}, {18, 19}, {19, 20}},
    {{11, 13}, {13, 15}, {18, 20}, {20, 22}}};
static const int64_t eager_end[3] = {22, 21, 22};

static void check_timeline(const char *mode, const int64_t send[3][4][2],
                           const int64_t end[3])
{
    char text[2048];
    hs_scenario_t *s;
    hs_replay_result_t *r = NULL;
    hs_trace_sink_t sink;
    hs_error_t err;
    cap_t *c = calloc(1, sizeof *c);
    size_t i, n_send = 0, bad = 0;

    c->fail_after = -1;
    sink.ctx = c;
    sink.write = cap_write;
    sink.steps = cap_steps;
    snprintf(text, sizeof text, late3_yaml, mode);
    s = load_text(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, NULL, &sink, 1, &r, &err), HS_OK);
    for (i = 0; i < c->n; i++) {
        const hs_interval_t *v = &c->iv[i];
        if (v->phase != HS_PH_RING_SEND || v->step != 0)
            continue;
        n_send++;
        if (v->start_ns != MS + send[v->device][v->round][0] * MS ||
            v->end_ns != MS + send[v->device][v->round][1] * MS ||
            v->peer != (int32_t)((v->device + 1) % 3) ||
            v->bytes != 1000000) {
            fprintf(stderr, "\n%s: device %u round %d: %lld..%lld\n", mode,
                    v->device, v->round, (long long)v->start_ns,
                    (long long)v->end_ns);
            bad++;
        }
    }
    HS_ASSERT_I64_EQ(n_send, 12);
    HS_ASSERT_I64_EQ(bad, 0);
    HS_ASSERT_I64_EQ(c->n_rec, 6);
    for (i = 0; i < c->n_rec; i++) {
        const hs_step_rec_t *rc = &c->rec[i];
        if (rc->step != 0)
            continue;
        HS_ASSERT_I64_EQ(rc->start_ns, MS);
        HS_ASSERT_I64_EQ(rc->sim_ns, end[rc->device] * MS);
        HS_ASSERT_I64_EQ(rc->end_ns, MS + end[rc->device] * MS);
        HS_ASSERT_I64_EQ(rc->closed_ns, hs_closed_device_ns(s, rc->device));
    }
    /* closed form: T(d0) = 16 + 4 x 1 ms, T(d2) = 11 + 4 x 2 ms: 20 ms,
       under both modes; the ring says otherwise */
    HS_ASSERT_I64_EQ(r->closed_step_ns, 20 * MS);
    hs_replay_result_free(r);
    hs_scenario_free(s);
    free(c);
}

static void test_eager_vs_rendezvous(void)
{
    check_timeline("rendezvous", rdv_send, rdv_end);
    check_timeline("eager", eager_send, eager_end);
}

/* ---- trace sinks: what they receive, and their errors ---- */

static void test_sinks(void)
{
    char text[2048];
    hs_scenario_t *s;
    hs_replay_result_t *r = NULL;
    hs_trace_sink_t sink;
    hs_error_t err;
    cap_t *c = calloc(1, sizeof *c);
    size_t i, phases[HS_PH_COUNT] = {0};

    snprintf(text, sizeof text, overlap_yaml, "8ms",
             "        - {bytes: 1MB, ready: 2ms}\n", "patent");
    s = load_text(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    s->sim_steps = 2;
    c->fail_after = -1;
    sink.ctx = c;
    sink.write = cap_write;
    sink.steps = cap_steps;
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, NULL, &sink, 1, &r, &err), HS_OK);
    for (i = 0; i < c->n; i++) {
        phases[c->iv[i].phase]++;
        CU_ASSERT_TRUE(c->iv[i].end_ns > c->iv[i].start_ns);
    }
    /* 3 devices x 2 steps; batch loads 0, 1, 2 per device */
    HS_ASSERT_I64_EQ(phases[HS_PH_DATA_LOAD], 9);
    HS_ASSERT_I64_EQ(phases[HS_PH_FORWARD], 6);
    HS_ASSERT_I64_EQ(phases[HS_PH_BACKWARD_FIRST], 6);
    HS_ASSERT_I64_EQ(phases[HS_PH_BACKWARD_REST], 6);
    HS_ASSERT_I64_EQ(phases[HS_PH_OPTIMIZER], 6);
    HS_ASSERT_I64_EQ(phases[HS_PH_RING_SEND], 6 * 4);
    HS_ASSERT_I64_EQ(c->n_rec, 6);
    hs_replay_result_free(r);
    r = NULL;
    /* a sink that fails stops the replay with its error */
    memset(c, 0, sizeof *c);
    c->fail_after = 0;
    CU_ASSERT_EQUAL(hs_replay_run(s, NULL, &sink, 1, &r, &err), HS_ERR_IO);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(err.msg, "disk full");
    hs_scenario_free(s);
    free(c);
}

/* ---- the communication's own cost ---- */

#define COMM_LINE "      comm_ns_per_byte: 0.75\n"

static void test_comm_cost(void)
{
    const char *modes[2] = {"rendezvous", "eager"};
    const uint32_t n = 5;
    int k;

    for (k = 0; k < 2; k++) {
        char text[2048];
        hs_scenario_t *s;
        hs_replay_result_t *r;
        double M;
        int64_t w_ns, round_ns, expect;
        uint32_t i;

        /* (a) no backward beside the ring: the receiver processes a chunk
           while it comes in, c M/N; a round lasts the longer of the
           transfer and the processing (here the processing: 18.5 ms
           against 7.5 ms) */
        snprintf(text, sizeof text, homog_yaml, "", COMM_LINE, "3.3GB/s",
                 modes[k], "none");
        s = load_text(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        HS_ASSERT_DBL_NEAR(s->types[0].profile.comm_ns_per_byte, 0.75, 0);
        M = hs_profile_payload_bytes(&s->types[0].profile);
        w_ns = llround(0.75 * M / n);
        round_ns = 17000 + hs_xfer_ns(M / n, 3.3e9);
        CU_ASSERT(w_ns > round_ns);
        round_ns = w_ns;
        expect = 7777777 + 333000 + 2 * (n - 1) * round_ns;
        r = replay(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->step_ns, expect);
        for (i = 0; i < n; i++)
            HS_ASSERT_I64_EQ(r->dev_step_ns[i], expect);
        /* the closed form knows nothing of it */
        HS_ASSERT_I64_EQ(r->closed_step_ns,
                         7777777 + 333000 + 2 * (n - 1) *
                         (17000 + hs_xfer_ns(M / n, 3.3e9)));
        hs_replay_result_free(r);
        hs_scenario_free(s);

        /* (b) the ring runs beside a backward long enough to hide it: every
           chunk's processing suspends the compute, which ends 2(N-1) c M/N
           later; the ring is over before that */
        snprintf(text, sizeof text, homog_yaml, "      t_bwd: 900ms\n",
                 COMM_LINE, "3.3GB/s", modes[k], "patent");
        s = load_text(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        expect = 7777777 + 900000000 + 2 * (n - 1) * w_ns;
        r = replay(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->step_ns, expect);
        HS_ASSERT_I64_EQ(r->first_step_ns, expect);
        hs_replay_result_free(r);
        hs_scenario_free(s);
    }
}

/* The processing intervals, and the backward's rest where the compute
   really ends: (a) a backward long enough to hide the ring (every chunk
   suspends it: rest + 2(N-1) w); (b) a short backward and a slow network,
   where only the first chunk's processing falls in the backward (rest + w)
   and the ring ends long after it. */
static void test_comm_trace(void)
{
    static const struct {
        const char *bwd, *bw;
        int64_t rest_ns;    /* t_bwd - t_b1 */
        int64_t chunks;     /* processed during the compute */
    } cases[2] = {{"      t_bwd: 900ms\n", "3.3GB/s", 900000000 - 333000, 8},
                  {"      t_bwd: 1ms\n", "330MB/s", 1000000 - 333000, 1}};
    int k;

    for (k = 0; k < 2; k++) {
        char text[2048];
        hs_scenario_t *s;
        hs_replay_result_t *r = NULL;
        hs_trace_sink_t sink;
        hs_error_t err;
        cap_t *c = calloc(1, sizeof *c);
        size_t i, phases[HS_PH_COUNT] = {0}, bad = 0;
        int64_t w_ns, ring_end = 0, bwd_end = 0;

        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        snprintf(text, sizeof text, homog_yaml, cases[k].bwd, COMM_LINE,
                 cases[k].bw, "rendezvous", "patent");
        s = load_text(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        s->sim_steps = 2;
        w_ns = llround(0.75 *
                       hs_profile_payload_bytes(&s->types[0].profile) / 5);
        c->fail_after = -1;
        sink.ctx = c;
        sink.write = cap_write;
        sink.steps = cap_steps;
        CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, NULL, &sink, 1, &r, &err),
                              HS_OK);
        for (i = 0; i < c->n; i++) {
            const hs_interval_t *v = &c->iv[i];
            phases[v->phase]++;
            if (v->phase == HS_PH_RING_REDUCE)
                bad += v->end_ns - v->start_ns != w_ns ||
                       v->peer != (int32_t)hs_scenario_prev(s, v->device);
            if (v->phase == HS_PH_BACKWARD_REST) {
                bad += v->end_ns - v->start_ns !=
                       cases[k].rest_ns + cases[k].chunks * w_ns;
                if (v->device == 0 && v->step == 0)
                    bwd_end = v->end_ns;
            }
            if (v->phase == HS_PH_RING_SEND && v->device == 0 &&
                v->step == 0 && v->end_ns > ring_end)
                ring_end = v->end_ns;
        }
        HS_ASSERT_I64_EQ(bad, 0);
        /* 5 devices x 2 steps x 2(N-1) chunks each */
        HS_ASSERT_I64_EQ(phases[HS_PH_RING_REDUCE], 5 * 2 * 8);
        HS_ASSERT_I64_EQ(phases[HS_PH_BACKWARD_REST], 5 * 2);
        if (k == 1)   /* the ring outlasts the backward by far */
            CU_ASSERT(ring_end > bwd_end + 100 * MS);
        hs_replay_result_free(r);
        hs_scenario_free(s);
        free(c);
    }
}

/* ---- the hop wait ---- */

/* The reference for a homog_yaml ring beside the backward, round by
   round: a round takes R = 17 us + the chunk M/n at 3.3 GB/s (*r_ns); a
   chunk that arrives before the backward's end (bwd_end) waits L more
   (*waits counts them).  Returns when the ring ends, from its opening. */
static int64_t hop_ref(const hs_scenario_t *s, uint32_t n, int64_t open,
                       int64_t bwd_end, int64_t L, int64_t *r_ns,
                       int64_t *waits)
{
    int64_t t = open;
    uint32_t i;

    *r_ns = 17000 + hs_xfer_ns(hs_profile_payload_bytes(
                                   &s->types[0].profile) / n, 3.3e9);
    *waits = 0;
    for (i = 0; i < 2 * (n - 1); i++) {
        t += *r_ns;
        if (t < bwd_end) {
            t += L;
            (*waits)++;
        }
    }
    return t;
}

/* A ring beside the backward (patent: it opens after the first backward
   operator), t_hop_wait L = 2 ms, no communication cost: a chunk that
   reaches its receiver before the receiver's backward ends is usable L
   after it arrives; the others at once.  With t_bwd = 40 ms and rounds of
   R = 17 us + 24.69 MB at 3.3 GB/s (7.50 ms), chunks 1-4 arrive at 7.5,
   17.0, 26.5 and 36.0 ms after the ring opens (the backward has 39.67 ms
   left then) and wait; chunks 5-8 arrive after it and do not: the ring
   takes 8 R + 4 L.  Overlap none (the ring after the backward) never
   waits: 8 R. */
static void test_hop_wait(void)
{
    const char *modes[2] = {"rendezvous", "eager"};
    const uint32_t n = 5;
    const int64_t L = 2 * MS, bwd = 40 * MS, open = 7777777 + 333000;
    int k;

    for (k = 0; k < 2; k++) {
        char text[2048];
        hs_scenario_t *s;
        hs_replay_result_t *r;
        int64_t R, t, waits;
        uint32_t i;

        snprintf(text, sizeof text, homog_yaml, "      t_bwd: 40ms\n",
                 "      t_hop_wait: 2ms\n", "3.3GB/s", modes[k], "patent");
        s = load_text(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        HS_ASSERT_I64_EQ(s->types[0].profile.t_hop_wait_ns, L);
        /* the reference: round by round */
        t = hop_ref(s, n, open, 7777777 + bwd, L, &R, &waits);
        HS_ASSERT_I64_EQ(waits, 4);
        HS_ASSERT_I64_EQ(t, open + 8 * R + 4 * L);
        r = replay(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->step_ns, open + 8 * R + 4 * L);
        for (i = 0; i < n; i++)
            HS_ASSERT_I64_EQ(r->dev_step_ns[i], open + 8 * R + 4 * L);
        /* the closed form knows nothing of it */
        HS_ASSERT_I64_EQ(r->closed_step_ns, open + 8 * R);
        hs_replay_result_free(r);
        /* a backward that outlasts the ring: every chunk waits, and the
           step is the backward's */
        s->types[0].profile.t_bwd.mean_ns = 900 * MS;
        r = replay(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->step_ns, 7777777 + 900 * MS);
        hs_replay_result_free(r);
        s->types[0].profile.t_bwd.mean_ns = bwd;
        /* overlap none: the ring after the backward, no chunk waits */
        s->overlap = HS_OVERLAP_NONE;
        r = replay(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->step_ns, 7777777 + bwd + 8 * R);
        hs_replay_result_free(r);
        /* without the wait the patent ring takes 8 R from its opening */
        s->overlap = HS_OVERLAP_PATENT;
        s->types[0].profile.t_hop_wait_ns = 0;
        r = replay(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->step_ns, open + 8 * R);
        hs_replay_result_free(r);
        hs_scenario_free(s);
    }
}

/* The hop wait in a longer ring (hs_profile_hop_wait_ns): figures worked
   by hand from min(w (N-1)/(n-1), max(w, P/(2q))), w the probe's wait in
   its sub-system of n, q the quota in cores, P its period. */
static void test_hop_wait_growth_table(void)
{
    static const struct {
        int64_t w_ns;
        unsigned subsys;
        double q;
        int64_t p_ns;
        size_t ring_n;
        int64_t want_ns;
    } c[] = {
        {5 * MS, 2, 0.3, 10 * MS, 2, 5 * MS},      /* the probe's own ring */
        {5 * MS, 2, 0.3, 10 * MS, 3, 10 * MS},     /* 5 x 2 */
        {5 * MS, 2, 0.3, 10 * MS, 4, 15 * MS},     /* 5 x 3 < 16.667 */
        {5 * MS, 2, 0.3, 10 * MS, 5, 16666667},    /* the ceiling 10/0.6 */
        {5 * MS, 2, 0.3, 10 * MS, 200, 16666667},
        {23 * MS, 2, 0.15, 10 * MS, 3, 33333333},  /* 46 > 10/0.3 */
        {40 * MS, 2, 0.3, 10 * MS, 6, 40 * MS},    /* above the ceiling: w */
        {6 * MS, 4, 0.2, 10 * MS, 7, 12 * MS},     /* 6 x 6/3, < 25 */
        {6 * MS, 4, 0.2, 10 * MS, 3, 6 * MS},      /* shorter than n */
        {5 * MS, 2, 0.3, 100 * MS, 5, 20 * MS},    /* 5 x 4 < 166.7 */
        {5 * MS, 2, 0.0, 10 * MS, 5, 5 * MS},      /* no quota known */
        {5 * MS, 2, 0.3, 0, 5, 5 * MS},            /* no period known */
        {5 * MS, 2, 1.0, 10 * MS, 5, 5 * MS},      /* a whole core */
        {5 * MS, 2, 2.5, 10 * MS, 5, 5 * MS},
        {0, 2, 0.3, 10 * MS, 5, 0},                /* no wait */
        {1, 2, 1e-9, 10 * MS, 1000000, 999999},    /* no overflow */
    };
    size_t i;

    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        hs_profile_t p;
        int64_t got;

        memset(&p, 0, sizeof p);
        p.t_hop_wait_ns = c[i].w_ns;
        p.subsys_n = c[i].subsys;
        p.cpu_quota_cores = c[i].q;
        p.t_cpu_period_ns = c[i].p_ns;
        got = hs_profile_hop_wait_ns(&p, c[i].ring_n);
        if (got != c[i].want_ns)
            printf("\n  case %zu: got %lld want %lld", i, (long long)got,
                   (long long)c[i].want_ns);
        HS_ASSERT_I64_EQ(got, c[i].want_ns);
    }
}

/* The replay uses the grown wait: the ring of test_hop_wait (5 devices)
   with a probe's 2 ms and a quota of 0.3 cores per 10 ms waits 8 ms a hop
   (2 x 4 < 16.7); the reference is the same round-by-round walk with 8 ms.
   simulate.hop_wait: probe replays the 2 ms, and a profile that replays
   8 ms as probed gives the grown ring's figures to the ns. */
static void test_hop_wait_growth_replay(void)
{
    const uint32_t n = 5;
    const int64_t L = 8 * MS, bwd = 40 * MS, open = 7777777 + 333000;
    char text[2048];
    hs_scenario_t *s;
    hs_replay_result_t *r;
    hs_replay_opts_t o;
    int64_t R, t, waits, grown;

    snprintf(text, sizeof text, homog_yaml, "      t_bwd: 40ms\n",
             "      t_hop_wait: 2ms\n      cpu_quota_cores: 0.3\n"
             "      t_cpu_period: 10ms\n", "3.3GB/s", "rendezvous",
             "patent");
    s = load_text(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT(s->hop_wait == HS_HOP_WAIT_RING);
    CU_ASSERT_DOUBLE_EQUAL(s->types[0].profile.cpu_quota_cores, 0.3, 1e-12);
    HS_ASSERT_I64_EQ(s->types[0].profile.t_cpu_period_ns, 10 * MS);
    HS_ASSERT_I64_EQ(hs_replay_hop_wait_ns(s, 0, HS_HOP_WAIT_RING), L);
    HS_ASSERT_I64_EQ(hs_replay_hop_wait_ns(s, 0, HS_HOP_WAIT_PROBE), 2 * MS);
    t = hop_ref(s, n, open, 7777777 + bwd, L, &R, &waits);
    HS_ASSERT_I64_EQ(waits, 3);
    r = replay(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->step_ns, t);
    CU_ASSERT(r->hop_wait == HS_HOP_WAIT_RING);
    grown = r->step_ns;
    hs_replay_result_free(r);
    /* traced: per device and step the 3 waits, each a hop_wait interval of
       L from the later of the chunk's arrival and processing, from the
       device before it in the ring, within the step's rounds 0..2 */
    {
        hs_trace_sink_t sink;
        hs_error_t err;
        cap_t *c = calloc(1, sizeof *c);
        size_t j, nw = 0, bad = 0;

        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        c->fail_after = -1;
        sink.ctx = c;
        sink.write = cap_write;
        sink.steps = cap_steps;
        r = NULL;
        CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, NULL, &sink, 1, &r, &err),
                              HS_OK);
        for (j = 0; j < c->n; j++) {
            const hs_interval_t *v = &c->iv[j];
            if (v->phase != HS_PH_HOP_WAIT)
                continue;
            nw++;
            bad += v->end_ns - v->start_ns != L || v->round > 2 ||
                   v->round < 0 ||
                   v->peer != (int32_t)hs_scenario_prev(s, v->device);
        }
        HS_ASSERT_I64_EQ(nw, (size_t)3 * n * s->sim_steps);
        HS_ASSERT_I64_EQ(bad, 0);
        CU_ASSERT_STRING_EQUAL(hs_phase_name(HS_PH_HOP_WAIT), "hop_wait");
        hs_replay_result_free(r);
        free(c);
    }
    /* as probed: test_hop_wait's figure, 8 R + 4 x 2 ms */
    hs_replay_opts_from_scenario(s, &o);
    o.hop_wait = HS_HOP_WAIT_PROBE;
    r = NULL;
    {
        hs_error_t e;
        CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &r, &e), HS_OK);
    }
    HS_ASSERT_I64_EQ(r->step_ns, open + 8 * R + 4 * 2 * MS);
    CU_ASSERT(r->hop_wait == HS_HOP_WAIT_PROBE);
    hs_replay_result_free(r);
    /* the grown wait typed in and replayed as probed: the same step */
    s->types[0].profile.t_hop_wait_ns = L;
    s->types[0].profile.cpu_quota_cores = 0;
    s->hop_wait = HS_HOP_WAIT_PROBE;
    r = replay(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->step_ns, grown);
    hs_replay_result_free(r);
    hs_scenario_free(s);
    /* simulate.hop_wait in the file; a bad value is named */
    snprintf(text, sizeof text, homog_yaml, "      t_bwd: 40ms\n",
             "      t_hop_wait: 2ms\n", "3.3GB/s", "rendezvous", "patent");
    {
        char *at = strstr(text, "simulate: {");
        char t2[2300];
        hs_error_t e;
        CU_ASSERT_PTR_NOT_NULL_FATAL(at);
        snprintf(t2, sizeof t2, "%.*ssimulate: {hop_wait: probe, %s",
                 (int)(at - text), text, at + strlen("simulate: {"));
        s = load_text(t2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        CU_ASSERT(s->hop_wait == HS_HOP_WAIT_PROBE);
        hs_scenario_free(s);
        snprintf(t2, sizeof t2, "%.*ssimulate: {hop_wait: grown, %s",
                 (int)(at - text), text, at + strlen("simulate: {"));
        CU_ASSERT(hs_scenario_load_text(t2, strlen(t2), "t.yaml", NULL, &s,
                                        &e) != HS_OK);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "simulate.hop_wait must be "
                                             "ring or probe"));
    }
}

/* ---- stragglers ---- */

static void test_stragglers(void)
{
    char text[4096];
    hs_scenario_t *s;
    hs_replay_result_t *r;
    int64_t base;
    uint32_t k;

    snprintf(text, sizeof text,
             "name: st\n"
             "job: {model: x, dataset: {samples: 4000}, epochs: 1}\n"
             "device_types:\n"
             "  - name: gpu\n"
             "    count: 4\n"
             "    batch: 100\n"
             "    profile: {subsystem_size: 2, t_dl: 1ms, t_fwd: 10ms,\n"
             "              t_b1: 1ms, allreduce_bytes: 4MB}\n"
             "network: {default_bandwidth: 1GB/s, latency: 0s}\n"
             "simulate:\n"
             "  steps: 8\n"
             "  stragglers:\n"
             "    - {device: gpu-1, steps: [3, 4], factor: 1.0,"
             " extra: 5ms}\n");
    s = load_text(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL_FATAL(s->n_stragglers, 1);
    r = replay(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    /* 11 ms + 6 rounds of 1 MB at 1 GB/s */
    base = 17 * MS;
    for (k = 0; k < r->steps; k++)
        HS_ASSERT_I64_EQ(r->cluster_step_ns[k],
                         (k == 3 || k == 4) ? base + 5 * MS : base);
    HS_ASSERT_I64_EQ(r->step_ns, base + (10 * MS) / 7);
    hs_replay_result_free(r);
    hs_scenario_free(s);
}

/* ---- stochastic mode ---- */

static void test_stochastic(void)
{
    char text[2048];
    hs_scenario_t *s;
    hs_replay_result_t *a, *b, *c, *det;
    uint32_t k, same = 1;

    snprintf(text, sizeof text,
             "name: sto\n"
             "job: {model: x, dataset: {samples: 4000}, epochs: 2}\n"
             "device_types:\n"
             "  - name: gpu\n"
             "    count: 4\n"
             "    batch: 100\n"
             "    profile:\n"
             "      subsystem_size: 2\n"
             "      t_dl: {mean: 2ms, sd: 0.5ms}\n"
             "      t_fwd: {mean: 20ms, sd: 0.4ms}\n"
             "      t_b1: {mean: 1ms, samples: [0.9ms, 1ms, 1.1ms]}\n"
             "      allreduce_bytes: 4MB\n"
             "network: {default_bandwidth: 1GB/s, latency: 0s}\n"
             "simulate: {steps: 300, seed: 42, stochastic: true}\n");
    s = load_text(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    a = replay(s);
    b = replay(s);
    s->seed = 43;
    c = replay(s);
    s->stochastic = 0;
    det = replay(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(det);
    /* the same seed: the same run, step by step */
    for (k = 0; k < a->steps; k++)
        if (a->cluster_step_ns[k] != b->cluster_step_ns[k])
            same = 0;
    CU_ASSERT_TRUE(same);
    HS_ASSERT_I64_EQ(a->step_p95_ns, b->step_p95_ns);
    /* another seed: another run */
    CU_ASSERT_TRUE(a->step_mean_ns != c->step_mean_ns);
    /* deterministic: 21 ms + 6 x 1 ms = 27 ms */
    HS_ASSERT_I64_EQ(det->step_ns, 27 * MS);
    /* stochastic mean near it (the ring waits for the slowest of 4
       draws each step, so a little above it) */
    HS_ASSERT_DBL_NEAR((double)a->step_mean_ns, 27e6, 27e6 * 0.03);
    CU_ASSERT_TRUE(a->step_mean_ns >= det->step_ns);
    CU_ASSERT_TRUE(a->step_sd_ns > 0);
    CU_ASSERT_TRUE(a->step_p50_ns <= a->step_p95_ns);
    CU_ASSERT_TRUE(a->epoch_lo_ns < a->epoch_ns &&
                   a->epoch_ns < a->epoch_hi_ns);
    CU_ASSERT_TRUE(a->total_lo_ns < a->total_ns &&
                   a->total_ns < a->total_hi_ns);
    hs_replay_result_free(a);
    hs_replay_result_free(b);
    hs_replay_result_free(c);
    hs_replay_result_free(det);
    hs_scenario_free(s);
}

/* ---- determinism of the CLI's output ---- */

static void test_cli_deterministic(void)
{
    const char *path = HS_TEST_SRC "/scenarios/example-full.yaml";
    hs_run_t r1, r2, r3, r4;

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r1, "simulate", path, "--json",
                                        "--per-device", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r2, "simulate", path, "--json",
                                        "--per-device", NULL), 0);
    HS_ASSERT_I64_EQ(r1.status, 0);
    CU_ASSERT_TRUE(r1.out != NULL && r2.out != NULL &&
                   strlen(r1.out) > 100 && strcmp(r1.out, r2.out) == 0);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r3, "simulate", path, "--json",
                                        "--stochastic", "--seed", "9",
                                        "--steps", "50", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r4, "simulate", path, "--json",
                                        "--stochastic", "--seed", "9",
                                        "--steps", "50", NULL), 0);
    HS_ASSERT_I64_EQ(r3.status, 0);
    CU_ASSERT_TRUE(r3.out != NULL && r4.out != NULL &&
                   strlen(r3.out) > 100 && strcmp(r3.out, r4.out) == 0);
    hs_run_free(&r1);
    hs_run_free(&r2);
    hs_run_free(&r3);
    hs_run_free(&r4);
}

static const char buckets_yaml[] =
    "name: bb\n"
    "job: {model: x, dataset: {samples: 4000}, epochs: 1}\n"
    "device_types:\n"
    "  - name: a\n"
    "    count: 2\n"
    "    batch: 100\n"
    "    profile: {subsystem_size: 2, t_fwd: 10ms, t_b1: 1ms,\n"
    "              allreduce_bytes: 4MB,\n"
    "              buckets: [{bytes: 4MB, ready: 1ms}]}\n"
    "  - name: b\n"
    "    count: 2\n"
    "    batch: 100\n"
    "    profile: {subsystem_size: 2, t_fwd: %s, t_b1: 1ms,\n"
    "              allreduce_bytes: 4MB%s}\n"
    "network: {default_bandwidth: 1GB/s, latency: 0s}\n"
    "simulate: {steps: 3, overlap: buckets}\n";

static void test_bucket_layouts(void)
{
    char text[4096];
    hs_scenario_t *s;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    int i;

    /* two types of one model with different bucket counts: an error */
    snprintf(text, sizeof text, buckets_yaml, "10ms",
             ",\n              buckets: [{bytes: 2MB, ready: 1ms}, "
             "{bytes: 2MB, ready: 2ms}]");
    s = load_text(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(hs_replay_run(s, NULL, NULL, 0, &r, &err), HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(err.msg, "same number of gradient buckets");
    hs_scenario_free(s);

    /* type b lists none: it borrows a's layout (a note).  Ring opens at
       10 + 1 ms on all; 6 rounds of 1 MB at 1 GB/s: 17 ms */
    snprintf(text, sizeof text, buckets_yaml, "10ms", "");
    s = load_text(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, NULL, NULL, 0, &r, &err), HS_OK);
    HS_ASSERT_I64_EQ(r->n_notes, 1);
    HS_ASSERT_STR_CONTAINS(r->notes[0], "'b' lists no gradient buckets");
    HS_ASSERT_I64_EQ(r->step_ns, 17 * MS);
    hs_replay_result_free(r);
    hs_scenario_free(s);

    /* b's forward is twice a's: its bucket is ready 2 x 1 ms after its
       backward starts (20 ms): the ring opens at 22 ms: 28 ms */
    snprintf(text, sizeof text, buckets_yaml, "20ms", "");
    s = load_text(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, NULL, NULL, 0, &r, &err), HS_OK);
    HS_ASSERT_I64_EQ(r->step_ns, 28 * MS);
    hs_replay_result_free(r);

    /* no type lists any: buckets and last_bucket both replay as none,
       with a note naming the mode asked: backward ends at 11 ms (a) and
       21 ms (b): 27 ms */
    s->types[0].profile.n_buckets = 0;
    for (i = 0; i < 2; i++) {
        hs_overlap_t asked = i == 0 ? HS_OVERLAP_BUCKETS
                                    : HS_OVERLAP_LAST_BUCKET;
        char want[64];

        s->overlap = asked;
        snprintf(want, sizeof want, "overlap %s: no profile",
                 hs_overlap_name(asked));
        CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, NULL, NULL, 0, &r, &err),
                              HS_OK);
        HS_ASSERT_I64_EQ(r->n_notes, 1);
        HS_ASSERT_STR_CONTAINS(r->notes[0], want);
        HS_ASSERT_STR_CONTAINS(r->notes[0], "as overlap none");
        HS_ASSERT_I64_EQ(r->step_ns, 27 * MS);
        /* the result says what was replayed, and what was asked */
        CU_ASSERT_EQUAL(r->overlap, HS_OVERLAP_NONE);
        CU_ASSERT_EQUAL(r->overlap_asked, asked);
        HS_ASSERT_I64_EQ(r->n_buckets, 1);
        hs_replay_result_free(r);
    }
    s->types[0].profile.n_buckets = 1; /* give it back to the free */
    hs_scenario_free(s);
}

/* ---- options apart from the scenario; the collective by name ---- */

/* Options given to hs_replay_run override the scenario's simulate:
   section without changing the scenario, and replay as if the scenario
   had said them (the reference: the same scenario, edited). */
static void test_opts_override(void)
{
    hs_scenario_t *s, *edited;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL, *ref;
    hs_straggler_t slow = {1, 1, 2, 1.5, 2 * MS};
    hs_error_t err;
    uint32_t k;
    static const char text[] =
        "name: opts\n"
        "job: {model: x, dataset: {samples: 4000}, epochs: 1}\n"
        "device_types:\n"
        "  - name: gpu\n"
        "    count: 3\n"
        "    batch: 100\n"
        "    profile: {subsystem_size: 2, t_fwd: 10ms, t_b1: 1ms,\n"
        "              t_bwd: 8ms, allreduce_bytes: 3MB}\n"
        "network: {default_bandwidth: 1GB/s, latency: 10us}\n"
        "simulate: {steps: 6, overlap: patent, send: rendezvous,\n"
        "           seed: 5}\n";

    s = load_text(text);
    edited = load_text(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(edited);
    hs_replay_opts_from_scenario(s, &o);
    CU_ASSERT_EQUAL(o.overlap, HS_OVERLAP_PATENT);
    CU_ASSERT_EQUAL(o.send, HS_SEND_RENDEZVOUS);
    HS_ASSERT_I64_EQ(o.steps, 6);
    HS_ASSERT_I64_EQ(o.seed, 5);
    CU_ASSERT_PTR_NULL(o.collective);
    o.overlap = HS_OVERLAP_NONE;
    o.send = HS_SEND_EAGER;
    o.steps = 4;
    o.seed = 9;
    o.stragglers = &slow;
    o.n_stragglers = 1;
    o.collective = "ring";
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_OK);
    /* the scenario is as loaded */
    CU_ASSERT_EQUAL(s->overlap, HS_OVERLAP_PATENT);
    CU_ASSERT_EQUAL(s->send, HS_SEND_RENDEZVOUS);
    HS_ASSERT_I64_EQ(s->sim_steps, 6);
    HS_ASSERT_I64_EQ(s->seed, 5);
    HS_ASSERT_I64_EQ(s->n_stragglers, 0);
    /* the result is the options' */
    HS_ASSERT_I64_EQ(r->steps, 4);
    CU_ASSERT_EQUAL(r->overlap, HS_OVERLAP_NONE);
    CU_ASSERT_EQUAL(r->overlap_asked, HS_OVERLAP_NONE);
    CU_ASSERT_EQUAL(r->send, HS_SEND_EAGER);
    HS_ASSERT_I64_EQ(r->seed, 9);
    CU_ASSERT_STRING_EQUAL(r->collective, "ring");
    /* and the same as the scenario edited to say them */
    edited->overlap = HS_OVERLAP_NONE;
    edited->send = HS_SEND_EAGER;
    edited->sim_steps = 4;
    edited->seed = 9;
    edited->stragglers = &slow;
    edited->n_stragglers = 1;
    ref = replay(edited);
    edited->stragglers = NULL;   /* not the scenario's to free */
    edited->n_stragglers = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
    HS_ASSERT_I64_EQ(r->step_ns, ref->step_ns);
    for (k = 0; k < r->steps; k++)
        HS_ASSERT_I64_EQ(r->cluster_step_ns[k], ref->cluster_step_ns[k]);
    /* the straggler's steps 1 and 2 are slower */
    CU_ASSERT_TRUE(r->cluster_step_ns[1] > r->cluster_step_ns[3]);
    hs_replay_result_free(ref);
    hs_replay_result_free(r);

    /* a straggler naming a device the scenario lacks */
    slow.device = 3;
    CU_ASSERT_EQUAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(err.msg, "straggler");
    CU_ASSERT_PTR_NULL(r);
    hs_scenario_free(edited);
    hs_scenario_free(s);
}

static void test_collective_names(void)
{
    const hs_collective_t *c = NULL;
    hs_scenario_t *s;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    uint32_t x;

    CU_ASSERT_EQUAL(hs_collective_find("ring", &c, &err), HS_OK);
    CU_ASSERT_PTR_EQUAL(c, &hs_coll_ring);
    CU_ASSERT_EQUAL(hs_collective_find(NULL, &c, &err), HS_OK);
    CU_ASSERT_PTR_EQUAL(c, &hs_coll_ring);
    CU_ASSERT_PTR_EQUAL(hs_collective_get(0), &hs_coll_ring);
    CU_ASSERT_EQUAL(hs_collective_find("butterfly", &c, &err), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(c);
    HS_ASSERT_STR_CONTAINS(err.msg, "unknown collective 'butterfly'");
    HS_ASSERT_STR_CONTAINS(err.msg, "known: ring");

    s = load_text(
        "name: coll\n"
        "job: {model: x, dataset: {samples: 4000}, epochs: 1}\n"
        "device_types:\n"
        "  - name: gpu\n"
        "    count: 4\n"
        "    batch: 100\n"
        "    profile: {subsystem_size: 2, t_fwd: 10ms, t_b1: 1ms,\n"
        "              allreduce_bytes: 4MB}\n"
        "network: {default_bandwidth: 1GB/s, latency: 0s}\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hs_replay_opts_from_scenario(s, &o);
    o.collective = "butterfly";
    CU_ASSERT_EQUAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(err.msg, "unknown collective 'butterfly' (known: "
                                    "ring, hierarchical, tree, auto)");
    CU_ASSERT_PTR_NULL(r);
    /* the ring's shape and closed form: 6 rounds of 1 MB to the next
       device, 6 ms at 1 GB/s */
    HS_ASSERT_I64_EQ(hs_coll_ring.rounds(4), 6);
    for (x = 0; x < 4; x++) {
        hs_coll_round_t rd;
        hs_coll_ring.round(s, x, 3, &rd);
        HS_ASSERT_I64_EQ(rd.to, hs_scenario_next(s, x));
        HS_ASSERT_I64_EQ(rd.from, hs_scenario_prev(s, x));
        HS_ASSERT_I64_EQ(rd.edge, s->devices[x].ring_pos);
        HS_ASSERT_I64_EQ(rd.parts, 4);
        HS_ASSERT_I64_EQ(hs_coll_ring.allreduce_ns(s, x), 6 * MS);
        HS_ASSERT_I64_EQ(hs_closed_allreduce_ns(s, x), 6 * MS);
    }
    hs_scenario_free(s);
}

/* ---- concurrent bucket rings (simulate.streams) ---- */

static const char streams_yaml[] =
    "name: streams\n"
    "job: {model: x, dataset: {samples: 4000}, epochs: 1}\n"
    "device_types:\n"
    "  - name: fast\n"
    "    count: 2\n"
    "    batch: 100\n"
    "    profile: {subsystem_size: 2, t_fwd: 10ms, t_b1: 1ms, t_bwd: 20ms,\n"
    "              allreduce_bytes: 8MB, buckets: [%s]}\n"
    "  - name: slow\n"
    "    count: 2\n"
    "    batch: 100\n"
    "    profile: {subsystem_size: 2, t_fwd: %s, t_b1: 1ms, t_bwd: 20ms,\n"
    "              allreduce_bytes: 8MB, buckets: [%s]}\n"
    "devices:\n"
    "  - {name: d0, type: fast, addr: 198.18.0.1}\n"
    "  - {name: d1, type: fast, addr: 198.18.0.2}\n"
    "  - {name: d2, type: slow, addr: 198.18.0.3}\n"
    "  - {name: d3, type: slow, addr: 198.18.0.4}\n"
    "ring: [d0, d1, d2, d3]\n"
    "network:\n"
    "  default_bandwidth: 1GB/s\n"
    "  latency: 0s\n"
    "%s"
    "simulate: {steps: 4, overlap: buckets, streams: %d}\n";

/* Replays streams_yaml; stores every interval in *c when c is not NULL. */
static int64_t streams_step(const char *buckets, const char *slow_fwd,
                            const char *links, int k, cap_t *c,
                            uint32_t *k_out)
{
    char text[4096];
    hs_scenario_t *s;
    hs_replay_result_t *r = NULL;
    hs_trace_sink_t sink;
    hs_error_t err;
    int64_t step = -1;

    snprintf(text, sizeof text, streams_yaml, buckets, slow_fwd, buckets,
             links, k);
    s = load_text(text);
    if (s == NULL)
        return -1;
    if (c != NULL) {
        c->fail_after = -1;
        sink.ctx = c;
        sink.write = cap_write;
        sink.steps = cap_steps;
    }
    if (hs_replay_run(s, NULL, c ? &sink : NULL, c ? 1 : 0, &r, &err) ==
        HS_OK) {
        step = r->step_ns;
        *k_out = r->streams;
    } else {
        fprintf(stderr, "\nreplay failed: %s\n", err.msg);
    }
    hs_replay_result_free(r);
    hs_scenario_free(s);
    return step;
}

static void test_streams(void)
{
    static const char one[] = "{bytes: 8MB, ready: 5ms}";
    static const char two[] = "{bytes: 4MB, ready: 5ms}, "
                              "{bytes: 4MB, ready: 10ms}";
    static const char slow[] = "  links: [[198.18.0.1, 198.18.0.2, "
                               "100MB/s]]\n";
    cap_t *c = calloc(1, sizeof *c);
    uint32_t k = 0;
    int64_t one_s, two_s;
    size_t i, j, bad = 0, sends = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    /* one bucket: nothing to run at once, whatever streams says.  A ring
       of 8 MB: 6 rounds of 2 MB chunks at 1 GB/s = 12 ms from the
       bucket's readiness at 10 + 5 ms, beside the backward (ends 30 ms) */
    one_s = streams_step(one, "10ms", "", 1, NULL, &k);
    HS_ASSERT_I64_EQ(k, 1);
    HS_ASSERT_I64_EQ(one_s, 30 * MS);
    two_s = streams_step(one, "10ms", "", 2, NULL, &k);
    HS_ASSERT_I64_EQ(k, 1);
    HS_ASSERT_I64_EQ(two_s, one_s);

    /* equal devices and links: two buckets of 4 MB, ready at 15 and 20
       ms; 6 rounds of 1 ms each; one stream: 15 + 6 = 21, then 21 + 6 =
       27 ms; two: the second ring starts at 20 ms and shares the links
       with the first one's last round, ending at 27 ms too; the step is
       the backward's end, 30 ms, both ways */
    one_s = streams_step(two, "10ms", "", 1, NULL, &k);
    two_s = streams_step(two, "10ms", "", 2, NULL, &k);
    HS_ASSERT_I64_EQ(k, 2);
    HS_ASSERT_I64_EQ(one_s, 30 * MS);
    HS_ASSERT_I64_EQ(two_s, one_s);

    /* d0 -> d1 slow (100 MB/s: 10 ms a chunk) and d2, d3 late (their
       forward 40 ms): the first ring's chunks wait on d2 and d3, leaving
       the slow link idle; with two streams the second ring uses it
       meanwhile.  The link carries 12 chunks a step either way: 120 ms
       at least */
    one_s = streams_step(two, "40ms", slow, 1, NULL, &k);
    two_s = streams_step(two, "40ms", slow, 2, c, &k);
    printf("\n  slow link, late devices: 1 stream %.3f ms, 2 streams %.3f "
           "ms", one_s / 1e6, two_s / 1e6);
    CU_ASSERT(two_s < one_s);
    CU_ASSERT(two_s >= 120 * MS);
    /* the link is shared first come, first served: the sends of one
       device never overlap, and every chunk of both rings is sent */
    for (i = 0; i < c->n; i++) {
        const hs_interval_t *a = &c->iv[i];
        if (a->phase != HS_PH_RING_SEND)
            continue;
        if (a->step == 1)
            sends++;
        for (j = i + 1; j < c->n; j++) {
            const hs_interval_t *b = &c->iv[j];
            if (b->phase == HS_PH_RING_SEND && b->device == a->device &&
                b->start_ns < a->end_ns && a->start_ns < b->end_ns)
                bad++;
        }
    }
    HS_ASSERT_I64_EQ(bad, 0);
    HS_ASSERT_I64_EQ(sends, 4 * 2 * 6);   /* devices x rings x rounds */
    free(c);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("replay", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "homogeneous ring = 2(N-1)(alpha + M/(N B))",
                    test_homogeneous_formula) == NULL ||
        CU_add_test(s, "one slow link", test_slow_link) == NULL ||
        CU_add_test(s, "one slow device", test_slow_device) == NULL ||
        CU_add_test(s, "divergent case", test_divergent) == NULL ||
        CU_add_test(s, "overlap modes by hand", test_overlap_modes) ==
            NULL ||
        CU_add_test(s, "eager vs rendezvous timelines",
                    test_eager_vs_rendezvous) == NULL ||
        CU_add_test(s, "trace sinks", test_sinks) == NULL ||
        CU_add_test(s, "stragglers", test_stragglers) == NULL ||
        CU_add_test(s, "communication cost: formulas", test_comm_cost) ==
            NULL ||
        CU_add_test(s, "hop wait by hand", test_hop_wait) == NULL ||
        CU_add_test(s, "hop wait grown: the law's figures",
                    test_hop_wait_growth_table) == NULL ||
        CU_add_test(s, "hop wait grown: the replay",
                    test_hop_wait_growth_replay) == NULL ||
        CU_add_test(s, "communication cost: trace", test_comm_trace) ==
            NULL ||
        CU_add_test(s, "bucket rings at once (streams)", test_streams) ==
            NULL ||
        CU_add_test(s, "stochastic mode", test_stochastic) == NULL ||
        CU_add_test(s, "bucket layouts across types", test_bucket_layouts) ==
            NULL ||
        CU_add_test(s, "options apart from the scenario",
                    test_opts_override) == NULL ||
        CU_add_test(s, "collectives by name", test_collective_names) ==
            NULL ||
        CU_add_test(s, "CLI output is deterministic",
                    test_cli_deterministic) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
