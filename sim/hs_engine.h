/*
 * hs_engine.h -- a small sequential discrete-event engine.
 *
 * Events are ordered by (time in int64 nanoseconds, sequence number): two
 * events at the same time fire in the order they were scheduled, so a run
 * is deterministic.  The engine knows nothing of what it simulates: a model
 * gives it a table of handlers indexed by event kind and a context pointer,
 * and the engine calls handlers[ev->kind](engine, model, ev) for each event
 * in order (ROSS style).  Handlers schedule further events.
 *
 * Storage is preallocated at hs_engine_new for `capacity` pending events;
 * scheduling and dispatching never allocate, print or log.  See
 * hs_engine.c for the data structure and its invariants.
 */
#ifndef HS_ENGINE_H
#define HS_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"

/* One event as a handler sees it.  32 bytes. */
typedef struct hs_event_s {
    int64_t time_ns;   /* when it fires */
    uint64_t seq;      /* order of scheduling: ties fire in this order */
    uint32_t kind;     /* index into the handler table */
    uint32_t device;   /* model-defined, usually a device index */
    int64_t arg;       /* model-defined */
} hs_event_t;

typedef struct hs_engine_s hs_engine_t;

/*
 * A handler: called with the engine, the model's context and the event
 * (a copy; valid during the call only).  Returns 0 to go on, non-zero to
 * stop hs_engine_run (the model keeps its own reason).
 */
typedef int (*hs_handler_t)(hs_engine_t *e, void *model,
                            const hs_event_t *ev);

/* The most events an engine can hold pending (2^24 - 1). */
#define HS_ENGINE_MAX_CAPACITY ((size_t)0xFFFFFF)

/* The most events one run can schedule, from hs_engine_new or the last
   hs_engine_reset (2^40: the sequence number's 40 bits).  A model that
   could schedule more must refuse to start (the replay does). */
#define HS_ENGINE_MAX_EVENTS (UINT64_C(1) << 40)

/*
 * Creates an engine for at most `capacity` pending events (1 ..
 * HS_ENGINE_MAX_CAPACITY) and `n_kinds` handlers; `handlers` is copied,
 * `model` is passed to every handler and not owned.  Stores it in *out
 * (free with hs_engine_free).  HS_ERR_RANGE for a bad capacity,
 * HS_ERR_NOMEM when allocation fails.
 */
hs_err_t hs_engine_new(size_t capacity, const hs_handler_t *handlers,
                       size_t n_kinds, void *model, hs_engine_t **out,
                       hs_error_t *err);

/* Releases e.  e may be NULL. */
void hs_engine_free(hs_engine_t *e);

/*
 * Empties the queue and sets the clock and the sequence counter to 0;
 * clears a failure.  Keeps the storage.
 */
void hs_engine_reset(hs_engine_t *e);

/*
 * Schedules an event of `kind` at `time_ns` (>= the current time).
 * Returns 0, or -1 when the queue is full, the time is in the past or the
 * kind has no handler: then the engine is marked failed, nothing is
 * queued, and hs_engine_run returns HS_ERR_RANGE after the current handler
 * returns.  O(log n).
 */
int hs_engine_schedule(hs_engine_t *e, int64_t time_ns, uint32_t kind,
                       uint32_t device, int64_t arg);

/*
 * Dispatches events in (time, seq) order until the queue is empty or a
 * handler returns non-zero.  Returns HS_OK, or HS_ERR_RANGE (message in
 * err) when a schedule call failed.  A handler's stop is not an error:
 * the caller checks its model.
 */
hs_err_t hs_engine_run(hs_engine_t *e, hs_error_t *err);

/*
 * Removes the earliest event into *out without calling a handler and
 * advances the clock to its time.  Returns 1, or 0 when empty.  For tests
 * and for callers that drive the loop themselves.
 */
int hs_engine_pop(hs_engine_t *e, hs_event_t *out);

/* The current time: that of the last event popped, 0 at first. */
int64_t hs_engine_now(const hs_engine_t *e);

/* Events pending. */
size_t hs_engine_pending(const hs_engine_t *e);

/* Events popped since creation or the last reset. */
uint64_t hs_engine_events(const hs_engine_t *e);

/* Largest number of events pending at once since the last reset. */
size_t hs_engine_high_water(const hs_engine_t *e);

/* Bytes the engine holds (for memory reports). */
size_t hs_engine_bytes(const hs_engine_t *e);

#endif
