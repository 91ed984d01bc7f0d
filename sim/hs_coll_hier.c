/*
 * hs_coll_hier.c -- the hierarchical ring all-reduce in the replay
 * (hs_coll_engine.h); its shape and closed form, and the phases below,
 * are model/hs_coll_hier_shape.c.  Nodes of equal size or not; device x
 * on node n with local rank j.
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
 * Entering a round tries the sends of the lanes it receives from in that
 * round (the only ones that can be waiting for it).
 *
 * Nodes of different sizes add three cases (none arises with equal
 * sizes, whose replay is unchanged by them):
 *   - an idle round (hs_coll_round_t.parts 0) counts as sent and received
 *     when the lane enters it, and the lane goes on to the next;
 *   - a round across nodes with no sender (x's local rank is past the
 *     node before's size) counts as received when the lane enters it;
 *   - a round across nodes with several senders counts as received when
 *     all their chunks came (lane.got); they leave only once the receiver
 *     has entered that very round, also under eager, so that every chunk
 *     that comes belongs to the round the receiver waits for.
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

/* The lane of device x's peer (dir) in round g; the phase start into *ph,
   how many send to x in g into *nf (0 and the lane itself in an idle
   round: *idle 1). */
static inline uint32_t hs__hier_lane(const hs_coll_host_t *h, uint32_t lx,
                                     int64_t g, int dir, int64_t *ph,
                                     uint32_t *nf, int *idle)
{
    uint32_t k = h->k, x = lx / k, st = lx - x * k, peer, e, p, n;
    int64_t r = g % h->rounds;

    *ph = g - r + hs_coll_hier_peer(h->s, x, r, dir, &peer, &e, &p, &n, nf);
    *idle = p == 0;
    return peer * k + st;
}

/* How many lanes send to lane ly in round g (1 when nodes are equal). */
static inline uint32_t hs__hier_senders(const hs_coll_host_t *h, uint32_t ly,
                                        int64_t g)
{
    uint32_t nf;
    int64_t ph;
    int idle;

    if (h->s->nodes->local != 0)
        return 1;
    (void)hs__hier_lane(h, ly, g, -1, &ph, &nf, &idle);
    return nf;
}

/* Lane lx's chunk of round send_cnt leaves if it entered that round and
   its receiver entered the round (rendezvous, or a receiver of several
   senders) or its phase (eager). */
static inline void hs__hier_try_send(hs_engine_t *e, hs_coll_host_t *h,
                                     uint32_t lx, int64_t now)
{
    const hs_coll_lane_t *l = &h->lane[lx];
    int64_t g = l->send_cnt, ph, need;
    uint32_t ly, nf;
    int idle;

    if (l->busy || l->enter_g != g)
        return;
    ly = hs__hier_lane(h, lx, g, 1, &ph, &nf, &idle);
    need = h->rendezvous || hs__hier_senders(h, ly, g) > 1 ? g : ph;
    if (h->lane[ly].enter_g < need)
        return;
    hs_coll_send(e, h, lx, ly, g, now);
}

/* A chunk of round g reached lane ly and is usable (on its arrival:
   arrived 1, the one sender's next round is counted on; or at its
   RECEIVED event: arrived 0, the count set to g + 1). */
static inline void hs__hier_got(hs_coll_host_t *h, uint32_t ly, int64_t g,
                                int arrived)
{
    hs_coll_lane_t *l = &h->lane[ly];
    uint32_t nf = hs__hier_senders(h, ly, g);

    if (nf <= 1) {
        if (arrived)
            l->recv_cnt++;
        else
            l->recv_cnt = g + 1;
        return;
    }
    if (++l->got == nf) {
        l->got = 0;
        l->recv_cnt = g + 1;
    }
}

/* Lane lx entered round g: an idle round is done at once (returns 1: the
   lane may enter the next); else the senders of g may send, and a round
   with none is received. */
static inline int hs__hier_entered(hs_engine_t *e, hs_coll_host_t *h,
                                   uint32_t lx, int64_t g, int64_t now)
{
    hs_coll_lane_t *l = &h->lane[lx];
    int64_t ph;
    uint32_t ly, nf, i, L = 1;
    int idle;

    ly = hs__hier_lane(h, lx, g, -1, &ph, &nf, &idle);
    if (idle) {
        l->send_cnt = g + 1;
        l->recv_cnt = g + 1;
        hs_coll_check(e, h, lx, now);
        return 1;
    }
    if (nf == 0) {
        l->recv_cnt = g + 1;
        hs_coll_check(e, h, lx, now);
        return 0;
    }
    if (nf > 1)   /* local ranks j, j + L, ... of the node before */
        (void)hs_coll_hier_node(h->s, h->s->nodes->dev_node[lx / h->k], &L);
    for (i = 0; i < nf; i++)
        hs__hier_try_send(e, h, ly + i * L * h->k, now);
    return 0;
}

static inline void hs__hier_poll_in(hs_engine_t *e, hs_coll_host_t *h,
                                    uint32_t lx, int64_t now)
{
    hs_coll_lane_t *l = &h->lane[lx];

    for (;;) {
        int64_t g = l->send_cnt;
        if (l->busy)
            return;
        if (!(l->enter_g < g && g < l->g_open && l->recv_cnt >= g))
            break;
        l->enter_g = g;
        if (!hs__hier_entered(e, h, lx, g, now))
            break;
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
    uint32_t lx = ev->device, ly, nf;
    hs_coll_lane_t *l = &h->lane[lx];
    int64_t now = ev->time_ns, g = ev->arg, ph;
    int idle;

    ly = hs__hier_lane(h, lx, g, 1, &ph, &nf, &idle);
    l->busy = 0;
    l->send_cnt = g + 1;
    if (hs_coll_delivered(e, h, lx, ly, g, now))
        hs__hier_got(h, ly, g, 1);
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

    hs__hier_got(h, ly, ev->arg, 0);
    hs_coll_check(e, h, ly, now);
    hs__hier_poll_in(e, h, ly, now);
    return h->failed;
}

const hs_coll_engine_t hs_coll_hier_engine = {
    &hs_coll_hier,
    hs__hier_lane_init,
    hs__hier_poll,
    hs__hier_arrive,
    hs__hier_received,
    1,
    0,
    1,
    NULL
};
