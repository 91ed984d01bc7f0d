/*
 * hs_xsort.h -- a sort of fixed-size records in bounded memory: the
 * records are gathered into runs that fit a budget, each run sorted and
 * written to an unlinked temporary file, then the runs are merged (a
 * heap of the runs by their next record, each run read back through a
 * share of the budget).  When every record fits one run, nothing is
 * written: the run is sorted in memory.
 *
 * The trace reader (hs_kineto.c) sorts with it the main thread's step
 * windows when they were not read in time order and do not fit their
 * budget, and the kernels' correlation-id ranges of every step when the
 * ranges of different batches of steps interleave.  The comparison must
 * be a total order (break ties on a sequence number or on the record's
 * identity) for the merged order to be the one order.  Memory: the
 * budget, and 40 bytes a run.
 */
#ifndef HS_XSORT_H
#define HS_XSORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hs_error.h"
#include "hs_reclog.h"

typedef int (*hs_xsort_cmp_fn)(const void *a, const void *b);

/* The sort's state: while the records are added, the run being filled
   (buf, cap records); the runs written (run r from record off[r] to
   off[r + 1], off[n_runs] the total); while they are merged, each
   run's read buffer (per records at buf + r * per * rec_size, its next
   record in the file at pos[r], what is left of its buffer from at[r]
   to got[r]) and a heap of the runs by their next record. */
typedef struct hs_xsort_s {
    size_t rec_size;
    hs_xsort_cmp_fn cmp;
    const char *what;       /* the records, for the errors ("step
                               windows") */
    const char *tmp_word;   /* the temporary file's name word */
    const char *path;       /* the trace, for the errors */
    hs_error_t *err;
    FILE *file;
    unsigned char *buf;
    size_t n, cap, per;
    uint64_t total;
    uint64_t *off, *pos;
    size_t n_runs, cap_runs;
    size_t *at, *got, *heap;
    size_t n_heap;
} hs_xsort_t;

/* An empty sort of records of rec_size bytes in order cmp, runs of at
   most mem_bytes (at least one record); what names the records and
   tmp_word the temporary file (hs_reclog_tmpfile_as) for the errors,
   path the trace (all three kept, not copied).  HS_OK, or HS_ERR_NOMEM
   with err filled.  hs_xsort_clear releases it, on every path. */
hs_err_t hs_xsort_init(hs_xsort_t *u, size_t rec_size, size_t mem_bytes,
                       hs_xsort_cmp_fn cmp, const char *what,
                       const char *tmp_word, const char *path,
                       hs_error_t *err);

/* Adds rec_size bytes from rec (a full run is sorted and written to the
   temporary file, made at the first).  HS_OK, or HS_ERR_IO /
   HS_ERR_NOMEM with the init's err filled. */
hs_err_t hs_xsort_add(hs_xsort_t *u, const void *rec);

/* Calls fn(ctx, rec) for every record added, in cmp's order; stops at
   the first code other than HS_OK and returns it (fn fills err itself).
   Once only: no record may be added afterwards.  HS_ERR_IO /
   HS_ERR_NOMEM with err filled when the runs cannot be read back or
   their buffers had no memory. */
hs_err_t hs_xsort_each(hs_xsort_t *u, hs_reclog_fn fn, void *ctx);

/* Releases what the sort holds and closes (so deletes) its file; u may
   be NULL, or cleared already. */
void hs_xsort_clear(hs_xsort_t *u);

#endif
