/*
 * test_treefast.c -- the double binary tree all-reduce's max-plus fast
 * path (sim/hs_treefast.c) against the event engine.
 *
 * The event replay (hs_replay_run with engine = 1) is the reference: on
 * the shipped scenarios with nodes, and on random clusters of nodes of
 * equal and of different sizes (random node kinds and counts, device
 * types, intra-node and inter-node bandwidths and latencies, NICs,
 * kind-pair rows, compute scales, extra compute, stragglers, t_dl-bound
 * steps, the optimizer, chunks per tree; patent and none, rendezvous and
 * eager), every figure of hs_treefast_run must equal the replay's to the
 * nanosecond, and so must the number of events and the time of the last
 * one.  Also: what the predicate declines, that hs_replay_run picks the
 * fast path (for "auto" too where it picks the tree), and that the closed
 * form's one pass over the cluster (allreduce_all_ns) gives each device's
 * allreduce_ns past the 1,024 devices the tree was once held to.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_coll_auto.h"
#include "hs_coll_tree_shape.h"
#include "hs_collective.h"
#include "hs_treefast.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"
#include "fast_check.h"

static int n_compared;

/* The fast path under test, for the shared checks in fast_check.c. */
static fc_path_t path = {"tree", hs_treefast_supports, hs_treefast_run,
                         &n_compared, 1};

static int compare(hs_scenario_t *s, const char *what)
{
    return fc_compare(s, what, &path);
}

/* Every shipped scenario with nodes and profiles, as tree. */
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

static const char small_yaml[] =
    "name: d\n"
    "job: {model: x, dataset: {samples: 1000}}\n"
    "device_types:\n"
    "  - name: gpu\n"
    "    batch: 10\n"
    "    profile: {subsystem_size: 2, t_fwd: 1ms, t_b1: 1ms,\n"
    "              allreduce_bytes: 8MB}\n"
    "nodes:\n"
    "  kinds:\n"
    "    - {name: a, type: gpu, devices: 2, count: 3,\n"
    "       intra_bandwidth: 10GB/s}\n"
    "  inter_bandwidth: 1GB/s\n"
    "collective: tree\n";

static void test_declines(void)
{
    hs_scenario_t *s = NULL;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    char why[200];

    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(small_yaml,
                                                strlen(small_yaml), "d.yaml",
                                                NULL, &s, &err),
                          HS_OK);
    hs_replay_opts_from_scenario(s, &o);
    CU_ASSERT_TRUE(hs_treefast_supports(s, &o, hs_replay_collective(s, &o),
                                        why, sizeof why));
    o.stochastic = 1;
    CU_ASSERT_FALSE(hs_treefast_supports(s, &o, hs_replay_collective(s, &o),
                                         why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "stochastic");
    CU_ASSERT_EQUAL(hs_treefast_run(s, &o, &r, &err), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(err.msg, "stochastic");
    o.stochastic = 0;
    o.overlap = HS_OVERLAP_BUCKETS;
    CU_ASSERT_FALSE(hs_treefast_supports(s, &o, hs_replay_collective(s, &o),
                                         why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "buckets");
    o.overlap = HS_OVERLAP_PATENT;
    s->types[0].profile.comm_ns_per_byte = 0.5;
    CU_ASSERT_FALSE(hs_treefast_supports(s, &o, hs_replay_collective(s, &o),
                                         why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "own cost");
    s->types[0].profile.comm_ns_per_byte = 0;
    s->types[0].profile.t_hop_wait_ns = 1000;
    CU_ASSERT_FALSE(hs_treefast_supports(s, &o, hs_replay_collective(s, &o),
                                         why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "hop wait");
    s->types[0].profile.t_hop_wait_ns = 0;
    o.collective = "ring";
    CU_ASSERT_FALSE(hs_treefast_supports(s, &o, hs_replay_collective(s, &o),
                                         why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "tree");
    o.collective = "hierarchical";
    CU_ASSERT_FALSE(hs_treefast_supports(s, &o, hs_replay_collective(s, &o),
                                         NULL, 0));
    o.collective = "tree";
    o.steps = 0;
    CU_ASSERT_FALSE(hs_treefast_supports(s, &o, hs_replay_collective(s, &o),
                                         NULL, 0));
    hs_scenario_free(s);
}

/* "auto" where NCCL's model picks the tree (a small payload over many
   nodes): the replay takes the tree's fast path and reports "auto". */
static void test_auto(void)
{
    hs_scenario_t *s = NULL;
    hs_replay_opts_t o, eo;
    hs_replay_result_t *fast = NULL, *ref = NULL;
    hs_coll_choice_t ch;
    hs_error_t err;
    char yaml[2048];

    snprintf(yaml, sizeof yaml, "%s",
             "name: a\n"
             "job: {model: x, dataset: {samples: 1000}}\n"
             "device_types:\n"
             "  - {name: gpu, batch: 10,\n"
             "     profile: {t_fwd: 1ms, t_b1: 1ms, allreduce_bytes: 64KB}}\n"
             "nodes:\n"
             "  kinds:\n"
             "    - {name: n, type: gpu, devices: 4, count: 32,\n"
             "       intra_bandwidth: 100GB/s}\n"
             "  inter_bandwidth: 10GB/s\n"
             "collective: auto\n");
    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(yaml, strlen(yaml), "a.yaml",
                                                NULL, &s, &err),
                          HS_OK);
    hs_coll_auto_choose(s, &ch);
    CU_ASSERT_STRING_EQUAL(ch.chosen->name, "tree");
    hs_replay_opts_from_scenario(s, &o);
    CU_ASSERT_TRUE(hs_treefast_supports(s, &o, hs_replay_collective(s, &o),
                                        NULL, 0));
    eo = o;
    eo.engine = 1;
    CU_ASSERT_EQUAL(hs_replay_run(s, &o, NULL, 0, &fast, &err), HS_OK);
    CU_ASSERT_EQUAL(hs_replay_run(s, &eo, NULL, 0, &ref, &err), HS_OK);
    if (fast != NULL && ref != NULL) {
        CU_ASSERT_TRUE(fast->fast_path);
        CU_ASSERT_FALSE(ref->fast_path);
        CU_ASSERT_STRING_EQUAL(fast->collective, "auto");
        CU_ASSERT_TRUE(fc_same_results(ref, fast, "auto", FC_COLLECTIVE));
    }
    hs_replay_result_free(fast);
    hs_replay_result_free(ref);
    hs_scenario_free(s);
}

/* Past the 1,024 devices the tree was once held to (its closed form was
   asked device by device): 2,050 devices in 410 nodes of 5 load, the
   closed form's one pass gives every device what allreduce_ns gives it
   alone (a sample of them: each call is the whole schedule), the closed
   prediction takes those figures, and the fast path equals the engine. */
static void test_many_devices(void)
{
    const char *text =
        "name: big\n"
        "job: {model: x, dataset: {samples: 100000}}\n"
        "device_types:\n"
        "  - {name: gpu, batch: 10,\n"
        "     profile: {t_fwd: 1ms, t_b1: 1ms, allreduce_bytes: 1MB}}\n"
        "nodes:\n"
        "  kinds:\n"
        "    - {name: n, type: gpu, devices: 5, count: 400,\n"
        "       intra_bandwidth: 10GB/s}\n"
        "    - {name: m, type: gpu, devices: 3, count: 17,\n"
        "       intra_bandwidth: 7GB/s, intra_latency: 3us}\n"
        "  inter_bandwidth: 1GB/s\n"
        "  inter_latency: 5us\n"
        "collective: tree\n"
        "simulate: {steps: 2}\n";
    static const size_t probe[] = {0, 1, 4, 777, 1999, 2050};
    hs_scenario_t *s = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t err;
    int64_t *all;
    size_t i;

    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(text, strlen(text),
                                                "big.yaml", NULL, &s, &err),
                          HS_OK);
    HS_ASSERT_I64_EQ(s->n_devices, 2051);
    all = malloc(s->n_devices * sizeof *all);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hs_coll_tree.allreduce_all_ns);
    CU_ASSERT_EQUAL(hs_coll_tree.allreduce_all_ns(s, all, &err), HS_OK);
    for (i = 0; i < sizeof probe / sizeof probe[0]; i++) {
        CU_ASSERT(all[probe[i]] > 0 && all[probe[i]] < INT64_MAX);
        HS_ASSERT_I64_EQ(all[probe[i]],
                         hs_coll_tree.allreduce_ns(s, (uint32_t)probe[i]));
    }
    CU_ASSERT_EQUAL(hs_closed_predict(s, &p, &err), HS_OK);
    if (p != NULL)
        for (i = 0; i < s->n_devices; i++)
            HS_ASSERT_I64_EQ(p->dev[i].t_ar_ns, all[i]);
    s->overlap = HS_OVERLAP_NONE;
    compare(s, "2051 devices (none)");
    hs_prediction_free(p);
    free(all);
    hs_scenario_free(s);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("treefast", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "shipped scenarios with nodes", test_shipped) ==
            NULL ||
        CU_add_test(s, "random clusters of equal nodes",
                    test_random_equal) == NULL ||
        CU_add_test(s, "random clusters of unequal nodes",
                    test_random_unequal) == NULL ||
        CU_add_test(s, "what it declines", test_declines) == NULL ||
        CU_add_test(s, "auto on the tree", test_auto) == NULL ||
        CU_add_test(s, "past 1,024 devices", test_many_devices) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
