/* hs_cli_util.c -- what the subcommands share (hs_cli.h). */
#include "hs_cli.h"

#include <errno.h>
#include <stdlib.h>

hs_err_t hs_cli_load_scenario(const char *path, hs_scenario_t **out,
                              hs_error_t *err)
{
    return path != NULL ? hs_scenario_load(path, out, err)
                        : hs_scenario_load_default(out, err);
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

/* A whole number in [lo, hi] from t; 0, or -1. */
static int hs__cli_u64(const char *t, uint64_t lo, uint64_t hi,
                       uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (t == NULL || *t == '\0' || *t == '-')
        return -1;
    errno = 0;
    v = strtoull(t, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int hs_cli_replay_opt(const char *cmd, int argc, char **argv, int *i,
                      hs_cli_replay_opts_t *o)
{
    const char *a = argv[*i], *v;
    uint64_t x;

    if (strcmp(a, "--stochastic") == 0) {
        o->stochastic = 1;
        return 1;
    }
    if (strcmp(a, "--steps") != 0 && strcmp(a, "--seed") != 0 &&
        strcmp(a, "--overlap") != 0 && strcmp(a, "--send") != 0 &&
        strcmp(a, "--streams") != 0)
        return 0;
    v = *i + 1 < argc ? argv[++*i] : NULL;
    if (v == NULL)
        return hs_cli_usage_error(cmd, "%s needs a value", a), -1;
    if (strcmp(a, "--steps") == 0) {
        if (hs__cli_u64(v, 2, 100000000, &x) != 0)
            return hs_cli_usage_error(cmd, "--steps: '%s' is not a count "
                                           "2..1e8", v), -1;
        o->steps = (uint32_t)x;
    } else if (strcmp(a, "--streams") == 0) {
        if (hs__cli_u64(v, 1, HS_MAX_STREAMS, &x) != 0)
            return hs_cli_usage_error(cmd, "--streams: '%s' is not a count "
                                           "1..%d", v, HS_MAX_STREAMS), -1;
        o->streams = (uint32_t)x;
    } else if (strcmp(a, "--seed") == 0) {
        if (hs__cli_u64(v, 0, UINT64_MAX, &o->seed) != 0)
            return hs_cli_usage_error(cmd, "--seed: '%s' is not a number",
                                      v), -1;
        o->have_seed = 1;
    } else if (strcmp(a, "--overlap") == 0) {
        if (hs_overlap_parse(v, &o->overlap) != 0)
            return hs_cli_usage_error(cmd, "--overlap: '%s' is not patent, "
                                           "buckets or none", v), -1;
        o->have_overlap = 1;
    } else {
        if (hs_send_parse(v, &o->send) != 0)
            return hs_cli_usage_error(cmd, "--send: '%s' is not rendezvous "
                                           "or eager", v), -1;
        o->have_send = 1;
    }
    return 1;
}

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
}
