/*
 * hs_replay_int.h -- the replay's private state, shared by hs_replay.c (the
 * model's handlers and the run) and hs_replay_setup.c (the bucket layout
 * and the figures).  Not for use outside sim/hs_replay*.c; see the essay
 * at the top of hs_replay.c for what the fields mean.
 */
#ifndef HS_REPLAY_INT_H
#define HS_REPLAY_INT_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

#include "hs_buckets.h"
#include "hs_closed.h"
#include "hs_coll_engine.h"
#include "hs_replay.h"

enum {
    HS__EV_DL_DONE = 0,
    HS__EV_RING_OPEN = 1,
    HS__EV_BWD_DONE = 2,
    HS__EV_ARRIVE = HS_COLL_EV_ARRIVE,      /* the collective's */
    HS__EV_OPT_DONE = 4,
    HS__EV_PROC_DONE = HS_COLL_EV_RECEIVED, /* the collective's */
    HS__EV_KINDS = 6
};

/* RING_OPEN and BWD_DONE carry (debt << HS__ARG_SHIFT) | bucket: the
   compute debt (ns the communication's own processing suspended the
   compute) already counted in their time. */
#define HS__ARG_SHIFT 20
#define HS__ARG_BUCKET ((INT64_C(1) << HS__ARG_SHIFT) - 1)

#define HS__IV_BLOCK 4096
#define HS__REC_BLOCK 1024

/* Step state, touched a few times per step. */
typedef struct hs__dev_s {
    int64_t step;          /* current step, -1 before step 0 */
    int64_t dl_ready_ns;   /* when the next batch is loaded */
    int64_t bwd_end_ns;    /* when this step's backward ends */
    int64_t start_ns;      /* F of the current step */
    int64_t done_ns;       /* when the device finished the step */
    int64_t opt_ns;        /* this step's optimizer time */
    int64_t sum_ns;        /* sum of steady step durations */
    int64_t n_sum;
    int64_t link_free_ns;  /* streams > 1: its ring edge is busy until */
    /* the communication's own cost (m->comm only) */
    int64_t proc_free_ns;  /* its processing of chunks (queue 0) is busy
                              until */
    int64_t cdebt_ns;      /* this step: how long processing suspended the
                              compute; its milestones move by as much */
    int64_t b1_end_ns;     /* tracing: the planned end of the first op */
    uint32_t opened;       /* buckets opened this step */
    uint8_t ring_done;
    uint8_t bwd_done;
    uint8_t dev_done;
    uint8_t finished;      /* all steps done */
} hs__dev_t;

typedef struct hs__model_s {
    hs_coll_host_t h;       /* first: the collective's handlers get the
                               model as an hs_coll_host_t * */
    const hs_scenario_t *s;
    const hs_replay_opts_t *o;
    const hs_collective_t *coll;
    const hs_coll_engine_t *eng;   /* coll's progress in the replay */
    int uniform;            /* coll->uniform */
    uint32_t n;             /* devices */
    int64_t rounds;         /* R: rounds of one collective (ring:
                               2(N-1)) */
    uint32_t parts;         /* a chunk is bytes / parts (ring: N) */
    uint32_t nb;            /* rings per step (B) */
    uint32_t k;             /* streams: bucket b runs on stream b % k
                               (a copy of h.k) */
    int64_t bs[HS_MAX_STREAMS];  /* buckets of stream s per step */
    int64_t gs[HS_MAX_STREAMS];  /* rounds of stream s per step, bs * R */
    int64_t steps;          /* S */
    hs_overlap_t overlap;   /* effective mode */
    int rendezvous;         /* a copy of h.rendezvous */
    int stochastic;
    hs__dev_t *dev;
    int64_t *pend;          /* [q * lanes + rx]: m->comm only: the chunk
                               on its way to rx in processing queue q is
                               usable at */
    uint32_t pq;            /* processing queues per device (the engine's
                               proc_queues; 1 without a cost) */
    int64_t *proc_free_more;/* [(q - 1) * n + x]: m->comm and pq > 1 only:
                               queue q >= 1 of device x is busy until
                               (queue 0: hs__dev_t.proc_free_ns) */
    int64_t (*trc)[2];      /* [rx]: tracing only: since when it had
                               nothing to send, start of its send */
    int64_t *dur;           /* [x * nb + b] when nb > 1 */
    double *bytes;          /* [type * nb + b] bucket payloads, bytes */
    int comm;               /* some type has comm_ns_per_byte > 0 or a
                               t_hop_wait > 0 */
    int64_t *proc;          /* [type * nb + b]: processing one chunk */
    int64_t *hopw;          /* [type]: t_hop_wait; NULL when all are 0 */
    uint64_t *chunk_bytes;  /* [type * nb + b], for intervals */
    double *ready;          /* [type * nb + b] bucket ready, unscaled ns */
    int64_t *closed;        /* T(i) per device */
    int64_t *cl_end;        /* per step: latest end over devices */
    int64_t cl_start0;      /* earliest start of step 0 */
    uint32_t n_finished;
    gsl_rng *rng;
    /* tracing */
    const hs_trace_sink_t *sinks;
    size_t n_sinks;
    int tracing;
    hs_interval_t *iv;
    size_t n_iv;
    hs_step_rec_t *rec;
    size_t n_rec;
    hs_error_t err;
} hs__model_t;

/* The bucket of stream st's round g. */
static inline size_t hs__bucket(const hs__model_t *m, uint32_t st, int64_t g)
{
    if (m->k == 1)
        return (size_t)((g / m->rounds) % m->nb);
    return (size_t)((g / m->rounds) % m->bs[st]) * m->k + st;
}

/* Decides the bucket layout; fills m->overlap, m->nb, m->ready,
   m->chunk_bytes (needs m->s, m->o, m->parts) and per-type bucket bytes
   into *bytes_out ([type * nb + b], the caller frees them); notes what it
   assumed in res. */
hs_err_t hs__replay_buckets(hs__model_t *m, hs_replay_result_t *res,
                            double **bytes_out, hs_error_t *err);

/*
 * Refuses, before the engine is made, a replay the event engine cannot
 * hold: more than HS_ENGINE_MAX_EVENTS events in all (an upper bound:
 * steps x N x (4 + B (1 + R (1 + comm))), blamed on simulate.steps), or
 * more than HS_ENGINE_MAX_CAPACITY pending at once (cap, from the devices,
 * the gradient buckets and the streams).  HS_ERR_RANGE with the estimate
 * and the limit in the message; so the engine's own "sequence numbers
 * exhausted" and "capacity" errors cannot be reached from any input.
 * Needs m->s, n, rounds, nb, k, steps and comm.
 */
hs_err_t hs__replay_check_engine(const hs__model_t *m, size_t cap,
                                 hs_error_t *err);

/* Fills the figures of res from the model after the run. */
/*
 * The result's figures, for the event replay and the fast path alike:
 * res->dev_step_ns[] (per device, listing order) must be filled; this
 * fills the per-type maxima, the closed-form figures from pred, the
 * cluster's step per step from the steps' end times (cl_end[k]: when the
 * last device ended step k; cl_start0: the earliest start), the steady
 * step, its spread and percentiles, and the epoch and total with their 95%
 * intervals.  HS_ERR_RANGE when the total overflows, HS_ERR_NOMEM.
 */
hs_err_t hs_replay_figures(const hs_scenario_t *s, uint32_t steps,
                           const int64_t *cl_end, int64_t cl_start0,
                           const hs_prediction_t *pred,
                           hs_replay_result_t *res, hs_error_t *err);

/* One device's compute for a step, as the event replay's start of a step
   derives it (hs_phases_derive), with its data loading: what the exact
   fast paths (hs_ringfast.c, hs_hierfast.c, hs_treefast.c) plan a step
   from. */
typedef struct hs_fast_comp_s {
    int64_t dl, fwd, b1, rest, opt;
    double c;              /* compute scale (bucket ready times) */
} hs_fast_comp_t;

/* A fast path's end of one device's step: its collective ended at
   tb_ns, its backward ends at bwd_ns (under patent the step waits for
   both), then its optimizer, and its next batch must be loaded (from the
   step's start *f_ns, loading beside the step).  Counts the events the
   engine would have run for it (BWD_DONE after the collective, the
   optimizer's, a DL_DONE it waits for) into *n_events, adds the step's
   length to *sum_ns when count_it, moves *f_ns to the next step's start
   and returns it. */
static inline int64_t hs_fast_dev_end(int patent, int64_t tb_ns,
                                      int64_t bwd_ns,
                                      const hs_fast_comp_t *c,
                                      int64_t *f_ns, int count_it,
                                      int64_t *sum_ns, uint64_t *n_events)
{
    int64_t dd, fn;

    if (patent && tb_ns < bwd_ns) {
        tb_ns = bwd_ns;
        *n_events += 1;
    }
    dd = tb_ns + c->opt;
    *n_events += c->opt > 0;
    fn = *f_ns + c->dl;
    if (fn > dd)
        *n_events += 1; /* DL_DONE: it waits for the batch */
    else
        fn = dd;
    if (count_it)
        *sum_ns += fn - *f_ns;
    *f_ns = fn;
    return fn;
}

/* Device x's compute for step k of a replay of s under o (k < 0: without
   stragglers) into *out.  No allocation. */
void hs_fast_compute(const hs_scenario_t *s, const hs_replay_opts_t *o,
                     uint32_t x, int64_t k, hs_fast_comp_t *out);

/* Whether the hierarchical or tree fast path replays s under o exactly:
   1 if so, else 0 with the reason in why (why_len bytes; why may be NULL).
   is_coll says whether the collective that runs (the caller resolved it)
   is the path's one (looked at only once s has nodes and devices); coll_no
   is the reason when it is not.
   The other checks are the ones both paths share, in the same order. */
int hs_fast_supports_nodes(const hs_scenario_t *s, const hs_replay_opts_t *o,
                           int is_coll, const char *coll_no, char *why,
                           size_t why_len);

/* The first step's starts of a fast path at time 0, per device in listing
   order: each device's compute without stragglers into base[x] and its
   step start (batch 0 loaded) into f_ns[x].  Returns the earliest start.
   No allocation. */
int64_t hs_fast_first_starts(const hs_scenario_t *s,
                             const hs_replay_opts_t *o,
                             hs_fast_comp_t *base, int64_t *f_ns);

/* HS_OK, or HS_ERR_USAGE ("interrupted") in err when o's stop flag is set:
   the fast paths ask it before each step. */
hs_err_t hs_fast_stopped(const hs_replay_opts_t *o, hs_error_t *err);

/* A fast path's out-of-memory error for n devices, in err; returns
   HS_ERR_NOMEM. */
hs_err_t hs_fast_nomem(hs_error_t *err, size_t n);

/* The result fields of a hierarchical or tree fast path's run besides
   the figures and state_bytes: steps, the modes asked (patent or none, one
   bucket, one stream), collective (a static name, not copied), the
   events' count n_events and the last one's time end_ns. */
void hs_fast_describe(const hs_replay_opts_t *o, const char *collective,
                      uint32_t steps, uint64_t n_events, int64_t end_ns,
                      hs_replay_result_t *res);

/* Each device's mean step length into res->dev_step_ns[x] from its summed
   step lengths sum_ns[x] (listing order, n devices) over steps steps (the
   first step not counted when there are several). */
void hs_fast_dev_means(hs_replay_result_t *res, const int64_t *sum_ns,
                       size_t n, uint32_t steps);

/*
 * Allocates the per-device, per-type and per-step arrays of res (n
 * devices, n_types types, steps steps; zeroed) and sets its device and
 * type counts.  0, or -1 when out of memory (what was allocated stays in
 * res: hs_replay_result_free frees it).  Shared by the event engine's
 * replay and the fast path.
 */
int hs_replay_result_arrays(hs_replay_result_t *res, size_t n,
                            size_t n_types, uint32_t steps);

hs_err_t hs__replay_figures(hs__model_t *m, const hs_prediction_t *pred,
                            hs_replay_result_t *res, hs_error_t *err);

#endif
