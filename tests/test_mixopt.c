/*
 * test_mixopt.c -- the device-mix search (model/hs_mixopt.h) against a
 * brute force over every mix, with and without its lower bound.
 */
#include <stdlib.h>
#include <string.h>

#include "hs_mixopt.h"
#include "hs_test.h"

/* A synthetic cluster: per type a compute time per step and a batch; the
   step is the slowest present type's compute plus a ring term growing
   with N; steps = ceil(samples / global batch). */
typedef struct syn_s {
    size_t n;
    int64_t compute_ns[3];
    uint64_t batch[3];
    int64_t ring_ns_per_dev;
    uint64_t samples;
    uint64_t evals;
} syn_t;

static hs_err_t syn_total(void *ctx, const uint64_t *c, int64_t *total,
                          hs_error_t *err)
{
    syn_t *s = ctx;
    uint64_t devs = 0, gb = 0;
    int64_t step = 0;
    size_t t;

    s->evals++;
    for (t = 0; t < s->n; t++) {
        devs += c[t];
        gb += c[t] * s->batch[t];
        if (c[t] > 0 && s->compute_ns[t] > step)
            step = s->compute_ns[t];
    }
    if (devs < 2)
        return hs_error_setf(err, HS_ERR_RANGE, "a ring needs 2 devices");
    step += s->ring_ns_per_dev * (int64_t)devs;
    *total = step * (int64_t)((s->samples + gb - 1) / gb);
    return HS_OK;
}

static int64_t syn_bound(void *ctx, const uint64_t *c)
{
    syn_t *s = ctx;
    uint64_t gb = 0;
    int64_t step = 0;
    size_t t;

    for (t = 0; t < s->n; t++) {
        gb += c[t] * s->batch[t];
        if (c[t] > 0 && s->compute_ns[t] > step)
            step = s->compute_ns[t];
    }
    return gb == 0 ? 0 : step * (int64_t)((s->samples + gb - 1) / gb);
}

static uint64_t st = 0x2545F4914F6CDD1DULL;

static uint64_t rnd(void)
{
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return st;
}

/* The best mix by brute force: index into the odometer order. */
static int brute(syn_t *s, const hs_mixopt_type_t *ty, hs_mix_goal_t goal,
                 double budget, int64_t deadline, uint64_t *best_c,
                 int64_t *best_t, double *best_cost)
{
    uint64_t c[3];
    size_t t;
    int found = 0;
    hs_error_t e;

    for (t = 0; t < s->n; t++)
        c[t] = ty[t].min;
    for (;;) {
        int64_t tot;

        if (syn_total(s, c, &tot, &e) == HS_OK) {
            double cost = hs_mixopt_cost(s->n, ty, c, tot);
            int ok = goal == HS_MIX_FASTEST ? cost <= budget : tot <= deadline;
            int better = !found ||
                hs_mixopt_beats(goal, tot, cost, *best_t, *best_cost);

            if (ok && better) {
                found = 1;
                *best_t = tot;
                *best_cost = cost;
                memcpy(best_c, c, s->n * sizeof *c);
            }
        }
        for (t = s->n; t-- > 0;) {
            if (++c[t] <= ty[t].avail)
                break;
            c[t] = ty[t].min;
        }
        if (t == (size_t)-1)
            break;
    }
    return found;
}

static void test_brute_force(void)
{
    int round, pruned_sum = 0, feasible = 0;

    for (round = 0; round < 200; round++) {
        syn_t s;
        hs_mixopt_type_t ty[3];
        hs_mixopt_result_t *r = NULL;
        hs_error_t e;
        hs_mix_goal_t goal = round % 2 ? HS_MIX_CHEAPEST : HS_MIX_FASTEST;
        uint64_t bc[3];
        int64_t bt = 0;
        double bcost = 0, budget;
        int64_t deadline;
        size_t t;
        int found, use_bound = round % 4 < 2;
        hs_err_t rc;

        memset(&s, 0, sizeof s);
        s.n = 1 + (size_t)(rnd() % 3);
        s.ring_ns_per_dev = 1000 + (int64_t)(rnd() % 100000);
        s.samples = 10000 + rnd() % 100000;
        for (t = 0; t < s.n; t++) {
            s.compute_ns[t] = 1000000 + (int64_t)(rnd() % 50000000);
            s.batch[t] = 8 + rnd() % 120;
            ty[t].min = rnd() % 2;
            ty[t].avail = ty[t].min + rnd() % 12;
            ty[t].price_per_h = (double)(rnd() % 40) / 4.0;
        }
        budget = (double)(rnd() % 1000) / 100.0;
        deadline = (int64_t)(rnd() % 5000000000ULL);
        found = brute(&s, ty, goal, budget, deadline, bc, &bt, &bcost);
        s.evals = 0;
        rc = hs_mixopt_search(s.n, ty, goal, budget, deadline, 3, syn_total,
                              use_bound ? syn_bound : NULL, &s, &r, &e);
        if (!found) {
            HS_ASSERT_I64_EQ(rc, HS_ERR_RANGE);
            CU_ASSERT_PTR_NULL(r);
            HS_ASSERT_STR_CONTAINS(e.msg, "no mix");
            continue;
        }
        feasible++;
        HS_ASSERT_I64_EQ(rc, HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->top[0].total_ns, bt);
        HS_ASSERT_DBL_NEAR(r->top[0].cost, bcost, 1e-9);
        for (t = 0; t < s.n; t++)
            HS_ASSERT_I64_EQ(r->top[0].counts[t], bc[t]);
        /* the kept list is sorted and every entry meets the constraint */
        for (t = 0; t < r->n_top; t++) {
            if (goal == HS_MIX_FASTEST) {
                CU_ASSERT_TRUE(r->top[t].cost <= budget);
            } else {
                CU_ASSERT_TRUE(r->top[t].total_ns <= deadline);
            }
            if (t > 0 && goal == HS_MIX_FASTEST)
                CU_ASSERT_TRUE(r->top[t].total_ns >= r->top[t - 1].total_ns);
            if (t > 0 && goal == HS_MIX_CHEAPEST)
                CU_ASSERT_TRUE(r->top[t].cost >= r->top[t - 1].cost);
        }
        HS_ASSERT_I64_EQ(s.evals, r->evaluated);
        if (use_bound)
            pruned_sum += (int)(r->visited - r->evaluated);
        hs_mixopt_result_free(r);
    }
    printf("\n  %d of 200 draws feasible; the bound spared %d evaluations\n",
           feasible, pruned_sum);
    CU_ASSERT_TRUE(feasible > 20);
}

static void test_errors(void)
{
    syn_t s;
    hs_mixopt_type_t ty[2] = {{3, 2, 1.0}, {0, 4, 1.0}};
    hs_mixopt_result_t *r = NULL;
    hs_error_t e;

    memset(&s, 0, sizeof s);
    s.n = 2;
    HS_ASSERT_I64_EQ(hs_mixopt_search(2, ty, HS_MIX_FASTEST, 10, 0, 1,
                                      syn_total, NULL, &s, &r, &e),
                     HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(e.msg, "needs at least 3 devices but has 2");
    /* a budget no mix meets */
    ty[0].min = 0;
    s.compute_ns[0] = s.compute_ns[1] = 3600000000000LL;   /* 1 h a step */
    s.batch[0] = s.batch[1] = 10;
    s.samples = 10;
    HS_ASSERT_I64_EQ(hs_mixopt_search(2, ty, HS_MIX_FASTEST, 0.5, 0, 1,
                                      syn_total, syn_bound, &s, &r, &e),
                     HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(e.msg, "no mix meets the budget of 0.50");
    HS_ASSERT_STR_CONTAINS(e.msg, "costs 2.00");
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("device-mix search", NULL, NULL);

    CU_add_test(s, "same answer as a brute force (200 draws)",
                test_brute_force);
    CU_add_test(s, "bad inputs and a budget no mix meets", test_errors);
    return 0;
}

HS_TEST_MAIN(reg)
