/*
 * cmd_advise.c -- `hetsim advise ring|batch|mix [SCENARIO] ...`: the ring
 * order, the batch per type, the device mix that the closed form finds
 * and the replay confirms (whatif/hs_advise.h), as a short report or
 * JSON, and the recommendation written as a scenario file (-o).
 * Progress goes to stderr (a terminal, or --progress); under mpirun the
 * work is split over the ranks (hs_advise_exec_t) and rank 0 alone
 * prints and writes, the same bytes as one process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_gen.h>

#include "hs_advise.h"
#include "hs_cli.h"
#include "hs_progress.h"
#include "hs_sweep_mpi.h"
#include "hs_units.h"

#define HS__ADV_MAX 64      /* TYPE=VALUE options per kind */

/* A repeated TYPE=VALUE option. */
typedef struct hs__kv_s {
    size_t n;
    const char *name[HS__ADV_MAX];
    double value[HS__ADV_MAX];
} hs__kv_t;

typedef struct hs__adv_opts_s {
    int json, no_replay, progress, no_progress, quiet;
    const char *out;
    uint32_t exact_max;
    uint64_t global_batch;
    hs__kv_t max_batch, avail, min, price;
    double budget;
    int has_budget;
    int64_t deadline_ns;
    int has_deadline;
    int rank;               /* this process's MPI rank (0 alone) */
    const hs_advise_exec_t *ex;
    hs_sweep_mpi_t *mpi;
} hs__adv_opts_t;

/* TYPE=NUMBER into kv (the type is checked against the scenario later). */
static int hs__kv_parse(hs__kv_t *kv, const char *text)
{
    const char *eq = strchr(text, '=');
    double v;

    if (eq == NULL || eq == text || kv->n >= HS__ADV_MAX ||
        hs_opt_double(eq + 1, &v) != 0 || !(v >= 0) || v > 1e15)
        return -1;
    kv->name[kv->n] = text;         /* up to the '=' */
    kv->value[kv->n++] = v;
    return 0;
}

static int hs__p_maxb(const char *t, void *b)
{
    return hs__kv_parse(&((hs__adv_opts_t *)b)->max_batch, t);
}
static int hs__p_avail(const char *t, void *b)
{
    return hs__kv_parse(&((hs__adv_opts_t *)b)->avail, t);
}
static int hs__p_min(const char *t, void *b)
{
    return hs__kv_parse(&((hs__adv_opts_t *)b)->min, t);
}
static int hs__p_price(const char *t, void *b)
{
    return hs__kv_parse(&((hs__adv_opts_t *)b)->price, t);
}

static const hs_opt_t hs__adv_table[] = {
    {.name = "json", .kind = HS_OPT_FLAG, HS_OPT_AT(hs__adv_opts_t, json),
     .help = "print the result as JSON (times in ns)"},
    {.name = "output", .short_name = 'o', .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__adv_opts_t, out), .metavar = "FILE",
     .help = "write the recommendation as a scenario file (and, for batch,\n"
             "each type's scaled profile beside it)"},
    {.name = "no-replay", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__adv_opts_t, no_replay),
     .help = "closed form only: do not confirm the candidates with the\n"
             "replay"},
    {.name = "exact-max", .kind = HS_OPT_U64,
     HS_OPT_AT(hs__adv_opts_t, exact_max), .u_lo = 2, .u_hi = 16,
     .metavar = "N", .help = "ring: exact search up to N devices (default "
                             "16), heuristic beyond"},
    {.name = "global-batch", .kind = HS_OPT_U64,
     HS_OPT_AT(hs__adv_opts_t, global_batch), .u_lo = 1, .u_hi = 1u << 30,
     .metavar = "G", .help = "batch: samples per step in all (default: the "
                             "scenario's)"},
    {.name = "max-batch", .kind = HS_OPT_CUSTOM, .parse = hs__p_maxb,
     .valid = "TYPE=B", .metavar = "TYPE=B",
     .help = "batch: the largest batch a type's device holds (repeat per "
             "type)"},
    {.name = "avail", .kind = HS_OPT_CUSTOM, .parse = hs__p_avail,
     .valid = "TYPE=K", .metavar = "TYPE=K",
     .help = "mix: devices of a type to choose from (default: its count)"},
    {.name = "min", .kind = HS_OPT_CUSTOM, .parse = hs__p_min,
     .valid = "TYPE=K", .metavar = "TYPE=K",
     .help = "mix: at least K devices of a type (default 0)"},
    {.name = "price", .kind = HS_OPT_CUSTOM, .parse = hs__p_price,
     .valid = "TYPE=P", .metavar = "TYPE=P",
     .help = "mix: price of one device of a type per hour (every type)"},
    {.name = "budget", .kind = HS_OPT_DOUBLE,
     HS_OPT_AT(hs__adv_opts_t, budget), HS_OPT_SEEN_AT(hs__adv_opts_t,
                                                       has_budget),
     .d_lo = 0, .d_hi = 1e15, .metavar = "X",
     .help = "mix: the fastest mix that costs at most X"},
    {.name = "deadline", .kind = HS_OPT_TIME,
     HS_OPT_AT(hs__adv_opts_t, deadline_ns),
     HS_OPT_SEEN_AT(hs__adv_opts_t, has_deadline), .i_lo = 1,
     .i_hi = INT64_MAX, .metavar = "TIME",
     .help = "mix: the cheapest mix that trains within TIME (e.g. 48h)"},
    {.name = "progress", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__adv_opts_t, progress),
     .help = "progress on stderr (default: when stderr is a terminal):\n"
             "done / total, the best so far, the time spent"},
    {.name = "no-progress", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__adv_opts_t, no_progress), .help = "no progress"},
    {.name = "quiet", .kind = HS_OPT_FLAG, HS_OPT_AT(hs__adv_opts_t, quiet),
     .help = "the same as --no-progress"},
    HS_OPT_END};

static const hs_opt_cmd_t hs__adv_cmd = {
    .name = "advise",
    .usage = "usage: hetsim advise ring|batch|mix [SCENARIO] [options]\n",
    .about =
        "Answers a sizing question for SCENARIO (default: the embedded one):\n"
        "  ring   the ring order with the least step (exact search up to 16\n"
        "         devices, a heuristic with a stated lower bound beyond);\n"
        "  batch  per-type batches that even out the devices' compute at the\n"
        "         same global batch (linear from each profile, or\n"
        "         interpolated over its batch_points);\n"
        "  mix    the device counts that train soonest within --budget, or\n"
        "         most cheaply within --deadline (--price for every type).\n"
        "The closed form searches; the replay confirms the best candidates.\n"
        "Scenarios with nodes: ring keeps each node's devices together and\n"
        "orders the nodes; mix counts whole nodes of each type's node kind.\n"
        "\n"
        "Under MPI (mpirun -n K hetsim advise ...): the mixes, and the\n"
        "replays that confirm every question's candidates, are split over\n"
        "the ranks; rank 0 prints and writes the same answer as one process.\n",
    .after = "exit status: 0 ok; 1 mix: the replay says none of the closed "
             "form's best\nmixes meets the constraint; 2 bad scenario or "
             "options, or no mix meets it.\n",
    .pos_name = "QUESTION and SCENARIO",
    .max_pos = 2};

static void hs__ms(char *buf, size_t n, int64_t ns)
{
    if (ns < 0)
        snprintf(buf, n, "-");
    else
        hs_fmt_time(ns, buf, n);
}

/* The value a TYPE=V list gives type `name`, or dflt. */
static double hs__kv_get(const hs__kv_t *kv, const char *name, double dflt,
                         int *found)
{
    size_t i, len = strlen(name);

    for (i = 0; i < kv->n; i++)
        if (strncmp(kv->name[i], name, len) == 0 && kv->name[i][len] == '=') {
            if (found != NULL)
                *found = 1;
            return kv->value[i];
        }
    return dflt;
}

/* Every TYPE in kv names a type of s; else a usage error. */
static int hs__kv_check(const hs__kv_t *kv, const char *opt,
                        const hs_scenario_t *s)
{
    size_t i, t;

    for (i = 0; i < kv->n; i++) {
        int ok = 0;

        for (t = 0; t < s->n_types && !ok; t++) {
            size_t len = strlen(s->types[t].name);

            ok = strncmp(kv->name[i], s->types[t].name, len) == 0 &&
                 kv->name[i][len] == '=';
        }
        if (!ok)
            return hs_cli_usage_error("advise", "--%s %s: no device type of "
                                      "that name in %s", opt, kv->name[i],
                                      s->file);
    }
    return 0;
}

/* A failed question: rank 0 says why; every rank has the same error
   (each computed the same answer), so each exits with the same status --
   unless it is one rank's own (out of memory, MPI): that rank says why
   and ends the job. */
static int hs__fail(const hs__adv_opts_t *o, hs_error_t *err)
{
    int code;

    if (o->rank != 0 && err->code != HS_ERR_NOMEM && err->code != HS_ERR_RANK)
        return hs_err_exit_code(err->code);
    hs_progress_end(o->ex->progress_ctx, stderr);
    code = hs_cli_fail(err);
    /* out of memory or MPI failing on one rank only: the others may wait
       in a collective, so end the job */
    if (err->code == HS_ERR_NOMEM || err->code == HS_ERR_RANK)
        hs_sweep_mpi_abort(o->mpi, code);
    return code;
}

static int hs__ring(const hs_scenario_t *s, const hs_replay_opts_t *ro,
                    const hs__adv_opts_t *o)
{
    hs_advise_ring_t *r = NULL;
    hs_error_t err;
    size_t k;
    char a[32], b[32];

    if (hs_advise_ring_x(s, ro, !o->no_replay, o->exact_max, o->ex, &r,
                         &err) != HS_OK)
        return hs__fail(o, &err);
    if (o->rank != 0) {
        hs_advise_ring_free(r);
        return 0;
    }
    hs_progress_end(o->ex->progress_ctx, stderr);
    if (o->out != NULL &&
        hs_advise_write(s, r, NULL, NULL, o->out, &err) != HS_OK) {
        hs_advise_ring_free(r);
        return hs_cli_fail(&err);
    }
    if (o->json) {
        yajl_gen g = hs_cli_json_new();

        yajl_gen_map_open(g);
        hs_cli_kv_str(g, "question", "ring");
        hs_cli_kv_i64(g, "n_devices", r->n);
        hs_cli_kv_str(g, "search", r->exact ? "exact" : "heuristic");
        hs_cli_kv_i64(g, "lower_bound_ns", r->lower_bound_ns);
        hs_cli_kv_dbl(g, "search_cpu_s", r->search_s);
        hs_cli_kv_str(g, "chosen", r->cands[r->chosen].label);
        hs_cli_js(g, "candidates");
        yajl_gen_array_open(g);
        for (k = 0; k < r->n_cands; k++) {
            const hs_advise_ring_cand_t *c = &r->cands[k];
            uint32_t i;

            yajl_gen_map_open(g);
            hs_cli_kv_str(g, "label", c->label);
            hs_cli_kv_i64(g, "closed_step_ns", c->closed_ns);
            hs_cli_js(g, "replay_step_ns");
            if (c->replay_ns >= 0)
                yajl_gen_integer(g, c->replay_ns);
            else
                yajl_gen_null(g);
            hs_cli_js(g, "ring");
            yajl_gen_array_open(g);
            for (i = 0; i < r->n; i++)
                hs_cli_js(g, s->devices[c->order[i]].name);
            yajl_gen_array_close(g);
            yajl_gen_map_close(g);
        }
        yajl_gen_array_close(g);
        hs_cli_kv_str(g, "scenario_written", o->out);
        yajl_gen_map_close(g);
        hs_cli_json_print(g);
    } else {
        const hs_advise_ring_cand_t *given = &r->cands[0];
        const hs_advise_ring_cand_t *best = &r->cands[r->chosen];
        int64_t g0 = best->replay_ns >= 0 ? given->replay_ns
                                          : given->closed_ns;
        int64_t g1 = best->replay_ns >= 0 ? best->replay_ns
                                          : best->closed_ns;

        printf("hetsim %s -- advise ring: %s (%u devices)\n\n", HS_VERSION,
               s->file, r->n);
        printf("%-11s %14s %14s\n", "order", "closed form", "replay");
        for (k = 0; k < r->n_cands; k++) {
            const hs_advise_ring_cand_t *c = &r->cands[k];

            hs__ms(a, sizeof a, c->closed_ns);
            hs__ms(b, sizeof b, c->replay_ns);
            printf("%-11s %14s %14s%s%s\n", c->label, a, b,
                   k == r->chosen ? "   <- recommended" : "",
                   c->same_as >= 0 ? "   (same order as above)" : "");
        }
        hs__ms(a, sizeof a, r->lower_bound_ns);
        printf("\nsearch: %s, %.3f s; no order's closed-form step is below "
               "%s\n", r->exact ? "exact" : "heuristic", r->search_s, a);
        printf("gain over the given order: %.2f%% (%s)\n",
               g0 > 0 ? 100.0 * (double)(g0 - g1) / (double)g0 : 0.0,
               best->replay_ns >= 0 ? "replayed" : "closed form");
        if (r->n <= 64) {
            uint32_t i;

            printf("recommended ring:");
            for (i = 0; i < r->n; i++)
                printf(" %s", s->devices[best->order[i]].name);
            printf("\n");
        }
        if (o->out != NULL)
            printf("scenario written: %s\n", o->out);
    }
    hs_advise_ring_free(r);
    return hs_cli_stdout_status();
}

static int hs__batch(const hs_scenario_t *s, const hs_replay_opts_t *ro,
                     const hs__adv_opts_t *o)
{
    hs_advise_batch_t *r = NULL;
    uint64_t *maxb;
    hs_error_t err;
    size_t t;
    char a[32], b[32];
    int rc;

    if ((rc = hs__kv_check(&o->max_batch, "max-batch", s)) != 0)
        return rc;
    if ((maxb = calloc(s->n_types ? s->n_types : 1, sizeof *maxb)) == NULL)
        return hs_cli_fail(&(hs_error_t){HS_ERR_NOMEM, "out of memory"});
    for (t = 0; t < s->n_types; t++)
        maxb[t] = (uint64_t)hs__kv_get(&o->max_batch, s->types[t].name, 0,
                                       NULL);
    rc = hs_advise_batch_x(s, ro, o->global_batch, maxb, !o->no_replay,
                           o->ex, &r, &err);
    free(maxb);
    if (rc != HS_OK)
        return hs__fail(o, &err);
    if (o->rank != 0) {
        hs_advise_batch_free(r);
        return 0;
    }
    hs_progress_end(o->ex->progress_ctx, stderr);
    if (o->out != NULL &&
        hs_advise_write(s, NULL, r, NULL, o->out, &err) != HS_OK) {
        hs_advise_batch_free(r);
        return hs_cli_fail(&err);
    }
    if (o->json) {
        yajl_gen g = hs_cli_json_new();

        yajl_gen_map_open(g);
        hs_cli_kv_str(g, "question", "batch");
        hs_cli_kv_str(g, "scaling", r->scaling);
        hs_cli_kv_i64(g, "global_batch_asked", (int64_t)r->global_batch_asked);
        hs_cli_kv_i64(g, "global_batch", (int64_t)r->global_batch);
        hs_cli_js(g, "types");
        yajl_gen_array_open(g);
        for (t = 0; t < r->n_types; t++) {
            yajl_gen_map_open(g);
            hs_cli_kv_str(g, "name", s->types[t].name);
            hs_cli_kv_i64(g, "count", (int64_t)s->types[t].count);
            hs_cli_kv_i64(g, "batch_before", (int64_t)r->batch_before[t]);
            hs_cli_kv_i64(g, "batch_after", (int64_t)r->batch_after[t]);
            hs_cli_kv_i64(g, "shard_after", (int64_t)r->shard_after[t]);
            yajl_gen_map_close(g);
        }
        yajl_gen_array_close(g);
        hs_cli_kv_i64(g, "closed_step_before_ns", r->closed_before_ns);
        hs_cli_kv_i64(g, "closed_step_after_ns", r->closed_after_ns);
        hs_cli_kv_i64(g, "closed_epoch_before_ns", r->epoch_before_ns);
        hs_cli_kv_i64(g, "closed_epoch_after_ns", r->epoch_after_ns);
        hs_cli_kv_i64(g, "replay_step_before_ns", r->replay_before_ns);
        hs_cli_kv_i64(g, "replay_step_after_ns", r->replay_after_ns);
        hs_cli_kv_i64(g, "replay_epoch_before_ns", r->replay_epoch_before_ns);
        hs_cli_kv_i64(g, "replay_epoch_after_ns", r->replay_epoch_after_ns);
        hs_cli_kv_str(g, "scenario_written", o->out);
        yajl_gen_map_close(g);
        hs_cli_json_print(g);
    } else {
        printf("hetsim %s -- advise batch: %s\n\n", HS_VERSION, s->file);
        printf("%-12s %6s %8s %8s\n", "type", "count", "batch", "advised");
        for (t = 0; t < r->n_types; t++)
            printf("%-12s %6llu %8llu %8llu\n", s->types[t].name,
                   (unsigned long long)s->types[t].count,
                   (unsigned long long)r->batch_before[t],
                   (unsigned long long)r->batch_after[t]);
        printf("\nglobal batch %llu%s\n",
               (unsigned long long)r->global_batch,
               r->global_batch != r->global_batch_asked
                   ? " (the counts cannot make the one asked; nearest above)"
                   : "");
        printf("scaling: %s\n\n", r->scaling);
        printf("%-18s %14s %14s\n", "", "before", "after");
        hs__ms(a, sizeof a, r->closed_before_ns);
        hs__ms(b, sizeof b, r->closed_after_ns);
        printf("%-18s %14s %14s\n", "step, closed form", a, b);
        hs__ms(a, sizeof a, r->epoch_before_ns);
        hs__ms(b, sizeof b, r->epoch_after_ns);
        printf("%-18s %14s %14s\n", "epoch, closed form", a, b);
        if (r->replay_before_ns >= 0) {
            hs__ms(a, sizeof a, r->replay_before_ns);
            hs__ms(b, sizeof b, r->replay_after_ns);
            printf("%-18s %14s %14s\n", "step, replay", a, b);
            hs__ms(a, sizeof a, r->replay_epoch_before_ns);
            hs__ms(b, sizeof b, r->replay_epoch_after_ns);
            printf("%-18s %14s %14s\n", "epoch, replay", a, b);
        }
        if (o->out != NULL)
            printf("scenario written: %s\n", o->out);
    }
    hs_advise_batch_free(r);
    return hs_cli_stdout_status();
}

static int hs__mix(const hs_scenario_t *s, const hs_replay_opts_t *ro,
                   const hs__adv_opts_t *o)
{
    hs_advise_mix_t *r = NULL;
    hs_mixopt_type_t *ty;
    hs_error_t err;
    size_t t, k;
    int rc;

    if (o->has_budget == o->has_deadline)
        return hs_cli_usage_error("advise", "mix needs exactly one of "
                                  "--budget and --deadline");
    if ((rc = hs__kv_check(&o->avail, "avail", s)) != 0 ||
        (rc = hs__kv_check(&o->min, "min", s)) != 0 ||
        (rc = hs__kv_check(&o->price, "price", s)) != 0)
        return rc;
    if ((ty = calloc(s->n_types ? s->n_types : 1, sizeof *ty)) == NULL)
        return hs_cli_fail(&(hs_error_t){HS_ERR_NOMEM, "out of memory"});
    for (t = 0; t < s->n_types; t++) {
        int found = 0;

        ty[t].avail = (uint64_t)hs__kv_get(&o->avail, s->types[t].name,
                                           (double)s->types[t].count, NULL);
        ty[t].min = (uint64_t)hs__kv_get(&o->min, s->types[t].name, 0, NULL);
        ty[t].price_per_h = hs__kv_get(&o->price, s->types[t].name, 0,
                                       &found);
        if (!found) {
            free(ty);
            return hs_cli_usage_error("advise", "mix needs --price %s=P "
                                      "(a price for every type)",
                                      s->types[t].name);
        }
    }
    rc = hs_advise_mix_x(s, ro, ty, o->has_budget ? HS_MIX_FASTEST
                                                  : HS_MIX_CHEAPEST,
                         o->budget, o->deadline_ns, !o->no_replay, o->ex, &r,
                         &err);
    free(ty);
    ty = NULL;
    if (rc != HS_OK)
        return hs__fail(o, &err);
    if (o->rank != 0) {
        rc = !o->no_replay && !r->replay_met
                 ? hs_err_exit_code(HS_ERR_TOLERANCE)
                 : 0;
        hs_advise_mix_free(r);
        return rc;
    }
    hs_progress_end(o->ex->progress_ctx, stderr);
    if (o->out != NULL &&
        hs_advise_write(s, NULL, NULL, r, o->out, &err) != HS_OK) {
        free(ty);
        hs_advise_mix_free(r);
        return hs_cli_fail(&err);
    }
    if (o->json) {
        yajl_gen g = hs_cli_json_new();

        yajl_gen_map_open(g);
        hs_cli_kv_str(g, "question", "mix");
        hs_cli_kv_str(g, "goal", o->has_budget ? "fastest within budget"
                                               : "cheapest within deadline");
        hs_cli_kv_i64(g, "mixes_visited", (int64_t)r->search->visited);
        hs_cli_kv_i64(g, "mixes_evaluated", (int64_t)r->search->evaluated);
        hs_cli_kv_i64(g, "chosen", (int64_t)r->chosen);
        hs_cli_js(g, "best");
        yajl_gen_array_open(g);
        for (k = 0; k < r->search->n_top; k++) {
            const hs_mixopt_entry_t *e = &r->search->top[k];

            yajl_gen_map_open(g);
            hs_cli_js(g, "counts");
            yajl_gen_map_open(g);
            for (t = 0; t < s->n_types; t++)
                hs_cli_kv_i64(g, s->types[t].name, (int64_t)e->counts[t]);
            yajl_gen_map_close(g);
            hs_cli_kv_i64(g, "closed_total_ns", e->total_ns);
            hs_cli_kv_dbl(g, "closed_cost", e->cost);
            hs_cli_kv_i64(g, "replay_total_ns", r->replay_total_ns[k]);
            if (r->replay_total_ns[k] >= 0)
                hs_cli_kv_dbl(g, "replay_cost", r->replay_cost[k]);
            yajl_gen_map_close(g);
        }
        yajl_gen_array_close(g);
        hs_cli_kv_str(g, "scenario_written", o->out);
        hs_cli_js(g, "replay_meets_constraint");
        if (o->no_replay)
            yajl_gen_null(g);
        else
            yajl_gen_bool(g, r->replay_met);
        yajl_gen_map_close(g);
        hs_cli_json_print(g);
    } else {
        printf("hetsim %s -- advise mix: %s\n\n", HS_VERSION, s->file);
        printf("goal: %s\n", o->has_budget ? "the fastest mix within the "
                                             "budget"
                                           : "the cheapest mix within the "
                                             "deadline");
        if (r->shards_derived)
            printf("every mix trains the whole training set: the scenario's "
                   "shards are replaced by shards that follow the batches\n");
        printf("searched %llu mixes, evaluated %llu (the others ruled out "
               "by a lower bound), %.3f s\n\n",
               (unsigned long long)r->search->visited,
               (unsigned long long)r->search->evaluated, r->search_s);
        for (k = 0; k < r->search->n_top; k++) {
            const hs_mixopt_entry_t *e = &r->search->top[k];
            char a[32], b[32];

            for (t = 0; t < s->n_types; t++)
                printf("%s%s x%llu", t ? " + " : "", s->types[t].name,
                       (unsigned long long)e->counts[t]);
            hs__ms(a, sizeof a, e->total_ns);
            hs__ms(b, sizeof b, r->replay_total_ns[k]);
            printf(": total %s (closed, extended), %s (replay), cost %.4g%s\n", a, b,
                   r->replay_total_ns[k] >= 0 ? r->replay_cost[k] : e->cost,
                   k == r->chosen ? "   <- recommended" : "");
        }
        if (!o->no_replay && !r->replay_met)
            printf("\nthe replay says none of these meets the %s: the "
                   "closed form's best is shown; widen the constraint\n",
                   o->has_budget ? "budget" : "deadline");
        if (o->out != NULL)
            printf("scenario written: %s\n", o->out);
    }
    rc = !o->no_replay && !r->replay_met
             ? hs_err_exit_code(HS_ERR_TOLERANCE)
             : hs_cli_stdout_status();
    free(ty);
    hs_advise_mix_free(r);
    return rc;
}

int hs_cli_advise(int argc, char **argv)
{
    hs__adv_opts_t o;
    hs_cli_replay_opts_t cro;
    hs_opt_group_t groups[3];
    hs_cli_force_t fo = {0};
    const char *pos[2];
    size_t n_pos = 0;
    hs_scenario_t *s = NULL;
    hs_replay_opts_t ro;
    hs_sweep_mpi_t mpi = {0, 0, 1};
    hs_advise_exec_t ex;
    hs_progress_t bar;
    hs_error_t err;
    int code, rc;

    memset(&o, 0, sizeof o);
    memset(&ex, 0, sizeof ex);
    hs_cli_replay_opts_init(&cro);
    groups[0] = (hs_opt_group_t){hs__adv_table, &o};
    groups[1] = (hs_opt_group_t){hs_cli_replay_table, &cro};
    groups[2] = (hs_opt_group_t){hs_cli_force_table, &fo};
    if (!hs_cli_parse(&hs__adv_cmd, groups, 3, argc, argv, pos, 2, &n_pos,
                      &code)) {
        if (code == 0)
            printf("\nMPI: %s\n", hs_sweep_mpi_built()
                                       ? "built in"
                                       : "not built in (one process only)");
        return code;
    }
    if (n_pos == 0)
        return hs_cli_usage_error("advise", "which question: ring, batch or "
                                  "mix?");
    if (strcmp(pos[0], "ring") != 0 && strcmp(pos[0], "batch") != 0 &&
        strcmp(pos[0], "mix") != 0)
        return hs_cli_usage_error("advise", "'%s' is not a question: ring, "
                                  "batch or mix", pos[0]);
    /* every rank parses, loads and asks the same question */
    if (hs_sweep_mpi_init(&mpi, &err) != HS_OK)
        return hs_cli_fail(&err);
    o.rank = mpi.rank;
    o.mpi = &mpi;
    hs_progress_init(&bar, mpi.rank == 0 && !o.no_progress && !o.quiet &&
                               (o.progress || isatty(STDERR_FILENO)),
                     0.25);
    ex.progress = bar.on ? hs_progress_report : NULL;
    ex.progress_ctx = &bar;
    ex.rank = mpi.rank;
    ex.size = mpi.size;
    ex.allgather = hs_sweep_mpi_allgather;
    ex.gather_ctx = &mpi;
    o.ex = &ex;
    if (hs_cli_load_scenario(n_pos > 1 ? pos[1] : NULL, &s, &err) != HS_OK) {
        rc = mpi.rank == 0 ? hs_cli_fail(&err) : hs_err_exit_code(err.code);
        goto done;
    }
    hs_cli_replay_apply(&cro, s, &ro);
    /* the confirming replays past the budgets: refused (in the library)
       unless --force */
    ro.force = fo.force;
    if (strcmp(pos[0], "ring") == 0)
        rc = hs__ring(s, &ro, &o);
    else if (strcmp(pos[0], "batch") == 0)
        rc = hs__batch(s, &ro, &o);
    else
        rc = hs__mix(s, &ro, &o);
    hs_progress_end(&bar, stderr);
done:
    hs_scenario_free(s);
    hs_sweep_mpi_finalize(&mpi);
    return rc;
}
