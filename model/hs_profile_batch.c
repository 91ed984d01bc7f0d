/*
 * hs_profile_batch.c -- a type's profile at another batch size
 * (hs_profile.h, "the profile at another batch"), for advise batch.
 *
 * Who asks.  `hetsim advise batch` searches per-type batches with a time
 * function T_t(b) (model/hs_batchopt.h) called a few hundred times per
 * type, and writes each type's profile at its new batch.  So the means
 * come from a function that allocates nothing (hs_profile_means_at_batch),
 * and the whole profile from one that copies (hs_profile_at_batch).
 *
 * The points.  A profile measured at one batch b0 (the scenario type's)
 * is one point; its batch_points add others.  The merged list is walked
 * in batch order without building it: the list's entries below b0, the
 * profile's own times at b0 (winning over an entry at b0), the entries
 * above.  With one point the linear model (llround of t(b0) b / b0) is
 * followed to the last rounding, so a scenario without batch_points gets
 * the same batches, times and files whether or not others have points.
 *
 * Invariant.  For each phase, the time is non-decreasing in b: the points'
 * running maximum is non-decreasing; interpolating and extrapolating
 * between non-decreasing points gives lines of slope >= 0; the floor below
 * the smallest batch (b times a constant) is increasing, and the maximum
 * and minimum of non-decreasing functions are non-decreasing (the floor is
 * a maximum, capping t_b1 at t_bwd a minimum).  The batch search relies on
 * it (hs_batchopt.h: T_t(b) must not decrease with b).
 */
#include "hs_profile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hs_limits.h"

/* The phases' distributions of p, in HS_PH_* order. */
static const hs_dist_t *hs__ph(const hs_profile_t *p, int ph)
{
    switch (ph) {
    case HS_PH_DL:
        return &p->t_dl;
    case HS_PH_FWD:
        return &p->t_fwd;
    case HS_PH_B1:
        return &p->t_b1;
    case HS_PH_BWD:
        return &p->t_bwd;
    default:
        return &p->t_opt;
    }
}

static const hs_dist_t *hs__pt_ph(const hs_batch_point_t *q, int ph)
{
    switch (ph) {
    case HS_PH_DL:
        return &q->t_dl;
    case HS_PH_FWD:
        return &q->t_fwd;
    case HS_PH_B1:
        return &q->t_b1;
    case HS_PH_BWD:
        return &q->t_bwd;
    default:
        return &q->t_opt;
    }
}

/* The merged points: the list's entries below b0 (k0 of them), the
   profile itself at b0, then the entries above b0 (one at b0 is
   skipped: dup). */
typedef struct hs__merged_s {
    const hs_profile_t *p;
    uint64_t b0;
    size_t k0, dup, m;
} hs__merged_t;

static void hs__merge(const hs_profile_t *p, uint64_t b0, hs__merged_t *mg)
{
    size_t k = 0;

    while (k < p->n_points && p->points[k].batch < b0)
        k++;
    mg->p = p;
    mg->b0 = b0;
    mg->k0 = k;
    mg->dup = k < p->n_points && p->points[k].batch == b0;
    mg->m = p->n_points + 1 - mg->dup;
}

/* Point i of the merged list: its batch and its phase ph. */
static const hs_dist_t *hs__at(const hs__merged_t *mg, size_t i, int ph,
                               uint64_t *batch)
{
    const hs_batch_point_t *q;

    if (i == mg->k0) {
        *batch = mg->b0;
        return hs__ph(mg->p, ph);
    }
    q = &mg->p->points[i < mg->k0 ? i : i - 1 + mg->dup];
    *batch = q->batch;
    return hs__pt_ph(q, ph);
}

static int64_t hs__clamp_ns(long double t)
{
    if (!(t > 0))
        return 0;
    if (t >= (long double)HS_LIMIT_TIME_NS)
        return HS_LIMIT_TIME_NS;
    return (int64_t)llroundl(t);
}

/* The linear model's time: llround of the double product t0 f, clamped
   to the time limit. */
static int64_t hs__linear(int64_t t0_ns, double f)
{
    double t = (double)t0_ns * f;

    if (!(t > 0))
        return 0;
    if (t >= (double)HS_LIMIT_TIME_NS)
        return HS_LIMIT_TIME_NS;
    return (int64_t)llround(t);
}

/* Phase ph at batch b over the merged points (all known); sets the
   extrapolation and floor facts in *how. */
static int64_t hs__interp(const hs__merged_t *mg, int ph, uint64_t b,
                          hs_bscale_t *how)
{
    uint64_t bi, bp = 0, bl = 0, bh = 0;
    long double rm = 0, rp = 0, vl = 0, vh = 0, min_ps = -1, t;
    size_t i;
    int chosen = 0;

    for (i = 0; i < mg->m; i++) {
        const hs_dist_t *d = hs__at(mg, i, ph, &bi);
        long double v = (long double)d->mean_ns;

        rm = i == 0 || v > rm ? v : rm;          /* the running maximum */
        if (min_ps < 0 || rm / (long double)bi < min_ps)
            min_ps = rm / (long double)bi;
        if (i >= 1 && !chosen) {
            /* the first segment reaching b, else the last one */
            bl = bp;
            vl = rp;
            bh = bi;
            vh = rm;
            chosen = bi >= b;
        }
        bp = bi;
        rp = rm;
    }
    /* (bl, vl) .. (bh, vh): bl < bh, vl <= vh */
    t = vl + (vh - vl) * ((long double)b - (long double)bl) /
                 ((long double)bh - (long double)bl);
    if (b < bl) {
        long double floor_ns = (long double)b * min_ps;

        if (t < floor_ns) {
            t = floor_ns;
            how->floored = 1;
        }
    }
    return hs__clamp_ns(t);
}

void hs_profile_means_at_batch(const hs_profile_t *p, uint64_t b0,
                               uint64_t b, int64_t *means_ns,
                               hs_bscale_t *how)
{
    hs_bscale_t mine;
    hs__merged_t mg;
    uint64_t bi;
    double f = b0 > 0 ? (double)b / (double)b0 : 1.0;
    size_t i;
    int ph;

    if (how == NULL)
        how = &mine;
    memset(how, 0, sizeof *how);
    how->how_far = 1.0;
    hs__merge(p, b0, &mg);
    if (b0 == 0 || mg.m < 2) {
        how->model = HS_BSCALE_LINEAR;
        how->n_points = 1;
        how->lo = how->hi = b0;
        for (ph = 0; ph < HS_PH_OPT; ph++)
            means_ns[ph] = hs__linear(hs__ph(p, ph)->mean_ns, f);
        means_ns[HS_PH_OPT] = p->t_opt.mean_ns;
        return;
    }
    how->model = HS_BSCALE_POINTS;
    how->n_points = mg.m;
    hs__at(&mg, 0, HS_PH_FWD, &how->lo);
    hs__at(&mg, mg.m - 1, HS_PH_FWD, &how->hi);
    if (b < how->lo) {
        how->extrapolated = -1;
        how->how_far = (double)how->lo / (double)b;
    } else if (b > how->hi) {
        how->extrapolated = 1;
        how->how_far = (double)b / (double)how->hi;
    }
    for (ph = 0; ph < HS_PH_N; ph++) {
        int all = 1;

        for (i = 0; i < mg.m && all; i++)
            all = hs__at(&mg, i, ph, &bi)->known;
        if (all)
            means_ns[ph] = hs__interp(&mg, ph, b, how);
        else if (ph == HS_PH_OPT)
            means_ns[ph] = p->t_opt.mean_ns;
        else
            means_ns[ph] = hs__linear(hs__ph(p, ph)->mean_ns, f);
    }
    if (p->t_bwd.known && means_ns[HS_PH_B1] > means_ns[HS_PH_BWD])
        means_ns[HS_PH_B1] = means_ns[HS_PH_BWD];
}

/* Scales a distribution's spread and samples by f (its mean is set). */
static void hs__scale_dist(hs_dist_t *d, double f, int with_mean)
{
    size_t i;

    if (with_mean)
        d->mean_ns = (int64_t)llround((double)d->mean_ns * f);
    d->sd_ns = (int64_t)llround((double)d->sd_ns * f);
    for (i = 0; i < d->n_samples; i++)
        d->samples_ns[i] = (int64_t)llround((double)d->samples_ns[i] * f);
}

int hs_profile_at_batch(const hs_profile_t *p, uint64_t b0, uint64_t b,
                        hs_profile_t *out, hs_bscale_t *how)
{
    hs_bscale_t mine;
    int64_t means[HS_PH_N];
    double r[HS_PH_N], rb;
    size_t i;
    int ph;

    if (how == NULL)
        how = &mine;
    if (hs_profile_copy(out, p) != 0)
        return -1;
    hs_profile_means_at_batch(p, b0, b, means, how);
    if (how->model == HS_BSCALE_LINEAR) {
        /* the linear model: every distribution scaled by b / b0 */
        double f = b0 > 0 ? (double)b / (double)b0 : 1.0;

        hs__scale_dist(&out->t_dl, f, 1);
        hs__scale_dist(&out->t_fwd, f, 1);
        hs__scale_dist(&out->t_b1, f, 1);
        hs__scale_dist(&out->t_bwd, f, 1);
        for (i = 0; i < out->n_fwd_ops; i++)
            out->fwd_ops_ns[i] =
                (int64_t)llround((double)out->fwd_ops_ns[i] * f);
        for (i = 0; i < out->n_buckets; i++)
            out->buckets[i].ready_ns =
                (int64_t)llround((double)out->buckets[i].ready_ns * f);
        return 0;
    }
    for (ph = 0; ph < HS_PH_N; ph++) {
        hs_dist_t *d = (hs_dist_t *)hs__ph(out, ph);

        r[ph] = d->mean_ns > 0 ? (double)means[ph] / (double)d->mean_ns
                               : 1.0;
        hs__scale_dist(d, r[ph], 0);
        d->mean_ns = means[ph];
    }
    for (i = 0; i < out->n_fwd_ops; i++)
        out->fwd_ops_ns[i] =
            (int64_t)llround((double)out->fwd_ops_ns[i] * r[HS_PH_FWD]);
    rb = p->t_bwd.known ? r[HS_PH_BWD] : r[HS_PH_B1];
    for (i = 0; i < out->n_buckets; i++)
        out->buckets[i].ready_ns =
            (int64_t)llround((double)out->buckets[i].ready_ns * rb);
    return 0;
}

void hs_bscale_describe(const hs_bscale_t *how, uint64_t b0, uint64_t b,
                        char *buf, size_t len)
{
    int n;

    if (how->model == HS_BSCALE_LINEAR) {
        snprintf(buf, len, "linear from one profile at batch %llu",
                 (unsigned long long)b0);
        return;
    }
    n = snprintf(buf, len, "interpolated over %zu points (batch %llu..%llu)",
                 how->n_points, (unsigned long long)how->lo,
                 (unsigned long long)how->hi);
    if (n < 0 || (size_t)n >= len)
        return;
    if (how->extrapolated > 0)
        snprintf(buf + n, len - (size_t)n,
                 ", extrapolated above %llu to %llu (%.2fx the largest)",
                 (unsigned long long)how->hi, (unsigned long long)b,
                 how->how_far);
    else if (how->extrapolated < 0)
        snprintf(buf + n, len - (size_t)n,
                 ", extrapolated below %llu to %llu (1/%.2f of the "
                 "smallest)%s",
                 (unsigned long long)how->lo, (unsigned long long)b,
                 how->how_far,
                 how->floored ? ", floored at the smallest per-sample time"
                              : "");
}
