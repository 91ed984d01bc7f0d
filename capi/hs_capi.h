/*
 * hs_capi.h -- a flat C entry layer for language bindings (the Python
 * package hetsim, python/): plain structs, caller-owned arrays and
 * malloc'd text, so that a binding through a foreign-function interface
 * (ctypes) never walks the library's internal structures.
 *
 * Everything here calls the same functions the command-line tool calls
 * (hs_answer_run, hs_sweep_*, hs_advise_*), so the figures are the CLI's
 * to the nanosecond; the names of the fields follow docs/output.md.
 *
 * Interruption: a binding arms hs_capi_interrupt_arm() around a long call;
 * SIGINT then sets a flag (the previous action is saved) that the replay's
 * timeline sink checks once per block of intervals (never per event), and
 * the sweep between points; the call fails with HS_ERR_USAGE and
 * "interrupted".  hs_capi_interrupt_disarm() restores the previous action
 * and says whether SIGINT came.
 */
#ifndef HS_CAPI_H
#define HS_CAPI_H

#include <stddef.h>
#include <stdint.h>

#include "hs_advise.h"
#include "hs_answer.h"
#include "hs_error.h"
#include "hs_scenario.h"
#include "hs_trace.h"

/* The version of the structs below; a binding checks it. */
#define HS_CAPI_VERSION 1

int hs_capi_version(void);

/* One answer (hs_answer_t) flattened: every predictor's figures by
   hs_predictor_t (-1: unknown or not run), the recommended one, why. */
typedef struct hs_capi_answer_s {
    int64_t step_ns[HS_PREDICTORS];
    int64_t epoch_ns[HS_PREDICTORS];
    int64_t total_ns[HS_PREDICTORS];
    int32_t recommended;        /* hs_predictor_t */
    uint32_t epochs;
    uint64_t iters_per_epoch;   /* 0: unknown */
    uint64_t n_devices;
    int64_t latency_ns;         /* the default per-message latency */
    /* the replay's details, when it ran (replay_ran 1) */
    int32_t replay_ran;
    uint32_t steps;             /* replayed */
    int32_t overlap;            /* hs_overlap_t replayed */
    int32_t fast_path;          /* 1: max-plus, 0: the event engine */
    uint64_t seed;
    int64_t first_step_replay_ns;
    int64_t step_mean_ns, step_sd_ns, step_p50_ns, step_p95_ns;
    uint64_t events;
    /* more of the replay (simulate's document) */
    int32_t overlap_asked;      /* hs_overlap_t */
    int32_t send;               /* hs_send_t */
    int32_t hop_wait;           /* hs_hop_wait_t */
    int32_t stochastic;
    uint32_t n_buckets, streams, streams_asked, reserved;
    int64_t replay_step_ns;     /* the replay's own steady step */
    int64_t closed_step_ns, closed_ext_step_ns; /* as the replay saw them */
    int64_t epoch_lo_ns, epoch_hi_ns, total_lo_ns, total_hi_ns;
    int64_t end_ns;
    uint64_t queue_high_water, state_bytes;
    const char *collective;     /* the collective replayed (static) */
    int64_t *cluster_step_ns;   /* steps entries (malloc'd, free with
                                   hs_capi_free; NULL without a replay) */
    /* the closed form's bottleneck (predict's "bottleneck") */
    uint32_t bottleneck_device;     /* device index, largest source T(i) */
    int32_t bottleneck_bound;       /* hs_bound_t */
    uint32_t link_pos;              /* ring position of the slowest edge */
    uint32_t link_from, link_to;    /* its two devices (indices) */
    double link_bandwidth_bytes_per_s;
    int64_t link_latency_ns;
    int64_t link_t_ar_ns;           /* T_ar(i) of its sending device */
    int32_t shards_unbalanced;
    double shard_coverage;
    uint64_t n_nodes;               /* 0: no nodes: section */
    /* the notes, the scenario's, the closed form's, the replay's, each
       ended by '\n' (malloc'd, free with hs_capi_free; NULL: none) */
    char *notes;
    uint32_t n_notes_scenario, n_notes_closed, n_notes_replay, reserved2;
    char why[320];
} hs_capi_answer_t;

/* One device type's figures of an answer (predict's types[]). */
typedef struct hs_capi_type_s {
    uint64_t count, batch, shard_samples, iters_per_epoch;
    int64_t t_fwd_ns, t_b1_ns;
    int64_t t_ar_min_ns, t_ar_max_ns;
    int64_t step_source_min_ns, step_source_max_ns;
    int64_t step_extended_max_ns;
    int64_t step_replay_ns;     /* -1: no replay */
    double payload_bytes;
    /* its profile (-1: not measured) */
    int64_t t_dl_ns, t_bwd_ns, t_opt_ns;
    uint64_t allreduce_bytes, subsystem_size;
    double comm_ns_per_byte;
    int64_t t_hop_wait_ns;
    double cpu_quota_cores;
    int64_t t_cpu_period_ns;
    uint32_t slowest_device;    /* device index, largest source T(i) */
    uint32_t micro_batches;     /* gradient accumulation: micro-batches a
                                   step (1: none) */
    /* the replay's (when it ran, else -1): the closed forms it compared
       with, and the hop wait it gave (intra and inter: the hierarchical
       collective's own rings, else -1) */
    int64_t replay_step_source_ns, replay_step_extended_ns;
    int64_t hop_wait_ns, hop_wait_intra_ns, hop_wait_inter_ns;
} hs_capi_type_t;

/* A replay's overrides of the scenario's simulate: section; a field at
   its "unset" value keeps the scenario's. */
typedef struct hs_capi_sim_s {
    uint32_t steps;             /* 0: the scenario's */
    int32_t has_seed;
    uint64_t seed;
    int32_t overlap;            /* hs_overlap_t, -1: the scenario's */
    int32_t force;              /* replay beyond the budgets */
} hs_capi_sim_t;

/* A growing buffer of the replay's intervals (a trace sink). */
typedef struct hs_capi_timeline_s hs_capi_timeline_t;

/* A new, empty timeline in *out (free with hs_capi_timeline_free);
   HS_ERR_NOMEM. */
hs_err_t hs_capi_timeline_new(hs_capi_timeline_t **out, hs_error_t *err);

/* The intervals gathered so far, in the order the replay emitted them,
   and their count in *n; owned by tl, valid until it is freed. */
const hs_interval_t *hs_capi_timeline_data(const hs_capi_timeline_t *tl,
                                           size_t *n);

/* sizeof(hs_interval_t), for a binding to check its layout. */
size_t hs_capi_interval_size(void);

/*
 * Appends the /events of the HDF5 trace at path (written by `hetsim
 * simulate --h5`, output/hs_h5.h) to tl, in file order.  Fails as
 * hs_h5_events_each does (HS_ERR_IO, HS_ERR_TRACE), HS_ERR_NOMEM.
 */
hs_err_t hs_capi_read_trace(const char *path, hs_capi_timeline_t *tl,
                            hs_error_t *err);

/* Releases tl.  tl may be NULL. */
void hs_capi_timeline_free(hs_capi_timeline_t *tl);

/*
 * Answers scenario s (resolved; only read) as hs_answer_run does with
 * mode (hs_answer_replay_t) and the replay options of s overridden by sim
 * (NULL: none).  Under HS_ANSWER_REPLAY_ALWAYS without sim->force the
 * replay is first checked against the budgets (hs_scenario_check_budget),
 * as `hetsim simulate` does.  With tl (not NULL; ALWAYS only) the replay's
 * intervals are appended to it; with tl or an armed interrupt the replay
 * runs with a sink that stops it at the next block after SIGINT.  Fills
 * *out and, when types is not NULL, types[0 .. min(n_types, s->n_types))
 * (caller-owned).  Fails as hs_answer_run does, HS_ERR_RANGE for a budget,
 * HS_ERR_USAGE "interrupted".  out->notes and out->cluster_step_ns are
 * malloc'd: the caller frees them (hs_capi_free) after a success; NULL
 * after a failure.
 */
hs_err_t hs_capi_answer(const hs_scenario_t *s, int mode,
                        const hs_capi_sim_t *sim, hs_capi_timeline_t *tl,
                        hs_capi_answer_t *out, hs_capi_type_t *types,
                        size_t n_types, hs_error_t *err);

/* ---- the scenario as data -------------------------------------------- */

/* Counts of s (resolved). */
size_t hs_capi_n_types(const hs_scenario_t *s);
size_t hs_capi_n_devices(const hs_scenario_t *s);

/* Names and text owned by s (NULL for an index out of range or a name
   not given): a type's, a device's, the type of device i, the scenario's
   name, file and YAML text (as loaded; hs_scenario_set does not change
   it), job.model, the `collective:` given, a device's address. */
const char *hs_capi_type_name(const hs_scenario_t *s, size_t k);
const char *hs_capi_device_name(const hs_scenario_t *s, size_t i);
const char *hs_capi_device_type_name(const hs_scenario_t *s, size_t i);
const char *hs_capi_scenario_name(const hs_scenario_t *s);
const char *hs_capi_scenario_file(const hs_scenario_t *s);
const char *hs_capi_scenario_text(const hs_scenario_t *s);
const char *hs_capi_scenario_model(const hs_scenario_t *s);
const char *hs_capi_scenario_collective(const hs_scenario_t *s);
const char *hs_capi_device_addr(const hs_scenario_t *s, size_t i);

/* ---- sweeps and advice ------------------------------------------------ */

/*
 * Sweeps s (only read) as `hetsim sweep --json` does: replay as mode
 * (hs_answer_replay_t), the n_set "KEY=VALUE" settings, the n_vary
 * "KEY=V1,V2,..." axes (zipped when zip), and stores the sweep's JSON
 * document (hs_sweep_write_json: the CLI's bytes) in *json, malloc'd and
 * NUL-terminated (free with hs_capi_free).  Failed points are in the
 * document; the call fails only when the sweep cannot be planned or run
 * (or HS_ERR_USAGE "interrupted").
 */
hs_err_t hs_capi_sweep_json(const hs_scenario_t *s, int mode,
                            const char *const *set, size_t n_set,
                            const char *const *vary, size_t n_vary, int zip,
                            char **json, hs_error_t *err);

/* Candidates an answer lists, at most (ring 4, batch 8, mix 8). */
#define HS_CAPI_ADVISE_CANDS 8

/* One candidate of a question, as judged. */
typedef struct hs_capi_cand_s {
    char label[32];             /* ring, batch: its label; mix: "" */
    int32_t same_as;            /* ring: an identical earlier one, -1 */
    int32_t recommended;        /* 1: the recommendation */
    uint64_t global_batch;      /* batch: its global batch */
    double cost;                /* mix: by its judge's total, -1 unknown */
    double cost_extended;       /* mix: the search's own figure */
    int32_t meets;              /* mix: meets the constraint, judged */
    int32_t reserved;
    hs_advise_fig_t fig;
} hs_capi_cand_t;

/* One question's verdict: the given configuration's and the
   recommended one's figures (the same as the given one when the outcome
   is HS_ADVISE_NONE), the recommended candidate's label, every
   candidate.  values (malloc'd, free with hs_capi_free) holds width
   numbers per candidate, in candidate order: ring, the order's device
   indices (width n_devices); batch, each type's batch then each type's
   shard (0: none; width 2 n_types; with micro-batches searched then each
   type's micro-batch count, width 3 n_types); mix, each type's count (width
   n_types), and after the candidates one row more: the given counts. */
typedef struct hs_capi_advice_s {
    int32_t outcome;            /* hs_advise_outcome_t */
    int32_t met;                /* mix: something meets the constraint */
    hs_advise_fig_t given;
    hs_advise_fig_t chosen;
    char label[32];             /* "searched", "grouped"; mix: the rank
                                   of the mix, from 1 */
    int64_t lower_bound_step_source_ns;     /* ring; -1 otherwise */
    uint64_t global_batch;      /* batch; 0 otherwise */
    uint64_t global_batch_asked;            /* batch */
    int32_t exact;              /* ring: the search was exact */
    int32_t given_ok;           /* mix: the given mix meets it, judged */
    int32_t given_allowed;      /* mix: within min and avail */
    int32_t shards_derived;     /* mix */
    double given_cost;          /* mix, -1 unknown */
    uint64_t mixes_visited, mixes_evaluated;    /* mix */
    size_t n_cands;
    hs_capi_cand_t cands[HS_CAPI_ADVISE_CANDS];
    size_t width;
    uint64_t *values;
} hs_capi_advice_t;

/*
 * `hetsim advise ring`: into *out, and the recommended ring order (device
 * indices) into order[0 .. n_devices) when order is not NULL and n_order
 * >= s->n_devices.  exact_max 0: the library's default.  Fails as
 * hs_advise_ring does.  On success out->values is the caller's to free
 * (this and the two below); NULL after a failure.
 */
hs_err_t hs_capi_advise_ring(const hs_scenario_t *s, int replay,
                             uint32_t exact_max, hs_capi_advice_t *out,
                             uint32_t *order, size_t n_order,
                             hs_error_t *err);

/*
 * `hetsim advise batch`: global_batch 0 = the scenario's; max_batch per
 * type (NULL = no limit).  The recommended batch and shard per type into
 * batch[] and shard[] (each n_types long, may be NULL).
 */
hs_err_t hs_capi_advise_batch(const hs_scenario_t *s, int replay,
                              uint64_t global_batch,
                              const uint64_t *max_batch,
                              hs_capi_advice_t *out, uint64_t *batch,
                              uint64_t *shard, size_t n_types,
                              hs_error_t *err);

/*
 * `hetsim advise batch --max-micro N`: as hs_capi_advise_batch, with
 * gradient accumulation searched (hs_advise_batch_micro_x): max_batch[t]
 * is then what one device holds at once, and a type may split a step's
 * batch into up to max_micro equal micro-batches (0 or 1: not searched,
 * exactly hs_capi_advise_batch; above HS_LIMIT_MICRO_BATCHES the call
 * fails with HS_ERR_RANGE).  Also into micro_given[] and micro[] (each
 * n_types long, may be NULL) each type's given micro-batch count and the
 * recommendation's (batch[t] / micro[t] samples each).  With max_micro >
 * 1, out->values holds 3 n_types numbers per candidate: each type's
 * batch, shard, then micro-batch count.  out->values is the caller's to
 * free on success; NULL after a failure.
 */
hs_err_t hs_capi_advise_batch_micro(const hs_scenario_t *s, int replay,
                                    uint64_t global_batch,
                                    const uint64_t *max_batch,
                                    uint32_t max_micro,
                                    hs_capi_advice_t *out, uint64_t *batch,
                                    uint64_t *shard, uint32_t *micro_given,
                                    uint32_t *micro, size_t n_types,
                                    hs_error_t *err);

/*
 * `hetsim advise mix`: per type avail (devices available), min and
 * price_per_h (arrays of s->n_types); fastest within budget when
 * budget > 0, else the cheapest within deadline_ns.  The recommended
 * counts per type into counts[] (may be NULL).
 */
hs_err_t hs_capi_advise_mix(const hs_scenario_t *s, int replay,
                            const uint64_t *avail, const uint64_t *min,
                            const double *price_per_h, double budget,
                            int64_t deadline_ns, hs_capi_advice_t *out,
                            uint64_t *counts, size_t n_types,
                            hs_error_t *err);

/* ---- interruption and memory ------------------------------------------ */

/* Installs the SIGINT flag handler (saving the current action) and clears
   the flag; 0, or -1 when sigaction fails.  An ignored SIGINT stays
   ignored (nothing is installed).  Not nested. */
int hs_capi_interrupt_arm(void);

/* Restores the saved SIGINT action; 1 when SIGINT came while armed. */
int hs_capi_interrupt_disarm(void);

/* free(), for what this layer malloc'd. */
void hs_capi_free(void *p);

#endif
