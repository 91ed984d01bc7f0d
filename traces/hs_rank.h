/*
 * hs_rank.h -- the per-rank record: what one rank's trace says, in no
 * trace format's terms.
 *
 * A trace reader (today hs_kineto.c, the PyTorch profiler's Chrome-trace
 * JSON) turns one file into one hs_rank_t; the ingestion (hs_ingest.c)
 * drops the warm-up, averages the records over ranks into an
 * hs_profile_t and writes its notes.  A second trace format is a second
 * reader that fills the same record; the aggregation does not change.
 *
 * What the record holds, and its invariants:
 *   - one entry per iteration (a ProfilerStep window for Kineto), in
 *     start-time order, with the figures of docs/method.md step S300 in
 *     hs_ingest_step_t: step time, data loading, forward, first backward
 *     operator, whole backward, optimizer (each HS_INGEST_UNKNOWN when the
 *     trace does not measure it), the all-reduce payload of the step and
 *     the number of all-reduce calls and device kernels.  The reader sets
 *     `complete`; `kept` is the aggregation's to set (0 from the reader);
 *   - ar_payload_bytes is 0 in every step when the trace has no payload
 *     source (ar_known 0); the aggregation then puts the sidecar's in;
 *   - per iteration, beside it in `buckets`, the all-reduce calls that
 *     time the gradient buckets: their payloads and their ready times,
 *     already measured from the start of the first backward operator
 *     (CPU time of the call on CPU traces, device time of the backward
 *     kernels launched before the call on device traces).  No ready time
 *     exists for an iteration without a backward (has_bwd 0).
 *   - per iteration, beside it in `fwd_ops`, the forward's time per
 *     operator: the top-level aten operators (cat "cpu_op" events of the
 *     main thread not inside another one) that start in the forward
 *     window, their times summed by name in the order they first ran,
 *     and HS_RANK_OP_OTHER for what no operator holds.  The times add up
 *     to the iteration's t_fwd_ns exactly: on device traces the forward
 *     kernels each charged to the operator whose CPU span launched them
 *     (else to the other); on CPU traces the operators' spans clipped to
 *     the window (and to each other), the gaps between them the other.
 *     None for an iteration whose t_fwd_ns is unknown.
 * Memory is O(iterations x (buckets + operator names)) when the record
 * is held in memory (steps, buckets and fwd_ops one entry per
 * iteration); no event is kept.  Past a budget the reader spills the
 * entries instead (hs_rank_spill: batch by batch, to an unlinked
 * temporary file) and the record holds none: they are read back in
 * order through a cursor (hs_rank_at), which serves both forms, so
 * memory no longer follows the number of iterations.
 */
#ifndef HS_RANK_H
#define HS_RANK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hs_error.h"
#include "hs_ingest.h"

#define HS_RANK_BACKEND_MAX 48

/* The gradient-bucket all-reduce calls of one iteration. */
typedef struct hs_rank_buckets_s {
    int has_bwd;        /* the iteration has a backward operator: ready
                           times have an origin */
    int timed;          /* the iteration has calls of the kind that times
                           buckets (n may still be 0) */
    size_t n;           /* calls, in time order */
    uint64_t *bytes;    /* n payloads, 0 where unknown */
    int64_t *ready_ns;  /* n ready times from the first backward operator
                           (0 when !has_bwd) */
} hs_rank_buckets_t;

/* The name of the forward's time that no top-level operator holds. */
#define HS_RANK_OP_OTHER "(other)"

/* One iteration's forward time by operator name. */
typedef struct hs_rank_ops_s {
    size_t n;
    uint32_t *name;     /* n indices into the record's op_names */
    int64_t *ns;        /* n times, summing to the step's t_fwd_ns */
} hs_rank_ops_t;

/* One rank's trace. */
typedef struct hs_rank_s {
    char *path;             /* the file, malloc'ed */
    hs_ingest_form_t form;
    long rank;              /* as the trace says, -1 when it does not */
    long world_size;        /* as the trace says, -1 when it does not */
    char backend[HS_RANK_BACKEND_MAX]; /* "" when the trace does not say */
    int gpu;                /* device kernels present: compute times are
                               kernel times */
    int ar_known;           /* the trace measures the all-reduce payload */
    hs_ar_source_t ar_source; /* its source (HS_AR_PARAM_COMMS or
                                 HS_AR_SHAPES) when ar_known */
    uint64_t n_events;      /* trace events seen in one pass */
    uint64_t json_bytes;    /* bytes of the trace's text in one pass */
    unsigned passes;        /* passes the reader made over the file */
    size_t n_steps;
    hs_ingest_step_t *steps;    /* n_steps, in start-time order; NULL
                                   once spilled (read with hs_rank_at) */
    hs_rank_buckets_t *buckets; /* n_steps, beside steps */
    hs_rank_ops_t *fwd_ops;     /* n_steps, beside steps */
    size_t n_op_names;
    char **op_names;            /* the operator names fwd_ops index */
    /* a spilled record (spill not NULL): its entries in the file, in
       step order; steps, buckets and fwd_ops hold n_held entries (the
       reader's batch not yet spilled), NULL once it is done */
    FILE *spill;
    size_t n_held;
    size_t n_spilled;
} hs_rank_t;

/* What a spilled record's budget counts per iteration: its entries'
   fixed part and a few buckets and operators. */
#define HS_RANK_STEP_BYTES 256u

/* A reader of a record's entries in step order (hs_rank_at); zero it
   before the first use, hs_rank_cur_clear after the last. */
typedef struct hs_rank_cur_s {
    const hs_ingest_step_t *step;   /* the entry hs_rank_at went to */
    const hs_rank_buckets_t *bk;
    const hs_rank_ops_t *ops;
    /* a spilled record's: the entry read back, and where the next is */
    const hs_rank_t *r;
    size_t next;
    uint64_t pos;
    hs_ingest_step_t s;
    hs_rank_buckets_t b;
    hs_rank_ops_t o;
    size_t cap_b, cap_o;
    unsigned char *buf;             /* read buffer, HS_RANK_CUR_BUF */
    size_t buf_len, buf_at;
} hs_rank_cur_t;

/* A new record with path copied, rank and world_size -1, no steps.
   NULL when out of memory.  Free with hs_rank_free. */
hs_rank_t *hs_rank_new(const char *path);

/* Releases r and everything it owns (its spill file too, deleted).
   r may be NULL. */
void hs_rank_free(hs_rank_t *r);

/* Makes r a spilled record (for the reader, before it fills any entry):
   an unlinked temporary file in $TMPDIR (else /tmp) is made for its
   entries.  HS_OK, or HS_ERR_IO with err filled (naming r->path). */
hs_err_t hs_rank_spill_start(hs_rank_t *r, hs_error_t *err);

/* Appends r's first n held entries (steps, buckets, fwd_ops [0, n),
   the next n steps in order) to its spill file, frees their arrays and
   zeroes them for the next batch.  HS_OK, or HS_ERR_IO with err filled.
   Once every step is spilled the caller frees the held arrays (NULL). */
hs_err_t hs_rank_spill(hs_rank_t *r, size_t n, hs_error_t *err);

/* Points c at entry j (j < r->n_steps) of r: c->step, c->bk and c->ops
   are r's own arrays' when r is held in memory, else c's copy read back
   from the spill file (valid until the next call with c, or
   hs_rank_cur_clear).  Entries read in ascending order cost one
   sequential read; going back reads again from the first.  HS_OK, or
   HS_ERR_IO (the file cannot be read back) / HS_ERR_NOMEM with err
   filled. */
hs_err_t hs_rank_at(const hs_rank_t *r, size_t j, hs_rank_cur_t *c,
                    hs_error_t *err);

/* Releases what c holds; c is zeroed, usable again. */
void hs_rank_cur_clear(hs_rank_cur_t *c);

#endif
