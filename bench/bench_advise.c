/*
 * bench_advise.c -- the ring-order search (hetsim advise ring) on generated
 * heterogeneous clusters of N = 16, 128 and 1,000 devices: its CPU time,
 * the closed-form step of the given (listing), grouped and interleaved
 * orders and of the order found, the gain over the best of those three,
 * and the stated lower bound.  The clusters: 3 device types with different
 * compute, fast links inside a type and between fast-mid and mid-slow,
 * 10 Gbit/s elsewhere, and n/20 + 1 explicit slow (1 Gbit/s) pair rows,
 * the devices listed in a shuffled order.
 * The replay is not run here (--replay: also replay the candidates).
 *
 * Then, when hetsim was built with MPI and mpirun is there, the whole
 * command `hetsim advise ring FILE --json` (search and replays) on the
 * same clusters: its wall time alone, under mpirun -n 1 and -n 2 (the
 * replays of the candidates split over the ranks; the search is one
 * sequence on every rank), and whether the JSON is the same.  Figures
 * only, no timed assertion.  --no-mpi skips it; --hetsim PATH names the
 * binary (default: ../hetsim beside this one).
 * Usage: bench_advise [--replay] [--no-mpi] [--hetsim PATH] [N ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hs_advise.h"

static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x853c49e6748fea9bULL;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* A generated cluster of n devices as YAML (malloc'd). */
static char *cluster(unsigned n)
{
    static const char *const tn[3] = {"fast", "mid", "slow"};
    unsigned cnt[3], i, k, rows = n / 20 + 1, *order;
    size_t cap = 4096 + (size_t)n * 64 + (size_t)rows * 64, at = 0;
    char *y = malloc(cap);
    char (*names)[16] = malloc((size_t)n * sizeof *names);

    cnt[0] = n / 2;
    cnt[1] = n / 3;
    cnt[2] = n - cnt[0] - cnt[1];
    at += (size_t)snprintf(y + at, cap - at,
        "job: {model: x, dataset: {samples: 1000000}}\n"
        "device_types:\n"
        "  - {name: fast, count: %u, batch: 32, profile: {t_fwd: 20ms, "
        "t_b1: 1ms, t_bwd: 40ms, allreduce_bytes: 100MB}}\n"
        "  - {name: mid, count: %u, batch: 32, profile: {t_fwd: 35ms, "
        "t_b1: 2ms, t_bwd: 70ms, allreduce_bytes: 100MB}}\n"
        "  - {name: slow, count: %u, batch: 32, profile: {t_fwd: 60ms, "
        "t_b1: 3ms, t_bwd: 120ms, allreduce_bytes: 100MB}}\n",
        cnt[0], cnt[1], cnt[2]);
    for (k = 0, i = 0; k < 3; k++) {
        unsigned j;

        for (j = 0; j < cnt[k]; j++, i++)
            snprintf(names[i], sizeof names[i], "%s-%u", tn[k], j);
    }
    /* a shuffled listing order as the given ring */
    order = malloc((size_t)n * sizeof *order);
    for (i = 0; i < n; i++)
        order[i] = i;
    for (i = n - 1; i > 0; i--) {
        unsigned j = rnd(i + 1), t = order[i];

        order[i] = order[j];
        order[j] = t;
    }
    at += (size_t)snprintf(y + at, cap - at, "ring: [");
    for (i = 0; i < n; i++)
        at += (size_t)snprintf(y + at, cap - at, "%s%s", i ? ", " : "",
                               names[order[i]]);
    at += (size_t)snprintf(y + at, cap - at,
        "]\nnetwork:\n  default_bandwidth: 10Gbps\n  latency: 10us\n"
        "  type_links: [[fast, fast, 200Gbps], [mid, mid, 100Gbps],\n"
        "               [slow, slow, 50Gbps], [fast, mid, 25Gbps],\n"
        "               [mid, slow, 50Gbps]]\n"
        "  links:\n");
    for (k = 0; k < rows; k++) {
        unsigned a = rnd(n), b = rnd(n);

        if (a == b)
            b = (a + 1) % n;
        at += (size_t)snprintf(y + at, cap - at, "    - [%s, %s, 1Gbps]\n",
                               names[a], names[b]);
    }
    snprintf(y + at, cap - at, "simulate: {steps: 3}\n");
    free(order);
    free(names);
    return y;
}

static double wall_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs cmd with its stdout into out (the file); its wall seconds, or -1
   when it failed. */
static double timed(const char *cmd, const char *out)
{
    char full[8192];
    double t0 = wall_s();

    snprintf(full, sizeof full, "%s > %s 2>/dev/null", cmd, out);
    if (system(full) != 0)
        return -1;
    return wall_s() - t0;
}

/* The file's text without its "search_cpu_s" line; malloc'd or NULL. */
static char *json_masked(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4096], *t;
    size_t at = 0, cap = 1 << 16;

    if (f == NULL || (t = malloc(cap)) == NULL) {
        if (f != NULL)
            fclose(f);
        return NULL;
    }
    t[0] = '\0';
    while (fgets(line, sizeof line, f) != NULL) {
        size_t l = strlen(line);

        if (strstr(line, "\"search_cpu_s\"") != NULL)
            continue;
        if (at + l + 1 > cap) {
            char *u = realloc(t, cap *= 2);
            if (u == NULL)
                break;
            t = u;
        }
        memcpy(t + at, line, l + 1);
        at += l;
    }
    fclose(f);
    return t;
}

/* `hetsim advise ring` alone and under mpirun -n 1 and -n 2. */
static void bench_mpi(const char *hetsim, const unsigned *ns, unsigned nn)
{
    char cmd[4096], scn[256], o0[300], o1[300], o2[300];
    const char *root = geteuid() == 0 ? "--allow-run-as-root " : "";
    unsigned i;

    snprintf(cmd, sizeof cmd, "%s advise --help 2>/dev/null | grep -q "
             "'MPI: built in' && command -v mpirun >/dev/null", hetsim);
    if (system(cmd) != 0) {
        printf("\nmpirun: not measured (no mpirun, or %s built without "
               "MPI)\n", hetsim);
        return;
    }
    printf("\nhetsim advise ring FILE --json (search + replays), wall "
           "seconds\n");
    printf("%6s %9s %11s %11s %8s %s\n", "N", "alone", "mpirun -n1",
           "mpirun -n2", "speedup", "same JSON");
    for (i = 0; i < nn; i++) {
        char *y = cluster(ns[i]), *j0, *j1, *j2;
        FILE *f;
        double t0, t1, t2;

        snprintf(scn, sizeof scn, "/tmp/bench_advise_%d_%u.yaml",
                 (int)getpid(), ns[i]);
        snprintf(o0, sizeof o0, "%s.0.json", scn);
        snprintf(o1, sizeof o1, "%s.1.json", scn);
        snprintf(o2, sizeof o2, "%s.2.json", scn);
        if ((f = fopen(scn, "w")) == NULL) {
            free(y);
            return;
        }
        fputs(y, f);
        fclose(f);
        free(y);
        snprintf(cmd, sizeof cmd, "%s advise ring %s --json", hetsim, scn);
        t0 = timed(cmd, o0);
        snprintf(cmd, sizeof cmd, "mpirun %s--oversubscribe -n 1 %s advise "
                 "ring %s --json", root, hetsim, scn);
        t1 = timed(cmd, o1);
        snprintf(cmd, sizeof cmd, "mpirun %s--oversubscribe -n 2 %s advise "
                 "ring %s --json", root, hetsim, scn);
        t2 = timed(cmd, o2);
        j0 = json_masked(o0);
        j1 = json_masked(o1);
        j2 = json_masked(o2);
        printf("%6u %8.2fs %10.2fs %10.2fs %7.2fx %s\n", ns[i], t0, t1, t2,
               t1 > 0 && t2 > 0 ? t1 / t2 : 0.0,
               j0 != NULL && j1 != NULL && j2 != NULL &&
                       strcmp(j0, j1) == 0 && strcmp(j0, j2) == 0
                   ? "yes"
                   : "NO");
        free(j0);
        free(j1);
        free(j2);
        unlink(scn);
        unlink(o0);
        unlink(o1);
        unlink(o2);
    }
    printf("speedup: -n1 / -n2; mpirun's start-up (about 1-2 s) is in both\n");
}

int main(int argc, char **argv)
{
    unsigned ns[16] = {16, 128, 1000}, nn = 3, i;
    int replay = 0, mpi = 1, a;
    char hetsim[2048];
    const char *slash = strrchr(argv[0], '/');

    snprintf(hetsim, sizeof hetsim, "%.*s../hetsim",
             slash != NULL ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    for (a = 1, i = 0; a < argc; a++) {
        if (strcmp(argv[a], "--replay") == 0)
            replay = 1;
        else if (strcmp(argv[a], "--no-mpi") == 0)
            mpi = 0;
        else if (strcmp(argv[a], "--hetsim") == 0 && a + 1 < argc)
            snprintf(hetsim, sizeof hetsim, "%s", argv[++a]);
        else if (i < 16)
            ns[i++] = (unsigned)strtoul(argv[a], NULL, 10);
    }
    if (i > 0)
        nn = i;
    printf("ring-order search on generated 3-type clusters (closed-form "
           "step; CPU seconds)\n");
    printf("%6s %9s %11s %11s %11s %11s %11s %8s %9s\n", "N", "search",
           "given", "grouped", "interleave", "found", "bound", "gain",
           "method");
    for (i = 0; i < nn; i++) {
        char *y = cluster(ns[i]);
        hs_scenario_t *s = NULL;
        hs_advise_ring_t *r = NULL;
        hs_error_t e;
        double t0, t1;
        int64_t best3;

        if (hs_scenario_load_text(y, strlen(y), "bench", NULL, &s, &e) !=
            HS_OK) {
            fprintf(stderr, "bench_advise: %s\n", e.msg);
            return 1;
        }
        free(y);
        t0 = cpu_s();
        if (hs_advise_ring(s, NULL, replay, 0, &r, &e) != HS_OK) {
            fprintf(stderr, "bench_advise: %s\n", e.msg);
            return 1;
        }
        t1 = cpu_s();
        best3 = r->cands[0].closed_ns;
        if (r->cands[1].closed_ns < best3)
            best3 = r->cands[1].closed_ns;
        if (r->cands[2].closed_ns < best3)
            best3 = r->cands[2].closed_ns;
        printf("%6u %8.3fs %9.1fms %9.1fms %9.1fms %9.1fms %9.1fms %7.1f%% "
               "%9s\n", ns[i], t1 - t0, r->cands[0].closed_ns / 1e6,
               r->cands[1].closed_ns / 1e6, r->cands[2].closed_ns / 1e6,
               r->cands[3].closed_ns / 1e6, r->lower_bound_ns / 1e6,
               100.0 * (double)(best3 - r->cands[3].closed_ns) /
                   (double)best3,
               r->exact ? "exact" : "heuristic");
        if (replay)
            printf("       judged (%s): given %.1f ms, found %.1f ms\n",
                   hs_predictor_name(r->cands[0].fig.recommended),
                   r->cands[0].fig.est[r->cands[0].fig.recommended].step_ns /
                       1e6,
                   r->cands[3].fig.est[r->cands[3].fig.recommended].step_ns /
                       1e6);
        hs_advise_ring_free(r);
        hs_scenario_free(s);
    }
    printf("gain: the found order's step against the best of given, "
           "grouped and interleave\n");
    if (mpi) {
        rng = 0x853c49e6748fea9bULL;    /* the same clusters again */
        bench_mpi(hetsim, ns, nn);
    }
    return 0;
}
