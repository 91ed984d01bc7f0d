/*
 * hs_h5.h -- HDF5 trace export of a replay (the layout: docs/traces.md).
 *
 * Layout of a file written by hs_h5_writer_open/close:
 *   /events   1-D extendible, chunked, shuffle+deflate compound table, one
 *             row per interval: device, step, phase (enum), round, bucket,
 *             peer, start_ns, end_ns, bytes (the fields of hs_interval_t)
 *   /devices  id, name, type, type_index, addr, ring_pos (one row a device)
 *   /steps    device, step, start_ns, end_ns, sim_ns, closed_ns
 *   attributes of "/": scenario, scenario_hash, scenario_name, seed,
 *             overlap, send, sim_steps, n_devices, time_unit, bytes_unit,
 *             hetsim_version, format
 */
#ifndef HS_H5_H
#define HS_H5_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_trace.h"

typedef struct hs_h5_writer_s hs_h5_writer_t;

/* Rows buffered before /events is extended and written (its chunk size). */
#define HS_H5_CHUNK_ROWS 8192

/*
 * Opens a writer that streams intervals and step records to a temporary
 * file beside `path` (path + ".tmp.XXXXXX"); fills *sink with callbacks
 * bound to it.  The scenario's text, hash, seed and overlap mode become
 * attributes.  Free with hs_h5_writer_close.
 */
hs_err_t hs_h5_writer_open(const char *path, const hs_scenario_t *s,
                           hs_h5_writer_t **out, hs_trace_sink_t *sink,
                           hs_error_t *err);

/* As hs_h5_writer_open, with the replay options o (NULL: the
   scenario's) as the seed, overlap, send, sim_steps and stochastic
   attributes. */
hs_err_t hs_h5_writer_open_opts(const char *path, const hs_scenario_t *s,
                                const hs_replay_opts_t *o,
                                hs_h5_writer_t **out, hs_trace_sink_t *sink,
                                hs_error_t *err);

/*
 * Finishes the file.  commit != 0: flush, close and rename it to its final
 * path; commit == 0 (a failed run): close and remove the temporary file.
 * Frees w in both cases.  w may be NULL.
 */
hs_err_t hs_h5_writer_close(hs_h5_writer_t *w, int commit, hs_error_t *err);

/* The temporary path the writer is writing (static for w's lifetime). */
const char *hs_h5_writer_tmp_path(const hs_h5_writer_t *w);

/* FNV-1a 64-bit hash of text as 16 lowercase hex digits + NUL into out. */
void hs_h5_hash_text(const char *text, char out[17]);

/* ---- reading a trace back (plots, tests) ---- */

/* One row of /devices. */
typedef struct hs_h5_device_s {
    uint32_t id;
    uint32_t type_index;
    uint32_t ring_pos;
    char *name;     /* owned by the run */
    char *type;     /* type name, owned by the run */
    char *addr;     /* owned by the run */
} hs_h5_device_t;

/* What hs_h5_run_load reads: everything except /events. */
typedef struct hs_h5_run_s {
    char *path;
    size_t n_devices;
    hs_h5_device_t *devices;  /* indexed by device id */
    size_t n_steps;
    hs_step_rec_t *steps;     /* rows of /steps, in file order */
    uint64_t n_events;        /* rows in /events */
    char *scenario;           /* attribute texts; "" when absent */
    char *scenario_hash;
    char *overlap;
    char *send;
    char *version;
    char *name;               /* scenario name; "" when none */
    uint64_t seed;
} hs_h5_run_t;

/*
 * Reads /devices, /steps and the attributes of the trace at path into a new
 * run (free with hs_h5_run_free).  HS_ERR_IO when the file cannot be opened,
 * HS_ERR_TRACE when it lacks what hetsim writes.
 */
hs_err_t hs_h5_run_load(const char *path, hs_h5_run_t **out,
                        hs_error_t *err);

/* Releases a run.  r may be NULL. */
void hs_h5_run_free(hs_h5_run_t *r);

/*
 * Streams /events of the trace at path in blocks of at most
 * HS_H5_CHUNK_ROWS rows, in file order, calling fn(ctx, rows, n) for each;
 * the block is reused after fn returns.  fn returns 0 to go on, non-zero to
 * stop (then HS_OK is returned).  Memory is one block, whatever the size.
 */
hs_err_t hs_h5_events_each(const char *path,
                           int (*fn)(void *ctx, const hs_interval_t *iv,
                                     size_t n),
                           void *ctx, hs_error_t *err);

#endif
