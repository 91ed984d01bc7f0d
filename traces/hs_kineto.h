/*
 * hs_kineto.h -- the PyTorch profiler trace reader: one Chrome-trace JSON
 * file as PyTorch writes it (Kineto form {"traceEvents": ...} or legacy
 * form [...], plain or gzipped) in, one per-rank record (hs_rank.h) out.
 * How it reads is told in hs_kineto.c; the rules in README.md,
 * "Ingesting PyTorch profiler traces".
 */
#ifndef HS_KINETO_H
#define HS_KINETO_H

#include <stddef.h>

#include "hs_error.h"
#include "hs_notes.h"
#include "hs_rank.h"

typedef struct hs_kineto_opts_s {
    size_t want_buckets;    /* the gradient buckets per iteration another
                               source (the harness's sidecar) reports, 0
                               when none: on a trace without a payload
                               source, the calls that time the buckets are
                               the first kind with that many calls */
    /* called once the trace's rank is known (r->rank, -1 when the trace
       does not say), after the read and before the replays of what it
       kept; anything but HS_OK (err filled) stops the reading with that
       code.  May be NULL. */
    hs_err_t (*check_rank)(void *ctx, const hs_rank_t *r, hs_error_t *err);
    void *ctx;              /* check_rank's */
    hs_notes_t *notes;      /* where remarks go, or NULL */
    size_t log_mem_bytes;   /* the memory each of the reader's record logs
                               may take before it spills to a temporary
                               file (hs_reclog.h); 0: 4 MiB */
    size_t ops_mem_bytes;   /* the memory the forward's top-level
                               operators may take (48 bytes each): past
                               it they are replayed by batches of steps,
                               each batch replaying the logs again (one
                               step always fits); 0: 8 MiB.  The same
                               record either way */
    size_t step_batch;      /* the steps whose state the replays after
                               the read keep in memory at once (batches
                               of steps, each replaying the logs for its
                               own); 0: 1024.  The same record either
                               way (when the batches' kernel id ranges
                               interleave, the file is read again as one
                               batch) */
    size_t rec_mem_bytes;   /* the memory the record's per-step entries
                               may take, counted HS_RANK_STEP_BYTES a
                               step: a trace with more steps gets a
                               spilled record (hs_rank.h: its entries
                               written to an unlinked temporary file
                               batch by batch, read back with
                               hs_rank_at); 0: 4 MiB.  The same entries
                               either way */
    unsigned threads;       /* 0 or 1: the file read, inflated and parsed
                               in the caller's thread; 2: a second thread
                               reads and inflates ahead (hs_jscan_buf_t);
                               the same record either way */
} hs_kineto_opts_t;

/*
 * Reads the trace at `path` into a new record *out (the caller frees it
 * with hs_rank_free).  Errors: HS_ERR_IO cannot open/read; HS_ERR_SYNTAX
 * bad JSON or gzip, an empty file; HS_ERR_SCHEMA a value of the wrong
 * type; HS_ERR_TRACE no ProfilerStep window; HS_ERR_NOMEM; or
 * check_rank's code.  err names the file and, where known, the byte
 * offset; *out is NULL on failure.
 */
hs_err_t hs_kineto_read(const char *path, const hs_kineto_opts_t *o,
                        hs_rank_t **out, hs_error_t *err);

/* Whether the reader needs the shapes (args' "Input Dims", "Input
   type") of an event named name: 1 for the all-reduce calls whose
   payload they give, else 0.  hs_kineto_read decodes no other event's
   (hs_kev_scan_file_sel); a benchmark of the decoding alone passes it
   too, to decode what the reader does. */
int hs_kineto_wants_shapes(const char *name);

#endif
