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
 * Memory is O(iterations x (buckets + operator names)); no event is
 * kept.
 */
#ifndef HS_RANK_H
#define HS_RANK_H

#include <stddef.h>
#include <stdint.h>

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
    hs_ingest_step_t *steps;    /* n_steps, in start-time order */
    hs_rank_buckets_t *buckets; /* n_steps, beside steps */
    hs_rank_ops_t *fwd_ops;     /* n_steps, beside steps */
    size_t n_op_names;
    char **op_names;            /* the operator names fwd_ops index */
} hs_rank_t;

/* A new record with path copied, rank and world_size -1, no steps.
   NULL when out of memory.  Free with hs_rank_free. */
hs_rank_t *hs_rank_new(const char *path);

/* Releases r and everything it owns.  r may be NULL. */
void hs_rank_free(hs_rank_t *r);

#endif
