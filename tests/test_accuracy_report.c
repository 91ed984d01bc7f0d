/*
 * test_accuracy_report.c -- the accuracy benchmark's figures, computed from
 * results (issue 11): `bench/accuracy --report FILE --json OUT` on a fixture
 * of three cases whose errors, runs and host factors are chosen by hand,
 * and OUT's "summary" read as data against the figures worked out below.
 *
 * The fixture (ms; err = (predicted - measured) / measured):
 *   A  held:   profile factor 1.05; runs 100 (held, factor 1.02) and 130
 *              (flagged, 1.30); measured 100, all runs 115; recommended 104
 *   B  NOT:    its profile flagged (factor 1.20, no retry left); one run
 *              100 (held, 1.00); recommended 90
 *   C  held:   factors 1.00; runs 100 and 100 (both held); recommended 102
 * so
 *   all cases, recommended: |+0.04|, |-0.10|, |+0.02| -> MAPE 0.0533, worst 0.10
 *   held cases (A, C):      0.04, 0.02                -> MAPE 0.03, worst 0.04
 *   all runs:   A |104-115|/115 = 0.095652, B 0.10, C 0.02 -> 0.071884
 *   run vs run: C only (A has one held run, B one run): 0
 *   host-adjusted (diagnostic; the held runs' factors over the profile's):
 *              A 104 x 1.02/1.05 = 101.028571 -> 0.010286; B 90 x 1.00/1.20
 *              = 75 -> 0.25; C 0.02 -> MAPE 0.093429, worst 0.25
 * Needs only python3 (the report runs no testbed and no torch).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "hs_test.h"

#define ACCURACY HS_TEST_SRC "/bench/accuracy"

/* One case of the fixture: its name, recommended prediction (ms), the
   measured step (held runs' mean) and all runs' mean, the runs and their
   held flags, the profile's factor and whether it held, the runs'
   factors. */
static void put_case(FILE *f, const char *name, double rec_ms, double m_ms,
                     double all_ms, const char *runs, const char *held,
                     double fprof, int prof_held, const char *frun_json,
                     int last)
{
    double e = (rec_ms - m_ms) / m_ms;

    fprintf(f,
            "{\"case\": \"%s\", \"note\": \"fixture\", \"model\": \"mlp\","
            " \"n\": 2, \"ring\": [\"f0\", \"f1\"],"
            " \"ring_types\": [\"fast\", \"fast\"],"
            " \"types\": {\"fast\": {\"quota\": 0.5, \"batch\": 8,"
            " \"count\": 2}},"
            " \"closed_ns\": %.0f, \"closed_ext_ns\": null,"
            " \"replay_ns\": {\"recommended\": %.0f, \"buckets\": %.0f},"
            " \"err\": {\"closed\": %.6f, \"recommended\": %.9f,"
            " \"buckets\": %.9f},"
            " \"measured_ns\": %.0f, \"measured_all_ns\": %.0f,"
            " \"measured_runs_ns\": [%s], \"runs_held\": [%s],"
            " \"profile_held\": %s,"
            " \"profile_attempts\": [{\"phase\": \"profile0\","
            " \"flagged\": %s, \"wall_s\": 10}],"
            " \"monitor\": {\"profile0\": {\"factor\": %.2f,"
            " \"flagged\": %s, \"base_ns\": 260000, \"cpus\": {}}%s},"
            " \"profile\": {}, \"full_ranks\": {},"
            " \"profile_wall_s\": 10, \"profile_device_s\": 20,"
            " \"full_wall_s\": 30, \"full_device_s\": 60,"
            " \"measure_bw_s\": 2, \"iters\": 30, \"warmup\": 10}%s\n",
            name, m_ms * 0.7e6, rec_ms * 1e6, rec_ms * 1e6, -0.3, e, e,
            m_ms * 1e6, all_ms * 1e6, runs, held,
            prof_held ? "true" : "false", prof_held ? "false" : "true",
            fprof, fprof > 1.10 ? "true" : "false", frun_json,
            last ? "" : ",");
}

static double get(yajl_val root, const char *a, const char *b,
                  const char *c)
{
    const char *path[] = {"summary", a, b, c, NULL};
    yajl_val v;

    if (b == NULL)
        path[2] = NULL;
    else if (c == NULL)
        path[3] = NULL;
    v = yajl_tree_get(root, path, yajl_t_number);
    return v ? YAJL_GET_DOUBLE(v) : NAN;
}

/* `bench/accuracy --report fix --json out`, checked to exit 0; out's
   JSON tree (free with yajl_tree_free), or NULL (a failed assertion). */
static yajl_val run_report(const char *fix, const char *out)
{
    char *argv[6];

    argv[0] = ACCURACY;
    argv[1] = "--report";
    argv[2] = (char *)fix;
    argv[3] = "--json";
    argv[4] = (char *)out;
    argv[5] = NULL;
    return hs_test_run_json("accuracy report", argv, out);
}

static void test_report_summary(void)
{
    const char *dir = hs_test_tmpdir("accuracy-report");
    char fix[512], out[512];
    yajl_val root;
    FILE *f;

    snprintf(fix, sizeof fix, "%s/fixture.json", dir);
    snprintf(out, sizeof out, "%s/summary.json", dir);
    f = fopen(fix, "w");
    CU_ASSERT_FATAL(f != NULL);
    fprintf(f, "{\"header\": \"fixture\", \"results\": [\n");
    put_case(f, "A", 104, 100, 115, "100000000, 130000000", "true, false",
             1.05, 1,
             ", \"full0\": {\"factor\": 1.02, \"flagged\": false},"
             " \"full1\": {\"factor\": 1.30, \"flagged\": true}", 0);
    put_case(f, "B", 90, 100, 100, "100000000", "true", 1.20, 0,
             ", \"full0\": {\"factor\": 1.00, \"flagged\": false}", 0);
    put_case(f, "C", 102, 100, 100, "100000000, 100000000", "true, true",
             1.00, 1,
             ", \"full0\": {\"factor\": 1.00, \"flagged\": false},"
             " \"full1\": {\"factor\": 1.00, \"flagged\": false}", 1);
    fprintf(f, "]}\n");
    CU_ASSERT_FATAL(fclose(f) == 0);

    root = run_report(fix, out);
    CU_ASSERT_FATAL(root != NULL);

    HS_ASSERT_I64_EQ((long long)get(root, "cases", NULL, NULL), 3);
    HS_ASSERT_I64_EQ((long long)get(root, "monitored_cases", NULL, NULL), 3);
    HS_ASSERT_I64_EQ((long long)get(root, "held_cases", NULL, NULL), 2);
    /* every case */
    HS_ASSERT_I64_EQ((long long)get(root, "all", "recommended", "n"), 3);
    HS_ASSERT_DBL_NEAR(get(root, "all", "recommended", "mape"), 0.16 / 3,
                       1e-6);
    HS_ASSERT_DBL_NEAR(get(root, "all", "recommended", "worst"), 0.10, 1e-6);
    CU_ASSERT(get(root, "all", "recommended", "lo") <=
              get(root, "all", "recommended", "mape"));
    CU_ASSERT(get(root, "all", "recommended", "hi") >=
              get(root, "all", "recommended", "mape"));
    /* the cases that held: A and C */
    HS_ASSERT_I64_EQ((long long)get(root, "held", "recommended", "n"), 2);
    HS_ASSERT_DBL_NEAR(get(root, "held", "recommended", "mape"), 0.03, 1e-6);
    HS_ASSERT_DBL_NEAR(get(root, "held", "recommended", "worst"), 0.04,
                       1e-6);
    /* all runs, the flagged ones included */
    HS_ASSERT_DBL_NEAR(get(root, "all_runs_recommended", "mape", NULL),
                       (11.0 / 115 + 0.10 + 0.02) / 3, 1e-6);
    HS_ASSERT_DBL_NEAR(get(root, "all_runs_recommended", "worst", NULL),
                       0.10, 1e-6);
    /* the testbed's repeatability: C's two held runs only */
    HS_ASSERT_I64_EQ((long long)get(root, "run_vs_run", "n", NULL), 1);
    HS_ASSERT_DBL_NEAR(get(root, "run_vs_run", "mape", NULL), 0.0, 1e-9);
    /* the host-factor diagnostic */
    HS_ASSERT_DBL_NEAR(get(root, "host_adjusted_recommended", "mape", NULL),
                       (fabs(104 * 1.02 / 1.05 - 100) / 100 + 0.25 + 0.02) /
                           3,
                       1e-6);
    HS_ASSERT_DBL_NEAR(get(root, "host_adjusted_recommended", "worst", NULL),
                       0.25, 1e-6);
    yajl_tree_free(root);
}

/* Results from before the host monitor (no runs_held): no held figures,
   and every run counts. */
static void test_report_without_monitor(void)
{
    const char *dir = hs_test_tmpdir("accuracy-report-old");
    char fix[512], out[512];
    yajl_val root;
    const char *hp[] = {"summary", "held_cases", NULL};

    snprintf(fix, sizeof fix, "%s/old.json", dir);
    snprintf(out, sizeof out, "%s/summary.json", dir);
    CU_ASSERT_FATAL(hs_test_write(fix,
        "{\"header\": \"old\", \"results\": [{\"case\": \"X\", "
        "\"types\": {\"fast\": {\"quota\": 0.5, \"batch\": 8, \"count\": 2}},"
        " \"ring\": [\"f0\", \"f1\"], \"ring_types\": [\"fast\", \"fast\"],"
        " \"closed_ns\": 70000000, \"closed_ext_ns\": null,"
        " \"replay_ns\": {\"recommended\": 110000000},"
        " \"err\": {\"closed\": -0.3, \"recommended\": 0.1},"
        " \"measured_ns\": 100000000,"
        " \"measured_runs_ns\": [95000000, 105000000],"
        " \"profile\": {}, \"full_ranks\": {}, \"profile_wall_s\": 1,"
        " \"profile_device_s\": 2, \"full_wall_s\": 3, \"full_device_s\": 6,"
        " \"measure_bw_s\": 1, \"iters\": 30, \"warmup\": 10}]}\n") == 0);
    root = run_report(fix, out);
    CU_ASSERT_FATAL(root != NULL);
    CU_ASSERT(yajl_tree_get(root, hp, yajl_t_null) != NULL);
    HS_ASSERT_DBL_NEAR(get(root, "all", "recommended", "mape"), 0.1, 1e-9);
    /* both runs: each against the other, 10/105 and 10/95, averaged */
    HS_ASSERT_DBL_NEAR(get(root, "run_vs_run", "mape", NULL),
                       (10.0 / 105 + 10.0 / 95) / 2, 1e-9);
    yajl_tree_free(root);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("accuracy_report", NULL, NULL);

    if (s == NULL)
        return -1;
    CU_add_test(s, "summary figures from hand-made results",
                test_report_summary);
    CU_add_test(s, "results without the host monitor",
                test_report_without_monitor);
    return 0;
}

HS_TEST_MAIN(register_tests)
