/*
 * cmd_plot.c -- `hetsim plot`: draws a replay's HDF5 trace (or a sweep CSV)
 * with gnuplot.  A thin client of hs_plot (traces/hs_plot.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cli.h"
#include "hs_plot.h"

static void hs__plot_help(FILE *f)
{
    fprintf(f,
        "usage: hetsim plot [--kind timeline|steps|sweep] INPUT -o OUT\n"
        "                   [--steps A[-B]] [--max-devices K]\n"
        "                   [--size WxH] [--title TEXT] [--keep-data DIR]\n"
        "\n"
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
        "  sweep     INPUT is a CSV with the header n,closed_ns,sim_ns and\n"
        "            one row per cluster size (scripts/sweep.sh makes one):\n"
        "            step time against N.\n"
        "\n"
        "options:\n"
        "  -o, --output OUT     the picture to write (required)\n"
        "  --steps A[-B]        timeline: steps to draw (default 0-1)\n"
        "  --max-devices K      timeline: draw every device up to K\n"
        "  --size WxH           picture size in pixels\n"
        "  --title TEXT         the plot's title\n"
        "  --keep-data DIR      leave the gnuplot data files and command in\n"
        "                       DIR (an existing directory)\n"
        "\n"
        "environment: HETSIM_GNUPLOT (the gnuplot program), HETSIM_PLOTS_DIR\n"
        "(where timeline.gp, steps.gp, sweep.gp are; default: the source\n"
        "tree's plots/).\n"
        "\n"
        "exit status: 0 drawn; 2 bad usage or input; 3 I/O error; 4 gnuplot\n"
        "missing or failed.\n");
}

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

int hs_cli_plot(int argc, char **argv)
{
    hs_plot_opts_t o;
    hs_error_t err;
    int i;

    hs_plot_opts_init(&o);
    hs_error_clear(&err);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            hs__plot_help(stdout);
            return 0;
        }
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
            strcmp(a, "--kind") == 0 || strcmp(a, "--steps") == 0 ||
            strcmp(a, "--max-devices") == 0 || strcmp(a, "--size") == 0 ||
            strcmp(a, "--title") == 0 || strcmp(a, "--keep-data") == 0) {
            if (v == NULL)
                return hs_cli_usage_error("plot", "%s needs a value", a);
            i++;
        }
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            o.output = v;
        } else if (strcmp(a, "--kind") == 0) {
            if (strcmp(v, "timeline") == 0)
                o.kind = HS_PLOT_TIMELINE;
            else if (strcmp(v, "steps") == 0)
                o.kind = HS_PLOT_STEPS;
            else if (strcmp(v, "sweep") == 0)
                o.kind = HS_PLOT_SWEEP;
            else
                return hs_cli_usage_error("plot", "unknown --kind '%s' "
                                          "(timeline, steps or sweep)", v);
        } else if (strcmp(a, "--steps") == 0) {
            int n = hs__plot_u32(v, &o.first_step);
            if (n < 0)
                return hs_cli_usage_error("plot", "bad --steps '%s'", v);
            if (v[n] == '\0') {
                o.last_step = o.first_step;
            } else if (v[n] != '-' ||
                       hs__plot_u32(v + n + 1, &o.last_step) < 0 ||
                       v[n + 1 + strspn(v + n + 1, "0123456789")] != '\0') {
                return hs_cli_usage_error("plot", "bad --steps '%s' "
                                          "(A or A-B)", v);
            }
        } else if (strcmp(a, "--max-devices") == 0) {
            uint32_t k;
            int n = hs__plot_u32(v, &k);
            if (n < 0 || v[n] != '\0' || k == 0)
                return hs_cli_usage_error("plot", "bad --max-devices '%s'",
                                          v);
            o.max_devices = k;
        } else if (strcmp(a, "--size") == 0) {
            unsigned w, h;
            char extra;
            if (sscanf(v, "%ux%u%c", &w, &h, &extra) != 2 || w < 100 ||
                h < 100 || w > 20000 || h > 20000)
                return hs_cli_usage_error("plot", "bad --size '%s' (WxH, "
                                          "100..20000 pixels)", v);
            o.width = w;
            o.height = h;
        } else if (strcmp(a, "--title") == 0) {
            o.title = v;
        } else if (strcmp(a, "--keep-data") == 0) {
            o.keep_dir = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            return hs_cli_usage_error("plot", "unknown option '%s'", a);
        } else if (o.input == NULL) {
            o.input = a;
        } else {
            return hs_cli_usage_error("plot", "one input file only ('%s')",
                                      a);
        }
    }
    if (o.input == NULL)
        return hs_cli_usage_error("plot", "no input file (a trace from "
                                  "`hetsim simulate --h5`, or a sweep CSV)");
    if (o.output == NULL)
        return hs_cli_usage_error("plot", "no output: -o FILE.png|.svg|.pdf");
    if (hs_plot(&o, &err) != HS_OK)
        return hs_cli_fail(&err);
    printf("wrote %s\n", o.output);
    return 0;
}
