/*
 * test_ingest.c -- hetsim's trace ingestion (traces/hs_ingest.c, issue 4)
 * on real PyTorch profiler traces (tests/data/real, copied from
 * ../shared/traces/real with their MIT licence beside them), on the
 * legacy-form fixture made with Debian's torch 1.13
 * (tests/data/ingest/gen_legacy_trace.py), and on malformed input.
 *
 * The streaming, multi-pass ingestion is checked against a naive
 * reference written here: the whole trace loaded as a yajl_tree DOM, each
 * step's marks found by scanning every event, kernels looked up by their
 * correlation id in a table of runtime calls.  Other figures are derived
 * by hand from the trace data (the comments say how).  The last tests
 * take the layers one at a time: the JSON scanner (hs_jscan) and the
 * Kineto reader's per-rank record (hs_kineto, hs_rank).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>
#include <zlib.h>

#include "hs_ingest.h"
#include "hs_jscan.h"
#include "hs_kineto.h"
#include "hs_rank.h"
#include "hs_test.h"
#include "ingest_check.h"

#define REAL HS_TEST_SRC "/tests/data/real/"
#define DATA HS_TEST_SRC "/tests/data/ingest/"

/* ------------------------------------------------------------------ */
/* Helpers                                                               */

static hs_ingest_t *ingest(unsigned warmup, const char *sidecar,
                           const char *const *files, hs_err_t *rc,
                           hs_error_t *err)
{
    hs_ingest_opts_t o;
    hs_ingest_t *ing;
    size_t i;

    hs_ingest_opts_default(&o);
    o.warmup = warmup;
    o.sidecar = sidecar;
    ing = hs_ingest_new(&o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ing);
    *rc = HS_OK;
    for (i = 0; files[i] != NULL && *rc == HS_OK; i++)
        *rc = hs_ingest_add_file(ing, files[i], err);
    return ing;
}

static char *gunzip_all(const char *path, size_t *len)
{
    gzFile gz = gzopen(path, "rb");
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    int r;

    if (gz == NULL || buf == NULL)
        return NULL;
    while ((r = gzread(gz, buf + n, (unsigned)(cap - n - 1))) > 0) {
        n += (size_t)r;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    gzclose(gz);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* ------------------------------------------------------------------ */
/* The naive reference                                                    */

typedef struct ref_step_s {
    int64_t s, e, b0, b1, bend, dl_sum, dl_end, opt_sum;
    int n_dl, n_opt;
    int64_t k[4];       /* kernel time per phase: fwd, b1, rest of bwd, opt */
} ref_step_t;

static const char *ref_str(yajl_val ev, const char *key)
{
    const char *p[2] = {key, NULL};
    yajl_val v = yajl_tree_get(ev, p, yajl_t_string);
    return v != NULL ? YAJL_GET_STRING(v) : "";
}

static int ref_ns(yajl_val ev, const char *key, int64_t *out)
{
    const char *p[2] = {key, NULL};
    yajl_val v = yajl_tree_get(ev, p, yajl_t_number);
    if (v == NULL)
        return 0;
    *out = (int64_t)llround(strtod(YAJL_GET_NUMBER(v), NULL) * 1000.0);
    return 1;
}

static int ref_corr(yajl_val ev, long long *c)
{
    const char *p[3] = {"args", "correlation", NULL};
    yajl_val v = yajl_tree_get(ev, p, yajl_t_number);
    if (v == NULL || !YAJL_IS_INTEGER(v))
        return 0;
    *c = YAJL_GET_INTEGER(v);
    return 1;
}

static int ref_phase(const ref_step_t *s, int64_t t)
{
    int64_t f0 = s->n_dl ? s->dl_end : s->s;
    if (s->b0 == INT64_MAX)
        return -1;
    if (t >= f0 && t < s->b0)
        return 0;
    if (t >= s->b0 && t < s->b0 + s->b1)
        return 1;
    if (t >= s->b0 && t < s->bend)
        return 2;
    return -1;
}

/*
 * Loads `path` whole and computes every step's marks by brute force.
 * Returns the number of steps (at most max), or -1.
 */
static int reference(const char *path, ref_step_t *st, int max)
{
    size_t len, i, j, n;
    char *text = gunzip_all(path, &len);
    char ebuf[256];
    yajl_val root, evs;
    const char *te[2] = {"traceEvents", NULL};
    int ns = 0;
    long long *rc_corr = NULL;
    int *rc_phase = NULL, *rc_step = NULL;
    size_t nrc = 0;

    if (text == NULL)
        return -1;
    root = yajl_tree_parse(text, ebuf, sizeof ebuf);
    free(text);
    if (root == NULL)
        return -1;
    evs = YAJL_IS_ARRAY(root) ? root : yajl_tree_get(root, te, yajl_t_array);
    n = evs->u.array.len;
    /* steps (the main thread's user annotations, by time) */
    for (i = 0; i < n; i++) {
        yajl_val e = evs->u.array.values[i];
        int64_t ts, dur;
        if (strncmp(ref_str(e, "name"), "ProfilerStep#", 13) == 0 &&
            strcmp(ref_str(e, "cat"), "gpu_user_annotation") != 0 &&
            ns < max && ref_ns(e, "ts", &ts) && ref_ns(e, "dur", &dur)) {
            memset(&st[ns], 0, sizeof st[ns]);
            st[ns].s = ts;
            st[ns].e = ts + dur;
            st[ns].b0 = INT64_MAX;
            st[ns].bend = INT64_MIN;
            ns++;
        }
    }
    for (i = 0; i < (size_t)ns; i++)   /* insertion sort by start */
        for (j = i; j > 0 && st[j].s < st[j - 1].s; j--) {
            ref_step_t t = st[j];
            st[j] = st[j - 1];
            st[j - 1] = t;
        }
    /* CPU marks */
    for (i = 0; i < n; i++) {
        yajl_val e = evs->u.array.values[i];
        const char *nm = ref_str(e, "name");
        int64_t ts, dur = 0;
        int k;
        if (strcmp(ref_str(e, "ph"), "X") != 0 || !ref_ns(e, "ts", &ts))
            continue;
        ref_ns(e, "dur", &dur);
        for (k = 0; k < ns; k++)
            if (ts >= st[k].s && ts < st[k].e)
                break;
        if (k == ns || strcmp(ref_str(e, "cat"), "kernel") == 0)
            continue;
        if (strncmp(nm, "autograd::engine::evaluate_function: ", 37) == 0) {
            if (ts < st[k].b0) {
                st[k].b0 = ts;
                st[k].b1 = dur;
            }
            if (ts + dur > st[k].bend)
                st[k].bend = ts + dur;
        } else if (strncmp(nm, "enumerate(DataLoader)#", 22) == 0) {
            st[k].dl_sum += dur;
            st[k].dl_end = ts + dur;
            st[k].n_dl++;
        } else if (strncmp(nm, "Optimizer.step#", 15) == 0) {
            st[k].opt_sum += dur;
            st[k].n_opt++;
        }
    }
    /* runtime calls: correlation -> (step, phase) */
    rc_corr = calloc(n, sizeof *rc_corr);
    rc_phase = calloc(n, sizeof *rc_phase);
    rc_step = calloc(n, sizeof *rc_step);
    for (i = 0; i < n; i++) {
        yajl_val e = evs->u.array.values[i];
        int64_t ts;
        long long c;
        int k, ph = -1;
        if (strcmp(ref_str(e, "cat"), "cuda_runtime") != 0 ||
            !ref_ns(e, "ts", &ts) || !ref_corr(e, &c))
            continue;
        for (k = 0; k < ns; k++)
            if (ts >= st[k].s && ts < st[k].e)
                break;
        if (k == ns)
            continue;
        ph = ref_phase(&st[k], ts);
        if (ph < 0 && st[k].n_opt > 0) {
            /* inside an Optimizer.step# event? */
            size_t q;
            for (q = 0; q < n && ph < 0; q++) {
                yajl_val o = evs->u.array.values[q];
                int64_t os, od;
                if (strncmp(ref_str(o, "name"), "Optimizer.step#", 15) == 0 &&
                    strcmp(ref_str(o, "cat"), "gpu_user_annotation") != 0 &&
                    ref_ns(o, "ts", &os) && ref_ns(o, "dur", &od) &&
                    ts >= os && ts < os + od)
                    ph = 3;
            }
        }
        if (ph < 0)
            continue;
        rc_corr[nrc] = c;
        rc_phase[nrc] = ph;
        rc_step[nrc] = k;
        nrc++;
    }
    /* kernels, by exact correlation match (linear: fine for a test) */
    for (i = 0; i < n; i++) {
        yajl_val e = evs->u.array.values[i];
        int64_t dur;
        long long c;
        const char *nm = ref_str(e, "name");
        if (strcmp(ref_str(e, "cat"), "kernel") != 0 ||
            !ref_ns(e, "dur", &dur) || !ref_corr(e, &c) ||
            strncmp(nm, "nccl", 4) == 0)
            continue;
        for (j = 0; j < nrc; j++)
            if (rc_corr[j] == c) {
                st[rc_step[j]].k[rc_phase[j]] += dur;
                break;
            }
    }
    free(rc_corr);
    free(rc_phase);
    free(rc_step);
    yajl_tree_free(root);
    return ns;
}

/* ------------------------------------------------------------------ */
/* Real traces                                                           */

static void test_resnet_param_comms_gpu(void)
{
    const char *files[] = {REAL "nccl-2rank-resnet.json.gz", NULL};
    hs_error_t err;
    hs_err_t rc;
    hs_ingest_t *ing = ingest(0, NULL, files, &rc, &err);
    const hs_ingest_file_t *f;
    hs_profile_t p;
    ref_step_t ref[8];
    int nref, i;

    HS_ASSERT_I64_EQ(rc, HS_OK);
    f = hs_ingest_file(ing, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(f->form, HS_INGEST_KINETO);
    HS_ASSERT_I64_EQ(f->rank, 0);           /* distributedInfo */
    HS_ASSERT_I64_EQ(f->world_size, 2);
    CU_ASSERT_STRING_EQUAL(f->backend, "nccl");
    CU_ASSERT_TRUE(f->gpu);
    HS_ASSERT_I64_EQ(f->passes, 1)   /* read once */;
    HS_ASSERT_I64_EQ(f->n_steps, 3);        /* ProfilerStep#4..#6 */
    CU_ASSERT_EQUAL(f->ar_source, HS_AR_PARAM_COMMS);
    nref = reference(files[0], ref, 8);
    HS_ASSERT_I64_EQ(nref, 3);
    for (i = 0; i < 3 && i < nref; i++) {
        const hs_ingest_step_t *s = &f->steps[i];
        HS_ASSERT_I64_EQ(s->number, 4 + i);
        /* 5 allreduce record_param_comms per step: 2049000 + 7875584 +
           6563840 + 6637568 + 2431040 floats = 25557032 x 4 bytes */
        HS_ASSERT_I64_EQ(s->ar_payload_bytes, 102228128);
        HS_ASSERT_I64_EQ(s->n_allreduce, 5);
        HS_ASSERT_I64_EQ(s->t_dl_ns, HS_INGEST_UNKNOWN);
        HS_ASSERT_DBL_NEAR(s->dur_ns, ref[i].e - ref[i].s, 2);
        /* compute = device kernel time, as the naive reference finds */
        HS_ASSERT_DBL_NEAR(s->t_fwd_ns, ref[i].k[0], 1000);
        HS_ASSERT_DBL_NEAR(s->t_b1_ns, ref[i].k[1], 10);
        HS_ASSERT_DBL_NEAR(s->t_bwd_ns, ref[i].k[1] + ref[i].k[2], 1000);
        HS_ASSERT_DBL_NEAR(s->t_opt_ns, ref[i].k[3], 100);
        /* and not the CPU time of the first backward op */
        CU_ASSERT_TRUE(s->t_b1_ns < ref[i].b1);
        CU_ASSERT_TRUE(s->t_bwd_ns > 0 && s->t_fwd_ns > 0);
        CU_ASSERT_TRUE(s->n_kernels > 100);
    }
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc == HS_OK) {
        HS_ASSERT_I64_EQ(p.subsys_n, 2);
        HS_ASSERT_I64_EQ(p.ar_bytes, 102228128);   /* n = 2: D = M */
        HS_ASSERT_DBL_NEAR(hs_profile_payload_bytes(&p), 102228128.0, 0.5);
        CU_ASSERT_EQUAL(p.ar_source, HS_AR_PARAM_COMMS);
        CU_ASSERT_FALSE(p.t_dl.known);
        CU_ASSERT_TRUE(p.t_fwd.known && p.t_b1.known && p.t_bwd.known);
        HS_ASSERT_I64_EQ(p.t_fwd.n_samples, 3);
        HS_ASSERT_DBL_NEAR(p.t_fwd.mean_ns,
                           (ref[0].k[0] + ref[1].k[0] + ref[2].k[0]) / 3.0,
                           1000);
        HS_ASSERT_I64_EQ(p.n_buckets, 5);
        if (p.n_buckets == 5) {
            uint64_t sum = 0;
            size_t b;
            HS_ASSERT_I64_EQ(p.buckets[0].bytes, 2049000ull * 4);
            for (b = 0; b < 5; b++) {
                sum += p.buckets[b].bytes;
                /* device-time ready times lie within the backward */
                CU_ASSERT_TRUE(p.buckets[b].ready_ns <=
                               p.t_bwd.mean_ns + 1000);
                if (b > 0)
                    CU_ASSERT_TRUE(p.buckets[b].ready_ns >=
                                   p.buckets[b - 1].ready_ns);
            }
            HS_ASSERT_I64_EQ(sum, 102228128);
        }
        HS_ASSERT_STR_CONTAINS(p.source, "param_comms");
        hs_profile_clear(&p);
    }
    hs_ingest_free(ing);
}

static void test_dataloader_shapes(void)
{
    const char *files[] = {REAL "nccl-2rank-dataloader.json.gz", NULL};
    hs_error_t err;
    hs_err_t rc;
    hs_ingest_t *ing = ingest(2, NULL, files, &rc, &err);
    const hs_ingest_file_t *f;
    hs_profile_t p;
    size_t i;

    HS_ASSERT_I64_EQ(rc, HS_OK);
    f = hs_ingest_file(ing, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    HS_ASSERT_I64_EQ(f->rank, 1);
    HS_ASSERT_I64_EQ(f->n_steps, 6);        /* ProfilerStep#1009..#1014 */
    CU_ASSERT_TRUE(f->gpu);
    /* record_param_comms here carry no "Collective name": the sizes come
       from nccl:all_reduce's Input Dims ([[45310188]], [[267040]],
       [[4432073]], "float"; c10d::allreduce_ has an empty TensorList) */
    CU_ASSERT_EQUAL(f->ar_source, HS_AR_SHAPES);
    for (i = 0; i < f->n_steps; i++) {
        const hs_ingest_step_t *s = &f->steps[i];
        HS_ASSERT_I64_EQ(s->number, 1009 + (long)i);
        HS_ASSERT_I64_EQ(s->kept, i >= 2);
        HS_ASSERT_I64_EQ(s->ar_payload_bytes,
                         (45310188ull + 267040ull + 4432073ull) * 4);
        HS_ASSERT_I64_EQ(s->n_allreduce, 3);
        /* one enumerate(DataLoader)#_MultiProcessingDataLoaderIter
           .__next__ per step, 81..118 us */
        CU_ASSERT_TRUE(s->t_dl_ns >= 81000 && s->t_dl_ns <= 118000);
    }
    HS_ASSERT_I64_EQ(f->steps[0].t_dl_ns, 102000);  /* dur 102 us */
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc == HS_OK) {
        CU_ASSERT_TRUE(p.t_dl.known);
        HS_ASSERT_I64_EQ(p.t_dl.n_samples, 4);
        /* steps 1011..1014: 85, 118, 103, 81 us */
        HS_ASSERT_I64_EQ(p.t_dl.mean_ns, 96750);
        HS_ASSERT_I64_EQ(p.steps_kept, 4);
        CU_ASSERT_EQUAL(p.ar_source, HS_AR_SHAPES);
        HS_ASSERT_I64_EQ(p.ar_bytes, 200037204);
        hs_profile_clear(&p);
    }
    hs_ingest_free(ing);
}

static void test_gloo_cpu_no_backward(void)
{
    const char *files[] = {REAL "gloo-cpu-rank34.json.gz", NULL};
    hs_error_t err;
    hs_err_t rc;
    hs_ingest_t *ing = ingest(0, NULL, files, &rc, &err);
    const hs_ingest_file_t *f;
    hs_profile_t p;

    HS_ASSERT_I64_EQ(rc, HS_OK);
    f = hs_ingest_file(ing, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    HS_ASSERT_I64_EQ(f->rank, 34);
    HS_ASSERT_I64_EQ(f->world_size, 300);
    CU_ASSERT_FALSE(f->gpu);
    HS_ASSERT_I64_EQ(f->passes, 1);
    HS_ASSERT_I64_EQ(f->n_steps, 1);
    HS_ASSERT_I64_EQ(f->steps[0].number, 551);
    HS_ASSERT_I64_EQ(f->steps[0].dur_ns, 210109162);   /* 210109.162 us */
    /* two gloo:all_reduce calls start inside the window (threads 3553 and
       3554): [[321271]] and [[2082411]] floats */
    CU_ASSERT_EQUAL(f->ar_source, HS_AR_SHAPES);
    HS_ASSERT_I64_EQ(f->steps[0].ar_payload_bytes,
                     (321271ull + 2082411ull) * 4);
    HS_ASSERT_I64_EQ(f->steps[0].t_dl_ns, HS_INGEST_UNKNOWN);
    HS_ASSERT_I64_EQ(f->steps[0].t_fwd_ns, HS_INGEST_UNKNOWN);
    /* no backward operator at all: no profile, and a clear reason */
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_ERR_TRACE);
    HS_ASSERT_STR_CONTAINS(err.msg, "gloo-cpu-rank34.json.gz");
    HS_ASSERT_STR_CONTAINS(err.msg, "backward");
    HS_ASSERT_I64_EQ(p.subsys_n, 0);
    hs_ingest_free(ing);
}

static void test_rocm_kernels(void)
{
    const char *files[] = {REAL "rocm-mi250-train.json.gz", NULL};
    hs_error_t err;
    hs_err_t rc;
    hs_ingest_t *ing = ingest(0, NULL, files, &rc, &err);
    const hs_ingest_file_t *f;
    const hs_ingest_step_t *s;
    hs_profile_t p;
    const char *side;
    hs_ingest_t *ing2;

    HS_ASSERT_I64_EQ(rc, HS_OK);
    f = hs_ingest_file(ing, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_TRUE(f->gpu);
    HS_ASSERT_I64_EQ(f->world_size, -1);
    HS_ASSERT_I64_EQ(f->n_steps, 2);
    s = &f->steps[0];
    /* By hand from the trace (kernel "dur" of each correlation id, the
       runtime call's CPU time deciding the phase):
       forward: corr 118 6.88 + 121 17.6 + 122 6.72 + 124 8.32 + 125 11.04
                + 126 3.36 = 53.92 us (memcpys 117, 123 are not kernels);
       first backward op MseLossBackward0: corr 127 2.24 + 128 5.28;
       rest: 129 5.6 + 132 12.64 + 133 13.6 + 134 4.96 + 135 4.16;
       Optimizer.step#SGD.step: corr 136 8.481 us. */
    HS_ASSERT_I64_EQ(s->t_fwd_ns, 53920);
    HS_ASSERT_I64_EQ(s->t_b1_ns, 7520);
    HS_ASSERT_I64_EQ(s->t_bwd_ns, 7520 + 40960);
    HS_ASSERT_I64_EQ(s->t_opt_ns, 8481);
    HS_ASSERT_I64_EQ(s->n_kernels, 14 - 0);   /* all 14 kernels */
    /* ProfilerStep#2 is the profiler's 49 us stub: no backward, cut */
    HS_ASSERT_I64_EQ(f->steps[1].complete, 0);
    HS_ASSERT_I64_EQ(f->steps[1].kept, 0);
    /* no distributedInfo: n unknown, and no payload source */
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_ERR_TRACE);
    HS_ASSERT_STR_CONTAINS(err.msg, "sub-system size");
    hs_ingest_free(ing);
    /* with a sidecar as live/harness/hetsim_harness.py writes it (more
       keys than hetsim reads): n, M and the bucket times from it */
    side = hs_test_write_file(
        "rocm.sidecar.json",
        "{\"hetsim_sidecar\": 1, \"rank\": 0, \"world_size\": 2, "
        "\"device_type\": \"cuda\", \"torch\": \"2.5\", "
        "\"grad_bytes\": 66048, \"bucket_bytes\": [66048], "
        "\"buckets\": [{\"index\": 0, \"bytes\": 66048, "
        "\"ready_ns\": 41000}], \"steps\": [{\"fwd_ns\": 5, "
        "\"bucket_ready_ns\": [41000]}], \"dataset\": {\"n\": 3}}");
    ing2 = ingest(0, side, files, &rc, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    rc = hs_ingest_profile(ing2, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc == HS_OK) {
        CU_ASSERT_EQUAL(p.ar_source, HS_AR_SIDECAR);
        HS_ASSERT_I64_EQ(p.ar_bytes, 66048);
        HS_ASSERT_I64_EQ(p.t_b1.mean_ns, 7520);
        HS_ASSERT_I64_EQ(p.steps_kept, 1);
        /* the trace has no all-reduce call to time the bucket by: the
           harness's own ready time is used */
        HS_ASSERT_I64_EQ(p.n_buckets, 1);
        if (p.n_buckets == 1) {
            HS_ASSERT_I64_EQ(p.buckets[0].bytes, 66048);
            HS_ASSERT_I64_EQ(p.buckets[0].ready_ns, 41000);
        }
        hs_profile_clear(&p);
    }
    hs_ingest_free(ing2);
}

static void test_warmup_too_long(void)
{
    const char *files[] = {REAL "nccl-2rank-resnet.json.gz", NULL};
    hs_error_t err;
    hs_err_t rc;
    hs_ingest_t *ing = ingest(HS_INGEST_DEFAULT_WARMUP, NULL, files, &rc,
                              &err);
    hs_profile_t p;

    HS_ASSERT_I64_EQ(rc, HS_OK);
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_ERR_TRACE);
    HS_ASSERT_STR_CONTAINS(err.msg, "nccl-2rank-resnet.json.gz");
    HS_ASSERT_STR_CONTAINS(err.msg, "warm-up (20)");
    hs_ingest_free(ing);
}

/* ------------------------------------------------------------------ */
/* The legacy fixture (torch 1.13 without Kineto, DDP gloo, 2 ranks)     */

static void test_legacy_fixture(void)
{
    const char *files[] = {DATA "legacy-rank0.json.gz",
                           DATA "legacy-rank1.json.gz", NULL};
    hs_error_t err;
    hs_err_t rc;
    hs_ingest_t *ing = ingest(HS_INGEST_DEFAULT_WARMUP,
                              DATA "legacy.sidecar.json", files, &rc, &err);
    hs_profile_t p;
    size_t r, i;
    double rank_mean[2] = {0, 0};
    int64_t all[64];
    size_t nall = 0;

    HS_ASSERT_I64_EQ(rc, HS_OK);
    HS_ASSERT_I64_EQ(hs_ingest_n_files(ing), 2);
    for (r = 0; r < 2; r++) {
        const hs_ingest_file_t *f = hs_ingest_file(ing, r);
        ref_step_t ref[40];
        int nref = reference(files[r], ref, 40);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL(f->form, HS_INGEST_LEGACY);
        HS_ASSERT_I64_EQ(f->rank, (long)r);   /* file order: no args */
        CU_ASSERT_FALSE(f->gpu);
        /* the trace has no args: the payload can only be the sidecar's */
        CU_ASSERT_EQUAL(f->ar_source, HS_AR_SIDECAR);
        HS_ASSERT_I64_EQ(f->n_steps, 30);
        HS_ASSERT_I64_EQ(nref, 30);
        for (i = 0; i < f->n_steps && (int)i < nref; i++) {
            const hs_ingest_step_t *s = &f->steps[i];
            HS_ASSERT_I64_EQ(s->number, (long)i);
            HS_ASSERT_I64_EQ(s->kept, i >= 20);
            HS_ASSERT_I64_EQ(s->dur_ns, ref[i].e - ref[i].s);
            HS_ASSERT_I64_EQ(s->t_dl_ns, ref[i].dl_sum);
            HS_ASSERT_I64_EQ(s->t_fwd_ns, ref[i].b0 - ref[i].dl_end);
            HS_ASSERT_I64_EQ(s->t_b1_ns, ref[i].b1);
            HS_ASSERT_I64_EQ(s->t_bwd_ns, ref[i].bend - ref[i].b0);
            HS_ASSERT_I64_EQ(s->t_opt_ns, ref[i].opt_sum);
            CU_ASSERT_TRUE(s->t_dl_ns > 0);
            if (s->kept) {
                rank_mean[r] += (double)s->t_fwd_ns / 10.0;
                all[nall++] = s->t_fwd_ns;
            }
        }
    }
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc == HS_OK) {
        double m = (rank_mean[0] + rank_mean[1]) / 2, pm = 0, sq = 0;
        HS_ASSERT_I64_EQ(p.subsys_n, 2);          /* sidecar world_size */
        HS_ASSERT_I64_EQ(p.steps_kept, 10);       /* 30 - 20 per rank */
        CU_ASSERT_EQUAL(p.ar_source, HS_AR_SIDECAR);
        HS_ASSERT_I64_EQ(p.ar_bytes, 1138728);    /* sidecar grad_bytes */
        HS_ASSERT_I64_EQ(p.t_fwd.n_samples, 20);
        HS_ASSERT_DBL_NEAR(p.t_fwd.mean_ns, m, 1);
        for (i = 0; i < nall; i++)
            pm += (double)all[i] / (double)nall;
        for (i = 0; i < nall; i++)
            sq += ((double)all[i] - pm) * ((double)all[i] - pm);
        HS_ASSERT_DBL_NEAR(p.t_fwd.sd_ns, sqrt(sq / (double)(nall - 1)), 1);
        for (i = 0; i < nall && i < p.t_fwd.n_samples; i++)
            HS_ASSERT_I64_EQ(p.t_fwd.samples_ns[i], all[i]);
        CU_ASSERT_TRUE(p.t_dl.known);
        CU_ASSERT_TRUE(p.t_opt.known);
        /* two DDP buckets, sizes from the sidecar, timed by the two
           c10d::allreduce_ calls of every step */
        HS_ASSERT_I64_EQ(p.n_buckets, 2);
        if (p.n_buckets == 2) {
            HS_ASSERT_I64_EQ(p.buckets[0].bytes, 1071144);
            HS_ASSERT_I64_EQ(p.buckets[1].bytes, 67584);
            CU_ASSERT_TRUE(p.buckets[0].ready_ns > 0);
            CU_ASSERT_TRUE(p.buckets[1].ready_ns >= p.buckets[0].ready_ns);
        }
        hs_profile_clear(&p);
    }
    hs_ingest_free(ing);
    /* without the sidecar there is no payload at all */
    ing = ingest(HS_INGEST_DEFAULT_WARMUP, NULL, files, &rc, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_ERR_TRACE);
    HS_ASSERT_STR_CONTAINS(err.msg, "no all-reduce payload");
    hs_ingest_free(ing);
}

/* D = 2(n-1)/n M for n = 4, and the lead's payload function inverts it. */
static void test_d_for_four_ranks(void)
{
    const char *files[] = {DATA "legacy-rank0.json.gz",
                           DATA "legacy-rank1.json.gz", NULL};
    const char *side = hs_test_write_file(
        "four.sidecar.json",
        "{\"hetsim_sidecar\": 1, \"world_size\": 4, \"grad_bytes\": 1000001}");
    hs_error_t err;
    hs_err_t rc;
    hs_ingest_t *ing = ingest(25, side, files, &rc, &err);
    hs_profile_t p;

    HS_ASSERT_I64_EQ(rc, HS_OK);
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc == HS_OK) {
        HS_ASSERT_I64_EQ(p.subsys_n, 4);
        HS_ASSERT_I64_EQ(p.steps_kept, 5);
        HS_ASSERT_I64_EQ(p.ar_bytes, 1500002);   /* 1.5 x 1000001, rounded */
        HS_ASSERT_DBL_NEAR(hs_profile_payload_bytes(&p), 1000001.0, 1.0);
        hs_profile_clear(&p);
    }
    hs_ingest_free(ing);
}

/* Writes p as a profile of type cpu into a file `name` under a fresh
   temporary directory `dir` and reads it back into *q (asserted). */
static void write_read(const hs_profile_t *p, const char *dir,
                       const char *name, hs_profile_t *q)
{
    char path[1024];
    hs_error_t err;

    snprintf(path, sizeof path, "%s/%s", hs_test_tmpdir(dir), name);
    HS_ASSERT_I64_EQ(hs_profile_write(p, path,
                                      &(const hs_profile_info_t){"cpu", NULL},
                                      &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_profile_load(path, q, &err), HS_OK);
}

/* Ingests the two legacy ranks' traces with a sidecar file `name` whose
   `key` holds `value` (JSON text, spliced in) into *p; *ing is the
   ingestion, for the caller to free.  bad: the value is malformed, so the
   result must be a schema error naming the file and the key (asserted;
   a profile that came out anyway is cleared) and 0 is returned.  Else the
   result must be HS_OK (asserted, the message printed otherwise) and 1 is
   returned with *p filled, 0 on a failure. */
static int ingest_key(const char *name, const char *key, const char *value,
                      int bad, hs_ingest_t **ing, hs_profile_t *p)
{
    const char *files[] = {DATA "legacy-rank0.json.gz",
                           DATA "legacy-rank1.json.gz", NULL};
    char text[512];
    hs_error_t err;
    hs_err_t rc;

    snprintf(text, sizeof text,
             "{\"hetsim_sidecar\": 1, \"world_size\": 2, "
             "\"grad_bytes\": 1138728, \"%s\": %s}", key, value);
    *ing = ingest(20, hs_test_write_file(name, text), files, &rc, &err);
    if (rc == HS_OK) {
        rc = hs_ingest_profile(*ing, p, &err);
        if (rc == HS_OK && bad)
            hs_profile_clear(p);
    }
    if (bad) {
        HS_ASSERT_I64_EQ(rc, HS_ERR_SCHEMA);
        HS_ASSERT_STR_CONTAINS(err.msg, name);
        HS_ASSERT_STR_CONTAINS(err.msg, key);
        return 0;
    }
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc != HS_OK)
        fprintf(stderr, "\n%s %s: %s\n", key, value, err.msg);
    return rc == HS_OK;
}

/* The communication's own cost from the harness's comm_probe: CPU time
   per all-reduce / the forward's CPU rate / bytes sent. */
static void test_comm_probe(void)
{
    const char *files[] = {DATA "legacy-rank0.json.gz",
                           DATA "legacy-rank1.json.gz", NULL};
    /* forward: 400 ns of CPU in 800 ns of wall time = 0.5 cores; probe:
       8000 ns of CPU for 4 all-reduces of 1000 B sent each = 2000 ns of
       CPU each = 4000 ns of the device = 4 ns per byte */
    const char *side = hs_test_write_file(
        "comm.sidecar.json",
        "{\"hetsim_sidecar\": 1, \"world_size\": 2, "
        "\"grad_bytes\": 1138728, \"steps\": ["
        "{\"t_fwd_ns\": 200, \"cpu_fwd_ns\": 100}, "
        "{\"t_fwd_ns\": 600, \"cpu_fwd_ns\": 300}], "
        "\"comm_probe\": {\"reps\": 4, \"bytes_sent\": 1000, "
        "\"cpu_ns\": 8000, \"wall_ns\": 99999}}");
    const char *bad;
    hs_error_t err;
    hs_err_t rc;
    hs_ingest_t *ing = ingest(20, side, files, &rc, &err);
    hs_profile_t p, q;

    if (rc != HS_OK)
        fprintf(stderr, "\n%s\n", err.msg);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc == HS_OK) {
        HS_ASSERT_DBL_NEAR(p.comm_ns_per_byte, 4.0, 1e-12);
        /* written and read back */
        write_read(&p, "ingest-comm", "comm.profile.yaml", &q);
        HS_ASSERT_DBL_NEAR(q.comm_ns_per_byte, 4.0, 1e-12);
        hs_profile_clear(&q);
        hs_profile_clear(&p);
    }
    hs_ingest_free(ing);
    /* "comm": "after": the harness ran the all-reduces after the
       backward, so the trace's calls say nothing of when the buckets were
       ready: the sidecar's own ready times are used */
    side = hs_test_write_file(
        "after.sidecar.json",
        "{\"hetsim_sidecar\": 1, \"world_size\": 2, \"comm\": \"after\", "
        "\"grad_bytes\": 1138728, \"bucket_bytes\": [1071144, 67584], "
        "\"buckets\": [{\"bytes\": 1071144, \"ready_ns\": 1234567}, "
        "{\"bytes\": 67584, \"ready_ns\": 2345678}]}");
    ing = ingest(20, side, files, &rc, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc == HS_OK) {
        HS_ASSERT_I64_EQ(p.n_buckets, 2);
        if (p.n_buckets == 2) {
            HS_ASSERT_I64_EQ(p.buckets[0].ready_ns, 1234567);
            HS_ASSERT_I64_EQ(p.buckets[1].ready_ns, 2345678);
        }
        hs_profile_clear(&p);
    }
    hs_ingest_free(ing);
    /* a probe that cannot be divided by: an error naming the file (the
       helper's path buffer is reused: written only now) */
    bad = hs_test_write_file(
        "comm-bad.sidecar.json",
        "{\"hetsim_sidecar\": 1, \"world_size\": 2, "
        "\"grad_bytes\": 1138728, \"comm_probe\": {\"reps\": 0, "
        "\"bytes_sent\": 1000, \"cpu_ns\": 8000}}");
    ing = ingest(20, bad, files, &rc, &err);
    if (rc == HS_OK) {
        rc = hs_ingest_profile(ing, &p, &err);
        if (rc == HS_OK)
            hs_profile_clear(&p);
    }
    HS_ASSERT_I64_EQ(rc, HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(err.msg, "comm-bad.sidecar.json");
    HS_ASSERT_STR_CONTAINS(err.msg, "comm_probe");
    hs_ingest_free(ing);
}


/* The hop wait from the harness's hop_probe: (median beside - median
   idle) / hops, written and read back; 0 when the all-reduce was not
   slower beside the backward; malformed probes are errors. */
static void test_hop_probe(void)
{
    static const struct {
        const char *probe;
        int64_t wait_ns;    /* -1: an error naming hop_probe */
    } cases[] = {
        /* medians: idle 60 ms (odd count), beside 90 ms: 30 ms / 2 hops */
        {"{\"hops\": 2, \"idle_ns\": [70000000, 50000000, 60000000], "
         "\"beside_ns\": [90000000, 200000000, 80000000]}", 15000000},
        /* even count: the middle two's mean; idle 55 ms, beside 100 ms,
           6 hops: 7.5 ms */
        {"{\"hops\": 6, \"idle_ns\": [50000000, 60000000, 40000000, "
         "70000000], \"beside_ns\": [90000000, 110000000, 300000000, "
         "10000000]}", 7500000},
        /* faster beside than idle: no wait */
        {"{\"hops\": 2, \"idle_ns\": [9], \"beside_ns\": [5]}", 0},
        {"null", 0},
        {"{\"hops\": 0, \"idle_ns\": [1], \"beside_ns\": [2]}", -1},
        {"{\"hops\": 2, \"idle_ns\": [], \"beside_ns\": []}", -1},
        {"{\"hops\": 2, \"idle_ns\": [1, 2], \"beside_ns\": [2]}", -1},
        {"{\"hops\": 2, \"idle_ns\": [1], \"beside_ns\": [-2]}", -1},
        {"{\"hops\": 2, \"idle_ns\": [1.5], \"beside_ns\": [2]}", -1},
        {"[1, 2]", -1},
        /* skipped by the harness: no wait, a note saying why */
        {"null, \"hop_probe_skipped\": \"rank 1: the backward cannot run "
         "twice on one graph\"", -2},
        {"null, \"hop_probe_skipped\": 7", -1},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hs_ingest_t *ing;
        hs_profile_t p, q;

        if (!ingest_key("hop.sidecar.json", "hop_probe", cases[i].probe,
                        cases[i].wait_ns == -1, &ing, &p)) {
            hs_ingest_free(ing);
            continue;
        }
        if (cases[i].wait_ns == -2) {
            HS_ASSERT_I64_EQ(p.t_hop_wait_ns, 0);
            CU_ASSERT_TRUE(ic_has_note(ing, "the hop-wait probe was skipped "
                                         "(rank 1: the backward cannot "
                                         "run twice on one graph)"));
            hs_profile_clear(&p);
            hs_ingest_free(ing);
            continue;
        }
        HS_ASSERT_I64_EQ(p.t_hop_wait_ns, cases[i].wait_ns);
        CU_ASSERT_EQUAL(ic_has_note(ing, "hop wait"), cases[i].wait_ns >= 0 &&
                        strcmp(cases[i].probe, "null") != 0);
        write_read(&p, "ingest-hop", "hop.profile.yaml", &q);
        HS_ASSERT_I64_EQ(q.t_hop_wait_ns, cases[i].wait_ns);
        hs_profile_clear(&q);
        hs_profile_clear(&p);
        hs_ingest_free(ing);
    }
}

/* The CPU quota from the harness's cpu_quota: the profile's
   cpu_quota_cores and t_cpu_period, with a note, written and read back;
   null or absent: none; malformed: an error naming the file and key. */
static void test_cpu_quota(void)
{
    static const struct {
        const char *quota;
        double cores;       /* -1: an error naming cpu_quota */
        int64_t period_ns;
    } cases[] = {
        {"{\"cores\": 0.3, \"period_ns\": 10000000, \"cgroup\": \"/x\"}",
         0.3, 10000000},
        {"{\"cores\": 2, \"period_ns\": 100000000}", 2.0, 100000000},
        {"null", 0, 0},
        {"{\"cores\": 0, \"period_ns\": 10000000}", -1, 0},
        {"{\"cores\": -0.5, \"period_ns\": 10000000}", -1, 0},
        {"{\"cores\": 5000, \"period_ns\": 10000000}", -1, 0},
        {"{\"cores\": \"0.3\", \"period_ns\": 10000000}", -1, 0},
        {"{\"cores\": 0.3}", -1, 0},
        {"{\"cores\": 0.3, \"period_ns\": 0}", -1, 0},
        {"{\"cores\": 0.3, \"period_ns\": 1.5}", -1, 0},
        {"0.3", -1, 0},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hs_ingest_t *ing;
        hs_profile_t p, q;

        if (!ingest_key("quota.sidecar.json", "cpu_quota", cases[i].quota,
                        cases[i].cores < 0, &ing, &p)) {
            hs_ingest_free(ing);
            continue;
        }
        HS_ASSERT_DBL_NEAR(p.cpu_quota_cores, cases[i].cores, 1e-12);
        HS_ASSERT_I64_EQ(p.t_cpu_period_ns, cases[i].period_ns);
        CU_ASSERT_EQUAL(ic_has_note(ing, "CPU quota"), cases[i].cores > 0);
        write_read(&p, "ingest-quota", "quota.profile.yaml", &q);
        HS_ASSERT_DBL_NEAR(q.cpu_quota_cores, cases[i].cores, 1e-12);
        HS_ASSERT_I64_EQ(q.t_cpu_period_ns, cases[i].period_ns);
        hs_profile_clear(&q);
        hs_profile_clear(&p);
        hs_ingest_free(ing);
    }
}

/* Issue 11: the sidecar's profiler-free phases give the compute means; a
   bucket "ready" after the backward's end is clamped with a note; a rank
   whose compute times spread widely gets a warning note; a single rank
   (profiled alone) gives D = M for n = 2 with a note. */
static void test_plain_clamp_use_alone(void)
{
    const char *files[] = {DATA "legacy-rank0.json.gz",
                           DATA "legacy-rank1.json.gz", NULL};
    const char *one[] = {DATA "legacy-rank0.json.gz", NULL};
    const char *side;
    hs_ingest_t *ing;
    hs_profile_t p;
    hs_error_t err;
    hs_err_t rc;

    side = hs_test_write_file(
        "plain.sidecar.json",
        "{\"hetsim_sidecar\": 1, \"world_size\": 2, \"comm\": \"after\", "
        "\"grad_bytes\": 1138728, \"bucket_bytes\": [1071144, 67584], "
        "\"buckets\": [{\"bytes\": 1071144, \"ready_ns\": 3000000}, "
        "{\"bytes\": 67584, \"ready_ns\": 4500000}], "
        "\"plain\": {\"t_dl_ns\": [100, 300], "
        "\"t_fwd_ns\": [1000000, 3000000], "
        "\"t_bwd_ns\": [4000000, 4000000], \"t_opt_ns\": [50, 150]}, "
        "\"rank_use\": [{\"rank\": 0, \"steps\": 10, "
        "\"cpu_share_mean\": 0.25, \"cpu_share_min\": 0.24, "
        "\"cpu_share_max\": 0.26, \"compute_mean_ns\": 50000000, "
        "\"compute_sd_ns\": 1000000, \"compute_median_ns\": 50000000, "
        "\"compute_max_ns\": 52000000}, {\"rank\": 1, \"steps\": 10, "
        "\"cpu_share_mean\": 0.12, \"cpu_share_min\": 0.05, "
        "\"cpu_share_max\": 0.2, \"compute_mean_ns\": 90000000, "
        "\"compute_sd_ns\": 30000000, \"compute_median_ns\": 80000000, "
        "\"compute_max_ns\": 160000000}]}");
    ing = ingest(20, side, files, &rc, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc == HS_OK) {
        HS_ASSERT_I64_EQ(p.t_fwd.mean_ns, 2000000);
        HS_ASSERT_I64_EQ(p.t_bwd.mean_ns, 4000000);
        HS_ASSERT_I64_EQ(p.t_dl.mean_ns, 200);
        HS_ASSERT_I64_EQ(p.t_opt.mean_ns, 100);
        HS_ASSERT_I64_EQ(p.t_fwd.n_samples, 2);
        CU_ASSERT(p.t_b1.mean_ns <= p.t_bwd.mean_ns);
        HS_ASSERT_I64_EQ(p.n_buckets, 2);
        if (p.n_buckets == 2) {
            HS_ASSERT_I64_EQ(p.buckets[0].ready_ns, 3000000);
            HS_ASSERT_I64_EQ(p.buckets[1].ready_ns, 4000000);
        }
        CU_ASSERT(ic_has_note(ing, "without the profiler"));
        CU_ASSERT(ic_has_note(ing, "by up to 0.5 ms: clamped"));
        CU_ASSERT(ic_has_note(ing, "rank 1 may not have had its device"));
        CU_ASSERT(!ic_has_note(ing, "rank 0 may not"));
        CU_ASSERT(ic_has_note(ing, "CPU shares differ"));
        hs_profile_clear(&p);
    }
    hs_ingest_free(ing);

    /* one rank alone: D = M for n = 2 from the sidecar's gradient bytes */
    side = hs_test_write_file(
        "alone.sidecar.json",
        "{\"hetsim_sidecar\": 1, \"world_size\": 1, \"alone\": true, "
        "\"comm\": \"after\", \"grad_bytes\": 1138728}");
    ing = ingest(20, side, one, &rc, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc != HS_OK)
        fprintf(stderr, "\n%s\n", err.msg);
    if (rc == HS_OK) {
        HS_ASSERT_I64_EQ(p.subsys_n, 2);
        HS_ASSERT_I64_EQ(p.ar_bytes, 1138728);
        HS_ASSERT_I64_EQ(p.ar_source, HS_AR_SIDECAR);
        CU_ASSERT(ic_has_note(ing, "profiled alone"));
        hs_profile_clear(&p);
    }
    hs_ingest_free(ing);
}

/* Ingests the two legacy ranks, each with its own sidecar (plain t_fwd
   pools a and b), at statistic st; fills p. */
static hs_err_t ingest_plain_pair(const char *a, const char *b,
                                  hs_ingest_stat_t st, hs_profile_t *p)
{
    static const char fmt[] =
        "{\"hetsim_sidecar\": 1, \"world_size\": 2, \"comm\": \"after\", "
        "\"grad_bytes\": 1138728, \"bucket_bytes\": [1071144, 67584], "
        "\"plain\": {\"t_dl_ns\": [100, 100, 100, 100, 100], "
        "\"t_fwd_ns\": %s, "
        "\"t_bwd_ns\": [4000000, 4000000, 4000000, 4000000, 4000000], "
        "\"t_opt_ns\": [50, 50, 50, 50, 50]}}";
    char text[1024], sa[1024];
    const char *sb;
    hs_ingest_opts_t o;
    hs_ingest_t *ing;
    hs_error_t err;
    hs_err_t rc;

    snprintf(text, sizeof text, fmt, a);
    /* hs_test_write_file's path lives until its next call */
    snprintf(sa, sizeof sa, "%s",
             hs_test_write_file("plain-a.sidecar.json", text));
    snprintf(text, sizeof text, fmt, b);
    sb = hs_test_write_file("plain-b.sidecar.json", text);
    hs_ingest_opts_default(&o);
    o.warmup = 20;
    o.stat = st;
    ing = hs_ingest_new(&o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ing);
    rc = hs_ingest_add_file_sidecar(ing, DATA "legacy-rank0.json.gz", sa,
                                    &err);
    if (rc == HS_OK)
        rc = hs_ingest_add_file_sidecar(ing, DATA "legacy-rank1.json.gz",
                                        sb, &err);
    if (rc == HS_OK)
        rc = hs_ingest_profile(ing, p, &err);
    if (rc != HS_OK)
        fprintf(stderr, "\n%s\n", err.msg);
    hs_ingest_free(ing);
    return rc;
}

/* The harness writes every rank's pooled profiler-free phases into each
   rank's sidecar: given one sidecar per rank, the pool counts once (the
   mean, sd and samples of one copy); different pools are concatenated.
   --stat applies to these samples too (median, 10% trimmed mean). */
static void test_plain_pool_once_and_stat(void)
{
    static const char pool[] =
        "[1000000, 2000000, 3000000, 4000000, 20000000]";
    static const char other[] =
        "[5000000, 5000000, 5000000, 5000000, 5000000]";
    hs_profile_t p;

    if (ingest_plain_pair(pool, pool, HS_INGEST_STAT_MEAN, &p) == HS_OK) {
        HS_ASSERT_I64_EQ(p.t_fwd.n_samples, 5);
        HS_ASSERT_I64_EQ(p.t_fwd.mean_ns, 6000000);
        /* sd with n-1: sqrt((25+16+9+4+196)/4) ms = 7.90569 ms */
        CU_ASSERT(llabs(p.t_fwd.sd_ns - 7905694) <= 1);
        hs_profile_clear(&p);
    } else
        CU_FAIL("the pair with one pool did not ingest");
    if (ingest_plain_pair(pool, other, HS_INGEST_STAT_MEAN, &p) == HS_OK) {
        HS_ASSERT_I64_EQ(p.t_fwd.n_samples, 10);
        HS_ASSERT_I64_EQ(p.t_fwd.mean_ns, 5500000);
        hs_profile_clear(&p);
    } else
        CU_FAIL("the pair with two pools did not ingest");
    if (ingest_plain_pair(pool, pool, HS_INGEST_STAT_MEDIAN, &p) == HS_OK) {
        HS_ASSERT_I64_EQ(p.t_fwd.mean_ns, 3000000);
        HS_ASSERT_I64_EQ(p.t_fwd.n_samples, 5);
        CU_ASSERT(llabs(p.t_fwd.sd_ns - 7905694) <= 1);
        HS_ASSERT_I64_EQ(p.t_bwd.mean_ns, 4000000);
        hs_profile_clear(&p);
    } else
        CU_FAIL("the median pair did not ingest");
    /* 10 samples: 1 dropped at each end (1 ms and 20 ms) */
    if (ingest_plain_pair(pool, other, HS_INGEST_STAT_TRIMMED, &p) ==
        HS_OK) {
        HS_ASSERT_I64_EQ(p.t_fwd.mean_ns, (2 + 3 + 4 + 5 * 5) * 1000000 / 8);
        hs_profile_clear(&p);
    } else
        CU_FAIL("the trimmed pair did not ingest");
}

/* The YAML the ingestion writes is what hs_profile_load reads. */
static void test_yaml_round_trip(void)
{
    const char *files[] = {DATA "legacy-rank0.json.gz",
                           DATA "legacy-rank1.json.gz", NULL};
    hs_error_t err;
    hs_err_t rc;
    hs_ingest_t *ing = ingest(20, DATA "legacy.sidecar.json", files, &rc,
                              &err);
    hs_profile_t p, q;
    const char *dir = hs_test_tmpdir("ingest-yaml");
    char path[1024];
    size_t i;

    snprintf(path, sizeof path, "%s/cpu.yaml", dir);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    rc = hs_ingest_profile(ing, &p, &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc != HS_OK) {
        hs_ingest_free(ing);
        return;
    }
    rc = hs_profile_write(&p, path, &(const hs_profile_info_t){"cpu-1.13", NULL},
                          &err);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    rc = hs_profile_load(path, &q, &err);
    if (rc != HS_OK)
        fprintf(stderr, "\n%s\n", err.msg);
    HS_ASSERT_I64_EQ(rc, HS_OK);
    if (rc == HS_OK) {
        const hs_dist_t *a[] = {&p.t_dl, &p.t_fwd, &p.t_b1, &p.t_bwd,
                                &p.t_opt};
        const hs_dist_t *b[] = {&q.t_dl, &q.t_fwd, &q.t_b1, &q.t_bwd,
                                &q.t_opt};
        HS_ASSERT_I64_EQ(q.subsys_n, p.subsys_n);
        HS_ASSERT_I64_EQ(q.steps_kept, p.steps_kept);
        HS_ASSERT_I64_EQ(q.ar_bytes, p.ar_bytes);
        CU_ASSERT_EQUAL(q.ar_source, p.ar_source);
        HS_ASSERT_DBL_NEAR(hs_profile_payload_bytes(&q), 1138728.0, 0.5);
        for (i = 0; i < 5; i++) {
            size_t k;
            HS_ASSERT_I64_EQ(b[i]->known, a[i]->known);
            HS_ASSERT_I64_EQ(b[i]->mean_ns, a[i]->mean_ns);
            HS_ASSERT_I64_EQ(b[i]->sd_ns, a[i]->sd_ns);
            HS_ASSERT_I64_EQ(b[i]->n_samples, a[i]->n_samples);
            for (k = 0; k < a[i]->n_samples && k < b[i]->n_samples; k++)
                HS_ASSERT_I64_EQ(b[i]->samples_ns[k], a[i]->samples_ns[k]);
        }
        HS_ASSERT_I64_EQ(q.n_buckets, p.n_buckets);
        for (i = 0; i < p.n_buckets && i < q.n_buckets; i++) {
            HS_ASSERT_I64_EQ(q.buckets[i].bytes, p.buckets[i].bytes);
            HS_ASSERT_I64_EQ(q.buckets[i].ready_ns, p.buckets[i].ready_ns);
        }
        CU_ASSERT_STRING_EQUAL(q.source, p.source);
        hs_profile_clear(&q);
    }
    /* unknown t_dl is written as `unknown` and read back as unknown */
    hs_profile_clear(&p);
    hs_ingest_free(ing);
    {
        const char *f2[] = {REAL "nccl-2rank-resnet.json.gz", NULL};
        ing = ingest(1, NULL, f2, &rc, &err);
        rc = hs_ingest_profile(ing, &p, &err);
        HS_ASSERT_I64_EQ(rc, HS_OK);
        snprintf(path, sizeof path, "%s/a100.yaml", dir);
        if (rc == HS_OK &&
            hs_profile_write(&p, path,
                             &(const hs_profile_info_t){"A100", NULL},
                             &err) == HS_OK &&
            hs_profile_load(path, &q, &err) == HS_OK) {
            CU_ASSERT_FALSE(q.t_dl.known);
            HS_ASSERT_I64_EQ(q.ar_bytes, 102228128);
            CU_ASSERT_EQUAL(q.ar_source, HS_AR_PARAM_COMMS);
            HS_ASSERT_I64_EQ(q.n_buckets, 5);
            hs_profile_clear(&q);
        } else {
            fprintf(stderr, "\n%s\n", err.msg);
            CU_FAIL("resnet profile round trip");
        }
        hs_profile_clear(&p);
        hs_ingest_free(ing);
    }
}

/* Operator names as a trace may give them (the reader checks no string):
   empty, or not UTF-8.  The profile is written anyway and loads back: an
   empty name left out (as a missing one), each byte that starts no UTF-8
   character as U+FFFD; the times unchanged.  Both failed before (fuzz
   findings: an emitter error, and "fwd_ops name must not be empty"). */
static void test_yaml_op_names(void)
{
    static const char yaml[] = "t_fwd: 10ms\nt_b1: 1ms\n"
                               "allreduce_bytes: 1MB\nsubsystem_size: 2\n"
                               "fwd_ops:\n"
                               "  - {name: a, time: 4ms}\n"
                               "  - {name: b, time: 3ms}\n"
                               "  - {name: c, time: 2ms}\n"
                               "  - {name: d, time: 1ms}\n";
    static const char *const names[4] = {"", "aten::l\xa1\xa1near", "ok",
                                         "\xed\xa0\x80\xff"};
    static const char *const back[4] = {
        NULL, "aten::l\xef\xbf\xbd\xef\xbf\xbdnear", "ok",
        "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"};
    const char *dir = hs_test_tmpdir("ingest-op-names");
    hs_profile_t p, q;
    hs_error_t err;
    char path[1024];
    size_t k;

    memset(&p, 0, sizeof p);
    memset(&q, 0, sizeof q);
    HS_ASSERT_I64_EQ(hs_profile_load_text(yaml, sizeof yaml - 1, "ops.yaml",
                                          &p, &err), HS_OK);
    HS_ASSERT_I64_EQ(p.n_fwd_ops, 4);
    if (p.n_fwd_ops != 4 || p.fwd_op_names == NULL) {
        hs_profile_clear(&p);
        return;
    }
    for (k = 0; k < 4; k++) {
        free(p.fwd_op_names[k]);
        p.fwd_op_names[k] = strdup(names[k]);
    }
    snprintf(path, sizeof path, "%s/ops.yaml", dir);
    HS_ASSERT_I64_EQ(hs_profile_write(&p, path, NULL, &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_profile_load(path, &q, &err), HS_OK);
    HS_ASSERT_I64_EQ(q.n_fwd_ops, 4);
    for (k = 0; k < 4 && k < q.n_fwd_ops; k++) {
        HS_ASSERT_I64_EQ(q.fwd_ops_ns[k], p.fwd_ops_ns[k]);
        if (back[k] == NULL) {
            CU_ASSERT_TRUE(q.fwd_op_names == NULL ||
                           q.fwd_op_names[k] == NULL);
        } else if (q.fwd_op_names != NULL && q.fwd_op_names[k] != NULL) {
            CU_ASSERT_STRING_EQUAL(q.fwd_op_names[k], back[k]);
        } else {
            CU_FAIL("an operator name was lost");
        }
    }
    hs_profile_clear(&q);
    hs_profile_clear(&p);
}

/* ------------------------------------------------------------------ */
/* The command line and bad input                                        */

static void test_cli_profile_and_summary(void)
{
    const char *dir = hs_test_tmpdir("ingest-cli");
    char out[1024], out2[1024];
    hs_run_t r;
    char *a, *b;

    snprintf(out, sizeof out, "%s/legacy.yaml", dir);
    snprintf(out2, sizeof out2, "%s/legacy2.yaml", dir);
    CU_ASSERT_EQUAL(hs_run_hetsim(&r, "ingest", "--type", "cpu", "--sidecar",
                                  DATA "legacy.sidecar.json",
                                  DATA "legacy-rank0.json.gz",
                                  DATA "legacy-rank1.json.gz", "-o", out,
                                  NULL),
                    0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.err, "sidecar");
    hs_run_free(&r);
    CU_ASSERT_EQUAL(hs_run_hetsim(&r, "ingest", "--type", "cpu", "--sidecar",
                                  DATA "legacy.sidecar.json",
                                  DATA "legacy-rank0.json.gz",
                                  DATA "legacy-rank1.json.gz", "-o", out2,
                                  NULL),
                    0);
    hs_run_free(&r);
    a = hs_test_slurp(out);
    b = hs_test_slurp(out2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_EQUAL(a, b);            /* deterministic */
    HS_ASSERT_STR_CONTAINS(a, "# hetsim profile\n");
    HS_ASSERT_STR_CONTAINS(a, "type: cpu\n");
    HS_ASSERT_STR_CONTAINS(a, "allreduce_bytes: 1138728B\n");
    HS_ASSERT_STR_CONTAINS(a, "allreduce_source: sidecar\n");
    HS_ASSERT_STR_CONTAINS(a, "subsystem_size: 2\n");
    free(a);
    free(b);
    /* the summary: per-step rows of every rank */
    CU_ASSERT_EQUAL(hs_run_hetsim(&r, "ingest", "--summary", "--warmup", "0",
                                  REAL "nccl-2rank-resnet.json.gz", NULL),
                    0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "payload source: param_comms");
    HS_ASSERT_STR_CONTAINS(r.out, "102228128");
    HS_ASSERT_STR_CONTAINS(r.out, "t_dl   unknown");
    HS_ASSERT_STR_CONTAINS(r.err, "t_dl is unknown");
    hs_run_free(&r);
    CU_ASSERT_EQUAL(hs_run_hetsim(&r, "ingest", "--help", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "--summary");
    hs_run_free(&r);
    CU_ASSERT_EQUAL(hs_run_hetsim(&r, "ingest", "--bogus", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);
}

/* Each malformed input: exit 2, the file (and offset) named, no output,
   an existing output untouched. */
static void test_cli_bad_input(void)
{
    static const struct {
        const char *file, *needle;
        int sidecar;
    } cases[] = {
        {"empty.json", "empty", 0},
        {"truncated.json.gz", "byte 3000", 0},
        {"truncated-gz.json.gz", "gzip error", 0},
        {"not-gzip.json.gz", "not a gzip file", 0},
        {"wrong-types.json", "\"ts\" is not a number", 0},
        {"no-steps.json", "no ProfilerStep", 0},
        {"scalar.json", "top level", 0},
        {"bad-sidecar.json", "world_size", 1},
    };
    const char *dir = hs_test_tmpdir("ingest-bad");
    char out[1024], keep[1024], trace[1024];
    size_t i;
    FILE *f;
    hs_run_t r;

    snprintf(keep, sizeof keep, "%s/keep.yaml", dir);
    f = fopen(keep, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("old: content\n", f);
    fclose(f);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(trace, sizeof trace, "%s%s", DATA, cases[i].file);
        snprintf(out, sizeof out, "%s/out%zu.yaml", dir, i);
        if (cases[i].sidecar)
            hs_run_hetsim(&r, "ingest", "--type", "x", "--sidecar", trace,
                          DATA "legacy-rank0.json.gz", "-o", out, NULL);
        else
            hs_run_hetsim(&r, "ingest", "--type", "x", trace, "-o", out,
                          NULL);
        if (r.status != 2)
            fprintf(stderr, "\n%s: status %d: %s\n", cases[i].file,
                    r.status, r.err);
        HS_ASSERT_I64_EQ(r.status, 2);
        HS_ASSERT_STR_CONTAINS(r.err, cases[i].file);
        HS_ASSERT_STR_CONTAINS(r.err, cases[i].needle);
        CU_ASSERT_FALSE(file_exists(out));
        hs_run_free(&r);
        /* the library says the same, with the right code */
        {
            hs_ingest_opts_t o;
            hs_ingest_t *ing;
            hs_error_t err;
            hs_err_t rc, want;
            hs_ingest_opts_default(&o);
            if (cases[i].sidecar)
                o.sidecar = trace;
            ing = hs_ingest_new(&o);
            rc = hs_ingest_add_file(
                ing, cases[i].sidecar ? DATA "legacy-rank0.json.gz" : trace,
                &err);
            want = strstr(cases[i].file, "types") != NULL ||
                           strstr(cases[i].file, "scalar") != NULL ||
                           cases[i].sidecar
                       ? HS_ERR_SCHEMA
                   : strstr(cases[i].file, "no-steps") != NULL
                       ? HS_ERR_TRACE
                       : HS_ERR_SYNTAX;
            HS_ASSERT_I64_EQ(rc, want);
            HS_ASSERT_I64_EQ(hs_ingest_n_files(ing), 0);
            hs_ingest_free(ing);
        }
        /* an existing profile is not clobbered */
        hs_run_hetsim(&r, "ingest", "--type", "x", trace, "-o", keep, NULL);
        hs_run_free(&r);
        {
            char *k = hs_test_slurp(keep);
            CU_ASSERT_STRING_EQUAL(k, "old: content\n");
            free(k);
        }
    }
    /* fewer steps than the warm-up: exit 2, nothing written */
    snprintf(out, sizeof out, "%s/few.yaml", dir);
    hs_run_hetsim(&r, "ingest", "--type", "A100",
                  REAL "nccl-2rank-resnet.json.gz", "-o", out, NULL);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "nccl-2rank-resnet.json.gz");
    HS_ASSERT_STR_CONTAINS(r.err, "warm-up");
    CU_ASSERT_FALSE(file_exists(out));
    hs_run_free(&r);
    /* a missing file is an I/O error (exit 3) */
    hs_run_hetsim(&r, "ingest", "--summary", DATA "no-such-file.json", NULL);
    HS_ASSERT_I64_EQ(r.status, 3);
    HS_ASSERT_STR_CONTAINS(r.err, "no-such-file.json");
    hs_run_free(&r);
    /* no -o and no --summary: usage */
    hs_run_hetsim(&r, "ingest", DATA "legacy-rank0.json.gz", NULL);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);
}

/* ------------------------------------------------------------------ */
/* The layers on their own: scanner, reader, per-rank record             */

typedef struct jcount_s {
    hs_jscan_t *js;
    unsigned long keys, maps;
    unsigned long stop_at;  /* fail on this map key, 0 never */
} jcount_t;

static int jc_key(void *ctx, const unsigned char *s, size_t n)
{
    jcount_t *c = ctx;

    (void)s;
    (void)n;
    if (++c->keys == c->stop_at)
        return hs_jscan_fail(c->js, HS_ERR_SCHEMA, "key %lu", c->keys);
    return 1;
}

static int jc_map(void *ctx)
{
    ((jcount_t *)ctx)->maps++;
    return 1;
}

/* The scanner reads a gzip file and its plain copy alike; a callback's
   failure names the file and the byte offset. */
static void test_jscan_plain_and_gzip(void)
{
    static const yajl_callbacks cb = {NULL, NULL, NULL, NULL, NULL, NULL,
                                      jc_map, jc_key, NULL, NULL, NULL};
    const char *gz = DATA "legacy-rank0.json.gz";
    char plain[512];
    size_t len = 0;
    char *text = gunzip_all(gz, &len);
    FILE *f;
    hs_jscan_t js;
    hs_error_t err;
    jcount_t a, b;

    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    snprintf(plain, sizeof plain, "%s/plain.json",
             hs_test_tmpdir("ingest-jscan"));
    f = fopen(plain, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
    fclose(f);
    free(text);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.js = &js;
    HS_ASSERT_I64_EQ(hs_jscan_file(&js, gz, &cb, &a, &err), HS_OK);
    HS_ASSERT_I64_EQ(js.base, len);
    b.js = &js;
    HS_ASSERT_I64_EQ(hs_jscan_file(&js, plain, &cb, &b, &err), HS_OK);
    HS_ASSERT_I64_EQ(js.base, len);
    CU_ASSERT(a.keys > 100);
    HS_ASSERT_I64_EQ(a.keys, b.keys);
    HS_ASSERT_I64_EQ(a.maps, b.maps);
    memset(&b, 0, sizeof b);
    b.js = &js;
    b.stop_at = 50;
    HS_ASSERT_I64_EQ(hs_jscan_file(&js, gz, &cb, &b, &err), HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(err.msg, "legacy-rank0.json.gz: byte ");
    HS_ASSERT_STR_CONTAINS(err.msg, ": key 50");
    unlink(plain);
}

static hs_err_t refuse_rank(void *ctx, const hs_rank_t *r, hs_error_t *err)
{
    (*(int *)ctx)++;
    return hs_error_set(err, HS_ERR_TRACE, r->path, 0, 0, "refused");
}

/* The Kineto reader's record is what hs_ingest_file shows, less what the
   ingestion adds (kept, the sidecar's payload, a default rank); a rank
   check stops the reading after the read, before the replays. */
static void test_reader_record(void)
{
    const char *files[] = {REAL "nccl-2rank-resnet.json.gz", NULL};
    hs_kineto_opts_t o;
    hs_rank_t *r = NULL;
    hs_error_t err;
    hs_err_t rc;
    hs_ingest_t *ing = ingest(2, NULL, files, &rc, &err);
    const hs_ingest_file_t *pf;
    size_t i, nbk = 0;
    int calls = 0;

    HS_ASSERT_I64_EQ(rc, HS_OK);
    pf = hs_ingest_file(ing, 0);
    memset(&o, 0, sizeof o);
    HS_ASSERT_I64_EQ(hs_kineto_read(files[0], &o, &r, &err), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(r->path, pf->path);
    HS_ASSERT_I64_EQ(r->rank, pf->rank);
    HS_ASSERT_I64_EQ(r->world_size, pf->world_size);
    CU_ASSERT_STRING_EQUAL(r->backend, pf->backend);
    HS_ASSERT_I64_EQ(r->gpu, pf->gpu);
    HS_ASSERT_I64_EQ(r->ar_known, 1);
    HS_ASSERT_I64_EQ(r->ar_source, pf->ar_source);
    HS_ASSERT_I64_EQ(r->passes, 1);
    HS_ASSERT_I64_EQ(r->n_events, pf->n_events);
    HS_ASSERT_I64_EQ(r->n_steps, pf->n_steps);
    for (i = 0; i < r->n_steps && i < pf->n_steps; i++) {
        const hs_ingest_step_t a = r->steps[i], b = pf->steps[i];
        HS_ASSERT_I64_EQ(a.kept, 0);
        HS_ASSERT_I64_EQ(a.number, b.number);
        HS_ASSERT_I64_EQ(a.complete, b.complete);
        HS_ASSERT_I64_EQ(a.start_ns, b.start_ns);
        HS_ASSERT_I64_EQ(a.dur_ns, b.dur_ns);
        HS_ASSERT_I64_EQ(a.t_dl_ns, b.t_dl_ns);
        HS_ASSERT_I64_EQ(a.t_fwd_ns, b.t_fwd_ns);
        HS_ASSERT_I64_EQ(a.t_b1_ns, b.t_b1_ns);
        HS_ASSERT_I64_EQ(a.t_bwd_ns, b.t_bwd_ns);
        HS_ASSERT_I64_EQ(a.t_opt_ns, b.t_opt_ns);
        HS_ASSERT_I64_EQ(a.ar_payload_bytes, b.ar_payload_bytes);
        HS_ASSERT_I64_EQ(a.n_allreduce, b.n_allreduce);
        HS_ASSERT_I64_EQ(a.n_kernels, b.n_kernels);
        if (r->buckets[i].has_bwd && r->buckets[i].timed) {
            size_t k;
            uint64_t sum = 0;
            for (k = 0; k < r->buckets[i].n; k++) {
                sum += r->buckets[i].bytes[k];
                /* device time of backward kernels: grows, within bwd */
                CU_ASSERT(r->buckets[i].ready_ns[k] >= 0);
                CU_ASSERT(k == 0 || r->buckets[i].ready_ns[k] >=
                                        r->buckets[i].ready_ns[k - 1]);
                CU_ASSERT(r->buckets[i].ready_ns[k] <= b.t_bwd_ns);
            }
            HS_ASSERT_I64_EQ(sum, b.ar_payload_bytes);
            nbk += r->buckets[i].n;
        }
    }
    CU_ASSERT(nbk > 0);
    hs_rank_free(r);
    hs_ingest_free(ing);
    /* the rank check runs once, and its code is the reader's */
    o.check_rank = refuse_rank;
    o.ctx = &calls;
    r = (hs_rank_t *)&calls;
    HS_ASSERT_I64_EQ(hs_kineto_read(files[0], &o, &r, &err), HS_ERR_TRACE);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_I64_EQ(calls, 1);
    HS_ASSERT_STR_CONTAINS(err.msg, "refused");
    hs_rank_free(NULL);
}

static int register_ingest(void)
{
    CU_pSuite s = CU_add_suite("ingest", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "resnet: record_param_comms, kernel time",
                    test_resnet_param_comms_gpu) == NULL ||
        CU_add_test(s, "dataloader: t_dl, shapes", test_dataloader_shapes) ==
            NULL ||
        CU_add_test(s, "gloo cpu: no backward", test_gloo_cpu_no_backward) ==
            NULL ||
        CU_add_test(s, "rocm: kernels by hand", test_rocm_kernels) == NULL ||
        CU_add_test(s, "warm-up longer than the trace",
                    test_warmup_too_long) == NULL ||
        CU_add_test(s, "legacy fixture vs reference", test_legacy_fixture) ==
            NULL ||
        CU_add_test(s, "D for n = 4", test_d_for_four_ranks) == NULL ||
        CU_add_test(s, "CPU quota from the sidecar", test_cpu_quota) ==
            NULL ||
        CU_add_test(s, "hop wait from the hop probe", test_hop_probe) ==
            NULL ||
        CU_add_test(s, "communication cost from the probe", test_comm_probe) ==
            NULL ||
        CU_add_test(s, "plain phases, clamped ready, rank use, alone",
                    test_plain_clamp_use_alone) == NULL ||
        CU_add_test(s, "profiler-free pool counted once, --stat on it",
                    test_plain_pool_once_and_stat) == NULL ||
        CU_add_test(s, "YAML round trip", test_yaml_round_trip) == NULL ||
        CU_add_test(s, "YAML: operator names empty or not UTF-8",
                    test_yaml_op_names) == NULL ||
        CU_add_test(s, "CLI profile and summary",
                    test_cli_profile_and_summary) == NULL ||
        CU_add_test(s, "CLI bad input", test_cli_bad_input) == NULL ||
        CU_add_test(s, "scanner: plain and gzip alike",
                    test_jscan_plain_and_gzip) == NULL ||
        CU_add_test(s, "reader: the per-rank record", test_reader_record) ==
            NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_ingest)
