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
 * A fourth table compares, on the same homogeneous rings (overlap patent,
 * rendezvous), the max-plus fast path (hs_ringfast), the event engine
 * (hs_replay_run) and SimGrid 3.x when it is installed (a ring program
 * compiled at run time, as tests/test_simgrid_oracle.c does: one actor per
 * device doing 2(N-1) rounds of put_async, get, wait; network model CM02)
 * as chunk transfers per CPU second, for N = 256, 1024, 4096 and 10000
 * (SimGrid stops at 4096; the engine runs 10000 only with --full).  The
 * fast path and the engine must give the same step and event count
 * ("same").  SimGrid runs one ring (one step's all-reduce) under a time
 * limit (HS_BENCH_SIMGRID_S, default 120 s).
 *
 * A fifth table times clusters described as nodes (model/hs_nodes.h):
 * 1,024, 10,000 and 100,000 devices in nodes of 8 -- the load, the closed
 * form with the ring and the hierarchical all-reduce, the ring replayed
 * on the fast path (one step, every chunk), and the hierarchical replay
 * on its own fast path (hs_hierfast) and on the event engine, the engine
 * up to 10,000 devices.  A sixth table times the tree all-reduce on the
 * same clusters (overlap none, so that the step shows the all-reduce):
 * its closed form (one O(N R) pass over the cluster,
 * hs_collective_t.allreduce_all_ns), its replay on the max-plus fast path
 * (hs_treefast, one step) and on the event engine (one step, up to
 * 10,000 devices; DIFFER when their steps or event counts differ).
 *
 * Usage: bench_engine [--full] [--compare-only] [--nodes-only]
 *        [--tree-only] [N ...]
 *        (default 64 256 1024 4096; the comparison's Ns are fixed)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hs_closed.h"
#include "hs_engine.h"
#include "hs_hierfast.h"
#include "hs_replay.h"
#include "hs_ringfast.h"
#include "hs_scenario.h"
#include "hs_spawn.h"
#include "hs_treefast.h"
#include "hs_units.h"

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
    hs_replay_opts_t o;
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
    hs_replay_opts_from_scenario(s, &o);
    o.engine = 1;           /* this table measures the event engine */
    o.force = 1;            /* its sizes are chosen: no budget */
    t0 = now_s();
    c0 = cpu_s();
    if (hs_replay_run(s, &o, NULL, 0, &r, &err) != HS_OK) {
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

/* ---- fast path vs engine vs SimGrid ---- */

static int full_run = 0;     /* --full: the engine at N = 10000 too */
static char sg_bin[512];     /* the compiled SimGrid ring, "" if none */
static const char *sg_why = "not tried";

static hs_scenario_t *ring_scenario(unsigned n, uint32_t steps)
{
    char text[1024];
    hs_scenario_t *s = NULL;
    hs_error_t err;

    snprintf(text, sizeof text,
             "name: cmp-%u\n"
             "job: {model: x, dataset: {samples: %u00}, epochs: 1}\n"
             "device_types:\n"
             "  - name: gpu\n"
             "    count: %u\n"
             "    batch: 100\n"
             "    profile: {subsystem_size: 2, t_dl: 20ms, t_fwd: 30ms,\n"
             "              t_b1: 1ms, t_bwd: 60ms,\n"
             "              allreduce_bytes: 100MB}\n"
             "network: {default_bandwidth: 25Gbps, latency: 5us}\n"
             "simulate: {steps: 2, overlap: patent, send: rendezvous}\n",
             n, n, n);
    if (hs_scenario_load_text(text, strlen(text), "bench", NULL, &s,
                              &err) != HS_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return NULL;
    }
    s->sim_steps = steps;
    return s;
}

static const char sg_src[] =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <time.h>\n"
    "#include <simgrid/actor.h>\n"
    "#include <simgrid/comm.h>\n"
    "#include <simgrid/engine.h>\n"
    "#include <simgrid/host.h>\n"
    "#include <simgrid/mailbox.h>\n"
    "static int n_dev, rounds;\n"
    "static long chunk;\n"
    "static void ring_actor(int argc, char **argv)\n"
    "{\n"
    "    int i = atoi(argv[1]), r;\n"
    "    char me[32], nx[32];\n"
    "    sg_mailbox_t in, out;\n"
    "    (void)argc;\n"
    "    snprintf(me, sizeof me, \"mb%d\", i);\n"
    "    snprintf(nx, sizeof nx, \"mb%d\", (i + 1) % n_dev);\n"
    "    in = sg_mailbox_by_name(me);\n"
    "    out = sg_mailbox_by_name(nx);\n"
    "    for (r = 0; r < rounds; r++) {\n"
    "        sg_comm_t c = sg_mailbox_put_async(out, &chunk, chunk);\n"
    "        sg_mailbox_get(in);\n"
    "        sg_comm_wait(c);\n"
    "    }\n"
    "}\n"
    "static double cpu(void)\n"
    "{\n"
    "    struct timespec ts;\n"
    "    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);\n"
    "    return ts.tv_sec + ts.tv_nsec * 1e-9;\n"
    "}\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "    int i;\n"
    "    double c0, c1;\n"
    "    FILE *f;\n"
    "    simgrid_init(&argc, argv);\n"
    "    if (argc < 6)\n"
    "        return 2;\n"
    "    n_dev = atoi(argv[2]);\n"
    "    chunk = atol(argv[3]);\n"
    "    rounds = 2 * (n_dev - 1);\n"
    "    f = fopen(argv[1], \"w\");\n"
    "    fprintf(f, \"<?xml version='1.0'?>\\n<!DOCTYPE platform SYSTEM \"\n"
    "               \"\\\"https://simgrid.org/simgrid.dtd\\\">\\n\"\n"
    "               \"<platform version=\\\"4.1\\\">\\n\"\n"
    "               \"<zone id=\\\"ring\\\" routing=\\\"Full\\\">\\n\");\n"
    "    for (i = 0; i < n_dev; i++)\n"
    "        fprintf(f, \"<host id=\\\"h%d\\\" speed=\\\"1Gf\\\"/>\\n\", i);\n"
    "    for (i = 0; i < n_dev; i++)\n"
    "        fprintf(f, \"<link id=\\\"l%d\\\" bandwidth=\\\"%sBps\\\" \"\n"
    "                   \"latency=\\\"%ss\\\"/>\\n\", i, argv[4], argv[5]);\n"
    "    for (i = 0; i < n_dev; i++)\n"
    "        fprintf(f, \"<route src=\\\"h%d\\\" dst=\\\"h%d\\\" \"\n"
    "                   \"symmetrical=\\\"NO\\\"><link_ctn id=\\\"l%d\\\"/>\"\n"
    "                   \"</route>\\n\", i, (i + 1) % n_dev, i);\n"
    "    fprintf(f, \"</zone>\\n</platform>\\n\");\n"
    "    fclose(f);\n"
    "    simgrid_load_platform(argv[1]);\n"
    "    for (i = 0; i < n_dev; i++) {\n"
    "        char h[32], a[32];\n"
    "        char *av[2];\n"
    "        snprintf(h, sizeof h, \"h%d\", i);\n"
    "        snprintf(a, sizeof a, \"%d\", i);\n"
    "        av[0] = h;\n"
    "        av[1] = a;\n"
    "        sg_actor_create(h, sg_host_by_name(h), ring_actor, 2, av);\n"
    "    }\n"
    "    c0 = cpu();\n"
    "    simgrid_run();\n"
    "    c1 = cpu();\n"
    "    printf(\"%.9f %.6f\\n\", simgrid_get_clock(), c1 - c0);\n"
    "    return 0;\n"
    "}\n";

/* Compiles the SimGrid ring once; sg_bin stays "" (sg_why says why) when
   SimGrid or a compiler is missing. */
static void build_simgrid(void)
{
    char dir[] = "/tmp/hs-bench-sg-XXXXXX", src[600], cmd[2048];
    char *argv[4];
    hs_child_t c;
    hs_error_t err;
    FILE *f;

    sg_bin[0] = '\0';
    if (mkdtemp(dir) == NULL) {
        sg_why = "no temporary directory";
        return;
    }
    snprintf(src, sizeof src, "%s/ring.c", dir);
    f = fopen(src, "w");
    if (f == NULL) {
        sg_why = "cannot write the program";
        return;
    }
    fputs(sg_src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "pkg-config --exists simgrid || exit 3; "
             "cc -O2 -o '%s/ring' '%s' $(pkg-config --cflags --libs simgrid)",
             dir, src);
    argv[0] = "sh";
    argv[1] = "-c";
    argv[2] = cmd;
    argv[3] = NULL;
    if (hs_spawn(argv, NULL, 0, NULL, NULL, &c, &err) != HS_OK) {
        sg_why = "cannot run sh";
        return;
    }
    hs_child_wait_all(&c, 1, hs_now_ns() + INT64_C(120000000000), 0);
    hs_child_kill(&c, 0);
    if (c.status == 3)
        sg_why = "SimGrid is not installed (Debian: libsimgrid-dev)";
    else if (c.status != 0)
        sg_why = "the SimGrid program did not compile";
    else
        snprintf(sg_bin, sizeof sg_bin, "%s/ring", dir);
}

/* SimGrid: one ring of n; its CPU seconds (or -1) and simulated ring time
   (ns) into *ring_ns. */
static double run_simgrid(unsigned n, double bw, int64_t lat_ns,
                          double chunk, int64_t *ring_ns)
{
    char plat[600], outp[600], nb[16], cb[32], bb[40], lb[40];
    char *argv[12];
    const char *lim = getenv("HS_BENCH_SIMGRID_S");
    double limit_s = lim != NULL ? atof(lim) : 120.0, sim = 0, cpu = -1;
    hs_child_t c;
    hs_error_t err;
    char *out;

    snprintf(plat, sizeof plat, "%s.%u.xml", sg_bin, n);
    snprintf(outp, sizeof outp, "%s.%u.out", sg_bin, n);
    remove(outp);
    snprintf(nb, sizeof nb, "%u", n);
    snprintf(cb, sizeof cb, "%.0f", chunk);
    snprintf(bb, sizeof bb, "%.17g", bw);
    snprintf(lb, sizeof lb, "%.9f", (double)lat_ns * 1e-9);
    argv[0] = sg_bin;
    argv[1] = plat;
    argv[2] = nb;
    argv[3] = cb;
    argv[4] = bb;
    argv[5] = lb;
    argv[6] = "--cfg=network/model:CM02";
    argv[7] = "--cfg=network/crosstraffic:0";
    argv[8] = "--cfg=network/TCP-gamma:1e18";
    argv[9] = "--log=root.thres:critical";
    argv[10] = NULL;
    if (hs_spawn(argv, NULL, 0, outp, NULL, &c, &err) != HS_OK)
        return -1;
    if (hs_child_wait_all(&c, 1, hs_now_ns() + (int64_t)(limit_s * 1e9),
                          0) > 0) {
        hs_child_kill(&c, 1000000000);
        return -2;
    }
    out = hs_read_small_file(outp, 4096);
    if (c.status == 0 && out != NULL && sscanf(out, "%lf %lf", &sim, &cpu) == 2)
        *ring_ns = llround(sim * 1e9);
    else
        cpu = -1;
    free(out);
    remove(outp);
    remove(plat);
    return cpu;
}

/* One line of the comparison for n devices (in its own process). */
static int run_compare(unsigned n)
{
    hs_scenario_t *s;
    hs_replay_opts_t o, eo;
    hs_replay_result_t *rf = NULL, *re = NULL;
    hs_error_t err;
    uint32_t fast_steps = 10, eng_steps = n >= 4096 ? 1 : 2;
    double c0, fast_cpu, eng_cpu = -1, sg_cpu = -3, xfers, fast_x, eng_x = 0;
    double sg_x = 0;
    int64_t sg_ring_ns = 0, hs_ring_ns = 0;
    char same[8] = "-", eng[32] = "-", sg[48] = "-", r1[16] = "-";
    char r2[16] = "-";

    /* the fast path */
    if ((s = ring_scenario(n, fast_steps)) == NULL)
        return 1;
    hs_replay_opts_from_scenario(s, &o);
    c0 = cpu_s();
    if (hs_ringfast_run(s, &o, &rf, &err) != HS_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        hs_scenario_free(s);
        return 1;
    }
    fast_cpu = cpu_s() - c0;
    xfers = (double)n * 2.0 * (n - 1);
    fast_x = xfers * fast_steps / fast_cpu;
    hs_scenario_free(s);

    /* the event engine, fewer steps, and the fast path on the same */
    if (n < 10000 || full_run) {
        hs_replay_result_t *rf2 = NULL;
        if ((s = ring_scenario(n, eng_steps)) == NULL)
            return 1;
        hs_replay_opts_from_scenario(s, &o);
        eo = o;
        eo.engine = 1;
        eo.force = 1;
        c0 = cpu_s();
        if (hs_replay_run(s, &eo, NULL, 0, &re, &err) != HS_OK) {
            fprintf(stderr, "bench: %s\n", err.msg);
            hs_scenario_free(s);
            return 1;
        }
        eng_cpu = cpu_s() - c0;
        eng_x = xfers * eng_steps / eng_cpu;
        if (hs_ringfast_run(s, &o, &rf2, &err) == HS_OK)
            snprintf(same, sizeof same, "%s",
                     rf2->step_ns == re->step_ns &&
                     rf2->first_step_ns == re->first_step_ns &&
                     rf2->n_events == re->n_events &&
                     rf2->end_ns == re->end_ns ? "yes" : "NO");
        snprintf(eng, sizeof eng, "%.2f", eng_x / 1e6);
        snprintf(r1, sizeof r1, "%.0f", fast_x / eng_x);
        hs_replay_result_free(rf2);
        hs_scenario_free(s);
    }

    /* SimGrid: one ring, everyone opening at once */
    if (sg_bin[0] != '\0' && n <= 4096) {
        if ((s = ring_scenario(n, 2)) == NULL)
            return 1;
        sg_cpu = run_simgrid(n, s->ring_bw_bytes_per_s[0], s->ring_lat_ns[0],
                             hs_profile_payload_bytes(&s->types[0].profile) /
                                 n,
                             &sg_ring_ns);
        hs_ring_ns = (int64_t)(2 * ((int64_t)n - 1)) *
                     (s->ring_lat_ns[0] +
                      hs_xfer_ns(hs_profile_payload_bytes(
                                     &s->types[0].profile) / n,
                                 s->ring_bw_bytes_per_s[0]));
        hs_scenario_free(s);
    }
    if (sg_cpu > 0) {
        sg_x = xfers / sg_cpu;
        snprintf(sg, sizeof sg, "%.3f (ring %+.0f ns)", sg_x / 1e6,
                 (double)(sg_ring_ns - hs_ring_ns));
        snprintf(r2, sizeof r2, "%.0f", fast_x / sg_x);
    } else if (sg_cpu == -2) {
        snprintf(sg, sizeof sg, "over the time limit");
    } else if (sg_bin[0] != '\0' && n <= 4096) {
        snprintf(sg, sizeof sg, "failed");
    }
    printf("%6u %10.3f %12.2f %12s %9s %24s %9s %8s %10.3f\n", n, fast_cpu,
           fast_x / 1e6, eng, r1, sg, r2, same, (double)rf->step_ns / 1e6);
    if (eng_cpu > 0 && sg_x > 0)
        printf("%6s engine / SimGrid: %.0f x\n", "", eng_x / sg_x);
    fflush(stdout);
    hs_replay_result_free(rf);
    hs_replay_result_free(re);
    return 0;
}

static int compare_all(void)
{
    static const unsigned ns[4] = {256, 1024, 4096, 10000};
    int i, rc = 0;

    build_simgrid();
    printf("\nthe same rings three ways (overlap patent, rendezvous): "
           "million chunk transfers per CPU second\n"
           "fast path: 10 steps; engine: 2 steps (1 at N >= 4096); "
           "SimGrid: one ring, CM02%s%s\n",
           sg_bin[0] ? "" : "; SimGrid skipped: ", sg_bin[0] ? "" : sg_why);
    printf("%6s %10s %12s %12s %9s %24s %9s %8s %10s\n", "N", "fast cpu s",
           "fast Mx/s", "engine Mx/s", "fast/eng", "SimGrid Mx/s",
           "fast/SG", "same", "step ms");
    fflush(stdout);
    for (i = 0; i < 4; i++)
        rc |= in_child(run_compare, ns[i]);
    return rc;
}

/* ---- clusters of nodes (model/hs_nodes.h) ---- */

/* n devices in n / 8 nodes of 8: NVLink-like inside, 4 x 25 GB/s NICs,
   a 25 GB/s fabric. */
static hs_scenario_t *nodes_scenario(unsigned n, uint32_t steps,
                                     const char *coll, double *load_cpu)
{
    char text[1536];
    hs_scenario_t *s = NULL;
    hs_error_t err;
    double c0;

    snprintf(text, sizeof text,
             "name: nodes-%u\n"
             "job: {model: x, dataset: {samples: %u00}, epochs: 1}\n"
             "device_types:\n"
             "  - name: gpu\n"
             "    batch: 100\n"
             "    profile: {subsystem_size: 2, t_dl: 20ms, t_fwd: 30ms,\n"
             "              t_b1: 1ms, t_bwd: 60ms,\n"
             "              allreduce_bytes: 100MB}\n"
             "nodes:\n"
             "  kinds:\n"
             "    - {name: box, type: gpu, devices: 8, count: %u,\n"
             "       intra_bandwidth: 300GB/s, intra_latency: 2us,\n"
             "       nics: 4, nic_bandwidth: 25GB/s}\n"
             "  inter_bandwidth: 25GB/s\n"
             "  inter_latency: 5us\n"
             "collective: %s\n"
             "simulate: {steps: 2, overlap: patent, send: rendezvous}\n",
             n, n, n / 8, coll);
    c0 = cpu_s();
    if (hs_scenario_load_text(text, strlen(text), "bench", NULL, &s,
                              &err) != HS_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return NULL;
    }
    if (load_cpu != NULL)
        *load_cpu = cpu_s() - c0;
    s->sim_steps = steps;
    return s;
}

/*
 * One row: load, the closed form with each collective, the ring replayed
 * on the fast path (1 step; every chunk), and the hierarchical replay on
 * its fast path and on the event engine where it fits in a bench: up to
 * N = 10,000, one step.
 */
static int run_nodes(unsigned n)
{
    hs_scenario_t *s;
    hs_prediction_t *p = NULL;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    double load_cpu = 0, pr_cpu, ph_cpu, c0, fast_cpu, eng_cpu = -1;
    double hfast_cpu;
    int64_t step_fast;
    double xr, xh;
    int64_t R;
    char eng[48] = "-";

    if ((s = nodes_scenario(n, 1, "ring", &load_cpu)) == NULL)
        return 1;
    c0 = cpu_s();
    if (hs_closed_predict(s, &p, &err) != HS_OK)
        goto fail;
    pr_cpu = cpu_s() - c0;
    hs_prediction_free(p);
    p = NULL;
    hs_replay_opts_from_scenario(s, &o);
    c0 = cpu_s();
    if (hs_ringfast_run(s, &o, &r, &err) != HS_OK)
        goto fail;
    fast_cpu = cpu_s() - c0;
    xr = (double)n * 2.0 * (n - 1);
    hs_replay_result_free(r);
    r = NULL;
    if (hs_scenario_set(s, "collective", "hierarchical", &err) != HS_OK ||
        hs_scenario_resolve(s, &err) != HS_OK)
        goto fail;
    c0 = cpu_s();
    if (hs_closed_predict(s, &p, &err) != HS_OK)
        goto fail;
    ph_cpu = cpu_s() - c0;
    hs_prediction_free(p);
    p = NULL;
    R = 2 * (8 - 1) + 2 * ((int64_t)n / 8 - 1);
    xh = (double)n * (double)R;
    hs_replay_opts_from_scenario(s, &o);
    o.force = 1;
    c0 = cpu_s();
    if (hs_hierfast_run(s, &o, &r, &err) != HS_OK)
        goto fail;
    hfast_cpu = cpu_s() - c0;
    step_fast = r->first_step_ns;
    hs_replay_result_free(r);
    r = NULL;
    if (n <= 10000) {
        o.engine = 1;
        c0 = cpu_s();
        if (hs_replay_run(s, &o, NULL, 0, &r, &err) != HS_OK)
            goto fail;
        eng_cpu = cpu_s() - c0;
        snprintf(eng, sizeof eng, "%.3f s, %.2f Mx/s%s", eng_cpu,
                 xh / eng_cpu / 1e6,
                 r->first_step_ns == step_fast ? "" : " DIFFER");
        hs_replay_result_free(r);
        r = NULL;
    }
    printf("%7u %6u %8.3f %10.3f %10.3f %10.3f %10.0f %10.3f %24s %14.0f\n",
           n, n / 8, load_cpu, pr_cpu, ph_cpu, fast_cpu, xr / fast_cpu / 1e6,
           hfast_cpu, eng, xh);
    fflush(stdout);
    hs_scenario_free(s);
    return 0;
fail:
    fprintf(stderr, "bench: nodes %u: %s\n", n, err.msg);
    hs_prediction_free(p);
    hs_replay_result_free(r);
    hs_scenario_free(s);
    return 1;
}

static int nodes_all(void)
{
    static const unsigned ns[3] = {1024, 10000, 100000};
    int i, rc = 0;

    printf("\nclusters of nodes (8 devices per node, NCCL ring order; "
           "CPU seconds, one core): load, predict\n"
           "(closed form) ring and hierarchical, the ring replayed on the "
           "fast path (1 step, every chunk),\n"
           "the hierarchical replay on its fast path (hs_hierfast, 1 step) "
           "and on the event engine\n(1 step, N <= 10,000; DIFFER when "
           "their steps differ)\n");
    printf("%7s %6s %8s %10s %10s %10s %10s %10s %24s %14s\n", "N", "nodes",
           "load s", "pred ring", "pred hier", "fast s", "fast Mx/s",
           "hfast s", "hier engine", "hier chunks");
    fflush(stdout);
    for (i = 0; i < 3; i++)
        rc |= in_child(run_nodes, ns[i]);
    return rc;
}

/*
 * One row of the tree table: the closed form, the fast path and (N <=
 * 10,000) the event engine, one step each.
 */
static int run_tree(unsigned n)
{
    hs_scenario_t *s;
    hs_prediction_t *p = NULL;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    double pr_cpu, fast_cpu, c0;
    int64_t step_fast, t_ar;
    uint64_t ev_fast;
    char eng[48] = "-";

    if ((s = nodes_scenario(n, 1, "tree", NULL)) == NULL)
        return 1;
    s->overlap = HS_OVERLAP_NONE;   /* the step shows the all-reduce */
    c0 = cpu_s();
    if (hs_closed_predict(s, &p, &err) != HS_OK)
        goto fail;
    pr_cpu = cpu_s() - c0;
    t_ar = p->types[0].t_ar_max_ns;
    hs_prediction_free(p);
    p = NULL;
    hs_replay_opts_from_scenario(s, &o);
    o.force = 1;
    c0 = cpu_s();
    if (hs_treefast_run(s, &o, &r, &err) != HS_OK)
        goto fail;
    fast_cpu = cpu_s() - c0;
    step_fast = r->first_step_ns;
    ev_fast = r->n_events;
    hs_replay_result_free(r);
    r = NULL;
    if (n <= 10000) {
        double eng_cpu;
        o.engine = 1;
        c0 = cpu_s();
        if (hs_replay_run(s, &o, NULL, 0, &r, &err) != HS_OK)
            goto fail;
        eng_cpu = cpu_s() - c0;
        snprintf(eng, sizeof eng, "%.3f s%s", eng_cpu,
                 r->first_step_ns == step_fast && r->n_events == ev_fast
                     ? "" : " DIFFER");
        hs_replay_result_free(r);
        r = NULL;
    }
    printf("%7u %6u %10.3f %10.3f %18s %12llu %10.3f %10.3f\n", n, n / 8,
           pr_cpu, fast_cpu, eng, (unsigned long long)ev_fast,
           (double)t_ar / 1e6, (double)step_fast / 1e6);
    fflush(stdout);
    hs_scenario_free(s);
    return 0;
fail:
    fprintf(stderr, "bench: tree %u: %s\n", n, err.msg);
    hs_prediction_free(p);
    hs_replay_result_free(r);
    hs_scenario_free(s);
    return 1;
}

static int tree_all(void)
{
    static const unsigned ns[3] = {1024, 10000, 100000};
    int i, rc = 0;

    printf("\nthe tree all-reduce on the same clusters (8 chunks per tree, "
           "65 rounds, overlap none; CPU seconds, one core):\npredict (closed form, one "
           "pass), the replay on its fast path (hs_treefast, 1 step) and "
           "on the\nevent engine (1 step, N <= 10,000; DIFFER when the "
           "step or the event count differs);\nT_ar: the closed form's slowest "
           "all-reduce, step: the replayed one\n");
    printf("%7s %6s %10s %10s %18s %12s %10s %10s\n", "N", "nodes",
           "pred tree", "tfast s", "tree engine", "events", "T_ar ms",
           "step ms");
    fflush(stdout);
    for (i = 0; i < 3; i++)
        rc |= in_child(run_tree, ns[i]);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned ns[16] = {64, 256, 1024, 4096};
    int n_ns = 4, i, rc = 0, only_cmp = 0, only_nodes = 0, given = 0;
    int only_tree = 0;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--full") == 0) {
            full_run = 1;
        } else if (strcmp(argv[i], "--compare-only") == 0) {
            only_cmp = 1;
        } else if (strcmp(argv[i], "--nodes-only") == 0) {
            only_nodes = 1;
        } else if (strcmp(argv[i], "--tree-only") == 0) {
            only_tree = 1;
        } else if (given < 16) {
            ns[given++] = (unsigned)strtoul(argv[i], NULL, 10);
            n_ns = given;
        }
    }
    if (only_cmp)
        return compare_all();
    if (only_tree)
        return tree_all();
    if (only_nodes)
        return nodes_all() | tree_all();
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
    rc |= compare_all();
    rc |= nodes_all();
    rc |= tree_all();
    return rc;
}
