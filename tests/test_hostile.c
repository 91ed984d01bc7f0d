/*
 * test_hostile.c -- what a hostile or unlucky input can still do, class by
 * class, each case an exit status and a message read back (never a
 * timing):
 *
 *  - depth: YAML nested 100,000 deep (flow, in ring:, env: and
 *    stragglers:; block) and JSON nested 1,000,000 deep (a sidecar, an
 *    iperf3 report) are refused at their 65th level with the position;
 *  - silent drops: a second YAML document, a NUL byte (YAML, links CSV),
 *    a key given twice in a sidecar, a self-link (links CSV and YAML
 *    rows), overlapping ProfilerStep windows (a note), a UTF-8 BOM in a
 *    links CSV (read as the CSV it is);
 *  - narrowing and limits: a sidecar's world_size 4294967298, node kinds
 *    past 2^20 devices, a ring of 1 device (with the count's position),
 *    advise ring's budget (--force named), a gzip trace past its inflated
 *    bound, ingest --type's name rules, measure-bw's rate limits (a fake
 *    iperf3 reporting 1e302 bit/s; its server gone afterwards);
 *  - excerpts: a shadow-like file given as a profile is quoted only up to
 *    "root:";
 *  - launchers: every word through an ssh launcher is quoted so that
 *    /bin/sh rebuilds it exactly and runs nothing it holds; any other
 *    launcher refuses a word a shell would read; {name} and {host} must be
 *    inert;
 *  - the live pipeline's limit: hs_prun_limit_ns and hs_prun_where on
 *    hand-made logs, and `hetsim profile` with a fake python (no PyTorch)
 *    whose trace export outlasts profiling.timeout: the limit grows with
 *    the work the log announces; an export that never ends is reported
 *    "after all 4 steps, in 'write trace'".
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "hs_limits.h"
#include "hs_netmeasure.h"
#include "hs_profile_run.h"
#include "hs_spawn.h"
#include "hs_test.h"

#define SRC HS_TEST_SRC
#define DATA HS_TEST_SRC "/tests/data/ingest/"

static char hs__dir[4096];

static const char *hs__d(void)
{
    if (hs__dir[0] == '\0')
        snprintf(hs__dir, sizeof hs__dir, "%s", hs_test_tmpdir("hostile"));
    return hs__dir;
}

/* Writes len bytes to dir/name; returns the path (static, 4 in turn). */
static const char *hs__put(const char *name, const char *text, size_t len)
{
    static char paths[4][4096];
    static unsigned k;
    char *p = paths[k++ % 4];
    FILE *f;

    if (snprintf(p, 4096, "%s/%s", hs__d(), name) >= 4096)
        CU_FAIL_FATAL("path too long");
    f = fopen(p, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
    fclose(f);
    return p;
}

static const char *hs__puts(const char *name, const char *text)
{
    return hs__put(name, text, strlen(text));
}

/* A string of n copies of a, then n of b (malloc'd). */
static char *hs__nest(const char *pre, const char *a, const char *b,
                      size_t n, const char *post)
{
    size_t la = strlen(a), lb = strlen(b), lp = strlen(pre),
           lq = strlen(post), i, o = 0;
    char *s = malloc(lp + n * (la + lb) + lq + 1);

    memcpy(s + o, pre, lp);
    o += lp;
    for (i = 0; i < n; i++, o += la)
        memcpy(s + o, a, la);
    for (i = 0; i < n; i++, o += lb)
        memcpy(s + o, b, lb);
    memcpy(s + o, post, lq + 1);
    return s;
}

static double hs__secs(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A small valid scenario with two devices; extra text appended. */
static const char *hs__scen(const char *name, const char *extra)
{
    char text[8192];

    snprintf(text, sizeof text,
             "name: hostile\n"
             "job:\n  dataset: {samples: 1000}\n"
             "device_types:\n"
             "  - name: gpu\n"
             "    batch: 10\n"
             "    profile: {subsystem_size: 2, t_dl: 1ms, t_fwd: 1ms, "
             "t_b1: 1ms, allreduce_bytes: 1MB}\n"
             "devices:\n"
             "  - {name: d0, type: gpu, addr: 10.0.0.1}\n"
             "  - {name: d1, type: gpu, addr: 10.0.0.2}\n"
             "%s",
             extra);
    return hs__puts(name, text);
}

/* Runs `hetsim predict path`: asserts exit `want` and that stderr holds
   every needle (NULL-ended). */
static void hs__predict_fails(const char *path, int want, ...)
{
    hs_run_t r;
    va_list ap;
    const char *n;
    double t0 = hs__secs();

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", path, NULL), 0);
    printf("\n  predict %s: exit %d in %.2f s: %.160s", strrchr(path, '/'),
           r.status, hs__secs() - t0, r.err);
    HS_ASSERT_I64_EQ(r.status, want);
    va_start(ap, want);
    while ((n = va_arg(ap, const char *)) != NULL)
        HS_ASSERT_STR_CONTAINS(r.err, n);
    va_end(ap);
    hs_run_free(&r);
}

/* ---- depth ---------------------------------------------------------- */

static void test_yaml_deep(void)
{
    char *ring = hs__nest("ring: ", "[", "]", 100000, "\n");
    char *env, *strag, *block;
    size_t i;

    /* the ring: line 11 (after the 10 lines of hs__scen), at the 65th
       '[' */
    hs__predict_fails(hs__scen("deep-ring.yaml", ring), 2,
                      "deep-ring.yaml:11:70: nested deeper than 64 levels",
                      NULL);
    free(ring);
    env = hs__nest("env: ", "{a: ", "}", 100000, "\n");
    /* env: belongs to a type; at the top it is an unknown key, but the
       depth is refused first, before any key is looked at */
    hs__predict_fails(hs__scen("deep-env.yaml", env), 2,
                      "nested deeper than 64 levels", NULL);
    free(env);
    strag = hs__nest("simulate: {stragglers: ", "[", "]", 100000, "}\n");
    hs__predict_fails(hs__scen("deep-strag.yaml", strag), 2,
                      "nested deeper than 64 levels", NULL);
    free(strag);
    /* block style: "- " 100 levels deep, one per line */
    block = malloc(100 * 210 + 64);
    strcpy(block, "ring:\n");
    for (i = 0; i < 100; i++) {
        size_t o = strlen(block);
        memset(block + o, ' ', 2 * i + 2);
        strcpy(block + o + 2 * i + 2, "-\n");
    }
    hs__predict_fails(hs__scen("deep-block.yaml", block), 2,
                      "nested deeper than 64 levels", NULL);
    free(block);
}

static void test_json_deep(void)
{
    char *doc = hs__nest("", "[", "]", 1000000, "");
    const char *side = hs__put("deep.sidecar.json", doc, strlen(doc));
    hs_run_t r;

    free(doc);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "ingest", "--type", "cpu",
                                        "--sidecar", side,
                                        DATA "legacy-rank0.json.gz",
                                        DATA "legacy-rank1.json.gz", "-o",
                                        "/nonexistent/x.yaml", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "deep.sidecar.json:1:65: nested deeper "
                                  "than 64 levels");
    hs_run_free(&r);
}

/* ---- silent drops --------------------------------------------------- */

static void test_yaml_second_doc_and_nul(void)
{
    static const char nul[] = "name: a\0" "b\n";

    hs__predict_fails(hs__scen("two-docs.yaml", "---\nname: other\n"), 2,
                      "two-docs.yaml:11:1: a second YAML document", NULL);
    hs__predict_fails(hs__put("nul.yaml", nul, sizeof nul - 1), 2,
                      "nul.yaml:1:8: a NUL byte", NULL);
}

static void test_sidecar_dup_and_world(void)
{
    const char *dup = hs__puts("dup.sidecar.json",
                               "{\"hetsim_sidecar\": 1,\n"
                               " \"world_size\": 2,\n"
                               " \"world_size\": 4}\n");
    const char *big = hs__puts("big.sidecar.json",
                               "{\"hetsim_sidecar\": 1, "
                               "\"world_size\": 4294967298}\n");
    hs_run_t r;

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "ingest", "--summary",
                                        "--sidecar", dup,
                                        DATA "legacy-rank0.json.gz", NULL),
                          0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "dup.sidecar.json:3:14: the key "
                                  "'world_size' is given twice");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "ingest", "--summary",
                                        "--sidecar", big,
                                        DATA "legacy-rank0.json.gz", NULL),
                          0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "world_size: 4294967298 is past the "
                                  "limit");
    hs_run_free(&r);
    /* a double narrowed to an integer: checked, not converted */
    {
        char *side = hs_test_slurp(DATA "legacy.sidecar.json");
        char *end = side ? strrchr(side, '}') : NULL;
        char text[65536];
        const char *p;

        CU_ASSERT_PTR_NOT_NULL_FATAL(end);
        *end = '\0';
        snprintf(text, sizeof text, "%s, \"rank_use\": [{\"rank\": 0, "
                 "\"steps\": 1e300, \"compute_mean_ns\": 1e300}]}\n", side);
        free(side);
        p = hs__puts("wide.sidecar.json", text);
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "ingest", "--summary",
                                            "--sidecar", p,
                                            DATA "legacy-rank0.json.gz",
                                            DATA "legacy-rank1.json.gz",
                                            NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 2);
        HS_ASSERT_STR_CONTAINS(r.err, "rank_use[0]: rank must be below");
        hs_run_free(&r);
    }
}

static void test_links_csv(void)
{
    static const char nul[] = "d0,d1,1Gbps\nd1,d0\x00,1Gbps\n";
    static const char bom[] = "\xef\xbb\xbf" "addr1,addr2,bandwidth\n"
                              "d0,d1,3Gbps\nd1,d0,3Gbps\n";
    char extra[600];
    const char *p;
    hs_run_t r;

    p = hs__put("nul.csv", nul, sizeof nul - 1);
    snprintf(extra, sizeof extra, "network: {links_csv: %s}\n", p);
    hs__predict_fails(hs__scen("csv-nul.yaml", extra), 2,
                      "nul.csv:2:6: a NUL byte", NULL);
    p = hs__puts("self.csv", "d0,d1,1Gbps\nd1,d1,1Gbps\n");
    snprintf(extra, sizeof extra, "network: {links_csv: %s}\n", p);
    hs__predict_fails(hs__scen("csv-self.yaml", extra), 2,
                      "self.csv:2:4: a link from 'd1' to itself", NULL);
    /* a BOM: the header and rows read as without it (3 Gbit/s used) */
    p = hs__put("bom.csv", bom, sizeof bom - 1);
    snprintf(extra, sizeof extra, "network: {links_csv: %s}\n", p);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict",
                                        hs__scen("csv-bom.yaml", extra),
                                        NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "at 3 Gbit/s");
    hs_run_free(&r);
    /* a self-link in the YAML rows, by name or by the device's address */
    hs__predict_fails(hs__scen("yaml-self.yaml",
                               "network:\n  links:\n"
                               "    - [d0, 10.0.0.1, 1Gbps]\n"),
                      2, "yaml-self.yaml:13:12: a link from 'd0' to itself",
                      NULL);
}

static void test_step_windows_overlap(void)
{
    /* two ProfilerStep windows of one thread, the first running into the
       second */
    const char *t = hs__puts(
        "overlap.json",
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
        "\"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, "
        "\"dur\": 150},\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
        "\"ProfilerStep#2\", \"pid\": 1, \"tid\": 1, \"ts\": 100, "
        "\"dur\": 100}\n]}\n");
    hs_run_t r;

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "ingest", "--summary",
                                        "--warmup", "0", t, NULL), 0);
    HS_ASSERT_STR_CONTAINS(r.err, "overlap.json: 1 ProfilerStep window "
                                  "overlapped the next one");
    hs_run_free(&r);
}

/* ---- narrowing and limits ------------------------------------------- */

static void test_counts_and_nodes(void)
{
    char text[4096];
    const char *p;
    hs_run_t r;

    p = hs__puts("count1.yaml",
                 "name: c1\njob:\n  dataset: {samples: 1000}\n"
                 "device_types:\n  - name: gpu\n    count: 1\n"
                 "    batch: 10\n"
                 "    profile: {subsystem_size: 2, t_dl: 1ms, t_fwd: 1ms, "
                 "t_b1: 1ms, allreduce_bytes: 1MB}\n"
                 "network: {default_bandwidth: 10Gbps}\n");
    hs__predict_fails(p, 2, "count1.yaml:6:12: device_types.gpu.count: the "
                            "type counts make 1 device: a ring needs at "
                            "least 2", NULL);
    snprintf(text, sizeof text,
             "name: n\njob:\n  dataset: {samples: 1000000000}\n"
             "device_types:\n  - name: A\n    batch: 10\n"
             "    profile: {subsystem_size: 2, t_dl: 1ms, t_fwd: 1ms, "
             "t_b1: 1ms, allreduce_bytes: 1MB}\n"
             "nodes:\n  kinds:\n"
             "    - {name: a, type: A, devices: 1024, count: 2049,\n"
             "       intra_bandwidth: 100GB/s, nics: 1, "
             "nic_bandwidth: 10GB/s}\n"
             "  inter_bandwidth: 10GB/s\n");
    p = hs__puts("nodes-big.yaml", text);
    hs__predict_fails(p, 2, "nodes-big.yaml:10:48: nodes.a.count: the node "
                            "kinds make 2098176 devices; a ring has at most "
                            "1048576", NULL);
    /* advise ring over 8,000 devices: refused at once, --force named */
    p = hs__puts("ring-big.yaml",
                 "name: r\njob:\n  dataset: {samples: 1000000000}\n"
                 "device_types:\n"
                 "  - {name: A, count: 4000, batch: 10, profile: "
                 "{subsystem_size: 2, t_dl: 1ms, t_fwd: 1ms, t_b1: 1ms, "
                 "allreduce_bytes: 1MB}}\n"
                 "  - {name: B, count: 4000, batch: 10, profile: "
                 "{subsystem_size: 2, t_dl: 1ms, t_fwd: 2ms, t_b1: 1ms, "
                 "allreduce_bytes: 1MB}}\n"
                 "network: {default_bandwidth: 10Gbps}\n");
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "advise", "ring", p,
                                        "--no-progress", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "over 8000 devices is past its budget");
    HS_ASSERT_STR_CONTAINS(r.err, "--force");
    hs_run_free(&r);
}

static void test_ingest_limits(void)
{
    hs_run_t r;

    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "ingest", "--type", "a b",
                                        DATA "legacy-rank0.json.gz", "-o",
                                        "x.yaml", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "--type 'a b'");
    hs_run_free(&r);
    /* the inflated bound, lowered for the test: the first file inflates
       to about 1 MB */
    setenv("HETSIM_TRACE_MAX_BYTES", "100000", 1);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "ingest", "--summary",
                                        DATA "legacy-rank0.json.gz", NULL),
                          0);
    unsetenv("HETSIM_TRACE_MAX_BYTES");
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "bytes of JSON once inflated (the limit");
    hs_run_free(&r);
}

/* ---- excerpts ------------------------------------------------------- */

static void test_excerpt(void)
{
    const char *shadow = hs__puts(
        "shadow", "root:$y$j9T$SECRETSECRETSECRET:19000:0:99999:7:::\n");
    hs_run_t r;

    {
        char text[2048];
        snprintf(text, sizeof text,
                 "name: x\njob:\n  dataset: {samples: 1000}\n"
                 "device_types:\n  - name: gpu\n    count: 2\n"
                 "    batch: 10\n    profile: %s\n"
                 "network: {default_bandwidth: 10Gbps}\n", shadow);
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict",
                                            hs__puts("shadow.yaml", text),
                                            NULL), 0);
    }
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "unknown key 'root:...'");
    CU_ASSERT(strstr(r.err, "SECRET") == NULL);
    CU_ASSERT(strstr(r.err, "$y$") == NULL);
    hs_run_free(&r);
}

/* ---- measure-bw ----------------------------------------------------- */

/* A fake iperf3: as a server it records its pid and waits; as a client
   it prints the report in $HS_FAKE_REPORT. */
static const char *hs__fake_iperf3(void)
{
    static char path[4096];
    char text[8192];

    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "for a in \"$@\"; do\n"
             "  if [ \"$a\" = -s ]; then echo $$ >> %s/servers; "
             "exec sleep 60; fi\n"
             "done\n"
             "cat \"$HS_FAKE_REPORT\"\n", hs__d());
    snprintf(path, sizeof path, "%s", hs__puts("iperf3", text));
    chmod(path, 0755);
    return path;
}

/* Runs one measured pair with report text; returns the pair's why. */
static void hs__nm_case(const char *report, const char *want)
{
    hs_nm_host_t h[2] = {{"a", "127.0.0.1"}, {"b", "127.0.0.1"}};
    char servers[4200], *pids, *p;
    hs_nm_opts_t o;
    hs_nm_result_t r;
    hs_error_t err;

    snprintf(servers, sizeof servers, "%s/servers", hs__d());
    unlink(servers);
    setenv("HS_FAKE_REPORT", hs__puts("report.json", report), 1);
    hs_nm_opts_init(&o);
    o.iperf3 = hs__fake_iperf3();
    o.time_s = 1;
    o.omit_s = 0;
    o.slack_ns = 5000000000LL;
    hs_error_clear(&err);
    (void)hs_nm_measure(h, 2, NULL, &o, &r, &err);
    unsetenv("HS_FAKE_REPORT");
    CU_ASSERT_FATAL(r.n_pairs >= 1);
    printf("\n  measure-bw: %s", r.pairs[0].why);
    CU_ASSERT_EQUAL(r.pairs[0].ok, 0);
    HS_ASSERT_STR_CONTAINS(r.pairs[0].why, want);
    hs_nm_result_clear(&r);
    /* every server it started is gone */
    pids = hs_test_slurp(servers);
    CU_ASSERT_PTR_NOT_NULL(pids);
    for (p = pids; p != NULL && *p != '\0';) {
        long pid = strtol(p, &p, 10);
        if (pid > 0)
            CU_ASSERT(kill((pid_t)pid, 0) != 0 && errno == ESRCH);
        while (*p == '\n')
            p++;
    }
    free(pids);
}

static void test_measure_bw_limits(void)
{
    char *deep;

    hs__nm_case("{\"end\": {\"sum_received\": {\"bits_per_second\": "
                "1e302}}}\n",
                "outside the limits");
    deep = hs__nest("", "[", "]", 1000000, "");
    hs__nm_case(deep, "nested deeper than 64 levels");
    free(deep);
}

/* ---- launchers ------------------------------------------------------ */

static void test_launcher_quoting(void)
{
    static char *ssh[] = {"/usr/bin/ssh", "{host}"};
    static char *other[] = {"/opt/x/launch", "{host}", "--"};
    char mark[4200], *cmd[8];
    char **argv = NULL;
    hs_error_t err;
    size_t i;
    hs_run_t r;
    char joined[8192] = "";

    snprintf(mark, sizeof mark, "%s/pwned", hs__d());
    unlink(mark);
    cmd[0] = "printf";
    cmd[1] = "%s|";
    cmd[2] = "a b";
    cmd[3] = malloc(3 * strlen(mark) + 64);
    sprintf(cmd[3], "x;touch %s;$(touch %s)`touch %s`'\"", mark, mark,
            mark);
    cmd[4] = "KEY=it's";
    cmd[5] = "";
    cmd[6] = NULL;
    CU_ASSERT_EQUAL_FATAL(hs_launch_argv(ssh, 2, "10.0.0.1", "d0", cmd,
                                         "test", &argv, &err), HS_OK);
    CU_ASSERT_STRING_EQUAL(argv[0], "/usr/bin/ssh");
    CU_ASSERT_STRING_EQUAL(argv[1], "10.0.0.1");
    /* the remote side: ssh joins the words with spaces for sh -c */
    for (i = 2; argv[i] != NULL; i++) {
        strcat(joined, i > 2 ? " " : "");
        strcat(joined, argv[i]);
    }
    {
        char *sh[] = {"/bin/sh", "-c", joined, NULL};
        char want[4400];
        CU_ASSERT_EQUAL_FATAL(hs_run(sh, &r), 0);
        snprintf(want, sizeof want, "a b|%s|KEY=it's||", cmd[3]);
        CU_ASSERT_STRING_EQUAL(r.out, want);
        hs_run_free(&r);
    }
    CU_ASSERT(access(mark, F_OK) != 0);
    hs_argv_free(argv);
    /* any other launcher: a word a shell would read is refused */
    CU_ASSERT_EQUAL(hs_launch_argv(other, 3, "10.0.0.1", "d0", cmd, "test",
                                   &argv, &err), HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(err.msg, "the command's word '%s...'");
    CU_ASSERT_PTR_NULL(argv);
    /* an inert command passes through unchanged */
    {
        char *ok[] = {"iperf3", "-c", "10.0.0.2", "-p", "5201", NULL};
        CU_ASSERT_EQUAL_FATAL(hs_launch_argv(other, 3, "h", "d0", ok,
                                             "test", &argv, &err), HS_OK);
        CU_ASSERT_STRING_EQUAL(argv[1], "h");
        CU_ASSERT_STRING_EQUAL(argv[4], "-c");
        hs_argv_free(argv);
    }
    /* a substituted name a shell would read: refused, whatever the
       launcher */
    {
        static char *named[] = {"/usr/bin/ssh", "{host}", "cd", "/{name}"};
        char *ok[] = {"true", NULL};
        CU_ASSERT_EQUAL(hs_launch_argv(named, 4, "h", "d0;reboot", ok,
                                       "test", &argv, &err), HS_ERR_SCHEMA);
        HS_ASSERT_STR_CONTAINS(err.msg, "{name} would be 'd0...'");
    }
    free(cmd[3]);
}

/* An ssh-like launcher at dir/name: drops the host and runs the rest
   joined with spaces by /bin/sh -c, as ssh does on the remote side. */
static const char *hs__fake_launcher(const char *name)
{
    static char path[4096];

    snprintf(path, sizeof path, "%s",
             hs__puts(name, "#!/bin/sh\nshift\nexec /bin/sh -c \"$*\"\n"));
    chmod(path, 0755);
    return path;
}

static const char *hs__fake_python(void);

/* `hetsim profile` through launcher with an env value that would run a
   command in a shell; returns the run (the caller frees it). */
static void hs__launch_profile(const char *launcher, const char *mark,
                               const char *envout, hs_run_t *r)
{
    char text[20000], out[4200];
    const char *scen, *py = hs__fake_python();

    hs__puts("model.py", "def build_model():\n    return None\n");
    snprintf(text, sizeof text,
             "name: fake\n"
             "job: {model: {file: %s/model.py}, dataset: {samples: 1000}}\n"
             "device_types:\n"
             "  - {name: cpu, count: 2, batch: 8,"
             " env: {HS_FAKE_MS: \"1\", HS_FAKE_EXPORT_S: \"0\","
             " HS_FAKE_ENVOUT: \"%s\","
             " X: \"a b;touch %s;$(touch %s)`touch %s`\"}}\n"
             "devices:\n"
             "  - {name: c0, type: cpu, addr: 127.0.0.1}\n"
             "  - {name: c1, type: cpu, addr: 127.0.0.1}\n"
             "network: {default_bandwidth: 1Gbps}\n"
             "profiling: {iterations: 4, warmup: 1, timeout: 20s, "
             "python: %s, harness: %s/live/harness/hetsim_harness.py, "
             "launcher: [%s, \"{host}\"], master_port: %d}\n",
             hs__d(), envout, mark, mark, mark, py, SRC, launcher,
             29950 + (int)(getpid() % 40));
    scen = hs__puts("launch.yaml", text);
    snprintf(out, sizeof out, "%s/launch-out", hs__d());
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(r, "profile", scen, "-o", out, NULL),
                          0);
    printf("\n  profile through %s: exit %d: %.200s", strrchr(launcher, '/'),
           r->status, r->err);
}

static void test_launcher_profile(void)
{
    char mark[4200], envout[4200];
    char *got;
    hs_run_t r;

    snprintf(mark, sizeof mark, "%s/pwned-profile", hs__d());
    snprintf(envout, sizeof envout, "%s/envout", hs__d());
    /* named ssh: every word quoted; the value arrives whole, nothing
       runs */
    unlink(mark);
    unlink(envout);
    hs__launch_profile(hs__fake_launcher("ssh"), mark, envout, &r);
    hs_run_free(&r);
    CU_ASSERT(access(mark, F_OK) != 0);
    got = hs_test_slurp(envout);
    CU_ASSERT_PTR_NOT_NULL(got);
    if (got != NULL) {
        char want[16384];
        snprintf(want, sizeof want, "a b;touch %s;$(touch %s)`touch %s`",
                 mark, mark, mark);
        CU_ASSERT_STRING_EQUAL(got, want);
    }
    free(got);
    /* any other name: refused before anything runs */
    unlink(mark);
    hs__launch_profile(hs__fake_launcher("launch"), mark, envout, &r);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "a shell would read");
    hs_run_free(&r);
    CU_ASSERT(access(mark, F_OK) != 0);
}

/* ---- the live pipeline's limit -------------------------------------- */

static void test_prun_limit(void)
{
    hs_prun_log_t lg[2];
    char where[200];
    const char *log;
    int64_t lim;

    /* before any step: the floor */
    memset(lg, 0, sizeof lg);
    lg[0].steps_total = lg[1].steps_total = -1;
    HS_ASSERT_I64_EQ(hs_prun_limit_ns(300000000000LL, 3.0, lg, 2, 0, 8),
                     300000000000LL);
    /* 40 steps of 6 s done at 250 s, 20 of them profiled, 8 hop trials:
       left 0 + 20 + 16 + 2 = 38 steps x 6 s x 3 = 684 s, + 60 s */
    lg[0].steps_total = lg[1].steps_total = 40;
    lg[0].steps_profiled = lg[1].steps_profiled = 20;
    lg[0].steps_done = lg[1].steps_done = 40;
    lg[0].step_ms_sum = 40 * 5000.0;
    lg[1].step_ms_sum = 40 * 6000.0;     /* the slower rank's mean */
    lim = hs_prun_limit_ns(300000000000LL, 3.0, lg, 2, 250000000000LL, 8);
    HS_ASSERT_I64_EQ(lim, 250000000000LL + 684000000000LL + 60000000000LL);
    /* half way: 20 more steps to do */
    lg[0].steps_done = 20;
    lg[0].step_ms_sum = 20 * 6000.0;
    lim = hs_prun_limit_ns(300000000000LL, 1.0, lg, 2, 125000000000LL, 0);
    /* (20 + 20 + 0 + 2) x 6 s = 252 s */
    HS_ASSERT_I64_EQ(lim, 125000000000LL + 252000000000LL + 60000000000LL);
    /* fast steps: never under the floor */
    lg[0].step_ms_sum = lg[1].step_ms_sum = 1.0;
    HS_ASSERT_I64_EQ(hs_prun_limit_ns(300000000000LL, 3.0, lg, 2, 1000, 8),
                     300000000000LL);

    /* the log as the harness writes it */
    log = hs__puts("rank0.log",
                   "hetsim-harness: rank 0: steps 3 (1 profiled)\n"
                   "hetsim-harness: rank 0: step 0 begins data\n"
                   "hetsim-harness: rank 0: step 0 done: 100.000 ms\n"
                   "hetsim-harness: rank 0: step 1 begins data\n"
                   "hetsim-harness: rank 0: step 1 begins forward\n"
                   "hetsim-harness: rank 0: step 1 done: 300.000 ms\n"
                   "hetsim-harness: rank 0: step 2 begins data\n"
                   "hetsim-harness: rank 0: step 2 done: 200.000 ms\n"
                   "hetsim-harness: rank 0: after training: write trace\n"
                   "STAGE:2026-12-02 profiler export\n");
    hs_prun_log_scan(log, &lg[0]);
    HS_ASSERT_I64_EQ(lg[0].steps_total, 3);
    HS_ASSERT_I64_EQ(lg[0].steps_profiled, 1);
    HS_ASSERT_I64_EQ(lg[0].steps_done, 3);
    HS_ASSERT_DBL_NEAR(lg[0].step_ms_sum, 600.0, 1e-9);
    CU_ASSERT_EQUAL(lg[0].after, 1);
    hs_prun_where(&lg[0], where, sizeof where);
    CU_ASSERT_STRING_EQUAL(where, "after all 3 steps, in 'write trace'");
    log = hs__puts("rank1.log",
                   "hetsim-harness: rank 1: steps 3 (1 profiled)\n"
                   "hetsim-harness: rank 1: step 0 begins data\n"
                   "hetsim-harness: rank 1: step 0 begins forward\n");
    hs_prun_log_scan(log, &lg[1]);
    hs_prun_where(&lg[1], where, sizeof where);
    CU_ASSERT_STRING_EQUAL(where, "in step 0 (forward)");
}

/* A fake python for `hetsim profile`: announces 4 steps of $HS_FAKE_MS
   ms, does them at once, then "exports the trace" for $HS_FAKE_EXPORT_S
   seconds and exits 0 (it writes no trace: the ingestion fails after). */
static const char *hs__fake_python(void)
{
    static char path[4096];
    const char *text =
        "#!/bin/sh\n"
        "r=${RANK:-0}\n"
        "echo \"hetsim-harness: rank $r: steps 4 (2 profiled)\"\n"
        "for i in 0 1 2 3; do\n"
        "  echo \"hetsim-harness: rank $r: step $i begins data\"\n"
        "  echo \"hetsim-harness: rank $r: step $i done: $HS_FAKE_MS ms\"\n"
        "done\n"
        "echo \"hetsim-harness: rank $r: after training: write trace\"\n"
        "if [ -n \"$HS_FAKE_ENVOUT\" ]; then printf '%s' \"$X\" > "
        "\"$HS_FAKE_ENVOUT\"; fi\n"
        "sleep $HS_FAKE_EXPORT_S\n"
        "exit 0\n";

    snprintf(path, sizeof path, "%s", hs__puts("python", text));
    chmod(path, 0755);
    return path;
}

static void hs__fake_profile(const char *ms, const char *export_s,
                             hs_run_t *r)
{
    char text[2048], out[4200];
    const char *scen, *py = hs__fake_python();

    hs__puts("model.py", "def build_model():\n    return None\n");
    snprintf(text, sizeof text,
             "name: fake\n"
             "job: {model: {file: model.py}, dataset: {samples: 1000}}\n"
             "device_types:\n"
             "  - {name: cpu, count: 2, batch: 8,"
             " env: {HS_FAKE_MS: \"%s\", HS_FAKE_EXPORT_S: \"%s\"}}\n"
             "network: {default_bandwidth: 1Gbps}\n"
             "profiling: {iterations: 4, warmup: 1, timeout: 2s, "
             "timeout_factor: 1, master_port: %d}\n",
             ms, export_s, 29900 + (int)(getpid() % 50));
    scen = hs__puts("fake.yaml", text);
    snprintf(out, sizeof out, "%s/fake-out-%s", hs__d(), export_s);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(r, "profile", scen, "-o", out,
                                        "--python", py, NULL), 0);
    printf("\n  profile (steps %s ms, export %s s): exit %d: %.300s", ms,
           export_s, r->status, r->err);
}

static void test_profile_limit(void)
{
    hs_run_t r;

    /* steps said to take 1 s each: the export's 4 s fit in the grown
       limit (2 s floor; 4 steps' work left x 1 s + 2 s), so the run is
       not stopped -- it fails after, on the trace it did not write */
    hs__fake_profile("1000", "4", &r);
    CU_ASSERT(r.status != 0);
    CU_ASSERT(strstr(r.err, "did not finish") == NULL);
    hs_run_free(&r);
    /* an export that never ends: stopped, with the stage it was in */
    hs__fake_profile("50", "600", &r);
    HS_ASSERT_I64_EQ(r.status, 4);
    HS_ASSERT_STR_CONTAINS(r.err, "did not finish within");
    HS_ASSERT_STR_CONTAINS(r.err, "stopped after all 4 steps, in 'write "
                                  "trace'");
    hs_run_free(&r);
}

static int hs__register(void)
{
    CU_pSuite su = CU_add_suite("hostile", NULL, NULL);

    if (su == NULL)
        return -1;
    CU_add_test(su, "yaml_deep", test_yaml_deep);
    CU_add_test(su, "json_deep", test_json_deep);
    CU_add_test(su, "yaml_second_doc_and_nul", test_yaml_second_doc_and_nul);
    CU_add_test(su, "sidecar_dup_and_world", test_sidecar_dup_and_world);
    CU_add_test(su, "links_csv", test_links_csv);
    CU_add_test(su, "step_windows_overlap", test_step_windows_overlap);
    CU_add_test(su, "counts_and_nodes", test_counts_and_nodes);
    CU_add_test(su, "ingest_limits", test_ingest_limits);
    CU_add_test(su, "excerpt", test_excerpt);
    CU_add_test(su, "measure_bw_limits", test_measure_bw_limits);
    CU_add_test(su, "launcher_quoting", test_launcher_quoting);
    CU_add_test(su, "launcher_profile", test_launcher_profile);
    CU_add_test(su, "prun_limit", test_prun_limit);
    CU_add_test(su, "profile_limit", test_profile_limit);
    return 0;
}

HS_TEST_MAIN(hs__register)
