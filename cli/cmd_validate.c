/*
 * cmd_validate.c -- `hetsim validate [SCENARIO] [--tolerance PCT] [--json]`:
 * the closed form against the replay, per device type and for the
 * cluster, with the difference in ns and percent; exit status 1 when the
 * cluster's difference is beyond the tolerance.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "hs_answer.h"
#include "hs_cli.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_units.h"

/* What validate's own options fill. */
typedef struct hs__validate_opts_s {
    int json, source, have_tol;
    double tol;
} hs__validate_opts_t;

static const char *const hs__formula_names[] = {"extended", "source", NULL};

static const hs_opt_t hs__validate_table[] = {
    {.name = "tolerance", .kind = HS_OPT_DOUBLE,
     HS_OPT_AT(hs__validate_opts_t, tol), .d_lo = 0, .d_hi = DBL_MAX,
     HS_OPT_SEEN_AT(hs__validate_opts_t, have_tol), .metavar = "PCT",
     .help = "exit 1 when |simulated - closed| / closed > PCT %"},
    {.name = "json", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__validate_opts_t, json),
     .help = "print the comparison as JSON (times in ns)"},
    {.name = "formula", .kind = HS_OPT_ENUM,
     HS_OPT_AT(hs__validate_opts_t, source), .choices = hs__formula_names,
     .metavar = "F", .help = "extended (default) or source"},
    HS_OPT_END};

static const hs_opt_cmd_t hs__validate_cmd = {
    .name = "validate",
    .usage =
        "usage: hetsim validate [SCENARIO] [--tolerance PCT] [--json]\n"
        "                       [--formula extended|source] [--steps K]\n"
        "                       [--seed S] [--overlap MODE] [--send MODE]\n"
        "                       [--hop-wait HOW]\n"
        "                       [--streams K] [--stochastic] [--force]\n",
    .about =
        "Runs the closed form and the discrete-event replay on SCENARIO (a\n"
        "YAML file; without it, the embedded default) and prints, per device\n"
        "type and for the cluster, the closed-form step, the simulated\n"
        "steady-state step and their difference (ns and %).\n\n"
        "The closed form compared is, by default, the extended one:\n"
        "T_ext(i) = max(t_dl, T_fwd + max(t_bwd, E(i)) + t_opt), E(i) the\n"
        "end of the all-reduce in the overlap mode replayed (patent:\n"
        "t_b1 + T_ar(i); none: t_bwd + T_ar(i); last_bucket and buckets:\n"
        "from the buckets' ready times, docs/method.md).  It models what the\n"
        "replay models and, under overlap patent, equals the source's\n"
        "T(i) = max(t_dl, T_fwd + t_b1 + T_ar(i)) whenever the rest of the\n"
        "backward and the optimizer are unknown or hidden by the ring; so a\n"
        "difference shows what the per-device max misses about the ring.\n"
        "--formula source compares the source's T(i) itself.\n\n"
        "The tolerance applies to the cluster step: in a ring every device\n"
        "steps at the cluster's pace, so a fast type's own closed-form figure\n"
        "is not expected to match (its row is shown for information).\n",
    .after =
        "exit status: 0 ok or no tolerance given, 1 beyond the tolerance,\n"
        "2 bad scenario or option, 3 I/O error.\n",
    .pos_name = "SCENARIO",
    .max_pos = 1};

/* One row: every predictor's step, and the replay against the compared
   closed form (closed). */
static void hs__row(yajl_gen g, int64_t source, int64_t ext, int64_t closed,
                    int64_t sim)
{
    hs_cli_kv_i64(g, "step_source_ns", source);
    hs_cli_kv_i64(g, "step_extended_ns", ext);
    hs_cli_kv_i64(g, "step_replay_ns", sim);
    hs_cli_js(g, "diff_ns");
    yajl_gen_integer(g, sim - closed);
    hs_cli_js(g, "diff_pct");
    yajl_gen_double(g, hs_cli_pct(sim, closed));
}

/* Prints the comparison as JSON: the scenario, the answer, per type and
   for the cluster each predictor's step against the replay (tclosed,
   cclosed: the compared closed form's), the tolerance and whether the
   cluster is within it (ok). */
static void hs__validate_json(const hs_scenario_t *s, const hs_answer_t *an,
                              const hs__validate_opts_t *vo, int ok,
                              const int64_t *tclosed, int64_t cclosed)
{
    const hs_replay_result_t *r = an->replay;
    yajl_gen g = hs_cli_json_new();
    size_t t;

    yajl_gen_map_open(g);
    hs_cli_json_head(g, "hetsim.validate");
    hs_cli_js(g, "scenario");
    yajl_gen_map_open(g);
    hs_cli_js(g, "name");
    if (s->name != NULL)
        hs_cli_js(g, s->name);
    else
        yajl_gen_null(g);
    hs_cli_js(g, "file");
    hs_cli_js(g, s->file);
    yajl_gen_map_close(g);
    hs_cli_kv_answer(g, an);
    hs_cli_js(g, "formula");
    hs_cli_js(g, vo->source ? "source" : "extended");
    hs_cli_js(g, "overlap");
    hs_cli_js(g, hs_overlap_name(r->overlap));
    hs_cli_js(g, "overlap_asked");
    hs_cli_js(g, hs_overlap_name(r->overlap_asked));
    hs_cli_js(g, "send");
    hs_cli_js(g, hs_send_name(r->send));
    hs_cli_js(g, "steps");
    yajl_gen_integer(g, r->steps);
    hs_cli_js(g, "types");
    yajl_gen_array_open(g);
    for (t = 0; t < r->n_types; t++) {
        yajl_gen_map_open(g);
        hs_cli_js(g, "name");
        hs_cli_js(g, s->types[t].name);
        hs_cli_js(g, "count");
        yajl_gen_integer(g, (long long)s->types[t].count);
        hs__row(g, r->type_closed_ns[t], r->type_closed_ext_ns[t],
                tclosed[t], r->type_step_ns[t]);
        yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
    hs_cli_js(g, "cluster");
    yajl_gen_map_open(g);
    hs__row(g, r->closed_step_ns, r->closed_ext_step_ns, cclosed,
            r->step_ns);
    yajl_gen_map_close(g);
    hs_cli_js(g, "tolerance_pct");
    if (vo->have_tol)
        yajl_gen_double(g, vo->tol);
    else
        yajl_gen_null(g);
    hs_cli_js(g, "within_tolerance");
    if (vo->have_tol)
        yajl_gen_bool(g, ok);
    else
        yajl_gen_null(g);
    hs_cli_kv_notes(g, "notes", s, r->notes, r->n_notes);
    yajl_gen_map_close(g);
    hs_cli_json_print(g);
}

/* Prints the comparison as text: as hs__validate_json, in a table. */
static void hs__validate_text(const hs_scenario_t *s, const hs_answer_t *an,
                              const hs__validate_opts_t *vo, int ok,
                              const int64_t *tclosed, int64_t cclosed)
{
    const hs_replay_result_t *r = an->replay;
    int source = vo->source;
    char a[64], b[64], c[64];
    size_t t;

    printf("hetsim %s -- closed form (%s) vs replay (%u steps, overlap "
           "%s, send %s)\n",
           HS_VERSION, source ? "source T(i)" : "extended T_ext(i)",
           r->steps, hs_overlap_name(r->overlap),
           hs_send_name(r->send));
    printf("scenario: %s (%s)\n\n", s->name ? s->name : "(unnamed)",
           s->file);
    printf("recommended: %s; step %s, epoch %s, total %s\n\n",
           hs_predictor_name(an->recommended),
           hs_fmt_time(hs_answer_best(an)->step_ns, a, sizeof a),
           hs_answer_best(an)->epoch_ns >= 0
               ? hs_fmt_time(hs_answer_best(an)->epoch_ns, b, sizeof b)
               : "unknown",
           hs_answer_best(an)->total_ns >= 0
               ? hs_fmt_time(hs_answer_best(an)->total_ns, c, sizeof c)
               : "unknown");
    printf("%-14s %7s %14s %14s %14s %10s\n", "type", "count",
           source ? "source" : "extended", "replay", "difference",
           "diff %");
    for (t = 0; t < r->n_types; t++)
        printf("%-14s %7llu %14s %14s %14s %+9.2f%%\n", s->types[t].name,
               (unsigned long long)s->types[t].count,
               hs_fmt_time(tclosed[t], a, sizeof a),
               hs_fmt_time(r->type_step_ns[t], b, sizeof b),
               hs_fmt_time(r->type_step_ns[t] - tclosed[t], c,
                           sizeof c),
               hs_cli_pct(r->type_step_ns[t], tclosed[t]));
    printf("%-14s %7zu %14s %14s %14s %+9.2f%%\n", "cluster",
           r->n_devices, hs_fmt_time(cclosed, a, sizeof a),
           hs_fmt_time(r->step_ns, b, sizeof b),
           hs_fmt_time(r->step_ns - cclosed, c, sizeof c),
           hs_cli_pct(r->step_ns, cclosed));
    printf("(difference in ns: %lld)\n",
           (long long)(r->step_ns - cclosed));
    if (vo->have_tol)
        printf("\ntolerance %.3g%%: %s\n", vo->tol,
               ok ? "within" : "EXCEEDED");
    for (t = 0; t < r->n_notes; t++)
        printf("note: %s\n", r->notes[t]);
}

int hs_cli_validate(int argc, char **argv)
{
    const char *path = NULL;
    hs__validate_opts_t vo = {0, 0, 0, 0.0};
    hs_cli_replay_opts_t ro;
    hs_cli_force_t fo = {0};
    const hs_opt_group_t groups[] = {{hs__validate_table, &vo},
                                     {hs_cli_force_table, &fo},
                                     {hs_cli_replay_table, &ro}};
    hs_replay_opts_t opts;
    int ok = 1, rc;
    size_t n_pos;
    hs_scenario_t *s = NULL;
    hs_answer_t *an = NULL;
    const hs_replay_result_t *r;
    hs_error_t err;
    const int64_t *tclosed;
    int64_t cclosed;

    hs_error_clear(&err);
    hs_cli_replay_opts_init(&ro);
    if (!hs_cli_parse(&hs__validate_cmd, groups, 3, argc, argv, &path, 1,
                      &n_pos, &rc))
        return rc;
    rc = hs_cli_load_scenario(path, &s, &err);
    if (rc != HS_OK)
        return hs_cli_fail(&err);
    hs_cli_replay_apply(&ro, s, &opts);
    /* a replay that would not end in reasonable time or memory */
    rc = hs_cli_replay_check(s, &opts, &ro, fo.force, &err);
    if (rc == HS_OK) {
        rc = hs_answer_run(s, &opts, HS_ANSWER_REPLAY_ALWAYS, NULL, 0, &an,
                           &err);
        if (rc != HS_OK)
            hs_cli_blame_steps(&err, ro.steps);
    }
    if (rc != HS_OK) {
        hs_scenario_free(s);
        return hs_cli_fail(&err);
    }
    r = an->replay;
    tclosed = vo.source ? r->type_closed_ns : r->type_closed_ext_ns;
    cclosed = vo.source ? r->closed_step_ns : r->closed_ext_step_ns;
    if (vo.have_tol && !(fabs(hs_cli_pct(r->step_ns, cclosed)) <= vo.tol))
        ok = 0;
    if (vo.json)
        hs__validate_json(s, an, &vo, ok, tclosed, cclosed);
    else
        hs__validate_text(s, an, &vo, ok, tclosed, cclosed);
    rc = hs_cli_stdout_status();
    if (rc == 0 && !ok) {
        fprintf(stderr,
                "hetsim validate: cluster step differs by %+.2f%% "
                "(tolerance %.3g%%)\n",
                hs_cli_pct(r->step_ns, cclosed), vo.tol);
        rc = hs_err_exit_code(HS_ERR_TOLERANCE);
    }
    hs_answer_free(an);
    hs_scenario_free(s);
    return rc;
}
