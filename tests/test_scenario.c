/* test_scenario.c -- scenario YAML: resolution and every error class, each
 * with its file:line:col. */
#include <stdlib.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"

/* A valid base: 2 types, generated devices. Line numbers matter below. */
#define BASE_TYPES                                                          \
    "device_types:\n"                          /* 1 */                      \
    "  - name: a\n"                            /* 2 */                      \
    "    count: 2\n"                           /* 3 */                      \
    "    batch: 8\n"                           /* 4 */                      \
    "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}\n" /* 5 */ \
    "  - name: b\n"                            /* 6 */                      \
    "    count: 2\n"                           /* 7 */                      \
    "    batch: 8\n"                           /* 8 */                      \
    "    profile: {t_fwd: 20ms, t_b1: 2ms, allreduce_bytes: 4MB}\n" /* 9 */

static hs_err_t load(const char *yaml, hs_scenario_t **s, hs_error_t *e)
{
    return hs_scenario_load_text(yaml, strlen(yaml), "t.yaml", HS_TEST_TMP,
                                 s, e);
}

/* Loads yaml, expects failure with code and a message starting with
   "t.yaml:LINE:COL:" (prefix) and containing `what`. */
static void expect_error(const char *yaml, hs_err_t code, const char *prefix,
                         const char *what)
{
    hs_scenario_t *s = NULL;
    hs_error_t e;
    hs_err_t rc = load(yaml, &s, &e);

    HS_ASSERT_I64_EQ(rc, code);
    CU_ASSERT_PTR_NULL(s);
    if (strncmp(e.msg, prefix, strlen(prefix)) != 0)
        fprintf(stderr, "\nexpected prefix '%s' in '%s'\n", prefix, e.msg);
    CU_ASSERT_EQUAL(strncmp(e.msg, prefix, strlen(prefix)), 0);
    HS_ASSERT_STR_CONTAINS(e.msg, what);
    hs_scenario_free(s);
}

static void test_syntax(void)
{
    expect_error("job: {epochs: 2\n", HS_ERR_SYNTAX, "t.yaml:2:1:",
                 "YAML syntax error");
    expect_error("a: b\n c: d\n", HS_ERR_SYNTAX, "t.yaml:2:3:",
                 "YAML syntax error");
    expect_error("", HS_ERR_SCHEMA, "t.yaml:1:1:", "empty");
    expect_error("- 1\n- 2\n", HS_ERR_SCHEMA, "t.yaml:1:1:",
                 "must be a mapping");
}

static void test_unknown_and_duplicate_keys(void)
{
    expect_error(BASE_TYPES "netwrk: {}\n", HS_ERR_SCHEMA, "t.yaml:10:1:",
                 "unknown key 'netwrk'");
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "    colour: red\n"
                 "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}\n"
                 "network: {default_bandwidth: 1Gbps}\n",
                 HS_ERR_SCHEMA, "t.yaml:5:5:", "unknown key 'colour'");
    expect_error(BASE_TYPES "network: {default_bandwidth: 1Gbps, "
                            "default_bandwidth: 2Gbps}\n",
                 HS_ERR_SCHEMA, "t.yaml:10:37:",
                 "duplicate key 'default_bandwidth'");
    /* unknown key inside an inline profile */
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB,"
                 " t_fwdd: 1ms}\n"
                 "network: {default_bandwidth: 1Gbps}\n",
                 HS_ERR_SCHEMA, "t.yaml:5:61:", "unknown key 't_fwdd'");
}

static void test_types_and_units(void)
{
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: two\n"
                 "    batch: 8\n"
                 "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}\n",
                 HS_ERR_SCHEMA, "t.yaml:3:12:", "whole number");
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "    profile: {t_fwd: 10, t_b1: 1ms, allreduce_bytes: 4MB}\n",
                 HS_ERR_UNIT, "t.yaml:5:22:", "not a duration with a unit");
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4Mb}\n",
                 HS_ERR_UNIT, "t.yaml:5:56:", "not a size with a unit");
    expect_error(BASE_TYPES "network: {default_bandwidth: 10Gbytes}\n",
                 HS_ERR_UNIT, "t.yaml:10:30:", "not a positive bandwidth");
    expect_error(BASE_TYPES "network: {default_bandwidth: [1, 2]}\n",
                 HS_ERR_SCHEMA, "t.yaml:10:30:", "must be a bandwidth");
    expect_error(BASE_TYPES "network: {default_bandwidth: 1Gbps}\n"
                            "simulate: {overlap: sometimes}\n",
                 HS_ERR_SCHEMA, "t.yaml:11:21:",
                 "overlap must be patent, buckets, none or last_bucket");
    /* bucket rings at once: 1..8 */
    expect_error(BASE_TYPES "network: {default_bandwidth: 1Gbps}\n"
                            "simulate: {streams: 0}\n",
                 HS_ERR_RANGE, "t.yaml:11:21:", "simulate.streams");
    expect_error(BASE_TYPES "network: {default_bandwidth: 1Gbps}\n"
                            "simulate: {streams: 9}\n",
                 HS_ERR_RANGE, "t.yaml:11:21:", "simulate.streams");
    /* the communication's own cost: a plain non-negative number */
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB,\n"
                 "              comm_ns_per_byte: -1}\n",
                 HS_ERR_RANGE, "t.yaml:6:33:",
                 "comm_ns_per_byte must be at least 0");
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB,\n"
                 "              comm_ns_per_byte: 2ns}\n",
                 HS_ERR_SCHEMA, "t.yaml:6:33:",
                 "comm_ns_per_byte must be a number");
}

static void test_missing_profile_and_duplicates(void)
{
    {
        /* a type with no profile loads (profile and measure-bw need
           that) and is rejected where timings are needed */
        const char *y = "device_types:\n"
                        "  - name: a\n"
                        "    count: 2\n"
                        "    batch: 8\n"
                        "network: {default_bandwidth: 1Gbps}\n";
        hs_scenario_t *s = NULL;
        hs_error_t e;
        CU_ASSERT_EQUAL_FATAL(load(y, &s, &e), HS_OK);
        CU_ASSERT_FALSE(s->types[0].has_profile);
        HS_ASSERT_I64_EQ(hs_scenario_require_profiles(s, &e), HS_ERR_SCHEMA);
        HS_ASSERT_STR_CONTAINS(e.msg, "t.yaml:2:5: device type 'a' has no "
                                      "profile");
        hs_scenario_free(s);
    }
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "    profile: {t_fwd: 10ms, t_b1: 1ms}\n",
                 HS_ERR_SCHEMA, "t.yaml:5:14:",
                 "needs 'allreduce_bytes' (D, bytes one device sends per "
                 "iteration in its sub-system) or 'gradient_bytes'");
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "    profile: {t_fwd: 10ms, allreduce_bytes: 4MB,\n"
                 "              gradient_bytes: 4MB}\n",
                 HS_ERR_SCHEMA, "t.yaml:6:31:", "not both");
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "    profile: {t_fwd: 10ms, gradient_bytes: 0B}\n",
                 HS_ERR_RANGE, "t.yaml:5:44:", "more than 0 bytes");
    expect_error(BASE_TYPES "  - name: a\n"
                            "    batch: 8\n"
                            "    profile: {t_fwd: 1ms, t_b1: 1ms, "
                            "allreduce_bytes: 1MB}\n",
                 HS_ERR_SCHEMA, "t.yaml:10:11:",
                 "duplicate device type name 'a'");
    expect_error(BASE_TYPES "devices:\n"
                            "  - {name: x, type: a}\n"
                            "  - {name: y, type: b}\n"
                            "  - {name: x, type: b}\n"
                            "network: {default_bandwidth: 1Gbps}\n",
                 HS_ERR_SCHEMA, "t.yaml:13:5:", "duplicate device name 'x'");
    expect_error(BASE_TYPES "devices:\n"
                            "  - {name: x, type: a}\n"
                            "  - {name: y, type: c}\n",
                 HS_ERR_SCHEMA, "t.yaml:12:21:", "unknown type 'c'");
}

/* The payload as the model's gradient (gradient_bytes: M) instead of the
   sub-system's measured D, and a profile without t_b1: D = M 2(n-1)/n by
   hand, the payload M back, t_b1 = 0 with a note, and the closed form
   T = T_fwd + 0 + T_ar with T_ar = 2(N-1) M/(N B) worked by hand. */
static void test_gradient_bytes_and_t_b1(void)
{
    static const char yaml[] =
        "device_types:\n"
        "  - name: a\n"
        "    count: 4\n"
        "    batch: 8\n"
        "    profile: {t_fwd: 10ms, gradient_bytes: 120MB}\n"
        "  - name: b\n"
        "    count: 4\n"
        "    batch: 8\n"
        "    profile: {t_fwd: 10ms, t_b1: 1ms, subsystem_size: 4,\n"
        "              gradient_bytes: 120MB}\n"
        "network: {default_bandwidth: 1GB/s, latency: 0us}\n";
    hs_scenario_t *s = NULL;
    hs_error_t e;
    size_t i;
    int noted = 0;

    CU_ASSERT_EQUAL_FATAL(load(yaml, &s, &e), HS_OK);
    /* n = 2: D = M */
    HS_ASSERT_I64_EQ(s->types[0].profile.ar_bytes, 120000000);
    HS_ASSERT_I64_EQ(s->types[0].profile.ar_source, HS_AR_GRADIENT);
    HS_ASSERT_DBL_NEAR(hs_profile_payload_bytes(&s->types[0].profile), 120e6,
                       1e-6);
    /* n = 4: D = 120 MB x 6 / 4 = 180 MB, M = 120 MB again */
    HS_ASSERT_I64_EQ(s->types[1].profile.ar_bytes, 180000000);
    HS_ASSERT_DBL_NEAR(hs_profile_payload_bytes(&s->types[1].profile), 120e6,
                       1e-6);
    /* t_b1 not given: 0, said in a note */
    CU_ASSERT_TRUE(s->types[0].profile.t_b1.known);
    HS_ASSERT_I64_EQ(s->types[0].profile.t_b1.mean_ns, 0);
    for (i = 0; i < s->n_warnings; i++)
        if (strstr(s->warnings[i], "t_b1 not given: taken as 0") != NULL)
            noted = 1;
    CU_ASSERT_TRUE(noted);
    /* device a0, N = 8: 10 ms + 0 + 2 (N-1) (M/N) / B = 10 + 14 x 15 ms */
    HS_ASSERT_I64_EQ(hs_closed_device_ns(s, 0), 220000000);
    hs_scenario_free(s);
}

/* Gradient accumulation: with micro_batches V the profile holds one
   micro-batch; V - 1 whole forwards and backwards precede the last
   forward, t_dl is paid V times, the optimizer once.  Figures by hand:
   N = 4, T_ar = 2 (N-1) (4 MB / 4) / 1 GB/s = 6 ms;
   a (V = 4): fwd' = 4 x 10 + 3 x 20 = 100 ms, T = 100 + 1 + 6 = 107 ms,
   T_ext = 100 + max(20, 1 + 6) + 2 = 122 ms; b (V = 1): 17 ms and 32 ms.
   The replay's event engine and fast path agree, and a step is at least
   the slowest device's extended figure. */
static void test_micro_batches(void)
{
    static const char yaml[] =
        "device_types:\n"
        "  - name: a\n"
        "    count: 2\n"
        "    batch: 32\n"
        "    micro_batches: 4\n"
        "    profile: {t_dl: 3ms, t_fwd: 10ms, t_b1: 1ms, t_bwd: 20ms,\n"
        "              t_opt: 2ms, allreduce_bytes: 4MB}\n"
        "  - name: b\n"
        "    count: 2\n"
        "    batch: 32\n"
        "    profile: {t_dl: 3ms, t_fwd: 10ms, t_b1: 1ms, t_bwd: 20ms,\n"
        "              t_opt: 2ms, allreduce_bytes: 4MB}\n"
        "network: {default_bandwidth: 1GB/s, latency: 0us}\n"
        "simulate: {steps: 4}\n";
    hs_scenario_t *s = NULL;
    hs_replay_result_t *fast = NULL, *ev = NULL;
    hs_replay_opts_t o;
    hs_error_t e;

    CU_ASSERT_EQUAL_FATAL(load(yaml, &s, &e), HS_OK);
    HS_ASSERT_I64_EQ(s->types[0].micro_batches, 4);
    HS_ASSERT_I64_EQ(s->types[1].micro_batches, 1);
    HS_ASSERT_I64_EQ(hs_closed_device_ns(s, 0), 107000000);
    HS_ASSERT_I64_EQ(hs_closed_device_ext_ns(s, 0), 122000000);
    HS_ASSERT_I64_EQ(hs_closed_device_ns(s, 2), 17000000);
    HS_ASSERT_I64_EQ(hs_closed_device_ext_ns(s, 2), 32000000);
    hs_replay_opts_from_scenario(s, &o);
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &fast, &e), HS_OK);
    o.engine = 1;
    CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, &o, NULL, 0, &ev, &e), HS_OK);
    CU_ASSERT_TRUE(fast->fast_path);
    CU_ASSERT_FALSE(ev->fast_path);
    HS_ASSERT_I64_EQ(fast->step_ns, ev->step_ns);
    CU_ASSERT_TRUE(ev->step_ns >= 122000000);
    hs_replay_result_free(fast);
    hs_replay_result_free(ev);
    /* the key as data: micro_batches 1 gives the plain type back */
    CU_ASSERT_EQUAL(hs_scenario_set(s, "device_types.a.micro_batches", "1",
                                    &e), HS_OK);
    CU_ASSERT_EQUAL(hs_scenario_resolve(s, &e), HS_OK);
    HS_ASSERT_I64_EQ(hs_closed_device_ns(s, 0), 17000000);
    hs_scenario_free(s);
    /* micro-batches must divide the batch */
    expect_error("device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 30\n"
                 "    micro_batches: 4\n"
                 "    profile: {t_fwd: 10ms, allreduce_bytes: 4MB}\n",
                 HS_ERR_RANGE, "t.yaml:5:20:", "does not divide the batch");
}

static void test_network_errors(void)
{
    /* no default, no row: the ring link has no bandwidth */
    expect_error(BASE_TYPES "network:\n"
                            "  links:\n"
                            "    - [a-0, a-1, 1Gbps]\n",
                 HS_ERR_NETWORK, "t.yaml:11:3:",
                 "ring link a-1 (a-1) -> b-0 (b-0) has no bandwidth");
    expect_error(BASE_TYPES, HS_ERR_NETWORK, "t.yaml:1:1:",
                 "has no bandwidth");
    expect_error(BASE_TYPES "network:\n"
                            "  default_bandwidth: 1Gbps\n"
                            "  links:\n"
                            "    - [a-0, 10.9.9.9, 1Gbps]\n",
                 HS_ERR_NETWORK, "t.yaml:13:13:",
                 "'10.9.9.9' is neither a device name nor a device address");
    expect_error(BASE_TYPES "network:\n"
                            "  default_bandwidth: 1Gbps\n"
                            "  links:\n"
                            "    - [a-0, a-1]\n",
                 HS_ERR_SCHEMA, "t.yaml:13:7:", "a links row is");
}

static void test_ring_errors(void)
{
    expect_error(BASE_TYPES "ring: [a-0, a-1, b-0, b-7]\n"
                            "network: {default_bandwidth: 1Gbps}\n",
                 HS_ERR_SCHEMA, "t.yaml:10:23:", "unknown device 'b-7'");
    expect_error(BASE_TYPES "ring: [a-0, a-1, b-0, a-0]\n"
                            "network: {default_bandwidth: 1Gbps}\n",
                 HS_ERR_SCHEMA, "t.yaml:10:23:", "names device 'a-0' twice");
    expect_error(BASE_TYPES "ring: [a-0, a-1, b-0]\n"
                            "network: {default_bandwidth: 1Gbps}\n",
                 HS_ERR_SCHEMA, "t.yaml:10:7:", "leaves out device 'b-1'");
    expect_error(BASE_TYPES "ring: spiral\n"
                            "network: {default_bandwidth: 1Gbps}\n",
                 HS_ERR_SCHEMA, "t.yaml:10:7:", "ring must be listing");
}

static void test_included_files(void)
{
    const char *dir = hs_test_tmpdir("scn");
    char path[4096], yaml[8192];
    FILE *f;
    hs_scenario_t *s = NULL;
    hs_error_t e;

    /* a profile file with a bad unit: the error names that file */
    snprintf(path, sizeof path, "%s/p_bad.yaml", dir);
    hs_test_write(path, "subsystem_size: 2\nt_fwd: 10ms\nt_b1: 1 fortnight\n"
          "allreduce_bytes: 4MB\n");
    snprintf(yaml, sizeof yaml,
             "device_types:\n  - {name: a, count: 2, batch: 8, profile: "
             "%s}\nnetwork: {default_bandwidth: 1Gbps}\n", path);
    CU_ASSERT_EQUAL(load(yaml, &s, &e), HS_ERR_UNIT);
    {
        char want[4200];
        snprintf(want, sizeof want, "%s:3:7:", path);
        HS_ASSERT_STR_CONTAINS(e.msg, want);
    }
    /* a good profile file, with samples: mean and sd computed */
    snprintf(path, sizeof path, "%s/p_ok.yaml", dir);
    f = fopen(path, "w");
    fputs("# hetsim profile\ntype: a\nsubsystem_size: 4\n"
          "t_dl: {samples: [1ms, 2ms, 3ms]}\nt_fwd: 10ms\nt_b1: 1ms\n"
          "t_bwd: unknown\nallreduce_bytes: 6MB\nallreduce_source: sidecar\n"
          "buckets:\n  - {bytes: 1MB, ready: 1ms}\n  - {bytes: 3MB, ready: 5ms}\n",
          f);
    fclose(f);
    snprintf(yaml, sizeof yaml,
             "device_types:\n  - {name: a, count: 2, batch: 8, profile: "
             "p_ok.yaml}\nnetwork: {default_bandwidth: 1Gbps}\n");
    CU_ASSERT_EQUAL(hs_scenario_load_text(yaml, strlen(yaml), "t.yaml", dir,
                                          &s, &e),
                    HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    {
        const hs_profile_t *p = &s->types[0].profile;
        CU_ASSERT_TRUE(p->t_dl.known);
        HS_ASSERT_I64_EQ(p->t_dl.mean_ns, 2000000);
        HS_ASSERT_I64_EQ(p->t_dl.sd_ns, 1000000);
        HS_ASSERT_I64_EQ(p->t_dl.n_samples, 3);
        CU_ASSERT_FALSE(p->t_bwd.known);
        CU_ASSERT_FALSE(p->t_opt.known);
        HS_ASSERT_I64_EQ(p->ar_source, HS_AR_SIDECAR);
        HS_ASSERT_I64_EQ(p->n_buckets, 2);
        HS_ASSERT_I64_EQ(p->buckets[1].bytes, 3000000);
        HS_ASSERT_I64_EQ(p->buckets[1].ready_ns, 5000000);
        /* D = 6 MB measured on n = 4: M = D * 4 / (2 * 3) = 4 MB */
        HS_ASSERT_DBL_NEAR(hs_profile_payload_bytes(p), 4e6, 1e-6);
    }
    hs_scenario_free(s);
    /* a missing profile file */
    snprintf(yaml, sizeof yaml,
             "device_types:\n  - {name: a, count: 2, batch: 8, profile: "
             "nope.yaml}\nnetwork: {default_bandwidth: 1Gbps}\n");
    CU_ASSERT_EQUAL(hs_scenario_load_text(yaml, strlen(yaml), "t.yaml", dir,
                                          &s, &e),
                    HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(e.msg, "t.yaml:2:44: profile of type 'a'");
    /* a links CSV with a bad bandwidth on line 3 */
    snprintf(path, sizeof path, "%s/links.csv", dir);
    hs_test_write(path, "addr1,addr2,bandwidth\na-0,a-1,10Gbps\na-1,b-0, 5 bananas\n");
    snprintf(yaml, sizeof yaml,
             BASE_TYPES "network: {default_bandwidth: 1Gbps, links_csv: "
                        "links.csv}\n");
    CU_ASSERT_EQUAL(hs_scenario_load_text(yaml, strlen(yaml), "t.yaml", dir,
                                          &s, &e),
                    HS_ERR_UNIT);
    {
        char want[4200];
        snprintf(want, sizeof want, "%s:3:10:", path);
        HS_ASSERT_STR_CONTAINS(e.msg, want);
    }
}

static void test_resolution(void)
{
    hs_scenario_t *s = NULL;
    hs_error_t e;
    const char *yaml =
        BASE_TYPES "ring: interleave\n"
                   "network:\n"
                   "  default_bandwidth: 1Gbps\n"
                   "  latency: 5us\n"
                   "  type_links: [[a, b, 2Gbps]]\n"
                   "  links:\n"
                   "    - [b-0, a-1, 3Gbps, 7us]\n";

    CU_ASSERT_EQUAL_FATAL(load(yaml, &s, &e), HS_OK);
    HS_ASSERT_I64_EQ(s->n_devices, 4);
    CU_ASSERT_STRING_EQUAL(s->devices[0].name, "a-0");
    CU_ASSERT_STRING_EQUAL(s->devices[3].name, "b-1");
    CU_ASSERT_STRING_EQUAL(s->devices[3].addr, "b-1");
    /* interleave: a-0, b-0, a-1, b-1 */
    HS_ASSERT_I64_EQ(s->ring[0], 0);
    HS_ASSERT_I64_EQ(s->ring[1], 2);
    HS_ASSERT_I64_EQ(s->ring[2], 1);
    HS_ASSERT_I64_EQ(s->ring[3], 3);
    HS_ASSERT_I64_EQ(s->devices[2].ring_pos, 1);
    HS_ASSERT_I64_EQ(hs_scenario_next(s, 3), 0);
    HS_ASSERT_I64_EQ(hs_scenario_prev(s, 0), 3);
    /* every edge is a<->b: type link 2 Gbps, except b-0 -> a-1 (row,
       matched in reverse too) at 3 Gbps with its own latency */
    HS_ASSERT_DBL_NEAR(s->ring_bw_bytes_per_s[0], 2.5e8, 1e-3);
    HS_ASSERT_DBL_NEAR(s->ring_bw_bytes_per_s[1], 3.75e8, 1e-3);
    HS_ASSERT_I64_EQ(s->ring_lat_ns[1], 7000);
    HS_ASSERT_DBL_NEAR(s->ring_bw_bytes_per_s[2], 2.5e8, 1e-3);
    HS_ASSERT_I64_EQ(s->ring_lat_ns[2], 5000);
    HS_ASSERT_I64_EQ(s->epochs, 1);
    HS_ASSERT_I64_EQ(s->sim_steps, 10);
    hs_scenario_free(s);
}

static void test_default_loads(void)
{
    hs_scenario_t *s = NULL;
    hs_error_t e;

    CU_ASSERT_EQUAL_FATAL(hs_scenario_load_default(&s, &e), HS_OK);
    HS_ASSERT_I64_EQ(s->n_devices, 200);
    HS_ASSERT_I64_EQ(s->n_types, 2);
    CU_ASSERT_STRING_EQUAL(s->types[0].name, "MLU370");
    CU_ASSERT_STRING_EQUAL(s->types[1].name, "A100");
    HS_ASSERT_I64_EQ(s->types[1].profile.ar_bytes, 102228128);
    HS_ASSERT_I64_EQ(s->dataset_total, 200000000000000ULL);
    hs_scenario_free(s);
    hs_scenario_free(NULL); /* free accepts NULL */
}

/* simulate.streams when not given: 2 when every type runs gloo (its
   ProcessGroup's 2 worker threads), else 1 */
static void test_streams_default(void)
{
    static const char *const cases[][3] = {
        /* backend of a, of b, simulate line */
        {"", "", ""},
        {"    backend: gloo\n", "    backend: gloo\n", ""},
        {"    backend: gloo\n", "    backend: nccl\n", ""},
        {"    backend: gloo\n", "    backend: gloo\n",
         "simulate: {streams: 1}\n"},
        {"", "", "simulate: {streams: 3}\n"}};
    static const unsigned want[] = {1, 2, 1, 1, 3};
    size_t i;

    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        char text[1024];
        hs_scenario_t *s = NULL;
        hs_error_t e;

        snprintf(text, sizeof text,
                 "device_types:\n"
                 "  - name: a\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "%s"
                 "    profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}\n"
                 "  - name: b\n"
                 "    count: 2\n"
                 "    batch: 8\n"
                 "%s"
                 "    profile: {t_fwd: 20ms, t_b1: 2ms, allreduce_bytes: 4MB}\n"
                 "network: {default_bandwidth: 1Gbps}\n"
                 "%s",
                 cases[i][0], cases[i][1], cases[i][2]);
        HS_ASSERT_I64_EQ(load(text, &s, &e), HS_OK);
        if (s != NULL)
            HS_ASSERT_I64_EQ(s->streams, want[i]);
        hs_scenario_free(s);
    }
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("scenario", NULL, NULL);

    CU_add_test(s, "syntax errors and empty files", test_syntax);
    CU_add_test(s, "unknown and duplicate keys", test_unknown_and_duplicate_keys);
    CU_add_test(s, "wrong types and bad units", test_types_and_units);
    CU_add_test(s, "missing profile, duplicate names",
                test_missing_profile_and_duplicates);
    CU_add_test(s, "network errors", test_network_errors);
    CU_add_test(s, "ring errors", test_ring_errors);
    CU_add_test(s, "included profile and CSV files", test_included_files);
    CU_add_test(s, "devices, ring and links resolved", test_resolution);
    CU_add_test(s, "the embedded default loads", test_default_loads);
    CU_add_test(s, "streams default from the backends", test_streams_default);
    CU_add_test(s, "gradient_bytes and a profile without t_b1",
                test_gradient_bytes_and_t_b1);
    CU_add_test(s, "micro_batches: gradient accumulation by hand",
                test_micro_batches);
    return 0;
}

HS_TEST_MAIN(reg)
