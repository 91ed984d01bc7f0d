/*
 * cmd_plot.c -- `hetsim plot`: draws a replay's HDF5 trace (or a sweep CSV)
 * with gnuplot.  A thin client of hs_plot (output/hs_plot.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cli.h"
#include "hs_plot.h"

static int hs__plot_u32(const char *s, uint32_t *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (end == s || errno != 0 || v > UINT32_MAX - 1 || *s == '-')
        return -1;
    *out = (uint32_t)v;
    return (int)(end - s);
}

/* --steps A[-B] into the hs_plot_opts_t at base. */
static int hs__plot_steps(const char *v, void *base)
{
    hs_plot_opts_t *o = base;
    int n = hs__plot_u32(v, &o->first_step);

    if (n < 0)
        return -1;
    if (v[n] == '\0') {
        o->last_step = o->first_step;
        return 0;
    }
    if (v[n] != '-' || hs__plot_u32(v + n + 1, &o->last_step) < 0 ||
        v[n + 1 + strspn(v + n + 1, "0123456789")] != '\0')
        return -1;
    return 0;
}

/* --size WxH into the hs_plot_opts_t at base. */
static int hs__plot_size(const char *v, void *base)
{
    hs_plot_opts_t *o = base;
    unsigned w, h;
    char extra;

    if (sscanf(v, "%ux%u%c", &w, &h, &extra) != 2 || w < 100 || h < 100 ||
        w > 20000 || h > 20000)
        return -1;
    o->width = w;
    o->height = h;
    return 0;
}

static const char *const hs__plot_kinds[] = {"timeline", "steps", "sweep",
                                             NULL};
static const int hs__plot_kind_values[] = {HS_PLOT_TIMELINE, HS_PLOT_STEPS,
                                           HS_PLOT_SWEEP};

static const hs_opt_t hs__plot_table[] = {
    {.name = "output", .short_name = 'o', .kind = HS_OPT_PATH,
     HS_OPT_AT(hs_plot_opts_t, output), .metavar = "OUT",
     .help = "the picture to write (required)"},
    {.name = "kind", .kind = HS_OPT_ENUM, HS_OPT_AT(hs_plot_opts_t, kind),
     .choices = hs__plot_kinds, .values = hs__plot_kind_values,
     .metavar = "KIND", .help = "timeline (default), steps or sweep"},
    {.name = "steps", .kind = HS_OPT_CUSTOM, .parse = hs__plot_steps,
     .valid = "A or A-B (step numbers)", .metavar = "A[-B]",
     .help = "timeline: steps to draw (default 0-1)"},
    {.name = "max-devices", .kind = HS_OPT_U64,
     HS_OPT_AT(hs_plot_opts_t, max_devices), .u_lo = 1,
     .u_hi = UINT32_MAX - 1, .metavar = "K",
     .help = "timeline: draw every device up to K"},
    {.name = "size", .kind = HS_OPT_CUSTOM, .parse = hs__plot_size,
     .valid = "WxH, 100..20000 pixels", .metavar = "WxH",
     .help = "picture size in pixels"},
    {.name = "title", .kind = HS_OPT_STRING, HS_OPT_AT(hs_plot_opts_t, title),
     .metavar = "TEXT", .help = "the plot's title"},
    {.name = "x", .kind = HS_OPT_STRING, HS_OPT_AT(hs_plot_opts_t, sweep_x),
     .metavar = "KEY", .help = "sweep: the varied key on the x axis\n"
                               "(default: the first)"},
    {.name = "by", .kind = HS_OPT_STRING, HS_OPT_AT(hs_plot_opts_t, sweep_by),
     .metavar = "KEY", .help = "sweep: one line per value of KEY (default:\n"
                               "the second varied key; \"\" for none)"},
    {.name = "figure", .kind = HS_OPT_STRING,
     HS_OPT_AT(hs_plot_opts_t, sweep_figure), .metavar = "F",
     .help = "sweep: step (default), epoch or total time"},
    {.name = "keep-data", .kind = HS_OPT_PATH,
     HS_OPT_AT(hs_plot_opts_t, keep_dir), .metavar = "DIR",
     .help = "leave the gnuplot data files and command in\n"
             "DIR (an existing directory)"},
    HS_OPT_END};

static const hs_opt_cmd_t hs__plot_cmd = {
    .name = "plot",
    .usage =
        "usage: hetsim plot [--kind timeline|steps|sweep] INPUT -o OUT\n"
        "                   [--steps A[-B]] [--max-devices K]\n"
        "                   [--size WxH] [--title TEXT] [--keep-data DIR]\n"
        "                   [--x KEY] [--by KEY] [--figure step|epoch|total]\n",
    .about =
        "Draws with gnuplot (an external program; Debian: gnuplot-nox).\n"
        "OUT's extension picks the format: .png, .svg or .pdf.\n"
        "\n"
        "kinds:\n"
        "  timeline  (default) INPUT is a trace from `hetsim simulate\n"
        "            --h5 RUN.h5`: per device a CPU lane (data loading of\n"
        "            the next batch), a compute lane (forward, first\n"
        "            backward op, rest of the backward) and a ring lane\n"
        "            (one box per all-reduce round), like the source's\n"
        "            figures 3 and 4.  Above K devices (default 12) only\n"
        "            the slowest and the fastest device of each type are\n"
        "            drawn.\n"
        "  steps     INPUT is a trace: closed-form vs simulated step time\n"
        "            per device type, and for the cluster (bars).\n"
        "  sweep     INPUT is the CSV of `hetsim sweep`: the step (or\n"
        "            epoch, or total) time against the varied key --x, one\n"
        "            line per value of --by, closed form solid and replay\n"
        "            dashed; other varied keys are held at their value\n"
        "            in the first row that ran.  (The older\n"
        "            n,closed_ns,sim_ns CSV is read too.)\n",
    .after =
        "environment: HETSIM_GNUPLOT (the gnuplot program), HETSIM_PLOTS_DIR\n"
        "(where timeline.gp, steps.gp, sweep.gp are; default: plots/ of the\n"
        "data directory, $HETSIM_DATADIR or PREFIX/share/hetsim).\n"
        "\n"
        "exit status: 0 drawn; 2 bad usage or input; 3 I/O error; 4 gnuplot\n"
        "missing or failed.\n",
    .pos_name = "input file",
    .max_pos = 1};

int hs_cli_plot(int argc, char **argv)
{
    hs_plot_opts_t o;
    const hs_opt_group_t groups[] = {{hs__plot_table, &o}};
    hs_error_t err;
    size_t n_pos;
    int rc;

    hs_plot_opts_init(&o);
    hs_error_clear(&err);
    if (!hs_cli_parse(&hs__plot_cmd, groups, 1, argc, argv, &o.input, 1,
                      &n_pos, &rc))
        return rc;
    if (o.input == NULL)
        return hs_cli_usage_error("plot", "no input file (a trace from "
                                  "`hetsim simulate --h5`, or a sweep CSV)");
    if (o.output == NULL)
        return hs_cli_usage_error("plot", "no output: -o FILE.png|.svg|.pdf");
    if (hs_plot(&o, &err) != HS_OK)
        return hs_cli_fail(&err);
    printf("wrote %s\n", o.output);
    return hs_err_exit_code(HS_OK);
}
