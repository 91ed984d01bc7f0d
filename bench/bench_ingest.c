/*
 * bench_ingest.c -- throughput and peak memory of hetsim's trace
 * ingestion (traces/hs_ingest.c and the reader it drives, hs_kineto.c)
 * beside Python's json.load of the same file, and where the time goes.
 *
 * usage: bench_ingest [--reps N] [--python-reps K] [--warmup W] [--no-python]
 *                     --trace FILE...
 *        bench_ingest [--reps N] [SMALL_MB [LARGE_MB]]  (synthetic: 120, 600)
 *        bench_ingest [SMALL_MB [LARGE_MB]] --write DIR   (the traces only)
 *        bench_ingest --help
 * An unknown option, a size that is not a whole number of MB from 1 to
 * 100000 or a count out of range prints the usage and exits 2; --help
 * prints it and exits 0.
 *
 * --trace: the given traces (plain or gzip), e.g. a real one repeated to
 * 100 MB - 1 GB by bench/repeat_trace.py (warm-up W, default 1).  Else,
 * for each size, in a fresh temporary directory (removed after),
 * a synthetic Kineto-form GPU trace written with yajl's generator: per step a
 * ProfilerStep window, a DataLoader call, forward operators with
 * cudaLaunchKernel calls, a backward on a second thread (evaluate_function
 * operators, record_param_comms all-reduce buckets), an optimizer step,
 * and, after all CPU events as Kineto writes them, the GPU kernels with
 * their correlation ids (warm-up 20).
 *
 * Each file is measured N times (default 3); each repetition runs, each in
 * a child process so that its peak RSS (ru_maxrss from wait4) and CPU time
 * (user + system, from wait4) are its own, one after the other:
 *   read     the JSON text only (hs_jscan_read_only: read(), or inflate);
 *   yajl     + yajl's tokenizer with no callbacks (hs_jscan_file);
 *   decode   + hs_kev's callbacks: every event decoded (a no-op handler;
 *            shapes only where the reader wants them,
 *            hs_kineto_wants_shapes);
 *   hetsim   the whole ingestion: hs_ingest_add_file + hs_ingest_profile
 *            (the one read, the records, their replays, the profile),
 *            on one core (hs_ingest_opts_t.threads = 1);
 *   hetsim2  the same with a second thread reading and inflating ahead
 *            of the parse (threads = 2; two cores);
 *   python   /usr/bin/python3's json.load of the same file (gzip.open for
 *            a .gz), the reference, in the first K repetitions
 *            (--python-reps K, default 1: it takes minutes and GBs on a
 *            1 GB trace).
 * It prints per stage the medians of wall time, CPU time and MB/s of JSON
 * (the uncompressed text's bytes) by both, peak RSS, and the time each
 * layer adds (inflate, tokenizing, callbacks, the work per event), the
 * ratio hetsim/python, and the load average before and after (the machine
 * may be shared: wall times then stretch; CPU times much less).  All of it
 * on one core except hetsim2: for it, one- and two-core figures (MB/s by
 * wall and CPU time, the ratio to json.load, peak RSS) side by side.  A
 * benchmark, not a test: it asserts nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <yajl/yajl_gen.h>

#include "hs_ingest.h"
#include "hs_jscan.h"
#include "hs_kev.h"
#include "hs_kineto.h"

static void hs__print(void *ctx, const char *s, size_t n)
{
    fwrite(s, 1, n, ctx);
}

#define S(g, x) yajl_gen_string((g), (const unsigned char *)(x), strlen(x))

static void num_us(yajl_gen g, int64_t ns)
{
    char b[40];
    int n = snprintf(b, sizeof b, "%" PRId64 ".%03d", ns / 1000,
                     (int)(ns % 1000));
    yajl_gen_number(g, b, (size_t)n);
}

static void ev(yajl_gen g, const char *cat, const char *name, int pid,
               int tid, int64_t ts, int64_t dur, long long ext, long long corr)
{
    yajl_gen_map_open(g);
    S(g, "ph"); S(g, "X");
    S(g, "cat"); S(g, cat);
    S(g, "name"); S(g, name);
    S(g, "pid"); yajl_gen_integer(g, pid);
    S(g, "tid"); yajl_gen_integer(g, tid);
    S(g, "ts"); num_us(g, ts);
    S(g, "dur"); num_us(g, dur);
    S(g, "args");
    yajl_gen_map_open(g);
    S(g, "External id"); yajl_gen_integer(g, ext);
    if (corr > 0) {
        S(g, "correlation"); yajl_gen_integer(g, corr);
    }
    S(g, "Input Dims");
    yajl_gen_array_open(g);
    yajl_gen_array_open(g);
    yajl_gen_integer(g, 64);
    yajl_gen_integer(g, 256);
    yajl_gen_array_close(g);
    yajl_gen_array_open(g);
    yajl_gen_array_close(g);
    yajl_gen_array_close(g);
    S(g, "Input type");
    yajl_gen_array_open(g);
    S(g, "float");
    S(g, "");
    yajl_gen_array_close(g);
    yajl_gen_map_close(g);
    yajl_gen_map_close(g);
}

enum { OPS = 150, BUCKETS = 4 };
#define STEP_NS 50000000LL
#define MAIN 4242
#define BWD 4243

/* One step's CPU events of thread `which` (0 main, 1 backward), or its
   kernels (2). */
static void step_events(yajl_gen g, long k, int which, long long *ext)
{
    int64_t s = 1000000000000LL + k * STEP_NS;
    int64_t t;
    int i;
    long long c0 = 100000 + k * 10 * OPS;
    char name[64];

    if (which == 0) {
        snprintf(name, sizeof name, "ProfilerStep#%ld", k);
        ev(g, "user_annotation", name, MAIN, MAIN, s, STEP_NS - 1000, ++*ext,
           0);
        ev(g, "user_annotation",
           "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
           MAIN, MAIN, s + 1000, 2000000, ++*ext, 0);
        t = s + 3000000;
        for (i = 0; i < OPS; i++, t += 100000) {
            ev(g, "cpu_op", "aten::linear", MAIN, MAIN, t, 90000, ++*ext, 0);
            ev(g, "cpu_op", "aten::addmm", MAIN, MAIN, t + 1000, 80000,
               ++*ext, 0);
            ev(g, "cuda_runtime", "cudaLaunchKernel", MAIN, MAIN, t + 2000,
               5000, *ext, c0 + i);
        }
        ev(g, "user_annotation", "Optimizer.step#SGD.step", MAIN, MAIN,
           s + 45000000, 3000000, ++*ext, 0);
        ev(g, "cuda_runtime", "cudaLaunchKernel", MAIN, MAIN, s + 45001000,
           5000, *ext, c0 + 9 * OPS);
    } else if (which == 1) {
        t = s + 20000000;
        for (i = 0; i < OPS; i++, t += 150000) {
            ev(g, "cpu_op",
               "autograd::engine::evaluate_function: AddmmBackward0", MAIN,
               BWD, t, 140000, ++*ext, 0);
            ev(g, "cpu_op", "aten::mm", MAIN, BWD, t + 1000, 100000, ++*ext,
               0);
            ev(g, "cuda_runtime", "cudaLaunchKernel", MAIN, BWD, t + 2000,
               5000, *ext, c0 + OPS + i);
            if (i % (OPS / BUCKETS) == OPS / BUCKETS - 1) {
                yajl_gen_map_open(g);
                S(g, "ph"); S(g, "X");
                S(g, "cat"); S(g, "cpu_op");
                S(g, "name"); S(g, "record_param_comms");
                S(g, "pid"); yajl_gen_integer(g, MAIN);
                S(g, "tid"); yajl_gen_integer(g, BWD);
                S(g, "ts"); num_us(g, t + 120000);
                S(g, "dur"); num_us(g, 10000);
                S(g, "args");
                yajl_gen_map_open(g);
                S(g, "Collective name"); S(g, "allreduce");
                S(g, "In msg nelems"); yajl_gen_integer(g, 1000000);
                S(g, "dtype"); S(g, "Float");
                yajl_gen_map_close(g);
                yajl_gen_map_close(g);
            }
        }
    } else {
        t = s + 3100000;
        for (i = 0; i < OPS; i++, t += 100000)
            ev(g, "kernel", "void gemm_kernel<float>(float const*, float*)",
               0, 7, t, 40000, 0, c0 + i);
        t = s + 20100000;
        for (i = 0; i < OPS; i++, t += 150000)
            ev(g, "kernel", "void gemm_kernel<float>(float const*, float*)",
               0, 7, t, 60000, 0, c0 + OPS + i);
        ev(g, "kernel", "void multi_tensor_apply_kernel<SGD>()", 0, 7,
           s + 45100000, 500000, 0, c0 + 9 * OPS);
    }
}

/* Writes a trace of about `mb` MB; returns its size in bytes. */
static long long gen_trace(const char *path, long mb)
{
    FILE *f = fopen(path, "w");
    yajl_gen g;
    long k, steps;
    long long ext = 0;
    struct stat st;
    long probe;
    int which;

    if (f == NULL)
        return -1;
    g = yajl_gen_alloc(NULL);
    yajl_gen_config(g, yajl_gen_print_callback, hs__print, f);
    /* about 250 KB per step */
    steps = mb * 1000000L / 250000L;
    if (steps < 30)
        steps = 30;
    yajl_gen_map_open(g);
    S(g, "schemaVersion"); yajl_gen_integer(g, 1);
    S(g, "distributedInfo");
    yajl_gen_map_open(g);
    S(g, "backend"); S(g, "nccl");
    S(g, "rank"); yajl_gen_integer(g, 0);
    S(g, "world_size"); yajl_gen_integer(g, 2);
    yajl_gen_map_close(g);
    S(g, "traceEvents");
    yajl_gen_array_open(g);
    for (which = 0; which < 3; which++)
        for (k = 0; k < steps; k++)
            step_events(g, k, which, &ext);
    yajl_gen_array_close(g);
    yajl_gen_map_close(g);
    yajl_gen_free(g);
    probe = fclose(f);
    if (probe != 0 || stat(path, &st) != 0)
        return -1;
    return (long long)st.st_size;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One stage's run: wall and CPU seconds, peak RSS in kB, exit status. */
typedef struct run_s {
    double wall, cpu;
    long rss_kb;
    int status;
} run_t;

/* Runs fn(arg) in a child; its wall time, CPU time (user + system) and
   peak RSS. */
static run_t in_child(int (*fn)(const char *), const char *arg)
{
    double t0 = now_s();
    pid_t pid;
    struct rusage ru;
    int st = 0;
    run_t r;

    fflush(stdout);
    pid = fork();
    if (pid == 0)
        _exit(fn(arg));
    wait4(pid, &st, 0, &ru);
    r.wall = now_s() - t0;
    r.cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
            (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    r.rss_kb = ru.ru_maxrss;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
}

static unsigned g_warmup = 20;

static int run_read(const char *path)
{
    uint64_t n;
    hs_error_t err;

    if (hs_jscan_read_only(path, &n, &err) != HS_OK) {
        fprintf(stderr, "bench_ingest: %s\n", err.msg);
        return 1;
    }
    return 0;
}

static int run_yajl(const char *path)
{
    static const yajl_callbacks none = {NULL, NULL, NULL, NULL, NULL, NULL,
                                        NULL, NULL, NULL, NULL, NULL};
    hs_jscan_t js;
    hs_error_t err;

    if (hs_jscan_file(&js, path, &none, NULL, &err) != HS_OK) {
        fprintf(stderr, "bench_ingest: %s\n", err.msg);
        return 1;
    }
    return 0;
}

static hs_err_t noop_event(hs_kev_scan_t *sc, const hs_kev_t *e)
{
    (void)sc;
    (void)e;
    return HS_OK;
}

static int run_decode(const char *path)
{
    hs_kev_scan_t *sc = malloc(sizeof *sc);
    hs_error_t err;

    /* the shapes of the events the reader decodes them for, as it does */
    if (sc == NULL ||
        hs_kev_scan_file_sel(path, noop_event, hs_kineto_wants_shapes, NULL,
                             sc, NULL, &err) != HS_OK) {
        fprintf(stderr, "bench_ingest: %s\n", sc ? err.msg : "no memory");
        return 1;
    }
    free(sc);
    return 0;
}

static int g_verbose = 1;

static unsigned g_threads = 1;   /* run_hs's; run_hs2 sets 2 */

static int run_hs(const char *path)
{
    hs_ingest_opts_t o;
    hs_ingest_t *ing;
    hs_error_t err;
    hs_profile_t p;

    hs_ingest_opts_default(&o);
    o.warmup = g_warmup;
    o.threads = g_threads;
    ing = hs_ingest_new(&o);
    if (hs_ingest_add_file(ing, path, &err) != HS_OK ||
        hs_ingest_profile(ing, &p, &err) != HS_OK) {
        fprintf(stderr, "bench_ingest: %s\n", err.msg);
        return 1;
    }
    if (g_verbose)
        printf("    hetsim profile: t_fwd %.3f ms, t_bwd %.3f ms, "
               "D %" PRIu64 " B, %u steps kept, %u pass(es), %zu fwd_ops; "
               "%" PRIu64 " events\n",
               (double)p.t_fwd.mean_ns / 1e6, (double)p.t_bwd.mean_ns / 1e6,
               p.ar_bytes, p.steps_kept, hs_ingest_file(ing, 0)->passes,
               p.n_fwd_ops, hs_ingest_file(ing, 0)->n_events);
    fflush(stdout);
    hs_profile_clear(&p);
    hs_ingest_free(ing);
    return 0;
}

/* run_hs with a second thread reading and inflating ahead of the parse
   (hs_ingest_opts_t.threads = 2); in a child, so g_threads is its own. */
static int run_hs2(const char *path)
{
    g_threads = 2;
    g_verbose = 0;
    return run_hs(path);
}

static int run_py(const char *path)
{
    execl("/usr/bin/python3", "python3", "-c",
          "import gzip,json,sys\n"
          "p = sys.argv[1]\n"
          "with (gzip.open(p, 'rt') if p.endswith('.gz') else open(p)) as f:"
          " d = json.load(f)\n",
          path, (char *)NULL);
    return 127;
}

static void loadavg(char *buf, size_t cap)
{
    FILE *f = fopen("/proc/loadavg", "r");

    buf[0] = '\0';
    if (f != NULL) {
        if (fgets(buf, (int)cap, f) == NULL)
            buf[0] = '\0';
        fclose(f);
    }
    buf[strcspn(buf, "\n")] = '\0';
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { ST_READ = 0, ST_YAJL, ST_DECODE, ST_HS, ST_HS2, ST_PY, ST_N };
static const char *const st_name[ST_N] = {"read", "yajl", "decode",
                                          "hetsim", "hetsim2", "python"};
#define MAXREP 15

/* Measures one trace: reps x the five stages; prints the medians. */
static int g_py_reps = 1;

static int bench_file(const char *path, int reps, int python)
{
    double wall[ST_N][MAXREP], cpu[ST_N][MAXREP];
    long rss[ST_N];
    int (*fn[ST_N])(const char *) = {run_read, run_yajl, run_decode, run_hs,
                                      run_hs2, run_py};
    uint64_t json = 0;
    hs_error_t err;
    struct stat st;
    double mw[ST_N], mc[ST_N], mb;
    char la0[128], la1[128];
    int i, k, failed = 0;

    if (stat(path, &st) != 0 || hs_jscan_read_only(path, &json, &err) !=
                                    HS_OK) {
        fprintf(stderr, "bench_ingest: cannot read %s\n", path);
        return 1;
    }
    mb = (double)json / 1e6;
    loadavg(la0, sizeof la0);
    printf("\n%s: %.1f MB of JSON (%.1f MB on disk), %d repetitions, load "
           "average before: %s\n",
           path, mb, (double)st.st_size / 1e6, reps, la0);
    memset(rss, 0, sizeof rss);
    for (k = 0; k < reps; k++) {
        for (i = 0; i < ST_N; i++) {
            run_t r;
            if (i == ST_PY && (!python || k >= g_py_reps))
                continue;
            g_verbose = k == 0;
            r = in_child(fn[i], path);
            wall[i][k] = r.wall;
            cpu[i][k] = r.cpu;
            if (r.rss_kb > rss[i])
                rss[i] = r.rss_kb;
            if (r.status != 0) {
                printf("  %s FAILED (status %d)\n", st_name[i], r.status);
                failed = 1;
            }
        }
    }
    loadavg(la1, sizeof la1);
    printf("  %-7s %9s %9s %11s %11s %10s\n", "stage", "wall_s", "cpu_s",
           "MB/s(wall)", "MB/s(cpu)", "peak_MB");
    for (i = 0; i < ST_N; i++) {
        if (i == ST_PY && !python)
            continue;
        {
            int nr = i == ST_PY && g_py_reps < reps ? g_py_reps : reps;
            mw[i] = median(wall[i], nr);
            mc[i] = median(cpu[i], nr);
        }
        printf("  %-7s %9.3f %9.3f %11.1f %11.1f %10.1f\n", st_name[i],
               mw[i], mc[i], mb / mw[i], mb / mc[i], rss[i] / 1024.0);
    }
    printf("  where the CPU time goes (medians, differences of the "
           "stages): read/inflate %.3f s, tokenizing %.3f s, callbacks + "
           "decoding %.3f s, records + replays + profile %.3f s\n",
           mc[ST_READ], mc[ST_YAJL] - mc[ST_READ],
           mc[ST_DECODE] - mc[ST_YAJL], mc[ST_HS] - mc[ST_DECODE]);
    printf("  yajl alone (no callbacks): %.1f MB/s of CPU time -- the "
           "ceiling of a yajl reader on this machine\n",
           mb / mc[ST_YAJL]);
    for (i = ST_HS; i <= ST_HS2; i++) {
        printf("  %s (%s): %.1f MB/s wall, %.1f MB/s CPU, peak RSS "
               "%.1f MB", i == ST_HS ? "one core " : "two cores",
               i == ST_HS ? "--threads 1" : "--threads 2", mb / mw[i],
               mb / mc[i], rss[i] / 1024.0);
        if (python)
            printf("; vs python json.load x%.2f by wall time, x%.2f by "
                   "CPU time", mw[ST_PY] / mw[i], mc[ST_PY] / mc[i]);
        printf("\n");
    }
    printf("  two cores vs one: x%.2f by wall time (CPU time x%.2f)\n",
           mw[ST_HS] / mw[ST_HS2], mc[ST_HS2] / mc[ST_HS]);
    if (python)
        printf("  hetsim vs python json.load: x%.2f faster by wall time, "
               "x%.2f by CPU time; peak memory x%.4f\n",
               mw[ST_PY] / mw[ST_HS], mc[ST_PY] / mc[ST_HS],
               (double)rss[ST_HS] / (double)rss[ST_PY]);
    printf("  load average after: %s\n", la1);
    fflush(stdout);
    return failed;
}

static const char hs__usage[] =
    "usage: bench_ingest [--reps N] [--python-reps K] [--warmup W] "
    "[--no-python]\n"
    "                    --trace FILE...\n"
    "       bench_ingest [--reps N] [--python-reps K] [--warmup W] "
    "[--no-python]\n"
    "                    [SMALL_MB [LARGE_MB]]   (synthetic traces; "
    "default 120 600)\n"
    "  --reps N         repetitions per stage, 1-15 (default 3)\n"
    "  --python-reps K  of which the first K also run python's json.load "
    "(default 1)\n"
    "  --warmup W       steps dropped per trace (default 20 synthetic, 1 "
    "--trace)\n"
    "  --no-python      no json.load stage\n"
    "  --trace FILE...  measure these traces (plain or gzip) instead\n"
    "  --write DIR      only write the synthetic traces into DIR (kept, "
    "for\n"
    "                   comparing builds' profiles on them); no "
    "measuring\n"
    "  --help           this text\n";

/* The whole number s (digits only, at least lo and at most hi) into *out;
   0, or -1 when it is not one. */
static int hs__whole(const char *s, long lo, long hi, long *out)
{
    long v = 0;
    const char *p = s;

    if (*p == '\0')
        return -1;
    for (; *p != '\0'; p++) {
        if (*p < '0' || *p > '9' || v > (hi - (*p - '0')) / 10)
            return -1;
        v = v * 10 + (*p - '0');
    }
    if (v < lo)
        return -1;
    *out = v;
    return 0;
}

/* Prints what is wrong and the usage on stderr; the exit status 2. */
static int hs__bad_usage(const char *what, const char *arg)
{
    fprintf(stderr, "bench_ingest: %s: '%s'\n%s", what, arg, hs__usage);
    return 2;
}

/* A numeric option's value argv[a + 1] (lo..hi) into *v; -1 when it is
   missing or not a whole number in range (the error printed). */
static int hs__opt_num(int argc, char **argv, int a, long lo, long hi,
                       long *v)
{
    if (a + 1 >= argc) {
        hs__bad_usage("missing value for", argv[a]);
        return -1;
    }
    if (hs__whole(argv[a + 1], lo, hi, v) != 0) {
        char what[96];
        snprintf(what, sizeof what, "%s wants a whole number from %ld to "
                 "%ld, not", argv[a], lo, hi);
        hs__bad_usage(what, argv[a + 1]);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long sizes[2] = {120, 600};
    int ns = 0, reps = 3, python = 1, a, rc = 0, have_warmup = 0;
    const char *tmp = getenv("TMPDIR");
    char base[512], path[600];
    const char *traces[64];
    const char *write_dir = NULL;
    int nt = 0, trace_mode = 0, i;
    long v;

    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
            fputs(hs__usage, stdout);
            return 0;
        } else if (strcmp(argv[a], "--reps") == 0) {
            if (hs__opt_num(argc, argv, a++, 1, MAXREP, &v) != 0)
                return 2;
            reps = (int)v;
        } else if (strcmp(argv[a], "--warmup") == 0) {
            if (hs__opt_num(argc, argv, a++, 0, 1000000, &v) != 0)
                return 2;
            g_warmup = (unsigned)v;
            have_warmup = 1;
        } else if (strcmp(argv[a], "--python-reps") == 0) {
            if (hs__opt_num(argc, argv, a++, 1, MAXREP, &v) != 0)
                return 2;
            g_py_reps = (int)v;
        } else if (strcmp(argv[a], "--no-python") == 0) {
            python = 0;
        } else if (strcmp(argv[a], "--trace") == 0) {
            trace_mode = 1;
        } else if (strcmp(argv[a], "--write") == 0) {
            if (a + 1 >= argc)
                return hs__bad_usage("missing value for", argv[a]);
            write_dir = argv[++a];
        } else if (argv[a][0] == '-' && argv[a][1] != '\0') {
            return hs__bad_usage("unknown option", argv[a]);
        } else if (trace_mode) {
            if (nt == 64)
                return hs__bad_usage("more than 64 traces at", argv[a]);
            traces[nt++] = argv[a];
        } else {
            if (ns == 2)
                return hs__bad_usage("more than two sizes at", argv[a]);
            if (hs__whole(argv[a], 1, 100000, &v) != 0)
                return hs__bad_usage("a size is a whole number of MB from "
                                     "1 to 100000, not", argv[a]);
            sizes[ns++] = v;
        }
    }
    if (trace_mode && nt == 0) {
        fprintf(stderr, "bench_ingest: --trace wants at least one file\n%s",
                hs__usage);
        return 2;
    }
    if (trace_mode && ns > 0) {
        fprintf(stderr, "bench_ingest: sizes are for synthetic traces, not "
                "with --trace\n%s", hs__usage);
        return 2;
    }
    if (trace_mode) {
        if (!have_warmup)
            g_warmup = 1;
        printf("bench_ingest: %d trace(s), warm-up %u\n", nt, g_warmup);
        for (i = 0; i < nt; i++)
            rc |= bench_file(traces[i], reps, python);
        return rc;
    }
    if (write_dir != NULL && trace_mode) {
        fprintf(stderr, "bench_ingest: --write is for synthetic traces, "
                "not with --trace\n%s", hs__usage);
        return 2;
    }
    if (write_dir != NULL) {
        for (i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s/trace-%ldMB.json", write_dir,
                     sizes[i]);
            if (gen_trace(path, sizes[i]) < 0) {
                fprintf(stderr, "bench_ingest: cannot write %s\n", path);
                return 1;
            }
            printf("%s\n", path);
        }
        return 0;
    }
    snprintf(base, sizeof base, "%s/hetsim-bench-ingest-XXXXXX",
             tmp != NULL ? tmp : "/tmp");
    if (mkdtemp(base) == NULL) {
        fprintf(stderr, "bench_ingest: mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    printf("bench_ingest: synthetic Kineto GPU traces in %s\n", base);
    for (i = 0; i < 2; i++) {
        long long bytes;
        double t0;

        snprintf(path, sizeof path, "%s/trace-%ldMB.json", base, sizes[i]);
        t0 = now_s();
        bytes = gen_trace(path, sizes[i]);
        if (bytes < 0) {
            fprintf(stderr, "bench_ingest: cannot write %s\n", path);
            rc = 1;
            break;
        }
        printf("\n%s: %.1f MB (generated in %.1f s)\n", path,
               (double)bytes / 1e6, now_s() - t0);
        rc |= bench_file(path, reps, python);
        unlink(path);
    }
    rmdir(base);
    return rc;
}
