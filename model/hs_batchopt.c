/* hs_batchopt.c -- per-type batch balancing (hs_batchopt.h). */
#include "hs_batchopt.h"

#include <stdlib.h>
#include <string.h>

typedef struct hs__bo_s {
    hs_batchopt_time_fn f;
    void *ctx;
    uint64_t evals;
    hs_error_t *err;
} hs__bo_t;

static hs_err_t hs__t(hs__bo_t *bo, size_t t, uint64_t b, int64_t *ns)
{
    bo->evals++;
    return bo->f(bo->ctx, t, b, ns, bo->err);
}

/* The largest b in [1, maxb] with T_t(b) <= tau, 0 when even b = 1 is
   slower. */
static hs_err_t hs__cap(hs__bo_t *bo, size_t t, uint64_t maxb, int64_t tau,
                        uint64_t *cap)
{
    uint64_t lo = 1, hi = maxb;
    int64_t v;
    hs_err_t rc;

    if ((rc = hs__t(bo, t, 1, &v)) != HS_OK)
        return rc;
    if (v > tau) {
        *cap = 0;
        return HS_OK;
    }
    while (lo < hi) {           /* T_t(lo) <= tau holds */
        uint64_t mid = lo + (hi - lo + 1) / 2;

        if ((rc = hs__t(bo, t, mid, &v)) != HS_OK)
            return rc;
        if (v <= tau)
            lo = mid;
        else
            hi = mid - 1;
    }
    *cap = lo;
    return HS_OK;
}

/* Samples per step when every type takes its cap at tau; 0 when some
   type cannot take even 1. */
static hs_err_t hs__sum_at(hs__bo_t *bo, size_t n, const uint64_t *count,
                           const uint64_t *maxb, int64_t tau, uint64_t *caps,
                           uint64_t *sum)
{
    size_t t;
    hs_err_t rc;

    *sum = 0;
    for (t = 0; t < n; t++) {
        if ((rc = hs__cap(bo, t, maxb[t], tau, &caps[t])) != HS_OK)
            return rc;
        if (caps[t] == 0) {
            *sum = 0;
            return HS_OK;
        }
        *sum += count[t] * caps[t];
    }
    return HS_OK;
}

/*
 * Can batches b_t in [1, caps[t]] make sum_t c_t b_t == G exactly?  A
 * bounded subset sum over 0..G: reach_t[s] says the first t+1 types can
 * make s.  Type t adds c_t b for b in 1..cap_t, so reach_t[s] is "some
 * reach_{t-1}[s - c_t b]", a sliding window along s's residue class mod
 * c_t, kept as a running count: O(G) per type.  reach holds n (G+1)
 * bytes; when it can, the batches are read back into out.
 */
static int hs__exact(size_t n, const uint64_t *c, const uint64_t *caps,
                     uint64_t G, unsigned char *reach, uint64_t *out)
{
    size_t t;
    uint64_t s, r, b;

    for (t = 0; t < n; t++) {
        unsigned char *cur = reach + t * (G + 1);
        const unsigned char *prev = t > 0 ? reach + (t - 1) * (G + 1) : NULL;

        memset(cur, 0, G + 1);
        for (r = 0; r < c[t] && r <= G; r++) {
            uint64_t win = 0;   /* reachable prev values in the window */

            for (s = r; s <= G; s += c[t]) {
                uint64_t k = (s - r) / c[t];    /* s = r + k c_t */
                /* the window for s: prev[s - c_t b], b = 1..cap */
                if (k >= 1)
                    win += prev != NULL ? prev[s - c[t]] : (s - c[t] == 0);
                if (k >= caps[t] + 1) {
                    uint64_t drop = s - c[t] * (caps[t] + 1);

                    win -= prev != NULL ? prev[drop] : (drop == 0);
                }
                cur[s] = win > 0;
            }
        }
    }
    if (!reach[(n - 1) * (G + 1) + G])
        return 0;
    /* read the batches back, last type first */
    s = G;
    for (t = n; t-- > 0;) {
        for (b = caps[t]; b >= 1; b--) {
            uint64_t rest;

            if (c[t] * b > s)
                continue;
            rest = s - c[t] * b;
            if (t == 0 ? rest == 0 : reach[(t - 1) * (G + 1) + rest])
                break;
        }
        out[t] = b;
        s -= c[t] * b;
    }
    return 1;
}

/* Refuses no types, a type without devices or batches, or a global
   batch outside [one sample per device, every largest batch]; the
   range [*lo, *hi] of tau: the largest time at batch 1 and at the
   largest batch. */
static hs_err_t hs__tau_range(hs__bo_t *bo, size_t n_types,
                              const uint64_t *count,
                              const uint64_t *max_batch,
                              uint64_t global_batch, int64_t *lo,
                              int64_t *hi, hs_error_t *err)
{
    uint64_t lo_sum = 0, hi_sum = 0;
    int64_t v;
    size_t t;
    hs_err_t rc;

    if (n_types == 0)
        return hs_error_setf(err, HS_ERR_RANGE, "batch balancing: no "
                             "device types");
    for (t = 0; t < n_types; t++) {
        if (count[t] == 0 || max_batch[t] == 0)
            return hs_error_setf(err, HS_ERR_RANGE, "batch balancing: type "
                                 "%zu has no devices or a largest batch of "
                                 "0", t);
        lo_sum += count[t];
        hi_sum += count[t] * max_batch[t];
        if ((rc = hs__t(bo, t, 1, &v)) != HS_OK)
            return rc;
        if (v > *lo)
            *lo = v;
        if ((rc = hs__t(bo, t, max_batch[t], &v)) != HS_OK)
            return rc;
        if (v > *hi)
            *hi = v;
    }
    if (global_batch < lo_sum)
        return hs_error_setf(err, HS_ERR_RANGE, "batch balancing: a global "
                             "batch of %llu is less than one sample per "
                             "device (%llu devices)",
                             (unsigned long long)global_batch,
                             (unsigned long long)lo_sum);
    if (global_batch > hi_sum)
        return hs_error_setf(err, HS_ERR_RANGE, "batch balancing: a global "
                             "batch of %llu does not fit the largest "
                             "batches (at most %llu samples per step)",
                             (unsigned long long)global_batch,
                             (unsigned long long)hi_sum);
    return HS_OK;
}

/* G made exactly (the counts allow it): the least tau in [lo, hi] whose
   caps can make G (feasibility only grows with tau), its batches in
   batch_out. */
static hs_err_t hs__solve_exact(hs__bo_t *bo, size_t n_types,
                                const uint64_t *count,
                                const uint64_t *max_batch,
                                uint64_t global_batch, int64_t lo,
                                int64_t hi, uint64_t *caps,
                                unsigned char *reach, uint64_t *batch_out)
{
    uint64_t sum;
    hs_err_t rc;

    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;

        if ((rc = hs__sum_at(bo, n_types, count, max_batch, mid, caps,
                             &sum)) != HS_OK)
            return rc;
        if (sum >= global_batch &&
            hs__exact(n_types, count, caps, global_batch, reach,
                      batch_out))
            hi = mid;
        else
            lo = mid + 1;
    }
    if ((rc = hs__sum_at(bo, n_types, count, max_batch, lo, caps,
                         &sum)) != HS_OK)
        return rc;
    hs__exact(n_types, count, caps, global_batch, reach, batch_out);
    return HS_OK;
}

/* G cannot be made: the least tau in [lo, hi] whose caps pass G, then
   the excess removed from the slowest types first; what is left over in
   *excess. */
static hs_err_t hs__solve_over(hs__bo_t *bo, size_t n_types,
                               const uint64_t *count,
                               const uint64_t *max_batch,
                               uint64_t global_batch, int64_t lo, int64_t hi,
                               uint64_t *batch_out, uint64_t *excess)
{
    uint64_t sum;
    int64_t v;
    size_t t;
    hs_err_t rc;

    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;

        if ((rc = hs__sum_at(bo, n_types, count, max_batch, mid,
                             batch_out, &sum)) != HS_OK)
            return rc;
        if (sum >= global_batch)
            hi = mid;
        else
            lo = mid + 1;
    }
    if ((rc = hs__sum_at(bo, n_types, count, max_batch, lo, batch_out,
                         &sum)) != HS_OK)
        return rc;
    *excess = sum - global_batch;
    while (*excess > 0) {
        size_t best = n_types;
        int64_t best_v = INT64_MIN;

        for (t = 0; t < n_types; t++) {
            if (batch_out[t] <= 1 || count[t] > *excess)
                continue;
            if ((rc = hs__t(bo, t, batch_out[t], &v)) != HS_OK)
                return rc;
            if (v > best_v) {
                best_v = v;
                best = t;
            }
        }
        if (best == n_types)
            break;
        batch_out[best]--;
        *excess -= count[best];
    }
    return HS_OK;
}

hs_err_t hs_batchopt_solve(size_t n_types, const uint64_t *count,
                           const uint64_t *max_batch, uint64_t global_batch,
                           hs_batchopt_time_fn time_fn, void *ctx,
                           uint64_t *batch_out, hs_batchopt_result_t *res,
                           hs_error_t *err)
{
    hs__bo_t bo = {time_fn, ctx, 0, err};
    uint64_t excess = 0, *caps = NULL;
    unsigned char *reach = NULL;
    int64_t lo = INT64_MIN, hi = INT64_MIN, v;
    size_t t;
    hs_err_t rc;

    if ((rc = hs__tau_range(&bo, n_types, count, max_batch, global_batch,
                            &lo, &hi, err)) != HS_OK)
        return rc;
    /* Exactly G where the counts allow it: the least tau whose caps
       can make G (feasibility only grows with tau). */
    reach = malloc(n_types * (size_t)(global_batch + 1));
    caps = malloc(n_types * sizeof *caps);
    if (reach == NULL || caps == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "batch balancing: out of "
                           "memory");
        goto done;
    }
    for (t = 0; t < n_types; t++)
        caps[t] = max_batch[t];
    if (hs__exact(n_types, count, caps, global_batch, reach, batch_out))
        rc = hs__solve_exact(&bo, n_types, count, max_batch, global_batch,
                             lo, hi, caps, reach, batch_out);
    else
        rc = hs__solve_over(&bo, n_types, count, max_batch, global_batch,
                            lo, hi, batch_out, &excess);
    if (rc != HS_OK)
        goto done;
    res->global_batch = global_batch + excess;
    res->step_ns = INT64_MIN;
    for (t = 0; t < n_types; t++) {
        if ((rc = hs__t(&bo, t, batch_out[t], &v)) != HS_OK)
            goto done;
        if (v > res->step_ns)
            res->step_ns = v;
    }
    res->evals = bo.evals;
done:
    free(reach);
    free(caps);
    return rc;
}
