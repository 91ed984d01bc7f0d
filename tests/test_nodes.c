/*
 * test_nodes.c -- clusters described as nodes (model/hs_nodes.h) and the
 * hierarchical all-reduce (sim/hs_coll_hier.c): the expansion of a small
 * cluster checked by hand (devices, names, ring, every ring edge, the
 * hierarchical edges, pair queries), the hierarchical closed form by
 * hand, the replay against the closed form where they must agree
 * (homogeneous, everyone ready at once), the hop wait per ring (a node's,
 * the nodes'), settings and clones, the errors
 * with their file:line:col, and the time of a 100,000-device predict
 * (printed, not asserted).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hs_closed.h"
#include "hs_collective.h"
#include "hs_nodes.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"

#define GB 1e9

static hs_scenario_t *load(const char *text)
{
    hs_scenario_t *s = NULL;
    hs_error_t err;
    hs_err_t rc = hs_scenario_load_text(text, strlen(text), "nodes.yaml",
                                        NULL, &s, &err);

    if (rc != HS_OK)
        fprintf(stderr, "\nload: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, HS_OK);
    return s;
}

/* Loading must fail with code and a message containing want. */
static void load_fails(const char *text, hs_err_t code, const char *want)
{
    hs_scenario_t *s = NULL;
    hs_error_t err;
    hs_err_t rc = hs_scenario_load_text(text, strlen(text), "nodes.yaml",
                                        NULL, &s, &err);

    HS_ASSERT_I64_EQ(rc, code);
    CU_ASSERT_PTR_NULL(s);
    if (rc != HS_OK)
        HS_ASSERT_STR_CONTAINS(err.msg, want);
    hs_scenario_free(s);
}

static const char small_yaml[] =
    "name: small\n"
    "job: {model: x, dataset: {samples: 9000}, epochs: 1}\n"
    "device_types:\n"
    "  - name: A\n"
    "    batch: 100\n"
    "    profile: {subsystem_size: 2, t_dl: 1ms, t_fwd: 10ms, t_b1: 1ms,\n"
    "              allreduce_bytes: 36MB}\n"
    "  - name: B\n"
    "    batch: 100\n"
    "    profile: {subsystem_size: 2, t_dl: 1ms, t_fwd: 20ms, t_b1: 1ms,\n"
    "              allreduce_bytes: 36MB}\n"
    "nodes:\n"
    "  kinds:\n"
    "    - {name: a, type: A, devices: 2, count: 3,\n"
    "       intra_bandwidth: 100GB/s, intra_latency: 1us,\n"
    "       nics: 1, nic_bandwidth: 4GB/s}\n"
    "    - {name: b, type: B, devices: 3, count: 1,\n"
    "       intra_bandwidth: 50GB/s}\n"
    "  inter_bandwidth: 10GB/s\n"
    "  inter_latency: 5us\n"
    "  kind_links: [[a, b, 2GB/s]]\n"
    "  links: [[a-0, a-1, 3GB/s, 7us]]\n";

/* Nine devices: a-0-0 a-0-1 a-1-0 a-1-1 a-2-0 a-2-1 b-0-0 b-0-1 b-0-2. */
static void test_expand_small(void)
{
    static const char *const names[9] = {"a-0-0", "a-0-1", "a-1-0",
                                         "a-1-1", "a-2-0", "a-2-1",
                                         "b-0-0", "b-0-1", "b-0-2"};
    static const char *const addrs[9] = {"a-0", "a-0", "a-1", "a-1", "a-2",
                                         "a-2", "b-0", "b-0", "b-0"};
    /* ring edges k -> k+1 in NCCL's order, worked out by hand:
       intra a; row a-0,a-1 (3 GB/s, 7 us); intra a; default 10 GB/s
       capped by a's one 4 GB/s NIC (5 us); intra a; kind row a,b 2 GB/s
       (5 us); intra b; intra b; kind row b,a (either order) 2 GB/s */
    static const double bw[9] = {100 * GB, 3 * GB, 100 * GB,
                                 4 * GB,   100 * GB, 2 * GB,
                                 50 * GB,  50 * GB, 2 * GB};
    static const int64_t lat[9] = {1000, 7000, 1000, 5000, 1000,
                                   5000, 0,    0,    5000};
    hs_scenario_t *s = load(small_yaml);
    hs_error_t err;
    double b;
    int64_t l;
    size_t i;

    HS_ASSERT_I64_EQ(s->n_devices, 9);
    HS_ASSERT_I64_EQ(s->types[0].count, 6);
    HS_ASSERT_I64_EQ(s->types[1].count, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->nodes);
    HS_ASSERT_I64_EQ(s->nodes->n_nodes, 4);
    HS_ASSERT_I64_EQ(s->nodes->local, 0);   /* 2 and 3 per node */
    for (i = 0; i < 9; i++) {
        CU_ASSERT_STRING_EQUAL(s->devices[i].name, names[i]);
        CU_ASSERT_STRING_EQUAL(s->devices[i].addr, addrs[i]);
        HS_ASSERT_I64_EQ(s->devices[i].type, i < 6 ? 0 : 1);
        HS_ASSERT_I64_EQ(s->ring[i], i);
        HS_ASSERT_DBL_NEAR(s->ring_bw_bytes_per_s[i], bw[i], 1e-3);
        HS_ASSERT_I64_EQ(s->ring_lat_ns[i], lat[i]);
        HS_ASSERT_I64_EQ(s->nodes->dev_node[i], i < 6 ? i / 2 : 3);
    }
    /* pair queries: the same rules for any pair (a lone edge: the NIC
       unshared) */
    CU_ASSERT_EQUAL(hs_scenario_link(s, 0, 7, &b, &l, &err), HS_OK);
    HS_ASSERT_DBL_NEAR(b, 2 * GB, 1e-3);
    HS_ASSERT_I64_EQ(l, 5000);
    CU_ASSERT_EQUAL(hs_scenario_link(s, 2, 1, &b, &l, &err), HS_OK);
    HS_ASSERT_DBL_NEAR(b, 3 * GB, 1e-3);    /* row a-0,a-1 reversed */
    HS_ASSERT_I64_EQ(l, 7000);
    CU_ASSERT_EQUAL(hs_scenario_link(s, 4, 0, &b, &l, &err), HS_OK);
    HS_ASSERT_DBL_NEAR(b, 4 * GB, 1e-3);    /* 10 GB/s capped by the NIC */
    CU_ASSERT_EQUAL(hs_scenario_link(s, 8, 6, &b, &l, &err), HS_OK);
    HS_ASSERT_DBL_NEAR(b, 50 * GB, 1e-3);   /* inside b-0 */
    HS_ASSERT_I64_EQ(l, 0);
    for (i = 0; i < 9; i++) {
        double eb;
        int64_t el;
        /* every ring edge answers as the pair query does (each node has
           one ring edge out and one in: no NIC sharing) */
        CU_ASSERT_EQUAL(hs_scenario_link(s, s->ring[i],
                                         s->ring[(i + 1) % 9], &eb, &el,
                                         &err),
                        HS_OK);
        HS_ASSERT_DBL_NEAR(eb, s->ring_bw_bytes_per_s[i], 1e-3);
        HS_ASSERT_I64_EQ(el, s->ring_lat_ns[i]);
    }
    /* the ring collective runs on it, and the hierarchical one across
       its nodes of 2 and 3 devices (docs/method.md, "The hierarchical
       all-reduce") */
    {
        hs_prediction_t *p = NULL;
        hs_coll_round_t rd;
        CU_ASSERT_EQUAL(hs_closed_predict(s, &p, &err), HS_OK);
        hs_prediction_free(p);
        CU_ASSERT_EQUAL(hs_scenario_set(s, "collective", "hierarchical",
                                        &err),
                        HS_OK);
        CU_ASSERT_EQUAL_FATAL(hs_scenario_resolve(s, &err), HS_OK);
        HS_ASSERT_I64_EQ(s->nodes->local_max, 3);
        /* 2(3-1) node rounds + 2(4-1) across the 4 nodes */
        HS_ASSERT_I64_EQ(hs_coll_hier.rounds_of(s), 10);
        /* a-0-0 idles in round 1 (its node has 2 devices, not 3) */
        hs_coll_hier.round(s, 0, 1, &rd);
        HS_ASSERT_I64_EQ(rd.parts, 0);
        HS_ASSERT_I64_EQ(rd.to, 0);
        hs_coll_hier.round(s, 6, 1, &rd);       /* b-0-0 does not */
        HS_ASSERT_I64_EQ(rd.parts, 3);
        HS_ASSERT_I64_EQ(rd.to, 7);
        /* across nodes: b-0-2 (local rank 2) sends to a-0-0 (2 mod 2),
           3 MB = M/(K L) of 36 MB; a-0-0 receives from b-0-0 (and b-0-2);
           b-0-2 from no one of a-2 (2 devices) */
        hs_coll_hier.round(s, 8, 2, &rd);
        HS_ASSERT_I64_EQ(rd.to, 0);
        HS_ASSERT_I64_EQ(rd.parts, 12);
        HS_ASSERT_I64_EQ(rd.ring_n, 4);
        HS_ASSERT_I64_EQ(rd.from, 8);
        hs_coll_hier.round(s, 0, 2, &rd);
        HS_ASSERT_I64_EQ(rd.from, 6);
        HS_ASSERT_I64_EQ(rd.parts, 8);
        hs_coll_hier.round(s, 1, 9, &rd);       /* all-gather, idle */
        HS_ASSERT_I64_EQ(rd.parts, 0);
        hs_coll_hier.round(s, 7, 9, &rd);
        HS_ASSERT_I64_EQ(rd.to, 8);
        HS_ASSERT_I64_EQ(rd.from, 6);
        /* the edges across nodes: a-0-1 -> a-1-1, row a-0,a-1 3 GB/s
           capped by a's 4 GB/s NIC over its 2 senders; b-0-2 -> a-0-0,
           kind row 2 GB/s capped by a-0's NIC over b-0's 3 senders */
        HS_ASSERT_DBL_NEAR(s->ring_bw_bytes_per_s[2 * 9 + 1], 2 * GB, 1e-3);
        HS_ASSERT_I64_EQ(s->ring_lat_ns[2 * 9 + 1], 7000);
        HS_ASSERT_DBL_NEAR(s->ring_bw_bytes_per_s[2 * 9 + 8], 4 * GB / 3,
                           1e-3);
        CU_ASSERT_EQUAL_FATAL(hs_closed_predict(s, &p, &err), HS_OK);
        /* a-0-1: 2 x (1 us + 18 MB / 100 GB/s)
                  + 6 x (7 us + 4.5 MB / 2 GB/s) */
        HS_ASSERT_I64_EQ(p->dev[1].t_ar_ns, 2 * 181000 + 6 * 2257000);
        /* b-0-2: 4 x 12 MB / 50 GB/s + 6 x (5 us + 3 MB / (4/3 GB/s)) */
        HS_ASSERT_I64_EQ(p->dev[8].t_ar_ns, 4 * 240000 + 6 * 2255000);
        hs_prediction_free(p);
    }
    hs_scenario_free(s);
}

static const char hier_yaml[] =
    "name: hier\n"
    "job: {model: x, dataset: {samples: 160000}, epochs: 1}\n"
    "device_types:\n"
    "  - name: gpu\n"
    "    batch: 100\n"
    "    profile: {subsystem_size: 2, t_dl: 20ms, t_fwd: 30ms,\n"
    "              t_b1: 500us, allreduce_bytes: 160MB}\n"
    "nodes:\n"
    "  kinds:\n"
    "    - {name: box, type: gpu, devices: 4, count: 4,\n"
    "       intra_bandwidth: 100GB/s, nics: 1, nic_bandwidth: 4GB/s}\n"
    "  inter_bandwidth: 1GB/s\n"
    "collective: hierarchical\n";

/* scenarios/validate-hier-fast-intra.yaml's numbers: T_ar 62.4 ms
   hierarchical, 300 ms ring. */
static void test_hier_closed_by_hand(void)
{
    hs_scenario_t *s = load(hier_yaml);
    hs_prediction_t *p = NULL;
    hs_error_t err;
    size_t i, N;

    N = s->n_devices;
    HS_ASSERT_I64_EQ(N, 16);
    HS_ASSERT_I64_EQ(s->nodes->local, 4);
    for (i = 0; i < N; i++) {
        /* x -> next local rank: 100 GB/s; x -> same rank of the next
           node: min(1 GB/s, 4 GB/s NIC / 4 rings) = 1 GB/s */
        HS_ASSERT_DBL_NEAR(s->ring_bw_bytes_per_s[N + i], 100 * GB, 1e-3);
        HS_ASSERT_DBL_NEAR(s->ring_bw_bytes_per_s[2 * N + i], 1 * GB, 1e-3);
    }
    CU_ASSERT_EQUAL_FATAL(hs_closed_predict(s, &p, &err), HS_OK);
    /* 2(L-1) x 40 MB / 100 GB/s + 2(K-1) x 10 MB / 1 GB/s */
    HS_ASSERT_I64_EQ(p->dev[0].t_ar_ns, 6 * 400000 + 6 * 10000000);
    HS_ASSERT_I64_EQ(p->step_ns, 30000000 + 500000 + 62400000);
    hs_prediction_free(p);

    /* the same cluster with the flat ring: 30 rounds of 10 MB, the slow
       edge at 1 GB/s */
    CU_ASSERT_EQUAL(hs_scenario_set(s, "collective", "ring", &err), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_scenario_resolve(s, &err), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_closed_predict(s, &p, &err), HS_OK);
    HS_ASSERT_I64_EQ(p->step_ns, 30000000 + 500000 + 300000000);
    hs_prediction_free(p);

    /* nodes.<kind>.count: 8 nodes, K = 8 -> 14 inter rounds */
    CU_ASSERT_EQUAL(hs_scenario_set(s, "collective", "hierarchical", &err),
                    HS_OK);
    CU_ASSERT_EQUAL(hs_scenario_set(s, "nodes.box.count", "8", &err),
                    HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_scenario_resolve(s, &err), HS_OK);
    HS_ASSERT_I64_EQ(s->n_devices, 32);
    HS_ASSERT_I64_EQ(s->types[0].count, 32);
    CU_ASSERT_EQUAL_FATAL(hs_closed_predict(s, &p, &err), HS_OK);
    /* 6 x 40 MB / 100 GB/s + 14 x 5 MB / 1 GB/s */
    HS_ASSERT_I64_EQ(p->dev[31].t_ar_ns, 6 * 400000 + 14 * 5000000);
    hs_prediction_free(p);
    {
        hs_scenario_t *c = NULL;
        CU_ASSERT_EQUAL_FATAL(hs_scenario_clone(s, &c, &err), HS_OK);
        CU_ASSERT_EQUAL_FATAL(hs_closed_predict(c, &p, &err), HS_OK);
        HS_ASSERT_I64_EQ(p->dev[31].t_ar_ns, 6 * 400000 + 14 * 5000000);
        hs_prediction_free(p);
        hs_scenario_free(c);
    }
    CU_ASSERT_EQUAL(hs_scenario_set(s, "device_types.gpu.count", "8",
                                    &err),
                    HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(err.msg, "the counts follow from nodes:");
    CU_ASSERT_EQUAL(hs_scenario_set(s, "nodes.crate.count", "8", &err),
                    HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(err.msg, "unknown node kind 'crate'");
    CU_ASSERT_EQUAL(hs_scenario_set(s, "collective", "butterfly", &err),
                    HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(err.msg, "unknown collective 'butterfly'");
    hs_scenario_free(s);
}

/* Homogeneous nodes, everyone ready at once: the hierarchical replay
   equals its closed form to the ns, rendezvous and eager, over several
   shapes (L = 1 and K = 1 included) and latencies. */
static void test_replay_equals_closed(void)
{
    static const unsigned shapes[][2] = {{4, 4}, {2, 3}, {8, 2}, {1, 5},
                                         {6, 1}, {3, 7}};
    size_t i;
    int send;

    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (send = 0; send < 2; send++) {
            char text[2048];
            hs_scenario_t *s;
            hs_replay_result_t *r = NULL;
            hs_replay_opts_t o;
            hs_error_t err;
            unsigned L = shapes[i][0], K = shapes[i][1];
            snprintf(text, sizeof text,
                     "name: eq\n"
                     "job: {model: x, dataset: {samples: 100000}}\n"
                     "device_types:\n"
                     "  - name: gpu\n"
                     "    batch: 100\n"
                     "    profile: {subsystem_size: 2, t_dl: 5ms, "
                     "t_fwd: 30ms,\n"
                     "              t_b1: 1ms, allreduce_bytes: %uB}\n"
                     "nodes:\n"
                     "  kinds:\n"
                     "    - {name: n, type: gpu, devices: %u, count: %u,\n"
                     "       intra_bandwidth: 40GB/s, intra_latency: 3us,\n"
                     "       nics: 2, nic_bandwidth: 3GB/s}\n"
                     "  inter_bandwidth: 2GB/s\n"
                     "  inter_latency: 11us\n"
                     "collective: hierarchical\n"
                     "simulate: {steps: 4, send: %s}\n",
                     L * K * 1000000u, L, K,
                     send ? "eager" : "rendezvous");
            s = load(text);
            hs_replay_opts_from_scenario(s, &o);
            CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &r, &err),
                                  HS_OK);
            CU_ASSERT_STRING_EQUAL(r->collective, "hierarchical");
            if (r->step_ns != r->closed_step_ns)
                fprintf(stderr, "\nL=%u K=%u %s: replay %lld closed %lld\n",
                        L, K, send ? "eager" : "rendezvous",
                        (long long)r->step_ns,
                        (long long)r->closed_step_ns);
            HS_ASSERT_I64_EQ(r->step_ns, r->closed_step_ns);
            HS_ASSERT_I64_EQ(r->first_step_ns, r->closed_step_ns);
            hs_replay_result_free(r);
            hs_scenario_free(s);
        }
    }
}

/* A cluster of nodes of the sizes in sizes[] (0-terminated, one kind per
   node, in that order), into text: intra-node bandwidths differ per node,
   every node has one 2 GB/s NIC and the links between nodes are faster,
   so that a round across nodes takes M/K / 2 GB/s on every device. */
static void unequal_yaml(char *text, size_t cap, const unsigned *sizes,
                         const char *send, const char *extra)
{
    size_t len, i, K = 0, n = 0;

    while (sizes[K] != 0)
        n += sizes[K++];
    len = (size_t)snprintf(
        text, cap,
        "name: unequal\n"
        "job: {model: x, dataset: {samples: 100000}}\n"
        "device_types:\n"
        "  - name: gpu\n"
        "    batch: 100\n"
        "    profile: {subsystem_size: 2, t_dl: 5ms, t_fwd: 30ms,\n"
        "              t_b1: 1ms, allreduce_bytes: %zuB%s}\n"
        "nodes:\n"
        "  kinds:\n",
        K * 60000000, extra);
    for (i = 0; i < K; i++)
        len += (size_t)snprintf(
            text + len, cap - len,
            "    - {name: k%zu, type: gpu, devices: %u, count: 1,\n"
            "       intra_bandwidth: %zuGB/s, intra_latency: 3us,\n"
            "       nics: 1, nic_bandwidth: 2GB/s}\n",
            i, sizes[i], 40 + 10 * i);
    snprintf(text + len, cap - len,
             "  inter_bandwidth: 100GB/s\n"
             "  inter_latency: 11us\n"
             "collective: hierarchical\n"
             "simulate: {steps: 4, send: %s}\n",
             send);
    (void)n;
}

/* Nodes of different sizes, everyone ready at once: the hierarchical
   replay's step equals the closed form's to the ns, rendezvous and
   eager.  The closed form's maximum over the devices is the largest
   2(L_k-1) node rounds plus the 2(K-1) rounds across nodes; the replay
   ends there too (the slowest node's reduce-scatter, then 2(K-1) rounds
   that reach every node, then its all-gather). */
static void test_unequal_replay_equals_closed(void)
{
    static const unsigned shapes[][6] = {{1, 2, 4, 0}, {3, 5, 0},
                                         {4, 1, 2, 0}, {2, 3, 2, 5, 0},
                                         {5, 1, 0},    {1, 3, 1, 3, 1, 0}};
    size_t i;
    int send;

    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (send = 0; send < 2; send++) {
            char text[4096];
            hs_scenario_t *s;
            hs_replay_result_t *r = NULL;
            hs_replay_opts_t o;
            hs_error_t err;
            unequal_yaml(text, sizeof text, shapes[i],
                         send ? "eager" : "rendezvous", "");
            s = load(text);
            CU_ASSERT_EQUAL(s->nodes->local, 0);
            hs_replay_opts_from_scenario(s, &o);
            o.engine = 1;
            CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &r, &err),
                                  HS_OK);
            if (r->step_ns != r->closed_step_ns)
                fprintf(stderr, "\nshape %zu %s: replay %lld closed %lld\n",
                        i, send ? "eager" : "rendezvous",
                        (long long)r->step_ns,
                        (long long)r->closed_step_ns);
            HS_ASSERT_I64_EQ(r->step_ns, r->closed_step_ns);
            HS_ASSERT_I64_EQ(r->first_step_ns, r->closed_step_ns);
            hs_replay_result_free(r);
            hs_scenario_free(s);
        }
    }
}

/* Nodes of equal size through the tables that nodes of different sizes
   use (local cleared): the same rounds, closed form and replay as the
   arithmetic of equal nodes, with late devices, both send modes, with
   and without the communication's own cost. */
static void test_unequal_path_reduces_to_equal(void)
{
    static const unsigned shapes[][5] = {{4, 4, 4, 0}, {2, 2, 2, 2, 0},
                                         {3, 3, 0}};
    uint64_t rng = 7;
    size_t i;
    int mode;

    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (mode = 0; mode < 4; mode++) {
            char text[4096];
            hs_scenario_t *s;
            hs_replay_result_t *a = NULL, *b = NULL;
            hs_replay_opts_t o;
            hs_error_t err;
            size_t x, bad = 0;
            int64_t r, R;
            uint32_t L;
            unequal_yaml(text, sizeof text, shapes[i],
                         mode & 1 ? "eager" : "rendezvous",
                         mode & 2 ? ", comm_ns_per_byte: 0.5" : "");
            s = load(text);
            for (x = 0; x < s->n_devices; x++) {
                char key[64], val[32];
                rng = rng * 6364136223846793005ULL +
                      1442695040888963407ULL;
                snprintf(key, sizeof key, "devices.%s.extra_compute",
                         s->devices[x].name);
                snprintf(val, sizeof val, "%lluus",
                         (unsigned long long)((rng >> 33) % 20000));
                CU_ASSERT_EQUAL_FATAL(hs_scenario_set(s, key, val, &err),
                                      HS_OK);
            }
            CU_ASSERT_EQUAL_FATAL(hs_scenario_resolve(s, &err), HS_OK);
            L = s->nodes->local;
            CU_ASSERT_FATAL(L > 0);
            hs_replay_opts_from_scenario(s, &o);
            CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &a, &err),
                                  HS_OK);
            R = hs_coll_hier.rounds_of(s);
            s->nodes->local = 0;    /* the tables' path */
            HS_ASSERT_I64_EQ(hs_coll_hier.rounds_of(s), R);
            for (x = 0; x < s->n_devices; x++) {
                int64_t t = hs_coll_hier.allreduce_ns(s, (uint32_t)x);
                hs_coll_round_t p, q;
                for (r = 0; r < R; r++) {
                    s->nodes->local = L;
                    hs_coll_hier.round(s, (uint32_t)x, r, &p);
                    s->nodes->local = 0;
                    hs_coll_hier.round(s, (uint32_t)x, r, &q);
                    bad += p.to != q.to || p.from != q.from ||
                           p.edge != q.edge || p.parts != q.parts ||
                           p.ring_n != q.ring_n;
                }
                s->nodes->local = L;
                bad += hs_coll_hier.allreduce_ns(s, (uint32_t)x) != t;
                s->nodes->local = 0;
            }
            HS_ASSERT_I64_EQ(bad, 0);
            CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &b, &err),
                                  HS_OK);
            HS_ASSERT_I64_EQ(a->step_ns, b->step_ns);
            HS_ASSERT_I64_EQ(a->first_step_ns, b->first_step_ns);
            for (x = 0; x < s->n_devices; x++)
                bad += a->dev_step_ns[x] != b->dev_step_ns[x];
            HS_ASSERT_I64_EQ(bad, 0);
            s->nodes->local = L;
            hs_replay_result_free(a);
            hs_replay_result_free(b);
            hs_scenario_free(s);
        }
    }
}

/* Nodes of different sizes, devices late by random amounts, both send
   modes, with and without the communication's own cost: every step
   completes (no stall), and the first step is no shorter than the
   closed form (a device's own sends run one after the other). */
static void test_unequal_late_devices(void)
{
    static const unsigned shapes[][5] = {{1, 2, 4, 0}, {3, 5, 0},
                                         {4, 1, 1, 2, 0}, {2, 6, 0}};
    uint64_t rng = 123;
    size_t i;
    int mode;

    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (mode = 0; mode < 4; mode++) {
            char text[4096];
            hs_scenario_t *s;
            hs_replay_result_t *r = NULL;
            hs_replay_opts_t o;
            hs_error_t err;
            size_t x;
            unequal_yaml(text, sizeof text, shapes[i],
                         mode & 1 ? "eager" : "rendezvous",
                         mode & 2 ? ", comm_ns_per_byte: 0.5" : "");
            s = load(text);
            for (x = 0; x < s->n_devices; x++) {
                char key[64], val[32];
                rng = rng * 6364136223846793005ULL +
                      1442695040888963407ULL;
                snprintf(key, sizeof key, "devices.%s.extra_compute",
                         s->devices[x].name);
                snprintf(val, sizeof val, "%lluus",
                         (unsigned long long)((rng >> 33) % 20000));
                CU_ASSERT_EQUAL_FATAL(hs_scenario_set(s, key, val, &err),
                                      HS_OK);
            }
            CU_ASSERT_EQUAL_FATAL(hs_scenario_resolve(s, &err), HS_OK);
            hs_replay_opts_from_scenario(s, &o);
            if (hs_replay_run(s, &o, NULL, 0, &r, &err) != HS_OK)
                fprintf(stderr, "\nunequal late %zu/%d: %s\n", i, mode,
                        err.msg);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            HS_ASSERT_I64_EQ(r->steps, 4);
            CU_ASSERT_TRUE(r->first_step_ns >= r->closed_step_ns);
            hs_replay_result_free(r);
            hs_scenario_free(s);
        }
    }
}

/* Devices late by random amounts, both send modes, with and without the
   communication's own cost: the hierarchical replay completes every step
   (no stall) and no device ends a step before its own closed form
   (its 2(L-1) + 2(K-1) sends run one after the other after it opens). */
static void test_replay_late_devices(void)
{
    uint64_t rng = 99;
    int round;

    for (round = 0; round < 8; round++) {
        char text[2048];
        hs_scenario_t *s;
        hs_replay_result_t *r = NULL;
        hs_replay_opts_t o;
        hs_error_t err;
        unsigned L = 2 + round % 3, K = 2 + round / 3;
        size_t i;
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        snprintf(text, sizeof text,
                 "name: late\n"
                 "job: {model: x, dataset: {samples: 100000}}\n"
                 "device_types:\n"
                 "  - name: gpu\n"
                 "    batch: 100\n"
                 "    profile: {subsystem_size: 2, t_dl: 5ms, t_fwd: 30ms,\n"
                 "              t_b1: 1ms, allreduce_bytes: %uB%s}\n"
                 "nodes:\n"
                 "  kinds:\n"
                 "    - {name: n, type: gpu, devices: %u, count: %u,\n"
                 "       intra_bandwidth: 40GB/s, intra_latency: 3us}\n"
                 "  inter_bandwidth: 2GB/s\n"
                 "  inter_latency: 11us\n"
                 "collective: hierarchical\n"
                 "simulate: {steps: 5, send: %s}\n",
                 L * K * 1000000u, round % 4 == 3 ? ", comm_ns_per_byte: 0.5"
                                                  : "",
                 L, K, round % 2 ? "eager" : "rendezvous");
        s = load(text);
        for (i = 0; i < s->n_devices; i++) {
            char key[64], val[32];
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            snprintf(key, sizeof key, "devices.%s.extra_compute",
                     s->devices[i].name);
            snprintf(val, sizeof val, "%lluus",
                     (unsigned long long)((rng >> 33) % 20000));
            CU_ASSERT_EQUAL_FATAL(hs_scenario_set(s, key, val, &err), HS_OK);
        }
        CU_ASSERT_EQUAL_FATAL(hs_scenario_resolve(s, &err), HS_OK);
        hs_replay_opts_from_scenario(s, &o);
        if (hs_replay_run(s, &o, NULL, 0, &r, &err) != HS_OK)
            fprintf(stderr, "\nlate %d: %s\n", round, err.msg);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->steps, 5);
        CU_ASSERT_TRUE(r->first_step_ns >= r->closed_step_ns);
        hs_replay_result_free(r);
        hs_scenario_free(s);
    }
}

/* Counts the hop_wait intervals of a traced replay by the ring they
   belong to (hs_coll_hier.c's phases) and checks each one's length. */
typedef struct hop_tally_s {
    int64_t L, K;             /* node size, nodes */
    int64_t want_in_ns, want_out_ns;
    size_t n_in, n_out, bad;
} hop_tally_t;

static hs_err_t hop_write(void *ctx, const hs_interval_t *iv, size_t n,
                          hs_error_t *err)
{
    hop_tally_t *c = ctx;
    size_t i;

    (void)err;
    for (i = 0; i < n; i++) {
        int64_t r = iv[i].round, A = c->L - 1, B = 2 * (c->K - 1);
        int in;

        if (iv[i].phase != HS_PH_HOP_WAIT)
            continue;
        in = r < A || r >= A + B;
        if (in)
            c->n_in++;
        else
            c->n_out++;
        c->bad += iv[i].end_ns - iv[i].start_ns !=
                  (in ? c->want_in_ns : c->want_out_ns);
    }
    return HS_OK;
}

/* The hop wait (t_hop_wait, docs/method.md) in the hierarchical
   collective grows with the ring each round runs along, not with every
   device: nodes of L = 4 devices, K = 3 nodes (N = 12), a probe's 2 ms
   in a sub-system of 2 under 0.3 cores per 10 ms.  The wait is
   min(w (n-1)/(2-1), max(w, 10/0.6 ms)): 6 ms in a node's ring (n = 4),
   4 ms in the ring across nodes (n = 3), against 16.667 ms for the flat
   ring of 12.  A backward of 5 s outlasts the all-reduce (patent: it
   opens after the first backward operator), so every chunk reaches a
   computing device and waits: per device and step 2(L-1) = 6 waits of
   6 ms and 2(K-1) = 4 of 4 ms.  simulate.hop_wait: probe waits 2 ms in
   both. */
static void test_hier_hop_wait(void)
{
    const int64_t MS = 1000000;
    int probe;

    for (probe = 0; probe < 2; probe++) {
        char text[2048];
        hs_scenario_t *s;
        hs_replay_result_t *r = NULL;
        hs_replay_opts_t o;
        hs_error_t err;
        hs_trace_sink_t sink;
        hop_tally_t c;
        size_t rn[2];

        snprintf(text, sizeof text,
                 "name: hierhop\n"
                 "job: {model: x, dataset: {samples: 100000}}\n"
                 "device_types:\n"
                 "  - name: cpu\n"
                 "    batch: 100\n"
                 "    profile: {subsystem_size: 2, t_dl: 5ms, t_fwd: 30ms,\n"
                 "              t_b1: 1ms, t_bwd: 5s, allreduce_bytes: 12MB,\n"
                 "              t_hop_wait: 2ms, cpu_quota_cores: 0.3,\n"
                 "              t_cpu_period: 10ms}\n"
                 "nodes:\n"
                 "  kinds:\n"
                 "    - {name: n, type: cpu, devices: 4, count: 3,\n"
                 "       intra_bandwidth: 40GB/s, intra_latency: 3us}\n"
                 "  inter_bandwidth: 2GB/s\n"
                 "  inter_latency: 11us\n"
                 "collective: hierarchical\n"
                 "simulate: {steps: 2, overlap: patent, hop_wait: %s}\n",
                 probe ? "probe" : "ring");
        s = load(text);
        HS_ASSERT_I64_EQ(s->n_devices, 12);
        HS_ASSERT_I64_EQ(hs_replay_hop_rings(s, "hierarchical", rn), 2);
        HS_ASSERT_I64_EQ(rn[0], 4);
        HS_ASSERT_I64_EQ(rn[1], 3);
        HS_ASSERT_I64_EQ(hs_replay_hop_rings(s, "ring", rn), 1);
        HS_ASSERT_I64_EQ(rn[0], 12);
        HS_ASSERT_I64_EQ(hs_replay_hop_rings(s, NULL, rn), 1);
        memset(&c, 0, sizeof c);
        c.L = 4;
        c.K = 3;
        c.want_in_ns = probe ? 2 * MS : 6 * MS;
        c.want_out_ns = probe ? 2 * MS : 4 * MS;
        HS_ASSERT_I64_EQ(hs_replay_hop_wait_ring_ns(s, 0, s->hop_wait, 4),
                         c.want_in_ns);
        HS_ASSERT_I64_EQ(hs_replay_hop_wait_ring_ns(s, 0, s->hop_wait, 3),
                         c.want_out_ns);
        /* the flat ring's, as simulate --json's hop_wait_ns */
        HS_ASSERT_I64_EQ(hs_replay_hop_wait_ns(s, 0, s->hop_wait),
                         probe ? 2 * MS : 16666667);
        sink.ctx = &c;
        sink.write = hop_write;
        sink.steps = NULL;        /* the intervals only */
        hs_replay_opts_from_scenario(s, &o);
        if (hs_replay_run(s, &o, &sink, 1, &r, &err) != HS_OK)
            fprintf(stderr, "\nhier hop: %s\n", err.msg);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_STRING_EQUAL(r->collective, "hierarchical");
        HS_ASSERT_I64_EQ(c.n_in, (size_t)12 * 2 * 6);
        HS_ASSERT_I64_EQ(c.n_out, (size_t)12 * 2 * 4);
        HS_ASSERT_I64_EQ(c.bad, 0);
        hs_replay_result_free(r);
        hs_scenario_free(s);
    }
}

static const char bad_head[] =
    "name: bad\n"
    "device_types:\n"
    "  - name: gpu\n"
    "    batch: 100\n"
    "    profile: {subsystem_size: 2, t_fwd: 10ms, t_b1: 1ms,\n"
    "              allreduce_bytes: 8MB}\n";

static void test_errors(void)
{
    char text[2048];

    /* nodes of unequal size run the hierarchical all-reduce; a node of
       no device is refused where it is declared */
    snprintf(text, sizeof text,
             "%snodes:\n"
             "  kinds:\n"
             "    - {name: big, type: gpu, devices: 8, count: 1,\n"
             "       intra_bandwidth: 100GB/s}\n"
             "    - {name: small, type: gpu, devices: 0, count: 2,\n"
             "       intra_bandwidth: 50GB/s}\n"
             "  inter_bandwidth: 10GB/s\n"
             "collective: hierarchical\n",
             bad_head);
    load_fails(text, HS_ERR_RANGE,
               "nodes.yaml:11:41: devices must be between 1 and 1048576, "
               "not 0");
    /* nodes of one and four devices, no bandwidth between the two
       nodes of one: at the nodes: section, naming the pair */
    snprintf(text, sizeof text,
             "%snodes:\n"
             "  kinds:\n"
             "    - {name: big, type: gpu, devices: 4, count: 1,\n"
             "       intra_bandwidth: 100GB/s}\n"
             "    - {name: one, type: gpu, devices: 1, count: 2}\n"
             "  kind_links: [[big, one, 1GB/s]]\n"
             "collective: hierarchical\n",
             bad_head);
    load_fails(text, HS_ERR_NETWORK,
               "nodes.yaml:8:3: nodes one-0 -> one-1 have no inter-node "
               "bandwidth");
    /* unknown node kind in a kind-pair row */
    snprintf(text, sizeof text,
             "%snodes:\n"
             "  kinds:\n"
             "    - {name: box, type: gpu, devices: 2, count: 2,\n"
             "       intra_bandwidth: 100GB/s}\n"
             "  inter_bandwidth: 10GB/s\n"
             "  kind_links: [[box, crate, 1GB/s]]\n",
             bad_head);
    load_fails(text, HS_ERR_SCHEMA,
               "nodes.yaml:12:22: kind_links names unknown node kind "
               "'crate'");
    /* unknown device type in a kind */
    snprintf(text, sizeof text,
             "%snodes:\n"
             "  kinds:\n"
             "    - {name: box, type: tpu, devices: 2, count: 2,\n"
             "       intra_bandwidth: 100GB/s}\n",
             bad_head);
    load_fails(text, HS_ERR_SCHEMA,
               "nodes.yaml:9:25: node kind 'box' names unknown device type "
               "'tpu'");
    /* a node-pair row naming a node that does not exist */
    snprintf(text, sizeof text,
             "%snodes:\n"
             "  kinds:\n"
             "    - {name: box, type: gpu, devices: 2, count: 2,\n"
             "       intra_bandwidth: 100GB/s}\n"
             "  inter_bandwidth: 10GB/s\n"
             "  links: [[box-0, box-2, 1GB/s]]\n",
             bad_head);
    load_fails(text, HS_ERR_SCHEMA,
               "nodes.yaml:12:19: nodes.links names unknown node 'box-2'");
    /* no inter-node bandwidth: at the nodes: section */
    snprintf(text, sizeof text,
             "%snodes:\n"
             "  kinds:\n"
             "    - {name: box, type: gpu, devices: 2, count: 2,\n"
             "       intra_bandwidth: 100GB/s}\n",
             bad_head);
    load_fails(text, HS_ERR_NETWORK,
               "nodes.yaml:8:3: nodes box-0 -> box-1 have no inter-node "
               "bandwidth (devices box-0-1 -> box-1-0)");
    /* several devices per node and no intra-node bandwidth */
    snprintf(text, sizeof text,
             "%snodes:\n"
             "  kinds:\n"
             "    - {name: box, type: gpu, devices: 2, count: 2}\n"
             "  inter_bandwidth: 10GB/s\n",
             bad_head);
    load_fails(text, HS_ERR_NETWORK,
               "nodes.yaml:9:7: node kind 'box' has 2 devices per node but "
               "no intra_bandwidth");
    /* the flat form has no nodes */
    snprintf(text, sizeof text,
             "%s    count: 4\n"
             "network: {default_bandwidth: 10GB/s}\n"
             "collective: hierarchical\n",
             bad_head);
    load_fails(text, HS_ERR_SCHEMA,
               "nodes.yaml:9:13: collective: hierarchical needs a nodes: "
               "section");
    /* an unknown collective */
    snprintf(text, sizeof text,
             "%s    count: 4\n"
             "network: {default_bandwidth: 10GB/s}\n"
             "collective: butterfly\n",
             bad_head);
    load_fails(text, HS_ERR_RANGE,
               "nodes.yaml:9:13: collective: unknown collective 'butterfly' "
               "(known: ring, hierarchical, tree, auto)");
    /* nodes and devices both */
    snprintf(text, sizeof text,
             "%snodes:\n"
             "  kinds:\n"
             "    - {name: box, type: gpu, devices: 2, count: 2,\n"
             "       intra_bandwidth: 100GB/s}\n"
             "devices:\n"
             "  - {name: d0, type: gpu, addr: x}\n",
             bad_head);
    load_fails(text, HS_ERR_SCHEMA, "give nodes: or devices:, not both");
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* 100,000 devices in 12,500 nodes of 8 (two kinds): load and predict,
   both collectives; the times printed, not asserted. */
static void test_predict_100k(void)
{
    static const char text[] =
        "name: big\n"
        "job: {model: x, dataset: {samples: 100000000}, epochs: 1}\n"
        "device_types:\n"
        "  - name: A100\n"
        "    batch: 32\n"
        "    profile: {subsystem_size: 2, t_dl: 5ms, t_fwd: 40ms,\n"
        "              t_b1: 1ms, allreduce_bytes: 400MB}\n"
        "  - name: MI250\n"
        "    batch: 24\n"
        "    profile: {subsystem_size: 2, t_dl: 5ms, t_fwd: 45ms,\n"
        "              t_b1: 1ms, allreduce_bytes: 400MB}\n"
        "nodes:\n"
        "  kinds:\n"
        "    - {name: dgx, type: A100, devices: 8, count: 7500,\n"
        "       intra_bandwidth: 300GB/s, intra_latency: 2us,\n"
        "       nics: 8, nic_bandwidth: 25GB/s}\n"
        "    - {name: mi, type: MI250, devices: 8, count: 5000,\n"
        "       intra_bandwidth: 100GB/s, intra_latency: 3us,\n"
        "       nics: 4, nic_bandwidth: 25GB/s}\n"
        "  inter_bandwidth: 50GB/s\n"
        "  inter_latency: 8us\n"
        "  kind_links: [[dgx, mi, 25GB/s, 12us]]\n"
        "  links: [[dgx-0, dgx-1, 10GB/s]]\n";
    hs_scenario_t *s;
    hs_prediction_t *p = NULL;
    hs_error_t err;
    double t0, t1, t2, t3;

    t0 = now_s();
    s = load(text);
    t1 = now_s();
    CU_ASSERT_EQUAL_FATAL(hs_closed_predict(s, &p, &err), HS_OK);
    t2 = now_s();
    HS_ASSERT_I64_EQ(s->n_devices, 100000);
    printf("\n  100,000 devices in nodes: load %.3f s, predict (ring) "
           "%.3f s, step %.3f ms\n",
           t1 - t0, t2 - t1, (double)p->step_ns * 1e-6);
    hs_prediction_free(p);
    CU_ASSERT_EQUAL(hs_scenario_set(s, "collective", "hierarchical", &err),
                    HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_scenario_resolve(s, &err), HS_OK);
    t2 = now_s();
    CU_ASSERT_EQUAL_FATAL(hs_closed_predict(s, &p, &err), HS_OK);
    t3 = now_s();
    printf("  predict (hierarchical) %.3f s, step %.3f ms\n", t3 - t2,
           (double)p->step_ns * 1e-6);
    hs_prediction_free(p);
    hs_scenario_free(s);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("nodes", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "a small cluster expands as worked out by hand",
                    test_expand_small) == NULL ||
        CU_add_test(s, "hierarchical closed form by hand, set, clone",
                    test_hier_closed_by_hand) == NULL ||
        CU_add_test(s, "hierarchical replay = closed form (homogeneous)",
                    test_replay_equals_closed) == NULL ||
        CU_add_test(s, "hierarchical replay with late devices",
                    test_replay_late_devices) == NULL ||
        CU_add_test(s, "unequal nodes: replay = closed form",
                    test_unequal_replay_equals_closed) == NULL ||
        CU_add_test(s, "unequal nodes' tables = equal nodes' arithmetic",
                    test_unequal_path_reduces_to_equal) == NULL ||
        CU_add_test(s, "unequal nodes: replay with late devices",
                    test_unequal_late_devices) == NULL ||
        CU_add_test(s, "hierarchical hop wait grows per ring",
                    test_hier_hop_wait) == NULL ||
        CU_add_test(s, "errors at file:line:col", test_errors) == NULL ||
        CU_add_test(s, "predict on 100,000 devices (timed)",
                    test_predict_100k) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
