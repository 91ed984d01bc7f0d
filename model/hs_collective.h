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
 * once (allreduce_ns, or allreduce_all_ns for all devices in one pass;
 * the closed form of hs_closed.h uses them).  What it
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
 * (hs_coll_hier_shape.c), hs_coll_tree (hs_coll_tree_shape.c),
 * hs_coll_auto (hs_coll_auto.c: ring or tree, NCCL's choice).
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
    /* The link, when edge is HS_COLL_EDGE_OWN: a collective whose edges
       are not in the scenario's edge arrays (the tree: a node's heads
       talk to the heads of its tree neighbours) gives the chunk's link
       itself.  Read only then (other collectives leave them unset). */
    double bw_bytes_per_s;
    int64_t lat_ns;
} hs_coll_round_t;

/* hs_coll_round_t.edge of a round that carries its own link. */
#define HS_COLL_EDGE_OWN UINT32_MAX

/* An upper bound of one step's all-reduces of a collective
   (hs_collective_t.bound_ns; hs_scenario_check_ranges compares it with
   HS_LIMIT_TIME_NS before any int64 time is derived).  In: what the
   range check derived from the scenario.  Out: the bound and its worst
   term, for the message and the key to blame.  The bound is
   rounds x round_ns summed over the collective's phases, where a
   round's time on a link of latency lat and bandwidth bw is
   n_buckets (lat + 2) + xfer(chunk, bw) + comm_ns_per_byte x the bytes
   its receiver processes in the round (hs_coll_bound_link): the
   n_buckets all-reduces of a step share the payload, each pays the
   latency and at most 2 ns of rounding. */
typedef struct hs_coll_bound_s {
    /* in */
    double payload_bytes;     /* the largest payload of a type (M_max) */
    double comm_ns_per_byte;  /* the largest communication cost */
    double n_buckets;         /* all-reduces per step (1 outside buckets) */
    /* out */
    double ns;                /* the bound, in double (no overflow) */
    double rounds_all;        /* the rounds it counts, all phases */
    double rounds;            /* the worst phase's rounds */
    double round_ns;          /* its worst round (all buckets) */
    double chunk_bytes;       /* that round's chunk */
    double xfer_ns;           /* its transfer */
    double bw_bytes_per_s;    /* its link */
    double lat_ns;
    uint32_t from, to;        /* the link's ends (device indices) */
    uint32_t edge;            /* the ring position (the ring), else
                                 HS_COLL_EDGE_OWN */
    double recv_bytes;        /* the most payload one device receives in
                                 one all-reduce of payload_bytes */
    double recv_chunks;       /* ... in how many chunks at the most */
    const struct hs_collective_s *by; /* whose bound it is (auto: its
                                 pick; the ring without nodes) */
} hs_coll_bound_t;

/* Raises ph (a phase's worst round: round_ns, chunk_bytes, xfer_ns, the
   link) with a round of `chunk` bytes from device a to b over a link of
   bw (> 0, else ignored) and lat, timed as hs_coll_bound_t says, its
   receiver processing comm_bytes (the communication cost's bytes: the
   chunk, or more where the replay charges more, or several chunks come
   in one round); keeps the first of equal rounds.  Pure. */
void hs_coll_bound_link(hs_coll_bound_t *ph, double chunk, double comm_bytes,
                        double bw, double lat, uint32_t a, uint32_t b);

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
    /* Optional (NULL: allreduce_ns device by device).  allreduce_ns of
       every device at once into out[0 .. N-1] (the caller's), for a
       collective whose closed form evaluates the whole cluster to give
       one device's figure (the tree's max-plus schedule: one O(N R) pass
       instead of N of them); the closed form (hs_closed.h) uses it when
       present.  HS_OK, or HS_ERR_NOMEM with err filled. */
    hs_err_t (*allreduce_all_ns)(const hs_scenario_t *s, int64_t *out,
                                 hs_error_t *err);
    /* Optional (NULL: every device sends one chunk in each of rounds(N)
       rounds, N x rounds(N)).  The chunks one all-reduce on s sends, all
       devices together: the replay's ARRIVE events per all-reduce
       (hs_scenario_replay_estimate budgets with it). */
    double (*chunks_of)(const hs_scenario_t *s);
    /* Optional (NULL: the ring's bound).  An upper bound of one step's
       all-reduces on s from above, never below what the closed form or
       the replay give (hs_coll_bound_t says what goes in and out); the
       range check (hs_scenario_check_ranges) calls it through
       hs_collective_bound. */
    void (*bound_ns)(const hs_scenario_t *s, hs_coll_bound_t *b);
    /* Optional (NULL: none).  The bytes of state its replay holds for
       the whole cluster beyond the per-device figure of
       hs_scenario_replay_estimate (the tree: its max-plus schedule,
       O(N R)); the estimate adds it. */
    double (*state_bytes_of)(const hs_scenario_t *s);
    /* Optional (NULL: the closed form sums its rounds' chunk times on
       the bucket's bytes, hs_closed_bucket_ar).  The all-reduce of each
       of nb payloads alone, every device opening it at once, for a
       collective whose rounds overlap (the tree's pipelined max-plus
       schedule, where the sum of its rounds is not its time): bytes[t *
       nb + b] the payload of a type-t device in all-reduce b (a gradient
       bucket), out[b * N + x] (the caller's, nb x N) device x's T_ar of
       it, as allreduce_all_ns gives for the profile's payload.  HS_OK,
       or HS_ERR_NOMEM with err filled. */
    hs_err_t (*bucket_all_ns)(const hs_scenario_t *s, const double *bytes,
                              size_t nb, int64_t *out, hs_error_t *err);
} hs_collective_t;

/* The ring all-reduce, "ring": 2(N-1) rounds of M/N bytes to the next
   device in the ring order (docs/method.md, S400). */
extern const hs_collective_t hs_coll_ring;

/* The hierarchical ring all-reduce, "hierarchical" (docs/method.md, "The
   hierarchical all-reduce"): needs nodes, of equal size or not (its check
   says why not otherwise). */
extern const hs_collective_t hs_coll_hier;

/* The double binary tree all-reduce, "tree" (docs/method.md, "The double
   binary tree all-reduce"; model/hs_coll_tree_shape.h): NCCL's two trees
   over the nodes, a chain through each node's devices, reduce up then
   broadcast down in 2P chunks (P: tree_chunks:, default 8).  Needs nodes (of any
   sizes).  Its rounds are not one-to/one-from: a device needs the chunks
   of up to 3 children before it sends up, and sends to each child in a
   round of its own (hs_coll_round_t.from names the first it needs; its
   engine, sim/hs_coll_tree.c, knows the others), and its links are its
   own (HS_COLL_EDGE_OWN). */
extern const hs_collective_t hs_coll_tree;

/* `collective: auto` (model/hs_coll_auto.h): ring or tree, as NCCL's own
   cost model picks for the scenario's payload; its functions are the
   chosen collective's. */
extern const hs_collective_t hs_coll_auto;

/* The collective that runs for c on s: c itself, or for hs_coll_auto the
   one it picks (the replay asks for the engine of that one).  Pure. */
const hs_collective_t *hs_collective_resolve(const hs_collective_t *c,
                                             const hs_scenario_t *s);

/* The chunks one all-reduce of c sends on s, all devices together (the
   replay's ARRIVE events per all-reduce and bucket), for the collective
   that runs (hs_collective_resolve: auto's pick).  c NULL: the ring.  A
   collective that needs nodes on a scenario without them: the ring's
   figure (it cannot run there; its check says why).  Pure, O(1). */
double hs_collective_chunks(const hs_collective_t *c, const hs_scenario_t *s);

/* The bound of one step's all-reduces of c on s into b (its in fields
   set by the caller): c's bound_ns, auto's pick's, and the ring's for a
   collective that needs nodes on a scenario without them (its check
   refuses it later).  c NULL: the ring.  Pure, O(N). */
void hs_collective_bound(const hs_collective_t *c, const hs_scenario_t *s,
                         hs_coll_bound_t *b);

/* The state_bytes_of of the collective that runs for c on s (auto: its
   pick; c NULL: the ring), 0 when it has none or needs nodes s lacks.
   Pure. */
double hs_collective_state_bytes(const hs_collective_t *c,
                                 const hs_scenario_t *s);

/*
 * The collective named `name` (NULL: "ring") into *out.  Fails with
 * HS_ERR_RANGE and "unknown collective 'x' (known: ring, ...)".
 */
hs_err_t hs_collective_find(const char *name, const hs_collective_t **out,
                            hs_error_t *err);

/* The i-th registered collective, NULL past the last. */
const hs_collective_t *hs_collective_get(size_t i);

#endif
