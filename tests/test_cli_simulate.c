/*
 * test_cli_simulate.c -- `hetsim simulate` and `hetsim validate` as a user
 * runs them: JSON output read back as data with yajl_tree, exit statuses,
 * trace files written or, on failure, not left behind.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "hs_test.h"

#define SC(name) HS_TEST_SRC "/scenarios/" name

static yajl_val parse(const char *text)
{
    char ebuf[256];
    yajl_val v;

    if (text == NULL)
        return NULL;
    v = yajl_tree_parse(text, ebuf, sizeof ebuf);
    if (v == NULL)
        fprintf(stderr, "\nJSON did not parse: %s\n", ebuf);
    return v;
}

static long long get_int(yajl_val root, const char *k1, const char *k2)
{
    const char *path[3] = {k1, k2, NULL};
    yajl_val v = yajl_tree_get(root, path, yajl_t_number);

    if (v == NULL || !YAJL_IS_INTEGER(v)) {
        fprintf(stderr, "\nno integer at %s%s%s\n", k1, k2 ? "." : "",
                k2 ? k2 : "");
        return -999;
    }
    return YAJL_GET_INTEGER(v);
}

static const char *get_str(yajl_val root, const char *k1)
{
    const char *path[2] = {k1, NULL};
    yajl_val v = yajl_tree_get(root, path, yajl_t_string);

    return v != NULL ? YAJL_GET_STRING(v) : "";
}

static yajl_val get_arr(yajl_val root, const char *k1)
{
    const char *path[2] = {k1, NULL};

    return yajl_tree_get(root, path, yajl_t_array);
}

static void test_simulate_json(void)
{
    hs_run_t r;
    yajl_val j, devs, steps, types;
    const char *name_path[2] = {"name", NULL};

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate",
                                        SC("validate-divergent.yaml"),
                                        "--json", "--per-device", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    j = parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    HS_ASSERT_I64_EQ(get_int(j, "n_devices", NULL), 4);
    HS_ASSERT_I64_EQ(get_int(j, "steps", NULL), 10);
    CU_ASSERT_STRING_EQUAL(get_str(j, "overlap"), "patent");
    CU_ASSERT_STRING_EQUAL(get_str(j, "overlap_asked"), "patent");
    CU_ASSERT_STRING_EQUAL(get_str(j, "send"), "rendezvous");
    HS_ASSERT_I64_EQ(get_int(j, "step_source_ns", NULL), 1060000000);
    HS_ASSERT_I64_EQ(get_int(j, "step_replay_ns", NULL), 1420000000);
    HS_ASSERT_I64_EQ(get_int(j, "first_step_replay_ns", NULL), 1510000000);
    HS_ASSERT_I64_EQ(get_int(j, "step_replay_ns", NULL) -
                         get_int(j, "step_source_ns", NULL), 360000000);
    /* 4000 samples over 4 devices of batch 100: 10 iterations */
    HS_ASSERT_I64_EQ(get_int(j, "iters_per_epoch", NULL), 10);
    HS_ASSERT_I64_EQ(get_int(j, "epoch_replay_ns", NULL), 14200000000LL);
    HS_ASSERT_I64_EQ(get_int(j, "step_stats", "p50_ns"), 1420000000);
    steps = get_arr(j, "steps_replay_ns");
    CU_ASSERT_TRUE_FATAL(steps != NULL && YAJL_GET_ARRAY(steps)->len == 10);
    HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(YAJL_GET_ARRAY(steps)->values[0]),
                     1510000000);
    devs = get_arr(j, "devices");
    CU_ASSERT_TRUE_FATAL(devs != NULL && YAJL_GET_ARRAY(devs)->len == 4);
    CU_ASSERT_STRING_EQUAL(
        YAJL_GET_STRING(yajl_tree_get(YAJL_GET_ARRAY(devs)->values[0],
                                      name_path, yajl_t_string)),
        "d0");
    HS_ASSERT_I64_EQ(get_int(YAJL_GET_ARRAY(devs)->values[0], "step_source_ns",
                             NULL), 1060000000);
    HS_ASSERT_I64_EQ(get_int(YAJL_GET_ARRAY(devs)->values[2], "step_source_ns",
                             NULL), 700000000);
    types = get_arr(j, "types");
    CU_ASSERT_TRUE_FATAL(types != NULL && YAJL_GET_ARRAY(types)->len == 1);
    HS_ASSERT_I64_EQ(get_int(YAJL_GET_ARRAY(types)->values[0], "step_replay_ns",
                             NULL), 1420000000);
    yajl_tree_free(j);
    hs_run_free(&r);

    /* options override the scenario */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate",
                                        SC("validate-divergent.yaml"),
                                        "--json", "--send", "eager",
                                        "--steps", "5", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    j = parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_STRING_EQUAL(get_str(j, "send"), "eager");
    HS_ASSERT_I64_EQ(get_int(j, "steps", NULL), 5);
    HS_ASSERT_I64_EQ(get_int(j, "step_replay_ns", NULL), 1330000000);
    steps = get_arr(j, "steps_replay_ns");
    CU_ASSERT_TRUE(steps != NULL && YAJL_GET_ARRAY(steps)->len == 5);
    CU_ASSERT_PTR_NULL(get_arr(j, "devices"));
    yajl_tree_free(j);
    hs_run_free(&r);

    /* overlap none: the ring after the whole backward is never faster */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate",
                                        SC("example-full.yaml"), "--json",
                                        "--overlap", "none", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    j = parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_STRING_EQUAL(get_str(j, "overlap"), "none");
    CU_ASSERT_TRUE(get_int(j, "step_replay_ns", NULL) >=
                   get_int(j, "step_extended_ns", NULL));
    yajl_tree_free(j);
    hs_run_free(&r);

    /* buckets asked where no profile lists buckets: replayed as none, and
       the JSON says so (overlap: the mode used, overlap_asked: asked) */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate",
                                        SC("validate-divergent.yaml"),
                                        "--json", "--overlap", "buckets",
                                        "--streams", "2", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    j = parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_STRING_EQUAL(get_str(j, "overlap"), "none");
    CU_ASSERT_STRING_EQUAL(get_str(j, "overlap_asked"), "buckets");
    HS_ASSERT_I64_EQ(get_int(j, "streams", NULL), 1);
    HS_ASSERT_I64_EQ(get_int(j, "streams_asked", NULL), 2);
    CU_ASSERT_STRING_EQUAL(get_str(j, "collective"), "ring");
    yajl_tree_free(j);
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate",
                                        SC("validate-divergent.yaml"),
                                        "--json", "--overlap", "buckets",
                                        NULL), 0);
    j = parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_STRING_EQUAL(get_str(j, "overlap"), "none");
    CU_ASSERT_STRING_EQUAL(get_str(j, "overlap_asked"), "buckets");
    yajl_tree_free(j);
    hs_run_free(&r);

    /* a profile with the communication's own cost: 4 devices, M = 40 MB,
       chunks of 10 MB take 10 ms on the wire and 2 ns/B x 10 MB = 20 ms
       to process, so each of the 6 rounds takes 20 ms; after the 11 ms of
       forward and first backward op the step is 131 ms */
    {
        const char *path = hs_test_write_file(
            "comm.yaml",
            "name: comm\n"
            "job: {model: x, dataset: {samples: 400}, epochs: 1}\n"
            "device_types:\n"
            "  - name: cpu\n"
            "    count: 4\n"
            "    batch: 10\n"
            "    profile: {t_dl: 1ms, t_fwd: 10ms, t_b1: 1ms,\n"
            "              allreduce_bytes: 40MB, comm_ns_per_byte: 2}\n"
            "network: {default_bandwidth: 1GB/s}\n"
            "simulate: {overlap: none, steps: 4}\n");
        const char *tp[2] = {"comm_ns_per_byte", NULL};
        yajl_val c;

        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", path, "--json",
                                            NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        j = parse(r.out);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        HS_ASSERT_I64_EQ(get_int(j, "step_replay_ns", NULL), 131000000);
        HS_ASSERT_I64_EQ(get_int(j, "step_source_ns", NULL), 71000000);
        types = get_arr(j, "types");
        CU_ASSERT_TRUE_FATAL(types != NULL &&
                             YAJL_GET_ARRAY(types)->len == 1);
        c = yajl_tree_get(YAJL_GET_ARRAY(types)->values[0], tp,
                          yajl_t_number);
        CU_ASSERT_TRUE(c != NULL && YAJL_GET_DOUBLE(c) == 2.0);
        yajl_tree_free(j);
        hs_run_free(&r);
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", path, NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        HS_ASSERT_STR_CONTAINS(r.out, "comm cost: cpu 2 ns/B sent");
        hs_run_free(&r);
    }

    /* the hop wait of a hierarchical collective, per ring: nodes of 4
       CPU devices, 3 nodes, a probe's 2 ms at 0.3 core per 10 ms grows
       to 6 ms in a node's ring (4) and 4 ms across the nodes (3); the
       flat ring's 16.667 ms (12) stays in hop_wait_ns */
    {
        const char *path = hs_test_write_file(
            "hierhop.yaml",
            "name: hierhop\n"
            "job: {model: x, dataset: {samples: 100000}}\n"
            "device_types:\n"
            "  - name: cpu\n"
            "    batch: 100\n"
            "    profile: {t_dl: 5ms, t_fwd: 30ms, t_b1: 1ms, t_bwd: 5s,\n"
            "              allreduce_bytes: 12MB, t_hop_wait: 2ms,\n"
            "              cpu_quota_cores: 0.3, t_cpu_period: 10ms}\n"
            "nodes:\n"
            "  kinds:\n"
            "    - {name: n, type: cpu, devices: 4, count: 3,\n"
            "       intra_bandwidth: 40GB/s}\n"
            "  inter_bandwidth: 2GB/s\n"
            "collective: hierarchical\n"
            "simulate: {steps: 2, overlap: patent}\n");
        static const char *const keys[3] = {"hop_wait_ns",
                                            "hop_wait_intra_ns",
                                            "hop_wait_inter_ns"};
        static const long long want[3] = {16666667, 6000000, 4000000};
        size_t k;

        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", path, "--json",
                                            NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        j = parse(r.out);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        types = get_arr(j, "types");
        CU_ASSERT_TRUE_FATAL(types != NULL &&
                             YAJL_GET_ARRAY(types)->len == 1);
        for (k = 0; k < 3; k++) {
            const char *tp[2] = {keys[k], NULL};
            yajl_val v = yajl_tree_get(YAJL_GET_ARRAY(types)->values[0], tp,
                                       yajl_t_number);

            CU_ASSERT_TRUE_FATAL(v != NULL && YAJL_IS_INTEGER(v));
            HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(v), want[k]);
        }
        yajl_tree_free(j);
        hs_run_free(&r);
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", path, NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        HS_ASSERT_STR_CONTAINS(r.out, "hop wait: cpu 6.000 ms in a node, "
                                      "4.000 ms across nodes");
        hs_run_free(&r);
    }

    /* the embedded default runs without a SCENARIO */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", "--json", "--steps",
                                        "3", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    j = parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    HS_ASSERT_I64_EQ(get_int(j, "n_devices", NULL), 200);
    yajl_tree_free(j);
    hs_run_free(&r);
}

static void test_simulate_errors(void)
{
    hs_run_t r;

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", "--help", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "usage: hetsim simulate");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", "--overlap", "fast",
                                        NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "--overlap");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", "--steps", "0",
                                        NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", "--bogus", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate",
                                        "/nonexistent/x.yaml", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 3);
    hs_run_free(&r);
}

static int file_exists(const char *p)
{
    struct stat st;

    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static void test_simulate_traces(void)
{
    const char *dir = hs_test_tmpdir("cli_simulate");
    char h5[512], chrome[512], bad[512], buf[8] = {0};
    hs_run_t r;
    yajl_val j, ev;
    FILE *f;
    char *text;
    long len;

    snprintf(h5, sizeof h5, "%s/run.h5", dir);
    snprintf(chrome, sizeof chrome, "%s/run.json", dir);
    snprintf(bad, sizeof bad, "%s/no/such/dir/run.json", dir);
    unlink(h5);
    unlink(chrome);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate",
                                        SC("validate-divergent.yaml"),
                                        "--h5", h5, "--chrome", chrome,
                                        "--steps", "3", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    hs_run_free(&r);
    CU_ASSERT_TRUE(file_exists(h5));
    f = fopen(h5, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fread(buf, 1, 4, f), 4);
    fclose(f);
    CU_ASSERT_TRUE(memcmp(buf, "\x89HDF", 4) == 0);
    f = fopen(chrome, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = calloc(1, (size_t)len + 1);
    CU_ASSERT_EQUAL(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    j = parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    ev = get_arr(j, "traceEvents");
    /* 4 devices x 3 steps x 6 chunks at least */
    CU_ASSERT_TRUE(ev != NULL && YAJL_GET_ARRAY(ev)->len >= 72);
    yajl_tree_free(j);
    free(text);

    /* the chrome file cannot be created: exit 3, and the HDF5 file opened
       before it is not left behind (commit = 0) */
    unlink(h5);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate",
                                        SC("validate-divergent.yaml"),
                                        "--h5", h5, "--chrome", bad, NULL),
                          0);
    HS_ASSERT_I64_EQ(r.status, 3);
    hs_run_free(&r);
    CU_ASSERT_FALSE(file_exists(h5));
}

static void test_validate(void)
{
    hs_run_t r;
    yajl_val j, types;
    const char *wpath[2] = {"within_tolerance", NULL};

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate",
                                        SC("validate-homogeneous.yaml"),
                                        "--tolerance", "0", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "within");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate",
                                        SC("validate-slow-owner.yaml"),
                                        "--tolerance", "0", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    hs_run_free(&r);
    /* the divergent case: +34 % */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate",
                                        SC("validate-divergent.yaml"),
                                        "--tolerance", "5", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 1);
    HS_ASSERT_STR_CONTAINS(r.err, "tolerance");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate",
                                        SC("validate-divergent.yaml"),
                                        "--tolerance", "40", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    hs_run_free(&r);
    /* no tolerance: a report, exit 0 */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate",
                                        SC("validate-divergent.yaml"),
                                        NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate",
                                        SC("validate-divergent.yaml"),
                                        "--json", "--tolerance", "5", NULL),
                          0);
    HS_ASSERT_I64_EQ(r.status, 1);
    j = parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_TRUE(YAJL_IS_FALSE(yajl_tree_get(j, wpath, yajl_t_any)));
    HS_ASSERT_I64_EQ(get_int(j, "cluster", "step_extended_ns"), 1060000000);
    HS_ASSERT_I64_EQ(get_int(j, "cluster", "step_replay_ns"), 1420000000);
    HS_ASSERT_I64_EQ(get_int(j, "cluster", "diff_ns"), 360000000);
    types = get_arr(j, "types");
    CU_ASSERT_TRUE(types != NULL && YAJL_GET_ARRAY(types)->len == 1);
    yajl_tree_free(j);
    hs_run_free(&r);
    /* eager: 1.33 s, +25.5 %: within 26, beyond 25 */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate",
                                        SC("validate-divergent.yaml"),
                                        "--send", "eager", "--tolerance",
                                        "26", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate",
                                        SC("validate-divergent.yaml"),
                                        "--send", "eager", "--tolerance",
                                        "25", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 1);
    hs_run_free(&r);
    /* bad tolerance */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate", "--tolerance", "-1",
                                        NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate", "--help", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "--tolerance");
    hs_run_free(&r);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("cli_simulate", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "simulate --json", test_simulate_json) == NULL ||
        CU_add_test(s, "simulate errors", test_simulate_errors) == NULL ||
        CU_add_test(s, "simulate --h5 --chrome", test_simulate_traces) ==
            NULL ||
        CU_add_test(s, "validate --tolerance", test_validate) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
