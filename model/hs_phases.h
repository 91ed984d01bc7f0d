/*
 * hs_phases.h -- the compute a device does in one step, derived in one
 * place for every predictor.
 *
 * A step of device d is: the forward (then the first backward operator
 * opens the collective), the first backward operator, the rest of the
 * backward, the optimizer.  From the type's profile times (the means, or
 * per-step draws in the stochastic replay), the device's compute_scale and
 * extra_compute, and the stragglers that cover the step:
 *
 *   c     = compute_scale x the factor of every straggler entry of (d, k)
 *   extra = extra_compute + the extra of every such entry
 *   fwd   = round(t_fwd c) + extra   (a late device is late before its
 *                                     first backward op)
 *   b1    = round(t_b1 c)
 *   rest  = max(round(t_bwd c) - b1, 0)   (0 when t_bwd is unknown)
 *   opt   = round(t_opt c)                (0 when t_opt is unknown)
 *
 * With gradient accumulation (the type's micro_batches V > 1; the profile
 * holds one micro-batch's times) the V - 1 micro-batches before the last
 * run their forward and whole backward with no communication (DDP's
 * no_sync), so fwd grows by (V - 1)(round(t_fwd c) + b1 + rest): the ring
 * still opens in the last micro-batch's backward, and the optimizer runs
 * once.  Data loading is t_dl per micro-batch, V t_dl a step
 * (hs_phases_dl_ns).  In the stochastic replay a step's draw stands for
 * each of its micro-batches (their spread is not drawn apart).
 *
 * round() is to the nearest ns, half away from zero (llround), and a time
 * scaled by exactly 1.0 is the time itself (the same for every time read
 * from a file, which is below 2^53 ns).  t_dl is not scaled.  The closed
 * form (model/hs_closed.c), the replay (sim/hs_replay.c), its max-plus
 * fast path (sim/hs_ringfast.c) and advise (whatif/hs_advise.c) all call
 * hs_phases_derive, so where they must agree they agree to the ns;
 * hs_scenario_check_ranges bounds the same sum (hs_phases_bound).
 */
#ifndef HS_PHASES_H
#define HS_PHASES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "hs_scenario.h"

/* Profile times of one step before scaling, in ns. */
typedef struct hs_phase_times_s {
    int64_t fwd_ns;
    int64_t b1_ns;
    int64_t bwd_ns;     /* the whole backward, t_b1 included; -1 unknown */
    int64_t opt_ns;     /* 0 when unknown */
} hs_phase_times_t;

/* A device's compute in one step, each phase rounded once. */
typedef struct hs_phases_s {
    int64_t fwd_ns;     /* forward, scaled, plus the extra compute */
    int64_t b1_ns;      /* first backward operator, scaled */
    int64_t rest_ns;    /* rest of the backward, scaled, >= 0 */
    int64_t opt_ns;     /* optimizer, scaled */
    double scale;       /* c: the factor the phases were scaled by (the
                           bucket ready times scale by it too) */
    int64_t extra_ns;   /* extra: what was added to fwd_ns */
} hs_phases_t;

/* A step's data loading on device d from the profile's t_dl of one
   (micro-)batch: t_dl once per micro-batch (hs_type_t.micro_batches);
   not scaled by the compute factor. */
static inline int64_t hs_phases_dl_ns(const hs_scenario_t *s, uint32_t d,
                                      int64_t t_dl_ns)
{
    uint32_t mb = s->types[s->devices[d].type].micro_batches;

    return mb > 1 ? t_dl_ns * (int64_t)mb : t_dl_ns;
}

/* t_ns scaled by a compute factor, to the nearest ns; t_ns itself when
   the factor is 1.0. */
static inline int64_t hs_phases_scaled_ns(int64_t t_ns, double scale)
{
    return scale == 1.0 ? t_ns : (int64_t)llround((double)t_ns * scale);
}

/* A bucket's ready time (ns from the backward's start, unscaled, as a
   double) scaled by the step's factor (hs_phases_t.scale), to the
   nearest ns. */
static inline int64_t hs_phases_ready_ns(double ready_ns, double scale)
{
    return (int64_t)llround(ready_ns * scale);
}

/* The profile's mean times of device d's type into *out (t_fwd and t_b1
   as stored; t_bwd -1 and t_opt 0 when unknown). */
void hs_phases_means(const hs_scenario_t *s, uint32_t d,
                     hs_phase_times_t *out);

/*
 * Device d's phases in step k (the formulas above) into *out.  raw: the
 * step's profile times before scaling (the replay's draws); NULL for the
 * profile's means (hs_phases_means).  The stragglers are the n_st entries
 * at st (entries of another device or step are skipped); k < 0 or
 * n_st == 0: none.  Nothing is allocated; no failure (the range check at
 * load keeps every result within HS_LIMIT_TIME_NS).
 */
void hs_phases_derive(const hs_scenario_t *s, uint32_t d, int64_t k,
                      const hs_straggler_t *st, size_t n_st,
                      const hs_phase_times_t *raw, hs_phases_t *out);

/* The step's compute the phases above sum to, bounded from above in
   double precision (hs_scenario_check_ranges): c (fwd + tail + opt) +
   extra, tail the longest of t_b1, t_bwd and the last bucket's ready
   time, each time its largest possible value. */
static inline double hs_phases_bound(double scale, double extra_ns,
                                     double fwd_ns, double tail_ns,
                                     double opt_ns)
{
    return scale * (fwd_ns + tail_ns + opt_ns) + extra_ns;
}

#endif
