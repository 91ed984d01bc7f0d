/*
 * fast_check.c -- what the exact fast paths' tests (test_ringfast.c,
 * test_hierfast.c, test_treefast.c) share: the field-by-field comparison
 * of a fast path's result with the event engine's, the run of both on the
 * shipped scenarios with nodes, and the random generator and text buffer
 * the random scenarios are written with.
 */
#include "fast_check.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hs_scenario.h"
#include "hs_test.h"

int fc_same_results(const hs_replay_result_t *a, const hs_replay_result_t *b,
                    const char *what, unsigned flags)
{
    size_t i;
    int bad = 0;

#define HS__CMP(f)                                                        \
    do {                                                                  \
        if (!bad && (int64_t)(a->f) != (int64_t)(b->f)) {                 \
            fprintf(stderr, "\n%s: %s: replay %lld, fast %lld\n", what,   \
                    #f, (long long)(a->f), (long long)(b->f));            \
            bad = 1;                                                      \
        }                                                                 \
    } while (0)
    HS__CMP(n_devices);
    HS__CMP(steps);
    HS__CMP(n_types);
    HS__CMP(overlap);
    HS__CMP(send);
    HS__CMP(n_buckets);
    HS__CMP(streams);
    HS__CMP(n_notes);
    if (bad)
        return 0;
    for (i = 0; i < a->n_devices; i++) {
        HS__CMP(dev_step_ns[i]);
        HS__CMP(dev_closed_ns[i]);
        HS__CMP(dev_closed_ext_ns[i]);
    }
    for (i = 0; i < a->n_types; i++) {
        HS__CMP(type_step_ns[i]);
        HS__CMP(type_closed_ns[i]);
        HS__CMP(type_closed_ext_ns[i]);
    }
    for (i = 0; i < a->steps; i++)
        HS__CMP(cluster_step_ns[i]);
    HS__CMP(step_ns);
    HS__CMP(first_step_ns);
    HS__CMP(closed_step_ns);
    HS__CMP(closed_ext_step_ns);
    if (flags & FC_EPOCHS) {
        HS__CMP(iters_per_epoch);
        HS__CMP(epochs);
    }
    HS__CMP(epoch_ns);
    HS__CMP(total_ns);
    HS__CMP(step_mean_ns);
    HS__CMP(step_sd_ns);
    HS__CMP(step_p50_ns);
    HS__CMP(step_p95_ns);
    HS__CMP(epoch_lo_ns);
    HS__CMP(epoch_hi_ns);
    HS__CMP(total_lo_ns);
    HS__CMP(total_hi_ns);
    HS__CMP(n_events);
    HS__CMP(end_ns);
#undef HS__CMP
    for (i = 0; !bad && i < a->n_notes; i++) {
        if (strcmp(a->notes[i], b->notes[i]) != 0) {
            fprintf(stderr, "\n%s: note %zu: replay \"%s\", fast \"%s\"\n",
                    what, i, a->notes[i], b->notes[i]);
            bad = 1;
        }
    }
    if ((flags & FC_COLLECTIVE) && !bad &&
        strcmp(a->collective, b->collective) != 0)
        bad = 1;
    return !bad;
}

int fc_compare(hs_scenario_t *s, const char *what, const fc_path_t *p)
{
    hs_replay_opts_t o, eo;
    hs_replay_result_t *ref = NULL, *fast = NULL, *auto_r = NULL;
    hs_error_t err;
    char why[200];
    int ok;

    hs_replay_opts_from_scenario(s, &o);
    o.collective = p->collective;
    if (!p->supports(s, &o, hs_replay_collective(s, &o), why, sizeof why)) {
        fprintf(stderr, "\n%s: declined: %s\n", what, why);
        CU_FAIL("the fast path declined");
        return 0;
    }
    eo = o;
    eo.engine = 1;
    if (hs_replay_run(s, &eo, NULL, 0, &ref, &err) != HS_OK) {
        fprintf(stderr, "\n%s: replay: %s\n", what, err.msg);
        CU_FAIL("replay failed");
        return 0;
    }
    CU_ASSERT_FALSE(ref->fast_path);
    if (p->run(s, &o, &fast, &err) != HS_OK) {
        fprintf(stderr, "\n%s: fast: %s\n", what, err.msg);
        CU_FAIL("fast replay failed");
        hs_replay_result_free(ref);
        return 0;
    }
    ok = fc_same_results(ref, fast, what, FC_COLLECTIVE);
    CU_ASSERT_TRUE(ok);
    /* hs_replay_run takes the fast path by itself */
    CU_ASSERT_EQUAL(hs_replay_run(s, &o, NULL, 0, &auto_r, &err), HS_OK);
    if (auto_r != NULL) {
        CU_ASSERT_TRUE(auto_r->fast_path);
        CU_ASSERT_TRUE(fc_same_results(ref, auto_r, what,
                                        FC_COLLECTIVE));
    }
    (*p->n_compared)++;
    hs_replay_result_free(ref);
    hs_replay_result_free(fast);
    hs_replay_result_free(auto_r);
    return ok;
}

int fc_compare_modes(hs_scenario_t *s, const char *name, const fc_path_t *p)
{
    static const hs_overlap_t ov[2] = {HS_OVERLAP_PATENT, HS_OVERLAP_NONE};
    static const hs_send_t sd[2] = {HS_SEND_RENDEZVOUS, HS_SEND_EAGER};
    char what[600];
    int i, j, ok = 1;

    for (i = 0; i < 2; i++) {
        for (j = 0; j < 2; j++) {
            s->overlap = ov[i];
            s->send = sd[j];
            snprintf(what, sizeof what, "%s (%s, %s)", name,
                     hs_overlap_name(ov[i]), hs_send_name(sd[j]));
            ok &= fc_compare(s, what, p);
        }
    }
    return ok;
}

void fc_test_shipped(const fc_path_t *p)
{
    DIR *d = opendir(HS_TEST_SRC "/scenarios");
    struct dirent *de;
    int n = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    while ((de = readdir(d)) != NULL) {
        char path[1024];
        size_t len = strlen(de->d_name);
        hs_scenario_t *s = NULL;
        hs_error_t err;
        if (len < 6 || strcmp(de->d_name + len - 5, ".yaml") != 0)
            continue;
        snprintf(path, sizeof path, "%s/scenarios/%s", HS_TEST_SRC,
                 de->d_name);
        if (hs_scenario_load(path, &s, &err) != HS_OK)
            continue;
        if (s->nodes != NULL &&
            hs_scenario_require_profiles(s, &err) == HS_OK &&
            hs_scenario_set(s, "collective", p->collective, &err) ==
                HS_OK &&
            hs_scenario_resolve(s, &err) == HS_OK) {
            s->stochastic = 0;
            fc_compare_modes(s, path, p);
            n++;
        }
        hs_scenario_free(s);
    }
    closedir(d);
    printf("(%d shipped scenarios with nodes) ", n);
    CU_ASSERT_TRUE(n >= 4);
}

uint64_t fc_rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

uint64_t fc_rnd(uint64_t *s, uint64_t lo, uint64_t hi)
{
    return lo + fc_rng_next(s) % (hi - lo + 1);
}

void fc_put(fc_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    int k;

    for (;;) {
        va_start(ap, fmt);
        k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < b->cap - b->n)
            break;
        b->cap = b->cap * 2 + (size_t)k + 64;
        b->p = realloc(b->p, b->cap);
    }
    b->n += (size_t)k;
}

/* ---- random clusters of nodes ---- */

/* The device types' profiles.  Times are odd numbers of ns so that ties
   come from the structure, not from round figures. */
static void random_types(uint64_t *r, fc_buf_t *b, unsigned nt)
{
    int dl_bound = fc_rnd(r, 0, 3) == 0;
    unsigned t;

    fc_put(b, "name: random\njob: {model: x, dataset: {samples: %u}, "
           "epochs: %u}\ndevice_types:\n",
        (unsigned)fc_rnd(r, 100, 100000), (unsigned)fc_rnd(r, 1, 5));
    for (t = 0; t < nt; t++) {
        fc_put(b, "  - name: t%u\n    batch: %u\n"
               "    profile:\n      subsystem_size: %u\n",
            t, (unsigned)fc_rnd(r, 1, 64), (unsigned)fc_rnd(r, 2, 4));
        if (fc_rnd(r, 0, 5) == 0)
            fc_put(b, "      t_dl: unknown\n");
        else
            fc_put(b, "      t_dl: %lluns\n",
                (unsigned long long)(dl_bound ? fc_rnd(r, 1000000, 90000000)
                                              : fc_rnd(r, 0, 3000000)));
        fc_put(b, "      t_fwd: %lluns\n      t_b1: %lluns\n",
            (unsigned long long)fc_rnd(r, 0, 5000000),
            (unsigned long long)fc_rnd(r, 0, 500000));
        if (fc_rnd(r, 0, 3) != 0)
            fc_put(b, "      t_bwd: %lluns\n",
                (unsigned long long)fc_rnd(r, 0, 12000000));
        if (fc_rnd(r, 0, 2) != 0)
            fc_put(b, "      t_opt: %lluns\n",
                (unsigned long long)fc_rnd(r, 0, 2000000));
        fc_put(b, "      allreduce_bytes: %lluB\n",
            (unsigned long long)fc_rnd(r, 1000, 400000000));
    }
}

/* A random cluster of nodes as YAML: equal sizes when `equal`. */
static char *random_yaml(const fc_path_t *p, uint64_t *r, int equal)
{
    fc_buf_t b = {malloc(4096), 0, 4096};
    unsigned nt = (unsigned)fc_rnd(r, 1, 3), nk = nt + (unsigned)fc_rnd(r, 0, 2);
    unsigned k, i, L0 = (unsigned)fc_rnd(r, 1, 6), total = 0, first[8];

    random_types(r, &b, nt);
    fc_put(&b, "nodes:\n  kinds:\n");
    for (k = 0; k < nk; k++) {
        unsigned dev = equal ? L0 : (unsigned)fc_rnd(r, 1, 6);
        unsigned cnt = (unsigned)fc_rnd(r, 1, 3);
        if (k == 0 && dev * cnt < 2)
            cnt = 2;
        first[k] = total;
        total += dev * cnt;
        fc_put(&b, "    - {name: k%u, type: t%u, devices: %u, count: %u,\n"
                "       intra_bandwidth: %lluB/s, intra_latency: %lluns",
            k, k % nt, dev, cnt,
            (unsigned long long)fc_rnd(r, 1000000000, 200000000000ULL),
            (unsigned long long)fc_rnd(r, 0, 9000));
        if (fc_rnd(r, 0, 1))
            fc_put(&b, ",\n       nics: %u, nic_bandwidth: %lluB/s",
                (unsigned)fc_rnd(r, 1, 2),
                (unsigned long long)fc_rnd(r, 100000000, 20000000000ULL));
        fc_put(&b, "}\n");
    }
    fc_put(&b, "  inter_bandwidth: %lluB/s\n  inter_latency: %lluns\n",
        (unsigned long long)fc_rnd(r, 100000000, 40000000000ULL),
        (unsigned long long)fc_rnd(r, 0, 50000));
    if (nk > 1 && fc_rnd(r, 0, 1))
        fc_put(&b, "  kind_links: [[k0, k%u, %lluB/s, %lluns]]\n",
            (unsigned)fc_rnd(r, 1, nk - 1),
            (unsigned long long)fc_rnd(r, 100000000, 40000000000ULL),
            (unsigned long long)fc_rnd(r, 0, 90000));
    fc_put(&b, "collective: %s\n", p->collective);
    if (p->tree_chunks && fc_rnd(r, 0, 1))
        fc_put(&b, "tree_chunks: %u\n", (unsigned)fc_rnd(r, 1, 12));
    fc_put(&b, "simulate:\n  steps: %u\n", (unsigned)fc_rnd(r, 2, 6));
    if (fc_rnd(r, 0, 1)) {
        unsigned ns = (unsigned)fc_rnd(r, 1, 3);
        fc_put(&b, "  stragglers:\n");
        for (i = 0; i < ns; i++) {
            unsigned f = (unsigned)fc_rnd(r, 0, 4);
            k = (unsigned)fc_rnd(r, 0, nk - 1);
            fc_put(&b, "    - {device: k%u-0-0, steps: [%u, %u], factor: %.3f, "
                    "extra: %lluns}\n",
                k, f, f + (unsigned)fc_rnd(r, 0, 3),
                (double)fc_rnd(r, 500, 5000) / 1000.0,
                (unsigned long long)fc_rnd(r, 0, 20000000));
        }
    }
    (void)first;
    return b.p;
}

/* Per device at random: a compute scale, extra compute. */
static void random_devices(uint64_t *r, hs_scenario_t *s)
{
    size_t x;
    hs_error_t err;

    for (x = 0; x < s->n_devices; x++) {
        char key[96], val[32];
        if (fc_rnd(r, 0, 2) == 0) {
            snprintf(key, sizeof key, "devices.%s.compute_scale",
                     s->devices[x].name);
            snprintf(val, sizeof val, "%.4f",
                     (double)fc_rnd(r, 2000, 40000) / 10000.0);
            CU_ASSERT_EQUAL(hs_scenario_set(s, key, val, &err), HS_OK);
        }
        if (fc_rnd(r, 0, 3) == 0) {
            snprintf(key, sizeof key, "devices.%s.extra_compute",
                     s->devices[x].name);
            snprintf(val, sizeof val, "%lluns",
                     (unsigned long long)fc_rnd(r, 0, 9000000));
            CU_ASSERT_EQUAL(hs_scenario_set(s, key, val, &err), HS_OK);
        }
    }
    CU_ASSERT_EQUAL(hs_scenario_resolve(s, &err), HS_OK);
}

void fc_random_clusters(const fc_path_t *p, uint64_t seed, int count,
                        int equal)
{
    uint64_t r = seed;
    int i, bad = 0, before = *p->n_compared;

    for (i = 0; i < count; i++) {
        char *y = random_yaml(p, &r, equal), what[64];
        hs_scenario_t *s = NULL;
        hs_error_t err;
        if (hs_scenario_load_text(y, strlen(y), "random", NULL, &s, &err) !=
            HS_OK) {
            fprintf(stderr, "\nrandom cluster %d: %s\n%s\n", i, err.msg, y);
            CU_FAIL("random scenario did not load");
            free(y);
            continue;
        }
        random_devices(&r, s);
        snprintf(what, sizeof what, "random cluster %d (seed %llu)", i,
                 (unsigned long long)seed);
        if (!fc_compare_modes(s, what, p) && bad++ < 2)
            fprintf(stderr, "%s\n", y);
        hs_scenario_free(s);
        free(y);
    }
    printf("(%d runs) ", *p->n_compared - before);
    CU_ASSERT_EQUAL(*p->n_compared - before, 4 * count);
}
