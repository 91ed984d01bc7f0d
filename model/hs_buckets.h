/*
 * hs_buckets.h -- the gradient-bucket layout of the overlap modes buckets
 * and last_bucket (docs/method.md "Overlap and send modes"), shared by the
 * closed form (hs_closed.c), the event replay (sim/hs_replay_setup.c) and
 * its max-plus fast path (sim/hs_ringfast.c), so that all of them open the
 * same rings at the same times.
 */
#ifndef HS_BUCKETS_H
#define HS_BUCKETS_H

#include <stddef.h>

#include "hs_error.h"
#include "hs_scenario.h"

/*
 * The layout's reference: the profile of the first type of s that lists
 * gradient buckets (its index in *ref_t), or NULL when none does (*ref_t
 * is then s->n_types).  *odd_t is the first type whose profile lists a
 * non-zero number of buckets other than the reference's (s->n_types when
 * every type agrees).  The pointer borrows from s.
 */
const hs_profile_t *hs_bucket_ref(const hs_scenario_t *s, size_t *ref_t,
                                  size_t *odd_t);

/*
 * 1 when some type's buckets (its own, or ref's where it lists none) hold
 * no bytes: the replay refuses that layout (hs_bucket_layout fails on it);
 * else 0.  ref as hs_bucket_ref returns it, not NULL.
 */
int hs_bucket_empty(const hs_scenario_t *s, const hs_profile_t *ref);

/*
 * Per type t and bucket b (nb of them, ref the reference above), the ready
 * time from the backward's start (unscaled by compute; made
 * non-decreasing) into ready[t nb + b] and the bytes (scaled to the type's
 * payload M) into bytes[t nb + b]; a type without buckets borrows ref's,
 * ready times stretched by the ratio of backward (else forward) times.
 * The remarks it makes go to the notes list (*notes, *n_notes) through
 * hs_notes_add_to (notes NULL: none are kept; out of memory drops one).
 * HS_ERR_RANGE when a type's buckets hold 0 bytes.  No allocation but the
 * notes'.
 */
hs_err_t hs_bucket_layout(const hs_scenario_t *s, const hs_profile_t *ref,
                          size_t nb, double *ready, double *bytes,
                          char ***notes, size_t *n_notes, hs_error_t *err);

/*
 * last_bucket mode: gathers a layout of nb buckets per type (as
 * hs_bucket_layout fills it) into one bucket per type, in place: ready[t]
 * becomes the type's last ready time, bytes[t] the sum of its buckets (its
 * payload M).  The first n_types entries of each array then hold the
 * layout; the rest is stale.  No allocation.
 */
void hs_bucket_gather(size_t n_types, size_t nb, double *ready,
                      double *bytes);

#endif
