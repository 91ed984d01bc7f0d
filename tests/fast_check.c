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
    if (!p->supports(s, &o, why, sizeof why)) {
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
