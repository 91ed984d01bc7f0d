/*
 * hs_coll_ring.c -- the ring all-reduce in the replay (hs_coll_engine.h);
 * its shape and closed form are model/hs_coll_ring_shape.c.
 *
 * Progress in the replay.  A lane (device x on stream st) talks to the
 * lanes of next(x) and prev(x) on the same stream.  It enters round g when
 * its round g-1 send is done (send_cnt == g), the round g-1 chunk from
 * prev is usable (recv_cnt >= g; chunks come in order on the edge, so a
 * count is enough) and the round is open (g < g_open).  Its chunk leaves
 * when it has entered g and, under rendezvous, next has entered g too
 * (MPI's rendezvous protocol, SimGrid's mailbox put/get); under eager at
 * once, the receiver buffering it.  Entering a round under rendezvous may
 * unblock prev's send, so prev is tried again.
 */
#include "hs_coll_ring.h"

static void hs__ring_lane_init(const hs_scenario_t *s, uint32_t x,
                               uint32_t st, uint32_t k, hs_coll_lane_t *l)
{
    l->to = hs_scenario_next(s, x) * k + st;
    l->from = hs_scenario_prev(s, x) * k + st;
}

/* Lane lx's chunk of round send_cnt leaves if it entered that round and,
   under rendezvous, its receiver did too. */
static inline void hs__ring_try_send(hs_engine_t *e, hs_coll_host_t *h,
                                     uint32_t lx, int64_t now)
{
    const hs_coll_lane_t *l = &h->lane[lx];
    int64_t g = l->send_cnt;

    if (l->busy || l->enter_g != g)
        return;
    if (h->rendezvous && h->lane[l->to].enter_g < g)
        return;
    hs_coll_send(e, h, lx, l->to, g, now);
}

/* Enters the next round if its conditions hold, then tries to send. */
static inline void hs__ring_poll_in(hs_engine_t *e, hs_coll_host_t *h,
                                    uint32_t lx, int64_t now)
{
    hs_coll_lane_t *l = &h->lane[lx];
    int64_t g = l->send_cnt;

    if (l->busy)
        return;
    if (l->enter_g < g && g < l->g_open && l->recv_cnt >= g) {
        l->enter_g = g;
        if (h->rendezvous)
            hs__ring_try_send(e, h, l->from, now);
    }
    hs__ring_try_send(e, h, lx, now);
}

static void hs__ring_poll(hs_engine_t *e, hs_coll_host_t *h, uint32_t lx,
                          int64_t now)
{
    hs__ring_poll_in(e, h, lx, now);
}

/* Lane lx's chunk of round g reached next's lane: both may move on. */
static int hs__ring_arrive(hs_engine_t *e, void *model, const hs_event_t *ev)
{
    hs_coll_host_t *h = model;
    uint32_t lx = ev->device;
    hs_coll_lane_t *l = &h->lane[lx];
    uint32_t ly = l->to;
    int64_t now = ev->time_ns, g = ev->arg;

    l->busy = 0;
    l->send_cnt = g + 1;
    if (hs_coll_delivered(e, h, lx, ly, g, now))
        h->lane[ly].recv_cnt++;
    hs_coll_check(e, h, lx, now);
    hs__ring_poll_in(e, h, lx, now);
    hs_coll_check(e, h, ly, now);
    hs__ring_poll_in(e, h, ly, now);
    return h->failed;
}

/* Lane ly finished processing the chunk of round g after its arrival. */
static int hs__ring_received(hs_engine_t *e, void *model,
                             const hs_event_t *ev)
{
    hs_coll_host_t *h = model;
    uint32_t ly = ev->device;
    int64_t now = ev->time_ns;

    h->lane[ly].recv_cnt = ev->arg + 1;
    hs_coll_check(e, h, ly, now);
    hs__ring_poll_in(e, h, ly, now);
    return h->failed;
}

const hs_coll_engine_t hs_coll_ring_engine = {
    &hs_coll_ring,
    hs__ring_lane_init,
    hs__ring_poll,
    hs__ring_arrive,
    hs__ring_received,
    1,
    0,
    1,
    NULL
};
