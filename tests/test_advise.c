/*
 * test_advise.c -- `hetsim advise` (whatif/hs_advise.h) on scenarios,
 * each answer checked against an independent reference: the ring order
 * against a brute force that sets every order on the scenario and asks the
 * closed form; the batches against a hand computation; the mix against a
 * brute force over every count vector; the written scenarios by loading
 * them again.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "hs_advise.h"
#include "hs_answer.h"
#include "hs_closed.h"
#include "hs_rewrite.h"
#include "hs_test.h"

static hs_scenario_t *load(const char *yaml)
{
    hs_scenario_t *s = NULL;
    hs_error_t e;

    if (hs_scenario_load_text(yaml, strlen(yaml), "t.yaml", NULL, &s, &e) !=
        HS_OK)
        fprintf(stderr, "\nload failed: %s\n", e.msg);
    return s;
}

/* The closed form's step of s with its ring set to order (names). */
static int64_t closed_in_order(const hs_scenario_t *s, const uint32_t *ord)
{
    hs_scenario_t *c = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t e;
    char buf[4096];
    size_t k, at = 0;
    int64_t step = -1;

    at += (size_t)snprintf(buf + at, sizeof buf - at, "[");
    for (k = 0; k < s->n_devices; k++)
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s",
                               k ? ", " : "", s->devices[ord[k]].name);
    snprintf(buf + at, sizeof buf - at, "]");
    if (hs_scenario_clone(s, &c, &e) == HS_OK &&
        hs_scenario_set(c, "ring", buf, &e) == HS_OK &&
        hs_scenario_resolve(c, &e) == HS_OK &&
        hs_closed_predict(c, &p, &e) == HS_OK)
        step = p->step_ns;
    else
        fprintf(stderr, "\nclosed_in_order: %s\n", e.msg);
    hs_prediction_free(p);
    hs_scenario_free(c);
    return step;
}

/* Least closed-form step over every order with device 0 first. */
static void brute_ring(const hs_scenario_t *s, uint32_t *o, unsigned char *used,
                       size_t k, int64_t *best)
{
    size_t n = s->n_devices;
    uint32_t j;

    if (k == n) {
        int64_t v = closed_in_order(s, o);

        if (v >= 0 && v < *best)
            *best = v;
        return;
    }
    for (j = 1; j < n; j++) {
        if (used[j])
            continue;
        used[j] = 1;
        o[k] = j;
        brute_ring(s, o, used, k + 1, best);
        used[j] = 0;
    }
}

/* 3 types, 6 devices, a slow pair row on the listing order's path. */
static const char ring6[] =
    "device_types:\n"
    "  - {name: f, count: 2, batch: 8, profile: {t_fwd: 10ms, t_b1: 1ms,\n"
    "     allreduce_bytes: 60MB}}\n"
    "  - {name: m, count: 2, batch: 8, profile: {t_fwd: 20ms, t_b1: 1ms,\n"
    "     allreduce_bytes: 60MB}}\n"
    "  - {name: s, count: 2, batch: 8, profile: {t_fwd: 40ms, t_b1: 1ms,\n"
    "     allreduce_bytes: 60MB}}\n"
    "network:\n"
    "  default_bandwidth: 10Gbps\n"
    "  latency: 20us\n"
    "  type_links: [[f, f, 100Gbps], [m, m, 100Gbps], [s, s, 40Gbps],\n"
    "               [f, s, 2Gbps]]\n"
    "  links: [[s-0, s-1, 1Gbps], [f-1, m-0, 1Gbps]]\n"
    "simulate: {steps: 4}\n";

static void test_ring_exact_is_brute_force(void)
{
    hs_scenario_t *s = load(ring6);
    hs_advise_ring_t *r = NULL;
    hs_error_t e;
    uint32_t o[8] = {0};
    unsigned char used[8] = {1, 0};
    int64_t best = INT64_MAX;
    size_t k;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    brute_ring(s, o, used, 1, &best);
    HS_ASSERT_I64_EQ(hs_advise_ring(s, NULL, 1, 0, &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_TRUE(r->exact);
    /* the searched order is the brute force's best, and its closed-form
       figure is the closed form's own (not the search's private copy) */
    HS_ASSERT_I64_EQ(r->cands[3].closed_ns, best);
    HS_ASSERT_I64_EQ(closed_in_order(s, r->cands[3].order), best);
    /* the given order's figure is what predict says of the scenario */
    HS_ASSERT_I64_EQ(r->cands[0].closed_ns, closed_in_order(s, s->ring));
    CU_ASSERT_TRUE(r->lower_bound_ns <= best);
    for (k = 0; k < r->n_cands; k++) {
        const hs_advise_fig_t *f = &r->cands[k].fig;

        /* judged by the replay (it fits the answer budget), its figures
           beside the closed forms' */
        HS_ASSERT_I64_EQ(f->recommended, HS_PREDICTOR_REPLAY);
        CU_ASSERT_TRUE(f->est[HS_PREDICTOR_REPLAY].step_ns > 0);
        HS_ASSERT_I64_EQ(f->est[HS_PREDICTOR_SOURCE].step_ns,
                         r->cands[k].closed_ns);
        CU_ASSERT_TRUE(r->cands[k].closed_ns >= best);
    }
    /* the recommendation is the least replayed step, and strictly less
       than the given order's */
    for (k = 0; k < r->n_cands; k++)
        CU_ASSERT_TRUE(
            r->cands[r->chosen].fig.est[HS_PREDICTOR_REPLAY].step_ns <=
            r->cands[k].fig.est[HS_PREDICTOR_REPLAY].step_ns);
    CU_ASSERT_TRUE(r->chosen != 0);
    CU_ASSERT_TRUE(r->outcome != HS_ADVISE_NONE);
    CU_ASSERT_TRUE(r->cands[r->chosen].fig.est[HS_PREDICTOR_REPLAY].step_ns <
                   r->cands[0].fig.est[HS_PREDICTOR_REPLAY].step_ns);
    hs_advise_ring_free(r);
    hs_scenario_free(s);
}

/* A larger generated cluster: the heuristic is never worse than the
   given, grouped and interleaved orders, and never below its bound. */
static void test_ring_heuristic(void)
{
    static const char big[] =
        "device_types:\n"
        "  - {name: a, count: 20, batch: 8, profile: {t_fwd: 10ms, "
        "t_b1: 1ms, allreduce_bytes: 60MB}}\n"
        "  - {name: b, count: 14, batch: 8, profile: {t_fwd: 25ms, "
        "t_b1: 1ms, allreduce_bytes: 60MB}}\n"
        "  - {name: c, count: 6, batch: 8, profile: {t_fwd: 30ms, "
        "t_b1: 2ms, allreduce_bytes: 60MB}}\n"
        "ring: interleave\n"
        "network:\n"
        "  default_bandwidth: 5Gbps\n"
        "  type_links: [[a, a, 100Gbps], [b, b, 50Gbps], [c, c, 50Gbps],\n"
        "               [a, b, 20Gbps]]\n"
        "  links: [[a-3, b-5, 500Mbps], [c-1, c-2, 1Gbps]]\n"
        "simulate: {steps: 3}\n";
    hs_scenario_t *s = load(big);
    hs_advise_ring_t *r = NULL;
    hs_error_t e;
    size_t k;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_advise_ring(s, NULL, 1, 2, &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_FALSE(r->exact);
    for (k = 0; k < 3; k++) {
        CU_ASSERT_TRUE(r->cands[3].closed_ns <= r->cands[k].closed_ns);
        HS_ASSERT_I64_EQ(r->cands[k].closed_ns,
                         closed_in_order(s, r->cands[k].order));
    }
    HS_ASSERT_I64_EQ(r->cands[3].closed_ns,
                     closed_in_order(s, r->cands[3].order));
    CU_ASSERT_TRUE(r->lower_bound_ns <= r->cands[3].closed_ns);
    printf("\n  40 devices: given %.3f ms, grouped %.3f, interleave %.3f, "
           "searched %.3f (bound %.3f)",
           r->cands[0].closed_ns / 1e6, r->cands[1].closed_ns / 1e6,
           r->cands[2].closed_ns / 1e6, r->cands[3].closed_ns / 1e6,
           r->lower_bound_ns / 1e6);
    hs_advise_ring_free(r);
    hs_scenario_free(s);
}

/* 2 fast devices at 1 ms of work per sample, 2 slow at 2 ms (forward and
   backward each half of it; the all-reduce negligible), global batch 96:
   2a + 2b = 96 and a = 2b give a = 32, b = 16, both at 32 ms. */
static const char batch4[] =
    "job: {model: x, dataset: {samples: 9600}}\n"
    "device_types:\n"
    "  - {name: fast, count: 2, batch: 24, profile: {t_fwd: 12ms,\n"
    "     t_b1: 1us, t_bwd: 12ms, allreduce_bytes: 1KB}}\n"
    "  - {name: slow, count: 2, batch: 24, profile: {t_fwd: 24ms,\n"
    "     t_b1: 1us, t_bwd: 24ms, allreduce_bytes: 1KB}}\n"
    "network: {default_bandwidth: 100Gbps, latency: 1us}\n"
    "simulate: {steps: 4, overlap: none}\n";

static void test_batch_by_hand(void)
{
    hs_scenario_t *s = load(batch4), *w = NULL;
    hs_advise_batch_t *r = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t e;
    const char *path = hs_test_write_file("advise-batch.yaml", "x");
    char ppath[1024];

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_advise_batch(s, NULL, 0, NULL, 1, &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->global_batch_asked, 96);
    HS_ASSERT_I64_EQ(r->global_batch, 96);
    /* the search's split, confirmed by the replay: the recommendation */
    CU_ASSERT_STRING_EQUAL(r->cands[0].label, "given");
    CU_ASSERT_STRING_EQUAL(r->cands[1].label, "searched");
    HS_ASSERT_I64_EQ(r->cands[1].batch[0], 32);
    HS_ASSERT_I64_EQ(r->cands[1].batch[1], 16);
    HS_ASSERT_I64_EQ(r->outcome, HS_ADVISE_IMPROVED);
    HS_ASSERT_I64_EQ(r->chosen, 1);
    HS_ASSERT_I64_EQ(r->batch_after[0], 32);
    HS_ASSERT_I64_EQ(r->batch_after[1], 16);
    /* the slow devices set the step before; after, both take ~32 ms */
    {
        int64_t before = r->cands[0].fig.est[HS_PREDICTOR_REPLAY].step_ns;
        int64_t after = r->cands[1].fig.est[HS_PREDICTOR_REPLAY].step_ns;

        CU_ASSERT_TRUE(after < before);
        CU_ASSERT_TRUE(after < 34000000);
        CU_ASSERT_TRUE(before > 47000000);
    }
    /* written: the scenario and the scaled profiles load and predict the
       same step as the advice */
    HS_ASSERT_I64_EQ(hs_advise_write(s, NULL, r, NULL, path, &e), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_scenario_load(path, &w, &e), HS_OK);
    HS_ASSERT_I64_EQ(w->types[0].batch, 32);
    HS_ASSERT_I64_EQ(w->types[1].batch, 16);
    HS_ASSERT_I64_EQ(w->types[0].profile.t_fwd.mean_ns, 16000000);
    HS_ASSERT_I64_EQ(w->types[1].profile.t_fwd.mean_ns, 16000000);
    HS_ASSERT_I64_EQ(hs_closed_predict(w, &p, &e), HS_OK);
    HS_ASSERT_I64_EQ(p->step_ns,
                     r->cands[1].fig.est[HS_PREDICTOR_SOURCE].step_ns);
    HS_ASSERT_I64_EQ(p->epoch_ns,
                     r->cands[1].fig.est[HS_PREDICTOR_SOURCE].epoch_ns);
    snprintf(ppath, sizeof ppath, "%.*s.fast.profile.yaml",
             (int)(strlen(path) - 5), path);
    CU_ASSERT_EQUAL(access(ppath, R_OK), 0);
    /* the scaled profiles are named relative to the written file, and its
       header says what they are */
    {
        char *text = hs_test_slurp(path);

        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        HS_ASSERT_STR_CONTAINS(text, "profile: \"advise-batch.fast."
                                     "profile.yaml\"");
        HS_ASSERT_STR_CONTAINS(text, "scaled to its new batch, not "
                                     "measured at it");
        HS_ASSERT_STR_CONTAINS(text, "fast: batch 24 -> 32, profile "
                                     "advise-batch.fast.profile.yaml (linear "
                                     "from one profile at batch 24)");
        CU_ASSERT_PTR_NULL(strstr(text, "the measured ones:"));
        free(text);
    }
    hs_prediction_free(p);
    hs_scenario_free(w);
    /* a memory limit of 24 on the fast type: 2x24 + 2b = 96, b = 24 */
    hs_advise_batch_free(r);
    {
        uint64_t maxb[2] = {24, 0};

        HS_ASSERT_I64_EQ(hs_advise_batch(s, NULL, 0, maxb, 0, &r, &e), HS_OK);
        HS_ASSERT_I64_EQ(r->cands[1].batch[0], 24);
        HS_ASSERT_I64_EQ(r->cands[1].batch[1], 24);
        /* the given batches: no better configuration found, nothing
           written; judged by the extended form (no replay) */
        HS_ASSERT_I64_EQ(r->outcome, HS_ADVISE_NONE);
        HS_ASSERT_I64_EQ(r->chosen, 0);
        HS_ASSERT_I64_EQ(r->batch_after[0], 24);
        HS_ASSERT_I64_EQ(r->batch_after[1], 24);
        HS_ASSERT_I64_EQ(r->cands[0].fig.recommended, HS_PREDICTOR_EXTENDED);
        HS_ASSERT_I64_EQ(r->cands[0].fig.est[HS_PREDICTOR_REPLAY].step_ns,
                         -1);
        HS_ASSERT_STR_CONTAINS(r->cands[0].fig.why, "not asked for");
        unlink(path);
        HS_ASSERT_I64_EQ(hs_advise_write(s, NULL, r, NULL, path, &e),
                         HS_ERR_USAGE);
        HS_ASSERT_STR_CONTAINS(e.msg, "no better configuration found");
        CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
        hs_advise_batch_free(r);
    }
    /* a global batch the devices cannot take */
    HS_ASSERT_I64_EQ(hs_advise_batch(s, NULL, 3, NULL, 0, &r, &e),
                     HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(e.msg, "less than one sample per device");
    hs_scenario_free(s);
}

/* Gradient accumulation as a way to balance the types (issue 33): the
   fast type of batch4 holds 24 samples at once, so without micro-batches
   the advice stays at 24 / 24 (48 ms, the slow devices); with up to 2
   micro-batches it takes 32 = 2 x 16 (2 x 16 ms of compute) and the slow
   type 16 (32 ms): the replayed step falls to ~32 ms, and the written
   scenario (batch 32, micro_batches 2, the profile at 16) replays the
   step the advice reports. */
static void test_batch_micro_issue33(void)
{
    hs_scenario_t *s = load(batch4), *w = NULL;
    hs_advise_batch_t *r = NULL, *capped = NULL;
    hs_advise_fig_t fw;
    uint64_t maxb[2] = {24, 0};
    hs_error_t e;
    const char *path = hs_test_write_file("advise-micro.yaml", "x");
    const hs_advise_fig_t *fg, *fc;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_advise_batch_micro_x(s, NULL, 0, maxb, 1, 1, NULL,
                                             &capped, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(capped);
    HS_ASSERT_I64_EQ(capped->outcome, HS_ADVISE_NONE);
    HS_ASSERT_I64_EQ(capped->batch_after[0], 24);
    HS_ASSERT_I64_EQ(capped->micro_after[0], 1);
    HS_ASSERT_I64_EQ(hs_advise_batch_micro_x(s, NULL, 0, maxb, 2, 1, NULL,
                                             &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->max_micro, 2);
    CU_ASSERT_STRING_EQUAL(r->cands[1].label, "searched");
    HS_ASSERT_I64_EQ(r->cands[1].batch[0], 32);
    HS_ASSERT_I64_EQ(r->cands[1].micro[0], 2);
    HS_ASSERT_I64_EQ(r->cands[1].batch[1], 16);
    HS_ASSERT_I64_EQ(r->cands[1].micro[1], 1);
    HS_ASSERT_I64_EQ(r->outcome, HS_ADVISE_IMPROVED);
    HS_ASSERT_I64_EQ(r->batch_after[0], 32);
    HS_ASSERT_I64_EQ(r->micro_after[0], 2);
    HS_ASSERT_I64_EQ(r->micro_before[0], 1);
    /* every candidate's per-step batch is whole micro-batches within the
       memory limit */
    {
        size_t k;

        for (k = 0; k < r->n_cands; k++) {
            CU_ASSERT_EQUAL(r->cands[k].batch[0] % r->cands[k].micro[0], 0);
            CU_ASSERT_TRUE(r->cands[k].batch[0] / r->cands[k].micro[0] <=
                           24);
        }
    }
    /* replayed: lower than the capped advice's (the given 24 / 24) */
    fg = &capped->cands[capped->chosen].fig;
    fc = &r->cands[r->chosen].fig;
    CU_ASSERT_TRUE(fc->est[HS_PREDICTOR_REPLAY].step_ns > 0);
    CU_ASSERT_TRUE(fc->est[HS_PREDICTOR_REPLAY].step_ns <
                   fg->est[HS_PREDICTOR_REPLAY].step_ns);
    CU_ASSERT_TRUE(fc->est[HS_PREDICTOR_REPLAY].step_ns < 33000000);
    CU_ASSERT_TRUE(fg->est[HS_PREDICTOR_REPLAY].step_ns > 47000000);
    /* the search's figure: T_ext at 2 x 16 is the replay's step */
    HS_ASSERT_I64_EQ(fc->est[HS_PREDICTOR_EXTENDED].step_ns,
                     fc->est[HS_PREDICTOR_REPLAY].step_ns);
    /* written, loaded, replayed again: the step the advice reports */
    HS_ASSERT_I64_EQ(hs_advise_write(s, NULL, r, NULL, path, &e), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_scenario_load(path, &w, &e), HS_OK);
    HS_ASSERT_I64_EQ(w->types[0].batch, 32);
    HS_ASSERT_I64_EQ(w->types[0].micro_batches, 2);
    HS_ASSERT_I64_EQ(w->types[1].batch, 16);
    HS_ASSERT_I64_EQ(w->types[1].micro_batches, 1);
    /* the written profiles state the accumulation they are written for */
    HS_ASSERT_I64_EQ(w->types[0].profile.micro_batches, 2);
    HS_ASSERT_I64_EQ(w->types[1].profile.micro_batches, 0);
    /* the profile holds one micro-batch of 16: 12 ms x 16 / 24 */
    HS_ASSERT_I64_EQ(w->types[0].profile.t_fwd.mean_ns, 8000000);
    HS_ASSERT_I64_EQ(hs_advise_judge(w, NULL, 1, &fw, &e), HS_OK);
    HS_ASSERT_I64_EQ(fw.recommended, HS_PREDICTOR_REPLAY);
    HS_ASSERT_I64_EQ(fw.est[HS_PREDICTOR_REPLAY].step_ns,
                     fc->est[HS_PREDICTOR_REPLAY].step_ns);
    HS_ASSERT_I64_EQ(fw.est[HS_PREDICTOR_REPLAY].epoch_ns,
                     fc->est[HS_PREDICTOR_REPLAY].epoch_ns);
    {
        char *text = hs_test_slurp(path);

        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        HS_ASSERT_STR_CONTAINS(text, "fast: batch 24 -> 32 as 2 "
                                     "micro-batches of 16 (micro_batches "
                                     "1 -> 2)");
        free(text);
    }
    /* max_micro 1 is the plain advice, figure for figure */
    hs_advise_batch_free(r);
    HS_ASSERT_I64_EQ(hs_advise_batch(s, NULL, 0, maxb, 1, &r, &e), HS_OK);
    HS_ASSERT_I64_EQ(capped->n_cands, r->n_cands);
    {
        size_t k;

        for (k = 0; k < r->n_cands && k < capped->n_cands; k++) {
            CU_ASSERT_EQUAL(memcmp(capped->cands[k].batch, r->cands[k].batch,
                                   2 * sizeof *r->cands[k].batch), 0);
            HS_ASSERT_I64_EQ(
                capped->cands[k].fig.est[HS_PREDICTOR_REPLAY].step_ns,
                r->cands[k].fig.est[HS_PREDICTOR_REPLAY].step_ns);
        }
    }
    hs_scenario_free(w);
    hs_advise_batch_free(r);
    hs_advise_batch_free(capped);
    /* a given type that already accumulates: its profile is one
       micro-batch (24 of the batch 48 in 2), so 2 x 24 of the fast type
       already takes the slow type's 48 ms: the search keeps it */
    {
        static const char acc[] =
            "job: {model: x, dataset: {samples: 9600}}\n"
            "device_types:\n"
            "  - {name: fast, count: 2, batch: 48, micro_batches: 2,\n"
            "     profile: {t_fwd: 12ms, t_b1: 1us, t_bwd: 12ms,\n"
            "     allreduce_bytes: 1KB}}\n"
            "  - {name: slow, count: 2, batch: 24, profile: {t_fwd: 24ms,\n"
            "     t_b1: 1us, t_bwd: 24ms, allreduce_bytes: 1KB}}\n"
            "network: {default_bandwidth: 100Gbps, latency: 1us}\n"
            "simulate: {steps: 4, overlap: none}\n";
        hs_scenario_t *a = load(acc);

        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        HS_ASSERT_I64_EQ(hs_advise_batch_micro_x(a, NULL, 0, maxb, 3, 1,
                                                 NULL, &r, &e), HS_OK);
        HS_ASSERT_I64_EQ(r->micro_before[0], 2);
        HS_ASSERT_I64_EQ(r->cands[1].batch[0], 48);
        HS_ASSERT_I64_EQ(r->cands[1].micro[0], 2);
        HS_ASSERT_I64_EQ(r->cands[1].batch[1], 24);
        HS_ASSERT_I64_EQ(r->outcome, HS_ADVISE_NONE);
        HS_ASSERT_I64_EQ(
            r->cands[1].fig.est[HS_PREDICTOR_REPLAY].step_ns,
            r->cands[0].fig.est[HS_PREDICTOR_REPLAY].step_ns);
        hs_advise_batch_free(r);
        r = NULL;
        hs_scenario_free(a);
    }
    /* a limit over hetsim's is refused */
    HS_ASSERT_I64_EQ(hs_advise_batch_micro_x(s, NULL, 0, maxb, 70000, 0,
                                             NULL, &r, &e), HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(e.msg, "micro-batches per step");
    CU_ASSERT_PTR_NULL(r);
    hs_scenario_free(s);
}

/* The batch search follows the overlap the replay runs (issue 33).  Per
   sample: fast t_fwd 1/6 ms, t_bwd 1/2 ms; slow both 1/2 ms; T_ar = 6 x
   (10 MB / 3 GB/s) = 6 x 3.333333 ms; b_f + b_s = 48.  Overlap none:
   T_ext = fwd + bwd + T_ar, so 2/3 b_f = b_s: 28.8 / 19.2, the split
   29 / 19, whose T_ext (the fast devices': 29 x 2/3 ms + 19.999998 ms)
   is the replay's step.  Overlap patent: the ring hides
   the backward below b = 40, T_ext = fwd + 20 ms, so b_f / 6 = b_s / 2:
   36 / 12 -- under overlap none that split replays at 44 ms, no better
   than the given 24 / 24. */
static const char *batch_none =
    "job: {model: x, dataset: {samples: 9600}}\n"
    "device_types:\n"
    "  - {name: fast, count: 2, batch: 24, profile: {t_fwd: 4ms,\n"
    "     t_b1: 1us, t_bwd: 12ms, allreduce_bytes: 40MB}}\n"
    "  - {name: slow, count: 2, batch: 24, profile: {t_fwd: 12ms,\n"
    "     t_b1: 1us, t_bwd: 12ms, allreduce_bytes: 40MB}}\n"
    "network: {default_bandwidth: 3GB/s, latency: 0us}\n"
    "simulate: {steps: 4, overlap: none}\n";

static void test_batch_follows_overlap(void)
{
    hs_scenario_t *s = load(batch_none);
    hs_advise_batch_t *r = NULL;
    hs_replay_opts_t o;
    hs_error_t e;
    const hs_advise_fig_t *f;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_advise_batch(s, NULL, 0, NULL, 1, &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(r->cands[1].label, "searched");
    HS_ASSERT_I64_EQ(r->cands[1].batch[0], 29);
    HS_ASSERT_I64_EQ(r->cands[1].batch[1], 19);
    HS_ASSERT_I64_EQ(r->chosen, 1);
    f = &r->cands[1].fig;
    HS_ASSERT_I64_EQ(f->est[HS_PREDICTOR_EXTENDED].step_ns, 39333331);
    HS_ASSERT_I64_EQ(f->est[HS_PREDICTOR_REPLAY].step_ns,
                     f->est[HS_PREDICTOR_EXTENDED].step_ns);
    hs_advise_batch_free(r);
    /* the same scenario replayed under overlap patent */
    hs_replay_opts_from_scenario(s, &o);
    o.overlap = HS_OVERLAP_PATENT;
    HS_ASSERT_I64_EQ(hs_advise_batch(s, &o, 0, NULL, 1, &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->cands[1].batch[0], 36);
    HS_ASSERT_I64_EQ(r->cands[1].batch[1], 12);
    f = &r->cands[1].fig;
    HS_ASSERT_I64_EQ(f->est[HS_PREDICTOR_REPLAY].step_ns,
                     f->est[HS_PREDICTOR_EXTENDED].step_ns);
    hs_advise_batch_free(r);
    hs_scenario_free(s);
}

/* Brute force over every count vector: set the counts, resolve, predict. */
static void test_mix_brute_force(void)
{
    static const char mix[] =
        "job: {model: x, dataset: {samples: 20000}, epochs: 2}\n"
        "device_types:\n"
        "  - {name: a, count: 1, batch: 32, profile: {t_fwd: 30ms, "
        "t_b1: 1ms, t_dl: 5ms, allreduce_bytes: 40MB}}\n"
        "  - {name: b, count: 1, batch: 32, profile: {t_fwd: 12ms, "
        "t_b1: 1ms, allreduce_bytes: 40MB}}\n"
        "  - {name: c, count: 1, batch: 16, profile: {t_fwd: 20ms, "
        "t_b1: 1ms, allreduce_bytes: 40MB}}\n"
        "ring: grouped\n"
        "network: {default_bandwidth: 10Gbps, latency: 10us,\n"
        "          type_links: [[b, b, 50Gbps]]}\n"
        "simulate: {steps: 3}\n";
    hs_scenario_t *s = load(mix);
    hs_mixopt_type_t ty[3] = {{0, 4, 1.0}, {0, 3, 3.0}, {1, 3, 1.5}};
    int goal;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    for (goal = 0; goal < 2; goal++) {
        double budget = 0.05;
        int64_t deadline = 20000000000LL;   /* 20 s */
        hs_advise_mix_t *r = NULL;
        hs_error_t e;
        uint64_t c[3], best_c[3] = {0, 0, 0};
        int64_t best_t = INT64_MAX;
        double best_cost = 1e300;
        int found = 0;

        for (c[0] = 0; c[0] <= 4; c[0]++)
            for (c[1] = 0; c[1] <= 3; c[1]++)
                for (c[2] = 1; c[2] <= 3; c[2]++) {
                    hs_scenario_t *w = NULL;
                    hs_prediction_t *p = NULL;
                    char v[16];
                    double cost;
                    int64_t tot;
                    int ok;

                    CU_ASSERT_EQUAL_FATAL(hs_scenario_clone(s, &w, &e),
                                          HS_OK);
                    snprintf(v, sizeof v, "%llu", (unsigned long long)c[0]);
                    hs_scenario_set(w, "device_types.a.count", v, &e);
                    snprintf(v, sizeof v, "%llu", (unsigned long long)c[1]);
                    hs_scenario_set(w, "device_types.b.count", v, &e);
                    snprintf(v, sizeof v, "%llu", (unsigned long long)c[2]);
                    hs_scenario_set(w, "device_types.c.count", v, &e);
                    if (hs_scenario_resolve(w, &e) != HS_OK ||
                        hs_closed_predict(w, &p, &e) != HS_OK) {
                        hs_scenario_free(w);
                        continue;   /* one device makes no ring */
                    }
                    /* the advice's figure: the extended step's total */
                    tot = p->step_ext_ns * (int64_t)p->iters_per_epoch *
                          (int64_t)w->epochs;
                    cost = hs_mixopt_cost(3, ty, c, tot);
                    ok = goal == 0 ? cost <= budget : tot <= deadline;
                    if (ok && (!found ||
                               hs_mixopt_beats(goal == 0 ? HS_MIX_FASTEST
                                                         : HS_MIX_CHEAPEST,
                                               tot, cost, best_t,
                                               best_cost))) {
                        found = 1;
                        best_t = tot;
                        best_cost = cost;
                        memcpy(best_c, c, sizeof c);
                    }
                    hs_prediction_free(p);
                    hs_scenario_free(w);
                }
        CU_ASSERT_TRUE_FATAL(found);
        HS_ASSERT_I64_EQ(hs_advise_mix(s, NULL, ty,
                                       goal == 0 ? HS_MIX_FASTEST
                                                 : HS_MIX_CHEAPEST,
                                       budget, deadline, 1, &r, &e), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->search->top[0].total_ns, best_t);
        HS_ASSERT_I64_EQ(r->search->top[0].counts[0], best_c[0]);
        HS_ASSERT_I64_EQ(r->search->top[0].counts[1], best_c[1]);
        HS_ASSERT_I64_EQ(r->search->top[0].counts[2], best_c[2]);
        CU_ASSERT_TRUE(r->fig[0].est[HS_PREDICTOR_REPLAY].total_ns > 0);
        /* the search's figure is the extended form's total */
        HS_ASSERT_I64_EQ(r->fig[0].est[HS_PREDICTOR_EXTENDED].total_ns,
                         r->search->top[0].total_ns);
        printf("\n  goal %d: best a=%llu b=%llu c=%llu, %.3f s, cost %.4f; "
               "%llu of %llu mixes evaluated", goal,
               (unsigned long long)best_c[0], (unsigned long long)best_c[1],
               (unsigned long long)best_c[2], best_t / 1e9, best_cost,
               (unsigned long long)r->search->evaluated,
               (unsigned long long)r->search->visited);
        hs_advise_mix_free(r);
    }
    /* a budget no mix meets */
    {
        hs_advise_mix_t *r = NULL;
        hs_error_t e;

        HS_ASSERT_I64_EQ(hs_advise_mix(s, NULL, ty, HS_MIX_FASTEST, 1e-9, 0,
                                       0, &r, &e), HS_ERR_RANGE);
        CU_ASSERT_PTR_NULL(r);
        HS_ASSERT_STR_CONTAINS(e.msg, "no mix meets the budget");
    }
    hs_scenario_free(s);
}

/* Bad inputs: no bandwidth for a pair the search needs; a listed-devices
   scenario for a mix. */
static void test_bad_inputs(void)
{
    static const char nobw[] =
        "device_types:\n"
        "  - {name: g, count: 3, batch: 8, profile: {t_fwd: 1ms, t_b1: 1ms,\n"
        "     allreduce_bytes: 1MB}}\n"
        "network:\n"
        "  links: [[g-0, g-1, 1Gbps], [g-1, g-2, 1Gbps], [g-2, g-0, 1Gbps]]\n";
    hs_scenario_t *s = load(nobw);
    hs_advise_ring_t *r = NULL;
    hs_advise_mix_t *m = NULL;
    hs_mixopt_type_t ty[1] = {{0, 3, 1.0}};
    hs_error_t e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    /* the ring's own edges are given, the reverse pairs are found too
       (rows are both directions), so this one works ... */
    HS_ASSERT_I64_EQ(hs_advise_ring(s, NULL, 0, 0, &r, &e), HS_OK);
    hs_advise_ring_free(r);
    hs_scenario_free(s);
    /* ... and with a pair missing, the search names it */
    s = load("device_types:\n"
             "  - {name: g, count: 4, batch: 8, profile: {t_fwd: 1ms, "
             "t_b1: 1ms, allreduce_bytes: 1MB}}\n"
             "network:\n"
             "  links: [[g-0, g-1, 1Gbps], [g-1, g-2, 1Gbps], "
             "[g-2, g-3, 1Gbps], [g-3, g-0, 1Gbps]]\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_advise_ring(s, NULL, 0, 0, &r, &e), HS_ERR_NETWORK);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(e.msg, "g-0");
    HS_ASSERT_STR_CONTAINS(e.msg, "g-2");
    hs_scenario_free(s);
    s = load("job: {model: x, dataset: {samples: 100}}\n"
             "device_types:\n"
             "  - {name: g, batch: 8, profile: {t_fwd: 1ms, t_b1: 1ms, "
             "allreduce_bytes: 1MB}}\n"
             "devices: [{name: a, type: g}, {name: b, type: g}]\n"
             "network: {default_bandwidth: 1Gbps}\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_advise_mix(s, NULL, ty, HS_MIX_FASTEST, 10, 0, 0,
                                   &m, &e), HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(e.msg, "lists its devices");
    hs_scenario_free(s);
}

/* The rewrite: set values by key path, add missing keys, remove keys, and
   make relative paths absolute; the result loads as the set API says. */
static void test_rewrite(void)
{
    static const char in[] =
        "job: {model: {file: m.py}, dataset: {samples: 100}}\n"
        "device_types:\n"
        "  - name: a\n"
        "    count: 2\n"
        "    batch: 4\n"
        "    shard: 50\n"
        "    profile: {t_fwd: 1ms, t_b1: 1ms, allreduce_bytes: 1MB}\n"
        "network: {default_bandwidth: 1Gbps}\n";
    hs_rewrite_edit_t ed[] = {
        {"device_types.a.count", "3"},
        {"device_types.a.shard", NULL},
        {"network.latency", "7us"},
        {"ring", "[a-2, a-0, a-1]"},
        {"simulate.steps", "5"}};
    char *out = NULL;
    hs_scenario_t *s = NULL;
    hs_error_t e;

    HS_ASSERT_I64_EQ(hs_rewrite_yaml(in, strlen(in), "in.yaml", ed, 5,
                                     "/base", &out, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    HS_ASSERT_STR_CONTAINS(out, "/base/m.py");
    CU_ASSERT_PTR_NULL(strstr(out, "shard"));
    /* a.py is not there, so load without the model file: replace it */
    {
        hs_rewrite_edit_t ed2[] = {{"job.model", "x"}};
        char *out2 = NULL;

        HS_ASSERT_I64_EQ(hs_rewrite_yaml(out, strlen(out), "o.yaml", ed2, 1,
                                         NULL, &out2, &e), HS_OK);
        s = load(out2);
        free(out2);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(s->types[0].count, 3);
    HS_ASSERT_I64_EQ(s->types[0].shard, 0);
    HS_ASSERT_I64_EQ(s->latency_ns, 7000);
    HS_ASSERT_I64_EQ(s->sim_steps, 5);
    HS_ASSERT_I64_EQ(s->ring[0], 2);
    hs_scenario_free(s);
    free(out);
    /* a path through a list item that is not there */
    ed[0].key_path = "device_types.zz.count";
    HS_ASSERT_I64_EQ(hs_rewrite_yaml(in, strlen(in), "in.yaml", ed, 1, NULL,
                                     &out, &e), HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(e.msg, "no device_types item named 'zz'");
}

/* The rebased rewrite: the original's relative paths written relative to
   the new file's directory (a sibling, a child, the same), absolute ones
   kept, an edited value as given; the written file loads its profile
   from wherever it is read. */
static void test_rewrite_rebased(void)
{
    static const char in[] =
        "job: {model: {file: m.py}, dataset: {samples: 100}}\n"
        "device_types:\n"
        "  - {name: a, count: 2, batch: 4, profile: prof/a.yaml}\n"
        "  - {name: b, count: 2, batch: 4, profile: /abs/b.yaml}\n"
        "network: {default_bandwidth: 1Gbps}\n";
    static const char prof[] =
        "t_fwd: 3ms\nt_b1: 1ms\nallreduce_bytes: 1MB\n";
    const char *root = hs_test_tmpdir("rebase");
    char orig[1024], sib[1024], child[1024], path[1200], *text;
    hs_rewrite_edit_t ed[] = {{"device_types.b.profile", "\"b.yaml\""}};
    hs_scenario_t *s = NULL;
    hs_error_t e;

    snprintf(orig, sizeof orig, "%s/orig", root);
    snprintf(sib, sizeof sib, "%s/out", root);
    snprintf(child, sizeof child, "%s/orig/deep/er", root);
    CU_ASSERT_EQUAL_FATAL(mkdir(orig, 0755), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(sib, 0755), 0);
    snprintf(path, sizeof path, "%s/prof", orig);
    CU_ASSERT_EQUAL_FATAL(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/orig/deep", root);
    CU_ASSERT_EQUAL_FATAL(mkdir(path, 0755), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(child, 0755), 0);
    snprintf(path, sizeof path, "%s/prof/a.yaml", orig);
    CU_ASSERT_EQUAL_FATAL(hs_test_write(path, prof), 0);
    /* a sibling directory */
    snprintf(path, sizeof path, "%s/w.yaml", sib);
    HS_ASSERT_I64_EQ(hs_rewrite_file_rebased(in, strlen(in), "in.yaml", ed,
                                             1, orig, "# head", path, &e),
                     HS_OK);
    text = hs_test_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    HS_ASSERT_STR_CONTAINS(text, "file: ../orig/m.py");
    HS_ASSERT_STR_CONTAINS(text, "profile: ../orig/prof/a.yaml");
    HS_ASSERT_STR_CONTAINS(text, "profile: \"b.yaml\"");
    free(text);
    /* the profile a loads from the written file's place, whatever the
       current directory (b's is replaced: a profile that does not exist
       is not looked at until the scenario needs it) */
    {
        hs_rewrite_edit_t ed2[] = {
            {"device_types.b.profile", "{t_fwd: 1ms, t_b1: 1ms, "
                                       "allreduce_bytes: 1MB}"},
            {"job.model", "x"}};

        HS_ASSERT_I64_EQ(hs_rewrite_file_rebased(in, strlen(in), "in.yaml",
                                                 ed2, 2, orig, NULL, path,
                                                 &e), HS_OK);
        HS_ASSERT_I64_EQ(hs_scenario_load(path, &s, &e), HS_OK);
        if (s != NULL)
            HS_ASSERT_I64_EQ(s->types[0].profile.t_fwd.mean_ns, 3000000);
        hs_scenario_free(s);
    }
    /* a directory below the original's, and the original's own */
    snprintf(path, sizeof path, "%s/w.yaml", child);
    HS_ASSERT_I64_EQ(hs_rewrite_file_rebased(in, strlen(in), "in.yaml", ed,
                                             1, orig, NULL, path, &e),
                     HS_OK);
    text = hs_test_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    HS_ASSERT_STR_CONTAINS(text, "file: ../../m.py");
    HS_ASSERT_STR_CONTAINS(text, "profile: ../../prof/a.yaml");
    HS_ASSERT_STR_CONTAINS(text, "profile: \"b.yaml\"");
    free(text);
    snprintf(path, sizeof path, "%s/w.yaml", orig);
    HS_ASSERT_I64_EQ(hs_rewrite_file_rebased(in, strlen(in), "in.yaml", ed,
                                             1, orig, NULL, path, &e),
                     HS_OK);
    text = hs_test_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    HS_ASSERT_STR_CONTAINS(text, "file: m.py");
    HS_ASSERT_STR_CONTAINS(text, "profile: prof/a.yaml");
    free(text);
    /* absolute paths stay */
    {
        hs_rewrite_edit_t none[1];

        HS_ASSERT_I64_EQ(hs_rewrite_file_rebased(in, strlen(in), "in.yaml",
                                                 none, 0, orig, NULL, path,
                                                 &e), HS_OK);
        text = hs_test_slurp(path);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        HS_ASSERT_STR_CONTAINS(text, "profile: /abs/b.yaml");
        free(text);
    }
}

/* The command: JSON read back as data, the scenario it writes, and the
   exit statuses of bad calls. */
static void test_cli(void)
{
    hs_run_t r;
    char scen[1024], out[1024], ebuf[256];
    yajl_val root, v;
    const char *p_fmt[] = {"format", NULL};
    const char *p_ver[] = {"format_version", NULL};
    const char *p_rec[] = {"recommended", NULL};
    const char *p_outcome[] = {"outcome", NULL};
    const char *p_pred[] = {"predictor_recommended", NULL};
    const char *p_cands[] = {"candidates", NULL};
    const char *p_replay[] = {"step_replay_ns", NULL};
    const char *p_best[] = {"step_recommended_ns", NULL};
    const char *p_label[] = {"label", NULL};
    const char *p_jq[] = {"judged", "quantity", NULL};
    const char *p_jg[] = {"judged", "given_ns", NULL};
    const char *p_jr[] = {"judged", "recommended_ns", NULL};
    const char *p_written[] = {"scenario_written", NULL};
    hs_scenario_t *w = NULL;
    hs_answer_t *a = NULL;
    hs_error_t e;

    snprintf(scen, sizeof scen, "%s/scenarios/validate-divergent.yaml",
             HS_TEST_SRC);
    snprintf(out, sizeof out, "%s/advised-ring.yaml", hs_test_tmpdir("adv"));
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "advise", "ring", scen, "--json",
                                        "-o", out, NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    root = yajl_tree_parse(r.out, ebuf, sizeof ebuf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_STRING_EQUAL(YAJL_GET_STRING(yajl_tree_get(root, p_fmt,
                                                         yajl_t_string)),
                           "hetsim.advise.ring");
    HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(yajl_tree_get(root, p_ver,
                                                    yajl_t_number)), 2);
    v = yajl_tree_get(root, p_rec, yajl_t_string);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_STRING_EQUAL(YAJL_GET_STRING(v), "searched");
    CU_ASSERT_STRING_EQUAL(YAJL_GET_STRING(yajl_tree_get(root, p_outcome,
                                                         yajl_t_string)),
                           "improved");
    CU_ASSERT_STRING_EQUAL(YAJL_GET_STRING(yajl_tree_get(root, p_pred,
                                                         yajl_t_string)),
                           "replay");
    CU_ASSERT_STRING_EQUAL(YAJL_GET_STRING(yajl_tree_get(root, p_written,
                                                         yajl_t_string)),
                           out);
    v = yajl_tree_get(root, p_cands, yajl_t_array);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(v)->len, 4);
    {
        yajl_val given = YAJL_GET_ARRAY(v)->values[0];
        yajl_val best = YAJL_GET_ARRAY(v)->values[3];

        CU_ASSERT_STRING_EQUAL(
            YAJL_GET_STRING(yajl_tree_get(given, p_label, yajl_t_string)),
            "given");
        /* validate-divergent.yaml: the listing order replays at 1.420 s
           (its own comment); the searched order at the closed form's
           1.060 s; the replay is the recommended predictor */
        HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(yajl_tree_get(given, p_replay,
                                                        yajl_t_number)),
                         1420000000);
        HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(yajl_tree_get(best, p_replay,
                                                        yajl_t_number)),
                         1060000000);
        HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(yajl_tree_get(best, p_best,
                                                        yajl_t_number)),
                         1060000000);
    }
    /* judged by the epoch (the scenario has a data set): iterations x
       the replayed step */
    CU_ASSERT_STRING_EQUAL(YAJL_GET_STRING(yajl_tree_get(root, p_jq,
                                                         yajl_t_string)),
                           "epoch");
    CU_ASSERT_TRUE(YAJL_GET_INTEGER(yajl_tree_get(root, p_jr,
                                                  yajl_t_number)) <
                   YAJL_GET_INTEGER(yajl_tree_get(root, p_jg,
                                                  yajl_t_number)));
    HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(yajl_tree_get(root, p_jg,
                                                    yajl_t_number)) %
                         1420000000, 0);
    yajl_tree_free(root);
    hs_run_free(&r);
    /* the written scenario: the recommended predictor says what the
       advice said */
    CU_ASSERT_EQUAL_FATAL(hs_scenario_load(out, &w, &e), HS_OK);
    HS_ASSERT_I64_EQ(hs_answer_run(w, NULL, HS_ANSWER_REPLAY_AUTO, NULL, 0,
                                   &a, &e), HS_OK);
    HS_ASSERT_I64_EQ(a->recommended, HS_PREDICTOR_REPLAY);
    HS_ASSERT_I64_EQ(hs_answer_best(a)->step_ns, 1060000000);
    hs_answer_free(a);
    hs_scenario_free(w);
    /* no better configuration found: said, exit 0, nothing written */
    {
        const char *b4 = hs_test_write_file("advise-cli-batch4.yaml", batch4);
        char b4p[1024];

        snprintf(b4p, sizeof b4p, "%s", b4);
        snprintf(out, sizeof out, "%s/advised-none.yaml",
                 hs_test_tmpdir("adv"));
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "advise", "batch", b4p,
                                            "--max-batch", "fast=24", "-o",
                                            out, NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        HS_ASSERT_STR_CONTAINS(r.out, "no better configuration found");
        HS_ASSERT_STR_CONTAINS(r.out, "nothing written to");
        CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
        hs_run_free(&r);
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "advise", "batch", b4p,
                                            "--max-batch", "fast=24", "-o",
                                            out, "--json", NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        root = yajl_tree_parse(r.out, ebuf, sizeof ebuf);
        CU_ASSERT_PTR_NOT_NULL_FATAL(root);
        CU_ASSERT_STRING_EQUAL(YAJL_GET_STRING(yajl_tree_get(root, p_outcome,
                                                             yajl_t_string)),
                               "none");
        CU_ASSERT_TRUE(YAJL_IS_NULL(yajl_tree_get(root, p_rec, yajl_t_any)));
        CU_ASSERT_TRUE(YAJL_IS_NULL(yajl_tree_get(root, p_written,
                                                  yajl_t_any)));
        CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
        yajl_tree_free(root);
        hs_run_free(&r);
    }
    /* bad calls: exit 2 and a message */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "advise", "size", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "'size' is not a question");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "advise", "mix", "--budget", "5",
                                        NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "needs --price");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "advise", "mix", "--price",
                                        "MLU370=1", "--price", "A100=2",
                                        "--budget", "0.00001", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "no mix meets the budget");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "advise", "batch", "--max-batch",
                                        "H100=8", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "no device type of that name");
    hs_run_free(&r);
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("advise", NULL, NULL);

    CU_add_test(s, "ring: exact search = brute force over every order",
                test_ring_exact_is_brute_force);
    CU_add_test(s, "ring: heuristic never worse than given/grouped/"
                   "interleave", test_ring_heuristic);
    CU_add_test(s, "batch: hand-computed batches, written and reloaded",
                test_batch_by_hand);
    CU_add_test(s, "issue 33: batch: micro-batches lift the memory cap",
                test_batch_micro_issue33);
    CU_add_test(s, "issue 33: batch: the search follows the overlap",
                test_batch_follows_overlap);
    CU_add_test(s, "mix: same as a brute force over every count vector",
                test_mix_brute_force);
    CU_add_test(s, "bad inputs", test_bad_inputs);
    CU_add_test(s, "scenario rewrite by key path", test_rewrite);
    CU_add_test(s, "rewrite: relative paths rebased for the new file",
                test_rewrite_rebased);
    CU_add_test(s, "the command: JSON, written scenario, exit statuses",
                test_cli);
    return 0;
}

HS_TEST_MAIN(reg)
