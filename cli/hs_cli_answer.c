/*
 * hs_cli_answer.c -- how every command prints an answer (whatif/hs_answer.h):
 * the same names in every JSON document (docs/output.md), the same table
 * on the terminal, the recommended predictor first.
 */
#include <inttypes.h>
#include <stdio.h>

#include "hs_cli.h"
#include "hs_units.h"

void hs_cli_json_head(yajl_gen g, const char *format)
{
    hs_cli_kv_str(g, "format", format);
    hs_cli_kv_i64(g, "format_version", HS_CLI_FORMAT_VERSION);
    hs_cli_kv_str(g, "hetsim_version", HS_VERSION);
}

/* "key": v, or null when v < 0 (unknown or not run). */
static void hs__kv_opt(yajl_gen g, const char *key, int64_t v)
{
    hs_cli_js(g, key);
    if (v < 0)
        yajl_gen_null(g);
    else
        yajl_gen_integer(g, (long long)v);
}

void hs_cli_kv_answer(yajl_gen g, const hs_answer_t *a)
{
    static const char *const step[HS_PREDICTORS] = {
        "step_source_ns", "step_extended_ns", "step_replay_ns"};
    static const char *const epoch[HS_PREDICTORS] = {
        "epoch_source_ns", "epoch_extended_ns", "epoch_replay_ns"};
    static const char *const total[HS_PREDICTORS] = {
        "total_source_ns", "total_extended_ns", "total_replay_ns"};
    const hs_estimate_t *best = hs_answer_best(a);
    int p;

    hs_cli_kv_str(g, "predictor_recommended",
                  hs_predictor_name(a->recommended));
    hs_cli_kv_str(g, "predictor_why", a->why);
    hs__kv_opt(g, "step_recommended_ns", best->step_ns);
    hs__kv_opt(g, "epoch_recommended_ns", best->epoch_ns);
    hs__kv_opt(g, "total_recommended_ns", best->total_ns);
    for (p = 0; p < HS_PREDICTORS; p++) {
        hs__kv_opt(g, step[p], a->est[p].step_ns);
        hs__kv_opt(g, epoch[p], a->est[p].epoch_ns);
        hs__kv_opt(g, total[p], a->est[p].total_ns);
    }
    hs_cli_kv_i64(g, "iters_per_epoch", (int64_t)a->iters_per_epoch);
    hs_cli_kv_i64(g, "epochs", a->epochs);
}

/* A time, or "-" when unknown. */
static const char *hs__t(int64_t ns, char *buf, size_t len)
{
    if (ns < 0) {
        snprintf(buf, len, "-");
        return buf;
    }
    return hs_fmt_time(ns, buf, len);
}

void hs_cli_print_answer(const hs_answer_t *a)
{
    static const char *const what[HS_PREDICTORS] = {
        "the source's formula, max_i T(i) (docs/method.md, S400)",
        "closed form with the rest of the backward and the optimizer",
        "discrete-event replay of the ring"};
    const hs_estimate_t *best = hs_answer_best(a);
    char x[64], y[64], z[64];
    int order[HS_PREDICTORS], n = 0, p, k;

    printf("training time (recommended: %s)\n",
           hs_predictor_name(a->recommended));
    printf("  step:   %s\n", hs__t(best->step_ns, x, sizeof x));
    if (a->iters_per_epoch > 0 && best->epoch_ns >= 0) {
        printf("  epoch:  %s   (%" PRIu64 " iterations)\n",
               hs__t(best->epoch_ns, x, sizeof x), a->iters_per_epoch);
        printf("  total:  %s   (%u epoch%s)\n",
               hs__t(best->total_ns, x, sizeof x), a->epochs,
               a->epochs == 1 ? "" : "s");
    } else {
        printf("  epoch:  unknown (give job.dataset or a shard per type)\n"
               "  total:  unknown\n");
    }
    printf("  why:    %s\n", a->why);
    /* every predictor, the recommended one first, then the rest from
       the strongest to the weakest */
    order[n++] = (int)a->recommended;
    for (p = HS_PREDICTORS - 1; p >= 0; p--)
        if (p != (int)a->recommended)
            order[n++] = p;
    printf("\n%-11s %13s %13s %13s   %s\n", "predictor", "step", "epoch",
           "total", "what it is");
    for (k = 0; k < n; k++) {
        const hs_estimate_t *e = &a->est[order[k]];

        if (e->step_ns < 0)
            printf("%-11s %13s %13s %13s   %s (not run)\n",
                   hs_predictor_name((hs_predictor_t)order[k]), "-", "-",
                   "-", what[order[k]]);
        else
            printf("%-11s %13s %13s %13s   %s%s\n",
                   hs_predictor_name((hs_predictor_t)order[k]),
                   hs__t(e->step_ns, x, sizeof x),
                   hs__t(e->epoch_ns, y, sizeof y),
                   hs__t(e->total_ns, z, sizeof z), what[order[k]],
                   k == 0 ? " [recommended]" : "");
    }
}
