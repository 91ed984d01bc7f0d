/* test_units.c -- quantities with units (base/hs_units.h). */
#include <string.h>

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

static int reg(void)
{
    CU_pSuite s = CU_add_suite("units", NULL, NULL);

    CU_add_test(s, "durations", test_time);
    CU_add_test(s, "sizes", test_bytes);
    CU_add_test(s, "bandwidths", test_bandwidth);
    CU_add_test(s, "transfer time and formatting", test_xfer_and_format);
    return 0;
}

HS_TEST_MAIN(reg)
