/*
 * test_ringopt.c -- the ring-order search (model/hs_ringopt.h) against a
 * brute force over every order, and the heuristic against its starts and
 * its stated lower bound.
 */
#include <stdlib.h>
#include <string.h>

#include "hs_ringopt.h"
#include "hs_test.h"

/* A cost table shaped like the closed form's: a sender's compute plus
   rounds over the edge's bandwidth, devices of a few types. */
typedef struct tbl_s {
    uint32_t n;
    int64_t *w;
    int fail_i, fail_j;     /* this edge's cost fails (-1: none) */
} tbl_t;

static hs_err_t tbl_cost(void *ctx, uint32_t i, uint32_t j, int64_t *c,
                         hs_error_t *err)
{
    tbl_t *t = ctx;

    if ((int)i == t->fail_i && (int)j == t->fail_j)
        return hs_error_setf(err, HS_ERR_NETWORK, "no bandwidth for %u -> "
                             "%u", i, j);
    *c = t->w[(size_t)i * t->n + j];
    return HS_OK;
}

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void tbl_random(tbl_t *t, uint32_t n)
{
    uint32_t i, j, types = 1 + (uint32_t)(rnd() % 3);
    int64_t pre[3], bw_type[3][3];
    uint32_t a, b, ty[64];

    t->n = n;
    t->fail_i = t->fail_j = -1;
    t->w = malloc((size_t)n * n * sizeof *t->w);
    for (a = 0; a < 3; a++) {
        pre[a] = 1000 + (int64_t)(rnd() % 5000);
        for (b = 0; b < 3; b++)
            bw_type[a][b] = 100 + (int64_t)(rnd() % 4000);
    }
    for (i = 0; i < n; i++)
        ty[i] = (uint32_t)(rnd() % types);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            int64_t link = bw_type[ty[i]][ty[j]];

            if (rnd() % 5 == 0)     /* a pair row: a slow or fast link */
                link = 50 + (int64_t)(rnd() % 9000);
            t->w[(size_t)i * n + j] = i == j ? 0 : pre[ty[i]] + link;
        }
}

/* Brute force over every order with device 0 first, by next
   permutation (lexicographic) of o[1..n-1]. */
static void brute(const tbl_t *t, int64_t *best_max, int64_t *best_sum)
{
    uint32_t n = t->n, o[16], k, i, j, x;

    for (k = 0; k < n; k++)
        o[k] = k;
    *best_max = INT64_MAX;
    *best_sum = INT64_MAX;
    for (;;) {
        int64_t mx = 0, sm = 0;

        for (k = 0; k < n; k++) {
            int64_t w = t->w[(size_t)o[k] * n + o[(k + 1) % n]];

            if (w > mx)
                mx = w;
            sm += w;
        }
        if (mx < *best_max || (mx == *best_max && sm < *best_sum)) {
            *best_max = mx;
            *best_sum = sm;
        }
        /* next permutation of o[1..n-1] */
        for (i = n - 2; i >= 1 && o[i] > o[i + 1]; i--)
            ;
        if (i < 1)
            break;
        for (j = n - 1; o[j] < o[i]; j--)
            ;
        x = o[i];
        o[i] = o[j];
        o[j] = x;
        for (j = n - 1, i = i + 1; i < j; i++, j--) {
            x = o[i];
            o[i] = o[j];
            o[j] = x;
        }
    }
}

/* Simpler and surely right: recursive enumeration. */
static void perm_rec(const tbl_t *t, uint32_t *o, unsigned char *used,
                     uint32_t k, int64_t mx, int64_t sm, int64_t *bm,
                     int64_t *bs)
{
    uint32_t n = t->n, j;

    if (k == n) {
        int64_t w = t->w[(size_t)o[n - 1] * n + o[0]];

        if (w > mx)
            mx = w;
        sm += w;
        if (mx < *bm || (mx == *bm && sm < *bs)) {
            *bm = mx;
            *bs = sm;
        }
        return;
    }
    for (j = 1; j < n; j++) {
        int64_t w;

        if (used[j])
            continue;
        w = t->w[(size_t)o[k - 1] * n + j];
        used[j] = 1;
        o[k] = j;
        perm_rec(t, o, used, k + 1, w > mx ? w : mx, sm + w, bm, bs);
        used[j] = 0;
    }
}

static void brute_rec(const tbl_t *t, int64_t *bm, int64_t *bs)
{
    uint32_t o[16] = {0};
    unsigned char used[16] = {0};

    *bm = INT64_MAX;
    *bs = INT64_MAX;
    used[0] = 1;
    perm_rec(t, o, used, 1, 0, 0, bm, bs);
}

static void test_exact_matches_brute_force(void)
{
    int round;

    for (round = 0; round < 120; round++) {
        tbl_t t;
        uint32_t n = 2 + (uint32_t)(round % 7);     /* 2..8 */
        hs_ringopt_result_t *r = NULL;
        hs_error_t e;
        int64_t bm, bs, bm2, bs2, mx, sm;

        tbl_random(&t, n);
        brute_rec(&t, &bm, &bs);
        if (n >= 3) {
            brute(&t, &bm2, &bs2);  /* a second, independent brute force */
            HS_ASSERT_I64_EQ(bm2, bm);
            HS_ASSERT_I64_EQ(bs2, bs);
        }
        HS_ASSERT_I64_EQ(hs_ringopt_search(n, tbl_cost, &t, NULL, 0, 0, 0,
                                           &r, &e), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_TRUE(r->exact);
        HS_ASSERT_I64_EQ(r->max_ns, bm);
        HS_ASSERT_I64_EQ(r->sum_ns, bs);
        /* the order it returns has the figures it claims */
        HS_ASSERT_I64_EQ(hs_ringopt_eval(n, r->order, tbl_cost, &t, &mx,
                                         &sm, &e), HS_OK);
        HS_ASSERT_I64_EQ(mx, bm);
        HS_ASSERT_I64_EQ(sm, bs);
        CU_ASSERT_TRUE(r->lower_bound_ns <= r->max_ns);
        hs_ringopt_result_free(r);
        free(t.w);
    }
}

static void test_heuristic_never_worse(void)
{
    int round;
    double gap_sum = 0;
    int optimal = 0;

    for (round = 0; round < 60; round++) {
        tbl_t t;
        uint32_t n = 5 + (uint32_t)(round % 4) * 10;  /* 5..35 */
        uint32_t *st[2], k;
        hs_ringopt_result_t *r = NULL;
        hs_error_t e;
        int64_t m0, s0, m1, s1, bm, bs;

        tbl_random(&t, n);
        st[0] = malloc(n * sizeof **st);
        st[1] = malloc(n * sizeof **st);
        for (k = 0; k < n; k++) {
            st[0][k] = k;
            st[1][k] = n - 1 - k;
        }
        hs_ringopt_eval(n, st[0], tbl_cost, &t, &m0, &s0, &e);
        hs_ringopt_eval(n, st[1], tbl_cost, &t, &m1, &s1, &e);
        /* exact_max 1: always the heuristic */
        HS_ASSERT_I64_EQ(hs_ringopt_search(n, tbl_cost, &t,
                                           (const uint32_t *const *)st, 2,
                                           1, 0, &r, &e), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_FALSE(r->exact);
        CU_ASSERT_TRUE(r->max_ns < m0 || (r->max_ns == m0 && r->sum_ns <= s0));
        CU_ASSERT_TRUE(r->max_ns < m1 || (r->max_ns == m1 && r->sum_ns <= s1));
        CU_ASSERT_TRUE(r->lower_bound_ns <= r->max_ns);
        if (n <= 8) {
            brute_rec(&t, &bm, &bs);
            CU_ASSERT_TRUE(r->max_ns >= bm);    /* the optimum is optimal */
        }
        if (r->max_ns == r->lower_bound_ns)
            optimal++;
        gap_sum += (double)(r->max_ns - r->lower_bound_ns) /
                   (double)r->lower_bound_ns;
        hs_ringopt_result_free(r);
        free(st[0]);
        free(st[1]);
        free(t.w);
    }
    printf("\n  heuristic: %d of 60 at the lower bound, mean gap %.2f%%\n",
           optimal, 100.0 * gap_sum / 60);
}

/* A ring with one slow pair: the search must route around it. */
static void test_avoids_slow_pair(void)
{
    tbl_t t;
    uint32_t n = 6, i, j, *o;
    hs_ringopt_result_t *r = NULL;
    hs_error_t e;

    t.n = n;
    t.fail_i = t.fail_j = -1;
    t.w = malloc(n * n * sizeof *t.w);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            t.w[i * n + j] = 100;
    t.w[0 * n + 1] = 10000;    /* 0 -> 1 is slow, the listing order has it */
    o = malloc(n * sizeof *o);
    for (i = 0; i < n; i++)
        o[i] = i;
    HS_ASSERT_I64_EQ(hs_ringopt_search(n, tbl_cost, &t,
                                       (const uint32_t *const *)&o, 1, 0, 0,
                                       &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->max_ns, 100);
    HS_ASSERT_I64_EQ(r->sum_ns, 600);
    HS_ASSERT_I64_EQ(r->lower_bound_ns, 100);
    hs_ringopt_result_free(r);
    /* and the heuristic too */
    HS_ASSERT_I64_EQ(hs_ringopt_search(n, tbl_cost, &t,
                                       (const uint32_t *const *)&o, 1, 1, 0,
                                       &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->max_ns, 100);
    hs_ringopt_result_free(r);
    free(o);
    free(t.w);
}

static void test_errors(void)
{
    tbl_t t;
    hs_ringopt_result_t *r = NULL;
    hs_error_t e;
    uint32_t bad[3] = {0, 0, 1};
    const uint32_t *st = bad;

    tbl_random(&t, 3);
    HS_ASSERT_I64_EQ(hs_ringopt_search(1, tbl_cost, &t, NULL, 0, 0, 0, &r,
                                       &e), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(e.msg, "at least 2 devices");
    HS_ASSERT_I64_EQ(hs_ringopt_search(3, tbl_cost, &t, &st, 1, 0, 0, &r,
                                       &e), HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(e.msg, "not a permutation");
    t.fail_i = 1;
    t.fail_j = 2;
    HS_ASSERT_I64_EQ(hs_ringopt_search(3, tbl_cost, &t, NULL, 0, 0, 0, &r,
                                       &e), HS_ERR_NETWORK);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(e.msg, "no bandwidth for 1 -> 2");
    free(t.w);
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("ring order search", NULL, NULL);

    CU_add_test(s, "exact search = brute force (n 2..8, 120 cases)",
                test_exact_matches_brute_force);
    CU_add_test(s, "heuristic never worse than its starts, above its bound",
                test_heuristic_never_worse);
    CU_add_test(s, "routes around a slow pair", test_avoids_slow_pair);
    CU_add_test(s, "bad inputs", test_errors);
    return 0;
}

HS_TEST_MAIN(reg)
