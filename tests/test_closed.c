/* test_closed.c -- the closed form against hand-computed cases. */
#include <math.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_scenario.h"
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

static hs_prediction_t *predict(hs_scenario_t *s)
{
    hs_prediction_t *p = NULL;
    hs_error_t e;

    if (s == NULL || hs_closed_predict(s, &p, &e) != HS_OK)
        return NULL;
    return p;
}

/* N = 4, M = 8 MB, B = 1 GB/s, alpha = 10 us: per round 10 us + 2 MB/(1 GB/s)
   = 2.01 ms; 2(N-1) = 6 rounds: T_ar = 12.06 ms; T = 10 + 1 + 12.06 ms. */
static void test_homogeneous(void)
{
    hs_scenario_t *s = load(
        "device_types:\n"
        "  - {name: g, count: 4, batch: 32, shard: 320,\n"
        "     profile: {t_dl: 5ms, t_fwd: 10ms, t_b1: 1ms, "
        "allreduce_bytes: 8MB}}\n"
        "network: {default_bandwidth: 1GB/s, latency: 10us}\n");
    hs_prediction_t *p = predict(s);
    size_t i;

    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    for (i = 0; i < 4; i++) {
        HS_ASSERT_I64_EQ(p->dev[i].t_ar_ns, 12060000);
        HS_ASSERT_I64_EQ(p->dev[i].t_step_ns, 23060000);
        HS_ASSERT_I64_EQ(hs_closed_device_ns(s, (uint32_t)i), 23060000);
    }
    HS_ASSERT_I64_EQ(p->step_ns, 23060000);
    HS_ASSERT_I64_EQ(p->bottleneck_bound, HS_BOUND_DEVICE);
    HS_ASSERT_I64_EQ(p->iters_per_epoch, 10);     /* 320 / 32 */
    HS_ASSERT_I64_EQ(p->epoch_ns, 230600000);
    HS_ASSERT_I64_EQ(p->total_ns, 230600000);     /* 1 epoch */
    CU_ASSERT_FALSE(p->shards_unbalanced);
    hs_prediction_free(p);
    hs_scenario_free(s);
}

/* The source's figure 4: data loading (50 ms) is slower than the device's
   work (23.06 ms), so it sets the step. */
static void test_data_loading_bound(void)
{
    hs_scenario_t *s = load(
        "job: {epochs: 3}\n"
        "device_types:\n"
        "  - {name: g, count: 4, batch: 32, shard: 320,\n"
        "     profile: {t_dl: 50ms, t_fwd: 10ms, t_b1: 1ms, "
        "allreduce_bytes: 8MB}}\n"
        "network: {default_bandwidth: 1GB/s, latency: 10us}\n");
    hs_prediction_t *p = predict(s);

    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    HS_ASSERT_I64_EQ(p->step_ns, 50000000);
    HS_ASSERT_I64_EQ(p->bottleneck_bound, HS_BOUND_DATA);
    HS_ASSERT_I64_EQ(p->dev[0].t_dev_ns, 23060000);
    /* multi-epoch: 3 x 10 iterations x 50 ms */
    HS_ASSERT_I64_EQ(p->epoch_ns, 500000000);
    HS_ASSERT_I64_EQ(p->total_ns, 1500000000);
    hs_prediction_free(p);
    hs_scenario_free(s);
}

/* D measured on a sub-system of n = 4: M = D n / (2(n-1)) = 6 MB * 4/6 = 4 MB.
   In a ring of N = 4 at 1 GB/s: chunk 1 MB = 1 ms, 6 rounds = 6 ms. */
static void test_d_to_m(void)
{
    hs_scenario_t *s = load(
        "device_types:\n"
        "  - {name: g, count: 4, batch: 8,\n"
        "     profile: {subsystem_size: 4, t_fwd: 3ms, t_b1: 1ms, "
        "allreduce_bytes: 6MB}}\n"
        "network: {default_bandwidth: 1GB/s}\n");
    hs_prediction_t *p = predict(s);

    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    HS_ASSERT_DBL_NEAR(p->types[0].payload_bytes, 4e6, 1e-6);
    HS_ASSERT_I64_EQ(p->dev[0].t_ar_ns, 6000000);
    HS_ASSERT_I64_EQ(p->step_ns, 10000000);
    /* no data set and no shard: epoch unknown, said so */
    HS_ASSERT_I64_EQ(p->iters_per_epoch, 0);
    CU_ASSERT_TRUE(p->n_warnings >= 1);
    hs_prediction_free(p);
    hs_scenario_free(s);
}

/* Uneven shards: type a needs ceil(100/8) = 13 iterations, type b
   ceil(64/8) = 8: I = 13 and the report flags idle devices. */
static void test_uneven_shards(void)
{
    hs_scenario_t *s = load(
        "job: {epochs: 2, dataset: {samples: 328}}\n"
        "device_types:\n"
        "  - {name: a, count: 2, batch: 8, shard: 100,\n"
        "     profile: {t_fwd: 3ms, t_b1: 1ms, allreduce_bytes: 2MB}}\n"
        "  - {name: b, count: 2, batch: 8, shard: 64,\n"
        "     profile: {t_fwd: 5ms, t_b1: 1ms, allreduce_bytes: 2MB}}\n"
        "network: {default_bandwidth: 1GB/s}\n");
    hs_prediction_t *p = predict(s);
    int64_t t_ar = 6 * 500000; /* 2 MB / 4 = 0.5 MB per round */

    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    HS_ASSERT_I64_EQ(p->types[0].iters, 13);
    HS_ASSERT_I64_EQ(p->types[1].iters, 8);
    HS_ASSERT_I64_EQ(p->iters_per_epoch, 13);
    CU_ASSERT_TRUE(p->shards_unbalanced);
    HS_ASSERT_I64_EQ(p->step_ns, 5000000 + 1000000 + t_ar);
    HS_ASSERT_I64_EQ(p->epoch_ns, 13 * p->step_ns);
    HS_ASSERT_I64_EQ(p->total_ns, 2 * 13 * p->step_ns);
    HS_ASSERT_DBL_NEAR(p->shard_coverage, 1.0, 1e-12); /* 2*100+2*64 */
    hs_prediction_free(p);
    hs_scenario_free(s);
}

/* Shards derived from the data set by batch size, and shards in bytes. */
static void test_derived_and_byte_shards(void)
{
    hs_scenario_t *s = load(
        "job: {dataset: {samples: 1000}}\n"
        "device_types:\n"
        "  - {name: a, count: 2, batch: 8,\n"
        "     profile: {t_fwd: 3ms, t_b1: 1ms, allreduce_bytes: 2MB}}\n"
        "  - {name: b, count: 2, batch: 2,\n"
        "     profile: {t_fwd: 5ms, t_b1: 1ms, allreduce_bytes: 2MB}}\n"
        "network: {default_bandwidth: 1GB/s}\n");
    hs_prediction_t *p = predict(s);

    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    /* d_a = 1000 * 8 / 20 = 400 -> 50; d_b = 1000 * 2 / 20 = 100 -> 50 */
    HS_ASSERT_I64_EQ(p->types[0].shard_samples, 400);
    HS_ASSERT_I64_EQ(p->types[1].shard_samples, 100);
    HS_ASSERT_I64_EQ(p->iters_per_epoch, 50);
    CU_ASSERT_FALSE(p->shards_unbalanced);
    hs_prediction_free(p);
    hs_scenario_free(s);

    s = load("job: {dataset: {size: 4MB, sample_bytes: 1KB}}\n"
             "device_types:\n"
             "  - {name: a, count: 4, batch: 100, shard: 1MB,\n"
             "     profile: {t_fwd: 3ms, t_b1: 1ms, allreduce_bytes: 2MB}}\n"
             "network: {default_bandwidth: 1GB/s}\n");
    p = predict(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    HS_ASSERT_I64_EQ(p->types[0].shard_samples, 1000);
    HS_ASSERT_I64_EQ(p->iters_per_epoch, 10);
    HS_ASSERT_DBL_NEAR(p->shard_coverage, 1.0, 1e-12);
    hs_prediction_free(p);
    hs_scenario_free(s);
}

/* One slow link and per-device compute: the bottleneck device and link. */
static void test_bottleneck(void)
{
    hs_scenario_t *s = load(
        "device_types:\n"
        "  - {name: g, batch: 8,\n"
        "     profile: {t_fwd: 10ms, t_b1: 1ms, t_bwd: 30ms, t_opt: 2ms,\n"
        "               allreduce_bytes: 4MB}}\n"
        "devices:\n"
        "  - {name: d0, type: g, addr: 10.0.0.1}\n"
        "  - {name: d1, type: g, addr: 10.0.0.2, compute_scale: 2}\n"
        "  - {name: d2, type: g, addr: 10.0.0.3}\n"
        "  - {name: d3, type: g, addr: 10.0.0.4, extra_compute: 4ms}\n"
        "ring: [d0, d2, d1, d3]\n"
        "network:\n"
        "  default_bandwidth: 1GB/s\n"
        "  links: [[10.0.0.3, 10.0.0.2, 100MB/s]]\n");
    hs_prediction_t *p = predict(s);

    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    /* chunk = 1 MB: 1 ms at 1 GB/s, 10 ms at 100 MB/s; 6 rounds */
    HS_ASSERT_I64_EQ(p->dev[0].t_ar_ns, 6000000);
    HS_ASSERT_I64_EQ(p->dev[2].t_ar_ns, 60000000);   /* d2 -> d1 is slow */
    HS_ASSERT_I64_EQ(p->dev[1].t_fwd_ns, 20000000);  /* scaled x2 */
    HS_ASSERT_I64_EQ(p->dev[1].t_b1_ns, 2000000);
    HS_ASSERT_I64_EQ(p->dev[3].t_fwd_ns, 14000000);  /* +4 ms */
    HS_ASSERT_I64_EQ(p->dev[2].t_step_ns, 10000000 + 1000000 + 60000000);
    HS_ASSERT_I64_EQ(p->step_ns, 71000000);
    HS_ASSERT_I64_EQ(p->bottleneck_device, 2);
    HS_ASSERT_I64_EQ(p->bottleneck_link, 1);         /* ring pos of d2 */
    /* extended: d1: 20 + max(60, 2 + 6) + 4 = 84 ms is the largest */
    HS_ASSERT_I64_EQ(p->dev[1].t_ext_ns, 84000000);
    HS_ASSERT_I64_EQ(p->dev[2].t_ext_ns, 10000000 + 61000000 + 2000000);
    HS_ASSERT_I64_EQ(p->step_ext_ns, 84000000);
    hs_prediction_free(p);
    hs_scenario_free(s);
}

/* A type without a profile: predict says where it is declared. */
static void test_missing_profile(void)
{
    hs_scenario_t *s = load("device_types:\n"
                            "  - {name: g, count: 2, batch: 8}\n"
                            "network: {default_bandwidth: 1GB/s}\n");
    hs_prediction_t *p = NULL;
    hs_error_t e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_closed_predict(s, &p, &e), HS_ERR_SCHEMA);
    CU_ASSERT_PTR_NULL(p);
    HS_ASSERT_STR_CONTAINS(e.msg, "t.yaml:2:5: device type 'g' has no profile");
    hs_scenario_free(s);
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("closed form", NULL, NULL);

    CU_add_test(s, "homogeneous ring by hand", test_homogeneous);
    CU_add_test(s, "data-loading bound (figure 4), multi-epoch",
                test_data_loading_bound);
    CU_add_test(s, "D to M normalisation", test_d_to_m);
    CU_add_test(s, "uneven shards", test_uneven_shards);
    CU_add_test(s, "derived and byte shards", test_derived_and_byte_shards);
    CU_add_test(s, "bottleneck device and link", test_bottleneck);
    CU_add_test(s, "a type without a profile", test_missing_profile);
    return 0;
}

HS_TEST_MAIN(reg)
