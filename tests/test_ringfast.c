/*
 * test_ringfast.c -- the max-plus fast path against the event engine.
 *
 * The event replay (hs_replay_run) is the reference: on every shipped
 * scenario that has profiles, and on random rings (random N, types,
 * bandwidths, latencies, compute scales, extra compute, the
 * communication's cost, stragglers, t_dl-bound steps, the optimizer, both
 * send modes, patent and none; hop waits under overlap none), every
 * figure of hs_ringfast_run must equal
 * the replay's to the nanosecond, and so must the number of events and
 * the time of the last one.  Also: what the predicate declines.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hs_replay.h"
#include "hs_ringfast.h"
#include "hs_scenario.h"
#include "hs_test.h"
#include "fast_check.h"

static int n_compared, n_declined;

/* Runs both on s under its current overlap and send; 1 when they agree
   (or the fast path declines: then *declined is set). */
static int compare(hs_scenario_t *s, const char *what)
{
    hs_replay_opts_t o, eo;
    hs_replay_result_t *ref = NULL, *fast = NULL;
    hs_error_t err;
    char why[200];
    int ok;

    hs_replay_opts_from_scenario(s, &o);
    if (!hs_ringfast_supports(s, &o, why, sizeof why)) {
        n_declined++;
        CU_ASSERT_TRUE(why[0] != '\0');
        return 1;
    }
    eo = o;
    eo.engine = 1;          /* the event engine: the reference */
    if (hs_replay_run(s, &eo, NULL, 0, &ref, &err) != HS_OK) {
        fprintf(stderr, "\n%s: replay: %s\n", what, err.msg);
        CU_FAIL("replay failed");
        return 0;
    }
    if (hs_ringfast_run(s, &o, &fast, &err) != HS_OK) {
        fprintf(stderr, "\n%s: fast: %s\n", what, err.msg);
        CU_FAIL("fast replay failed");
        hs_replay_result_free(ref);
        return 0;
    }
    ok = fc_same_results(ref, fast, what, FC_EPOCHS);
    CU_ASSERT_TRUE(ok);
    n_compared++;
    hs_replay_result_free(ref);
    hs_replay_result_free(fast);
    return ok;
}

/* Every combination of patent/none/buckets/last_bucket and
   rendezvous/eager on s. */
static int compare_modes(hs_scenario_t *s, const char *name)
{
    static const hs_overlap_t ov[4] = {HS_OVERLAP_PATENT, HS_OVERLAP_NONE,
                                       HS_OVERLAP_BUCKETS,
                                       HS_OVERLAP_LAST_BUCKET};
    static const hs_send_t sd[2] = {HS_SEND_RENDEZVOUS, HS_SEND_EAGER};
    char what[600];
    int i, j, ok = 1;

    for (i = 0; i < 4; i++) {
        for (j = 0; j < 2; j++) {
            s->overlap = ov[i];
            s->send = sd[j];
            snprintf(what, sizeof what, "%s (%s, %s)", name,
                     hs_overlap_name(ov[i]), hs_send_name(sd[j]));
            ok &= compare(s, what);
        }
    }
    return ok;
}

static void scan_dir(const char *dir, int *n_done)
{
    DIR *d = opendir(dir);
    struct dirent *de;

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        char path[1024];
        size_t len = strlen(de->d_name);
        hs_scenario_t *s = NULL;
        hs_error_t err;
        if (len < 6 || strcmp(de->d_name + len - 5, ".yaml") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (hs_scenario_load(path, &s, &err) != HS_OK)
            continue;
        if (hs_scenario_require_profiles(s, &err) == HS_OK) {
            s->stochastic = 0;
            compare_modes(s, path);
            (*n_done)++;
        }
        hs_scenario_free(s);
    }
    closedir(d);
}

static void test_shipped(void)
{
    int n = 0;

    scan_dir(HS_TEST_SRC "/scenarios", &n);
    scan_dir(HS_TEST_SRC "/scenarios/testbed", &n);
    printf("(%d shipped scenarios) ", n);
    CU_ASSERT_TRUE(n >= 5);
}

/* ---- random rings ---- */

/* A random scenario as YAML.  Times are odd numbers of ns so that ties
   come from the structure, not from round figures. */
static char *random_yaml(uint64_t *r, int with_comm)
{
    fc_buf_t b = {malloc(4096), 0, 4096};
    unsigned n = (unsigned)fc_rnd(r, 2, 64), nt = (unsigned)fc_rnd(r, 1, 3);
    unsigned nbk = fc_rnd(r, 0, 1) ? (unsigned)fc_rnd(r, 1, 6) : 0, k;
    unsigned cnt[3] = {0, 0, 0}, type_of[64], order[64], i, t;
    int dl_bound = fc_rnd(r, 0, 3) == 0;

    for (i = 0; i < n; i++) {
        type_of[i] = i < nt ? i : (unsigned)fc_rnd(r, 0, nt - 1);
        cnt[type_of[i]]++;
        order[i] = i;
    }
    fc_put(&b, "name: random\njob: {model: x, dataset: {samples: %u}, "
            "epochs: %u}\ndevice_types:\n",
        (unsigned)fc_rnd(r, 100, 100000), (unsigned)fc_rnd(r, 1, 5));
    for (t = 0; t < nt; t++) {
        fc_put(&b, "  - name: t%u\n    count: %u\n    batch: %u\n"
                "    profile:\n      subsystem_size: %u\n", t, cnt[t],
            (unsigned)fc_rnd(r, 1, 64), (unsigned)fc_rnd(r, 2, 4));
        if (fc_rnd(r, 0, 5) == 0)
            fc_put(&b, "      t_dl: unknown\n");
        else
            fc_put(&b, "      t_dl: %lluns\n",
                (unsigned long long)(dl_bound ? fc_rnd(r, 1000000, 90000000)
                                              : fc_rnd(r, 0, 3000000)));
        fc_put(&b, "      t_fwd: %lluns\n      t_b1: %lluns\n",
            (unsigned long long)fc_rnd(r, 0, 5000000),
            (unsigned long long)fc_rnd(r, 0, 500000));
        if (fc_rnd(r, 0, 3) != 0)
            fc_put(&b, "      t_bwd: %lluns\n",
                (unsigned long long)fc_rnd(r, 0, 12000000));
        if (fc_rnd(r, 0, 2) != 0)
            fc_put(&b, "      t_opt: %lluns\n",
                (unsigned long long)fc_rnd(r, 0, 2000000));
        fc_put(&b, "      allreduce_bytes: %lluB\n",
            (unsigned long long)fc_rnd(r, 1000, 400000000));
        if (with_comm && fc_rnd(r, 0, 2) != 0)
            fc_put(&b, "      comm_ns_per_byte: %.3f\n",
                (double)fc_rnd(r, 0, 3000) / 1000.0);
        if (with_comm == 2 && fc_rnd(r, 0, 2) != 0)
            fc_put(&b, "      t_hop_wait: %lluns\n",
                (unsigned long long)fc_rnd(r, 1, 30000000));
        if (with_comm == 2 && fc_rnd(r, 0, 1) != 0)
            fc_put(&b, "      cpu_quota_cores: %.3f\n      t_cpu_period: %lluns\n",
                (double)fc_rnd(r, 50, 1200) / 1000.0,
                (unsigned long long)fc_rnd(r, 1000000, 100000000));
        if (nbk > 0 && (t == 0 || fc_rnd(r, 0, 2) != 0)) {
            /* gradient buckets (other types borrow type 0's); ready
               times mostly increasing, sizes not summing to M */
            uint64_t at = 0;
            fc_put(&b, "      buckets:\n");
            for (k = 0; k < nbk; k++) {
                at = fc_rnd(r, 0, 5) == 0 ? at / 2 : at + fc_rnd(r, 0, 4000000);
                fc_put(&b, "        - {bytes: %lluB, ready: %lluns}\n",
                    (unsigned long long)fc_rnd(r, 1, 90000000),
                    (unsigned long long)at);
            }
        }
    }
    fc_put(&b, "devices:\n");
    for (i = 0; i < n; i++) {
        fc_put(&b, "  - {name: d%u, type: t%u, addr: 198.18.0.%u", i,
            type_of[i], i + 1);
        if (fc_rnd(r, 0, 2) == 0)
            fc_put(&b, ", compute_scale: %.4f",
                (double)fc_rnd(r, 2000, 40000) / 10000.0);
        if (fc_rnd(r, 0, 3) == 0)
            fc_put(&b, ", extra_compute: %lluns",
                (unsigned long long)fc_rnd(r, 0, 9000000));
        fc_put(&b, "}\n");
    }
    /* a random ring order */
    for (i = n - 1; i > 0; i--) {
        unsigned k = (unsigned)fc_rnd(r, 0, i), tmp = order[i];
        order[i] = order[k];
        order[k] = tmp;
    }
    fc_put(&b, "ring: [");
    for (i = 0; i < n; i++)
        fc_put(&b, "%sd%u", i ? ", " : "", order[i]);
    fc_put(&b, "]\nnetwork:\n  default_bandwidth: %lluB/s\n"
            "  latency: %lluns\n",
        (unsigned long long)fc_rnd(r, 10000000, 40000000000ULL),
        (unsigned long long)fc_rnd(r, 0, 50000));
    if (fc_rnd(r, 0, 1)) {
        unsigned nl = (unsigned)fc_rnd(r, 1, n);
        fc_put(&b, "  links:\n");
        for (i = 0; i < nl; i++) {
            unsigned k = (unsigned)fc_rnd(r, 0, n - 1);
            fc_put(&b, "    - [d%u, d%u, %lluB/s", order[k],
                order[(k + 1) % n],
                (unsigned long long)fc_rnd(r, 1000000, 40000000000ULL));
            if (fc_rnd(r, 0, 1))
                fc_put(&b, ", %lluns", (unsigned long long)fc_rnd(r, 0, 900000));
            fc_put(&b, "]\n");
        }
    }
    fc_put(&b, "simulate:\n  steps: %u\n  streams: %u\n",
        (unsigned)fc_rnd(r, 2, 6), fc_rnd(r, 0, 3) == 0 ? 2u : 1u);
    if (fc_rnd(r, 0, 1)) {
        unsigned ns = (unsigned)fc_rnd(r, 1, 3);
        fc_put(&b, "  stragglers:\n");
        for (i = 0; i < ns; i++) {
            unsigned f = (unsigned)fc_rnd(r, 0, 4);
            fc_put(&b, "    - {device: d%u, steps: [%u, %u], factor: %.3f, "
                    "extra: %lluns}\n",
                (unsigned)fc_rnd(r, 0, n - 1), f, f + (unsigned)fc_rnd(r, 0, 3),
                (double)fc_rnd(r, 500, 5000) / 1000.0,
                (unsigned long long)fc_rnd(r, 0, 20000000));
        }
    }
    return b.p;
}

static void random_rings(uint64_t seed, int count, int with_comm)
{
    uint64_t r = seed;
    int i, bad = 0;

    for (i = 0; i < count; i++) {
        char *y = random_yaml(&r, with_comm), what[64];
        hs_scenario_t *s = NULL;
        hs_error_t err;
        if (hs_scenario_load_text(y, strlen(y), "random", NULL, &s, &err) !=
            HS_OK) {
            fprintf(stderr, "\nrandom ring %d: %s\n%s\n", i, err.msg, y);
            CU_FAIL("random scenario did not load");
            free(y);
            continue;
        }
        snprintf(what, sizeof what, "random ring %d (seed %llu)", i,
                 (unsigned long long)seed);
        if (!compare_modes(s, what) && bad++ < 2)
            fprintf(stderr, "%s\n", y);
        hs_scenario_free(s);
        free(y);
    }
}

static void test_random_rings(void)
{
    int before = n_compared;

    random_rings(0x9E3779B97F4A7C15ULL, 160, 0);
    printf("(%d runs) ", n_compared - before);
    CU_ASSERT_TRUE(n_compared - before >= 5 * 160);
}

static void test_random_comm(void)
{
    int before = n_compared, dec = n_declined;

    random_rings(0xD1B54A32D192ED03ULL, 80, 1);
    printf("(%d runs, %d declined) ", n_compared - before, n_declined - dec);
    CU_ASSERT_TRUE(n_compared - before >= 2 * 80);
}

/* With hop waits (t_hop_wait) the fast path replays overlap none under
   rendezvous sends (no chunk reaches a device in its backward there) and
   declines the rest; the engine is the reference for what it replays. */
static void test_random_hopwait(void)
{
    int before = n_compared, dec = n_declined;

    random_rings(0x2545F4914F6CDD1DULL, 80, 2);
    printf("(%d runs, %d declined) ", n_compared - before, n_declined - dec);
    CU_ASSERT_TRUE(n_compared - before >= 80);
}

/* The event engine on random hop-wait rings, every overlap mode, both
   send modes, the wait grown and as probed: every replay ends (a lane's
   chunks become usable in order even when, under eager sends, a chunk
   that waits is followed by one that does not: the tenth blind draw's
   buckets-eager replays of two cases stalled on that), and a
   replay with hop waits is never faster than the same without them. */
static void test_random_hopwait_engine(void)
{
    static const hs_overlap_t ov[4] = {HS_OVERLAP_PATENT, HS_OVERLAP_BUCKETS,
                                       HS_OVERLAP_NONE,
                                       HS_OVERLAP_LAST_BUCKET};
    static const hs_send_t sd[2] = {HS_SEND_RENDEZVOUS, HS_SEND_EAGER};
    uint64_t r = 0x94D049BB133111EBULL;
    int i, runs = 0, failed = 0, faster = 0, checked = 0;

    for (i = 0; i < 120; i++) {
        char *y = random_yaml(&r, 2);
        hs_scenario_t *s = NULL;
        hs_error_t err;
        int a, b, h, comm = 0;
        size_t t;

        if (hs_scenario_load_text(y, strlen(y), "random", NULL, &s, &err) !=
            HS_OK) {
            CU_FAIL("random scenario did not load");
            free(y);
            continue;
        }
        for (t = 0; t < s->n_types; t++)
            comm |= s->types[t].profile.comm_ns_per_byte > 0;
        for (a = 0; a < 4; a++)
            for (b = 0; b < 2; b++)
                for (h = 0; h < 3; h++) {
                    hs_replay_opts_t o;
                    hs_replay_result_t *res = NULL;
                    hs_err_t rc;
                    int64_t with = 0;

                    hs_replay_opts_from_scenario(s, &o);
                    o.overlap = ov[a];
                    o.send = sd[b];
                    o.engine = 1;
                    o.hop_wait = h == 1 ? HS_HOP_WAIT_PROBE
                                        : HS_HOP_WAIT_RING;
                    if (h == 2) {
                        /* the same without any hop wait: a lower bound */
                        hs_replay_opts_t o2 = o;
                        hs_scenario_t *s2 = NULL;
                        hs_replay_result_t *r2 = NULL;
                        if (hs_scenario_load_text(y, strlen(y), "random",
                                                  NULL, &s2, &err) != HS_OK)
                            continue;
                        for (t = 0; t < s2->n_types; t++)
                            s2->types[t].profile.t_hop_wait_ns = 0;
                        o2.stragglers = s2->stragglers;
                        rc = hs_replay_run(s, &o, NULL, 0, &res, &err);
                        if (rc == HS_OK)
                            with = res->step_ns;
                        /* a max-plus system: monotone where no
                           processing suspends the compute and one stream
                           under rendezvous orders each link's chunks (a
                           wait may otherwise move processing out of the
                           backward or reorder two streams on a link, and
                           the step may end a little earlier) */
                        if (rc == HS_OK && o.send == HS_SEND_RENDEZVOUS &&
                            o.streams == 1 && !comm &&
                            hs_replay_run(s2, &o2, NULL, 0, &r2, &err) ==
                                HS_OK) {
                            checked++;
                            if (r2->step_ns > with && faster++ < 2)
                                fprintf(stderr, "\nfaster with hop waits: "
                                        "ring %d %s: %lld < %lld ns\n%s\n",
                                        i, hs_overlap_name(ov[a]),
                                        (long long)with,
                                        (long long)r2->step_ns, y);
                        }
                        hs_replay_result_free(r2);
                        hs_scenario_free(s2);
                    } else {
                        rc = hs_replay_run(s, &o, NULL, 0, &res, &err);
                    }
                    runs++;
                    if (rc != HS_OK && failed++ < 3)
                        fprintf(stderr, "\nrandom hop-wait ring %d (%s, %s, "
                                "%s): %s\n%s\n", i,
                                hs_overlap_name(ov[a]), hs_send_name(sd[b]),
                                h == 1 ? "probe" : "ring", err.msg, y);
                    hs_replay_result_free(res);
                }
        hs_scenario_free(s);
        free(y);
    }
    printf("(%d runs, %d checked against no wait) ", runs, checked);
    HS_ASSERT_I64_EQ(failed, 0);
    HS_ASSERT_I64_EQ(faster, 0);
    CU_ASSERT_TRUE(checked >= 40);
    CU_ASSERT_TRUE(runs == 120 * 4 * 2 * 3);
}

/* A bigger ring, many steps, a straggler in the middle: both modes. */
static void test_bigger_ring(void)
{
    const char *y =
        "name: big\njob: {model: x, dataset: {samples: 100000}, epochs: 2}\n"
        "device_types:\n"
        "  - {name: a, count: 150, batch: 32, profile: {subsystem_size: 2,"
        " t_dl: 3ms, t_fwd: 7ms, t_b1: 311us, t_bwd: 13ms, t_opt: 1ms,"
        " allreduce_bytes: 97MB, comm_ns_per_byte: 0.01}}\n"
        "  - {name: b, count: 106, batch: 16, profile: {subsystem_size: 2,"
        " t_dl: 5ms, t_fwd: 9ms, t_b1: 1ms, t_bwd: 11ms,"
        " allreduce_bytes: 97MB}}\n"
        "ring: interleave\n"
        "network: {default_bandwidth: 25Gbps, latency: 7us,"
        " type_links: [[a, b, 10Gbps]]}\n"
        "simulate: {steps: 8, stragglers: [{device: a-7, steps: [2, 5],"
        " factor: 3.0, extra: 2ms}]}\n";
    hs_scenario_t *s = NULL;
    hs_error_t err;

    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(y, strlen(y), "big", NULL,
                                                &s, &err), HS_OK);
    compare_modes(s, "big ring");
    hs_scenario_free(s);
}

/* The smallest ring (scenarios need 2 devices), two buckets. */
static void test_two_devices(void)
{
    const char *y =
        "name: two\njob: {model: x, dataset: {samples: 1000}, epochs: 1}\n"
        "device_types:\n"
        "  - {name: a, count: 2, batch: 32, profile: {subsystem_size: 2,"
        " t_dl: 3ms, t_fwd: 7ms, t_b1: 311us, t_bwd: 13ms, t_opt: 1ms,"
        " allreduce_bytes: 97MB, buckets: [{bytes: 40MB, ready: 2ms},"
        " {bytes: 57MB, ready: 20ms}]}}\n"
        "network: {default_bandwidth: 25Gbps, latency: 7us}\n"
        "simulate: {steps: 3, streams: 1}\n";
    hs_scenario_t *s = NULL;
    hs_error_t err;
    int before = n_compared;

    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(y, strlen(y), "two", NULL,
                                                &s, &err), HS_OK);
    compare_modes(s, "two devices");
    CU_ASSERT_EQUAL(n_compared - before, 8); /* 4 overlaps x 2 sends */
    hs_scenario_free(s);
}

static void test_declines(void)
{
    hs_scenario_t *s = NULL;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_error_t err;
    char why[200];

    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_default(&s, &err), HS_OK);
    hs_replay_opts_from_scenario(s, &o);
    CU_ASSERT_TRUE(hs_ringfast_supports(s, &o, why, sizeof why));
    o.stochastic = 1;
    CU_ASSERT_FALSE(hs_ringfast_supports(s, &o, why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "stochastic");
    CU_ASSERT_EQUAL(hs_ringfast_run(s, &o, &r, &err), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(err.msg, "stochastic");
    o.stochastic = 0;
    o.overlap = HS_OVERLAP_BUCKETS;
    o.streams = 2;
    /* no profile lists buckets: one ring after the backward, supported */
    CU_ASSERT_TRUE(hs_ringfast_supports(s, &o, why, sizeof why));
    o.overlap = HS_OVERLAP_PATENT;
    o.send = HS_SEND_EAGER;
    s->types[0].profile.comm_ns_per_byte = 0.5;
    CU_ASSERT_FALSE(hs_ringfast_supports(s, &o, why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "eager");
    s->types[0].profile.comm_ns_per_byte = 0;
    o.send = HS_SEND_RENDEZVOUS;
    /* a hop wait: only overlap none under rendezvous */
    s->types[0].profile.t_hop_wait_ns = 5000000;
    CU_ASSERT_FALSE(hs_ringfast_supports(s, &o, why, sizeof why));
    HS_ASSERT_STR_CONTAINS(why, "hop wait");
    o.overlap = HS_OVERLAP_NONE;
    CU_ASSERT_TRUE(hs_ringfast_supports(s, &o, why, sizeof why));
    o.send = HS_SEND_EAGER;
    CU_ASSERT_FALSE(hs_ringfast_supports(s, &o, why, sizeof why));
    o.send = HS_SEND_RENDEZVOUS;
    o.overlap = HS_OVERLAP_PATENT;
    s->types[0].profile.t_hop_wait_ns = 0;
    o.steps = 0;
    CU_ASSERT_FALSE(hs_ringfast_supports(s, &o, NULL, 0));
    hs_scenario_free(s);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("ringfast", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "shipped scenarios", test_shipped) == NULL ||
        CU_add_test(s, "random rings", test_random_rings) == NULL ||
        CU_add_test(s, "random rings with comm cost", test_random_comm) ==
            NULL ||
        CU_add_test(s, "random hop-wait rings, the engine in every mode",
                    test_random_hopwait_engine) == NULL ||
        CU_add_test(s, "random rings with hop waits", test_random_hopwait) ==
            NULL ||
        CU_add_test(s, "a bigger ring", test_bigger_ring) == NULL ||
        CU_add_test(s, "two devices", test_two_devices) == NULL ||
        CU_add_test(s, "what it declines", test_declines) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
