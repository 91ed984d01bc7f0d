/*
 * test_batchopt.c -- per-type batch balancing (model/hs_batchopt.h) on a
 * hand-computed case and against a brute force over every batch vector.
 */
#include <stdlib.h>
#include <string.h>

#include "hs_batchopt.h"
#include "hs_test.h"

/* T_t(b) = fixed_t + per_sample_t * b, ns. */
typedef struct lin_s {
    int64_t fixed[4], per[4];
    int fail_t;
} lin_t;

static hs_err_t lin_time(void *ctx, size_t t, uint64_t b, int64_t *ns,
                         hs_error_t *err)
{
    lin_t *l = ctx;

    if ((int)t == l->fail_t)
        return hs_error_setf(err, HS_ERR_SCHEMA, "type %zu has no profile",
                             t);
    *ns = l->fixed[t] + l->per[t] * (int64_t)b;
    return HS_OK;
}

/* 2 fast devices at 1 ms per sample, 2 slow at 2 ms, global batch 96:
   2a + 2b = 96 and a = 2b give b = 16, a = 32: both take 32 ms. */
static void test_by_hand(void)
{
    lin_t l = {{0, 0}, {1000000, 2000000}, -1};
    uint64_t count[2] = {2, 2}, maxb[2] = {256, 256}, b[2];
    hs_batchopt_result_t r;
    hs_error_t e;

    HS_ASSERT_I64_EQ(hs_batchopt_solve(2, count, maxb, 96, lin_time, &l, b,
                                       &r, &e), HS_OK);
    HS_ASSERT_I64_EQ(b[0], 32);
    HS_ASSERT_I64_EQ(b[1], 16);
    HS_ASSERT_I64_EQ(r.global_batch, 96);
    HS_ASSERT_I64_EQ(r.step_ns, 32000000);
    /* a memory limit of 24 on the fast type: 2*24 + 2*b = 96, b = 24,
       the slow type then takes 48 ms */
    maxb[0] = 24;
    HS_ASSERT_I64_EQ(hs_batchopt_solve(2, count, maxb, 96, lin_time, &l, b,
                                       &r, &e), HS_OK);
    HS_ASSERT_I64_EQ(b[0], 24);
    HS_ASSERT_I64_EQ(b[1], 24);
    HS_ASSERT_I64_EQ(r.step_ns, 48000000);
    /* with a fixed cost (forward overhead) of 6 ms on the fast type:
       6 + a = 2b, 2a + 2b = 96 -> a = 30, b = 18: 36 ms each */
    maxb[0] = 256;
    l.fixed[0] = 6000000;
    HS_ASSERT_I64_EQ(hs_batchopt_solve(2, count, maxb, 96, lin_time, &l, b,
                                       &r, &e), HS_OK);
    HS_ASSERT_I64_EQ(b[0], 30);
    HS_ASSERT_I64_EQ(b[1], 18);
    HS_ASSERT_I64_EQ(r.step_ns, 36000000);
}

static uint64_t st = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void)
{
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return st;
}

/* Every batch vector with b_t in [1, maxb_t]; the least max_t T_t among
   those whose global batch is exactly G (INT64_MAX: none). */
static int64_t brute(const lin_t *l, size_t n, const uint64_t *c,
                     const uint64_t *maxb, uint64_t G)
{
    uint64_t b[4] = {1, 1, 1, 1};
    int64_t best = INT64_MAX;
    size_t t;

    for (;;) {
        uint64_t sum = 0;
        int64_t mx = INT64_MIN;

        for (t = 0; t < n; t++) {
            int64_t v = l->fixed[t] + l->per[t] * (int64_t)b[t];

            sum += c[t] * b[t];
            if (v > mx)
                mx = v;
        }
        if (sum == G && mx < best)
            best = mx;
        for (t = 0; t < n && ++b[t] > maxb[t]; t++)
            b[t] = 1;
        if (t == n)
            break;
    }
    return best;
}

static void test_brute_force(void)
{
    int round, exact = 0;

    for (round = 0; round < 300; round++) {
        size_t n = 1 + (size_t)(rnd() % 3), t;
        lin_t l;
        uint64_t c[4], maxb[4], b[4], lo = 0, hi = 0, G, sum = 0;
        hs_batchopt_result_t r;
        hs_error_t e;
        int64_t want, mx = INT64_MIN;

        l.fail_t = -1;
        for (t = 0; t < n; t++) {
            l.fixed[t] = (int64_t)(rnd() % 5000);
            l.per[t] = 100 + (int64_t)(rnd() % 3000);
            c[t] = 1 + rnd() % 4;
            maxb[t] = 1 + rnd() % 24;
            lo += c[t];
            hi += c[t] * maxb[t];
        }
        G = lo + rnd() % (hi - lo + 1);
        HS_ASSERT_I64_EQ(hs_batchopt_solve(n, c, maxb, G, lin_time, &l, b,
                                           &r, &e), HS_OK);
        for (t = 0; t < n; t++) {
            int64_t v = l.fixed[t] + l.per[t] * (int64_t)b[t];

            CU_ASSERT_TRUE(b[t] >= 1 && b[t] <= maxb[t]);
            sum += c[t] * b[t];
            if (v > mx)
                mx = v;
        }
        HS_ASSERT_I64_EQ(sum, r.global_batch);
        HS_ASSERT_I64_EQ(mx, r.step_ns);
        want = brute(&l, n, c, maxb, G);
        if (r.global_batch == G) {
            exact++;
            /* when it meets G, nothing with that G is faster */
            HS_ASSERT_I64_EQ(r.step_ns, want);
        } else {
            /* it misses G only when no batch vector makes G */
            CU_ASSERT_TRUE(r.global_batch > G);
            HS_ASSERT_I64_EQ(want, INT64_MAX);
        }
    }
    printf("\n  %d of 300 random cases can make the global batch; the "
           "others cannot\n", exact);
}

/* With micro-batches: T_t(b) = fixed_t V + per_t b, V = ceil(b / maxb_t)
   (a fixed cost per micro-batch), non-decreasing in b. */
typedef struct mic_s {
    lin_t l;
    uint64_t maxb[4];
} mic_t;

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static hs_err_t mic_time(void *ctx, size_t t, uint64_t b, int64_t *ns,
                         hs_error_t *err)
{
    mic_t *m = ctx;

    (void)err;
    *ns = m->l.fixed[t] * (int64_t)ceil_div(b, m->maxb[t]) +
          m->l.per[t] * (int64_t)b;
    return HS_OK;
}

/* b is V micro-batches of m samples, V the fewest that fit maxb, V <=
   nv: walked over V and m, not through the library's predicate. */
static int mic_allowed(uint64_t b, uint64_t maxb, uint64_t nv)
{
    uint64_t v, m;

    for (v = 1; v <= nv; v++)
        for (m = 1; m <= maxb; m++)
            if (v * m == b && (v - 1) * maxb < b)
                return 1;
    return 0;
}

/* The least max_t T_t over allowed batch vectors making exactly G
   (INT64_MAX: none). */
static int64_t brute_mic(const mic_t *mc, size_t n, const uint64_t *c,
                         const uint32_t *nv, uint64_t G)
{
    uint64_t b[4] = {1, 1, 1, 1};
    int64_t best = INT64_MAX;
    size_t t;

    for (;;) {
        uint64_t sum = 0;
        int64_t mx = INT64_MIN, v;
        int ok = 1;

        for (t = 0; t < n; t++) {
            ok &= mic_allowed(b[t], mc->maxb[t], nv[t]);
            mic_time((void *)mc, t, b[t], &v, NULL);
            sum += c[t] * b[t];
            if (v > mx)
                mx = v;
        }
        if (ok && sum == G && mx < best)
            best = mx;
        for (t = 0; t < n && ++b[t] > mc->maxb[t] * nv[t]; t++)
            b[t] = 1;
        if (t == n)
            break;
    }
    return best;
}

/* Gradient accumulation: per-step batches above the memory limit as
   equal micro-batches, against a brute force over the allowed vectors;
   by hand, the fast type of test_by_hand capped at 24 reaches 32 as
   2 x 16. */
static void test_micro(void)
{
    lin_t l = {{0, 0}, {1000000, 2000000}, -1};
    uint64_t count[2] = {2, 2}, maxb[2] = {24, 256}, b[2];
    uint32_t nv[4] = {2, 1, 1, 1};
    hs_batchopt_result_t r;
    hs_error_t e;
    int round, exact = 0;

    HS_ASSERT_I64_EQ(hs_batchopt_solve_micro(2, count, maxb, nv, 96,
                                             lin_time, &l, b, &r, &e),
                     HS_OK);
    HS_ASSERT_I64_EQ(b[0], 32);
    HS_ASSERT_I64_EQ(b[1], 16);
    HS_ASSERT_I64_EQ(r.step_ns, 32000000);
    /* 25 is not 2 equal micro-batches: never returned */
    CU_ASSERT_FALSE(hs_batchopt_micro_ok(25, 24, 2));
    CU_ASSERT_TRUE(hs_batchopt_micro_ok(26, 24, 2));
    CU_ASSERT_FALSE(hs_batchopt_micro_ok(50, 24, 2));
    HS_ASSERT_I64_EQ(hs_batchopt_micro_floor(25, 24, 2), 24);
    HS_ASSERT_I64_EQ(hs_batchopt_micro_floor(49, 24, 3), 48);
    HS_ASSERT_I64_EQ(hs_batchopt_micro_floor(50, 24, 3), 48);
    HS_ASSERT_I64_EQ(hs_batchopt_micro_floor(51, 24, 3), 51);
    for (round = 0; round < 300; round++) {
        size_t n = 1 + (size_t)(rnd() % 3), t;
        mic_t mc;
        uint64_t c[4], lo = 0, hi = 0, G, sum = 0, bb[4];
        uint32_t mv[4];
        int64_t want, mx = INT64_MIN, v;

        mc.l.fail_t = -1;
        for (t = 0; t < n; t++) {
            mc.l.fixed[t] = (int64_t)(rnd() % 5000);
            mc.l.per[t] = 100 + (int64_t)(rnd() % 3000);
            c[t] = 1 + rnd() % 4;
            mc.maxb[t] = 1 + rnd() % 9;
            mv[t] = 1 + (uint32_t)(rnd() % 4);
            lo += c[t];
            hi += c[t] * mc.maxb[t] * mv[t];
        }
        G = lo + rnd() % (hi - lo + 1);
        HS_ASSERT_I64_EQ(hs_batchopt_solve_micro(n, c, mc.maxb, mv, G,
                                                 mic_time, &mc, bb, &r, &e),
                         HS_OK);
        for (t = 0; t < n; t++) {
            CU_ASSERT_TRUE(mic_allowed(bb[t], mc.maxb[t], mv[t]));
            mic_time(&mc, t, bb[t], &v, NULL);
            sum += c[t] * bb[t];
            if (v > mx)
                mx = v;
        }
        HS_ASSERT_I64_EQ(sum, r.global_batch);
        HS_ASSERT_I64_EQ(mx, r.step_ns);
        want = brute_mic(&mc, n, c, mv, G);
        if (r.global_batch == G) {
            exact++;
            HS_ASSERT_I64_EQ(r.step_ns, want);
        } else {
            CU_ASSERT_TRUE(r.global_batch > G);
            HS_ASSERT_I64_EQ(want, INT64_MAX);
        }
    }
    printf("\n  %d of 300 random cases with micro-batches can make the "
           "global batch\n", exact);
}

static void test_errors(void)
{
    lin_t l = {{0, 0}, {1000, 2000}, -1};
    uint64_t count[2] = {2, 2}, maxb[2] = {8, 8}, b[2];
    hs_batchopt_result_t r;
    hs_error_t e;

    HS_ASSERT_I64_EQ(hs_batchopt_solve(2, count, maxb, 3, lin_time, &l, b,
                                       &r, &e), HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(e.msg, "less than one sample per device");
    HS_ASSERT_I64_EQ(hs_batchopt_solve(2, count, maxb, 33, lin_time, &l, b,
                                       &r, &e), HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(e.msg, "at most 32 samples per step");
    l.fail_t = 1;
    HS_ASSERT_I64_EQ(hs_batchopt_solve(2, count, maxb, 16, lin_time, &l, b,
                                       &r, &e), HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(e.msg, "type 1 has no profile");
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("batch balancing", NULL, NULL);

    CU_add_test(s, "hand-computed batches", test_by_hand);
    CU_add_test(s, "against a brute force (300 cases)", test_brute_force);
    CU_add_test(s, "micro-batches against a brute force", test_micro);
    CU_add_test(s, "bad inputs", test_errors);
    return 0;
}

HS_TEST_MAIN(reg)
