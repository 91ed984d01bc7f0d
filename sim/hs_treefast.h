/*
 * hs_treefast.h -- the exact replay of a deterministic double binary tree
 * all-reduce (model/hs_coll_tree_shape.h) without an event queue: a
 * max-plus recursion over its rounds, as hs_hierfast.h is for the
 * hierarchical all-reduce and hs_ringfast.h for the ring.
 *
 * For the cases it supports (hs_treefast_supports), hs_treefast_run fills
 * the same hs_replay_result_t figures as hs_replay_run with the event
 * engine, equal to the nanosecond: per-device mean steps, the cluster's
 * step per step, the steady step, epoch and total, the spread, the
 * closed-form figures, the number of events the engine would have
 * dispatched and the time of the last.  It writes no trace and has no
 * queue (queue_high_water 0; state_bytes its own arrays).  See the essay
 * at the top of hs_treefast.c.
 */
#ifndef HS_TREEFAST_H
#define HS_TREEFAST_H

#include <stddef.h>
#include <stdint.h>

#include "hs_collective.h"
#include "hs_error.h"
#include "hs_replay.h"
#include "hs_scenario.h"

/*
 * 1 when hs_treefast_run replays s under *o exactly (as hs_replay_run
 * would on the event engine), else 0 with the reason in why (a sentence,
 * truncated to why_len; why may be NULL).  coll: the collective that runs,
 * resolved by the caller (hs_replay_collective: o->collective, `auto`'s
 * pick).  Supported: the tree collective
 * (o->collective "tree", or "auto" where it picks the tree) on a scenario
 * with nodes, deterministic runs, overlap patent or none, send rendezvous
 * or eager (the tree's chunks are always eager), stragglers, compute
 * scales, extra compute, t_dl-bound steps, the optimizer.  Not:
 * stochastic runs, gradient buckets (overlap buckets, last_bucket), the
 * communication's own cost (comm_ns_per_byte) or a hop wait (t_hop_wait):
 * their order of equal-time events is the engine's.
 */
int hs_treefast_supports(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         const hs_collective_t *coll, char *why,
                         size_t why_len);

/*
 * Replays o->steps steps of s under *o with the max-plus recursion and
 * stores a new result in *out (free with hs_replay_result_free).  Fails
 * with HS_ERR_RANGE when hs_treefast_supports says no (its reason in err)
 * or a device's rounds never end, HS_ERR_NOMEM, or what
 * hs_closed_predict_with returns (the tree's check among it).  Memory
 * O(N R + steps) (hs_coll_tree_sched_state_bytes); time O(steps * N * R),
 * R = 8P + 1 rounds, nothing allocated per step.
 */
hs_err_t hs_treefast_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         hs_replay_result_t **out, hs_error_t *err);

#endif
