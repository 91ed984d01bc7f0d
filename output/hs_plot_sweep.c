/*
 * hs_plot_sweep.c -- the gnuplot data of a sweep plot (hs_plot.h): a sweep
 * CSV read back (hs_sweep_table_t, output/hs_sweep_out.h) turned into one
 * data block per series for plots/sweep.gp.  The plot side reads the
 * sweep's table; the sweep's writers know nothing of plots.
 */
#include "hs_plot.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_units.h"

/* ---- gnuplot data for a sweep plot ---------------------------------- */

void hs_sweep_plot_info_clear(hs_sweep_plot_info_t *info)
{
    size_t i;

    if (info == NULL)
        return;
    for (i = 0; i < info->n_series; i++)
        free(info->series[i]);
    free(info->series);
    memset(info, 0, sizeof *info);
}

/* The value text as a number on a common axis: kind 0 plain, 1 time
   (ms), 2 bytes (GB), 3 bandwidth (Gbit/s); -1 when it is none of them. */
static int hs__x_num(const char *v, int kind, double *x)
{
    int64_t ns;
    uint64_t b;
    double bw;
    char *end;

    switch (kind) {
    case 0:
        if (!((*v >= '0' && *v <= '9') || *v == '.' || *v == '-'))
            return -1;
        errno = 0;
        *x = strtod(v, &end);
        return end != v && *end == '\0' && errno == 0 ? 0 : -1;
    case 1:
        if (hs_parse_time_ns(v, &ns) != 0)
            return -1;
        *x = (double)ns / 1e6;
        return 0;
    case 2:
        if (hs_parse_bytes(v, &b) != 0)
            return -1;
        *x = (double)b / 1e9;
        return 0;
    default:
        if (hs_parse_bandwidth(v, &bw) != 0)
            return -1;
        *x = bw * 8 / 1e9;
        return 0;
    }
}

/* Index of value v in list l[0..n), appending it when new; -1 on
   allocation failure. */
static long hs__intern(char ***l, size_t *n, const char *v)
{
    size_t i;
    char **nl;

    for (i = 0; i < *n; i++)
        if (strcmp((*l)[i], v) == 0)
            return (long)i;
    nl = realloc(*l, (*n + 1) * sizeof *nl);
    if (nl == NULL)
        return -1;
    *l = nl;
    if ((nl[*n] = strdup(v)) == NULL)
        return -1;
    return (long)(*n)++;
}

/* x values in drawing order: by value, ties in sweep order. */
typedef struct hs__xord_s {
    double x;
    size_t i;
} hs__xord_t;

static int hs__xcmp(const void *a, const void *b)
{
    const hs__xord_t *p = a, *q = b;

    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

static long hs__key_index(const hs_sweep_table_t *t, const char *key)
{
    size_t k;

    for (k = 0; k < t->n_keys; k++)
        if (strcmp(t->keys[k], key) == 0)
            return (long)k;
    return -1;
}

/* The work of hs_sweep_plot_data, shared by its phases; the lists and
   arrays are owned here and freed by hs__sp_free. */
typedef struct {
    const hs_sweep_table_t *t;
    int fc, fr;                 /* the figure's columns: closed, replay */
    long kx, kb;                /* the x key and the series key (-1 none) */
    size_t r0;                  /* the first row that has the figure */
    char **xs, **bys;           /* the distinct x and series values */
    size_t nxs, nbys;
    long *xi, *bi;              /* per row: its x and series index */
    double *xv;                 /* per x value: as a number */
    unsigned char *keep;        /* per row: drawn */
    int kind;                   /* hs__x_num's kind of every x, -1 none */
    hs__xord_t *order;          /* the x values in drawing order */
} hs__sp_t;

/* Frees sp's lists and arrays (not sp, not its table). */
static void hs__sp_free(hs__sp_t *sp)
{
    size_t k;

    for (k = 0; k < sp->nxs; k++)
        free(sp->xs[k]);
    free(sp->xs);
    for (k = 0; k < sp->nbys; k++)
        free(sp->bys[k]);
    free(sp->bys);
    free(sp->xi);
    free(sp->bi);
    free(sp->xv);
    free(sp->keep);
    free(sp->order);
}

/* Sets sp's figure columns from figure (step, epoch or total; NULL is
   step) and its x and series keys from x_key and by_key (NULL x_key: the
   first key; NULL by_key: another key when there is one; "" none). Fills
   err (HS_ERR_USAGE) on a bad one. */
static hs_err_t hs__sp_keys(hs__sp_t *sp, const char *x_key,
                            const char *by_key, const char *figure,
                            hs_error_t *err)
{
    const hs_sweep_table_t *t = sp->t;

    if (figure == NULL || strcmp(figure, "step") == 0) {
        sp->fc = HS_SWEEP_TAB_STEP;
        sp->fr = HS_SWEEP_TAB_RSTEP;
    } else if (strcmp(figure, "epoch") == 0) {
        sp->fc = HS_SWEEP_TAB_EPOCH;
        sp->fr = HS_SWEEP_TAB_REPOCH;
    } else if (strcmp(figure, "total") == 0) {
        sp->fc = HS_SWEEP_TAB_TOTAL;
        sp->fr = HS_SWEEP_TAB_RTOTAL;
    } else {
        return hs_error_setf(err, HS_ERR_USAGE,
                             "'%s' is not a sweep figure (step, epoch or "
                             "total)", figure);
    }
    sp->kx = x_key != NULL ? hs__key_index(t, x_key) : 0;
    if (sp->kx < 0 || t->n_keys == 0)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "'%s' is not a varied key of the sweep",
                             x_key ? x_key : "");
    if (by_key != NULL && by_key[0] != '\0') {
        sp->kb = hs__key_index(t, by_key);
        if (sp->kb < 0 || sp->kb == sp->kx)
            return hs_error_setf(err, HS_ERR_USAGE,
                                 "'%s' is not another varied key of the "
                                 "sweep", by_key);
    } else if (by_key == NULL && t->n_keys > 1) {
        sp->kb = sp->kx == 0 ? 1 : 0;
    }
    return HS_OK;
}

/* Picks the rows drawn (the figure is there, the keys other than x and
   series as in the first row that has it) and interns their x and
   series values; counts them in info->n_points. -1 when out of memory. */
static int hs__sp_rows(hs__sp_t *sp, hs_sweep_plot_info_t *info)
{
    const hs_sweep_table_t *t = sp->t;
    size_t r, k;

    for (sp->r0 = 0; sp->r0 < t->n_rows; sp->r0++)
        if (t->fig[sp->r0 * HS_SWEEP_TAB_FIGS + sp->fc] >= 0)
            break;
    for (r = 0; r < t->n_rows; r++) {
        const char *const *v = (const char *const *)&t->values[r * t->n_keys];
        sp->keep[r] = t->fig[r * HS_SWEEP_TAB_FIGS + sp->fc] >= 0;
        for (k = 0; k < t->n_keys && sp->keep[r]; k++)
            if ((long)k != sp->kx && (long)k != sp->kb &&
                strcmp(v[k], t->values[sp->r0 * t->n_keys + k]) != 0)
                sp->keep[r] = 0;
        if (!sp->keep[r])
            continue;
        sp->xi[r] = hs__intern(&sp->xs, &sp->nxs, v[sp->kx]);
        sp->bi[r] = sp->kb >= 0 ? hs__intern(&sp->bys, &sp->nbys, v[sp->kb])
                                : hs__intern(&sp->bys, &sp->nbys, "");
        if (sp->xi[r] < 0 || sp->bi[r] < 0)
            return -1;
        info->n_points++;
    }
    return 0;
}

/* Sets the axes in info: numeric x (sp->kind, sp->xv) when every x value
   is a number of one kind, the fixed keys' text, the time unit, the x
   label and the x range (log when it spans 50 times or more). */
static void hs__sp_axis(hs__sp_t *sp, hs_sweep_plot_info_t *info)
{
    static const char *const kunits[] = {"", " (ms)", " (GB)", " (Gbit/s)"};
    const hs_sweep_table_t *t = sp->t;
    size_t r, k, len;
    double vmax = 0, xmin = 0, xmax = 0;

    for (k = 0; k < 4 && sp->kind < 0; k++) {
        size_t i;
        for (i = 0; i < sp->nxs; i++)
            if (hs__x_num(sp->xs[i], (int)k, &sp->xv[i]) != 0)
                break;
        if (i == sp->nxs)
            sp->kind = (int)k;
    }
    for (len = 0, k = 0; k < t->n_keys; k++) {
        if ((long)k == sp->kx || (long)k == sp->kb)
            continue;
        len += (size_t)snprintf(info->fixed + len,
                                len < sizeof info->fixed
                                    ? sizeof info->fixed - len : 0,
                                "%s%s=%s", len ? ", " : "", t->keys[k],
                                t->values[sp->r0 * t->n_keys + k]);
    }
    for (r = 0; r < t->n_rows; r++) {
        int64_t c = t->fig[r * HS_SWEEP_TAB_FIGS + sp->fc];
        int64_t p = t->fig[r * HS_SWEEP_TAB_FIGS + sp->fr];
        if (!sp->keep[r])
            continue;
        if ((double)c > vmax)
            vmax = (double)c;
        if ((double)p > vmax)
            vmax = (double)p;
    }
    info->tunit = hs_plot_time_unit((int64_t)vmax, &info->unit_ns);
    info->has_replay = t->has_replay;
    info->x_numeric = sp->kind >= 0;
    snprintf(info->xlabel, sizeof info->xlabel, "%s%s", t->keys[sp->kx],
             sp->kind >= 0 ? kunits[sp->kind] : "");
    if (sp->kind >= 0) {
        for (k = 0; k < sp->nxs; k++) {
            if (k == 0 || sp->xv[k] < xmin)
                xmin = sp->xv[k];
            if (k == 0 || sp->xv[k] > xmax)
                xmax = sp->xv[k];
        }
        info->x_integer = sp->kind == 0;
        for (k = 0; k < sp->nxs && info->x_integer; k++)
            if (sp->xv[k] != floor(sp->xv[k]))
                info->x_integer = 0;
        info->logx = xmin > 0 && xmax / xmin >= 50;
        if (info->logx) {
            info->xlo = xmin / 1.25;
            info->xhi = xmax * 1.25;
        } else {
            double pad = xmax > xmin ? 0.05 * (xmax - xmin) : 1;
            info->xlo = xmin - pad >= 0 || xmin < 0 ? xmin - pad : 0;
            info->xhi = xmax + pad;
        }
    } else {
        info->xlo = -0.5;
        info->xhi = (double)sp->nxs - 0.5;
    }
}

/* Writes series s's block to dat: one line per x value in drawing order,
   from the first drawn row of that x and series. */
static void hs__sp_series(const hs__sp_t *sp,
                          const hs_sweep_plot_info_t *info, size_t s,
                          FILE *dat)
{
    const hs_sweep_table_t *t = sp->t;
    size_t i, r;

    for (i = 0; i < sp->nxs; i++) {
        size_t best = sp->order[i].i;
        for (r = 0; r < t->n_rows; r++) {
            const char *lab = sp->xs[best];
            const char *c;
            int64_t rv;
            if (!sp->keep[r] || (size_t)sp->xi[r] != best ||
                (size_t)sp->bi[r] != s)
                continue;
            fprintf(dat, "%.9g \"",
                    sp->kind >= 0 ? sp->xv[best] : (double)best);
            for (c = lab; *c; c++)
                fputc(*c == '"' ? '\'' : *c, dat);
            rv = t->fig[r * HS_SWEEP_TAB_FIGS + sp->fr];
            fprintf(dat, "\" %.9g ",
                    (double)t->fig[r * HS_SWEEP_TAB_FIGS + sp->fc] /
                        info->unit_ns);
            if (rv >= 0)
                fprintf(dat, "%.9g\n", (double)rv / info->unit_ns);
            else
                fputs("NaN\n", dat);
            break;  /* one row per (x, series) */
        }
    }
}

/* Orders the x values and writes one titled block per series to dat;
   info owns the series titles. -1 when out of memory. */
static int hs__sp_write(hs__sp_t *sp, hs_sweep_plot_info_t *info, FILE *dat)
{
    const hs_sweep_table_t *t = sp->t;
    size_t k, s;

    sp->order = calloc(sp->nxs, sizeof *sp->order);
    if (sp->order == NULL)
        return -1;
    for (k = 0; k < sp->nxs; k++) {
        sp->order[k].x = sp->kind >= 0 ? sp->xv[k] : (double)k;
        sp->order[k].i = k;
    }
    qsort(sp->order, sp->nxs, sizeof *sp->order, hs__xcmp);
    info->series = calloc(sp->nbys, sizeof *info->series);
    if (info->series == NULL)
        return -1;
    info->n_series = sp->nbys;
    for (s = 0; s < sp->nbys; s++) {
        char title[600];
        if (sp->kb >= 0)
            snprintf(title, sizeof title, "%s=%s", t->keys[sp->kb],
                     sp->bys[s]);
        else
            title[0] = '\0';
        if ((info->series[s] = strdup(title)) == NULL)
            return -1;
        fprintf(dat, "# series %zu: %s\n", s, title);
        /* in x order: by position for categories, by value for numbers */
        hs__sp_series(sp, info, s, dat);
        fputs("\n\n", dat);
    }
    return 0;
}

hs_err_t hs_sweep_plot_data(const hs_sweep_table_t *t, const char *x_key,
                            const char *by_key, const char *figure,
                            FILE *dat, hs_sweep_plot_info_t *info,
                            hs_error_t *err)
{
    hs__sp_t sp;
    hs_err_t rc = HS_OK;

    memset(info, 0, sizeof *info);
    memset(&sp, 0, sizeof sp);
    sp.t = t;
    sp.kb = -1;
    sp.kind = -1;
    if ((rc = hs__sp_keys(&sp, x_key, by_key, figure, err)) != HS_OK)
        return rc;
    sp.xi = calloc(t->n_rows + 1, sizeof *sp.xi);
    sp.bi = calloc(t->n_rows + 1, sizeof *sp.bi);
    sp.xv = calloc(t->n_rows + 1, sizeof *sp.xv);
    sp.keep = calloc(t->n_rows + 1, 1);
    if (sp.xi == NULL || sp.bi == NULL || sp.xv == NULL || sp.keep == NULL)
        goto nomem;
    if (hs__sp_rows(&sp, info) != 0)
        goto nomem;
    if (info->n_points == 0) {
        rc = hs_error_setf(err, HS_ERR_SCHEMA,
                           "no point of the sweep has a %s time to draw",
                           figure ? figure : "step");
        goto done;
    }
    hs__sp_axis(&sp, info);
    if (hs__sp_write(&sp, info, dat) != 0)
        goto nomem;
    if (ferror(dat))
        rc = hs_error_setf(err, HS_ERR_IO, "cannot write the plot data");
    goto done;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
done:
    hs__sp_free(&sp);
    if (rc != HS_OK)
        hs_sweep_plot_info_clear(info);
    return rc;
}
