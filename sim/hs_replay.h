/*
 * hs_replay.h -- the training replay: every step of every device, event by
 * event, along the ring order (docs/method.md, "The replay"), on the
 * discrete-event engine of hs_engine.h.
 *
 * What one step of device i is, the overlap and send modes, and how the
 * figures below are defined: see the essay at the top of hs_replay.c.
 */
#ifndef HS_REPLAY_H
#define HS_REPLAY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "hs_collective.h"
#include "hs_error.h"
#include "hs_scenario.h"
#include "hs_trace.h"


/*
 * How to replay, apart from the cluster: what the scenario's simulate:
 * section says, which a caller (the command-line tool, a test) may
 * override without touching the scenario.  The caller owns the struct and
 * what it points to; hs_replay_run only reads it.
 */
typedef struct hs_replay_opts_s {
    hs_overlap_t overlap;     /* when a ring opens (asked; buckets may be
                                 downgraded, see the result) */
    hs_send_t send;           /* who must be ready for a chunk to move */
    hs_hop_wait_t hop_wait;   /* each type's hop wait grown to the ring's
                                 size (ring, hs_profile_hop_wait_ns) or as
                                 probed (probe) */
    uint32_t steps;           /* steps to replay, >= 1 */
    uint32_t streams;         /* buckets mode: bucket rings at once,
                                 1..HS_MAX_STREAMS (asked) */
    uint64_t seed;            /* of the stochastic mode */
    int stochastic;           /* draw per-step times */
    const hs_straggler_t *stragglers; /* n_stragglers slowdowns, device
                                 indices of the scenario; may be NULL when
                                 n_stragglers is 0 */
    size_t n_stragglers;
    const char *collective;   /* name of the collective (hs_collective.h);
                                 NULL = "ring" */
    int engine;               /* 1: always the event engine; 0: the
                                 max-plus fast path (hs_ringfast.h,
                                 hs_hierfast.h) where it gives the same
                                 figures to the ns (no sinks,
                                 deterministic, ...) */
    int force;                /* 0: refuse a replay past the budgets of
                                 hs_scenario_check_budget (2^32 events,
                                 8 GiB); 1: run it anyway (--force).  The
                                 event engine's own limits hold always */
    const volatile sig_atomic_t *stop; /* NULL, or a flag (a signal
                                 handler's) the max-plus fast path reads
                                 once per step: non-zero stops it with
                                 HS_ERR_USAGE "interrupted" (the event
                                 engine stops through a sink's error) */
} hs_replay_opts_t;

/* The hop wait the replay gives a chunk that reaches a device of type t
   while it computes, in a ring of ring_n devices: the profile's
   t_hop_wait as probed (how = probe), or grown to ring_n
   (ring: hs_profile_hop_wait_ns).  The flat ring's ring_n is every device
   of s; the hierarchical collective's is a node's devices L in its node
   phases and the nodes K across them (hs_coll_round_t.ring_n).  Pure. */
int64_t hs_replay_hop_wait_ring_ns(const hs_scenario_t *s, size_t t,
                                   hs_hop_wait_t how, size_t ring_n);

/* hs_replay_hop_wait_ring_ns in the ring of all s's devices (the flat
   ring's hop wait).  Pure. */
int64_t hs_replay_hop_wait_ns(const hs_scenario_t *s, size_t t,
                              hs_hop_wait_t how);

/* The sizes of the rings a replay of s with the named collective (NULL =
   "ring") runs its chunks along, for reporting the hop wait: 1 with
   ring_n[0] = N for the flat ring; 2 for the hierarchical collective on
   nodes of L devices, ring_n = {L, K = N / L} (in a node, across nodes;
   L the largest node's when they differ).
   Returns how many it filled.  Pure. */
size_t hs_replay_hop_rings(const hs_scenario_t *s, const char *collective,
                           size_t ring_n[2]);

/* Fills *o with scenario s's simulate: section (the file's values and
   defaults); o->stragglers then points into s.  No allocation. */
void hs_replay_opts_from_scenario(const hs_scenario_t *s,
                                  hs_replay_opts_t *o);

typedef struct hs_replay_result_s {
    /* what was run (from the options; "asked" is what they said, the
       plain field what was actually replayed) */
    size_t n_devices;
    uint32_t steps;            /* steps replayed */
    hs_overlap_t overlap;      /* used: buckets replays as none when no
                                  type lists buckets */
    hs_overlap_t overlap_asked;
    hs_send_t send;
    hs_hop_wait_t hop_wait;    /* as asked */
    const char *collective;    /* name of the collective used (static) */
    int stochastic;
    uint64_t seed;
    uint32_t n_buckets;        /* rings per step (1 unless buckets mode) */
    uint32_t streams;          /* used: bucket rings at once (1 unless
                                  buckets mode with streams > 1 and more
                                  than one bucket; at most the buckets) */
    uint32_t streams_asked;    /* the options' streams */
    int fast_path;             /* 1: the max-plus fast path ran (the same
                                  figures; queue_high_water is 0 and
                                  state_bytes its own), 0: the engine */

    /* per device, listing order */
    int64_t *dev_step_ns;      /* mean simulated step over the steady
                                  steps (1 .. steps-1; step 0 alone when
                                  steps == 1) */
    int64_t *dev_closed_ns;    /* the closed form's T(i) (the source's
                                  formula) */
    int64_t *dev_closed_ext_ns;/* its extended T_ext(i): also counts the
                                  rest of the backward and the optimizer,
                                  the ring opened as the overlap replayed
                                  opens it (hs_closed.h) */

    /* per device type: the largest of its devices' figures */
    size_t n_types;
    int64_t *type_step_ns;
    int64_t *type_closed_ns;
    int64_t *type_closed_ext_ns;

    /* the cluster */
    int64_t *cluster_step_ns;  /* per step k: when the last device ended
                                  step k minus when the last one ended
                                  step k-1 (step 0: minus the earliest
                                  start) */
    int64_t step_ns;           /* steady state: mean of cluster_step_ns
                                  over steps 1..steps-1 */
    int64_t first_step_ns;     /* cluster_step_ns[0] */
    int64_t closed_step_ns;    /* max_i T(i) */
    int64_t closed_ext_step_ns;/* max_i T_ext(i) */
    uint64_t iters_per_epoch;  /* I, from hs_closed_predict */
    uint32_t epochs;
    int64_t epoch_ns;          /* I * step_ns */
    int64_t total_ns;          /* epochs * epoch_ns */

    /* spread of the steady steps (meaningful in stochastic mode; in the
       deterministic mode p50 = p95 = mean once the ring has settled) */
    int64_t step_mean_ns;
    int64_t step_sd_ns;
    int64_t step_p50_ns;
    int64_t step_p95_ns;
    /* 95% interval of epoch and total time, treating steps as
       independent: I*mean +- 1.96 * sd * sqrt(I) (total: E*I steps) */
    int64_t epoch_lo_ns, epoch_hi_ns;
    int64_t total_lo_ns, total_hi_ns;

    /* engine figures */
    uint64_t n_events;
    int64_t end_ns;            /* simulated time at the last event */
    size_t queue_high_water;
    size_t state_bytes;        /* memory the replay's model and engine
                                  held, trace blocks included */

    size_t n_notes;            /* assumptions the replay had to make */
    char **notes;              /* n_notes strings (the one notes list,
                                  hs_notes_add_to); owned */
} hs_replay_result_t;

/*
 * Replays o->steps steps of the cluster and job of scenario s with the
 * options o (NULL: the scenario's own, hs_replay_opts_from_scenario); s and
 * o are only read.  Each of the n_sinks sinks (sinks may be NULL when
 * n_sinks is 0) receives every interval and every step record, in blocks;
 * a sink error stops the replay and is returned.  On success stores a new
 * result in *out (free with hs_replay_result_free).  Fails with
 * HS_ERR_RANGE when the scenario makes no replay (no devices, no steps,
 * buckets that do not match across types, a straggler naming no device,
 * an unknown collective), HS_ERR_NOMEM, or what hs_closed_predict
 * returns.  Memory is linear in the number of devices (plus one entry per
 * step); nothing is allocated per event.
 */
hs_err_t hs_replay_run(const hs_scenario_t *s, const hs_replay_opts_t *o,
                       const hs_trace_sink_t *sinks, size_t n_sinks,
                       hs_replay_result_t **out, hs_error_t *err);

/*
 * Refuses, as hs_replay_run does unless o->force, a replay of s under o
 * (NULL: the scenario's own options) beyond the budgets of
 * hs_scenario_check_budget, estimated for the collective that runs (o's,
 * `auto` resolved).  HS_OK (also when o->force), HS_ERR_RANGE with the
 * estimate in err, or HS_ERR_RANGE for an unknown collective.
 */
hs_err_t hs_replay_check_budget(const hs_scenario_t *s,
                                const hs_replay_opts_t *o, hs_error_t *err);

/* The collective a replay of s under o runs: o->collective (NULL:
   "ring"), `auto` resolved to its pick (hs_collective_resolve); NULL for
   an unknown name.  Pure. */
const hs_collective_t *hs_replay_collective(const hs_scenario_t *s,
                                            const hs_replay_opts_t *o);

/* 1 when hs_replay_run of s under o (NULL: the scenario's options) without
   sinks takes an exact fast path (the ring's, the hierarchical one's, the
   tree's: o->engine unset and the path of the collective that runs
   supports it), 0 when it takes the event engine.  Pure. */
int hs_replay_fast_supports(const hs_scenario_t *s, const hs_replay_opts_t *o);

/* Releases r and what it owns.  r may be NULL. */
void hs_replay_result_free(hs_replay_result_t *r);

#endif
