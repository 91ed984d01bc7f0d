/*
 * hs_coll_engine.h -- the seam between the training replay (hs_replay.c)
 * and the all-reduce it replays, event by event.  A collective's shape and
 * closed form are model/hs_collective.h's hs_collective_t; its progress in
 * the replay is an hs_coll_engine_t here (the ring: hs_coll_ring.c; the
 * hierarchical one: hs_coll_hier.c), found for a collective by
 * hs_coll_engine_of (the table in hs_coll_engine.c).
 *
 * What the engine part owns: when a device may enter a round and when a
 * chunk may leave (poll), and what a chunk's arrival does (arrive,
 * received).  It asks the shape (round) for the peers of a round.
 *
 * What the replay owns, generic over the collective: when a collective
 * opens on a device (the overlap modes: after the first backward op, after
 * the whole backward, per gradient bucket), the buckets and the streams
 * (several collectives at once sharing each device's edge), the send mode
 * flag (rendezvous or eager; the collective applies it, the replay sets
 * it), chunk transfer times (latency + bytes / bandwidth of the edge), the
 * communication's own cost (a receiver processing a chunk, suspending its
 * compute), tracing, and the step around the collective.
 *
 * Lanes and rounds.  The replay keeps one lane per device and stream
 * (lane lx = x * k + st; k = 1 unless buckets run on several streams).
 * Rounds are numbered per lane over the whole run: g = (j-th collective of
 * the lane) * R + r, with R = rounds(N) and r the round inside one
 * all-reduce.  A lane's counters:
 *   send_cnt  rounds whose send is complete (the g of its next send); a
 *             collective in which a device sends nothing in some round
 *             counts that round as sent when it enters it;
 *   recv_cnt  rounds whose incoming chunk is usable (likewise for rounds
 *             with nothing to receive);
 *   enter_g   the last round the lane entered;
 *   g_open    the replay's: rounds below it are open (their collective has
 *             opened on this device); a lane never enters g >= g_open;
 *   g_end     the replay's: the first round of the next step.
 * The collective advances send_cnt, recv_cnt, enter_g (and its own got)
 * and nothing else.
 *
 * Invariants the replay guarantees to the collective:
 *   - at most one chunk per lane is on the wire (hs_coll_send sets busy;
 *     the collective's arrive clears it first thing), so the chunks of one
 *     lane reach their receiver in send order: chunk order per link is
 *     round order;
 *   - a chunk of lane lx's round g arrives as one ARRIVE event (device =
 *     lx, arg = g) at start + latency + bytes / bandwidth, start being now,
 *     or later when the device's edge is busy with another stream's chunk;
 *   - with a communication cost, a chunk whose processing outlasts its
 *     arrival is usable only later: hs_coll_delivered returns 0 and a
 *     RECEIVED event (device = receiving lane, arg = g) follows, in order
 *     (for an engine with wait_received; else it returns 1, no event);
 *   - for an engine with usable_per_round, with a communication cost
 *     (h->usable_ns not NULL), when the chunk of a lane's round g leaves,
 *     h->usable_ns[lane * rounds + g % rounds] holds when it will be
 *     usable at its receiver (its arrival, its processing and the hop
 *     wait, as the ring's recv_cnt counts it); the engine schedules its
 *     own RECEIVED events from it;
 *   - after an open (g_open moves) the replay calls poll on the lane;
 *   - when a lane's counters reach g_end and all the step's collectives
 *     have opened, hs_coll_check tells the replay, which moves the step on.
 * Invariants the collective guarantees to the replay:
 *   - a lane enters round g only when send_cnt == g, g < g_open, and what
 *     the round needs has been received (the ring: recv_cnt >= g); so no
 *     lane runs into a collective that has not opened, nor into the next
 *     step before the step's own rounds are done;
 *   - it sends with hs_coll_send only while the lane is not busy, and only
 *     the chunk of round send_cnt (the tree with a communication cost: of
 *     a round at or past send_cnt and below g_open, each tree running its
 *     own rounds; send_cnt moves at its last round); under rendezvous only
 *     when the receiving lane has entered that round too;
 *   - every round of a step is eventually sent and received on every lane
 *     (send_cnt and recv_cnt reach g_end), or the replay reports a stall;
 *   - its handlers never allocate, print or block, and call hs_coll_check
 *     on every lane whose counters they moved (then poll it again).
 *
 * Speed.  One ARRIVE per chunk is the replay's hot loop: the engine calls
 * the collective's arrive directly from its handler table (no extra
 * indirection), and the services below are inline for the common case (one
 * stream, one bucket, no communication cost, no tracing), calling into
 * hs_replay.c only otherwise.
 */
#ifndef HS_COLL_ENGINE_H
#define HS_COLL_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "hs_collective.h"
#include "hs_engine.h"
#include "hs_error.h"
#include "hs_scenario.h"

/* The replay's event kinds that belong to the collective. */
enum {
    HS_COLL_EV_ARRIVE = 3,    /* a chunk arrived: device = sending lane,
                                 arg = its round g */
    HS_COLL_EV_RECEIVED = 5   /* its processing ended after the arrival:
                                 device = receiving lane, arg = g */
};

/* One lane: a device on one stream.  Touched on every chunk: one cache
   line. */
typedef struct hs_coll_lane_s {
    int64_t send_cnt;     /* collective: rounds sent */
    int64_t recv_cnt;     /* collective: rounds received */
    int64_t enter_g;      /* collective: last round entered, -1 first */
    int64_t g_open;       /* replay: rounds below are open */
    int64_t g_end;        /* replay: first round of the next step */
    int64_t dur0;         /* replay: chunk transfer time, bucket 0 */
    uint32_t to;          /* collective: lane it sends to (the ring: the
                             next device's lane on the same stream) */
    uint32_t from;        /* collective: lane it receives from */
    uint8_t busy;         /* a send in flight (hs_coll_send sets it, the
                             collective's arrive clears it) */
    uint8_t armed;        /* replay: all of the step's collectives opened,
                             not yet done */
    uint32_t got;         /* collective: chunks of round recv_cnt that
                             came so far, where a round brings several
                             (the hierarchical all-reduce across nodes of
                             different sizes) */
} hs_coll_lane_t;

_Static_assert(sizeof(hs_coll_lane_t) <= 64, "a lane fits a cache line");

/* The part of the replay's state the collective sees.  The replay's model
   begins with it: a handler's `model` pointer is an hs_coll_host_t *. */
typedef struct hs_coll_host_s {
    hs_coll_lane_t *lane;  /* [x * k + st] */
    uint32_t k;            /* streams */
    int rendezvous;        /* send mode: 1 rendezvous, 0 eager */
    int slow;              /* sends and arrivals need the replay's general
                              path (several streams or buckets, a
                              communication cost, tracing, rounds that
                              differ) */
    int tracing;           /* sinks are attached */
    const int64_t *pend;   /* [q * lanes + lane]: with a communication
                              cost, when the chunk on its way to the lane
                              in processing queue q is usable (the ring's
                              and hierarchical forms: q = 0 only, [lane]);
                              NULL without one */
    int failed;            /* a sink failed: handlers return it */
    const hs_scenario_t *s;/* the scenario replayed */
    int64_t rounds;        /* R: rounds of one all-reduce */
    int wait_received;     /* the engine's wait_received */
    int64_t *usable_ns;    /* [lane * rounds + g % rounds]: for an engine
                              with usable_per_round and a communication
                              cost, when the chunk the lane sent in its
                              round g is usable at its receiver (written
                              as the chunk leaves); NULL otherwise */
    int64_t *lane_ns;      /* [lane * HS_COLL_LANE_NS + i]: beside
                              usable_ns, the engine's own words per lane
                              (the tree: each tree's next round and the
                              time of the RECEIVED event it last
                              scheduled for that tree), zeroed */
} hs_coll_host_t;

/* A collective's progress in the replay. */
typedef struct hs_coll_engine_s {
    const hs_collective_t *coll;   /* its shape and closed form */
    /* Sets the collective's fields of lane l (device x, stream st of k);
       the counters are zeroed and enter_g is -1 already. */
    void (*lane_init)(const hs_scenario_t *s, uint32_t x, uint32_t st,
                      uint32_t k, hs_coll_lane_t *l);
    /* Lane lx may move: enter what rounds it may, send what it may. */
    void (*poll)(hs_engine_t *e, hs_coll_host_t *h, uint32_t lx,
                 int64_t now);
    /* Engine handlers of HS_COLL_EV_ARRIVE and HS_COLL_EV_RECEIVED; they
       return h->failed. */
    hs_handler_t arrive;
    hs_handler_t received;
    /* 1: a chunk still being processed at its arrival is usable only at
       its RECEIVED event, which hs_coll_delivered schedules per chunk
       (the ring's and the hierarchical forms' lanes wait for it); 0:
       hs_coll_delivered schedules none (the tree: a RECEIVED per chunk
       would name the receiving lane's latest chunk, not this one, and
       would pile up, one per chunk a lane receives faster than it
       processes them; it waits through usable_per_round instead). */
    int wait_received;
    /* 1: the engine's lanes receive from several lanes at once (the
       tree), so the receiving lane's pend does not name the chunk; with a
       communication cost the replay keeps every sent chunk's usable time
       in h->usable_ns (and h->lane_ns for the engine), and the engine
       waits for it, scheduling a RECEIVED event (device = the waiting
       lane, arg = the chunk's round) when a chunk it needs has arrived
       but is not yet usable; 0: neither array. */
    int usable_per_round;
    /* With a communication cost, the processing queues of each device
       (1 .. HS_COLL_PROC_QUEUES_MAX): a device processes the chunks of
       one queue one at a time, in the order they left, and its queues
       independently of each other (the tree: one per tree, as NCCL runs
       each tree on its own channel).  The ring and the hierarchical
       forms: 1. */
    uint32_t proc_queues;
    /* The queue (0 .. proc_queues-1) of the chunk device x sends in round
       r (0 .. R-1) of an all-reduce, at its receiver; NULL: queue 0.
       Pure. */
    uint32_t (*proc_queue)(const hs_scenario_t *s, uint32_t x, int64_t r);
} hs_coll_engine_t;

/* The words per lane of hs_coll_host_t.lane_ns. */
#define HS_COLL_LANE_NS 4

/* The most processing queues an engine may ask for per device. */
#define HS_COLL_PROC_QUEUES_MAX 2

/* The engine of collective c, or NULL when the replay has none for it. */
const hs_coll_engine_t *hs_coll_engine_of(const hs_collective_t *c);

/* ---- services of the replay (hs_replay.c) ---- */

void hs_coll_send_slow(hs_engine_t *e, hs_coll_host_t *h, uint32_t lx,
                       uint32_t ly, int64_t g, int64_t now);
int hs_coll_delivered_slow(hs_engine_t *e, hs_coll_host_t *h, uint32_t lx,
                           uint32_t ly, int64_t g, int64_t now);
void hs_coll_lane_done(hs_engine_t *e, hs_coll_host_t *h, uint32_t lx,
                       int64_t now);

/* Puts lane lx's chunk of round g on the wire to lane ly: marks lx busy
   and schedules its ARRIVE.  Call only when lx is not busy and g is its
   send_cnt (or, for the tree with a cost, a round its invariant above
   allows). */
static inline void hs_coll_send(hs_engine_t *e, hs_coll_host_t *h,
                                uint32_t lx, uint32_t ly, int64_t g,
                                int64_t now)
{
    if (h->slow) {
        hs_coll_send_slow(e, h, lx, ly, g, now);
        return;
    }
    h->lane[lx].busy = 1;
    hs_engine_schedule(e, now + h->lane[lx].dur0, HS_COLL_EV_ARRIVE, lx, g);
}

/* In arrive, after clearing busy and counting the send: the chunk of lane
   lx's round g reached lane ly.  Returns 1 when ly may use it now, 0 when
   a RECEIVED event will say so later. */
static inline int hs_coll_delivered(hs_engine_t *e, hs_coll_host_t *h,
                                    uint32_t lx, uint32_t ly, int64_t g,
                                    int64_t now)
{
    if (!h->slow)
        return 1;
    if (!h->tracing) {
        if (h->pend == NULL || h->pend[ly] <= now || !h->wait_received)
            return 1;
        /* the receiver is still processing it */
        hs_engine_schedule(e, h->pend[ly], HS_COLL_EV_RECEIVED, ly, g);
        return 0;
    }
    return hs_coll_delivered_slow(e, h, lx, ly, g, now);
}

/* After moving lane lx's counters: tells the replay when its rounds of the
   step are all sent and received. */
static inline void hs_coll_check(hs_engine_t *e, hs_coll_host_t *h,
                                 uint32_t lx, int64_t now)
{
    const hs_coll_lane_t *l = &h->lane[lx];

    if (!l->armed || l->send_cnt != l->g_end || l->recv_cnt < l->g_end)
        return;
    hs_coll_lane_done(e, h, lx, now);
}

#endif
