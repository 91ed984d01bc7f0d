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

/* A variable-length UTF-8 string type (close with H5Tclose), or -1. */
hid_t hs_h5_vlstr(void);

/* A scalar string attribute `name` = val on obj.  0, or -1. */
int hs_h5_attr_str(hid_t obj, const char *name, const char *val);

/* A scalar little-endian u64 attribute `name` = val on obj.  0, or -1. */
int hs_h5_attr_u64(hid_t obj, const char *name, uint64_t val);

#endif
