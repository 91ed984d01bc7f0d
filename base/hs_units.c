/* hs_units.c -- parsing and printing quantities with units (hs_units.h). */
#include "hs_units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hs_checked.h"
#include "hs_limits.h"

typedef struct hs__unit_s {
    const char *name;
    double scale;
} hs__unit_t;

static const hs__unit_t hs__time_units[] = {
    {"ns", 1.0}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6},
    {"s", 1e9}, {"min", 60e9}, {"h", 3600e9}, {NULL, 0}};

static const hs__unit_t hs__size_units[] = {
    {"B", 1.0}, {"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
    {"TB", 1e12}, {"PB", 1e15}, {"KiB", 1024.0}, {"MiB", 1048576.0},
    {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
    {"PiB", 1125899906842624.0}, {NULL, 0}};

static const hs__unit_t hs__bw_units[] = {
    {"bps", 0.125}, {"kbps", 125.0}, {"Kbps", 125.0}, {"Mbps", 125e3},
    {"Gbps", 125e6}, {"Tbps", 125e9},
    {"bit/s", 0.125}, {"kbit/s", 125.0}, {"Kbit/s", 125.0},
    {"Mbit/s", 125e3}, {"Gbit/s", 125e6}, {"Tbit/s", 125e9},
    {"B/s", 1.0}, {"kB/s", 1e3}, {"KB/s", 1e3}, {"MB/s", 1e6},
    {"GB/s", 1e9}, {"TB/s", 1e12}, {"KiB/s", 1024.0},
    {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
    {"TiB/s", 1099511627776.0}, {NULL, 0}};

/* The limits of each kind, as the messages spell them. */
static const char hs__why_bad_time[] =
    "is not a duration with a unit (ns, us, ms, s, min, h)";
static const char hs__why_bad_size[] =
    "is not a size with a unit (B, KB, MB, GB, TB, PB, KiB .. PiB)";
static const char hs__why_bad_bw[] =
    "is not a bandwidth with a unit (bps, Mbps, Gbps, Mbit/s, MB/s, GB/s, "
    "GiB/s...)";
static const char hs__why_sign[] =
    "has a sign: a quantity is written without + or -";
static const char hs__why_notnum[] =
    "is not a finite decimal number (no inf, nan or hex)";
static const char hs__why_big_time[] =
    "is above the largest duration hetsim accepts, 1000000 s (277.8 h)";
static const char hs__why_big_size[] =
    "is above the largest size hetsim accepts, 1 EB (1e18 B)";
static const char hs__why_low_bw[] =
    "is below the smallest bandwidth hetsim accepts, 1 bit/s";
static const char hs__why_big_bw[] =
    "is above the largest bandwidth hetsim accepts, 8 Pbit/s (1e15 B/s)";

/*
 * Splits text into a finite non-negative decimal number and a known unit;
 * stores the value times the unit's scale in *out and returns NULL, or
 * returns why the text is refused (bad_unit for a missing or unknown unit).
 */
static const char *hs__parse(const char *text, const hs__unit_t *units,
                             const char *bad_unit, double *out)
{
    char *end;
    double v;
    size_t i;

    if (text == NULL)
        return bad_unit;
    while (*text == ' ' || *text == '\t')
        text++;
    if (*text == '+' || *text == '-')
        return hs__why_sign;
    /* strtod accepts "inf", "nan" and hex: refuse anything not decimal. */
    if (!((text[0] >= '0' && text[0] <= '9') || text[0] == '.')) {
        if (strncasecmp(text, "inf", 3) == 0 ||
            strncasecmp(text, "nan", 3) == 0)
            return hs__why_notnum;
        return bad_unit;
    }
    errno = 0;
    v = strtod(text, &end);
    if (end == text)
        return bad_unit;
    if (strchr(text, 'x') != NULL && strchr(text, 'x') < end)
        return hs__why_notnum;
    if (strchr(text, 'X') != NULL && strchr(text, 'X') < end)
        return hs__why_notnum;
    if (errno == ERANGE && v > 1.0)
        v = HUGE_VAL; /* "1e400": beyond any limit, said so below */
    else if (errno == ERANGE)
        errno = 0;    /* "1e-400": an underflow is just a tiny value */
    if (errno != 0 || isnan(v) || v < 0)
        return hs__why_notnum;
    *out = v;
    while (*end == ' ')
        end++;
    if (*end == '\0')
        return bad_unit;
    for (i = 0; units[i].name != NULL; i++) {
        if (strcmp(end, units[i].name) == 0) {
            *out *= units[i].scale;
            return NULL;
        }
    }
    return bad_unit;
}

static const char *hs__why_time(const char *text, int64_t *out_ns)
{
    double v = 0;
    const char *why = hs__parse(text, hs__time_units, hs__why_bad_time, &v);

    if (why != NULL)
        return why;
    if (!(v <= (double)HS_LIMIT_INPUT_TIME_NS))
        return hs__why_big_time;
    *out_ns = (int64_t)llround(v);
    return NULL;
}

static const char *hs__why_bytes(const char *text, uint64_t *out_bytes)
{
    double v = 0;
    const char *why = hs__parse(text, hs__size_units, hs__why_bad_size, &v);

    if (why != NULL)
        return why;
    if (!(v <= (double)HS_LIMIT_BYTES))
        return hs__why_big_size;
    *out_bytes = (uint64_t)llround(v);
    return NULL;
}

static const char *hs__why_bw(const char *text, double *out)
{
    double v = 0;
    const char *why = hs__parse(text, hs__bw_units, hs__why_bad_bw, &v);

    if (why != NULL)
        return why;
    if (!(v >= HS_LIMIT_BW_MIN_BYTES_PER_S))
        return hs__why_low_bw;
    if (!(v <= HS_LIMIT_BW_MAX_BYTES_PER_S))
        return hs__why_big_bw;
    *out = v;
    return NULL;
}

int hs_parse_time_ns(const char *text, int64_t *out_ns)
{
    return hs__why_time(text, out_ns) == NULL ? 0 : -1;
}

int hs_parse_bytes(const char *text, uint64_t *out_bytes)
{
    return hs__why_bytes(text, out_bytes) == NULL ? 0 : -1;
}

int hs_parse_bandwidth(const char *text, double *out_bytes_per_s)
{
    return hs__why_bw(text, out_bytes_per_s) == NULL ? 0 : -1;
}

const char *hs_units_why(hs_unit_kind_t kind, const char *text,
                         int *out_of_range)
{
    int64_t t;
    uint64_t b;
    double bw;
    const char *why = "is not a known kind of quantity";

    switch (kind) {
    case HS_UNIT_TIME:
        why = hs__why_time(text, &t);
        break;
    case HS_UNIT_SIZE:
        why = hs__why_bytes(text, &b);
        break;
    case HS_UNIT_BANDWIDTH:
        why = hs__why_bw(text, &bw);
        break;
    }
    if (out_of_range != NULL)
        *out_of_range = why == hs__why_big_time ||
                        why == hs__why_big_size || why == hs__why_low_bw ||
                        why == hs__why_big_bw;
    return why;
}

char *hs_fmt_time(int64_t t_ns, char *buf, size_t len)
{
    double a = fabs((double)t_ns);
    const char *sign = t_ns < 0 ? "-" : "";

    if (a < 1e3)
        snprintf(buf, len, "%s%.0f ns", sign, a);
    else if (a < 1e6)
        snprintf(buf, len, "%s%.3f us", sign, a / 1e3);
    else if (a < 1e9)
        snprintf(buf, len, "%s%.3f ms", sign, a / 1e6);
    else if (a < 120e9)
        snprintf(buf, len, "%s%.3f s", sign, a / 1e9);
    else if (a < 7200e9)
        snprintf(buf, len, "%s%.2f min", sign, a / 60e9);
    else if (a < 2 * 86400e9)
        snprintf(buf, len, "%s%.2f h", sign, a / 3600e9);
    else
        snprintf(buf, len, "%s%.2f days", sign, a / 86400e9);
    return buf;
}

char *hs_fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB",
                                  "EiB"};
    double v = (double)bytes;
    int i = 0;

    while (v >= 1024.0 && i < 6) {
        v /= 1024.0;
        i++;
    }
    if (i == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.2f %s", v, names[i]);
    return buf;
}

char *hs_fmt_bandwidth(double bytes_per_s, char *buf, size_t len)
{
    double bits = bytes_per_s * 8.0;

    if (bits >= 1e12)
        snprintf(buf, len, "%.3g Tbit/s", bits / 1e12);
    else if (bits >= 1e9)
        snprintf(buf, len, "%.3g Gbit/s", bits / 1e9);
    else if (bits >= 1e6)
        snprintf(buf, len, "%.3g Mbit/s", bits / 1e6);
    else if (bits >= 1e3)
        snprintf(buf, len, "%.3g kbit/s", bits / 1e3);
    else
        snprintf(buf, len, "%.3g bit/s", bits);
    return buf;
}

int64_t hs_xfer_ns(double bytes, double bytes_per_s)
{
    int64_t ns;

    if (bytes <= 0 || bytes_per_s <= 0)
        return 0;
    if (hs_checked_ns_from_bytes(bytes, bytes_per_s, &ns) != 0)
        return INT64_MAX;
    return ns;
}
