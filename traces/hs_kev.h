/*
 * hs_kev.h -- PyTorch profiler (Kineto / legacy) trace events, decoded
 * from the JSON stream one at a time.  Internal to the Kineto reader
 * (hs_kineto.c), which reads a trace once with it.
 *
 * The decoder sits on hs_jscan (bytes and JSON syntax) and knows the
 * Chrome-trace shape PyTorch writes: a top-level object with
 * "traceEvents" and "distributedInfo" (Kineto form) or a bare array of
 * events (legacy form).  Each event object is decoded field by field into
 * one fixed-size hs_kev_t, reused for every event, and handed to the
 * reader's handler when its object closes; only the fields the reader uses
 * are kept (ph, cat, name, pid, tid, ts, dur and a few args).  Strings are
 * copied, cut to fixed lengths; times become integer nanoseconds exactly
 * (no floating point unless the number has an exponent).  Nothing is
 * allocated per event.
 */
#ifndef HS_KEV_H
#define HS_KEV_H

#include <stdint.h>

#include "hs_error.h"
#include "hs_jscan.h"

#define HS_KEV_NAME_MAX 256
#define HS_KEV_SHORT_MAX 48

/* A pid or tid: a number, or a string (legacy traces: "CPU functions"),
   both kept as their FNV-1a hash; kinds never compare equal. */
typedef struct hs_kev_key_s {
    int kind;       /* 0 none, 1 number, 2 string */
    int64_t v;
} hs_kev_key_t;

/* 1 when a and b are the same pid (tid). */
static inline int hs_kev_key_eq(hs_kev_key_t a, hs_kev_key_t b)
{
    return a.kind == b.kind && a.v == b.v;
}

/* One trace event: the fields the reader uses. */
typedef struct hs_kev_s {
    char ph;
    char cat[HS_KEV_SHORT_MAX];
    char name[HS_KEV_NAME_MAX];
    hs_kev_key_t pid, tid;
    int has_ts, has_dur;
    int64_t ts_ns, dur_ns;
    int has_corr;
    uint64_t corr;
    char coll[HS_KEV_SHORT_MAX];    /* args["Collective name"] */
    int has_nelems;
    uint64_t nelems;                /* args["In msg nelems"] */
    char dtype[HS_KEV_SHORT_MAX];   /* args["dtype"] */
    int dims_known;                 /* args["Input Dims"][0] had a shape */
    uint64_t dims_nelems;
    char itype[HS_KEV_SHORT_MAX];   /* args["Input type"][0] */
    uint64_t index;                 /* event number in the file, from 0 */
} hs_kev_t;

typedef struct hs_kev_scan_s hs_kev_scan_t;

/* A pass's handler: called for every event; anything but HS_OK stops the
   scan with that code (err filled by the handler, via sc->js.err). */
typedef hs_err_t (*hs_kev_fn)(hs_kev_scan_t *sc, const hs_kev_t *e);

/* Whether an event named name needs its args' "Input Dims" and "Input
   type" decoded (hs_kev_t's dims_known, dims_nelems, itype). */
typedef int (*hs_kev_shapes_fn)(const char *name);

/* The decoder's state; hs_kev_scan_file fills it. */
struct hs_kev_scan_s {
    hs_jscan_t js;          /* bytes, offsets, errors */
    hs_kev_fn on_event;
    void *user;             /* the pass's context */
    hs_kev_shapes_fn want_shapes;   /* NULL: every event's */
    int name_seen;          /* the event's "name" came (before its args) */
    int shapes;             /* want_shapes of that name: -1 not asked yet */
    /* where the parse is */
    int depth;              /* containers open */
    int root;               /* 0 not yet, 'a' array, 'm' map */
    int root_key;           /* 1 traceEvents, 2 distributedInfo, 0 other */
    int evarr_depth;        /* depth inside the events array, 0 = none */
    int ev_depth;           /* depth inside an event map, 0 = none */
    int ev_key;
    int args_depth;
    int arg_key;
    int di_depth;           /* distributedInfo */
    int di_key;             /* 1 rank, 2 world_size, 3 backend */
    int dims_depth;         /* Input Dims outer array */
    uint64_t dims_n;        /* elements started at the outer level */
    uint64_t prod0, prod1;
    int has0, has1;
    int itype_depth;
    int skip_depth;         /* inside a container no field is read from
                               (depth >= skip_depth): only depth is kept;
                               0 none */
    uint64_t itype_n;
    int saw_events;         /* a traceEvents array (or the root array) */
    int mode;               /* the current depth's context, set when a
                               container opens or closes: an event's
                               fields, its args, a skipped container, or
                               other (the depths above tell) */
    /* results */
    hs_kev_t ev;
    uint64_t n_events;
    long di_rank, di_world; /* -1 when absent */
    char di_backend[HS_KEV_SHORT_MAX];
};

/*
 * One streaming pass over the trace at `path`: every event goes to
 * on_event(sc, e) with sc->user = user.  Fills *sc's results (form in
 * sc->root, distributedInfo, event count; the JSON size in sc->js.base).
 * Errors as hs_jscan_file, plus HS_ERR_SCHEMA for a value of the wrong
 * type and HS_ERR_TRACE when there is no traceEvents array.
 */
hs_err_t hs_kev_scan_file(const char *path, hs_kev_fn on_event, void *user,
                          hs_kev_scan_t *sc, hs_error_t *err);

/* hs_kev_scan_file reading through *b (hs_jscan_file_buf): a reader's
   passes over one file share one read buffer. */
hs_err_t hs_kev_scan_file_buf(const char *path, hs_kev_fn on_event,
                              void *user, hs_kev_scan_t *sc,
                              hs_jscan_buf_t *b, hs_error_t *err);

/* hs_kev_scan_file_buf that decodes an event's shapes (dims_known,
   dims_nelems, itype) only when want_shapes(name) says so, or when its
   name comes after its args (want_shapes NULL: always); otherwise they
   are left as for an event without them (0, 0, "").  Saves the work on
   traces where every operator carries shapes and few events need them. */
hs_err_t hs_kev_scan_file_sel(const char *path, hs_kev_fn on_event,
                              hs_kev_shapes_fn want_shapes, void *user,
                              hs_kev_scan_t *sc, hs_jscan_buf_t *b,
                              hs_error_t *err);

/*
 * A JSON number as yajl hands it over (raw text s[0, n)) in microseconds
 * into *out, integer nanoseconds: exact (the integer part and the first
 * three decimals, the fourth rounding half up) unless it has an
 * exponent, which goes through strtod and llround.  0, or -1 when it
 * does not fit (more than about 2^63 ns).  Exposed for tests.
 */
int hs_kev_us_to_ns(const char *s, size_t n, int64_t *out);

/* A JSON number s[0, n) as a non-negative integer into *out; a
   fraction or exponent goes through strtod and is rounded.  0, or -1
   for a negative number or one past 1.8e19.  Exposed for tests. */
int hs_kev_to_u64(const char *s, size_t n, uint64_t *out);

#endif
