/*
 * hs_kineto.c -- the PyTorch profiler trace reader: one Chrome-trace
 * JSON file (Kineto or legacy form) in, one per-rank record (hs_rank.h)
 * out.
 *
 * The workload.  A Kineto trace of a real training job is tens to hundreds
 * of MB of JSON: one object per CPU operator, CUDA runtime call, GPU kernel
 * and flow arrow, in no global time order (Kineto writes thread by thread,
 * then the GPU activities).  What the method needs from it is a handful of
 * figures per iteration (ProfilerStep#N window): data loading, forward,
 * first backward operator, whole backward, optimizer, all-reduce payload
 * and bucket ready times.
 *
 * The shape.  A step window must be known before an event can be charged
 * to it, and the phase boundaries inside a step (where the backward
 * starts) must be known before a kernel can be charged to a phase.  The
 * file is read once (hs_kev.c decodes each event into a small fixed
 * struct and hands it over when its object closes): distributedInfo
 * is taken at once, the micro-batch marks are kept (16 bytes each); of
 * every other event the reasoning will need, the ProfilerStep windows of
 * every thread included, a compact fixed-size record goes to a log of
 * its kind (hs_reclog.h: in memory up to a budget, then spilled to an
 * unlinked temporary file), and each thread counts its windows.  Once
 * the file has been read, the main thread is the one with most windows
 * and only its windows are loaded (12 bytes each: a start, a 32-bit
 * length, exceptions for longer ones and for numbers that do not follow
 * on); then the logs are replayed in the order the events came, in the
 * order the reasoning needs them:
 *   marks:    per step, the CPU-side marks: DataLoader, first and last
 *             backward operator, optimizer, all-reduce calls (with sizes);
 *   ops:      per step, the top-level aten operators (cpu_op; in a legacy
 *             trace, events without a cat) of the main thread that start
 *             in the forward window;
 *   runtime:  (device traces only) every runtime call (cudaLaunchKernel...)
 *             is charged by its CPU time to a (step, phase), and in the
 *             forward to the top-level operator that holds it; per (step,
 *             phase) and per operator the range of correlation ids it used
 *             is kept, and the ids of the forward's launches no operator
 *             holds (another thread's: their kernels are the other's);
 *   kernels:  (device traces only) every kernel is charged, by its
 *             correlation id, to the (step, phase) whose range holds it,
 *             and in the forward to its operator.
 * The replays see the same events in the same order as the four passes
 * over the text that this reader made before, so the record is the same.
 * Correlation ids are handed out by CUPTI/roctracer in launch order, so the
 * ranges of consecutive phases do not overlap (checked; a note is added if
 * they do).  The forward's top-level operators are the one state that
 * grows with the trace (48 bytes each, about 3% of a kernel-dense trace's
 * JSON): they have a budget (8 MiB); past it, the runtime calls and
 * kernels are first replayed for the phases alone, then the operators,
 * their launches and their kernels by batches of steps that fit (each
 * batch replaying the three logs again, for its steps only), each step's
 * forward by operator going to the record as its batch ends.  Every figure
 * is a sum, a minimum or a maximum, so the batches give the same record.
 * A kernel goes to the (step, phase) id range with the greatest start at
 * or below its id; when the ranges of different batches interleave, a
 * batch cannot tell alone, so the file is read again by the same
 * batches with each range given its successor's start in the whole
 * trace's order (hs__nx_prepare: every batch's ranges sorted by runs on
 * disk, hs_xsort.h), and a batch's range takes a kernel only below it.
 * The replays go by batches of steps (step_batch), and a record with
 * more steps than its budget (rec_mem_bytes) holds only the batch's
 * entries, written to the record's spill file (hs_rank_spill) as each
 * batch ends.  State in memory is then the main thread's step windows
 * (12 bytes a step; their micro-batches, 96 bytes each, beside) plus a
 * batch's (its all-reduce calls and loose forward launches, the
 * operators' and the logs' budgets): it does not grow with the events
 * or the file size; the spilled records do, on disk (16 to 48 bytes per
 * kept event, 32 per window read, and the record's entries).
 *
 * The step table.  After the passes, each step's marks become the
 * record's figures: on device traces the kernel time charged to each
 * phase, on CPU traces the operator times.  The payload source is chosen
 * once per file (record_param_comms args, else the first all-reduce op
 * whose every call has shapes), and the calls that time the gradient
 * buckets become per-step ready times.  What is averaged, and how, is
 * the ingestion's business (hs_ingest.c), not the reader's.
 *
 * The rules themselves are documented in README.md, "Ingesting PyTorch
 * profiler traces".
 */
#include "hs_kineto.h"
#include "hs_kev.h"
#include "hs_reclog.h"
#include "hs_xsort.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------ */
/* Small helpers                                                         */

static const char *hs__basename(const char *p)
{
    const char *s = strrchr(p, '/');

    return s != NULL ? s + 1 : p;
}

/* Bytes per element of a PyTorch dtype name as traces spell it
   ("Float", "float", "c10::Half", "BFloat16", "long int"...); 0 if
   unknown. */
static unsigned hs__dtype_size(const char *t)
{
    static const struct {
        const char *name;
        unsigned size;
    } tab[] = {
        {"float", 4}, {"float32", 4}, {"double", 8}, {"float64", 8},
        {"half", 2}, {"c10::half", 2}, {"float16", 2}, {"bfloat16", 2},
        {"c10::bfloat16", 2}, {"long", 8}, {"long int", 8}, {"int64", 8},
        {"int", 4}, {"int32", 4}, {"short", 2}, {"short int", 2},
        {"int16", 2}, {"char", 1}, {"signed char", 1}, {"byte", 1},
        {"unsigned char", 1}, {"uint8", 1}, {"int8", 1}, {"bool", 1},
        {"complexfloat", 8}, {"c10::complex<float>", 8},
        {"complexdouble", 16}, {"c10::complex<double>", 16},
        {"float8_e4m3fn", 1}, {"float8_e5m2", 1},
        {"c10::float8_e4m3fn", 1}, {"c10::float8_e5m2", 1}};
    size_t i;

    for (i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcasecmp(t, tab[i].name) == 0)
            return tab[i].size;
    return 0;
}

/* Whether s starts with prefix; the first bytes compared before the
   call (most names differ there: every kernel is tried against four
   prefixes). */
static int hs__starts(const char *s, const char *prefix)
{
    return prefix[0] == '\0' ||
           (s[0] == prefix[0] && strncmp(s, prefix, strlen(prefix)) == 0);
}

/* ------------------------------------------------------------------ */
/* Per-file state                                                        */

/* GPU phases a kernel is charged to. */
enum { HS__P_FWD = 0, HS__P_B1, HS__P_BWD, HS__P_OPT, HS__P_N };

typedef struct hs__coll_s {
    int64_t ts_ns;
    uint64_t bytes;
    int kind;
    int known;      /* bytes measured */
} hs__coll_t;

/* One micro-batch of a step (a hetsim.micro_batch#K mark: the profiling
   harness's gradient accumulation): where it starts and, for all but the
   step's last, its own DataLoader end and backward span and, on device
   traces, its forward's and backward's launches (correlation id ranges,
   [0] forward, [1] backward) and their kernels' time. */
typedef struct hs__mb_s {
    size_t step;                /* its step (an index into f->w) */
    int64_t s;
    int64_t dl_end, b0, bend;   /* INT64_MIN, INT64_MAX, INT64_MIN: none */
    uint64_t corr_lo[2], corr_hi[2];
    int has_corr[2];
    int64_t k_sum[2];
} hs__mb_t;

typedef struct hs__step_s {
    long number;
    int64_t s, e;                 /* window [s, e) */
    /* pass 2 */
    int64_t dl_sum, dl_end;
    int64_t b0, b1_dur, bend;     /* b0 = INT64_MAX: no backward op */
    int64_t opt_sum, opt_s, opt_e;
    unsigned dl_n, n_bwd, n_opt;  /* (together: no padding) */
    /* buckets: the all-reduce calls of kind bk, by time */
    int bk;
    hs__coll_t *coll;
    size_t n_coll, cap_coll;
    size_t nb;
    int64_t *bts;       /* CPU time of the call (owns the block of 3 x nb
                           that bthr and bseg lie in) */
    uint64_t *bthr;     /* last backward launch (correlation id) before it */
    int64_t *bseg;      /* device time of backward kernels launched after
                           the previous bucket's call and before this one */
    /* passes 3, 4 */
    uint64_t corr_lo[HS__P_N], corr_hi[HS__P_N];
    int has_corr[HS__P_N];
    int64_t k_sum[HS__P_N];
    unsigned k_n[HS__P_N];
    unsigned k_n_mb;    /* kernels of the earlier micro-batches (their
                           time is in mb[].k_sum) */
    /* the top-level forward operators, by start time (ops replay) */
    struct hs__op_s *ops;
    size_t n_ops, cap_ops;
    size_t *op_by_corr;     /* indices of ops with launches, by corr_lo */
    size_t n_op_by_corr;
    uint64_t *loose;        /* the forward's launches no top-level operator
                               of the main thread holds (another thread's,
                               or between operators), sorted: their
                               kernels are the other's even when their ids
                               fall in an operator's range */
    size_t n_loose, cap_loose;
    /* micro-batches: with two or more, the phase marks above (dl_end, b0,
       b1_dur, bend, the operators and kernels) are the last one's, whose
       forward starts at fs; the earlier ones' DataLoader ends and
       backward spans, and on device traces their forward's and
       backward's launches and kernels, go to mb[] (their DataLoader
       times still add up in dl_sum) */
    int64_t fs;             /* the forward's floor: s, or the last
                               micro-batch's start */
    hs__mb_t *mb;           /* n_mb, in start order (in f->mbs: not
                               owned) */
    size_t n_mb;
} hs__step_t;

/* A ProfilerStep window as read (a record of f->lw, the windows of
   every thread: hs__settle_steps keeps the main thread's).  Its (pid,
   tid) is an index into f->thr, as the other records' are (uint32_t like
   theirs: hs__thread's table counts in uint32_t). */
typedef struct hs__wrec_s {
    int64_t s, e;
    long number;
    uint32_t thr;       /* its (pid, tid): index in f->thr */
    uint32_t pad;
} hs__wrec_t;

/* A step window of the main thread in full: the windows read in file
   order, the settled ones' sort when they were not in time order
   (hs__settle_by_runs), and the spilled settled
   windows' blocks (hs__wins_t). */
typedef struct hs__win_s {
    int64_t s, e;
    long number;
} hs__win_t;

/* The settled windows are kept in one of two forms (hs__wins_t).  In
   memory while they fit the windows' budget (HS__WIN_LOG_MEM, or the
   logs' log_mem_bytes when less) at 44 bytes a step at worst: 12 bytes
   a step, all that stays in memory for every step while the batches'
   hs__step_t come and go: the start (8 bytes) and the length (4 bytes)
   where it fits, HS__WIN_LONG there otherwise with the end in an
   exception list; the number only where it is not the previous one's + 1
   (the first always).  The exception lists hold (step, value), in step
   order (16 bytes each).  Past the budget, spilled: in blocks of
   2^bshift windows in full (hs__win_t) in an unlinked temporary file,
   each block's first start in memory (8 bytes a block of up to
   HS__WBLK_MAX steps) and the blocks used last in a cache of
   HS__WCACHE blocks, which fits the budget: the memory no longer grows
   with the steps but by the index's 8 bytes per block. */
#define HS__WIN_LONG UINT32_MAX
/* The spilled windows' cache, in blocks, and a block's greatest size
   (steps; 24 KiB). */
#define HS__WCACHE 4u
#define HS__WBLK_MAX 1024u

typedef struct hs__wx_s {
    size_t i;       /* the step */
    int64_t v;      /* its end, or its number */
} hs__wx_t;

/* The main thread's settled windows, in hs__cmp_step's order, clipped
   so that none overlaps the next (hs__settle_steps).  Its
   micro-batches are in f->mbs, found by their step (most steps have
   none); the forward's floor (the last micro-batch's start with two or
   more, else s) is derived from them.  Read through hs__win_s,
   hs__win_e, hs__win_number and hs__find_step only. */
typedef struct hs__wins_s {
    /* in memory (file NULL) */
    int64_t *s;             /* starts, n */
    uint32_t *d;            /* lengths (e - s) or HS__WIN_LONG, n */
    hs__wx_t *xe, *xn;      /* the ends that do not fit d, the numbers
                               that are not the previous + 1 */
    size_t n_xe, cap_xe, n_xn, cap_xn;
    /* spilled (file not NULL): blocks of 1 << bshift windows, block b
       at byte b << bshift windows; bfirst[b] its first start; the cache
       cw (HS__WCACHE blocks, slot c holding block cb[c], SIZE_MAX none,
       last used at cuse[c]); slot 0 is the block being written while
       settling.  io_err: a block could not be read back (errno io_errno,
       0 for a short file): its windows read as zeros and the read fails
       at its next check (hs__wins_check) */
    FILE *file;
    unsigned bshift;
    int64_t *bfirst;
    size_t n_blk, cap_blk;
    hs__win_t *cw;
    size_t cb[HS__WCACHE];
    uint64_t cuse[HS__WCACHE], clock;
    unsigned last_c;
    int io_err, io_errno;
    /* both */
    size_t cap;             /* the steps there is room for */
    size_t budget;          /* bytes in memory (hs__settle_steps) */
    long last_num;          /* the last window put's number */
    hs__win_t pend;         /* the window pushed last, not yet put (its
                               end clipped by the next's start) */
    int has_pend, unsorted; /* unsorted: a window pushed before the
                               pending one in hs__cmp_step's order */
    /* hs__find_step's last answer (f->hint): its start and end and the
       next window's start (INT64_MAX after the last); an empty span
       before the first answer */
    int64_t h_s, h_e, h_next;
} hs__wins_t;

/* A hetsim.micro_batch#K mark, as read (a record of f->lmb, replayed
   by each batch for its steps' micro-batches). */
typedef struct hs__mbmark_s {
    int64_t ts_ns;
    uint32_t thr;       /* its (pid, tid): index in f->thr */
    uint32_t pad;
} hs__mbmark_t;

/* A top-level operator of a step's forward. */
typedef struct hs__op_s {
    int64_t ts_ns, end_ns;  /* its CPU span */
    uint32_t name;          /* index in the file's names */
    int has_corr;
    uint64_t corr_lo, corr_hi;  /* its launches' correlation ids */
    int64_t k_sum;          /* device time of its kernels */
} hs__op_t;

/* The records the reader keeps of the events it needs after the read
   (hs_reclog.h); a pid or tid is its hs_kev_key_t, split. */
enum { HS__M_DL = 0, HS__M_BWD, HS__M_OPT, HS__M_COLL };

typedef struct hs__mrec_s {     /* a CPU mark */
    int64_t pid_v, ts_ns, dur_ns;   /* dur_ns 0 when the event has none */
    uint64_t bytes;
    int8_t pid_kind, mark, ckind, known;
} hs__mrec_t;

typedef struct hs__orec_s {     /* a cpu_op, for the forward's operators */
    int64_t ts_ns, dur_ns;
    uint32_t name;
    uint32_t thr;               /* its (pid, tid): index in f->thr */
} hs__orec_t;

typedef struct hs__rrec_s {     /* a runtime call with a correlation id */
    int64_t ts_ns;
    uint64_t corr;
    uint32_t thr;               /* its (pid, tid): index in f->thr */
    uint32_t pad;
} hs__rrec_t;

/* A (pid, tid) pair of the trace: its ProfilerStep windows read (how
   many, the index of the first: hs__settle_steps chooses the main thread
   by them) and, once the main thread is known, whether it is in the main
   process, and the main thread. */
typedef struct hs__thr_s {
    hs_kev_key_t pid, tid;
    size_t n_win, first_win;
    int main_pid, main_thr;
} hs__thr_t;

typedef struct hs__krec_s {     /* a compute kernel */
    uint64_t corr;
    int64_t dur_ns;
} hs__krec_t;

/* The records' keys for the batches' replays (hs_reclog_each_range): a
   CPU mark's, cpu_op's or runtime call's start, a kernel's correlation id (its
   order kept in a signed number). */
static int64_t hs__mrec_key(const void *rec)
{
    hs__mrec_t m;

    memcpy(&m, rec, sizeof m);
    return m.ts_ns;
}

static int64_t hs__orec_key(const void *rec)
{
    hs__orec_t o;

    memcpy(&o, rec, sizeof o);
    return o.ts_ns;
}

static int64_t hs__rrec_key(const void *rec)
{
    hs__rrec_t r;

    memcpy(&r, rec, sizeof r);
    return r.ts_ns;
}

static int64_t hs__corr_key(uint64_t corr)
{
    return (int64_t)(corr ^ (UINT64_C(1) << 63));
}

static int64_t hs__krec_key(const void *rec)
{
    hs__krec_t k;

    memcpy(&k, rec, sizeof k);
    return hs__corr_key(k.corr);
}

/* The default budget of each log in memory (bytes). */
#define HS__LOG_MEM (4u * 1024u * 1024u)
/* The default budget of the forward's top-level operators in memory
   (bytes): past it, their replays go by batches of steps. */
#define HS__OPS_MEM (8u * 1024u * 1024u)
/* The budget in memory of the windows read, and of the settled
   windows (bytes; less when log_mem_bytes is). */
#define HS__WIN_LOG_MEM (1024u * 1024u)
/* The record's entries' default budget (hs_kineto_opts_t.rec_mem_bytes):
   about 16,000 steps held in memory, more spilled. */
#define HS__REC_MEM (4u * 1024u * 1024u)

/* What a replay of the runtime calls or kernels does (hs__file_t.rmode):
   the (step, phase) figures (correlation ranges, bucket thresholds,
   kernel time per phase), and/or the forward's operators of the batch's
   steps (their launches, their kernels' time). */
enum { HS__RM_PHASES = 1, HS__RM_OPS = 2 };

typedef struct hs__ival_s {
    uint64_t lo, hi;
    uint64_t lim;   /* the greatest id a kernel charged to it may have:
                       hi, or less than the next range's start in the
                       whole trace's order (hs__ivals_attach) */
    size_t step;
    int phase;      /* HS__P_*; with mb >= 0: 0 forward, 1 backward */
    long mb;        /* an earlier micro-batch of the step, else -1 */
} hs__ival_t;

/* A kernel id range of the whole trace, for the ranges' order over
   every batch (hs__nx_prepare). */
typedef struct hs__ivrec_s {
    uint64_t lo, hi;
    uint64_t step;
    int64_t mb;
    int32_t phase, pad;
} hs__ivrec_t;

/* A range's successor's start in that order (has_next 0: the last),
   the range named by (step, mb, phase); in step order in f->lnx. */
typedef struct hs__nxrec_s {
    uint64_t step;
    int64_t mb;
    uint64_t next_lo;
    int32_t phase, has_next;
} hs__nxrec_t;

/* How the batches' kernel id ranges are made (hs__file_t.nx): as they
   are (a kernel goes to its batch's range: the ranges of different
   batches must not interleave, else f->inexact); gathered from every
   batch for their order over the whole trace (hs__nx_prepare); each
   given its successor's start in that order (so that a batch charges a
   kernel to a range only when the whole trace's ranges would). */
enum { HS__NX_NONE = 0, HS__NX_COLLECT, HS__NX_ATTACH };

/* The reader's state for one file. */
typedef struct hs__file_s {
    hs_rank_t *r;             /* the record being filled */
    hs_jscan_buf_t rbuf;      /* the passes' one read buffer */
    const char *path;         /* r->path */
    uint64_t n_kernels_seen;  /* pass 1 */
    hs_kev_key_t main_pid, main_tid;
    hs__wins_t w;             /* the main thread's step windows, n_st */
    size_t n_st;
    hs__step_t *st;           /* the batch's steps [st0, st0 + n_bst) */
    size_t st0, n_bst, cap_bst;
    int64_t bst_ts_lo, bst_ts_hi; /* the trace times the batch's windows
                                     span, [lo, hi] */
    size_t step_batch;        /* steps per batch of the phase replays */
    size_t rec_budget;        /* the record's budget (rec_mem_bytes) */
    size_t rec_base;          /* a spilled record: the step its first
                                 held entry is (the batch's first) */
    int last_batch;           /* the batch ends at the last step */
    int inexact;              /* batches' kernel id ranges interleave */
    uint64_t prev_iv_hi;      /* the earlier batches' greatest id */
    uint64_t b_iv_hi;         /* the batch's greatest id */
    int any_iv;               /* whether they had any */
    size_t kind_n[4], kind_bad[4]; /* all-reduce calls by kind, of
                                      which without a payload */
    int any_bwd;
    int ckind;                /* chosen all-reduce kind, -1 none */
    hs__ival_t *iv;
    size_t n_iv;
    int iv_overlap;
    int nx;                   /* HS__NX_* */
    hs_xsort_t *nxs;          /* HS__NX_COLLECT: every batch's ranges */
    hs_reclog_t lnx;          /* HS__NX_ATTACH: the ranges' successors'
                                 starts (hs__nxrec_t), in step order */
    size_t nx_k;              /* the batch's ranges given theirs */
    size_t st_clipped;        /* step windows cut at the next one's start */
    hs__mb_t *mbs;            /* the batch's steps' micro-batches, by
                                 step then start (hs__batch_mbs) */
    size_t n_mbs, cap_mbs;
    /* the read's logs */
    hs_reclog_t lm, lo, lr, lk;
    hs_reclog_t lw;           /* the windows of every thread (hs__wrec_t) */
    hs_reclog_t lmb;          /* the micro-batch marks (hs__mbmark_t) */
    /* the cpu_op names, interned: names[id], a hash table of ids + 1 */
    char **names;
    size_t n_names, cap_names;
    uint32_t *slots;
    size_t n_slots;
    /* the (pid, tid) pairs, interned: thr[id], a hash table of ids + 1,
       the last one found */
    hs__thr_t *thr;
    size_t n_thr, cap_thr;
    uint32_t *thr_slots;
    size_t n_thr_slots;
    uint32_t thr_last;
    hs_error_t *err;
    /* building the record: the record's index of each name id, or
       UINT32_MAX while unused */
    uint32_t *rname;
    uint32_t rname_other;
    /* the forward's operators, by batches of steps: the batch [b_lo,
       b_hi) and the trace times its windows span [b_ts_lo, b_ts_hi);
       the operators' bytes in memory, their budget (limited: a batch of
       two steps or more stops past it, ops_over set) */
    size_t b_lo, b_hi;
    int64_t b_ts_lo, b_ts_hi;
    uint64_t b_corr_lo, b_corr_hi;  /* the ids the batch's forward
                                       launches span (hs__index_ops) */
    size_t ops_bytes, ops_budget;
    int ops_limited, ops_over;
    int rmode;                /* HS__RM_* */
    size_t hint;              /* hs__find_step's last answer */
    size_t op_hint, corr_hint, iv_hint; /* hs__op_at's, hs__op_of_corr's
                                           and the kernels' interval's */
} hs__file_t;

/* Step k (an index among all steps) of the batch in memory. */
#define HS__ST(f, k) (&(f)->st[(k) - (f)->st0])

/* Frees what the batch's steps own (not their micro-batches: their
   windows'); the batch is empty. */
static void hs__free_batch(hs__file_t *f)
{
    size_t i;

    for (i = 0; i < f->n_bst; i++) {
        hs__step_t *s = &f->st[i];
        free(s->coll);
        free(s->bts);       /* bthr and bseg are in its block */
        free(s->ops);
        free(s->op_by_corr);
        free(s->loose);
    }
    f->n_bst = 0;
    f->ops_bytes = 0;
}

/* Frees what f owns (not f->r). */
static void hs__file_clear(hs__file_t *f)
{
    size_t i;

    hs__free_batch(f);
    free(f->mbs);
    free(f->st);
    free(f->w.s);
    free(f->w.d);
    free(f->w.xe);
    free(f->w.xn);
    free(f->w.bfirst);
    free(f->w.cw);
    if (f->w.file != NULL)
        fclose(f->w.file);
    free(f->iv);
    hs_jscan_buf_free(&f->rbuf);
    hs_reclog_clear(&f->lm);
    hs_reclog_clear(&f->lo);
    hs_reclog_clear(&f->lr);
    hs_reclog_clear(&f->lk);
    hs_reclog_clear(&f->lw);
    hs_reclog_clear(&f->lmb);
    hs_reclog_clear(&f->lnx);
    for (i = 0; i < f->n_names; i++)
        free(f->names[i]);
    free(f->names);
    free(f->slots);
    free(f->thr);
    free(f->thr_slots);
    free(f->rname);
}

/* The interning table's hash of the len bytes at s: eight bytes at a
   step (the table is the reader's own; any good spread will do, and
   FNV-1a's byte loop cost more than the rest of the lookup). */
static uint64_t hs__name_hash(const char *s, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;

    for (; len >= 8; s += 8, len -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s, len);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

/* Room for element n of an array of *cap elements of size bytes at arr:
   arr itself while n < *cap, else arr grown to twice *cap (first
   elements when *cap is 0), *cap updated.  NULL when out of memory (arr
   is then unchanged and still owned by the caller). */
static void *hs__grow(void *arr, size_t *cap, size_t n, size_t size,
                      size_t first)
{
    size_t nc;
    void *na;

    if (n < *cap)
        return arr;
    nc = *cap ? *cap * 2 : first;
    if ((na = realloc(arr, nc * size)) == NULL)
        return NULL;
    *cap = nc;
    return na;
}

/* The id of cpu_op name nm, interned on first sight; -1 when out of
   memory. */
static long hs__intern(hs__file_t *f, const char *nm)
{
    size_t len = strlen(nm);
    uint64_t h = hs__name_hash(nm, len);
    size_t i, mask;

    if (f->n_names * 2 >= f->n_slots) {
        size_t ns = f->n_slots ? f->n_slots * 2 : 256;
        uint32_t *sl = calloc(ns, sizeof *sl);

        if (sl == NULL)
            return -1;
        for (i = 0; i < f->n_names; i++) {
            const char *o = f->names[i];
            size_t j = hs__name_hash(o, strlen(o)) & (ns - 1);
            while (sl[j] != 0)
                j = (j + 1) & (ns - 1);
            sl[j] = (uint32_t)i + 1;
        }
        free(f->slots);
        f->slots = sl;
        f->n_slots = ns;
    }
    mask = f->n_slots - 1;
    for (i = h & mask; f->slots[i] != 0; i = (i + 1) & mask)
        if (strcmp(f->names[f->slots[i] - 1], nm) == 0)
            return (long)f->slots[i] - 1;
    {
        char **nn = hs__grow(f->names, &f->cap_names, f->n_names,
                             sizeof *nn, 64);
        if (nn == NULL)
            return -1;
        f->names = nn;
    }
    if ((f->names[f->n_names] = strdup(nm)) == NULL)
        return -1;
    f->slots[i] = (uint32_t)f->n_names + 1;
    return (long)f->n_names++;
}

static size_t hs__thr_hash(hs_kev_key_t pid, hs_kev_key_t tid)
{
    uint64_t h = ((uint64_t)pid.v * 0x9e3779b97f4a7c15ULL) ^
                 (uint64_t)pid.kind ^ ((uint64_t)tid.kind << 8);

    h = (h ^ (uint64_t)tid.v) * 0xff51afd7ed558ccdULL;
    return (size_t)(h ^ (h >> 31));
}

/* The id of the (pid, tid) pair, interned on first sight (the last one
   found is tried first: Kineto writes thread by thread); -1 when out of
   memory. */
static long hs__thread(hs__file_t *f, hs_kev_key_t pid, hs_kev_key_t tid)
{
    size_t i, mask;
    hs__thr_t *t;

    if (f->n_thr > 0) {
        t = &f->thr[f->thr_last];
        if (hs_kev_key_eq(t->pid, pid) && hs_kev_key_eq(t->tid, tid))
            return (long)f->thr_last;
    }
    if (f->n_thr * 2 >= f->n_thr_slots) {
        size_t ns = f->n_thr_slots ? f->n_thr_slots * 2 : 64;
        uint32_t *sl = calloc(ns, sizeof *sl);

        if (sl == NULL)
            return -1;
        for (i = 0; i < f->n_thr; i++) {
            size_t j = hs__thr_hash(f->thr[i].pid, f->thr[i].tid) & (ns - 1);
            while (sl[j] != 0)
                j = (j + 1) & (ns - 1);
            sl[j] = (uint32_t)i + 1;
        }
        free(f->thr_slots);
        f->thr_slots = sl;
        f->n_thr_slots = ns;
    }
    mask = f->n_thr_slots - 1;
    for (i = hs__thr_hash(pid, tid) & mask; f->thr_slots[i] != 0;
         i = (i + 1) & mask) {
        t = &f->thr[f->thr_slots[i] - 1];
        if (hs_kev_key_eq(t->pid, pid) && hs_kev_key_eq(t->tid, tid))
            return (long)(f->thr_last = f->thr_slots[i] - 1);
    }
    {
        hs__thr_t *nt = hs__grow(f->thr, &f->cap_thr, f->n_thr,
                                 sizeof *nt, 16);
        if (nt == NULL)
            return -1;
        f->thr = nt;
    }
    t = &f->thr[f->n_thr];
    t->pid = pid;
    t->tid = tid;
    t->n_win = t->first_win = 0;
    t->main_pid = t->main_thr = 0;
    f->thr_slots[i] = (uint32_t)f->n_thr + 1;
    f->thr_last = (uint32_t)f->n_thr;
    return (long)f->n_thr++;
}

/* The entry of x[0..n) that holds step i: the last with x[k].i <= i
   (there is one: the first step's number is always listed, and an end
   that does not fit a length is listed at its step). */
static const hs__wx_t *hs__wx_at(const hs__wx_t *x, size_t n, size_t i)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x[mid].i <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &x[lo - 1];
}

/* The number of windows in spilled block b. */
static size_t hs__wblk_len(const hs__file_t *f, size_t b)
{
    size_t first = b << f->w.bshift;
    size_t left = f->n_st - first;

    return left < ((size_t)1 << f->w.bshift) ? left
                                             : (size_t)1 << f->w.bshift;
}

/* Spilled block b's windows, from the cache or read back into its
   slot used least lately.  A block that cannot be read back sets the
   sticky io_err and reads as zeros (hs__wins_check reports it). */
static const hs__win_t *hs__wblk_load(hs__file_t *f, size_t b)
{
    hs__wins_t *w = &f->w;
    size_t blk = (size_t)1 << w->bshift, n;
    unsigned c, v = 0;
    hs__win_t *slot;

    if (w->cb[w->last_c] == b)
        return w->cw + ((size_t)w->last_c << w->bshift);
    for (c = 0; c < HS__WCACHE; c++) {
        if (w->cb[c] == b) {
            v = c;
            goto hit;
        }
        if (w->cuse[c] < w->cuse[v])
            v = c;
    }
    slot = w->cw + (size_t)v * blk;
    n = hs__wblk_len(f, b);
    if (hs_reclog_pread(w->file, slot, n * sizeof *slot,
                        (uint64_t)(b << w->bshift) * sizeof *slot) != 0) {
        if (!w->io_err) {
            w->io_err = 1;
            w->io_errno = errno;
        }
        memset(slot, 0, n * sizeof *slot);
    }
    w->cb[v] = b;
hit:
    w->cuse[v] = ++w->clock;
    w->last_c = v;
    return w->cw + (size_t)v * blk;
}

/* Spilled step i's window. */
static const hs__win_t *hs__wfile_at(hs__file_t *f, size_t i)
{
    hs__wins_t *w = &f->w;
    size_t b = i >> w->bshift, j = i & (((size_t)1 << w->bshift) - 1);

    if (w->cb[w->last_c] == b)
        return w->cw + ((size_t)w->last_c << w->bshift) + j;
    return hs__wblk_load(f, b) + j;
}

/* HS_ERR_IO with err filled when a spilled block of windows could not be
   read back since the read began (the answers given since are wrong:
   the read must fail); else HS_OK. */
static hs_err_t hs__wins_check(const hs__file_t *f, hs_error_t *err)
{
    if (!f->w.io_err)
        return HS_OK;
    return hs_error_set(err, HS_ERR_IO, f->path, 0, 0,
                        "cannot read the step windows back from their "
                        "temporary file: %s",
                        f->w.io_errno != 0 ? strerror(f->w.io_errno)
                                           : "short file");
}

/* Settled step i's window: its start, end and number (i < f->n_st). */
static int64_t hs__win_s(hs__file_t *f, size_t i)
{
    if (f->w.file != NULL)
        return hs__wfile_at(f, i)->s;
    return f->w.s[i];
}

static int64_t hs__win_e(hs__file_t *f, size_t i)
{
    uint32_t d;

    if (f->w.file != NULL)
        return hs__wfile_at(f, i)->e;
    d = f->w.d[i];
    if (d != HS__WIN_LONG)
        return f->w.s[i] + (int64_t)d;
    return hs__wx_at(f->w.xe, f->w.n_xe, i)->v;
}

static long hs__win_number(hs__file_t *f, size_t i)
{
    const hs__wx_t *x;

    if (f->w.file != NULL)
        return hs__wfile_at(f, i)->number;
    x = hs__wx_at(f->w.xn, f->w.n_xn, i);
    /* no overflow: a number after LONG_MAX is always listed */
    return (long)x->v + (long)(i - x->i);
}

/* The spilled block whose first start is the last at or before t, or
   SIZE_MAX: the block used last when it is (the replays go mostly in
   time order), else a binary search over the blocks' first starts. */
static size_t hs__wblk_of(const hs__file_t *f, int64_t t)
{
    const hs__wins_t *w = &f->w;
    size_t lo = 0, hi = w->n_blk, b = w->cb[w->last_c];

    if (b < w->n_blk && w->bfirst[b] <= t &&
        (b + 1 == w->n_blk || w->bfirst[b + 1] > t))
        return b;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->bfirst[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? SIZE_MAX : lo - 1;
}

/* The last settled step whose start is t or before, or -1 (a binary
   search: over the starts in memory; spilled, over the blocks' first
   starts, then in the block); its window in *win, and the next step's
   start in *next (INT64_MAX after the last). */
static long hs__last_start(hs__file_t *f, int64_t t, hs__win_t *win,
                           int64_t *next)
{
    size_t lo = 0, hi, b, n;
    const hs__win_t *w;

    if (f->w.file == NULL) {
        hi = f->n_st;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (f->w.s[mid] <= t)
                lo = mid + 1;
            else
                hi = mid;
        }
        *next = lo < f->n_st ? f->w.s[lo] : INT64_MAX;
        if (lo == 0)
            return -1;
        win->s = f->w.s[lo - 1];
        win->e = hs__win_e(f, lo - 1);
        return (long)lo - 1;
    }
    if ((b = hs__wblk_of(f, t)) == SIZE_MAX)
        return -1;
    *next = b + 1 < f->w.n_blk ? f->w.bfirst[b + 1] : INT64_MAX;
    /* the block's first start is bfirst[b], t or before */
    w = hs__wblk_load(f, b);
    n = hs__wblk_len(f, b);
    lo = 1;
    hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w[mid].s <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n)
        *next = w[lo].s;
    *win = w[lo - 1];
    return (long)((b << f->w.bshift) + lo - 1);
}

/* Index of the step whose window holds t, or -1.  The replays see the
   events of a thread mostly in time order: the span where the last
   answer (f->hint) is the step with the last start at or before t is
   tried first, then a binary search; the same answer either way. */
static long hs__find_step(hs__file_t *f, int64_t t)
{
    hs__wins_t *w = &f->w;
    hs__win_t win;
    long k;

    if (t >= w->h_s && t < w->h_next)
        return t < w->h_e ? (long)f->hint : -1;
    if ((k = hs__last_start(f, t, &win, &w->h_next)) < 0) {
        w->h_s = INT64_MAX;     /* the span stays empty */
        w->h_next = INT64_MIN;
        return -1;
    }
    f->hint = (size_t)k;
    w->h_s = win.s;
    w->h_e = win.e;
    return t < w->h_e ? k : -1;
}

/* ------------------------------------------------------------------ */
/* The read: steps, distributedInfo, device kernels, and the logs        */

static int hs__starts(const char *s, const char *prefix);
static unsigned hs__dtype_size(const char *t);
static int hs__is_comm_kernel(const char *nm);

/* All-reduce call kinds, in the order of trust for the payload. */
enum { HS__C_PC = 0, HS__C_C10D, HS__C_NCCL, HS__C_GLOO, HS__C_N };

static hs_err_t hs__add_step(hs_kev_scan_t *sc, hs__file_t *f,
                             const hs_kev_t *e)
{
    hs__wrec_t w;
    hs__thr_t *t;
    long th = hs__thread(f, e->pid, e->tid);

    if (th < 0)
        return hs_error_set(sc->js.err, HS_ERR_NOMEM, sc->js.path, 0, 0,
                            "out of memory");
    t = &f->thr[th];
    if (t->n_win++ == 0)
        t->first_win = (size_t)f->lw.n;
    memset(&w, 0, sizeof w);
    w.number = strtol(e->name + 13, NULL, 10);
    w.thr = (uint32_t)th;
    w.s = e->ts_ns;
    w.e = e->ts_ns + (e->has_dur ? e->dur_ns : 0);
    return hs_reclog_put(&f->lw, &w, sizeof w, sc->js.path, sc->js.err);
}

/* The name prefix of the profiling harness's micro-batch marks. */
#define HS__MB_MARK "hetsim.micro_batch#"

/* Keeps micro-batch mark e (CPU side) in its log for the batches. */
static hs_err_t hs__add_mbmark(hs_kev_scan_t *sc, hs__file_t *f,
                               const hs_kev_t *e)
{
    hs__mbmark_t m;
    long th;

    if (strcmp(e->cat, "gpu_user_annotation") == 0)
        return HS_OK;
    if ((th = hs__thread(f, e->pid, e->tid)) < 0)
        return hs_error_set(sc->js.err, HS_ERR_NOMEM, sc->js.path, 0, 0,
                            "out of memory");
    m.ts_ns = e->ts_ns;
    m.thr = (uint32_t)th;
    m.pad = 0;
    return hs_reclog_put(&f->lmb, &m, sizeof m, sc->js.path, sc->js.err);
}

/* The all-reduce calls whose payload is their first input's shape. */
#define HS__AR_C10D "c10d::allreduce_"
#define HS__AR_NCCL "nccl:all_reduce"
#define HS__AR_GLOO "gloo:all_reduce"

/* Whether an event named nm needs its shapes (hs_kev_scan_file_sel):
   only the all-reduce calls above read them (hs__mark_of). */
static int hs__wants_shapes(const char *nm)
{
    /* the first two bytes tell most names (cuda..., aten::...) apart
       without a call */
    switch (nm[0]) {
    case 'c':
        return nm[1] == '1' && strcmp(nm, HS__AR_C10D) == 0;
    case 'n':
        return nm[1] == 'c' && strcmp(nm, HS__AR_NCCL) == 0;
    case 'g':
        return nm[1] == 'l' && strcmp(nm, HS__AR_GLOO) == 0;
    default:
        return 0;
    }
}

/* The mark (HS__M_*) and all-reduce kind (HS__C_*, -1 none) event e's
   name makes; -1 when it makes none.  Dispatched on the first byte:
   most names (aten::..., cuda..., kernels) are rejected there or by one
   comparison. */
static int hs__mark_kind(const hs_kev_t *e, int *ckind)
{
    const char *nm = e->name;

    *ckind = -1;
    switch (nm[0]) {
    case 'e':
        return hs__starts(nm, "enumerate(DataLoader)#") &&
                       strstr(nm, "__next__") != NULL
                   ? HS__M_DL
                   : -1;
    case 'a':
        return nm[1] == 'u' &&
                       hs__starts(nm, "autograd::engine::evaluate_function: ")
                   ? HS__M_BWD
                   : -1;
    case 'O':
        return hs__starts(nm, "Optimizer.step#") ? HS__M_OPT : -1;
    case 'r':
        if (strcmp(nm, "record_param_comms") != 0 ||
            (strcasecmp(e->coll, "allreduce") != 0 &&
             strcasecmp(e->coll, "all_reduce") != 0))
            return -1;
        *ckind = HS__C_PC;
        return HS__M_COLL;
    case 'c':
    case 'n':
    case 'g':
        /* hs__wants_shapes tells the three names (cuda..., and most
           others, on their second byte) */
        if (!hs__wants_shapes(nm))
            return -1;
        *ckind = nm[0] == 'c' ? HS__C_C10D
                 : nm[0] == 'n' ? HS__C_NCCL : HS__C_GLOO;
        break;
    default:
        return -1;
    }
    return *ckind >= 0 ? HS__M_COLL : -1;
}

/* A CPU mark's record, when the event is one (else 0). */
static int hs__mark_of(const hs_kev_t *e, hs__mrec_t *m)
{
    int ckind, mark = hs__mark_kind(e, &ckind);
    unsigned sz;

    if (mark < 0)
        return 0;
    memset(m, 0, sizeof *m);
    m->pid_kind = (int8_t)e->pid.kind;
    m->pid_v = e->pid.v;
    m->ts_ns = e->ts_ns;
    m->dur_ns = e->has_dur ? e->dur_ns : 0;
    m->mark = (int8_t)mark;
    if (mark != HS__M_COLL)
        return 1;
    m->ckind = (int8_t)ckind;
    if (ckind == HS__C_PC) {
        sz = hs__dtype_size(e->dtype);
        m->known = e->has_nelems && sz > 0;
        m->bytes = m->known ? e->nelems * sz : 0;
    } else {
        sz = hs__dtype_size(e->itype);
        m->known = e->dims_known && sz > 0;
        m->bytes = m->known ? e->dims_nelems * sz : 0;
    }
    return 1;
}

/* Every event of the one read: what is needed at once is taken, what is
   needed later is logged. */
static hs_err_t hs__collect(hs_kev_scan_t *sc, const hs_kev_t *e)
{
    hs__file_t *f = sc->user;
    const char *cat = e->cat;
    hs_err_t rc;

    if (e->ph != 'X')
        return HS_OK;
    if ((cat[0] | 0x20) == 'k' && strcasecmp(cat, "kernel") == 0) {
        f->n_kernels_seen++;
        if (e->has_corr && e->has_dur && !hs__is_comm_kernel(e->name)) {
            hs__krec_t k;
            k.corr = e->corr;
            k.dur_ns = e->dur_ns;
            if ((rc = hs_reclog_put(&f->lk, &k, sizeof k, sc->js.path,
                                    sc->js.err)) != HS_OK)
                return rc;
        }
    } else if (e->name[0] == 'P' && hs__starts(e->name, "ProfilerStep#") &&
               strcmp(cat, "gpu_user_annotation") != 0 && e->has_ts) {
        if ((rc = hs__add_step(sc, f, e)) != HS_OK)
            return rc;
    }
    if (!e->has_ts)
        return HS_OK;
    if (e->name[0] == 'h' && hs__starts(e->name, HS__MB_MARK))
        return hs__add_mbmark(sc, f, e);
    {
        hs__mrec_t m;
        if (hs__mark_of(e, &m) &&
            (rc = hs_reclog_put(&f->lm, &m, sizeof m, sc->js.path,
                                sc->js.err)) != HS_OK)
            return rc;
    }
    if (e->has_corr && ((cat[0] | 0x20) == 'c' || (cat[0] | 0x20) == 'r') &&
        (strcasecmp(cat, "cuda_runtime") == 0 ||
         strcasecmp(cat, "cuda_driver") == 0 ||
         strcasecmp(cat, "runtime") == 0)) {
        hs__rrec_t r;
        long th = hs__thread(f, e->pid, e->tid);
        if (th < 0)
            return hs_error_set(sc->js.err, HS_ERR_NOMEM, sc->js.path, 0, 0,
                                "out of memory");
        memset(&r, 0, sizeof r);
        r.thr = (uint32_t)th;
        r.ts_ns = e->ts_ns;
        r.corr = e->corr;
        if ((rc = hs_reclog_put(&f->lr, &r, sizeof r, sc->js.path,
                                sc->js.err)) != HS_OK)
            return rc;
    }
    /* operators: Kineto's cpu_op events; a legacy trace's carry no cat,
       and its step and DataLoader windows are told apart by name */
    /* cat is a char[48]: its first 7 bytes hold "cpu_op" and its NUL */
    if ((cat[0] == 'c' && memcmp(cat, "cpu_op", sizeof "cpu_op") == 0) ||
        (cat[0] == '\0' && !hs__starts(e->name, "ProfilerStep#") &&
         !hs__starts(e->name, "enumerate(DataLoader)#"))) {
        hs__orec_t o;
        long id = hs__intern(f, e->name), th = hs__thread(f, e->pid, e->tid);
        if (id < 0 || th < 0)
            return hs_error_set(sc->js.err, HS_ERR_NOMEM, sc->js.path, 0, 0,
                                "out of memory");
        memset(&o, 0, sizeof o);
        o.thr = (uint32_t)th;
        o.ts_ns = e->ts_ns;
        o.dur_ns = e->has_dur ? e->dur_ns : 0;
        o.name = (uint32_t)id;
        if ((rc = hs_reclog_put(&f->lo, &o, sizeof o, sc->js.path,
                                sc->js.err)) != HS_OK)
            return rc;
    }
    return HS_OK;
}

static int hs__cmp_step(const void *a, const void *b)
{
    const hs__win_t *x = a, *y = b;

    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;
}

/* The main thread: the one with most windows (counted per thread as
   they were read); ties go to the thread of the earliest window, as the
   first-found rule did.  Sets f->main_pid, f->main_tid and the threads'
   flags; returns its index in f->thr. */
static size_t hs__choose_main(hs__file_t *f)
{
    size_t i, best = 0, best_n = 0, best_first = 0;

    for (i = 0; i < f->n_thr; i++) {
        const hs__thr_t *t = &f->thr[i];
        if (t->n_win > best_n ||
            (t->n_win > 0 && t->n_win == best_n &&
             t->first_win < best_first)) {
            best_n = t->n_win;
            best_first = t->first_win;
            best = i;
        }
    }
    f->main_pid = f->thr[best].pid;
    f->main_tid = f->thr[best].tid;
    for (i = 0; i < f->n_thr; i++) {
        hs__thr_t *t = &f->thr[i];
        t->main_pid = hs_kev_key_eq(t->pid, f->main_pid);
        t->main_thr = t->main_pid && hs_kev_key_eq(t->tid, f->main_tid);
    }
    return best;
}

/* Appends exception (i, v) to the list *x (*n entries, room for *cap).
   0, or -1 when out of memory (the list unchanged). */
static int hs__wx_add(hs__wx_t **x, size_t *cap, size_t *n, size_t i,
                      int64_t v)
{
    hs__wx_t *nx = hs__grow(*x, cap, *n, sizeof *nx, 8);

    if (nx == NULL)
        return -1;
    *x = nx;
    nx[*n].i = i;
    nx[(*n)++].v = v;
    return 0;
}

/* Spilled: the block being written (slot 0 of the cache), its n
   windows, to the file as block b, and its first start to the index. */
static hs_err_t hs__wblk_write(hs__file_t *f, size_t b, size_t n,
                               hs_error_t *err)
{
    hs__wins_t *w = &f->w;
    int64_t *nb = hs__grow(w->bfirst, &w->cap_blk, b, sizeof *nb, 64);

    if (nb == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                            "out of memory");
    w->bfirst = nb;
    if (hs_reclog_pwrite(w->file, w->cw, n * sizeof *w->cw,
                         (uint64_t)(b << w->bshift) * sizeof *w->cw) != 0)
        return hs_error_set(err, HS_ERR_IO, f->path, 0, 0,
                            "cannot write the step windows to a temporary "
                            "file: %s", strerror(errno));
    nb[b] = w->cw[0].s;
    w->n_blk = b + 1;
    return HS_OK;
}

/* hs__win_put for spilled windows: w as settled step f->n_st in full,
   into the block being written, which goes to the file once full. */
static hs_err_t hs__wfile_put(hs__file_t *f, const hs__win_t *w,
                              hs_error_t *err)
{
    hs__wins_t *ws = &f->w;
    size_t i = f->n_st, mask = ((size_t)1 << ws->bshift) - 1;

    ws->cw[i & mask] = *w;
    f->n_st++;
    if ((i & mask) == mask)
        return hs__wblk_write(f, i >> ws->bshift, mask + 1, err);
    return HS_OK;
}

/* Appends window w as settled step f->n_st while there is room in
   f->w.s and f->w.d (made for the main thread's count): its length, or
   an exception for its end; an exception for its number unless it is
   the previous one's + 1. */
static hs_err_t hs__win_put(hs__file_t *f, const hs__win_t *w,
                            hs_error_t *err)
{
    hs__wins_t *ws = &f->w;
    size_t i = f->n_st;

    if (i >= ws->cap)
        return HS_OK;
    if (ws->file != NULL)
        return hs__wfile_put(f, w, err);
    ws->s[i] = w->s;
    ws->d[i] = HS__WIN_LONG;
    if (w->e >= w->s && (uint64_t)w->e - (uint64_t)w->s < HS__WIN_LONG)
        ws->d[i] = (uint32_t)((uint64_t)w->e - (uint64_t)w->s);
    else if (hs__wx_add(&ws->xe, &ws->cap_xe, &ws->n_xe, i, w->e) != 0)
        goto nomem;
    if ((i == 0 || ws->last_num == LONG_MAX ||
         w->number != ws->last_num + 1) &&
        hs__wx_add(&ws->xn, &ws->cap_xn, &ws->n_xn, i, w->number) != 0)
        goto nomem;
    ws->last_num = w->number;
    f->n_st++;
    return HS_OK;
nomem:
    return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0, "out of memory");
}

/* Takes window w as the next in hs__cmp_step's order: the pending
   window's end is clipped to w's start where they overlap (windows of
   one thread do not overlap; f->st_clipped counts the clips, and
   hs_kineto_read adds a note), the pending one is put, w becomes
   pending.  A w before the pending one sets f->w.unsorted and is left
   out (hs__settle_by_runs starts again). */
static hs_err_t hs__win_push(hs__file_t *f, const hs__win_t *w,
                             hs_error_t *err)
{
    hs__wins_t *ws = &f->w;
    hs_err_t rc;

    if (ws->has_pend) {
        if (hs__cmp_step(&ws->pend, w) > 0) {
            ws->unsorted = 1;
            return HS_OK;
        }
        if (ws->pend.e > w->s) {
            ws->pend.e = w->s;
            f->st_clipped++;
        }
        if ((rc = hs__win_put(f, &ws->pend, err)) != HS_OK)
            return rc;
    }
    ws->pend = *w;
    ws->has_pend = 1;
    return HS_OK;
}

/* hs__settle_steps' replay of the windows read: the main thread's
   pushed in the order they were read, until one is out of order. */
static hs_err_t hs__keep_window(void *ctx, const void *rec)
{
    hs__file_t *f = ctx;
    hs__wrec_t w;
    hs__win_t x;

    memcpy(&w, rec, sizeof w);
    if (!f->thr[w.thr].main_thr || f->w.unsorted)
        return HS_OK;
    x.s = w.s;
    x.e = w.e;
    x.number = w.number;
    return hs__win_push(f, &x, f->err);
}

/* The settled windows emptied to be pushed again from the first; the
   clips counted before (clipped0) start again too. */
static void hs__wins_restart(hs__file_t *f, size_t clipped0)
{
    f->n_st = 0;
    f->w.n_blk = 0;
    f->w.n_xe = f->w.n_xn = 0;
    f->w.has_pend = f->w.unsorted = 0;
    f->st_clipped = clipped0;
}

/* A main thread's window for the sort by runs (hs__settle_by_runs):
   its place among the main thread's windows read breaks the ties, so
   the order is a stable sort's (glibc's qsort, which sorted them before
   the runs, is a merge sort). */
typedef struct hs__wsort_s {
    hs__win_t w;
    uint64_t seq;
} hs__wsort_t;

static int hs__cmp_wsort(const void *a, const void *b)
{
    const hs__wsort_t *x = a, *y = b;
    int c = hs__cmp_step(&x->w, &y->w);

    return c != 0 ? c : (x->seq < y->seq ? -1 : x->seq > y->seq);
}

/* hs__settle_by_runs' replay: the main thread's windows to the sort
   (ctx: its hs__wsort_ctx_t). */
typedef struct hs__wsort_ctx_s {
    hs__file_t *f;
    hs_xsort_t u;
    uint64_t seq;
} hs__wsort_ctx_t;

static hs_err_t hs__keep_run(void *ctx, const void *rec)
{
    hs__wsort_ctx_t *c = ctx;
    hs__wrec_t w;
    hs__wsort_t x;

    memcpy(&w, rec, sizeof w);
    if (!c->f->thr[w.thr].main_thr)
        return HS_OK;
    memset(&x, 0, sizeof x);
    x.w.s = w.s;
    x.w.e = w.e;
    x.w.number = w.number;
    x.seq = c->seq++;
    return hs_xsort_add(&c->u, &x);
}

/* hs__settle_by_runs' merge: each window pushed as the next. */
static hs_err_t hs__push_sorted(void *ctx, const void *rec)
{
    hs__wsort_ctx_t *c = ctx;
    hs__wsort_t x;

    memcpy(&x, rec, sizeof x);
    return hs__win_push(c->f, &x.w, c->f->err);
}

/* hs__settle_steps for a main thread whose windows were not read in
   time order (Kineto writes them in order: rare): read again and sorted
   by runs that fit the windows' budget (hs_xsort.h: in memory when they
   all fit one, else each run sorted and written to a temporary file,
   then merged, each run read through a share of the budget), and pushed
   again from the first; the clips counted before (clipped0 on entry)
   start again too.  Memory: the budget, and 40 bytes a run. */
static hs_err_t hs__settle_by_runs(hs__file_t *f, size_t clipped0,
                                   hs_error_t *err)
{
    hs__wsort_ctx_t c;
    hs_err_t rc;

    c.f = f;
    c.seq = 0;
    rc = hs_xsort_init(&c.u, sizeof(hs__wsort_t), f->w.budget,
                       hs__cmp_wsort, "step windows", "windows", f->path,
                       err);
    if (rc == HS_OK)
        rc = hs_reclog_each(&f->lw, hs__keep_run, &c, f->path, err);
    hs__wins_restart(f, clipped0);
    if (rc == HS_OK)
        rc = hs_xsort_each(&c.u, hs__push_sorted, &c);
    hs_xsort_clear(&c.u);
    return rc;
}

/* Room for the n settled windows of the main thread: in memory when
   they fit f->w.budget at the most they can take (44 bytes a step: 12,
   and an exception of each kind), else spilled: the cache's blocks
   (together within the budget, each of at most HS__WBLK_MAX windows)
   and the temporary file. */
static hs_err_t hs__wins_alloc(hs__file_t *f, size_t n, hs_error_t *err)
{
    hs__wins_t *w = &f->w;
    size_t blk = w->budget / (HS__WCACHE * sizeof(hs__win_t));
    unsigned c;

    w->cap = n;
    if (n <= w->budget / (12 + 2 * sizeof(hs__wx_t))) {
        w->s = malloc(n * sizeof *w->s);
        w->d = malloc(n * sizeof *w->d);
        if (w->s == NULL || w->d == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                                "out of memory");
        return HS_OK;
    }
    for (w->bshift = 0; ((size_t)2 << w->bshift) <= blk &&
                        ((size_t)2 << w->bshift) <= HS__WBLK_MAX;
         w->bshift++)
        ;
    if ((w->cw = malloc((HS__WCACHE << w->bshift) * sizeof *w->cw)) ==
        NULL)
        return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                            "out of memory");
    for (c = 0; c < HS__WCACHE; c++) {
        w->cb[c] = SIZE_MAX;
        w->cuse[c] = 0;
    }
    return hs_reclog_tmpfile_open(&w->file, "windows", "step windows",
                                  f->path, err);
}

/* The settling's end: the last window put; spilled, the last block
   (partly filled) written, and kept in the cache's slot 0. */
static hs_err_t hs__wins_end(hs__file_t *f, hs_error_t *err)
{
    hs__wins_t *w = &f->w;
    size_t mask = ((size_t)1 << w->bshift) - 1;
    hs_err_t rc;

    if (w->has_pend && (rc = hs__win_put(f, &w->pend, err)) != HS_OK)
        return rc;
    w->has_pend = 0;
    w->h_s = INT64_MAX;     /* hs__find_step's span: empty */
    w->h_next = INT64_MIN;
    if (w->file == NULL || f->n_st == 0)
        return HS_OK;
    if ((f->n_st & mask) != 0 &&
        (rc = hs__wblk_write(f, f->n_st >> w->bshift, f->n_st & mask,
                             err)) != HS_OK)
        return rc;
    w->cb[0] = (f->n_st - 1) >> w->bshift;
    w->last_c = 0;
    return HS_OK;
}

/* Keeps the steps of the thread that has most of them (f->w, exactly
   as many as it has: in memory, 12 bytes a step and the exceptions, or
   spilled past the windows' budget), sorted and clipped; the windows
   read (f->lw) go. */
static hs_err_t hs__settle_steps(hs__file_t *f, hs_error_t *err)
{
    size_t n, clipped0 = f->st_clipped;
    hs_err_t rc;

    if (f->lw.n == 0)
        return hs_error_set(err, HS_ERR_TRACE, f->path, 0, 0,
                            "no ProfilerStep#N window: profile with "
                            "torch.profiler.profile(schedule=...) and call "
                            "prof.step() once per iteration");
    n = f->thr[hs__choose_main(f)].n_win;
    if ((rc = hs__wins_alloc(f, n, err)) != HS_OK)
        return rc;
    f->n_st = 0;
    f->w.has_pend = f->w.unsorted = 0;
    if ((rc = hs_reclog_each(&f->lw, hs__keep_window, f, f->path, err)) !=
            HS_OK ||
        (f->w.unsorted &&
         (rc = hs__settle_by_runs(f, clipped0, err)) != HS_OK))
        return rc;
    hs_reclog_clear(&f->lw);
    return hs__wins_end(f, err);
}

/* The micro-batch marks' key for the batches' replays: the time. */
static int64_t hs__mbmark_key(const void *rec)
{
    hs__mbmark_t m;

    memcpy(&m, rec, sizeof m);
    return m.ts_ns;
}

static int hs__cmp_mb(const void *a, const void *b)
{
    const hs__mb_t *x = a, *y = b;

    return x->s < y->s ? -1 : x->s > y->s;
}

/* Appends a micro-batch of step k starting at ts to f->mbs. */
static hs_err_t hs__mb_add(hs__file_t *f, size_t k, int64_t ts,
                           hs_error_t *err)
{
    hs__mb_t *b;

    {
        hs__mb_t *nb = hs__grow(f->mbs, &f->cap_mbs, f->n_mbs, sizeof *nb,
                                64);
        if (nb == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                                "out of memory");
        f->mbs = nb;
    }
    b = &f->mbs[f->n_mbs++];
    memset(b, 0, sizeof *b);
    b->step = k;
    b->s = ts;
    b->dl_end = INT64_MIN;
    b->b0 = INT64_MAX;
    b->bend = INT64_MIN;
    return HS_OK;
}

/* hs__batch_mbs' replay of the marks: a micro-batch for each of the main
   thread's marks in a window of the batch's steps. */
static hs_err_t hs__keep_mbmark(void *ctx, const void *rec)
{
    hs__file_t *f = ctx;
    hs__mbmark_t m;
    long k;

    memcpy(&m, rec, sizeof m);
    if (m.ts_ns < f->bst_ts_lo || m.ts_ns > f->bst_ts_hi ||
        !f->thr[m.thr].main_thr || (k = hs__find_step(f, m.ts_ns)) < 0 ||
        (size_t)k < f->st0 || (size_t)k >= f->st0 + f->n_bst)
        return HS_OK;
    return hs__mb_add(f, (size_t)k, m.ts_ns, f->err);
}

/* Gives each step of the batch the micro-batch marks its window holds,
   in time order, into f->mbs (the previous batch's go).  The windows
   (sorted, clipped: none overlaps the next) go by start, so in time
   order the marks' steps never go back: f->mbs is in step order, then
   start order (hs__batch_steps_mbs walks it); marks of the same time are
   the same micro-batch. */
static hs_err_t hs__batch_mbs(hs__file_t *f, hs_error_t *err)
{
    hs_err_t rc;

    f->n_mbs = 0;
    if ((rc = hs_reclog_each_range(&f->lmb, f->bst_ts_lo, f->bst_ts_hi,
                                   hs__keep_mbmark, f, f->path, err)) !=
        HS_OK)
        return rc;
    if (f->n_mbs > 1)
        qsort(f->mbs, f->n_mbs, sizeof *f->mbs, hs__cmp_mb);
    return HS_OK;
}

/* ------------------------------------------------------------------ */
/* Pass 2: CPU marks per step                                            */

/* The earlier micro-batch of step s (two or more) that holds time t,
   before its last one's start: the last starting at or before t, the
   first when none does. */
static size_t hs__mb_at(const hs__step_t *s, int64_t t)
{
    size_t lo = 0, hi = s->n_mb - 1;   /* the last one does not hold t */

    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->mb[mid].s <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* A DataLoader or backward mark m of step s that falls before its last
   micro-batch: to the micro-batch that holds it (the DataLoader time
   still adds up in the step's dl_sum). */
static void hs__early_mark(hs__file_t *f, hs__step_t *s,
                           const hs__mrec_t *m)
{
    int64_t end = m->ts_ns + m->dur_ns;
    hs__mb_t *b = &s->mb[hs__mb_at(s, m->ts_ns)];

    if (m->mark == HS__M_DL) {
        s->dl_sum += m->dur_ns;
        s->dl_n++;
        if (end > b->dl_end)
            b->dl_end = end;
        return;
    }
    if (m->ts_ns < b->b0)
        b->b0 = m->ts_ns;
    if (end > b->bend)
        b->bend = end;
    f->any_bwd = 1;
}

static hs_err_t hs__add_coll(hs__file_t *f, hs__step_t *s, int kind,
                             int64_t ts, uint64_t bytes, int known)
{
    hs__coll_t *c;

    {
        /* most steps have one or two calls of each kind: start small,
           the array lives as long as the step */
        hs__coll_t *nc = hs__grow(s->coll, &s->cap_coll, s->n_coll,
                                  sizeof *nc, 2);
        if (nc == NULL)
            return hs_error_set(f->err, HS_ERR_NOMEM, f->path, 0, 0,
                                "out of memory");
        s->coll = nc;
    }
    c = &s->coll[s->n_coll++];
    c->ts_ns = ts;
    c->bytes = bytes;
    c->kind = kind;
    c->known = known;
    return HS_OK;
}

/* The pass over the marks before the batches: the all-reduce calls of
   each kind in the steps (for hs__choose_kind) and whether any step has
   a backward operator (any_bwd), the same as the batches' replays of
   the marks find. */
static hs_err_t hs__count_mark(void *ctx, const void *rec)
{
    hs__file_t *f = ctx;
    hs__mrec_t m;

    memcpy(&m, rec, sizeof m);
    if (m.pid_kind != f->main_pid.kind || m.pid_v != f->main_pid.v ||
        (m.mark != HS__M_BWD && m.mark != HS__M_COLL) ||
        hs__find_step(f, m.ts_ns) < 0)
        return HS_OK;
    if (m.mark == HS__M_BWD)
        f->any_bwd = 1;
    else if (m.ckind >= 0 && m.ckind < 4) {
        f->kind_n[m.ckind]++;
        f->kind_bad[m.ckind] += !m.known;
    }
    return HS_OK;
}

static hs_err_t hs__replay_mark(void *ctx, const void *rec)
{
    hs__file_t *f = ctx;
    hs__mrec_t m;
    hs__step_t *s;
    long k;
    int64_t end;

    memcpy(&m, rec, sizeof m);
    if (m.pid_kind != f->main_pid.kind || m.pid_v != f->main_pid.v)
        return HS_OK;
    k = hs__find_step(f, m.ts_ns);
    if (k < 0 || (size_t)k < f->st0 || (size_t)k >= f->st0 + f->n_bst)
        return HS_OK;   /* not the batch's */
    s = HS__ST(f, k);
    if (s->n_mb >= 2 && m.ts_ns < s->fs &&
        (m.mark == HS__M_DL || m.mark == HS__M_BWD)) {
        hs__early_mark(f, s, &m);
        return HS_OK;
    }
    end = m.ts_ns + m.dur_ns;
    switch (m.mark) {
    case HS__M_DL:
        s->dl_sum += m.dur_ns;
        if (end > s->dl_end)
            s->dl_end = end;
        s->dl_n++;
        break;
    case HS__M_BWD:
        if (m.ts_ns < s->b0) {
            s->b0 = m.ts_ns;
            s->b1_dur = m.dur_ns;
        }
        if (end > s->bend)
            s->bend = end;
        s->n_bwd++;
        f->any_bwd = 1;
        break;
    case HS__M_OPT:
        s->opt_sum += m.dur_ns;
        if (m.ts_ns < s->opt_s)
            s->opt_s = m.ts_ns;
        if (end > s->opt_e)
            s->opt_e = end;
        s->n_opt++;
        break;
    default:
        return hs__add_coll(f, s, m.ckind, m.ts_ns, m.bytes, m.known);
    }
    return HS_OK;
}

/* ------------------------------------------------------------------ */
/* The forward's top-level operators                                     */

/* The start of step s's forward: the end of its DataLoader call, else
   the window's start (with micro-batches, the last one's). */
static int64_t hs__fwd_start(const hs__step_t *s)
{
    return s->dl_n > 0 && s->dl_end > s->fs ? s->dl_end : s->fs;
}

/* Keeps op (ts, end) among step s's top-level operators: dropped when one
   of them holds it, else inserted in start order, after removing those it
   holds.  The kept spans never hold one another, so, in start order,
   their ends grow too: the one that could hold a new span is the last
   that starts at or before it, and those it holds follow it. */
static hs_err_t hs__op_keep(hs__file_t *f, hs__step_t *s, int64_t ts,
                            int64_t end, uint32_t name)
{
    size_t lo = 0, hi = s->n_ops, j;

    if (hi > 0 && (s->ops[hi - 1].ts_ns < ts ||
                   (s->ops[hi - 1].ts_ns == ts && s->ops[hi - 1].end_ns >= end)))
        lo = hi;        /* after the last (ops mostly come in time order) */
    while (lo < hi) {   /* the first op that starts after ts, or at ts
                           and ends before end */
        size_t mid = lo + (hi - lo) / 2;
        const hs__op_t *o = &s->ops[mid];
        if (o->ts_ns < ts || (o->ts_ns == ts && o->end_ns >= end))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && s->ops[lo - 1].ts_ns <= ts && s->ops[lo - 1].end_ns >= end)
        return HS_OK;   /* inside an operator already kept */
    for (j = lo; j < s->n_ops && s->ops[j].end_ns <= end; j++)
        ;
    if (j > lo) {       /* it holds ops[lo, j): they go */
        memmove(&s->ops[lo + 1], &s->ops[j],
                (s->n_ops - j) * sizeof *s->ops);
        s->n_ops -= j - lo - 1;
    } else {
        if (s->n_ops == s->cap_ops) {
            /* x1.5: less slack than doubling in the budget */
            size_t cap = s->cap_ops ? s->cap_ops + s->cap_ops / 2 : 16;
            size_t more = (cap - s->cap_ops) * sizeof *s->ops;
            hs__op_t *no;
            if (f->ops_limited && f->ops_bytes + more > f->ops_budget) {
                f->ops_over = 1;    /* the batch is too big: not an error */
                return HS_ERR_NOMEM;
            }
            no = realloc(s->ops, cap * sizeof *no);
            if (no == NULL)
                return hs_error_set(f->err, HS_ERR_NOMEM, f->path, 0, 0,
                                    "out of memory");
            s->ops = no;
            s->cap_ops = cap;
            f->ops_bytes += more;
        }
        memmove(&s->ops[lo + 1], &s->ops[lo],
                (s->n_ops - lo) * sizeof *s->ops);
        s->n_ops++;
    }
    memset(&s->ops[lo], 0, sizeof s->ops[lo]);
    s->ops[lo].ts_ns = ts;
    s->ops[lo].end_ns = end;
    s->ops[lo].name = name;
    return HS_OK;
}

static hs_err_t hs__replay_op(void *ctx, const void *rec)
{
    hs__file_t *f = ctx;
    hs__orec_t o;
    hs__step_t *s;
    long k;

    memcpy(&o, rec, sizeof o);
    if (o.ts_ns < f->b_ts_lo || o.ts_ns >= f->b_ts_hi ||
        !f->thr[o.thr].main_thr)
        return HS_OK;
    k = hs__find_step(f, o.ts_ns);
    if (k < 0 || (size_t)k < f->b_lo || (size_t)k >= f->b_hi)
        return HS_OK;
    s = HS__ST(f, k);
    if (s->b0 == INT64_MAX || o.ts_ns < hs__fwd_start(s) || o.ts_ns >= s->b0)
        return HS_OK;
    return hs__op_keep(f, s, o.ts_ns, o.ts_ns + o.dur_ns, o.name);
}

/* The index of step s's top-level operator whose span holds t, or -1. */
static long hs__op_at(const hs__step_t *s, int64_t t, size_t *hint)
{
    size_t lo = 0, hi = s->n_ops, h;

    /* the last answer or the one after it first (launches come mostly in
       time order): the same as the search */
    for (h = *hint; h < hi && h <= *hint + 1; h++)
        if (s->ops[h].ts_ns <= t && (h + 1 == hi || s->ops[h + 1].ts_ns > t)) {
            lo = hi = h + 1;
            break;
        }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ops[mid].ts_ns <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    *hint = lo - 1;
    if (t >= s->ops[lo - 1].end_ns)
        return -1;
    return (long)lo - 1;
}

/* ------------------------------------------------------------------ */
/* Passes 3, 4: device kernels by correlation id                         */

static int hs__phase_of(const hs__step_t *s, int64_t t)
{
    int64_t f0 = hs__fwd_start(s);

    if (s->b0 == INT64_MAX)
        return -1;
    if (t >= f0 && t < s->b0)
        return HS__P_FWD;
    if (t >= s->b0 && t < s->b0 + s->b1_dur)
        return HS__P_B1;
    if (t >= s->b0 && t < s->bend)
        return HS__P_BWD;
    if (s->n_opt > 0 && t >= s->opt_s && t < s->opt_e)
        return HS__P_OPT;
    return -1;
}

/* A launch r of step s before its last micro-batch: into the range of
   the forward ([its DataLoader end, or its start, to b0)) or of the
   backward ([b0, bend)) of the earlier micro-batch that holds it. */
static void hs__early_launch(hs__step_t *s, const hs__rrec_t *r)
{
    hs__mb_t *b = &s->mb[hs__mb_at(s, r->ts_ns)];
    int64_t f0 = b->dl_end > b->s ? b->dl_end : b->s;
    int p;

    if (b->b0 == INT64_MAX)
        return;
    if (r->ts_ns >= f0 && r->ts_ns < b->b0)
        p = 0;
    else if (r->ts_ns >= b->b0 && r->ts_ns < b->bend)
        p = 1;
    else
        return;
    if (!b->has_corr[p]) {
        b->has_corr[p] = 1;
        b->corr_lo[p] = b->corr_hi[p] = r->corr;
    } else {
        if (r->corr < b->corr_lo[p])
            b->corr_lo[p] = r->corr;
        if (r->corr > b->corr_hi[p])
            b->corr_hi[p] = r->corr;
    }
}

/* A forward launch r of step s (the batch's): to the main thread's
   top-level operator that holds it, else to the step's loose launches. */
static hs_err_t hs__runtime_op(hs__file_t *f, hs__step_t *s,
                               const hs__rrec_t *r)
{
    long o = f->thr[r->thr].main_thr ? hs__op_at(s, r->ts_ns, &f->op_hint)
                                     : -1;
    hs__op_t *op;

    if (o < 0) {
        uint64_t *nl = hs__grow(s->loose, &s->cap_loose, s->n_loose,
                                sizeof *nl, 8);
        if (nl == NULL)
            return hs_error_set(f->err, HS_ERR_NOMEM, f->path, 0, 0,
                                "out of memory");
        s->loose = nl;
        s->loose[s->n_loose++] = r->corr;
        return HS_OK;
    }
    op = &s->ops[o];
    if (!op->has_corr) {
        op->has_corr = 1;
        op->corr_lo = op->corr_hi = r->corr;
    } else {
        if (r->corr < op->corr_lo)
            op->corr_lo = r->corr;
        if (r->corr > op->corr_hi)
            op->corr_hi = r->corr;
    }
    return HS_OK;
}

/* A launch r in phase p of step s: the first bucket call after it gets
   its id as threshold; the phase's range of ids takes it in. */
static void hs__runtime_phase(hs__step_t *s, int p, const hs__rrec_t *r)
{
    if ((p == HS__P_B1 || p == HS__P_BWD) && s->nb > 0) {
        /* the first bucket call after this launch */
        size_t lo = 0, hi = s->nb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->bts[mid] <= r->ts_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < s->nb && r->corr > s->bthr[lo])
            s->bthr[lo] = r->corr;
    }
    if (!s->has_corr[p]) {
        s->has_corr[p] = 1;
        s->corr_lo[p] = s->corr_hi[p] = r->corr;
    } else {
        if (r->corr < s->corr_lo[p])
            s->corr_lo[p] = r->corr;
        if (r->corr > s->corr_hi[p])
            s->corr_hi[p] = r->corr;
    }
}

static hs_err_t hs__replay_runtime(void *ctx, const void *rec)
{
    hs__file_t *f = ctx;
    hs__rrec_t r;
    hs__step_t *s;
    long k;
    int p;

    memcpy(&r, rec, sizeof r);
    if (!f->thr[r.thr].main_pid ||
        (f->rmode == HS__RM_OPS &&
         (r.ts_ns < f->b_ts_lo || r.ts_ns >= f->b_ts_hi)))
        return HS_OK;
    k = hs__find_step(f, r.ts_ns);
    if (k < 0 || (size_t)k < f->st0 || (size_t)k >= f->st0 + f->n_bst)
        return HS_OK;
    s = HS__ST(f, k);
    if (s->n_mb >= 2 && r.ts_ns < s->fs) {
        hs__early_launch(s, &r);
        return HS_OK;
    }
    p = hs__phase_of(s, r.ts_ns);
    if (p < 0)
        return HS_OK;
    if (f->rmode & HS__RM_PHASES)
        hs__runtime_phase(s, p, &r);
    if (p == HS__P_FWD && (f->rmode & HS__RM_OPS) && (size_t)k >= f->b_lo &&
        (size_t)k < f->b_hi)
        return hs__runtime_op(f, s, &r);
    return HS_OK;
}

/* Communication kernels are not compute. */
static int hs__is_comm_kernel(const char *nm)
{
    return hs__starts(nm, "nccl") || hs__starts(nm, "rccl") ||
           (hs__starts(nm, "void ") && (hs__starts(nm + 5, "ncclKernel") ||
                                        hs__starts(nm + 5, "rccl"))) ||
           strstr(nm, "ncclDevKernel") != NULL;
}

/* The operator of step s whose launches' id range holds corr (the first
   such by corr_lo), or -1. */
static long hs__op_of_corr(const hs__step_t *s, uint64_t corr,
                           size_t *hint)
{
    size_t lo = 0, hi = s->n_op_by_corr, h;
    const hs__op_t *op;

    /* the last answer or the one after it first (kernels come mostly in
       launch order): the same as the search */
    for (h = *hint; h < hi && h <= *hint + 1; h++)
        if (s->ops[s->op_by_corr[h]].corr_lo <= corr &&
            (h + 1 == hi || s->ops[s->op_by_corr[h + 1]].corr_lo > corr)) {
            lo = hi = h + 1;
            break;
        }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ops[s->op_by_corr[mid]].corr_lo <= corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    *hint = lo - 1;
    op = &s->ops[s->op_by_corr[lo - 1]];
    return corr <= op->corr_hi ? (long)s->op_by_corr[lo - 1] : -1;
}

/* A forward kernel e of step s: its time to the operator whose
   launches' ids hold its id, unless a loose launch (another thread's)
   has that id. */
static void hs__kernel_op(hs__file_t *f, hs__step_t *s,
                          const hs__krec_t *e)
{
    size_t a = 0, b = s->n_loose;
    long o;

    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (s->loose[mid] < e->corr)
            a = mid + 1;
        else
            b = mid;
    }
    if (a < s->n_loose && s->loose[a] == e->corr)
        return;
    if ((o = hs__op_of_corr(s, e->corr, &f->corr_hint)) >= 0)
        s->ops[o].k_sum += e->dur_ns;
}

static hs_err_t hs__replay_kernel(void *ctx, const void *rec)
{
    hs__file_t *f = ctx;
    size_t lo = 0, hi = f->n_iv;
    const hs__ival_t *iv;
    hs__step_t *s;
    hs__krec_t e;

    memcpy(&e, rec, sizeof e);
    if (f->rmode == HS__RM_OPS &&
        (e.corr < f->b_corr_lo || e.corr > f->b_corr_hi))
        return HS_OK;   /* not the batch's forward */
    if (f->iv_hint < hi && f->iv[f->iv_hint].lo <= e.corr &&
        (f->iv_hint + 1 == hi || f->iv[f->iv_hint + 1].lo > e.corr))
        lo = hi = f->iv_hint + 1;   /* the last answer: the search's */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->iv[mid].lo <= e.corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return HS_OK;
    f->iv_hint = lo - 1;
    iv = &f->iv[lo - 1];
    if (e.corr > iv->lim)
        return HS_OK;
    s = HS__ST(f, iv->step);
    if (iv->mb >= 0) {      /* an earlier micro-batch's */
        if (f->rmode & HS__RM_PHASES) {
            s->mb[iv->mb].k_sum[iv->phase] += e.dur_ns;
            s->k_n_mb++;
        }
        return HS_OK;
    }
    if (iv->phase == HS__P_FWD && (f->rmode & HS__RM_OPS) &&
        iv->step >= f->b_lo && iv->step < f->b_hi)
        hs__kernel_op(f, s, &e);
    if (!(f->rmode & HS__RM_PHASES))
        return HS_OK;
    s->k_sum[iv->phase] += e.dur_ns;
    s->k_n[iv->phase]++;
    if (iv->phase == HS__P_B1 || iv->phase == HS__P_BWD) {
        size_t a = 0, b = s->nb;
        while (a < b) {   /* the first bucket whose threshold covers it */
            size_t mid = a + (b - a) / 2;
            if (s->bthr[mid] < e.corr)
                a = mid + 1;
            else
                b = mid;
        }
        if (a < s->nb)
            s->bseg[a] += e.dur_ns;
    }
    return HS_OK;
}

/* The ranges' order: by start, end, then step, micro-batch (-1, the
   last one's phases, first) and phase: a total order, the same in a
   batch and over the whole trace (ties of start and end are then in the
   order hs__build_ivals makes the ranges, the order glibc's merge sort
   left them in). */
static int hs__cmp_range(uint64_t lo1, uint64_t hi1, uint64_t st1,
                         long mb1, int p1, uint64_t lo2, uint64_t hi2,
                         uint64_t st2, long mb2, int p2)
{
    if (lo1 != lo2)
        return lo1 < lo2 ? -1 : 1;
    if (hi1 != hi2)
        return hi1 < hi2 ? -1 : 1;
    if (st1 != st2)
        return st1 < st2 ? -1 : 1;
    if (mb1 != mb2)
        return mb1 < mb2 ? -1 : 1;
    return p1 < p2 ? -1 : p1 > p2;
}

static int hs__cmp_ival(const void *a, const void *b)
{
    const hs__ival_t *x = a, *y = b;

    return hs__cmp_range(x->lo, x->hi, x->step, x->mb, x->phase, y->lo,
                         y->hi, y->step, y->mb, y->phase);
}

static int hs__cmp_ivrec(const void *a, const void *b)
{
    const hs__ivrec_t *x = a, *y = b;

    return hs__cmp_range(x->lo, x->hi, x->step, (long)x->mb, x->phase,
                         y->lo, y->hi, y->step, (long)y->mb, y->phase);
}

/* Step order of the successors' starts: (step, micro-batch, phase), the
   order hs__build_ivals makes a batch's ranges in. */
static int hs__cmp_nxrec(const void *a, const void *b)
{
    const hs__nxrec_t *x = a, *y = b;

    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    if (x->mb != y->mb)
        return x->mb < y->mb ? -1 : 1;
    return x->phase < y->phase ? -1 : x->phase > y->phase;
}

/* Sorts s->op_by_corr by the operators' first id (insertion sort: the
   ids mostly come in start order already). */
static void hs__sort_ops_by_corr(hs__step_t *s)
{
    size_t i, j;

    for (i = 1; i < s->n_op_by_corr; i++) {
        size_t v = s->op_by_corr[i];
        uint64_t key = s->ops[v].corr_lo;
        for (j = i; j > 0 && (s->ops[s->op_by_corr[j - 1]].corr_lo > key ||
                              (s->ops[s->op_by_corr[j - 1]].corr_lo == key &&
                               s->op_by_corr[j - 1] > v));
             j--)
            s->op_by_corr[j] = s->op_by_corr[j - 1];
        s->op_by_corr[j] = v;
    }
}

static int hs__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Appends to f->iv the id range [lo, hi] of phase p of step i (of its
   earlier micro-batch mb, or -1). */
static void hs__ival_add(hs__file_t *f, uint64_t lo, uint64_t hi, size_t i,
                         int p, long mb)
{
    hs__ival_t *v = &f->iv[f->n_iv++];

    v->lo = lo;
    v->hi = hi;
    v->lim = hi;
    v->step = i;
    v->phase = p;
    v->mb = mb;
}

/* Whether the batch's id ranges all come after the earlier batches'
   (else f->inexact: a kernel could belong to a range of another batch,
   and the steps are replayed again as one batch). */
static hs_err_t hs__ivals_apart(hs__file_t *f)
{
    size_t i;

    if (f->n_iv == 0)
        return HS_OK;
    if (f->any_iv && f->iv[0].lo <= f->prev_iv_hi && f->nx == HS__NX_NONE)
        f->inexact = 1;
    f->b_iv_hi = 0;
    for (i = 0; i < f->n_iv; i++) {
        if (f->iv[i].hi > f->b_iv_hi)
            f->b_iv_hi = f->iv[i].hi;
        if (!f->any_iv || f->iv[i].hi > f->prev_iv_hi) {
            f->prev_iv_hi = f->iv[i].hi;
            f->any_iv = 1;
        }
    }
    return HS_OK;
}

/* HS__NX_COLLECT: the batch's ranges to the sort of every batch's. */
static hs_err_t hs__ivals_collect(hs__file_t *f)
{
    size_t i;
    hs_err_t rc = HS_OK;

    for (i = 0; i < f->n_iv && rc == HS_OK; i++) {
        hs__ivrec_t v;

        memset(&v, 0, sizeof v);
        v.lo = f->iv[i].lo;
        v.hi = f->iv[i].hi;
        v.step = f->iv[i].step;
        v.mb = f->iv[i].mb;
        v.phase = f->iv[i].phase;
        rc = hs_xsort_add(f->nxs, &v);
    }
    return rc;
}

/* hs__ivals_attach's replay of f->lnx: the batch's next range (in the
   order made, which is f->lnx's) given its successor's start: its
   kernels' bound lim is then below it; a range whose successor starts
   where it does gets no kernel (step set to SIZE_MAX: dropped). */
static hs_err_t hs__attach_next(void *ctx, const void *rec)
{
    hs__file_t *f = ctx;
    hs__nxrec_t x;
    hs__ival_t *v;

    memcpy(&x, rec, sizeof x);
    if (x.step < f->st0 || x.step >= f->st0 + f->n_bst)
        return HS_OK;   /* not the batch's */
    v = f->nx_k < f->n_iv ? &f->iv[f->nx_k] : NULL;
    if (v == NULL || v->step != x.step || v->mb != (long)x.mb ||
        v->phase != x.phase)
        return hs_error_set(f->err, HS_ERR_IO, f->path, 0, 0,
                            "the kernels' id ranges read back from their "
                            "temporary file are not the steps' (step "
                            "%" PRIu64 ")", x.step);
    f->nx_k++;
    if (x.has_next && x.next_lo <= v->lo)
        v->step = SIZE_MAX;
    else if (x.has_next && x.next_lo - 1 < v->hi)
        v->lim = x.next_lo - 1;
    return HS_OK;
}

/* HS__NX_ATTACH: the batch's ranges (in the order made) given their
   successors' starts in the whole trace's order; those that can get no
   kernel dropped.  A kernel then goes to the batch's range with the
   greatest start at or below its id only when no other batch's range
   comes between them: the range the whole trace's would give it. */
static hs_err_t hs__ivals_attach(hs__file_t *f, hs_error_t *err)
{
    size_t i, n = 0;
    hs_err_t rc;

    f->nx_k = 0;
    if ((rc = hs_reclog_each_range(&f->lnx, (int64_t)f->st0,
                                   (int64_t)(f->st0 + f->n_bst - 1),
                                   hs__attach_next, f, f->path, err)) !=
        HS_OK)
        return rc;
    if (f->nx_k != f->n_iv)
        return hs_error_set(err, HS_ERR_IO, f->path, 0, 0,
                            "the kernels' id ranges read back from their "
                            "temporary file are not the steps' (%zu of "
                            "%zu)", f->nx_k, f->n_iv);
    for (i = 0; i < f->n_iv; i++)
        if (f->iv[i].step != SIZE_MAX)
            f->iv[n++] = f->iv[i];
    f->n_iv = n;
    return HS_OK;
}

/* The id ranges of the batch's steps (phases, earlier micro-batches),
   sorted, for the kernels' replay; each step's bucket thresholds made
   non-decreasing. */
static hs_err_t hs__build_ivals(hs__file_t *f, hs_error_t *err)
{
    size_t i, j, n = 0;
    int p;
    hs_err_t rc;

    for (i = 0; i < f->n_bst; i++) {
        for (p = 0; p < HS__P_N; p++)
            n += f->st[i].has_corr[p] != 0;
        for (j = 0; j < f->st[i].n_mb; j++)
            n += (f->st[i].mb[j].has_corr[0] != 0) +
                 (f->st[i].mb[j].has_corr[1] != 0);
    }
    f->iv = calloc(n ? n : 1, sizeof *f->iv);
    if (f->iv == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                            "out of memory");
    for (i = 0; i < f->n_bst; i++) {
        const hs__step_t *s = &f->st[i];
        for (p = 0; p < HS__P_N; p++)
            if (s->has_corr[p])
                hs__ival_add(f, s->corr_lo[p], s->corr_hi[p], f->st0 + i,
                             p, -1);
        for (j = 0; j < s->n_mb; j++)
            for (p = 0; p < 2; p++)
                if (s->mb[j].has_corr[p])
                    hs__ival_add(f, s->mb[j].corr_lo[p],
                                 s->mb[j].corr_hi[p], f->st0 + i, p,
                                 (long)j);
    }
    if (f->nx == HS__NX_COLLECT)
        return hs__ivals_collect(f);
    if (f->nx == HS__NX_ATTACH && (rc = hs__ivals_attach(f, err)) != HS_OK)
        return rc;
    qsort(f->iv, f->n_iv, sizeof *f->iv, hs__cmp_ival);
    for (i = 0; i < f->n_bst; i++) {
        size_t c;
        for (c = 1; c < f->st[i].nb; c++)
            if (f->st[i].bthr[c] < f->st[i].bthr[c - 1])
                f->st[i].bthr[c] = f->st[i].bthr[c - 1];
    }
    for (i = 1; i < f->n_iv; i++)
        if (f->iv[i].lo <= f->iv[i - 1].hi)
            f->iv_overlap = 1;
    return hs__ivals_apart(f);
}

/* Per step of [lo, hi): the operators that launched, by their first id;
   the loose launches by id (for the kernels' replay). */
static hs_err_t hs__index_ops(hs__file_t *f, size_t lo, size_t hi,
                              hs_error_t *err)
{
    size_t i;

    f->b_corr_lo = UINT64_MAX;
    f->b_corr_hi = 0;
    for (i = lo; i < hi; i++) {
        hs__step_t *s = HS__ST(f, i);
        size_t j, n = 0;

        if (s->has_corr[HS__P_FWD]) {
            if (s->corr_lo[HS__P_FWD] < f->b_corr_lo)
                f->b_corr_lo = s->corr_lo[HS__P_FWD];
            if (s->corr_hi[HS__P_FWD] > f->b_corr_hi)
                f->b_corr_hi = s->corr_hi[HS__P_FWD];
        }

        if (s->n_loose > 1)
            qsort(s->loose, s->n_loose, sizeof *s->loose, hs__cmp_u64);
        for (j = 0; j < s->n_ops; j++)
            n += s->ops[j].has_corr != 0;
        if (n == 0)
            continue;
        s->op_by_corr = malloc(n * sizeof *s->op_by_corr);
        if (s->op_by_corr == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                                "out of memory");
        for (j = 0; j < s->n_ops; j++)
            if (s->ops[j].has_corr)
                s->op_by_corr[s->n_op_by_corr++] = j;
        hs__sort_ops_by_corr(s);
    }
    return HS_OK;
}

/* ------------------------------------------------------------------ */
/* The per-step table                                                    */

/* Picks the file's payload source: record_param_comms, else the first
   all-reduce op name whose every call has shapes. */
static void hs__choose_kind(hs__file_t *f)
{
    int k;

    f->ckind = -1;
    for (k = 0; k < HS__C_N; k++) {
        size_t n = f->kind_n[k], bad = f->kind_bad[k];
        if (n > 0 && (k == HS__C_PC ? n > bad : bad == 0)) {
            f->ckind = k;
            return;
        }
    }
}

static int hs__cmp_coll(const void *a, const void *b)
{
    const hs__coll_t *x = a, *y = b;

    return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/* The all-reduce calls of step s that carry bucket timing, for the
   sidecar: the first kind with exactly nb calls in the step. */
static int hs__timing_kind(const hs__step_t *s, size_t nb)
{
    static const int order[] = {HS__C_C10D, HS__C_NCCL, HS__C_GLOO,
                                HS__C_PC};
    size_t i, j;

    for (i = 0; i < 4; i++) {
        size_t n = 0;
        for (j = 0; j < s->n_coll; j++)
            n += s->coll[j].kind == order[i];
        if (n == nb && n > 0)
            return order[i];
    }
    return -1;
}

/* After the batch's marks: per step the bucket calls (of the payload
   kind, hs__choose_kind). */
static hs_err_t hs__prepare_buckets(const hs_kineto_opts_t *o,
                                    hs__file_t *f, hs_error_t *err)
{
    size_t i, j;

    for (i = 0; i < f->n_bst; i++) {
        hs__step_t *s = &f->st[i];
        size_t n = 0;
        if (s->n_coll > 1)
            qsort(s->coll, s->n_coll, sizeof *s->coll, hs__cmp_coll);
        s->bk = f->ckind >= 0 ? f->ckind
                              : hs__timing_kind(s, o->want_buckets);
        if (s->bk < 0)
            continue;
        for (j = 0; j < s->n_coll; j++)
            n += s->coll[j].kind == s->bk;
        if (n == 0)
            continue;
        /* one block of 3 x n (bts, then bthr and bseg zeroed): one
           allocation a step instead of three */
        s->bts = calloc(3 * n, sizeof *s->bts);
        if (s->bts == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                                "out of memory");
        s->bthr = (uint64_t *)(s->bts + n);
        s->bseg = s->bts + 2 * n;
        for (j = 0; j < s->n_coll; j++)
            if (s->coll[j].kind == s->bk)
                s->bts[s->nb++] = s->coll[j].ts_ns;
    }
    return HS_OK;
}

/* The bucket calls of step s into b: payloads and ready times. */
static hs_err_t hs__step_buckets(const hs__file_t *f, const hs__step_t *s,
                                 hs_rank_buckets_t *b, hs_error_t *err)
{
    size_t c, k = 0;
    int64_t acc = 0;
    int gpu = f->n_kernels_seen > 0;

    b->has_bwd = s->b0 != INT64_MAX;
    b->timed = s->bk >= 0;
    if (s->nb == 0)
        return HS_OK;
    b->bytes = calloc(s->nb, sizeof *b->bytes);
    b->ready_ns = calloc(s->nb, sizeof *b->ready_ns);
    if (b->bytes == NULL || b->ready_ns == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                            "out of memory");
    b->n = s->nb;
    for (c = 0; c < s->n_coll; c++) {
        const hs__coll_t *cl = &s->coll[c];
        if (cl->kind != s->bk)
            continue;
        b->bytes[k] = cl->bytes;
        acc += s->bseg[k];
        if (b->has_bwd)
            b->ready_ns[k] = gpu ? acc : cl->ts_ns - s->b0;
        k++;
    }
    return HS_OK;
}

/* The record's index of file name id (HS__OTHER: the other), given on
   first use; UINT32_MAX when out of memory. */
#define HS__OTHER UINT32_MAX
static uint32_t hs__rname(hs__file_t *f, uint32_t id)
{
    hs_rank_t *r = f->r;
    uint32_t *slot = id == HS__OTHER ? &f->rname_other : &f->rname[id];
    char **nn;

    if (*slot != UINT32_MAX)
        return *slot;
    nn = realloc(r->op_names, (r->n_op_names + 1) * sizeof *nn);
    if (nn == NULL)
        return UINT32_MAX;
    r->op_names = nn;
    nn[r->n_op_names] = strdup(id == HS__OTHER ? HS_RANK_OP_OTHER
                                               : f->names[id]);
    if (nn[r->n_op_names] == NULL)
        return UINT32_MAX;
    *slot = (uint32_t)r->n_op_names++;
    return *slot;
}

/* Adds ns to name id's entry of *q (a new entry at the end when it has
   none). */
static hs_err_t hs__ops_add(hs__file_t *f, hs_rank_ops_t *q, size_t *cap,
                            uint32_t id, int64_t ns, hs_error_t *err)
{
    uint32_t rn = hs__rname(f, id);
    size_t j;

    if (rn == UINT32_MAX)
        return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                            "out of memory");
    for (j = 0; j < q->n; j++)
        if (q->name[j] == rn) {
            q->ns[j] += ns;
            return HS_OK;
        }
    if (q->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        uint32_t *a = realloc(q->name, nc * sizeof *a);
        int64_t *b;
        if (a == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                                "out of memory");
        q->name = a;
        b = realloc(q->ns, nc * sizeof *b);
        if (b == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                                "out of memory");
        q->ns = b;
        *cap = nc;
    }
    q->name[q->n] = rn;
    q->ns[q->n++] = ns;
    return HS_OK;
}

/* Shrinks q's arrays (of cap elements) to its n: the record keeps them
   for every step.  A failed shrink leaves them as they were. */
static void hs__ops_fit(hs_rank_ops_t *q, size_t cap)
{
    uint32_t *a;
    int64_t *b;

    if (q->n == 0 || q->n == cap)
        return;
    if ((a = realloc(q->name, q->n * sizeof *a)) != NULL)
        q->name = a;
    if ((b = realloc(q->ns, q->n * sizeof *b)) != NULL)
        q->ns = b;
}

/* Step s's forward time by operator into *q; the times add up to t_fwd:
   device traces, the kernel time charged to each operator; CPU traces,
   the operators' spans clipped to the window [f0, b0) and to the end of
   the one before; what is left, the other. */
static hs_err_t hs__step_ops(hs__file_t *f, const hs__step_t *s,
                             int64_t t_fwd, hs_rank_ops_t *q,
                             hs_error_t *err)
{
    int gpu = f->n_kernels_seen > 0;
    int64_t sum = 0, prev = hs__fwd_start(s);
    size_t j, cap = 0;
    hs_err_t rc;

    for (j = 0; j < s->n_ops; j++) {
        const hs__op_t *op = &s->ops[j];
        int64_t ns;

        if (gpu) {
            ns = op->k_sum;
        } else {
            int64_t a = op->ts_ns > prev ? op->ts_ns : prev;
            int64_t b = op->end_ns < s->b0 ? op->end_ns : s->b0;
            ns = b > a ? b - a : 0;
            if (b > prev)
                prev = b;
        }
        if (ns == 0)
            continue;
        if ((rc = hs__ops_add(f, q, &cap, op->name, ns, err)) != HS_OK)
            return rc;
        sum += ns;
    }
    if (t_fwd - sum != 0 &&
        (rc = hs__ops_add(f, q, &cap, HS__OTHER, t_fwd - sum, err)) !=
            HS_OK)
        return rc;
    hs__ops_fit(q, cap);
    return HS_OK;
}

/* Step s's forward and backward per micro-batch, from the last
   micro-batch's (*fwd, *bwd): the mean over the step's micro-batches that
   have a backward operator, to the nearest ns; each earlier one's CPU
   spans (gpu 0) or its kernels' time (gpu 1). */
static void hs__mb_means(const hs__step_t *s, int gpu, int64_t *fwd,
                         int64_t *bwd)
{
    int64_t sf = *fwd, sb = *bwd, n = 1;
    size_t j;

    for (j = 0; j + 1 < s->n_mb; j++) {
        const hs__mb_t *b = &s->mb[j];
        int64_t f0 = b->dl_end > b->s ? b->dl_end : b->s;

        if (b->b0 == INT64_MAX)
            continue;
        if (gpu) {
            sf += b->k_sum[0];
            sb += b->k_sum[1];
        } else {
            sf += b->b0 > f0 ? b->b0 - f0 : 0;
            sb += b->bend - b->b0;
        }
        n++;
    }
    *fwd = (sf + n / 2) / n;
    *bwd = (sb + n / 2) / n;
}

/* Step s's figures into o (number, window, phases).  With two or more
   micro-batches they are one micro-batch's: t_dl the step's DataLoader
   time over the micro-batches; t_fwd and t_bwd the mean over the
   micro-batches (CPU spans, or on device traces kernel time), t_b1 the
   last one's (its backward opens the all-reduce).  Returns the forward
   time its operators add up to (the last micro-batch's). */
static int64_t hs__step_figures(const hs__file_t *f, const hs__step_t *s,
                                int gpu, hs_ingest_step_t *o)
{
    int has_b = s->b0 != INT64_MAX;
    int64_t f0 = hs__fwd_start(s), ops_fwd = HS_INGEST_UNKNOWN;
    int64_t nmb = s->n_mb >= 2 ? (int64_t)s->n_mb : 1;

    o->number = s->number;
    o->start_ns = s->s;
    o->dur_ns = s->e - s->s;
    o->complete = has_b || !f->any_bwd;
    o->micro_batches = (unsigned)nmb;
    o->t_dl_ns = s->dl_n > 0 ? (s->dl_sum + nmb / 2) / nmb
                             : HS_INGEST_UNKNOWN;
    o->t_fwd_ns = o->t_b1_ns = o->t_bwd_ns = o->t_opt_ns =
        HS_INGEST_UNKNOWN;
    if (gpu) {
        if (has_b) {
            o->t_fwd_ns = ops_fwd = s->k_sum[HS__P_FWD];
            o->t_b1_ns = s->k_sum[HS__P_B1];
            o->t_bwd_ns = s->k_sum[HS__P_B1] + s->k_sum[HS__P_BWD];
            if (nmb > 1)
                hs__mb_means(s, 1, &o->t_fwd_ns, &o->t_bwd_ns);
        }
        if (s->n_opt > 0)
            o->t_opt_ns = s->k_sum[HS__P_OPT];
        /* the whole step's: every micro-batch's and the optimizer's */
        o->n_kernels = s->k_n[0] + s->k_n[1] + s->k_n[2] + s->k_n[3] +
                       s->k_n_mb;
        return ops_fwd;
    }
    if (has_b) {
        o->t_fwd_ns = ops_fwd = s->b0 > f0 ? s->b0 - f0 : 0;
        o->t_b1_ns = s->b1_dur;
        o->t_bwd_ns = s->bend - s->b0;
        if (nmb > 1)
            hs__mb_means(s, 0, &o->t_fwd_ns, &o->t_bwd_ns);
    }
    if (s->n_opt > 0)
        o->t_opt_ns = s->opt_sum;
    return ops_fwd;
}

/* The record's tables (steps, buckets, fwd_ops, all zero) and the
   names' record indices (none used yet). */
static hs_err_t hs__record_alloc(hs__file_t *f, hs_error_t *err)
{
    hs_rank_t *r = f->r;
    size_t i;

    size_t n = f->n_st;
    hs_err_t rc;

    if (n > f->rec_budget / HS_RANK_STEP_BYTES) {
        /* past the budget: the entries go to a file batch by batch */
        if ((rc = hs_rank_spill_start(r, err)) != HS_OK)
            return rc;
        n = f->step_batch < n ? f->step_batch : n;
    }
    r->steps = calloc(n ? n : 1, sizeof *r->steps);
    r->buckets = calloc(n ? n : 1, sizeof *r->buckets);
    r->fwd_ops = calloc(n ? n : 1, sizeof *r->fwd_ops);
    if (f->n_names > 0)
        f->rname = malloc(f->n_names * sizeof *f->rname);
    if (r->steps == NULL || r->buckets == NULL || r->fwd_ops == NULL ||
        (f->n_names > 0 && f->rname == NULL))
        return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                            "out of memory");
    r->n_steps = f->n_st;
    r->n_held = n;
    f->rec_base = 0;
    for (i = 0; i < f->n_names; i++)
        f->rname[i] = UINT32_MAX;
    f->rname_other = UINT32_MAX;
    return HS_OK;
}

/* Frees the kernels' id intervals (hs__build_ivals) once no replay of
   the kernels is left. */
static void hs__free_ivals(hs__file_t *f)
{
    free(f->iv);
    f->iv = NULL;
    f->n_iv = 0;
    f->iv_hint = 0;
}

/* Step i's forward time by operator into the record (when its forward
   is measured), from the operators in memory. */
static hs_err_t hs__record_ops(hs__file_t *f, size_t i, hs_error_t *err)
{
    hs_ingest_step_t o;
    int64_t ops_fwd;

    memset(&o, 0, sizeof o);
    ops_fwd = hs__step_figures(f, HS__ST(f, i), f->n_kernels_seen > 0, &o);
    if (o.t_fwd_ns == HS_INGEST_UNKNOWN)
        return HS_OK;
    return hs__step_ops(f, HS__ST(f, i), ops_fwd,
                        &f->r->fwd_ops[i - f->rec_base], err);
}

/* The record's step table and buckets from the replays' marks (after
   hs__record_alloc); the forward's operators too unless ops_done (the
   batches did them).  Each step's collectives and bucket arrays are
   freed once its entry is made (their last use), so the record's
   arrays take their place instead of adding to them. */
static hs_err_t hs__build_record(hs__file_t *f, int ops_done,
                                 hs_error_t *err)
{
    hs_rank_t *r = f->r;
    size_t i, j;
    int gpu = f->n_kernels_seen > 0;
    hs_err_t rc;

    hs__free_ivals(f);
    for (i = f->st0; i < f->st0 + f->n_bst; i++) {
        hs__step_t *s = HS__ST(f, i);
        hs_ingest_step_t *o = &r->steps[i - f->rec_base];

        hs__step_figures(f, s, gpu, o);
        if (f->ckind >= 0)
            for (j = 0; j < s->n_coll; j++)
                if (s->coll[j].kind == f->ckind && s->coll[j].known) {
                    o->ar_payload_bytes += s->coll[j].bytes;
                    o->n_allreduce++;
                }
        if ((rc = hs__step_buckets(f, s, &r->buckets[i - f->rec_base],
                                   err)) != HS_OK)
            return rc;
        if (!ops_done && (rc = hs__record_ops(f, i, err)) != HS_OK)
            return rc;
        free(s->coll);
        free(s->bts);
        s->coll = NULL;
        s->bts = NULL;
        s->bthr = NULL;
        s->bseg = NULL;
        s->n_coll = s->cap_coll = s->nb = 0;
    }
    r->gpu = gpu;
    r->ar_known = f->ckind >= 0;
    r->ar_source = f->ckind == HS__C_PC ? HS_AR_PARAM_COMMS : HS_AR_SHAPES;
    return HS_OK;
}

/* ------------------------------------------------------------------ */
/* The replays of the operators, runtime calls and kernels              */

/* Makes [lo, hi) the steps whose operators are replayed. */
static void hs__batch(hs__file_t *f, size_t lo, size_t hi)
{
    f->b_lo = lo;
    f->b_hi = hi;
    f->b_ts_lo = hs__win_s(f, lo);
    f->b_ts_hi = hs__win_e(f, hi - 1);
    f->ops_limited = hi - lo > 1;
    f->ops_over = 0;
}

/* Frees the operators (and their indices) of steps [lo, hi). */
static void hs__free_ops(hs__file_t *f, size_t lo, size_t hi)
{
    size_t i;

    for (i = lo; i < hi; i++) {
        hs__step_t *s = HS__ST(f, i);
        free(s->ops);
        free(s->op_by_corr);
        free(s->loose);
        s->ops = NULL;
        s->op_by_corr = NULL;
        s->loose = NULL;
        s->n_ops = s->cap_ops = s->n_op_by_corr = 0;
        s->n_loose = s->cap_loose = 0;
    }
    f->ops_bytes = 0;
}

/* The operators' replay for the batch; HS_OK with f->ops_over set when
   they went past their budget (then freed). */
static hs_err_t hs__batch_ops(hs__file_t *f, hs_error_t *err)
{
    hs_err_t rc = hs_reclog_each_range(&f->lo, f->b_ts_lo, f->b_ts_hi - 1,
                                       hs__replay_op, f, f->path, err);

    if (f->ops_over) {
        hs__free_ops(f, f->b_lo, f->b_hi);
        return HS_OK;
    }
    return rc;
}

/* Releases log l once the last batch of steps is done with it. */
static void hs__log_done(hs__file_t *f, hs_reclog_t *l)
{
    if (f->last_batch)
        hs_reclog_clear(l);
}

/* The runtime calls of the batch of steps (their times lie in its
   windows) replayed in mode f->rmode, then the batch's id ranges. */
static hs_err_t hs__batch_runtime(hs__file_t *f, hs_error_t *err)
{
    hs_err_t rc = hs_reclog_each_range(&f->lr, f->bst_ts_lo, f->bst_ts_hi,
                                       hs__replay_runtime, f, f->path, err);

    return rc != HS_OK ? rc : hs__build_ivals(f, err);
}

/* The kernels whose ids the batch's ranges span, replayed in mode
   f->rmode (the ranges of different batches do not interleave, else
   f->inexact). */
static hs_err_t hs__batch_kernels(hs__file_t *f, hs_error_t *err)
{
    if (f->n_iv == 0 || f->inexact)
        return HS_OK;
    return hs_reclog_each_range(&f->lk, hs__corr_key(f->iv[0].lo),
                                hs__corr_key(f->b_iv_hi), hs__replay_kernel,
                                f, f->path, err);
}

/* Every step of the batch at once (the operators fit in their budget):
   the runtime calls and kernels replayed once for both the phases and
   the operators, as the passes over the text did. */
static hs_err_t hs__replay_whole(hs__file_t *f, hs_error_t *err)
{
    hs_err_t rc;

    hs__log_done(f, &f->lo);
    f->rmode = HS__RM_PHASES | HS__RM_OPS;
    if (f->n_kernels_seen > 0) {
        if ((rc = hs__batch_runtime(f, err)) != HS_OK)
            return rc;
        hs__log_done(f, &f->lr);
        if ((rc = hs__index_ops(f, f->st0, f->st0 + f->n_bst, err)) !=
                HS_OK ||
            (rc = hs__batch_kernels(f, err)) != HS_OK)
            return rc;
        hs__log_done(f, &f->lk);
    }
    return f->inexact ? HS_OK : hs__build_record(f, 0, err);
}

/* One batch's operators (replayed into memory already): their launches
   and kernels, then each step's forward by operator into the record;
   the operators are freed. */
static hs_err_t hs__batch_out(hs__file_t *f, hs_error_t *err)
{
    hs_err_t rc = HS_OK;
    size_t i;

    if (f->n_kernels_seen > 0 &&
        ((rc = hs_reclog_each_range(&f->lr, f->b_ts_lo, f->b_ts_hi - 1,
                                    hs__replay_runtime, f, f->path,
                                    err)) != HS_OK ||
         (rc = hs__index_ops(f, f->b_lo, f->b_hi, err)) != HS_OK ||
         (rc = hs_reclog_each_range(&f->lk, hs__corr_key(f->b_corr_lo),
                                    hs__corr_key(f->b_corr_hi),
                                    hs__replay_kernel, f, f->path,
                                    err)) != HS_OK))
        return rc;
    for (i = f->b_lo; i < f->b_hi && rc == HS_OK; i++)
        rc = hs__record_ops(f, i, err);
    hs__free_ops(f, f->b_lo, f->b_hi);
    return rc;
}

/* The operators past their budget: the phases first (runtime calls and
   kernels replayed once over every step), then the operators by batches
   of steps that fit (halved until they do; one step always does), each
   batch replaying the logs again for its own steps.  The same figures as
   hs__replay_whole: every sum and range is order-free. */
static hs_err_t hs__replay_batched(hs__file_t *f, hs_error_t *err)
{
    size_t lo = f->st0, end = f->st0 + f->n_bst;
    size_t size = f->n_bst / 2 > 0 ? f->n_bst / 2 : 1;
    hs_err_t rc;

    f->rmode = HS__RM_PHASES;
    if (f->n_kernels_seen > 0 &&
        ((rc = hs__batch_runtime(f, err)) != HS_OK ||
         (rc = hs__batch_kernels(f, err)) != HS_OK))
        return rc;
    if (f->inexact)
        return HS_OK;
    f->rmode = HS__RM_OPS;
    while (lo < end) {
        hs__batch(f, lo, end - lo < size ? end : lo + size);
        if ((rc = hs__batch_ops(f, err)) != HS_OK)
            return rc;
        if (f->ops_over) {
            size = (f->b_hi - f->b_lo) / 2;
            continue;
        }
        if ((rc = hs__batch_out(f, err)) != HS_OK)
            return rc;
        lo = f->b_hi;
    }
    hs__log_done(f, &f->lo);
    hs__log_done(f, &f->lr);
    hs__log_done(f, &f->lk);
    return hs__build_record(f, 1, err);
}

/* The replays after the marks': the forward's operators (every step at
   once when they fit in their budget, else by batches of steps), the
   runtime calls and the kernels; then the record. */
static hs_err_t hs__replays(hs__file_t *f, hs_error_t *err)
{
    hs_err_t rc;

    hs__batch(f, f->st0, f->st0 + f->n_bst);
    if ((rc = hs__batch_ops(f, err)) != HS_OK)
        return rc;
    return f->ops_over ? hs__replay_batched(f, err)
                       : hs__replay_whole(f, err);
}

/* The batch's steps' micro-batches (hs__batch_mbs), each step's
   (f->mbs is in step order) and its forward's floor. */
static hs_err_t hs__batch_steps_mbs(hs__file_t *f, hs_error_t *err)
{
    size_t i, mb0 = 0, mb1;
    hs_err_t rc;

    if ((rc = hs__batch_mbs(f, err)) != HS_OK)
        return rc;
    for (i = 0; i < f->n_bst; i++) {
        hs__step_t *s = &f->st[i];

        for (mb1 = mb0; mb1 < f->n_mbs && f->mbs[mb1].step == f->st0 + i;)
            mb1++;
        s->mb = mb1 > mb0 ? f->mbs + mb0 : NULL;
        s->n_mb = mb1 - mb0;
        s->fs = s->n_mb >= 2 ? s->mb[s->n_mb - 1].s : s->s;
        mb0 = mb1;
    }
    return HS_OK;
}

/* Makes steps [lo, hi) the batch in memory, each as its window and
   micro-batches left it (no mark replayed yet). */
static hs_err_t hs__batch_steps(hs__file_t *f, size_t lo, size_t hi,
                                hs_error_t *err)
{
    size_t i;

    hs__free_batch(f);
    if (hi - lo > f->cap_bst) {
        hs__step_t *ns = realloc(f->st, (hi - lo) * sizeof *ns);
        if (ns == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                                "out of memory");
        f->st = ns;
        f->cap_bst = hi - lo;
    }
    for (i = lo; i < hi; i++) {
        hs__step_t *s = &f->st[i - lo];

        memset(s, 0, sizeof *s);
        s->number = hs__win_number(f, i);
        s->s = hs__win_s(f, i);
        s->e = hs__win_e(f, i);
        s->b0 = INT64_MAX;
        s->bend = INT64_MIN;
        s->opt_s = INT64_MAX;
        s->opt_e = INT64_MIN;
        s->dl_end = INT64_MIN;
    }
    f->st0 = lo;
    f->n_bst = hi - lo;
    f->last_batch = hi == f->n_st;
    f->bst_ts_lo = hs__win_s(f, lo);
    f->bst_ts_hi = hs__win_s(f, lo);
    for (i = lo; i < hi; i++)
        if (f->st[i - lo].e - 1 > f->bst_ts_hi)
            f->bst_ts_hi = f->st[i - lo].e - 1;
    return hs__batch_steps_mbs(f, err);
}

/* The default number of steps per batch of the phase replays: a few
   hundred KB of step state. */
#ifndef HS__STEP_BATCH
#define HS__STEP_BATCH 1024
#endif

/* A spilled record: the batch's entries (steps [f->rec_base, hi)) to
   its file; after the last batch the held arrays go. */
static hs_err_t hs__record_spill(hs__file_t *f, size_t hi, hs_error_t *err)
{
    hs_rank_t *r = f->r;
    hs_err_t rc;

    if (r->spill == NULL)
        return HS_OK;
    if ((rc = hs_rank_spill(r, hi - f->rec_base, err)) != HS_OK)
        return rc;
    f->rec_base = hi;
    if (hi == f->n_st) {
        free(r->steps);
        free(r->buckets);
        free(r->fwd_ops);
        r->steps = NULL;
        r->buckets = NULL;
        r->fwd_ops = NULL;
        r->n_held = 0;
    }
    return HS_OK;
}

/* The replays after the read, by batches of f->step_batch steps: the
   marks counted once (the payload kind), then per batch the marks, the
   bucket calls, the forward's operators, runtime calls and kernels, and
   the batch's part of the record; each batch's step state is released
   before the next.  Stops early with f->inexact set when the batches'
   kernel id ranges interleave (the caller replays again as one batch). */
static hs_err_t hs__replay_steps(const hs_kineto_opts_t *o, hs__file_t *f,
                                 hs_error_t *err)
{
    size_t lo, hi;
    hs_err_t rc;

    if ((rc = hs_reclog_each(&f->lm, hs__count_mark, f, f->path, err)) !=
            HS_OK ||
        (rc = hs__record_alloc(f, err)) != HS_OK)
        return rc;
    hs__choose_kind(f);
    for (lo = 0; lo < f->n_st; lo = hi) {
        hi = f->n_st - lo > f->step_batch ? lo + f->step_batch : f->n_st;
        if ((rc = hs__batch_steps(f, lo, hi, err)) != HS_OK ||
            (rc = hs_reclog_each_range(&f->lm, f->bst_ts_lo,
                                       f->bst_ts_hi, hs__replay_mark, f,
                                       f->path, err)) != HS_OK)
            return rc;
        hs__log_done(f, &f->lm);
        /* (a window that could not be read back: the batch's answers
           are wrong) */
        if ((rc = hs__prepare_buckets(o, f, err)) != HS_OK ||
            (rc = hs__replays(f, err)) != HS_OK ||
            (rc = hs__wins_check(f, err)) != HS_OK)
            return rc;
        hs__free_batch(f);
        if (f->inexact)
            return HS_OK;
        if ((rc = hs__record_spill(f, hi, err)) != HS_OK)
            return rc;
    }
    return HS_OK;
}

/* The successors' starts: the ranges' order over the whole trace
   walked (ctx: its hs__nxwalk_t), each range given the start of the one
   after it, to the sort by step; any range that the next one starts
   within is the note's overlap, as in one batch. */
typedef struct hs__nxwalk_s {
    hs__file_t *f;
    hs_xsort_t by_step;
    hs__ivrec_t prev;
    int has_prev;
} hs__nxwalk_t;

static hs_err_t hs__nx_emit(hs__nxwalk_t *w, int has_next, uint64_t next)
{
    hs__nxrec_t x;

    memset(&x, 0, sizeof x);
    x.step = w->prev.step;
    x.mb = w->prev.mb;
    x.phase = w->prev.phase;
    x.has_next = has_next;
    x.next_lo = next;
    return hs_xsort_add(&w->by_step, &x);
}

static hs_err_t hs__nx_walk(void *ctx, const void *rec)
{
    hs__nxwalk_t *w = ctx;
    hs__ivrec_t v;
    hs_err_t rc;

    memcpy(&v, rec, sizeof v);
    if (w->has_prev) {
        if (v.lo <= w->prev.hi)
            w->f->iv_overlap = 1;
        if ((rc = hs__nx_emit(w, 1, v.lo)) != HS_OK)
            return rc;
    }
    w->prev = v;
    w->has_prev = 1;
    return HS_OK;
}

/* hs__nx_prepare's last step: the successors' starts, in step order, to
   f->lnx. */
static hs_err_t hs__nx_keep(void *ctx, const void *rec)
{
    hs__file_t *f = ctx;

    return hs_reclog_add(&f->lnx, rec, f->path, f->err);
}

static int64_t hs__nxrec_key(const void *rec)
{
    hs__nxrec_t x;

    memcpy(&x, rec, sizeof x);
    return (int64_t)x.step;
}

/* HS__NX_COLLECT: every batch's steps made again (their windows, marks
   and runtime calls: the phases' id ranges), their ranges to the sort
   u; nothing goes to the record. */
static hs_err_t hs__nx_collect(hs__file_t *f, hs_xsort_t *u,
                               hs_error_t *err)
{
    size_t lo, hi;
    hs_err_t rc = HS_OK;

    f->nx = HS__NX_COLLECT;
    f->nxs = u;
    f->rmode = HS__RM_PHASES;
    for (lo = 0; lo < f->n_st && rc == HS_OK; lo = hi) {
        hi = f->n_st - lo > f->step_batch ? lo + f->step_batch : f->n_st;
        if ((rc = hs__batch_steps(f, lo, hi, err)) == HS_OK &&
            (rc = hs_reclog_each_range(&f->lm, f->bst_ts_lo, f->bst_ts_hi,
                                       hs__replay_mark, f, f->path,
                                       err)) == HS_OK &&
            f->n_kernels_seen > 0)
            rc = hs__batch_runtime(f, err);
        hs__free_ivals(f);
        hs__free_batch(f);
    }
    f->nxs = NULL;
    f->nx = HS__NX_NONE;
    return rc != HS_OK ? rc : hs__wins_check(f, err);
}

/* For batches whose kernel id ranges interleave: every batch's ranges
   sorted in the whole trace's order (hs__cmp_ivrec, in bounded memory:
   hs_xsort.h), each given its successor's start, these put back in step
   order in f->lnx, and the note's overlap found as one batch would;
   the batches' replays then attach them (HS__NX_ATTACH).  Memory: the
   windows' budget (1 MiB) for each sort and for f->lnx, whose records
   past it are on disk (32 bytes a range). */
static hs_err_t hs__nx_prepare(hs__file_t *f, hs_error_t *err)
{
    hs_xsort_t by_lo;
    hs__nxwalk_t w;
    hs_err_t rc;

    memset(&w, 0, sizeof w);
    w.f = f;
    hs_reclog_init(&f->lnx, sizeof(hs__nxrec_t), f->w.budget);
    hs_reclog_set_key(&f->lnx, hs__nxrec_key);
    rc = hs_xsort_init(&by_lo, sizeof(hs__ivrec_t), f->w.budget,
                       hs__cmp_ivrec, "kernels' id ranges", "ranges",
                       f->path, err);
    if (rc == HS_OK)
        rc = hs_xsort_init(&w.by_step, sizeof(hs__nxrec_t), f->w.budget,
                           hs__cmp_nxrec, "kernels' id ranges", "ranges",
                           f->path, err);
    if (rc == HS_OK)
        rc = hs__nx_collect(f, &by_lo, err);
    if (rc == HS_OK)
        rc = hs_xsort_each(&by_lo, hs__nx_walk, &w);
    hs_xsort_clear(&by_lo);
    if (rc == HS_OK && w.has_prev)
        rc = hs__nx_emit(&w, 0, 0);
    if (rc == HS_OK)
        rc = hs_xsort_each(&w.by_step, hs__nx_keep, f);
    hs_xsort_clear(&w.by_step);
    if (rc == HS_OK)
        rc = hs_reclog_seal(&f->lnx, f->path, err);
    f->nx = HS__NX_ATTACH;
    return rc;
}

/* ------------------------------------------------------------------ */
/* Public                                                                */

int hs_kineto_wants_shapes(const char *name)
{
    return hs__wants_shapes(name);
}

/* The read's logs, each at most log_mem_bytes (4 MiB when 0) in memory
   before it spills, the windows' ones and the settled windows at most
   HS__WIN_LOG_MEM. */
static void hs__init_logs(hs__file_t *f, const hs_kineto_opts_t *o)
{
    size_t mem = o->log_mem_bytes > 0 ? o->log_mem_bytes : HS__LOG_MEM;

    hs_reclog_init(&f->lm, sizeof(hs__mrec_t), mem);
    hs_reclog_init(&f->lo, sizeof(hs__orec_t), mem);
    hs_reclog_init(&f->lr, sizeof(hs__rrec_t), mem);
    hs_reclog_init(&f->lk, sizeof(hs__krec_t), mem);
    hs_reclog_set_key(&f->lm, hs__mrec_key);
    hs_reclog_set_key(&f->lo, hs__orec_key);
    hs_reclog_set_key(&f->lr, hs__rrec_key);
    hs_reclog_set_key(&f->lk, hs__krec_key);
    hs_reclog_init(&f->lmb, sizeof(hs__mbmark_t), mem);
    hs_reclog_set_key(&f->lmb, hs__mbmark_key);
    /* the windows read: up to HS__WIN_LOG_MEM in memory (some
       32,000; a real trace has hundreds), then spilled */
    hs_reclog_init(&f->lw, sizeof(hs__wrec_t),
                   mem < HS__WIN_LOG_MEM ? mem : HS__WIN_LOG_MEM);
    /* the settled windows: the same budget */
    f->w.budget = mem < HS__WIN_LOG_MEM ? mem : HS__WIN_LOG_MEM;
}

/* hs_kineto_read with the phase replays by batches of `batch` steps;
   again: a second read (after *inexact), whose note on clipped windows
   and rank check the first made already, and whose batches are given
   the whole trace's order of the kernel id ranges (hs__nx_prepare).
   *inexact set (HS_OK, *out NULL) when the batches' kernel id ranges
   interleave (never on a second read). */
static hs_err_t hs__read(const char *path, const hs_kineto_opts_t *o,
                         size_t batch, int again, int *inexact,
                         hs_rank_t **out, hs_error_t *err)
{
    hs__file_t f;
    hs_kev_scan_t sc;
    hs_err_t rc;
    hs_rank_t *r;

    *out = NULL;
    *inexact = 0;
    memset(&f, 0, sizeof f);
    f.step_batch = batch;
    f.rec_budget = o->rec_mem_bytes > 0 ? o->rec_mem_bytes : HS__REC_MEM;
    r = hs_rank_new(path);
    if (r == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    f.r = r;
    f.path = r->path;
    f.err = err;
    f.rbuf.threads = o->threads;
    hs__init_logs(&f, o);
    f.ops_budget = o->ops_mem_bytes > 0 ? o->ops_mem_bytes : HS__OPS_MEM;
    /* the one read */
    if ((rc = hs_kev_scan_file_sel(path, hs__collect, hs__wants_shapes, &f,
                                   &sc, &f.rbuf, err)) != HS_OK)
        goto fail;
    r->passes = 1;
    r->form = sc.root == 'a' ? HS_INGEST_LEGACY : HS_INGEST_KINETO;
    r->rank = sc.di_rank;
    r->world_size = sc.di_world;
    snprintf(r->backend, sizeof r->backend, "%s", sc.di_backend);
    r->n_events = sc.n_events;
    r->json_bytes = sc.js.base;
    hs_jscan_buf_free(&f.rbuf);
    /* the replays read spilled logs back through a small buffer: their
       blocks (4 MiB each) go */
    if ((rc = hs_reclog_seal(&f.lm, f.path, err)) != HS_OK ||
        (rc = hs_reclog_seal(&f.lo, f.path, err)) != HS_OK ||
        (rc = hs_reclog_seal(&f.lr, f.path, err)) != HS_OK ||
        (rc = hs_reclog_seal(&f.lk, f.path, err)) != HS_OK ||
        (rc = hs_reclog_seal(&f.lw, f.path, err)) != HS_OK ||
        (rc = hs_reclog_seal(&f.lmb, f.path, err)) != HS_OK ||
        (rc = hs__settle_steps(&f, err)) != HS_OK ||
        (rc = hs__wins_check(&f, err)) != HS_OK)
        goto fail;
    if (f.st_clipped > 0 && o->notes != NULL && !again)
        hs_notes_add(o->notes,
                     "%s: %zu ProfilerStep window%s overlapped the next "
                     "one on the main thread and %s cut at its start "
                     "(windows of one thread cannot overlap: a broken or "
                     "merged trace?)",
                     hs__basename(path), f.st_clipped,
                     f.st_clipped == 1 ? "" : "s",
                     f.st_clipped == 1 ? "was" : "were");
    if (o->check_rank != NULL && !again &&
        (rc = o->check_rank(o->ctx, r, err)) != HS_OK)
        goto fail;
    /* a second read: the ranges' order over every batch first */
    if (again && (rc = hs__nx_prepare(&f, err)) != HS_OK)
        goto fail;
    /* the replays, in the order the reasoning needs them */
    if ((rc = hs__replay_steps(o, &f, err)) != HS_OK)
        goto fail;
    if (f.inexact) {
        *inexact = 1;
        hs__file_clear(&f);
        hs_rank_free(r);
        return HS_OK;
    }
    if (f.iv_overlap && o->notes != NULL)
        hs_notes_add(o->notes,
                     "%s: correlation ids of different phases "
                     "interleave (launches from several threads at "
                     "once?): a kernel is charged to the first phase "
                     "whose id range holds it",
                     hs__basename(path));
    hs__file_clear(&f);
    *out = r;
    return HS_OK;
fail:
    hs__file_clear(&f);
    hs_rank_free(r);
    return rc;
}

hs_err_t hs_kineto_read(const char *path, const hs_kineto_opts_t *o,
                        hs_rank_t **out, hs_error_t *err)
{
    size_t batch = o->step_batch > 0 ? o->step_batch : HS__STEP_BATCH;
    int inexact;
    hs_err_t rc = hs__read(path, o, batch, 0, &inexact, out, err);

    /* the kernels' id ranges of different batches interleave (launches
       from several threads?): read again, by the same batches, each
       range given its successor's start in the whole trace's order
       (hs__nx_prepare) */
    if (rc == HS_OK && inexact)
        rc = hs__read(path, o, batch, 1, &inexact, out, err);
    return rc;
}
