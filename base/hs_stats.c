/* hs_stats.c -- running mean and standard deviation (hs_stats.h). */
#include "hs_stats.h"

#include <math.h>
#include <string.h>

void hs_stats_init(hs_stats_t *st)
{
    memset(st, 0, sizeof *st);
}

void hs_stats_add(hs_stats_t *st, double x)
{
    double d = x - st->mean;

    st->n++;
    st->mean += d / (double)st->n;
    st->m2 += d * (x - st->mean);
}

double hs_stats_mean(const hs_stats_t *st)
{
    return st->n > 0 ? st->mean : 0.0;
}

double hs_stats_sd(const hs_stats_t *st)
{
    return st->n > 1 ? sqrt(st->m2 / (double)(st->n - 1)) : 0.0;
}

void hs_stats_of(const double *x, size_t n, double *mean, double *sd)
{
    hs_stats_t st;
    size_t i;

    hs_stats_init(&st);
    for (i = 0; i < n; i++)
        hs_stats_add(&st, x[i]);
    if (mean != NULL)
        *mean = hs_stats_mean(&st);
    if (sd != NULL)
        *sd = hs_stats_sd(&st);
}

void hs_stats_of_ns(const int64_t *x, size_t n, int64_t *mean_ns,
                    int64_t *sd_ns)
{
    hs_stats_t st;
    size_t i;

    hs_stats_init(&st);
    for (i = 0; i < n; i++)
        hs_stats_add(&st, (double)x[i]);
    if (mean_ns != NULL)
        *mean_ns = (int64_t)llround(hs_stats_mean(&st));
    if (sd_ns != NULL)
        *sd_ns = (int64_t)llround(hs_stats_sd(&st));
}
