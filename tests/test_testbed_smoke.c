/*
 * test_testbed_smoke.c -- the CI smoke version of the accuracy benchmark
 * (issue 7): a real heterogeneous cluster on this machine, and hetsim's
 * prediction error against it.
 *
 * Six checks: the cgroup v1 and v2 backends on fake trees, then five
 * against the real testbed (bench/testbed/):
 *  - teardown on interrupt: `testbed.py up` builds two hosts (namespaces,
 *    bridge, tbf, CPU-quota cgroups); the test sees them exist with the
 *    quota it asked for, sends SIGTERM, and sees every namespace and cgroup
 *    of that testbed gone;
 *  - the CPU quota differentiates speed: the same matmul loop under 0.5 and
 *    0.25 cores runs at a ratio near 2 (accepted 1.5..2.8);
 *  - a directed pair rate is applied (`testbed.py pair-check`: hosts a, b,
 *    c at 300 Mbit/s, a -> b alone at 60 Mbit/s through htb + a u32
 *    filter): iperf3 a -> b measures within 15% of 60 Mbit/s, a -> c (a's
 *    default class) and b -> a (the other direction) within 15% of 300,
 *    and nothing of that testbed is left;
 *  - one small accuracy case end to end (`bench/accuracy --smoke`: hetsim
 *    profile in the testbed, measure-bw, predict, simulate, the FULL
 *    4-rank run, about 1 minute on 2 cores): the measured step and every
 *    prediction are positive and finite, the measured ring bandwidths are
 *    within 15% of the tbf rates, the replay's error (patent and buckets
 *    modes) and the closed form's are within bands measured from this
 *    case's own spread (see test_accuracy_smoke), the host-speed canary
 *    and the host monitor (a factor per phase from samples on every CPU)
 *    gave plausible readings, and nothing of the testbed is left;
 *  - a ring all-reduce beside compute (`bench/hopwait`): slower than idle
 *    under a 0.2-core quota, and more so than under 0.5 core.
 * Root, cgroup v1 or v2 with the cpu controller (the test and the testbed
 * print which one they used), iproute2, iperf3 and python3-torch are
 * needed; where the machine lacks one, the script says so (exit 77,
 * "SKIP: why") and the test prints the reason.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <dirent.h>
#include <sched.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "hs_test.h"

#define TB_PY HS_TEST_SRC "/bench/testbed/testbed.py"
#define ACCURACY HS_TEST_SRC "/bench/accuracy"
#define PYTHON "/usr/bin/python3"

/* The cgroup version testbed.py will use (its cgroup_backend(): v2 when
   the unified hierarchy at /sys/fs/cgroup has the cpu controller, else
   v1 when the cpu controller is at /sys/fs/cgroup/cpu): 2, 1, or 0. */
static int cgroup_version(void)
{
    const char *force = getenv("HETSIM_TESTBED_CGROUP");
    FILE *f = fopen("/sys/fs/cgroup/cgroup.controllers", "r");
    char line[512] = "";
    int v2 = 0, v1;
    struct stat st;

    if (f != NULL) {
        if (fgets(line, sizeof line, f) != NULL) {
            char *tok, *save = NULL;

            for (tok = strtok_r(line, " \n", &save); tok != NULL;
                 tok = strtok_r(NULL, " \n", &save))
                v2 |= strcmp(tok, "cpu") == 0;
        }
        fclose(f);
    }
    v1 = stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", &st) == 0;
    if (v2 && (force == NULL || strcmp(force, "v1") != 0))
        return 2;
    if (v1 && (force == NULL || strcmp(force, "v2") != 0))
        return 1;
    return 0;
}

/* Why the testbed cannot run here, or NULL. */
static const char *skip_reason(void)
{
    if (geteuid() != 0)
        return "needs root (network namespaces, tc, cgroups)";
    if (cgroup_version() == 0)
        return "no cgroup cpu controller: neither v2 (/sys/fs/cgroup with "
               "cpu in cgroup.controllers) nor v1 (/sys/fs/cgroup/cpu)";
    if (access(PYTHON, X_OK) != 0)
        return "no " PYTHON;
    return NULL;
}

/* Counts namespaces and cpu cgroups whose name starts with prefix. */
static int count_prefixed(const char *prefix)
{
    int n = 0;
    const char *dirs[] = {"/run/netns", "/sys/fs/cgroup/cpu",
                          "/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup"};
    size_t i;

    for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;

        if (d == NULL)
            continue;
        while ((e = readdir(d)) != NULL)
            if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
                n++;
        closedir(d);
    }
    return n;
}

/* The whole of a file (cgroup files report size 0: read to EOF). */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL, *nb;
    size_t len = 0, cap = 0, n;

    if (f == NULL)
        return NULL;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 8192;
            nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        n = fread(buf + len, 1, 4096, f);
        len += n;
        if (n == 0)
            break;
    }
    buf[len] = '\0';
    fclose(f);
    return buf;
}

/* ---- teardown on SIGTERM --------------------------------------------- */
static void test_teardown_on_signal(void)
{
    int fds[2];
    pid_t pid;
    FILE *in;
    char id[128] = "", cg[128] = "", path[256], prefix[160];
    char *q;
    int v = cgroup_version();
    int status = 0, i;

    if (skip_reason() != NULL) {
        hs_test_skip("testbed teardown", skip_reason());
        return;
    }
    CU_ASSERT_FATAL(pipe(fds) == 0);
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(PYTHON, PYTHON, TB_PY, "up", "ta:100mbit:0.5", "tb:none:0.25",
              (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    in = fdopen(fds[0], "r");
    CU_ASSERT_FATAL(in != NULL);
    if (fgets(id, sizeof id, in) == NULL)
        id[0] = '\0';
    id[strcspn(id, "\n")] = '\0';
    CU_ASSERT(strncmp(id, "hetsim-testbed-", 15) == 0);
    /* it says which cgroup version holds the quotas */
    if (fgets(cg, sizeof cg, in) == NULL)
        cg[0] = '\0';
    cg[strcspn(cg, "\n")] = '\0';
    printf("\n  testbed %s", cg);
    HS_ASSERT_STR_CONTAINS(cg, v == 2 ? "cgroup: v2 (cpu.max)"
                                      : "cgroup: v1 (cpu.cfs_quota_us)");
    if (strncmp(id, "hetsim-testbed-", 15) == 0) {
        snprintf(path, sizeof path, "/run/netns/%s-ta", id);
        CU_ASSERT(access(path, F_OK) == 0);
        snprintf(path, sizeof path, "/run/netns/%s-br", id);
        CU_ASSERT(access(path, F_OK) == 0);
        /* 0.25 cores of a 10 ms period: v1 cpu.cfs_quota_us "2500",
           v2 cpu.max "2500 10000" */
        if (v == 2)
            snprintf(path, sizeof path, "/sys/fs/cgroup/%s/tb/cpu.max", id);
        else
            snprintf(path, sizeof path,
                     "/sys/fs/cgroup/cpu/%s/tb/cpu.cfs_quota_us", id);
        q = read_file(path);
        HS_ASSERT_I64_EQ(q ? atol(q) : -2, 2500);
        if (v == 2)
            HS_ASSERT_STR_CONTAINS(q, "2500 10000");
        free(q);
    }
    kill(pid, SIGTERM);
    for (i = 0; i < 300 && waitpid(pid, &status, WNOHANG) == 0; i++)
        usleep(100000);
    if (i == 300) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    fclose(in);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (id[0] != '\0') {
        snprintf(prefix, sizeof prefix, "%s", id);
        HS_ASSERT_I64_EQ(count_prefixed(prefix), 0);
    }
}

/* The number at path in v, NAN when it is missing or not a number. */
static double num(yajl_val v, const char **path)
{
    yajl_val x = yajl_tree_get(v, path, yajl_t_number);

    return x ? YAJL_GET_DOUBLE(x) : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The median of v[0..n) (the mean of the middle two for even n; NAN for
   n = 0); sorts v in place. */
static double median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Runs `testbed.py CMD --json <tmpdir>/FILE` for test and returns its
   JSON (the caller frees it), or NULL: skipped (printed, with the reason)
   or failed (the assertions of hs_test_run_json). */
static yajl_val run_tb_json(const char *test, const char *cmd,
                            const char *file)
{
    char json_path[512];
    char *argv[] = {PYTHON, TB_PY, (char *)cmd, "--json", json_path, NULL};

    if (skip_reason() != NULL) {
        hs_test_skip(test, skip_reason());
        return NULL;
    }
    snprintf(json_path, sizeof json_path, "%s/%s",
             hs_test_tmpdir("testbed-check"), file);
    return hs_test_run_json(test, argv, json_path);
}

/* ---- quota differentiates speed ----------------------------------------
 * Both quotas run at the same time on the same core (testbed.py
 * quota-check), so a noisy neighbour slows both alike; the checks are the
 * kernel-enforced bound on the cores each one used, their ratio, and the
 * median of the per-window ratios of the two matmul rates (each window
 * times both at once).  The ratio of the two median rates it replaced
 * failed once when the VM ran one vCPU at half speed for three of the 0.5
 * quota's five windows and one of the 0.25 quota's (0.50 rates 48.1 47.7
 * 61.2 90.2 90.1, 0.25 rates 24.2 44.0 45.0 44.4 45.3: 1.38 of the medians,
 * per window 1.08 1.36 1.99 1.99 2.03; CI, 2026-12-01 22:14 UTC). */
static void test_quota_speed(void)
{
    const char *pq[] = {"quotas", NULL}, *pr[] = {"ratios", NULL};
    const char *kq[] = {"quota", NULL}, *kc[] = {"cores_median", NULL};
    const char *kb[] = {"b", NULL}, *kw[] = {"per_window", NULL};
    double ratio = NAN, used50 = -1, used25 = -1, v[32];
    yajl_val root, qs, rs;
    size_t i, k;

    root = run_tb_json("testbed quota", "quota-check", "quota.json");
    if (root == NULL)
        return;
    qs = yajl_tree_get(root, pq, yajl_t_array);
    rs = yajl_tree_get(root, pr, yajl_t_array);
    CU_ASSERT_FATAL(qs != NULL && rs != NULL);
    for (i = 0; i < YAJL_GET_ARRAY(qs)->len; i++) {
        yajl_val e = YAJL_GET_ARRAY(qs)->values[i];

        if (fabs(num(e, kq) - 0.5) < 1e-9)
            used50 = num(e, kc);
        if (fabs(num(e, kq) - 0.25) < 1e-9)
            used25 = num(e, kc);
    }
    /* the 0.5 quota's rate over the 0.25 quota's, window by window (both
       ran at once): their median */
    for (i = 0; i < YAJL_GET_ARRAY(rs)->len; i++) {
        yajl_val e = YAJL_GET_ARRAY(rs)->values[i];
        yajl_val w = yajl_tree_get(e, kw, yajl_t_array);

        if (fabs(num(e, kb) - 0.25) > 1e-9 || w == NULL)
            continue;
        for (k = 0; k < YAJL_GET_ARRAY(w)->len && k < 32; k++)
            v[k] = YAJL_IS_NUMBER(YAJL_GET_ARRAY(w)->values[k])
                       ? YAJL_GET_DOUBLE(YAJL_GET_ARRAY(w)->values[k])
                       : NAN;
        ratio = median(v, k);
        printf("  median of the per-window ratios (%zu windows): %.3f\n", k,
               ratio);
    }
    yajl_tree_free(root);
    /* CFS bandwidth control: never more than the quota (plus slack of one
     * period), and some of it even on a loaded machine */
    CU_ASSERT(used50 > 0.1 && used50 < 0.5 * 1.15);
    CU_ASSERT(used25 > 0.05 && used25 < 0.25 * 1.15);
    /* what the quota controls: CPU time; and what it is for: speed (the
     * matmuls per CPU-second of a shared VM vary a little from window to
     * window, hence the looser bound) */
    CU_ASSERT(used25 > 0 && used50 / used25 > 1.6 && used50 / used25 < 2.4);
    CU_ASSERT(ratio > 1.4 && ratio < 3.0);
}

/* ---- a directed pair rate ------------------------------------------------
 * The testbed shapes a host's egress per destination when a case lists
 * pair rates (htb classes chosen by destination address); the ring order
 * then changes which links the ring uses, which `advise ring` is about.
 * iperf3 between the testbed's own namespaces; the testbed removes them
 * on exit (and the check below sees none left). */
static void test_pair_rate(void)
{
    static const char *label[3] = {"a->b", "a->c", "b->a"};
    const char *pp[] = {"pairs", NULL}, *pt[] = {"testbed", NULL};
    const char *kp[] = {"pair", NULL}, *ks[] = {"set_bps", NULL};
    const char *km[] = {"measured_bps", NULL};
    double seen[3] = {-1, -1, -1};
    yajl_val root, pairs, tid;
    size_t i;
    int k;

    root = run_tb_json("testbed pair rate", "pair-check", "pair.json");
    if (root == NULL)
        return;
    pairs = yajl_tree_get(root, pp, yajl_t_array);
    tid = yajl_tree_get(root, pt, yajl_t_string);
    CU_ASSERT_FATAL(pairs != NULL);
    for (i = 0; i < YAJL_GET_ARRAY(pairs)->len; i++) {
        yajl_val e = YAJL_GET_ARRAY(pairs)->values[i];
        yajl_val l = yajl_tree_get(e, kp, yajl_t_string);
        const char *ls = l != NULL ? YAJL_GET_STRING(l) : NULL;

        for (k = 0; ls != NULL && k < 3; k++)
            if (strcmp(ls, label[k]) == 0)
                seen[k] = num(e, km) / num(e, ks);
    }
    /* a -> b at the pair rate (60); the others at the host rate (300):
       the pair class caught a -> b alone */
    for (k = 0; k < 3; k++) {
        if (!(seen[k] > 0.85 && seen[k] < 1.15))
            fprintf(stderr, "\npair %s: measured/set %.3f, not within 15%%\n",
                    label[k], seen[k]);
        CU_ASSERT(seen[k] > 0.85 && seen[k] < 1.15);
    }
    /* the testbed (namespaces, cgroups) is gone */
    CU_ASSERT(tid != NULL);
    if (tid != NULL)
        CU_ASSERT(count_prefixed(YAJL_GET_STRING(tid)) == 0);
    yajl_tree_free(root);
}

/* ---- both cgroup versions ----------------------------------------------
 * A machine has one cgroup version for the CPU controller; the testbed
 * runs with either.  `testbed.py cgroup-selftest` drives the v1 and the
 * v2 backend against fake cgroup trees (the files each interface has) and
 * checks what they write and read; it says which version this machine
 * would use.  No root needed. */
static void test_cgroup_backends(void)
{
    char *argv[] = {PYTHON, TB_PY, "cgroup-selftest", NULL};
    hs_run_t r;

    if (access(PYTHON, X_OK) != 0) {
        hs_test_skip("cgroup backends", "no " PYTHON);
        return;
    }
    CU_ASSERT_FATAL(hs_run(argv, &r) == 0);
    printf("\n%s%s", r.out ? r.out : "", r.err ? r.err : "");
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "v1 and v2 backends ok");
    hs_run_free(&r);
}

/* ---- one accuracy case end to end --------------------------------------- */
static void test_accuracy_smoke(void)
{
    const char *dir = hs_test_tmpdir("testbed-smoke");
    char json_path[512], work[512];
    char *argv[14];
    yajl_val root, res, links;
    int before, k;

    if (skip_reason() != NULL) {
        hs_test_skip("accuracy smoke", skip_reason());
        return;
    }
    snprintf(json_path, sizeof json_path, "%s/smoke.json", dir);
    snprintf(work, sizeof work, "%s/work", dir);
    before = count_prefixed("hetsim-testbed-");
    argv[0] = ACCURACY;
    argv[1] = "--smoke";
    argv[2] = "--hetsim";
    argv[3] = HS_TEST_BIN;
    argv[4] = "--work";
    argv[5] = work;
    argv[6] = "--json";
    argv[7] = json_path;
    /* a profile or run the host monitor flags (the VM slowed a vCPU) is
       done again, up to twice, as in the draws */
    argv[8] = "--retry";
    argv[9] = "2";
    /* each attempt waits at most 20 s for a steady host (the draws: 120) */
    argv[10] = "--steady-wait";
    argv[11] = "20";
    argv[12] = NULL;
    root = hs_test_run_json("accuracy smoke", argv, json_path);
    /* everything the testbed made is gone */
    HS_ASSERT_I64_EQ(count_prefixed("hetsim-testbed-"), before);
    if (root == NULL)
        return;   /* skipped, or a failed assertion above */
    {
        const char *rp[] = {"results", NULL};
        yajl_val arr = yajl_tree_get(root, rp, yajl_t_array);

        CU_ASSERT_FATAL(arr != NULL && YAJL_GET_ARRAY(arr)->len == 1);
        res = YAJL_GET_ARRAY(arr)->values[0];
    }
    {
        const char *pm[] = {"measured_ns", NULL};
        const char *pc[] = {"closed_ns", NULL};
        const char *pp[] = {"replay_ns", "patent", NULL};
        const char *pb[] = {"replay_ns", "buckets", NULL};
        const char *pn[] = {"replay_ns", "none", NULL};
        const char *ep[] = {"err", "patent", NULL};
        const char *eb2[] = {"err", "buckets", NULL};
        const char *ec[] = {"err", "closed", NULL};
        const char *cgp[] = {"cgroup", NULL};
        yajl_val cg = yajl_tree_get(res, cgp, yajl_t_string);
        const char *cgs = cg != NULL ? YAJL_GET_STRING(cg) : NULL;
        double m = num(res, pm);

        /* the results say which cgroup version set the quotas */
        if (cgs == NULL)
            cgs = "(missing)";
        printf("  cgroup %s\n", cgs);
        CU_ASSERT(strcmp(cgs, "v1") == 0 || strcmp(cgs, "v2") == 0);

        printf("  measured %.1f ms; closed %.1f ms (%+.1f%%); replay patent "
               "%.1f ms (%+.1f%%), buckets %.1f ms (%+.1f%%), none %.1f ms\n",
               m / 1e6, num(res, pc) / 1e6, 100 * num(res, ec),
               num(res, pp) / 1e6, 100 * num(res, ep), num(res, pb) / 1e6,
               100 * num(res, eb2), num(res, pn) / 1e6);
        CU_ASSERT(isfinite(m) && m > 1e6);
        CU_ASSERT(isfinite(num(res, pc)) && num(res, pc) > 0);
        CU_ASSERT(isfinite(num(res, pp)) && num(res, pp) > 0);
        CU_ASSERT(isfinite(num(res, pb)) && num(res, pb) > 0);
        CU_ASSERT(isfinite(num(res, pn)) && num(res, pn) > 0);
        /* The tolerances come from the spread of this very case: 8 runs
         * of `bench/accuracy --smoke` (each a fresh testbed, profile,
         * measure-bw and full 4-rank run) on the CI machine, a 2-core VM
         * shared with other builds and tests (load average 7..16), on
         * 2026-12-01.  Error = (predicted - measured) / measured:
         *
         *   run       1      2      3      4      5      6      7      8
         *   closed -.354  -.314  -.331  -.326  -.348  -.394  -.378  -.356
         *   patent -.168  -.113  -.156  -.156  -.152  -.240  -.218  -.205
         *   buckets +.033 +.030  -.023  -.026  +.183  -.109  -.052  -.040
         *   measured step 402.9..466.6 ms (mean 430.1, sd 22.6)
         *
         *   closed  mean -0.350, sd 0.027 -> [mean - 3 sd, mean + 3 sd]
         *           = [-0.431, -0.269]: accepted [-0.44, -0.26]
         *   patent  mean -0.176, sd 0.042 -> [-0.302, -0.050]: accepted
         *           [-0.32, -0.05] (it under-predicted this case in
         *           every run, so an over-prediction is a regression too)
         *   buckets mean -0.000, sd 0.087 -> [-0.26, +0.26], worst seen
         *           +0.183: accepted |err| < 0.30
         *
         * So a change that moves a predictor by more than about 3 standard
         * deviations of the machine's own noise (roughly 8% for the closed
         * form, 13% for patent, 26% for buckets) fails here; the former
         * bound, |err| < 50%, let every one of them drift by 30% or more. */
        /* ... judged where the host monitor saw the profile and a full
         * run on a steady host: a profile taken while the VM ran a vCPU at
         * half speed (host factor 1.32, CI, 2026-12-01 22:35 UTC) put
         * patent at -2.1%, outside its band, with nothing wrong in hetsim.
         * With --retry 2 a flagged phase is redone; when every attempt was
         * flagged the bands are not judged, and that is printed. */
        {
            const char *ph[] = {"profile_held", NULL};
            const char *rh[] = {"runs_held", NULL};
            yajl_val vp = yajl_tree_get(res, ph, yajl_t_any);
            yajl_val vr = yajl_tree_get(res, rh, yajl_t_array);
            int held = vp != NULL && YAJL_IS_TRUE(vp) && vr != NULL, j,
                any = 0;

            for (j = 0; vr != NULL && j < (int)YAJL_GET_ARRAY(vr)->len; j++)
                any |= YAJL_IS_TRUE(YAJL_GET_ARRAY(vr)->values[j]);
            held = held && any;
            CU_ASSERT(vp != NULL && vr != NULL);
            if (!held) {
                printf("  the host monitor flagged the profile or every full "
                       "run after the retries: the error bands are not "
                       "judged on this run\n");
            } else {
                CU_ASSERT(isfinite(num(res, ec)) && num(res, ec) > -0.44 &&
                          num(res, ec) < -0.26);
                CU_ASSERT(isfinite(num(res, ep)) && num(res, ep) > -0.32 &&
                          num(res, ep) < -0.05);
                CU_ASSERT(isfinite(num(res, eb2)) &&
                          fabs(num(res, eb2)) < 0.30);
            }
        }
    }
    /* the profile attempts: each waited for a steady host at most the 20
       s given; the predictions used the one that held, or, when none did,
       the one with the lowest host factor, and the others are kept beside
       it (prof.attemptN) */
    {
        const char *pa[] = {"profile_attempts", NULL};
        const char *pu[] = {"profile_used", NULL};
        const char *kf[] = {"factor", NULL};
        const char *kw[] = {"waited_s", NULL};
        const char *kp[] = {"phase", NULL};
        const char *kb[] = {"flagged", NULL};
        yajl_val att = yajl_tree_get(res, pa, yajl_t_array);
        yajl_val used = yajl_tree_get(res, pu, yajl_t_string);
        size_t j, n = att != NULL ? YAJL_GET_ARRAY(att)->len : 0;
        double fmin = INFINITY, fused = NAN;
        int nused = 0, held = 0;

        const char *us = used != NULL ? YAJL_GET_STRING(used) : NULL;
        const char *last = NULL;

        CU_ASSERT_FATAL(att != NULL && us != NULL && n >= 1 && n <= 3);
        for (j = 0; j < n; j++) {
            yajl_val a = YAJL_GET_ARRAY(att)->values[j];
            yajl_val ph = yajl_tree_get(a, kp, yajl_t_string);
            yajl_val fl = yajl_tree_get(a, kb, yajl_t_any);
            const char *phs = ph != NULL ? YAJL_GET_STRING(ph) : NULL;
            double f = num(a, kf), w = num(a, kw);
            char kept[600];
            struct stat st;

            CU_ASSERT(isfinite(w) && w >= 0 && w < 20 + 5);
            CU_ASSERT_FATAL(phs != NULL && fl != NULL);
            held |= YAJL_IS_TRUE(fl) ? 0 : 1;
            /* only the last attempt may hold */
            CU_ASSERT(YAJL_IS_TRUE(fl) || j == n - 1);
            if (isfinite(f) && f < fmin)
                fmin = f;
            last = phs;
            if (strcmp(phs, us) == 0) {
                nused++;
                fused = f;
            } else {
                /* an attempt not used is kept under prof.attempt<j> */
                snprintf(kept, sizeof kept, "%s/smoke/prof.attempt%zu/"
                         "scenario.yaml", work, j);
                CU_ASSERT(stat(kept, &st) == 0);
            }
        }
        printf("  profile attempts %zu, used %s (host factor %.2f)\n", n,
               us, fused);
        CU_ASSERT(nused == 1);
        if (held) {
            CU_ASSERT(last != NULL && strcmp(us, last) == 0);
        } else if (isfinite(fmin)) {
            CU_ASSERT(fused == fmin);
        }
    }
    /* the last_bucket replay ran; hetsim profile recommended buckets for
       this all-gloo cluster with timed buckets where every type's profile
       has a hop wait (the harness's hop probe), else last_bucket (issue
       11); every type's hop wait is a plausible one (0 to 1 s a hop) */
    {
        const char *pl[] = {"replay_ns", "last_bucket", NULL};
        const char *pb_[] = {"replay_ns", "buckets", NULL};
        const char *pr[] = {"replay_ns", "recommended", NULL};
        const char *pp_[] = {"profile", NULL};
        yajl_val prof = yajl_tree_get(res, pp_, yajl_t_object);
        size_t t;
        int waits = prof != NULL && YAJL_GET_OBJECT(prof)->len > 0;

        CU_ASSERT(isfinite(num(res, pl)) && num(res, pl) > 0);
        CU_ASSERT_PTR_NOT_NULL(prof);
        for (t = 0; prof != NULL && t < YAJL_GET_OBJECT(prof)->len; t++) {
            const char *pw[] = {"t_hop_wait_ns", NULL};
            yajl_val w = yajl_tree_get(YAJL_GET_OBJECT(prof)->values[t], pw,
                                       yajl_t_number);
            double w_ns = w != NULL ? YAJL_GET_DOUBLE(w) : -1;
            printf("  type %s: t_hop_wait %.3f ms\n",
                   YAJL_GET_OBJECT(prof)->keys[t], w_ns / 1e6);
            CU_ASSERT(w_ns >= 0 && w_ns < 1e9);
            if (!(w_ns > 0))
                waits = 0;
            /* the harness read the quota the testbed gave this type's
               hosts from their cgroup, and its 10 ms period */
            {
                const char *pq[] = {"cpu_quota_cores", NULL};
                const char *pper[] = {"t_cpu_period_ns", NULL};
                const char *pt[] = {"types", YAJL_GET_OBJECT(prof)->keys[t],
                                    "quota", NULL};
                yajl_val vt = YAJL_GET_OBJECT(prof)->values[t];
                double q = num(vt, pq), want = num(res, pt);
                printf("  type %s: cpu quota %.3f cores (testbed %.3f), "
                       "period %.1f ms\n", YAJL_GET_OBJECT(prof)->keys[t], q,
                       want, num(vt, pper) / 1e6);
                CU_ASSERT(isfinite(want) && fabs(q - want) < 1e-6);
                CU_ASSERT(num(vt, pper) == 10e6);
            }
        }
        CU_ASSERT(num(res, pr) == num(res, waits ? pb_ : pl));
    }
    /* the compute-drift diagnostic (bench/accuracy compute_drift): per
       type, the full run's compute over the profile's, a plausible ratio
       (a full run 5x faster or slower than its profile is a broken
       measurement, not drift), and the recommended replay redone with
       every device's compute scaled by it */
    {
        const char *pd[] = {"compute_drift", NULL};
        const char *pt[] = {"types", NULL};
        const char *pr[] = {"drift_replay_ns", NULL};
        const char *pe[] = {"err_drift_replay", NULL};
        const char *pm[] = {"measured_ns", NULL};
        yajl_val dr = yajl_tree_get(res, pd, yajl_t_object);
        yajl_val ty = yajl_tree_get(res, pt, yajl_t_object);
        double v = num(res, pr), m = num(res, pm);
        size_t t;

        CU_ASSERT_FATAL(dr != NULL && ty != NULL);
        HS_ASSERT_I64_EQ(YAJL_GET_OBJECT(dr)->len, YAJL_GET_OBJECT(ty)->len);
        for (t = 0; t < YAJL_GET_OBJECT(dr)->len; t++) {
            const char *kn = YAJL_GET_OBJECT(dr)->keys[t];
            const char *pk[] = {"compute_drift", kn, NULL};
            const char *pf[] = {"compute_drift_parts", kn, "fwd", NULL};
            const char *pb[] = {"compute_drift_parts", kn, "bwd", NULL};
            const char *pa[] = {"compute_drift_parts", kn, "ar_tail_ns",
                                NULL};
            double k = num(res, pk), f = num(res, pf), b = num(res, pb),
                   a = num(res, pa);

            printf("  type %s: compute drift x%.3f (forward x%.3f, "
                   "backward x%.3f; %.1f ms waiting for the all-reduces "
                   "after the last gradient)\n", kn, k, f, b, a / 1e6);
            CU_ASSERT(isfinite(k) && k > 0.2 && k < 5);
            /* ddp_run.py timed the backward's last gradient, so the
               drift is the forward's and the backward's together: a
               weighted mean of the two ratios lies between them */
            CU_ASSERT(isfinite(f) && isfinite(b) && isfinite(a) && a >= 0);
            CU_ASSERT(k >= fmin(f, b) - 1e-9 && k <= fmax(f, b) + 1e-9);
        }
        printf("  drift replay %.1f ms (%+.1f%%)\n", v / 1e6,
               100 * num(res, pe));
        CU_ASSERT(isfinite(v) && v > 0);
        CU_ASSERT(fabs(num(res, pe) - (v - m) / m) < 1e-9);
    }
    /* the host-speed canary: a reading per online CPU at every checkpoint
       (before and after the profile, after the one full run), each a
       plausible CPU time per piece of work (10 us .. 100 ms) */
    {
        static const char *cps[] = {"before_profile", "after_profile",
                                    "after_full0"};
        cpu_set_t set;
        size_t i, ncpu = 0;

        CU_ASSERT_FATAL(sched_getaffinity(0, sizeof set, &set) == 0);
        ncpu = (size_t)CPU_COUNT(&set);
        for (i = 0; i < 3; i++) {
            const char *cp[] = {"canary_ns", cps[i], NULL};
            yajl_val o = yajl_tree_get(res, cp, yajl_t_object);
            size_t j;

            CU_ASSERT_FATAL(o != NULL);
            HS_ASSERT_I64_EQ(YAJL_GET_OBJECT(o)->len, ncpu);
            for (j = 0; j < YAJL_GET_OBJECT(o)->len; j++) {
                yajl_val v = YAJL_GET_OBJECT(o)->values[j];
                double ns = YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : -1;

                printf("  canary %s cpu %s: %.0f us\n", cps[i],
                       YAJL_GET_OBJECT(o)->keys[j], ns / 1e3);
                CU_ASSERT(ns > 1e4 && ns < 1e8);
            }
        }
    }
    /* the host monitor: a host factor for the profile and the full run,
       from samples on every online CPU (a sampler pinned to each, samples
       whose thread was switched out dropped), each factor plausible (the
       fastest reading is its base: >= 0.9; the VM's slow spells reach
       ~2.3x); the run's held flag says whether measured_ns is its value */
    {
        static const char *phs[] = {"profile0", "full0"};
        cpu_set_t set;
        size_t i, ncpu;

        CU_ASSERT_FATAL(sched_getaffinity(0, sizeof set, &set) == 0);
        ncpu = (size_t)CPU_COUNT(&set);
        for (i = 0; i < 2; i++) {
            const char *fp[] = {"monitor", phs[i], "factor", NULL};
            const char *cp[] = {"monitor", phs[i], "cpus", NULL};
            yajl_val cpus = yajl_tree_get(res, cp, yajl_t_object);
            double f = num(res, fp);
            size_t j;

            printf("  host factor %s: %.2f\n", phs[i], f);
            CU_ASSERT(isfinite(f) && f >= 0.9 && f < 5.0);
            CU_ASSERT_FATAL(cpus != NULL);
            HS_ASSERT_I64_EQ(YAJL_GET_OBJECT(cpus)->len, ncpu);
            for (j = 0; j < YAJL_GET_OBJECT(cpus)->len; j++) {
                const char *np[] = {"n", NULL};
                double n = num(YAJL_GET_OBJECT(cpus)->values[j], np);

                printf("    cpu %s: %.0f samples\n",
                       YAJL_GET_OBJECT(cpus)->keys[j], n);
                CU_ASSERT(n >= 1);
            }
        }
        {
            const char *hp[] = {"runs_held", NULL};
            const char *rp[] = {"measured_runs_ns", NULL};
            const char *mp[] = {"measured_ns", NULL};
            yajl_val held = yajl_tree_get(res, hp, yajl_t_array);
            yajl_val runs = yajl_tree_get(res, rp, yajl_t_array);

            size_t nr, j, nk = 0;
            double kept = 0, all = 0;

            CU_ASSERT_FATAL(held != NULL && runs != NULL);
            nr = YAJL_GET_ARRAY(runs)->len;
            /* one run, and up to 2 more where the monitor flagged one */
            CU_ASSERT(nr >= 1 && nr <= 3);
            HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(held)->len, nr);
            for (j = 0; j < nr && j < YAJL_GET_ARRAY(held)->len; j++) {
                yajl_val h = YAJL_GET_ARRAY(held)->values[j];
                double v = YAJL_GET_DOUBLE(YAJL_GET_ARRAY(runs)->values[j]);
                CU_ASSERT(YAJL_IS_TRUE(h) || YAJL_IS_FALSE(h));
                all += v;
                if (YAJL_IS_TRUE(h)) {
                    kept += v;
                    nk++;
                }
            }
            /* the measured step: the mean of the held runs, else of all */
            CU_ASSERT(nr > 0 && fabs(num(res, mp) -
                                     (nk ? kept / (double)nk
                                         : all / (double)nr)) < 1.0);
        }
    }
    /* measure-bw found the tbf rates: the smoke ring is f0 (300 Mbit/s)
       -> s0 -> f1 -> s1 -> f0, the others at 1 Gbit/s */
    {
        const char *lp[] = {"links", NULL};
        const double want[] = {300e6, 1e9, 1e9, 1e9};

        links = yajl_tree_get(res, lp, yajl_t_array);
        CU_ASSERT_FATAL(links != NULL && YAJL_GET_ARRAY(links)->len == 4);
        for (k = 0; k < 4; k++) {
            const char *row = YAJL_GET_STRING(YAJL_GET_ARRAY(links)->values[k]);
            const char *c = row ? strrchr(row, ',') : NULL;
            double v = c ? strtod(c + 1, NULL) * 1e6 : 0;   /* Mbit/s */

            if (c == NULL || strstr(c, "Mbit/s") == NULL)
                v = c && strstr(c, "Gbit/s") ? strtod(c + 1, NULL) * 1e9 : 0;
            printf("  link %d: %s (tbf %.0f Mbit/s)\n", k, row ? row : "?",
                   want[k] / 1e6);
            CU_ASSERT(fabs(v - want[k]) <= 0.15 * want[k]);
        }
    }
    yajl_tree_free(root);
}

/* ---- a ring all-reduce beside compute (bench/hopwait) -------------------- */
/* The mechanism behind the replay's under-prediction of overlapped rings
 * (issue 11, docs/accuracy.md "Eighth round"): under a CPU quota, gloo's
 * thread waits for the quota's next period while the compute has used it.
 * On 2026-12-01 (this VM, 1 MB, 2 ranks) the all-reduce took 6 ms idle and
 * 12 ms beside compute without a quota, 18-20 ms at 0.5 core and 43-44 ms
 * at 0.2 core.  Checked: beside compute is slower than idle at 0.2 core on
 * both ranks, and the extra at 0.2 core exceeds the extra at 0.5 core (3x
 * apart when measured), compared by the median of each quota's 8 rows.
 * The bench runs twice, the quotas in the order 0.5, 0.2, 0.2, 0.5 and
 * then 0.2, 0.5, 0.5, 0.2 (a fresh testbed each): once each in turn, a
 * test beside it or a slow spell of the VM fell on one quota only and
 * evened the two out (16.4 against 17.3 ms, ctest -j2, 2026-12-01 16:58
 * UTC); and one slowed testbed in four (the last 0.5 one: 48 and 36 ms of
 * extra against 9 and 15 ms for the first, CI, 2026-12-01 21:50 UTC)
 * turned the means of one ABBA run around, where the medians of both
 * runs' rows hold. */
static void test_hopwait(void)
{
    static const char *const orders[2] = {"0.5,0.2,0.2,0.5",
                                          "0.2,0.5,0.5,0.2"};
    const char *dir = hs_test_tmpdir("hopwait");
    double extra[2][8], med[2];
    int n[2] = {0, 0}, run;
    size_t i;

    if (skip_reason() != NULL) {
        hs_test_skip("hopwait", skip_reason());
        return;
    }
    for (run = 0; run < 2; run++) {
        char json_path[512];
        char *argv[10];
        yajl_val root, rows;

        snprintf(json_path, sizeof json_path, "%s/hopwait%d.json", dir, run);
        argv[0] = HS_TEST_SRC "/bench/hopwait";
        argv[1] = "--quotas";
        argv[2] = (char *)orders[run];
        argv[3] = "--trials";
        argv[4] = "5";
        argv[5] = "--json";
        argv[6] = json_path;
        argv[7] = NULL;
        root = hs_test_run_json("hopwait", argv, json_path);
        if (root == NULL)
            return;   /* skipped, or a failed assertion above */
        {
            const char *rp[] = {"rows", NULL};
            rows = yajl_tree_get(root, rp, yajl_t_array);
        }
        CU_ASSERT_FATAL(rows != NULL);
        HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(rows)->len, 8);
        for (i = 0; i < YAJL_GET_ARRAY(rows)->len; i++) {
            yajl_val row = YAJL_GET_ARRAY(rows)->values[i];
            const char *qp[] = {"quota", NULL}, *ip[] = {"idle_ns", NULL};
            const char *bp[] = {"beside_ns", NULL}, *xp[] = {"extra_ns", NULL};
            double q = num(row, qp), idle = num(row, ip);
            double beside = num(row, bp);
            int k = q < 0.3;

            CU_ASSERT(idle > 0 && beside > 0);
            HS_ASSERT_DBL_NEAR(num(row, xp), beside - idle, 1.0);
            if (k)
                CU_ASSERT(beside > idle);
            if (n[k] < 8)
                extra[k][n[k]++] = beside - idle;
        }
        yajl_tree_free(root);
    }
    HS_ASSERT_I64_EQ(n[0], 8);
    HS_ASSERT_I64_EQ(n[1], 8);
    if (n[0] != 8 || n[1] != 8)
        return;
    for (run = 0; run < 2; run++)
        med[run] = median(extra[run], 8);   /* the mean of the middle two */
    printf("  median extra beside compute (8 rows each): %.2f ms at 0.5 "
           "core, %.2f ms at 0.2 core\n", med[0] / 1e6, med[1] / 1e6);
    CU_ASSERT(med[1] > med[0]);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("testbed_smoke", NULL, NULL);

    if (s == NULL)
        return -1;
    CU_add_test(s, "cgroup v1 and v2 backends", test_cgroup_backends);
    CU_add_test(s, "teardown on SIGTERM", test_teardown_on_signal);
    CU_add_test(s, "CPU quota differentiates speed", test_quota_speed);
    CU_add_test(s, "directed pair rate", test_pair_rate);
    CU_add_test(s, "accuracy smoke case", test_accuracy_smoke);
    CU_add_test(s, "all-reduce beside compute under a quota",
                test_hopwait);
    return 0;
}

HS_TEST_MAIN(register_tests)
