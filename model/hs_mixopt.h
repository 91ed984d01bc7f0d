/*
 * hs_mixopt.h -- the mix of devices that trains soonest within a budget, or
 * most cheaply within a deadline (hetsim advise mix).
 *
 * Candidates: T device types, type t available in up to avail_t devices
 * (at least min_t), at price_t per device-hour.  A mix is a vector of
 * counts; its training time comes from a callback (the closed form's total
 * on the scenario with those counts: hs_advise.c), its cost is
 * hours x sum_t c_t price_t.  Two objectives:
 *   HS_MIX_FASTEST   least time with cost <= budget;
 *   HS_MIX_CHEAPEST  least cost with time <= deadline.
 * Ties go to the other figure (costs within a relative 1e-9 are equal),
 * then to the mix met first (counts in odometer order, the first type
 * varying slowest).
 *
 * The search visits every mix but evaluates only those a lower bound
 * cannot rule out: the bound callback (optional) gives a time no mix with
 * those counts can beat (e.g. every present type's compute per step times
 * the steps an epoch needs at that global batch); a mix is skipped when
 * its bound already loses to the best mix found or breaks the constraint.
 * So it returns what a brute force over every mix returns (the tests check
 * that), evaluating far fewer.  The K best feasible mixes are kept so that
 * the caller can confirm them with the replay.
 */
#ifndef HS_MIXOPT_H
#define HS_MIXOPT_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_progress.h"

#define HS_MIXOPT_TOP 8     /* best mixes kept, at most */

typedef enum hs_mix_goal_e {
    HS_MIX_FASTEST = 0,     /* least time within the budget */
    HS_MIX_CHEAPEST = 1     /* least cost within the deadline */
} hs_mix_goal_t;

typedef struct hs_mixopt_type_s {
    uint64_t min, avail;    /* counts allowed: min..avail */
    double price_per_h;     /* per device-hour, >= 0 */
} hs_mixopt_type_t;

/* The training time of a mix into *total_ns.  HS_ERR_RANGE marks a mix
   that makes no cluster (it is skipped and counted); any other error
   stops the search. */
typedef hs_err_t (*hs_mixopt_eval_fn)(void *ctx, const uint64_t *counts,
                                      int64_t *total_ns, hs_error_t *err);

/* A time no mix with these counts can beat (0 when unknown). */
typedef int64_t (*hs_mixopt_bound_fn)(void *ctx, const uint64_t *counts);

typedef struct hs_mixopt_entry_s {
    uint64_t *counts;       /* n_types counts */
    int64_t total_ns;
    double cost;
} hs_mixopt_entry_t;

typedef struct hs_mixopt_result_s {
    size_t n_types;
    size_t n_top;           /* best feasible mixes, best first */
    hs_mixopt_entry_t top[HS_MIXOPT_TOP];
    uint64_t visited;       /* mixes in the space */
    uint64_t evaluated;     /* mixes the callback evaluated */
    uint64_t invalid;       /* mixes the callback refused (HS_ERR_RANGE) */
} hs_mixopt_result_t;

/*
 * Searches every mix of the n_types candidates for the goal, with the
 * budget (HS_MIX_FASTEST, in price units) or the deadline (HS_MIX_CHEAPEST,
 * ns).  keep (1..HS_MIXOPT_TOP) best mixes are kept.  bound may be NULL.
 * On success stores a new result in *out (free with
 * hs_mixopt_result_free).  Fails with HS_ERR_RANGE when a type's min
 * exceeds its avail, the space holds more than 1e9 mixes, or no mix meets
 * the constraint (the message names the best mix there is and what it
 * misses by); HS_ERR_NOMEM; or the callback's error.
 */
hs_err_t hs_mixopt_search(size_t n_types, const hs_mixopt_type_t *types,
                          hs_mix_goal_t goal, double budget,
                          int64_t deadline_ns, size_t keep,
                          hs_mixopt_eval_fn eval, hs_mixopt_bound_fn bound,
                          void *ctx, hs_mixopt_result_t **out,
                          hs_error_t *err);

/* 1 when a mix taking ta at cost ca beats one taking tb at cost cb for
   the goal: its figure first, then the other (costs within a relative
   1e-9 count as equal). */
int hs_mixopt_beats(hs_mix_goal_t goal, int64_t ta, double ca, int64_t tb,
                    double cb);

/* The cost of a mix that takes total_ns: hours x sum c_t price_t. */
double hs_mixopt_cost(size_t n_types, const hs_mixopt_type_t *types,
                      const uint64_t *counts, int64_t total_ns);

/* Releases r and what it owns.  r may be NULL. */
void hs_mixopt_result_free(hs_mixopt_result_t *r);

/* ---- the search split over processes (`mpirun -n K hetsim advise mix`) --
 *
 * Mix number m is the mix's place in odometer order (0 = every type at
 * its min).  Part p of K evaluates the mixes m = p (mod K) with the same
 * pruning as the whole search, but against the best mixes of its own
 * share, which are never better than those of the whole space: so every
 * mix the whole search evaluates, some part evaluated too (the pruning is
 * exact, hs_mixopt.h).  Each part records what it evaluated in a memo;
 * the memos of all parts, joined and sorted, let hs_mixopt_search_memo
 * walk the whole space as hs_mixopt_search does, taking the totals from
 * the memo (and calling eval for anything missing), so the result -- top
 * mixes, visited, evaluated, invalid, error messages -- is the serial
 * one's, whoever evaluated what.
 */

typedef struct hs_mixopt_memo_rec_s {
    uint64_t index;         /* mix number in odometer order */
    int64_t total_ns;       /* eval's total (rc HS_OK) */
    int32_t rc;             /* HS_OK or HS_ERR_RANGE (no cluster) */
    int32_t pad;            /* 0 */
} hs_mixopt_memo_rec_t;

typedef struct hs_mixopt_memo_s {
    size_t n, cap;
    hs_mixopt_memo_rec_t *recs;     /* sorted by index once merged */
} hs_mixopt_memo_t;

/*
 * Evaluates part `part` of n_parts of the search (arguments as in
 * hs_mixopt_search), appending a record per evaluated mix to memo (the
 * caller's, zero-initialised or holding earlier records).  An eval error
 * other than HS_ERR_RANGE ends the part early without failing (the
 * merged search meets it again and reports it).  progress (may be NULL)
 * is told "mixes" done of this part's share.  Fails with the argument
 * errors of hs_mixopt_search or HS_ERR_NOMEM.
 */
hs_err_t hs_mixopt_search_part(size_t n_types, const hs_mixopt_type_t *types,
                               hs_mix_goal_t goal, double budget,
                               int64_t deadline_ns, size_t keep,
                               hs_mixopt_eval_fn eval,
                               hs_mixopt_bound_fn bound, void *ctx,
                               size_t part, size_t n_parts,
                               hs_progress_fn progress, void *pctx,
                               hs_mixopt_memo_t *memo, hs_error_t *err);

/* Sorts memo's records by mix number (after joining the parts'). */
void hs_mixopt_memo_sort(hs_mixopt_memo_t *memo);

/* Releases memo's records (memo itself is the caller's). */
void hs_mixopt_memo_clear(hs_mixopt_memo_t *memo);

/*
 * hs_mixopt_search with the totals of a sorted memo (NULL: none) used in
 * place of eval where it has them, and progress (may be NULL) told
 * "mixes" visited of the space.  Same result and errors as
 * hs_mixopt_search.
 */
hs_err_t hs_mixopt_search_memo(size_t n_types, const hs_mixopt_type_t *types,
                               hs_mix_goal_t goal, double budget,
                               int64_t deadline_ns, size_t keep,
                               hs_mixopt_eval_fn eval,
                               hs_mixopt_bound_fn bound, void *ctx,
                               const hs_mixopt_memo_t *memo,
                               hs_progress_fn progress, void *pctx,
                               hs_mixopt_result_t **out, hs_error_t *err);

#endif
