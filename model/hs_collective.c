/*
 * hs_collective.c -- the registry of collectives (hs_collective.h): a
 * static table, looked up by name.  A new collective adds its line here
 * (and its engine a line in sim/hs_coll_engine.c).
 */
#include "hs_collective.h"

#include <stdio.h>
#include <string.h>

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
