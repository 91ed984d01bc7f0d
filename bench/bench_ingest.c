/*
 * bench_ingest.c -- throughput and peak memory of hetsim's trace
 * ingestion (traces/hs_ingest.c and the reader it drives, hs_kineto.c)
 * beside Python's json.load of the same file, at two trace sizes.
 *
 * usage: bench_ingest [SMALL_MB [LARGE_MB]]     (defaults 120 and 600)
 *
 * For each size it writes, in a fresh temporary directory (removed after),
 * a synthetic Kineto-form GPU trace with yajl's generator: per step a
 * ProfilerStep window, a DataLoader call, forward operators with
 * cudaLaunchKernel calls, a backward on a second thread (evaluate_function
 * operators, record_param_comms all-reduce buckets), an optimizer step,
 * and, after all CPU events as Kineto writes them, the GPU kernels with
 * their correlation ids.  Then, each in a child process so that peak RSS
 * (ru_maxrss from wait4) is its own:
 *   - hetsim: hs_ingest_add_file + hs_ingest_profile (4 passes);
 *   - /usr/bin/python3: json.load of the same file.
 * It prints MB/s (file bytes over wall time) and peak RSS for both and
 * their ratios.  A benchmark, not a test: it asserts nothing.
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

/* Runs fn in a child; returns its wall time, sets *rss_kb. */
static double in_child(int (*fn)(const char *), const char *arg,
                       long *rss_kb, int *status)
{
    double t0 = now_s();
    pid_t pid = fork();
    struct rusage ru;
    int st = 0;

    if (pid == 0)
        _exit(fn(arg));
    wait4(pid, &st, 0, &ru);
    *rss_kb = ru.ru_maxrss;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return now_s() - t0;
}

static int run_hs(const char *path)
{
    hs_ingest_opts_t o;
    hs_ingest_t *ing;
    hs_error_t err;
    hs_profile_t p;

    hs_ingest_opts_default(&o);
    ing = hs_ingest_new(&o);
    if (hs_ingest_add_file(ing, path, &err) != HS_OK ||
        hs_ingest_profile(ing, &p, &err) != HS_OK) {
        fprintf(stderr, "bench_ingest: %s\n", err.msg);
        return 1;
    }
    printf("    hetsim profile: t_fwd %.3f ms (kernels), t_bwd %.3f ms, "
           "D %" PRIu64 " B, %u steps kept, %u passes\n",
           (double)p.t_fwd.mean_ns / 1e6, (double)p.t_bwd.mean_ns / 1e6,
           p.ar_bytes, p.steps_kept, hs_ingest_file(ing, 0)->passes);
    fflush(stdout);
    hs_profile_clear(&p);
    hs_ingest_free(ing);
    return 0;
}

static int run_py(const char *path)
{
    execl("/usr/bin/python3", "python3", "-c",
          "import json,sys\n"
          "with open(sys.argv[1]) as f: d = json.load(f)\n"
          "print('    python: %d events' % len(d['traceEvents']))\n",
          path, (char *)NULL);
    return 127;
}

int main(int argc, char **argv)
{
    long sizes[2] = {120, 600};
    const char *tmp = getenv("TMPDIR");
    char base[512], path[600];
    int i;
    double hs_rate[2] = {0, 0};
    long hs_rss[2] = {0, 0};

    if (argc > 1)
        sizes[0] = atol(argv[1]);
    if (argc > 2)
        sizes[1] = atol(argv[2]);
    snprintf(base, sizeof base, "%s/hetsim-bench-ingest-XXXXXX",
             tmp != NULL ? tmp : "/tmp");
    if (mkdtemp(base) == NULL) {
        fprintf(stderr, "bench_ingest: mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    printf("bench_ingest: synthetic Kineto GPU traces in %s\n", base);
    for (i = 0; i < 2; i++) {
        long long bytes;
        double t_hs, t_py, mb, t0;
        long rss_hs, rss_py;
        int st_hs, st_py;

        snprintf(path, sizeof path, "%s/trace-%ldMB.json", base, sizes[i]);
        t0 = now_s();
        bytes = gen_trace(path, sizes[i]);
        if (bytes < 0) {
            fprintf(stderr, "bench_ingest: cannot write %s\n", path);
            break;
        }
        mb = (double)bytes / 1e6;
        printf("\n%s: %.1f MB (generated in %.1f s)\n", path, mb,
               now_s() - t0);
        fflush(stdout);
        t_hs = in_child(run_hs, path, &rss_hs, &st_hs);
        t_py = in_child(run_py, path, &rss_py, &st_py);
        hs_rate[i] = mb / t_hs;
        hs_rss[i] = rss_hs;
        printf("  hetsim ingest : %7.2f s  %7.1f MB/s  peak RSS %8.1f MB%s\n",
               t_hs, mb / t_hs, rss_hs / 1024.0,
               st_hs ? "  (FAILED)" : "");
        printf("  python json.load: %5.2f s  %7.1f MB/s  peak RSS %8.1f MB%s\n",
               t_py, mb / t_py, rss_py / 1024.0,
               st_py ? "  (FAILED)" : "");
        printf("  ratio hetsim/python: speed x%.2f, peak memory x%.4f\n",
               (mb / t_hs) / (mb / t_py), (double)rss_hs / (double)rss_py);
        fflush(stdout);
        unlink(path);
    }
    rmdir(base);
    if (hs_rss[0] > 0 && hs_rss[1] > 0)
        printf("\nhetsim peak RSS at %ld MB: %.1f MB, at %ld MB: %.1f MB "
               "(x%.3f for x%.1f the size); throughput %.1f vs %.1f MB/s\n",
               sizes[0], hs_rss[0] / 1024.0, sizes[1], hs_rss[1] / 1024.0,
               (double)hs_rss[1] / (double)hs_rss[0],
               (double)sizes[1] / (double)sizes[0], hs_rate[0], hs_rate[1]);
    return 0;
}
