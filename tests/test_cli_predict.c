/* test_cli_predict.c -- `hetsim predict` end to end: the source's 200-device
 * example through the CLI's JSON, read as data (yajl_tree). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "hs_test.h"
#include "hs_units.h"

static yajl_val parse(const char *text)
{
    char eb[256];
    yajl_val v = yajl_tree_parse(text, eb, sizeof eb);

    if (v == NULL)
        fprintf(stderr, "\nJSON parse error: %s\n", eb);
    return v;
}

static int64_t get_i64(yajl_val root, const char *a, const char *b)
{
    const char *path[3] = {a, b, NULL};
    yajl_val v = yajl_tree_get(root, path, yajl_t_number);

    return v != NULL ? YAJL_GET_INTEGER(v) : INT64_MIN;
}

static const char *get_str(yajl_val root, const char *a, const char *b)
{
    const char *path[3] = {a, b, NULL};
    yajl_val v = yajl_tree_get(root, path, yajl_t_string);

    return v != NULL ? YAJL_GET_STRING(v) : "";
}

/* The source's example: 100 MLU370 + 100 A100, default figures. The
   expected numbers are computed here from the formula, independently of
   hetsim's code path. */
static void test_default_json(void)
{
    hs_run_t r;
    yajl_val root, types;
    /* M = D for n = 2; N = 200; B = 200 Gbit/s = 25e9 B/s */
    double chunk = 102228128.0 / 200.0;
    int64_t per_round = llround(chunk * 1e9 / 25e9);
    int64_t t_ar = 2 * 199 * per_round;
    int64_t step_mlu = 112281000 + 112000 + t_ar;
    int64_t samples = 1000000000LL / 115439;          /* 1 GB shard */
    int64_t iters = (samples + 255) / 256;

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", "--json", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    root = parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    HS_ASSERT_I64_EQ(get_i64(root, "n_devices", NULL), 200);
    {
        const char *p[2] = {"types", NULL};
        types = yajl_tree_get(root, p, yajl_t_array);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(types);
    HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(types)->len, 2);
    HS_ASSERT_I64_EQ(get_i64(YAJL_GET_ARRAY(types)->values[0], "count", NULL),
                     100);
    HS_ASSERT_I64_EQ(get_i64(YAJL_GET_ARRAY(types)->values[1], "t_ar_max_ns",
                             NULL),
                     t_ar);
    HS_ASSERT_I64_EQ(get_i64(root, "step_source_ns", NULL), step_mlu);
    CU_ASSERT_STRING_EQUAL(get_str(root, "bottleneck", "type"), "MLU370");
    HS_ASSERT_I64_EQ(get_i64(root, "iters_per_epoch", NULL), iters);
    HS_ASSERT_I64_EQ(get_i64(root, "epoch_source_ns", NULL), iters * step_mlu);
    HS_ASSERT_I64_EQ(get_i64(root, "total_source_ns", NULL), iters * step_mlu);
    /* extended: fwd + max(bwd, b1 + T_ar) = 112.281 + 224.561 ms */
    HS_ASSERT_I64_EQ(get_i64(root, "step_extended_ns", NULL),
                     112281000 + 224561000);
    yajl_tree_free(root);
    hs_run_free(&r);
}

/* Two runs give byte-identical output; the text report says the same. */
static void test_deterministic_and_text(void)
{
    hs_run_t a, b;

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&a, "predict", "--json", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&b, "predict", "--json", NULL), 0);
    CU_ASSERT_STRING_EQUAL(a.out, b.out);
    hs_run_free(&a);
    hs_run_free(&b);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&a, "predict", NULL), 0);
    HS_ASSERT_I64_EQ(a.status, 0);
    HS_ASSERT_STR_CONTAINS(a.out, "bottleneck device:  MLU370-0");
    hs_run_free(&a);
}

static void test_errors_and_help(void)
{
    hs_run_t r;
    const char *bad = hs_test_write_file(
        "cli_bad.yaml", "device_types:\n  - {name: a, count: 2, batch: 8,\n"
                        "     profile: {t_fwd: 3 parsecs, t_b1: 1ms, "
                        "allreduce_bytes: 2MB}}\n");
    char want[4200];

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", bad, NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    snprintf(want, sizeof want, "%s:3:23:", bad);
    HS_ASSERT_STR_CONTAINS(r.err, want);
    CU_ASSERT_STRING_EQUAL(r.out, "");
    hs_run_free(&r);

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", "/nonexistent.yaml",
                                        NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 3);
    hs_run_free(&r);

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", "--frobnicate", NULL),
                          0);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", "--help", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "usage: hetsim predict");
    hs_run_free(&r);

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "--version", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "hetsim ");
    hs_run_free(&r);

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "nosuchcommand", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);
}

/* Every shipped scenario loads and predicts. */
static void test_shipped_scenarios(void)
{
    static const char *const names[] = {"default.yaml", "example-full.yaml",
                                        NULL};
    int i;

    for (i = 0; names[i] != NULL; i++) {
        char path[4096];
        hs_run_t r;
        snprintf(path, sizeof path, "%s/scenarios/%s", HS_TEST_SRC,
                 names[i]);
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", "--json", path,
                                            NULL), 0);
        if (r.status != 0)
            fprintf(stderr, "\n%s: %s\n", path, r.err);
        HS_ASSERT_I64_EQ(r.status, 0);
        hs_run_free(&r);
    }
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("cli predict", NULL, NULL);

    CU_add_test(s, "source example through --json", test_default_json);
    CU_add_test(s, "deterministic output, text report",
                test_deterministic_and_text);
    CU_add_test(s, "errors, help, exit codes", test_errors_and_help);
    CU_add_test(s, "shipped scenarios predict", test_shipped_scenarios);
    return 0;
}

HS_TEST_MAIN(reg)
