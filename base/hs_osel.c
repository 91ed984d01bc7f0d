/* hs_osel.c -- exact order statistics over repeated passes (hs_osel.h). */
#include "hs_osel.h"

#include <string.h>

void hs_osel_init(hs_osel_t *s, uint64_t n, uint64_t k, int64_t lo,
                  int64_t hi)
{
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    int bits = 0, t;

    memset(s, 0, sizeof *s);
    s->n = n;
    s->k = k;
    s->lo = lo;
    while (bits < 64 && (range >> bits) != 0)
        bits++;
    s->shift = bits > 0 ? (bits - 1) / 8 * 8 : -1;
    s->pos[0] = n % 2 ? n / 2 : n / 2 - 1;
    s->pos[1] = n / 2;
    s->pos[2] = k;
    s->pos[3] = k > 0 ? n - k : n - 1;  /* k 0: the sum is all of them */
    for (t = 0; t < HS_OSEL_NPOS; t++)
        s->left[t] = s->pos[t];
}

int hs_osel_more(const hs_osel_t *s)
{
    return s->shift != -2;
}

/* The value at sorted position pos[t] (its bits all found). */
static int64_t hs__val(const hs_osel_t *s, int t)
{
    return (int64_t)((uint64_t)s->lo + s->bits[t]);
}

void hs_osel_add(hs_osel_t *s, int64_t x)
{
    uint64_t u = (uint64_t)x - (uint64_t)s->lo;
    int t;

    if (s->shift >= 0) {
        for (t = 0; t < HS_OSEL_NPOS; t++)
            if ((u & s->mask) == s->bits[t])
                s->hist[t][(u >> s->shift) & 0xff]++;
        return;
    }
    if (s->shift != -1)
        return;
    for (t = 0; t < 2; t++)
        if (x < hs__val(s, 2 + t)) {
            s->below_n[t]++;
            s->below[t] += x;
        }
    s->all += x;
}

void hs_osel_next(hs_osel_t *s)
{
    int t, d;

    if (s->shift < 0) {
        s->shift = -2;
        return;
    }
    for (t = 0; t < HS_OSEL_NPOS; t++) {
        uint64_t cum = 0;
        for (d = 0; d < 255 && cum + s->hist[t][d] <= s->left[t]; d++)
            cum += s->hist[t][d];
        s->left[t] -= cum;
        s->bits[t] |= (uint64_t)d << s->shift;
    }
    s->mask |= (uint64_t)0xff << s->shift;
    s->shift = s->shift >= 8 ? s->shift - 8 : -1;
    memset(s->hist, 0, sizeof s->hist);
}

/* The sum of the r smallest values, r = pos[2 + t] (the sums pass done):
   those below the value at r, and as many copies of it as make r. */
static hs_osel_i128 hs__smallest(const hs_osel_t *s, int t)
{
    uint64_t r = s->pos[2 + t];

    return s->below[t] +
           (hs_osel_i128)(r - s->below_n[t]) * hs__val(s, 2 + t);
}

void hs_osel_result(const hs_osel_t *s, double *median, double *trim_sum)
{
    hs_osel_i128 sum;

    *median = s->n % 2 ? (double)hs__val(s, 1)
                       : ((double)hs__val(s, 0) + (double)hs__val(s, 1)) /
                             2.0;
    sum = s->k > 0 ? hs__smallest(s, 1) - hs__smallest(s, 0) : s->all;
    *trim_sum = (double)sum;
}
