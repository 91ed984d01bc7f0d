/*
 * test_profile.c -- `hetsim profile` for real: a 2-rank gloo sub-system on
 * this machine's CPU trains scenarios/models/mlp.py (1.3 M parameters) for
 * 30 iterations under the PyTorch profiler (scenarios/live-mlp.yaml).
 *
 * Checked against independent figures:
 *   - the gradient bytes M come from python itself (sum of numel *
 *     element_size over the model's trainable parameters, printed by the
 *     test); with n = 2 the profile's all-reduce bytes D = 2(n-1)/n * M
 *     must equal M exactly, and its buckets must add up to M;
 *   - each trace holds one ProfilerStep#N per recorded iteration
 *     (N = 10..29), DataLoader __next__ events and autograd backward
 *     operators; 20 steps are kept;
 *   - the ingested forward time is the harness's own clock (sidecar):
 *     the profile's samples are both ranks' plain steps, its mean theirs;
 *   - the hop-wait probe: 16 trials pooled, and the profile's t_hop_wait
 *     recomputed from them;
 *   - the written scenario loads, carries the profile, and `hetsim
 *     predict` runs on it.
 * Bad input: a model that fails to import, a rank that crashes (the type
 * measured before it keeps its profile), a rank that hangs (timeout), a
 * python that does not exist: each a clear error naming type, rank,
 * device, host and step, exit status 4.
 *
 * Skipped with a printed reason when python3 with torch is not installed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "hs_profile_run.h"
#include "hs_scenario.h"
#include "hs_spawn.h"
#include "hs_test.h"
#include "profile_check.h"

static const char *hs__py;   /* pc_python's, once found */

/* 1 when there is a python3 with torch (pc_python), else 0. */
static int hs__python(void)
{
    hs__py = pc_python("profile");
    return hs__py != NULL;
}

/* The model's gradient bytes, computed by python from the model file. */
static long long hs__grad_bytes(const char *model_dir, const char *module)
{
    char code[8192];
    char *argv[] = {(char *)hs__py, "-c", code, NULL};
    hs_run_t r;
    long long v = -1;

    snprintf(code, sizeof code,
             "import sys; sys.path.insert(0, '%s'); import %s as m; "
             "net = m.build_model(); "
             "print(sum(p.numel() * p.element_size() "
             "for p in net.parameters() if p.requires_grad), "
             "sum(p.numel() for p in net.parameters()))",
             model_dir, module);
    if (hs_run(argv, &r) != 0)
        return -1;
    if (r.status == 0)
        sscanf(r.out, "%lld", &v);
    printf("\n  python: %s gradient bytes, parameters: %s", module, r.out);
    hs_run_free(&r);
    return v;
}

static yajl_val hs__load_json(const char *path)
{
    char ebuf[256];
    char *text = hs_read_small_file(path, 64u << 20);
    yajl_val v;

    if (text == NULL)
        return NULL;
    v = yajl_tree_parse(text, ebuf, sizeof ebuf);
    free(text);
    return v;
}

/* Writes text to path, making its directories first. */
static void hs__put(const char *path, const char *text)
{
    char d[1024];
    char *sl;
    FILE *f;

    snprintf(d, sizeof d, "%s", path);
    for (sl = strchr(d + 1, '/'); sl != NULL; sl = strchr(sl + 1, '/')) {
        *sl = '\0';
        mkdir(d, 0755);
        *sl = '/';
    }
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

/* The harness's _cpu_quota over a cgroup tree made here (a mountinfo
   naming a v1 cpu hierarchy and a v2 one under the test's directory, and
   a /proc/self/cgroup): the tightest limit of the process's groups and
   every group above them, in cores, with its period; None without one. */
static void test_cpu_quota_reader(void)
{
    static const struct {
        const char *cgroup;     /* /proc/self/cgroup */
        double cores;           /* 0: None */
        long long period_ns;
    } cases[] = {
        /* v1 leaf 0.3 (its parent unlimited) beats v2's 0.5 */
        {"1:cpu,cpuacct:/tb/h0\n0::/app/leaf\n", 0.3, 100000000},
        /* v2 only: the parent's 0.5, the leaf says max */
        {"0::/app/leaf\n", 0.5, 100000000},
        /* v1: the parent's 0.2 beats the leaf's 0.25 */
        {"1:cpu,cpuacct:/tb2/h1\n", 0.2, 10000000},
        /* no limit anywhere */
        {"0::/free\n", 0, 0},
        /* a group that is not there */
        {"1:cpu,cpuacct:/gone\n0::/gone\n", 0, 0},
    };
    const char *dir = hs_test_tmpdir("cpu-quota");
    char p[1024], mi[4096], code[1024];
    size_t i;

    if (!hs__python())
        return;
    snprintf(mi, sizeof mi,
             "31 30 0:28 / %s/cg1 rw,relatime - cgroup cgroup "
             "rw,cpu,cpuacct\n"
             "32 30 0:29 / %s/mem rw,relatime - cgroup cgroup rw,memory\n"
             "40 30 0:37 / %s/cg2 rw,relatime - cgroup2 cgroup2 rw\n",
             dir, dir, dir);
    snprintf(p, sizeof p, "%s/mountinfo", dir);
    hs__put(p, mi);
#define HS__CG(rel, text)                                                   \
    do {                                                                    \
        snprintf(p, sizeof p, "%s/%s", dir, rel);                           \
        hs__put(p, text);                                                   \
    } while (0)
    HS__CG("cg1/tb/cpu.cfs_quota_us", "-1\n");
    HS__CG("cg1/tb/cpu.cfs_period_us", "100000\n");
    HS__CG("cg1/tb/h0/cpu.cfs_quota_us", "30000\n");
    HS__CG("cg1/tb/h0/cpu.cfs_period_us", "100000\n");
    HS__CG("cg1/tb2/cpu.cfs_quota_us", "2000\n");
    HS__CG("cg1/tb2/cpu.cfs_period_us", "10000\n");
    HS__CG("cg1/tb2/h1/cpu.cfs_quota_us", "2500\n");
    HS__CG("cg1/tb2/h1/cpu.cfs_period_us", "10000\n");
    HS__CG("cg2/cpu.max", "max 100000\n");
    HS__CG("cg2/app/cpu.max", "50000 100000\n");
    HS__CG("cg2/app/leaf/cpu.max", "max 100000\n");
    HS__CG("cg2/free/cpu.max", "max 100000\n");
#undef HS__CG
    snprintf(code, sizeof code,
             "import json, sys; sys.path.insert(0, '%s/live/harness'); "
             "import hetsim_harness as h; "
             "print(json.dumps(h._cpu_quota(sys.argv[1], sys.argv[2])))",
             HS_TEST_SRC);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cg[1024], mpath[1024], ebuf[128];
        char *argv[] = {(char *)hs__py, "-c", code, cg, mpath, NULL};
        const char *pc[] = {"cores", NULL}, *pp[] = {"period_ns", NULL};
        hs_run_t r;
        yajl_val v;

        snprintf(cg, sizeof cg, "%s/cgroup%zu", dir, i);
        hs__put(cg, cases[i].cgroup);
        snprintf(mpath, sizeof mpath, "%s/mountinfo", dir);
        CU_ASSERT_EQUAL_FATAL(hs_run(argv, &r), 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        v = yajl_tree_parse(r.out, ebuf, sizeof ebuf);
        printf("\n  case %zu: %s", i, r.out);
        CU_ASSERT_PTR_NOT_NULL(v);
        if (cases[i].cores == 0) {
            CU_ASSERT(v != NULL && YAJL_IS_NULL(v));
        } else if (v != NULL) {
            yajl_val c = yajl_tree_get(v, pc, yajl_t_number);
            yajl_val q = yajl_tree_get(v, pp, yajl_t_number);
            CU_ASSERT(c != NULL && q != NULL);
            if (c != NULL && q != NULL) {
                HS_ASSERT_DBL_NEAR(YAJL_GET_DOUBLE(c), cases[i].cores, 1e-12);
                HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(q), cases[i].period_ns);
            }
        }
        yajl_tree_free(v);
        hs_run_free(&r);
    }
    /* no /proc/self/cgroup to read: None */
    {
        char *argv[] = {(char *)hs__py, "-c", code, "/nonexistent/cgroup",
                        p, NULL};
        hs_run_t r;
        CU_ASSERT_EQUAL_FATAL(hs_run(argv, &r), 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        HS_ASSERT_STR_CONTAINS(r.out, "null");
        hs_run_free(&r);
    }
}

/* The trace of one rank: as many ProfilerStep windows as profiled
   iterations, numbered from the first profiled one.  The harness runs,
   in this order, the warm-up, the plain iterations (no profiler) and the
   profiled ones (live/harness/hetsim_harness.py), so the legacy
   profiler's steps are #(warmup + plain) .. #(iterations + plain - 1);
   warmup, plain and iterations come from the rank's sidecar. */
static void hs__check_trace(const char *path, const char *sidecar)
{
    static const char *p_it[] = {"iterations", NULL};
    static const char *p_wu[] = {"warmup", NULL};
    static const char *p_pl[] = {"plain_iterations", NULL};
    yajl_val side = hs__load_json(sidecar), v_it, v_wu, v_pl;
    long n_it, n_wu, n_pl;
    static const char *p_ev[] = {"traceEvents", NULL};
    yajl_val root = hs__load_json(path), evs;
    size_t i, n_step = 0, n_dl = 0, n_bwd = 0;
    long first = -1, last = -1;

    CU_ASSERT_PTR_NOT_NULL_FATAL(side);
    v_it = yajl_tree_get(side, p_it, yajl_t_number);
    v_wu = yajl_tree_get(side, p_wu, yajl_t_number);
    v_pl = yajl_tree_get(side, p_pl, yajl_t_number);
    CU_ASSERT_FATAL(v_it != NULL && v_wu != NULL && v_pl != NULL);
    n_it = (long)YAJL_GET_INTEGER(v_it);
    n_wu = (long)YAJL_GET_INTEGER(v_wu);
    n_pl = (long)YAJL_GET_INTEGER(v_pl);
    yajl_tree_free(side);
    /* live-mlp.yaml: 30 iterations, 10 warm-up; plain: the default */
    HS_ASSERT_I64_EQ(n_it, 30);
    HS_ASSERT_I64_EQ(n_wu, 10);
    HS_ASSERT_I64_EQ(n_pl, 10);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    evs = yajl_tree_get(root, p_ev, yajl_t_array);
    CU_ASSERT_PTR_NOT_NULL_FATAL(evs);
    for (i = 0; i < YAJL_GET_ARRAY(evs)->len; i++) {
        static const char *p_name[] = {"name", NULL};
        yajl_val e = YAJL_GET_ARRAY(evs)->values[i];
        yajl_val nm = yajl_tree_get(e, p_name, yajl_t_string);
        const char *s = nm ? YAJL_GET_STRING(nm) : "";

        if (strncmp(s, "ProfilerStep#", 13) == 0) {
            long k = atol(s + 13);

            if (first < 0 || k < first)
                first = k;
            if (k > last)
                last = k;
            n_step++;
        } else if (strncmp(s, "enumerate(DataLoader)", 21) == 0
                   && strstr(s, "__next__") != NULL)
            n_dl++;
        else if (strncmp(s, "autograd::engine::evaluate_function: ", 37)
                 == 0 && strstr(s, "Backward") != NULL)
            n_bwd++;
    }
    printf("\n  %s: %zu ProfilerStep (#%ld..#%ld), %zu DataLoader "
           "__next__, %zu backward ops", path, n_step, first, last, n_dl,
           n_bwd);
    HS_ASSERT_I64_EQ(n_step, n_it - n_wu);
    HS_ASSERT_I64_EQ(first, n_wu + n_pl);
    HS_ASSERT_I64_EQ(last, n_it + n_pl - 1);
    CU_ASSERT(n_dl >= 20);
    CU_ASSERT(n_bwd >= 20 * 3);     /* 3 Linear layers and more per step */
    yajl_tree_free(root);
}

/* The harness's own forward times (sidecar) of its plain steps (run
   without the profiler: the ones the profile's compute means come from),
   in step order: this rank's own from "steps" into own[], every rank's
   pooled (rank order) from "plain" into pooled[] (up to cap each; *n_own,
   *n_pooled: how many).  *plain_first: 1 when every plain step comes
   before every profiled one (the harness times the plain steps before the
   profiler has ever run), else 0.  Returns 0, or -1 when the file does not
   load. */
static int hs__sidecar_fwd(const char *path, long long *grad_bytes,
                           int *plain_first, int64_t *own, size_t *n_own,
                           int64_t *pooled, size_t *n_pooled, size_t cap)
{
    static const char *p_steps[] = {"steps", NULL};
    static const char *p_fwd[] = {"t_fwd_ns", NULL};
    static const char *p_prof[] = {"profiled", NULL};
    static const char *p_pool[] = {"plain", "t_fwd_ns", NULL};
    int seen_prof = 0;
    static const char *p_grad[] = {"grad_bytes", NULL};
    yajl_val root = hs__load_json(path), st, g, pl;
    size_t i, n;

    *plain_first = 1;
    *n_own = *n_pooled = 0;
    if (root == NULL)
        return -1;
    g = yajl_tree_get(root, p_grad, yajl_t_number);
    *grad_bytes = g ? YAJL_GET_INTEGER(g) : -1;
    st = yajl_tree_get(root, p_steps, yajl_t_array);
    n = st ? YAJL_GET_ARRAY(st)->len : 0;
    for (i = 0; i < n; i++) {
        yajl_val e = YAJL_GET_ARRAY(st)->values[i];
        yajl_val f = yajl_tree_get(e, p_fwd, yajl_t_number);
        yajl_val pr = yajl_tree_get(e, p_prof, yajl_t_any);

        if (pr == NULL || YAJL_IS_TRUE(pr)) {
            seen_prof = 1;
            continue;
        }
        if (seen_prof)
            *plain_first = 0;
        if (*n_own < cap)
            own[(*n_own)++] = f ? YAJL_GET_INTEGER(f) : -1;
    }
    pl = yajl_tree_get(root, p_pool, yajl_t_array);
    for (i = 0; pl != NULL && i < YAJL_GET_ARRAY(pl)->len && i < cap; i++) {
        yajl_val f = YAJL_GET_ARRAY(pl)->values[i];

        pooled[(*n_pooled)++] = YAJL_IS_INTEGER(f) ? YAJL_GET_INTEGER(f) : -1;
    }
    yajl_tree_free(root);
    return 0;
}

static int hs__cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;

    return (x > y) - (x < y);
}

/* The median of a JSON list of integers (n <= 64), -1 if not one. */
static long long hs__median(yajl_val v)
{
    long long x[64];
    size_t n, i;

    if (v == NULL || !YAJL_IS_ARRAY(v) || YAJL_GET_ARRAY(v)->len == 0 ||
        YAJL_GET_ARRAY(v)->len > 64)
        return -1;
    n = YAJL_GET_ARRAY(v)->len;
    for (i = 0; i < n; i++) {
        if (!YAJL_IS_INTEGER(YAJL_GET_ARRAY(v)->values[i]))
            return -1;
        x[i] = YAJL_GET_INTEGER(YAJL_GET_ARRAY(v)->values[i]);
    }
    qsort(x, n, sizeof x[0], hs__cmp_ll);
    return n % 2 ? x[n / 2] : x[n / 2 - 1] + (x[n / 2] - x[n / 2 - 1]) / 2;
}

/* The sidecar's hop-wait probe (CPU devices): 8 trials per rank, both
   ranks' pooled, 2 hops; the profile's t_hop_wait is its medians'
   difference over the hops (0 when negative), recomputed here. */
static void hs__check_hop_probe(const char *sidecar, int64_t t_hop_wait_ns)
{
    const char *p_h[] = {"hop_probe", NULL}, *p_hops[] = {"hops", NULL},
               *p_i[] = {"idle_ns", NULL}, *p_b[] = {"beside_ns", NULL};
    yajl_val root = hs__load_json(sidecar), h, hops;
    long long mi, mb, expect;

    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    h = yajl_tree_get(root, p_h, yajl_t_object);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    hops = yajl_tree_get(h, p_hops, yajl_t_number);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hops);
    HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(hops), 2);
    HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(yajl_tree_get(h, p_i,
                                                  yajl_t_array))->len, 16);
    HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(yajl_tree_get(h, p_b,
                                                  yajl_t_array))->len, 16);
    mi = hs__median(yajl_tree_get(h, p_i, yajl_t_array));
    mb = hs__median(yajl_tree_get(h, p_b, yajl_t_array));
    CU_ASSERT(mi > 0 && mb > 0);
    expect = mb > mi ? (mb - mi) / 2 : 0;
    printf("\n  hop probe: all-reduce %.3f ms idle, %.3f ms beside the "
           "backward: t_hop_wait %.3f ms", mi / 1e6, mb / 1e6,
           t_hop_wait_ns / 1e6);
    HS_ASSERT_I64_EQ(t_hop_wait_ns, expect);
    yajl_tree_free(root);
}

static void test_profile_mlp(void)
{
    const char *dir;
    char scen[4096], outdir[2048], path[4096], models[2048];
    long long m_bytes, side_grad = -1;
    hs_run_t r;
    hs_profile_t prof;
    hs_scenario_t *s = NULL;
    hs_error_t err;
    uint64_t bsum = 0;
    int64_t own[64], pooled[128];
    size_t n_own = 0, n_pooled = 0;
    int plain_first = 0;
    size_t k;

    if (!hs__python())
        return;
    snprintf(models, sizeof models, "%s/scenarios/models", HS_TEST_SRC);
    m_bytes = hs__grad_bytes(models, "mlp");
    CU_ASSERT_FATAL(m_bytes > 1000000);
    dir = hs_test_tmpdir("profile-mlp");
    snprintf(scen, sizeof scen, "%s/scenarios/live-mlp.yaml", HS_TEST_SRC);
    snprintf(outdir, sizeof outdir, "%s/out", dir);
    pc_profile(&r, "profile", scen, outdir, NULL);
    hs_run_free(&r);

    for (k = 0; k < 2; k++) {
        char side[4096];

        snprintf(path, sizeof path, "%s/cpu/rank%zu.json", outdir, k);
        snprintf(side, sizeof side, "%s/cpu/rank%zu.sidecar.json", outdir,
                 k);
        hs__check_trace(path, side);
    }
    /* the profile: D = M for n = 2, buckets add up to M */
    snprintf(path, sizeof path, "%s/cpu.profile.yaml", outdir);
    hs_error_clear(&err);
    memset(&prof, 0, sizeof prof);
    CU_ASSERT_EQUAL_FATAL(hs_profile_load(path, &prof, &err), HS_OK);
    HS_ASSERT_I64_EQ(prof.subsys_n, 2);
    HS_ASSERT_I64_EQ(prof.ar_bytes, m_bytes);
    HS_ASSERT_DBL_NEAR(hs_profile_payload_bytes(&prof), (double)m_bytes,
                       0.5);
    HS_ASSERT_I64_EQ(prof.steps_kept, 20);
    CU_ASSERT(prof.n_buckets >= 1);
    for (k = 0; k < prof.n_buckets; k++)
        bsum += prof.buckets[k].bytes;
    HS_ASSERT_I64_EQ(bsum, m_bytes);
    CU_ASSERT(prof.t_fwd.known && prof.t_fwd.mean_ns > 0);
    CU_ASSERT(prof.t_b1.known && prof.t_b1.mean_ns > 0);
    CU_ASSERT(prof.t_dl.known && prof.t_dl.mean_ns > 0);
    /* plausible times: below a second each (the mlp's forward takes tens
       of milliseconds; how long is not judged) */
    CU_ASSERT(prof.t_fwd.mean_ns < 1000000000LL);
    CU_ASSERT(prof.t_b1.mean_ns < 1000000000LL);
    CU_ASSERT(prof.t_dl.mean_ns < 1000000000LL);
    HS_ASSERT_STR_CONTAINS(prof.source, "seed");
    /* the communication's own cost, from the harness's probe: gloo on a
       CPU spends some of the device's time per byte it sends (about 1 ns
       on a free core here; a wide bound, the machine is shared) */
    printf("\n  comm_ns_per_byte %.3f", prof.comm_ns_per_byte);
    CU_ASSERT(prof.comm_ns_per_byte > 0 && prof.comm_ns_per_byte < 50);
    snprintf(path, sizeof path, "%s/cpu/rank0.sidecar.json", outdir);
    hs__check_hop_probe(path, prof.t_hop_wait_ns);
    /* the profile's forward is the harness's own clock: its samples are
       both ranks' plain steps, pooled in rank order (rank 0's own plain
       steps first), and its mean is theirs; the plain steps ran first */
    snprintf(path, sizeof path, "%s/cpu/rank0.sidecar.json", outdir);
    CU_ASSERT_FATAL(hs__sidecar_fwd(path, &side_grad, &plain_first, own,
                                    &n_own, pooled, &n_pooled, 64) == 0);
    HS_ASSERT_I64_EQ(side_grad, m_bytes);
    HS_ASSERT_I64_EQ(plain_first, 1);
    printf("\n  t_fwd %.3f ms (%zu plain steps, both ranks); t_b1 %.3f ms;"
           " t_dl %.3f ms; D %llu B; %zu buckets",
           (double)prof.t_fwd.mean_ns / 1e6, n_pooled,
           (double)prof.t_b1.mean_ns / 1e6, (double)prof.t_dl.mean_ns / 1e6,
           (unsigned long long)prof.ar_bytes, prof.n_buckets);
    /* live-mlp.yaml: 10 plain steps a rank (the harness's default) */
    HS_ASSERT_I64_EQ(n_own, 10);
    HS_ASSERT_I64_EQ(n_pooled, 2 * n_own);
    HS_ASSERT_I64_EQ(prof.t_fwd.n_samples, n_pooled);
    for (k = 0; k < n_pooled && k < prof.t_fwd.n_samples; k++) {
        HS_ASSERT_I64_EQ(prof.t_fwd.samples_ns[k], pooled[k]);
        if (k < n_own)
            HS_ASSERT_I64_EQ(pooled[k], own[k]);
    }
    {
        double sum = 0;

        for (k = 0; k < n_pooled; k++)
            sum += (double)pooled[k];
        if (n_pooled > 0)
            HS_ASSERT_DBL_NEAR((double)prof.t_fwd.mean_ns,
                               sum / (double)n_pooled, 1.0);
    }
    hs_profile_clear(&prof);

    /* the written scenario: loads, includes the profile, predicts */
    snprintf(path, sizeof path, "%s/scenario.yaml", outdir);
    hs_error_clear(&err);
    CU_ASSERT_EQUAL(hs_scenario_load(path, &s, &err), HS_OK);
    if (s == NULL)
        fprintf(stderr, "\n%s\n", err.msg);
    else {
        HS_ASSERT_I64_EQ(s->types[0].profile.ar_bytes, m_bytes);
        HS_ASSERT_I64_EQ(s->n_devices, 2);
        /* the recommended replay mode (gloo with timed buckets: buckets
           with a hop wait, else last_bucket), issue 11 */
        CU_ASSERT(s->types[0].profile.n_buckets > 0);
        HS_ASSERT_I64_EQ(s->overlap, s->types[0].profile.t_hop_wait_ns > 0
                                         ? HS_OVERLAP_BUCKETS
                                         : HS_OVERLAP_LAST_BUCKET);
        hs_scenario_free(s);
    }
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", path, NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    if (r.status != 0)
        fprintf(stderr, "\npredict: %s\n", r.err);
    hs_run_free(&r);
}

/* --- bad input -------------------------------------------------------- */

static const char hs__bad_model[] =
    "import os, time\n"
    "import torch\n"
    "import torch.nn as nn\n"
    "SYNTHETIC = '16/4'\n"
    "class Once(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        ctx.used = False\n"
    "        return x.clone()\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        if ctx.used:\n"
    "            raise RuntimeError('backward twice on one graph')\n"
    "        ctx.used = True\n"
    "        return g\n"
    "class M(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.l = nn.Linear(16, 4)\n"
    "        self.calls = 0\n"
    "    def forward(self, x):\n"
    "        self.calls += 1\n"
    "        mode = os.environ.get('HS_TEST_MODE', '')\n"
    "        if os.environ.get('RANK') == '1' and self.calls == 3:\n"
    "            if mode == 'crash':\n"
    "                raise RuntimeError('injected failure')\n"
    "            if mode == 'hang':\n"
    "                time.sleep(3600)\n"
    "        if mode == 'once':\n"
    "            return Once.apply(self.l(x))\n"
    "        return self.l(x)\n"
    "def build_model():\n"
    "    return M()\n";

/* A scenario in dir with types good (no mode) and bad (mode), the model
   file model.py. */
static const char *hs__bad_scenario(const char *dir, const char *model,
                                    const char *mode, const char *timeout)
{
    static char path[4096];
    char text[4096], mpath[4096];

    snprintf(mpath, sizeof mpath, "%s/model.py", dir);
    hs_test_write(mpath, model);
    snprintf(text, sizeof text,
             "name: live-bad\n"
             "job: {model: {file: model.py, entry: build_model}, "
             "dataset: {samples: 1000}}\n"
             "device_types:\n"
             "  - {name: good, count: 2, batch: 8,"
             " env: {OMP_NUM_THREADS: \"1\"}}\n"
             "  - {name: bad, count: 2, batch: 8,"
             " env: {OMP_NUM_THREADS: \"1\", HS_TEST_MODE: \"%s\"}}\n"
             "devices:\n"
             "  - {name: g0, type: good, addr: 127.0.0.1}\n"
             "  - {name: g1, type: good, addr: 127.0.0.1}\n"
             "  - {name: b0, type: bad, addr: 127.0.0.1}\n"
             "  - {name: b1, type: bad, addr: 127.0.0.1}\n"
             "network: {default_bandwidth: 1Gbps}\n"
             "profiling: {iterations: 6, warmup: 2, timeout: %s, "
             "master_port: %d}\n",
             mode, timeout, 29600 + (int)(getpid() % 300));
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    hs_test_write(path, text);
    return path;
}

static void test_import_error(void)
{
    const char *dir, *scen;
    char out[4096];
    hs_run_t r;

    if (!hs__python())
        return;
    dir = hs_test_tmpdir("profile-import");
    scen = hs__bad_scenario(dir, "import torch.nn as nn\ndef build_model(:\n",
                            "", "60s");
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        "--python", hs__py, NULL), 0);
    printf("\n  %s", r.err);
    HS_ASSERT_I64_EQ(r.status, 4);
    HS_ASSERT_STR_CONTAINS(r.err, "type 'good'");
    HS_ASSERT_STR_CONTAINS(r.err, "device g");
    HS_ASSERT_STR_CONTAINS(r.err, "host 127.0.0.1");
    HS_ASSERT_STR_CONTAINS(r.err, "failed to import");
    HS_ASSERT_STR_CONTAINS(r.err, "step load model");
    HS_ASSERT_STR_CONTAINS(r.err, "SyntaxError");
    hs_run_free(&r);
}

static void test_crash_keeps_measured(void)
{
    const char *dir, *scen;
    char out[2048], path[4096];
    struct stat st;
    hs_run_t r;

    if (!hs__python())
        return;
    dir = hs_test_tmpdir("profile-crash");
    scen = hs__bad_scenario(dir, hs__bad_model, "crash", "60s");
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        "--python", hs__py, NULL), 0);
    printf("\n  %s", r.err);
    HS_ASSERT_I64_EQ(r.status, 4);
    HS_ASSERT_STR_CONTAINS(r.err, "type 'bad', rank 1 (device b1, host "
                                  "127.0.0.1)");
    HS_ASSERT_STR_CONTAINS(r.err, "step 2: training: RuntimeError: "
                                  "injected failure");
    HS_ASSERT_STR_CONTAINS(r.err, "profiles measured are kept");
    hs_run_free(&r);
    /* the type measured before the failure keeps its profile */
    snprintf(path, sizeof path, "%s/good.profile.yaml", out);
    CU_ASSERT(stat(path, &st) == 0);
    snprintf(path, sizeof path, "%s/bad.profile.yaml", out);
    CU_ASSERT(stat(path, &st) != 0);
    snprintf(path, sizeof path, "%s/scenario.yaml", out);
    CU_ASSERT(stat(path, &st) != 0);
}

static void test_hang(void)
{
    const char *dir, *scen;
    char out[4096];
    hs_run_t r;

    if (!hs__python())
        return;
    dir = hs_test_tmpdir("profile-hang");
    scen = hs__bad_scenario(dir, hs__bad_model, "hang", "20s");
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        "--type", "bad", "--python", hs__py,
                                        NULL), 0);
    printf("\n  %s", r.err);
    HS_ASSERT_I64_EQ(r.status, 4);
    /* the limit: 20 s until both ranks did a step, then it follows the
       work left (hs_prun_limit_ns), so a little more than 20 s */
    HS_ASSERT_STR_CONTAINS(r.err, "type 'bad', rank 1 (device b1, host "
                                  "127.0.0.1) did not finish within ");
    HS_ASSERT_STR_CONTAINS(r.err, "stopped in step 2 (forward)");
    hs_run_free(&r);
}

/* A model whose backward cannot run twice on one graph (mode once, type
   bad; type good is the plain model): the profile succeeds, type bad's
   hop-wait probe is skipped on both ranks (the sidecar says why, the
   profile's source notes it, no t_hop_wait), type good's runs. */
static void test_hop_probe_skipped(void)
{
    const char *dir, *scen;
    char out[2048], path[4096];
    hs_profile_t prof;
    hs_error_t err;
    hs_run_t r;

    if (!hs__python())
        return;
    dir = hs_test_tmpdir("profile-once");
    scen = hs__bad_scenario(dir, hs__bad_model, "once", "60s");
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        "--python", hs__py, NULL), 0);
    if (r.status != 0)
        fprintf(stderr, "\nprofile: exit %d\n%s\n", r.status, r.err);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "type bad: note: the hop-wait probe was "
                                  "skipped (rank 0: the backward cannot run "
                                  "twice on one graph (RuntimeError: "
                                  "backward twice on one graph))");
    hs_run_free(&r);
    snprintf(path, sizeof path, "%s/bad.profile.yaml", out);
    hs_error_clear(&err);
    memset(&prof, 0, sizeof prof);
    CU_ASSERT_EQUAL_FATAL(hs_profile_load(path, &prof, &err), HS_OK);
    HS_ASSERT_I64_EQ(prof.t_hop_wait_ns, 0);
    HS_ASSERT_STR_CONTAINS(prof.source, "hop-wait probe was skipped");
    hs_profile_clear(&prof);
    snprintf(path, sizeof path, "%s/good.profile.yaml", out);
    memset(&prof, 0, sizeof prof);
    CU_ASSERT_EQUAL_FATAL(hs_profile_load(path, &prof, &err), HS_OK);
    CU_ASSERT(prof.source != NULL &&
              strstr(prof.source, "hop-wait probe was skipped") == NULL);
    CU_ASSERT(prof.source != NULL && strstr(prof.source, "hop wait") != NULL);
    hs_profile_clear(&prof);
}

/* --hop-trials K reaches the harness: 3 trials per rank give 6 pooled
   samples of each kind in the sidecar and a wait in the profile; 0 runs
   no probe (the sidecar's hop_probe null) and the profile has no wait. */
static void test_hop_trials_option(void)
{
    static const char *const trials[2] = {"3", "0"};
    const char *dir, *scen;
    int k;

    if (!hs__python())
        return;
    dir = hs_test_tmpdir("profile-hop-trials");
    scen = hs__bad_scenario(dir, hs__bad_model, "once", "60s");
    for (k = 0; k < 2; k++) {
        char out[2048], path[4096];
        const char *p_h[] = {"hop_probe", NULL}, *p_i[] = {"idle_ns", NULL},
                   *p_b[] = {"beside_ns", NULL};
        hs_profile_t prof;
        hs_error_t err;
        hs_run_t r;
        yajl_val root, h;

        snprintf(out, sizeof out, "%s/out%d", dir, k);
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                            "--type", "good", "--hop-trials",
                                            trials[k], "--python", hs__py,
                                            NULL), 0);
        if (r.status != 0)
            fprintf(stderr, "\nprofile: exit %d\n%s\n", r.status, r.err);
        HS_ASSERT_I64_EQ(r.status, 0);
        hs_run_free(&r);
        snprintf(path, sizeof path, "%s/good/rank0.sidecar.json", out);
        root = hs__load_json(path);
        CU_ASSERT_PTR_NOT_NULL_FATAL(root);
        h = yajl_tree_get(root, p_h, yajl_t_any);
        CU_ASSERT_PTR_NOT_NULL_FATAL(h);
        if (k == 0) {
            yajl_val vi = yajl_tree_get(h, p_i, yajl_t_array);
            yajl_val vb = yajl_tree_get(h, p_b, yajl_t_array);
            CU_ASSERT(vi != NULL && YAJL_GET_ARRAY(vi)->len == 6);
            CU_ASSERT(vb != NULL && YAJL_GET_ARRAY(vb)->len == 6);
        } else {
            CU_ASSERT(YAJL_IS_NULL(h));
        }
        yajl_tree_free(root);
        snprintf(path, sizeof path, "%s/good.profile.yaml", out);
        hs_error_clear(&err);
        memset(&prof, 0, sizeof prof);
        CU_ASSERT_EQUAL_FATAL(hs_profile_load(path, &prof, &err), HS_OK);
        CU_ASSERT(prof.source != NULL &&
                  (strstr(prof.source, "6 trials") != NULL) == (k == 0));
        if (k == 1)
            HS_ASSERT_I64_EQ(prof.t_hop_wait_ns, 0);
        hs_profile_clear(&prof);
    }
    /* out of range: a usage error */
    {
        hs_run_t r;
        char out[2048];
        snprintf(out, sizeof out, "%s/out-bad", dir);
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                            "--hop-trials", "1001", NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 2);
        HS_ASSERT_STR_CONTAINS(r.err, "--hop-trials");
        hs_run_free(&r);
    }
}

/* A scenario in dir with a type "solo" of a single device s0 and a type
   "duo" of two (the tiny model, no failure mode), and `extra` appended to
   its profiling map. */
static const char *hs__solo_scenario(const char *dir, const char *extra)
{
    static char path[4096];
    char text[4096], mpath[4096];

    snprintf(mpath, sizeof mpath, "%s/model.py", dir);
    hs_test_write(mpath, hs__bad_model);
    snprintf(text, sizeof text,
             "name: live-solo\n"
             "job: {model: {file: model.py, entry: build_model}, "
             "dataset: {samples: 1000}}\n"
             "device_types:\n"
             "  - {name: solo, count: 1, batch: 8,"
             " env: {OMP_NUM_THREADS: \"1\"}}\n"
             "  - {name: duo, count: 2, batch: 8,"
             " env: {OMP_NUM_THREADS: \"1\"}}\n"
             "devices:\n"
             "  - {name: s0, type: solo, addr: 127.0.0.1}\n"
             "  - {name: d0, type: duo, addr: 127.0.0.1}\n"
             "  - {name: d1, type: duo, addr: 127.0.0.1}\n"
             "network: {default_bandwidth: 1Gbps}\n"
             "profiling: {iterations: 6, warmup: 2, timeout: 60s, "
             "master_port: %d%s}\n",
             29600 + (int)(getpid() % 300), extra);
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    hs_test_write(path, text);
    return path;
}

/* Issue 11: a type with one device is never profiled with both ranks on
   it: refused (exit 2, naming the type and both ways out) before anything
   runs; --alone runs one rank (D = M for n = 2, said in the source); a
   spare device of the type is the second rank's. */
static void test_single_device(void)
{
    const char *dir, *scen;
    char out[2048], path[4096];
    struct stat st;
    hs_profile_t prof;
    hs_error_t err;
    hs_run_t r;

    dir = hs_test_tmpdir("profile-solo");
    scen = hs__solo_scenario(dir, "");
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        "--python", "/nonexistent/python3",
                                        NULL), 0);
    printf("\n  %s", r.err);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "device type 'solo' has a single device "
                                  "(s0)");
    HS_ASSERT_STR_CONTAINS(r.err, "profiling.spare_devices");
    HS_ASSERT_STR_CONTAINS(r.err, "--alone solo");
    hs_run_free(&r);
    snprintf(path, sizeof path, "%s/solo", out);
    CU_ASSERT(stat(path, &st) != 0);        /* nothing was started */
    /* a spare of another type does not count; an unknown type is an
       error of the scenario */
    scen = hs__solo_scenario(dir, ", spare_devices: [{name: x0, type: "
                                  "nosuch, addr: 127.0.0.1}]");
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "no device type 'nosuch'");
    hs_run_free(&r);
    if (!hs__python())
        return;
    /* alone */
    scen = hs__solo_scenario(dir, "");
    pc_profile(&r, "profile --alone", scen, out, "--alone", "solo", "--type",
               "solo", NULL);
    HS_ASSERT_STR_CONTAINS(r.out, "profiling type solo ALONE: one rank on "
                                  "s0");
    HS_ASSERT_STR_CONTAINS(r.out, "note: profiled alone");
    hs_run_free(&r);
    snprintf(path, sizeof path, "%s/solo.profile.yaml", out);
    hs_error_clear(&err);
    memset(&prof, 0, sizeof prof);
    CU_ASSERT_EQUAL_FATAL(hs_profile_load(path, &prof, &err), HS_OK);
    HS_ASSERT_I64_EQ(prof.subsys_n, 2);
    HS_ASSERT_I64_EQ(prof.ar_bytes, (16 * 4 + 4) * 4);  /* D = M */
    HS_ASSERT_STR_CONTAINS(prof.source, "device s0 ALONE");
    HS_ASSERT_STR_CONTAINS(prof.source, "not measured");
    HS_ASSERT_STR_CONTAINS(prof.source, "without the profiler");
    CU_ASSERT(prof.comm_ns_per_byte == 0);
    CU_ASSERT(prof.t_hop_wait_ns == 0);     /* no peer: no probe */
    hs_profile_clear(&prof);
    /* a spare device of the type */
    scen = hs__solo_scenario(dir, ", spare_devices: [{name: x0, type: solo,"
                                  " addr: 127.0.0.1}]");
    snprintf(out, sizeof out, "%s/out2", dir);
    pc_profile(&r, "profile (spare)", scen, out, "--type", "solo", NULL);
    HS_ASSERT_STR_CONTAINS(r.out, "ranks on s0 (127.0.0.1) and x0 "
                                  "(127.0.0.1) (a spare device)");
    hs_run_free(&r);
    snprintf(path, sizeof path, "%s/solo.profile.yaml", out);
    memset(&prof, 0, sizeof prof);
    CU_ASSERT_EQUAL_FATAL(hs_profile_load(path, &prof, &err), HS_OK);
    HS_ASSERT_STR_CONTAINS(prof.source, "devices s0, x0 (a spare)");
    HS_ASSERT_I64_EQ(prof.ar_bytes, (16 * 4 + 4) * 4);
    hs_profile_clear(&prof);
}

static void test_python_missing(void)
{
    char scen[4096], out[4096];
    hs_run_t r;

    snprintf(scen, sizeof scen, "%s/scenarios/live-mlp.yaml", HS_TEST_SRC);
    snprintf(out, sizeof out, "%s/out", hs_test_tmpdir("profile-nopy"));
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        "--python",
                                        "/nonexistent/hetsim-python3",
                                        NULL), 0);
    printf("\n  %s", r.err);
    HS_ASSERT_I64_EQ(r.status, 4);
    HS_ASSERT_STR_CONTAINS(r.err, "hetsim-python3");
    HS_ASSERT_STR_CONTAINS(r.err, "rank 0 (device cpu-0");
    hs_run_free(&r);
}

static void test_rewrite_yaml(void)
{
    static const char in[] =
        "name: x\n"
        "job: {model: {file: m.py}, dataset: {samples: 10}}\n"
        "device_types:\n"
        "  - name: a\n"
        "    batch: 4\n"
        "    profile: {subsystem_size: 2, t_fwd: 1ms, t_b1: 1ms,\n"
        "              allreduce_bytes: 1MB, buckets: [{bytes: 1MB, "
        "ready: 1ms}]}\n"
        "  - {name: b, batch: 4}\n"
        "network: {links_csv: /abs/links.csv}\n"
        "profiling: {harness: h.py}\n";
    char *paths[] = {"a.profile.yaml", "b.profile.yaml"};
    const char *types[] = {"a", "b"};
    char *out = NULL;
    hs_error_t err;

    hs_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(hs_prun_rewrite_yaml(in, strlen(in), "in.yaml",
                                               types, paths, 2, "/base",
                                               &out, &err), HS_OK);
    HS_ASSERT_STR_CONTAINS(out, "profile: a.profile.yaml");
    HS_ASSERT_STR_CONTAINS(out, "profile: b.profile.yaml");
    HS_ASSERT_STR_CONTAINS(out, "file: /base/m.py");
    HS_ASSERT_STR_CONTAINS(out, "links_csv: /abs/links.csv");
    HS_ASSERT_STR_CONTAINS(out, "harness: /base/h.py");
    CU_ASSERT(strstr(out, "subsystem_size") == NULL);
    CU_ASSERT(strstr(out, "ready") == NULL);
    free(out);
    /* without new paths: a type without a profile stays without one, the
       rest untouched */
    CU_ASSERT_EQUAL_FATAL(hs_prun_rewrite_yaml(in, strlen(in), "in.yaml",
                                               types, NULL, 0, NULL, &out,
                                               &err),
                          HS_OK);
    CU_ASSERT(strstr(out, "placeholder") == NULL);
    CU_ASSERT(strstr(strstr(out, "profile:") + 1, "profile:") == NULL);
    HS_ASSERT_STR_CONTAINS(out, "file: m.py");
    HS_ASSERT_STR_CONTAINS(out, "ready: 1ms");
    free(out);
}

/* The recommended replay mode (issue 11), each branch of the rule on a
   scenario typed in: gloo everywhere with timed buckets and hop waits ->
   buckets; the same with a type without a hop wait -> last_bucket;
   a gloo type without buckets -> none; an nccl type, timed buckets ->
   buckets; an nccl type, a type without buckets -> patent. */
static hs_overlap_t rule_on2(const char *a_extra, const char *backend_b,
                             const char *buckets_b, char *why, size_t len);

static hs_overlap_t rule_on(const char *backend_b, const char *buckets_b,
                            char *why, size_t len)
{
    return rule_on2("", backend_b, buckets_b, why, len);
}

/* The same with a hop wait in type a too. */
static hs_overlap_t rule_on_wait(const char *backend_b,
                                 const char *buckets_b, char *why, size_t len)
{
    return rule_on2(",\n              t_hop_wait: 7ms", backend_b, buckets_b,
                    why, len);
}

static hs_overlap_t rule_on2(const char *a_extra, const char *backend_b,
                             const char *buckets_b, char *why, size_t len)
{
    char text[1024];
    hs_scenario_t *s = NULL;
    hs_error_t err;
    hs_overlap_t o = HS_OVERLAP_PATENT;

    snprintf(text, sizeof text,
             "name: x\n"
             "job: {model: m, dataset: {samples: 100}}\n"
             "device_types:\n"
             "  - name: a\n"
             "    count: 2\n"
             "    batch: 4\n"
             "    backend: gloo\n"
             "    profile: {subsystem_size: 2, t_fwd: 1ms, t_b1: 1ms,\n"
             "              t_bwd: 2ms, allreduce_bytes: 1MB,\n"
             "              buckets: [{bytes: 1MB, ready: 1ms}]%s}\n"
             "  - name: b\n"
             "    count: 2\n"
             "    batch: 4\n"
             "    backend: %s\n"
             "    profile: {subsystem_size: 2, t_fwd: 1ms, t_b1: 1ms,\n"
             "              t_bwd: 2ms, allreduce_bytes: 1MB%s}\n"
             "network: {default_bandwidth: 1GB/s}\n",
             a_extra, backend_b, buckets_b);
    hs_error_clear(&err);
    CU_ASSERT_EQUAL(hs_scenario_load_text(text, strlen(text), "r.yaml", NULL,
                                          &s, &err), HS_OK);
    if (s == NULL) {
        fprintf(stderr, "\n%s\n", err.msg);
        return (hs_overlap_t)-1;
    }
    o = hs_prun_recommend_overlap(s, NULL, why, len);
    hs_scenario_free(s);
    return o;
}

static void test_recommend_rule(void)
{
    const char *bk = ",\n              buckets: [{bytes: 1MB, ready: 1ms}]";
    char why[512];

    const char *bkw = ",\n              buckets: [{bytes: 1MB, ready: 1ms}],"
                      "\n              t_hop_wait: 5ms";

    /* a hop wait in type b only: the earlier rule, naming type a */
    HS_ASSERT_I64_EQ(rule_on("gloo", bk, why, sizeof why),
                     HS_OVERLAP_LAST_BUCKET);
    HS_ASSERT_STR_CONTAINS(why, "last_bucket: every type is gloo");
    HS_ASSERT_I64_EQ(rule_on("gloo", bkw, why, sizeof why),
                     HS_OVERLAP_LAST_BUCKET);
    HS_ASSERT_STR_CONTAINS(why, "type a has no hop wait");
    HS_ASSERT_I64_EQ(rule_on_wait("gloo", bkw, why, sizeof why),
                     HS_OVERLAP_BUCKETS);
    HS_ASSERT_STR_CONTAINS(why, "buckets: every type is gloo");
    HS_ASSERT_STR_CONTAINS(why, "measured hop wait");
    HS_ASSERT_I64_EQ(rule_on("gloo", "", why, sizeof why), HS_OVERLAP_NONE);
    HS_ASSERT_STR_CONTAINS(why, "type b has no timed gradient buckets");
    HS_ASSERT_I64_EQ(rule_on("nccl", bk, why, sizeof why),
                     HS_OVERLAP_BUCKETS);
    HS_ASSERT_I64_EQ(rule_on("nccl", "", why, sizeof why),
                     HS_OVERLAP_PATENT);
    HS_ASSERT_STR_CONTAINS(why, "type b has no timed gradient buckets");
}

/* Issue 13: --batches profiles the type at each listed batch size and its
   own (added when missing), one profile with batch_points in order; the
   cost in device-seconds is reported; the scenario written loads and
   advise batch interpolates over the points.  A small MLP (256-512-16)
   at batch 4 and 64 on one thread per rank: each point's ranks ran at
   their batch (their sidecars say so); the forward at 64 does 16x the
   arithmetic, its time is printed, not compared (a speed on a shared
   machine). */
static void test_batches(void)
{
    static const char model[] =
        "import torch.nn as nn\n"
        "SYNTHETIC = '256/16'\n"
        "def build_model():\n"
        "    return nn.Sequential(nn.Linear(256, 512), nn.ReLU(),\n"
        "                         nn.Linear(512, 16))\n";
    const char *dir;
    char text[2048], path[4096], scen[2048], out[2048];
    hs_profile_t prof;
    hs_scenario_t *s = NULL;
    hs_error_t err;
    hs_run_t r;
    struct stat st;

    dir = hs_test_tmpdir("profile-batches");
    snprintf(scen, sizeof scen, "%s/scenario.yaml", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(path, sizeof path, "%s/model.py", dir);
    hs_test_write(path, model);
    snprintf(text, sizeof text,
             "name: live-batches\n"
             "job: {model: {file: model.py, entry: build_model}, "
             "dataset: {samples: 4000}}\n"
             "device_types:\n"
             "  - {name: cpu, count: 2, batch: 4,"
             " env: {OMP_NUM_THREADS: \"1\"}}\n"
             "devices:\n"
             "  - {name: c0, type: cpu, addr: 127.0.0.1}\n"
             "  - {name: c1, type: cpu, addr: 127.0.0.1}\n"
             "network: {default_bandwidth: 1Gbps}\n"
             "profiling: {iterations: 6, warmup: 2, timeout: 120s, "
             "master_port: %d}\n",
             30000 + (int)(getpid() % 300));
    hs_test_write(scen, text);
    /* bad lists: usage errors before anything runs */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        "--batches", "8,0", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "--batches");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        "--batches", "8,,16", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);
    if (!hs__python())
        return;
    pc_profile(&r, "profile --batches", scen, out, "--batches", "64", NULL);
    HS_ASSERT_STR_CONTAINS(r.out, "profiling type cpu at batch 64 (batch "
                                  "point 2 of 2)");
    HS_ASSERT_STR_CONTAINS(r.out, "type cpu: 2 batch points (batch 4, 64), "
                                  "profiling cost ");
    HS_ASSERT_STR_CONTAINS(r.out, "device-s over 2 batch points");
    hs_run_free(&r);
    snprintf(path, sizeof path, "%s/cpu/batch64/rank1.json", out);
    CU_ASSERT(stat(path, &st) == 0);
    /* each point's ranks trained at its batch */
    {
        static const char *const sub[2] = {"", "/batch64"};
        static const long long want[2] = {4, 64};
        const char *pb[] = {"batch", NULL};
        int k;

        for (k = 0; k < 2; k++) {
            yajl_val v;

            snprintf(path, sizeof path, "%s/cpu%s/rank1.sidecar.json", out,
                     sub[k]);
            v = hs__load_json(path);
            CU_ASSERT_PTR_NOT_NULL_FATAL(v);
            HS_ASSERT_I64_EQ(yajl_tree_get(v, pb, yajl_t_number)
                                 ? YAJL_GET_INTEGER(yajl_tree_get(
                                       v, pb, yajl_t_number))
                                 : -1,
                             want[k]);
            yajl_tree_free(v);
        }
    }
    /* both points, in order, plausible and not the same */
    snprintf(path, sizeof path, "%s/cpu.profile.yaml", out);
    hs_error_clear(&err);
    memset(&prof, 0, sizeof prof);
    CU_ASSERT_EQUAL_FATAL(hs_profile_load(path, &prof, &err), HS_OK);
    HS_ASSERT_I64_EQ(prof.n_points, 2);
    if (prof.n_points == 2) {
        const hs_batch_point_t *a = &prof.points[0], *b = &prof.points[1];

        printf("\n  batch %llu: t_fwd %.3f ms t_b1 %.3f ms t_bwd %.3f ms; "
               "batch %llu: t_fwd %.3f ms t_b1 %.3f ms t_bwd %.3f ms",
               (unsigned long long)a->batch, a->t_fwd.mean_ns / 1e6,
               a->t_b1.mean_ns / 1e6, a->t_bwd.mean_ns / 1e6,
               (unsigned long long)b->batch, b->t_fwd.mean_ns / 1e6,
               b->t_b1.mean_ns / 1e6, b->t_bwd.mean_ns / 1e6);
        HS_ASSERT_I64_EQ(a->batch, 4);
        HS_ASSERT_I64_EQ(b->batch, 64);
        /* the profile's own batch is the first point, the same means */
        HS_ASSERT_I64_EQ(a->t_fwd.mean_ns, prof.t_fwd.mean_ns);
        HS_ASSERT_I64_EQ(a->t_b1.mean_ns, prof.t_b1.mean_ns);
        CU_ASSERT(a->t_fwd.known && a->t_fwd.mean_ns > 0);
        CU_ASSERT(b->t_fwd.known && b->t_fwd.mean_ns > 0);
        CU_ASSERT(a->t_b1.mean_ns > 0 && b->t_b1.mean_ns > 0);
        CU_ASSERT(a->t_fwd.mean_ns < 1000000000LL
                  && b->t_fwd.mean_ns < 1000000000LL);
    }
    hs_profile_clear(&prof);
    /* the scenario written loads with the points; advise interpolates */
    snprintf(path, sizeof path, "%s/scenario.yaml", out);
    CU_ASSERT_EQUAL(hs_scenario_load(path, &s, &err), HS_OK);
    if (s != NULL) {
        HS_ASSERT_I64_EQ(s->types[0].profile.n_points, 2);
        hs_scenario_free(s);
    }
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "advise", "batch", path,
                                        "--global-batch", "40",
                                        "--no-replay", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "scaling: cpu: interpolated over 2 points "
                                  "(batch 4..64)");
    hs_run_free(&r);
}

static int hs__register(void)
{
    CU_pSuite u = CU_add_suite("profile-yaml", NULL, NULL);
    CU_pSuite p = CU_add_suite("profile-live", NULL, NULL);
    CU_pSuite b = CU_add_suite("profile-bad-input", NULL, NULL);

    if (u == NULL || p == NULL || b == NULL)
        return -1;
    CU_add_test(u, "scenario rewrite", test_rewrite_yaml);
    CU_add_test(u, "the recommended replay mode", test_recommend_rule);
    CU_add_test(u, "the harness reads the CPU quota of its cgroups",
                test_cpu_quota_reader);
    CU_add_test(p, "2-rank gloo MLP: traces, profile, scenario",
                test_profile_mlp);
    CU_add_test(p, "--batches: two batch sizes, batch_points",
                test_batches);
    CU_add_test(b, "model fails to import", test_import_error);
    CU_add_test(b, "crashing rank, measured type kept",
                test_crash_keeps_measured);
    CU_add_test(b, "hung rank times out", test_hang);
    CU_add_test(b, "--hop-trials reaches the harness",
                test_hop_trials_option);
    CU_add_test(b, "backward not repeatable: hop probe skipped",
                test_hop_probe_skipped);
    CU_add_test(b, "python missing", test_python_missing);
    CU_add_test(b, "single-device type: refused, alone, spare",
                test_single_device);
    return 0;
}

HS_TEST_MAIN(hs__register)
