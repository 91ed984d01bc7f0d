/*
 * hs_phases.c -- a device's compute in one step (hs_phases.h).
 *
 * The formulas are in the header.  What matters here is that there is one
 * copy: the closed form's T(i), the replay's events and the fast path's
 * max-plus arrays are compared to the ns by the tests and by `validate`,
 * and they stay equal only while every predictor rounds each phase the
 * same way.  The straggler entries are walked in the order given, so the
 * factors multiply in the same order wherever the step is derived.  O(1)
 * plus O(stragglers) per call; the replay calls it once per device and
 * step, outside its per-chunk loop.
 */
#include "hs_phases.h"

void hs_phases_means(const hs_scenario_t *s, uint32_t d,
                     hs_phase_times_t *out)
{
    const hs_profile_t *p = &s->types[s->devices[d].type].profile;

    out->fwd_ns = p->t_fwd.mean_ns;
    out->b1_ns = p->t_b1.mean_ns;
    out->bwd_ns = p->t_bwd.known ? p->t_bwd.mean_ns : -1;
    out->opt_ns = p->t_opt.known ? p->t_opt.mean_ns : 0;
}

void hs_phases_derive(const hs_scenario_t *s, uint32_t d, int64_t k,
                      const hs_straggler_t *st, size_t n_st,
                      const hs_phase_times_t *raw, hs_phases_t *out)
{
    const hs_device_t *dv = &s->devices[d];
    hs_phase_times_t mean;
    double c = dv->compute_scale;
    int64_t extra = dv->extra_compute_ns, rest;
    size_t i;

    for (i = 0; k >= 0 && i < n_st; i++) {
        if (st[i].device == d && (int64_t)st[i].first_step <= k &&
            k <= (int64_t)st[i].last_step) {
            c *= st[i].factor;
            extra += st[i].extra_ns;
        }
    }
    if (raw == NULL) {
        hs_phases_means(s, d, &mean);
        raw = &mean;
    }
    out->scale = c;
    out->extra_ns = extra;
    out->fwd_ns = hs_phases_scaled_ns(raw->fwd_ns, c) + extra;
    out->b1_ns = hs_phases_scaled_ns(raw->b1_ns, c);
    /* t_bwd <= t_b1 (or unknown): nothing after the first operator */
    rest = raw->bwd_ns > raw->b1_ns
               ? hs_phases_scaled_ns(raw->bwd_ns, c) - out->b1_ns
               : 0;
    out->rest_ns = rest < 0 ? 0 : rest;
    out->opt_ns = hs_phases_scaled_ns(raw->opt_ns, c);
    {
        /* gradient accumulation: the micro-batches before the last run
           their forward and whole backward with no communication (DDP's
           no_sync) ahead of the last one's forward */
        uint32_t mb = s->types[dv->type].micro_batches;

        if (mb > 1)
            out->fwd_ns += (int64_t)(mb - 1) *
                           (hs_phases_scaled_ns(raw->fwd_ns, c) +
                            out->b1_ns + out->rest_ns);
    }
}
