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
 */
#ifndef HS_UNITS_H
#define HS_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parses a duration into integer nanoseconds (rounded to nearest).
 * Units: ns, us, µs, ms, s, min, h.  Returns 0 on success, -1 on a missing
 * or unknown unit, a malformed number, a negative value or an overflow.
 */
int hs_parse_time_ns(const char *text, int64_t *out_ns);

/*
 * Parses a size into bytes (rounded to nearest).  Units: B, kB, KB, MB, GB,
 * TB, PB, KiB, MiB, GiB, TiB, PiB.  Returns 0 or -1 as hs_parse_time_ns.
 */
int hs_parse_bytes(const char *text, uint64_t *out_bytes);

/*
 * Parses a bandwidth into bytes per second.  Units: bps, kbps/Kbps, Mbps,
 * Gbps, Tbps, bit/s, kbit/s, Mbit/s, Gbit/s, Tbit/s, B/s, kB/s, KB/s, MB/s,
 * GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s.  Must be > 0.  Returns 0 or -1.
 */
int hs_parse_bandwidth(const char *text, double *out_bytes_per_s);

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
   one rounding rule the closed form and the replay share. */
int64_t hs_xfer_ns(double bytes, double bytes_per_s);

#endif
