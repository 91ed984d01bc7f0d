/*
 * hs_nodes.c -- nodes in the scenario (hs_nodes.h): reading the `nodes:`
 * section, expanding it into devices, a ring in NCCL's order and the edge
 * arrays, and answering the link between any two devices.
 *
 * Invariants after hs_nodes_gen_devices: devices are listed node by node,
 * node_first[n] .. node_first[n + 1] - 1 being node n's devices in local
 * rank order, node_first[n_nodes] == N; dev_node[x] is the node holding
 * x; `local` is the common node size or 0, `local_max` the largest.  When
 * `local` is set, device x of node n and local rank j is x = n * local +
 * j, which the hierarchical all-reduce (hs_coll_hier_shape.h) uses
 * instead of the tables.
 *
 * Cost: expansion O(N + nodes + rows log rows); a link query O(log rows +
 * kind rows).  The kind rows are few (pairs of kinds), so they are
 * scanned; node rows are sorted once and searched.
 */
#include "hs_nodes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "hs_collective.h"
#include "hs_edge.h"
#include "hs_scenario.h"
#include "hs_limits.h"
#include "hs_scenario_int.h"
#include "hs_valid.h"
#include "hs_suggest.h"
#include "hs_yaml.h"

#define HS__S(c) ((hs_scenario_t *)(c)->user)

long hs_nodes_find_kind(const hs_nodes_t *n, const char *name)
{
    size_t i;

    for (i = 0; n != NULL && i < n->n_kinds; i++)
        if (strcmp(n->kinds[i].name, name) == 0)
            return (long)i;
    return -1;
}

const char *hs_nodes_kind_hint(const hs_nodes_t *n, const char *name,
                                 char *buf, size_t cap)
{
    hs_suggest_t sg;
    size_t i, at;

    hs_suggest_init(&sg, name);
    for (i = 0; n != NULL && i < n->n_kinds; i++)
        hs_suggest_add(&sg, n->kinds[i].name);
    hs_suggest_hint(&sg, buf, cap);
    at = strlen(buf);
    for (i = 0; n != NULL && i < n->n_kinds && at + 1 < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s%s",
                               i ? ", " : " (kinds: ", n->kinds[i].name,
                               i + 1 == n->n_kinds ? ")" : "");
    return buf;
}

void hs_nodes_free(hs_nodes_t *n)
{
    size_t i;

    if (n == NULL)
        return;
    for (i = 0; i < n->n_kinds; i++)
        free(n->kinds[i].name);
    free(n->kinds);
    free(n->kind_links);
    for (i = 0; i < n->n_rows; i++) {
        free(n->rows[i].a);
        free(n->rows[i].b);
    }
    free(n->rows);
    free(n->node_first);
    free(n->node_kind);
    free(n->dev_node);
    free(n->node_links);
    free(n);
}

/* ------------------------------------------------------------------ */
/* Reading                                                               */

/* One kind: {name, type, devices, count, intra_bandwidth, intra_latency,
   nics, nic_bandwidth}. */
static hs_err_t hs__kind(hs_yaml_ctx_t *c, yaml_node_t *n, hs_nodes_t *nd,
                         hs_node_kind_t *k)
{
    enum { K_NAME, K_TYPE, K_DEV, K_COUNT, K_IBW, K_ILAT, K_NICS, K_NBW };
    static const char *const keys[] = {"name", "type", "devices", "count",
                                       "intra_bandwidth", "intra_latency",
                                       "nics", "nic_bandwidth", NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[8];
    const char *tn;
    long t;
    hs_err_t rc;

    k->line = (unsigned long)n->start_mark.line + 1;
    k->col = (unsigned long)n->start_mark.column + 1;
    if ((rc = hs_yaml_map(c, n, "a node kind", keys, v)) != HS_OK)
        return rc;
    if ((rc = hs_yaml_need(c, n, v[K_NAME], "name", "a node kind")) !=
            HS_OK ||
        (rc = hs_yaml_get_str(c, v[K_NAME], "name", &k->name)) != HS_OK)
        return rc;
    if (hs_nodes_find_kind(nd, k->name) >= 0)
        return hs_yaml_fail(c, v[K_NAME], HS_ERR_SCHEMA,
                            "duplicate node kind '%s'", k->name);
    if ((rc = hs_yaml_need(c, n, v[K_TYPE], "type", "a node kind")) != HS_OK)
        return rc;
    tn = hs_yaml_scalar(v[K_TYPE]);
    t = tn != NULL ? hs__type_index(s, tn) : -1;
    if (t < 0) {
        char hint[HS__HINT_LEN];
        return hs_yaml_fail(c, v[K_TYPE], HS_ERR_SCHEMA,
                            "node kind '%s' names unknown device type '%s'%s",
                            hs_ex(k->name), hs_ex(tn ? tn : ""),
                            hs__type_hint(s, tn ? tn : "", hint,
                                          sizeof hint));
    }
    k->type = (uint32_t)t;
    if ((rc = hs_yaml_need(c, n, v[K_DEV], "devices", "a node kind")) !=
            HS_OK ||
        (rc = hs_yaml_get_u32(c, v[K_DEV], "devices", 1, 1u << 20,
                              &k->devices)) != HS_OK)
        return rc;
    if ((rc = hs_yaml_need(c, n, v[K_COUNT], "count", "a node kind")) !=
            HS_OK ||
        (rc = hs_yaml_get_u32(c, v[K_COUNT], "count", 0, HS_LIMIT_DEVICES,
                              &k->count)) != HS_OK)
        return rc;
    {
        char key[HS_LIMIT_NAME_LEN + 32];
        snprintf(key, sizeof key, "nodes.%s.count", k->name);
        if (hs__where_node(c, key, v[K_COUNT]) != 0)
            return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
    }
    if (v[K_IBW] != NULL &&
        (rc = hs_yaml_get_bw(c, v[K_IBW], "intra_bandwidth",
                             &k->intra_bw_bytes_per_s)) != HS_OK)
        return rc;
    if (k->devices > 1 && k->intra_bw_bytes_per_s <= 0)
        return hs_yaml_fail(c, n, HS_ERR_NETWORK,
                            "node kind '%s' has %u devices per node but no "
                            "intra_bandwidth",
                            k->name, k->devices);
    if (v[K_ILAT] != NULL &&
        (rc = hs_yaml_get_time(c, v[K_ILAT], "intra_latency",
                               &k->intra_lat_ns)) != HS_OK)
        return rc;
    if (v[K_NICS] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_NICS], "nics", 1, 1024, &k->nics)) !=
            HS_OK)
        return rc;
    if (v[K_NBW] != NULL &&
        (rc = hs_yaml_get_bw(c, v[K_NBW], "nic_bandwidth",
                             &k->nic_bw_bytes_per_s)) != HS_OK)
        return rc;
    if ((v[K_NICS] != NULL) != (v[K_NBW] != NULL))
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "node kind '%s': give nics and nic_bandwidth "
                            "together",
                            k->name);
    return HS_OK;
}

/* The node named "K-i", or -1. */
static long hs__node_index(const hs_nodes_t *nd, const char *name)
{
    size_t i, first = 0;

    for (i = 0; i < nd->n_kinds; i++) {
        const hs_node_kind_t *k = &nd->kinds[i];
        size_t len = strlen(k->name);
        uint64_t x;
        if (strncmp(name, k->name, len) == 0 && name[len] == '-' &&
            hs_yaml_all_digits(name + len + 1) &&
            hs_yaml_parse_u64(name + len + 1, &x) == 0 && x < k->count)
            return (long)(first + x);
        first += k->count;
    }
    return -1;
}

/* A row [a, b, bandwidth(, latency)]: ends into *a, *b (scalars). */
static hs_err_t hs__row(hs_yaml_ctx_t *c, yaml_node_t *rn, const char *what,
                        yaml_node_t **ea, yaml_node_t **eb, double *bw,
                        int64_t *lat)
{
    size_t nf = hs_yaml_len(rn);
    hs_err_t rc;

    if (rn == NULL || rn->type != YAML_SEQUENCE_NODE || nf < 3 || nf > 4)
        return hs_yaml_fail(c, rn, HS_ERR_SCHEMA,
                            "a %s row is [a, b, bandwidth] or [a, b, "
                            "bandwidth, latency]",
                            what);
    *ea = hs_yaml_item(c, rn, 0);
    *eb = hs_yaml_item(c, rn, 1);
    *lat = -1;
    if ((rc = hs_yaml_get_bw(c, hs_yaml_item(c, rn, 2), "bandwidth", bw)) !=
        HS_OK)
        return rc;
    if (nf == 4 &&
        (rc = hs_yaml_get_time(c, hs_yaml_item(c, rn, 3), "latency", lat)) !=
            HS_OK)
        return rc;
    return HS_OK;
}

/* nodes.kinds (v, present): a non-empty list of kinds into nd->kinds,
   nd->n_kinds counting every kind begun (so hs_nodes_free frees a
   failed one's name).  HS_OK, or the error in c->err. */
static hs_err_t hs__kinds(hs_yaml_ctx_t *c, yaml_node_t *v, hs_nodes_t *nd)
{
    size_t i, nk = hs_yaml_len(v);
    hs_err_t rc;

    if (v->type != YAML_SEQUENCE_NODE || nk == 0)
        return hs_yaml_fail(c, v, HS_ERR_SCHEMA,
                            "nodes.kinds must be a list of {name, type, "
                            "devices, count, ...}");
    nd->kinds = calloc(nk, sizeof *nd->kinds);
    if (nd->kinds == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    for (i = 0; i < nk; i++) {
        if ((rc = hs__kind(c, hs_yaml_item(c, v, i), nd, &nd->kinds[i])) !=
            HS_OK) {
            nd->n_kinds = i + 1;   /* free its name */
            return rc;
        }
        nd->n_kinds = i + 1;
    }
    return HS_OK;
}

/* nodes.kind_links (v, present): [kind1, kind2, bandwidth(, latency)]
   rows into nd->kind_links, the kinds by name among nd->kinds.  HS_OK,
   or the error in c->err (the rows so far in nd, for hs_nodes_free). */
static hs_err_t hs__kind_links(hs_yaml_ctx_t *c, yaml_node_t *v,
                               hs_nodes_t *nd)
{
    size_t i, m = hs_yaml_len(v);
    hs_err_t rc;

    if (v->type != YAML_SEQUENCE_NODE)
        return hs_yaml_fail(c, v, HS_ERR_SCHEMA,
                            "nodes.kind_links must be a list of [kind1, "
                            "kind2, bandwidth] rows");
    nd->kind_links = calloc(m + 1, sizeof *nd->kind_links);
    if (nd->kind_links == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    for (i = 0; i < m; i++) {
        yaml_node_t *e[2];
        hs_node_link_t *l = &nd->kind_links[i];
        long ki[2];
        int j;
        if ((rc = hs__row(c, hs_yaml_item(c, v, i), "kind_links", &e[0],
                          &e[1], &l->bw_bytes_per_s, &l->lat_ns)) != HS_OK)
            return rc;
        for (j = 0; j < 2; j++) {
            const char *kn = hs_yaml_scalar(e[j]);
            ki[j] = kn ? hs_nodes_find_kind(nd, kn) : -1;
            if (ki[j] < 0) {
                char hint[HS__HINT_LEN];
                return hs_yaml_fail(c, e[j], HS_ERR_SCHEMA,
                                    "kind_links names unknown node "
                                    "kind '%s'%s",
                                    hs_ex(kn ? kn : ""),
                                    hs_nodes_kind_hint(nd, kn ? kn : "",
                                                       hint, sizeof hint));
            }
        }
        l->a = (uint32_t)ki[0];
        l->b = (uint32_t)ki[1];
        nd->n_kind_links = i + 1;
    }
    return HS_OK;
}

/* nodes.links (v, present): [node1, node2, bandwidth(, latency)] rows
   into nd->rows, the nodes named <kind>-<i> (copied).  HS_OK, or the
   error in c->err (nd->n_rows counting the row begun, for
   hs_nodes_free). */
static hs_err_t hs__links(hs_yaml_ctx_t *c, yaml_node_t *v, hs_nodes_t *nd)
{
    size_t i, m = hs_yaml_len(v);
    hs_err_t rc;

    if (v->type != YAML_SEQUENCE_NODE)
        return hs_yaml_fail(c, v, HS_ERR_SCHEMA,
                            "nodes.links must be a list of [node1, "
                            "node2, bandwidth] rows");
    nd->rows = calloc(m + 1, sizeof *nd->rows);
    if (nd->rows == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    for (i = 0; i < m; i++) {
        yaml_node_t *e[2];
        hs_node_row_t *r = &nd->rows[i];
        int j;
        nd->n_rows = i + 1;
        if ((rc = hs__row(c, hs_yaml_item(c, v, i), "links", &e[0], &e[1],
                          &r->bw_bytes_per_s, &r->lat_ns)) != HS_OK)
            return rc;
        for (j = 0; j < 2; j++) {
            const char *nn = hs_yaml_scalar(e[j]);
            if (nn == NULL || hs__node_index(nd, nn) < 0)
                return hs_yaml_fail(c, e[j], HS_ERR_SCHEMA,
                                    "nodes.links names unknown node "
                                    "'%s' (nodes are <kind>-<i>)",
                                    hs_ex(nn ? nn : ""));
            if ((j ? (r->b = strdup(nn)) : (r->a = strdup(nn))) == NULL)
                return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
        }
    }
    return HS_OK;
}

/* The device types' counts from the nodes (devices x count of each
   kind): set where a type gives none, checked where it does.  HS_OK, or
   the error in c->err. */
static hs_err_t hs__type_counts(hs_yaml_ctx_t *c, hs_scenario_t *s,
                                const hs_nodes_t *nd)
{
    uint64_t *cnt = calloc(s->n_types, sizeof *cnt);
    size_t i;
    hs_err_t rc;

    if (cnt == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    for (i = 0; i < nd->n_kinds; i++)
        cnt[nd->kinds[i].type] +=
            (uint64_t)nd->kinds[i].devices * nd->kinds[i].count;
    for (i = 0; i < s->n_types; i++) {
        hs_type_t *t = &s->types[i];
        if (t->has_count && t->count != cnt[i]) {
            rc = hs_error_set(c->err, HS_ERR_SCHEMA, c->file, t->line, t->col,
                              "device type '%s' says count %llu but nodes "
                              "give %llu of it",
                              t->name, (unsigned long long)t->count,
                              (unsigned long long)cnt[i]);
            free(cnt);
            return rc;
        }
        t->count = cnt[i];
    }
    free(cnt);
    return HS_OK;
}

hs_err_t hs_nodes_parse(struct hs_yaml_ctx_s *c, struct yaml_node_s *n,
                        struct hs_scenario_s *s)
{
    enum { K_KINDS, K_IBW, K_ILAT, K_KLINKS, K_LINKS };
    static const char *const keys[] = {"kinds", "inter_bandwidth",
                                       "inter_latency", "kind_links",
                                       "links", NULL};
    yaml_node_t *v[5];
    hs_nodes_t *nd;
    hs_err_t rc;

    if ((rc = hs_yaml_map(c, n, "nodes", keys, v)) != HS_OK)
        return rc;
    nd = calloc(1, sizeof *nd);
    if (nd == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    hs_nodes_free(s->nodes);
    s->nodes = nd;
    nd->inter_lat_ns = -1;
    nd->line = (unsigned long)n->start_mark.line + 1;
    nd->col = (unsigned long)n->start_mark.column + 1;
    if ((rc = hs_yaml_need(c, n, v[K_KINDS], "kinds", "nodes")) != HS_OK ||
        (rc = hs__kinds(c, v[K_KINDS], nd)) != HS_OK)
        return rc;
    if (v[K_IBW] != NULL &&
        (rc = hs_yaml_get_bw(c, v[K_IBW], "nodes.inter_bandwidth",
                             &nd->inter_bw_bytes_per_s)) != HS_OK)
        return rc;
    if (v[K_ILAT] != NULL &&
        (rc = hs_yaml_get_time(c, v[K_ILAT], "nodes.inter_latency",
                               &nd->inter_lat_ns)) != HS_OK)
        return rc;
    if (v[K_KLINKS] != NULL &&
        (rc = hs__kind_links(c, v[K_KLINKS], nd)) != HS_OK)
        return rc;
    if (v[K_LINKS] != NULL && (rc = hs__links(c, v[K_LINKS], nd)) != HS_OK)
        return rc;
    return hs__type_counts(c, s, nd);
}

/* ------------------------------------------------------------------ */
/* Expansion                                                             */

/* Writes the decimal digits of x at p; returns how many. */
static size_t hs__digits(char *p, uint64_t x)
{
    char dig[24];
    size_t nd = 0, i;

    do {
        dig[nd++] = (char)('0' + x % 10);
        x /= 10;
    } while (x != 0);
    for (i = 0; i < nd; i++)
        p[i] = dig[nd - 1 - i];
    return nd;
}

static int hs__link_cmp(const void *pa, const void *pb)
{
    const hs_node_link_t *a = pa, *b = pb;

    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return 0;
}

typedef struct hs__tmp_s {
    hs_node_link_t l;
    size_t idx;         /* the row's place in nodes.links */
} hs__tmp_t;

static int hs__tmp_cmp(const void *pa, const void *pb)
{
    const hs__tmp_t *a = pa, *b = pb;
    int c = hs__link_cmp(&a->l, &b->l);

    if (c != 0)
        return c;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The node-pair rows by node index, sorted, a later row winning. */
static hs_err_t hs__node_links(hs_scenario_t *s, hs_error_t *err)
{
    hs_nodes_t *nd = s->nodes;
    size_t i, m = 0;
    hs__tmp_t *tmp;

    free(nd->node_links);
    nd->node_links = NULL;
    nd->n_node_links = 0;
    if (nd->n_rows == 0)
        return HS_OK;
    tmp = calloc(nd->n_rows, sizeof *tmp);
    nd->node_links = calloc(nd->n_rows, sizeof *nd->node_links);
    if (tmp == NULL || nd->node_links == NULL) {
        free(tmp);
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    for (i = 0; i < nd->n_rows; i++) {
        long a = hs__node_index(nd, nd->rows[i].a);
        long b = hs__node_index(nd, nd->rows[i].b);
        if (a < 0 || b < 0) {
            free(tmp);
            return hs_error_setf(err, HS_ERR_SCHEMA,
                                 "%s: nodes.links names unknown node '%s'",
                                 s->file, hs_ex(a < 0 ? nd->rows[i].a
                                                      : nd->rows[i].b));
        }
        tmp[i].l.a = (uint32_t)a;
        tmp[i].l.b = (uint32_t)b;
        tmp[i].l.bw_bytes_per_s = nd->rows[i].bw_bytes_per_s;
        tmp[i].l.lat_ns = nd->rows[i].lat_ns;
        tmp[i].idx = i;
    }
    /* by (a, b, row index): the last row of each pair wins */
    qsort(tmp, nd->n_rows, sizeof *tmp, hs__tmp_cmp);
    for (i = 0; i < nd->n_rows; i++) {
        if (m > 0 && nd->node_links[m - 1].a == tmp[i].l.a &&
            nd->node_links[m - 1].b == tmp[i].l.b)
            m--;
        nd->node_links[m++] = tmp[i].l;
    }
    nd->n_node_links = m;
    free(tmp);
    return HS_OK;
}

/* nd->local_max, and nd->local: the common node size, else 0 (a kind
   with no nodes does not count). */
static void hs__node_sizes(hs_nodes_t *nd)
{
    size_t i;

    nd->local_max = 0;
    for (i = 0; i < nd->n_kinds; i++)
        if (nd->kinds[i].count > 0 && nd->kinds[i].devices > nd->local_max)
            nd->local_max = nd->kinds[i].devices;
    nd->local = nd->local_max;
    for (i = 0; i < nd->n_kinds; i++)
        if (nd->kinds[i].count > 0 && nd->kinds[i].devices != nd->local_max)
            nd->local = 0;
}

hs_err_t hs_nodes_gen_devices(struct hs_scenario_s *s, hs_error_t *err)
{
    hs_nodes_t *nd = s->nodes;
    size_t cnt = 0, nn = 0, need = 0, i, x = 0, node = 0;
    hs_device_t *d;
    void *p;

    for (i = 0; i < nd->n_kinds; i++) {
        const hs_node_kind_t *k = &nd->kinds[i];
        size_t nl = strlen(k->name);
        cnt += (size_t)k->devices * k->count;
        nn += k->count;
        need += (size_t)k->count * ((nl + 22) + (size_t)k->devices *
                                                    (nl + 44));
    }
    if (cnt > HS_LIMIT_DEVICES || cnt < 2) {
        /* blame the count of the kind with the most devices */
        char key[HS_LIMIT_NAME_LEN + 32];
        size_t big = 0;
        for (i = 1; i < nd->n_kinds; i++)
            if ((uint64_t)nd->kinds[i].devices * nd->kinds[i].count >
                (uint64_t)nd->kinds[big].devices * nd->kinds[big].count)
                big = i;
        snprintf(key, sizeof key, "nodes.%s.count",
                 nd->n_kinds ? nd->kinds[big].name : "?");
        return hs__ring_size_fail(s, key, "the node kinds", "make", cnt,
                                  err);
    }
    if ((p = realloc(s->devices, cnt * sizeof *s->devices)) == NULL)
        goto nomem;
    s->devices = p;
    if ((p = realloc(nd->node_first, (nn + 1) * sizeof(uint32_t))) == NULL)
        goto nomem;
    nd->node_first = p;
    if ((p = realloc(nd->node_kind, (nn + 1) * sizeof(uint32_t))) == NULL)
        goto nomem;
    nd->node_kind = p;
    if ((p = realloc(nd->dev_node, cnt * sizeof(uint32_t))) == NULL)
        goto nomem;
    nd->dev_node = p;
    if (need > s->arena_cap) {
        if ((p = realloc(s->arena, need)) == NULL)
            goto nomem;
        s->arena = p;
        s->arena_cap = need;
    }
    s->arena_len = 0;
    d = s->devices;
    for (i = 0; i < nd->n_kinds; i++) {
        const hs_node_kind_t *k = &nd->kinds[i];
        size_t nl = strlen(k->name);
        uint32_t c, j;
        for (c = 0; c < k->count; c++, node++) {
            char *host = s->arena + s->arena_len;
            size_t hl;
            memcpy(host, k->name, nl);
            host[nl] = '-';
            hl = nl + 1 + hs__digits(host + nl + 1, c);
            host[hl] = '\0';
            s->arena_len += hl + 1;
            nd->node_first[node] = (uint32_t)x;
            nd->node_kind[node] = (uint32_t)i;
            for (j = 0; j < k->devices; j++, x++) {
                char *q = s->arena + s->arena_len;
                size_t ql;
                memcpy(q, host, hl);
                q[hl] = '-';
                ql = hl + 1 + hs__digits(q + hl + 1, j);
                q[ql] = '\0';
                s->arena_len += ql + 1;
                memset(&d[x], 0, sizeof d[x]);
                d[x].type = k->type;
                d[x].compute_scale = 1.0;
                d[x].name = q;
                d[x].addr = host;
                nd->dev_node[x] = (uint32_t)node;
            }
        }
    }
    hs__node_sizes(nd);
    nd->node_first[nn] = (uint32_t)x;
    nd->n_nodes = nn;
    s->n_devices = cnt;
    /* ring edges, then the hierarchical collective's (hs_nodes.h) */
    if ((p = realloc(s->ring, cnt * sizeof *s->ring)) == NULL)
        goto nomem;
    s->ring = p;
    if ((p = realloc(s->ring_bw_bytes_per_s,
                     3 * cnt * sizeof *s->ring_bw_bytes_per_s)) == NULL)
        goto nomem;
    s->ring_bw_bytes_per_s = p;
    if ((p = realloc(s->ring_lat_ns, 3 * cnt * sizeof *s->ring_lat_ns)) ==
        NULL)
        goto nomem;
    s->ring_lat_ns = p;
    return hs__node_links(s, err);
nomem:
    return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
}

/* The node-pair row a -> b, or NULL. */
static const hs_node_link_t *hs__find_row(const hs_nodes_t *nd, uint32_t a,
                                          uint32_t b)
{
    hs_node_link_t key;

    if (nd->n_node_links == 0)
        return NULL;
    key.a = a;
    key.b = b;
    return bsearch(&key, nd->node_links, nd->n_node_links,
                   sizeof *nd->node_links, hs__link_cmp);
}

int hs_nodes_link(const struct hs_scenario_s *s, uint32_t a, uint32_t b,
                  uint32_t share_a, uint32_t share_b, double *bw_bytes_per_s,
                  int64_t *lat_ns)
{
    const hs_nodes_t *nd = s->nodes;
    uint32_t na = nd->dev_node[a], nb = nd->dev_node[b];
    const hs_node_kind_t *ka = &nd->kinds[nd->node_kind[na]];
    const hs_node_kind_t *kb = &nd->kinds[nd->node_kind[nb]];
    const hs_node_link_t *r;
    int64_t lat_def = nd->inter_lat_ns >= 0 ? nd->inter_lat_ns
                                            : s->latency_ns;
    double bw = nd->inter_bw_bytes_per_s > 0 ? nd->inter_bw_bytes_per_s
                                             : s->default_bw_bytes_per_s;
    int64_t lat = lat_def;
    size_t i;

    if (na == nb) {
        *bw_bytes_per_s = ka->intra_bw_bytes_per_s;
        *lat_ns = ka->intra_lat_ns;
        return ka->intra_bw_bytes_per_s > 0;
    }
    if ((r = hs__find_row(nd, na, nb)) != NULL ||
        (r = hs__find_row(nd, nb, na)) != NULL) {
        bw = r->bw_bytes_per_s;
        lat = r->lat_ns >= 0 ? r->lat_ns : lat_def;
    } else {
        uint32_t x = nd->node_kind[na], y = nd->node_kind[nb];
        for (i = nd->n_kind_links; i-- > 0;) {
            const hs_node_link_t *l = &nd->kind_links[i];
            if ((l->a == x && l->b == y) || (l->a == y && l->b == x)) {
                bw = l->bw_bytes_per_s;
                lat = l->lat_ns >= 0 ? l->lat_ns : lat_def;
                break;
            }
        }
    }
    /* the NICs of both ends, shared by the edges using them at once */
    if (ka->nics > 0) {
        double cap = ka->nics * ka->nic_bw_bytes_per_s /
                     (share_a > 0 ? share_a : 1);
        if (bw > cap)
            bw = cap;
    }
    if (kb->nics > 0) {
        double cap = kb->nics * kb->nic_bw_bytes_per_s /
                     (share_b > 0 ? share_b : 1);
        if (bw > cap)
            bw = cap;
    }
    *bw_bytes_per_s = bw;
    *lat_ns = lat;
    return bw > 0;
}

/* HS_ERR_NETWORK for a pair without an inter-node bandwidth. */
static hs_err_t hs__no_bw(const hs_scenario_t *s, uint32_t a, uint32_t b,
                          unsigned long line, unsigned long col,
                          hs_error_t *err)
{
    return hs_error_set(err, HS_ERR_NETWORK, s->file, line, col,
                        "nodes %s -> %s have no inter-node bandwidth (devices "
                        "%s -> %s): set nodes.inter_bandwidth or add a row "
                        "to nodes.kind_links or nodes.links",
                        s->devices[a].addr, s->devices[b].addr,
                        s->devices[a].name, s->devices[b].name);
}

/* The hierarchical all-reduce's edges (hs_edge.h): x -> the next local
   rank of its node (alone on it), x -> local rank j mod L' of the next
   node of L' devices (the L devices of x's node send across at once:
   L edges share each end's NICs). */
static hs_err_t hs__hier_edges(hs_scenario_t *s, int hier, unsigned long line,
                               unsigned long col, hs_error_t *err)
{
    const hs_nodes_t *nd = s->nodes;
    size_t N = s->n_devices;
    uint32_t x, K = (uint32_t)nd->n_nodes;

    for (x = 0; x < N; x++) {
        uint32_t n = nd->dev_node[x], f = nd->node_first[n], j = x - f;
        uint32_t L = nd->node_first[n + 1] - f, m = (n + 1) % K;
        uint32_t y = nd->node_first[m] +
                     j % (nd->node_first[m + 1] - nd->node_first[m]);
        uint32_t ei = hs_edge_index(N, HS_EDGE_INTRA, x);
        uint32_t eo = hs_edge_index(N, HS_EDGE_INTER, x);
        if (L > 1)
            (void)hs_nodes_link(s, x, f + (j + 1) % L, 1, 1,
                                &s->ring_bw_bytes_per_s[ei],
                                &s->ring_lat_ns[ei]);
        if (K > 1 &&
            !hs_nodes_link(s, x, y, L, L, &s->ring_bw_bytes_per_s[eo],
                           &s->ring_lat_ns[eo]) &&
            hier)
            return hs__no_bw(s, x, y, line, col, err);
    }
    return HS_OK;
}

hs_err_t hs_nodes_edges(struct hs_scenario_s *s, unsigned long line,
                        unsigned long col, hs_error_t *err)
{
    hs_nodes_t *nd = s->nodes;
    size_t N = s->n_devices, k;
    uint32_t *out, *in;
    int hier = s->collective != NULL &&
               strcmp(s->collective, "hierarchical") == 0;

    /* from the loader: point at the nodes: section, where the
       bandwidths are given */
    if (line != 0 && nd->line != 0) {
        line = nd->line;
        col = nd->col;
    }
    if (s->links.n_rows > 0 || s->links.n_types > 0)
        return hs_error_set(err, HS_ERR_SCHEMA, s->file, line, col,
                            "with nodes:, links between nodes are given as "
                            "nodes.kind_links and nodes.links, not "
                            "network.links or network.type_links");
    s->links.default_bw_bytes_per_s = s->default_bw_bytes_per_s;
    s->links.default_lat_ns = s->latency_ns;
    out = calloc(2 * nd->n_nodes, sizeof *out);
    if (out == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    in = out + nd->n_nodes;
    for (k = 0; k < N; k++) {
        uint32_t a = nd->dev_node[s->ring[k]];
        uint32_t b = nd->dev_node[s->ring[k + 1 == N ? 0 : k + 1]];
        if (a != b) {
            out[a]++;
            in[b]++;
        }
    }
    for (k = 0; k < N; k++) {
        uint32_t a = s->ring[k], b = s->ring[k + 1 == N ? 0 : k + 1];
        if (!hs_nodes_link(s, a, b, out[nd->dev_node[a]],
                           in[nd->dev_node[b]], &s->ring_bw_bytes_per_s[k],
                           &s->ring_lat_ns[k])) {
            free(out);
            return hs__no_bw(s, a, b, line, col, err);
        }
    }
    free(out);
    /* the hierarchical all-reduce's edges (hs_edge.h) */
    for (k = 0; k < N; k++) {
        uint32_t ei = hs_edge_index(N, HS_EDGE_INTRA, (uint32_t)k);
        uint32_t eo = hs_edge_index(N, HS_EDGE_INTER, (uint32_t)k);
        s->ring_bw_bytes_per_s[ei] = s->ring_bw_bytes_per_s[eo] = 0;
        s->ring_lat_ns[ei] = s->ring_lat_ns[eo] = 0;
    }
    return hs__hier_edges(s, hier, line, col, err);
}

hs_err_t hs_nodes_clone(const hs_nodes_t *src, hs_nodes_t **out,
                        hs_error_t *err)
{
    hs_nodes_t *d;
    size_t i, nn;

    *out = NULL;
    if (src == NULL)
        return HS_OK;
    d = calloc(1, sizeof *d);
    if (d == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    *d = *src;
    d->kinds = NULL;
    d->kind_links = NULL;
    d->rows = NULL;
    d->node_first = d->node_kind = d->dev_node = NULL;
    d->node_links = NULL;
    d->n_kinds = d->n_rows = 0;
    nn = src->n_nodes;
#define HS__DUP(dst, srcp, n)                                              \
    do {                                                                   \
        if ((srcp) != NULL) {                                              \
            (dst) = malloc((n) * sizeof *(srcp) + 1);                      \
            if ((dst) == NULL)                                             \
                goto nomem;                                                \
            memcpy((dst), (srcp), (n) * sizeof *(srcp));                   \
        }                                                                  \
    } while (0)
    HS__DUP(d->kinds, src->kinds, src->n_kinds);
    for (i = 0; d->kinds != NULL && i < src->n_kinds; i++) {
        d->kinds[i].name = strdup(src->kinds[i].name);
        d->n_kinds = i + 1;
        if (d->kinds[i].name == NULL)
            goto nomem;
    }
    HS__DUP(d->kind_links, src->kind_links, src->n_kind_links);
    HS__DUP(d->rows, src->rows, src->n_rows);
    for (i = 0; d->rows != NULL && i < src->n_rows; i++) {
        d->rows[i].a = strdup(src->rows[i].a);
        d->rows[i].b = strdup(src->rows[i].b);
        d->n_rows = i + 1;
        if (d->rows[i].a == NULL || d->rows[i].b == NULL)
            goto nomem;
    }
    HS__DUP(d->node_first, src->node_first, nn + 1);
    HS__DUP(d->node_kind, src->node_kind, nn + 1);
    HS__DUP(d->dev_node, src->dev_node,
            src->node_first != NULL ? src->node_first[nn] : 0);
    HS__DUP(d->node_links, src->node_links, src->n_node_links);
#undef HS__DUP
    *out = d;
    return HS_OK;
nomem:
    hs_nodes_free(d);
    return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
}

hs_err_t hs_nodes_check_collective(const struct hs_scenario_s *s,
                                   unsigned long line, unsigned long col,
                                   hs_error_t *err)
{
    const hs_collective_t *c;
    hs_err_t rc;
    char msg[HS_ERRMSG_LEN];

    rc = hs_collective_find(s->collective, &c, err);
    if (rc == HS_OK && c->check != NULL)
        rc = c->check(s, err);
    if (rc == HS_OK)
        return HS_OK;
    snprintf(msg, sizeof msg, "%s", err != NULL ? err->msg : "");
    return hs_error_set(err, rc, s->file, line, col, "collective: %s", msg);
}
