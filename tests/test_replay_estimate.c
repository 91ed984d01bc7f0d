/*
 * test_replay_estimate.c -- the replay's cost estimate
 * (hs_scenario_replay_estimate, hs_replay_check_budget) follows the
 * collective that runs.
 *
 * Reference: the events the replay counts (hs_replay_result_t.n_events,
 * the same on the event engine and on the exact fast paths).  On small
 * scenarios of each collective (ring, hierarchical over equal and unequal
 * nodes, tree, auto), patent and none, engine and fast path: the estimate
 * is an upper bound of the count, and its chunk term (steps x
 * hs_collective_chunks) is not above what was counted once the per-device
 * phase events are taken off (so it is the collective's own figure, not
 * the ring's 2(N-1) rounds per device).  And the 100,000-device tree of
 * scenarios/large/nodes-100k.yaml passes the budget that `simulate`
 * applies without --force (the ring still does not), and simulate replays
 * it with fewer events than the estimate; predict's answer budget for
 * the tree is its fast path's.
 */
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "hs_answer.h"
#include "hs_collective.h"
#include "hs_limits.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"

/* Nodes of 2, 2 and 3 devices (unequal: the hierarchical all-reduce's
   idle rounds), or of 2 x 3 (equal); collective set by %s. */
static const char fmt_yaml[] =
    "name: est\n"
    "job: {model: x, dataset: {samples: 1000}}\n"
    "device_types:\n"
    "  - name: gpu\n"
    "    batch: 10\n"
    "    profile: {subsystem_size: 2, t_dl: 1ms, t_fwd: 1ms, t_b1: 1ms,\n"
    "              t_opt: 1ms, allreduce_bytes: %s}\n"
    "nodes:\n"
    "  kinds:\n"
    "%s"
    "  inter_bandwidth: 1GB/s\n"
    "collective: %s\n";

static const char equal_kinds[] =
    "    - {name: a, type: gpu, devices: 2, count: 3,\n"
    "       intra_bandwidth: 10GB/s}\n";
static const char unequal_kinds[] =
    "    - {name: a, type: gpu, devices: 2, count: 2,\n"
    "       intra_bandwidth: 10GB/s}\n"
    "    - {name: b, type: gpu, devices: 3, count: 1,\n"
    "       intra_bandwidth: 10GB/s}\n";

/* Replays s (steps, overlap, engine) and checks the estimate against the
   events counted. */
static void check_one(const hs_scenario_t *s, uint32_t steps,
                      hs_overlap_t overlap, int engine, const char *what)
{
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    const hs_collective_t *c = NULL;
    double ev = 0, by = 0, chunk_ev, n = (double)s->n_devices;

    hs_replay_opts_from_scenario(s, &o);
    o.steps = steps;
    o.overlap = overlap;
    o.engine = engine;
    CU_ASSERT_EQUAL_FATAL(hs_collective_find(o.collective, &c, &err), HS_OK);
    hs_scenario_replay_estimate(s, steps, overlap, c, &ev, &by);
    if (hs_replay_run(s, &o, NULL, 0, &r, &err) != HS_OK) {
        fprintf(stderr, "\n%s: %s\n", what, err.msg);
        CU_FAIL("replay failed");
        return;
    }
    chunk_ev = (double)steps * hs_collective_chunks(c, s);
    /* counted: N initial loads, per step the chunks, per device 1 to 4
       phase events */
    if (!((double)r->n_events <= ev &&
          chunk_ev + n * (double)steps <= (double)r->n_events))
        fprintf(stderr, "\n%s (%s): counted %llu, estimate %.0f, chunks "
                        "%.0f\n", what, r->collective,
                (unsigned long long)r->n_events, ev, chunk_ev);
    CU_ASSERT((double)r->n_events <= ev);
    CU_ASSERT(chunk_ev + n * (double)steps <= (double)r->n_events);
    CU_ASSERT(chunk_ev + n + 4.0 * n * (double)steps >=
              (double)r->n_events);
    CU_ASSERT_EQUAL(r->fast_path, !engine && hs_replay_fast_supports(s, &o));
    hs_replay_result_free(r);
}

static void check_collective(const char *kinds, const char *bytes,
                             const char *coll)
{
    char yaml[2048], what[128];
    hs_scenario_t *s = NULL;
    hs_error_t err;
    int engine, ov;
    static const hs_overlap_t modes[] = {HS_OVERLAP_PATENT,
                                         HS_OVERLAP_NONE};

    snprintf(yaml, sizeof yaml, fmt_yaml, bytes, kinds, coll);
    if (hs_scenario_load_text(yaml, strlen(yaml), "est.yaml", NULL, &s,
                              &err) != HS_OK) {
        fprintf(stderr, "\n%s\n", err.msg);
        CU_FAIL_FATAL("scenario does not load");
    }
    for (ov = 0; ov < 2; ov++)
        for (engine = 0; engine < 2; engine++) {
            snprintf(what, sizeof what, "%s, %s, overlap %d, engine %d",
                     coll, bytes, ov, engine);
            check_one(s, 7, modes[ov], engine, what);
        }
    hs_scenario_free(s);
}

static void test_ring(void)
{
    check_collective(equal_kinds, "8MB", "ring");
    check_collective(unequal_kinds, "8MB", "ring");
}

static void test_hierarchical(void)
{
    check_collective(equal_kinds, "8MB", "hierarchical");
    check_collective(unequal_kinds, "8MB", "hierarchical");
}

static void test_tree(void)
{
    check_collective(equal_kinds, "8MB", "tree");
    check_collective(unequal_kinds, "8MB", "tree");
}

/* auto: the estimate of what it picks (small payloads: the tree where
   NCCL's model says so; large: the ring), resolved inside. */
static void test_auto(void)
{
    hs_scenario_t *s = NULL;
    hs_error_t err;
    char yaml[2048];
    const char *bytes[] = {"4KB", "400MB"};
    size_t i;

    for (i = 0; i < 2; i++) {
        double ev_auto, ev_run, by;
        const hs_collective_t *run;
        check_collective(unequal_kinds, bytes[i], "auto");
        snprintf(yaml, sizeof yaml, fmt_yaml, bytes[i], unequal_kinds,
                 "auto");
        CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(yaml, strlen(yaml),
                                                    "a.yaml", NULL, &s,
                                                    &err),
                              HS_OK);
        run = hs_collective_resolve(&hs_coll_auto, s);
        hs_scenario_replay_estimate(s, 10, HS_OVERLAP_PATENT, &hs_coll_auto,
                                    &ev_auto, &by);
        hs_scenario_replay_estimate(s, 10, HS_OVERLAP_PATENT, run, &ev_run,
                                    &by);
        CU_ASSERT_DOUBLE_EQUAL(ev_auto, ev_run, 0.0);
        hs_scenario_free(s);
    }
}

/* The shipped 100,000-device scenario with `collective:` replaced. */
static hs_scenario_t *load_100k(const char *coll, char **text_out)
{
    char *text = hs_test_slurp(HS_TEST_SRC "/scenarios/large/nodes-100k.yaml");
    char *at, *buf;
    hs_scenario_t *s = NULL;
    hs_error_t err;
    size_t len;

    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    at = strstr(text, "\ncollective: ring\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    len = strlen(text) + 64;
    buf = malloc(len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    snprintf(buf, len, "%.*s\ncollective: %s\n%s", (int)(at - text), text,
             coll, at + strlen("\ncollective: ring\n"));
    free(text);
    if (hs_scenario_load_text(buf, strlen(buf), "100k.yaml", NULL, &s,
                              &err) != HS_OK) {
        fprintf(stderr, "\n%s\n", err.msg);
        CU_FAIL_FATAL("100k scenario does not load");
    }
    *text_out = buf;
    return s;
}

/* The budget simulate applies without --force: the tree of 100,000
   devices fits; the hierarchical all-reduce (2N(K-1) chunks across 12,500
   nodes) and the ring do not, the hierarchical one's estimate below the
   ring's. */
static void test_budget_100k(void)
{
    static const char *const colls[] = {"tree", "hierarchical", "ring"};
    hs_replay_opts_t o;
    hs_error_t err;
    char *text;
    double ev[3], by;
    size_t i;

    for (i = 0; i < 3; i++) {
        hs_scenario_t *s = load_100k(colls[i], &text);
        const hs_collective_t *c = NULL;
        hs_replay_opts_from_scenario(s, &o);
        CU_ASSERT_EQUAL(o.force, 0);
        CU_ASSERT_EQUAL(hs_collective_find(o.collective, &c, &err), HS_OK);
        hs_scenario_replay_estimate(s, o.steps, o.overlap, c, &ev[i], &by);
        CU_ASSERT_EQUAL(hs_replay_check_budget(s, &o, &err),
                        i == 0 ? HS_OK : HS_ERR_RANGE);
        if (i > 0)
            HS_ASSERT_STR_CONTAINS(err.msg, colls[i]);
        hs_scenario_free(s);
        free(text);
    }
    CU_ASSERT(ev[0] < ev[1] && ev[1] < ev[2]);
}

/* `hetsim simulate` of the 100,000-device tree without --force: it runs,
   on the tree's fast path, with fewer events than estimated. */
static void test_simulate_tree_100k(void)
{
    char *text, errbuf[256];
    hs_scenario_t *s = load_100k("tree", &text);
    const char *path = hs_test_write_file("tree-100k.yaml", text);
    const char *ev_path[] = {"engine", "events", NULL};
    const char *p_path[] = {"engine", "path", NULL};
    double ev, by;
    hs_run_t r;
    yajl_val doc, v;
    hs_replay_opts_t o;

    hs_replay_opts_from_scenario(s, &o);
    hs_scenario_replay_estimate(s, o.steps, o.overlap, &hs_coll_tree, &ev,
                                &by);
    CU_ASSERT(ev < (double)HS_LIMIT_EVENTS);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", path, "--json", NULL),
                          0);
    CU_ASSERT_EQUAL(r.status, 0);
    doc = yajl_tree_parse(r.out, errbuf, sizeof errbuf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    v = yajl_tree_get(doc, ev_path, yajl_t_number);
    CU_ASSERT_PTR_NOT_NULL(v);
    if (v != NULL) {
        CU_ASSERT(YAJL_GET_DOUBLE(v) <= ev);
        CU_ASSERT(YAJL_GET_DOUBLE(v) >=
                  (double)o.steps * hs_collective_chunks(&hs_coll_tree, s));
    }
    v = yajl_tree_get(doc, p_path, yajl_t_string);
    CU_ASSERT_PTR_NOT_NULL(v);
    if (v != NULL)
        CU_ASSERT_STRING_EQUAL(v->u.string, "max-plus");
    yajl_tree_free(doc);
    hs_run_free(&r);
    hs_scenario_free(s);
    free(text);
}

/* The answer budget (predict's replay when it takes about a second) of
   the tree follows its fast path's rate (1e7 events a second): 2 steps of
   the 100,000-device tree fit, 10 do not; on the event engine the
   engine's budget. */
static void test_answer_budget_tree(void)
{
    static const struct {
        int engine;
        uint32_t steps;
        int fast;               /* hs_replay_fast_supports; -1: not asked */
        int fits;
        const char *why[2];     /* in the reason it does not fit */
    } cases[] = {
        {0, 2, 1, 1, {NULL, NULL}},
        {0, 10, -1, 0, {"max-plus fast path", "budget of 1e+07"}},
        {1, 2, 0, 1, {NULL, NULL}},
        {1, 20, -1, 0, {"event engine", NULL}},
    };
    char *text, why[512];
    hs_scenario_t *s = load_100k("tree", &text);
    hs_replay_opts_t o;
    size_t i, j;

    hs_replay_opts_from_scenario(s, &o);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        o.engine = cases[i].engine;
        o.steps = cases[i].steps;
        if (cases[i].fast >= 0)
            HS_ASSERT_I64_EQ(hs_replay_fast_supports(s, &o) != 0,
                             cases[i].fast);
        HS_ASSERT_I64_EQ(hs_answer_replay_fits(s, &o, why, sizeof why) != 0,
                         cases[i].fits);
        for (j = 0; j < 2 && cases[i].why[j] != NULL; j++)
            HS_ASSERT_STR_CONTAINS(why, cases[i].why[j]);
    }
    hs_scenario_free(s);
    free(text);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("replay_estimate", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "ring", test_ring) == NULL ||
        CU_add_test(s, "hierarchical", test_hierarchical) == NULL ||
        CU_add_test(s, "tree", test_tree) == NULL ||
        CU_add_test(s, "auto", test_auto) == NULL ||
        CU_add_test(s, "budget of 100k devices", test_budget_100k) == NULL ||
        CU_add_test(s, "simulate 100k tree without --force",
                    test_simulate_tree_100k) == NULL ||
        CU_add_test(s, "answer budget of the tree",
                    test_answer_budget_tree) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
