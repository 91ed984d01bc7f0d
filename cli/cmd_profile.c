/*
 * cmd_profile.c -- `hetsim profile SCENARIO -o OUTDIR`: run every device
 * type's 2-device sub-system under the PyTorch profiler, ingest the traces
 * and write per-type profiles and a scenario that includes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cli.h"
#include "hs_profile_run.h"
#include "hs_scenario.h"
#include "hs_units.h"

static const char hs__profile_help[] =
    "usage: hetsim profile SCENARIO -o OUTDIR [--iterations K] [--warmup W]\n"
    "                      [--timeout DURATION] [--type NAME]\n"
    "                      [--python PROGRAM] [--harness FILE]\n\n"
    "METHOD.md S200-S300 for real: for each device type of SCENARIO, two\n"
    "devices of that type train the scenario's model (job.model: {file,\n"
    "entry}) data-parallel with DistributedDataParallel for K iterations\n"
    "under the PyTorch profiler, each on the type's data share sampled at\n"
    "random (the seed is recorded).  The ranks are started torchrun-style\n"
    "as local processes, or through profiling.launcher ({host} = the\n"
    "device's addr, {name} = its name) on remote hosts or namespaces.\n"
    "The traces are ingested into OUTDIR/<type>.profile.yaml, and\n"
    "OUTDIR/scenario.yaml is SCENARIO with those profiles, ready for\n"
    "predict, simulate and validate.  Types in SCENARIO may lack a profile.\n\n"
    "  -o OUTDIR            output directory (created)\n"
    "  --iterations K       iterations per rank (default:\n"
    "                       profiling.iterations)\n"
    "  --warmup W           first iterations not recorded (default:\n"
    "                       profiling.warmup)\n"
    "  --timeout DURATION   per sub-system, e.g. 120s (default:\n"
    "                       profiling.timeout)\n"
    "  --type NAME          profile only this type (no scenario.yaml)\n"
    "  --python PROGRAM     the interpreter (default: profiling.python)\n"
    "  --harness FILE       the harness (default: profiling.harness, else\n"
    "                       the built-in live/harness/hetsim_harness.py)\n"
    "  --help               this text\n\n"
    "OUTDIR/<type>/ keeps rank<R>.json (trace), rank<R>.sidecar.json and\n"
    "rank<R>.log.  A rank that crashes, hangs or cannot import the model\n"
    "stops its type with an error naming the type, rank, device, host and\n"
    "step; the other types still run and their profiles are kept.\n\n"
    "exit status: 0 ok, 2 bad scenario or options, 3 I/O error,\n"
    "4 a rank failed, timed out, or python could not run.\n";

static int hs__u32(const char *cmd, const char *opt, const char *v,
                   uint32_t *out)
{
    char *end;
    unsigned long x;

    if (v == NULL)
        return hs_cli_usage_error(cmd, "%s needs a value", opt);
    errno = 0;
    x = strtoul(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || x > 100000000UL)
        return hs_cli_usage_error(cmd, "%s: '%s' is not a count", opt, v);
    *out = (uint32_t)x;
    return 0;
}

int hs_cli_profile(int argc, char **argv)
{
    const char *cmd = "profile", *path = NULL;
    hs_prun_opts_t o;
    hs_prun_result_t res;
    hs_scenario_t *s = NULL;
    hs_error_t err;
    hs_err_t rc;
    int have_warmup = 0, r;
    size_t i;

    hs_prun_opts_init(&o);
    o.progress = stdout;
    for (i = 1; i < (size_t)argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < (size_t)argc ? argv[i + 1] : NULL;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(hs__profile_help, stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (v == NULL)
                return hs_cli_usage_error(cmd, "%s needs a directory", a);
            o.out_dir = v;
            i++;
        } else if (strcmp(a, "--iterations") == 0) {
            if ((r = hs__u32(cmd, a, v, &o.iters)) != 0)
                return r;
            i++;
        } else if (strcmp(a, "--warmup") == 0) {
            if ((r = hs__u32(cmd, a, v, &o.warmup)) != 0)
                return r;
            have_warmup = 1;
            i++;
        } else if (strcmp(a, "--timeout") == 0) {
            if (v == NULL || hs_parse_time_ns(v, &o.timeout_ns) != 0
                || o.timeout_ns <= 0)
                return hs_cli_usage_error(cmd, "--timeout needs a duration "
                                          "with its unit, e.g. 120s");
            i++;
        } else if (strcmp(a, "--type") == 0) {
            if (v == NULL)
                return hs_cli_usage_error(cmd, "%s needs a type name", a);
            o.only_type = v;
            i++;
        } else if (strcmp(a, "--python") == 0) {
            if (v == NULL)
                return hs_cli_usage_error(cmd, "%s needs a program", a);
            o.python = v;
            i++;
        } else if (strcmp(a, "--harness") == 0) {
            if (v == NULL)
                return hs_cli_usage_error(cmd, "%s needs a file", a);
            o.harness = v;
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
    if (o.out_dir == NULL)
        return hs_cli_usage_error(cmd, "-o OUTDIR is required");
    hs_error_clear(&err);
    if ((rc = hs_scenario_load(path, &s, &err)) != HS_OK)
        return hs_cli_fail(&err);
    if (o.only_type != NULL && hs_scenario_find_type(s, o.only_type) < 0) {
        hs_scenario_free(s);
        return hs_cli_usage_error(cmd, "no device type '%s'", o.only_type);
    }
    /* --warmup without --iterations: keep the scenario's iterations */
    if (have_warmup && o.iters == 0)
        o.iters = s->prof_iters;
    if (!have_warmup && o.iters != 0)
        o.warmup = o.iters > s->prof_warmup ? s->prof_warmup : o.iters / 5;
    rc = hs_profile_run(s, path, &o, &res, &err);
    for (i = 0; i < res.n_types; i++) {
        const hs_prun_type_t *t = &res.types[i];
        char a[64], b[64], c[64];

        if (!t->ok)
            continue;
        printf("%-12s t_dl %s  t_fwd %s  t_b1 %s  D %llu B  (%s)\n",
               t->name,
               t->profile.t_dl.known
                   ? hs_fmt_time(t->profile.t_dl.mean_ns, a, sizeof a)
                   : "unknown",
               hs_fmt_time(t->profile.t_fwd.mean_ns, b, sizeof b),
               hs_fmt_time(t->profile.t_b1.mean_ns, c, sizeof c),
               (unsigned long long)t->profile.ar_bytes, t->profile_path);
    }
    if (rc == HS_OK && res.scenario_path != NULL)
        printf("wrote %s\n", res.scenario_path);
    hs_prun_result_clear(&res);
    hs_scenario_free(s);
    if (rc != HS_OK)
        return hs_cli_fail(&err);
    return 0;
}
