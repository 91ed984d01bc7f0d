/*
 * cmd_ingest.c -- `hetsim ingest`: PyTorch profiler traces (one per rank
 * of one device type's sub-system) to a per-type profile YAML, or a
 * per-step table.  The rules are in README.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hs_atomic.h"
#include "hs_cli.h"
#include "hs_valid.h"
#include "hs_ingest.h"
#include "hs_units.h"

/* The most --sidecar options one run takes. */
#define HS__MAX_SIDECARS 4096

/* What ingest's own options fill (--warmup, --stat and --threads fill the library's
   hs_ingest_opts_t). */
typedef struct hs__ingest_cli_s {
    const char *type, *outp;
    int summary;
    const char *sidecars[HS__MAX_SIDECARS];   /* --sidecar, in order */
    size_t n_sidecars;
} hs__ingest_cli_t;

/* --sidecar: one more (a rank's, or every rank's when given once). */
static int hs__add_sidecar(const char *text, void *base)
{
    hs__ingest_cli_t *c = base;

    if (text[0] == '\0' || c->n_sidecars == HS__MAX_SIDECARS)
        return -1;
    c->sidecars[c->n_sidecars++] = text;
    return 0;
}

static const char *const hs__stat_names[] = {"mean", "median", "trimmed",
                                             NULL};
static const int hs__stat_values[] = {HS_INGEST_STAT_MEAN,
                                      HS_INGEST_STAT_MEDIAN,
                                      HS_INGEST_STAT_TRIMMED};

static const hs_opt_t hs__ingest_table[] = {
    {.name = "type", .kind = HS_OPT_STRING,
     HS_OPT_AT(hs__ingest_cli_t, type), .metavar = "NAME",
     .help = "the device type the profile is for (with -o)"},
    {.name = "output", .short_name = 'o', .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__ingest_cli_t, outp), .metavar = "FILE",
     .help = "write the profile YAML there (atomically)"},
    {.name = "summary", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__ingest_cli_t, summary),
     .help = "print the per-step table of every rank and the\n"
             "averaged figures instead"},
    {.name = "sidecar", .kind = HS_OPT_CUSTOM,
     HS_OPT_AT(hs__ingest_cli_t, n_sidecars), .parse = hs__add_sidecar,
     .valid = "a file or a directory", .metavar = "FILE|DIR",
     .help = "the profiling harness's JSON sidecar: world size\n"
             "and gradient bucket bytes when the trace lacks them.\n"
             "Once: for every trace; once per TRACE: each\n"
             "trace's own, in order; a directory: each TRACE's\n"
             "DIR/NAME.sidecar.json (NAME: the trace's file name\n"
             "less .json / .json.gz)"},
    HS_OPT_END};

static const hs_opt_t hs__ingest_lib_table[] = {
    {.name = "warmup", .kind = HS_OPT_U64,
     HS_OPT_AT(hs_ingest_opts_t, warmup), .u_lo = 0, .u_hi = 1000000,
     .metavar = "W",
     .help = "steps dropped at the start of each trace (20)"},
    {.name = "stat", .kind = HS_OPT_ENUM,
     HS_OPT_AT(hs_ingest_opts_t, stat), .choices = hs__stat_names,
     .values = hs__stat_values, .metavar = "S",
     .help = "the phase times' statistic over a rank's kept\n"
             "steps: mean (the default), median or trimmed\n"
             "(10% off each end)"},
    {.name = "threads", .kind = HS_OPT_U64,
     HS_OPT_AT(hs_ingest_opts_t, threads), .u_lo = 1, .u_hi = 2,
     .metavar = "T",
     .help = "1: each trace read, inflated and parsed on one\n"
             "core; 2: a second thread reads and inflates ahead\n"
             "of the parse (traces of 1 MiB or more).  The same\n"
             "output either way (1)"},
    HS_OPT_END};

static const hs_opt_cmd_t hs__ingest_cmd = {
    .name = "ingest",
    .usage =
        "usage: hetsim ingest --type NAME [--warmup W] [--stat S] [--threads T]\n"
        "                     [--sidecar FILE|DIR]... TRACE... -o PROFILE.yaml\n"
        "       hetsim ingest --summary [--warmup W] [--stat S] [--threads T]\n"
        "                     [--sidecar FILE|DIR]... TRACE...\n",
    .about =
        "Reads PyTorch profiler traces (Chrome trace JSON, .json or .json.gz,\n"
        "Kineto or legacy form), one file per rank of one device type's\n"
        "measuring sub-system, streaming and in bounded memory.  Per rank and\n"
        "ProfilerStep#N window it measures the step time, t_dl (DataLoader),\n"
        "the forward, the first backward operator, the whole backward, the\n"
        "optimizer step and the all-reduce payload; on traces with GPU\n"
        "kernels the compute times are kernel times.  It drops the first W\n"
        "steps, averages per rank then over the ranks, and writes the profile\n"
        "(t_dl, t_fwd, t_b1, t_bwd, t_opt, fwd_ops: the forward per top-level\n"
        "operator, adding up to t_fwd; allreduce_bytes D = 2(n-1)/n * M,\n"
        "subsystem_size n, buckets) that a scenario's type includes.  Each\n"
        "trace is read once.\n",
    .after =
        "exit status: 0 ok; 2 bad input (unreadable JSON or gzip, wrong types,\n"
        "no steps, fewer steps than the warm-up, nothing to measure); 3 I/O.\n",
    .pos_name = "TRACE",
    .max_pos = SIZE_MAX};

static void hs__cell(char *b, size_t n, int64_t ns)
{
    if (ns == HS_INGEST_UNKNOWN)
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%.3f", (double)ns / 1e6);
}

/* File k's per-step table; HS_OK, or the error reading its spilled
   steps back (err filled). */
static hs_err_t hs__print_table(hs_ingest_t *ing, size_t k, hs_error_t *err)
{
    const hs_ingest_file_t *f = hs_ingest_file(ing, k);
    size_t i;

    printf("%s: rank %ld, %s form, world size %ld, backend %s, %s; "
           "%" PRIu64 " events, %" PRIu64 " bytes of JSON, %u passes\n",
           f->path, f->rank,
           f->form == HS_INGEST_LEGACY ? "legacy" : "Kineto", f->world_size,
           f->backend[0] ? f->backend : "-",
           f->gpu ? "device kernels (compute = kernel time)"
                  : "no device kernels (compute = CPU time)",
           f->n_events, f->json_bytes, f->passes);
    printf("  payload source: %s\n",
           f->ar_known ? hs_ar_source_name(f->ar_source) : "none");
    printf("  %-8s %-4s %10s %9s %9s %9s %9s %9s %12s %4s\n", "step",
           "kept", "step_ms", "dl_ms", "fwd_ms", "b1_ms", "bwd_ms",
           "opt_ms", "allreduce_B", "n_ar");
    for (i = 0; i < f->n_steps; i++) {
        const hs_ingest_step_t *s = hs_ingest_file_step(ing, k, i, err);
        char c[6][24];
        if (s == NULL)
            return err->code;
        hs__cell(c[0], sizeof c[0], s->dur_ns);
        hs__cell(c[1], sizeof c[1], s->t_dl_ns);
        hs__cell(c[2], sizeof c[2], s->t_fwd_ns);
        hs__cell(c[3], sizeof c[3], s->t_b1_ns);
        hs__cell(c[4], sizeof c[4], s->t_bwd_ns);
        hs__cell(c[5], sizeof c[5], s->t_opt_ns);
        printf("  %-8ld %-4s %10s %9s %9s %9s %9s %9s %12" PRIu64 " %4u\n",
               s->number,
               s->kept ? "yes" : (s->complete ? "no" : "cut"), c[0], c[1],
               c[2], c[3], c[4], c[5], s->ar_payload_bytes, s->n_allreduce);
    }
    return HS_OK;
}

static void hs__print_dist(const char *name, const hs_dist_t *d,
                           const hs_ingest_robust_t *rb)
{
    char a[64], b[64], c[64], e[64], g[64];

    if (!d->known) {
        printf("  %-6s unknown\n", name);
        return;
    }
    printf("  %-6s %s (sd %s, %zu samples)", name,
           hs_fmt_time(d->mean_ns, a, sizeof a),
           hs_fmt_time(d->sd_ns, b, sizeof b), d->n_samples);
    if (rb != NULL && rb->known)
        printf("; trace: mean %s, median %s, trimmed mean %s",
               hs_fmt_time(rb->mean_ns, c, sizeof c),
               hs_fmt_time(rb->median_ns, e, sizeof e),
               hs_fmt_time(rb->trimmed_ns, g, sizeof g));
    printf("\n");
}

static void hs__print_profile(const hs_profile_t *p, const hs_ingest_t *ing)
{
    char a[64];
    size_t i;
    int64_t sum = 0;

    printf("profile: %s\n", p->source ? p->source : "");
    if (p->micro_batches > 1)
        printf("  micro_batches %u (the times below are one "
               "micro-batch's)\n", p->micro_batches);
    hs__print_dist("t_dl", &p->t_dl, hs_ingest_robust(ing, HS_INGEST_PH_DL));
    hs__print_dist("t_fwd", &p->t_fwd,
                   hs_ingest_robust(ing, HS_INGEST_PH_FWD));
    hs__print_dist("t_b1", &p->t_b1, hs_ingest_robust(ing, HS_INGEST_PH_B1));
    hs__print_dist("t_bwd", &p->t_bwd,
                   hs_ingest_robust(ing, HS_INGEST_PH_BWD));
    hs__print_dist("t_opt", &p->t_opt,
                   hs_ingest_robust(ing, HS_INGEST_PH_OPT));
    for (i = 0; i < p->n_fwd_ops; i++) {
        printf("  fwd_op %-40s %s\n",
               p->fwd_op_names != NULL && p->fwd_op_names[i] != NULL
                   ? p->fwd_op_names[i]
                   : "?",
               hs_fmt_time(p->fwd_ops_ns[i], a, sizeof a));
        sum += p->fwd_ops_ns[i];
    }
    if (p->n_fwd_ops > 0)
        printf("  fwd_ops: %zu operators, sum %s (t_fwd %s)\n", p->n_fwd_ops,
               hs_fmt_time(sum, a, sizeof a),
               hs_fmt_time(p->t_fwd.mean_ns, a + 32, 32));
    printf("  D      %" PRIu64 " B (%s) sent per device per step, n = %u, "
           "payload M = %.0f B, source %s\n",
           p->ar_bytes, hs_fmt_bytes(p->ar_bytes, a, sizeof a), p->subsys_n,
           (double)p->ar_bytes * p->subsys_n / (2.0 * (p->subsys_n - 1)),
           hs_ar_source_name(p->ar_source));
    for (i = 0; i < p->n_buckets; i++)
        printf("  bucket %zu: %" PRIu64 " B ready %s after backward "
               "start\n",
               i, p->buckets[i].bytes,
               hs_fmt_time(p->buckets[i].ready_ns, a, sizeof a));
}

static int hs__is_dir(const char *p)
{
    struct stat st;

    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* DIR/NAME.sidecar.json for the trace at path (NAME: its file name less
   .json.gz, .json or .gz), in buf. */
static const char *hs__dir_sidecar(const char *dir, const char *path,
                                   char *buf, size_t cap)
{
    const char *b = strrchr(path, '/');
    size_t n;
    static const char *const ext[] = {".json.gz", ".json", ".gz"};
    size_t k;

    b = b != NULL ? b + 1 : path;
    n = strlen(b);
    for (k = 0; k < 3; k++) {
        size_t e = strlen(ext[k]);
        if (n > e && strcmp(b + n - e, ext[k]) == 0) {
            n -= e;
            break;
        }
    }
    snprintf(buf, cap, "%s/%.*s.sidecar.json", dir, (int)n, b);
    return buf;
}

/* Refuses options that do not go together (nt traces given), a bad
   --type, an -o target that cannot be replaced (before the traces are
   read, not after); one sidecar for all goes into o.  0, or the exit
   status. */
static int hs__ingest_check(const hs__ingest_cli_t *c, hs_ingest_opts_t *o,
                            size_t nt, hs_error_t *err)
{
    if (nt == 0)
        return hs_cli_usage_error("ingest", "no TRACE given");
    if (!c->summary && c->outp == NULL)
        return hs_cli_usage_error("ingest",
                                  "give -o PROFILE.yaml or --summary");
    if (c->outp != NULL && c->type == NULL)
        return hs_cli_usage_error("ingest",
                                  "--type NAME is needed with -o");
    if (c->type != NULL) {
        const char *why = NULL;
        if (hs_valid_name(c->type, &why) != 0) {
            char msg[256];
            snprintf(msg, sizeof msg, "--type '%s' %s", hs_ex(c->type), why);
            return hs_cli_usage_error("ingest", msg);
        }
    }
    /* a target that cannot be replaced is refused before the traces are
       read, not after */
    if (c->outp != NULL && hs_atomic_check_target(c->outp, 1, err) != HS_OK)
        return hs_cli_fail(err);
    /* the sidecars: one for all, one per trace, or a directory of them */
    if (c->n_sidecars == 1 && !hs__is_dir(c->sidecars[0]))
        o->sidecar = c->sidecars[0];
    else if (c->n_sidecars > 1 && c->n_sidecars != nt)
        return hs_cli_usage_error("ingest",
                                  "give --sidecar once, once per TRACE "
                                  "(in the same order) or a directory");
    return 0;
}

/* Reads the nt traces into ing, each with its sidecar (o->sidecar: one
   for all; else per trace, or found in a directory). */
static hs_err_t hs__ingest_add(hs_ingest_t *ing, const hs__ingest_cli_t *c,
                               const hs_ingest_opts_t *o,
                               const char **traces, size_t nt,
                               hs_error_t *err)
{
    size_t i;
    hs_err_t rc;

    for (i = 0; i < nt; i++) {
        char side[4096];
        const char *sp = NULL;

        if (c->n_sidecars > 1)
            sp = c->sidecars[i];
        else if (c->n_sidecars == 1 && o->sidecar == NULL)
            sp = hs__dir_sidecar(c->sidecars[0], traces[i], side,
                                 sizeof side);
        if ((rc = hs_ingest_add_file_sidecar(ing, traces[i], sp, err)) !=
            HS_OK)
            return rc;
    }
    return HS_OK;
}

/* The summary (--summary) and the profile written (-o) into prof; 0, or
   the exit status of a failure. */
static int hs__ingest_out(hs_ingest_t *ing, const hs__ingest_cli_t *c,
                          hs_profile_t *prof, hs_error_t *err)
{
    hs_err_t prc;
    size_t k;

    if (c->summary) {
        for (k = 0; k < hs_ingest_n_files(ing); k++)
            if (hs__print_table(ing, k, err) != HS_OK)
                return hs_cli_fail(err);
        prc = hs_ingest_profile(ing, prof, err);
        if (prc == HS_OK)
            hs__print_profile(prof, ing);
        else
            printf("profile: not available: %s\n", err->msg);
    }
    if (c->outp != NULL) {
        if (!c->summary && hs_ingest_profile(ing, prof, err) != HS_OK)
            return hs_cli_fail(err);
        if (c->summary && prof->subsys_n == 0)
            return hs_cli_fail(err);
        if (hs_profile_write(prof, c->outp,
                             &(const hs_profile_info_t){c->type, NULL},
                             err) != HS_OK)
            return hs_cli_fail(err);
    }
    return 0;
}

int hs_cli_ingest(int argc, char **argv)
{
    hs_ingest_opts_t o;
    static hs__ingest_cli_t c;
    const hs_opt_group_t groups[] = {{hs__ingest_table, &c},
                                     {hs__ingest_lib_table, &o}};
    int rc = 0;
    const char **traces;
    size_t nt = 0;
    hs_ingest_t *ing = NULL;
    hs_error_t err;
    hs_profile_t prof;
    size_t k, nn;
    const char *const *notes;

    hs_ingest_opts_default(&o);
    memset(&c, 0, sizeof c);
    hs_error_clear(&err);
    memset(&prof, 0, sizeof prof);
    traces = calloc((size_t)argc, sizeof *traces);
    if (traces == NULL) {
        fprintf(stderr, "hetsim: out of memory\n");
        return hs_err_exit_code(HS_ERR_NOMEM);
    }
    if (!hs_cli_parse(&hs__ingest_cmd, groups, 2, argc, argv, traces,
                      (size_t)argc, &nt, &rc)) {
        free(traces);
        return rc;
    }
    if ((rc = hs__ingest_check(&c, &o, nt, &err)) != 0) {
        free(traces);
        return rc;
    }
    ing = hs_ingest_new(&o);
    if (ing == NULL) {
        free(traces);
        fprintf(stderr, "hetsim: out of memory\n");
        return hs_err_exit_code(HS_ERR_NOMEM);
    }
    if (hs__ingest_add(ing, &c, &o, traces, nt, &err) != HS_OK) {
        rc = hs_cli_fail(&err);
        goto done;
    }
    if ((rc = hs__ingest_out(ing, &c, &prof, &err)) != 0)
        goto done;
    notes = hs_ingest_notes(ing, &nn);
    for (k = 0; k < nn; k++)
        fprintf(stderr, "hetsim ingest: note: %s\n", notes[k]);
    if (c.outp != NULL && !c.summary)
        fprintf(stderr, "hetsim ingest: wrote %s (%s, D = %" PRIu64
                        " B, n = %u, %u steps kept per rank)\n",
                c.outp, hs_ar_source_name(prof.ar_source), prof.ar_bytes,
                prof.subsys_n, prof.steps_kept);
done:
    hs_profile_clear(&prof);
    hs_ingest_free(ing);
    free(traces);
    return rc;
}
