/*
 * hs_buckets.c -- the gradient-bucket layout (hs_buckets.h).
 */
#include "hs_buckets.h"

#include <math.h>
#include <stdarg.h>

#include "hs_notes.h"

/* A note for the caller's list, when it keeps one (out of memory drops
   it). */
#define hs__note(...)                                                    \
    ((void)(notes != NULL ? hs_notes_add_to(notes, n_notes, __VA_ARGS__) \
                          : 0))

int hs_bucket_empty(const hs_scenario_t *s, const hs_profile_t *ref)
{
    size_t t, b;

    for (t = 0; t < s->n_types; t++) {
        const hs_profile_t *p = &s->types[t].profile;
        const hs_profile_t *src = p->n_buckets > 0 ? p : ref;
        double sum = 0;

        for (b = 0; b < src->n_buckets; b++)
            sum += (double)src->buckets[b].bytes;
        if (sum <= 0)
            return 1;
    }
    return 0;
}

hs_err_t hs_bucket_layout(const hs_scenario_t *s, const hs_profile_t *ref,
                          size_t nb, double *ready, double *bytes,
                          char ***notes, size_t *n_notes, hs_error_t *err)
{
    size_t t, b, ref_t = 0;

    while (&s->types[ref_t].profile != ref)
        ref_t++;
    for (t = 0; t < s->n_types; t++) {
        const hs_profile_t *p = &s->types[t].profile, *src = p;
        double M = hs_profile_payload_bytes(p), sum = 0, prev_ready = 0;
        double ratio = 1.0;
        int fixed = 0;

        if (p->n_buckets == 0) {
            /* the same model has the same buckets: borrow the layout,
               ready times stretched by the ratio of backward times
               (forward times where a backward is unknown) */
            src = ref;
            if (p->t_bwd.known && ref->t_bwd.known && ref->t_bwd.mean_ns > 0)
                ratio = (double)p->t_bwd.mean_ns /
                        (double)ref->t_bwd.mean_ns;
            else if (p->t_fwd.known && ref->t_fwd.known &&
                     ref->t_fwd.mean_ns > 0)
                ratio = (double)p->t_fwd.mean_ns /
                        (double)ref->t_fwd.mean_ns;
            hs__note("type '%s' lists no gradient buckets: it uses "
                          "type '%s''s bucket sizes, ready times x %.4g "
                          "(the ratio of their %s times)",
                     s->types[t].name, s->types[ref_t].name, ratio,
                     p->t_bwd.known && ref->t_bwd.known ? "backward"
                                                         : "forward");
        }
        for (b = 0; b < nb; b++)
            sum += (double)src->buckets[b].bytes;
        if (sum <= 0)
            return hs_error_setf(err, HS_ERR_RANGE,
                                 "type '%s': its gradient buckets hold 0 "
                                 "bytes", s->types[t].name);
        if (src == p && fabs(sum - M) >= 0.5)
            hs__note("type '%s': bucket sizes sum to %.0f B, not the "
                          "payload M = %.0f B; each scaled by M/sum",
                     s->types[t].name, sum, M);
        for (b = 0; b < nb; b++) {
            double rd = (double)src->buckets[b].ready_ns * ratio;
            if (rd < prev_ready) {
                rd = prev_ready;
                fixed = 1;
            }
            prev_ready = rd;
            ready[t * nb + b] = rd;
            bytes[t * nb + b] = (double)src->buckets[b].bytes * M / sum;
        }
        if (fixed && src == p)
            hs__note("type '%s': bucket ready times made "
                          "non-decreasing (buckets are all-reduced in order)",
                     s->types[t].name);
    }
    return HS_OK;
}

void hs_bucket_gather(size_t n_types, size_t nb, double *ready,
                      double *bytes)
{
    size_t t, b;

    /* in place: entry t is written after entries t nb .. t nb + nb - 1
       are read, and t <= t nb, so no entry is overwritten unread */
    for (t = 0; t < n_types; t++) {
        double last = 0, sum = 0;

        for (b = 0; b < nb; b++) {
            if (ready[t * nb + b] > last)
                last = ready[t * nb + b];
            sum += bytes[t * nb + b];
        }
        ready[t] = last;
        bytes[t] = sum;
    }
}

const hs_profile_t *hs_bucket_ref(const hs_scenario_t *s, size_t *ref_t,
                                  size_t *odd_t)
{
    const hs_profile_t *ref = NULL;
    size_t t;

    *ref_t = s->n_types;
    *odd_t = s->n_types;
    for (t = 0; t < s->n_types && ref == NULL; t++) {
        if (s->types[t].profile.n_buckets > 0) {
            ref = &s->types[t].profile;
            *ref_t = t;
        }
    }
    for (t = 0; ref != NULL && t < s->n_types; t++) {
        size_t k = s->types[t].profile.n_buckets;
        if (k != 0 && k != ref->n_buckets) {
            *odd_t = t;
            break;
        }
    }
    return ref;
}
