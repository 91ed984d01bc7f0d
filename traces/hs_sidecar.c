/*
 * hs_sidecar.c -- the profiling harness's sidecar JSON (hs_sidecar.h).
 * A sidecar is a few hundred bytes, so it is read whole with yajl_tree.
 */
#include "hs_sidecar.h"
#include "hs_checked.h"
#include "hs_jcheck.h"
#include "hs_limits.h"
#include "hs_file.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

/* "FILE: key: what" (key NULL: "FILE: what"), HS_ERR_SCHEMA. */
static hs_err_t hs__sc_bad(const char *path, hs_error_t *err,
                           const char *key, const char *what)
{
    if (key == NULL)
        return hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0, "%s", what);
    return hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0, "%s: %s", key, what);
}

/* "FILE: key[i]: what" for an element of a list. */
static hs_err_t hs__sc_bad_at(const char *path, hs_error_t *err,
                              const char *key, size_t i, const char *what)
{
    return hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0, "%s[%zu]: %s", key,
                        i, what);
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
                            hs_sidecar_t *out, hs_error_t *err)
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
        return hs__sc_bad(path, err, "comm_probe", "must be an object with "
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

static int hs__cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The median of the non-negative integers in the JSON list v (n >= 1):
   0 ok, -1 an element is not one, -2 out of memory. */
static int hs__sc_median(yajl_val v, int64_t *out)
{
    size_t n = YAJL_GET_ARRAY(v)->len, i;
    int64_t *x = malloc(n * sizeof *x);

    if (x == NULL)
        return -2;
    for (i = 0; i < n; i++) {
        yajl_val e = YAJL_GET_ARRAY(v)->values[i];
        if (!YAJL_IS_INTEGER(e) || YAJL_GET_INTEGER(e) < 0) {
            free(x);
            return -1;
        }
        x[i] = (int64_t)YAJL_GET_INTEGER(e);
    }
    qsort(x, n, sizeof *x, hs__cmp_i64);
    *out = n % 2 ? x[n / 2] : x[n / 2 - 1] + (x[n / 2] - x[n / 2 - 1]) / 2;
    free(x);
    return 0;
}

/* The harness's "hop_probe" (the hop wait, docs/method.md): per trial an
   all-reduce of the first bucket idle ("idle_ns") and the same beside the
   backward ("beside_ns"), pooled over the ranks, and the ring's "hops".
   The wait per hop while the receiver computes: (median beside - median
   idle) / hops, 0 when negative.  Absent or null: hop_wait_ns = -1.  Also
   "hop_probe_skipped": why the harness did not run it (a string). */
static hs_err_t hs__sc_hop(const char *path, yajl_val root,
                           hs_sidecar_t *out, hs_error_t *err)
{
    static const char *const what =
        "must be an object with a positive integer hops and two non-empty "
        "lists idle_ns and beside_ns of the same length of non-negative "
        "integers (ns)";
    const char *pp[2] = {"hop_probe", NULL}, *pi[2] = {"idle_ns", NULL},
               *pb[2] = {"beside_ns", NULL},
               *ps[2] = {"hop_probe_skipped", NULL};
    yajl_val probe = yajl_tree_get(root, pp, yajl_t_any), vi, vb;
    yajl_val skipped = yajl_tree_get(root, ps, yajl_t_any);
    uint64_t hops = 0;
    int ri, rb;

    out->hop_wait_ns = -1;
    if (skipped != NULL && !YAJL_IS_NULL(skipped)) {
        if (!YAJL_IS_STRING(skipped))
            return hs__sc_bad(path, err, "hop_probe_skipped",
                              "must be a string or null");
        snprintf(out->hop_skipped, sizeof out->hop_skipped, "%s",
                 YAJL_GET_STRING(skipped));
    }
    if (probe == NULL || YAJL_IS_NULL(probe))
        return HS_OK;
    if (!YAJL_IS_OBJECT(probe) || hs__sc_u64(probe, "hops", 0, &hops) != 1 ||
        hops == 0 || hops > UINT_MAX)
        return hs__sc_bad(path, err, "hop_probe", what);
    vi = yajl_tree_get(probe, pi, yajl_t_array);
    vb = yajl_tree_get(probe, pb, yajl_t_array);
    if (vi == NULL || vb == NULL || YAJL_GET_ARRAY(vi)->len == 0 ||
        YAJL_GET_ARRAY(vi)->len != YAJL_GET_ARRAY(vb)->len ||
        YAJL_GET_ARRAY(vi)->len > UINT_MAX)
        return hs__sc_bad(path, err, "hop_probe", what);
    ri = hs__sc_median(vi, &out->hop_idle_ns);
    rb = ri == 0 ? hs__sc_median(vb, &out->hop_beside_ns) : 0;
    if (ri == -2 || rb == -2)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    if (ri < 0 || rb < 0)
        return hs__sc_bad(path, err, "hop_probe", what);
    out->hop_hops = (unsigned)hops;
    out->hop_n = (unsigned)YAJL_GET_ARRAY(vi)->len;
    out->hop_wait_ns = out->hop_beside_ns > out->hop_idle_ns
                           ? (out->hop_beside_ns - out->hop_idle_ns) /
                                 (int64_t)hops
                           : 0;
    return HS_OK;
}

/* The harness's "cpu_quota": {"cores": q > 0, "period_ns": P > 0, ...}
   (the tightest limit of the rank's cgroup and those above it), or null
   when it had none or could not read it. */
static hs_err_t hs__sc_quota(const char *path, yajl_val root,
                             hs_sidecar_t *out, hs_error_t *err)
{
    const char *pq[2] = {"cpu_quota", NULL}, *pc[2] = {"cores", NULL};
    yajl_val q = yajl_tree_get(root, pq, yajl_t_any), c;
    uint64_t period = 0;

    out->cpu_quota_cores = 0;
    out->cpu_period_ns = 0;
    if (q == NULL || YAJL_IS_NULL(q))
        return HS_OK;
    c = YAJL_IS_OBJECT(q) ? yajl_tree_get(q, pc, yajl_t_any) : NULL;
    if (c == NULL || !YAJL_IS_NUMBER(c) || !(YAJL_GET_DOUBLE(c) > 0) ||
        YAJL_GET_DOUBLE(c) > 4096 ||
        hs__sc_u64(q, "period_ns", 0, &period) != 1 || period == 0 ||
        period > (uint64_t)INT64_MAX)
        return hs__sc_bad(path, err, "cpu_quota",
                          "must be null or an object with a number cores in "
                          "(0, 4096] and a positive integer period_ns");
    out->cpu_quota_cores = YAJL_GET_DOUBLE(c);
    out->cpu_period_ns = (int64_t)period;
    return HS_OK;
}

static double hs__sc_num(yajl_val obj, const char *key)
{
    const char *path[2] = {key, NULL};
    yajl_val v = yajl_tree_get(obj, path, yajl_t_any);

    return v != NULL && YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : -1.0;
}

/* "alone", "plain" and "rank_use" (the harness's runs without the
   profiler); all optional. */
static hs_err_t hs__sc_plain(const char *path, yajl_val root,
                             hs_sidecar_t *out, hs_error_t *err)
{
    static const char *const keys[4] = {"t_dl_ns", "t_fwd_ns", "t_bwd_ns",
                                        "t_opt_ns"};
    const char *pa[2] = {"alone", NULL}, *pp[2] = {"plain", NULL},
               *pu[2] = {"rank_use", NULL};
    yajl_val v = yajl_tree_get(root, pa, yajl_t_any);
    size_t k, i, n = SIZE_MAX;

    out->alone = v != NULL && YAJL_IS_TRUE(v);
    v = yajl_tree_get(root, pp, yajl_t_object);
    for (k = 0; v != NULL && k < 4; k++) {
        const char *p2[2] = {keys[k], NULL};
        yajl_val a = yajl_tree_get(v, p2, yajl_t_array);
        if (a == NULL)
            return hs__sc_bad(path, err, "plain",
                              "must hold the lists t_dl_ns, t_fwd_ns, "
                              "t_bwd_ns and t_opt_ns");
        if (n != SIZE_MAX && YAJL_GET_ARRAY(a)->len != n)
            return hs__sc_bad(path, err, "plain",
                              "its lists differ in length");
        n = YAJL_GET_ARRAY(a)->len;
        out->plain_ns[k] = calloc(n ? n : 1, sizeof *out->plain_ns[k]);
        if (out->plain_ns[k] == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                                "out of memory");
        for (i = 0; i < n; i++) {
            yajl_val e = YAJL_GET_ARRAY(a)->values[i];
            if (!YAJL_IS_INTEGER(e) || YAJL_GET_INTEGER(e) < 0)
                return hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0,
                                    "plain.%s[%zu]: must be a non-negative "
                                    "integer (ns)", keys[k], i);
            out->plain_ns[k][i] = (int64_t)YAJL_GET_INTEGER(e);
        }
    }
    out->n_plain = v != NULL ? n : 0;
    v = yajl_tree_get(root, pu, yajl_t_array);
    if (v == NULL)
        return HS_OK;
    out->use = calloc(YAJL_GET_ARRAY(v)->len + 1, sizeof *out->use);
    if (out->use == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    for (i = 0; i < YAJL_GET_ARRAY(v)->len; i++) {
        yajl_val e = YAJL_GET_ARRAY(v)->values[i];
        struct hs_sidecar_use_s *u = &out->use[out->n_use];
        double rank, steps;
        static const char *const tk[4] = {"compute_mean_ns",
                                          "compute_sd_ns",
                                          "compute_median_ns",
                                          "compute_max_ns"};
        int64_t *tv[4];
        int k;

        if (!YAJL_IS_OBJECT(e) || hs__sc_num(e, "steps") < 1)
            continue;
        /* every number narrowed to an integer is checked first: a double
           past the target's range is undefined behaviour, not a value */
        rank = hs__sc_num(e, "rank");
        steps = hs__sc_num(e, "steps");
        if (!(rank >= -1 && rank < HS_LIMIT_DEVICES) ||
            !(steps <= HS_LIMIT_STEPS))
            return hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0,
                                "rank_use[%zu]: rank must be below %" PRIu32
                                " and steps at most %" PRIu32, i,
                                HS_LIMIT_DEVICES, HS_LIMIT_STEPS);
        u->rank = (long)rank;
        u->steps = (unsigned)steps;
        u->cpu_mean = hs__sc_num(e, "cpu_share_mean");
        u->cpu_min = hs__sc_num(e, "cpu_share_min");
        u->cpu_max = hs__sc_num(e, "cpu_share_max");
        tv[0] = &u->compute_mean_ns;
        tv[1] = &u->compute_sd_ns;
        tv[2] = &u->compute_median_ns;
        tv[3] = &u->compute_max_ns;
        for (k = 0; k < 4; k++) {
            double x = hs__sc_num(e, tk[k]);
            if (x < 0) {
                *tv[k] = -1;    /* absent, as before */
                continue;
            }
            if (x > (double)HS_LIMIT_TIME_NS ||
                hs_checked_dbl_to_i64(x, tv[k]) != 0)
                return hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0,
                                    "rank_use[%zu]: %s: %g is past the "
                                    "limit of %" PRId64 " ns", i, tk[k], x,
                                    (int64_t)HS_LIMIT_TIME_NS);
        }
        out->n_use++;
    }
    return HS_OK;
}

/* Reads path and parses it into *root (the caller frees it with
   yajl_tree_free); depth, duplicate keys and NUL bytes are checked first.
   Fills err and leaves *root NULL on failure. */
static hs_err_t hs__sc_parse(const char *path, yajl_val *root,
                             hs_error_t *err)
{
    char *text = NULL, ebuf[256];
    size_t len = 0, i;
    hs_err_t rc;

    *root = NULL;
    if ((rc = hs_file_read(path, &text, &len, err)) != HS_OK)
        return rc;
    if (len == 0) {
        free(text);
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "the sidecar is empty");
    }
    /* depth, duplicate keys and NUL bytes first: the tree parse recurses
       per level and keeps the first of two equal keys */
    if ((rc = hs_json_check(path, text, len, err)) != HS_OK) {
        free(text);
        return rc;
    }
    *root = yajl_tree_parse(text, ebuf, sizeof ebuf);
    free(text);
    if (*root == NULL) {
        for (i = 0; ebuf[i] != '\0'; i++)
            if (ebuf[i] == '\n')
                ebuf[i] = ' ';
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "invalid JSON: %s", ebuf);
    }
    return HS_OK;
}

/* Checks the sidecar's header: an object with "hetsim_sidecar": 1, a
   world_size within the limit (into out->world_size), a valid rank and
   string info fields. Fills err on a bad one. */
static hs_err_t hs__sc_header(const char *path, yajl_val root,
                              hs_sidecar_t *out, hs_error_t *err)
{
    static const char *const info[] = {"device_type", "backend", "torch",
                                       NULL};
    uint64_t u;
    size_t i;
    yajl_val v;

    if (!YAJL_IS_OBJECT(root))
        return hs__sc_bad(path, err, NULL, "the sidecar must be a JSON object");
    if (hs__sc_u64(root, "hetsim_sidecar", 0, &u) != 1 || u != 1)
        return hs__sc_bad(path, err, "hetsim_sidecar", "not a hetsim sidecar: "
                                     "\"hetsim_sidecar\": 1 is missing");
    switch (hs__sc_u64(root, "world_size", 0, &u)) {
    case 0:
        return hs__sc_bad(path, err, "world_size",
                          "missing: the sidecar needs it");
    case -1:
        return hs__sc_bad(path, err, "world_size",
                          "must be a positive integer");
    }
    if (u < 1)
        return hs__sc_bad(path, err, "world_size",
                          "must be a positive integer");
    if (u > HS_LIMIT_DEVICES) {
        char m[96];
        snprintf(m, sizeof m, "%" PRIu64 " is past the limit of %" PRIu32
                 " ranks", u, HS_LIMIT_DEVICES);
        return hs__sc_bad(path, err, "world_size", m);
    }
    out->world_size = (long)u;
    if (hs__sc_u64(root, "rank", 0, &u) < 0)
        return hs__sc_bad(path, err, "rank", "must be a non-negative integer");
    for (i = 0; info[i] != NULL; i++) {
        const char *p2[2] = {info[i], NULL};
        v = yajl_tree_get(root, p2, yajl_t_any);
        if (v != NULL && !YAJL_IS_STRING(v))
            return hs__sc_bad(path, err, info[i], "must be a string");
    }
    return HS_OK;
}

/* Reads grad_bytes and bucket_bytes into out (out owns bucket_bytes); the
   buckets must add up to grad_bytes, which defaults to their sum. Fills
   err when either is bad or both are missing. */
static hs_err_t hs__sc_grad(const char *path, yajl_val root,
                            hs_sidecar_t *out, hs_error_t *err)
{
    const char *p2[2] = {"bucket_bytes", NULL};
    int have_grad;
    size_t i;
    yajl_val v;

    have_grad = hs__sc_u64(root, "grad_bytes", 0, &out->grad_bytes);
    if (have_grad < 0)
        return hs__sc_bad(path, err, "grad_bytes", "must be a non-negative "
                                     "integer (bytes)");
    v = yajl_tree_get(root, p2, yajl_t_any);
    if (v != NULL) {
        uint64_t sum = 0;
        if (!YAJL_IS_ARRAY(v))
            return hs__sc_bad(path, err, "bucket_bytes", "must be a list of "
                                         "integers (bytes)");
        out->n_buckets = YAJL_GET_ARRAY(v)->len;
        out->bucket_bytes = calloc(out->n_buckets ? out->n_buckets : 1,
                                   sizeof *out->bucket_bytes);
        if (out->bucket_bytes == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                                "out of memory");
        for (i = 0; i < out->n_buckets; i++) {
            yajl_val e = YAJL_GET_ARRAY(v)->values[i];
            if (!YAJL_IS_INTEGER(e) || YAJL_GET_INTEGER(e) < 0)
                return hs__sc_bad_at(path, err, "bucket_bytes", i,
                                     "must be a "
                                     "non-negative integer (bytes)");
            out->bucket_bytes[i] = (uint64_t)YAJL_GET_INTEGER(e);
            sum += out->bucket_bytes[i];
        }
        if (have_grad == 0) {
            out->grad_bytes = sum;
            have_grad = 1;
        } else if (sum != out->grad_bytes && out->n_buckets > 0) {
            return hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0,
                                "bucket_bytes: add up to %" PRIu64
                                " bytes, grad_bytes says %" PRIu64,
                                sum, out->grad_bytes);
        }
    }
    if (have_grad == 0)
        return hs__sc_bad(path, err, "grad_bytes", "missing: the sidecar "
                                     "needs \"grad_bytes\" or "
                                     "\"bucket_bytes\"");
    return HS_OK;
}

/* Reads the optional "buckets" list (bytes and ready_ns of each, -1 when
   not measured) into out, which owns ready_ns and ready_bytes. Fills err
   on a bad entry. */
static hs_err_t hs__sc_ready(const char *path, yajl_val root,
                             hs_sidecar_t *out, hs_error_t *err)
{
    const char *p2[2] = {"buckets", NULL};
    size_t i;
    uint64_t u;
    yajl_val v = yajl_tree_get(root, p2, yajl_t_any);

    if (v == NULL || YAJL_IS_NULL(v))
        return HS_OK;
    if (!YAJL_IS_ARRAY(v))
        return hs__sc_bad(path, err, "buckets", "must be a list of objects");
    out->n_ready = YAJL_GET_ARRAY(v)->len;
    out->ready_ns = calloc(out->n_ready ? out->n_ready : 1,
                           sizeof *out->ready_ns);
    out->ready_bytes = calloc(out->n_ready ? out->n_ready : 1,
                              sizeof *out->ready_bytes);
    if (out->ready_ns == NULL || out->ready_bytes == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    for (i = 0; i < out->n_ready; i++) {
        yajl_val e = YAJL_GET_ARRAY(v)->values[i];
        int rb, rr;
        if (!YAJL_IS_OBJECT(e))
            return hs__sc_bad_at(path, err, "buckets", i,
                                 "must be an object");
        out->ready_ns[i] = -1;      /* null: not measured */
        rb = hs__sc_u64(e, "bytes", 0, &out->ready_bytes[i]);
        rr = hs__sc_u64(e, "ready_ns", 1, &u);
        if (rb < 0 || rr < 0)
            return hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0,
                                "buckets[%zu].%s: must be a non-negative "
                                "integer", i, rb < 0 ? "bytes" : "ready_ns");
        if (rr == 1)
            out->ready_ns[i] = (int64_t)u;
    }
    return HS_OK;
}

/* Reads the optional "comm" mode ("after" sets out->comm_after). Fills
   err when it is not a string. */
static hs_err_t hs__sc_comm_mode(const char *path, yajl_val root,
                                 hs_sidecar_t *out, hs_error_t *err)
{
    const char *p2[2] = {"comm", NULL};
    yajl_val v = yajl_tree_get(root, p2, yajl_t_any);

    if (v != NULL && !YAJL_IS_STRING(v))
        return hs__sc_bad(path, err, "comm", "must be \"after\" or "
                                     "\"overlap\"");
    if (v != NULL) {
        const char *cm = YAJL_GET_STRING(v);
        out->comm_after = cm != NULL && strcmp(cm, "after") == 0;
    }
    return HS_OK;
}

hs_err_t hs_sidecar_load(const char *path, hs_sidecar_t *out,
                         hs_error_t *err)
{
    yajl_val root = NULL;
    hs_err_t rc = HS_OK;

    memset(out, 0, sizeof *out);
    if ((rc = hs__sc_parse(path, &root, err)) != HS_OK)
        return rc;
    if ((rc = hs__sc_header(path, root, out, err)) != HS_OK)
        goto done;
    if ((rc = hs__sc_grad(path, root, out, err)) != HS_OK)
        goto done;
    if ((rc = hs__sc_ready(path, root, out, err)) != HS_OK)
        goto done;
    if ((rc = hs__sc_comm_mode(path, root, out, err)) != HS_OK)
        goto done;
    if ((rc = hs__sc_comm(path, root, out, err)) != HS_OK)
        goto done;
    if ((rc = hs__sc_quota(path, root, out, err)) != HS_OK)
        goto done;
    if ((rc = hs__sc_hop(path, root, out, err)) != HS_OK)
        goto done;
    if ((rc = hs__sc_plain(path, root, out, err)) != HS_OK)
        goto done;
    out->loaded = 1;
done:
    yajl_tree_free(root);
    if (rc != HS_OK)
        hs_sidecar_clear(out);
    return rc;
}

void hs_sidecar_clear(hs_sidecar_t *sc)
{
    if (sc == NULL)
        return;
    free(sc->bucket_bytes);
    free(sc->ready_ns);
    free(sc->ready_bytes);
    free(sc->plain_ns[0]);
    free(sc->plain_ns[1]);
    free(sc->plain_ns[2]);
    free(sc->plain_ns[3]);
    free(sc->use);
    memset(sc, 0, sizeof *sc);
}

