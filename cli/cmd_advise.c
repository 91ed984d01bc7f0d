/*
 * cmd_advise.c -- `hetsim advise ring|batch|mix [SCENARIO] ...`: the ring
 * order, the batch per type, the device mix that the closed form finds
 * and the recommended predictor judges against the given configuration
 * (whatif/hs_advise.h), as a short report with units in its headers or as
 * JSON (schemas/advise-*.schema.json), and the recommendation written as
 * a scenario file (-o; nothing when no better configuration is found).
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
#include "hs_limits.h"
#include "hs_suggest.h"
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
    uint32_t max_micro;     /* batch: most micro-batches a step (0: off) */
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
     .help = "print the result as JSON (times in ns; the fields:\n"
             "schemas/advise-QUESTION.schema.json)"},
    {.name = "output", .short_name = 'o', .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__adv_opts_t, out), .metavar = "FILE",
     .help = "write the recommendation as a scenario file (and, for batch,\n"
             "each type's scaled profile beside it); nothing when no\n"
             "better configuration is found"},
    {.name = "no-replay", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__adv_opts_t, no_replay),
     .help = "judge the candidates by the extended closed form, not by\n"
             "the replay"},
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
    {.name = "max-micro", .kind = HS_OPT_U64,
     HS_OPT_AT(hs__adv_opts_t, max_micro), .u_lo = 1, .u_hi = 65536,
     .metavar = "N",
     .help = "batch: let a type reach a batch above its --max-batch by\n"
             "gradient accumulation, up to N equal micro-batches a step\n"
             "(default 1: each type keeps its micro_batches)"},
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
        "  batch  per-type batches that even out the devices' work at the\n"
        "         same global batch (linear from each profile, or\n"
        "         interpolated over its batch_points);\n"
        "  mix    the device counts that train soonest within --budget, or\n"
        "         most cheaply within --deadline (--price for every type).\n"
        "A closed form searches; the recommended predictor (the replay when\n"
        "it fits the answer budget, else the extended closed form) judges\n"
        "every candidate and the given configuration, and a candidate is\n"
        "recommended only when it beats the given one (by epoch when known,\n"
        "else step; mix: the goal within the constraint).  Otherwise: \"no\n"
        "better configuration found\", exit 0, and -o writes nothing.\n"
        "--force replays every candidate whatever it costs.\n"
        "Scenarios with nodes: ring keeps each node's devices together and\n"
        "orders the nodes; mix counts whole nodes of each type's node kind.\n"
        "\n"
        "Under MPI (mpirun -n K hetsim advise ...): the mixes, and the\n"
        "judging of every question's candidates, are split over the ranks;\n"
        "rank 0 prints and writes the same answer as one process.\n",
    .after = "exit status: 0 ok (a recommendation, or no better configuration "
             "found); 1 mix:\nthe recommended predictor says neither the "
             "given mix nor any of the closed\nform's best meets the "
             "constraint; 2 bad scenario or options, or no mix\nmeets it "
             "by the closed form.\n",
    .pos_name = "QUESTION and SCENARIO",
    .max_pos = 2};

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
        if (!ok) {
            /* the name before '=' against the scenario's types */
            char name[HS_LIMIT_NAME_LEN + 1], hint[512];
            const char *eq = strchr(kv->name[i], '=');
            size_t n = eq != NULL ? (size_t)(eq - kv->name[i]) : 0;

            snprintf(name, sizeof name, "%.*s",
                     (int)(n < sizeof name ? n : sizeof name - 1),
                     kv->name[i]);
            return hs_cli_usage_error(
                "advise", "--%s %s: no device type of that name in %s%s",
                opt, kv->name[i], s->file,
                hs_scenario_type_hint(s, name, hint, sizeof hint));
        }
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

/* ---- the output vocabulary (docs/commands.md, schemas/advise-*.json) ---- */

static const char *const hs__qname[3] = {"step", "epoch", "total"};

/* The value or null. */
static void hs__kv_ns(yajl_gen g, const char *key, int64_t ns)
{
    hs_cli_js(g, key);
    if (ns >= 0)
        yajl_gen_integer(g, (long long)ns);
    else
        yajl_gen_null(g);
}

/* A configuration's figures: <quantity>_<predictor>_ns for step, epoch,
   total by source, extended, replay and recommended; the recommended
   predictor and why. */
static void hs__json_fig(yajl_gen g, const hs_advise_fig_t *f)
{
    static const char *const pn[HS_PREDICTORS] = {"source", "extended",
                                                  "replay"};
    char key[48];
    int q, p;

    for (q = 0; q < 3; q++) {
        for (p = 0; p <= HS_PREDICTORS; p++) {
            const hs_estimate_t *e = &f->est[p < HS_PREDICTORS
                                                 ? p
                                                 : (int)f->recommended];
            int64_t v = q == 0 ? e->step_ns : q == 1 ? e->epoch_ns
                                                     : e->total_ns;

            snprintf(key, sizeof key, "%s_%s_ns", hs__qname[q],
                     p < HS_PREDICTORS ? pn[p] : "recommended");
            hs__kv_ns(g, key, v);
        }
    }
    hs_cli_kv_str(g, "predictor_recommended",
                  hs_predictor_name(f->recommended));
    hs_cli_kv_str(g, "predictor_why", f->why);
}

/* The head every advise document starts with. */
static void hs__json_head(yajl_gen g, const char *question,
                          const hs_scenario_t *s)
{
    char fmt[32];

    snprintf(fmt, sizeof fmt, "hetsim.advise.%s", question);
    hs_cli_kv_str(g, "format", fmt);
    hs_cli_kv_i64(g, "format_version", 2);
    hs_cli_kv_str(g, "hetsim_version", HS_VERSION);
    hs_cli_kv_str(g, "question", question);
    hs_cli_kv_str(g, "scenario", s->file);
}

/* What the answer was judged on, given against recommended (c NULL: no
   recommendation). */
static void hs__json_judged(yajl_gen g, const hs_advise_fig_t *given,
                            const hs_advise_fig_t *c, int want_total,
                            hs_advise_outcome_t outcome)
{
    int64_t vg, vc;
    hs_predictor_t p;
    int q;

    hs_advise_fig_pair(c != NULL ? c : given, given, want_total, &vc, &vg,
                       &p, &q);
    hs_cli_kv_str(g, "outcome", hs_advise_outcome_name(outcome));
    hs_cli_kv_str(g, "predictor_recommended",
                  hs_predictor_name(given->recommended));
    hs_cli_kv_str(g, "predictor_why", given->why);
    hs_cli_js(g, "judged");
    yajl_gen_map_open(g);
    hs_cli_kv_str(g, "predictor", hs_predictor_name(p));
    hs_cli_kv_str(g, "quantity", hs__qname[q]);
    hs__kv_ns(g, "given_ns", vg);
    hs__kv_ns(g, "recommended_ns", c != NULL ? vc : -1);
    hs_cli_js(g, "change_pct");
    if (c != NULL && vg > 0)
        yajl_gen_double(g, 100.0 * (double)(vc - vg) / (double)vg);
    else
        yajl_gen_null(g);
    yajl_gen_map_close(g);
}

/* "12.345" (ms) or "-". */
static void hs__ms(char *buf, size_t n, int64_t ns)
{
    if (ns < 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.3f", (double)ns / 1e6);
}

/* "12.345" (s) or "-". */
static void hs__sec(char *buf, size_t n, int64_t ns)
{
    if (ns < 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.3f", (double)ns / 1e9);
}

/* The judge, in a line: which predictor, and why. */
static void hs__print_judge(const hs_advise_fig_t *given,
                            const hs__adv_opts_t *o)
{
    printf("judged by the %s predictor%s: %s\n",
           given->recommended == HS_PREDICTOR_REPLAY ? "replay"
                                                     : "extended closed-form",
           o->no_replay ? " (--no-replay)" : " (the recommended one)",
           given->why);
}

/* The table's header: the three steps, then the judge's epoch (or total)
   when known; name is the first column's header. */
static void hs__print_head(const char *name, const hs_advise_fig_t *given,
                           int want_total)
{
    char last[48] = "";
    const hs_estimate_t *e = &given->est[given->recommended];

    if (want_total && e->total_ns >= 0)
        snprintf(last, sizeof last, "%s total (s)",
                 hs_predictor_name(given->recommended));
    else if (e->epoch_ns >= 0)
        snprintf(last, sizeof last, "%s epoch (s)",
                 hs_predictor_name(given->recommended));
    printf("%-14s %17s %19s %17s %19s\n", name, "source step (ms)",
           "extended step (ms)", "replay step (ms)", last);
}

/* One row: label, the three steps, the judge's epoch or total (marked
   with its predictor when it is not the given one's). */
static void hs__print_row(const char *label, const hs_advise_fig_t *f,
                          const hs_advise_fig_t *given, int want_total)
{
    char a[32], b[32], c[32], d[48];
    const hs_estimate_t *e = &f->est[f->recommended];
    const hs_estimate_t *ge = &given->est[given->recommended];

    hs__ms(a, sizeof a, f->est[HS_PREDICTOR_SOURCE].step_ns);
    hs__ms(b, sizeof b, f->est[HS_PREDICTOR_EXTENDED].step_ns);
    hs__ms(c, sizeof c, f->est[HS_PREDICTOR_REPLAY].step_ns);
    d[0] = '\0';
    if (want_total && ge->total_ns >= 0)
        hs__sec(d, sizeof d, e->total_ns);
    else if (ge->epoch_ns >= 0)
        hs__sec(d, sizeof d, e->epoch_ns);
    if (d[0] != '\0' && f->recommended != given->recommended)
        snprintf(d + strlen(d), sizeof d - strlen(d), " (%s)",
                 hs_predictor_name(f->recommended));
    printf("%-14s %17s %19s %17s %19s", label, a, b, c, d);
}

/* The verdict: the recommendation and its gain by the judge, or "no
   better configuration found". */
static void hs__print_verdict(const char *what, const hs_advise_fig_t *given,
                              const hs_advise_fig_t *c, const char *label,
                              int want_total)
{
    int64_t vg, vc;
    hs_predictor_t p;
    int q;
    char a[32], b[32];

    hs_advise_fig_pair(c != NULL ? c : given, given, want_total, &vc, &vg,
                       &p, &q);
    hs_fmt_time(vg, a, sizeof a);
    if (c == NULL) {
        printf("no better configuration found: no candidate's %s %s is "
               "shorter than the %s's (%s)%s\n", hs_predictor_name(p),
               hs__qname[q], what, a,
               strncmp(what, "given", 5) == 0 ? "; the given configuration "
                                                "stays"
                                              : "");
        return;
    }
    hs_fmt_time(vc, b, sizeof b);
    printf("recommended: %s -- %s %s %s -> %s (%+.2f%%)\n", label,
           hs_predictor_name(p), hs__qname[q], a, b,
           vg > 0 ? 100.0 * (double)(vc - vg) / (double)vg : 0.0);
}

/* Writes the recommendation (-o), or says why nothing was written. */
static int hs__write(const hs_scenario_t *s, const hs_advise_ring_t *ring,
                     const hs_advise_batch_t *batch,
                     const hs_advise_mix_t *mix, int none,
                     const hs__adv_opts_t *o, int *written)
{
    hs_error_t err;

    *written = 0;
    if (o->out == NULL || none)
        return 0;
    if (hs_advise_write(s, ring, batch, mix, o->out, &err) != HS_OK)
        return hs_cli_fail(&err);
    *written = 1;
    return 0;
}

static void hs__print_written(const hs__adv_opts_t *o, int written)
{
    if (o->out == NULL)
        return;
    if (written)
        printf("scenario written: %s\n", o->out);
    else
        printf("nothing written to %s (no better configuration found)\n",
               o->out);
}

static int hs__ring(const hs_scenario_t *s, const hs_replay_opts_t *ro,
                    const hs__adv_opts_t *o)
{
    hs_advise_ring_t *r = NULL;
    hs_error_t err;
    size_t k;
    int none, written, rc;

    if (hs_advise_ring_x(s, ro, !o->no_replay, o->exact_max, o->ex, &r,
                         &err) != HS_OK)
        return hs__fail(o, &err);
    if (o->rank != 0) {
        hs_advise_ring_free(r);
        return 0;
    }
    hs_progress_end(o->ex->progress_ctx, stderr);
    none = r->outcome == HS_ADVISE_NONE;
    if ((rc = hs__write(s, r, NULL, NULL, none, o, &written)) != 0) {
        hs_advise_ring_free(r);
        return rc;
    }
    if (o->json) {
        yajl_gen g = hs_cli_json_new();

        yajl_gen_map_open(g);
        hs__json_head(g, "ring", s);
        hs_cli_kv_i64(g, "n_devices", r->n);
        hs__json_judged(g, &r->cands[0].fig,
                        none ? NULL : &r->cands[r->chosen].fig, 0,
                        r->outcome);
        hs_cli_kv_str(g, "recommended",
                      none ? NULL : r->cands[r->chosen].label);
        hs_cli_kv_str(g, "search", r->exact ? "exact" : "heuristic");
        hs_cli_kv_i64(g, "lower_bound_step_source_ns", r->lower_bound_ns);
        hs_cli_kv_dbl(g, "search_cpu_s", r->search_s);
        hs_cli_js(g, "candidates");
        yajl_gen_array_open(g);
        for (k = 0; k < r->n_cands; k++) {
            const hs_advise_ring_cand_t *c = &r->cands[k];
            uint32_t i;

            yajl_gen_map_open(g);
            hs_cli_kv_str(g, "label", c->label);
            hs_cli_kv_str(g, "same_as", c->same_as >= 0
                                            ? r->cands[c->same_as].label
                                            : NULL);
            hs_cli_js(g, "recommended");
            yajl_gen_bool(g, !none && k == r->chosen);
            hs__json_fig(g, &c->fig);
            hs_cli_js(g, "ring");
            yajl_gen_array_open(g);
            for (i = 0; i < r->n; i++)
                hs_cli_js(g, s->devices[c->order[i]].name);
            yajl_gen_array_close(g);
            yajl_gen_map_close(g);
        }
        yajl_gen_array_close(g);
        hs_cli_kv_str(g, "scenario_written", written ? o->out : NULL);
        yajl_gen_map_close(g);
        hs_cli_json_print(g);
    } else {
        const hs_advise_ring_cand_t *best = &r->cands[r->chosen];
        char a[32];

        printf("hetsim %s -- advise ring: %s (%u devices)\n", HS_VERSION,
               s->file, r->n);
        hs__print_judge(&r->cands[0].fig, o);
        printf("\n");
        hs__print_head("order", &r->cands[0].fig, 0);
        for (k = 0; k < r->n_cands; k++) {
            const hs_advise_ring_cand_t *c = &r->cands[k];

            hs__print_row(c->label, &c->fig, &r->cands[0].fig, 0);
            printf("%s%s\n", !none && k == r->chosen ? "   <- recommended"
                                                     : "",
                   c->same_as >= 0 ? "   (same order as above)" : "");
        }
        hs_fmt_time(r->lower_bound_ns, a, sizeof a);
        printf("\nsearch: %s, %.3f s; no order's source closed-form step is "
               "below %s\n", r->exact ? "exact" : "heuristic", r->search_s,
               a);
        hs__print_verdict("given order", &r->cands[0].fig,
                          none ? NULL : &best->fig, best->label, 0);
        if (!none && r->n <= 64) {
            uint32_t i;

            printf("recommended ring:");
            for (i = 0; i < r->n; i++)
                printf(" %s", s->devices[best->order[i]].name);
            printf("\n");
        }
        hs__print_written(o, written);
    }
    hs_advise_ring_free(r);
    return hs_cli_stdout_status();
}

/* Prints batch advice r as JSON (none: nothing recommended; written:
   the scenario was written to -o). */
static void hs__batch_json(const hs_scenario_t *s,
                           const hs_advise_batch_t *r,
                           const hs__adv_opts_t *o, int none, int written)
{
    yajl_gen g = hs_cli_json_new();
    size_t t, k;

    yajl_gen_map_open(g);
    hs__json_head(g, "batch", s);
    hs__json_judged(g, &r->cands[0].fig,
                    none ? NULL : &r->cands[r->chosen].fig, 0,
                    r->outcome);
    hs_cli_kv_str(g, "recommended",
                  none ? NULL : r->cands[r->chosen].label);
    hs_cli_kv_str(g, "scaling", r->scaling);
    hs_cli_kv_i64(g, "global_batch_asked", (int64_t)r->global_batch_asked);
    hs_cli_kv_i64(g, "global_batch", (int64_t)r->global_batch);
    hs_cli_js(g, "types");
    yajl_gen_array_open(g);
    for (t = 0; t < r->n_types; t++) {
        yajl_gen_map_open(g);
        hs_cli_kv_str(g, "name", s->types[t].name);
        hs_cli_kv_i64(g, "count", (int64_t)s->types[t].count);
        hs_cli_kv_i64(g, "batch_given", (int64_t)r->batch_before[t]);
        hs_cli_kv_i64(g, "batch_recommended", (int64_t)r->batch_after[t]);
        if (r->max_micro > 1) {
            /* micro-batches searched: the recommended step's split */
            hs_cli_kv_i64(g, "micro_batches_given",
                          (int64_t)r->micro_before[t]);
            hs_cli_kv_i64(g, "micro_batches_recommended",
                          (int64_t)r->micro_after[t]);
            hs_cli_kv_i64(g, "micro_batch_recommended",
                          (int64_t)(r->batch_after[t] / r->micro_after[t]));
        }
        yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
    hs_cli_js(g, "candidates");
    yajl_gen_array_open(g);
    for (k = 0; k < r->n_cands; k++) {
        const hs_advise_batch_cand_t *c = &r->cands[k];

        yajl_gen_map_open(g);
        hs_cli_kv_str(g, "label", c->label);
        hs_cli_js(g, "recommended");
        yajl_gen_bool(g, !none && k == r->chosen);
        hs_cli_kv_i64(g, "global_batch", (int64_t)c->global_batch);
        hs_cli_js(g, "batch");
        yajl_gen_map_open(g);
        for (t = 0; t < r->n_types; t++)
            hs_cli_kv_i64(g, s->types[t].name, (int64_t)c->batch[t]);
        yajl_gen_map_close(g);
        if (r->max_micro > 1) {
            hs_cli_js(g, "micro_batches");
            yajl_gen_map_open(g);
            for (t = 0; t < r->n_types; t++)
                hs_cli_kv_i64(g, s->types[t].name, (int64_t)c->micro[t]);
            yajl_gen_map_close(g);
        }
        hs_cli_js(g, "shard_samples");
        yajl_gen_map_open(g);
        for (t = 0; t < r->n_types; t++)
            if (c->shard[t] != 0)
                hs_cli_kv_i64(g, s->types[t].name, (int64_t)c->shard[t]);
        yajl_gen_map_close(g);
        hs__json_fig(g, &c->fig);
        yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
    hs_cli_kv_str(g, "scenario_written", written ? o->out : NULL);
    yajl_gen_map_close(g);
    hs_cli_json_print(g);
}

/* The per-type table of batch advice with micro-batches searched: the
   batch per step, and as how many micro-batches of how many samples,
   given and recommended. */
static void hs__batch_micro_table(const hs_scenario_t *s,
                                  const hs_advise_batch_t *r)
{
    size_t t;

    printf("\n%-12s %6s %8s %14s %12s %14s\n", "type", "count", "batch",
           "micro (given)", "recommended", "micro");
    for (t = 0; t < r->n_types; t++) {
        char a[48], b[48];

        snprintf(a, sizeof a, "%u x %llu", r->micro_before[t],
                 (unsigned long long)(r->batch_before[t] /
                                      r->micro_before[t]));
        snprintf(b, sizeof b, "%u x %llu", r->micro_after[t],
                 (unsigned long long)(r->batch_after[t] /
                                      r->micro_after[t]));
        printf("%-12s %6llu %8llu %14s %12llu %14s\n", s->types[t].name,
               (unsigned long long)s->types[t].count,
               (unsigned long long)r->batch_before[t], a,
               (unsigned long long)r->batch_after[t], b);
    }
}

/* Prints batch advice r as text (as hs__batch_json). */
static void hs__batch_text(const hs_scenario_t *s,
                           const hs_advise_batch_t *r,
                           const hs__adv_opts_t *o, int none, int written)
{
    size_t t, k;

    printf("hetsim %s -- advise batch: %s\n", HS_VERSION, s->file);
    hs__print_judge(&r->cands[0].fig, o);
    if (r->max_micro > 1)
        hs__batch_micro_table(s, r);
    else {
        printf("\n%-12s %6s %8s %12s\n", "type", "count", "batch",
               "recommended");
        for (t = 0; t < r->n_types; t++)
            printf("%-12s %6llu %8llu %12llu\n", s->types[t].name,
                   (unsigned long long)s->types[t].count,
                   (unsigned long long)r->batch_before[t],
                   (unsigned long long)r->batch_after[t]);
    }
    printf("\nglobal batch %llu%s\n",
           (unsigned long long)r->global_batch,
           r->global_batch != r->global_batch_asked
               ? " (the counts cannot make the one asked; nearest above)"
               : "");
    printf("scaling: %s\n\n", r->scaling);
    hs__print_head("candidate", &r->cands[0].fig, 0);
    for (k = 0; k < r->n_cands; k++) {
        const hs_advise_batch_cand_t *c = &r->cands[k];

        hs__print_row(c->label, &c->fig, &r->cands[0].fig, 0);
        printf("   ");
        for (t = 0; t < r->n_types; t++) {
            printf("%s%s=%llu", t ? " " : "", s->types[t].name,
                   (unsigned long long)c->batch[t]);
            if (r->max_micro > 1 && c->micro[t] > 1)
                printf("(%ux%llu)", c->micro[t],
                       (unsigned long long)(c->batch[t] / c->micro[t]));
        }
        printf("%s\n", !none && k == r->chosen ? "   <- recommended"
                                               : "");
    }
    printf("\n");
    hs__print_verdict(r->cands[0].label[0] == 'p'
                          ? "proportional split (the given batches "
                            "scaled to the global batch asked)"
                          : "given batches",
                      &r->cands[0].fig,
                      none ? NULL : &r->cands[r->chosen].fig,
                      r->cands[r->chosen].label, 0);
    hs__print_written(o, written);
}

static int hs__batch(const hs_scenario_t *s, const hs_replay_opts_t *ro,
                     const hs__adv_opts_t *o)
{
    hs_advise_batch_t *r = NULL;
    uint64_t *maxb;
    hs_error_t err;
    size_t t;
    int rc, none, written;

    if ((rc = hs__kv_check(&o->max_batch, "max-batch", s)) != 0)
        return rc;
    if ((maxb = calloc(s->n_types ? s->n_types : 1, sizeof *maxb)) == NULL)
        return hs_cli_fail(&(hs_error_t){HS_ERR_NOMEM, "out of memory"});
    for (t = 0; t < s->n_types; t++)
        maxb[t] = (uint64_t)hs__kv_get(&o->max_batch, s->types[t].name, 0,
                                       NULL);
    rc = hs_advise_batch_micro_x(s, ro, o->global_batch, maxb,
                                 o->max_micro, !o->no_replay, o->ex, &r,
                                 &err);
    free(maxb);
    if (rc != HS_OK)
        return hs__fail(o, &err);
    if (o->rank != 0) {
        hs_advise_batch_free(r);
        return 0;
    }
    hs_progress_end(o->ex->progress_ctx, stderr);
    none = r->outcome == HS_ADVISE_NONE;
    if ((rc = hs__write(s, NULL, r, NULL, none, o, &written)) != 0) {
        hs_advise_batch_free(r);
        return rc;
    }
    if (o->json)
        hs__batch_json(s, r, o, none, written);
    else
        hs__batch_text(s, r, o, none, written);
    hs_advise_batch_free(r);
    return hs_cli_stdout_status();
}

/* "a x2 + b x1" into buf. */
static void hs__mix_name(const hs_scenario_t *s, const uint64_t *counts,
                         char *buf, size_t len)
{
    size_t t, at = 0;

    buf[0] = '\0';
    for (t = 0; t < s->n_types && at < len; t++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s x%llu",
                               t ? " + " : "", s->types[t].name,
                               (unsigned long long)counts[t]);
}

static void hs__json_mix(yajl_gen g, const hs_scenario_t *s,
                         const uint64_t *counts, const hs_advise_fig_t *f,
                         double cost, int ok)
{
    size_t t;

    hs_cli_js(g, "counts");
    yajl_gen_map_open(g);
    for (t = 0; t < s->n_types; t++)
        hs_cli_kv_i64(g, s->types[t].name, (int64_t)counts[t]);
    yajl_gen_map_close(g);
    hs__json_fig(g, f);
    hs_cli_js(g, "cost_recommended");
    if (cost >= 0)
        yajl_gen_double(g, cost);
    else
        yajl_gen_null(g);
    hs_cli_js(g, "meets_constraint");
    yajl_gen_bool(g, ok);
}

/* The mix's verdict: the goal's figure first, given against
   recommended, or why nothing beats the given mix. */
static void hs__mix_verdict(const hs_advise_mix_t *r, const hs__adv_opts_t *o)
{
    const hs_advise_fig_t *c = r->outcome == HS_ADVISE_NONE
                                   ? NULL
                                   : &r->fig[r->chosen];
    const char *lim = o->has_budget ? "budget" : "deadline";
    int64_t vg, vc;
    hs_predictor_t p;
    char a[32], b[32], d[32];

    hs_advise_fig_pair(c != NULL ? c : &r->given, &r->given, 1, &vc, &vg, &p,
                       NULL);
    hs_fmt_time(vg, a, sizeof a);
    if (c == NULL) {
        printf("no better configuration found: no mix within the %s %s "
               "than the given one (%s total %s, cost %.4g); the given mix "
               "stays\n", lim,
               o->has_budget ? "trains faster" : "costs less",
               hs_predictor_name(p), a, r->given_cost);
        return;
    }
    hs_fmt_time(vc, b, sizeof b);
    if (o->has_budget)
        printf("recommended: mix %zu -- %s total %s -> %s (%+.2f%%), cost "
               "%.4g -> %.4g (budget %.4g)%s\n", r->chosen + 1,
               hs_predictor_name(p), a, b,
               vg > 0 ? 100.0 * (double)(vc - vg) / (double)vg : 0.0,
               r->given_cost, r->cost[r->chosen], o->budget,
               r->given_ok         ? ""
               : r->given_allowed ? "; the given mix is over the budget"
                                  : "; the given mix is outside --min/"
                                    "--avail");
    else
        printf("recommended: mix %zu -- cost %.4g -> %.4g (%+.2f%%), %s "
               "total %s -> %s (deadline %s)%s\n", r->chosen + 1,
               r->given_cost, r->cost[r->chosen],
               r->given_cost > 0 ? 100.0 * (r->cost[r->chosen] -
                                            r->given_cost) / r->given_cost
                                 : 0.0,
               hs_predictor_name(p), a, b,
               hs_fmt_time(o->deadline_ns, d, sizeof d),
               r->given_ok         ? ""
               : r->given_allowed ? "; the given mix misses the deadline"
                                  : "; the given mix is outside --min/"
                                    "--avail");
}

/* The search's types from --avail, --min and --price (*out, malloc'd):
   0, or the exit status of a usage error or failure. */
static int hs__mix_types(const hs_scenario_t *s, const hs__adv_opts_t *o,
                         hs_mixopt_type_t **out)
{
    hs_mixopt_type_t *ty;
    size_t t;
    int rc;

    *out = NULL;
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
    *out = ty;
    return 0;
}

/* Prints mix advice r as JSON (none: nothing recommended; written: the
   scenario was written to -o). */
static void hs__mix_json(const hs_scenario_t *s, const hs_advise_mix_t *r,
                         const hs__adv_opts_t *o, int none, int written)
{
    yajl_gen g = hs_cli_json_new();
    size_t k;

    yajl_gen_map_open(g);
    hs__json_head(g, "mix", s);
    hs_cli_kv_str(g, "goal", o->has_budget ? "fastest within budget"
                                           : "cheapest within deadline");
    hs_cli_js(g, "budget");
    if (o->has_budget)
        yajl_gen_double(g, o->budget);
    else
        yajl_gen_null(g);
    hs__kv_ns(g, "deadline_ns", o->has_deadline ? o->deadline_ns : -1);
    hs__json_judged(g, &r->given, none ? NULL : &r->fig[r->chosen], 1,
                    r->outcome);
    hs_cli_js(g, "recommended");
    if (none)
        yajl_gen_null(g);
    else
        yajl_gen_integer(g, (long long)r->chosen + 1);
    hs_cli_js(g, "constraint_met");
    yajl_gen_bool(g, r->met);
    hs_cli_js(g, "shards_derived");
    yajl_gen_bool(g, r->shards_derived);
    hs_cli_kv_i64(g, "mixes_visited", (int64_t)r->search->visited);
    hs_cli_kv_i64(g, "mixes_evaluated", (int64_t)r->search->evaluated);
    hs_cli_kv_dbl(g, "search_cpu_s", r->search_s);
    hs_cli_js(g, "given");
    yajl_gen_map_open(g);
    hs__json_mix(g, s, r->given_counts, &r->given, r->given_cost,
                 r->given_ok);
    hs_cli_js(g, "within_limits");
    yajl_gen_bool(g, r->given_allowed);
    yajl_gen_map_close(g);
    hs_cli_js(g, "candidates");
    yajl_gen_array_open(g);
    for (k = 0; k < r->search->n_top; k++) {
        const hs_mixopt_entry_t *e = &r->search->top[k];

        yajl_gen_map_open(g);
        hs_cli_kv_i64(g, "rank", (int64_t)k + 1);
        hs_cli_js(g, "recommended");
        yajl_gen_bool(g, !none && k == r->chosen);
        hs__json_mix(g, s, e->counts, &r->fig[k], r->cost[k], r->ok[k]);
        hs_cli_kv_dbl(g, "cost_extended", e->cost);
        yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
    hs_cli_kv_str(g, "scenario_written", written ? o->out : NULL);
    yajl_gen_map_close(g);
    hs_cli_json_print(g);
}

/* Prints mix advice r as text (as hs__mix_json). */
static void hs__mix_text(const hs_scenario_t *s, const hs_advise_mix_t *r,
                         const hs__adv_opts_t *o, int none, int written)
{
    char name[512];
    size_t k;

    printf("hetsim %s -- advise mix: %s\n", HS_VERSION, s->file);
    if (o->has_budget)
        printf("goal: the fastest mix within the budget (%.6g)\n",
               o->budget);
    else {
        char a[32];

        hs_fmt_time(o->deadline_ns, a, sizeof a);
        printf("goal: the cheapest mix within the deadline (%s)\n", a);
    }
    hs__print_judge(&r->given, o);
    if (r->shards_derived)
        printf("every mix trains the whole training set: the scenario's "
               "shards are replaced by shards that follow the batches "
               "(the given counts too)\n");
    printf("searched %llu mixes, evaluated %llu (the others ruled out "
           "by a lower bound), %.3f s\n\n",
           (unsigned long long)r->search->visited,
           (unsigned long long)r->search->evaluated, r->search_s);
    hs__print_head("mix", &r->given, 1);
    hs__print_row("given", &r->given, &r->given, 1);
    hs__mix_name(s, r->given_counts, name, sizeof name);
    printf("   cost %.4g%s   %s\n", r->given_cost,
           !r->given_allowed ? ", outside --min/--avail"
           : r->given_ok     ? ""
                             : ", misses the constraint",
           name);
    for (k = 0; k < r->search->n_top; k++) {
        char label[16];

        snprintf(label, sizeof label, "%zu", k + 1);
        hs__print_row(label, &r->fig[k], &r->given, 1);
        hs__mix_name(s, r->search->top[k].counts, name, sizeof name);
        printf("   cost %.4g%s   %s%s\n", r->cost[k],
               r->ok[k] ? "" : ", misses the constraint", name,
               !none && k == r->chosen ? "   <- recommended" : "");
    }
    printf("\n");
    if (!r->met)
        printf("the %s predictor says none of these meets the %s; "
               "widen the constraint\n",
               hs_predictor_name(r->given.recommended),
               o->has_budget ? "budget" : "deadline");
    else
        hs__mix_verdict(r, o);
    hs__print_written(o, written);
}

static int hs__mix(const hs_scenario_t *s, const hs_replay_opts_t *ro,
                   const hs__adv_opts_t *o)
{
    hs_advise_mix_t *r = NULL;
    hs_mixopt_type_t *ty;
    hs_error_t err;
    int rc, none, written;

    if ((rc = hs__mix_types(s, o, &ty)) != 0)
        return rc;
    rc = hs_advise_mix_x(s, ro, ty, o->has_budget ? HS_MIX_FASTEST
                                                  : HS_MIX_CHEAPEST,
                         o->budget, o->deadline_ns, !o->no_replay, o->ex, &r,
                         &err);
    free(ty);
    if (rc != HS_OK)
        return hs__fail(o, &err);
    if (o->rank != 0) {
        rc = !r->met ? hs_err_exit_code(HS_ERR_TOLERANCE) : 0;
        hs_advise_mix_free(r);
        return rc;
    }
    hs_progress_end(o->ex->progress_ctx, stderr);
    none = r->outcome == HS_ADVISE_NONE;
    if ((rc = hs__write(s, NULL, NULL, r, none, o, &written)) != 0) {
        hs_advise_mix_free(r);
        return rc;
    }
    if (o->json)
        hs__mix_json(s, r, o, none, written);
    else
        hs__mix_text(s, r, o, none, written);
    rc = !r->met ? hs_err_exit_code(HS_ERR_TOLERANCE)
                 : hs_cli_stdout_status();
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
        strcmp(pos[0], "mix") != 0) {
        static const char *const questions[] = {"ring", "batch", "mix",
                                                NULL};
        char hint[HS_SUGGEST_HINT_LEN];

        return hs_cli_usage_error(
            "advise", "'%s' is not a question: ring, batch or mix%s",
            pos[0], hs_suggest_hint_list(pos[0], questions, hint,
                                         sizeof hint));
    }
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
