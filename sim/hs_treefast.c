/*
 * hs_treefast.c -- the double binary tree all-reduce's replay as a
 * max-plus recursion over its rounds (hs_treefast.h).
 *
 * Why.  The event engine replays a step of the tree as one ARRIVE per
 * chunk, about 2 x 4P per device (P chunks per tree up to the parent, P
 * down to each child), 1.3e6 events per step at N = 10,000 with P = 8,
 * and the closed figures it compares with cost as much again.  When
 * nothing is drawn at random, every device runs one stream and no chunk
 * costs its receiver time, the order of events does not matter, only
 * their times, and each is a max of earlier ones plus a fixed duration.
 *
 * The model is sim/hs_coll_tree.c's.  A lane enters round r of a step
 * when its round r-1 is done (round 0: when the all-reduce opens on the
 * device: patent after its first backward op, none after the whole
 * backward) and every chunk the round needs has arrived (the rounds of
 * model/hs_coll_tree_shape.h: the children's chunk c before sending it
 * up, the parent's before sending it down, ...); it sends at once (the
 * tree's chunks are eager whatever simulate.send says) and its round is
 * done when the chunk arrives, or at once without a send.  Every
 * condition is applied as soon as it holds (each chunk's arrival polls
 * its sender and its receiver, the only lanes that can wait on it), so
 * every time is the max-plus value
 *   done(x, r) = max(done(x, r-1), max_i done(need_i, need_r_i)) + t(x, r)
 * with done(x, -1) = the opening O[x]: model/hs_coll_tree_shape.h's
 * schedule (hs_coll_tree_sched_run), which the closed form runs with
 * every O[x] = 0.  A device's all-reduce is done at done(x, R-1) (its last
 * round sends nothing: send_cnt and recv_cnt reach the step's end when it
 * is entered).  Steps chain through the step's start F only: a device
 * opens step k's all-reduce after its step k-1 one is done, and every
 * round of step k needs only step k's chunks.  Around the all-reduce, as
 * hs_hierfast.c: the backward's end t3 (patent: done at max(RD, t3)), the
 * optimizer, then F' = max(done + opt, F + t_dl).
 *
 * Events (n_events, as the engine counts them): per device one initial
 * DL_DONE; per step one ARRIVE per chunk (hs_coll_tree_sched_chunks), per
 * device RING_OPEN (patent) or BWD_DONE (none), a BWD_DONE when the
 * all-reduce beats the backward (patent), OPT_DONE when t_opt > 0 and
 * DL_DONE when the batch is loaded after the device is done.
 * tests/test_treefast.c checks every figure against the event engine on
 * shipped and random scenarios.
 */
#include "hs_treefast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_coll_tree_shape.h"
#include "hs_collective.h"
#include "hs_replay_int.h"

int hs_treefast_supports(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         const hs_collective_t *coll, char *why,
                         size_t why_len)
{
    return hs_fast_supports_nodes(s, o, coll == &hs_coll_tree,
                                  "this fast path replays the tree "
                                  "all-reduce only",
                                  why, why_len);
}

/* The state of one run, per device in listing order. */
typedef struct hs__tf_s {
    size_t n;
    int patent;
    hs_coll_tree_sched_t *sched;
    uint64_t chunks;      /* ARRIVE events per step */
    int64_t *buf;         /* one block for the arrays below */
    int64_t *o, *t3, *f, *sum, *rd;
    hs_fast_comp_t *base, *comp;
} hs__tf_t;

/* Step k's openings o[] and backward ends t3[] from the step starts f[]
   (stragglers where they apply; comp[] then holds the step's compute). */
static void hs__plan_step(const hs_scenario_t *s, const hs_replay_opts_t *o,
                          hs__tf_t *m, int64_t k)
{
    size_t x, i;

    memcpy(m->comp, m->base, m->n * sizeof *m->comp);
    for (i = 0; i < o->n_stragglers; i++) {
        const hs_straggler_t *st = &o->stragglers[i];
        if (st->device < m->n && (int64_t)st->first_step <= k &&
            k <= (int64_t)st->last_step)
            hs_fast_compute(s, o, st->device, k, &m->comp[st->device]);
    }
    for (x = 0; x < m->n; x++) {
        int64_t t2 = m->f[x] + m->comp[x].fwd + m->comp[x].b1;
        m->t3[x] = t2 + m->comp[x].rest;
        m->o[x] = m->patent ? t2 : m->t3[x];
    }
}

/* After step k's all-reduce: each device's end (the backward, the
   optimizer, the next batch), its step's length, the events; returns the
   step's latest end. */
static int64_t hs__end_step(hs__tf_t *m, uint32_t k, uint32_t steps,
                            uint64_t *n_events)
{
    size_t x;
    int64_t end = INT64_MIN;

    *n_events += m->chunks;
    for (x = 0; x < m->n; x++) {
        int64_t fn;
        *n_events += 1;     /* RING_OPEN (patent), BWD_DONE (none) */
        fn = hs_fast_dev_end(m->patent, m->rd[x], m->t3[x], &m->comp[x],
                             &m->f[x], k >= 1 || steps == 1, &m->sum[x],
                             n_events);
        if (fn > end)
            end = fn;
    }
    return end;
}

/* Allocates m's arrays and schedule for s; HS_ERR_NOMEM. */
static hs_err_t hs__tf_new(const hs_scenario_t *s, hs__tf_t *m,
                           hs_error_t *err)
{
    size_t n = s->n_devices;
    hs_err_t rc;

    m->n = n;
    if ((rc = hs_coll_tree_sched_new(s, &m->sched, err)) != HS_OK)
        return rc;
    m->chunks = hs_coll_tree_sched_chunks(m->sched);
    m->buf = calloc(5 * n, sizeof *m->buf);
    m->base = calloc(2 * n, sizeof *m->base);
    if (m->buf == NULL || m->base == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory for the "
                             "fast replay of %zu devices", n);
    m->o = m->buf;
    m->t3 = m->o + n;
    m->f = m->t3 + n;
    m->sum = m->f + n;
    m->rd = m->sum + n;
    m->comp = m->base + n;
    return HS_OK;
}

static void hs__tf_free(hs__tf_t *m)
{
    hs_coll_tree_sched_free(m->sched);
    free(m->buf);
    free(m->base);
}

/* The run's result fields besides the figures. */
static void hs__tf_fill(const hs_scenario_t *s, const hs_replay_opts_t *o,
                        const hs__tf_t *m, uint32_t steps, uint64_t n_events,
                        int64_t end_ns, hs_replay_result_t *res)
{
    hs_fast_describe(o, hs_coll_tree.name, steps, n_events, end_ns, res);
    res->state_bytes = hs_coll_tree_sched_state_bytes(s) +
                       5 * m->n * sizeof(int64_t) +
                       2 * m->n * sizeof(hs_fast_comp_t) +
                       steps * sizeof(int64_t);
}

/* The steps: the all-reduce of each from its openings; the latest end of
   step k into cl_end[k]. */
static hs_err_t hs__tf_steps(const hs_scenario_t *s,
                             const hs_replay_opts_t *o, hs__tf_t *m,
                             int64_t *cl_end, uint64_t *n_events,
                             hs_error_t *err)
{
    uint32_t k;
    size_t left;
    hs_err_t rc;

    for (k = 0; k < o->steps; k++) {
        if ((rc = hs_fast_stopped(o, err)) != HS_OK)
            return rc;
        hs__plan_step(s, o, m, k);
        if ((left = hs_coll_tree_sched_run(m->sched, m->o, m->rd)) > 0)
            return hs_error_setf(err, HS_ERR_RANGE,
                                 "fast replay: %zu devices never end the "
                                 "tree all-reduce of step %u",
                                 left, k);
        cl_end[k] = hs__end_step(m, k, o->steps, n_events);
    }
    return HS_OK;
}

hs_err_t hs_treefast_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         hs_replay_result_t **out, hs_error_t *err)
{
    hs__tf_t m;
    hs_replay_result_t *res = NULL;
    hs_prediction_t *pred = NULL;
    int64_t *cl_end = NULL, cl_start0;
    uint64_t n_events;
    char why[200];
    hs_err_t rc;
    size_t n = s->n_devices;
    uint32_t steps = o->steps;

    *out = NULL;
    memset(&m, 0, sizeof m);
    if (!hs_treefast_supports(s, o, hs_replay_collective(s, o), why,
                              sizeof why))
        return hs_error_setf(err, HS_ERR_RANGE, "fast replay: %s", why);
    rc = hs_closed_predict_with(s, &hs_coll_tree, o->overlap, &pred, err);
    if (rc != HS_OK)
        return rc;
    m.patent = o->overlap == HS_OVERLAP_PATENT;
    if ((rc = hs__tf_new(s, &m, err)) != HS_OK)
        goto fail;
    cl_end = malloc(steps * sizeof *cl_end);
    res = calloc(1, sizeof *res);
    if (cl_end == NULL || res == NULL ||
        hs_replay_result_arrays(res, n, s->n_types, steps) != 0)
        goto nomem;
    cl_start0 = hs_fast_first_starts(s, o, m.base, m.f);
    n_events = n; /* the initial DL_DONEs */
    if ((rc = hs__tf_steps(s, o, &m, cl_end, &n_events, err)) != HS_OK)
        goto fail;
    hs_fast_dev_means(res, m.sum, n, steps);
    rc = hs_replay_figures(s, steps, cl_end, cl_start0, pred, res, err);
    if (rc != HS_OK)
        goto fail;
    hs__tf_fill(s, o, &m, steps, n_events, cl_end[steps - 1], res);
    hs__tf_free(&m);
    free(cl_end);
    hs_prediction_free(pred);
    *out = res;
    return HS_OK;
nomem:
    rc = hs_fast_nomem(err, n);
fail:
    hs__tf_free(&m);
    free(cl_end);
    hs_prediction_free(pred);
    hs_replay_result_free(res);
    return rc;
}
