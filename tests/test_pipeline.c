/*
 * test_pipeline.c -- the whole live chain on one machine:
 *   hetsim measure-bw -> hetsim profile -> hetsim predict / validate.
 *
 * The cluster: 4 devices of 2 types ("small": batch 16, "large": batch
 * 32), ring in listing order.  As root, each device is a network namespace
 * behind a bridge, its egress shaped by tc tbf (small 400 Mbit/s, large
 * 800 Mbit/s: fast enough that the mlp's 5.3 MB all-reduces do not make
 * the profile wait on the link), and every program of a device (iperf3, the PyTorch ranks)
 * runs inside its namespace through the launcher [ip, netns, exec,
 * "{name}"]; gloo talks over the namespaces' eth0.  Without root (or
 * without `ip netns`), the same chain runs with local processes and the
 * loopback addresses 127.0.0.1-4 (reason printed).
 *
 * The scenario includes network.links_csv; measure-bw writes that file,
 * profile writes the per-type profiles and OUT/scenario.yaml.  Checked by
 * hand computation from the written files: each device's ring edge in
 * `predict --json` carries the measured bandwidth of its CSV row, its
 * T_ar = 2(N-1) (M/N) / B (+ 2(N-1) latencies) with M from its type's
 * profile, and its step = max(t_dl, t_fwd + t_b1 + T_ar); in the namespace
 * run each measured rate is within the shaped one (tbf lets no more
 * through; 15% for iperf3's reading) and above a quarter of it (a unit
 * slip, bytes for bits, reads an eighth); how close it comes is printed,
 * not judged: iperf3 shares a loaded machine's cores.  `validate` runs on the
 * result and its closed-form cluster step equals predict's extended step.
 * The profiles are short (12 iterations, 4 warm-up, 8 kept): the chain's
 * mechanics, not its figures' precision, are what is checked.  Skipped
 * only when python3 with torch or iperf3 is missing.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "hs_scenario.h"
#include "hs_spawn.h"
#include "hs_test.h"
#include "hs_testnet.h"

#define HS__N 4
static const unsigned hs__rate[HS__N] = {400, 400, 800, 800};
static const char *const hs__type_of[HS__N] = {"small", "small", "large",
                                               "large"};

static char hs__py[256];
static hs_testnet_t hs__net;
static int hs__netns;       /* 1: namespaces, 0: local */

/* Namespaces when possible: 1 made, 0 not possible here (local run),
   -1 setup failed. */
static int hs__net_setup(void)
{
    static const char *const suffix[HS__N] = {"small0", "small1", "large2",
                                              "large3"};
    char why[512];
    int rc = hs_testnet_up(&hs__net, "hspl", HS__N, suffix, 19, hs__rate,
                           why, sizeof why);

    if (rc == 0)
        printf("\n  (%s: the chain runs on local processes and loopback "
               "addresses)", why);
    return rc;
}

static int hs__python_ok(void)
{
    static const char *const cands[] = {"/usr/bin/python3",
                                        "/usr/local/bin/python3", NULL};
    int i;

    for (i = 0; cands[i] != NULL; i++) {
        char *argv[] = {(char *)cands[i], "-c", "import torch.distributed",
                        NULL};
        hs_run_t r;
        int ok;

        if (access(cands[i], X_OK) != 0 || hs_run(argv, &r) != 0)
            continue;
        ok = r.status == 0;
        hs_run_free(&r);
        if (ok) {
            snprintf(hs__py, sizeof hs__py, "%s", cands[i]);
            return 1;
        }
    }
    return 0;
}

static const char *hs__write_scenario(const char *dir)
{
    static char path[4096];
    char text[8192], launcher[512] = "", env[128];
    size_t n = 0;
    int i;

    if (hs__netns) {
        snprintf(launcher, sizeof launcher,
                 ",\n             launcher: [%s, netns, exec, \"{name}\"]",
                 hs__net.ip);
        snprintf(env, sizeof env,
                 "{OMP_NUM_THREADS: \"1\", GLOO_SOCKET_IFNAME: eth0}");
    } else
        snprintf(env, sizeof env, "{OMP_NUM_THREADS: \"1\"}");
    n += (size_t)snprintf(text + n, sizeof text - n,
        "name: live-pipeline\n"
        "job:\n"
        "  model: {file: %s/scenarios/models/mlp.py, entry: build_model}\n"
        "  dataset: {samples: 24000}\n"
        "  epochs: 2\n"
        "device_types:\n"
        "  - {name: small, count: 2, batch: 16, backend: gloo, env: %s}\n"
        "  - {name: large, count: 2, batch: 32, backend: gloo, env: %s}\n"
        "devices:\n", HS_TEST_SRC, env, env);
    for (i = 0; i < HS__N; i++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "  - {name: %s, type: %s, addr: %s}\n",
                              hs__net.ns[i], hs__type_of[i], hs__net.addr[i]);
    n += (size_t)snprintf(text + n, sizeof text - n,
        "ring: listing\n"
        "network: {default_bandwidth: 10Gbps, latency: 50us, "
        "links_csv: links.csv}\n"
        "simulate: {steps: 10}\n"
        "profiling: {python: %s, iterations: 12, warmup: 4, timeout: 150s,"
        "\n             master_port: %d%s}\n",
        hs__py, 29900 + (int)(getpid() % 90), launcher);
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    hs_test_write(path, text);
    /* links.csv must exist for the scenario to load: no rows yet */
    {
        char csv[4096];

        snprintf(csv, sizeof csv, "%s/links.csv", dir);
        hs_test_write(csv, "# measured by hetsim measure-bw\n");
    }
    return path;
}

static double hs__num(yajl_val v, const char **path)
{
    yajl_val x = yajl_tree_get(v, path, yajl_t_number);

    if (x == NULL)
        return NAN;
    return YAJL_IS_INTEGER(x) ? (double)YAJL_GET_INTEGER(x)
                              : YAJL_GET_DOUBLE(x);
}

static void test_chain(void)
{
    const char *dir, *scen;
    char csv[4096], out[2048], outscen[4096], ppath[4096], iperf[256];
    double bw_csv[HS__N];
    char *text, *line, *save = NULL;
    hs_profile_t prof[2];
    hs_run_t r;
    yajl_val pj, vj;
    char ebuf[256];
    int i, st;

    if (!hs__python_ok()) {
        hs_test_skip("pipeline", "no python3 with torch");
        return;
    }
    if (hs_test_which("iperf3", iperf, sizeof iperf) == NULL) {
        hs_test_skip("pipeline", "iperf3 not installed");
        return;
    }
    st = hs__net_setup();
    CU_ASSERT_FATAL(st >= 0);
    hs__netns = st;
    if (!hs__netns)
        for (i = 0; i < HS__N; i++) {
            snprintf(hs__net.ns[i], sizeof hs__net.ns[i], "%s%d", hs__type_of[i], i);
            snprintf(hs__net.addr[i], sizeof hs__net.addr[i], "127.0.0.%d", i + 1);
        }
    dir = hs_test_tmpdir("pipeline");
    scen = hs__write_scenario(dir);
    snprintf(csv, sizeof csv, "%s/links.csv", dir);
    snprintf(out, sizeof out, "%s/out", dir);

    /* 1. measure the ring */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "measure-bw", scen, "-o", csv,
                                        "--time", "1", NULL), 0);
    printf("\n%s", r.out);
    if (r.status != 0)
        fprintf(stderr, "\nmeasure-bw: %s\n", r.err);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    hs_run_free(&r);
    for (i = 0; i < HS__N; i++)
        bw_csv[i] = -1;
    text = hs_read_small_file(csv, 1 << 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    for (line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char a[64], b[64];
        double mbit;
        int from = -1;

        if (sscanf(line, "%63[^,],%63[^,],%lfMbit/s", a, b, &mbit) != 3)
            continue;
        for (i = 0; i < HS__N; i++)
            if (strcmp(a, hs__net.addr[i]) == 0)
                from = i;
        CU_ASSERT(from >= 0 && strcmp(b, hs__net.addr[(from + 1) % HS__N]) == 0);
        if (from < 0)
            continue;
        bw_csv[from] = mbit * 1e6 / 8;
        if (hs__netns) {
            double rel = (mbit - hs__rate[from]) / hs__rate[from];

            printf("  %s -> next: measured %.2f Mbit/s, shaped %u "
                   "(%+.1f%%)\n", hs__net.ns[from], mbit, hs__rate[from],
                   100 * rel);
            CU_ASSERT(rel > -0.75 && rel <= 0.15);
        }
    }
    free(text);
    for (i = 0; i < HS__N; i++)
        CU_ASSERT(bw_csv[i] > 0);

    /* 2. profile both types */
    /* a short hop-wait probe (2 trials a rank): it runs, its figure is
       test_profile's to check */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        "--hop-trials", "2", NULL), 0);
    printf("%s", r.out);
    if (r.status != 0)
        fprintf(stderr, "\nprofile: %s\n", r.err);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    hs_run_free(&r);
    for (i = 0; i < 2; i++) {
        hs_error_t err;

        snprintf(ppath, sizeof ppath, "%s/%s.profile.yaml", out,
                 i == 0 ? "small" : "large");
        memset(&prof[i], 0, sizeof prof[i]);
        hs_error_clear(&err);
        CU_ASSERT_EQUAL_FATAL(hs_profile_load(ppath, &prof[i], &err), HS_OK);
        HS_ASSERT_I64_EQ(prof[i].ar_bytes, 5335080);   /* mlp's M, n = 2 */
        HS_ASSERT_I64_EQ(prof[i].steps_kept, 8);
    }

    /* 3. predict on the written scenario, against the hand computation */
    snprintf(outscen, sizeof outscen, "%s/scenario.yaml", out);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", outscen, "--json",
                                        "--per-device", NULL), 0);
    if (r.status != 0)
        fprintf(stderr, "\npredict: %s\n", r.err);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    pj = yajl_tree_parse(r.out, ebuf, sizeof ebuf);
    hs_run_free(&r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pj);
    {
        static const char *p_dev[] = {"devices", NULL};
        static const char *p_lat[] = {"latency_ns", NULL};
        static const char *p_bw[] = {"next_bandwidth_bytes_per_s", NULL};
        static const char *p_tar[] = {"t_ar_ns", NULL};
        static const char *p_step[] = {"step_source_ns", NULL};
        static const char *p_cstep[] = {"step_source_ns", NULL};
        yajl_val devs = yajl_tree_get(pj, p_dev, yajl_t_array);
        double lat = hs__num(pj, p_lat), max_step = 0;

        CU_ASSERT_PTR_NOT_NULL_FATAL(devs);
        HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(devs)->len, HS__N);
        for (i = 0; i < HS__N && (size_t)i < YAJL_GET_ARRAY(devs)->len;
             i++) {
            yajl_val d = YAJL_GET_ARRAY(devs)->values[i];
            const hs_profile_t *p = &prof[i < 2 ? 0 : 1];
            double m = (double)p->ar_bytes;   /* n = 2: M = D */
            double bw = hs__num(d, p_bw);
            double tar = 1e9 * 2.0 * (HS__N - 1) * (m / HS__N) / bw_csv[i]
                         + 2.0 * (HS__N - 1) * lat;
            double step = fmax((double)p->t_dl.mean_ns,
                               (double)p->t_fwd.mean_ns
                                   + (double)p->t_b1.mean_ns + tar);

            printf("  %s: B %.3f Mbit/s, T_ar %.3f ms (hand %.3f), step "
                   "%.3f ms (hand %.3f)\n", hs__net.ns[i], bw * 8 / 1e6,
                   hs__num(d, p_tar) / 1e6, tar / 1e6,
                   hs__num(d, p_step) / 1e6, step / 1e6);
            /* the CSV holds Mbit/s with 3 decimals */
            HS_ASSERT_DBL_NEAR(bw, bw_csv[i], 1.0);
            HS_ASSERT_DBL_NEAR(hs__num(d, p_tar), tar, 1000.0);
            HS_ASSERT_DBL_NEAR(hs__num(d, p_step), step, 1000.0);
            if (step > max_step)
                max_step = step;
        }
        HS_ASSERT_DBL_NEAR(hs__num(pj, p_cstep), max_step, 1000.0);
    }

    /* 4. validate: the replay against the closed form */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate", outscen, "--json",
                                        NULL), 0);
    if (r.status != 0)
        fprintf(stderr, "\nvalidate: %s\n", r.err);
    HS_ASSERT_I64_EQ(r.status, 0);
    vj = yajl_tree_parse(r.out, ebuf, sizeof ebuf);
    hs_run_free(&r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(vj);
    {
        static const char *p_cc[] = {"cluster", "step_extended_ns", NULL};
        static const char *p_cs[] = {"cluster", "step_replay_ns", NULL};
        static const char *p_cp[] = {"cluster", "diff_pct", NULL};
        static const char *p_ext[] = {"step_extended_ns", NULL};

        printf("  validate: closed %.3f ms, replay %.3f ms (%+.2f%%)\n",
               hs__num(vj, p_cc) / 1e6, hs__num(vj, p_cs) / 1e6,
               hs__num(vj, p_cp));
        HS_ASSERT_DBL_NEAR(hs__num(vj, p_cc), hs__num(pj, p_ext), 0.5);
        CU_ASSERT(hs__num(vj, p_cs) > 0);
    }
    yajl_tree_free(vj);
    yajl_tree_free(pj);
    hs_profile_clear(&prof[0]);
    hs_profile_clear(&prof[1]);
    hs_testnet_down(&hs__net);
}

static int hs__register(void)
{
    CU_pSuite s = CU_add_suite("pipeline", NULL, NULL);

    if (s == NULL)
        return -1;
    CU_add_test(s, "measure-bw -> profile -> predict -> validate",
                test_chain);
    return 0;
}

HS_TEST_MAIN(hs__register)
