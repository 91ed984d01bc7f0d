/*
 * hs_coll_auto.c -- `collective: auto` (hs_coll_auto.h): NCCL's cost
 * model for ring and tree all-reduce, and the collective that runs
 * whichever it picks.  The constants are NCCL's (src/graph/tuning.cc and
 * src/graph/search.cc at commit 5067397c, docs/nccl-notes.md sections 1-2):
 * base latencies, hardware latencies per hop, the LL bandwidth cap, the
 * tree's per-channel cap and 0.92, the tree correction per size, the
 * ring's plateau factor; indices [LL, Simple] (LL128 is off here).
 */
#include "hs_coll_auto.h"

#include <stdio.h>
#include <string.h>

#include "hs_nodes.h"

/* [ring, tree][LL, Simple] */
static const double hs__base_us[2][2] = {{6.6, 8.4}, {6.8, 8.4}};
static const double hs__hw_nvlink_us[2][2] = {{0.6, 3.4}, {0.6, 4.0}};
static const double hs__hw_pci_us[2][2] = {{1.0, 5.7}, {1.0, 4.0}};
static const double hs__hw_net_us[2][2] = {{2.7, 14.0}, {5.0, 14.0}};
/* Volta row, by node count 1, 2, more (llMaxBws, perChMaxTreeBws) */
static const double hs__ll_max_gb[3] = {39.0, 39.0, 20.4};
static const double hs__tree_max_gb[3] = {26.5, 18.5, 10.0};
/* treeCorrectionFactor, powers of two from 64 B, [LL, Simple] */
static const double hs__tree_corr[2][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5,
     .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};
/* speedArrayInter, GB/s per channel, highest first */
static const double hs__speeds_gb[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0,
                                       15.0, 12.0, 10.0, 9.0,  7.0,  6.0,
                                       5.0,  4.0,  3.0,  2.4,  1.2,  0.24,
                                       0.12};

/* floor(log2(n)), -1 for n < 1 (NCCL's log2Down). */
static int64_t hs__log2i(double n)
{
    int64_t l = -1;

    while (n >= 1.0) {
        n /= 2;
        l++;
    }
    return l;
}

double hs_coll_nccl_time_us(int tree, int simple, double bytes,
                            int64_t n_ranks, int64_t n_nodes,
                            double bw_gb_per_s, int nvlink)
{
    int a = tree ? 1 : 0, p = simple ? 1 : 0;
    int64_t i2 = n_nodes <= 2 ? n_nodes - 1 : 2, ls;
    int64_t nsteps = 2 * (n_ranks - 1);
    double bus = bw_gb_per_s, alg, lat = hs__base_us[a][p];
    double intra = nvlink ? hs__hw_nvlink_us[a][p] : hs__hw_pci_us[a][p];
    int ppn1 = n_ranks == n_nodes;

    if (!tree) {
        int64_t n_inter = n_nodes == 1 ? 0 : 2 * (n_nodes - 1);
        double net = n_nodes > 1 ? 1.0 * (simple ? 3 : 1) : 0.0;
        double inter = ppn1 ? hs__hw_net_us[1][p] : hs__hw_net_us[0][p];
        if (!simple && bus * .5 > hs__ll_max_gb[i2])
            bus = hs__ll_max_gb[i2];
        else if (!simple)
            bus *= .5;
        alg = bus * (double)n_ranks / (double)nsteps;
        lat += (double)(nsteps - n_inter) * (intra > net ? intra : net) +
               (double)n_inter * inter;
        /* the ring's plateau (one channel) */
        if (simple && n_nodes > 1 && bytes / (double)n_ranks >= 64)
            lat *= 1.9;
        return lat + bytes / (1000.0 * alg);
    }
    bus = bus * .92 < hs__tree_max_gb[i2] ? bus * .92 : hs__tree_max_gb[i2];
    if (!simple)
        bus = bus / 3.8 < hs__ll_max_gb[i2] ? bus / 3.8 : hs__ll_max_gb[i2];
    alg = bus * .5;
    ls = hs__log2i(bytes / 64);
    if (ls >= 0 && ls < 23)
        alg *= hs__tree_corr[p][ls];
    lat += 2 * ((double)(n_ranks / n_nodes - 1) * intra +
                (double)hs__log2i((double)n_nodes) * hs__hw_net_us[1][p]);
    return lat + bytes / (1000.0 * alg);
}

/* NCCL's channel bandwidth from the declared topology (hs_coll_auto.h),
   GB/s; the slowest intra-node bandwidth into *intra_gb (0: none). */
static double hs__channel_gb(const hs_scenario_t *s, double *intra_gb)
{
    const hs_nodes_t *nd = s->nodes;
    double topo = 1e30;
    size_t k, i;

    *intra_gb = 0;
    for (k = 0; k < nd->n_kinds; k++) {
        const hs_node_kind_t *kd = &nd->kinds[k];
        double nic = kd->nics > 0 ? kd->nics * kd->nic_bw_bytes_per_s / 1e9
                                  : 10.0 / 8;   /* 10 Gbps sockets */
        if (kd->count == 0)
            continue;
        if (nic < topo)
            topo = nic;
        if (kd->devices > 1) {
            double in = kd->intra_bw_bytes_per_s / 1e9;
            if (*intra_gb == 0 || in < *intra_gb)
                *intra_gb = in;
            if (in < topo)
                topo = in;
        }
    }
    for (i = 0; i < sizeof hs__speeds_gb / sizeof hs__speeds_gb[0]; i++)
        if (hs__speeds_gb[i] <= topo)
            return hs__speeds_gb[i];
    return hs__speeds_gb[sizeof hs__speeds_gb / sizeof hs__speeds_gb[0] - 1];
}

/* The best protocol's time of algorithm `tree` into *us, its name into
   *proto. */
static void hs__best(int tree, double S, int64_t N, int64_t K, double bw,
                     int nvlink, double *us, const char **proto)
{
    double ll = hs_coll_nccl_time_us(tree, 0, S, N, K, bw, nvlink);
    double simple = hs_coll_nccl_time_us(tree, 1, S, N, K, bw, nvlink);

    *us = simple <= ll ? simple : ll;
    *proto = simple <= ll ? "Simple" : "LL";
}

void hs_coll_auto_choose(const hs_scenario_t *s, hs_coll_choice_t *out)
{
    int64_t N = (int64_t)s->n_devices, K;
    double intra = 0;
    size_t t;
    hs_error_t err;

    memset(out, 0, sizeof *out);
    out->chosen = &hs_coll_ring;
    for (t = 0; t < s->n_types; t++) {
        double b = hs_profile_payload_bytes(&s->types[t].profile);
        if (b > out->bytes)
            out->bytes = b;
    }
    out->tree_us = -1;
    out->ring_proto = out->tree_proto = "Simple";
    if (s->nodes == NULL) {
        snprintf(out->why, sizeof out->why,
                 "ring: no nodes: section, so no tree across nodes");
        return;
    }
    K = (int64_t)s->nodes->n_nodes;
    out->bw_channel_gb_per_s = hs__channel_gb(s, &intra);
    hs__best(0, out->bytes, N, K, out->bw_channel_gb_per_s, intra >= 40,
             &out->ring_us, &out->ring_proto);
    hs__best(1, out->bytes, N, K, out->bw_channel_gb_per_s, intra >= 40,
             &out->tree_us, &out->tree_proto);
    if (out->tree_us < out->ring_us && hs_coll_tree.check(s, &err) == HS_OK)
        out->chosen = &hs_coll_tree;
    snprintf(out->why, sizeof out->why,
             "%s: NCCL's model predicts ring %.1f us (%s), tree %.1f us "
             "(%s) for %.0f bytes on %lld ranks in %lld nodes at %.2f "
             "GB/s per channel",
             out->chosen->name, out->ring_us, out->ring_proto, out->tree_us,
             out->tree_proto, out->bytes, (long long)N, (long long)K,
             out->bw_channel_gb_per_s);
}

/* ---- the collective: whatever the choice is, delegated ---- */

static const hs_collective_t *hs__pick(const hs_scenario_t *s)
{
    hs_coll_choice_t c;

    hs_coll_auto_choose(s, &c);
    return c.chosen;
}

static int64_t hs__auto_rounds(uint32_t n)
{
    return hs_coll_ring.rounds(n);
}

static void hs__auto_round(const hs_scenario_t *s, uint32_t x, int64_t r,
                           hs_coll_round_t *out)
{
    hs__pick(s)->round(s, x, r, out);
}

static int64_t hs__auto_allreduce_ns(const hs_scenario_t *s, uint32_t x)
{
    return hs__pick(s)->allreduce_ns(s, x);
}

static hs_err_t hs__auto_allreduce_all_ns(const hs_scenario_t *s,
                                          int64_t *out, hs_error_t *err)
{
    const hs_collective_t *c = hs__pick(s);
    size_t x;

    if (c->allreduce_all_ns != NULL)
        return c->allreduce_all_ns(s, out, err);
    for (x = 0; x < s->n_devices; x++)
        out[x] = c->allreduce_ns(s, (uint32_t)x);
    return HS_OK;
}

static hs_err_t hs__auto_check(const hs_scenario_t *s, hs_error_t *err)
{
    const hs_collective_t *c = hs__pick(s);

    return c->check != NULL ? c->check(s, err) : HS_OK;
}

static int64_t hs__auto_rounds_of(const hs_scenario_t *s)
{
    const hs_collective_t *c = hs__pick(s);

    return c->rounds_of != NULL ? c->rounds_of(s)
                                : c->rounds((uint32_t)s->n_devices);
}

static size_t hs__auto_rings(const hs_scenario_t *s, size_t ring_n[2])
{
    const hs_collective_t *c = hs__pick(s);

    if (c->rings != NULL)
        return c->rings(s, ring_n);
    ring_n[0] = s->n_devices;
    return 1;
}

const hs_collective_t hs_coll_auto = {
    "auto",
    "ring or tree, as NCCL's cost model picks for the payload, timed with "
    "the scenario's links",
    0,
    hs__auto_rounds,
    hs__auto_round,
    hs__auto_allreduce_ns,
    hs__auto_check,
    hs__auto_rounds_of,
    hs__auto_rings,
    hs__auto_allreduce_all_ns,
    NULL,   /* chunks_of, bound_ns, state_bytes_of, bucket_all_ns: */
    NULL,   /* hs_collective_chunks, hs_collective_bound, */
    NULL,   /* hs_collective_state_bytes and the closed form resolve auto */
    NULL    /* to its pick (hs_collective_resolve) and ask that */
};

const hs_collective_t *hs_collective_resolve(const hs_collective_t *c,
                                             const hs_scenario_t *s)
{
    return c == &hs_coll_auto ? hs__pick(s) : c;
}
