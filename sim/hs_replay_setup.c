/*
 * hs_replay_setup.c -- the replay's gradient-bucket layout before a run and
 * its figures after it (hs_replay_int.h; the essay at the top of
 * hs_replay.c says what they are).
 */
#include "hs_replay_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_notes.h"
#include "hs_phases.h"
#include "hs_stats.h"

/* A note for the result (the one notes list; out of memory drops it). */
#define hs__note(r, ...) \
    ((void)hs_notes_add_to(&(r)->notes, &(r)->n_notes, __VA_ARGS__))

/* Decides the bucket layout; fills m->nb, m->ready, m->chunk_bytes and
   per-type bucket bytes into *bytes_out ([type * nb + b]). */
hs_err_t hs__replay_buckets(hs__model_t *m, hs_replay_result_t *res,
                            double **bytes_out, hs_error_t *err)
{
    const hs_scenario_t *s = m->s;
    const hs_profile_t *ref = NULL; /* first profile with buckets */
    size_t t, nb = 1, ref_t, odd_t;
    double *bytes = NULL;

    *bytes_out = NULL;
    m->overlap = m->o->overlap;
    /* last_bucket is buckets mode with the layout gathered into one
       bucket (below) */
    if (m->overlap == HS_OVERLAP_LAST_BUCKET)
        m->overlap = HS_OVERLAP_BUCKETS;
    if (m->overlap == HS_OVERLAP_BUCKETS) {
        ref = hs_bucket_ref(s, &ref_t, &odd_t);
        if (ref != NULL && odd_t < s->n_types)
            return hs_error_setf(
                err, HS_ERR_RANGE,
                "%s: buckets mode needs the same number of gradient "
                "buckets in every type's profile (the same model): "
                "type '%s' has %zu, type '%s' has %zu",
                s->file ? s->file : "scenario", s->types[ref_t].name,
                ref->n_buckets, s->types[odd_t].name,
                s->types[odd_t].profile.n_buckets);
        if (ref != NULL) {
            nb = ref->n_buckets;
        } else {
            hs__note(res, "overlap %s: no profile lists gradient "
                          "buckets; one ring after the whole backward "
                          "(as overlap none)",
                     hs_overlap_name(m->o->overlap));
            m->overlap = HS_OVERLAP_NONE;
        }
    }
    m->nb = (uint32_t)nb;
    m->ready = calloc(s->n_types * nb, sizeof *m->ready);
    m->chunk_bytes = calloc(s->n_types * nb, sizeof *m->chunk_bytes);
    bytes = calloc(s->n_types * nb, sizeof *bytes);
    if (m->ready == NULL || m->chunk_bytes == NULL || bytes == NULL) {
        free(bytes);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    if (m->overlap != HS_OVERLAP_BUCKETS) {
        for (t = 0; t < s->n_types; t++) {
            bytes[t] = hs_profile_payload_bytes(&s->types[t].profile);
            m->chunk_bytes[t] = (uint64_t)llround(bytes[t] / m->parts);
        }
    } else {
        hs_err_t rc = hs_bucket_layout(s, ref, nb, m->ready, bytes,
                                       &res->notes, &res->n_notes, err);

        if (rc != HS_OK) {
            free(bytes);
            return rc;
        }
        if (m->o->overlap == HS_OVERLAP_LAST_BUCKET) {
            hs_bucket_gather(s->n_types, nb, m->ready, bytes);
            m->nb = 1;
            nb = 1;
        }
        for (t = 0; t < s->n_types * nb; t++)
            m->chunk_bytes[t] = (uint64_t)llround(bytes[t] / m->parts);
    }
    *bytes_out = bytes;
    return HS_OK;
}

static int hs__cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static int64_t hs__clamp_ns(double x)
{
    if (!(x > 0))
        return 0;
    if (x >= 9.2e18)
        return INT64_MAX;
    return llround(x);
}

/* Fills the figures of res from the model after the run. */
hs_err_t hs__replay_figures(hs__model_t *m, const hs_prediction_t *pred,
                            hs_replay_result_t *res, hs_error_t *err)
{
    size_t i;

    for (i = 0; i < m->n; i++) {
        const hs__dev_t *d = &m->dev[i];

        res->dev_step_ns[i] = d->n_sum > 0 ?
            llround((double)d->sum_ns / (double)d->n_sum) : 0;
    }
    return hs_replay_figures(m->s, m->steps, m->cl_end, m->cl_start0, pred,
                             res, err);
}

void hs_fast_compute(const hs_scenario_t *s, const hs_replay_opts_t *o,
                     uint32_t x, int64_t k, hs_fast_comp_t *out)
{
    const hs_profile_t *p = &s->types[s->devices[x].type].profile;
    hs_phase_times_t raw;
    hs_phases_t ph;

    raw.fwd_ns = p->t_fwd.known ? p->t_fwd.mean_ns : 0;
    raw.b1_ns = p->t_b1.known ? p->t_b1.mean_ns : 0;
    raw.bwd_ns = p->t_bwd.known ? p->t_bwd.mean_ns : -1;
    raw.opt_ns = p->t_opt.known ? p->t_opt.mean_ns : 0;
    hs_phases_derive(s, x, k, o->stragglers, o->n_stragglers, &raw, &ph);
    out->c = ph.scale;
    out->dl = p->t_dl.known ? hs_phases_dl_ns(s, x, p->t_dl.mean_ns) : 0;
    out->fwd = ph.fwd_ns;
    out->b1 = ph.b1_ns;
    out->rest = ph.rest_ns;
    out->opt = ph.opt_ns;
}

int hs_replay_result_arrays(hs_replay_result_t *res, size_t n,
                            size_t n_types, uint32_t steps)
{
    size_t nt = n_types ? n_types : 1;

    res->n_devices = n;
    res->n_types = n_types;
    res->dev_step_ns = calloc(n, sizeof *res->dev_step_ns);
    res->dev_closed_ns = calloc(n, sizeof *res->dev_closed_ns);
    res->dev_closed_ext_ns = calloc(n, sizeof *res->dev_closed_ext_ns);
    res->type_closed_ext_ns = calloc(nt, sizeof *res->type_closed_ext_ns);
    res->type_step_ns = calloc(nt, sizeof *res->type_step_ns);
    res->type_closed_ns = calloc(nt, sizeof *res->type_closed_ns);
    res->cluster_step_ns = calloc(steps, sizeof *res->cluster_step_ns);
    if (res->dev_step_ns == NULL || res->dev_closed_ns == NULL ||
        res->dev_closed_ext_ns == NULL || res->type_closed_ext_ns == NULL ||
        res->type_step_ns == NULL || res->type_closed_ns == NULL ||
        res->cluster_step_ns == NULL)
        return -1;
    return 0;
}

hs_err_t hs_replay_figures(const hs_scenario_t *s, uint32_t steps,
                           const int64_t *cl_end, int64_t cl_start0,
                           const hs_prediction_t *pred,
                           hs_replay_result_t *res, hs_error_t *err)
{
    size_t i, n_st, first = steps > 1 ? 1 : 0;
    int64_t *v = NULL;
    double mean, sd, I, E;

    for (i = 0; i < s->n_devices; i++) {
        uint32_t t = s->devices[i].type;
        int64_t closed = pred->dev[i].t_step_ns;

        res->dev_closed_ns[i] = closed;
        if (res->dev_step_ns[i] > res->type_step_ns[t])
            res->type_step_ns[t] = res->dev_step_ns[i];
        if (closed > res->type_closed_ns[t])
            res->type_closed_ns[t] = closed;
        res->dev_closed_ext_ns[i] = pred->dev[i].t_ext_ns;
        if (pred->dev[i].t_ext_ns > res->type_closed_ext_ns[t])
            res->type_closed_ext_ns[t] = pred->dev[i].t_ext_ns;
    }
    for (i = 0; i < (size_t)steps; i++)
        res->cluster_step_ns[i] = cl_end[i] -
                                  (i == 0 ? cl_start0 : cl_end[i - 1]);
    res->first_step_ns = res->cluster_step_ns[0];
    n_st = (size_t)steps - first;
    if (steps > 1)
        res->step_ns = llround((double)(cl_end[steps - 1] - cl_end[0]) /
                               (double)(steps - 1));
    else
        res->step_ns = res->cluster_step_ns[0];
    v = malloc(n_st * sizeof *v);
    if (v == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    for (i = 0; i < n_st; i++)
        v[i] = res->cluster_step_ns[first + i];
    hs_stats_of_i64(v, n_st, &mean, &sd);
    qsort(v, n_st, sizeof *v, hs__cmp_i64);
    res->step_mean_ns = llround(mean);
    res->step_sd_ns = llround(sd);
    /* nearest rank: the ceil(p n)-th smallest */
    res->step_p50_ns = v[(size_t)ceil(0.50 * (double)n_st) - 1];
    res->step_p95_ns = v[(size_t)ceil(0.95 * (double)n_st) - 1];
    free(v);

    res->closed_step_ns = pred->step_ns;
    res->closed_ext_step_ns = pred->step_ext_ns;
    res->iters_per_epoch = pred->iters_per_epoch;
    res->epochs = s->epochs;
    I = (double)pred->iters_per_epoch;
    E = (double)s->epochs;
    /* checked, within the time limit, blamed on the key when not */
    if (hs_scenario_epoch_total(s, pred->iters_per_epoch, res->step_ns,
                                &res->epoch_ns, &res->total_ns,
                                err) != HS_OK)
        return err != NULL ? err->code : HS_ERR_RANGE;
    res->epoch_lo_ns = hs__clamp_ns(I * mean - 1.96 * sd * sqrt(I));
    res->epoch_hi_ns = hs__clamp_ns(I * mean + 1.96 * sd * sqrt(I));
    res->total_lo_ns = hs__clamp_ns(E * I * mean - 1.96 * sd * sqrt(E * I));
    res->total_hi_ns = hs__clamp_ns(E * I * mean + 1.96 * sd * sqrt(E * I));
    return HS_OK;
}

hs_err_t hs__replay_check_engine(const hs__model_t *m, size_t cap,
                                 hs_error_t *err)
{
    /* per device and step: its batch load, backward end, optimizer and
       one spare; per bucket its ring opening and, per round, a chunk's
       arrival (and its processing when the communication costs compute) */
    double per_dev = 4.0 + (double)m->nb *
                               (1.0 + (double)m->rounds * (m->comm ? 2 : 1));
    double events = (double)m->steps * (double)m->n * per_dev;

    if (events > (double)HS_ENGINE_MAX_EVENTS)
        return hs_scenario_fail(
            m->s, "simulate.steps", HS_ERR_RANGE, err,
            "replaying %lld steps of %u devices (the devices: "
            "device_types[].count) with the event engine schedules up to "
            "%.3g events (%u ring rounds per device, bucket and step), more "
            "than the engine's limit of 2^40 = %.4g; replay fewer steps or "
            "fewer devices",
            (long long)m->steps, m->n, events, (unsigned)m->rounds,
            (double)HS_ENGINE_MAX_EVENTS);
    if (cap > HS_ENGINE_MAX_CAPACITY)
        return hs_scenario_fail(
            m->s, "device_types", HS_ERR_RANGE, err,
            "replaying %u devices (device_types[].count) with %u gradient "
            "buckets on %u streams keeps up to %zu events pending "
            "(N x (buckets + 3 + 2 x streams)), more than the event "
            "engine's limit of 2^24 - 1 = %zu; use fewer devices, fewer "
            "buckets (overlap: patent) or fewer streams",
            m->n, m->nb, m->k, cap, (size_t)HS_ENGINE_MAX_CAPACITY);
    return HS_OK;
}

int hs_fast_supports_nodes(const hs_scenario_t *s, const hs_replay_opts_t *o,
                           int is_coll, const char *coll_no, char *why,
                           size_t why_len)
{
    const char *no = NULL;
    size_t t;

    if (s->nodes == NULL || s->n_devices == 0 ||
        s->n_devices > UINT32_MAX / 2)
        no = "no nodes, no devices, or too many";
    else if (!is_coll)
        no = coll_no;
    else if (o->steps == 0)
        no = "0 steps to replay";
    else if (o->stochastic)
        no = "stochastic mode draws per-step times in event order";
    else if (o->overlap != HS_OVERLAP_PATENT &&
             o->overlap != HS_OVERLAP_NONE)
        no = "gradient buckets (overlap buckets, last_bucket)";
    else if (o->send != HS_SEND_RENDEZVOUS && o->send != HS_SEND_EAGER)
        no = "unknown send mode";
    for (t = 0; no == NULL && t < s->n_types; t++)
        if (s->types[t].profile.comm_ns_per_byte > 0 ||
            s->types[t].profile.t_hop_wait_ns > 0)
            no = "the communication's own cost or a hop wait: the order "
                 "of equal-time events is the engine's";
    if (no == NULL)
        return 1;
    if (why != NULL && why_len > 0)
        snprintf(why, why_len, "%s", no);
    return 0;
}

int64_t hs_fast_first_starts(const hs_scenario_t *s,
                             const hs_replay_opts_t *o,
                             hs_fast_comp_t *base, int64_t *f_ns)
{
    int64_t cl_start0 = INT64_MAX;
    size_t x;

    for (x = 0; x < s->n_devices; x++) {
        hs_fast_compute(s, o, (uint32_t)x, -1, &base[x]);
        /* time 0: every CPU loads batch 0; step 0 starts when it is in */
        f_ns[x] = base[x].dl;
        if (f_ns[x] < cl_start0)
            cl_start0 = f_ns[x];
    }
    return cl_start0;
}

hs_err_t hs_fast_stopped(const hs_replay_opts_t *o, hs_error_t *err)
{
    if (o->stop != NULL && *o->stop)
        return hs_error_setf(err, HS_ERR_USAGE, "interrupted");
    return HS_OK;
}

hs_err_t hs_fast_nomem(hs_error_t *err, size_t n)
{
    return hs_error_setf(err, HS_ERR_NOMEM, "out of memory for the fast "
                                            "replay of %zu devices", n);
}

void hs_fast_dev_means(hs_replay_result_t *res, const int64_t *sum_ns,
                       size_t n, uint32_t steps)
{
    int64_t n_sum = steps > 1 ? (int64_t)steps - 1 : 1;
    size_t x;

    for (x = 0; x < n; x++)
        res->dev_step_ns[x] = llround((double)sum_ns[x] / (double)n_sum);
}

void hs_fast_describe(const hs_replay_opts_t *o, const char *collective,
                      uint32_t steps, uint64_t n_events, int64_t end_ns,
                      hs_replay_result_t *res)
{
    res->steps = steps;
    res->overlap = o->overlap;
    res->overlap_asked = o->overlap;
    res->collective = collective;
    res->send = o->send;
    res->hop_wait = o->hop_wait;
    res->stochastic = 0;
    res->seed = o->seed;
    res->n_buckets = 1;
    res->streams = 1;
    res->streams_asked = o->streams;
    res->n_events = n_events;
    res->end_ns = end_ns;
    res->queue_high_water = 0;
}
