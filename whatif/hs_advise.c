/* hs_advise.c -- ring order, batch per type, device mix (hs_advise.h). */
#include "hs_advise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hs_batchopt.h"
#include "hs_closed.h"
#include "hs_file.h"
#include "hs_rewrite.h"
#include "hs_ringopt.h"
#include "hs_units.h"

static double hs__cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* As the closed form scales a time by a device's compute_scale. */
static int64_t hs__scaled(int64_t t_ns, double scale)
{
    return scale == 1.0 ? t_ns : (int64_t)llround((double)t_ns * scale);
}

/* The replay's steady step and total of scenario c with the caller's
   options (stragglers: c's own, its device indices). */
static hs_err_t hs__replay(const hs_scenario_t *c, const hs_replay_opts_t *o,
                           int64_t *step_ns, int64_t *total_ns,
                           hs_error_t *err)
{
    hs_replay_opts_t mine, own;
    hs_replay_result_t *r = NULL;
    hs_err_t rc;

    hs_replay_opts_from_scenario(c, &own);
    if (o != NULL) {
        mine = *o;
        mine.stragglers = own.stragglers;
        mine.n_stragglers = own.n_stragglers;
    } else {
        mine = own;
    }
    if ((rc = hs_replay_run(c, &mine, NULL, 0, &r, err)) != HS_OK)
        return rc;
    *step_ns = r->step_ns;
    if (total_ns != NULL)
        *total_ns = r->total_ns;
    hs_replay_result_free(r);
    return HS_OK;
}

/* ---- ring order ---------------------------------------------------- */

/* The closed form's T(i) when device j follows device i. */
static hs_err_t hs__ring_cost(void *ctx, uint32_t i, uint32_t j,
                              int64_t *cost_ns, hs_error_t *err)
{
    const hs_scenario_t *s = ctx;
    const hs_device_t *dv = &s->devices[i];
    const hs_profile_t *p = &s->types[dv->type].profile;
    int64_t dl = p->t_dl.known ? p->t_dl.mean_ns : 0, pre, round, dev;
    double bw, chunk = hs_profile_payload_bytes(p) / (double)s->n_devices;
    int64_t lat;
    hs_err_t rc;

    if ((rc = hs_scenario_link(s, i, j, &bw, &lat, err)) != HS_OK)
        return rc;
    pre = hs__scaled(p->t_fwd.mean_ns, dv->compute_scale) +
          dv->extra_compute_ns + hs__scaled(p->t_b1.mean_ns, dv->compute_scale);
    round = lat + hs_xfer_ns(chunk, bw);
    dev = pre + 2 * (int64_t)(s->n_devices - 1) * round;
    *cost_ns = dl > dev ? dl : dev;
    return HS_OK;
}

/* A ring order as YAML: "[name, name, ...]"; malloc'd. */
static char *hs__ring_yaml(const hs_scenario_t *s, const uint32_t *order)
{
    size_t len = 3, k, at = 0;
    char *out;

    for (k = 0; k < s->n_devices; k++)
        len += strlen(s->devices[order[k]].name) + 4;
    if ((out = malloc(len)) == NULL)
        return NULL;
    out[at++] = '[';
    for (k = 0; k < s->n_devices; k++)
        at += (size_t)snprintf(out + at, len - at, "%s\"%s\"",
                               k ? ", " : "", s->devices[order[k]].name);
    out[at++] = ']';
    out[at] = '\0';
    return out;
}

/* The order s would take with ring form `form` ("grouped"...). */
static hs_err_t hs__form_order(const hs_scenario_t *s, const char *form,
                               uint32_t *order, hs_error_t *err)
{
    hs_scenario_t *c = NULL;
    hs_err_t rc;

    if ((rc = hs_scenario_clone(s, &c, err)) != HS_OK)
        return rc;
    if ((rc = hs_scenario_set(c, "ring", form, err)) == HS_OK &&
        (rc = hs_scenario_resolve(c, err)) == HS_OK)
        memcpy(order, c->ring, s->n_devices * sizeof *order);
    hs_scenario_free(c);
    return rc;
}

/* Replays s in the given order. */
static hs_err_t hs__replay_order(const hs_scenario_t *s, const uint32_t *ord,
                                 const hs_replay_opts_t *o, int64_t *step_ns,
                                 hs_error_t *err)
{
    hs_scenario_t *c = NULL;
    char *yaml = hs__ring_yaml(s, ord);
    hs_err_t rc;

    if (yaml == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    if ((rc = hs_scenario_clone(s, &c, err)) == HS_OK &&
        (rc = hs_scenario_set(c, "ring", yaml, err)) == HS_OK &&
        (rc = hs_scenario_resolve(c, err)) == HS_OK)
        rc = hs__replay(c, o, step_ns, NULL, err);
    hs_scenario_free(c);
    free(yaml);
    return rc;
}

hs_err_t hs_advise_ring(const hs_scenario_t *s, const hs_replay_opts_t *o,
                        int replay, uint32_t exact_max,
                        hs_advise_ring_t **out, hs_error_t *err)
{
    static const char *const labels[HS_ADVISE_RING_CANDS] = {
        "given", "grouped", "interleave", "searched"};
    hs_advise_ring_t *r = NULL;
    hs_ringopt_result_t *sr = NULL;
    uint32_t n = (uint32_t)s->n_devices;
    size_t k, j;
    double t0;
    hs_err_t rc;

    *out = NULL;
    if ((rc = hs_scenario_require_profiles(s, err)) != HS_OK)
        return rc;
    if (n < 2)
        return hs_error_setf(err, HS_ERR_RANGE, "%s: a ring order needs at "
                             "least 2 devices", s->file);
    if ((r = calloc(1, sizeof *r)) == NULL)
        goto nomem;
    r->n = n;
    r->n_cands = HS_ADVISE_RING_CANDS;
    for (k = 0; k < HS_ADVISE_RING_CANDS; k++) {
        r->cands[k].label = labels[k];
        r->cands[k].replay_ns = -1;
        r->cands[k].same_as = -1;
        if ((r->cands[k].order = malloc(n * sizeof(uint32_t))) == NULL)
            goto nomem;
    }
    memcpy(r->cands[0].order, s->ring, n * sizeof(uint32_t));
    if ((rc = hs__form_order(s, "grouped", r->cands[1].order, err)) != HS_OK ||
        (rc = hs__form_order(s, "interleave", r->cands[2].order, err)) !=
            HS_OK)
        goto fail;
    t0 = hs__cpu_s();
    {
        const uint32_t *starts[3] = {r->cands[0].order, r->cands[1].order,
                                     r->cands[2].order};

        rc = hs_ringopt_search(n, hs__ring_cost, (void *)s, starts, 3,
                               exact_max, 0, &sr, err);
    }
    r->search_s = hs__cpu_s() - t0;
    if (rc != HS_OK)
        goto fail;
    memcpy(r->cands[3].order, sr->order, n * sizeof(uint32_t));
    r->lower_bound_ns = sr->lower_bound_ns;
    r->exact = sr->exact;
    r->moves = sr->moves;
    hs_ringopt_result_free(sr);
    sr = NULL;
    for (k = 0; k < HS_ADVISE_RING_CANDS; k++) {
        hs_advise_ring_cand_t *c = &r->cands[k];

        if ((rc = hs_ringopt_eval(n, c->order, hs__ring_cost, (void *)s,
                                  &c->closed_ns, &c->closed_sum_ns, err)) !=
            HS_OK)
            goto fail;
        for (j = 0; j < k && c->same_as < 0; j++)
            if (memcmp(r->cands[j].order, c->order, n * sizeof(uint32_t)) ==
                0)
                c->same_as = (int)j;
        if (replay && c->same_as < 0 &&
            (rc = hs__replay_order(s, c->order, o, &c->replay_ns, err)) !=
                HS_OK)
            goto fail;
        if (c->same_as >= 0)
            c->replay_ns = r->cands[c->same_as].replay_ns;
    }
    r->chosen = 0;
    for (k = 1; k < HS_ADVISE_RING_CANDS; k++) {
        const hs_advise_ring_cand_t *c = &r->cands[k], *b = &r->cands[r->chosen];
        int better = replay ? c->replay_ns < b->replay_ns
                            : c->closed_ns < b->closed_ns ||
                                  (c->closed_ns == b->closed_ns &&
                                   c->closed_sum_ns < b->closed_sum_ns);

        if (better)
            r->chosen = k;
    }
    *out = r;
    return HS_OK;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
fail:
    hs_ringopt_result_free(sr);
    hs_advise_ring_free(r);
    return rc;
}

void hs_advise_ring_free(hs_advise_ring_t *r)
{
    size_t k;

    if (r == NULL)
        return;
    for (k = 0; k < HS_ADVISE_RING_CANDS; k++)
        free(r->cands[k].order);
    free(r);
}

/* ---- batch per type ------------------------------------------------ */

/* Type t's profile moved to batch b (model/hs_profile.h: linear from one
   profile, interpolated over batch_points), replacing w's; its scaling
   model in words appended to *text (malloc'd, grown). */
static hs_err_t hs__scale_type(const hs_scenario_t *s, hs_scenario_t *w,
                               size_t t, uint64_t b, char **text,
                               int *models, hs_error_t *err)
{
    hs_profile_t np;
    hs_bscale_t how;
    char line[400], *grown;
    size_t have = *text != NULL ? strlen(*text) : 0, add;

    if (hs_profile_at_batch(&s->types[t].profile, s->types[t].batch, b, &np,
                            &how) != 0)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    hs_profile_clear(&w->types[t].profile);
    w->types[t].profile = np;
    *models |= how.model == HS_BSCALE_LINEAR ? 1 : 2;
    hs_bscale_describe(&how, s->types[t].batch, b, line, sizeof line);
    add = strlen(s->types[t].name) + strlen(line) + 5;
    if ((grown = realloc(*text, have + add)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    snprintf(grown + have, add, "%s%s: %s", have ? "; " : "",
             s->types[t].name, line);
    *text = grown;
    return HS_OK;
}

/* The time function of the batch search: the closed form's largest
   extended T_ext(i) (forward, the whole backward or the all-reduce,
   the optimizer: the device's own work per step) over type t's devices
   with the profile scaled to batch b. */
typedef struct hs__bctx_s {
    const hs_scenario_t *s;     /* the original */
    hs_scenario_t *w;           /* a working copy whose profiles change */
    uint32_t **devs;            /* per type, its device indices */
    size_t *n_devs;
} hs__bctx_t;

static hs_err_t hs__batch_time(void *ctx, size_t t, uint64_t b, int64_t *ns,
                               hs_error_t *err)
{
    hs__bctx_t *bc = ctx;
    const hs_profile_t *p0 = &bc->s->types[t].profile;
    hs_profile_t *p = &bc->w->types[t].profile;
    int64_t mx = INT64_MIN, v, m[HS_PH_N];
    size_t i;

    (void)err;
    /* non-decreasing in b, as the search needs (hs_profile.h) */
    hs_profile_means_at_batch(p0, bc->s->types[t].batch, b, m, NULL);
    p->t_dl.mean_ns = m[HS_PH_DL];
    p->t_fwd.mean_ns = m[HS_PH_FWD];
    p->t_b1.mean_ns = m[HS_PH_B1];
    p->t_bwd.mean_ns = m[HS_PH_BWD];
    p->t_opt.mean_ns = m[HS_PH_OPT];
    for (i = 0; i < bc->n_devs[t]; i++) {
        v = hs_closed_device_ext_ns(bc->w, bc->devs[t][i]);
        if (v > mx)
            mx = v;
    }
    p->t_dl.mean_ns = p0->t_dl.mean_ns;
    p->t_fwd.mean_ns = p0->t_fwd.mean_ns;
    p->t_b1.mean_ns = p0->t_b1.mean_ns;
    p->t_bwd.mean_ns = p0->t_bwd.mean_ns;
    p->t_opt.mean_ns = p0->t_opt.mean_ns;
    *ns = mx;
    return HS_OK;
}

/* Step and epoch of the closed form on c. */
static hs_err_t hs__closed(const hs_scenario_t *c, int64_t *step,
                           int64_t *epoch, int64_t *total, hs_error_t *err)
{
    hs_prediction_t *p = NULL;
    hs_err_t rc = hs_closed_predict(c, &p, err);

    if (rc != HS_OK)
        return rc;
    *step = p->step_ns;
    *epoch = p->epoch_ns;
    if (total != NULL)
        *total = p->total_ns;
    hs_prediction_free(p);
    return HS_OK;
}

hs_err_t hs_advise_batch(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         uint64_t global_batch, const uint64_t *max_batch,
                         int replay, hs_advise_batch_t **out,
                         hs_error_t *err)
{
    hs_advise_batch_t *r = NULL;
    hs__bctx_t bc = {s, NULL, NULL, NULL};
    uint64_t *count = NULL, *maxb = NULL, gb_now = 0, total_shard = 0;
    hs_batchopt_result_t br;
    size_t t, i, nt = s->n_types;
    int any_shard = 0, models = 0;
    char *scaling = NULL;
    hs_err_t rc;

    *out = NULL;
    if ((rc = hs_scenario_require_profiles(s, err)) != HS_OK)
        return rc;
    r = calloc(1, sizeof *r);
    count = calloc(nt, sizeof *count);
    maxb = calloc(nt, sizeof *maxb);
    bc.devs = calloc(nt, sizeof *bc.devs);
    bc.n_devs = calloc(nt, sizeof *bc.n_devs);
    if (r == NULL || count == NULL || maxb == NULL || bc.devs == NULL ||
        bc.n_devs == NULL)
        goto nomem;
    r->n_types = nt;
    r->batch_before = calloc(nt, sizeof *r->batch_before);
    r->batch_after = calloc(nt, sizeof *r->batch_after);
    r->shard_after = calloc(nt, sizeof *r->shard_after);
    r->profile_after = calloc(nt, sizeof *r->profile_after);
    if (r->batch_before == NULL || r->batch_after == NULL ||
        r->shard_after == NULL || r->profile_after == NULL)
        goto nomem;
    for (t = 0; t < nt; t++) {
        count[t] = s->types[t].count;
        r->batch_before[t] = s->types[t].batch;
        gb_now += count[t] * s->types[t].batch;
        if (s->types[t].shard != 0) {
            any_shard = 1;
            if (s->types[t].shard_is_bytes && s->sample_bytes == 0) {
                rc = hs_error_setf(err, HS_ERR_SCHEMA, "%s: device type "
                                   "'%s' gives its shard in bytes: give "
                                   "job.dataset.sample_bytes (or the shard "
                                   "in samples) for batch advice", s->file,
                                   s->types[t].name);
                goto fail;
            }
            total_shard += count[t] * (s->types[t].shard_is_bytes
                                           ? s->types[t].shard /
                                                 s->sample_bytes
                                           : s->types[t].shard);
        }
        if (count[t] == 0) {
            rc = hs_error_setf(err, HS_ERR_RANGE, "%s: device type '%s' has "
                               "no devices", s->file, s->types[t].name);
            goto fail;
        }
    }
    r->global_batch_asked = global_batch != 0 ? global_batch : gb_now;
    for (t = 0; t < nt; t++)
        maxb[t] = max_batch != NULL && max_batch[t] != 0
                      ? max_batch[t]
                      : 4 * r->global_batch_asked;
    /* the devices of each type, and a working copy */
    for (t = 0; t < nt; t++)
        if ((bc.devs[t] = malloc(count[t] * sizeof **bc.devs)) == NULL)
            goto nomem;
    for (i = 0; i < s->n_devices; i++) {
        t = s->devices[i].type;
        bc.devs[t][bc.n_devs[t]++] = (uint32_t)i;
    }
    if ((rc = hs_scenario_clone(s, &bc.w, err)) != HS_OK)
        goto fail;
    if ((rc = hs_batchopt_solve(nt, count, maxb, r->global_batch_asked,
                                hs__batch_time, &bc, r->batch_after, &br,
                                err)) != HS_OK)
        goto fail;
    r->global_batch = br.global_batch;
    /* the scenario after: batches, scaled profiles, shards that follow */
    for (t = 0; t < nt; t++) {
        char v[32];

        snprintf(v, sizeof v, "%llu", (unsigned long long)r->batch_after[t]);
        {
            char key[256];

            snprintf(key, sizeof key, "device_types.%s.batch",
                     s->types[t].name);
            if ((rc = hs_scenario_set(bc.w, key, v, err)) != HS_OK)
                goto fail;
        }
        if ((rc = hs__scale_type(s, bc.w, t, r->batch_after[t], &scaling,
                                 &models, err)) != HS_OK)
            goto fail;
        if (any_shard && s->types[t].shard != 0) {
            /* the same samples per epoch, shared as the batches are */
            long double sh = (long double)total_shard *
                             (long double)r->batch_after[t] /
                             (long double)r->global_batch;

            r->shard_after[t] = (uint64_t)sh;
            bc.w->types[t].shard = s->types[t].shard_is_bytes
                                       ? r->shard_after[t] * s->sample_bytes
                                       : r->shard_after[t];
        }
    }
    {
        static const char lin[] = ". Linear: t_dl, t_fwd, t_b1 and t_bwd "
                                  "scale by b/b0, t_opt does not change";
        static const char pts[] = ". Interpolated: each phase piecewise "
                                  "linear between the measured batches' "
                                  "running maximum (non-decreasing in b), "
                                  "beyond them the line through the two "
                                  "nearest, below them never under b times "
                                  "the smallest per-sample time";
        static const char tail[] = ". The all-reduce payload does not "
                                   "change";
        size_t len = (scaling ? strlen(scaling) : 0) + sizeof lin +
                     sizeof pts + sizeof tail;

        if ((r->scaling = malloc(len)) == NULL)
            goto nomem;
        snprintf(r->scaling, len, "%s%s%s%s", scaling ? scaling : "",
                 models & 1 ? lin : "", models & 2 ? pts : "", tail);
    }
    for (t = 0; t < nt; t++)
        if (hs_profile_copy(&r->profile_after[t],
                            &bc.w->types[t].profile) != 0)
            goto nomem;
    if ((rc = hs_scenario_resolve(bc.w, err)) != HS_OK ||
        (rc = hs__closed(s, &r->closed_before_ns, &r->epoch_before_ns, NULL,
                         err)) != HS_OK ||
        (rc = hs__closed(bc.w, &r->closed_after_ns, &r->epoch_after_ns, NULL,
                         err)) != HS_OK)
        goto fail;
    r->replay_before_ns = r->replay_after_ns = -1;
    if (replay) {
        hs_prediction_t *pb = NULL, *pa = NULL;

        if ((rc = hs__replay(s, o, &r->replay_before_ns, NULL, err)) != HS_OK ||
            (rc = hs__replay(bc.w, o, &r->replay_after_ns, NULL, err)) !=
                HS_OK)
            goto fail;
        if (hs_closed_predict(s, &pb, err) == HS_OK &&
            hs_closed_predict(bc.w, &pa, err) == HS_OK) {
            r->replay_epoch_before_ns =
                (int64_t)pb->iters_per_epoch * r->replay_before_ns;
            r->replay_epoch_after_ns =
                (int64_t)pa->iters_per_epoch * r->replay_after_ns;
        }
        hs_prediction_free(pb);
        hs_prediction_free(pa);
    }
    hs_scenario_free(bc.w);
    for (t = 0; t < nt; t++)
        free(bc.devs[t]);
    free(bc.devs);
    free(bc.n_devs);
    free(count);
    free(maxb);
    free(scaling);
    *out = r;
    return HS_OK;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
fail:
    hs_scenario_free(bc.w);
    if (bc.devs != NULL)
        for (t = 0; t < nt; t++)
            free(bc.devs[t]);
    free(bc.devs);
    free(bc.n_devs);
    free(count);
    free(maxb);
    free(scaling);
    hs_advise_batch_free(r);
    return rc;
}

void hs_advise_batch_free(hs_advise_batch_t *r)
{
    size_t t;

    if (r == NULL)
        return;
    if (r->profile_after != NULL)
        for (t = 0; t < r->n_types; t++)
            hs_profile_clear(&r->profile_after[t]);
    free(r->profile_after);
    free(r->batch_before);
    free(r->batch_after);
    free(r->shard_after);
    free(r->scaling);
    free(r);
}

/* ---- device mix ---------------------------------------------------- */

typedef struct hs__mctx_s {
    const hs_scenario_t *s;
    hs_scenario_t *w;           /* a working copy: counts set per mix */
    int bound_ok;               /* no per-device settings: the bound holds */
    int64_t *type_floor_ns;     /* per type: max(t_dl, t_fwd + t_b1) */
} hs__mctx_t;

static hs_err_t hs__set_counts(const hs_scenario_t *s, hs_scenario_t *w,
                               const uint64_t *counts, hs_error_t *err)
{
    size_t t;
    hs_err_t rc;

    for (t = 0; t < s->n_types; t++) {
        char key[256], v[32];

        snprintf(key, sizeof key, "device_types.%s.count", s->types[t].name);
        snprintf(v, sizeof v, "%llu", (unsigned long long)counts[t]);
        if ((rc = hs_scenario_set(w, key, v, err)) != HS_OK)
            return rc;
    }
    return hs_scenario_resolve(w, err);
}

static hs_err_t hs__mix_total(void *ctx, const uint64_t *counts,
                              int64_t *total_ns, hs_error_t *err)
{
    hs__mctx_t *mc = ctx;
    hs_prediction_t *p = NULL;
    hs_err_t rc;

    rc = hs__set_counts(mc->s, mc->w, counts, err);
    if (rc == HS_OK)
        rc = hs_closed_predict(mc->w, &p, err);
    if (rc == HS_OK) {
        /* the extended form: the whole backward and the optimizer count,
           as they do in the replay that confirms the best mixes */
        long double t = (long double)p->step_ext_ns *
                        (long double)p->iters_per_epoch *
                        (long double)mc->w->epochs;

        if (p->iters_per_epoch == 0 || t > 9e18L)
            rc = hs_error_setf(err, HS_ERR_RANGE, "epoch unknown");
        else
            *total_ns = (int64_t)t;
    }
    hs_prediction_free(p);
    /* a mix that makes no cluster is skipped, not fatal */
    if (rc != HS_OK && rc != HS_ERR_NOMEM)
        return HS_ERR_RANGE;
    return rc;
}

/* No mix with these counts trains faster: every present type's device
   needs at least max(t_dl, t_fwd + t_b1) per step, and an epoch at least
   floor(samples / global batch) steps (shards follow the batches). */
static int64_t hs__mix_bound(void *ctx, const uint64_t *counts)
{
    hs__mctx_t *mc = ctx;
    const hs_scenario_t *s = mc->s;
    uint64_t gb = 0, samples;
    int64_t step = 0;
    size_t t;
    long double tot;

    if (!mc->bound_ok)
        return 0;
    samples = s->dataset_is_bytes
                  ? (s->sample_bytes ? s->dataset_total / s->sample_bytes : 0)
                  : s->dataset_total;
    for (t = 0; t < s->n_types; t++) {
        gb += counts[t] * s->types[t].batch;
        if (counts[t] > 0 && mc->type_floor_ns[t] > step)
            step = mc->type_floor_ns[t];
    }
    if (gb == 0)
        return 0;
    tot = (long double)s->epochs * (long double)(samples / gb) *
          (long double)step;
    return tot > 9e18L ? INT64_MAX : (int64_t)tot;
}

hs_err_t hs_advise_mix(const hs_scenario_t *s, const hs_replay_opts_t *o,
                       const hs_mixopt_type_t *types, hs_mix_goal_t goal,
                       double budget, int64_t deadline_ns, int replay,
                       hs_advise_mix_t **out, hs_error_t *err)
{
    hs_advise_mix_t *r = NULL;
    hs__mctx_t mc = {s, NULL, 1, NULL};
    size_t t, k;
    double t0;
    hs_err_t rc;

    *out = NULL;
    if ((rc = hs_scenario_require_profiles(s, err)) != HS_OK)
        return rc;
    if (s->devices_listed)
        return hs_error_setf(err, HS_ERR_SCHEMA, "%s: the scenario lists its "
                             "devices: a device mix needs devices generated "
                             "from the counts (no devices: list)", s->file);
    if ((r = calloc(1, sizeof *r)) == NULL ||
        (mc.type_floor_ns = calloc(s->n_types, sizeof(int64_t))) == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (s->dataset_total == 0) {
        rc = hs_error_setf(err, HS_ERR_SCHEMA, "%s: a device mix needs the "
                           "training set's size (job.dataset): the time to "
                           "train it is what the mixes are compared on",
                           s->file);
        goto fail;
    }
    for (t = 0; t < s->n_types; t++) {
        const hs_profile_t *p = &s->types[t].profile;
        int64_t dl = p->t_dl.known ? p->t_dl.mean_ns : 0;
        int64_t c = p->t_fwd.mean_ns + p->t_b1.mean_ns;

        mc.type_floor_ns[t] = dl > c ? dl : c;
    }
    if (s->n_dev_overrides > 0)
        mc.bound_ok = 0;
    if ((rc = hs_scenario_clone(s, &mc.w, err)) != HS_OK)
        goto fail;
    /* every mix trains the whole set: shards follow the batches */
    for (t = 0; t < s->n_types; t++) {
        if (s->types[t].shard != 0)
            r->shards_derived = 1;
        mc.w->types[t].shard = 0;
    }
    t0 = hs__cpu_s();
    rc = hs_mixopt_search(s->n_types, types, goal, budget, deadline_ns,
                          replay ? 4 : 1, hs__mix_total, hs__mix_bound, &mc,
                          &r->search, err);
    r->search_s = hs__cpu_s() - t0;
    if (rc != HS_OK)
        goto fail;
    r->chosen = 0;
    for (k = 0; k < HS_MIXOPT_TOP; k++)
        r->replay_total_ns[k] = -1;
    if (replay) {
        int have = 0;

        for (k = 0; k < r->search->n_top; k++) {
            int64_t step;
            const hs_mixopt_entry_t *e = &r->search->top[k];

            if ((rc = hs__set_counts(s, mc.w, e->counts, err)) != HS_OK ||
                (rc = hs__replay(mc.w, o, &step, &r->replay_total_ns[k],
                                 err)) != HS_OK)
                goto fail;
            r->replay_cost[k] = hs_mixopt_cost(s->n_types, types, e->counts,
                                               r->replay_total_ns[k]);
            r->replay_ok[k] = goal == HS_MIX_FASTEST
                                  ? r->replay_cost[k] <= budget
                                  : r->replay_total_ns[k] <= deadline_ns;
            if (r->replay_ok[k] &&
                (!have ||
                 (goal == HS_MIX_FASTEST
                      ? r->replay_total_ns[k] <
                            r->replay_total_ns[r->chosen]
                      : r->replay_cost[k] < r->replay_cost[r->chosen]))) {
                r->chosen = k;
                have = 1;
            }
        }
        r->replay_met = have;
    }
    hs_scenario_free(mc.w);
    free(mc.type_floor_ns);
    *out = r;
    return HS_OK;
fail:
    hs_scenario_free(mc.w);
    free(mc.type_floor_ns);
    hs_advise_mix_free(r);
    return rc;
}

void hs_advise_mix_free(hs_advise_mix_t *r)
{
    if (r == NULL)
        return;
    hs_mixopt_result_free(r->search);
    free(r);
}

/* ---- the recommendation as a scenario file ---------------------------- */

hs_err_t hs_advise_write(const hs_scenario_t *s, const hs_advise_ring_t *ring,
                         const hs_advise_batch_t *batch,
                         const hs_advise_mix_t *mix, const char *path,
                         hs_error_t *err)
{
    hs_rewrite_edit_t *ed = NULL;
    char **keys = NULL, **vals = NULL, *base = NULL, header[512];
    char *outdir = NULL;
    size_t n = 0, cap = 3 * s->n_types + 1, t, i;
    hs_err_t rc;

    ed = calloc(cap, sizeof *ed);
    keys = calloc(cap, sizeof *keys);
    vals = calloc(cap, sizeof *vals);
    if (ed == NULL || keys == NULL || vals == NULL)
        goto nomem;
    if (ring != NULL) {
        keys[n] = strdup("ring");
        vals[n] = hs__ring_yaml(s, ring->cands[ring->chosen].order);
        if (keys[n] == NULL || vals[n] == NULL)
            goto nomem;
        n++;
        snprintf(header, sizeof header, "written by hetsim advise ring from "
                 "%s: the ring is the recommended order (%s)", s->file,
                 ring->cands[ring->chosen].label);
    } else {
        for (t = 0; t < s->n_types; t++) {
            const char *what = batch != NULL ? "batch" : "count";
            uint64_t v = batch != NULL
                             ? batch->batch_after[t]
                             : mix->search->top[mix->chosen].counts[t];
            char buf[320];

            snprintf(buf, sizeof buf, "device_types.%s.%s", s->types[t].name,
                     what);
            if ((keys[n] = strdup(buf)) == NULL)
                goto nomem;
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
            if ((vals[n++] = strdup(buf)) == NULL)
                goto nomem;
            if (batch != NULL) {
                char ppath[4096];
                hs_profile_info_t info = {s->types[t].name, NULL};
                const char *slash = strrchr(path, '/');
                const char *stem = slash != NULL ? slash + 1 : path;
                size_t sl = strlen(stem);

                if (sl > 5 && strcmp(stem + sl - 5, ".yaml") == 0)
                    sl -= 5;
                if (outdir == NULL && (outdir = hs_file_absdir(path)) == NULL)
                    goto nomem;
                snprintf(ppath, sizeof ppath, "%s/%.*s.%s.profile.yaml",
                         outdir, (int)sl, stem, s->types[t].name);
                snprintf(buf, sizeof buf, "hetsim advise batch: the "
                         "profile scaled to batch %llu",
                         (unsigned long long)v);
                info.comment = buf;
                if ((rc = hs_profile_write(&batch->profile_after[t], ppath,
                                           &info, err)) != HS_OK)
                    goto out;
                snprintf(buf, sizeof buf, "device_types.%s.profile",
                         s->types[t].name);
                if ((keys[n] = strdup(buf)) == NULL ||
                    (vals[n] = malloc(strlen(ppath) + 3)) == NULL)
                    goto nomem;
                sprintf(vals[n++], "\"%s\"", ppath);
            }
            if (mix != NULL && mix->shards_derived &&
                s->types[t].shard != 0) {
                snprintf(buf, sizeof buf, "device_types.%s.shard",
                         s->types[t].name);
                if ((keys[n] = strdup(buf)) == NULL)
                    goto nomem;
                vals[n++] = NULL;       /* removed: shards follow batches */
            }
            if (batch != NULL && batch->shard_after[t] != 0) {
                snprintf(buf, sizeof buf, "device_types.%s.shard",
                         s->types[t].name);
                if ((keys[n] = strdup(buf)) == NULL)
                    goto nomem;
                if (s->types[t].shard_is_bytes)
                    snprintf(buf, sizeof buf, "%lluB",
                             (unsigned long long)(batch->shard_after[t] *
                                                  s->sample_bytes));
                else
                    snprintf(buf, sizeof buf, "%llu",
                             (unsigned long long)batch->shard_after[t]);
                if ((vals[n++] = strdup(buf)) == NULL)
                    goto nomem;
            }
        }
        snprintf(header, sizeof header, "written by hetsim advise %s from "
                 "%s: %s", batch != NULL ? "batch" : "mix", s->file,
                 batch != NULL ? "each type's batch (and shard) is the "
                                 "recommendation;\nthe profiles are the "
                                 "measured ones: profile each type at its "
                                 "new batch to confirm"
                               : mix->shards_derived
                                     ? "each type's count is the recommended "
                                       "mix;\nthe shards follow the batches "
                                       "over the whole training set"
                                     : "each type's count is the recommended "
                                       "mix");
    }
    for (i = 0; i < n; i++) {
        ed[i].key_path = keys[i];
        ed[i].value = vals[i];
    }
    if (strcmp(s->file, "<default>") != 0 &&
        (base = hs_file_absdir(s->file)) == NULL)
        goto nomem;
    rc = hs_rewrite_file(s->text, strlen(s->text), s->file, ed, n, base,
                         header, path, err);
    goto out;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
out:
    for (i = 0; i < cap; i++) {
        if (keys != NULL)
            free(keys[i]);
        if (vals != NULL)
            free(vals[i]);
    }
    free(keys);
    free(vals);
    free(ed);
    free(base);
    free(outdir);
    return rc;
}
