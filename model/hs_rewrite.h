/*
 * hs_rewrite.h -- writing a scenario file changed by key path.
 *
 * hs_scenario_set changes a loaded scenario; this writes the change back as
 * YAML a user can keep, run and edit: `hetsim advise` writes the scenario
 * of its recommendation (a ring order, per-type batches, a device mix),
 * `hetsim profile` points each type at its measured profile.  The text is
 * loaded with libyaml's document API, the edited values are replaced (or
 * their keys added), and the document is emitted again; YAML comments are
 * not kept (the caller may put its own at the top).
 *
 * A key path is dotted: map keys, and `device_types.<name>` /
 * `devices.<name>` / `nodes.kinds.<name>` select the list item whose
 * `name` is <name> (`device_types.A100.batch`, `nodes.kinds.a100.count`,
 * `ring`, `network.default_bandwidth`).  The
 * value is YAML text: a scalar (`64`, `25Gbps`) or a flow collection
 * (`[a, b, c]`, `{bytes: 1MB, ready: 5ms}`).  Missing maps on the way
 * are created; a list item that is not there is an error.
 *
 * The file may be written elsewhere than the original, so relative file
 * paths (job.model.file, job.dataset.file, network.links_csv,
 * profiling.harness, and device_types[].profile where it is a path) are
 * made absolute against abs_base when it is given (before the edits: an
 * edited value is written as given); hs_rewrite_file_rebased instead
 * writes them relative to the new file's directory.
 */
#ifndef HS_REWRITE_H
#define HS_REWRITE_H

#include <stddef.h>

#include "hs_error.h"

typedef struct hs_rewrite_edit_s {
    const char *key_path;   /* e.g. "device_types.A100.batch" */
    const char *value;      /* YAML text of the new value; NULL removes
                               the key */
} hs_rewrite_edit_t;

/*
 * Applies the n_edits edits to the scenario YAML text (len bytes; `name`
 * for messages) and stores the new text, malloc'd and NUL-terminated, in
 * *out (the caller frees it).  abs_base: the original's directory for
 * relative paths, or NULL to leave them.  Fails with HS_ERR_SYNTAX (text
 * or a value that is not YAML), HS_ERR_SCHEMA (a path through something
 * that is not a map, or a list item that is not there), HS_ERR_NOMEM.
 */
hs_err_t hs_rewrite_yaml(const char *text, size_t len, const char *name,
                         const hs_rewrite_edit_t *edits, size_t n_edits,
                         const char *abs_base, char **out, hs_error_t *err);

/*
 * Like hs_rewrite_yaml, then writes the result to path atomically (a
 * temporary file renamed into place), after the comment lines in header
 * (each line gets "# "; may be NULL).
 */
hs_err_t hs_rewrite_file(const char *text, size_t len, const char *name,
                         const hs_rewrite_edit_t *edits, size_t n_edits,
                         const char *abs_base, const char *header,
                         const char *path, hs_error_t *err);

/*
 * Like hs_rewrite_file, with the original's relative paths (the keys
 * above) rebased for the new file: each is resolved against src_dir (the
 * original's directory) and written relative to path's directory, so the
 * written scenario and the files beside it can be moved together;
 * absolute paths stay.  Both directories are taken through realpath();
 * when either cannot be (path's directory missing), the paths are made
 * absolute against src_dir as hs_rewrite_file does.  src_dir NULL: paths
 * as they are.  Edited values are written as given (so a caller names a
 * file it writes beside path by its bare name).
 */
hs_err_t hs_rewrite_file_rebased(const char *text, size_t len,
                                 const char *name,
                                 const hs_rewrite_edit_t *edits,
                                 size_t n_edits, const char *src_dir,
                                 const char *header, const char *path,
                                 hs_error_t *err);

#endif
