/*
 * test_ingest_micro.c -- the ingestion of a trace with gradient
 * accumulation: the profiling harness marks each micro-batch of a step
 * with a "hetsim.micro_batch#K" range (hetsim profile with a type's
 * micro_batches V > 1), and the reader gives one micro-batch's figures
 * (traces/hs_kineto.c, hs__step_figures).
 *
 * The traces are written here, Kineto form, two ranks alike, four steps
 * (the first dropped as warm-up), each step two micro-batches; the
 * expected figures are computed by hand from the times below (in us):
 *
 *   step window   T .. T+900 (T = 1000 + 1000 k)
 *   micro-batch 0 T+10:  DataLoader T+20 (5), forward op T+30 (60),
 *                        backward ops T+100 (30), T+150 (50)
 *                        -> forward 100 - 25 = 75, backward 200 - 100 = 100
 *   micro-batch 1 T+420: DataLoader T+430 (6), forward op T+440 (80),
 *                        backward ops T+540 (20), T+570 (60)
 *                        -> forward 540 - 436 = 104, backward 630 - 540 = 90
 *   all-reduces   T+560 (4000 B), T+625 (4000 B): ready 20 and 85 after
 *                 the last micro-batch's first backward operator
 *   optimizer     T+700 (40)
 *
 * So per micro-batch: t_dl = (5 + 6) / 2 = 5.5, t_fwd = (75 + 104) / 2 =
 * 89.5, t_bwd = (100 + 90) / 2 = 95, t_b1 = 20 (the last micro-batch's),
 * t_opt = 40 (the step's), 2 all-reduces a step (one per bucket, none in
 * micro-batch 0: no_sync).  The same trace without the marks and without
 * micro-batch 0 (one micro-batch a step) gives the last micro-batch's
 * figures and no micro-batch note, as before the marks existed.
 *
 * And `hetsim profile --batches` refuses a type with micro_batches > 1
 * (batch points are measured without accumulation) before it runs
 * anything: exit 2 naming the type.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_ingest.h"
#include "hs_test.h"
#include "ingest_check.h"

/* Appends one complete event to buf at *len. */
static void ev(char *buf, size_t cap, size_t *len, const char *cat,
               const char *name, long ts, long dur, const char *args)
{
    *len += (size_t)snprintf(buf + *len, cap - *len,
                             "%s{\"ph\": \"X\", \"cat\": \"%s\", \"name\": "
                             "\"%s\", \"pid\": 7, \"tid\": 7, \"ts\": %ld, "
                             "\"dur\": %ld%s%s}",
                             *len > 0 && buf[*len - 1] != '[' ? ",\n" : "",
                             cat, name, ts, dur, args ? ", \"args\": " : "",
                             args ? args : "");
}

#define BWD "autograd::engine::evaluate_function: AddmmBackward0"
#define DL "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
#define AR "{\"Input Dims\": [[1000]], \"Input type\": [\"float\"]}"

/* Writes rank r's trace (micro: with micro-batch 0 and the marks) into
   dir; returns its path (malloc'd). */
static char *write_trace(const char *dir, int r, int micro)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap), *path = malloc(4096);
    long k;

    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(path);
    len = (size_t)snprintf(buf, cap,
                           "{\"schemaVersion\": 1, \"distributedInfo\": "
                           "{\"backend\": \"gloo\", \"rank\": %d, "
                           "\"world_size\": 2}, \"traceEvents\": [", r);
    for (k = 0; k < 4; k++) {
        long t = 1000 + 1000 * k;
        char step[32];

        snprintf(step, sizeof step, "ProfilerStep#%ld", 5 + k);
        ev(buf, cap, &len, "user_annotation", step, t, 900, NULL);
        if (micro) {
            ev(buf, cap, &len, "user_annotation", "hetsim.micro_batch#0",
               t + 10, 400, NULL);
            ev(buf, cap, &len, "user_annotation", DL, t + 20, 5, NULL);
            ev(buf, cap, &len, "cpu_op", "aten::linear", t + 30, 60, NULL);
            ev(buf, cap, &len, "cpu_op", BWD, t + 100, 30, NULL);
            ev(buf, cap, &len, "cpu_op", BWD, t + 150, 50, NULL);
            ev(buf, cap, &len, "user_annotation", "hetsim.micro_batch#1",
               t + 420, 400, NULL);
        }
        ev(buf, cap, &len, "user_annotation", DL, t + 430, 6, NULL);
        ev(buf, cap, &len, "cpu_op", "aten::linear", t + 440, 80, NULL);
        ev(buf, cap, &len, "cpu_op", BWD, t + 540, 20, NULL);
        ev(buf, cap, &len, "user_annotation", "gloo:all_reduce", t + 560,
           10, AR);
        ev(buf, cap, &len, "cpu_op", BWD, t + 570, 60, NULL);
        ev(buf, cap, &len, "user_annotation", "gloo:all_reduce", t + 625,
           10, AR);
        ev(buf, cap, &len, "user_annotation", "Optimizer.step#SGD.step",
           t + 700, 40, NULL);
    }
    snprintf(buf + len, cap - len, "]}\n");
    snprintf(path, 4096, "%s/rank%d%s.json", dir, r, micro ? "-mb" : "");
    CU_ASSERT_EQUAL(hs_test_write(path, buf), 0);
    free(buf);
    return path;
}

/* The profile of both ranks' traces (micro or not) into *p; returns ing
   (the caller frees it). */
static hs_ingest_t *ingest_pair(int micro, hs_profile_t *p)
{
    hs_ingest_t *ing = ic_ingest_written(hs_test_tmpdir("ingest-micro"), 2,
                                         write_trace, micro, 1);
    hs_error_t err;

    HS_ASSERT_I64_EQ(hs_ingest_profile(ing, p, &err), HS_OK);
    return ing;
}

static void test_two_micro_batches(void)
{
    hs_profile_t p;
    hs_ingest_t *ing = ingest_pair(1, &p);
    size_t i, j;
    int64_t ops = 0;

    for (i = 0; i < hs_ingest_n_files(ing); i++) {
        const hs_ingest_file_t *f = hs_ingest_file(ing, i);
        HS_ASSERT_I64_EQ(f->n_steps, 4);
        for (j = 0; j < f->n_steps; j++) {
            const hs_ingest_step_t *s = &f->steps[j];
            HS_ASSERT_I64_EQ(s->micro_batches, 2);
            HS_ASSERT_I64_EQ(s->t_dl_ns, 5500);
            HS_ASSERT_I64_EQ(s->t_fwd_ns, 89500);
            HS_ASSERT_I64_EQ(s->t_bwd_ns, 95000);
            HS_ASSERT_I64_EQ(s->t_b1_ns, 20000);
            HS_ASSERT_I64_EQ(s->t_opt_ns, 40000);
            /* no_sync: the all-reduces of the last micro-batch only, one
               per bucket */
            HS_ASSERT_I64_EQ(s->n_allreduce, 2);
            HS_ASSERT_I64_EQ(s->ar_payload_bytes, 8000);
        }
    }
    HS_ASSERT_I64_EQ(p.t_dl.mean_ns, 5500);
    HS_ASSERT_I64_EQ(p.t_fwd.mean_ns, 89500);
    HS_ASSERT_I64_EQ(p.t_bwd.mean_ns, 95000);
    HS_ASSERT_I64_EQ(p.t_b1.mean_ns, 20000);
    HS_ASSERT_I64_EQ(p.t_opt.mean_ns, 40000);
    HS_ASSERT_I64_EQ(p.steps_kept, 3);
    /* D = 2 (n - 1) / n M with M = 8000 B, n = 2 */
    HS_ASSERT_I64_EQ(p.ar_bytes, 8000);
    /* the buckets' ready times from the last micro-batch's first
       backward operator */
    HS_ASSERT_I64_EQ(p.n_buckets, 2);
    if (p.n_buckets == 2) {
        HS_ASSERT_I64_EQ(p.buckets[0].ready_ns, 20000);
        HS_ASSERT_I64_EQ(p.buckets[1].ready_ns, 85000);
    }
    /* the forward's operators: the last micro-batch's (linear 80, the
       other 24), scaled to t_fwd */
    for (i = 0; i < p.n_fwd_ops; i++)
        ops += p.fwd_ops_ns[i];
    HS_ASSERT_I64_EQ(p.n_fwd_ops, 2);
    HS_ASSERT_I64_EQ(ops, 89500);
    CU_ASSERT(ic_has_note(ing, "2 micro-batches a step"));
    CU_ASSERT(ic_has_note(ing, "micro_batches: 2"));
    /* the profile states the count (docs/scenario.md, Profiles) */
    HS_ASSERT_I64_EQ(p.micro_batches, 2);
    hs_profile_clear(&p);
    hs_ingest_free(ing);
}

static void test_one_micro_batch(void)
{
    hs_profile_t p;
    hs_ingest_t *ing = ingest_pair(0, &p);
    const hs_ingest_file_t *f = hs_ingest_file(ing, 0);

    HS_ASSERT_I64_EQ(f->steps[1].micro_batches, 1);
    HS_ASSERT_I64_EQ(p.t_dl.mean_ns, 6000);
    HS_ASSERT_I64_EQ(p.t_fwd.mean_ns, 104000);
    HS_ASSERT_I64_EQ(p.t_bwd.mean_ns, 90000);
    HS_ASSERT_I64_EQ(p.t_b1.mean_ns, 20000);
    HS_ASSERT_I64_EQ(p.t_opt.mean_ns, 40000);
    HS_ASSERT_I64_EQ(f->steps[1].n_allreduce, 2);
    CU_ASSERT(!ic_has_note(ing, "micro-batches"));
    HS_ASSERT_I64_EQ(p.micro_batches, 0);
    hs_profile_clear(&p);
    hs_ingest_free(ing);
}

static void test_profile_batches_refused(void)
{
    const char *dir = hs_test_tmpdir("profile-micro-batches");
    char scen[4096], text[1024], out[4096];
    hs_run_t r;

    snprintf(text, sizeof text,
             "name: m\n"
             "job: {model: {file: %s/scenarios/models/mlp.py}}\n"
             "device_types:\n"
             "  - {name: acc, count: 2, batch: 32, micro_batches: 2}\n"
             "devices:\n"
             "  - {name: a0, type: acc, addr: 127.0.0.1}\n"
             "  - {name: a1, type: acc, addr: 127.0.0.1}\n"
             "network: {default_bandwidth: 1Gbps}\n", HS_TEST_SRC);
    snprintf(scen, sizeof scen, "%s/m.yaml", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(hs_test_write(scen, text), 0);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "profile", scen, "-o", out,
                                        "--batches", "8,16", "--python",
                                        "/nonexistent/python3", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "'acc'");
    HS_ASSERT_STR_CONTAINS(r.err, "micro_batches 2");
    hs_run_free(&r);
}

static int register_micro(void)
{
    CU_pSuite s = CU_add_suite("ingest micro-batches", NULL, NULL);

    if (s == NULL ||
        CU_add_test(s, "two micro-batches a step, by hand",
                    test_two_micro_batches) == NULL ||
        CU_add_test(s, "one micro-batch: the plain figures",
                    test_one_micro_batch) == NULL ||
        CU_add_test(s, "profile --batches with micro_batches: refused",
                    test_profile_batches_refused) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_micro)
