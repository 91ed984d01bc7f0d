/* hs_cli_util.c -- what the subcommands share (hs_cli.h). */
#include "hs_cli.h"

#include <stdlib.h>

#include "hs_file.h"
#include "hs_limits.h"

/* The name a scenario read from standard input goes by. */
static const char hs__stdin_name[] = "<stdin>";

hs_err_t hs_cli_load_scenario(const char *path, hs_scenario_t **out,
                              hs_error_t *err)
{
    char *text = NULL, *dir = NULL;
    size_t len = 0;
    hs_err_t rc;

    if (path == NULL)
        return hs_scenario_load_default(out, err);
    if (strcmp(path, "-") != 0)
        return hs_scenario_load(path, out, err);
    *out = NULL;
    hs_error_clear(err);
    /* a pipe, a terminal or a redirected file: at most a file's limit */
    rc = hs_file_read_bounded("/dev/stdin", HS_LIMIT_FILE_BYTES,
                              HS_FILE_ALLOW_SPECIAL, &text, &len, err);
    if (rc != HS_OK) {
        /* the message names /dev/stdin; say what the user typed */
        char why[HS_ERRMSG_LEN];
        const char *at = strstr(err->msg, "/dev/stdin: ");
        snprintf(why, sizeof why, "%s",
                 at != NULL ? at + strlen("/dev/stdin: ") : err->msg);
        return hs_error_setf(err, rc, "%s: %s", hs__stdin_name, why);
    }
    /* relative paths inside resolve against the current directory, held
       as an absolute path so they stay valid from wherever they are used */
    dir = hs_file_absdir(hs__stdin_name);
    if (dir == NULL) {
        free(text);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    rc = hs_scenario_load_text(text, len, hs__stdin_name, dir, out, err);
    free(dir);
    free(text);
    return rc;
}

yajl_gen hs_cli_json_new(void)
{
    yajl_gen g = yajl_gen_alloc(NULL);

    if (g != NULL)
        yajl_gen_config(g, yajl_gen_beautify, 1);
    return g;
}

void hs_cli_js(yajl_gen g, const char *str)
{
    yajl_gen_string(g, (const unsigned char *)str, strlen(str));
}

void hs_cli_kv_i64(yajl_gen g, const char *key, int64_t v)
{
    hs_cli_js(g, key);
    yajl_gen_integer(g, (long long)v);
}

void hs_cli_kv_str(yajl_gen g, const char *key, const char *v)
{
    hs_cli_js(g, key);
    if (v == NULL)
        yajl_gen_null(g);
    else
        hs_cli_js(g, v);
}

void hs_cli_kv_dbl(yajl_gen g, const char *key, double v)
{
    hs_cli_js(g, key);
    yajl_gen_double(g, v);
}

void hs_cli_kv_notes(yajl_gen g, const char *key, const hs_scenario_t *s,
                     char *const *extra, size_t n_extra)
{
    size_t i;

    hs_cli_js(g, key);
    yajl_gen_array_open(g);
    for (i = 0; i < s->n_warnings; i++)
        hs_cli_js(g, s->warnings[i]);
    for (i = 0; i < n_extra; i++)
        hs_cli_js(g, extra[i]);
    yajl_gen_array_close(g);
}

void hs_cli_json_print(yajl_gen g)
{
    const unsigned char *buf;
    size_t len;

    yajl_gen_get_buf(g, &buf, &len);
    fwrite(buf, 1, len, stdout);
    yajl_gen_free(g);
}

void hs_cli_print_notes(const hs_scenario_t *s, char *const *extra,
                        size_t n_extra)
{
    size_t i;

    if (s->n_warnings + n_extra == 0)
        return;
    printf("\nnotes:\n");
    for (i = 0; i < s->n_warnings; i++)
        printf("  - %s\n", s->warnings[i]);
    for (i = 0; i < n_extra; i++)
        printf("  - %s\n", extra[i]);
}

double hs_cli_pct(int64_t value, int64_t ref)
{
    return ref != 0 ? 100.0 * (double)(value - ref) / (double)ref : 0.0;
}

void hs_cli_replay_opts_init(hs_cli_replay_opts_t *o)
{
    memset(o, 0, sizeof *o);
}

static const char *const hs__overlap_names[] = {"patent", "buckets", "none",
                                                "last_bucket", NULL};
static const int hs__overlap_values[] = {
    HS_OVERLAP_PATENT, HS_OVERLAP_BUCKETS, HS_OVERLAP_NONE,
    HS_OVERLAP_LAST_BUCKET};
static const char *const hs__send_names[] = {"rendezvous", "eager", NULL};
static const int hs__send_values[] = {HS_SEND_RENDEZVOUS, HS_SEND_EAGER};

static const char *const hs__hop_wait_names[] = {"ring", "probe", NULL};
static const int hs__hop_wait_values[] = {HS_HOP_WAIT_RING,
                                          HS_HOP_WAIT_PROBE};

static const char *const hs__engine_names[] = {"auto", "events", NULL};

const hs_opt_t hs_cli_replay_table[] = {
    {.name = "steps", .kind = HS_OPT_U64,
     HS_OPT_AT(hs_cli_replay_opts_t, steps), .u_lo = 2, .u_hi = 100000000,
     .metavar = "K",
     .help = "steps to replay, 2 or more (default: the scenario's, 10)"},
    {.name = "seed", .kind = HS_OPT_U64,
     HS_OPT_AT(hs_cli_replay_opts_t, seed), .u_lo = 0, .u_hi = UINT64_MAX,
     HS_OPT_SEEN_AT(hs_cli_replay_opts_t, have_seed), .metavar = "S",
     .help = "random seed of the stochastic mode"},
    {.name = "overlap", .kind = HS_OPT_ENUM,
     HS_OPT_AT(hs_cli_replay_opts_t, overlap), .choices = hs__overlap_names,
     .values = hs__overlap_values,
     HS_OPT_SEEN_AT(hs_cli_replay_opts_t, have_overlap), .metavar = "MODE",
     .help = "patent | buckets | none | last_bucket: when the\n"
             "ring starts (after the first backward op; per gradient\n"
             "bucket; after the whole backward; one ring when the last\n"
             "bucket is ready; default: the scenario's)"},
    {.name = "send", .kind = HS_OPT_ENUM,
     HS_OPT_AT(hs_cli_replay_opts_t, send), .choices = hs__send_names,
     .values = hs__send_values,
     HS_OPT_SEEN_AT(hs_cli_replay_opts_t, have_send), .metavar = "MODE",
     .help = "rendezvous | eager: a chunk moves when both ends\n"
             "reached its round, or as soon as the sender did\n"
             "(default: the scenario's)"},
    {.name = "hop-wait", .kind = HS_OPT_ENUM,
     HS_OPT_AT(hs_cli_replay_opts_t, hop_wait), .choices = hs__hop_wait_names,
     .values = hs__hop_wait_values,
     HS_OPT_SEEN_AT(hs_cli_replay_opts_t, have_hop_wait), .metavar = "HOW",
     .help = "ring | probe: each type's hop wait (t_hop_wait) grown\n"
             "to the ring's size, or as probed in its 2-device\n"
             "sub-system (default: the scenario's, ring)"},
    {.name = "streams", .kind = HS_OPT_U64,
     HS_OPT_AT(hs_cli_replay_opts_t, streams), .u_lo = 1,
     .u_hi = HS_MAX_STREAMS, .metavar = "K",
     .help = "buckets mode: K bucket rings at once (1: one\n"
             "stream, as NCCL; gloo's ProcessGroup runs 2),\n"
             "sharing each link first come, first served"},
    {.name = "stochastic", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs_cli_replay_opts_t, stochastic),
     .help = "draw per-step op times from the measured spread;\n"
             "reports mean, p50, p95 and 95% intervals"},
    {.name = "engine", .kind = HS_OPT_ENUM,
     HS_OPT_AT(hs_cli_replay_opts_t, engine), .choices = hs__engine_names,
     .metavar = "WHICH",
     .help = "auto | events: the max-plus fast path where it gives the\n"
             "same figures (default), or always the event engine"},
    HS_OPT_END};

void hs_cli_replay_apply(const hs_cli_replay_opts_t *o,
                         const hs_scenario_t *s, hs_replay_opts_t *out)
{
    hs_replay_opts_from_scenario(s, out);
    if (o->steps > 0)
        out->steps = o->steps;
    if (o->streams > 0)
        out->streams = o->streams;
    if (o->have_seed)
        out->seed = o->seed;
    if (o->stochastic)
        out->stochastic = 1;
    if (o->have_overlap)
        out->overlap = o->overlap;
    if (o->have_send)
        out->send = o->send;
    if (o->have_hop_wait)
        out->hop_wait = o->hop_wait;
    out->engine = o->engine;
}

const hs_opt_t hs_cli_force_table[] = {
    {.name = "force", .kind = HS_OPT_FLAG, HS_OPT_AT(hs_cli_force_t, force),
     .help = "replay even beyond the budgets (2^32 events, 8 GiB of "
             "state) that guard against a run that would not end"},
    HS_OPT_END};

void hs_cli_blame_steps(hs_error_t *err, uint32_t steps_opt)
{
    static const char key[] = "simulate.steps: ";
    char rest[HS_ERRMSG_LEN - 32];
    const char *at;

    if (err == NULL || steps_opt == 0 ||
        (at = strstr(err->msg, key)) == NULL)
        return;
    snprintf(rest, sizeof rest, "%s", at + sizeof key - 1);
    snprintf(err->msg, sizeof err->msg, "--steps %u: %s", steps_opt, rest);
}

hs_err_t hs_cli_replay_check(const hs_scenario_t *s, hs_replay_opts_t *opts,
                             const hs_cli_replay_opts_t *ro, int force,
                             hs_error_t *err)
{
    hs_err_t rc;

    opts->force = force != 0;
    if (force)
        return HS_OK;
    rc = hs_replay_check_budget(s, opts, err);
    if (rc != HS_OK)
        hs_cli_blame_steps(err, ro->steps);
    return rc;
}
