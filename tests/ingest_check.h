/*
 * ingest_check.h -- what the trace readers' and the ingestion's tests
 * share: reading one trace under two sets of reader options, the
 * field-by-field comparison of the two records (test_ingest_threads.c,
 * test_ingest_onepass.c), ingesting the ranks' traces a test writes and
 * looking for a note (test_ingest.c, test_ingest_micro*.c).  Failures are
 * CUnit assertions.
 */
#ifndef INGEST_CHECK_H
#define INGEST_CHECK_H

#include "hs_error.h"
#include "hs_ingest.h"
#include "hs_kineto.h"
#include "hs_profile.h"
#include "hs_rank.h"

/* One trace read twice: under o[0] and under o[1] of ic_read_two. */
typedef struct ic_pair_s {
    hs_rank_t *r[2];        /* the records, NULL where not read */
    hs_err_t code[2];       /* what hs_kineto_read returned */
    hs_error_t err[2];      /* its message where it failed */
} ic_pair_t;

/* Reads the trace at path with hs_kineto_read under o[0] and under o[1]
   into p (asserts nothing).  Free with ic_pair_free. */
void ic_read_two(const char *path, const hs_kineto_opts_t o[2],
                 ic_pair_t *p);

/* Releases p's records (p itself is the caller's). */
void ic_pair_free(ic_pair_t *p);

/* Sets o's budgets to combination k of the reader's batched and spilled
   paths (k < 6 x n_budgets): the operators' budget budgets[k / 6], the
   logs spilled when k is odd, the phases by batches of (k / 2) mod 3
   steps (0: all), the record's steps spilled when k mod 3 is 1. */
void ic_batch_opts(hs_kineto_opts_t *o, const size_t *budgets, size_t k);

/* Ingests the traces paths[0, n) with opts o (its sidecar for every
   rank), asserting that every file and the profile succeed (the error's
   message on stderr when the profile fails); the profile in *p, the
   ingestion returned (free with hs_ingest_free). */
hs_ingest_t *ic_ingest_all(const char *const *paths, size_t n,
                           const hs_ingest_opts_t *o, hs_profile_t *p);

/* Zeroes o and sets it to combination k < 8 of the reader's spilled paths:
   the record's steps spilled (bit 0), the phases by batches of one step
   (bit 1), the logs spilled (bit 2: at one record in memory with bit 0,
   a few without; the main thread's settled windows spilled too, in
   blocks of one window or of two once past four windows). */
void ic_spill_opts(hs_kineto_opts_t *o, int k);

/* Asserts that profiles a and b agree, field by field: each phase's
   known, mean, sd and samples, the forward operators (times and names),
   the all-reduce payload and its source, the buckets, the communication
   cost and hop wait, the kept steps, micro-batches and source. */
void ic_same_profile(const hs_profile_t *a, const hs_profile_t *b);

/* ic_same_record flags: also compare rank and world_size. */
#define IC_RANK 1u

/* Asserts that records a and b agree: step count, device, all-reduce
   known, events, bytes, operator names, every step byte for byte, its
   buckets and its forward operators (held in memory or spilled: read
   through hs_rank_at); flags add fields. */
void ic_same_record(const hs_rank_t *a, const hs_rank_t *b, unsigned flags);

/* Writes the traces of ranks 0 .. ranks-1 with write(dir, rank, v) (a
   malloc'd path, freed here) and ingests them in that order with warm-up
   `warmup`, asserting each is read.  Returns the ingestion (never NULL;
   the caller frees it with hs_ingest_free). */
hs_ingest_t *ic_ingest_written(const char *dir, int ranks,
                               char *(*write)(const char *dir, int rank,
                                              int v),
                               int v, unsigned warmup);

/* Whether one of ing's notes contains what. */
int ic_has_note(const hs_ingest_t *ing, const char *what);

#endif
