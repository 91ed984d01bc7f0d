/*
 * hs_sweep_compat.c -- TEMPORARY stand-ins for the "scenario as data" API
 * (hs_scenario_set, hs_scenario_resolve, hs_scenario_clone) while it is
 * being written on another branch.  They are weak symbols: the real ones
 * in model/hs_scenario.c replace them at link time, and this file is
 * deleted when they land.
 *
 * They work on the YAML text the scenario keeps: clone reloads it; set
 * edits the YAML document tree (libyaml's document API, no text
 * rewriting), emits it and reloads; resolve has nothing left to do.
 * Slow (a reload per set) and limited to scalar keys, which is enough for
 * the sweep's tests.
 */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "hs_sweep_compat.h"

static char *hs__cp_dir(const char *file)
{
    const char *slash;
    char *d;

    if (file == NULL || file[0] == '<')
        return NULL;
    slash = strrchr(file, '/');
    if (slash == NULL)
        return strdup(".");
    d = strndup(file, (size_t)(slash - file));
    return d;
}

static hs_err_t hs__cp_reload(const hs_scenario_t *s, const char *text,
                              size_t len, hs_scenario_t **out,
                              hs_error_t *err)
{
    char *dir = hs__cp_dir(s->file);
    hs_err_t rc = hs_scenario_load_text(text, len, s->file, dir, out, err);

    free(dir);
    return rc;
}

__attribute__((weak))
hs_err_t hs_scenario_clone(const hs_scenario_t *s, hs_scenario_t **out,
                           hs_error_t *err)
{
    return hs__cp_reload(s, s->text, strlen(s->text), out, err);
}

__attribute__((weak))
hs_err_t hs_scenario_resolve(hs_scenario_t *s, hs_error_t *err)
{
    (void)s;
    (void)err;
    return HS_OK;
}

typedef struct hs__cp_buf_s {
    char *p;
    size_t n, cap;
} hs__cp_buf_t;

static int hs__cp_write(void *data, unsigned char *buf, size_t size)
{
    hs__cp_buf_t *b = data;

    if (b->n + size + 1 > b->cap) {
        size_t cap = (b->n + size + 1) * 2;
        char *np = realloc(b->p, cap);
        if (np == NULL)
            return 0;
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, buf, size);
    b->n += size;
    b->p[b->n] = '\0';
    return 1;
}

static int hs__cp_is(yaml_document_t *d, int id, const char *str)
{
    yaml_node_t *n = yaml_document_get_node(d, id);

    return n != NULL && n->type == YAML_SCALAR_NODE &&
           strcmp((const char *)n->data.scalar.value, str) == 0;
}

/* The value node id under `seg` in node id (a mapping: the key; a
   sequence of mappings: the item whose name is seg); 0 if none.
   *pair_out gets the mapping pair when found in a mapping. */
static int hs__cp_child(yaml_document_t *d, int id, const char *seg,
                        yaml_node_pair_t **pair_out)
{
    yaml_node_t *n = yaml_document_get_node(d, id);
    yaml_node_pair_t *pr;
    yaml_node_item_t *it;

    *pair_out = NULL;
    if (n == NULL)
        return 0;
    if (n->type == YAML_MAPPING_NODE) {
        for (pr = n->data.mapping.pairs.start;
             pr < n->data.mapping.pairs.top; pr++)
            if (hs__cp_is(d, pr->key, seg)) {
                *pair_out = pr;
                return pr->value;
            }
    } else if (n->type == YAML_SEQUENCE_NODE) {
        for (it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            yaml_node_t *m = yaml_document_get_node(d, *it);
            if (m == NULL || m->type != YAML_MAPPING_NODE)
                continue;
            for (pr = m->data.mapping.pairs.start;
                 pr < m->data.mapping.pairs.top; pr++)
                if (hs__cp_is(d, pr->key, "name") &&
                    hs__cp_is(d, pr->value, seg))
                    return *it;
        }
    }
    return 0;
}

__attribute__((weak))
hs_err_t hs_scenario_set(hs_scenario_t *s, const char *key_path,
                         const char *value, hs_error_t *err)
{
    yaml_parser_t parser;
    yaml_emitter_t em;
    yaml_document_t doc;
    hs__cp_buf_t out = {NULL, 0, 0};
    hs_scenario_t *n = NULL;
    char *path = strdup(key_path), *seg, *save = NULL;
    int id, vid;
    hs_err_t rc;

    if (path == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)s->text,
                                 strlen(s->text));
    if (!yaml_parser_load(&parser, &doc)) {
        yaml_parser_delete(&parser);
        free(path);
        return hs_error_setf(err, HS_ERR_SYNTAX, "%s: cannot reparse",
                             key_path);
    }
    yaml_parser_delete(&parser);
    id = 1;
    for (seg = strtok_r(path, ".", &save); seg != NULL;
         seg = strtok_r(NULL, ".", &save)) {
        yaml_node_pair_t *pr;
        int c = hs__cp_child(&doc, id, seg, &pr);
        int last = save == NULL || *save == '\0';
        yaml_node_t *node = yaml_document_get_node(&doc, id);
        if (c == 0 && node != NULL && node->type == YAML_MAPPING_NODE) {
            int k = yaml_document_add_scalar(&doc, NULL,
                                             (yaml_char_t *)seg, -1,
                                             YAML_PLAIN_SCALAR_STYLE);
            c = last ? yaml_document_add_scalar(&doc, NULL,
                                                (yaml_char_t *)"x", -1,
                                                YAML_PLAIN_SCALAR_STYLE)
                     : yaml_document_add_mapping(&doc, NULL,
                                                 YAML_BLOCK_MAPPING_STYLE);
            yaml_document_append_mapping_pair(&doc, id, k, c);
            hs__cp_child(&doc, id, seg, &pr);
        }
        if (c == 0) {
            yaml_document_delete(&doc);
            free(path);
            return hs_error_setf(err, HS_ERR_SCHEMA,
                                 "%s: unknown key '%s'", key_path, seg);
        }
        if (last && pr != NULL) {
            vid = yaml_document_add_scalar(&doc, NULL,
                                           (yaml_char_t *)value, -1,
                                           YAML_PLAIN_SCALAR_STYLE);
            pr->value = vid;
        }
        id = c;
    }
    free(path);
    yaml_emitter_initialize(&em);
    yaml_emitter_set_output(&em, hs__cp_write, &out);
    yaml_emitter_open(&em);
    yaml_emitter_dump(&em, &doc);
    yaml_emitter_close(&em);
    yaml_emitter_delete(&em);
    if (out.p == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    rc = hs__cp_reload(s, out.p, out.n, &n, err);
    free(out.p);
    if (rc != HS_OK) {
        char m[HS_ERRMSG_LEN];
        snprintf(m, sizeof m, "%s", err ? err->msg : "");
        return hs_error_setf(err, rc, "%s: %s", key_path, m);
    }
    {
        hs_scenario_t tmp = *s;
        *s = *n;
        *n = tmp;
    }
    hs_scenario_free(n);
    return HS_OK;
}
