/*
 * hs_scenario_int.h -- private to the scenario's files (hs_scenario.c,
 * hs_scenario_resolve.c, hs_scenario_set.c): the device-name hashes and
 * the derivation steps the loader and hs_scenario_resolve share.  Not for
 * use outside model/.
 */
#ifndef HS_SCENARIO_INT_H
#define HS_SCENARIO_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hs_scenario.h"

struct hs_yaml_ctx_s;
struct yaml_node_s;

/* An open-addressing hash of device names or addresses. */
typedef struct hs__hash_s {
    uint32_t *slot;     /* device index + 1, 0 = empty */
    size_t mask;
} hs__hash_t;

/* Lazily built name and address hashes (zero it to start). */
typedef struct hs__names_s {
    hs__hash_t by_name, by_addr;
} hs__names_t;

/* Builds a hash of device names (by_addr == 0) or addresses; the first
   device with a given key is kept.  0, or -1 when out of memory. */
int hs__hash_build(hs__hash_t *h, const hs_scenario_t *s, int by_addr);

/* The device with that name (or address), or -1. */
long hs__hash_find(const hs__hash_t *h, const hs_scenario_t *s,
                   int by_addr, const char *key);

/* Builds whichever of nm's hashes is missing.  0, or -1. */
int hs__names_ready(hs__names_t *nm, const hs_scenario_t *s);
void hs__names_free(hs__names_t *nm);

/* 1 when key is a device's name or address (nm ready). */
int hs__endpoint_known(hs__names_t *nm, const hs_scenario_t *s,
                       const char *key);
/* The device an endpoint (a name, else an address) names, or -1. */
long hs__endpoint_device(hs__names_t *nm, const hs_scenario_t *s,
                         const char *key);

/* Appends str to the arena; returns its offset or (size_t)-1. */
size_t hs__arena_add(hs_scenario_t *s, const char *str);

/* The index of the type named `name`, or -1. */
long hs__type_index(const hs_scenario_t *s, const char *name);

/* Room for hs__device_hint's and hs__type_hint's text. */
#define HS__HINT_LEN 512

/*
 * For an error about an unknown device name: "; did you mean 'X'?" when a
 * device's name is close to `name`, then " (devices: A-0..A-99, B-0..B-3)",
 * the devices' names with runs of consecutive numbers folded, cut with
 * ", ... (N in all)" where it would not fit.  Written into buf (cap bytes,
 * HS__HINT_LEN is enough); returns buf.
 */
const char *hs__device_hint(const hs_scenario_t *s, const char *name,
                            char *buf, size_t cap);

/* The same for an unknown device type: "; did you mean 'X'? (types: A,
   B)". */
const char *hs__type_hint(const hs_scenario_t *s, const char *name,
                          char *buf, size_t cap);

/* Frees n strings of v and v.  v may be NULL. */
void hs__free_strv(char **v, size_t n);

/* Sizes ring, ring_bw_bytes_per_s and ring_lat_ns for N devices. */
hs_err_t hs__ring_alloc(hs_scenario_t *s, size_t N, hs_error_t *err);

/* Generates the devices "<type>-<i>" from the counts (address = name),
   rebuilding the arena, and sizes the ring arrays. */
hs_err_t hs__gen_devices(hs_scenario_t *s, hs_error_t *err);

/* Applies the devices.<name>.* settings to generated devices. */
hs_err_t hs__apply_overrides(hs_scenario_t *s, hs__names_t *nm,
                             hs_error_t *err);

/* Fills the ring from ring_mode / ring_names, and the ring_pos fields. */
hs_err_t hs__ring_build(hs_scenario_t *s, hs__names_t *nm, hs_error_t *err);

/* Looks up every ring edge; no bandwidth fails with HS_ERR_NETWORK at
   (line, col) of s->file (line 0: no position). */
hs_err_t hs__edges(hs_scenario_t *s, unsigned long line, unsigned long col,
                   hs_error_t *err);

/* Reads a `ring:` value (NULL: not given) into a mode and, for a list,
   copied names; checks the shape only (hs_scenario.c). */
hs_err_t hs__ring_spec(struct hs_yaml_ctx_s *c, struct yaml_node_s *n,
                       hs_ring_mode_t *mode, char ***names, size_t *n_names);

/* Reads a type_links row [type1, type2, bandwidth(, latency)] into the
   scenario's link table (c->user); `replace` drops earlier rows for the
   same two types (hs_scenario.c). */
hs_err_t hs__type_row(struct hs_yaml_ctx_s *c, struct yaml_node_s *rn,
                      int replace);

/* Records (or replaces) where `key` was read: file NULL = set by
   hs_scenario_set.  0, or -1 when out of memory. */
int hs__where_note(hs_scenario_t *s, const char *key, const char *file,
                   unsigned long line, unsigned long col);

/* hs__where_note at node n of the context's document. */
int hs__where_node(struct hs_yaml_ctx_s *c, const char *key,
                   const struct yaml_node_s *n);

/* Copies src's where-table into dst (empty); frees s's.  0 or -1. */
int hs__where_copy(hs_scenario_t *dst, const hs_scenario_t *src);
void hs__where_free(hs_scenario_t *s);

/* The error for cnt generated devices outside 2..HS_LIMIT_DEVICES, blamed
   on key (the count that made the most of them): "<what> make N
   device(s): a ring needs at least 2" (HS_ERR_SCHEMA), or "<what>
   <limit_verb> N devices; a ring has at most L (the limit)"
   (HS_ERR_RANGE).  Returns the code. */
hs_err_t hs__ring_size_fail(const hs_scenario_t *s, const char *key,
                            const char *what, const char *limit_verb,
                            size_t cnt, hs_error_t *err);

#endif
