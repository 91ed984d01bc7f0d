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
 * The shape.  A sorted run beside a heap.  In a ring most new events are
 * "now + a transfer time" with the same few transfer times, so they come
 * in non-decreasing (time, seq) order: a FIFO.  The engine keeps such
 * events in a sorted run (a ring buffer of keys: append when the new key
 * is after the run's last key, or the run is empty; take from its front)
 * and the others (out of order: a faster link's chunk behind a slower
 * one's, a far-future compute milestone behind them) in an array-based
 * 4-ary min-heap.  The earliest event is the smaller of the run's front
 * and the heap's root, one compare; keys are unique (seq), so that is the
 * exact (time, seq) order.  A homogeneous ring of 4096 devices then costs
 * O(1) per event instead of a sift through log4(n) levels (measured: 16 ->
 * about 50 M events/s in bench_engine); a random workload (the bench's
 * hold model) pays one extra compare per event.
 *
 *   run[fhead .. fhead+fn-1 mod capacity] = sorted keys
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
 * there.
 *
 * Per event, run() takes the earliest.  From the run: it leaves the run
 * (its payload copied out, its slot freed) before its handler runs.  From
 * the heap: the root stays in place, "held", while its handler runs; the
 * handler's first schedule() reuses the held root's slot and fills the
 * root hole with the new key (one bottom-up sift) unless the new key joins
 * the run (then the root is dropped first); further schedules append to
 * the run or push a leaf and sift up; if the handler scheduled nothing,
 * the root is removed after it (the same sift with the last key).
 *
 * Invariants (checked by tests/test_engine.c against a sorted array):
 *   - heap order: key(parent) < key(child) for all nodes below n;
 *   - the run is strictly increasing from its front;
 *   - every slot is either in exactly one key (heap or run) or on the free
 *     stack: n + fn + n_free == capacity (a held root counts in n until it
 *     is dropped or overwritten);
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
_Static_assert(HS__SEQ_LIMIT == HS_ENGINE_MAX_EVENTS,
               "hs_engine.h states the sequence limit");
_Static_assert(HS__SLOT_MASK == HS_ENGINE_MAX_CAPACITY,
               "hs_engine.h states the slot limit");
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
    hs__hent_t *fifo;     /* the sorted run: a ring buffer of capacity */
    size_t fhead;         /* its first (smallest) key */
    size_t fn;            /* keys in it */
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
    e->fifo = malloc(capacity * sizeof *e->fifo);
    e->pool = malloc(capacity * sizeof *e->pool);
    e->free_slots = malloc(capacity * sizeof *e->free_slots);
    e->handlers = malloc(n_kinds * sizeof *e->handlers);
    if (e->heap_mem == NULL || e->fifo == NULL || e->pool == NULL ||
        e->free_slots == NULL || e->handlers == NULL)
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
    free(e->fifo);
    free(e->pool);
    free(e->free_slots);
    free(e->handlers);
    free(e);
}

void hs_engine_reset(hs_engine_t *e)
{
    e->n = 0;
    e->fhead = 0;
    e->fn = 0;
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

/* Index i of the run's ring buffer, i < 2 capacity. */
static inline size_t hs__fi(const hs_engine_t *e, size_t i)
{
    return i >= e->capacity ? i - e->capacity : i;
}

/* 1 when key x may join the sorted run: the run is empty or x is after
   its last key. */
static inline int hs__fifo_takes(const hs_engine_t *e, const hs__hent_t *x)
{
    return e->fn == 0 ||
           hs__less(&e->fifo[hs__fi(e, e->fhead + e->fn - 1)], x);
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
    x.t = time_ns;
    x.k = e->seq << HS__SLOT_BITS; /* the slot bits never decide */
    if (e->held) {
        e->held = 0;
        if (hs__fifo_takes(e, &x)) {
            /* it joins the run: the handled root leaves the heap */
            hs__drop_root(e);
        } else {
            /* the first event a handler schedules takes the place (and
               the slot) of the one being handled: one sift instead of a
               pop and a push */
            slot = (uint32_t)(h[0].k & HS__SLOT_MASK);
            e->pool[slot].kind = kind;
            e->pool[slot].device = device;
            e->pool[slot].arg = arg;
            x.k = e->seq++ << HS__SLOT_BITS | slot;
            hs__fill_root(h, e->n, x);
            return 0;
        }
    }
    slot = e->free_slots[--e->n_free];
    e->pool[slot].kind = kind;
    e->pool[slot].device = device;
    e->pool[slot].arg = arg;
    x.k = e->seq++ << HS__SLOT_BITS | slot;
    if (hs__fifo_takes(e, &x)) {
        e->fifo[hs__fi(e, e->fhead + e->fn++)] = x;
    } else {
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
    }
    if (e->n + e->fn > e->high_water)
        e->high_water = e->n + e->fn;
    return 0;
}

/* Copies the event of key *top into *out and advances the clock. */
static inline void hs__take(hs_engine_t *e, const hs__hent_t *top,
                            hs_event_t *out)
{
    uint32_t slot = (uint32_t)(top->k & HS__SLOT_MASK);

    out->time_ns = top->t;
    out->seq = top->k >> HS__SLOT_BITS;
    out->kind = e->pool[slot].kind;
    out->device = e->pool[slot].device;
    out->arg = e->pool[slot].arg;
    e->now = top->t;
    e->popped++;
}

/* 1 when the earliest event is the run's first, 0 when the heap's root.
   Requires n + fn > 0 and no held root. */
static inline int hs__from_fifo(const hs_engine_t *e)
{
    return e->fn > 0 &&
           (e->n == 0 || hs__less(&e->fifo[e->fhead], &e->heap[0]));
}

/* Removes the run's first event into *out and frees its slot (its payload
   is copied first, so a handler may reuse the slot). */
static inline void hs__pop_fifo(hs_engine_t *e, hs_event_t *out)
{
    const hs__hent_t *top = &e->fifo[e->fhead];

    hs__take(e, top, out);
    e->free_slots[e->n_free++] = (uint32_t)(top->k & HS__SLOT_MASK);
    e->fhead = hs__fi(e, e->fhead + 1);
    e->fn--;
}

int hs_engine_pop(hs_engine_t *e, hs_event_t *out)
{
    if (e->held) {
        /* called from a handler: the handled event leaves first */
        e->held = 0;
        hs__drop_root(e);
    }
    if (e->n + e->fn == 0)
        return 0;
    if (hs__from_fifo(e)) {
        hs__pop_fifo(e, out);
    } else {
        hs__take(e, &e->heap[0], out);
        hs__drop_root(e);
    }
    return 1;
}

hs_err_t hs_engine_run(hs_engine_t *e, hs_error_t *err)
{
    hs_event_t ev;
    hs_handler_t *hd = e->handlers;
    void *model = e->model;

    while (e->n + e->fn > 0 && !e->failed) {
        int stop;
        if (hs__from_fifo(e)) {
            hs__pop_fifo(e, &ev);
        } else {
            /* the root stays in place while its handler runs */
            hs__take(e, &e->heap[0], &ev);
            e->held = 1;
        }
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
    return e->n + e->fn - (size_t)e->held;
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
           (2 * e->capacity + HS__ROOT + 4) * sizeof(hs__hent_t) +
           e->capacity * (sizeof(hs__payload_t) + sizeof(uint32_t)) +
           e->n_kinds * sizeof(hs_handler_t);
}
