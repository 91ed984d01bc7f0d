/*
 * hs_checked.h -- overflow-checked arithmetic on times (int64_t ns), sizes
 * (uint64_t bytes) and counts.
 *
 * Every function returns 0 and stores the exact result in *out, or returns
 * -1 and leaves *out untouched when the result does not fit its type (or
 * an input is NaN or infinite).  They never wrap, trap or invoke undefined
 * behaviour.  The caller turns a -1 into an HS_ERR_RANGE error naming the
 * key and its file:line:col; whether a result that fits is also within the
 * stated limits (hs_limits.h) is a separate, plain comparison:
 * hs_checked_time_ok and hs_checked_bytes_ok.
 *
 * The integer operations are GCC/Clang's __builtin_*_overflow; the
 * conversions from double compare against 2^63 and 2^64, which doubles
 * represent exactly (INT64_MAX itself does not convert exactly: it rounds
 * up to 2^63, which is out of range).
 */
#ifndef HS_CHECKED_H
#define HS_CHECKED_H

#include <math.h>
#include <stdint.h>

#include "hs_limits.h"

/* a + b. */
static inline int hs_checked_add_i64(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;

    if (__builtin_add_overflow(a, b, &r))
        return -1;
    *out = r;
    return 0;
}

/* a - b. */
static inline int hs_checked_sub_i64(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;

    if (__builtin_sub_overflow(a, b, &r))
        return -1;
    *out = r;
    return 0;
}

/* a * b. */
static inline int hs_checked_mul_i64(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;

    if (__builtin_mul_overflow(a, b, &r))
        return -1;
    *out = r;
    return 0;
}

/* a + b, unsigned. */
static inline int hs_checked_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t r;

    if (__builtin_add_overflow(a, b, &r))
        return -1;
    *out = r;
    return 0;
}

/* a * b, unsigned. */
static inline int hs_checked_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t r;

    if (__builtin_mul_overflow(a, b, &r))
        return -1;
    *out = r;
    return 0;
}

/* An unsigned value as int64 (a size or count used in a time product). */
static inline int hs_checked_u64_to_i64(uint64_t a, int64_t *out)
{
    if (a > (uint64_t)INT64_MAX)
        return -1;
    *out = (int64_t)a;
    return 0;
}

/*
 * x rounded to the nearest integer (halves away from zero, as llround) as
 * int64.  Refuses NaN, +-inf and anything outside [-2^63, 2^63).
 */
static inline int hs_checked_dbl_to_i64(double x, int64_t *out)
{
    double r;

    if (!isfinite(x))
        return -1;
    r = round(x);
    if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
        return -1;
    *out = (int64_t)r;
    return 0;
}

/*
 * x rounded to the nearest integer as uint64.  Refuses NaN, +-inf, values
 * that round below 0 and anything at or above 2^64.
 */
static inline int hs_checked_dbl_to_u64(double x, uint64_t *out)
{
    double r;

    if (!isfinite(x))
        return -1;
    r = round(x);
    if (!(r >= 0.0 && r < 18446744073709551616.0))
        return -1;
    *out = (uint64_t)r;
    return 0;
}

/*
 * t_ns scaled by factor and rounded to nearest: a compute_scale, a
 * straggler's factor.  Refuses a NaN or infinite factor and a result that
 * does not fit int64.
 */
static inline int hs_checked_scale_i64(int64_t t_ns, double factor,
                                       int64_t *out)
{
    return hs_checked_dbl_to_i64((double)t_ns * factor, out);
}

/*
 * Nanoseconds to move `bytes` at `bytes_per_s`, rounded to nearest: the
 * rounding rule of hs_xfer_ns (llround(bytes * 1e9 / bytes_per_s)), which
 * the closed form and the replay share.  0 bytes (or fewer) take 0 ns.  A
 * bandwidth that is not a positive finite number, NaN bytes, or a result
 * beyond int64 is refused.
 */
static inline int hs_checked_ns_from_bytes(double bytes, double bytes_per_s,
                                           int64_t *out_ns)
{
    if (isnan(bytes) || !isfinite(bytes_per_s) || !(bytes_per_s > 0))
        return -1;
    if (bytes <= 0) {
        *out_ns = 0;
        return 0;
    }
    return hs_checked_dbl_to_i64(bytes * 1e9 / bytes_per_s, out_ns);
}

/* 1 when t_ns is a time hetsim accepts: 0 <= t_ns <= HS_LIMIT_TIME_NS. */
static inline int hs_checked_time_ok(int64_t t_ns)
{
    return t_ns >= 0 && t_ns <= HS_LIMIT_TIME_NS;
}

/* 1 when bytes is a size hetsim accepts: bytes <= HS_LIMIT_BYTES. */
static inline int hs_checked_bytes_ok(uint64_t bytes)
{
    return bytes <= HS_LIMIT_BYTES;
}

#endif
