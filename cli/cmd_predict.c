/*
 * cmd_predict.c -- `hetsim predict [SCENARIO] [--json] [--per-device]`:
 * the closed-form prediction, as a readable report or as stable JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "hs_cli.h"
#include "hs_answer.h"
#include "hs_closed.h"
#include "hs_coll_auto.h"
#include "hs_nodes.h"
#include "hs_scenario.h"
#include "hs_units.h"

/* What predict's options fill. */
typedef struct hs__predict_opts_s {
    int json, per_device, closed_only;
} hs__predict_opts_t;

static const hs_opt_t hs__predict_table[] = {
    {.name = "json", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__predict_opts_t, json),
     .help = "print the same as JSON (times in ns, sizes in bytes)"},
    {.name = "per-device", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__predict_opts_t, per_device),
     .help = "also list every device (text and JSON)"},
    {.name = "closed-only", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__predict_opts_t, closed_only),
     .help = "do not replay: the closed forms only (the extended\n"
             "form is then the recommended figure)"},
    HS_OPT_END};

static const hs_opt_cmd_t hs__predict_cmd = {
    .name = "predict",
    .usage = "usage: hetsim predict [SCENARIO] [--json] [--per-device]\n"
             "                      [--closed-only]\n",
    .about =
        "Predicts the step, epoch and total training time of SCENARIO (a YAML\n"
        "file; without it, the embedded default: the source's 100 MLU370 +\n"
        "100 A100 ResNet-50 example) with every predictor hetsim has: the\n"
        "source's closed form (docs/method.md, S400), the extended closed form\n"
        "(also the rest of the backward and the optimizer) and the replay of\n"
        "the ring (the scenario's simulate: section), when it takes about a\n"
        "second or less.  The recommended figure is the replay's when it ran,\n"
        "else the extended form's, and the report says why.  Also per device\n"
        "type: count, t_dl, compute, all-reduce and step time; the bottleneck\n"
        "device and link.\n",
    .after = "exit status: 0 ok, 2 bad scenario, 3 I/O error.\n",
    .pos_name = "SCENARIO",
    .max_pos = 1};

static const char *hs__bound_name(hs_bound_t b)
{
    return b == HS_BOUND_DATA ? "data_loading" : "device";
}

/* --- JSON ---------------------------------------------------------- */

/* Type k's figures as a JSON map (r: the replay, NULL when it did not
   run). */
static void hs__json_type(yajl_gen g, const hs_scenario_t *s,
                          const hs_prediction_t *p,
                          const hs_replay_result_t *r, size_t k)
{
    const hs_type_t *t = &s->types[k];
    const hs_type_pred_t *tp = &p->types[k];
    yajl_gen_map_open(g);
    hs_cli_kv_str(g, "name", t->name);
    hs_cli_kv_i64(g, "count", (int64_t)tp->count);
    hs_cli_kv_i64(g, "batch", (int64_t)t->batch);
    if (t->micro_batches > 1)   /* only with accumulation: the document
                                   without it is as before the key */
        hs_cli_kv_i64(g, "micro_batches", (int64_t)t->micro_batches);
    hs_cli_js(g, "t_dl_ns");
    if (t->profile.t_dl.known)
        yajl_gen_integer(g, t->profile.t_dl.mean_ns);
    else
        yajl_gen_null(g);
    hs_cli_kv_i64(g, "t_fwd_ns", tp->t_fwd_ns);
    hs_cli_kv_i64(g, "t_b1_ns", tp->t_b1_ns);
    hs_cli_js(g, "t_bwd_ns");
    if (t->profile.t_bwd.known)
        yajl_gen_integer(g, t->profile.t_bwd.mean_ns);
    else
        yajl_gen_null(g);
    hs_cli_js(g, "t_opt_ns");
    if (t->profile.t_opt.known)
        yajl_gen_integer(g, t->profile.t_opt.mean_ns);
    else
        yajl_gen_null(g);
    hs_cli_kv_i64(g, "allreduce_bytes", (int64_t)t->profile.ar_bytes);
    hs_cli_kv_i64(g, "subsystem_size", (int64_t)t->profile.subsys_n);
    hs_cli_kv_dbl(g, "comm_ns_per_byte", t->profile.comm_ns_per_byte);
    hs_cli_kv_i64(g, "t_hop_wait_ns", t->profile.t_hop_wait_ns);
    hs_cli_kv_dbl(g, "cpu_quota_cores", t->profile.cpu_quota_cores);
    hs_cli_kv_i64(g, "t_cpu_period_ns", t->profile.t_cpu_period_ns);
    hs_cli_kv_dbl(g, "payload_bytes", tp->payload_bytes);
    hs_cli_kv_i64(g, "t_ar_min_ns", tp->t_ar_min_ns);
    hs_cli_kv_i64(g, "t_ar_max_ns", tp->t_ar_max_ns);
    hs_cli_kv_i64(g, "step_source_min_ns", tp->t_step_min_ns);
    hs_cli_kv_i64(g, "step_source_max_ns", tp->t_step_max_ns);
    hs_cli_kv_i64(g, "step_extended_max_ns", p->types[k].t_ext_max_ns);
    hs_cli_js(g, "step_replay_ns");
    if (r != NULL)
        yajl_gen_integer(g, r->type_step_ns[k]);
    else
        yajl_gen_null(g);
    hs_cli_kv_str(g, "slowest_device", s->devices[tp->slowest_device].name);
    hs_cli_kv_i64(g, "shard_samples", (int64_t)tp->shard_samples);
    hs_cli_kv_i64(g, "iters_per_epoch", (int64_t)tp->iters);
    yajl_gen_map_close(g);
}

/* The bottleneck device and link as a JSON map. */
static void hs__json_bottleneck(yajl_gen g, const hs_scenario_t *s,
                                const hs_prediction_t *p)
{
    uint32_t lk = p->bottleneck_link;
    const hs_device_t *la = &s->devices[s->ring[lk]];
    const hs_device_t *lb =
        &s->devices[s->ring[lk + 1 == s->n_devices ? 0 : lk + 1]];
    const hs_device_t *bd = &s->devices[p->bottleneck_device];

    yajl_gen_map_open(g);
    hs_cli_kv_str(g, "device", bd->name);
    hs_cli_kv_str(g, "type", s->types[bd->type].name);
    hs_cli_kv_str(g, "bound", hs__bound_name(p->bottleneck_bound));
    hs_cli_js(g, "link");
    yajl_gen_map_open(g);
    hs_cli_kv_i64(g, "ring_pos", lk);
    hs_cli_kv_str(g, "from", la->name);
    hs_cli_kv_str(g, "to", lb->name);
    hs_cli_kv_str(g, "from_addr", la->addr);
    hs_cli_kv_str(g, "to_addr", lb->addr);
    hs_cli_kv_dbl(g, "bandwidth_bytes_per_s", s->ring_bw_bytes_per_s[lk]);
    hs_cli_kv_i64(g, "latency_ns", s->ring_lat_ns[lk]);
    hs_cli_kv_i64(g, "t_ar_ns", p->dev[s->ring[lk]].t_ar_ns);
    yajl_gen_map_close(g);
    yajl_gen_map_close(g);
}

/* Every device's figures as a JSON array. */
static void hs__json_devices(yajl_gen g, const hs_scenario_t *s,
                             const hs_answer_t *a)
{
    const hs_prediction_t *p = a->closed;
    size_t i;

    yajl_gen_array_open(g);
    for (i = 0; i < s->n_devices; i++) {
        const hs_device_t *d = &s->devices[i];
        const hs_dev_pred_t *r = &p->dev[i];
        yajl_gen_map_open(g);
        hs_cli_kv_str(g, "name", d->name);
        hs_cli_kv_str(g, "type", s->types[d->type].name);
        hs_cli_kv_str(g, "addr", d->addr);
        hs_cli_kv_i64(g, "ring_pos", d->ring_pos);
        hs_cli_kv_dbl(g, "next_bandwidth_bytes_per_s",
                   s->ring_bw_bytes_per_s[d->ring_pos]);
        hs_cli_kv_i64(g, "t_fwd_ns", r->t_fwd_ns);
        hs_cli_kv_i64(g, "t_b1_ns", r->t_b1_ns);
        hs_cli_kv_i64(g, "t_ar_ns", r->t_ar_ns);
        hs_cli_kv_i64(g, "step_source_ns", r->t_step_ns);
        hs_cli_kv_i64(g, "step_extended_ns", r->t_ext_ns);
        hs_cli_js(g, "step_replay_ns");
        if (a->replay != NULL)
            yajl_gen_integer(g, a->replay->dev_step_ns[i]);
        else
            yajl_gen_null(g);
        hs_cli_kv_str(g, "bound", hs__bound_name(r->bound));
        yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
}

/* Prints the answer a as JSON: the scenario, every predictor's figures,
   per type, the bottleneck, notes, and per device (per_device). */
static void hs__json(const hs_scenario_t *s, const hs_answer_t *a,
                     int per_device)
{
    const hs_prediction_t *p = a->closed;
    const hs_replay_result_t *r = a->replay;
    yajl_gen g = hs_cli_json_new();
    size_t k;
    yajl_gen_map_open(g);
    hs_cli_json_head(g, "hetsim.predict");
    hs_cli_js(g, "scenario");
    yajl_gen_map_open(g);
    hs_cli_kv_str(g, "name", s->name);
    hs_cli_kv_str(g, "file", s->file);
    hs_cli_kv_str(g, "model", s->model_label);
    yajl_gen_map_close(g);
    hs_cli_kv_answer(g, a);
    hs_cli_kv_i64(g, "n_devices", (int64_t)s->n_devices);
    hs_cli_kv_i64(g, "latency_ns", s->latency_ns);
    hs_cli_js(g, "types");
    yajl_gen_array_open(g);
    for (k = 0; k < s->n_types; k++)
        hs__json_type(g, s, p, r, k);
    yajl_gen_array_close(g);
    hs_cli_js(g, "bottleneck");
    hs__json_bottleneck(g, s, p);
    if (s->collective != NULL)
        hs_cli_kv_str(g, "collective", s->collective);
    if (s->collective != NULL && strcmp(s->collective, "auto") == 0) {
        hs_coll_choice_t ch;
        hs_coll_auto_choose(s, &ch);
        hs_cli_kv_str(g, "collective_chosen", ch.chosen->name);
        hs_cli_kv_str(g, "collective_why", ch.why);
    }
    if (s->nodes != NULL)
        hs_cli_kv_i64(g, "nodes", (int64_t)s->nodes->n_nodes);
    hs_cli_js(g, "shards_unbalanced");
    yajl_gen_bool(g, p->shards_unbalanced);
    hs_cli_kv_dbl(g, "shard_coverage", p->shard_coverage);
    hs_cli_kv_notes(g, "notes", s, a->notes, a->n_notes);
    if (per_device) {
        hs_cli_js(g, "devices");
        hs__json_devices(g, s, a);
    }
    yajl_gen_map_close(g);
    hs_cli_json_print(g);
}

/* --- text ---------------------------------------------------------- */

/* Prints the text answer's head: version, scenario, model, the cluster
   by type, the nodes, the collective (auto: its choice and why). */
static void hs__text_head(const hs_scenario_t *s, const hs_prediction_t *p)
{
    size_t k;

    printf("hetsim %s -- prediction\n", HS_VERSION);
    printf("scenario: %s (%s)\n", s->name ? s->name : "(unnamed)", s->file);
    if (s->model_label)
        printf("model:    %s\n", s->model_label);
    printf("cluster:  %zu devices in one ring", s->n_devices);
    for (k = 0; k < s->n_types; k++)
        printf("%s%llu x %s", k ? ", " : ": ",
               (unsigned long long)p->types[k].count, s->types[k].name);
    if (s->nodes != NULL) {
        /* the nodes: section (model/hs_nodes.h) */
        printf("\nnodes:    %zu", s->nodes->n_nodes);
        for (k = 0; k < s->nodes->n_kinds; k++)
            printf("%s%u x %s (%u devices)", k ? ", " : ": ",
                   s->nodes->kinds[k].count, s->nodes->kinds[k].name,
                   s->nodes->kinds[k].devices);
    }
    if (s->collective != NULL)
        printf("\ncollective: %s", s->collective);
    if (s->collective != NULL && strcmp(s->collective, "auto") == 0) {
        hs_coll_choice_t ch;
        hs_coll_auto_choose(s, &ch);
        printf(" -> %s", ch.why);
    }
    printf("\n\n");
}

/* Prints the per device type table: the slowest device of each type,
   its step by predictor (replay "-" when rr is NULL). */
static void hs__text_types(const hs_scenario_t *s, const hs_prediction_t *p,
                           const hs_replay_result_t *rr)
{
    char x[64], b[64], c[64], d[64], e[64], f[64], g[64], h[64];
    size_t k;

    printf("\nper device type (the slowest device of each; step by "
           "predictor)\n");
    printf("%-12s %6s %6s %10s %10s %10s %19s %11s %11s %11s\n", "type",
           "count", "batch", "t_dl", "T_fwd", "t_b1", "T_ar (min..max)",
           "source", "extended", "replay");
    for (k = 0; k < s->n_types; k++) {
        const hs_type_pred_t *tp = &p->types[k];
        const hs_profile_t *pr = &s->types[k].profile;
        char ar[64];
        if (tp->count == 0) {
            printf("%-12s %6s %6llu %10s %10s %10s %19s %11s %11s %11s\n",
                   s->types[k].name, "0",
                   (unsigned long long)s->types[k].batch, "-", "-", "-",
                   "-", "-", "-", "-");
            continue;
        }
        if (tp->t_ar_min_ns == tp->t_ar_max_ns)
            hs_fmt_time(tp->t_ar_max_ns, ar, sizeof ar);
        else
            snprintf(ar, sizeof ar, "%s..%s",
                     hs_fmt_time(tp->t_ar_min_ns, d, sizeof d),
                     hs_fmt_time(tp->t_ar_max_ns, e, sizeof e));
        printf("%-12s %6llu %6llu %10s %10s %10s %19s %11s %11s %11s\n",
               s->types[k].name, (unsigned long long)tp->count,
               (unsigned long long)s->types[k].batch,
               pr->t_dl.known ? hs_fmt_time(pr->t_dl.mean_ns, x, sizeof x)
                              : "unknown",
               hs_fmt_time(tp->t_fwd_ns, b, sizeof b),
               hs_fmt_time(tp->t_b1_ns, c, sizeof c), ar,
               hs_fmt_time(tp->t_step_max_ns, f, sizeof f),
               hs_fmt_time(p->types[k].t_ext_max_ns, g, sizeof g),
               rr != NULL ? hs_fmt_time(rr->type_step_ns[k], h, sizeof h)
                          : "-");
    }
}

/* Prints the payload, the bottleneck device and the slowest ring
   link. */
static void hs__text_bottleneck(const hs_scenario_t *s,
                                const hs_prediction_t *p)
{
    char x[64], b[64];
    uint32_t lk = p->bottleneck_link;
    const hs_device_t *la = &s->devices[s->ring[lk]];
    const hs_device_t *lb =
        &s->devices[s->ring[lk + 1 == s->n_devices ? 0 : lk + 1]];
    const hs_device_t *bd = &s->devices[p->bottleneck_device];

    printf("\npayload M per step: %s (D = %llu B measured on %u devices)\n",
           hs_fmt_bytes((uint64_t)p->types[0].payload_bytes, x, sizeof x),
           (unsigned long long)s->types[0].profile.ar_bytes,
           s->types[0].profile.subsys_n);
    printf("bottleneck device:  %s (%s), bound by %s (source formula)\n",
           bd->name, s->types[bd->type].name,
           p->bottleneck_bound == HS_BOUND_DATA
               ? "data loading"
               : "forward + first backward + all-reduce");
    printf("slowest ring link:  %s (%s) -> %s (%s) at %s, T_ar %s\n",
           la->name, la->addr, lb->name, lb->addr,
           hs_fmt_bandwidth(s->ring_bw_bytes_per_s[lk], x, sizeof x),
           hs_fmt_time(p->dev[s->ring[lk]].t_ar_ns, b, sizeof b));
}

/* Prints the per device table (replay "-" when rr is NULL). */
static void hs__text_devices(const hs_scenario_t *s, const hs_prediction_t *p,
                             const hs_replay_result_t *rr)
{
    char x[64], b[64], c[64], d[64], e[64];
    size_t i;

    printf("\n%-16s %-10s %6s %11s %11s %11s %11s %11s %8s\n", "device",
           "type", "ring", "T_fwd", "T_ar", "source", "extended",
           "replay", "bound");
    for (i = 0; i < s->n_devices; i++) {
        const hs_dev_pred_t *r = &p->dev[i];
        printf("%-16s %-10s %6u %11s %11s %11s %11s %11s %8s\n",
               s->devices[i].name, s->types[s->devices[i].type].name,
               s->devices[i].ring_pos,
               hs_fmt_time(r->t_fwd_ns, x, sizeof x),
               hs_fmt_time(r->t_ar_ns, b, sizeof b),
               hs_fmt_time(r->t_step_ns, c, sizeof c),
               hs_fmt_time(r->t_ext_ns, d, sizeof d),
               rr != NULL ? hs_fmt_time(rr->dev_step_ns[i], e, sizeof e)
                          : "-",
               r->bound == HS_BOUND_DATA ? "data" : "device");
    }
}

/* Prints the answer a as text: the head, every predictor's figures, per
   type, the bottleneck, per device (per_device), and the notes. */
static void hs__text(const hs_scenario_t *s, const hs_answer_t *a,
                     int per_device)
{
    hs__text_head(s, a->closed);
    hs_cli_print_answer(a);
    hs__text_types(s, a->closed, a->replay);
    hs__text_bottleneck(s, a->closed);
    if (per_device)
        hs__text_devices(s, a->closed, a->replay);
    hs_cli_print_notes(s, a->notes, a->n_notes);
}

int hs_cli_predict(int argc, char **argv)
{
    hs__predict_opts_t po = {0, 0, 0};
    const hs_opt_group_t groups[] = {{hs__predict_table, &po}};
    const char *path = NULL;
    size_t n_pos;
    int rc;
    hs_scenario_t *s = NULL;
    hs_answer_t *a = NULL;
    hs_error_t err;

    hs_error_clear(&err);
    if (!hs_cli_parse(&hs__predict_cmd, groups, 1, argc, argv, &path, 1,
                      &n_pos, &rc))
        return rc;
    if (hs_cli_load_scenario(path, &s, &err) != HS_OK)
        return hs_cli_fail(&err);
    if (hs_answer_run(s, NULL,
                      po.closed_only ? HS_ANSWER_REPLAY_NEVER
                                     : HS_ANSWER_REPLAY_AUTO,
                      NULL, 0, &a, &err) != HS_OK) {
        hs_scenario_free(s);
        return hs_cli_fail(&err);
    }
    if (po.closed_only)
        snprintf(a->why, sizeof a->why,
                 "--closed-only: the replay was not run");
    if (po.json)
        hs__json(s, a, po.per_device);
    else
        hs__text(s, a, po.per_device);
    rc = hs_cli_stdout_status();
    hs_answer_free(a);
    hs_scenario_free(s);
    return rc;
}
