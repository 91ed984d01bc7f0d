/*
 * test_tree.c -- the double binary tree all-reduce (collective: tree,
 * model/hs_coll_tree_shape.c, sim/hs_coll_tree.c): the trees against
 * NCCL's own illustrations (src/graph/trees.cc), the bytes through each
 * node's NIC against docs/nccl-notes.md section 3, the closed form by hand
 * on two nodes, and the event-engine replay against the closed form to
 * the ns (everyone ready at once) on 2, 3, 4, 5 and 8 nodes of unequal
 * sizes, both send modes; collective: auto: NCCL's predicted times worked
 * out by hand from its constants (src/graph/tuning.cc), the choice on a
 * small and a large payload, and that auto then times the chosen one.
 */
#include <stdio.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_coll_auto.h"
#include "hs_coll_tree_shape.h"
#include "hs_collective.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"

static hs_scenario_t *load(const char *text)
{
    hs_scenario_t *s = NULL;
    hs_error_t err;
    hs_err_t rc = hs_scenario_load_text(text, strlen(text), "tree.yaml",
                                        NULL, &s, &err);

    if (rc != HS_OK)
        fprintf(stderr, "\nload: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, HS_OK);
    return s;
}

/* trees.cc's pictures: the binary tree of 14 ranks, the mirror of 12,
   the shift of 13 (parents, -1 for the root). */
static void test_trees_as_nccl_draws_them(void)
{
    static const int64_t bt14[14] = {-1, 2, 4, 2, 8, 6, 4,
                                     6, 0, 10, 12, 10, 8, 12};
    static const int64_t mirror12[12] = {1, 3, 1, 11, 5, 7,
                                         5, 3, 9, 7, 9, -1};
    static const int64_t shift13[13] = {9, -1, 3, 5, 3, 9, 7,
                                        5, 7, 1, 11, 0, 11};
    int64_t r, up, d0, d1;

    for (r = 0; r < 14; r++) {
        hs_tree_btree(14, r, &up, &d0, &d1);
        HS_ASSERT_I64_EQ(up, bt14[r]);
        /* each child names r as its parent */
        if (d0 >= 0) {
            int64_t u, a, b;
            hs_tree_btree(14, d0, &u, &a, &b);
            HS_ASSERT_I64_EQ(u, r);
        }
    }
    for (r = 0; r < 12; r++) {
        hs_tree_dtree(12, 1, r, &up, &d0, &d1);
        HS_ASSERT_I64_EQ(up, mirror12[r]);
    }
    for (r = 0; r < 13; r++) {
        hs_tree_dtree(13, 1, r, &up, &d0, &d1);
        HS_ASSERT_I64_EQ(up, shift13[r]);
    }
}

/* Half the payload per tree to the parent and to each child: the busiest
   node's NIC carries M (K = 2), 1.5 M (K = 3), 2 M (K >= 4) each way
   (docs/nccl-notes.md section 3). */
static void test_nic_bytes(void)
{
    int64_t K;

    for (K = 2; K <= 64; K++) {
        double worst = 0;
        int64_t n;
        for (n = 0; n < K; n++) {
            double out = 0;
            int t;
            for (t = 0; t < 2; t++) {
                int64_t up, d0, d1;
                hs_tree_dtree(K, t, n, &up, &d0, &d1);
                out += 0.5 * ((up >= 0) + (d0 >= 0) + (d1 >= 0));
            }
            if (out > worst)
                worst = out;
        }
        HS_ASSERT_DBL_NEAR(worst, K == 2 ? 1.0 : K == 3 ? 1.5 : 2.0, 1e-12);
    }
}

/* Two nodes of one device: each is the root of one tree and the leaf of
   the other.  Reduce: each sends its P chunks of the tree it is a leaf of,
   back to back; broadcast: each sends the P chunks of the tree it is the
   root of: 2P (a + (M / 2P) / B) = 16 x (5 us + 1 MB / 2 GB/s). */
static void test_two_nodes_by_hand(void)
{
    hs_scenario_t *s = load(
        "name: two\n"
        "job: {model: x, dataset: {samples: 1000}}\n"
        "device_types:\n"
        "  - name: gpu\n"
        "    batch: 100\n"
        "    profile: {subsystem_size: 2, t_fwd: 30ms, t_b1: 1ms,\n"
        "              allreduce_bytes: 16MB}\n"
        "nodes:\n"
        "  kinds:\n"
        "    - {name: n, type: gpu, devices: 1, count: 2,\n"
        "       nics: 1, nic_bandwidth: 2GB/s}\n"
        "  inter_bandwidth: 10GB/s\n"
        "  inter_latency: 5us\n"
        "collective: tree\n");
    const int64_t want = 16 * (5000 + 500000);

    HS_ASSERT_I64_EQ(HS_TREE_CHUNKS, 8);
    HS_ASSERT_I64_EQ(hs_coll_tree.allreduce_ns(s, 0), want);
    HS_ASSERT_I64_EQ(hs_coll_tree.allreduce_ns(s, 1), want);
    /* tree_chunks: 2 -> 4 x (5 us + 4 MB / 2 GB/s) */
    {
        hs_error_t err;
        HS_ASSERT_I64_EQ(hs_scenario_set(s, "tree_chunks", "0", &err),
                         HS_ERR_RANGE);
        HS_ASSERT_I64_EQ(hs_scenario_set(s, "tree_chunks", "2", &err),
                         HS_OK);
    }
    HS_ASSERT_I64_EQ(s->tree_chunks, 2);
    HS_ASSERT_I64_EQ(hs_coll_tree.rounds_of(s), 17);
    HS_ASSERT_I64_EQ(hs_coll_tree.allreduce_ns(s, 0), 4 * (5000 + 2000000));
    hs_scenario_free(s);
}

/* One device per node, no latency, 64 chunks: the busiest device's
   T_ar is the notes' fluid X_K M / B_nic (nccl-notes.md 5(b); X = 1, 1.5,
   2 for K = 2, 3, >= 4) plus a pipeline fill of at most 2 (log2 K + 1)
   chunks of M / 128 (1 ms here). */
static void test_fluid_limit(void)
{
    static const unsigned Ks[] = {2, 3, 4, 5, 6, 8, 13, 16};
    size_t i;

    for (i = 0; i < sizeof Ks / sizeof Ks[0]; i++) {
        char text[1024];
        hs_scenario_t *s;
        unsigned K = Ks[i], lg = 0;
        int64_t worst = 0, fluid, chunk = 1000000;
        uint32_t x;
        snprintf(text, sizeof text,
                 "name: fluid\n"
                 "job: {model: x, dataset: {samples: 100000}}\n"
                 "device_types:\n"
                 "  - name: gpu\n"
                 "    batch: 100\n"
                 "    profile: {subsystem_size: 2, t_fwd: 30ms, t_b1: 1ms,\n"
                 "              allreduce_bytes: 128MB}\n"
                 "nodes:\n"
                 "  kinds:\n"
                 "    - {name: n, type: gpu, devices: 1, count: %u,\n"
                 "       nics: 1, nic_bandwidth: 1GB/s}\n"
                 "  inter_bandwidth: 10GB/s\n"
                 "  inter_latency: 0s\n"
                 "collective: tree\n"
                 "tree_chunks: 64\n",
                 K);
        s = load(text);
        for (x = 0; x < K; x++)
            if (hs_coll_tree.allreduce_ns(s, x) > worst)
                worst = hs_coll_tree.allreduce_ns(s, x);
        while ((1u << (lg + 1)) <= K)
            lg++;
        fluid = K == 2 ? 128000000 : K == 3 ? 192000000 : 256000000;
        if (worst < fluid || worst > fluid + 2 * (lg + 1) * chunk)
            fprintf(stderr, "\nK=%u: T_ar %lld, fluid %lld\n", K,
                    (long long)worst, (long long)fluid);
        CU_ASSERT(worst >= fluid);
        CU_ASSERT(worst <= fluid + 2 * (int64_t)(lg + 1) * chunk);
        hs_scenario_free(s);
    }
}

/* Nodes of 3, 1 and 2 devices in turn (K nodes), everyone ready at once:
   the replay's first step equals the closed form to the ns, both send
   modes (the tree's sends are eager either way), 1 to 8 chunks. */
static void test_replay_equals_closed(void)
{
    static const unsigned Ks[] = {2, 3, 4, 5, 8};
    static const unsigned chunks[] = {8, 1, 3, 8, 5};   /* tree_chunks */
    size_t i;
    int send;

    for (i = 0; i < sizeof Ks / sizeof Ks[0]; i++) {
        for (send = 0; send < 2; send++) {
            char text[2048];
            hs_scenario_t *s;
            hs_replay_result_t *r = NULL;
            hs_replay_opts_t o;
            hs_error_t err;
            unsigned K = Ks[i], ka = (K + 2) / 3, kb = (K + 1) / 3,
                     kc = K / 3;
            snprintf(text, sizeof text,
                     "name: eq\n"
                     "job: {model: x, dataset: {samples: 100000}}\n"
                     "device_types:\n"
                     "  - name: gpu\n"
                     "    batch: 100\n"
                     "    profile: {subsystem_size: 2, t_dl: 5ms, "
                     "t_fwd: 30ms,\n"
                     "              t_b1: 1ms, allreduce_bytes: 37MB}\n"
                     "nodes:\n"
                     "  kinds:\n"
                     "    - {name: a, type: gpu, devices: 3, count: %u,\n"
                     "       intra_bandwidth: 40GB/s, intra_latency: 3us,\n"
                     "       nics: 2, nic_bandwidth: 3GB/s}\n"
                     "    - {name: b, type: gpu, devices: 1, count: %u,\n"
                     "       intra_bandwidth: 40GB/s,\n"
                     "       nics: 1, nic_bandwidth: 1.5GB/s}\n"
                     "    - {name: c, type: gpu, devices: 2, count: %u,\n"
                     "       intra_bandwidth: 20GB/s, intra_latency: 7us}\n"
                     "  inter_bandwidth: 2GB/s\n"
                     "  inter_latency: 11us\n"
                     "collective: tree\n"
                     "tree_chunks: %u\n"
                     "simulate: {steps: 3, overlap: none, send: %s}\n",
                     ka, kb, kc, chunks[i], send ? "eager" : "rendezvous");
            s = load(text);
            hs_replay_opts_from_scenario(s, &o);
            o.engine = 1;
            CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &r, &err),
                                  HS_OK);
            CU_ASSERT_STRING_EQUAL(r->collective, "tree");
            if (r->first_step_ns != r->closed_step_ns)
                fprintf(stderr, "\nK=%u %s: replay %lld closed %lld\n", K,
                        send ? "eager" : "rendezvous",
                        (long long)r->first_step_ns,
                        (long long)r->closed_step_ns);
            HS_ASSERT_I64_EQ(r->first_step_ns, r->closed_step_ns);
            /* later steps open unevenly: never slower than the first */
            CU_ASSERT(r->step_ns <= r->closed_step_ns);
            CU_ASSERT(r->step_ns > 0);
            hs_replay_result_free(r);
            hs_scenario_free(s);
        }
    }
}

/* Without nodes the tree has no nodes to span: a clear error. */
static void test_needs_nodes(void)
{
    const char *text =
        "name: flat\n"
        "job: {model: x, dataset: {samples: 1000}}\n"
        "device_types:\n"
        "  - {name: gpu, count: 4, batch: 10,\n"
        "     profile: {t_fwd: 1ms, t_b1: 1ms, allreduce_bytes: 1MB}}\n"
        "network: {default_bandwidth: 1GB/s}\n"
        "collective: tree\n";
    hs_scenario_t *s = NULL;
    hs_error_t err;

    HS_ASSERT_I64_EQ(hs_scenario_load_text(text, strlen(text), "flat.yaml",
                                           NULL, &s, &err),
                     HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(err.msg, "tree needs a nodes: section");
    CU_ASSERT_PTR_NULL(s);
    {
        char bad[1024];
        snprintf(bad, sizeof bad, "%stree_chunks: 65\n", text);
        HS_ASSERT_I64_EQ(hs_scenario_load_text(bad, strlen(bad),
                                               "flat.yaml", NULL, &s, &err),
                         HS_ERR_RANGE);
        HS_ASSERT_STR_CONTAINS(err.msg, "flat.yaml:8:14: tree_chunks");
    }
}

/* Buckets on two streams, a communication cost, a hop wait, stragglers,
   both send modes: the tree replay completes every step (no stall), and
   a step is never shorter than the slowest device's compute (forward and
   whole backward) nor than the tree's closed-form all-reduce alone. */
static void test_replay_buckets_streams(void)
{
    int send;

    for (send = 0; send < 2; send++) {
        char text[2048];
        hs_scenario_t *s;
        hs_replay_result_t *r = NULL;
        hs_replay_opts_t o;
        hs_error_t err;
        int64_t t_ar = 0;
        uint32_t x;
        snprintf(text, sizeof text,
                 "name: tb\n"
                 "job: {model: x, dataset: {samples: 100000}}\n"
                 "device_types:\n"
                 "  - name: gpu\n"
                 "    batch: 100\n"
                 "    profile:\n"
                 "      subsystem_size: 2\n"
                 "      t_fwd: 30ms\n"
                 "      t_b1: 1ms\n"
                 "      t_bwd: 40ms\n"
                 "      allreduce_bytes: 64MB\n"
                 "      comm_ns_per_byte: 0.05\n"
                 "      t_hop_wait: 20us\n"
                 "      buckets:\n"
                 "        - {bytes: 30MB, ready: 10ms}\n"
                 "        - {bytes: 34MB, ready: 35ms}\n"
                 "nodes:\n"
                 "  kinds:\n"
                 "    - {name: a, type: gpu, devices: 3, count: 2,\n"
                 "       intra_bandwidth: 40GB/s, nics: 1,\n"
                 "       nic_bandwidth: 3GB/s}\n"
                 "    - {name: b, type: gpu, devices: 1, count: 3,\n"
                 "       intra_bandwidth: 40GB/s}\n"
                 "  inter_bandwidth: 5GB/s\n"
                 "  inter_latency: 11us\n"
                 "collective: tree\n"
                 "tree_chunks: 3\n"
                 "simulate: {steps: 5, overlap: buckets, streams: 2,\n"
                 "           send: %s,\n"
                 "           stragglers: [{device: a-0-1, steps: 1,\n"
                 "                         factor: 2.0}]}\n",
                 send ? "eager" : "rendezvous");
        s = load(text);
        for (x = 0; x < s->n_devices; x++)
            if (hs_coll_tree.allreduce_ns(s, x) > t_ar)
                t_ar = hs_coll_tree.allreduce_ns(s, x);
        hs_replay_opts_from_scenario(s, &o);
        CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_OK);
        HS_ASSERT_I64_EQ(r->n_buckets, 2);
        HS_ASSERT_I64_EQ(r->streams, 2);
        for (x = 0; x < r->steps; x++) {
            CU_ASSERT(r->cluster_step_ns[x] >= 70000000);
            CU_ASSERT(r->cluster_step_ns[x] >= t_ar);
        }
        hs_replay_result_free(r);
        hs_scenario_free(s);
    }
}

/* Step records of step 0 per device (the first 6 devices). */
typedef struct hs__ends_s {
    int64_t sim_ns[6];
} hs__ends_t;

static hs_err_t hs__ends_steps(void *ctx, const hs_step_rec_t *rec, size_t n,
                               hs_error_t *err)
{
    hs__ends_t *e = ctx;
    size_t i;

    (void)err;
    for (i = 0; i < n; i++)
        if (rec[i].step == 0 && rec[i].device < 6)
            e->sim_ns[rec[i].device] = rec[i].sim_ns;
    return HS_OK;
}

/* Two nodes of devs devices (one, or a chain each), `chunks` chunks per
   tree, payload mb MB, inter 1 GB/s + 10 us (4.01 ms per 4 MB chunk),
   intra 4 GB/s (1 ms per 4 MB), a communication cost of c ns/B (w = c x
   the chunk's bytes), overlap none (everyone opens after 2 ms of compute,
   no debt): the event engine's first step; each device's own step 0 into
   dev_ns[0..5] (traced) when dev_ns is not NULL. */
static int64_t hs__cost_run_ns(unsigned devs, double c, unsigned mb,
                               unsigned chunks, int64_t *dev_ns)
{
    char text[1024];
    hs_scenario_t *s;
    hs_replay_result_t *r = NULL;
    hs_replay_opts_t o;
    hs_trace_sink_t sink;
    hs__ends_t ends;
    hs_error_t err;
    int64_t step = -1;
    unsigned i;

    snprintf(text, sizeof text,
             "name: cost\n"
             "job: {model: x, dataset: {samples: 1000}}\n"
             "device_types:\n"
             "  - name: gpu\n"
             "    batch: 10\n"
             "    profile: {subsystem_size: 2, t_fwd: 1ms, t_b1: 1ms,\n"
             "              allreduce_bytes: %uMB, comm_ns_per_byte: %g}\n"
             "nodes:\n"
             "  kinds:\n"
             "    - {name: n, type: gpu, devices: %u, count: 2,\n"
             "       intra_bandwidth: 4GB/s}\n"
             "  inter_bandwidth: 1GB/s\n"
             "  inter_latency: 10us\n"
             "collective: tree\n"
             "tree_chunks: %u\n"
             "simulate: {steps: 2, overlap: none}\n",
             mb, c, devs, chunks);
    s = load(text);
    hs_replay_opts_from_scenario(s, &o);
    o.engine = 1;
    memset(&sink, 0, sizeof sink);
    memset(&ends, 0, sizeof ends);
    sink.ctx = &ends;
    sink.steps = hs__ends_steps;
    if (hs_replay_run(s, &o, dev_ns != NULL ? &sink : NULL,
                      dev_ns != NULL ? 1 : 0, &r, &err) == HS_OK) {
        step = r->first_step_ns;
        /* the closed form has no communication cost: 2 ms + the tree
           (2P chunk times on one-device nodes) */
        if (chunks == 1 && devs <= 2)
            HS_ASSERT_I64_EQ(r->closed_step_ns,
                             devs == 1 ? 10020000 : 12020000);
        else if (devs == 1)
            HS_ASSERT_I64_EQ(r->closed_step_ns, 2000000 + 2 * chunks *
                                 (int64_t)(mb / (2 * chunks)) * 1000000 +
                                 2 * chunks * 10000);
    } else
        fprintf(stderr, "\nreplay: %s\n", err.msg);
    for (i = 0; dev_ns != NULL && i < 6; i++)
        dev_ns[i] = ends.sim_ns[i];
    hs_replay_result_free(r);
    hs_scenario_free(s);
    return step;
}

/* The cases of one chunk per tree, 8 MB (4 MB chunks). */
static int64_t hs__cost_step_ns(unsigned devs, double c)
{
    return hs__cost_run_ns(devs, c, 8, 1, NULL);
}

/* A chunk is usable once it has arrived and been processed, and a round
   waits for that, as the ring's rounds do; a device processes each tree's
   chunks in its own queue (one at a time, in the order they left), the
   two trees' queues side by side.  By hand:
   - two one-device nodes A (root of tree 0) and B (root of tree 1): each
     sends its leaf tree's chunk at 0 (arrives t = 4.01 ms, usable at
     max(t, w)); then each root sends the reduced chunk back down, usable
     max(t, w) later: 2 max(t, w).  w = 2 ns/B x 4 MB = 8 ms: 16 ms (the
     engine that counted the chunk usable at arrival: 2t = 8.02 ms); w =
     0.5 x 4 MB = 2 ms < t: 8.02 ms, as without a cost.
   - two nodes of two devices, a0 a1 | b0 b1 (tree 0: a0 -> {b0, a1},
     b0 -> b1; tree 1: b1 -> {a1, b0}, a1 -> a0), w = 8 ms: round 0 the
     four leaf chunks on the chains (arrive at 1, usable at 8); a1 and b0
     send up across at 8 (arrive 12.01, processed 8..16); the roots a0
     and b1 send down across at 16 (arrive 20.01, processed 16..24 in the
     receiver's queue of that tree), then on their chain at 20.01 (arrive
     21.01) to a1 (tree 0) and b0 (tree 1), whose queue of that tree is
     idle: processed 20.01..28.01, and a1 and b0 are done at 28.01; a1 and
     b0 pass the chunk from across down their chain at 24 (processed
     24..32): a0 and b1 end at 32 ms.  Steps of 2 + 32, 2 + 28.01, 2 +
     28.01, 2 + 32 ms.  With one queue per device for both trees a1's and
     b0's chain chunk waited behind the other tree's chunk from across
     (24..32): every device at 32 ms.  (Counting chunks usable at arrival
     gave 10.02 ms.) */
static void test_cost_waits_for_processing(void)
{
    int64_t dev_ns[6];

    HS_ASSERT_I64_EQ(hs__cost_step_ns(1, 2.0), 2000000 + 16000000);
    HS_ASSERT_I64_EQ(hs__cost_step_ns(1, 0.5), 2000000 + 8020000);
    HS_ASSERT_I64_EQ(hs__cost_step_ns(1, 0.0), 2000000 + 8020000);
    HS_ASSERT_I64_EQ(hs__cost_run_ns(2, 2.0, 8, 1, dev_ns),
                     2000000 + 32000000);
    HS_ASSERT_I64_EQ(dev_ns[0], 2000000 + 32000000);
    HS_ASSERT_I64_EQ(dev_ns[1], 2000000 + 28010000);
    HS_ASSERT_I64_EQ(dev_ns[2], 2000000 + 28010000);
    HS_ASSERT_I64_EQ(dev_ns[3], 2000000 + 32000000);
    HS_ASSERT_I64_EQ(hs__cost_step_ns(2, 0.0), 2000000 + 10020000);
}

/* The two trees' processing overlaps on a device.  Two one-device nodes
   A, B, two chunks per tree, 16 MB (4 MB chunks: t = 4.01 ms across),
   c = 4 ns/B (w = 16 ms).  A is the root of tree 0 and a leaf of tree 1,
   so it sends tree 1's chunks c1, c3 first (at 0 and t), B likewise c0,
   c2; each receiver's queue of that tree processes them 0..16 and
   16..32.  B, root of tree 1, sends c1 down to A at w = 16 (usable at
   B), and A's tree-1 queue, idle, processes it 16..32; B sends c3 at 32
   (usable at B then), processed 32..48: A's last round ends at 48 = 3w,
   B's alike: a step of 2 + 48 ms.  With one queue per device A's tree-1
   chunks waited behind c0 and c2 of tree 0 (A busy 0..32): c1 processed
   32..48, c3 48..64, a step of 2 + 64 ms. */
static void test_cost_trees_overlap(void)
{
    int64_t dev_ns[6];

    HS_ASSERT_I64_EQ(hs__cost_run_ns(1, 4.0, 16, 2, dev_ns),
                     2000000 + 48000000);
    HS_ASSERT_I64_EQ(dev_ns[0], 2000000 + 48000000);
    HS_ASSERT_I64_EQ(dev_ns[1], 2000000 + 48000000);
    /* without a cost: 4 chunk times */
    HS_ASSERT_I64_EQ(hs__cost_run_ns(1, 0.0, 16, 2, NULL),
                     2000000 + 4 * 4010000);
}

/* Each tree runs its own sequence of rounds on a device (with a
   communication cost), so a chunk of one tree that waits for its
   processing does not hold up a ready chunk of the other tree.  Two nodes
   of three devices, a0 a1 a2 | b0 b1 b2, one 4 MB chunk per tree (c0 of
   tree 0, c1 of tree 1), w = 2 ns/B x 4 MB = 8 ms, 1 ms a hop inside a
   node, 4.01 ms across; times from the opening (2 ms).  Tree 0: a0 ->
   {b0, a1}, a1 -> a2, b0 -> b1 -> b2; tree 1: b2 -> {a2, b1}, b1 -> b0,
   a2 -> a1 -> a0.  Every chunk is processed from its send's start for w
   (more than its transfer), so usable w after the later of that start
   and its queue's previous chunk.
   - Reduce: the leaves a2, b2 (tree 0) and a0, b0 (tree 1) send at 0 to
     a1, b1 (both interior in both trees), usable at 8; a1, b1 send c0 at
     8 (to a0, b0: usable 16) and c1 at 9 (to a2, b2: usable 17); b0
     sends c0 across at 16 (a0's tree-0 queue: 16..24) and a2 c1 across at
     17 (b2's: 17..25).  The roots a0, b2 have c0, c1 reduced at 24, 25.
   - Broadcast: a0 sends c0 to b0 at 24 (usable 32), then to a1 at 28.01
     (usable 36.01); b2 sends c1 to a2 at 25 (usable 33), then to b1 at
     29.01 (usable 37.01).  b0 sends c0 to b1 at 32 (usable 40), a2 c1 to
     a1 at 33 (usable 41), a1 c0 to a2 at 36.01 (usable 44.01: a2 done)
     and c1 to a0 at 41 (usable 49: a0 done; its send ends at 42: a1
     done).
   - b1 has c1 usable at 37.01 and c0 at 40.  Its tree-1 lane sends c1 to
     b0 at 37.01 (usable 45.01: b0 done), then its tree-0 lane c0 to b2 at
     40 (usable 48: b2 done; the send ends at 41: b1 done).  One sequence
     for both trees sent c0 first (round order), c1 only at 41: b0 done at
     49, b1 at 42.
   Steps of 2 + 49, 42, 44.01, 45.01, 41, 48 ms (a0 .. b2); the cluster's
   first step 2 + 49 ms either way. */
static void test_cost_trees_independent(void)
{
    int64_t dev_ns[6];

    HS_ASSERT_I64_EQ(hs__cost_run_ns(3, 2.0, 8, 1, dev_ns),
                     2000000 + 49000000);
    HS_ASSERT_I64_EQ(dev_ns[0], 2000000 + 49000000);
    HS_ASSERT_I64_EQ(dev_ns[1], 2000000 + 42000000);
    HS_ASSERT_I64_EQ(dev_ns[2], 2000000 + 44010000);
    HS_ASSERT_I64_EQ(dev_ns[3], 2000000 + 45010000);
    HS_ASSERT_I64_EQ(dev_ns[4], 2000000 + 41000000);
    HS_ASSERT_I64_EQ(dev_ns[5], 2000000 + 48000000);
}

/* Two nodes of two devices, a0 a1 | b0 b1, one NIC of 100 MB/s each
   (shared by a node's two heads: 50 MB/s a head), 1 GB/s inside a node,
   no latency, 8 chunks a tree, 100 MB in two 50 MB buckets ready 300 ms
   and 600 ms into the backward, t_fwd 300 ms, t_bwd 600 ms. */
static const char hs__bucket_yaml[] =
    "name: bk\n"
    "job: {model: x, dataset: {samples: 1000}}\n"
    "device_types:\n"
    "  - name: gpu\n"
    "    batch: 10\n"
    "    profile:\n"
    "      subsystem_size: 2\n"
    "      t_fwd: 300ms\n"
    "      t_b1: 1ms\n"
    "      t_bwd: 600ms\n"
    "      allreduce_bytes: 100MB\n"
    "      buckets:\n"
    "        - {bytes: 50MB, ready: 300ms}\n"
    "        - {bytes: 50MB, ready: 600ms}\n"
    "nodes:\n"
    "  kinds:\n"
    "    - {name: n, type: gpu, devices: 2, count: 2,\n"
    "       intra_bandwidth: 1GB/s, nics: 1, nic_bandwidth: 100MB/s}\n"
    "  inter_bandwidth: 100MB/s\n"
    "collective: tree\n"
    "simulate: {steps: 3, overlap: buckets}\n";

/* The closed form's bucket all-reduce is the tree's own all-reduce of the
   bucket's bytes, not the sum of its rounds.  By hand, 100 MB (chunks of
   6.25 MB: 125 ms across, 6.25 ms along a chain): b0 sends its 8 tree-1
   chunks down its chain first (50 ms), then tree 0's up to a0, c0
   arriving at 175 ms; a0, the root of tree 0, sends each tree-0 chunk
   across to b0 (125) and on to a1 (6.25), 131.25 ms a chunk, and is the
   busiest: its last one ends at 175 + 8 x 131.25 = 1225 ms.  A 50 MB
   bucket takes half, 612.5 ms (the sum of a0's rounds, 8 x 3.125 + 8 x
   62.5 + 8 x 3.125 = 550 ms, was the old figure).  Extended step: bucket
   0 from 300 ms to 912.5, bucket 1 from 912.5 to 1525, after the 300 ms
   forward: 1825 ms (old: 300 + 550 + 550 + 300 = 1700), equal to the
   replay's, since every device opens each bucket at once and a0 is the
   bottleneck throughout. */
static void test_bucket_closed_form(void)
{
    hs_scenario_t *s = load(hs__bucket_yaml);
    hs_closed_overlap_t ov;
    hs_prediction_t *p = NULL;
    hs_replay_result_t *r = NULL;
    hs_replay_opts_t o;
    hs_error_t err;
    int64_t bar[2];
    uint32_t x;

    HS_ASSERT_I64_EQ(hs_coll_tree.allreduce_ns(s, 0), 1225000000);
    CU_ASSERT_EQUAL_FATAL(hs_closed_overlap_init(s, HS_OVERLAP_BUCKETS, &ov,
                                                 &err), HS_OK);
    HS_ASSERT_I64_EQ(ov.nb, 2);
    for (x = 0; x < s->n_devices; x++) {
        bar[0] = bar[1] = -1;
        hs_closed_bucket_ar(s, &hs_coll_tree, &ov, x, bar);
        if (x == 0) {   /* a0: the busiest */
            HS_ASSERT_I64_EQ(bar[0], 612500000);
            HS_ASSERT_I64_EQ(bar[1], 612500000);
        }
        CU_ASSERT(bar[0] > 0 && bar[0] <= 612500000);
    }
    hs_closed_overlap_clear(&ov);
    CU_ASSERT_EQUAL_FATAL(hs_closed_predict(s, &p, &err), HS_OK);
    HS_ASSERT_I64_EQ(p->dev[0].t_ext_ns, 1825000000);
    HS_ASSERT_I64_EQ(p->step_ext_ns, 1825000000);
    hs_prediction_free(p);
    hs_replay_opts_from_scenario(s, &o);
    o.engine = 1;
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_OK);
    HS_ASSERT_I64_EQ(r->step_ns, 1825000000);
    HS_ASSERT_I64_EQ(r->closed_ext_step_ns, 1825000000);
    hs_replay_result_free(r);
    hs_scenario_free(s);
}

/* Past the 1,024 devices the tree was once held to (its closed form is
   one pass over the cluster now, tests/test_treefast.c): 1,025 devices
   load and predict. */
static void test_past_1024_devices(void)
{
    const char *text =
        "name: big\n"
        "job: {model: x, dataset: {samples: 1000}}\n"
        "device_types:\n"
        "  - {name: gpu, batch: 10,\n"
        "     profile: {t_fwd: 1ms, t_b1: 1ms, allreduce_bytes: 1MB}}\n"
        "nodes:\n"
        "  kinds:\n"
        "    - {name: n, type: gpu, devices: 5, count: 205,\n"
        "       intra_bandwidth: 10GB/s}\n"
        "  inter_bandwidth: 1GB/s\n"
        "collective: tree\n";
    hs_scenario_t *s = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t err;

    HS_ASSERT_I64_EQ(hs_scenario_load_text(text, strlen(text), "big.yaml",
                                           NULL, &s, &err),
                     HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(s->n_devices, 1025);
    CU_ASSERT_EQUAL(hs_closed_predict(s, &p, &err), HS_OK);
    if (p != NULL)
        HS_ASSERT_I64_EQ(p->dev[1024].t_ar_ns,
                         hs_coll_tree.allreduce_ns(s, 1024));
    hs_prediction_free(p);
    hs_scenario_free(s);
}

/* NCCL's model by hand (docs/nccl-notes.md section 2, Volta constants,
   one channel of 3 GB/s, NVLink inside a node, Intel CPU):
   100 MB on 11 ranks in 5 nodes.
   Ring Simple: algBw = 3 x 11/20 = 1.65 GB/s, 1e8 / 1650 = 60606.06 us;
   lat = (8.4 + 12 x max(3.4, 3 x 1) + 8 x 14) x 1.9 (plateau) = 306.28 us.
   Tree Simple: busBw = min(0.92 x 3, 10) = 2.76, algBw = 1.38 x 0.8
   (correction at 2^20 x 64 B) = 1.104 GB/s: 1e8 / 1104 = 90579.71 us;
   lat = 8.4 + 2 (1 x 4.0 + 2 x 14) = 72.4 us.
   64 KB on 16 ranks in 16 nodes (ppn 1, so the ring's net hop takes the
   tree's NET latency):
   Ring LL: busBw = min(20.4, 0.5 x 3) = 1.5, algBw = 1.5 x 16/30 = 0.8:
   65536 / 800 = 81.92 us; lat = 6.6 + 30 x 5.0 = 156.6 us.
   Tree Simple: algBw = 1.38 x 0.6 (correction at 2^10 x 64 B) = 0.828:
   65536 / 828 = 79.15 us; lat = 8.4 + 2 (0 + 4 x 14) = 120.4 us. */
static void test_nccl_model_by_hand(void)
{
    HS_ASSERT_DBL_NEAR(hs_coll_nccl_time_us(0, 1, 1e8, 11, 5, 3.0, 1),
                       306.28 + 1e8 / 1650.0, 1e-6);
    HS_ASSERT_DBL_NEAR(hs_coll_nccl_time_us(1, 1, 1e8, 11, 5, 3.0, 1),
                       72.4 + 1e8 / 1104.0, 1e-6);
    HS_ASSERT_DBL_NEAR(hs_coll_nccl_time_us(0, 0, 65536, 16, 16, 3.0, 0),
                       156.6 + 65536 / 800.0, 1e-6);
    HS_ASSERT_DBL_NEAR(hs_coll_nccl_time_us(1, 1, 65536, 16, 16, 3.0, 0),
                       120.4 + 65536 / 828.0, 1e-6);
}

/* A 16-node cluster of one device each: auto picks the tree for 64 KB,
   the ring for 100 MB (the figures above), and times the one it picks:
   its closed form and replay are the chosen collective's. */
static void test_auto_picks_and_times(void)
{
    static const char *sizes[] = {"64KiB", "100MB"};
    size_t i;

    for (i = 0; i < 2; i++) {
        char text[1024];
        hs_scenario_t *s;
        hs_coll_choice_t ch;
        hs_replay_result_t *r = NULL;
        hs_replay_opts_t o;
        hs_error_t err;
        uint32_t x;
        snprintf(text, sizeof text,
                 "name: auto\n"
                 "job: {model: x, dataset: {samples: 100000}}\n"
                 "device_types:\n"
                 "  - name: gpu\n"
                 "    batch: 100\n"
                 "    profile: {subsystem_size: 2, t_fwd: 30ms, t_b1: 1ms,\n"
                 "              allreduce_bytes: %s}\n"
                 "nodes:\n"
                 "  kinds:\n"
                 "    - {name: n, type: gpu, devices: 1, count: 16,\n"
                 "       nics: 1, nic_bandwidth: 3GB/s}\n"
                 "  inter_bandwidth: 2GB/s\n"
                 "  inter_latency: 20us\n"
                 "collective: auto\n"
                 "simulate: {steps: 2, overlap: none}\n",
                 sizes[i]);
        s = load(text);
        hs_coll_auto_choose(s, &ch);
        CU_ASSERT_PTR_EQUAL(ch.chosen, i == 0 ? &hs_coll_tree : &hs_coll_ring);
        CU_ASSERT_PTR_EQUAL(hs_collective_resolve(&hs_coll_auto, s),
                            ch.chosen);
        HS_ASSERT_DBL_NEAR(ch.bw_channel_gb_per_s, 3.0, 0);
        if (i == 0) {
            HS_ASSERT_STR_CONTAINS(ch.tree_proto, "Simple");
            HS_ASSERT_STR_CONTAINS(ch.ring_proto, "LL");
            HS_ASSERT_DBL_NEAR(ch.tree_us, 120.4 + 65536 / 828.0, 1e-6);
        }
        for (x = 0; x < 16; x++)
            HS_ASSERT_I64_EQ(hs_coll_auto.allreduce_ns(s, x),
                             ch.chosen->allreduce_ns(s, x));
        hs_replay_opts_from_scenario(s, &o);
        CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &r, &err), HS_OK);
        CU_ASSERT_STRING_EQUAL(r->collective, "auto");
        HS_ASSERT_I64_EQ(r->first_step_ns, r->closed_step_ns);
        hs_replay_result_free(r);
        hs_scenario_free(s);
    }
}

/* Without nodes there is no tree: auto is the ring, and says why. */
static void test_auto_without_nodes(void)
{
    hs_scenario_t *s = load(
        "name: flat\n"
        "job: {model: x, dataset: {samples: 1000}}\n"
        "device_types:\n"
        "  - {name: gpu, count: 4, batch: 10,\n"
        "     profile: {t_fwd: 1ms, t_b1: 1ms, allreduce_bytes: 1KB}}\n"
        "network: {default_bandwidth: 1GB/s}\n"
        "collective: auto\n");
    hs_coll_choice_t ch;

    hs_coll_auto_choose(s, &ch);
    CU_ASSERT_PTR_EQUAL(ch.chosen, &hs_coll_ring);
    HS_ASSERT_STR_CONTAINS(ch.why, "no nodes");
    HS_ASSERT_I64_EQ(hs_coll_auto.allreduce_ns(s, 0),
                     hs_coll_ring.allreduce_ns(s, 0));
    hs_scenario_free(s);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("tree", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "trees as trees.cc draws them",
                    test_trees_as_nccl_draws_them) == NULL ||
        CU_add_test(s, "bytes through the busiest NIC", test_nic_bytes) ==
            NULL ||
        CU_add_test(s, "two nodes by hand", test_two_nodes_by_hand) ==
            NULL ||
        CU_add_test(s, "the notes' fluid limit, one device per node",
                    test_fluid_limit) == NULL ||
        CU_add_test(s, "replay = closed form, K = 2, 3, 4, 5, 8",
                    test_replay_equals_closed) == NULL ||
        CU_add_test(s, "needs nodes", test_needs_nodes) == NULL ||
        CU_add_test(s, "replay: buckets, streams, costs, stragglers",
                    test_replay_buckets_streams) == NULL ||
        CU_add_test(s, "a chunk is used once processed, by hand",
                    test_cost_waits_for_processing) == NULL ||
        CU_add_test(s, "the two trees' chunks processed side by side",
                    test_cost_trees_overlap) == NULL ||
        CU_add_test(s, "each tree its own rounds on a device, by hand",
                    test_cost_trees_independent) == NULL ||
        CU_add_test(s, "buckets: the closed form's tree all-reduce per bucket",
                    test_bucket_closed_form) == NULL ||
        CU_add_test(s, "past 1,024 devices", test_past_1024_devices) ==
            NULL ||
        CU_add_test(s, "NCCL's model by hand", test_nccl_model_by_hand) ==
            NULL ||
        CU_add_test(s, "auto picks like NCCL and times the pick",
                    test_auto_picks_and_times) == NULL ||
        CU_add_test(s, "auto without nodes", test_auto_without_nodes) ==
            NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
