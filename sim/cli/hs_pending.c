/*
 * hs_pending.c -- weak placeholders for subcommands whose modules are not
 * linked in yet.  A module's own cmd_*.c defines the strong symbol; these
 * only answer that the command is unavailable, with exit status 1.
 */
#include <stdio.h>

#include "hs_cli.h"

#define HS__PENDING(fn, name)                                              \
    __attribute__((weak)) int fn(int argc, char **argv)                     \
    {                                                                       \
        (void)argc;                                                         \
        (void)argv;                                                         \
        fprintf(stderr, "hetsim: '%s' is not available in this build\n",  \
                name);                                                      \
        return 1;                                                           \
    }

HS__PENDING(hs_cli_simulate, "simulate")
HS__PENDING(hs_cli_validate, "validate")
HS__PENDING(hs_cli_ingest, "ingest")
HS__PENDING(hs_cli_profile, "profile")
HS__PENDING(hs_cli_measure_bw, "measure-bw")
HS__PENDING(hs_cli_plot, "plot")
