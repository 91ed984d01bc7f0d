/*
 * test_ingest_samples.c -- the profile's samples past their cap
 * (hs_ingest_opts_t.max_samples, docs/ingest.md "Samples"):
 *   - hs_osel (exact median and trimmed sum over repeated passes)
 *     against sorting, on random values: narrow and wide ranges, many
 *     equal values, negative values, the int64 extremes, values given
 *     in a different order each pass;
 *   - a written two-rank trace of 3,000 + 1,500 steps whose forward
 *     times span 34 bits with many ties: under caps of 1, 100, 2,000
 *     and 4,459 (below the 4,460 kept steps: the ranks sorted in
 *     memory), 4,460 and none, steps in memory or spilled, every statistic:
 *     the mean, sd, per-rank medians and trimmed means are those
 *     computed here from the steps by sorting, and those of the
 *     uncapped ingestion; the samples are the cap's count, a
 *     subsequence of all of them in rank-then-step order, the same on
 *     a second ingestion, spread over the steps;
 *   - the real and test traces under tiny caps: the same figures as
 *     without a cap.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_ingest.h"
#include "hs_osel.h"
#include "hs_stats.h"
#include "hs_test.h"
#include "ingest_check.h"

#define REAL HS_TEST_SRC "/tests/data/real/"
#define DATA HS_TEST_SRC "/tests/data/ingest/"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The median and trimmed mean of v[0, n) by sorting a copy, as the
   ingestion does in memory (sum in sorted order, as doubles). */
static void by_sorting(const int64_t *v, size_t n, double *median,
                       double *trimmed)
{
    int64_t *c = malloc(n * sizeof *c);
    size_t k = (size_t)floor(HS_INGEST_TRIM * (double)n), i;
    double sum = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_i64);
    *median = n % 2 ? (double)c[n / 2]
                    : ((double)c[n / 2 - 1] + (double)c[n / 2]) / 2.0;
    for (i = k; i < n - k; i++)
        sum += (double)c[i];
    *trimmed = sum / (double)(n - 2 * k);
    free(c);
}

/* A small deterministic generator for the tests' values. */
static uint64_t next_u64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* hs_osel over v[0, n) (given forward on even passes, backward on odd
   ones): the median and trimmed mean. */
static void by_osel(const int64_t *v, size_t n, double *median,
                    double *trimmed)
{
    hs_osel_t s;
    int64_t lo = v[0], hi = v[0];
    size_t i, k = (size_t)floor(HS_INGEST_TRIM * (double)n), pass = 0;
    double sum;

    for (i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    hs_osel_init(&s, n, k, lo, hi);
    while (hs_osel_more(&s)) {
        for (i = 0; i < n; i++)
            hs_osel_add(&s, v[pass % 2 ? n - 1 - i : i]);
        hs_osel_next(&s);
        pass++;
        CU_ASSERT_FATAL(pass <= 10);    /* 8 digits, the sums, done */
    }
    hs_osel_result(&s, median, &sum);
    *trimmed = sum / (double)(n - 2 * k);
}

static void test_osel_against_sorting(void)
{
    static const size_t sizes[] = {1, 2, 3, 9, 10, 11, 20, 101, 1000, 4096};
    static const int kinds = 6;
    uint64_t rng = 0x2545f4914f6cdd1dULL;
    size_t si, i, checked = 0;
    int kind;

    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (kind = 0; kind < kinds; kind++) {
            size_t n = sizes[si];
            int64_t *v = malloc(n * sizeof *v);
            double ma, ta, mb, tb;
            CU_ASSERT_PTR_NOT_NULL_FATAL(v);
            for (i = 0; i < n; i++) {
                uint64_t r = next_u64(&rng);
                switch (kind) {
                case 0: v[i] = 1000000 + (int64_t)(r % 1000); break;
                case 1: v[i] = (int64_t)(r % 5) * 1000000007LL; break;
                case 2: v[i] = 42; break;
                case 3: v[i] = (int64_t)(r >> 30) - (1LL << 33); break;
                case 4: v[i] = (int64_t)(r % 3) - 1; break;
                default:   /* the extremes, sums far past 2^64 */
                    v[i] = r % 3 == 0 ? INT64_MAX
                           : r % 3 == 1 ? INT64_MIN : (int64_t)r;
                }
            }
            by_osel(v, n, &mb, &tb);
            by_sorting(v, n, &ma, &ta);
            CU_ASSERT_EQUAL(ma, mb);
            if (kind < 5) { /* sums below 2^53: the sorted sum exact */
                CU_ASSERT_EQUAL(ta, tb);
            } else { /* the exact sum rounded once: near the sorted one */
                CU_ASSERT(fabs(ta - tb) <= fabs(ta) * 0x1p-40 + 1);
            }
            checked++;
            free(v);
        }
    HS_ASSERT_I64_EQ(checked, 60);
}

/* ------------------------------------------------------------------ */
/* A written trace of many steps                                         */

#define N0 3000
#define N1 1500

/* Step k's forward time (ns) on rank `rank`: many ties, a few values
   up to ~10 s (34 bits), so the selection needs 5 digit passes. */
static int64_t fwd_ns_of(int rank, size_t k)
{
    if (k % 13 == 5)
        return (int64_t)(k * 3000017u % 9999999991u) + 1;
    if (rank == 0)
        return 1000 + (int64_t)(k * 7919 % 97) * 1000;
    return 2000 + (int64_t)(k * 104729 % 991) * 37;
}

/* Writes rank's trace of n steps (20 s windows) to path: step k's
   forward fwd_ns_of(rank, k), its one backward operator (t_b1) 10 us +
   k ns + rank ms: each step's own. */
static void write_trace(const char *path, int rank, size_t n)
{
    FILE *f = fopen(path, "w");
    size_t k;

    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2},\n"
               " \"traceEvents\": [\n", rank);
    for (k = 0; k < n; k++) {
        long long s = (long long)k * 20000000000LL + 1000000;
        long long b = s + fwd_ns_of(rank, k);
        long long b1 = 10000 + (long long)k + 1000000LL * rank;
        fprintf(f,
                "%s{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                "\"ProfilerStep#%zu\", \"pid\": 1, \"tid\": 1, \"ts\": "
                "%lld.%03lld, \"dur\": 19000000},\n"
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                "\"autograd::engine::evaluate_function: XBackward0\", "
                "\"pid\": 1, \"tid\": 1, \"ts\": %lld.%03lld, \"dur\": "
                "%lld.%03lld},\n"
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                "\"record_param_comms\", \"pid\": 1, \"tid\": 1, \"ts\": "
                "%lld.%03lld, \"dur\": 1, \"args\": {\"Collective name\": "
                "\"allreduce\", \"In msg nelems\": 100, \"dtype\": "
                "\"Float\"}}",
                k ? ",\n" : "", k, s / 1000, s % 1000, b / 1000, b % 1000,
                b1 / 1000, b1 % 1000, (b + b1 + 100) / 1000,
                (b + b1 + 100) % 1000);
    }
    fprintf(f, "\n]}\n");
    fclose(f);
}

/* Phase ph of profile p (HS_INGEST_PH_* order). */
static const hs_dist_t *phase(const hs_profile_t *p, size_t ph)
{
    const hs_dist_t *const d[HS_INGEST_PH_N] = {&p->t_dl, &p->t_fwd,
                                                &p->t_b1, &p->t_bwd,
                                                &p->t_opt};
    return d[ph];
}

/* The phase ph time of a step (HS_INGEST_UNKNOWN when not known). */
static int64_t step_ph(const hs_ingest_step_t *s, size_t ph)
{
    const int64_t v[HS_INGEST_PH_N] = {s->t_dl_ns, s->t_fwd_ns, s->t_b1_ns,
                                       s->t_bwd_ns, s->t_opt_ns};
    return v[ph];
}

/* The robust figures and sd of ing's phase ph computed here from its
   kept steps (by sorting each rank's values) against rb and d's sd;
   all[0, *n) gets every value in rank-then-step order (room for cap). */
static void check_by_hand(hs_ingest_t *ing, size_t ph,
                          const hs_ingest_robust_t *rb, const hs_dist_t *d,
                          int64_t *all, size_t cap, size_t *n)
{
    double means = 0, meds = 0, trims = 0;
    size_t i, j, ranks = 0;
    int64_t sd;
    hs_error_t err;

    *n = 0;
    for (i = 0; i < hs_ingest_n_files(ing); i++) {
        size_t from = *n;
        double sum = 0, med, trim;
        for (j = 0; j < hs_ingest_file(ing, i)->n_steps; j++) {
            const hs_ingest_step_t *s = hs_ingest_file_step(ing, i, j, &err);
            CU_ASSERT_PTR_NOT_NULL_FATAL(s);
            if (!s->kept || step_ph(s, ph) == HS_INGEST_UNKNOWN)
                continue;
            CU_ASSERT_FATAL(*n < cap);
            all[(*n)++] = step_ph(s, ph);
            sum += (double)step_ph(s, ph);
        }
        if (*n == from)
            continue;
        by_sorting(all + from, *n - from, &med, &trim);
        means += sum / (double)(*n - from);
        meds += med;
        trims += trim;
        ranks++;
    }
    if (ranks == 0)
        return;
    HS_ASSERT_I64_EQ(rb->n_samples, *n);
    HS_ASSERT_I64_EQ(rb->mean_ns, llround(means / (double)ranks));
    HS_ASSERT_I64_EQ(rb->median_ns, llround(meds / (double)ranks));
    HS_ASSERT_I64_EQ(rb->trimmed_ns, llround(trims / (double)ranks));
    hs_stats_of_ns(all, *n, NULL, &sd);
    HS_ASSERT_I64_EQ(d->sd_ns, sd);
}

/* b's samples of one phase are cap (or all of a's when fewer), in
   order a subsequence of a's (all of them); returns how many of them
   come from the first half of a's. */
static size_t check_subset(const hs_dist_t *a, const hs_dist_t *b,
                           size_t cap)
{
    size_t i, j = 0, first = 0;

    if (a->n_samples <= cap) {
        HS_ASSERT_I64_EQ(b->n_samples, a->n_samples);
        CU_ASSERT(a->n_samples == 0 ||
                  memcmp(a->samples_ns, b->samples_ns,
                         a->n_samples * sizeof *a->samples_ns) == 0);
        return 0;
    }
    HS_ASSERT_I64_EQ(b->n_samples, cap);
    for (i = 0; i < b->n_samples; i++) {
        while (j < a->n_samples && a->samples_ns[j] != b->samples_ns[i])
            j++;
        CU_ASSERT_FATAL(j < a->n_samples);
        first += j < a->n_samples / 2;
        j++;
    }
    return first;
}

/* One capped ingestion of paths against the uncapped one (a): the same
   figures, by hand too, the samples a subset in order, the same again
   on a second ingestion.  Returns how many of t_b1's samples are from
   the first half of its steps. */
static size_t check_capped(const char *const *paths, size_t n,
                           hs_ingest_opts_t o, hs_ingest_t *a,
                           const hs_profile_t *pa, int64_t *all,
                           size_t room)
{
    hs_profile_t pb, pc;
    hs_ingest_t *b = ic_ingest_all(paths, n, &o, &pb),
                *c = ic_ingest_all(paths, n, &o, &pc);
    size_t ph, cnt, first = 0;

    for (ph = 0; ph < HS_INGEST_PH_N; ph++) {
        const hs_dist_t *da = phase(pa, ph), *db = phase(&pb, ph);
        const hs_dist_t *dc = phase(&pc, ph);
        CU_ASSERT_EQUAL(memcmp(hs_ingest_robust(a, (unsigned)ph),
                               hs_ingest_robust(b, (unsigned)ph),
                               sizeof(hs_ingest_robust_t)), 0);
        HS_ASSERT_I64_EQ(db->known, da->known);
        HS_ASSERT_I64_EQ(db->mean_ns, da->mean_ns);
        HS_ASSERT_I64_EQ(db->sd_ns, da->sd_ns);
        check_by_hand(b, ph, hs_ingest_robust(b, (unsigned)ph), db, all,
                      room, &cnt);
        if (o.sidecar == NULL || db->n_samples != da->n_samples) {
            size_t f = check_subset(da, db, o.max_samples);
            first += ph == HS_INGEST_PH_B1 ? f : 0;
        }
        HS_ASSERT_I64_EQ(dc->n_samples, db->n_samples);
        CU_ASSERT(db->n_samples == 0 ||
                  memcmp(db->samples_ns, dc->samples_ns,
                         db->n_samples * sizeof *db->samples_ns) == 0);
    }
    hs_profile_clear(&pb);
    hs_profile_clear(&pc);
    hs_ingest_free(b);
    hs_ingest_free(c);
    return first;
}

/* The written two-rank trace (3,000 + 1,500 steps, warm-up 20): every
   cap, spilled or not, every statistic. */
static void test_capped_many_steps_issue32(void)
{
    static const size_t caps[] = {1, 100, 2000, 4459, 4460};
    const char *dir = hs_test_tmpdir("ingest-samples");
    char p0[1024], p1[1024];
    const char *const paths[] = {p0, p1};
    int64_t *all = malloc((N0 + N1) * sizeof *all);
    size_t st, ci, spill, k;

    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    snprintf(p0, sizeof p0, "%s/r0.json", dir);
    snprintf(p1, sizeof p1, "%s/r1.json", dir);
    write_trace(p0, 0, N0);
    write_trace(p1, 1, N1);
    for (st = 0; st < 3; st++)
        for (spill = 0; spill < 2; spill++) {
            hs_ingest_opts_t o;
            hs_profile_t pa;
            hs_ingest_t *a;
            size_t n;
            hs_ingest_opts_default(&o);
            o.stat = (hs_ingest_stat_t)st;
            o.rec_mem_bytes = spill;
            a = ic_ingest_all(paths, 2, &o, &pa);
            /* the steps are the written ones */
            HS_ASSERT_I64_EQ(pa.t_fwd.n_samples, N0 + N1 - 40);
            for (k = 0; k < 40; k++)
                HS_ASSERT_I64_EQ(pa.t_fwd.samples_ns[k],
                                 fwd_ns_of(0, 20 + k));
            check_by_hand(a, HS_INGEST_PH_FWD,
                          hs_ingest_robust(a, HS_INGEST_PH_FWD), &pa.t_fwd,
                          all, N0 + N1, &n);
            for (ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
                size_t first;
                o.max_samples = caps[ci];
                first = check_capped(paths, 2, o, a, &pa, all, N0 + N1);
                if (caps[ci] == 2000) /* 1000 expected, sd 17 (1010) */
                    CU_ASSERT(first >= 930 && first <= 1070);
            }
            hs_profile_clear(&pa);
            hs_ingest_free(a);
        }
    free(all);
    unlink(p0);
    unlink(p1);
}

/* The real and test traces under caps of 1, 2 and 3 samples: the same
   figures as without a cap, steps in memory or spilled, every
   statistic, with and without a sidecar. */
static void test_capped_real_issue32(void)
{
    static const char *const resnet[] = {REAL "nccl-2rank-resnet.json.gz"};
    static const char *const dl[] = {REAL "nccl-2rank-dataloader.json.gz"};
    static const char *const rocm[] = {REAL "rocm-mi250-train.json.gz"};
    static const char *const legacy[] = {DATA "legacy-rank0.json.gz",
                                         DATA "legacy-rank1.json.gz"};
    static const struct {
        const char *const *paths;
        size_t n;
        unsigned warmup;
        int sidecar;
    } cases[] = {{resnet, 1, 0, 0}, {dl, 1, 0, 0}, {dl, 1, 2, 0},
                 {rocm, 1, 0, 1}, {legacy, 2, 0, 1}, {legacy, 2, 20, 1}};
    size_t c, st, cap, room = 1 << 16, runs = 0;
    int64_t *all = malloc(room * sizeof *all);

    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (st = 0; st < 3; st++) {
            hs_ingest_opts_t o;
            hs_profile_t pa;
            hs_ingest_t *a;
            hs_ingest_opts_default(&o);
            o.warmup = cases[c].warmup;
            o.stat = (hs_ingest_stat_t)st;
            o.sidecar = cases[c].sidecar ? DATA "legacy.sidecar.json" : NULL;
            a = ic_ingest_all(cases[c].paths, cases[c].n, &o, &pa);
            for (cap = 1; cap <= 3; cap++) {
                o.max_samples = cap;
                o.rec_mem_bytes = cap == 2;
                check_capped(cases[c].paths, cases[c].n, o, a, &pa, all,
                             room);
                runs++;
            }
            hs_profile_clear(&pa);
            hs_ingest_free(a);
        }
    HS_ASSERT_I64_EQ(runs, 54);
    free(all);
}

static int register_samples(void)
{
    CU_pSuite s = CU_add_suite("ingest samples", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "exact selection against sorting",
                    test_osel_against_sorting) == NULL ||
        CU_add_test(s, "a capped trace of many steps",
                    test_capped_many_steps_issue32) == NULL ||
        CU_add_test(s, "real traces under tiny caps",
                    test_capped_real_issue32) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_samples)
