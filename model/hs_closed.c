/*
 * hs_closed.c -- the closed-form model (hs_closed.h, docs/method.md S400).
 *
 * One pass over the devices: each T(i) needs only its type's means and its
 * own ring edge, so the cost is O(N) time and O(N) memory (one small record
 * per device), with no N x N table anywhere.
 */
#include "hs_closed.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_buckets.h"
#include "hs_checked.h"
#include "hs_edge.h"
#include "hs_notes.h"
#include "hs_phases.h"
#include "hs_units.h"

int64_t hs_closed_allreduce_ns(const hs_scenario_t *s, uint32_t d)
{
    return hs_coll_ring.allreduce_ns(s, d);
}

void hs_closed_overlap_clear(hs_closed_overlap_t *ov)
{
    if (ov == NULL)
        return;
    free(ov->ready);
    free(ov->bytes);
    memset(ov, 0, sizeof *ov);
}

hs_err_t hs_closed_overlap_init(const hs_scenario_t *s, hs_overlap_t asked,
                                hs_closed_overlap_t *out, hs_error_t *err)
{
    const hs_profile_t *ref;
    size_t ref_t, odd_t, nb, nt = s->n_types ? s->n_types : 1;

    memset(out, 0, sizeof *out);
    out->asked = out->mode = asked;
    if (asked != HS_OVERLAP_BUCKETS && asked != HS_OVERLAP_LAST_BUCKET)
        return HS_OK;
    /* as the replay decides it (sim/hs_replay_setup.c) */
    ref = hs_bucket_ref(s, &ref_t, &odd_t);
    if (ref == NULL)
        out->why_none = "no profile lists gradient buckets";
    else if (odd_t < s->n_types)
        out->why_none = "the profiles list different numbers of gradient "
                        "buckets";
    else if (hs_bucket_empty(s, ref))
        out->why_none = "a type's gradient buckets hold 0 bytes";
    if (out->why_none != NULL) {
        out->mode = HS_OVERLAP_NONE;
        return HS_OK;
    }
    nb = ref->n_buckets;
    out->ready = calloc(nt * nb, sizeof *out->ready);
    out->bytes = calloc(nt * nb, sizeof *out->bytes);
    if (out->ready == NULL || out->bytes == NULL) {
        hs_closed_overlap_clear(out);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    /* cannot fail: the 0-byte layout was ruled out above */
    (void)hs_bucket_layout(s, ref, nb, out->ready, out->bytes, NULL, NULL,
                           NULL);
    if (asked == HS_OVERLAP_LAST_BUCKET) {
        hs_bucket_gather(s->n_types, nb, out->ready, out->bytes);
        nb = 1;
    }
    out->nb = nb;
    return HS_OK;
}

/* The all-reduce of each bucket of ov alone on device d as the sum of
   collective c's rounds, each a chunk of the bucket's bytes. */
static void hs__bucket_ar_sum(const hs_scenario_t *s,
                              const hs_collective_t *c,
                              const hs_closed_overlap_t *ov, uint32_t d,
                              int64_t *out)
{
    int64_t rounds, r;
    size_t b, t = s->devices[d].type;
    hs_coll_round_t rd;

    rounds = c->rounds_of != NULL ? c->rounds_of(s)
                                  : c->rounds((uint32_t)s->n_devices);
    c->round(s, d, 0, &rd);
    for (b = 0; b < ov->nb; b++) {
        double bytes = ov->bytes[t * ov->nb + b];

        if (c->uniform) {
            /* every round takes round 0's edge and chunk */
            out[b] = rounds * hs_coll_round_chunk_ns(s, &rd, bytes);
            continue;
        }
        out[b] = 0;
        for (r = 0; r < rounds; r++) {
            hs_coll_round_t x;

            c->round(s, d, r, &x);
            out[b] += hs_coll_round_chunk_ns(s, &x, bytes);
        }
    }
}

/* Every device's bucket all-reduces, out[b * N + x], for a collective
   whose closed form gives them for the whole cluster (bucket_all_ns of
   the collective that runs for c); *out NULL when it has none or ov is
   not in buckets mode.  The caller frees *out.  HS_OK or HS_ERR_NOMEM. */
static hs_err_t hs__bucket_all(const hs_scenario_t *s,
                               const hs_collective_t *c,
                               const hs_closed_overlap_t *ov, int64_t **out,
                               hs_error_t *err)
{
    const hs_collective_t *rc = hs_collective_resolve(c, s);
    size_t n = s->n_devices ? s->n_devices : 1;
    hs_err_t e;

    *out = NULL;
    if (ov == NULL || ov->mode != HS_OVERLAP_BUCKETS ||
        rc->bucket_all_ns == NULL)
        return HS_OK;
    if ((*out = malloc(ov->nb * n * sizeof **out)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    if ((e = rc->bucket_all_ns(s, ov->bytes, ov->nb, *out, err)) != HS_OK) {
        free(*out);
        *out = NULL;
    }
    return e;
}

void hs_closed_bucket_ar(const hs_scenario_t *s, const hs_collective_t *c,
                         const hs_closed_overlap_t *ov, uint32_t d,
                         int64_t *out)
{
    int64_t *all = NULL;
    size_t b;

    if (ov == NULL || ov->mode != HS_OVERLAP_BUCKETS)
        return;
    if (hs__bucket_all(s, c, ov, &all, NULL) == HS_OK && all != NULL) {
        for (b = 0; b < ov->nb; b++)
            out[b] = all[b * s->n_devices + d];
        free(all);
        return;
    }
    hs__bucket_ar_sum(s, c, ov, d, out);
}

int64_t hs_closed_ext_step_ns(const hs_closed_overlap_t *ov, uint32_t type,
                              const hs_phases_t *ph, int64_t dl_ns,
                              int64_t ar_ns, const int64_t *bucket_ar_ns)
{
    /* the whole backward: max(t_bwd scaled, t_b1) */
    int64_t bwd = ph->b1_ns + ph->rest_ns, ring, ext;
    hs_overlap_t mode = ov != NULL ? ov->mode : HS_OVERLAP_PATENT;
    size_t b;

    switch (mode) {
    case HS_OVERLAP_NONE:
        /* the ring opens when the backward is over */
        ring = bwd + ar_ns;
        break;
    case HS_OVERLAP_LAST_BUCKET:
        /* one ring of M when the last bucket is ready */
        ring = hs_phases_ready_ns(ov->ready[type], ph->scale) + ar_ns;
        break;
    case HS_OVERLAP_BUCKETS:
        /* bucket b's ring starts when it is ready and the ring before it
           is done: E_b = max(E_{b-1}, r_b) + T_ar,b (one stream; several
           streams share each edge, so the last ring ends no sooner) */
        ring = 0;
        for (b = 0; b < ov->nb; b++) {
            int64_t at = hs_phases_ready_ns(ov->ready[type * ov->nb + b],
                                            ph->scale);

            ring = (at > ring ? at : ring) +
                   (bucket_ar_ns != NULL ? bucket_ar_ns[b] : 0);
        }
        break;
    default:
        /* patent: after the first backward operator */
        ring = ph->b1_ns + ar_ns;
        break;
    }
    /* the optimizer follows the later of the backward and the ring */
    ext = ph->fwd_ns + (bwd > ring ? bwd : ring) + ph->opt_ns;
    return dl_ns > ext ? dl_ns : ext;
}

/* Fills one device's record, T_ar(i) = t_ar (collective c's), T_ext(i)
   in overlap ov (bar: room for ov->nb bucket all-reduces; ball: every
   device's bucket all-reduces, [b * N + d], when c's closed form gave
   them for the cluster, else NULL); returns T(i). */
static int64_t hs__device(const hs_scenario_t *s, const hs_collective_t *c,
                          const hs_closed_overlap_t *ov, uint32_t d,
                          int64_t t_ar, const int64_t *ball, int64_t *bar,
                          hs_dev_pred_t *r)
{
    const hs_profile_t *p = &s->types[s->devices[d].type].profile;
    hs_phases_t ph;

    hs_phases_derive(s, d, -1, NULL, 0, NULL, &ph);
    r->t_dl_ns = p->t_dl.known ? hs_phases_dl_ns(s, d, p->t_dl.mean_ns) : 0;
    r->t_fwd_ns = ph.fwd_ns;
    r->t_b1_ns = ph.b1_ns;
    r->t_ar_ns = t_ar;
    r->t_dev_ns = r->t_fwd_ns + r->t_b1_ns + r->t_ar_ns;
    r->bound = r->t_dl_ns > r->t_dev_ns ? HS_BOUND_DATA : HS_BOUND_DEVICE;
    r->t_step_ns = r->bound == HS_BOUND_DATA ? r->t_dl_ns : r->t_dev_ns;
    if (ball != NULL) {
        size_t b;
        for (b = 0; b < ov->nb; b++)
            bar[b] = ball[b * s->n_devices + d];
    } else {
        hs_closed_bucket_ar(s, c, ov, d, bar);
    }
    r->t_ext_ns = hs_closed_ext_step_ns(ov, s->devices[d].type, &ph,
                                        r->t_dl_ns, r->t_ar_ns, bar);
    return r->t_step_ns;
}

int64_t hs_closed_device_ns(const hs_scenario_t *s, uint32_t d)
{
    return hs_closed_device_coll_ns(s, &hs_coll_ring, d);
}

int64_t hs_closed_device_coll_ns(const hs_scenario_t *s,
                                 const hs_collective_t *c, uint32_t d)
{
    hs_dev_pred_t r;

    return hs__device(s, c, NULL, d, c->allreduce_ns(s, d), NULL, NULL,
                      &r);
}

/* T_ar(i) of every device by collective c into ar[] (N of them): in one
   pass when c has one (allreduce_all_ns), else device by device. */
static hs_err_t hs__all_ar(const hs_scenario_t *s, const hs_collective_t *c,
                           int64_t *ar, hs_error_t *err)
{
    size_t d;

    if (c->allreduce_all_ns != NULL)
        return c->allreduce_all_ns(s, ar, err);
    for (d = 0; d < s->n_devices; d++)
        ar[d] = c->allreduce_ns(s, (uint32_t)d);
    return HS_OK;
}

int64_t hs_closed_device_ext_ns(const hs_scenario_t *s, uint32_t d)
{
    hs_closed_overlap_t ov;
    hs_dev_pred_t r;
    int64_t *bar = NULL;
    const hs_collective_t *c = NULL;

    if (hs_collective_find(s->collective, &c, NULL) != HS_OK ||
        (c->check != NULL && c->check(s, NULL) != HS_OK))
        return -1;
    if (hs_closed_overlap_init(s, s->overlap, &ov, NULL) != HS_OK)
        return -1;
    if (ov.nb > 0 && (bar = malloc(ov.nb * sizeof *bar)) == NULL) {
        hs_closed_overlap_clear(&ov);
        return -1;
    }
    hs__device(s, c, &ov, d, c->allreduce_ns(s, d), NULL, bar, &r);
    free(bar);
    hs_closed_overlap_clear(&ov);
    return r.t_ext_ns;
}

/* A warning for the prediction's list (the one notes list: hs_notes). */
#define hs__warn(p, ...) hs_notes_add_to(&(p)->warnings, &(p)->n_warnings, \
                                         __VA_ARGS__)

void hs_prediction_free(hs_prediction_t *p)
{
    size_t i;

    if (p == NULL)
        return;
    free(p->dev);
    free(p->types);
    for (i = 0; i < p->n_warnings; i++)
        free(p->warnings[i]);
    free(p->warnings);
    free(p);
}

/* Samples per device of type t per epoch (d_t); 0 when unknown. */
static uint64_t hs__shard_samples(const hs_scenario_t *s, size_t t,
                                  uint64_t total_samples,
                                  uint64_t sum_batch)
{
    const hs_type_t *ty = &s->types[t];

    if (ty->shard != 0) {
        if (!ty->shard_is_bytes)
            return ty->shard;
        return s->sample_bytes ? ty->shard / s->sample_bytes : 0;
    }
    if (total_samples == 0 || sum_batch == 0)
        return 0;
    /* shards follow the batch sizes: d_t = total * b_t / sum_i b_i */
    return (uint64_t)((long double)total_samples * (long double)ty->batch /
                      (long double)sum_batch);
}

/* The key an epoch too long is blamed on: the shard of the type that
   needs the most iterations when it was given, else the data set. */
static void hs__iters_key(const hs_scenario_t *s, const hs_prediction_t *p,
                          char *key, size_t len)
{
    size_t t;

    for (t = 0; t < s->n_types; t++)
        if (p->types[t].iters == p->iters_per_epoch &&
            s->types[t].shard != 0) {
            snprintf(key, len, "device_types.%s.shard", s->types[t].name);
            return;
        }
    snprintf(key, len, "job.dataset");
}

hs_err_t hs_closed_predict(const hs_scenario_t *s, hs_prediction_t **out,
                           hs_error_t *err)
{
    const hs_collective_t *c;
    hs_err_t rc;

    /* the scenario's collective (NULL: the ring) */
    *out = NULL;
    if ((rc = hs_collective_find(s->collective, &c, err)) != HS_OK)
        return rc;
    return hs_closed_predict_with(s, c, s->overlap, out, err);
}

hs_err_t hs_closed_predict_coll(const hs_scenario_t *s,
                                const hs_collective_t *c,
                                hs_prediction_t **out, hs_error_t *err)
{
    return hs_closed_predict_with(s, c, s->overlap, out, err);
}

/* A new prediction for s with its per-device and per-type records, the
   type means filled in; NULL when out of memory. */
static hs_prediction_t *hs__pred_new(const hs_scenario_t *s)
{
    hs_prediction_t *p = calloc(1, sizeof *p);
    size_t t;

    if (p == NULL)
        return NULL;
    p->n_devices = s->n_devices;
    p->n_types = s->n_types;
    p->dev = malloc(s->n_devices * sizeof *p->dev);
    p->types = calloc(s->n_types, sizeof *p->types);
    if (p->dev == NULL || p->types == NULL) {
        hs_prediction_free(p);
        return NULL;
    }
    for (t = 0; t < s->n_types; t++) {
        hs_type_pred_t *tp = &p->types[t];
        const hs_profile_t *pr = &s->types[t].profile;
        tp->t_dl_ns = pr->t_dl.known ? pr->t_dl.mean_ns : 0;
        tp->t_fwd_ns = pr->t_fwd.mean_ns;
        tp->t_b1_ns = pr->t_b1.mean_ns;
        tp->payload_bytes = hs_profile_payload_bytes(pr);
        tp->t_ar_min_ns = tp->t_step_min_ns = INT64_MAX;
        tp->t_ar_max_ns = tp->t_step_max_ns = -1;
    }
    p->step_ns = -1;
    return p;
}

/* Every device's T(i) and T_ext(i) (ar: every device's T_ar(i); ball:
   every device's bucket all-reduces or NULL, as hs__device; bar: room
   for ov->nb bucket all-reduces), and the extremes per type and over
   the cluster; the sum of the devices' batches into *sum_batch. */
static void hs__pred_devices(const hs_scenario_t *s, const hs_collective_t *c,
                             const hs_closed_overlap_t *ov,
                             const int64_t *ar, const int64_t *ball,
                             int64_t *bar, hs_prediction_t *p,
                             uint64_t *sum_batch)
{
    int64_t worst_ar = -1;
    size_t i;

    for (i = 0; i < s->n_devices; i++) {
        hs_dev_pred_t *r = &p->dev[i];
        uint32_t ty = s->devices[i].type;
        hs_type_pred_t *tp = &p->types[ty];
        int64_t ts = hs__device(s, c, ov, (uint32_t)i, ar[i], ball, bar,
                                r);

        tp->count++;
        *sum_batch += s->types[ty].batch;
        if (r->t_ar_ns < tp->t_ar_min_ns)
            tp->t_ar_min_ns = r->t_ar_ns;
        if (r->t_ar_ns > tp->t_ar_max_ns)
            tp->t_ar_max_ns = r->t_ar_ns;
        if (ts < tp->t_step_min_ns)
            tp->t_step_min_ns = ts;
        if (r->t_ext_ns > tp->t_ext_max_ns)
            tp->t_ext_max_ns = r->t_ext_ns;
        if (ts > tp->t_step_max_ns) {
            tp->t_step_max_ns = ts;
            tp->slowest_device = (uint32_t)i;
        }
        if (ts > p->step_ns) {
            p->step_ns = ts;
            p->bottleneck_device = (uint32_t)i;
            p->bottleneck_bound = r->bound;
        }
        if (r->t_ext_ns > p->step_ext_ns)
            p->step_ext_ns = r->t_ext_ns;
        if (r->t_ar_ns > worst_ar) {
            worst_ar = r->t_ar_ns;
            p->bottleneck_link = s->devices[i].ring_pos;
        }
    }
}

/* The epoch and the total: I = max_t ceil(d_t / b_t), T_epoch = I x
   T_step, T_total = E x T_epoch, checked, within the time limit, or an
   error that names the key to blame.  Without shards nor a data set the
   epoch stays unknown (iters_per_epoch 0, a warning). */
static hs_err_t hs__pred_epoch(const hs_scenario_t *s, hs_prediction_t *p,
                               uint64_t sum_batch, uint64_t *iters_min,
                               hs_error_t *err)
{
    uint64_t total_samples = 0;
    long double shard_sum = 0;
    int epoch_known = 1;
    int64_t iters = 0, e = 0, tot = 0;
    size_t t;

    if (s->dataset_total != 0)
        total_samples = s->dataset_is_bytes
                            ? (s->sample_bytes ? s->dataset_total /
                                                     s->sample_bytes
                                               : 0)
                            : s->dataset_total;
    *iters_min = UINT64_MAX;
    for (t = 0; t < s->n_types; t++) {
        hs_type_pred_t *tp = &p->types[t];
        uint64_t b = s->types[t].batch;
        if (s->types[t].count == 0)
            continue;       /* no devices: no shard, no steps */
        tp->shard_samples = hs__shard_samples(s, t, total_samples, sum_batch);
        if (tp->shard_samples == 0) {
            epoch_known = 0;
            continue;
        }
        tp->iters = tp->shard_samples / b + (tp->shard_samples % b != 0);
        shard_sum += (long double)tp->shard_samples * (long double)tp->count;
        if (tp->iters > p->iters_per_epoch)
            p->iters_per_epoch = tp->iters;
        if (tp->iters < *iters_min)
            *iters_min = tp->iters;
    }
    if (!epoch_known || p->iters_per_epoch == 0) {
        p->iters_per_epoch = 0;
        if (hs__warn(p, "epoch and total time unknown: give job.dataset "
                        "(size or samples) or a shard per device type") != 0)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        return HS_OK;
    }
    if (hs_checked_u64_to_i64(p->iters_per_epoch, &iters) != 0 ||
        hs_checked_mul_i64(iters, p->step_ns, &e) != 0 ||
        !hs_checked_time_ok(e)) {
        char key[300], st[64];
        hs__iters_key(s, p, key, sizeof key);
        return hs_scenario_fail(
            s, key, HS_ERR_RANGE, err,
            "one epoch of %llu iterations of a %s step would take "
            "%.3g ns; hetsim handles times up to 1e18 ns (31.7 years)",
            (unsigned long long)p->iters_per_epoch,
            hs_fmt_time(p->step_ns, st, sizeof st),
            (double)p->iters_per_epoch * (double)p->step_ns);
    }
    if (hs_checked_mul_i64(e, (int64_t)s->epochs, &tot) != 0 ||
        !hs_checked_time_ok(tot)) {
        char ep[64];
        return hs_scenario_fail(
            s, "job.epochs", HS_ERR_RANGE, err,
            "%u epochs of %s would take %.3g ns; hetsim handles times "
            "up to 1e18 ns (31.7 years)",
            s->epochs, hs_fmt_time(e, ep, sizeof ep),
            (double)e * (double)s->epochs);
    }
    p->epoch_ns = e;
    p->total_ns = tot;
    p->shards_unbalanced = *iters_min != p->iters_per_epoch;
    if (total_samples != 0)
        p->shard_coverage = (double)(shard_sum / total_samples);
    return HS_OK;
}

/* The warnings a careful user wants to see; -1 when out of memory. */
static int hs__pred_warnings(const hs_scenario_t *s,
                             const hs_closed_overlap_t *ov,
                             hs_prediction_t *p, uint64_t iters_min)
{
    char b1[64], b2[64];
    size_t t;

    for (t = 0; t < s->n_types; t++) {
        const hs_profile_t *pr = &s->types[t].profile;
        const hs_type_pred_t *tp = &p->types[t];
        if (s->types[t].count == 0)
            continue;
        if (!pr->t_dl.known &&
            hs__warn(p, "type '%s': t_dl unknown (not measured): data "
                        "loading is assumed hidden behind the device's work",
                     s->types[t].name) != 0)
            return -1;
        if (pr->t_bwd.known &&
            pr->t_bwd.mean_ns - pr->t_b1.mean_ns > tp->t_ar_max_ns &&
            hs__warn(p, "type '%s': the rest of the backward (%s) outlasts "
                        "its all-reduce (%s); the source's formula ignores "
                        "it, see the extended step",
                     s->types[t].name,
                     hs_fmt_time(pr->t_bwd.mean_ns - pr->t_b1.mean_ns, b1,
                                 sizeof b1),
                     hs_fmt_time(tp->t_ar_max_ns, b2, sizeof b2)) != 0)
            return -1;
    }
    if (ov->why_none != NULL &&
        hs__warn(p, "overlap %s: %s, so the extended step opens the ring "
                    "after the whole backward (as overlap none)",
                 hs_overlap_name(ov->asked), ov->why_none) != 0)
        return -1;
    if (ov->asked != HS_OVERLAP_PATENT &&
        hs__warn(p, "overlap %s: the source's formula T(i) opens the ring "
                    "after the first backward operator (overlap patent); "
                    "the extended step opens it as the replay does",
                 hs_overlap_name(ov->asked)) != 0)
        return -1;
    if (p->shards_unbalanced &&
        hs__warn(p, "shards are unbalanced: types need %llu to %llu "
                    "iterations per epoch, so some devices idle at the end "
                    "of each epoch",
                 (unsigned long long)iters_min,
                 (unsigned long long)p->iters_per_epoch) != 0)
        return -1;
    if (p->shard_coverage > 0 &&
        (p->shard_coverage < 0.99 || p->shard_coverage > 1.01) &&
        hs__warn(p, "the shards cover %.4g%% of the training set: an epoch "
                    "here is one pass over the shards, not over the whole "
                    "set",
                 p->shard_coverage * 100.0) != 0)
        return -1;
    return 0;
}

hs_err_t hs_closed_predict_with(const hs_scenario_t *s,
                                const hs_collective_t *c,
                                hs_overlap_t overlap, hs_prediction_t **out,
                                hs_error_t *err)
{
    hs_closed_overlap_t ov;
    hs_prediction_t *p = NULL;
    int64_t *bar = NULL, *ar = NULL, *ball = NULL;
    uint64_t sum_batch = 0, iters_min = UINT64_MAX;
    hs_err_t rc;

    *out = NULL;
    if (hs_scenario_require_profiles(s, err) != HS_OK)
        return err != NULL ? err->code : HS_ERR_SCHEMA;
    /* nothing below can overflow once this passed (T(i), T_ar) */
    if (hs_scenario_check_ranges_coll(s, 0, s->overlap, s->stragglers,
                                      s->n_stragglers, c, err) != HS_OK)
        return err != NULL ? err->code : HS_ERR_RANGE;
    if (c->check != NULL && c->check(s, err) != HS_OK)
        return err != NULL ? err->code : HS_ERR_SCHEMA;
    if ((rc = hs_closed_overlap_init(s, overlap, &ov, err)) != HS_OK)
        return rc;
    p = hs__pred_new(s);
    if (p == NULL || (ov.nb > 0 && (bar = malloc(ov.nb * sizeof *bar)) ==
                                       NULL))
        goto nomem;
    p->overlap = ov.mode;
    if ((ar = malloc((s->n_devices ? s->n_devices : 1) * sizeof *ar)) ==
        NULL)
        goto nomem;
    if ((rc = hs__all_ar(s, c, ar, err)) != HS_OK ||
        (rc = hs__bucket_all(s, c, &ov, &ball, err)) != HS_OK)
        goto fail;
    hs__pred_devices(s, c, &ov, ar, ball, bar, p, &sum_batch);
    free(ar);
    free(ball);
    ar = ball = NULL;
    if ((rc = hs__pred_epoch(s, p, sum_batch, &iters_min, err)) != HS_OK)
        goto fail;
    if (hs__pred_warnings(s, &ov, p, iters_min) != 0)
        goto nomem;
    free(bar);
    hs_closed_overlap_clear(&ov);
    *out = p;
    return HS_OK;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
fail:
    free(ar);
    free(ball);
    free(bar);
    hs_closed_overlap_clear(&ov);
    hs_prediction_free(p);
    return rc;
}
