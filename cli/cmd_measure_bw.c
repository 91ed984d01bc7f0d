/*
 * cmd_measure_bw.c -- `hetsim measure-bw SCENARIO [-o links.csv]
 * [--all-pairs] [--time S]`: iperf3 between the scenario's devices, written
 * as the adjacency rows a scenario includes with `network: links_csv:`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cli.h"
#include "hs_netmeasure.h"
#include "hs_profile_run.h"
#include "hs_scenario.h"

/* What measure-bw's options fill: the library's options, the output
   file and --omit as given (seconds, truncated to whole ones). */
typedef struct hs__mbw_cli_s {
    hs_nm_opts_t o;
    const char *out;
    double omit_s;
    int have_omit;
    int ordered;
} hs__mbw_cli_t;

static const hs_opt_t hs__mbw_table[] = {
    {.name = "output", .short_name = 'o', .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__mbw_cli_t, out), .metavar = "FILE",
     .help = "output (default: links.csv)"},
    {.name = "all-pairs", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__mbw_cli_t, o.all_pairs),
     .help = "every pair, not only the ring edges"},
    {.name = "ordered-pairs", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__mbw_cli_t, ordered),
     .help = "every ordered pair (each direction), one at a time"},
    {.name = "time", .kind = HS_OPT_DOUBLE,
     HS_OPT_AT(hs__mbw_cli_t, o.time_s), .d_lo = 0.1, .d_hi = 3600,
     .metavar = "S", .help = "seconds measured per pair (default 3)"},
    {.name = "omit", .kind = HS_OPT_DOUBLE,
     HS_OPT_AT(hs__mbw_cli_t, omit_s), .d_lo = 0, .d_hi = 600,
     HS_OPT_SEEN_AT(hs__mbw_cli_t, have_omit), .metavar = "S",
     .help = "seconds of TCP slow start left out (default 1)"},
    {.name = "port", .kind = HS_OPT_U64,
     HS_OPT_AT(hs__mbw_cli_t, o.port), .u_lo = 1, .u_hi = 65000,
     .metavar = "N", .help = "first iperf3 port (default 5201)"},
    {.name = "iperf3", .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__mbw_cli_t, o.iperf3), .metavar = "PROG",
     .help = "the iperf3 program (default: iperf3 in PATH)"},
    HS_OPT_END};

static const hs_opt_cmd_t hs__mbw_cmd = {
    .name = "measure-bw",
    .usage =
        "usage: hetsim measure-bw SCENARIO [-o links.csv]\n"
        "                         [--all-pairs | --ordered-pairs]\n"
        "                         [--time S] [--omit S] [--port N]\n"
        "                         [--iperf3 PROGRAM]\n",
    .about =
        "Measures the bandwidth between the devices of SCENARIO with iperf3\n"
        "(docs/method.md, S100) and writes one row \"addr1,addr2,bandwidth\" per\n"
        "measured pair to the output file, which a scenario includes with\n"
        "`network: {links_csv: links.csv}`.\n\n"
        "By default the ring edges are measured, each in the direction the ring\n"
        "uses it (device k sends to device k+1); --all-pairs measures every pair\n"
        "once (the row stands for both directions); --ordered-pairs every\n"
        "ordered pair a -> b and b -> a on its own, one pair at a time (links\n"
        "whose rate depends on the direction; `advise ring` needs a bandwidth\n"
        "for every pair).  Otherwise pairs that share no device run at the same\n"
        "time.  Each device's iperf3 runs on this machine, or through the\n"
        "scenario's profiling.launcher argv template (e.g. [ssh, \"{host}\"] or\n"
        "[ip, netns, exec, \"{name}\"]; {host} is the device's addr, {name} its\n"
        "name).  The client connects to the server device's addr.\n",
    .after =
        "When a pair cannot be measured (unreachable address, iperf3 missing,\n"
        "timeout) the others are still measured; the rows measured go to\n"
        "FILE.partial, FILE is left as it was, and the error names the pair.\n\n"
        "exit status: 0 ok, 2 bad scenario or options, 3 I/O error,\n"
        "4 a pair could not be measured or iperf3 could not run.\n",
    .pos_name = "scenario",
    .max_pos = 1};

int hs_cli_measure_bw(int argc, char **argv)
{
    const char *cmd = "measure-bw", *path = NULL, *out;
    hs__mbw_cli_t c;
    const hs_opt_group_t groups[] = {{hs__mbw_table, &c}};
    hs_nm_opts_t o;
    hs_nm_result_t res;
    hs_scenario_t *s = NULL;
    hs_error_t err;
    hs_err_t rc;
    size_t n_pos;
    int r;

    memset(&c, 0, sizeof c);
    hs_nm_opts_init(&c.o);
    c.out = "links.csv";
    if (!hs_cli_parse(&hs__mbw_cmd, groups, 1, argc, argv, &path, 1, &n_pos,
                      &r))
        return r;
    o = c.o;
    out = c.out;
    if (c.ordered && o.all_pairs)
        return hs_cli_usage_error(cmd, "--all-pairs or --ordered-pairs, not "
                                  "both");
    if (c.ordered)
        o.all_pairs = HS_NM_ORDERED_PAIRS;
    if (c.have_omit)
        o.omit_s = (unsigned)c.omit_s;
    o.progress = stdout;
    if (path == NULL)
        return hs_cli_usage_error(cmd, "which scenario?");
    hs_error_clear(&err);
    /* device types need no profile to be measured between */
    if ((rc = hs_cli_load_scenario(path, &s, &err)) != HS_OK)
        return hs_cli_fail(&err);
    printf("measuring %zu %s of %zu devices with iperf3 (%g s each)\n",
           s->n_devices == 2 && !o.all_pairs ? (size_t)2
           : (o.all_pairs == HS_NM_ORDERED_PAIRS
                  ? s->n_devices * (s->n_devices - 1)
                  : o.all_pairs ? s->n_devices * (s->n_devices - 1) / 2
                                : s->n_devices),
           o.all_pairs == HS_NM_ORDERED_PAIRS ? "ordered pairs"
           : o.all_pairs ? "pairs" : "ring edges", s->n_devices, o.time_s);
    fflush(stdout);
    rc = hs_nm_measure_scenario(s, &o, out, &res, &err);
    if (rc == HS_OK)
        printf("wrote %s: %zu rows (include it with network: "
               "{links_csv: %s})\n", out, res.n_pairs, out);
    hs_nm_result_clear(&res);
    hs_scenario_free(s);
    if (rc != HS_OK)
        return hs_cli_fail(&err);
    return hs_err_exit_code(HS_OK);
}
