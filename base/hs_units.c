/* hs_units.c -- parsing and printing quantities with units (hs_units.h). */
#include "hs_units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Splits text into a finite non-negative number and a known unit;
   returns the value times the unit's scale, or -1 on any error. */
static double hs__parse(const char *text, const hs__unit_t *units)
{
    char *end;
    double v;
    size_t i;

    if (text == NULL)
        return -1;
    while (*text == ' ' || *text == '\t')
        text++;
    if (*text == '\0' || *text == '+' || *text == '-')
        return -1;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || errno != 0 || !isfinite(v) || v < 0)
        return -1;
    /* strtod accepts "inf", "nan" and hex: refuse anything not decimal. */
    if (!((text[0] >= '0' && text[0] <= '9') || text[0] == '.'))
        return -1;
    if (strchr(text, 'x') != NULL && strchr(text, 'x') < end)
        return -1;
    while (*end == ' ')
        end++;
    if (*end == '\0')
        return -1;
    for (i = 0; units[i].name != NULL; i++) {
        if (strcmp(end, units[i].name) == 0)
            return v * units[i].scale;
    }
    return -1;
}

int hs_parse_time_ns(const char *text, int64_t *out_ns)
{
    double v = hs__parse(text, hs__time_units);

    if (v < 0 || v > 9.2e18)
        return -1;
    *out_ns = (int64_t)llround(v);
    return 0;
}

int hs_parse_bytes(const char *text, uint64_t *out_bytes)
{
    double v = hs__parse(text, hs__size_units);

    if (v < 0 || v > 1.8e19)
        return -1;
    *out_bytes = (uint64_t)llroundl((long double)v);
    return 0;
}

int hs_parse_bandwidth(const char *text, double *out_bytes_per_s)
{
    double v = hs__parse(text, hs__bw_units);

    if (v <= 0)
        return -1;
    *out_bytes_per_s = v;
    return 0;
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
    if (bytes <= 0 || bytes_per_s <= 0)
        return 0;
    return (int64_t)llround(bytes * 1e9 / bytes_per_s);
}
