/*
 * test_measure_bw.c -- hs_netmeasure and `hetsim measure-bw` against real
 * iperf3 runs.
 *
 * Unit part (any user): the pair plan and its rounds, launcher argv
 * building, a missing iperf3, and one real measurement over loopback.
 *
 * Network part (root): three test hosts are network namespaces joined by
 * a bridge in a fourth ("switch") namespace, with veth pairs and addresses
 * in 198.18.0.0/15; each host's egress is shaped by `tc qdisc ... tbf` to a
 * different rate (50, 100, 200 Mbit/s).  measure-bw, running each iperf3
 * inside its namespace through the launcher [ip, netns, exec, "{name}"],
 * must find every ring edge at its sender's shaped rate: no more (tbf lets
 * no more through; 15% for iperf3's reading) and more than a quarter of it
 * (a unit slip, bytes for bits, reads an eighth).  How close it comes is
 * printed, not judged: iperf3 shares a loaded machine's cores.  With
 * --ordered-pairs it must find all six directed pairs, each within its
 * sender's rate (one second measured per pair).
 * An address nobody holds must fail naming the pair, with the pairs that
 * were measured kept in links.csv.partial.  The namespaces (and any
 * process left in them) are removed at the end, on failure, at exit and on
 * SIGINT/SIGTERM.  Skipped with a printed reason only when not root, when
 * `ip netns add` fails, or when ip/tc/iperf3 are missing.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_netmeasure.h"
#include "hs_scenario.h"
#include "hs_spawn.h"
#include "hs_test.h"
#include "hs_testnet.h"

/* --- the test network ------------------------------------------------ */

#define HS__NHOST 3
static const unsigned hs__rate_mbit[HS__NHOST] = {50, 100, 200};
static hs_testnet_t hs__net;

/* Builds the test network once.  Returns 1 when ready, 0 when it failed
   (the caller asserts), -1 when this machine cannot (reason printed). */
static int hs__net_setup(void)
{
    static int state;   /* 0 not tried, 1 ready, -1 impossible, 2 failed */
    char why[512], buf[256];
    int rc;

    if (state != 0)
        return state == 2 ? 0 : state;
    if (hs_test_which("iperf3", buf, sizeof buf) == NULL) {
        hs_test_skip("measure-bw network", "iperf3 not installed");
        return state = -1;
    }
    rc = hs_testnet_up(&hs__net, "hsbw", HS__NHOST, NULL, 18,
                       hs__rate_mbit, why, sizeof why);
    if (rc == 0) {
        hs_test_skip("measure-bw network", why);
        return state = -1;
    }
    if (rc < 0) {
        fprintf(stderr, "%s\n", why);
        state = 2;
        return 0;
    }
    return state = 1;
}

/* --- unit part -------------------------------------------------------- */

static void test_plan_rounds(void)
{
    hs_nm_result_t r;
    uint32_t ring4[] = {2, 0, 3, 1};
    size_t i, j;

    CU_ASSERT_EQUAL_FATAL(hs_nm_plan(4, ring4, 0, &r, NULL), HS_OK);
    HS_ASSERT_I64_EQ(r.n_pairs, 4);
    HS_ASSERT_I64_EQ(r.n_rounds, 2);       /* an even ring: 2 rounds */
    for (i = 0; i < 4; i++) {
        HS_ASSERT_I64_EQ(r.pairs[i].from, ring4[i]);
        HS_ASSERT_I64_EQ(r.pairs[i].to, ring4[(i + 1) % 4]);
    }
    /* no device twice in a round */
    for (i = 0; i < r.n_pairs; i++)
        for (j = i + 1; j < r.n_pairs; j++)
            if (r.pairs[i].round == r.pairs[j].round) {
                CU_ASSERT(r.pairs[i].from != r.pairs[j].from);
                CU_ASSERT(r.pairs[i].from != r.pairs[j].to);
                CU_ASSERT(r.pairs[i].to != r.pairs[j].from);
                CU_ASSERT(r.pairs[i].to != r.pairs[j].to);
            }
    hs_nm_result_clear(&r);

    CU_ASSERT_EQUAL_FATAL(hs_nm_plan(3, NULL, 0, &r, NULL), HS_OK);
    HS_ASSERT_I64_EQ(r.n_pairs, 3);
    HS_ASSERT_I64_EQ(r.n_rounds, 3);       /* an odd ring needs 3 */
    hs_nm_result_clear(&r);

    CU_ASSERT_EQUAL_FATAL(hs_nm_plan(2, NULL, 0, &r, NULL), HS_OK);
    HS_ASSERT_I64_EQ(r.n_pairs, 2);        /* both directions */
    HS_ASSERT_I64_EQ(r.pairs[1].from, 1);
    HS_ASSERT_I64_EQ(r.pairs[1].to, 0);
    hs_nm_result_clear(&r);

    CU_ASSERT_EQUAL_FATAL(hs_nm_plan(5, NULL, 1, &r, NULL), HS_OK);
    HS_ASSERT_I64_EQ(r.n_pairs, 10);
    for (i = 0; i < r.n_pairs; i++)
        for (j = i + 1; j < r.n_pairs; j++) {
            CU_ASSERT(!(r.pairs[i].from == r.pairs[j].from
                        && r.pairs[i].to == r.pairs[j].to));
            if (r.pairs[i].round == r.pairs[j].round)
                CU_ASSERT(r.pairs[i].from != r.pairs[j].to
                          && r.pairs[i].to != r.pairs[j].from
                          && r.pairs[i].from != r.pairs[j].from
                          && r.pairs[i].to != r.pairs[j].to);
        }
    CU_ASSERT(r.n_rounds >= 5);   /* K5 needs 5 colours */
    hs_nm_result_clear(&r);

    /* ordered pairs: every a -> b and b -> a, one pair per round */
    CU_ASSERT_EQUAL_FATAL(hs_nm_plan(4, ring4, HS_NM_ORDERED_PAIRS, &r, NULL),
                          HS_OK);
    HS_ASSERT_I64_EQ(r.n_pairs, 12);
    HS_ASSERT_I64_EQ(r.n_rounds, 12);
    for (i = 0; i < r.n_pairs; i++) {
        CU_ASSERT(r.pairs[i].from != r.pairs[i].to);
        CU_ASSERT(r.pairs[i].from < 4 && r.pairs[i].to < 4);
        HS_ASSERT_I64_EQ(r.pairs[i].round, i);
        for (j = i + 1; j < r.n_pairs; j++)
            CU_ASSERT(!(r.pairs[i].from == r.pairs[j].from
                        && r.pairs[i].to == r.pairs[j].to));
    }
    hs_nm_result_clear(&r);
    CU_ASSERT_EQUAL(hs_nm_plan(3, NULL, 3, &r, NULL), HS_ERR_RANGE);

    CU_ASSERT_EQUAL(hs_nm_plan(1, NULL, 0, &r, NULL), HS_ERR_RANGE);
}

static void test_argv_build(void)
{
    char *tmpl[] = {"ip", "netns", "exec", "{name}", "x{host}y", NULL};
    char *cmd[] = {"iperf3", "-s", NULL};
    char **a = hs_argv_build(tmpl, 5, "198.18.0.1", "ns;rm -rf /", cmd);

    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_STRING_EQUAL(a[0], "ip");
    /* a value is one argument, whatever it contains: no shell */
    CU_ASSERT_STRING_EQUAL(a[3], "ns;rm -rf /");
    CU_ASSERT_STRING_EQUAL(a[4], "x198.18.0.1y");
    CU_ASSERT_STRING_EQUAL(a[5], "iperf3");
    CU_ASSERT_STRING_EQUAL(a[6], "-s");
    CU_ASSERT_PTR_NULL(a[7]);
    hs_argv_free(a);
}

static void test_iperf3_missing(void)
{
    hs_nm_host_t h[2] = {{"a", "127.0.0.1"}, {"b", "127.0.0.1"}};
    hs_nm_opts_t o;
    hs_nm_result_t r;
    hs_error_t err;
    hs_err_t rc;

    hs_nm_opts_init(&o);
    o.iperf3 = "/nonexistent/hetsim-no-iperf3";
    o.time_s = 1;
    hs_error_clear(&err);
    rc = hs_nm_measure(h, 2, NULL, &o, &r, &err);
    HS_ASSERT_I64_EQ(rc, HS_ERR_EXTERNAL);
    HS_ASSERT_I64_EQ(hs_err_exit_code(rc), 4);
    HS_ASSERT_STR_CONTAINS(err.msg, "a (127.0.0.1) -> b (127.0.0.1)");
    HS_ASSERT_STR_CONTAINS(err.msg, "hetsim-no-iperf3");
    HS_ASSERT_I64_EQ(r.n_failed, 2);
    hs_nm_result_clear(&r);
}

static void test_loopback(void)
{
    hs_nm_host_t h[2] = {{"a", "127.0.0.1"}, {"b", "127.0.0.1"}};
    hs_nm_opts_t o;
    hs_nm_result_t r;
    hs_error_t err;
    const char *dir, *csv;
    char *text;
    static char path[4096];

    if (hs_test_which("iperf3", path, sizeof path) == NULL) {
        hs_test_skip("measure-bw loopback", "iperf3 not installed");
        return;
    }
    hs_nm_opts_init(&o);
    o.time_s = 1;
    o.omit_s = 0;
    /* 20000..28999: clear of the gloo master ports the profile tests use
       (29531, 29600..30299) when the tests run side by side */
    o.port = 20000 + (unsigned)(getpid() % 9000);
    hs_error_clear(&err);
    CU_ASSERT_EQUAL(hs_nm_measure(h, 2, NULL, &o, &r, &err), HS_OK);
    if (err.code != HS_OK)
        fprintf(stderr, "\n%s\n", err.msg);
    HS_ASSERT_I64_EQ(r.n_failed, 0);
    /* loopback moves far more than 100 Mbit/s */
    CU_ASSERT(r.pairs[0].ok && r.pairs[0].bw_bytes_per_s > 12.5e6);
    CU_ASSERT(r.pairs[1].ok && r.pairs[1].bw_bytes_per_s > 12.5e6);
    dir = hs_test_tmpdir("bw-loop");
    snprintf(path, sizeof path, "%s/links.csv", dir);
    CU_ASSERT_EQUAL(hs_nm_write_csv(path, h, &r, &err), HS_OK);
    csv = path;
    text = hs_read_small_file(csv, 4096);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    HS_ASSERT_STR_CONTAINS(text, "127.0.0.1,127.0.0.1,");
    HS_ASSERT_STR_CONTAINS(text, "Mbit/s");
    free(text);
    hs_nm_result_clear(&r);
}

/* --- network part ----------------------------------------------------- */

/* Within the shaped rate of the sending host (15% for iperf3's reading)
   and above a quarter of it. */
static int hs__rate_ok(double rel)
{
    return rel > -0.75 && rel <= 0.15;
}

static void hs__check_rate(const char *what, double bw_bytes_per_s,
                           unsigned shaped_mbit)
{
    double mbit = bw_bytes_per_s * 8 / 1e6;
    double rel = (mbit - shaped_mbit) / shaped_mbit;

    printf("\n  %s: measured %.2f Mbit/s, shaped %u Mbit/s (%+.1f%%)",
           what, mbit, shaped_mbit, 100 * rel);
    if (!hs__rate_ok(rel))
        fprintf(stderr, "\n%s: %.2f Mbit/s is above %u or below a quarter "
                "of it\n", what, mbit, shaped_mbit);
    CU_ASSERT(hs__rate_ok(rel));
}

static void test_netns_library(void)
{
    hs_nm_host_t h[HS__NHOST];
    char *launcher[] = {hs__net.ip, "netns", "exec", "{name}", NULL};
    hs_nm_opts_t o;
    hs_nm_result_t r;
    hs_error_t err;
    int i, st = hs__net_setup();
    size_t k;

    if (st < 0)
        return;
    CU_ASSERT_FATAL(st == 1);
    for (i = 0; i < HS__NHOST; i++) {
        h[i].name = hs__net.ns[i];
        h[i].addr = hs__net.addr[i];
    }
    hs_nm_opts_init(&o);
    o.launcher = launcher;
    o.n_launcher = 4;
    o.time_s = 1;
    o.omit_s = 1;
    hs_error_clear(&err);
    CU_ASSERT_EQUAL(hs_nm_measure(h, HS__NHOST, NULL, &o, &r, &err), HS_OK);
    if (err.code != HS_OK)
        fprintf(stderr, "\n%s\n", err.msg);
    HS_ASSERT_I64_EQ(r.n_pairs, 3);
    HS_ASSERT_I64_EQ(r.n_rounds, 3);
    for (k = 0; k < r.n_pairs; k++) {
        char what[128];

        snprintf(what, sizeof what, "%s -> %s", hs__net.addr[r.pairs[k].from],
                 hs__net.addr[r.pairs[k].to]);
        CU_ASSERT(r.pairs[k].ok);
        if (r.pairs[k].ok)
            hs__check_rate(what, r.pairs[k].bw_bytes_per_s,
                           hs__rate_mbit[r.pairs[k].from]);
    }
    hs_nm_result_clear(&r);
}

/* The scenario text: the three hosts (device names = namespace names,
   so the launcher [ip, netns, exec, "{name}"] finds them) in ring order
   h0, h1, h2. */
static const char *hs__scenario(const char *dir)
{
    static char path[4096];
    char text[4096];

    snprintf(text, sizeof text,
             "name: live-measure-bw-test\n"
             "job: {model: mlp, dataset: {samples: 1000}}\n"
             "device_types:\n"
             "  - {name: cpu, count: 3, batch: 32,\n"
             "     profile: {subsystem_size: 2, t_dl: 1ms, t_fwd: 1ms,"
             " t_b1: 1ms, allreduce_bytes: 1MB}}\n"
             "devices:\n"
             "  - {name: %s, type: cpu, addr: %s}\n"
             "  - {name: %s, type: cpu, addr: %s}\n"
             "  - {name: %s, type: cpu, addr: %s}\n"
             "ring: listing\n"
             "network: {default_bandwidth: 1Gbps}\n"
             "profiling:\n"
             "  launcher: [%s, netns, exec, \"{name}\"]\n",
             hs__net.ns[0], hs__net.addr[0], hs__net.ns[1], hs__net.addr[1], hs__net.ns[2],
             hs__net.addr[2], hs__net.ip);
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    hs_test_write(path, text);
    return path;
}

static void test_netns_cli(void)
{
    const char *dir, *scen;
    char csv[4096], arg_csv[4096];
    char *text, *line, *save = NULL;
    hs_run_t r;
    int st = hs__net_setup(), rows = 0;

    if (st < 0)
        return;
    CU_ASSERT_FATAL(st == 1);
    dir = hs_test_tmpdir("bw-netns");
    scen = hs__scenario(dir);
    snprintf(csv, sizeof csv, "%s/links.csv", dir);
    snprintf(arg_csv, sizeof arg_csv, "%s", csv);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "measure-bw", scen, "-o",
                                        arg_csv, "--time", "1", NULL), 0);
    if (r.status != 0)
        fprintf(stderr, "\nmeasure-bw: %d\n%s\n%s\n", r.status, r.out,
                r.err);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "wrote");
    hs_run_free(&r);
    text = hs_read_small_file(csv, 1 << 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    /* ring h0 -> h1 -> h2 -> h0: each row from a host carries its rate */
    for (line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char a[64], b[64];
        double mbit;
        int i, from = -1, to = -1;

        if (sscanf(line, "%63[^,],%63[^,],%lfMbit/s", a, b, &mbit) != 3) {
            CU_FAIL("links.csv row not addr,addr,NNNMbit/s");
            continue;
        }
        for (i = 0; i < HS__NHOST; i++) {
            if (strcmp(a, hs__net.addr[i]) == 0)
                from = i;
            if (strcmp(b, hs__net.addr[i]) == 0)
                to = i;
        }
        CU_ASSERT(from >= 0 && to == (from + 1) % HS__NHOST);
        if (from >= 0)
            hs__check_rate(line, mbit * 1e6 / 8, hs__rate_mbit[from]);
        rows++;
    }
    HS_ASSERT_I64_EQ(rows, 3);
    free(text);

    /* The scenario that includes the measured file loads, and its ring
       edges carry the measured bandwidths. */
    {
        char inc[4096], body[8192];
        hs_scenario_t *s = NULL;
        hs_error_t err;
        FILE *f;
        char *orig = hs_read_small_file(scen, 1 << 16);
        char *p = orig ? strstr(orig, "network: {default_bandwidth: 1Gbps}")
                       : NULL;

        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        *p = '\0';
        snprintf(body, sizeof body, "%snetwork: {links_csv: links.csv}\n%s",
                 orig, p + strlen("network: {default_bandwidth: 1Gbps}"));
        free(orig);
        snprintf(inc, sizeof inc, "%s/with-links.yaml", dir);
        f = fopen(inc, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(body, f);
        fclose(f);
        hs_error_clear(&err);
        CU_ASSERT_EQUAL(hs_scenario_load(inc, &s, &err), HS_OK);
        if (s == NULL)
            fprintf(stderr, "\n%s\n", err.msg);
        else {
            size_t k;

            for (k = 0; k < s->n_devices; k++) {
                const hs_device_t *d = &s->devices[s->ring[k]];
                int i;

                for (i = 0; i < HS__NHOST; i++)
                    if (strcmp(d->addr, hs__net.addr[i]) == 0)
                        hs__check_rate(d->name,
                                       s->ring_bw_bytes_per_s[k],
                                       hs__rate_mbit[i]);
            }
            hs_scenario_free(s);
        }
    }
}

/* --ordered-pairs: all six directed pairs of the three hosts, each at
   its sender's shaped rate (hs__rate_ok; one second per pair). */
static void test_netns_ordered(void)
{
    const char *dir, *scen;
    char csv[4096];
    char *text, *line, *save = NULL;
    int seen[HS__NHOST][HS__NHOST] = {{0}};
    hs_run_t r;
    int st = hs__net_setup(), rows = 0;

    if (st < 0)
        return;
    CU_ASSERT_FATAL(st == 1);
    dir = hs_test_tmpdir("bw-ordered");
    scen = hs__scenario(dir);
    snprintf(csv, sizeof csv, "%s/links.csv", dir);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "measure-bw", scen, "-o", csv,
                                        "--ordered-pairs", "--time", "1",
                                        "--omit", "0", NULL), 0);
    if (r.status != 0)
        fprintf(stderr, "\nmeasure-bw: %d\n%s\n%s\n", r.status, r.out,
                r.err);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "measuring 6 ordered pairs");
    hs_run_free(&r);
    /* both at once is a usage error */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "measure-bw", scen, "-o", csv,
                                        "--ordered-pairs", "--all-pairs",
                                        NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);
    text = hs_read_small_file(csv, 1 << 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    for (line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char a[64], b[64];
        double mbit, rel;
        int i, from = -1, to = -1;

        if (sscanf(line, "%63[^,],%63[^,],%lfMbit/s", a, b, &mbit) != 3) {
            CU_FAIL("links.csv row not addr,addr,NNNMbit/s");
            continue;
        }
        for (i = 0; i < HS__NHOST; i++) {
            if (strcmp(a, hs__net.addr[i]) == 0)
                from = i;
            if (strcmp(b, hs__net.addr[i]) == 0)
                to = i;
        }
        CU_ASSERT_FATAL(from >= 0 && to >= 0 && from != to);
        seen[from][to]++;
        rel = (mbit - hs__rate_mbit[from]) / hs__rate_mbit[from];
        printf("\n  %s (%+.1f%%)", line, 100 * rel);
        CU_ASSERT(hs__rate_ok(rel));
        rows++;
    }
    HS_ASSERT_I64_EQ(rows, 6);
    {
        int i, j;

        for (i = 0; i < HS__NHOST; i++)
            for (j = 0; j < HS__NHOST; j++)
                HS_ASSERT_I64_EQ(seen[i][j], i != j);
    }
    free(text);
}

static void test_netns_unreachable(void)
{
    hs_nm_host_t h[3];
    char *launcher[] = {hs__net.ip, "netns", "exec", "{name}", NULL};
    char ghost[32], csv[4096], part[4096];
    hs_nm_opts_t o;
    hs_nm_result_t r;
    hs_error_t err;
    hs_err_t rc;
    const char *dir;
    char *text;
    int st = hs__net_setup();
    FILE *f;
    hs_scenario_t fake;
    hs_device_t dev[3];
    uint32_t ring[3] = {0, 1, 2};

    if (st < 0)
        return;
    CU_ASSERT_FATAL(st == 1);
    /* a device whose address nobody holds; its own iperf3 runs in h1's
       namespace.  Ring h0 -> ghost -> h1 -> h0: h0 -> ghost cannot
       connect; ghost -> h1 (inside h1's namespace) and h1 -> h0 (shaped
       at 100 Mbit/s) are measured. */
    snprintf(ghost, sizeof ghost, "198.18.%d.99", (int)(getpid() % 200));
    h[0].name = hs__net.ns[0];
    h[0].addr = hs__net.addr[0];
    h[1].name = hs__net.ns[1];
    h[1].addr = ghost;
    h[2].name = hs__net.ns[1];
    h[2].addr = hs__net.addr[1];
    memset(&fake, 0, sizeof fake);
    memset(dev, 0, sizeof dev);
    for (st = 0; st < 3; st++) {
        dev[st].name = h[st].name;
        dev[st].addr = h[st].addr;
        dev[st].ring_pos = (uint32_t)st;
    }
    fake.file = "unreachable-test";
    fake.n_devices = 3;
    fake.devices = dev;
    fake.ring = ring;
    hs_nm_opts_init(&o);
    o.launcher = launcher;
    o.n_launcher = 4;
    o.time_s = 1;
    o.omit_s = 0;
    o.connect_ms = 1500;
    dir = hs_test_tmpdir("bw-unreach");
    snprintf(csv, sizeof csv, "%s/links.csv", dir);
    snprintf(part, sizeof part, "%s/links.csv.partial", dir);
    f = fopen(csv, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("old,good,1Gbps\n", f);
    fclose(f);
    hs_error_clear(&err);
    rc = hs_nm_measure_scenario(&fake, &o, csv, &r, &err);
    printf("\n  unreachable: %s", err.msg);
    HS_ASSERT_I64_EQ(rc, HS_ERR_HOST);
    HS_ASSERT_I64_EQ(hs_err_exit_code(rc), 4);
    HS_ASSERT_STR_CONTAINS(err.msg, ghost);
    HS_ASSERT_STR_CONTAINS(err.msg, "1 of 3 pairs failed");
    HS_ASSERT_STR_CONTAINS(err.msg, ".partial");
    HS_ASSERT_I64_EQ(r.n_failed, 1);
    CU_ASSERT(!r.pairs[0].ok);
    CU_ASSERT(r.pairs[2].ok);
    if (r.pairs[2].ok)
        hs__check_rate("h1 -> h0 beside a failed pair",
                       r.pairs[2].bw_bytes_per_s, hs__rate_mbit[1]);
    hs_nm_result_clear(&r);
    /* the old file is untouched, the measured rows kept in .partial */
    text = hs_read_small_file(csv, 4096);
    CU_ASSERT(text != NULL && strcmp(text, "old,good,1Gbps") == 0);
    free(text);
    text = hs_read_small_file(part, 4096);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    {
        char row[128];

        snprintf(row, sizeof row, "%s,%s,", hs__net.addr[1], hs__net.addr[0]);
        HS_ASSERT_STR_CONTAINS(text, row);
        snprintf(row, sizeof row, "%s,%s,", hs__net.addr[0], ghost);
        CU_ASSERT(strstr(text, row) == NULL);
    }
    free(text);
}

static void test_netns_cleanup(void)
{
    int st = hs__net_setup(), i;
    char *out = NULL;
    char *argv[] = {hs__net.ip, "netns", "list", NULL};

    if (st < 0)
        return;
    hs_testnet_down(&hs__net);
    CU_ASSERT_EQUAL(hs_test_sh(argv, &out), 0);
    for (i = 0; i <= HS__NHOST; i++)
        CU_ASSERT(out == NULL || strstr(out, hs__net.ns[i]) == NULL);
    free(out);
}

static int hs__register(void)
{
    CU_pSuite u = CU_add_suite("netmeasure", NULL, NULL);
    CU_pSuite n = CU_add_suite("netmeasure-netns", NULL, NULL);

    if (u == NULL || n == NULL)
        return -1;
    CU_add_test(u, "pair plan and rounds", test_plan_rounds);
    CU_add_test(u, "launcher argv", test_argv_build);
    CU_add_test(u, "iperf3 missing", test_iperf3_missing);
    CU_add_test(u, "loopback measurement", test_loopback);
    CU_add_test(n, "shaped rates (library)", test_netns_library);
    CU_add_test(n, "shaped rates (measure-bw CLI)", test_netns_cli);
    CU_add_test(n, "ordered pairs (measure-bw CLI)", test_netns_ordered);
    CU_add_test(n, "unreachable address", test_netns_unreachable);
    CU_add_test(n, "cleanup", test_netns_cleanup);
    return 0;
}

HS_TEST_MAIN(hs__register)
