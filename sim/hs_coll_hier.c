/*
 * hs_coll_hier.c -- the hierarchical ring all-reduce in the replay
 * (hs_coll_engine.h); its shape and closed form, and the phases below,
 * are model/hs_coll_hier_shape.c.  Nodes of equal size L; K = N / L
 * nodes, device x = n L + j on node n with local rank j.
 *
 * Progress in the replay: as the ring (hs_coll_ring.c), with the peers of
 * round r computed from (x, r) instead of fixed in the lane.  A lane
 * enters round g when its round g-1 send is done, all chunks of rounds
 * < g have arrived (recv_cnt >= g) and the round is open.  The count is
 * enough because chunks reach a device in round order: inside a phase
 * they come from one sender over one edge, and a chunk of a new phase is
 * only sent once its receiver has entered that phase.  Under rendezvous
 * a chunk of round g leaves when the receiver has entered g; under eager
 * when it has entered the first round of g's phase (eager inside a
 * phase, rendezvous at phase boundaries: the phase switches sender).
 * Entering a round tries the send of the lane it receives from in that
 * round (the only one that can be waiting for it).
 */
#include "hs_coll_hier.h"

#include "hs_coll_hier_shape.h"

static void hs__hier_lane_init(const hs_scenario_t *s, uint32_t x,
                               uint32_t st, uint32_t k, hs_coll_lane_t *l)
{
    hs_coll_round_t rd;

    hs_coll_hier.round(s, x, 0, &rd);
    l->to = rd.to * k + st;
    l->from = rd.from * k + st;
}

/* The lane of device x's peer (dir) in round g; the phase start into
   *ph. */
static inline uint32_t hs__hier_lane(const hs_coll_host_t *h, uint32_t lx,
                                     int64_t g, int dir, int64_t *ph)
{
    uint32_t k = h->k, x = lx / k, st = lx - x * k, peer, e, p, n;
    int64_t r = g % h->rounds;

    *ph = g - r + hs_coll_hier_peer(h->s, x, r, dir, &peer, &e, &p, &n);
    return peer * k + st;
}

/* Lane lx's chunk of round send_cnt leaves if it entered that round and
   its receiver entered the round (rendezvous) or its phase (eager). */
static inline void hs__hier_try_send(hs_engine_t *e, hs_coll_host_t *h,
                                     uint32_t lx, int64_t now)
{
    const hs_coll_lane_t *l = &h->lane[lx];
    int64_t g = l->send_cnt, ph;
    uint32_t ly;

    if (l->busy || l->enter_g != g)
        return;
    ly = hs__hier_lane(h, lx, g, 1, &ph);
    if (h->lane[ly].enter_g < (h->rendezvous ? g : ph))
        return;
    hs_coll_send(e, h, lx, ly, g, now);
}

static inline void hs__hier_poll_in(hs_engine_t *e, hs_coll_host_t *h,
                                    uint32_t lx, int64_t now)
{
    hs_coll_lane_t *l = &h->lane[lx];
    int64_t g = l->send_cnt, ph;

    if (l->busy)
        return;
    if (l->enter_g < g && g < l->g_open && l->recv_cnt >= g) {
        l->enter_g = g;
        hs__hier_try_send(e, h, hs__hier_lane(h, lx, g, -1, &ph), now);
    }
    hs__hier_try_send(e, h, lx, now);
}

static void hs__hier_poll(hs_engine_t *e, hs_coll_host_t *h, uint32_t lx,
                          int64_t now)
{
    hs__hier_poll_in(e, h, lx, now);
}

static int hs__hier_arrive(hs_engine_t *e, void *model, const hs_event_t *ev)
{
    hs_coll_host_t *h = model;
    uint32_t lx = ev->device, ly;
    hs_coll_lane_t *l = &h->lane[lx];
    int64_t now = ev->time_ns, g = ev->arg, ph;

    ly = hs__hier_lane(h, lx, g, 1, &ph);
    l->busy = 0;
    l->send_cnt = g + 1;
    if (hs_coll_delivered(e, h, lx, ly, g, now))
        h->lane[ly].recv_cnt++;
    hs_coll_check(e, h, lx, now);
    hs__hier_poll_in(e, h, lx, now);
    hs_coll_check(e, h, ly, now);
    hs__hier_poll_in(e, h, ly, now);
    return h->failed;
}

static int hs__hier_received(hs_engine_t *e, void *model,
                             const hs_event_t *ev)
{
    hs_coll_host_t *h = model;
    uint32_t ly = ev->device;
    int64_t now = ev->time_ns;

    h->lane[ly].recv_cnt = ev->arg + 1;
    hs_coll_check(e, h, ly, now);
    hs__hier_poll_in(e, h, ly, now);
    return h->failed;
}

const hs_coll_engine_t hs_coll_hier_engine = {
    &hs_coll_hier,
    hs__hier_lane_init,
    hs__hier_poll,
    hs__hier_arrive,
    hs__hier_received
};
