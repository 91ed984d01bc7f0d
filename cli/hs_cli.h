/*
 * hs_cli.h -- the command-line tool's subcommands.  The tool is a thin
 * client of the library: each command declares its options as a table
 * (hs_opt.h) that hs_cli_parse reads argv with, calls the library and
 * prints.  Each returns the process exit status, always through
 * hs_err_exit_code (usage errors are HS_ERR_USAGE: 2).
 */
#ifndef HS_CLI_H
#define HS_CLI_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "hs_answer.h"
#include "hs_error.h"
#include "hs_opt.h"
#include "hs_replay.h"
#include "hs_scenario.h"

int hs_cli_predict(int argc, char **argv);
int hs_cli_simulate(int argc, char **argv);
int hs_cli_validate(int argc, char **argv);
int hs_cli_ingest(int argc, char **argv);
int hs_cli_profile(int argc, char **argv);
int hs_cli_measure_bw(int argc, char **argv);
int hs_cli_plot(int argc, char **argv);
int hs_cli_sweep(int argc, char **argv);
int hs_cli_advise(int argc, char **argv);

/* Prints "hetsim: <msg>" for err on stderr and returns its exit status. */
int hs_cli_fail(const hs_error_t *err);

/* Prints "hetsim CMD: msg" and the hint to use --help; returns
   hs_err_exit_code(HS_ERR_USAGE). */
int hs_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Parses a command's options with hs_opt_parse (see hs_opt.h).  Returns 1
 * when the command goes on; 0 when it must return *exit_code at once:
 * after --help (the help printed on stdout, 0) or a usage error (printed
 * on stderr as by hs_cli_usage_error, hs_err_exit_code(HS_ERR_USAGE)).
 */
int hs_cli_parse(const hs_opt_cmd_t *cmd, const hs_opt_group_t *groups,
                 size_t n_groups, int argc, char **argv, const char **pos,
                 size_t pos_cap, size_t *n_pos, int *exit_code);

/* The exit status when writing stdout failed (3), else 0: flushes it. */
int hs_cli_stdout_status(void);

/*
 * Loads the scenario at path, the embedded default when path is NULL, or
 * the YAML read from standard input when path is "-": it is named
 * "<stdin>" in errors ("<stdin>:3:5: ...") and in outputs, and relative
 * paths inside it (profiles, links_csv) resolve against the current
 * directory.
 */
hs_err_t hs_cli_load_scenario(const char *path, hs_scenario_t **out,
                              hs_error_t *err);

/* JSON output, written with yajl's generator: a beautified generator,
   keys and values, and the final print to stdout (frees g). */
yajl_gen hs_cli_json_new(void);
void hs_cli_js(yajl_gen g, const char *str);
void hs_cli_kv_i64(yajl_gen g, const char *key, int64_t v);
void hs_cli_kv_str(yajl_gen g, const char *key, const char *v); /* NULL: null */
void hs_cli_kv_dbl(yajl_gen g, const char *key, double v);
/* "key": [the scenario's load warnings, then extra[0..n_extra)] */
void hs_cli_kv_notes(yajl_gen g, const char *key, const hs_scenario_t *s,
                     char *const *extra, size_t n_extra);
void hs_cli_json_print(yajl_gen g);

/* Prints "notes:" and one "  - " line per scenario warning and extra[i];
   nothing when there are none. */
void hs_cli_print_notes(const hs_scenario_t *s, char *const *extra,
                        size_t n_extra);

/* 100 (value - ref) / ref, 0 when ref is 0. */
double hs_cli_pct(int64_t value, int64_t ref);

/* Options that override a scenario's simulate: section, shared by
   simulate and validate: --steps K (2..1e8), --seed S, --overlap MODE,
   --send MODE, --streams K, --stochastic. */
typedef struct hs_cli_replay_opts_s {
    uint32_t steps;         /* 0: the scenario's */
    uint32_t streams;       /* 0: the scenario's */
    int have_seed, stochastic, have_overlap, have_send, have_hop_wait;
    uint64_t seed;
    hs_overlap_t overlap;
    hs_send_t send;
    hs_hop_wait_t hop_wait;
    int engine;             /* 1: --engine events */
} hs_cli_replay_opts_t;

void hs_cli_replay_opts_init(hs_cli_replay_opts_t *o);

/* Those options as a table fragment for hs_opt_parse: a group
   {hs_cli_replay_table, &opts} fills an hs_cli_replay_opts_t. */
extern const hs_opt_t hs_cli_replay_table[];

/* Fills *out with s's simulate: section, then the options given over it;
   s is not changed (out->stragglers points into it). */
void hs_cli_replay_apply(const hs_cli_replay_opts_t *o,
                         const hs_scenario_t *s, hs_replay_opts_t *out);

/* --force, shared by the commands that replay: a group
   {hs_cli_force_table, &force} fills an hs_cli_force_t. */
typedef struct hs_cli_force_s {
    int force;              /* replay beyond the budgets */
} hs_cli_force_t;

extern const hs_opt_t hs_cli_force_table[];

/*
 * Where err's message names the key "simulate.steps" and the steps came
 * from --steps (steps_opt > 0), says "--steps K" instead: the user typed
 * the option, not the key.  Does nothing otherwise.
 */
void hs_cli_blame_steps(hs_error_t *err, uint32_t steps_opt);

/*
 * The check every command runs before it replays s with opts: the budgets
 * of hs_scenario_check_budget (events, state memory; skipped when force),
 * the message blamed on --steps when ro gave the steps.  Sets
 * opts->force from force (hs_replay_run checks the same budgets unless
 * forced).  HS_OK when the replay may start; else HS_ERR_RANGE with the
 * estimate in err.
 */
hs_err_t hs_cli_replay_check(const hs_scenario_t *s, hs_replay_opts_t *opts,
                             const hs_cli_replay_opts_t *ro, int force,
                             hs_error_t *err);

/* ---- answers (hs_cli_answer.c) --------------------------------------- */

/* The version of every JSON, CSV and HDF5 output's field names
   (docs/output.md); raised when a name changes meaning or goes away. */
#define HS_CLI_FORMAT_VERSION 2

/* "format": format, "format_version", "hetsim_version": what every JSON
   document starts with (format e.g. "hetsim.predict"). */
void hs_cli_json_head(yajl_gen g, const char *format);

/* The answer's figures under their one name each (docs/output.md):
   predictor_recommended, predictor_why, {step,epoch,total}_{recommended,
   source,extended,replay}_ns (null when unknown or not run),
   iters_per_epoch, epochs. */
void hs_cli_kv_answer(yajl_gen g, const hs_answer_t *a);

/* Prints the training time by the recommended predictor, why, and a
   table of every predictor (the recommended one first). */
void hs_cli_print_answer(const hs_answer_t *a);

#endif
