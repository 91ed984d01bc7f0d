/*
 * cmd_measure_bw.c -- `hetsim measure-bw SCENARIO [-o links.csv]
 * [--all-pairs] [--time S]`: iperf3 between the scenario's devices, written
 * as the adjacency rows a scenario includes with `network: links_csv:`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cli.h"
#include "hs_netmeasure.h"
#include "hs_profile_run.h"
#include "hs_scenario.h"

static const char hs__mbw_help[] =
    "usage: hetsim measure-bw SCENARIO [-o links.csv] [--all-pairs]\n"
    "                         [--time S] [--omit S] [--port N]\n"
    "                         [--iperf3 PROGRAM]\n\n"
    "Measures the bandwidth between the devices of SCENARIO with iperf3\n"
    "(METHOD.md, S100) and writes one row \"addr1,addr2,bandwidth\" per\n"
    "measured pair to the output file, which a scenario includes with\n"
    "`network: {links_csv: links.csv}`.\n\n"
    "By default the ring edges are measured, each in the direction the ring\n"
    "uses it (device k sends to device k+1); --all-pairs measures every pair\n"
    "once.  Pairs that share no device run at the same time.  Each device's\n"
    "iperf3 runs on this machine, or through the scenario's\n"
    "profiling.launcher argv template (e.g. [ssh, \"{host}\"] or\n"
    "[ip, netns, exec, \"{name}\"]; {host} is the device's addr, {name} its\n"
    "name).  The client connects to the server device's addr.\n\n"
    "  -o FILE        output (default: links.csv)\n"
    "  --all-pairs    every pair, not only the ring edges\n"
    "  --time S       seconds measured per pair (default 3)\n"
    "  --omit S       seconds of TCP slow start left out (default 1)\n"
    "  --port N       first iperf3 port (default 5201)\n"
    "  --iperf3 PROG  the iperf3 program (default: iperf3 in PATH)\n"
    "  --help         this text\n\n"
    "When a pair cannot be measured (unreachable address, iperf3 missing,\n"
    "timeout) the others are still measured; the rows measured go to\n"
    "FILE.partial, FILE is left as it was, and the error names the pair.\n\n"
    "exit status: 0 ok, 2 bad scenario or options, 3 I/O error,\n"
    "4 a pair could not be measured or iperf3 could not run.\n";

static int hs__num(const char *cmd, const char *opt, const char *v,
                   double lo, double hi, double *out)
{
    char *end;
    double x;

    if (v == NULL)
        return hs_cli_usage_error(cmd, "%s needs a value", opt);
    errno = 0;
    x = strtod(v, &end);
    if (errno != 0 || end == v || *end != '\0' || !(x >= lo && x <= hi))
        return hs_cli_usage_error(cmd, "%s: '%s' is not a number in "
                                  "[%g, %g]", opt, v, lo, hi);
    *out = x;
    return 0;
}

int hs_cli_measure_bw(int argc, char **argv)
{
    const char *cmd = "measure-bw", *path = NULL, *out = "links.csv";
    hs_nm_opts_t o;
    hs_nm_result_t res;
    hs_scenario_t *s = NULL;
    hs_error_t err;
    hs_err_t rc;
    double x;
    size_t i;
    int r;

    hs_nm_opts_init(&o);
    o.progress = stdout;
    for (i = 1; i < (size_t)argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < (size_t)argc ? argv[i + 1] : NULL;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(hs__mbw_help, stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (v == NULL)
                return hs_cli_usage_error(cmd, "%s needs a file", a);
            out = v;
            i++;
        } else if (strcmp(a, "--all-pairs") == 0) {
            o.all_pairs = 1;
        } else if (strcmp(a, "--time") == 0) {
            if ((r = hs__num(cmd, a, v, 0.1, 3600, &o.time_s)) != 0)
                return r;
            i++;
        } else if (strcmp(a, "--omit") == 0) {
            if ((r = hs__num(cmd, a, v, 0, 600, &x)) != 0)
                return r;
            o.omit_s = (unsigned)x;
            i++;
        } else if (strcmp(a, "--port") == 0) {
            if ((r = hs__num(cmd, a, v, 1, 65000, &x)) != 0)
                return r;
            o.port = (unsigned)x;
            i++;
        } else if (strcmp(a, "--iperf3") == 0) {
            if (v == NULL)
                return hs_cli_usage_error(cmd, "%s needs a program", a);
            o.iperf3 = v;
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            return hs_cli_usage_error(cmd, "unknown option '%s'", a);
        } else if (path == NULL) {
            path = a;
        } else {
            return hs_cli_usage_error(cmd, "one scenario only ('%s')", a);
        }
    }
    if (path == NULL)
        return hs_cli_usage_error(cmd, "which scenario?");
    hs_error_clear(&err);
    /* device types need no profile to be measured between */
    if ((rc = hs_scenario_load(path, &s, &err)) != HS_OK)
        return hs_cli_fail(&err);
    printf("measuring %zu %s of %zu devices with iperf3 (%g s each)\n",
           s->n_devices == 2 && !o.all_pairs ? (size_t)2
           : (o.all_pairs ? s->n_devices * (s->n_devices - 1) / 2
                          : s->n_devices),
           o.all_pairs ? "pairs" : "ring edges", s->n_devices, o.time_s);
    fflush(stdout);
    rc = hs_nm_measure_scenario(s, &o, out, &res, &err);
    if (rc == HS_OK)
        printf("wrote %s: %zu rows (include it with network: "
               "{links_csv: %s})\n", out, res.n_pairs, out);
    hs_nm_result_clear(&res);
    hs_scenario_free(s);
    if (rc != HS_OK)
        return hs_cli_fail(&err);
    return 0;
}
