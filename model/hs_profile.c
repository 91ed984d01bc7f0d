/*
 * hs_profile.c -- the profile format, read and written (hs_profile.h).
 *
 * One table, hs__keys, lists every key of a profile once: its YAML name,
 * its kind (a distribution, a size, a count...) and where it lives in
 * hs_profile_t.  The reader takes the allowed keys and the reading order
 * from it; the writer emits the keys in the same order; hs_profile_set_key
 * reads one key through the same per-kind code.  Adding a key is one row
 * plus, for a new kind, one read and one write case.
 *
 * The reading order matters in one place: fwd_ops comes after t_fwd, so
 * that a given t_fwd wins over the sum of the operators (with a warning
 * when they differ by more than 1%).  After the walk the required keys are
 * checked: t_fwd (or fwd_ops), t_b1 and allreduce_bytes.
 *
 * micro_batches (the gradient accumulation the profile was measured
 * with) is written only when above 1, so a profile measured without it
 * is written byte for byte as before the key existed.
 *
 * batch_points comes last in the table, so a profile measured
 * at one batch is written byte for byte as before: the writer leaves the
 * key out when the list is empty.  Its entries reuse the distribution
 * reader and writer; the batches must be strictly increasing (an error at
 * the offending batch's line and column otherwise).  What the points are
 * for is hs_profile_batch.c.
 */
#include "hs_profile.h"
#include "hs_stats.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "hs_atomic.h"
#include "hs_file.h"
#include "hs_limits.h"
#include "hs_suggest.h"
#include "hs_yaml.h"
#include "hs_yamlemit.h"

typedef enum hs__kind_e {
    HS__K_TYPE,     /* the type name: read and checked, not stored */
    HS__K_STR,      /* char *, written double-quoted when set */
    HS__K_SUBSYS,   /* unsigned >= 2, always written */
    HS__K_KEPT,     /* unsigned, written when > 0 */
    HS__K_MICRO,    /* uint32_t in [1, HS_LIMIT_MICRO_BATCHES], written
                       when > 1 */
    HS__K_DIST,     /* hs_dist_t */
    HS__K_OPS,      /* fwd_ops: n_fwd_ops, fwd_ops_ns, fwd_op_names */
    HS__K_BYTES,    /* uint64_t with a size unit */
    HS__K_ARSRC,    /* hs_ar_source_t by name */
    HS__K_COMM,     /* double in [0, 1e6], written when > 0 */
    HS__K_WAIT,     /* int64_t duration >= 0, written when > 0 */
    HS__K_CORES,    /* double in [0, 4096] cores, written when > 0 */
    HS__K_BUCKETS,  /* n_buckets, buckets */
    HS__K_POINTS,   /* n_points, points (batch_points) */
    HS__K_GRAD      /* gradient_bytes: M, stored as ar_bytes (D) for the
                       sub-system; read only (the writer writes D) */
} hs__kind_t;

typedef struct hs__key_s {
    const char *name;
    hs__kind_t kind;
    size_t off;         /* offset in hs_profile_t, where one field */
    int settable;       /* hs_profile_set_key accepts it */
} hs__key_t;

#define HS__OFF(f) offsetof(hs_profile_t, f)

static const hs__key_t hs__keys[] = {
    {"type", HS__K_TYPE, 0, 0},
    {"source", HS__K_STR, HS__OFF(source), 0},
    {"subsystem_size", HS__K_SUBSYS, HS__OFF(subsys_n), 0},
    {"steps_kept", HS__K_KEPT, HS__OFF(steps_kept), 0},
    {"micro_batches", HS__K_MICRO, HS__OFF(micro_batches), 0},
    {"t_dl", HS__K_DIST, HS__OFF(t_dl), 1},
    {"t_fwd", HS__K_DIST, HS__OFF(t_fwd), 1},
    {"t_b1", HS__K_DIST, HS__OFF(t_b1), 1},
    {"t_bwd", HS__K_DIST, HS__OFF(t_bwd), 1},
    {"t_opt", HS__K_DIST, HS__OFF(t_opt), 1},
    {"fwd_ops", HS__K_OPS, 0, 0},
    {"allreduce_bytes", HS__K_BYTES, HS__OFF(ar_bytes), 1},
    {"allreduce_source", HS__K_ARSRC, HS__OFF(ar_source), 0},
    {"gradient_bytes", HS__K_GRAD, HS__OFF(ar_bytes), 1},
    {"comm_ns_per_byte", HS__K_COMM, HS__OFF(comm_ns_per_byte), 1},
    {"t_hop_wait", HS__K_WAIT, HS__OFF(t_hop_wait_ns), 1},
    {"cpu_quota_cores", HS__K_CORES, HS__OFF(cpu_quota_cores), 1},
    {"t_cpu_period", HS__K_WAIT, HS__OFF(t_cpu_period_ns), 1},
    {"buckets", HS__K_BUCKETS, 0, 0},
    {"batch_points", HS__K_POINTS, 0, 0},
};

#define HS__NKEYS (sizeof hs__keys / sizeof hs__keys[0])

_Static_assert(HS__NKEYS <= HS_PROFILE_NKEYS,
               "hs_profile_t keeps a position per key");

/* The names of hs_ar_source_t, by value. */
static const char *const hs__ar_names[] = {"given", "param_comms", "shapes",
                                           "sidecar", "gradient"};

int64_t hs_profile_hop_wait_ns(const hs_profile_t *p, size_t ring_n)
{
    unsigned r = p->subsys_n >= 2 ? p->subsys_n : 2;
    double grown, ceil_ns;

    if (p->t_hop_wait_ns <= 0)
        return 0;
    if (ring_n <= r || !(p->cpu_quota_cores > 0) ||
        p->cpu_quota_cores >= 1.0 || p->t_cpu_period_ns <= 0)
        return p->t_hop_wait_ns;
    grown = (double)p->t_hop_wait_ns * (double)(ring_n - 1) / (double)(r - 1);
    ceil_ns = (double)p->t_cpu_period_ns / (2.0 * p->cpu_quota_cores);
    if (ceil_ns < (double)p->t_hop_wait_ns)
        ceil_ns = (double)p->t_hop_wait_ns;
    if (grown > ceil_ns)
        grown = ceil_ns;
    return grown < 1e18 ? (int64_t)llround(grown) : (int64_t)1e18;
}

const char *hs_ar_source_name(hs_ar_source_t s)
{
    return (unsigned)s < sizeof hs__ar_names / sizeof hs__ar_names[0]
               ? hs__ar_names[s]
               : "given";
}

#define HS__FIELD(p, k, T) ((T *)(void *)((char *)(p) + (k)->off))
#define HS__CFIELD(p, k, T)                                                 \
    ((const T *)(const void *)((const char *)(p) + (k)->off))

double hs_profile_payload_bytes(const hs_profile_t *p)
{
    unsigned n = p->subsys_n < 2 ? 2 : p->subsys_n;

    return (double)p->ar_bytes * (double)n / (2.0 * (double)(n - 1));
}

static void hs__dist_clear(hs_dist_t *d)
{
    free(d->samples_ns);
    memset(d, 0, sizeof *d);
}

static void hs__point_clear(hs_batch_point_t *q)
{
    hs__dist_clear(&q->t_dl);
    hs__dist_clear(&q->t_fwd);
    hs__dist_clear(&q->t_b1);
    hs__dist_clear(&q->t_bwd);
    hs__dist_clear(&q->t_opt);
}

void hs_profile_clear(hs_profile_t *p)
{
    size_t i;

    if (p == NULL)
        return;
    for (i = 0; p->points != NULL && i < p->n_points; i++)
        hs__point_clear(&p->points[i]);
    free(p->points);
    hs__dist_clear(&p->t_dl);
    hs__dist_clear(&p->t_fwd);
    hs__dist_clear(&p->t_b1);
    hs__dist_clear(&p->t_bwd);
    hs__dist_clear(&p->t_opt);
    free(p->fwd_ops_ns);
    if (p->fwd_op_names != NULL)
        for (i = 0; i < p->n_fwd_ops; i++)
            free(p->fwd_op_names[i]);
    free(p->fwd_op_names);
    free(p->buckets);
    free(p->source);
    free(p->path);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------------ */
/* Reading                                                               */

/* A distribution: "12ms", "unknown", or {mean, sd, samples}. */
static hs_err_t hs__get_dist(hs_yaml_ctx_t *c, yaml_node_t *n,
                             const char *what, hs_dist_t *d)
{
    static const char *const keys[] = {"mean", "sd", "samples", NULL};
    yaml_node_t *v[3];
    hs_err_t rc;
    const char *sv = hs_yaml_scalar(n);

    hs__dist_clear(d);
    if (sv != NULL && strcmp(sv, "unknown") == 0)
        return HS_OK;
    if (sv != NULL) {
        rc = hs_yaml_get_time(c, n, what, &d->mean_ns);
        if (rc == HS_OK)
            d->known = 1;
        return rc;
    }
    if ((rc = hs_yaml_map(c, n, what, keys, v)) != HS_OK)
        return rc;
    if (v[2] != NULL) {
        size_t k, cnt;

        if (v[2]->type != YAML_SEQUENCE_NODE)
            return hs_yaml_fail(c, v[2], HS_ERR_SCHEMA,
                                "%s.samples must be a list of durations",
                                what);
        cnt = hs_yaml_len(v[2]);
        if (cnt > 0) {
            d->samples_ns = malloc(cnt * sizeof *d->samples_ns);
            if (d->samples_ns == NULL)
                return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
        }
        for (k = 0; k < cnt; k++) {
            rc = hs_yaml_get_time(c, hs_yaml_item(c, v[2], k), what,
                                  &d->samples_ns[k]);
            if (rc != HS_OK)
                return rc;
        }
        d->n_samples = cnt;
        if (cnt > 0) {
            hs_stats_of_ns(d->samples_ns, cnt, &d->mean_ns, &d->sd_ns);
            d->known = 1;
        }
    }
    if (v[0] != NULL) {
        if ((rc = hs_yaml_get_time(c, v[0], what, &d->mean_ns)) != HS_OK)
            return rc;
        d->known = 1;
    }
    if (v[1] != NULL &&
        (rc = hs_yaml_get_time(c, v[1], what, &d->sd_ns)) != HS_OK)
        return rc;
    if (!d->known)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "%s needs 'mean' or 'samples'", what);
    return HS_OK;
}

static hs_err_t hs__get_ops(hs_yaml_ctx_t *c, yaml_node_t *n,
                            hs_profile_t *p)
{
    static const char *const okeys[] = {"name", "time", NULL};
    size_t k, cnt;
    int64_t sum = 0;
    hs_err_t rc;

    if (n->type != YAML_SEQUENCE_NODE)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "fwd_ops must be a list of {name, time}");
    cnt = hs_yaml_len(n);
    p->fwd_ops_ns = calloc(cnt ? cnt : 1, sizeof *p->fwd_ops_ns);
    p->fwd_op_names = calloc(cnt ? cnt : 1, sizeof *p->fwd_op_names);
    if (p->fwd_ops_ns == NULL || p->fwd_op_names == NULL)
        return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
    p->n_fwd_ops = cnt;
    for (k = 0; k < cnt; k++) {
        yaml_node_t *ov[2], *on = hs_yaml_item(c, n, k);
        if ((rc = hs_yaml_map(c, on, "a fwd_ops entry", okeys, ov)) != HS_OK)
            return rc;
        if ((rc = hs_yaml_need(c, on, ov[1], "time", "a fwd_ops entry")) !=
            HS_OK)
            return rc;
        if (ov[0] != NULL &&
            (rc = hs_yaml_get_str(c, ov[0], "fwd_ops name",
                                  &p->fwd_op_names[k])) != HS_OK)
            return rc;
        if ((rc = hs_yaml_get_time(c, ov[1], "fwd_ops time",
                                   &p->fwd_ops_ns[k])) != HS_OK)
            return rc;
        sum += p->fwd_ops_ns[k];
    }
    if (!p->t_fwd.known) {
        p->t_fwd.known = 1;
        p->t_fwd.mean_ns = sum;
    } else if (llabs(sum - p->t_fwd.mean_ns) > p->t_fwd.mean_ns / 100) {
        hs_yaml_warn(c,
                     "%s: t_fwd (%lld ns) differs from the sum of fwd_ops "
                     "(%lld ns) by more than 1%%; t_fwd is used",
                     c->file, (long long)p->t_fwd.mean_ns, (long long)sum);
    }
    return HS_OK;
}

static hs_err_t hs__get_buckets(hs_yaml_ctx_t *c, yaml_node_t *n,
                                hs_profile_t *p)
{
    static const char *const bkeys[] = {"bytes", "ready", NULL};
    size_t k, cnt;
    hs_err_t rc;

    if (n->type != YAML_SEQUENCE_NODE)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "buckets must be a list of {bytes, ready}");
    cnt = hs_yaml_len(n);
    p->buckets = calloc(cnt ? cnt : 1, sizeof *p->buckets);
    if (p->buckets == NULL)
        return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
    p->n_buckets = cnt;
    for (k = 0; k < cnt; k++) {
        yaml_node_t *bv[2], *bn = hs_yaml_item(c, n, k);
        if ((rc = hs_yaml_map(c, bn, "a bucket", bkeys, bv)) != HS_OK)
            return rc;
        if ((rc = hs_yaml_need(c, bn, bv[0], "bytes", "a bucket")) !=
                HS_OK ||
            (rc = hs_yaml_need(c, bn, bv[1], "ready", "a bucket")) != HS_OK)
            return rc;
        if ((rc = hs_yaml_get_bytes(c, bv[0], "bucket bytes",
                                    &p->buckets[k].bytes)) != HS_OK ||
            (rc = hs_yaml_get_time(c, bv[1], "bucket ready",
                                   &p->buckets[k].ready_ns)) != HS_OK)
            return rc;
    }
    return HS_OK;
}

/* batch_points: a list of {batch, t_dl, t_fwd, t_b1, t_bwd, t_opt}. */
static hs_err_t hs__get_points(hs_yaml_ctx_t *c, yaml_node_t *n,
                               hs_profile_t *p)
{
    static const char *const pkeys[] = {"batch", "t_dl",  "t_fwd", "t_b1",
                                        "t_bwd", "t_opt", NULL};
    char w[96];
    size_t k, cnt, j;
    hs_err_t rc;

    if (n->type != YAML_SEQUENCE_NODE)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "batch_points must be a list of {batch, t_dl, "
                            "t_fwd, t_b1, t_bwd, t_opt}");
    cnt = hs_yaml_len(n);
    p->points = calloc(cnt ? cnt : 1, sizeof *p->points);
    if (p->points == NULL)
        return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
    p->n_points = cnt;
    for (k = 0; k < cnt; k++) {
        hs_batch_point_t *q = &p->points[k];
        hs_dist_t *d[5];
        yaml_node_t *v[6], *en = hs_yaml_item(c, n, k);

        d[0] = &q->t_dl;
        d[1] = &q->t_fwd;
        d[2] = &q->t_b1;
        d[3] = &q->t_bwd;
        d[4] = &q->t_opt;
        snprintf(w, sizeof w, "batch_points[%zu]", k);
        if ((rc = hs_yaml_map(c, en, w, pkeys, v)) != HS_OK ||
            (rc = hs_yaml_need(c, en, v[0], "batch", w)) != HS_OK ||
            (rc = hs_yaml_need(c, en, v[2], "t_fwd", w)) != HS_OK ||
            (rc = hs_yaml_need(c, en, v[3], "t_b1", w)) != HS_OK)
            return rc;
        q->line = (unsigned long)en->start_mark.line + 1;
        q->col = (unsigned long)en->start_mark.column + 1;
        snprintf(w, sizeof w, "batch_points[%zu].batch", k);
        if ((rc = hs_yaml_get_u64(c, v[0], w, 1, UINT32_MAX, &q->batch)) !=
            HS_OK)
            return rc;
        if (k > 0 && q->batch <= p->points[k - 1].batch)
            return hs_yaml_fail(
                c, v[0], HS_ERR_SCHEMA,
                "batch_points[%zu]: batch %llu %s: the batches must be "
                "strictly increasing", k, (unsigned long long)q->batch,
                q->batch == p->points[k - 1].batch ? "appears twice"
                                                   : "comes after a larger "
                                                     "one");
        for (j = 0; j < 5; j++) {
            if (v[j + 1] == NULL)
                continue;
            snprintf(w, sizeof w, "batch_points[%zu].%s", k, pkeys[j + 1]);
            if ((rc = hs__get_dist(c, v[j + 1], w, d[j])) != HS_OK)
                return rc;
            if (d[j]->known && (d[j]->mean_ns < 0 || d[j]->sd_ns < 0))
                return hs_yaml_fail(c, v[j + 1], HS_ERR_RANGE,
                                    "%s must not be negative", w);
        }
    }
    return HS_OK;
}

/* Reads the value n of key k into p; `what` names it in messages (NULL:
   the key's own name). */
static hs_err_t hs__read_key(hs_yaml_ctx_t *c, const hs__key_t *k,
                             yaml_node_t *n, const char *what,
                             hs_profile_t *p)
{
    const char *w = what != NULL ? what : k->name;
    hs_err_t rc;
    uint32_t u;
    size_t i;

    switch (k->kind) {
    case HS__K_TYPE:
        if (hs_yaml_scalar(n) == NULL)
            return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                                "type must be a string");
        return HS_OK;
    case HS__K_STR:
        return hs_yaml_get_str(c, n, w, HS__FIELD(p, k, char *));
    case HS__K_SUBSYS:
    case HS__K_KEPT:
        rc = hs_yaml_get_u32(c, n, w, k->kind == HS__K_SUBSYS ? 2 : 0,
                             k->kind == HS__K_SUBSYS ? 1u << 30 : UINT32_MAX,
                             &u);
        if (rc == HS_OK)
            *HS__FIELD(p, k, unsigned) = u;
        return rc;
    case HS__K_MICRO:
        rc = hs_yaml_get_u32(c, n, w, 1, (uint32_t)HS_LIMIT_MICRO_BATCHES,
                             &u);
        if (rc == HS_OK)
            *HS__FIELD(p, k, uint32_t) = u;
        return rc;
    case HS__K_DIST:
        return hs__get_dist(c, n, w, HS__FIELD(p, k, hs_dist_t));
    case HS__K_OPS:
        return hs__get_ops(c, n, p);
    case HS__K_BYTES:
        return hs_yaml_get_bytes(c, n, w, HS__FIELD(p, k, uint64_t));
    case HS__K_ARSRC: {
        const char *s = hs_yaml_scalar(n);
        for (i = 0; s != NULL && i < 5; i++)
            if (strcmp(s, hs__ar_names[i]) == 0) {
                *HS__FIELD(p, k, hs_ar_source_t) = (hs_ar_source_t)i;
                return HS_OK;
            }
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "allreduce_source must be given, param_comms, "
                            "shapes, sidecar or gradient");
    }
    case HS__K_COMM: {
        double *x = HS__FIELD(p, k, double);
        if ((rc = hs_yaml_get_double(c, n, w, 0.0, x)) != HS_OK)
            return rc;
        if (*x > 1e6)
            return hs_yaml_fail(c, n, HS_ERR_RANGE,
                                "comm_ns_per_byte must be at most 1e6 (1 ms "
                                "per byte), not %g",
                                *x);
        return HS_OK;
    }
    case HS__K_CORES: {
        double *x = HS__FIELD(p, k, double);
        if ((rc = hs_yaml_get_double(c, n, w, 0.0, x)) != HS_OK)
            return rc;
        if (*x > 4096)
            return hs_yaml_fail(c, n, HS_ERR_RANGE,
                                "%s must be at most 4096 (cores), not %g", w,
                                *x);
        return HS_OK;
    }
    case HS__K_WAIT: {
        int64_t *x = HS__FIELD(p, k, int64_t);
        if ((rc = hs_yaml_get_time(c, n, w, x)) != HS_OK)
            return rc;
        if (*x < 0)
            return hs_yaml_fail(c, n, HS_ERR_RANGE,
                                "%s must not be negative", w);
        return HS_OK;
    }
    case HS__K_GRAD: {
        /* M, the gradient a device all-reduces per step; the ring of the
           n-device sub-system moved D = M 2(n-1)/n of it from each
           device (hs_profile_payload_bytes inverts this) */
        uint64_t m = 0;
        unsigned sn = p->subsys_n < 2 ? 2 : p->subsys_n;
        long double d;

        if ((rc = hs_yaml_get_bytes(c, n, w, &m)) != HS_OK)
            return rc;
        if (m == 0)
            return hs_yaml_fail(c, n, HS_ERR_RANGE,
                                "%s must be more than 0 bytes", w);
        d = (long double)m * 2.0L * (long double)(sn - 1) / (long double)sn;
        *HS__FIELD(p, k, uint64_t) = (uint64_t)(d + 0.5L);
        p->ar_source = HS_AR_GRADIENT;
        return HS_OK;
    }
    case HS__K_BUCKETS:
        return hs__get_buckets(c, n, p);
    case HS__K_POINTS:
        return hs__get_points(c, n, p);
    }
    return HS_OK;
}

hs_err_t hs_profile_parse(struct hs_yaml_ctx_s *c, struct yaml_node_s *n,
                          const char *what, hs_profile_t *p)
{
    const char *names[HS__NKEYS + 1];
    yaml_node_t *v[HS__NKEYS];
    hs_err_t rc;
    size_t i;

    for (i = 0; i < HS__NKEYS; i++)
        names[i] = hs__keys[i].name;
    names[HS__NKEYS] = NULL;
    if ((rc = hs_yaml_map(c, n, what, names, v)) != HS_OK)
        return rc;
    p->subsys_n = 2;
    p->ar_source = HS_AR_GIVEN;
    for (i = 0; i < HS__NKEYS; i++)
        if (v[i] != NULL) {
            p->key_line[i] = (unsigned long)v[i]->start_mark.line + 1;
            p->key_col[i] = (unsigned long)v[i]->start_mark.column + 1;
        }
    for (i = 0; i < HS__NKEYS; i++)
        if (v[i] != NULL &&
            (rc = hs__read_key(c, &hs__keys[i], v[i], NULL, p)) != HS_OK)
            return rc;
    if (!p->t_fwd.known)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "%s needs 't_fwd' (or 'fwd_ops')", what);
    if (!p->t_b1.known) {
        /* not measured: the ring may open as soon as the backward starts
           (the first bucket of a DDP backward is ready after its first
           operator, which a typed-in profile rarely knows) */
        p->t_b1.known = 1;
        p->t_b1.mean_ns = 0;
        if ((rc = hs_yaml_warn(c, "%s: t_b1 not given: taken as 0 (the "
                                  "all-reduce may start with the backward)",
                               what)) != HS_OK)
            return rc;
    }
    {
        yaml_node_t *ar = NULL, *grad = NULL;

        for (i = 0; i < HS__NKEYS; i++) {
            if (hs__keys[i].kind == HS__K_BYTES &&
                hs__keys[i].off == HS__OFF(ar_bytes))
                ar = v[i];
            if (hs__keys[i].kind == HS__K_GRAD)
                grad = v[i];
        }
        if (ar != NULL && grad != NULL)
            return hs_yaml_fail(c, grad, HS_ERR_SCHEMA,
                                "%s: give allreduce_bytes (D, measured in "
                                "the sub-system) or gradient_bytes (M, the "
                                "model's gradient), not both",
                                what);
        if (ar == NULL && grad == NULL)
            return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                                "%s needs 'allreduce_bytes' (D, bytes one "
                                "device sends per iteration in its "
                                "sub-system) or 'gradient_bytes' (M, the "
                                "model's gradient: parameters x bytes per "
                                "element)",
                                what);
    }
    return HS_OK;
}

int hs_profile_where(const hs_profile_t *p, const char *key,
                     unsigned long *line, unsigned long *col)
{
    size_t i;

    for (i = 0; i < HS__NKEYS; i++)
        if (strcmp(hs__keys[i].name, key) == 0) {
            if (p->key_line[i] == 0)
                return -1;
            *line = p->key_line[i];
            *col = p->key_col[i];
            return 0;
        }
    return -1;
}

hs_err_t hs_profile_set_key(struct hs_yaml_ctx_s *c, hs_profile_t *p,
                            const char *key, struct yaml_node_s *n,
                            const char *what)
{
    char list[256], hint[HS_SUGGEST_HINT_LEN];
    hs_suggest_t sg;
    size_t i, off = 0;

    for (i = 0; i < HS__NKEYS; i++)
        if (hs__keys[i].settable && strcmp(hs__keys[i].name, key) == 0) {
            hs_err_t rc = hs__read_key(c, &hs__keys[i], n, what, p);
            if (rc == HS_OK)
                p->key_line[i] = p->key_col[i] = 0; /* no longer read */
            return rc;
        }
    list[0] = '\0';
    hs_suggest_init(&sg, key);
    for (i = 0; i < HS__NKEYS && off < sizeof list; i++)
        if (hs__keys[i].settable) {
            off += (size_t)snprintf(list + off, sizeof list - off, "%s%s",
                                    off ? ", " : "", hs__keys[i].name);
            hs_suggest_add(&sg, hs__keys[i].name);
        }
    return hs_yaml_fail(c, NULL, HS_ERR_SCHEMA, "unknown key; valid: %s%s",
                        list, hs_suggest_hint(&sg, hint, sizeof hint));
}

/* The profile document in text (len bytes, named `name` in messages and
   in p->path) into *p: hs_profile_read_file's work once the bytes are in
   memory, shared by hs_profile_load_text. */
static hs_err_t hs__profile_read_text(const char *name, const char *text,
                                      size_t len, hs_profile_t *p,
                                      char ***warnings, size_t *n_warnings,
                                      hs_error_t *err)
{
    yaml_document_t doc;
    hs_yaml_ctx_t c;
    hs_err_t rc;

    rc = hs_yaml_load_doc(name, text, len, &doc, err);
    if (rc != HS_OK)
        return rc;
    memset(&c, 0, sizeof c);
    c.file = name;
    c.doc = &doc;
    c.err = err;
    c.warnings = warnings;
    c.n_warnings = n_warnings;
    rc = hs_profile_parse(&c, yaml_document_get_root_node(&doc),
                          "the profile", p);
    if (rc == HS_OK && (p->path = strdup(name)) == NULL)
        rc = hs_error_set(err, HS_ERR_NOMEM, name, 0, 0, "out of memory");
    yaml_document_delete(&doc);
    return rc;
}

hs_err_t hs_profile_read_file(const char *path, hs_profile_t *p,
                              char ***warnings, size_t *n_warnings,
                              hs_error_t *err)
{
    char *text = NULL;
    size_t len;
    hs_err_t rc;

    if ((rc = hs_file_read(path, &text, &len, err)) != HS_OK)
        return rc;
    rc = hs__profile_read_text(path, text, len, p, warnings, n_warnings, err);
    free(text);
    return rc;
}

hs_err_t hs_profile_load(const char *path, hs_profile_t *out,
                         hs_error_t *err)
{
    hs_err_t rc;

    memset(out, 0, sizeof *out);
    rc = hs_profile_read_file(path, out, NULL, NULL, err);
    if (rc != HS_OK)
        hs_profile_clear(out);
    return rc;
}

hs_err_t hs_profile_load_text(const char *text, size_t len, const char *name,
                              hs_profile_t *out, hs_error_t *err)
{
    hs_err_t rc;

    memset(out, 0, sizeof *out);
    rc = hs__profile_read_text(name, text, len, out, NULL, NULL, err);
    if (rc != HS_OK)
        hs_profile_clear(out);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Writing                                                               */

static int hs__dist_emit(yaml_emitter_t *em, const char *key,
                         const hs_dist_t *d)
{
    size_t i;

    if (!hs_yamlemit_scalar(em, key, YAML_PLAIN_SCALAR_STYLE))
        return 0;
    if (!d->known)
        return hs_yamlemit_scalar(em, "unknown", YAML_PLAIN_SCALAR_STYLE);
    if (!hs_yamlemit_map_start(em, 1) ||
        !hs_yamlemit_scalar(em, "mean", YAML_PLAIN_SCALAR_STYLE) ||
        !hs_yamlemit_time(em, d->mean_ns) ||
        !hs_yamlemit_scalar(em, "sd", YAML_PLAIN_SCALAR_STYLE) ||
        !hs_yamlemit_time(em, d->sd_ns))
        return 0;
    if (d->n_samples > 0) {
        if (!hs_yamlemit_scalar(em, "samples", YAML_PLAIN_SCALAR_STYLE) ||
            !hs_yamlemit_seq_start(em, 1))
            return 0;
        for (i = 0; i < d->n_samples; i++)
            if (!hs_yamlemit_time(em, d->samples_ns[i]))
                return 0;
        if (!hs_yamlemit_seq_end(em))
            return 0;
    }
    return hs_yamlemit_map_end(em);
}

static int hs__ops_emit(yaml_emitter_t *em, const char *key,
                        const hs_profile_t *p)
{
    size_t i;

    if (p->n_fwd_ops == 0)
        return 1;
    if (!hs_yamlemit_scalar(em, key, YAML_PLAIN_SCALAR_STYLE) ||
        !hs_yamlemit_seq_start(em, 0))
        return 0;
    for (i = 0; i < p->n_fwd_ops; i++) {
        if (!hs_yamlemit_map_start(em, 1))
            return 0;
        /* an empty name (a trace's operator may have one) is left out
           like a missing one: the reader takes no empty name */
        if (p->fwd_op_names != NULL && p->fwd_op_names[i] != NULL &&
            p->fwd_op_names[i][0] != '\0' &&
            (!hs_yamlemit_scalar(em, "name", YAML_PLAIN_SCALAR_STYLE) ||
             !hs_yamlemit_scalar(em, p->fwd_op_names[i],
                                 YAML_DOUBLE_QUOTED_SCALAR_STYLE)))
            return 0;
        if (!hs_yamlemit_scalar(em, "time", YAML_PLAIN_SCALAR_STYLE) ||
            !hs_yamlemit_time(em, p->fwd_ops_ns[i]) ||
            !hs_yamlemit_map_end(em))
            return 0;
    }
    return hs_yamlemit_seq_end(em);
}

static int hs__buckets_emit(yaml_emitter_t *em, const char *key,
                            const hs_profile_t *p)
{
    char b[64];
    size_t i;

    if (p->n_buckets == 0)
        return 1;
    if (!hs_yamlemit_scalar(em, key, YAML_PLAIN_SCALAR_STYLE) ||
        !hs_yamlemit_seq_start(em, 0))
        return 0;
    for (i = 0; i < p->n_buckets; i++) {
        snprintf(b, sizeof b, "%" PRIu64 "B", p->buckets[i].bytes);
        if (!hs_yamlemit_map_start(em, 1) || !hs_yamlemit_kv(em, "bytes", b) ||
            !hs_yamlemit_scalar(em, "ready", YAML_PLAIN_SCALAR_STYLE) ||
            !hs_yamlemit_time(em, p->buckets[i].ready_ns) ||
            !hs_yamlemit_map_end(em))
            return 0;
    }
    return hs_yamlemit_seq_end(em);
}

static int hs__points_emit(yaml_emitter_t *em, const char *key,
                           const hs_profile_t *p)
{
    char b[32];
    size_t i;

    if (p->n_points == 0)
        return 1;
    if (!hs_yamlemit_scalar(em, key, YAML_PLAIN_SCALAR_STYLE) ||
        !hs_yamlemit_seq_start(em, 0))
        return 0;
    for (i = 0; i < p->n_points; i++) {
        const hs_batch_point_t *q = &p->points[i];

        snprintf(b, sizeof b, "%llu", (unsigned long long)q->batch);
        if (!hs_yamlemit_map_start(em, 0) || !hs_yamlemit_kv(em, "batch", b) ||
            !hs__dist_emit(em, "t_dl", &q->t_dl) ||
            !hs__dist_emit(em, "t_fwd", &q->t_fwd) ||
            !hs__dist_emit(em, "t_b1", &q->t_b1) ||
            !hs__dist_emit(em, "t_bwd", &q->t_bwd) ||
            !hs__dist_emit(em, "t_opt", &q->t_opt) ||
            !hs_yamlemit_map_end(em))
            return 0;
    }
    return hs_yamlemit_seq_end(em);
}

/* Emits key k of p (or nothing where the format leaves it out). */
static int hs__write_key(yaml_emitter_t *em, const hs__key_t *k,
                         const hs_profile_t *p, const hs_profile_info_t *info)
{
    char b[64];
    unsigned u;

    switch (k->kind) {
    case HS__K_TYPE:
        if (info == NULL || info->type == NULL)
            return 1;
        return hs_yamlemit_scalar(em, k->name, YAML_PLAIN_SCALAR_STYLE) &&
               hs_yamlemit_scalar(em, info->type, YAML_ANY_SCALAR_STYLE);
    case HS__K_STR: {
        const char *s = *HS__CFIELD(p, k, char *);
        if (s == NULL)
            return 1;
        return hs_yamlemit_scalar(em, k->name, YAML_PLAIN_SCALAR_STYLE) &&
               hs_yamlemit_scalar(em, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    }
    case HS__K_SUBSYS:
    case HS__K_KEPT:
        u = *HS__CFIELD(p, k, unsigned);
        if (k->kind == HS__K_KEPT && u == 0)
            return 1;
        snprintf(b, sizeof b, "%u", u);
        return hs_yamlemit_kv(em, k->name, b);
    case HS__K_MICRO:
        u = *HS__CFIELD(p, k, uint32_t);
        if (u <= 1)
            return 1;
        snprintf(b, sizeof b, "%u", u);
        return hs_yamlemit_kv(em, k->name, b);
    case HS__K_DIST:
        return hs__dist_emit(em, k->name, HS__CFIELD(p, k, hs_dist_t));
    case HS__K_OPS:
        return hs__ops_emit(em, k->name, p);
    case HS__K_BYTES:
        snprintf(b, sizeof b, "%" PRIu64 "B", *HS__CFIELD(p, k, uint64_t));
        return hs_yamlemit_kv(em, k->name, b);
    case HS__K_ARSRC: {
        hs_ar_source_t a = *HS__CFIELD(p, k, hs_ar_source_t);
        return hs_yamlemit_kv(em, k->name,
                              hs_ar_source_name(a));
    }
    case HS__K_COMM:
    case HS__K_CORES: {
        double x = *HS__CFIELD(p, k, double);
        if (!(x > 0))
            return 1;
        snprintf(b, sizeof b, "%.4g", x);
        return hs_yamlemit_kv(em, k->name, b);
    }
    case HS__K_WAIT: {
        int64_t x = *HS__CFIELD(p, k, int64_t);
        if (x <= 0)
            return 1;
        return hs_yamlemit_scalar(em, k->name, YAML_PLAIN_SCALAR_STYLE) &&
               hs_yamlemit_time(em, x);
    }
    case HS__K_BUCKETS:
        return hs__buckets_emit(em, k->name, p);
    case HS__K_GRAD:
        return 1;   /* written as allreduce_bytes (D), source gradient */
    case HS__K_POINTS:
        return hs__points_emit(em, k->name, p);
    }
    return 1;
}

hs_err_t hs_profile_write(const hs_profile_t *p, const char *path,
                          const hs_profile_info_t *info, hs_error_t *err)
{
    const char *comment =
        info != NULL && info->comment != NULL ? info->comment
                                              : "hetsim profile";
    hs_atomic_t af;
    yaml_emitter_t em;
    size_t i;
    int ok;
    hs_err_t rc;

    if ((rc = hs_atomic_open(&af, path, err)) != HS_OK)
        return rc;
    fprintf(af.f, "# %s\n", comment);
    if (!hs_yamlemit_init_file(&em, af.f, 100)) {
        hs_atomic_abort(&af);
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    }
    ok = hs_yamlemit_begin(&em) && hs_yamlemit_map_start(&em, 0);
    for (i = 0; ok && i < HS__NKEYS; i++)
        ok = hs__write_key(&em, &hs__keys[i], p, info);
    ok = ok && hs_yamlemit_map_end(&em) && hs_yamlemit_end(&em);
    yaml_emitter_delete(&em);
    if (!ok) {
        hs_atomic_abort(&af);
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "cannot write: emitter error");
    }
    return hs_atomic_commit(&af, err);
}

/* ------------------------------------------------------------------ */
/* Copying                                                               */

static int hs__dist_copy(hs_dist_t *dst, const hs_dist_t *src)
{
    *dst = *src;
    dst->samples_ns = NULL;
    if (src->n_samples == 0)
        return 0;
    dst->samples_ns = malloc(src->n_samples * sizeof *dst->samples_ns);
    if (dst->samples_ns == NULL)
        return -1;
    memcpy(dst->samples_ns, src->samples_ns,
           src->n_samples * sizeof *dst->samples_ns);
    return 0;
}

static char *hs__strdup0(const char *s, int *bad)
{
    char *d;

    if (s == NULL)
        return NULL;
    if ((d = strdup(s)) == NULL)
        *bad = 1;
    return d;
}

int hs_profile_copy(hs_profile_t *dst, const hs_profile_t *src)
{
    int bad = 0;
    size_t i;

    *dst = *src;
    dst->t_dl.samples_ns = dst->t_fwd.samples_ns = dst->t_b1.samples_ns =
        dst->t_bwd.samples_ns = dst->t_opt.samples_ns = NULL;
    dst->fwd_ops_ns = NULL;
    dst->fwd_op_names = NULL;
    dst->buckets = NULL;
    dst->points = NULL;
    dst->n_points = 0;
    dst->source = dst->path = NULL;
    bad |= hs__dist_copy(&dst->t_dl, &src->t_dl) != 0;
    bad |= hs__dist_copy(&dst->t_fwd, &src->t_fwd) != 0;
    bad |= hs__dist_copy(&dst->t_b1, &src->t_b1) != 0;
    bad |= hs__dist_copy(&dst->t_bwd, &src->t_bwd) != 0;
    bad |= hs__dist_copy(&dst->t_opt, &src->t_opt) != 0;
    if (src->fwd_ops_ns != NULL) {
        dst->fwd_ops_ns = calloc(src->n_fwd_ops ? src->n_fwd_ops : 1,
                                 sizeof *dst->fwd_ops_ns);
        if (dst->fwd_ops_ns == NULL)
            bad = 1;
        else
            memcpy(dst->fwd_ops_ns, src->fwd_ops_ns,
                   src->n_fwd_ops * sizeof *dst->fwd_ops_ns);
    }
    if (src->fwd_op_names != NULL) {
        dst->fwd_op_names = calloc(src->n_fwd_ops ? src->n_fwd_ops : 1,
                                   sizeof *dst->fwd_op_names);
        if (dst->fwd_op_names == NULL)
            bad = 1;
        for (i = 0; dst->fwd_op_names != NULL && i < src->n_fwd_ops; i++)
            dst->fwd_op_names[i] = hs__strdup0(src->fwd_op_names[i], &bad);
    }
    if (src->buckets != NULL) {
        dst->buckets = calloc(src->n_buckets ? src->n_buckets : 1,
                              sizeof *dst->buckets);
        if (dst->buckets == NULL)
            bad = 1;
        else
            memcpy(dst->buckets, src->buckets,
                   src->n_buckets * sizeof *dst->buckets);
    }
    if (src->points != NULL && src->n_points > 0) {
        dst->points = calloc(src->n_points, sizeof *dst->points);
        if (dst->points == NULL)
            bad = 1;
        else
            dst->n_points = src->n_points;
        for (i = 0; dst->points != NULL && i < src->n_points; i++) {
            const hs_batch_point_t *q = &src->points[i];
            hs_batch_point_t *r = &dst->points[i];

            r->batch = q->batch;
            r->line = q->line;
            r->col = q->col;
            bad |= hs__dist_copy(&r->t_dl, &q->t_dl) != 0;
            bad |= hs__dist_copy(&r->t_fwd, &q->t_fwd) != 0;
            bad |= hs__dist_copy(&r->t_b1, &q->t_b1) != 0;
            bad |= hs__dist_copy(&r->t_bwd, &q->t_bwd) != 0;
            bad |= hs__dist_copy(&r->t_opt, &q->t_opt) != 0;
        }
    }
    dst->source = hs__strdup0(src->source, &bad);
    dst->path = hs__strdup0(src->path, &bad);
    if (bad) {
        hs_profile_clear(dst);
        return -1;
    }
    return 0;
}
