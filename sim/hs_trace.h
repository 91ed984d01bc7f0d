/*
 * hs_trace.h -- what the replay emits: timed intervals per device, handed to
 * trace sinks (HDF5, Chrome JSON) in blocks.
 *
 * The replay fills a fixed, preallocated block of intervals and calls each
 * sink's write() when the block is full and at the end, so no sink is called
 * per event and nothing is allocated per event.  A sink copies what it keeps:
 * the block is reused after write() returns.
 */
#ifndef HS_TRACE_H
#define HS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"

/* Phases of a step.  Values are stable: they are written to files. */
typedef enum hs_phase_e {
    HS_PH_DATA_LOAD = 0,      /* CPU loads the next batch */
    HS_PH_FORWARD = 1,
    HS_PH_BACKWARD_FIRST = 2, /* the first backward operator */
    HS_PH_BACKWARD_REST = 3,  /* the rest of the backward */
    HS_PH_OPTIMIZER = 4,
    HS_PH_RING_SEND = 5,      /* a chunk on the wire to `peer` */
    HS_PH_RING_WAIT = 6,      /* device waits for a chunk or its peer */
    HS_PH_DATA_WAIT = 7,      /* device waits for the next batch */
    HS_PH_RING_REDUCE = 8,    /* device processes a chunk from `peer`
                                 (the communication's own cost,
                                 comm_ns_per_byte; it suspends the
                                 compute) */
    HS_PH_HOP_WAIT = 9,       /* a chunk from `peer` waits before it is
                                 usable: it reached the device while it
                                 computed (the hop wait, t_hop_wait) */
    HS_PH_COUNT = 10
} hs_phase_t;

/* Static lowercase name of a phase ("data_load", "ring_send", ...). */
const char *hs_phase_name(hs_phase_t ph);

typedef struct hs_interval_s {
    uint32_t device;   /* device index (listing order) */
    uint32_t step;     /* 0-based step */
    uint8_t phase;     /* hs_phase_t */
    int32_t round;     /* ring round 0..2(N-1)-1, -1 when not a ring phase */
    int32_t bucket;    /* gradient bucket, -1 when none */
    int32_t peer;      /* other device of a ring phase, -1 when none */
    int64_t start_ns;
    int64_t end_ns;
    uint64_t bytes;    /* bytes moved, 0 when none */
} hs_interval_t;

/* One simulated step of one device, with the closed form's figure. */
typedef struct hs_step_rec_s {
    uint32_t device;
    uint32_t step;
    int64_t start_ns;    /* forward starts */
    int64_t end_ns;      /* ring done and next batch loaded */
    int64_t sim_ns;      /* end - start of this step as simulated */
    int64_t closed_ns;   /* the closed form's T(i) */
} hs_step_rec_t;

/* A consumer of intervals and step records.  Any callback may be NULL. */
typedef struct hs_trace_sink_s {
    void *ctx;
    hs_err_t (*write)(void *ctx, const hs_interval_t *iv, size_t n,
                      hs_error_t *err);
    hs_err_t (*steps)(void *ctx, const hs_step_rec_t *rec, size_t n,
                      hs_error_t *err);
} hs_trace_sink_t;

#endif
