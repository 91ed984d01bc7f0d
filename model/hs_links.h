/*
 * hs_links.h -- a scenario's whole link table: every pair row (endpoints
 * by device name or address, from network.links and network.links_csv),
 * every type-pair row (network.type_links) and the default bandwidth and
 * latency.  Memory is linear in the rows given, never N x N: any pair of
 * devices is answered by lookups, ring edges or not.
 *
 * Precedence for a link a -> b (hs_links_find): a pair row in the exact
 * direction (name or address of each end), then one in the other
 * direction, then the last type-pair row for the two types (either
 * order), then the default.  A row's latency of -1 means the default
 * latency.
 *
 * Ownership: the table owns copies of its endpoint strings; clear it with
 * hs_links_clear.  A zeroed hs_links_t is an empty table.
 */
#ifndef HS_LINKS_H
#define HS_LINKS_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"

typedef struct hs_link_row_s {
    char *a, *b;            /* endpoint keys as written (owned) */
    double bw_bytes_per_s;
    int64_t lat_ns;         /* -1 = the default latency */
} hs_link_row_t;

typedef struct hs_type_link_s {
    uint32_t a, b;          /* type indices */
    double bw_bytes_per_s;
    int64_t lat_ns;         /* -1 = the default latency */
} hs_type_link_t;

typedef struct hs_links_s {
    double default_bw_bytes_per_s;  /* 0 = none */
    int64_t default_lat_ns;
    size_t n_rows, cap_rows;
    hs_link_row_t *rows;    /* in the order given; a later row wins */
    uint32_t *slot;         /* pair hash: row index + 1, 0 = empty; NULL
                               until hs_links_index */
    size_t mask;
    size_t n_types, cap_types;
    hs_type_link_t *types;  /* in the order given; a later row wins */
} hs_links_t;

/* Appends a pair row (a and b copied).  The hash goes stale: call
   hs_links_index before the next lookup.  0, or -1 when out of memory. */
int hs_links_add_row(hs_links_t *l, const char *a, const char *b,
                     double bw_bytes_per_s, int64_t lat_ns);

/* (Re)builds the pair hash; a later row for the same ordered pair wins.
   0, or -1 when out of memory. */
int hs_links_index(hs_links_t *l);

/* Appends a type-pair row.  With `replace`, first removes every row for
   the same two types in either order (hs_scenario_set's "adds or
   replaces").  0, or -1 when out of memory. */
int hs_links_add_type_row(hs_links_t *l, uint32_t a, uint32_t b,
                          double bw_bytes_per_s, int64_t lat_ns,
                          int replace);

/*
 * The link from device (name_a, addr_a, type_a) to (name_b, ...), by the
 * precedence above, into *bw_bytes_per_s and *lat_ns (the default latency
 * filled in).  Returns 1, or 0 when no row applies and there is no default
 * bandwidth (the outputs are then 0 and the default latency).
 */
int hs_links_find(const hs_links_t *l, const char *name_a,
                  const char *addr_a, uint32_t type_a, const char *name_b,
                  const char *addr_b, uint32_t type_b,
                  double *bw_bytes_per_s, int64_t *lat_ns);

/*
 * Appends the rows of the CSV file at path ("addr1,addr2,bandwidth
 * [,latency]" per line; blank lines, '#' comments and a header line whose
 * third field is "bandwidth" are skipped).  known(ctx, key), when not
 * NULL, says whether an endpoint names a device.  Errors name
 * "path:line:col": HS_ERR_SYNTAX (field count), HS_ERR_UNIT, HS_ERR_NETWORK
 * (unknown endpoint), HS_ERR_IO, HS_ERR_NOMEM.
 */
hs_err_t hs_links_read_csv(hs_links_t *l, const char *path,
                           int (*known)(void *ctx, const char *key),
                           void *ctx, hs_error_t *err);

/* Deep copy of src into *dst (overwritten).  0, or -1 (dst cleared). */
int hs_links_copy(hs_links_t *dst, const hs_links_t *src);

/* Frees what l owns and zeroes it.  l may be NULL. */
void hs_links_clear(hs_links_t *l);

#endif
