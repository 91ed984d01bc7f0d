/*
 * test_testbed_smoke.c -- the testbed's mechanics (bench/testbed/): a real
 * heterogeneous cluster on this machine, and hetsim's whole method run in
 * it.  What is checked holds on a loaded machine: that each mechanism is
 * applied, runs end to end and writes figures that are there, plausible
 * and consistent.  How fast anything ran (speed ratios, the prediction
 * errors, the all-reduce's wait beside compute) is for the benchmarks
 * (bench/accuracy, bench/hopwait, testbed.py quota-check), which print
 * those figures beside their reference: a 2-vCPU VM's vCPUs change speed
 * on their own, and a check on them failed with nothing wrong (issue 29).
 *
 * Six checks: the cgroup v1 and v2 backends on fake trees, then five
 * against the real testbed:
 *  - teardown on interrupt: `testbed.py up` builds two hosts (namespaces,
 *    bridge, tbf, CPU-quota cgroups); the test sees them exist with the
 *    quota it asked for, sends SIGTERM, and sees every namespace and cgroup
 *    of that testbed gone;
 *  - the CPU quota is applied (`testbed.py quota-check`): a busy loop
 *    under 0.5 and one under 0.25 core, on one core; each host's cgroup
 *    holds its quota, used no more CPU time than it over the busy windows
 *    and some, and the smaller one was throttled;
 *  - a directed pair rate is applied (`testbed.py pair-check`: hosts a, b,
 *    c at 300 Mbit/s, a -> b alone at 60 Mbit/s through htb + a u32
 *    filter): iperf3 a -> b stays within 60 Mbit/s, a -> c (a's default
 *    class) and b -> a (the other direction) within 300 and above 60, and
 *    nothing of that testbed is left;
 *  - one small accuracy case end to end (`bench/accuracy --smoke --iters
 *    12`: hetsim profile in the testbed, measure-bw, predict, simulate,
 *    the FULL 4-rank run, about 1 minute on 2 cores): every figure there,
 *    positive, plausible and consistent, the profile with the quotas the
 *    testbed set, the measured links within the tbf rates, and nothing of
 *    the testbed left;
 *  - a ring all-reduce beside compute (`bench/hopwait`, short): its rows
 *    are there and consistent.
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

/* ---- the CPU quota is applied -------------------------------------------
 * Two hosts at 0.5 and 0.25 core run the same busy matmul loop at the same
 * time on the same core (testbed.py quota-check); each wants the whole
 * core.  Checked, from the host's cgroup: it holds the quota asked for; it
 * was throttled (CFS bandwidth control held the loop back); and its CPU
 * time over the busy windows is within its quota (the kernel gives a group
 * no more than its quota, whatever else the machine does: a bound that
 * holds on a loaded VM) and is not nothing (the loop ran in that group).
 * Without the quota the 0.25 host would take half the core and never be
 * throttled.  The matmul rates are printed with their reference (the
 * quotas' ratio) and not judged: the VM's vCPUs change speed on their own
 * (docs/testbed.md), so a speed ratio is a benchmark figure (a 0.50/0.25
 * rate ratio of 3.6, its per-window ratios 1.83..4.17, with the 0.25 host
 * at exactly its quota: issue 29). */
static void test_quota_applied(void)
{
    const char *pq[] = {"quotas", NULL}, *pr[] = {"ratios", NULL};
    const char *kq[] = {"quota", NULL}, *kc[] = {"cores_median", NULL};
    const char *ks[] = {"set_cores", NULL}, *kg[] = {"cg_cores", NULL};
    const char *kt[] = {"cg_throttled", NULL}, *kw[] = {"cg_window_s", NULL};
    const char *krt[] = {"rates", NULL}, *kpw[] = {"per_window", NULL};
    const char *kb[] = {"b", NULL};
    double rates[2][16];
    size_t nrates[2] = {0, 0};
    yajl_val root, qs, rs;
    size_t i, k;

    root = run_tb_json("testbed quota", "quota-check", "quota.json");
    if (root == NULL)
        return;
    qs = yajl_tree_get(root, pq, yajl_t_array);
    rs = yajl_tree_get(root, pr, yajl_t_array);
    CU_ASSERT_FATAL(qs != NULL && rs != NULL);
    HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(qs)->len, 2);
    for (i = 0; i < YAJL_GET_ARRAY(qs)->len && i < 2; i++) {
        yajl_val e = YAJL_GET_ARRAY(qs)->values[i];
        yajl_val rt = yajl_tree_get(e, krt, yajl_t_array);
        double q = num(e, kq), set = num(e, ks), cg = num(e, kg);
        double thr = num(e, kt), win = num(e, kw), own = num(e, kc);

        printf("  quota %.2f: the group holds %.3f cores; used %.3f cores "
               "over %.1f s (cgroup), %.3f (the process's own clock); "
               "throttled in %.0f periods\n", q, set, cg, win, own, thr);
        CU_ASSERT(q == (i == 0 ? 0.5 : 0.25));
        /* the quota written is the quota asked for */
        CU_ASSERT(fabs(set - q) < 1e-9);
        /* the busy windows were measured (5 of 1.5 s: 6 s from the first
           row to the last), and within them the group used no more than
           its quota (10% for the reading's timing), and some of it */
        CU_ASSERT(isfinite(win) && win > 3);
        CU_ASSERT(isfinite(cg) && cg > 0.02 && cg <= q * 1.10);
        CU_ASSERT(isfinite(own) && own > 0.02 && own <= q * 1.15);
        /* the loop wanted the whole core: the smaller quota certainly
           held it back (the larger one may share the core's time with
           another testbed's hosts and so stay below its quota) */
        if (q == 0.25)
            CU_ASSERT(thr > 0);
        /* a rate per window, each positive */
        CU_ASSERT_FATAL(rt != NULL);
        HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(rt)->len, 5);
        for (k = 0; k < YAJL_GET_ARRAY(rt)->len && k < 16; k++) {
            yajl_val v = YAJL_GET_ARRAY(rt)->values[k];

            rates[i][k] = YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : NAN;
            CU_ASSERT(rates[i][k] > 0);
        }
        nrates[i] = k;
    }
    /* the per-window ratios are the two hosts' rates, window by window
       (the figures are consistent); their median is printed beside the
       quotas' ratio, not judged */
    HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(rs)->len, 1);
    for (i = 0; i < YAJL_GET_ARRAY(rs)->len; i++) {
        yajl_val e = YAJL_GET_ARRAY(rs)->values[i];
        yajl_val w = yajl_tree_get(e, kpw, yajl_t_array);
        double want[16], got[16];

        CU_ASSERT_FATAL(w != NULL && fabs(num(e, kb) - 0.25) < 1e-9);
        HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(w)->len, nrates[0]);
        if (nrates[0] != nrates[1] || YAJL_GET_ARRAY(w)->len != nrates[0])
            continue;
        for (k = 0; k < nrates[0]; k++) {
            yajl_val v = YAJL_GET_ARRAY(w)->values[k];

            want[k] = rates[0][k] / rates[1][k];
            got[k] = YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : NAN;
        }
        qsort(want, nrates[0], sizeof want[0], cmp_double);
        for (k = 0; k < nrates[0]; k++)
            HS_ASSERT_DBL_NEAR(got[k], want[k], 1e-9 * want[k]);
        printf("  0.50/0.25 matmul rate, median of the per-window ratios: "
               "%.3f (reference: the quotas' ratio 2; a figure, not a "
               "check)\n", median(got, nrates[0]));
    }
    yajl_tree_free(root);
}

/* ---- a directed pair rate ------------------------------------------------
 * The testbed shapes a host's egress per destination when a case lists
 * pair rates (htb classes chosen by destination address); the ring order
 * then changes which links the ring uses, which `advise ring` is about.
 * iperf3 between the testbed's own namespaces; the testbed removes them
 * on exit (and the check below sees none left).  What holds on any
 * machine, loaded or not: a shaped class lets no more than its rate
 * through, so a -> b (60 Mbit/s) stays within its rate, while a -> c and
 * b -> a, which the pair class must not catch, go faster than the pair
 * rate allows (their own rate is 300).  How close each comes to its rate
 * is printed, not judged. */
static void test_pair_rate(void)
{
    static const char *label[3] = {"a->b", "a->c", "b->a"};
    const char *pp[] = {"pairs", NULL}, *pt[] = {"testbed", NULL};
    const char *kp[] = {"pair", NULL}, *ks[] = {"set_bps", NULL};
    const char *km[] = {"measured_bps", NULL};
    double got[3] = {-1, -1, -1}, set[3] = {-1, -1, -1};
    const double pair_bps = 60e6, host_bps = 300e6;
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
            if (strcmp(ls, label[k]) == 0) {
                got[k] = num(e, km);
                set[k] = num(e, ks);
            }
    }
    for (k = 0; k < 3; k++) {
        double cap = k == 0 ? pair_bps : host_bps;

        printf("  %s: set %.0f Mbit/s, measured %.1f Mbit/s (%.3f of it)\n",
               label[k], set[k] / 1e6, got[k] / 1e6, got[k] / set[k]);
        HS_ASSERT_DBL_NEAR(set[k], cap, 1.0);
        /* no more than the class's rate (15% for iperf3's reading), and
           more than a quarter of it (a unit slip, bytes for bits, reads
           an eighth) */
        CU_ASSERT(isfinite(got[k]) && got[k] > 0.25 * cap &&
                  got[k] <= 1.15 * cap);
        /* a -> c and b -> a are not held to the pair class's rate */
        if (k > 0)
            CU_ASSERT(got[k] > 1.15 * pair_bps);
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

/* ---- one accuracy case end to end ---------------------------------------
 * `bench/accuracy --smoke` with 12 iterations, one attempt at each phase,
 * no waiting for a steady host and no canary readings: hetsim profile in
 * the testbed, measure-bw, predict and simulate, the full 4-rank run,
 * the compute-drift replay.  Checked: every figure is there, positive and
 * physically plausible (a step below a minute), the figures agree with
 * each other (each error is its prediction against the measured step,
 * the measured step is the mean of the runs it says, the drift lies
 * between its forward and backward parts), the profile has the model's
 * gradient bytes and the quota and period the testbed gave each type's
 * cgroup, measure-bw's rates are within the tbf rates, and nothing of the
 * testbed is left.  The errors themselves are printed beside their
 * reference bands by the benchmark and not judged here: they move with
 * the VM's vCPU speed (a profile taken while a vCPU ran at half speed put
 * patent outside its band with nothing wrong in hetsim, 2026-12-01). */
static void test_accuracy_smoke(void)
{
    const char *dir = hs_test_tmpdir("testbed-smoke");
    char json_path[512], work[512];
    char *argv[20];
    yajl_val root, res, links;
    int before, k;
    double m;

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
    argv[8] = "--retry";
    argv[9] = "0";
    argv[10] = "--steady-wait";
    argv[11] = "0";
    argv[12] = "--iters";
    argv[13] = "12";
    argv[14] = "--no-canary";
    argv[15] = NULL;
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
    /* the case ran as asked: 12 iterations, 4 of them warm-up */
    {
        const char *pi[] = {"iters", NULL}, *pw[] = {"warmup", NULL};

        HS_ASSERT_I64_EQ(num(res, pi), 12);
        HS_ASSERT_I64_EQ(num(res, pw), 4);
    }
    /* the measured step and every prediction: positive, below a minute,
       and each error its prediction against the measured step */
    {
        static const char *modes[] = {"patent", "buckets", "none",
                                      "last_bucket", "recommended"};
        const char *pm[] = {"measured_ns", NULL};
        const char *pc[] = {"closed_ns", NULL};
        const char *ec[] = {"err", "closed", NULL};
        const char *cgp[] = {"cgroup", NULL};
        yajl_val cg = yajl_tree_get(res, cgp, yajl_t_string);
        const char *cgs = cg != NULL ? YAJL_GET_STRING(cg) : NULL;
        size_t i;

        m = num(res, pm);
        /* the results say which cgroup version set the quotas */
        if (cgs == NULL)
            cgs = "(missing)";
        printf("  cgroup %s\n", cgs);
        CU_ASSERT(strcmp(cgs, "v1") == 0 || strcmp(cgs, "v2") == 0);
        printf("  measured %.1f ms; closed %.1f ms (%+.1f%%)\n", m / 1e6,
               num(res, pc) / 1e6, 100 * num(res, ec));
        CU_ASSERT_FATAL(isfinite(m) && m > 1e6 && m < 60e9);
        CU_ASSERT(isfinite(num(res, pc)) && num(res, pc) > 0 &&
                  num(res, pc) < 60e9);
        HS_ASSERT_DBL_NEAR(num(res, ec), (num(res, pc) - m) / m, 1e-9);
        for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
            const char *pr[] = {"replay_ns", modes[i], NULL};
            const char *pe[] = {"err", modes[i], NULL};
            double v = num(res, pr);

            printf("  replay %s %.1f ms (%+.1f%%)\n", modes[i], v / 1e6,
                   100 * num(res, pe));
            CU_ASSERT(isfinite(v) && v > 0 && v < 60e9);
            HS_ASSERT_DBL_NEAR(num(res, pe), (v - m) / m, 1e-9);
        }
    }
    /* one profile attempt (--retry 0), used, started without waiting */
    {
        const char *pa[] = {"profile_attempts", NULL};
        const char *pu[] = {"profile_used", NULL};
        const char *kp[] = {"phase", NULL}, *kw[] = {"waited_s", NULL};
        yajl_val att = yajl_tree_get(res, pa, yajl_t_array);
        yajl_val used = yajl_tree_get(res, pu, yajl_t_string);
        const char *us = used != NULL ? YAJL_GET_STRING(used) : NULL;
        const char *phs;
        yajl_val a, ph;

        CU_ASSERT_FATAL(att != NULL && us != NULL &&
                        YAJL_GET_ARRAY(att)->len == 1);
        a = YAJL_GET_ARRAY(att)->values[0];
        ph = yajl_tree_get(a, kp, yajl_t_string);
        phs = ph != NULL ? YAJL_GET_STRING(ph) : NULL;
        CU_ASSERT(phs != NULL && strcmp(phs, "profile0") == 0);
        CU_ASSERT(us != NULL && strcmp(us, "profile0") == 0);
        CU_ASSERT(num(a, kw) == 0);
    }
    /* the profile of each type: the model's gradient bytes (mlp's M; D = M
       for n = 2), a forward between 0 and 10 s, a hop wait of 0 to 1 s a
       hop, and the quota and 10 ms period the testbed gave the type's
       hosts, read by the harness from their cgroup; the recommended
       replay is buckets where every type has a hop wait (the harness's
       hop probe), else last_bucket */
    {
        const char *pl[] = {"replay_ns", "last_bucket", NULL};
        const char *pb_[] = {"replay_ns", "buckets", NULL};
        const char *pr[] = {"replay_ns", "recommended", NULL};
        const char *pp_[] = {"profile", NULL};
        yajl_val prof = yajl_tree_get(res, pp_, yajl_t_object);
        size_t t;
        int waits = prof != NULL && YAJL_GET_OBJECT(prof)->len > 0;

        CU_ASSERT_FATAL(prof != NULL);
        HS_ASSERT_I64_EQ(YAJL_GET_OBJECT(prof)->len, 2);
        for (t = 0; t < YAJL_GET_OBJECT(prof)->len; t++) {
            const char *pw[] = {"t_hop_wait_ns", NULL};
            const char *pq[] = {"cpu_quota_cores", NULL};
            const char *pper[] = {"t_cpu_period_ns", NULL};
            const char *pf[] = {"t_fwd_ns", NULL};
            const char *pd[] = {"allreduce_bytes", NULL};
            const char *pt[] = {"types", YAJL_GET_OBJECT(prof)->keys[t],
                                "quota", NULL};
            yajl_val vt = YAJL_GET_OBJECT(prof)->values[t];
            double w_ns = num(vt, pw), q = num(vt, pq), want = num(res, pt);

            printf("  type %s: t_fwd %.3f ms, t_hop_wait %.3f ms, cpu quota "
                   "%.3f cores (testbed %.3f), period %.1f ms\n",
                   YAJL_GET_OBJECT(prof)->keys[t], num(vt, pf) / 1e6,
                   w_ns / 1e6, q, want, num(vt, pper) / 1e6);
            HS_ASSERT_I64_EQ(num(vt, pd), 5335080);
            CU_ASSERT(num(vt, pf) > 0 && num(vt, pf) < 10e9);
            CU_ASSERT(w_ns >= 0 && w_ns < 1e9);
            if (!(w_ns > 0))
                waits = 0;
            CU_ASSERT(isfinite(want) && fabs(q - want) < 1e-6);
            CU_ASSERT(num(vt, pper) == 10e6);
        }
        CU_ASSERT(num(res, pr) == num(res, waits ? pb_ : pl));
    }
    /* the compute-drift diagnostic (bench/accuracy compute_drift): per
       type, the full run's compute over the profile's, the forward's and
       the backward's together, so a weighted mean of the two ratios
       (between them); the recommended replay redone with every device's
       compute scaled by it, and its error against the measured step */
    {
        const char *pd[] = {"compute_drift", NULL};
        const char *pt[] = {"types", NULL};
        const char *pr[] = {"drift_replay_ns", NULL};
        const char *pe[] = {"err_drift_replay", NULL};
        yajl_val dr = yajl_tree_get(res, pd, yajl_t_object);
        yajl_val ty = yajl_tree_get(res, pt, yajl_t_object);
        double v = num(res, pr);
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
            double kd = num(res, pk), f = num(res, pf), b = num(res, pb),
                   a = num(res, pa);

            printf("  type %s: compute drift x%.3f (forward x%.3f, "
                   "backward x%.3f; %.1f ms waiting for the all-reduces "
                   "after the last gradient)\n", kn, kd, f, b, a / 1e6);
            CU_ASSERT(isfinite(kd) && kd > 0);
            CU_ASSERT(isfinite(f) && isfinite(b) && isfinite(a) && a >= 0);
            CU_ASSERT(kd >= fmin(f, b) - 1e-9 && kd <= fmax(f, b) + 1e-9);
        }
        printf("  drift replay %.1f ms (%+.1f%%)\n", v / 1e6,
               100 * num(res, pe));
        CU_ASSERT(isfinite(v) && v > 0 && v < 60e9);
        HS_ASSERT_DBL_NEAR(num(res, pe), (v - m) / m, 1e-9);
    }
    /* the host monitor ran all along: a host factor for the profile and
       the full run from samples on the online CPUs (a CPU none of whose
       samples was kept is left out), and the run's held flag; the
       measured step is the mean of the runs that held, else of all */
    {
        static const char *phs[] = {"profile0", "full0"};
        const char *hp[] = {"runs_held", NULL};
        const char *rp[] = {"measured_runs_ns", NULL};
        yajl_val held = yajl_tree_get(res, hp, yajl_t_array);
        yajl_val runs = yajl_tree_get(res, rp, yajl_t_array);
        cpu_set_t set;
        size_t i, j, ncpu, nr, nk = 0;
        double kept = 0, all = 0;

        CU_ASSERT_FATAL(sched_getaffinity(0, sizeof set, &set) == 0);
        ncpu = (size_t)CPU_COUNT(&set);
        for (i = 0; i < 2; i++) {
            const char *fp[] = {"monitor", phs[i], "factor", NULL};
            const char *cp[] = {"monitor", phs[i], "cpus", NULL};
            yajl_val cpus = yajl_tree_get(res, cp, yajl_t_object);
            double f = num(res, fp);

            printf("  host factor %s: %.2f\n", phs[i], f);
            if (cpus == NULL)
                continue;   /* no sample kept in this phase */
            CU_ASSERT(isfinite(f) && f > 0);
            CU_ASSERT(YAJL_GET_OBJECT(cpus)->len >= 1 &&
                      YAJL_GET_OBJECT(cpus)->len <= ncpu);
            for (j = 0; j < YAJL_GET_OBJECT(cpus)->len; j++) {
                const char *np[] = {"n", NULL};

                CU_ASSERT(num(YAJL_GET_OBJECT(cpus)->values[j], np) >= 1);
            }
        }
        CU_ASSERT_FATAL(held != NULL && runs != NULL);
        nr = YAJL_GET_ARRAY(runs)->len;
        /* one run (--retry 0) */
        HS_ASSERT_I64_EQ(nr, 1);
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
        CU_ASSERT(nr > 0 && fabs(m - (nk ? kept / (double)nk
                                         : all / (double)nr)) < 1.0);
    }
    /* measure-bw measured the ring inside the testbed, each edge within
       its tbf rate (15% for iperf3's reading) and above a quarter of it
       (a unit slip, bytes for bits, reads an eighth): the smoke ring is f0
       (300 Mbit/s) -> s0 -> f1 -> s1 -> f0, the others at 1 Gbit/s */
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
            CU_ASSERT(v > 0.25 * want[k] && v <= 1.15 * want[k]);
        }
    }
    yajl_tree_free(root);
}

/* ---- a ring all-reduce beside compute (bench/hopwait) --------------------
 * The mechanism behind the replay's hop wait (docs/accuracy.md "Eighth
 * round"): under a CPU quota, gloo's thread waits for the quota's next
 * period while the compute has used it.  The benchmark measures it; how
 * much longer the all-reduce takes beside compute, and how that grows as
 * the quota shrinks, are its figures (printed with their reference), not
 * checks here: on this VM a slowed vCPU or a test beside it has turned
 * the order of two quotas' figures around (2026-12-01).  This runs it
 * short (one quota, 3 trials, 2 ranks in a fresh testbed) and checks what
 * it writes: a row per rank with every trial's sample, each row's medians
 * those of its samples, its extra their difference, per hop over the
 * ring's 2(N-1) = 2 hops, every time positive and below 10 s, and the
 * testbed removed. */
static void test_hopwait(void)
{
    const char *dir = hs_test_tmpdir("hopwait");
    char json_path[512];
    char *argv[10];
    yajl_val root, rows;
    int before;
    size_t i;

    if (skip_reason() != NULL) {
        hs_test_skip("hopwait", skip_reason());
        return;
    }
    snprintf(json_path, sizeof json_path, "%s/hopwait.json", dir);
    before = count_prefixed("hetsim-testbed-");
    argv[0] = HS_TEST_SRC "/bench/hopwait";
    argv[1] = "--quotas";
    argv[2] = "0.5";
    argv[3] = "--trials";
    argv[4] = "3";
    argv[5] = "--json";
    argv[6] = json_path;
    argv[7] = NULL;
    root = hs_test_run_json("hopwait", argv, json_path);
    HS_ASSERT_I64_EQ(count_prefixed("hetsim-testbed-"), before);
    if (root == NULL)
        return;   /* skipped, or a failed assertion above */
    {
        const char *rp[] = {"rows", NULL}, *hp[] = {"hops", NULL};

        rows = yajl_tree_get(root, rp, yajl_t_array);
        HS_ASSERT_I64_EQ(num(root, hp), 2);
    }
    CU_ASSERT_FATAL(rows != NULL);
    HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(rows)->len, 2);
    for (i = 0; i < YAJL_GET_ARRAY(rows)->len; i++) {
        static const char *kinds[2] = {"idle_ns", "beside_ns"};
        yajl_val row = YAJL_GET_ARRAY(rows)->values[i];
        const char *qp[] = {"quota", NULL}, *rp[] = {"rank", NULL};
        const char *xp[] = {"extra_ns", NULL};
        const char *pp[] = {"extra_per_hop_ns", NULL};
        double med[2];
        int k;

        HS_ASSERT_DBL_NEAR(num(row, qp), 0.5, 1e-12);
        HS_ASSERT_I64_EQ(num(row, rp), i);
        for (k = 0; k < 2; k++) {
            const char *mp[] = {kinds[k], NULL};
            const char *sp[] = {"samples", kinds[k], NULL};
            yajl_val smp = yajl_tree_get(row, sp, yajl_t_array);
            double v[3];
            size_t j;

            med[k] = num(row, mp);
            CU_ASSERT(isfinite(med[k]) && med[k] > 0 && med[k] < 10e9);
            CU_ASSERT_FATAL(smp != NULL);
            HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(smp)->len, 3);
            if (YAJL_GET_ARRAY(smp)->len != 3)
                continue;
            for (j = 0; j < 3; j++) {
                yajl_val x = YAJL_GET_ARRAY(smp)->values[j];

                v[j] = YAJL_IS_NUMBER(x) ? YAJL_GET_DOUBLE(x) : NAN;
                CU_ASSERT(v[j] > 0 && v[j] < 10e9);
            }
            qsort(v, 3, sizeof v[0], cmp_double);
            HS_ASSERT_DBL_NEAR(med[k], v[1], 0.5);
        }
        HS_ASSERT_DBL_NEAR(num(row, xp), med[1] - med[0], 1.0);
        HS_ASSERT_DBL_NEAR(num(row, pp), (med[1] - med[0]) / 2, 1.0);
    }
    yajl_tree_free(root);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("testbed_smoke", NULL, NULL);

    if (s == NULL)
        return -1;
    CU_add_test(s, "cgroup v1 and v2 backends", test_cgroup_backends);
    CU_add_test(s, "teardown on SIGTERM", test_teardown_on_signal);
    CU_add_test(s, "CPU quota applied (cgroup)", test_quota_applied);
    CU_add_test(s, "directed pair rate", test_pair_rate);
    CU_add_test(s, "accuracy smoke case", test_accuracy_smoke);
    CU_add_test(s, "all-reduce beside compute under a quota",
                test_hopwait);
    return 0;
}

HS_TEST_MAIN(register_tests)
