/*
 * test_cli_opts.c -- the command-line tool's table-driven option parser
 * (cli/hs_opt.c) on a table with every kind of option: values stored,
 * ranges and choices enforced, `--opt VALUE` and `--opt=VALUE`, short
 * options, unknown options, missing values, positional arguments, the
 * seen flags, two groups filling two structs, and the generated help
 * listing every option.
 *
 * The parser is part of the hetsim program, not of the library, so it is
 * compiled into this test directly.
 */
#include <float.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hs_test.h"

#include "../cli/hs_opt.c"

typedef enum { T_RED = 5, T_GREEN = 7, T_BLUE = 9 } t_color_t;

typedef struct t_opts_s {
    int flag;
    uint32_t count;
    uint64_t big;
    int have_big;
    int64_t offset;
    double ratio;
    const char *name, *out;
    t_color_t color;
    int64_t wait_ns;
    uint64_t size_bytes;
    double bw_bytes_per_s;
    unsigned a, b;          /* custom: A:B */
} t_opts_t;

typedef struct t_more_s {
    int verbose;
    unsigned level;
} t_more_t;

static int t_pair(const char *text, void *base)
{
    t_opts_t *o = base;
    char extra;

    return sscanf(text, "%u:%u%c", &o->a, &o->b, &extra) == 2 ? 0 : -1;
}

static const char *const t_colors[] = {"red", "green", "blue", NULL};
static const int t_color_values[] = {T_RED, T_GREEN, T_BLUE};

static const hs_opt_t t_table[] = {
    {.name = "flag", .kind = HS_OPT_FLAG, HS_OPT_AT(t_opts_t, flag),
     .help = "a flag"},
    {.name = "count", .short_name = 'c', .kind = HS_OPT_U64,
     HS_OPT_AT(t_opts_t, count), .u_lo = 2, .u_hi = 1000, .metavar = "K",
     .help = "a count 2..1000"},
    {.name = "big", .kind = HS_OPT_U64, HS_OPT_AT(t_opts_t, big),
     .u_lo = 0, .u_hi = UINT64_MAX, HS_OPT_SEEN_AT(t_opts_t, have_big),
     .metavar = "N", .help = "any whole number"},
    {.name = "offset", .kind = HS_OPT_I64, HS_OPT_AT(t_opts_t, offset),
     .i_lo = -10, .i_hi = 10, .metavar = "D", .help = "a signed number"},
    {.name = "ratio", .kind = HS_OPT_DOUBLE, HS_OPT_AT(t_opts_t, ratio),
     .d_lo = 0, .d_hi = 1, .metavar = "R", .help = "a ratio"},
    {.name = "name", .kind = HS_OPT_STRING, HS_OPT_AT(t_opts_t, name),
     .metavar = "TEXT", .help = "a name"},
    {.name = "output", .short_name = 'o', .kind = HS_OPT_PATH,
     HS_OPT_AT(t_opts_t, out), .metavar = "FILE",
     .help = "an output file\nwith a second help line"},
    {.name = "color", .kind = HS_OPT_ENUM, HS_OPT_AT(t_opts_t, color),
     .choices = t_colors, .values = t_color_values, .metavar = "C",
     .help = "red, green or blue"},
    {.name = "wait", .kind = HS_OPT_TIME, HS_OPT_AT(t_opts_t, wait_ns),
     .i_lo = 1, .i_hi = INT64_MAX, .metavar = "DURATION",
     .help = "a duration"},
    {.name = "size", .kind = HS_OPT_BYTES, HS_OPT_AT(t_opts_t, size_bytes),
     .u_lo = 1, .u_hi = UINT64_MAX, .metavar = "BYTES", .help = "a size"},
    {.name = "bw", .kind = HS_OPT_BANDWIDTH,
     HS_OPT_AT(t_opts_t, bw_bytes_per_s), .d_lo = 1, .d_hi = DBL_MAX,
     .metavar = "RATE", .help = "a bandwidth"},
    {.name = "pair", .kind = HS_OPT_CUSTOM, .parse = t_pair,
     .valid = "A:B", .metavar = "A:B", .help = "two numbers"},
    HS_OPT_END};

static const hs_opt_t t_more_table[] = {
    {.name = "verbose", .short_name = 'v', .kind = HS_OPT_FLAG,
     HS_OPT_AT(t_more_t, verbose), .help = "say more"},
    {.name = "level", .kind = HS_OPT_U64, HS_OPT_AT(t_more_t, level),
     .u_lo = 0, .u_hi = 3, .metavar = "L", .help = "a level 0..3"},
    HS_OPT_END};

static const hs_opt_cmd_t t_cmd = {
    .name = "thing",
    .usage = "usage: hetsim thing [options] [INPUT]\n",
    .about = "Does a thing to INPUT.\n",
    .after = "exit status: 0 ok, 2 bad usage.\n",
    .pos_name = "INPUT",
    .max_pos = 1};

typedef struct t_run_s {
    t_opts_t o;
    t_more_t m;
    const char *pos[4];
    size_t n_pos;
    int help;
    hs_err_t rc;
    hs_error_t err;
} t_run_t;

/* Parses the NULL-terminated arguments after the command name. */
static t_run_t *t_parse(t_run_t *r, const hs_opt_cmd_t *cmd, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    const char *a;
    hs_opt_group_t g[2];

    memset(r, 0, sizeof *r);
    argv[argc++] = (char *)cmd->name;
    va_start(ap, cmd);
    while ((a = va_arg(ap, const char *)) != NULL && argc < 31)
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    g[0].opts = t_table;
    g[0].base = &r->o;
    g[1].opts = t_more_table;
    g[1].base = &r->m;
    hs_error_clear(&r->err);
    r->rc = hs_opt_parse(cmd, g, 2, argc, argv, r->pos, 4, &r->n_pos,
                         &r->help, &r->err);
    return r;
}

/* Parses one bad argument list: HS_ERR_USAGE and a message with want. */
#define T_BAD(want, ...)                                                    \
    do {                                                                    \
        t_run_t r_;                                                         \
        t_parse(&r_, &t_cmd, __VA_ARGS__, NULL);                            \
        HS_ASSERT_I64_EQ(r_.rc, HS_ERR_USAGE);                              \
        HS_ASSERT_STR_CONTAINS(r_.err.msg, want);                           \
        HS_ASSERT_I64_EQ(hs_err_exit_code(r_.rc), 2);                       \
    } while (0)

static void test_every_kind(void)
{
    t_run_t r;

    t_parse(&r, &t_cmd, "--flag", "--count", "12", "--big",
            "18446744073709551615", "--offset", "-7", "--ratio", "0.25",
            "--name", "x y", "-o", "out.txt", "--color", "green", "--wait",
            "1.5ms", "--size", "2KiB", "--bw", "8Mbit/s", "--pair", "3:4",
            "in.yaml", NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_OK);
    HS_ASSERT_I64_EQ(r.help, 0);
    HS_ASSERT_I64_EQ(r.o.flag, 1);
    HS_ASSERT_I64_EQ(r.o.count, 12);
    CU_ASSERT(r.o.big == UINT64_MAX);
    HS_ASSERT_I64_EQ(r.o.have_big, 1);
    HS_ASSERT_I64_EQ(r.o.offset, -7);
    HS_ASSERT_DBL_NEAR(r.o.ratio, 0.25, 0);
    CU_ASSERT_STRING_EQUAL(r.o.name, "x y");
    CU_ASSERT_STRING_EQUAL(r.o.out, "out.txt");
    HS_ASSERT_I64_EQ(r.o.color, T_GREEN);
    HS_ASSERT_I64_EQ(r.o.wait_ns, 1500000);
    HS_ASSERT_I64_EQ(r.o.size_bytes, 2048);
    HS_ASSERT_DBL_NEAR(r.o.bw_bytes_per_s, 1e6, 1e-6);
    HS_ASSERT_I64_EQ(r.o.a, 3);
    HS_ASSERT_I64_EQ(r.o.b, 4);
    HS_ASSERT_I64_EQ(r.n_pos, 1);
    CU_ASSERT_STRING_EQUAL(r.pos[0], "in.yaml");

    /* nothing given: nothing stored, the seen flag stays 0 */
    t_parse(&r, &t_cmd, NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_OK);
    HS_ASSERT_I64_EQ(r.n_pos, 0);
    HS_ASSERT_I64_EQ(r.o.have_big, 0);
    HS_ASSERT_I64_EQ(r.o.flag, 0);
    CU_ASSERT_PTR_NULL(r.o.name);
}

static void test_equals_form_and_groups(void)
{
    t_run_t r;

    t_parse(&r, &t_cmd, "--count=7", "--name=", "--color=blue",
            "--level=3", "-v", "--wait=2s", "--output=a=b", NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_OK);
    HS_ASSERT_I64_EQ(r.o.count, 7);
    CU_ASSERT_STRING_EQUAL(r.o.name, "");
    HS_ASSERT_I64_EQ(r.o.color, T_BLUE);
    HS_ASSERT_I64_EQ(r.m.level, 3);       /* the second group's struct */
    HS_ASSERT_I64_EQ(r.m.verbose, 1);
    HS_ASSERT_I64_EQ(r.o.wait_ns, 2000000000);
    CU_ASSERT_STRING_EQUAL(r.o.out, "a=b"); /* only the first '=' splits */

    /* the last of a repeated option wins */
    t_parse(&r, &t_cmd, "--count", "3", "-c", "4", NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_OK);
    HS_ASSERT_I64_EQ(r.o.count, 4);

    /* a value that looks like an option is still the value */
    t_parse(&r, &t_cmd, "--name", "--flag", NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_OK);
    CU_ASSERT_STRING_EQUAL(r.o.name, "--flag");
    HS_ASSERT_I64_EQ(r.o.flag, 0);
}

static void test_ranges_and_bad_values(void)
{
    T_BAD("--count: '1' is not a whole number in 2..1000", "--count", "1");
    T_BAD("--count: '1001' is not a whole number in 2..1000", "--count=1001");
    T_BAD("-c: '-3' is not a whole number in 2..1000", "-c", "-3");
    T_BAD("--count: '12x'", "--count", "12x");
    T_BAD("--count: ''", "--count", "");
    T_BAD("--big: '18446744073709551616' is not a whole number >= 0", "--big",
          "18446744073709551616");
    T_BAD("--offset: '11' is not a whole number in -10..10", "--offset",
          "11");
    T_BAD("--offset: '-11'", "--offset", "-11");
    T_BAD("--ratio: '1.5' is not a number in [0, 1]", "--ratio", "1.5");
    T_BAD("--ratio: 'nan'", "--ratio", "nan");
    T_BAD("--ratio: 'half'", "--ratio", "half");
    T_BAD("--color: 'pink' is not red, green or blue", "--color", "pink");
    T_BAD("--output: an empty name", "--output", "");
    T_BAD("--wait: '5' is not a duration with its unit", "--wait", "5");
    T_BAD("--wait: '0s'", "--wait", "0s");
    T_BAD("--size: '12' is not a size with its unit", "--size", "12");
    T_BAD("--bw: 'fast' is not a bandwidth with its unit", "--bw", "fast");
    T_BAD("--pair: '3-4' is not A:B", "--pair", "3-4");
    T_BAD("--level: '4' is not a whole number in 0..3", "--level", "4");
    T_BAD("--flag takes no value (got '1')", "--flag=1");
}

static void test_unknown_and_missing(void)
{
    T_BAD("unknown option '--frobnicate'", "--frobnicate");
    T_BAD("unknown option '--frob'", "--frob=3");
    T_BAD("unknown option '-x'", "-x");
    T_BAD("unknown option '-cc'", "-cc", "3");
    T_BAD("unknown option '--'", "--=3");
    T_BAD("unknown option '--coun'", "--coun", "3"); /* no prefixes */
    T_BAD("--count needs a value (K)", "--count");
    T_BAD("-o needs a value (FILE)", "in", "-o");
    T_BAD("--pair needs a value (A:B)", "--pair");
}

static void test_positionals(void)
{
    t_run_t r;
    hs_opt_cmd_t many = t_cmd;

    T_BAD("one INPUT only (got 'b' too)", "a", "b");
    /* "-" is a positional; after "--" everything is */
    t_parse(&r, &t_cmd, "-", NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_OK);
    CU_ASSERT_STRING_EQUAL(r.pos[0], "-");
    t_parse(&r, &t_cmd, "--flag", "--", "--count", NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_OK);
    HS_ASSERT_I64_EQ(r.o.flag, 1);
    HS_ASSERT_I64_EQ(r.n_pos, 1);
    CU_ASSERT_STRING_EQUAL(r.pos[0], "--count");
    /* any number, up to the caller's array */
    many.max_pos = SIZE_MAX;
    t_parse(&r, &many, "a", "--flag", "b", "c", NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_OK);
    HS_ASSERT_I64_EQ(r.n_pos, 3);
    CU_ASSERT_STRING_EQUAL(r.pos[2], "c");
    t_parse(&r, &many, "a", "b", "c", "d", "e", NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_ERR_USAGE);
    /* none allowed */
    many.max_pos = 0;
    t_parse(&r, &many, "a", NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_ERR_USAGE);
    HS_ASSERT_STR_CONTAINS(r.err.msg, "unexpected argument 'a'");
}

static void test_help(void)
{
    t_run_t r;
    hs_opt_group_t g[2];
    t_opts_t o;
    t_more_t m;
    char *text = NULL, want[64];
    size_t len = 0, k;
    FILE *f;
    const hs_opt_t *tables[2] = {t_table, t_more_table}, *op;

    /* --help and -h stop the parse, even after a bad option's place */
    t_parse(&r, &t_cmd, "--flag", "--help", "--bogus", NULL);
    HS_ASSERT_I64_EQ(r.rc, HS_OK);
    HS_ASSERT_I64_EQ(r.help, 1);
    t_parse(&r, &t_cmd, "-h", NULL);
    HS_ASSERT_I64_EQ(r.help, 1);

    g[0].opts = t_table;
    g[0].base = &o;
    g[1].opts = t_more_table;
    g[1].base = &m;
    f = open_memstream(&text, &len);
    CU_ASSERT_FATAL(f != NULL);
    hs_opt_help(&t_cmd, g, 2, f);
    fclose(f);
    CU_ASSERT(strncmp(text, t_cmd.usage, strlen(t_cmd.usage)) == 0);
    HS_ASSERT_STR_CONTAINS(text, "Does a thing to INPUT.");
    HS_ASSERT_STR_CONTAINS(text, "exit status: 0 ok, 2 bad usage.");
    /* every option of both groups, with its value's name and help */
    for (k = 0; k < 2; k++)
        for (op = tables[k]; op->name != NULL; op++) {
            if (op->metavar != NULL)
                snprintf(want, sizeof want, "--%s %s", op->name,
                         op->metavar);
            else
                snprintf(want, sizeof want, "--%s ", op->name);
            HS_ASSERT_STR_CONTAINS(text, want);
            if (op->short_name != 0) {
                snprintf(want, sizeof want, "-%c, --%s", op->short_name,
                         op->name);
                HS_ASSERT_STR_CONTAINS(text, want);
            }
            snprintf(want, sizeof want, "%.*s",
                     (int)strcspn(op->help, "\n"), op->help);
            HS_ASSERT_STR_CONTAINS(text, want);
        }
    HS_ASSERT_STR_CONTAINS(text, "--help");
    /* a continuation line is indented to the help column */
    HS_ASSERT_STR_CONTAINS(text, "an output file\n       ");
    HS_ASSERT_STR_CONTAINS(text, "with a second help line\n");
    /* the options come in table order */
    CU_ASSERT(strstr(text, "--flag") < strstr(text, "--count"));
    CU_ASSERT(strstr(text, "--pair") < strstr(text, "--verbose"));
    free(text);
}

/* The hetsim program: every command's help from its table, the =form and
   the usage errors' exit status. */
static void test_commands(void)
{
    static const char *const cmds[] = {"predict", "simulate", "validate",
                                       "ingest", "profile", "measure-bw",
                                       "plot", NULL};
    hs_run_t r;
    size_t k;

    for (k = 0; cmds[k] != NULL; k++) {
        char want[64];

        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, cmds[k], "--help", NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        snprintf(want, sizeof want, "usage: hetsim %s", cmds[k]);
        HS_ASSERT_STR_CONTAINS(r.out, want);
        HS_ASSERT_STR_CONTAINS(r.out, "\noptions:\n");
        HS_ASSERT_STR_CONTAINS(r.out, "  --help");
        HS_ASSERT_STR_CONTAINS(r.out, "exit status:");
        hs_run_free(&r);
        CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, cmds[k], "--no-such-option",
                                            NULL), 0);
        HS_ASSERT_I64_EQ(r.status, 2);
        snprintf(want, sizeof want, "hetsim %s: unknown option "
                 "'--no-such-option'", cmds[k]);
        HS_ASSERT_STR_CONTAINS(r.err, want);
        CU_ASSERT_STRING_EQUAL(r.out, "");
        hs_run_free(&r);
    }
    /* the shared replay options, in both commands, both forms */
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", "--steps=3",
                                        "--send=eager", "--json", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "\"steps\": 3");
    HS_ASSERT_STR_CONTAINS(r.out, "\"send\": \"eager\"");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate", "--steps", "3",
                                        "--overlap=none", "--json", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "\"overlap\": \"none\"");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "validate", "--streams", "99",
                                        NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "--streams: '99' is not a whole number "
                                  "in 1..8");
    hs_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", "--h5", NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "--h5 needs a value (FILE)");
    hs_run_free(&r);
}

static int register_suites(void)
{
    CU_pSuite s = CU_add_suite("cli_opts", NULL, NULL);

    if (s == NULL)
        return -1;
    CU_add_test(s, "every kind of option", test_every_kind);
    CU_add_test(s, "--opt=VALUE, two groups, repeats",
                test_equals_form_and_groups);
    CU_add_test(s, "ranges and bad values", test_ranges_and_bad_values);
    CU_add_test(s, "unknown options, missing values",
                test_unknown_and_missing);
    CU_add_test(s, "positional arguments", test_positionals);
    CU_add_test(s, "generated help", test_help);
    CU_add_test(s, "the commands' tables", test_commands);
    return 0;
}

HS_TEST_MAIN(register_suites)
