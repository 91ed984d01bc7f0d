/* hs_advise.c -- ring order, batch per type, the recommendation written
   (hs_advise.h); the device mix is hs_advise_mix.c, the replays and
   their split over processes hs_advise_run.c. */
#include "hs_advise.h"
#include "hs_limits.h"
#include "hs_advise_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hs_batchopt.h"
#include "hs_closed.h"
#include "hs_file.h"
#include "hs_nodes.h"
#include "hs_rewrite.h"
#include "hs_ringopt.h"
#include "hs_units.h"

/* As the closed form scales a time by a device's compute_scale. */
static int64_t hs__scaled(int64_t t_ns, double scale)
{
    return scale == 1.0 ? t_ns : (int64_t)llround((double)t_ns * scale);
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
        rc = hs__advise_replay(c, o, step_ns, NULL, err);
    hs_scenario_free(c);
    free(yaml);
    return rc;
}

/* ---- ring order: nodes, the bound, the search ------------------------ */

/* The nodes of a scenario with nodes: each node's devices in ring order,
   the one with the least compute per step (ties: the last listed) moved
   last, so that it is the one that sends to the next node. */
typedef struct hs__nctx_s {
    const hs_scenario_t *s;
    uint32_t n_nodes;
    uint32_t *first;            /* [n_nodes + 1] into dev */
    uint32_t *dev;              /* N device indices, node by node */
} hs__nctx_t;

static int64_t hs__pre_ns(const hs_scenario_t *s, uint32_t d)
{
    const hs_device_t *dv = &s->devices[d];
    const hs_profile_t *p = &s->types[dv->type].profile;

    return hs__scaled(p->t_fwd.mean_ns, dv->compute_scale) +
           dv->extra_compute_ns + hs__scaled(p->t_b1.mean_ns,
                                              dv->compute_scale);
}

static hs_err_t hs__nodes_build(const hs_scenario_t *s, hs__nctx_t *nc)
{
    const hs_nodes_t *nd = s->nodes;
    uint32_t a, d, at = 0;

    nc->s = s;
    nc->n_nodes = (uint32_t)nd->n_nodes;
    nc->first = malloc((nd->n_nodes + 1) * sizeof *nc->first);
    nc->dev = malloc(s->n_devices * sizeof *nc->dev);
    if (nc->first == NULL || nc->dev == NULL)
        return HS_ERR_NOMEM;
    for (a = 0; a < nc->n_nodes; a++) {
        uint32_t lo = nd->node_first[a], hi = nd->node_first[a + 1];
        uint32_t exit_d = lo;

        for (d = lo; d < hi; d++)
            if (hs__pre_ns(s, d) <= hs__pre_ns(s, exit_d))
                exit_d = d;
        nc->first[a] = at;
        for (d = lo; d < hi; d++)
            if (d != exit_d)
                nc->dev[at++] = d;
        nc->dev[at++] = exit_d;
    }
    nc->first[nc->n_nodes] = at;
    return HS_OK;
}

/* The cost of node a followed by node b: the largest T(i) of a's devices
   (each to the next of its node, the last to b's first). */
static hs_err_t hs__node_cost(void *ctx, uint32_t a, uint32_t b,
                              int64_t *cost_ns, hs_error_t *err)
{
    const hs__nctx_t *nc = ctx;
    uint32_t k, lo = nc->first[a], hi = nc->first[a + 1];
    int64_t mx = INT64_MIN, w;
    hs_err_t rc;

    for (k = lo; k < hi; k++) {
        uint32_t next = k + 1 < hi ? nc->dev[k + 1] : nc->dev[nc->first[b]];

        if ((rc = hs__ring_cost((void *)nc->s, nc->dev[k], next, &w, err)) !=
            HS_OK)
            return rc;
        if (w > mx)
            mx = w;
    }
    *cost_ns = mx;
    return HS_OK;
}

/* No order's closed-form step is below: every device sends to one device
   and receives from one (hs_ringopt.h), a lone edge's bandwidth at best. */
static hs_err_t hs__ring_lb(const hs_scenario_t *s, int64_t *lb,
                            hs_error_t *err)
{
    uint32_t n = (uint32_t)s->n_devices, i, j;
    int64_t *in_min = malloc(n * sizeof *in_min), out_min, w, best = 0;
    hs_err_t rc = HS_OK;

    if (in_min == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    for (j = 0; j < n; j++)
        in_min[j] = INT64_MAX;
    for (i = 0; i < n && rc == HS_OK; i++) {
        out_min = INT64_MAX;
        for (j = 0; j < n; j++) {
            if (i == j)
                continue;
            if ((rc = hs__ring_cost((void *)s, i, j, &w, err)) != HS_OK)
                break;
            if (w < out_min)
                out_min = w;
            if (w < in_min[j])
                in_min[j] = w;
        }
        if (out_min > best)
            best = out_min;
    }
    for (j = 0; j < n && rc == HS_OK; j++)
        if (in_min[j] > best)
            best = in_min[j];
    free(in_min);
    *lb = best;
    return rc;
}

/* The closed form's step and sum of T(i) of s in the given order, NIC
   sharing included (a scenario with nodes: an order that leaves a node
   more than once shares its NICs, which the pair costs do not see). */
static hs_err_t hs__closed_order(const hs_scenario_t *s, const uint32_t *ord,
                                 int64_t *step_ns, int64_t *sum_ns,
                                 hs_error_t *err)
{
    hs_scenario_t *c = NULL;
    hs_prediction_t *p = NULL;
    char *yaml = hs__ring_yaml(s, ord);
    hs_err_t rc;
    uint32_t d;

    if (yaml == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    if ((rc = hs_scenario_clone(s, &c, err)) == HS_OK &&
        (rc = hs_scenario_set(c, "ring", yaml, err)) == HS_OK &&
        (rc = hs_scenario_resolve(c, err)) == HS_OK &&
        (rc = hs_closed_predict(c, &p, err)) == HS_OK) {
        *step_ns = p->step_ns;
        *sum_ns = 0;
        for (d = 0; d < c->n_devices; d++)
            *sum_ns += hs_closed_device_ns(c, d);
    }
    hs_prediction_free(p);
    hs_scenario_free(c);
    free(yaml);
    return rc;
}

typedef struct hs__rjob_s {
    const hs_scenario_t *s;
    const hs_replay_opts_t *o;
    const hs_advise_ring_t *r;
} hs__rjob_t;

static hs_err_t hs__ring_job(void *ctx, size_t k, int64_t res[2],
                             hs_error_t *err)
{
    const hs__rjob_t *rj = ctx;

    res[1] = 0;
    return hs__replay_order(rj->s, rj->r->cands[k].order, rj->o, &res[0],
                            err);
}

hs_err_t hs_advise_ring(const hs_scenario_t *s, const hs_replay_opts_t *o,
                        int replay, uint32_t exact_max,
                        hs_advise_ring_t **out, hs_error_t *err)
{
    return hs_advise_ring_x(s, o, replay, exact_max, NULL, out, err);
}

hs_err_t hs_advise_ring_x(const hs_scenario_t *s, const hs_replay_opts_t *o,
                          int replay, uint32_t exact_max,
                          const hs_advise_exec_t *ex, hs_advise_ring_t **out,
                          hs_error_t *err)
{
    static const char *const labels[HS_ADVISE_RING_CANDS] = {
        "given", "grouped", "interleave", "searched"};
    hs_advise_ring_t *r = NULL;
    hs_ringopt_result_t *sr = NULL;
    hs__nctx_t nc = {s, 0, NULL, NULL};
    uint32_t n = (uint32_t)s->n_devices;
    int by_node = s->nodes != NULL && s->nodes->n_nodes >= 2;
    int todo[HS_ADVISE_RING_CANDS];
    int64_t res[HS_ADVISE_RING_CANDS][2];
    size_t k, j;
    double t0;
    hs_err_t rc;

    *out = NULL;
    if ((rc = hs_scenario_require_profiles(s, err)) != HS_OK)
        return rc;
    if (n < 2)
        return hs_error_setf(err, HS_ERR_RANGE, "%s: a ring order needs at "
                             "least 2 devices", s->file);
    if (s->collective != NULL && strcmp(s->collective, "ring") != 0)
        return hs_error_setf(err, HS_ERR_SCHEMA, "%s: collective: %s does "
                             "not follow the ring order, so no order is "
                             "better than another; ring advice is for "
                             "collective: ring (set collective: ring in the "
                             "file to ask which order)", s->file,
                             s->collective);
    {
        /* the search's budget, as simulate's replay budget: refused at
           once unless --force (o->force) */
        uint32_t m = by_node ? (uint32_t)s->nodes->n_nodes : n;
        if (m > HS_LIMIT_RINGOPT_DEVICES && (o == NULL || !o->force))
            return hs_error_setf(err, HS_ERR_RANGE,
                                 "%s: a ring order search over %u %s is "
                                 "past its budget (%u): each pass weighs "
                                 "about %llu pairs and it may not end "
                                 "soon; --force runs it anyway", s->file,
                                 m, by_node ? "nodes" : "devices",
                                 HS_LIMIT_RINGOPT_DEVICES,
                                 (unsigned long long)m * m);
    }
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
    t0 = hs__advise_cpu_s();
    if (by_node) {
        /* the nodes in order, each node's devices together: the ring
           leaves every node once and no NIC is shared, so the pair costs
           are the closed form's (hs_nodes.h) */
        uint32_t a, at = 0;

        if (hs__nodes_build(s, &nc) != HS_OK)
            goto nomem;
        rc = hs_ringopt_search_x(nc.n_nodes, hs__node_cost, &nc, NULL, 0,
                                 exact_max, 0, ex != NULL ? ex->progress
                                                          : NULL,
                                 ex != NULL ? ex->progress_ctx : NULL, &sr,
                                 err);
        if (rc == HS_OK) {
            for (k = 0; k < nc.n_nodes; k++) {
                a = sr->order[k];
                for (j = nc.first[a]; j < nc.first[a + 1]; j++)
                    r->cands[3].order[at++] = nc.dev[j];
            }
            rc = hs__ring_lb(s, &r->lower_bound_ns, err);
        }
    } else {
        const uint32_t *starts[3] = {r->cands[0].order, r->cands[1].order,
                                     r->cands[2].order};

        rc = hs_ringopt_search_x(n, hs__ring_cost, (void *)s, starts, 3,
                                 exact_max, 0, ex != NULL ? ex->progress
                                                          : NULL,
                                 ex != NULL ? ex->progress_ctx : NULL, &sr,
                                 err);
        if (rc == HS_OK) {
            memcpy(r->cands[3].order, sr->order, n * sizeof(uint32_t));
            r->lower_bound_ns = sr->lower_bound_ns;
        }
    }
    r->search_s = hs__advise_cpu_s() - t0;
    if (rc != HS_OK)
        goto fail;
    r->exact = sr->exact;
    r->moves = sr->moves;
    hs_ringopt_result_free(sr);
    sr = NULL;
    for (k = 0; k < HS_ADVISE_RING_CANDS; k++) {
        hs_advise_ring_cand_t *c = &r->cands[k];

        if (by_node)
            rc = hs__closed_order(s, c->order, &c->closed_ns,
                                  &c->closed_sum_ns, err);
        else
            rc = hs_ringopt_eval(n, c->order, hs__ring_cost, (void *)s,
                                 &c->closed_ns, &c->closed_sum_ns, err);
        if (rc != HS_OK)
            goto fail;
        for (j = 0; j < k && c->same_as < 0; j++)
            if (memcmp(r->cands[j].order, c->order, n * sizeof(uint32_t)) ==
                0)
                c->same_as = (int)j;
        todo[k] = replay && c->same_as < 0;
        res[k][0] = res[k][1] = -1;
    }
    if (replay) {
        hs__rjob_t rj = {s, o, r};

        if ((rc = hs__advise_run_jobs(ex, HS_ADVISE_RING_CANDS, todo,
                                      hs__ring_job, &rj, res, err)) != HS_OK)
            goto fail;
        for (k = 0; k < HS_ADVISE_RING_CANDS; k++) {
            hs_advise_ring_cand_t *c = &r->cands[k];

            c->replay_ns = c->same_as >= 0 ? r->cands[c->same_as].replay_ns
                                           : res[k][0];
        }
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
    free(nc.first);
    free(nc.dev);
    *out = r;
    return HS_OK;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
fail:
    free(nc.first);
    free(nc.dev);
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

/* Replay job k of the batch advice: the scenario before (0), after (1);
   ctx: the two scenarios and the options. */
typedef struct hs__bjob_s {
    const hs_scenario_t *two[2];
    const hs_replay_opts_t *o;
} hs__bjob_t;

static hs_err_t hs__batch_job(void *ctx, size_t k, int64_t res[2],
                              hs_error_t *err)
{
    const hs__bjob_t *bj = ctx;

    return hs__advise_replay(bj->two[k], bj->o, &res[0], &res[1], err);
}

hs_err_t hs_advise_batch(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         uint64_t global_batch, const uint64_t *max_batch,
                         int replay, hs_advise_batch_t **out,
                         hs_error_t *err)
{
    return hs_advise_batch_x(s, o, global_batch, max_batch, replay, NULL,
                             out, err);
}

hs_err_t hs_advise_batch_x(const hs_scenario_t *s, const hs_replay_opts_t *o,
                           uint64_t global_batch, const uint64_t *max_batch,
                           int replay, const hs_advise_exec_t *ex,
                           hs_advise_batch_t **out, hs_error_t *err)
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

        hs__bjob_t bj = {{s, bc.w}, o};
        int64_t res[2][2];

        if ((rc = hs__advise_run_jobs(ex, 2, NULL, hs__batch_job, &bj,
                                      res, err)) != HS_OK)
            goto fail;
        r->replay_before_ns = res[0][0];
        r->replay_after_ns = res[1][0];
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

/* ---- the recommendation as a scenario file ---------------------------- */

/* The node kind whose type is t (the first), or -1. */
static long hs__kind_of(const hs_scenario_t *s, size_t t)
{
    size_t k;

    for (k = 0; s->nodes != NULL && k < s->nodes->n_kinds; k++)
        if (s->nodes->kinds[k].type == t)
            return (long)k;
    return -1;
}

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
            if (mix != NULL && s->nodes != NULL) {
                /* the counts follow from the nodes: the kind's nodes
                   (hs_advise_mix made the count a whole number of them) */
                long kd = hs__kind_of(s, t);

                if (kd >= 0) {
                    snprintf(buf, sizeof buf, "nodes.kinds.%s.count",
                             s->nodes->kinds[kd].name);
                    v /= s->nodes->kinds[kd].devices;
                } else {
                    buf[0] = '\0';     /* no kind: stays at 0 devices */
                }
            }
            if (buf[0] != '\0') {
                if ((keys[n] = strdup(buf)) == NULL)
                    goto nomem;
                snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
                if ((vals[n++] = strdup(buf)) == NULL)
                    goto nomem;
            }
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
