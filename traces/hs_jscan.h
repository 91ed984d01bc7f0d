/*
 * hs_jscan.h -- a JSON file, plain or gzipped, streamed into yajl.
 *
 * The bottom layer of the trace ingestion: it knows files, gzip and JSON
 * syntax, nothing of what a trace means.  A reader hands it yajl callbacks
 * and a context; the file is read in chunks of bounded size (a plain
 * file with read(); a gzip file inflated as a stream by ISA-L's igzip,
 * or zlib's gzread in a build without libisal) and each chunk is fed to
 * yajl_parse.  Memory is fixed buffers whatever the file size.
 *
 * Errors name the file and, where known, the byte offset in the
 * uncompressed JSON (a gzip error: the compressed offset too).  A callback
 * that finds a bad value stops the parse with hs_jscan_fail, which formats
 * the message with the current offset; a callback that already filled the
 * error buffer (say, out of memory) stops with hs_jscan_stop.  A reader
 * that knows more of where the parse is (the trace event it is in) gives a
 * `where` function: every message about the content, the JSON syntax
 * errors included, then reads "FILE: byte N: <where>: what is wrong".
 */
#ifndef HS_JSCAN_H
#define HS_JSCAN_H

#include <stdint.h>

#include <yajl/yajl_parse.h>

#include "hs_error.h"

/* The scanner's state; the caller owns it (usually inside its own context
   struct).  hs_jscan_file initialises every field. */
/* Writes a short description of where the parse is into buf (at most cap
   bytes, NUL-terminated) and returns 1, or returns 0 when there is nothing
   to say (outside any event).  ctx is the callbacks' context. */
typedef int (*hs_jscan_where_fn)(void *ctx, char *buf, size_t cap);

typedef struct hs_jscan_s {
    const char *path;   /* the file, for messages */
    hs_error_t *err;    /* where errors go */
    hs_err_t rc;        /* the code a callback stopped the parse with */
    yajl_handle h;      /* the parser, during hs_jscan_file only */
    uint64_t base;      /* uncompressed bytes before the current chunk;
                           after a successful run, the whole JSON's size */
    hs_jscan_where_fn where;    /* NULL: the offset alone */
    void *ctx;                  /* the callbacks' context, for where */
} hs_jscan_t;

/*
 * Streams the file at `path` (gzip when it starts with the gzip magic
 * bytes) through yajl with callbacks cb and context ctx.  Returns HS_OK
 * when the whole file is well-formed JSON and no callback stopped;
 * HS_ERR_IO: cannot open; HS_ERR_SYNTAX: an empty file, bad gzip, invalid
 * or truncated JSON; else the code a callback stopped with.  err gets the
 * message.  js->base holds the JSON's size afterwards.
 */
hs_err_t hs_jscan_file(hs_jscan_t *js, const char *path,
                       const yajl_callbacks *cb, void *ctx,
                       hs_error_t *err);

/* hs_jscan_file whose messages also say where(ctx, ...) describes (NULL:
   the same as hs_jscan_file). */
hs_err_t hs_jscan_file_where(hs_jscan_t *js, const char *path,
                             const yajl_callbacks *cb, void *ctx,
                             hs_jscan_where_fn where, hs_error_t *err);

/* A read buffer kept over several passes over one file (a reader's
   hs_jscan_file_buf calls): the first pass allocates it, the next ones
   reuse it, growing it when they need more.  All zero to start;
   hs_jscan_buf_free frees it (and accepts NULL). */
typedef struct hs_jscan_buf_s {
    unsigned char *p;
    size_t cap;
    unsigned threads;   /* 0 or 1: read (inflate) and parse in the
                           caller's thread; 2: on a file of at least
                           HS_JSCAN_THREAD_MIN_BYTES, a second thread
                           reads and inflates ahead of the parse, through
                           a ring of HS_JSCAN_RING chunks -- the same
                           chunks, results and errors either way */
} hs_jscan_buf_t;

/* A smaller file is read in one thread whatever threads says: a thread
   costs more than it saves there.  The environment variable
   HETSIM_TRACE_THREAD_MIN_BYTES may lower it (never raise it). */
#define HS_JSCAN_THREAD_MIN_BYTES (1024u * 1024u)
/* The read-ahead ring's chunks (of 256 KiB each: 2 MiB). */
#define HS_JSCAN_RING 8

void hs_jscan_buf_free(hs_jscan_buf_t *b);

/* hs_jscan_file_where reading through *b (NULL: a buffer of its own,
   freed on return; b->threads: one or two threads, see above); the same
   callbacks, results and errors.  With two threads every return path
   has joined the reading thread and freed its ring. */
hs_err_t hs_jscan_file_buf(hs_jscan_t *js, const char *path,
                           const yajl_callbacks *cb, void *ctx,
                           hs_jscan_where_fn where, hs_jscan_buf_t *b,
                           hs_error_t *err);

/*
 * Reads the file at `path` as hs_jscan_file does (plain, or gzip
 * inflated) without parsing it: *bytes gets the JSON text's size.  For
 * measuring what the reading alone costs (bench/bench_ingest).  HS_OK,
 * HS_ERR_IO cannot open or read, HS_ERR_SYNTAX a bad gzip stream.
 */
hs_err_t hs_jscan_read_only(const char *path, uint64_t *bytes,
                            hs_error_t *err);

/* The uncompressed byte offset the parse has reached. */
uint64_t hs_jscan_offset(const hs_jscan_t *js);

/*
 * For a callback: records code and "byte N: <message>" (with a where
 * function that has something to say, "byte N: <where>: <message>") in
 * the error buffer and returns 0, the yajl value that stops the parse.
 */
int hs_jscan_fail(hs_jscan_t *js, hs_err_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* For a callback whose error buffer is already filled: records rc and
   returns 0. */
int hs_jscan_stop(hs_jscan_t *js, hs_err_t rc);

#endif
