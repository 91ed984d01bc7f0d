/*
 * test_ingest_onepass.c -- the one-pass trace reader and what came with
 * it (docs/ingest.md):
 *   - the reader's record is the same whatever the memory budget of its
 *     record logs (every record spilled to the temporary file, or none)
 *     and of its per-step entries (rec_mem_bytes: steps spilled);
 *   - the ingestion of spilled steps: the same profile, robust figures,
 *     notes and per-step tables as in memory; no temporary folder: an
 *     error;
 *   - the profiles are the old four-pass reader's: the YAMLs that main's
 *     build at da5f334 wrote for the real traces (kept in
 *     tests/data/ingest/reference/, see its README) equal ours byte for
 *     byte once our added fwd_ops block is taken out;
 *   - fwd_ops: hand-worked forward operators of a small CPU (legacy)
 *     trace and a small device (Kineto) trace; on the real traces every
 *     step's operators add up to its t_fwd and the profile's to t_fwd;
 *   - robust figures: mean, median and trimmed mean against hand-worked
 *     figures of a two-rank trace with an outlier, and --stat;
 *   - a sidecar per rank: equal sidecars give the shared sidecar's
 *     profile, probes are averaged, disagreeing or mixed sidecars are
 *     errors; the CLI's three forms.
 */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_ingest.h"
#include "hs_kineto.h"
#include "hs_rank.h"
#include "hs_test.h"
#include "ingest_check.h"

#define REAL HS_TEST_SRC "/tests/data/real/"
#define DATA HS_TEST_SRC "/tests/data/ingest/"

/* ------------------------------------------------------------------ */
/* The record whatever the logs' budget                                  */

/* Every step's operators add up to its forward (a record held in
   memory or spilled). */
static void assert_ops_sum(const hs_rank_t *r)
{
    hs_rank_cur_t c;
    hs_error_t err;
    size_t i, j, with = 0;

    memset(&c, 0, sizeof c);
    for (i = 0; i < r->n_steps; i++) {
        int64_t sum = 0;
        HS_ASSERT_I64_EQ(hs_rank_at(r, i, &c, &err), HS_OK);
        if (c.step == NULL)
            break;
        if (c.step->t_fwd_ns == HS_INGEST_UNKNOWN) {
            HS_ASSERT_I64_EQ(c.ops->n, 0);
            continue;
        }
        for (j = 0; j < c.ops->n; j++) {
            CU_ASSERT(c.ops->ns[j] > 0);
            CU_ASSERT(c.ops->name[j] < r->n_op_names);
            sum += c.ops->ns[j];
        }
        HS_ASSERT_I64_EQ(sum, c.step->t_fwd_ns);
        with += c.ops->n > 0;
    }
    hs_rank_cur_clear(&c);
    CU_ASSERT(with > 0);
}

static void test_spill_equals_memory(void)
{
    static const char *const files[] = {
        REAL "nccl-2rank-resnet.json.gz", REAL "nccl-2rank-dataloader.json.gz",
        REAL "rocm-mi250-train.json.gz", DATA "legacy-rank0.json.gz"};
    size_t i;

    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        hs_kineto_opts_t o[2];
        ic_pair_t p;        /* in memory, spilled */

        memset(o, 0, sizeof o);
        o[1].log_mem_bytes = 1;     /* one record in memory: all the rest
                                       goes through the temporary file */
        ic_read_two(files[i], o, &p);
        HS_ASSERT_I64_EQ(p.code[0], HS_OK);
        HS_ASSERT_I64_EQ(p.code[1], HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p.r[0]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p.r[1]);
        HS_ASSERT_I64_EQ(p.r[0]->passes, 1);
        ic_same_record(p.r[0], p.r[1], 0);
        assert_ops_sum(p.r[0]);
        ic_pair_free(&p);
    }
}

/* The forward's operators replayed by batches of steps (their budget
   exceeded: one step per batch, or a few), and the replays of the
   phases by batches of steps (one or two steps a batch), give the
   record of the one replay over every step, records spilled or not. */
static void test_ops_batches_equal_whole(void)
{
    static const char *const files[] = {
        REAL "nccl-2rank-resnet.json.gz", REAL "nccl-2rank-dataloader.json.gz",
        REAL "rocm-mi250-train.json.gz", DATA "legacy-rank0.json.gz"};
    static const size_t budgets[] = {0, 1, 2048, 20000};
    size_t i, k;

    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        hs_kineto_opts_t o;
        hs_rank_t *whole = NULL;
        hs_error_t err;

        memset(&o, 0, sizeof o);
        HS_ASSERT_I64_EQ(hs_kineto_read(files[i], &o, &whole, &err), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
        CU_ASSERT(whole->n_steps >= 2);
        for (k = 0; k < 6 * sizeof budgets / sizeof budgets[0]; k++) {
            hs_rank_t *bat = NULL;

            ic_batch_opts(&o, budgets, k);
            HS_ASSERT_I64_EQ(hs_kineto_read(files[i], &o, &bat, &err),
                             HS_OK);
            CU_ASSERT_PTR_NOT_NULL_FATAL(bat);
            CU_ASSERT_EQUAL(bat->spill != NULL, o.rec_mem_bytes == 1);
            CU_ASSERT_EQUAL(bat->steps == NULL, o.rec_mem_bytes == 1);
            ic_same_record(whole, bat, 0);
            assert_ops_sum(bat);
            hs_rank_free(bat);
        }
        hs_rank_free(whole);
    }
}

/* The steps of ingestions a (in memory) and b (spilled) agree, read
   forward and then from the last back to the first. */
static void same_steps(hs_ingest_t *a, hs_ingest_t *b)
{
    size_t i, j, back;
    hs_error_t err;

    HS_ASSERT_I64_EQ(hs_ingest_n_files(a), hs_ingest_n_files(b));
    for (i = 0; i < hs_ingest_n_files(a); i++) {
        const hs_ingest_file_t *fa = hs_ingest_file(a, i);
        const hs_ingest_file_t *fb = hs_ingest_file(b, i);
        CU_ASSERT_PTR_NOT_NULL(fa->steps);
        CU_ASSERT_PTR_NULL(fb->steps);
        HS_ASSERT_I64_EQ(fa->n_steps, fb->n_steps);
        for (back = 0; back < 2; back++)
            for (j = 0; j < fa->n_steps; j++) {
                size_t at = back ? fa->n_steps - 1 - j : j;
                const hs_ingest_step_t *s = hs_ingest_file_step(b, i, at,
                                                                &err);
                CU_ASSERT_PTR_NOT_NULL_FATAL(s);
                CU_ASSERT_EQUAL(memcmp(s, &fa->steps[at], sizeof *s), 0);
            }
        CU_ASSERT_PTR_NULL(hs_ingest_file_step(b, i, fa->n_steps, &err));
    }
}

/* Every trace's steps past the record's budget (rec_mem_bytes 1: all
   spilled to the temporary file): the profile, the robust figures, the
   notes and the per-step tables are the in-memory ones, for each
   statistic and warm-up, on device, CPU and sidecar-payload traces. */
static void test_steps_spilled_issue32(void)
{
    static const char *const resnet[] = {REAL "nccl-2rank-resnet.json.gz"};
    static const char *const dl[] = {REAL "nccl-2rank-dataloader.json.gz"};
    static const char *const legacy[] = {DATA "legacy-rank0.json.gz",
                                         DATA "legacy-rank1.json.gz"};
    static const struct {
        const char *const *paths;
        size_t n;
        unsigned warmup;
        int sidecar;
    } cases[] = {{resnet, 1, 0, 0}, {dl, 1, 0, 0}, {dl, 1, 2, 0},
                 {legacy, 2, 0, 1}, {legacy, 2, 20, 1}};
    size_t c, st, ph, k, na, nb, notes = 0;

    for (c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (st = 0; st < 3; st++) {
            hs_ingest_opts_t o;
            hs_profile_t pa, pb;
            hs_ingest_t *a, *b;
            const char *const *va, *const *vb;

            hs_ingest_opts_default(&o);
            o.warmup = cases[c].warmup;
            o.stat = (hs_ingest_stat_t)st;
            o.sidecar = cases[c].sidecar ? DATA "legacy.sidecar.json" : NULL;
            a = ic_ingest_all(cases[c].paths, cases[c].n, &o, &pa);
            o.rec_mem_bytes = 1;
            b = ic_ingest_all(cases[c].paths, cases[c].n, &o, &pb);
            ic_same_profile(&pa, &pb);
            for (ph = 0; ph < HS_INGEST_PH_N; ph++)
                CU_ASSERT_EQUAL(memcmp(hs_ingest_robust(a, (unsigned)ph),
                                       hs_ingest_robust(b, (unsigned)ph),
                                       sizeof(hs_ingest_robust_t)), 0);
            va = hs_ingest_notes(a, &na);
            vb = hs_ingest_notes(b, &nb);
            HS_ASSERT_I64_EQ(na, nb);
            notes += na;
            for (k = 0; k < na && k < nb; k++)
                CU_ASSERT_STRING_EQUAL(va[k], vb[k]);
            same_steps(a, b);
            hs_profile_clear(&pa);
            hs_profile_clear(&pb);
            hs_ingest_free(a);
            hs_ingest_free(b);
        }
    CU_ASSERT(notes > 0);   /* some notes were compared */
}

/* No place for the spilled steps (TMPDIR a missing folder): a clear
   error naming the trace and the folder, and the ingestion as it was. */
static void test_steps_spill_fails_issue32(void)
{
    const char *old = getenv("TMPDIR");
    char *keep = old != NULL ? strdup(old) : NULL;
    hs_ingest_opts_t o;
    hs_ingest_t *ing;
    hs_error_t err;

    hs_ingest_opts_default(&o);
    o.warmup = 0;
    o.rec_mem_bytes = 1;
    ing = hs_ingest_new(&o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ing);
    setenv("TMPDIR", "/nonexistent-hetsim-dir", 1);
    HS_ASSERT_I64_EQ(hs_ingest_add_file(ing, REAL "nccl-2rank-resnet.json.gz",
                                        &err), HS_ERR_IO);
    if (keep != NULL)
        setenv("TMPDIR", keep, 1);
    else
        unsetenv("TMPDIR");
    free(keep);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nccl-2rank-resnet.json.gz"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "temporary file for the "
                                           "trace's steps"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent-hetsim-dir"));
    HS_ASSERT_I64_EQ(hs_ingest_n_files(ing), 0);
    /* and with a place for them, the same ingestion reads the trace */
    HS_ASSERT_I64_EQ(hs_ingest_add_file(ing, REAL "nccl-2rank-resnet.json.gz",
                                        &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_ingest_n_files(ing), 1);
    CU_ASSERT_PTR_NULL(hs_ingest_file(ing, 0)->steps);
    hs_ingest_free(ing);
}

/* ------------------------------------------------------------------ */
/* The old reader's profiles                                             */

/* text with the "fwd_ops:" block (its "- " lines) taken out, in place. */
static void strip_fwd_ops(char *text)
{
    char *p = strstr(text, "\nfwd_ops:\n");
    char *q;

    if (p == NULL)
        return;
    q = p + strlen("\nfwd_ops:");
    while (strncmp(q, "\n- ", 3) == 0) {
        q = strchr(q + 1, '\n');
        if (q == NULL)
            return;
    }
    memmove(p, q, strlen(q) + 1);
}

static void test_reference_profiles(void)
{
    static const struct {
        const char *ref;
        const char *args[8];
    } cases[] = {
        {"w0-resnet", {"--warmup", "0", REAL "nccl-2rank-resnet.json.gz"}},
        {"w0-dl", {"--warmup", "0", REAL "nccl-2rank-dataloader.json.gz"}},
        {"w2-dl", {"--warmup", "2", REAL "nccl-2rank-dataloader.json.gz"}},
        {"w0-rocm", {"--warmup", "0", "--sidecar", DATA "legacy.sidecar.json",
                     REAL "rocm-mi250-train.json.gz"}},
        {"w0-legacy", {"--warmup", "0", "--sidecar", DATA "legacy.sidecar.json",
                       DATA "legacy-rank0.json.gz",
                       DATA "legacy-rank1.json.gz"}},
        {"w20-legacy", {"--sidecar", DATA "legacy.sidecar.json",
                        DATA "legacy-rank0.json.gz",
                        DATA "legacy-rank1.json.gz"}},
    };
    const char *dir = hs_test_tmpdir("ingest-onepass-ref");
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[1024], ref[1024];
        const char **a = (const char **)cases[i].args;
        char *got, *want;
        hs_run_t r;

        snprintf(out, sizeof out, "%s/X.yaml", dir);
        snprintf(ref, sizeof ref, "%sreference/%s.yaml", DATA, cases[i].ref);
        /* the argument list ends at the first NULL: -o goes in front */
        hs_run_hetsim(&r, "ingest", "--type", "X", "-o", out, a[0], a[1],
                      a[2], a[3], a[4], a[5], a[6], a[7], NULL);
        HS_ASSERT_I64_EQ(r.status, 0);
        hs_run_free(&r);
        got = hs_test_slurp(out);
        want = hs_test_slurp(ref);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_PTR_NOT_NULL_FATAL(want);
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "\nfwd_ops:\n"));
        strip_fwd_ops(got);
        if (strcmp(got, want) != 0)
            fprintf(stderr, "\n%s:\n--- got\n%s--- want\n%s", cases[i].ref,
                    got, want);
        CU_ASSERT_STRING_EQUAL(got, want);
        free(got);
        free(want);
        unlink(out);
    }
}

/* ------------------------------------------------------------------ */
/* fwd_ops by hand                                                       */

/* A legacy CPU trace (times in us): step [0, 1000); DataLoader
   [10, 110): the forward starts at 110; the first backward operator at
   700: t_fwd 590 us.  Operators: A [120, 300) holds B [150, 200) (not
   top-level); C [350, 500); D [480, 600) overlaps C: clipped to
   [500, 600); E starts at 650, runs past the backward's start: [650,
   700); a second "aten::C" [690, 695) inside E.  So A 180, C 150, D
   100, E 50, and the gaps (110-120, 300-350, 600-650) 110 us the other:
   590 in all.  Another thread's operator F [130, 140) is not the
   forward's; G [720, 730) is the backward's. */
static const char hs__cpu_trace[] =
    "[\n"
    "{\"name\": \"ProfilerStep#0\", \"ph\": \"X\", \"ts\": 0, \"dur\": 1000,"
    " \"pid\": 1, \"tid\": 1},\n"
    "{\"name\": \"enumerate(DataLoader)#_Iter.__next__\", \"ph\": \"X\","
    " \"ts\": 10, \"dur\": 100, \"pid\": 1, \"tid\": 1},\n"
    "{\"name\": \"aten::B\", \"ph\": \"X\", \"ts\": 150, \"dur\": 50,"
    " \"pid\": 1, \"tid\": 1},\n"
    "{\"name\": \"aten::A\", \"ph\": \"X\", \"ts\": 120, \"dur\": 180,"
    " \"pid\": 1, \"tid\": 1},\n"
    "{\"name\": \"aten::C\", \"ph\": \"X\", \"ts\": 350, \"dur\": 150,"
    " \"pid\": 1, \"tid\": 1},\n"
    "{\"name\": \"aten::D\", \"ph\": \"X\", \"ts\": 480, \"dur\": 120,"
    " \"pid\": 1, \"tid\": 1},\n"
    "{\"name\": \"aten::C\", \"ph\": \"X\", \"ts\": 690, \"dur\": 5,"
    " \"pid\": 1, \"tid\": 1},\n"
    "{\"name\": \"aten::E\", \"ph\": \"X\", \"ts\": 650, \"dur\": 100,"
    " \"pid\": 1, \"tid\": 1},\n"
    "{\"name\": \"aten::F\", \"ph\": \"X\", \"ts\": 130, \"dur\": 10,"
    " \"pid\": 1, \"tid\": 2},\n"
    "{\"name\": \"autograd::engine::evaluate_function: XBackward0\","
    " \"ph\": \"X\", \"ts\": 700, \"dur\": 50, \"pid\": 1, \"tid\": 2},\n"
    "{\"name\": \"aten::G\", \"ph\": \"X\", \"ts\": 720, \"dur\": 10,"
    " \"pid\": 1, \"tid\": 1}\n"
    "]\n";

/* A Kineto trace with kernels (us): step [0, 1000) on thread 1; the
   backward starts at 600.  aten::linear [100, 200) launches corr 1 at
   150 (kernel 20 us); aten::relu [300, 400) corr 2 at 350 (30 us) and
   corr 5 at 360 (a communication kernel: not compute); thread 2
   launches corr 3 at 450 (7 us): the forward's, no operator's; the
   backward's launch at 610, corr 4 (50 us).  t_fwd 57 us: linear 20,
   relu 30, other 7. */
static const char hs__gpu_trace[] =
    "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 2},\n"
    " \"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
    "\"ProfilerStep#3\", \"pid\": 9, \"tid\": 1, \"ts\": 0, \"dur\": 1000},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\","
    " \"pid\": 9, \"tid\": 1, \"ts\": 100, \"dur\": 100},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
    "\"cudaLaunchKernel\", \"pid\": 9, \"tid\": 1, \"ts\": 150, \"dur\": 5,"
    " \"args\": {\"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::relu\","
    " \"pid\": 9, \"tid\": 1, \"ts\": 300, \"dur\": 100},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
    "\"cudaLaunchKernel\", \"pid\": 9, \"tid\": 1, \"ts\": 350, \"dur\": 5,"
    " \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
    "\"cudaLaunchKernel\", \"pid\": 9, \"tid\": 1, \"ts\": 360, \"dur\": 5,"
    " \"args\": {\"correlation\": 5}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
    "\"cudaLaunchKernel\", \"pid\": 9, \"tid\": 2, \"ts\": 450, \"dur\": 5,"
    " \"args\": {\"correlation\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
    "\"autograd::engine::evaluate_function: AddmmBackward0\","
    " \"pid\": 9, \"tid\": 2, \"ts\": 600, \"dur\": 100},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
    "\"cudaLaunchKernel\", \"pid\": 9, \"tid\": 2, \"ts\": 610, \"dur\": 5,"
    " \"args\": {\"correlation\": 4}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0,"
    " \"tid\": 7, \"ts\": 160, \"dur\": 20, \"args\": {\"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"relu_k\", \"pid\": 0,"
    " \"tid\": 7, \"ts\": 360, \"dur\": 30, \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllReduce\","
    " \"pid\": 0, \"tid\": 7, \"ts\": 370, \"dur\": 400,"
    " \"args\": {\"correlation\": 5}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"copy_k\", \"pid\": 0,"
    " \"tid\": 7, \"ts\": 460, \"dur\": 7, \"args\": {\"correlation\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_bwd\", \"pid\": 0,"
    " \"tid\": 7, \"ts\": 620, \"dur\": 50, \"args\": {\"correlation\": 4}}\n"
    "]}\n";

/* The entry of name in step i of r, or -1. */
static int64_t op_ns(const hs_rank_t *r, size_t i, const char *name)
{
    size_t j;

    for (j = 0; j < r->fwd_ops[i].n; j++)
        if (strcmp(r->op_names[r->fwd_ops[i].name[j]], name) == 0)
            return r->fwd_ops[i].ns[j];
    return -1;
}

static void test_fwd_ops_by_hand(void)
{
    const char *dir = hs_test_tmpdir("ingest-onepass-ops");
    char cpu[1024], gpu[1024];
    hs_kineto_opts_t o;
    hs_rank_t *r = NULL;
    hs_error_t err;

    snprintf(cpu, sizeof cpu, "%s/cpu.json", dir);
    snprintf(gpu, sizeof gpu, "%s/gpu.json", dir);
    CU_ASSERT_EQUAL_FATAL(hs_test_write(cpu, hs__cpu_trace), 0);
    CU_ASSERT_EQUAL_FATAL(hs_test_write(gpu, hs__gpu_trace), 0);
    memset(&o, 0, sizeof o);
    HS_ASSERT_I64_EQ(hs_kineto_read(cpu, &o, &r, &err), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->n_steps, 1);
    CU_ASSERT_FALSE(r->gpu);
    HS_ASSERT_I64_EQ(r->steps[0].t_fwd_ns, 590000);
    HS_ASSERT_I64_EQ(r->fwd_ops[0].n, 5);
    HS_ASSERT_I64_EQ(op_ns(r, 0, "aten::A"), 180000);
    HS_ASSERT_I64_EQ(op_ns(r, 0, "aten::C"), 150000);
    HS_ASSERT_I64_EQ(op_ns(r, 0, "aten::D"), 100000);
    HS_ASSERT_I64_EQ(op_ns(r, 0, "aten::E"), 50000);
    HS_ASSERT_I64_EQ(op_ns(r, 0, HS_RANK_OP_OTHER), 110000);
    HS_ASSERT_I64_EQ(op_ns(r, 0, "aten::B"), -1);
    HS_ASSERT_I64_EQ(op_ns(r, 0, "aten::F"), -1);
    HS_ASSERT_I64_EQ(op_ns(r, 0, "aten::G"), -1);
    /* in the order they first ran */
    CU_ASSERT_STRING_EQUAL(r->op_names[r->fwd_ops[0].name[0]], "aten::A");
    hs_rank_free(r);
    r = NULL;
    HS_ASSERT_I64_EQ(hs_kineto_read(gpu, &o, &r, &err), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_TRUE(r->gpu);
    HS_ASSERT_I64_EQ(r->steps[0].t_fwd_ns, 57000);
    HS_ASSERT_I64_EQ(r->fwd_ops[0].n, 3);
    HS_ASSERT_I64_EQ(op_ns(r, 0, "aten::linear"), 20000);
    HS_ASSERT_I64_EQ(op_ns(r, 0, "aten::relu"), 30000);
    HS_ASSERT_I64_EQ(op_ns(r, 0, HS_RANK_OP_OTHER), 7000);
    hs_rank_free(r);
    unlink(cpu);
    unlink(gpu);
}

/* The profile's fwd_ops add up to t_fwd, also when t_fwd is a median. */
static void test_fwd_ops_profile(void)
{
    static const hs_ingest_stat_t stats[] = {HS_INGEST_STAT_MEAN,
                                             HS_INGEST_STAT_MEDIAN};
    size_t k;

    for (k = 0; k < 2; k++) {
        hs_ingest_opts_t o;
        hs_ingest_t *ing;
        hs_error_t err;
        hs_profile_t p;
        size_t i;
        int64_t sum = 0;

        hs_ingest_opts_default(&o);
        o.warmup = 1;
        o.stat = stats[k];
        ing = hs_ingest_new(&o);
        HS_ASSERT_I64_EQ(hs_ingest_add_file(
                             ing, REAL "nccl-2rank-dataloader.json.gz", &err),
                         HS_OK);
        HS_ASSERT_I64_EQ(hs_ingest_profile(ing, &p, &err), HS_OK);
        CU_ASSERT(p.n_fwd_ops > 5);
        for (i = 0; i < p.n_fwd_ops; i++)
            sum += p.fwd_ops_ns[i];
        HS_ASSERT_I64_EQ(sum, p.t_fwd.mean_ns);
        hs_profile_clear(&p);
        hs_ingest_free(ing);
    }
}

/* ------------------------------------------------------------------ */
/* Robust figures by hand                                                */

/* A Kineto CPU trace of rank `rank` (world 2) whose steps' forwards last
   fwd_us[0, n) us: step k at k ms, the backward at its start + fwd. */
static void write_steps_trace(const char *path, int rank,
                              const int *fwd_us, size_t n)
{
    FILE *f = fopen(path, "w");
    size_t k;

    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2},\n"
               " \"traceEvents\": [\n", rank);
    for (k = 0; k < n; k++) {
        long s = (long)k * 1000;
        fprintf(f,
                "%s{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                "\"ProfilerStep#%zu\", \"pid\": 1, \"tid\": 1, \"ts\": %ld, "
                "\"dur\": 900},\n"
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                "\"autograd::engine::evaluate_function: XBackward0\", "
                "\"pid\": 1, \"tid\": 1, \"ts\": %ld, \"dur\": 10},\n"
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                "\"record_param_comms\", \"pid\": 1, \"tid\": 1, \"ts\": "
                "%ld, \"dur\": 1, \"args\": {\"Collective name\": "
                "\"allreduce\", \"In msg nelems\": 100, \"dtype\": "
                "\"Float\"}}",
                k ? ",\n" : "", k, s, s + fwd_us[k], s + fwd_us[k] + 20);
    }
    fprintf(f, "\n]}\n");
    fclose(f);
}

static void test_robust_by_hand(void)
{
    /* rank 0: 1..9 and an outlier 100 (us); mean 14.5, median 5.5 (the
       middle two's mean), trimmed (1 off each end) mean of 2..9 = 5.5.
       rank 1: 10, 20, 40: mean 23.333, median 20, trimmed (0 off: 10%
       of 3 is 0) 23.333.  Over the ranks: mean 18.9167 us, median
       12.75 us, trimmed 14.4167 us. */
    static const int r0[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 100};
    static const int r1[] = {10, 20, 40};
    const char *dir = hs_test_tmpdir("ingest-onepass-robust");
    char a[1024], b[1024];
    static const hs_ingest_stat_t stats[] = {
        HS_INGEST_STAT_MEAN, HS_INGEST_STAT_MEDIAN, HS_INGEST_STAT_TRIMMED};
    static const int64_t want[] = {18917, 12750, 14417};
    size_t k;

    snprintf(a, sizeof a, "%s/r0.json", dir);
    snprintf(b, sizeof b, "%s/r1.json", dir);
    write_steps_trace(a, 0, r0, 10);
    write_steps_trace(b, 1, r1, 3);
    for (k = 0; k < 3; k++) {
        hs_ingest_opts_t o;
        hs_ingest_t *ing;
        hs_error_t err;
        hs_profile_t p;
        const hs_ingest_robust_t *rb;

        hs_ingest_opts_default(&o);
        o.warmup = 0;
        o.stat = stats[k];
        ing = hs_ingest_new(&o);
        HS_ASSERT_I64_EQ(hs_ingest_add_file(ing, a, &err), HS_OK);
        HS_ASSERT_I64_EQ(hs_ingest_add_file(ing, b, &err), HS_OK);
        HS_ASSERT_I64_EQ(hs_ingest_profile(ing, &p, &err), HS_OK);
        rb = hs_ingest_robust(ing, HS_INGEST_PH_FWD);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
        CU_ASSERT_TRUE(rb->known);
        HS_ASSERT_I64_EQ(rb->n_samples, 13);
        HS_ASSERT_I64_EQ(rb->mean_ns, 18917);
        HS_ASSERT_I64_EQ(rb->median_ns, 12750);
        HS_ASSERT_I64_EQ(rb->trimmed_ns, 14417);
        /* the profile's t_fwd is the chosen one; the samples stay */
        HS_ASSERT_I64_EQ(p.t_fwd.mean_ns, want[k]);
        HS_ASSERT_I64_EQ(p.t_fwd.n_samples, 13);
        HS_ASSERT_I64_EQ(p.t_fwd.samples_ns[9], 100000);
        CU_ASSERT_PTR_NULL(hs_ingest_robust(ing, HS_INGEST_PH_N));
        hs_profile_clear(&p);
        hs_ingest_free(ing);
    }
    {
        hs_run_t r;
        hs_run_hetsim(&r, "ingest", "--summary", "--warmup", "0", "--stat",
                      "trimmed", a, b, NULL);
        HS_ASSERT_I64_EQ(r.status, 0);
        HS_ASSERT_STR_CONTAINS(r.out, "median 12.750 us");
        HS_ASSERT_STR_CONTAINS(r.out, "trimmed mean 14.417 us");
        hs_run_free(&r);
        hs_run_hetsim(&r, "ingest", "--summary", "--stat", "mode", a, NULL);
        HS_ASSERT_I64_EQ(r.status, 2);
        hs_run_free(&r);
    }
    unlink(a);
    unlink(b);
}

/* ------------------------------------------------------------------ */
/* A sidecar per rank                                                    */

static const char hs__sc_head[] =
    "{\"hetsim_sidecar\": 1, \"world_size\": %s, \"grad_bytes\": "
    "1138728, "
    "\"bucket_bytes\": [1071144, 67584], \"hop_probe\": {\"hops\": 2, "
    "\"idle_ns\": [60000000], \"beside_ns\": [%s]}, \"cpu_quota\": "
    "{\"cores\": %s, \"period_ns\": 10000000}}\n";

static void put_sidecar(char *path, size_t cap, const char *dir,
                        const char *name, const char *world,
                        const char *beside, const char *cores)
{
    char text[1024];

    snprintf(path, cap, "%s/%s", dir, name);
    snprintf(text, sizeof text, hs__sc_head, world, beside, cores);
    CU_ASSERT_EQUAL(hs_test_write(path, text), 0);
}

static void test_sidecar_per_rank(void)
{
    const char *dir = hs_test_tmpdir("ingest-onepass-sidecar");
    char s0[1024], s1[1024], bad[1024], d0[1024], d1[1024];
    const char *t0 = DATA "legacy-rank0.json.gz",
               *t1 = DATA "legacy-rank1.json.gz";
    hs_ingest_opts_t o;
    hs_ingest_t *ing;
    hs_error_t err;
    hs_profile_t p, q;
    hs_run_t r;

    /* hop waits 15 ms and 5 ms, quotas 0.3 and 0.5: 10 ms, 0.4 cores */
    put_sidecar(s0, sizeof s0, dir, "s0.json", "2", "90000000", "0.3");
    put_sidecar(s1, sizeof s1, dir, "s1.json", "2", "70000000", "0.5");
    put_sidecar(bad, sizeof bad, dir, "bad.json", "3", "70000000", "0.5");
    hs_ingest_opts_default(&o);
    o.warmup = 5;
    ing = hs_ingest_new(&o);
    HS_ASSERT_I64_EQ(hs_ingest_add_file_sidecar(ing, t0, s0, &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_ingest_add_file_sidecar(ing, t1, s1, &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_ingest_profile(ing, &p, &err), HS_OK);
    HS_ASSERT_I64_EQ(p.t_hop_wait_ns, 10000000);
    CU_ASSERT_DOUBLE_EQUAL(p.cpu_quota_cores, 0.4, 1e-12);
    HS_ASSERT_I64_EQ(p.ar_source, HS_AR_SIDECAR);
    hs_ingest_free(ing);
    /* the same sidecar for both ranks, given per rank or once: the same
       profile */
    o.sidecar = s0;
    ing = hs_ingest_new(&o);
    HS_ASSERT_I64_EQ(hs_ingest_add_file(ing, t0, &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_ingest_add_file(ing, t1, &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_ingest_profile(ing, &q, &err), HS_OK);
    HS_ASSERT_I64_EQ(q.t_hop_wait_ns, 15000000);
    /* mixing the two forms */
    HS_ASSERT_I64_EQ(hs_ingest_add_file_sidecar(ing, t1, s1, &err),
                     HS_ERR_TRACE);
    hs_ingest_free(ing);
    o.sidecar = NULL;
    ing = hs_ingest_new(&o);
    HS_ASSERT_I64_EQ(hs_ingest_add_file_sidecar(ing, t0, s0, &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_ingest_add_file_sidecar(ing, t1, s0, &err), HS_OK);
    {
        hs_profile_t q2;
        size_t i;
        HS_ASSERT_I64_EQ(hs_ingest_profile(ing, &q2, &err), HS_OK);
        HS_ASSERT_I64_EQ(q2.t_hop_wait_ns, q.t_hop_wait_ns);
        CU_ASSERT_DOUBLE_EQUAL(q2.cpu_quota_cores, q.cpu_quota_cores, 0);
        HS_ASSERT_I64_EQ(q2.t_fwd.mean_ns, q.t_fwd.mean_ns);
        HS_ASSERT_I64_EQ(q2.t_bwd.mean_ns, q.t_bwd.mean_ns);
        HS_ASSERT_I64_EQ(q2.ar_bytes, q.ar_bytes);
        HS_ASSERT_I64_EQ(q2.n_buckets, q.n_buckets);
        for (i = 0; i < q.n_buckets && i < q2.n_buckets; i++) {
            HS_ASSERT_I64_EQ(q2.buckets[i].bytes, q.buckets[i].bytes);
            HS_ASSERT_I64_EQ(q2.buckets[i].ready_ns, q.buckets[i].ready_ns);
        }
        hs_profile_clear(&q2);
    }
    hs_profile_clear(&q);
    hs_ingest_free(ing);
    hs_profile_clear(&p);
    /* sidecars that disagree on the sub-system: an error naming the key;
       the ingestion is left as it was */
    ing = hs_ingest_new(&o);
    HS_ASSERT_I64_EQ(hs_ingest_add_file_sidecar(ing, t0, s0, &err), HS_OK);
    HS_ASSERT_I64_EQ(hs_ingest_add_file_sidecar(ing, t1, bad, &err),
                     HS_ERR_TRACE);
    HS_ASSERT_STR_CONTAINS(err.msg, "world_size");
    HS_ASSERT_I64_EQ(hs_ingest_n_files(ing), 1);
    /* a rank without its sidecar after one with */
    HS_ASSERT_I64_EQ(hs_ingest_add_file(ing, t1, &err), HS_ERR_TRACE);
    hs_ingest_free(ing);
    /* the CLI: once per trace, a directory, a count that fits neither */
    hs_run_hetsim(&r, "ingest", "--summary", "--warmup", "5", "--sidecar",
                  s0, "--sidecar", s1, t0, t1, NULL);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.err, "hop wait 10.000 ms");
    hs_run_free(&r);
    snprintf(d0, sizeof d0, "%s/legacy-rank0.sidecar.json", dir);
    snprintf(d1, sizeof d1, "%s/legacy-rank1.sidecar.json", dir);
    CU_ASSERT_EQUAL(rename(s0, d0), 0);
    CU_ASSERT_EQUAL(rename(s1, d1), 0);
    hs_run_hetsim(&r, "ingest", "--summary", "--warmup", "5", "--sidecar",
                  dir, t0, t1, NULL);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.err, "hop wait 10.000 ms");
    hs_run_free(&r);
    hs_run_hetsim(&r, "ingest", "--summary", "--sidecar", d0, "--sidecar",
                  d1, "--sidecar", d1, t0, t1, NULL);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);
    unlink(d0);
    unlink(d1);
    unlink(bad);
}

/* ------------------------------------------------------------------ */
/* The main thread and its windows                                      */

/* A legacy trace's ProfilerStep window or micro-batch mark (us). */
#define HS__W(name, tid, ts, dur)                                        \
    "{\"name\": \"" name "\", \"ph\": \"X\", \"ts\": " #ts               \
    ", \"dur\": " #dur ", \"pid\": 1, \"tid\": " #tid "},\n"

/* The last event of those traces, and their end. */
#define HS__END                                                          \
    "{\"name\": \"aten::x\", \"ph\": \"X\", \"ts\": 0, \"dur\": 1,"      \
    " \"pid\": 1, \"tid\": 3}\n]\n"

/* Threads 1 and 2 with two windows each, thread 2's read first and out
   of time order; micro-batch marks on both threads.  The caller adds
   the rest (HS__END, or a third window of thread 1 then HS__END). */
static const char hs__thr_head[] =
    "[\n" HS__W("ProfilerStep#5", 2, 5000, 900)
        HS__W("ProfilerStep#4", 2, 4000, 800)
        HS__W("ProfilerStep#1", 1, 0, 1000)
        HS__W("ProfilerStep#2", 1, 1000, 1000)
        HS__W("hetsim.micro_batch#1", 2, 5300, 10)
        HS__W("hetsim.micro_batch#0", 2, 5000, 10)
        HS__W("hetsim.micro_batch#0", 1, 4100, 10)
        HS__W("hetsim.micro_batch#1", 1, 4400, 10)
        HS__W("hetsim.micro_batch#0", 1, 1000, 10)
        HS__W("hetsim.micro_batch#1", 1, 1500, 10);

/* Reads trace path with the record in memory or spilled
   (rec_mem_bytes), batches of 1 step or all (step_batch), the windows
   read and the other records in memory or spilled (log_mem_bytes), in
   every combination; checks n steps of
   numbers num[], starts start_us[] and micro-batch counts nmb[]. */
static void check_windows(const char *path, size_t n, const long *num,
                          const int64_t *start_us, const unsigned *nmb)
{
    int k;

    for (k = 0; k < 8; k++) {
        hs_kineto_opts_t o;
        hs_rank_t *r = NULL;
        hs_rank_cur_t c;
        hs_error_t err;
        size_t i;

        ic_spill_opts(&o, k);
        HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &r, &err), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->n_steps, n);
        memset(&c, 0, sizeof c);
        for (i = 0; i < n && i < r->n_steps; i++) {
            HS_ASSERT_I64_EQ(hs_rank_at(r, i, &c, &err), HS_OK);
            CU_ASSERT_PTR_NOT_NULL_FATAL(c.step);
            HS_ASSERT_I64_EQ(c.step->number, num[i]);
            HS_ASSERT_I64_EQ(c.step->start_ns, start_us[i] * 1000);
            HS_ASSERT_I64_EQ(c.step->micro_batches, nmb[i]);
        }
        hs_rank_cur_clear(&c);
        hs_rank_free(r);
    }
}

/* The main thread is the one with most ProfilerStep windows, a tie
   going to the thread of the window read first; its windows are taken
   in time order whatever the file's order, and only its micro-batch
   marks count (one mark: a single micro-batch). */
static void test_main_thread_windows_issue32(void)
{
    const char *dir = hs_test_tmpdir("ingest-onepass-thr");
    char path[1024], text[4096];
    static const long num2[] = {4, 5}, num1[] = {1, 2, 3};
    static const int64_t st2[] = {4000, 5000}, st1[] = {0, 1000, 2000};
    static const unsigned mb2[] = {1, 2}, mb1[] = {1, 2, 1};

    snprintf(path, sizeof path, "%s/thr.json", dir);
    /* a tie: thread 2's window came first */
    snprintf(text, sizeof text, "%s%s", hs__thr_head,
             HS__END);
    CU_ASSERT_EQUAL_FATAL(hs_test_write(path, text), 0);
    check_windows(path, 2, num2, st2, mb2);
    /* a third window for thread 1, before its others in time */
    snprintf(text, sizeof text, "%s%s", hs__thr_head,
             HS__W("ProfilerStep#3", 1, 2000, 1000)
                 HS__END);
    CU_ASSERT_EQUAL_FATAL(hs_test_write(path, text), 0);
    check_windows(path, 3, num1, st1, mb1);
    unlink(path);
}

/* The micro-batch marks of several steps written out of time order (the
   last step's first, then the first's, then the middle one's, one of
   them on another thread): each step gets its own, counted in every
   way of check_windows (the marks are taken per batch of steps and
   sorted by time). */
static void test_mb_marks_out_of_order_issue32(void)
{
    const char *dir = hs_test_tmpdir("ingest-onepass-mbo");
    char path[1024];
    static const long num[] = {1, 2, 3};
    static const int64_t st[] = {0, 1000, 2000};
    static const unsigned nmb[] = {2, 1, 3};

    snprintf(path, sizeof path, "%s/mbo.json", dir);
    CU_ASSERT_EQUAL_FATAL(
        hs_test_write(path,
                      "[\n" HS__W("ProfilerStep#1", 1, 0, 900)
                          HS__W("ProfilerStep#2", 1, 1000, 900)
                          HS__W("ProfilerStep#3", 1, 2000, 900)
                          HS__W("hetsim.micro_batch#2", 1, 2600, 10)
                          HS__W("hetsim.micro_batch#0", 1, 2100, 10)
                          HS__W("hetsim.micro_batch#1", 1, 2300, 10)
                          HS__W("hetsim.micro_batch#1", 1, 400, 10)
                          HS__W("hetsim.micro_batch#0", 1, 100, 10)
                          HS__W("hetsim.micro_batch#0", 2, 1100, 10)
                          HS__W("hetsim.micro_batch#1", 2, 1400, 10)
                          HS__END), 0);
    check_windows(path, 3, num, st, nmb);
    unlink(path);
}

/* Windows that the settled steps' compact form (a 32-bit length, the
   numbers that follow the previous one's + 1 left out) must keep
   exactly: lengths past 2^32 ns (6 s, 5 s, 4.294968 s) and just under
   (4.294967 s), a clipped window, numbers that jump, repeat, go back,
   reach LONG_MAX and start again at 0. */
#define HS__WX_HEAD                                                      \
    "[\n" HS__W("ProfilerStep#7", 1, 0, 1000)                            \
        HS__W("ProfilerStep#8", 1, 1000, 6000000)                        \
        HS__W("ProfilerStep#9", 1, 6001000, 2000)                        \
        HS__W("ProfilerStep#12", 1, 6002500, 100)                        \
        HS__W("ProfilerStep#12", 1, 6003000, 100)                        \
        HS__W("ProfilerStep#3", 1, 6004000, 5000000)                     \
        HS__W("ProfilerStep#9223372036854775807", 1, 11004000, 10)

/* Reads path in check_windows' eight ways; checks the steps' numbers,
   starts and lengths against the windows of HS__WX_HEAD (then #0 and #1)
   and the one clip's note. */
static void check_long_windows(const char *path)
{
    static const long num[] = {7, 8, 9, 12, 12, 3, LONG_MAX, 0, 1};
    static const int64_t st[] = {0, 1000, 6001000, 6002500, 6003000,
                                 6004000, 11004000, 11005000, 20000000};
    static const int64_t dur[] = {1000, 6000000, 1500, 100, 100,
                                  5000000, 10, 4294967, 4294968};
    size_t n = sizeof num / sizeof num[0];
    int k;

    for (k = 0; k < 8; k++) {
        hs_kineto_opts_t o;
        hs_notes_t notes = {0, NULL};
        hs_rank_t *r = NULL;
        hs_rank_cur_t c;
        hs_error_t err;
        size_t i;

        ic_spill_opts(&o, k);
        o.notes = &notes;
        HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &r, &err), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        HS_ASSERT_I64_EQ(r->n_steps, n);
        memset(&c, 0, sizeof c);
        for (i = 0; i < n && i < r->n_steps; i++) {
            HS_ASSERT_I64_EQ(hs_rank_at(r, i, &c, &err), HS_OK);
            CU_ASSERT_PTR_NOT_NULL_FATAL(c.step);
            HS_ASSERT_I64_EQ(c.step->number, num[i]);
            HS_ASSERT_I64_EQ(c.step->start_ns, st[i] * 1000);
            HS_ASSERT_I64_EQ(c.step->dur_ns, dur[i] * 1000);
        }
        HS_ASSERT_I64_EQ(notes.n, 1);
        if (notes.n == 1)
            HS_ASSERT_STR_CONTAINS(notes.items[0], "1 ProfilerStep window "
                                                   "overlapped");
        hs_notes_clear(&notes);
        hs_rank_cur_clear(&c);
        hs_rank_free(r);
    }
}

/* The settled windows' compact form keeps every start, end and number,
   whether the file has the windows in time order or not (the last two
   swapped: found out of order after a clip, which counts once). */
static void test_window_encoding_issue32(void)
{
    const char *dir = hs_test_tmpdir("ingest-onepass-wx");
    char path[1024];

    snprintf(path, sizeof path, "%s/wx.json", dir);
    CU_ASSERT_EQUAL_FATAL(
        hs_test_write(path, HS__WX_HEAD
                      HS__W("ProfilerStep#0", 1, 11005000, 4294967)
                      HS__W("ProfilerStep#1", 1, 20000000, 4294968)
                      HS__END), 0);
    check_long_windows(path);
    CU_ASSERT_EQUAL_FATAL(
        hs_test_write(path, HS__WX_HEAD
                      HS__W("ProfilerStep#1", 1, 20000000, 4294968)
                      HS__W("ProfilerStep#0", 1, 11005000, 4294967)
                      HS__END), 0);
    check_long_windows(path);
    unlink(path);
}

/* ------------------------------------------------------------------ */
/* The settled windows spilled by blocks                                 */

/* Writes a Kineto CPU trace of n steps (rank 0 of 2) whose main thread
   (tid 1) has windows of 0.9 ms each 1 ms, with a DataLoader call, a
   forward operator, a backward operator, an all-reduce call and an
   optimizer step each, and an operator in the gap after the window;
   and the forms the settled windows must keep: numbers that jump (at
   50), a window that overlaps the next (70: clipped), one longer than
   2^32 ns (100: 5 s), two with the same start (130, 131: the first
   clipped to nothing).  Thread 2 has a window every tenth step.  swap:
   windows 200 and 201 written in the other order (out of time order:
   the windows are sorted again). */
static void write_blocks_trace(const char *path, size_t n, int swap)
{
    FILE *f = fopen(path, "w");
    long s = 1000;
    size_t k;

    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 2},\n"
               " \"traceEvents\": [\n");
    for (k = 0; k < n; k++) {
        size_t w = swap && (k == 200 || k == 201) ? 401 - k : k;
        long ws = s + (swap && k == 200 ? 1000 : swap && k == 201 ? -1000
                                                                   : 0);
        long dur = w == 70 ? 1500 : w == 100 ? 5000500 : 900;

        fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                "\"ProfilerStep#%zu\", \"pid\": 1, \"tid\": 1, \"ts\": %ld, "
                "\"dur\": %ld},\n",
                w + (w >= 50 ? 1000 : 0), ws, dur);
        if (k % 10 == 0)
            fprintf(f,
                    "{\"ph\": \"X\", \"cat\": \"user_annotation\", "
                    "\"name\": \"ProfilerStep#%zu\", \"pid\": 1, \"tid\": "
                    "2, \"ts\": %ld, \"dur\": 500},\n", k, s);
        fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                "\"enumerate(DataLoader)#_SingleProcessDataLoaderIter."
                "__next__\", \"pid\": 1, \"tid\": 1, \"ts\": %ld, \"dur\": "
                "%ld},\n"
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                "\"aten::linear\", \"pid\": 1, \"tid\": 1, \"ts\": %ld, "
                "\"dur\": %ld},\n"
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                "\"autograd::engine::evaluate_function: XBackward0\", "
                "\"pid\": 1, \"tid\": 1, \"ts\": %ld, \"dur\": 10},\n"
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                "\"record_param_comms\", \"pid\": 1, \"tid\": 1, \"ts\": "
                "%ld, \"dur\": 1, \"args\": {\"Collective name\": "
                "\"allreduce\", \"In msg nelems\": %zu, \"dtype\": "
                "\"Float\"}},\n"
                "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                "\"Optimizer.step#SGD.step\", \"pid\": 1, \"tid\": 1, "
                "\"ts\": %ld, \"dur\": 50},\n"
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                "\"aten::gap\", \"pid\": 1, \"tid\": 1, \"ts\": %ld, "
                "\"dur\": 5},\n",
                s + 10, 20 + (long)(k % 13), s + 40, 100 + (long)(k % 7),
                s + 300, s + 320, 100 + k, s + 700, s + 950);
        s += k == 100 ? 5001000 : k == 130 ? 0 : 1000;
    }
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::x\","
               " \"pid\": 1, \"tid\": 3, \"ts\": 0, \"dur\": 1}\n]}\n");
    fclose(f);
}

/* The record of write_blocks_trace's n steps (in memory) as written:
   the numbers, the long and the clipped windows, every all-reduce call
   in a step (two in 131's, which took 130's events). */
static void check_blocks_record(const hs_rank_t *r, size_t n)
{
    hs_rank_cur_t c;
    hs_error_t err;
    size_t i, n_ar = 0;

    HS_ASSERT_I64_EQ(r->n_steps, n);
    memset(&c, 0, sizeof c);
    for (i = 0; i < n && i < r->n_steps; i++) {
        HS_ASSERT_I64_EQ(hs_rank_at(r, i, &c, &err), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c.step);
        HS_ASSERT_I64_EQ(c.step->number, (long)i + (i >= 50 ? 1000 : 0));
        HS_ASSERT_I64_EQ(c.step->dur_ns, i == 100   ? 5000500000
                                         : i == 130 ? 0
                                         : i == 70  ? 1000000
                                                    : 900000);
        HS_ASSERT_I64_EQ(c.step->n_allreduce, i == 130 ? 0 : i == 131 ? 2
                                                                      : 1);
        n_ar += c.step->n_allreduce;
    }
    HS_ASSERT_I64_EQ(n_ar, n);
    hs_rank_cur_clear(&c);
}

/* The main thread's settled windows spilled to their temporary file in
   blocks of 1, 2, 4, 16 and 64 windows (log_mem_bytes 1 to 10,000), the
   phases replayed in batches of 1, 5 or all steps: the record of the
   windows in memory, every step and figure (the events' steps are found
   across the blocks' boundaries, in the gaps and in the long window),
   windows read in time order or not (then sorted again: in memory at
   10,000 bytes, else by runs of 1, 7, 12 or 62 windows merged). */
static void test_windows_blocks_issue32(void)
{
    static const size_t budgets[] = {1, 250, 400, 2000, 10000};
    static const size_t batches[] = {0, 1, 5};
    const char *dir = hs_test_tmpdir("ingest-onepass-wblk");
    char path[1024];
    size_t n = 260, i, j;
    int swap;

    hs_rank_t *refs[2] = {NULL, NULL};

    snprintf(path, sizeof path, "%s/wblk.json", dir);
    for (swap = 0; swap < 2; swap++) {
        hs_kineto_opts_t o;
        hs_rank_t *ref = NULL;
        hs_error_t err;

        write_blocks_trace(path, n, swap);
        memset(&o, 0, sizeof o);
        HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &ref, &err), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
        check_blocks_record(ref, n);
        refs[swap] = ref;
        for (i = 0; i < sizeof budgets / sizeof budgets[0]; i++)
            for (j = 0; j < sizeof batches / sizeof batches[0]; j++) {
                hs_rank_t *r = NULL;

                o.log_mem_bytes = budgets[i];
                o.step_batch = batches[j];
                HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &r, &err), HS_OK);
                CU_ASSERT_PTR_NOT_NULL_FATAL(r);
                ic_same_record(ref, r, IC_RANK);
                hs_rank_free(r);
            }
    }
    /* the same windows, sorted again */
    ic_same_record(refs[0], refs[1], IC_RANK);
    hs_rank_free(refs[0]);
    hs_rank_free(refs[1]);
    unlink(path);
}

/* check_rank's hook for test_windows_unreadable_issue32: truncates the
   reader's temporary file of settled windows (found among the process's
   open files by its name), counting it in *ctx. */
static hs_err_t cut_windows(void *ctx, const hs_rank_t *r, hs_error_t *err)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;

    (void)r;
    (void)err;
    if (d == NULL)
        return HS_OK;
    while ((de = readdir(d)) != NULL) {
        char link[4096];
        ssize_t len = readlinkat(dirfd(d), de->d_name, link,
                                 sizeof link - 1);

        if (len <= 0)
            continue;
        link[len] = '\0';
        if (strstr(link, "/hetsim-windows-") != NULL &&
            ftruncate(atoi(de->d_name), 0) == 0)
            ++*(int *)ctx;
    }
    closedir(d);
    return HS_OK;
}

/* Spilled windows that cannot be read back (their file cut short after
   the windows are settled): the read fails with a clear error naming
   the trace, not a record of wrong steps. */
static void test_windows_unreadable_issue32(void)
{
    const char *dir = hs_test_tmpdir("ingest-onepass-wcut");
    char path[1024];
    hs_kineto_opts_t o;
    hs_rank_t *r = NULL;
    hs_error_t err;
    int cut = 0;

    {
        DIR *d = opendir("/proc/self/fd");

        if (d == NULL)
            return;     /* no /proc: no way to the file to cut */
        closedir(d);
    }
    snprintf(path, sizeof path, "%s/wcut.json", dir);
    write_blocks_trace(path, 260, 0);
    memset(&o, 0, sizeof o);
    o.log_mem_bytes = 1;
    o.check_rank = cut_windows;
    o.ctx = &cut;
    HS_ASSERT_I64_EQ(hs_kineto_read(path, &o, &r, &err), HS_ERR_IO);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_I64_EQ(cut, 1);
    HS_ASSERT_STR_CONTAINS(err.msg, "wcut.json");
    HS_ASSERT_STR_CONTAINS(err.msg, "cannot read the step windows back "
                                    "from their temporary file: short file");
    unlink(path);
}

static int register_onepass(void)
{
    CU_pSuite s = CU_add_suite("ingest one pass", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "records spilled or in memory: the same",
                    test_spill_equals_memory) == NULL ||
        CU_add_test(s, "operators by batches of steps: the same",
                    test_ops_batches_equal_whole) == NULL ||
        CU_add_test(s, "the old reader's profiles",
                    test_reference_profiles) == NULL ||
        CU_add_test(s, "fwd_ops by hand", test_fwd_ops_by_hand) == NULL ||
        CU_add_test(s, "fwd_ops add up to t_fwd", test_fwd_ops_profile) ==
            NULL ||
        CU_add_test(s, "robust figures by hand", test_robust_by_hand) ==
            NULL ||
        CU_add_test(s, "a sidecar per rank", test_sidecar_per_rank) ==
            NULL ||
        CU_add_test(s, "steps spilled: the same profile and tables",
                    test_steps_spilled_issue32) == NULL ||
        CU_add_test(s, "steps spilled: no temporary folder",
                    test_steps_spill_fails_issue32) == NULL ||
        CU_add_test(s, "the main thread's windows",
                    test_main_thread_windows_issue32) == NULL ||
        CU_add_test(s, "windows' compact form: long, clipped, numbers",
                    test_window_encoding_issue32) == NULL ||
        CU_add_test(s, "micro-batch marks out of time order",
                    test_mb_marks_out_of_order_issue32) == NULL ||
        CU_add_test(s, "windows spilled by blocks: the same record",
                    test_windows_blocks_issue32) == NULL ||
        CU_add_test(s, "windows spilled: unreadable, a clear error",
                    test_windows_unreadable_issue32) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_onepass)
