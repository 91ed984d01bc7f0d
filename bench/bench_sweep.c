/*
 * bench_sweep.c -- how fast a what-if sweep runs its points
 * (whatif/hs_sweep.h): closed-form points per second at N = 1,000 and
 * 10,000 devices (goal: >= 1,000 points/s at N = 10,000 on one core),
 * replay points per second at N = 256 (the max-plus fast path, and the
 * event engine of the stochastic mode), and the MPI speed-up of
 * `mpirun -n K hetsim sweep` for K = 1, 2, 3 (K ranks are K-1 workers and
 * a coordinator; skipped when mpirun is absent).
 *
 * Each point varies the inter-type link and the latency, so every point
 * changes the ring edges and re-resolves the scenario.  Figures are wall
 * time on whatever else the machine is doing: run it on a quiet machine.
 * Usage: bench_sweep [POINTS_AT_1000 [POINTS_AT_10000 [REPLAY_POINTS]]]
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hs_scenario.h"
#include "hs_answer.h"
#include "hs_sweep.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of this process: what one core spent, whatever else the
   machine runs. */
static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char hs__yaml[] =
    "job: {dataset: {size: 200TB, sample_bytes: 115439B}}\n"
    "device_types:\n"
    "  - name: MLU370\n"
    "    count: %lu\n"
    "    batch: 256\n"
    "    shard: 1GB\n"
    "    profile: {t_dl: 20ms, t_fwd: 112ms, t_b1: 112us, t_bwd: 224ms,\n"
    "              allreduce_bytes: 102228128B}\n"
    "  - name: A100\n"
    "    count: %lu\n"
    "    batch: 256\n"
    "    shard: 1GB\n"
    "    profile: {t_dl: 20ms, t_fwd: 34ms, t_b1: 35us, t_bwd: 69ms,\n"
    "              allreduce_bytes: 102228128B}\n"
    "ring: interleave\n"
    "network:\n"
    "  default_bandwidth: 200Gbps\n"
    "  latency: 5us\n"
    "  type_links: [[A100, MLU370, 25Gbps]]\n"
    "simulate: {steps: %u, stochastic: %s}\n";

/* Points per CPU second of a sweep over `points` points at n devices;
   *wall gets the points per wall-clock second. */
static double rate(unsigned long n, size_t points, int replay,
                   unsigned steps, int stochastic, size_t *failed,
                   double *wall)
{
    char yaml[2048], vary_bw[128], vary_lat[128];
    hs_scenario_t *s = NULL;
    hs_sweep_t *sw = NULL;
    hs_sweep_results_t *res = NULL;
    hs_error_t e;
    size_t n_bw = points / 4 ? points / 4 : 1;
    double t0, t1, c0, c1;

    snprintf(yaml, sizeof yaml, hs__yaml, n / 2, n - n / 2, steps,
             stochastic ? "true" : "false");
    snprintf(vary_bw, sizeof vary_bw,
             "network.type_links.A100.MLU370=1Gbps..%zuGbps:1Gbps", n_bw);
    snprintf(vary_lat, sizeof vary_lat, "network.latency=0us..3us:1us");
    if (hs_scenario_load_text(yaml, strlen(yaml), "bench.yaml", NULL, &s,
                              &e) != HS_OK ||
        hs_sweep_new(s, replay ? HS_ANSWER_REPLAY_ALWAYS
                                : HS_ANSWER_REPLAY_NEVER, &sw, &e) != HS_OK ||
        hs_sweep_vary(sw, vary_bw, &e) != HS_OK ||
        hs_sweep_vary(sw, vary_lat, &e) != HS_OK ||
        hs_sweep_plan(sw, &e) != HS_OK ||
        hs_sweep_results_new(sw, &res, &e) != HS_OK) {
        fprintf(stderr, "bench_sweep: %s\n", e.msg);
        exit(1);
    }
    t0 = now_s();
    c0 = cpu_s();
    if (hs_sweep_run(sw, res, NULL, NULL, &e) != HS_OK) {
        fprintf(stderr, "bench_sweep: %s\n", e.msg);
        exit(1);
    }
    c1 = cpu_s();
    t1 = now_s();
    *failed = res->n_failed;
    points = res->n_points;
    if (res->n_failed > 0) {
        size_t p;
        for (p = 0; p < points && res->error[p] == NULL; p++)
            ;
        fprintf(stderr, "bench_sweep: a point failed: %s\n",
                p < points ? res->error[p] : "?");
    }
    hs_sweep_results_free(res);
    hs_sweep_free(sw);
    hs_scenario_free(s);
    *wall = (double)points / (t1 - t0);
    return (double)points / (c1 - c0);
}

/* Runs argv, stdout and stderr to /dev/null; wall seconds, or -1. */
static double timed_run(char *const argv[])
{
    double t0;
    pid_t pid;
    int st;

    fflush(stdout);
    t0 = now_s();
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (freopen("/dev/null", "w", stdout) == NULL ||
            freopen("/dev/null", "w", stderr) == NULL)
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
        WEXITSTATUS(st) > 1)
        return -1;
    return now_s() - t0;
}

static double median3(const double v[3])
{
    double a = v[0], b = v[1], c = v[2];

    if (a > b) {
        double x = a;
        a = b;
        b = x;
    }
    if (b > c)
        b = c;
    return a > b ? a : b;
}

static void mpi_speedup(void)
{
    char self[PATH_MAX], hetsim[PATH_MAX + 16], scn[64], out[64];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    char yaml[2048];
    double base = 0;
    FILE *f;
    int k;

    if (len <= 0 || system("command -v mpirun >/dev/null 2>&1") != 0) {
        printf("MPI speed-up: skipped (no mpirun)\n");
        return;
    }
    self[len] = '\0';
    snprintf(hetsim, sizeof hetsim, "%s/../hetsim", dirname(self));
    snprintf(scn, sizeof scn, "/tmp/bench_sweep_%d.yaml", (int)getpid());
    snprintf(out, sizeof out, "/tmp/bench_sweep_%d.csv", (int)getpid());
    snprintf(yaml, sizeof yaml, hs__yaml, 256UL, 256UL, 10U, "true");
    f = fopen(scn, "w");
    if (f == NULL)
        return;
    fputs(yaml, f);
    fclose(f);
    printf("MPI speed-up, 64 stochastic replay points (the event engine) "
           "at N = 512 (10 steps); median of 3 rounds of wall time less "
           "mpirun's start-up (a one-point run):\n");
    {
        double t[3][3], t0[3][3];
        int round, bad[3] = {0, 0, 0};
        for (round = 0; round < 3; round++) {
            for (k = 1; k <= 3; k++) {
                char kb[8];
                char *argv[] = {
                    "mpirun", "--allow-run-as-root", "--oversubscribe", "-n",
                    kb, hetsim, "sweep", scn, "--replay", "--vary",
                    "network.type_links.A100.MLU370=1Gbps..16Gbps:1Gbps",
                    "--vary", "network.latency=0us..3us:1us", "-o", out,
                    NULL};
                char *argv0[] = {"mpirun", "--allow-run-as-root",
                                 "--oversubscribe", "-n", kb, hetsim,
                                 "sweep", scn, "--vary",
                                 "network.latency=0us", "-o", out, NULL};
                snprintf(kb, sizeof kb, "%d", k);
                t0[k - 1][round] = timed_run(argv0);
                t[k - 1][round] = timed_run(argv);
                if (t[k - 1][round] < 0 || t0[k - 1][round] < 0)
                    bad[k - 1] = 1;
                else
                    t[k - 1][round] -= t0[k - 1][round];
            }
        }
        for (k = 1; k <= 3; k++) {
            double m = median3(t[k - 1]), m0 = median3(t0[k - 1]);
            if (bad[k - 1]) {
                printf("  %d rank(s): failed\n", k);
                continue;
            }
            if (k == 1)
                base = m;
            printf("  %d rank(s) (%d worker(s)): %.2f s (start-up %.2f s), "
                   "speed-up %.2f\n", k, k == 1 ? 1 : k - 1, m, m0,
                   base > 0 && m > 0 ? base / m : 0);
        }
    }
    remove(scn);
    remove(out);
}

int main(int argc, char **argv)
{
    size_t p1k = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000;
    size_t p10k = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000;
    size_t prep = argc > 3 ? strtoul(argv[3], NULL, 10) : 32;
    size_t failed = 0;
    double r, w;

    r = rate(1000, p1k, 0, 10, 0, &failed, &w);
    printf("closed form, N = 1,000: %.0f points/s of one core's CPU time "
           "(%.0f per wall second; %zu points, %zu failed)\n", r, w, p1k,
           failed);
    r = rate(10000, p10k, 0, 10, 0, &failed, &w);
    printf("closed form, N = 10,000: %.0f points/s of one core's CPU time "
           "(%.0f per wall second; %zu points, %zu failed; goal >= 1,000)\n",
           r, w, p10k, failed);
    r = rate(256, prep, 1, 10, 0, &failed, &w);
    printf("replay (10 steps; the max-plus fast path), N = 256: %.1f "
           "points/s of one core's CPU time (%.1f per wall second; %zu "
           "points, %zu failed)\n", r, w, prep, failed);
    r = rate(256, prep, 1, 10, 1, &failed, &w);
    printf("replay (10 steps, stochastic: the event engine), N = 256: %.2f "
           "points/s of one core's CPU time (%.2f per wall second; %zu "
           "points, %zu failed)\n", r, w, prep, failed);
    mpi_speedup();
    return 0;
}
