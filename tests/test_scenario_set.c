/* test_scenario_set.c -- a scenario as data: hs_scenario_set against
 * loading the equivalent YAML, error shapes, clone independence, link
 * queries for any pair, resolve after count changes and its cost; and the
 * profile format both ways (load, write, load: the same struct; the
 * writer's bytes against the ingestion's). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hs_ingest.h"
#include "hs_profile.h"
#include "hs_scenario.h"
#include "hs_test.h"
#include "ingest_check.h"

static hs_err_t load(const char *yaml, hs_scenario_t **s, hs_error_t *e)
{
    return hs_scenario_load_text(yaml, strlen(yaml), "t.yaml", HS_TEST_TMP,
                                 s, e);
}

/* ------------------------------------------------------------------ */
/* The equivalent YAML of a set: one template, slots replaced per case   */

enum { S_EPOCHS, S_DATASET, S_ACOUNT, S_ABATCH, S_ASHARD, S_APROF, S_BCOUNT,
       S_NET, S_RING, S_SIM, S_DEVICES, S_N };

static const char *const slot_default[S_N] = {
    "1",
    "samples: 9000, sample_bytes: 1KB",
    "2",
    "8",
    "",
    "t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB",
    "3",
    "default_bandwidth: 1Gbps, latency: 10us",
    "",
    "steps: 10",
    ""};

/* Listed devices for the devices.<name>.* cases (counts match: 2 a, 3 b). */
#define LISTED                                                              \
    "devices:\n"                                                            \
    "  - {name: x0, type: a, addr: 10.0.0.1}\n"                             \
    "  - {name: x1, type: b, addr: 10.0.0.2}\n"                             \
    "  - {name: x2, type: a, addr: 10.0.0.3}\n"                             \
    "  - {name: x3, type: b, addr: 10.0.0.4}\n"                             \
    "  - {name: x4, type: b, addr: 10.0.0.5}\n"

static char *render(const char *const slot[S_N])
{
    char *text = malloc(8192);

    snprintf(text, 8192,
             "job: {epochs: %s, dataset: {%s}}\n"
             "device_types:\n"
             "  - name: a\n"
             "    count: %s\n"
             "    batch: %s\n"
             "%s"
             "    profile: {%s}\n"
             "  - name: b\n"
             "    count: %s\n"
             "    batch: 8\n"
             "    profile: {t_fwd: 20ms, t_b1: 2ms, allreduce_bytes: 4MB}\n"
             "network: {%s}\n"
             "%s"
             "simulate: {%s}\n"
             "%s",
             slot[S_EPOCHS], slot[S_DATASET], slot[S_ACOUNT], slot[S_ABATCH],
             slot[S_ASHARD], slot[S_APROF], slot[S_BCOUNT], slot[S_NET],
             slot[S_RING], slot[S_SIM], slot[S_DEVICES]);
    return text;
}

static void same_dist(const hs_dist_t *a, const hs_dist_t *b)
{
    HS_ASSERT_I64_EQ(a->known, b->known);
    HS_ASSERT_I64_EQ(a->mean_ns, b->mean_ns);
    HS_ASSERT_I64_EQ(a->sd_ns, b->sd_ns);
    HS_ASSERT_I64_EQ(a->n_samples, b->n_samples);
}

/* Every resolved figure the closed form and the replay read. */
static void same_scenario(const hs_scenario_t *a, const hs_scenario_t *b)
{
    size_t i;

    HS_ASSERT_I64_EQ(a->epochs, b->epochs);
    HS_ASSERT_I64_EQ(a->dataset_total, b->dataset_total);
    HS_ASSERT_I64_EQ(a->dataset_is_bytes, b->dataset_is_bytes);
    HS_ASSERT_I64_EQ(a->sample_bytes, b->sample_bytes);
    HS_ASSERT_I64_EQ(a->n_types, b->n_types);
    for (i = 0; i < a->n_types && i < b->n_types; i++) {
        const hs_type_t *x = &a->types[i], *y = &b->types[i];
        CU_ASSERT_STRING_EQUAL(x->name, y->name);
        HS_ASSERT_I64_EQ(x->count, y->count);
        HS_ASSERT_I64_EQ(x->batch, y->batch);
        HS_ASSERT_I64_EQ(x->shard, y->shard);
        HS_ASSERT_I64_EQ(x->shard_is_bytes, y->shard_is_bytes);
        HS_ASSERT_I64_EQ(x->has_profile, y->has_profile);
        same_dist(&x->profile.t_dl, &y->profile.t_dl);
        same_dist(&x->profile.t_fwd, &y->profile.t_fwd);
        same_dist(&x->profile.t_b1, &y->profile.t_b1);
        same_dist(&x->profile.t_bwd, &y->profile.t_bwd);
        same_dist(&x->profile.t_opt, &y->profile.t_opt);
        HS_ASSERT_I64_EQ(x->profile.ar_bytes, y->profile.ar_bytes);
        HS_ASSERT_DBL_NEAR(x->profile.comm_ns_per_byte,
                           y->profile.comm_ns_per_byte, 0);
        HS_ASSERT_I64_EQ(x->profile.t_hop_wait_ns, y->profile.t_hop_wait_ns);
    }
    HS_ASSERT_DBL_NEAR(a->default_bw_bytes_per_s, b->default_bw_bytes_per_s,
                       0);
    HS_ASSERT_I64_EQ(a->latency_ns, b->latency_ns);
    HS_ASSERT_I64_EQ(a->n_devices, b->n_devices);
    for (i = 0; i < a->n_devices && i < b->n_devices; i++) {
        const hs_device_t *x = &a->devices[i], *y = &b->devices[i];
        CU_ASSERT_STRING_EQUAL(x->name, y->name);
        CU_ASSERT_STRING_EQUAL(x->addr, y->addr);
        HS_ASSERT_I64_EQ(x->type, y->type);
        HS_ASSERT_I64_EQ(x->ring_pos, y->ring_pos);
        HS_ASSERT_DBL_NEAR(x->compute_scale, y->compute_scale, 0);
        HS_ASSERT_I64_EQ(x->extra_compute_ns, y->extra_compute_ns);
        HS_ASSERT_I64_EQ(a->ring[i], b->ring[i]);
        HS_ASSERT_DBL_NEAR(a->ring_bw_bytes_per_s[i],
                           b->ring_bw_bytes_per_s[i], 0);
        HS_ASSERT_I64_EQ(a->ring_lat_ns[i], b->ring_lat_ns[i]);
    }
    HS_ASSERT_I64_EQ(a->sim_steps, b->sim_steps);
    HS_ASSERT_I64_EQ(a->seed, b->seed);
    HS_ASSERT_I64_EQ(a->overlap, b->overlap);
    HS_ASSERT_I64_EQ(a->send, b->send);
    HS_ASSERT_I64_EQ(a->streams, b->streams);
    HS_ASSERT_I64_EQ(a->stochastic, b->stochastic);
    HS_ASSERT_I64_EQ(a->n_stragglers, b->n_stragglers);
    for (i = 0; i < a->n_stragglers && i < b->n_stragglers; i++)
        HS_ASSERT_I64_EQ(a->stragglers[i].device, b->stragglers[i].device);
}

typedef struct set_case_s {
    const char *key, *value;
    int slot;
    const char *yaml;   /* the slot's text in the equivalent YAML */
    int listed;         /* base with listed devices */
} set_case_t;

static const set_case_t cases[] = {
    {"device_types.a.count", "4", S_ACOUNT, "4", 0},
    {"device_types.b.count", "1", S_BCOUNT, "1", 0},
    {"device_types.a.batch", "32", S_ABATCH, "32", 0},
    {"device_types.a.shard", "1000", S_ASHARD, "    shard: 1000\n", 0},
    {"device_types.a.shard", "2MB", S_ASHARD, "    shard: 2MB\n", 0},
    {"device_types.a.profile.t_fwd", "12ms", S_APROF,
     "t_fwd: 12ms, t_b1: 1ms, allreduce_bytes: 4MB", 0},
    {"device_types.a.profile.t_b1", "3ms", S_APROF,
     "t_fwd: 10ms, t_b1: 3ms, allreduce_bytes: 4MB", 0},
    {"device_types.a.profile.t_bwd", "30ms", S_APROF,
     "t_fwd: 10ms, t_b1: 1ms, t_bwd: 30ms, allreduce_bytes: 4MB", 0},
    {"device_types.a.profile.t_dl", "5ms", S_APROF,
     "t_fwd: 10ms, t_b1: 1ms, t_dl: 5ms, allreduce_bytes: 4MB", 0},
    {"device_types.a.profile.t_opt", "2ms", S_APROF,
     "t_fwd: 10ms, t_b1: 1ms, t_opt: 2ms, allreduce_bytes: 4MB", 0},
    {"device_types.a.profile.allreduce_bytes", "8MB", S_APROF,
     "t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 8MB", 0},
    {"device_types.a.profile.comm_ns_per_byte", "0.5", S_APROF,
     "t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB, comm_ns_per_byte: 0.5",
     0},
    {"device_types.a.profile.t_hop_wait", "15ms", S_APROF,
     "t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB, t_hop_wait: 15ms", 0},
    {"job.epochs", "3", S_EPOCHS, "3", 0},
    {"job.dataset.samples", "500", S_DATASET,
     "samples: 500, sample_bytes: 1KB", 0},
    {"job.dataset.size", "1GB", S_DATASET, "size: 1GB, sample_bytes: 1KB", 0},
    {"job.dataset.sample_bytes", "2KB", S_DATASET,
     "samples: 9000, sample_bytes: 2KB", 0},
    {"network.default_bandwidth", "25Gbps", S_NET,
     "default_bandwidth: 25Gbps, latency: 10us", 0},
    {"network.latency", "50us", S_NET,
     "default_bandwidth: 1Gbps, latency: 50us", 0},
    {"network.type_links.a.b", "10Gbps", S_NET,
     "default_bandwidth: 1Gbps, latency: 10us, type_links: [[a, b, 10Gbps]]",
     0},
    {"network.type_links.b.a", "[5Gbps, 30us]", S_NET,
     "default_bandwidth: 1Gbps, latency: 10us, "
     "type_links: [[b, a, 5Gbps, 30us]]",
     0},
    {"network.type_links.b.b", "[5Gbps]", S_NET,
     "default_bandwidth: 1Gbps, latency: 10us, type_links: [[b, b, 5Gbps]]",
     0},
    {"ring", "grouped", S_RING, "ring: grouped\n", 0},
    {"ring", "interleave", S_RING, "ring: interleave\n", 0},
    {"ring", "listing", S_RING, "ring: listing\n", 0},
    {"ring", "[b-0, a-0, b-1, a-1, b-2]", S_RING,
     "ring: [b-0, a-0, b-1, a-1, b-2]\n", 0},
    {"simulate.steps", "20", S_SIM, "steps: 20", 0},
    {"simulate.seed", "7", S_SIM, "steps: 10, seed: 7", 0},
    {"simulate.overlap", "buckets", S_SIM, "steps: 10, overlap: buckets", 0},
    {"simulate.send", "eager", S_SIM, "steps: 10, send: eager", 0},
    {"simulate.streams", "3", S_SIM, "steps: 10, streams: 3", 0},
    {"simulate.stochastic", "true", S_SIM, "steps: 10, stochastic: true", 0},
    {"devices.x1.compute_scale", "2.5", S_DEVICES,
     "devices:\n"
     "  - {name: x0, type: a, addr: 10.0.0.1}\n"
     "  - {name: x1, type: b, addr: 10.0.0.2, compute_scale: 2.5}\n"
     "  - {name: x2, type: a, addr: 10.0.0.3}\n"
     "  - {name: x3, type: b, addr: 10.0.0.4}\n"
     "  - {name: x4, type: b, addr: 10.0.0.5}\n",
     1},
    {"devices.x3.extra_compute", "4ms", S_DEVICES,
     "devices:\n"
     "  - {name: x0, type: a, addr: 10.0.0.1}\n"
     "  - {name: x1, type: b, addr: 10.0.0.2}\n"
     "  - {name: x2, type: a, addr: 10.0.0.3}\n"
     "  - {name: x3, type: b, addr: 10.0.0.4, extra_compute: 4ms}\n"
     "  - {name: x4, type: b, addr: 10.0.0.5}\n",
     1},
    {"ring", "[x4, x3, x2, x1, x0]", S_RING, "ring: [x4, x3, x2, x1, x0]\n",
     1},
};

static hs_scenario_t *load_slots(const char *const slot[S_N])
{
    hs_scenario_t *s = NULL;
    hs_error_t e;
    char *text = render(slot);

    if (load(text, &s, &e) != HS_OK)
        fprintf(stderr, "\nload failed: %s\n%s\n", e.msg, text);
    free(text);
    return s;
}

static void test_set_matches_yaml(void)
{
    const char *slot[S_N];
    hs_scenario_t *base[2], *pristine[2];
    size_t i;
    int l;

    for (l = 0; l < 2; l++) {
        memcpy(slot, slot_default, sizeof slot);
        if (l)
            slot[S_DEVICES] = LISTED;
        base[l] = load_slots(slot);
        pristine[l] = load_slots(slot);
        CU_ASSERT_PTR_NOT_NULL_FATAL(base[l]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(pristine[l]);
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const set_case_t *k = &cases[i];
        hs_scenario_t *s = NULL, *want;
        hs_error_t e;

        memcpy(slot, slot_default, sizeof slot);
        if (k->listed)
            slot[S_DEVICES] = LISTED;
        slot[k->slot] = k->yaml;
        want = load_slots(slot);
        CU_ASSERT_PTR_NOT_NULL_FATAL(want);
        HS_ASSERT_I64_EQ(hs_scenario_clone(base[k->listed], &s, &e), HS_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        if (hs_scenario_set(s, k->key, k->value, &e) != HS_OK)
            fprintf(stderr, "\n%s = %s: %s\n", k->key, k->value, e.msg);
        if (hs_scenario_resolve(s, &e) != HS_OK)
            fprintf(stderr, "\nresolve after %s: %s\n", k->key, e.msg);
        CU_ASSERT_EQUAL(s->dirty, 0);
        same_scenario(s, want);
        hs_scenario_free(s);
        hs_scenario_free(want);
    }
    /* every set went to a clone: the bases are as loaded */
    for (l = 0; l < 2; l++) {
        same_scenario(base[l], pristine[l]);
        hs_scenario_free(base[l]);
        hs_scenario_free(pristine[l]);
    }
}

/* Several sets, one resolve; and the same set applied twice. */
static void test_several_sets(void)
{
    const char *slot[S_N];
    hs_scenario_t *s, *want;
    hs_error_t e;

    memcpy(slot, slot_default, sizeof slot);
    s = load_slots(slot);
    slot[S_ACOUNT] = "5";
    slot[S_BCOUNT] = "4";
    slot[S_RING] = "ring: interleave\n";
    slot[S_NET] = "default_bandwidth: 2Gbps, latency: 10us, "
                  "type_links: [[a, b, 8Gbps, 3us], [a, a, 4Gbps]]";
    want = load_slots(slot);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    HS_ASSERT_I64_EQ(hs_scenario_set(s, "device_types.a.count", "5", &e),
                     HS_OK);
    HS_ASSERT_I64_EQ(hs_scenario_set(s, "device_types.b.count", "4", &e),
                     HS_OK);
    HS_ASSERT_I64_EQ(hs_scenario_set(s, "ring", "interleave", &e), HS_OK);
    HS_ASSERT_I64_EQ(
        hs_scenario_set(s, "network.default_bandwidth", "2Gbps", &e), HS_OK);
    HS_ASSERT_I64_EQ(
        hs_scenario_set(s, "network.type_links.a.b", "[1Gbps]", &e), HS_OK);
    /* replaces the row above (either order) */
    HS_ASSERT_I64_EQ(
        hs_scenario_set(s, "network.type_links.b.a", "[8Gbps, 3us]", &e),
        HS_OK);
    HS_ASSERT_I64_EQ(
        hs_scenario_set(s, "network.type_links.a.a", "4Gbps", &e), HS_OK);
    CU_ASSERT_EQUAL(s->dirty, 1);
    HS_ASSERT_I64_EQ(hs_scenario_resolve(s, &e), HS_OK);
    same_scenario(s, want);
    HS_ASSERT_I64_EQ(s->links.n_types, 2);
    hs_scenario_free(s);
    hs_scenario_free(want);
}

/* ------------------------------------------------------------------ */
/* Errors                                                                */

static void expect_set_error(hs_scenario_t *s, const char *key,
                             const char *value, hs_err_t code,
                             const char *msg, int exact)
{
    hs_error_t e;
    hs_err_t rc = hs_scenario_set(s, key, value, &e);

    HS_ASSERT_I64_EQ(rc, code);
    if (exact) {
        if (strcmp(e.msg, msg) != 0)
            fprintf(stderr, "\nwant '%s'\ngot  '%s'\n", msg, e.msg);
        CU_ASSERT_STRING_EQUAL(e.msg, msg);
    } else {
        HS_ASSERT_STR_CONTAINS(e.msg, msg);
    }
}

static void test_set_errors(void)
{
    const char *slot[S_N];
    hs_scenario_t *s, *pristine, *listed;
    hs_error_t e;

    memcpy(slot, slot_default, sizeof slot);
    s = load_slots(slot);
    pristine = load_slots(slot);
    slot[S_DEVICES] = LISTED;
    listed = load_slots(slot);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pristine);
    CU_ASSERT_PTR_NOT_NULL_FATAL(listed);
    expect_set_error(s, "device_types.a.batch", "0", HS_ERR_SCHEMA,
                     "device_types.a.batch: '0' is not a count >= 1", 1);
    expect_set_error(s, "device_types.a.cnt", "3", HS_ERR_SCHEMA,
                     "device_types.a.cnt: unknown key; valid: count, batch, "
                     "shard, micro_batches, profile",
                     1);
    expect_set_error(s, "device_types.c.count", "3", HS_ERR_SCHEMA,
                     "device_types.c.count: unknown device type 'c' (types: "
                     "a, b)",
                     1);
    expect_set_error(s, "network.type_links.a.z", "1Gbps", HS_ERR_SCHEMA,
                     "unknown device type 'z' (types: a, b)", 0);
    expect_set_error(s, "network.default_bandwidth", "25", HS_ERR_UNIT,
                     "network.default_bandwidth: default_bandwidth: '25' is "
                     "not a positive bandwidth",
                     0);
    expect_set_error(s, "network.latency", "fast", HS_ERR_UNIT,
                     "network.latency: latency: 'fast' is not a duration",
                     0);
    expect_set_error(s, "device_types.a.profile.t_fwd", "10", HS_ERR_UNIT,
                     "device_types.a.profile.t_fwd: t_fwd: '10' is not a "
                     "duration",
                     0);
    expect_set_error(s, "device_types.a.profile.fwd_ops", "1ms",
                     HS_ERR_SCHEMA,
                     "device_types.a.profile.fwd_ops: unknown key; valid: "
                     "t_dl, t_fwd, t_b1, t_bwd, t_opt, allreduce_bytes, gradient_bytes, "
                     "comm_ns_per_byte, t_hop_wait, cpu_quota_cores, "
                     "t_cpu_period",
                     1);
    expect_set_error(s, "simulate.stepz", "3", HS_ERR_SCHEMA,
                     "simulate.stepz: unknown key; valid: steps, seed, "
                     "overlap, send, streams, stochastic; did you mean "
                     "'steps'?",
                     1);
    expect_set_error(s, "simulate.steps", "1", HS_ERR_SCHEMA,
                     "simulate.steps: '1' is not a count >= 2", 1);
    expect_set_error(s, "simulate.streams", "9", HS_ERR_RANGE,
                     "simulate.streams: '9' is more than 8", 1);
    expect_set_error(s, "simulate.overlap", "some", HS_ERR_SCHEMA,
                     "simulate.overlap: must be patent, buckets, none or "
                     "last_bucket", 1);
    expect_set_error(s, "job.dataset.sizes", "1GB", HS_ERR_SCHEMA,
                     "job.dataset.sizes: unknown key; valid: samples, size, "
                     "sample_bytes; did you mean 'size'?",
                     1);
    expect_set_error(s, "job.epoch", "1", HS_ERR_SCHEMA,
                     "job.epoch: unknown key; valid: epochs, dataset; did you "
                     "mean 'epochs'?", 1);
    expect_set_error(s, "netwrk.latency", "1us", HS_ERR_SCHEMA,
                     "netwrk.latency: unknown key; valid: device_types, job, "
                     "network, ring, simulate, devices, collective, nodes, "
                     "tree_chunks; "
                     "did you mean 'network'?",
                     1);
    expect_set_error(s, "ring", "circle", HS_ERR_SCHEMA,
                     "ring: ring must be listing, grouped, interleave or a "
                     "list of device names, not 'circle'",
                     1);
    expect_set_error(s, "devices.a-9.compute_scale", "2", HS_ERR_SCHEMA,
                     "devices.a-9.compute_scale: unknown device 'a-9'; did you "
                     "mean 'a-0'? (devices: a-0, a-1, b-0..b-2)", 1);
    expect_set_error(s, "devices.a-0.speed", "2", HS_ERR_SCHEMA,
                     "devices.a-0.speed: unknown key; valid: compute_scale, "
                     "extra_compute",
                     1);
    expect_set_error(s, "job.epochs", "", HS_ERR_SCHEMA,
                     "job.epochs: a value is needed", 1);
    expect_set_error(s, "job.epochs", "[1, 2", HS_ERR_SYNTAX,
                     "job.epochs: '[1, 2' is not a YAML value", 0);
    expect_set_error(listed, "device_types.a.count", "3", HS_ERR_SCHEMA,
                     "device_types.a.count: the scenario lists its devices",
                     0);
    /* failed sets changed nothing */
    CU_ASSERT_EQUAL(s->dirty, 0);
    same_scenario(s, pristine);
    /* a resolve that fails as the loader would */
    HS_ASSERT_I64_EQ(hs_scenario_set(s, "ring", "[a-0, a-1, b-0]", &e),
                     HS_OK);
    HS_ASSERT_I64_EQ(hs_scenario_resolve(s, &e), HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(e.msg, "t.yaml: ring leaves out device 'b-1'");
    CU_ASSERT_EQUAL(s->dirty, 1);
    HS_ASSERT_I64_EQ(hs_scenario_set(s, "ring", "listing", &e), HS_OK);
    HS_ASSERT_I64_EQ(hs_scenario_resolve(s, &e), HS_OK);
    same_scenario(s, pristine);
    hs_scenario_free(s);
    hs_scenario_free(pristine);
    hs_scenario_free(listed);
}

/* ------------------------------------------------------------------ */
/* Links, regeneration, clone, cost                                      */

static void test_link_queries(void)
{
    static const char yaml[] =
        "device_types:\n"
        "  - {name: a, count: 2, batch: 8,"
        " profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}}\n"
        "  - {name: b, count: 2, batch: 8,"
        " profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}}\n"
        "network:\n"
        "  default_bandwidth: 1Gbps\n"
        "  latency: 5us\n"
        "  links: [[a-0, b-1, 7Gbps, 1us], [b-1, a-0, 8Gbps],"
        " [a-1, a-0, 9Gbps]]\n"
        "  type_links: [[a, b, 3Gbps, 2us]]\n";
    static const char nodefault[] =
        "device_types:\n"
        "  - {name: a, count: 2, batch: 8,"
        " profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}}\n"
        "  - {name: b, count: 2, batch: 8,"
        " profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}}\n"
        "network:\n"
        "  links: [[a-0, a-1, 1Gbps], [a-1, b-0, 1Gbps], [b-0, b-1, 1Gbps],"
        " [b-1, a-0, 1Gbps]]\n";
    hs_scenario_t *s = NULL;
    hs_error_t e;
    double bw;
    int64_t lat;

    HS_ASSERT_I64_EQ(load(yaml, &s, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    /* a-0 = 0, a-1 = 1, b-0 = 2, b-1 = 3 */
    HS_ASSERT_I64_EQ(hs_scenario_link(s, 0, 3, &bw, &lat, &e), HS_OK);
    HS_ASSERT_DBL_NEAR(bw, 7e9 / 8, 1e-3);  /* exact direction */
    HS_ASSERT_I64_EQ(lat, 1000);
    HS_ASSERT_I64_EQ(hs_scenario_link(s, 3, 0, &bw, &lat, &e), HS_OK);
    HS_ASSERT_DBL_NEAR(bw, 8e9 / 8, 1e-3);  /* its own exact row */
    HS_ASSERT_I64_EQ(lat, 5000);            /* default latency */
    HS_ASSERT_I64_EQ(hs_scenario_link(s, 0, 1, &bw, &lat, &e), HS_OK);
    HS_ASSERT_DBL_NEAR(bw, 9e9 / 8, 1e-3);  /* the other direction's row */
    HS_ASSERT_I64_EQ(hs_scenario_link(s, 1, 2, &bw, &lat, &e), HS_OK);
    HS_ASSERT_DBL_NEAR(bw, 3e9 / 8, 1e-3);  /* type row */
    HS_ASSERT_I64_EQ(lat, 2000);
    HS_ASSERT_I64_EQ(hs_scenario_link(s, 2, 1, &bw, &lat, &e), HS_OK);
    HS_ASSERT_DBL_NEAR(bw, 3e9 / 8, 1e-3);  /* type row, either order */
    HS_ASSERT_I64_EQ(hs_scenario_link(s, 2, 3, &bw, &lat, &e), HS_OK);
    HS_ASSERT_DBL_NEAR(bw, 1e9 / 8, 1e-3);  /* default */
    HS_ASSERT_I64_EQ(lat, 5000);
    /* the ring edges agree with the queries */
    HS_ASSERT_I64_EQ(hs_scenario_link(s, s->ring[1], s->ring[2], &bw, &lat,
                                      &e),
                     HS_OK);
    HS_ASSERT_DBL_NEAR(bw, s->ring_bw_bytes_per_s[1], 0);
    HS_ASSERT_I64_EQ(lat, s->ring_lat_ns[1]);
    HS_ASSERT_I64_EQ(hs_scenario_link(s, 0, 4, &bw, &lat, &e), HS_ERR_RANGE);
    hs_scenario_free(s);
    /* no row and no default: an error naming both devices */
    HS_ASSERT_I64_EQ(load(nodefault, &s, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(hs_scenario_link(s, 0, 2, &bw, &lat, &e),
                     HS_ERR_NETWORK);
    HS_ASSERT_I64_EQ(hs_err_exit_code(e.code), 2);
    HS_ASSERT_STR_CONTAINS(e.msg, "link a-0 (a-0) -> b-0 (b-0)");
    hs_scenario_free(s);
}

static void test_resolve_regenerates(void)
{
    static const char yaml[] =
        "device_types:\n"
        "  - {name: a, count: 2, batch: 8,"
        " profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}}\n"
        "  - {name: b, count: 2, batch: 8,"
        " profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}}\n"
        "network: {default_bandwidth: 1Gbps}\n"
        "ring: grouped\n"
        "simulate: {stragglers: [{device: b-1, steps: 3, factor: 2}]}\n";
    hs_scenario_t *s = NULL, *c = NULL;
    hs_error_t e;
    size_t k;

    HS_ASSERT_I64_EQ(load(yaml, &s, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    HS_ASSERT_I64_EQ(s->stragglers[0].device, 3);
    HS_ASSERT_I64_EQ(hs_scenario_clone(s, &c, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    HS_ASSERT_I64_EQ(hs_scenario_set(s, "devices.a-1.compute_scale", "2",
                                     &e),
                     HS_OK);
    HS_ASSERT_I64_EQ(hs_scenario_set(s, "device_types.a.count", "4", &e),
                     HS_OK);
    HS_ASSERT_I64_EQ(hs_scenario_resolve(s, &e), HS_OK);
    HS_ASSERT_I64_EQ(s->n_devices, 6);
    CU_ASSERT_STRING_EQUAL(s->devices[3].name, "a-3");
    CU_ASSERT_STRING_EQUAL(s->devices[5].name, "b-1");
    CU_ASSERT_STRING_EQUAL(s->devices[5].addr, "b-1");
    HS_ASSERT_I64_EQ(s->stragglers[0].device, 5);
    HS_ASSERT_DBL_NEAR(s->devices[1].compute_scale, 2.0, 0);
    HS_ASSERT_DBL_NEAR(s->devices[0].compute_scale, 1.0, 0);
    for (k = 0; k < s->n_devices; k++) {
        HS_ASSERT_I64_EQ(s->ring[k], k);   /* grouped: a then b */
        HS_ASSERT_I64_EQ(s->devices[s->ring[k]].ring_pos, k);
        HS_ASSERT_DBL_NEAR(s->ring_bw_bytes_per_s[k], 125e6, 1e-3);
    }
    /* the clone kept the old cluster */
    HS_ASSERT_I64_EQ(c->n_devices, 4);
    CU_ASSERT_STRING_EQUAL(c->devices[3].name, "b-1");
    HS_ASSERT_I64_EQ(c->stragglers[0].device, 3);
    HS_ASSERT_DBL_NEAR(c->devices[1].compute_scale, 1.0, 0);
    /* a count that drops the straggler's device fails on resolve */
    HS_ASSERT_I64_EQ(hs_scenario_set(c, "device_types.b.count", "1", &e),
                     HS_OK);
    HS_ASSERT_I64_EQ(hs_scenario_resolve(c, &e), HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(e.msg, "straggler names unknown device 'b-1'");
    hs_scenario_free(s);
    hs_scenario_free(c);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void test_resolve_cost(void)
{
    static const char yaml[] =
        "device_types:\n"
        "  - {name: gpu, count: 5000, batch: 8,"
        " profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}}\n"
        "  - {name: cpu, count: 5000, batch: 8,"
        " profile: {t_fwd: 10ms, t_b1: 1ms, allreduce_bytes: 4MB}}\n"
        "network: {default_bandwidth: 10Gbps,"
        " type_links: [[gpu, cpu, 1Gbps]]}\n"
        "ring: interleave\n";
    hs_scenario_t *s = NULL;
    hs_error_t e;
    double t0, dt, best = 1e9, all[200], tmp;
    int i, j, ok = 1;

    HS_ASSERT_I64_EQ(load(yaml, &s, &e), HS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    for (i = 0; i < 200; i++) {
        ok &= hs_scenario_set(s, "device_types.gpu.count",
                              i % 2 ? "5000" : "5001", &e) == HS_OK;
        t0 = now_s();
        ok &= hs_scenario_resolve(s, &e) == HS_OK;
        dt = now_s() - t0;
        all[i] = dt;
        if (dt < best)
            best = dt;
    }
    for (i = 1; i < 200; i++) /* insertion sort, for the median */
        for (j = i; j > 0 && all[j - 1] > all[j]; j--) {
            tmp = all[j];
            all[j] = all[j - 1];
            all[j - 1] = tmp;
        }
    CU_ASSERT_TRUE(ok);
    HS_ASSERT_I64_EQ(s->n_devices, 10000);
    printf("\n  resolve of 10,000 generated devices (interleave ring, type "
           "rows): best %.1f us, median %.1f us of 200\n",
           best * 1e6, all[100] * 1e6);
#ifdef __SANITIZE_ADDRESS__
    CU_ASSERT_TRUE(best < 20e-3); /* instrumented: a sanity bound only */
#else
    CU_ASSERT_TRUE(best < 1e-3);
#endif
    hs_scenario_free(s);
}

/* ------------------------------------------------------------------ */
/* The profile format both ways                                          */

static const char full_profile[] =
    "# hetsim profile\n"
    "type: A100\n"
    "source: \"ingested from r0.json (ranks 0,1)\"\n"
    "subsystem_size: 4\n"
    "steps_kept: 30\n"
    "t_dl: unknown\n"
    "t_fwd: {mean: 12ms, sd: 1ms, samples: [11ms, 12ms, 13ms]}\n"
    "t_b1: 1500us\n"
    "t_bwd: {mean: 25ms, sd: 2ms}\n"
    "t_opt: 2ms\n"
    "fwd_ops:\n"
    "  - {name: \"aten::linear\", time: 7ms}\n"
    "  - {time: 5ms}\n"
    "allreduce_bytes: 102228128B\n"
    "allreduce_source: shapes\n"
    "comm_ns_per_byte: 0.25\n"
    "buckets:\n"
    "  - {bytes: 26214400B, ready: 3ms}\n"
    "  - {bytes: 25000000B, ready: 9ms}\n";

static void test_profile_roundtrip(void)
{
    const char *dir = hs_test_tmpdir("profile_rt");
    char in[512], out[512], ref[512];
    hs_profile_t p, q, c;
    hs_profile_info_t info = {"A100", NULL};
    hs_error_t e;
    char *mine, *theirs;

    snprintf(in, sizeof in, "%s/in.yaml", dir);
    snprintf(out, sizeof out, "%s/out.yaml", dir);
    snprintf(ref, sizeof ref, "%s/ref.yaml", dir);
    CU_ASSERT_EQUAL_FATAL(hs_test_write(in, full_profile), 0);
    HS_ASSERT_I64_EQ(hs_profile_load(in, &p, &e), HS_OK);
    HS_ASSERT_I64_EQ(p.t_fwd.n_samples, 3);
    HS_ASSERT_I64_EQ(p.n_buckets, 2);
    HS_ASSERT_I64_EQ(hs_profile_write(&p, out, &info, &e), HS_OK);
    HS_ASSERT_I64_EQ(hs_profile_load(out, &q, &e), HS_OK);
    ic_same_profile(&p, &q);
    /* a deep copy is the same profile, and independent */
    CU_ASSERT_EQUAL(hs_profile_copy(&c, &p), 0);
    ic_same_profile(&c, &p);
    CU_ASSERT_PTR_NOT_EQUAL(c.t_fwd.samples_ns, p.t_fwd.samples_ns);
    hs_profile_clear(&c);
    /* the same bytes as the ingestion's writer wrote before the profile
       module owned the format (tests/data/profile: its output, kept) */
    snprintf(ref, sizeof ref, "%s/tests/data/profile/full-A100.expected.yaml",
             HS_TEST_SRC);
    mine = hs_test_slurp(out);
    theirs = hs_test_slurp(ref);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mine);
    CU_ASSERT_PTR_NOT_NULL_FATAL(theirs);
    if (strcmp(mine, theirs) != 0)
        fprintf(stderr, "\nmine:\n%s\ntheirs:\n%s\n", mine, theirs);
    CU_ASSERT_STRING_EQUAL(mine, theirs);
    free(mine);
    free(theirs);
    /* without a type line and with a comment */
    info.type = NULL;
    info.comment = "hand-made";
    HS_ASSERT_I64_EQ(hs_profile_write(&q, out, &info, &e), HS_OK);
    mine = hs_test_slurp(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mine);
    CU_ASSERT_EQUAL(strncmp(mine, "# hand-made\n", 12), 0);
    CU_ASSERT_PTR_NULL(strstr(mine, "type:"));
    free(mine);
    hs_profile_clear(&q);
    HS_ASSERT_I64_EQ(hs_profile_load(out, &q, &e), HS_OK);
    ic_same_profile(&p, &q);
    hs_profile_clear(&p);
    hs_profile_clear(&q);
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("scenario as data", NULL, NULL);

    CU_add_test(s, "every set matches the equivalent YAML",
                test_set_matches_yaml);
    CU_add_test(s, "several sets, one resolve", test_several_sets);
    CU_add_test(s, "set errors: key_path: what is wrong", test_set_errors);
    CU_add_test(s, "links for any pair", test_link_queries);
    CU_add_test(s, "resolve regenerates devices and ring; clone",
                test_resolve_regenerates);
    CU_add_test(s, "resolve of 10,000 devices is cheap", test_resolve_cost);
    s = CU_add_suite("profile format", NULL, NULL);
    CU_add_test(s, "load, write, load: the same profile",
                test_profile_roundtrip);
    return 0;
}

HS_TEST_MAIN(reg)
