/*
 * test_kev_numbers.c -- the trace decoder's number parsing (hs_kev_us_to_ns,
 * hs_kev_to_u64) against a reference model: the digit-by-digit parse the
 * decoder used before its fast paths (the form Kineto writes, "I.FFF", read
 * as one run of digits, eight at a time; plain integers without a test per
 * digit).  Every result and return code must be the same, on edge cases
 * (exponents, many digits, signs, rounding on the fourth decimal, the
 * limits of int64 and uint64, text that is not a number) and on random
 * numbers of every length.  Each text is given in a buffer of exactly its
 * length (no NUL after it), so that a read past its end shows under ASan.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hs_kev.h"
#include "hs_test.h"

/* The reference: microseconds into integer ns, exact without exponent
   (the first three decimals, the fourth rounding half up). */
static int ref_us_to_ns(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0, frac_digits = 0;
    int64_t ip = 0, fp = 0;
    char buf[64];

    if (n > 0 && s[0] == '-') {
        neg = 1;
        i = 1;
    }
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (ip > (INT64_MAX / 10 - 10) / 1000)
            return -1;
        ip = ip * 10 + (s[i] - '0');
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            if (frac_digits < 3) {
                fp = fp * 10 + (s[i] - '0');
                frac_digits++;
            } else if (frac_digits == 3) {
                if (s[i] >= '5')
                    fp++;
                frac_digits++;
            }
        }
    }
    if (i < n) {
        double d;
        if (n >= sizeof buf)
            return -1;
        memcpy(buf, s, n);
        buf[n] = '\0';
        d = strtod(buf, NULL) * 1000.0;
        if (!(d > -9.2e18 && d < 9.2e18))
            return -1;
        *out = (int64_t)llround(d);
        return 0;
    }
    while (frac_digits < 3) {
        fp *= 10;
        frac_digits++;
    }
    *out = ip * 1000 + fp;
    if (neg)
        *out = -*out;
    return 0;
}

/* The reference: a non-negative integer; fractions rounded. */
static int ref_to_u64(const char *s, size_t n, uint64_t *out)
{
    char buf[64];
    size_t i;
    uint64_t v = 0;

    for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == n && n > 0) {
        *out = v;
        return 0;
    }
    if (n == 0 || n >= sizeof buf || s[0] == '-')
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    {
        double d = strtod(buf, NULL);
        if (!(d >= 0 && d < 1.8e19))
            return -1;
        *out = (uint64_t)llround(d);
    }
    return 0;
}

static long n_checked;

/* Both functions on text against the references: the same return code,
   and the same value when it succeeds. */
static void check(const char *text)
{
    size_t n = strlen(text);
    char *exact = malloc(n > 0 ? n : 1);
    int64_t a = 0x5a5a, b = 0x5a5a;
    uint64_t u = 0x5a5a, v = 0x5a5a;
    int ra, rb;

    CU_ASSERT_PTR_NOT_NULL_FATAL(exact);
    memcpy(exact, text, n);
    ra = hs_kev_us_to_ns(exact, n, &a);
    rb = ref_us_to_ns(exact, n, &b);
    if (ra != rb || (ra == 0 && a != b))
        fprintf(stderr, "\nus_to_ns(\"%s\"): %d %" PRId64 ", reference %d %"
                PRId64 "\n", text, ra, a, rb, b);
    HS_ASSERT_I64_EQ(ra, rb);
    if (ra == 0 && rb == 0)
        HS_ASSERT_I64_EQ(a, b);
    ra = hs_kev_to_u64(exact, n, &u);
    rb = ref_to_u64(exact, n, &v);
    if (ra != rb || (ra == 0 && u != v))
        fprintf(stderr, "\nto_u64(\"%s\"): %d %" PRIu64 ", reference %d %"
                PRIu64 "\n", text, ra, u, rb, v);
    HS_ASSERT_I64_EQ(ra, rb);
    if (ra == 0 && rb == 0)
        CU_ASSERT_TRUE(u == v);
    free(exact);
    n_checked++;
}

static void test_edges(void)
{
    static const char *const cases[] = {
        /* the fixed form, short and long, signed */
        "0.000", "-0.000", "1.000", "5.000", "90.000", "49999.000",
        "1000003002.000", "1701234567890.123", "-1701234567890.123",
        "12345678.000", "1234567.999", "123456789.001",
        "99999999.999", "100000000.000", "999999999999999.999",
        "-999999999999999.999", "123456789012345.678",
        /* 16 integer digits and past int64: the overflow tests */
        "1234567890123456.000", "922337203685477.580",
        "922337203685477.581", "9223372036854775.807",
        "9223372036854775807", "9223372036854775808",
        "18446744073709551615", "18446744073709551616",
        "99999999999999999999", "1844674407370955161",
        "9999999999999999999", "10000000000000000000",
        "-9223372036854775808", "0000000000000001.000",
        /* other numbers of decimals; rounding on the fourth */
        "0", "-0", "1", "7", "42", "4242", "1.5", "1.50", "1.5004",
        "1.5005", "1.9995", "1.99949", "999.9995", "-1.0005", "-1.0004",
        "0.0001", "0.0005", "0.00049999", "12.3456789012345678901",
        "1.", "-1.", "12345678", "123456789", "1234567890123",
        /* exponents */
        "1e3", "1E3", "1.5e3", "-2.5E-3", "1e-9", "1e400", "-1e400",
        "1.000e0", "12345678.000e1", "1.0005e0", "9.2e15", "9.3e15",
        "1e18", "1.8e19", "1.9e19",
        /* text that is no JSON number: both must still agree */
        "", "-", ".", ".5", "-.5", "1.2.3", "12a4.000", "1234567a.000",
        "123456789a.000", "1x3.000", "1.0x0", "1.00x", "--1.000",
        "12345678901234567890123456789012345678901234567890123456789012345",
        "+1.000", " 1.000", "1.000 ", "１.000",
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(cases[i]);
}

/* Every length of every part: sign, 1-22 integer digits, no point or 0-9
   decimals, no exponent or one; digits at random, leading zeros too. */
static void test_random(void)
{
    char buf[64];
    unsigned seed = 12345;
    long k;

    for (k = 0; k < 300000; k++) {
        size_t n = 0, i, nd, nf;

        seed = seed * 1103515245u + 12345u;
        if ((seed >> 16) % 5 == 0)
            buf[n++] = '-';
        seed = seed * 1103515245u + 12345u;
        nd = 1 + (seed >> 16) % 22;
        for (i = 0; i < nd; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[n++] = (char)('0' + (seed >> 16) % 10);
        }
        seed = seed * 1103515245u + 12345u;
        nf = (seed >> 16) % 11;     /* 10: no point */
        if (nf < 10) {
            buf[n++] = '.';
            for (i = 0; i < nf; i++) {
                seed = seed * 1103515245u + 12345u;
                buf[n++] = (char)('0' + (seed >> 16) % 10);
            }
        }
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 16) % 10 == 0) {
            buf[n++] = 'e';
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 16) % 2)
                buf[n++] = '-';
            seed = seed * 1103515245u + 12345u;
            buf[n++] = (char)('0' + (seed >> 16) % 10);
        }
        buf[n] = '\0';
        check(buf);
    }
    CU_ASSERT_TRUE(n_checked > 300000);
}

/* The fixed form at every integer length, each digit position holding
   each digit (a wrong byte order or shift in the eight-digit read shows
   here). */
static void test_positions(void)
{
    char buf[32];
    size_t L, pos;
    int d;

    for (L = 1; L <= 17; L++)
        for (pos = 0; pos < L + 4; pos++)
            for (d = 0; d <= 9; d++) {
                size_t i;
                for (i = 0; i < L; i++)
                    buf[i] = '1';
                buf[L] = '.';
                buf[L + 1] = '2';
                buf[L + 2] = '3';
                buf[L + 3] = '4';
                buf[L + 4] = '\0';
                if (pos != L)
                    buf[pos] = (char)('0' + d);
                check(buf);
                buf[pos] = pos == L ? 'x' : ':';    /* one bad byte */
                check(buf);
                buf[pos] = pos == L ? ',' : '/';    /* either side of 0-9 */
                check(buf);
            }
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("kev_numbers", NULL, NULL);

    CU_add_test(s, "edge cases against the reference", test_edges);
    CU_add_test(s, "random numbers against the reference", test_random);
    CU_add_test(s, "every digit position of the fixed form",
                test_positions);
    return 0;
}

HS_TEST_MAIN(reg)
