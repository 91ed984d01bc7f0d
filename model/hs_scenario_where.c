/*
 * hs_scenario_where.c -- where each value of a scenario came from, so that
 * an error found long after loading (an overflow in the closed form, a
 * replay budget) still names the key and its file:line:col.
 *
 * The loader notes the position of the values a derived quantity can
 * blame (job.epochs, the data set, simulate.steps, a device's
 * compute_scale, a straggler, the network defaults); a profile keeps the
 * positions of its own keys (hs_profile_where).  hs_scenario_set notes the
 * key path with no file, so a value typed on the command line is named by
 * its key path.  The table is small (a few entries per listed device at
 * most) and only searched when an error is reported.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "hs_scenario.h"
#include "hs_scenario_int.h"
#include "hs_yaml.h"

int hs__where_note(hs_scenario_t *s, const char *key, const char *file,
                   unsigned long line, unsigned long col)
{
    hs_where_t *w = NULL;
    char *k, *f = NULL;
    size_t i;

    for (i = s->n_where; i > 0; i--)
        if (strcmp(s->where[i - 1].key, key) == 0) {
            w = &s->where[i - 1];
            break;
        }
    if (file != NULL && (f = strdup(file)) == NULL)
        return -1;
    if (w != NULL) {
        free(w->file);
        w->file = f;
        w->line = line;
        w->col = col;
        return 0;
    }
    if (s->n_where == s->cap_where) {
        size_t cap = s->cap_where ? 2 * s->cap_where : 16;
        hs_where_t *p = realloc(s->where, cap * sizeof *p);
        if (p == NULL) {
            free(f);
            return -1;
        }
        s->where = p;
        s->cap_where = cap;
    }
    if ((k = strdup(key)) == NULL) {
        free(f);
        return -1;
    }
    w = &s->where[s->n_where++];
    w->key = k;
    w->file = f;
    w->line = line;
    w->col = col;
    return 0;
}

int hs__where_node(struct hs_yaml_ctx_s *c, const char *key,
                   const struct yaml_node_s *n)
{
    hs_scenario_t *s = (hs_scenario_t *)c->user;

    if (n == NULL || s == NULL)
        return 0;
    if (c->no_pos || c->file == NULL)
        return hs__where_note(s, key, NULL, 0, 0);
    return hs__where_note(s, key, c->file,
                          (unsigned long)n->start_mark.line + 1,
                          (unsigned long)n->start_mark.column + 1);
}

int hs__where_copy(hs_scenario_t *dst, const hs_scenario_t *src)
{
    size_t i;

    dst->where = NULL;
    dst->n_where = dst->cap_where = 0;
    for (i = 0; i < src->n_where; i++) {
        const hs_where_t *w = &src->where[i];
        if (hs__where_note(dst, w->key, w->file, w->line, w->col) != 0)
            return -1;
    }
    return 0;
}

void hs__where_free(hs_scenario_t *s)
{
    size_t i;

    for (i = 0; i < s->n_where; i++) {
        free(s->where[i].key);
        free(s->where[i].file);
    }
    free(s->where);
    s->where = NULL;
    s->n_where = s->cap_where = 0;
}

/* The profile key of "device_types.<T>.profile.<k>": its type and k. */
static const hs_type_t *hs__profile_key(const hs_scenario_t *s,
                                        const char *key, const char **k)
{
    static const char pre[] = "device_types.", mid[] = ".profile.";
    const char *p, *last = NULL;
    size_t n, i;

    if (strncmp(key, pre, sizeof pre - 1) != 0)
        return NULL;
    for (p = key; (p = strstr(p, mid)) != NULL; p++)
        last = p;
    if (last == NULL)
        return NULL;
    n = (size_t)(last - key) - (sizeof pre - 1);
    for (i = 0; i < s->n_types; i++)
        if (strlen(s->types[i].name) == n &&
            strncmp(s->types[i].name, key + sizeof pre - 1, n) == 0) {
            *k = last + sizeof mid - 1;
            return &s->types[i];
        }
    return NULL;
}

hs_err_t hs_scenario_fail(const hs_scenario_t *s, const char *key,
                          hs_err_t code, hs_error_t *err,
                          const char *fmt, ...)
{
    char msg[HS_ERRMSG_LEN];
    const hs_type_t *t;
    const char *k = NULL;
    unsigned long line, col;
    va_list ap;
    size_t i;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (i = s->n_where; i > 0; i--) {
        const hs_where_t *w = &s->where[i - 1];
        if (strcmp(w->key, key) != 0)
            continue;
        if (w->file == NULL)
            return hs_error_setf(err, code, "%s: %s", key, msg);
        return hs_error_set(err, code, w->file, w->line, w->col, "%s: %s",
                            key, msg);
    }
    t = hs__profile_key(s, key, &k);
    if (t != NULL && t->has_profile &&
        hs_profile_where(&t->profile, k, &line, &col) == 0)
        return hs_error_set(err, code,
                            t->profile.path ? t->profile.path : s->file,
                            line, col, "%s: %s", key, msg);
    return hs_error_set(err, code, s->file, 0, 0, "%s: %s", key, msg);
}
