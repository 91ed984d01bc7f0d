/*
 * hs_units.h -- quantities written with their unit, as scenarios and
 * profiles spell them: "20ms", "150us", "1.5s"; "350MB", "1GiB", "102228128B";
 * "25Gbps", "100Mbit/s", "12.5GB/s".
 *
 * Decimal prefixes are powers of 1000 (kB/KB, MB, GB, TB, PB), binary ones
 * powers of 1024 (KiB, MiB, GiB, TiB, PiB).  In a bandwidth, "b" or "bit"
 * means bits and "B" bytes.  A space may stand between number and unit.
 * Numbers may have a fraction and an exponent ("1e3ms").  A bare number with
 * no unit is an error for every kind (the caller decides whether a bare
 * integer means something else, e.g. a sample count).
 *
 * Every kind has limits (hs_limits.h): a duration is at most 1e6 s, a size
 * at most 1 EB, a bandwidth between 1 bit/s and 8 Pbit/s.  A value outside
 * them, a sign ("-0", "+1s"), "inf", "nan" or a hex number is refused at
 * parse time, never wrapped; hs_units_why says which rule a text broke.
 */
#ifndef HS_UNITS_H
#define HS_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* The kinds of quantity, for hs_units_why. */
typedef enum hs_unit_kind_e {
    HS_UNIT_TIME = 0,
    HS_UNIT_SIZE = 1,
    HS_UNIT_BANDWIDTH = 2
} hs_unit_kind_t;

/*
 * Parses a duration into integer nanoseconds (rounded to nearest).
 * Units: ns, us, µs, ms, s, min, h.  Returns 0 on success, -1 on a missing
 * or unknown unit, a malformed number, a sign, or a value above
 * HS_LIMIT_INPUT_TIME_NS (1e6 s).
 */
int hs_parse_time_ns(const char *text, int64_t *out_ns);

/*
 * Parses a size into bytes (rounded to nearest).  Units: B, kB, KB, MB, GB,
 * TB, PB, KiB, MiB, GiB, TiB, PiB.  Returns 0 or -1 as hs_parse_time_ns;
 * the limit is HS_LIMIT_BYTES (1 EB).
 */
int hs_parse_bytes(const char *text, uint64_t *out_bytes);

/*
 * Parses a bandwidth into bytes per second.  Units: bps, kbps/Kbps, Mbps,
 * Gbps, Tbps, bit/s, kbit/s, Mbit/s, Gbit/s, Tbit/s, B/s, kB/s, KB/s, MB/s,
 * GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s.  Must lie between 1 bit/s and
 * 8 Pbit/s (HS_LIMIT_BW_*: 0 is refused).  Returns 0 or -1.
 */
int hs_parse_bandwidth(const char *text, double *out_bytes_per_s);

/*
 * Why text is refused as a quantity of kind: a static phrase meant to follow
 * the quoted value in a message ("'1e300s' is above the largest duration
 * hetsim accepts, 1000000 s (277.8 h)"), or NULL when it parses.  When
 * out_of_range is not NULL it is set to 1 when the text is a well-formed
 * quantity outside the limits (an HS_ERR_RANGE), 0 otherwise (a malformed
 * one: HS_ERR_UNIT).
 */
const char *hs_units_why(hs_unit_kind_t kind, const char *text,
                         int *out_of_range);

/*
 * Writes a duration in human units ("1.234 s", "12.3 ms", "2 h 03 min")
 * into buf (always NUL-terminated).  Returns buf.
 */
char *hs_fmt_time(int64_t t_ns, char *buf, size_t len);

/* Writes a size in human units ("97.49 MiB (102228128 B)" style without
   the exact part: "97.49 MiB").  Returns buf. */
char *hs_fmt_bytes(uint64_t bytes, char *buf, size_t len);

/* Writes a bandwidth in human units ("25 Gbit/s").  Returns buf. */
char *hs_fmt_bandwidth(double bytes_per_s, char *buf, size_t len);

/* Nanoseconds to move `bytes` at `bytes_per_s`, rounded to nearest; the
   one rounding rule the closed form and the replay share.  0 when either
   is <= 0; INT64_MAX when the result does not fit (a caller that can meet
   that uses hs_checked_ns_from_bytes, which says so instead). */
int64_t hs_xfer_ns(double bytes, double bytes_per_s);

#endif
