/*
 * test_hardening.c -- the base of issue 15: checked arithmetic at its
 * boundaries (base/hs_checked.h), the stated limits and the claims the
 * header makes about them (base/hs_limits.h), names and addresses
 * (base/hs_valid.h), bounded whole-file reads (base/hs_file.h), and the
 * signal cleanup for real (base/hs_signal.h): a child that registered a
 * temporary file and two process groups is sent SIGTERM (and SIGINT); the
 * file must be gone and both groups dead, the one that ignores SIGTERM
 * by SIGKILL after the grace.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hs_atomic.h"
#include "hs_checked.h"
#include "hs_closed.h"
#include "hs_file.h"
#include "hs_limits.h"
#include "hs_scenario.h"
#include "hs_signal.h"
#include "hs_test.h"
#include "hs_units.h"
#include "hs_valid.h"

/* ---- checked arithmetic ---- */

static void test_checked_int(void)
{
    int64_t r = 42;
    uint64_t u = 42;

    CU_ASSERT_EQUAL(hs_checked_add_i64(INT64_MAX, 0, &r), 0);
    HS_ASSERT_I64_EQ(r, INT64_MAX);
    CU_ASSERT_EQUAL(hs_checked_add_i64(INT64_MAX - 1, 1, &r), 0);
    HS_ASSERT_I64_EQ(r, INT64_MAX);
    r = 42;
    CU_ASSERT_EQUAL(hs_checked_add_i64(INT64_MAX, 1, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_add_i64(INT64_MIN, -1, &r), -1);
    HS_ASSERT_I64_EQ(r, 42); /* untouched */
    CU_ASSERT_EQUAL(hs_checked_add_i64(INT64_MIN, INT64_MAX, &r), 0);
    HS_ASSERT_I64_EQ(r, -1);

    CU_ASSERT_EQUAL(hs_checked_sub_i64(INT64_MIN + 1, 1, &r), 0);
    HS_ASSERT_I64_EQ(r, INT64_MIN);
    CU_ASSERT_EQUAL(hs_checked_sub_i64(INT64_MIN, 1, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_sub_i64(0, INT64_MIN, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_sub_i64(-1, INT64_MIN, &r), 0);
    HS_ASSERT_I64_EQ(r, INT64_MAX);

    CU_ASSERT_EQUAL(hs_checked_mul_i64(INT64_MAX, 1, &r), 0);
    HS_ASSERT_I64_EQ(r, INT64_MAX);
    CU_ASSERT_EQUAL(hs_checked_mul_i64(INT64_MAX / 2, 2, &r), 0);
    HS_ASSERT_I64_EQ(r, INT64_MAX - 1);
    CU_ASSERT_EQUAL(hs_checked_mul_i64(INT64_MAX / 2 + 1, 2, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_mul_i64(INT64_MIN, -1, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_mul_i64(INT64_C(1) << 32, INT64_C(1) << 31,
                                       &r), -1);
    CU_ASSERT_EQUAL(hs_checked_mul_i64(0, INT64_MIN, &r), 0);
    HS_ASSERT_I64_EQ(r, 0);

    CU_ASSERT_EQUAL(hs_checked_add_u64(UINT64_MAX - 1, 1, &u), 0);
    CU_ASSERT(u == UINT64_MAX);
    u = 42;
    CU_ASSERT_EQUAL(hs_checked_add_u64(UINT64_MAX, 1, &u), -1);
    CU_ASSERT(u == 42);
    CU_ASSERT_EQUAL(hs_checked_mul_u64(UINT64_MAX, 1, &u), 0);
    CU_ASSERT(u == UINT64_MAX);
    CU_ASSERT_EQUAL(hs_checked_mul_u64(UINT64_C(1) << 32,
                                       (UINT64_C(1) << 32) - 1, &u), 0);
    CU_ASSERT_EQUAL(hs_checked_mul_u64(UINT64_C(1) << 32, UINT64_C(1) << 32,
                                       &u), -1);

    CU_ASSERT_EQUAL(hs_checked_u64_to_i64((uint64_t)INT64_MAX, &r), 0);
    HS_ASSERT_I64_EQ(r, INT64_MAX);
    CU_ASSERT_EQUAL(hs_checked_u64_to_i64((uint64_t)INT64_MAX + 1, &r), -1);
}

static void test_checked_double(void)
{
    int64_t r = 42;
    uint64_t u = 42;
    /* the largest double below 2^63 */
    double below = nextafter(9223372036854775808.0, 0.0);

    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(NAN, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(INFINITY, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(-INFINITY, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(1e300, &r), -1);
    /* (double)INT64_MAX is 2^63: out of range */
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64((double)INT64_MAX, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(9223372036854775807.5, &r), -1);
    HS_ASSERT_I64_EQ(r, 42);
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(below, &r), 0);
    HS_ASSERT_I64_EQ(r, INT64_C(9223372036854774784));
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(-9223372036854775808.0, &r), 0);
    HS_ASSERT_I64_EQ(r, INT64_MIN);
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(-9223372036854777856.0, &r), -1);
    /* rounding: to nearest, halves away from zero (as llround) */
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(0.5, &r), 0);
    HS_ASSERT_I64_EQ(r, 1);
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(-0.5, &r), 0);
    HS_ASSERT_I64_EQ(r, -1);
    CU_ASSERT_EQUAL(hs_checked_dbl_to_i64(2.4999, &r), 0);
    HS_ASSERT_I64_EQ(r, 2);

    CU_ASSERT_EQUAL(hs_checked_dbl_to_u64(-0.4, &u), 0);
    CU_ASSERT(u == 0);
    u = 42;
    CU_ASSERT_EQUAL(hs_checked_dbl_to_u64(-0.6, &u), -1);
    CU_ASSERT_EQUAL(hs_checked_dbl_to_u64(18446744073709551616.0, &u), -1);
    CU_ASSERT_EQUAL(hs_checked_dbl_to_u64(NAN, &u), -1);
    CU_ASSERT(u == 42);
    CU_ASSERT_EQUAL(
        hs_checked_dbl_to_u64(nextafter(18446744073709551616.0, 0.0), &u),
        0);
    CU_ASSERT(u == UINT64_C(18446744073709549568));

    /* scaling: a valid input by a valid factor always fits the limit */
    CU_ASSERT_EQUAL(hs_checked_scale_i64(HS_LIMIT_INPUT_TIME_NS,
                                         HS_LIMIT_FACTOR_MAX, &r), 0);
    HS_ASSERT_I64_EQ(r, HS_LIMIT_TIME_NS);
    CU_ASSERT(hs_checked_time_ok(r));
    CU_ASSERT_EQUAL(hs_checked_scale_i64(3000000, 1.5, &r), 0);
    HS_ASSERT_I64_EQ(r, 4500000);
    /* compute_scale 1e12 on a 1 ms step: exactly the limit; on 2 ms past
       it (and 1e12 is past the factor limit, so refused at load) */
    CU_ASSERT_EQUAL(hs_checked_scale_i64(1000000, 1e12, &r), 0);
    CU_ASSERT(hs_checked_time_ok(r));
    CU_ASSERT_EQUAL(hs_checked_scale_i64(2000000, 1e12, &r), 0);
    CU_ASSERT(!hs_checked_time_ok(r));
    CU_ASSERT_EQUAL(hs_checked_scale_i64(1000000, 1e300, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_scale_i64(1000000, NAN, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_scale_i64(1000000, INFINITY, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_scale_i64(INT64_MAX / 2, 4.0, &r), -1);

    /* ns from bytes and bandwidth */
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes(1e9, 1e10, &r), 0);
    HS_ASSERT_I64_EQ(r, 100000000);
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes(0, 0.125, &r), 0);
    HS_ASSERT_I64_EQ(r, 0);
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes(2.0, 3e9, &r), 0);
    HS_ASSERT_I64_EQ(r, 1);
    /* a 1 TB payload on a 1 bit/s link: 8e21 ns */
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes(1e12, 0.125, &r), -1);
    /* the largest size at the smallest bandwidth */
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes((double)HS_LIMIT_BYTES,
                                             HS_LIMIT_BW_MIN_BYTES_PER_S,
                                             &r), -1);
    /* the largest size at the largest bandwidth: 1000 s */
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes((double)HS_LIMIT_BYTES,
                                             HS_LIMIT_BW_MAX_BYTES_PER_S,
                                             &r), 0);
    HS_ASSERT_I64_EQ(r, INT64_C(1000000000000));
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes(1, 0, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes(1, -1, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes(1, NAN, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes(1, INFINITY, &r), -1);
    CU_ASSERT_EQUAL(hs_checked_ns_from_bytes(NAN, 1, &r), -1);
    /* the same rounding as hs_xfer_ns wherever that fits */
    {
        unsigned seed = 15;
        int k, same = 1;
        for (k = 0; k < 10000; k++) {
            double by = (double)(rand_r(&seed) % 1000000000) *
                        (double)(1 + rand_r(&seed) % 1000);
            double bw = 1.0 + (double)(rand_r(&seed) % 100000000) * 37.0;
            if (hs_checked_ns_from_bytes(by, bw, &r) != 0 ||
                r != hs_xfer_ns(by, bw))
                same = 0;
        }
        CU_ASSERT(same);
    }
}

/* The claims hs_limits.h makes, checked with the operations themselves. */
static void test_limits_claims(void)
{
    int64_t r;
    uint64_t u;
    int64_t n = (int64_t)HS_LIMIT_DEVICES;

    /* nine times at the limit fit int64, ten do not */
    CU_ASSERT_EQUAL(hs_checked_mul_i64(9, HS_LIMIT_TIME_NS, &r), 0);
    CU_ASSERT_EQUAL(hs_checked_mul_i64(10, HS_LIMIT_TIME_NS, &r), -1);
    /* a scaled input is at most the time limit */
    CU_ASSERT((double)HS_LIMIT_INPUT_TIME_NS * HS_LIMIT_FACTOR_MAX <=
              (double)HS_LIMIT_TIME_NS);
    /* a size in bits, and nine sizes, fit int64 */
    CU_ASSERT_EQUAL(hs_checked_mul_u64(8, HS_LIMIT_BYTES, &u), 0);
    CU_ASSERT_EQUAL(hs_checked_u64_to_i64(u, &r), 0);
    CU_ASSERT_EQUAL(hs_checked_mul_u64(9, HS_LIMIT_BYTES, &u), 0);
    CU_ASSERT_EQUAL(hs_checked_u64_to_i64(u, &r), 0);
    /* 2(N-1) < 2^21 and N x 2(N-1) < 2^41 */
    CU_ASSERT(2 * (n - 1) < (INT64_C(1) << 21));
    CU_ASSERT(n * 2 * (n - 1) < (INT64_C(1) << 41));
    /* the rounds product is where a check is needed: 2(N-1) x limit */
    CU_ASSERT_EQUAL(hs_checked_mul_i64(2 * (n - 1), HS_LIMIT_TIME_NS, &r),
                    -1);
    /* time limits: inside, at, past */
    CU_ASSERT(hs_checked_time_ok(0));
    CU_ASSERT(hs_checked_time_ok(HS_LIMIT_TIME_NS));
    CU_ASSERT(!hs_checked_time_ok(HS_LIMIT_TIME_NS + 1));
    CU_ASSERT(!hs_checked_time_ok(-1));
    CU_ASSERT(hs_checked_bytes_ok(HS_LIMIT_BYTES));
    CU_ASSERT(!hs_checked_bytes_ok(HS_LIMIT_BYTES + 1));
}

/* ---- names and addresses ---- */

static void test_names(void)
{
    char longest[HS_LIMIT_NAME_LEN + 2];
    const char *why = NULL;

    CU_ASSERT_EQUAL(hs_valid_name("gpu-1", &why), 0);
    CU_ASSERT_EQUAL(hs_valid_name("A100", NULL), 0);
    CU_ASSERT_EQUAL(hs_valid_name("mlu370_x.2", NULL), 0);
    CU_ASSERT_EQUAL(hs_valid_name("g\xc3\xbc", NULL), 0); /* UTF-8 */
    CU_ASSERT_EQUAL(hs_valid_name("a-", NULL), 0);

    CU_ASSERT_EQUAL(hs_valid_name("-oProxyCommand=x", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "starts with '-'");
    CU_ASSERT_EQUAL(hs_valid_name("a b", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "white space");
    CU_ASSERT_EQUAL(hs_valid_name("a\tb", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "white space");
    CU_ASSERT_EQUAL(hs_valid_name("a\nb", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_name("\x01", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "control character");
    CU_ASSERT_EQUAL(hs_valid_name("a\x7f", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "control character");
    CU_ASSERT_EQUAL(hs_valid_name("", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "empty");
    CU_ASSERT_EQUAL(hs_valid_name(NULL, &why), -1);

    /* refused values are quoted safely in messages */
    {
        char q[16];
        CU_ASSERT_STRING_EQUAL(hs_valid_quote("a\x01" "b\\\x1b", q,
                                              sizeof q),
                               "a\\x01b\\\\\\x1b");
        CU_ASSERT_STRING_EQUAL(hs_valid_quote("abcdefghijklmnopq", q, 8),
                               "abcd...");
        CU_ASSERT_STRING_EQUAL(hs_valid_quote("abcdefg", q, 8), "abcdefg");
        CU_ASSERT_STRING_EQUAL(hs_valid_quote(NULL, q, sizeof q), "");
    }
    memset(longest, 'n', sizeof longest);
    longest[HS_LIMIT_NAME_LEN] = '\0';
    CU_ASSERT_EQUAL(hs_valid_name(longest, NULL), 0);
    longest[HS_LIMIT_NAME_LEN] = 'n';
    longest[HS_LIMIT_NAME_LEN + 1] = '\0';
    CU_ASSERT_EQUAL(hs_valid_name(longest, &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "longer than");
}

static void test_addresses(void)
{
    char host[300];
    const char *why = NULL;
    int k;

    CU_ASSERT_EQUAL(hs_valid_addr("::1", &why), 0);
    CU_ASSERT_EQUAL(hs_valid_addr("10.0.0.1", NULL), 0);
    CU_ASSERT_EQUAL(hs_valid_addr("198.18.0.4", NULL), 0);
    CU_ASSERT_EQUAL(hs_valid_addr("2001:db8::7", NULL), 0);
    CU_ASSERT_EQUAL(hs_valid_addr("fe80::1%eth0", NULL), 0);
    CU_ASSERT_EQUAL(hs_valid_addr("host-1.example", NULL), 0);
    CU_ASSERT_EQUAL(hs_valid_addr("localhost", NULL), 0);
    CU_ASSERT_EQUAL(hs_valid_addr("Node7.Cluster.example.", NULL), 0);
    CU_ASSERT_EQUAL(hs_valid_addr("3com.example", NULL), 0);

    CU_ASSERT_EQUAL(hs_valid_addr("-oProxyCommand=x", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "starts with '-'");
    CU_ASSERT_EQUAL(hs_valid_addr("a b", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "white space");
    CU_ASSERT_EQUAL(hs_valid_addr("a\tb", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "white space");
    CU_ASSERT_EQUAL(hs_valid_addr("\x01", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "control character");
    CU_ASSERT_EQUAL(hs_valid_addr("host\x1b[2J", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr("", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr("user@host", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "neither an IP address nor a host name");
    CU_ASSERT_EQUAL(hs_valid_addr("host_1", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr("host;reboot", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr("$(id)", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr("host-", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "ends with '-'");
    CU_ASSERT_EQUAL(hs_valid_addr("a.-b", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "starts with '-'");
    CU_ASSERT_EQUAL(hs_valid_addr("a..b", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr(".a", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr(".", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr("10.0.0.256", &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "not a valid IP address");
    CU_ASSERT_EQUAL(hs_valid_addr("1.2.3", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr("1234", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr("fe80::1%-x", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr("fe80::1%", &why), -1);
    CU_ASSERT_EQUAL(hs_valid_addr("::1 ", &why), -1);

    /* a 63-character label is the longest */
    memset(host, 'a', 63);
    strcpy(host + 63, ".example");
    CU_ASSERT_EQUAL(hs_valid_addr(host, NULL), 0);
    memset(host, 'a', 64);
    strcpy(host + 64, ".example");
    CU_ASSERT_EQUAL(hs_valid_addr(host, &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "label longer than 63");

    /* 253 characters in all is the longest: 4 x (62 + '.') + "x" */
    for (k = 0; k < 4; k++) {
        memset(host + 63 * k, 'h', 62);
        host[63 * k + 62] = '.';
    }
    strcpy(host + 252, "x");
    CU_ASSERT_EQUAL(strlen(host), 253);
    CU_ASSERT_EQUAL(hs_valid_addr(host, &why), 0);
    strcpy(host + 252, "xy");
    CU_ASSERT_EQUAL(strlen(host), 254);
    CU_ASSERT_EQUAL(hs_valid_addr(host, &why), -1);
    HS_ASSERT_STR_CONTAINS(why, "longer than 253");
}

/* ---- bounded reads ---- */

static void test_bounded_reads(void)
{
    const char *dir = hs_test_tmpdir("bounded");
    char path[512], fifo[512];
    hs_error_t err;
    char *text = (char *)1;
    size_t len = 0;
    int fd;

    /* /dev/zero: refused by default, and bounded when allowed */
    CU_ASSERT_EQUAL(hs_file_read("/dev/zero", &text, &len, &err), HS_ERR_IO);
    CU_ASSERT_PTR_NULL(text);
    HS_ASSERT_STR_CONTAINS(err.msg, "/dev/zero: is not a regular file");
    CU_ASSERT_EQUAL(hs_file_read_bounded("/dev/zero", 1 << 20,
                                         HS_FILE_ALLOW_SPECIAL, &text, &len,
                                         &err),
                    HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, "holds more than 1048576 bytes");
    CU_ASSERT_EQUAL(hs_file_read_bounded("/dev/null", 1 << 20,
                                         HS_FILE_ALLOW_SPECIAL, &text, &len,
                                         &err),
                    HS_OK);
    CU_ASSERT_EQUAL(len, 0);
    free(text);

    /* a directory */
    CU_ASSERT_EQUAL(hs_file_read(dir, &text, &len, &err), HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, "is a directory");

    /* a FIFO with no writer: refused at once, not waited on */
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    unlink(fifo);
    CU_ASSERT_EQUAL(mkfifo(fifo, 0600), 0);
    CU_ASSERT_EQUAL(hs_file_read(fifo, &text, &len, &err), HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, "is not a regular file");

    /* an oversize file (sparse: 1 GiB + 1 byte, nothing written) */
    snprintf(path, sizeof path, "%s/big", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(ftruncate(fd, (off_t)HS_LIMIT_FILE_BYTES + 1), 0);
    close(fd);
    CU_ASSERT_EQUAL(hs_file_read(path, &text, &len, &err), HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, "is 1073741825 bytes, over the "
                                    "1073741824-byte limit");
    unlink(path);

    /* at and past a small limit */
    CU_ASSERT_EQUAL(hs_test_write(path, "0123456789"), 0);
    CU_ASSERT_EQUAL(hs_file_read_bounded(path, 10, 0, &text, &len, &err),
                    HS_OK);
    CU_ASSERT_EQUAL(len, 10);
    CU_ASSERT_STRING_EQUAL(text, "0123456789");
    free(text);
    CU_ASSERT_EQUAL(hs_file_read_bounded(path, 9, 0, &text, &len, &err),
                    HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, "is 10 bytes, over the 9-byte limit");
    CU_ASSERT_EQUAL(hs_file_read(path, &text, &len, &err), HS_OK);
    CU_ASSERT_EQUAL(len, 10);
    free(text);

    /* a missing file still says so */
    CU_ASSERT_EQUAL(hs_file_read("/nonexistent/x.yaml", &text, &len, &err),
                    HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, "/nonexistent/x.yaml: cannot open");
}

/* ---- registries ---- */

static void test_registry(void)
{
    char path[64];
    hs_error_t err;
    hs_atomic_t a;
    const char *dir = hs_test_tmpdir("registry");
    char final[512];
    int k, base_files = hs_signal_count_files();

    /* hs_atomic registers its temporary file while it exists */
    snprintf(final, sizeof final, "%s/out.txt", dir);
    CU_ASSERT_EQUAL(hs_atomic_open(&a, final, &err), HS_OK);
    CU_ASSERT_EQUAL(hs_signal_count_files(), base_files + 1);
    fputs("x\n", a.f);
    CU_ASSERT_EQUAL(hs_atomic_commit(&a, &err), HS_OK);
    CU_ASSERT_EQUAL(hs_signal_count_files(), base_files);
    CU_ASSERT_EQUAL(hs_atomic_open(&a, final, &err), HS_OK);
    CU_ASSERT_EQUAL(hs_signal_count_files(), base_files + 1);
    hs_atomic_abort(&a);
    CU_ASSERT_EQUAL(hs_signal_count_files(), base_files);

    /* a full registry refuses, and forgetting frees a slot */
    for (k = base_files; k < HS_SIGNAL_SLOTS; k++) {
        snprintf(path, sizeof path, "/nonexistent/f%d", k);
        CU_ASSERT_EQUAL(hs_signal_add_file(path, &err), HS_OK);
    }
    CU_ASSERT_EQUAL(hs_signal_add_file("/nonexistent/one-more", &err),
                    HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(err.msg, "not removed on a signal");
    for (k = base_files; k < HS_SIGNAL_SLOTS; k++) {
        snprintf(path, sizeof path, "/nonexistent/f%d", k);
        hs_signal_forget_file(path);
    }
    CU_ASSERT_EQUAL(hs_signal_count_files(), base_files);
    hs_signal_forget_file("/never/registered");
    hs_signal_forget_file(NULL);

    CU_ASSERT_EQUAL(hs_signal_add_pgid(0, &err), HS_ERR_RANGE);
    CU_ASSERT_EQUAL(hs_signal_add_pgid(-5, &err), HS_ERR_RANGE);
    CU_ASSERT_EQUAL(hs_signal_add_pgid(999999, &err), HS_OK);
    CU_ASSERT_EQUAL(hs_signal_count_pgids(), 1);
    hs_signal_forget_pgid(999999);
    CU_ASSERT_EQUAL(hs_signal_count_pgids(), 0);
}

/* ---- the signal cleanup, for real ---- */

/* A grandchild: its own process group, SIGTERM ignored or not; says it is
   ready on fd, then sleeps until killed. */
static void hs__grandchild(int ignore_term, int fd)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGTERM, ignore_term ? SIG_IGN : SIG_DFL);
    (void)setpgid(0, 0);
    if (write(fd, "r", 1) != 1)
        _exit(20);
    for (;;)
        pause();
}

/* The child: installs the handler, opens a temporary file through
   hs_atomic, starts two grandchild groups and registers them, reports
   "pid0 pid1 tmp_path" on fd, then waits for the signal. */
static void hs__child(const char *final, int fd)
{
    hs_error_t err;
    hs_atomic_t a;
    pid_t g[2];
    int ready[2], k;
    char c;

    if (hs_signal_install(&err) != HS_OK)
        _exit(10);
    if (hs_atomic_open(&a, final, &err) != HS_OK)
        _exit(11);
    fputs("half written", a.f);
    fflush(a.f);
    if (pipe(ready) != 0)
        _exit(12);
    for (k = 0; k < 2; k++) {
        g[k] = fork();
        if (g[k] < 0)
            _exit(13);
        if (g[k] == 0)
            hs__grandchild(k == 1, ready[1]);
        (void)setpgid(g[k], g[k]);
        if (read(ready[0], &c, 1) != 1)
            _exit(14);
        if (hs_signal_add_pgid(g[k], &err) != HS_OK)
            _exit(15);
    }
    dprintf(fd, "%ld %ld %s\n", (long)g[0], (long)g[1], a.tmp_path);
    close(fd);
    for (;;)
        pause();
}

/* Waits up to 5 s for pid (an orphan reparented to us, the subreaper, or
   already reaped by the child's handler) to be gone; its status through
   *sig (0 when the handler reaped it).  1 when gone. */
static int hs__gone(pid_t pid, int *sig)
{
    int k, st;

    *sig = 0;
    for (k = 0; k < 500; k++) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            *sig = WIFSIGNALED(st) ? WTERMSIG(st) : -1;
            return 1;
        }
        if (r < 0 && errno == ECHILD)
            return kill(pid, 0) != 0 && errno == ESRCH;
        usleep(10000);
    }
    return 0;
}

static void hs__signal_case(int sig)
{
    const char *dir = hs_test_tmpdir(sig == SIGTERM ? "sigterm" : "sigint");
    char final[512], line[1024], tmp[1024];
    long g0 = 0, g1 = 0;
    int p[2], st, gsig, gone;
    pid_t child;
    FILE *in;
    struct timespec t0, t1;

    snprintf(final, sizeof final, "%s/out.txt", dir);
    CU_ASSERT_FATAL(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
    CU_ASSERT_FATAL(pipe(p) == 0);
    fflush(NULL);
    child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0) {
        close(p[0]);
        hs__child(final, p[1]);
    }
    close(p[1]);
    in = fdopen(p[0], "r");
    CU_ASSERT_FATAL(in != NULL);
    line[0] = '\0';
    if (fgets(line, sizeof line, in) == NULL ||
        sscanf(line, "%ld %ld %1023s", &g0, &g1, tmp) != 3) {
        fclose(in);
        kill(child, SIGKILL);
        waitpid(child, &st, 0);
        CU_FAIL("the child did not set up");
        return;
    }
    fclose(in);
    CU_ASSERT_EQUAL(access(tmp, F_OK), 0); /* the temp file is there */
    HS_ASSERT_STR_CONTAINS(tmp, "out.txt.tmp.");

    clock_gettime(CLOCK_MONOTONIC, &t0);
    CU_ASSERT_EQUAL(kill(child, sig), 0);
    CU_ASSERT_EQUAL(waitpid(child, &st, 0), child);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* it ended by the signal itself (re-raised) */
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == sig);
    /* the temporary file is gone, and no final file appeared */
    CU_ASSERT(access(tmp, F_OK) != 0 && errno == ENOENT);
    CU_ASSERT(access(final, F_OK) != 0 && errno == ENOENT);
    /* both grandchildren are dead: the first by SIGTERM, the second
       (which ignores SIGTERM) by SIGKILL after the grace */
    gone = hs__gone((pid_t)g0, &gsig);
    CU_ASSERT(gone);
    CU_ASSERT(gsig == 0 || gsig == SIGTERM);
    if (!gone)
        kill(-(pid_t)g0, SIGKILL);
    gone = hs__gone((pid_t)g1, &gsig);
    CU_ASSERT(gone);
    CU_ASSERT(gsig == 0 || gsig == SIGKILL);
    if (!gone)
        kill(-(pid_t)g1, SIGKILL);
    /* the grace was waited for, and not much longer */
    {
        double s = (double)(t1.tv_sec - t0.tv_sec) +
                   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        CU_ASSERT(s >= 0.45 && s < 5.0);
    }
}

static void test_signal_cleanup_term(void)
{
    hs__signal_case(SIGTERM);
}

static void test_signal_cleanup_int(void)
{
    hs__signal_case(SIGINT);
}


/* A value set by key path (as a sweep or the command line does) is named
   by its key path; one read from a file by its file:line:col; a profile's
   key by the profile's own position. */
static void test_where_set_values(void)
{
    static const char yaml[] =
        "job: {dataset: {samples: 1000000}, epochs: 1}\n"
        "device_types:\n"
        "  - name: g\n"
        "    count: 2\n"
        "    batch: 1\n"
        "    profile: {t_fwd: 1s, t_b1: 1ms, allreduce_bytes: 1MB}\n"
        "network: {default_bandwidth: 10Gbps}\n";
    hs_scenario_t *s = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t err;

    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(yaml, strlen(yaml), "w.yaml",
                                                NULL, &s, &err),
                          HS_OK);
    CU_ASSERT_EQUAL(hs_scenario_set(s, "job.epochs", "1000000000", &err),
                    HS_OK);
    CU_ASSERT_EQUAL(hs_scenario_resolve(s, &err), HS_OK);
    CU_ASSERT_EQUAL(hs_closed_predict(s, &p, &err), HS_ERR_RANGE);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_NSTRING_EQUAL(err.msg, "job.epochs: 1000000000 epochs", 29);
    /* a key read from the file */
    CU_ASSERT_EQUAL(hs_scenario_fail(s, "job.dataset", HS_ERR_RANGE, &err,
                                     "x"),
                    HS_ERR_RANGE);
    CU_ASSERT_STRING_EQUAL(err.msg, "w.yaml:1:26: job.dataset: x");
    /* a profile's key, inline: the scenario file and the value's place */
    hs_scenario_fail(s, "device_types.g.profile.allreduce_bytes",
                     HS_ERR_RANGE, &err, "y");
    CU_ASSERT_STRING_EQUAL(
        err.msg, "w.yaml:6:54: device_types.g.profile.allreduce_bytes: y");
    /* a profile key set by key path loses its position */
    CU_ASSERT_EQUAL(hs_scenario_set(s, "device_types.g.profile.t_fwd",
                                    "2s", &err), HS_OK);
    hs_scenario_fail(s, "device_types.g.profile.t_fwd", HS_ERR_RANGE, &err,
                     "z");
    CU_ASSERT_STRING_EQUAL(err.msg, "device_types.g.profile.t_fwd: z");
    /* a key nobody recorded: the file alone */
    hs_scenario_fail(s, "network.latency", HS_ERR_RANGE, &err, "w");
    CU_ASSERT_STRING_EQUAL(err.msg, "w.yaml: network.latency: w");
    /* the clone keeps the table */
    {
        hs_scenario_t *c = NULL;
        CU_ASSERT_EQUAL(hs_scenario_clone(s, &c, &err), HS_OK);
        hs_scenario_fail(c, "job.dataset", HS_ERR_RANGE, &err, "x");
        CU_ASSERT_STRING_EQUAL(err.msg, "w.yaml:1:26: job.dataset: x");
        hs_scenario_free(c);
    }
    hs_scenario_free(s);
}

/* A replay beyond the budgets is refused with the estimate, at the key (or
   the option) that asked for it; --force lifts the budget. */
static void test_cli_budget(void)
{
    static const char yaml[] =
        "device_types:\n"
        "  - name: g\n"
        "    count: 100000\n"
        "    batch: 32\n"
        "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 100MB}\n"
        "network: {default_bandwidth: 25Gbps, latency: 10us}\n"
        "simulate: {steps: 10}\n";
    static const char small[] =
        "device_types:\n"
        "  - name: g\n"
        "    count: 2\n"
        "    batch: 32\n"
        "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 100MB}\n"
        "network: {default_bandwidth: 25Gbps, latency: 10us}\n";
    char path[4096], want[4200];
    hs_run_t r;
    hs_scenario_t *s = NULL;
    hs_error_t err;
    double ev = 0, by = 0;

    snprintf(path, sizeof path, "%s",
             hs_test_write_file("hardening-big.yaml", yaml));
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", path, NULL), 0);
    CU_ASSERT_EQUAL(r.status, 2);
    snprintf(want, sizeof want, "%s:7:19: simulate.steps: replaying 10 "
             "steps of 100000 devices takes about 2e+11 events", path);
    HS_ASSERT_STR_CONTAINS(r.err, want);
    HS_ASSERT_STR_CONTAINS(r.err, "pass --force");
    hs_run_free(&r);
    /* the steps came from the option: the option is named */
    CU_ASSERT_EQUAL_FATAL(
        hs_run_hetsim(&r, "simulate", path, "--steps", "3", NULL), 0);
    CU_ASSERT_EQUAL(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "hetsim: --steps 3: replaying 3 steps");
    hs_run_free(&r);
    /* predict is not a replay: no budget */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "predict", path, NULL), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    hs_run_free(&r);
    /* --force is an option of simulate, and a small run passes with it */
    snprintf(path, sizeof path, "%s",
             hs_test_write_file("hardening-small.yaml", small));
    CU_ASSERT_EQUAL_FATAL(
        hs_run_hetsim(&r, "simulate", path, "--force", NULL), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    hs_run_free(&r);
    /* the estimate is near what the replay counts (patent mode: about
       steps x N x (2(N-1) + 1) events) */
    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_text(small, strlen(small),
                                                "small.yaml", NULL, &s, &err),
                          HS_OK);
    hs_scenario_replay_estimate(s, 1000, HS_OVERLAP_PATENT, NULL, &ev, &by);
    CU_ASSERT(ev >= 1000.0 * 2 * 3 && ev <= 1000.0 * 2 * 20);
    CU_ASSERT(by > 16000.0 && by < 1e6);
    CU_ASSERT_EQUAL(hs_scenario_check_budget(s, 1000, HS_OVERLAP_PATENT,
                                             NULL, &err),
                    HS_OK);
    hs_scenario_free(s);
}

/* ---- every example of the issue through the CLI ---- */

/* The scenario every CLI case edits: one setting at a time. */
typedef struct hs__bad_s {
    const char *what;       /* for messages */
    const char *samples, *epochs, *batch, *fwd, *ar, *addr, *scale, *bw;
    const char *lat, *steps, *factor, *comm, *send;
    const char *needle;     /* the value whose position the error names */
    const char *key;        /* the key (or phrase) the message names */
} hs__bad_t;

static void hs__bad_text(const hs__bad_t *b, char *buf, size_t len)
{
    snprintf(buf, len,
             "name: bad\n"
             "job:\n"
             "  dataset: {samples: %s}\n"
             "  epochs: %s\n"
             "device_types:\n"
             "  - name: g\n"
             "    batch: %s\n"
             "    profile:\n"
             "      t_fwd: %s\n"
             "      t_b1: 1ms\n"
             "      t_bwd: 20ms\n"
             "      allreduce_bytes: %s\n"
             "      comm_ns_per_byte: %s\n"
             "devices:\n"
             "  - {name: d0, type: g, addr: '%s', compute_scale: %s}\n"
             "  - {name: d1, type: g, addr: 10.0.0.2}\n"
             "network: {default_bandwidth: %s, latency: %s}\n"
             "simulate:\n"
             "  steps: %s\n"
             "  send: %s\n"
             "  stragglers: [{device: d1, steps: [2, 3], factor: %s}]\n",
             b->samples ? b->samples : "1000000",
             b->epochs ? b->epochs : "1", b->batch ? b->batch : "32",
             b->fwd ? b->fwd : "10ms", b->ar ? b->ar : "100MB",
             b->comm ? b->comm : "0",
             b->addr ? b->addr : "10.0.0.1", b->scale ? b->scale : "1",
             b->bw ? b->bw : "25Gbps", b->lat ? b->lat : "10us",
             b->steps ? b->steps : "10", b->send ? b->send : "rendezvous",
             b->factor ? b->factor : "2");
}

/* "path:line:col:" of the first occurrence of needle in text (1-based). */
static void hs__pos_of(const char *path, const char *text,
                       const char *needle, char *out, size_t len)
{
    const char *at = strstr(text, needle), *p;
    unsigned long line = 1, col = 1;

    for (p = text; at != NULL && p < at; p++) {
        if (*p == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(out, len, "%s:%lu:%lu:", path, line, col);
}

static void test_cli_bad_inputs(void)
{
    static const hs__bad_t cases[] = {
        {"compute_scale 1e12", .scale = "1e12", .needle = "1e12",
         .key = "compute_scale must be at most 1000"},
        {"a 1 TB payload on a 1 bit/s link", .ar = "1TB", .bw = "1bps",
         .needle = "1TB",
         .key = "device_types.g.profile.allreduce_bytes: one ring "
                "all-reduce"},
        {"a latency of 2,500,000 h", .lat = "2500000h", .needle = "2500000h",
         .key = "network.latency: '2500000h' is above the largest "
                "duration"},
        {"an all-reduce of 10,000 PB", .ar = "10000PB", .needle = "10000PB",
         .key = "allreduce_bytes: '10000PB' is above the largest size"},
        {"a straggler factor of 1e300", .factor = "1e300", .needle = "1e300",
         .key = "straggler factor must be at most 1000"},
        {"an addr that is an ssh option", .addr = "-oProxyCommand=x",
         .needle = "'-oProxyCommand=x'", .key = "starts with '-'"},
        {"an addr with a space", .addr = "a b", .needle = "'a b'",
         .key = "holds white space"},
        {"a bandwidth below 1 bit/s", .bw = "0.5bps", .needle = "0.5bps",
         .key = "below the smallest bandwidth"},
        {"a time of 1e300 s", .fwd = "1e300s", .needle = "1e300s",
         .key = "t_fwd: '1e300s' is above the largest duration"},
        {"a NaN time", .fwd = "nans", .needle = "nans",
         .key = "not a finite decimal number"},
        {"a size of -0", .ar = "-0B", .needle = "-0B", .key = "has a sign"},
        {"a scaled forward pass past 31.7 years", .fwd = "1000000s",
         .scale = "1000", .needle = "compute_scale: 1000",
         .key = "devices.d0.compute_scale: device 'd0' would compute"},
        {"steps x step past the limit", .fwd = "1000000s",
         .steps = "100000000", .needle = "100000000",
         .key = "simulate.steps: 100000000 steps"},
        {"an epoch past the limit", .samples = "1000000000000000",
         .batch = "1", .needle = "1000000000000000",
         .key = "job.dataset: one epoch of"},
        /* found by a random search: the replay packs this cost in an
           event argument, and it used to reach the engine's check */
        {"a communication cost past what the replay carries",
         .ar = "1PB", .comm = "1", .send = "eager", .needle = "comm_ns",
         .key = "device_types.g.profile.comm_ns_per_byte: processing its "
                "ring chunks"},
        {"epochs x epoch past the limit", .samples = "1000000",
         .batch = "1", .fwd = "1s", .epochs = "1000000000",
         .needle = "1000000000\n", .key = "job.epochs: 1000000000 epochs"},
    };
    static char *const cmds[] = {"predict", "simulate"};
    char text[2048], where[4200], path[4096];
    size_t i, k;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const hs__bad_t *b = &cases[i];
        hs__bad_text(b, text, sizeof text);
        snprintf(path, sizeof path, "%s",
                 hs_test_write_file("hardening-bad.yaml", text));
        hs__pos_of(path, text, b->needle, where, sizeof where);
        if (strcmp(b->needle, "comm_ns") == 0)
            hs__pos_of(path, text, "1\ndevices", where, sizeof where);
        if (strcmp(b->needle, "compute_scale: 1000") == 0) {
            /* the error points at the value, after "compute_scale: " */
            hs__pos_of(path, text, "1000}", where, sizeof where);
        }
        for (k = 0; k < 2; k++) {
            hs_run_t r;
            CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, cmds[k], path, NULL), 0);
            if (r.status != 2 || strstr(r.err, where) == NULL ||
                strstr(r.err, b->key) == NULL)
                fprintf(stderr, "\n%s (%s): status %d, stderr: %s",
                        b->what, cmds[k], r.status, r.err);
            CU_ASSERT_EQUAL(r.status, 2);
            HS_ASSERT_STR_CONTAINS(r.err, where);
            HS_ASSERT_STR_CONTAINS(r.err, b->key);
            /* never the engine's internal check */
            CU_ASSERT_PTR_NULL(strstr(r.err, "event engine"));
            hs_run_free(&r);
        }
    }
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("hardening", NULL, NULL);

    CU_add_test(s, "checked integer ops at their boundaries",
                test_checked_int);
    CU_add_test(s, "checked conversions, scaling, transfer time",
                test_checked_double);
    CU_add_test(s, "the limits header's claims hold", test_limits_claims);
    CU_add_test(s, "names accepted and refused", test_names);
    CU_add_test(s, "addresses accepted and refused", test_addresses);
    CU_add_test(s, "bounded whole-file reads", test_bounded_reads);
    CU_add_test(s, "temp-file and process-group registries",
                test_registry);
    CU_add_test(s, "SIGTERM removes temp files, ends child groups",
                test_signal_cleanup_term);
    CU_add_test(s, "SIGINT removes temp files, ends child groups",
                test_signal_cleanup_int);
    CU_add_test(s, "the issue's bad inputs: exit 2 and file:line:col",
                test_cli_bad_inputs);
    CU_add_test(s, "errors name where a value came from",
                test_where_set_values);
    CU_add_test(s, "replay budgets, the estimate, --force",
                test_cli_budget);
    return 0;
}

HS_TEST_MAIN(reg)
