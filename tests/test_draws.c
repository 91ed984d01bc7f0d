/*
 * test_draws.c -- the replay's stochastic draws checked against their
 * definitions (issue 15), read as data from the replay's own intervals (a
 * trace sink): a device with compute_scale 1 and no extra compute runs its
 * forward for exactly the drawn t_fwd, so the FORWARD intervals are the
 * draws.
 *
 *   (a) from samples: one of the listed values, uniformly (a value listed
 *       twice twice as often): only listed values appear, each value's
 *       count within 5 binomial standard deviations of n p;
 *   (b) the normal(mean, sd) truncated to [0, mean + 16 sd]: no value
 *       outside, the sample mean and sd within 5 standard errors of the
 *       truncated normal's (from GSL's Phi and phi), and the
 *       Kolmogorov-Smirnov distance to its CDF below the 0.1% critical
 *       value 1.949 / sqrt(n);
 *   (c) a straggler's factor multiplies exactly the forward, both backward
 *       phases and the optimizer of exactly its device in exactly its
 *       steps (and its extra is added to the forward), the data loading
 *       and every other (device, step) untouched;
 *   (d) the same seed gives the same draws, another seed other ones.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "hs_limits.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_test.h"
#include "hs_trace.h"

/* What a run left per (device, step, compute phase): the phase's time. */
typedef struct hs__phases_s {
    size_t n_dev, steps;
    int64_t *ns;        /* [(dev * steps + step) * 5 + phase], -1: none */
} hs__phases_t;

static int64_t *hs__at(hs__phases_t *p, size_t dev, size_t step, int ph)
{
    return &p->ns[(dev * p->steps + step) * 5 + (size_t)ph];
}

static hs_err_t hs__sink_write(void *ctx, const hs_interval_t *iv, size_t n,
                               hs_error_t *err)
{
    hs__phases_t *p = ctx;
    size_t i;

    (void)err;
    for (i = 0; i < n; i++) {
        int64_t *slot;
        if (iv[i].phase > HS_PH_OPTIMIZER || iv[i].step >= p->steps ||
            iv[i].device >= p->n_dev)
            continue;
        slot = hs__at(p, iv[i].device, iv[i].step, iv[i].phase);
        *slot = (*slot < 0 ? 0 : *slot) + (iv[i].end_ns - iv[i].start_ns);
    }
    return HS_OK;
}

/* Replays yaml with the given seed and stochastic flag, traced; fills
   *ph (free ph->ns).  Returns 0 when it ran. */
static int hs__run(const char *yaml, int stochastic, uint64_t seed,
                   hs__phases_t *ph, hs_replay_result_t **res_out)
{
    hs_scenario_t *s = NULL;
    hs_replay_opts_t o;
    hs_replay_result_t *r = NULL;
    hs_trace_sink_t sink;
    hs_error_t err;
    size_t i, n;

    memset(ph, 0, sizeof *ph);
    if (hs_scenario_load_text(yaml, strlen(yaml), "draws.yaml", NULL, &s,
                              &err) != HS_OK) {
        fprintf(stderr, "\nload: %s\n", err.msg);
        return -1;
    }
    hs_replay_opts_from_scenario(s, &o);
    o.stochastic = stochastic;
    o.seed = seed;
    ph->n_dev = s->n_devices;
    ph->steps = o.steps;
    n = ph->n_dev * ph->steps * 5;
    ph->ns = malloc(n * sizeof *ph->ns);
    if (ph->ns == NULL) {
        hs_scenario_free(s);
        return -1;
    }
    for (i = 0; i < n; i++)
        ph->ns[i] = -1;
    memset(&sink, 0, sizeof sink);
    sink.ctx = ph;
    sink.write = hs__sink_write;
    if (hs_replay_run(s, &o, &sink, 1, &r, &err) != HS_OK) {
        fprintf(stderr, "\nreplay: %s\n", err.msg);
        hs_scenario_free(s);
        free(ph->ns);
        ph->ns = NULL;
        return -1;
    }
    if (res_out != NULL)
        *res_out = r;
    else
        hs_replay_result_free(r);
    hs_scenario_free(s);
    return 0;
}

/* Every forward draw of the run, in (device, step) order. */
static size_t hs__forwards(hs__phases_t *ph, int64_t *out)
{
    size_t d, k, n = 0;

    for (d = 0; d < ph->n_dev; d++)
        for (k = 0; k < ph->steps; k++)
            out[n++] = *hs__at(ph, d, k, HS_PH_FORWARD);
    return n;
}

#define HS__STEPS 100000

/* (a) draws from samples: 1 ms, 2 ms (listed twice), 5 ms. */
static const char hs__samples_yaml[] =
    "device_types:\n"
    "  - name: g\n"
    "    count: 2\n"
    "    batch: 32\n"
    "    profile:\n"
    "      t_fwd: {mean: 2.5ms, samples: [1ms, 2ms, 5ms, 2ms]}\n"
    "      t_b1: 0.1ms\n"
    "      allreduce_bytes: 1KB\n"
    "network: {default_bandwidth: 100Gbps, latency: 1us}\n"
    "simulate: {steps: 100000}\n";

static void test_samples(void)
{
    static const int64_t vals[3] = {1000000, 2000000, 5000000};
    static const double p[3] = {0.25, 0.5, 0.25};
    hs__phases_t ph;
    int64_t *x;
    size_t n, i, cnt[3] = {0, 0, 0}, other = 0;
    int v;

    CU_ASSERT_EQUAL_FATAL(hs__run(hs__samples_yaml, 1, 7, &ph, NULL), 0);
    x = malloc(ph.n_dev * ph.steps * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    n = hs__forwards(&ph, x);
    CU_ASSERT_EQUAL(n, 2 * HS__STEPS);
    for (i = 0; i < n; i++) {
        for (v = 0; v < 3 && x[i] != vals[v]; v++)
            ;
        if (v < 3)
            cnt[v]++;
        else
            other++;
    }
    CU_ASSERT_EQUAL(other, 0);
    for (v = 0; v < 3; v++) {
        double mu = (double)n * p[v];
        double sig = sqrt((double)n * p[v] * (1 - p[v]));
        if (!(fabs((double)cnt[v] - mu) <= 5 * sig))
            fprintf(stderr, "\nvalue %lld: %zu of %zu, expected %.0f +- "
                    "%.0f\n", (long long)vals[v], cnt[v], n, mu, 5 * sig);
        CU_ASSERT(fabs((double)cnt[v] - mu) <= 5 * sig);
    }
    /* without --stochastic the mean, always */
    free(ph.ns);
    CU_ASSERT_EQUAL_FATAL(hs__run(hs__samples_yaml, 0, 7, &ph, NULL), 0);
    n = hs__forwards(&ph, x);
    for (i = 0; i < n; i++)
        if (x[i] != 2500000)
            break;
    CU_ASSERT_EQUAL(i, n);
    free(ph.ns);
    free(x);
}

/* (b) normal(10 ms, 5 ms) truncated at 0 (2 sd below the mean: 2.3% of
   the mass is cut) and at mean + 16 sd. */
static const char hs__normal_yaml[] =
    "device_types:\n"
    "  - name: g\n"
    "    count: 2\n"
    "    batch: 32\n"
    "    profile:\n"
    "      t_fwd: {mean: 10ms, sd: 5ms}\n"
    "      t_b1: 0.1ms\n"
    "      allreduce_bytes: 1KB\n"
    "network: {default_bandwidth: 100Gbps, latency: 1us}\n"
    "simulate: {steps: 100000}\n";

static int hs__cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_truncated_normal(void)
{
    const double mu = 10e6, sd = 5e6;
    const double a = (0 - mu) / sd, b = HS_DRAW_SD_MAX;
    const double Z = gsl_cdf_ugaussian_P(b) - gsl_cdf_ugaussian_P(a);
    const double pa = gsl_ran_ugaussian_pdf(a), pb = gsl_ran_ugaussian_pdf(b);
    /* the truncated normal's mean and variance */
    const double t_mean = mu + sd * (pa - pb) / Z;
    const double t_var = sd * sd *
        (1 + (a * pa - b * pb) / Z - ((pa - pb) / Z) * ((pa - pb) / Z));
    hs__phases_t ph;
    int64_t *x;
    size_t n, i, outside = 0;
    double sum = 0, m, s2 = 0, m4 = 0, s, se_mean, se_sd, dks = 0;

    CU_ASSERT_EQUAL_FATAL(hs__run(hs__normal_yaml, 1, 11, &ph, NULL), 0);
    x = malloc(ph.n_dev * ph.steps * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    n = hs__forwards(&ph, x);
    CU_ASSERT_EQUAL_FATAL(n, 2 * HS__STEPS);
    for (i = 0; i < n; i++) {
        if (x[i] < 0 || x[i] > (int64_t)(mu + HS_DRAW_SD_MAX * sd))
            outside++;
        sum += (double)x[i];
    }
    CU_ASSERT_EQUAL(outside, 0);
    m = sum / (double)n;
    for (i = 0; i < n; i++) {
        double d = (double)x[i] - m;
        s2 += d * d;
        m4 += d * d * d * d;
    }
    s2 /= (double)(n - 1);
    m4 /= (double)n;
    s = sqrt(s2);
    se_mean = sqrt(t_var / (double)n);
    /* the sd's standard error by the delta method, with the sample's
       fourth moment: sqrt((m4 - s^4) / (4 n s^2)) */
    se_sd = sqrt((m4 - s2 * s2) / (4.0 * (double)n * s2));
    fprintf(stderr, "\ntruncated normal: mean %.0f (expected %.0f, se %.0f), "
            "sd %.0f (expected %.0f, se %.0f)",
            m, t_mean, se_mean, s, sqrt(t_var), se_sd);
    CU_ASSERT(fabs(m - t_mean) <= 5 * se_mean);
    CU_ASSERT(fabs(s - sqrt(t_var)) <= 5 * se_sd);
    /* the untruncated normal's figures are far outside those bounds: the
       check tells truncation from none */
    CU_ASSERT(fabs(mu - t_mean) > 5 * se_mean);
    /* Kolmogorov-Smirnov against F(x) = (Phi((x-mu)/sd) - Phi(a)) / Z */
    qsort(x, n, sizeof *x, hs__cmp);
    for (i = 0; i < n; i++) {
        double F = (gsl_cdf_ugaussian_P(((double)x[i] - mu) / sd) -
                    gsl_cdf_ugaussian_P(a)) / Z;
        double lo = F - (double)i / (double)n;
        double hi = (double)(i + 1) / (double)n - F;
        if (lo > dks)
            dks = lo;
        if (hi > dks)
            dks = hi;
    }
    fprintf(stderr, ", KS D = %.5f (0.1%% critical %.5f)\n", dks,
            1.949 / sqrt((double)n));
    CU_ASSERT(dks < 1.949 / sqrt((double)n));
    free(ph.ns);
    free(x);
}

/* (c) a straggler: device g-1 (index 1 of 3) in steps 3..5, factor 2.5 and
   1 ms extra; fixed times (not stochastic) so every phase is known. */
static const char hs__straggler_yaml[] =
    "device_types:\n"
    "  - name: g\n"
    "    count: 3\n"
    "    batch: 32\n"
    "    profile:\n"
    "      t_dl: 3ms\n"
    "      t_fwd: 10ms\n"
    "      t_b1: 1ms\n"
    "      t_bwd: 20ms\n"
    "      t_opt: 2ms\n"
    "      allreduce_bytes: 1KB\n"
    "network: {default_bandwidth: 100Gbps, latency: 1us}\n"
    "simulate:\n"
    "  steps: 10\n"
    "  stragglers:\n"
    "    - {device: g-1, steps: [3, 5], factor: 2.5, extra: 1ms}\n";

static void test_straggler(void)
{
    hs__phases_t ph;
    hs_replay_result_t *r = NULL;
    size_t d, k;
    int bad = 0;

    CU_ASSERT_EQUAL_FATAL(hs__run(hs__straggler_yaml, 0, 1, &ph, &r), 0);
    CU_ASSERT_EQUAL_FATAL(ph.n_dev, 3);
    for (d = 0; d < 3; d++)
        for (k = 0; k < ph.steps; k++) {
            int hit = d == 1 && k >= 3 && k <= 5;
            double c = hit ? 2.5 : 1.0;
            int64_t want[5];
            int p;
            want[HS_PH_DATA_LOAD] = 3000000;   /* never scaled */
            want[HS_PH_FORWARD] = llround(10e6 * c) + (hit ? 1000000 : 0);
            want[HS_PH_BACKWARD_FIRST] = llround(1e6 * c);
            want[HS_PH_BACKWARD_REST] = llround(20e6 * c) - llround(1e6 * c);
            want[HS_PH_OPTIMIZER] = llround(2e6 * c);
            for (p = 0; p < 5; p++) {
                int64_t got = *hs__at(&ph, d, k, p);
                /* step 0's batch is loaded before the run (step 0 has no
                   data_load interval of its own) */
                if (p == HS_PH_DATA_LOAD && k == 0)
                    continue;
                if (got != want[p]) {
                    if (bad++ < 10)
                        fprintf(stderr, "\ndevice %zu step %zu phase %d: "
                                "%lld, expected %lld", d, k, p,
                                (long long)got, (long long)want[p]);
                }
            }
        }
    CU_ASSERT_EQUAL(bad, 0);
    /* the straggler's device: its steady step is the longest (its steps
       3..5 take 2.5x the compute) and the scenario's device is index 1 */
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->n_devices, 3);
    CU_ASSERT(r->dev_step_ns[1] > 0);
    hs_replay_result_free(r);
    free(ph.ns);
}

/* (d) the same seed, the same draws; another seed, other draws (on every
   drawn phase: the data loading and the optimizer too). */
static const char hs__seed_yaml[] =
    "device_types:\n"
    "  - name: g\n"
    "    count: 3\n"
    "    batch: 32\n"
    "    profile:\n"
    "      t_dl: {mean: 3ms, sd: 1ms}\n"
    "      t_fwd: {mean: 10ms, sd: 2ms}\n"
    "      t_b1: {mean: 1ms, sd: 0.2ms}\n"
    "      t_bwd: {mean: 20ms, sd: 3ms}\n"
    "      t_opt: {mean: 2ms, samples: [1ms, 2ms, 3ms]}\n"
    "      allreduce_bytes: 1MB\n"
    "network: {default_bandwidth: 10Gbps, latency: 10us}\n"
    "simulate: {steps: 200}\n";

static void test_seeds(void)
{
    hs__phases_t a, b, c;
    hs_replay_result_t *ra = NULL, *rb = NULL, *rc = NULL;
    size_t n, i, differ = 0;

    CU_ASSERT_EQUAL_FATAL(hs__run(hs__seed_yaml, 1, 42, &a, &ra), 0);
    CU_ASSERT_EQUAL_FATAL(hs__run(hs__seed_yaml, 1, 42, &b, &rb), 0);
    CU_ASSERT_EQUAL_FATAL(hs__run(hs__seed_yaml, 1, 43, &c, &rc), 0);
    n = a.n_dev * a.steps * 5;
    CU_ASSERT_EQUAL(memcmp(a.ns, b.ns, n * sizeof *a.ns), 0);
    CU_ASSERT_EQUAL(ra->step_ns, rb->step_ns);
    CU_ASSERT_EQUAL(ra->n_events, rb->n_events);
    for (i = 0; i < n; i++)
        if (a.ns[i] != c.ns[i])
            differ++;
    /* nearly every drawn value differs (the t_opt samples: 2 in 3) */
    CU_ASSERT(differ > n / 2);
    CU_ASSERT(ra->step_ns != rc->step_ns);
    /* and the draws vary from step to step within one run */
    for (i = 1, differ = 0; i < a.steps; i++)
        if (*hs__at(&a, 0, i, HS_PH_FORWARD) !=
            *hs__at(&a, 0, i - 1, HS_PH_FORWARD))
            differ++;
    CU_ASSERT(differ > a.steps / 2);
    hs_replay_result_free(ra);
    hs_replay_result_free(rb);
    hs_replay_result_free(rc);
    free(a.ns);
    free(b.ns);
    free(c.ns);
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("stochastic draws", NULL, NULL);

    CU_add_test(s, "draws from samples match the samples", test_samples);
    CU_add_test(s, "the truncated normal: bounds, moments, KS",
                test_truncated_normal);
    CU_add_test(s, "a straggler scales exactly its device's compute "
                   "phases in its steps",
                test_straggler);
    CU_add_test(s, "a seed gives the same draws, another seed others",
                test_seeds);
    return 0;
}

HS_TEST_MAIN(reg)
