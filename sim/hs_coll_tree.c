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
 * does not hold up the other tree's on every device of a chain.  A lane
 * that finds a chunk it needs arrived but not yet usable schedules one
 * RECEIVED event for itself at the time it becomes usable
 * (at most one pending per lane: wake_ns), and is polled then.  A lane
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

/* Whether lane lx has at now what its round g (step *sp) needs: chunk i
   came from lane need_i's round g0 + need_r_i, so it has arrived when
   that lane's send_cnt is past it, and, with a communication cost, is
   usable from h->usable_ns on; a chunk arrived but not yet usable wakes
   lx with a RECEIVED event then (one pending per lane: the chunk that
   blocks it stays the same until it is usable). */
static inline int hs__tree_ready(hs_engine_t *e, hs_coll_host_t *h,
                                 uint32_t lx, int64_t g,
                                 const hs_tree_step_t *sp, int64_t now)
{
    uint32_t k = h->k, st = lx % k, i;
    int64_t r0 = g % h->rounds, g0 = g - r0;

    for (i = 0; i < sp->n_need; i++) {
        uint32_t lz = sp->need[i] * k + st;
        int64_t u;
        if (h->lane[lz].send_cnt <= g0 + sp->need_r[i])
            return 0;   /* not arrived: its arrival polls lx */
        if (h->usable_ns == NULL)
            continue;
        u = h->usable_ns[(size_t)lz * (size_t)h->rounds +
                         (size_t)sp->need_r[i]];
        if (u > now) {
            if (h->wake_ns[lx] != u) {
                h->wake_ns[lx] = u;
                hs_engine_schedule(e, u, HS_COLL_EV_RECEIVED, lx,
                                   g0 + sp->need_r[i]);
            }
            return 0;
        }
    }
    return 1;
}

/* Enters what rounds lane lx may, sending the first chunk it meets. */
static void hs__tree_poll(hs_engine_t *e, hs_coll_host_t *h, uint32_t lx,
                          int64_t now)
{
    hs_coll_lane_t *l = &h->lane[lx];

    while (!l->busy && l->enter_g < l->send_cnt &&
           l->send_cnt < l->g_open) {
        int64_t g = l->send_cnt;
        hs_tree_step_t sp;
        uint32_t ly = hs__tree_step_of(h, lx, g, &sp);
        if (!hs__tree_ready(e, h, lx, g, &sp, now))
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
    l->send_cnt = g + 1;
    (void)hs_coll_delivered(e, h, lx, ly, g, now);
    hs_coll_check(e, h, lx, now);
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
