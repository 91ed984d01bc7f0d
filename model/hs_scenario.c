/*
 * hs_scenario.c -- reading a scenario YAML file and resolving it
 * (hs_scenario.h).  The YAML walking kit is model/hs_yaml.c, the profile
 * format model/hs_profile.c, the link table model/hs_links.c; changing a
 * loaded scenario (set, clone, any-pair link queries) is
 * model/hs_scenario_set.c.
 *
 * Loading validates every section with file:line:col errors, and keeps
 * what the cluster is derived from (the type counts or the device list,
 * the ring mode or names, the link table, the straggler names).  The
 * derivation itself is one set of functions that the loader and
 * hs_scenario_resolve share, so that a scenario changed with
 * hs_scenario_set resolves exactly as the equivalent YAML would load:
 *   - devices come from an explicit list or are generated from the type
 *     counts ("<type>-<i>", address = name);
 *   - the ring is the listing order, an explicit permutation of names, or
 *     "grouped" / "interleave";
 *   - each ring edge ring[k] -> ring[k+1] gets its bandwidth from, in order:
 *     a pair row (by device name or address, either direction; the exact
 *     direction wins), a type-pair row, the default.  A ring edge with none
 *     is an error.  The ring edges are precomputed (O(N)); other pairs are
 *     answered from the link table on demand, never an N x N table.
 * Name lookups use one open-addressing hash (FNV-1a, base/hs_hash.h),
 * built only when something names devices (explicit ring, link rows,
 * stragglers, per-device settings).
 *
 * Invariants after a successful load or resolve (dirty == 0): n_devices
 * >= 2; ring is a permutation of 0..n_devices-1 and devices[ring[k]]
 * .ring_pos == k; ring_bw_bytes_per_s[k] > 0; every device name and
 * address points into the arena; links' defaults equal
 * default_bw_bytes_per_s and latency_ns.
 */
#include "hs_scenario.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "hs_file.h"
#include "hs_hash.h"
#include "hs_units.h"
#include "hs_yaml.h"

extern const char hs_default_scenario_yaml[];
extern const size_t hs_default_scenario_len;

/* The scenario a walking context fills. */
#define HS__S(c) ((hs_scenario_t *)(c)->user)

/* ------------------------------------------------------------------ */
/* Name hash                                                             */

typedef struct hs__hash_s {
    uint32_t *slot;     /* device index + 1, 0 = empty */
    size_t mask;
} hs__hash_t;

/* Builds a hash of device names (by_addr == 0) or addresses. */
static int hs__hash_build(hs__hash_t *h, const hs_scenario_t *s, int by_addr)
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

static long hs__hash_find(const hs__hash_t *h, const hs_scenario_t *s,
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

/* Lazily built name and address hashes. */
typedef struct hs__names_s {
    hs__hash_t by_name, by_addr;
} hs__names_t;

static int hs__names_ready(hs__names_t *nm, const hs_scenario_t *s)
{
    if (nm->by_name.slot == NULL && hs__hash_build(&nm->by_name, s, 0) != 0)
        return -1;
    if (nm->by_addr.slot == NULL && hs__hash_build(&nm->by_addr, s, 1) != 0)
        return -1;
    return 0;
}

static void hs__names_free(hs__names_t *nm)
{
    free(nm->by_name.slot);
    free(nm->by_addr.slot);
    memset(nm, 0, sizeof *nm);
}

/* ------------------------------------------------------------------ */
/* The string arena                                                      */

/* Appends str to the arena; returns its offset or (size_t)-1. */
static size_t hs__arena_add(hs_scenario_t *s, const char *str)
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
static hs_err_t hs__ring_alloc(hs_scenario_t *s, size_t N, hs_error_t *err)
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
static hs_err_t hs__gen_devices(hs_scenario_t *s, hs_error_t *err)
{
    size_t cnt = 0, need = 0, i, k = 0;
    hs_device_t *d;

    for (i = 0; i < s->n_types; i++) {
        cnt += s->types[i].count;
        need += s->types[i].count * (strlen(s->types[i].name) + 22);
    }
    if (cnt > UINT32_MAX - 1)
        return hs_error_setf(err, HS_ERR_RANGE, "%s: too many devices",
                             s->file);
    if (cnt < 2)
        return hs_error_setf(err, HS_ERR_SCHEMA,
                             "%s: a ring needs at least 2 devices", s->file);
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

/* Applies the devices.<name>.* settings again to generated devices. */
static hs_err_t hs__apply_overrides(hs_scenario_t *s, hs__names_t *nm,
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
            return hs_error_setf(err, HS_ERR_SCHEMA,
                                 "%s: devices.%s: unknown device", s->file,
                                 o->name);
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
static hs_err_t hs__ring_build(hs_scenario_t *s, hs__names_t *nm,
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
            if (d < 0)
                rc = hs_error_setf(err, HS_ERR_SCHEMA,
                                   "%s: ring names unknown device '%s'",
                                   s->file, name);
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
static hs_err_t hs__edges(hs_scenario_t *s, unsigned long line,
                          unsigned long col, hs_error_t *err)
{
    size_t N = s->n_devices, k;

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

static int hs__endpoint_known(hs__names_t *nm, const hs_scenario_t *s,
                              const char *key)
{
    return hs__hash_find(&nm->by_name, s, 0, key) >= 0 ||
           hs__hash_find(&nm->by_addr, s, 1, key) >= 0;
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
                rc = hs_error_setf(err, HS_ERR_NETWORK,
                                   "%s: network.links: '%s' is neither a "
                                   "device name nor a device address",
                                   s->file, e);
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
            rc = hs_error_setf(err, HS_ERR_SCHEMA,
                               "%s: straggler names unknown device '%s'",
                               s->file, s->straggler_names[i]);
            goto done;
        }
        s->stragglers[i].device = (uint32_t)d;
    }
    if ((rc = hs__edges(s, 0, 0, err)) != HS_OK)
        goto done;
    s->dirty = 0;
done:
    hs__names_free(&nm);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Sections                                                              */

static hs_err_t hs__parse_job(hs_yaml_ctx_t *c, yaml_node_t *n)
{
    enum { K_MODEL, K_DATASET, K_EPOCHS };
    static const char *const keys[] = {"model", "dataset", "epochs", NULL};
    static const char *const fe[] = {"file", "entry", NULL};
    yaml_node_t *v[3];
    hs_scenario_t *s = HS__S(c);
    hs_err_t rc;

    if ((rc = hs_yaml_map(c, n, "job", keys, v)) != HS_OK)
        return rc;
    if (v[K_MODEL] != NULL) {
        if (hs_yaml_scalar(v[K_MODEL]) != NULL) {
            rc = hs_yaml_get_str(c, v[K_MODEL], "job.model", &s->model_label);
        } else {
            yaml_node_t *mv[2];
            if ((rc = hs_yaml_map(c, v[K_MODEL], "job.model", fe, mv)) != HS_OK)
                return rc;
            if ((rc = hs_yaml_need(c, v[K_MODEL], mv[0], "file", "job.model")) !=
                HS_OK)
                return rc;
            if ((rc = hs_yaml_get_path(c, mv[0], "job.model.file",
                                   &s->model_file)) != HS_OK)
                return rc;
            if (mv[1] != NULL)
                rc = hs_yaml_get_str(c, mv[1], "job.model.entry",
                                 &s->model_entry);
            else
                s->model_entry = strdup("build_model");
            if (rc == HS_OK)
                s->model_label = strdup(s->model_file);
        }
        if (rc != HS_OK)
            return rc;
    }
    if (v[K_DATASET] != NULL) {
        static const char *const dk[] = {"size", "samples", "sample_bytes",
                                         "file", "entry", NULL};
        yaml_node_t *dv[5];
        if ((rc = hs_yaml_map(c, v[K_DATASET], "job.dataset", dk, dv)) != HS_OK)
            return rc;
        if (dv[0] != NULL && dv[1] != NULL)
            return hs_yaml_fail(c, dv[1], HS_ERR_SCHEMA,
                            "job.dataset takes 'size' or 'samples', not both");
        if (dv[0] != NULL) {
            s->dataset_is_bytes = 1;
            if ((rc = hs_yaml_get_bytes(c, dv[0], "job.dataset.size",
                                    &s->dataset_total)) != HS_OK)
                return rc;
        }
        if (dv[1] != NULL &&
            (rc = hs_yaml_get_u64(c, dv[1], "job.dataset.samples", 1, UINT64_MAX,
                              &s->dataset_total)) != HS_OK)
            return rc;
        if (dv[2] != NULL) {
            if ((rc = hs_yaml_get_bytes(c, dv[2], "job.dataset.sample_bytes",
                                    &s->sample_bytes)) != HS_OK)
                return rc;
            if (s->sample_bytes == 0)
                return hs_yaml_fail(c, dv[2], HS_ERR_RANGE,
                                "job.dataset.sample_bytes must be > 0");
        }
        if (dv[3] != NULL &&
            (rc = hs_yaml_get_path(c, dv[3], "job.dataset.file",
                               &s->dataset_file)) != HS_OK)
            return rc;
        if (dv[4] != NULL &&
            (rc = hs_yaml_get_str(c, dv[4], "job.dataset.entry",
                              &s->dataset_entry)) != HS_OK)
            return rc;
        if (s->dataset_is_bytes && s->sample_bytes == 0)
            return hs_yaml_fail(c, v[K_DATASET], HS_ERR_SCHEMA,
                            "job.dataset.size is in bytes: give "
                            "job.dataset.sample_bytes too, to count samples");
    }
    if (v[K_EPOCHS] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_EPOCHS], "job.epochs", 1, 1000000000,
                          &s->epochs)) != HS_OK)
        return rc;
    return HS_OK;
}

static hs_err_t hs__parse_env(hs_yaml_ctx_t *c, yaml_node_t *n, hs_type_t *t)
{
    yaml_node_pair_t *p;
    size_t cnt, k = 0;

    if (n->type != YAML_MAPPING_NODE)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                        "env must be a mapping of NAME: value");
    cnt = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    t->env = calloc(cnt ? cnt : 1, sizeof *t->env);
    if (t->env == NULL)
        return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
    for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
         p++, k++) {
        yaml_node_t *kn = hs_yaml_node(c, p->key), *vn = hs_yaml_node(c, p->value);
        const char *key = hs_yaml_scalar(kn), *val = hs_yaml_scalar(vn);
        size_t len;
        if (key == NULL || key[0] == '\0' || strchr(key, '=') != NULL)
            return hs_yaml_fail(c, kn, HS_ERR_SCHEMA,
                            "env names must be plain names without '='");
        if (val == NULL)
            return hs_yaml_fail(c, vn, HS_ERR_SCHEMA,
                            "env values must be strings");
        len = strlen(key) + strlen(val) + 2;
        t->env[k] = malloc(len);
        if (t->env[k] == NULL)
            return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
        snprintf(t->env[k], len, "%s=%s", key, val);
        t->n_env = k + 1;
    }
    return HS_OK;
}

static hs_err_t hs__parse_types(hs_yaml_ctx_t *c, yaml_node_t *n)
{
    enum { K_NAME, K_COUNT, K_BATCH, K_SHARD, K_PROFILE, K_BACKEND, K_ENV };
    static const char *const keys[] = {"name", "count", "batch", "shard",
                                       "profile", "backend", "env", NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_item_t *it;
    size_t cnt, k = 0, j;
    hs_err_t rc;

    if (n->type != YAML_SEQUENCE_NODE)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                        "device_types must be a list of device types");
    cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (cnt == 0)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                        "device_types must list at least one type");
    s->types = calloc(cnt, sizeof *s->types);
    if (s->types == NULL)
        return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
    for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++, k++) {
        yaml_node_t *tn = hs_yaml_node(c, *it), *v[7];
        hs_type_t *t = &s->types[k];

        s->n_types = k + 1;
        t->line = tn->start_mark.line + 1;
        t->col = tn->start_mark.column + 1;
        if ((rc = hs_yaml_map(c, tn, "a device type", keys, v)) != HS_OK)
            return rc;
        if ((rc = hs_yaml_need(c, tn, v[K_NAME], "name", "a device type")) !=
                HS_OK ||
            (rc = hs_yaml_get_str(c, v[K_NAME], "name", &t->name)) != HS_OK)
            return rc;
        for (j = 0; j < k; j++)
            if (strcmp(s->types[j].name, t->name) == 0)
                return hs_yaml_fail(c, v[K_NAME], HS_ERR_SCHEMA,
                                "duplicate device type name '%s' (first at "
                                "line %lu)",
                                t->name, s->types[j].line);
        if (v[K_COUNT] != NULL &&
            (rc = hs_yaml_get_u64(c, v[K_COUNT], "count", 0, UINT32_MAX - 1,
                              &t->count)) != HS_OK)
            return rc;
        if ((rc = hs_yaml_need(c, tn, v[K_BATCH], "batch",
                           "a device type")) != HS_OK ||
            (rc = hs_yaml_get_u64(c, v[K_BATCH], "batch", 1, UINT32_MAX,
                              &t->batch)) != HS_OK)
            return rc;
        if (v[K_SHARD] != NULL) {
            if ((rc = hs_yaml_get_amount(c, v[K_SHARD], "shard",
                                     &t->shard_is_bytes, &t->shard)) != HS_OK)
                return rc;
            if (t->shard_is_bytes && s->sample_bytes == 0)
                return hs_yaml_fail(c, v[K_SHARD], HS_ERR_SCHEMA,
                                "shard is a size: give "
                                "job.dataset.sample_bytes to count samples");
        }
        t->has_profile = v[K_PROFILE] != NULL && !hs_yaml_is_null(v[K_PROFILE]);
        if (!t->has_profile) {
            /* not measured yet: hs_scenario_require_profiles rejects it
               where timings are needed */
        } else if (hs_yaml_scalar(v[K_PROFILE]) != NULL) {
            char *path = hs_file_join(c->base_dir,
                                          hs_yaml_scalar(v[K_PROFILE]));
            if (path == NULL)
                return hs_yaml_fail(c, tn, HS_ERR_NOMEM, "out of memory");
            rc = hs_profile_read_file(path, &t->profile, &s->warnings,
                                      &s->n_warnings, c->err);
            if (rc == HS_ERR_IO) {
                char inner[HS_ERRMSG_LEN];
                snprintf(inner, sizeof inner, "%s", c->err->msg);
                rc = hs_yaml_fail(c, v[K_PROFILE], HS_ERR_IO,
                              "profile of type '%s': %s", t->name, inner);
            }
            free(path);
            if (rc != HS_OK)
                return rc;
        } else {
            char what[256];
            snprintf(what, sizeof what, "the profile of type '%s'", t->name);
            if ((rc = hs_profile_parse(c, v[K_PROFILE], what,
                                       &t->profile)) != HS_OK)
                return rc;
        }
        if (v[K_BACKEND] != NULL) {
            const char *b = hs_yaml_scalar(v[K_BACKEND]);
            if (b == NULL || (strcmp(b, "gloo") != 0 &&
                              strcmp(b, "nccl") != 0 &&
                              strcmp(b, "mpi") != 0))
                return hs_yaml_fail(c, v[K_BACKEND], HS_ERR_SCHEMA,
                                "backend must be gloo, nccl or mpi");
            t->backend = strdup(b);
        }
        if (v[K_ENV] != NULL && (rc = hs__parse_env(c, v[K_ENV], t)) != HS_OK)
            return rc;
    }
    return HS_OK;
}

static long hs__type_index(const hs_scenario_t *s, const char *name)
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
                                       HS_OVERLAP_NONE};
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
static void hs__fix_names(hs_scenario_t *s, size_t *name_off,
                          size_t *addr_off)
{
    size_t i;

    for (i = 0; i < s->n_devices; i++) {
        s->devices[i].name = s->arena + name_off[i];
        s->devices[i].addr = s->arena + addr_off[i];
    }
}

static hs_err_t hs__parse_devices(hs_yaml_ctx_t *c, yaml_node_t *n)
{
    enum { K_NAME, K_TYPE, K_ADDR, K_SCALE, K_EXTRA };
    static const char *const keys[] = {"name", "type", "addr",
                                       "compute_scale", "extra_compute",
                                       NULL};
    hs_scenario_t *s = HS__S(c);
    size_t *name_off = NULL, *addr_off = NULL, *counts = NULL;
    size_t cnt = 0, i, k;
    hs_err_t rc = HS_OK;
    hs__hash_t h = {0};

    if (n != NULL) {
        yaml_node_item_t *it;
        if (n->type != YAML_SEQUENCE_NODE)
            return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "devices must be a list of {name, type, addr}");
        cnt = (size_t)(n->data.sequence.items.top -
                       n->data.sequence.items.start);
        if (cnt == 0)
            return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "devices must not be empty (leave it out to "
                            "generate devices from the type counts)");
        if (cnt > UINT32_MAX - 1)
            return hs_yaml_fail(c, n, HS_ERR_RANGE, "too many devices");
        s->devices = calloc(cnt, sizeof *s->devices);
        name_off = calloc(cnt, sizeof *name_off);
        addr_off = calloc(cnt, sizeof *addr_off);
        counts = calloc(s->n_types, sizeof *counts);
        if (!s->devices || !name_off || !addr_off || !counts) {
            rc = hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
            goto done;
        }
        k = 0;
        for (it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++, k++) {
            yaml_node_t *dn = hs_yaml_node(c, *it), *v[5];
            hs_device_t *d = &s->devices[k];
            const char *nm, *ty, *ad;
            long ti;

            if ((rc = hs_yaml_map(c, dn, "a device", keys, v)) != HS_OK)
                goto done;
            if ((rc = hs_yaml_need(c, dn, v[K_NAME], "name", "a device")) !=
                    HS_OK ||
                (rc = hs_yaml_need(c, dn, v[K_TYPE], "type", "a device")) !=
                    HS_OK)
                goto done;
            nm = hs_yaml_scalar(v[K_NAME]);
            ty = hs_yaml_scalar(v[K_TYPE]);
            if (nm == NULL || nm[0] == '\0') {
                rc = hs_yaml_fail(c, v[K_NAME], HS_ERR_SCHEMA,
                              "a device's name must be a string");
                goto done;
            }
            if (ty == NULL || (ti = hs__type_index(s, ty)) < 0) {
                rc = hs_yaml_fail(c, v[K_TYPE], HS_ERR_SCHEMA,
                              "device '%s' has unknown type '%s'", nm,
                              ty ? ty : "");
                goto done;
            }
            ad = nm;
            if (v[K_ADDR] != NULL) {
                ad = hs_yaml_scalar(v[K_ADDR]);
                if (ad == NULL || ad[0] == '\0') {
                    rc = hs_yaml_fail(c, v[K_ADDR], HS_ERR_SCHEMA,
                                  "a device's addr must be a string");
                    goto done;
                }
            }
            d->type = (uint32_t)ti;
            counts[ti]++;
            d->compute_scale = 1.0;
            if (v[K_SCALE] != NULL &&
                (rc = hs_yaml_get_double(c, v[K_SCALE], "compute_scale", 1e-9,
                                     &d->compute_scale)) != HS_OK)
                goto done;
            if (v[K_EXTRA] != NULL &&
                (rc = hs_yaml_get_time(c, v[K_EXTRA], "extra_compute",
                                   &d->extra_compute_ns)) != HS_OK)
                goto done;
            name_off[k] = hs__arena_add(s, nm);
            addr_off[k] = hs__arena_add(s, ad);
            if (name_off[k] == (size_t)-1 || addr_off[k] == (size_t)-1) {
                rc = hs_yaml_fail(c, dn, HS_ERR_NOMEM, "out of memory");
                goto done;
            }
            s->n_devices = k + 1;
        }
        hs__fix_names(s, name_off, addr_off);
        s->devices_listed = 1;
        /* duplicate names */
        if (hs__hash_build(&h, s, 0) != 0) {
            rc = hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
            goto done;
        }
        k = 0;
        for (it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++, k++) {
            long first = hs__hash_find(&h, s, 0, s->devices[k].name);
            if (first != (long)k) {
                yaml_node_t *dn = hs_yaml_node(c, *it);
                rc = hs_yaml_fail(c, dn, HS_ERR_SCHEMA,
                              "duplicate device name '%s'",
                              s->devices[k].name);
                goto done;
            }
        }
        for (i = 0; i < s->n_types; i++) {
            hs_type_t *t = &s->types[i];
            if (t->count != 0 && t->count != counts[i]) {
                rc = hs_error_set(c->err, HS_ERR_SCHEMA, c->file, t->line,
                                  t->col,
                                  "device type '%s' says count %llu but "
                                  "devices lists %zu of it",
                                  t->name, (unsigned long long)t->count,
                                  counts[i]);
                goto done;
            }
            t->count = counts[i];
        }
    } else {
        for (i = 0; i < s->n_types; i++) {
            if (s->types[i].count == 0) {
                rc = hs_error_set(c->err, HS_ERR_SCHEMA, c->file,
                                  s->types[i].line, s->types[i].col,
                                  "device type '%s' needs a count > 0 "
                                  "(or list the devices)",
                                  s->types[i].name);
                goto done;
            }
        }
        rc = hs__gen_devices(s, c->err);
        goto done;
    }
    if (s->n_devices < 2) {
        rc = hs_error_setf(c->err, HS_ERR_SCHEMA,
                           "%s: a ring needs at least 2 devices", c->file);
        goto done;
    }
    rc = hs__ring_alloc(s, s->n_devices, c->err);
done:
    free(h.slot);
    free(name_off);
    free(addr_off);
    free(counts);
    return rc;
}

static void hs__free_strv(char **v, size_t n)
{
    size_t i;

    if (v == NULL)
        return;
    for (i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/*
 * Reads a `ring:` value (NULL = not given): a mode name or a list of
 * device names (copied into *names, *n_names; NULL for a mode).  Checks
 * the shape only; the names are checked against the devices later.
 */
static hs_err_t hs__ring_spec(hs_yaml_ctx_t *c, yaml_node_t *n,
                              hs_ring_mode_t *mode, char ***names,
                              size_t *n_names)
{
    const char *m = hs_yaml_scalar(n);
    size_t i, cnt;

    *names = NULL;
    *n_names = 0;
    if (n == NULL || (m != NULL && strcmp(m, "listing") == 0))
        *mode = HS_RING_LISTING;
    else if (m != NULL && strcmp(m, "grouped") == 0)
        *mode = HS_RING_GROUPED;
    else if (m != NULL && strcmp(m, "interleave") == 0)
        *mode = HS_RING_INTERLEAVE;
    else if (m != NULL)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "ring must be listing, grouped, interleave or a "
                            "list of device names, not '%s'",
                            m);
    else if (n->type != YAML_SEQUENCE_NODE)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "ring must be a list of device names or one of "
                            "listing, grouped, interleave");
    else {
        *mode = HS_RING_EXPLICIT;
        cnt = hs_yaml_len(n);
        *names = calloc(cnt ? cnt : 1, sizeof **names);
        if (*names == NULL)
            return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
        for (i = 0; i < cnt; i++) {
            yaml_node_t *en = hs_yaml_item(c, n, i);
            const char *name = hs_yaml_scalar(en);
            if (name == NULL || ((*names)[i] = strdup(name)) == NULL) {
                hs_err_t rc =
                    name == NULL
                        ? hs_yaml_fail(c, en, HS_ERR_SCHEMA,
                                       "ring names unknown device ''")
                        : hs_yaml_fail(c, en, HS_ERR_NOMEM,
                                       "out of memory");
                hs__free_strv(*names, i);
                *names = NULL;
                return rc;
            }
        }
        *n_names = cnt;
    }
    return HS_OK;
}

static hs_err_t hs__parse_ring(hs_yaml_ctx_t *c, yaml_node_t *n,
                               hs__names_t *nm)
{
    hs_scenario_t *s = HS__S(c);
    size_t N = s->n_devices, i, k = 0;
    unsigned char *seen;
    hs_err_t rc;

    rc = hs__ring_spec(c, n, &s->ring_mode, &s->ring_names,
                       &s->n_ring_names);
    if (rc != HS_OK || s->ring_mode != HS_RING_EXPLICIT)
        return rc != HS_OK ? rc : hs__ring_build(s, nm, c->err);
    /* the names, checked with their positions */
    if (hs__names_ready(nm, s) != 0)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    seen = calloc(N, 1);
    if (seen == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    for (i = 0; i < s->n_ring_names; i++) {
        yaml_node_t *en = hs_yaml_item(c, n, i);
        const char *name = s->ring_names[i];
        long d = hs__hash_find(&nm->by_name, s, 0, name);
        if (d < 0)
            rc = hs_yaml_fail(c, en, HS_ERR_SCHEMA,
                              "ring names unknown device '%s'", name);
        else if (seen[d])
            rc = hs_yaml_fail(c, en, HS_ERR_SCHEMA,
                              "ring names device '%s' twice", name);
        else if (k == N)
            rc = hs_yaml_fail(c, en, HS_ERR_SCHEMA,
                              "ring lists more entries than devices");
        if (rc != HS_OK) {
            free(seen);
            return rc;
        }
        seen[d] = 1;
        k++;
    }
    for (i = 0; i < N; i++) {
        if (!seen[i]) {
            rc = hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                              "ring leaves out device '%s' (every device "
                              "must be in the ring once)",
                              s->devices[i].name);
            free(seen);
            return rc;
        }
    }
    free(seen);
    return hs__ring_build(s, nm, c->err);
}

/* ------------------------------------------------------------------ */
/* Network                                                               */

static char *hs__trim(char *p)
{
    char *e;

    while (*p == ' ' || *p == '\t')
        p++;
    e = p + strlen(p);
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
                     e[-1] == '\n'))
        *--e = '\0';
    return p;
}

/* Reads rows "addr1,addr2,bandwidth[,latency]" from a CSV file into the
   link table. */
static hs_err_t hs__read_links_csv(hs_yaml_ctx_t *c, const char *path,
                                   hs__names_t *nm)
{
    hs_scenario_t *s = HS__S(c);
    char *text = NULL, *line, *save = NULL;
    size_t len;
    unsigned long lineno = 0;
    hs_err_t rc;

    if ((rc = hs_file_read(path, &text, &len, c->err)) != HS_OK)
        return rc;
    for (line = text; line != NULL && *line; line = save) {
        char *nl = strchr(line, '\n'), *f[5];
        int nf = 0;
        char *p;
        double bw;
        int64_t lat = -1;

        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        lineno++;
        p = hs__trim(line);
        if (*p == '\0' || *p == '#')
            continue;
        f[nf++] = p;
        for (; *p; p++) {
            if (*p == ',') {
                *p = '\0';
                if (nf == 5)
                    break;
                f[nf++] = p + 1;
            }
        }
        if (nf < 3 || nf > 4) {
            free(text);
            return hs_error_set(c->err, HS_ERR_SYNTAX, path, lineno, 1,
                                "expected addr1,addr2,bandwidth[,latency]");
        }
        for (int i = 0; i < nf; i++)
            f[i] = hs__trim(f[i]);
        if (lineno == 1 && strcmp(f[2], "bandwidth") == 0)
            continue; /* header */
        if (hs_parse_bandwidth(f[2], &bw) != 0) {
            unsigned long col = (unsigned long)(f[2] - line) + 1;
            hs_err_t e = hs_error_set(
                c->err, HS_ERR_UNIT, path, lineno, col,
                "'%s' is not a positive bandwidth with a unit (e.g. 25Gbps)",
                f[2]);
            free(text);
            return e;
        }
        if (nf == 4 && hs_parse_time_ns(f[3], &lat) != 0) {
            unsigned long col = (unsigned long)(f[3] - line) + 1;
            hs_err_t e = hs_error_set(
                c->err, HS_ERR_UNIT, path, lineno, col,
                "'%s' is not a duration with a unit (e.g. 20us)", f[3]);
            free(text);
            return e;
        }
        for (int i = 0; i < 2; i++) {
            if (!hs__endpoint_known(nm, s, f[i])) {
                unsigned long col = (unsigned long)(f[i] - line) + 1;
                hs_err_t e = hs_error_set(
                    c->err, HS_ERR_NETWORK, path, lineno, col,
                    "'%s' is neither a device name nor a device address",
                    f[i]);
                free(text);
                return e;
            }
        }
        if (hs_links_add_row(&s->links, f[0], f[1], bw, lat) != 0) {
            free(text);
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        }
    }
    free(text);
    return HS_OK;
}

/*
 * Reads one type_links row [type1, type2, bandwidth(, latency)] (rn) into
 * the link table; `replace` drops earlier rows for the same types.
 */
static hs_err_t hs__type_row(hs_yaml_ctx_t *c, yaml_node_t *rn,
                             int replace)
{
    hs_scenario_t *s = HS__S(c);
    size_t nf = hs_yaml_len(rn);
    long t[2];
    double bw;
    int64_t lat = -1;
    hs_err_t rc;
    int i;

    if (rn == NULL || rn->type != YAML_SEQUENCE_NODE || nf < 3 || nf > 4)
        return hs_yaml_fail(c, rn, HS_ERR_SCHEMA,
                            "a type_links row is [type1, type2, bandwidth] "
                            "or [type1, type2, bandwidth, latency]");
    for (i = 0; i < 2; i++) {
        yaml_node_t *en = hs_yaml_item(c, rn, (size_t)i);
        const char *tn = hs_yaml_scalar(en);
        t[i] = tn ? hs__type_index(s, tn) : -1;
        if (t[i] < 0)
            return hs_yaml_fail(c, en, HS_ERR_SCHEMA,
                                "type_links names unknown device type '%s'",
                                tn ? tn : "");
    }
    if ((rc = hs_yaml_get_bw(c, hs_yaml_item(c, rn, 2),
                             "type_links bandwidth", &bw)) != HS_OK)
        return rc;
    if (nf == 4 && (rc = hs_yaml_get_time(c, hs_yaml_item(c, rn, 3),
                                          "type_links latency", &lat)) !=
                       HS_OK)
        return rc;
    if (hs_links_add_type_row(&s->links, (uint32_t)t[0], (uint32_t)t[1], bw,
                              lat, replace) != 0)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

static hs_err_t hs__parse_network(hs_yaml_ctx_t *c, yaml_node_t *n,
                                  hs__names_t *nm, yaml_node_t *root)
{
    enum { K_DEFAULT, K_LAT, K_LINKS, K_CSV, K_TLINKS };
    static const char *const keys[] = {"default_bandwidth", "latency",
                                       "links", "links_csv", "type_links",
                                       NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[5] = {NULL, NULL, NULL, NULL, NULL}, *at;
    size_t i, k;
    hs_err_t rc = HS_OK;

    if (n != NULL && (rc = hs_yaml_map(c, n, "network", keys, v)) != HS_OK)
        return rc;
    if (v[K_DEFAULT] != NULL &&
        (rc = hs_yaml_get_bw(c, v[K_DEFAULT], "network.default_bandwidth",
                             &s->default_bw_bytes_per_s)) != HS_OK)
        return rc;
    if (v[K_LAT] != NULL &&
        (rc = hs_yaml_get_time(c, v[K_LAT], "network.latency",
                               &s->latency_ns)) != HS_OK)
        return rc;
    if (v[K_TLINKS] != NULL) {
        if (v[K_TLINKS]->type != YAML_SEQUENCE_NODE)
            return hs_yaml_fail(c, v[K_TLINKS], HS_ERR_SCHEMA,
                                "network.type_links must be a list of "
                                "[type1, type2, bandwidth] rows");
        for (k = 0; k < hs_yaml_len(v[K_TLINKS]); k++)
            if ((rc = hs__type_row(c, hs_yaml_item(c, v[K_TLINKS], k), 0)) !=
                HS_OK)
                return rc;
    }
    if ((v[K_LINKS] != NULL || v[K_CSV] != NULL) &&
        hs__names_ready(nm, s) != 0)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    if (v[K_CSV] != NULL) {
        const char *p = hs_yaml_scalar(v[K_CSV]);
        char *path;
        if (p == NULL || p[0] == '\0')
            return hs_yaml_fail(c, v[K_CSV], HS_ERR_SCHEMA,
                                "network.links_csv must be a file path");
        path = hs_file_join(c->base_dir, p);
        if (path == NULL)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        rc = hs__read_links_csv(c, path, nm);
        if (rc == HS_ERR_IO) {
            char inner[HS_ERRMSG_LEN];
            snprintf(inner, sizeof inner, "%s", c->err->msg);
            rc = hs_yaml_fail(c, v[K_CSV], HS_ERR_IO,
                              "network.links_csv: %s", inner);
        }
        free(path);
        if (rc != HS_OK)
            return rc;
    }
    if (v[K_LINKS] != NULL) {
        /* inline rows come after CSV rows: they win on the same pair */
        if (v[K_LINKS]->type != YAML_SEQUENCE_NODE)
            return hs_yaml_fail(c, v[K_LINKS], HS_ERR_SCHEMA,
                                "network.links must be a list of [addr1, "
                                "addr2, bandwidth] rows");
        for (k = 0; k < hs_yaml_len(v[K_LINKS]); k++) {
            yaml_node_t *rn = hs_yaml_item(c, v[K_LINKS], k), *f[4];
            size_t nf = hs_yaml_len(rn);
            double bw;
            int64_t lat = -1;
            if (rn->type != YAML_SEQUENCE_NODE || nf < 3 || nf > 4)
                return hs_yaml_fail(c, rn, HS_ERR_SCHEMA,
                                    "a links row is [addr1, addr2, "
                                    "bandwidth] or [addr1, addr2, "
                                    "bandwidth, latency]");
            for (i = 0; i < nf; i++)
                f[i] = hs_yaml_item(c, rn, i);
            for (i = 0; i < 2; i++) {
                const char *e = hs_yaml_scalar(f[i]);
                if (e == NULL || !hs__endpoint_known(nm, s, e))
                    return hs_yaml_fail(c, f[i], HS_ERR_NETWORK,
                                        "'%s' is neither a device name nor "
                                        "a device address",
                                        e ? e : "");
            }
            if ((rc = hs_yaml_get_bw(c, f[2], "links bandwidth", &bw)) !=
                HS_OK)
                return rc;
            if (nf == 4 && (rc = hs_yaml_get_time(c, f[3], "links latency",
                                                  &lat)) != HS_OK)
                return rc;
            if (hs_links_add_row(&s->links, hs_yaml_scalar(f[0]),
                                 hs_yaml_scalar(f[1]), bw, lat) != 0)
                return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        }
    }
    at = n != NULL ? n : root;
    return hs__edges(s, (unsigned long)at->start_mark.line + 1,
                     (unsigned long)at->start_mark.column + 1, c->err);
}

static hs_err_t hs__parse_simulate(hs_yaml_ctx_t *c, yaml_node_t *n,
                                   hs__names_t *nm)
{
    enum { K_STEPS, K_SEED, K_OVERLAP, K_SEND, K_STOCH, K_STRAG,
           K_STREAMS };
    static const char *const keys[] = {"steps", "seed", "overlap", "send",
                                       "stochastic", "stragglers", "streams",
                                       NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[7];
    hs_err_t rc;

    if ((rc = hs_yaml_map(c, n, "simulate", keys, v)) != HS_OK)
        return rc;
    if (v[K_STEPS] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_STEPS], "simulate.steps", 2, 100000000,
                          &s->sim_steps)) != HS_OK)
        return rc;
    if (v[K_SEED] != NULL &&
        (rc = hs_yaml_get_u64(c, v[K_SEED], "simulate.seed", 0, UINT64_MAX,
                          &s->seed)) != HS_OK)
        return rc;
    if (v[K_OVERLAP] != NULL &&
        hs_overlap_parse(hs_yaml_scalar(v[K_OVERLAP]), &s->overlap) != 0)
        return hs_yaml_fail(c, v[K_OVERLAP], HS_ERR_SCHEMA,
                        "simulate.overlap must be patent, buckets or none");
    if (v[K_SEND] != NULL &&
        hs_send_parse(hs_yaml_scalar(v[K_SEND]), &s->send) != 0)
        return hs_yaml_fail(c, v[K_SEND], HS_ERR_SCHEMA,
                        "simulate.send must be rendezvous or eager");
    if (v[K_STREAMS] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_STREAMS], "simulate.streams", 1,
                          HS_MAX_STREAMS, &s->streams)) != HS_OK)
        return rc;
    if (v[K_STOCH] != NULL &&
        (rc = hs_yaml_get_bool(c, v[K_STOCH], "simulate.stochastic",
                           &s->stochastic)) != HS_OK)
        return rc;
    if (v[K_STRAG] != NULL) {
        static const char *const sk[] = {"device", "steps", "factor",
                                         "extra", NULL};
        yaml_node_item_t *it;
        size_t cnt, k = 0;
        if (v[K_STRAG]->type != YAML_SEQUENCE_NODE)
            return hs_yaml_fail(c, v[K_STRAG], HS_ERR_SCHEMA,
                            "simulate.stragglers must be a list");
        cnt = (size_t)(v[K_STRAG]->data.sequence.items.top -
                       v[K_STRAG]->data.sequence.items.start);
        s->stragglers = calloc(cnt ? cnt : 1, sizeof *s->stragglers);
        s->straggler_names = calloc(cnt + 1, sizeof *s->straggler_names);
        if (s->stragglers == NULL || s->straggler_names == NULL)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        if (hs__names_ready(nm, s) != 0)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        for (it = v[K_STRAG]->data.sequence.items.start;
             it < v[K_STRAG]->data.sequence.items.top; it++, k++) {
            yaml_node_t *sn = hs_yaml_node(c, *it), *sv[4];
            hs_straggler_t *g = &s->stragglers[k];
            const char *dn;
            long d;
            if ((rc = hs_yaml_map(c, sn, "a straggler", sk, sv)) != HS_OK)
                return rc;
            if ((rc = hs_yaml_need(c, sn, sv[0], "device", "a straggler")) !=
                    HS_OK ||
                (rc = hs_yaml_need(c, sn, sv[1], "steps", "a straggler")) !=
                    HS_OK)
                return rc;
            dn = hs_yaml_scalar(sv[0]);
            d = dn ? hs__hash_find(&nm->by_name, s, 0, dn) : -1;
            if (d < 0)
                return hs_yaml_fail(c, sv[0], HS_ERR_SCHEMA,
                                "straggler names unknown device '%s'",
                                dn ? dn : "");
            g->device = (uint32_t)d;
            if ((s->straggler_names[k] = strdup(dn)) == NULL)
                return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
            if (hs_yaml_scalar(sv[1]) != NULL) {
                if ((rc = hs_yaml_get_u32(c, sv[1], "straggler steps", 0,
                                      UINT32_MAX, &g->first_step)) != HS_OK)
                    return rc;
                g->last_step = g->first_step;
            } else if (sv[1]->type == YAML_SEQUENCE_NODE &&
                       sv[1]->data.sequence.items.top -
                               sv[1]->data.sequence.items.start ==
                           2) {
                if ((rc = hs_yaml_get_u32(
                         c, hs_yaml_node(c, sv[1]->data.sequence.items.start[0]),
                         "straggler first step", 0, UINT32_MAX,
                         &g->first_step)) != HS_OK ||
                    (rc = hs_yaml_get_u32(
                         c, hs_yaml_node(c, sv[1]->data.sequence.items.start[1]),
                         "straggler last step", 0, UINT32_MAX,
                         &g->last_step)) != HS_OK)
                    return rc;
                if (g->last_step < g->first_step)
                    return hs_yaml_fail(c, sv[1], HS_ERR_RANGE,
                                    "straggler steps [first, last] must not "
                                    "run backwards");
            } else {
                return hs_yaml_fail(c, sv[1], HS_ERR_SCHEMA,
                                "straggler steps must be a step number or "
                                "[first, last]");
            }
            g->factor = 1.0;
            if (sv[2] != NULL &&
                (rc = hs_yaml_get_double(c, sv[2], "straggler factor", 1e-9,
                                     &g->factor)) != HS_OK)
                return rc;
            if (sv[3] != NULL &&
                (rc = hs_yaml_get_time(c, sv[3], "straggler extra",
                                   &g->extra_ns)) != HS_OK)
                return rc;
            s->n_stragglers = k + 1;
        }
    }
    return HS_OK;
}

static hs_err_t hs__parse_profiling(hs_yaml_ctx_t *c, yaml_node_t *n)
{
    enum { K_HARNESS, K_PYTHON, K_ITERS, K_WARM, K_TIMEOUT, K_PORT,
           K_LAUNCHER };
    static const char *const keys[] = {"harness", "python", "iterations",
                                       "warmup", "timeout", "master_port",
                                       "launcher", NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[7];
    hs_err_t rc;

    if ((rc = hs_yaml_map(c, n, "profiling", keys, v)) != HS_OK)
        return rc;
    if (v[K_HARNESS] != NULL &&
        (rc = hs_yaml_get_path(c, v[K_HARNESS], "profiling.harness",
                           &s->harness)) != HS_OK)
        return rc;
    if (v[K_PYTHON] != NULL &&
        (rc = hs_yaml_get_str(c, v[K_PYTHON], "profiling.python", &s->python)) !=
            HS_OK)
        return rc;
    if (v[K_ITERS] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_ITERS], "profiling.iterations", 1,
                          100000000, &s->prof_iters)) != HS_OK)
        return rc;
    if (v[K_WARM] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_WARM], "profiling.warmup", 0, 100000000,
                          &s->prof_warmup)) != HS_OK)
        return rc;
    if (s->prof_warmup >= s->prof_iters)
        return hs_yaml_fail(c, v[K_WARM] ? v[K_WARM] : n, HS_ERR_RANGE,
                        "profiling.warmup (%u) must be less than "
                        "profiling.iterations (%u)",
                        s->prof_warmup, s->prof_iters);
    if (v[K_TIMEOUT] != NULL &&
        (rc = hs_yaml_get_time(c, v[K_TIMEOUT], "profiling.timeout",
                           &s->prof_timeout_ns)) != HS_OK)
        return rc;
    if (v[K_PORT] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_PORT], "profiling.master_port", 1, 65535,
                          &s->master_port)) != HS_OK)
        return rc;
    if (v[K_LAUNCHER] != NULL) {
        yaml_node_item_t *it;
        size_t cnt, k = 0;
        if (v[K_LAUNCHER]->type != YAML_SEQUENCE_NODE)
            return hs_yaml_fail(c, v[K_LAUNCHER], HS_ERR_SCHEMA,
                            "profiling.launcher must be a list of words "
                            "(argv), e.g. [ssh, \"{host}\"]");
        cnt = (size_t)(v[K_LAUNCHER]->data.sequence.items.top -
                       v[K_LAUNCHER]->data.sequence.items.start);
        s->launcher = calloc(cnt + 1, sizeof *s->launcher);
        if (s->launcher == NULL)
            return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        for (it = v[K_LAUNCHER]->data.sequence.items.start;
             it < v[K_LAUNCHER]->data.sequence.items.top; it++, k++) {
            if ((rc = hs_yaml_get_str(c, hs_yaml_node(c, *it), "a launcher word",
                                  &s->launcher[k])) != HS_OK)
                return rc;
            s->n_launcher = k + 1;
        }
    }
    return HS_OK;
}

/* Checks that the job's numbers fit together; adds warnings. */
static hs_err_t hs__check(hs_yaml_ctx_t *c)
{
    hs_scenario_t *s = HS__S(c);
    size_t i;
    double m0 = 0;

    size_t first = s->n_types;

    for (i = 0; i < s->n_types; i++) {
        double m;
        if (!s->types[i].has_profile)
            continue;
        m = hs_profile_payload_bytes(&s->types[i].profile);
        if (first == s->n_types) {
            first = i;
            m0 = m;
        } else if (fabs(m - m0) > 0.01 * m0) {
            hs_yaml_warn(c,
                     "types '%s' and '%s' measured different gradient "
                     "payloads (%.0f and %.0f bytes): the same model should "
                     "give the same payload; each device uses its own "
                     "type's",
                     s->types[first].name, s->types[i].name, m0, m);
        }
    }
    return HS_OK;
}

static hs_err_t hs__parse_root(hs_yaml_ctx_t *c, yaml_node_t *root)
{
    enum { K_NAME, K_JOB, K_TYPES, K_DEVICES, K_RING, K_NET, K_SIM,
           K_PROF };
    static const char *const keys[] = {"name", "job", "device_types",
                                       "devices", "ring", "network",
                                       "simulate", "profiling", NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[8];
    hs__names_t nm;
    hs_err_t rc;

    memset(&nm, 0, sizeof nm);
    if ((rc = hs_yaml_map(c, root, "the scenario", keys, v)) != HS_OK)
        return rc;
    if (v[K_NAME] != NULL &&
        (rc = hs_yaml_get_str(c, v[K_NAME], "name", &s->name)) != HS_OK)
        return rc;
    if (v[K_JOB] != NULL && (rc = hs__parse_job(c, v[K_JOB])) != HS_OK)
        return rc;
    if ((rc = hs_yaml_need(c, root, v[K_TYPES], "device_types",
                       "the scenario")) != HS_OK)
        return rc;
    if ((rc = hs__parse_types(c, v[K_TYPES])) != HS_OK)
        return rc;
    if ((rc = hs__parse_devices(c, v[K_DEVICES])) != HS_OK)
        goto done;
    if ((rc = hs__parse_ring(c, v[K_RING], &nm)) != HS_OK)
        goto done;
    if ((rc = hs__parse_network(c, v[K_NET], &nm, root)) != HS_OK)
        goto done;
    if (v[K_SIM] != NULL &&
        (rc = hs__parse_simulate(c, v[K_SIM], &nm)) != HS_OK)
        goto done;
    if (v[K_PROF] != NULL &&
        (rc = hs__parse_profiling(c, v[K_PROF])) != HS_OK)
        goto done;
    if (s->streams == 0) {
        /* not given: ProcessGroupGloo runs 2 collectives at a time (its
           default of 2 worker threads), NCCL one stream */
        size_t i, gloo = s->n_types > 0;
        for (i = 0; i < s->n_types; i++)
            if (s->types[i].backend == NULL ||
                strcmp(s->types[i].backend, "gloo") != 0)
                gloo = 0;
        s->streams = gloo ? 2 : 1;
    }
    rc = hs__check(c);
done:
    free(nm.by_name.slot);
    free(nm.by_addr.slot);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Public entry points                                                   */

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
    free(s);
}

hs_err_t hs_scenario_load_text(const char *text, size_t len,
                               const char *name, const char *base_dir,
                               hs_scenario_t **out, hs_error_t *err)
{
    hs_scenario_t *s;
    yaml_document_t doc;
    hs_yaml_ctx_t c;
    hs_err_t rc;

    *out = NULL;
    hs_error_clear(err);
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    s->file = name != NULL ? strdup(name) : NULL;
    s->text = malloc(len + 1);
    if (s->file == NULL || s->text == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(s->text, text, len);
    s->text[len] = '\0';
    s->epochs = 1;
    s->sim_steps = 10;
    s->streams = 0;     /* resolved after parsing: 2 for all-gloo, else 1 */
    s->seed = 1;
    s->overlap = HS_OVERLAP_PATENT;
    s->send = HS_SEND_RENDEZVOUS;
    s->prof_iters = 100;
    s->prof_warmup = 20;
    s->prof_timeout_ns = 600LL * 1000000000LL;
    s->master_port = 29500;
    if ((rc = hs_yaml_load_doc(name, s->text, len, &doc, err)) != HS_OK)
        goto fail;
    memset(&c, 0, sizeof c);
    c.file = name;
    c.base_dir = base_dir;
    c.doc = &doc;
    c.err = err;
    c.user = s;
    c.warnings = &s->warnings;
    c.n_warnings = &s->n_warnings;
    rc = hs__parse_root(&c, yaml_document_get_root_node(&doc));
    yaml_document_delete(&doc);
    if (rc != HS_OK)
        goto fail;
    *out = s;
    return HS_OK;
fail:
    hs_scenario_free(s);
    return rc;
}

hs_err_t hs_scenario_load(const char *path, hs_scenario_t **out,
                          hs_error_t *err)
{
    char *text = NULL, *dir = NULL;
    size_t len;
    hs_err_t rc;

    *out = NULL;
    if ((rc = hs_file_read(path, &text, &len, err)) != HS_OK)
        return rc;
    dir = hs_file_absdir(path);
    if (dir == NULL) {
        free(text);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    rc = hs_scenario_load_text(text, len, path, dir, out, err);
    free(dir);
    free(text);
    return rc;
}

const char *hs_scenario_default_text(void)
{
    return hs_default_scenario_yaml;
}

hs_err_t hs_scenario_load_default(hs_scenario_t **out, hs_error_t *err)
{
    return hs_scenario_load_text(hs_default_scenario_yaml,
                                 hs_default_scenario_len,
                                 "<default>/scenarios/default.yaml", NULL,
                                 out, err);
}
