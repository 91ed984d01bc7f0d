/*
 * hs_hierfast.h -- the exact replay of a deterministic hierarchical
 * all-reduce (model/hs_coll_hier_shape.c) without an event queue: a
 * max-plus recurrence over its rounds, as hs_ringfast.h is for the ring.
 *
 * For the cases it supports (hs_hierfast_supports), hs_hierfast_run fills
 * the same hs_replay_result_t figures as hs_replay_run with the event
 * engine, equal to the nanosecond: per-device mean steps, the cluster's
 * step per step, the steady step, epoch and total, the spread, the
 * closed-form figures and the number of events the engine would have
 * dispatched.  It writes no trace and has no queue (queue_high_water 0).
 * See the essay at the top of hs_hierfast.c.
 */
#ifndef HS_HIERFAST_H
#define HS_HIERFAST_H

#include <stddef.h>
#include <stdint.h>

#include "hs_collective.h"
#include "hs_error.h"
#include "hs_replay.h"
#include "hs_scenario.h"

/*
 * 1 when hs_hierfast_run replays s under *o exactly (as hs_replay_run
 * would on the event engine), else 0 with the reason in why (a sentence,
 * truncated to why_len; why may be NULL).  coll: the collective that
 * runs, resolved by the caller (hs_replay_collective).  Supported: the
 * hierarchical
 * collective on a scenario with nodes, deterministic runs, overlap patent
 * or none, send rendezvous or eager, stragglers, compute scales, extra
 * compute, t_dl-bound steps, the optimizer.  Not: stochastic runs,
 * gradient buckets (overlap buckets, last_bucket), the communication's
 * own cost (comm_ns_per_byte) or a hop wait (t_hop_wait): their order of
 * equal-time events is the engine's.
 */
int hs_hierfast_supports(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         const hs_collective_t *coll, char *why,
                         size_t why_len);

/*
 * Replays o->steps steps of s under *o with the max-plus recurrence and
 * stores a new result in *out (free with hs_replay_result_free).  Fails
 * with HS_ERR_RANGE when hs_hierfast_supports says no (its reason in err),
 * HS_ERR_NOMEM, or what hs_closed_predict_with returns.  Memory O(N +
 * steps); time O(steps * N * R) adds and maxes, R = 2(L_max-1) + 2(K-1)
 * rounds, nothing allocated per round.  With nodes of one size the rounds
 * across nodes find their peers by arithmetic, in a loop the compiler can
 * vectorise.
 */
hs_err_t hs_hierfast_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         hs_replay_result_t **out, hs_error_t *err);

/*
 * hs_hierfast_run with every round through the general round-by-round
 * loop (peers from tables, any node sizes): the same result, slower with
 * nodes of one size.  The reference tests/test_hierfast.c checks
 * hs_hierfast_run against; same contract.
 */
hs_err_t hs_hierfast_run_rounds(const hs_scenario_t *s,
                                const hs_replay_opts_t *o,
                                hs_replay_result_t **out, hs_error_t *err);

#endif
