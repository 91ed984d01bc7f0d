/*
 * hs_advise.h -- answers, not only predictions (issue 13): which ring
 * order, which batch per type, which mix of devices.
 *
 * Each question is searched with the closed form (fast enough to try
 * thousands of candidates), then the best candidates are confirmed with
 * the replay, which sees what the closed form cannot (a late device
 * holding its neighbours, a slow link costing every round).  The
 * searches themselves are model/hs_ringopt.h, model/hs_batchopt.h and
 * model/hs_mixopt.h; this module maps a scenario onto them and back, and
 * writes the recommendation as a scenario file (model/hs_rewrite.h).
 *
 * The scaling model of the batch advice, per type (model/hs_profile.h,
 * hs_profile_means_at_batch): a type profiled at one batch b0 has its data
 * loading, forward and backward times grow linearly with its batch
 * (t(b) = t(b0) b / b0), its optimizer step unchanged; a type whose
 * profile has batch_points (hetsim profile --batches) has each phase
 * interpolated between the measured batches (extrapolated beyond them,
 * said in the text).  The all-reduce payload does not change.  The result
 * says per type which model it used in `scaling`.
 */
#ifndef HS_ADVISE_H
#define HS_ADVISE_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_mixopt.h"
#include "hs_progress.h"
#include "hs_replay.h"
#include "hs_scenario.h"

/* ---- ring order ------------------------------------------------------ */

#define HS_ADVISE_RING_CANDS 4

typedef struct hs_advise_ring_cand_s {
    const char *label;      /* "given", "grouped", "interleave", "searched" */
    uint32_t *order;        /* n device indices, ring order */
    int64_t closed_ns;      /* the closed form's step in that order */
    int64_t closed_sum_ns;  /* sum of the per-device T(i) */
    int64_t replay_ns;      /* the replay's steady step; -1: not run */
    int same_as;            /* index of an identical earlier candidate, or
                               -1 */
} hs_advise_ring_cand_t;

typedef struct hs_advise_ring_s {
    uint32_t n;
    size_t n_cands;
    hs_advise_ring_cand_t cands[HS_ADVISE_RING_CANDS];
    size_t chosen;          /* the recommendation: least replayed step
                               (closed form when not replayed), ties to the
                               earlier candidate, so the given order stays
                               unless another is strictly better */
    int64_t lower_bound_ns; /* no order's closed-form step is below */
    int exact;              /* the search was exact */
    uint64_t moves;         /* heuristic's improving moves */
    double search_s;        /* CPU seconds of the search */
} hs_advise_ring_t;

/*
 * Searches the ring order of s (resolved, with profiles) as described in
 * hs_ringopt.h, starting from its given order, the grouped and the
 * interleaved orders.  With replay != 0 every distinct candidate is
 * replayed with o (NULL: the scenario's options, stragglers included).
 * exact_max as in hs_ringopt_search.  Stores a new result in *out (free
 * with hs_advise_ring_free).  Fails with what the search, the scenario or
 * the replay return (e.g. HS_ERR_NETWORK naming the two devices of a pair
 * with no bandwidth).
 */
hs_err_t hs_advise_ring(const hs_scenario_t *s, const hs_replay_opts_t *o,
                        int replay, uint32_t exact_max,
                        hs_advise_ring_t **out, hs_error_t *err);

void hs_advise_ring_free(hs_advise_ring_t *r);

/* ---- batch per type -------------------------------------------------- */

typedef struct hs_advise_batch_s {
    size_t n_types;
    uint64_t *batch_before, *batch_after;   /* per type */
    uint64_t *shard_after;  /* per type: the explicit shard that follows
                               the new batch, in samples (0: the scenario
                               derives it; a shard given in bytes is
                               written in bytes) */
    uint64_t global_batch_asked, global_batch;
    int64_t closed_before_ns, closed_after_ns;
    int64_t epoch_before_ns, epoch_after_ns;   /* closed form; 0 unknown */
    int64_t replay_before_ns, replay_after_ns; /* -1: not run */
    int64_t replay_epoch_before_ns, replay_epoch_after_ns;
    char *scaling;          /* the scaling model used per type, in words
                               (owned) */
    hs_profile_t *profile_after;    /* per type: its profile scaled to
                               its new batch (owned) */
} hs_advise_batch_t;

/*
 * Recommends per-type batches for s that keep the global batch
 * (global_batch; 0 = the scenario's own sum of count x batch) within each
 * type's largest batch (max_batch[t]; NULL or 0 = no limit, taken as 4x
 * the global batch), minimising the largest per-device work per step (the
 * closed form's extended T_ext(i): forward, the whole backward or the
 * all-reduce, the optimizer), so that the compute evens out.  With replay != 0
 * the scenario before and after is replayed with o.  Stores a new result
 * in *out (free with hs_advise_batch_free).  Fails with HS_ERR_RANGE when
 * the global batch cannot be split (fewer samples than devices, more than
 * the limits allow), or what the closed form or replay return.
 */
hs_err_t hs_advise_batch(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         uint64_t global_batch, const uint64_t *max_batch,
                         int replay, hs_advise_batch_t **out,
                         hs_error_t *err);

void hs_advise_batch_free(hs_advise_batch_t *r);

/* ---- device mix ------------------------------------------------------ */

typedef struct hs_advise_mix_s {
    hs_mixopt_result_t *search;     /* the closed form's best mixes */
    size_t chosen;          /* index into search->top: the least replayed
                               total (or cost) within the constraint, the
                               closed form's best when not replayed */
    int64_t replay_total_ns[HS_MIXOPT_TOP];  /* -1: not run */
    double replay_cost[HS_MIXOPT_TOP];
    int replay_ok[HS_MIXOPT_TOP];   /* meets the constraint replayed */
    int replay_met;         /* replayed: one of them meets it (else the
                               closed form's best is reported, and the
                               caller says the replay disagrees) */
    double search_s;
    int shards_derived;     /* the scenario gave shards: every mix
                               shares the whole training set instead
                               (shards follow the batches) */
} hs_advise_mix_t;

/*
 * Searches the counts of s's device types (types[t] for s->types[t]: how
 * many are available, at least how many, at what price per device-hour)
 * for the goal (hs_mixopt.h), each mix's training time being the closed
 * form's extended step (the whole backward and the optimizer count) times
 * the steps of its epochs.  The scenario must generate its devices from
 * the counts (no devices: list).  With replay != 0 the best few are
 * replayed with o and the recommendation is the best replayed one that
 * still meets the constraint.  Stores a new result in *out (free with
 * hs_advise_mix_free).
 */
hs_err_t hs_advise_mix(const hs_scenario_t *s, const hs_replay_opts_t *o,
                       const hs_mixopt_type_t *types, hs_mix_goal_t goal,
                       double budget, int64_t deadline_ns, int replay,
                       hs_advise_mix_t **out, hs_error_t *err);

void hs_advise_mix_free(hs_advise_mix_t *r);

/* ---- the recommendation as a scenario file ---------------------------- */

/*
 * Writes scenario s with the recommendation applied (ring: the chosen
 * order as an explicit list; batch: each type's batch, its shard where
 * it had one, and its profile scaled to that batch, written beside path
 * as STEM.TYPE.profile.yaml (STEM: path without ".yaml"); mix: each type's count) to path,
 * atomically, with a comment header naming what was changed.  Exactly one of ring, batch,
 * mix is not NULL.
 */
hs_err_t hs_advise_write(const hs_scenario_t *s, const hs_advise_ring_t *ring,
                         const hs_advise_batch_t *batch,
                         const hs_advise_mix_t *mix, const char *path,
                         hs_error_t *err);

/* ---- running a question: progress, and several processes -------------
 *
 * A large search reports its progress through ex->progress (the ring
 * search's passes, the mixes visited, the replays confirming), and may be
 * split over ex->size cooperating processes (`mpirun -n K hetsim advise`),
 * each calling the same function with the same arguments and its own
 * ex->rank.  What is split:
 *   mix    the mixes (each process evaluates the mixes m = rank mod size
 *          with the closed form, hs_mixopt_search_part; the records are
 *          gathered and the whole search is walked again from them,
 *          hs_mixopt_search_memo), and the replays of the best mixes;
 *   ring   the replays of the distinct candidates (the search itself is
 *          one deterministic sequence: greedy start, then local moves
 *          from the best start, or the exact dynamic programme; every
 *          process runs it);
 *   batch  the two replays (before and after).
 * Replay k runs on process k mod size.  ex->allgather hands every
 * process what every process contributed, so all of them end with the
 * same result -- the one a single process gets, byte for byte -- and the
 * caller lets rank 0 print and write it.
 */

/* Gathers len bytes (mine) from every process onto every process:
   *all (malloc'd, the caller frees it) holds the parts in rank order,
   part r's length in lens[r] (lens: ex->size entries). */
typedef hs_err_t (*hs_advise_allgather_fn)(void *ctx, const void *mine,
                                           size_t len, void **all,
                                           size_t *lens, hs_error_t *err);

typedef struct hs_advise_exec_s {
    hs_progress_fn progress;    /* may be NULL */
    void *progress_ctx;
    int rank, size;             /* size <= 1: one process */
    hs_advise_allgather_fn allgather;   /* needed when size > 1 */
    void *gather_ctx;
} hs_advise_exec_t;

/* As hs_advise_ring, run as ex says (NULL: one silent process). */
hs_err_t hs_advise_ring_x(const hs_scenario_t *s, const hs_replay_opts_t *o,
                          int replay, uint32_t exact_max,
                          const hs_advise_exec_t *ex, hs_advise_ring_t **out,
                          hs_error_t *err);

/* As hs_advise_batch, run as ex says (NULL: one silent process). */
hs_err_t hs_advise_batch_x(const hs_scenario_t *s, const hs_replay_opts_t *o,
                           uint64_t global_batch, const uint64_t *max_batch,
                           int replay, const hs_advise_exec_t *ex,
                           hs_advise_batch_t **out, hs_error_t *err);

/* As hs_advise_mix, run as ex says (NULL: one silent process). */
hs_err_t hs_advise_mix_x(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         const hs_mixopt_type_t *types, hs_mix_goal_t goal,
                         double budget, int64_t deadline_ns, int replay,
                         const hs_advise_exec_t *ex, hs_advise_mix_t **out,
                         hs_error_t *err);

#endif
