/*
 * hs_yaml.c -- the strict YAML walker shared by scenarios and profiles
 * (hs_yaml.h).
 *
 * The file is loaded with libyaml's document API; every node keeps its
 * start mark, so each error names "file:line:col".  The walk is strict: a
 * key the schema does not know, a value of the wrong type, a quantity
 * without its unit, a duplicate key -- each is an error, never a silent
 * default, because a what-if study built on a typo is worse than no answer.
 */
#include "hs_yaml.h"
#include "hs_notes.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_file.h"
#include "hs_suggest.h"
#include "hs_limits.h"
#include "hs_units.h"
#include "hs_valid.h"

hs_err_t hs_yaml_fail(hs_yaml_ctx_t *c, const yaml_node_t *n, hs_err_t code,
                      const char *fmt, ...)
{
    char msg[HS_ERRMSG_LEN];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n != NULL && !c->no_pos)
        return hs_error_set(c->err, code, c->file,
                            (unsigned long)n->start_mark.line + 1,
                            (unsigned long)n->start_mark.column + 1, "%s",
                            msg);
    return hs_error_set(c->err, code, c->file, 0, 0, "%s", msg);
}

yaml_node_t *hs_yaml_node(hs_yaml_ctx_t *c, int id)
{
    return yaml_document_get_node(c->doc, id);
}

const char *hs_yaml_scalar(const yaml_node_t *n)
{
    return n != NULL && n->type == YAML_SCALAR_NODE
               ? (const char *)n->data.scalar.value
               : NULL;
}

const char *hs_yaml_kind(const yaml_node_t *n)
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

int hs_yaml_is_null(const yaml_node_t *n)
{
    const char *v = hs_yaml_scalar(n);

    return v != NULL && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0);
}

/*
 * Checks that n is a mapping whose keys are scalars from `allowed`, each at
 * most once.  On success fills vals[i] with the value node of allowed[i] or
 * NULL.  `what` names the mapping in messages.
 */
hs_err_t hs_yaml_map(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                        const char *const *allowed, yaml_node_t **vals)
{
    yaml_node_pair_t *p;
    size_t i, na = 0;

    while (allowed[na] != NULL)
        na++;
    for (i = 0; i < na; i++)
        vals[i] = NULL;
    if (n == NULL || n->type != YAML_MAPPING_NODE)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA, "%s must be a mapping, not %s",
                            what, hs_yaml_kind(n));
    for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = hs_yaml_node(c, p->key);
        const char *key = hs_yaml_scalar(k);
        size_t j;

        if (key == NULL)
            return hs_yaml_fail(c, k, HS_ERR_SCHEMA,
                                "keys of %s must be plain names", what);
        for (j = 0; j < na; j++)
            if (strcmp(key, allowed[j]) == 0)
                break;
        if (j == na) {
            char list[512];
            size_t off = 0;
            char hint[HS_SUGGEST_HINT_LEN];
            for (i = 0; i < na && off < sizeof list; i++)
                off += (size_t)snprintf(list + off, sizeof list - off,
                                        "%s%s", i ? ", " : "", allowed[i]);
            return hs_yaml_fail(c, k, HS_ERR_SCHEMA,
                                "unknown key '%s' in %s%s (known: %s)", hs_ex(key),
                                what,
                                hs_suggest_hint_list(key, allowed, hint,
                                                     sizeof hint),
                                list);
        }
        if (vals[j] != NULL)
            return hs_yaml_fail(c, k, HS_ERR_SCHEMA, "duplicate key '%s' in %s",
                                hs_ex(key), what);
        vals[j] = hs_yaml_node(c, p->value);
    }
    return HS_OK;
}

hs_err_t hs_yaml_need(hs_yaml_ctx_t *c, yaml_node_t *parent,
                         yaml_node_t *val, const char *key, const char *what)
{
    if (val == NULL)
        return hs_yaml_fail(c, parent, HS_ERR_SCHEMA, "%s needs '%s'", what,
                            key);
    return HS_OK;
}

hs_err_t hs_yaml_get_str(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                            char **out)
{
    const char *v = hs_yaml_scalar(n);

    if (v == NULL)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA, "%s must be a string, not %s",
                            what, hs_yaml_kind(n));
    if (v[0] == '\0')
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA, "%s must not be empty", what);
    free(*out);
    *out = strdup(v);
    if (*out == NULL)
        return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

int hs_yaml_all_digits(const char *v)
{
    if (*v == '\0')
        return 0;
    for (; *v; v++)
        if (!isdigit((unsigned char)*v) && *v != '_')
            return 0;
    return 1;
}

int hs_yaml_parse_u64(const char *v, uint64_t *out)
{
    char buf[64];
    size_t n = 0;
    unsigned long long x;
    char *end;

    if (!hs_yaml_all_digits(v))
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

hs_err_t hs_yaml_get_u64(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                            uint64_t min, uint64_t max, uint64_t *out)
{
    const char *v = hs_yaml_scalar(n);
    uint64_t x;

    if (v == NULL)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "%s must be a whole number, not %s", what,
                            hs_yaml_kind(n));
    if (hs_yaml_parse_u64(v, &x) != 0)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "%s must be a whole number, not '%s'", what,
                            hs_ex(v));
    if (x < min || x > max)
        return hs_yaml_fail(c, n, HS_ERR_RANGE,
                            "%s must be between %llu and %llu, not %llu", what,
                            (unsigned long long)min, (unsigned long long)max,
                            (unsigned long long)x);
    *out = x;
    return HS_OK;
}

hs_err_t hs_yaml_get_u32(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                            uint32_t min, uint32_t max, uint32_t *out)
{
    uint64_t x;
    hs_err_t rc = hs_yaml_get_u64(c, n, what, min, max, &x);

    if (rc == HS_OK)
        *out = (uint32_t)x;
    return rc;
}

hs_err_t hs_yaml_get_double(hs_yaml_ctx_t *c, yaml_node_t *n,
                               const char *what, double min, double *out)
{
    const char *v = hs_yaml_scalar(n);
    char *end;
    double x;

    if (v == NULL)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA, "%s must be a number, not %s",
                            what, hs_yaml_kind(n));
    errno = 0;
    x = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !isfinite(x))
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "%s must be a number, not '%s'", what,
                            hs_ex(v));
    if (x < min)
        return hs_yaml_fail(c, n, HS_ERR_RANGE,
                            "%s must be at least %g, not %g", what, min, x);
    *out = x;
    return HS_OK;
}

hs_err_t hs_yaml_get_factor(hs_yaml_ctx_t *c, yaml_node_t *n,
                            const char *what, double *out)
{
    double x = 0;
    hs_err_t rc = hs_yaml_get_double(c, n, what, HS_LIMIT_FACTOR_MIN, &x);

    if (rc != HS_OK)
        return rc;
    if (x > HS_LIMIT_FACTOR_MAX)
        return hs_yaml_fail(c, n, HS_ERR_RANGE,
                            "%s must be at most %g (a device %g times "
                            "slower is beyond what hetsim models), not %g",
                            what, HS_LIMIT_FACTOR_MAX, HS_LIMIT_FACTOR_MAX,
                            x);
    *out = x;
    return HS_OK;
}

hs_err_t hs_yaml_get_bool(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                             int *out)
{
    const char *v = hs_yaml_scalar(n);

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
    return hs_yaml_fail(c, n, HS_ERR_SCHEMA, "%s must be true or false", what);
}

/* A quantity v of kind that did not parse: a range error with the limit
   when it is well formed but outside the limits; else the unit error
   `unit_msg` (which quotes what and v), with the rule it broke when that
   is not the unit itself. */
static hs_err_t hs__quantity_fail(hs_yaml_ctx_t *c, yaml_node_t *n,
                                  hs_unit_kind_t kind, const char *what,
                                  const char *v, const char *unit_msg)
{
    int range = 0;
    const char *why = hs_units_why(kind, v, &range);

    if (range)
        return hs_yaml_fail(c, n, HS_ERR_RANGE, "%s: '%s' %s", what, hs_ex(v),
                            why);
    if (why != NULL && strstr(why, "with a unit") == NULL)
        return hs_yaml_fail(c, n, HS_ERR_UNIT, "%s (it %s)", unit_msg, why);
    return hs_yaml_fail(c, n, HS_ERR_UNIT, "%s", unit_msg);
}

hs_err_t hs_yaml_get_time(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                             int64_t *out_ns)
{
    const char *v = hs_yaml_scalar(n);

    if (v == NULL)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "%s must be a duration such as 20ms, not %s", what,
                            hs_yaml_kind(n));
    if (hs_parse_time_ns(v, out_ns) != 0) {
        char msg[HS_ERRMSG_LEN];
        snprintf(msg, sizeof msg,
                 "%s: '%s' is not a duration with a unit "
                 "(ns, us, ms, s, min, h), e.g. 20ms or 150us",
                 what, hs_ex(v));
        return hs__quantity_fail(c, n, HS_UNIT_TIME, what, v, msg);
    }
    return HS_OK;
}

hs_err_t hs_yaml_get_bytes(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                              uint64_t *out)
{
    const char *v = hs_yaml_scalar(n);

    if (v == NULL)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "%s must be a size such as 350MB, not %s", what,
                            hs_yaml_kind(n));
    if (hs_parse_bytes(v, out) != 0) {
        char msg[HS_ERRMSG_LEN];
        snprintf(msg, sizeof msg,
                 "%s: '%s' is not a size with a unit (B, KB, MB, "
                 "GB, TB, KiB, MiB, GiB, TiB), e.g. 350MB or "
                 "102228128B",
                 what, hs_ex(v));
        return hs__quantity_fail(c, n, HS_UNIT_SIZE, what, v, msg);
    }
    return HS_OK;
}

hs_err_t hs_yaml_get_bw(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                           double *out)
{
    const char *v = hs_yaml_scalar(n);

    if (v == NULL)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "%s must be a bandwidth such as 25Gbps, not %s",
                            what, hs_yaml_kind(n));
    if (hs_parse_bandwidth(v, out) != 0) {
        char msg[HS_ERRMSG_LEN];
        snprintf(msg, sizeof msg,
                 "%s: '%s' is not a positive bandwidth with a unit "
                 "(bps, Mbps, Gbps, Mbit/s, MB/s, GB/s, GiB/s...), "
                 "e.g. 25Gbps or 12.5GB/s",
                 what, hs_ex(v));
        return hs__quantity_fail(c, n, HS_UNIT_BANDWIDTH, what, v, msg);
    }
    return HS_OK;
}

/* A sample count (bare whole number) or a size with unit. */
hs_err_t hs_yaml_get_amount(hs_yaml_ctx_t *c, yaml_node_t *n,
                               const char *what, int *is_bytes,
                               uint64_t *out)
{
    const char *v = hs_yaml_scalar(n);

    if (v != NULL && hs_yaml_all_digits(v)) {
        *is_bytes = 0;
        return hs_yaml_get_u64(c, n, what, 1, HS_LIMIT_COUNT, out);
    }
    *is_bytes = 1;
    if (v == NULL)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "%s must be a sample count (e.g. 9000) or a size "
                            "(e.g. 1GB), not %s",
                            what, hs_yaml_kind(n));
    if (hs_parse_bytes(v, out) != 0) {
        char msg[HS_ERRMSG_LEN];
        snprintf(msg, sizeof msg,
                 "%s: '%s' is neither a sample count nor a size with "
                 "a unit (e.g. 9000 or 1GB)",
                 what, hs_ex(v));
        return hs__quantity_fail(c, n, HS_UNIT_SIZE, what, v, msg);
    }
    if (*out == 0)
        return hs_yaml_fail(c, n, HS_ERR_RANGE, "%s must be more than 0", what);
    return HS_OK;
}
hs_err_t hs_yaml_warn(hs_yaml_ctx_t *c, const char *fmt, ...)
{
    hs_notes_t nl;
    va_list ap;
    int rc;

    if (c->warnings == NULL || c->n_warnings == NULL)
        return HS_OK;
    nl.n = *c->n_warnings;
    nl.items = *c->warnings;
    va_start(ap, fmt);
    rc = hs_notes_vadd(&nl, fmt, ap);
    va_end(ap);
    *c->warnings = nl.items;
    *c->n_warnings = nl.n;
    return rc == 0 ? HS_OK : HS_ERR_NOMEM;
}

size_t hs_yaml_len(const yaml_node_t *n)
{
    if (n == NULL)
        return 0;
    if (n->type == YAML_SEQUENCE_NODE)
        return (size_t)(n->data.sequence.items.top -
                        n->data.sequence.items.start);
    if (n->type == YAML_MAPPING_NODE)
        return (size_t)(n->data.mapping.pairs.top -
                        n->data.mapping.pairs.start);
    return 0;
}

yaml_node_t *hs_yaml_item(hs_yaml_ctx_t *c, const yaml_node_t *n, size_t i)
{
    if (n == NULL || n->type != YAML_SEQUENCE_NODE || i >= hs_yaml_len(n))
        return NULL;
    return hs_yaml_node(c, n->data.sequence.items.start[i]);
}

/* A file path, resolved against the scenario's directory. */
hs_err_t hs_yaml_get_path(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                             char **out)
{
    char *p = NULL;
    hs_err_t rc = hs_yaml_get_str(c, n, what, &p);

    if (rc != HS_OK)
        return rc;
    free(*out);
    *out = hs_file_join(c->base_dir, p);
    free(p);
    if (*out == NULL)
        return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* An error at mark m, or without a position when no_pos. */
static hs_err_t hs__yaml_check_fail(hs_error_t *err, hs_err_t code,
                                    const char *name, int no_pos,
                                    const yaml_mark_t *m, const char *what)
{
    if (no_pos)
        return hs_error_set(err, code, name, 0, 0, "%s", what);
    return hs_error_set(err, code, name, (unsigned long)m->line + 1,
                        (unsigned long)m->column + 1, "%s", what);
}

hs_err_t hs_yaml_check(const char *name, const char *text, size_t len,
                       int no_pos, hs_error_t *err)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    unsigned depth = 0, docs = 0;
    const char *nul = memchr(text, '\0', len);
    hs_err_t rc = HS_OK;
    char what[160];

    if (nul != NULL) {
        unsigned long line = 1, col = 1;
        const char *p;
        for (p = text; p < nul; p++) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        return hs_error_set(err, HS_ERR_SYNTAX, name, no_pos ? 0 : line,
                            col, "a NUL byte: not YAML text");
    }
    if (!yaml_parser_initialize(&parser))
        return hs_error_set(err, HS_ERR_NOMEM, name, 0, 0, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    for (;;) {
        yaml_event_type_t t;

        if (!yaml_parser_parse(&parser, &ev)) {
            if (no_pos)     /* a value typed in: quote it */
                snprintf(what, sizeof what, "'%s' is not a YAML value: %s",
                         hs_ex(text),
                         parser.problem ? parser.problem : "malformed");
            else
                snprintf(what, sizeof what, "YAML syntax error: %s%s%s",
                         parser.problem ? parser.problem
                                        : "malformed input",
                         parser.context ? " " : "",
                         parser.context ? parser.context : "");
            rc = hs__yaml_check_fail(err, HS_ERR_SYNTAX, name, no_pos,
                                     &parser.problem_mark, what);
            break;
        }
        t = ev.type;
        if (t == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
            rc = hs__yaml_check_fail(
                err, HS_ERR_SYNTAX, name, no_pos, &ev.start_mark,
                "a second YAML document: hetsim reads one document per "
                "file (remove the '---' and what follows, or split the "
                "file)");
        } else if (t == YAML_SEQUENCE_START_EVENT ||
                   t == YAML_MAPPING_START_EVENT) {
            if (++depth > HS_LIMIT_NEST_DEPTH) {
                snprintf(what, sizeof what,
                         "nested deeper than %d levels (the limit)",
                         HS_LIMIT_NEST_DEPTH);
                rc = hs__yaml_check_fail(err, HS_ERR_SYNTAX, name, no_pos,
                                         &ev.start_mark, what);
            }
        } else if (t == YAML_SEQUENCE_END_EVENT ||
                   t == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&ev);
        if (rc != HS_OK || t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&parser);
    return rc;
}

/* Parses text into doc; a syntax error becomes file:line:col. */
hs_err_t hs_yaml_load_doc(const char *name, const char *text, size_t len,
                             yaml_document_t *doc, hs_error_t *err)
{
    yaml_parser_t parser;
    int ok;
    hs_err_t crc;

    if ((crc = hs_yaml_check(name, text, len, 0, err)) != HS_OK)
        return crc;

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

