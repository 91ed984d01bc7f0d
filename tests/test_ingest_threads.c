/*
 * test_ingest_threads.c -- reading a trace in two threads (a second
 * thread reads and inflates ahead of the parse, hs_jscan_buf_t.threads)
 * gives what one thread gives:
 *   - the same record (steps, buckets, forward operators, names, counts)
 *     from every trace in tests/data/ingest and tests/data/real (the
 *     shared real traces), gzipped and, for the largest, inflated to
 *     plain JSON -- HETSIM_TRACE_THREAD_MIN_BYTES=1 takes even the small
 *     ones through the two-thread path;
 *   - the same error code and message on bad input: a gzip file cut in
 *     the middle, garbage after the gzip header, a deflate stream
 *     corrupted in the middle, a bad CRC in the trailer, invalid JSON in
 *     the middle of a plain file (the parse gives up while the reading
 *     thread is ahead), and the malformed traces of tests/data/ingest;
 *   - the CLI: `hetsim ingest --threads 2` prints the same profile YAML
 *     and, on corrupt traces, the same message and exit status 2 as
 *     --threads 1; --threads 3 is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "hs_ingest.h"
#include "hs_kineto.h"
#include "hs_rank.h"
#include "hs_test.h"
#include "ingest_check.h"

#define REAL HS_TEST_SRC "/tests/data/real/"
#define DATA HS_TEST_SRC "/tests/data/ingest/"
#define BIG REAL "nccl-2rank-dataloader.json.gz"

/* Reads path with one and with two threads: the same code, message and
   (when read) record.  Returns the code. */
static hs_err_t read_both(const char *path)
{
    hs_kineto_opts_t o[2];
    ic_pair_t p;

    memset(o, 0, sizeof o);
    o[0].threads = 1;
    o[1].threads = 2;
    ic_read_two(path, o, &p);
    HS_ASSERT_I64_EQ(p.code[0], p.code[1]);
    if (p.code[0] != HS_OK || p.code[1] != HS_OK) {
        if (strcmp(p.err[0].msg, p.err[1].msg) != 0)
            fprintf(stderr, "\n1 thread:  %s\n2 threads: %s\n",
                    p.err[0].msg, p.err[1].msg);
        CU_ASSERT_STRING_EQUAL(p.err[0].msg, p.err[1].msg);
    }
    if (p.r[0] != NULL && p.r[1] != NULL)
        ic_same_record(p.r[0], p.r[1], IC_RANK);
    ic_pair_free(&p);
    return p.code[0];
}

/* The bytes of a file (malloc'd), *n its size; NULL when unreadable. */
static unsigned char *slurp_bin(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p = NULL;
    long sz;

    *n = 0;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) > 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)sz)) != NULL &&
        fread(p, 1, (size_t)sz, f) == (size_t)sz)
        *n = (size_t)sz;
    fclose(f);
    if (*n == 0) {
        free(p);
        return NULL;
    }
    return p;
}

static int write_bin(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f != NULL && fwrite(p, 1, n, f) == n;

    if (f != NULL && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* gz inflated into out (a plain JSON file); 0 or -1. */
static int inflate_to(const char *gz, const char *out)
{
    gzFile g = gzopen(gz, "rb");
    FILE *f = fopen(out, "wb");
    char buf[65536];
    int n, ok = g != NULL && f != NULL;

    while (ok && (n = gzread(g, buf, sizeof buf)) > 0)
        ok = fwrite(buf, 1, (size_t)n, f) == (size_t)n;
    if (g != NULL)
        gzclose(g);
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

static void test_same_records(void)
{
    static const char *const files[] = {
        REAL "gloo-cpu-rank34.json.gz", REAL "nccl-2rank-dataloader.json.gz",
        REAL "nccl-2rank-resnet.json.gz", REAL "rocm-mi250-train.json.gz",
        DATA "legacy-rank0.json.gz", DATA "legacy-rank1.json.gz"};
    const char *dir = hs_test_tmpdir("ingest-threads-same");
    char plain[512];
    size_t i;

    for (i = 0; i < sizeof files / sizeof files[0]; i++)
        HS_ASSERT_I64_EQ(read_both(files[i]), HS_OK);
    /* plain JSON, several MB: the read-ahead of a plain file */
    snprintf(plain, sizeof plain, "%s/dataloader.json", dir);
    CU_ASSERT_EQUAL_FATAL(inflate_to(BIG, plain), 0);
    HS_ASSERT_I64_EQ(read_both(plain), HS_OK);
}

/* The malformed traces of tests/data/ingest: the same errors. */
static void test_malformed_same(void)
{
    static const char *const files[] = {
        DATA "empty.json", DATA "no-steps.json", DATA "not-gzip.json.gz",
        DATA "scalar.json", DATA "truncated-gz.json.gz",
        DATA "truncated.json.gz", DATA "wrong-types.json"};
    size_t i;

    for (i = 0; i < sizeof files / sizeof files[0]; i++)
        CU_ASSERT_NOT_EQUAL(read_both(files[i]), HS_OK);
}

/* A copy of BIG changed by how; its path. */
enum { CUT, HEADER_GARBAGE, MID_CORRUPT, CRC_CORRUPT, PLAIN_BAD_JSON };

static const char *bad_copy(int how, char *path, size_t cap)
{
    const char *dir = hs_test_tmpdir("ingest-threads-bad");
    unsigned char *p;
    size_t n, i;
    int ok;

    if (how == PLAIN_BAD_JSON) {
        char plain[512];
        snprintf(plain, sizeof plain, "%s/big.json", dir);
        if (inflate_to(BIG, plain) != 0)
            return NULL;
        p = slurp_bin(plain, &n);
        snprintf(path, cap, "%s/bad-json.json", dir);
    } else {
        p = slurp_bin(BIG, &n);
        snprintf(path, cap, "%s/bad-%d.json.gz", dir, how);
    }
    if (p == NULL || n < 100000) {
        free(p);
        return NULL;
    }
    if (how == CUT)
        n /= 2;
    else if (how == HEADER_GARBAGE)
        for (i = 10; i < 4010; i++)
            p[i] = (unsigned char)(0xa5 ^ i);
    else if (how == MID_CORRUPT)
        for (i = n / 2; i < n / 2 + 64; i++)
            p[i] = (unsigned char)~p[i];
    else if (how == CRC_CORRUPT)
        p[n - 6] ^= 0x5a;   /* the trailer's CRC-32 */
    else
        memcpy(p + n / 2, "@@@@", 4);
    ok = write_bin(path, p, n) == 0;
    free(p);
    return ok ? path : NULL;
}

static void test_bad_input_same(void)
{
    static const struct {
        int how;
        hs_err_t code;
        const char *what;
    } cases[] = {{CUT, HS_ERR_SYNTAX, "gzip error at compressed byte"},
                 {HEADER_GARBAGE, HS_ERR_SYNTAX, "gzip error"},
                 /* bad bytes inflated before the stream breaks: the
                    JSON parse may stop first (igzip and zlib may
                    differ there; one and two threads may not) */
                 {MID_CORRUPT, HS_ERR_SYNTAX, ""},
                 {CRC_CORRUPT, HS_ERR_SYNTAX, "incorrect data check"},
                 {PLAIN_BAD_JSON, HS_ERR_SYNTAX, "invalid JSON"}};
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        hs_kineto_opts_t o;
        hs_rank_t *r = NULL;
        hs_error_t e;

        CU_ASSERT_PTR_NOT_NULL_FATAL(
            bad_copy(cases[i].how, path, sizeof path));
        HS_ASSERT_I64_EQ(read_both(path), cases[i].code);
        memset(&o, 0, sizeof o);
        o.threads = 2;
        hs_error_clear(&e);
        HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &r, &e), cases[i].code);
        CU_ASSERT_PTR_NULL(r);
        HS_ASSERT_STR_CONTAINS(e.msg, cases[i].what);
        hs_rank_free(r);
    }
}

static void test_cli(void)
{
    static const struct {
        int how;
        const char *what;       /* in the message; NULL: not checked */
    } bad_cases[] = {{CRC_CORRUPT, "gzip error"}, {MID_CORRUPT, NULL}};
    const char *dir = hs_test_tmpdir("ingest-threads-cli");
    char bad[512], y1[512], y2[512];
    hs_run_t a, b;
    char *t1, *t2;
    size_t i;

    snprintf(y1, sizeof y1, "%s/p1.yaml", dir);
    snprintf(y2, sizeof y2, "%s/p2.yaml", dir);
    CU_ASSERT_EQUAL(hs_run_hetsim(&a, "ingest", "--type", "gpu",
                                  "--warmup", "2", "--threads", "1", BIG,
                                  "-o", y1, NULL), 0);
    CU_ASSERT_EQUAL(hs_run_hetsim(&b, "ingest", "--type", "gpu",
                                  "--warmup", "2", "--threads", "2", BIG,
                                  "-o", y2, NULL), 0);
    HS_ASSERT_I64_EQ(a.status, 0);
    HS_ASSERT_I64_EQ(b.status, 0);
    hs_run_free(&a);
    hs_run_free(&b);
    t1 = hs_test_slurp(y1);
    t2 = hs_test_slurp(y2);
    CU_ASSERT_PTR_NOT_NULL(t1);
    if (t1 != NULL && t2 != NULL)
        CU_ASSERT_STRING_EQUAL(t1, t2);
    free(t1);
    free(t2);

    /* corrupt traces: the same message and exit status 2 */
    for (i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(
            bad_copy(bad_cases[i].how, bad, sizeof bad));
        CU_ASSERT_EQUAL(hs_run_hetsim(&a, "ingest", "--summary", "--threads",
                                      "1", bad, NULL), 0);
        CU_ASSERT_EQUAL(hs_run_hetsim(&b, "ingest", "--summary", "--threads",
                                      "2", bad, NULL), 0);
        HS_ASSERT_I64_EQ(a.status, 2);
        HS_ASSERT_I64_EQ(b.status, 2);
        CU_ASSERT_STRING_EQUAL(a.err, b.err);
        if (bad_cases[i].what != NULL)
            HS_ASSERT_STR_CONTAINS(b.err, bad_cases[i].what);
        hs_run_free(&a);
        hs_run_free(&b);
    }

    CU_ASSERT_EQUAL(hs_run_hetsim(&a, "ingest", "--summary", "--threads",
                                  "3", BIG, NULL), 0);
    HS_ASSERT_I64_EQ(a.status, 2);
    HS_ASSERT_STR_CONTAINS(a.err, "--threads");
    hs_run_free(&a);
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("ingest in two threads", NULL, NULL);

    /* every trace through the two-thread path, however small */
    setenv("HETSIM_TRACE_THREAD_MIN_BYTES", "1", 1);
    CU_add_test(s, "the same records with one and two threads",
                test_same_records);
    CU_add_test(s, "malformed traces: the same errors",
                test_malformed_same);
    CU_add_test(s, "cut, garbage, corrupt gzip, bad JSON: the same errors",
                test_bad_input_same);
    CU_add_test(s, "the CLI: the same profile, error and exit status",
                test_cli);
    return 0;
}

HS_TEST_MAIN(reg)
