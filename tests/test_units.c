/* test_units.c -- quantities with units (base/hs_units.h). */
#include <string.h>

#include "hs_limits.h"
#include "hs_test.h"
#include "hs_units.h"

static void test_time(void)
{
    int64_t ns;

    CU_ASSERT_EQUAL(hs_parse_time_ns("20ms", &ns), 0);
    HS_ASSERT_I64_EQ(ns, 20000000);
    CU_ASSERT_EQUAL(hs_parse_time_ns("150us", &ns), 0);
    HS_ASSERT_I64_EQ(ns, 150000);
    CU_ASSERT_EQUAL(hs_parse_time_ns("1.5 s", &ns), 0);
    HS_ASSERT_I64_EQ(ns, 1500000000);
    CU_ASSERT_EQUAL(hs_parse_time_ns("2min", &ns), 0);
    HS_ASSERT_I64_EQ(ns, 120000000000LL);
    CU_ASSERT_EQUAL(hs_parse_time_ns("1e3ns", &ns), 0);
    HS_ASSERT_I64_EQ(ns, 1000);
    CU_ASSERT_EQUAL(hs_parse_time_ns("3\xc2\xb5s", &ns), 0);
    HS_ASSERT_I64_EQ(ns, 3000);
    /* no unit, bad unit, negative, junk */
    CU_ASSERT_EQUAL(hs_parse_time_ns("20", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("20 parsecs", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("-1ms", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("ms", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("infs", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("0x10ms", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("", &ns), -1);
}

static void test_bytes(void)
{
    uint64_t b;

    CU_ASSERT_EQUAL(hs_parse_bytes("1GiB", &b), 0);
    HS_ASSERT_I64_EQ(b, 1073741824);
    CU_ASSERT_EQUAL(hs_parse_bytes("350MB", &b), 0);
    HS_ASSERT_I64_EQ(b, 350000000);
    CU_ASSERT_EQUAL(hs_parse_bytes("102228128B", &b), 0);
    HS_ASSERT_I64_EQ(b, 102228128);
    CU_ASSERT_EQUAL(hs_parse_bytes("200TB", &b), 0);
    HS_ASSERT_I64_EQ(b, 200000000000000LL);
    CU_ASSERT_EQUAL(hs_parse_bytes("1.5KiB", &b), 0);
    HS_ASSERT_I64_EQ(b, 1536);
    CU_ASSERT_EQUAL(hs_parse_bytes("12", &b), -1);
    CU_ASSERT_EQUAL(hs_parse_bytes("12Mb", &b), -1);   /* bits: not a size */
    CU_ASSERT_EQUAL(hs_parse_bytes("12 GB/s", &b), -1);
}

static void test_bandwidth(void)
{
    double bw;

    CU_ASSERT_EQUAL(hs_parse_bandwidth("25Gbps", &bw), 0);
    HS_ASSERT_DBL_NEAR(bw, 3.125e9, 1e-3);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("12.5GB/s", &bw), 0);
    HS_ASSERT_DBL_NEAR(bw, 12.5e9, 1e-3);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("100Mbit/s", &bw), 0);
    HS_ASSERT_DBL_NEAR(bw, 12.5e6, 1e-6);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("1GiB/s", &bw), 0);
    HS_ASSERT_DBL_NEAR(bw, 1073741824.0, 1e-6);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("0Gbps", &bw), -1);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("25", &bw), -1);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("25GB", &bw), -1);
}

static void test_xfer_and_format(void)
{
    char buf[64];

    /* 1 GB at 10 GB/s is 0.1 s exactly */
    HS_ASSERT_I64_EQ(hs_xfer_ns(1e9, 1e10), 100000000);
    /* rounding to nearest ns */
    HS_ASSERT_I64_EQ(hs_xfer_ns(1.0, 3e9), 0);
    HS_ASSERT_I64_EQ(hs_xfer_ns(2.0, 3e9), 1);
    CU_ASSERT_STRING_EQUAL(hs_fmt_time(1500000000, buf, sizeof buf),
                           "1.500 s");
    CU_ASSERT_STRING_EQUAL(hs_fmt_time(20000000, buf, sizeof buf),
                           "20.000 ms");
    CU_ASSERT_STRING_EQUAL(hs_fmt_bytes(1073741824, buf, sizeof buf),
                           "1.00 GiB");
    CU_ASSERT_STRING_EQUAL(hs_fmt_bandwidth(3.125e9, buf, sizeof buf),
                           "25 Gbit/s");
}

/* Values at and past the stated limits (hs_limits.h): refused at parse
   time, never wrapped. */
static void test_limits(void)
{
    int64_t ns = 7;
    uint64_t b = 7;
    double bw = 7;

    /* durations: 1e6 s is the largest */
    CU_ASSERT_EQUAL(hs_parse_time_ns("1000000s", &ns), 0);
    HS_ASSERT_I64_EQ(ns, HS_LIMIT_INPUT_TIME_NS);
    CU_ASSERT_EQUAL(hs_parse_time_ns("277h", &ns), 0);
    HS_ASSERT_I64_EQ(ns, 277LL * 3600 * 1000000000LL);
    ns = 7;
    CU_ASSERT_EQUAL(hs_parse_time_ns("1000000.001s", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("278h", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("2500000h", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("1e300s", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("1e400s", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("nans", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("NaN ms", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("inf ms", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("-0s", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns(" -0 ms", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("+1s", &ns), -1);
    CU_ASSERT_EQUAL(hs_parse_time_ns("0X1p3s", &ns), -1);
    HS_ASSERT_I64_EQ(ns, 7); /* untouched by every refusal */
    CU_ASSERT_EQUAL(hs_parse_time_ns("0s", &ns), 0);
    HS_ASSERT_I64_EQ(ns, 0);
    CU_ASSERT_EQUAL(hs_parse_time_ns("1e-400s", &ns), 0); /* underflow */
    HS_ASSERT_I64_EQ(ns, 0);

    /* sizes: 1 EB (1e18 B) is the largest */
    CU_ASSERT_EQUAL(hs_parse_bytes("1000PB", &b), 0);
    HS_ASSERT_I64_EQ(b, (int64_t)HS_LIMIT_BYTES);
    CU_ASSERT_EQUAL(hs_parse_bytes("888PiB", &b), 0);
    b = 7;
    CU_ASSERT_EQUAL(hs_parse_bytes("889PiB", &b), -1);
    CU_ASSERT_EQUAL(hs_parse_bytes("1001PB", &b), -1);
    CU_ASSERT_EQUAL(hs_parse_bytes("10000PB", &b), -1);
    CU_ASSERT_EQUAL(hs_parse_bytes("1e19B", &b), -1);
    CU_ASSERT_EQUAL(hs_parse_bytes("18446744073709551616B", &b), -1);
    CU_ASSERT_EQUAL(hs_parse_bytes("-0B", &b), -1);
    CU_ASSERT_EQUAL(hs_parse_bytes("nanB", &b), -1);
    CU_ASSERT_EQUAL(hs_parse_bytes("infGB", &b), -1);
    HS_ASSERT_I64_EQ(b, 7);

    /* bandwidths: 1 bit/s .. 8 Pbit/s */
    CU_ASSERT_EQUAL(hs_parse_bandwidth("1bps", &bw), 0);
    HS_ASSERT_DBL_NEAR(bw, 0.125, 0);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("1 bit/s", &bw), 0);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("8000Tbps", &bw), 0);
    HS_ASSERT_DBL_NEAR(bw, 1e15, 0);
    bw = 7;
    CU_ASSERT_EQUAL(hs_parse_bandwidth("0.99bps", &bw), -1);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("0.1B/s", &bw), -1);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("0bps", &bw), -1);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("-0Gbps", &bw), -1);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("1e-400Gbps", &bw), -1);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("8001Tbps", &bw), -1);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("1e300Gbps", &bw), -1);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("nanGbps", &bw), -1);
    CU_ASSERT_EQUAL(hs_parse_bandwidth("infGbps", &bw), -1);
    HS_ASSERT_DBL_NEAR(bw, 7, 0);

    /* a transfer that does not fit int64 saturates in hs_xfer_ns (the
       checked form, hs_checked_ns_from_bytes, refuses it) */
    HS_ASSERT_I64_EQ(hs_xfer_ns(1e12, 0.125), INT64_MAX);
}

/* hs_units_why says which rule a text broke, and NULL when none. */
static void test_why(void)
{
    CU_ASSERT_PTR_NULL(hs_units_why(HS_UNIT_TIME, "20ms", NULL));
    CU_ASSERT_PTR_NULL(hs_units_why(HS_UNIT_SIZE, "350MB", NULL));
    CU_ASSERT_PTR_NULL(hs_units_why(HS_UNIT_BANDWIDTH, "25Gbps", NULL));
    HS_ASSERT_STR_CONTAINS(hs_units_why(HS_UNIT_TIME, "1e300s", NULL),
                           "largest duration");
    HS_ASSERT_STR_CONTAINS(hs_units_why(HS_UNIT_TIME, "20", NULL),
                           "not a duration with a unit");
    HS_ASSERT_STR_CONTAINS(hs_units_why(HS_UNIT_TIME, "-0s", NULL), "sign");
    HS_ASSERT_STR_CONTAINS(hs_units_why(HS_UNIT_TIME, "nans", NULL),
                           "not a finite decimal number");
    HS_ASSERT_STR_CONTAINS(hs_units_why(HS_UNIT_SIZE, "10000PB", NULL),
                           "largest size");
    HS_ASSERT_STR_CONTAINS(hs_units_why(HS_UNIT_SIZE, "12Mb", NULL),
                           "not a size with a unit");
    HS_ASSERT_STR_CONTAINS(hs_units_why(HS_UNIT_BANDWIDTH, "0Gbps", NULL),
                           "smallest bandwidth");
    HS_ASSERT_STR_CONTAINS(hs_units_why(HS_UNIT_BANDWIDTH, "1e300Gbps", NULL),
                           "largest bandwidth");
    HS_ASSERT_STR_CONTAINS(hs_units_why(HS_UNIT_BANDWIDTH, "25GB", NULL),
                           "not a bandwidth with a unit");
    {
        int range = -1;
        CU_ASSERT_PTR_NOT_NULL(hs_units_why(HS_UNIT_TIME, "1e300s", &range));
        CU_ASSERT_EQUAL(range, 1);
        CU_ASSERT_PTR_NOT_NULL(hs_units_why(HS_UNIT_BANDWIDTH, "0bps",
                                            &range));
        CU_ASSERT_EQUAL(range, 1);
        CU_ASSERT_PTR_NOT_NULL(hs_units_why(HS_UNIT_SIZE, "-0B", &range));
        CU_ASSERT_EQUAL(range, 0);
        CU_ASSERT_PTR_NOT_NULL(hs_units_why(HS_UNIT_SIZE, "12", &range));
        CU_ASSERT_EQUAL(range, 0);
        CU_ASSERT_PTR_NULL(hs_units_why(HS_UNIT_SIZE, "12B", &range));
        CU_ASSERT_EQUAL(range, 0);
    }
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("units", NULL, NULL);

    CU_add_test(s, "durations", test_time);
    CU_add_test(s, "sizes", test_bytes);
    CU_add_test(s, "bandwidths", test_bandwidth);
    CU_add_test(s, "transfer time and formatting", test_xfer_and_format);
    CU_add_test(s, "limits: at and past them", test_limits);
    CU_add_test(s, "why a value is refused", test_why);
    return 0;
}

HS_TEST_MAIN(reg)
