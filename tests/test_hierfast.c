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
 * and so must the number of events and the time of the last one.  Every
 * run is also checked against hs_hierfast_run_rounds (the general
 * round-by-round loop, which nodes of one size skip across nodes), and so
 * are larger random clusters (up to 300 nodes) where the engine would be
 * slow.  Also: what the predicate declines, and that hs_replay_run picks
 * the fast path.
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

/* hs_hierfast_run, checked against hs_hierfast_run_rounds (every round
   through the general loop) on the same scenario and options; returns
   hs_hierfast_run's result. */
static hs_err_t run_checked(const hs_scenario_t *s, const hs_replay_opts_t *o,
                            hs_replay_result_t **out, hs_error_t *err)
{
    hs_replay_result_t *ref = NULL;
    hs_error_t rerr;
    hs_err_t rc = hs_hierfast_run(s, o, out, err);

    CU_ASSERT_EQUAL(hs_hierfast_run_rounds(s, o, &ref, &rerr), rc);
    if (rc == HS_OK && ref != NULL)
        CU_ASSERT_TRUE(fc_same_results(ref, *out, "against the rounds loop",
                                       FC_COLLECTIVE));
    hs_replay_result_free(ref);
    return rc;
}

/* The fast path under test, for the shared checks in fast_check.c. */
static fc_path_t path = {"hierarchical", hs_hierfast_supports, run_checked,
                         &n_compared, 0};

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

/* ---- larger random clusters against the round-by-round loop ---- */

/* A random cluster of K nodes as YAML: nodes of one size L (the rounds
   across nodes by arithmetic) unless `equal` is 0 (sizes 1..L: the
   general loop throughout); K = 1 has no rounds across nodes. */
static char *big_yaml(uint64_t *r, int equal, unsigned K, unsigned L)
{
    fc_buf_t b = {malloc(4096), 0, 4096};
    unsigned nk = (unsigned)fc_rnd(r, 1, 4), k, left;

    if (nk > K)
        nk = K;
    left = K;
    fc_put(&b, "name: big\ndevice_types:\n");
    for (k = 0; k < nk; k++)
        fc_put(&b, "  - name: t%u\n    batch: 8\n    profile: "
               "{subsystem_size: 2, t_fwd: %lluns, t_b1: %lluns,\n"
               "      t_bwd: %lluns, t_opt: %lluns, allreduce_bytes: "
               "%lluB}\n", k,
               (unsigned long long)fc_rnd(r, 0, 3000000),
               (unsigned long long)fc_rnd(r, 0, 300000),
               (unsigned long long)fc_rnd(r, 0, 6000000),
               (unsigned long long)fc_rnd(r, 0, 900000),
               (unsigned long long)fc_rnd(r, 1000, 400000000));
    fc_put(&b, "nodes:\n  kinds:\n");
    for (k = 0; k < nk; k++) {
        unsigned cnt = k + 1 == nk
                           ? left
                           : (unsigned)fc_rnd(r, 1, left - (nk - 1 - k));

        left -= cnt;
        fc_put(&b, "    - {name: k%u, type: t%u, devices: %u, count: %u,\n"
               "       intra_bandwidth: %lluB/s, intra_latency: %lluns",
               k, k, equal ? L : (unsigned)fc_rnd(r, 1, L), cnt,
               (unsigned long long)fc_rnd(r, 1000000000, 200000000000ULL),
               (unsigned long long)fc_rnd(r, 0, 9000));
        if (fc_rnd(r, 0, 1))
            fc_put(&b, ",\n       nics: %u, nic_bandwidth: %lluB/s",
                   (unsigned)fc_rnd(r, 1, 4),
                   (unsigned long long)fc_rnd(r, 100000000, 20000000000ULL));
        fc_put(&b, "}\n");
    }
    fc_put(&b, "  inter_bandwidth: %lluB/s\n  inter_latency: %lluns\n"
           "collective: hierarchical\nsimulate:\n  steps: %u\n",
           (unsigned long long)fc_rnd(r, 100000000, 40000000000ULL),
           (unsigned long long)fc_rnd(r, 0, 50000),
           (unsigned)fc_rnd(r, 2, 4));
    if (fc_rnd(r, 0, 1))
        fc_put(&b, "  stragglers:\n    - {device: k0-0-0, steps: [0, 1], "
               "factor: %.3f, extra: %lluns}\n",
               (double)fc_rnd(r, 500, 5000) / 1000.0,
               (unsigned long long)fc_rnd(r, 0, 20000000));
    return b.p;
}

/* Random clusters of up to 300 nodes (nodes of one size, of different
   sizes, a single node) under patent and none, rendezvous and eager:
   hs_hierfast_run equals hs_hierfast_run_rounds in every figure. */
static void test_random_big(void)
{
    uint64_t r = 0x2545F4914F6CDD1DULL;
    int i, j, runs = 0;

    for (i = 0; i < 60; i++) {
        int equal = i % 4 != 3;
        unsigned K = i % 10 == 9 ? 1 : (unsigned)fc_rnd(&r, 2, 300);
        unsigned L = (unsigned)fc_rnd(&r, K == 1 ? 2 : 1, 8);
        char *y = big_yaml(&r, equal, K, L), what[64];
        hs_scenario_t *s = NULL;
        hs_error_t err;

        if (hs_scenario_load_text(y, strlen(y), "big", NULL, &s, &err) !=
            HS_OK) {
            fprintf(stderr, "\nbig cluster %d: %s\n%s\n", i, err.msg, y);
            CU_FAIL("random scenario did not load");
            free(y);
            continue;
        }
        for (j = 0; j < 4; j++) {
            hs_replay_opts_t o;
            hs_replay_result_t *a = NULL, *b = NULL;

            s->overlap = j < 2 ? HS_OVERLAP_PATENT : HS_OVERLAP_NONE;
            s->send = j % 2 ? HS_SEND_EAGER : HS_SEND_RENDEZVOUS;
            hs_replay_opts_from_scenario(s, &o);
            snprintf(what, sizeof what, "big cluster %d, mode %d", i, j);
            CU_ASSERT_EQUAL(hs_hierfast_run(s, &o, &a, &err), HS_OK);
            CU_ASSERT_EQUAL(hs_hierfast_run_rounds(s, &o, &b, &err), HS_OK);
            if (a != NULL && b != NULL) {
                CU_ASSERT_TRUE(fc_same_results(b, a, what, FC_COLLECTIVE));
                runs++;
            }
            hs_replay_result_free(a);
            hs_replay_result_free(b);
        }
        hs_scenario_free(s);
        free(y);
    }
    printf("(%d runs) ", runs);
    CU_ASSERT_EQUAL(runs, 4 * 60);
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
        CU_add_test(s, "larger random clusters against the rounds loop",
                    test_random_big) == NULL ||
        CU_add_test(s, "what it declines", test_declines) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
