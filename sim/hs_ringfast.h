/*
 * hs_ringfast.h -- the exact replay of a deterministic ring without an
 * event queue: a max-plus recurrence over ring rounds.
 *
 * For the cases it supports (hs_ringfast_supports), hs_ringfast_run fills
 * the same hs_replay_result_t figures as hs_replay_run, equal to the
 * nanosecond: per-device mean steps, the cluster's step per step, the
 * steady step, epoch and total, the spread, the closed-form figures and
 * the number of events the engine would have dispatched.  It writes no
 * trace (no sinks) and has no queue (queue_high_water is 0).  See the
 * essay at the top of hs_ringfast.c.
 */
#ifndef HS_RINGFAST_H
#define HS_RINGFAST_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_replay.h"
#include "hs_scenario.h"

/* The replay settings the fast path depends on (the scenario's
   `simulate:` fields; hs_ringfast_opts_from copies them). */
/*
 * 1 when hs_ringfast_run replays s under *o exactly (as hs_replay_run
 * would with the same settings), else 0 with the reason in why (a
 * sentence, truncated to why_len; why may be NULL).  Supported:
 * deterministic runs, overlap patent, none, and buckets on one stream
 * (o->streams 1, or one bucket), send rendezvous or eager, stragglers,
 * compute scales, extra compute, t_dl-bound steps, the optimizer, and the
 * communication's own cost (comm_ns_per_byte) under rendezvous with
 * patent or none.  Not: stochastic runs; buckets on several streams (they
 * share each link first come, first served); the communication's cost
 * under eager or with buckets (there processing can move a compute
 * milestone at the very time another event fires, and the engine orders
 * such equal-time events by sequence number); a hop wait (t_hop_wait)
 * except under overlap none with rendezvous sends, where no chunk reaches
 * a device in its backward; profiles whose buckets do not match (the
 * replay reports those).
 */
int hs_ringfast_supports(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         char *why, size_t why_len);

/*
 * Replays o->steps steps of s under *o with the max-plus recurrence and
 * stores a new result in *out (free with hs_replay_result_free).
 * Fails with HS_ERR_RANGE when hs_ringfast_supports says no (its reason in
 * err) or the scenario makes no replay, HS_ERR_NOMEM, or what
 * hs_closed_predict returns.  Memory is O(N + steps); time is
 * O(steps * N * 2(N-1)) adds and maxes, nothing allocated per round.
 */
hs_err_t hs_ringfast_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                         hs_replay_result_t **out, hs_error_t *err);

#endif
