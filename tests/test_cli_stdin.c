/* test_cli_stdin.c -- a scenario read from standard input (`hetsim predict
 * -`, and simulate, validate, sweep, advise, measure-bw's SCENARIO of -):
 * the same figures as from the file, relative paths resolved against the
 * current directory, errors positioned at <stdin>:line:col; and the
 * "did you mean" suggestions of the CLI (a command, an option, an enum
 * value, a scenario key, a device or type name), each run through the
 * binary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "hs_test.h"

/* A scenario whose profile is a relative path, read from the directory
   the scenario file is in (or, from stdin, the current directory). */
static const char scenario_yaml[] =
    "name: stdin-test\n"
    "device_types:\n"
    "  - {name: fast, count: 2, batch: 16, profile: prof/fast.yaml}\n"
    "  - name: slow\n"
    "    count: 2\n"
    "    batch: 8\n"
    "    profile: {t_fwd: 20ms, t_b1: 2ms, allreduce_bytes: 4MB}\n"
    "job: {dataset: {samples: 6400}, epochs: 2}\n"
    "network: {default_bandwidth: 10Gbps}\n";

static const char profile_yaml[] =
    "subsystem_size: 2\nt_fwd: 10ms\nt_b1: 1ms\nt_bwd: 5ms\n"
    "allreduce_bytes: 4MB\n";

/* Runs `cd dir && hetsim ARGS < input` (input NULL: /dev/null) through
   /bin/sh; args is one string of shell words (no user data in it). */
static int run_in(hs_run_t *r, const char *dir, const char *args,
                  const char *input)
{
    char script[4608];
    char *argv[] = {"/bin/sh", "-c", script, "sh", (char *)dir,
                    (char *)HS_TEST_BIN,
                    (char *)(input != NULL ? input : "/dev/null"), NULL};

    snprintf(script, sizeof script, "cd \"$1\" && exec \"$2\" %s < \"$3\"",
             args);
    return hs_run(argv, r);
}

static yajl_val parse(const char *text)
{
    char eb[256];
    yajl_val v = yajl_tree_parse(text != NULL ? text : "", eb, sizeof eb);

    if (v == NULL)
        fprintf(stderr, "\nJSON parse error: %s in '%s'\n", eb,
                text != NULL ? text : "");
    return v;
}

/* The scratch layout: DIR/scn.yaml, DIR/prof/fast.yaml, DIR/elsewhere/. */
static const char *setup(void)
{
    static char dir[4096];
    char path[4200];

    snprintf(dir, sizeof dir, "%s", hs_test_tmpdir("cli_stdin"));
    snprintf(path, sizeof path, "%s/prof", dir);
    CU_ASSERT_TRUE(mkdir(path, 0755) == 0 || errno == EEXIST);
    snprintf(path, sizeof path, "%s/elsewhere", dir);
    CU_ASSERT_TRUE(mkdir(path, 0755) == 0 || errno == EEXIST);
    snprintf(path, sizeof path, "%s/prof/fast.yaml", dir);
    CU_ASSERT_EQUAL(hs_test_write(path, profile_yaml), 0);
    snprintf(path, sizeof path, "%s/scn.yaml", dir);
    CU_ASSERT_EQUAL(hs_test_write(path, scenario_yaml), 0);
    return dir;
}

/* Replaces every `from` in text by `to`; a new string (or NULL). */
static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t lf = strlen(from), lt = strlen(to), n = 0;
    const char *p;
    char *out, *o;

    for (p = text; (p = strstr(p, from)) != NULL; p += lf)
        n++;
    out = malloc(strlen(text) + n * (lt > lf ? lt - lf : 0) + 1);
    if (out == NULL)
        return NULL;
    for (o = out, p = text;;) {
        const char *q = strstr(p, from);
        size_t k = q != NULL ? (size_t)(q - p) : strlen(p);
        memcpy(o, p, k);
        o += k;
        if (q == NULL)
            break;
        memcpy(o, to, lt);
        o += lt;
        p = q + lf;
    }
    *o = '\0';
    return out;
}

/* predict, simulate and validate of `-` print what they print for the
   file, but for the scenario's name: every figure the same, whatever the
   JSON's fields are called; the JSON parses and names "<stdin>". */
static void test_same_figures(void)
{
    static const char *const cmds[] = {"predict", "simulate", "validate"};
    const char *dir = setup();
    char scn[4200], args[4400];
    size_t i;

    snprintf(scn, sizeof scn, "%s/scn.yaml", dir);
    for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        hs_run_t a, b;
        yajl_val jb;
        char *want;

        snprintf(args, sizeof args, "%s --json scn.yaml", cmds[i]);
        CU_ASSERT_EQUAL_FATAL(run_in(&a, dir, args, NULL), 0);
        snprintf(args, sizeof args, "%s --json -", cmds[i]);
        CU_ASSERT_EQUAL_FATAL(run_in(&b, dir, args, scn), 0);
        HS_ASSERT_I64_EQ(a.status, 0);
        HS_ASSERT_I64_EQ(b.status, 0);
        want = replace_all(a.out, "\"scn.yaml\"", "\"<stdin>\"");
        CU_ASSERT_PTR_NOT_NULL_FATAL(want);
        CU_ASSERT_STRING_EQUAL(b.out, want);
        CU_ASSERT_PTR_NULL(strstr(b.out, "scn.yaml"));
        jb = parse(b.out);
        CU_ASSERT_PTR_NOT_NULL(jb);
        HS_ASSERT_STR_CONTAINS(b.out, "\"<stdin>\"");
        yajl_tree_free(jb);
        free(want);
        hs_run_free(&a);
        hs_run_free(&b);
    }
}

/* Relative paths follow the current directory: from elsewhere/ the
   profile is not found, and the message names the path it tried. */
static void test_relative_to_cwd(void)
{
    const char *dir = setup();
    char scn[4200], sub[4200];
    hs_run_t r;

    snprintf(scn, sizeof scn, "%s/scn.yaml", dir);
    snprintf(sub, sizeof sub, "%s/elsewhere", dir);
    CU_ASSERT_EQUAL_FATAL(run_in(&r, sub, "predict -", scn), 0);
    HS_ASSERT_I64_EQ(r.status, 3);
    HS_ASSERT_STR_CONTAINS(r.err, "elsewhere/prof/fast.yaml");
    hs_run_free(&r);
    /* the other commands that take a SCENARIO read it too */
    CU_ASSERT_EQUAL_FATAL(run_in(&r, dir, "validate -", scn), 0);
    HS_ASSERT_STR_CONTAINS(r.out, "(<stdin>)");
    hs_run_free(&r);
    {   /* a sweep over it: the file's figures */
        hs_run_t f;
        CU_ASSERT_EQUAL_FATAL(
            run_in(&r, dir,
                   "sweep --csv - --vary device_types.fast.count=2,4", scn),
            0);
        CU_ASSERT_EQUAL_FATAL(
            run_in(&f, dir,
                   "sweep --csv scn.yaml --vary device_types.fast.count=2,4",
                   NULL),
            0);
        HS_ASSERT_I64_EQ(r.status, 0);
        CU_ASSERT_STRING_EQUAL(r.out, f.out);
        CU_ASSERT_TRUE(strlen(r.out) > 20);
        hs_run_free(&f);
        hs_run_free(&r);
    }
    CU_ASSERT_EQUAL_FATAL(run_in(&r, dir, "advise ring -", scn), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "<stdin>");
    hs_run_free(&r);
    /* profile rewrites its scenario file: standard input is refused */
    CU_ASSERT_EQUAL_FATAL(run_in(&r, dir, "profile - -o out", scn), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "not standard input");
    hs_run_free(&r);
}

/* Errors in YAML from stdin are placed at <stdin>:line:col; empty input
   is an error too. */
static void test_errors_positioned(void)
{
    const char *dir = setup();
    const char *bad = hs_test_write_file(
        "stdin-bad.yaml", "device_types:\n  - name: a\n    cont: 2\n");
    hs_run_t r;

    CU_ASSERT_EQUAL_FATAL(run_in(&r, dir, "predict -", bad), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "hetsim: <stdin>:3:5: unknown key 'cont' "
                                  "in a device type; did you mean 'count'?");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(run_in(&r, dir, "simulate -", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "<stdin>");
    hs_run_free(&r);
}

/* One mistyped word per path through the CLI; each suggestion is the
   nearest valid word, and a word near nothing gets none. */
static void test_did_you_mean(void)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"predcit", "unknown command 'predcit'; did you mean 'predict'?"},
        {"simulate --step 3", "unknown option '--step'; did you mean "
                              "'--steps'?"},
        {"simulate --overlap bukets", "'bukets' is not patent, buckets, "
                                      "none or last_bucket; did you mean "
                                      "'buckets'?"},
        {"sweep --vary device_types.A10.count=1,2",
         "unknown device type 'A10'; did you mean 'A100'? (types: MLU370, "
         "A100)"},
        {"sweep --vary devices.MLU370-100.compute_scale=1,2",
         "unknown device 'MLU370-100'; did you mean 'MLU370-10'? (devices: "
         "MLU370-0..MLU370-99, A100-0..A100-99)"},
        {"sweep --vary simulate.stepz=2,3",
         "valid: steps, seed, overlap, send, streams, stochastic; did you "
         "mean 'steps'?"},
        {"sweep scenarios/nodes-example.yaml --vary nodes.a10.count=1,2",
         "unknown node kind 'a10'; did you mean 'a100'? (kinds: a100, "
         "v100)"},
        {"profile scenarios/example-full.yaml -o never --type fsat",
         "no device type 'fsat'; did you mean 'fast'? (types: fast, slow)"},
        {"advise rnig", "'rnig' is not a question: ring, batch or mix; did "
                        "you mean 'ring'?"},
        {"advise batch scenarios/example-full.yaml --max-batch fsat=64",
         "--max-batch fsat=64: no device type of that name in "
         "scenarios/example-full.yaml; did you mean 'fast'? (types: fast, "
         "slow)"},
        {"profile scenarios/example-full.yaml -o never --alone fast,slwo",
         "--alone: no device type 'slwo'; did you mean 'slow'? (types: "
         "fast, slow)"},
    };
    char dir[4096], link[4200];
    size_t i;
    hs_run_t r;

    /* a scratch folder where scenarios/ is the repository's */
    snprintf(dir, sizeof dir, "%s", hs_test_tmpdir("cli_dym"));
    snprintf(link, sizeof link, "%s/scenarios", dir);
    CU_ASSERT(symlink(HS_TEST_SRC "/scenarios", link) == 0 ||
              errno == EEXIST);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(run_in(&r, dir, cases[i].args, NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 2);
        HS_ASSERT_STR_CONTAINS(r.err, cases[i].want);
        hs_run_free(&r);
    }
    /* profile refused before it made its output folder */
    {
        char never[4200];
        struct stat st;
        snprintf(never, sizeof never, "%s/never", dir);
        CU_ASSERT_NOT_EQUAL(stat(never, &st), 0);
    }
    /* nothing near: no guess */
    CU_ASSERT_EQUAL_FATAL(run_in(&r, ".", "frobnicate", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    CU_ASSERT_PTR_NULL(strstr(r.err, "did you mean"));
    hs_run_free(&r);
}

/* Unknown names inside a scenario: keys, device types, devices in the
   ring, a straggler and a link row, each with the valid names listed. */
static void test_did_you_mean_scenario(void)
{
    static const struct {
        const char *from, *to, *want;
    } cases[] = {
        {"default_bandwidth: 10Gbps", "defualt_bandwidth: 10Gbps",
         "<stdin>:9:11: unknown key 'defualt_bandwidth' in network; did you "
         "mean 'default_bandwidth'?"},
        {"name: slow\n", "name: slow\n    typo: 1\n", "unknown key 'typo'"},
        {"network: {", "ring: [fast-0, slow-0, fast-1, slwo-1]\nnetwork: {",
         "<stdin>:9:32: ring names unknown device 'slwo-1'; did you mean "
         "'slow-1'? (devices: fast-0, fast-1, slow-0, slow-1)"},
        {"network: {", "simulate: {stragglers: [{device: fast-2, steps: 1, "
                       "factor: 2}]}\nnetwork: {",
         "straggler names unknown device 'fast-2'; did you mean 'fast-0'? "
         "(devices: fast-0, fast-1, slow-0, slow-1)"},
        {"network: {", "simulate: {overlap: bukets}\nnetwork: {",
         "<stdin>:9:21: simulate.overlap must be patent, buckets, none or "
         "last_bucket; did you mean 'buckets'?"},
        {"network: {", "ring: interleeve\nnetwork: {",
         "not 'interleeve'; did you mean 'interleave'?"},
        {"10Gbps}", "10Gbps, type_links: [[fast, sloow, 1Gbps]]}",
         "type_links names unknown device type 'sloow'; did you mean "
         "'slow'? (types: fast, slow)"},
        {"10Gbps}", "10Gbps, links: [[fast-0, fast-9, 1Gbps]]}",
         "'fast-9' is neither a device name nor a device address; did you "
         "mean 'fast-0'? (devices: fast-0, fast-1, slow-0, slow-1)"},
    };
    const char *dir = setup();
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048], *at;
        const char *in;
        size_t pre;
        hs_run_t r;

        at = strstr(scenario_yaml, cases[i].from);
        CU_ASSERT_PTR_NOT_NULL_FATAL(at);
        pre = (size_t)(at - scenario_yaml);
        snprintf(text, sizeof text, "%.*s%s%s", (int)pre, scenario_yaml,
                 cases[i].to, at + strlen(cases[i].from));
        in = hs_test_write_file("stdin-typo.yaml", text);
        CU_ASSERT_EQUAL_FATAL(run_in(&r, dir, "predict -", in), 0);
        HS_ASSERT_I64_EQ(r.status, 2);
        HS_ASSERT_STR_CONTAINS(r.err, cases[i].want);
        hs_run_free(&r);
    }
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("cli_stdin", NULL, NULL);

    CU_add_test(s, "stdin: the file's figures", test_same_figures);
    CU_add_test(s, "stdin: paths relative to the current directory",
                test_relative_to_cwd);
    CU_add_test(s, "stdin: errors at <stdin>:line:col",
                test_errors_positioned);
    CU_add_test(s, "did you mean: commands, options, sweep keys",
                test_did_you_mean);
    CU_add_test(s, "did you mean: scenario keys and names",
                test_did_you_mean_scenario);
    return 0;
}

HS_TEST_MAIN(reg)
