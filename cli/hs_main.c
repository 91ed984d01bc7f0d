/*
 * hs_main.c -- `hetsim`, the command-line client: dispatches subcommands.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* The tool's description and exit statuses: --help and hetsim(1). */
static const char hs__about[] =
    "Predicts how long a neural network takes to train on a\n"
    "heterogeneous data-parallel ring cluster.\n";
static const char hs__more[] =
    "`hetsim COMMAND --help` describes a command.  Without a\n"
    "SCENARIO argument, commands use the embedded default (the\n"
    "source's 100 MLU370 + 100 A100 ResNet-50 example); a\n"
    "SCENARIO of - reads the YAML from standard input.\n";
static const char hs__exit[] =
    "0 success; 1 validation beyond tolerance, some\n"
    "sweep points failed, or an internal failure; 2 bad input\n"
    "(usage, YAML, schema, units, network description, trace);\n"
    "3 I/O error; 4 an external program, host, profiling or MPI\n"
    "rank failed.\n";

static void hs__usage(FILE *f)
{
    int i;

    fprintf(f, "usage: hetsim [--help] [--version] COMMAND [ARGS]\n\n%s\n"
            "commands:\n", hs__about);
    for (i = 0; hs__cmds[i].name != NULL; i++)
        fprintf(f, "  %-11s %s\n", hs__cmds[i].name, hs__cmds[i].summary);
    fprintf(f, "\n%s\nexit status: %s", hs__more, hs__exit);
}

/*
 * The hidden modes that write the documentation from the option tables
 * (the build runs them; cmake/hs_gen_docs.cmake):
 *   hetsim --help-man          the manual page hetsim(1)
 *   hetsim --help-man CMD      hetsim-CMD(1)
 *   hetsim --completion bash   the bash completion script
 *   hetsim --list-commands     the command names, one per line
 * A command's page and completion arm are written by its own
 * hs_cli_parse call (the command run with no arguments), which then
 * returns at once: hs__gen says what to write and where.
 */
enum { HS__GEN_NONE = 0, HS__GEN_MAN, HS__GEN_BASH };
static struct {
    int mode;
    const char *summary;    /* the command's, for its page's NAME */
    FILE *out;
} hs__gen;

/* hetsim(1): the commands, exit status, environment and files. */
static void hs__man_main(FILE *f)
{
    int i;

    hs_opt_man_head(f, "hetsim", HS_VERSION);
    fputs(".SH NAME\nhetsim \\- predict the training time of a neural "
          "network on a heterogeneous ring cluster\n"
          ".SH SYNOPSIS\n.B hetsim\n[\\fB\\-\\-help\\fR] "
          "[\\fB\\-\\-version\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n"
          ".SH DESCRIPTION\n", f);
    hs_opt_man_text(f, hs__about);
    fputs(".PP\n", f);
    hs_opt_man_text(f, hs__more);
    fputs(".SH COMMANDS\n", f);
    for (i = 0; hs__cmds[i].name != NULL; i++) {
        fprintf(f, ".TP\n.BR hetsim\\-%s (1)\n", hs__cmds[i].name);
        hs_opt_man_text(f, hs__cmds[i].summary);
    }
    fputs(".SH \"EXIT STATUS\"\n", f);
    hs_opt_man_text(f, hs__exit);
    fputs(".SH ENVIRONMENT\n"
          ".TP\n.B HETSIM_DATADIR\n"
          "hetsim's data directory (the gnuplot scripts, the example "
          "scenarios and models, the profiling harness).  Default: "
          "\\fIshare/hetsim\\fR beside the program or the library "
          "(\\fIPREFIX/bin/../share/hetsim\\fR), else the build tree's "
          "link to the source tree, else the install prefix's.\n"
          ".TP\n.B HETSIM_GNUPLOT\nthe gnuplot program of "
          "\\fBhetsim plot\\fR (default: gnuplot).\n"
          ".TP\n.B HETSIM_PLOTS_DIR\nwhere \\fBhetsim plot\\fR finds its "
          "gnuplot scripts (default: \\fIplots/\\fR of the data "
          "directory).\n"
          ".SH FILES\n"
          ".TP\n.I PREFIX/share/hetsim/plots/\n"
          "the gnuplot scripts of \\fBhetsim plot\\fR.\n"
          ".TP\n.I PREFIX/share/hetsim/scenarios/\n"
          "example scenarios (\\fIdefault.yaml\\fR is the embedded "
          "default) and, in \\fImodels/\\fR, the PyTorch models of the "
          "live ones.\n"
          ".TP\n.I PREFIX/share/hetsim/live/harness/hetsim_harness.py\n"
          "the harness each rank of \\fBhetsim profile\\fR runs.\n"
          ".SH \"SEE ALSO\"\n", f);
    for (i = 0; hs__cmds[i].name != NULL; i++)
        fprintf(f, ".BR hetsim\\-%s (1)%s\n", hs__cmds[i].name,
                hs__cmds[i + 1].name != NULL ? "," : "");
}

/* The bash completion script: one arm per command (hs_opt_complete_bash). */
static void hs__bash_head(FILE *f)
{
    int i;

    fputs("# bash completion for hetsim(1).  Generated by "
          "`hetsim --completion bash`\n"
          "# from the option tables of --help: do not edit.\n\n"
          "_hetsim_files()\n{\n"
          "    compopt -o filenames 2>/dev/null\n"
          "    COMPREPLY=($(compgen -f -- \"$cur\"))\n}\n\n"
          "_hetsim()\n{\n"
          "    local cur prev cmd opts\n"
          "    COMPREPLY=()\n"
          "    cur=${COMP_WORDS[COMP_CWORD]}\n"
          "    prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    # --name=VALUE: bash splits at '='\n"
          "    if [ \"$cur\" = = ]; then\n"
          "        prev=${COMP_WORDS[COMP_CWORD-1]}; cur=\n"
          "    elif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
          "        prev=${COMP_WORDS[COMP_CWORD-2]}\n"
          "    fi\n"
          "    if [ \"$COMP_CWORD\" -le 1 ]; then\n"
          "        COMPREPLY=($(compgen -W '", f);
    for (i = 0; hs__cmds[i].name != NULL; i++)
        fprintf(f, "%s ", hs__cmds[i].name);
    fputs("--help --version' -- \"$cur\"))\n"
          "        return\n    fi\n"
          "    cmd=${COMP_WORDS[1]}\n"
          "    case $cmd in\n", f);
}

static void hs__bash_tail(FILE *f)
{
    fputs("    *) return ;;\n"
          "    esac\n"
          "    case $cur in\n"
          "    -*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")) ;;\n"
          "    *) _hetsim_files ;;\n"
          "    esac\n"
          "}\n"
          "complete -F _hetsim hetsim\n", f);
}

/*
 * Runs a hidden mode (argv[1] is --help-man, --completion or
 * --list-commands): writes to stdout what it makes, while stdout itself
 * goes to /dev/null for the commands (a command may print more after its
 * help, e.g. sweep's "MPI: built in").  The exit status.
 */
static int hs__gen_run(int argc, char **argv)
{
    char *cargv[3];
    FILE *out;
    int fd, i, found = 0, rc;

    if (strcmp(argv[1], "--list-commands") == 0) {
        for (i = 0; hs__cmds[i].name != NULL; i++)
            printf("%s\n", hs__cmds[i].name);
        return hs_cli_stdout_status();
    }
    if (strcmp(argv[1], "--completion") == 0
        && (argc != 3 || strcmp(argv[2], "bash") != 0)) {
        fprintf(stderr, "hetsim: --completion: only bash\n");
        return hs_err_exit_code(HS_ERR_USAGE);
    }
    if (argc > 3) {
        fprintf(stderr, "hetsim: --help-man [COMMAND]\n");
        return hs_err_exit_code(HS_ERR_USAGE);
    }
    fflush(stdout);
    fd = dup(STDOUT_FILENO);
    out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (out == NULL || freopen("/dev/null", "w", stdout) == NULL) {
        fprintf(stderr, "hetsim: cannot write the output: %s\n",
                strerror(errno));
        if (out != NULL)
            fclose(out);
        return hs_err_exit_code(HS_ERR_IO);
    }
    hs__gen.out = out;
    hs__gen.mode = strcmp(argv[1], "--help-man") == 0 ? HS__GEN_MAN
                                                      : HS__GEN_BASH;
    if (hs__gen.mode == HS__GEN_MAN && argc == 2) {
        hs__man_main(out);
        found = 1;
    }
    if (hs__gen.mode == HS__GEN_BASH)
        hs__bash_head(out);
    for (i = 0; hs__cmds[i].name != NULL; i++) {
        if (hs__gen.mode == HS__GEN_MAN
            && (argc == 2 || strcmp(argv[2], hs__cmds[i].name) != 0))
            continue;
        found = 1;
        hs__gen.summary = hs__cmds[i].summary;
        cargv[0] = (char *)hs__cmds[i].name;
        cargv[1] = NULL;
        hs__cmds[i].run(1, cargv);
    }
    if (hs__gen.mode == HS__GEN_BASH)
        hs__bash_tail(out);
    rc = fflush(out) == 0 && !ferror(out) ? 0 : hs_err_exit_code(HS_ERR_IO);
    if (fclose(out) != 0)
        rc = hs_err_exit_code(HS_ERR_IO);
    if (!found) {
        fprintf(stderr, "hetsim: --help-man: unknown command '%s'\n",
                argv[2]);
        return hs_err_exit_code(HS_ERR_USAGE);
    }
    return rc;
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

    /* a hidden mode (hs__gen_run): the page or completion, no parsing */
    if (hs__gen.mode == HS__GEN_MAN) {
        hs_opt_man(cmd, hs__gen.summary, HS_VERSION, groups, n_groups,
                   hs__gen.out);
        *exit_code = 0;
        return 0;
    }
    if (hs__gen.mode == HS__GEN_BASH) {
        hs_opt_complete_bash(cmd, groups, n_groups, hs__gen.out);
        *exit_code = 0;
        return 0;
    }
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
    if (strcmp(argv[1], "--help-man") == 0
        || strcmp(argv[1], "--completion") == 0
        || strcmp(argv[1], "--list-commands") == 0)
        return hs__gen_run(argc, argv);
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
