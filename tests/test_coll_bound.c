/*
 * test_coll_bound.c -- the range check's all-reduce bound per collective
 * (hs_collective_t.bound_ns, hs_collective_bound, used by
 * hs_scenario_check_ranges_coll): on random small clusters of nodes of
 * equal and unequal sizes, with and without a communication cost (fixed
 * seed) the bound of ring, hierarchical,
 * tree and auto is never below the closed form's T_ar of any device nor
 * the event-engine replay's all-reduce; the ring's is the flat ring's
 * bound as it always was (2(N-1) x the worst ring edge's round, worked
 * out here from the edge arrays); and a payload that passes the ring's
 * bound but whose hierarchical or tree all-reduce would pass the 1e18 ns
 * limit (scaled from the closed form at 1 GB, which is linear in the
 * payload without latency) is refused at load, by the closed form and
 * by the replay with HS_ERR_RANGE blamed on the payload, before any
 * replay starts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_checked.h"
#include "hs_closed.h"
#include "hs_coll_tree_shape.h"
#include "hs_collective.h"
#include "hs_limits.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"

static const char *const hs__colls[] = {"ring", "hierarchical", "tree",
                                        "auto"};

static uint64_t hs__rng = 0x9e3779b97f4a7c15ULL;

/* A uniform draw in [lo, hi] (xorshift64*: the same on every host). */
static double hs__uni(double lo, double hi)
{
    hs__rng ^= hs__rng >> 12;
    hs__rng ^= hs__rng << 25;
    hs__rng ^= hs__rng >> 27;
    return lo + (hi - lo) * (double)((hs__rng * 2685821657736338717ULL) >>
                                     11) /
                    9007199254740992.0;
}

static unsigned hs__int(unsigned lo, unsigned hi)
{
    unsigned v = lo + (unsigned)hs__uni(0, (double)(hi - lo + 1));

    return v > hi ? hi : v;
}

/* A random cluster: 1-3 node kinds of 1-4 devices, 1-3 nodes each (two
   nodes at least), random links, latencies, payload and tree chunks. */
static void hs__random_text(char *text, size_t len, const char *coll)
{
    unsigned kinds = hs__int(1, 3), k, nodes = 0;
    size_t off;

    off = (size_t)snprintf(
        text, len,
        "name: rnd\n"
        "job: {model: x, dataset: {samples: 100000}}\n"
        "device_types:\n"
        "  - name: gpu\n"
        "    batch: 100\n"
        "    profile: {t_dl: 1us, t_fwd: 2us, t_b1: 1us, "
        "allreduce_bytes: %.0fB,\n"
        "              comm_ns_per_byte: %.3f}\n"
        "nodes:\n"
        "  kinds:\n",
        hs__uni(1e3, 5e8), hs__int(0, 1) ? hs__uni(0, 2) : 0.0);
    for (k = 0; k < kinds; k++) {
        unsigned count = hs__int(1, 3);
        if (k + 1 == kinds && nodes + count < 2)
            count = 2;
        nodes += count;
        off += (size_t)snprintf(
            text + off, len - off,
            "    - {name: k%u, type: gpu, devices: %u, count: %u,\n"
            "       intra_bandwidth: %.3fGB/s, intra_latency: %.0fns,\n"
            "       nics: %u, nic_bandwidth: %.3fGB/s}\n",
            k, hs__int(1, 4), count, hs__uni(1, 100), hs__uni(0, 20000),
            hs__int(1, 2), hs__uni(0.5, 20));
    }
    (void)snprintf(text + off, len - off,
                   "  inter_bandwidth: %.3fGB/s\n"
                   "  inter_latency: %.0fns\n"
                   "collective: %s\n"
                   "tree_chunks: %u\n"
                   "simulate: {steps: 2, overlap: none}\n",
                   hs__uni(0.5, 50), hs__uni(0, 30000), coll,
                   hs__int(1, 8));
}

static hs_scenario_t *hs__load(const char *text, hs_err_t want,
                               hs_error_t *err)
{
    hs_scenario_t *s = NULL;
    hs_err_t rc = hs_scenario_load_text(text, strlen(text), "bound.yaml",
                                        NULL, &s, err);

    if (rc != want)
        fprintf(stderr, "\nload: %d (%s)\n%s\n", (int)rc,
                rc != HS_OK ? err->msg : "", text);
    CU_ASSERT_EQUAL(rc, want);
    return s;
}

/* The flat ring's bound as the range check always computed it. */
static double hs__ring_bound_today(const hs_scenario_t *s, double m)
{
    double n = (double)s->n_devices, chunk = m / n, r_max = 0;
    size_t k;

    for (k = 0; k < s->n_devices; k++) {
        double bw = s->ring_bw_bytes_per_s[k], xfer, r;
        int64_t x;
        if (!(bw > 0))
            continue;
        xfer = hs_checked_ns_from_bytes(chunk, bw, &x) == 0
                   ? (double)x
                   : chunk * 1e9 / bw;
        r = 1.0 * ((double)s->ring_lat_ns[k] + 2.0) + xfer +
            s->types[0].profile.comm_ns_per_byte * chunk;
        if (r > r_max)
            r_max = r;
    }
    return 2.0 * (n - 1.0) * r_max;
}

static void hs__bound_of(const hs_collective_t *c, const hs_scenario_t *s,
                         hs_coll_bound_t *b)
{
    memset(b, 0, sizeof *b);
    b->payload_bytes = hs_profile_payload_bytes(&s->types[0].profile);
    b->comm_ns_per_byte = s->types[0].profile.comm_ns_per_byte;
    b->n_buckets = 1;
    hs_collective_bound(c, s, b);
}

/* The closed form's largest T_ar(i) of collective c (auto: its pick). */
static int64_t hs__closed_max(const hs_collective_t *c,
                              const hs_scenario_t *s)
{
    int64_t *all = calloc(s->n_devices, sizeof *all), worst = 0;
    hs_error_t err;
    size_t x;

    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    c = hs_collective_resolve(c, s);
    if (c->allreduce_all_ns != NULL) {
        CU_ASSERT_EQUAL(c->allreduce_all_ns(s, all, &err), HS_OK);
    } else
        for (x = 0; x < s->n_devices; x++)
            all[x] = c->allreduce_ns(s, (uint32_t)x);
    for (x = 0; x < s->n_devices; x++)
        if (all[x] > worst)
            worst = all[x];
    free(all);
    return worst;
}

/* The event engine's all-reduce of the first step: the step less its
   compute (t_dl + t_fwd + t_b1, overlap none: everyone opens at once). */
static int64_t hs__replay_ar(const hs_scenario_t *s, const char *coll)
{
    hs_replay_result_t *r = NULL;
    hs_replay_opts_t o;
    hs_error_t err;
    int64_t ar = -1;

    hs_replay_opts_from_scenario(s, &o);
    o.engine = 1;
    o.steps = 1;
    o.collective = coll;
    if (hs_replay_run(s, &o, NULL, 0, &r, &err) != HS_OK) {
        fprintf(stderr, "\nreplay %s: %s\n", coll, err.msg);
        return INT64_MIN;
    }
    ar = r->first_step_ns - 4000;
    hs_replay_result_free(r);
    return ar;
}

static void test_bound_above_closed_and_replay(void)
{
    int i;
    size_t c, checked = 0, replayed = 0;

    hs__rng = 0x2545f4914f6cdd1dULL;
    for (i = 0; i < 40; i++) {
        for (c = 0; c < sizeof hs__colls / sizeof hs__colls[0]; c++) {
            char text[4096];
            const hs_collective_t *coll;
            hs_coll_bound_t b;
            hs_scenario_t *s;
            hs_error_t err;
            int64_t cf, rp;

            hs__random_text(text, sizeof text, hs__colls[c]);
            s = hs__load(text, HS_OK, &err);
            if (s == NULL)
                continue;
            CU_ASSERT_EQUAL_FATAL(
                hs_collective_find(hs__colls[c], &coll, &err), HS_OK);
            hs__bound_of(coll, s, &b);
            cf = hs__closed_max(coll, s);
            /* every collective replayed, the tree with a communication
               cost too (its event engine once stopped there with "event
               queue full": a RECEIVED event per chunk it processed) */
            rp = hs__replay_ar(s, hs__colls[c]);
            if (rp == INT64_MIN)
                fprintf(stderr, "%s", text);
            CU_ASSERT(rp != INT64_MIN);
            replayed += rp > 0;
            if (!(b.ns >= (double)cf && b.ns >= (double)rp))
                fprintf(stderr, "\n%s: bound %.0f closed %lld replay %lld\n%s",
                        hs__colls[c], b.ns, (long long)cf, (long long)rp,
                        text);
            CU_ASSERT(b.ns >= (double)cf);
            CU_ASSERT(b.ns >= (double)rp);
            CU_ASSERT(cf > 0);
            CU_ASSERT(b.by == hs_collective_resolve(coll, s));
            if (b.by == &hs_coll_ring) {
                CU_ASSERT_EQUAL(b.ns,
                                hs__ring_bound_today(s, b.payload_bytes));
            }
            checked++;
            hs_scenario_free(s);
        }
    }
    CU_ASSERT_EQUAL(checked, 160);
    CU_ASSERT_EQUAL(replayed, 160);
}

/* Without nodes every collective's bound is the ring's (the others'
   checks refuse the scenario). */
static void test_flat_is_ring(void)
{
    static const char text[] =
        "device_types:\n"
        "  - {name: a, count: 3, batch: 8,\n"
        "     profile: {t_fwd: 1ms, t_b1: 1ms, allreduce_bytes: 40MB}}\n"
        "  - {name: b, count: 2, batch: 8,\n"
        "     profile: {t_fwd: 1ms, t_b1: 1ms, allreduce_bytes: 90MB}}\n"
        "network: {default_bandwidth: 10Gbps, latency: 7us}\n";
    hs_error_t err;
    hs_scenario_t *s = hs__load(text, HS_OK, &err);
    hs_coll_bound_t b;
    size_t c;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    for (c = 0; c < sizeof hs__colls / sizeof hs__colls[0]; c++) {
        const hs_collective_t *coll;
        CU_ASSERT_EQUAL(hs_collective_find(hs__colls[c], &coll, &err),
                        HS_OK);
        memset(&b, 0, sizeof b);
        b.payload_bytes = 90e6;
        b.n_buckets = 1;
        hs_collective_bound(coll, s, &b);
        CU_ASSERT(b.by == &hs_coll_ring);
        CU_ASSERT_EQUAL(b.ns, hs__ring_bound_today(s, 90e6));
        CU_ASSERT(b.ns >= (double)hs__closed_max(&hs_coll_ring, s));
    }
    hs_scenario_free(s);
}

/* The cluster of the refusal tests with payload `bytes` and collective
   coll: K nodes of L devices, every link 1 GB/s, no latency. */
static void hs__slow_text(char *text, size_t len, unsigned L, unsigned K,
                          double bytes, const char *coll)
{
    snprintf(text, len,
             "name: slow\n"
             "job: {model: x, dataset: {samples: 100000}}\n"
             "device_types:\n"
             "  - name: gpu\n"
             "    batch: 100\n"
             "    profile: {t_fwd: 1us, t_b1: 1us, allreduce_bytes: %.0fB}\n"
             "nodes:\n"
             "  kinds:\n"
             "    - {name: n, type: gpu, devices: %u, count: %u,\n"
             "       intra_bandwidth: 1GB/s, intra_latency: 0s,\n"
             "       nics: 1, nic_bandwidth: 1GB/s}\n"
             "  inter_bandwidth: 1GB/s\n"
             "  inter_latency: 0s\n"
             "collective: %s\n"
             "tree_chunks: 1\n"
             "simulate: {steps: 2, overlap: none}\n",
             bytes, L, K, coll);
}

/* A payload whose ring bound passes the loader's check of 2 steps but
   whose all-reduce under coll (T from the closed form at 1 GB, scaled:
   it is linear without latency) makes 2 steps pass 1e18 ns: refused at
   load, and by the replay of the scenario loaded as ring, before it
   starts, blamed on the payload when one all-reduce's bound passes the
   limit (then the closed form refuses it too), else on simulate.steps. */
static void hs__refused(const hs_collective_t *coll, unsigned L, unsigned K)
{
    char text[2048], want[256], key[128];
    hs_scenario_t *s;
    hs_error_t err;
    double ring_pb, coll_pb, m;
    hs_prediction_t *p = NULL;
    hs_replay_result_t *r = NULL;
    hs_replay_opts_t o;
    hs_coll_bound_t b;

    hs__slow_text(text, sizeof text, L, K, 1e9, "ring");
    s = hs__load(text, HS_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    ring_pb = hs__ring_bound_today(s, 1e9) / 1e9;
    coll_pb = (double)hs__closed_max(coll, s) / 1e9;
    hs_scenario_free(s);
    /* the precondition: the collective is slower than the ring's bound */
    CU_ASSERT_FATAL(coll_pb > 1.2 * ring_pb);
    /* 2 steps: just past the payload coll's limit allows (below the
       ring's, and below the tree's own 2^62 ns check of N R sends) */
    m = floor(1.06 * 0.5e18 / coll_pb);
    CU_ASSERT_FATAL(2 * m * ring_pb < 0.95e18 && 2 * m * coll_pb > 1.05e18 &&
                    m <= 1e18);

    /* the ring passes (today's check, unchanged) */
    hs__slow_text(text, sizeof text, L, K, m, "ring");
    s = hs__load(text, HS_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hs__bound_of(coll, s, &b);
    CU_ASSERT(b.ns >= m * coll_pb * 0.999);
    if (b.ns > 1e18) {
        snprintf(want, sizeof want, "one %s all-reduce could take up to",
                 coll->name);
        snprintf(key, sizeof key, "device_types.gpu.profile.allreduce_bytes");
        /* the closed form under coll: refused before any T_ar */
        CU_ASSERT_EQUAL(
            hs_closed_predict_with(s, coll, s->overlap, &p, &err),
            HS_ERR_RANGE);
        CU_ASSERT_PTR_NULL(p);
        HS_ASSERT_STR_CONTAINS(err.msg, want);
        HS_ASSERT_STR_CONTAINS(err.msg, key);
    } else {
        snprintf(want, sizeof want, "2 steps of up to");
        snprintf(key, sizeof key, "simulate.steps");
    }
    /* the replay under coll: refused before it starts (no result) */
    hs_replay_opts_from_scenario(s, &o);
    o.engine = 1;
    o.steps = 2;
    o.collective = coll->name;
    CU_ASSERT_EQUAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(err.msg, want);
    HS_ASSERT_STR_CONTAINS(err.msg, key);
    hs_scenario_free(s);

    /* the scenario that asks for coll: refused at load, blamed where the
       key was written */
    hs__slow_text(text, sizeof text, L, K, m, coll->name);
    s = hs__load(text, HS_ERR_RANGE, &err);
    CU_ASSERT_PTR_NULL(s);
    HS_ASSERT_STR_CONTAINS(err.msg, b.ns > 1e18 ? "bound.yaml:6:"
                                                : "bound.yaml:16:");
    HS_ASSERT_STR_CONTAINS(err.msg, key);
    HS_ASSERT_STR_CONTAINS(err.msg, want);
    HS_ASSERT_STR_CONTAINS(err.msg, "31.7 years");
}

static void test_hier_refused(void)
{
    hs__refused(&hs_coll_hier, 4, 4);
}

static void test_tree_refused(void)
{
    hs__refused(&hs_coll_tree, 1, 4);
}

/* The estimate's bytes cover what the tree's fast path holds (its
   schedule grows with tree_chunks: 513 rounds at 64), and the ring's
   estimate has no such term. */
static void test_tree_state_estimate(void)
{
    static const char text[] =
        "name: tb\n"
        "job: {model: x, dataset: {samples: 100000}}\n"
        "device_types:\n"
        "  - name: gpu\n"
        "    batch: 100\n"
        "    profile: {t_fwd: 1ms, t_b1: 1ms, allreduce_bytes: 10MB}\n"
        "nodes:\n"
        "  kinds:\n"
        "    - {name: n, type: gpu, devices: 2, count: 40,\n"
        "       intra_bandwidth: 10GB/s, nics: 1, nic_bandwidth: 1GB/s}\n"
        "  inter_bandwidth: 1GB/s\n"
        "collective: tree\n"
        "tree_chunks: 64\n"
        "simulate: {steps: 2}\n";
    hs_error_t err;
    hs_scenario_t *s = hs__load(text, HS_OK, &err);
    hs_replay_result_t *r = NULL;
    hs_replay_opts_t o;
    double ev, by, ev_r, by_r;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hs_replay_opts_from_scenario(s, &o);
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_OK);
    CU_ASSERT(r->fast_path);
    hs_scenario_replay_estimate(s, o.steps, o.overlap, &hs_coll_tree, &ev,
                                &by);
    hs_scenario_replay_estimate(s, o.steps, o.overlap, &hs_coll_ring, &ev_r,
                                &by_r);
    if (!(by >= (double)r->state_bytes))
        fprintf(stderr, "\nestimate %.0f B, held %zu B\n", by,
                (size_t)r->state_bytes);
    CU_ASSERT(by >= (double)r->state_bytes);
    CU_ASSERT_EQUAL(by - by_r, (double)hs_coll_tree_sched_state_bytes(s));
    hs_replay_result_free(r);
    hs_scenario_free(s);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("collective bounds", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "bound >= closed form and replay, ring as before",
                    test_bound_above_closed_and_replay) == NULL ||
        CU_add_test(s, "without nodes: the ring's bound", test_flat_is_ring) ==
            NULL ||
        CU_add_test(s, "hierarchical past the limit refused",
                    test_hier_refused) == NULL ||
        CU_add_test(s, "tree past the limit refused", test_tree_refused) ==
            NULL ||
        CU_add_test(s, "tree: the estimate's bytes hold its schedule",
                    test_tree_state_estimate) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
