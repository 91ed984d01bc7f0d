/*
 * hs_h5_attr.h -- the HDF5 helpers the trace writer (hs_h5.c) and the
 * sweep writer (hs_sweep_out.c) share: a UTF-8 variable-length string type
 * and scalar attributes.  Each returns 0 (or a type id) and -1 on failure,
 * closing what it opened either way.
 */
#ifndef HS_H5_ATTR_H
#define HS_H5_ATTR_H

#include <stdint.h>

#include <hdf5.h>

/* Turns HDF5's error printing off and, when called before the library's
   first use, its exit-time clean-up: a file whose close failed (a full
   file system) stays half closed inside libhdf5, and the clean-up at exit
   would crash on it.  Call before any other HDF5 function. */
void hs_h5_init(void);

/* Closes the HDF5 file `file` written at tmp_path, whose open datasets,
   types and spaces the caller already closed (or, with keep 0, is about
   to abandon).  With keep 1 it flushes first; when the flush fails, or
   with keep 0, it empties tmp_path before the close, so that the close's
   own metadata writes have room on a full file system and a close never
   fails half way.  Returns 0 when the file was flushed and closed whole,
   -1 otherwise (the caller then removes tmp_path). */
int hs_h5_file_close(hid_t file, const char *tmp_path, int keep);

/* Empties tmp_path (a temporary HDF5 file about to be abandoned) so
   that closing its objects needs no new space.  Best effort. */
void hs_h5_abandon(const char *tmp_path);

/* A variable-length UTF-8 string type (close with H5Tclose), or -1. */
hid_t hs_h5_vlstr(void);

/* A scalar string attribute `name` = val on obj.  0, or -1. */
int hs_h5_attr_str(hid_t obj, const char *name, const char *val);

/* A scalar little-endian u64 attribute `name` = val on obj.  0, or -1. */
int hs_h5_attr_u64(hid_t obj, const char *name, uint64_t val);

#endif
