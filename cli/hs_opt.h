/*
 * hs_opt.h -- the command-line tool's one option parser, driven by tables.
 *
 * Each command declares its options as a table of hs_opt_t: the long name,
 * an optional short letter, the kind of value (flag, whole number with a
 * range, signed number, real number with a range, string, path, one of a
 * set of names, a quantity with its unit, or a custom form), where the
 * value goes, and the help text.  Where it goes is an offset into a
 * struct: a table is paired with the struct it fills (hs_opt_group_t), so
 * one table can fill a library's own options struct (hs_prun_opts_t,
 * hs_plot_opts_t ...) and a fragment shared by several commands (the
 * replay options) can fill its own struct beside the command's.
 *
 * hs_opt_parse reads argv once, left to right: `--name VALUE`,
 * `--name=VALUE`, `-x VALUE`, flags, `--help`/`-h`, `--` (the rest are
 * positional), and positional arguments (a lone "-" is positional).  The
 * first problem stops it with HS_ERR_USAGE and a message naming the option
 * and what a valid value looks like (range, choices, unit).  Values are
 * stored as they are read, so the last of a repeated option wins.
 *
 * hs_opt_help writes `--help` from the same tables: the usage synopsis,
 * the command's description, one aligned line (or more) per option in
 * table order, and the command's closing text (exit statuses).  The
 * manual page (hs_opt_man) and the bash completion (hs_opt_complete_bash)
 * are written from them too, so neither can drift from --help.
 *
 * This is command-line code: it never prints an error itself nor exits;
 * the command prints err and returns hs_err_exit_code(HS_ERR_USAGE).
 */
#ifndef HS_OPT_H
#define HS_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hs_error.h"

typedef enum hs_opt_kind_e {
    HS_OPT_FLAG = 0,   /* no value: stores int 1 */
    HS_OPT_U64,        /* whole number in [u_lo, u_hi], stored in an
                          unsigned integer of the field's size (1..8) */
    HS_OPT_I64,        /* signed whole number in [i_lo, i_hi] */
    HS_OPT_DOUBLE,     /* finite real number in [d_lo, d_hi] */
    HS_OPT_STRING,     /* any text: stores const char * (borrowed argv) */
    HS_OPT_PATH,       /* a file or directory name: as STRING, not empty */
    HS_OPT_ENUM,       /* one of choices[]: stores values[k] (or k) as an
                          int-sized enum */
    HS_OPT_TIME,       /* a duration with its unit (hs_units): int64_t ns
                          in [i_lo, i_hi] */
    HS_OPT_BYTES,      /* a size with its unit: uint64_t bytes in
                          [u_lo, u_hi] */
    HS_OPT_BANDWIDTH,  /* a bandwidth with its unit: double bytes/s in
                          [d_lo, d_hi] */
    HS_OPT_CUSTOM      /* parse(text, base) fills the struct itself;
                          `valid` says what a good value looks like */
} hs_opt_kind_t;

/* One option.  A table ends with an entry whose name is NULL. */
typedef struct hs_opt_s {
    const char *name;       /* long name without "--"; NULL ends a table */
    char short_name;        /* 'o' for -o; 0: none */
    hs_opt_kind_t kind;
    size_t off, size;       /* the field in the group's struct */
    int has_seen;           /* 1: the int at seen_off is set to 1 when the
                               option is given */
    size_t seen_off;
    uint64_t u_lo, u_hi;    /* U64, BYTES */
    int64_t i_lo, i_hi;     /* I64, TIME */
    double d_lo, d_hi;      /* DOUBLE, BANDWIDTH */
    const char *const *choices; /* ENUM: names, NULL-terminated */
    const int *values;      /* ENUM: the value of each name; NULL: index */
    int (*parse)(const char *text, void *base); /* CUSTOM: 0 ok, -1 bad */
    const char *valid;      /* CUSTOM: e.g. "A or A-B" */
    const char *metavar;    /* the value's name in help, e.g. "K" */
    const char *help;       /* help text; '\n' starts a continuation line */
} hs_opt_t;

/* A table and the struct its offsets point into. */
typedef struct hs_opt_group_s {
    const hs_opt_t *opts;
    void *base;
} hs_opt_group_t;

/* What a command is, for errors and help. */
typedef struct hs_opt_cmd_s {
    const char *name;       /* "simulate": errors say "hetsim simulate: " */
    const char *usage;      /* the synopsis, "usage: hetsim ...\n..." */
    const char *about;      /* the description (paragraphs), or NULL */
    const char *after;      /* text after the options (exit status) */
    const char *pos_name;   /* the positional's name in errors, "SCENARIO" */
    size_t max_pos;         /* positionals allowed (SIZE_MAX: any) */
} hs_opt_cmd_t;

/* Table entries are written with designated initializers:
     {.name = "steps", .kind = HS_OPT_U64,
      HS_OPT_AT(hs_cli_replay_opts_t, steps), .u_lo = 2, .u_hi = 100000000,
      .metavar = "K", .help = "steps to replay"},
   HS_OPT_AT names the member M of struct type F the value goes to;
   HS_OPT_SEEN_AT the int member set to 1 when the option is given. */
#define HS_OPT_AT(F, M) .off = offsetof(F, M), .size = sizeof(((F *)0)->M)
#define HS_OPT_SEEN_AT(F, M) .has_seen = 1, .seen_off = offsetof(F, M)
#define HS_OPT_END {.name = NULL}

/*
 * Parses argv[1..argc) (argv[0] is the command's name) against the
 * tables of groups[0..n_groups), storing each value into its group's
 * struct.  Positional arguments go, in order, to pos[0..pos_cap), their
 * count to *n_pos; more than min(cmd->max_pos, pos_cap) is an error.
 * *help is set to 1 (and parsing stops, HS_OK) on --help or -h; the
 * caller then calls hs_opt_help.  Returns HS_OK, or HS_ERR_USAGE with a
 * message without the "hetsim CMD: " prefix, e.g. "unknown option '--x'"
 * or "--steps: '0' is not a whole number in 2..100000000".  The strings
 * stored point into argv.
 */
hs_err_t hs_opt_parse(const hs_opt_cmd_t *cmd, const hs_opt_group_t *groups,
                      size_t n_groups, int argc, char **argv,
                      const char **pos, size_t pos_cap, size_t *n_pos,
                      int *help, hs_error_t *err);

/* A finite real number from the whole of t into *v: 0, or -1 (for CUSTOM
   parsers of forms such as TYPE=NUMBER). */
int hs_opt_double(const char *t, double *v);

/*
 * Writes the command's --help to f: cmd->usage, cmd->about, "options:"
 * and one entry per option of every group in order (and --help itself),
 * then cmd->after.
 */
void hs_opt_help(const hs_opt_cmd_t *cmd, const hs_opt_group_t *groups,
                 size_t n_groups, FILE *f);

/*
 * Writes the command's manual page hetsim-CMD(1) to f, as roff with the
 * man(7) macros, from the same tables as hs_opt_help: NAME (from summary),
 * SYNOPSIS (cmd->usage), DESCRIPTION (cmd->about), OPTIONS (every option
 * of every group, and --help), then cmd->after's paragraphs: the one that
 * starts "exit status:" as EXIT STATUS, "environment:" as ENVIRONMENT,
 * the others as NOTES; SEE ALSO hetsim(1).  version goes in the title.
 */
void hs_opt_man(const hs_opt_cmd_t *cmd, const char *summary,
                const char *version, const hs_opt_group_t *groups,
                size_t n_groups, FILE *f);

/* The title line (.TH) of page (e.g. "hetsim") in section 1. */
void hs_opt_man_head(FILE *f, const char *page, const char *version);

/* Help-style text as roff paragraphs: a blank line starts a paragraph
   (.PP); a paragraph with an indented line keeps its layout (.nf), others
   are filled; '\', '-' and a leading '.' are escaped. */
void hs_opt_man_text(FILE *f, const char *text);

/*
 * Writes the command's arm of the bash completion function's
 * `case $cmd in` (see hs_main.c, --completion bash) to f: opts set to
 * every option name; after an option that takes a value from a set, its
 * names; after a path option, file names (_hetsim_files); after any other
 * value option, nothing.  The function's $cur and $prev are the word being
 * completed and the one before.
 */
void hs_opt_complete_bash(const hs_opt_cmd_t *cmd,
                          const hs_opt_group_t *groups, size_t n_groups,
                          FILE *f);

#endif
