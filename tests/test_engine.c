/*
 * test_engine.c -- the event engine against a naive reference: a plain
 * array searched for its smallest (time, seq) on every pop.  Random
 * workloads with many equal times check that ties fire in insertion order;
 * a tiny capacity driven through many operations checks the free list.
 */
#include <stdlib.h>
#include <string.h>

#include "hs_engine.h"
#include "hs_test.h"

/* ---- the reference: unsorted array, linear scan for the minimum ---- */

typedef struct ref_s {
    hs_event_t *ev;
    size_t n, cap;
    uint64_t seq;
} ref_t;

static void ref_push(ref_t *r, int64_t t, uint32_t kind, uint32_t dev,
                     int64_t arg)
{
    hs_event_t *e;

    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
    }
    e = &r->ev[r->n++];
    e->time_ns = t;
    e->seq = r->seq++;
    e->kind = kind;
    e->device = dev;
    e->arg = arg;
}

static int ref_pop(ref_t *r, hs_event_t *out)
{
    size_t i, m = 0;

    if (r->n == 0)
        return 0;
    for (i = 1; i < r->n; i++) {
        const hs_event_t *a = &r->ev[i], *b = &r->ev[m];
        if (a->time_ns < b->time_ns ||
            (a->time_ns == b->time_ns && a->seq < b->seq))
            m = i;
    }
    *out = r->ev[m];
    r->ev[m] = r->ev[--r->n];
    return 1;
}

/* a small deterministic generator (xorshift64*) */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static int dummy_handler(hs_engine_t *e, void *m, const hs_event_t *ev)
{
    (void)e;
    (void)m;
    (void)ev;
    return 0;
}

static const hs_handler_t one_handler[4] = {dummy_handler, dummy_handler,
                                            dummy_handler, dummy_handler};

/* Random push/pop mixes, times from a narrow range so ties are common.
   With mono set, most pushes are at now + spread (the ring replay's
   pattern: the engine keeps such a non-decreasing run apart from its
   heap), some far later, some sooner. */
static void run_random_mode(uint64_t seed, size_t ops, int64_t spread,
                            size_t cap, int mono)
{
    hs_engine_t *e = NULL;
    hs_error_t err;
    ref_t r = {0};
    uint64_t s = seed;
    size_t i, mismatches = 0, pops = 0;
    int64_t now = 0;

    CU_ASSERT_EQUAL_FATAL(hs_engine_new(cap, one_handler, 4, NULL, &e,
                                        &err), HS_OK);
    for (i = 0; i < ops; i++) {
        uint64_t x = rng_next(&s);
        int do_push = r.n == 0 || (r.n < cap && (x & 3) != 0 &&
                                   (x & 3) != 3) ||
                      (r.n < cap && (x & 16));
        if (do_push) {
            int64_t t = now + (int64_t)((x >> 8) % (uint64_t)spread);
            if (mono && (x >> 50) % 8 == 0)
                t = now + (int64_t)((x >> 8) % (uint64_t)(8 * spread));
            else if (mono && (x >> 50) % 8 == 1)
                t = now + (int64_t)((x >> 8) % 3);
            else if (mono)
                t = now + spread;
            uint32_t kind = (uint32_t)((x >> 40) & 3);
            uint32_t dev = (uint32_t)((x >> 42) & 0xFFFF);
            int64_t arg = (int64_t)(x >> 20);
            if (hs_engine_schedule(e, t, kind, dev, arg) != 0)
                mismatches++;
            ref_push(&r, t, kind, dev, arg);
        } else {
            hs_event_t a, b;
            if (hs_engine_pop(e, &a) != 1 || ref_pop(&r, &b) != 1) {
                mismatches++;
                break;
            }
            pops++;
            if (a.time_ns != b.time_ns || a.seq != b.seq ||
                a.kind != b.kind || a.device != b.device || a.arg != b.arg)
                mismatches++;
            now = a.time_ns;
            if (hs_engine_now(e) != now)
                mismatches++;
        }
        if (hs_engine_pending(e) != r.n)
            mismatches++;
    }
    /* drain */
    for (;;) {
        hs_event_t a, b;
        int ga = hs_engine_pop(e, &a), gb = ref_pop(&r, &b);
        CU_ASSERT_EQUAL(ga, gb);
        if (!ga || !gb)
            break;
        pops++;
        if (a.time_ns != b.time_ns || a.seq != b.seq || a.arg != b.arg)
            mismatches++;
    }
    HS_ASSERT_I64_EQ(mismatches, 0);
    HS_ASSERT_I64_EQ(hs_engine_events(e), pops);
    free(r.ev);
    hs_engine_free(e);
}

static void run_random(uint64_t seed, size_t ops, int64_t spread,
                       size_t cap)
{
    run_random_mode(seed, ops, spread, cap, 0);
}

static void test_random_vs_sorted(void)
{
    run_random(1, 200000, 1000000, 4096);  /* few ties */
    run_random(2, 200000, 3, 4096);        /* mostly ties */
    run_random(3, 200000, 1, 4096);        /* all at the same time */
    run_random(4, 50000, 50, 5);           /* tiny heap, partial levels */
    run_random(5, 40000, 17, 30000);       /* a deeper heap */
    run_random_mode(6, 200000, 1000, 4096, 1); /* mostly non-decreasing */
    run_random_mode(7, 200000, 2, 64, 1);      /* ... with many ties */
    run_random_mode(8, 50000, 40, 5, 1);       /* ... in a tiny queue */
}

/* Equal times come out exactly in insertion order. */
static void test_ties_fifo(void)
{
    hs_engine_t *e = NULL;
    hs_error_t err;
    hs_event_t ev;
    int64_t i, expect = 0;

    CU_ASSERT_EQUAL_FATAL(hs_engine_new(1000, one_handler, 1, NULL, &e,
                                        &err), HS_OK);
    for (i = 0; i < 1000; i++)
        CU_ASSERT_EQUAL(hs_engine_schedule(e, 42, 0, 0, i), 0);
    while (hs_engine_pop(e, &ev)) {
        HS_ASSERT_I64_EQ(ev.arg, expect);
        HS_ASSERT_I64_EQ(ev.time_ns, 42);
        expect++;
    }
    HS_ASSERT_I64_EQ(expect, 1000);
    hs_engine_free(e);
}

/* Capacity 8 through 100000 schedule/pop pairs: slots come back. */
static void test_free_list_reuse(void)
{
    hs_engine_t *e = NULL;
    hs_error_t err;
    hs_event_t ev;
    int i, fails = 0;

    CU_ASSERT_EQUAL_FATAL(hs_engine_new(8, one_handler, 1, NULL, &e, &err),
                          HS_OK);
    for (i = 0; i < 8; i++)
        fails += hs_engine_schedule(e, i, 0, 0, i) != 0;
    /* full: one more is refused and queues nothing */
    CU_ASSERT_EQUAL(hs_engine_schedule(e, 100, 0, 0, -1), -1);
    HS_ASSERT_I64_EQ(hs_engine_pending(e), 8);
    hs_engine_reset(e);
    for (i = 0; i < 8; i++)
        fails += hs_engine_schedule(e, i, 0, 0, i) != 0;
    for (i = 0; i < 100000; i++) {
        CU_ASSERT_EQUAL(hs_engine_pop(e, &ev), 1);
        HS_ASSERT_I64_EQ(ev.arg, i);
        fails += hs_engine_schedule(e, i + 8, 0, 0, i + 8) != 0;
    }
    HS_ASSERT_I64_EQ(fails, 0);
    HS_ASSERT_I64_EQ(hs_engine_pending(e), 8);
    HS_ASSERT_I64_EQ(hs_engine_high_water(e), 8);
    hs_engine_free(e);
}

/* ---- the run loop: a model that schedules from handlers ---- */

typedef struct chain_s {
    uint64_t rng;
    int64_t *order;      /* args in dispatch order */
    size_t n_order, cap_order;
    int64_t next_arg;
    ref_t ref;           /* the same model on the reference queue */
    int stop_at;
} chain_t;

static int chain_mono; /* 1: children mostly at +5 (a sorted run) */

static int64_t chain_dt(uint64_t *rng)
{
    uint64_t x = rng_next(rng);

    if (chain_mono && x % 5 != 0)
        return 5;
    return (int64_t)(x % 4) + (chain_mono ? (int64_t)(x % 11) : 0);
}

static int chain_handler(hs_engine_t *e, void *model, const hs_event_t *ev)
{
    chain_t *c = model;
    int k, spawn;

    if (c->n_order < c->cap_order)
        c->order[c->n_order++] = ev->arg;
    if (c->stop_at >= 0 && ev->arg == c->stop_at)
        return 1;
    spawn = (int)(rng_next(&c->rng) % 3); /* 0, 1 or 2 children */
    for (k = 0; k < spawn && c->next_arg < 20000; k++) {
        int64_t dt = chain_dt(&c->rng);
        hs_engine_schedule(e, ev->time_ns + dt, ev->kind ^ 1u,
                           ev->device, c->next_arg++);
    }
    return 0;
}

/* Replays chain_handler's choices on the reference queue. */
static void chain_reference(uint64_t seed, int64_t *order, size_t *n_out,
                            size_t cap)
{
    ref_t r = {0};
    uint64_t rng = seed;
    int64_t next_arg = 0;
    hs_event_t ev;
    size_t n = 0;
    int i;

    for (i = 0; i < 16; i++)
        ref_push(&r, i / 4, 0, 0, next_arg++);
    while (ref_pop(&r, &ev)) {
        int k, spawn;
        if (n < cap)
            order[n++] = ev.arg;
        spawn = (int)(rng_next(&rng) % 3);
        for (k = 0; k < spawn && next_arg < 20000; k++) {
            int64_t dt = chain_dt(&rng);
            ref_push(&r, ev.time_ns + dt, ev.kind ^ 1u, 0, next_arg++);
        }
    }
    free(r.ev);
    *n_out = n;
}

static void run_chain(void)
{
    hs_handler_t h[2] = {chain_handler, chain_handler};
    hs_engine_t *e = NULL;
    hs_error_t err;
    chain_t c;
    int64_t *ref_order = malloc(40000 * sizeof *ref_order);
    size_t n_ref = 0, i, diff = 0;
    int k;

    memset(&c, 0, sizeof c);
    c.rng = 99;
    c.cap_order = 40000;
    c.order = malloc(c.cap_order * sizeof *c.order);
    c.stop_at = -1;
    CU_ASSERT_EQUAL_FATAL(hs_engine_new(30000, h, 2, &c, &e, &err), HS_OK);
    for (k = 0; k < 16; k++)
        hs_engine_schedule(e, k / 4, 0, 0, c.next_arg++);
    CU_ASSERT_EQUAL(hs_engine_run(e, &err), HS_OK);
    chain_reference(99, ref_order, &n_ref, 40000);
    HS_ASSERT_I64_EQ(c.n_order, n_ref);
    for (i = 0; i < n_ref && i < c.n_order; i++)
        diff += c.order[i] != ref_order[i];
    HS_ASSERT_I64_EQ(diff, 0);
    HS_ASSERT_I64_EQ(hs_engine_events(e), c.n_order);

    /* a handler returning non-zero stops the loop, not an error */
    hs_engine_reset(e);
    memset(c.order, 0, c.cap_order * sizeof *c.order);
    c.n_order = 0;
    c.next_arg = 0;
    c.rng = 99;
    c.stop_at = 5;
    for (k = 0; k < 16; k++)
        hs_engine_schedule(e, k / 4, 0, 0, c.next_arg++);
    CU_ASSERT_EQUAL(hs_engine_run(e, &err), HS_OK);
    HS_ASSERT_I64_EQ(c.order[c.n_order - 1], 5);
    CU_ASSERT_TRUE(hs_engine_pending(e) > 0);
    free(c.order);
    free(ref_order);
    hs_engine_free(e);
}

static void test_run_matches_reference(void)
{
    chain_mono = 0;
    run_chain();
    chain_mono = 1; /* handlers' events mostly join the sorted run */
    run_chain();
    chain_mono = 0;
}

/* Failures: a full queue or a time in the past stops run with an error. */
static int overflow_handler(hs_engine_t *e, void *m, const hs_event_t *ev)
{
    (void)m;
    hs_engine_schedule(e, ev->time_ns + 1, 0, 0, 0);
    hs_engine_schedule(e, ev->time_ns + 1, 0, 0, 0);
    return 0;
}

static int past_handler(hs_engine_t *e, void *m, const hs_event_t *ev)
{
    (void)m;
    hs_engine_schedule(e, ev->time_ns - 1, 0, 0, 0);
    return 0;
}

static void test_failures(void)
{
    hs_handler_t h1[1] = {overflow_handler}, h2[1] = {past_handler};
    hs_engine_t *e = NULL;
    hs_error_t err;

    CU_ASSERT_EQUAL(hs_engine_new(0, h1, 1, NULL, &e, &err), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_EQUAL_FATAL(hs_engine_new(64, h1, 1, NULL, &e, &err), HS_OK);
    hs_engine_schedule(e, 0, 0, 0, 0);
    CU_ASSERT_EQUAL(hs_engine_run(e, &err), HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(err.msg, "full");
    CU_ASSERT_EQUAL(hs_engine_schedule(e, 0, 7, 0, 0), -1); /* no kind 7 */
    hs_engine_free(e);

    CU_ASSERT_EQUAL_FATAL(hs_engine_new(64, h2, 1, NULL, &e, &err), HS_OK);
    hs_engine_schedule(e, 10, 0, 0, 0);
    CU_ASSERT_EQUAL(hs_engine_run(e, &err), HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(err.msg, "before the current time");
    HS_ASSERT_I64_EQ(hs_engine_events(e), 1);
    hs_engine_free(e);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("engine", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "heap vs sorted reference", test_random_vs_sorted) ==
            NULL ||
        CU_add_test(s, "equal times fire in insertion order",
                    test_ties_fifo) == NULL ||
        CU_add_test(s, "free list reuse", test_free_list_reuse) == NULL ||
        CU_add_test(s, "run loop vs reference", test_run_matches_reference) ==
            NULL ||
        CU_add_test(s, "failures", test_failures) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_tests)
