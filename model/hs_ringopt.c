/* hs_ringopt.c -- ring-order search (hs_ringopt.h: the essay is there). */
#include "hs_ringopt.h"

#include <stdlib.h>
#include <string.h>

/* The search's context: the callback and an optional n x n cache. */
typedef struct hs__ro_s {
    uint32_t n;
    hs_ringopt_cost_fn cost;
    void *ctx;
    int64_t *cache;     /* n*n, INT64_MIN = not asked yet; may be NULL */
    uint64_t calls;
    hs_error_t *err;
    hs_progress_fn progress;    /* may be NULL */
    void *pctx;
} hs__ro_t;

static hs_err_t hs__w(hs__ro_t *ro, uint32_t i, uint32_t j, int64_t *out)
{
    hs_err_t rc;
    int64_t *slot = ro->cache != NULL ? &ro->cache[(size_t)i * ro->n + j]
                                      : NULL;

    if (slot != NULL && *slot != INT64_MIN) {
        *out = *slot;
        return HS_OK;
    }
    ro->calls++;
    rc = ro->cost(ro->ctx, i, j, out, ro->err);
    if (rc != HS_OK)
        return rc;
    if (slot != NULL)
        *slot = *out;
    return HS_OK;
}

/* (max, sum) of an order into *mx, *sm. */
static hs_err_t hs__eval(hs__ro_t *ro, const uint32_t *o, int64_t *mx,
                         int64_t *sm)
{
    uint32_t k;
    int64_t m = INT64_MIN, s = 0, w;
    hs_err_t rc;

    for (k = 0; k < ro->n; k++) {
        rc = hs__w(ro, o[k], o[k + 1 == ro->n ? 0 : k + 1], &w);
        if (rc != HS_OK)
            return rc;
        if (w > m)
            m = w;
        s += w;
    }
    *mx = m;
    *sm = s;
    return HS_OK;
}

/* 1 when (m1, s1) is strictly better than (m2, s2). */
static int hs__better(int64_t m1, int64_t s1, int64_t m2, int64_t s2)
{
    return m1 < m2 || (m1 == m2 && s1 < s2);
}

static int hs__is_perm(const uint32_t *o, uint32_t n, unsigned char *seen)
{
    uint32_t k;

    memset(seen, 0, n);
    for (k = 0; k < n; k++) {
        if (o[k] >= n || seen[o[k]])
            return 0;
        seen[o[k]] = 1;
    }
    return 1;
}

/* ---- the lower bound ------------------------------------------------ */

static hs_err_t hs__lower_bound(hs__ro_t *ro, int64_t *lb)
{
    uint32_t n = ro->n, i, j;
    int64_t *min_in, best = INT64_MIN, w;
    hs_err_t rc = HS_OK;

    min_in = malloc((size_t)n * sizeof *min_in);
    if (min_in == NULL)
        return hs_error_setf(ro->err, HS_ERR_NOMEM, "ring search: out of "
                             "memory");
    for (j = 0; j < n; j++)
        min_in[j] = INT64_MAX;
    for (i = 0; i < n && rc == HS_OK; i++) {
        int64_t min_out = INT64_MAX;

        for (j = 0; j < n; j++) {
            if (j == i)
                continue;
            if ((rc = hs__w(ro, i, j, &w)) != HS_OK)
                break;
            if (w < min_out)
                min_out = w;
            if (w < min_in[j])
                min_in[j] = w;
        }
        if (min_out > best)
            best = min_out;
    }
    for (j = 0; j < n && rc == HS_OK; j++)
        if (min_in[j] > best)
            best = min_in[j];
    free(min_in);
    *lb = best;
    return rc;
}

/* ---- the exact search ------------------------------------------------ */

/*
 * Dynamic programmes over subsets S of {1..n-1} with the cycle rooted at
 * device 0: reach[S][j] = a path from 0 through S ending at j (j in S),
 * using only edges with cost <= thr.  The sum variant keeps the least
 * sum of such a path instead.  w is the dense n x n cost table.
 */
static int hs__ham(const int64_t *w, uint32_t n, int64_t thr,
                   unsigned char *reach)
{
    uint32_t m = n - 1, full = (1u << m) - 1, S, j, k;

    memset(reach, 0, (size_t)(full + 1) * m);
    for (j = 0; j < m; j++)
        if (w[j + 1] <= thr)
            reach[(1u << j) * m + j] = 1;
    for (S = 1; S <= full; S++)
        for (j = 0; j < m; j++) {
            if (!reach[(size_t)S * m + j])
                continue;
            for (k = 0; k < m; k++)
                if (!(S & (1u << k)) &&
                    w[(size_t)(j + 1) * n + (k + 1)] <= thr)
                    reach[(size_t)(S | (1u << k)) * m + k] = 1;
        }
    for (j = 0; j < m; j++)
        if (reach[(size_t)full * m + j] && w[(size_t)(j + 1) * n] <= thr)
            return 1;
    return 0;
}

static int hs__cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* The least-sum cycle on edges <= thr into order; returns its sum. */
static int64_t hs__held_karp(const int64_t *w, uint32_t n, int64_t thr,
                             int64_t *dp, uint32_t *order)
{
    uint32_t m = n - 1, full = (1u << m) - 1, S, j, k, last = 0;
    int64_t best = INT64_MAX;

    for (S = 0; S <= full; S++)
        for (j = 0; j < m; j++)
            dp[(size_t)S * m + j] = INT64_MAX;
    for (j = 0; j < m; j++)
        if (w[j + 1] <= thr)
            dp[(size_t)(1u << j) * m + j] = w[j + 1];
    for (S = 1; S <= full; S++)
        for (j = 0; j < m; j++) {
            int64_t v = dp[(size_t)S * m + j];

            if (v == INT64_MAX)
                continue;
            for (k = 0; k < m; k++) {
                int64_t e = w[(size_t)(j + 1) * n + (k + 1)];
                size_t t = (size_t)(S | (1u << k)) * m + k;

                if (!(S & (1u << k)) && e <= thr && v + e < dp[t])
                    dp[t] = v + e;
            }
        }
    for (j = 0; j < m; j++) {
        int64_t v = dp[(size_t)full * m + j], e = w[(size_t)(j + 1) * n];

        if (v != INT64_MAX && e <= thr && v + e < best) {
            best = v + e;
            last = j;
        }
    }
    /* walk back from the last device */
    S = full;
    order[0] = 0;
    for (k = m; k >= 1; k--) {
        uint32_t prev = m, p;
        int64_t v = dp[(size_t)S * m + last];

        order[k] = last + 1;
        S &= ~(1u << last);
        if (S == 0)
            break;
        for (p = 0; p < m; p++) {
            int64_t e = w[(size_t)(p + 1) * n + (last + 1)];

            if ((S & (1u << p)) && dp[(size_t)S * m + p] != INT64_MAX &&
                e <= thr && dp[(size_t)S * m + p] + e == v) {
                prev = p;
                break;
            }
        }
        last = prev;
    }
    return best;
}

static hs_err_t hs__exact(hs__ro_t *ro, hs_ringopt_result_t *r)
{
    uint32_t n = ro->n, i, j;
    size_t n_w = (size_t)n * n, n_c = 0, lo, hi;
    int64_t *w = NULL, *cand = NULL, *dp = NULL;
    unsigned char *reach = NULL;
    size_t states = ((size_t)1 << (n - 1)) * (n - 1);
    hs_err_t rc = HS_OK;

    w = malloc(n_w * sizeof *w);
    cand = malloc(n_w * sizeof *cand);
    reach = malloc(states);
    dp = malloc(states * sizeof *dp);
    if (w == NULL || cand == NULL || reach == NULL || dp == NULL) {
        rc = hs_error_setf(ro->err, HS_ERR_NOMEM, "ring search: out of "
                           "memory");
        goto done;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            if (i == j) {
                w[(size_t)i * n + j] = INT64_MAX;
                continue;
            }
            if ((rc = hs__w(ro, i, j, &w[(size_t)i * n + j])) != HS_OK)
                goto done;
            cand[n_c++] = w[(size_t)i * n + j];
        }
    qsort(cand, n_c, sizeof *cand, hs__cmp_i64);
    /* the smallest threshold that admits a Hamiltonian cycle */
    lo = 0;
    hi = n_c - 1;       /* the complete graph always has one */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (ro->progress != NULL)
            ro->progress(ro->pctx, "edge costs left (exact ring search)",
                         n_c - (hi - lo), n_c, -1);
        if (hs__ham(w, n, cand[mid], reach))
            hi = mid;
        else
            lo = mid + 1;
    }
    r->max_ns = cand[lo];
    r->sum_ns = hs__held_karp(w, n, cand[lo], dp, r->order);
    r->exact = 1;
done:
    free(w);
    free(cand);
    free(reach);
    free(dp);
    return rc;
}

/* ---- the heuristic ----------------------------------------------------- */

/* The 5 largest edge costs of the ring and where they are. */
#define HS__TOP 5
typedef struct hs__top_s {
    int64_t v[HS__TOP];
    uint32_t k[HS__TOP];
    int n;
} hs__top_t;

static void hs__top_build(hs__top_t *t, const int64_t *e, uint32_t n)
{
    uint32_t k;
    int a, b;

    t->n = 0;
    for (k = 0; k < n; k++) {
        if (t->n == HS__TOP && e[k] <= t->v[HS__TOP - 1])
            continue;
        a = t->n < HS__TOP ? t->n++ : HS__TOP - 1;
        for (b = a; b > 0 && t->v[b - 1] < e[k]; b--) {
            t->v[b] = t->v[b - 1];
            t->k[b] = t->k[b - 1];
        }
        t->v[b] = e[k];
        t->k[b] = k;
    }
}

/* The largest cost among edges other than ex[0..nx) (nx <= 4). */
static int64_t hs__top_max_except(const hs__top_t *t, const uint32_t *ex,
                                  int nx)
{
    int a, b;

    for (a = 0; a < t->n; a++) {
        for (b = 0; b < nx; b++)
            if (t->k[a] == ex[b])
                break;
        if (b == nx)
            return t->v[a];
    }
    return INT64_MIN;
}

/* Ring positions of the edges a move touches, without repeats. */
static int hs__add_edge(uint32_t *ex, int nx, uint32_t k)
{
    int b;

    for (b = 0; b < nx; b++)
        if (ex[b] == k)
            return nx;
    ex[nx] = k;
    return nx + 1;
}

/*
 * One pass of swaps of hs__improve: for each p < q, the devices at
 * positions p and q swapped when that improves (max, sum); top, the
 * costliest edges, rebuilt after each move, and *improved set.
 */
static hs_err_t hs__swap_pass(hs__ro_t *ro, uint32_t *o, int64_t *e,
                              int64_t *mx, int64_t *sm, uint64_t max_moves,
                              uint64_t *moves, hs__top_t *top, int *improved)
{
    uint32_t n = ro->n, p, q, k;
    hs_err_t rc;

    for (p = 0; p < n; p++) {
        if (ro->progress != NULL)
            ro->progress(ro->pctx, "devices (ring search, swaps)", p, n,
                         *mx);
        for (q = p + 1; q < n; q++) {
            /* swap o[p] and o[q] */
            uint32_t ex[4], pp = p == 0 ? n - 1 : p - 1;
            uint32_t qp = q - 1;
            int nx = 0, a;
            int64_t nw[4], nm, ns, rest;

            nx = hs__add_edge(ex, nx, pp);
            nx = hs__add_edge(ex, nx, p);
            nx = hs__add_edge(ex, nx, qp);
            nx = hs__add_edge(ex, nx, q);
            ns = *sm;
            for (a = 0; a < nx; a++)
                ns -= e[ex[a]];
            nm = INT64_MIN;
            for (a = 0; a < nx; a++) {
                uint32_t k0 = ex[a], k1 = k0 + 1 == n ? 0 : k0 + 1;
                uint32_t d0 = o[k0], d1 = o[k1];

                d0 = k0 == p ? o[q] : k0 == q ? o[p] : d0;
                d1 = k1 == p ? o[q] : k1 == q ? o[p] : d1;
                if ((rc = hs__w(ro, d0, d1, &nw[a])) != HS_OK)
                    return rc;
                ns += nw[a];
                if (nw[a] > nm)
                    nm = nw[a];
            }
            rest = hs__top_max_except(top, ex, nx);
            if (rest > nm)
                nm = rest;
            if (!hs__better(nm, ns, *mx, *sm) ||
                (max_moves != 0 && *moves >= max_moves))
                continue;
            k = o[p];
            o[p] = o[q];
            o[q] = k;
            for (a = 0; a < nx; a++)
                e[ex[a]] = nw[a];
            *mx = nm;
            *sm = ns;
            (*moves)++;
            hs__top_build(top, e, n);
            *improved = 1;
        }
    }
    return HS_OK;
}

/*
 * One pass of moves of hs__improve: for each p and q (q != p, p - 1),
 * the device at p moved to just after position q when that improves
 * (max, sum); as hs__swap_pass.
 */
static hs_err_t hs__move_pass(hs__ro_t *ro, uint32_t *o, int64_t *e,
                              int64_t *mx, int64_t *sm, uint64_t max_moves,
                              uint64_t *moves, hs__top_t *top, int *improved)
{
    uint32_t n = ro->n, p, q;
    hs_err_t rc;

    for (p = 0; p < n; p++) {
        if (ro->progress != NULL)
            ro->progress(ro->pctx, "devices (ring search, moves)", p, n,
                         *mx);
        for (q = 0; q < n; q++) {
            /* move o[p] to just after position q (q != p, p-1) */
            uint32_t pp = p == 0 ? n - 1 : p - 1, ex[3], *tmp;
            int64_t w1, w2, w3, nm, ns, rest;
            uint32_t dp_ = o[pp], dn = o[p + 1 == n ? 0 : p + 1];
            uint32_t dq = o[q], dqn = o[q + 1 == n ? 0 : q + 1];
            uint32_t i, at;
            int nx = 0;

            if (q == p || q == pp || n < 4 ||
                (max_moves != 0 && *moves >= max_moves))
                continue;
            nx = hs__add_edge(ex, nx, pp);
            nx = hs__add_edge(ex, nx, p);
            nx = hs__add_edge(ex, nx, q);
            if ((rc = hs__w(ro, dp_, dn, &w1)) != HS_OK ||
                (rc = hs__w(ro, dq, o[p], &w2)) != HS_OK ||
                (rc = hs__w(ro, o[p], dqn, &w3)) != HS_OK)
                return rc;
            ns = *sm - e[pp] - e[p] - e[q] + w1 + w2 + w3;
            nm = w1 > w2 ? w1 : w2;
            if (w3 > nm)
                nm = w3;
            rest = hs__top_max_except(top, ex, nx);
            if (rest > nm)
                nm = rest;
            if (!hs__better(nm, ns, *mx, *sm))
                continue;
            /* rebuild the order: cheap next to the search itself */
            tmp = malloc((size_t)n * sizeof *tmp);
            if (tmp == NULL)
                return hs_error_setf(ro->err, HS_ERR_NOMEM,
                                     "ring search: out of memory");
            for (i = 0, at = 0; i < n; i++) {
                if (i != p)
                    tmp[at++] = o[i];
                if (i == q)
                    tmp[at++] = o[p];
            }
            memcpy(o, tmp, (size_t)n * sizeof *o);
            free(tmp);
            if ((rc = hs__eval(ro, o, mx, sm)) != HS_OK)
                return rc;
            for (i = 0; i < n; i++)
                if ((rc = hs__w(ro, o[i], o[i + 1 == n ? 0 : i + 1],
                                &e[i])) != HS_OK)
                    return rc;
            (*moves)++;
            hs__top_build(top, e, n);
            *improved = 1;
        }
    }
    return HS_OK;
}

/*
 * Local search on order o with edge costs e (e[k]: o[k] -> o[k+1]).
 * Moves: swap the devices at positions p < q; move the device at p to
 * just after position q.  A move is taken when it improves (max, sum).
 */
static hs_err_t hs__improve(hs__ro_t *ro, uint32_t *o, int64_t *e,
                            int64_t *mx, int64_t *sm, uint64_t max_moves,
                            uint64_t *moves)
{
    hs__top_t top;
    int improved = 1;
    hs_err_t rc;

    hs__top_build(&top, e, ro->n);
    while (improved && (max_moves == 0 || *moves < max_moves)) {
        improved = 0;
        if ((rc = hs__swap_pass(ro, o, e, mx, sm, max_moves, moves, &top,
                                &improved)) != HS_OK ||
            (rc = hs__move_pass(ro, o, e, mx, sm, max_moves, moves, &top,
                                &improved)) != HS_OK)
            return rc;
    }
    return HS_OK;
}

/* Greedy tour: from device 0, always to the cheapest unvisited device. */
static hs_err_t hs__greedy(hs__ro_t *ro, uint32_t *o, unsigned char *seen)
{
    uint32_t n = ro->n, k, j, best;
    int64_t w, bw;
    hs_err_t rc;

    memset(seen, 0, n);
    o[0] = 0;
    seen[0] = 1;
    for (k = 1; k < n; k++) {
        best = n;
        bw = INT64_MAX;
        for (j = 0; j < n; j++) {
            if (seen[j])
                continue;
            if ((rc = hs__w(ro, o[k - 1], j, &w)) != HS_OK)
                return rc;
            if (w < bw) {
                bw = w;
                best = j;
            }
        }
        o[k] = best;
        seen[best] = 1;
    }
    return HS_OK;
}

static hs_err_t hs__heuristic(hs__ro_t *ro, const uint32_t *const *starts,
                              size_t n_starts, uint64_t max_moves,
                              hs_ringopt_result_t *r, unsigned char *seen)
{
    uint32_t n = ro->n, k;
    uint32_t *cand = NULL;
    int64_t *e = NULL, mx, sm;
    size_t a;
    hs_err_t rc = HS_OK;

    cand = malloc((size_t)n * sizeof *cand);
    e = malloc((size_t)n * sizeof *e);
    if (cand == NULL || e == NULL) {
        rc = hs_error_setf(ro->err, HS_ERR_NOMEM, "ring search: out of "
                           "memory");
        goto done;
    }
    r->max_ns = INT64_MAX;
    r->sum_ns = INT64_MAX;
    for (a = 0; a <= n_starts; a++) {
        if (a < n_starts)
            memcpy(cand, starts[a], (size_t)n * sizeof *cand);
        else if ((rc = hs__greedy(ro, cand, seen)) != HS_OK)
            goto done;
        if ((rc = hs__eval(ro, cand, &mx, &sm)) != HS_OK)
            goto done;
        if (hs__better(mx, sm, r->max_ns, r->sum_ns)) {
            memcpy(r->order, cand, (size_t)n * sizeof *cand);
            r->max_ns = mx;
            r->sum_ns = sm;
            r->start_index = a;
        }
    }
    for (k = 0; k < n; k++)
        if ((rc = hs__w(ro, r->order[k], r->order[k + 1 == n ? 0 : k + 1],
                        &e[k])) != HS_OK)
            goto done;
    rc = hs__improve(ro, r->order, e, &r->max_ns, &r->sum_ns, max_moves,
                     &r->moves);
done:
    free(cand);
    free(e);
    return rc;
}

/* ---- the public functions ---------------------------------------------- */

hs_err_t hs_ringopt_eval(uint32_t n, const uint32_t *order,
                         hs_ringopt_cost_fn cost, void *ctx,
                         int64_t *max_ns, int64_t *sum_ns, hs_error_t *err)
{
    hs__ro_t ro = {n, cost, ctx, NULL, 0, err, NULL, NULL};
    int64_t mx = 0, sm = 0;
    hs_err_t rc = hs__eval(&ro, order, &mx, &sm);

    if (max_ns != NULL)
        *max_ns = mx;
    if (sum_ns != NULL)
        *sum_ns = sm;
    return rc;
}

hs_err_t hs_ringopt_search(uint32_t n, hs_ringopt_cost_fn cost, void *ctx,
                           const uint32_t *const *starts, size_t n_starts,
                           uint32_t exact_max, uint64_t max_moves,
                           hs_ringopt_result_t **out, hs_error_t *err)
{
    return hs_ringopt_search_x(n, cost, ctx, starts, n_starts, exact_max,
                               max_moves, NULL, NULL, out, err);
}

hs_err_t hs_ringopt_search_x(uint32_t n, hs_ringopt_cost_fn cost, void *ctx,
                             const uint32_t *const *starts, size_t n_starts,
                             uint32_t exact_max, uint64_t max_moves,
                             hs_progress_fn progress, void *pctx,
                             hs_ringopt_result_t **out, hs_error_t *err)
{
    hs__ro_t ro = {n, cost, ctx, NULL, 0, err, progress, pctx};
    hs_ringopt_result_t *r = NULL;
    unsigned char *seen = NULL;
    size_t a, i;
    int64_t mx, sm;
    hs_err_t rc;

    *out = NULL;
    if (n < 2)
        return hs_error_setf(err, HS_ERR_RANGE, "ring search: a ring needs "
                             "at least 2 devices, not %u", n);
    if (exact_max == 0 || exact_max > HS_RINGOPT_EXACT_MAX)
        exact_max = HS_RINGOPT_EXACT_MAX;
    r = calloc(1, sizeof *r);
    seen = malloc(n);
    if (r == NULL || seen == NULL ||
        (r->order = malloc((size_t)n * sizeof *r->order)) == NULL)
        goto nomem;
    r->n = n;
    for (a = 0; a < n_starts; a++)
        if (!hs__is_perm(starts[a], n, seen)) {
            rc = hs_error_setf(err, HS_ERR_RANGE, "ring search: starting "
                               "order %zu is not a permutation of the %u "
                               "devices", a, n);
            goto fail;
        }
    if (n <= HS_RINGOPT_CACHE_MAX) {
        ro.cache = malloc((size_t)n * n * sizeof *ro.cache);
        if (ro.cache == NULL)
            goto nomem;
        for (i = 0; i < (size_t)n * n; i++)
            ro.cache[i] = INT64_MIN;
    }
    if (n <= exact_max)
        rc = hs__exact(&ro, r);
    else
        rc = hs__heuristic(&ro, starts, n_starts, max_moves, r, seen);
    if (rc != HS_OK)
        goto fail;
    /* an exact optimum is never worse than a start; keep the check */
    for (a = 0; a < n_starts && r->exact; a++) {
        if ((rc = hs__eval(&ro, starts[a], &mx, &sm)) != HS_OK)
            goto fail;
        if (hs__better(mx, sm, r->max_ns, r->sum_ns)) {
            rc = hs_error_setf(err, HS_ERR_RANGE, "ring search: the exact "
                               "search lost to starting order %zu (a bug)",
                               a);
            goto fail;
        }
    }
    if ((rc = hs__lower_bound(&ro, &r->lower_bound_ns)) != HS_OK)
        goto fail;
    r->cost_calls = ro.calls;
    free(ro.cache);
    free(seen);
    *out = r;
    return HS_OK;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "ring search: out of memory");
fail:
    free(ro.cache);
    free(seen);
    hs_ringopt_result_free(r);
    return rc;
}

void hs_ringopt_result_free(hs_ringopt_result_t *r)
{
    if (r == NULL)
        return;
    free(r->order);
    free(r);
}
