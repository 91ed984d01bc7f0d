/* hs_batchopt.c -- per-type batch balancing (hs_batchopt.h). */
#include "hs_batchopt.h"

#include <stdlib.h>
#include <string.h>

typedef struct hs__bo_s {
    hs_batchopt_time_fn f;
    void *ctx;
    uint64_t evals;
    hs_error_t *err;
    const uint64_t *mmax;   /* per type: the largest (micro-)batch */
    const uint32_t *micro;  /* per type: the most micro-batches; NULL: 1 */
} hs__bo_t;

uint64_t hs_batchopt_micro_count(uint64_t b, uint64_t max_batch)
{
    return b <= max_batch ? 1 : (b + max_batch - 1) / max_batch;
}

int hs_batchopt_micro_ok(uint64_t b, uint64_t max_batch, uint32_t max_micro)
{
    uint64_t v = hs_batchopt_micro_count(b, max_batch);

    return b >= 1 && v <= (max_micro < 1 ? 1 : max_micro) && b % v == 0;
}

uint64_t hs_batchopt_micro_floor(uint64_t x, uint64_t max_batch,
                                 uint32_t max_micro)
{
    uint64_t m = max_micro < 1 ? 1 : max_micro, v, y;

    if (x <= max_batch)
        return x;
    if (max_batch > UINT32_MAX)     /* no per-step batch reaches it */
        return max_batch;
    if (x > max_batch * m)
        x = max_batch * m;
    v = hs_batchopt_micro_count(x, max_batch);
    y = x - x % v;      /* the largest multiple of v up to x */
    return y > (v - 1) * max_batch ? y : (v - 1) * max_batch;
}

/* Type t's largest per-step batch, and the largest allowed one <= x. */
static uint64_t hs__top(const hs__bo_t *bo, size_t t)
{
    /* a limit beyond 2^32 samples never binds: no product overflows */
    return bo->micro == NULL || bo->mmax[t] > UINT32_MAX
               ? bo->mmax[t]
               : bo->mmax[t] * (bo->micro[t] < 1 ? 1 : bo->micro[t]);
}

static uint64_t hs__floor(const hs__bo_t *bo, size_t t, uint64_t x)
{
    return bo->micro == NULL
               ? (x < bo->mmax[t] ? x : bo->mmax[t])
               : hs_batchopt_micro_floor(x, bo->mmax[t], bo->micro[t]);
}

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
        caps[t] = hs__floor(bo, t, caps[t]);
        if (caps[t] == 0) {
            *sum = 0;
            return HS_OK;
        }
        *sum += count[t] * caps[t];
    }
    return HS_OK;
}

/* val(i) of the previous type's reach (the first type: 0 alone). */
static unsigned char hs__val(const unsigned char *prev, uint64_t i)
{
    return prev != NULL ? prev[i] : i == 0;
}

/* cur[s] |= some prev[s - step m], m in [lo, hi]: a sliding window along
   each residue class of s mod step, kept as a running count. */
static void hs__piece(unsigned char *cur, const unsigned char *prev,
                      uint64_t G, uint64_t step, uint64_t lo, uint64_t hi)
{
    uint64_t r, s, k;

    for (r = 0; r < step && r <= G; r++) {
        uint64_t win = 0;   /* reachable prev values in the window */

        for (s = r, k = 0; s <= G; s += step, k++) {
            /* the window for s = r + k step: indices k - hi .. k - lo */
            if (k >= lo)
                win += hs__val(prev, r + (k - lo) * step);
            if (k >= hi + 1)
                win -= hs__val(prev, r + (k - hi - 1) * step);
            if (win > 0)
                cur[s] = 1;
        }
    }
}

/*
 * Can allowed batches b_t in [1, caps[t]] make sum_t c_t b_t == G
 * exactly?  A bounded subset sum over 0..G: reach_t[s] says the first
 * t+1 types can make s.  Type t adds c_t b for b in 1..min(cap_t, its
 * largest batch) and, with micro-batches, c_t V m for each count V >= 2
 * and micro-batch m with ceil(V m / max) = V: one sliding window per
 * count, O(G) each.  reach holds n (G+1) bytes; when it can, the batches
 * are read back into out.
 */
static int hs__exact(const hs__bo_t *bo, size_t n, const uint64_t *c,
                     const uint64_t *caps, uint64_t G, unsigned char *reach,
                     uint64_t *out)
{
    size_t t;
    uint64_t s, b, v;

    for (t = 0; t < n; t++) {
        unsigned char *cur = reach + t * (G + 1);
        const unsigned char *prev = t > 0 ? reach + (t - 1) * (G + 1) : NULL;
        uint64_t mx = bo->mmax[t], nv = bo->micro != NULL ? bo->micro[t] : 1;

        memset(cur, 0, G + 1);
        hs__piece(cur, prev, G, c[t], 1, caps[t] < mx ? caps[t] : mx);
        for (v = 2; v <= nv && (v - 1) * mx < caps[t]; v++) {
            uint64_t lo = (v - 1) * mx / v + 1, hi = caps[t] / v;

            if (hi > mx)
                hi = mx;
            if (lo <= hi)
                hs__piece(cur, prev, G, c[t] * v, lo, hi);
        }
    }
    if (!reach[(n - 1) * (G + 1) + G])
        return 0;
    /* read the batches back, last type first */
    s = G;
    for (t = n; t-- > 0;) {
        for (b = hs__floor(bo, t, caps[t]); b >= 1;
             b = hs__floor(bo, t, b - 1)) {
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
            hs__exact(bo, n_types, count, caps, global_batch, reach,
                      batch_out))
            hi = mid;
        else
            lo = mid + 1;
    }
    if ((rc = hs__sum_at(bo, n_types, count, max_batch, lo, caps,
                         &sum)) != HS_OK)
        return rc;
    hs__exact(bo, n_types, count, caps, global_batch, reach, batch_out);
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

        uint64_t nb[2] = {0, 0};    /* best's batch below, and delta */

        for (t = 0; t < n_types; t++) {
            uint64_t below = batch_out[t] > 1
                                 ? hs__floor(bo, t, batch_out[t] - 1)
                                 : 0;

            if (batch_out[t] <= 1 ||
                count[t] * (batch_out[t] - below) > *excess)
                continue;
            if ((rc = hs__t(bo, t, batch_out[t], &v)) != HS_OK)
                return rc;
            if (v > best_v) {
                best_v = v;
                best = t;
                nb[0] = below;
                nb[1] = count[t] * (batch_out[t] - below);
            }
        }
        if (best == n_types)
            break;
        batch_out[best] = nb[0];
        *excess -= nb[1];
    }
    return HS_OK;
}

hs_err_t hs_batchopt_solve(size_t n_types, const uint64_t *count,
                           const uint64_t *max_batch, uint64_t global_batch,
                           hs_batchopt_time_fn time_fn, void *ctx,
                           uint64_t *batch_out, hs_batchopt_result_t *res,
                           hs_error_t *err)
{
    return hs_batchopt_solve_micro(n_types, count, max_batch, NULL,
                                   global_batch, time_fn, ctx, batch_out,
                                   res, err);
}

hs_err_t hs_batchopt_solve_micro(size_t n_types, const uint64_t *count,
                                 const uint64_t *max_batch,
                                 const uint32_t *max_micro,
                                 uint64_t global_batch,
                                 hs_batchopt_time_fn time_fn, void *ctx,
                                 uint64_t *batch_out,
                                 hs_batchopt_result_t *res, hs_error_t *err)
{
    hs__bo_t bo = {time_fn, ctx, 0, err, max_batch, max_micro};
    uint64_t excess = 0, *caps = NULL, *top = NULL;
    unsigned char *reach = NULL;
    int64_t lo = INT64_MIN, hi = INT64_MIN, v;
    size_t t;
    hs_err_t rc;

    if ((top = malloc((n_types ? n_types : 1) * sizeof *top)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "batch balancing: out of "
                             "memory");
    for (t = 0; t < n_types; t++)
        top[t] = hs__top(&bo, t);
    if ((rc = hs__tau_range(&bo, n_types, count, top, global_batch, &lo,
                            &hi, err)) != HS_OK)
        goto done;
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
        caps[t] = top[t];
    if (hs__exact(&bo, n_types, count, caps, global_batch, reach, batch_out))
        rc = hs__solve_exact(&bo, n_types, count, top, global_batch, lo,
                             hi, caps, reach, batch_out);
    else
        rc = hs__solve_over(&bo, n_types, count, top, global_batch, lo, hi,
                            batch_out, &excess);
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
    free(top);
    return rc;
}
