/*
 * hs_collective.c -- the registry of collectives (hs_collective.h): a
 * static table, looked up by name.  A new collective adds its line here
 * (and its engine a line in sim/hs_coll_engine.c).
 */
#include "hs_collective.h"

#include <stdio.h>
#include <string.h>

#include "hs_checked.h"

static const hs_collective_t *const hs__collectives[] = {
    &hs_coll_ring,
    &hs_coll_hier,
    &hs_coll_tree,
    &hs_coll_auto,
};

#define HS__N_COLL (sizeof hs__collectives / sizeof hs__collectives[0])

const hs_collective_t *hs_collective_get(size_t i)
{
    return i < HS__N_COLL ? hs__collectives[i] : NULL;
}

double hs_collective_chunks(const hs_collective_t *c, const hs_scenario_t *s)
{
    double n = (double)s->n_devices;

    c = hs_collective_resolve(c != NULL ? c : &hs_coll_ring, s);
    if (c->chunks_of != NULL && s->nodes != NULL)
        return c->chunks_of(s);
    /* every device one chunk per round of the flat ring */
    return n > 1.0 ? n * 2.0 * (n - 1.0) : 0.0;
}

void hs_coll_bound_link(hs_coll_bound_t *ph, double chunk, double comm_bytes,
                        double bw, double lat, uint32_t a, uint32_t b)
{
    double xfer, r;
    int64_t x;

    if (!(bw > 0))
        return;   /* the collective's check refuses it */
    /* rounded as the ring's bound always was (the +2 per bucket covers
       hs_xfer_ns's rounding); beyond int64 in double */
    xfer = hs_checked_ns_from_bytes(chunk, bw, &x) == 0 ? (double)x
                                                        : chunk * 1e9 / bw;
    r = ph->n_buckets * (lat + 2.0) + xfer +
        ph->comm_ns_per_byte * comm_bytes;
    if (r > ph->round_ns) {
        ph->round_ns = r;
        ph->chunk_bytes = chunk;
        ph->xfer_ns = xfer;
        ph->bw_bytes_per_s = bw;
        ph->lat_ns = lat;
        ph->from = a;
        ph->to = b;
    }
}

void hs_collective_bound(const hs_collective_t *c, const hs_scenario_t *s,
                         hs_coll_bound_t *b)
{
    c = hs_collective_resolve(c != NULL ? c : &hs_coll_ring, s);
    b->ns = b->rounds = b->round_ns = b->chunk_bytes = b->xfer_ns = 0;
    b->rounds_all = 0;
    b->bw_bytes_per_s = b->lat_ns = b->recv_bytes = b->recv_chunks = 0;
    b->from = b->to = 0;
    b->edge = HS_COLL_EDGE_OWN;
    /* without nodes only the ring runs (the others' checks say why) */
    if (c->bound_ns == NULL || s->nodes == NULL)
        c = &hs_coll_ring;
    b->by = c;
    c->bound_ns(s, b);
}

double hs_collective_state_bytes(const hs_collective_t *c,
                                 const hs_scenario_t *s)
{
    c = hs_collective_resolve(c != NULL ? c : &hs_coll_ring, s);
    if (c->state_bytes_of == NULL || s->nodes == NULL)
        return 0;
    return c->state_bytes_of(s);
}

hs_err_t hs_collective_find(const char *name, const hs_collective_t **out,
                            hs_error_t *err)
{
    char known[256];
    size_t i, len = 0;

    if (name == NULL)
        name = "ring";
    for (i = 0; i < HS__N_COLL; i++) {
        if (strcmp(hs__collectives[i]->name, name) == 0) {
            *out = hs__collectives[i];
            return HS_OK;
        }
    }
    *out = NULL;
    known[0] = '\0';
    for (i = 0; i < HS__N_COLL && len < sizeof known; i++)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s",
                                i ? ", " : "", hs__collectives[i]->name);
    return hs_error_setf(err, HS_ERR_RANGE,
                         "unknown collective '%s' (known: %s)", name, known);
}
