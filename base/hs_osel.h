/*
 * hs_osel.h -- the exact median and trimmed mean of n int64 values too
 * many to hold in memory, over repeated passes through them in any
 * order (the same values each pass): a radix selection on the bits of
 * x - lo, 8 bits a pass, for the few sorted positions these figures
 * need, then one pass for the sums below them.  Memory: the struct
 * (about 8 KiB, the caller's), whatever n.  The figures are those of
 * sorting the values: the median the middle value (the mean of the two
 * middle ones for an even n), the trimmed sum the sum of the sorted
 * values at positions [k, n - k), exact (a 128-bit integer sum; rounded
 * once, to a double, by hs_osel_result).
 *
 * Use: hs_osel_init; while hs_osel_more: hs_osel_add every value, then
 * hs_osel_next; hs_osel_result.
 */
#ifndef HS_OSEL_H
#define HS_OSEL_H

#include <stdint.h>

/* The sorted positions sought: n/2 - 1 and n/2 (the median), k and
   n - k (the trimmed sum). */
#define HS_OSEL_NPOS 4

/* A sum of up to 2^64 int64 values, exact. */
__extension__ typedef __int128 hs_osel_i128;

typedef struct hs_osel_s {
    uint64_t n, k;          /* the values; trimmed from each end */
    int64_t lo;             /* the least value */
    int shift;              /* the next pass's digit: bits [shift,
                               shift + 8) of x - lo; -1: the digits are
                               found, the sums pass is next; -2: done */
    uint64_t mask;          /* the bits of x - lo found so far */
    uint64_t pos[HS_OSEL_NPOS];   /* the sorted positions sought */
    uint64_t bits[HS_OSEL_NPOS];  /* each one's bits found (of x - lo) */
    uint64_t left[HS_OSEL_NPOS];  /* its rank among the values with them */
    uint64_t hist[HS_OSEL_NPOS][256];
    uint64_t below_n[2];    /* the sums pass: the values below the k-th */
    hs_osel_i128 below[2];  /* and the (n-k)-th, their count and sum; */
    hs_osel_i128 all;       /* the sum of all the values */
} hs_osel_t;

/* Starts s on n > 0 values, k of them trimmed from each end
   (2k < n), all in [lo, hi]. */
void hs_osel_init(hs_osel_t *s, uint64_t n, uint64_t k, int64_t lo,
                  int64_t hi);

/* 1 while another pass over the values is wanted, 0 when s is done. */
int hs_osel_more(const hs_osel_t *s);

/* Counts x (one of the n values) in the current pass. */
void hs_osel_add(hs_osel_t *s, int64_t x);

/* Ends the current pass (each pass must have seen all n values). */
void hs_osel_next(hs_osel_t *s);

/* Once done: the median to *median, the sum of the sorted values at
   positions [k, n - k) to *trim_sum (rounded once to a double). */
void hs_osel_result(const hs_osel_t *s, double *median, double *trim_sum);

#endif
