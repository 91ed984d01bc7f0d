/* hs_cli_util.c -- what the subcommands share (hs_cli.h). */
#include "hs_cli.h"

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
