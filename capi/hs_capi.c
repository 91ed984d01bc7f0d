/*
 * hs_capi.c -- the flat entry layer for bindings (hs_capi.h): the same
 * calls as the command-line tool, their results copied into plain
 * structs and caller-owned arrays.
 */
#define _POSIX_C_SOURCE 200809L

#include "hs_capi.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_closed.h"
#include "hs_h5.h"
#include "hs_nodes.h"
#include "hs_replay.h"
#include "hs_sweep.h"
#include "hs_sweep_out.h"

int hs_capi_version(void)
{
    return HS_CAPI_VERSION;
}

/* ---- interruption ------------------------------------------------------ */

static volatile sig_atomic_t hs__interrupted;
static volatile sig_atomic_t hs__armed;
static struct sigaction hs__old_int;

static void hs__on_int(int sig)
{
    (void)sig;
    hs__interrupted = 1;
}

int hs_capi_interrupt_arm(void)
{
    struct sigaction sa;

    /* an ignored SIGINT (nohup, a background job) stays ignored */
    if (sigaction(SIGINT, NULL, &sa) != 0)
        return -1;
    hs__interrupted = 0;
    if (sa.sa_handler == SIG_IGN)
        return 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hs__on_int;
    sigemptyset(&sa.sa_mask);
    hs__interrupted = 0;
    if (sigaction(SIGINT, &sa, &hs__old_int) != 0)
        return -1;
    hs__armed = 1;
    return 0;
}

int hs_capi_interrupt_disarm(void)
{
    if (hs__armed) {
        sigaction(SIGINT, &hs__old_int, NULL);
        hs__armed = 0;
    }
    return hs__interrupted != 0;
}

static hs_err_t hs__stopped(hs_error_t *err)
{
    return hs_error_setf(err, HS_ERR_USAGE, "interrupted");
}

/* ---- the timeline sink ------------------------------------------------- */

struct hs_capi_timeline_s {
    hs_interval_t *iv;
    size_t n, cap;
    int nomem;          /* reading a trace ran out of memory */
};

hs_err_t hs_capi_timeline_new(hs_capi_timeline_t **out, hs_error_t *err)
{
    *out = calloc(1, sizeof **out);
    if (*out == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

const hs_interval_t *hs_capi_timeline_data(const hs_capi_timeline_t *tl,
                                           size_t *n)
{
    *n = tl->n;
    return tl->iv;
}

size_t hs_capi_interval_size(void)
{
    return sizeof(hs_interval_t);
}

void hs_capi_timeline_free(hs_capi_timeline_t *tl)
{
    if (tl == NULL)
        return;
    free(tl->iv);
    free(tl);
}

/* The sink's write(): checks the interrupt flag once per block and, with
   a timeline, appends the block (the buffer doubles as it fills). */
static hs_err_t hs__tl_write(void *ctx, const hs_interval_t *iv, size_t n,
                             hs_error_t *err)
{
    hs_capi_timeline_t *tl = ctx;

    if (hs__armed && hs__interrupted)
        return hs__stopped(err);
    if (tl == NULL || n == 0)
        return HS_OK;
    if (tl->n + n > tl->cap) {
        size_t cap = tl->cap ? tl->cap : 4096;
        hs_interval_t *p;

        while (cap < tl->n + n) {
            if (cap > SIZE_MAX / 2 / sizeof *p)
                return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
            cap *= 2;
        }
        p = realloc(tl->iv, cap * sizeof *p);
        if (p == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        tl->iv = p;
        tl->cap = cap;
    }
    memcpy(tl->iv + tl->n, iv, n * sizeof *iv);
    tl->n += n;
    return HS_OK;
}

/* hs_h5_events_each's callback: appends a block (1 stops on failure). */
static int hs__tl_read(void *ctx, const hs_interval_t *iv, size_t n)
{
    hs_capi_timeline_t *tl = ctx;
    size_t n0 = tl->n;

    if (hs__tl_write(tl, iv, n, NULL) != HS_OK || tl->n != n0 + n) {
        tl->nomem = 1;
        return 1;
    }
    return 0;
}

hs_err_t hs_capi_read_trace(const char *path, hs_capi_timeline_t *tl,
                            hs_error_t *err)
{
    hs_err_t rc;

    tl->nomem = 0;
    rc = hs_h5_events_each(path, hs__tl_read, tl, err);
    if (rc == HS_OK && tl->nomem)
        rc = hs_error_setf(err, HS_ERR_NOMEM, "%s: out of memory", path);
    return rc;
}

/* ---- answers ----------------------------------------------------------- */

/* Appends each of the n texts and a '\n' to the stream f. */
static void hs__put_notes(FILE *f, char *const *t, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        fprintf(f, "%s\n", t[i]);
}

/* A profile time's mean, or -1 when not measured. */
static int64_t hs__known(const hs_dist_t *t)
{
    return t->known ? t->mean_ns : -1;
}

/* Sets out->notes (owned by out; NULL when there are none) to the
   scenario's, the closed form's and the replay's notes, one a line, and
   their counts. HS_ERR_NOMEM, err filled, when out of memory. */
static hs_err_t hs__flatten_notes(const hs_scenario_t *s,
                                  const hs_answer_t *a,
                                  hs_capi_answer_t *out, hs_error_t *err)
{
    const hs_replay_result_t *r = a->replay;
    const hs_prediction_t *cp = a->closed;
    char *notes = NULL;
    size_t len = 0;
    FILE *f;

    f = open_memstream(&notes, &len);
    if (f == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    hs__put_notes(f, s->warnings, s->n_warnings);
    hs__put_notes(f, cp->warnings, cp->n_warnings);
    if (r != NULL)
        hs__put_notes(f, r->notes, r->n_notes);
    if (fclose(f) != 0) {
        free(notes);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    if (len == 0) {
        free(notes);
        notes = NULL;
    }
    out->notes = notes;
    out->n_notes_scenario = (uint32_t)s->n_warnings;
    out->n_notes_closed = (uint32_t)cp->n_warnings;
    out->n_notes_replay = r != NULL ? (uint32_t)r->n_notes : 0;
    return HS_OK;
}

/* Copies replay r's figures into out; out owns cluster_step_ns. -1 when
   out of memory (cluster_step_ns then NULL), else 0. */
static int hs__flatten_replay(const hs_replay_result_t *r,
                              hs_capi_answer_t *out)
{
    out->overlap_asked = (int32_t)r->overlap_asked;
    out->send = (int32_t)r->send;
    out->hop_wait = (int32_t)r->hop_wait;
    out->stochastic = r->stochastic != 0;
    out->n_buckets = r->n_buckets;
    out->streams = r->streams;
    out->streams_asked = r->streams_asked;
    out->replay_step_ns = r->step_ns;
    out->closed_step_ns = r->closed_step_ns;
    out->closed_ext_step_ns = r->closed_ext_step_ns;
    out->epoch_lo_ns = r->epoch_lo_ns;
    out->epoch_hi_ns = r->epoch_hi_ns;
    out->total_lo_ns = r->total_lo_ns;
    out->total_hi_ns = r->total_hi_ns;
    out->end_ns = r->end_ns;
    out->queue_high_water = r->queue_high_water;
    out->state_bytes = r->state_bytes;
    out->collective = r->collective;
    out->cluster_step_ns = malloc((r->steps ? r->steps : 1) *
                                  sizeof *out->cluster_step_ns);
    if (out->cluster_step_ns == NULL)
        return -1;
    memcpy(out->cluster_step_ns, r->cluster_step_ns,
           r->steps * sizeof *out->cluster_step_ns);
    out->replay_ran = 1;
    out->steps = r->steps;
    out->overlap = (int32_t)r->overlap;
    out->fast_path = r->fast_path != 0;
    out->seed = r->seed;
    out->first_step_replay_ns = r->first_step_ns;
    out->step_mean_ns = r->step_mean_ns;
    out->step_sd_ns = r->step_sd_ns;
    out->step_p50_ns = r->step_p50_ns;
    out->step_p95_ns = r->step_p95_ns;
    out->events = r->n_events;
    return 0;
}

/* Fills t with type k's figures: the closed form's, the profile's and,
   when a replay ran, the replay's (else -1). Owns nothing. */
static void hs__flatten_type(const hs_scenario_t *s, const hs_answer_t *a,
                             size_t k, hs_capi_type_t *t)
{
    const hs_replay_result_t *r = a->replay;
    const hs_type_pred_t *tp = &a->closed->types[k];

    t->count = tp->count;
    t->batch = s->types[k].batch;
    t->shard_samples = tp->shard_samples;
    t->iters_per_epoch = tp->iters;
    t->t_fwd_ns = tp->t_fwd_ns;
    t->t_b1_ns = tp->t_b1_ns;
    t->t_ar_min_ns = tp->t_ar_min_ns;
    t->t_ar_max_ns = tp->t_ar_max_ns;
    t->step_source_min_ns = tp->t_step_min_ns;
    t->step_source_max_ns = tp->t_step_max_ns;
    t->step_extended_max_ns = a->closed->types[k].t_ext_max_ns;
    t->step_replay_ns = r != NULL ? r->type_step_ns[k] : -1;
    t->payload_bytes = tp->payload_bytes;
    t->t_dl_ns = hs__known(&s->types[k].profile.t_dl);
    t->t_bwd_ns = hs__known(&s->types[k].profile.t_bwd);
    t->t_opt_ns = hs__known(&s->types[k].profile.t_opt);
    t->allreduce_bytes = s->types[k].profile.ar_bytes;
    t->subsystem_size = s->types[k].profile.subsys_n;
    t->comm_ns_per_byte = s->types[k].profile.comm_ns_per_byte;
    t->t_hop_wait_ns = s->types[k].profile.t_hop_wait_ns;
    t->cpu_quota_cores = s->types[k].profile.cpu_quota_cores;
    t->t_cpu_period_ns = s->types[k].profile.t_cpu_period_ns;
    t->slowest_device = tp->slowest_device;
    t->micro_batches = s->types[k].micro_batches > 1
                           ? s->types[k].micro_batches
                           : 1;
    t->replay_step_source_ns = r != NULL ? r->type_closed_ns[k] : -1;
    t->replay_step_extended_ns =
        r != NULL ? r->type_closed_ext_ns[k] : -1;
    t->hop_wait_ns = t->hop_wait_intra_ns = t->hop_wait_inter_ns = -1;
    if (r != NULL) {
        size_t rn[2];

        t->hop_wait_ns = hs_replay_hop_wait_ns(s, k, r->hop_wait);
        if (hs_replay_hop_rings(s, r->collective, rn) == 2) {
            t->hop_wait_intra_ns =
                hs_replay_hop_wait_ring_ns(s, k, r->hop_wait, rn[0]);
            t->hop_wait_inter_ns =
                hs_replay_hop_wait_ring_ns(s, k, r->hop_wait, rn[1]);
        }
    }
}

/* Flattens answer a of scenario s into out (zeroed first; out owns its
   notes and cluster_step_ns) and, when types is not NULL, up to n_types
   per-type rows. HS_ERR_NOMEM, err filled, when out of memory; out then
   owns nothing. */
static hs_err_t hs__flatten(const hs_scenario_t *s, const hs_answer_t *a,
                            hs_capi_answer_t *out, hs_capi_type_t *types,
                            size_t n_types, hs_error_t *err)
{
    const hs_replay_result_t *r = a->replay;
    const hs_prediction_t *cp = a->closed;
    uint32_t lk = cp->bottleneck_link;
    size_t k;
    int p;
    hs_err_t rc;

    memset(out, 0, sizeof *out);
    out->bottleneck_device = cp->bottleneck_device;
    out->bottleneck_bound = (int32_t)cp->bottleneck_bound;
    out->link_pos = lk;
    out->link_from = s->ring[lk];
    out->link_to = s->ring[lk + 1 == s->n_devices ? 0 : lk + 1];
    out->link_bandwidth_bytes_per_s = s->ring_bw_bytes_per_s[lk];
    out->link_latency_ns = s->ring_lat_ns[lk];
    out->link_t_ar_ns = cp->dev[s->ring[lk]].t_ar_ns;
    out->shards_unbalanced = cp->shards_unbalanced != 0;
    out->shard_coverage = cp->shard_coverage;
    out->n_nodes = s->nodes != NULL ? s->nodes->n_nodes : 0;
    if ((rc = hs__flatten_notes(s, a, out, err)) != HS_OK)
        return rc;
    for (p = 0; p < HS_PREDICTORS; p++) {
        out->step_ns[p] = a->est[p].step_ns;
        out->epoch_ns[p] = a->est[p].epoch_ns;
        out->total_ns[p] = a->est[p].total_ns;
    }
    out->recommended = (int32_t)a->recommended;
    out->epochs = a->epochs;
    out->iters_per_epoch = a->iters_per_epoch;
    out->n_devices = s->n_devices;
    out->latency_ns = s->latency_ns;
    snprintf(out->why, sizeof out->why, "%s", a->why);
    if (r != NULL && hs__flatten_replay(r, out) != 0) {
        free(out->notes);
        out->notes = NULL;
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    for (k = 0; types != NULL && k < n_types && k < s->n_types; k++)
        hs__flatten_type(s, a, k, &types[k]);
    return HS_OK;
}

hs_err_t hs_capi_answer(const hs_scenario_t *s, int mode,
                        const hs_capi_sim_t *sim, hs_capi_timeline_t *tl,
                        hs_capi_answer_t *out, hs_capi_type_t *types,
                        size_t n_types, hs_error_t *err)
{
    hs_replay_opts_t opts;
    hs_trace_sink_t sink = {tl, hs__tl_write, NULL};
    int with_sink;
    hs_answer_t *a = NULL;
    hs_err_t rc;

    if (mode < HS_ANSWER_REPLAY_AUTO || mode > HS_ANSWER_REPLAY_ALWAYS)
        return hs_error_setf(err, HS_ERR_USAGE, "bad replay mode %d", mode);
    if (tl != NULL && mode != HS_ANSWER_REPLAY_ALWAYS)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "a timeline needs the replay (ALWAYS)");
    hs_replay_opts_from_scenario(s, &opts);
    if (sim != NULL) {
        if (sim->steps > 0)
            opts.steps = sim->steps;
        if (sim->has_seed)
            opts.seed = sim->seed;
        if (sim->overlap >= 0)
            opts.overlap = (hs_overlap_t)sim->overlap;
        opts.force = sim->force != 0;
    }
    if (mode == HS_ANSWER_REPLAY_ALWAYS && !opts.force) {
        rc = hs_replay_check_budget(s, &opts, err);
        if (rc != HS_OK)
            return rc;
    }
    /* the max-plus fast path reads the interrupt flag once per step; the
       sink (which makes the replay take the event engine) only when it
       has something to do: keep intervals, or stop on SIGINT a replay
       that takes the event engine anyway */
    if (hs__armed)
        opts.stop = &hs__interrupted;
    with_sink = mode == HS_ANSWER_REPLAY_ALWAYS &&
                (tl != NULL ||
                 (hs__armed && !hs_replay_fast_supports(s, &opts)));
    rc = hs_answer_run(s, &opts, (hs_answer_replay_t)mode,
                       with_sink ? &sink : NULL, with_sink ? 1 : 0, &a, err);
    if (rc != HS_OK)
        return rc;
    rc = hs__flatten(s, a, out, types, n_types, err);
    hs_answer_free(a);
    return rc;
}

/* ---- the scenario as data ---------------------------------------------- */

size_t hs_capi_n_types(const hs_scenario_t *s)
{
    return s->n_types;
}

size_t hs_capi_n_devices(const hs_scenario_t *s)
{
    return s->n_devices;
}

const char *hs_capi_type_name(const hs_scenario_t *s, size_t k)
{
    return k < s->n_types ? s->types[k].name : NULL;
}

const char *hs_capi_device_name(const hs_scenario_t *s, size_t i)
{
    return i < s->n_devices ? s->devices[i].name : NULL;
}

const char *hs_capi_device_type_name(const hs_scenario_t *s, size_t i)
{
    return i < s->n_devices ? s->types[s->devices[i].type].name : NULL;
}

const char *hs_capi_scenario_name(const hs_scenario_t *s)
{
    return s->name;
}

const char *hs_capi_scenario_file(const hs_scenario_t *s)
{
    return s->file;
}

const char *hs_capi_scenario_text(const hs_scenario_t *s)
{
    return s->text;
}

const char *hs_capi_scenario_model(const hs_scenario_t *s)
{
    return s->model_label;
}

const char *hs_capi_scenario_collective(const hs_scenario_t *s)
{
    return s->collective;
}

const char *hs_capi_device_addr(const hs_scenario_t *s, size_t i)
{
    return i < s->n_devices ? s->devices[i].addr : NULL;
}

/* ---- sweeps ------------------------------------------------------------ */

static int hs__sweep_progress(void *ctx, size_t done, size_t total)
{
    (void)ctx;
    (void)done;
    (void)total;
    return hs__armed && hs__interrupted;
}

hs_err_t hs_capi_sweep_json(const hs_scenario_t *s, int mode,
                            const char *const *set, size_t n_set,
                            const char *const *vary, size_t n_vary, int zip,
                            char **json, hs_error_t *err)
{
    hs_sweep_t *sw = NULL;
    hs_sweep_results_t *res = NULL;
    char *buf = NULL;
    size_t len = 0, i;
    FILE *f = NULL;
    hs_err_t rc;

    *json = NULL;
    rc = hs_sweep_new(s, mode, &sw, err);
    for (i = 0; rc == HS_OK && i < n_set; i++)
        rc = hs_sweep_set(sw, set[i], err);
    if (rc == HS_OK)
        hs_sweep_set_zip(sw, zip);
    for (i = 0; rc == HS_OK && i < n_vary; i++)
        rc = hs_sweep_vary(sw, vary[i], err);
    if (rc == HS_OK)
        rc = hs_sweep_plan(sw, err);
    if (rc == HS_OK)
        rc = hs_sweep_results_new(sw, &res, err);
    if (rc == HS_OK) {
        rc = hs_sweep_run(sw, res, hs__sweep_progress, NULL, err);
        if (rc == HS_ERR_USAGE && hs__armed && hs__interrupted)
            rc = hs__stopped(err);
    }
    if (rc != HS_OK)
        goto fail;
    f = open_memstream(&buf, &len);
    if (f == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    rc = hs_sweep_write_json(sw, res, f, err);
    if (fclose(f) != 0 && rc == HS_OK)
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    f = NULL;
    if (rc != HS_OK)
        goto fail;
    *json = buf;
    hs_sweep_results_free(res);
    hs_sweep_free(sw);
    return HS_OK;
fail:
    free(buf);
    hs_sweep_results_free(res);
    hs_sweep_free(sw);
    return rc;
}

/* ---- advice -------------------------------------------------------------- */

hs_err_t hs_capi_advise_ring(const hs_scenario_t *s, int replay,
                             uint32_t exact_max, hs_capi_advice_t *out,
                             uint32_t *order, size_t n_order,
                             hs_error_t *err)
{
    hs_advise_ring_t *r = NULL;
    const hs_advise_ring_cand_t *c;
    size_t k, i;
    hs_err_t rc;

    memset(out, 0, sizeof *out);
    rc = hs_advise_ring(s, NULL, replay, exact_max, &r, err);
    if (rc != HS_OK)
        return rc;
    c = &r->cands[r->outcome == HS_ADVISE_NONE ? 0 : r->chosen];
    out->outcome = (int32_t)r->outcome;
    out->met = 1;
    out->given = r->cands[0].fig;
    out->chosen = c->fig;
    snprintf(out->label, sizeof out->label, "%s", c->label);
    out->lower_bound_step_source_ns = r->lower_bound_ns;
    out->exact = r->exact != 0;
    if (order != NULL && n_order >= r->n)
        memcpy(order, c->order, r->n * sizeof *order);
    out->n_cands = r->n_cands < HS_CAPI_ADVISE_CANDS ? r->n_cands
                                                     : HS_CAPI_ADVISE_CANDS;
    out->width = r->n;
    out->values = malloc((out->n_cands * r->n + 1) * sizeof *out->values);
    if (out->values == NULL) {
        hs_advise_ring_free(r);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    for (k = 0; k < out->n_cands; k++) {
        hs_capi_cand_t *o = &out->cands[k];

        snprintf(o->label, sizeof o->label, "%s", r->cands[k].label);
        o->same_as = r->cands[k].same_as;
        o->recommended = r->outcome != HS_ADVISE_NONE && k == r->chosen;
        o->fig = r->cands[k].fig;
        for (i = 0; i < r->n; i++)
            out->values[k * r->n + i] = r->cands[k].order[i];
    }
    hs_advise_ring_free(r);
    return HS_OK;
}

/* Fills hs_capi_advise_batch_micro's outputs from r (see hs_capi.h). */
static hs_err_t hs__batch_out(const hs_advise_batch_t *r,
                              hs_capi_advice_t *out, uint64_t *batch,
                              uint64_t *shard, uint32_t *micro_given,
                              uint32_t *micro, size_t n_types,
                              hs_error_t *err)
{
    const hs_advise_batch_cand_t *c;
    size_t k, j, nt = r->n_types;

    c = &r->cands[r->outcome == HS_ADVISE_NONE ? 0 : r->chosen];
    out->outcome = (int32_t)r->outcome;
    out->met = 1;
    out->given = r->cands[0].fig;
    out->chosen = c->fig;
    snprintf(out->label, sizeof out->label, "%s", c->label);
    out->lower_bound_step_source_ns = -1;
    out->global_batch = r->global_batch;
    out->global_batch_asked = r->global_batch_asked;
    for (k = 0; k < n_types && k < nt; k++) {
        if (batch != NULL)
            batch[k] = c->batch[k];
        if (shard != NULL)
            shard[k] = c->shard[k];
        if (micro_given != NULL)
            micro_given[k] = r->micro_before[k];
        if (micro != NULL)
            micro[k] = r->micro_after[k];
    }
    out->n_cands = r->n_cands < HS_CAPI_ADVISE_CANDS ? r->n_cands
                                                     : HS_CAPI_ADVISE_CANDS;
    out->width = (r->max_micro > 1 ? 3 : 2) * nt;
    out->values = malloc((out->n_cands * out->width + 1) *
                         sizeof *out->values);
    if (out->values == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    for (j = 0; j < out->n_cands; j++) {
        hs_capi_cand_t *o = &out->cands[j];
        uint64_t *v = out->values + j * out->width;

        snprintf(o->label, sizeof o->label, "%s", r->cands[j].label);
        o->same_as = -1;
        o->recommended = r->outcome != HS_ADVISE_NONE && j == r->chosen;
        o->global_batch = r->cands[j].global_batch;
        o->fig = r->cands[j].fig;
        for (k = 0; k < nt; k++) {
            v[k] = r->cands[j].batch[k];
            v[nt + k] = r->cands[j].shard[k];
            if (r->max_micro > 1)
                v[2 * nt + k] = r->cands[j].micro[k];
        }
    }
    return HS_OK;
}

hs_err_t hs_capi_advise_batch(const hs_scenario_t *s, int replay,
                              uint64_t global_batch,
                              const uint64_t *max_batch,
                              hs_capi_advice_t *out, uint64_t *batch,
                              uint64_t *shard, size_t n_types,
                              hs_error_t *err)
{
    return hs_capi_advise_batch_micro(s, replay, global_batch, max_batch, 1,
                                      out, batch, shard, NULL, NULL, n_types,
                                      err);
}

hs_err_t hs_capi_advise_batch_micro(const hs_scenario_t *s, int replay,
                                    uint64_t global_batch,
                                    const uint64_t *max_batch,
                                    uint32_t max_micro,
                                    hs_capi_advice_t *out, uint64_t *batch,
                                    uint64_t *shard, uint32_t *micro_given,
                                    uint32_t *micro, size_t n_types,
                                    hs_error_t *err)
{
    hs_advise_batch_t *r = NULL;
    hs_err_t rc;

    memset(out, 0, sizeof *out);
    rc = hs_advise_batch_micro_x(s, NULL, global_batch, max_batch, max_micro,
                                 replay, NULL, &r, err);
    if (rc != HS_OK)
        return rc;
    rc = hs__batch_out(r, out, batch, shard, micro_given, micro, n_types,
                       err);
    hs_advise_batch_free(r);
    return rc;
}

hs_err_t hs_capi_advise_mix(const hs_scenario_t *s, int replay,
                            const uint64_t *avail, const uint64_t *min,
                            const double *price_per_h, double budget,
                            int64_t deadline_ns, hs_capi_advice_t *out,
                            uint64_t *counts, size_t n_types,
                            hs_error_t *err)
{
    hs_mixopt_type_t *ty;
    hs_advise_mix_t *r = NULL;
    size_t k, j;
    int none;
    hs_err_t rc;

    memset(out, 0, sizeof *out);
    ty = calloc(s->n_types ? s->n_types : 1, sizeof *ty);
    if (ty == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    for (k = 0; k < s->n_types; k++) {
        ty[k].avail = avail[k];
        ty[k].min = min[k];
        ty[k].price_per_h = price_per_h[k];
    }
    rc = hs_advise_mix(s, NULL, ty, budget > 0 ? HS_MIX_FASTEST
                                                : HS_MIX_CHEAPEST,
                       budget, deadline_ns, replay, &r, err);
    free(ty);
    if (rc != HS_OK)
        return rc;
    none = r->outcome == HS_ADVISE_NONE;
    out->outcome = (int32_t)r->outcome;
    out->met = r->met;
    out->given = r->given;
    out->chosen = none ? r->given : r->fig[r->chosen];
    out->lower_bound_step_source_ns = -1;
    if (none)
        snprintf(out->label, sizeof out->label, "given");
    else
        snprintf(out->label, sizeof out->label, "%zu", r->chosen + 1);
    for (k = 0; counts != NULL && k < n_types && k < s->n_types; k++)
        counts[k] = none ? r->given_counts[k]
                         : r->search->top[r->chosen].counts[k];
    out->given_ok = r->given_ok != 0;
    out->given_allowed = r->given_allowed != 0;
    out->shards_derived = r->shards_derived != 0;
    out->given_cost = r->given_cost;
    out->mixes_visited = r->search->visited;
    out->mixes_evaluated = r->search->evaluated;
    out->n_cands = r->search->n_top < HS_CAPI_ADVISE_CANDS
                       ? r->search->n_top
                       : HS_CAPI_ADVISE_CANDS;
    out->width = s->n_types;
    out->values = malloc(((out->n_cands + 1) * s->n_types + 1) *
                         sizeof *out->values);
    if (out->values == NULL) {
        hs_advise_mix_free(r);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    for (j = 0; j < out->n_cands; j++) {
        hs_capi_cand_t *o = &out->cands[j];

        o->same_as = -1;
        o->recommended = !none && j == r->chosen;
        o->cost = r->cost[j];
        o->cost_extended = r->search->top[j].cost;
        o->meets = r->ok[j] != 0;
        o->fig = r->fig[j];
        for (k = 0; k < s->n_types; k++)
            out->values[j * s->n_types + k] = r->search->top[j].counts[k];
    }
    for (k = 0; k < s->n_types; k++)
        out->values[out->n_cands * s->n_types + k] = r->given_counts[k];
    hs_advise_mix_free(r);
    return HS_OK;
}

void hs_capi_free(void *p)
{
    free(p);
}
