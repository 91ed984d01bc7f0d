/*
 * hs_stats.h -- the one mean / standard-deviation helper: a running sum
 * (the caller owns the struct, zero-initialised or hs_stats_init).  The
 * standard deviation is the sample one (n - 1), 0 below two values.
 */
#ifndef HS_STATS_H
#define HS_STATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct hs_stats_s {
    size_t n;
    double mean;    /* Welford's running mean */
    double m2;      /* sum of squared deviations from the mean */
} hs_stats_t;

/* Zeroes st. */
void hs_stats_init(hs_stats_t *st);

/* Adds x. */
void hs_stats_add(hs_stats_t *st, double x);

/* Mean of what was added, 0 when nothing was. */
double hs_stats_mean(const hs_stats_t *st);

/* Sample standard deviation, 0 below two values. */
double hs_stats_sd(const hs_stats_t *st);

/* Mean and sample sd of the n values at x (mean 0, sd 0 when n is 0),
   in two passes (sum, then squares around the mean); either out pointer
   may be NULL. */
void hs_stats_of(const double *x, size_t n, double *mean, double *sd);

/* The same over int64 values, unrounded. */
void hs_stats_of_i64(const int64_t *x, size_t n, double *mean, double *sd);

/* Same for int64 nanoseconds, each rounded to the nearest ns
   (llround). */
void hs_stats_of_ns(const int64_t *x, size_t n, int64_t *mean_ns,
                    int64_t *sd_ns);

#endif
