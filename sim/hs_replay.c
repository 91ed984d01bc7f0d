/*
 * hs_replay.c -- the training model on the event engine.
 *
 * What is replayed.  N devices in a ring (scenario order), S steps each
 * (o->steps; o is the hs_replay_opts_t, the scenario's simulate: section
 * unless the caller gave others; the scenario itself is only read).  Per
 * device and step k, with F_k the start of step k:
 *
 *   CPU:     data loading of batch k+1 runs [F_k, F_k + t_dl], in parallel
 *            with everything below (batch 0 is loaded from time 0 before
 *            step 0 starts, so step 0 starts at t_dl);
 *   device:  forward      [F_k, F_k + fwd]          fwd = t_fwd*c + extra
 *            first bwd op [.., + b1]                 b1  = t_b1*c
 *            rest of bwd  [.., + rest]               rest = (t_bwd - t_b1)*c
 *                                                    (0 when t_bwd unknown)
 *   ring:    the collective (o->collective, "ring" by default; its rounds,
 *            peers, closed form and round-by-round progress live behind
 *            hs_collective.h and hs_coll_engine.h, the ring in
 *            hs_coll_ring_shape.c and hs_coll_ring.c; everything else
 *            here is generic over it).  The ring:
 *            2(N-1) rounds per ring (reduce-scatter then all-gather).  In
 *            round r device i sends a chunk of M_i/N bytes to next(i) over
 *            its own ring edge; the chunk takes lat_i + hs_xfer_ns(M_i/N,
 *            B_i) and its arrival at next(i) is also the end of i's send.
 *            i starts round r when its round r-1 send is done AND the round
 *            r-1 chunk from prev(i) has arrived (round 0: when the ring
 *            opens on i, see overlap below);
 *   then:    when the ring and the backward are done, the optimizer (t_opt,
 *            when the profile has it), and step k+1 starts at
 *            F_{k+1} = max(device done, batch k+1 loaded).
 * c is the device's compute_scale times any straggler factor for step k
 * (it scales t_opt too, as the closed form does); extra is its
 * extra_compute_ns plus any straggler extra_ns (a late device is late
 * before its first backward op).  t_dl is not scaled.  The phases come
 * from hs_phases_derive (model/hs_phases.h), as the closed form's do.
 * M_i is the payload of i's type, D n / (2(n-1)).
 *
 * Overlap (o->overlap): when the ring opens on a device.
 *   patent   after the first backward op; one ring carries M (the source's
 *            assumption, figures 3-4); the rest of the backward runs beside
 *            it on the device;
 *   none     after the whole backward; one ring of M;
 *   buckets  one ring per gradient bucket of the profile, in bucket order:
 *            bucket b opens at backward start + ready_b * c.  The rings run
 *            on K = o->streams streams (at most B): bucket b on stream
 *            b % K, whose rings run one after the other, so b's round 0
 *            also waits for bucket b-K's ring to be done on that device
 *            (all sent and received).  K = 1 is one communication stream,
 *            as NCCL runs DDP's buckets; ProcessGroupGloo runs 2
 *            collectives at a time.  With K > 1 the streams share each
 *            device's ring edge chunk by chunk, first come, first served
 *            (a chunk leaves when its stream may send and the edge is
 *            free).  Chunks are bytes_b / N.  When a type's bucket
 *            sizes do not sum to its payload M, each is scaled by M / sum
 *            (so every mode moves the same M; a note says so).  Ready times
 *            are made non-decreasing.  The backward ends no earlier than the
 *            last bucket is ready.  Types that list buckets must list the
 *            same number (it is one model); a type that lists none borrows
 *            the first listing type's sizes, its ready times stretched by
 *            the ratio of the two types' backward times (forward times
 *            where a backward is unknown), with a note.  When no type lists
 *            any, buckets mode replays one ring after the whole backward
 *            (as none) and says so in a note.
 *   last_bucket  one ring of M that opens when the type's LAST bucket is
 *            ready (backward start + max_b ready_b * c), the rest of the
 *            backward beside it: buckets mode on the same layout gathered
 *            into one bucket (hs_bucket_gather).  Chosen on
 *            tuning draws of gloo on CPU devices, where the early
 *            buckets' rings made little headway while the backward held
 *            the device's cores but the ring did not wait for the
 *            backward's tail after the last gradient; the blind draws
 *            after it showed that overlap to depend on the model
 *            (docs/accuracy.md).  As none when no type lists buckets (a
 *            note says so).
 *
 * Send semantics (o->send): who must be ready for a chunk to move.
 *   eager       a chunk leaves as soon as the sender is in that round (own
 *               previous send done, previous chunk held).  The receiver
 *               need not have reached it (even if it is still in an earlier
 *               step): the chunk waits in an unbounded buffer there.
 *   rendezvous  a chunk leaves only when the sender is in round r AND the
 *               receiver next(i) is in round r too (its own round r-1 send
 *               done and its round r-1 chunk held; round 0: its ring
 *               open).  This is MPI's rendezvous protocol for large
 *               messages, and what SimGrid's mailbox put/get does: the
 *               transfer starts when both the put and the get are posted.
 * The two agree when all devices open the ring at the same time; they
 * differ when one is late: under eager its neighbours run ahead, under
 * rendezvous they wait for it.
 *
 * The communication's own cost (a type's comm_ns_per_byte c > 0; gloo on
 * CPU devices, where sends, receives and reductions run on the cores that
 * also compute).  The receiver y of a chunk processes it for w = c * chunk
 * bytes of its own time, as it comes in: from when the transfer starts (or
 * y's previous chunk is processed, if later), since gloo reduces a ring
 * chunk in segments while the rest is on the wire.  The chunk is usable
 * (counted in recv_cnt) at the later of its arrival and the end of that
 * processing (then a PROC_DONE event replaces the ARRIVE's receipt).
 * Processing that starts while y's compute runs (from the start of its
 * step to the end of its backward) suspends the compute for w: the
 * compute's milestones still ahead (bucket ready times, the patent ring's
 * opening, the end of the backward) move later by as much.  They carry in
 * their argument the debt already counted in their time, and a milestone
 * that fires with less than the device's debt is rescheduled by the
 * difference (no event is ever cancelled).  So a ring after the backward
 * takes 2(N-1) max(alpha + M/(N B), c M/N), and a ring hidden in a long
 * backward stretches the backward by 2(N-1) c M/N.  The optimizer is not
 * suspended (processing in it only happens under eager, for chunks of the
 * next step).  With c = 0 for every type none of this runs.
 *
 * The hop wait (a type's t_hop_wait L > 0; CPU devices under a quota,
 * where the thread that takes a chunk waits for the quota's next period
 * once the compute has used it up): a chunk that arrives at y before y's
 * backward has ended (its planned end plus the compute debt) is usable L
 * after the later of its arrival and its processing.  It does not suspend
 * the compute.  With L = 0 for every type nothing changes.  L is the probe's
 * wait grown to the ring the chunk's round runs along (hop_wait: ring,
 * hs_replay_hop_wait_ring_ns): every device for the flat ring, a node's
 * devices or the nodes for the hierarchical collective's rounds.
 *
 * Rounds are numbered per device and stream (a lane, or ring index, rx =
 * x K + s; hs_coll_engine.h): g = (k * B_s + j) * R + r with R rounds per
 * collective (the ring: 2(N-1)), B_s the rings
 * of stream s per step and j = b / K the bucket's place on its stream (K =
 * 1: g = (k * B + b) * R + r).  Each ring index keeps counters instead of
 * per-round records:
 *   send_cnt   sends completed = the g of its next send;
 *   recv_cnt   chunks arrived from prev (chunks come in order on a link);
 *   enter_g    the last round it entered (its own conditions met);
 *   g_open     rounds below this are open (their bucket is ready);
 *   g_end      the first round of the next step.
 * For the ring (hs_coll_ring.c): round g may be entered when send_cnt ==
 * g, g < g_open and recv_cnt >= g; its chunk leaves when entered and
 * (eager, or the receiver's enter_g >= g).
 * A device's ring is done for step k when it has opened all B buckets and,
 * on every stream, send_cnt == g_end and recv_cnt >= g_end.  Under eager,
 * recv_cnt may run past g_end (chunks of the next step buffered).
 *
 * Events.  One event per chunk (ARRIVE: the sender's send is done and the
 * receiver holds the chunk; both may then move on; with a communication
 * cost, PROC_DONE when the receiver finishes processing it after its
 * arrival), plus per device and
 * step: RING_OPEN (one per bucket; none mode opens the ring from
 * BWD_DONE) and OPT_DONE when t_opt > 0.  The end of the backward and the
 * end of a batch load are known when the step starts, so they become
 * events (BWD_DONE, DL_DONE) only when the device actually has to wait
 * for them; otherwise they are checked when the ring is done.  So a step
 * costs (ring) N * 2(N-1) * B chunk events and N to 4N others, and while the
 * ring runs about N events are pending (the heap is as small as it can
 * be).  At most N * (B + 3 + 2K) events are ever pending (per ring index
 * a chunk on the wire and one being processed).  ARRIVE and PROC_DONE
 * carry the ring index rx, the others the device.
 *
 * State.  Per device, two flat arrays of fixed-size structs, no pointers:
 * the ring counters touched on every chunk event (hs_coll_lane_t, one cache
 * line per device and stream) and the step state touched a few times per
 * step (hs__dev_t).
 * Transfer times are precomputed per device (and bucket) for a uniform
 * collective (the ring), computed per chunk otherwise.  The hot path (one
 * stream, one bucket, no communication cost, no tracing) runs inline from
 * the collective's ARRIVE handler, which the engine calls directly.
 * Statistics are kept online (sums per device, the latest end per step for
 * the cluster), so without sinks memory is O(N + S) and nothing is
 * stored per event.  With sinks, intervals and step records go to fixed
 * blocks that are handed to every sink when full.  Zero-length intervals
 * are not emitted.
 * A DATA_LOAD interval carries the step whose batch it loads (k+1 while
 * step k runs).
 *
 * Stochastic mode (o->stochastic): per device and step, t_dl, t_fwd, t_b1,
 * t_bwd and t_opt are drawn with GSL's mt19937 seeded with o->seed: one of
 * the measured samples uniformly when the profile has samples, else a
 * normal(mean, sd) truncated at 0 (redrawn while negative, up to 64 times,
 * then 0).  Link times stay fixed; bucket ready times keep their means.
 * Draws happen in event order, which is deterministic, so a seed gives the
 * same run.
 *
 * The figures (hs_replay_result_t).  A device's step k lasts F_{k+1} -
 * F_k; its steady figure is the mean over steps 1..S-1 (step 0 starts cold
 * and is left out).  The cluster's step k is the time between the last
 * device ending step k-1 and the last ending step k; its steady figure is
 * the mean over 1..S-1.  Epoch = I * steady step, with I from
 * hs_closed_predict; total = epochs * epoch.
 */
#include "hs_replay.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_coll_engine.h"
#include "hs_edge.h"
#include "hs_engine.h"
#include "hs_limits.h"
#include "hs_notes.h"
#include "hs_phases.h"
#include "hs_replay_int.h"
#include "hs_hierfast.h"
#include "hs_ringfast.h"
#include "hs_treefast.h"
#include "hs_units.h"

/* ---- tracing ---- */

static void hs__flush_iv(hs__model_t *m)
{
    size_t i;

    for (i = 0; i < m->n_sinks && !m->h.failed; i++) {
        if (m->sinks[i].write == NULL || m->n_iv == 0)
            continue;
        if (m->sinks[i].write(m->sinks[i].ctx, m->iv, m->n_iv, &m->err) !=
            HS_OK) {
            m->h.failed = 1;
            if (m->err.code == HS_OK)
                m->err.code = HS_ERR_IO;
        }
    }
    m->n_iv = 0;
}

static void hs__flush_rec(hs__model_t *m)
{
    size_t i;

    for (i = 0; i < m->n_sinks && !m->h.failed; i++) {
        if (m->sinks[i].steps == NULL || m->n_rec == 0)
            continue;
        if (m->sinks[i].steps(m->sinks[i].ctx, m->rec, m->n_rec, &m->err) !=
            HS_OK) {
            m->h.failed = 1;
            if (m->err.code == HS_OK)
                m->err.code = HS_ERR_IO;
        }
    }
    m->n_rec = 0;
}

static void hs__iv(hs__model_t *m, uint32_t dev, int64_t step, int phase,
                   int64_t round, int64_t bucket, int64_t peer,
                   int64_t start, int64_t end, uint64_t bytes)
{
    hs_interval_t *v;

    if (end <= start)
        return;
    v = &m->iv[m->n_iv++];
    v->device = dev;
    v->step = (uint32_t)step;
    v->phase = (uint8_t)phase;
    v->round = (int32_t)round;
    v->bucket = (int32_t)bucket;
    v->peer = (int32_t)peer;
    v->start_ns = start;
    v->end_ns = end;
    v->bytes = bytes;
    if (m->n_iv == HS__IV_BLOCK)
        hs__flush_iv(m);
}

/* hs_scenario_check_ranges keeps a step's debt within what an event
   argument carries above the bucket bits. */
_Static_assert(HS_LIMIT_COMM_DEBT_NS <= (INT64_MAX >> HS__ARG_SHIFT),
               "the range check's debt limit fits the event argument");

/* ---- drawing per-step times ---- */

static int64_t hs__val(hs__model_t *m, const hs_dist_t *d)
{
    int tries;

    if (!d->known)
        return 0;
    if (!m->stochastic)
        return d->mean_ns;
    if (d->n_samples > 0 && d->samples_ns != NULL)
        return d->samples_ns[gsl_rng_uniform_int(m->rng, d->n_samples)];
    if (d->sd_ns <= 0)
        return d->mean_ns;
    for (tries = 0; tries < 64; tries++) {
        double x = (double)d->mean_ns + gsl_ran_gaussian(m->rng,
                                                         (double)d->sd_ns);
        double top = (double)d->mean_ns + HS_DRAW_SD_MAX * (double)d->sd_ns;
        /* truncated above too, where hs_scenario_check_ranges bounds it
           (16 sd: never met in practice, the same draws as before) */
        if (x > top)
            x = top;
        if (x >= 0)
            return llround(x);
    }
    return 0;
}

/* ---- the model ---- */

static void hs__maybe_done(hs_engine_t *e, hs__model_t *m, uint32_t x,
                           int64_t now);
static int64_t hs__start_proc(hs__model_t *m, uint32_t ry, uint32_t x,
                              int64_t g, int64_t now, int64_t arrive_ns,
                              uint32_t ring_n);

static void hs__start_step(hs_engine_t *e, hs__model_t *m, uint32_t x,
                           int64_t k, int64_t now)
{
    const hs_scenario_t *s = m->s;
    const hs_device_t *dv = &s->devices[x];
    const hs_profile_t *p = &s->types[dv->type].profile;
    hs__dev_t *d = &m->dev[x];
    hs_phase_times_t raw;
    hs_phases_t ph;
    int64_t dl, fwd, b1, rest, t1, t2, t3;
    uint32_t st;

    d->step = k;
    d->start_ns = now;
    d->dev_done = 0;
    d->bwd_done = 0;
    d->ring_done = 0;
    d->opened = 0;
    d->cdebt_ns = 0;
    for (st = 0; st < m->k; st++) {
        hs_coll_lane_t *r = &m->h.lane[(size_t)x * m->k + st];
        r->armed = 0;
        r->g_end = (k + 1) * m->gs[st];
    }

    /* the CPU loads the next batch meanwhile; an event only if the
       device has to wait for it (hs__try_next) */
    dl = hs_phases_dl_ns(s, x, hs__val(m, &p->t_dl));
    if (m->tracing)
        hs__iv(m, x, k + 1, HS_PH_DATA_LOAD, -1, -1, -1, now, now + dl, 0);
    d->dl_ready_ns = now + dl;

    /* drawn in this order (the stochastic mode's sequence of draws) */
    raw.fwd_ns = hs__val(m, &p->t_fwd);
    raw.b1_ns = hs__val(m, &p->t_b1);
    raw.bwd_ns = p->t_bwd.known ? hs__val(m, &p->t_bwd) : -1;
    raw.opt_ns = hs__val(m, &p->t_opt);
    hs_phases_derive(s, x, k, m->o->stragglers, m->o->n_stragglers, &raw,
                     &ph);
    d->opt_ns = ph.opt_ns;
    fwd = ph.fwd_ns;
    b1 = ph.b1_ns;
    rest = ph.rest_ns;
    t1 = now + fwd;
    t2 = t1 + b1;
    t3 = t2 + rest;
    if (m->overlap == HS_OVERLAP_BUCKETS) {
        const double *rd = &m->ready[(size_t)dv->type * m->nb];
        uint32_t b;
        for (b = 0; b < m->nb; b++) {
            int64_t at = t1 + hs_phases_ready_ns(rd[b], ph.scale);
            if (at > t3)
                t3 = at;
            hs_engine_schedule(e, at, HS__EV_RING_OPEN, x, b);
        }
    } else if (m->overlap == HS_OVERLAP_PATENT) {
        hs_engine_schedule(e, t2, HS__EV_RING_OPEN, x, 0);
    }
    /* the end of the backward is an event only where something waits for
       it: the ring in none mode; otherwise hs__maybe_done schedules it if
       the ring is done first */
    d->bwd_end_ns = t3;
    if (m->overlap == HS_OVERLAP_NONE)
        hs_engine_schedule(e, t3, HS__EV_BWD_DONE, x, 0);
    if (m->tracing) {
        hs__iv(m, x, k, HS_PH_FORWARD, -1, -1, -1, now, t1, 0);
        hs__iv(m, x, k, HS_PH_BACKWARD_FIRST, -1, -1, -1, t1, t2, 0);
        /* with the communication's cost the backward may end later than
           planned: its rest is emitted when it ends (hs__bwd_ended) */
        if (!m->comm)
            hs__iv(m, x, k, HS_PH_BACKWARD_REST, -1, -1, -1, t2, t3, 0);
        d->b1_end_ns = t2;
    }
}

/* The backward of x's current step is known to be over (at its planned
   end plus the compute debt; found out then or later). */
static void hs__bwd_ended(hs__model_t *m, uint32_t x)
{
    hs__dev_t *d = &m->dev[x];

    d->bwd_done = 1;
    if (m->tracing && m->comm)
        hs__iv(m, x, d->step, HS_PH_BACKWARD_REST, -1, -1, -1, d->b1_end_ns,
               d->bwd_end_ns + d->cdebt_ns, 0);
}

/* Step k+1 starts once the device is done and batch k+1 is loaded. */
static void hs__try_next(hs_engine_t *e, hs__model_t *m, uint32_t x,
                         int64_t now)
{
    hs__dev_t *d = &m->dev[x];
    int64_t k = d->step;

    if (!d->dev_done || d->finished)
        return;
    if (d->dl_ready_ns > now) {
        /* wait for the batch: wake up when it is loaded */
        hs_engine_schedule(e, d->dl_ready_ns, HS__EV_DL_DONE, x, k + 1);
        return;
    }
    if (k >= 0) {
        int64_t sim = now - d->start_ns;
        if (m->tracing) {
            hs_step_rec_t *rc;
            hs__iv(m, x, k, HS_PH_DATA_WAIT, -1, -1, -1, d->done_ns, now, 0);
            rc = &m->rec[m->n_rec++];
            rc->device = x;
            rc->step = (uint32_t)k;
            rc->start_ns = d->start_ns;
            rc->end_ns = now;
            rc->sim_ns = sim;
            rc->closed_ns = m->closed[x];
            if (m->n_rec == HS__REC_BLOCK)
                hs__flush_rec(m);
        }
        if (k >= 1 || m->steps == 1) {
            d->sum_ns += sim;
            d->n_sum++;
        }
        if (now > m->cl_end[k])
            m->cl_end[k] = now;
    }
    if (k + 1 < m->steps) {
        if (k + 1 == 0 && now < m->cl_start0)
            m->cl_start0 = now;
        hs__start_step(e, m, x, k + 1, now);
    } else {
        d->finished = 1;
        m->n_finished++;
    }
}

static void hs__device_done(hs_engine_t *e, hs__model_t *m, uint32_t x,
                            int64_t now)
{
    m->dev[x].dev_done = 1;
    m->dev[x].done_ns = now;
    hs__try_next(e, m, x, now);
}

/* Ring and backward both done: the optimizer, then the device is done. */
static void hs__maybe_done(hs_engine_t *e, hs__model_t *m, uint32_t x,
                           int64_t now)
{
    hs__dev_t *d = &m->dev[x];

    if (!d->ring_done)
        return;
    if (!d->bwd_done) {
        if (now < d->bwd_end_ns + d->cdebt_ns) {
            /* the ring beat the backward: wake up when it ends */
            hs_engine_schedule(e, d->bwd_end_ns + d->cdebt_ns,
                               HS__EV_BWD_DONE, x,
                               d->cdebt_ns << HS__ARG_SHIFT);
            return;
        }
        hs__bwd_ended(m, x);
    }
    if (d->opt_ns > 0) {
        if (m->tracing)
            hs__iv(m, x, d->step, HS_PH_OPTIMIZER, -1, -1, -1, now,
                   now + d->opt_ns, 0);
        hs_engine_schedule(e, now + d->opt_ns, HS__EV_OPT_DONE, x, 0);
    } else {
        hs__device_done(e, m, x, now);
    }
}

/* The services the collective calls (hs_coll_engine.h). */

/* Lane lx's counters reached the end of the step: the device's
   collectives are done when every stream of it is (all its collectives
   opened, all their chunks sent and received). */
void hs_coll_lane_done(hs_engine_t *e, hs_coll_host_t *h, uint32_t lx,
                       int64_t now)
{
    hs__model_t *m = (hs__model_t *)h;
    uint32_t x = m->k == 1 ? lx : lx / m->k, st;

    for (st = 0; m->k > 1 && st < m->k; st++) {  /* the other streams */
        const hs_coll_lane_t *o = &m->h.lane[(size_t)x * m->k + st];
        if (!o->armed || o->send_cnt != o->g_end || o->recv_cnt < o->g_end)
            return;
    }
    for (st = 0; st < m->k; st++)
        m->h.lane[(size_t)x * m->k + st].armed = 0;
    m->dev[x].ring_done = 1;
    hs__maybe_done(e, m, x, now);
}

/* Transfer time of device x's chunk of stream st's round g when the
   collective's rounds differ (not uniform); the round's ring size into
   *ring_n. */
static int64_t hs__round_ns(const hs__model_t *m, uint32_t x, uint32_t st,
                            int64_t g, uint32_t *ring_n)
{
    const hs_scenario_t *s = m->s;
    hs_coll_round_t rd;
    size_t b = hs__bucket(m, st, g);

    m->coll->round(s, x, g % m->rounds, &rd);
    *ring_n = rd.ring_n;
    return hs_coll_round_chunk_ns(
        s, &rd, m->bytes[(size_t)s->devices[x].type * m->nb + b]);
}

/* hs_coll_send beyond one stream, one bucket, no cost, no tracing: the
   chunk's time per bucket (or round), the edge shared by the streams, the
   receiver's processing, the trace. */
void hs_coll_send_slow(hs_engine_t *e, hs_coll_host_t *h, uint32_t rx,
                       uint32_t ry, int64_t g, int64_t now)
{
    hs__model_t *m = (hs__model_t *)h;
    hs_coll_lane_t *r = &m->h.lane[rx];
    int64_t dur, start = now;
    uint32_t x = rx, st = 0, ring_n = m->n;

    if (m->k > 1) {
        x = rx / m->k;
        st = rx - x * m->k;
    }
    r->busy = 1;
    if (!m->uniform)
        dur = hs__round_ns(m, x, st, g, &ring_n);
    else if (m->nb == 1)
        dur = r->dur0;
    else
        dur = m->dur[(size_t)x * m->nb + hs__bucket(m, st, g)];
    if (m->k > 1) {
        /* the streams share the device's ring edge: first come, first
           served, chunk by chunk */
        hs__dev_t *d = &m->dev[x];
        if (d->link_free_ns > start)
            start = d->link_free_ns;
        d->link_free_ns = start + dur;
    }
    hs_engine_schedule(e, start + dur, HS__EV_ARRIVE, rx, g);
    if (m->comm) {
        int64_t usable = hs__start_proc(m, ry, x, g, start, start + dur,
                                        ring_n);
        if (m->h.usable_ns != NULL)
            m->h.usable_ns[(size_t)rx * (size_t)m->rounds +
                           (size_t)(g % m->rounds)] = usable;
    }
    if (m->tracing) {
        int64_t gs = g % m->gs[st];
        m->trc[rx][1] = start;
        if (start > m->trc[rx][0])
            hs__iv(m, x, g / m->gs[st], HS_PH_RING_WAIT, gs % m->rounds,
                   m->overlap == HS_OVERLAP_BUCKETS ?
                       (int64_t)hs__bucket(m, st, g) : -1,
                   (int64_t)(r->from / m->k), m->trc[rx][0], start, 0);
    }
}

/* hs_coll_delivered beyond the common case: a chunk still being processed
   becomes usable at its PROC_DONE; the send's interval. */
int hs_coll_delivered_slow(hs_engine_t *e, hs_coll_host_t *h, uint32_t rx,
                           uint32_t ry, int64_t g, int64_t now)
{
    hs__model_t *m = (hs__model_t *)h;
    uint32_t x = rx, st = 0;
    int usable = 1;

    if (m->k > 1) {
        x = rx / m->k;
        st = rx - x * m->k;
    }
    if (m->comm && m->h.wait_received && m->pend[ry] > now) {
        /* the receiver is still processing it (hs__start_proc; an engine
           with wait_received has one queue) */
        hs_engine_schedule(e, m->pend[ry], HS__EV_PROC_DONE, ry, g);
        usable = 0;
    }
    if (m->tracing) {
        int64_t gs = g % m->gs[st];
        size_t b = hs__bucket(m, st, g);
        hs__iv(m, x, g / m->gs[st], HS_PH_RING_SEND, gs % m->rounds,
               m->overlap == HS_OVERLAP_BUCKETS ? (int64_t)b : -1,
               (int64_t)(ry / m->k), m->trc[rx][1], now,
               m->chunk_bytes[(size_t)m->s->devices[x].type * m->nb + b]);
        m->trc[rx][0] = now;
    }
    return usable;
}

static void hs__open(hs_engine_t *e, hs__model_t *m, uint32_t x,
                     int64_t b, int64_t now)
{
    uint32_t st = (uint32_t)(b % m->k), rx = x * m->k + st, t;
    hs_coll_lane_t *r = &m->h.lane[rx];
    hs__dev_t *d = &m->dev[x];

    if (m->tracing && !r->busy && r->send_cnt >= r->g_open)
        m->trc[rx][0] = now;
    r->g_open = (d->step * m->bs[st] + b / m->k + 1) * m->rounds;
    if (++d->opened == m->nb)
        for (t = 0; t < m->k; t++)
            m->h.lane[(size_t)x * m->k + t].armed = 1;
    hs_coll_check(e, &m->h, rx, now);
    m->eng->poll(e, &m->h, rx, now);
}

/* The communication's own cost: chunk g from x to y starts on the wire
   at now and arrives at arrive_ns.  y processes it as it comes in (gloo
   reduces a ring chunk in segments while the rest is still on the wire),
   from when the transfer starts or its previous chunk is processed,
   whichever is later, for w = c * chunk bytes of its own time; the chunk
   is usable at the later of its arrival and the end of that processing
   (ARRIVE then becomes PROC_DONE when it is later).  Processing that starts
   while y's compute runs (from its step's start to the end of its
   backward) suspends it: the compute's remaining milestones move later by
   w (cdebt_ns, see hs__later).  Chunks reach y in order over one edge and
   x sends g+1 only after g arrived, so one chunk per device is in flight
   and they are processed, and become usable, in order.  A chunk that
   arrives while y computes (before the end of its backward) becomes usable
   the type's t_hop_wait later (the hop wait), grown to ring_n, the size of
   the ring round g runs along (every device but in the hierarchical
   collective).  With several processing queues (the tree: one per tree)
   all of this holds per queue: the chunk waits only for the chunks before
   it in its own queue (the engine's proc_queue), and each queue's
   processing that starts during the compute suspends it by its own w.
   Returns when the chunk is usable (also left in its queue's pend). */
static int64_t hs__start_proc(hs__model_t *m, uint32_t ry, uint32_t x,
                              int64_t g, int64_t now, int64_t arrive_ns,
                              uint32_t ring_n)
{
    uint32_t y = m->k == 1 ? ry : ry / m->k, st = ry - y * m->k;
    uint32_t q = m->pq > 1 ? m->eng->proc_queue(m->s, x, g % m->rounds) : 0;
    hs__dev_t *d = &m->dev[y];
    int64_t *free_ns = q == 0 ? &d->proc_free_ns
                              : &m->proc_free_more[(size_t)(q - 1) * m->n + y];
    int64_t *pend = &m->pend[(size_t)q * m->n * m->k + ry];
    size_t b = hs__bucket(m, st, g);
    int64_t w = m->proc[(size_t)m->s->devices[y].type * m->nb + b];
    int64_t ps = *free_ns > now ? *free_ns : now;
    int64_t prev = *pend, usable;

    if (d->step >= 0 && !d->bwd_done && ps < d->bwd_end_ns + d->cdebt_ns)
        d->cdebt_ns += w;
    *free_ns = ps + w;
    usable = ps + w > arrive_ns ? ps + w : arrive_ns;
    *pend = usable;
    /* the hop wait: the chunk reaches y while y computes */
    if (m->hopw != NULL && d->step >= 0 && !d->bwd_done &&
        arrive_ns < d->bwd_end_ns + d->cdebt_ns) {
        /* traced from the later of its arrival and processing, or the
           lane's previous chunk's wait (eager sends), to when it is
           usable: a lane's waits never overlap */
        int64_t from = usable > prev ? usable : prev;
        size_t ty = m->s->devices[y].type;
        int64_t hw = m->hopw[ty];   /* grown to every device */

        if (ring_n != m->n && hw > 0)
            hw = hs_replay_hop_wait_ring_ns(m->s, ty, m->o->hop_wait, ring_n);
        *pend += hw;
        if (m->tracing && *pend > from) {
            int64_t gs = g % m->gs[st];
            hs__iv(m, y, g / m->gs[st], HS_PH_HOP_WAIT, gs % m->rounds,
                   m->overlap == HS_OVERLAP_BUCKETS ? (int64_t)b : -1,
                   (int64_t)x, from, *pend, 0);
        }
    }
    /* a lane's chunks become usable in order: one thread takes them, and
       the collective counts them in order.  Under eager sends chunk g+1
       may arrive while g still waits (a hop wait), and, arriving after the
       backward's end, would otherwise be usable first */
    if (*pend < prev)
        *pend = prev;
    if (m->tracing && w > 0) {
        int64_t gs = g % m->gs[st];
        hs__iv(m, y, g / m->gs[st], HS_PH_RING_REDUCE, gs % m->rounds,
               m->overlap == HS_OVERLAP_BUCKETS ? (int64_t)b : -1,
               (int64_t)x, ps, ps + w,
               m->chunk_bytes[(size_t)m->s->devices[y].type * m->nb + b]);
    }
    return *pend;
}

static int hs__on_dl(hs_engine_t *e, void *model, const hs_event_t *ev)
{
    hs__model_t *m = model;

    hs__try_next(e, m, ev->device, ev->time_ns);
    return m->h.failed;
}

/* A compute milestone (a bucket ready, the end of the backward) fires:
   when processing suspended the compute since it was scheduled, it moves
   by as much (and returns 1). */
static int hs__later(hs_engine_t *e, hs__model_t *m, const hs_event_t *ev)
{
    const hs__dev_t *d = &m->dev[ev->device];
    int64_t inc = ev->arg >> HS__ARG_SHIFT;

    if (!m->comm || d->cdebt_ns <= inc)
        return 0;
    hs_engine_schedule(e, ev->time_ns + (d->cdebt_ns - inc), ev->kind,
                       ev->device, (d->cdebt_ns << HS__ARG_SHIFT) |
                                       (ev->arg & HS__ARG_BUCKET));
    return 1;
}

static int hs__on_open(hs_engine_t *e, void *model, const hs_event_t *ev)
{
    hs__model_t *m = model;

    if (hs__later(e, m, ev))
        return m->h.failed;
    hs__open(e, m, ev->device, ev->arg & HS__ARG_BUCKET, ev->time_ns);
    return m->h.failed;
}

static int hs__on_bwd(hs_engine_t *e, void *model, const hs_event_t *ev)
{
    hs__model_t *m = model;
    uint32_t x = ev->device;

    if (hs__later(e, m, ev))
        return m->h.failed;
    hs__bwd_ended(m, x);
    if (m->overlap == HS_OVERLAP_NONE)
        hs__open(e, m, x, 0, ev->time_ns);
    else
        hs__maybe_done(e, m, x, ev->time_ns);
    return m->h.failed;
}

static int hs__on_opt(hs_engine_t *e, void *model, const hs_event_t *ev)
{
    hs__model_t *m = model;

    hs__device_done(e, m, ev->device, ev->time_ns);
    return m->h.failed;
}

/* ---- setup ---- */

static void hs__model_clear(hs__model_t *m)
{
    free(m->h.lane);
    free(m->dev);
    free(m->dur);
    free(m->bytes);
    free(m->proc);
    free(m->hopw);
    free(m->pend);
    free(m->proc_free_more);
    free(m->h.usable_ns);
    free(m->trc);
    free(m->chunk_bytes);
    free(m->ready);
    free(m->closed);
    free(m->cl_end);
    free(m->iv);
    free(m->rec);
    if (m->rng != NULL)
        gsl_rng_free(m->rng);
}

void hs_replay_result_free(hs_replay_result_t *r)
{
    if (r == NULL)
        return;
    free(r->dev_step_ns);
    free(r->dev_closed_ns);
    free(r->dev_closed_ext_ns);
    free(r->type_closed_ext_ns);
    free(r->type_step_ns);
    free(r->type_closed_ns);
    free(r->cluster_step_ns);
    {
        hs_notes_t nl = {r->n_notes, r->notes};

        hs_notes_clear(&nl);
    }
    free(r);
}

int64_t hs_replay_hop_wait_ring_ns(const hs_scenario_t *s, size_t t,
                                   hs_hop_wait_t how, size_t ring_n)
{
    const hs_profile_t *p = &s->types[t].profile;

    return how == HS_HOP_WAIT_PROBE ? p->t_hop_wait_ns
                                    : hs_profile_hop_wait_ns(p, ring_n);
}

int64_t hs_replay_hop_wait_ns(const hs_scenario_t *s, size_t t,
                              hs_hop_wait_t how)
{
    return hs_replay_hop_wait_ring_ns(s, t, how, s->n_devices);
}

size_t hs_replay_hop_rings(const hs_scenario_t *s, const char *collective,
                           size_t ring_n[2])
{
    const hs_collective_t *coll = NULL;
    hs_error_t err;

    if (hs_collective_find(collective, &coll, &err) == HS_OK &&
        coll->rings != NULL)
        return coll->rings(s, ring_n);
    ring_n[0] = s->n_devices;
    return 1;
}

void hs_replay_opts_from_scenario(const hs_scenario_t *s,
                                  hs_replay_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->overlap = s->overlap;
    o->send = s->send;
    o->hop_wait = s->hop_wait;
    o->steps = s->sim_steps;
    o->streams = s->streams;
    o->seed = s->seed;
    o->stochastic = s->stochastic;
    o->stragglers = s->stragglers;
    o->n_stragglers = s->n_stragglers;
    o->collective = s->collective;  /* NULL = ring */
}

/* The checks before a replay: devices, steps, stragglers, the collective
   and its engine, the ranges every time below must stay in, and (unless
   o->force) the budget.  Fills *asked (the collective named), *coll (the
   one that runs: auto's pick) and *eng. */
static hs_err_t hs__replay_precheck(const hs_scenario_t *s,
                                    const hs_replay_opts_t *o,
                                    const hs_collective_t **asked,
                                    const hs_collective_t **coll,
                                    const hs_coll_engine_t **eng,
                                    hs_error_t *err)
{
    hs_err_t rc;
    size_t i;

    if (s->n_devices == 0 || s->n_devices > UINT32_MAX / 2)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "replay: %zu devices (need 1 .. 2^31)",
                             s->n_devices);
    if (o->steps == 0)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "replay: 0 steps to simulate");
    for (i = 0; i < o->n_stragglers; i++)
        if (o->stragglers[i].device >= s->n_devices)
            return hs_error_setf(err, HS_ERR_RANGE,
                                 "replay: straggler %zu names device %u of "
                                 "%zu", i, o->stragglers[i].device,
                                 s->n_devices);
    rc = hs_collective_find(o->collective, asked, err);
    if (rc != HS_OK)
        return rc;
    *coll = hs_collective_resolve(*asked, s);   /* auto: the one it picks */
    if ((*eng = hs_coll_engine_of(*coll)) == NULL)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "replay: collective '%s' has no replay",
                             (*coll)->name);
    /* every time below is bounded: nothing can overflow, nor reach the
       event engine's internal checks (hs_scenario_check_ranges) */
    rc = hs_scenario_check_ranges_coll(s, o->steps, o->overlap,
                                       o->stragglers, o->n_stragglers, *coll,
                                       err);
    if (rc != HS_OK)
        return rc;
    /* a replay that would not end in reasonable time or memory, unless
       the caller forces it (every caller: simulate, validate, sweep,
       advise) */
    if (!o->force)
        return hs_scenario_check_budget(s, o->steps, o->overlap, *coll, err);
    return HS_OK;
}

/* The streams (bucket b's ring runs on stream b % k, one after the other
   on each stream), the bucket limit, which types carry a communication
   cost and each type's hop wait (m->hopw, owned by m).  After
   hs__replay_buckets.  HS_ERR_NOMEM is returned without a message. */
static hs_err_t hs__replay_layout(hs__model_t *m, hs_error_t *err)
{
    const hs_scenario_t *s = m->s;
    size_t i;

    m->k = 1;
    if (m->overlap == HS_OVERLAP_BUCKETS && m->o->streams > 1)
        m->k = m->o->streams < m->nb ? m->o->streams : m->nb;
    if (m->k > HS_MAX_STREAMS)
        return hs_error_setf(err, HS_ERR_RANGE, "replay: %u streams (at "
                             "most %d)", m->k, HS_MAX_STREAMS);
    for (i = 0; i < m->k; i++) {
        m->bs[i] = ((int64_t)m->nb - (int64_t)i + m->k - 1) / m->k;
        m->gs[i] = m->bs[i] * m->rounds;
    }
    if (m->nb > HS__ARG_BUCKET)
        return hs_error_setf(err, HS_ERR_RANGE, "replay: %u gradient "
                             "buckets (at most %lld)", m->nb,
                             (long long)HS__ARG_BUCKET);
    for (i = 0; i < s->n_types; i++) {
        const hs_profile_t *p = &s->types[i].profile;
        if (p->comm_ns_per_byte > 0 || p->t_hop_wait_ns > 0)
            m->comm = 1;
        if (p->t_hop_wait_ns <= 0)
            continue;
        if (m->hopw == NULL &&
            (m->hopw = calloc(s->n_types, sizeof *m->hopw)) == NULL)
            return HS_ERR_NOMEM;
        m->hopw[i] = hs_replay_hop_wait_ns(s, i, m->o->hop_wait);
    }
    return HS_OK;
}

/* The model's arrays (lanes, devices, closed figures from pred, the
   closed form of the same collective, step ends, bucket durations, trace
   blocks, the communication costs from bytes) and the result's; m and res
   own what they get.  0, or -1 when out of memory. */
static int hs__replay_alloc(hs__model_t *m, const hs_prediction_t *pred,
                            hs_replay_result_t *res, const double *bytes)
{
    const hs_scenario_t *s = m->s;
    size_t i;

    if (m->comm) {
        m->proc = calloc(s->n_types * m->nb, sizeof *m->proc);
        if (m->proc == NULL)
            return -1;
        for (i = 0; i < s->n_types * m->nb; i++)
            m->proc[i] = llround(s->types[i / m->nb].profile.comm_ns_per_byte *
                                 bytes[i] / m->parts);
    }
    m->h.k = m->k;
    m->h.rendezvous = m->rendezvous;
    m->uniform = m->coll->uniform;
    m->h.slow = m->k > 1 || m->nb > 1 || m->comm || m->tracing || !m->uniform;
    m->h.tracing = m->tracing;
    /* one cache line per lane (device and stream) */
    m->h.lane = aligned_alloc(64, ((size_t)m->n * m->k * sizeof *m->h.lane +
                                   63) / 64 * 64);
    if (m->h.lane != NULL)
        memset(m->h.lane, 0, (size_t)m->n * m->k * sizeof *m->h.lane);
    m->pq = m->comm ? m->eng->proc_queues : 1;
    if (m->comm && (m->pend = calloc((size_t)m->pq * m->n * m->k,
                                     sizeof *m->pend)) == NULL)
        return -1;
    if (m->comm && m->pq > 1 &&
        (m->proc_free_more = calloc((size_t)(m->pq - 1) * m->n,
                                    sizeof *m->proc_free_more)) == NULL)
        return -1;
    m->h.pend = m->pend;
    if (m->comm && m->eng->usable_per_round) {
        /* every lane's sent chunks' usable times, then the engine's own
           words per lane */
        size_t lanes = (size_t)m->n * m->k;
        m->h.usable_ns = calloc(lanes * ((size_t)m->rounds +
                                         HS_COLL_LANE_NS),
                                sizeof *m->h.usable_ns);
        if (m->h.usable_ns == NULL)
            return -1;
        m->h.lane_ns = m->h.usable_ns + lanes * (size_t)m->rounds;
    }
    if (m->tracing && (m->trc = calloc((size_t)m->n * m->k, sizeof *m->trc)) ==
                          NULL)
        return -1;
    m->dev = calloc(m->n, sizeof *m->dev);
    m->closed = calloc(m->n, sizeof *m->closed);
    m->cl_end = malloc((size_t)m->steps * sizeof *m->cl_end);
    if (m->nb > 1)
        m->dur = calloc((size_t)m->n * m->nb, sizeof *m->dur);
    if (m->tracing) {
        m->iv = malloc(HS__IV_BLOCK * sizeof *m->iv);
        m->rec = malloc(HS__REC_BLOCK * sizeof *m->rec);
    }
    if (hs_replay_result_arrays(res, m->n, s->n_types, (uint32_t)m->steps) != 0)
        return -1;
    if (m->h.lane == NULL || m->dev == NULL || m->closed == NULL ||
        m->cl_end == NULL || (m->nb > 1 && m->dur == NULL) ||
        (m->tracing && (m->iv == NULL || m->rec == NULL)))
        return -1;
    /* every device's closed T(i): the prediction's, made for the same
       collective (not computed a second time) */
    for (i = 0; i < m->n; i++)
        m->closed[i] = pred->dev[i].t_step_ns;
    if (m->stochastic) {
        gsl_set_error_handler_off();
        m->rng = gsl_rng_alloc(gsl_rng_mt19937);
        if (m->rng == NULL)
            return -1;
        gsl_rng_set(m->rng, (unsigned long)m->o->seed);
    }
    return 0;
}

/* Every lane's first chunk time and every device's state and bucket
   durations, before time 0; bytes: per type and bucket. */
static void hs__replay_lanes(hs__model_t *m, const double *bytes)
{
    const hs_scenario_t *s = m->s;
    hs_coll_round_t rd;
    size_t i;
    uint32_t x;

    for (i = 0; i < (size_t)m->steps; i++)
        m->cl_end[i] = INT64_MIN;
    m->cl_start0 = INT64_MAX;
    for (x = 0; x < m->n; x++) {
        const hs_device_t *dv = &s->devices[x];
        double bw;
        int64_t lat;
        uint32_t b, st;
        /* a uniform collective's chunks all take round 0's edge */
        m->coll->round(s, x, 0, &rd);
        bw = rd.edge == HS_COLL_EDGE_OWN ? rd.bw_bytes_per_s
                                         : s->ring_bw_bytes_per_s[rd.edge];
        lat = rd.edge == HS_COLL_EDGE_OWN ? rd.lat_ns
                                          : s->ring_lat_ns[rd.edge];
        for (st = 0; st < m->k; st++) {
            hs_coll_lane_t *r = &m->h.lane[(size_t)x * m->k + st];
            m->eng->lane_init(s, x, st, m->k, r);
            r->enter_g = -1;
            r->dur0 = hs_chunk_ns(lat, bw, bytes[(size_t)dv->type * m->nb],
                                  rd.parts);
        }
        m->dev[x].step = -1;
        m->dev[x].dl_ready_ns = INT64_MAX;
        m->dev[x].dev_done = 1;
        for (b = 0; m->nb > 1 && b < m->nb; b++)
            m->dur[(size_t)x * m->nb + b] =
                hs_chunk_ns(lat, bw, bytes[(size_t)dv->type * m->nb + b],
                            rd.parts);
    }
}

/* Runs the event engine e over the model from time 0 (every device starts
   loading batch 0) to the end; the sinks' error or a stall fails it. */
static hs_err_t hs__replay_events(hs__model_t *m, hs_engine_t *e,
                                  hs_error_t *err)
{
    hs_err_t rc;
    uint32_t x;

    for (x = 0; x < m->n; x++) {
        const hs_profile_t *p = &m->s->types[m->s->devices[x].type].profile;
        int64_t dl = hs_phases_dl_ns(m->s, x, hs__val(m, &p->t_dl));
        if (m->tracing)
            hs__iv(m, x, 0, HS_PH_DATA_LOAD, -1, -1, -1, 0, dl, 0);
        m->dev[x].dl_ready_ns = dl;
        hs_engine_schedule(e, dl, HS__EV_DL_DONE, x, 0);
    }
    rc = hs_engine_run(e, err);
    if (rc != HS_OK)
        return rc;
    if (!m->h.failed && m->tracing) {
        hs__flush_iv(m);
        hs__flush_rec(m);
    }
    if (m->h.failed) {
        rc = m->err.code != HS_OK ? m->err.code : HS_ERR_IO;
        if (err != NULL)
            *err = m->err;
        if (err != NULL && err->code == HS_OK)
            err->code = rc;
        return rc;
    }
    if (m->n_finished != m->n)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "replay stalled: %u of %u devices finished "
                             "(an internal error)", m->n_finished, m->n);
    return HS_OK;
}

/* What the replay ran (modes, counts) and what it cost (events, queue,
   state bytes), into res, after hs__replay_events. */
static void hs__replay_describe(const hs__model_t *m, const hs_engine_t *e,
                                hs_replay_result_t *res)
{
    const hs_replay_opts_t *o = m->o;
    const hs_scenario_t *s = m->s;

    res->steps = (uint32_t)m->steps;
    res->overlap = m->overlap == HS_OVERLAP_BUCKETS &&
                           o->overlap == HS_OVERLAP_LAST_BUCKET
                       ? HS_OVERLAP_LAST_BUCKET
                       : m->overlap;
    res->overlap_asked = o->overlap;
    res->collective = m->coll->name;
    res->send = o->send;
    res->hop_wait = o->hop_wait;
    res->stochastic = o->stochastic;
    res->seed = o->seed;
    res->n_buckets = m->nb;
    res->streams = m->k;
    res->streams_asked = o->streams;
    res->n_events = hs_engine_events(e);
    res->end_ns = hs_engine_now(e);
    res->queue_high_water = hs_engine_high_water(e);
    res->state_bytes = hs_engine_bytes(e) +
        (size_t)m->n * (m->k * sizeof(hs_coll_lane_t) + sizeof(hs__dev_t) +
                        sizeof(int64_t)) +
        (m->nb > 1 ? (size_t)m->n * m->nb * sizeof(int64_t) : 0) +
        (m->comm ? s->n_types * m->nb * sizeof(int64_t) +
                       (size_t)m->pq * m->n * m->k * sizeof(int64_t) +
                       (size_t)(m->pq - 1) * m->n * sizeof(int64_t) : 0) +
        (m->h.usable_ns != NULL ? (size_t)m->n * m->k *
                                      ((size_t)m->rounds +
                                       HS_COLL_LANE_NS) *
                                      sizeof(int64_t) : 0) +
        (m->hopw != NULL ? s->n_types * sizeof(int64_t) : 0) +
        (m->tracing ? (size_t)m->n * m->k * 2 * sizeof(int64_t) : 0) +
        (size_t)m->steps * sizeof(int64_t) +
        (m->tracing ? HS__IV_BLOCK * sizeof(hs_interval_t) +
                          HS__REC_BLOCK * sizeof(hs_step_rec_t) : 0);
}

/* Whether collective coll (resolved) has an exact fast path that takes
   scenario s and options o: 1 the ring's, 2 the hierarchical one's, 3 the
   tree's; 0 none. */
static int hs__fast_path_of(const hs_scenario_t *s, const hs_replay_opts_t *o,
                            const hs_collective_t *coll)
{
    if (coll == &hs_coll_ring && hs_ringfast_supports(s, o, NULL, 0))
        return 1;
    if (coll == &hs_coll_hier && hs_hierfast_supports(s, o, coll, NULL, 0))
        return 2;
    if (coll == &hs_coll_tree && hs_treefast_supports(s, o, coll, NULL, 0))
        return 3;
    return 0;
}

const hs_collective_t *hs_replay_collective(const hs_scenario_t *s,
                                            const hs_replay_opts_t *o)
{
    const hs_collective_t *c = NULL;

    if (hs_collective_find(o->collective, &c, NULL) != HS_OK)
        return NULL;
    return hs_collective_resolve(c, s);
}

int hs_replay_fast_supports(const hs_scenario_t *s, const hs_replay_opts_t *o)
{
    hs_replay_opts_t own;
    const hs_collective_t *c;

    if (o == NULL) {
        hs_replay_opts_from_scenario(s, &own);
        o = &own;
    }
    if (o->engine || (c = hs_replay_collective(s, o)) == NULL)
        return 0;
    return hs__fast_path_of(s, o, c) != 0;
}

hs_err_t hs_replay_check_budget(const hs_scenario_t *s,
                                const hs_replay_opts_t *o, hs_error_t *err)
{
    hs_replay_opts_t own;
    const hs_collective_t *c = NULL;
    hs_err_t rc;

    if (o == NULL) {
        hs_replay_opts_from_scenario(s, &own);
        o = &own;
    }
    if (o->force)
        return HS_OK;
    if ((rc = hs_collective_find(o->collective, &c, err)) != HS_OK)
        return rc;
    return hs_scenario_check_budget(s, o->steps, o->overlap, c, err);
}

/* Runs the replay on an exact fast path when collective coll has one
   that takes scenario s and options o (the flat ring's, the hierarchical
   one's, the tree's): returns 1 with its status in *rc (and err) and, on success, the
   result in *out, naming the collective asked; 0 when none applies. */
static int hs__replay_fast(const hs_scenario_t *s, const hs_replay_opts_t *o,
                           const hs_collective_t *coll,
                           const hs_collective_t *asked,
                           hs_replay_result_t **out, hs_err_t *rc,
                           hs_error_t *err)
{
    switch (hs__fast_path_of(s, o, coll)) {
    case 1:
        *rc = hs_ringfast_run(s, o, out, err);
        break;
    case 2:
        *rc = hs_hierfast_run(s, o, out, err);
        break;
    case 3:
        *rc = hs_treefast_run(s, o, out, err);
        break;
    default:
        return 0;
    }
    if (*rc == HS_OK) {
        (*out)->fast_path = 1;
        (*out)->collective = asked->name;
    }
    return 1;
}

/* The event model's settings for scenario s under options o with
   collective coll and its engine eng: sizes, rounds, the chunk's parts
   (round 0's, past idle rounds), modes and the trace sinks (borrowed). */
static void hs__replay_model_init(hs__model_t *m, const hs_scenario_t *s,
                                  const hs_replay_opts_t *o,
                                  const hs_collective_t *coll,
                                  const hs_coll_engine_t *eng,
                                  const hs_trace_sink_t *sinks,
                                  size_t n_sinks)
{
    hs_coll_round_t rd;
    int64_t r;

    m->s = s;
    m->o = o;
    m->coll = coll;
    m->eng = eng;
    m->h.wait_received = eng->wait_received;
    m->n = (uint32_t)s->n_devices;
    m->rounds = coll->rounds_of ? coll->rounds_of(s) : coll->rounds(m->n);
    m->h.s = s;
    m->h.rounds = m->rounds;
    coll->round(s, 0, 0, &rd);
    for (r = 1; rd.parts == 0 && r < m->rounds; r++)
        coll->round(s, 0, r, &rd);   /* past idle rounds */
    m->parts = rd.parts > 0 ? rd.parts : 1;
    m->steps = o->steps;
    m->rendezvous = o->send == HS_SEND_RENDEZVOUS;
    m->stochastic = o->stochastic;
    m->sinks = sinks;
    m->n_sinks = n_sinks;
    m->tracing = n_sinks > 0;
}

hs_err_t hs_replay_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                       const hs_trace_sink_t *sinks, size_t n_sinks,
                       hs_replay_result_t **out, hs_error_t *err)
{
    hs_handler_t handlers[HS__EV_KINDS];
    hs__model_t m;
    hs_replay_opts_t o_s;
    hs_replay_result_t *res = NULL;
    hs_prediction_t *pred = NULL;
    hs_engine_t *e = NULL;
    double *bytes = NULL;
    const hs_collective_t *coll = NULL, *asked = NULL;
    const hs_coll_engine_t *eng = NULL;
    hs_err_t rc;
    size_t cap;

    *out = NULL;
    memset(&m, 0, sizeof m);
    if (o == NULL) {
        hs_replay_opts_from_scenario(s, &o_s);
        o = &o_s;
    }
    rc = hs__replay_precheck(s, o, &asked, &coll, &eng, err);
    if (rc != HS_OK)
        return rc;
    /* the same figures without an event queue, where they can be had */
    if (n_sinks == 0 && !o->engine &&
        hs__replay_fast(s, o, coll, asked, out, &rc, err))
        return rc;
    rc = hs_closed_predict_with(s, coll, o->overlap, &pred, err);
    if (rc != HS_OK)
        return rc;
    res = calloc(1, sizeof *res);
    if (res == NULL)
        goto nomem;
    hs__replay_model_init(&m, s, o, coll, eng, sinks, n_sinks);
    rc = hs__replay_buckets(&m, res, &bytes, err);
    if (rc != HS_OK)
        goto fail;
    rc = hs__replay_layout(&m, err);
    if (rc == HS_ERR_NOMEM)
        goto nomem;
    if (rc != HS_OK)
        goto fail;
    /* pending at most: per device a batch load, its bucket openings, the
       end of its backward, its optimizer; per ring index a chunk on the
       wire and one being processed */
    cap = (size_t)m.n * (m.nb + 3 + 2 * (size_t)m.k) + 16;
    rc = hs__replay_check_engine(&m, cap, err);
    if (rc != HS_OK)
        goto fail;
    if (hs__replay_alloc(&m, pred, res, bytes) != 0)
        goto nomem;
    hs__replay_lanes(&m, bytes);
    m.bytes = bytes;   /* the model owns them now */
    bytes = NULL;

    handlers[HS__EV_DL_DONE] = hs__on_dl;
    handlers[HS__EV_RING_OPEN] = hs__on_open;
    handlers[HS__EV_BWD_DONE] = hs__on_bwd;
    handlers[HS__EV_ARRIVE] = eng->arrive;
    handlers[HS__EV_OPT_DONE] = hs__on_opt;
    handlers[HS__EV_PROC_DONE] = eng->received;
    rc = hs_engine_new(cap, handlers, HS__EV_KINDS, &m, &e, err);
    if (rc != HS_OK)
        goto fail;
    rc = hs__replay_events(&m, e, err);
    if (rc != HS_OK)
        goto fail;
    hs__replay_describe(&m, e, res);
    res->collective = asked->name;
    rc = hs__replay_figures(&m, pred, res, err);
    if (rc != HS_OK)
        goto fail;
    hs_engine_free(e);
    hs__model_clear(&m);
    hs_prediction_free(pred);
    *out = res;
    return HS_OK;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory for the replay "
                                          "of %zu devices", s->n_devices);
fail:
    free(bytes);
    hs_engine_free(e);
    hs__model_clear(&m);
    hs_prediction_free(pred);
    hs_replay_result_free(res);
    return rc;
}
