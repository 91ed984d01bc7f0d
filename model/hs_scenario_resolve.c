/*
 * hs_scenario_resolve.c -- deriving the cluster from a scenario's settings
 * (hs_scenario.h): devices generated from the type counts, the ring from
 * its mode or names, every ring edge from the link table; and the queries
 * and the release of a scenario.  The loader (hs_scenario.c) and
 * hs_scenario_resolve call the same functions, so a scenario changed with
 * hs_scenario_set resolves exactly as the equivalent YAML would load.
 *
 * Invariants after a successful load or resolve (dirty == 0): n_devices
 * >= 2; ring is a permutation of 0..n_devices-1 and devices[ring[k]]
 * .ring_pos == k; ring_bw_bytes_per_s[k] > 0; every device name and
 * address points into the arena (generated devices share one string for
 * both); the link table's defaults equal default_bw_bytes_per_s and
 * latency_ns.
 *
 * Cost: resolve is O(N + rows) -- the names are written without printf
 * into an arena sized once, and the name hashes are built only when
 * something names devices (explicit ring, pair rows, stragglers,
 * per-device settings).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_hash.h"
#include "hs_limits.h"
#include "hs_nodes.h"
#include "hs_scenario.h"
#include "hs_scenario_int.h"
#include "hs_valid.h"
#include "hs_suggest.h"

/* ------------------------------------------------------------------ */
/* Name hash                                                             */


/* Builds a hash of device names (by_addr == 0) or addresses. */
int hs__hash_build(hs__hash_t *h, const hs_scenario_t *s, int by_addr)
{
    size_t cap = 16, i;

    while (cap < s->n_devices * 2)
        cap *= 2;
    h->slot = calloc(cap, sizeof *h->slot);
    if (h->slot == NULL)
        return -1;
    h->mask = cap - 1;
    for (i = 0; i < s->n_devices; i++) {
        const char *key = by_addr ? s->devices[i].addr : s->devices[i].name;
        size_t j = (size_t)hs_fnv1a_str(key) & h->mask;
        for (;;) {
            uint32_t e = h->slot[j];
            if (e == 0) {
                h->slot[j] = (uint32_t)i + 1;
                break;
            }
            /* keep the first device with a given key */
            if (strcmp(by_addr ? s->devices[e - 1].addr
                               : s->devices[e - 1].name,
                       key) == 0)
                break;
            j = (j + 1) & h->mask;
        }
    }
    return 0;
}

long hs__hash_find(const hs__hash_t *h, const hs_scenario_t *s,
                          int by_addr, const char *key)
{
    size_t j;

    if (h->slot == NULL)
        return -1;
    j = (size_t)hs_fnv1a_str(key) & h->mask;
    for (;;) {
        uint32_t e = h->slot[j];
        if (e == 0)
            return -1;
        if (strcmp(by_addr ? s->devices[e - 1].addr : s->devices[e - 1].name,
                   key) == 0)
            return (long)e - 1;
        j = (j + 1) & h->mask;
    }
}


int hs__names_ready(hs__names_t *nm, const hs_scenario_t *s)
{
    if (nm->by_name.slot == NULL && hs__hash_build(&nm->by_name, s, 0) != 0)
        return -1;
    if (nm->by_addr.slot == NULL && hs__hash_build(&nm->by_addr, s, 1) != 0)
        return -1;
    return 0;
}

void hs__names_free(hs__names_t *nm)
{
    free(nm->by_name.slot);
    free(nm->by_addr.slot);
    memset(nm, 0, sizeof *nm);
}

/* ------------------------------------------------------------------ */
/* The string arena                                                      */

/* Appends str to the arena; returns its offset or (size_t)-1. */
size_t hs__arena_add(hs_scenario_t *s, const char *str)
{
    size_t n = strlen(str) + 1, off;

    if (s->arena_len + n > s->arena_cap) {
        size_t cap = s->arena_cap ? s->arena_cap * 2 : 4096;
        char *p;
        while (cap < s->arena_len + n)
            cap *= 2;
        p = realloc(s->arena, cap);
        if (p == NULL)
            return (size_t)-1;
        s->arena = p;
        s->arena_cap = cap;
    }
    off = s->arena_len;
    memcpy(s->arena + off, str, n);
    s->arena_len += n;
    return off;
}

/* ------------------------------------------------------------------ */
/* Derivation: shared by the loader and hs_scenario_resolve              */

/* Sizes the ring arrays for N devices. */
hs_err_t hs__ring_alloc(hs_scenario_t *s, size_t N, hs_error_t *err)
{
    uint32_t *r = realloc(s->ring, N * sizeof *r);
    double *bw;
    int64_t *lat;

    if (r == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    s->ring = r;
    bw = realloc(s->ring_bw_bytes_per_s, N * sizeof *bw);
    if (bw == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    s->ring_bw_bytes_per_s = bw;
    lat = realloc(s->ring_lat_ns, N * sizeof *lat);
    if (lat == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    s->ring_lat_ns = lat;
    return HS_OK;
}

/*
 * Generates the devices "<type>-<i>" from the type counts (address =
 * name), rebuilding the arena: one pass sizes it, a second writes the
 * names without printf (resolve of 10,000 devices stays well under a
 * millisecond).
 */
hs_err_t hs__ring_size_fail(const hs_scenario_t *s, const char *key,
                            const char *what, const char *limit_verb,
                            size_t cnt, hs_error_t *err)
{
    if (cnt < 2)
        return hs_scenario_fail(s, key, HS_ERR_SCHEMA, err,
                                "%s make %zu device%s: a ring needs at "
                                "least 2",
                                what, cnt, cnt == 1 ? "" : "s");
    return hs_scenario_fail(s, key, HS_ERR_RANGE, err,
                            "%s %s %zu devices; a ring has at most %lu (the "
                            "limit)",
                            what, limit_verb, cnt,
                            (unsigned long)HS_LIMIT_DEVICES);
}

hs_err_t hs__gen_devices(hs_scenario_t *s, hs_error_t *err)
{
    size_t cnt = 0, need = 0, i, k = 0;
    hs_device_t *d;

    if (s->nodes != NULL)
        return hs_nodes_gen_devices(s, err);
    for (i = 0; i < s->n_types; i++) {
        cnt += s->types[i].count;
        need += s->types[i].count * (strlen(s->types[i].name) + 22);
    }
    if (cnt > HS_LIMIT_DEVICES || cnt < 2) {
        /* blame the count of the type with the most devices */
        char key[HS_LIMIT_NAME_LEN + 32];
        size_t big = 0;
        for (i = 1; i < s->n_types; i++)
            if (s->types[i].count > s->types[big].count)
                big = i;
        snprintf(key, sizeof key, "device_types.%s.count",
                 s->n_types ? s->types[big].name : "?");
        return hs__ring_size_fail(s, key, "the type counts", "add up to",
                                  cnt, err);
    }
    d = realloc(s->devices, cnt * sizeof *d);
    if (d == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    s->devices = d;
    if (need > s->arena_cap) {
        char *a = realloc(s->arena, need);
        if (a == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        s->arena = a;
        s->arena_cap = need;
    }
    s->arena_len = 0;
    for (i = 0; i < s->n_types; i++) {
        const char *tn = s->types[i].name;
        size_t tl = strlen(tn);
        uint64_t j;
        for (j = 0; j < s->types[i].count; j++, k++) {
            char dig[24], *p = s->arena + s->arena_len;
            size_t nd = 0;
            uint64_t x = j;
            do {
                dig[nd++] = (char)('0' + x % 10);
                x /= 10;
            } while (x != 0);
            memcpy(p, tn, tl);
            p[tl] = '-';
            for (x = 0; x < nd; x++)
                p[tl + 1 + x] = dig[nd - 1 - x];
            p[tl + 1 + nd] = '\0';
            memset(&d[k], 0, sizeof d[k]);
            d[k].type = (uint32_t)i;
            d[k].compute_scale = 1.0;
            d[k].name = d[k].addr = p;
            s->arena_len += tl + nd + 2;
        }
    }
    s->n_devices = cnt;
    return hs__ring_alloc(s, cnt, err);
}

/* Splits "A100-12" into the length of "A100-" and 12; 0 when the name
   does not end in "-<digits>" (or the number is too long). */
static int hs__name_num(const char *name, size_t *prefix, unsigned long *num)
{
    size_t len = strlen(name), i = len;

    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i == len || i == 0 || name[i - 1] != '-' || len - i > 9 ||
        (name[i] == '0' && len - i > 1))
        return 0;
    *prefix = i;
    *num = strtoul(name + i, NULL, 10);
    return 1;
}

/* Appends text to buf at *at (cap bytes); 0, or -1 when it did not fit
   (buf then ends where it was). */
static int hs__hint_put(char *buf, size_t cap, size_t *at, const char *text)
{
    size_t n = strlen(text);

    if (*at + n + 1 > cap)
        return -1;
    memcpy(buf + *at, text, n + 1);
    *at += n;
    return 0;
}

const char *hs__device_hint(const hs_scenario_t *s, const char *name,
                            char *buf, size_t cap)
{
    /* the tail " ... (N in all))" needs at most this much room */
    enum { TAIL = 40 };
    char item[2 * HS_LIMIT_NAME_LEN + 8];
    hs_suggest_t sg;
    size_t at, i = 0, n = s->n_devices;

    if (cap <= TAIL) {
        if (cap > 0)
            buf[0] = '\0';
        return buf;
    }
    hs_suggest_init(&sg, name);
    for (i = 0; i < n; i++)
        hs_suggest_add(&sg, s->devices[i].name);
    hs_suggest_hint(&sg, buf, cap - TAIL);
    at = strlen(buf);
    if (n == 0 || hs__hint_put(buf, cap - TAIL, &at, " (devices: ") != 0)
        return buf;
    for (i = 0; i < n;) {
        const char *a = s->devices[i].name;
        size_t pa, pb, j = i + 1;
        unsigned long na, nb;
        /* a run A-k, A-k+1, ..., A-m prints as "A-k..A-m" */
        if (hs__name_num(a, &pa, &na))
            while (j < n && hs__name_num(s->devices[j].name, &pb, &nb) &&
                   pb == pa && nb == na + (j - i) &&
                   strncmp(s->devices[j].name, a, pa) == 0)
                j++;
        if (j - i >= 3)
            snprintf(item, sizeof item, "%s%s..%s", i ? ", " : "", a,
                     s->devices[j - 1].name);
        else {
            snprintf(item, sizeof item, "%s%s", i ? ", " : "", a);
            j = i + 1;
        }
        if (hs__hint_put(buf, cap - TAIL, &at, item) != 0) {
            snprintf(buf + at, cap - at, ", ... (%zu in all))", n);
            return buf;
        }
        i = j;
    }
    snprintf(buf + at, cap - at, ")");
    return buf;
}

const char *hs__type_hint(const hs_scenario_t *s, const char *name,
                          char *buf, size_t cap)
{
    enum { TAIL = 40 };
    char item[HS_LIMIT_NAME_LEN + 8];
    hs_suggest_t sg;
    size_t at, i;

    if (cap <= TAIL) {
        if (cap > 0)
            buf[0] = '\0';
        return buf;
    }
    hs_suggest_init(&sg, name);
    for (i = 0; i < s->n_types; i++)
        hs_suggest_add(&sg, s->types[i].name);
    hs_suggest_hint(&sg, buf, cap - TAIL);
    at = strlen(buf);
    if (s->n_types == 0 || hs__hint_put(buf, cap - TAIL, &at, " (types: ") != 0)
        return buf;
    for (i = 0; i < s->n_types; i++) {
        snprintf(item, sizeof item, "%s%s", i ? ", " : "", s->types[i].name);
        if (hs__hint_put(buf, cap - TAIL, &at, item) != 0) {
            snprintf(buf + at, cap - at, ", ... (%zu in all))", s->n_types);
            return buf;
        }
    }
    snprintf(buf + at, cap - at, ")");
    return buf;
}

const char *hs_scenario_type_hint(const hs_scenario_t *s, const char *name,
                                  char *buf, size_t cap)
{
    return hs__type_hint(s, name, buf, cap);
}

const char *hs_scenario_device_hint(const hs_scenario_t *s,
                                    const char *name, char *buf, size_t cap)
{
    return hs__device_hint(s, name, buf, cap);
}

/* Applies the devices.<name>.* settings again to generated devices. */
hs_err_t hs__apply_overrides(hs_scenario_t *s, hs__names_t *nm,
                                    hs_error_t *err)
{
    size_t i;

    for (i = 0; i < s->n_dev_overrides; i++) {
        const hs_dev_override_t *o = &s->dev_overrides[i];
        long d;
        if (hs__names_ready(nm, s) != 0)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        d = hs__hash_find(&nm->by_name, s, 0, o->name);
        if (d < 0)
        {
            char hint[HS__HINT_LEN];
            return hs_error_setf(err, HS_ERR_SCHEMA,
                                 "%s: devices.%s: unknown device%s", s->file,
                                 o->name,
                                 hs__device_hint(s, o->name, hint,
                                                 sizeof hint));
        }
        if (o->has_scale)
            s->devices[d].compute_scale = o->compute_scale;
        if (o->has_extra)
            s->devices[d].extra_compute_ns = o->extra_compute_ns;
    }
    return HS_OK;
}

/* Fills s->ring from s->ring_mode (and ring_names), and each device's
   ring_pos.  Errors name no position (the loader checks the names with
   positions first). */
hs_err_t hs__ring_build(hs_scenario_t *s, hs__names_t *nm,
                               hs_error_t *err)
{
    size_t N = s->n_devices, i, k = 0, t;

    switch (s->ring_mode) {
    case HS_RING_LISTING:
        for (i = 0; i < N; i++)
            s->ring[i] = (uint32_t)i;
        break;
    case HS_RING_GROUPED:
        for (t = 0; t < s->n_types; t++)
            for (i = 0; i < N; i++)
                if (s->devices[i].type == t)
                    s->ring[k++] = (uint32_t)i;
        break;
    case HS_RING_INTERLEAVE: {
        /* round robin over types, each type in listing order */
        size_t *next = calloc(s->n_types, sizeof *next);
        if (next == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        while (k < N) {
            for (t = 0; t < s->n_types && k < N; t++) {
                while (next[t] < N && s->devices[next[t]].type != t)
                    next[t]++;
                if (next[t] < N)
                    s->ring[k++] = (uint32_t)next[t]++;
            }
        }
        free(next);
        break;
    }
    case HS_RING_EXPLICIT: {
        unsigned char *seen;
        if (hs__names_ready(nm, s) != 0)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        seen = calloc(N, 1);
        if (seen == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        for (i = 0; i < s->n_ring_names; i++) {
            const char *name = s->ring_names[i];
            long d = hs__hash_find(&nm->by_name, s, 0, name);
            hs_err_t rc = HS_OK;
            char hint[HS__HINT_LEN];
            if (d < 0)
                rc = hs_error_setf(err, HS_ERR_SCHEMA,
                                   "%s: ring names unknown device '%s'%s",
                                   s->file, name,
                                   hs__device_hint(s, name, hint,
                                                   sizeof hint));
            else if (seen[d])
                rc = hs_error_setf(err, HS_ERR_SCHEMA,
                                   "%s: ring names device '%s' twice",
                                   s->file, name);
            else if (k == N)
                rc = hs_error_setf(err, HS_ERR_SCHEMA,
                                   "%s: ring lists more entries than "
                                   "devices",
                                   s->file);
            if (rc != HS_OK) {
                free(seen);
                return rc;
            }
            seen[d] = 1;
            s->ring[k++] = (uint32_t)d;
        }
        for (i = 0; i < N; i++) {
            if (!seen[i]) {
                hs_err_t rc = hs_error_setf(
                    err, HS_ERR_SCHEMA,
                    "%s: ring leaves out device '%s' (every device must be "
                    "in the ring once)",
                    s->file, s->devices[i].name);
                free(seen);
                return rc;
            }
        }
        free(seen);
        break;
    }
    }
    for (k = 0; k < N; k++)
        s->devices[s->ring[k]].ring_pos = (uint32_t)k;
    return HS_OK;
}

/*
 * Looks up every ring edge in the link table.  A missing bandwidth fails
 * with HS_ERR_NETWORK at (line, col) of s->file (line 0: no position).
 */
hs_err_t hs__edges(hs_scenario_t *s, unsigned long line,
                          unsigned long col, hs_error_t *err)
{
    size_t N = s->n_devices, k;

    if (s->nodes != NULL)
        return hs_nodes_edges(s, line, col, err);
    s->links.default_bw_bytes_per_s = s->default_bw_bytes_per_s;
    s->links.default_lat_ns = s->latency_ns;
    if (s->links.n_rows > 0 && s->links.slot == NULL &&
        hs_links_index(&s->links) != 0)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    for (k = 0; k < N; k++) {
        const hs_device_t *da = &s->devices[s->ring[k]];
        const hs_device_t *db = &s->devices[s->ring[k + 1 == N ? 0 : k + 1]];

        if (!hs_links_find(&s->links, da->name, da->addr, da->type,
                           db->name, db->addr, db->type,
                           &s->ring_bw_bytes_per_s[k], &s->ring_lat_ns[k]))
            return hs_error_set(
                err, HS_ERR_NETWORK, s->file, line, col,
                "ring link %s (%s) -> %s (%s) has no bandwidth: add a row "
                "[%s, %s, BANDWIDTH] to network.links or set "
                "network.default_bandwidth",
                da->name, da->addr, db->name, db->addr, da->addr, db->addr);
    }
    return HS_OK;
}

int hs__endpoint_known(hs__names_t *nm, const hs_scenario_t *s,
                              const char *key)
{
    return hs__endpoint_device(nm, s, key) >= 0;
}

long hs__endpoint_device(hs__names_t *nm, const hs_scenario_t *s,
                         const char *key)
{
    long d = hs__hash_find(&nm->by_name, s, 0, key);

    return d >= 0 ? d : hs__hash_find(&nm->by_addr, s, 1, key);
}

hs_err_t hs_scenario_resolve(hs_scenario_t *s, hs_error_t *err)
{
    hs__names_t nm;
    hs_err_t rc = HS_OK;
    size_t i;

    if (!s->dirty)
        return HS_OK;
    memset(&nm, 0, sizeof nm);
    if (!s->devices_listed) {
        if ((rc = hs__gen_devices(s, err)) != HS_OK ||
            (rc = hs__apply_overrides(s, &nm, err)) != HS_OK)
            goto done;
        /* names moved: the pair rows must still name devices */
        if (s->links.n_rows > 0 && hs__names_ready(&nm, s) != 0) {
            rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
            goto done;
        }
        for (i = 0; i < 2 * s->links.n_rows; i++) {
            const char *e = i % 2 ? s->links.rows[i / 2].b
                                  : s->links.rows[i / 2].a;
            if (!hs__endpoint_known(&nm, s, e)) {
                char hint[HS__HINT_LEN];
                rc = hs_error_setf(err, HS_ERR_NETWORK,
                                   "%s: network.links: '%s' is neither a "
                                   "device name nor a device address%s",
                                   s->file, hs_ex(e),
                                   hs__device_hint(s, e, hint, sizeof hint));
                goto done;
            }
        }
    }
    if ((rc = hs__ring_build(s, &nm, err)) != HS_OK)
        goto done;
    for (i = 0; i < s->n_stragglers; i++) {
        long d;
        if (hs__names_ready(&nm, s) != 0) {
            rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
            goto done;
        }
        d = hs__hash_find(&nm.by_name, s, 0, s->straggler_names[i]);
        if (d < 0) {
            char hint[HS__HINT_LEN];
            rc = hs_error_setf(err, HS_ERR_SCHEMA,
                               "%s: straggler names unknown device '%s'%s",
                               s->file, s->straggler_names[i],
                               hs__device_hint(s, s->straggler_names[i],
                                               hint, sizeof hint));
            goto done;
        }
        s->stragglers[i].device = (uint32_t)d;
    }
    if ((rc = hs__edges(s, 0, 0, err)) != HS_OK ||
        (rc = hs_nodes_check_collective(s, 0, 0, err)) != HS_OK)
        goto done;
    s->dirty = 0;
done:
    hs__names_free(&nm);
    return rc;
}

long hs__type_index(const hs_scenario_t *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n_types; i++)
        if (strcmp(s->types[i].name, name) == 0)
            return (long)i;
    return -1;
}

const char *hs_overlap_name(hs_overlap_t o)
{
    switch (o) {
    case HS_OVERLAP_PATENT: return "patent";
    case HS_OVERLAP_BUCKETS: return "buckets";
    case HS_OVERLAP_NONE: return "none";
    case HS_OVERLAP_LAST_BUCKET: return "last_bucket";
    }
    return "unknown";
}

const char *hs_send_name(hs_send_t m)
{
    switch (m) {
    case HS_SEND_RENDEZVOUS: return "rendezvous";
    case HS_SEND_EAGER: return "eager";
    }
    return "unknown";
}

int hs_overlap_parse(const char *name, hs_overlap_t *out)
{
    static const hs_overlap_t all[] = {HS_OVERLAP_PATENT, HS_OVERLAP_BUCKETS,
                                       HS_OVERLAP_NONE,
                                       HS_OVERLAP_LAST_BUCKET};
    size_t i;

    for (i = 0; name != NULL && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, hs_overlap_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return -1;
}

int hs_send_parse(const char *name, hs_send_t *out)
{
    static const hs_send_t all[] = {HS_SEND_RENDEZVOUS, HS_SEND_EAGER};
    size_t i;

    for (i = 0; name != NULL && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, hs_send_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return -1;
}

const char *hs_hop_wait_name(hs_hop_wait_t m)
{
    return m == HS_HOP_WAIT_PROBE ? "probe" : "ring";
}

int hs_hop_wait_parse(const char *name, hs_hop_wait_t *out)
{
    if (name != NULL && strcmp(name, "ring") == 0) {
        *out = HS_HOP_WAIT_RING;
        return 0;
    }
    if (name != NULL && strcmp(name, "probe") == 0) {
        *out = HS_HOP_WAIT_PROBE;
        return 0;
    }
    return -1;
}

hs_err_t hs_scenario_require_profiles(const hs_scenario_t *s,
                                      hs_error_t *err)
{
    size_t i;

    for (i = 0; i < s->n_types; i++) {
        const hs_type_t *t = &s->types[i];
        if (!t->has_profile)
            return hs_error_set(err, HS_ERR_SCHEMA, s->file, t->line, t->col,
                                "device type '%s' has no profile (an inline "
                                "mapping or the path of a profile file; "
                                "`hetsim profile` measures one)",
                                t->name);
    }
    return HS_OK;
}

long hs_scenario_find_type(const hs_scenario_t *s, const char *name)
{
    return hs__type_index(s, name);
}

long hs_scenario_find_device(const hs_scenario_t *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n_devices; i++)
        if (strcmp(s->devices[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* Device offsets are kept in name/addr as integers until the arena stops
   moving; this turns them into pointers. */
void hs__free_strv(char **v, size_t n)
{
    size_t i;

    if (v == NULL)
        return;
    for (i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void hs_scenario_free(hs_scenario_t *s)
{
    size_t i, j;

    if (s == NULL)
        return;
    free(s->file);
    free(s->text);
    free(s->name);
    free(s->model_label);
    free(s->model_file);
    free(s->model_entry);
    free(s->dataset_file);
    free(s->dataset_entry);
    for (i = 0; i < s->n_types; i++) {
        hs_type_t *t = &s->types[i];
        free(t->name);
        hs_profile_clear(&t->profile);
        free(t->backend);
        for (j = 0; j < t->n_env; j++)
            free(t->env[j]);
        free(t->env);
    }
    free(s->types);
    free(s->devices);
    free(s->ring);
    free(s->ring_bw_bytes_per_s);
    free(s->ring_lat_ns);
    free(s->stragglers);
    free(s->harness);
    free(s->python);
    for (i = 0; i < s->n_launcher; i++)
        free(s->launcher[i]);
    free(s->launcher);
    for (i = 0; i < 3 * s->n_spares; i++)
        free(s->spares[i]);
    free(s->spares);
    free(s->arena);
    for (i = 0; i < s->n_warnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    hs__free_strv(s->ring_names, s->n_ring_names);
    for (i = 0; s->straggler_names != NULL && s->straggler_names[i]; i++)
        free(s->straggler_names[i]);
    free(s->straggler_names);
    for (i = 0; i < s->n_dev_overrides; i++)
        free(s->dev_overrides[i].name);
    free(s->dev_overrides);
    hs_links_clear(&s->links);
    hs_nodes_free(s->nodes);
    free(s->collective);
    hs__where_free(s);
    free(s);
}

