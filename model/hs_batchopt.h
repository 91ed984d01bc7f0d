/*
 * hs_batchopt.h -- per-type batch sizes that even out the devices'
 * compute (hetsim advise batch).
 *
 * Devices of different types take different times per step; with the same
 * batch everywhere the fast ones wait at the ring.  Given, per type t, its
 * device count c_t, a largest batch it may take (its memory limit) and a
 * step-time function T_t(b) that does not decrease with b (the closed form
 * with the type's profile scaled to batch b: hs_advise.c supplies it), find
 * whole batches b_t >= 1 with sum_t c_t b_t = G (the global batch, which
 * the optimisation's convergence depends on) minimising max_t T_t(b_t).
 *
 * Method: the least threshold tau for which the largest batches with
 * T_t(b) <= tau add up to at least G is found by bisection on tau (each
 * cap_t(tau) by bisection on b); then the excess over G is removed one
 * sample per device at a time from the type whose time is largest, which
 * never raises the maximum.  When the counts cannot make G exactly (the
 * excess left is smaller than every count that could still shrink), the
 * result says which global batch it reached instead.
 */
#ifndef HS_BATCHOPT_H
#define HS_BATCHOPT_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"

/* T_t(b) into *ns; HS_OK or an error that stops the search. */
typedef hs_err_t (*hs_batchopt_time_fn)(void *ctx, size_t t, uint64_t b,
                                        int64_t *ns, hs_error_t *err);

typedef struct hs_batchopt_result_s {
    uint64_t global_batch;  /* sum_t c_t b_t reached: G, or the nearest
                               above it the counts allow */
    int64_t step_ns;        /* max_t T_t(b_t) */
    uint64_t evals;         /* calls of the time function */
} hs_batchopt_result_t;

/*
 * Solves the problem above for n_types types: count[t] >= 1 devices,
 * max_batch[t] >= 1, global batch G.  Writes the batches into
 * batch_out[0..n_types) (caller-owned) and the figures into *res.  Fails
 * with HS_ERR_RANGE (naming the bound) when G < sum c_t or
 * G > sum c_t max_batch[t], or with the time function's error.
 */
hs_err_t hs_batchopt_solve(size_t n_types, const uint64_t *count,
                           const uint64_t *max_batch, uint64_t global_batch,
                           hs_batchopt_time_fn time_fn, void *ctx,
                           uint64_t *batch_out, hs_batchopt_result_t *res,
                           hs_error_t *err);

/*
 * With gradient accumulation: as hs_batchopt_solve, max_batch[t] being
 * the largest batch one device holds at once (its memory limit) and
 * max_micro[t] (NULL: 1 each) the most micro-batches it may split a step
 * into.  A per-step batch b above max_batch[t] is V = ceil(b / max) equal
 * micro-batches of b / V samples (hs_batchopt_micro_count), so it is
 * allowed only when V divides it and V <= max_micro[t]: a remainder is
 * never split unevenly, the search takes the neighbouring allowed batches
 * instead (hs_batchopt_micro_ok).  T_t(b) is asked of every b up to
 * max_batch[t] max_micro[t] and must not decrease with b; only allowed
 * batches are returned.  With max_micro NULL or all 1 the result is
 * hs_batchopt_solve's, call for call.
 */
hs_err_t hs_batchopt_solve_micro(size_t n_types, const uint64_t *count,
                                 const uint64_t *max_batch,
                                 const uint32_t *max_micro,
                                 uint64_t global_batch,
                                 hs_batchopt_time_fn time_fn, void *ctx,
                                 uint64_t *batch_out,
                                 hs_batchopt_result_t *res, hs_error_t *err);

/* The micro-batches of a per-step batch b on a device that holds
   max_batch at once: ceil(b / max_batch), 1 when b fits. */
uint64_t hs_batchopt_micro_count(uint64_t b, uint64_t max_batch);

/* 1 when per-step batch b >= 1 is V = hs_batchopt_micro_count equal
   micro-batches with V <= max_micro (0 taken as 1), else 0. */
int hs_batchopt_micro_ok(uint64_t b, uint64_t max_batch, uint32_t max_micro);

/* The largest allowed per-step batch <= x (hs_batchopt_micro_ok), x
   itself when x <= max_batch; 0 when x is 0. */
uint64_t hs_batchopt_micro_floor(uint64_t x, uint64_t max_batch,
                                 uint32_t max_micro);

#endif
