/*
 * test_chrome.c -- the Chrome/Perfetto JSON trace: it parses (yajl_tree),
 * has one "X" slice per interval with ts/dur the interval's nanoseconds in
 * microseconds, exactly, its pid/tid/name/args; every process and every
 * thread used is named by a metadata event; no thread holds partially
 * overlapping slices; a failed run leaves no file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <sys/stat.h>

#include <yajl/yajl_tree.h>

#include "hs_chrome.h"
#include "hs_h5.h"
#include "hs_synth.h"
#include "hs_test.h"

static const hs_synth_type_t hs__types[2] = {
    {"A100", 30000123, 40000001, 1500000, 60000000, 700007},
    {"MLU370", 20000000, 55000999, 2500000, 80000000, 900000}};

static const char *hs__phase[] = {"data_load", "forward", "backward_first",
                                  "backward_rest", "optimizer", "ring_send",
                                  "ring_wait", "data_wait", "ring_reduce",
                                  "hop_wait"};

static yajl_val hs__get(yajl_val obj, const char *key)
{
    const char *p[2] = {key, NULL};
    return yajl_tree_get(obj, p, yajl_t_any);
}

static long long hs__int(yajl_val obj, const char *key, long long dflt)
{
    yajl_val v = hs__get(obj, key);
    return v && YAJL_IS_INTEGER(v) ? YAJL_GET_INTEGER(v) : dflt;
}

/* The thread the file comment of hs_chrome.c promises for iv. */
static long hs__want_tid(const hs_interval_t *iv)
{
    if (iv->phase == HS_PH_DATA_LOAD)
        return 1;
    if (iv->phase == HS_PH_RING_SEND)
        return iv->bucket >= 0 ? 10 + 2 * iv->bucket : 3;
    if (iv->phase == HS_PH_RING_WAIT)
        return iv->bucket >= 0 ? 11 + 2 * iv->bucket : 4;
    return 2;
}

static int hs__cmp_start(const void *a, const void *b)
{
    const long long *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    if (x[1] != y[1])
        return x[1] < y[1] ? -1 : 1;
    return (x[2] > y[2]) - (x[2] < y[2]);
}

static void test_slices(void)
{
    hs_scenario_t *s = hs_synth_scenario(5, hs__types, 2, "name: syn\n");
    hs_synth_run_t r;
    hs_chrome_writer_t *w;
    hs_trace_sink_t sink;
    hs_error_t err;
    char path[4096], ebuf[256];
    char *text;
    yajl_val root, evs;
    size_t i, n_x = 0, n_m = 0, bad = 0, at = 0, overlap = 0;
    int named_proc[5] = {0}, named_thr[5][5] = {{0}};
    long long (*spans)[3];

    hs_synth_run(s, hs__types, 4, &r);
    /* a bucket interval too: it gets its own thread */
    r.iv[3].bucket = 1;
    snprintf(path, sizeof path, "%s/run.json", hs_test_tmpdir("chrome"));
    CU_ASSERT_FATAL(hs_chrome_writer_open(path, s, &w, &sink, &err) ==
                    HS_OK);
    CU_ASSERT(sink.steps == NULL);
    while (at < r.n) {   /* blocks of 100 */
        size_t b = r.n - at < 100 ? r.n - at : 100;
        CU_ASSERT(sink.write(sink.ctx, r.iv + at, b, &err) == HS_OK);
        at += b;
    }
    CU_ASSERT_FATAL(hs_chrome_writer_close(w, 1, &err) == HS_OK);

    text = hs_test_slurp(path);
    CU_ASSERT_FATAL(text != NULL);
    root = yajl_tree_parse(text, ebuf, sizeof ebuf);
    if (root == NULL)
        fprintf(stderr, "parse error: %s\n", ebuf);
    CU_ASSERT_FATAL(root != NULL);
    evs = hs__get(root, "traceEvents");
    CU_ASSERT_FATAL(evs != NULL && YAJL_IS_ARRAY(evs));
    spans = calloc(r.n, sizeof *spans);
    for (i = 0; i < YAJL_GET_ARRAY(evs)->len; i++) {
        yajl_val e = YAJL_GET_ARRAY(evs)->values[i];
        const char *ph = YAJL_GET_STRING(hs__get(e, "ph"));
        const char *name = YAJL_GET_STRING(hs__get(e, "name"));
        long long pid = hs__int(e, "pid", -1), tid = hs__int(e, "tid", -1);
        if (ph != NULL && strcmp(ph, "M") == 0) {
            n_m++;
            if (pid >= 0 && pid < 5 && strcmp(name, "process_name") == 0)
                named_proc[pid] = 1;
            if (pid >= 0 && pid < 5 && strcmp(name, "thread_name") == 0 &&
                tid >= 1 && tid <= 4)
                named_thr[pid][tid] = 1;
            continue;
        }
        CU_ASSERT(ph != NULL && strcmp(ph, "X") == 0);
        if (n_x < r.n) {   /* slices come in the order given */
            const hs_interval_t *iv = &r.iv[n_x];
            yajl_val ts = hs__get(e, "ts"), dur = hs__get(e, "dur");
            yajl_val args = hs__get(e, "args");
            char want[64];
            bad += pid != iv->device;
            bad += tid != hs__want_tid(iv);
            bad += strcmp(name, hs__phase[iv->phase]) != 0;
            /* microseconds, printed exactly from the nanoseconds */
            snprintf(want, sizeof want, "%lld.%03lld",
                     (long long)iv->start_ns / 1000,
                     (long long)iv->start_ns % 1000);
            bad += ts == NULL || !YAJL_IS_NUMBER(ts) ||
                   strcmp(ts->u.number.r, want) != 0;
            bad += ts == NULL ||
                   YAJL_GET_DOUBLE(ts) != (double)iv->start_ns / 1000.0;
            bad += dur == NULL ||
                   YAJL_GET_DOUBLE(dur) !=
                       (double)(iv->end_ns - iv->start_ns) / 1000.0;
            bad += hs__int(args, "step", -1) != iv->step;
            bad += hs__int(args, "round", -1) != iv->round;
            bad += hs__int(args, "peer", -1) != iv->peer;
            bad += hs__int(args, "bytes", 0) != (long long)iv->bytes;
            spans[n_x][0] = pid * 1000 + tid;
            spans[n_x][1] = iv->start_ns;
            spans[n_x][2] = iv->end_ns;
        }
        n_x++;
    }
    HS_ASSERT_I64_EQ(n_x, r.n);
    HS_ASSERT_I64_EQ(bad, 0);
    HS_ASSERT_I64_EQ(n_m, 5 * 6);  /* name + sort index + 4 threads */
    for (i = 0; i < 5; i++) {
        CU_ASSERT(named_proc[i]);
        CU_ASSERT(named_thr[i][1] && named_thr[i][2] && named_thr[i][3] &&
                  named_thr[i][4]);
    }
    /* within a thread, slices are disjoint or nested, never partial */
    qsort(spans, r.n, sizeof *spans, hs__cmp_start);
    for (i = 1; i < r.n; i++)
        if (spans[i][0] == spans[i - 1][0] && spans[i][1] < spans[i - 1][2] &&
            spans[i][2] > spans[i - 1][2])
            overlap++;
    HS_ASSERT_I64_EQ(overlap, 0);
    free(spans);
    yajl_tree_free(root);
    free(text);
    hs_synth_run_free(&r);
    hs_synth_scenario_free(s);
}

static void test_abort(void)
{
    hs_scenario_t *s = hs_synth_scenario(2, hs__types, 2, "name: syn\n");
    hs_chrome_writer_t *w;
    hs_trace_sink_t sink;
    hs_error_t err;
    char path[4096], tmp[4200];
    struct stat sb;

    snprintf(path, sizeof path, "%s/abort.json", hs_test_tmpdir("chrome"));
    hs_test_write(path, "{}\n");
    CU_ASSERT_FATAL(hs_chrome_writer_open(path, s, &w, &sink, &err) ==
                    HS_OK);
    CU_ASSERT(hs_chrome_writer_close(w, 0, &err) == HS_OK);
    /* the earlier file is untouched, no temporary file is left */
    CU_ASSERT(stat(path, &sb) == 0 && sb.st_size == 3);
    snprintf(tmp, sizeof tmp, "%s.tmp.*", path);
    {
        glob_t g;
        CU_ASSERT(glob(tmp, 0, NULL, &g) == GLOB_NOMATCH);
        globfree(&g);
    }
    CU_ASSERT(hs_chrome_writer_close(NULL, 1, &err) == HS_OK);
    CU_ASSERT(hs_chrome_writer_open("/nonexistent-dir/x.json", s, &w, &sink,
                                    &err) == HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, "/nonexistent-dir/x.json");
    hs_synth_scenario_free(s);
}

/* End to end: `hetsim simulate --h5 --chrome` writes one slice per
   interval of the HDF5 trace, phase by phase. */
typedef struct hs__ph_s {
    size_t n[HS_PH_COUNT];
} hs__ph_t;

static int hs__count_ph(void *ctx, const hs_interval_t *iv, size_t n)
{
    hs__ph_t *c = ctx;
    size_t i;

    for (i = 0; i < n; i++)
        if (iv[i].phase < HS_PH_COUNT)
            c->n[iv[i].phase]++;
    return 0;
}

/* The slices of scn's Chrome trace against its HDF5 trace, phase by
   phase; the counts in *want. */
static void hs__chrome_vs_h5(const char *scn, const char *tag,
                             hs__ph_t *want)
{
    char h5[4200], js[4200], ebuf[256];
    hs_run_t out;
    hs__ph_t got = {{0}};
    hs_error_t err;
    yajl_val root, evs;
    char *text;
    size_t i, k;

    memset(want, 0, sizeof *want);
    snprintf(h5, sizeof h5, "%s/%s.h5", hs_test_tmpdir("chrome"), tag);
    snprintf(js, sizeof js, "%s/%s.json", hs_test_tmpdir("chrome"), tag);
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "simulate", scn, "--h5", h5,
                                  "--chrome", js, NULL) == 0);
    if (out.status != 0)
        fprintf(stderr, "%s%s", out.out, out.err);
    HS_ASSERT_I64_EQ(out.status, 0);
    hs_run_free(&out);
    CU_ASSERT_FATAL(hs_h5_events_each(h5, hs__count_ph, want, &err) ==
                    HS_OK);
    text = hs_test_slurp(js);
    CU_ASSERT_FATAL(text != NULL);
    root = yajl_tree_parse(text, ebuf, sizeof ebuf);
    CU_ASSERT_FATAL(root != NULL);
    evs = hs__get(root, "traceEvents");
    CU_ASSERT_FATAL(evs != NULL && YAJL_IS_ARRAY(evs));
    for (i = 0; i < YAJL_GET_ARRAY(evs)->len; i++) {
        yajl_val e = YAJL_GET_ARRAY(evs)->values[i];
        const char *ph = YAJL_GET_STRING(hs__get(e, "ph"));
        const char *name = YAJL_GET_STRING(hs__get(e, "name"));
        if (ph == NULL || strcmp(ph, "X") != 0 || name == NULL)
            continue;
        for (k = 0; k < HS_PH_COUNT; k++)
            if (strcmp(name, hs__phase[k]) == 0)
                got.n[k]++;
    }
    for (k = 0; k < HS_PH_COUNT; k++)
        HS_ASSERT_I64_EQ(got.n[k], want->n[k]);
    CU_ASSERT(want->n[HS_PH_RING_SEND] > 0);
    yajl_tree_free(root);
    free(text);
}

static void test_simulate_chrome(void)
{
    char scn[4096];
    hs__ph_t want;
    /* 4 CPU devices with a hop wait (grown to the ring: 4 ms x 3 < 25 ms),
       a backward long enough for chunks to reach it, two buckets */
    static const char hop_yaml[] =
        "name: hop\n"
        "job: {model: x, dataset: {samples: 1000}, epochs: 1}\n"
        "device_types:\n"
        "  - name: c\n"
        "    count: 4\n"
        "    batch: 10\n"
        "    backend: gloo\n"
        "    profile: {t_fwd: 20ms, t_b1: 1ms, t_bwd: 200ms,\n"
        "              allreduce_bytes: 3MB, t_hop_wait: 4ms,\n"
        "              cpu_quota_cores: 0.2, t_cpu_period: 10ms,\n"
        "              buckets: [{bytes: 1MB, ready: 50ms},\n"
        "                        {bytes: 1MB, ready: 200ms}]}\n"
        "network: {default_bandwidth: 1Gbps, latency: 50us}\n"
        "simulate: {steps: 4, overlap: buckets}\n";

    snprintf(scn, sizeof scn, "%s/scenarios/example-full.yaml", HS_TEST_SRC);
    hs__chrome_vs_h5(scn, "ex", &want);
    HS_ASSERT_I64_EQ(want.n[HS_PH_HOP_WAIT], 0);
    hs__chrome_vs_h5(hs_test_write_file("hop.yaml", hop_yaml), "hop", &want);
    CU_ASSERT(want.n[HS_PH_HOP_WAIT] > 0);
}

static int hs__register(void)
{
    CU_pSuite su = CU_add_suite("chrome", NULL, NULL);

    if (su == NULL)
        return -1;
    CU_add_test(su, "slices", test_slices);
    CU_add_test(su, "abort", test_abort);
    CU_add_test(su, "simulate_chrome", test_simulate_chrome);
    return 0;
}

HS_TEST_MAIN(hs__register)
