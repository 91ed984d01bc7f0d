/*
 * test_profile_micro.c -- `hetsim profile` with gradient accumulation, for
 * real (label live: PyTorch, two gloo ranks on this machine's CPU).
 *
 * One scenario, two device types of the same small MLP
 * (scenarios/models/mlp.py): `one` at batch 16 without accumulation, `two`
 * at batch 32 in micro_batches 2 (micro-batches of 16).  The harness runs
 * `two`'s steps as two micro-batches, DDP's no_sync() on the first, and
 * marks each in the trace; the ingestion gives one micro-batch's figures.
 * Checked as data:
 *   - every kept step of `two`'s traces has 2 micro-batches (the marks),
 *     `one`'s 1;
 *   - no_sync: `two`'s steps all-reduce as often as `one`'s (one call per
 *     gradient bucket, the same buckets), not twice as often;
 *   - the per-micro-batch forward of `two` is that of a batch of 16: within
 *     a factor 3 of `one`'s (the same work; a wide bound, the machine is
 *     shared), and the profile's source names the 2 micro-batches;
 *   - the written profile of `two` says micro_batches 2, `one`'s none;
 *   - the written scenario keeps `two`'s micro_batches 2 and predicts.
 * Skipped with a printed reason when python3 with torch is not installed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "hs_ingest.h"
#include "hs_profile.h"
#include "hs_scenario.h"
#include "hs_spawn.h"
#include "hs_test.h"
#include "profile_check.h"

/* The range of the number of gloo:all_reduce calls in the
   ProfilerStep#N windows of the trace at path, read as a JSON tree:
   *lo, *hi; both 0 when the trace has no window. */
static void hs__count_ar(const char *path, unsigned *lo, unsigned *hi)
{
    const char *k_ev[] = {"traceEvents", NULL}, *k_nm[] = {"name", NULL};
    const char *k_ts[] = {"ts", NULL}, *k_dur[] = {"dur", NULL};
    char *text = hs_test_slurp(path), eb[256];
    yajl_val root, evs;
    double ws[256], we[256];
    unsigned cnt[256] = {0};
    size_t n = 0, i, j;

    *lo = *hi = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    root = yajl_tree_parse(text, eb, sizeof eb);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    evs = yajl_tree_get(root, k_ev, yajl_t_array);
    CU_ASSERT_PTR_NOT_NULL_FATAL(evs);
    for (i = 0; i < YAJL_GET_ARRAY(evs)->len && n < 256; i++) {
        yajl_val e = YAJL_GET_ARRAY(evs)->values[i];
        const char *nm = YAJL_GET_STRING(yajl_tree_get(e, k_nm,
                                                       yajl_t_string));
        if (nm != NULL && strncmp(nm, "ProfilerStep#", 13) == 0) {
            ws[n] = YAJL_GET_DOUBLE(yajl_tree_get(e, k_ts, yajl_t_number));
            we[n] = ws[n] + YAJL_GET_DOUBLE(yajl_tree_get(e, k_dur,
                                                          yajl_t_number));
            n++;
        }
    }
    for (i = 0; i < YAJL_GET_ARRAY(evs)->len; i++) {
        yajl_val e = YAJL_GET_ARRAY(evs)->values[i];
        const char *nm = YAJL_GET_STRING(yajl_tree_get(e, k_nm,
                                                       yajl_t_string));
        double ts;

        if (nm == NULL || strcmp(nm, "gloo:all_reduce") != 0)
            continue;
        ts = YAJL_GET_DOUBLE(yajl_tree_get(e, k_ts, yajl_t_number));
        for (j = 0; j < n; j++)
            if (ts >= ws[j] && ts < we[j])
                cnt[j]++;
    }
    yajl_tree_free(root);
    for (j = 0; j < n; j++) {
        if (j == 0 || cnt[j] < *lo)
            *lo = cnt[j];
        if (cnt[j] > *hi)
            *hi = cnt[j];
    }
}

/* Type name's traces in outdir, ingested with the warm-up the harness
   already left out (0): the range of the micro-batch counts of the kept
   steps; the range of the all-reduce calls a step in the traces
   (*ar_lo, *ar_hi). */
static void hs__steps_of(const char *outdir, const char *name,
                         unsigned *mb_lo, unsigned *mb_hi, unsigned *ar_lo,
                         unsigned *ar_hi)
{
    hs_ingest_opts_t o;
    hs_ingest_t *ing;
    hs_error_t err;
    char path[4096];
    size_t r, j;

    *mb_lo = *ar_lo = 1000000;
    *mb_hi = *ar_hi = 0;
    hs_ingest_opts_default(&o);
    o.warmup = 0;
    ing = hs_ingest_new(&o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ing);
    for (r = 0; r < 2; r++) {
        unsigned lo, hi;

        snprintf(path, sizeof path, "%s/%s/rank%zu.json", outdir, name, r);
        HS_ASSERT_I64_EQ(hs_ingest_add_file(ing, path, &err), HS_OK);
        hs__count_ar(path, &lo, &hi);
        if (lo < *ar_lo)
            *ar_lo = lo;
        if (hi > *ar_hi)
            *ar_hi = hi;
    }
    for (r = 0; r < hs_ingest_n_files(ing); r++) {
        const hs_ingest_file_t *f = hs_ingest_file(ing, r);
        for (j = 0; j < f->n_steps; j++) {
            const hs_ingest_step_t *s = &f->steps[j];
            if (!s->kept)
                continue;
            if (s->micro_batches < *mb_lo)
                *mb_lo = s->micro_batches;
            if (s->micro_batches > *mb_hi)
                *mb_hi = s->micro_batches;
        }
    }
    hs_ingest_free(ing);
}

/* The scenario of the test in dir (its path in static storage). */
static const char *hs__scenario(const char *dir)
{
    static char path[4096];
    char text[2048];

    snprintf(text, sizeof text,
             "name: micro\n"
             "job:\n"
             "  model: {file: %s/scenarios/models/mlp.py, entry: "
             "build_model}\n"
             "  dataset: {samples: 60000, sample_bytes: 3136B}\n"
             "device_types:\n"
             "  - {name: one, count: 2, batch: 16, backend: gloo, "
             "env: {OMP_NUM_THREADS: \"1\"}}\n"
             "  - {name: two, count: 2, batch: 32, micro_batches: 2, "
             "backend: gloo, env: {OMP_NUM_THREADS: \"1\"}}\n"
             "devices:\n"
             "  - {name: a0, type: one, addr: 127.0.0.1}\n"
             "  - {name: a1, type: one, addr: 127.0.0.1}\n"
             "  - {name: b0, type: two, addr: 127.0.0.1}\n"
             "  - {name: b1, type: two, addr: 127.0.0.1}\n"
             "network: {default_bandwidth: 1Gbps, latency: 50us}\n"
             "profiling: {iterations: 14, warmup: 4, timeout: 180s, "
             "master_port: %d}\n",
             HS_TEST_SRC, 31000 + (int)(getpid() % 2000) * 4);
    snprintf(path, sizeof path, "%s/micro.yaml", dir);
    CU_ASSERT_EQUAL_FATAL(hs_test_write(path, text), 0);
    return path;
}

static void test_profile_micro_batches(void)
{
    const char *dir;
    char outdir[2048], path[4096];
    hs_profile_t p1, p2;
    hs_scenario_t *s = NULL;
    hs_error_t err;
    hs_run_t r;
    unsigned mb_lo, mb_hi, ar1_lo, ar1_hi, ar2_lo, ar2_hi;
    double ratio;

    if (pc_python("profile-micro") == NULL)
        return;
    dir = hs_test_tmpdir("profile-micro");
    snprintf(outdir, sizeof outdir, "%s/out", dir);
    pc_profile(&r, "profile", hs__scenario(dir), outdir, "--hop-trials", "0",
               NULL);
    hs_run_free(&r);

    hs__steps_of(outdir, "one", &mb_lo, &mb_hi, &ar1_lo, &ar1_hi);
    HS_ASSERT_I64_EQ(mb_lo, 1);
    HS_ASSERT_I64_EQ(mb_hi, 1);
    hs__steps_of(outdir, "two", &mb_lo, &mb_hi, &ar2_lo, &ar2_hi);
    HS_ASSERT_I64_EQ(mb_lo, 2);
    HS_ASSERT_I64_EQ(mb_hi, 2);
    /* no_sync: one all-reduce per bucket a step, as without accumulation */
    printf("\n  all-reduces a step: one %u..%u, two %u..%u", ar1_lo, ar1_hi,
           ar2_lo, ar2_hi);
    CU_ASSERT(ar1_lo >= 1);
    HS_ASSERT_I64_EQ(ar1_lo, ar1_hi);
    HS_ASSERT_I64_EQ(ar2_lo, ar1_lo);
    HS_ASSERT_I64_EQ(ar2_hi, ar1_hi);

    memset(&p1, 0, sizeof p1);
    memset(&p2, 0, sizeof p2);
    snprintf(path, sizeof path, "%s/one.profile.yaml", outdir);
    CU_ASSERT_EQUAL_FATAL(hs_profile_load(path, &p1, &err), HS_OK);
    snprintf(path, sizeof path, "%s/two.profile.yaml", outdir);
    CU_ASSERT_EQUAL_FATAL(hs_profile_load(path, &p2, &err), HS_OK);
    CU_ASSERT_FATAL(p1.t_fwd.mean_ns > 0 && p2.t_fwd.mean_ns > 0);
    ratio = (double)p2.t_fwd.mean_ns / (double)p1.t_fwd.mean_ns;
    printf("\n  t_fwd: one %.3f ms, two %.3f ms a micro-batch (ratio "
           "%.2f); t_b1 %.3f / %.3f ms; t_bwd %.3f / %.3f ms",
           p1.t_fwd.mean_ns / 1e6, p2.t_fwd.mean_ns / 1e6, ratio,
           p1.t_b1.mean_ns / 1e6, p2.t_b1.mean_ns / 1e6,
           p1.t_bwd.mean_ns / 1e6, p2.t_bwd.mean_ns / 1e6);
    CU_ASSERT(ratio > 1.0 / 3.0 && ratio < 3.0);
    HS_ASSERT_I64_EQ(p2.ar_bytes, p1.ar_bytes);
    HS_ASSERT_STR_CONTAINS(p2.source, "2 micro-batches a step");
    CU_ASSERT(strstr(p1.source, "micro-batches") == NULL);
    /* the profile states the accumulation it was measured with */
    HS_ASSERT_I64_EQ(p2.micro_batches, 2);
    HS_ASSERT_I64_EQ(p1.micro_batches, 0);
    hs_profile_clear(&p1);
    hs_profile_clear(&p2);

    /* the written scenario keeps the accumulation and predicts */
    snprintf(path, sizeof path, "%s/scenario.yaml", outdir);
    CU_ASSERT_EQUAL(hs_scenario_load(path, &s, &err), HS_OK);
    if (s != NULL) {
        HS_ASSERT_I64_EQ(s->types[0].micro_batches, 1);
        HS_ASSERT_I64_EQ(s->types[1].micro_batches, 2);
        hs_scenario_free(s);
    }
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", path, NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    hs_run_free(&r);
}

static int hs__register(void)
{
    CU_pSuite p = CU_add_suite("profile-micro-live", NULL, NULL);

    if (p == NULL ||
        CU_add_test(p, "2-rank gloo MLP, micro_batches 2: no_sync, "
                       "per-micro-batch figures",
                    test_profile_micro_batches) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(hs__register)
