/*
 * hs_links.c -- the link table (hs_links.h).
 *
 * Pair rows sit in an array in the order given, indexed by one
 * open-addressing hash on the ordered pair (a, b) (FNV-1a of each end,
 * base/hs_hash.h).  A lookup for one link probes at most eight keys: the
 * four name/address combinations in the exact direction, then the same in
 * the other direction, the order the loader has always used.  Type rows
 * are few (types squared at most) and scanned from the last.
 *
 * The table also owns the CSV link format (network.links_csv): rows
 * "addr1,addr2,bandwidth[,latency]", '#' comments, an optional header.
 */
#include "hs_links.h"

#include <stdlib.h>
#include <string.h>

#include "hs_file.h"
#include "hs_hash.h"
#include "hs_limits.h"
#include "hs_units.h"
#include "hs_valid.h"

static uint64_t hs__pair_hash(const char *a, const char *b)
{
    return hs_fnv1a_str(a) * 31 + hs_fnv1a_str(b);
}

int hs_links_add_row(hs_links_t *l, const char *a, const char *b,
                     double bw_bytes_per_s, int64_t lat_ns)
{
    hs_link_row_t *r;

    if (l->n_rows == l->cap_rows) {
        size_t cap = l->cap_rows ? l->cap_rows * 2 : 16;
        hs_link_row_t *p = realloc(l->rows, cap * sizeof *p);
        if (p == NULL)
            return -1;
        l->rows = p;
        l->cap_rows = cap;
    }
    r = &l->rows[l->n_rows];
    r->a = strdup(a);
    r->b = strdup(b);
    if (r->a == NULL || r->b == NULL) {
        free(r->a);
        free(r->b);
        return -1;
    }
    r->bw_bytes_per_s = bw_bytes_per_s;
    r->lat_ns = lat_ns;
    l->n_rows++;
    return 0;
}

int hs_links_index(hs_links_t *l)
{
    size_t cap = 16, i;

    free(l->slot);
    l->slot = NULL;
    l->mask = 0;
    if (l->n_rows == 0)
        return 0;
    while (cap < l->n_rows * 2)
        cap *= 2;
    l->slot = calloc(cap, sizeof *l->slot);
    if (l->slot == NULL)
        return -1;
    l->mask = cap - 1;
    for (i = 0; i < l->n_rows; i++) {
        const hs_link_row_t *r = &l->rows[i];
        size_t j = (size_t)hs__pair_hash(r->a, r->b) & l->mask;
        for (;;) {
            uint32_t e = l->slot[j];
            if (e == 0 || (strcmp(l->rows[e - 1].a, r->a) == 0 &&
                           strcmp(l->rows[e - 1].b, r->b) == 0)) {
                l->slot[j] = (uint32_t)i + 1;
                break;
            }
            j = (j + 1) & l->mask;
        }
    }
    return 0;
}

static const hs_link_row_t *hs__row(const hs_links_t *l, const char *a,
                                    const char *b)
{
    size_t j;

    if (l->slot == NULL)
        return NULL;
    j = (size_t)hs__pair_hash(a, b) & l->mask;
    for (;;) {
        uint32_t e = l->slot[j];
        if (e == 0)
            return NULL;
        if (strcmp(l->rows[e - 1].a, a) == 0 &&
            strcmp(l->rows[e - 1].b, b) == 0)
            return &l->rows[e - 1];
        j = (j + 1) & l->mask;
    }
}

int hs_links_add_type_row(hs_links_t *l, uint32_t a, uint32_t b,
                          double bw_bytes_per_s, int64_t lat_ns,
                          int replace)
{
    size_t i, k = 0;

    if (replace) {
        for (i = 0; i < l->n_types; i++) {
            const hs_type_link_t *t = &l->types[i];
            if ((t->a == a && t->b == b) || (t->a == b && t->b == a))
                continue;
            l->types[k++] = *t;
        }
        l->n_types = k;
    }
    if (l->n_types == l->cap_types) {
        size_t cap = l->cap_types ? l->cap_types * 2 : 8;
        hs_type_link_t *p = realloc(l->types, cap * sizeof *p);
        if (p == NULL)
            return -1;
        l->types = p;
        l->cap_types = cap;
    }
    l->types[l->n_types].a = a;
    l->types[l->n_types].b = b;
    l->types[l->n_types].bw_bytes_per_s = bw_bytes_per_s;
    l->types[l->n_types].lat_ns = lat_ns;
    l->n_types++;
    return 0;
}

int hs_links_find(const hs_links_t *l, const char *name_a,
                  const char *addr_a, uint32_t type_a, const char *name_b,
                  const char *addr_b, uint32_t type_b,
                  double *bw_bytes_per_s, int64_t *lat_ns)
{
    const hs_link_row_t *r = NULL;
    double bw = 0;
    int64_t lat = -1;
    size_t i;

    if (l->n_rows > 0) {
        r = hs__row(l, name_a, name_b);
        if (r == NULL)
            r = hs__row(l, addr_a, addr_b);
        if (r == NULL)
            r = hs__row(l, name_b, name_a);
        if (r == NULL)
            r = hs__row(l, addr_b, addr_a);
        if (r == NULL)
            r = hs__row(l, name_a, addr_b);
        if (r == NULL)
            r = hs__row(l, addr_a, name_b);
        if (r == NULL)
            r = hs__row(l, name_b, addr_a);
        if (r == NULL)
            r = hs__row(l, addr_b, name_a);
    }
    if (r != NULL) {
        bw = r->bw_bytes_per_s;
        lat = r->lat_ns;
    } else {
        for (i = l->n_types; i-- > 0;) {
            const hs_type_link_t *t = &l->types[i];
            if ((t->a == type_a && t->b == type_b) ||
                (t->b == type_a && t->a == type_b)) {
                bw = t->bw_bytes_per_s;
                lat = t->lat_ns;
                break;
            }
        }
    }
    if (bw <= 0)
        bw = l->default_bw_bytes_per_s;
    *lat_ns = lat >= 0 ? lat : l->default_lat_ns;
    if (bw <= 0) {
        *bw_bytes_per_s = 0;
        return 0;
    }
    *bw_bytes_per_s = bw;
    return 1;
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

/* A CSV field that is not a quantity of its kind: HS_ERR_RANGE with the
   unit parser's reason when it is one but past the limits, else
   HS_ERR_UNIT with what a good value looks like. */
static hs_err_t hs__csv_quantity_fail(hs_error_t *err, const char *path,
                                      unsigned long lineno, unsigned long col,
                                      hs_unit_kind_t kind, const char *text,
                                      const char *good)
{
    int range = 0;
    const char *why = hs_units_why(kind, text, &range);

    if (range)
        return hs_error_set(err, HS_ERR_RANGE, path, lineno, col, "'%s' %s",
                            hs_ex(text), why);
    return hs_error_set(err, HS_ERR_UNIT, path, lineno, col, "'%s' is not %s",
                        hs_ex(text), good);
}

/* A NUL byte in text[0..len) would end the row (or the file) early and
   drop the rest without a word: refused where it is. */
static hs_err_t hs__csv_nul(const char *text, size_t len, const char *path,
                            hs_error_t *err)
{
    const char *nul = memchr(text, '\0', len);
    unsigned long ln = 1, col = 1;
    const char *q;

    if (nul == NULL)
        return HS_OK;
    for (q = text; q < nul; q++) {
        if (*q == '\n') {
            ln++;
            col = 1;
        } else {
            col++;
        }
    }
    return hs_error_set(err, HS_ERR_SYNTAX, path, ln, col,
                        "a NUL byte: a links CSV is text");
}

/* Line lineno of the links CSV (line, changed in place): blank, a
   comment or the header, else "addr1,addr2,bandwidth[,latency]" added
   to l, each end known (known: NULL for any). */
static hs_err_t hs__csv_row(hs_links_t *l, const char *path,
                            unsigned long lineno, char *line,
                            int (*known)(void *ctx, const char *key),
                            void *ctx, hs_error_t *err)
{
    char *f[5];
    int nf = 0;
    char *p;
    double bw;
    int64_t lat = -1;

    if (strlen(line) > HS_LIMIT_CSV_LINE)
        return hs_error_set(err, HS_ERR_SYNTAX, path, lineno,
                            HS_LIMIT_CSV_LINE + 1,
                            "the line is longer than %d bytes (the "
                            "limit)", HS_LIMIT_CSV_LINE);
    p = hs__trim(line);
    if (*p == '\0' || *p == '#')
        return HS_OK;
    f[nf++] = p;
    for (; *p; p++) {
        if (*p == ',') {
            *p = '\0';
            if (nf == 5)
                break;
            f[nf++] = p + 1;
        }
    }
    if (nf < 3 || nf > 4)
        return hs_error_set(err, HS_ERR_SYNTAX, path, lineno, 1,
                            "expected addr1,addr2,bandwidth[,latency]");
    for (int i = 0; i < nf; i++)
        f[i] = hs__trim(f[i]);
    if (lineno == 1 && strcmp(f[2], "bandwidth") == 0)
        return HS_OK; /* header */
    if (hs_parse_bandwidth(f[2], &bw) != 0)
        return hs__csv_quantity_fail(
            err, path, lineno, (unsigned long)(f[2] - line) + 1,
            HS_UNIT_BANDWIDTH, f[2],
            "a positive bandwidth with a unit (e.g. 25Gbps)");
    if (nf == 4 && hs_parse_time_ns(f[3], &lat) != 0)
        return hs__csv_quantity_fail(
            err, path, lineno, (unsigned long)(f[3] - line) + 1,
            HS_UNIT_TIME, f[3], "a duration with a unit (e.g. 20us)");
    for (int i = 0; i < 2; i++) {
        if (known != NULL && !known(ctx, f[i])) {
            unsigned long col = (unsigned long)(f[i] - line) + 1;
            return hs_error_set(
                err, HS_ERR_NETWORK, path, lineno, col,
                "'%s' is neither a device name nor a device address",
                hs_ex(f[i]));
        }
    }
    if (strcmp(f[0], f[1]) == 0)
        return hs_error_set(
            err, HS_ERR_NETWORK, path, lineno,
            (unsigned long)(f[1] - line) + 1,
            "a link from '%s' to itself: a ring link joins two "
            "devices", hs_ex(f[0]));
    if (hs_links_add_row(l, f[0], f[1], bw, lat) != 0)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

hs_err_t hs_links_read_csv(hs_links_t *l, const char *path,
                           int (*known)(void *ctx, const char *key),
                           void *ctx, hs_error_t *err)
{
    char *text = NULL, *line, *save = NULL;
    size_t len;
    unsigned long lineno = 0;
    hs_err_t rc;

    if ((rc = hs_file_read(path, &text, &len, err)) != HS_OK)
        return rc;
    if ((rc = hs__csv_nul(text, len, path, err)) != HS_OK)
        goto done;
    line = text;
    /* a UTF-8 byte order mark (spreadsheets write one) is not data */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        line += 3;
    for (; line != NULL && *line; line = save) {
        char *nl = strchr(line, '\n');

        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        lineno++;
        if ((rc = hs__csv_row(l, path, lineno, line, known, ctx, err)) !=
            HS_OK)
            goto done;
    }
done:
    free(text);
    return rc;
}

int hs_links_copy(hs_links_t *dst, const hs_links_t *src)
{
    size_t i;

    memset(dst, 0, sizeof *dst);
    dst->default_bw_bytes_per_s = src->default_bw_bytes_per_s;
    dst->default_lat_ns = src->default_lat_ns;
    for (i = 0; i < src->n_rows; i++)
        if (hs_links_add_row(dst, src->rows[i].a, src->rows[i].b,
                             src->rows[i].bw_bytes_per_s,
                             src->rows[i].lat_ns) != 0)
            goto fail;
    for (i = 0; i < src->n_types; i++)
        if (hs_links_add_type_row(dst, src->types[i].a, src->types[i].b,
                                  src->types[i].bw_bytes_per_s,
                                  src->types[i].lat_ns, 0) != 0)
            goto fail;
    if (src->slot != NULL && hs_links_index(dst) != 0)
        goto fail;
    return 0;
fail:
    hs_links_clear(dst);
    return -1;
}

void hs_links_clear(hs_links_t *l)
{
    size_t i;

    if (l == NULL)
        return;
    for (i = 0; i < l->n_rows; i++) {
        free(l->rows[i].a);
        free(l->rows[i].b);
    }
    free(l->rows);
    free(l->slot);
    free(l->types);
    memset(l, 0, sizeof *l);
}
