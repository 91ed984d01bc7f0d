/*
 * test_micro_profile.c -- a profile's micro_batches key (the gradient
 * accumulation it was measured with, written by `hetsim ingest`) as the
 * scenario reads it (docs/scenario.md, "Profiles"):
 *   - a type that states no micro_batches takes its profile's (a profile
 *     file or an inline profile); one that states the same is fine;
 *   - a type that states another is an error at its own key
 *     (file:line:col), naming the profile's; a profile's count that does
 *     not divide the type's batch is an error at the profile's key; a
 *     count of 0 is refused;
 *   - a profile without the key leaves the type's micro_batches as it was;
 *   - `hetsim predict --json` (read as data) of a type whose profile
 *     says micro_batches 4 gives the same figures as the type that states
 *     micro_batches 4 with the same per-micro-batch profile without the
 *     key, the count in its types[] (micro_batches 4), and a step longer
 *     than the same scenario without accumulation;
 *   - `hetsim simulate --json` likewise: types[].micro_batches 4 (absent
 *     without accumulation), the same replayed step either way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "hs_scenario.h"
#include "hs_test.h"

/* One micro-batch's times, 4 MB all-reduced (line 1 of every profile). */
#define PROF_TIMES                                                          \
    "t_dl: 3ms\nt_fwd: 10ms\nt_b1: 1ms\nt_bwd: 20ms\nt_opt: 2ms\n"        \
    "allreduce_bytes: 4MB\n"

/* Writes name in dir with text; returns its path (static storage). */
static const char *put(const char *dir, const char *name, const char *text)
{
    static char path[4096];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    CU_ASSERT_EQUAL(hs_test_write(path, text), 0);
    return path;
}

/* The scenario text of one type `a` (batch 32, count 4) with `micro`
   (a "    micro_batches: N\n" line or "") and its profile `prof` (a file
   name or an inline map), into buf. */
static void scenario(char *buf, size_t cap, const char *micro,
                     const char *prof)
{
    snprintf(buf, cap,
             "name: micro-key\n"                            /* 1 */
             "device_types:\n"                              /* 2 */
             "  - name: a\n"                                /* 3 */
             "    count: 4\n"                               /* 4 */
             "    batch: 32\n"                              /* 5 */
             "%s"                                           /* 6 */
             "    profile: %s\n"
             "network: {default_bandwidth: 1GB/s, latency: 0us}\n"
             "simulate: {steps: 4}\n",
             micro, prof);
}

/* Loads the scenario of scenario(micro, prof) written in dir; the
   result code, *s (NULL on failure) and the error. */
static hs_err_t load(const char *dir, const char *micro, const char *prof,
                     hs_scenario_t **s, hs_error_t *e)
{
    char text[2048];

    scenario(text, sizeof text, micro, prof);
    *s = NULL;
    return hs_scenario_load(put(dir, "s.yaml", text), s, e);
}

static void test_carried(void)
{
    const char *dir = hs_test_tmpdir("micro-profile-carried");
    hs_scenario_t *s = NULL;
    hs_error_t e;

    put(dir, "p4.yaml", "# hetsim profile\n" PROF_TIMES
                        "micro_batches: 4\n");
    put(dir, "p.yaml", "# hetsim profile\n" PROF_TIMES);
    /* the type states none: the profile's */
    CU_ASSERT_EQUAL_FATAL(load(dir, "", "p4.yaml", &s, &e), HS_OK);
    HS_ASSERT_I64_EQ(s->types[0].micro_batches, 4);
    HS_ASSERT_I64_EQ(s->types[0].profile.micro_batches, 4);
    hs_scenario_free(s);
    /* the same count on both sides */
    CU_ASSERT_EQUAL_FATAL(load(dir, "    micro_batches: 4\n", "p4.yaml", &s,
                               &e), HS_OK);
    HS_ASSERT_I64_EQ(s->types[0].micro_batches, 4);
    hs_scenario_free(s);
    /* inline */
    CU_ASSERT_EQUAL_FATAL(load(dir, "", "{t_fwd: 10ms, t_b1: 1ms, "
                               "allreduce_bytes: 4MB, micro_batches: 2}",
                               &s, &e), HS_OK);
    HS_ASSERT_I64_EQ(s->types[0].micro_batches, 2);
    hs_scenario_free(s);
    /* no key: the type's own, 1 or given */
    CU_ASSERT_EQUAL_FATAL(load(dir, "", "p.yaml", &s, &e), HS_OK);
    HS_ASSERT_I64_EQ(s->types[0].micro_batches, 1);
    HS_ASSERT_I64_EQ(s->types[0].profile.micro_batches, 0);
    hs_scenario_free(s);
    CU_ASSERT_EQUAL_FATAL(load(dir, "    micro_batches: 8\n", "p.yaml", &s,
                               &e), HS_OK);
    HS_ASSERT_I64_EQ(s->types[0].micro_batches, 8);
    hs_scenario_free(s);
}

/* e's message starts with "<dir>/<name>:<at>:" and holds what. */
static void expect_at(const hs_error_t *e, const char *dir, const char *name,
                      const char *at, const char *what)
{
    char pre[4200];

    snprintf(pre, sizeof pre, "%s/%s:%s: ", dir, name, at);
    if (strncmp(e->msg, pre, strlen(pre)) != 0)
        fprintf(stderr, "\nexpected prefix '%s' in '%s'\n", pre, e->msg);
    CU_ASSERT_EQUAL(strncmp(e->msg, pre, strlen(pre)), 0);
    HS_ASSERT_STR_CONTAINS(e->msg, what);
}

static void test_refused(void)
{
    const char *dir = hs_test_tmpdir("micro-profile-refused");
    hs_scenario_t *s = NULL;
    hs_error_t e;

    put(dir, "p4.yaml", "# hetsim profile\n" PROF_TIMES
                        "micro_batches: 4\n");
    put(dir, "p3.yaml", "# hetsim profile\n" PROF_TIMES
                        "micro_batches: 3\n");
    put(dir, "p0.yaml", "# hetsim profile\n" PROF_TIMES
                        "micro_batches: 0\n");
    /* contradiction: at the type's micro_batches (line 6, column 20) */
    HS_ASSERT_I64_EQ(load(dir, "    micro_batches: 2\n", "p4.yaml", &s, &e),
                     HS_ERR_SCHEMA);
    CU_ASSERT_PTR_NULL(s);
    expect_at(&e, dir, "s.yaml", "6:20", "contradicts its profile's "
                                         "micro_batches 4");
    {
        char prof[4200];
        snprintf(prof, sizeof prof, "(%s/p4.yaml:8:16)", dir);
        HS_ASSERT_STR_CONTAINS(e.msg, prof);
    }
    /* the profile's 3 does not divide the batch 32: at its key (line 8
       of p3.yaml, column 16) */
    HS_ASSERT_I64_EQ(load(dir, "", "p3.yaml", &s, &e), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(s);
    expect_at(&e, dir, "p3.yaml", "8:16", "does not divide the type's "
                                          "batch 32");
    /* 0 is no count */
    CU_ASSERT_NOT_EQUAL(load(dir, "", "p0.yaml", &s, &e), HS_OK);
    CU_ASSERT_PTR_NULL(s);
    expect_at(&e, dir, "p0.yaml", "8:16", "micro_batches");
    /* inline, contradicted: at the type's key */
    HS_ASSERT_I64_EQ(load(dir, "    micro_batches: 4\n",
                          "{t_fwd: 10ms, allreduce_bytes: 4MB, "
                          "micro_batches: 2}", &s, &e), HS_ERR_SCHEMA);
    expect_at(&e, dir, "s.yaml", "6:20", "micro_batches 2");
}

/* `hetsim CMD path --json` (predict or simulate), parsed (the caller
   frees it). */
static yajl_val run_json(const char *cmd, const char *path)
{
    char eb[256];
    hs_run_t r;
    yajl_val v;

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, cmd, path, "--json", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    v = yajl_tree_parse(r.out, eb, sizeof eb);
    if (v == NULL)
        fprintf(stderr, "\n%s: JSON parse error: %s\n", path, eb);
    hs_run_free(&r);
    return v;
}

static int64_t num(yajl_val root, const char *key)
{
    const char *path[2] = {key, NULL};
    yajl_val v = yajl_tree_get(root, path, yajl_t_number);

    return v != NULL && YAJL_IS_INTEGER(v) ? YAJL_GET_INTEGER(v) : INT64_MIN;
}

/* types[0].key of a predict or simulate document (INT64_MIN: absent). */
static int64_t type_num(yajl_val root, const char *key)
{
    const char *path[2] = {"types", NULL};
    yajl_val t = yajl_tree_get(root, path, yajl_t_array);

    if (t == NULL || YAJL_GET_ARRAY(t)->len < 1)
        return INT64_MIN;
    return num(YAJL_GET_ARRAY(t)->values[0], key);
}

/* The three scenarios both tests compare, run by `hetsim CMD --json` in
   a fresh folder named tag: *a with micro_batches 4 from the profile, *b
   from the type, *c without accumulation; each document parsed (the
   caller frees them), with the type's micro_batches checked (4, 4,
   absent). */
static void run_three(const char *tag, const char *cmd, yajl_val *a,
                      yajl_val *b, yajl_val *c)
{
    const char *dir = hs_test_tmpdir(tag);
    char text[2048], by_profile[4096], by_type[4096], plain[4096];

    put(dir, "p4.yaml", "# hetsim profile\n" PROF_TIMES
                        "micro_batches: 4\n");
    put(dir, "p.yaml", "# hetsim profile\n" PROF_TIMES);
    scenario(text, sizeof text, "", "p4.yaml");
    snprintf(by_profile, sizeof by_profile, "%s", put(dir, "a.yaml", text));
    scenario(text, sizeof text, "    micro_batches: 4\n", "p.yaml");
    snprintf(by_type, sizeof by_type, "%s", put(dir, "b.yaml", text));
    scenario(text, sizeof text, "", "p.yaml");
    snprintf(plain, sizeof plain, "%s", put(dir, "c.yaml", text));
    *a = run_json(cmd, by_profile);
    *b = run_json(cmd, by_type);
    *c = run_json(cmd, plain);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*c);
    HS_ASSERT_I64_EQ(type_num(*a, "micro_batches"), 4);
    HS_ASSERT_I64_EQ(type_num(*b, "micro_batches"), 4);
    HS_ASSERT_I64_EQ(type_num(*c, "micro_batches"), INT64_MIN);
}

static void test_predict_same(void)
{
    static const char *const keys[] = {
        "step_recommended_ns", "step_source_ns", "step_extended_ns",
        "step_replay_ns", NULL};
    static const char *const tkeys[] = {
        "t_fwd_ns", "t_b1_ns", "step_source_max_ns", "step_extended_max_ns",
        "step_replay_ns", NULL};
    yajl_val a, b, c;
    size_t i;

    run_three("micro-profile-predict", "predict", &a, &b, &c);
    for (i = 0; keys[i] != NULL; i++) {
        CU_ASSERT_TRUE(num(a, keys[i]) > 0);
        HS_ASSERT_I64_EQ(num(a, keys[i]), num(b, keys[i]));
    }
    for (i = 0; tkeys[i] != NULL; i++)
        HS_ASSERT_I64_EQ(type_num(a, tkeys[i]), type_num(b, tkeys[i]));
    /* N = 4, T_ar = 2 (N-1) (4 MB / 4) / 1 GB/s = 6 ms; V = 4: the
       forward before the last is 3 x (10 + 20) + 10 = 100 ms, T = 100 +
       1 + 6 = 107 ms (test_scenario.c's figures); without: 17 ms */
    HS_ASSERT_I64_EQ(num(a, "step_source_ns"), 107000000);
    HS_ASSERT_I64_EQ(num(c, "step_source_ns"), 17000000);
    CU_ASSERT_TRUE(num(a, "step_recommended_ns") >
                   num(c, "step_recommended_ns"));
    yajl_tree_free(a);
    yajl_tree_free(b);
    yajl_tree_free(c);
}

/* simulate --json: types[].micro_batches as predict's (4 from the
   profile or the type, absent without accumulation), the same replayed
   step either way, longer than without accumulation. */
static void test_simulate_same(void)
{
    yajl_val a, b, c;

    run_three("micro-profile-simulate", "simulate", &a, &b, &c);
    HS_ASSERT_I64_EQ(type_num(a, "count"), 4);   /* the type read */
    CU_ASSERT_TRUE(num(a, "step_replay_ns") > 0);
    HS_ASSERT_I64_EQ(num(a, "step_replay_ns"), num(b, "step_replay_ns"));
    HS_ASSERT_I64_EQ(type_num(a, "step_replay_ns"),
                     type_num(b, "step_replay_ns"));
    CU_ASSERT_TRUE(num(a, "step_replay_ns") > num(c, "step_replay_ns"));
    yajl_tree_free(a);
    yajl_tree_free(b);
    yajl_tree_free(c);
}

static int register_micro_profile(void)
{
    CU_pSuite s = CU_add_suite("profile micro_batches key", NULL, NULL);

    if (s == NULL ||
        CU_add_test(s, "the type takes its profile's micro_batches",
                    test_carried) == NULL ||
        CU_add_test(s, "contradictions and bad counts, file:line:col",
                    test_refused) == NULL ||
        CU_add_test(s, "predict --json: profile's V = type's V",
                    test_predict_same) == NULL ||
        CU_add_test(s, "simulate --json: types[].micro_batches",
                    test_simulate_same) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_micro_profile)
