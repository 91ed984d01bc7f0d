/*
 * hs_reclog.h -- an append-only log of fixed-size records, in memory up
 * to a budget, then spilled to an unlinked temporary file.
 *
 * The trace reader (hs_kineto.c) reads a trace once and keeps, per kind
 * of fact, a compact record of each event it will need once the whole
 * file is known (a runtime call's CPU time and correlation id, a
 * kernel's correlation id and duration, ...).  The records are replayed
 * in the order they were added.  Memory is bounded whatever the trace's
 * size: the block grows (doubling from a few records) up to the budget;
 * when the block is full it is written to the temporary file (in
 * $TMPDIR, else /tmp; unlinked at once, so nothing is left behind) and
 * reused.  Replay reads the file back through a small buffer, then the
 * block.
 *
 * The file holds the records by zones of a read buffer's worth (64 KiB
 * of records), each encoded on its own: a record whose size is a
 * multiple of 8 is seen as 64-bit lanes, and each lane is written as the
 * zigzag LEB128 varint of its wrapping difference (uint64_t subtraction)
 * from the same lane of the zone's previous record (the zone's first
 * record against zero).  Every value comes back exactly (INT64_MIN and
 * INT64_MAX included), and the times, correlation ids and indices that
 * change little from one record to the next take a byte or two instead
 * of eight: the trace reader's logs spill about 4.5 times fewer bytes.
 * Records of other sizes are written as they are.  A record's padding
 * is stored like the rest: the callers zero it (memset), so that it
 * costs a byte a lane and nothing read back depends on garbage.  Each
 * zone's start in the file is kept in memory (24 bytes a zone, with its
 * keys' span), and a replay decodes the zones one by one into its
 * buffer; a zone that is short or does not decode to exactly its
 * records is an HS_ERR_IO.
 * With a key (hs_reclog_set_key: a record's time, say), each zone keeps
 * the least and greatest key of its records, and a replay of a key range
 * (hs_reclog_each_range) skips the zones that hold none of it.
 */
#ifndef HS_RECLOG_H
#define HS_RECLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hs_error.h"

/* A record's key for hs_reclog_each_range (e.g. its time), as a signed
   number whose order is the key's. */
typedef int64_t (*hs_reclog_key_fn)(const void *rec);

/* A spilled zone: where its encoded records start in the file and, in
   a keyed log, the least and greatest key among them (its length runs to
   the next zone's start, or to the file's end for the last). */
typedef struct hs_reclog_zone_s {
    uint64_t off;
    int64_t kmin, kmax;
} hs_reclog_zone_t;

typedef struct hs_reclog_s {
    size_t rec_size;        /* bytes per record */
    size_t max_recs;        /* records the block may hold (the budget) */
    unsigned char *mem;     /* the block */
    size_t cap_recs;        /* records the block holds now */
    size_t n_mem;           /* records in the block */
    FILE *spill;            /* NULL until the block first overflows */
    uint64_t n;             /* records in all */
    uint64_t n_spilled;     /* of which in the file */
    uint64_t spill_bytes;   /* the file's length (encoded) */
    /* the spilled records' zones (a read buffer's worth of records
       each, zone_recs): where each starts, its keys' span when a key is
       set */
    hs_reclog_key_fn key;
    size_t zone_recs;
    hs_reclog_zone_t *zones;
    size_t n_zones, cap_zones;
    /* while spilling: the encoder's output (a zone's worth at worst)
       and the last record encoded in the open zone, as lanes */
    unsigned char *wbuf;
    uint64_t *prev;
} hs_reclog_t;

/* A new temporary file in $TMPDIR (else /tmp), opened "w+b" and
   unlinked at once (it goes when closed, or when the process ends), or
   NULL with errno set.  The caller fcloses it. */
FILE *hs_reclog_tmpfile(void);

/* hs_reclog_tmpfile with the file's name starting hetsim-<what>-
   (what: a word, "records" for the logs' own), so that a look at the
   process's open files tells which data a temporary file holds. */
FILE *hs_reclog_tmpfile_as(const char *what);

/* hs_reclog_tmpfile_as(word) into *f, with the error every user of a
   temporary file gives: HS_OK, or HS_ERR_IO with err filled ("cannot
   make a temporary file for the trace's <what> in <$TMPDIR or /tmp>:
   <why>", path naming the trace) and *f NULL.  The caller fcloses *f. */
hs_err_t hs_reclog_tmpfile_open(FILE **f, const char *word,
                                const char *what, const char *path,
                                hs_error_t *err);

/* Reads n bytes at byte offset off of temporary file f (by its file
   descriptor, not through its stdio buffer: f is written by
   hs_reclog_pwrite only, or flushed first).  0, or -1 with errno set (0
   when the file is shorter than off + n). */
int hs_reclog_pread(FILE *f, void *buf, size_t n, uint64_t off);

/* Writes n bytes at byte offset off of temporary file f (by its file
   descriptor; see hs_reclog_pread).  0, or -1 with errno set. */
int hs_reclog_pwrite(FILE *f, const void *buf, size_t n, uint64_t off);

/* An empty log of records of rec_size bytes, at most mem_bytes of them
   in memory (at least one record's worth).  Allocates nothing yet. */
void hs_reclog_init(hs_reclog_t *l, size_t rec_size, size_t mem_bytes);

/* Releases the block and closes (so deletes) the file; l may be NULL.
   The log is empty and usable again afterwards. */
void hs_reclog_clear(hs_reclog_t *l);

/* Appends rec_size bytes from rec.  HS_OK, or HS_ERR_NOMEM / HS_ERR_IO
   (the temporary file cannot be made or written) with err filled, path
   naming the trace the records come from. */
hs_err_t hs_reclog_slow_add(hs_reclog_t *l, const void *rec,
                            const char *path, hs_error_t *err);

/* hs_reclog_add with the record's size given, size == l->rec_size: with
   a constant size (sizeof the record) the copy compiles to a few moves
   instead of a call per event. */
static inline hs_err_t hs_reclog_put(hs_reclog_t *l, const void *rec,
                                     size_t size, const char *path,
                                     hs_error_t *err)
{
    if (l->n_mem < l->cap_recs) {
        memcpy(l->mem + l->n_mem * size, rec, size);
        l->n_mem++;
        l->n++;
        return HS_OK;
    }
    return hs_reclog_slow_add(l, rec, path, err);
}

static inline hs_err_t hs_reclog_add(hs_reclog_t *l, const void *rec,
                                     const char *path, hs_error_t *err)
{
    return hs_reclog_put(l, rec, l->rec_size, path, err);
}

/* Once a log has spilled: its records still in memory to the file too,
   and the block released, so that its replays hold only their read
   buffer (a log that never spilled keeps its block).  The records and
   their order are unchanged; adding more is still allowed.  HS_OK, or
   HS_ERR_NOMEM / HS_ERR_IO with err filled (path: the trace). */
hs_err_t hs_reclog_seal(hs_reclog_t *l, const char *path, hs_error_t *err);

/* Gives the log's records a key (before the first add): the spilled
   ones then keep, per zone of a read buffer's worth (64 KiB), the least
   and the greatest key, for hs_reclog_each_range. */
void hs_reclog_set_key(hs_reclog_t *l, hs_reclog_key_fn key);

/* Calls fn(ctx, rec) for every record in the order they were added;
   stops at the first code other than HS_OK and returns it (fn fills err
   itself).  HS_ERR_IO when the file cannot be read back (short, failed,
   or a zone that does not decode). */
typedef hs_err_t (*hs_reclog_fn)(void *ctx, const void *rec);
hs_err_t hs_reclog_each(hs_reclog_t *l, hs_reclog_fn fn, void *ctx,
                        const char *path, hs_error_t *err);

/* hs_reclog_each that may leave out records whose key is outside [lo,
   hi]: the spilled zones whose keys all are are not read back (fn must
   still check the key of what it gets); the others, and the records in
   memory, go to fn in the order they were added.  Without a key (or
   nothing spilled), every record goes to fn. */
hs_err_t hs_reclog_each_range(hs_reclog_t *l, int64_t lo, int64_t hi,
                              hs_reclog_fn fn, void *ctx, const char *path,
                              hs_error_t *err);

#endif
