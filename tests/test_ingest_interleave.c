/*
 * test_ingest_interleave.c -- device traces whose kernels' correlation-id
 * ranges interleave across steps, read by batches of steps: the record
 * is the one batch's (docs/ingest.md, "Memory": a range gets a kernel
 * only when no range of another batch starts between them).
 *
 * A kernel goes to the (step, phase) range with the greatest start at or
 * below its id, if the range's end is not below it.  With batches, each
 * batch knows only its own ranges; the reader then reads the trace again
 * by the same batches, each range given the start of the one after it
 * in the whole trace's order.  The traces (all times in us, step k at
 * T = 1000 + 2000 k, a window of 1500, base id b):
 *
 *   "cross" (one micro-batch, b = 10 k + 10): DataLoader T+10 (5);
 *   aten::linear T+20 (60) launching at T+30 and T+40 the kernels b+2
 *   (50 us) and b+3 (20 + k); backward operators T+100 (30) and T+150
 *   (50) launching b+5 (8) and b+6 (30); the optimizer T+300 (40)
 *   launching b+11 (7) and b+14 (100 + k); and a kernel of id b+4 (1000)
 *   that no launch made.  So the ranges: forward [b+2, b+3], first
 *   backward [b+5], backward [b+6], optimizer [b+11, b+14], the next
 *   step's forward [b+12, b+13] starting inside it.  By hand: kernel
 *   b+14 has the next step's forward as its range (start b+12 <= b+14)
 *   and is past its end: no step's; kernel b+4 has this step's forward
 *   (start b+2), past its end: no step's (the previous optimizer's range
 *   [b+1, b+4] holds it, but starts before); so every step has t_fwd
 *   70 + k, t_b1 8, t_bwd 38, t_opt 7, 5 kernels, but the last, whose
 *   b+14 has the optimizer's range as its (nothing after): t_opt 107 +
 *   k, 6 kernels.  A batch of step k alone would take b+14 into its
 *   optimizer and b+12, b+13 of step k+1's forward too.  Ranges overlap:
 *   the note on correlation ids that interleave.
 *
 *   "micro" (two micro-batches marked, b = 20 k + 20): the earlier
 *   micro-batch (at T) launching b+2, b+3 in its forward and b+5, b+14
 *   in its backward, the last (at T+400) b+12, b+13, b+15, b+16, the
 *   optimizer (T+700) b+21, b+24: ranges of both micro-batches and of
 *   the next step's interleave.
 *
 *   "restart": "cross" with b = 10 (k mod 3) - 2, the ids from 0 again
 *   every three steps: ranges of several steps the same (the later
 *   step's takes their kernels, as ties go in step order), one starting
 *   at id 0.
 *
 *   "points" (b = 4 k): one launch a phase, ids b+7 (forward), b+1
 *   (backward), b+2 (optimizer): step k+1's backward id lies below step
 *   k's forward one, so the batches' ranges interleave, yet no two
 *   overlap: no note.
 *
 * Each is read in one batch and by batches of 1, 2 and 5 steps, logs and
 * the ranges' sorts in memory or spilled (one record a run: every range
 * sorted by merging), the record's steps spilled or not, the operators
 * within their budget or by batches: the same record, the same notes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_kineto.h"
#include "hs_notes.h"
#include "hs_rank.h"
#include "ingest_check.h"
#include "hs_test.h"

#define PID 7
#define BWD "autograd::engine::evaluate_function: AddmmBackward0"
#define DL "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
#define OPT "Optimizer.step#SGD.step"
#define NSTEPS 12

typedef struct tbuf_s {
    char *p;
    size_t len, cap;
} tbuf_t;

/* Appends one complete event (pid 0: the device's); corr -1: none. */
static void ev(tbuf_t *b, int pid, const char *cat, const char *name,
               long ts, long dur, long corr)
{
    char a[64] = "";

    if (corr >= 0)
        snprintf(a, sizeof a, ", \"args\": {\"correlation\": %ld}", corr);
    if (b->cap - b->len < 512) {
        b->cap *= 2;
        b->p = realloc(b->p, b->cap);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b->p);
    }
    b->len += (size_t)snprintf(b->p + b->len, b->cap - b->len,
                               "%s{\"ph\": \"X\", \"cat\": \"%s\", "
                               "\"name\": \"%s\", \"pid\": %d, \"tid\": 7, "
                               "\"ts\": %ld, \"dur\": %ld%s}",
                               b->p[b->len - 1] != '[' ? ",\n" : "", cat,
                               name, pid, ts, dur, a);
}

/* A launch at ts of kernel id corr of dur us (run at ts + 5). */
static void launch(tbuf_t *b, long ts, long corr, long dur)
{
    ev(b, PID, "cuda_runtime", "cudaLaunchKernel", ts, 2, corr);
    ev(b, 0, "kernel", "gemm", ts + 5, dur, corr);
}

/* One micro-batch's operators at B: forward launching f1, f2, backward
   launching g1, g2 (0: none). */
static void mb_ops(tbuf_t *b, long B, long f1, long f2, long g1, long g2,
                   long k)
{
    ev(b, PID, "user_annotation", DL, B + 10, 5, -1);
    ev(b, PID, "cpu_op", "aten::linear", B + 20, 60, -1);
    launch(b, B + 30, f1, 50);
    if (f2 > 0)
        launch(b, B + 40, f2, 20 + k);
    ev(b, PID, "cpu_op", BWD, B + 100, 30, -1);
    launch(b, B + 110, g1, 8);
    ev(b, PID, "cpu_op", BWD, B + 150, 50, -1);
    if (g2 > 0)
        launch(b, B + 160, g2, 30);
}

/* Step k of trace kind ("cross", "micro", "points"). */
static void step(tbuf_t *b, const char *kind, long k)
{
    long T = 1000 + 2000 * k;
    char nm[32];

    snprintf(nm, sizeof nm, "ProfilerStep#%ld", k);
    ev(b, PID, "user_annotation", nm, T, 1500, -1);
    if (strcmp(kind, "cross") == 0 || strcmp(kind, "restart") == 0) {
        long B = kind[0] == 'c' ? 10 * k + 10 : 10 * (k % 3) - 2;
        mb_ops(b, T, B + 2, B + 3, B + 5, B + 6, k);
        ev(b, PID, "user_annotation", OPT, T + 300, 40, -1);
        launch(b, T + 310, B + 11, 7);
        launch(b, T + 320, B + 14, 100 + k);
        ev(b, 0, "kernel", "stray", T + 400, 1000, B + 4);
    } else if (strcmp(kind, "micro") == 0) {
        long B = 20 * k + 20;
        ev(b, PID, "user_annotation", "hetsim.micro_batch#0", T + 5, 390,
           -1);
        mb_ops(b, T, B + 2, B + 3, B + 5, B + 14, k);
        ev(b, PID, "user_annotation", "hetsim.micro_batch#1", T + 405, 390,
           -1);
        mb_ops(b, T + 400, B + 12, B + 13, B + 15, B + 16, k);
        ev(b, PID, "user_annotation", OPT, T + 700, 40, -1);
        launch(b, T + 710, B + 21, 7);
        launch(b, T + 720, B + 24, 100 + k);
    } else {
        long B = 4 * k;
        mb_ops(b, T, B + 7, 0, B + 1, 0, k);
        ev(b, PID, "user_annotation", OPT, T + 300, 40, -1);
        launch(b, T + 310, B + 2, 7);
    }
}

/* Writes trace kind of n steps into the test folder; its path
   (malloc'd). */
static char *write_trace(const char *kind, long n)
{
    const char *dir = hs_test_tmpdir("ingest-interleave");
    tbuf_t b = {malloc(1 << 16), 0, 1 << 16};
    char *path = malloc(4096);
    long k;

    CU_ASSERT_PTR_NOT_NULL_FATAL(b.p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(path);
    b.len = (size_t)snprintf(b.p, b.cap,
                             "{\"schemaVersion\": 1, \"distributedInfo\": "
                             "{\"backend\": \"nccl\", \"rank\": 0, "
                             "\"world_size\": 2}, \"traceEvents\": [");
    for (k = 0; k < n; k++)
        step(&b, kind, k);
    b.len += (size_t)snprintf(b.p + b.len, b.cap - b.len, "]}\n");
    snprintf(path, 4096, "%s/%s-%ld.json", dir, kind, n);
    CU_ASSERT_EQUAL(hs_test_write(path, b.p), 0);
    free(b.p);
    return path;
}

/* Reads path under o with its notes; the record (asserted read). */
static hs_rank_t *read_noted(const char *path, hs_kineto_opts_t *o,
                             hs_notes_t *notes)
{
    hs_rank_t *r = NULL;
    hs_error_t err;

    o->notes = notes;
    HS_ASSERT_I64_EQ(hs_kineto_read(path, o, &r, &err), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    return r;
}

/* Trace kind of n steps by batches of 1, 2 and 5 steps x logs spilled
   or not x the record's steps spilled or not x the operators' budget
   (all, or one operator): the one batch's record and notes; the
   overlap note there when `overlap`. */
static void check_batches(const char *kind, long n, int overlap)
{
    static const size_t batches[] = {1, 2, 5};
    char *path = write_trace(kind, n);
    hs_notes_t wn = {0, NULL};
    hs_kineto_opts_t o;
    hs_rank_t *whole;
    size_t k, i;

    memset(&o, 0, sizeof o);
    whole = read_noted(path, &o, &wn);
    HS_ASSERT_I64_EQ(whole->n_steps, (size_t)n);
    HS_ASSERT_I64_EQ(wn.n, (size_t)(overlap != 0));
    if (overlap && wn.n == 1)
        HS_ASSERT_STR_CONTAINS(wn.items[0], "correlation ids of different "
                                            "phases interleave");
    for (k = 0; k < 3 * 8; k++) {
        hs_notes_t bn = {0, NULL};
        hs_rank_t *bat;

        memset(&o, 0, sizeof o);
        o.step_batch = batches[k / 8];
        o.log_mem_bytes = k & 1 ? 1 : 0;
        o.rec_mem_bytes = k & 2 ? 1 : 0;
        o.ops_mem_bytes = k & 4 ? 1 : 0;
        bat = read_noted(path, &o, &bn);
        ic_same_record(whole, bat, IC_RANK);
        HS_ASSERT_I64_EQ(bn.n, wn.n);
        for (i = 0; i < bn.n && i < wn.n; i++)
            CU_ASSERT_STRING_EQUAL(bn.items[i], wn.items[i]);
        hs_notes_clear(&bn);
        hs_rank_free(bat);
    }
    hs_notes_clear(&wn);
    hs_rank_free(whole);
    unlink(path);
    free(path);
}

/* "cross" by hand (the header's figures), in one batch and by batches
   of one step with everything spilled. */
static void test_cross_by_hand(void)
{
    char *path = write_trace("cross", NSTEPS);
    size_t pass;

    for (pass = 0; pass < 2; pass++) {
        hs_kineto_opts_t o;
        hs_rank_t *r = NULL;
        hs_rank_cur_t c;
        hs_error_t err;
        long k;

        memset(&o, 0, sizeof o);
        if (pass == 1) {
            o.step_batch = 1;
            o.log_mem_bytes = o.rec_mem_bytes = o.ops_mem_bytes = 1;
        }
        HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &r, &err), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        memset(&c, 0, sizeof c);
        for (k = 0; k < NSTEPS; k++) {
            int last = k == NSTEPS - 1;

            HS_ASSERT_I64_EQ(hs_rank_at(r, (size_t)k, &c, &err), HS_OK);
            CU_ASSERT_PTR_NOT_NULL_FATAL(c.step);
            HS_ASSERT_I64_EQ(c.step->t_fwd_ns, (70 + k) * 1000);
            HS_ASSERT_I64_EQ(c.step->t_b1_ns, 8000);
            HS_ASSERT_I64_EQ(c.step->t_bwd_ns, 38000);
            HS_ASSERT_I64_EQ(c.step->t_opt_ns, last ? (107 + k) * 1000
                                                    : 7000);
            HS_ASSERT_I64_EQ(c.step->n_kernels, last ? 6u : 5u);
        }
        hs_rank_cur_clear(&c);
        hs_rank_free(r);
    }
    unlink(path);
    free(path);
}

static void test_cross(void) { check_batches("cross", NSTEPS, 1); }
static void test_micro(void) { check_batches("micro", NSTEPS, 1); }
static void test_points(void) { check_batches("points", NSTEPS, 0); }
static void test_restart(void) { check_batches("restart", NSTEPS, 1); }

/* Many runs: 300 steps, 1,200 ranges, by batches of 7 (the sorts'
   runs of one record with spilled logs). */
static void test_many_runs(void)
{
    char *path = write_trace("cross", 300);
    hs_notes_t wn = {0, NULL}, bn = {0, NULL};
    hs_kineto_opts_t o;
    hs_rank_t *whole, *bat;

    memset(&o, 0, sizeof o);
    whole = read_noted(path, &o, &wn);
    memset(&o, 0, sizeof o);
    o.step_batch = 7;
    o.log_mem_bytes = 1;
    bat = read_noted(path, &o, &bn);
    ic_same_record(whole, bat, IC_RANK);
    HS_ASSERT_I64_EQ(bn.n, wn.n);
    hs_notes_clear(&wn);
    hs_notes_clear(&bn);
    hs_rank_free(whole);
    hs_rank_free(bat);
    unlink(path);
    free(path);
}

static int register_interleave(void)
{
    CU_pSuite s = CU_add_suite("ingest, id ranges that interleave across "
                               "batches", NULL, NULL);

    if (s == NULL ||
        CU_add_test(s, "crossing ranges: the figures by hand",
                    test_cross_by_hand) == NULL ||
        CU_add_test(s, "crossing ranges: batches give the one's record",
                    test_cross) == NULL ||
        CU_add_test(s, "micro-batches: batches give the one's record",
                    test_micro) == NULL ||
        CU_add_test(s, "ranges apart yet interleaving: no note",
                    test_points) == NULL ||
        CU_add_test(s, "ids again from 0 every 3 steps: the same ranges",
                    test_restart) == NULL ||
        CU_add_test(s, "300 steps, sorts of many runs", test_many_runs) ==
            NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_interleave)
