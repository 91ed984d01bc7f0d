/*
 * cmd_simulate.c -- `hetsim simulate [SCENARIO] [options]`: the
 * discrete-event replay of every step per device along the ring
 * (hs_replay.h), as a readable report or stable JSON, optionally traced to
 * HDF5 and Chrome-trace files.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "hs_answer.h"
#include "hs_chrome.h"
#include "hs_coll_auto.h"
#include "hs_cli.h"
#include "hs_h5.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_units.h"

/* What simulate's own options fill (the replay options fill an
   hs_cli_replay_opts_t). */
typedef struct hs__simulate_opts_s {
    int json, per_device;
    const char *h5_path, *chrome_path;
} hs__simulate_opts_t;

static const hs_opt_t hs__simulate_table[] = {
    {.name = "json", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__simulate_opts_t, json),
     .help = "print the same as JSON (times in ns)"},
    {.name = "per-device", .kind = HS_OPT_FLAG,
     HS_OPT_AT(hs__simulate_opts_t, per_device),
     .help = "also list every device"},
    HS_OPT_END};

static const hs_opt_t hs__simulate_out_table[] = {
    {.name = "h5", .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__simulate_opts_t, h5_path), .metavar = "FILE",
     .help = "write the timeline as an HDF5 trace"},
    {.name = "chrome", .kind = HS_OPT_PATH,
     HS_OPT_AT(hs__simulate_opts_t, chrome_path), .metavar = "FILE",
     .help = "write it as Chrome-trace / Perfetto JSON"},
    HS_OPT_END};

static const hs_opt_cmd_t hs__simulate_cmd = {
    .name = "simulate",
    .usage =
        "usage: hetsim simulate [SCENARIO] [--json] [--per-device] [--steps K]\n"
        "                       [--seed S] [--overlap MODE] [--send MODE]\n"
        "                       [--hop-wait HOW]\n"
        "                       [--streams K] [--stochastic] [--h5 FILE]\n"
        "                       [--chrome FILE] [--force]\n",
    .about =
        "Replays K steps of every device of SCENARIO (a YAML file; without it,\n"
        "the embedded default) event by event along the ring: data loading of\n"
        "the next batch, forward, first and rest of the backward, the 2(N-1)\n"
        "rounds of the ring all-reduce chunk by chunk, the optimizer.  Prints\n"
        "the simulated steady-state step (steps 1..K-1) per device type and for\n"
        "the cluster beside the closed form's T(i), and epoch and total time.\n",
    .after = "exit status: 0 ok, 2 bad scenario or option, 3 I/O error.\n",
    .pos_name = "SCENARIO",
    .max_pos = 1};

/* Every device type's replayed figures as a JSON array. */
static void hs__json_types(yajl_gen g, const hs_scenario_t *s,
                           const hs_replay_result_t *r)
{
    size_t i;

    yajl_gen_array_open(g);
    for (i = 0; i < r->n_types; i++) {
        yajl_gen_map_open(g);
        hs_cli_kv_str(g, "name", s->types[i].name);
        hs_cli_kv_i64(g, "count", (int64_t)s->types[i].count);
        if (s->types[i].micro_batches > 1)   /* as predict's: only with
                                                accumulation */
            hs_cli_kv_i64(g, "micro_batches",
                          (int64_t)s->types[i].micro_batches);
        hs_cli_kv_dbl(g, "comm_ns_per_byte",
                      s->types[i].profile.comm_ns_per_byte);
        hs_cli_kv_i64(g, "t_hop_wait_ns", s->types[i].profile.t_hop_wait_ns);
        hs_cli_kv_i64(g, "hop_wait_ns",
                      hs_replay_hop_wait_ns(s, i, r->hop_wait));
        {
            /* the hierarchical collective's own rings */
            size_t rn[2];

            if (hs_replay_hop_rings(s, r->collective, rn) == 2) {
                hs_cli_kv_i64(g, "hop_wait_intra_ns",
                              hs_replay_hop_wait_ring_ns(s, i, r->hop_wait,
                                                         rn[0]));
                hs_cli_kv_i64(g, "hop_wait_inter_ns",
                              hs_replay_hop_wait_ring_ns(s, i, r->hop_wait,
                                                         rn[1]));
            }
        }
        hs_cli_kv_i64(g, "step_source_ns", r->type_closed_ns[i]);
        hs_cli_kv_i64(g, "step_extended_ns", r->type_closed_ext_ns[i]);
        hs_cli_kv_i64(g, "step_replay_ns", r->type_step_ns[i]);
        hs_cli_kv_dbl(g, "replay_vs_source_pct",
                   hs_cli_pct(r->type_step_ns[i], r->type_closed_ns[i]));
        yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
}

/* Every device's steps by predictor as a JSON array. */
static void hs__json_devices(yajl_gen g, const hs_scenario_t *s,
                             const hs_replay_result_t *r)
{
    size_t i;

    yajl_gen_array_open(g);
    for (i = 0; i < r->n_devices; i++) {
        yajl_gen_map_open(g);
        hs_cli_kv_str(g, "name", s->devices[i].name);
        hs_cli_kv_str(g, "type", s->types[s->devices[i].type].name);
        hs_cli_kv_i64(g, "ring_pos", s->devices[i].ring_pos);
        hs_cli_kv_i64(g, "step_source_ns", r->dev_closed_ns[i]);
        hs_cli_kv_i64(g, "step_extended_ns", r->dev_closed_ext_ns[i]);
        hs_cli_kv_i64(g, "step_replay_ns", r->dev_step_ns[i]);
        yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
}

/* Prints the replay of answer a as JSON: its settings, step statistics,
   every step, per type, per device (per_device), the engine, notes. */
static void hs__json(const hs_scenario_t *s, const hs_answer_t *a,
                     int per_device)
{
    const hs_replay_result_t *r = a->replay;
    yajl_gen g = hs_cli_json_new();
    size_t i;
    yajl_gen_map_open(g);
    hs_cli_json_head(g, "hetsim.simulate");
    hs_cli_js(g, "scenario");
    yajl_gen_map_open(g);
    hs_cli_kv_str(g, "name", s->name);
    hs_cli_kv_str(g, "file", s->file);
    yajl_gen_map_close(g);
    hs_cli_kv_answer(g, a);
    hs_cli_kv_i64(g, "n_devices", (int64_t)r->n_devices);
    hs_cli_kv_i64(g, "steps", r->steps);
    hs_cli_kv_str(g, "overlap", hs_overlap_name(r->overlap));
    hs_cli_kv_str(g, "overlap_asked", hs_overlap_name(r->overlap_asked));
    hs_cli_kv_str(g, "collective", r->collective);
    if (strcmp(r->collective, "auto") == 0) {
        hs_coll_choice_t ch;
        hs_coll_auto_choose(s, &ch);
        hs_cli_kv_str(g, "collective_chosen", ch.chosen->name);
        hs_cli_kv_str(g, "collective_why", ch.why);
    }
    hs_cli_kv_str(g, "send", hs_send_name(r->send));
    hs_cli_kv_str(g, "hop_wait", hs_hop_wait_name(r->hop_wait));
    hs_cli_js(g, "stochastic");
    yajl_gen_bool(g, r->stochastic);
    hs_cli_kv_i64(g, "seed", (int64_t)r->seed);
    hs_cli_kv_i64(g, "n_buckets", r->n_buckets);
    hs_cli_kv_i64(g, "streams", r->streams);
    hs_cli_kv_i64(g, "streams_asked", r->streams_asked);
    hs_cli_kv_i64(g, "first_step_replay_ns", r->first_step_ns);
    hs_cli_kv_dbl(g, "replay_vs_source_pct",
                  hs_cli_pct(r->step_ns, r->closed_step_ns));
    hs_cli_kv_dbl(g, "replay_vs_extended_pct",
                  hs_cli_pct(r->step_ns, r->closed_ext_step_ns));
    hs_cli_js(g, "step_stats");
    yajl_gen_map_open(g);
    hs_cli_kv_i64(g, "mean_ns", r->step_mean_ns);
    hs_cli_kv_i64(g, "sd_ns", r->step_sd_ns);
    hs_cli_kv_i64(g, "p50_ns", r->step_p50_ns);
    hs_cli_kv_i64(g, "p95_ns", r->step_p95_ns);
    hs_cli_kv_i64(g, "epoch_lo_ns", r->epoch_lo_ns);
    hs_cli_kv_i64(g, "epoch_hi_ns", r->epoch_hi_ns);
    hs_cli_kv_i64(g, "total_lo_ns", r->total_lo_ns);
    hs_cli_kv_i64(g, "total_hi_ns", r->total_hi_ns);
    yajl_gen_map_close(g);
    hs_cli_js(g, "steps_replay_ns");
    yajl_gen_array_open(g);
    for (i = 0; i < r->steps; i++)
        yajl_gen_integer(g, r->cluster_step_ns[i]);
    yajl_gen_array_close(g);
    hs_cli_js(g, "types");
    hs__json_types(g, s, r);
    if (per_device) {
        hs_cli_js(g, "devices");
        hs__json_devices(g, s, r);
    }
    hs_cli_js(g, "engine");
    yajl_gen_map_open(g);
    hs_cli_kv_str(g, "path", r->fast_path ? "max-plus" : "events");
    hs_cli_kv_i64(g, "events", (int64_t)r->n_events);
    hs_cli_kv_i64(g, "end_ns", r->end_ns);
    hs_cli_kv_i64(g, "queue_high_water", (int64_t)r->queue_high_water);
    hs_cli_kv_i64(g, "state_bytes", (int64_t)r->state_bytes);
    yajl_gen_map_close(g);
    hs_cli_kv_notes(g, "notes", s, r->notes, r->n_notes);
    yajl_gen_map_close(g);
    hs_cli_json_print(g);
}

/* The replay's settings, as the text report's header lines (without the
   last newline): devices, steps, modes, buckets, the communication's own
   cost and the hop wait where the profiles give them. */
static void hs__text_header(const hs_scenario_t *s,
                            const hs_replay_result_t *r)
{
    size_t i;

    printf("hetsim %s -- discrete-event replay of the ring\n", HS_VERSION);
    printf("scenario: %s (%s)\n", s->name ? s->name : "(unnamed)", s->file);
    printf("replay:   %zu devices, %u steps, overlap %s, send %s, %s",
           r->n_devices, r->steps, hs_overlap_name(r->overlap),
           hs_send_name(r->send),
           r->stochastic ? "stochastic" : "deterministic");
    if (strcmp(r->collective, "ring") != 0)
        printf(", collective %s", r->collective);
    if (strcmp(r->collective, "auto") == 0) {
        hs_coll_choice_t ch;
        hs_coll_auto_choose(s, &ch);
        printf(" (%s)", ch.why);
    }
    if (r->overlap != r->overlap_asked)
        printf(" (overlap %s asked)", hs_overlap_name(r->overlap_asked));
    if (r->stochastic)
        printf(" (seed %" PRIu64 ")", r->seed);
    if (r->n_buckets > 1)
        printf("\nbuckets:  %u rings per step, %u at a time", r->n_buckets,
               r->streams);
    for (i = 0; i < r->n_types; i++)
        if (s->types[i].profile.comm_ns_per_byte > 0)
            break;
    if (i < r->n_types) {
        /* the communication's own cost, where the profiles give it */
        printf("\ncomm cost:");
        for (i = 0; i < r->n_types; i++)
            printf("%s %s %.3g ns/B", i ? "," : "", s->types[i].name,
                   s->types[i].profile.comm_ns_per_byte);
        printf(" sent (chunks processed on the device, suspending its "
               "compute)");
    }
    for (i = 0; i < r->n_types; i++)
        if (s->types[i].profile.t_hop_wait_ns > 0)
            break;
    if (i < r->n_types) {
        /* the hop wait, where the profiles give it */
        size_t rn[2], nr = hs_replay_hop_rings(s, r->collective, rn);

        printf("\nhop wait:");
        for (i = 0; i < r->n_types; i++) {
            printf("%s %s %.3f ms", i ? "," : "", s->types[i].name,
                   (double)hs_replay_hop_wait_ring_ns(s, i, r->hop_wait,
                                                      rn[0]) / 1e6);
            if (nr == 2)
                printf(" in a node, %.3f ms across nodes",
                       (double)hs_replay_hop_wait_ring_ns(s, i, r->hop_wait,
                                                          rn[1]) / 1e6);
        }
        printf(" per chunk that reaches the device in its backward (%s)",
               r->hop_wait == HS_HOP_WAIT_PROBE
                   ? "as probed in each type's sub-system"
                   : nr == 2 ? "grown to each ring's size (a node's "
                               "devices, the nodes) from each type's probe "
                               "and CPU quota"
                   : "grown to this ring's size from each type's probe and "
                     "CPU quota");
    }
}

/* Prints the replay of answer an as text: the header, the answer, the
   cluster step, per type, the stochastic statistics, per device
   (per_device), the engine, notes. */
static void hs__text(const hs_scenario_t *s, const hs_answer_t *an,
                     int per_device)
{
    const hs_replay_result_t *r = an->replay;
    char a[64], b[64], c[64];
    size_t i;

    hs__text_header(s, r);
    printf("\n\n");
    hs_cli_print_answer(an);
    printf("\nreplayed cluster step: %s (steady, steps 1..%u), first step "
           "%s; vs source %+.2f%%, vs extended %+.2f%%\n",
           hs_fmt_time(r->step_ns, a, sizeof a),
           r->steps > 1 ? r->steps - 1 : 0,
           hs_fmt_time(r->first_step_ns, b, sizeof b),
           hs_cli_pct(r->step_ns, r->closed_step_ns),
           hs_cli_pct(r->step_ns, r->closed_ext_step_ns));
    printf("\nper device type (the slowest device of each; step by "
           "predictor)\n");
    printf("%-14s %7s %14s %14s %14s %16s\n", "type", "count", "source",
           "extended", "replay", "replay vs source");
    for (i = 0; i < r->n_types; i++)
        printf("%-14s %7" PRIu64 " %14s %14s %14s %+15.2f%%\n",
               s->types[i].name, s->types[i].count,
               hs_fmt_time(r->type_closed_ns[i], a, sizeof a),
               hs_fmt_time(r->type_closed_ext_ns[i], c, sizeof c),
               hs_fmt_time(r->type_step_ns[i], b, sizeof b),
               hs_cli_pct(r->type_step_ns[i], r->type_closed_ns[i]));
    if (r->stochastic) {
        printf("\nstep over steps 1..%u: mean %s, p50 %s, p95 %s",
               r->steps > 1 ? r->steps - 1 : 0,
               hs_fmt_time(r->step_mean_ns, a, sizeof a),
               hs_fmt_time(r->step_p50_ns, b, sizeof b),
               hs_fmt_time(r->step_p95_ns, c, sizeof c));
        printf(", sd %s\n", hs_fmt_time(r->step_sd_ns, a, sizeof a));
        if (r->iters_per_epoch > 0) {
            printf("epoch 95%% interval: %s .. %s\n",
                   hs_fmt_time(r->epoch_lo_ns, a, sizeof a),
                   hs_fmt_time(r->epoch_hi_ns, b, sizeof b));
            printf("total 95%% interval: %s .. %s\n",
                   hs_fmt_time(r->total_lo_ns, a, sizeof a),
                   hs_fmt_time(r->total_hi_ns, b, sizeof b));
        }
    }
    if (per_device) {
        printf("\n%-16s %-12s %6s %14s %14s %14s\n", "device", "type",
               "ring", "source", "extended", "replay");
        for (i = 0; i < r->n_devices; i++)
            printf("%-16s %-12s %6u %14s %14s %14s\n", s->devices[i].name,
                   s->types[s->devices[i].type].name,
                   s->devices[i].ring_pos,
                   hs_fmt_time(r->dev_closed_ns[i], a, sizeof a),
                   hs_fmt_time(r->dev_closed_ext_ns[i], c, sizeof c),
                   hs_fmt_time(r->dev_step_ns[i], b, sizeof b));
    }
    if (r->fast_path)
        printf("\nengine: the max-plus fast path (the same figures as %" PRIu64
               " events, no event queue), %zu bytes of state\n",
               r->n_events, r->state_bytes);
    else
        printf("\nengine: %" PRIu64 " events, queue peak %zu, %zu bytes of "
               "state\n",
               r->n_events, r->queue_high_water, r->state_bytes);
    hs_cli_print_notes(s, r->notes, r->n_notes);
}

int hs_cli_simulate(int argc, char **argv)
{
    const char *path = NULL;
    hs__simulate_opts_t so = {0, 0, NULL, NULL};
    hs_cli_force_t fo = {0};
    hs_cli_replay_opts_t ro;
    const hs_opt_group_t groups[] = {{hs__simulate_table, &so},
                                     {hs_cli_force_table, &fo},
                                     {hs_cli_replay_table, &ro},
                                     {hs__simulate_out_table, &so}};
    hs_replay_opts_t opts;
    size_t n_pos;
    int rc;
    hs_scenario_t *s = NULL;
    hs_answer_t *an = NULL;
    hs_h5_writer_t *h5 = NULL;
    hs_chrome_writer_t *ch = NULL;
    hs_trace_sink_t sinks[2];
    size_t n_sinks = 0;
    hs_error_t err;

    hs_error_clear(&err);
    hs_cli_replay_opts_init(&ro);
    if (!hs_cli_parse(&hs__simulate_cmd, groups, 4, argc, argv, &path, 1,
                      &n_pos, &rc))
        return rc;
    rc = hs_cli_load_scenario(path, &s, &err);
    if (rc != HS_OK)
        return hs_cli_fail(&err);
    /* options override the scenario's simulate: section */
    hs_cli_replay_apply(&ro, s, &opts);
    if (so.h5_path != NULL) {
        rc = hs_h5_writer_open_opts(so.h5_path, s, &opts, &h5,
                                    &sinks[n_sinks], &err);
        if (rc != HS_OK)
            goto fail;
        n_sinks++;
    }
    if (so.chrome_path != NULL) {
        rc = hs_chrome_writer_open_opts(so.chrome_path, s, &opts, &ch,
                                        &sinks[n_sinks], &err);
        if (rc != HS_OK)
            goto fail;
        n_sinks++;
    }
    /* a replay that would not end in reasonable time or memory */
    rc = hs_cli_replay_check(s, &opts, &ro, fo.force, &err);
    if (rc != HS_OK)
        goto fail;
    rc = hs_answer_run(s, &opts, HS_ANSWER_REPLAY_ALWAYS, sinks, n_sinks,
                       &an, &err);
    if (rc != HS_OK) {
        hs_cli_blame_steps(&err, ro.steps);
        goto fail;
    }
    if (h5 != NULL) {
        rc = hs_h5_writer_close(h5, 1, &err);
        h5 = NULL;
        if (rc != HS_OK)
            goto fail;
    }
    if (ch != NULL) {
        rc = hs_chrome_writer_close(ch, 1, &err);
        ch = NULL;
        if (rc != HS_OK)
            goto fail;
    }
    if (so.json)
        hs__json(s, an, so.per_device);
    else
        hs__text(s, an, so.per_device);
    rc = hs_cli_stdout_status();
    hs_answer_free(an);
    hs_scenario_free(s);
    return rc;
fail:
    hs_h5_writer_close(h5, 0, NULL);
    hs_chrome_writer_close(ch, 0, NULL);
    hs_answer_free(an);
    hs_scenario_free(s);
    return hs_cli_fail(&err);
}
