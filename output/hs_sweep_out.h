/*
 * hs_sweep_out.h -- a sweep's results as a terminal table, CSV, JSON and
 * an HDF5 /sweep table (the sweep itself: whatif/hs_sweep.h).
 *
 * Every writer gives the same bytes for the same sweep and results, and
 * the file writers write a temporary file beside the target and rename it
 * (base/hs_atomic.h): a failed write never leaves a partial file.
 *
 * The columns, in this order, in every format:
 *   one per varied key, named by its key path, holding the value text;
 *   n_devices        devices in the ring;
 *   step_ns          the closed form's step, max_i T(i);
 *   step_ext_ns      the extended form's step, max_i T_ext(i);
 *   iters_per_epoch  I;
 *   epoch_ns, total_ns  I * step, epochs * epoch;
 *   bottleneck_device   the device with the largest T(i);
 *   bottleneck_bound    data_loading or device;
 *   bottleneck_link     the slowest ring edge, "from->to";
 * with --replay also
 *   replay_step_ns   the replay's steady step;
 *   replay_epoch_ns, replay_total_ns;
 *   replay_diff_ns   replay_step_ns - step_ns;
 * and last
 *   error            empty when the point ran, else why it failed (its
 *                    figures are then empty in CSV, null in JSON, 0 in
 *                    HDF5).
 * CSV follows RFC 4180: a comma-separated header line, one line per point
 * in point order, fields with a comma, quote or newline in double quotes.
 * JSON: {"format": "hetsim-sweep-1", "scenario": {...}, "options",
 * "keys", "n_points", "n_failed", "points": [{"point", "values": {KEY:
 * VALUE}, the figures..., "error"}]}.  HDF5: dataset /sweep, a packed
 * little-endian compound, one member per column (strings fixed-length,
 * NUL-terminated) plus "point" and "code" (the hs_err_t of the point);
 * attributes format, hetsim_version, scenario_file, scenario_hash
 * ("fnv1a64:" + 16 hex digits of the scenario's text), options, n_failed.
 */
#ifndef HS_SWEEP_OUT_H
#define HS_SWEEP_OUT_H

#include <stdio.h>

#include "hs_error.h"
#include "hs_sweep.h"

#define HS_SWEEP_FORMAT "hetsim.sweep"
#define HS_SWEEP_FORMAT_VERSION 2

/* Output formats, for hs_sweep_write. */
typedef enum hs_sweep_fmt_e {
    HS_SWEEP_FMT_TABLE = 0,
    HS_SWEEP_FMT_CSV = 1,
    HS_SWEEP_FMT_JSON = 2,
    HS_SWEEP_FMT_H5 = 3
} hs_sweep_fmt_t;

/* The format a file name asks for: .csv, .json, .h5/.hdf5; else -1. */
int hs_sweep_fmt_from_path(const char *path);

/* Writes the results as a readable table (times in human units) to f. */
hs_err_t hs_sweep_print_table(const hs_sweep_t *sw,
                              const hs_sweep_results_t *r, FILE *f,
                              hs_error_t *err);

/* Writes the CSV to f. */
hs_err_t hs_sweep_write_csv(const hs_sweep_t *sw,
                            const hs_sweep_results_t *r, FILE *f,
                            hs_error_t *err);

/* Writes the JSON to f. */
hs_err_t hs_sweep_write_json(const hs_sweep_t *sw,
                             const hs_sweep_results_t *r, FILE *f,
                             hs_error_t *err);

/* Writes the HDF5 file at path (atomically). */
hs_err_t hs_sweep_write_h5(const hs_sweep_t *sw, const hs_sweep_results_t *r,
                           const char *path, hs_error_t *err);

/* Writes format fmt to the file at path, atomically (a temporary file
   renamed at the end; removed on failure). */
hs_err_t hs_sweep_write(const hs_sweep_t *sw, const hs_sweep_results_t *r,
                        hs_sweep_fmt_t fmt, const char *path,
                        hs_error_t *err);

/* ---- reading a sweep CSV back (for `hetsim plot --kind sweep`) ---- */

/*
 * A sweep CSV as data.  The varied keys are the columns before n_devices;
 * a figure column that is absent, or empty in a failed row, reads -1.
 * The older three-column form "n,closed_ns,sim_ns" is read as one key n
 * with step_ns and replay_step_ns.
 */
typedef struct hs_sweep_table_s {
    size_t n_keys;
    char **keys;            /* n_keys names */
    size_t n_rows;
    char **values;          /* row r, key k: values[r * n_keys + k] */
    int has_replay;         /* a replay_step_ns column was there */
    int64_t *fig;           /* row r: fig[r * HS_SWEEP_TAB_FIGS + f] */
} hs_sweep_table_t;

/* The figures a table keeps, in this order. */
enum {
    HS_SWEEP_TAB_STEP = 0, HS_SWEEP_TAB_EPOCH = 1, HS_SWEEP_TAB_TOTAL = 2,
    HS_SWEEP_TAB_RSTEP = 3, HS_SWEEP_TAB_REPOCH = 4, HS_SWEEP_TAB_RTOTAL = 5,
    HS_SWEEP_TAB_FIGS = 6
};

/*
 * Reads the sweep CSV at path (lines starting with '#' are comments).
 * HS_ERR_IO when unreadable; HS_ERR_SYNTAX ("path:line:col: ...") for a
 * malformed row or a figure that is not an integer; HS_ERR_SCHEMA when
 * the header is not a sweep's.  Free with hs_sweep_table_free.
 */
hs_err_t hs_sweep_table_read(const char *path, hs_sweep_table_t **out,
                             hs_error_t *err);

void hs_sweep_table_free(hs_sweep_table_t *t);


#endif
