/*
 * cmd_ingest.c -- `hetsim ingest`: PyTorch profiler traces (one per rank
 * of one device type's sub-system) to a per-type profile YAML, or a
 * per-step table.  The rules are in README.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_atomic.h"
#include "hs_cli.h"
#include "hs_valid.h"
#include "hs_ingest.h"
#include "hs_units.h"

/* What ingest's own options fill (--warmup and --sidecar fill the
   library's hs_ingest_opts_t). */
typedef struct hs__ingest_cli_s {
    const char *type, *outp;
    int summary;
} hs__ingest_cli_t;

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
    HS_OPT_END};

static const hs_opt_t hs__ingest_lib_table[] = {
    {.name = "warmup", .kind = HS_OPT_U64,
     HS_OPT_AT(hs_ingest_opts_t, warmup), .u_lo = 0, .u_hi = 1000000,
     .metavar = "W",
     .help = "steps dropped at the start of each trace (20)"},
    {.name = "sidecar", .kind = HS_OPT_PATH,
     HS_OPT_AT(hs_ingest_opts_t, sidecar), .metavar = "FILE",
     .help = "the profiling harness's JSON sidecar: world size\n"
             "and gradient bucket bytes when the trace lacks them"},
    HS_OPT_END};

static const hs_opt_cmd_t hs__ingest_cmd = {
    .name = "ingest",
    .usage =
        "usage: hetsim ingest --type NAME [--warmup W] [--sidecar FILE]\n"
        "                     TRACE... -o PROFILE.yaml\n"
        "       hetsim ingest --summary [--warmup W] [--sidecar FILE] TRACE...\n",
    .about =
        "Reads PyTorch profiler traces (Chrome trace JSON, .json or .json.gz,\n"
        "Kineto or legacy form), one file per rank of one device type's\n"
        "measuring sub-system, streaming and in bounded memory.  Per rank and\n"
        "ProfilerStep#N window it measures the step time, t_dl (DataLoader),\n"
        "the forward, the first backward operator, the whole backward, the\n"
        "optimizer step and the all-reduce payload; on traces with GPU\n"
        "kernels the compute times are kernel times.  It drops the first W\n"
        "steps, averages per rank then over the ranks, and writes the profile\n"
        "(t_dl, t_fwd, t_b1, t_bwd, t_opt, allreduce_bytes D = 2(n-1)/n * M,\n"
        "subsystem_size n, buckets) that a scenario's type includes.\n",
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

static void hs__print_table(const hs_ingest_file_t *f)
{
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
        const hs_ingest_step_t *s = &f->steps[i];
        char c[6][24];
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
}

static void hs__print_dist(const char *name, const hs_dist_t *d)
{
    char a[64], b[64];

    if (!d->known) {
        printf("  %-6s unknown\n", name);
        return;
    }
    printf("  %-6s %s (sd %s, %zu samples)\n", name,
           hs_fmt_time(d->mean_ns, a, sizeof a),
           hs_fmt_time(d->sd_ns, b, sizeof b), d->n_samples);
}

static void hs__print_profile(const hs_profile_t *p)
{
    char a[64];
    size_t i;

    printf("profile: %s\n", p->source ? p->source : "");
    hs__print_dist("t_dl", &p->t_dl);
    hs__print_dist("t_fwd", &p->t_fwd);
    hs__print_dist("t_b1", &p->t_b1);
    hs__print_dist("t_bwd", &p->t_bwd);
    hs__print_dist("t_opt", &p->t_opt);
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

int hs_cli_ingest(int argc, char **argv)
{
    hs_ingest_opts_t o;
    hs__ingest_cli_t c = {NULL, NULL, 0};
    const hs_opt_group_t groups[] = {{hs__ingest_table, &c},
                                     {hs__ingest_lib_table, &o}};
    const char *type, *outp;
    int summary, rc = 0;
    const char **traces;
    size_t nt = 0, i;
    hs_ingest_t *ing = NULL;
    hs_error_t err;
    hs_profile_t prof;
    hs_err_t prc;
    size_t k, nn;
    const char *const *notes;

    hs_ingest_opts_default(&o);
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
    type = c.type;
    outp = c.outp;
    summary = c.summary;
    if (nt == 0) {
        free(traces);
        return hs_cli_usage_error("ingest", "no TRACE given");
    }
    if (!summary && outp == NULL) {
        free(traces);
        return hs_cli_usage_error("ingest",
                                  "give -o PROFILE.yaml or --summary");
    }
    if (outp != NULL && type == NULL) {
        free(traces);
        return hs_cli_usage_error("ingest",
                                  "--type NAME is needed with -o");
    }
    if (type != NULL) {
        const char *why = NULL;
        if (hs_valid_name(type, &why) != 0) {
            char msg[256];
            snprintf(msg, sizeof msg, "--type '%s' %s", hs_ex(type), why);
            free(traces);
            return hs_cli_usage_error("ingest", msg);
        }
    }
    /* a target that cannot be replaced is refused before the traces are
       read, not after */
    if (outp != NULL && hs_atomic_check_target(outp, 1, &err) != HS_OK) {
        free(traces);
        return hs_cli_fail(&err);
    }
    ing = hs_ingest_new(&o);
    if (ing == NULL) {
        free(traces);
        fprintf(stderr, "hetsim: out of memory\n");
        return hs_err_exit_code(HS_ERR_NOMEM);
    }
    for (i = 0; i < nt; i++) {
        if (hs_ingest_add_file(ing, traces[i], &err) != HS_OK) {
            rc = hs_cli_fail(&err);
            goto done;
        }
    }
    if (summary) {
        for (k = 0; k < hs_ingest_n_files(ing); k++)
            hs__print_table(hs_ingest_file(ing, k));
        prc = hs_ingest_profile(ing, &prof, &err);
        if (prc == HS_OK)
            hs__print_profile(&prof);
        else
            printf("profile: not available: %s\n", err.msg);
    }
    if (outp != NULL) {
        if (!summary && hs_ingest_profile(ing, &prof, &err) != HS_OK) {
            rc = hs_cli_fail(&err);
            goto done;
        }
        if (summary && prof.subsys_n == 0) {
            rc = hs_cli_fail(&err);
            goto done;
        }
        if (hs_profile_write(&prof, outp,
                             &(const hs_profile_info_t){type, NULL},
                             &err) != HS_OK) {
            rc = hs_cli_fail(&err);
            goto done;
        }
    }
    notes = hs_ingest_notes(ing, &nn);
    for (k = 0; k < nn; k++)
        fprintf(stderr, "hetsim ingest: note: %s\n", notes[k]);
    if (outp != NULL && !summary)
        fprintf(stderr, "hetsim ingest: wrote %s (%s, D = %" PRIu64
                        " B, n = %u, %u steps kept per rank)\n",
                outp, hs_ar_source_name(prof.ar_source), prof.ar_bytes,
                prof.subsys_n, prof.steps_kept);
done:
    hs_profile_clear(&prof);
    hs_ingest_free(ing);
    free(traces);
    return rc;
}
