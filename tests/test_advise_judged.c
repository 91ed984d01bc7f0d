/*
 * test_advise_judged.c -- advice never makes training slower by the
 * figure hetsim reports.
 *
 * 200 scenarios drawn from a seeded generator (2-4 device types, 4-64
 * devices, per-type batches and profiles with the rest of the backward and
 * an optimizer step, so the extended form differs from the source's; a
 * default bandwidth, type rows, a few slow device pairs; some with shards,
 * buckets or data loading).  On each, `advise ring`, `advise batch` and
 * `advise mix` run through the library, and whatever they recommend is
 * written (hs_advise_write), loaded back from the file and judged here,
 * independently, by the recommended predictor (hs_answer_run under
 * HS_ANSWER_REPLAY_AUTO, hs_answer_best): its epoch (mix: its total and
 * cost) is held against the given configuration's.  Two answers are
 * compared on the predictor that judged both (the replay when both were
 * replayed, else the extended form), by epoch when both are known, else by
 * step.  Checked:
 *   - no recommendation is slower than the given configuration -- a ring
 *     order or a batch split is recommended only when strictly faster --
 *     (mix: none misses the constraint or has a worse objective than a
 *     given configuration that meets it);
 *   - the figure the advice reports for its recommendation is the figure
 *     of the scenario it writes;
 *   - "no better configuration found" writes nothing.
 * The counts (improved, fell back to a later candidate, no better
 * configuration found) are printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_advise.h"
#include "hs_answer.h"
#include "hs_test.h"

#define N_DRAWS 200
#define MAX_TYPES 4

/* ---- the generator ---------------------------------------------------- */

static uint64_t rng_next(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static double rng_unit(uint64_t *st, double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng_next(st) >> 11) / 9007199254740992.0;
}

/* Uniform integer in [lo, hi]. */
static uint64_t rng_int(uint64_t *st, uint64_t lo, uint64_t hi)
{
    return lo + rng_next(st) % (hi - lo + 1);
}

typedef struct draw_s {
    size_t n_types;
    uint64_t count[MAX_TYPES];
    double price[MAX_TYPES];
    int goal;               /* mix: HS_MIX_FASTEST or HS_MIX_CHEAPEST */
    double slack;           /* mix: budget or deadline over the given's */
} draw_t;

/* Scenario number i as YAML text into buf; its shape into *d. */
static void gen(unsigned i, char *buf, size_t len, draw_t *d)
{
    static const uint64_t batches[] = {8, 12, 16, 24, 32, 48, 64, 96, 128};
    static const char *const rings[] = {"", "ring: grouped\n",
                                        "ring: interleave\n"};
    static const char *const overlaps[] = {"patent", "none", "buckets"};
    uint64_t st = 0x5eed0000ULL + i, n_dev, left, payload_mb, n_links;
    size_t at = 0, t, k;
    int shards = rng_unit(&st, 0, 1) < 0.2;
    int overlap = (int)rng_int(&st, 0, 2);
    uint64_t samples = rng_int(&st, 5000, 200000);

#define PUT(...) at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__)
    memset(d, 0, sizeof *d);
    d->n_types = (size_t)rng_int(&st, 2, MAX_TYPES);
    n_dev = rng_int(&st, d->n_types > 4 ? d->n_types : 4, 64);
    left = n_dev;
    for (t = 0; t < d->n_types; t++) {
        uint64_t rest = d->n_types - t - 1;

        d->count[t] = t + 1 == d->n_types
                          ? left
                          : rng_int(&st, 1, left - rest > 1 + left / 2
                                                ? 1 + left / 2
                                                : left - rest);
        left -= d->count[t];
        d->price[t] = rng_unit(&st, 0.5, 4.0);
    }
    d->goal = i % 2 ? HS_MIX_CHEAPEST : HS_MIX_FASTEST;
    d->slack = rng_unit(&st, 0.8, 1.3);
    payload_mb = rng_int(&st, 1, 200);
    PUT("job: {model: x, dataset: {samples: %llu}, epochs: %llu}\n",
        (unsigned long long)samples,
        (unsigned long long)rng_int(&st, 1, 3));
    PUT("device_types:\n");
    for (t = 0; t < d->n_types; t++) {
        double fwd = rng_unit(&st, 2, 60);
        uint64_t b = batches[rng_int(&st, 0, 8)];

        PUT("  - name: t%zu\n    count: %llu\n    batch: %llu\n", t,
            (unsigned long long)d->count[t], (unsigned long long)b);
        if (shards)
            PUT("    shard: %llu\n",
                (unsigned long long)(samples / n_dev *
                                     rng_unit(&st, 0.6, 1.0)));
        PUT("    profile:\n      t_fwd: %.3fms\n      t_b1: %.3fms\n"
            "      t_bwd: %.3fms\n      allreduce_bytes: %lluMB\n",
            fwd, fwd * rng_unit(&st, 0.01, 0.1),
            fwd * rng_unit(&st, 1.2, 2.5),
            (unsigned long long)payload_mb);
        if (rng_unit(&st, 0, 1) < 0.7)
            PUT("      t_opt: %.3fms\n", rng_unit(&st, 0.1, 5));
        if (rng_unit(&st, 0, 1) < 0.3)
            PUT("      t_dl: %.3fms\n", fwd * rng_unit(&st, 0.3, 1.5));
        if (overlap == 2)
            PUT("      buckets: [{bytes: %lluMB, ready: %.3fms}, "
                "{bytes: %lluMB, ready: %.3fms}]\n",
                (unsigned long long)(payload_mb / 2),
                fwd * rng_unit(&st, 0.05, 0.3),
                (unsigned long long)(payload_mb - payload_mb / 2),
                fwd * rng_unit(&st, 1.2, 2.5));
    }
    PUT("%s", rings[rng_int(&st, 0, 2)]);
    PUT("network:\n  default_bandwidth: %.2fGbps\n  latency: %lluus\n",
        rng_unit(&st, 1, 100), (unsigned long long)rng_int(&st, 5, 100));
    PUT("  type_links: [");
    for (t = 0, k = 0; t < d->n_types; t++)
        if (rng_unit(&st, 0, 1) < 0.6)
            PUT("%s[t%zu, t%zu, %.1fGbps]", k++ ? ", " : "", t, t,
                rng_unit(&st, 10, 400));
    PUT("]\n  links: [");
    for (n_links = rng_int(&st, 0, 3), k = 0, t = 0; t < n_links; t++) {
        size_t a = (size_t)rng_int(&st, 0, d->n_types - 1);
        size_t b = (size_t)rng_int(&st, 0, d->n_types - 1);
        uint64_t da = rng_int(&st, 0, d->count[a] - 1);
        uint64_t db = rng_int(&st, 0, d->count[b] - 1);

        if (a == b && da == db)
            continue;
        PUT("%s[t%zu-%llu, t%zu-%llu, %.0fMbps]", k++ ? ", " : "", a,
            (unsigned long long)da, b, (unsigned long long)db,
            rng_unit(&st, 100, 2000));
    }
    PUT("]\nsimulate: {steps: %llu, overlap: %s}\n",
        (unsigned long long)rng_int(&st, 3, 6), overlaps[overlap]);
#undef PUT
}

/* ---- the judge, here ------------------------------------------------- */

typedef struct judged_s {
    hs_predictor_t pred;
    hs_estimate_t est[HS_PREDICTORS];
} judged_t;

static int judge(const hs_scenario_t *s, judged_t *j)
{
    hs_answer_t *a = NULL;
    hs_error_t e;

    if (hs_answer_run(s, NULL, HS_ANSWER_REPLAY_AUTO, NULL, 0, &a, &e) !=
        HS_OK) {
        fprintf(stderr, "\n%s: %s\n", s->file, e.msg);
        return -1;
    }
    j->pred = a->recommended;
    memcpy(j->est, a->est, sizeof j->est);
    /* hs_answer_best is the recommended predictor's */
    CU_ASSERT_EQUAL(hs_answer_best(a)->step_ns, j->est[j->pred].step_ns);
    hs_answer_free(a);
    return 0;
}

/* The figures a and b are compared on (see the top of the file). */
static void pair(const judged_t *a, const judged_t *b, int total, int64_t *va,
                 int64_t *vb)
{
    hs_predictor_t p = a->pred == b->pred ? a->pred : HS_PREDICTOR_EXTENDED;
    const hs_estimate_t *x = &a->est[p], *y = &b->est[p];

    if (total && x->total_ns >= 0 && y->total_ns >= 0) {
        *va = x->total_ns;
        *vb = y->total_ns;
    } else if (x->epoch_ns >= 0 && y->epoch_ns >= 0) {
        *va = x->epoch_ns;
        *vb = y->epoch_ns;
    } else {
        *va = x->step_ns;
        *vb = y->step_ns;
    }
}

static hs_scenario_t *load_file(const char *path)
{
    hs_scenario_t *s = NULL;
    hs_error_t e;

    if (hs_scenario_load(path, &s, &e) != HS_OK)
        fprintf(stderr, "\nload %s: %s\n", path, e.msg);
    return s;
}

/* The given scenario as every mix sees it: shards following the batches. */
static hs_scenario_t *unsharded(const hs_scenario_t *s)
{
    hs_scenario_t *c = NULL;
    hs_error_t e;
    size_t t;

    if (hs_scenario_clone(s, &c, &e) != HS_OK)
        return NULL;
    for (t = 0; t < c->n_types; t++)
        c->types[t].shard = 0;
    if (hs_scenario_resolve(c, &e) != HS_OK) {
        hs_scenario_free(c);
        return NULL;
    }
    return c;
}

typedef struct tally_s {
    unsigned asked, improved, fallback, none, refused, violations,
        mismatches;
    unsigned search_slower;     /* the search's own candidate was slower
                                   than the given one, by the judge */
} tally_t;

static void count(tally_t *t, hs_advise_outcome_t o)
{
    t->asked++;
    if (o == HS_ADVISE_IMPROVED)
        t->improved++;
    else if (o == HS_ADVISE_FALLBACK)
        t->fallback++;
    else
        t->none++;
}

/* Writes the answer to path, loads it back and judges it into *w; 0, or
   -1 when nothing was written (and asserts that the answer was "none"
   exactly then). */
static int written(const hs_scenario_t *s, const hs_advise_ring_t *ring,
                   const hs_advise_batch_t *batch, const hs_advise_mix_t *mix,
                   hs_advise_outcome_t outcome, const char *path, judged_t *w)
{
    hs_scenario_t *ws;
    hs_error_t e;
    hs_err_t rc;

    unlink(path);
    rc = hs_advise_write(s, ring, batch, mix, path, &e);
    if (outcome == HS_ADVISE_NONE) {
        HS_ASSERT_I64_EQ(rc, HS_ERR_USAGE);
        CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
        return -1;
    }
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc != HS_OK) {
        fprintf(stderr, "\nwrite %s: %s\n", path, e.msg);
        return -1;
    }
    if ((ws = load_file(path)) == NULL || judge(ws, w) != 0) {
        CU_FAIL("the written scenario loads and is judged");
        hs_scenario_free(ws);
        return -1;
    }
    hs_scenario_free(ws);
    return 0;
}

/* The advice's own figures for its recommendation are the written
   scenario's. */
static int same_figures(const hs_advise_fig_t *f, const judged_t *w)
{
    int p;

    if (f->recommended != w->pred)
        return 0;
    for (p = 0; p < HS_PREDICTORS; p++)
        if (f->est[p].step_ns != w->est[p].step_ns ||
            f->est[p].epoch_ns != w->est[p].epoch_ns ||
            f->est[p].total_ns != w->est[p].total_ns)
            return 0;
    return 1;
}

static void test_never_slower(void)
{
    const char *dir = hs_test_tmpdir("advise_judged");
    tally_t ring = {0}, batch = {0}, mix = {0};
    unsigned i, mix_none_met = 0, mix_no_mix = 0;
    char text[16384], path[1024], out[1024];

    for (i = 0; i < N_DRAWS; i++) {
        draw_t d;
        hs_scenario_t *s, *g;
        judged_t given, gmix, w;
        hs_error_t e;
        int64_t va, vb;

        gen(i, text, sizeof text, &d);
        snprintf(path, sizeof path, "%s/draw%u.yaml", dir, i);
        CU_ASSERT_EQUAL_FATAL(hs_test_write(path, text), 0);
        s = load_file(path);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        CU_ASSERT_EQUAL_FATAL(judge(s, &given), 0);

        /* ring */
        {
            hs_advise_ring_t *r = NULL;

            snprintf(out, sizeof out, "%s/draw%u-ring.yaml", dir, i);
            if (hs_advise_ring(s, NULL, 1, 0, &r, &e) != HS_OK) {
                fprintf(stderr, "\ndraw %u: ring: %s\n", i, e.msg);
                ring.refused++;
            } else {
                count(&ring, r->outcome);
                ring.search_slower += (unsigned)hs_advise_fig_faster(
                    &r->cands[0].fig, &r->cands[3].fig, 0);
                if (written(s, r, NULL, NULL, r->outcome, out, &w) == 0) {
                    pair(&w, &given, 0, &va, &vb);
                    if (va >= vb) {   /* recommended: strictly faster */
                        ring.violations++;
                        fprintf(stderr,
                                "\ndraw %u: ring %s: %lld, given %lld\n",
                                i, r->cands[r->chosen].label, (long long)va,
                                (long long)vb);
                    }
                    if (!same_figures(&r->cands[r->chosen].fig, &w))
                        ring.mismatches++;
                }
                hs_advise_ring_free(r);
            }
        }
        /* batch */
        {
            hs_advise_batch_t *r = NULL;

            snprintf(out, sizeof out, "%s/draw%u-batch.yaml", dir, i);
            if (hs_advise_batch(s, NULL, 0, NULL, 1, &r, &e) != HS_OK) {
                fprintf(stderr, "\ndraw %u: batch: %s\n", i, e.msg);
                batch.refused++;
            } else {
                count(&batch, r->outcome);
                batch.search_slower += (unsigned)hs_advise_fig_faster(
                    &r->cands[0].fig, &r->cands[1].fig, 0);
                if (written(s, NULL, r, NULL, r->outcome, out, &w) == 0) {
                    pair(&w, &given, 0, &va, &vb);
                    if (va >= vb) {   /* recommended: strictly faster */
                        batch.violations++;
                        fprintf(stderr,
                                "\ndraw %u: batch %s: %lld, given %lld\n",
                                i, r->cands[r->chosen].label, (long long)va,
                                (long long)vb);
                    }
                    if (!same_figures(&r->cands[r->chosen].fig, &w))
                        batch.mismatches++;
                }
                hs_advise_batch_free(r);
            }
        }
        /* mix: within two devices of the given count per type; the
           budget or deadline a little above or below the given's */
        g = unsharded(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        CU_ASSERT_EQUAL_FATAL(judge(g, &gmix), 0);
        {
            hs_mixopt_type_t ty[MAX_TYPES];
            hs_advise_mix_t *r = NULL;
            int64_t gtot = gmix.est[gmix.pred].total_ns;
            double gcost, budget = 0;
            int64_t deadline = 0;
            size_t t;
            hs_err_t rc;

            for (t = 0; t < d.n_types; t++) {
                ty[t].min = d.count[t] > 2 ? d.count[t] - 2 : 0;
                ty[t].avail = d.count[t] + 2;
                ty[t].price_per_h = d.price[t];
            }
            gcost = hs_mixopt_cost(d.n_types, ty, d.count, gtot);
            if (d.goal == HS_MIX_FASTEST)
                budget = gcost * d.slack;
            else
                deadline = (int64_t)((double)gtot * d.slack);
            snprintf(out, sizeof out, "%s/draw%u-mix.yaml", dir, i);
            rc = hs_advise_mix(s, NULL, ty, (hs_mix_goal_t)d.goal, budget,
                               deadline, 1, &r, &e);
            if (rc == HS_ERR_RANGE && strstr(e.msg, "no mix meets") != NULL) {
                mix_no_mix++;
            } else if (rc != HS_OK) {
                fprintf(stderr, "\ndraw %u: mix: %s\n", i, e.msg);
                mix.refused++;
            } else {
                count(&mix, r->outcome);
                mix.search_slower += (unsigned)!r->ok[0];
                if (!r->met)
                    mix_none_met++;
                if (written(s, NULL, NULL, r, r->outcome, out, &w) == 0) {
                    int64_t wt = w.est[w.pred].total_ns;
                    uint64_t wc[MAX_TYPES];
                    double wcost;
                    int g_ok;

                    for (t = 0; t < d.n_types; t++)
                        wc[t] = r->search->top[r->chosen].counts[t];
                    wcost = hs_mixopt_cost(d.n_types, ty, wc, wt);
                    g_ok = d.goal == HS_MIX_FASTEST ? gcost <= budget
                                                    : gtot <= deadline;
                    pair(&w, &gmix, 1, &va, &vb);
                    if (d.goal == HS_MIX_FASTEST
                            ? wcost > budget || (g_ok && va > vb)
                            : wt > deadline ||
                                  (g_ok &&
                                   hs_mixopt_cost(d.n_types, ty, wc, va) >
                                       hs_mixopt_cost(d.n_types, ty, d.count,
                                                      vb))) {
                        mix.violations++;
                        fprintf(stderr, "\ndraw %u: mix %zu: total %lld "
                                "(given %lld), cost %g (given %g)\n", i,
                                r->chosen, (long long)va, (long long)vb,
                                wcost, gcost);
                    }
                    if (!same_figures(&r->fig[r->chosen], &w))
                        mix.mismatches++;
                }
                hs_advise_mix_free(r);
            }
        }
        hs_scenario_free(g);
        hs_scenario_free(s);
    }
    printf("\n  %u scenarios; improved / fell back to a later candidate / "
           "no better configuration found / refused / slower than given / "
           "figures differ from the written scenario's; the search's own "
           "candidate slower than the given one (mix: missing the "
           "constraint):"
           "\n    ring:  %u / %u / %u / %u / %u / %u; %u"
           "\n    batch: %u / %u / %u / %u / %u / %u; %u"
           "\n    mix:   %u / %u / %u / %u / %u / %u; %u (no mix meets the "
           "constraint by the closed form: %u; by the judge: %u)",
           N_DRAWS, ring.improved, ring.fallback, ring.none, ring.refused,
           ring.violations, ring.mismatches, ring.search_slower,
           batch.improved, batch.fallback, batch.none, batch.refused,
           batch.violations, batch.mismatches, batch.search_slower,
           mix.improved, mix.fallback, mix.none, mix.refused, mix.violations,
           mix.mismatches, mix.search_slower, mix_no_mix, mix_none_met);
    HS_ASSERT_I64_EQ(ring.violations + batch.violations + mix.violations, 0);
    HS_ASSERT_I64_EQ(ring.mismatches + batch.mismatches + mix.mismatches, 0);
    /* every question was answered on most draws */
    CU_ASSERT_TRUE(ring.asked >= N_DRAWS * 9 / 10);
    CU_ASSERT_TRUE(batch.asked >= N_DRAWS * 9 / 10);
    CU_ASSERT_TRUE(mix.asked >= N_DRAWS / 2);
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("advise_judged", NULL, NULL);

    CU_add_test(s, "200 drawn scenarios: no advice is slower than the given "
                   "configuration by the recommended predictor",
                test_never_slower);
    return 0;
}

HS_TEST_MAIN(reg)
