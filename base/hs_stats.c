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

/* Two passes over an array: the sum, then the squares around the mean,
   so that every caller (a profile's samples, the ingestion's pooled steps)
   rounds alike; Welford's running sums can land an ulp below an exact
   half (samples {c+1, c, c+1, c+1} ns, c = 1170709161: sd 0.5 ns). */
void hs_stats_of(const double *x, size_t n, double *mean, double *sd)
{
    double sum = 0, m = 0, sq = 0;
    size_t i;

    for (i = 0; i < n; i++)
        sum += x[i];
    if (n > 0)
        m = sum / (double)n;
    for (i = 0; i < n; i++)
        sq += (x[i] - m) * (x[i] - m);
    if (mean != NULL)
        *mean = m;
    if (sd != NULL)
        *sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
}

void hs_stats_of_i64(const int64_t *x, size_t n, double *mean, double *sd)
{
    double sum = 0, m = 0, sq = 0;
    size_t i;

    for (i = 0; i < n; i++)
        sum += (double)x[i];
    if (n > 0)
        m = sum / (double)n;
    for (i = 0; i < n; i++)
        sq += ((double)x[i] - m) * ((double)x[i] - m);
    if (mean != NULL)
        *mean = m;
    if (sd != NULL)
        *sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
}

void hs_stats_of_ns(const int64_t *x, size_t n, int64_t *mean_ns,
                    int64_t *sd_ns)
{
    double m, sd;

    hs_stats_of_i64(x, n, &m, &sd);
    if (mean_ns != NULL)
        *mean_ns = (int64_t)llround(m);
    if (sd_ns != NULL)
        *sd_ns = (int64_t)llround(sd);
}
