/*
 * bench_closed.c -- time and peak memory of loading a scenario given by
 * counts and applying the closed form, for N = 1e4, 1e5, 1e6 devices.
 * Each N runs in its own child process so its peak RSS is its own.
 * Usage: bench_closed [N ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hs_closed.h"
#include "hs_scenario.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_one(unsigned long n, int fd)
{
    char yaml[2048];
    hs_scenario_t *s = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t e;
    double t0, t1, t2;
    struct rusage ru;
    char line[256];
    int len;

    snprintf(yaml, sizeof yaml,
             "job: {dataset: {size: 200TB, sample_bytes: 115439B}}\n"
             "device_types:\n"
             "  - {name: MLU370, count: %lu, batch: 256, shard: 1GB,\n"
             "     profile: {t_fwd: 112.281ms, t_b1: 112us, "
             "allreduce_bytes: 102228128B}}\n"
             "  - {name: A100, count: %lu, batch: 256, shard: 1GB,\n"
             "     profile: {t_fwd: 34.548ms, t_b1: 35us, "
             "allreduce_bytes: 102228128B}}\n"
             "ring: interleave\n"
             "network: {default_bandwidth: 200Gbps, latency: 2us,\n"
             "          type_links: [[A100, A100, 400Gbps]]}\n",
             n / 2, n - n / 2);
    t0 = now_s();
    if (hs_scenario_load_text(yaml, strlen(yaml), "bench", NULL, &s, &e) !=
        HS_OK) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    t1 = now_s();
    if (hs_closed_predict(s, &p, &e) != HS_OK) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    t2 = now_s();
    getrusage(RUSAGE_SELF, &ru);
    len = snprintf(line, sizeof line,
                   "%10lu %12.1f %12.1f %12.1f %12.1f %14.3f\n", n,
                   (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t2 - t0) * 1e3,
                   (double)ru.ru_maxrss / 1024.0,
                   (double)p->step_ns / 1e6);
    if (write(fd, line, (size_t)len) != len)
        return 1;
    hs_prediction_free(p);
    hs_scenario_free(s);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long def[] = {10000, 100000, 1000000};
    int i, n = argc > 1 ? argc - 1 : 3;

    printf("closed form: load (generate devices, ring, links) + predict\n");
    printf("%10s %12s %12s %12s %12s %14s\n", "N", "load ms", "predict ms",
           "total ms", "peak RSS MiB", "step ms");
    fflush(stdout);
    for (i = 0; i < n; i++) {
        unsigned long N = argc > 1 ? strtoul(argv[i + 1], NULL, 10) : def[i];
        pid_t pid = fork();
        int st;
        if (pid == 0)
            _exit(run_one(N, 1));
        if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
            WEXITSTATUS(st) != 0) {
            fprintf(stderr, "N=%lu failed\n", N);
            return 1;
        }
    }
    return 0;
}
