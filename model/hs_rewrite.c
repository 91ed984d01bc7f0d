/* hs_rewrite.c -- a scenario file changed by key path (hs_rewrite.h). */
#include "hs_rewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "hs_atomic.h"
#include "hs_file.h"
#include "hs_valid.h"
#include "hs_yaml.h"

/* The emitter's output, grown in memory. */
typedef struct hs__buf_s {
    char *p;
    size_t len, cap;
    int oom;
} hs__buf_t;

static int hs__buf_write(void *data, unsigned char *b, size_t n)
{
    hs__buf_t *buf = data;

    if (buf->len + n + 1 > buf->cap) {
        size_t cap = buf->cap ? buf->cap : 4096;
        char *p;

        while (buf->len + n + 1 > cap)
            cap *= 2;
        if ((p = realloc(buf->p, cap)) == NULL) {
            buf->oom = 1;
            return 0;
        }
        buf->p = p;
        buf->cap = cap;
    }
    memcpy(buf->p + buf->len, b, n);
    buf->len += n;
    buf->p[buf->len] = '\0';
    return 1;
}

static const char *hs__scalar(yaml_document_t *d, int id)
{
    yaml_node_t *n = yaml_document_get_node(d, id);

    return n != NULL && n->type == YAML_SCALAR_NODE
               ? (const char *)n->data.scalar.value : NULL;
}

/* The pair of map node `map` whose key is `key`, or NULL. */
static yaml_node_pair_t *hs__pair(yaml_document_t *d, yaml_node_t *map,
                                  const char *key)
{
    yaml_node_pair_t *p;

    for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = hs__scalar(d, p->key);

        if (k != NULL && strcmp(k, key) == 0)
            return p;
    }
    return NULL;
}

/* Copies node `id` of src (and all below it) into dst; its new id, or 0. */
static int hs__copy(yaml_document_t *dst, yaml_document_t *src, int id)
{
    yaml_node_t *n = yaml_document_get_node(src, id);
    int nid, a, b;

    if (n == NULL)
        return 0;
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return yaml_document_add_scalar(dst, NULL, n->data.scalar.value,
                                        (int)n->data.scalar.length,
                                        n->data.scalar.style);
    case YAML_SEQUENCE_NODE: {
        yaml_node_item_t *it;

        nid = yaml_document_add_sequence(dst, NULL, YAML_FLOW_SEQUENCE_STYLE);
        if (nid == 0)
            return 0;
        for (it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            if ((a = hs__copy(dst, src, *it)) == 0 ||
                !yaml_document_append_sequence_item(dst, nid, a))
                return 0;
        }
        return nid;
    }
    case YAML_MAPPING_NODE: {
        yaml_node_pair_t *p;

        nid = yaml_document_add_mapping(dst, NULL, YAML_FLOW_MAPPING_STYLE);
        if (nid == 0)
            return 0;
        for (p = n->data.mapping.pairs.start;
             p < n->data.mapping.pairs.top; p++) {
            if ((a = hs__copy(dst, src, p->key)) == 0 ||
                (b = hs__copy(dst, src, p->value)) == 0 ||
                !yaml_document_append_mapping_pair(dst, nid, a, b))
                return 0;
        }
        return nid;
    }
    default:
        return 0;
    }
}

static int hs__add_str(yaml_document_t *d, const char *s)
{
    return yaml_document_add_scalar(d, NULL, (yaml_char_t *)s,
                                    (int)strlen(s), YAML_ANY_SCALAR_STYLE);
}

/* The value of edit e as a node of d, *vid (0 when e removes its key):
   checked and parsed as a YAML document of its own, then copied in. */
static hs_err_t hs__value_node(yaml_document_t *d, const char *name,
                               const hs_rewrite_edit_t *e, int *vid,
                               hs_error_t *err)
{
    yaml_parser_t vp;
    yaml_document_t vd;

    *vid = 0;
    if (e->value == NULL)
        return HS_OK;
    {
        hs_err_t crc = hs_yaml_check(e->key_path, e->value,
                                     strlen(e->value), 1, err);
        if (crc != HS_OK)
            return crc;
    }
    if (!yaml_parser_initialize(&vp))
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    yaml_parser_set_input_string(&vp, (const unsigned char *)e->value,
                                 strlen(e->value));
    if (!yaml_parser_load(&vp, &vd)) {
        yaml_parser_delete(&vp);
        char q[64];
        return hs_error_setf(err, HS_ERR_SYNTAX, "%s: value '%s' for %s is "
                             "not YAML", name,
                             hs_valid_quote(e->value, q, sizeof q),
                             e->key_path);
    }
    yaml_parser_delete(&vp);
    if (yaml_document_get_root_node(&vd) == NULL) {
        yaml_document_delete(&vd);
        return hs_error_setf(err, HS_ERR_SYNTAX, "%s: empty value for %s",
                             name, e->key_path);
    }
    *vid = hs__copy(d, &vd, 1);
    yaml_document_delete(&vd);
    if (*vid == 0)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* In the list node (component k of the key path comp[0..nc)), the item
   whose name is component k + 1, into *id. */
static hs_err_t hs__select_item(yaml_document_t *d, const char *name,
                                const hs_rewrite_edit_t *e, char **comp,
                                size_t nc, size_t k, yaml_node_t *node,
                                int *id, hs_error_t *err)
{
    yaml_node_item_t *it;
    int found = 0;

    if (k + 2 >= nc)
        return hs_error_setf(err, HS_ERR_SCHEMA, "%s: %s: name a "
                             "%s item and one of its keys", name,
                             e->key_path, comp[k]);
    for (it = node->data.sequence.items.start;
         it < node->data.sequence.items.top && !found; it++) {
        yaml_node_t *m = yaml_document_get_node(d, *it);
        yaml_node_pair_t *np;

        if (m == NULL || m->type != YAML_MAPPING_NODE)
            continue;
        np = hs__pair(d, m, "name");
        if (np != NULL && hs__scalar(d, np->value) != NULL &&
            strcmp(hs__scalar(d, np->value), comp[k + 1]) == 0) {
            *id = *it;
            found = 1;
        }
    }
    if (!found)
        return hs_error_setf(err, HS_ERR_SCHEMA, "%s: %s: no %s "
                             "item named '%s'", name, e->key_path,
                             comp[k], comp[k + 1]);
    return HS_OK;
}

/* Walks d along the key path comp[0..nc - 1) to the parent map of the
   last component, *id, creating maps on the way and selecting the items
   of device_types, devices and nodes.kinds by name. */
static hs_err_t hs__walk_parent(yaml_document_t *d, const char *name,
                                const hs_rewrite_edit_t *e, char **comp,
                                size_t nc, int *id, hs_error_t *err)
{
    yaml_node_t *node;
    size_t k;
    hs_err_t rc;

    *id = 1;
    for (k = 0; k + 1 < nc; k++) {
        yaml_node_pair_t *p;

        node = yaml_document_get_node(d, *id);
        if (node == NULL || node->type != YAML_MAPPING_NODE)
            return hs_error_setf(err, HS_ERR_SCHEMA, "%s: %s: '%s' is not "
                                 "a map", name, e->key_path, comp[k]);
        p = hs__pair(d, node, comp[k]);
        if (p == NULL) {
            int kid = hs__add_str(d, comp[k]);
            int mid = yaml_document_add_mapping(d, NULL,
                                                YAML_BLOCK_MAPPING_STYLE);

            if (kid == 0 || mid == 0 ||
                !yaml_document_append_mapping_pair(d, *id, kid, mid))
                return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
            *id = mid;
            continue;
        }
        *id = p->value;
        node = yaml_document_get_node(d, *id);
        if (node != NULL && node->type == YAML_SEQUENCE_NODE &&
            (strcmp(comp[k], "device_types") == 0 ||
             strcmp(comp[k], "devices") == 0 ||
             (k > 0 && strcmp(comp[k], "kinds") == 0 &&
              strcmp(comp[k - 1], "nodes") == 0))) {
            /* select the item by name */
            if ((rc = hs__select_item(d, name, e, comp, nc, k, node, id,
                                      err)) != HS_OK)
                return rc;
            k++;
        }
    }
    return HS_OK;
}

/* Applies one edit to document d. */
static hs_err_t hs__apply(yaml_document_t *d, const char *name,
                          const hs_rewrite_edit_t *e, hs_error_t *err)
{
    char path[1024], *comp[16], *save = NULL, *tok;
    size_t nc = 0;
    yaml_node_t *node;
    int vid, id;
    hs_err_t rc;

    if (snprintf(path, sizeof path, "%s", e->key_path) >= (int)sizeof path)
        return hs_error_setf(err, HS_ERR_SCHEMA, "%s: key path too long",
                             name);
    for (tok = strtok_r(path, ".", &save); tok != NULL && nc < 16;
         tok = strtok_r(NULL, ".", &save))
        comp[nc++] = tok;
    if (nc == 0 || tok != NULL)
        return hs_error_setf(err, HS_ERR_SCHEMA, "%s: bad key path '%s'",
                             name, e->key_path);
    if ((rc = hs__value_node(d, name, e, &vid, err)) != HS_OK ||
        (rc = hs__walk_parent(d, name, e, comp, nc, &id, err)) != HS_OK)
        return rc;
    node = yaml_document_get_node(d, id);
    if (node == NULL || node->type != YAML_MAPPING_NODE)
        return hs_error_setf(err, HS_ERR_SCHEMA, "%s: %s: the parent of "
                             "'%s' is not a map", name, e->key_path,
                             comp[nc - 1]);
    {
        yaml_node_pair_t *p = hs__pair(d, node, comp[nc - 1]);
        int kid;

        if (p != NULL && vid == 0) {
            /* removal: the later pairs move up one */
            memmove(p, p + 1, (size_t)((char *)node->data.mapping.pairs.top -
                                       (char *)(p + 1)));
            node->data.mapping.pairs.top--;
            return HS_OK;
        }
        if (p != NULL) {
            p->value = vid;
            return HS_OK;
        }
        if (vid == 0)
            return HS_OK;       /* nothing to remove */
        kid = hs__add_str(d, comp[nc - 1]);
        if (kid == 0 || !yaml_document_append_mapping_pair(d, id, kid, vid))
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    return HS_OK;
}

/* Makes the scalar node id an absolute path against base, if relative. */
static int hs__abs(yaml_document_t *d, int id, const char *base)
{
    yaml_node_t *n = yaml_document_get_node(d, id);
    char *joined;

    if (n == NULL || n->type != YAML_SCALAR_NODE ||
        n->data.scalar.length == 0 || n->data.scalar.value[0] == '/')
        return 1;
    joined = hs_file_join(base, (const char *)n->data.scalar.value);
    if (joined == NULL)
        return 0;
    /* the document owns its scalars: hand the new one over */
    free(n->data.scalar.value);
    n->data.scalar.value = (yaml_char_t *)joined;
    n->data.scalar.length = strlen(joined);
    n->data.scalar.style = YAML_ANY_SCALAR_STYLE;
    return 1;
}

/* The value id of root[key1][key2], or 0. */
static int hs__at(yaml_document_t *d, int id, const char *key)
{
    yaml_node_t *n = yaml_document_get_node(d, id);
    yaml_node_pair_t *p;

    if (n == NULL || n->type != YAML_MAPPING_NODE)
        return 0;
    p = hs__pair(d, n, key);
    return p != NULL ? p->value : 0;
}

static int hs__abs_paths(yaml_document_t *d, const char *base)
{
    int job = hs__at(d, 1, "job"), dt = hs__at(d, 1, "device_types");
    yaml_node_t *seq = dt ? yaml_document_get_node(d, dt) : NULL;
    int ok = 1;

    if (job) {
        ok &= hs__abs(d, hs__at(d, hs__at(d, job, "model"), "file"), base);
        ok &= hs__abs(d, hs__at(d, hs__at(d, job, "dataset"), "file"), base);
    }
    ok &= hs__abs(d, hs__at(d, hs__at(d, 1, "network"), "links_csv"), base);
    ok &= hs__abs(d, hs__at(d, hs__at(d, 1, "profiling"), "harness"), base);
    if (seq != NULL && seq->type == YAML_SEQUENCE_NODE) {
        yaml_node_item_t *it;

        for (it = seq->data.sequence.items.start;
             it < seq->data.sequence.items.top; it++)
            ok &= hs__abs(d, hs__at(d, *it, "profile"), base);
    }
    return ok;
}

hs_err_t hs_rewrite_yaml(const char *text, size_t len, const char *name,
                         const hs_rewrite_edit_t *edits, size_t n_edits,
                         const char *abs_base, char **out, hs_error_t *err)
{
    yaml_parser_t parser;
    yaml_emitter_t em;
    yaml_document_t doc;
    hs__buf_t buf = {NULL, 0, 0, 0};
    size_t i;
    hs_err_t rc;

    *out = NULL;
    if ((rc = hs_yaml_check(name, text, len, 0, err)) != HS_OK)
        return rc;
    if (!yaml_parser_initialize(&parser))
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        rc = hs_error_set(err, HS_ERR_SYNTAX, name,
                          parser.problem_mark.line + 1,
                          parser.problem_mark.column + 1, "%s",
                          parser.problem ? parser.problem : "bad YAML");
        yaml_parser_delete(&parser);
        return rc;
    }
    yaml_parser_delete(&parser);
    if (yaml_document_get_root_node(&doc) == NULL ||
        yaml_document_get_root_node(&doc)->type != YAML_MAPPING_NODE) {
        yaml_document_delete(&doc);
        return hs_error_setf(err, HS_ERR_SCHEMA, "%s: the scenario is not a "
                             "map", name);
    }
    /* the paths first: an edited value is written as the caller gave it */
    if (abs_base != NULL && !hs__abs_paths(&doc, abs_base)) {
        yaml_document_delete(&doc);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    for (i = 0; i < n_edits; i++)
        if ((rc = hs__apply(&doc, name, &edits[i], err)) != HS_OK) {
            yaml_document_delete(&doc);
            return rc;
        }
    if (!yaml_emitter_initialize(&em)) {
        yaml_document_delete(&doc);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    yaml_emitter_set_output(&em, hs__buf_write, &buf);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, 100);
    /* yaml_emitter_dump deletes the document, whatever it returns */
    if (!yaml_emitter_open(&em) || !yaml_emitter_dump(&em, &doc) ||
        !yaml_emitter_close(&em) || buf.oom) {
        rc = hs_error_setf(err, buf.oom ? HS_ERR_NOMEM : HS_ERR_SYNTAX,
                           "%s: cannot write the scenario: %s", name,
                           em.problem ? em.problem : "emitter error");
        yaml_emitter_delete(&em);
        free(buf.p);
        return rc;
    }
    yaml_emitter_delete(&em);
    *out = buf.p != NULL ? buf.p : strdup("");
    return *out != NULL ? HS_OK
                        : hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
}

hs_err_t hs_rewrite_file(const char *text, size_t len, const char *name,
                         const hs_rewrite_edit_t *edits, size_t n_edits,
                         const char *abs_base, const char *header,
                         const char *path, hs_error_t *err)
{
    char *re = NULL;
    hs_atomic_t af;
    hs_err_t rc;

    if ((rc = hs_rewrite_yaml(text, len, name, edits, n_edits, abs_base, &re,
                              err)) != HS_OK)
        return rc;
    if ((rc = hs_atomic_open(&af, path, err)) != HS_OK) {
        free(re);
        return rc;
    }
    if (header != NULL) {
        const char *p = header;

        while (*p != '\0') {
            const char *nl = strchr(p, '\n');
            size_t n = nl != NULL ? (size_t)(nl - p) : strlen(p);

            fprintf(af.f, "# %.*s\n", (int)n, p);
            p += n + (nl != NULL);
        }
    }
    fputs(re, af.f);
    free(re);
    return hs_atomic_commit(&af, err);
}

/* The path from directory `from` to directory `to` (both absolute and
   canonical): "" when the same, else "../" per component of `from` past
   their common part, then the rest of `to`.  malloc'd; NULL when out of
   memory. */
static char *hs__relpath(const char *from, const char *to)
{
    size_t common = 0, i, up = 0, len;
    const char *rest;
    char *out;

    /* the longest common prefix that ends at a component boundary */
    for (i = 0;; i++) {
        int fe = from[i] == '\0' || from[i] == '/';
        int te = to[i] == '\0' || to[i] == '/';

        if (fe && te)
            common = i;
        if (from[i] == '\0' || to[i] == '\0' || from[i] != to[i])
            break;
    }
    for (i = common; from[i] != '\0'; i++)
        if (from[i] == '/' && from[i + 1] != '\0')
            up++;
    rest = to + common;
    while (*rest == '/')
        rest++;
    len = 3 * up + strlen(rest) + 1;
    if ((out = malloc(len)) == NULL)
        return NULL;
    out[0] = '\0';
    for (i = 0; i < up; i++)
        strcat(out, i + 1 < up || *rest != '\0' ? "../" : "..");
    strcat(out, rest);
    return out;
}

hs_err_t hs_rewrite_file_rebased(const char *text, size_t len,
                                 const char *name,
                                 const hs_rewrite_edit_t *edits,
                                 size_t n_edits, const char *src_dir,
                                 const char *header, const char *path,
                                 hs_error_t *err)
{
    char *out_dir = NULL, *src_real = NULL, *out_real = NULL, *prefix = NULL;
    hs_err_t rc;

    if (src_dir == NULL)
        return hs_rewrite_file(text, len, name, edits, n_edits, NULL, header,
                               path, err);
    if ((out_dir = hs_file_absdir(path)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    src_real = realpath(src_dir, NULL);
    out_real = realpath(out_dir, NULL);
    if (src_real != NULL && out_real != NULL)
        prefix = hs__relpath(out_real, src_real);
    else
        prefix = strdup(src_dir);
    if (prefix == NULL)
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    else
        rc = hs_rewrite_file(text, len, name, edits, n_edits, prefix, header,
                             path, err);
    free(out_dir);
    free(src_real);
    free(out_real);
    free(prefix);
    return rc;
}
