/*
 * cmd_sweep.c -- `hetsim sweep [SCENARIO] --vary KEY=VALUES ...`: the
 * closed form (and optionally the replay) over the product or zip of
 * varied scenario keys (whatif/hs_sweep.h), written as a table, CSV, JSON
 * or HDF5 (output/hs_sweep_out.h); under mpirun the points are spread over
 * the ranks (hs_sweep_mpi.h) and rank 0 writes the same output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hs_cli.h"
#include "hs_progress.h"
#include "hs_scenario.h"
#include "hs_sweep.h"
#include "hs_sweep_mpi.h"
#include "hs_sweep_out.h"
#include "hs_units.h"

/* What sweep's own options fill; --vary and --set may repeat, so their
   parsers append to lists sized for argc. */
typedef struct hs__sweep_opts_s {
    const char **vary;
    size_t n_vary;
    const char **set;
    size_t n_set;
    int zip, replay, closed_only, json, csv, progress, no_progress, have_fmt;
    int fmt;                /* hs_sweep_fmt_t */
    const char *out;
    int64_t rank_timeout_ns;
} hs__sweep_opts_t;

static int hs__sweep_vary(const char *text, void *base)
{
    hs__sweep_opts_t *o = base;

    if (strchr(text, '=') == NULL)
        return -1;
    o->vary[o->n_vary++] = text;
    return 0;
}

static int hs__sweep_set(const char *text, void *base)
{
    hs__sweep_opts_t *o = base;

    if (strchr(text, '=') == NULL)
        return -1;
    o->set[o->n_set++] = text;
    return 0;
}

static const char *const hs__sweep_fmts[] = {"table", "csv", "json", "h5",
                                             NULL};
static const int hs__sweep_fmt_values[] = {
    HS_SWEEP_FMT_TABLE, HS_SWEEP_FMT_CSV, HS_SWEEP_FMT_JSON, HS_SWEEP_FMT_H5};

static const hs_opt_t hs__sweep_table[] = {
    {.name = "vary", .kind = HS_OPT_CUSTOM, .parse = hs__sweep_vary,
     .valid = "KEY=VALUES", .metavar = "KEY=VALUES",
     .help = "vary a scenario key over VALUES: a comma-\n"
             "separated list of values, arithmetic ranges\n"
             "A..B:STEP and geometric ranges A..B*FACTOR in\n"
             "the key's unit; a ring list [a, b, ..] is one\n"
             "value.  Several --vary make the product, the\n"
             "first varying slowest"},
    {.name = "zip", .kind = HS_OPT_FLAG, HS_OPT_AT(hs__sweep_opts_t, zip),
     .help = "pair the --vary lists instead (equal lengths)"},
    {.name = "set", .kind = HS_OPT_CUSTOM, .parse = hs__sweep_set,
     .valid = "KEY=VALUE", .metavar = "KEY=VALUE",
     .help = "set a key for every point"},
    {.name = "replay", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__sweep_opts_t, replay),
     .help = "replay every point, past the answer budget too\n"
             "(by default a point is replayed when that takes\n"
             "about a second or less, as predict does)"},
    {.name = "closed-only", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__sweep_opts_t, closed_only),
     .help = "replay no point: the closed forms only (the\n"
             "extended form is then the recommended figure)"},
    {.name = "output", .short_name = 'o', .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__sweep_opts_t, out), .metavar = "FILE",
     .help = "write FILE (.csv, .json, .h5/.hdf5 or .txt by its\n"
             "name, or --format), whole or not at all"},
    {.name = "format", .kind = HS_OPT_ENUM, HS_OPT_AT(hs__sweep_opts_t, fmt),
     .choices = hs__sweep_fmts, .values = hs__sweep_fmt_values,
     HS_OPT_SEEN_AT(hs__sweep_opts_t, have_fmt), .metavar = "F",
     .help = "table, csv, json or h5"},
    {.name = "json", .kind = HS_OPT_FLAG, HS_OPT_AT(hs__sweep_opts_t, json),
     .help = "print JSON on stdout instead of the table"},
    {.name = "csv", .kind = HS_OPT_FLAG, HS_OPT_AT(hs__sweep_opts_t, csv),
     .help = "print CSV on stdout instead of the table"},
    {.name = "progress", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__sweep_opts_t, progress),
     .help = "a progress bar on stderr (default: when stderr\n"
             "is a terminal)"},
    {.name = "no-progress", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__sweep_opts_t, no_progress), .help = "no progress bar"},
    {.name = "rank-timeout", .kind = HS_OPT_TIME,
     HS_OPT_AT(hs__sweep_opts_t, rank_timeout_ns), .i_lo = 1000000,
     .i_hi = INT64_MAX, .metavar = "D",
     .help = "under MPI: a rank that keeps one point longer\n"
             "than D ends the run (default 10min)"},
    HS_OPT_END};

static const hs_opt_cmd_t hs__sweep_cmd = {
    .name = "sweep",
    .usage =
        "usage: hetsim sweep [SCENARIO] --vary KEY=VALUES [--vary ...] [--zip]\n"
        "                    [--set KEY=VALUE ...] [--replay|--closed-only]\n"
        "                    [--steps K ...]\n"
        "                    [-o FILE] [--format F] [--json|--csv]\n"
        "                    [--progress|--no-progress] [--rank-timeout D]\n"
        "                    [--force]\n",
    .about =
        "Answers every point of a what-if sweep of SCENARIO (a YAML file;\n"
        "without it, the embedded default) as predict does: the step, epoch\n"
        "and total of every predictor (the source's closed form, the extended\n"
        "form, the replay where it takes about a second or less, or at every\n"
        "point with --replay) and the recommended one, the bottleneck device\n"
        "and link.  Keys, e.g.:\n"
        "  device_types.A100.count=50..200:50  device_types.MLU370.batch=64,128\n"
        "  network.default_bandwidth=1Gbps..100Gbps*2  network.latency=0us,5us\n"
        "  network.type_links.A100.MLU370=25Gbps,100Gbps  ring=listing,grouped\n"
        "  simulate.overlap=patent,buckets  devices.a0.compute_scale=1,1.5\n"
        "The replay options below are the same as --set simulate.steps=K etc.\n"
        "\n"
        "CSV columns (docs/output.md; a first '#' line names the format): one\n"
        "per varied key (its value), n_devices, predictor_recommended,\n"
        "{step,epoch,total}_{recommended,source,extended,replay}_ns (empty\n"
        "when unknown or not replayed), iters_per_epoch, bottleneck_device,\n"
        "bottleneck_bound, bottleneck_link, and error (empty when the point\n"
        "ran).  The same inputs give the same output, byte for byte.\n"
        "\n"
        "Under MPI (mpirun -n K hetsim sweep ..., or srun): rank 0 hands out\n"
        "points to ranks 1..K-1 as they ask and writes the one output, the\n"
        "same bytes as a serial run.  A rank that fails or hangs ends the run\n"
        "with an error and no output file.\n",
    .after =
        "exit status: 0 every point ran; 1 some points failed (their rows say\n"
        "why); 2 bad scenario, key or value; 3 I/O error; 4 an MPI rank\n"
        "failed or hung.\n",
    .pos_name = "SCENARIO",
    .max_pos = 1};

/* The progress bar (base/hs_progress.h): points done, rate and time
   left, redrawn at most ten times a second. */
static int hs__bar_draw(void *ctx, size_t done, size_t total)
{
    hs_progress_t *b = ctx;

    if (hs_progress_due(b, done == total))
        hs_progress_bar(b, stderr, done, total, "points", NULL);
    return 0;
}

/* The replay options given, as "simulate.KEY=VALUE" texts into buf
   (each one NUL-terminated, one after another); their count. */
static size_t hs__replay_sets(const hs_cli_replay_opts_t *r, char *buf,
                              size_t len, const char **out)
{
    size_t n = 0, used = 0;

#define HS__PUT(...)                                                       \
    do {                                                                   \
        int k = snprintf(buf + used, len - used, __VA_ARGS__);             \
        out[n++] = buf + used;                                             \
        used += (size_t)k + 1;                                             \
    } while (0)
    if (r->steps > 0)
        HS__PUT("simulate.steps=%u", (unsigned)r->steps);
    if (r->streams > 0)
        HS__PUT("simulate.streams=%u", (unsigned)r->streams);
    if (r->have_seed)
        HS__PUT("simulate.seed=%llu", (unsigned long long)r->seed);
    if (r->have_overlap)
        HS__PUT("simulate.overlap=%s", hs_overlap_name(r->overlap));
    if (r->have_send)
        HS__PUT("simulate.send=%s", hs_send_name(r->send));
    if (r->have_hop_wait)
        HS__PUT("simulate.hop_wait=%s", hs_hop_wait_name(r->hop_wait));
    if (r->stochastic)
        HS__PUT("simulate.stochastic=true");
#undef HS__PUT
    return n;
}

/* Refuses options that do not go together; the output file's format
   (*fmt, -1 for none) and stdout's (*stdout_fmt).  0, or the exit
   status of the usage error. */
static int hs__sweep_formats(const hs__sweep_opts_t *o, int *fmt,
                             int *stdout_fmt)
{
    if (o->n_vary == 0)
        return hs_cli_usage_error("sweep", "nothing to sweep: give at least "
                                           "one --vary KEY=VALUES");
    if (o->replay && o->closed_only)
        return hs_cli_usage_error("sweep", "--replay or --closed-only, "
                                           "not both");
    if (o->json && o->csv)
        return hs_cli_usage_error("sweep", "--json or --csv, not both");
    if (o->have_fmt)
        *fmt = o->fmt;
    if (o->out != NULL && *fmt < 0) {
        *fmt = hs_sweep_fmt_from_path(o->out);
        if (*fmt < 0)
            return hs_cli_usage_error("sweep",
                                      "-o %s: name it .csv, .json, .h5 or "
                                      ".txt, or give --format", o->out);
    }
    if (o->out == NULL && *fmt == HS_SWEEP_FMT_H5)
        return hs_cli_usage_error("sweep", "--format h5 needs -o FILE");
    if (o->json)
        *stdout_fmt = HS_SWEEP_FMT_JSON;
    if (o->csv)
        *stdout_fmt = HS_SWEEP_FMT_CSV;
    if (o->out == NULL && *fmt >= 0)
        *stdout_fmt = *fmt;
    return 0;
}

/* Loads the scenario (scn) and plans the sweep (*s, *sw, freed by the
   caller): the replay options' sets (rsets), --set, --zip, --force,
   --vary; the results (*res) on rank 0. */
static hs_err_t hs__sweep_plan(const hs__sweep_opts_t *o, int force,
                               const char *scn, const char **rsets,
                               size_t n_rsets, int rank, hs_scenario_t **s,
                               hs_sweep_t **sw, hs_sweep_results_t **res,
                               hs_error_t *err)
{
    size_t i;
    hs_err_t rc;

    rc = hs_cli_load_scenario(scn, s, err);
    if (rc == HS_OK)
        rc = hs_sweep_new(*s,
                          o->replay        ? HS_ANSWER_REPLAY_ALWAYS
                          : o->closed_only ? HS_ANSWER_REPLAY_NEVER
                                           : HS_ANSWER_REPLAY_AUTO,
                          sw, err);
    for (i = 0; rc == HS_OK && i < n_rsets; i++)
        rc = hs_sweep_set(*sw, rsets[i], err);
    for (i = 0; rc == HS_OK && i < o->n_set; i++)
        rc = hs_sweep_set(*sw, o->set[i], err);
    if (rc == HS_OK) {
        hs_sweep_set_zip(*sw, o->zip);
        hs_sweep_set_force(*sw, force);
    }
    for (i = 0; rc == HS_OK && i < o->n_vary; i++)
        rc = hs_sweep_vary(*sw, o->vary[i], err);
    if (rc == HS_OK)
        rc = hs_sweep_plan(*sw, err);
    if (rc == HS_OK && rank == 0)
        rc = hs_sweep_results_new(*sw, res, err);
    return rc;
}

/* Writes the results to -o's file (fmt) or prints them (stdout_fmt);
   the exit status: 1 when some points failed. */
static int hs__sweep_output(const hs__sweep_opts_t *o, int fmt,
                            int stdout_fmt, const hs_sweep_t *sw,
                            const hs_sweep_results_t *res,
                            hs_error_t *err)
{
    hs_err_t rc;
    int code = 0;

    if (o->out != NULL) {
        rc = hs_sweep_write(sw, res, (hs_sweep_fmt_t)fmt, o->out, err);
        if (rc != HS_OK)
            return hs_cli_fail(err);
        printf("wrote %s: %zu points, %zu failed\n", o->out, res->n_points,
               res->n_failed);
    } else {
        if (stdout_fmt == HS_SWEEP_FMT_CSV)
            rc = hs_sweep_write_csv(sw, res, stdout, err);
        else if (stdout_fmt == HS_SWEEP_FMT_JSON)
            rc = hs_sweep_write_json(sw, res, stdout, err);
        else
            rc = hs_sweep_print_table(sw, res, stdout, err);
        if (rc != HS_OK)
            return hs_cli_fail(err);
    }
    if (res->n_failed > 0) {
        fprintf(stderr, "hetsim sweep: %zu of %zu points failed (see the "
                        "error column)\n", res->n_failed, res->n_points);
        code = hs_err_exit_code(HS_ERR_PARTIAL);
    }
    if (code == 0)
        code = hs_cli_stdout_status();
    return code;
}

int hs_cli_sweep(int argc, char **argv)
{
    hs__sweep_opts_t o;
    hs_cli_replay_opts_t ro;
    hs_cli_force_t fo = {0};
    const hs_opt_group_t groups[] = {{hs__sweep_table, &o},
                                     {hs_cli_replay_table, &ro},
                                     {hs_cli_force_table, &fo}};
    const char *scn = NULL, *rsets[8];
    char rbuf[512];
    size_t n_pos = 0, n_rsets;
    int fmt = -1, stdout_fmt = HS_SWEEP_FMT_TABLE, code = 0;
    hs_scenario_t *s = NULL;
    hs_sweep_t *sw = NULL;
    hs_sweep_results_t *res = NULL;
    hs_sweep_mpi_t mpi = {0, 0, 1};
    hs_progress_t bar;
    hs_error_t err;
    hs_err_t rc;

    hs_error_clear(&err);
    memset(&o, 0, sizeof o);
    o.rank_timeout_ns = 600000000000LL;
    hs_cli_replay_opts_init(&ro);
    o.vary = calloc((size_t)argc + 1, sizeof *o.vary);
    o.set = calloc((size_t)argc + 1, sizeof *o.set);
    if (o.vary == NULL || o.set == NULL) {
        hs_error_setf(&err, HS_ERR_NOMEM, "out of memory");
        code = hs_cli_fail(&err);
        goto done;
    }
    if (!hs_cli_parse(&hs__sweep_cmd, groups, 3, argc, argv, &scn, 1,
                      &n_pos, &code)) {
        if (code == 0)
            printf("\nMPI: %s\n", hs_sweep_mpi_built()
                                       ? "built in"
                                       : "not built in (serial only)");
        goto done;
    }
    n_rsets = hs__replay_sets(&ro, rbuf, sizeof rbuf, rsets);
    if ((code = hs__sweep_formats(&o, &fmt, &stdout_fmt)) != 0)
        goto done;

    /* every rank parses, loads and plans the same sweep */
    if ((rc = hs_sweep_mpi_init(&mpi, &err)) != HS_OK) {
        code = hs_cli_fail(&err);
        goto done;
    }
    rc = hs__sweep_plan(&o, fo.force, scn, rsets, n_rsets, mpi.rank, &s, &sw,
                        &res, &err);
    if (rc != HS_OK) {
        code = mpi.rank == 0 ? hs_cli_fail(&err)
                             : hs_err_exit_code(err.code);
        goto done;
    }

    hs_progress_init(&bar, mpi.rank == 0 && !o.no_progress &&
                               (o.progress || isatty(STDERR_FILENO)),
                     0.1);
    rc = hs_sweep_mpi_run(&mpi, sw, res, o.rank_timeout_ns, hs__bar_draw,
                          &bar, &err);
    if (rc != HS_OK) {
        code = hs_cli_fail(&err);
        hs_sweep_mpi_abort(&mpi, code);
        goto done;
    }
    if (mpi.rank != 0)
        goto done;
    code = hs__sweep_output(&o, fmt, stdout_fmt, sw, res, &err);

done:
    hs_sweep_mpi_finalize(&mpi);
    hs_sweep_results_free(res);
    hs_sweep_free(sw);
    hs_scenario_free(s);
    free(o.set);
    free(o.vary);
    return code;
}
