/*
 * hs_file.h -- reading a whole (small) file: scenarios, profiles, CSV rows,
 * sidecars.  Large inputs (profiler traces) are streamed elsewhere.
 * Every whole-file read is bounded (hs_limits.h: HS_LIMIT_FILE_BYTES).
 */
#ifndef HS_FILE_H
#define HS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"

/* hs_file_read_bounded flag: accept a pipe or a character device (e.g.
   /dev/stdin), still read at most max_bytes of it. */
#define HS_FILE_ALLOW_SPECIAL 1u

/*
 * Reads the file at path into a new NUL-terminated buffer *out (the caller
 * frees it) of *len bytes.  Reading is bounded: a file over
 * HS_LIMIT_FILE_BYTES (1 GiB), a directory and anything that is not a
 * regular file (/dev/zero, a FIFO, a socket) are refused with HS_ERR_IO
 * and a message that says which ("path: is not a regular file ...").
 * Fails with HS_ERR_IO ("path: cannot open: ...") or HS_ERR_NOMEM, leaving
 * *out NULL.  A FIFO is refused without blocking on it.
 */
hs_err_t hs_file_read(const char *path, char **out, size_t *len,
                      hs_error_t *err);

/*
 * hs_file_read with the limit max_bytes and flags (0, or
 * HS_FILE_ALLOW_SPECIAL to read a pipe or device, stopping with an error
 * once it gave more than max_bytes).
 */
hs_err_t hs_file_read_bounded(const char *path, uint64_t max_bytes,
                              unsigned flags, char **out, size_t *len,
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
