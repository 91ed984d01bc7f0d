/*
 * hs_scenario_check.c -- refusing at load what would overflow later
 * (hs_scenario_check_ranges).
 *
 * Every value a scenario holds is within the limits of base/hs_limits.h
 * once loaded, but valid values can still combine into a time that does
 * not fit: a 1 TB payload on a 1 bit/s link (8e21 ns per chunk), a
 * compute_scale of 1000 on a forward pass of 1e6 s, ten thousand steps
 * of a step of a year.  The closed form would print a wrapped figure and
 * the replay would stop in the event engine's internal check ("event
 * scheduled before the current time"), far from the key to blame.
 *
 * So this pass bounds, from above, every time the closed form and the
 * replay derive, in double precision (which cannot overflow at these
 * magnitudes) and with the same rounding helpers, and compares each bound
 * with HS_LIMIT_TIME_NS (1e18 ns, 31.7 years):
 *
 *   compute  C_d = c_d (fwd + max(b1, bwd, last bucket ready) + opt)
 *                  + extra_d,
 *            c_d = compute_scale times every straggler factor > 1 of d,
 *            extra_d = extra_compute plus every straggler extra of d,
 *            each time its largest value: the mean, the largest sample,
 *            and mean + HS_DRAW_SD_MAX sd (the replay truncates its
 *            normal draws there);
 *   ring     R = 2(N-1) max_k (nb (lat_k + 2) + xfer(M_max / N, bw_k)
 *                  + comm_max M_max / N),
 *            nb the most gradient buckets of a type (1 outside buckets
 *            mode), M_max the largest payload of a type; for another
 *            collective R is its own bound (hs_collective_t.bound_ns:
 *            the hierarchical one phase by phase, the tree N R sends
 *            over its worst link, auto its pick's), the rounds of each
 *            timed the same way;
 *   debt     rounds x (comm_max M_max / N + nb) <= 2^43 ns, the compute
 *            the communication's own cost may take from a device in one
 *            step (the replay packs it in an event argument; another
 *            collective: comm_max x the bytes and nb x the chunks a device
 *            receives at the most);
 *   step     S = max_d dl_d + max_d C_d + R;
 *   replay   steps x S.
 *
 * The bounds are loose (sums where the model takes maxima) but every real
 * scenario is orders of magnitude below the limit, and a scenario that
 * passes cannot overflow in the closed form's T(i), T_ar, or in any event
 * time of the replay (every event time is at most steps x S).  The
 * epoch and the total (I x step, E x epoch) depend on the shard
 * arithmetic of the closed form, which checks them itself.
 *
 * A failure blames the biggest term's key (hs_scenario_fail): a
 * profile's allreduce_bytes or comm_ns_per_byte, network.latency, a
 * device's compute_scale or extra_compute, a straggler, a profile time,
 * simulate.steps.  O(N + stragglers) time, O(N) memory.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_checked.h"
#include "hs_collective.h"
#include "hs_limits.h"
#include "hs_phases.h"
#include "hs_scenario.h"
#include "hs_units.h"

/* The limit as a double, and its words for messages. */
#define HS__LIM ((double)HS_LIMIT_TIME_NS)
#define HS__LIM_TXT "hetsim handles times up to 1e18 ns (31.7 years)"

/* The largest value a time can take in the closed form or a replay. */
static double hs__dmax(const hs_dist_t *d)
{
    double m;
    size_t i;

    if (!d->known)
        return 0;
    m = (double)d->mean_ns;
    for (i = 0; d->samples_ns != NULL && i < d->n_samples; i++)
        if ((double)d->samples_ns[i] > m)
            m = (double)d->samples_ns[i];
    if (d->sd_ns > 0 &&
        (double)d->mean_ns + HS_DRAW_SD_MAX * (double)d->sd_ns > m)
        m = (double)d->mean_ns + HS_DRAW_SD_MAX * (double)d->sd_ns;
    return m;
}

/* The time a type's buckets get ready at, at the latest (its own, or
   another type's stretched by their ratio of backward or forward times,
   as the replay borrows them). */
static double hs__ready_max(const hs_scenario_t *s, size_t t)
{
    const hs_profile_t *p = &s->types[t].profile;
    double best = 0;
    size_t u, b;

    if (p->n_buckets > 0) {
        for (b = 0; b < p->n_buckets; b++)
            if ((double)p->buckets[b].ready_ns > best)
                best = (double)p->buckets[b].ready_ns;
        return best;
    }
    for (u = 0; u < s->n_types; u++) {
        const hs_profile_t *q = &s->types[u].profile;
        double mine, theirs, r = 0, ratio = 1.0;
        if (!s->types[u].has_profile || q->n_buckets == 0)
            continue;
        for (b = 0; b < q->n_buckets; b++)
            if ((double)q->buckets[b].ready_ns > r)
                r = (double)q->buckets[b].ready_ns;
        mine = p->t_bwd.known ? hs__dmax(&p->t_bwd) : hs__dmax(&p->t_fwd);
        theirs = q->t_bwd.known ? (double)q->t_bwd.mean_ns
                                : (double)q->t_fwd.mean_ns;
        if (theirs > 0)
            ratio = mine / theirs > 1.0 ? mine / theirs : 1.0;
        if (r * ratio > best)
            best = r * ratio;
    }
    return best;
}

/* "1.2e+21 ns" or "3.000 ms": a bound in words. */
static const char *hs__t(double ns, char *buf, size_t len)
{
    if (ns < 9e18)
        return hs_fmt_time((int64_t)ns, buf, len);
    snprintf(buf, len, "%.3g ns", ns);
    return buf;
}

/* The key of device d's biggest compute factor or term, for blame. */
static void hs__compute_key(const hs_scenario_t *s,
                            const hs_straggler_t *stragglers,
                            size_t n_stragglers, uint32_t d,
                            double scale_part, double strag_part,
                            const char *prof_key, char *key, size_t len)
{
    size_t i;

    if (strag_part > 1.0 && strag_part >= scale_part) {
        for (i = 0; i < n_stragglers; i++)
            if (stragglers[i].device == d && stragglers[i].factor > 1.0) {
                snprintf(key, len, "simulate.stragglers.%zu", i);
                return;
            }
    }
    if (scale_part > 1.0) {
        snprintf(key, len, "devices.%s.compute_scale", s->devices[d].name);
        return;
    }
    snprintf(key, len, "device_types.%s.profile.%s",
             s->types[s->devices[d].type].name, prof_key);
}

/* What hs_scenario_check_ranges_with derives, phase by phase: the
   scenario and its options, per-device factors (owned), the maxima of
   each term and whom to blame for them, and the blame key's buffer. */
typedef struct {
    const hs_scenario_t *s;
    hs_overlap_t overlap;
    const hs_straggler_t *stragglers;
    size_t n_stragglers;
    hs_error_t *err;
    const hs_collective_t *coll; /* the collective asked (NULL: ring) */
    hs_coll_bound_t cb;     /* its all-reduce's bound (hs_collective.h) */
    int ring;               /* cb is the flat ring's */
    double *fac, *extra;
    double c_max, dl_max, m_max, comm_max, r_max;
    double nb_max, n, rounds;
    uint32_t c_dev, dl_dev, r_edge;
    size_t m_type, comm_type;
    char key[HS_LIMIT_NAME_LEN + 64];
} hs__bounds_t;

/* Fills fac (compute_scale factors of the stragglers > 1) and extra
   (extra_compute plus the stragglers' extras) of every device. */
static void hs__device_factors(hs__bounds_t *k)
{
    const hs_scenario_t *s = k->s;
    uint32_t d;
    size_t i;

    for (d = 0; d < s->n_devices; d++) {
        k->fac[d] = 1.0;
        k->extra[d] = (double)s->devices[d].extra_compute_ns;
    }
    for (i = 0; i < k->n_stragglers; i++) {
        const hs_straggler_t *g = &k->stragglers[i];
        if (g->device >= s->n_devices)
            continue;
        if (g->factor > 1.0)
            k->fac[g->device] *= g->factor;
        k->extra[g->device] += (double)g->extra_ns;
    }
}

/* Per type: the largest payload, communication cost and bucket count. */
static void hs__type_maxima(hs__bounds_t *k)
{
    const hs_scenario_t *s = k->s;
    size_t t;

    for (t = 0; t < s->n_types; t++) {
        const hs_profile_t *p = &s->types[t].profile;
        double M;
        if (!s->types[t].has_profile)
            continue;
        M = hs_profile_payload_bytes(p);
        if (M > k->m_max) {
            k->m_max = M;
            k->m_type = t;
        }
        if (p->comm_ns_per_byte > k->comm_max) {
            k->comm_max = p->comm_ns_per_byte;
            k->comm_type = t;
        }
        if (k->overlap == HS_OVERLAP_BUCKETS &&
            (double)p->n_buckets > k->nb_max)
            k->nb_max = (double)p->n_buckets;
    }
}

/* Refuses device d's compute bound cd over the limit, blaming its
   biggest term; returns the error. */
static hs_err_t hs__compute_fail(hs__bounds_t *k, uint32_t d, double cd,
                                 double fwd, double b1x, double bwd,
                                 double tail, double opt)
{
    const hs_scenario_t *s = k->s;
    const hs_device_t *dv = &s->devices[d];
    const double *fac = k->fac, *extra = k->extra;
    char b1[64], b2[64];
    const char *big;

    if (extra[d] > dv->compute_scale * fac[d] * (fwd + tail + opt)) {
        size_t g;
        snprintf(k->key, sizeof k->key, "devices.%s.extra_compute",
                 dv->name);
        for (g = 0; g < k->n_stragglers; g++)
            if (k->stragglers[g].device == d &&
                k->stragglers[g].extra_ns > 0)
                snprintf(k->key, sizeof k->key, "simulate.stragglers.%zu",
                         g);
    } else {
        big = fwd >= tail && fwd >= opt ? "t_fwd"
              : tail >= opt ? (bwd >= b1x ? "t_bwd" : "t_b1")
                            : "t_opt";
        hs__compute_key(s, k->stragglers, k->n_stragglers, d, dv->compute_scale, fac[d], big, k->key,
                        sizeof k->key);
    }
    return hs_scenario_fail(
        s, k->key, HS_ERR_RANGE, k->err,
        "device '%s' would compute for up to %s in one step "
        "(scaled by %.6g, plus %s extra); " HS__LIM_TXT,
        dv->name, hs__t(cd, b1, sizeof b1),
        dv->compute_scale * fac[d], hs__t(extra[d], b2, sizeof b2));
}

/* Bounds device d's compute and data loading in one step, raising
   c_max and dl_max; refuses a micro_batches that does not divide the
   batch, or a compute bound over the limit. */
static hs_err_t hs__device_bound(hs__bounds_t *k, uint32_t d)
{
    const hs_scenario_t *s = k->s;
    const hs_device_t *dv = &s->devices[d];
    const hs_type_t *ty = &s->types[dv->type];
    const hs_profile_t *p = &ty->profile;
    double fwd, b1x, bwd, rdy, opt, tail, cd, dl;

    if (!ty->has_profile)
        return HS_OK;
    fwd = hs__dmax(&p->t_fwd);
    b1x = hs__dmax(&p->t_b1);
    bwd = hs__dmax(&p->t_bwd);
    if (ty->micro_batches > 1) {
        /* the micro-batches before the last: whole forwards and
           backwards ahead of the last one's forward (hs_phases.h) */
        double mb = (double)ty->micro_batches;

        if (ty->batch % ty->micro_batches != 0) {
            snprintf(k->key, sizeof k->key, "device_types.%s.micro_batches",
                     ty->name);
            return hs_scenario_fail(
                s, k->key, HS_ERR_RANGE, k->err,
                "micro_batches %u does not divide the batch %llu: a "
                "step's micro-batches are batch / micro_batches samples "
                "each",
                ty->micro_batches, (unsigned long long)ty->batch);
        }
        fwd = mb * fwd + (mb - 1.0) * (b1x > bwd ? b1x : bwd);
    }
    rdy = k->overlap == HS_OVERLAP_BUCKETS ||
                  k->overlap == HS_OVERLAP_LAST_BUCKET
              ? hs__ready_max(s, dv->type)
              : 0;
    opt = hs__dmax(&p->t_opt);
    tail = b1x > bwd ? b1x : bwd;
    if (rdy > tail)
        tail = rdy;
    cd = hs_phases_bound(dv->compute_scale * k->fac[d], k->extra[d], fwd,
                         tail, opt);
    if (!(cd <= HS__LIM))
        return hs__compute_fail(k, d, cd, fwd, b1x, bwd, tail, opt);
    if (cd > k->c_max) {
        k->c_max = cd;
        k->c_dev = d;
    }
    dl = hs__dmax(&p->t_dl) *
         (ty->micro_batches > 1 ? (double)ty->micro_batches : 1.0);
    if (dl > k->dl_max) {
        k->dl_max = dl;
        k->dl_dev = d;
    }
    return HS_OK;
}

/* The collective's all-reduce bound (hs_collective_bound: the ring's
   worst edge round r_max on edge r_edge, or the collective's own). */
static void hs__coll_bound(hs__bounds_t *k)
{
    k->cb.payload_bytes = k->m_max;
    k->cb.comm_ns_per_byte = k->comm_max;
    k->cb.n_buckets = k->nb_max;
    hs_collective_bound(k->coll, k->s, &k->cb);
    k->ring = k->cb.by == &hs_coll_ring;
    k->r_max = k->cb.round_ns;
    k->r_edge = k->cb.edge;
}

/* The communication's own cost one device pays in a step: every chunk
   it receives, processed (the replay's "debt"); refuses it over 2^43 ns. */
static hs_err_t hs__check_debt(hs__bounds_t *k)
{
    const hs_scenario_t *s = k->s;
    double debt;
    char ds[64];

    if (!(k->comm_max > 0))
        return HS_OK;
    debt = k->ring ? k->rounds * (k->comm_max * k->m_max / k->n + k->nb_max)
                   : k->comm_max * k->cb.recv_bytes +
                         k->nb_max * k->cb.recv_chunks;
    if (debt <= (double)HS_LIMIT_COMM_DEBT_NS)
        return HS_OK;
    snprintf(k->key, sizeof k->key,
             "device_types.%s.profile.comm_ns_per_byte",
             s->types[k->comm_type].name);
    return hs_scenario_fail(
        s, k->key, HS_ERR_RANGE, k->err,
        "processing its %s chunks (%g ns per byte of a %.3g B "
        "payload) would take a device up to %s of compute in one "
        "step; the replay handles up to 2^43 ns (2.44 h)",
        k->cb.by->name, k->comm_max, k->m_max, hs__t(debt, ds, sizeof ds));
}

/* The key to blame for an all-reduce bound whose worst round pays lat
   (per bucket), xfer and a communication cost of comm: the biggest. */
static void hs__coll_key(hs__bounds_t *k, double lat, double xfer,
                         double comm)
{
    const hs_scenario_t *s = k->s;

    if (k->nb_max * lat >= xfer && k->nb_max * lat >= comm)
        snprintf(k->key, sizeof k->key, "network.latency");
    else if (comm > xfer)
        snprintf(k->key, sizeof k->key,
                 "device_types.%s.profile.comm_ns_per_byte",
                 s->types[k->comm_type].name);
    else
        snprintf(k->key, sizeof k->key,
                 "device_types.%s.profile.allreduce_bytes",
                 s->types[k->m_type].name);
}

/* Refuses one ring all-reduce bound (ring) over the limit, blaming the
   latency, the communication cost or the payload of its worst edge. */
static hs_err_t hs__ring_fail(hs__bounds_t *k, double ring)
{
    const hs_scenario_t *s = k->s;
    double m_max = k->m_max, n = k->n, comm_max = k->comm_max;
    uint32_t r_edge = k->r_edge;
    uint32_t a = s->ring[r_edge];
    uint32_t b = s->ring[r_edge + 1 == s->n_devices ? 0 : r_edge + 1];
    double bw = s->ring_bw_bytes_per_s[r_edge];
    double lat = (double)s->ring_lat_ns[r_edge];
    double xfer = (m_max / n) * 1e9 / bw;
    char bw_s[64], lat_s[64], ch_s[64], m_s[64], x_s[64], r_s[64];

    hs__coll_key(k, lat, xfer, comm_max * m_max / n);
    return hs_scenario_fail(
        s, k->key, HS_ERR_RANGE, k->err,
        "one ring all-reduce would take up to %s: %.0f rounds over "
        "the link '%s' -> '%s' (%s, latency %s), each a chunk of %s "
        "(payload %s / %u devices) taking %s; " HS__LIM_TXT,
        hs__t(ring, r_s, sizeof r_s), k->rounds, s->devices[a].name,
        s->devices[b].name, hs_fmt_bandwidth(bw, bw_s, sizeof bw_s),
        hs__t(lat, lat_s, sizeof lat_s),
        hs_fmt_bytes((uint64_t)(m_max / n), ch_s, sizeof ch_s),
        hs_fmt_bytes((uint64_t)m_max, m_s, sizeof m_s),
        (unsigned)s->n_devices, hs__t(xfer, x_s, sizeof x_s));
}

/* Refuses the all-reduce bound (ns) of a collective other than the flat
   ring over the limit, naming its worst phase's rounds and link. */
static hs_err_t hs__coll_fail(hs__bounds_t *k, double ns)
{
    const hs_scenario_t *s = k->s;
    const hs_coll_bound_t *b = &k->cb;
    char bw_s[64], lat_s[64], ch_s[64], m_s[64], x_s[64], r_s[64];

    hs__coll_key(k, b->lat_ns, b->xfer_ns,
                 k->comm_max * b->chunk_bytes);
    return hs_scenario_fail(
        s, k->key, HS_ERR_RANGE, k->err,
        "one %s all-reduce could take up to %s: %.0f rounds, %.0f of them "
        "over links as slow as '%s' -> '%s' (%s, latency %s), each a chunk "
        "of %s (payload %s) taking %s; " HS__LIM_TXT,
        b->by->name, hs__t(ns, r_s, sizeof r_s), b->rounds_all, b->rounds,
        s->devices[b->from].name, s->devices[b->to].name,
        hs_fmt_bandwidth(b->bw_bytes_per_s, bw_s, sizeof bw_s),
        hs__t(b->lat_ns, lat_s, sizeof lat_s),
        hs_fmt_bytes((uint64_t)b->chunk_bytes, ch_s, sizeof ch_s),
        hs_fmt_bytes((uint64_t)k->m_max, m_s, sizeof m_s),
        hs__t(b->xfer_ns, x_s, sizeof x_s));
}

/* Refuses a step bound over the limit, blaming the biggest of the ring,
   the compute and the data loading. */
static hs_err_t hs__step_fail(hs__bounds_t *k, double step, double ring)
{
    const hs_scenario_t *s = k->s;
    double c_max = k->c_max, dl_max = k->dl_max;
    char st[64], cs[64], ds[64], rs[64];

    if (ring >= c_max && ring >= dl_max)
        snprintf(k->key, sizeof k->key,
                 "device_types.%s.profile.allreduce_bytes",
                 s->types[k->m_type].name);
    else if (c_max >= dl_max) {
        const hs_device_t *dv = &s->devices[k->c_dev];
        hs__compute_key(s, k->stragglers, k->n_stragglers, k->c_dev, dv->compute_scale, k->fac[k->c_dev], "t_fwd",
                        k->key, sizeof k->key);
    } else
        snprintf(k->key, sizeof k->key, "device_types.%s.profile.t_dl",
                 s->types[s->devices[k->dl_dev].type].name);
    return hs_scenario_fail(
        s, k->key, HS_ERR_RANGE, k->err,
        "a step could take up to %s (compute %s, data loading %s, "
        "the %s all-reduce %s); " HS__LIM_TXT,
        hs__t(step, st, sizeof st), hs__t(c_max, cs, sizeof cs),
        k->cb.by->name,
        hs__t(dl_max, ds, sizeof ds), hs__t(ring, rs, sizeof rs));
}

hs_err_t hs_scenario_check_ranges(const hs_scenario_t *s, uint32_t steps,
                                  hs_error_t *err)
{
    return hs_scenario_check_ranges_with(s, steps, s->overlap, s->stragglers,
                                         s->n_stragglers, err);
}

hs_err_t hs_scenario_check_ranges_with(const hs_scenario_t *s,
                                       uint32_t steps, hs_overlap_t overlap,
                                       const hs_straggler_t *stragglers,
                                       size_t n_stragglers, hs_error_t *err)
{
    const hs_collective_t *c = NULL;

    /* an unknown name: the ring's bound (the loader refuses the name) */
    if (hs_collective_find(s->collective, &c, NULL) != HS_OK)
        c = NULL;
    return hs_scenario_check_ranges_coll(s, steps, overlap, stragglers,
                                         n_stragglers, c, err);
}

hs_err_t hs_scenario_check_ranges_coll(const hs_scenario_t *s,
                                       uint32_t steps, hs_overlap_t overlap,
                                       const hs_straggler_t *stragglers,
                                       size_t n_stragglers,
                                       const struct hs_collective_s *coll,
                                       hs_error_t *err)
{
    hs__bounds_t k;
    double ring, step;
    uint32_t d;
    hs_err_t rc = HS_OK;

    if (s->n_devices < 2 || s->ring == NULL)
        return HS_OK;
    memset(&k, 0, sizeof k);
    k.s = s;
    k.overlap = overlap;
    k.stragglers = stragglers;
    k.n_stragglers = n_stragglers;
    k.err = err;
    k.coll = coll;
    k.nb_max = 1;
    k.n = (double)s->n_devices;
    k.rounds = 2.0 * (k.n - 1.0);
    k.fac = malloc(s->n_devices * sizeof *k.fac);
    k.extra = malloc(s->n_devices * sizeof *k.extra);
    if (k.fac == NULL || k.extra == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto done;
    }
    hs__device_factors(&k);
    hs__type_maxima(&k);
    for (d = 0; d < s->n_devices; d++)
        if ((rc = hs__device_bound(&k, d)) != HS_OK)
            goto done;
    hs__coll_bound(&k);
    if ((rc = hs__check_debt(&k)) != HS_OK)
        goto done;
    ring = k.ring ? k.rounds * k.r_max : k.cb.ns;
    if (!(ring <= HS__LIM)) {
        rc = k.ring ? hs__ring_fail(&k, ring) : hs__coll_fail(&k, ring);
        goto done;
    }
    step = k.dl_max + k.c_max + ring;
    if (!(step <= HS__LIM)) {
        rc = hs__step_fail(&k, step, ring);
        goto done;
    }
    if (steps > 0 && !((double)steps * step <= HS__LIM)) {
        char st[64], tot[64];
        rc = hs_scenario_fail(
            s, "simulate.steps", HS_ERR_RANGE, err,
            "%u steps of up to %s each would replay up to %s; " HS__LIM_TXT,
            steps, hs__t(step, st, sizeof st),
            hs__t((double)steps * step, tot, sizeof tot));
        goto done;
    }
done:
    free(k.fac);
    free(k.extra);
    return rc;
}

void hs_scenario_replay_estimate(const hs_scenario_t *s, uint32_t steps,
                                 hs_overlap_t overlap,
                                 const hs_collective_t *coll,
                                 double *events, double *bytes)
{
    double n = (double)s->n_devices, nb = 1, per_step;
    size_t t;

    if (overlap == HS_OVERLAP_BUCKETS)
        for (t = 0; t < s->n_types; t++)
            if ((double)s->types[t].profile.n_buckets > nb)
                nb = (double)s->types[t].profile.n_buckets;
    /* per step: an ARRIVE per chunk of each bucket's all-reduce, and per
       device its openings and a handful of phase events (the ring's
       replay counts about steps x N x (2(N-1) + 1) in patent mode) */
    per_step = hs_collective_chunks(coll, s) * nb + n * (nb + 8.0);
    *events = (double)steps * per_step;
    /* per device: its state, ring lanes and queue entries (about 200 B
       measured, 4x here); per step: the cluster's step time (8 B, 2x);
       plus what the collective holds for the cluster (the tree's
       schedule: (R + 9) N int64, R up to 513 rounds) */
    *bytes = n * (768.0 + nb * 256.0) + (double)steps * 16.0 +
             hs_collective_state_bytes(coll, s);
}

hs_err_t hs_scenario_check_budget(const hs_scenario_t *s, uint32_t steps,
                                  hs_overlap_t overlap,
                                  const hs_collective_t *coll,
                                  hs_error_t *err)
{
    const hs_collective_t *run =
        hs_collective_resolve(coll != NULL ? coll : &hs_coll_ring, s);
    double ev, by;

    hs_scenario_replay_estimate(s, steps, overlap, run, &ev, &by);
    if (ev > (double)HS_LIMIT_EVENTS)
        return hs_scenario_fail(
            s, "simulate.steps", HS_ERR_RANGE, err,
            "replaying %u steps of %zu devices takes about %.3g events "
            "(%s all-reduce: %.3g chunks per step and bucket), more than "
            "the budget of %.3g; replay fewer steps, or pass --force",
            steps, s->n_devices, ev, run->name,
            hs_collective_chunks(run, s), (double)HS_LIMIT_EVENTS);
    if (by > (double)HS_LIMIT_STATE_BYTES)
        return hs_scenario_fail(
            s, "simulate.steps", HS_ERR_RANGE, err,
            "replaying %u steps of %zu devices needs about %.3g GiB of "
            "memory, more than the budget of %.3g GiB; replay fewer steps, "
            "or pass --force",
            steps, s->n_devices, by / 1073741824.0,
            (double)HS_LIMIT_STATE_BYTES / 1073741824.0);
    return HS_OK;
}

hs_err_t hs_scenario_epoch_total(const hs_scenario_t *s, uint64_t iters,
                                 int64_t step_ns, int64_t *epoch_ns,
                                 int64_t *total_ns, hs_error_t *err)
{
    int64_t i = 0, e = 0, tot = 0;
    char st[64], ep[64];

    if (hs_checked_u64_to_i64(iters, &i) != 0 ||
        hs_checked_mul_i64(i, step_ns, &e) != 0 || !hs_checked_time_ok(e))
        return hs_scenario_fail(
            s, "job.dataset", HS_ERR_RANGE, err,
            "one epoch of %llu iterations of a %s step would take %.3g ns; "
            HS__LIM_TXT,
            (unsigned long long)iters, hs_fmt_time(step_ns, st, sizeof st),
            (double)iters * (double)step_ns);
    if (hs_checked_mul_i64(e, (int64_t)s->epochs, &tot) != 0 ||
        !hs_checked_time_ok(tot))
        return hs_scenario_fail(
            s, "job.epochs", HS_ERR_RANGE, err,
            "%u epochs of %s would take %.3g ns; " HS__LIM_TXT, s->epochs,
            hs_fmt_time(e, ep, sizeof ep), (double)e * (double)s->epochs);
    *epoch_ns = e;
    *total_ns = tot;
    return HS_OK;
}
