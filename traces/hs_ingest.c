/*
 * hs_ingest.c -- streaming ingestion of PyTorch profiler traces.
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
 * starts) must be known before a kernel can be charged to a phase.  Rather
 * than keeping events, the file is read several times, each pass streaming
 * (zlib gzread chunks into yajl_parse callbacks; an event is a small fixed
 * struct filled field by field and handed to the pass when its object
 * closes):
 *   pass 1: the ProfilerStep windows of the main thread, distributedInfo,
 *           whether device kernels are present;
 *   pass 2: per step, the CPU-side marks: DataLoader, first and last
 *           backward operator, optimizer, all-reduce calls (with sizes);
 *   pass 3: (device traces only) every runtime call (cudaLaunchKernel...)
 *           is charged by its CPU time to a (step, phase); per (step,
 *           phase) the range of correlation ids it used is kept;
 *   pass 4: (device traces only) every kernel is charged, by its
 *           correlation id, to the (step, phase) whose range holds it.
 * Correlation ids are handed out by CUPTI/roctracer in launch order, so the
 * ranges of consecutive phases do not overlap (checked; a note is added if
 * they do).  State is O(steps) (plus the all-reduce calls of each step):
 * it does not grow with the events or the file size.
 *
 * The rules themselves are documented in README.md, "Ingesting PyTorch
 * profiler traces".
 */
#include "hs_ingest.h"
#include "hs_atomic.h"
#include "hs_file.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>
#include <yaml.h>
#include <zlib.h>

#define HS__CHUNK (256u * 1024u)
#define HS__NAME_MAX 256
#define HS__SHORT_MAX 48

/* ------------------------------------------------------------------ */
/* Small helpers                                                         */

static const char *hs__basename(const char *p)
{
    const char *s = strrchr(p, '/');

    return s != NULL ? s + 1 : p;
}

static uint64_t hs__fnv(const unsigned char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* A pid or tid: a number, or a string (legacy traces: "CPU functions"). */
typedef struct hs__key_s {
    int kind;       /* 0 none, 1 number, 2 string (hashed) */
    int64_t v;
} hs__key_t;

static int hs__key_eq(hs__key_t a, hs__key_t b)
{
    return a.kind == b.kind && a.v == b.v;
}

/*
 * Parses a JSON number (as yajl hands it over, raw) in microseconds into
 * integer nanoseconds, exactly when it has no exponent.  Returns 0 or -1.
 */
static int hs__us_to_ns(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0, frac_digits = 0;
    int64_t ip = 0, fp = 0;
    char buf[64];

    if (n > 0 && s[0] == '-') {
        neg = 1;
        i = 1;
    }
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (ip > (INT64_MAX / 10 - 10) / 1000)
            return -1;
        ip = ip * 10 + (s[i] - '0');
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            if (frac_digits < 3) {
                fp = fp * 10 + (s[i] - '0');
                frac_digits++;
            } else if (frac_digits == 3) {
                if (s[i] >= '5')
                    fp++;   /* round half up on the 4th digit */
                frac_digits++;
            }
        }
    }
    if (i < n) { /* exponent: fall back to floating point */
        double d;
        if (n >= sizeof buf)
            return -1;
        memcpy(buf, s, n);
        buf[n] = '\0';
        d = strtod(buf, NULL) * 1000.0;
        if (!(d > -9.2e18 && d < 9.2e18))
            return -1;
        *out = (int64_t)llround(d);
        return 0;
    }
    while (frac_digits < 3) {
        fp *= 10;
        frac_digits++;
    }
    *out = ip * 1000 + fp;
    if (neg)
        *out = -*out;
    return 0;
}

/* Parses a non-negative integer; fractions are rounded.  0 or -1. */
static int hs__to_u64(const char *s, size_t n, uint64_t *out)
{
    char buf[64];
    size_t i;
    uint64_t v = 0;

    for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == n && n > 0) {
        *out = v;
        return 0;
    }
    if (n == 0 || n >= sizeof buf || s[0] == '-')
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    {
        double d = strtod(buf, NULL);
        if (!(d >= 0 && d < 1.8e19))
            return -1;
        *out = (uint64_t)llround(d);
    }
    return 0;
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

static int hs__starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ------------------------------------------------------------------ */
/* The event as the scanner fills it                                     */

enum { HS__K_NONE = 0, HS__K_PH, HS__K_CAT, HS__K_NAME, HS__K_PID,
       HS__K_TID, HS__K_TS, HS__K_DUR, HS__K_ARGS, HS__K_OTHER };
enum { HS__A_NONE = 0, HS__A_CORR, HS__A_COLL, HS__A_NELEMS, HS__A_DTYPE,
       HS__A_DIMS, HS__A_ITYPE, HS__A_OTHER };

typedef struct hs__ev_s {
    char ph;
    char cat[HS__SHORT_MAX];
    char name[HS__NAME_MAX];
    hs__key_t pid, tid;
    int has_ts, has_dur;
    int64_t ts_ns, dur_ns;
    int has_corr;
    uint64_t corr;
    char coll[HS__SHORT_MAX];   /* args["Collective name"] */
    int has_nelems;
    uint64_t nelems;            /* args["In msg nelems"] */
    char dtype[HS__SHORT_MAX];  /* args["dtype"] */
    int dims_known;             /* args["Input Dims"][0] had a shape */
    uint64_t dims_nelems;
    char itype[HS__SHORT_MAX];  /* args["Input type"][0] */
    uint64_t index;             /* event number in the file, from 0 */
} hs__ev_t;

typedef struct hs__scan_s hs__scan_t;
typedef hs_err_t (*hs__ev_fn)(hs__scan_t *sc, const hs__ev_t *e);

struct hs__scan_s {
    const char *path;
    hs_error_t *err;
    hs_err_t rc;            /* set by a callback that stopped the parse */
    yajl_handle h;
    uint64_t base;          /* uncompressed bytes before the current chunk */
    hs__ev_fn on_event;
    void *user;
    /* structure */
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
    uint64_t itype_n;
    int saw_events;         /* a traceEvents array (or the root array) */
    /* results */
    hs__ev_t ev;
    uint64_t n_events;
    long di_rank, di_world;
    char di_backend[HS__SHORT_MAX];
};

static uint64_t hs__scan_off(const hs__scan_t *sc)
{
    return sc->base + (sc->h != NULL ? yajl_get_bytes_consumed(sc->h) : 0);
}

static int hs__scan_fail(hs__scan_t *sc, hs_err_t code, const char *fmt,
                         ...) __attribute__((format(printf, 3, 4)));

static int hs__scan_fail(hs__scan_t *sc, hs_err_t code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sc->rc = hs_error_set(sc->err, code, sc->path, 0, 0,
                          "byte %" PRIu64 ": %s", hs__scan_off(sc), msg);
    return 0;
}

static void hs__copy(char *dst, size_t cap, const unsigned char *s,
                     size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static const char *hs__ev_key_name(int k)
{
    switch (k) {
    case HS__K_PH: return "ph";
    case HS__K_CAT: return "cat";
    case HS__K_NAME: return "name";
    case HS__K_PID: return "pid";
    case HS__K_TID: return "tid";
    case HS__K_TS: return "ts";
    case HS__K_DUR: return "dur";
    case HS__K_ARGS: return "args";
    default: return "?";
    }
}

/*
 * A value starts at the current depth (scalar: kind 'n' number, 's'
 * string, 'b' bool/null; container: '{' or '[').  Handles the context it
 * belongs to; returns 0 to stop the parse.
 */
static int hs__value(hs__scan_t *sc, int kind, const char *s, size_t n)
{
    int d = sc->depth;

    if (d == 0) {
        if (kind == '[') {
            sc->root = 'a';
            sc->evarr_depth = 1;
            sc->saw_events = 1;
            return 1;
        }
        if (kind == '{') {
            sc->root = 'm';
            return 1;
        }
        return hs__scan_fail(sc, HS_ERR_SCHEMA,
                             "the top level is neither an object "
                             "(Kineto form) nor an array (legacy form)");
    }
    if (sc->root == 'm' && d == 1) {
        if (sc->root_key == 1) {
            if (kind != '[')
                return hs__scan_fail(sc, HS_ERR_SCHEMA,
                                     "\"traceEvents\" is not an array");
            sc->evarr_depth = 2;
            sc->saw_events = 1;
        } else if (sc->root_key == 2 && kind == '{') {
            sc->di_depth = 2;
        }
        return 1;
    }
    if (sc->di_depth != 0 && d == sc->di_depth) {
        if (sc->di_key == 1 || sc->di_key == 2) {
            uint64_t u;
            if (kind != 'n' || hs__to_u64(s, n, &u) != 0 || u > LONG_MAX)
                return hs__scan_fail(sc, HS_ERR_SCHEMA,
                                     "distributedInfo.%s is not a "
                                     "non-negative integer",
                                     sc->di_key == 1 ? "rank" : "world_size");
            if (sc->di_key == 1)
                sc->di_rank = (long)u;
            else
                sc->di_world = (long)u;
        } else if (sc->di_key == 3 && kind == 's') {
            hs__copy(sc->di_backend, sizeof sc->di_backend,
                     (const unsigned char *)s, n);
        }
        return 1;
    }
    if (sc->evarr_depth != 0 && d == sc->evarr_depth) {
        if (kind != '{')
            return hs__scan_fail(sc, HS_ERR_SCHEMA,
                                 "trace event %" PRIu64
                                 " is not an object",
                                 sc->n_events);
        /* a new event */
        sc->ev_depth = d + 1;
        sc->ev_key = HS__K_NONE;
        sc->ev.ph = 0;
        sc->ev.cat[0] = sc->ev.name[0] = '\0';
        sc->ev.pid.kind = sc->ev.tid.kind = 0;
        sc->ev.has_ts = sc->ev.has_dur = sc->ev.has_corr = 0;
        sc->ev.coll[0] = sc->ev.dtype[0] = sc->ev.itype[0] = '\0';
        sc->ev.has_nelems = sc->ev.dims_known = 0;
        sc->ev.dims_nelems = 0;
        sc->ev.index = sc->n_events;
        return 1;
    }
    if (sc->ev_depth != 0 && d == sc->ev_depth) {
        int k = sc->ev_key;
        switch (k) {
        case HS__K_PH:
        case HS__K_CAT:
        case HS__K_NAME:
            if (kind == 'b')
                return 1;   /* null: as if absent */
            if (kind != 's')
                return hs__scan_fail(sc, HS_ERR_SCHEMA,
                                     "trace event %" PRIu64
                                     ": \"%s\" is not a string",
                                     sc->n_events, hs__ev_key_name(k));
            if (k == HS__K_PH)
                sc->ev.ph = n > 0 ? s[0] : 0;
            else if (k == HS__K_CAT)
                hs__copy(sc->ev.cat, sizeof sc->ev.cat,
                         (const unsigned char *)s, n);
            else
                hs__copy(sc->ev.name, sizeof sc->ev.name,
                         (const unsigned char *)s, n);
            return 1;
        case HS__K_PID:
        case HS__K_TID: {
            hs__key_t *key = k == HS__K_PID ? &sc->ev.pid : &sc->ev.tid;
            if (kind == 'n') {
                key->kind = 1;
                key->v = (int64_t)hs__fnv((const unsigned char *)s, n);
                /* numbers and strings never compare equal: kinds differ */
            } else if (kind == 's') {
                key->kind = 2;
                key->v = (int64_t)hs__fnv((const unsigned char *)s, n);
            } else if (kind != 'b') {
                return hs__scan_fail(sc, HS_ERR_SCHEMA,
                                     "trace event %" PRIu64
                                     ": \"%s\" is neither a number nor a "
                                     "string",
                                     sc->n_events, hs__ev_key_name(k));
            }
            return 1;
        }
        case HS__K_TS:
        case HS__K_DUR: {
            int64_t v;
            if (kind == 'b')
                return 1;
            if (kind != 'n' || hs__us_to_ns(s, n, &v) != 0)
                return hs__scan_fail(sc, HS_ERR_SCHEMA,
                                     "trace event %" PRIu64
                                     ": \"%s\" is not a number of "
                                     "microseconds",
                                     sc->n_events, hs__ev_key_name(k));
            if (k == HS__K_TS) {
                sc->ev.ts_ns = v;
                sc->ev.has_ts = 1;
            } else {
                if (v < 0)
                    return hs__scan_fail(sc, HS_ERR_SCHEMA,
                                         "trace event %" PRIu64
                                         ": negative \"dur\"",
                                         sc->n_events);
                sc->ev.dur_ns = v;
                sc->ev.has_dur = 1;
            }
            return 1;
        }
        case HS__K_ARGS:
            if (kind == '{') {
                sc->args_depth = d + 1;
                sc->arg_key = HS__A_NONE;
            } else if (kind != 'b') {
                return hs__scan_fail(sc, HS_ERR_SCHEMA,
                                     "trace event %" PRIu64
                                     ": \"args\" is not an object",
                                     sc->n_events);
            }
            return 1;
        default:
            return 1;
        }
    }
    if (sc->args_depth != 0 && d == sc->args_depth) {
        switch (sc->arg_key) {
        case HS__A_CORR: {
            uint64_t u;
            if (kind == 'n' && hs__to_u64(s, n, &u) == 0) {
                sc->ev.corr = u;
                sc->ev.has_corr = 1;
            }
            return 1;
        }
        case HS__A_NELEMS: {
            uint64_t u;
            if (kind == 'n' && hs__to_u64(s, n, &u) == 0) {
                sc->ev.nelems = u;
                sc->ev.has_nelems = 1;
            }
            return 1;
        }
        case HS__A_COLL:
            if (kind == 's')
                hs__copy(sc->ev.coll, sizeof sc->ev.coll,
                         (const unsigned char *)s, n);
            return 1;
        case HS__A_DTYPE:
            if (kind == 's')
                hs__copy(sc->ev.dtype, sizeof sc->ev.dtype,
                         (const unsigned char *)s, n);
            return 1;
        case HS__A_DIMS:
            if (kind == '[') {
                sc->dims_depth = d + 1;
                sc->dims_n = 0;
            }
            return 1;
        case HS__A_ITYPE:
            if (kind == '[') {
                sc->itype_depth = d + 1;
                sc->itype_n = 0;
            }
            return 1;
        default:
            return 1;
        }
    }
    if (sc->dims_depth != 0) {
        if (d == sc->dims_depth) {
            sc->dims_n++;
            if (sc->dims_n == 1 && kind == '[') {
                sc->prod0 = 1;
                sc->has0 = 0;
            }
            return 1;
        }
        if (sc->dims_n == 1 && d == sc->dims_depth + 1) {
            uint64_t u;
            if (kind == 'n' && hs__to_u64(s, n, &u) == 0) {
                sc->prod0 *= u;
                sc->has0 = 1;
            } else if (kind == '[') {   /* a TensorList: list of shapes */
                sc->prod1 = 1;
                sc->has1 = 0;
            }
            return 1;
        }
        if (sc->dims_n == 1 && d == sc->dims_depth + 2) {
            uint64_t u;
            if (kind == 'n' && hs__to_u64(s, n, &u) == 0) {
                sc->prod1 *= u;
                sc->has1 = 1;
            }
            return 1;
        }
        return 1;
    }
    if (sc->itype_depth != 0 && d == sc->itype_depth) {
        sc->itype_n++;
        if (sc->itype_n == 1 && kind == 's')
            hs__copy(sc->ev.itype, sizeof sc->ev.itype,
                     (const unsigned char *)s, n);
        return 1;
    }
    return 1;
}

static int hs__cb_null(void *ctx)
{
    return hs__value(ctx, 'b', NULL, 0);
}

static int hs__cb_bool(void *ctx, int v)
{
    (void)v;
    return hs__value(ctx, 'b', NULL, 0);
}

static int hs__cb_number(void *ctx, const char *s, size_t n)
{
    return hs__value(ctx, 'n', s, n);
}

static int hs__cb_string(void *ctx, const unsigned char *s, size_t n)
{
    return hs__value(ctx, 's', (const char *)s, n);
}

static int hs__cb_start_map(void *ctx)
{
    hs__scan_t *sc = ctx;

    if (!hs__value(sc, '{', NULL, 0))
        return 0;
    sc->depth++;
    return 1;
}

static int hs__cb_start_array(void *ctx)
{
    hs__scan_t *sc = ctx;

    if (!hs__value(sc, '[', NULL, 0))
        return 0;
    sc->depth++;
    return 1;
}

#define HS__KEYEQ(s, n, lit) \
    ((n) == sizeof(lit) - 1 && memcmp((s), (lit), (n)) == 0)

static int hs__cb_map_key(void *ctx, const unsigned char *s, size_t n)
{
    hs__scan_t *sc = ctx;
    int d = sc->depth;

    if (sc->ev_depth != 0 && d == sc->ev_depth) {
        if (HS__KEYEQ(s, n, "ph"))
            sc->ev_key = HS__K_PH;
        else if (HS__KEYEQ(s, n, "cat"))
            sc->ev_key = HS__K_CAT;
        else if (HS__KEYEQ(s, n, "name"))
            sc->ev_key = HS__K_NAME;
        else if (HS__KEYEQ(s, n, "pid"))
            sc->ev_key = HS__K_PID;
        else if (HS__KEYEQ(s, n, "tid"))
            sc->ev_key = HS__K_TID;
        else if (HS__KEYEQ(s, n, "ts"))
            sc->ev_key = HS__K_TS;
        else if (HS__KEYEQ(s, n, "dur"))
            sc->ev_key = HS__K_DUR;
        else if (HS__KEYEQ(s, n, "args"))
            sc->ev_key = HS__K_ARGS;
        else
            sc->ev_key = HS__K_OTHER;
    } else if (sc->args_depth != 0 && d == sc->args_depth) {
        if (HS__KEYEQ(s, n, "correlation"))
            sc->arg_key = HS__A_CORR;
        else if (HS__KEYEQ(s, n, "Collective name"))
            sc->arg_key = HS__A_COLL;
        else if (HS__KEYEQ(s, n, "In msg nelems"))
            sc->arg_key = HS__A_NELEMS;
        else if (HS__KEYEQ(s, n, "dtype"))
            sc->arg_key = HS__A_DTYPE;
        else if (HS__KEYEQ(s, n, "Input Dims"))
            sc->arg_key = HS__A_DIMS;
        else if (HS__KEYEQ(s, n, "Input type"))
            sc->arg_key = HS__A_ITYPE;
        else
            sc->arg_key = HS__A_OTHER;
    } else if (sc->root == 'm' && d == 1) {
        if (HS__KEYEQ(s, n, "traceEvents"))
            sc->root_key = 1;
        else if (HS__KEYEQ(s, n, "distributedInfo"))
            sc->root_key = 2;
        else
            sc->root_key = 0;
    } else if (sc->di_depth != 0 && d == sc->di_depth) {
        if (HS__KEYEQ(s, n, "rank"))
            sc->di_key = 1;
        else if (HS__KEYEQ(s, n, "world_size"))
            sc->di_key = 2;
        else if (HS__KEYEQ(s, n, "backend"))
            sc->di_key = 3;
        else
            sc->di_key = 0;
    }
    return 1;
}

/* A container closes: depth is its inside depth before the decrement. */
static int hs__close(hs__scan_t *sc)
{
    int d = sc->depth;

    if (sc->dims_depth != 0) {
        if (d == sc->dims_depth + 2 && sc->dims_n == 1 && sc->has1) {
            sc->ev.dims_nelems += sc->prod1;
            sc->ev.dims_known = 1;
            sc->has1 = 0;
        } else if (d == sc->dims_depth + 1 && sc->dims_n == 1 &&
                   sc->has0) {
            sc->ev.dims_nelems += sc->prod0;
            sc->ev.dims_known = 1;
            sc->has0 = 0;
        } else if (d == sc->dims_depth) {
            sc->dims_depth = 0;
        }
    }
    if (sc->itype_depth != 0 && d == sc->itype_depth)
        sc->itype_depth = 0;
    if (sc->args_depth != 0 && d == sc->args_depth)
        sc->args_depth = 0;
    if (sc->di_depth != 0 && d == sc->di_depth)
        sc->di_depth = 0;
    if (sc->ev_depth != 0 && d == sc->ev_depth) {
        hs_err_t rc;
        sc->ev_depth = 0;
        sc->n_events++;
        rc = sc->on_event(sc, &sc->ev);
        if (rc != HS_OK) {
            sc->rc = rc;
            return 0;
        }
    }
    if (sc->evarr_depth != 0 && d == sc->evarr_depth)
        sc->evarr_depth = 0;
    sc->depth--;
    return 1;
}

static int hs__cb_end(void *ctx)
{
    return hs__close(ctx);
}

static const yajl_callbacks hs__callbacks = {
    hs__cb_null, hs__cb_bool, NULL, NULL, hs__cb_number, hs__cb_string,
    hs__cb_start_map, hs__cb_map_key, hs__cb_end, hs__cb_start_array,
    hs__cb_end};

/* The JSON error yajl reports, without its verbose context lines. */
static void hs__yajl_msg(yajl_handle h, const unsigned char *buf, size_t len,
                         char *out, size_t cap)
{
    unsigned char *m = yajl_get_error(h, 0, buf, len);
    char *nl;

    snprintf(out, cap, "%s", m != NULL ? (const char *)m : "parse error");
    if (m != NULL)
        yajl_free_error(h, m);
    nl = strchr(out, '\n');
    if (nl != NULL)
        *nl = '\0';
}

/*
 * One streaming pass over `path`: every event goes to on_event.  Fills
 * *sc's results.  Errors name the file and the uncompressed byte offset
 * (or the compressed one for a gzip error).
 */
/* zlib's message without the "path: " it puts in front. */
static const char *hs__gzmsg(gzFile gz, const char *path)
{
    int zerr;
    const char *m = gzerror(gz, &zerr);
    size_t n = strlen(path);

    if (m == NULL)
        return "read failed";
    if (strncmp(m, path, n) == 0 && m[n] == ':' && m[n + 1] == ' ')
        m += n + 2;
    return m;
}

static hs_err_t hs__scan_file(const char *path, hs__ev_fn on_event,
                              void *user, hs__scan_t *sc, hs_error_t *err)
{
    FILE *f;
    gzFile gz = NULL;
    unsigned char magic[2];
    size_t nm;
    unsigned char *buf = NULL;
    hs_err_t rc = HS_OK;
    size_t plen = strlen(path);
    int is_gz;

    memset(sc, 0, sizeof *sc);
    sc->path = path;
    sc->err = err;
    sc->on_event = on_event;
    sc->user = user;
    sc->di_rank = sc->di_world = -1;

    f = fopen(path, "rb");
    if (f == NULL)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    nm = fread(magic, 1, 2, f);
    fclose(f);
    is_gz = nm == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (nm == 0)
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "the file is empty: expected a JSON trace");
    if (!is_gz && plen > 3 && strcmp(path + plen - 3, ".gz") == 0)
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "byte 0: not a gzip file (the name ends in "
                            ".gz but the gzip magic bytes 1f 8b are "
                            "missing)");
    gz = gzopen(path, "rb");
    if (gz == NULL) {
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    }
    gzbuffer(gz, 128u * 1024u);
    buf = malloc(HS__CHUNK);
    sc->h = yajl_alloc(&hs__callbacks, NULL, sc);
    if (buf == NULL || sc->h == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
        goto done;
    }
    /* kernel names are long; only ASCII prefixes are ever compared, so
       UTF-8 validation of every string is not worth its time */
    yajl_config(sc->h, yajl_dont_validate_strings, 1);
    for (;;) {
        int n = gzread(gz, buf, HS__CHUNK);
        yajl_status st;

        if (n <= 0) {
            /* zlib reports a truncated gzip stream on the last read */
            int zerr = Z_OK;
            gzerror(gz, &zerr);
            if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
                rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                                  "gzip error at compressed byte %ld "
                                  "(after %" PRIu64 " bytes of JSON): %s",
                                  (long)gzoffset(gz), sc->base,
                                  hs__gzmsg(gz, path));
                goto done;
            }
            break;
        }
        st = yajl_parse(sc->h, buf, (size_t)n);
        if (st == yajl_status_client_canceled) {
            rc = sc->rc;
            goto done;
        }
        if (st != yajl_status_ok) {
            char m[256];
            uint64_t off = hs__scan_off(sc);
            hs__yajl_msg(sc->h, buf, (size_t)n, m, sizeof m);
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                              "byte %" PRIu64 ": invalid JSON: %s", off, m);
            goto done;
        }
        sc->base += (uint64_t)n;
    }
    {
        int zerr = Z_OK;
        gzerror(gz, &zerr);
        if (zerr != Z_OK) {
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                              "gzip error after %" PRIu64
                              " bytes of JSON: %s",
                              sc->base, hs__gzmsg(gz, path));
            goto done;
        }
    }
    if (sc->base == 0) {
        rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                          "the file holds no data: expected a JSON trace");
        goto done;
    }
    {
        yajl_status st = yajl_complete_parse(sc->h);
        if (st == yajl_status_client_canceled) {
            rc = sc->rc;
            goto done;
        }
        if (st != yajl_status_ok) {
            char m[256];
            hs__yajl_msg(sc->h, (const unsigned char *)"", 0, m, sizeof m);
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                              "byte %" PRIu64
                              ": invalid JSON (truncated?): %s",
                              sc->base, m);
            goto done;
        }
    }
    if (!sc->saw_events)
        rc = hs_error_set(err, HS_ERR_TRACE, path, 0, 0,
                          "no \"traceEvents\" array: not a PyTorch "
                          "profiler trace");
done:
    if (sc->h != NULL)
        yajl_free(sc->h);
    sc->h = NULL;
    free(buf);
    gzclose(gz);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Per-file state                                                        */

/* All-reduce call kinds, in the order of trust for the payload. */
enum { HS__C_PC = 0, HS__C_C10D, HS__C_NCCL, HS__C_GLOO, HS__C_N };

/* GPU phases a kernel is charged to. */
enum { HS__P_FWD = 0, HS__P_B1, HS__P_BWD, HS__P_OPT, HS__P_N };

typedef struct hs__coll_s {
    int64_t ts_ns;
    uint64_t bytes;
    int kind;
    int known;      /* bytes measured */
} hs__coll_t;

typedef struct hs__step_s {
    long number;
    hs__key_t pid, tid;
    int64_t s, e;                 /* window [s, e) */
    /* pass 2 */
    int64_t dl_sum, dl_end;
    unsigned dl_n;
    int64_t b0, b1_dur, bend;     /* b0 = INT64_MAX: no backward op */
    unsigned n_bwd;
    int64_t opt_sum, opt_s, opt_e;
    unsigned n_opt;
    hs__coll_t *coll;
    size_t n_coll, cap_coll;
    /* buckets: the all-reduce calls of kind bk, by time */
    int bk;
    size_t nb;
    int64_t *bts;       /* CPU time of the call */
    uint64_t *bthr;     /* last backward launch (correlation id) before it */
    int64_t *bseg;      /* device time of backward kernels launched after
                           the previous bucket's call and before this one */
    /* passes 3, 4 */
    uint64_t corr_lo[HS__P_N], corr_hi[HS__P_N];
    int has_corr[HS__P_N];
    int64_t k_sum[HS__P_N];
    unsigned k_n[HS__P_N];
} hs__step_t;

typedef struct hs__ival_s {
    uint64_t lo, hi;
    size_t step;
    int phase;
} hs__ival_t;

typedef struct hs__file_s {
    char *path;
    hs_ingest_form_t form;
    long rank, world;
    char backend[HS__SHORT_MAX];
    uint64_t n_kernels_seen;  /* pass 1 */
    hs__key_t main_pid, main_tid;
    hs__step_t *st;
    size_t n_st, cap_st;
    int any_bwd;
    int ckind;                /* chosen all-reduce kind, -1 none */
    hs__ival_t *iv;
    size_t n_iv;
    int iv_overlap;
    uint64_t n_events, json_bytes;
    unsigned passes;
    hs_ingest_step_t *out;    /* public table */
    hs_ingest_file_t pub;
} hs__file_t;

typedef struct hs__sidecar_s {
    int loaded;
    long world_size;
    uint64_t grad_bytes;
    uint64_t *bucket_bytes;
    size_t n_buckets;
    int64_t *ready_ns;      /* "buckets": [{"bytes", "ready_ns"}], -1 =
                               null; n_ready entries */
    uint64_t *ready_bytes;
    size_t n_ready;
    int comm_after;            /* "comm": "after": the harness ran the
                                  all-reduces after the backward, so the
                                  trace's calls do not time the buckets */
    double comm_ns_per_byte;   /* from "comm_probe", 0 when absent */
    double comm_cpu_rate;      /* cores the forward ran at */
} hs__sidecar_t;

struct hs_ingest_s {
    unsigned warmup;
    char *sidecar_path;
    hs__sidecar_t sc;
    hs__file_t **files;
    size_t n_files;
    char **notes;
    size_t n_notes;
};

static void hs__note(hs_ingest_t *ing, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void hs__note(hs_ingest_t *ing, const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    char **nn;
    size_t i;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (i = 0; i < ing->n_notes; i++)
        if (strcmp(ing->notes[i], buf) == 0)
            return;
    nn = realloc(ing->notes, (ing->n_notes + 1) * sizeof *nn);
    if (nn == NULL)
        return;
    ing->notes = nn;
    if ((nn[ing->n_notes] = strdup(buf)) != NULL)
        ing->n_notes++;
}

static void hs__file_free(hs__file_t *f)
{
    size_t i;

    if (f == NULL)
        return;
    for (i = 0; i < f->n_st; i++) {
        free(f->st[i].coll);
        free(f->st[i].bts);
        free(f->st[i].bthr);
        free(f->st[i].bseg);
    }
    free(f->st);
    free(f->iv);
    free(f->out);
    free(f->path);
    free(f);
}

/* Index of the step whose window holds t, or -1. */
static long hs__find_step(const hs__file_t *f, int64_t t)
{
    size_t lo = 0, hi = f->n_st;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->st[mid].s <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    lo--;
    return t < f->st[lo].e ? (long)lo : -1;
}

/* ------------------------------------------------------------------ */
/* Pass 1: steps, distributedInfo, device kernels                        */

static hs_err_t hs__pass1(hs__scan_t *sc, const hs__ev_t *e)
{
    hs__file_t *f = sc->user;

    if (e->ph != 'X')
        return HS_OK;
    if (strcasecmp(e->cat, "kernel") == 0) {
        f->n_kernels_seen++;
        return HS_OK;
    }
    if (e->name[0] == 'P' && hs__starts(e->name, "ProfilerStep#") &&
        strcmp(e->cat, "gpu_user_annotation") != 0 && e->has_ts) {
        hs__step_t *s;
        if (f->n_st == f->cap_st) {
            size_t cap = f->cap_st ? f->cap_st * 2 : 64;
            hs__step_t *ns = realloc(f->st, cap * sizeof *ns);
            if (ns == NULL)
                return hs_error_set(sc->err, HS_ERR_NOMEM, sc->path, 0, 0,
                                    "out of memory");
            f->st = ns;
            f->cap_st = cap;
        }
        s = &f->st[f->n_st++];
        memset(s, 0, sizeof *s);
        s->number = strtol(e->name + 13, NULL, 10);
        s->pid = e->pid;
        s->tid = e->tid;
        s->s = e->ts_ns;
        s->e = e->ts_ns + (e->has_dur ? e->dur_ns : 0);
    }
    return HS_OK;
}

static int hs__cmp_step(const void *a, const void *b)
{
    const hs__step_t *x = a, *y = b;

    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;
}

/* Keeps the steps of the thread that has most of them, sorted. */
static hs_err_t hs__settle_steps(hs__file_t *f, hs_error_t *err)
{
    size_t i, j, best = 0, best_n = 0;

    if (f->n_st == 0)
        return hs_error_set(err, HS_ERR_TRACE, f->path, 0, 0,
                            "no ProfilerStep#N window: profile with "
                            "torch.profiler.profile(schedule=...) and call "
                            "prof.step() once per iteration");
    for (i = 0; i < f->n_st; i++) {
        size_t n = 0;
        for (j = 0; j < f->n_st; j++)
            if (hs__key_eq(f->st[i].pid, f->st[j].pid) &&
                hs__key_eq(f->st[i].tid, f->st[j].tid))
                n++;
        if (n > best_n) {
            best_n = n;
            best = i;
        }
        if (best_n * 2 > f->n_st)
            break;
    }
    f->main_pid = f->st[best].pid;
    f->main_tid = f->st[best].tid;
    for (i = j = 0; i < f->n_st; i++)
        if (hs__key_eq(f->st[i].pid, f->main_pid) &&
            hs__key_eq(f->st[i].tid, f->main_tid))
            f->st[j++] = f->st[i];
    f->n_st = j;
    qsort(f->st, f->n_st, sizeof *f->st, hs__cmp_step);
    for (i = 0; i < f->n_st; i++) {
        hs__step_t *s = &f->st[i];
        s->b0 = INT64_MAX;
        s->bend = INT64_MIN;
        s->opt_s = INT64_MAX;
        s->opt_e = INT64_MIN;
        s->dl_end = INT64_MIN;
        /* windows of one thread do not overlap; clip if they do */
        if (i + 1 < f->n_st && s->e > f->st[i + 1].s)
            s->e = f->st[i + 1].s;
    }
    return HS_OK;
}

/* ------------------------------------------------------------------ */
/* Pass 2: CPU marks per step                                            */

static hs_err_t hs__add_coll(hs__scan_t *sc, hs__step_t *s, int kind,
                             int64_t ts, uint64_t bytes, int known)
{
    hs__coll_t *c;

    if (s->n_coll == s->cap_coll) {
        size_t cap = s->cap_coll ? s->cap_coll * 2 : 8;
        hs__coll_t *nc = realloc(s->coll, cap * sizeof *nc);
        if (nc == NULL)
            return hs_error_set(sc->err, HS_ERR_NOMEM, sc->path, 0, 0,
                                "out of memory");
        s->coll = nc;
        s->cap_coll = cap;
    }
    c = &s->coll[s->n_coll++];
    c->ts_ns = ts;
    c->bytes = bytes;
    c->kind = kind;
    c->known = known;
    return HS_OK;
}

static hs_err_t hs__pass2(hs__scan_t *sc, const hs__ev_t *e)
{
    hs__file_t *f = sc->user;
    const char *nm = e->name;
    hs__step_t *s;
    long k;
    int64_t end;

    if (e->ph != 'X' || !e->has_ts || !hs__key_eq(e->pid, f->main_pid))
        return HS_OK;
    switch (nm[0]) {
    case 'e': case 'a': case 'O': case 'r': case 'c': case 'n': case 'g':
        break;
    default:
        return HS_OK;
    }
    k = hs__find_step(f, e->ts_ns);
    if (k < 0)
        return HS_OK;
    s = &f->st[k];
    end = e->ts_ns + (e->has_dur ? e->dur_ns : 0);
    if (hs__starts(nm, "enumerate(DataLoader)#")) {
        if (strstr(nm, "__next__") != NULL) {
            s->dl_sum += e->has_dur ? e->dur_ns : 0;
            if (end > s->dl_end)
                s->dl_end = end;
            s->dl_n++;
        }
    } else if (hs__starts(nm, "autograd::engine::evaluate_function: ")) {
        if (e->ts_ns < s->b0) {
            s->b0 = e->ts_ns;
            s->b1_dur = e->has_dur ? e->dur_ns : 0;
        }
        if (end > s->bend)
            s->bend = end;
        s->n_bwd++;
        f->any_bwd = 1;
    } else if (hs__starts(nm, "Optimizer.step#")) {
        s->opt_sum += e->has_dur ? e->dur_ns : 0;
        if (e->ts_ns < s->opt_s)
            s->opt_s = e->ts_ns;
        if (end > s->opt_e)
            s->opt_e = end;
        s->n_opt++;
    } else if (strcmp(nm, "record_param_comms") == 0) {
        if (strcasecmp(e->coll, "allreduce") == 0 ||
            strcasecmp(e->coll, "all_reduce") == 0) {
            unsigned sz = hs__dtype_size(e->dtype);
            int known = e->has_nelems && sz > 0;
            return hs__add_coll(sc, s, HS__C_PC, e->ts_ns,
                                known ? e->nelems * sz : 0, known);
        }
    } else {
        int kind = strcmp(nm, "c10d::allreduce_") == 0  ? HS__C_C10D
                   : strcmp(nm, "nccl:all_reduce") == 0 ? HS__C_NCCL
                   : strcmp(nm, "gloo:all_reduce") == 0 ? HS__C_GLOO
                                                        : -1;
        if (kind >= 0) {
            unsigned sz = hs__dtype_size(e->itype);
            int known = e->dims_known && sz > 0;
            return hs__add_coll(sc, s, kind, e->ts_ns,
                                known ? e->dims_nelems * sz : 0, known);
        }
    }
    return HS_OK;
}

/* ------------------------------------------------------------------ */
/* Passes 3, 4: device kernels by correlation id                         */

static int hs__phase_of(const hs__step_t *s, int64_t t)
{
    int64_t f0 = s->dl_n > 0 && s->dl_end > s->s ? s->dl_end : s->s;

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

static hs_err_t hs__pass3(hs__scan_t *sc, const hs__ev_t *e)
{
    hs__file_t *f = sc->user;
    hs__step_t *s;
    long k;
    int p;

    if (e->ph != 'X' || !e->has_ts || !e->has_corr ||
        !hs__key_eq(e->pid, f->main_pid) ||
        (strcasecmp(e->cat, "cuda_runtime") != 0 &&
         strcasecmp(e->cat, "cuda_driver") != 0 &&
         strcasecmp(e->cat, "runtime") != 0))
        return HS_OK;
    k = hs__find_step(f, e->ts_ns);
    if (k < 0)
        return HS_OK;
    s = &f->st[k];
    p = hs__phase_of(s, e->ts_ns);
    if (p < 0)
        return HS_OK;
    if ((p == HS__P_B1 || p == HS__P_BWD) && s->nb > 0) {
        /* the first bucket call after this launch */
        size_t lo = 0, hi = s->nb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->bts[mid] <= e->ts_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < s->nb && e->corr > s->bthr[lo])
            s->bthr[lo] = e->corr;
    }
    if (!s->has_corr[p]) {
        s->has_corr[p] = 1;
        s->corr_lo[p] = s->corr_hi[p] = e->corr;
    } else {
        if (e->corr < s->corr_lo[p])
            s->corr_lo[p] = e->corr;
        if (e->corr > s->corr_hi[p])
            s->corr_hi[p] = e->corr;
    }
    return HS_OK;
}

/* Communication kernels are not compute. */
static int hs__is_comm_kernel(const char *nm)
{
    return hs__starts(nm, "nccl") || hs__starts(nm, "rccl") ||
           hs__starts(nm, "void ncclKernel") ||
           hs__starts(nm, "void rccl") || strstr(nm, "ncclDevKernel") != NULL;
}

static hs_err_t hs__pass4(hs__scan_t *sc, const hs__ev_t *e)
{
    hs__file_t *f = sc->user;
    size_t lo = 0, hi = f->n_iv;
    const hs__ival_t *iv;

    if (e->ph != 'X' || !e->has_corr || !e->has_dur ||
        strcasecmp(e->cat, "kernel") != 0 || hs__is_comm_kernel(e->name))
        return HS_OK;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->iv[mid].lo <= e->corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return HS_OK;
    iv = &f->iv[lo - 1];
    if (e->corr > iv->hi)
        return HS_OK;
    f->st[iv->step].k_sum[iv->phase] += e->dur_ns;
    f->st[iv->step].k_n[iv->phase]++;
    if (iv->phase == HS__P_B1 || iv->phase == HS__P_BWD) {
        hs__step_t *s = &f->st[iv->step];
        size_t a = 0, b = s->nb;
        while (a < b) {   /* the first bucket whose threshold covers it */
            size_t mid = a + (b - a) / 2;
            if (s->bthr[mid] < e->corr)
                a = mid + 1;
            else
                b = mid;
        }
        if (a < s->nb)
            s->bseg[a] += e->dur_ns;
    }
    return HS_OK;
}

static int hs__cmp_ival(const void *a, const void *b)
{
    const hs__ival_t *x = a, *y = b;

    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static hs_err_t hs__build_ivals(hs__file_t *f, hs_error_t *err)
{
    size_t i, n = 0;
    int p;

    for (i = 0; i < f->n_st; i++)
        for (p = 0; p < HS__P_N; p++)
            n += f->st[i].has_corr[p] != 0;
    f->iv = calloc(n ? n : 1, sizeof *f->iv);
    if (f->iv == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                            "out of memory");
    for (i = 0; i < f->n_st; i++)
        for (p = 0; p < HS__P_N; p++)
            if (f->st[i].has_corr[p]) {
                hs__ival_t *v = &f->iv[f->n_iv++];
                v->lo = f->st[i].corr_lo[p];
                v->hi = f->st[i].corr_hi[p];
                v->step = i;
                v->phase = p;
            }
    qsort(f->iv, f->n_iv, sizeof *f->iv, hs__cmp_ival);
    for (i = 0; i < f->n_st; i++) {
        size_t c;
        for (c = 1; c < f->st[i].nb; c++)
            if (f->st[i].bthr[c] < f->st[i].bthr[c - 1])
                f->st[i].bthr[c] = f->st[i].bthr[c - 1];
    }
    for (i = 1; i < f->n_iv; i++)
        if (f->iv[i].lo <= f->iv[i - 1].hi)
            f->iv_overlap = 1;
    return HS_OK;
}

/* ------------------------------------------------------------------ */
/* The per-step table                                                    */

/* Picks the file's payload source: record_param_comms, else the first
   all-reduce op name whose every call has shapes. */
static void hs__choose_kind(hs__file_t *f)
{
    int k;
    size_t i, j;

    f->ckind = -1;
    for (k = 0; k < HS__C_N; k++) {
        size_t n = 0, bad = 0;
        for (i = 0; i < f->n_st; i++)
            for (j = 0; j < f->st[i].n_coll; j++)
                if (f->st[i].coll[j].kind == k) {
                    n++;
                    bad += !f->st[i].coll[j].known;
                }
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

static int hs__timing_kind(const hs__step_t *s, size_t nb);

/* After pass 2: the payload kind, and per step the bucket calls. */
static hs_err_t hs__prepare_buckets(hs_ingest_t *ing, hs__file_t *f,
                                    hs_error_t *err)
{
    size_t i, j;

    hs__choose_kind(f);
    for (i = 0; i < f->n_st; i++) {
        hs__step_t *s = &f->st[i];
        size_t n = 0;
        if (s->n_coll > 1)
            qsort(s->coll, s->n_coll, sizeof *s->coll, hs__cmp_coll);
        s->bk = f->ckind >= 0 ? f->ckind
                : ing->sc.loaded ? hs__timing_kind(s, ing->sc.n_buckets)
                                 : -1;
        if (s->bk < 0)
            continue;
        for (j = 0; j < s->n_coll; j++)
            n += s->coll[j].kind == s->bk;
        if (n == 0)
            continue;
        s->bts = malloc(n * sizeof *s->bts);
        s->bthr = calloc(n, sizeof *s->bthr);
        s->bseg = calloc(n, sizeof *s->bseg);
        if (s->bts == NULL || s->bthr == NULL || s->bseg == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, f->path, 0, 0,
                                "out of memory");
        for (j = 0; j < s->n_coll; j++)
            if (s->coll[j].kind == s->bk)
                s->bts[s->nb++] = s->coll[j].ts_ns;
    }
    return HS_OK;
}

static void hs__build_table(hs_ingest_t *ing, hs__file_t *f)
{
    size_t i, j;
    int gpu = f->n_kernels_seen > 0;

    for (i = 0; i < f->n_st; i++) {
        const hs__step_t *s = &f->st[i];
        hs_ingest_step_t *o = &f->out[i];
        int has_b = s->b0 != INT64_MAX;
        int64_t f0 = s->dl_n > 0 && s->dl_end > s->s ? s->dl_end : s->s;

        memset(o, 0, sizeof *o);
        o->number = s->number;
        o->start_ns = s->s;
        o->dur_ns = s->e - s->s;
        o->complete = has_b || !f->any_bwd;
        o->kept = i >= ing->warmup && o->complete;
        o->t_dl_ns = s->dl_n > 0 ? s->dl_sum : HS_INGEST_UNKNOWN;
        o->t_fwd_ns = o->t_b1_ns = o->t_bwd_ns = o->t_opt_ns =
            HS_INGEST_UNKNOWN;
        if (gpu) {
            if (has_b) {
                o->t_fwd_ns = s->k_sum[HS__P_FWD];
                o->t_b1_ns = s->k_sum[HS__P_B1];
                o->t_bwd_ns = s->k_sum[HS__P_B1] + s->k_sum[HS__P_BWD];
            }
            if (s->n_opt > 0)
                o->t_opt_ns = s->k_sum[HS__P_OPT];
            o->n_kernels = s->k_n[0] + s->k_n[1] + s->k_n[2] + s->k_n[3];
        } else {
            if (has_b) {
                o->t_fwd_ns = s->b0 > f0 ? s->b0 - f0 : 0;
                o->t_b1_ns = s->b1_dur;
                o->t_bwd_ns = s->bend - s->b0;
            }
            if (s->n_opt > 0)
                o->t_opt_ns = s->opt_sum;
        }
        if (f->ckind >= 0)
            for (j = 0; j < s->n_coll; j++)
                if (s->coll[j].kind == f->ckind && s->coll[j].known) {
                    o->ar_payload_bytes += s->coll[j].bytes;
                    o->n_allreduce++;
                }
        if (f->ckind < 0 && ing->sc.loaded)
            o->ar_payload_bytes = ing->sc.grad_bytes;
    }
    f->pub.path = f->path;
    f->pub.form = f->form;
    f->pub.rank = f->rank;
    f->pub.world_size = f->world;
    f->pub.backend = f->backend;
    f->pub.gpu = gpu;
    f->pub.ar_known = f->ckind >= 0 || ing->sc.loaded;
    f->pub.ar_source = f->ckind == HS__C_PC ? HS_AR_PARAM_COMMS
                       : f->ckind >= 0      ? HS_AR_SHAPES
                                            : HS_AR_SIDECAR;
    f->pub.n_events = f->n_events;
    f->pub.json_bytes = f->json_bytes;
    f->pub.passes = f->passes;
    f->pub.n_steps = f->n_st;
    f->pub.steps = f->out;
}

/* ------------------------------------------------------------------ */
/* The sidecar                                                           */

/* A sidecar is a few hundred bytes, so it is read whole with yajl_tree. */

static hs_err_t hs__sc_bad(const char *path, hs_error_t *err,
                           const char *what)
{
    return hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0, "%s", what);
}

/* A non-negative integer field: 1 read, 0 absent, -1 present but not one
   (JSON null counts as absent when null_ok). */
static int hs__sc_u64(yajl_val obj, const char *key, int null_ok,
                      uint64_t *out)
{
    const char *path[2] = {key, NULL};
    yajl_val v = yajl_tree_get(obj, path, yajl_t_any);

    if (v == NULL || (null_ok && YAJL_IS_NULL(v)))
        return 0;
    if (!YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0)
        return -1;
    *out = (uint64_t)YAJL_GET_INTEGER(v);
    return 1;
}

/* The communication's own cost on the device (the harness's
   "comm_probe": the process's CPU time over reps all-reduces of the real
   buckets, bytes_sent per device each), in ns of the device per byte
   sent: CPU time / the CPU rate of the device's compute (CPU time over
   wall time of the kept steps' forwards, "cpu_fwd_ns" / "t_fwd_ns") /
   bytes.  Absent or null probe: 0. */
static hs_err_t hs__sc_comm(const char *path, yajl_val root,
                            hs__sidecar_t *out, hs_error_t *err)
{
    const char *pp[2] = {"comm_probe", NULL}, *ps[2] = {"steps", NULL};
    yajl_val probe = yajl_tree_get(root, pp, yajl_t_any), steps;
    uint64_t reps = 0, sent = 0, cpu = 0, c, w;
    double cpu_sum = 0, wall_sum = 0;
    size_t i;

    if (probe == NULL || YAJL_IS_NULL(probe))
        return HS_OK;
    if (!YAJL_IS_OBJECT(probe) || hs__sc_u64(probe, "reps", 0, &reps) != 1 ||
        hs__sc_u64(probe, "bytes_sent", 0, &sent) != 1 ||
        hs__sc_u64(probe, "cpu_ns", 0, &cpu) != 1 || reps == 0)
        return hs__sc_bad(path, err, "comm_probe must be an object with "
                                     "positive integers reps, bytes_sent "
                                     "and cpu_ns");
    steps = yajl_tree_get(root, ps, yajl_t_array);
    for (i = 0; steps != NULL && i < YAJL_GET_ARRAY(steps)->len; i++) {
        yajl_val st = YAJL_GET_ARRAY(steps)->values[i];
        if (!YAJL_IS_OBJECT(st) || hs__sc_u64(st, "cpu_fwd_ns", 0, &c) != 1 ||
            hs__sc_u64(st, "t_fwd_ns", 0, &w) != 1)
            continue;
        cpu_sum += (double)c;
        wall_sum += (double)w;
    }
    if (sent == 0 || cpu_sum <= 0 || wall_sum <= 0)
        return HS_OK;   /* nothing to divide by: no cost known */
    out->comm_cpu_rate = cpu_sum / wall_sum;
    out->comm_ns_per_byte = (double)cpu / (double)reps /
                            out->comm_cpu_rate / (double)sent;
    return HS_OK;
}

static hs_err_t hs__load_sidecar(const char *path, hs__sidecar_t *out,
                                 hs_error_t *err)
{
    static const char *const info[] = {"device_type", "backend", "torch",
                                       NULL};
    char *text = NULL, ebuf[256];
    size_t len = 0, i;
    yajl_val root = NULL, v;
    uint64_t u;
    int have_grad;
    hs_err_t rc = HS_OK;

    memset(out, 0, sizeof *out);
    if ((rc = hs_file_read(path, &text, &len, err)) != HS_OK)
        return rc;
    if (len == 0) {
        free(text);
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "the sidecar is empty");
    }
    root = yajl_tree_parse(text, ebuf, sizeof ebuf);
    free(text);
    if (root == NULL) {
        for (i = 0; ebuf[i] != '\0'; i++)
            if (ebuf[i] == '\n')
                ebuf[i] = ' ';
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "invalid JSON: %s", ebuf);
    }
    if (!YAJL_IS_OBJECT(root)) {
        rc = hs__sc_bad(path, err, "the sidecar must be a JSON object");
        goto done;
    }
    if (hs__sc_u64(root, "hetsim_sidecar", 0, &u) != 1 || u != 1) {
        rc = hs__sc_bad(path, err, "not a hetsim sidecar: "
                                   "\"hetsim_sidecar\": 1 is missing");
        goto done;
    }
    switch (hs__sc_u64(root, "world_size", 0, &u)) {
    case 0:
        rc = hs__sc_bad(path, err, "the sidecar needs \"world_size\"");
        goto done;
    case -1:
        rc = hs__sc_bad(path, err, "world_size must be a positive integer");
        goto done;
    }
    if (u < 1 || u > LONG_MAX) {
        rc = hs__sc_bad(path, err, "world_size must be a positive integer");
        goto done;
    }
    out->world_size = (long)u;
    if (hs__sc_u64(root, "rank", 0, &u) < 0) {
        rc = hs__sc_bad(path, err, "rank must be a non-negative integer");
        goto done;
    }
    for (i = 0; info[i] != NULL; i++) {
        const char *p2[2] = {info[i], NULL};
        v = yajl_tree_get(root, p2, yajl_t_any);
        if (v != NULL && !YAJL_IS_STRING(v)) {
            rc = hs__sc_bad(path, err, "device_type, backend and torch "
                                       "must be strings");
            goto done;
        }
    }
    have_grad = hs__sc_u64(root, "grad_bytes", 0, &out->grad_bytes);
    if (have_grad < 0) {
        rc = hs__sc_bad(path, err, "grad_bytes must be a non-negative "
                                   "integer (bytes)");
        goto done;
    }
    {
        const char *p2[2] = {"bucket_bytes", NULL};
        v = yajl_tree_get(root, p2, yajl_t_any);
    }
    if (v != NULL) {
        uint64_t sum = 0;
        if (!YAJL_IS_ARRAY(v)) {
            rc = hs__sc_bad(path, err, "bucket_bytes must be a list of "
                                       "integers (bytes)");
            goto done;
        }
        out->n_buckets = YAJL_GET_ARRAY(v)->len;
        out->bucket_bytes = calloc(out->n_buckets ? out->n_buckets : 1,
                                   sizeof *out->bucket_bytes);
        if (out->bucket_bytes == NULL) {
            rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
            goto done;
        }
        for (i = 0; i < out->n_buckets; i++) {
            yajl_val e = YAJL_GET_ARRAY(v)->values[i];
            if (!YAJL_IS_INTEGER(e) || YAJL_GET_INTEGER(e) < 0) {
                rc = hs__sc_bad(path, err, "bucket_bytes must hold "
                                           "non-negative integers (bytes)");
                goto done;
            }
            out->bucket_bytes[i] = (uint64_t)YAJL_GET_INTEGER(e);
            sum += out->bucket_bytes[i];
        }
        if (have_grad == 0) {
            out->grad_bytes = sum;
            have_grad = 1;
        } else if (sum != out->grad_bytes && out->n_buckets > 0) {
            rc = hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0,
                              "bucket_bytes add up to %" PRIu64
                              " bytes, grad_bytes says %" PRIu64,
                              sum, out->grad_bytes);
            goto done;
        }
    }
    if (have_grad == 0) {
        rc = hs__sc_bad(path, err, "the sidecar needs \"grad_bytes\" or "
                                   "\"bucket_bytes\"");
        goto done;
    }
    {
        const char *p2[2] = {"buckets", NULL};
        v = yajl_tree_get(root, p2, yajl_t_any);
    }
    if (v != NULL && !YAJL_IS_NULL(v)) {
        if (!YAJL_IS_ARRAY(v)) {
            rc = hs__sc_bad(path, err, "buckets must be a list of objects");
            goto done;
        }
        out->n_ready = YAJL_GET_ARRAY(v)->len;
        out->ready_ns = calloc(out->n_ready ? out->n_ready : 1,
                               sizeof *out->ready_ns);
        out->ready_bytes = calloc(out->n_ready ? out->n_ready : 1,
                                  sizeof *out->ready_bytes);
        if (out->ready_ns == NULL || out->ready_bytes == NULL) {
            rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
            goto done;
        }
        for (i = 0; i < out->n_ready; i++) {
            yajl_val e = YAJL_GET_ARRAY(v)->values[i];
            int rb, rr;
            if (!YAJL_IS_OBJECT(e)) {
                rc = hs__sc_bad(path, err,
                                "buckets must be a list of objects");
                goto done;
            }
            out->ready_ns[i] = -1;      /* null: not measured */
            rb = hs__sc_u64(e, "bytes", 0, &out->ready_bytes[i]);
            rr = hs__sc_u64(e, "ready_ns", 1, &u);
            if (rb < 0 || rr < 0) {
                rc = hs__sc_bad(path, err, "buckets[].bytes and "
                                           "buckets[].ready_ns must be "
                                           "non-negative integers");
                goto done;
            }
            if (rr == 1)
                out->ready_ns[i] = (int64_t)u;
        }
    }
    {
        const char *p2[2] = {"comm", NULL};
        v = yajl_tree_get(root, p2, yajl_t_any);
        if (v != NULL && !YAJL_IS_STRING(v)) {
            rc = hs__sc_bad(path, err, "comm must be \"after\" or "
                                       "\"overlap\"");
            goto done;
        }
        if (v != NULL) {
            const char *cm = YAJL_GET_STRING(v);
            out->comm_after = cm != NULL && strcmp(cm, "after") == 0;
        }
    }
    if ((rc = hs__sc_comm(path, root, out, err)) != HS_OK)
        goto done;
    out->loaded = 1;
done:
    yajl_tree_free(root);
    if (rc != HS_OK) {
        free(out->bucket_bytes);
        free(out->ready_ns);
        free(out->ready_bytes);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* Public: construction, files                                           */

void hs_ingest_opts_default(hs_ingest_opts_t *o)
{
    o->warmup = HS_INGEST_DEFAULT_WARMUP;
    o->sidecar = NULL;
}

hs_ingest_t *hs_ingest_new(const hs_ingest_opts_t *o)
{
    hs_ingest_opts_t d;
    hs_ingest_t *ing;

    if (o == NULL) {
        hs_ingest_opts_default(&d);
        o = &d;
    }
    ing = calloc(1, sizeof *ing);
    if (ing == NULL)
        goto fail;
    ing->warmup = o->warmup;
    if (o->sidecar != NULL &&
        (ing->sidecar_path = strdup(o->sidecar)) == NULL)
        goto fail;
    return ing;
fail:
    hs_ingest_free(ing);
    return NULL;
}

void hs_ingest_free(hs_ingest_t *ing)
{
    size_t i;

    if (ing == NULL)
        return;
    for (i = 0; i < ing->n_files; i++)
        hs__file_free(ing->files[i]);
    free(ing->files);
    for (i = 0; i < ing->n_notes; i++)
        free(ing->notes[i]);
    free(ing->notes);
    free(ing->sc.bucket_bytes);
    free(ing->sc.ready_ns);
    free(ing->sc.ready_bytes);
    free(ing->sidecar_path);
    free(ing);
}

hs_err_t hs_ingest_add_file(hs_ingest_t *ing, const char *path,
                            hs_error_t *err)
{
    hs__file_t *f;
    hs__scan_t sc;
    hs_err_t rc;
    size_t i;
    hs__file_t **nf;

    if (ing->sidecar_path != NULL && !ing->sc.loaded &&
        (rc = hs__load_sidecar(ing->sidecar_path, &ing->sc, err)) != HS_OK)
        return rc;
    f = calloc(1, sizeof *f);
    if (f == NULL || (f->path = strdup(path)) == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
        goto fail;
    }
    /* pass 1 */
    if ((rc = hs__scan_file(path, hs__pass1, f, &sc, err)) != HS_OK)
        goto fail;
    f->passes = 1;
    f->form = sc.root == 'a' ? HS_INGEST_LEGACY : HS_INGEST_KINETO;
    f->rank = sc.di_rank >= 0 ? sc.di_rank : (long)ing->n_files;
    f->world = sc.di_world;
    snprintf(f->backend, sizeof f->backend, "%s", sc.di_backend);
    f->n_events = sc.n_events;
    f->json_bytes = sc.base;
    if ((rc = hs__settle_steps(f, err)) != HS_OK)
        goto fail;
    for (i = 0; i < ing->n_files; i++)
        if (sc.di_rank >= 0 && ing->files[i]->rank == f->rank) {
            rc = hs_error_set(err, HS_ERR_TRACE, path, 0, 0,
                              "rank %ld again (already read from %s): "
                              "give one trace per rank",
                              f->rank, ing->files[i]->path);
            goto fail;
        }
    /* pass 2 */
    if ((rc = hs__scan_file(path, hs__pass2, f, &sc, err)) != HS_OK)
        goto fail;
    f->passes++;
    if ((rc = hs__prepare_buckets(ing, f, err)) != HS_OK)
        goto fail;
    if (f->n_kernels_seen > 0) {
        if ((rc = hs__scan_file(path, hs__pass3, f, &sc, err)) != HS_OK)
            goto fail;
        if ((rc = hs__build_ivals(f, err)) != HS_OK)
            goto fail;
        if ((rc = hs__scan_file(path, hs__pass4, f, &sc, err)) != HS_OK)
            goto fail;
        f->passes += 2;
        if (f->iv_overlap)
            hs__note(ing,
                     "%s: correlation ids of different phases interleave "
                     "(launches from several threads at once?): a kernel "
                     "is charged to the first phase whose id range holds it",
                     hs__basename(path));
    }
    f->out = calloc(f->n_st, sizeof *f->out);
    if (f->out == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
        goto fail;
    }
    nf = realloc(ing->files, (ing->n_files + 1) * sizeof *nf);
    if (nf == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
        goto fail;
    }
    ing->files = nf;
    hs__build_table(ing, f);
    ing->files[ing->n_files++] = f;
    return HS_OK;
fail:
    hs__file_free(f);
    return rc;
}

size_t hs_ingest_n_files(const hs_ingest_t *ing)
{
    return ing->n_files;
}

const hs_ingest_file_t *hs_ingest_file(const hs_ingest_t *ing, size_t i)
{
    return i < ing->n_files ? &ing->files[i]->pub : NULL;
}

const char *const *hs_ingest_notes(const hs_ingest_t *ing, size_t *n)
{
    *n = ing->n_notes;
    return (const char *const *)ing->notes;
}

const char *hs_ar_source_name(hs_ar_source_t s)
{
    switch (s) {
    case HS_AR_PARAM_COMMS: return "param_comms";
    case HS_AR_SHAPES: return "shapes";
    case HS_AR_SIDECAR: return "sidecar";
    default: return "given";
    }
}

/* ------------------------------------------------------------------ */
/* The profile                                                           */

/*
 * Averages one quantity: per rank over its kept steps, then over ranks;
 * sd over all kept samples of all ranks (n-1 denominator); the samples in
 * rank order.  `off` is the field's offset in hs_ingest_step_t.
 */
static hs_err_t hs__dist(hs_ingest_t *ing, size_t off, hs_dist_t *d,
                         size_t *missing)
{
    size_t i, j, n = 0, k = 0, ranks = 0;
    double sum_means = 0, mean, sq = 0;

    memset(d, 0, sizeof *d);
    *missing = 0;
    for (i = 0; i < ing->n_files; i++) {
        const hs__file_t *f = ing->files[i];
        for (j = 0; j < f->n_st; j++) {
            int64_t v;
            if (!f->out[j].kept)
                continue;
            memcpy(&v, (const char *)&f->out[j] + off, sizeof v);
            if (v == HS_INGEST_UNKNOWN)
                (*missing)++;
            else
                n++;
        }
    }
    if (n == 0)
        return HS_OK;
    d->samples_ns = malloc(n * sizeof *d->samples_ns);
    if (d->samples_ns == NULL)
        return HS_ERR_NOMEM;
    for (i = 0; i < ing->n_files; i++) {
        const hs__file_t *f = ing->files[i];
        double rs = 0;
        size_t rn = 0;
        for (j = 0; j < f->n_st; j++) {
            int64_t v;
            if (!f->out[j].kept)
                continue;
            memcpy(&v, (const char *)&f->out[j] + off, sizeof v);
            if (v == HS_INGEST_UNKNOWN)
                continue;
            d->samples_ns[k++] = v;
            rs += (double)v;
            rn++;
        }
        if (rn > 0) {
            sum_means += rs / (double)rn;
            ranks++;
        }
    }
    d->n_samples = n;
    d->known = 1;
    mean = sum_means / (double)ranks;
    d->mean_ns = (int64_t)llround(mean);
    {
        double pm = 0;
        for (k = 0; k < n; k++)
            pm += (double)d->samples_ns[k];
        pm /= (double)n;
        for (k = 0; k < n; k++)
            sq += ((double)d->samples_ns[k] - pm) *
                  ((double)d->samples_ns[k] - pm);
    }
    d->sd_ns = n > 1 ? (int64_t)llround(sqrt(sq / (double)(n - 1))) : 0;
    return HS_OK;
}

static void hs__profile_release(hs_profile_t *p)
{
    hs_profile_clear(p);
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

/* Buckets with the ready times the harness measured itself (the
   sidecar's "buckets"), when the trace has no calls to time them by. */
static hs_err_t hs__sidecar_buckets(hs_ingest_t *ing, hs_profile_t *p)
{
    const hs__sidecar_t *sc = &ing->sc;
    size_t i;

    if (sc->n_ready == 0 || sc->n_ready != sc->n_buckets) {
        hs__note(ing, "no buckets: the trace has no all-reduce calls to "
                      "time the sidecar's bucket_bytes by, and the sidecar "
                      "has no bucket ready times");
        return HS_OK;
    }
    for (i = 0; i < sc->n_ready; i++)
        if (sc->ready_ns[i] < 0 || sc->ready_bytes[i] != sc->bucket_bytes[i]) {
            hs__note(ing, "no buckets: the sidecar's bucket %zu has no "
                          "ready time (or its bytes differ from "
                          "bucket_bytes)", i);
            return HS_OK;
        }
    p->buckets = calloc(sc->n_ready, sizeof *p->buckets);
    if (p->buckets == NULL)
        return HS_ERR_NOMEM;
    p->n_buckets = sc->n_ready;
    for (i = 0; i < sc->n_ready; i++) {
        p->buckets[i].bytes = sc->bucket_bytes[i];
        p->buckets[i].ready_ns = sc->ready_ns[i];
    }
    hs__note(ing, "bucket ready times are the sidecar's (measured by the "
                  "harness's comm hook), not the trace's");
    return HS_OK;
}

/* Mean bucket sizes and ready times over the kept steps of all ranks;
   leaves p->n_buckets 0 (with a note) when they cannot be matched.  Ready
   times are CPU time from the first backward operator to the all-reduce
   call, or, on device traces, the device time of the backward kernels
   launched before that call. */
static hs_err_t hs__buckets(hs_ingest_t *ing, hs_profile_t *p,
                            int use_sidecar)
{
    size_t i, j, c, nb = 0, nsteps = 0;
    double *rsum = NULL, *bsum = NULL;
    int first = 1, bytes_vary = 0;

    if (use_sidecar && ing->sc.comm_after && ing->sc.n_ready > 0)
        /* the all-reduce calls ran after the backward: only the harness's
           own clock says when each bucket was ready */
        return hs__sidecar_buckets(ing, p);
    for (i = 0; i < ing->n_files; i++) {
        const hs__file_t *f = ing->files[i];
        int gpu = f->n_kernels_seen > 0;
        for (j = 0; j < f->n_st; j++) {
            const hs__step_t *s = &f->st[j];
            size_t k = 0;
            int64_t acc = 0;
            if (!f->out[j].kept || s->b0 == INT64_MAX)
                continue;
            if (s->bk < 0 || (use_sidecar && s->nb != ing->sc.n_buckets)) {
                if (use_sidecar) {
                    free(rsum);
                    free(bsum);
                    return hs__sidecar_buckets(ing, p);
                }
                hs__note(ing,
                         "no buckets: %s step %ld has no all-reduce calls "
                         "to time them by%s",
                         hs__basename(f->path), s->number,
                         use_sidecar ? " (as many as the sidecar's "
                                       "bucket_bytes)"
                                     : "");
                goto none;
            }
            if (first) {
                nb = s->nb;
                first = 0;
                if (nb == 0)
                    goto none;
                rsum = calloc(nb, sizeof *rsum);
                bsum = calloc(nb, sizeof *bsum);
                if (rsum == NULL || bsum == NULL) {
                    free(rsum);
                    free(bsum);
                    return HS_ERR_NOMEM;
                }
            } else if (s->nb != nb) {
                hs__note(ing,
                         "no buckets: %s step %ld has %zu all-reduce calls, "
                         "other steps %zu",
                         hs__basename(f->path), s->number, s->nb, nb);
                goto none;
            }
            for (c = 0; c < s->n_coll; c++) {
                const hs__coll_t *cl = &s->coll[c];
                double b;
                if (cl->kind != s->bk)
                    continue;
                b = use_sidecar ? (double)ing->sc.bucket_bytes[k]
                                : (double)cl->bytes;
                if (nsteps > 0 && fabs(bsum[k] / (double)nsteps - b) > 0.5)
                    bytes_vary = 1;
                bsum[k] += b;
                acc += s->bseg[k];
                rsum[k] += gpu ? (double)acc : (double)(cl->ts_ns - s->b0);
                k++;
            }
            nsteps++;
        }
    }
    if (nsteps == 0 || nb == 0)
        goto none;
    p->buckets = calloc(nb, sizeof *p->buckets);
    if (p->buckets == NULL) {
        free(rsum);
        free(bsum);
        return HS_ERR_NOMEM;
    }
    p->n_buckets = nb;
    for (c = 0; c < nb; c++) {
        double r = rsum[c] / (double)nsteps;
        p->buckets[c].bytes = (uint64_t)llround(bsum[c] / (double)nsteps);
        p->buckets[c].ready_ns = r > 0 ? (int64_t)llround(r) : 0;
    }
    if (bytes_vary)
        hs__note(ing, "bucket sizes vary between steps: the means are "
                      "written");
    free(rsum);
    free(bsum);
    return HS_OK;
none:
    free(rsum);
    free(bsum);
    p->n_buckets = 0;
    return HS_OK;
}

hs_err_t hs_ingest_profile(hs_ingest_t *ing, hs_profile_t *out,
                           hs_error_t *err)
{
    size_t i, j, miss;
    hs_err_t rc;
    int all_pc = 1, all_trace = 1, gpu_all = 1, gpu_any = 0;
    long world = -1;
    unsigned n, kept_min = UINT_MAX;
    double msum = 0;
    uint64_t m;
    char src[1024];
    size_t off;
    long first_kept = -1, last_kept = -1;

    memset(out, 0, sizeof *out);
    if (ing->n_files == 0)
        return hs_error_setf(err, HS_ERR_TRACE, "no trace to ingest");
    for (i = 0; i < ing->n_files; i++) {
        const hs__file_t *f = ing->files[i];
        unsigned kept = 0;
        if (f->n_st < (size_t)ing->warmup + 1)
            return hs_error_set(err, HS_ERR_TRACE, f->path, 0, 0,
                                "%zu ProfilerStep windows, fewer than the "
                                "warm-up (%u) plus one: profile more "
                                "iterations or lower --warmup",
                                f->n_st, ing->warmup);
        for (j = 0; j < f->n_st; j++)
            if (f->out[j].kept) {
                kept++;
                if (first_kept < 0 || f->out[j].number < first_kept)
                    first_kept = f->out[j].number;
                if (f->out[j].number > last_kept)
                    last_kept = f->out[j].number;
            }
        if (kept == 0)
            return hs_error_set(err, HS_ERR_TRACE, f->path, 0, 0,
                                "no complete step after the warm-up of %u "
                                "(a complete step has a backward operator)",
                                ing->warmup);
        if (kept < kept_min)
            kept_min = kept;
        if (f->ckind != HS__C_PC)
            all_pc = 0;
        if (f->ckind < 0)
            all_trace = 0;
        if (f->n_kernels_seen > 0)
            gpu_any = 1;
        else
            gpu_all = 0;
        if (f->world > 0) {
            if (world > 0 && world != f->world)
                return hs_error_set(err, HS_ERR_TRACE, f->path, 0, 0,
                                    "world_size %ld, but another trace "
                                    "says %ld: one sub-system at a time",
                                    f->world, world);
            world = f->world;
        }
    }
    if (gpu_any && !gpu_all)
        hs__note(ing, "some traces have device kernels and some not: "
                      "compute times mix kernel and CPU times");
    /* the sub-system size n */
    if (world > 0)
        n = (unsigned)world;
    else if (ing->sc.loaded)
        n = (unsigned)ing->sc.world_size;
    else
        n = (unsigned)ing->n_files;
    if (world > 0 && ing->sc.loaded && ing->sc.world_size != world)
        hs__note(ing, "the sidecar says world_size %ld, the traces %ld: "
                      "the traces' value is used",
                 ing->sc.world_size, world);
    if (n < 2)
        return hs_error_setf(err, HS_ERR_TRACE,
                             "%s: sub-system size %u: the traces carry no "
                             "distributedInfo.world_size; give the traces "
                             "of at least 2 ranks or a --sidecar with "
                             "world_size",
                             ing->files[0]->path, n);
    if (ing->n_files > n)
        return hs_error_setf(err, HS_ERR_TRACE,
                             "%zu traces for a world of %u ranks",
                             ing->n_files, n);
    /* times */
    off = offsetof(hs_ingest_step_t, t_dl_ns);
    if ((rc = hs__dist(ing, off, &out->t_dl, &miss)) != HS_OK)
        goto nomem;
    if (!out->t_dl.known)
        hs__note(ing, "no DataLoader events (enumerate(DataLoader)#..."
                      "__next__): t_dl is unknown");
    else if (miss > 0)
        hs__note(ing, "%zu kept steps have no DataLoader event: t_dl from "
                      "the others", miss);
    off = offsetof(hs_ingest_step_t, t_fwd_ns);
    if ((rc = hs__dist(ing, off, &out->t_fwd, &miss)) != HS_OK)
        goto nomem;
    off = offsetof(hs_ingest_step_t, t_b1_ns);
    if ((rc = hs__dist(ing, off, &out->t_b1, &miss)) != HS_OK)
        goto nomem;
    off = offsetof(hs_ingest_step_t, t_bwd_ns);
    if ((rc = hs__dist(ing, off, &out->t_bwd, &miss)) != HS_OK)
        goto nomem;
    off = offsetof(hs_ingest_step_t, t_opt_ns);
    if ((rc = hs__dist(ing, off, &out->t_opt, &miss)) != HS_OK)
        goto nomem;
    if (!out->t_opt.known)
        hs__note(ing, "no Optimizer.step# events: t_opt is unknown");
    if (!out->t_fwd.known || !out->t_b1.known) {
        hs__profile_release(out);
        return hs_error_set(err, HS_ERR_TRACE, ing->files[0]->path, 0, 0,
                            "no backward operator (autograd::engine::"
                            "evaluate_function: ...) in the kept steps: "
                            "t_fwd and t_b1 cannot be measured");
    }
    /* the payload M and D */
    if (all_trace) {
        out->ar_source = all_pc ? HS_AR_PARAM_COMMS : HS_AR_SHAPES;
        for (i = 0; i < ing->n_files; i++) {
            const hs__file_t *f = ing->files[i];
            double s = 0;
            size_t k = 0;
            int vary = 0;
            for (j = 0; j < f->n_st; j++)
                if (f->out[j].kept) {
                    if (k > 0 && f->out[j].ar_payload_bytes !=
                                     (uint64_t)llround(s / (double)k))
                        vary = 1;
                    s += (double)f->out[j].ar_payload_bytes;
                    k++;
                }
            if (vary)
                hs__note(ing, "%s: the all-reduce payload varies between "
                              "steps: the mean is used",
                         hs__basename(f->path));
            msum += s / (double)k;
        }
        m = (uint64_t)llround(msum / (double)ing->n_files);
    } else if (ing->sc.loaded) {
        out->ar_source = HS_AR_SIDECAR;
        m = ing->sc.grad_bytes;
    } else {
        hs__profile_release(out);
        return hs_error_set(err, HS_ERR_TRACE, ing->files[0]->path, 0, 0,
                            "no all-reduce payload: no record_param_comms "
                            "args, no shapes of c10d::allreduce_/"
                            "nccl:all_reduce/gloo:all_reduce "
                            "(record_shapes=True), and no --sidecar");
    }
    out->subsys_n = n;
    out->ar_bytes = (uint64_t)llround((double)m * 2.0 * (double)(n - 1) /
                                      (double)n);
    out->steps_kept = kept_min;
    if (ing->sc.loaded && ing->sc.comm_ns_per_byte > 0) {
        out->comm_ns_per_byte = ing->sc.comm_ns_per_byte;
        hs__note(ing, "communication cost %.3g ns of the device per byte "
                      "sent (the sidecar's comm_probe: CPU time of the "
                      "all-reduces at the forward's %.3f cores)",
                 ing->sc.comm_ns_per_byte, ing->sc.comm_cpu_rate);
    }
    if ((rc = hs__buckets(ing, out, out->ar_source == HS_AR_SIDECAR)) !=
        HS_OK)
        goto nomem;
    /* the source text */
    {
        size_t len = 0;
        len += (size_t)snprintf(src + len, sizeof src - len,
                                "ingested from ");
        for (i = 0; i < ing->n_files && len < sizeof src; i++)
            len += (size_t)snprintf(src + len, sizeof src - len, "%s%s",
                                    i ? ", " : "",
                                    hs__basename(ing->files[i]->path));
        if (len < sizeof src)
            len += (size_t)snprintf(src + len, sizeof src - len,
                                    " (ranks ");
        for (i = 0; i < ing->n_files && len < sizeof src; i++)
            len += (size_t)snprintf(src + len, sizeof src - len, "%s%ld",
                                    i ? "," : "", ing->files[i]->rank);
        if (len < sizeof src)
            len += (size_t)snprintf(
                src + len, sizeof src - len,
                "), steps %ld..%ld, warm-up %u; compute: %s; payload M = "
                "%" PRIu64 " B from %s",
                first_kept, last_kept, ing->warmup,
                gpu_all ? "device kernels" : "CPU operator times", m,
                hs_ar_source_name(out->ar_source));
    }
    if ((out->source = strdup(src)) == NULL) {
        rc = HS_ERR_NOMEM;
        goto nomem;
    }
    return HS_OK;
nomem:
    hs__profile_release(out);
    return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
}

/* ------------------------------------------------------------------ */
/* Writing the profile YAML                                              */

static int hs__emit(yaml_emitter_t *em, yaml_event_t *ev)
{
    return yaml_emitter_emit(em, ev);
}

static int hs__scalar(yaml_emitter_t *em, const char *s,
                      yaml_scalar_style_t style)
{
    yaml_event_t ev;

    if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
                                      (yaml_char_t *)(uintptr_t)s,
                                      (int)strlen(s), 1, 1, style))
        return 0;
    return hs__emit(em, &ev);
}

static int hs__map_start(yaml_emitter_t *em, int flow)
{
    yaml_event_t ev;

    if (!yaml_mapping_start_event_initialize(
            &ev, NULL, NULL, 1,
            flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE))
        return 0;
    return hs__emit(em, &ev);
}

static int hs__seq_start(yaml_emitter_t *em, int flow)
{
    yaml_event_t ev;

    if (!yaml_sequence_start_event_initialize(
            &ev, NULL, NULL, 1,
            flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE))
        return 0;
    return hs__emit(em, &ev);
}

static int hs__map_end(yaml_emitter_t *em)
{
    yaml_event_t ev;

    yaml_mapping_end_event_initialize(&ev);
    return hs__emit(em, &ev);
}

static int hs__seq_end(yaml_emitter_t *em)
{
    yaml_event_t ev;

    yaml_sequence_end_event_initialize(&ev);
    return hs__emit(em, &ev);
}

static int hs__kv(yaml_emitter_t *em, const char *k, const char *v)
{
    return hs__scalar(em, k, YAML_PLAIN_SCALAR_STYLE) &&
           hs__scalar(em, v, YAML_PLAIN_SCALAR_STYLE);
}

static int hs__time(yaml_emitter_t *em, int64_t ns)
{
    char b[32];

    snprintf(b, sizeof b, "%" PRId64 "ns", ns);
    return hs__scalar(em, b, YAML_PLAIN_SCALAR_STYLE);
}

static int hs__dist_emit(yaml_emitter_t *em, const char *key,
                         const hs_dist_t *d)
{
    size_t i;

    if (!hs__scalar(em, key, YAML_PLAIN_SCALAR_STYLE))
        return 0;
    if (!d->known)
        return hs__scalar(em, "unknown", YAML_PLAIN_SCALAR_STYLE);
    if (!hs__map_start(em, 1) || !hs__scalar(em, "mean",
                                             YAML_PLAIN_SCALAR_STYLE) ||
        !hs__time(em, d->mean_ns) ||
        !hs__scalar(em, "sd", YAML_PLAIN_SCALAR_STYLE) ||
        !hs__time(em, d->sd_ns))
        return 0;
    if (d->n_samples > 0) {
        if (!hs__scalar(em, "samples", YAML_PLAIN_SCALAR_STYLE) ||
            !hs__seq_start(em, 1))
            return 0;
        for (i = 0; i < d->n_samples; i++)
            if (!hs__time(em, d->samples_ns[i]))
                return 0;
        if (!hs__seq_end(em))
            return 0;
    }
    return hs__map_end(em);
}

static int hs__write_handler(void *data, unsigned char *buf, size_t size)
{
    return fwrite(buf, 1, size, data) == size;
}

static int hs__emit_profile(yaml_emitter_t *em, const hs_profile_t *p,
                            const char *type)
{
    yaml_event_t ev;
    char b[64];
    size_t i;

    if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
        !hs__emit(em, &ev))
        return 0;
    if (!yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) ||
        !hs__emit(em, &ev))
        return 0;
    if (!hs__map_start(em, 0))
        return 0;
    if (type != NULL &&
        (!hs__scalar(em, "type", YAML_PLAIN_SCALAR_STYLE) ||
         !hs__scalar(em, type, YAML_ANY_SCALAR_STYLE)))
        return 0;
    if (p->source != NULL &&
        (!hs__scalar(em, "source", YAML_PLAIN_SCALAR_STYLE) ||
         !hs__scalar(em, p->source, YAML_DOUBLE_QUOTED_SCALAR_STYLE)))
        return 0;
    snprintf(b, sizeof b, "%u", p->subsys_n);
    if (!hs__kv(em, "subsystem_size", b))
        return 0;
    if (p->steps_kept > 0) {
        snprintf(b, sizeof b, "%u", p->steps_kept);
        if (!hs__kv(em, "steps_kept", b))
            return 0;
    }
    if (!hs__dist_emit(em, "t_dl", &p->t_dl) ||
        !hs__dist_emit(em, "t_fwd", &p->t_fwd) ||
        !hs__dist_emit(em, "t_b1", &p->t_b1) ||
        !hs__dist_emit(em, "t_bwd", &p->t_bwd) ||
        !hs__dist_emit(em, "t_opt", &p->t_opt))
        return 0;
    if (p->n_fwd_ops > 0) {
        if (!hs__scalar(em, "fwd_ops", YAML_PLAIN_SCALAR_STYLE) ||
            !hs__seq_start(em, 0))
            return 0;
        for (i = 0; i < p->n_fwd_ops; i++) {
            if (!hs__map_start(em, 1))
                return 0;
            if (p->fwd_op_names != NULL && p->fwd_op_names[i] != NULL &&
                (!hs__scalar(em, "name", YAML_PLAIN_SCALAR_STYLE) ||
                 !hs__scalar(em, p->fwd_op_names[i],
                             YAML_DOUBLE_QUOTED_SCALAR_STYLE)))
                return 0;
            if (!hs__scalar(em, "time", YAML_PLAIN_SCALAR_STYLE) ||
                !hs__time(em, p->fwd_ops_ns[i]) || !hs__map_end(em))
                return 0;
        }
        if (!hs__seq_end(em))
            return 0;
    }
    snprintf(b, sizeof b, "%" PRIu64 "B", p->ar_bytes);
    if (!hs__kv(em, "allreduce_bytes", b) ||
        !hs__kv(em, "allreduce_source", hs_ar_source_name(p->ar_source)))
        return 0;
    if (p->comm_ns_per_byte > 0) {
        snprintf(b, sizeof b, "%.4g", p->comm_ns_per_byte);
        if (!hs__kv(em, "comm_ns_per_byte", b))
            return 0;
    }
    if (p->n_buckets > 0) {
        if (!hs__scalar(em, "buckets", YAML_PLAIN_SCALAR_STYLE) ||
            !hs__seq_start(em, 0))
            return 0;
        for (i = 0; i < p->n_buckets; i++) {
            snprintf(b, sizeof b, "%" PRIu64 "B", p->buckets[i].bytes);
            if (!hs__map_start(em, 1) || !hs__kv(em, "bytes", b) ||
                !hs__scalar(em, "ready", YAML_PLAIN_SCALAR_STYLE) ||
                !hs__time(em, p->buckets[i].ready_ns) || !hs__map_end(em))
                return 0;
        }
        if (!hs__seq_end(em))
            return 0;
    }
    if (!hs__map_end(em))
        return 0;
    if (!yaml_document_end_event_initialize(&ev, 1) || !hs__emit(em, &ev))
        return 0;
    if (!yaml_stream_end_event_initialize(&ev) || !hs__emit(em, &ev))
        return 0;
    return yaml_emitter_flush(em);
}

hs_err_t hs_profile_write_yaml(const hs_profile_t *p, const char *type,
                               const char *path, hs_error_t *err)
{
    hs_atomic_t af;
    yaml_emitter_t em;
    int ok;
    hs_err_t rc;

    if ((rc = hs_atomic_open(&af, path, err)) != HS_OK)
        return rc;
    fputs("# hetsim profile\n", af.f);
    if (!yaml_emitter_initialize(&em)) {
        hs_atomic_abort(&af);
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    }
    yaml_emitter_set_output(&em, hs__write_handler, af.f);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, 100);
    ok = hs__emit_profile(&em, p, type);
    yaml_emitter_delete(&em);
    if (!ok) {
        hs_atomic_abort(&af);
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "cannot write: emitter error");
    }
    return hs_atomic_commit(&af, err);
}
