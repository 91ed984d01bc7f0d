/* hs_kev.c -- PyTorch profiler trace events decoded from the JSON stream
   (hs_kev.h).  The depths of the contexts it knows (the root,
   distributedInfo, the events array, an event, its args, the Input Dims
   and Input type lists) say where a token belongs.  The frequent ones
   (an event's fields, its args, a skipped container) are kept as the
   current depth's context (sc->mode, set when a container opens or
   closes), which the callbacks switch on; the others land in hs__value
   (a value), hs__map_key_other or hs__close, which check the depths and
   ignore the rest. */
#include "hs_kev.h"
#include "hs_hash.h"
#include "hs_limits.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when c is an ASCII digit. */
static inline int hs__isdigit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

/* The fraction at s[*i], when it is a '.', in thousandths: its first
   three digits, the fourth rounding half up, the rest read and ignored;
   fewer than three scaled up.  *i moves past it; 0 without one. */
static int64_t hs__frac_thousandths(const char *s, size_t n, size_t *i)
{
    size_t k = *i;
    int frac_digits = 0;
    int64_t fp = 0;

    if (k < n && s[k] == '.') {
        for (k++; k < n && hs__isdigit(s[k]); k++) {
            if (frac_digits < 3) {
                fp = fp * 10 + (s[k] - '0');
                frac_digits++;
            } else if (frac_digits == 3) {
                if (s[k] >= '5')
                    fp++;   /* round half up on the 4th digit */
                frac_digits++;
            }
        }
    }
    while (frac_digits < 3) {
        fp *= 10;
        frac_digits++;
    }
    *i = k;
    return fp;
}

/* hs_kev_us_to_ns digit by digit, every case: the path for more than 15
   integer digits (where it may overflow) and exponents. */
static int hs__us_to_ns_slow(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    int64_t ip = 0, fp;
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
    fp = hs__frac_thousandths(s, n, &i);
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
    *out = ip * 1000 + fp;
    if (neg)
        *out = -*out;
    return 0;
}

/* hs_kev_to_u64 digit by digit, every case: the path for more than 19
   digits (where it may overflow), fractions and exponents. */
static int hs__to_u64_slow(const char *s, size_t n, uint64_t *out)
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

/* Eight ASCII digits in the bytes of w (little-endian): the test and the
   value, a few multiplications instead of eight steps of a loop. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HS__SWAR 1
static inline int hs__digits8(uint64_t w)
{
    return ((w & 0xF0F0F0F0F0F0F0F0ULL) |
            (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) ==
           0x3333333333333333ULL;
}

static inline uint64_t hs__value8(uint64_t w)
{
    w = ((w & 0x0F0F0F0F0F0F0F0FULL) * 2561) >> 8;
    w = ((w & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
    return ((w & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32;
}
#else
#define HS__SWAR 0
#endif

/* The run of ASCII digits at s[0, n) as a number (modulo 2^64) and its
   length in *nd. */
static inline uint64_t hs__digits(const char *s, size_t n, size_t *nd)
{
    uint64_t v = 0;
    size_t i = 0;

#if HS__SWAR
    if (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        if (hs__digits8(w)) {
            v = hs__value8(w);
            i = 8;
        }
    }
#endif
    for (; i < n && (unsigned char)(s[i] - '0') < 10; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    *nd = i;
    return v;
}

/* The form Kineto writes, "[-]I.FFF" with 1 to 15 integer digits I and
   three decimals F: *out = I * 1000 + FFF (negated after a '-'), what
   the general path makes of it, read as the one run of digits it is
   once the point is left out; 1.  0 when the number has another form
   (nothing written). */
static inline int hs__us_fixed3(const char *s, size_t n, int64_t *out)
{
    size_t neg = n > 0 && s[0] == '-', L, k = 0;
    uint64_t v = 0;
    unsigned f1, f2, f3;

    if (n < neg + 5)
        return 0;
    s += neg;
    L = n - neg - 4;
    if (L > 15 || s[L] != '.')
        return 0;
    f1 = (unsigned char)s[L + 1] - (unsigned)'0';
    f2 = (unsigned char)s[L + 2] - (unsigned)'0';
    f3 = (unsigned char)s[L + 3] - (unsigned)'0';
    if (f1 > 9 || f2 > 9 || f3 > 9)
        return 0;
#if HS__SWAR
    if (L >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        if (!hs__digits8(w))
            return 0;
        v = hs__value8(w);
        k = 8;
    }
#endif
    for (; k < L; k++) {
        unsigned d = (unsigned char)s[k] - (unsigned)'0';
        if (d > 9)
            return 0;
        v = v * 10 + d;
    }
    v = v * 1000 + f1 * 100 + f2 * 10 + f3;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 1;
}

/* hs_kev_us_to_ns of any other form: digit by digit, the slow path's
   for more than 15 integer digits or an exponent.  Kept out of line:
   the fixed form's steps stay few. */
__attribute__((noinline))
static int hs__us_general(const char *s, size_t n, int64_t *out)
{
    size_t i = 0, nd;
    int neg = 0;
    int64_t ip, fp;

    if (n > 0 && s[0] == '-') {
        neg = 1;
        i = 1;
    }
    ip = (int64_t)hs__digits(s + i, n - i, &nd);
    if (nd > 15)    /* 15 digits never overflow: the slow path checks */
        return hs__us_to_ns_slow(s, n, out);
    i += nd;
    fp = hs__frac_thousandths(s, n, &i);
    if (i < n)      /* an exponent */
        return hs__us_to_ns_slow(s, n, out);
    *out = ip * 1000 + fp;
    if (neg)
        *out = -*out;
    return 0;
}

int hs_kev_us_to_ns(const char *s, size_t n, int64_t *out)
{
    if (hs__us_fixed3(s, n, out))
        return 0;
    return hs__us_general(s, n, out);
}

int hs_kev_to_u64(const char *s, size_t n, uint64_t *out)
{
    size_t nd;
    uint64_t v = hs__digits(s, n, &nd);

    /* all digits, at most 19 of them: no overflow */
    if (nd == n && n > 0 && n <= 19) {
        *out = v;
        return 0;
    }
    return hs__to_u64_slow(s, n, out);
}

/* The keys of an event, and of its args, that are read. */
enum { HS__K_NONE = 0, HS__K_PH, HS__K_CAT, HS__K_NAME, HS__K_PID,
       HS__K_TID, HS__K_TS, HS__K_DUR, HS__K_ARGS, HS__K_OTHER };
enum { HS__A_NONE = 0, HS__A_CORR, HS__A_COLL, HS__A_NELEMS, HS__A_DTYPE,
       HS__A_DIMS, HS__A_ITYPE, HS__A_OTHER };

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

/* A value at the top level (d == 0) or at depth 1 of the Kineto form's
   object: sets the root form and where traceEvents and distributedInfo
   start. Returns 0, with the scan's error set, to stop the parse. */
static int hs__value_root(hs_kev_scan_t *sc, int kind)
{
    if (sc->depth == 0) {
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
        return hs_jscan_fail(&sc->js, HS_ERR_SCHEMA,
                             "the top level is neither an object "
                             "(Kineto form) nor an array (legacy form)");
    }
    if (sc->root_key == 1) {
        if (kind != '[')
            return hs_jscan_fail(&sc->js, HS_ERR_SCHEMA,
                                 "\"traceEvents\" is not an array");
        sc->evarr_depth = 2;
        sc->saw_events = 1;
    } else if (sc->root_key == 2 && kind == '{') {
        sc->di_depth = 2;
    }
    return 1;
}

/* A value of distributedInfo: its rank, world_size and backend. Returns
   0, with the scan's error set, to stop the parse. */
static int hs__value_distinfo(hs_kev_scan_t *sc, int kind, const char *s,
                              size_t n)
{
    if (sc->di_key == 1 || sc->di_key == 2) {
        uint64_t u;
        if (kind != 'n' || hs_kev_to_u64(s, n, &u) != 0 ||
            u > HS_LIMIT_DEVICES)
            return hs_jscan_fail(&sc->js, HS_ERR_SCHEMA,
                                 "distributedInfo.%s is not a "
                                 "non-negative integer up to 2^20",
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

/* An element of traceEvents: must be an object; starts a new event with
   every field cleared. Returns 0, with the scan's error set, to stop. */
static int hs__value_event_start(hs_kev_scan_t *sc, int kind)
{
    if (kind != '{')
        return hs_jscan_fail(&sc->js, HS_ERR_SCHEMA,
                             "event #%" PRIu64 " of traceEvents is not "
                             "an object",
                             sc->n_events);
    sc->ev_depth = sc->depth + 1;
    sc->ev_key = HS__K_NONE;
    sc->name_seen = 0;
    sc->shapes = -1;
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

/* The event's "ts" or "dur" (key k), microseconds into ns; null leaves it
   absent. Returns 0, with the scan's error set, to stop the parse. */
static int hs__value_event_time(hs_kev_scan_t *sc, int k, int kind,
                                const char *s, size_t n)
{
    int64_t v;

    if (kind == 'b')
        return 1;
    if (kind != 'n' || hs_kev_us_to_ns(s, n, &v) != 0)
        return hs_jscan_fail(&sc->js, HS_ERR_SCHEMA,
                             "\"%s\" is not a number of "
                             "microseconds%s",
                             hs__ev_key_name(k),
                             kind == 'n' ? " that fits (up to about "
                                           "292 years in ns)"
                                         : "");
    if (k == HS__K_TS) {
        sc->ev.ts_ns = v;
        sc->ev.has_ts = 1;
    } else {
        if (v < 0)
            return hs_jscan_fail(&sc->js, HS_ERR_SCHEMA,
                                 "negative \"dur\"");
        sc->ev.dur_ns = v;
        sc->ev.has_dur = 1;
    }
    return 1;
}

/* A value of an event's key sc->ev_key (ph, cat, name, pid, tid, ts, dur,
   args; others skipped). Returns 0, with the scan's error set, to stop. */
static int hs__value_event_field(hs_kev_scan_t *sc, int kind, const char *s,
                                 size_t n)
{
    int k = sc->ev_key;

    switch (k) {
    case HS__K_PH:
    case HS__K_CAT:
    case HS__K_NAME:
        if (kind == 'b')
            return 1;   /* null: as if absent */
        if (kind != 's')
            return hs_jscan_fail(&sc->js, HS_ERR_SCHEMA,
                                 "\"%s\" is not a string",
                                 hs__ev_key_name(k));
        if (k == HS__K_PH)
            sc->ev.ph = n > 0 ? s[0] : 0;
        else if (k == HS__K_CAT)
            hs__copy(sc->ev.cat, sizeof sc->ev.cat,
                     (const unsigned char *)s, n);
        else {
            hs__copy(sc->ev.name, sizeof sc->ev.name,
                     (const unsigned char *)s, n);
            sc->name_seen = 1;
            sc->shapes = -1;
        }
        return 1;
    case HS__K_PID:
    case HS__K_TID: {
        hs_kev_key_t *key = k == HS__K_PID ? &sc->ev.pid : &sc->ev.tid;
        if (kind == 'n') {
            key->kind = 1;
            key->v = (int64_t)hs_fnv1a(s, n);
            /* numbers and strings never compare equal: kinds differ */
        } else if (kind == 's') {
            key->kind = 2;
            key->v = (int64_t)hs_fnv1a(s, n);
        } else if (kind != 'b') {
            return hs_jscan_fail(&sc->js, HS_ERR_SCHEMA,
                                 "\"%s\" is neither a number nor a "
                                 "string",
                                 hs__ev_key_name(k));
        }
        return 1;
    }
    case HS__K_TS:
    case HS__K_DUR:
        return hs__value_event_time(sc, k, kind, s, n);
    case HS__K_ARGS:
        if (kind == '{') {
            sc->args_depth = sc->depth + 1;
            sc->arg_key = HS__A_NONE;
        } else if (kind != 'b') {
            return hs_jscan_fail(&sc->js, HS_ERR_SCHEMA,
                                 "\"args\" is not an object");
        }
        return 1;
    default:
        return 1;
    }
}

/* Whether the event's shapes are to be decoded: always without a
   selector or before its name is known. */
static int hs__shapes_wanted(hs_kev_scan_t *sc)
{
    if (sc->want_shapes == NULL || !sc->name_seen)
        return 1;
    if (sc->shapes < 0)     /* asked once an event (Input Dims, type) */
        sc->shapes = sc->want_shapes(sc->ev.name) != 0;
    return sc->shapes;
}

/* A value of an event's args key sc->arg_key (correlation, collective
   name, element count, dtype, Input Dims, Input type); a value of the
   wrong kind is skipped. Never stops the parse. */
static int hs__value_arg(hs_kev_scan_t *sc, int kind, const char *s,
                         size_t n)
{
    uint64_t u;

    switch (sc->arg_key) {
    case HS__A_CORR:
        if (kind == 'n' && hs_kev_to_u64(s, n, &u) == 0) {
            sc->ev.corr = u;
            sc->ev.has_corr = 1;
        }
        return 1;
    case HS__A_NELEMS:
        if (kind == 'n' && hs_kev_to_u64(s, n, &u) == 0) {
            sc->ev.nelems = u;
            sc->ev.has_nelems = 1;
        }
        return 1;
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
        if (kind == '[' && hs__shapes_wanted(sc)) {
            sc->dims_depth = sc->depth + 1;
            sc->dims_n = 0;
            return 1;
        }
        break;
    case HS__A_ITYPE:
        if (kind == '[' && hs__shapes_wanted(sc)) {
            sc->itype_depth = sc->depth + 1;
            sc->itype_n = 0;
            return 1;
        }
        break;
    default:
        break;
    }
    /* a container nothing is read from: skipped (hs__skipping) */
    if (kind == '[' || kind == '{')
        sc->skip_depth = sc->depth + 1;
    return 1;
}

/* A value inside args' "Input Dims": the first input's shape (or, for a
   TensorList, its shapes) multiplied into prod0/prod1. Never stops the
   parse. */
static int hs__value_dims(hs_kev_scan_t *sc, int kind, const char *s,
                          size_t n)
{
    int d = sc->depth;
    uint64_t u;

    if (d == sc->dims_depth) {
        sc->dims_n++;
        if (sc->dims_n == 1 && kind == '[') {
            sc->prod0 = 1;
            sc->has0 = 0;
        }
        return 1;
    }
    if (sc->dims_n == 1 && d == sc->dims_depth + 1) {
        if (kind == 'n' && hs_kev_to_u64(s, n, &u) == 0) {
            sc->prod0 *= u;
            sc->has0 = 1;
        } else if (kind == '[') {   /* a TensorList: list of shapes */
            sc->prod1 = 1;
            sc->has1 = 0;
        }
        return 1;
    }
    if (sc->dims_n == 1 && d == sc->dims_depth + 2) {
        if (kind == 'n' && hs_kev_to_u64(s, n, &u) == 0) {
            sc->prod1 *= u;
            sc->has1 = 1;
        }
        return 1;
    }
    return 1;
}

/*
 * A value starts at the current depth (scalar: kind 'n' number, 's'
 * string, 'b' bool/null; container: '{' or '[').  Hands it to the
 * context it belongs to; returns 0 to stop the parse.
 */
static int hs__value(hs_kev_scan_t *sc, int kind, const char *s, size_t n)
{
    int d = sc->depth;

    /* the contexts' depths never coincide (an event's fields lie deeper
       than the root's and distributedInfo's values, its args deeper
       still), so the most frequent are tried first */
    if (sc->ev_depth != 0 && d == sc->ev_depth)
        return hs__value_event_field(sc, kind, s, n);
    if (sc->args_depth != 0 && d == sc->args_depth)
        return hs__value_arg(sc, kind, s, n);
    if (sc->dims_depth != 0)
        return hs__value_dims(sc, kind, s, n);
    if (sc->itype_depth != 0 && d == sc->itype_depth) {
        sc->itype_n++;
        if (sc->itype_n == 1 && kind == 's')
            hs__copy(sc->ev.itype, sizeof sc->ev.itype,
                     (const unsigned char *)s, n);
        return 1;
    }
    if (sc->evarr_depth != 0 && d == sc->evarr_depth)
        return hs__value_event_start(sc, kind);
    if (d == 0 || (sc->root == 'm' && d == 1))
        return hs__value_root(sc, kind);
    if (sc->di_depth != 0 && d == sc->di_depth)
        return hs__value_distinfo(sc, kind, s, n);
    return 1;
}

/* Inside a skipped container (an args value no field is read from,
   e.g. the shapes of an event that needs none): yajl still calls back
   for every token; these return at once. */
static int hs__skipping(const hs_kev_scan_t *sc)
{
    return sc->skip_depth != 0 && sc->depth >= sc->skip_depth;
}

/* The current depth's context (sc->mode), from the depths: what the
   scalar and key callbacks switch on, so that the two frequent ones (an
   event's fields, its args) and a skipped container cost one test
   instead of the chain in hs__value. */
enum { HS__MODE_OTHER = 0, HS__MODE_EVENT, HS__MODE_ARGS, HS__MODE_SKIP };

static void hs__set_mode(hs_kev_scan_t *sc)
{
    int d = sc->depth;

    if (hs__skipping(sc))
        sc->mode = HS__MODE_SKIP;
    else if (sc->ev_depth != 0 && d == sc->ev_depth)
        sc->mode = HS__MODE_EVENT;
    else if (sc->args_depth != 0 && d == sc->args_depth)
        sc->mode = HS__MODE_ARGS;
    else
        sc->mode = HS__MODE_OTHER;
}

/* An event's "ts" or "dur" (key k) that is a number: microseconds into
   ns; an error as hs__value_event_time words it. */
__attribute__((noinline))
static int hs__ev_time(hs_kev_scan_t *sc, int k, const char *s, size_t n)
{
    int64_t v;

    if (hs_kev_us_to_ns(s, n, &v) != 0 || (k == HS__K_DUR && v < 0))
        return hs__value_event_time(sc, k, 'n', s, n);  /* the error */
    if (k == HS__K_TS) {
        sc->ev.ts_ns = v;
        sc->ev.has_ts = 1;
    } else {
        sc->ev.dur_ns = v;
        sc->ev.has_dur = 1;
    }
    return 1;
}

/* The event's pid or tid (the key being read) from its text s[0, n):
   kind 1 a number, 2 a string (hs_kev_key_t); 1. */
static inline int hs__ev_key(hs_kev_scan_t *sc, int kind, const char *s,
                             size_t n)
{
    hs_kev_key_t *key = sc->ev_key == HS__K_PID ? &sc->ev.pid : &sc->ev.tid;

    key->kind = kind;
    key->v = (int64_t)hs_fnv1a(s, n);
    return 1;
}

/* A number among an event's fields: the frequent cases here, the rest
   (a number where a string or an object belongs) as hs__value_event_field
   takes it. */
static int hs__ev_number(hs_kev_scan_t *sc, const char *s, size_t n)
{

    switch (sc->ev_key) {
    case HS__K_PID:
    case HS__K_TID:
        return hs__ev_key(sc, 1, s, n);
    case HS__K_TS:
    case HS__K_DUR:
        return hs__ev_time(sc, sc->ev_key, s, n);
    case HS__K_NONE:
    case HS__K_OTHER:
        return 1;
    default:
        return hs__value_event_field(sc, 'n', s, n);
    }
}

/* A string among an event's fields, likewise. */
__attribute__((noinline))
static int hs__ev_string(hs_kev_scan_t *sc, const char *s, size_t n)
{
    switch (sc->ev_key) {
    case HS__K_PH:
        sc->ev.ph = n > 0 ? s[0] : 0;
        return 1;
    case HS__K_CAT:
        hs__copy(sc->ev.cat, sizeof sc->ev.cat, (const unsigned char *)s, n);
        return 1;
    case HS__K_NAME:
        hs__copy(sc->ev.name, sizeof sc->ev.name, (const unsigned char *)s,
                 n);
        sc->name_seen = 1;
        sc->shapes = -1;
        return 1;
    case HS__K_PID:
    case HS__K_TID:
        return hs__ev_key(sc, 2, s, n);
    case HS__K_NONE:
    case HS__K_OTHER:
        return 1;
    default:
        return hs__value_event_field(sc, 's', s, n);
    }
}

/* A number or a string among an event's args: what hs__value_arg does
   with a scalar. */
__attribute__((noinline))
static int hs__arg_number(hs_kev_scan_t *sc, const char *s, size_t n)
{
    uint64_t u;

    if (sc->arg_key == HS__A_CORR && hs_kev_to_u64(s, n, &u) == 0) {
        sc->ev.corr = u;
        sc->ev.has_corr = 1;
    } else if (sc->arg_key == HS__A_NELEMS && hs_kev_to_u64(s, n, &u) == 0) {
        sc->ev.nelems = u;
        sc->ev.has_nelems = 1;
    }
    return 1;
}

static int hs__arg_string(hs_kev_scan_t *sc, const char *s, size_t n)
{
    if (sc->arg_key == HS__A_COLL)
        hs__copy(sc->ev.coll, sizeof sc->ev.coll, (const unsigned char *)s,
                 n);
    else if (sc->arg_key == HS__A_DTYPE)
        hs__copy(sc->ev.dtype, sizeof sc->ev.dtype, (const unsigned char *)s,
                 n);
    return 1;
}

/* A null or boolean: by the context, as hs__value would take it. */
static int hs__scalar_b(hs_kev_scan_t *sc)
{
    switch (sc->mode) {
    case HS__MODE_EVENT:
        return hs__value_event_field(sc, 'b', NULL, 0);
    case HS__MODE_ARGS:
        return hs__value_arg(sc, 'b', NULL, 0);
    case HS__MODE_SKIP:
        return 1;
    default:
        return hs__value(sc, 'b', NULL, 0);
    }
}

static int hs__cb_null(void *ctx)
{
    return hs__scalar_b(ctx);
}

static int hs__cb_bool(void *ctx, int v)
{
    (void)v;
    return hs__scalar_b(ctx);
}

static int hs__cb_number(void *ctx, const char *s, size_t n)
{
    hs_kev_scan_t *sc = ctx;

    switch (sc->mode) {
    case HS__MODE_EVENT:
        return hs__ev_number(sc, s, n);
    case HS__MODE_ARGS:     /* most args are none of the two read */
        return sc->arg_key == HS__A_CORR || sc->arg_key == HS__A_NELEMS
                   ? hs__arg_number(sc, s, n)
                   : 1;
    case HS__MODE_SKIP:
        return 1;
    default:
        return hs__value(sc, 'n', s, n);
    }
}

static int hs__cb_string(void *ctx, const unsigned char *us, size_t n)
{
    hs_kev_scan_t *sc = ctx;
    const char *s = (const char *)us;

    switch (sc->mode) {
    case HS__MODE_EVENT:
        return hs__ev_string(sc, s, n);
    case HS__MODE_ARGS:
        return hs__arg_string(sc, s, n);
    case HS__MODE_SKIP:
        return 1;
    default:
        return hs__value(sc, 's', s, n);
    }
}

/* A container opens (kind '{' or '[') outside a skipped one: as
   hs__value takes it, by the context. */
__attribute__((noinline))
static int hs__open_ctx(hs_kev_scan_t *sc, int kind)
{
    if (sc->mode == HS__MODE_EVENT ? !hs__value_event_field(sc, kind, NULL, 0)
        : sc->mode == HS__MODE_ARGS ? !hs__value_arg(sc, kind, NULL, 0)
                                    : !hs__value(sc, kind, NULL, 0))
        return 0;
    sc->depth++;
    hs__set_mode(sc);
    return 1;
}

/* A container opens (kind '{' or '['); inside a skipped one, only the
   depth moves (the callbacks here are kept small, without a frame: the
   work is in the functions they jump to). */
static int hs__open(hs_kev_scan_t *sc, int kind)
{
    int k = sc->arg_key;

    if (sc->mode == HS__MODE_SKIP) {
        sc->depth++;
        return 1;
    }
    /* an args value that hs__value_arg would skip (a key not read, or
       shapes that are not wanted) */
    if (sc->mode == HS__MODE_ARGS &&
        (k == HS__A_OTHER || k == HS__A_NONE ||
         ((k == HS__A_DIMS || k == HS__A_ITYPE) &&
          (kind != '[' || !hs__shapes_wanted(sc))))) {
        sc->skip_depth = ++sc->depth;
        sc->mode = HS__MODE_SKIP;
        return 1;
    }
    return hs__open_ctx(sc, kind);
}

static int hs__cb_start_map(void *ctx)
{
    return hs__open(ctx, '{');
}

static int hs__cb_start_array(void *ctx)
{
    return hs__open(ctx, '[');
}

#define HS__KEYEQ(s, n, lit) \
    ((n) == sizeof(lit) - 1 && memcmp((s), (lit), (n)) == 0)
/* s is the literal lit, once its length is known to match: memcmp with
   a constant length, which compilers inline as a few loads. */
#define HS__KEYIS(s, lit) (memcmp((s), (lit), sizeof(lit) - 1) == 0)

/* An event's key: the field it names (HS__K_*).  Every event has eight
   or so keys: switched on the length first, then one or two constant
   comparisons. */
static int hs__event_key(const unsigned char *s, size_t n)
{
    switch (n) {
    case 2:
        return HS__KEYIS(s, "ph")   ? HS__K_PH
               : HS__KEYIS(s, "ts") ? HS__K_TS
                                    : HS__K_OTHER;
    case 3:
        return HS__KEYIS(s, "cat")   ? HS__K_CAT
               : HS__KEYIS(s, "pid") ? HS__K_PID
               : HS__KEYIS(s, "tid") ? HS__K_TID
               : HS__KEYIS(s, "dur") ? HS__K_DUR
                                     : HS__K_OTHER;
    case 4:
        return HS__KEYIS(s, "name")   ? HS__K_NAME
               : HS__KEYIS(s, "args") ? HS__K_ARGS
                                      : HS__K_OTHER;
    default:
        return HS__K_OTHER;
    }
}

/* A key of an event's args: the one it names (HS__A_*). */
static int hs__arg_key(const unsigned char *s, size_t n)
{
    switch (n) {
    case 5:
        return HS__KEYIS(s, "dtype") ? HS__A_DTYPE : HS__A_OTHER;
    case 10:
        return HS__KEYIS(s, "Input Dims")   ? HS__A_DIMS
               : HS__KEYIS(s, "Input type") ? HS__A_ITYPE
                                            : HS__A_OTHER;
    case 11:
        return HS__KEYIS(s, "correlation") ? HS__A_CORR : HS__A_OTHER;
    case 13:
        return HS__KEYIS(s, "In msg nelems") ? HS__A_NELEMS : HS__A_OTHER;
    case 15:
        return HS__KEYIS(s, "Collective name") ? HS__A_COLL : HS__A_OTHER;
    default:
        return HS__A_OTHER;
    }
}

/* A key outside events: the root's (traceEvents, distributedInfo) and
   distributedInfo's. */
__attribute__((noinline))
static int hs__map_key_other(hs_kev_scan_t *sc, const unsigned char *s,
                             size_t n)
{
    int d = sc->depth;

    if (sc->root == 'm' && d == 1) {
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

/* A key: an event's (most of them) and its args' classified here. */
static int hs__cb_map_key(void *ctx, const unsigned char *s, size_t n)
{
    hs_kev_scan_t *sc = ctx;

    if (sc->mode == HS__MODE_EVENT) {
        sc->ev_key = hs__event_key(s, n);
        return 1;
    }
    if (sc->mode == HS__MODE_ARGS) {
        sc->arg_key = hs__arg_key(s, n);
        return 1;
    }
    return sc->mode == HS__MODE_SKIP || hs__map_key_other(sc, s, n);
}

/* The event whose object closed goes to the handler (it is over: its
   depth is cleared, the count goes up); 1, or 0 with the scan stopped
   by the handler's code. */
static inline int hs__emit_event(hs_kev_scan_t *sc)
{
    hs_err_t rc;

    sc->ev_depth = 0;
    sc->n_events++;
    rc = sc->on_event(sc, &sc->ev);
    return rc == HS_OK ? 1 : hs_jscan_stop(&sc->js, rc);
}

/* A container closes: depth is its inside depth before the decrement. */
static int hs__close(hs_kev_scan_t *sc)
{
    int d = sc->depth;

    if (hs__skipping(sc)) {     /* inside, or the skipped one itself */
        if (d == sc->skip_depth)
            sc->skip_depth = 0;
        sc->depth--;
        return 1;
    }
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
    if (sc->ev_depth != 0 && d == sc->ev_depth && !hs__emit_event(sc))
        return 0;
    if (sc->evarr_depth != 0 && d == sc->evarr_depth)
        sc->evarr_depth = 0;
    sc->depth--;
    return 1;
}

/* The other closes (an event, the shapes, distributedInfo, the root's
   containers): hs__close, then the context it returns to. */
__attribute__((noinline))
static int hs__close_ctx(hs_kev_scan_t *sc)
{
    if (!hs__close(sc))
        return 0;
    hs__set_mode(sc);
    return 1;
}

/* An event's object closes (its shapes and args have closed before it,
   so nothing else ends at its depth): the event goes to the handler;
   the events array is around it. */
__attribute__((noinline))
static int hs__close_event(hs_kev_scan_t *sc)
{
    if (!hs__emit_event(sc))
        return 0;
    sc->depth--;
    sc->mode = HS__MODE_OTHER;
    return 1;
}

static int hs__cb_end(void *ctx)
{
    hs_kev_scan_t *sc = ctx;

    /* the frequent closes, as hs__close takes them: inside a skipped
       container, the skipped one (only an args value is skipped: the
       args are around it), an event's args (nothing else opens at their
       depth; the event is around them) */
    if (sc->mode == HS__MODE_SKIP) {
        if (sc->depth-- == sc->skip_depth) {
            sc->skip_depth = 0;
            sc->mode = HS__MODE_ARGS;
        }
        return 1;
    }
    if (sc->mode == HS__MODE_ARGS) {
        sc->args_depth = 0;
        sc->depth--;
        sc->mode = HS__MODE_EVENT;
        return 1;
    }
    if (sc->mode == HS__MODE_EVENT)
        return hs__close_event(sc);
    return hs__close_ctx(sc);
}

/* A time in ns as the trace wrote it, microseconds ("110", "110.5"). */
static void hs__us(char *buf, size_t cap, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    unsigned frac = (unsigned)(a % 1000);
    int k = 3;

    if (frac == 0) {
        snprintf(buf, cap, "%s%" PRIu64, ns < 0 ? "-" : "", a / 1000);
        return;
    }
    while (frac % 10 == 0) {
        frac /= 10;
        k--;
    }
    snprintf(buf, cap, "%s%" PRIu64 ".%0*u", ns < 0 ? "-" : "", a / 1000, k,
             frac);
}

/* hs_jscan's where: inside an event, 'event #K ("name", ph X, ts T)' with
   the fields read so far (the name cut to 60 bytes, unprintable bytes and
   quotes as '?'). */
static int hs__where(void *ctx, char *buf, size_t cap)
{
    const hs_kev_scan_t *sc = ctx;
    const hs_kev_t *e = &sc->ev;
    size_t len, i;
    const char *sep = " (";
    char ts[48];

    if (sc->ev_depth == 0)
        return 0;
    len = (size_t)snprintf(buf, cap, "event #%" PRIu64, e->index);
    if (e->name[0] != '\0' && len + 8 < cap) {
        size_t n = strlen(e->name), lim = n > 60 ? 57 : n;
        len += (size_t)snprintf(buf + len, cap - len, "%s\"", sep);
        for (i = 0; i < lim && len + 6 < cap; i++) {
            unsigned char c = (unsigned char)e->name[i];
            buf[len++] = c < 0x20 || c == 0x7f || c == '"' || c == '\\'
                             ? '?'
                             : (char)c;
        }
        buf[len] = '\0';
        len += (size_t)snprintf(buf + len, cap - len, "%s\"",
                                n > lim ? "..." : "");
        sep = ", ";
    }
    if (e->ph != 0 && len < cap) {
        unsigned char c = (unsigned char)e->ph;
        len += (size_t)snprintf(buf + len, cap - len, "%sph %c", sep,
                                c < 0x20 || c >= 0x7f ? '?' : (char)c);
        sep = ", ";
    }
    if (e->has_ts && len < cap) {
        hs__us(ts, sizeof ts, e->ts_ns);
        len += (size_t)snprintf(buf + len, cap - len, "%sts %s", sep, ts);
        sep = ", ";
    }
    if (sep[0] == ',' && len < cap)
        snprintf(buf + len, cap - len, ")");
    return 1;
}

static const yajl_callbacks hs__callbacks = {
    hs__cb_null, hs__cb_bool, NULL, NULL, hs__cb_number, hs__cb_string,
    hs__cb_start_map, hs__cb_map_key, hs__cb_end, hs__cb_start_array,
    hs__cb_end};

hs_err_t hs_kev_scan_file(const char *path, hs_kev_fn on_event, void *user,
                          hs_kev_scan_t *sc, hs_error_t *err)
{
    return hs_kev_scan_file_buf(path, on_event, user, sc, NULL, err);
}

hs_err_t hs_kev_scan_file_buf(const char *path, hs_kev_fn on_event,
                              void *user, hs_kev_scan_t *sc,
                              hs_jscan_buf_t *b, hs_error_t *err)
{
    return hs_kev_scan_file_sel(path, on_event, NULL, user, sc, b, err);
}

hs_err_t hs_kev_scan_file_sel(const char *path, hs_kev_fn on_event,
                              hs_kev_shapes_fn want_shapes, void *user,
                              hs_kev_scan_t *sc, hs_jscan_buf_t *b,
                              hs_error_t *err)
{
    hs_err_t rc;

    memset(sc, 0, sizeof *sc);
    sc->on_event = on_event;
    sc->want_shapes = want_shapes;
    sc->user = user;
    sc->di_rank = sc->di_world = -1;
    rc = hs_jscan_file_buf(&sc->js, path, &hs__callbacks, sc, hs__where, b,
                           err);
    if (rc == HS_OK && !sc->saw_events)
        rc = hs_error_set(err, HS_ERR_TRACE, path, 0, 0,
                          "no \"traceEvents\" array: not a PyTorch "
                          "profiler trace");
    return rc;
}
