/*
 * hs_plot.h -- plots of a replay with gnuplot as an external program
 * (docs/traces.md, "Plots"): step timelines like the source's figures 3
 * and 4, closed form vs replay per device type, and step time against N
 * for a sweep.
 *
 * The library reads the HDF5 trace (hs_h5.h) or the sweep CSV, writes plain
 * gnuplot data files into a private temporary directory, and runs
 *   gnuplot -e "<variable definitions>" plots/<kind>.gp
 * as a child process (posix_spawnp, an argv array, no shell).  The picture
 * is written to a temporary file beside the output and renamed when gnuplot
 * succeeded.  Without gnuplot the call fails with HS_ERR_EXTERNAL and says
 * so; nothing else in hetsim needs gnuplot.
 */
#ifndef HS_PLOT_H
#define HS_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_sweep_out.h"

typedef enum hs_plot_kind_e {
    HS_PLOT_TIMELINE = 0,  /* per device: CPU, compute and ring lanes */
    HS_PLOT_STEPS = 1,     /* closed form vs simulated step, per type */
    HS_PLOT_SWEEP = 2      /* a time against a varied key, from the CSV
                              of `hetsim sweep` */
} hs_plot_kind_t;

typedef struct hs_plot_opts_s {
    hs_plot_kind_t kind;
    const char *input;      /* the .h5 trace, or the sweep .csv */
    const char *output;     /* .png, .svg or .pdf: the terminal follows */
    uint32_t first_step;    /* timeline: steps drawn, inclusive */
    uint32_t last_step;     /* UINT32_MAX: first_step + 1 */
    size_t max_devices;     /* timeline: above this many devices, draw per
                               type only its slowest and fastest; 0 = 12 */
    unsigned width, height; /* pixels (svg: points); 0 = chosen */
    const char *title;      /* NULL = made from the trace */
    const char *gnuplot;    /* program; NULL = $HETSIM_GNUPLOT or
                               "gnuplot" searched on PATH */
    const char *script_dir; /* NULL = $HETSIM_PLOTS_DIR or the data
                               directory's plots/ (hs_datadir.h) */
    const char *keep_dir;   /* when set, the data files and the gnuplot
                               command line are left in this (existing)
                               directory instead of a removed temp dir */
    const char *sweep_x;    /* sweep: the key on the x axis; NULL = the
                               first varied key */
    const char *sweep_by;   /* sweep: one line per value of this key; NULL
                               = the second varied key, "" = none */
    const char *sweep_figure; /* sweep: "step" (NULL), "epoch", "total" */
} hs_plot_opts_t;

/* Fills o with the defaults (timeline, steps 0..1). */
void hs_plot_opts_init(hs_plot_opts_t *o);

/*
 * Draws the plot o asks for.  HS_ERR_USAGE for an output extension that is
 * not .png/.svg/.pdf; HS_ERR_IO / HS_ERR_TRACE / HS_ERR_SYNTAX for an input
 * that cannot be read; HS_ERR_EXTERNAL when gnuplot is missing or fails
 * (with its message).  On failure no file appears at o->output.
 */
hs_err_t hs_plot(const hs_plot_opts_t *o, hs_error_t *err);

/*
 * Reads the width and height of the PNG file at path from its IHDR chunk.
 * HS_ERR_IO when unreadable, HS_ERR_SYNTAX when not a PNG.
 */
hs_err_t hs_plot_png_size(const char *path, uint32_t *width,
                          uint32_t *height, hs_error_t *err);

/* The unit a span of span_ns is best shown in ("ns", "us", "ms", "s")
   and its size in ns (1, 1e3, 1e6, 1e9). */
const char *hs_plot_time_unit(int64_t span_ns, double *unit_ns);

/* ---- a sweep plot's data (hs_plot_sweep.c) ---------------------------- */

/* What hs_sweep_plot_data wrote, for the gnuplot script. */
typedef struct hs_sweep_plot_info_s {
    size_t n_series;        /* data blocks (gnuplot "index") */
    char **series;          /* their titles, "KEY=VALUE" or "" */
    int x_numeric;          /* x is a number (else positions, xtic labels) */
    int logx;               /* numeric x spanning a factor of 50 or more */
    int x_integer;          /* plain numbers, every one whole (a count,
                               a batch): the axis gets whole-number ticks */
    double xlo, xhi;        /* the x range */
    char xlabel[256];       /* the key, with its unit when numeric */
    char fixed[512];        /* the other keys held at one value, or "" */
    const char *tunit;      /* the time unit of the figures */
    double unit_ns;
    int has_replay;
    size_t n_points;        /* rows drawn */
} hs_sweep_plot_info_t;

/*
 * Writes gnuplot data for `figure` ("step", "epoch" or "total") against
 * key x_key (NULL: the first key), one block per value of by_key (NULL:
 * the second key when there is one; "" for none).  Other keys are held at
 * their value in the first row that has the figure (info->fixed says
 * which).  Each data line:
 * x, "x label", closed form, replay (NaN without), in info->tunit.
 * Failed rows are left out.  HS_ERR_USAGE for an unknown key or figure,
 * HS_ERR_SCHEMA when no row is left to draw.  Free info with
 * hs_sweep_plot_info_clear.
 */
hs_err_t hs_sweep_plot_data(const hs_sweep_table_t *t, const char *x_key,
                            const char *by_key, const char *figure,
                            FILE *dat, hs_sweep_plot_info_t *info,
                            hs_error_t *err);

void hs_sweep_plot_info_clear(hs_sweep_plot_info_t *info);

#endif
