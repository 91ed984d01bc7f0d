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

hs_err_t hs_sweep_plot_data(const hs_sweep_table_t *t, const char *x_key,
                            const char *by_key, const char *figure,
                            FILE *dat, hs_sweep_plot_info_t *info,
                            hs_error_t *err)
{
    static const char *const kunits[] = {"", " (ms)", " (GB)", " (Gbit/s)"};
    char **xs = NULL, **bys = NULL;
    size_t nxs = 0, nbys = 0, r, r0, s, k, len;
    long kx, kb = -1, *xi = NULL, *bi = NULL;
    double *xv = NULL, vmax = 0, xmin = 0, xmax = 0;
    int fc, fr, kind = -1;
    unsigned char *keep = NULL;
    hs__xord_t *order = NULL;
    hs_err_t rc = HS_OK;

    memset(info, 0, sizeof *info);
    if (figure == NULL || strcmp(figure, "step") == 0) {
        fc = HS_SWEEP_TAB_STEP;
        fr = HS_SWEEP_TAB_RSTEP;
    } else if (strcmp(figure, "epoch") == 0) {
        fc = HS_SWEEP_TAB_EPOCH;
        fr = HS_SWEEP_TAB_REPOCH;
    } else if (strcmp(figure, "total") == 0) {
        fc = HS_SWEEP_TAB_TOTAL;
        fr = HS_SWEEP_TAB_RTOTAL;
    } else {
        return hs_error_setf(err, HS_ERR_USAGE,
                             "'%s' is not a sweep figure (step, epoch or "
                             "total)", figure);
    }
    kx = x_key != NULL ? hs__key_index(t, x_key) : 0;
    if (kx < 0 || t->n_keys == 0)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "'%s' is not a varied key of the sweep",
                             x_key ? x_key : "");
    if (by_key != NULL && by_key[0] != '\0') {
        kb = hs__key_index(t, by_key);
        if (kb < 0 || kb == kx)
            return hs_error_setf(err, HS_ERR_USAGE,
                                 "'%s' is not another varied key of the "
                                 "sweep", by_key);
    } else if (by_key == NULL && t->n_keys > 1) {
        kb = kx == 0 ? 1 : 0;
    }
    xi = calloc(t->n_rows + 1, sizeof *xi);
    bi = calloc(t->n_rows + 1, sizeof *bi);
    xv = calloc(t->n_rows + 1, sizeof *xv);
    keep = calloc(t->n_rows + 1, 1);
    if (xi == NULL || bi == NULL || xv == NULL || keep == NULL)
        goto nomem;
    /* the rows drawn: the figure is there, the other keys as in the
       first row that has it */
    for (r0 = 0; r0 < t->n_rows; r0++)
        if (t->fig[r0 * HS_SWEEP_TAB_FIGS + fc] >= 0)
            break;
    for (r = 0; r < t->n_rows; r++) {
        const char *const *v = (const char *const *)&t->values[r * t->n_keys];
        keep[r] = t->fig[r * HS_SWEEP_TAB_FIGS + fc] >= 0;
        for (k = 0; k < t->n_keys && keep[r]; k++)
            if ((long)k != kx && (long)k != kb &&
                strcmp(v[k], t->values[r0 * t->n_keys + k]) != 0)
                keep[r] = 0;
        if (!keep[r])
            continue;
        xi[r] = hs__intern(&xs, &nxs, v[kx]);
        bi[r] = kb >= 0 ? hs__intern(&bys, &nbys, v[kb])
                        : hs__intern(&bys, &nbys, "");
        if (xi[r] < 0 || bi[r] < 0)
            goto nomem;
        info->n_points++;
    }
    if (info->n_points == 0) {
        rc = hs_error_setf(err, HS_ERR_SCHEMA,
                           "no point of the sweep has a %s time to draw",
                           figure ? figure : "step");
        goto done;
    }
    /* numeric x when every x value is a number of one kind */
    for (k = 0; k < 4 && kind < 0; k++) {
        size_t i;
        for (i = 0; i < nxs; i++)
            if (hs__x_num(xs[i], (int)k, &xv[i]) != 0)
                break;
        if (i == nxs)
            kind = (int)k;
    }
    for (len = 0, k = 0; k < t->n_keys; k++) {
        if ((long)k == kx || (long)k == kb)
            continue;
        len += (size_t)snprintf(info->fixed + len,
                                len < sizeof info->fixed
                                    ? sizeof info->fixed - len : 0,
                                "%s%s=%s", len ? ", " : "", t->keys[k],
                                t->values[r0 * t->n_keys + k]);
    }
    for (r = 0; r < t->n_rows; r++) {
        int64_t c = t->fig[r * HS_SWEEP_TAB_FIGS + fc];
        int64_t p = t->fig[r * HS_SWEEP_TAB_FIGS + fr];
        if (!keep[r])
            continue;
        if ((double)c > vmax)
            vmax = (double)c;
        if ((double)p > vmax)
            vmax = (double)p;
    }
    info->tunit = hs_plot_time_unit((int64_t)vmax, &info->unit_ns);
    info->has_replay = t->has_replay;
    info->x_numeric = kind >= 0;
    snprintf(info->xlabel, sizeof info->xlabel, "%s%s", t->keys[kx],
             kind >= 0 ? kunits[kind] : "");
    if (kind >= 0) {
        for (k = 0; k < nxs; k++) {
            if (k == 0 || xv[k] < xmin)
                xmin = xv[k];
            if (k == 0 || xv[k] > xmax)
                xmax = xv[k];
        }
        info->x_integer = kind == 0;
        for (k = 0; k < nxs && info->x_integer; k++)
            if (xv[k] != floor(xv[k]))
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
        info->xhi = (double)nxs - 0.5;
    }
    order = calloc(nxs, sizeof *order);
    if (order == NULL)
        goto nomem;
    for (k = 0; k < nxs; k++) {
        order[k].x = kind >= 0 ? xv[k] : (double)k;
        order[k].i = k;
    }
    qsort(order, nxs, sizeof *order, hs__xcmp);
    info->series = calloc(nbys, sizeof *info->series);
    if (info->series == NULL)
        goto nomem;
    info->n_series = nbys;
    for (s = 0; s < nbys; s++) {
        size_t i;
        char title[600];
        if (kb >= 0)
            snprintf(title, sizeof title, "%s=%s", t->keys[kb], bys[s]);
        else
            title[0] = '\0';
        if ((info->series[s] = strdup(title)) == NULL)
            goto nomem;
        fprintf(dat, "# series %zu: %s\n", s, title);
        /* in x order: by position for categories, by value for numbers */
        for (i = 0; i < nxs; i++) {
            size_t best = order[i].i;
            for (r = 0; r < t->n_rows; r++) {
                const char *lab = xs[best];
                const char *c;
                int64_t rv;
                if (!keep[r] || (size_t)xi[r] != best || (size_t)bi[r] != s)
                    continue;
                fprintf(dat, "%.9g \"", kind >= 0 ? xv[best] : (double)best);
                for (c = lab; *c; c++)
                    fputc(*c == '"' ? '\'' : *c, dat);
                rv = t->fig[r * HS_SWEEP_TAB_FIGS + fr];
                fprintf(dat, "\" %.9g ",
                        (double)t->fig[r * HS_SWEEP_TAB_FIGS + fc] /
                            info->unit_ns);
                if (rv >= 0)
                    fprintf(dat, "%.9g\n", (double)rv / info->unit_ns);
                else
                    fputs("NaN\n", dat);
                break;  /* one row per (x, series) */
            }
        }
        fputs("\n\n", dat);
    }
    if (ferror(dat))
        rc = hs_error_setf(err, HS_ERR_IO, "cannot write the plot data");
    goto done;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
done:
    for (k = 0; k < nxs; k++)
        free(xs[k]);
    free(xs);
    for (k = 0; k < nbys; k++)
        free(bys[k]);
    free(bys);
    free(xi);
    free(bi);
    free(xv);
    free(keep);
    free(order);
    if (rc != HS_OK)
        hs_sweep_plot_info_clear(info);
    return rc;
}
