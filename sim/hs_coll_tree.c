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
 * With a communication cost the chunk counts as usable at its arrival:
 * the receiver's processing is charged to its compute as for the ring,
 * but does not delay the round that needs the chunk.
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

/* Whether lane lx (device x, stream st) has what its round g needs; the
   round's receiver's lane into *ly (UINT32_MAX: no send). */
static inline int hs__tree_ready(const hs_coll_host_t *h, uint32_t lx,
                                 int64_t g, uint32_t *ly)
{
    uint32_t k = h->k, x = lx / k, st = lx - x * k, i;
    int64_t r = g % h->rounds, g0 = g - r;
    hs_tree_step_t sp;

    hs_coll_tree_step(h->s, x, r, &sp);
    *ly = sp.to == HS_TREE_NONE ? UINT32_MAX : sp.to * k + st;
    for (i = 0; i < sp.n_need; i++)
        if (h->lane[sp.need[i] * k + st].send_cnt <= g0 + sp.need_r[i])
            return 0;
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
        uint32_t ly;
        if (!hs__tree_ready(h, lx, g, &ly))
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

    (void)hs__tree_ready(h, lx, g, &ly);
    l->busy = 0;
    l->send_cnt = g + 1;
    (void)hs_coll_delivered(e, h, lx, ly, g, now);
    hs_coll_check(e, h, lx, now);
    hs__tree_poll(e, h, lx, now);
    hs__tree_poll(e, h, ly, now);
    return h->failed;
}

/* The receiver finished processing a chunk: nothing waits on it (the
   chunk counted as usable at its arrival); poll it all the same. */
static int hs__tree_received(hs_engine_t *e, void *model,
                             const hs_event_t *ev)
{
    hs_coll_host_t *h = model;

    hs__tree_poll(e, h, ev->device, ev->time_ns);
    return h->failed;
}

const hs_coll_engine_t hs_coll_tree_engine = {
    &hs_coll_tree,
    hs__tree_lane_init,
    hs__tree_poll,
    hs__tree_arrive,
    hs__tree_received,
    0
};
