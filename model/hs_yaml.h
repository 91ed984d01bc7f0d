/*
 * hs_yaml.h -- the strict YAML kit every hetsim reader uses (scenarios,
 * profiles): libyaml's document API, a walking context, strict mappings
 * (unknown and duplicate keys are errors that list the known ones), and
 * typed getters that parse quantities with their units (base/hs_units.h).
 *
 * Every failure fills the context's error buffer with
 * "file:line:col: what is wrong" from the node's start mark (1-based), or
 * "file: what" / "what" when the context says to leave the position out
 * (no_pos, or file NULL): hs_scenario_set reads one typed-in value that
 * way.  Getters return the hs_err_t they set; on failure *out is left as
 * it was unless said otherwise.
 */
#ifndef HS_YAML_H
#define HS_YAML_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "hs_error.h"

/* The walking context: caller-owned, usually on the stack. */
typedef struct hs_yaml_ctx_s {
    const char *file;       /* name for messages; NULL = none */
    const char *base_dir;   /* for relative paths, may be NULL */
    yaml_document_t *doc;   /* the document walked */
    hs_error_t *err;        /* where failures go */
    int no_pos;             /* 1: messages without line:col */
    char ***warnings;       /* where hs_yaml_warn appends; may be NULL */
    size_t *n_warnings;
    void *user;             /* the reader's own state */
} hs_yaml_ctx_t;

/* Fills c->err with code and the message at n's position; returns code. */
hs_err_t hs_yaml_fail(hs_yaml_ctx_t *c, const yaml_node_t *n, hs_err_t code,
                      const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Appends a non-fatal note to *c->warnings (a no-op when NULL).  Returns
   HS_OK or HS_ERR_NOMEM (the note is then lost; nothing is set in err). */
hs_err_t hs_yaml_warn(hs_yaml_ctx_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The node with that id in c->doc, or NULL. */
yaml_node_t *hs_yaml_node(hs_yaml_ctx_t *c, int id);

/* The scalar text of n, or NULL when n is not a scalar. */
const char *hs_yaml_scalar(const yaml_node_t *n);

/* "a scalar", "a list", "a mapping" or "nothing", for messages. */
const char *hs_yaml_kind(const yaml_node_t *n);

/* 1 when n is a plain empty, "~" or "null" scalar. */
int hs_yaml_is_null(const yaml_node_t *n);

/* Items of a sequence or pairs of a mapping; 0 for anything else. */
size_t hs_yaml_len(const yaml_node_t *n);

/* Item i of sequence n, or NULL. */
yaml_node_t *hs_yaml_item(hs_yaml_ctx_t *c, const yaml_node_t *n, size_t i);

/*
 * Checks that n is a mapping whose keys are scalars from `allowed` (a
 * NULL-terminated list), each at most once.  On success fills vals[i] with
 * the value node of allowed[i] or NULL.  `what` names the mapping in
 * messages ("unknown key 'x' in what (known: a, b)").
 */
hs_err_t hs_yaml_map(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                     const char *const *allowed, yaml_node_t **vals);

/* HS_ERR_SCHEMA "what needs 'key'" at parent when val is NULL. */
hs_err_t hs_yaml_need(hs_yaml_ctx_t *c, yaml_node_t *parent,
                      yaml_node_t *val, const char *key, const char *what);

/* A non-empty string, strdup'ed into *out (the old *out is freed). */
hs_err_t hs_yaml_get_str(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                         char **out);

/* A file path resolved against c->base_dir, new string in *out. */
hs_err_t hs_yaml_get_path(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                          char **out);

/* 1 when v is a non-empty run of digits (and '_'). */
int hs_yaml_all_digits(const char *v);

/* A whole number ("1_000" allowed) into *out; 0, or -1. */
int hs_yaml_parse_u64(const char *v, uint64_t *out);

/* Whole numbers in [min, max] (HS_ERR_SCHEMA when not a number,
   HS_ERR_RANGE when out of range). */
hs_err_t hs_yaml_get_u64(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                         uint64_t min, uint64_t max, uint64_t *out);
hs_err_t hs_yaml_get_u32(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                         uint32_t min, uint32_t max, uint32_t *out);

/* A finite number >= min. */
hs_err_t hs_yaml_get_double(hs_yaml_ctx_t *c, yaml_node_t *n,
                            const char *what, double min, double *out);

/* A multiplicative factor (compute_scale, a straggler's factor): a finite
   number in [HS_LIMIT_FACTOR_MIN, HS_LIMIT_FACTOR_MAX] (1e-6 .. 1e3),
   else HS_ERR_RANGE. */
hs_err_t hs_yaml_get_factor(hs_yaml_ctx_t *c, yaml_node_t *n,
                            const char *what, double *out);

/* true/yes/on or false/no/off. */
hs_err_t hs_yaml_get_bool(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                          int *out);

/* Quantities with their unit (HS_ERR_UNIT when the unit is missing or
   bad, HS_ERR_RANGE with the limit when the value is outside the limits
   of base/hs_limits.h): a duration in ns, a size in bytes, a bandwidth in
   bytes/s. */
hs_err_t hs_yaml_get_time(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                          int64_t *out_ns);
hs_err_t hs_yaml_get_bytes(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                           uint64_t *out);
hs_err_t hs_yaml_get_bw(hs_yaml_ctx_t *c, yaml_node_t *n, const char *what,
                        double *out);

/* A sample count (bare whole number up to HS_LIMIT_COUNT, *is_bytes = 0)
   or a size with a unit (*is_bytes = 1); more than 0 either way. */
hs_err_t hs_yaml_get_amount(hs_yaml_ctx_t *c, yaml_node_t *n,
                            const char *what, int *is_bytes, uint64_t *out);

/*
 * Checks text (len bytes) in one streaming pass before a document is
 * built: nesting past HS_LIMIT_NEST_DEPTH lists and mappings, a second
 * document in the stream, and a NUL byte are refused with
 * "name:line:col: ..." (no position when no_pos: a value typed on the
 * command line); a syntax error as hs_yaml_load_doc reports it.  The pass
 * stops at the first level past the limit, so a document nested a million
 * deep costs what its first 65 levels cost (libyaml's own work per token
 * grows with the open levels).
 */
hs_err_t hs_yaml_check(const char *name, const char *text, size_t len,
                       int no_pos, hs_error_t *err);

/*
 * Parses text (len bytes) into *doc, after hs_yaml_check; a syntax error
 * becomes
 * "name:line:col: YAML syntax error: ...", an empty document a schema
 * error.  On success the caller deletes doc with yaml_document_delete.
 */
hs_err_t hs_yaml_load_doc(const char *name, const char *text, size_t len,
                          yaml_document_t *doc, hs_error_t *err);

#endif
