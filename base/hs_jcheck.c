/* hs_jcheck.c -- a JSON document's depth and keys checked in one
   streaming pass (hs_jcheck.h).
 *
 * yajl's streaming parser keeps its nesting on a heap stack, so any depth
 * is safe here; the callbacks count the depth and stop the parse at the
 * first level past the limit.  Each object's keys are kept on one stack
 * (hash, offset, text); when the object ends its keys are sorted by hash
 * and text and neighbours compared, so a document of K keys costs
 * O(K log K), and the duplicate reported is the later one in the text. */
#include "hs_jcheck.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "hs_hash.h"
#include "hs_limits.h"
#include "hs_valid.h"

typedef struct hs__jkey_s {
    uint64_t hash;
    size_t off;             /* where the key ends in the text */
    const unsigned char *s; /* yajl's pointer: valid only in the callback */
    size_t len;
    char *copy;             /* the key, owned */
} hs__jkey_t;

typedef struct hs__jc_s {
    const yajl_handle *h;
    unsigned depth;
    size_t *map_start;      /* per open object: its first key's index */
    size_t n_maps, cap_maps;
    hs__jkey_t *keys;
    size_t n_keys, cap_keys;
    int why;                /* 1 too deep, 2 duplicate key, 3 no memory */
    size_t why_off;
    char dup[48];
} hs__jc_t;

static size_t hs__jc_off(hs__jc_t *c)
{
    return yajl_get_bytes_consumed(*c->h);
}

static int hs__jc_open(hs__jc_t *c, int is_map)
{
    if (++c->depth > HS_LIMIT_NEST_DEPTH) {
        c->why = 1;
        c->why_off = hs__jc_off(c);
        return 0;
    }
    if (is_map) {
        if (c->n_maps == c->cap_maps) {
            size_t n = c->cap_maps ? 2 * c->cap_maps : 16;
            size_t *p = realloc(c->map_start, n * sizeof *p);
            if (p == NULL) {
                c->why = 3;
                return 0;
            }
            c->map_start = p;
            c->cap_maps = n;
        }
        c->map_start[c->n_maps++] = c->n_keys;
    }
    return 1;
}

static int hs__jc_start_map(void *ctx)
{
    return hs__jc_open(ctx, 1);
}

static int hs__jc_start_array(void *ctx)
{
    return hs__jc_open(ctx, 0);
}

static int hs__jc_end_array(void *ctx)
{
    hs__jc_t *c = ctx;

    c->depth--;
    return 1;
}

static int hs__jc_key(void *ctx, const unsigned char *s, size_t len)
{
    hs__jc_t *c = ctx;
    hs__jkey_t *k;

    if (c->n_keys == c->cap_keys) {
        size_t n = c->cap_keys ? 2 * c->cap_keys : 64;
        hs__jkey_t *p = realloc(c->keys, n * sizeof *p);
        if (p == NULL) {
            c->why = 3;
            return 0;
        }
        c->keys = p;
        c->cap_keys = n;
    }
    k = &c->keys[c->n_keys];
    k->copy = malloc(len + 1);
    if (k->copy == NULL) {
        c->why = 3;
        return 0;
    }
    memcpy(k->copy, s, len);
    k->copy[len] = '\0';
    k->len = len;
    k->s = NULL;
    k->hash = hs_fnv1a(s, len);
    k->off = hs__jc_off(c);
    c->n_keys++;
    return 1;
}

static int hs__jc_cmp(const void *a, const void *b)
{
    const hs__jkey_t *x = a, *y = b;

    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    {
        int r = memcmp(x->copy, y->copy, x->len);
        if (r != 0)
            return r;
    }
    return x->off < y->off ? -1 : x->off > y->off;
}

static int hs__jc_end_map(void *ctx)
{
    hs__jc_t *c = ctx;
    size_t from = c->map_start[--c->n_maps], i, n = c->n_keys - from;
    hs__jkey_t *k;

    c->depth--;
    if (n == 0)
        return 1;       /* an empty object (and maybe no key array yet) */
    k = c->keys + from;
    if (n > 1) {
        qsort(k, n, sizeof *k, hs__jc_cmp);
        for (i = 1; i < n; i++)
            if (k[i].hash == k[i - 1].hash && k[i].len == k[i - 1].len &&
                memcmp(k[i].copy, k[i - 1].copy, k[i].len) == 0) {
                c->why = 2;
                c->why_off = k[i].off;
                hs_valid_quote(k[i].copy, c->dup, sizeof c->dup);
                break;
            }
    }
    for (i = 0; i < n; i++)
        free(k[i].copy);
    c->n_keys = from;
    return c->why == 0;
}

/* Line and column (from 1) of byte off in text. */
static void hs__jc_pos(const char *text, size_t len, size_t off,
                       unsigned long *line, unsigned long *col)
{
    size_t i;

    *line = 1;
    *col = 1;
    if (off > len)
        off = len;
    for (i = 0; i < off; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

hs_err_t hs_json_check(const char *name, const char *text, size_t len,
                       hs_error_t *err)
{
    static const yajl_callbacks cb = {
        NULL, NULL, NULL, NULL, NULL, NULL,
        hs__jc_start_map, hs__jc_key, hs__jc_end_map,
        hs__jc_start_array, hs__jc_end_array};
    const char *nul = memchr(text, '\0', len);
    hs__jc_t c;
    yajl_handle h;
    yajl_status st;
    unsigned long line, col;
    hs_err_t rc = HS_OK;
    size_t i;

    if (nul != NULL) {
        hs__jc_pos(text, len, (size_t)(nul - text), &line, &col);
        return hs_error_set(err, HS_ERR_SYNTAX, name, line, col,
                            "a NUL byte: not JSON text");
    }
    memset(&c, 0, sizeof c);
    h = yajl_alloc(&cb, NULL, &c);
    if (h == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, name, 0, 0, "out of memory");
    c.h = &h;
    yajl_config(h, yajl_allow_comments, 1);
    int at_end = 0;

    st = yajl_parse(h, (const unsigned char *)text, len);
    if (st == yajl_status_ok) {
        at_end = 1;     /* an error now is at the end of the text */
        st = yajl_complete_parse(h);
    }
    if (st != yajl_status_ok) {
        if (c.why == 3) {
            rc = hs_error_set(err, HS_ERR_NOMEM, name, 0, 0,
                              "out of memory");
        } else if (c.why == 1) {
            hs__jc_pos(text, len, c.why_off ? c.why_off - 1 : 0, &line,
                       &col);
            rc = hs_error_set(err, HS_ERR_SYNTAX, name, line, col,
                              "nested deeper than %d levels (the limit)",
                              HS_LIMIT_NEST_DEPTH);
        } else if (c.why == 2) {
            hs__jc_pos(text, len, c.why_off, &line, &col);
            rc = hs_error_set(err, HS_ERR_SYNTAX, name, line, col,
                              "the key '%s' is given twice in one object",
                              c.dup);
        } else {
            size_t off = at_end ? len : yajl_get_bytes_consumed(h);
            hs__jc_pos(text, len, off, &line, &col);
            rc = hs_error_set(err, HS_ERR_SYNTAX, name, line, col,
                              "invalid JSON%s",
                              at_end ? " (it ends too soon)" : "");
        }
    }
    for (i = 0; i < c.n_keys; i++)
        free(c.keys[i].copy);
    free(c.keys);
    free(c.map_start);
    yajl_free(h);
    return rc;
}
