/*
 * hs_coll_tree.c -- the double binary tree all-reduce in the replay
 * (hs_coll_engine.h); its trees, rounds and closed form are
 * model/hs_coll_tree_shape.h and .c.
 *
 * Progress in the replay.  A lane (device x on stream st) talks to the
 * lanes of its tree neighbours on the same stream.  Round r of a
 * collective whose rounds start at g0 is the lane's round g = g0 + r; it
 * enters g when its round g-1 is done (send_cnt == g), the round is open
 * (g < g_open) and every chunk the round needs has arrived: chunk c's
 * child (or parent) sent it in its own round g0 + need_r, so it has
 * arrived when that lane's send_cnt is past it (a lane's send_cnt moves
 * when its chunk arrives).  That is why no count of receives is kept: a
 * lane's recv_cnt is set to g + 1 when it enters g (what it needed has
 * come).  On entering, it sends at once (eager: NCCL's tree writes into
 * the receiver's buffer; simulate.send does not apply), or, in a round
 * without a send, counts the round as sent and goes on.  A chunk's arrival
 * moves its sender on and polls its receiver, the only lane that can be
 * waiting for it.
 *
 * With a communication cost (or a hop wait) a chunk is usable at the
 * later of its arrival and the end of its processing at the receiver
 * (plus the hop wait), as a ring's chunk is: the replay records that time
 * for every sent chunk (hs_coll_host_t.usable_ns, the engine's
 * usable_per_round), and a round needs its chunks usable, not only
 * arrived.  A device processes each tree's chunks in its own queue
 * (proc_queues 2, hs__tree_proc_queue): one at a time and in the order
 * they left within a tree, the two trees independently, as NCCL runs the
 * two trees on separate channels; so a leaf's flood of one tree's chunks
 * does not hold up the other tree's on every device of a chain.
 *
 * Each tree its own rounds (with a cost).  A device's lane then runs two
 * sequences of rounds, one per tree (its words in hs_coll_host_t.lane_ns:
 * each tree's next round), as NCCL's channels progress apart: tree t's
 * sequence takes the lane's rounds of tree t in their order (skipping the
 * other tree's), so a round of one tree that waits for a chunk's
 * processing no longer holds up the other tree's rounds behind it.  The
 * two share the device's wire, one chunk on it at a time (the lane's
 * busy): a round with a send waits for the wire, and when both trees have
 * one ready, the earlier round goes first.  A chunk of tree t has arrived
 * when its sender's tree-t sequence is past its round.  The last round
 * (it needs each tree's last chunk from the parent) joins the two: both
 * sequences enter it together, and only then do send_cnt and recv_cnt
 * move, to the next all-reduce's first round (what hs_coll_check reads).
 * Without a cost the lane keeps one sequence for both trees, in round
 * order: the schedule of the closed form and of the fast path
 * (hs_treefast.c), to the ns.  A cost that tends to 0 does not give that
 * schedule back: the two sequences send in the order their rounds become
 * ready, not in round order.
 *
 * A lane that finds a chunk it needs arrived but not yet usable schedules
 * one RECEIVED event for itself at the time it becomes usable (at most one
 * pending per lane and tree: lane_ns), and is polled then.  A lane
 * receives from several lanes at once, so the receiving lane's pend (the
 * latest chunk's) cannot stand for this one, as it does for the ring.
 * A chunk's slot (its sender's round mod R) is written again only when
 * the sender leaves the same round of its next all-reduce, after every
 * lane that needs the chunk has used it: a device ends an all-reduce
 * only with its parents' last chunks, which its parents send after using
 * all of its reduce chunks, and its children enter their next all-reduce
 * only after they used its broadcast chunks.
 */
#include "hs_coll_tree.h"

#include "hs_coll_tree_shape.h"

static void hs__tree_lane_init(const hs_scenario_t *s, uint32_t x,
                               uint32_t st, uint32_t k, hs_coll_lane_t *l)
{
    hs_coll_round_t rd;

    hs_coll_tree.round(s, x, 0, &rd);
    l->to = rd.to * k + st;
    l->from = rd.from * k + st;
}

/* Round g of lane lx (device x, stream st): its step in *sp, the
   round's receiver's lane returned (UINT32_MAX: no send). */
static inline uint32_t hs__tree_step_of(const hs_coll_host_t *h, uint32_t lx,
                                        int64_t g, hs_tree_step_t *sp)
{
    uint32_t k = h->k, x = lx / k, st = lx - x * k;

    hs_coll_tree_step(h->s, x, g % h->rounds, sp);
    return sp->to == HS_TREE_NONE ? UINT32_MAX : sp->to * k + st;
}

/* Each tree's words of lane lx in h->lane_ns (with a communication
   cost): [0], [1] the next round of tree 0's and tree 1's lane, [2], [3]
   the time of the RECEIVED event each last scheduled. */
static inline int64_t *hs__tree_words(const hs_coll_host_t *h, uint32_t lx)
{
    return &h->lane_ns[(size_t)lx * HS_COLL_LANE_NS];
}

/* Whether the chunk lane lz sends in its round gz (of tree t) has
   arrived: without a cost when lz has sent past it; with one when lz's
   lane of tree t has (its rounds of tree t are done in order). */
static inline int hs__tree_arrived(const hs_coll_host_t *h, uint32_t lz,
                                   int t, int64_t gz)
{
    if (h->usable_ns == NULL)
        return h->lane[lz].send_cnt > gz;
    return hs__tree_words(h, lz)[t] > gz;
}

/* Whether lane lx has at now what its round g (step *sp) needs, for its
   tree t (-1: the last round, whose chunks come one from each tree):
   chunk i came from lane need_i's round g0 + need_r_i, so it has arrived
   when that lane is past it, and, with a communication cost, is usable
   from h->usable_ns on; a chunk arrived but not yet usable wakes lx with
   a RECEIVED event then (one pending per lane and tree: the chunk that
   blocks it stays the same until it is usable). */
static inline int hs__tree_ready(hs_engine_t *e, hs_coll_host_t *h,
                                 uint32_t lx, int64_t g, int t,
                                 const hs_tree_step_t *sp, int64_t now)
{
    uint32_t k = h->k, st = lx % k, i;
    int64_t r0 = g % h->rounds, g0 = g - r0, p2 = (h->rounds - 1) / 4;

    for (i = 0; i < sp->n_need; i++) {
        uint32_t lz = sp->need[i] * k + st;
        int tz = t >= 0 ? t : (int)(((sp->need_r[i] - p2) / 3) % 2);
        int64_t u, *wake;
        if (!hs__tree_arrived(h, lz, tz, g0 + sp->need_r[i]))
            return 0;   /* not arrived: its arrival polls lx */
        if (h->usable_ns == NULL)
            continue;
        u = h->usable_ns[(size_t)lz * (size_t)h->rounds +
                         (size_t)sp->need_r[i]];
        wake = &hs__tree_words(h, lx)[2 + (t >= 0 ? t : tz)];
        if (u > now) {
            if (*wake != u) {
                *wake = u;
                hs_engine_schedule(e, u, HS_COLL_EV_RECEIVED, lx,
                                   g0 + sp->need_r[i]);
            }
            return 0;
        }
    }
    return 1;
}

/* Enters what rounds lane lx may, sending the first chunk it meets (no
   communication cost: one sequence of rounds for both trees). */
static void hs__tree_poll_one(hs_engine_t *e, hs_coll_host_t *h,
                              uint32_t lx, int64_t now)
{
    hs_coll_lane_t *l = &h->lane[lx];

    while (!l->busy && l->enter_g < l->send_cnt &&
           l->send_cnt < l->g_open) {
        int64_t g = l->send_cnt;
        hs_tree_step_t sp;
        uint32_t ly = hs__tree_step_of(h, lx, g, &sp);
        if (!hs__tree_ready(e, h, lx, g, 0, &sp, now))
            return;
        l->enter_g = g;
        l->recv_cnt = g + 1;
        if (ly != UINT32_MAX) {
            hs_coll_send(e, h, lx, ly, g, now);
            return;
        }
        l->send_cnt = g + 1;    /* nothing to send this round */
        hs_coll_check(e, h, lx, now);
    }
}

/* The first round at or after r (0 .. R-1) of device x in tree t's
   sequence: a round of tree t (hs_coll_tree_round_tree), or the last
   round, 8P, which both sequences enter.  Pure. */
static int64_t hs__tree_next_of(const hs_scenario_t *s, uint32_t x, int t,
                                int64_t r)
{
    const int64_t P = hs_coll_tree_chunks(s), P2 = 2 * P;
    int64_t c;
    int lf;

    if (r < P2) {               /* reduce: hs_coll_tree_up_chunk's order */
        lf = hs_coll_tree_leaf_first(s, x);
        if (lf < 0)
            r += r % 2 != t;    /* chunk r, tree r mod 2 */
        else if (t == lf)
            r = r < P ? r : P2; /* its P chunks first */
        else
            r = r < P ? P : r;
        if (r < P2)
            return r;
    }
    if (r >= 4 * P2)
        return r;
    c = (r - P2) / 3;           /* broadcast: chunk c, tree c mod 2 */
    return c % 2 == t ? r : P2 + 3 * (c + 1);
}

/* With a communication cost: one step of tree t's lane of lx, at its
   round g = nx[t].  A round of the other tree is skipped; the last round
   is entered by both trees' lanes at once; a round with a send waits for
   the device's wire (one chunk on it at a time, the lane's busy) and
   stays the lane's round until its chunk arrives.  Returns 1 when the
   lane moved or sent. */
static int hs__tree_step_lane(hs_engine_t *e, hs_coll_host_t *h,
                              uint32_t lx, int t, int64_t now)
{
    hs_coll_lane_t *l = &h->lane[lx];
    int64_t *nx = hs__tree_words(h, lx), g = nx[t];
    int64_t r = g % h->rounds, rn;
    uint32_t x = lx / h->k, ly;
    hs_tree_step_t sp;

    if (g >= l->g_open)
        return 0;
    if (r == h->rounds - 1) {       /* the last round: both trees */
        if (nx[1 - t] != g)
            return 0;
        hs_coll_tree_step(h->s, x, r, &sp);
        if (!hs__tree_ready(e, h, lx, g, -1, &sp, now))
            return 0;
        nx[0] = nx[1] = g + 1;
        l->enter_g = g;
        l->send_cnt = l->recv_cnt = g + 1;
        hs_coll_check(e, h, lx, now);
        return 1;
    }
    if ((rn = hs__tree_next_of(h->s, x, t, r)) != r) {
        nx[t] = g - r + rn;         /* past the other tree's rounds */
        return 1;
    }
    ly = hs__tree_step_of(h, lx, g, &sp);
    if ((ly != UINT32_MAX && l->busy) ||
        !hs__tree_ready(e, h, lx, g, t, &sp, now))
        return 0;
    l->enter_g = g;
    if (ly == UINT32_MAX) {
        nx[t] = g + 1;              /* nothing to send this round */
        return 1;
    }
    hs_coll_send(e, h, lx, ly, g, now);
    return 1;
}

/* With a communication cost: moves each tree's lane of lx as far as it
   may, the one at the earlier round first (so the wire takes the rounds
   in their order when both trees are ready). */
static void hs__tree_poll_lanes(hs_engine_t *e, hs_coll_host_t *h,
                                uint32_t lx, int64_t now)
{
    const int64_t *nx = hs__tree_words(h, lx);
    int moved;

    do {
        int t = nx[1] < nx[0] ? 1 : 0;
        moved = hs__tree_step_lane(e, h, lx, t, now);
        moved |= hs__tree_step_lane(e, h, lx, 1 - t, now);
    } while (moved);
}

/* Enters what rounds lane lx may, sending what it may. */
static void hs__tree_poll(hs_engine_t *e, hs_coll_host_t *h, uint32_t lx,
                          int64_t now)
{
    if (h->usable_ns == NULL)
        hs__tree_poll_one(e, h, lx, now);
    else
        hs__tree_poll_lanes(e, h, lx, now);
}

/* Lane lx's chunk of round g reached its receiver: both may move on. */
static int hs__tree_arrive(hs_engine_t *e, void *model, const hs_event_t *ev)
{
    hs_coll_host_t *h = model;
    uint32_t lx = ev->device, ly;
    hs_coll_lane_t *l = &h->lane[lx];
    int64_t now = ev->time_ns, g = ev->arg;
    hs_tree_step_t sp;

    ly = hs__tree_step_of(h, lx, g, &sp);
    l->busy = 0;
    if (h->usable_ns == NULL) {
        l->send_cnt = g + 1;
        (void)hs_coll_delivered(e, h, lx, ly, g, now);
        hs_coll_check(e, h, lx, now);
    } else {
        uint32_t x = lx / h->k;
        hs__tree_words(h, lx)[hs_coll_tree_round_tree(h->s, x,
                                                      g % h->rounds)] = g + 1;
        (void)hs_coll_delivered(e, h, lx, ly, g, now);
    }
    hs__tree_poll(e, h, lx, now);
    hs__tree_poll(e, h, ly, now);
    return h->failed;
}

/* A chunk lane ev->device waits for is usable now (hs__tree_ready
   scheduled this): it may move on. */
static int hs__tree_received(hs_engine_t *e, void *model,
                             const hs_event_t *ev)
{
    hs_coll_host_t *h = model;

    hs__tree_poll(e, h, ev->device, ev->time_ns);
    return h->failed;
}

/* The processing queue of device x's round-r chunk: its tree. */
static uint32_t hs__tree_proc_queue(const hs_scenario_t *s, uint32_t x,
                                    int64_t r)
{
    return (uint32_t)hs_coll_tree_round_tree(s, x, r);
}

const hs_coll_engine_t hs_coll_tree_engine = {
    &hs_coll_tree,
    hs__tree_lane_init,
    hs__tree_poll,
    hs__tree_arrive,
    hs__tree_received,
    0,
    1,
    2,
    hs__tree_proc_queue
};
