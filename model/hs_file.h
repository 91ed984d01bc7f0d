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

#endif
