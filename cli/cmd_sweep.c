/*
 * cmd_sweep.c -- `hetsim sweep [SCENARIO] --vary KEY=VALUES ...`: the
 * closed form (and optionally the replay) over the product or zip of
 * varied scenario keys (model/hs_sweep.h), written as a table, CSV, JSON
 * or HDF5 (traces/hs_sweep_out.h); under mpirun the points are spread over
 * the ranks (hs_sweep_mpi.h) and rank 0 writes the same output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hs_cli.h"
#include "hs_scenario.h"
#include "hs_sweep.h"
#include "hs_sweep_mpi.h"
#include "hs_sweep_out.h"
#include "hs_units.h"

static const char hs__sweep_help[] =
    "usage: hetsim sweep [SCENARIO] --vary KEY=VALUES [--vary ...] [--zip]\n"
    "                    [--set KEY=VALUE ...] [--replay] [replay options]\n"
    "                    [-o FILE] [--format table|csv|json|h5] [--json]\n"
    "                    [--csv] [--progress|--no-progress]\n"
    "                    [--rank-timeout DURATION]\n\n"
    "Runs the closed form (the source's step and the extended step, epoch,\n"
    "total, bottleneck device and link) at every point of a what-if sweep\n"
    "of SCENARIO (a YAML file; without it, the embedded default), and with\n"
    "--replay also the replay (its steady step and the difference to the\n"
    "closed form).\n\n"
    "  --vary KEY=VALUES  vary a scenario key, e.g.\n"
    "                     device_types.A100.count=50..200:50\n"
    "                     device_types.MLU370.batch=64,128,256\n"
    "                     network.default_bandwidth=1Gbps..100Gbps*2\n"
    "                     network.type_links.A100.MLU370=25Gbps,100Gbps\n"
    "                     network.latency=0us,5us   ring=listing,grouped\n"
    "                     simulate.overlap=patent,buckets\n"
    "                     VALUES: a comma-separated list of values,\n"
    "                     arithmetic ranges A..B:STEP and geometric ranges\n"
    "                     A..B*FACTOR, in the key's unit; a ring list is\n"
    "                     one value: ring=grouped,[a0, m0, a1, m1]\n"
    "                     Several --vary make the product, the first one\n"
    "                     varying slowest.\n"
    "  --zip              pair the --vary lists instead (equal lengths)\n"
    "  --set KEY=VALUE    set a key for every point\n"
    "  --replay           also replay every point\n"
    "  --steps K, --seed S, --overlap MODE, --send MODE, --streams K,\n"
    "  --stochastic       replay options, as `hetsim simulate` (the same as\n"
    "                     --set simulate.steps=K, ...)\n"
    "  -o FILE            write FILE: .csv, .json, .h5 (or .hdf5) or .txt\n"
    "                     by its name, or --format; written whole or not at\n"
    "                     all\n"
    "  --format F         table, csv, json or h5\n"
    "  --json, --csv      print JSON or CSV on stdout instead of the table\n"
    "  --progress         a progress bar on stderr (default: when stderr\n"
    "                     is a terminal); --no-progress: none\n"
    "  --rank-timeout D   under MPI: a rank that keeps one point longer\n"
    "                     than D (e.g. 10min, the default) ends the run\n"
    "  --help             this text\n\n"
    "CSV columns: one per varied key (its value), n_devices, step_ns,\n"
    "step_ext_ns, iters_per_epoch, epoch_ns, total_ns, bottleneck_device,\n"
    "bottleneck_bound, bottleneck_link, with --replay replay_step_ns,\n"
    "replay_epoch_ns, replay_total_ns, replay_diff_ns (replay - closed),\n"
    "and error (empty when the point ran).  The same inputs give the same\n"
    "output, byte for byte.\n\n"
    "Under MPI (mpirun -n K hetsim sweep ..., or srun): rank 0 hands out\n"
    "points to ranks 1..K-1 as they ask and writes the one output, the\n"
    "same bytes as a serial run.  A rank that fails or hangs ends the run\n"
    "with an error and no output file.\n\n"
    "exit status: 0 every point ran; 1 some points failed (their rows say\n"
    "why); 2 bad scenario, key or value; 3 I/O error; 4 an MPI rank\n"
    "failed or hung.\n";

/* The progress bar: points done, rate and time left, redrawn at most ten
   times a second. */
typedef struct hs__bar_s {
    int on;
    struct timespec t0;
    double last_s;
} hs__bar_t;

static double hs__since(const struct timespec *t0)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) +
           (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int hs__bar_draw(void *ctx, size_t done, size_t total)
{
    hs__bar_t *b = ctx;
    double s = hs__since(&b->t0), rate, left;
    char bar[31];
    size_t i, fill;

    if (!b->on || (done < total && s - b->last_s < 0.1))
        return 0;
    b->last_s = s;
    rate = s > 0 ? (double)done / s : 0;
    left = rate > 0 ? (double)(total - done) / rate : 0;
    fill = total ? done * 30 / total : 30;
    for (i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r[%s] %zu/%zu points  %.1f points/s  %d:%02d left ",
            bar, done, total, rate, (int)(left / 60), (int)left % 60);
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
    return 0;
}

/* A replay option as a --set (KEY=VALUE into buf); 0, or -1 when argv[*i]
   is not one, -2 when its value is missing. */
static int hs__replay_set(int argc, char **argv, int *i, char *buf,
                          size_t len)
{
    static const char *const opts[][2] = {
        {"--steps", "simulate.steps"}, {"--seed", "simulate.seed"},
        {"--overlap", "simulate.overlap"}, {"--send", "simulate.send"},
        {"--streams", "simulate.streams"}, {NULL, NULL}};
    int k;

    if (strcmp(argv[*i], "--stochastic") == 0) {
        snprintf(buf, len, "simulate.stochastic=true");
        return 0;
    }
    for (k = 0; opts[k][0] != NULL; k++) {
        if (strcmp(argv[*i], opts[k][0]) != 0)
            continue;
        if (*i + 1 >= argc)
            return -2;
        snprintf(buf, len, "%s=%s", opts[k][1], argv[++*i]);
        return 0;
    }
    return -1;
}

int hs_cli_sweep(int argc, char **argv)
{
    const char *scn = NULL, *out = NULL;
    int fmt = -1, stdout_fmt = HS_SWEEP_FMT_TABLE, zip = 0, replay = 0;
    int progress = -1, i, n_vary = 0, n_set = 0, code = 0;
    int64_t timeout_ns = 600000000000LL;
    const char **vary = calloc((size_t)argc + 1, sizeof *vary);
    char **sets = calloc((size_t)argc + 1, sizeof *sets);
    hs_scenario_t *s = NULL;
    hs_sweep_t *sw = NULL;
    hs_sweep_results_t *res = NULL;
    hs_sweep_mpi_t mpi = {0, 0, 1};
    hs__bar_t bar;
    hs_error_t err;
    hs_err_t rc;

    hs_error_clear(&err);
    if (vary == NULL || sets == NULL) {
        free(vary);
        free(sets);
        hs_error_setf(&err, HS_ERR_NOMEM, "out of memory");
        return hs_cli_fail(&err);
    }
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        char kv[1100];
        int r;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(hs__sweep_help, stdout);
            printf("\nMPI: %s\n", hs_sweep_mpi_built()
                                      ? "built in"
                                      : "not built in (serial only)");
            code = -1;
            goto done;
        }
        if ((r = hs__replay_set(argc, argv, &i, kv, sizeof kv)) != -1) {
            if (r == -2) {
                code = hs_cli_usage_error("sweep", "%s needs a value", a);
                goto done;
            }
            if ((sets[n_set] = strdup(kv)) == NULL) {
                hs_error_setf(&err, HS_ERR_NOMEM, "out of memory");
                code = hs_cli_fail(&err);
                goto done;
            }
            n_set++;
            continue;
        }
        if (strcmp(a, "--zip") == 0) {
            zip = 1;
        } else if (strcmp(a, "--replay") == 0) {
            replay = 1;
        } else if (strcmp(a, "--json") == 0) {
            stdout_fmt = HS_SWEEP_FMT_JSON;
        } else if (strcmp(a, "--csv") == 0) {
            stdout_fmt = HS_SWEEP_FMT_CSV;
        } else if (strcmp(a, "--progress") == 0) {
            progress = 1;
        } else if (strcmp(a, "--no-progress") == 0) {
            progress = 0;
        } else if (strcmp(a, "--vary") == 0 || strcmp(a, "--set") == 0 ||
                   strcmp(a, "-o") == 0 || strcmp(a, "--format") == 0 ||
                   strcmp(a, "--rank-timeout") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : NULL;
            if (v == NULL) {
                code = hs_cli_usage_error("sweep", "%s needs a value", a);
                goto done;
            }
            if (strcmp(a, "--vary") == 0) {
                vary[n_vary++] = v;
            } else if (strcmp(a, "--set") == 0) {
                if ((sets[n_set++] = strdup(v)) == NULL) {
                    hs_error_setf(&err, HS_ERR_NOMEM, "out of memory");
                    code = hs_cli_fail(&err);
                    goto done;
                }
            } else if (strcmp(a, "-o") == 0) {
                out = v;
            } else if (strcmp(a, "--rank-timeout") == 0) {
                if (hs_parse_time_ns(v, &timeout_ns) != 0) {
                    code = hs_cli_usage_error("sweep",
                                              "--rank-timeout: '%s' is not "
                                              "a duration (e.g. 10min)", v);
                    goto done;
                }
            } else {
                fmt = strcmp(v, "table") == 0  ? HS_SWEEP_FMT_TABLE
                      : strcmp(v, "csv") == 0  ? HS_SWEEP_FMT_CSV
                      : strcmp(v, "json") == 0 ? HS_SWEEP_FMT_JSON
                      : strcmp(v, "h5") == 0   ? HS_SWEEP_FMT_H5
                                               : -2;
                if (fmt == -2) {
                    code = hs_cli_usage_error("sweep",
                                              "--format: '%s' is not table, "
                                              "csv, json or h5", v);
                    goto done;
                }
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            code = hs_cli_usage_error("sweep", "unknown option '%s'", a);
            goto done;
        } else if (scn == NULL) {
            scn = a;
        } else {
            code = hs_cli_usage_error("sweep", "one scenario only ('%s')",
                                      a);
            goto done;
        }
    }
    if (n_vary == 0) {
        code = hs_cli_usage_error("sweep", "nothing to sweep: give at least "
                                           "one --vary KEY=VALUES");
        goto done;
    }
    if (out != NULL && fmt < 0) {
        fmt = hs_sweep_fmt_from_path(out);
        if (fmt < 0) {
            code = hs_cli_usage_error("sweep",
                                      "-o %s: name it .csv, .json, .h5 or "
                                      ".txt, or give --format", out);
            goto done;
        }
    }
    if (out == NULL && fmt == HS_SWEEP_FMT_H5) {
        code = hs_cli_usage_error("sweep", "--format h5 needs -o FILE");
        goto done;
    }
    if (out == NULL && fmt >= 0)
        stdout_fmt = fmt;

    /* every rank parses, loads and plans the same sweep */
    if ((rc = hs_sweep_mpi_init(&mpi, &err)) != HS_OK) {
        code = hs_cli_fail(&err);
        goto done;
    }
    rc = hs_cli_load_scenario(scn, &s, &err);
    if (rc == HS_OK)
        rc = hs_sweep_new(s, replay, &sw, &err);
    for (i = 0; rc == HS_OK && i < n_set; i++)
        rc = hs_sweep_set(sw, sets[i], &err);
    hs_sweep_set_zip(sw, zip);
    for (i = 0; rc == HS_OK && i < n_vary; i++)
        rc = hs_sweep_vary(sw, vary[i], &err);
    if (rc == HS_OK)
        rc = hs_sweep_plan(sw, &err);
    if (rc == HS_OK && mpi.rank == 0)
        rc = hs_sweep_results_new(sw, &res, &err);
    if (rc != HS_OK) {
        code = mpi.rank == 0 ? hs_cli_fail(&err)
                             : hs_err_exit_code(err.code);
        goto done;
    }

    memset(&bar, 0, sizeof bar);
    bar.on = mpi.rank == 0 &&
             (progress == 1 || (progress < 0 && isatty(STDERR_FILENO)));
    clock_gettime(CLOCK_MONOTONIC, &bar.t0);
    rc = hs_sweep_mpi_run(&mpi, sw, res, timeout_ns, hs__bar_draw, &bar,
                          &err);
    if (rc != HS_OK) {
        code = hs_cli_fail(&err);
        hs_sweep_mpi_abort(&mpi, code);
        goto done;
    }
    if (mpi.rank != 0)
        goto done;

    if (out != NULL) {
        rc = hs_sweep_write(sw, res, (hs_sweep_fmt_t)fmt, out, &err);
        if (rc != HS_OK) {
            code = hs_cli_fail(&err);
            goto done;
        }
        printf("wrote %s: %zu points, %zu failed\n", out, res->n_points,
               res->n_failed);
    } else {
        if (stdout_fmt == HS_SWEEP_FMT_CSV)
            rc = hs_sweep_write_csv(sw, res, stdout, &err);
        else if (stdout_fmt == HS_SWEEP_FMT_JSON)
            rc = hs_sweep_write_json(sw, res, stdout, &err);
        else
            rc = hs_sweep_print_table(sw, res, stdout, &err);
        if (rc != HS_OK) {
            code = hs_cli_fail(&err);
            goto done;
        }
    }
    if (res->n_failed > 0) {
        fprintf(stderr, "hetsim sweep: %zu of %zu points failed (see the "
                        "error column)\n", res->n_failed, res->n_points);
        code = 1;
    }

done:
    hs_sweep_mpi_finalize(&mpi);
    hs_sweep_results_free(res);
    hs_sweep_free(sw);
    hs_scenario_free(s);
    for (i = 0; i < n_set; i++)
        free(sets[i]);
    free(sets);
    free(vary);
    return code < 0 ? 0 : code;
}
