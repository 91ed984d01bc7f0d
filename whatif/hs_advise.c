/*
 * hs_advise.c -- ring order, batch per type, the recommendation written
 * (hs_advise.h); the device mix is hs_advise_mix.c, the judge and the
 * judging split over processes hs_advise_run.c.
 *
 * Each question proposes a handful of candidates (ring: 4 orders; batch:
 * up to 7 splits) and judges them all, with the given configuration, by
 * the recommended predictor.  The searches optimise a closed form, which
 * is fast but can be wrong about what the replay sees: the batch search
 * evens out each device's T_ext(i), charging each device the all-reduce
 * over its own link, while in a ring every device waits for the slowest
 * link, so a split that evens T_ext(i) can leave the ring waiting for the
 * device given the most work (scenarios/example-full.yaml: +19.5% by the
 * replay).  Hence the fallbacks -- the same search with the ring's
 * slowest all-reduce for every device ("paced"), with compute only
 * ("compute"), and points part of the way from the given split -- and
 * the rule that nothing is recommended unless the judge finds it strictly
 * faster than the given configuration.
 */
#include "hs_advise.h"
#include "hs_limits.h"
#include "hs_advise_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hs_batchopt.h"
#include "hs_closed.h"
#include "hs_edge.h"
#include "hs_file.h"
#include "hs_nodes.h"
#include "hs_phases.h"
#include "hs_rewrite.h"
#include "hs_ringopt.h"
#include "hs_units.h"

/* ---- ring order ---------------------------------------------------- */

/* The closed form's T(i) when device j follows device i. */
static hs_err_t hs__ring_cost(void *ctx, uint32_t i, uint32_t j,
                              int64_t *cost_ns, hs_error_t *err)
{
    const hs_scenario_t *s = ctx;
    const hs_device_t *dv = &s->devices[i];
    const hs_profile_t *p = &s->types[dv->type].profile;
    int64_t dl = p->t_dl.known ? p->t_dl.mean_ns : 0, pre, round, dev;
    double bw;
    int64_t lat;
    hs_phases_t ph;
    hs_err_t rc;

    if ((rc = hs_scenario_link(s, i, j, &bw, &lat, err)) != HS_OK)
        return rc;
    hs_phases_derive(s, i, -1, NULL, 0, NULL, &ph);
    pre = ph.fwd_ns + ph.b1_ns;
    round = hs_chunk_ns(lat, bw, hs_profile_payload_bytes(p),
                        (double)s->n_devices);
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

/* Judges s in the given order. */
static hs_err_t hs__judge_order(const hs_scenario_t *s, const uint32_t *ord,
                                const hs_replay_opts_t *o, int replay,
                                hs_advise_fig_t *fig, hs_error_t *err)
{
    hs_scenario_t *c = NULL;
    char *yaml = hs__ring_yaml(s, ord);
    hs_err_t rc;

    if (yaml == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    if ((rc = hs_scenario_clone(s, &c, err)) == HS_OK &&
        (rc = hs_scenario_set(c, "ring", yaml, err)) == HS_OK &&
        (rc = hs_scenario_resolve(c, err)) == HS_OK)
        rc = hs_advise_judge(c, o, replay, fig, err);
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
    hs_phases_t ph;

    hs_phases_derive(s, d, -1, NULL, 0, NULL, &ph);
    return ph.fwd_ns + ph.b1_ns;
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
    int replay;
    const hs_advise_ring_t *r;
} hs__rjob_t;

/* Judging job k of the ring advice: candidate k (the given order: the
   scenario itself, so its figures are what predict says of it). */
static hs_err_t hs__ring_job(void *ctx, size_t k, hs_advise_fig_t *fig,
                             hs_error_t *err)
{
    const hs__rjob_t *rj = ctx;

    if (k == 0)
        return hs_advise_judge(rj->s, rj->o, rj->replay, fig, err);
    return hs__judge_order(rj->s, rj->r->cands[k].order, rj->o, rj->replay,
                           fig, err);
}

/* Refuses what ring advice cannot answer: fewer than 2 devices, a
   collective that does not follow the ring order, a search past its
   budget (as simulate's replay budget: refused at once unless --force,
   o->force). */
static hs_err_t hs__ring_refuse(const hs_scenario_t *s,
                                const hs_replay_opts_t *o, uint32_t n,
                                int by_node, hs_error_t *err)
{
    uint32_t m = by_node ? (uint32_t)s->nodes->n_nodes : n;

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
    if (m > HS_LIMIT_RINGOPT_DEVICES && (o == NULL || !o->force))
        return hs_error_setf(err, HS_ERR_RANGE,
                             "%s: a ring order search over %u %s is "
                             "past its budget (%u): each pass weighs "
                             "about %llu pairs and it may not end "
                             "soon; --force runs it anyway", s->file,
                             m, by_node ? "nodes" : "devices",
                             HS_LIMIT_RINGOPT_DEVICES,
                             (unsigned long long)m * m);
    return HS_OK;
}

/* Allocates the advice *out (freed by the caller, also on failure) with
   its candidates' labels and orders: the given one, grouped and
   interleaved (the searched one is filled by hs__ring_search). */
static hs_err_t hs__ring_cands(const hs_scenario_t *s, uint32_t n,
                               hs_advise_ring_t **out, hs_error_t *err)
{
    static const char *const labels[HS_ADVISE_RING_CANDS] = {
        "given", "grouped", "interleave", "searched"};
    hs_advise_ring_t *r;
    hs_err_t rc;
    size_t k;

    if ((*out = r = calloc(1, sizeof *r)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    r->n = n;
    r->n_cands = HS_ADVISE_RING_CANDS;
    for (k = 0; k < HS_ADVISE_RING_CANDS; k++) {
        r->cands[k].label = labels[k];
        r->cands[k].same_as = -1;
        if ((r->cands[k].order = malloc(n * sizeof(uint32_t))) == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    memcpy(r->cands[0].order, s->ring, n * sizeof(uint32_t));
    if ((rc = hs__form_order(s, "grouped", r->cands[1].order, err)) != HS_OK ||
        (rc = hs__form_order(s, "interleave", r->cands[2].order, err)) !=
            HS_OK)
        return rc;
    return HS_OK;
}

/* The searched order (candidate 3), the lower bound, the search's CPU
   time, exactness and moves; over nodes when by_node (nc filled here,
   freed by the caller). */
static hs_err_t hs__ring_search(const hs_scenario_t *s, uint32_t exact_max,
                                const hs_advise_exec_t *ex, int by_node,
                                hs__nctx_t *nc, hs_advise_ring_t *r,
                                hs_error_t *err)
{
    hs_ringopt_result_t *sr = NULL;
    uint32_t n = r->n;
    size_t k, j;
    double t0;
    hs_err_t rc;

    t0 = hs__advise_cpu_s();
    if (by_node) {
        /* the nodes in order, each node's devices together: the ring
           leaves every node once and no NIC is shared, so the pair costs
           are the closed form's (hs_nodes.h) */
        uint32_t a, at = 0;

        if (hs__nodes_build(s, nc) != HS_OK)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        rc = hs_ringopt_search_x(nc->n_nodes, hs__node_cost, nc, NULL, 0,
                                 exact_max, 0, ex != NULL ? ex->progress
                                                          : NULL,
                                 ex != NULL ? ex->progress_ctx : NULL, &sr,
                                 err);
        if (rc == HS_OK) {
            for (k = 0; k < nc->n_nodes; k++) {
                a = sr->order[k];
                for (j = nc->first[a]; j < nc->first[a + 1]; j++)
                    r->cands[3].order[at++] = nc->dev[j];
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
    if (rc == HS_OK) {
        r->exact = sr->exact;
        r->moves = sr->moves;
    }
    hs_ringopt_result_free(sr);
    return rc;
}

/* Every candidate's closed-form step and sum of T(i), which earlier one
   it repeats (same_as), and the judge's figures of each (a repeat's are
   its original's). */
static hs_err_t hs__ring_judge_all(const hs_scenario_t *s,
                                   const hs_replay_opts_t *o, int replay,
                                   const hs_advise_exec_t *ex, int by_node,
                                   hs_advise_ring_t *r, hs_error_t *err)
{
    int todo[HS_ADVISE_RING_CANDS];
    hs_advise_fig_t figs[HS_ADVISE_RING_CANDS];
    uint32_t n = r->n;
    size_t k, j;
    hs_err_t rc;

    for (k = 0; k < HS_ADVISE_RING_CANDS; k++) {
        hs_advise_ring_cand_t *c = &r->cands[k];

        if (by_node)
            rc = hs__closed_order(s, c->order, &c->closed_ns,
                                  &c->closed_sum_ns, err);
        else
            rc = hs_ringopt_eval(n, c->order, hs__ring_cost, (void *)s,
                                 &c->closed_ns, &c->closed_sum_ns, err);
        if (rc != HS_OK)
            return rc;
        for (j = 0; j < k && c->same_as < 0; j++)
            if (memcmp(r->cands[j].order, c->order, n * sizeof(uint32_t)) ==
                0)
                c->same_as = (int)j;
        todo[k] = c->same_as < 0;
    }
    {
        hs__rjob_t rj = {s, o, replay, r};

        if ((rc = hs__advise_run_jobs(ex, HS_ADVISE_RING_CANDS, todo,
                                      hs__ring_job, &rj, figs, err)) != HS_OK)
            return rc;
    }
    for (k = 0; k < HS_ADVISE_RING_CANDS; k++) {
        hs_advise_ring_cand_t *c = &r->cands[k];

        c->fig = figs[c->same_as >= 0 ? (size_t)c->same_as : k];
    }
    return HS_OK;
}

/* The judge's fastest; on a tie the given order, then the searched one,
   then grouped and interleaved: the given order stays unless another is
   strictly faster.  Sets chosen and outcome. */
static void hs__ring_choose(hs_advise_ring_t *r)
{
    size_t k, j;

    r->chosen = 0;
    for (j = 0; j < HS_ADVISE_RING_CANDS - 1; j++) {
        static const size_t pref[HS_ADVISE_RING_CANDS - 1] = {3, 1, 2};

        k = pref[j];
        if (r->cands[k].same_as < 0 &&
            hs_advise_fig_faster(&r->cands[k].fig, &r->cands[0].fig, 0) &&
            hs_advise_fig_faster(&r->cands[k].fig,
                                 &r->cands[r->chosen].fig, 0))
            r->chosen = k;
    }
    if (r->chosen == 0)
        r->outcome = HS_ADVISE_NONE;
    else if (r->chosen == 3 ||
             (r->cands[3].same_as >= 0 &&
              (size_t)r->cands[3].same_as == r->chosen))
        r->outcome = HS_ADVISE_IMPROVED;
    else
        r->outcome = HS_ADVISE_FALLBACK;
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
    hs_advise_ring_t *r = NULL;
    hs__nctx_t nc = {s, 0, NULL, NULL};
    uint32_t n = (uint32_t)s->n_devices;
    int by_node = s->nodes != NULL && s->nodes->n_nodes >= 2;
    hs_err_t rc;

    *out = NULL;
    if ((rc = hs_scenario_require_profiles(s, err)) != HS_OK)
        return rc;
    if ((rc = hs__ring_refuse(s, o, n, by_node, err)) != HS_OK)
        return rc;
    if ((rc = hs__ring_cands(s, n, &r, err)) != HS_OK ||
        (rc = hs__ring_search(s, exact_max, ex, by_node, &nc, r, err)) !=
            HS_OK ||
        (rc = hs__ring_judge_all(s, o, replay, ex, by_node, r, err)) !=
            HS_OK)
        goto fail;
    hs__ring_choose(r);
    free(nc.first);
    free(nc.dev);
    *out = r;
    return HS_OK;
fail:
    free(nc.first);
    free(nc.dev);
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
   model in words appended to *text (malloc'd, grown; text may be NULL),
   the model's bit (1 linear, 2 interpolated) or'ed into *models (may be
   NULL). */
static hs_err_t hs__scale_type(const hs_scenario_t *s, hs_scenario_t *w,
                               size_t t, uint64_t b0, uint64_t b,
                               uint32_t v, char **text, int *models,
                               hs_error_t *err)
{
    hs_profile_t np;
    hs_bscale_t how;
    char line[400], *grown;
    size_t have, add;

    if (hs_profile_at_batch(&s->types[t].profile, b0, b, &np, &how) != 0)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    hs_profile_clear(&w->types[t].profile);
    w->types[t].profile = np;
    if (models != NULL)
        *models |= how.model == HS_BSCALE_LINEAR ? 1 : 2;
    if (text == NULL)
        return HS_OK;
    have = *text != NULL ? strlen(*text) : 0;
    hs_bscale_describe(&how, b0, b, line, sizeof line);
    add = strlen(s->types[t].name) + strlen(line) + 64;
    if ((grown = realloc(*text, have + add)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    if (v > 0)      /* micro-batches searched: say the split */
        snprintf(grown + have, add, "%s%s: %u micro-batch%s of %llu, %s",
                 have ? "; " : "", s->types[t].name, v, v == 1 ? "" : "es",
                 (unsigned long long)b, line);
    else
        snprintf(grown + have, add, "%s%s: %s", have ? "; " : "",
                 s->types[t].name, line);
    *text = grown;
    return HS_OK;
}

/* The objectives of the batch searches (hs__bctx_t.kind). */
enum {
    HS__BK_EXT = 0,     /* the extended T_ext(i), each device its own
                           T_ar(i): "searched" */
    HS__BK_PACED = 1,   /* T_ext(i) with the ring's slowest T_ar, which
                           every device waits for: "paced" */
    HS__BK_COMPUTE = 2  /* forward, backward, optimizer, data loading;
                           no all-reduce: "compute" */
};

/* The time function of the batch searches: the largest per-device time
   (by kind) over type t's devices with the profile scaled to batch b. */
typedef struct hs__bctx_s {
    const hs_scenario_t *s;     /* the original */
    hs_scenario_t *w;           /* a working copy whose profiles change */
    uint32_t **devs;            /* per type, its device indices */
    size_t *n_devs;
    int kind;                   /* HS__BK_* */
    int64_t ar_max_ns;          /* the slowest device's T_ar(i) */
    uint32_t ar_max_dev;        /* that device */
    hs_overlap_t overlap;       /* the mode the replay runs (T_ext follows
                                   it, hs_closed.h) */
    const uint64_t *ref;        /* per type: the batch its profile holds */
    const uint64_t *mmax;       /* per type: the most one device holds */
    uint32_t max_micro;         /* > 1: micro-batches searched */
} hs__bctx_t;

/* T_ext(i) of device d of w in overlap ov (as hs_closed.c computes it),
   by kind: its own T_ar(i) (EXT), the slowest device's (PACED), none
   (COMPUTE); bar: room for ov->nb bucket all-reduces. */
static int64_t hs__dev_ext_with(const hs__bctx_t *bc,
                                const hs_closed_overlap_t *ov, uint32_t d,
                                int64_t *bar)
{
    const hs_scenario_t *w = bc->w;
    const hs_profile_t *p = &w->types[w->devices[d].type].profile;
    int64_t dl = p->t_dl.known ? p->t_dl.mean_ns : 0, ar = 0;
    uint32_t ar_dev = bc->kind == HS__BK_PACED ? bc->ar_max_dev : d;
    hs_phases_t ph;

    hs_phases_derive(w, d, -1, NULL, 0, NULL, &ph);
    if (bc->kind == HS__BK_EXT)
        dl = p->t_dl.known ? hs_phases_dl_ns(w, d, p->t_dl.mean_ns) : 0;
    if (bc->kind != HS__BK_COMPUTE) {
        ar = bc->kind == HS__BK_PACED ? bc->ar_max_ns
                                      : hs_closed_allreduce_ns(w, d);
        hs_closed_bucket_ar(w, &hs_coll_ring, ov, ar_dev, bar);
    }
    return hs_closed_ext_step_ns(ov, w->devices[d].type, &ph, dl, ar,
                                 bc->kind != HS__BK_COMPUTE ? bar : NULL);
}

/* The largest T_ext(i) (by kind) over type t's devices of w as it is now;
   the bucket layout follows w's profiles. */
static hs_err_t hs__batch_max(const hs__bctx_t *bc, size_t t, int64_t *ns,
                              hs_error_t *err)
{
    hs_closed_overlap_t ov;
    int64_t *bar = NULL, v, mx = INT64_MIN;
    size_t i;
    hs_err_t rc;

    if ((rc = hs_closed_overlap_init(bc->w, bc->overlap, &ov, err)) != HS_OK)
        return rc;
    if (ov.nb > 0 && (bar = malloc(ov.nb * sizeof *bar)) == NULL) {
        hs_closed_overlap_clear(&ov);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    for (i = 0; i < bc->n_devs[t]; i++) {
        v = hs__dev_ext_with(bc, &ov, bc->devs[t][i], bar);
        if (v > mx)
            mx = v;
    }
    free(bar);
    hs_closed_overlap_clear(&ov);
    *ns = mx;
    return HS_OK;
}

/* r = now / before, 1 when before is not positive (hs_profile_at_batch
   scales the bucket ready times so). */
static double hs__ratio(int64_t now_ns, int64_t before_ns)
{
    return before_ns > 0 ? (double)now_ns / (double)before_ns : 1.0;
}

/* Type t's largest T_ext with its profile at (micro-)batch b, v
   micro-batches a step (0: the type's own count). */
static hs_err_t hs__batch_time_at(hs__bctx_t *bc, size_t t, uint64_t b,
                                  uint32_t v, int64_t *ns, hs_error_t *err)
{
    const hs_profile_t *p0 = &bc->s->types[t].profile;
    hs_profile_t *p = &bc->w->types[t].profile;
    int64_t m[HS_PH_N];
    double rb;
    size_t i;
    hs_err_t rc;

    if (v > 0)
        bc->w->types[t].micro_batches = v;
    /* non-decreasing in b, as the search needs (hs_profile.h) */
    hs_profile_means_at_batch(p0, bc->ref[t], b, m, NULL);
    p->t_dl.mean_ns = m[HS_PH_DL];
    p->t_fwd.mean_ns = m[HS_PH_FWD];
    p->t_b1.mean_ns = m[HS_PH_B1];
    p->t_bwd.mean_ns = m[HS_PH_BWD];
    p->t_opt.mean_ns = m[HS_PH_OPT];
    /* the buckets are ready as much later as the backward ends */
    rb = p0->t_bwd.known ? hs__ratio(m[HS_PH_BWD], p0->t_bwd.mean_ns)
                         : hs__ratio(m[HS_PH_B1], p0->t_b1.mean_ns);
    for (i = 0; i < p->n_buckets; i++)
        p->buckets[i].ready_ns =
            (int64_t)llround((double)p0->buckets[i].ready_ns * rb);
    rc = hs__batch_max(bc, t, ns, err);
    p->t_dl.mean_ns = p0->t_dl.mean_ns;
    p->t_fwd.mean_ns = p0->t_fwd.mean_ns;
    p->t_b1.mean_ns = p0->t_b1.mean_ns;
    p->t_bwd.mean_ns = p0->t_bwd.mean_ns;
    p->t_opt.mean_ns = p0->t_opt.mean_ns;
    for (i = 0; i < p->n_buckets; i++)
        p->buckets[i].ready_ns = p0->buckets[i].ready_ns;
    bc->w->types[t].micro_batches = bc->s->types[t].micro_batches;
    return rc;
}

/* The time function of the searches: T_ext at per-step batch b; with
   micro-batches, V = ceil(b / max) of ceil(b / V) samples (exactly b / V
   where the search may stop), and no less than at the largest batch of
   V - 1 micro-batches, so that it never decreases in b. */
static hs_err_t hs__batch_time(void *ctx, size_t t, uint64_t b, int64_t *ns,
                               hs_error_t *err)
{
    hs__bctx_t *bc = ctx;
    uint64_t v, k;
    int64_t lower;
    hs_err_t rc;

    if (bc->max_micro <= 1)
        return hs__batch_time_at(bc, t, b, 0, ns, err);
    v = hs_batchopt_micro_count(b, bc->mmax[t]);
    if ((rc = hs__batch_time_at(bc, t, (b + v - 1) / v, (uint32_t)v, ns,
                                err)) != HS_OK)
        return rc;
    for (k = v - 1; k >= 1; k--) {
        if ((rc = hs__batch_time_at(bc, t, bc->mmax[t], (uint32_t)k,
                                    &lower, err)) != HS_OK)
            return rc;
        if (lower > *ns)
            *ns = lower;
    }
    return HS_OK;
}

/*
 * Whole batches b[t] in 1..maxb[t] near x[t] with sum count[t] b[t] = g:
 * each x rounded down, then the remainder made up one sample per device
 * of a type at a time, the type furthest below its x first (or, over g,
 * taken back from the type furthest above).  0, or -1 when no such steps
 * reach g exactly.
 */
static int hs__round_split(size_t nt, const uint64_t *count,
                           const uint64_t *maxb, const double *x, uint64_t g,
                           uint64_t *b)
{
    long double rem = (long double)g;
    size_t t, guard;

    for (t = 0; t < nt; t++) {
        double f = floor(x[t]);

        b[t] = f < 1 ? 1 : f > (double)maxb[t] ? maxb[t] : (uint64_t)f;
        rem -= (long double)count[t] * (long double)b[t];
    }
    for (guard = 0; rem != 0 && guard < 1u << 20; guard++) {
        size_t best = nt;
        double bd = 0;

        for (t = 0; t < nt; t++) {
            double d = x[t] - (double)b[t];

            if (rem > 0 ? ((long double)count[t] > rem || b[t] >= maxb[t])
                        : ((long double)count[t] > -rem || b[t] <= 1))
                continue;
            if (best == nt || (rem > 0 ? d > bd : d < bd)) {
                best = t;
                bd = d;
            }
        }
        if (best == nt)
            return -1;
        if (rem > 0) {
            b[best]++;
            rem -= (long double)count[best];
        } else {
            b[best]--;
            rem += (long double)count[best];
        }
    }
    return rem == 0 ? 0 : -1;
}

/* What the batch advice works with: the scenario's types, its limits,
   and the shards that follow the batches. */
typedef struct hs__bwork_s {
    const hs_scenario_t *s;
    const hs_replay_opts_t *o;
    int replay;
    uint64_t *count;            /* per type */
    int any_shard;              /* some type gives an explicit shard */
    uint64_t total_shard;       /* samples in all the explicit shards */
    int baseline_given;         /* cands[0] is the scenario itself */
    const hs_advise_batch_t *r;
    const int *same_as;         /* per candidate: an identical earlier
                                   one, or -1 */
    const uint64_t *ref;        /* per type: the batch its profile holds */
    int micro_on;               /* micro-batch counts are searched */
} hs__bwork_t;

/*
 * The scenario with batches b (per type): a resolved copy of s with each
 * type's batch set, its profile scaled to it, its shard (where it gave
 * one) following the batches; the scaling in words appended to *text and
 * the models to *models (both may be NULL).
 */
static hs_err_t hs__batch_build(const hs__bwork_t *bw, const uint64_t *b,
                                const uint32_t *mic, hs_scenario_t **out,
                                char **text, int *models, hs_error_t *err)
{
    const hs_scenario_t *s = bw->s;
    hs_scenario_t *w = NULL;
    uint64_t g = 0;
    size_t t;
    hs_err_t rc;

    *out = NULL;
    for (t = 0; t < s->n_types; t++)
        g += bw->count[t] * b[t];
    if ((rc = hs_scenario_clone(s, &w, err)) != HS_OK)
        return rc;
    for (t = 0; t < s->n_types; t++) {
        char key[256], v[32];

        snprintf(v, sizeof v, "%llu", (unsigned long long)b[t]);
        snprintf(key, sizeof key, "device_types.%s.batch", s->types[t].name);
        if ((rc = hs_scenario_set(w, key, v, err)) != HS_OK)
            goto fail;
        if (bw->micro_on) {
            /* the profile holds one micro-batch: b / V samples */
            snprintf(v, sizeof v, "%u", mic[t]);
            snprintf(key, sizeof key, "device_types.%s.micro_batches",
                     s->types[t].name);
            if ((rc = hs_scenario_set(w, key, v, err)) != HS_OK ||
                (rc = hs__scale_type(s, w, t, bw->ref[t], b[t] / mic[t],
                                     mic[t], text, models, err)) != HS_OK)
                goto fail;
        } else if ((rc = hs__scale_type(s, w, t, s->types[t].batch, b[t], 0,
                                        text, models, err)) != HS_OK) {
            goto fail;
        }
        if (bw->any_shard && s->types[t].shard != 0) {
            /* the same samples per epoch, shared as the batches are */
            uint64_t sh = (uint64_t)((long double)bw->total_shard *
                                     (long double)b[t] / (long double)g);

            w->types[t].shard = s->types[t].shard_is_bytes
                                    ? sh * s->sample_bytes
                                    : sh;
        }
    }
    if ((rc = hs_scenario_resolve(w, err)) != HS_OK)
        goto fail;
    *out = w;
    return HS_OK;
fail:
    hs_scenario_free(w);
    return rc;
}

/* Judging job k of the batch advice: candidate k (a given baseline: the
   scenario itself, so its figures are what predict says of it). */
static hs_err_t hs__batch_job(void *ctx, size_t k, hs_advise_fig_t *fig,
                              hs_error_t *err)
{
    const hs__bwork_t *bw = ctx;
    hs_scenario_t *w = NULL;
    hs_err_t rc;

    if (k == 0 && bw->baseline_given)
        return hs_advise_judge(bw->s, bw->o, bw->replay, fig, err);
    if ((rc = hs__batch_build(bw, bw->r->cands[k].batch,
                              bw->r->cands[k].micro, &w, NULL, NULL,
                              err)) == HS_OK)
        rc = hs_advise_judge(w, bw->o, bw->replay, fig, err);
    hs_scenario_free(w);
    return rc;
}

hs_err_t hs_advise_batch(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         uint64_t global_batch, const uint64_t *max_batch,
                         int replay, hs_advise_batch_t **out,
                         hs_error_t *err)
{
    return hs_advise_batch_x(s, o, global_batch, max_batch, replay, NULL,
                             out, err);
}

/* Adds candidate `label` with batches b (copied) to r unless an earlier
   one has the same batches (keep: add it anyway, same_as set).  0, or -1
   when out of memory. */
static int hs__batch_add(hs_advise_batch_t *r, const uint64_t *count,
                         const char *label, const uint64_t *b,
                         const uint32_t *mic, int keep, int *same_as)
{
    hs_advise_batch_cand_t *c;
    size_t k, t, nt = r->n_types;
    int same = -1;

    for (k = 0; k < r->n_cands && same < 0; k++)
        if (memcmp(r->cands[k].batch, b, nt * sizeof *b) == 0 &&
            memcmp(r->cands[k].micro, mic, nt * sizeof *mic) == 0)
            same = (int)k;
    if ((same >= 0 && !keep) || r->n_cands >= HS_ADVISE_BATCH_CANDS)
        return 0;
    c = &r->cands[r->n_cands];
    snprintf(c->label, sizeof c->label, "%s", label);
    c->batch = malloc(nt * sizeof *c->batch);
    c->shard = calloc(nt, sizeof *c->shard);
    c->micro = malloc(nt * sizeof *c->micro);
    if (c->batch == NULL || c->shard == NULL || c->micro == NULL) {
        free(c->batch);
        free(c->shard);
        free(c->micro);
        c->batch = c->shard = NULL;
        c->micro = NULL;
        return -1;
    }
    memcpy(c->batch, b, nt * sizeof *b);
    memcpy(c->micro, mic, nt * sizeof *mic);
    c->global_batch = 0;
    for (t = 0; t < nt; t++)
        c->global_batch += count[t] * b[t];
    same_as[r->n_cands++] = same;
    return 0;
}

/* Everything hs_advise_batch_x works with, phase by phase: the advice
   being built (r), the search's context (bc) and the judging's (bw), the
   per-type scratch arrays, the searches' splits and results, and the
   recommendation's scenario and scaling text; all freed by
   hs__bstate_free (r only on failure). */
typedef struct {
    hs_advise_batch_t *r;
    hs__bctx_t bc;
    hs__bwork_t bw;
    uint64_t *maxb, *b, *search[3];
    uint64_t *top;      /* per type: the largest per-step batch (maxb, or
                           maxb x max_micro with micro-batches) */
    uint64_t *ref;      /* per type: the batch its profile holds */
    uint32_t *mm;       /* per type: max_micro (micro-batches searched) */
    uint32_t *mic;      /* scratch: a candidate's micro-batch counts */
    uint32_t max_micro;
    uint64_t gb_now;
    hs_batchopt_result_t br[3];
    int same_as[HS_ADVISE_BATCH_CANDS];
    double *x;
    hs_scenario_t *w;
    int models;
    char *scaling;
} hs__bstate_t;

/* Allocates the advice and the scratch arrays of st (nt types). */
static hs_err_t hs__batch_alloc(hs__bstate_t *st, size_t nt,
                                hs_error_t *err)
{
    hs_advise_batch_t *r;
    size_t k;

    r = st->r = calloc(1, sizeof *r);
    st->bw.count = calloc(nt, sizeof *st->bw.count);
    st->maxb = calloc(nt, sizeof *st->maxb);
    st->b = calloc(nt, sizeof *st->b);
    st->x = calloc(nt, sizeof *st->x);
    st->bc.devs = calloc(nt, sizeof *st->bc.devs);
    st->bc.n_devs = calloc(nt, sizeof *st->bc.n_devs);
    for (k = 0; k < 3; k++)
        st->search[k] = calloc(nt, sizeof *st->search[k]);
    st->top = calloc(nt, sizeof *st->top);
    st->ref = calloc(nt, sizeof *st->ref);
    st->mm = calloc(nt, sizeof *st->mm);
    st->mic = calloc(nt, sizeof *st->mic);
    if (r == NULL || st->bw.count == NULL || st->maxb == NULL ||
        st->top == NULL || st->ref == NULL || st->mm == NULL ||
        st->mic == NULL ||
        st->b == NULL || st->x == NULL || st->bc.devs == NULL ||
        st->bc.n_devs == NULL || st->search[0] == NULL ||
        st->search[1] == NULL || st->search[2] == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    st->bw.r = r;
    r->n_types = nt;
    r->batch_before = calloc(nt, sizeof *r->batch_before);
    r->batch_after = calloc(nt, sizeof *r->batch_after);
    r->shard_after = calloc(nt, sizeof *r->shard_after);
    r->profile_after = calloc(nt, sizeof *r->profile_after);
    r->micro_before = calloc(nt, sizeof *r->micro_before);
    r->micro_after = calloc(nt, sizeof *r->micro_after);
    if (r->batch_before == NULL || r->batch_after == NULL ||
        r->shard_after == NULL || r->profile_after == NULL ||
        r->micro_before == NULL || r->micro_after == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* Per type: its count, given batch and shard (refusing a shard in bytes
   without sample_bytes, and a type without devices); the global batch
   asked and each type's largest batch. */
static hs_err_t hs__batch_types(hs__bstate_t *st, const hs_scenario_t *s,
                                uint64_t global_batch,
                                const uint64_t *max_batch, hs_error_t *err)
{
    hs_advise_batch_t *r = st->r;
    hs__bwork_t *bw = &st->bw;
    size_t t, nt = s->n_types;

    for (t = 0; t < nt; t++) {
        bw->count[t] = s->types[t].count;
        r->batch_before[t] = s->types[t].batch;
        st->gb_now += bw->count[t] * s->types[t].batch;
        if (s->types[t].shard != 0) {
            bw->any_shard = 1;
            if (s->types[t].shard_is_bytes && s->sample_bytes == 0)
                return hs_error_setf(err, HS_ERR_SCHEMA, "%s: device type "
                                     "'%s' gives its shard in bytes: give "
                                     "job.dataset.sample_bytes (or the "
                                     "shard in samples) for batch advice",
                                     s->file, s->types[t].name);
            bw->total_shard += bw->count[t] * (s->types[t].shard_is_bytes
                                                   ? s->types[t].shard /
                                                         s->sample_bytes
                                                   : s->types[t].shard);
        }
        if (bw->count[t] == 0)
            return hs_error_setf(err, HS_ERR_RANGE, "%s: device type '%s' "
                                 "has no devices", s->file,
                                 s->types[t].name);
    }
    r->global_batch_asked = global_batch != 0 ? global_batch : st->gb_now;
    r->max_micro = st->max_micro > 1 ? st->max_micro : 1;
    for (t = 0; t < nt; t++) {
        uint32_t v0 = s->types[t].micro_batches > 1
                          ? s->types[t].micro_batches
                          : 1;

        st->maxb[t] = max_batch != NULL && max_batch[t] != 0
                          ? max_batch[t]
                          : 4 * r->global_batch_asked;
        r->micro_before[t] = v0;
        st->mm[t] = r->max_micro;
        st->top[t] = st->maxb[t] > UINT32_MAX
                         ? st->maxb[t]
                         : st->maxb[t] * r->max_micro;
        /* the profile holds one micro-batch; without the search the
           batch scales the whole step as before */
        st->ref[t] = r->max_micro > 1 ? s->types[t].batch / v0
                                      : s->types[t].batch;
    }
    return HS_OK;
}

/* The limits the search's time function reads (bc) and the candidates'
   scenarios are built with (bw); refuses a micro-batch limit over
   hetsim's. */
static hs_err_t hs__batch_limits(hs__bstate_t *st, const hs_scenario_t *s,
                                 hs_error_t *err)
{
    if (st->max_micro > HS_LIMIT_MICRO_BATCHES)
        return hs_error_setf(err, HS_ERR_RANGE, "%s: at most %llu "
                             "micro-batches per step (%u asked)", s->file,
                             (unsigned long long)HS_LIMIT_MICRO_BATCHES,
                             st->max_micro);
    st->bc.ref = st->bw.ref = st->ref;
    st->bc.mmax = st->maxb;
    st->bc.max_micro = st->r->max_micro;
    return HS_OK;
}

/* The devices of each type, the slowest all-reduce, a working copy for
   the searches, and the three searches (each kind of T_ext). */
static hs_err_t hs__batch_search(hs__bstate_t *st, const hs_scenario_t *s,
                                 hs_error_t *err)
{
    hs_advise_batch_t *r = st->r;
    hs__bctx_t *bc = &st->bc;
    size_t t, i, k, nt = s->n_types;
    hs_err_t rc;

    for (t = 0; t < nt; t++)
        if ((bc->devs[t] = malloc(st->bw.count[t] * sizeof **bc->devs)) ==
            NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    for (i = 0; i < s->n_devices; i++) {
        t = s->devices[i].type;
        bc->devs[t][bc->n_devs[t]++] = (uint32_t)i;
        {
            int64_t ar = hs_closed_allreduce_ns(s, (uint32_t)i);

            if (ar > bc->ar_max_ns) {
                bc->ar_max_ns = ar;
                bc->ar_max_dev = (uint32_t)i;
            }
        }
    }
    if ((rc = hs_scenario_clone(s, &bc->w, err)) != HS_OK)
        return rc;
    for (k = 0; k < 3; k++) {
        bc->kind = (int)k;
        if ((rc = hs_batchopt_solve_micro(
                 nt, st->bw.count, st->maxb,
                 r->max_micro > 1 ? st->mm : NULL, r->global_batch_asked,
                 hs__batch_time, bc, st->search[k], &st->br[k], err)) !=
            HS_OK)
            return rc;
    }
    r->global_batch = st->br[0].global_batch;
    return HS_OK;
}

/* The micro-batch counts of per-step batches b into st->mic: each
   type's own, or with micro-batches searched ceil(b / max); -1 when b is
   not allowed (a count over max_micro, or one that does not divide b). */
static int hs__micro_of(hs__bstate_t *st, const hs_scenario_t *s,
                        const uint64_t *b)
{
    size_t t;

    for (t = 0; t < s->n_types; t++) {
        if (st->max_micro <= 1) {
            st->mic[t] = st->r->micro_before[t];
            continue;
        }
        if (!hs_batchopt_micro_ok(b[t], st->maxb[t], st->max_micro))
            return -1;
        st->mic[t] = (uint32_t)hs_batchopt_micro_count(b[t], st->maxb[t]);
    }
    return 0;
}

/* The candidates: the baseline, the search's split, the fallbacks, and
   the shards that follow each candidate's batches. */
static hs_err_t hs__batch_cands(hs__bstate_t *st, const hs_scenario_t *s,
                                hs_error_t *err)
{
    static const struct {
        const char *label;
        double lambda;
    } part[3] = {{"searched-3/4", 0.75}, {"searched-1/2", 0.5},
                 {"searched-1/4", 0.25}};
    hs_advise_batch_t *r = st->r;
    hs__bwork_t *bw = &st->bw;
    uint64_t *maxb = st->top, *b = st->b, **search = st->search;
    int *same_as = st->same_as;
    double *x = st->x;
    size_t t, k, nt = s->n_types;

    bw->baseline_given = r->global_batch_asked == st->gb_now;
    if (bw->baseline_given) {
        if (hs__batch_add(r, bw->count, "given", r->batch_before,
                          r->micro_before, 1, same_as) != 0)
            goto nomem;
    } else {
        /* another global batch: the given batches scaled to it; when no
           whole batches make it, the given ones (compared by epoch) */
        for (t = 0; t < nt; t++)
            x[t] = (double)r->batch_before[t] *
                   (double)r->global_batch / (double)st->gb_now;
        if (hs__round_split(nt, bw->count, maxb, x, r->global_batch, b) !=
                0 ||
            hs__micro_of(st, s, b) != 0) {
            memcpy(b, r->batch_before, nt * sizeof *b);
            bw->baseline_given = 1;
        }
        if (hs__batch_add(r, bw->count, bw->baseline_given ? "given"
                                                           : "proportional",
                          b, bw->baseline_given ? r->micro_before : st->mic,
                          1, same_as) != 0)
            goto nomem;
    }
    if (bw->baseline_given)
        for (t = 0; t < nt; t++)
            if (s->types[t].shard != 0)
                r->cands[0].shard[t] = s->types[t].shard_is_bytes
                                           ? s->types[t].shard /
                                                 s->sample_bytes
                                           : s->types[t].shard;
    for (k = 0; k < 3; k++) {
        static const char *const lab[3] = {"searched", "paced", "compute"};

        /* the search returns allowed batches only (hs_batchopt.h) */
        if (hs__micro_of(st, s, search[k]) != 0 ||
            hs__batch_add(r, bw->count, lab[k], search[k], st->mic, k == 0,
                          same_as) != 0)
            goto nomem;
    }
    for (k = 0; k < 3; k++) {
        for (t = 0; t < nt; t++)
            x[t] = (double)r->cands[0].batch[t] +
                   part[k].lambda * ((double)search[0][t] -
                                     (double)r->cands[0].batch[t]);
        if (hs__round_split(nt, bw->count, maxb, x, r->global_batch, b) ==
                0 &&
            hs__micro_of(st, s, b) == 0 &&
            hs__batch_add(r, bw->count, part[k].label, b, st->mic, 0,
                          same_as) != 0)
            goto nomem;
    }
    /* the shards that follow each candidate's batches */
    for (k = bw->baseline_given ? 1 : 0; k < r->n_cands; k++)
        for (t = 0; t < nt; t++)
            if (bw->any_shard && s->types[t].shard != 0)
                r->cands[k].shard[t] =
                    (uint64_t)((long double)bw->total_shard *
                               (long double)r->cands[k].batch[t] /
                               (long double)r->cands[k].global_batch);
    return HS_OK;
nomem:
    return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
}

/* Every candidate judged, split over the processes (a repeat's figures
   are its original's); the judge's fastest, strictly faster than the
   baseline, ties to the earlier candidate, chosen. */
static hs_err_t hs__batch_judge(hs__bstate_t *st, const hs_advise_exec_t *ex,
                                hs_error_t *err)
{
    hs_advise_batch_t *r = st->r;
    const int *same_as = st->same_as;
    hs_advise_fig_t figs[HS_ADVISE_BATCH_CANDS];
    int todo[HS_ADVISE_BATCH_CANDS];
    size_t k;
    hs_err_t rc;

    for (k = 0; k < r->n_cands; k++)
        todo[k] = same_as[k] < 0;
    if ((rc = hs__advise_run_jobs(ex, r->n_cands, todo, hs__batch_job,
                                  &st->bw, figs, err)) != HS_OK)
        return rc;
    for (k = 0; k < r->n_cands; k++)
        r->cands[k].fig = figs[same_as[k] >= 0 ? (size_t)same_as[k] : k];
    r->chosen = 0;
    for (k = 1; k < r->n_cands; k++)
        if (same_as[k] < 0 &&
            hs_advise_fig_faster(&r->cands[k].fig, &r->cands[0].fig, 0) &&
            hs_advise_fig_faster(&r->cands[k].fig,
                                 &r->cands[r->chosen].fig, 0))
            r->chosen = k;
    r->outcome = r->chosen == 0   ? HS_ADVISE_NONE
                 : r->chosen == 1 ? HS_ADVISE_IMPROVED
                                  : HS_ADVISE_FALLBACK;
    return HS_OK;
}

/* The recommendation as written (the search's split's scaling when there
   is none): the scaling in words, the batches, shards and profiles
   after. */
static hs_err_t hs__batch_recommend(hs__bstate_t *st, const hs_scenario_t *s,
                                    hs_error_t *err)
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
    hs_advise_batch_t *r = st->r;
    size_t t, k, len, nt = s->n_types;
    hs_err_t rc;

    k = r->chosen != 0 ? r->chosen : 1;
    if ((rc = hs__batch_build(&st->bw, r->cands[k].batch,
                              r->cands[k].micro, &st->w, &st->scaling,
                              &st->models, err)) != HS_OK)
        return rc;
    len = (st->scaling ? strlen(st->scaling) : 0) + sizeof lin +
          sizeof pts + sizeof tail;
    if ((r->scaling = malloc(len)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    snprintf(r->scaling, len, "%s%s%s%s", st->scaling ? st->scaling : "",
             st->models & 1 ? lin : "", st->models & 2 ? pts : "", tail);
    memcpy(r->batch_after, r->cands[r->chosen].batch,
           nt * sizeof *r->batch_after);
    memcpy(r->shard_after, r->cands[r->chosen].shard,
           nt * sizeof *r->shard_after);
    memcpy(r->micro_after, r->cands[r->chosen].micro,
           nt * sizeof *r->micro_after);
    for (t = 0; t < nt; t++)
        if (hs_profile_copy(&r->profile_after[t],
                            r->chosen != 0 ? &st->w->types[t].profile
                                           : &s->types[t].profile) != 0)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* Frees what st holds but the advice (nt types). */
static void hs__bstate_free(hs__bstate_t *st, size_t nt)
{
    size_t t, k;

    hs_scenario_free(st->w);
    hs_scenario_free(st->bc.w);
    if (st->bc.devs != NULL)
        for (t = 0; t < nt; t++)
            free(st->bc.devs[t]);
    free(st->bc.devs);
    free(st->bc.n_devs);
    free(st->bw.count);
    free(st->maxb);
    free(st->b);
    free(st->x);
    for (k = 0; k < 3; k++)
        free(st->search[k]);
    free(st->top);
    free(st->ref);
    free(st->mm);
    free(st->mic);
    free(st->scaling);
}

hs_err_t hs_advise_batch_x(const hs_scenario_t *s, const hs_replay_opts_t *o,
                           uint64_t global_batch, const uint64_t *max_batch,
                           int replay, const hs_advise_exec_t *ex,
                           hs_advise_batch_t **out, hs_error_t *err)
{
    return hs_advise_batch_micro_x(s, o, global_batch, max_batch, 1, replay,
                                   ex, out, err);
}

hs_err_t hs_advise_batch_micro_x(const hs_scenario_t *s,
                                 const hs_replay_opts_t *o,
                                 uint64_t global_batch,
                                 const uint64_t *max_batch,
                                 uint32_t max_micro, int replay,
                                 const hs_advise_exec_t *ex,
                                 hs_advise_batch_t **out, hs_error_t *err)
{
    hs__bstate_t st;
    size_t nt = s->n_types;
    hs_err_t rc;

    *out = NULL;
    memset(&st, 0, sizeof st);
    st.max_micro = max_micro;
    if ((rc = hs_scenario_require_profiles(s, err)) != HS_OK)
        return rc;
    st.bc.s = s;
    st.bc.kind = HS__BK_EXT;
    st.bc.overlap = o != NULL ? o->overlap : s->overlap;
    st.bw.s = s;
    st.bw.o = o;
    st.bw.replay = replay;
    st.bw.same_as = st.same_as;
    st.bw.micro_on = max_micro > 1;
    if ((rc = hs__batch_alloc(&st, nt, err)) != HS_OK ||
        (rc = hs__batch_types(&st, s, global_batch, max_batch, err)) !=
            HS_OK ||
        (rc = hs__batch_limits(&st, s, err)) != HS_OK ||
        (rc = hs__batch_search(&st, s, err)) != HS_OK ||
        (rc = hs__batch_cands(&st, s, err)) != HS_OK ||
        (rc = hs__batch_judge(&st, ex, err)) != HS_OK ||
        (rc = hs__batch_recommend(&st, s, err)) != HS_OK) {
        hs_advise_batch_free(st.r);
        st.r = NULL;
    }
    hs__bstate_free(&st, nt);
    *out = st.r;
    return rc;
}

void hs_advise_batch_free(hs_advise_batch_t *r)
{
    size_t t, k;

    if (r == NULL)
        return;
    if (r->profile_after != NULL)
        for (t = 0; t < r->n_types; t++)
            hs_profile_clear(&r->profile_after[t]);
    for (k = 0; k < r->n_cands; k++) {
        free(r->cands[k].batch);
        free(r->cands[k].shard);
        free(r->cands[k].micro);
    }
    free(r->micro_before);
    free(r->micro_after);
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

/* "judged by the replay: epoch 38.880 s -> 32.100 s" for the given
   configuration g and the recommended one c. */
static void hs__judged_line(const hs_advise_fig_t *g,
                            const hs_advise_fig_t *c, int want_total,
                            char *buf, size_t len)
{
    static const char *const qn[3] = {"step", "epoch", "total"};
    int64_t vg, vc;
    hs_predictor_t p;
    int q;
    char a[32], b[32];

    hs_advise_fig_pair(c, g, want_total, &vc, &vg, &p, &q);
    hs_fmt_time(vg, a, sizeof a);
    hs_fmt_time(vc, b, sizeof b);
    snprintf(buf, len, "judged by the %s predictor (%s): %s %s given, %s "
             "recommended", hs_predictor_name(p),
             p == c->recommended ? "the recommended one"
                                 : "the one both were judged by",
             qn[q], a, b);
}

/* Appends the formatted text to the malloc'd *buf (grown); -1 when out of
   memory. */
static int hs__cat(char **buf, const char *fmt, ...)
{
    va_list ap;
    size_t have = *buf != NULL ? strlen(*buf) : 0;
    int n;
    char *grown;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || (grown = realloc(*buf, have + (size_t)n + 1)) == NULL)
        return -1;
    va_start(ap, fmt);
    vsnprintf(grown + have, (size_t)n + 1, fmt, ap);
    va_end(ap);
    *buf = grown;
    return 0;
}

/* What hs_advise_write gathers: the edits (keys and values, malloc'd,
   n of them), the header's text and the written file's directory (both
   malloc'd), all freed by hs_advise_write. */
typedef struct {
    const hs_scenario_t *s;
    const char *path;
    char **keys, **vals;
    size_t n;
    char *header;
    char *outdir;
} hs__wr_t;

/* The edit and header of ring advice: the chosen order. */
static hs_err_t hs__wr_ring(hs__wr_t *w, const hs_advise_ring_t *ring,
                            hs_error_t *err)
{
    const hs_scenario_t *s = w->s;
    char judged[400];

    w->keys[w->n] = strdup("ring");
    w->vals[w->n] = hs__ring_yaml(s, ring->cands[ring->chosen].order);
    if (w->keys[w->n] == NULL || w->vals[w->n] == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    w->n++;
    hs__judged_line(&ring->cands[0].fig,
                    &ring->cands[ring->chosen].fig, 0, judged,
                    sizeof judged);
    if (hs__cat(&w->header, "written by hetsim advise ring from %s: the "
                "ring is the recommended order ('%s');\n%s", s->file,
                ring->cands[ring->chosen].label, judged) != 0)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* Type t's batch (batch advice) or count (mix advice) edit, set to v:
   with nodes, a mix's count is its kind's count of nodes (none when the
   type has no kind). */
static hs_err_t hs__wr_count(hs__wr_t *w, size_t t,
                             const hs_advise_batch_t *batch,
                             const hs_advise_mix_t *mix, uint64_t v,
                             hs_error_t *err)
{
    const hs_scenario_t *s = w->s;
    const char *what = batch != NULL ? "batch" : "count";
    char buf[640];

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
        if ((w->keys[w->n] = strdup(buf)) == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
        if ((w->vals[w->n++] = strdup(buf)) == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    return HS_OK;
}

/* Type t's micro_batches edit (micro-batches searched), set to v. */
static hs_err_t hs__wr_micro(hs__wr_t *w, size_t t, uint32_t v,
                             hs_error_t *err)
{
    char buf[640];

    snprintf(buf, sizeof buf, "device_types.%s.micro_batches",
             w->s->types[t].name);
    if ((w->keys[w->n] = strdup(buf)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    snprintf(buf, sizeof buf, "%u", v);
    if ((w->vals[w->n++] = strdup(buf)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* Type t's profile scaled to batch v, written beside the file and named
   relative to it; its edit, and its line of the header. */
static hs_err_t hs__wr_profile(hs__wr_t *w, size_t t,
                               const hs_advise_batch_t *batch, uint64_t v,
                               hs_error_t *err)
{
    const hs_scenario_t *s = w->s;
    char buf[640];
    char ppath[4096], pname[1024], line[400];
    hs_profile_info_t info = {s->types[t].name, NULL};
    const char *slash = strrchr(w->path, '/');
    const char *stem = slash != NULL ? slash + 1 : w->path;
    size_t sl = strlen(stem);
    hs_profile_t tmp, wp;
    hs_bscale_t how;
    /* with micro-batches searched the profile holds one micro-batch */
    uint32_t mv = batch->max_micro > 1 ? batch->micro_after[t] : 1;
    uint64_t b0 = batch->max_micro > 1
                      ? s->types[t].batch / batch->micro_before[t]
                      : s->types[t].batch;
    hs_err_t rc;

    if (sl > 5 && strcmp(stem + sl - 5, ".yaml") == 0)
        sl -= 5;
    if (w->outdir == NULL && (w->outdir = hs_file_absdir(w->path)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    snprintf(pname, sizeof pname, "%.*s.%s.profile.yaml",
             (int)sl, stem, s->types[t].name);
    snprintf(ppath, sizeof ppath, "%s/%s", w->outdir, pname);
    if (hs_profile_at_batch(&s->types[t].profile, b0, v / mv, &tmp,
                            &how) != 0)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    hs_profile_clear(&tmp);
    hs_bscale_describe(&how, b0, v / mv, line, sizeof line);
    snprintf(buf, sizeof buf, "hetsim advise batch: the profile "
             "of type %s scaled to %s %llu (%s), not measured "
             "at it", s->types[t].name,
             batch->max_micro > 1 ? "micro-batch" : "batch",
             (unsigned long long)(v / mv), line);
    info.comment = buf;
    /* the profile states the accumulation the scenario is written with
       (a loaded scenario refuses a type and profile that disagree) */
    wp = batch->profile_after[t];
    if (batch->max_micro > 1)
        wp.micro_batches = mv > 1 ? mv : 0;
    if ((rc = hs_profile_write(&wp, ppath, &info, err)) != HS_OK)
        return rc;
    snprintf(buf, sizeof buf, "device_types.%s.profile",
             s->types[t].name);
    if ((w->keys[w->n] = strdup(buf)) == NULL ||
        (w->vals[w->n] = malloc(strlen(pname) + 3)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    sprintf(w->vals[w->n++], "\"%s\"", pname);
    if (batch->max_micro > 1
            ? hs__cat(&w->header, "%s%s: batch %llu -> %llu as %u "
                      "micro-batch%s of %llu (micro_batches %u -> %u), "
                      "profile %s (%s)", t == 0 ? "" : ";\n",
                      s->types[t].name,
                      (unsigned long long)s->types[t].batch,
                      (unsigned long long)v, mv, mv == 1 ? "" : "es",
                      (unsigned long long)(v / mv), batch->micro_before[t],
                      mv, pname, line) != 0
            : hs__cat(&w->header, "%s%s: batch %llu -> %llu, profile %s "
                      "(%s)", t == 0 ? "" : ";\n", s->types[t].name,
                      (unsigned long long)s->types[t].batch,
                      (unsigned long long)v, pname, line) != 0)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* Type t's shard edit: removed when a mix derives the shards from the
   batches, set to batch advice's shard where it gave one. */
static hs_err_t hs__wr_shard(hs__wr_t *w, size_t t,
                             const hs_advise_batch_t *batch,
                             const hs_advise_mix_t *mix, hs_error_t *err)
{
    const hs_scenario_t *s = w->s;
    char buf[640];

    if (mix != NULL && mix->shards_derived &&
        s->types[t].shard != 0) {
        snprintf(buf, sizeof buf, "device_types.%s.shard",
                 s->types[t].name);
        if ((w->keys[w->n] = strdup(buf)) == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        w->vals[w->n++] = NULL;       /* removed: shards follow batches */
    }
    if (batch != NULL && batch->shard_after[t] != 0) {
        snprintf(buf, sizeof buf, "device_types.%s.shard",
                 s->types[t].name);
        if ((w->keys[w->n] = strdup(buf)) == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        if (s->types[t].shard_is_bytes)
            snprintf(buf, sizeof buf, "%lluB",
                     (unsigned long long)(batch->shard_after[t] *
                                          s->sample_bytes));
        else
            snprintf(buf, sizeof buf, "%llu",
                     (unsigned long long)batch->shard_after[t]);
        if ((w->vals[w->n++] = strdup(buf)) == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    return HS_OK;
}

/* The header of batch advice (the types' lines gathered so far, after
   its opening) or of mix advice. */
static hs_err_t hs__wr_header(hs__wr_t *w, const hs_advise_batch_t *batch,
                              const hs_advise_mix_t *mix, hs_error_t *err)
{
    const hs_scenario_t *s = w->s;
    char judged[400];

    if (batch != NULL) {
        char *types = w->header;

        w->header = NULL;
        hs__judged_line(&batch->cands[0].fig,
                        &batch->cands[batch->chosen].fig, 0, judged,
                        sizeof judged);
        if (hs__cat(&w->header, "written by hetsim advise batch from %s: "
                    "each type's batch (and shard, where it gave one%s) "
                    "is the recommendation ('%s');\nthe profiles, "
                    "written beside this file, are each type's profile "
                    "in that scenario scaled to its new %s, not "
                    "measured at it (profile each type at its new %s "
                    "to confirm):\n%s;\n%s", s->file,
                    batch->max_micro > 1 ? ", and its micro_batches" : "",
                    batch->cands[batch->chosen].label,
                    batch->max_micro > 1 ? "micro-batch" : "batch",
                    batch->max_micro > 1 ? "micro-batch" : "batch",
                    types != NULL ? types : "", judged) != 0) {
            free(types);
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        }
        free(types);
    } else {
        hs__judged_line(&mix->given, &mix->fig[mix->chosen], 1, judged,
                        sizeof judged);
        if (hs__cat(&w->header, "written by hetsim advise mix from %s: "
                    "each type's count is the recommended mix (number "
                    "%zu of the closed form's best)%s;\n%s, cost %.6g "
                    "given, %.6g recommended", s->file, mix->chosen + 1,
                    mix->shards_derived
                        ? ";\nthe shards follow the batches over the "
                          "whole training set"
                        : "",
                    judged, mix->given_cost,
                    mix->cost[mix->chosen]) != 0)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    return HS_OK;
}

/* The edits and header of batch or mix advice, type by type. */
static hs_err_t hs__wr_types(hs__wr_t *w, const hs_advise_batch_t *batch,
                             const hs_advise_mix_t *mix, hs_error_t *err)
{
    const hs_scenario_t *s = w->s;
    hs_err_t rc;
    size_t t;

    for (t = 0; t < s->n_types; t++) {
        uint64_t v = batch != NULL
                         ? batch->batch_after[t]
                         : mix->search->top[mix->chosen].counts[t];

        if ((rc = hs__wr_count(w, t, batch, mix, v, err)) != HS_OK)
            return rc;
        if (batch != NULL && batch->max_micro > 1 &&
            (rc = hs__wr_micro(w, t, batch->micro_after[t], err)) != HS_OK)
            return rc;
        if (batch != NULL &&
            (rc = hs__wr_profile(w, t, batch, v, err)) != HS_OK)
            return rc;
        if ((rc = hs__wr_shard(w, t, batch, mix, err)) != HS_OK)
            return rc;
    }
    return hs__wr_header(w, batch, mix, err);
}

hs_err_t hs_advise_write(const hs_scenario_t *s, const hs_advise_ring_t *ring,
                         const hs_advise_batch_t *batch,
                         const hs_advise_mix_t *mix, const char *path,
                         hs_error_t *err)
{
    hs__wr_t w = {s, path, NULL, NULL, 0, NULL, NULL};
    hs_rewrite_edit_t *ed = NULL;
    char *base = NULL;
    size_t cap = 4 * s->n_types + 1, i;
    hs_err_t rc;

    if ((ring != NULL && ring->outcome == HS_ADVISE_NONE) ||
        (batch != NULL && batch->outcome == HS_ADVISE_NONE) ||
        (mix != NULL && mix->outcome == HS_ADVISE_NONE))
        return hs_error_setf(err, HS_ERR_USAGE, "%s: no better "
                             "configuration found: nothing to write",
                             path);
    ed = calloc(cap, sizeof *ed);
    w.keys = calloc(cap, sizeof *w.keys);
    w.vals = calloc(cap, sizeof *w.vals);
    if (ed == NULL || w.keys == NULL || w.vals == NULL)
        goto nomem;
    rc = ring != NULL ? hs__wr_ring(&w, ring, err)
                      : hs__wr_types(&w, batch, mix, err);
    if (rc != HS_OK)
        goto out;
    for (i = 0; i < w.n; i++) {
        ed[i].key_path = w.keys[i];
        ed[i].value = w.vals[i];
    }
    if (strcmp(s->file, "<default>") != 0 &&
        (base = hs_file_absdir(s->file)) == NULL)
        goto nomem;
    rc = hs_rewrite_file_rebased(s->text, strlen(s->text), s->file, ed, w.n,
                                 base, w.header, path, err);
    goto out;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
out:
    for (i = 0; i < cap; i++) {
        if (w.keys != NULL)
            free(w.keys[i]);
        if (w.vals != NULL)
            free(w.vals[i]);
    }
    free(w.keys);
    free(w.vals);
    free(ed);
    free(base);
    free(w.outdir);
    free(w.header);
    return rc;
}
