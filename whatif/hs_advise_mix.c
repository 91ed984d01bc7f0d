/*
 * hs_advise_mix.c -- the device mix (hs_advise.h, "device mix"): the
 * closed form over the mixes (model/hs_mixopt.h), split over processes
 * when asked; the best mixes and the given one judged by the recommended
 * predictor (hs_advise_judge); with nodes the mixes count whole nodes of
 * each type's node kind.
 */
#include "hs_advise.h"
#include "hs_advise_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_nodes.h"

/* ---- device mix ---------------------------------------------------- */

typedef struct hs__mctx_s {
    const hs_scenario_t *s;
    hs_scenario_t *w;           /* a working copy: counts set per mix */
    int bound_ok;               /* no per-device settings: the bound holds */
    int64_t *type_floor_ns;     /* per type: max(t_dl, t_fwd + t_b1) */
    /* a scenario with nodes: the search counts nodes, not devices */
    long *kind;                 /* per type: its node kind, -1 none; NULL:
                                   no nodes */
    uint64_t *unit;             /* per type: devices per counted unit */
    hs_overlap_t overlap;       /* the mode the replay runs (the extended
                                   form follows it) */
} hs__mctx_t;

/* Sets w's counts: devices per type, or with nodes the nodes of each
   type's kind (counts in units). */
static hs_err_t hs__set_counts(const hs__mctx_t *mc, hs_scenario_t *w,
                               const uint64_t *counts, hs_error_t *err)
{
    const hs_scenario_t *s = mc->s;
    size_t t;
    hs_err_t rc;

    for (t = 0; t < s->n_types; t++) {
        char key[256], v[32];

        if (mc->kind != NULL) {
            if (mc->kind[t] < 0)
                continue;
            snprintf(key, sizeof key, "nodes.%s.count",
                     s->nodes->kinds[mc->kind[t]].name);
        } else {
            snprintf(key, sizeof key, "device_types.%s.count",
                     s->types[t].name);
        }
        snprintf(v, sizeof v, "%llu", (unsigned long long)counts[t]);
        if ((rc = hs_scenario_set(w, key, v, err)) != HS_OK)
            return rc;
    }
    return hs_scenario_resolve(w, err);
}

static hs_err_t hs__mix_total(void *ctx, const uint64_t *counts,
                              int64_t *total_ns, hs_error_t *err)
{
    hs__mctx_t *mc = ctx;
    const hs_collective_t *coll;
    hs_prediction_t *p = NULL;
    hs_err_t rc;

    rc = hs__set_counts(mc, mc->w, counts, err);
    if (rc == HS_OK)
        rc = hs_collective_find(mc->w->collective, &coll, err);
    if (rc == HS_OK)
        rc = hs_closed_predict_with(mc->w, coll, mc->overlap, &p, err);
    if (rc == HS_OK) {
        /* the extended form: the whole backward and the optimizer count,
           as they do in the replay that confirms the best mixes */
        long double t = (long double)p->step_ext_ns *
                        (long double)p->iters_per_epoch *
                        (long double)mc->w->epochs;

        if (p->iters_per_epoch == 0 || t > 9e18L)
            rc = hs_error_setf(err, HS_ERR_RANGE, "epoch unknown");
        else
            *total_ns = (int64_t)t;
    }
    hs_prediction_free(p);
    /* a mix that makes no cluster is skipped, not fatal */
    if (rc != HS_OK && rc != HS_ERR_NOMEM)
        return HS_ERR_RANGE;
    return rc;
}

/* No mix with these counts trains faster: every present type's device
   needs at least max(t_dl, t_fwd + t_b1) per step, and an epoch at least
   floor(samples / global batch) steps (shards follow the batches). */
static int64_t hs__mix_bound(void *ctx, const uint64_t *counts)
{
    hs__mctx_t *mc = ctx;
    const hs_scenario_t *s = mc->s;
    uint64_t gb = 0, samples;
    int64_t step = 0;
    size_t t;
    long double tot;

    if (!mc->bound_ok)
        return 0;
    samples = s->dataset_is_bytes
                  ? (s->sample_bytes ? s->dataset_total / s->sample_bytes : 0)
                  : s->dataset_total;
    for (t = 0; t < s->n_types; t++) {
        gb += counts[t] * mc->unit[t] * s->types[t].batch;
        if (counts[t] > 0 && mc->type_floor_ns[t] > step)
            step = mc->type_floor_ns[t];
    }
    if (gb == 0)
        return 0;
    tot = (long double)s->epochs * (long double)(samples / gb) *
          (long double)step;
    return tot > 9e18L ? INT64_MAX : (int64_t)tot;
}

/*
 * With nodes, the mix counts nodes: each type must be the type of one
 * node kind (else how many nodes of each kind a count of devices means is
 * not defined: refused), a type of no kind stays at 0 devices; a type's
 * min / avail / price per device become per node of its kind (min rounded
 * up, avail down to whole nodes).  Fills mc->kind, mc->unit and *nt (the
 * search's types).
 */
static hs_err_t hs__mix_units(const hs_scenario_t *s, hs__mctx_t *mc,
                              const hs_mixopt_type_t *types,
                              hs_mixopt_type_t *nt, hs_error_t *err)
{
    const hs_nodes_t *nd = s->nodes;
    size_t t, k;

    for (t = 0; t < s->n_types; t++) {
        nt[t] = types[t];
        mc->unit[t] = 1;
    }
    if (nd == NULL)
        return HS_OK;
    if ((mc->kind = malloc(s->n_types * sizeof *mc->kind)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    for (t = 0; t < s->n_types; t++) {
        uint64_t d;

        mc->kind[t] = -1;
        for (k = 0; k < nd->n_kinds; k++) {
            if (nd->kinds[k].type != t)
                continue;
            if (mc->kind[t] >= 0)
                return hs_error_setf(err, HS_ERR_SCHEMA, "%s: device type "
                                     "'%s' is the type of node kinds '%s' "
                                     "and '%s': a count of its devices does "
                                     "not say how many nodes of each kind "
                                     "(nor a mean node size), so the mix "
                                     "is ill-defined; give each node kind "
                                     "its own device type (a copy of '%s' "
                                     "under another name) and ask again",
                                     s->file, s->types[t].name,
                                     nd->kinds[mc->kind[t]].name,
                                     nd->kinds[k].name, s->types[t].name);
            mc->kind[t] = (long)k;
        }
        if (mc->kind[t] < 0) {
            if (types[t].min > 0 || types[t].avail > 0)
                return hs_error_setf(err, HS_ERR_SCHEMA, "%s: device type "
                                     "'%s' is the type of no node kind, so "
                                     "none of its devices can be placed in "
                                     "nodes: give it --avail %s=0 or add a "
                                     "node kind of that type", s->file,
                                     s->types[t].name, s->types[t].name);
            nt[t].min = nt[t].avail = 0;
            continue;
        }
        d = nd->kinds[mc->kind[t]].devices;
        mc->unit[t] = d;
        nt[t].min = (types[t].min + d - 1) / d;
        nt[t].avail = types[t].avail / d;
        nt[t].price_per_h = types[t].price_per_h * (double)d;
        if (nt[t].min > nt[t].avail)
            return hs_error_setf(err, HS_ERR_RANGE, "%s: device type '%s' "
                                 "comes in nodes of %llu devices (kind "
                                 "'%s'): at least %llu and at most %llu "
                                 "devices leave no whole number of nodes",
                                 s->file, s->types[t].name,
                                 (unsigned long long)d,
                                 nd->kinds[mc->kind[t]].name,
                                 (unsigned long long)types[t].min,
                                 (unsigned long long)types[t].avail);
    }
    return HS_OK;
}

typedef struct hs__mjob_s {
    hs__mctx_t *mc;
    const hs_replay_opts_t *o;
    int replay;
    const hs_mixopt_result_t *search;   /* counts in units */
} hs__mjob_t;

/* Judging job k of the mix advice: 0 the given counts (the scenario with
   the mixes' shards), k >= 1 the search's mix k - 1. */
static hs_err_t hs__mix_job(void *ctx, size_t k, hs_advise_fig_t *fig,
                            hs_error_t *err)
{
    hs__mjob_t *mj = ctx;
    const hs_scenario_t *s = mj->mc->s;
    hs_scenario_t *g = NULL;
    hs_err_t rc;
    size_t t;

    if (k == 0) {
        if ((rc = hs_scenario_clone(s, &g, err)) != HS_OK)
            return rc;
        for (t = 0; t < s->n_types; t++)
            g->types[t].shard = 0;
        if ((rc = hs_scenario_resolve(g, err)) == HS_OK)
            rc = hs_advise_judge(g, mj->o, mj->replay, fig, err);
        hs_scenario_free(g);
        return rc;
    }
    if ((rc = hs__set_counts(mj->mc, mj->mc->w, mj->search->top[k - 1].counts,
                             err)) != HS_OK)
        return rc;
    return hs_advise_judge(mj->mc->w, mj->o, mj->replay, fig, err);
}

/* The total a mix is held to (its judge's), and its cost. */
static int64_t hs__mix_fig_total(const hs_advise_fig_t *f)
{
    return f->est[f->recommended].total_ns;
}

/* 1 when mix a (judged fa, counts ca in devices) beats mix b for the
   goal, both on the predictor that judges both (hs_advise_fig_pair), the
   costs from those totals. */
static int hs__mix_beats(size_t nt, const hs_mixopt_type_t *types,
                         hs_mix_goal_t goal, const hs_advise_fig_t *fa,
                         const uint64_t *ca, const hs_advise_fig_t *fb,
                         const uint64_t *cb)
{
    int64_t ta, tb;

    hs_advise_fig_pair(fa, fb, 1, &ta, &tb, NULL, NULL);
    if (ta < 0 || tb < 0)
        return 0;
    return hs_mixopt_beats(goal, ta, hs_mixopt_cost(nt, types, ca, ta), tb,
                           hs_mixopt_cost(nt, types, cb, tb));
}

/* The search itself: one process, or this process's share of the mixes,
   the shares' records gathered, then the whole space walked from them. */
static hs_err_t hs__mix_search(const hs_advise_exec_t *ex, hs__mctx_t *mc,
                               const hs_mixopt_type_t *nt, hs_mix_goal_t goal,
                               double budget, int64_t deadline_ns,
                               size_t keep, hs_mixopt_result_t **out,
                               hs_error_t *err)
{
    const hs_scenario_t *s = mc->s;
    hs_mixopt_memo_t memo = {0, 0, NULL};
    void *all = NULL;
    size_t *lens = NULL;
    hs_progress_fn pf = ex != NULL ? ex->progress : NULL;
    void *pc = ex != NULL ? ex->progress_ctx : NULL;
    hs_err_t rc;
    int r;

    if (!hs__advise_split(ex))
        return hs_mixopt_search_memo(s->n_types, nt, goal, budget,
                                     deadline_ns, keep, hs__mix_total,
                                     hs__mix_bound, mc, NULL, pf, pc, out,
                                     err);
    if ((rc = hs_mixopt_search_part(s->n_types, nt, goal, budget,
                                    deadline_ns, keep, hs__mix_total,
                                    hs__mix_bound, mc, (size_t)ex->rank,
                                    (size_t)ex->size, pf, pc, &memo, err)) !=
        HS_OK)
        goto done;
    if ((lens = calloc((size_t)ex->size, sizeof *lens)) == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = ex->allgather(ex->gather_ctx, memo.recs,
                            memo.n * sizeof *memo.recs, &all, lens, err)) !=
        HS_OK)
        goto done;
    hs_mixopt_memo_clear(&memo);
    memo.recs = all;
    all = NULL;
    for (r = 0; r < ex->size; r++)
        memo.n += lens[r] / sizeof *memo.recs;
    memo.cap = memo.n;
    hs_mixopt_memo_sort(&memo);
    rc = hs_mixopt_search_memo(s->n_types, nt, goal, budget, deadline_ns,
                               keep, hs__mix_total, hs__mix_bound, mc, &memo,
                               pf, pc, out, err);
done:
    hs_mixopt_memo_clear(&memo);
    free(all);
    free(lens);
    return rc;
}

hs_err_t hs_advise_mix(const hs_scenario_t *s, const hs_replay_opts_t *o,
                       const hs_mixopt_type_t *types, hs_mix_goal_t goal,
                       double budget, int64_t deadline_ns, int replay,
                       hs_advise_mix_t **out, hs_error_t *err)
{
    return hs_advise_mix_x(s, o, types, goal, budget, deadline_ns, replay,
                           NULL, out, err);
}

/* The search's context (mc, with its arrays allocated) made ready: the
   units of each type (nt, the search's types, in units), each type's
   floor, whether the bound holds, the working copy with its shards
   following the batches (r->shards_derived when some type gave one). */
static hs_err_t hs__mix_prepare(const hs_scenario_t *s, hs__mctx_t *mc,
                                const hs_mixopt_type_t *types,
                                hs_mixopt_type_t *nt, hs_advise_mix_t *r,
                                hs_error_t *err)
{
    size_t t;
    hs_err_t rc;

    if (s->dataset_total == 0)
        return hs_error_setf(err, HS_ERR_SCHEMA, "%s: a device mix needs "
                             "the training set's size (job.dataset): the "
                             "time to train it is what the mixes are "
                             "compared on", s->file);
    if ((rc = hs__mix_units(s, mc, types, nt, err)) != HS_OK)
        return rc;
    for (t = 0; t < s->n_types; t++) {
        const hs_profile_t *p = &s->types[t].profile;
        int64_t dl = p->t_dl.known ? p->t_dl.mean_ns : 0;
        int64_t c = p->t_fwd.mean_ns + p->t_b1.mean_ns;

        mc->type_floor_ns[t] = dl > c ? dl : c;
    }
    if (s->n_dev_overrides > 0)
        mc->bound_ok = 0;
    if ((rc = hs_scenario_clone(s, &mc->w, err)) != HS_OK)
        return rc;
    /* every mix trains the whole set: shards follow the batches */
    for (t = 0; t < s->n_types; t++) {
        if (s->types[t].shard != 0)
            r->shards_derived = 1;
        mc->w->types[t].shard = 0;
    }
    return HS_OK;
}

/* The given counts, and whether the search could have proposed them
   (within each type's range, a whole number of units). */
static hs_err_t hs__mix_given(const hs_scenario_t *s,
                              const hs_mixopt_type_t *types,
                              const hs__mctx_t *mc, hs_advise_mix_t *r,
                              hs_error_t *err)
{
    size_t t;

    if ((r->given_counts = calloc(s->n_types, sizeof *r->given_counts)) ==
        NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    r->given_allowed = 1;
    for (t = 0; t < s->n_types; t++) {
        r->given_counts[t] = s->types[t].count;
        if (r->given_counts[t] < types[t].min ||
            r->given_counts[t] > types[t].avail ||
            r->given_counts[t] % mc->unit[t] != 0)
            r->given_allowed = 0;
    }
    return HS_OK;
}

/* The given counts (figs[0]) and the search's best (figs[1..]) judged,
   split over the processes; the jobs set counts in units. */
static hs_err_t hs__mix_judge(const hs_scenario_t *s,
                              const hs_replay_opts_t *o, int replay,
                              const hs_advise_exec_t *ex, hs__mctx_t *mc,
                              const hs_advise_mix_t *r,
                              hs_advise_fig_t *figs, hs_error_t *err)
{
    hs__mjob_t mj = {mc, o, replay, NULL};
    hs_mixopt_result_t units;
    size_t t, k;
    hs_err_t rc;

    /* the jobs set counts in units */
    units = *r->search;
    for (k = 0; k < r->search->n_top; k++) {
        units.top[k].counts = malloc(s->n_types * sizeof(uint64_t));
        if (units.top[k].counts == NULL) {
            while (k-- > 0)
                free(units.top[k].counts);
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        }
        for (t = 0; t < s->n_types; t++)
            units.top[k].counts[t] = r->search->top[k].counts[t] /
                                     mc->unit[t];
    }
    mj.search = &units;
    rc = hs__advise_run_jobs(ex, r->search->n_top + 1, NULL, hs__mix_job,
                             &mj, figs, err);
    for (k = 0; k < r->search->n_top; k++)
        free(units.top[k].counts);
    return rc;
}

/* The judged figures (figs) and costs of the given counts and of each
   mix, which meet the constraint, and the chosen one: better than the
   given one (when that is a choice within the constraint) and than the
   best so far, ties to the earlier; the outcome. */
static void hs__mix_choose(const hs_scenario_t *s,
                           const hs_mixopt_type_t *types, hs_mix_goal_t goal,
                           double budget, int64_t deadline_ns,
                           const hs_advise_fig_t *figs, hs_advise_mix_t *r)
{
    size_t k;
    int have;

    r->given = figs[0];
    r->given_cost = hs_mixopt_cost(s->n_types, types, r->given_counts,
                                   hs__mix_fig_total(&r->given));
    r->given_ok = r->given_allowed &&
                  hs__mix_fig_total(&r->given) >= 0 &&
                  (goal == HS_MIX_FASTEST
                       ? r->given_cost <= budget
                       : hs__mix_fig_total(&r->given) <= deadline_ns);
    r->met = r->given_ok;
    have = 0;
    for (k = 0; k < r->search->n_top; k++) {
        const uint64_t *ck = r->search->top[k].counts;
        int64_t tot;

        r->fig[k] = figs[k + 1];
        tot = hs__mix_fig_total(&r->fig[k]);
        r->cost[k] = hs_mixopt_cost(s->n_types, types, ck, tot);
        r->ok[k] = tot >= 0 && (goal == HS_MIX_FASTEST
                                    ? r->cost[k] <= budget
                                    : tot <= deadline_ns);
        if (!r->ok[k])
            continue;
        r->met = 1;
        /* better than the given one (when that is a choice within the
           constraint) and than the best so far; ties to the earlier */
        if (r->given_ok &&
            !hs__mix_beats(s->n_types, types, goal, &r->fig[k], ck,
                           &r->given, r->given_counts))
            continue;
        if (!have ||
            hs__mix_beats(s->n_types, types, goal, &r->fig[k], ck,
                          &r->fig[r->chosen],
                          r->search->top[r->chosen].counts)) {
            r->chosen = k;
            have = 1;
        }
    }
    r->outcome = !have ? HS_ADVISE_NONE
                 : r->chosen == 0 ? HS_ADVISE_IMPROVED
                                  : HS_ADVISE_FALLBACK;
}

hs_err_t hs_advise_mix_x(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         const hs_mixopt_type_t *types, hs_mix_goal_t goal,
                         double budget, int64_t deadline_ns, int replay,
                         const hs_advise_exec_t *ex, hs_advise_mix_t **out,
                         hs_error_t *err)
{
    hs_advise_mix_t *r = NULL;
    hs__mctx_t mc = {s, NULL, 1, NULL, NULL, NULL, HS_OVERLAP_PATENT};
    hs_mixopt_type_t *nt = NULL;
    hs_advise_fig_t figs[HS_MIXOPT_TOP + 1];
    size_t t, k;
    double t0;
    hs_err_t rc;

    *out = NULL;
    mc.overlap = o != NULL ? o->overlap : s->overlap;
    if ((rc = hs_scenario_require_profiles(s, err)) != HS_OK)
        return rc;
    if (s->devices_listed)
        return hs_error_setf(err, HS_ERR_SCHEMA, "%s: the scenario lists its "
                             "devices: a device mix needs devices generated "
                             "from the counts (no devices: list)", s->file);
    if ((r = calloc(1, sizeof *r)) == NULL ||
        (mc.type_floor_ns = calloc(s->n_types, sizeof(int64_t))) == NULL ||
        (mc.unit = calloc(s->n_types, sizeof *mc.unit)) == NULL ||
        (nt = calloc(s->n_types, sizeof *nt)) == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if ((rc = hs__mix_prepare(s, &mc, types, nt, r, err)) != HS_OK)
        goto fail;
    t0 = hs__advise_cpu_s();
    rc = hs__mix_search(ex, &mc, nt, goal, budget, deadline_ns,
                        HS_MIXOPT_TOP, &r->search, err);
    r->search_s = hs__advise_cpu_s() - t0;
    if (rc != HS_OK)
        goto fail;
    /* the counts the caller sees are devices */
    for (k = 0; k < r->search->n_top; k++)
        for (t = 0; t < s->n_types; t++)
            r->search->top[k].counts[t] *= mc.unit[t];
    /* the given counts and the search's best, judged */
    if ((rc = hs__mix_given(s, types, &mc, r, err)) != HS_OK ||
        (rc = hs__mix_judge(s, o, replay, ex, &mc, r, figs, err)) != HS_OK)
        goto fail;
    hs__mix_choose(s, types, goal, budget, deadline_ns, figs, r);
    hs_scenario_free(mc.w);
    free(mc.type_floor_ns);
    free(mc.kind);
    free(mc.unit);
    free(nt);
    *out = r;
    return HS_OK;
fail:
    hs_scenario_free(mc.w);
    free(mc.type_floor_ns);
    free(mc.kind);
    free(mc.unit);
    free(nt);
    hs_advise_mix_free(r);
    return rc;
}

void hs_advise_mix_free(hs_advise_mix_t *r)
{
    if (r == NULL)
        return;
    hs_mixopt_result_free(r->search);
    free(r->given_counts);
    free(r);
}
