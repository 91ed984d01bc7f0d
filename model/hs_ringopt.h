/*
 * hs_ringopt.h -- choosing the ring order (hetsim advise ring).
 *
 * NCCL and gloo build the ring in rank order, so the order is the user's
 * to choose.  The closed form gives device i, followed in the ring by j,
 * the step T(i) = max(t_dl(i), pre(i) + 2(N-1)(lat(i,j) + M_i/(N B(i,j))))
 * (docs/method.md, S400): the cost of the ring edge i -> j, w(i, j), depends
 * on the sender and the edge.  The cluster's step is the largest edge
 * cost of the ring, so the search is an asymmetric bottleneck travelling
 * salesman problem.  Orders are compared lexicographically: the largest
 * edge cost first (the closed form's step), then the sum of all edge
 * costs (an order whose other devices finish earlier gives the replay
 * less to wait for).  The replay, which sees late devices hold their
 * neighbours, confirms the best candidates (hs_advise.c does that).
 *
 * The search is exact for small rings: the bottleneck is found by a
 * binary search over the distinct edge costs, each step asking whether a
 * Hamiltonian cycle exists on the edges at most that cost (a dynamic
 * programme over subsets, O(2^n n^2)); then the sum is minimised over
 * those edges (Held-Karp, same cost).  Beyond HS_RINGOPT_EXACT_MAX
 * devices it is a heuristic: the best of the caller's starting orders
 * (given, grouped, interleaved) and a greedy nearest-neighbour tour,
 * improved by swapping two devices and moving one device elsewhere
 * while the (max, sum) pair improves.  It is never worse than any
 * starting order.  Its stated bound: every device must send to one
 * device and receive from one, so no order beats
 *   LB = max( max_i min_{j != i} w(i,j),  max_j min_{i != j} w(i,j) );
 * the result reports LB and the gap to it (0: provably optimal).
 *
 * Costs come from a callback, so no N x N table is needed; when
 * n <= HS_RINGOPT_CACHE_MAX they are cached in one n x n array (8 n^2
 * bytes) because the searches ask for each many times.
 */
#ifndef HS_RINGOPT_H
#define HS_RINGOPT_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_progress.h"

#define HS_RINGOPT_EXACT_MAX 16   /* largest n the exact search takes */
#define HS_RINGOPT_CACHE_MAX 2048 /* largest n whose costs are cached */

/* The cost of edge i -> j (i != j) into *cost_ns; HS_OK, or an error
   (e.g. no bandwidth for that pair), which stops the search. */
typedef hs_err_t (*hs_ringopt_cost_fn)(void *ctx, uint32_t i, uint32_t j,
                                       int64_t *cost_ns, hs_error_t *err);

typedef struct hs_ringopt_result_s {
    uint32_t n;
    uint32_t *order;        /* the best order found: n device indices */
    int64_t max_ns;         /* its largest edge cost (closed-form step) */
    int64_t sum_ns;         /* the sum of its edge costs */
    int64_t lower_bound_ns; /* LB above; max_ns >= LB */
    int exact;              /* 1: exact search (optimal for (max, sum)) */
    size_t start_index;     /* which starting order the heuristic began
                               from (n_starts: the greedy tour) */
    uint64_t cost_calls;    /* callback calls made */
    uint64_t moves;         /* improving moves taken (heuristic) */
} hs_ringopt_result_t;

/*
 * Finds a ring order of devices 0..n-1 (n >= 2) minimising (max, sum) of
 * the edge costs cost(ctx, order[k], order[k+1 mod n]).  starts holds
 * n_starts candidate orders (each a permutation of 0..n-1; may be NULL
 * when n_starts is 0); the result is never worse than any of them.
 * exact_max caps the exact search (0: HS_RINGOPT_EXACT_MAX; larger
 * values are clamped to it); max_moves caps the heuristic's improving
 * moves (0: no cap).  On success stores a new result in *out (free with
 * hs_ringopt_result_free).  Fails with HS_ERR_RANGE (n < 2 or a start
 * that is no permutation), HS_ERR_NOMEM, or the callback's error.
 */
hs_err_t hs_ringopt_search(uint32_t n, hs_ringopt_cost_fn cost, void *ctx,
                           const uint32_t *const *starts, size_t n_starts,
                           uint32_t exact_max, uint64_t max_moves,
                           hs_ringopt_result_t **out, hs_error_t *err);

/*
 * hs_ringopt_search, telling progress (may be NULL) how far the search
 * is: the heuristic's pass over the devices (done of n, the best
 * largest edge cost so far), the exact search's threshold steps.
 */
hs_err_t hs_ringopt_search_x(uint32_t n, hs_ringopt_cost_fn cost, void *ctx,
                             const uint32_t *const *starts, size_t n_starts,
                             uint32_t exact_max, uint64_t max_moves,
                             hs_progress_fn progress, void *pctx,
                             hs_ringopt_result_t **out, hs_error_t *err);

/*
 * The (max, sum) of the edge costs of order (n devices) into *max_ns and
 * *sum_ns (either may be NULL).  HS_OK or the callback's error.
 */
hs_err_t hs_ringopt_eval(uint32_t n, const uint32_t *order,
                         hs_ringopt_cost_fn cost, void *ctx,
                         int64_t *max_ns, int64_t *sum_ns, hs_error_t *err);

/* Releases r and what it owns.  r may be NULL. */
void hs_ringopt_result_free(hs_ringopt_result_t *r);

#endif
