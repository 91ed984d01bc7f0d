/*
 * hs_scenario.c -- reading scenario and profile YAML files (hs_scenario.h).
 *
 * The file is loaded with libyaml's document API; every node keeps its
 * start mark, so each error names "file:line:col".  The walk is strict: a
 * key the schema does not know, a value of the wrong type, a quantity
 * without its unit, a duplicate name -- each is an error, never a silent
 * default, because a what-if study built on a typo is worse than no answer.
 *
 * Resolution happens here too, so that every consumer (closed form, replay,
 * profiling) sees the same cluster:
 *   - devices come from an explicit list or are generated from the type
 *     counts ("<type>-<i>", address = name);
 *   - the ring is the listing order, an explicit permutation of names, or
 *     "grouped" / "interleave";
 *   - each ring edge ring[k] -> ring[k+1] gets its bandwidth from, in order:
 *     a pair row (by device name or address, either direction; the exact
 *     direction wins), a type-pair row, the default.  A ring edge with none
 *     is an error.  Only ring edges are stored: O(N) memory, no N x N table.
 * Name lookups use one open-addressing hash (FNV-1a), built only when the
 * scenario names devices (explicit ring, link rows, stragglers).
 */
#include "hs_scenario.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "hs_file.h"
#include "hs_units.h"

extern const char hs_default_scenario_yaml[];
extern const size_t hs_default_scenario_len;

/* ------------------------------------------------------------------ */
/* Walking context                                                       */

typedef struct hs__ctx_s {
    const char *file;       /* name for messages */
    const char *base_dir;   /* for relative paths, may be NULL */
    yaml_document_t *doc;
    hs_error_t *err;
    hs_scenario_t *s;
} hs__ctx_t;

static hs_err_t hs__fail(hs__ctx_t *c, const yaml_node_t *n, hs_err_t code,
                         const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static hs_err_t hs__fail(hs__ctx_t *c, const yaml_node_t *n, hs_err_t code,
                         const char *fmt, ...)
{
    char msg[HS_ERRMSG_LEN];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n != NULL)
        return hs_error_set(c->err, code, c->file,
                            (unsigned long)n->start_mark.line + 1,
                            (unsigned long)n->start_mark.column + 1, "%s",
                            msg);
    return hs_error_set(c->err, code, c->file, 0, 0, "%s", msg);
}

static yaml_node_t *hs__node(hs__ctx_t *c, int id)
{
    return yaml_document_get_node(c->doc, id);
}

static const char *hs__scalar(const yaml_node_t *n)
{
    return n != NULL && n->type == YAML_SCALAR_NODE
               ? (const char *)n->data.scalar.value
               : NULL;
}

static const char *hs__kind(const yaml_node_t *n)
{
    if (n == NULL)
        return "nothing";
    switch (n->type) {
    case YAML_SCALAR_NODE: return "a scalar";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

static int hs__is_null(const yaml_node_t *n)
{
    const char *v = hs__scalar(n);

    return v != NULL && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0);
}

/*
 * Checks that n is a mapping whose keys are scalars from `allowed`, each at
 * most once.  On success fills vals[i] with the value node of allowed[i] or
 * NULL.  `what` names the mapping in messages.
 */
static hs_err_t hs__map(hs__ctx_t *c, yaml_node_t *n, const char *what,
                        const char *const *allowed, yaml_node_t **vals)
{
    yaml_node_pair_t *p;
    size_t i, na = 0;

    while (allowed[na] != NULL)
        na++;
    for (i = 0; i < na; i++)
        vals[i] = NULL;
    if (n == NULL || n->type != YAML_MAPPING_NODE)
        return hs__fail(c, n, HS_ERR_SCHEMA, "%s must be a mapping, not %s",
                        what, hs__kind(n));
    for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = hs__node(c, p->key);
        const char *key = hs__scalar(k);
        size_t j;

        if (key == NULL)
            return hs__fail(c, k, HS_ERR_SCHEMA,
                            "keys of %s must be plain names", what);
        for (j = 0; j < na; j++)
            if (strcmp(key, allowed[j]) == 0)
                break;
        if (j == na) {
            char list[512];
            size_t off = 0;
            for (i = 0; i < na && off < sizeof list; i++)
                off += (size_t)snprintf(list + off, sizeof list - off,
                                        "%s%s", i ? ", " : "", allowed[i]);
            return hs__fail(c, k, HS_ERR_SCHEMA,
                            "unknown key '%s' in %s (known: %s)", key, what,
                            list);
        }
        if (vals[j] != NULL)
            return hs__fail(c, k, HS_ERR_SCHEMA, "duplicate key '%s' in %s",
                            key, what);
        vals[j] = hs__node(c, p->value);
    }
    return HS_OK;
}

static hs_err_t hs__need(hs__ctx_t *c, yaml_node_t *parent,
                         yaml_node_t *val, const char *key, const char *what)
{
    if (val == NULL)
        return hs__fail(c, parent, HS_ERR_SCHEMA, "%s needs '%s'", what, key);
    return HS_OK;
}

static hs_err_t hs__get_str(hs__ctx_t *c, yaml_node_t *n, const char *what,
                            char **out)
{
    const char *v = hs__scalar(n);

    if (v == NULL)
        return hs__fail(c, n, HS_ERR_SCHEMA, "%s must be a string, not %s",
                        what, hs__kind(n));
    if (v[0] == '\0')
        return hs__fail(c, n, HS_ERR_SCHEMA, "%s must not be empty", what);
    free(*out);
    *out = strdup(v);
    if (*out == NULL)
        return hs__fail(c, n, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

static int hs__all_digits(const char *v)
{
    if (*v == '\0')
        return 0;
    for (; *v; v++)
        if (!isdigit((unsigned char)*v) && *v != '_')
            return 0;
    return 1;
}

static int hs__parse_u64(const char *v, uint64_t *out)
{
    char buf[64];
    size_t n = 0;
    unsigned long long x;
    char *end;

    if (!hs__all_digits(v))
        return -1;
    for (; *v && n + 1 < sizeof buf; v++)
        if (*v != '_')
            buf[n++] = *v;
    buf[n] = '\0';
    errno = 0;
    x = strtoull(buf, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = (uint64_t)x;
    return 0;
}

static hs_err_t hs__get_u64(hs__ctx_t *c, yaml_node_t *n, const char *what,
                            uint64_t min, uint64_t max, uint64_t *out)
{
    const char *v = hs__scalar(n);
    uint64_t x;

    if (v == NULL)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "%s must be a whole number, not %s", what,
                        hs__kind(n));
    if (hs__parse_u64(v, &x) != 0)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "%s must be a whole number, not '%s'", what, v);
    if (x < min || x > max)
        return hs__fail(c, n, HS_ERR_RANGE,
                        "%s must be between %llu and %llu, not %llu", what,
                        (unsigned long long)min, (unsigned long long)max,
                        (unsigned long long)x);
    *out = x;
    return HS_OK;
}

static hs_err_t hs__get_u32(hs__ctx_t *c, yaml_node_t *n, const char *what,
                            uint32_t min, uint32_t max, uint32_t *out)
{
    uint64_t x;
    hs_err_t rc = hs__get_u64(c, n, what, min, max, &x);

    if (rc == HS_OK)
        *out = (uint32_t)x;
    return rc;
}

static hs_err_t hs__get_double(hs__ctx_t *c, yaml_node_t *n,
                               const char *what, double min, double *out)
{
    const char *v = hs__scalar(n);
    char *end;
    double x;

    if (v == NULL)
        return hs__fail(c, n, HS_ERR_SCHEMA, "%s must be a number, not %s",
                        what, hs__kind(n));
    errno = 0;
    x = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !isfinite(x))
        return hs__fail(c, n, HS_ERR_SCHEMA, "%s must be a number, not '%s'",
                        what, v);
    if (x < min)
        return hs__fail(c, n, HS_ERR_RANGE, "%s must be at least %g, not %g",
                        what, min, x);
    *out = x;
    return HS_OK;
}

static hs_err_t hs__get_bool(hs__ctx_t *c, yaml_node_t *n, const char *what,
                             int *out)
{
    const char *v = hs__scalar(n);

    if (v != NULL && (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 ||
                      strcmp(v, "on") == 0)) {
        *out = 1;
        return HS_OK;
    }
    if (v != NULL && (strcmp(v, "false") == 0 || strcmp(v, "no") == 0 ||
                      strcmp(v, "off") == 0)) {
        *out = 0;
        return HS_OK;
    }
    return hs__fail(c, n, HS_ERR_SCHEMA, "%s must be true or false", what);
}

static hs_err_t hs__get_time(hs__ctx_t *c, yaml_node_t *n, const char *what,
                             int64_t *out_ns)
{
    const char *v = hs__scalar(n);

    if (v == NULL)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "%s must be a duration such as 20ms, not %s", what,
                        hs__kind(n));
    if (hs_parse_time_ns(v, out_ns) != 0)
        return hs__fail(c, n, HS_ERR_UNIT,
                        "%s: '%s' is not a duration with a unit "
                        "(ns, us, ms, s, min, h), e.g. 20ms or 150us",
                        what, v);
    return HS_OK;
}

static hs_err_t hs__get_bytes(hs__ctx_t *c, yaml_node_t *n, const char *what,
                              uint64_t *out)
{
    const char *v = hs__scalar(n);

    if (v == NULL)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "%s must be a size such as 350MB, not %s", what,
                        hs__kind(n));
    if (hs_parse_bytes(v, out) != 0)
        return hs__fail(c, n, HS_ERR_UNIT,
                        "%s: '%s' is not a size with a unit (B, KB, MB, "
                        "GB, TB, KiB, MiB, GiB, TiB), e.g. 350MB or "
                        "102228128B",
                        what, v);
    return HS_OK;
}

static hs_err_t hs__get_bw(hs__ctx_t *c, yaml_node_t *n, const char *what,
                           double *out)
{
    const char *v = hs__scalar(n);

    if (v == NULL)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "%s must be a bandwidth such as 25Gbps, not %s",
                        what, hs__kind(n));
    if (hs_parse_bandwidth(v, out) != 0)
        return hs__fail(c, n, HS_ERR_UNIT,
                        "%s: '%s' is not a positive bandwidth with a unit "
                        "(bps, Mbps, Gbps, Mbit/s, MB/s, GB/s, GiB/s...), "
                        "e.g. 25Gbps or 12.5GB/s",
                        what, v);
    return HS_OK;
}

/* A sample count (bare whole number) or a size with unit. */
static hs_err_t hs__get_amount(hs__ctx_t *c, yaml_node_t *n,
                               const char *what, int *is_bytes,
                               uint64_t *out)
{
    const char *v = hs__scalar(n);

    if (v != NULL && hs__all_digits(v)) {
        *is_bytes = 0;
        return hs__get_u64(c, n, what, 1, UINT64_MAX, out);
    }
    *is_bytes = 1;
    if (v == NULL)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "%s must be a sample count (e.g. 9000) or a size "
                        "(e.g. 1GB), not %s",
                        what, hs__kind(n));
    if (hs_parse_bytes(v, out) != 0)
        return hs__fail(c, n, HS_ERR_UNIT,
                        "%s: '%s' is neither a sample count nor a size with "
                        "a unit (e.g. 9000 or 1GB)",
                        what, v);
    if (*out == 0)
        return hs__fail(c, n, HS_ERR_RANGE, "%s must be more than 0", what);
    return HS_OK;
}

static hs_err_t hs__warn(hs_scenario_t *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static hs_err_t hs__warn(hs_scenario_t *s, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    char **w;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    w = realloc(s->warnings, (s->n_warnings + 1) * sizeof *w);
    if (w == NULL)
        return HS_ERR_NOMEM;
    s->warnings = w;
    w[s->n_warnings] = strdup(buf);
    if (w[s->n_warnings] == NULL)
        return HS_ERR_NOMEM;
    s->n_warnings++;
    return HS_OK;
}

/* A file path, resolved against the scenario's directory. */
static hs_err_t hs__get_path(hs__ctx_t *c, yaml_node_t *n, const char *what,
                             char **out)
{
    char *p = NULL;
    hs_err_t rc = hs__get_str(c, n, what, &p);

    if (rc != HS_OK)
        return rc;
    free(*out);
    *out = hs_file_join(c->base_dir, p);
    free(p);
    if (*out == NULL)
        return hs__fail(c, n, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* Parses text into doc; a syntax error becomes file:line:col. */
static hs_err_t hs__load_doc(const char *name, const char *text, size_t len,
                             yaml_document_t *doc, hs_error_t *err)
{
    yaml_parser_t parser;
    int ok;

    if (!yaml_parser_initialize(&parser))
        return hs_error_set(err, HS_ERR_NOMEM, name, 0, 0, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    ok = yaml_parser_load(&parser, doc);
    if (!ok) {
        hs_err_t rc = hs_error_set(
            err, HS_ERR_SYNTAX, name,
            (unsigned long)parser.problem_mark.line + 1,
            (unsigned long)parser.problem_mark.column + 1,
            "YAML syntax error: %s%s%s",
            parser.problem ? parser.problem : "malformed input",
            parser.context ? " " : "", parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return rc;
    }
    yaml_parser_delete(&parser);
    if (yaml_document_get_root_node(doc) == NULL) {
        yaml_document_delete(doc);
        return hs_error_set(err, HS_ERR_SCHEMA, name, 1, 1,
                            "the file is empty: expected a mapping");
    }
    return HS_OK;
}

/* ------------------------------------------------------------------ */
/* Profiles                                                              */

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

void hs_profile_clear(hs_profile_t *p)
{
    size_t i;

    if (p == NULL)
        return;
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

/* A distribution: "12ms", "unknown", or {mean, sd, samples}. */
static hs_err_t hs__get_dist(hs__ctx_t *c, yaml_node_t *n, const char *what,
                             hs_dist_t *d)
{
    static const char *const keys[] = {"mean", "sd", "samples", NULL};
    yaml_node_t *v[3];
    hs_err_t rc;
    const char *sv = hs__scalar(n);

    hs__dist_clear(d);
    if (sv != NULL && strcmp(sv, "unknown") == 0)
        return HS_OK;
    if (sv != NULL) {
        rc = hs__get_time(c, n, what, &d->mean_ns);
        if (rc == HS_OK)
            d->known = 1;
        return rc;
    }
    if ((rc = hs__map(c, n, what, keys, v)) != HS_OK)
        return rc;
    if (v[2] != NULL) {
        yaml_node_item_t *it;
        size_t k = 0, cnt;
        double sum = 0, sq = 0;

        if (v[2]->type != YAML_SEQUENCE_NODE)
            return hs__fail(c, v[2], HS_ERR_SCHEMA,
                            "%s.samples must be a list of durations", what);
        cnt = (size_t)(v[2]->data.sequence.items.top -
                       v[2]->data.sequence.items.start);
        if (cnt > 0) {
            d->samples_ns = malloc(cnt * sizeof *d->samples_ns);
            if (d->samples_ns == NULL)
                return hs__fail(c, n, HS_ERR_NOMEM, "out of memory");
        }
        for (it = v[2]->data.sequence.items.start;
             it < v[2]->data.sequence.items.top; it++, k++) {
            rc = hs__get_time(c, hs__node(c, *it), what, &d->samples_ns[k]);
            if (rc != HS_OK)
                return rc;
            sum += (double)d->samples_ns[k];
        }
        d->n_samples = cnt;
        if (cnt > 0) {
            double mean = sum / (double)cnt;
            for (k = 0; k < cnt; k++)
                sq += ((double)d->samples_ns[k] - mean) *
                      ((double)d->samples_ns[k] - mean);
            d->mean_ns = (int64_t)llround(mean);
            d->sd_ns = cnt > 1 ? (int64_t)llround(sqrt(sq / (double)(cnt - 1)))
                               : 0;
            d->known = 1;
        }
    }
    if (v[0] != NULL) {
        if ((rc = hs__get_time(c, v[0], what, &d->mean_ns)) != HS_OK)
            return rc;
        d->known = 1;
    }
    if (v[1] != NULL && (rc = hs__get_time(c, v[1], what, &d->sd_ns)) != HS_OK)
        return rc;
    if (!d->known)
        return hs__fail(c, n, HS_ERR_SCHEMA, "%s needs 'mean' or 'samples'",
                        what);
    return HS_OK;
}

static hs_err_t hs__parse_profile_map(hs__ctx_t *c, yaml_node_t *n,
                                      const char *what, hs_profile_t *p);

/* Reads a profile from its own file; errors point into that file. */
static hs_err_t hs__profile_file(const char *path, hs_profile_t *p,
                                 hs_scenario_t *owner, hs_error_t *err)
{
    yaml_document_t doc;
    char *text = NULL;
    size_t len;
    hs__ctx_t c;
    hs_err_t rc;
    hs_scenario_t tmp;

    memset(&tmp, 0, sizeof tmp);
    if ((rc = hs_file_read(path, &text, &len, err)) != HS_OK)
        return rc;
    rc = hs__load_doc(path, text, len, &doc, err);
    if (rc != HS_OK) {
        free(text);
        return rc;
    }
    memset(&c, 0, sizeof c);
    c.file = path;
    c.doc = &doc;
    c.err = err;
    c.s = owner != NULL ? owner : &tmp;
    rc = hs__parse_profile_map(&c, yaml_document_get_root_node(&doc),
                               "the profile", p);
    if (rc == HS_OK && (p->path = strdup(path)) == NULL)
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    yaml_document_delete(&doc);
    free(text);
    if (owner == NULL) {
        size_t i;
        for (i = 0; i < tmp.n_warnings; i++)
            free(tmp.warnings[i]);
        free(tmp.warnings);
    }
    return rc;
}

hs_err_t hs_profile_load(const char *path, hs_profile_t *out,
                         hs_error_t *err)
{
    hs_err_t rc;

    memset(out, 0, sizeof *out);
    rc = hs__profile_file(path, out, NULL, err);
    if (rc != HS_OK)
        hs_profile_clear(out);
    return rc;
}

static hs_err_t hs__parse_profile_map(hs__ctx_t *c, yaml_node_t *n,
                                      const char *what, hs_profile_t *p)
{
    enum { K_TYPE, K_SOURCE, K_N, K_KEPT, K_DL, K_FWD, K_B1, K_BWD, K_OPT,
           K_OPS, K_AR, K_ARSRC, K_BUCKETS, K_COMM };
    static const char *const keys[] = {
        "type", "source", "subsystem_size", "steps_kept", "t_dl", "t_fwd",
        "t_b1", "t_bwd", "t_opt", "fwd_ops", "allreduce_bytes",
        "allreduce_source", "buckets", "comm_ns_per_byte", NULL};
    yaml_node_t *v[14];
    hs_err_t rc;
    uint32_t u;

    if ((rc = hs__map(c, n, what, keys, v)) != HS_OK)
        return rc;
    if (v[K_SOURCE] != NULL &&
        (rc = hs__get_str(c, v[K_SOURCE], "source", &p->source)) != HS_OK)
        return rc;
    if (v[K_TYPE] != NULL && hs__scalar(v[K_TYPE]) == NULL)
        return hs__fail(c, v[K_TYPE], HS_ERR_SCHEMA,
                        "type must be a string");
    p->subsys_n = 2;
    if (v[K_N] != NULL) {
        if ((rc = hs__get_u32(c, v[K_N], "subsystem_size", 2, 1u << 30,
                              &u)) != HS_OK)
            return rc;
        p->subsys_n = u;
    }
    if (v[K_KEPT] != NULL) {
        if ((rc = hs__get_u32(c, v[K_KEPT], "steps_kept", 0, UINT32_MAX,
                              &u)) != HS_OK)
            return rc;
        p->steps_kept = u;
    }
    if (v[K_DL] != NULL &&
        (rc = hs__get_dist(c, v[K_DL], "t_dl", &p->t_dl)) != HS_OK)
        return rc;
    if (v[K_FWD] != NULL &&
        (rc = hs__get_dist(c, v[K_FWD], "t_fwd", &p->t_fwd)) != HS_OK)
        return rc;
    if (v[K_B1] != NULL &&
        (rc = hs__get_dist(c, v[K_B1], "t_b1", &p->t_b1)) != HS_OK)
        return rc;
    if (v[K_BWD] != NULL &&
        (rc = hs__get_dist(c, v[K_BWD], "t_bwd", &p->t_bwd)) != HS_OK)
        return rc;
    if (v[K_OPT] != NULL &&
        (rc = hs__get_dist(c, v[K_OPT], "t_opt", &p->t_opt)) != HS_OK)
        return rc;
    if (v[K_OPS] != NULL) {
        static const char *const okeys[] = {"name", "time", NULL};
        yaml_node_item_t *it;
        size_t k = 0, cnt;
        int64_t sum = 0;

        if (v[K_OPS]->type != YAML_SEQUENCE_NODE)
            return hs__fail(c, v[K_OPS], HS_ERR_SCHEMA,
                            "fwd_ops must be a list of {name, time}");
        cnt = (size_t)(v[K_OPS]->data.sequence.items.top -
                       v[K_OPS]->data.sequence.items.start);
        p->fwd_ops_ns = calloc(cnt ? cnt : 1, sizeof *p->fwd_ops_ns);
        p->fwd_op_names = calloc(cnt ? cnt : 1, sizeof *p->fwd_op_names);
        if (p->fwd_ops_ns == NULL || p->fwd_op_names == NULL)
            return hs__fail(c, n, HS_ERR_NOMEM, "out of memory");
        p->n_fwd_ops = cnt;
        for (it = v[K_OPS]->data.sequence.items.start;
             it < v[K_OPS]->data.sequence.items.top; it++, k++) {
            yaml_node_t *ov[2], *on = hs__node(c, *it);
            if ((rc = hs__map(c, on, "a fwd_ops entry", okeys, ov)) != HS_OK)
                return rc;
            if ((rc = hs__need(c, on, ov[1], "time", "a fwd_ops entry")) !=
                HS_OK)
                return rc;
            if (ov[0] != NULL &&
                (rc = hs__get_str(c, ov[0], "fwd_ops name",
                                  &p->fwd_op_names[k])) != HS_OK)
                return rc;
            if ((rc = hs__get_time(c, ov[1], "fwd_ops time",
                                   &p->fwd_ops_ns[k])) != HS_OK)
                return rc;
            sum += p->fwd_ops_ns[k];
        }
        if (!p->t_fwd.known) {
            p->t_fwd.known = 1;
            p->t_fwd.mean_ns = sum;
        } else if (llabs(sum - p->t_fwd.mean_ns) >
                   p->t_fwd.mean_ns / 100) {
            hs__warn(c->s,
                     "%s: t_fwd (%lld ns) differs from the sum of fwd_ops "
                     "(%lld ns) by more than 1%%; t_fwd is used",
                     c->file, (long long)p->t_fwd.mean_ns, (long long)sum);
        }
    }
    if (v[K_AR] != NULL &&
        (rc = hs__get_bytes(c, v[K_AR], "allreduce_bytes", &p->ar_bytes)) !=
            HS_OK)
        return rc;
    if (v[K_COMM] != NULL &&
        (rc = hs__get_double(c, v[K_COMM], "comm_ns_per_byte", 0.0,
                             &p->comm_ns_per_byte)) != HS_OK)
        return rc;
    if (p->comm_ns_per_byte > 1e6)
        return hs__fail(c, v[K_COMM], HS_ERR_RANGE,
                        "comm_ns_per_byte must be at most 1e6 (1 ms per "
                        "byte), not %g", p->comm_ns_per_byte);
    p->ar_source = HS_AR_GIVEN;
    if (v[K_ARSRC] != NULL) {
        const char *s = hs__scalar(v[K_ARSRC]);
        if (s != NULL && strcmp(s, "given") == 0)
            p->ar_source = HS_AR_GIVEN;
        else if (s != NULL && strcmp(s, "param_comms") == 0)
            p->ar_source = HS_AR_PARAM_COMMS;
        else if (s != NULL && strcmp(s, "shapes") == 0)
            p->ar_source = HS_AR_SHAPES;
        else if (s != NULL && strcmp(s, "sidecar") == 0)
            p->ar_source = HS_AR_SIDECAR;
        else
            return hs__fail(c, v[K_ARSRC], HS_ERR_SCHEMA,
                            "allreduce_source must be given, param_comms, "
                            "shapes or sidecar");
    }
    if (v[K_BUCKETS] != NULL) {
        static const char *const bkeys[] = {"bytes", "ready", NULL};
        yaml_node_item_t *it;
        size_t k = 0, cnt;

        if (v[K_BUCKETS]->type != YAML_SEQUENCE_NODE)
            return hs__fail(c, v[K_BUCKETS], HS_ERR_SCHEMA,
                            "buckets must be a list of {bytes, ready}");
        cnt = (size_t)(v[K_BUCKETS]->data.sequence.items.top -
                       v[K_BUCKETS]->data.sequence.items.start);
        p->buckets = calloc(cnt ? cnt : 1, sizeof *p->buckets);
        if (p->buckets == NULL)
            return hs__fail(c, n, HS_ERR_NOMEM, "out of memory");
        p->n_buckets = cnt;
        for (it = v[K_BUCKETS]->data.sequence.items.start;
             it < v[K_BUCKETS]->data.sequence.items.top; it++, k++) {
            yaml_node_t *bv[2], *bn = hs__node(c, *it);
            if ((rc = hs__map(c, bn, "a bucket", bkeys, bv)) != HS_OK)
                return rc;
            if ((rc = hs__need(c, bn, bv[0], "bytes", "a bucket")) != HS_OK ||
                (rc = hs__need(c, bn, bv[1], "ready", "a bucket")) != HS_OK)
                return rc;
            if ((rc = hs__get_bytes(c, bv[0], "bucket bytes",
                                    &p->buckets[k].bytes)) != HS_OK ||
                (rc = hs__get_time(c, bv[1], "bucket ready",
                                   &p->buckets[k].ready_ns)) != HS_OK)
                return rc;
        }
    }
    if (!p->t_fwd.known)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "%s needs 't_fwd' (or 'fwd_ops')", what);
    if (!p->t_b1.known)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "%s needs 't_b1' (the first backward operator)",
                        what);
    if (v[K_AR] == NULL)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "%s needs 'allreduce_bytes' (D, bytes one device "
                        "sends per iteration)",
                        what);
    return HS_OK;
}

/* ------------------------------------------------------------------ */
/* Name hash                                                             */

typedef struct hs__hash_s {
    uint32_t *slot;     /* device index + 1, 0 = empty */
    size_t mask;
} hs__hash_t;

static uint64_t hs__fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

/* Builds a hash of device names (by_addr == 0) or addresses. */
static int hs__hash_build(hs__hash_t *h, const hs_scenario_t *s, int by_addr)
{
    size_t cap = 16, i;

    while (cap < s->n_devices * 2)
        cap *= 2;
    h->slot = calloc(cap, sizeof *h->slot);
    if (h->slot == NULL)
        return -1;
    h->mask = cap - 1;
    for (i = 0; i < s->n_devices; i++) {
        const char *key = by_addr ? s->devices[i].addr : s->devices[i].name;
        size_t j = (size_t)hs__fnv(key) & h->mask;
        for (;;) {
            uint32_t e = h->slot[j];
            if (e == 0) {
                h->slot[j] = (uint32_t)i + 1;
                break;
            }
            /* keep the first device with a given key */
            if (strcmp(by_addr ? s->devices[e - 1].addr
                               : s->devices[e - 1].name,
                       key) == 0)
                break;
            j = (j + 1) & h->mask;
        }
    }
    return 0;
}

static long hs__hash_find(const hs__hash_t *h, const hs_scenario_t *s,
                          int by_addr, const char *key)
{
    size_t j;

    if (h->slot == NULL)
        return -1;
    j = (size_t)hs__fnv(key) & h->mask;
    for (;;) {
        uint32_t e = h->slot[j];
        if (e == 0)
            return -1;
        if (strcmp(by_addr ? s->devices[e - 1].addr : s->devices[e - 1].name,
                   key) == 0)
            return (long)e - 1;
        j = (j + 1) & h->mask;
    }
}

/* ------------------------------------------------------------------ */
/* The string arena                                                      */

/* Appends str to the arena; returns its offset or (size_t)-1. */
static size_t hs__arena_add(hs_scenario_t *s, const char *str)
{
    size_t n = strlen(str) + 1, off;

    if (s->arena_len + n > s->arena_cap) {
        size_t cap = s->arena_cap ? s->arena_cap * 2 : 4096;
        char *p;
        while (cap < s->arena_len + n)
            cap *= 2;
        p = realloc(s->arena, cap);
        if (p == NULL)
            return (size_t)-1;
        s->arena = p;
        s->arena_cap = cap;
    }
    off = s->arena_len;
    memcpy(s->arena + off, str, n);
    s->arena_len += n;
    return off;
}

/* ------------------------------------------------------------------ */
/* Sections                                                              */

static hs_err_t hs__parse_job(hs__ctx_t *c, yaml_node_t *n)
{
    enum { K_MODEL, K_DATASET, K_EPOCHS };
    static const char *const keys[] = {"model", "dataset", "epochs", NULL};
    static const char *const fe[] = {"file", "entry", NULL};
    yaml_node_t *v[3];
    hs_scenario_t *s = c->s;
    hs_err_t rc;

    if ((rc = hs__map(c, n, "job", keys, v)) != HS_OK)
        return rc;
    if (v[K_MODEL] != NULL) {
        if (hs__scalar(v[K_MODEL]) != NULL) {
            rc = hs__get_str(c, v[K_MODEL], "job.model", &s->model_label);
        } else {
            yaml_node_t *mv[2];
            if ((rc = hs__map(c, v[K_MODEL], "job.model", fe, mv)) != HS_OK)
                return rc;
            if ((rc = hs__need(c, v[K_MODEL], mv[0], "file", "job.model")) !=
                HS_OK)
                return rc;
            if ((rc = hs__get_path(c, mv[0], "job.model.file",
                                   &s->model_file)) != HS_OK)
                return rc;
            if (mv[1] != NULL)
                rc = hs__get_str(c, mv[1], "job.model.entry",
                                 &s->model_entry);
            else
                s->model_entry = strdup("build_model");
            if (rc == HS_OK)
                s->model_label = strdup(s->model_file);
        }
        if (rc != HS_OK)
            return rc;
    }
    if (v[K_DATASET] != NULL) {
        static const char *const dk[] = {"size", "samples", "sample_bytes",
                                         "file", "entry", NULL};
        yaml_node_t *dv[5];
        if ((rc = hs__map(c, v[K_DATASET], "job.dataset", dk, dv)) != HS_OK)
            return rc;
        if (dv[0] != NULL && dv[1] != NULL)
            return hs__fail(c, dv[1], HS_ERR_SCHEMA,
                            "job.dataset takes 'size' or 'samples', not both");
        if (dv[0] != NULL) {
            s->dataset_is_bytes = 1;
            if ((rc = hs__get_bytes(c, dv[0], "job.dataset.size",
                                    &s->dataset_total)) != HS_OK)
                return rc;
        }
        if (dv[1] != NULL &&
            (rc = hs__get_u64(c, dv[1], "job.dataset.samples", 1, UINT64_MAX,
                              &s->dataset_total)) != HS_OK)
            return rc;
        if (dv[2] != NULL) {
            if ((rc = hs__get_bytes(c, dv[2], "job.dataset.sample_bytes",
                                    &s->sample_bytes)) != HS_OK)
                return rc;
            if (s->sample_bytes == 0)
                return hs__fail(c, dv[2], HS_ERR_RANGE,
                                "job.dataset.sample_bytes must be > 0");
        }
        if (dv[3] != NULL &&
            (rc = hs__get_path(c, dv[3], "job.dataset.file",
                               &s->dataset_file)) != HS_OK)
            return rc;
        if (dv[4] != NULL &&
            (rc = hs__get_str(c, dv[4], "job.dataset.entry",
                              &s->dataset_entry)) != HS_OK)
            return rc;
        if (s->dataset_is_bytes && s->sample_bytes == 0)
            return hs__fail(c, v[K_DATASET], HS_ERR_SCHEMA,
                            "job.dataset.size is in bytes: give "
                            "job.dataset.sample_bytes too, to count samples");
    }
    if (v[K_EPOCHS] != NULL &&
        (rc = hs__get_u32(c, v[K_EPOCHS], "job.epochs", 1, 1000000000,
                          &s->epochs)) != HS_OK)
        return rc;
    return HS_OK;
}

static hs_err_t hs__parse_env(hs__ctx_t *c, yaml_node_t *n, hs_type_t *t)
{
    yaml_node_pair_t *p;
    size_t cnt, k = 0;

    if (n->type != YAML_MAPPING_NODE)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "env must be a mapping of NAME: value");
    cnt = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    t->env = calloc(cnt ? cnt : 1, sizeof *t->env);
    if (t->env == NULL)
        return hs__fail(c, n, HS_ERR_NOMEM, "out of memory");
    for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
         p++, k++) {
        yaml_node_t *kn = hs__node(c, p->key), *vn = hs__node(c, p->value);
        const char *key = hs__scalar(kn), *val = hs__scalar(vn);
        size_t len;
        if (key == NULL || key[0] == '\0' || strchr(key, '=') != NULL)
            return hs__fail(c, kn, HS_ERR_SCHEMA,
                            "env names must be plain names without '='");
        if (val == NULL)
            return hs__fail(c, vn, HS_ERR_SCHEMA,
                            "env values must be strings");
        len = strlen(key) + strlen(val) + 2;
        t->env[k] = malloc(len);
        if (t->env[k] == NULL)
            return hs__fail(c, n, HS_ERR_NOMEM, "out of memory");
        snprintf(t->env[k], len, "%s=%s", key, val);
        t->n_env = k + 1;
    }
    return HS_OK;
}

static hs_err_t hs__parse_types(hs__ctx_t *c, yaml_node_t *n)
{
    enum { K_NAME, K_COUNT, K_BATCH, K_SHARD, K_PROFILE, K_BACKEND, K_ENV };
    static const char *const keys[] = {"name", "count", "batch", "shard",
                                       "profile", "backend", "env", NULL};
    hs_scenario_t *s = c->s;
    yaml_node_item_t *it;
    size_t cnt, k = 0, j;
    hs_err_t rc;

    if (n->type != YAML_SEQUENCE_NODE)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "device_types must be a list of device types");
    cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (cnt == 0)
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "device_types must list at least one type");
    s->types = calloc(cnt, sizeof *s->types);
    if (s->types == NULL)
        return hs__fail(c, n, HS_ERR_NOMEM, "out of memory");
    for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++, k++) {
        yaml_node_t *tn = hs__node(c, *it), *v[7];
        hs_type_t *t = &s->types[k];

        s->n_types = k + 1;
        t->line = tn->start_mark.line + 1;
        t->col = tn->start_mark.column + 1;
        if ((rc = hs__map(c, tn, "a device type", keys, v)) != HS_OK)
            return rc;
        if ((rc = hs__need(c, tn, v[K_NAME], "name", "a device type")) !=
                HS_OK ||
            (rc = hs__get_str(c, v[K_NAME], "name", &t->name)) != HS_OK)
            return rc;
        for (j = 0; j < k; j++)
            if (strcmp(s->types[j].name, t->name) == 0)
                return hs__fail(c, v[K_NAME], HS_ERR_SCHEMA,
                                "duplicate device type name '%s' (first at "
                                "line %lu)",
                                t->name, s->types[j].line);
        if (v[K_COUNT] != NULL &&
            (rc = hs__get_u64(c, v[K_COUNT], "count", 0, UINT32_MAX - 1,
                              &t->count)) != HS_OK)
            return rc;
        if ((rc = hs__need(c, tn, v[K_BATCH], "batch",
                           "a device type")) != HS_OK ||
            (rc = hs__get_u64(c, v[K_BATCH], "batch", 1, UINT32_MAX,
                              &t->batch)) != HS_OK)
            return rc;
        if (v[K_SHARD] != NULL) {
            if ((rc = hs__get_amount(c, v[K_SHARD], "shard",
                                     &t->shard_is_bytes, &t->shard)) != HS_OK)
                return rc;
            if (t->shard_is_bytes && s->sample_bytes == 0)
                return hs__fail(c, v[K_SHARD], HS_ERR_SCHEMA,
                                "shard is a size: give "
                                "job.dataset.sample_bytes to count samples");
        }
        t->has_profile = v[K_PROFILE] != NULL && !hs__is_null(v[K_PROFILE]);
        if (!t->has_profile) {
            /* not measured yet: hs_scenario_require_profiles rejects it
               where timings are needed */
        } else if (hs__scalar(v[K_PROFILE]) != NULL) {
            char *path = hs_file_join(c->base_dir,
                                          hs__scalar(v[K_PROFILE]));
            if (path == NULL)
                return hs__fail(c, tn, HS_ERR_NOMEM, "out of memory");
            rc = hs__profile_file(path, &t->profile, s, c->err);
            if (rc == HS_ERR_IO) {
                char inner[HS_ERRMSG_LEN];
                snprintf(inner, sizeof inner, "%s", c->err->msg);
                rc = hs__fail(c, v[K_PROFILE], HS_ERR_IO,
                              "profile of type '%s': %s", t->name, inner);
            }
            free(path);
            if (rc != HS_OK)
                return rc;
        } else {
            char what[256];
            snprintf(what, sizeof what, "the profile of type '%s'", t->name);
            if ((rc = hs__parse_profile_map(c, v[K_PROFILE], what,
                                            &t->profile)) != HS_OK)
                return rc;
        }
        if (v[K_BACKEND] != NULL) {
            const char *b = hs__scalar(v[K_BACKEND]);
            if (b == NULL || (strcmp(b, "gloo") != 0 &&
                              strcmp(b, "nccl") != 0 &&
                              strcmp(b, "mpi") != 0))
                return hs__fail(c, v[K_BACKEND], HS_ERR_SCHEMA,
                                "backend must be gloo, nccl or mpi");
            t->backend = strdup(b);
        }
        if (v[K_ENV] != NULL && (rc = hs__parse_env(c, v[K_ENV], t)) != HS_OK)
            return rc;
    }
    return HS_OK;
}

static long hs__type_index(const hs_scenario_t *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n_types; i++)
        if (strcmp(s->types[i].name, name) == 0)
            return (long)i;
    return -1;
}

const char *hs_overlap_name(hs_overlap_t o)
{
    switch (o) {
    case HS_OVERLAP_PATENT: return "patent";
    case HS_OVERLAP_BUCKETS: return "buckets";
    case HS_OVERLAP_NONE: return "none";
    }
    return "unknown";
}

const char *hs_send_name(hs_send_t m)
{
    switch (m) {
    case HS_SEND_RENDEZVOUS: return "rendezvous";
    case HS_SEND_EAGER: return "eager";
    }
    return "unknown";
}

int hs_overlap_parse(const char *name, hs_overlap_t *out)
{
    static const hs_overlap_t all[] = {HS_OVERLAP_PATENT, HS_OVERLAP_BUCKETS,
                                       HS_OVERLAP_NONE};
    size_t i;

    for (i = 0; name != NULL && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, hs_overlap_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return -1;
}

int hs_send_parse(const char *name, hs_send_t *out)
{
    static const hs_send_t all[] = {HS_SEND_RENDEZVOUS, HS_SEND_EAGER};
    size_t i;

    for (i = 0; name != NULL && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, hs_send_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return -1;
}

hs_err_t hs_scenario_require_profiles(const hs_scenario_t *s,
                                      hs_error_t *err)
{
    size_t i;

    for (i = 0; i < s->n_types; i++) {
        const hs_type_t *t = &s->types[i];
        if (!t->has_profile)
            return hs_error_set(err, HS_ERR_SCHEMA, s->file, t->line, t->col,
                                "device type '%s' has no profile (an inline "
                                "mapping or the path of a profile file; "
                                "`hetsim profile` measures one)",
                                t->name);
    }
    return HS_OK;
}

long hs_scenario_find_type(const hs_scenario_t *s, const char *name)
{
    return hs__type_index(s, name);
}

long hs_scenario_find_device(const hs_scenario_t *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n_devices; i++)
        if (strcmp(s->devices[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* Device offsets are kept in name/addr as integers until the arena stops
   moving; this turns them into pointers. */
static void hs__fix_names(hs_scenario_t *s, size_t *name_off,
                          size_t *addr_off)
{
    size_t i;

    for (i = 0; i < s->n_devices; i++) {
        s->devices[i].name = s->arena + name_off[i];
        s->devices[i].addr = s->arena + addr_off[i];
    }
}

static hs_err_t hs__parse_devices(hs__ctx_t *c, yaml_node_t *n)
{
    enum { K_NAME, K_TYPE, K_ADDR, K_SCALE, K_EXTRA };
    static const char *const keys[] = {"name", "type", "addr",
                                       "compute_scale", "extra_compute",
                                       NULL};
    hs_scenario_t *s = c->s;
    size_t *name_off = NULL, *addr_off = NULL, *counts = NULL;
    size_t cnt = 0, i, k;
    hs_err_t rc = HS_OK;
    hs__hash_t h = {0};

    if (n != NULL) {
        yaml_node_item_t *it;
        if (n->type != YAML_SEQUENCE_NODE)
            return hs__fail(c, n, HS_ERR_SCHEMA,
                            "devices must be a list of {name, type, addr}");
        cnt = (size_t)(n->data.sequence.items.top -
                       n->data.sequence.items.start);
        if (cnt == 0)
            return hs__fail(c, n, HS_ERR_SCHEMA,
                            "devices must not be empty (leave it out to "
                            "generate devices from the type counts)");
        if (cnt > UINT32_MAX - 1)
            return hs__fail(c, n, HS_ERR_RANGE, "too many devices");
        s->devices = calloc(cnt, sizeof *s->devices);
        name_off = calloc(cnt, sizeof *name_off);
        addr_off = calloc(cnt, sizeof *addr_off);
        counts = calloc(s->n_types, sizeof *counts);
        if (!s->devices || !name_off || !addr_off || !counts) {
            rc = hs__fail(c, n, HS_ERR_NOMEM, "out of memory");
            goto done;
        }
        k = 0;
        for (it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++, k++) {
            yaml_node_t *dn = hs__node(c, *it), *v[5];
            hs_device_t *d = &s->devices[k];
            const char *nm, *ty, *ad;
            long ti;

            if ((rc = hs__map(c, dn, "a device", keys, v)) != HS_OK)
                goto done;
            if ((rc = hs__need(c, dn, v[K_NAME], "name", "a device")) !=
                    HS_OK ||
                (rc = hs__need(c, dn, v[K_TYPE], "type", "a device")) !=
                    HS_OK)
                goto done;
            nm = hs__scalar(v[K_NAME]);
            ty = hs__scalar(v[K_TYPE]);
            if (nm == NULL || nm[0] == '\0') {
                rc = hs__fail(c, v[K_NAME], HS_ERR_SCHEMA,
                              "a device's name must be a string");
                goto done;
            }
            if (ty == NULL || (ti = hs__type_index(s, ty)) < 0) {
                rc = hs__fail(c, v[K_TYPE], HS_ERR_SCHEMA,
                              "device '%s' has unknown type '%s'", nm,
                              ty ? ty : "");
                goto done;
            }
            ad = nm;
            if (v[K_ADDR] != NULL) {
                ad = hs__scalar(v[K_ADDR]);
                if (ad == NULL || ad[0] == '\0') {
                    rc = hs__fail(c, v[K_ADDR], HS_ERR_SCHEMA,
                                  "a device's addr must be a string");
                    goto done;
                }
            }
            d->type = (uint32_t)ti;
            counts[ti]++;
            d->compute_scale = 1.0;
            if (v[K_SCALE] != NULL &&
                (rc = hs__get_double(c, v[K_SCALE], "compute_scale", 1e-9,
                                     &d->compute_scale)) != HS_OK)
                goto done;
            if (v[K_EXTRA] != NULL &&
                (rc = hs__get_time(c, v[K_EXTRA], "extra_compute",
                                   &d->extra_compute_ns)) != HS_OK)
                goto done;
            name_off[k] = hs__arena_add(s, nm);
            addr_off[k] = hs__arena_add(s, ad);
            if (name_off[k] == (size_t)-1 || addr_off[k] == (size_t)-1) {
                rc = hs__fail(c, dn, HS_ERR_NOMEM, "out of memory");
                goto done;
            }
            s->n_devices = k + 1;
        }
        hs__fix_names(s, name_off, addr_off);
        /* duplicate names */
        if (hs__hash_build(&h, s, 0) != 0) {
            rc = hs__fail(c, n, HS_ERR_NOMEM, "out of memory");
            goto done;
        }
        k = 0;
        for (it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++, k++) {
            long first = hs__hash_find(&h, s, 0, s->devices[k].name);
            if (first != (long)k) {
                yaml_node_t *dn = hs__node(c, *it);
                rc = hs__fail(c, dn, HS_ERR_SCHEMA,
                              "duplicate device name '%s'",
                              s->devices[k].name);
                goto done;
            }
        }
        for (i = 0; i < s->n_types; i++) {
            hs_type_t *t = &s->types[i];
            if (t->count != 0 && t->count != counts[i]) {
                rc = hs_error_set(c->err, HS_ERR_SCHEMA, c->file, t->line,
                                  t->col,
                                  "device type '%s' says count %llu but "
                                  "devices lists %zu of it",
                                  t->name, (unsigned long long)t->count,
                                  counts[i]);
                goto done;
            }
            t->count = counts[i];
        }
    } else {
        char buf[512];
        for (i = 0; i < s->n_types; i++) {
            if (s->types[i].count == 0) {
                rc = hs_error_set(c->err, HS_ERR_SCHEMA, c->file,
                                  s->types[i].line, s->types[i].col,
                                  "device type '%s' needs a count > 0 "
                                  "(or list the devices)",
                                  s->types[i].name);
                goto done;
            }
            cnt += s->types[i].count;
        }
        if (cnt > UINT32_MAX - 1) {
            rc = hs_error_setf(c->err, HS_ERR_RANGE, "%s: too many devices",
                               c->file);
            goto done;
        }
        s->devices = calloc(cnt, sizeof *s->devices);
        name_off = calloc(cnt, sizeof *name_off);
        if (!s->devices || !name_off) {
            rc = hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
            goto done;
        }
        k = 0;
        for (i = 0; i < s->n_types; i++) {
            uint64_t j;
            for (j = 0; j < s->types[i].count; j++, k++) {
                snprintf(buf, sizeof buf, "%s-%llu", s->types[i].name,
                         (unsigned long long)j);
                name_off[k] = hs__arena_add(s, buf);
                if (name_off[k] == (size_t)-1) {
                    rc = hs_error_setf(c->err, HS_ERR_NOMEM,
                                       "out of memory");
                    goto done;
                }
                s->devices[k].type = (uint32_t)i;
                s->devices[k].compute_scale = 1.0;
            }
        }
        s->n_devices = cnt;
        hs__fix_names(s, name_off, name_off);
    }
    if (s->n_devices < 2) {
        rc = hs_error_setf(c->err, HS_ERR_SCHEMA,
                           "%s: a ring needs at least 2 devices", c->file);
        goto done;
    }
done:
    free(h.slot);
    free(name_off);
    free(addr_off);
    free(counts);
    return rc;
}

/* Lazily built name and address hashes. */
typedef struct hs__names_s {
    hs__hash_t by_name, by_addr;
} hs__names_t;

static int hs__names_ready(hs__names_t *nm, const hs_scenario_t *s)
{
    if (nm->by_name.slot == NULL && hs__hash_build(&nm->by_name, s, 0) != 0)
        return -1;
    if (nm->by_addr.slot == NULL && hs__hash_build(&nm->by_addr, s, 1) != 0)
        return -1;
    return 0;
}

static hs_err_t hs__parse_ring(hs__ctx_t *c, yaml_node_t *n,
                               hs__names_t *nm)
{
    hs_scenario_t *s = c->s;
    size_t N = s->n_devices, i, k = 0;
    const char *mode = hs__scalar(n);

    s->ring = malloc(N * sizeof *s->ring);
    if (s->ring == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    if (n == NULL || (mode != NULL && strcmp(mode, "listing") == 0)) {
        for (i = 0; i < N; i++)
            s->ring[i] = (uint32_t)i;
    } else if (mode != NULL && strcmp(mode, "grouped") == 0) {
        size_t t;
        for (t = 0; t < s->n_types; t++)
            for (i = 0; i < N; i++)
                if (s->devices[i].type == t)
                    s->ring[k++] = (uint32_t)i;
    } else if (mode != NULL && strcmp(mode, "interleave") == 0) {
        /* round robin over types, each type in listing order */
        size_t *next = calloc(s->n_types, sizeof *next);
        size_t t;
        if (next == NULL)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        while (k < N) {
            for (t = 0; t < s->n_types && k < N; t++) {
                while (next[t] < N && s->devices[next[t]].type != t)
                    next[t]++;
                if (next[t] < N)
                    s->ring[k++] = (uint32_t)next[t]++;
            }
        }
        free(next);
    } else if (mode != NULL) {
        return hs__fail(c, n, HS_ERR_SCHEMA,
                        "ring must be listing, grouped, interleave or a list "
                        "of device names, not '%s'",
                        mode);
    } else {
        yaml_node_item_t *it;
        unsigned char *seen;
        if (n->type != YAML_SEQUENCE_NODE)
            return hs__fail(c, n, HS_ERR_SCHEMA,
                            "ring must be a list of device names or one of "
                            "listing, grouped, interleave");
        if (hs__names_ready(nm, s) != 0)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        seen = calloc(N, 1);
        if (seen == NULL)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        for (it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            yaml_node_t *en = hs__node(c, *it);
            const char *name = hs__scalar(en);
            long d = name ? hs__hash_find(&nm->by_name, s, 0, name) : -1;
            if (d < 0) {
                free(seen);
                return hs__fail(c, en, HS_ERR_SCHEMA,
                                "ring names unknown device '%s'",
                                name ? name : "");
            }
            if (seen[d]) {
                free(seen);
                return hs__fail(c, en, HS_ERR_SCHEMA,
                                "ring names device '%s' twice", name);
            }
            if (k == N) {
                free(seen);
                return hs__fail(c, en, HS_ERR_SCHEMA,
                                "ring lists more entries than devices");
            }
            seen[d] = 1;
            s->ring[k++] = (uint32_t)d;
        }
        for (i = 0; i < N; i++) {
            if (!seen[i]) {
                hs_err_t rc = hs__fail(c, n, HS_ERR_SCHEMA,
                                       "ring leaves out device '%s' (every "
                                       "device must be in the ring once)",
                                       s->devices[i].name);
                free(seen);
                return rc;
            }
        }
        free(seen);
    }
    for (k = 0; k < N; k++)
        s->devices[s->ring[k]].ring_pos = (uint32_t)k;
    return HS_OK;
}

/* ------------------------------------------------------------------ */
/* Network                                                               */

/* A link row resolved to device sets: endpoints are matched by name first,
   then by address (all devices with that address). */
typedef struct hs__row_s {
    const char *a, *b;      /* endpoint keys as written */
    double bw_bytes_per_s;
    int64_t lat_ns;         /* -1 = default */
} hs__row_t;

typedef struct hs__rows_s {
    hs__row_t *row;
    size_t n, cap;
    char **owned;           /* strings read from CSV */
    size_t n_owned;
    /* hash from pair key to row index + 1 */
    uint32_t *slot;
    size_t mask;
} hs__rows_t;

static uint64_t hs__pair_hash(const char *a, const char *b)
{
    return hs__fnv(a) * 31 + hs__fnv(b);
}

static int hs__rows_add(hs__rows_t *r, const char *a, const char *b,
                        double bw, int64_t lat)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        hs__row_t *p = realloc(r->row, cap * sizeof *p);
        if (p == NULL)
            return -1;
        r->row = p;
        r->cap = cap;
    }
    r->row[r->n].a = a;
    r->row[r->n].b = b;
    r->row[r->n].bw_bytes_per_s = bw;
    r->row[r->n].lat_ns = lat;
    r->n++;
    return 0;
}

/* Indexes rows by (a, b); a later row for the same ordered pair wins. */
static int hs__rows_index(hs__rows_t *r)
{
    size_t cap = 16, i;

    while (cap < r->n * 2)
        cap *= 2;
    r->slot = calloc(cap, sizeof *r->slot);
    if (r->slot == NULL)
        return -1;
    r->mask = cap - 1;
    for (i = 0; i < r->n; i++) {
        size_t j = (size_t)hs__pair_hash(r->row[i].a, r->row[i].b) & r->mask;
        for (;;) {
            uint32_t e = r->slot[j];
            if (e == 0 || (strcmp(r->row[e - 1].a, r->row[i].a) == 0 &&
                           strcmp(r->row[e - 1].b, r->row[i].b) == 0)) {
                r->slot[j] = (uint32_t)i + 1;
                break;
            }
            j = (j + 1) & r->mask;
        }
    }
    return 0;
}

static const hs__row_t *hs__rows_find(const hs__rows_t *r, const char *a,
                                      const char *b)
{
    size_t j;

    if (r->slot == NULL)
        return NULL;
    j = (size_t)hs__pair_hash(a, b) & r->mask;
    for (;;) {
        uint32_t e = r->slot[j];
        if (e == 0)
            return NULL;
        if (strcmp(r->row[e - 1].a, a) == 0 &&
            strcmp(r->row[e - 1].b, b) == 0)
            return &r->row[e - 1];
        j = (j + 1) & r->mask;
    }
}

static void hs__rows_free(hs__rows_t *r)
{
    size_t i;

    for (i = 0; i < r->n_owned; i++)
        free(r->owned[i]);
    free(r->owned);
    free(r->row);
    free(r->slot);
}

static char *hs__rows_own(hs__rows_t *r, const char *s, size_t len)
{
    char **o = realloc(r->owned, (r->n_owned + 1) * sizeof *o);
    char *p;

    if (o == NULL)
        return NULL;
    r->owned = o;
    p = malloc(len + 1);
    if (p == NULL)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    o[r->n_owned++] = p;
    return p;
}

static int hs__endpoint_known(hs__names_t *nm, const hs_scenario_t *s,
                              const char *key)
{
    return hs__hash_find(&nm->by_name, s, 0, key) >= 0 ||
           hs__hash_find(&nm->by_addr, s, 1, key) >= 0;
}

static char *hs__trim(char *p)
{
    char *e;

    while (*p == ' ' || *p == '\t')
        p++;
    e = p + strlen(p);
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
                     e[-1] == '\n'))
        *--e = '\0';
    return p;
}

/* Reads rows "addr1,addr2,bandwidth[,latency]" from a CSV file. */
static hs_err_t hs__read_links_csv(hs__ctx_t *c, const char *path,
                                   hs__rows_t *rows, hs__names_t *nm)
{
    char *text = NULL, *line, *save = NULL;
    size_t len;
    unsigned long lineno = 0;
    hs_err_t rc;

    if ((rc = hs_file_read(path, &text, &len, c->err)) != HS_OK)
        return rc;
    for (line = text; line != NULL && *line; line = save) {
        char *nl = strchr(line, '\n'), *f[5];
        int nf = 0;
        char *p;
        double bw;
        int64_t lat = -1;

        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        lineno++;
        p = hs__trim(line);
        if (*p == '\0' || *p == '#')
            continue;
        f[nf++] = p;
        for (; *p; p++) {
            if (*p == ',') {
                *p = '\0';
                if (nf == 5)
                    break;
                f[nf++] = p + 1;
            }
        }
        if (nf < 3 || nf > 4) {
            free(text);
            return hs_error_set(c->err, HS_ERR_SYNTAX, path, lineno, 1,
                                "expected addr1,addr2,bandwidth[,latency]");
        }
        for (int i = 0; i < nf; i++)
            f[i] = hs__trim(f[i]);
        if (lineno == 1 && strcmp(f[2], "bandwidth") == 0)
            continue; /* header */
        if (hs_parse_bandwidth(f[2], &bw) != 0) {
            unsigned long col = (unsigned long)(f[2] - line) + 1;
            hs_err_t e = hs_error_set(
                c->err, HS_ERR_UNIT, path, lineno, col,
                "'%s' is not a positive bandwidth with a unit (e.g. 25Gbps)",
                f[2]);
            free(text);
            return e;
        }
        if (nf == 4 && hs_parse_time_ns(f[3], &lat) != 0) {
            unsigned long col = (unsigned long)(f[3] - line) + 1;
            hs_err_t e = hs_error_set(
                c->err, HS_ERR_UNIT, path, lineno, col,
                "'%s' is not a duration with a unit (e.g. 20us)", f[3]);
            free(text);
            return e;
        }
        for (int i = 0; i < 2; i++) {
            if (!hs__endpoint_known(nm, c->s, f[i])) {
                unsigned long col = (unsigned long)(f[i] - line) + 1;
                hs_err_t e = hs_error_set(
                    c->err, HS_ERR_NETWORK, path, lineno, col,
                    "'%s' is neither a device name nor a device address",
                    f[i]);
                free(text);
                return e;
            }
        }
        {
            char *a = hs__rows_own(rows, f[0], strlen(f[0]));
            char *b = hs__rows_own(rows, f[1], strlen(f[1]));
            if (a == NULL || b == NULL ||
                hs__rows_add(rows, a, b, bw, lat) != 0) {
                free(text);
                return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
            }
        }
    }
    free(text);
    return HS_OK;
}

typedef struct hs__tlink_s {
    uint32_t a, b;
    double bw_bytes_per_s;
    int64_t lat_ns;
} hs__tlink_t;

static hs_err_t hs__parse_network(hs__ctx_t *c, yaml_node_t *n,
                                  hs__names_t *nm, yaml_node_t *root)
{
    enum { K_DEFAULT, K_LAT, K_LINKS, K_CSV, K_TLINKS };
    static const char *const keys[] = {"default_bandwidth", "latency",
                                       "links", "links_csv", "type_links",
                                       NULL};
    hs_scenario_t *s = c->s;
    yaml_node_t *v[5] = {NULL, NULL, NULL, NULL, NULL};
    hs__rows_t rows;
    hs__tlink_t *tl = NULL;
    size_t ntl = 0, k, N = s->n_devices;
    hs_err_t rc = HS_OK;

    memset(&rows, 0, sizeof rows);
    if (n != NULL && (rc = hs__map(c, n, "network", keys, v)) != HS_OK)
        return rc;
    if (v[K_DEFAULT] != NULL &&
        (rc = hs__get_bw(c, v[K_DEFAULT], "network.default_bandwidth",
                         &s->default_bw_bytes_per_s)) != HS_OK)
        return rc;
    if (v[K_LAT] != NULL &&
        (rc = hs__get_time(c, v[K_LAT], "network.latency",
                           &s->latency_ns)) != HS_OK)
        return rc;
    if (v[K_TLINKS] != NULL) {
        yaml_node_item_t *it;
        size_t cnt;
        if (v[K_TLINKS]->type != YAML_SEQUENCE_NODE)
            return hs__fail(c, v[K_TLINKS], HS_ERR_SCHEMA,
                            "network.type_links must be a list of "
                            "[type1, type2, bandwidth] rows");
        cnt = (size_t)(v[K_TLINKS]->data.sequence.items.top -
                       v[K_TLINKS]->data.sequence.items.start);
        tl = calloc(cnt ? cnt : 1, sizeof *tl);
        if (tl == NULL)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        for (it = v[K_TLINKS]->data.sequence.items.start;
             it < v[K_TLINKS]->data.sequence.items.top; it++) {
            yaml_node_t *rn = hs__node(c, *it);
            size_t nf;
            long ta, tb;
            if (rn->type != YAML_SEQUENCE_NODE ||
                (nf = (size_t)(rn->data.sequence.items.top -
                               rn->data.sequence.items.start)) < 3 ||
                nf > 4) {
                rc = hs__fail(c, rn, HS_ERR_SCHEMA,
                              "a type_links row is [type1, type2, "
                              "bandwidth] or [type1, type2, bandwidth, "
                              "latency]");
                goto done;
            }
            for (int i = 0; i < 2; i++) {
                yaml_node_t *en = hs__node(c, rn->data.sequence.items.start[i]);
                const char *tn = hs__scalar(en);
                long ti = tn ? hs__type_index(s, tn) : -1;
                if (ti < 0) {
                    rc = hs__fail(c, en, HS_ERR_SCHEMA,
                                  "type_links names unknown device type "
                                  "'%s'",
                                  tn ? tn : "");
                    goto done;
                }
                if (i == 0)
                    ta = ti;
                else
                    tb = ti;
            }
            tl[ntl].a = (uint32_t)ta;
            tl[ntl].b = (uint32_t)tb;
            tl[ntl].lat_ns = -1;
            if ((rc = hs__get_bw(c,
                                 hs__node(c, rn->data.sequence.items.start[2]),
                                 "type_links bandwidth",
                                 &tl[ntl].bw_bytes_per_s)) != HS_OK)
                goto done;
            if (nf == 4 &&
                (rc = hs__get_time(c,
                                   hs__node(c,
                                            rn->data.sequence.items.start[3]),
                                   "type_links latency",
                                   &tl[ntl].lat_ns)) != HS_OK)
                goto done;
            ntl++;
        }
    }
    if (v[K_LINKS] != NULL || v[K_CSV] != NULL) {
        if (hs__names_ready(nm, s) != 0) {
            rc = hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
            goto done;
        }
    }
    if (v[K_CSV] != NULL) {
        const char *p = hs__scalar(v[K_CSV]);
        char *path;
        if (p == NULL || p[0] == '\0') {
            rc = hs__fail(c, v[K_CSV], HS_ERR_SCHEMA,
                          "network.links_csv must be a file path");
            goto done;
        }
        path = hs_file_join(c->base_dir, p);
        if (path == NULL) {
            rc = hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
            goto done;
        }
        rc = hs__read_links_csv(c, path, &rows, nm);
        if (rc == HS_ERR_IO) {
            char inner[HS_ERRMSG_LEN];
            snprintf(inner, sizeof inner, "%s", c->err->msg);
            rc = hs__fail(c, v[K_CSV], HS_ERR_IO, "network.links_csv: %s",
                          inner);
        }
        free(path);
        if (rc != HS_OK)
            goto done;
    }
    if (v[K_LINKS] != NULL) {
        /* inline rows come after CSV rows: they win on the same pair */
        yaml_node_item_t *it;
        if (v[K_LINKS]->type != YAML_SEQUENCE_NODE) {
            rc = hs__fail(c, v[K_LINKS], HS_ERR_SCHEMA,
                          "network.links must be a list of [addr1, addr2, "
                          "bandwidth] rows");
            goto done;
        }
        for (it = v[K_LINKS]->data.sequence.items.start;
             it < v[K_LINKS]->data.sequence.items.top; it++) {
            yaml_node_t *rn = hs__node(c, *it), *f[4];
            size_t nf, i;
            double bw;
            int64_t lat = -1;
            if (rn->type != YAML_SEQUENCE_NODE ||
                (nf = (size_t)(rn->data.sequence.items.top -
                               rn->data.sequence.items.start)) < 3 ||
                nf > 4) {
                rc = hs__fail(c, rn, HS_ERR_SCHEMA,
                              "a links row is [addr1, addr2, bandwidth] or "
                              "[addr1, addr2, bandwidth, latency]");
                goto done;
            }
            for (i = 0; i < nf; i++)
                f[i] = hs__node(c, rn->data.sequence.items.start[i]);
            for (i = 0; i < 2; i++) {
                const char *e = hs__scalar(f[i]);
                if (e == NULL || !hs__endpoint_known(nm, s, e)) {
                    rc = hs__fail(c, f[i], HS_ERR_NETWORK,
                                  "'%s' is neither a device name nor a "
                                  "device address",
                                  e ? e : "");
                    goto done;
                }
            }
            if ((rc = hs__get_bw(c, f[2], "links bandwidth", &bw)) != HS_OK)
                goto done;
            if (nf == 4 &&
                (rc = hs__get_time(c, f[3], "links latency", &lat)) != HS_OK)
                goto done;
            if (hs__rows_add(&rows, hs__scalar(f[0]), hs__scalar(f[1]), bw,
                             lat) != 0) {
                rc = hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
                goto done;
            }
        }
    }
    if (rows.n > 0 && hs__rows_index(&rows) != 0) {
        rc = hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        goto done;
    }
    s->ring_bw_bytes_per_s = malloc(N * sizeof *s->ring_bw_bytes_per_s);
    s->ring_lat_ns = malloc(N * sizeof *s->ring_lat_ns);
    if (s->ring_bw_bytes_per_s == NULL || s->ring_lat_ns == NULL) {
        rc = hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (k = 0; k < N; k++) {
        const hs_device_t *da = &s->devices[s->ring[k]];
        const hs_device_t *db = &s->devices[s->ring[k + 1 == N ? 0 : k + 1]];
        const hs__row_t *r = NULL;
        double bw = 0;
        int64_t lat = -1;
        size_t i;

        if (rows.n > 0) {
            r = hs__rows_find(&rows, da->name, db->name);
            if (r == NULL)
                r = hs__rows_find(&rows, da->addr, db->addr);
            if (r == NULL)
                r = hs__rows_find(&rows, db->name, da->name);
            if (r == NULL)
                r = hs__rows_find(&rows, db->addr, da->addr);
            if (r == NULL)
                r = hs__rows_find(&rows, da->name, db->addr);
            if (r == NULL)
                r = hs__rows_find(&rows, da->addr, db->name);
            if (r == NULL)
                r = hs__rows_find(&rows, db->name, da->addr);
            if (r == NULL)
                r = hs__rows_find(&rows, db->addr, da->name);
        }
        if (r != NULL) {
            bw = r->bw_bytes_per_s;
            lat = r->lat_ns;
        } else {
            for (i = ntl; i-- > 0;) {
                if ((tl[i].a == da->type && tl[i].b == db->type) ||
                    (tl[i].b == da->type && tl[i].a == db->type)) {
                    bw = tl[i].bw_bytes_per_s;
                    lat = tl[i].lat_ns;
                    break;
                }
            }
        }
        if (bw <= 0)
            bw = s->default_bw_bytes_per_s;
        if (bw <= 0) {
            yaml_node_t *at = n != NULL ? n : root;
            rc = hs__fail(c, at, HS_ERR_NETWORK,
                          "ring link %s (%s) -> %s (%s) has no bandwidth: "
                          "add a row [%s, %s, BANDWIDTH] to network.links "
                          "or set network.default_bandwidth",
                          da->name, da->addr, db->name, db->addr, da->addr,
                          db->addr);
            goto done;
        }
        s->ring_bw_bytes_per_s[k] = bw;
        s->ring_lat_ns[k] = lat >= 0 ? lat : s->latency_ns;
    }
done:
    free(tl);
    hs__rows_free(&rows);
    return rc;
}

static hs_err_t hs__parse_simulate(hs__ctx_t *c, yaml_node_t *n,
                                   hs__names_t *nm)
{
    enum { K_STEPS, K_SEED, K_OVERLAP, K_SEND, K_STOCH, K_STRAG,
           K_STREAMS };
    static const char *const keys[] = {"steps", "seed", "overlap", "send",
                                       "stochastic", "stragglers", "streams",
                                       NULL};
    hs_scenario_t *s = c->s;
    yaml_node_t *v[7];
    hs_err_t rc;

    if ((rc = hs__map(c, n, "simulate", keys, v)) != HS_OK)
        return rc;
    if (v[K_STEPS] != NULL &&
        (rc = hs__get_u32(c, v[K_STEPS], "simulate.steps", 2, 100000000,
                          &s->sim_steps)) != HS_OK)
        return rc;
    if (v[K_SEED] != NULL &&
        (rc = hs__get_u64(c, v[K_SEED], "simulate.seed", 0, UINT64_MAX,
                          &s->seed)) != HS_OK)
        return rc;
    if (v[K_OVERLAP] != NULL &&
        hs_overlap_parse(hs__scalar(v[K_OVERLAP]), &s->overlap) != 0)
        return hs__fail(c, v[K_OVERLAP], HS_ERR_SCHEMA,
                        "simulate.overlap must be patent, buckets or none");
    if (v[K_SEND] != NULL &&
        hs_send_parse(hs__scalar(v[K_SEND]), &s->send) != 0)
        return hs__fail(c, v[K_SEND], HS_ERR_SCHEMA,
                        "simulate.send must be rendezvous or eager");
    if (v[K_STREAMS] != NULL &&
        (rc = hs__get_u32(c, v[K_STREAMS], "simulate.streams", 1,
                          HS_MAX_STREAMS, &s->streams)) != HS_OK)
        return rc;
    if (v[K_STOCH] != NULL &&
        (rc = hs__get_bool(c, v[K_STOCH], "simulate.stochastic",
                           &s->stochastic)) != HS_OK)
        return rc;
    if (v[K_STRAG] != NULL) {
        static const char *const sk[] = {"device", "steps", "factor",
                                         "extra", NULL};
        yaml_node_item_t *it;
        size_t cnt, k = 0;
        if (v[K_STRAG]->type != YAML_SEQUENCE_NODE)
            return hs__fail(c, v[K_STRAG], HS_ERR_SCHEMA,
                            "simulate.stragglers must be a list");
        cnt = (size_t)(v[K_STRAG]->data.sequence.items.top -
                       v[K_STRAG]->data.sequence.items.start);
        s->stragglers = calloc(cnt ? cnt : 1, sizeof *s->stragglers);
        if (s->stragglers == NULL)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        if (hs__names_ready(nm, s) != 0)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        for (it = v[K_STRAG]->data.sequence.items.start;
             it < v[K_STRAG]->data.sequence.items.top; it++, k++) {
            yaml_node_t *sn = hs__node(c, *it), *sv[4];
            hs_straggler_t *g = &s->stragglers[k];
            const char *dn;
            long d;
            if ((rc = hs__map(c, sn, "a straggler", sk, sv)) != HS_OK)
                return rc;
            if ((rc = hs__need(c, sn, sv[0], "device", "a straggler")) !=
                    HS_OK ||
                (rc = hs__need(c, sn, sv[1], "steps", "a straggler")) !=
                    HS_OK)
                return rc;
            dn = hs__scalar(sv[0]);
            d = dn ? hs__hash_find(&nm->by_name, s, 0, dn) : -1;
            if (d < 0)
                return hs__fail(c, sv[0], HS_ERR_SCHEMA,
                                "straggler names unknown device '%s'",
                                dn ? dn : "");
            g->device = (uint32_t)d;
            if (hs__scalar(sv[1]) != NULL) {
                if ((rc = hs__get_u32(c, sv[1], "straggler steps", 0,
                                      UINT32_MAX, &g->first_step)) != HS_OK)
                    return rc;
                g->last_step = g->first_step;
            } else if (sv[1]->type == YAML_SEQUENCE_NODE &&
                       sv[1]->data.sequence.items.top -
                               sv[1]->data.sequence.items.start ==
                           2) {
                if ((rc = hs__get_u32(
                         c, hs__node(c, sv[1]->data.sequence.items.start[0]),
                         "straggler first step", 0, UINT32_MAX,
                         &g->first_step)) != HS_OK ||
                    (rc = hs__get_u32(
                         c, hs__node(c, sv[1]->data.sequence.items.start[1]),
                         "straggler last step", 0, UINT32_MAX,
                         &g->last_step)) != HS_OK)
                    return rc;
                if (g->last_step < g->first_step)
                    return hs__fail(c, sv[1], HS_ERR_RANGE,
                                    "straggler steps [first, last] must not "
                                    "run backwards");
            } else {
                return hs__fail(c, sv[1], HS_ERR_SCHEMA,
                                "straggler steps must be a step number or "
                                "[first, last]");
            }
            g->factor = 1.0;
            if (sv[2] != NULL &&
                (rc = hs__get_double(c, sv[2], "straggler factor", 1e-9,
                                     &g->factor)) != HS_OK)
                return rc;
            if (sv[3] != NULL &&
                (rc = hs__get_time(c, sv[3], "straggler extra",
                                   &g->extra_ns)) != HS_OK)
                return rc;
            s->n_stragglers = k + 1;
        }
    }
    return HS_OK;
}

static hs_err_t hs__parse_profiling(hs__ctx_t *c, yaml_node_t *n)
{
    enum { K_HARNESS, K_PYTHON, K_ITERS, K_WARM, K_TIMEOUT, K_PORT,
           K_LAUNCHER };
    static const char *const keys[] = {"harness", "python", "iterations",
                                       "warmup", "timeout", "master_port",
                                       "launcher", NULL};
    hs_scenario_t *s = c->s;
    yaml_node_t *v[7];
    hs_err_t rc;

    if ((rc = hs__map(c, n, "profiling", keys, v)) != HS_OK)
        return rc;
    if (v[K_HARNESS] != NULL &&
        (rc = hs__get_path(c, v[K_HARNESS], "profiling.harness",
                           &s->harness)) != HS_OK)
        return rc;
    if (v[K_PYTHON] != NULL &&
        (rc = hs__get_str(c, v[K_PYTHON], "profiling.python", &s->python)) !=
            HS_OK)
        return rc;
    if (v[K_ITERS] != NULL &&
        (rc = hs__get_u32(c, v[K_ITERS], "profiling.iterations", 1,
                          100000000, &s->prof_iters)) != HS_OK)
        return rc;
    if (v[K_WARM] != NULL &&
        (rc = hs__get_u32(c, v[K_WARM], "profiling.warmup", 0, 100000000,
                          &s->prof_warmup)) != HS_OK)
        return rc;
    if (s->prof_warmup >= s->prof_iters)
        return hs__fail(c, v[K_WARM] ? v[K_WARM] : n, HS_ERR_RANGE,
                        "profiling.warmup (%u) must be less than "
                        "profiling.iterations (%u)",
                        s->prof_warmup, s->prof_iters);
    if (v[K_TIMEOUT] != NULL &&
        (rc = hs__get_time(c, v[K_TIMEOUT], "profiling.timeout",
                           &s->prof_timeout_ns)) != HS_OK)
        return rc;
    if (v[K_PORT] != NULL &&
        (rc = hs__get_u32(c, v[K_PORT], "profiling.master_port", 1, 65535,
                          &s->master_port)) != HS_OK)
        return rc;
    if (v[K_LAUNCHER] != NULL) {
        yaml_node_item_t *it;
        size_t cnt, k = 0;
        if (v[K_LAUNCHER]->type != YAML_SEQUENCE_NODE)
            return hs__fail(c, v[K_LAUNCHER], HS_ERR_SCHEMA,
                            "profiling.launcher must be a list of words "
                            "(argv), e.g. [ssh, \"{host}\"]");
        cnt = (size_t)(v[K_LAUNCHER]->data.sequence.items.top -
                       v[K_LAUNCHER]->data.sequence.items.start);
        s->launcher = calloc(cnt + 1, sizeof *s->launcher);
        if (s->launcher == NULL)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        for (it = v[K_LAUNCHER]->data.sequence.items.start;
             it < v[K_LAUNCHER]->data.sequence.items.top; it++, k++) {
            if ((rc = hs__get_str(c, hs__node(c, *it), "a launcher word",
                                  &s->launcher[k])) != HS_OK)
                return rc;
            s->n_launcher = k + 1;
        }
    }
    return HS_OK;
}

/* Checks that the job's numbers fit together; adds warnings. */
static hs_err_t hs__check(hs__ctx_t *c)
{
    hs_scenario_t *s = c->s;
    size_t i;
    double m0 = 0;

    size_t first = s->n_types;

    for (i = 0; i < s->n_types; i++) {
        double m;
        if (!s->types[i].has_profile)
            continue;
        m = hs_profile_payload_bytes(&s->types[i].profile);
        if (first == s->n_types) {
            first = i;
            m0 = m;
        } else if (fabs(m - m0) > 0.01 * m0) {
            hs__warn(s,
                     "types '%s' and '%s' measured different gradient "
                     "payloads (%.0f and %.0f bytes): the same model should "
                     "give the same payload; each device uses its own "
                     "type's",
                     s->types[first].name, s->types[i].name, m0, m);
        }
    }
    return HS_OK;
}

static hs_err_t hs__parse_root(hs__ctx_t *c, yaml_node_t *root)
{
    enum { K_NAME, K_JOB, K_TYPES, K_DEVICES, K_RING, K_NET, K_SIM,
           K_PROF };
    static const char *const keys[] = {"name", "job", "device_types",
                                       "devices", "ring", "network",
                                       "simulate", "profiling", NULL};
    yaml_node_t *v[8];
    hs__names_t nm;
    hs_err_t rc;

    memset(&nm, 0, sizeof nm);
    if ((rc = hs__map(c, root, "the scenario", keys, v)) != HS_OK)
        return rc;
    if (v[K_NAME] != NULL &&
        (rc = hs__get_str(c, v[K_NAME], "name", &c->s->name)) != HS_OK)
        return rc;
    if (v[K_JOB] != NULL && (rc = hs__parse_job(c, v[K_JOB])) != HS_OK)
        return rc;
    if ((rc = hs__need(c, root, v[K_TYPES], "device_types",
                       "the scenario")) != HS_OK)
        return rc;
    if ((rc = hs__parse_types(c, v[K_TYPES])) != HS_OK)
        return rc;
    if ((rc = hs__parse_devices(c, v[K_DEVICES])) != HS_OK)
        goto done;
    if ((rc = hs__parse_ring(c, v[K_RING], &nm)) != HS_OK)
        goto done;
    if ((rc = hs__parse_network(c, v[K_NET], &nm, root)) != HS_OK)
        goto done;
    if (v[K_SIM] != NULL &&
        (rc = hs__parse_simulate(c, v[K_SIM], &nm)) != HS_OK)
        goto done;
    if (v[K_PROF] != NULL &&
        (rc = hs__parse_profiling(c, v[K_PROF])) != HS_OK)
        goto done;
    if (c->s->streams == 0) {
        /* not given: ProcessGroupGloo runs 2 collectives at a time (its
           default of 2 worker threads), NCCL one stream */
        size_t i, gloo = c->s->n_types > 0;
        for (i = 0; i < c->s->n_types; i++)
            if (c->s->types[i].backend == NULL ||
                strcmp(c->s->types[i].backend, "gloo") != 0)
                gloo = 0;
        c->s->streams = gloo ? 2 : 1;
    }
    rc = hs__check(c);
done:
    free(nm.by_name.slot);
    free(nm.by_addr.slot);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Public entry points                                                   */

void hs_scenario_free(hs_scenario_t *s)
{
    size_t i, j;

    if (s == NULL)
        return;
    free(s->file);
    free(s->text);
    free(s->name);
    free(s->model_label);
    free(s->model_file);
    free(s->model_entry);
    free(s->dataset_file);
    free(s->dataset_entry);
    for (i = 0; i < s->n_types; i++) {
        hs_type_t *t = &s->types[i];
        free(t->name);
        hs_profile_clear(&t->profile);
        free(t->backend);
        for (j = 0; j < t->n_env; j++)
            free(t->env[j]);
        free(t->env);
    }
    free(s->types);
    free(s->devices);
    free(s->ring);
    free(s->ring_bw_bytes_per_s);
    free(s->ring_lat_ns);
    free(s->stragglers);
    free(s->harness);
    free(s->python);
    for (i = 0; i < s->n_launcher; i++)
        free(s->launcher[i]);
    free(s->launcher);
    free(s->arena);
    for (i = 0; i < s->n_warnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    free(s);
}

hs_err_t hs_scenario_load_text(const char *text, size_t len,
                               const char *name, const char *base_dir,
                               hs_scenario_t **out, hs_error_t *err)
{
    hs_scenario_t *s;
    yaml_document_t doc;
    hs__ctx_t c;
    hs_err_t rc;

    *out = NULL;
    hs_error_clear(err);
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    s->file = name != NULL ? strdup(name) : NULL;
    s->text = malloc(len + 1);
    if (s->file == NULL || s->text == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(s->text, text, len);
    s->text[len] = '\0';
    s->epochs = 1;
    s->sim_steps = 10;
    s->streams = 0;     /* resolved after parsing: 2 for all-gloo, else 1 */
    s->seed = 1;
    s->overlap = HS_OVERLAP_PATENT;
    s->send = HS_SEND_RENDEZVOUS;
    s->prof_iters = 100;
    s->prof_warmup = 20;
    s->prof_timeout_ns = 600LL * 1000000000LL;
    s->master_port = 29500;
    if ((rc = hs__load_doc(name, s->text, len, &doc, err)) != HS_OK)
        goto fail;
    memset(&c, 0, sizeof c);
    c.file = name;
    c.base_dir = base_dir;
    c.doc = &doc;
    c.err = err;
    c.s = s;
    rc = hs__parse_root(&c, yaml_document_get_root_node(&doc));
    yaml_document_delete(&doc);
    if (rc != HS_OK)
        goto fail;
    *out = s;
    return HS_OK;
fail:
    hs_scenario_free(s);
    return rc;
}

hs_err_t hs_scenario_load(const char *path, hs_scenario_t **out,
                          hs_error_t *err)
{
    char *text = NULL, *dir = NULL;
    size_t len;
    hs_err_t rc;

    *out = NULL;
    if ((rc = hs_file_read(path, &text, &len, err)) != HS_OK)
        return rc;
    dir = hs_file_absdir(path);
    if (dir == NULL) {
        free(text);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    rc = hs_scenario_load_text(text, len, path, dir, out, err);
    free(dir);
    free(text);
    return rc;
}

const char *hs_scenario_default_text(void)
{
    return hs_default_scenario_yaml;
}

hs_err_t hs_scenario_load_default(hs_scenario_t **out, hs_error_t *err)
{
    return hs_scenario_load_text(hs_default_scenario_yaml,
                                 hs_default_scenario_len,
                                 "<default>/scenarios/default.yaml", NULL,
                                 out, err);
}
