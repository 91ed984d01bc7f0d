/*
 * test_replay_limits.c -- what a replay is refused for before it starts
 * (issue 15): the budgets (events, state memory) now also in validate, with
 * --force, through the one helper simulate uses; and the event engine's own
 * limits (2^40 events in a run, 2^24 - 1 pending), refused with the
 * estimate, the limit and the scenario keys that drive them, never with the
 * engine's internal error.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hs_engine.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"

static const char hs__big[] =
    "device_types:\n"
    "  - name: g\n"
    "    count: 100000\n"
    "    batch: 32\n"
    "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 100MB}\n"
    "network: {default_bandwidth: 25Gbps, latency: 10us}\n"
    "simulate: {steps: 10}\n";

static const char hs__small[] =
    "device_types:\n"
    "  - name: g\n"
    "    count: 2\n"
    "    batch: 32\n"
    "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 100MB}\n"
    "network: {default_bandwidth: 25Gbps, latency: 10us}\n";

/* validate refuses what simulate refuses, with the same message, and
   --force lifts it. */
static void test_validate_budget(void)
{
    char path[4096], want[4200];
    hs_run_t r, rs;

    snprintf(path, sizeof path, "%s",
             hs_test_write_file("limits-big.yaml", hs__big));
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate", path, NULL), 0);
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_STRING_EQUAL(r.out, "");
    snprintf(want, sizeof want, "%s:7:19: simulate.steps: replaying 10 "
             "steps of 100000 devices takes about 2e+11 events", path);
    HS_ASSERT_STR_CONTAINS(r.err, want);
    HS_ASSERT_STR_CONTAINS(r.err, "more than the budget of 4.29e+09");
    HS_ASSERT_STR_CONTAINS(r.err, "pass --force");
    /* the very message simulate prints */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&rs, "simulate", path, NULL), 0);
    CU_ASSERT_EQUAL(rs.status, 2);
    CU_ASSERT_STRING_EQUAL(r.err, rs.err);
    hs_run_free(&rs);
    hs_run_free(&r);
    /* the steps came from the option: the option is named */
    CU_ASSERT_EQUAL_FATAL(
        hs_run_hetsim(&r, "validate", path, "--steps", "3", "--json", NULL),
        0);
    CU_ASSERT_EQUAL(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "hetsim: --steps 3: replaying 3 steps of "
                                  "100000 devices takes about 6e+10 events");
    hs_run_free(&r);
    /* --force is an option of validate too; a small run passes with it
       and prints what it printed without it */
    snprintf(path, sizeof path, "%s",
             hs_test_write_file("limits-small.yaml", hs__small));
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate", path, NULL), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_EQUAL_FATAL(
        hs_run_hetsim(&rs, "validate", path, "--force", NULL), 0);
    CU_ASSERT_EQUAL(rs.status, 0);
    CU_ASSERT_STRING_EQUAL(r.out, rs.out);
    HS_ASSERT_STR_CONTAINS(rs.out, "cluster");
    hs_run_free(&rs);
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate", "--help", NULL), 0);
    HS_ASSERT_STR_CONTAINS(r.out, "--force");
    hs_run_free(&r);
}

/* 1024 devices and 10^7 steps: about 2^44 events, beyond the engine's
   2^40 (and beyond the budget: --force).  The replay is refused at once,
   with the estimate, the limit and the keys. */
static const char hs__many_events[] =
    "device_types:\n"
    "  - name: g\n"
    "    count: 1024\n"
    "    batch: 32\n"
    "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 1MB}\n"
    "network: {default_bandwidth: 25Gbps, latency: 10us}\n"
    "simulate: {steps: 10000000}\n";

static void test_engine_events_limit(void)
{
    char path[4096], want[4200];
    hs_scenario_t *s = NULL;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    hs_run_t run;
    time_t t0;

    CU_ASSERT_EQUAL_FATAL(
        hs_scenario_load_text(hs__many_events, strlen(hs__many_events),
                              "many.yaml", NULL, &s, &err),
        HS_OK);
    hs_replay_opts_from_scenario(s, &o);
    o.engine = 1;       /* the event engine, not the fast path */
    o.force = 1;        /* past the budgets, as --force: the engine's own
                           limit is what refuses it */
    hs_error_clear(&err);
    t0 = time(NULL);
    CU_ASSERT_EQUAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_ERR_RANGE);
    CU_ASSERT(time(NULL) - t0 < 5);     /* refused, not run */
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_EQUAL(err.code, HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(err.msg, "many.yaml:7:19: simulate.steps: "
                                    "replaying 10000000 steps of 1024 "
                                    "devices");
    HS_ASSERT_STR_CONTAINS(err.msg, "device_types[].count");
    HS_ASSERT_STR_CONTAINS(err.msg, "up to 2.1e+13 events");
    HS_ASSERT_STR_CONTAINS(err.msg, "limit of 2^40 = 1.1e+12");
    CU_ASSERT_PTR_NULL(strstr(err.msg, "event engine:"));
    /* fewer steps pass, and the bound holds what the engine counted */
    o.steps = 4;
    hs_error_clear(&err);
    CU_ASSERT_EQUAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_OK);
    CU_ASSERT(r != NULL && r->n_events > 0 &&
              r->n_events <= 4.0 * 1024 * (4 + 2047));
    hs_replay_result_free(r);
    r = NULL;
    hs_scenario_free(s);

    /* through the command line, with --force past the budget */
    snprintf(path, sizeof path, "%s",
             hs_test_write_file("limits-many.yaml", hs__many_events));
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&run, "simulate", path, "--force",
                                        "--engine", "events", NULL),
                          0);
    CU_ASSERT_EQUAL(run.status, 2);
    snprintf(want, sizeof want, "hetsim: %s:7:19: simulate.steps: "
             "replaying 10000000 steps", path);
    HS_ASSERT_STR_CONTAINS(run.err, want);
    HS_ASSERT_STR_CONTAINS(run.err, "2^40");
    CU_ASSERT_PTR_NULL(strstr(run.err, "event engine:"));
    hs_run_free(&run);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&run, "validate", path, "--force",
                                        "--engine", "events", "--steps",
                                        "5000000", NULL),
                          0);
    CU_ASSERT_EQUAL(run.status, 2);
    HS_ASSERT_STR_CONTAINS(run.err, "hetsim: --steps 5000000: replaying "
                                    "5000000 steps of 1024 devices");
    HS_ASSERT_STR_CONTAINS(run.err, "2^40");
    hs_run_free(&run);
}

/* 4096 devices in buckets mode with 4100 gradient buckets: about 2.8e11
   events (within 2^40) but up to 4096 x (4100 + 3 + 2) + 16 = 16.8 M
   pending, beyond the engine's 2^24 - 1. */
static void test_engine_capacity_limit(void)
{
    size_t nb = 4100, cap = 64 * nb + 1024, len = 0, b;
    char *y = malloc(cap);
    hs_scenario_t *s = NULL;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_error_t err;

    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    len += (size_t)snprintf(y + len, cap - len,
                            "device_types:\n"
                            "  - name: g\n"
                            "    count: 4096\n"
                            "    batch: 32\n"
                            "    profile:\n"
                            "      t_fwd: 10ms\n"
                            "      t_b1: 1ms\n"
                            "      t_bwd: 10ms\n"
                            "      allreduce_bytes: %zuKB\n"
                            "      buckets:\n",
                            nb);
    for (b = 0; b < nb; b++)
        len += (size_t)snprintf(y + len, cap - len,
                                "        - {bytes: 1KB, ready: %zuus}\n",
                                b + 1);
    len += (size_t)snprintf(y + len, cap - len,
                            "network: {default_bandwidth: 25Gbps, "
                            "latency: 10us}\n"
                            "simulate: {steps: 2, overlap: buckets}\n");
    CU_ASSERT_FATAL(len < cap);
    hs_error_clear(&err);
    if (hs_scenario_load_text(y, len, "buckets.yaml", NULL, &s, &err) !=
        HS_OK)
        fprintf(stderr, "\nload: %s\n", err.msg);
    free(y);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hs_replay_opts_from_scenario(s, &o);
    o.engine = 1;
    o.force = 1;        /* past the budgets, as --force */
    hs_error_clear(&err);
    CU_ASSERT_EQUAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(err.msg, "buckets.yaml: device_types: replaying "
                                    "4096 devices (device_types[].count) "
                                    "with 4100 gradient buckets on 1 "
                                    "streams keeps up to 16814096 events "
                                    "pending");
    HS_ASSERT_STR_CONTAINS(err.msg, "limit of 2^24 - 1 = 16777215");
    CU_ASSERT_PTR_NULL(strstr(err.msg, "event queue capacity"));
    hs_scenario_free(s);
}

/* The engine states the limits the replay checks against, and enforces
   them itself (a model that does not check gets the engine's error). */
static int hs__noop(hs_engine_t *e, void *m, const hs_event_t *ev)
{
    (void)e, (void)m, (void)ev;
    return 0;
}

static void test_engine_states_limits(void)
{
    hs_handler_t h[1] = {hs__noop};
    hs_engine_t *e = NULL;
    hs_error_t err;

    CU_ASSERT_EQUAL(HS_ENGINE_MAX_EVENTS, UINT64_C(1) << 40);
    CU_ASSERT_EQUAL(HS_ENGINE_MAX_CAPACITY, (size_t)(1u << 24) - 1);
    CU_ASSERT_EQUAL(hs_engine_new(HS_ENGINE_MAX_CAPACITY + 1, h, 1, NULL, &e,
                                  &err),
                    HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(e);
}

static const char hs__long[] =
    "device_types:\n"
    "  - name: g\n"
    "    count: 200\n"
    "    batch: 32\n"
    "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 100MB}\n"
    "network: {default_bandwidth: 25Gbps, latency: 10us}\n"
    "simulate: {steps: 1000000}\n";

/* The library refuses a replay past the budgets unless the options force
   it, so sweep and advise (which replay through it) refuse it too, with
   the estimate and the key, and take --force. */
static void test_whatif_budget(void)
{
    char path[4096], want[4200];
    hs_scenario_t *s = NULL;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    hs_run_t run;

    snprintf(path, sizeof path, "%s",
             hs_test_write_file("limits-long.yaml", hs__long));
    CU_ASSERT_EQUAL_FATAL(hs_scenario_load(path, &s, &err), HS_OK);
    hs_replay_opts_from_scenario(s, &o);
    CU_ASSERT_EQUAL(o.force, 0);
    CU_ASSERT_EQUAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(r);
    snprintf(want, sizeof want, "%s:7:19: simulate.steps: replaying "
             "1000000 steps of 200 devices", path);
    HS_ASSERT_STR_CONTAINS(err.msg, want);
    HS_ASSERT_STR_CONTAINS(err.msg, "more than the budget of 4.29e+09");
    /* NULL options: the scenario's own, not forced */
    CU_ASSERT_EQUAL(hs_replay_run(s, NULL, NULL, 0, &r, &err), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(r);
    /* the same scenario at 3 steps replays */
    o.steps = 3;
    CU_ASSERT_EQUAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_OK);
    CU_ASSERT_PTR_NOT_NULL(r);
    hs_replay_result_free(r);
    hs_scenario_free(s);

    /* sweep --replay: refused, the estimate named; the closed form alone
       runs */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&run, "sweep", path, "--vary",
                                        "device_types.g.count=100,200",
                                        "--replay", "--json", NULL), 0);
    /* a sweep records a failed point in its error column and exits 1 */
    CU_ASSERT_EQUAL(run.status, 1);
    HS_ASSERT_STR_CONTAINS(run.out, "\"n_failed\": 2");
    HS_ASSERT_STR_CONTAINS(run.out, "simulate.steps: replaying 1000000 "
                                    "steps of 100 devices");
    HS_ASSERT_STR_CONTAINS(run.out, "pass --force");
    hs_run_free(&run);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&run, "sweep", path, "--vary",
                                        "device_types.g.count=100,200",
                                        "--json", NULL), 0);
    CU_ASSERT_EQUAL(run.status, 0);
    hs_run_free(&run);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&run, "sweep", "--help", NULL), 0);
    HS_ASSERT_STR_CONTAINS(run.out, "--force");
    hs_run_free(&run);
    /* advise: a replay past the answer budget judges no candidate; the
       extended closed form does, and the answer says why (with --force
       every candidate would be replayed) */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&run, "advise", "ring", path,
                                        "--json", NULL), 0);
    CU_ASSERT_EQUAL(run.status, 0);
    HS_ASSERT_STR_CONTAINS(run.out, "\"predictor_recommended\": "
                                    "\"extended\"");
    HS_ASSERT_STR_CONTAINS(run.out, "past the answer budget");
    HS_ASSERT_STR_CONTAINS(run.out, "\"step_replay_ns\": null");
    hs_run_free(&run);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&run, "advise", "ring", path,
                                        "--json", "--no-replay", NULL), 0);
    CU_ASSERT_EQUAL(run.status, 0);
    hs_run_free(&run);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&run, "advise", "--help", NULL), 0);
    HS_ASSERT_STR_CONTAINS(run.out, "--force");
    hs_run_free(&run);
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("replay limits", NULL, NULL);

    CU_add_test(s, "validate: budgets, the estimate, --force",
                test_validate_budget);
    CU_add_test(s, "the engine's 2^40 events refused before the replay",
                test_engine_events_limit);
    CU_add_test(s, "the engine's 2^24 - 1 pending refused before the replay",
                test_engine_capacity_limit);
    CU_add_test(s, "the engine states its limits", test_engine_states_limits);
    CU_add_test(s, "sweep and advise: the budgets through the library",
                test_whatif_budget);
    return 0;
}

HS_TEST_MAIN(reg)
