/*
 * bench_engine.c -- how fast the replay runs, and in how much memory.
 *
 * For N = 64, 256, 1024, 4096 devices in one homogeneous ring: 10 steps,
 * overlap patent, rendezvous, tracing off.  Each N runs in its own child
 * process so that ru_maxrss (peak resident memory) is that run's alone.
 * Prints events, seconds, events per second on one core, peak RSS and the
 * replay's own state bytes.  A second table times the bare engine on the
 * "hold" model (pop one event, schedule one at now + a random delay) with
 * the queue held at the same sizes.  A third table repeats the first with
 * the communication's own cost (comm_ns_per_byte 0.5: each chunk's
 * processing outlasts its transfer, so every chunk also has a PROC_DONE
 * event).
 *
 * Usage: bench_engine [N ...]   (default 64 256 1024 4096)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hs_engine.h"
#include "hs_replay.h"
#include "hs_scenario.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_kib(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* KiB on Linux */
}

static const char *comm_line = "";  /* set before the children fork */

static int run_replay(unsigned n)
{
    char text[1024];
    hs_scenario_t *s = NULL;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    double t0, t1, c0, c1;

    snprintf(text, sizeof text,
             "name: bench-%u\n"
             "job: {model: x, dataset: {samples: %u00}, epochs: 1}\n"
             "device_types:\n"
             "  - name: gpu\n"
             "    count: %u\n"
             "    batch: 100\n"
             "    profile: {subsystem_size: 2, t_dl: 20ms, t_fwd: 30ms,\n"
             "              t_b1: 1ms, t_bwd: 60ms,\n"
             "              allreduce_bytes: 100MB%s}\n"
             "network: {default_bandwidth: 25Gbps, latency: 5us}\n"
             "simulate: {steps: 10, overlap: patent, send: rendezvous}\n",
             n, n, n, comm_line);
    if (hs_scenario_load_text(text, strlen(text), "bench", NULL, &s,
                              &err) != HS_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    t0 = now_s();
    c0 = cpu_s();
    if (hs_replay_run(s, NULL, NULL, 0, &r, &err) != HS_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        hs_scenario_free(s);
        return 1;
    }
    c1 = cpu_s();
    t1 = now_s();
    printf("%6u %14llu %9.3f %9.3f %11.2f %10ld %12zu %10zu %10.3f\n", n,
           (unsigned long long)r->n_events, t1 - t0, c1 - c0,
           (double)r->n_events / (c1 - c0) / 1e6, peak_kib(),
           r->state_bytes, r->queue_high_water, (double)r->step_ns / 1e6);
    fflush(stdout);
    hs_replay_result_free(r);
    hs_scenario_free(s);
    return 0;
}

/* the bare engine: hold model */
typedef struct hold_s {
    uint64_t rng;
    uint64_t left;
} hold_t;

static int hold_handler(hs_engine_t *e, void *model, const hs_event_t *ev)
{
    hold_t *h = model;

    h->rng ^= h->rng << 13;
    h->rng ^= h->rng >> 7;
    h->rng ^= h->rng << 17;
    if (h->left == 0)
        return 0;
    h->left--;
    hs_engine_schedule(e, ev->time_ns + 1000 + (int64_t)(h->rng % 100000),
                       0, ev->device, 0);
    return 0;
}

static int run_hold(unsigned n)
{
    hs_handler_t hd[1] = {hold_handler};
    hs_engine_t *e = NULL;
    hs_error_t err;
    hold_t h = {88172645463325252ULL, 30000000ULL};
    unsigned i;
    double t0, t1, c0, c1;

    if (hs_engine_new(n, hd, 1, &h, &e, &err) != HS_OK)
        return 1;
    for (i = 0; i < n; i++)
        hs_engine_schedule(e, (int64_t)i, 0, i, 0);
    t0 = now_s();
    c0 = cpu_s();
    hs_engine_run(e, &err);
    c1 = cpu_s();
    t1 = now_s();
    printf("%8u %14llu %9.3f %9.3f %11.2f\n", n,
           (unsigned long long)hs_engine_events(e), t1 - t0, c1 - c0,
           (double)hs_engine_events(e) / (c1 - c0) / 1e6);
    fflush(stdout);
    hs_engine_free(e);
    return 0;
}

static void replay_header(void)
{
    printf("%6s %14s %9s %9s %11s %10s %12s %10s %10s\n", "N", "events",
           "wall s", "cpu s", "Mev/cpu-s", "maxrss KiB", "state bytes",
           "queue peak", "step ms");
    fflush(stdout);
}

static int in_child(int (*fn)(unsigned), unsigned n)
{
    pid_t pid = fork();
    int st;

    if (pid < 0)
        return fn(n);
    if (pid == 0)
        _exit(fn(n));
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return 1;
    return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
    unsigned ns[16] = {64, 256, 1024, 4096};
    int n_ns = 4, i, rc = 0;

    if (argc > 1) {
        n_ns = 0;
        for (i = 1; i < argc && n_ns < 16; i++)
            ns[n_ns++] = (unsigned)strtoul(argv[i], NULL, 10);
    }
    printf("replay: homogeneous ring, 10 steps, overlap patent, "
           "rendezvous, no tracing, one core\n");
    replay_header();
    for (i = 0; i < n_ns; i++)
        rc |= in_child(run_replay, ns[i]);
    printf("\nbare engine, hold model (pop + schedule at now + U(1,101) "
           "us), 30 M events\n");
    printf("%8s %14s %9s %9s %11s\n", "pending", "events", "wall s",
           "cpu s", "Mev/cpu-s");
    fflush(stdout);
    for (i = 0; i < n_ns; i++)
        rc |= in_child(run_hold, ns[i]);
    printf("\nreplay as above, with the communication's own cost "
           "(comm_ns_per_byte 0.5)\n");
    replay_header();
    comm_line = ", comm_ns_per_byte: 0.5";
    for (i = 0; i < n_ns; i++)
        rc |= in_child(run_replay, ns[i]);
    return rc;
}
