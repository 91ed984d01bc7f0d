/*
 * test_advise_nodes.c -- `hetsim advise` on scenarios with nodes
 * (scenarios/nodes-example.yaml and small ones here): the ring keeps
 * each node together and its figures are the closed form's own (NIC
 * sharing included), never worse than the given order; the batches and
 * the mix write scenarios that load and predict what the advice said; the
 * mix counts whole nodes and matches a brute force over the node counts;
 * a type of two node kinds (mix) and a collective that does not follow
 * the ring (ring) are refused with a reason.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_advise.h"
#include "hs_closed.h"
#include "hs_nodes.h"
#include "hs_test.h"

static hs_scenario_t *load_file(const char *path)
{
    hs_scenario_t *s = NULL;
    hs_error_t e;

    if (hs_scenario_load(path, &s, &e) != HS_OK)
        fprintf(stderr, "\nload %s failed: %s\n", path, e.msg);
    return s;
}

static hs_scenario_t *example(void)
{
    char path[1024];

    snprintf(path, sizeof path, "%s/scenarios/nodes-example.yaml",
             HS_TEST_SRC);
    return load_file(path);
}

static hs_scenario_t *load(const char *name, const char *yaml)
{
    return load_file(hs_test_write_file(name, yaml));
}

/* The closed form's step of s with its ring set to order. */
static int64_t closed_in_order(const hs_scenario_t *s, const uint32_t *ord)
{
    hs_scenario_t *c = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t e;
    char *buf = malloc(64 * s->n_devices + 8);
    size_t k, at = 0;
    int64_t step = -1;

    at += (size_t)sprintf(buf + at, "[");
    for (k = 0; k < s->n_devices; k++)
        at += (size_t)sprintf(buf + at, "%s%s", k ? ", " : "",
                              s->devices[ord[k]].name);
    sprintf(buf + at, "]");
    if (hs_scenario_clone(s, &c, &e) == HS_OK &&
        hs_scenario_set(c, "ring", buf, &e) == HS_OK &&
        hs_scenario_resolve(c, &e) == HS_OK &&
        hs_closed_predict(c, &p, &e) == HS_OK)
        step = p->step_ns;
    hs_prediction_free(p);
    hs_scenario_free(c);
    free(buf);
    return step;
}

static void test_ring_nodes(void)
{
    hs_scenario_t *s = example(), *w = NULL;
    hs_advise_ring_t *r = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t e;
    const char *path = hs_test_write_file("advise-nodes-ring.yaml", "x");
    const hs_advise_ring_cand_t *c;
    size_t k, n_runs = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_advise_ring(s, NULL, 1, 0, &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    /* every candidate's figure is the closed form's on that order, NIC
       sharing included (the interleaved order leaves nodes many times) */
    for (k = 0; k < r->n_cands; k++)
        HS_ASSERT_I64_EQ(r->cands[k].closed_ns,
                         closed_in_order(s, r->cands[k].order));
    c = &r->cands[3];
    /* the searched ring leaves each node once: the devices of a node
       follow one another */
    for (k = 0; k < r->n; k++)
        if (s->nodes->dev_node[c->order[k]] !=
            s->nodes->dev_node[c->order[(k + 1) % r->n]])
            n_runs++;
    HS_ASSERT_I64_EQ(n_runs, s->nodes->n_nodes);
    /* better than the given order (whose v100-2 -> v100-3 link is slow),
       never below the bound, and the recommendation */
    CU_ASSERT_TRUE(c->closed_ns < r->cands[0].closed_ns);
    CU_ASSERT_TRUE(c->closed_ns >= r->lower_bound_ns);
    HS_ASSERT_I64_EQ(r->chosen, 3);
    HS_ASSERT_I64_EQ(r->outcome, HS_ADVISE_IMPROVED);
    CU_ASSERT_TRUE(hs_advise_fig_faster(&r->cands[3].fig, &r->cands[0].fig,
                                        0));
    /* written: it loads, keeps its nodes, predicts the searched step */
    HS_ASSERT_I64_EQ(hs_advise_write(s, r, NULL, NULL, path, &e), HS_OK);
    w = load_file(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_PTR_NOT_NULL(w->nodes);
    HS_ASSERT_I64_EQ(hs_closed_predict(w, &p, &e), HS_OK);
    HS_ASSERT_I64_EQ(p->step_ns, r->cands[r->chosen].closed_ns);
    hs_prediction_free(p);
    hs_scenario_free(w);
    hs_advise_ring_free(r);
    hs_scenario_free(s);
}

static const char hier[] =
    "device_types:\n"
    "  - {name: A, batch: 8, profile: {t_fwd: 10ms, t_b1: 1ms, "
    "allreduce_bytes: 10MB}}\n"
    "nodes:\n"
    "  kinds:\n"
    "    - {name: n, type: A, devices: 2, count: 3,\n"
    "       intra_bandwidth: 100GB/s}\n"
    "  inter_bandwidth: 10GB/s\n"
    "collective: hierarchical\n"
    "simulate: {steps: 3}\n";

static void test_ring_refused(void)
{
    hs_scenario_t *s = load("advise-hier.yaml", hier);
    hs_advise_ring_t *r = NULL;
    hs_error_t e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_advise_ring(s, NULL, 0, 0, &r, &e), HS_ERR_SCHEMA);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(e.msg, "collective: hierarchical does not "
                                  "follow the ring order");
    hs_scenario_free(s);
}

static void test_batch_nodes(void)
{
    hs_scenario_t *s = example(), *w = NULL;
    hs_advise_batch_t *r = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t e;
    const char *path = hs_test_write_file("advise-nodes-batch.yaml", "x");

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_advise_batch(s, NULL, 0, NULL, 0, &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    /* the faster A100 take more of the global batch */
    HS_ASSERT_I64_EQ(r->global_batch, 16 * 64 + 16 * 32);
    CU_ASSERT_TRUE(r->batch_after[0] > 64);
    CU_ASSERT_TRUE(r->batch_after[1] < 32);
    /* judged by the extended form (no replay asked): faster */
    HS_ASSERT_I64_EQ(r->outcome, HS_ADVISE_IMPROVED);
    HS_ASSERT_I64_EQ(r->cands[r->chosen].fig.recommended,
                     HS_PREDICTOR_EXTENDED);
    CU_ASSERT_TRUE(hs_advise_fig_faster(&r->cands[r->chosen].fig,
                                        &r->cands[0].fig, 0));
    HS_ASSERT_I64_EQ(hs_advise_write(s, NULL, r, NULL, path, &e), HS_OK);
    w = load_file(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_PTR_NOT_NULL(w->nodes);
    HS_ASSERT_I64_EQ(w->n_devices, 32);
    HS_ASSERT_I64_EQ(w->types[0].batch, r->batch_after[0]);
    HS_ASSERT_I64_EQ(hs_closed_predict(w, &p, &e), HS_OK);
    HS_ASSERT_I64_EQ(p->step_ns,
                     r->cands[r->chosen].fig.est[HS_PREDICTOR_SOURCE].step_ns);
    hs_prediction_free(p);
    hs_scenario_free(w);
    hs_advise_batch_free(r);
    hs_scenario_free(s);
}

/* Two kinds, one type each, no node-pair rows: every node count makes a
   cluster of 2 or more devices. */
static const char mixn[] =
    "job: {model: x, dataset: {samples: 40000}, epochs: 1}\n"
    "device_types:\n"
    "  - {name: A, batch: 32, profile: {t_fwd: 10ms, t_b1: 1ms, "
    "allreduce_bytes: 20MB}}\n"
    "  - {name: B, batch: 32, profile: {t_fwd: 25ms, t_b1: 1ms, "
    "allreduce_bytes: 20MB}}\n"
    "nodes:\n"
    "  kinds:\n"
    "    - {name: a, type: A, devices: 4, count: 2,\n"
    "       intra_bandwidth: 100GB/s, nics: 1, nic_bandwidth: 5GB/s}\n"
    "    - {name: b, type: B, devices: 2, count: 3,\n"
    "       intra_bandwidth: 20GB/s}\n"
    "  inter_bandwidth: 10GB/s\n"
    "simulate: {steps: 3}\n";

static void test_mix_nodes(void)
{
    hs_scenario_t *s = load("advise-mixn.yaml", mixn), *w = NULL;
    hs_mixopt_type_t ty[2] = {{0, 12, 4.0}, {2, 6, 1.0}};
    hs_advise_mix_t *r = NULL;
    hs_error_t e;
    const char *path = hs_test_write_file("advise-nodes-mix.yaml", "x");
    uint64_t na, nb, best_a = 0, best_b = 0;
    int64_t best_t = INT64_MAX;
    double budget = 0.02;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    /* brute force over the node counts: a 0..3 nodes of 4, b 1..3 of 2 */
    for (na = 0; na <= 3; na++)
        for (nb = 1; nb <= 3; nb++) {
            hs_scenario_t *c = NULL;
            hs_prediction_t *p = NULL;
            char v[16];
            uint64_t cnt[2] = {4 * na, 2 * nb};
            int64_t tot;

            CU_ASSERT_EQUAL_FATAL(hs_scenario_clone(s, &c, &e), HS_OK);
            snprintf(v, sizeof v, "%llu", (unsigned long long)na);
            hs_scenario_set(c, "nodes.a.count", v, &e);
            snprintf(v, sizeof v, "%llu", (unsigned long long)nb);
            hs_scenario_set(c, "nodes.b.count", v, &e);
            if (hs_scenario_resolve(c, &e) != HS_OK ||
                hs_closed_predict(c, &p, &e) != HS_OK) {
                hs_scenario_free(c);
                continue;
            }
            tot = p->step_ext_ns * (int64_t)p->iters_per_epoch;
            if (hs_mixopt_cost(2, ty, cnt, tot) <= budget && tot < best_t) {
                best_t = tot;
                best_a = cnt[0];
                best_b = cnt[1];
            }
            hs_prediction_free(p);
            hs_scenario_free(c);
        }
    CU_ASSERT_TRUE_FATAL(best_t < INT64_MAX);
    HS_ASSERT_I64_EQ(hs_advise_mix(s, NULL, ty, HS_MIX_FASTEST, budget, 0, 0,
                                   &r, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    HS_ASSERT_I64_EQ(r->search->top[0].counts[0], best_a);
    HS_ASSERT_I64_EQ(r->search->top[0].counts[1], best_b);
    HS_ASSERT_I64_EQ(r->search->top[0].total_ns, best_t);
    HS_ASSERT_I64_EQ(r->search->visited, 4 * 3);
    /* written as node counts; it loads with the recommended devices */
    HS_ASSERT_I64_EQ(hs_advise_write(s, NULL, NULL, r, path, &e), HS_OK);
    w = load_file(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    HS_ASSERT_I64_EQ(w->types[0].count, best_a);
    HS_ASSERT_I64_EQ(w->types[1].count, best_b);
    HS_ASSERT_I64_EQ(w->nodes->kinds[0].count, best_a / 4);
    HS_ASSERT_I64_EQ(w->nodes->kinds[1].count, best_b / 2);
    hs_scenario_free(w);
    hs_advise_mix_free(r);
    /* fewer devices than a node holds leave no whole node */
    ty[0].min = 1;
    ty[0].avail = 3;
    HS_ASSERT_I64_EQ(hs_advise_mix(s, NULL, ty, HS_MIX_FASTEST, budget, 0, 0,
                                   &r, &e), HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(e.msg, "no whole number of nodes");
    hs_scenario_free(s);
}

static const char twokinds[] =
    "job: {model: x, dataset: {samples: 40000}, epochs: 1}\n"
    "device_types:\n"
    "  - {name: A, batch: 32, profile: {t_fwd: 10ms, t_b1: 1ms, "
    "allreduce_bytes: 20MB}}\n"
    "nodes:\n"
    "  kinds:\n"
    "    - {name: big, type: A, devices: 8, count: 1,\n"
    "       intra_bandwidth: 100GB/s}\n"
    "    - {name: small, type: A, devices: 2, count: 2,\n"
    "       intra_bandwidth: 20GB/s}\n"
    "  inter_bandwidth: 10GB/s\n";

static void test_mix_refused(void)
{
    hs_scenario_t *s = load("advise-twokinds.yaml", twokinds);
    hs_mixopt_type_t ty[1] = {{0, 12, 1.0}};
    hs_advise_mix_t *r = NULL;
    hs_error_t e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_advise_mix(s, NULL, ty, HS_MIX_FASTEST, 1e9, 0, 0,
                                   &r, &e), HS_ERR_SCHEMA);
    CU_ASSERT_PTR_NULL(r);
    HS_ASSERT_STR_CONTAINS(e.msg, "node kinds 'big' and 'small'");
    HS_ASSERT_STR_CONTAINS(e.msg, "ill-defined");
    HS_ASSERT_STR_CONTAINS(e.msg, "its own device type");
    hs_scenario_free(s);
}

static int register_advise_nodes(void)
{
    CU_pSuite s = CU_add_suite("advise_nodes", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "ring by node", test_ring_nodes) == NULL ||
        CU_add_test(s, "ring refused for hierarchical",
                    test_ring_refused) == NULL ||
        CU_add_test(s, "batch on nodes", test_batch_nodes) == NULL ||
        CU_add_test(s, "mix by whole nodes", test_mix_nodes) == NULL ||
        CU_add_test(s, "mix refused: a type of two kinds",
                    test_mix_refused) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_advise_nodes)
