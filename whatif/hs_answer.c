/*
 * hs_answer.c -- every predictor of a scenario, and the recommended one
 * (hs_answer.h).
 *
 * The closed forms cost O(N) and always run.  The replay costs about
 * steps x (the chunks of one all-reduce + a few per device) events
 * (hs_scenario_replay_estimate, for the collective that runs: the ring's
 * 2(N-1) rounds per device, the tree's 4P(N-1) chunks in all, ...): an
 * exact max-plus fast path (hs_replay_fast_supports) does some 1e9 of
 * them a second on the ring, 1e8 on the hierarchical all-reduce and 1e7 on
 * the tree (its per-step schedule), the event engine some 5e7
 * (hs_limits.h).  Under HS_ANSWER_REPLAY_AUTO the replay runs when its
 * estimate fits the answer budget of the path that would run it, so that
 * `predict` of a few thousand devices still answers in about a second with
 * the replay's figure, and a million-device scenario answers at once with
 * the extended form (and says that `simulate` can replay it).
 *
 * Which predictor is recommended follows the accuracy record
 * (docs/accuracy.md): on the blind draws the replay missed by 7.4%, the
 * extended form by 23.1% and the source's formula by 33.8%.  So the
 * replay whenever it ran, else the extended form; the source's formula is
 * never the recommendation, only reported beside it.
 */
#include "hs_answer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_limits.h"
#include "hs_collective.h"

const char *hs_predictor_name(hs_predictor_t p)
{
    switch (p) {
    case HS_PREDICTOR_SOURCE:
        return "source";
    case HS_PREDICTOR_EXTENDED:
        return "extended";
    case HS_PREDICTOR_REPLAY:
        return "replay";
    }
    return "unknown";
}

/* The events a replay runs in about a second: on the event engine, or on
   the fast path of collective run (hs_limits.h). */
static double hs__answer_budget(int fast, const hs_collective_t *run)
{
    if (!fast)
        return HS_LIMIT_ANSWER_ENGINE_EVENTS;
    if (run == &hs_coll_tree)
        return HS_LIMIT_ANSWER_TREE_FAST_EVENTS;
    if (run == &hs_coll_hier)
        return HS_LIMIT_ANSWER_HIER_FAST_EVENTS;
    return HS_LIMIT_ANSWER_FAST_EVENTS;
}

int hs_answer_replay_fits(const hs_scenario_t *s, const hs_replay_opts_t *o,
                          char *why, size_t why_len)
{
    hs_replay_opts_t own;
    const hs_collective_t *coll = NULL;
    double events, bytes, budget;
    int fast;

    if (o == NULL) {
        hs_replay_opts_from_scenario(s, &own);
        o = &own;
    }
    if (hs_collective_find(o->collective, &coll, NULL) != HS_OK)
        coll = NULL;    /* the replay says what is wrong with it */
    hs_scenario_replay_estimate(s, o->steps, o->overlap, coll, &events,
                                &bytes);
    fast = hs_replay_fast_supports(s, o);
    budget = hs__answer_budget(fast, hs_replay_collective(s, o));
    if (events <= budget && bytes <= (double)HS_LIMIT_STATE_BYTES)
        return 1;
    if (why != NULL && why_len > 0)
        snprintf(why, why_len,
                 "a replay of %u steps of %zu devices takes about %.3g "
                 "%s, past the answer budget of %.3g (about a second); "
                 "`hetsim simulate` replays it",
                 o->steps, s->n_devices, events,
                 !fast ? "events on the event engine"
                 : hs_replay_collective(s, o) == &hs_coll_ring
                     ? "ring rounds on the max-plus fast path"
                     : "events on the max-plus fast path",
                 budget);
    return 0;
}

/* Fills est[p] with step and the epoch and total it makes (-1 unknown). */
static hs_err_t hs__estimate(const hs_scenario_t *s, uint64_t iters,
                             int64_t step_ns, hs_estimate_t *est,
                             hs_error_t *err)
{
    est->step_ns = step_ns;
    est->epoch_ns = -1;
    est->total_ns = -1;
    if (iters == 0)
        return HS_OK;
    return hs_scenario_epoch_total(s, iters, step_ns, &est->epoch_ns,
                                   &est->total_ns, err);
}

/* The closed forms of s, the extended one following the overlap the
   replay runs (o's, else the scenario's). */
static hs_err_t hs__closed(const hs_scenario_t *s, const hs_replay_opts_t *o,
                           hs_prediction_t **out, hs_error_t *err)
{
    const hs_collective_t *coll;
    hs_err_t rc = hs_collective_find(s->collective, &coll, err);

    if (rc != HS_OK)
        return rc;
    return hs_closed_predict_with(s, coll,
                                  o != NULL ? o->overlap : s->overlap, out,
                                  err);
}

/* Runs the replay into a->replay when mode asks for it (AUTO: when it
   fits the answer budget), and says in a->why which predictor a
   recommends (a->recommended, the extended form unless the replay ran).
   A replay that fails is an error (in err, from the replay's) when it
   was asked for (ALWAYS) or ran out of memory; otherwise the extended
   form answers and a->why says why.  HS_OK, or the error. */
static hs_err_t hs__replay(hs_answer_t *a, const hs_scenario_t *s,
                           const hs_replay_opts_t *o,
                           hs_answer_replay_t mode,
                           const hs_trace_sink_t *sinks, size_t n_sinks,
                           hs_error_t *err)
{
    hs_error_t rerr;
    hs_estimate_t *r = &a->est[HS_PREDICTOR_REPLAY];
    hs_err_t rc;
    int run;

    a->recommended = HS_PREDICTOR_EXTENDED;
    switch (mode) {
    case HS_ANSWER_REPLAY_NEVER:
        run = 0;
        snprintf(a->why, sizeof a->why, "the replay was not asked for");
        break;
    case HS_ANSWER_REPLAY_ALWAYS:
        run = 1;
        break;
    default:
        run = hs_answer_replay_fits(s, o, a->why, sizeof a->why);
        break;
    }
    if (!run)
        return HS_OK;
    hs_error_clear(&rerr);
    rc = hs_replay_run(s, o, sinks, n_sinks, &a->replay, &rerr);
    if (rc != HS_OK) {
        if (mode == HS_ANSWER_REPLAY_ALWAYS || rc == HS_ERR_NOMEM) {
            if (err != NULL)
                *err = rerr;
            return rc;
        }
        /* the replay cannot run this scenario: the extended form
           answers, and says why */
        snprintf(a->why, sizeof a->why,
                 "the replay cannot run this scenario: %.250s", rerr.msg);
        return HS_OK;
    }
    r->step_ns = a->replay->step_ns;
    if (a->iters_per_epoch > 0) {
        r->epoch_ns = a->replay->epoch_ns;
        r->total_ns = a->replay->total_ns;
    }
    a->recommended = HS_PREDICTOR_REPLAY;
    snprintf(a->why, sizeof a->why,
             "the replay (%u steps, %s) sees what the closed forms "
             "cannot, and was the most accurate predictor on the "
             "blind draws (docs/accuracy.md)",
             a->replay->steps,
             a->replay->fast_path ? "max-plus fast path" : "event engine");
    return HS_OK;
}

/* a->notes: the remarks of the closed forms and of the replay (if it
   ran), in that order; a copy of the pointers, owned by those results.
   HS_OK, or HS_ERR_NOMEM in err. */
static hs_err_t hs__notes(hs_answer_t *a, hs_error_t *err)
{
    size_t nc = a->closed->n_warnings;
    size_t nr = a->replay != NULL ? a->replay->n_notes : 0;

    if (nc + nr == 0)
        return HS_OK;
    a->notes = malloc((nc + nr) * sizeof *a->notes);
    if (a->notes == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    if (nc > 0)
        memcpy(a->notes, a->closed->warnings, nc * sizeof *a->notes);
    if (nr > 0)
        memcpy(a->notes + nc, a->replay->notes, nr * sizeof *a->notes);
    a->n_notes = nc + nr;
    return HS_OK;
}

hs_err_t hs_answer_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                       hs_answer_replay_t mode, const hs_trace_sink_t *sinks,
                       size_t n_sinks, hs_answer_t **out, hs_error_t *err)
{
    hs_answer_t *a;
    hs_err_t rc;

    *out = NULL;
    if (n_sinks > 0 && mode != HS_ANSWER_REPLAY_ALWAYS)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "a traced replay must be asked for "
                             "(HS_ANSWER_REPLAY_ALWAYS)");
    a = calloc(1, sizeof *a);
    if (a == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    a->epochs = s->epochs;
    a->est[HS_PREDICTOR_REPLAY].step_ns = -1;
    a->est[HS_PREDICTOR_REPLAY].epoch_ns = -1;
    a->est[HS_PREDICTOR_REPLAY].total_ns = -1;
    rc = hs__closed(s, o, &a->closed, err);
    if (rc != HS_OK)
        goto fail;
    a->iters_per_epoch = a->closed->iters_per_epoch;
    rc = hs__estimate(s, a->iters_per_epoch, a->closed->step_ns,
                      &a->est[HS_PREDICTOR_SOURCE], err);
    if (rc == HS_OK)
        rc = hs__estimate(s, a->iters_per_epoch, a->closed->step_ext_ns,
                          &a->est[HS_PREDICTOR_EXTENDED], err);
    if (rc != HS_OK)
        goto fail;
    if ((rc = hs__replay(a, s, o, mode, sinks, n_sinks, err)) != HS_OK ||
        (rc = hs__notes(a, err)) != HS_OK)
        goto fail;
    *out = a;
    return HS_OK;
fail:
    hs_answer_free(a);
    return rc;
}

void hs_answer_free(hs_answer_t *a)
{
    if (a == NULL)
        return;
    free(a->notes);
    hs_prediction_free(a->closed);
    hs_replay_result_free(a->replay);
    free(a);
}
