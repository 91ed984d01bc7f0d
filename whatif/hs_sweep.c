/*
 * hs_sweep.c -- what-if sweeps over a scenario (hs_sweep.h).
 *
 * The workload.  A researcher asks "what if": twice as many MLU370s, the
 * inter-type links at 100 Gbit/s instead of 25, the ring grouped instead
 * of interleaved, a batch of 128 on one type.  Design-space studies run
 * thousands of such points, each a full closed-form prediction (and, on
 * request, a replay), so a point must cost little more than the model
 * itself, and a sweep must be reproducible to the byte.
 *
 * The shape.  A sweep is a list of axes, one per --vary: a scenario key
 * path (the "scenario as data" API of hs_scenario.h) and the list of
 * value texts it takes, in the order given.  Ranges are expanded to that
 * list when the axis is parsed, and every value is checked there against
 * the key's class (a bandwidth key gets bandwidths), so a typing error
 * fails before any point runs; values the scenario refuses for their
 * number (a batch of 0, a count that makes no ring) are the points'
 * own failures, reported in their rows while the other points run.
 *
 * Points are numbered.  In a product the first axis varies slowest, like
 * nested loops written in the order of the --vary options; with zip,
 * point i takes the i-th value of every axis.  A point's values are a pure
 * function of its number, so any process can run any point (the MPI
 * runner hands out numbers) and the results are stored by number: the
 * output does not depend on who ran what, or in which order.
 *
 * Invariants.
 *   - base changes only through hs_sweep_set, which is refused once an
 *     axis exists: from the first point on it is the pristine copy.
 *   - work is either NULL or a copy of base on which only varied keys
 *     were ever set.  Every point sets every varied key, so the values
 *     left by the previous point are all overwritten: running point p on
 *     work gives what running it on a fresh clone of base would (the test
 *     runs the points forwards and backwards and compares).  After any
 *     failure work is dropped and the next point clones base again, so a
 *     half-applied point never leaks into the next.
 *   - values[] of every axis were checked against the axis' class; the
 *     setter still has the last word on each point.
 */
#include "hs_sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_answer.h"
#include "hs_replay.h"
#include "hs_units.h"

struct hs_sweep_s {
    hs_scenario_t *base;    /* pristine copy, owned */
    hs_scenario_t *work;    /* the copy points are applied to, or NULL */
    int replay;
    int force;              /* replays beyond the budgets (--force) */
    int zip;
    int planned;
    size_t n_axes;
    hs_sweep_axis_t *axes;
    size_t *stride;         /* product: point p takes value
                               (p / stride[a]) % n_values of axis a */
    size_t n_points;
    char *sets;             /* "set K=V; " for every hs_sweep_set */
    char *options;          /* hs_sweep_options_text, built by plan */
};

/* ---- the key table -------------------------------------------------- */

/* A key path pattern: '*' stands for one name (of a type when the
   segment follows "device_types" or "type_links", of a device after
   "devices"). */
typedef struct hs__key_s {
    const char *pattern;
    hs_sweep_class_t cls;
} hs__key_t;

static const hs__key_t hs__keys[] = {
    {"device_types.*.count", HS_SWEEP_COUNT},
    {"device_types.*.batch", HS_SWEEP_COUNT},
    {"device_types.*.micro_batches", HS_SWEEP_COUNT},
    {"device_types.*.shard", HS_SWEEP_SIZE},
    {"device_types.*.profile.t_dl", HS_SWEEP_TIME_OR_UNKNOWN},
    {"device_types.*.profile.t_fwd", HS_SWEEP_TIME},
    {"device_types.*.profile.t_b1", HS_SWEEP_TIME},
    {"device_types.*.profile.t_bwd", HS_SWEEP_TIME_OR_UNKNOWN},
    {"device_types.*.profile.t_opt", HS_SWEEP_TIME_OR_UNKNOWN},
    {"device_types.*.profile.allreduce_bytes", HS_SWEEP_BYTES},
    {"device_types.*.profile.gradient_bytes", HS_SWEEP_BYTES},
    {"device_types.*.profile.comm_ns_per_byte", HS_SWEEP_NUMBER},
    {"device_types.*.profile.t_hop_wait", HS_SWEEP_TIME},
    {"device_types.*.profile.cpu_quota_cores", HS_SWEEP_NUMBER},
    {"device_types.*.profile.t_cpu_period", HS_SWEEP_TIME},
    {"job.epochs", HS_SWEEP_COUNT},
    {"job.dataset.size", HS_SWEEP_SIZE},
    {"job.dataset.samples", HS_SWEEP_COUNT},
    {"job.dataset.sample_bytes", HS_SWEEP_BYTES},
    {"network.default_bandwidth", HS_SWEEP_BANDWIDTH},
    {"network.latency", HS_SWEEP_TIME},
    {"network.type_links.*.*", HS_SWEEP_BANDWIDTH},
    {"ring", HS_SWEEP_RING},
    {"simulate.steps", HS_SWEEP_COUNT},
    {"simulate.seed", HS_SWEEP_COUNT},
    {"simulate.streams", HS_SWEEP_COUNT},
    {"simulate.overlap", HS_SWEEP_OVERLAP},
    {"simulate.send", HS_SWEEP_SEND},
    {"simulate.stochastic", HS_SWEEP_BOOL},
    {"devices.*.compute_scale", HS_SWEEP_NUMBER},
    {"devices.*.extra_compute", HS_SWEEP_TIME},
    {NULL, HS_SWEEP_ANY}};

const char *hs_sweep_class_name(hs_sweep_class_t c)
{
    switch (c) {
    case HS_SWEEP_COUNT: return "count";
    case HS_SWEEP_NUMBER: return "number";
    case HS_SWEEP_TIME: return "time";
    case HS_SWEEP_BYTES: return "size";
    case HS_SWEEP_BANDWIDTH: return "bandwidth";
    case HS_SWEEP_SIZE: return "size or sample count";
    case HS_SWEEP_TIME_OR_UNKNOWN: return "time";
    case HS_SWEEP_OVERLAP: return "overlap mode";
    case HS_SWEEP_SEND: return "send mode";
    case HS_SWEEP_BOOL: return "boolean";
    case HS_SWEEP_RING: return "ring form";
    default: return "value";
    }
}

const char *hs_sweep_bound_name(int32_t bound)
{
    return bound == HS_BOUND_DATA ? "data_loading" : "device";
}

/* An example of the class, for messages. */
static const char *hs__class_example(hs_sweep_class_t c)
{
    switch (c) {
    case HS_SWEEP_COUNT: return "128";
    case HS_SWEEP_NUMBER: return "1.5";
    case HS_SWEEP_TIME: return "20ms";
    case HS_SWEEP_BYTES: return "1GB";
    case HS_SWEEP_BANDWIDTH: return "25Gbps";
    case HS_SWEEP_SIZE: return "1GB or 5000";
    case HS_SWEEP_TIME_OR_UNKNOWN: return "20ms or unknown";
    case HS_SWEEP_OVERLAP: return "patent, buckets, none or last_bucket";
    case HS_SWEEP_SEND: return "rendezvous or eager";
    case HS_SWEEP_BOOL: return "true or false";
    case HS_SWEEP_RING: return "listing, grouped, interleave or [a, b]";
    default: return "";
    }
}

/* 1 when the n bytes at name are the name of a type (or, with device,
   a device) of s. */
static int hs__name_exists(const hs_scenario_t *s, const char *name,
                           size_t n, int device)
{
    char buf[256];

    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, name, n);
    buf[n] = '\0';
    return device ? hs_scenario_find_device(s, buf) >= 0
                  : hs_scenario_find_type(s, buf) >= 0;
}

/* Matches key against pattern, segment by segment; a '*' segment is a
   type name, except in "devices.*.X" where it is a device name and may
   hold dots (an address). */
static int hs__key_match(const hs_scenario_t *s, const char *pattern,
                         const char *key)
{
    const char *p = pattern, *k = key;

    if (strncmp(pattern, "devices.*.", 10) == 0) {
        const char *tail = pattern + 9;  /* ".X" */
        size_t kl = strlen(key), tl = strlen(tail);
        return strncmp(key, "devices.", 8) == 0 && kl > 8 + tl &&
               strcmp(key + kl - tl, tail) == 0 &&
               hs__name_exists(s, key + 8, kl - 8 - tl, 1);
    }
    for (;;) {
        size_t pn = strcspn(p, "."), kn = strcspn(k, ".");
        if (pn == 1 && p[0] == '*') {
            if (!hs__name_exists(s, k, kn, 0))
                return 0;
        } else if (pn != kn || strncmp(p, k, pn) != 0) {
            return 0;
        }
        p += pn;
        k += kn;
        if (*p == '\0' || *k == '\0')
            return *p == '\0' && *k == '\0';
        p++;
        k++;
    }
}

/* The class of key path `key` when its shape is in the table and the
   names it holds exist in s; -1 otherwise (the setter must judge it). */
static int hs__key_class(const hs_scenario_t *s, const char *key)
{
    size_t i;

    for (i = 0; hs__keys[i].pattern != NULL; i++)
        if (hs__key_match(s, hs__keys[i].pattern, key))
            return (int)hs__keys[i].cls;
    return -1;
}

/* ---- values --------------------------------------------------------- */

static char *hs__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);

    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

static char *hs__strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);

    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static int hs__is_count(const char *t)
{
    if (*t == '\0')
        return 0;
    for (; *t != '\0'; t++)
        if (*t < '0' || *t > '9')
            return 0;
    return 1;
}

static int hs__is_number(const char *t)
{
    char *end;
    double v;

    if (!((*t >= '0' && *t <= '9') || *t == '.' || *t == '-'))
        return 0;
    errno = 0;
    v = strtod(t, &end);
    return end != t && *end == '\0' && errno == 0 && isfinite(v);
}

/* 1 when text is a value of class c. */
static int hs__value_ok(hs_sweep_class_t c, const char *t)
{
    int64_t ns;
    uint64_t b;
    double bw;
    hs_overlap_t o;
    hs_send_t m;
    size_t n = strlen(t);

    switch (c) {
    case HS_SWEEP_COUNT: return hs__is_count(t);
    case HS_SWEEP_NUMBER: return hs__is_number(t);
    case HS_SWEEP_TIME: return hs_parse_time_ns(t, &ns) == 0;
    case HS_SWEEP_BYTES: return hs_parse_bytes(t, &b) == 0;
    case HS_SWEEP_BANDWIDTH: return hs_parse_bandwidth(t, &bw) == 0;
    case HS_SWEEP_SIZE:
        return hs__is_count(t) || hs_parse_bytes(t, &b) == 0;
    case HS_SWEEP_TIME_OR_UNKNOWN:
        return strcmp(t, "unknown") == 0 || hs_parse_time_ns(t, &ns) == 0;
    case HS_SWEEP_OVERLAP: return hs_overlap_parse(t, &o) == 0;
    case HS_SWEEP_SEND: return hs_send_parse(t, &m) == 0;
    case HS_SWEEP_BOOL:
        return strcmp(t, "true") == 0 || strcmp(t, "false") == 0;
    case HS_SWEEP_RING:
        return strcmp(t, "listing") == 0 || strcmp(t, "grouped") == 0 ||
               strcmp(t, "interleave") == 0 ||
               (n >= 2 && t[0] == '[' && t[n - 1] == ']');
    default: return 1;
    }
}

/* Whether class c takes a unit, and which parser judges it: 0 none,
   1 time, 2 bytes, 3 bandwidth. */
static int hs__class_unit(hs_sweep_class_t c)
{
    switch (c) {
    case HS_SWEEP_TIME:
    case HS_SWEEP_TIME_OR_UNKNOWN: return 1;
    case HS_SWEEP_BYTES:
    case HS_SWEEP_SIZE: return 2;
    case HS_SWEEP_BANDWIDTH: return 3;
    default: return 0;
    }
}

/* The size of one `unit` in the base unit of kind (1 time ns, 2 bytes,
   3 bytes/s; 0: any of them), or -1 when it is not a unit of that kind.
   *kind_out gets the kind found. */
static double hs__unit_scale(const char *unit, int kind, int *kind_out)
{
    char one[64];
    int64_t ns;
    uint64_t b;
    double bw;
    int k;

    if (snprintf(one, sizeof one, "1%s", unit) >= (int)sizeof one)
        return -1;
    for (k = 1; k <= 3; k++) {
        if (kind != 0 && k != kind)
            continue;
        if (k == 1 && hs_parse_time_ns(one, &ns) == 0) {
            *kind_out = 1;
            return (double)ns;
        }
        if (k == 2 && hs_parse_bytes(one, &b) == 0) {
            *kind_out = 2;
            return (double)b;
        }
        if (k == 3 && hs_parse_bandwidth(one, &bw) == 0) {
            *kind_out = 3;
            return bw;
        }
    }
    return -1;
}

/* Splits "12.5Gbps" into 12.5 and "Gbps" (spaces trimmed); 0 or -1. */
static int hs__split_num(const char *t, double *v, char *unit, size_t ulen)
{
    char *end;
    size_t n;

    while (*t == ' ')
        t++;
    if (!((*t >= '0' && *t <= '9') || *t == '.'))
        return -1;
    errno = 0;
    *v = strtod(t, &end);
    if (end == t || errno != 0 || !isfinite(*v) || *v < 0)
        return -1;
    while (*end == ' ')
        end++;
    n = strlen(end);
    while (n > 0 && end[n - 1] == ' ')
        n--;
    if (n >= ulen)
        return -1;
    memcpy(unit, end, n);
    unit[n] = '\0';
    return 0;
}

/* A growing list of value texts. */
typedef struct hs__vals_s {
    size_t n, cap;
    char **v;
} hs__vals_t;

static int hs__vals_push(hs__vals_t *l, char *text)
{
    if (text == NULL)
        return -1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char **nv = realloc(l->v, cap * sizeof *nv);
        if (nv == NULL) {
            free(text);
            return -1;
        }
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = text;
    return 0;
}

static void hs__vals_clear(hs__vals_t *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* A range item of --vary KEY (class c) as hs__range reads it: its ends
   a, b and step (or factor) s, their units, the unit kind (0 a sample
   count, -1 none) and whether it is geometric ("A..B*FACTOR"). */
typedef struct {
    const char *key, *item;
    hs_sweep_class_t c;
    double a, b, s;
    char ua[64], ub[64], us[64];
    int kind, geometric;
} hs__rng_t;

/* Splits r->item into its ends, step or factor and their units. */
static hs_err_t hs__range_split(hs__rng_t *r, hs_error_t *err)
{
    const char *key = r->key, *item = r->item;
    const char *dots = strstr(item, ".."), *rest, *op;
    char a_txt[128], b_txt[128], s_txt[128];

    rest = dots + 2;
    op = strpbrk(rest, ":*");
    if (op == NULL || (size_t)(dots - item) >= sizeof a_txt ||
        (size_t)(op - rest) >= sizeof b_txt || strlen(op + 1) >= sizeof s_txt)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--vary %s: range '%s': expected A..B:STEP "
                             "or A..B*FACTOR", key, item);
    r->geometric = *op == '*';
    memcpy(a_txt, item, (size_t)(dots - item));
    a_txt[dots - item] = '\0';
    memcpy(b_txt, rest, (size_t)(op - rest));
    b_txt[op - rest] = '\0';
    strcpy(s_txt, op + 1);
    if (hs__split_num(a_txt, &r->a, r->ua, sizeof r->ua) != 0 ||
        hs__split_num(b_txt, &r->b, r->ub, sizeof r->ub) != 0 ||
        hs__split_num(s_txt, &r->s, r->us, sizeof r->us) != 0)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--vary %s: range '%s': the ends and the %s "
                             "must be non-negative numbers", key, item,
                             r->geometric ? "factor" : "step");
    if (r->geometric && r->us[0] != '\0')
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--vary %s: range '%s': the factor after '*' "
                             "is a plain number", key, item);
    return HS_OK;
}

/* The range's unit kind, its units checked against its class and each
   other, and b and s brought to a's unit. */
static hs_err_t hs__range_units(hs__rng_t *r, hs_error_t *err)
{
    const char *key = r->key, *item = r->item;
    hs_sweep_class_t c = r->c;
    char *ua = r->ua, *ub = r->ub, *us = r->us;
    int geometric = r->geometric, ka = 0, kb = 0, ks = 0;
    double sa, sb, ss;

    if (c == HS_SWEEP_SIZE && ua[0] == '\0' && ub[0] == '\0')
        r->kind = 0;   /* a sample count */
    if (c == HS_SWEEP_COUNT || c == HS_SWEEP_NUMBER)
        r->kind = -1;  /* no unit at all */
    if (ua[0] == '\0' && ub[0] != '\0')
        strcpy(ua, ub);
    if (ub[0] == '\0')
        strcpy(ub, ua);
    if (!geometric && us[0] == '\0')
        strcpy(us, ua);
    if (r->kind == -1 || (c == HS_SWEEP_ANY && ua[0] == '\0') ||
        (c == HS_SWEEP_SIZE && r->kind == 0)) {
        if (ua[0] != '\0' || ub[0] != '\0' || us[0] != '\0')
            return hs_error_setf(err, HS_ERR_UNIT,
                                 "--vary %s: range '%s': a %s takes no "
                                 "unit", key, item,
                                 hs_sweep_class_name(c));
        return HS_OK;
    }
    if (ua[0] == '\0')
        return hs_error_setf(err, HS_ERR_UNIT,
                             "--vary %s: range '%s' is not a %s: give "
                             "a unit (e.g. %s)", key, item,
                             hs_sweep_class_name(c),
                             hs__class_example(c));
    sa = hs__unit_scale(ua, r->kind, &ka);
    sb = hs__unit_scale(ub, r->kind, &kb);
    ss = geometric ? 1 : hs__unit_scale(us, r->kind, &ks);
    if (sa < 0 || sb < 0 || ss < 0 || kb != ka ||
        (!geometric && ks != ka))
        return hs_error_setf(err, HS_ERR_UNIT,
                             "--vary %s: range '%s' is not a %s range "
                             "(e.g. %s)", key, item,
                             c == HS_SWEEP_ANY ? "consistent"
                                               : hs_sweep_class_name(c),
                             hs__class_example(c));
    r->b = r->b * sb / sa;
    if (!geometric)
        r->s = r->s * ss / sa;
    return HS_OK;
}

/* The number of values of the range (*n_vals), refusing an empty or
   endless one, one that takes l past HS_SWEEP_MAX_VALUES values, or a
   count range of fractions. */
static hs_err_t hs__range_count(const hs__rng_t *r, const hs__vals_t *l,
                                size_t *n_vals, hs_error_t *err)
{
    const char *key = r->key, *item = r->item;
    hs_sweep_class_t c = r->c;
    double a = r->a, b = r->b, s = r->s;
    int geometric = r->geometric;

    if (b < a)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--vary %s: range '%s': the end is below the "
                             "start", key, item);
    if (geometric ? !(s > 1) : !(s > 0))
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--vary %s: range '%s': the %s must be %s",
                             key, item, geometric ? "factor" : "step",
                             geometric ? "> 1" : "> 0");
    if (geometric && !(a > 0))
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--vary %s: range '%s': a geometric range "
                             "starts above 0", key, item);
    if (geometric)
        *n_vals = (size_t)floor(log(b / a) / log(s) + 1e-9) + 1;
    else {
        double q = (b - a) / s + 1e-9;
        if (q > (double)HS_SWEEP_MAX_VALUES)
            q = (double)HS_SWEEP_MAX_VALUES;
        *n_vals = (size_t)floor(q) + 1;
    }
    if (*n_vals > HS_SWEEP_MAX_VALUES ||
        l->n + *n_vals > HS_SWEEP_MAX_VALUES)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--vary %s: range '%s' has more than %lu "
                             "values", key, item, HS_SWEEP_MAX_VALUES);
    if (c == HS_SWEEP_COUNT || (c == HS_SWEEP_SIZE && r->kind == 0)) {
        if (a != floor(a) || (!geometric && s != floor(s)))
            return hs_error_setf(err, HS_ERR_UNIT,
                                 "--vary %s: range '%s': a count range "
                                 "has whole numbers", key, item);
    }
    return HS_OK;
}

/*
 * Expands the range item "A..B:STEP" or "A..B*FACTOR" of class c into l.
 */
static hs_err_t hs__range(const char *key, hs_sweep_class_t c,
                          const char *item, hs__vals_t *l, hs_error_t *err)
{
    hs__rng_t r;
    size_t i, n_vals = 0;
    hs_err_t rc;

    memset(&r, 0, sizeof r);
    r.key = key;
    r.item = item;
    r.c = c;
    r.kind = hs__class_unit(c);
    if ((rc = hs__range_split(&r, err)) != HS_OK ||
        (rc = hs__range_units(&r, err)) != HS_OK ||
        (rc = hs__range_count(&r, l, &n_vals, err)) != HS_OK)
        return rc;
    for (i = 0; i < n_vals; i++) {
        double v = r.geometric ? r.a * pow(r.s, (double)i)
                               : r.a + (double)i * r.s;
        char buf[96];
        if (c == HS_SWEEP_COUNT || (c == HS_SWEEP_SIZE && r.kind == 0))
            snprintf(buf, sizeof buf, "%.0f", floor(v + 0.5));
        else
            snprintf(buf, sizeof buf, "%.12g%s", v, r.ua);
        if (hs__vals_push(l, hs__strdup(buf)) != 0)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    return HS_OK;
}

/* Expands VALUES (comma-separated at bracket depth 0) into l. */
static hs_err_t hs__values(const char *key, hs_sweep_class_t c,
                           const char *spec, hs__vals_t *l, hs_error_t *err)
{
    const char *p = spec;

    if (*spec == '\0')
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--vary %s: no values after '='", key);
    while (*p != '\0') {
        const char *q = p;
        int depth = 0;
        size_t n;
        char *item;
        hs_err_t rc;
        while (*q != '\0' && !(depth == 0 && *q == ',')) {
            if (*q == '[')
                depth++;
            else if (*q == ']' && depth > 0)
                depth--;
            q++;
        }
        while (*p == ' ')
            p++;
        n = (size_t)(q - p);
        while (n > 0 && p[n - 1] == ' ')
            n--;
        if (n == 0)
            return hs_error_setf(err, HS_ERR_USAGE,
                                 "--vary %s: an empty value in '%s'", key,
                                 spec);
        item = hs__strndup(p, n);
        if (item == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        if (item[0] != '[' && strstr(item, "..") != NULL) {
            rc = hs__range(key, c, item, l, err);
            free(item);
            if (rc != HS_OK)
                return rc;
        } else if (!hs__value_ok(c, item)) {
            rc = hs_error_setf(err, hs__class_unit(c) != 0 ||
                                        c == HS_SWEEP_COUNT ||
                                        c == HS_SWEEP_NUMBER
                                        ? HS_ERR_UNIT : HS_ERR_SCHEMA,
                               "--vary %s: '%s' is not a %s (e.g. %s)",
                               key, item, hs_sweep_class_name(c),
                               hs__class_example(c));
            free(item);
            return rc;
        } else if (l->n >= HS_SWEEP_MAX_VALUES) {
            free(item);
            return hs_error_setf(err, HS_ERR_USAGE,
                                 "--vary %s: more than %lu values", key,
                                 HS_SWEEP_MAX_VALUES);
        } else if (hs__vals_push(l, item) != 0) {
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        }
        p = *q == ',' ? q + 1 : q;
        if (*q == ',' && *p == '\0')
            return hs_error_setf(err, HS_ERR_USAGE,
                                 "--vary %s: an empty value in '%s'", key,
                                 spec);
    }
    return HS_OK;
}

/* ---- the sweep ------------------------------------------------------ */

hs_err_t hs_sweep_new(const hs_scenario_t *base, int replay,
                      hs_sweep_t **out, hs_error_t *err)
{
    hs_sweep_t *sw;
    hs_err_t rc;

    *out = NULL;
    sw = calloc(1, sizeof *sw);
    if (sw == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    rc = hs_scenario_clone(base, &sw->base, err);
    if (rc != HS_OK)
        goto fail;
    sw->replay = replay == HS_ANSWER_REPLAY_NEVER || replay == HS_ANSWER_REPLAY_ALWAYS
                     ? replay
                     : HS_ANSWER_REPLAY_AUTO;
    *out = sw;
    return HS_OK;

fail:
    hs_sweep_free(sw);
    return rc;
}

void hs_sweep_free(hs_sweep_t *sw)
{
    size_t a, i;

    if (sw == NULL)
        return;
    for (a = 0; a < sw->n_axes; a++) {
        free(sw->axes[a].key);
        free(sw->axes[a].spec);
        for (i = 0; i < sw->axes[a].n_values; i++)
            free(sw->axes[a].values[i]);
        free(sw->axes[a].values);
    }
    free(sw->axes);
    free(sw->stride);
    free(sw->options);
    free(sw->sets);
    hs_scenario_free(sw->work);
    hs_scenario_free(sw->base);
    free(sw);
}

/* Tries key=value on a copy of the base; the setter's error, prefixed
   "--vary ", when it refuses. */
static hs_err_t hs__dry_run(const hs_sweep_t *sw, const char *key,
                            const char *value, hs_error_t *err)
{
    hs_scenario_t *s = NULL;
    hs_error_t e;
    hs_err_t rc;

    hs_error_clear(&e);
    rc = hs_scenario_clone(sw->base, &s, err);
    if (rc != HS_OK)
        return rc;
    rc = hs_scenario_set(s, key, value, &e);
    hs_scenario_free(s);
    if (rc == HS_OK)
        return HS_OK;
    if (strncmp(e.msg, key, strlen(key)) == 0)
        return hs_error_setf(err, rc, "--vary %s", e.msg);
    return hs_error_setf(err, rc, "--vary %s: %s", key, e.msg);
}

hs_err_t hs_sweep_vary(hs_sweep_t *sw, const char *key_eq_values,
                       hs_error_t *err)
{
    const char *eq = strchr(key_eq_values, '=');
    hs__vals_t l = {0, 0, NULL};
    hs_sweep_axis_t *ax, *na;
    char *key = NULL, *spec = NULL;
    size_t klen, a;
    int cls;
    hs_err_t rc;

    if (sw->planned)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--vary after the sweep was planned");
    if (eq == NULL || eq == key_eq_values)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--vary '%s': expected KEY=VALUES (e.g. "
                             "network.default_bandwidth=25Gbps,100Gbps)",
                             key_eq_values);
    klen = (size_t)(eq - key_eq_values);
    while (klen > 0 && key_eq_values[klen - 1] == ' ')
        klen--;
    key = hs__strndup(key_eq_values, klen);
    spec = hs__strdup(eq + 1);
    if (key == NULL || spec == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (a = 0; a < sw->n_axes; a++) {
        if (strcmp(sw->axes[a].key, key) == 0) {
            rc = hs_error_setf(err, HS_ERR_USAGE,
                               "--vary %s: the key is varied twice", key);
            goto fail;
        }
    }
    cls = hs__key_class(sw->base, key);
    rc = hs__values(key, cls < 0 ? HS_SWEEP_ANY : (hs_sweep_class_t)cls,
                    spec, &l, err);
    if (rc != HS_OK)
        goto fail;
    if (cls < 0) {
        /* not a shape we know, or a name the base lacks: the setter
           says what is valid */
        rc = hs__dry_run(sw, key, l.v[0], err);
        if (rc != HS_OK)
            goto fail;
        cls = HS_SWEEP_ANY;
    }
    na = realloc(sw->axes, (sw->n_axes + 1) * sizeof *na);
    if (na == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    sw->axes = na;
    ax = &sw->axes[sw->n_axes++];
    ax->key = key;
    ax->spec = spec;
    ax->cls = (hs_sweep_class_t)cls;
    ax->n_values = l.n;
    ax->values = l.v;
    return HS_OK;

fail:
    hs__vals_clear(&l);
    free(key);
    free(spec);
    return rc;
}

hs_err_t hs_sweep_set(hs_sweep_t *sw, const char *key_eq_value,
                      hs_error_t *err)
{
    const char *eq = strchr(key_eq_value, '=');
    size_t klen, old = sw->sets ? strlen(sw->sets) : 0;
    char key[512], *ns;
    hs_error_t e;
    hs_err_t rc;

    if (sw->planned || sw->n_axes > 0)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--set '%s' after --vary", key_eq_value);
    if (eq == NULL || eq == key_eq_value ||
        (klen = (size_t)(eq - key_eq_value)) >= sizeof key)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "--set '%s': expected KEY=VALUE",
                             key_eq_value);
    memcpy(key, key_eq_value, klen);
    key[klen] = '\0';
    hs_error_clear(&e);
    rc = hs_scenario_set(sw->base, key, eq + 1, &e);
    if (rc == HS_OK)
        rc = hs_scenario_resolve(sw->base, &e);
    if (rc != HS_OK) {
        if (strncmp(e.msg, key, klen) == 0)
            return hs_error_setf(err, rc, "--set %s", e.msg);
        return hs_error_setf(err, rc, "--set %s: %s", key, e.msg);
    }
    ns = realloc(sw->sets, old + strlen(key_eq_value) + 8);
    if (ns == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    sw->sets = ns;
    sprintf(ns + old, "set %s; ", key_eq_value);
    return HS_OK;
}

void hs_sweep_set_zip(hs_sweep_t *sw, int zip)
{
    sw->zip = zip != 0;
}

void hs_sweep_set_force(hs_sweep_t *sw, int force)
{
    sw->force = force != 0;
}

hs_err_t hs_sweep_plan(hs_sweep_t *sw, hs_error_t *err)
{
    size_t a, n = 1, len = 64;
    char *o;

    if (sw->n_axes == 0)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "nothing to sweep: give at least one "
                             "--vary KEY=VALUES");
    free(sw->stride);
    sw->stride = calloc(sw->n_axes, sizeof *sw->stride);
    if (sw->stride == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    if (sw->zip) {
        n = sw->axes[0].n_values;
        for (a = 1; a < sw->n_axes; a++)
            if (sw->axes[a].n_values != n)
                return hs_error_setf(err, HS_ERR_USAGE,
                                     "--zip: --vary %s has %zu values but "
                                     "--vary %s has %zu; zipped keys need "
                                     "as many values each",
                                     sw->axes[0].key, n, sw->axes[a].key,
                                     sw->axes[a].n_values);
    } else {
        for (a = sw->n_axes; a-- > 0;) {
            sw->stride[a] = n;
            if (n > HS_SWEEP_MAX_POINTS / sw->axes[a].n_values)
                return hs_error_setf(err, HS_ERR_USAGE,
                                     "the sweep has more than %lu points",
                                     HS_SWEEP_MAX_POINTS);
            n *= sw->axes[a].n_values;
        }
    }
    sw->n_points = n;
    for (a = 0; a < sw->n_axes; a++)
        len += strlen(sw->axes[a].key) + strlen(sw->axes[a].spec) + 16;
    len += sw->sets ? strlen(sw->sets) : 0;
    o = malloc(len);
    if (o == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    strcpy(o, sw->sets ? sw->sets : "");
    for (a = 0; a < sw->n_axes; a++) {
        strcat(o, "vary ");
        strcat(o, sw->axes[a].key);
        strcat(o, "=");
        strcat(o, sw->axes[a].spec);
        strcat(o, "; ");
    }
    strcat(o, sw->zip ? "zip; " : "product; ");
    strcat(o, sw->replay == HS_ANSWER_REPLAY_ALWAYS  ? "replay always"
              : sw->replay == HS_ANSWER_REPLAY_NEVER ? "replay never"
                                                     : "replay auto");
    free(sw->options);
    sw->options = o;
    sw->planned = 1;
    return HS_OK;
}

size_t hs_sweep_n_points(const hs_sweep_t *sw)
{
    return sw->planned ? sw->n_points : 0;
}

size_t hs_sweep_n_axes(const hs_sweep_t *sw)
{
    return sw->n_axes;
}

const hs_sweep_axis_t *hs_sweep_axis(const hs_sweep_t *sw, size_t a)
{
    return a < sw->n_axes ? &sw->axes[a] : NULL;
}

const char *hs_sweep_value(const hs_sweep_t *sw, size_t p, size_t a)
{
    const hs_sweep_axis_t *ax = &sw->axes[a];

    if (sw->zip)
        return ax->values[p];
    return ax->values[(p / sw->stride[a]) % ax->n_values];
}

int hs_sweep_replays(const hs_sweep_t *sw)
{
    return sw->replay;
}

const hs_scenario_t *hs_sweep_base(const hs_sweep_t *sw)
{
    return sw->base;
}

const char *hs_sweep_options_text(const hs_sweep_t *sw)
{
    return sw->options ? sw->options : "";
}

/* ---- running points ------------------------------------------------- */

/* Copies src into a fixed buffer of n bytes, cut if longer. */
static void hs__copy_name(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

static hs_err_t hs__point(hs_sweep_t *sw, size_t p, hs_sweep_rec_t *rec,
                          hs_error_t *err)
{
    hs_scenario_t *s;
    const hs_prediction_t *pred;
    hs_answer_t *an = NULL;
    hs_replay_opts_t ro;
    size_t a;
    uint32_t lk, lk1;
    hs_err_t rc;

    if (sw->work == NULL) {
        rc = hs_scenario_clone(sw->base, &sw->work, err);
        if (rc != HS_OK)
            return rc;
    }
    s = sw->work;
    for (a = 0; a < sw->n_axes; a++) {
        rc = hs_scenario_set(s, sw->axes[a].key, hs_sweep_value(sw, p, a),
                             err);
        if (rc != HS_OK)
            return rc;
    }
    rc = hs_scenario_resolve(s, err);
    if (rc != HS_OK)
        return rc;
    /* the point's own simulate: settings; under ALWAYS a point past the
       replay budgets is refused by the replay (the key and the estimate
       in err) unless forced */
    hs_replay_opts_from_scenario(s, &ro);
    ro.force = sw->force;
    rc = hs_answer_run(s, &ro, (hs_answer_replay_t)sw->replay, NULL, 0, &an,
                       err);
    if (rc != HS_OK)
        return rc;
    pred = an->closed;
    rec->n_devices = (uint32_t)s->n_devices;
    rec->predictor = (int32_t)an->recommended;
    rec->step_recommended_ns = hs_answer_best(an)->step_ns;
    rec->epoch_recommended_ns = hs_answer_best(an)->epoch_ns;
    rec->total_recommended_ns = hs_answer_best(an)->total_ns;
    rec->step_source_ns = an->est[HS_PREDICTOR_SOURCE].step_ns;
    rec->epoch_source_ns = an->est[HS_PREDICTOR_SOURCE].epoch_ns;
    rec->total_source_ns = an->est[HS_PREDICTOR_SOURCE].total_ns;
    rec->step_extended_ns = an->est[HS_PREDICTOR_EXTENDED].step_ns;
    rec->epoch_extended_ns = an->est[HS_PREDICTOR_EXTENDED].epoch_ns;
    rec->total_extended_ns = an->est[HS_PREDICTOR_EXTENDED].total_ns;
    rec->step_replay_ns = an->est[HS_PREDICTOR_REPLAY].step_ns;
    rec->epoch_replay_ns = an->est[HS_PREDICTOR_REPLAY].epoch_ns;
    rec->total_replay_ns = an->est[HS_PREDICTOR_REPLAY].total_ns;
    rec->iters_per_epoch = an->iters_per_epoch;
    rec->bottleneck_bound = (int32_t)pred->bottleneck_bound;
    lk = pred->bottleneck_link;
    lk1 = lk + 1 == s->n_devices ? 0 : lk + 1;
    rec->bottleneck_link_pos = lk;
    hs__copy_name(rec->bottleneck_device, sizeof rec->bottleneck_device,
                  s->devices[pred->bottleneck_device].name);
    snprintf(rec->bottleneck_link, sizeof rec->bottleneck_link, "%s->%s",
             s->devices[s->ring[lk]].name, s->devices[s->ring[lk1]].name);
    hs_answer_free(an);
    return HS_OK;
}

hs_err_t hs_sweep_run_point(hs_sweep_t *sw, size_t p, hs_sweep_rec_t *rec,
                            hs_error_t *err)
{
    hs_err_t rc;

    memset(rec, 0, sizeof *rec);
    if (!sw->planned || p >= sw->n_points) {
        rc = hs_error_setf(err, HS_ERR_USAGE, "no point %zu in the sweep",
                           p);
        rec->code = (int32_t)rc;
        return rc;
    }
    hs_error_clear(err);
    rc = hs__point(sw, p, rec, err);
    if (rc != HS_OK) {
        memset(rec, 0, sizeof *rec);
        rec->code = (int32_t)rc;
        if (err != NULL && err->msg[0] == '\0')
            hs_error_setf(err, rc, "%s", hs_err_name(rc));
        /* the working copy may be half-applied: start afresh */
        hs_scenario_free(sw->work);
        sw->work = NULL;
    }
    return rc;
}

hs_err_t hs_sweep_run(hs_sweep_t *sw, hs_sweep_results_t *res,
                      hs_sweep_progress_fn progress, void *ctx,
                      hs_error_t *err)
{
    size_t p;

    if (!sw->planned || res->n_points != sw->n_points)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "the results do not fit the sweep");
    for (p = 0; p < sw->n_points; p++) {
        hs_sweep_rec_t rec;
        hs_error_t e;
        hs_err_t rc;

        hs_error_clear(&e);
        rc = hs_sweep_run_point(sw, p, &rec, &e);
        rc = hs_sweep_results_store(res, p, &rec,
                                    rc == HS_OK ? NULL : e.msg, err);
        if (rc != HS_OK)
            return rc;
        if (progress != NULL && progress(ctx, p + 1, sw->n_points) != 0)
            return hs_error_setf(err, HS_ERR_USAGE,
                                 "the sweep was stopped after %zu of %zu "
                                 "points", p + 1, sw->n_points);
    }
    return HS_OK;
}

/* ---- results -------------------------------------------------------- */

hs_err_t hs_sweep_results_new(const hs_sweep_t *sw,
                              hs_sweep_results_t **out, hs_error_t *err)
{
    hs_sweep_results_t *r;
    size_t n = hs_sweep_n_points(sw);

    *out = NULL;
    r = calloc(1, sizeof *r);
    if (r == NULL)
        goto fail;
    r->n_points = n;
    r->rec = calloc(n ? n : 1, sizeof *r->rec);
    r->error = calloc(n ? n : 1, sizeof *r->error);
    r->stored = calloc(n ? n : 1, 1);
    if (r->rec == NULL || r->error == NULL || r->stored == NULL)
        goto fail;
    *out = r;
    return HS_OK;

fail:
    hs_sweep_results_free(r);
    return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
}

hs_err_t hs_sweep_results_store(hs_sweep_results_t *res, size_t p,
                                const hs_sweep_rec_t *rec,
                                const char *error, hs_error_t *err)
{
    char *copy = NULL;

    if (p >= res->n_points)
        return hs_error_setf(err, HS_ERR_RANGE, "no point %zu in the sweep",
                             p);
    if (error != NULL && error[0] != '\0') {
        copy = hs__strdup(error);
        if (copy == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    if (res->error[p] != NULL)
        res->n_failed--;
    if (!res->stored[p]) {
        res->stored[p] = 1;
        res->n_done++;
    }
    free(res->error[p]);
    res->error[p] = copy;
    res->rec[p] = *rec;
    if (copy == NULL && rec->code != 0) {
        /* a failure must carry a text */
        res->error[p] = hs__strdup(hs_err_name((hs_err_t)rec->code));
        if (res->error[p] == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    if (res->error[p] != NULL)
        res->n_failed++;
    return HS_OK;
}

void hs_sweep_results_free(hs_sweep_results_t *res)
{
    size_t i;

    if (res == NULL)
        return;
    if (res->error != NULL)
        for (i = 0; i < res->n_points; i++)
            free(res->error[i]);
    free(res->error);
    free(res->stored);
    free(res->rec);
    free(res);
}
