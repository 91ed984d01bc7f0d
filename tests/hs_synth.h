/*
 * hs_synth.h -- synthetic scenarios and replay-like intervals for the trace
 * export tests (test_h5, test_chrome, test_plot), so the writers can be
 * tested without the replay.  Header-only (static functions): each test is
 * its own executable.
 *
 * The timeline is plausible, not the replay's: per step all devices start
 * together; forward then the first backward op; the ring starts when every
 * device is done with it and runs 2(N-1) lock-step rounds (a send of
 * xfer_ns, then a wait for the slowest sender); the rest of the backward runs
 * beside the ring; the CPU loads the next batch from the step start; the
 * step ends when ring, backward and data loading are done, and a device
 * whose compute finished before its data waits (data_wait).
 */
#ifndef HS_SYNTH_H
#define HS_SYNTH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_scenario.h"
#include "hs_trace.h"

/* Per-type figures of the synthetic timeline, in ns. */
typedef struct hs_synth_type_s {
    const char *name;
    int64_t dl, fwd, b1, brest, xfer;
} hs_synth_type_t;

/* A hand-built scenario: n devices, type of device i = i % n_types. */
static hs_scenario_t *hs_synth_scenario(size_t n, const hs_synth_type_t *ty,
                                        size_t n_types, const char *text)
{
    hs_scenario_t *s = calloc(1, sizeof *s);
    size_t i;

    s->text = strdup(text);
    s->name = strdup("synthetic");
    s->file = strdup("<synthetic>");
    s->n_types = n_types;
    s->types = calloc(n_types, sizeof *s->types);
    for (i = 0; i < n_types; i++) {
        s->types[i].name = strdup(ty[i].name);
        s->types[i].count = 0;
    }
    s->n_devices = n;
    s->devices = calloc(n, sizeof *s->devices);
    s->ring = calloc(n, sizeof *s->ring);
    s->arena = calloc(n, 64);
    for (i = 0; i < n; i++) {
        char *nm = s->arena + 64 * i;
        s->devices[i].type = (uint32_t)(i % n_types);
        s->types[i % n_types].count++;
        snprintf(nm, 32, "%s-%zu", ty[i % n_types].name, i / n_types);
        snprintf(nm + 32, 32, "198.18.0.%zu", i + 1);
        s->devices[i].name = nm;
        s->devices[i].addr = nm + 32;
        s->devices[i].compute_scale = 1.0;
        /* ring in reverse listing order, so ring_pos != id */
        s->devices[i].ring_pos = (uint32_t)(n - 1 - i);
        s->ring[n - 1 - i] = (uint32_t)i;
    }
    s->overlap = HS_OVERLAP_PATENT;
    s->send = HS_SEND_RENDEZVOUS;
    s->seed = 42;
    s->sim_steps = 3;
    return s;
}

static void hs_synth_scenario_free(hs_scenario_t *s)
{
    size_t i;

    if (s == NULL)
        return;
    for (i = 0; i < s->n_types; i++)
        free(s->types[i].name);
    free(s->types);
    free(s->devices);
    free(s->ring);
    free(s->arena);
    free(s->text);
    free(s->name);
    free(s->file);
    free(s);
}

/* A growing array of intervals and step records. */
typedef struct hs_synth_run_s {
    hs_interval_t *iv;
    size_t n, cap;
    hs_step_rec_t *st;
    size_t n_st, cap_st;
} hs_synth_run_t;

static void hs_synth_add(hs_synth_run_t *r, uint32_t dev, uint32_t step,
                         int ph, int32_t round, int32_t peer, int64_t a,
                         int64_t b, uint64_t bytes)
{
    hs_interval_t *v;

    if (b <= a)
        return;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        r->iv = realloc(r->iv, r->cap * sizeof *r->iv);
    }
    v = &r->iv[r->n++];
    memset(v, 0, sizeof *v);
    v->device = dev;
    v->step = step;
    v->phase = (uint8_t)ph;
    v->round = round;
    v->bucket = -1;
    v->peer = peer;
    v->start_ns = a;
    v->end_ns = b;
    v->bytes = bytes;
}

/* Generates `steps` steps of the scenario with the figures of ty. */
static void hs_synth_run(const hs_scenario_t *s, const hs_synth_type_t *ty,
                         uint32_t steps, hs_synth_run_t *r)
{
    size_t n = s->n_devices, i;
    uint32_t k;
    int64_t t0 = 0;
    int64_t *ready = calloc(n, sizeof *ready);
    int64_t *dl_end = calloc(n, sizeof *dl_end);
    int rounds = n > 1 ? 2 * (int)(n - 1) : 0;

    memset(r, 0, sizeof *r);
    for (i = 0; i < n; i++)   /* the first batch is loaded before step 0 */
        dl_end[i] = t0;
    for (k = 0; k < steps; k++) {
        int64_t ring_start = 0, t, end = 0, xmax = 0;
        int rd;
        for (i = 0; i < n; i++) {
            const hs_synth_type_t *y = &ty[s->devices[i].type];
            int64_t f0 = t0;
            hs_synth_add(r, (uint32_t)i, k, HS_PH_FORWARD, -1, -1, f0,
                         f0 + y->fwd, 0);
            hs_synth_add(r, (uint32_t)i, k, HS_PH_BACKWARD_FIRST, -1, -1,
                         f0 + y->fwd, f0 + y->fwd + y->b1, 0);
            ready[i] = f0 + y->fwd + y->b1;
            if (ready[i] > ring_start)
                ring_start = ready[i];
            if (y->xfer > xmax)
                xmax = y->xfer;
        }
        for (i = 0; i < n; i++)
            hs_synth_add(r, (uint32_t)i, k, HS_PH_RING_WAIT, 0,
                         (int32_t)hs_scenario_prev(s, (uint32_t)i),
                         ready[i], ring_start, 0);
        t = ring_start;
        for (rd = 0; rd < rounds; rd++) {
            for (i = 0; i < n; i++) {
                const hs_synth_type_t *y = &ty[s->devices[i].type];
                uint32_t nx = hs_scenario_next(s, (uint32_t)i);
                hs_synth_add(r, (uint32_t)i, k, HS_PH_RING_SEND, rd,
                             (int32_t)nx, t, t + y->xfer, 1000);
                hs_synth_add(r, (uint32_t)i, k, HS_PH_RING_WAIT, rd,
                             (int32_t)hs_scenario_prev(s, (uint32_t)i),
                             t + y->xfer, t + xmax, 0);
            }
            t += xmax;
        }
        end = t;
        for (i = 0; i < n; i++) {
            const hs_synth_type_t *y = &ty[s->devices[i].type];
            int64_t be = ready[i] + y->brest;
            hs_synth_add(r, (uint32_t)i, k, HS_PH_BACKWARD_REST, -1, -1,
                         ready[i], be, 0);
            hs_synth_add(r, (uint32_t)i, k, HS_PH_DATA_LOAD, -1, -1, t0,
                         t0 + y->dl, 0);
            dl_end[i] = t0 + y->dl;
            if (be > end)
                end = be;
            if (dl_end[i] > end)
                end = dl_end[i];
        }
        for (i = 0; i < n; i++) {
            const hs_synth_type_t *y = &ty[s->devices[i].type];
            int64_t comp = t > ready[i] + y->brest ? t : ready[i] + y->brest;
            hs_step_rec_t *st;
            int64_t closed = y->fwd + y->b1 + rounds * y->xfer;
            hs_synth_add(r, (uint32_t)i, k, HS_PH_DATA_WAIT, -1, -1, comp,
                         dl_end[i], 0);
            if (r->n_st == r->cap_st) {
                r->cap_st = r->cap_st ? 2 * r->cap_st : 256;
                r->st = realloc(r->st, r->cap_st * sizeof *r->st);
            }
            st = &r->st[r->n_st++];
            st->device = (uint32_t)i;
            st->step = k;
            st->start_ns = t0;
            st->end_ns = end;
            st->sim_ns = end - t0;
            st->closed_ns = closed > y->dl ? closed : y->dl;
        }
        t0 = end;
    }
    free(ready);
    free(dl_end);
}

static void hs_synth_run_free(hs_synth_run_t *r)
{
    free(r->iv);
    free(r->st);
    memset(r, 0, sizeof *r);
}

#endif
