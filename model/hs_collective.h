/*
 * hs_collective.h -- what an all-reduce is, apart from how the replay runs
 * it: its shape and its closed form, and the registry of collectives by
 * name.
 *
 * A collective is an hs_collective_t, registered in hs_collective.c's
 * table.  Its shape: how many rounds one all-reduce of N devices takes
 * (rounds, rounds_of), and per device and round whom it sends to and
 * receives from, over which edge of the scenario (hs_edge.h), what share of
 * the payload a chunk is, along a ring of how many devices (round, rings).
 * Its closed form: T_ar(i) of a device, as if every device opened it at
 * once (allreduce_ns; the closed form of hs_closed.h uses it).  What it
 * needs of a scenario (check; the loader, the closed form and the replay
 * ask).  All of it is a function of the scenario, so the closed form and
 * the range checks use it without the event engine.
 *
 * How the replay runs a collective round by round (lanes, when a device
 * may enter a round and send, what an arrival does) is the other half:
 * sim/hs_coll_engine.h, one hs_coll_engine_t per collective, found by
 * hs_coll_engine_of.  A new collective is a shape here (a file in model/
 * and one line in hs_collective.c's table) and its engine in sim/.
 *
 * Registered: hs_coll_ring (hs_coll_ring_shape.c), hs_coll_hier
 * (hs_coll_hier_shape.c).
 */
#ifndef HS_COLLECTIVE_H
#define HS_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_scenario.h"

/* Round r of device x in one all-reduce. */
typedef struct hs_coll_round_s {
    uint32_t to;           /* device it sends to */
    uint32_t from;         /* device it receives from (the first of
                              several, or x when none: the hierarchical
                              all-reduce across nodes of different
                              sizes) */
    uint32_t edge;         /* index into ring_bw_bytes_per_s and
                              ring_lat_ns of the edge whose bandwidth and
                              latency the chunk sees (hs_edge.h: below N
                              the ring position k of ring[k] -> ring[k+1];
                              with nodes device x's intra- and inter-node
                              edges of the hierarchical all-reduce) */
    uint32_t parts;        /* the chunk is payload / parts bytes; 0: an
                              idle round, x sends and receives nothing
                              in it (to = from = x; the hierarchical
                              all-reduce's devices of a node smaller than
                              the largest, in its node phases) */
    uint32_t ring_n;       /* devices in the ring this round runs along
                              (the flat ring: N; the hierarchical one: L
                              in its node phases, K across nodes): the
                              hop wait grows with it
                              (hs_replay_hop_wait_ring_ns) */
} hs_coll_round_t;

typedef struct hs_collective_s {
    const char *name;      /* what options and scenarios call it */
    const char *summary;   /* one line for help texts */
    int uniform;           /* every round of a device has the same edge and
                              parts as its round 0 (the replay then
                              precomputes one transfer time per device) */
    /* Rounds of one all-reduce among n >= 1 devices. */
    int64_t (*rounds)(uint32_t n);
    /* Fills *out with round r (0 .. rounds-1) of device x. */
    void (*round)(const hs_scenario_t *s, uint32_t x, int64_t r,
                  hs_coll_round_t *out);
    /* The closed form's T_ar(i) of device x: the whole all-reduce as if
       every device opened it at once, in ns. */
    int64_t (*allreduce_ns)(const hs_scenario_t *s, uint32_t x);
    /* Optional (NULL: none).  What the collective needs of the scenario
       (HS_ERR_* and a message without position when it cannot run on
       it); the closed form and the replay call it first. */
    hs_err_t (*check)(const hs_scenario_t *s, hs_error_t *err);
    /* Optional: the rounds on scenario s when they depend on more than N
       (then rounds(n) is not used by the replay). */
    int64_t (*rounds_of)(const hs_scenario_t *s);
    /* Optional (NULL: one ring of all N devices).  The sizes of the rings
       its rounds run along (hs_coll_round_t.ring_n), in the order the
       rounds first use them, into ring_n; returns how many (1 or 2). */
    size_t (*rings)(const hs_scenario_t *s, size_t ring_n[2]);
} hs_collective_t;

/* The ring all-reduce, "ring": 2(N-1) rounds of M/N bytes to the next
   device in the ring order (docs/method.md, S400). */
extern const hs_collective_t hs_coll_ring;

/* The hierarchical ring all-reduce, "hierarchical" (docs/method.md, "The
   hierarchical all-reduce"): needs nodes, of equal size or not (its check
   says why not otherwise). */
extern const hs_collective_t hs_coll_hier;

/*
 * The collective named `name` (NULL: "ring") into *out.  Fails with
 * HS_ERR_RANGE and "unknown collective 'x' (known: ring, ...)".
 */
hs_err_t hs_collective_find(const char *name, const hs_collective_t **out,
                            hs_error_t *err);

/* The i-th registered collective, NULL past the last. */
const hs_collective_t *hs_collective_get(size_t i);

#endif
