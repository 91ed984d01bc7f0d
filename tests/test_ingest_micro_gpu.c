/*
 * test_ingest_micro_gpu.c -- gradient accumulation on a device trace:
 * the profiling harness's "hetsim.micro_batch#K" marks in a Kineto trace
 * with CUDA kernels (runtime calls and kernels joined by their
 * correlation ids, the form test_ingest_onepass.c's hand trace has), and
 * the profile's micro_batches key (docs/ingest.md, "Per-step figures").
 *
 * The traces are written here, two ranks alike, four steps (the first
 * dropped as warm-up), each step V micro-batches (V = 1, 2, 4), each
 * micro-batch marked (V = 1: the one mark, which reads as no
 * accumulation).  Micro-batch j of step k starts at B = T + 10 + 400 j
 * (T = 1000 + 2000 k, all in us):
 *   DataLoader      B+10 (5)
 *   aten::linear    B+20 (60), launches at B+30 a kernel of F_j = 50 + 10 j
 *   backward op 1   B+100 (30), launches at B+110 a kernel of G_j = 8 + 2 j
 *   backward op 2   B+150 (50), launches at B+160 a kernel of H_j = 30 + 5 j
 * the last micro-batch also all-reduces (nccl:all_reduce at B+205, 4000 B,
 * and its communication kernel, not compute), then the optimizer at
 * T + 30 + 400 V (40) launches a kernel of 7.
 *
 * So per micro-batch, by hand: t_dl = 5; t_fwd = the mean of F_j =
 * 50 + 5 (V - 1); t_bwd = the mean of G_j + H_j = 38 + 3.5 (V - 1);
 * t_b1 = the last micro-batch's G = 8 + 2 (V - 1); t_opt = 7 (the
 * step's).  That is V = 1: 5, 50, 38, 8, 7; V = 2: 5, 55, 41.5, 10, 7;
 * V = 4: 5, 65, 48.5, 14, 7 (us).  The steps hold V micro-batches; the
 * profile says micro_batches V for V > 1 and states none for V = 1, and
 * the key survives its YAML written and read back (as data).  A step's
 * kernel count (n_kernels) is the whole step's: 3 V compute kernels and
 * the optimizer's, not the communication kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_ingest.h"
#include "hs_kineto.h"
#include "hs_rank.h"
#include "ingest_check.h"
#include "hs_profile.h"
#include "hs_test.h"

#define PID 7       /* the training process, its main thread too */
#define BWD "autograd::engine::evaluate_function: AddmmBackward0"
#define DL "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
#define AR "{\"Input Dims\": [[1000]], \"Input type\": [\"float\"]}"

typedef struct tbuf_s {
    char *p;
    size_t len, cap;
    unsigned long corr;     /* the last correlation id handed out */
} tbuf_t;

/* Appends one complete event (pid, tid 7 on the CPU; pid 0 for the
   device's kernels); args NULL: none. */
static void ev(tbuf_t *b, int pid, const char *cat, const char *name,
               long ts, long dur, const char *args)
{
    b->len += (size_t)snprintf(b->p + b->len, b->cap - b->len,
                               "%s{\"ph\": \"X\", \"cat\": \"%s\", "
                               "\"name\": \"%s\", \"pid\": %d, \"tid\": 7, "
                               "\"ts\": %ld, \"dur\": %ld%s%s}",
                               b->p[b->len - 1] != '[' ? ",\n" : "", cat,
                               name, pid, ts, dur,
                               args ? ", \"args\": " : "", args ? args : "");
}

/* A launch at ts (CPU) of a kernel of dur us that runs at ts + 5. */
static void launch(tbuf_t *b, long ts, const char *kname, long dur)
{
    char a[64];

    snprintf(a, sizeof a, "{\"correlation\": %lu}", ++b->corr);
    ev(b, PID, "cuda_runtime", "cudaLaunchKernel", ts, 2, a);
    ev(b, 0, "kernel", kname, ts + 5, dur, a);
}

/* Micro-batch j of the step at t (v of them; marks: with its mark). */
static void micro_batch(tbuf_t *b, long t, int j, int v)
{
    long s = t + 10 + 400L * j;
    char mark[48];

    snprintf(mark, sizeof mark, "hetsim.micro_batch#%d", j);
    ev(b, PID, "user_annotation", mark, s, 390, NULL);
    ev(b, PID, "user_annotation", DL, s + 10, 5, NULL);
    ev(b, PID, "cpu_op", "aten::linear", s + 20, 60, NULL);
    launch(b, s + 30, "gemm", 50 + 10L * j);
    ev(b, PID, "cpu_op", BWD, s + 100, 30, NULL);
    launch(b, s + 110, "gemm_bwd_in", 8 + 2L * j);
    ev(b, PID, "cpu_op", BWD, s + 150, 50, NULL);
    launch(b, s + 160, "gemm_bwd_w", 30 + 5L * j);
    if (j == v - 1) {   /* no_sync on the others: no all-reduce */
        ev(b, PID, "user_annotation", "nccl:all_reduce", s + 205, 10, AR);
        launch(b, s + 206, "ncclDevKernel_AllReduce_Sum_f32", 90);
    }
}

/* The step from which the correlation ids start again from 3 (so its
   kernels' ids fall in the first step's ranges), or -1: ids increase
   throughout (test_ids_interleave). */
static long corr_restart_step = -1;

/* Writes rank r's trace of v micro-batches a step into dir; returns its
   path (malloc'd). */
static char *write_trace(const char *dir, int r, int v)
{
    tbuf_t b = {malloc(1 << 17), 0, 1 << 17, 0};
    char *path = malloc(4096);
    long k;
    int j;

    CU_ASSERT_PTR_NOT_NULL_FATAL(b.p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(path);
    b.len = (size_t)snprintf(b.p, b.cap,
                             "{\"schemaVersion\": 1, \"distributedInfo\": "
                             "{\"backend\": \"nccl\", \"rank\": %d, "
                             "\"world_size\": 2}, \"traceEvents\": [", r);
    for (k = 0; k < 4; k++) {
        long t = 1000 + 2000 * k, opt = t + 30 + 400L * v;
        char step[32];

        if (k == corr_restart_step)
            b.corr = 2;
        snprintf(step, sizeof step, "ProfilerStep#%ld", 5 + k);
        ev(&b, PID, "user_annotation", step, t, 100 + 400L * v, NULL);
        for (j = 0; j < v; j++)
            micro_batch(&b, t, j, v);
        ev(&b, PID, "user_annotation", "Optimizer.step#SGD.step", opt, 40,
           NULL);
        launch(&b, opt + 10, "sgd_k", 7);
    }
    snprintf(b.p + b.len, b.cap - b.len, "]}\n");
    snprintf(path, 4096, "%s/rank%d-v%d.json", dir, r, v);
    CU_ASSERT_EQUAL(hs_test_write(path, b.p), 0);
    free(b.p);
    return path;
}

/* Ingests both ranks' traces of v micro-batches a step, checks every
   kept step and the profile against the hand figures (us) and the
   profile's key through its YAML. */
static void check_v(int v, int64_t fwd, int64_t bwd, int64_t b1)
{
    const char *dir = hs_test_tmpdir("ingest-micro-gpu");
    char ypath[4096];
    hs_ingest_t *ing = ic_ingest_written(dir, 2, write_trace, v, 1);
    hs_profile_t p, q;
    hs_error_t err;
    size_t i, j;

    CU_ASSERT_EQUAL_FATAL(hs_ingest_profile(ing, &p, &err), HS_OK);
    for (i = 0; i < hs_ingest_n_files(ing); i++) {
        const hs_ingest_file_t *f = hs_ingest_file(ing, i);
        HS_ASSERT_I64_EQ(f->n_steps, 4);
        for (j = 1; j < f->n_steps; j++) {
            const hs_ingest_step_t *s = &f->steps[j];
            HS_ASSERT_I64_EQ(s->micro_batches, (unsigned)v);
            HS_ASSERT_I64_EQ(s->t_dl_ns, 5000);
            HS_ASSERT_I64_EQ(s->t_fwd_ns, fwd * 100);
            HS_ASSERT_I64_EQ(s->t_bwd_ns, bwd * 100);
            HS_ASSERT_I64_EQ(s->t_b1_ns, b1 * 1000);
            HS_ASSERT_I64_EQ(s->t_opt_ns, 7000);
            HS_ASSERT_I64_EQ(s->n_allreduce, 1);
            /* the whole step's compute kernels: 3 per micro-batch and
               the optimizer's (not the communication kernel) */
            HS_ASSERT_I64_EQ(s->n_kernels, 3 * v + 1);
        }
    }
    CU_ASSERT_TRUE(hs_ingest_file(ing, 0)->gpu);
    HS_ASSERT_I64_EQ(p.t_dl.mean_ns, 5000);
    HS_ASSERT_I64_EQ(p.t_fwd.mean_ns, fwd * 100);
    HS_ASSERT_I64_EQ(p.t_bwd.mean_ns, bwd * 100);
    HS_ASSERT_I64_EQ(p.t_b1.mean_ns, b1 * 1000);
    HS_ASSERT_I64_EQ(p.t_opt.mean_ns, 7000);
    HS_ASSERT_I64_EQ(p.steps_kept, 3);
    HS_ASSERT_I64_EQ(p.ar_bytes, 4000);     /* D = M for n = 2 */
    HS_ASSERT_I64_EQ(p.micro_batches, v > 1 ? (unsigned)v : 0u);
    /* the key as the YAML has it: written, read back */
    snprintf(ypath, sizeof ypath, "%s/v%d.profile.yaml", dir, v);
    CU_ASSERT_EQUAL_FATAL(hs_profile_write(&p, ypath, NULL, &err), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_profile_load(ypath, &q, &err), HS_OK);
    HS_ASSERT_I64_EQ(q.micro_batches, v > 1 ? (unsigned)v : 0u);
    HS_ASSERT_I64_EQ(q.t_fwd.mean_ns, fwd * 100);
    HS_ASSERT_I64_EQ(q.t_b1.mean_ns, b1 * 1000);
    HS_ASSERT_I64_EQ(hs_profile_where(&q, "micro_batches", &(unsigned long){0},
                                      &(unsigned long){0}),
                     v > 1 ? 0 : -1);
    hs_profile_clear(&q);
    hs_profile_clear(&p);
    hs_ingest_free(ing);
    unlink(ypath);
}

/* fwd and bwd in tenths of a us (41.5 us: 415), b1 in us */
static void test_v1(void) { check_v(1, 500, 380, 8); }
static void test_v2(void) { check_v(2, 550, 415, 10); }
static void test_v4(void) { check_v(4, 650, 485, 14); }

/* The operators' memory budget exceeded (replays by batches of steps),
   the phases replayed by batches of one or two steps, and the records
   spilled: the reader's record of a trace of 4
   micro-batches a step is the one replay's. */
static void test_v4_batches(void)
{
    const char *dir = hs_test_tmpdir("ingest-micro-gpu");
    static const size_t budgets[] = {0, 1, 2048};
    char *path = write_trace(dir, 0, 4);
    hs_kineto_opts_t o;
    hs_rank_t *whole = NULL;
    hs_error_t err;
    size_t k;

    memset(&o, 0, sizeof o);
    HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &whole, &err), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
    for (k = 0; k < 6 * sizeof budgets / sizeof budgets[0]; k++) {
        hs_rank_t *bat = NULL;

        ic_batch_opts(&o, budgets, k);
        HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &bat, &err), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(bat);
        ic_same_record(whole, bat, 0);
        hs_rank_free(bat);
    }
    hs_rank_free(whole);
    free(path);
}

/* Correlation ids that start again from step 2 (so the id ranges of
   steps in different batches interleave): the phases replayed by
   batches of one, two or three steps give the one replay's record (the
   reader sees the ranges interleave and replays again as one batch). */
static void test_ids_interleave(void)
{
    const char *dir = hs_test_tmpdir("ingest-micro-gpu");
    char *path;
    hs_kineto_opts_t o;
    hs_rank_t *whole = NULL;
    hs_error_t err;
    size_t k;

    corr_restart_step = 2;
    path = write_trace(dir, 9, 2);
    corr_restart_step = -1;
    memset(&o, 0, sizeof o);
    HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &whole, &err), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
    HS_ASSERT_I64_EQ(whole->n_steps, 4);
    for (k = 0; k < 6; k++) {
        hs_rank_t *bat = NULL;

        o.step_batch = 1 + k / 2;
        o.log_mem_bytes = k % 2 ? 1 : 0;
        o.rec_mem_bytes = k % 3 == 0 ? 1 : 0;   /* the steps spilled */
        HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &bat, &err), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(bat);
        ic_same_record(whole, bat, 0);
        hs_rank_free(bat);
    }
    hs_rank_free(whole);
    unlink(path);
    free(path);
}

static int register_micro_gpu(void)
{
    CU_pSuite s = CU_add_suite("ingest micro-batches, device kernels", NULL,
                               NULL);

    if (s == NULL ||
        CU_add_test(s, "V = 1: the one mark, the plain figures, no key",
                    test_v1) == NULL ||
        CU_add_test(s, "V = 2: kernel means by hand, micro_batches 2",
                    test_v2) == NULL ||
        CU_add_test(s, "V = 4: kernel means by hand, micro_batches 4",
                    test_v4) == NULL ||
        CU_add_test(s, "ids that interleave across batches of steps",
                    test_ids_interleave) == NULL ||
        CU_add_test(s, "V = 4: operators by batches, records spilled",
                    test_v4_batches) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_micro_gpu)
