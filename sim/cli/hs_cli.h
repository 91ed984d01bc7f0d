/*
 * hs_cli.h -- the command-line tool's subcommands.  The tool is a thin
 * client of the library: each command parses its options, calls the library
 * and prints.  Each returns the process exit status (see hs_err_exit_code).
 */
#ifndef HS_CLI_H
#define HS_CLI_H

#include <stdio.h>

#include "hs_error.h"

int hs_cli_predict(int argc, char **argv);
int hs_cli_simulate(int argc, char **argv);
int hs_cli_validate(int argc, char **argv);
int hs_cli_ingest(int argc, char **argv);
int hs_cli_profile(int argc, char **argv);
int hs_cli_measure_bw(int argc, char **argv);
int hs_cli_plot(int argc, char **argv);

/* Prints "hetsim: <msg>" for err on stderr and returns its exit status. */
int hs_cli_fail(const hs_error_t *err);

/* Prints "hetsim CMD: msg" and the hint to use --help; returns 2. */
int hs_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
