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
 * I = max_t ceil(d_t / b_t) steps; the total is epochs * epoch.
 *
 * Beside the source's formula, hetsim reports an "extended" step that also
 * counts the rest of the backward and the optimizer where measured:
 *   T_ext(i) = max( t_dl, T_fwd + max(t_bwd, t_b1 + T_ar(i)) + t_opt ).
 */
#ifndef HS_CLOSED_H
#define HS_CLOSED_H

#include <stdint.h>

#include "hs_collective.h"
#include "hs_error.h"
#include "hs_scenario.h"

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
    int64_t t_ext_ns;      /* T_ext(i) */
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

/*
 * Applies the closed form to scenario s with its collective
 * (s->collective, the ring when NULL).  Stores a new prediction in *out
 * (free with hs_prediction_free).  Fails with HS_ERR_RANGE when the numbers
 * make no epoch (no batch, an overflow).
 */
hs_err_t hs_closed_predict(const hs_scenario_t *s, hs_prediction_t **out,
                           hs_error_t *err);

/* As hs_closed_predict, with T_ar(i) from collective c instead of the
   scenario's (hs_closed_predict is this with s->collective, the ring when
   NULL); fails as c->check does when c cannot run on s. */
hs_err_t hs_closed_predict_coll(const hs_scenario_t *s,
                                const hs_collective_t *c,
                                hs_prediction_t **out, hs_error_t *err);

/* T(i) of device d alone (no allocation); what the replay compares with. */
int64_t hs_closed_device_ns(const hs_scenario_t *s, uint32_t d);

/* The extended T_ext(i) of device d (the ring): also the rest of the
   backward and the optimizer. */
int64_t hs_closed_device_ext_ns(const hs_scenario_t *s, uint32_t d);

/* As hs_closed_device_ns with T_ar(i) from collective c. */
int64_t hs_closed_device_coll_ns(const hs_scenario_t *s,
                                 const hs_collective_t *c, uint32_t d);

/* T_ar(i) of device d alone: the ring's (hs_coll_ring.allreduce_ns). */
int64_t hs_closed_allreduce_ns(const hs_scenario_t *s, uint32_t d);

/* Releases p and all it owns.  p may be NULL. */
void hs_prediction_free(hs_prediction_t *p);

#endif
