/*
 * hs_edge.h -- the scenario's edge arrays, and what a chunk takes on one.
 *
 * Layout.  ring_bw_bytes_per_s and ring_lat_ns hold one entry per edge a
 * collective sends over.  [0, N): the ring edges by ring position k
 * (ring[k] -> ring[k+1 mod N]), always.  With nodes (model/hs_nodes.c
 * fills them, 3N entries): [N, 2N) device x's intra-node edge of the
 * hierarchical all-reduce (x to the next local rank of its node), [2N, 3N)
 * its inter-node edge (x to the same local rank of the next node, the
 * node's NICs shared by its L rings).  A collective names an edge by its
 * index (hs_coll_round_t.edge); hs_edge_index is the one place that knows
 * the arithmetic.
 *
 * A chunk's time.  A chunk of bytes / parts on an edge of latency lat and
 * bandwidth bw takes lat + hs_xfer_ns(bytes / parts, bw): rounded once,
 * by hs_xfer_ns, so the closed form's T_ar(i), the replay's ARRIVE times
 * and the fast path's round durations agree to the ns.
 */
#ifndef HS_EDGE_H
#define HS_EDGE_H

#include <stddef.h>
#include <stdint.h>

#include "hs_collective.h"
#include "hs_scenario.h"
#include "hs_units.h"

/* The three kinds of edge of the layout above. */
typedef enum {
    HS_EDGE_RING = 0,   /* ring position k's edge, k < N */
    HS_EDGE_INTRA = 1,  /* device x's intra-node edge (nodes only) */
    HS_EDGE_INTER = 2   /* device x's inter-node edge (nodes only) */
} hs_edge_kind_t;

/* The index of edge `kind` of ring position or device i in a scenario of
   n_devices devices (the intra and inter kinds exist only with nodes). */
static inline uint32_t hs_edge_index(size_t n_devices, hs_edge_kind_t kind,
                                     uint32_t i)
{
    return (uint32_t)((size_t)kind * n_devices + i);
}

/* The time a chunk of bytes / parts takes over a link of latency lat_ns
   and bandwidth bytes_per_s: lat_ns + hs_xfer_ns(bytes / parts, bw). */
static inline int64_t hs_chunk_ns(int64_t lat_ns, double bytes_per_s,
                                  double bytes, double parts)
{
    return lat_ns + hs_xfer_ns(bytes / parts, bytes_per_s);
}

/* The same over edge `edge` of s (an index of the layout above). */
static inline int64_t hs_edge_chunk_ns(const hs_scenario_t *s, uint32_t edge,
                                       double bytes, double parts)
{
    return hs_chunk_ns(s->ring_lat_ns[edge], s->ring_bw_bytes_per_s[edge],
                       bytes, parts);
}

/* The time round rd's chunk of bytes / rd->parts takes: over the
   scenario's edge rd->edge, or over the round's own link when the edge is
   HS_COLL_EDGE_OWN.  The one place a round's chunk is timed (the closed
   forms and the replay). */
static inline int64_t hs_coll_round_chunk_ns(const hs_scenario_t *s,
                                             const hs_coll_round_t *rd,
                                             double bytes)
{
    if (rd->edge == HS_COLL_EDGE_OWN)
        return hs_chunk_ns(rd->lat_ns, rd->bw_bytes_per_s, bytes,
                           rd->parts);
    return hs_edge_chunk_ns(s, rd->edge, bytes, (double)rd->parts);
}

#endif
