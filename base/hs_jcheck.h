/*
 * hs_jcheck.h -- a JSON document checked before it is built as a tree
 * (yajl_tree_parse recurses once per level and keeps the first of two
 * equal keys): one streaming yajl pass, linear in the text, that refuses
 * nesting deeper than HS_LIMIT_NEST_DEPTH, a key given twice in one
 * object, a NUL byte, and malformed JSON, each with its line and column.
 */
#ifndef HS_JCHECK_H
#define HS_JCHECK_H

#include <stddef.h>

#include "hs_error.h"

/* Checks the len bytes of JSON at text (comments allowed, as
   yajl_tree_parse allows them).  HS_OK, or HS_ERR_SYNTAX with
   "name:line:col: what is wrong" in err (HS_ERR_NOMEM when out of
   memory).  Allocates nothing that outlives the call. */
hs_err_t hs_json_check(const char *name, const char *text, size_t len,
                       hs_error_t *err);

#endif
