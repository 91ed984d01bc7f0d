/*
 * hs_coll_auto.h -- `collective: auto`: ring or tree, chosen as NCCL's own
 * cost model would choose (docs/nccl-notes.md sections 1, 2 and 5(c);
 * docs/method.md "Choosing like NCCL"), then timed as that collective
 * with the scenario's measured links.
 *
 * NCCL's model (src/graph/tuning.cc, ncclTopoTuneModel and
 * ncclTopoGetAlgoTime) predicts per call time = lat + S / (1000 bw) for
 * every algorithm and protocol from its constants and from the bandwidth
 * its topology search gives (never a measured one), and takes the
 * smallest.  What hetsim takes for NCCL's inputs (hs_coll_auto_choose):
 *   - S: the largest all-reduce payload of the device types (one call per
 *     step: with overlap: buckets the choice is still made on the whole
 *     payload, not per bucket);
 *   - ranks N, nodes K (the nodes: section; without one no tree exists and
 *     the choice is the ring);
 *   - the per-channel bandwidth: the highest of NCCL's search speeds
 *     (speedArrayInter, 48 .. 0.12 GB/s) not above the slowest declared
 *     NIC (nics x nic_bandwidth; a node without a NIC cap counts as the
 *     socket transport's default 10 Gbps) and, for nodes of more than one
 *     device, the slowest declared intra-node bandwidth; one channel
 *     (bwIntra = bwInter: what the search finds when a channel's speed is
 *     set by the NIC);
 *   - the intra-node hop NVLink when that slowest intra-node bandwidth is
 *     40 GB/s or more, else PCI; an Intel CPU (network overhead 1 us);
 *     compute capability below 8.0 (Volta constants, plateau 1.9); LL128
 *     off (NCCL enables it only for one architecture or Hopper and newer:
 *     unknown here), so the protocols LL and Simple;
 *   - one operation per call (latCount 1), no NIC latency (sockets).
 */
#ifndef HS_COLL_AUTO_H
#define HS_COLL_AUTO_H

#include "hs_collective.h"

/* What NCCL's model predicts for one call, and what it picks. */
typedef struct hs_coll_choice_s {
    const hs_collective_t *chosen;  /* &hs_coll_ring or &hs_coll_tree */
    double bytes;                   /* S, the payload of one call */
    double ring_us, tree_us;        /* NCCL's predicted times, best
                                       protocol each (tree: < 0 when none
                                       exists, without nodes) */
    const char *ring_proto, *tree_proto;  /* "LL" or "Simple" */
    double bw_channel_gb_per_s;     /* the channel bandwidth it assumed */
    char why[256];                  /* one sentence: the figures above */
} hs_coll_choice_t;

/* NCCL's predicted time in us of one all-reduce of `bytes` by algorithm
   `tree` (0 ring, 1 tree) and protocol `simple` (0 LL, 1 Simple), on
   n_ranks ranks in n_nodes nodes, one channel of bw_gb_per_s, the intra
   hop NVLink (nvlink = 1) or PCI.  Pure. */
double hs_coll_nccl_time_us(int tree, int simple, double bytes,
                            int64_t n_ranks, int64_t n_nodes,
                            double bw_gb_per_s, int nvlink);

/* NCCL's choice for scenario s (the inputs above) into *out.  Pure; no
   allocation. */
void hs_coll_auto_choose(const hs_scenario_t *s, hs_coll_choice_t *out);

#endif
