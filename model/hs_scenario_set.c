/*
 * hs_scenario_set.c -- a loaded scenario as data (hs_scenario.h):
 * hs_scenario_set changes one setting from the text a user would type in
 * the YAML, hs_scenario_clone deep-copies, hs_scenario_link answers any
 * pair of devices from the link table.
 *
 * A value is parsed as a one-line YAML document and read with the same
 * getters as the loader (model/hs_yaml.h), the context naming the key path
 * instead of a file position, so the validation and the error classes are
 * the loader's and every message reads "key_path: what is wrong".  Nothing
 * is changed until the value has been read whole: a failed set leaves the
 * scenario as it was.  A set that changes what the cluster is derived
 * from marks the scenario dirty; hs_scenario_resolve re-derives it once
 * after several sets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "hs_collective.h"
#include "hs_limits.h"
#include "hs_nodes.h"
#include "hs_scenario.h"
#include "hs_scenario_int.h"
#include "hs_valid.h"
#include "hs_suggest.h"
#include "hs_yaml.h"

#define HS__MAX_COMPS 8

/* "key_path: unknown key; valid: a, b, c" (HS_ERR_SCHEMA). */
static hs_err_t hs__unknown(hs_error_t *err, const char *key_path,
                            const char *const *valid)
{
    char list[512], word[HS_SUGGEST_MAX_LEN + 1], hint[HS_SUGGEST_HINT_LEN];
    const char *best = NULL, *p = key_path, *dot;
    size_t off = 0, i, best_d = 0;

    list[0] = '\0';
    for (i = 0; valid[i] != NULL && off < sizeof list; i++)
        off += (size_t)snprintf(list + off, sizeof list - off, "%s%s",
                                i ? ", " : "", valid[i]);
    /* the mistyped part is one of the path's components: the one nearest
       to a valid key */
    for (;; p = dot + 1) {
        const char *m;
        size_t n;
        dot = strchr(p, '.');
        n = dot != NULL ? (size_t)(dot - p) : strlen(p);
        if (n <= HS_SUGGEST_MAX_LEN) {
            memcpy(word, p, n);
            word[n] = '\0';
            m = hs_suggest_list(word, valid);
            if (m != NULL && (best == NULL ||
                              hs_suggest_distance(word, m) < best_d)) {
                best = m;
                best_d = hs_suggest_distance(word, m);
            }
        }
        if (dot == NULL)
            break;
    }
    hint[0] = '\0';
    if (best != NULL)
        snprintf(hint, sizeof hint, "; did you mean '%s'?", best);
    return hs_error_set(err, HS_ERR_SCHEMA, key_path, 0, 0,
                        "unknown key; valid: %s%s", list, hint);
}

/* A whole number in [min, max]: "'x' is not a count >= min". */
static hs_err_t hs__count(hs_yaml_ctx_t *c, yaml_node_t *n, uint64_t min,
                          uint64_t max, uint64_t *out)
{
    const char *v = hs_yaml_scalar(n);
    uint64_t x;

    if (v == NULL)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA, "%s is not a count >= %llu",
                            hs_yaml_kind(n), (unsigned long long)min);
    if (hs_yaml_parse_u64(v, &x) != 0 || x < min)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "'%s' is not a count >= %llu", v,
                            (unsigned long long)min);
    if (x > max)
        return hs_yaml_fail(c, n, HS_ERR_RANGE, "'%s' is more than %llu", v,
                            (unsigned long long)max);
    *out = x;
    return HS_OK;
}

/* The type named `name`, or HS_ERR_SCHEMA listing the type names. */
static hs_err_t hs__type(const hs_scenario_t *s, const char *name,
                         const char *key_path, long *out, hs_error_t *err)
{
    char hint[HS__HINT_LEN];

    *out = hs__type_index(s, name);
    if (*out >= 0)
        return HS_OK;
    return hs_error_set(err, HS_ERR_SCHEMA, key_path, 0, 0,
                        "unknown device type '%s'%s", name,
                        hs__type_hint(s, name, hint, sizeof hint));
}

static hs_err_t hs__set_type(hs_yaml_ctx_t *c, hs_scenario_t *s,
                             char **comp, size_t nc, const char *key_path,
                             yaml_node_t *n)
{
    static const char *const valid[] = {"count", "batch", "shard",
                                        "micro_batches", "profile", NULL};
    hs_type_t *t;
    uint64_t x;
    long ti;
    hs_err_t rc;

    if (nc < 2)
        return hs__unknown(c->err, key_path, (const char *const[]){
                                                 "<type>", NULL});
    if ((rc = hs__type(s, comp[1], key_path, &ti, c->err)) != HS_OK)
        return rc;
    t = &s->types[ti];
    if (nc == 3 && strcmp(comp[2], "count") == 0) {
        if (s->devices_listed)
            return hs_yaml_fail(c, NULL, HS_ERR_SCHEMA,
                                "the scenario lists its devices: the count "
                                "follows that list");
        if ((rc = hs__count(c, n, 0, HS_LIMIT_DEVICES, &x)) != HS_OK)
            return rc;
        t->count = x;
        t->has_count = 1;
        s->dirty = 1;
        return HS_OK;
    }
    if (nc == 3 && strcmp(comp[2], "batch") == 0) {
        if ((rc = hs__count(c, n, 1, UINT32_MAX, &x)) != HS_OK)
            return rc;
        t->batch = x;
        return HS_OK;
    }
    if (nc == 3 && strcmp(comp[2], "micro_batches") == 0) {
        if ((rc = hs__count(c, n, 1, HS_LIMIT_MICRO_BATCHES, &x)) != HS_OK)
            return rc;
        t->micro_batches = (uint32_t)x;
        return HS_OK;
    }
    if (nc == 3 && strcmp(comp[2], "shard") == 0) {
        int is_bytes;
        if ((rc = hs_yaml_get_amount(c, n, "shard", &is_bytes, &x)) != HS_OK)
            return rc;
        if (is_bytes && s->sample_bytes == 0)
            return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                                "shard is a size: give "
                                "job.dataset.sample_bytes to count samples");
        t->shard = x;
        t->shard_is_bytes = is_bytes;
        return HS_OK;
    }
    if (nc == 4 && strcmp(comp[2], "profile") == 0) {
        hs_profile_t tmp;
        if (!t->has_profile)
            return hs_yaml_fail(c, NULL, HS_ERR_SCHEMA,
                                "device type '%s' has no profile to change",
                                t->name);
        if (hs_profile_copy(&tmp, &t->profile) != 0)
            return hs_yaml_fail(c, NULL, HS_ERR_NOMEM, "out of memory");
        rc = hs_profile_set_key(c, &tmp, comp[3], n, comp[3]);
        if (rc != HS_OK) {
            hs_profile_clear(&tmp);
            return rc;
        }
        hs_profile_clear(&t->profile);
        t->profile = tmp;
        return HS_OK;
    }
    return hs__unknown(c->err, key_path, valid);
}

static hs_err_t hs__set_job(hs_yaml_ctx_t *c, hs_scenario_t *s, char **comp,
                            size_t nc, const char *key_path, yaml_node_t *n)
{
    static const char *const valid[] = {"epochs", "dataset", NULL};
    static const char *const dvalid[] = {"samples", "size", "sample_bytes",
                                         NULL};
    uint64_t x;
    hs_err_t rc;

    if (nc == 2 && strcmp(comp[1], "epochs") == 0) {
        if ((rc = hs__count(c, n, 1, 1000000000, &x)) != HS_OK)
            return rc;
        s->epochs = (uint32_t)x;
        return HS_OK;
    }
    if (nc < 2 || strcmp(comp[1], "dataset") != 0)
        return hs__unknown(c->err, key_path, valid);
    if (nc == 3 && strcmp(comp[2], "samples") == 0) {
        if ((rc = hs__count(c, n, 1, HS_LIMIT_COUNT, &x)) != HS_OK)
            return rc;
        s->dataset_total = x;
        s->dataset_is_bytes = 0;
        return HS_OK;
    }
    if (nc == 3 && strcmp(comp[2], "size") == 0) {
        if ((rc = hs_yaml_get_bytes(c, n, "size", &x)) != HS_OK)
            return rc;
        if (s->sample_bytes == 0)
            return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                                "job.dataset.size is in bytes: give "
                                "job.dataset.sample_bytes too, to count "
                                "samples");
        s->dataset_total = x;
        s->dataset_is_bytes = 1;
        return HS_OK;
    }
    if (nc == 3 && strcmp(comp[2], "sample_bytes") == 0) {
        if ((rc = hs_yaml_get_bytes(c, n, "sample_bytes", &x)) != HS_OK)
            return rc;
        if (x == 0)
            return hs_yaml_fail(c, n, HS_ERR_RANGE,
                                "job.dataset.sample_bytes must be > 0");
        s->sample_bytes = x;
        return HS_OK;
    }
    return hs__unknown(c->err, key_path, dvalid);
}

static hs_err_t hs__set_network(hs_yaml_ctx_t *c, hs_scenario_t *s,
                                char **comp, size_t nc, const char *key_path,
                                yaml_node_t *n)
{
    static const char *const valid[] = {"default_bandwidth", "latency",
                                        "type_links", NULL};
    hs_err_t rc;

    if (nc == 2 && strcmp(comp[1], "default_bandwidth") == 0) {
        double bw;
        if ((rc = hs_yaml_get_bw(c, n, "default_bandwidth", &bw)) != HS_OK)
            return rc;
        s->default_bw_bytes_per_s = bw;
        s->dirty = 1;
        return HS_OK;
    }
    if (nc == 2 && strcmp(comp[1], "latency") == 0) {
        int64_t lat;
        if ((rc = hs_yaml_get_time(c, n, "latency", &lat)) != HS_OK)
            return rc;
        s->latency_ns = lat;
        s->dirty = 1;
        return HS_OK;
    }
    if (nc == 4 && strcmp(comp[1], "type_links") == 0) {
        /* build the row [A, B, bw(, lat)] in the value's document and read
           it as the loader reads a type_links row */
        long ta, tb;
        int row, ia, ib, ok = 1;
        size_t i, k = hs_yaml_len(n);
        if ((rc = hs__type(s, comp[2], key_path, &ta, c->err)) != HS_OK ||
            (rc = hs__type(s, comp[3], key_path, &tb, c->err)) != HS_OK)
            return rc;
        if (hs_yaml_scalar(n) == NULL &&
            (n->type != YAML_SEQUENCE_NODE || k < 1 || k > 2))
            return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                                "a type link is a bandwidth or [bandwidth, "
                                "latency]");
        row = yaml_document_add_sequence(c->doc, NULL,
                                         YAML_FLOW_SEQUENCE_STYLE);
        ia = yaml_document_add_scalar(c->doc, NULL,
                                      (yaml_char_t *)comp[2], -1,
                                      YAML_PLAIN_SCALAR_STYLE);
        ib = yaml_document_add_scalar(c->doc, NULL,
                                      (yaml_char_t *)comp[3], -1,
                                      YAML_PLAIN_SCALAR_STYLE);
        if (!row || !ia || !ib)
            return hs_yaml_fail(c, NULL, HS_ERR_NOMEM, "out of memory");
        ok = yaml_document_append_sequence_item(c->doc, row, ia) &&
             yaml_document_append_sequence_item(c->doc, row, ib);
        /* n may have moved: the document's node array grew */
        n = yaml_document_get_root_node(c->doc);
        if (hs_yaml_scalar(n) != NULL) {
            ok = ok && yaml_document_append_sequence_item(c->doc, row, 1);
        } else {
            int items[2];
            for (i = 0; i < k; i++)
                items[i] = n->data.sequence.items.start[i];
            for (i = 0; ok && i < k; i++)
                ok = yaml_document_append_sequence_item(c->doc, row,
                                                        items[i]);
        }
        if (!ok)
            return hs_yaml_fail(c, NULL, HS_ERR_NOMEM, "out of memory");
        rc = hs__type_row(c, hs_yaml_node(c, row), 1);
        if (rc == HS_OK)
            s->dirty = 1;
        return rc;
    }
    return hs__unknown(c->err, key_path, valid);
}

static hs_err_t hs__set_simulate(hs_yaml_ctx_t *c, hs_scenario_t *s,
                                 char **comp, size_t nc,
                                 const char *key_path, yaml_node_t *n)
{
    static const char *const valid[] = {"steps", "seed", "overlap", "send",
                                        "streams", "stochastic", NULL};
    const char *k = nc == 2 ? comp[1] : "";
    uint64_t x;
    hs_err_t rc;

    if (strcmp(k, "steps") == 0) {
        if ((rc = hs__count(c, n, 2, 100000000, &x)) != HS_OK)
            return rc;
        s->sim_steps = (uint32_t)x;
    } else if (strcmp(k, "seed") == 0) {
        if ((rc = hs__count(c, n, 0, UINT64_MAX, &x)) != HS_OK)
            return rc;
        s->seed = x;
    } else if (strcmp(k, "overlap") == 0) {
        if (hs_overlap_parse(hs_yaml_scalar(n), &s->overlap) != 0)
            return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                                "must be patent, buckets, none or last_bucket");
    } else if (strcmp(k, "send") == 0) {
        if (hs_send_parse(hs_yaml_scalar(n), &s->send) != 0)
            return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                                "must be rendezvous or eager");
    } else if (strcmp(k, "streams") == 0) {
        if ((rc = hs__count(c, n, 1, HS_MAX_STREAMS, &x)) != HS_OK)
            return rc;
        s->streams = (uint32_t)x;
    } else if (strcmp(k, "stochastic") == 0) {
        int b;
        if ((rc = hs_yaml_get_bool(c, n, "stochastic", &b)) != HS_OK)
            return rc;
        s->stochastic = b;
    } else {
        return hs__unknown(c->err, key_path, valid);
    }
    return HS_OK;
}

/* devices.<name>.<key>: the name may hold dots, the key is the last part. */
static hs_err_t hs__set_device(hs_yaml_ctx_t *c, hs_scenario_t *s,
                               const char *key_path, yaml_node_t *n)
{
    static const char *const valid[] = {"compute_scale", "extra_compute",
                                        NULL};
    const char *name = key_path + strlen("devices.");
    const char *dot = strrchr(name, '.');
    char nm[512];
    double scale = 0;
    int64_t extra = 0;
    int is_scale;
    long d;
    size_t i;
    hs_err_t rc;

    if (dot == NULL || dot == name || (size_t)(dot - name) >= sizeof nm)
        return hs__unknown(c->err, key_path, valid);
    memcpy(nm, name, (size_t)(dot - name));
    nm[dot - name] = '\0';
    is_scale = strcmp(dot + 1, "compute_scale") == 0;
    if (!is_scale && strcmp(dot + 1, "extra_compute") != 0)
        return hs__unknown(c->err, key_path, valid);
    rc = is_scale ? hs_yaml_get_factor(c, n, "compute_scale", &scale)
                  : hs_yaml_get_time(c, n, "extra_compute", &extra);
    if (rc != HS_OK)
        return rc;
    d = hs_scenario_find_device(s, nm);
    if (d < 0 && (s->devices_listed || !s->dirty)) {
        char hint[HS__HINT_LEN];
        return hs_yaml_fail(c, NULL, HS_ERR_SCHEMA, "unknown device '%s'%s",
                            nm, hs__device_hint(s, nm, hint, sizeof hint));
    }
    if (!s->devices_listed) {
        hs_dev_override_t *o = NULL;
        for (i = 0; i < s->n_dev_overrides; i++)
            if (strcmp(s->dev_overrides[i].name, nm) == 0)
                o = &s->dev_overrides[i];
        if (o == NULL) {
            hs_dev_override_t *p =
                realloc(s->dev_overrides,
                        (s->n_dev_overrides + 1) * sizeof *p);
            if (p == NULL)
                return hs_yaml_fail(c, NULL, HS_ERR_NOMEM, "out of memory");
            s->dev_overrides = p;
            o = &p[s->n_dev_overrides];
            memset(o, 0, sizeof *o);
            if ((o->name = strdup(nm)) == NULL)
                return hs_yaml_fail(c, NULL, HS_ERR_NOMEM, "out of memory");
            s->n_dev_overrides++;
        }
        if (is_scale) {
            o->has_scale = 1;
            o->compute_scale = scale;
        } else {
            o->has_extra = 1;
            o->extra_compute_ns = extra;
        }
    }
    if (d >= 0) {
        if (is_scale)
            s->devices[d].compute_scale = scale;
        else
            s->devices[d].extra_compute_ns = extra;
    }
    return HS_OK;
}

/* collective: a registered name (hs_collective.h); what it needs of the
   cluster is checked on resolve. */
static hs_err_t hs__set_collective(hs_yaml_ctx_t *c, hs_scenario_t *s,
                                   yaml_node_t *n)
{
    const hs_collective_t *coll;
    const char *v = hs_yaml_scalar(n);
    char *dup;

    if (v == NULL)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA, "a collective name is "
                            "needed, not %s", hs_yaml_kind(n));
    if (hs_collective_find(v, &coll, c->err) != HS_OK)
        return hs_yaml_fail(c, n, HS_ERR_RANGE, "%s", c->err->msg);
    if ((dup = strdup(v)) == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    free(s->collective);
    s->collective = dup;
    s->coll_line = s->coll_col = 0;
    s->dirty = 1;
    return HS_OK;
}

/* nodes.<kind>.count: the nodes of a kind; the type counts follow. */
static hs_err_t hs__set_nodes(hs_yaml_ctx_t *c, hs_scenario_t *s,
                              char **comp, size_t nc, const char *key_path,
                              yaml_node_t *n)
{
    static const char *const keys[] = {"count", NULL};
    hs_nodes_t *nd = s->nodes;
    uint64_t x;
    long k;
    size_t i;
    hs_err_t rc;

    if (nd == NULL)
        return hs_error_set(c->err, HS_ERR_SCHEMA, key_path, 0, 0,
                            "the scenario has no nodes: section");
    if (nc != 3 || strcmp(comp[2], "count") != 0)
        return hs__unknown(c->err, key_path, keys);
    if ((k = hs_nodes_find_kind(nd, comp[1])) < 0) {
        char hint[HS__HINT_LEN];
        hs_nodes_kind_hint(nd, comp[1], hint, sizeof hint);
        return hs_error_set(c->err, HS_ERR_SCHEMA, key_path, 0, 0,
                            "unknown node kind '%s'%s", comp[1], hint);
    }
    if ((rc = hs__count(c, n, 0, UINT32_MAX - 1, &x)) != HS_OK)
        return rc;
    nd->kinds[k].count = (uint32_t)x;
    for (i = 0; i < s->n_types; i++)
        s->types[i].count = 0;
    for (i = 0; i < nd->n_kinds; i++)
        s->types[nd->kinds[i].type].count +=
            (uint64_t)nd->kinds[i].devices * nd->kinds[i].count;
    s->dirty = 1;
    return HS_OK;
}

/* ring: the ring's mode and, for a list, its device names. */
static hs_err_t hs__set_ring(hs_yaml_ctx_t *c, hs_scenario_t *s,
                             yaml_node_t *n)
{
    hs_ring_mode_t mode;
    char **names;
    size_t n_names;
    hs_err_t rc = hs__ring_spec(c, n, &mode, &names, &n_names);

    if (rc == HS_OK) {
        hs__free_strv(s->ring_names, s->n_ring_names);
        s->ring_mode = mode;
        s->ring_names = names;
        s->n_ring_names = n_names;
        s->dirty = 1;
    }
    return rc;
}

/* Sets the key comp[0..nc) (key_path, split at its dots) of s to the
   parsed value root (NULL when the value is empty), by its top-level
   section.  HS_OK, or the error in c->err. */
static hs_err_t hs__set_key(hs_yaml_ctx_t *c, hs_scenario_t *s, char **comp,
                            size_t nc, const char *key_path,
                            yaml_node_t *root)
{
    static const char *const top[] = {"device_types", "job", "network",
                                      "ring", "simulate", "devices",
                                      "collective", "nodes", "tree_chunks",
                                      NULL};
    hs_error_t *err = c->err;
    hs_err_t rc;

    if (root == NULL)
        rc = hs_error_set(err, HS_ERR_SCHEMA, key_path, 0, 0,
                          "a value is needed");
    else if (strcmp(comp[0], "device_types") == 0 && s->nodes != NULL &&
             nc == 3 && strcmp(comp[2], "count") == 0)
        rc = hs_error_set(err, HS_ERR_SCHEMA, key_path, 0, 0,
                          "the counts follow from nodes:; set "
                          "nodes.<kind>.count");
    else if (strcmp(comp[0], "device_types") == 0)
        rc = hs__set_type(c, s, comp, nc, key_path, root);
    else if (strcmp(comp[0], "job") == 0)
        rc = hs__set_job(c, s, comp, nc, key_path, root);
    else if (strcmp(comp[0], "network") == 0)
        rc = hs__set_network(c, s, comp, nc, key_path, root);
    else if (strcmp(comp[0], "simulate") == 0)
        rc = hs__set_simulate(c, s, comp, nc, key_path, root);
    else if (strcmp(comp[0], "devices") == 0 && nc >= 2)
        rc = hs__set_device(c, s, key_path, root);
    else if (strcmp(comp[0], "ring") == 0 && nc == 1)
        rc = hs__set_ring(c, s, root);
    else if (strcmp(comp[0], "collective") == 0 && nc == 1)
        rc = hs__set_collective(c, s, root);
    else if (strcmp(comp[0], "tree_chunks") == 0 && nc == 1) {
        rc = hs_yaml_get_u32(c, root, "tree_chunks", 1, 64,
                             &s->tree_chunks);
        s->dirty |= rc == HS_OK;
    }
    else if (strcmp(comp[0], "nodes") == 0)
        rc = hs__set_nodes(c, s, comp, nc, key_path, root);
    else
        rc = hs__unknown(err, key_path, top);
    return rc;
}

hs_err_t hs_scenario_set(hs_scenario_t *s, const char *key_path,
                         const char *value, hs_error_t *err)
{
    char buf[1024], *comp[HS__MAX_COMPS], *p;
    size_t nc = 0;
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_node_t *root;
    hs_yaml_ctx_t c;
    hs_err_t rc;

    hs_error_clear(err);
    if (strlen(key_path) >= sizeof buf)
        return hs_error_setf(err, HS_ERR_SCHEMA, "%.64s...: key too long",
                             key_path);
    strcpy(buf, key_path);
    for (p = buf; nc < HS__MAX_COMPS;) {
        comp[nc++] = p;
        if ((p = strchr(p, '.')) == NULL)
            break;
        *p++ = '\0';
    }
    if ((rc = hs_yaml_check(key_path, value, strlen(value), 1, err)) !=
        HS_OK)
        return rc;
    if (!yaml_parser_initialize(&parser))
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)value,
                                 strlen(value));
    if (!yaml_parser_load(&parser, &doc)) {
        char q[64];
        rc = hs_error_set(err, HS_ERR_SYNTAX, key_path, 0, 0,
                          "'%s' is not a YAML value: %s",
                          hs_valid_quote(value, q, sizeof q),
                          parser.problem ? parser.problem : "malformed");
        yaml_parser_delete(&parser);
        return rc;
    }
    yaml_parser_delete(&parser);
    root = yaml_document_get_root_node(&doc);
    memset(&c, 0, sizeof c);
    c.file = key_path;
    c.no_pos = 1;
    c.doc = &doc;
    c.err = err;
    c.user = s;
    rc = hs__set_key(&c, s, comp, nc, key_path, root);
    yaml_document_delete(&doc);
    /* from now on an error blamed on this value names its key path */
    if (rc == HS_OK &&
        hs__where_note(s,
                       strncmp(key_path, "job.dataset.", 12) == 0
                           ? "job.dataset"
                           : key_path,
                       NULL, 0, 0) != 0)
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    return rc;
}

/* ------------------------------------------------------------------ */
/* Clone and link queries                                                */

static int hs__dup(char **dst, const char *src)
{
    *dst = NULL;
    if (src == NULL)
        return 0;
    *dst = strdup(src);
    return *dst == NULL ? -1 : 0;
}

/* A copy of n strings (NULL-terminated when term), or NULL. */
static int hs__dupv(char ***dst, char *const *src, size_t n, int term)
{
    size_t i;

    *dst = NULL;
    if (src == NULL)
        return 0;
    *dst = calloc(n + (term ? 1 : 0) + (n == 0), sizeof **dst);
    if (*dst == NULL)
        return -1;
    for (i = 0; i < n; i++)
        if (hs__dup(&(*dst)[i], src[i]) != 0)
            return -1;
    return 0;
}

static void *hs__dupmem(const void *src, size_t n)
{
    void *p;

    if (src == NULL)
        return NULL;
    p = malloc(n ? n : 1);
    if (p != NULL)
        memcpy(p, src, n);
    return p;
}

#define HS__DUPARR(dst, src, n)                                             \
    (((dst) = hs__dupmem((src), (n) * sizeof *(src))) == NULL &&            \
     (src) != NULL)

/* Clears every pointer of d, a shallow copy of a scenario, so that
   nothing in it may be freed from the original. */
static void hs__clone_clear(hs_scenario_t *d)
{
    d->file = d->text = d->name = d->model_label = d->model_file = NULL;
    d->model_entry = d->dataset_file = d->dataset_entry = NULL;
    d->types = NULL;
    d->n_types = 0;
    d->devices = NULL;
    d->ring = NULL;
    d->ring_bw_bytes_per_s = NULL;
    d->ring_lat_ns = NULL;
    d->stragglers = NULL;
    d->straggler_names = NULL;
    d->harness = d->python = NULL;
    d->launcher = NULL;
    d->n_launcher = 0;
    d->spares = NULL;
    d->n_spares = 0;
    d->arena = NULL;
    d->warnings = NULL;
    d->n_warnings = 0;
    d->ring_names = NULL;
    d->n_ring_names = 0;
    d->dev_overrides = NULL;
    d->n_dev_overrides = 0;
    memset(&d->links, 0, sizeof d->links);
    d->nodes = NULL;
    d->collective = NULL;
}

/* Deep copies of s's device types into d (names, backends, env,
   profiles); non-zero when something could not be copied. */
static int hs__clone_types(hs_scenario_t *d, const hs_scenario_t *s)
{
    size_t i;
    int bad = 0;

    if (s->n_types > 0) {
        d->types = calloc(s->n_types, sizeof *d->types);
        bad |= d->types == NULL;
    }
    for (i = 0; d->types != NULL && i < s->n_types; i++) {
        const hs_type_t *st = &s->types[i];
        hs_type_t *dt = &d->types[i];
        *dt = *st;
        dt->name = dt->backend = NULL;
        dt->env = NULL;
        dt->n_env = 0;
        memset(&dt->profile, 0, sizeof dt->profile);
        d->n_types = i + 1;
        bad |= hs__dup(&dt->name, st->name) |
               hs__dup(&dt->backend, st->backend);
        bad |= hs__dupv(&dt->env, st->env, st->n_env, 0);
        if (dt->env != NULL)
            dt->n_env = st->n_env;
        bad |= hs_profile_copy(&dt->profile, &st->profile) != 0;
    }
    return bad;
}

/* Copies of s's arena, devices (names rebased into the new arena), ring
   and its edge arrays, and nodes into d; non-zero when something could
   not be copied. */
static int hs__clone_devices(hs_scenario_t *d, const hs_scenario_t *s)
{
    size_t i;
    int bad = 0;

    if (s->arena != NULL) {
        d->arena = malloc(s->arena_cap ? s->arena_cap : 1);
        if (d->arena != NULL)
            memcpy(d->arena, s->arena, s->arena_len);
        bad |= d->arena == NULL;
    }
    bad |= HS__DUPARR(d->devices, s->devices, s->n_devices);
    for (i = 0; d->devices != NULL && d->arena != NULL && i < s->n_devices;
         i++) {
        /* names and addresses point into the arena: rebase them */
        d->devices[i].name = d->arena + (s->devices[i].name - s->arena);
        d->devices[i].addr = d->arena + (s->devices[i].addr - s->arena);
    }
    bad |= HS__DUPARR(d->ring, s->ring, s->n_devices);
    /* with nodes the edge arrays hold 3N entries (hs_nodes.h) */
    bad |= HS__DUPARR(d->ring_bw_bytes_per_s, s->ring_bw_bytes_per_s,
                      (s->nodes ? 3 : 1) * s->n_devices);
    bad |= HS__DUPARR(d->ring_lat_ns, s->ring_lat_ns,
                      (s->nodes ? 3 : 1) * s->n_devices);
    bad |= hs_nodes_clone(s->nodes, &d->nodes, NULL) != HS_OK;
    return bad;
}

/* Copies of s's device overrides into d; non-zero when something could
   not be copied. */
static int hs__clone_overrides(hs_scenario_t *d, const hs_scenario_t *s)
{
    size_t i;
    int bad = 0;

    if (s->n_dev_overrides > 0) {
        d->dev_overrides = calloc(s->n_dev_overrides,
                                  sizeof *d->dev_overrides);
        bad |= d->dev_overrides == NULL;
        for (i = 0; d->dev_overrides != NULL && i < s->n_dev_overrides;
             i++) {
            d->dev_overrides[i] = s->dev_overrides[i];
            d->dev_overrides[i].name = NULL;
            d->n_dev_overrides = i + 1;
            bad |= hs__dup(&d->dev_overrides[i].name,
                           s->dev_overrides[i].name);
        }
    }
    return bad;
}

hs_err_t hs_scenario_clone(const hs_scenario_t *s, hs_scenario_t **out,
                           hs_error_t *err)
{
    hs_scenario_t *d;
    int bad = 0;

    *out = NULL;
    d = calloc(1, sizeof *d);
    if (d == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    *d = *s;
    /* nothing below may be freed from s: clear every pointer first */
    hs__clone_clear(d);

    bad |= hs__dup(&d->file, s->file) | hs__dup(&d->text, s->text) |
           hs__dup(&d->name, s->name) |
           hs__dup(&d->model_label, s->model_label) |
           hs__dup(&d->model_file, s->model_file) |
           hs__dup(&d->model_entry, s->model_entry) |
           hs__dup(&d->dataset_file, s->dataset_file) |
           hs__dup(&d->dataset_entry, s->dataset_entry) |
           hs__dup(&d->harness, s->harness) | hs__dup(&d->python, s->python);
    bad |= hs__clone_types(d, s);
    bad |= hs__clone_devices(d, s);
    bad |= hs__dup(&d->collective, s->collective);
    bad |= HS__DUPARR(d->stragglers, s->stragglers, s->n_stragglers);
    bad |= hs__dupv(&d->straggler_names, s->straggler_names, s->n_stragglers,
                    1);
    bad |= hs__dupv(&d->launcher, s->launcher, s->n_launcher, 1);
    bad |= hs__dupv(&d->spares, s->spares, 3 * s->n_spares, 0);
    if (d->spares != NULL)
        d->n_spares = s->n_spares;
    if (d->launcher != NULL)
        d->n_launcher = s->n_launcher;
    bad |= hs__dupv(&d->warnings, s->warnings, s->n_warnings, 0);
    if (d->warnings != NULL)
        d->n_warnings = s->n_warnings;
    bad |= hs__dupv(&d->ring_names, s->ring_names, s->n_ring_names, 0);
    if (d->ring_names != NULL)
        d->n_ring_names = s->n_ring_names;
    bad |= hs__clone_overrides(d, s);
    bad |= hs_links_copy(&d->links, &s->links) != 0;
    bad |= hs__where_copy(d, s) != 0;
    if (bad) {
        hs_scenario_free(d);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    *out = d;
    return HS_OK;
}

hs_err_t hs_scenario_link(const hs_scenario_t *s, uint32_t dev_a,
                          uint32_t dev_b, double *bw_bytes_per_s,
                          int64_t *lat_ns, hs_error_t *err)
{
    const hs_device_t *da, *db;
    hs_links_t l;

    if (dev_a >= s->n_devices || dev_b >= s->n_devices)
        return hs_error_set(err, HS_ERR_RANGE, s->file, 0, 0,
                            "no device %u or %u (the scenario has %zu)",
                            dev_a, dev_b, s->n_devices);
    da = &s->devices[dev_a];
    db = &s->devices[dev_b];
    if (s->nodes != NULL) {
        /* a lone edge: the node's NICs unshared (hs_nodes.h) */
        if (!hs_nodes_link(s, dev_a, dev_b, 1, 1, bw_bytes_per_s, lat_ns))
            return hs_error_set(err, HS_ERR_NETWORK, s->file, 0, 0,
                                "link %s (%s) -> %s (%s) has no bandwidth: "
                                "no nodes.links row, no nodes.kind_links "
                                "row and no nodes.inter_bandwidth",
                                da->name, da->addr, db->name, db->addr);
        return HS_OK;
    }
    l = s->links;   /* a shallow view with the scenario's own defaults */
    l.default_bw_bytes_per_s = s->default_bw_bytes_per_s;
    l.default_lat_ns = s->latency_ns;
    if (!hs_links_find(&l, da->name, da->addr, da->type, db->name, db->addr,
                       db->type, bw_bytes_per_s, lat_ns))
        return hs_error_set(err, HS_ERR_NETWORK, s->file, 0, 0,
                            "link %s (%s) -> %s (%s) has no bandwidth: no "
                            "pair row, no type-pair row and no "
                            "network.default_bandwidth",
                            da->name, da->addr, db->name, db->addr);
    return HS_OK;
}
