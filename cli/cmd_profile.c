/*
 * cmd_profile.c -- `hetsim profile SCENARIO -o OUTDIR`: run every device
 * type's 2-device sub-system under the PyTorch profiler, ingest the traces
 * and write per-type profiles and a scenario that includes them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cli.h"
#include "hs_limits.h"
#include "hs_profile_run.h"
#include "hs_scenario.h"
#include "hs_units.h"

/* The most batch sizes --batches takes. */
#define HS__MAX_BATCHES 16

/* What profile's options fill: the library's options, whether --warmup
   was given, and --batches' sizes. */
typedef struct hs__profile_cli_s {
    hs_prun_opts_t o;
    int have_warmup;
    uint64_t batches[HS__MAX_BATCHES];
    size_t n_batches;
} hs__profile_cli_t;

/* --batches B[,B...]: whole numbers 1..2^32-1, at most HS__MAX_BATCHES. */
static int hs__p_batches(const char *text, void *base)
{
    hs__profile_cli_t *c = base;
    const char *p = text;

    c->n_batches = 0;
    while (*p != '\0') {
        char *end;
        unsigned long long v;

        if (*p < '0' || *p > '9' || c->n_batches == HS__MAX_BATCHES)
            return -1;
        v = strtoull(p, &end, 10);
        if (v < 1 || v > UINT32_MAX || (*end != ',' && *end != '\0'))
            return -1;
        c->batches[c->n_batches++] = v;
        p = *end == ',' ? end + 1 : end;
        if (*end == ',' && *p == '\0')
            return -1;
    }
    return c->n_batches > 0 ? 0 : -1;
}

static const hs_opt_t hs__profile_table[] = {
    {.name = "output", .short_name = 'o', .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__profile_cli_t, o.out_dir), .metavar = "OUTDIR",
     .help = "output directory (created)"},
    {.name = "iterations", .kind = HS_OPT_U64,
     HS_OPT_AT(hs__profile_cli_t, o.iters), .u_lo = 0, .u_hi = 100000000,
     .metavar = "K",
     .help = "iterations per rank (default:\nprofiling.iterations)"},
    {.name = "warmup", .kind = HS_OPT_U64,
     HS_OPT_AT(hs__profile_cli_t, o.warmup), .u_lo = 0, .u_hi = 100000000,
     HS_OPT_SEEN_AT(hs__profile_cli_t, have_warmup), .metavar = "W",
     .help = "first iterations not recorded (default:\n"
             "profiling.warmup)"},
    {.name = "timeout", .kind = HS_OPT_TIME,
     HS_OPT_AT(hs__profile_cli_t, o.timeout_ns), .i_lo = 1,
     .i_hi = INT64_MAX, .metavar = "DURATION",
     .help = "per sub-system, e.g. 120s (default:\nprofiling.timeout)"},
    {.name = "type", .kind = HS_OPT_STRING,
     HS_OPT_AT(hs__profile_cli_t, o.only_type), .metavar = "NAME",
     .help = "profile only this type (no scenario.yaml)"},
    {.name = "alone", .kind = HS_OPT_STRING,
     HS_OPT_AT(hs__profile_cli_t, o.alone), .metavar = "TYPE[,TYPE]",
     .help = "profile these types with one rank alone (a type\n"
             "with a single device and no profiling.spare_devices\n"
             "entry needs it: the payload from the model's\n"
             "gradients, the communication's cost not measured)"},
    {.name = "batches", .kind = HS_OPT_CUSTOM, .parse = hs__p_batches,
     .valid = "B[,B...], whole numbers >= 1 (at most 16)",
     .metavar = "B[,B...]",
     .help = "profile every type at these batch sizes too (its\n"
             "own batch added): the profile gets batch_points for\n"
             "advise batch to interpolate"},
    {.name = "hop-trials", .kind = HS_OPT_U64,
     HS_OPT_AT(hs__profile_cli_t, o.hop_trials), .u_lo = 0, .u_hi = 1000,
     HS_OPT_SEEN_AT(hs__profile_cli_t, o.have_hop_trials), .metavar = "K",
     .help = "trials of the hop-wait probe per rank on CPU\n"
             "devices (default 8; 0: no probe, no t_hop_wait)"},
    {.name = "python", .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__profile_cli_t, o.python), .metavar = "PROGRAM",
     .help = "the interpreter (default: profiling.python)"},
    {.name = "harness", .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__profile_cli_t, o.harness), .metavar = "FILE",
     .help = "the harness (default: profiling.harness, else\n"
             "the built-in live/harness/hetsim_harness.py)"},
    HS_OPT_END};

static const hs_opt_cmd_t hs__profile_cmd = {
    .name = "profile",
    .usage =
        "usage: hetsim profile SCENARIO -o OUTDIR [--iterations K] [--warmup W]\n"
        "                      [--timeout DURATION] [--type NAME] [--alone TYPE]\n"
        "                      [--batches B[,B...]] [--hop-trials K]\n"
        "                      [--python PROGRAM] [--harness FILE]\n",
    .about =
        "docs/method.md S200-S300 for real: for each device type of SCENARIO, two\n"
        "devices of that type train the scenario's model (job.model: {file,\n"
        "entry}) data-parallel with DistributedDataParallel for K iterations\n"
        "under the PyTorch profiler, each on the type's data share sampled at\n"
        "random (the seed is recorded).  The ranks are started torchrun-style\n"
        "as local processes, or through profiling.launcher ({host} = the\n"
        "device's addr, {name} = its name) on remote hosts or namespaces.\n"
        "The traces are ingested into OUTDIR/<type>.profile.yaml, and\n"
        "OUTDIR/scenario.yaml is SCENARIO with those profiles, ready for\n"
        "predict, simulate and validate.  Types in SCENARIO may lack a profile.\n"
        "A type with one device takes a profiling.spare_devices entry of its\n"
        "type as the second device, or runs alone with --alone TYPE; with\n"
        "neither, profile refuses (exit 2).  Notes and warnings (a rank that\n"
        "did not get its device to itself) are printed and kept in the\n"
        "profile's source.  With --batches 8,16,32 each type is profiled at\n"
        "each of those batch sizes and at its own (in OUTDIR/<type>/batch<B>/\n"
        "for the others); its profile (at its own batch) lists every batch's\n"
        "phase times under batch_points, and the profiling cost summed over\n"
        "them is printed in device-seconds.  A type with micro_batches V > 1\n"
        "is profiled with gradient accumulation: the harness runs its steps as\n"
        "V micro-batches of batch / V samples, DDP's no_sync() on all but the\n"
        "last (whose backward all-reduces), each marked in the trace, and the\n"
        "profile holds one micro-batch's times (not with --batches).\n",
    .after =
        "OUTDIR/<type>/ keeps rank<R>.json (trace), rank<R>.sidecar.json and\n"
        "rank<R>.log.  A rank that crashes, hangs or cannot import the model\n"
        "stops its type with an error naming the type, rank, device, host and\n"
        "step; the other types still run and their profiles are kept.\n\n"
        "exit status: 0 ok, 2 bad scenario or options, 3 I/O error,\n"
        "4 a rank failed, timed out, or python could not run.\n",
    .pos_name = "scenario",
    .max_pos = 1};

int hs_cli_profile(int argc, char **argv)
{
    const char *cmd = "profile", *path = NULL;
    hs__profile_cli_t c;
    const hs_opt_group_t groups[] = {{hs__profile_table, &c}};
    hs_prun_opts_t o;
    hs_prun_result_t res;
    hs_scenario_t *s = NULL;
    hs_error_t err;
    hs_err_t rc;
    int have_warmup, r;
    size_t i, n_pos;

    memset(&c, 0, sizeof c);
    hs_prun_opts_init(&c.o);
    if (!hs_cli_parse(&hs__profile_cmd, groups, 1, argc, argv, &path, 1,
                      &n_pos, &r))
        return r;
    o = c.o;
    have_warmup = c.have_warmup;
    if (c.n_batches > 0) {
        o.batches = c.batches;
        o.n_batches = c.n_batches;
    }
    o.progress = stdout;
    if (path == NULL)
        return hs_cli_usage_error(cmd, "which scenario?");
    if (o.out_dir == NULL)
        return hs_cli_usage_error(cmd, "-o OUTDIR is required");
    /* the profiled copy is the scenario file's text, rewritten */
    if (strcmp(path, "-") == 0)
        return hs_cli_usage_error(cmd, "the scenario must be a file, not "
                                  "standard input: OUTDIR/scenario.yaml "
                                  "is written from it, with its relative "
                                  "paths kept");
    hs_error_clear(&err);
    if ((rc = hs_scenario_load(path, &s, &err)) != HS_OK)
        return hs_cli_fail(&err);
    if (o.only_type != NULL && hs_scenario_find_type(s, o.only_type) < 0) {
        char hint[512];
        hs_scenario_type_hint(s, o.only_type, hint, sizeof hint);
        hs_scenario_free(s);
        return hs_cli_usage_error(cmd, "no device type '%s'%s", o.only_type,
                                  hint);
    }
    /* every name in --alone is a type of the scenario */
    for (const char *a = o.alone; a != NULL && *a != '\0';) {
        const char *comma = strchr(a, ',');
        size_t len = comma != NULL ? (size_t)(comma - a) : strlen(a);
        char name[HS_LIMIT_NAME_LEN + 1], hint[512];
        snprintf(name, sizeof name, "%.*s", (int)len, a);
        if (hs_scenario_find_type(s, name) < 0) {
            hs_scenario_type_hint(s, name, hint, sizeof hint);
            hs_scenario_free(s);
            return hs_cli_usage_error(cmd, "--alone: no device type '%s'%s",
                                      name, hint);
        }
        a = comma != NULL ? comma + 1 : a + len;
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
        for (size_t k = 0; k < t->profile.n_points; k++) {
            const hs_batch_point_t *q = &t->profile.points[k];

            printf("%-12s   batch %-6llu t_fwd %s  t_b1 %s\n", "",
                   (unsigned long long)q->batch,
                   hs_fmt_time(q->t_fwd.mean_ns, b, sizeof b),
                   hs_fmt_time(q->t_b1.mean_ns, c, sizeof c));
        }
        if (t->profile.n_points > 0)
            printf("%-12s   profiling cost %.1f device-s over %zu batch "
                   "points\n", "", t->device_s, t->profile.n_points);
    }
    if (rc == HS_OK && res.scenario_path != NULL)
        printf("wrote %s\n", res.scenario_path);
    hs_prun_result_clear(&res);
    hs_scenario_free(s);
    if (rc != HS_OK)
        return hs_cli_fail(&err);
    return hs_err_exit_code(HS_OK);
}
