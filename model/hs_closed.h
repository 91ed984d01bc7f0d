/*
 * hs_closed.h -- the closed-form model of docs/method.md, step S400.
 *
 * Per device i of N in the ring:
 *   T_ar(i) = 2(N-1) * (alpha(i) + (M/N) / B(i, next(i)))
 *             (the ring's; another collective of hs_collective.h gives its
 *             own, see the _coll functions)
 *   T(i)    = max( t_dl, T_fwd + t_b1 + T_ar(i) )
 * with t_dl, T_fwd, t_b1 the means of its type (T_fwd and t_b1 scaled by the
 * device's compute_scale, extra_compute added), M = D n / (2(n-1)) from its
 * type's profile.  The cluster's step is max_i T(i); an epoch is
 * I = max_t ceil(d_t / b_t) steps; the total is epochs * epoch.  T(i) is
 * the source's formula: it opens the ring after the first backward
 * operator (overlap patent) whatever the scenario's overlap.
 *
 * Beside it, hetsim reports an "extended" step that also counts the rest of
 * the backward and the optimizer, and opens the ring when the scenario's
 * overlap mode (simulate.overlap) opens it in the replay:
 *   T_ext(i) = max( t_dl, T_fwd + max(t_bwd, E(i)) + t_opt )
 * with E(i), when device i's collective is done (from the backward's
 * start), per overlap mode:
 *   patent       E(i) = t_b1 + T_ar(i)
 *   none         E(i) = t_bwd + T_ar(i)
 *   last_bucket  E(i) = r_B + T_ar(i)
 *   buckets      E(i) = E_B, E_1 = r_1 + T_ar,1(i),
 *                E_b = max(E_{b-1}, r_b) + T_ar,b(i)
 * where r_b is the ready time of gradient bucket b of B from the
 * backward's start (scaled by the compute factor; r_B the last) and
 * T_ar,b(i) the all-reduce of bucket b's bytes alone (hs_buckets.h gives
 * the layout).
 */
#ifndef HS_CLOSED_H
#define HS_CLOSED_H

#include <stdint.h>

#include "hs_collective.h"
#include "hs_error.h"
#include "hs_scenario.h"

/* A device's compute in one step (model/hs_phases.h, internal). */
struct hs_phases_s;

/* What bounds a device's step. */
typedef enum hs_bound_e {
    HS_BOUND_DATA = 0,     /* data loading (the source's figure 4) */
    HS_BOUND_DEVICE = 1    /* forward + first backward + all-reduce */
} hs_bound_t;

typedef struct hs_dev_pred_s {
    int64_t t_dl_ns;       /* 0 when unknown */
    int64_t t_fwd_ns;      /* scaled, extra_compute included */
    int64_t t_b1_ns;       /* scaled */
    int64_t t_ar_ns;       /* T_ar(i) */
    int64_t t_dev_ns;      /* T_fwd + t_b1 + T_ar */
    int64_t t_step_ns;     /* T(i) */
    int64_t t_ext_ns;      /* T_ext(i), in the overlap mode in effect */
    hs_bound_t bound;
} hs_dev_pred_t;

typedef struct hs_type_pred_s {
    uint64_t count;
    int64_t t_dl_ns;
    int64_t t_fwd_ns;          /* unscaled type means */
    int64_t t_b1_ns;
    double payload_bytes;      /* M of this type's profile */
    int64_t t_ar_min_ns, t_ar_max_ns;
    int64_t t_step_min_ns, t_step_max_ns;
    int64_t t_ext_max_ns;      /* the largest T_ext(i) of its devices (0
                                  when it has none) */
    uint32_t slowest_device;   /* device index with the largest T(i) */
    uint64_t shard_samples;    /* d_t, samples per device per epoch */
    uint64_t iters;            /* ceil(d_t / b_t) */
} hs_type_pred_t;

typedef struct hs_prediction_s {
    size_t n_devices;
    hs_dev_pred_t *dev;        /* per device, listing order */
    size_t n_types;
    hs_type_pred_t *types;
    int64_t step_ns;           /* max_i T(i) */
    int64_t step_ext_ns;       /* max_i T_ext(i) */
    hs_overlap_t overlap;      /* the mode T_ext(i) follows (in effect:
                                  buckets and last_bucket become none when
                                  no profile lists buckets) */
    uint32_t bottleneck_device;
    uint32_t bottleneck_link;  /* ring position k of the slowest edge
                                  ring[k] -> ring[k+1] (by T_ar) */
    hs_bound_t bottleneck_bound;
    uint64_t iters_per_epoch;
    int64_t epoch_ns;
    int64_t total_ns;
    int shards_unbalanced;     /* some devices idle at an epoch's end */
    double shard_coverage;     /* sum of shards / dataset total; 0 if no
                                  total was given */
    size_t n_warnings;
    char **warnings;
} hs_prediction_t;

/* The overlap the extended form follows, prepared once per scenario: the
   mode in effect and, for buckets and last_bucket, the bucket layout. */
typedef struct hs_closed_overlap_s {
    hs_overlap_t asked;    /* the mode asked */
    hs_overlap_t mode;     /* in effect: buckets and last_bucket become
                              none when no profile lists buckets, or when
                              the profiles' buckets do not match (the
                              replay refuses those) */
    size_t nb;             /* buckets per type in ready and bytes: the
                              profiles' count (buckets), 1 (last_bucket,
                              gathered), 0 (patent, none) */
    double *ready;         /* [t nb + b]: ns from the backward's start,
                              not scaled by compute (hs_phases_ready_ns
                              scales it) */
    double *bytes;         /* [t nb + b]: the bucket's bytes */
    const char *why_none;  /* why a bucket mode became none (a static
                              phrase), NULL otherwise */
} hs_closed_overlap_t;

/*
 * Prepares *out for overlap `asked` on scenario s (profiles required): the
 * mode in effect and its bucket layout (hs_buckets.h), as the replay
 * decides them.  Free with hs_closed_overlap_clear.  Fails only with
 * HS_ERR_NOMEM; a layout the replay would refuse makes the mode none, with
 * why_none set.
 */
hs_err_t hs_closed_overlap_init(const hs_scenario_t *s, hs_overlap_t asked,
                                hs_closed_overlap_t *out, hs_error_t *err);

/* Releases what ov owns and zeroes it (mode patent).  ov may be NULL. */
void hs_closed_overlap_clear(hs_closed_overlap_t *ov);

/*
 * The extended T_ext of a device of type `type` (the formulas above) from
 * its phases ph (hs_phases_derive), its step's data loading dl_ns, its
 * all-reduce of the whole payload ar_ns and, in buckets mode, the nb
 * all-reduces of its buckets alone bucket_ar_ns (hs_closed_bucket_ar;
 * NULL: 0 each).  ov NULL: patent.  Pure; no allocation.
 */
int64_t hs_closed_ext_step_ns(const hs_closed_overlap_t *ov, uint32_t type,
                              const struct hs_phases_s *ph, int64_t dl_ns,
                              int64_t ar_ns, const int64_t *bucket_ar_ns);

/*
 * The all-reduce of each bucket of ov alone on device d's edges, by
 * collective c, into out[0 .. ov->nb - 1]: the rounds of c each taking
 * latency + hs_xfer_ns(bucket bytes / parts) over the round's edge, as
 * the replay times a chunk.  O(nb) for a uniform collective (the ring),
 * O(nb x rounds) otherwise.  A collective with bucket_all_ns (the tree,
 * also as auto's pick: its rounds overlap, so their sum is not its time)
 * gives its own all-reduce of the bucket's bytes instead, for the whole
 * cluster at once (O(nb N R) per call; hs_closed_predict asks it once
 * for all devices); out of memory there, the sum of its rounds.
 * Nothing when ov->mode is not buckets.
 */
void hs_closed_bucket_ar(const hs_scenario_t *s, const hs_collective_t *c,
                         const hs_closed_overlap_t *ov, uint32_t d,
                         int64_t *out);

/*
 * Applies the closed form to scenario s with its collective
 * (s->collective, the ring when NULL) and its overlap (s->overlap).
 * Stores a new prediction in *out (free with hs_prediction_free).  Fails
 * with HS_ERR_RANGE when the numbers make no epoch (no batch, an
 * overflow).
 */
hs_err_t hs_closed_predict(const hs_scenario_t *s, hs_prediction_t **out,
                           hs_error_t *err);

/* As hs_closed_predict, with T_ar(i) from collective c instead of the
   scenario's (hs_closed_predict is this with s->collective, the ring when
   NULL); fails as c->check does when c cannot run on s. */
hs_err_t hs_closed_predict_coll(const hs_scenario_t *s,
                                const hs_collective_t *c,
                                hs_prediction_t **out, hs_error_t *err);

/* As hs_closed_predict_coll, the extended form following overlap mode
   `overlap` instead of s->overlap (the replay's options may override the
   scenario's). */
hs_err_t hs_closed_predict_with(const hs_scenario_t *s,
                                const hs_collective_t *c,
                                hs_overlap_t overlap, hs_prediction_t **out,
                                hs_error_t *err);

/* T(i) of device d alone (no allocation); what the replay compares with. */
int64_t hs_closed_device_ns(const hs_scenario_t *s, uint32_t d);

/* The extended T_ext(i) of device d in s->overlap with the scenario's
   collective (s->collective, NULL the ring; `auto` its pick): T_ar(i) is
   that collective's closed form, as in hs_closed_predict's
   dev[d].t_ext_ns, plus the rest of the backward and the optimizer.  In
   the bucket modes it builds the layout each call
   (hs_closed_overlap_init).  -1 when out of memory, or when the
   collective is unknown or cannot run on s (its check). */
int64_t hs_closed_device_ext_ns(const hs_scenario_t *s, uint32_t d);

/* As hs_closed_device_ns with T_ar(i) from collective c. */
int64_t hs_closed_device_coll_ns(const hs_scenario_t *s,
                                 const hs_collective_t *c, uint32_t d);

/* T_ar(i) of device d alone: the ring's (hs_coll_ring.allreduce_ns). */
int64_t hs_closed_allreduce_ns(const hs_scenario_t *s, uint32_t d);

/* Releases p and all it owns.  p may be NULL. */
void hs_prediction_free(hs_prediction_t *p);

#endif
