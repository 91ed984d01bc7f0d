/*
 * test_batchpoints.c -- a type profiled at several batch sizes (issue 13,
 * question 2): the profile's batch_points read and written, the profile
 * at another batch (model/hs_profile.h) against hand-computed values, its
 * monotonicity, and `advise batch` with non-linear types.
 *
 * The interpolation profile used throughout: measured at b0 = 16 with
 * points at 8, 32, 64 (times in ms):
 *
 *   batch   t_fwd  t_b1  t_bwd  t_opt  t_dl
 *     8       6     1     20      1     -
 *    16      10     5     12      1     4      (the profile itself)
 *    32      16     9     24      1     -
 *    64      30    17     40      2     -
 *
 * t_bwd falls from 8 to 16 (noise): its running maximum is 20, 20, 24, 40.
 * t_dl is not known at the points: it keeps the linear model from 4 ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_advise.h"
#include "hs_closed.h"
#include "hs_profile.h"
#include "hs_scenario.h"
#include "hs_test.h"

#define MS 1000000LL

static const char interp_yaml[] =
    "t_dl: 4ms\n"
    "t_fwd: 10ms\n"
    "t_b1: 5ms\n"
    "t_bwd: 12ms\n"
    "t_opt: 1ms\n"
    "allreduce_bytes: 1MB\n"
    "batch_points:\n"
    "  - {batch: 8, t_fwd: 6ms, t_b1: 1ms, t_bwd: 20ms, t_opt: 1ms}\n"
    "  - {batch: 16, t_fwd: 10ms, t_b1: 5ms, t_bwd: 12ms, t_opt: 1ms}\n"
    "  - {batch: 32, t_fwd: 16ms, t_b1: 9ms, t_bwd: 24ms, t_opt: 1ms}\n"
    "  - {batch: 64, t_fwd: 30ms, t_b1: 17ms, t_bwd: 40ms,"
    " t_opt: {mean: 2ms, sd: 100us}}\n";

static int load_profile(const char *text, hs_profile_t *p, hs_error_t *e)
{
    const char *path = hs_test_write_file("bp.profile.yaml", text);

    memset(p, 0, sizeof *p);
    hs_error_clear(e);
    return hs_profile_load(path, p, e);
}

/* Read, written, read again: the same points; written twice: the same
   bytes; an old profile (one batch) written byte for byte as before. */
static void test_round_trip(void)
{
    const char *dir = hs_test_tmpdir("bp-rt");
    hs_profile_info_t info = {"X", NULL};
    hs_profile_t p, q;
    hs_error_t e;
    char a[1024], b[1024], ref[1024];
    char *ta, *tb;
    size_t k;

    CU_ASSERT_EQUAL_FATAL(load_profile(interp_yaml, &p, &e), HS_OK);
    HS_ASSERT_I64_EQ(p.n_points, 4);
    HS_ASSERT_I64_EQ(p.points[0].batch, 8);
    HS_ASSERT_I64_EQ(p.points[3].batch, 64);
    HS_ASSERT_I64_EQ(p.points[3].t_opt.sd_ns, 100000);
    CU_ASSERT_FALSE(p.points[2].t_dl.known);
    snprintf(a, sizeof a, "%s/a.yaml", dir);
    snprintf(b, sizeof b, "%s/b.yaml", dir);
    HS_ASSERT_I64_EQ(hs_profile_write(&p, a, &info, &e), HS_OK);
    memset(&q, 0, sizeof q);
    HS_ASSERT_I64_EQ(hs_profile_load(a, &q, &e), HS_OK);
    HS_ASSERT_I64_EQ(q.n_points, 4);
    for (k = 0; k < 4 && k < q.n_points; k++) {
        HS_ASSERT_I64_EQ(q.points[k].batch, p.points[k].batch);
        HS_ASSERT_I64_EQ(q.points[k].t_fwd.mean_ns, p.points[k].t_fwd.mean_ns);
        HS_ASSERT_I64_EQ(q.points[k].t_b1.mean_ns, p.points[k].t_b1.mean_ns);
        HS_ASSERT_I64_EQ(q.points[k].t_bwd.mean_ns, p.points[k].t_bwd.mean_ns);
        HS_ASSERT_I64_EQ(q.points[k].t_opt.mean_ns, p.points[k].t_opt.mean_ns);
        HS_ASSERT_I64_EQ(q.points[k].t_opt.sd_ns, p.points[k].t_opt.sd_ns);
        HS_ASSERT_I64_EQ(q.points[k].t_dl.known, p.points[k].t_dl.known);
    }
    HS_ASSERT_I64_EQ(hs_profile_write(&q, b, &info, &e), HS_OK);
    ta = hs_test_slurp(a);
    tb = hs_test_slurp(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ta);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tb);
    CU_ASSERT_STRING_EQUAL(ta, tb);
    HS_ASSERT_STR_CONTAINS(ta, "batch_points:\n- batch: 8\n");
    free(ta);
    free(tb);
    /* a deep copy carries its own points */
    hs_profile_clear(&q);
    CU_ASSERT_EQUAL_FATAL(hs_profile_copy(&q, &p), 0);
    CU_ASSERT_PTR_NOT_EQUAL(q.points, p.points);
    HS_ASSERT_I64_EQ(q.points[1].t_fwd.mean_ns, 10 * MS);
    hs_profile_clear(&q);
    hs_profile_clear(&p);
    /* the reference profile of one batch: read and written unchanged */
    snprintf(ref, sizeof ref,
             "%s/tests/data/profile/full-A100.expected.yaml", HS_TEST_SRC);
    memset(&p, 0, sizeof p);
    CU_ASSERT_EQUAL_FATAL(hs_profile_load(ref, &p, &e), HS_OK);
    HS_ASSERT_I64_EQ(p.n_points, 0);
    info.type = "A100";
    HS_ASSERT_I64_EQ(hs_profile_write(&p, a, &info, &e), HS_OK);
    ta = hs_test_slurp(a);
    tb = hs_test_slurp(ref);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ta);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tb);
    CU_ASSERT_STRING_EQUAL(ta, tb);
    CU_ASSERT_PTR_NULL(strstr(ta, "batch_points"));
    free(ta);
    free(tb);
    hs_profile_clear(&p);
}

/* The means of the interpolation profile (b0 = 16) at batch b. */
static void at(const hs_profile_t *p, uint64_t b, int64_t *m, hs_bscale_t *h)
{
    hs_profile_means_at_batch(p, 16, b, m, h);
}

static void test_interp_by_hand(void)
{
    hs_profile_t p, q;
    hs_error_t e;
    hs_bscale_t h;
    int64_t m[HS_PH_N];
    char line[300];

    CU_ASSERT_EQUAL_FATAL(load_profile(interp_yaml, &p, &e), HS_OK);
    /* at the points */
    at(&p, 8, m, &h);
    HS_ASSERT_I64_EQ(h.model, HS_BSCALE_POINTS);
    HS_ASSERT_I64_EQ(h.n_points, 4);
    HS_ASSERT_I64_EQ(h.extrapolated, 0);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 6 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_B1], 1 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_BWD], 20 * MS);
    at(&p, 16, m, &h);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 10 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_BWD], 20 * MS);     /* the running maximum */
    HS_ASSERT_I64_EQ(m[HS_PH_DL], 4 * MS);
    at(&p, 64, m, &h);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 30 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_OPT], 2 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_DL], 16 * MS);      /* linear: 4 ms x 64/16 */
    /* between */
    at(&p, 12, m, &h);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 8 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_B1], 3 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_BWD], 20 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_DL], 3 * MS);
    at(&p, 24, m, &h);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 13 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_BWD], 22 * MS);
    at(&p, 48, m, &h);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 23 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_B1], 13 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_BWD], 32 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_OPT], 1500000);
    /* above: the line through 32 and 64 */
    at(&p, 128, m, &h);
    HS_ASSERT_I64_EQ(h.extrapolated, 1);
    HS_ASSERT_DBL_NEAR(h.how_far, 2.0, 1e-12);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 58 * MS);     /* 30 + 64 x 14/32 */
    HS_ASSERT_I64_EQ(m[HS_PH_B1], 33 * MS);      /* 17 + 64 x 8/32 */
    HS_ASSERT_I64_EQ(m[HS_PH_BWD], 72 * MS);     /* 40 + 64 x 16/32 */
    HS_ASSERT_I64_EQ(m[HS_PH_OPT], 4 * MS);      /* 2 + 64 x 1/32 */
    hs_bscale_describe(&h, 16, 128, line, sizeof line);
    HS_ASSERT_STR_CONTAINS(line, "interpolated over 4 points (batch 8..64), "
                                 "extrapolated above 64 to 128 (2.00x the "
                                 "largest)");
    /* below: the line through 8 and 16, floored at b x the smallest
       per-sample time */
    at(&p, 4, m, &h);
    HS_ASSERT_I64_EQ(h.extrapolated, -1);
    HS_ASSERT_DBL_NEAR(h.how_far, 2.0, 1e-12);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 4 * MS);      /* 6 - 4 x 0.5 */
    HS_ASSERT_I64_EQ(m[HS_PH_BWD], 20 * MS);     /* flat: 20, 20 */
    /* t_b1: 1 - 4 x 0.5 < 0; floor 4 x min(1/8, 5/16, 9/32, 17/64) ms */
    HS_ASSERT_I64_EQ(m[HS_PH_B1], 500000);
    CU_ASSERT_TRUE(h.floored);
    at(&p, 6, m, &h);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 5 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_B1], 750000);      /* 0 < floor 0.75 ms */
    at(&p, 7, m, &h);
    HS_ASSERT_I64_EQ(m[HS_PH_B1], 875000);      /* 0.5 ms = floor 0.875 */
    CU_ASSERT_TRUE(h.floored);
    at(&p, 2, m, &h);
    /* t_b1: 1 - 6 x 0.5 < 0; floor 2 x min(1/8, 5/16, 9/32, 17/64) ms */
    HS_ASSERT_I64_EQ(m[HS_PH_B1], 250000);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 3 * MS);      /* 6 - 6 x 0.5 */
    HS_ASSERT_I64_EQ(m[HS_PH_BWD], 20 * MS);     /* flat: 20, 20 */
    CU_ASSERT_TRUE(h.floored);
    hs_bscale_describe(&h, 16, 2, line, sizeof line);
    HS_ASSERT_STR_CONTAINS(line, "extrapolated below 8 to 2 (1/4.00 of the "
                                 "smallest), floored");
    /* the whole profile at 48: sd and samples scaled by the phase's
       ratio */
    CU_ASSERT_EQUAL_FATAL(hs_profile_at_batch(&p, 16, 48, &q, &h), 0);
    HS_ASSERT_I64_EQ(q.t_fwd.mean_ns, 23 * MS);
    HS_ASSERT_I64_EQ(q.t_dl.mean_ns, 12 * MS);
    HS_ASSERT_I64_EQ(q.n_points, 4);
    hs_profile_clear(&q);
    hs_profile_clear(&p);
}

/* One batch: the linear model, to the last rounding of before. */
static void test_linear_one_point(void)
{
    static const char one[] =
        "t_dl: 3ms\nt_fwd: {mean: 12ms, sd: 1ms, samples: [11ms, 13ms]}\n"
        "t_b1: 1ms\nt_bwd: 12ms\nt_opt: 2ms\nallreduce_bytes: 1MB\n"
        "buckets: [{bytes: 1MB, ready: 6ms}]\n";
    /* a batch_points list with only the profile's own batch is one
       point too */
    static const char own[] =
        "t_fwd: 12ms\nt_b1: 1ms\nallreduce_bytes: 1MB\n"
        "batch_points: [{batch: 24, t_fwd: 99ms, t_b1: 1ms}]\n";
    hs_profile_t p, q;
    hs_error_t e;
    hs_bscale_t h;
    int64_t m[HS_PH_N];
    char line[200];

    CU_ASSERT_EQUAL_FATAL(load_profile(one, &p, &e), HS_OK);
    hs_profile_means_at_batch(&p, 24, 32, m, &h);
    HS_ASSERT_I64_EQ(h.model, HS_BSCALE_LINEAR);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 16 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_BWD], 16 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_DL], 4 * MS);
    HS_ASSERT_I64_EQ(m[HS_PH_OPT], 2 * MS);      /* unchanged */
    hs_profile_means_at_batch(&p, 24, 7, m, &h);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 3500000);
    hs_bscale_describe(&h, 24, 7, line, sizeof line);
    CU_ASSERT_STRING_EQUAL(line, "linear from one profile at batch 24");
    CU_ASSERT_EQUAL_FATAL(hs_profile_at_batch(&p, 24, 36, &q, &h), 0);
    HS_ASSERT_I64_EQ(q.t_fwd.mean_ns, 18 * MS);
    HS_ASSERT_I64_EQ(q.t_fwd.sd_ns, 1500000);
    HS_ASSERT_I64_EQ(q.t_fwd.samples_ns[1], 19500000);
    HS_ASSERT_I64_EQ(q.buckets[0].ready_ns, 9 * MS);
    HS_ASSERT_I64_EQ(q.t_opt.mean_ns, 2 * MS);
    hs_profile_clear(&q);
    hs_profile_clear(&p);
    CU_ASSERT_EQUAL_FATAL(load_profile(own, &p, &e), HS_OK);
    hs_profile_means_at_batch(&p, 24, 48, m, &h);
    HS_ASSERT_I64_EQ(h.model, HS_BSCALE_LINEAR);
    HS_ASSERT_I64_EQ(m[HS_PH_FWD], 24 * MS);     /* the profile wins */
    hs_profile_clear(&p);
}

/* Random points, noisy and not: every phase non-decreasing in b, and
   equal to the measured value at a point whose values already rise. */
static void test_monotone(void)
{
    unsigned seed = 12345;
    int trial;

    for (trial = 0; trial < 200; trial++) {
        hs_profile_t p;
        hs_batch_point_t pts[6];
        size_t n = 2 + (size_t)(trial % 5), k;
        uint64_t b0, b, bb = 0;
        int64_t prev[HS_PH_N], m[HS_PH_N];
        int ph, rising = trial % 2;
        int64_t last = 0;

        memset(&p, 0, sizeof p);
        memset(pts, 0, sizeof pts);
        for (k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            bb += 1 + (seed >> 16) % 40;
            pts[k].batch = bb;
            seed = seed * 1103515245u + 12345u;
            last = rising ? last + 1 + (int64_t)((seed >> 8) % 5000000)
                          : 1 + (int64_t)((seed >> 8) % 50000000);
            pts[k].t_fwd.known = pts[k].t_b1.known = pts[k].t_bwd.known = 1;
            pts[k].t_fwd.mean_ns = last;
            pts[k].t_b1.mean_ns = last / 3;
            pts[k].t_bwd.mean_ns = 2 * last;
        }
        /* the profile itself is the middle point */
        b0 = pts[n / 2].batch;
        p.t_fwd = pts[n / 2].t_fwd;
        p.t_b1 = pts[n / 2].t_b1;
        p.t_bwd = pts[n / 2].t_bwd;
        p.points = pts;
        p.n_points = n;
        hs_profile_means_at_batch(&p, b0, 1, prev, NULL);
        for (b = 2; b <= 2 * bb + 10; b++) {
            hs_profile_means_at_batch(&p, b0, b, m, NULL);
            for (ph = 0; ph < HS_PH_N; ph++)
                if (m[ph] < prev[ph]) {
                    fprintf(stderr, "\ntrial %d: phase %d falls at batch "
                            "%llu: %lld < %lld\n", trial, ph,
                            (unsigned long long)b, (long long)m[ph],
                            (long long)prev[ph]);
                    CU_FAIL("not monotone");
                    trial = 1000;
                    break;
                }
            memcpy(prev, m, sizeof m);
            for (k = 0; rising && k < n; k++)
                if (pts[k].batch == b)
                    HS_ASSERT_I64_EQ(m[HS_PH_FWD], pts[k].t_fwd.mean_ns);
        }
    }
}

/* Two types of 2 devices at batch 24 (global batch 96); the all-reduce
   is negligible (1 KB), so T(b) = t_fwd(b) + t_bwd(b).  slow: 48 ms at
   24, linear: T = 2b ms.  fast: 24 ms at 24; linear it is T = b ms (the
   advice 32 / 16, test_advise.c); measured at 8 and 48 too it is
   T = 12 + b/2 ms (a fixed 12 ms per step).  b_f + b_s = 48 and
   12 + b_f/2 = 2 b_s give b_f = 33.6: 34 / 14 (29 ms, 28 ms; 33 / 15 would
   be 28.5, 30 ms). */
static const char two_types[] =
    "job: {model: x, dataset: {samples: 9600}}\n"
    "device_types:\n"
    "  - {name: fast, count: 2, batch: 24, profile: {t_fwd: 12ms,\n"
    "     t_b1: 1us, t_bwd: 12ms, allreduce_bytes: 1KB%s}}\n"
    "  - {name: slow, count: 2, batch: 24, profile: {t_fwd: 24ms,\n"
    "     t_b1: 1us, t_bwd: 24ms, allreduce_bytes: 1KB}}\n"
    "network: {default_bandwidth: 100Gbps, latency: 1us}\n"
    "simulate: {steps: 4, overlap: none}\n";

static const char fast_points[] =
    ",\n     batch_points: [{batch: 8, t_fwd: 8ms, t_b1: 1us, t_bwd: 8ms},\n"
    "       {batch: 48, t_fwd: 18ms, t_b1: 1us, t_bwd: 18ms}]";

static hs_scenario_t *load_two(int with_points)
{
    char text[2048];
    hs_scenario_t *s = NULL;
    hs_error_t e;

    snprintf(text, sizeof text, two_types, with_points ? fast_points : "");
    if (hs_scenario_load_text(text, strlen(text), "t.yaml", NULL, &s, &e) !=
        HS_OK)
        fprintf(stderr, "\nload failed: %s\n", e.msg);
    return s;
}

static void test_advise_nonlinear(void)
{
    hs_scenario_t *lin = load_two(0), *pts = load_two(1), *w = NULL;
    hs_advise_batch_t *r = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t e;
    const char *path = hs_test_write_file("bp-advise.yaml", "x");
    hs_run_t run;

    CU_ASSERT_PTR_NOT_NULL_FATAL(lin);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pts);
    /* the linear model: 32 / 16 */
    HS_ASSERT_I64_EQ(hs_advise_batch(lin, NULL, 0, NULL, 0, &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->batch_after[0], 32);
    HS_ASSERT_I64_EQ(r->batch_after[1], 16);
    HS_ASSERT_STR_CONTAINS(r->scaling, "fast: linear from one profile at "
                                       "batch 24; slow: linear");
    CU_ASSERT_PTR_NULL(strstr(r->scaling, "Interpolated"));
    hs_advise_batch_free(r);
    /* interpolated: 34 / 14, the step 29 ms (plus the tiny all-reduce) */
    HS_ASSERT_I64_EQ(hs_advise_batch(pts, NULL, 0, NULL, 0, &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->global_batch, 96);
    HS_ASSERT_I64_EQ(r->batch_after[0], 34);
    HS_ASSERT_I64_EQ(r->batch_after[1], 14);
    HS_ASSERT_STR_CONTAINS(r->scaling, "fast: interpolated over 3 points "
                                       "(batch 8..48); slow: linear from "
                                       "one profile at batch 24");
    HS_ASSERT_STR_CONTAINS(r->scaling, "Interpolated: each phase");
    CU_ASSERT_PTR_NULL(strstr(r->scaling, "extrapolated"));
    /* fast at 34: 12 + 10 x 6/24 = 14.5 ms per phase */
    HS_ASSERT_I64_EQ(r->profile_after[0].t_fwd.mean_ns, 14500000);
    HS_ASSERT_I64_EQ(r->profile_after[0].t_bwd.mean_ns, 14500000);
    HS_ASSERT_I64_EQ(r->profile_after[1].t_fwd.mean_ns, 14 * MS);
    /* the closed form's step (forward, first backward operator and the
       all-reduce: the search balanced the whole backward) */
    {
        int64_t after = r->cands[r->chosen].fig.est[HS_PREDICTOR_SOURCE]
                            .step_ns;

        printf("\n  closed form after: %lld ns", (long long)after);
        CU_ASSERT_TRUE(after >= 14501000 && after < 14501000 + 100000);
    }
    /* written: loads, keeps the points, predicts the advice's step */
    HS_ASSERT_I64_EQ(hs_advise_write(pts, NULL, r, NULL, path, &e), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_scenario_load(path, &w, &e), HS_OK);
    HS_ASSERT_I64_EQ(w->types[0].batch, 34);
    HS_ASSERT_I64_EQ(w->types[0].profile.n_points, 2);
    HS_ASSERT_I64_EQ(hs_closed_predict(w, &p, &e), HS_OK);
    HS_ASSERT_I64_EQ(p->step_ns,
                     r->cands[r->chosen].fig.est[HS_PREDICTOR_SOURCE].step_ns);
    hs_prediction_free(p);
    hs_scenario_free(w);
    hs_advise_batch_free(r);
    /* a global batch beyond the points: 168 = 2 (b_f + b_s), b_f + b_s
       = 84, 12 + b_f/2 = 2 b_s: 62.4: 63 / 21 (43.5, 42 ms; 62 / 22 would
       be 43, 44); fast extrapolated from 48 */
    HS_ASSERT_I64_EQ(hs_advise_batch(pts, NULL, 168, NULL, 0, &r, &e),
                     HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->batch_after[0], 63);
    HS_ASSERT_I64_EQ(r->batch_after[1], 21);
    HS_ASSERT_STR_CONTAINS(r->scaling, "extrapolated above 48 to 63 (1.31x "
                                       "the largest)");
    hs_advise_batch_free(r);
    /* the command says it too */
    {
        char text[2048];
        const char *sp;

        snprintf(text, sizeof text, two_types, fast_points);
        sp = hs_test_write_file("bp-two.yaml", text);
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&run, "advise", "batch", sp,
                                            "--no-replay", NULL), 0);
        HS_ASSERT_I64_EQ(run.status, 0);
        HS_ASSERT_STR_CONTAINS(run.out, "scaling: fast: interpolated over 3 "
                                        "points");
        hs_run_free(&run);
    }
    hs_scenario_free(lin);
    hs_scenario_free(pts);
}

/* Bad batch_points: clear errors at file:line:col. */
static void test_bad_points(void)
{
    static const char head[] =
        "t_fwd: 10ms\nt_b1: 1ms\nallreduce_bytes: 1MB\nbatch_points:\n";
    static const struct {
        const char *list, *where, *what;
    } bad[] = {
        {"- {batch: 16, t_fwd: 10ms, t_b1: 1ms}\n"
         "- {batch: 8, t_fwd: 5ms, t_b1: 1ms}\n",
         ":6:11: ", "batch 8 comes after a larger one: the batches must be "
                    "strictly increasing"},
        {"- {batch: 16, t_fwd: 10ms, t_b1: 1ms}\n"
         "- {batch: 16, t_fwd: 5ms, t_b1: 1ms}\n",
         ":6:11: ", "batch_points[1]: batch 16 appears twice"},
        {"- {batch: 0, t_fwd: 10ms, t_b1: 1ms}\n", ":5:11: ",
         "batch_points[0].batch"},
        {"- {batch: 16, t_fwd: -5ms, t_b1: 1ms}\n", ":5:22: ",
         "batch_points[0].t_fwd"},
        {"- {batch: 16, t_fwd: 5ms}\n", ":5:3: ", "t_b1"},
        {"- {batch: 16, t_fwd: 5ms, t_b1: 1ms, t_xyz: 1ms}\n", ":5:",
         "t_xyz"},
        {"  {batch: 16}\n", ":5:3: ", "batch_points must be a list"},
    };
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        hs_profile_t p;
        hs_error_t e;
        hs_err_t rc;

        snprintf(text, sizeof text, "%s%s", head, bad[i].list);
        rc = load_profile(text, &p, &e);
        printf("\n  %s", e.msg);
        CU_ASSERT_NOT_EQUAL(rc, HS_OK);
        HS_ASSERT_STR_CONTAINS(e.msg, "bp.profile.yaml");
        HS_ASSERT_STR_CONTAINS(e.msg, bad[i].where);
        HS_ASSERT_STR_CONTAINS(e.msg, bad[i].what);
        CU_ASSERT_PTR_NULL(p.points);   /* cleared on failure */
    }
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("batch points", NULL, NULL);

    CU_add_test(s, "read, written, read: the same; one batch unchanged",
                test_round_trip);
    CU_add_test(s, "interpolation at, between and beyond the points",
                test_interp_by_hand);
    CU_add_test(s, "one point: the linear model as before",
                test_linear_one_point);
    CU_add_test(s, "every phase non-decreasing in the batch", test_monotone);
    CU_add_test(s, "advise batch: non-linear types, hand-computed",
                test_advise_nonlinear);
    CU_add_test(s, "bad batch_points: file:line:col", test_bad_points);
    return 0;
}

HS_TEST_MAIN(reg)
