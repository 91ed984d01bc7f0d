/*
 * hs_main.c -- `hetsim`, the command-line client: dispatches subcommands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hs_cli.h"
#include "hs_signal.h"
#include "hs_suggest.h"

typedef struct hs__cmd_s {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} hs__cmd_t;

static const hs__cmd_t hs__cmds[] = {
    {"predict", hs_cli_predict,
     "closed-form step, epoch and total time of a scenario"},
    {"simulate", hs_cli_simulate,
     "replay every step per device along the ring (discrete events)"},
    {"validate", hs_cli_validate,
     "compare the closed form with the replay, per type and cluster"},
    {"ingest", hs_cli_ingest,
     "turn PyTorch profiler traces into a per-type profile"},
    {"profile", hs_cli_profile,
     "train the model on 2-device sub-systems under the profiler"},
    {"measure-bw", hs_cli_measure_bw,
     "measure ring-link bandwidths with iperf3"},
    {"plot", hs_cli_plot, "plot step timelines from an HDF5 trace"},
    {"sweep", hs_cli_sweep,
     "what-if sweeps: the closed form (and replay) over varied keys"},
    {"advise", hs_cli_advise,
     "recommend a ring order, per-type batches or a device mix"},
    {NULL, NULL, NULL}};

static void hs__usage(FILE *f)
{
    int i;

    fprintf(f,
            "usage: hetsim [--help] [--version] COMMAND [ARGS]\n\n"
            "Predicts how long a neural network takes to train on a\n"
            "heterogeneous data-parallel ring cluster.\n\ncommands:\n");
    for (i = 0; hs__cmds[i].name != NULL; i++)
        fprintf(f, "  %-11s %s\n", hs__cmds[i].name, hs__cmds[i].summary);
    fprintf(f,
            "\n`hetsim COMMAND --help` describes a command.  Without a\n"
            "SCENARIO argument, commands use the embedded default (the\n"
            "source's 100 MLU370 + 100 A100 ResNet-50 example); a\n"
            "SCENARIO of - reads the YAML from standard input.\n\n"
            "exit status: 0 success; 1 validation beyond tolerance, some\n"
            "sweep points failed, or an internal failure; 2 bad input\n"
            "(usage, YAML, schema, units, network description, trace);\n"
            "3 I/O error; 4 an external program, host, profiling or MPI\n"
            "rank failed.\n");
}

int hs_cli_fail(const hs_error_t *err)
{
    fprintf(stderr, "hetsim: %s\n", err->msg[0] ? err->msg :
            hs_err_name(err->code));
    return hs_err_exit_code(err->code);
}

int hs_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "hetsim %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see `hetsim %s --help`)\n", cmd);
    return hs_err_exit_code(HS_ERR_USAGE);
}

int hs_cli_parse(const hs_opt_cmd_t *cmd, const hs_opt_group_t *groups,
                 size_t n_groups, int argc, char **argv, const char **pos,
                 size_t pos_cap, size_t *n_pos, int *exit_code)
{
    hs_error_t err;
    int help = 0;

    hs_error_clear(&err);
    if (hs_opt_parse(cmd, groups, n_groups, argc, argv, pos, pos_cap, n_pos,
                     &help, &err) != HS_OK) {
        *exit_code = hs_cli_usage_error(cmd->name, "%s", err.msg);
        return 0;
    }
    if (help) {
        hs_opt_help(cmd, groups, n_groups, stdout);
        *exit_code = hs_cli_stdout_status();
        return 0;
    }
    return 1;
}

int hs_cli_stdout_status(void)
{
    return fflush(stdout) == 0 && !ferror(stdout)
               ? hs_err_exit_code(HS_OK)
               : hs_err_exit_code(HS_ERR_IO);
}

int main(int argc, char **argv)
{
    int i;

    if (argc < 2) {
        hs__usage(stderr);
        return hs_err_exit_code(HS_ERR_USAGE);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        hs__usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("hetsim %s\n", HS_VERSION);
        return 0;
    }
    for (i = 0; hs__cmds[i].name != NULL; i++) {
        if (strcmp(argv[1], hs__cmds[i].name) == 0) {
            hs_error_t err;
            /* ^C or SIGTERM: no temporary file, no child outlives us */
            if (hs_signal_install(&err) != HS_OK)
                return hs_cli_fail(&err);
            return hs__cmds[i].run(argc - 1, argv + 1);
        }
    }
    {
        char hint[HS_SUGGEST_HINT_LEN];
        hs_suggest_t sg;

        hs_suggest_init(&sg, argv[1]);
        for (i = 0; hs__cmds[i].name != NULL; i++)
            hs_suggest_add(&sg, hs__cmds[i].name);
        hs_suggest_add(&sg, "--help");
        hs_suggest_add(&sg, "--version");
        fprintf(stderr, "hetsim: unknown command '%s'%s (see hetsim --help)\n",
                argv[1], hs_suggest_hint(&sg, hint, sizeof hint));
    }
    return hs_err_exit_code(HS_ERR_USAGE);
}
