/* hs_mixopt.c -- device-mix search (hs_mixopt.h). */
#include "hs_mixopt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double hs_mixopt_cost(size_t n_types, const hs_mixopt_type_t *types,
                      const uint64_t *counts, int64_t total_ns)
{
    double per_h = 0;
    size_t t;

    for (t = 0; t < n_types; t++)
        per_h += (double)counts[t] * types[t].price_per_h;
    return per_h * (double)total_ns / 3.6e12;
}

/* Costs within a relative 1e-9 are equal: they are products of doubles,
   and two mixes of the same device-hours must not be told apart by the
   rounding of their last bits. */
static int hs__cost_eq(double a, double b)
{
    double m = a > b ? a : b;

    return a - b <= 1e-9 * m && b - a <= 1e-9 * m;
}

int hs_mixopt_beats(hs_mix_goal_t goal, int64_t ta, double ca, int64_t tb,
                    double cb)
{
    if (goal == HS_MIX_FASTEST)
        return ta < tb || (ta == tb && !hs__cost_eq(ca, cb) && ca < cb);
    if (!hs__cost_eq(ca, cb))
        return ca < cb;
    return ta < tb;
}

/* Inserts a mix into the sorted top list (ties keep the earlier one). */
static void hs__keep(hs_mixopt_result_t *r, size_t keep, hs_mix_goal_t goal,
                     const uint64_t *counts, int64_t t_ns, double cost)
{
    size_t i, n = r->n_types;
    uint64_t *slot;

    for (i = 0; i < r->n_top; i++)
        if (hs_mixopt_beats(goal, t_ns, cost, r->top[i].total_ns, r->top[i].cost))
            break;
    if (i >= keep)
        return;
    slot = r->n_top == keep ? r->top[keep - 1].counts
                            : r->top[r->n_top].counts;
    if (r->n_top < keep)
        r->n_top++;
    memmove(&r->top[i + 1], &r->top[i],
            (r->n_top - 1 - i) * sizeof r->top[0]);
    r->top[i].counts = slot;
    memcpy(slot, counts, n * sizeof *counts);
    r->top[i].total_ns = t_ns;
    r->top[i].cost = cost;
}

/*
 * The nearest miss among the mixes that make a cluster, for the message
 * when none meets the constraint: the cheapest (FASTEST) or the fastest
 * (CHEAPEST) of them.  Mixes whose bound cannot beat the miss found so far
 * are not evaluated.  Returns 0 when none makes a cluster, -1 on an
 * evaluation error other than HS_ERR_RANGE (then *rc holds it).
 */
static int hs__nearest_miss(size_t n, const hs_mixopt_type_t *types,
                            hs_mix_goal_t goal, hs_mixopt_eval_fn eval,
                            hs_mixopt_bound_fn bound, void *ctx,
                            void *bctx, uint64_t *c, uint64_t *miss,
                            int64_t *miss_ns, double *miss_cost, hs_err_t *rc,
                            hs_error_t *err)
{
    int found = 0;
    size_t t;

    for (t = 0; t < n; t++)
        c[t] = types[t].min;
    for (;;) {
        int64_t lb = bound != NULL ? bound(bctx, c) : 0, t_ns;
        double lb_cost = hs_mixopt_cost(n, types, c, lb), cost;
        hs_err_t e;

        if (!found || (goal == HS_MIX_FASTEST ? lb_cost < *miss_cost
                                              : lb < *miss_ns)) {
            e = eval(ctx, c, &t_ns, err);
            if (e != HS_OK && e != HS_ERR_RANGE) {
                *rc = e;
                return -1;
            }
            cost = e == HS_OK ? hs_mixopt_cost(n, types, c, t_ns) : 0;
            if (e == HS_OK &&
                (!found || (goal == HS_MIX_FASTEST ? cost < *miss_cost
                                                   : t_ns < *miss_ns))) {
                found = 1;
                *miss_ns = t_ns;
                *miss_cost = cost;
                memcpy(miss, c, n * sizeof *c);
            }
        }
        for (t = n; t-- > 0;) {
            if (++c[t] <= types[t].avail)
                break;
            c[t] = types[t].min;
        }
        if (t == (size_t)-1)
            return found;
    }
}

/* What the walk over the space needs beyond hs_mixopt_search's
   arguments: a share (part of n_parts, whose evaluations go to memo) or
   the whole space, and the progress report. */
typedef struct hs__walk_s {
    size_t part, n_parts;       /* n_parts 0: the whole space */
    hs_mixopt_memo_t *memo;     /* the part's records */
    hs_progress_fn progress;
    void *pctx;
    void *bctx;                 /* the bound's ctx (NULL: ctx) */
} hs__walk_t;

static hs_err_t hs__memo_add(hs_mixopt_memo_t *m, uint64_t index,
                             int64_t total_ns, hs_err_t rc)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 1024;
        hs_mixopt_memo_rec_t *r = realloc(m->recs, cap * sizeof *r);

        if (r == NULL)
            return HS_ERR_NOMEM;
        m->recs = r;
        m->cap = cap;
    }
    m->recs[m->n].index = index;
    m->recs[m->n].total_ns = total_ns;
    m->recs[m->n].rc = (int32_t)rc;
    m->recs[m->n].pad = 0;
    m->n++;
    return HS_OK;
}

/* One walk of hs__search: its arguments, the result being built (r),
   the mix at hand (c) and the number of mixes (space). */
typedef struct {
    size_t n_types;
    const hs_mixopt_type_t *types;
    hs_mix_goal_t goal;
    double budget;
    int64_t deadline_ns;
    size_t keep;
    hs_mixopt_eval_fn eval;
    hs_mixopt_bound_fn bound;
    void *ctx, *bctx;
    const hs__walk_t *wk;
    hs_mixopt_result_t *r;
    uint64_t *c;
    double space;
} hs__search_t;

/* Refuses a search without types, keeping 0 or too many mixes, a type
   whose minimum is over what it has or with a negative price, or over
   1e9 mixes; the number of mixes in *space. */
static hs_err_t hs__search_check(size_t n_types,
                                 const hs_mixopt_type_t *types, size_t keep,
                                 double *space, hs_error_t *err)
{
    size_t t;

    if (n_types == 0 || keep == 0 || keep > HS_MIXOPT_TOP)
        return hs_error_setf(err, HS_ERR_RANGE, "mix search: needs device "
                             "types and 1..%d mixes to keep", HS_MIXOPT_TOP);
    for (t = 0; t < n_types; t++) {
        if (types[t].min > types[t].avail)
            return hs_error_setf(err, HS_ERR_RANGE, "mix search: type %zu "
                                 "needs at least %llu devices but has %llu",
                                 t, (unsigned long long)types[t].min,
                                 (unsigned long long)types[t].avail);
        if (!(types[t].price_per_h >= 0))
            return hs_error_setf(err, HS_ERR_RANGE, "mix search: type %zu "
                                 "has a negative price", t);
        *space *= (double)(types[t].avail - types[t].min + 1);
    }
    if (*space > 1e9)
        return hs_error_setf(err, HS_ERR_RANGE, "mix search: %.3g mixes are "
                             "too many (at most 1e9); narrow the counts",
                             *space);
    return HS_OK;
}

/* Weighs mix q->c (number index of the walk, this part's when mine):
   ruled out by its bound, or evaluated, recorded (a part's memo) and
   kept if among the best that meet the constraint.  *stop set when a
   part meets an error the merged search reports. */
static hs_err_t hs__search_one(hs__search_t *q, uint64_t index, int mine,
                               int *stop, hs_error_t *err)
{
    const hs__walk_t *wk = q->wk;
    hs_mixopt_result_t *r = q->r;
    uint64_t *c = q->c, devs = 0;
    size_t t, keep = q->keep;
    hs_mix_goal_t goal = q->goal;
    hs_err_t rc;

    for (t = 0; t < q->n_types; t++)
        devs += c[t];
    if (devs > 0 && mine) {
        int64_t lb = q->bound != NULL ? q->bound(q->bctx, c) : 0, t_ns;
        double lb_cost = hs_mixopt_cost(q->n_types, q->types, c, lb), cost;
        int skip = 0;

        /* a bound that breaks the constraint or loses to the worst
           kept mix rules the mix out */
        if ((goal == HS_MIX_FASTEST && lb_cost > q->budget) ||
            (goal == HS_MIX_CHEAPEST && lb > q->deadline_ns))
            skip = 1;
        if (r->n_top == keep &&
            !hs_mixopt_beats(goal, lb, lb_cost, r->top[keep - 1].total_ns,
                       r->top[keep - 1].cost))
            skip = 1;
        if (!skip) {
            r->evaluated++;
            rc = q->eval(q->ctx, c, &t_ns, err);
            if (wk->memo != NULL && rc != HS_OK && rc != HS_ERR_RANGE &&
                rc != HS_ERR_NOMEM) {
                *stop = 1;      /* the merged search reports it */
                return HS_OK;
            }
            if (wk->memo != NULL && (rc == HS_OK || rc == HS_ERR_RANGE) &&
                hs__memo_add(wk->memo, index, t_ns, rc) != HS_OK)
                return hs_error_setf(err, HS_ERR_NOMEM,
                                     "mix search: out of memory");
            if (rc == HS_ERR_RANGE) {
                r->invalid++;
            } else if (rc != HS_OK) {
                return rc;
            } else {
                cost = hs_mixopt_cost(q->n_types, q->types, c, t_ns);
                if (goal == HS_MIX_FASTEST ? cost <= q->budget
                                           : t_ns <= q->deadline_ns)
                    hs__keep(r, keep, goal, c, t_ns, cost);
            }
        }
    }
    return HS_OK;
}

/* Walks every mix from the minimum counts up, in odometer order,
   reporting progress every 1024 mixes and at the end. */
static hs_err_t hs__search_walk(hs__search_t *q, hs_error_t *err)
{
    const hs__walk_t *wk = q->wk;
    hs_mixopt_result_t *r = q->r;
    uint64_t *c = q->c;
    size_t t, n_types = q->n_types;
    int stop = 0;
    hs_err_t rc;

    for (t = 0; t < n_types; t++)
        c[t] = q->types[t].min;
    for (;;) {
        uint64_t index = r->visited;
        int mine = wk->n_parts == 0 || index % wk->n_parts == wk->part;

        r->visited++;
        if (wk->progress != NULL && (index & 1023) == 0)
            wk->progress(wk->pctx, "mixes", index, (uint64_t)q->space,
                         q->goal == HS_MIX_FASTEST && r->n_top > 0
                             ? r->top[0].total_ns
                             : -1);
        if ((rc = hs__search_one(q, index, mine, &stop, err)) != HS_OK)
            return rc;
        if (stop)
            break;
        for (t = n_types; t-- > 0;) {
            if (++c[t] <= q->types[t].avail)
                break;
            c[t] = q->types[t].min;
        }
        if (t == (size_t)-1)
            break;
    }
    if (wk->progress != NULL)
        wk->progress(wk->pctx, "mixes", r->visited, (uint64_t)q->space,
                     q->goal == HS_MIX_FASTEST && r->n_top > 0
                         ? r->top[0].total_ns
                         : -1);
    return HS_OK;
}

/* No mix kept: the error, naming the nearest miss (miss, scratch of
   n_types counts). */
static hs_err_t hs__search_none(hs__search_t *q, uint64_t *miss,
                                hs_error_t *err)
{
    size_t n_types = q->n_types, t;
    double miss_cost = 0;
    int64_t miss_ns = INT64_MAX;
    char desc[256];
    size_t len = 0;
    int got;
    hs_err_t rc;

    /* what the nearest miss is, for the message */
    got = hs__nearest_miss(n_types, q->types, q->goal, q->eval, q->bound,
                           q->ctx, q->bctx, q->c, miss, &miss_ns,
                           &miss_cost, &rc, err);
    if (got < 0)
        return rc;

    for (t = 0; t < n_types && len < sizeof desc - 24; t++)
        len += (size_t)snprintf(desc + len, sizeof desc - len, "%s%llu",
                                t ? "/" : "",
                                (unsigned long long)miss[t]);
    if (got == 0)
        return hs_error_setf(err, HS_ERR_RANGE, "mix search: no mix makes "
                             "a cluster (%llu refused)",
                             (unsigned long long)q->r->invalid);
    else if (q->goal == HS_MIX_FASTEST)
        return hs_error_setf(err, HS_ERR_RANGE, "mix search: no mix meets "
                             "the budget of %.2f; the cheapest (counts %s) "
                             "costs %.2f", q->budget, desc, miss_cost);
    else
        return hs_error_setf(err, HS_ERR_RANGE, "mix search: no mix meets "
                             "the deadline of %.3f h; the fastest (counts "
                             "%s) takes %.3f h",
                             (double)q->deadline_ns / 3.6e12, desc,
                             (double)miss_ns / 3.6e12);
}

static hs_err_t hs__search(size_t n_types, const hs_mixopt_type_t *types,
                           hs_mix_goal_t goal, double budget,
                           int64_t deadline_ns, size_t keep,
                           hs_mixopt_eval_fn eval, hs_mixopt_bound_fn bound,
                           void *ctx, const hs__walk_t *wk,
                           hs_mixopt_result_t **out, hs_error_t *err)
{
    hs__search_t q = {n_types, types, goal, budget, deadline_ns, keep,
                      eval, bound, ctx, NULL, wk, NULL, NULL, 1};
    hs_mixopt_result_t *r = NULL;
    uint64_t *c = NULL, *miss = NULL;
    size_t i;
    hs_err_t rc;

    *out = NULL;
    q.bctx = wk->bctx != NULL ? wk->bctx : ctx;
    if ((rc = hs__search_check(n_types, types, keep, &q.space, err)) !=
        HS_OK)
        return rc;
    r = calloc(1, sizeof *r);
    c = malloc(n_types * sizeof *c);
    miss = calloc(n_types, sizeof *miss);
    if (r == NULL || c == NULL || miss == NULL)
        goto nomem;
    r->n_types = n_types;
    for (i = 0; i < keep; i++)
        if ((r->top[i].counts = calloc(n_types, sizeof *c)) == NULL)
            goto nomem;
    q.r = r;
    q.c = c;
    if ((rc = hs__search_walk(&q, err)) != HS_OK)
        goto fail;
    if (wk->memo != NULL) {
        /* a part: its records are the result */
        free(c);
        free(miss);
        hs_mixopt_result_free(r);
        return HS_OK;
    }
    if (r->n_top == 0) {
        rc = hs__search_none(&q, miss, err);
        goto fail;
    }
    /* slots past n_top were never used: release them now */
    for (i = r->n_top; i < HS_MIXOPT_TOP; i++) {
        free(r->top[i].counts);
        r->top[i].counts = NULL;
    }
    free(c);
    free(miss);
    *out = r;
    return HS_OK;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "mix search: out of memory");
fail:
    free(c);
    free(miss);
    hs_mixopt_result_free(r);
    return rc;
}

hs_err_t hs_mixopt_search(size_t n_types, const hs_mixopt_type_t *types,
                          hs_mix_goal_t goal, double budget,
                          int64_t deadline_ns, size_t keep,
                          hs_mixopt_eval_fn eval, hs_mixopt_bound_fn bound,
                          void *ctx, hs_mixopt_result_t **out,
                          hs_error_t *err)
{
    hs__walk_t wk = {0, 0, NULL, NULL, NULL, NULL};

    return hs__search(n_types, types, goal, budget, deadline_ns, keep, eval,
                      bound, ctx, &wk, out, err);
}

hs_err_t hs_mixopt_search_part(size_t n_types, const hs_mixopt_type_t *types,
                               hs_mix_goal_t goal, double budget,
                               int64_t deadline_ns, size_t keep,
                               hs_mixopt_eval_fn eval,
                               hs_mixopt_bound_fn bound, void *ctx,
                               size_t part, size_t n_parts,
                               hs_progress_fn progress, void *pctx,
                               hs_mixopt_memo_t *memo, hs_error_t *err)
{
    hs__walk_t wk = {part, n_parts ? n_parts : 1, memo, progress, pctx, NULL};
    hs_mixopt_result_t *r = NULL;

    if (part >= wk.n_parts)
        return hs_error_setf(err, HS_ERR_RANGE, "mix search: part %zu of "
                             "%zu", part, wk.n_parts);
    return hs__search(n_types, types, goal, budget, deadline_ns, keep, eval,
                      bound, ctx, &wk, &r, err);
}

static int hs__rec_cmp(const void *a, const void *b)
{
    const hs_mixopt_memo_rec_t *x = a, *y = b;

    return x->index < y->index ? -1 : x->index > y->index;
}

void hs_mixopt_memo_sort(hs_mixopt_memo_t *memo)
{
    if (memo->n > 1)
        qsort(memo->recs, memo->n, sizeof *memo->recs, hs__rec_cmp);
}

void hs_mixopt_memo_clear(hs_mixopt_memo_t *memo)
{
    if (memo == NULL)
        return;
    free(memo->recs);
    memo->recs = NULL;
    memo->n = memo->cap = 0;
}

/* eval through a sorted memo: the mix's number from its counts, the
   record when there is one, else the caller's eval. */
typedef struct hs__memo_eval_s {
    size_t n_types;
    const hs_mixopt_type_t *types;
    const hs_mixopt_memo_t *memo;
    hs_mixopt_eval_fn eval;
    void *ctx;
} hs__memo_eval_t;

static hs_err_t hs__eval_memo(void *ctx, const uint64_t *counts,
                              int64_t *total_ns, hs_error_t *err)
{
    hs__memo_eval_t *me = ctx;
    uint64_t index = 0;
    size_t t, lo = 0, hi = me->memo->n;

    for (t = 0; t < me->n_types; t++)
        index = index * (me->types[t].avail - me->types[t].min + 1) +
                (counts[t] - me->types[t].min);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (me->memo->recs[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < me->memo->n && me->memo->recs[lo].index == index) {
        *total_ns = me->memo->recs[lo].total_ns;
        if (me->memo->recs[lo].rc != HS_OK)
            return hs_error_setf(err, HS_ERR_RANGE, "mix %llu makes no "
                                 "cluster", (unsigned long long)index);
        return HS_OK;
    }
    return me->eval(me->ctx, counts, total_ns, err);
}

hs_err_t hs_mixopt_search_memo(size_t n_types, const hs_mixopt_type_t *types,
                               hs_mix_goal_t goal, double budget,
                               int64_t deadline_ns, size_t keep,
                               hs_mixopt_eval_fn eval,
                               hs_mixopt_bound_fn bound, void *ctx,
                               const hs_mixopt_memo_t *memo,
                               hs_progress_fn progress, void *pctx,
                               hs_mixopt_result_t **out, hs_error_t *err)
{
    hs__walk_t wk = {0, 0, NULL, progress, pctx, ctx};
    hs__memo_eval_t me = {n_types, types, memo, eval, ctx};

    if (memo == NULL || memo->n == 0)
        return hs__search(n_types, types, goal, budget, deadline_ns, keep,
                          eval, bound, ctx, &wk, out, err);
    return hs__search(n_types, types, goal, budget, deadline_ns, keep,
                      hs__eval_memo, bound, &me, &wk, out, err);
}

void hs_mixopt_result_free(hs_mixopt_result_t *r)
{
    size_t i;

    if (r == NULL)
        return;
    for (i = 0; i < HS_MIXOPT_TOP; i++)
        free(r->top[i].counts);
    free(r);
}
