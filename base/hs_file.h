/*
 * hs_file.h -- reading a whole (small) file: scenarios, profiles, CSV rows,
 * sidecars.  Large inputs (profiler traces) are streamed elsewhere.
 */
#ifndef HS_FILE_H
#define HS_FILE_H

#include <stddef.h>

#include "hs_error.h"

/*
 * Reads the file at path into a new NUL-terminated buffer *out (the caller
 * frees it) of *len bytes.  Fails with HS_ERR_IO ("path: cannot open: ...")
 * or HS_ERR_NOMEM, leaving *out NULL.
 */
hs_err_t hs_file_read(const char *path, char **out, size_t *len,
                      hs_error_t *err);

/*
 * base_dir + "/" + path as a new string; path itself (copied) when it is
 * absolute or base_dir is NULL or empty.  NULL when out of memory.
 */
char *hs_file_join(const char *base_dir, const char *path);

/*
 * The absolute directory of path as a new string ("/" for "/x"; the
 * current directory joined in front of a relative one), so that paths
 * resolved against it stay valid from elsewhere.  NULL when out of memory.
 */
char *hs_file_absdir(const char *path);

#endif
