/*
 * test_simgrid_oracle.c -- SimGrid as an independent oracle for the
 * rendezvous ring replay (METHOD.md, "Cross-checks").
 *
 * The test writes a small SimGrid program (C API: one host per device, one
 * link per ring edge, each device an actor that sleeps until its ring
 * opens, then does 2(N-1) rounds of put_async to the next device's mailbox,
 * get from its own, wait for the put), compiles it against the installed
 * libsimgrid (Debian libsimgrid-dev; pkg-config simgrid), and runs it with
 * the plain bandwidth/latency model (network/model:CM02, no cross traffic,
 * no TCP window bound), where a transfer takes latency + bytes/bandwidth
 * and starts when both the put and the get are posted: a rendezvous ring.
 * Each device's ring-done time must equal the end of its step 0 in the
 * replay (no backward rest, no optimizer, data loading hidden), within
 * 1 us.  The hierarchical all-reduce (sim/hs_coll_hier.c) has a program of
 * its own (one mailbox per device and phase) and is checked the same way
 * on random clusters of nodes.  Where SimGrid is not installed the test says so and skips;
 * where it is installed but the program does not build, it fails.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_nodes.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"

static const char oracle_src[] =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <simgrid/actor.h>\n"
    "#include <simgrid/comm.h>\n"
    "#include <simgrid/engine.h>\n"
    "#include <simgrid/host.h>\n"
    "#include <simgrid/mailbox.h>\n"
    "static int n_dev, rounds;\n"
    "static long chunk;\n"
    "static double *ready, *done;\n"
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
    "    sg_actor_sleep_until(ready[i]);\n"
    "    for (r = 0; r < rounds; r++) {\n"
    "        sg_comm_t c = sg_mailbox_put_async(out, &chunk, chunk);\n"
    "        sg_mailbox_get(in);\n"
    "        sg_comm_wait(c);\n"
    "    }\n"
    "    done[i] = simgrid_get_clock();\n"
    "}\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "    int i;\n"
    "    simgrid_init(&argc, argv);\n"
    "    if (argc < 5)\n"
    "        return 2;\n"
    "    n_dev = atoi(argv[2]);\n"
    "    rounds = atoi(argv[3]);\n"
    "    chunk = atol(argv[4]);\n"
    "    if (argc < 5 + n_dev)\n"
    "        return 2;\n"
    "    ready = calloc(n_dev, sizeof *ready);\n"
    "    done = calloc(n_dev, sizeof *done);\n"
    "    for (i = 0; i < n_dev; i++)\n"
    "        ready[i] = atof(argv[5 + i]);\n"
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
    "    simgrid_run();\n"
    "    for (i = 0; i < n_dev; i++)\n"
    "        printf(\"%d %.12f\\n\", i, done[i]);\n"
    "    return 0;\n"
    "}\n";

/* The hierarchical all-reduce (sim/hs_coll_hier.c): device i = n L + j;
   rounds 0..L-2 to the next local rank (chunk cin), then 2(K-1) to the
   same local rank of the next node (chunk cout), then L-1 in the node
   again.  One mailbox per device and phase, so a get only matches the
   puts of its own phase (one sender per phase, in round order). */
static const char oracle_hier_src[] =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <simgrid/actor.h>\n"
    "#include <simgrid/comm.h>\n"
    "#include <simgrid/engine.h>\n"
    "#include <simgrid/host.h>\n"
    "#include <simgrid/mailbox.h>\n"
    "static int n_dev, L, K;\n"
    "static long cin, cout;\n"
    "static double *ready, *done;\n"
    "static void hier_actor(int argc, char **argv)\n"
    "{\n"
    "    int i = atoi(argv[1]), n = i / L, j = i % L, r;\n"
    "    int A = L - 1, B = 2 * (K - 1);\n"
    "    (void)argc;\n"
    "    sg_actor_sleep_until(ready[i]);\n"
    "    for (r = 0; r < 2 * A + B; r++) {\n"
    "        int ph = r < A ? 0 : r < A + B ? 1 : 2, to;\n"
    "        long sz;\n"
    "        char mo[48], mi[48];\n"
    "        sg_comm_t c;\n"
    "        if (ph == 1) {\n"
    "            to = ((n + 1) % K) * L + j;\n"
    "            sz = cout;\n"
    "        } else {\n"
    "            to = n * L + (j + 1) % L;\n"
    "            sz = cin;\n"
    "        }\n"
    "        snprintf(mo, sizeof mo, \"mb%d_%d\", to, ph);\n"
    "        snprintf(mi, sizeof mi, \"mb%d_%d\", i, ph);\n"
    "        c = sg_mailbox_put_async(sg_mailbox_by_name(mo), &cin, sz);\n"
    "        sg_mailbox_get(sg_mailbox_by_name(mi));\n"
    "        sg_comm_wait(c);\n"
    "    }\n"
    "    done[i] = simgrid_get_clock();\n"
    "}\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "    int i;\n"
    "    simgrid_init(&argc, argv);\n"
    "    if (argc < 7)\n"
    "        return 2;\n"
    "    L = atoi(argv[2]);\n"
    "    K = atoi(argv[3]);\n"
    "    n_dev = L * K;\n"
    "    cin = atol(argv[4]);\n"
    "    cout = atol(argv[5]);\n"
    "    if (argc < 6 + n_dev)\n"
    "        return 2;\n"
    "    ready = calloc(n_dev, sizeof *ready);\n"
    "    done = calloc(n_dev, sizeof *done);\n"
    "    for (i = 0; i < n_dev; i++)\n"
    "        ready[i] = atof(argv[6 + i]);\n"
    "    simgrid_load_platform(argv[1]);\n"
    "    for (i = 0; i < n_dev; i++) {\n"
    "        char h[32], a[32];\n"
    "        char *av[2];\n"
    "        snprintf(h, sizeof h, \"h%d\", i);\n"
    "        snprintf(a, sizeof a, \"%d\", i);\n"
    "        av[0] = h;\n"
    "        av[1] = a;\n"
    "        sg_actor_create(h, sg_host_by_name(h), hier_actor, 2, av);\n"
    "    }\n"
    "    simgrid_run();\n"
    "    for (i = 0; i < n_dev; i++)\n"
    "        printf(\"%d %.12f\\n\", i, done[i]);\n"
    "    return 0;\n"
    "}\n";

static char oracle_bin[4200];
static char oracle_hier_bin[4200];
static char work_dir[4096];
/* -1 not tried, 0 SimGrid absent (skip), 1 built, 2 SimGrid installed but
   the program could not be built (every test fails) */
static int have_oracle = -1;
static char oracle_why[8192];

/*
 * Builds the oracle program once.  SimGrid counts as installed when
 * Debian's libsimgrid-dev is, or its header simgrid/engine.h is under
 * /usr/include or /usr/local/include, or pkg-config knows simgrid; then a
 * program that does not build is a failure (a broken toolchain or an API
 * change must not pass as "skipped").  Only a machine without SimGrid
 * skips.  The compiler is $CC, else cc.
 */
static int build_oracle(void)
{
    char src[4200], cmd[18000];
    char *argv[4];
    hs_run_t r;
    FILE *f;

    if (have_oracle >= 0)
        goto out;
    have_oracle = 2;
    snprintf(work_dir, sizeof work_dir, "%s", hs_test_tmpdir("simgrid"));
    snprintf(src, sizeof src, "%s/oracle.c", work_dir);
    snprintf(oracle_bin, sizeof oracle_bin, "%s/oracle", work_dir);
    f = fopen(src, "w");
    if (f == NULL) {
        snprintf(oracle_why, sizeof oracle_why, "cannot write %s", src);
        goto out;
    }
    fputs(oracle_src, f);
    fclose(f);
    snprintf(src, sizeof src, "%s/oracle_hier.c", work_dir);
    snprintf(oracle_hier_bin, sizeof oracle_hier_bin, "%s/oracle_hier",
             work_dir);
    f = fopen(src, "w");
    if (f == NULL) {
        snprintf(oracle_why, sizeof oracle_why, "cannot write %s", src);
        goto out;
    }
    fputs(oracle_hier_src, f);
    fclose(f);
    snprintf(src, sizeof src, "%s/oracle.c", work_dir);
    snprintf(cmd, sizeof cmd,
             "if ! dpkg-query -W -f='${Status}' libsimgrid-dev 2>/dev/null "
             "| grep -q 'ok installed' && "
             "[ ! -e /usr/include/simgrid/engine.h ] && "
             "[ ! -e /usr/local/include/simgrid/engine.h ] && "
             "! pkg-config --exists simgrid 2>/dev/null; then exit 3; fi; "
             "flags=$(pkg-config --cflags --libs simgrid) || "
             "{ echo 'pkg-config does not know simgrid' >&2; exit 4; }; "
             "${CC:-cc} -O1 -o '%s' '%s' $flags && "
             "${CC:-cc} -O1 -o '%s' '%s/oracle_hier.c' $flags",
             oracle_bin, src, oracle_hier_bin, work_dir);
    argv[0] = "/bin/sh";
    argv[1] = "-c";
    argv[2] = cmd;
    argv[3] = NULL;
    if (hs_run(argv, &r) != 0) {
        snprintf(oracle_why, sizeof oracle_why, "cannot run /bin/sh");
        goto out;
    }
    if (r.status == 3) {
        have_oracle = 0;
    } else if (r.status == 0) {
        have_oracle = 1;
    } else {
        snprintf(oracle_why, sizeof oracle_why,
                 "SimGrid is installed but the oracle program did not build "
                 "(exit %d):\n%s", r.status, r.err ? r.err : "");
    }
    hs_run_free(&r);
out:
    if (have_oracle == 0)
        hs_test_skip("simgrid oracle", "SimGrid is not installed (no "
                     "libsimgrid-dev, no simgrid/engine.h, pkg-config does "
                     "not know simgrid)");
    if (have_oracle == 2) {
        fprintf(stderr, "\nsimgrid oracle: %s\n", oracle_why);
        CU_FAIL("SimGrid is installed but the oracle cannot be built");
    }
    return have_oracle == 1;
}

/* the replay's step 0 of every device: ring opening and end */
typedef struct cap_s {
    size_t n;
    int64_t open_ns[64];
    int64_t end_ns[64];
} cap_t;

static hs_err_t cap_write(void *ctx, const hs_interval_t *iv, size_t n,
                          hs_error_t *err)
{
    cap_t *c = ctx;
    size_t i;

    (void)err;
    for (i = 0; i < n; i++)
        if (iv[i].step == 0 && iv[i].phase == HS_PH_BACKWARD_FIRST &&
            iv[i].device < 64)
            c->open_ns[iv[i].device] = iv[i].end_ns;
    return HS_OK;
}

static hs_err_t cap_steps(void *ctx, const hs_step_rec_t *rec, size_t n,
                          hs_error_t *err)
{
    cap_t *c = ctx;
    size_t i;

    (void)err;
    for (i = 0; i < n; i++)
        if (rec[i].step == 0 && rec[i].device < 64)
            c->end_ns[rec[i].device] = rec[i].end_ns;
    return HS_OK;
}

/* Runs scenario text through the replay and SimGrid; compares. */
static void compare(const char *name, const char *text)
{
    hs_scenario_t *s = NULL;
    hs_replay_result_t *res = NULL;
    hs_trace_sink_t sink;
    hs_error_t err;
    cap_t cap;
    char plat[4200], nbuf[16], rbuf[16], cbuf[32];
    char ready[64][32];
    char *argv[80];
    hs_run_t run;
    FILE *f;
    size_t i, n, bad = 0, seen = 0;
    double chunk;
    const char *p;

    memset(&cap, 0, sizeof cap);
    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(text, strlen(text), name,
                                                NULL, &s, &err), HS_OK);
    n = s->n_devices;
    CU_ASSERT_FATAL(n <= 64);
    s->send = HS_SEND_RENDEZVOUS;
    s->overlap = HS_OVERLAP_PATENT;
    sink.ctx = &cap;
    sink.write = cap_write;
    sink.steps = cap_steps;
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, NULL, &sink, 1, &res, &err), HS_OK);

    /* the platform: host i = device at ring position i */
    snprintf(plat, sizeof plat, "%s/%s.xml", work_dir, name);
    f = fopen(plat, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "<?xml version='1.0'?>\n"
               "<!DOCTYPE platform SYSTEM "
               "\"https://simgrid.org/simgrid.dtd\">\n"
               "<platform version=\"4.1\">\n"
               "<zone id=\"ring\" routing=\"Full\">\n");
    for (i = 0; i < n; i++)
        fprintf(f, "<host id=\"h%zu\" speed=\"1Gf\"/>\n", i);
    for (i = 0; i < n; i++)
        fprintf(f, "<link id=\"l%zu\" bandwidth=\"%.17gBps\" "
                   "latency=\"%.9fs\"/>\n",
                i, s->ring_bw_bytes_per_s[i],
                (double)s->ring_lat_ns[i] * 1e-9);
    for (i = 0; i < n; i++)
        fprintf(f, "<route src=\"h%zu\" dst=\"h%zu\" symmetrical=\"NO\">"
                   "<link_ctn id=\"l%zu\"/></route>\n",
                i, (i + 1) % n, i);
    fprintf(f, "</zone>\n</platform>\n");
    fclose(f);

    chunk = hs_profile_payload_bytes(&s->types[0].profile) / (double)n;
    CU_ASSERT_FATAL(fabs(chunk - floor(chunk)) < 1e-9);
    snprintf(nbuf, sizeof nbuf, "%zu", n);
    snprintf(rbuf, sizeof rbuf, "%zu", 2 * (n - 1));
    snprintf(cbuf, sizeof cbuf, "%.0f", chunk);
    argv[0] = oracle_bin;
    argv[1] = plat;
    argv[2] = nbuf;
    argv[3] = rbuf;
    argv[4] = cbuf;
    for (i = 0; i < n; i++) {
        snprintf(ready[i], sizeof ready[i], "%.9f",
                 (double)cap.open_ns[s->ring[i]] * 1e-9);
        argv[5 + i] = ready[i];
    }
    argv[5 + n] = "--cfg=network/model:CM02";
    argv[6 + n] = "--cfg=network/crosstraffic:0";
    argv[7 + n] = "--cfg=network/TCP-gamma:1e18";
    argv[8 + n] = "--log=root.thres:critical";
    argv[9 + n] = NULL;
    CU_ASSERT_EQUAL_FATAL(hs_run(argv, &run), 0);
    HS_ASSERT_I64_EQ(run.status, 0);
    for (p = run.out; p != NULL && *p != '\0';) {
        int k;
        double t;
        if (sscanf(p, "%d %lf", &k, &t) == 2 && k >= 0 && (size_t)k < n) {
            int64_t sg_ns = llround(t * 1e9);
            int64_t hs_ns = cap.end_ns[s->ring[k]];
            seen++;
            if (llabs(sg_ns - hs_ns) > 1000) {
                fprintf(stderr, "\n%s: device %s: SimGrid %lld ns, replay "
                                "%lld ns\n",
                        name, s->devices[s->ring[k]].name,
                        (long long)sg_ns, (long long)hs_ns);
                bad++;
            }
        }
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    HS_ASSERT_I64_EQ(seen, n);
    HS_ASSERT_I64_EQ(bad, 0);
    hs_run_free(&run);
    hs_replay_result_free(res);
    hs_scenario_free(s);
}

static void test_divergent(void)
{
    FILE *f;
    char *text;
    long len;

    if (!build_oracle())
        return;
    f = fopen(HS_TEST_SRC "/scenarios/validate-divergent.yaml", "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = calloc(1, (size_t)len + 1);
    CU_ASSERT_EQUAL(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    compare("divergent", text);
    free(text);
}

static uint64_t next_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Random heterogeneous rings: bandwidths, latencies, ring-opening times. */
static void test_random_rings(void)
{
    static const char *const bws[4] = {"1GB/s", "2.5GB/s", "10GB/s",
                                       "40Gbps"};
    uint64_t rng = 12345;
    int round;

    if (!build_oracle())
        return;
    for (round = 0; round < 5; round++) {
        char text[8192], name[32];
        size_t len = 0, i, n = 3 + (size_t)round * 2;
        len += (size_t)snprintf(
            text + len, sizeof text - len,
            "name: rnd\n"
            "job: {model: x, dataset: {samples: 100000}, epochs: 1}\n"
            "device_types:\n"
            "  - name: gpu\n"
            "    count: %zu\n"
            "    batch: 100\n"
            "    profile: {subsystem_size: 2, t_dl: 1ms, t_fwd: 10ms,\n"
            "              t_b1: 1ms, allreduce_bytes: %zuB}\n"
            "devices:\n",
            n, n * 3000000);
        for (i = 0; i < n; i++) {
            unsigned long long extra_us = next_rand(&rng) % 20000;
            len += (size_t)snprintf(
                text + len, sizeof text - len,
                "  - {name: d%zu, type: gpu, addr: 198.18.1.%zu, "
                "extra_compute: %lluus}\n",
                i, i + 1, extra_us);
        }
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "network:\n  default_bandwidth: 10GB/s\n"
                                "  latency: 0s\n  links:\n");
        for (i = 0; i < n; i++) {
            const char *bw = bws[next_rand(&rng) % 4];
            unsigned long long lat_us = next_rand(&rng) % 50;
            len += (size_t)snprintf(text + len, sizeof text - len,
                                    "    - [d%zu, d%zu, %s, %lluus]\n", i,
                                    (i + 1) % n, bw, lat_us);
        }
        snprintf(name, sizeof name, "random%d", round);
        compare(name, text);
    }
}

/*
 * The hierarchical all-reduce on scenario text (nodes of equal size,
 * collective: hierarchical), devices late by extra[i] ms: the replay's
 * step 0 end of every device against the SimGrid program above, one
 * link per device and phase kind (intra-node N + x, inter-node 2N + x,
 * the scenario's own edge arrays, hs_nodes.h).
 */
static void compare_hier(const char *name, const char *text,
                         const unsigned *extra_us)
{
    hs_scenario_t *s = NULL;
    hs_replay_result_t *res = NULL;
    hs_trace_sink_t sink;
    hs_error_t err;
    cap_t cap;
    char plat[4200], lbuf[24], kbuf[24], cin[32], cout[32];
    char ready[64][32];
    char *argv[80];
    hs_run_t run;
    FILE *f;
    size_t i, n, L, K, bad = 0, seen = 0;
    double m;
    const char *p;

    memset(&cap, 0, sizeof cap);
    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(text, strlen(text), name,
                                                NULL, &s, &err), HS_OK);
    n = s->n_devices;
    CU_ASSERT_FATAL(n <= 64);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->nodes);
    for (i = 0; i < n; i++) {
        char key[96], val[32];
        snprintf(key, sizeof key, "devices.%s.extra_compute",
                 s->devices[i].name);
        snprintf(val, sizeof val, "%uus", extra_us[i]);
        CU_ASSERT_EQUAL_FATAL(hs_scenario_set(s, key, val, &err), HS_OK);
    }
    CU_ASSERT_EQUAL_FATAL(hs_scenario_resolve(s, &err), HS_OK);
    L = s->nodes->local;
    CU_ASSERT_FATAL(L >= 1);
    K = n / L;
    s->send = HS_SEND_RENDEZVOUS;
    s->overlap = HS_OVERLAP_PATENT;
    sink.ctx = &cap;
    sink.write = cap_write;
    sink.steps = cap_steps;
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, NULL, &sink, 1, &res, &err), HS_OK);
    CU_ASSERT_STRING_EQUAL(res->collective, "hierarchical");

    snprintf(plat, sizeof plat, "%s/%s.xml", work_dir, name);
    f = fopen(plat, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "<?xml version='1.0'?>\n"
               "<!DOCTYPE platform SYSTEM "
               "\"https://simgrid.org/simgrid.dtd\">\n"
               "<platform version=\"4.1\">\n"
               "<zone id=\"nodes\" routing=\"Full\">\n");
    for (i = 0; i < n; i++)
        fprintf(f, "<host id=\"h%zu\" speed=\"1Gf\"/>\n", i);
    for (i = 0; i < n; i++) {
        if (L > 1)
            fprintf(f, "<link id=\"li%zu\" bandwidth=\"%.17gBps\" "
                       "latency=\"%.9fs\"/>\n",
                    i, s->ring_bw_bytes_per_s[n + i],
                    (double)s->ring_lat_ns[n + i] * 1e-9);
        if (K > 1)
            fprintf(f, "<link id=\"le%zu\" bandwidth=\"%.17gBps\" "
                       "latency=\"%.9fs\"/>\n",
                    i, s->ring_bw_bytes_per_s[2 * n + i],
                    (double)s->ring_lat_ns[2 * n + i] * 1e-9);
    }
    for (i = 0; i < n; i++) {
        size_t nd = i / L, j = i % L;
        if (L > 1)
            fprintf(f, "<route src=\"h%zu\" dst=\"h%zu\" "
                       "symmetrical=\"NO\"><link_ctn id=\"li%zu\"/>"
                       "</route>\n",
                    i, nd * L + (j + 1) % L, i);
        if (K > 1)
            fprintf(f, "<route src=\"h%zu\" dst=\"h%zu\" "
                       "symmetrical=\"NO\"><link_ctn id=\"le%zu\"/>"
                       "</route>\n",
                    i, ((nd + 1) % K) * L + j, i);
    }
    fprintf(f, "</zone>\n</platform>\n");
    fclose(f);

    m = hs_profile_payload_bytes(&s->types[0].profile);
    CU_ASSERT_FATAL(fabs(m / (double)n - floor(m / (double)n)) < 1e-9);
    snprintf(lbuf, sizeof lbuf, "%zu", L);
    snprintf(kbuf, sizeof kbuf, "%zu", K);
    snprintf(cin, sizeof cin, "%.0f", m / (double)L);
    snprintf(cout, sizeof cout, "%.0f", m / (double)n);
    argv[0] = oracle_hier_bin;
    argv[1] = plat;
    argv[2] = lbuf;
    argv[3] = kbuf;
    argv[4] = cin;
    argv[5] = cout;
    for (i = 0; i < n; i++) {
        snprintf(ready[i], sizeof ready[i], "%.9f",
                 (double)cap.open_ns[i] * 1e-9);
        argv[6 + i] = ready[i];
    }
    argv[6 + n] = "--cfg=network/model:CM02";
    argv[7 + n] = "--cfg=network/crosstraffic:0";
    argv[8 + n] = "--cfg=network/TCP-gamma:1e18";
    argv[9 + n] = "--log=root.thres:critical";
    argv[10 + n] = NULL;
    CU_ASSERT_EQUAL_FATAL(hs_run(argv, &run), 0);
    if (run.status != 0)
        fprintf(stderr, "\n%s: oracle_hier: %s\n", name,
                run.err ? run.err : "");
    HS_ASSERT_I64_EQ(run.status, 0);
    for (p = run.out; p != NULL && *p != '\0';) {
        int k;
        double t;
        if (sscanf(p, "%d %lf", &k, &t) == 2 && k >= 0 && (size_t)k < n) {
            int64_t sg_ns = llround(t * 1e9);
            int64_t hs_ns = cap.end_ns[k];
            seen++;
            if (llabs(sg_ns - hs_ns) > 1000) {
                fprintf(stderr, "\n%s: device %s: SimGrid %lld ns, replay "
                                "%lld ns\n",
                        name, s->devices[k].name, (long long)sg_ns,
                        (long long)hs_ns);
                bad++;
            }
        }
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    HS_ASSERT_I64_EQ(seen, n);
    HS_ASSERT_I64_EQ(bad, 0);
    hs_run_free(&run);
    hs_replay_result_free(res);
    hs_scenario_free(s);
}

/* Hierarchical all-reduces on random node clusters: two node kinds with
   different intra-node links, kind-pair and node-pair rows, a shared NIC,
   devices ready at random times; L and K from 2 to 4. */
static void test_hier_random(void)
{
    uint64_t rng = 777;
    int round;

    if (!build_oracle())
        return;
    for (round = 0; round < 4; round++) {
        char text[4096], name[32];
        unsigned extra[64];
        size_t L = 2 + (size_t)(next_rand(&rng) % 3);
        size_t ka = 1 + (size_t)(next_rand(&rng) % 2);
        size_t kb = 1 + (size_t)(next_rand(&rng) % 2);
        size_t n = L * (ka + kb), i;
        for (i = 0; i < n; i++)
            extra[i] = (unsigned)(next_rand(&rng) % 20000);
        snprintf(text, sizeof text,
                 "name: hrnd\n"
                 "job: {model: x, dataset: {samples: 100000}, epochs: 1}\n"
                 "device_types:\n"
                 "  - name: gpu\n"
                 "    batch: 100\n"
                 "    profile: {subsystem_size: 2, t_dl: 1ms, t_fwd: 10ms,\n"
                 "              t_b1: 1ms, allreduce_bytes: %zuB}\n"
                 "nodes:\n"
                 "  kinds:\n"
                 "    - {name: a, type: gpu, devices: %zu, count: %zu,\n"
                 "       intra_bandwidth: 50GB/s, intra_latency: %lluus}\n"
                 "    - {name: b, type: gpu, devices: %zu, count: %zu,\n"
                 "       intra_bandwidth: 20GB/s, nics: 1,\n"
                 "       nic_bandwidth: 6GB/s}\n"
                 "  inter_bandwidth: 5GB/s\n"
                 "  inter_latency: %lluus\n"
                 "  kind_links: [[a, b, 3GB/s, 10us]]\n"
                 "  links: [[a-0, b-0, 1GB/s]]\n"
                 "collective: hierarchical\n",
                 n * 1200000, L, ka,
                 (unsigned long long)(next_rand(&rng) % 5), L, kb,
                 (unsigned long long)(next_rand(&rng) % 30));
        snprintf(name, sizeof name, "hier%d", round);
        compare_hier(name, text, extra);
    }
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("simgrid_oracle", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "divergent case vs SimGrid", test_divergent) ==
            NULL ||
        CU_add_test(s, "random heterogeneous rings vs SimGrid",
                    test_random_rings) == NULL ||
        CU_add_test(s, "hierarchical all-reduce on random nodes vs SimGrid",
                    test_hier_random) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
