/*
 * hs_answer.h -- one answer per scenario: every predictor hetsim has, and
 * the one it recommends.
 *
 * hetsim has three predictors of a step, weakest first:
 *   source    the source's closed form, max_i T(i) (docs/method.md, S400):
 *             forward, the first backward op and the all-reduce;
 *   extended  the extended closed form, max_i T_ext(i): also the rest of
 *             the backward and the optimizer where measured;
 *   replay    the discrete-event replay's steady step (hs_replay.h), which
 *             sees what a per-device formula cannot: neighbours that wait
 *             for each other, buckets, a hop wait, stragglers.
 * Each gives a step, an epoch (iterations x step) and a total (epochs x
 * epoch).  The recommended predictor is the replay whenever the scenario
 * can be replayed within the answer budget (about a second: the max-plus
 * fast path up to HS_LIMIT_ANSWER_FAST_EVENTS, the event engine up to
 * HS_LIMIT_ANSWER_ENGINE_EVENTS), else the extended closed form, and the
 * answer says why in a sentence.  Every command that prints a step, an
 * epoch or a total (predict, simulate, validate, sweep, advise) takes its
 * figures from here, so the same scenario gives the same recommended
 * figures everywhere.
 */
#ifndef HS_ANSWER_H
#define HS_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#include "hs_closed.h"
#include "hs_error.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_trace.h"

/* The predictors, weakest first; the values index hs_answer_t.est. */
typedef enum hs_predictor_e {
    HS_PREDICTOR_SOURCE = 0,
    HS_PREDICTOR_EXTENDED = 1,
    HS_PREDICTOR_REPLAY = 2
} hs_predictor_t;

#define HS_PREDICTORS 3

/* "source", "extended", "replay": the name every output uses. */
const char *hs_predictor_name(hs_predictor_t p);

/* When hs_answer_run replays. */
typedef enum hs_answer_replay_e {
    HS_ANSWER_REPLAY_AUTO = 0,   /* within the answer budget (above) */
    HS_ANSWER_REPLAY_NEVER = 1,  /* closed forms only (the caller says
                                    why, e.g. --closed-only) */
    HS_ANSWER_REPLAY_ALWAYS = 2  /* replay whatever it costs, within the
                                    replay's own budgets unless o->force
                                    (simulate, validate) */
} hs_answer_replay_t;

/* One predictor's figures.  step_ns is -1 when the predictor did not
   run; epoch_ns and total_ns are -1 when unknown (no dataset or shards,
   or the predictor did not run). */
typedef struct hs_estimate_s {
    int64_t step_ns;
    int64_t epoch_ns;
    int64_t total_ns;
} hs_estimate_t;

typedef struct hs_answer_s {
    hs_prediction_t *closed;     /* the closed forms' details (owned) */
    hs_replay_result_t *replay;  /* the replay's details (owned); NULL
                                    when it did not run */
    uint64_t iters_per_epoch;    /* I; 0 when unknown */
    uint32_t epochs;
    hs_estimate_t est[HS_PREDICTORS];   /* by hs_predictor_t */
    hs_predictor_t recommended;  /* REPLAY when it ran, else EXTENDED */
    char why[320];               /* why that one, a sentence */
    size_t n_notes;              /* the closed form's warnings, then the
                                    replay's notes (the strings are theirs;
                                    the array is the answer's) */
    char **notes;
} hs_answer_t;

/*
 * Answers scenario s (resolved; only read): the closed forms always, the
 * replay with options o (NULL: the scenario's simulate: section) as mode
 * says, the n_sinks sinks receiving its trace (sinks may be NULL when
 * n_sinks is 0; with sinks the replay runs under HS_ANSWER_REPLAY_ALWAYS
 * only).  Under AUTO a replay that cannot run this scenario (an error
 * other than memory) is not an error: the answer recommends the extended
 * form and says why.  Stores a new answer in *out (free with
 * hs_answer_free).  Fails with what hs_closed_predict returns, HS_ERR_NOMEM,
 * or under ALWAYS what hs_replay_run returns.
 */
hs_err_t hs_answer_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                       hs_answer_replay_t mode, const hs_trace_sink_t *sinks,
                       size_t n_sinks, hs_answer_t **out, hs_error_t *err);

/*
 * 1 when a replay of s under o (NULL: the scenario's options) fits the
 * answer budget, else 0 with the reason in why (a sentence; why may be
 * NULL).  Pure; what HS_ANSWER_REPLAY_AUTO decides with.
 */
int hs_answer_replay_fits(const hs_scenario_t *s, const hs_replay_opts_t *o,
                          char *why, size_t why_len);

/* The recommended predictor's figures. */
static inline const hs_estimate_t *hs_answer_best(const hs_answer_t *a)
{
    return &a->est[a->recommended];
}

/* Releases a and what it owns.  a may be NULL. */
void hs_answer_free(hs_answer_t *a);

#endif
