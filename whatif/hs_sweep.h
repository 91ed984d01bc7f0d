/*
 * hs_sweep.h -- what-if sweeps: one scenario, several keys varied over
 * lists of values, the closed form (and optionally the replay) at every
 * point.  See the essay at the top of hs_sweep.c.
 *
 * Use: hs_sweep_new on a loaded base scenario; hs_sweep_vary once per
 * "KEY=VALUES"; hs_sweep_plan; then either hs_sweep_run (all points, in
 * this process) or hs_sweep_run_point per point (what an MPI worker does,
 * cli/hs_sweep_mpi.h); the results go to the writers of output/hs_sweep_out.h.
 *
 * Ownership: the sweep owns a deep copy of the base scenario and every
 * string it was given; hs_sweep_free releases all of it.  Results are a
 * separate object (hs_sweep_results_new / _free) so a gatherer can fill
 * them from records it receives.
 */
#ifndef HS_SWEEP_H
#define HS_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_scenario.h"

/* Points a sweep may have (product or zip); more is a usage error. */
#define HS_SWEEP_MAX_POINTS 100000000UL
/* Values one --vary may expand to (a range included). */
#define HS_SWEEP_MAX_VALUES 1000000UL
/* Room for a device name, and for "from->to", in a fixed record. */
#define HS_SWEEP_NAME_LEN 64
#define HS_SWEEP_LINK_LEN 136

/* What a key's values are; checked for every value when it is parsed. */
typedef enum hs_sweep_class_e {
    HS_SWEEP_ANY = 0,       /* a key this table does not know: the
                               scenario's own setter judges each value */
    HS_SWEEP_COUNT = 1,     /* a non-negative integer: 128 */
    HS_SWEEP_NUMBER = 2,    /* a real number: 1.5 */
    HS_SWEEP_TIME = 3,      /* 20ms */
    HS_SWEEP_BYTES = 4,     /* 1GB */
    HS_SWEEP_BANDWIDTH = 5, /* 25Gbps */
    HS_SWEEP_SIZE = 6,      /* a size in bytes or a sample count */
    HS_SWEEP_TIME_OR_UNKNOWN = 7, /* t_dl: a time or "unknown" */
    HS_SWEEP_OVERLAP = 8,   /* patent | buckets | none */
    HS_SWEEP_SEND = 9,      /* rendezvous | eager */
    HS_SWEEP_BOOL = 10,     /* true | false */
    HS_SWEEP_RING = 11      /* listing | grouped | interleave | [a, b, ..] */
} hs_sweep_class_t;

/* One varied key and its values, in the order given. */
typedef struct hs_sweep_axis_s {
    char *key;              /* the scenario key path */
    char *spec;             /* the VALUES text as given */
    hs_sweep_class_t cls;
    size_t n_values;
    char **values;          /* each as hs_scenario_set takes it */
} hs_sweep_axis_t;

typedef struct hs_sweep_s hs_sweep_t;

/*
 * One point's figures: a fixed-size record with no pointers (an MPI
 * worker sends it as bytes).  Times in ns.  code is the point's hs_err_t
 * (0 = it ran); when it is not 0 the figures are 0 and the error text
 * travels beside the record.  Every predictor's step, epoch and total
 * (whatif/hs_answer.h; -1 when unknown or not run: the replay when the
 * sweep does not replay the point, the epoch without a dataset) and the
 * recommended predictor's, named as in every output (docs/output.md).
 */
typedef struct hs_sweep_rec_s {
    int32_t code;
    uint32_t n_devices;
    int32_t predictor;          /* the recommended one, hs_predictor_t */
    int32_t reserved;           /* 0 */
    int64_t step_recommended_ns;
    int64_t epoch_recommended_ns;
    int64_t total_recommended_ns;
    int64_t step_source_ns;     /* max_i T(i) */
    int64_t epoch_source_ns;
    int64_t total_source_ns;
    int64_t step_extended_ns;   /* max_i T_ext(i) */
    int64_t epoch_extended_ns;
    int64_t total_extended_ns;
    int64_t step_replay_ns;     /* the replay's steady step */
    int64_t epoch_replay_ns;
    int64_t total_replay_ns;
    uint64_t iters_per_epoch;
    int32_t bottleneck_bound;   /* hs_bound_t of the slowest device */
    uint32_t bottleneck_link_pos; /* ring position of the slowest edge */
    char bottleneck_device[HS_SWEEP_NAME_LEN];
    char bottleneck_link[HS_SWEEP_LINK_LEN];  /* "from->to" */
} hs_sweep_rec_t;

/* Every point's record and error text, in point order. */
typedef struct hs_sweep_results_s {
    size_t n_points;
    hs_sweep_rec_t *rec;
    char **error;           /* per point: NULL, or its error (malloc'd) */
    unsigned char *stored;  /* per point: 1 once stored */
    size_t n_done;          /* points stored so far */
    size_t n_failed;        /* of those, points with an error */
} hs_sweep_results_t;

/*
 * Starts a sweep over a deep copy of `base` (the caller keeps base).
 * `replay` (hs_answer_replay_t): when each point is replayed (with the
 * scenario's simulate: settings, as the points set them): AUTO within
 * the answer budget, as predict does (the default); NEVER (closed forms
 * only); ALWAYS (every point, within the replay budgets unless forced).
 * Stores the sweep in *out (free with hs_sweep_free); fails with what
 * hs_scenario_clone returns.
 */
hs_err_t hs_sweep_new(const hs_scenario_t *base, int replay,
                      hs_sweep_t **out, hs_error_t *err);

/* Releases sw and all it owns.  sw may be NULL. */
void hs_sweep_free(hs_sweep_t *sw);

/*
 * Adds the axis `KEY=VALUES` (the text of one --vary).  VALUES is a
 * comma-separated list whose items are values, arithmetic ranges
 * `A..B:STEP` or geometric ranges `A..B*FACTOR` (FACTOR > 1); a ring list
 * `[a, b, c]` is one item.  Range ends and steps carry the key's unit
 * ("1Gbps..100Gbps*2"; a step in another unit of the same kind is
 * converted); generated values are written in the unit of A.  Every value
 * is checked against the key's class (a bandwidth key gets bandwidths).
 * A key this module does not know, or naming a type or device the base
 * scenario lacks, is tried on a copy of the base with hs_scenario_set, so
 * its error (which lists the valid keys) is the one reported.  Fails with
 * HS_ERR_USAGE (syntax, a key given twice, too many values), HS_ERR_UNIT
 * (a value of the wrong kind) or the setter's code; messages start with
 * "--vary KEY: ".
 */
hs_err_t hs_sweep_vary(hs_sweep_t *sw, const char *key_eq_values,
                       hs_error_t *err);

/*
 * Sets KEY=VALUE on the base scenario for every point (the text of one
 * --set, or a replay option such as simulate.steps=3), resolving it; the
 * setting is part of hs_sweep_options_text.  Call before hs_sweep_vary of
 * the same key.  Fails with the setter's code, "--set KEY: ...".
 */
hs_err_t hs_sweep_set(hs_sweep_t *sw, const char *key_eq_value,
                      hs_error_t *err);

/* zip != 0: pair the axes' values (equal lengths) instead of the product. */
void hs_sweep_set_zip(hs_sweep_t *sw, int zip);

/* force != 0: replay points even past the replay budgets (2^32 events,
   8 GiB; hs_scenario_check_budget), as simulate --force; by default such a
   point fails the sweep with the estimate in the message. */
void hs_sweep_set_force(hs_sweep_t *sw, int force);

/*
 * Fixes the points: the product of the axes (the first axis varies
 * slowest) or, with zip, the i-th value of every axis.  Fails with
 * HS_ERR_USAGE when no axis was given, zip lengths differ, or there are
 * more than HS_SWEEP_MAX_POINTS points.
 */
hs_err_t hs_sweep_plan(hs_sweep_t *sw, hs_error_t *err);

/* After hs_sweep_plan: the number of points. */
size_t hs_sweep_n_points(const hs_sweep_t *sw);

/* The axes (n_axes of them); owned by sw. */
size_t hs_sweep_n_axes(const hs_sweep_t *sw);
const hs_sweep_axis_t *hs_sweep_axis(const hs_sweep_t *sw, size_t a);

/* The value text of axis a at point p (owned by sw). */
const char *hs_sweep_value(const hs_sweep_t *sw, size_t p, size_t a);

/* When the sweep replays (hs_answer_replay_t); the base scenario (owned
   by sw). */
int hs_sweep_replays(const hs_sweep_t *sw);
const hs_scenario_t *hs_sweep_base(const hs_sweep_t *sw);

/*
 * A one-line description of the options, the same for the same inputs
 * (written into every output): "set KEY=VALUE; ...; vary KEY=VALUES;
 * vary ...; product|zip; replay auto|never|always".  Owned by sw.
 */
const char *hs_sweep_options_text(const hs_sweep_t *sw);

/*
 * Runs point p: applies its values to the scenario (a working copy of the
 * base that sw keeps and restores from the base after a failure), resolves
 * it, and answers it (hs_answer_run with the sweep's replay mode).
 * Fills *rec.  Returns HS_OK, or the point's error (rec->code holds it
 * too, and err its text: "KEY=VALUE: ..." for a value the scenario
 * refuses).  A point's result does not depend on which points ran before.
 */
hs_err_t hs_sweep_run_point(hs_sweep_t *sw, size_t p, hs_sweep_rec_t *rec,
                            hs_error_t *err);

/* Called after every point; return non-zero to stop the run. */
typedef int (*hs_sweep_progress_fn)(void *ctx, size_t done, size_t total);

/*
 * Runs every point in order into res (made by hs_sweep_results_new for
 * sw).  A failing point keeps its error in res and the others still run.
 * Returns HS_OK when every point ran (failed points included: see
 * res->n_failed), HS_ERR_NOMEM, or HS_ERR_USAGE when progress stopped it.
 */
hs_err_t hs_sweep_run(hs_sweep_t *sw, hs_sweep_results_t *res,
                      hs_sweep_progress_fn progress, void *ctx,
                      hs_error_t *err);

/* Empty results for the planned points of sw; free with
   hs_sweep_results_free. */
hs_err_t hs_sweep_results_new(const hs_sweep_t *sw,
                              hs_sweep_results_t **out, hs_error_t *err);

/* Stores point p's record and error text (NULL or "" when it ran); the
   text is copied. */
hs_err_t hs_sweep_results_store(hs_sweep_results_t *res, size_t p,
                                const hs_sweep_rec_t *rec,
                                const char *error, hs_error_t *err);

/* Releases res and all it owns.  res may be NULL. */
void hs_sweep_results_free(hs_sweep_results_t *res);

/* The name of a class ("bandwidth", "count", ...) for messages. */
const char *hs_sweep_class_name(hs_sweep_class_t c);

/* The name of a bound ("data_loading" or "device"), as predict says it. */
const char *hs_sweep_bound_name(int32_t bound);

#endif
