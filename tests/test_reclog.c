/*
 * test_reclog.c -- the record log of the trace reader (hs_reclog.h):
 *   - round trip: records of 8, 16, 24 and 40 bytes (encoded as lanes)
 *     and of 12 (written raw), random, edge (0, all ones, INT64_MIN and
 *     INT64_MAX lanes), alternating extremes and slowly growing lanes,
 *     under budgets from one record to all of them in memory (blocks
 *     that cut the zones anywhere), keyed or not, replayed whole
 *     (hs_reclog_each) and by random key ranges (hs_reclog_each_range)
 *     against a filter of the records as added, sealed and added to
 *     after the seal;
 *   - the encoding is compact on trace-like records, and a narrow range
 *     on sorted keys skips zones;
 *   - a corrupted or truncated temporary file is an HS_ERR_IO that says
 *     so, never a read out of bounds; the zones left intact still replay.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_reclog.h"
#include "hs_test.h"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* A record's key: its first 8 bytes as a signed number. */
static int64_t key_of(const void *rec)
{
    int64_t k;

    memcpy(&k, rec, sizeof k);
    return k;
}

/* One lane's value for record i: random, an edge value, alternating
   extremes or slowly growing, the kind changing along the records. */
static uint64_t lane_value(uint64_t *s, size_t i, size_t k)
{
    static const uint64_t edge[] = {
        0, UINT64_MAX, UINT64_C(1) << 63, (UINT64_C(1) << 63) - 1, 1,
        UINT64_MAX - 1, (UINT64_C(1) << 63) + 1};

    switch ((k * 7 + i / 500) % 4) {
    case 0:
        return rng_next(s);
    case 1:
        return edge[rng_next(s) % (sizeof edge / sizeof *edge)];
    case 2:
        return i % 2 ? UINT64_C(1) << 63 : (UINT64_C(1) << 63) - 1;
    default:
        return (uint64_t)i * 1000u + rng_next(s) % 50u;
    }
}

/* n records of rs bytes; the key (first 8 bytes) sorted and growing
   when sorted, else drawn like any lane. */
static unsigned char *make_recs(size_t rs, size_t n, int sorted,
                                uint64_t seed)
{
    unsigned char *a = malloc(rs * n);
    uint64_t s = seed;
    size_t i, k;

    for (i = 0; i < n; i++) {
        unsigned char *r = a + i * rs;

        for (k = 0; k * 8 + 8 <= rs; k++) {
            uint64_t v = lane_value(&s, i, k);

            if (k == 0 && sorted)
                v = (uint64_t)i * 997u + rng_next(&s) % 500u;
            memcpy(r + k * 8, &v, 8);
        }
        for (k = k * 8; k < rs; k++)
            r[k] = (unsigned char)rng_next(&s);
    }
    return a;
}

/* What a replay handed over. */
typedef struct got_s {
    size_t rs, n, cap;
    unsigned char *buf;
    size_t stop_at;     /* HS_ERR_RANGE at this record (0: never) */
} got_t;

static hs_err_t collect(void *ctx, const void *rec)
{
    got_t *g = ctx;

    if (g->stop_at != 0 && g->n + 1 == g->stop_at)
        return HS_ERR_RANGE;
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 1024;
        g->buf = realloc(g->buf, g->cap * g->rs);
    }
    memcpy(g->buf + g->n * g->rs, rec, g->rs);
    g->n++;
    return HS_OK;
}

/* Replays l whole: every record of ref (n), in order. */
static void check_each(hs_reclog_t *l, const unsigned char *ref, size_t n)
{
    got_t g = {l->rec_size, 0, 0, NULL, 0};
    hs_error_t err;

    HS_ASSERT_I64_EQ(hs_reclog_each(l, collect, &g, "t", &err), HS_OK);
    HS_ASSERT_I64_EQ(g.n, n);
    CU_ASSERT(g.n == n && (n == 0 || memcmp(g.buf, ref, n * g.rs) == 0));
    free(g.buf);
}

/* Replays l over [lo, hi]: what comes is a subsequence of ref in order,
   and holds every record of ref whose key is in range; the records
   handed over, through *n_got. */
static void check_range(hs_reclog_t *l, const unsigned char *ref, size_t n,
                        int64_t lo, int64_t hi, size_t *n_got)
{
    got_t g = {l->rec_size, 0, 0, NULL, 0};
    hs_error_t err;
    size_t i, j = 0, ok = 1;

    HS_ASSERT_I64_EQ(hs_reclog_each_range(l, lo, hi, collect, &g, "t", &err),
                     HS_OK);
    for (i = 0; i < n && ok; i++) {
        const unsigned char *r = ref + i * g.rs;
        int64_t k = key_of(r);
        int match = j < g.n && memcmp(g.buf + j * g.rs, r, g.rs) == 0;

        if (match)
            j++;
        else if (k >= lo && k <= hi)
            ok = 0;     /* a record of the range left out */
    }
    CU_ASSERT(ok && j == g.n);
    *n_got = g.n;
    free(g.buf);
}

/* One log: rs, budget (records), keyed, sorted keys. */
static void round_trip(size_t rs, size_t budget, int keyed, int sorted,
                       uint64_t seed)
{
    size_t n = budget == 1 ? 3000 : 40000, i, part = n * 2 / 3, got;
    unsigned char *ref = make_recs(rs, n, sorted, seed);
    hs_reclog_t l;
    hs_error_t err;
    uint64_t s = seed ^ 0x5555;

    hs_reclog_init(&l, rs, budget * rs);
    if (keyed)
        hs_reclog_set_key(&l, key_of);
    for (i = 0; i < part; i++)
        HS_ASSERT_I64_EQ(hs_reclog_add(&l, ref + i * rs, "t", &err), HS_OK);
    check_each(&l, ref, part);
    HS_ASSERT_I64_EQ(hs_reclog_seal(&l, "t", &err), HS_OK);
    check_each(&l, ref, part);
    for (; i < n; i++)     /* more after the seal, on into the open zone */
        HS_ASSERT_I64_EQ(hs_reclog_add(&l, ref + i * rs, "t", &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_reclog_seal(&l, "t", &err), HS_OK);
    HS_ASSERT_I64_EQ(l.n, n);
    CU_ASSERT_EQUAL(l.n_spilled == n, budget < n);
    if (l.spill != NULL) {
        CU_ASSERT_PTR_NULL(l.mem);
        CU_ASSERT_PTR_NULL(l.wbuf);
        HS_ASSERT_I64_EQ(l.n_zones, (n + l.zone_recs - 1) / l.zone_recs);
    }
    check_each(&l, ref, n);
    for (i = 0; i < 12; i++) {
        int64_t a = key_of(ref + (rng_next(&s) % n) * rs);
        int64_t b = key_of(ref + (rng_next(&s) % n) * rs);

        check_range(&l, ref, n, a < b ? a : b, a < b ? b : a, &got);
    }
    check_range(&l, ref, n, INT64_MIN, INT64_MAX, &got);
    HS_ASSERT_I64_EQ(got, n);
    check_range(&l, ref, n, 1, 0, &got);    /* an empty range */
    hs_reclog_clear(&l);
    free(ref);
}

static void test_round_trip(void)
{
    static const size_t sizes[] = {8, 16, 24, 40, 12};
    static const size_t budgets[] = {1, 37, 5000, 100000};
    size_t a, b;
    int keyed, sorted;

    for (a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (b = 0; b < sizeof budgets / sizeof *budgets; b++)
            for (keyed = 0; keyed < 2; keyed++)
                for (sorted = 0; sorted < 2; sorted++)
                    round_trip(sizes[a], budgets[b], keyed, sorted,
                               a * 1000 + b * 10 + (size_t)keyed * 2 +
                                   (size_t)sorted);
}

/* Kernel-like records {corr, dur}: compact on disk, and a narrow range
   of sorted keys reads only a zone or two back. */
static void test_compact_and_skips(void)
{
    size_t n = 50000, i, got;
    unsigned char *ref = malloc(n * 16);
    hs_reclog_t l;
    hs_error_t err;
    uint64_t s = 7;

    for (i = 0; i < n; i++) {
        uint64_t corr = 1000 + i, dur = 2000 + rng_next(&s) % 3000;
        memcpy(ref + i * 16, &corr, 8);
        memcpy(ref + i * 16 + 8, &dur, 8);
    }
    hs_reclog_init(&l, 16, 1000 * 16);
    hs_reclog_set_key(&l, key_of);
    for (i = 0; i < n; i++)
        HS_ASSERT_I64_EQ(hs_reclog_add(&l, ref + i * 16, "t", &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_reclog_seal(&l, "t", &err), HS_OK);
    CU_ASSERT(l.spill_bytes * 4 < n * 16);
    check_each(&l, ref, n);
    check_range(&l, ref, n, 1000 + 20000, 1000 + 20010, &got);
    CU_ASSERT(got >= 11 && got <= 2 * l.zone_recs);
    hs_reclog_clear(&l);
    free(ref);
}

/* A replay stops at its callback's first error and returns it. */
static void test_stop(void)
{
    unsigned char *ref = make_recs(24, 5000, 1, 3);
    got_t g = {24, 0, 0, NULL, 1234};
    hs_reclog_t l;
    hs_error_t err;
    size_t i;

    hs_reclog_init(&l, 24, 100 * 24);
    hs_reclog_set_key(&l, key_of);
    for (i = 0; i < 5000; i++)
        HS_ASSERT_I64_EQ(hs_reclog_add(&l, ref + i * 24, "t", &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_reclog_each(&l, collect, &g, "t", &err),
                     HS_ERR_RANGE);
    HS_ASSERT_I64_EQ(g.n, 1233);
    g.n = 0;
    HS_ASSERT_I64_EQ(hs_reclog_each_range(&l, INT64_MIN, INT64_MAX, collect,
                                          &g, "t", &err), HS_ERR_RANGE);
    hs_reclog_clear(&l);
    free(g.buf);
    free(ref);
}

/* A sealed log of n records of rs bytes, 3 zones or more, keyed and
   sorted; its records in *ref. */
static void spilled_log(hs_reclog_t *l, size_t rs, size_t n,
                        unsigned char **ref)
{
    hs_error_t err;
    size_t i;

    *ref = make_recs(rs, n, 1, 11);
    hs_reclog_init(l, rs, 100 * rs);
    hs_reclog_set_key(l, key_of);
    for (i = 0; i < n; i++)
        HS_ASSERT_I64_EQ(hs_reclog_add(l, *ref + i * rs, "t", &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_reclog_seal(l, "t", &err), HS_OK);
    CU_ASSERT(l->n_zones >= 3);
}

/* Overwrites zone 1 of l with byte b (how 0), its last byte with b (how
   1), or its first bytes with 9 continuation bytes then b (how 2); expects
   each to fail saying why, a range in zone 0 to go on, then restores. */
static void corrupt_zone1(hs_reclog_t *l, const unsigned char *ref, int b,
                          int how, const char *why)
{
    uint64_t off = l->zones[1].off, len = l->zones[2].off - off;
    unsigned char *keep = malloc(len), *bad = malloc(len);
    got_t g = {l->rec_size, 0, 0, NULL, 0};
    hs_error_t err;
    size_t got;

    CU_ASSERT_EQUAL(hs_reclog_pread(l->spill, keep, len, off), 0);
    memcpy(bad, keep, len);
    if (how == 1)
        bad[len - 1] = (unsigned char)b;
    else if (how == 2) {
        memset(bad, 0xff, 9);
        bad[9] = (unsigned char)b;
    } else
        memset(bad, b, len);
    CU_ASSERT_EQUAL(hs_reclog_pwrite(l->spill, bad, len, off), 0);
    HS_ASSERT_I64_EQ(hs_reclog_each(l, collect, &g, "t.json", &err),
                     HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, "cannot read the trace's records back");
    HS_ASSERT_STR_CONTAINS(err.msg, why);
    CU_ASSERT(g.n <= l->zone_recs);     /* zone 0 only */
    check_range(l, ref, l->zone_recs, key_of(ref), key_of(ref) + 10, &got);
    CU_ASSERT_EQUAL(hs_reclog_pwrite(l->spill, keep, len, off), 0);
    check_each(l, ref, (size_t)l->n);
    free(g.buf);
    free(keep);
    free(bad);
}

static void test_corrupt(void)
{
    unsigned char *ref;
    hs_reclog_t l;
    got_t g = {16, 0, 0, NULL, 0};
    hs_error_t err;

    spilled_log(&l, 16, 20000, &ref);
    corrupt_zone1(&l, ref, 0xff, 0, "corrupted");  /* varints past 64 bits */
    corrupt_zone1(&l, ref, 0x00, 0, "corrupted");  /* bytes left over */
    corrupt_zone1(&l, ref, 0x80, 1, "corrupted");  /* runs past the end */
    corrupt_zone1(&l, ref, 0x02, 2, "corrupted");  /* a 10th byte > 1 */
    /* truncated in zone 1 */
    CU_ASSERT_EQUAL(ftruncate(fileno(l.spill), (off_t)l.zones[1].off + 5), 0);
    HS_ASSERT_I64_EQ(hs_reclog_each(&l, collect, &g, "t.json", &err),
                     HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, "short file");
    HS_ASSERT_STR_CONTAINS(err.msg, "t.json");
    hs_reclog_clear(&l);
    free(ref);
    free(g.buf);

    /* raw records (12 bytes): truncated */
    spilled_log(&l, 12, 20000, &ref);
    g.rs = 12;
    g.n = g.cap = 0;
    g.buf = NULL;
    CU_ASSERT_EQUAL(ftruncate(fileno(l.spill), (off_t)l.zones[2].off - 1), 0);
    HS_ASSERT_I64_EQ(hs_reclog_each_range(&l, INT64_MIN, INT64_MAX, collect,
                                          &g, "t.json", &err), HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, "short file");
    HS_ASSERT_I64_EQ(g.n, l.zone_recs);
    hs_reclog_clear(&l);
    free(ref);
    free(g.buf);
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("reclog", NULL, NULL);

    CU_add_test(s, "round trip: sizes, values, budgets, keys, ranges",
                test_round_trip);
    CU_add_test(s, "compact on disk, ranges skip zones",
                test_compact_and_skips);
    CU_add_test(s, "a replay stops at its callback's error", test_stop);
    CU_add_test(s, "a corrupted or truncated file is an I/O error",
                test_corrupt);
    return 0;
}

HS_TEST_MAIN(reg)
