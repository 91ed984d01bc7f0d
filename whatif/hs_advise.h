/*
 * hs_advise.h -- answers, not only predictions: which ring order, which
 * batch per type, which mix of devices.
 *
 * Each question is searched with a closed form (fast enough to try
 * thousands of candidates), then every candidate it proposes -- and the
 * configuration given -- is judged by the recommended predictor
 * (whatif/hs_answer.h: the replay when it fits the answer budget, else the
 * extended closed form, with the reason).  The answer is the candidate the
 * judge finds fastest (mix: best for the goal within the constraint), and
 * only when the judge says it beats the given configuration; else the
 * answer is "no better configuration found" (HS_ADVISE_NONE) and the given
 * configuration stays.  So advice never makes training slower (or
 * costlier) by the figure hetsim reports.  The searches themselves are
 * model/hs_ringopt.h, model/hs_batchopt.h and model/hs_mixopt.h; this
 * module maps a scenario onto them and back, proposes the fallback
 * candidates, and writes the recommendation as a scenario file
 * (model/hs_rewrite.h).
 *
 * Two configurations are compared on the predictor that judges both (the
 * replay when both were replayed, else the extended form, which every
 * configuration has), by its epoch when both epochs are known (mix: its
 * total), else by its step.
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

#include "hs_answer.h"
#include "hs_error.h"
#include "hs_mixopt.h"
#include "hs_progress.h"
#include "hs_replay.h"
#include "hs_scenario.h"

/* ---- the judge ------------------------------------------------------- */

/* What every predictor says of one configuration, and which one judges
   it: hs_answer_t's figures, without its details. */
typedef struct hs_advise_fig_s {
    hs_estimate_t est[HS_PREDICTORS];   /* by hs_predictor_t; -1: unknown
                                           or not run */
    hs_predictor_t recommended;         /* the judge (REPLAY when it ran,
                                           else EXTENDED) */
    char why[320];                      /* why that one, a sentence */
} hs_advise_fig_t;

/* How a question ended. */
typedef enum hs_advise_outcome_e {
    HS_ADVISE_IMPROVED = 0, /* the search's own candidate is the answer */
    HS_ADVISE_FALLBACK = 1, /* another candidate is (the search's own was
                               slower than the given one, or than it) */
    HS_ADVISE_NONE = 2      /* no candidate beats the given configuration:
                               no better configuration found */
} hs_advise_outcome_t;

/* "improved", "fallback", "none". */
const char *hs_advise_outcome_name(hs_advise_outcome_t o);

/*
 * The figures a and b are compared on, into *va and *vb: of the
 * predictor that judges both (their own when it is the same, else the
 * extended form), the total when want_total and both totals are known,
 * else the epoch when both epochs are known, else the step.  The
 * predictor used into *pred and the quantity (0 step, 1 epoch, 2 total)
 * into *quantity (either may be NULL).
 */
void hs_advise_fig_pair(const hs_advise_fig_t *a, const hs_advise_fig_t *b,
                        int want_total, int64_t *va, int64_t *vb,
                        hs_predictor_t *pred, int *quantity);

/* 1 when a is strictly faster than b (hs_advise_fig_pair), else 0. */
int hs_advise_fig_faster(const hs_advise_fig_t *a, const hs_advise_fig_t *b,
                         int want_total);

/*
 * Judges scenario c (resolved, with profiles): hs_answer_run with o
 * (NULL: c's own options; stragglers are always c's own, its device
 * indices) under HS_ANSWER_REPLAY_AUTO when replay != 0 (ALWAYS when
 * o->force), else the extended form alone (the reason says so), into
 * *fig.  Fails as hs_answer_run does.
 */
hs_err_t hs_advise_judge(const hs_scenario_t *c, const hs_replay_opts_t *o,
                         int replay, hs_advise_fig_t *fig, hs_error_t *err);

/* ---- ring order ------------------------------------------------------ */

#define HS_ADVISE_RING_CANDS 4

typedef struct hs_advise_ring_cand_s {
    const char *label;      /* "given", "grouped", "interleave", "searched" */
    uint32_t *order;        /* n device indices, ring order */
    int64_t closed_ns;      /* the search's figure: the source closed
                               form's step in that order */
    int64_t closed_sum_ns;  /* sum of the per-device T(i) */
    hs_advise_fig_t fig;    /* the judge's figures in that order */
    int same_as;            /* index of an identical earlier candidate, or
                               -1 */
} hs_advise_ring_cand_t;

typedef struct hs_advise_ring_s {
    uint32_t n;
    size_t n_cands;
    hs_advise_ring_cand_t cands[HS_ADVISE_RING_CANDS];
    size_t chosen;          /* the recommendation: the candidate the judge
                               finds fastest (ties: given, searched,
                               grouped, interleave); 0 (the given order)
                               unless another is strictly faster than it
                               (outcome NONE) */
    hs_advise_outcome_t outcome;    /* IMPROVED: the searched order */
    int64_t lower_bound_ns; /* no order's source closed-form step is
                               below */
    int exact;              /* the search was exact */
    uint64_t moves;         /* heuristic's improving moves */
    double search_s;        /* CPU seconds of the search */
} hs_advise_ring_t;

/*
 * Searches the ring order of s (resolved, with profiles) as described in
 * hs_ringopt.h, starting from its given order, the grouped and the
 * interleaved orders, then judges every distinct candidate
 * (hs_advise_judge with o and replay).  exact_max as in
 * hs_ringopt_search.  Stores a new result in *out (free with
 * hs_advise_ring_free).  Fails with what the search, the scenario or the
 * judge return (e.g. HS_ERR_NETWORK naming the two devices of a pair with
 * no bandwidth).
 */
hs_err_t hs_advise_ring(const hs_scenario_t *s, const hs_replay_opts_t *o,
                        int replay, uint32_t exact_max,
                        hs_advise_ring_t **out, hs_error_t *err);

void hs_advise_ring_free(hs_advise_ring_t *r);

/* ---- batch per type -------------------------------------------------- */

#define HS_ADVISE_BATCH_CANDS 8

typedef struct hs_advise_batch_cand_s {
    char label[24];         /* "given", "proportional", "searched",
                               "paced", "compute", "searched-3/4", ... */
    uint64_t *batch;        /* per type */
    uint64_t *shard;        /* per type: the explicit shard that follows
                               the batch, in samples (0: the scenario
                               derives it, or the given one's own) */
    uint64_t global_batch;  /* sum over types of count x batch */
    uint32_t *micro;        /* per type: the micro-batches a step's batch
                               is split into (the given ones unless the
                               micro-batches are searched) */
    hs_advise_fig_t fig;    /* the judge's figures */
} hs_advise_batch_cand_t;

typedef struct hs_advise_batch_s {
    size_t n_types;
    uint64_t *batch_before; /* per type: the given batches */
    uint64_t global_batch_asked, global_batch;
    /* the candidates, in the order they are preferred on a tie: [0] the
       baseline -- the given batches ("given"), or, when another global
       batch is asked, the given batches scaled to it ("proportional");
       [1] the search's split ("searched": the least largest extended
       T_ext(i)); then the fallbacks: "paced" (T_ext(i) with the ring's
       slowest all-reduce, which paces every device), "compute" (forward,
       backward and optimizer only), and points part of the way from the
       baseline to the search's split ("searched-3/4", "-1/2", "-1/4").
       A fallback equal to an earlier candidate is left out. */
    size_t n_cands;
    hs_advise_batch_cand_t cands[HS_ADVISE_BATCH_CANDS];
    size_t chosen;          /* the candidate the judge finds fastest, when
                               strictly faster than the baseline; else 0
                               (outcome NONE) */
    hs_advise_outcome_t outcome;    /* IMPROVED: "searched" */
    /* the recommendation (cands[chosen]) as written: */
    uint64_t *batch_after, *shard_after;    /* per type (owned copies) */
    char *scaling;          /* the scaling model used per type for the
                               recommendation (the search's split when
                               none), in words (owned) */
    hs_profile_t *profile_after;    /* per type: its profile scaled to
                               batch_after (owned); with micro-batches,
                               to one micro-batch of it */
    uint32_t max_micro;     /* the most micro-batches a type may take
                               (hs_advise_batch_micro_x); 1: not
                               searched, each type keeps its own */
    uint32_t *micro_before, *micro_after;   /* per type (owned): the given
                               micro-batch counts, and the
                               recommendation's (batch_after[t] /
                               micro_after[t] samples each) */
} hs_advise_batch_t;

/*
 * Recommends per-type batches for s that keep the global batch
 * (global_batch; 0 = the scenario's own sum of count x batch) within each
 * type's largest batch (max_batch[t]; NULL or 0 = no limit, taken as 4x
 * the global batch).  The search minimises the largest per-device work
 * per step (the closed form's extended T_ext(i): forward, the whole
 * backward or the all-reduce, the optimizer); the candidates above are
 * judged (hs_advise_judge with o and replay).  Stores a new result in
 * *out (free with hs_advise_batch_free).  Fails with HS_ERR_RANGE when
 * the global batch cannot be split (fewer samples than devices, more than
 * the limits allow), or what the closed form or the judge return.
 */
hs_err_t hs_advise_batch(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         uint64_t global_batch, const uint64_t *max_batch,
                         int replay, hs_advise_batch_t **out,
                         hs_error_t *err);

void hs_advise_batch_free(hs_advise_batch_t *r);

/* ---- device mix ------------------------------------------------------ */

typedef struct hs_advise_mix_s {
    hs_mixopt_result_t *search;     /* the closed form's best mixes, best
                                       first (counts in devices) */
    hs_advise_fig_t fig[HS_MIXOPT_TOP];     /* each one judged */
    double cost[HS_MIXOPT_TOP];     /* by its judge's total */
    int ok[HS_MIXOPT_TOP];          /* meets the constraint, judged */
    /* the given configuration: the scenario's counts (when the mixes
       derive the shards, with its shards derived too) */
    uint64_t *given_counts;         /* per type, devices */
    hs_advise_fig_t given;
    double given_cost;
    int given_allowed;      /* its counts lie within the types' min and
                               avail: a mix the search could choose; else
                               it is shown but not a baseline */
    int given_ok;           /* allowed and meets the constraint, judged */
    size_t chosen;          /* index into search->top: the best judged mix
                               within the constraint that beats the given
                               one (when given_ok); meaningless when the
                               outcome is NONE */
    hs_advise_outcome_t outcome;    /* IMPROVED: search->top[0] */
    int met;                /* the given one or a candidate meets the
                               constraint, judged (else nothing is
                               recommended and the caller says so) */
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
 * the counts (no devices: list).  The best mixes and the given one are
 * judged (hs_advise_judge with o and replay): the recommendation is the
 * best judged mix that meets the constraint and beats the given one.
 * Stores a new result in *out (free with hs_advise_mix_free).
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
 * as STEM.TYPE.profile.yaml (STEM: path's file name without ".yaml");
 * mix: each type's count) to path, atomically, with a comment header
 * saying what was changed, what the profiles hold and what the judge
 * said.  The file names the scaled profiles, and every relative path of
 * s, relative to its own directory.  Exactly one of ring, batch, mix is
 * not NULL.  Fails with HS_ERR_USAGE when the answer is "no better
 * configuration found" (nothing is written), or with an I/O error.
 */
hs_err_t hs_advise_write(const hs_scenario_t *s, const hs_advise_ring_t *ring,
                         const hs_advise_batch_t *batch,
                         const hs_advise_mix_t *mix, const char *path,
                         hs_error_t *err);

/* ---- running a question: progress, and several processes -------------
 *
 * A large search reports its progress through ex->progress (the ring
 * search's passes, the mixes visited, the candidates judged, said
 * "replays"), and may be split over ex->size cooperating processes
 * (`mpirun -n K hetsim advise`), each calling the same function with the
 * same arguments and its own ex->rank.  What is split:
 *   mix    the mixes (each process evaluates the mixes m = rank mod size
 *          with the closed form, hs_mixopt_search_part; the records are
 *          gathered and the whole search is walked again from them,
 *          hs_mixopt_search_memo), and the judging of the best mixes and
 *          of the given one;
 *   ring   the judging of the distinct candidates (the search itself is
 *          one deterministic sequence: greedy start, then local moves
 *          from the best start, or the exact dynamic programme; every
 *          process runs it);
 *   batch  the judging of the candidates (the search runs everywhere).
 * The j-th judging to do runs on process j mod size.  ex->allgather hands
 * every process what every process contributed, so all of them end with
 * the same result -- the one a single process gets, byte for byte -- and
 * the caller lets rank 0 print and write it.
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

/*
 * As hs_advise_batch_x, with gradient accumulation counted as a way to
 * balance the types (max_micro > 1; 0 or 1: exactly hs_advise_batch_x).
 * max_batch[t] is then what one device holds at once: a per-step batch b
 * above it is V = ceil(b / max_batch[t]) <= max_micro micro-batches of
 * b / V samples, allowed only when V divides b (micro-batches are equal:
 * a remainder is never split unevenly; model/hs_batchopt.h).  Type t's
 * step at b is then its profile scaled to the micro-batch b / V, its
 * forward and backward V times, the data loading V times, the all-reduce
 * and the optimizer once (model/hs_phases.h) -- its T_ext, kept
 * non-decreasing in b by taking the larger of it and T_ext at the
 * largest batch of V - 1 micro-batches (binding only where a sample
 * costs more in a larger micro-batch).  The profile is taken to hold one
 * micro-batch of the given batch (batch / micro_batches).  Every
 * candidate's micro-batch counts are in cands[k].micro, the
 * recommendation's in micro_after; hs_advise_write writes them.
 */
hs_err_t hs_advise_batch_micro_x(const hs_scenario_t *s,
                                 const hs_replay_opts_t *o,
                                 uint64_t global_batch,
                                 const uint64_t *max_batch,
                                 uint32_t max_micro, int replay,
                                 const hs_advise_exec_t *ex,
                                 hs_advise_batch_t **out, hs_error_t *err);

/* As hs_advise_mix, run as ex says (NULL: one silent process). */
hs_err_t hs_advise_mix_x(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         const hs_mixopt_type_t *types, hs_mix_goal_t goal,
                         double budget, int64_t deadline_ns, int replay,
                         const hs_advise_exec_t *ex, hs_advise_mix_t **out,
                         hs_error_t *err);

#endif
