/*
 * hs_scenario.c -- reading a scenario YAML file (hs_scenario.h).
 *
 * Each section is walked strictly with the kit of model/hs_yaml.h, every
 * error at its file:line:col.  Profiles are model/hs_profile.c's, the link
 * table and its CSV rows model/hs_links.c's.  What the cluster is derived
 * from is kept in the scenario (the type counts or the device list, the
 * ring mode or names, the link table, the straggler names), and the
 * derivation itself (hs_scenario_resolve.c) is the one hs_scenario_resolve
 * runs after hs_scenario_set (hs_scenario_set.c): the loader checks each
 * name at its position first, then calls the same steps.
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
#include "hs_limits.h"
#include "hs_nodes.h"
#include "hs_scenario_int.h"
#include "hs_suggest.h"
#include "hs_units.h"
#include "hs_valid.h"
#include "hs_yaml.h"

extern const char hs_default_scenario_yaml[];
extern const size_t hs_default_scenario_len;

/* The scenario a walking context fills. */
#define HS__S(c) ((hs_scenario_t *)(c)->user)

/* ------------------------------------------------------------------ */
/* Sections                                                              */


/* "; did you mean 'X'?" for a mistyped word among valid (NULL-ended), or
   "" (also when n is no scalar), into buf. */
static const char *hs__word_hint(const yaml_node_t *n,
                                 const char *const *valid, char *buf,
                                 size_t cap)
{
    const char *w = n != NULL && n->type == YAML_SCALAR_NODE
                        ? (const char *)n->data.scalar.value
                        : NULL;

    if (w == NULL) {
        buf[0] = '\0';
        return buf;
    }
    return hs_suggest_hint_list(w, valid, buf, cap);
}
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
            if ((rc = hs_yaml_need(c, v[K_MODEL], mv[0], "file",
                                   "job.model")) != HS_OK)
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
            return hs_yaml_fail(
                c, dv[1], HS_ERR_SCHEMA,
                "job.dataset takes 'size' or 'samples', not both");
        if (dv[0] != NULL) {
            s->dataset_is_bytes = 1;
            if ((rc = hs_yaml_get_bytes(c, dv[0], "job.dataset.size",
                                        &s->dataset_total)) != HS_OK)
                return rc;
        }
        if (dv[1] != NULL &&
            (rc = hs_yaml_get_u64(c, dv[1], "job.dataset.samples", 1,
                                  HS_LIMIT_COUNT, &s->dataset_total)) != HS_OK)
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
            return hs_yaml_fail(
                c, v[K_DATASET], HS_ERR_SCHEMA,
                "job.dataset.size is in bytes: give "
                "job.dataset.sample_bytes too, to count samples");
        if (hs__where_node(c, "job.dataset",
                           dv[1] != NULL ? dv[1]
                           : dv[0] != NULL ? dv[0] : v[K_DATASET]) != 0)
            return hs_yaml_fail(c, v[K_DATASET], HS_ERR_NOMEM,
                                "out of memory");
    }
    if (v[K_EPOCHS] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_EPOCHS], "job.epochs", 1,
                              HS_LIMIT_EPOCHS, &s->epochs)) != HS_OK)
        return rc;
    if (hs__where_node(c, "job.epochs", v[K_EPOCHS]) != 0)
        return hs_yaml_fail(c, v[K_EPOCHS], HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* 1 when key is a shell-style variable name, [A-Za-z_][A-Za-z0-9_]*: it
   then cannot be read as an option of env(1) or split a command line. */
static int hs__env_name_ok(const char *key)
{
    const char *p;

    if (!((key[0] >= 'A' && key[0] <= 'Z') ||
          (key[0] >= 'a' && key[0] <= 'z') || key[0] == '_'))
        return 0;
    for (p = key + 1; *p != '\0'; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
              (*p >= '0' && *p <= '9') || *p == '_'))
            return 0;
    return 1;
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
        yaml_node_t *kn = hs_yaml_node(c, p->key),
                    *vn = hs_yaml_node(c, p->value);
        const char *key = hs_yaml_scalar(kn), *val = hs_yaml_scalar(vn);
        size_t len;
        if (key == NULL || key[0] == '\0' || strchr(key, '=') != NULL)
            return hs_yaml_fail(c, kn, HS_ERR_SCHEMA,
                                "env names must be plain names without '='");
        if (!hs__env_name_ok(key))
            return hs_yaml_fail(c, kn, HS_ERR_SCHEMA,
                                "env name '%s' is not a variable name "
                                "(letters, digits and '_', not starting "
                                "with a digit)",
                                hs_ex(key));
        if (val == NULL)
            return hs_yaml_fail(c, vn, HS_ERR_SCHEMA,
                                "env values must be strings");
        if (strpbrk(val, "\n\r") != NULL)
            return hs_yaml_fail(c, vn, HS_ERR_SCHEMA,
                                "env value of '%s' holds a line break",
                                hs_ex(key));
        len = strlen(key) + strlen(val) + 2;
        t->env[k] = malloc(len);
        if (t->env[k] == NULL)
            return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
        snprintf(t->env[k], len, "%s=%s", key, val);
        t->n_env = k + 1;
    }
    return HS_OK;
}

/* hs__where_node for "<section>.<name>.<key>" at n (nothing when n is
   NULL).  0, or -1 when out of memory. */
static int hs__where_key(hs_yaml_ctx_t *c, const char *section,
                         const char *name, const char *key,
                         const yaml_node_t *n)
{
    char buf[HS_LIMIT_NAME_LEN + 64];

    if (n == NULL)
        return 0;
    snprintf(buf, sizeof buf, "%s.%s.%s", section, name, key);
    return hs__where_node(c, buf, n);
}

/* Type t's micro_batches from vm (1 when vm is NULL): a divisor of its
   batch. */
static hs_err_t hs__type_micro(hs_yaml_ctx_t *c, yaml_node_t *vm,
                               hs_type_t *t)
{
    uint64_t mb = 1;
    hs_err_t rc;

    t->micro_batches = 1;
    if (vm == NULL)
        return HS_OK;
    if ((rc = hs_yaml_get_u64(c, vm, "micro_batches", 1,
                              HS_LIMIT_MICRO_BATCHES, &mb)) != HS_OK)
        return rc;
    if (t->batch % mb != 0)
        return hs_yaml_fail(c, vm, HS_ERR_RANGE,
                            "micro_batches %llu does not divide "
                            "the batch %llu: a step's micro-batches "
                            "are batch / micro_batches samples each",
                            (unsigned long long)mb,
                            (unsigned long long)t->batch);
    t->micro_batches = (uint32_t)mb;
    return HS_OK;
}

/* Type t's profile from vp (of the type at tn): none when vp is NULL or
   null, a file named relative to the scenario, or given inline. */
static hs_err_t hs__type_profile(hs_yaml_ctx_t *c, yaml_node_t *tn,
                                 yaml_node_t *vp, hs_type_t *t)
{
    hs_scenario_t *s = HS__S(c);
    hs_err_t rc;

    t->has_profile = vp != NULL && !hs_yaml_is_null(vp);
    if (!t->has_profile) {
        /* not measured yet: hs_scenario_require_profiles rejects it
           where timings are needed */
    } else if (hs_yaml_scalar(vp) != NULL) {
        char *path = hs_file_join(c->base_dir,
                                      hs_yaml_scalar(vp));
        if (path == NULL)
            return hs_yaml_fail(c, tn, HS_ERR_NOMEM, "out of memory");
        rc = hs_profile_read_file(path, &t->profile, &s->warnings,
                                  &s->n_warnings, c->err);
        if (rc == HS_ERR_IO) {
            char inner[HS_ERRMSG_LEN];
            snprintf(inner, sizeof inner, "%s", c->err->msg);
            rc = hs_yaml_fail(c, vp, HS_ERR_IO,
                              "profile of type '%s': %s", t->name, inner);
        }
        free(path);
        if (rc != HS_OK)
            return rc;
    } else {
        char what[256];
        snprintf(what, sizeof what, "the profile of type '%s'", t->name);
        if ((rc = hs_profile_parse(c, vp, what,
                                   &t->profile)) != HS_OK)
            return rc;
    }
    return HS_OK;
}

/* Type t's micro_batches against its profile's (hs_profile_t
   micro_batches: the accumulation the profile was measured with, 0 when
   it states none).  A profile that states V gives the type V when the
   type states none (vm NULL), at the profile's key when V does not divide
   the batch; a type that states another count is refused at its own key,
   naming the profile's: the profile's times are one micro-batch of a
   step of V. */
static hs_err_t hs__type_micro_profile(hs_yaml_ctx_t *c, yaml_node_t *vm,
                                       hs_type_t *t)
{
    const hs_profile_t *p = &t->profile;
    const char *pf = p->path != NULL ? p->path : c->file;
    unsigned long line = 0, col = 0;
    char at[4096 + 48];

    if (!t->has_profile || p->micro_batches == 0)
        return HS_OK;
    if (hs_profile_where(p, "micro_batches", &line, &col) != 0)
        line = col = 0;
    if (line > 0)
        snprintf(at, sizeof at, "%s:%lu:%lu", pf != NULL ? pf : "",
                 line, col);
    else
        snprintf(at, sizeof at, "%s", pf != NULL ? pf : "the profile");
    if (vm != NULL) {
        if (t->micro_batches == p->micro_batches)
            return HS_OK;
        return hs_yaml_fail(c, vm, HS_ERR_SCHEMA,
                            "type '%s': micro_batches %u contradicts its "
                            "profile's micro_batches %u (%s): the "
                            "profile's times are one micro-batch of a "
                            "step of %u; give micro_batches: %u or leave "
                            "it out, or profile the type again",
                            t->name, t->micro_batches, p->micro_batches, at,
                            p->micro_batches, p->micro_batches);
    }
    if (t->batch % p->micro_batches != 0)
        return hs_error_set(c->err, HS_ERR_RANGE, pf,
                            c->no_pos ? 0 : line, col,
                            "type '%s': its profile's micro_batches %u "
                            "does not divide the type's batch %llu: a "
                            "step's micro-batches are batch / "
                            "micro_batches samples each",
                            t->name, p->micro_batches,
                            (unsigned long long)t->batch);
    t->micro_batches = p->micro_batches;
    return HS_OK;
}

/* Type t's backend from vb (none when vb is NULL): gloo, nccl or mpi. */
static hs_err_t hs__type_backend(hs_yaml_ctx_t *c, yaml_node_t *vb,
                                 hs_type_t *t)
{
    const char *b;

    if (vb == NULL)
        return HS_OK;
    b = hs_yaml_scalar(vb);
    if (b == NULL || (strcmp(b, "gloo") != 0 &&
                      strcmp(b, "nccl") != 0 &&
                      strcmp(b, "mpi") != 0))
    {
        static const char *const ok[] = {"gloo", "nccl", "mpi",
                                         NULL};
        char hint[HS_SUGGEST_HINT_LEN];
        return hs_yaml_fail(c, vb, HS_ERR_SCHEMA,
                            "backend must be gloo, nccl or mpi%s",
                            hs__word_hint(vb, ok, hint,
                                          sizeof hint));
    }
    t->backend = strdup(b);
    return HS_OK;
}

/* Device type k of device_types, at tn: its name (valid, not a repeat),
   count, batch, micro-batches, shard, profile, backend and env. */
static hs_err_t hs__parse_type(hs_yaml_ctx_t *c, yaml_node_t *tn, size_t k)
{
    enum { K_NAME, K_COUNT, K_BATCH, K_SHARD, K_PROFILE, K_BACKEND, K_ENV,
           K_MICRO };
    static const char *const keys[] = {"name", "count", "batch", "shard",
                                       "profile", "backend", "env",
                                       "micro_batches", NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[8];
    hs_type_t *t = &s->types[k];
    size_t j;
    hs_err_t rc;
    const char *why;

    s->n_types = k + 1;
    t->line = tn->start_mark.line + 1;
    t->col = tn->start_mark.column + 1;
    if ((rc = hs_yaml_map(c, tn, "a device type", keys, v)) != HS_OK)
        return rc;
    if ((rc = hs_yaml_need(c, tn, v[K_NAME], "name", "a device type")) !=
            HS_OK ||
        (rc = hs_yaml_get_str(c, v[K_NAME], "name", &t->name)) != HS_OK)
        return rc;
    if (hs_valid_name(t->name, &why) != 0) {
        char q[HS_LIMIT_NAME_LEN * 4 + 8];
        return hs_yaml_fail(c, v[K_NAME], HS_ERR_SCHEMA,
                            "device type name '%s' %s",
                            hs_valid_quote(t->name, q, sizeof q), why);
    }
    for (j = 0; j < k; j++)
        if (strcmp(s->types[j].name, t->name) == 0)
            return hs_yaml_fail(c, v[K_NAME], HS_ERR_SCHEMA,
                                "duplicate device type name '%s' (first at "
                                "line %lu)",
                                t->name, s->types[j].line);
    if (v[K_COUNT] != NULL &&
        (rc = hs_yaml_get_u64(c, v[K_COUNT], "count", 0, HS_LIMIT_DEVICES,
                              &t->count)) != HS_OK)
        return rc;
    t->has_count = v[K_COUNT] != NULL;
    if ((rc = hs_yaml_need(c, tn, v[K_BATCH], "batch",
                           "a device type")) != HS_OK ||
        (rc = hs_yaml_get_u64(c, v[K_BATCH], "batch", 1, UINT32_MAX,
                              &t->batch)) != HS_OK)
        return rc;
    if ((rc = hs__type_micro(c, v[K_MICRO], t)) != HS_OK)
        return rc;
    if (hs__where_key(c, "device_types", t->name, "batch",
                      v[K_BATCH]) != 0 ||
        hs__where_key(c, "device_types", t->name, "shard",
                      v[K_SHARD]) != 0 ||
        hs__where_key(c, "device_types", t->name, "count",
                      v[K_COUNT]) != 0)
        return hs_yaml_fail(c, tn, HS_ERR_NOMEM, "out of memory");
    if (v[K_SHARD] != NULL) {
        if ((rc = hs_yaml_get_amount(c, v[K_SHARD], "shard",
                                     &t->shard_is_bytes, &t->shard)) !=
            HS_OK)
            return rc;
        if (t->shard_is_bytes && s->sample_bytes == 0)
            return hs_yaml_fail(
                c, v[K_SHARD], HS_ERR_SCHEMA,
                "shard is a size: give "
                "job.dataset.sample_bytes to count samples");
    }
    if ((rc = hs__type_profile(c, tn, v[K_PROFILE], t)) != HS_OK ||
        (rc = hs__type_micro_profile(c, v[K_MICRO], t)) != HS_OK ||
        (rc = hs__type_backend(c, v[K_BACKEND], t)) != HS_OK)
        return rc;
    if (v[K_ENV] != NULL && (rc = hs__parse_env(c, v[K_ENV], t)) != HS_OK)
        return rc;
    return HS_OK;
}

/* Reads device_types (n, a non-empty list) into s->types. */
static hs_err_t hs__parse_types(hs_yaml_ctx_t *c, yaml_node_t *n)
{
    hs_scenario_t *s = HS__S(c);
    yaml_node_item_t *it;
    size_t cnt, k = 0;
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
         it++, k++)
        if ((rc = hs__parse_type(c, hs_yaml_node(c, *it), k)) != HS_OK)
            return rc;
    return HS_OK;
}

static void hs__fix_names(hs_scenario_t *s, size_t *name_off,
                          size_t *addr_off)
{
    size_t i;

    for (i = 0; i < s->n_devices; i++) {
        s->devices[i].name = s->arena + name_off[i];
        s->devices[i].addr = s->arena + addr_off[i];
    }
}

/* A device's addr from va (its name nm when va is NULL) into *ad: a
   non-empty, valid address. */
static hs_err_t hs__device_addr(hs_yaml_ctx_t *c, yaml_node_t *va,
                                const char *nm, const char **ad)
{
    const char *why;

    *ad = nm;
    if (va == NULL)
        return HS_OK;
    *ad = hs_yaml_scalar(va);
    if (*ad == NULL || (*ad)[0] == '\0')
        return hs_yaml_fail(c, va, HS_ERR_SCHEMA,
                            "a device's addr must be a string");
    if (hs_valid_addr(*ad, &why) != 0) {
        char q[HS_LIMIT_HOST_LEN * 4 + 8];
        return hs_yaml_fail(c, va, HS_ERR_SCHEMA,
                            "device '%s': addr '%s' %s", nm,
                            hs_valid_quote(*ad, q, sizeof q), why);
    }
    return HS_OK;
}

/* Device k of devices, at dn: its name and addr (into the arena, their
   offsets in name_off[k], addr_off[k]), type (counted in counts),
   compute_scale and extra_compute. */
static hs_err_t hs__parse_device(hs_yaml_ctx_t *c, yaml_node_t *dn, size_t k,
                                 size_t *counts, size_t *name_off,
                                 size_t *addr_off)
{
    enum { K_NAME, K_TYPE, K_ADDR, K_SCALE, K_EXTRA };
    static const char *const keys[] = {"name", "type", "addr",
                                       "compute_scale", "extra_compute",
                                       NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[5];
    hs_device_t *d = &s->devices[k];
    const char *nm, *ty, *ad, *why;
    long ti;
    hs_err_t rc;

    if ((rc = hs_yaml_map(c, dn, "a device", keys, v)) != HS_OK)
        return rc;
    if ((rc = hs_yaml_need(c, dn, v[K_NAME], "name", "a device")) !=
            HS_OK ||
        (rc = hs_yaml_need(c, dn, v[K_TYPE], "type", "a device")) !=
            HS_OK)
        return rc;
    nm = hs_yaml_scalar(v[K_NAME]);
    ty = hs_yaml_scalar(v[K_TYPE]);
    if (nm == NULL || nm[0] == '\0')
        return hs_yaml_fail(c, v[K_NAME], HS_ERR_SCHEMA,
                            "a device's name must be a string");
    if (hs_valid_name(nm, &why) != 0) {
        char q[HS_LIMIT_NAME_LEN * 4 + 8];
        return hs_yaml_fail(c, v[K_NAME], HS_ERR_SCHEMA,
                            "device name '%s' %s",
                            hs_valid_quote(nm, q, sizeof q), why);
    }
    if (ty == NULL || (ti = hs__type_index(s, ty)) < 0) {
        char hint[HS__HINT_LEN];
        return hs_yaml_fail(c, v[K_TYPE], HS_ERR_SCHEMA,
                            "device '%s' has unknown type '%s'%s", nm,
                            hs_ex(ty ? ty : ""),
                            hs__type_hint(s, ty ? ty : "", hint,
                                          sizeof hint));
    }
    if ((rc = hs__device_addr(c, v[K_ADDR], nm, &ad)) != HS_OK)
        return rc;
    d->type = (uint32_t)ti;
    counts[ti]++;
    d->compute_scale = 1.0;
    if (v[K_SCALE] != NULL &&
        (rc = hs_yaml_get_factor(c, v[K_SCALE], "compute_scale",
                                 &d->compute_scale)) != HS_OK)
        return rc;
    if (v[K_EXTRA] != NULL &&
        (rc = hs_yaml_get_time(c, v[K_EXTRA], "extra_compute",
                               &d->extra_compute_ns)) != HS_OK)
        return rc;
    if (hs__where_key(c, "devices", nm, "compute_scale",
                      v[K_SCALE]) != 0 ||
        hs__where_key(c, "devices", nm, "extra_compute",
                      v[K_EXTRA]) != 0)
        return hs_yaml_fail(c, dn, HS_ERR_NOMEM, "out of memory");
    name_off[k] = hs__arena_add(s, nm);
    addr_off[k] = hs__arena_add(s, ad);
    if (name_off[k] == (size_t)-1 || addr_off[k] == (size_t)-1)
        return hs_yaml_fail(c, dn, HS_ERR_NOMEM, "out of memory");
    s->n_devices = k + 1;
    return HS_OK;
}

/* The listed devices (n): no name twice (h, a name hash built here and
   freed by the caller), and each type's count as many as listed of it
   (counts), taken as its count. */
static hs_err_t hs__devices_agree(hs_yaml_ctx_t *c, yaml_node_t *n,
                                  hs__hash_t *h, const size_t *counts)
{
    hs_scenario_t *s = HS__S(c);
    yaml_node_item_t *it;
    size_t i, k;

    if (hs__hash_build(h, s, 0) != 0)
        return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
    k = 0;
    for (it = n->data.sequence.items.start;
         it < n->data.sequence.items.top; it++, k++) {
        long first = hs__hash_find(h, s, 0, s->devices[k].name);
        if (first != (long)k) {
            yaml_node_t *dn = hs_yaml_node(c, *it);
            return hs_yaml_fail(c, dn, HS_ERR_SCHEMA,
                                "duplicate device name '%s'",
                                s->devices[k].name);
        }
    }
    for (i = 0; i < s->n_types; i++) {
        hs_type_t *t = &s->types[i];
        if (t->count != 0 && t->count != counts[i])
            return hs_error_set(c->err, HS_ERR_SCHEMA, c->file, t->line,
                                t->col,
                                "device type '%s' says count %llu but "
                                "devices lists %zu of it",
                                t->name, (unsigned long long)t->count,
                                counts[i]);
        t->count = counts[i];
    }
    return HS_OK;
}

/* No devices listed: every type needs a count, and the devices are
   generated from the counts. */
static hs_err_t hs__devices_from_counts(hs_yaml_ctx_t *c)
{
    hs_scenario_t *s = HS__S(c);
    size_t i;

    for (i = 0; i < s->n_types; i++)
        if (s->types[i].count == 0 && !s->types[i].has_count)
            return hs_error_set(c->err, HS_ERR_SCHEMA, c->file,
                                s->types[i].line, s->types[i].col,
                                "device type '%s' needs a count "
                                "(or list the devices)",
                                s->types[i].name);
    return hs__gen_devices(s, c->err);
}

/* Reads devices (n; NULL: generated from the type counts) into
   s->devices, and allocates the ring's arrays. */
static hs_err_t hs__parse_devices(hs_yaml_ctx_t *c, yaml_node_t *n)
{
    hs_scenario_t *s = HS__S(c);
    size_t *name_off = NULL, *addr_off = NULL, *counts = NULL;
    size_t cnt = 0, k;
    hs_err_t rc = HS_OK;
    hs__hash_t h = {0};
    yaml_node_item_t *it;

    if (n == NULL)
        return hs__devices_from_counts(c);
    if (n->type != YAML_SEQUENCE_NODE)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "devices must be a list of {name, type, addr}");
    cnt = (size_t)(n->data.sequence.items.top -
                   n->data.sequence.items.start);
    if (cnt == 0)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "devices must not be empty (leave it out to "
                            "generate devices from the type counts)");
    if (cnt > HS_LIMIT_DEVICES)
        return hs_yaml_fail(c, n, HS_ERR_RANGE,
                            "%zu devices: a ring has at most %lu", cnt,
                            (unsigned long)HS_LIMIT_DEVICES);
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
         it < n->data.sequence.items.top; it++, k++)
        if ((rc = hs__parse_device(c, hs_yaml_node(c, *it), k, counts,
                                   name_off, addr_off)) != HS_OK)
            goto done;
    hs__fix_names(s, name_off, addr_off);
    s->devices_listed = 1;
    if ((rc = hs__devices_agree(c, n, &h, counts)) != HS_OK)
        goto done;
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

/*
 * Reads a `ring:` value (NULL = not given): a mode name or a list of
 * device names (copied into *names, *n_names; NULL for a mode).  Checks
 * the shape only; the names are checked against the devices later.
 */
hs_err_t hs__ring_spec(struct hs_yaml_ctx_s *c, struct yaml_node_s *n,
                       hs_ring_mode_t *mode, char ***names, size_t *n_names)
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
    else if (m != NULL) {
        static const char *const ok[] = {"listing", "grouped", "interleave",
                                         NULL};
        char hint[HS_SUGGEST_HINT_LEN];
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "ring must be listing, grouped, interleave or a "
                            "list of device names, not '%s'%s",
                            hs_ex(m), hs__word_hint(n, ok, hint, sizeof hint));
    }
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
        char hint[HS__HINT_LEN];
        if (d < 0)
            rc = hs_yaml_fail(c, en, HS_ERR_SCHEMA,
                              "ring names unknown device '%s'%s", hs_ex(name),
                              hs__device_hint(s, name, hint, sizeof hint));
        else if (seen[d])
            rc = hs_yaml_fail(c, en, HS_ERR_SCHEMA,
                              "ring names device '%s' twice",
                              hs_ex(name));
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

/* hs_links_read_csv's question: is this a device name or address? */
typedef struct hs__known_s {
    hs__names_t *nm;
    const hs_scenario_t *s;
} hs__known_t;

static int hs__known(void *ctx, const char *key)
{
    hs__known_t *k = ctx;

    return hs__endpoint_known(k->nm, k->s, key);
}

/*
 * Reads one type_links row [type1, type2, bandwidth(, latency)] (rn) into
 * the link table; `replace` drops earlier rows for the same types.
 */
hs_err_t hs__type_row(struct hs_yaml_ctx_s *c, struct yaml_node_s *rn,
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
        if (t[i] < 0) {
            char hint[HS__HINT_LEN];
            return hs_yaml_fail(c, en, HS_ERR_SCHEMA,
                                "type_links names unknown device type '%s'%s",
                                hs_ex(tn ? tn : ""),
                                hs__type_hint(s, tn ? tn : "", hint,
                                              sizeof hint));
        }
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

/* network.links_csv (vc): the rows of the CSV file, named relative to
   the scenario, added to s->links (nm ready). */
static hs_err_t hs__links_csv(hs_yaml_ctx_t *c, yaml_node_t *vc,
                              hs__names_t *nm)
{
    hs_scenario_t *s = HS__S(c);
    const char *p = hs_yaml_scalar(vc);
    hs__known_t known;
    char *path;
    hs_err_t rc;

    if (p == NULL || p[0] == '\0')
        return hs_yaml_fail(c, vc, HS_ERR_SCHEMA,
                            "network.links_csv must be a file path");
    path = hs_file_join(c->base_dir, p);
    if (path == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    known.nm = nm;
    known.s = s;
    rc = hs_links_read_csv(&s->links, path, hs__known, &known, c->err);
    if (rc == HS_ERR_IO) {
        char inner[HS_ERRMSG_LEN];
        snprintf(inner, sizeof inner, "%s", c->err->msg);
        rc = hs_yaml_fail(c, vc, HS_ERR_IO,
                          "network.links_csv: %s", inner);
    }
    free(path);
    return rc;
}

/* One row rn of network.links: [addr1, addr2, bandwidth[, latency]],
   both ends known and different devices, added to s->links (nm
   ready). */
static hs_err_t hs__links_row(hs_yaml_ctx_t *c, yaml_node_t *rn,
                              hs__names_t *nm)
{
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *f[4];
    size_t nf = hs_yaml_len(rn), i;
    double bw;
    int64_t lat = -1;
    hs_err_t rc;

    if (rn->type != YAML_SEQUENCE_NODE || nf < 3 || nf > 4)
        return hs_yaml_fail(c, rn, HS_ERR_SCHEMA,
                            "a links row is [addr1, addr2, "
                            "bandwidth] or [addr1, addr2, "
                            "bandwidth, latency]");
    for (i = 0; i < nf; i++)
        f[i] = hs_yaml_item(c, rn, i);
    for (i = 0; i < 2; i++) {
        const char *e = hs_yaml_scalar(f[i]);
        char hint[HS__HINT_LEN];
        if (e == NULL || !hs__endpoint_known(nm, s, e))
            return hs_yaml_fail(c, f[i], HS_ERR_NETWORK,
                                "'%s' is neither a device name nor "
                                "a device address%s",
                                hs_ex(e ? e : ""),
                                hs__device_hint(s, e ? e : "", hint,
                                                sizeof hint));
    }
    if (hs__endpoint_device(nm, s, hs_yaml_scalar(f[0])) ==
        hs__endpoint_device(nm, s, hs_yaml_scalar(f[1])))
        return hs_yaml_fail(c, f[1], HS_ERR_NETWORK,
                            "a link from '%s' to itself: a ring "
                            "link joins two devices",
                            hs_ex(hs_yaml_scalar(f[0])));
    if ((rc = hs_yaml_get_bw(c, f[2], "links bandwidth", &bw)) !=
        HS_OK)
        return rc;
    if (nf == 4 && (rc = hs_yaml_get_time(c, f[3], "links latency",
                                          &lat)) != HS_OK)
        return rc;
    if (hs_links_add_row(&s->links, hs_yaml_scalar(f[0]),
                         hs_yaml_scalar(f[1]), bw, lat) != 0)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* Reads the network section (n; NULL: none, root for the position of
   errors) into s: default bandwidth and latency, type links, links from
   a CSV file then inline; then every ring edge's bandwidth and latency. */
static hs_err_t hs__parse_network(hs_yaml_ctx_t *c, yaml_node_t *n,
                                  hs__names_t *nm, yaml_node_t *root)
{
    enum { K_DEFAULT, K_LAT, K_LINKS, K_CSV, K_TLINKS };
    static const char *const keys[] = {"default_bandwidth", "latency",
                                       "links", "links_csv", "type_links",
                                       NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[5] = {NULL, NULL, NULL, NULL, NULL}, *at;
    size_t k;
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
    if (hs__where_node(c, "network.default_bandwidth", v[K_DEFAULT]) != 0 ||
        hs__where_node(c, "network.latency", v[K_LAT]) != 0)
        return hs_yaml_fail(c, n, HS_ERR_NOMEM, "out of memory");
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
    if (v[K_CSV] != NULL && (rc = hs__links_csv(c, v[K_CSV], nm)) != HS_OK)
        return rc;
    if (v[K_LINKS] != NULL) {
        /* inline rows come after CSV rows: they win on the same pair */
        if (v[K_LINKS]->type != YAML_SEQUENCE_NODE)
            return hs_yaml_fail(c, v[K_LINKS], HS_ERR_SCHEMA,
                                "network.links must be a list of [addr1, "
                                "addr2, bandwidth] rows");
        for (k = 0; k < hs_yaml_len(v[K_LINKS]); k++)
            if ((rc = hs__links_row(c, hs_yaml_item(c, v[K_LINKS], k),
                                    nm)) != HS_OK)
                return rc;
    }
    at = n != NULL ? n : root;
    return hs__edges(s, (unsigned long)at->start_mark.line + 1,
                     (unsigned long)at->start_mark.column + 1, c->err);
}

/* A straggler's steps (sv: a step number or [first, last]) into g. */
static hs_err_t hs__straggler_steps(hs_yaml_ctx_t *c, yaml_node_t *sv,
                                    hs_straggler_t *g)
{
    hs_err_t rc;

    if (hs_yaml_scalar(sv) != NULL) {
        if ((rc = hs_yaml_get_u32(c, sv, "straggler steps", 0,
                                  UINT32_MAX, &g->first_step)) != HS_OK)
            return rc;
        g->last_step = g->first_step;
    } else if (sv->type == YAML_SEQUENCE_NODE &&
               sv->data.sequence.items.top -
                       sv->data.sequence.items.start ==
                   2) {
        if ((rc = hs_yaml_get_u32(
                 c,
                 hs_yaml_node(c, sv->data.sequence.items.start[0]),
                 "straggler first step", 0, UINT32_MAX,
                 &g->first_step)) != HS_OK ||
            (rc = hs_yaml_get_u32(
                 c,
                 hs_yaml_node(c, sv->data.sequence.items.start[1]),
                 "straggler last step", 0, UINT32_MAX,
                 &g->last_step)) != HS_OK)
            return rc;
        if (g->last_step < g->first_step)
            return hs_yaml_fail(
                c, sv, HS_ERR_RANGE,
                "straggler steps [first, last] must not "
                "run backwards");
    } else {
        return hs_yaml_fail(c, sv, HS_ERR_SCHEMA,
                            "straggler steps must be a step number or "
                            "[first, last]");
    }
    return HS_OK;
}

/* Straggler k of simulate.stragglers, at sn: its device (by name, nm
   ready), steps, factor and extra. */
static hs_err_t hs__parse_straggler(hs_yaml_ctx_t *c, yaml_node_t *sn,
                                    size_t k, hs__names_t *nm)
{
    static const char *const sk[] = {"device", "steps", "factor",
                                     "extra", NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *sv[4];
    hs_straggler_t *g = &s->stragglers[k];
    const char *dn;
    long d;
    hs_err_t rc;

    if ((rc = hs_yaml_map(c, sn, "a straggler", sk, sv)) != HS_OK)
        return rc;
    if ((rc = hs_yaml_need(c, sn, sv[0], "device", "a straggler")) !=
            HS_OK ||
        (rc = hs_yaml_need(c, sn, sv[1], "steps", "a straggler")) !=
            HS_OK)
        return rc;
    dn = hs_yaml_scalar(sv[0]);
    d = dn ? hs__hash_find(&nm->by_name, s, 0, dn) : -1;
    if (d < 0) {
        char hint[HS__HINT_LEN];
        return hs_yaml_fail(c, sv[0], HS_ERR_SCHEMA,
                            "straggler names unknown device '%s'%s",
                            hs_ex(dn ? dn : ""),
                            hs__device_hint(s, dn ? dn : "", hint,
                                            sizeof hint));
    }
    g->device = (uint32_t)d;
    if ((s->straggler_names[k] = strdup(dn)) == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    if ((rc = hs__straggler_steps(c, sv[1], g)) != HS_OK)
        return rc;
    g->factor = 1.0;
    if (sv[2] != NULL &&
        (rc = hs_yaml_get_factor(c, sv[2], "straggler factor",
                                 &g->factor)) != HS_OK)
        return rc;
    if (sv[3] != NULL &&
        (rc = hs_yaml_get_time(c, sv[3], "straggler extra",
                               &g->extra_ns)) != HS_OK)
        return rc;
    {
        char key[64];
        snprintf(key, sizeof key, "simulate.stragglers.%zu", k);
        if (hs__where_node(c, key, sn) != 0)
            return hs_yaml_fail(c, sn, HS_ERR_NOMEM,
                                "out of memory");
    }
    s->n_stragglers = k + 1;
    return HS_OK;
}

/* simulate.stragglers (n): a list of stragglers into s->stragglers. */
static hs_err_t hs__parse_stragglers(hs_yaml_ctx_t *c, yaml_node_t *n,
                                     hs__names_t *nm)
{
    hs_scenario_t *s = HS__S(c);
    yaml_node_item_t *it;
    size_t cnt, k = 0;
    hs_err_t rc;

    if (n->type != YAML_SEQUENCE_NODE)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "simulate.stragglers must be a list");
    cnt = (size_t)(n->data.sequence.items.top -
                   n->data.sequence.items.start);
    s->stragglers = calloc(cnt ? cnt : 1, sizeof *s->stragglers);
    s->straggler_names = calloc(cnt + 1, sizeof *s->straggler_names);
    if (s->stragglers == NULL || s->straggler_names == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    if (hs__names_ready(nm, s) != 0)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    for (it = n->data.sequence.items.start;
         it < n->data.sequence.items.top; it++, k++)
        if ((rc = hs__parse_straggler(c, hs_yaml_node(c, *it), k, nm)) !=
            HS_OK)
            return rc;
    return HS_OK;
}

/* Reads the simulate section (n) into s: steps, seed, the overlap, send
   and hop-wait modes, streams, stochastic, stragglers. */
static hs_err_t hs__parse_simulate(hs_yaml_ctx_t *c, yaml_node_t *n,
                                   hs__names_t *nm)
{
    enum { K_STEPS, K_SEED, K_OVERLAP, K_SEND, K_STOCH, K_STRAG,
           K_STREAMS, K_HOPW };
    static const char *const keys[] = {"steps", "seed", "overlap", "send",
                                       "stochastic", "stragglers", "streams",
                                       "hop_wait", NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[8];
    char hint[HS_SUGGEST_HINT_LEN];
    hs_err_t rc;

    if ((rc = hs_yaml_map(c, n, "simulate", keys, v)) != HS_OK)
        return rc;
    if (v[K_STEPS] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_STEPS], "simulate.steps", 2,
                              HS_LIMIT_STEPS, &s->sim_steps)) != HS_OK)
        return rc;
    if (hs__where_node(c, "simulate.steps", v[K_STEPS]) != 0)
        return hs_yaml_fail(c, v[K_STEPS], HS_ERR_NOMEM, "out of memory");
    if (v[K_SEED] != NULL &&
        (rc = hs_yaml_get_u64(c, v[K_SEED], "simulate.seed", 0, UINT64_MAX,
                              &s->seed)) != HS_OK)
        return rc;
    if (v[K_OVERLAP] != NULL &&
        hs_overlap_parse(hs_yaml_scalar(v[K_OVERLAP]), &s->overlap) != 0) {
        static const char *const ok[] = {"patent", "buckets", "none",
                                         "last_bucket", NULL};
        return hs_yaml_fail(c, v[K_OVERLAP], HS_ERR_SCHEMA,
                            "simulate.overlap must be patent, buckets, "
                            "none or last_bucket%s",
                            hs__word_hint(v[K_OVERLAP], ok, hint,
                                          sizeof hint));
    }
    if (v[K_SEND] != NULL &&
        hs_send_parse(hs_yaml_scalar(v[K_SEND]), &s->send) != 0) {
        static const char *const ok[] = {"rendezvous", "eager", NULL};
        return hs_yaml_fail(c, v[K_SEND], HS_ERR_SCHEMA,
                            "simulate.send must be rendezvous or eager%s",
                            hs__word_hint(v[K_SEND], ok, hint, sizeof hint));
    }
    if (v[K_HOPW] != NULL &&
        hs_hop_wait_parse(hs_yaml_scalar(v[K_HOPW]), &s->hop_wait) != 0) {
        static const char *const ok[] = {"ring", "probe", NULL};
        return hs_yaml_fail(c, v[K_HOPW], HS_ERR_SCHEMA,
                            "simulate.hop_wait must be ring or probe%s",
                            hs__word_hint(v[K_HOPW], ok, hint, sizeof hint));
    }
    if (v[K_STREAMS] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_STREAMS], "simulate.streams", 1,
                              HS_MAX_STREAMS, &s->streams)) != HS_OK)
        return rc;
    if (v[K_STOCH] != NULL &&
        (rc = hs_yaml_get_bool(c, v[K_STOCH], "simulate.stochastic",
                               &s->stochastic)) != HS_OK)
        return rc;
    if (v[K_STRAG] != NULL)
        return hs__parse_stragglers(c, v[K_STRAG], nm);
    return HS_OK;
}

/* profiling.spare_devices: [{name, type, addr}, ...]: devices outside the
   ring a one-device type's sub-system may borrow as its second. */
static hs_err_t hs__parse_spares(hs_yaml_ctx_t *c, yaml_node_t *n)
{
    static const char *const keys[] = {"name", "type", "addr", NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_item_t *it;
    size_t cnt, k = 0, j;
    hs_err_t rc;

    if (n->type != YAML_SEQUENCE_NODE)
        return hs_yaml_fail(c, n, HS_ERR_SCHEMA,
                            "profiling.spare_devices must be a list of "
                            "{name, type, addr}");
    cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    s->spares = calloc(3 * cnt + 1, sizeof *s->spares);
    if (s->spares == NULL)
        return hs_error_setf(c->err, HS_ERR_NOMEM, "out of memory");
    for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++, k++) {
        yaml_node_t *e = hs_yaml_node(c, *it), *v[3];

        if ((rc = hs_yaml_map(c, e, "a spare device", keys, v)) != HS_OK)
            return rc;
        s->n_spares = k + 1;
        for (j = 0; j < 3; j++) {
            if (v[j] == NULL)
                return hs_yaml_fail(c, e, HS_ERR_SCHEMA,
                                    "a spare device needs name, type and "
                                    "addr");
            if ((rc = hs_yaml_get_str(c, v[j], "a spare device's field",
                                      &s->spares[3 * k + j])) != HS_OK)
                return rc;
        }
        if (hs_scenario_find_type(s, s->spares[3 * k + 1]) < 0)
            return hs_yaml_fail(c, v[1], HS_ERR_SCHEMA,
                                "spare device '%s': no device type '%s'",
                                hs_ex(s->spares[3 * k]),
                                hs_ex(s->spares[3 * k + 1]));
    }
    return HS_OK;
}

static hs_err_t hs__parse_profiling(hs_yaml_ctx_t *c, yaml_node_t *n)
{
    enum { K_HARNESS, K_PYTHON, K_ITERS, K_WARM, K_TIMEOUT, K_PORT,
           K_LAUNCHER, K_SPARES, K_TFACTOR };
    static const char *const keys[] = {"harness", "python", "iterations",
                                       "warmup", "timeout", "master_port",
                                       "launcher", "spare_devices",
                                       "timeout_factor", NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[9];
    hs_err_t rc;

    if ((rc = hs_yaml_map(c, n, "profiling", keys, v)) != HS_OK)
        return rc;
    if (v[K_HARNESS] != NULL &&
        (rc = hs_yaml_get_path(c, v[K_HARNESS], "profiling.harness",
                               &s->harness)) != HS_OK)
        return rc;
    if (v[K_PYTHON] != NULL &&
        (rc = hs_yaml_get_str(c, v[K_PYTHON], "profiling.python",
                              &s->python)) != HS_OK)
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
    if (v[K_TFACTOR] != NULL) {
        if ((rc = hs_yaml_get_double(c, v[K_TFACTOR],
                                     "profiling.timeout_factor", 1.0,
                                     &s->prof_timeout_factor)) != HS_OK)
            return rc;
        if (s->prof_timeout_factor > 100.0)
            return hs_yaml_fail(c, v[K_TFACTOR], HS_ERR_RANGE,
                                "profiling.timeout_factor must be from 1 "
                                "to 100");
    }
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
            if ((rc = hs_yaml_get_str(c, hs_yaml_node(c, *it),
                                      "a launcher word", &s->launcher[k])) !=
                HS_OK)
                return rc;
            s->n_launcher = k + 1;
        }
    }
    if (v[K_SPARES] != NULL)
        return hs__parse_spares(c, v[K_SPARES]);
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
            hs_yaml_warn(
                c,
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
           K_PROF, K_NODES, K_COLL, K_TREEC };
    static const char *const keys[] = {"name", "job", "device_types",
                                       "devices", "ring", "network",
                                       "simulate", "profiling", "nodes",
                                       "collective", "tree_chunks", NULL};
    hs_scenario_t *s = HS__S(c);
    yaml_node_t *v[11];
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
    /* nodes and the collective (model/hs_nodes.h) */
    if (v[K_COLL] != NULL) {
        if ((rc = hs_yaml_get_str(c, v[K_COLL], "collective",
                                  &s->collective)) != HS_OK)
            return rc;
        s->coll_line = (unsigned long)v[K_COLL]->start_mark.line + 1;
        s->coll_col = (unsigned long)v[K_COLL]->start_mark.column + 1;
    }
    if (v[K_TREEC] != NULL &&
        (rc = hs_yaml_get_u32(c, v[K_TREEC], "tree_chunks", 1, 64,
                              &s->tree_chunks)) != HS_OK)
        return rc;
    if (v[K_NODES] != NULL && v[K_DEVICES] != NULL)
        return hs_yaml_fail(c, v[K_DEVICES], HS_ERR_SCHEMA,
                            "give nodes: or devices:, not both");
    if (v[K_NODES] != NULL)
        rc = hs_nodes_parse(c, v[K_NODES], s);
    if (rc == HS_OK && v[K_NODES] != NULL)
        rc = hs_nodes_gen_devices(s, c->err);
    else if (rc == HS_OK)
        rc = hs__parse_devices(c, v[K_DEVICES]);
    if (rc != HS_OK)
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
    if ((rc = hs_nodes_check_collective(s, s->coll_line, s->coll_col,
                                        c->err)) != HS_OK)
        goto done;
    rc = hs__check(c);
done:
    free(nm.by_name.slot);
    free(nm.by_addr.slot);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Public entry points                                                   */

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
    s->hop_wait = HS_HOP_WAIT_RING;
    s->prof_iters = 100;
    s->prof_warmup = 20;
    s->prof_timeout_ns = 600LL * 1000000000LL;
    s->prof_timeout_factor = 3.0;
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
    /* valid values that combine into a time that does not fit */
    if ((rc = hs_scenario_check_ranges(s, s->sim_steps, err)) != HS_OK)
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
