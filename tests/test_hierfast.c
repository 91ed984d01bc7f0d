/*
 * test_hierfast.c -- the hierarchical all-reduce's max-plus fast path
 * (sim/hs_hierfast.c) against the event engine.
 *
 * The event replay (hs_replay_run with engine = 1) is the reference: on
 * the shipped scenarios with nodes, and on random clusters of nodes of
 * equal and of different sizes (random node kinds and counts, device
 * types, intra-node and inter-node bandwidths and latencies, NICs,
 * kind-pair rows, compute scales, extra compute, stragglers, t_dl-bound
 * steps, the optimizer; patent and none, rendezvous and eager), every
 * figure of hs_hierfast_run must equal the replay's to the nanosecond,
 * and so must the number of events and the time of the last one.  Also:
 * what the predicate declines, and that hs_replay_run picks the fast path.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hs_hierfast.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"
#include "fast_check.h"

static int n_compared;

/* The fast path under test, for the shared checks in fast_check.c. */
static fc_path_t path = {"hierarchical", hs_hierfast_supports,
                          hs_hierfast_run, &n_compared, 0};

/* Every shipped scenario with nodes and profiles, as hierarchical. */
static void test_shipped(void)
{
    fc_test_shipped(&path);
}

/* ---- random clusters of nodes ---- */

static void test_random_equal(void)
{
    fc_random_clusters(&path, 0x9E3779B97F4A7C15ULL, 100, 1);
}

static void test_random_unequal(void)
{
    fc_random_clusters(&path, 0xD1B54A32D192ED03ULL, 150, 0);
}

static void test_declines(void)
{
    static const char yaml[] =
        "name: d\n"
        "device_types:\n"
        "  - name: gpu\n"
        "    batch: 10\n"
        "    profile: {subsystem_size: 2, t_fwd: 1ms, t_b1: 1ms,\n"
        "              allreduce_bytes: 8MB}\n"
        "nodes:\n"
        "  kinds:\n"
        "    - {name: a, type: gpu, devices: 2, count: 2,\n"
        "       intra_bandwidth: 10GB/s}\n"
        "  inter_bandwidth: 1GB/s\n"
        "collective: hierarchical\n";
    hs_scenario_t *s = NULL;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    char why[200];

    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(yaml, strlen(yaml), "d.yaml",
                                                NULL, &s, &err),
                          HS_OK);
    hs_replay_opts_from_scenario(s, &o);
    CU_ASSERT_TRUE(hs_hierfast_supports(s, &o, hs_replay_collective(s, &o),
                             why, sizeof why));
    o.stochastic = 1;
    CU_ASSERT_FALSE(hs_hierfast_supports(s, &o, hs_replay_collective(s, &o),
                             why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "stochastic");
    CU_ASSERT_EQUAL(hs_hierfast_run(s, &o, &r, &err), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(err.msg, "stochastic");
    o.stochastic = 0;
    o.overlap = HS_OVERLAP_BUCKETS;
    CU_ASSERT_FALSE(hs_hierfast_supports(s, &o, hs_replay_collective(s, &o),
                             why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "buckets");
    o.overlap = HS_OVERLAP_PATENT;
    s->types[0].profile.comm_ns_per_byte = 0.5;
    CU_ASSERT_FALSE(hs_hierfast_supports(s, &o, hs_replay_collective(s, &o),
                             why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "own cost");
    s->types[0].profile.comm_ns_per_byte = 0;
    o.collective = "ring";
    CU_ASSERT_FALSE(hs_hierfast_supports(s, &o, hs_replay_collective(s, &o),
                             why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "hierarchical");
    o.collective = "hierarchical";
    o.steps = 0;
    CU_ASSERT_FALSE(hs_hierfast_supports(s, &o, hs_replay_collective(s, &o),
                             NULL, 0));
    hs_scenario_free(s);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("hierfast", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "shipped scenarios with nodes", test_shipped) ==
            NULL ||
        CU_add_test(s, "random clusters of equal nodes",
                    test_random_equal) == NULL ||
        CU_add_test(s, "random clusters of unequal nodes",
                    test_random_unequal) == NULL ||
        CU_add_test(s, "what it declines", test_declines) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
