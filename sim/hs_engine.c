/*
 * hs_engine.c -- the event queue and dispatch loop of the replay.
 *
 * The workload.  The training replay (hs_replay.c) generates one event per
 * ring chunk transfer: a step of N devices is N * 2(N-1) events, about two
 * million for N = 1024, plus a few compute events per device.  At any
 * moment only O(N) events are pending (each device has at most one chunk
 * on the wire and a few compute completions queued), and almost every new
 * event lands at or near the far end of the queue (now + a transfer time).
 * So the queue is small (thousands of entries, L1/L2-resident), churns
 * fast, and the cost that matters is the remove-min + insert per event,
 * with nothing allocated, printed or logged on that path.
 *
 * The shape.  An array-based 4-ary min-heap of 16-byte keys, and a separate
 * pool of event payloads with a free list:
 *
 *   heap[i] = { time_ns, seq << 24 | slot }     16 bytes
 *   pool[slot] = { kind, device, arg }          16 bytes
 *   free_slots[0 .. n_free-1]                    a stack of unused slots
 *
 * Only the keys move during sift operations; a payload is written once on
 * schedule and read once on dispatch.  Because sequence numbers are
 * unique, the second key word compares as the sequence number alone (the
 * slot bits below it never decide), so (time, seq) order is the order of
 * the 128-bit number time:k, one compare-and-borrow pair where the
 * compiler has 128-bit integers, and branch-free either way (heap compares
 * are coin flips to a branch predictor).  The limits the packing buys: at
 * most 2^24 - 1 pending events and 2^40 events scheduled per reset (a day
 * of simulation at 10^7 events per second); both are checked.
 *
 * Four children per node halve the depth of a binary heap; with 16-byte
 * keys the four children of a node fill one 64-byte cache line.  The array
 * is 64-byte aligned and the root sits at element 3, so the children of
 * logical node i (logical 4i+1 .. 4i+4, physical 4i+4 .. 4i+7) always start
 * a cache line.  (An 8-ary variant, two lines per group, measured slower
 * here.)  Removing the root uses the "bottom-up" sift (Wegener; Floyd):
 * the hole walks down to a leaf along the smallest children (3 compares per
 * level, picked by arithmetic on the compare results, none against the
 * element being placed), then the element to place is sifted up from
 * there.  In this workload that element is one of the latest events, so
 * the sift-up almost always stops at once.
 *
 * Per event, run() does: copy the root's payload out (the root stays in
 * place, "held", while its handler runs); call the handler; the handler's
 * first schedule() reuses the held root's slot and fills the root hole
 * with the new key (one bottom-up sift: log4(n) levels of 3 compares, and
 * usually no sift-up since the new event is among the latest); further
 * schedules push a leaf and sift up (usually 1 compare); if the handler
 * scheduled nothing, the root is removed after it (the same sift with the
 * last key).  What bounds the rate is that sift: each level's index
 * depends on the previous level's compares, so it is a chain of log4(n)
 * dependent loads and compares.
 *
 * Invariants (checked by tests/test_engine.c against a sorted array):
 *   - heap order: key(parent) < key(child) for all nodes below n;
 *   - every slot is either in exactly one heap key or on the free stack:
 *     n + n_free == capacity (a held root counts in n until it is
 *     dropped or overwritten);
 *   - now never decreases: schedule() refuses a time before now;
 *   - seq strictly increases with each successful schedule().
 * A failed schedule() (full, past time, unknown kind) queues nothing and
 * marks the engine failed; run() stops after the current handler and
 * reports it.  This keeps handlers free of error plumbing.
 */
#include "hs_engine.h"

#include <stdlib.h>
#include <string.h>

#define HS__SLOT_BITS 24
#define HS__SLOT_MASK ((uint64_t)0xFFFFFF)
#define HS__SEQ_LIMIT ((uint64_t)1 << (64 - HS__SLOT_BITS))
#define HS__ROOT 3 /* physical index of logical node 0 */

typedef struct hs__hent_s {
    int64_t t;
    uint64_t k; /* seq << 24 | slot */
} hs__hent_t;

typedef struct hs__payload_s {
    uint32_t kind;
    uint32_t device;
    int64_t arg;
} hs__payload_t;

struct hs_engine_s {
    hs__hent_t *heap_mem; /* aligned block; heap = heap_mem + HS__ROOT */
    hs__hent_t *heap;
    hs__payload_t *pool;
    uint32_t *free_slots;
    size_t n;            /* pending */
    size_t n_free;
    size_t capacity;
    size_t high_water;
    int64_t now;
    uint64_t seq;
    uint64_t popped;
    hs_handler_t *handlers;
    size_t n_kinds;
    void *model;
    int held;            /* run(): the root is the event being handled;
                            it leaves the heap after its handler, or is
                            overwritten by the handler's first schedule */
    int failed;
    char why[160];
};

/*
 * (time, seq) order without short-circuit branches: the outcome of a heap
 * compare is unpredictable, so it must compile to flag arithmetic, not
 * jumps.  Times are never negative (schedule() refuses times before now,
 * which starts at 0), so the key is the unsigned 128-bit number t:k, and
 * where the compiler has 128-bit integers one compare-and-borrow pair
 * decides it.
 */
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 hs__u128;

static inline int hs__less(const hs__hent_t *a, const hs__hent_t *b)
{
    hs__u128 x = (hs__u128)(uint64_t)a->t << 64 | a->k;
    hs__u128 y = (hs__u128)(uint64_t)b->t << 64 | b->k;

    return x < y;
}
#else
static inline int hs__less(const hs__hent_t *a, const hs__hent_t *b)
{
    return (a->t < b->t) | ((a->t == b->t) & (a->k < b->k));
}
#endif

static void hs__reset_free(hs_engine_t *e)
{
    size_t i;

    /* slot 0 on top, so a fresh engine hands out 0, 1, 2, ... */
    for (i = 0; i < e->capacity; i++)
        e->free_slots[i] = (uint32_t)(e->capacity - 1 - i);
    e->n_free = e->capacity;
}

hs_err_t hs_engine_new(size_t capacity, const hs_handler_t *handlers,
                       size_t n_kinds, void *model, hs_engine_t **out,
                       hs_error_t *err)
{
    hs_engine_t *e = NULL;
    size_t heap_bytes;

    *out = NULL;
    if (capacity == 0 || capacity > HS_ENGINE_MAX_CAPACITY)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "event queue capacity %zu outside 1..%zu",
                             capacity, (size_t)HS_ENGINE_MAX_CAPACITY);
    if (n_kinds == 0 || handlers == NULL)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "event engine needs at least one handler");
    e = calloc(1, sizeof *e);
    if (e == NULL)
        goto fail;
    /* HS__ROOT spare entries in front; round up to the alignment */
    heap_bytes = (capacity + HS__ROOT + 4) * sizeof(hs__hent_t);
    heap_bytes = (heap_bytes + 63) / 64 * 64;
    e->heap_mem = aligned_alloc(64, heap_bytes);
    e->pool = malloc(capacity * sizeof *e->pool);
    e->free_slots = malloc(capacity * sizeof *e->free_slots);
    e->handlers = malloc(n_kinds * sizeof *e->handlers);
    if (e->heap_mem == NULL || e->pool == NULL || e->free_slots == NULL ||
        e->handlers == NULL)
        goto fail;
    memset(e->heap_mem, 0, heap_bytes);
    e->heap = e->heap_mem + HS__ROOT;
    memcpy(e->handlers, handlers, n_kinds * sizeof *e->handlers);
    e->n_kinds = n_kinds;
    e->capacity = capacity;
    e->model = model;
    hs_engine_reset(e);
    *out = e;
    return HS_OK;
fail:
    hs_engine_free(e);
    return hs_error_setf(err, HS_ERR_NOMEM,
                         "out of memory for an event queue of %zu events",
                         capacity);
}

void hs_engine_free(hs_engine_t *e)
{
    if (e == NULL)
        return;
    free(e->heap_mem);
    free(e->pool);
    free(e->free_slots);
    free(e->handlers);
    free(e);
}

void hs_engine_reset(hs_engine_t *e)
{
    e->n = 0;
    e->now = 0;
    e->seq = 0;
    e->popped = 0;
    e->high_water = 0;
    e->held = 0;
    e->failed = 0;
    e->why[0] = '\0';
    hs__reset_free(e);
}

static int hs__fail(hs_engine_t *e, const char *why)
{
    if (!e->failed) {
        e->failed = 1;
        strncpy(e->why, why, sizeof e->why - 1);
        e->why[sizeof e->why - 1] = '\0';
    }
    return -1;
}

/*
 * Fills the hole at the root of the heap h[0 .. n-1] with x: walks the
 * hole down to a leaf along the smallest children, then sifts x up from
 * there.  x must not be in h[0 .. n-1].
 */
static inline void hs__fill_root(hs__hent_t *h, size_t n, hs__hent_t x)
{
    size_t i = 0, c;

    for (;;) {
        size_t m;
        c = 4 * i + 1;
        if (c + 3 < n) {
            /* the smallest of four, selected by arithmetic on the compare
               results (no data-dependent branches) */
            size_t m01 = c + (size_t)hs__less(&h[c + 1], &h[c]);
            size_t m23 = c + 2 + (size_t)hs__less(&h[c + 3], &h[c + 2]);
            size_t sel = (size_t)hs__less(&h[m23], &h[m01]);
            m = m01 + (m23 - m01) * sel;
        } else if (c < n) {
            size_t j;
            m = c;
            for (j = c + 1; j < n; j++)
                if (hs__less(&h[j], &h[m]))
                    m = j;
        } else {
            break;
        }
        h[i] = h[m];
        i = m;
    }
    while (i > 0) {
        size_t p = (i - 1) >> 2;
        if (!hs__less(&x, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

/* Removes the root and frees its slot.  Requires n > 0. */
static inline void hs__drop_root(hs_engine_t *e)
{
    hs__hent_t *h = e->heap;
    size_t n;

    e->free_slots[e->n_free++] = (uint32_t)(h[0].k & HS__SLOT_MASK);
    n = --e->n;
    if (n > 0)
        hs__fill_root(h, n, h[n]);
}

int hs_engine_schedule(hs_engine_t *e, int64_t time_ns, uint32_t kind,
                       uint32_t device, int64_t arg)
{
    hs__hent_t x, *h = e->heap;
    uint32_t slot;
    size_t i;

    if (e->n_free == 0 && !e->held)
        return hs__fail(e, "event queue full");
    if (time_ns < e->now)
        return hs__fail(e, "event scheduled before the current time");
    if (kind >= e->n_kinds || e->handlers[kind] == NULL)
        return hs__fail(e, "event of a kind with no handler");
    if (e->seq >= HS__SEQ_LIMIT)
        return hs__fail(e, "event sequence numbers exhausted");
    if (e->held) {
        /* the first event a handler schedules takes the place (and the
           slot) of the one being handled: one sift instead of a pop and
           a push.  In a ring the new event is usually the latest, so it
           ends at a leaf after the hole's walk. */
        e->held = 0;
        slot = (uint32_t)(h[0].k & HS__SLOT_MASK);
        e->pool[slot].kind = kind;
        e->pool[slot].device = device;
        e->pool[slot].arg = arg;
        x.t = time_ns;
        x.k = e->seq++ << HS__SLOT_BITS | slot;
        hs__fill_root(h, e->n, x);
        return 0;
    }
    slot = e->free_slots[--e->n_free];
    e->pool[slot].kind = kind;
    e->pool[slot].device = device;
    e->pool[slot].arg = arg;
    x.t = time_ns;
    x.k = e->seq++ << HS__SLOT_BITS | slot;
    /* sift up from the new leaf */
    i = e->n++;
    while (i > 0) {
        size_t p = (i - 1) >> 2;
        if (!hs__less(&x, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
    if (e->n > e->high_water)
        e->high_water = e->n;
    return 0;
}

/* Copies the root event into *out and advances the clock; the root stays
   in the heap.  Requires n > 0. */
static inline void hs__peek(hs_engine_t *e, hs_event_t *out)
{
    const hs__hent_t *top = &e->heap[0];
    uint32_t slot = (uint32_t)(top->k & HS__SLOT_MASK);

    out->time_ns = top->t;
    out->seq = top->k >> HS__SLOT_BITS;
    out->kind = e->pool[slot].kind;
    out->device = e->pool[slot].device;
    out->arg = e->pool[slot].arg;
    e->now = top->t;
    e->popped++;
}

int hs_engine_pop(hs_engine_t *e, hs_event_t *out)
{
    if (e->n - (size_t)e->held == 0)
        return 0;
    if (e->held) {
        /* called from a handler: the handled event leaves first */
        e->held = 0;
        hs__drop_root(e);
    }
    hs__peek(e, out);
    hs__drop_root(e);
    return 1;
}

hs_err_t hs_engine_run(hs_engine_t *e, hs_error_t *err)
{
    hs_event_t ev;
    hs_handler_t *hd = e->handlers;
    void *model = e->model;

    while (e->n > 0 && !e->failed) {
        int stop;
        hs__peek(e, &ev);
        e->held = 1;
        stop = hd[ev.kind](e, model, &ev);
        if (e->held) {
            e->held = 0;
            hs__drop_root(e);
        }
        if (stop)
            break;
    }
    if (e->failed)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "event engine: %s (capacity %zu, time %lld ns)",
                             e->why, e->capacity, (long long)e->now);
    return HS_OK;
}

int64_t hs_engine_now(const hs_engine_t *e)
{
    return e->now;
}

size_t hs_engine_pending(const hs_engine_t *e)
{
    return e->n - (size_t)e->held;
}

uint64_t hs_engine_events(const hs_engine_t *e)
{
    return e->popped;
}

size_t hs_engine_high_water(const hs_engine_t *e)
{
    return e->high_water;
}

size_t hs_engine_bytes(const hs_engine_t *e)
{
    return sizeof *e +
           (e->capacity + HS__ROOT + 4) * sizeof(hs__hent_t) +
           e->capacity * (sizeof(hs__payload_t) + sizeof(uint32_t)) +
           e->n_kinds * sizeof(hs_handler_t);
}
