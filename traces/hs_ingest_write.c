/*
 * hs_ingest_write.c -- the profile YAML writer of the ingestion
 * (hs_profile_write_yaml in hs_ingest.h): an hs_profile_t as the file
 * hs_profile_load reads, through libyaml's emitter and an atomic rename.
 * Stop-gap: model/hs_profile.c's hs_profile_write is to replace it.
 */
#include "hs_ingest.h"
#include "hs_atomic.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <yaml.h>

static int hs__emit(yaml_emitter_t *em, yaml_event_t *ev)
{
    return yaml_emitter_emit(em, ev);
}

static int hs__scalar(yaml_emitter_t *em, const char *s,
                      yaml_scalar_style_t style)
{
    yaml_event_t ev;

    if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
                                      (yaml_char_t *)(uintptr_t)s,
                                      (int)strlen(s), 1, 1, style))
        return 0;
    return hs__emit(em, &ev);
}

static int hs__map_start(yaml_emitter_t *em, int flow)
{
    yaml_event_t ev;

    if (!yaml_mapping_start_event_initialize(
            &ev, NULL, NULL, 1,
            flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE))
        return 0;
    return hs__emit(em, &ev);
}

static int hs__seq_start(yaml_emitter_t *em, int flow)
{
    yaml_event_t ev;

    if (!yaml_sequence_start_event_initialize(
            &ev, NULL, NULL, 1,
            flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE))
        return 0;
    return hs__emit(em, &ev);
}

static int hs__map_end(yaml_emitter_t *em)
{
    yaml_event_t ev;

    yaml_mapping_end_event_initialize(&ev);
    return hs__emit(em, &ev);
}

static int hs__seq_end(yaml_emitter_t *em)
{
    yaml_event_t ev;

    yaml_sequence_end_event_initialize(&ev);
    return hs__emit(em, &ev);
}

static int hs__kv(yaml_emitter_t *em, const char *k, const char *v)
{
    return hs__scalar(em, k, YAML_PLAIN_SCALAR_STYLE) &&
           hs__scalar(em, v, YAML_PLAIN_SCALAR_STYLE);
}

static int hs__time(yaml_emitter_t *em, int64_t ns)
{
    char b[32];

    snprintf(b, sizeof b, "%" PRId64 "ns", ns);
    return hs__scalar(em, b, YAML_PLAIN_SCALAR_STYLE);
}

static int hs__dist_emit(yaml_emitter_t *em, const char *key,
                         const hs_dist_t *d)
{
    size_t i;

    if (!hs__scalar(em, key, YAML_PLAIN_SCALAR_STYLE))
        return 0;
    if (!d->known)
        return hs__scalar(em, "unknown", YAML_PLAIN_SCALAR_STYLE);
    if (!hs__map_start(em, 1) || !hs__scalar(em, "mean",
                                             YAML_PLAIN_SCALAR_STYLE) ||
        !hs__time(em, d->mean_ns) ||
        !hs__scalar(em, "sd", YAML_PLAIN_SCALAR_STYLE) ||
        !hs__time(em, d->sd_ns))
        return 0;
    if (d->n_samples > 0) {
        if (!hs__scalar(em, "samples", YAML_PLAIN_SCALAR_STYLE) ||
            !hs__seq_start(em, 1))
            return 0;
        for (i = 0; i < d->n_samples; i++)
            if (!hs__time(em, d->samples_ns[i]))
                return 0;
        if (!hs__seq_end(em))
            return 0;
    }
    return hs__map_end(em);
}

static int hs__write_handler(void *data, unsigned char *buf, size_t size)
{
    return fwrite(buf, 1, size, data) == size;
}

static int hs__emit_profile(yaml_emitter_t *em, const hs_profile_t *p,
                            const char *type)
{
    yaml_event_t ev;
    char b[64];
    size_t i;

    if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
        !hs__emit(em, &ev))
        return 0;
    if (!yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) ||
        !hs__emit(em, &ev))
        return 0;
    if (!hs__map_start(em, 0))
        return 0;
    if (type != NULL &&
        (!hs__scalar(em, "type", YAML_PLAIN_SCALAR_STYLE) ||
         !hs__scalar(em, type, YAML_ANY_SCALAR_STYLE)))
        return 0;
    if (p->source != NULL &&
        (!hs__scalar(em, "source", YAML_PLAIN_SCALAR_STYLE) ||
         !hs__scalar(em, p->source, YAML_DOUBLE_QUOTED_SCALAR_STYLE)))
        return 0;
    snprintf(b, sizeof b, "%u", p->subsys_n);
    if (!hs__kv(em, "subsystem_size", b))
        return 0;
    if (p->steps_kept > 0) {
        snprintf(b, sizeof b, "%u", p->steps_kept);
        if (!hs__kv(em, "steps_kept", b))
            return 0;
    }
    if (!hs__dist_emit(em, "t_dl", &p->t_dl) ||
        !hs__dist_emit(em, "t_fwd", &p->t_fwd) ||
        !hs__dist_emit(em, "t_b1", &p->t_b1) ||
        !hs__dist_emit(em, "t_bwd", &p->t_bwd) ||
        !hs__dist_emit(em, "t_opt", &p->t_opt))
        return 0;
    if (p->n_fwd_ops > 0) {
        if (!hs__scalar(em, "fwd_ops", YAML_PLAIN_SCALAR_STYLE) ||
            !hs__seq_start(em, 0))
            return 0;
        for (i = 0; i < p->n_fwd_ops; i++) {
            if (!hs__map_start(em, 1))
                return 0;
            if (p->fwd_op_names != NULL && p->fwd_op_names[i] != NULL &&
                (!hs__scalar(em, "name", YAML_PLAIN_SCALAR_STYLE) ||
                 !hs__scalar(em, p->fwd_op_names[i],
                             YAML_DOUBLE_QUOTED_SCALAR_STYLE)))
                return 0;
            if (!hs__scalar(em, "time", YAML_PLAIN_SCALAR_STYLE) ||
                !hs__time(em, p->fwd_ops_ns[i]) || !hs__map_end(em))
                return 0;
        }
        if (!hs__seq_end(em))
            return 0;
    }
    snprintf(b, sizeof b, "%" PRIu64 "B", p->ar_bytes);
    if (!hs__kv(em, "allreduce_bytes", b) ||
        !hs__kv(em, "allreduce_source", hs_ar_source_name(p->ar_source)))
        return 0;
    if (p->comm_ns_per_byte > 0) {
        snprintf(b, sizeof b, "%.4g", p->comm_ns_per_byte);
        if (!hs__kv(em, "comm_ns_per_byte", b))
            return 0;
    }
    if (p->n_buckets > 0) {
        if (!hs__scalar(em, "buckets", YAML_PLAIN_SCALAR_STYLE) ||
            !hs__seq_start(em, 0))
            return 0;
        for (i = 0; i < p->n_buckets; i++) {
            snprintf(b, sizeof b, "%" PRIu64 "B", p->buckets[i].bytes);
            if (!hs__map_start(em, 1) || !hs__kv(em, "bytes", b) ||
                !hs__scalar(em, "ready", YAML_PLAIN_SCALAR_STYLE) ||
                !hs__time(em, p->buckets[i].ready_ns) || !hs__map_end(em))
                return 0;
        }
        if (!hs__seq_end(em))
            return 0;
    }
    if (!hs__map_end(em))
        return 0;
    if (!yaml_document_end_event_initialize(&ev, 1) || !hs__emit(em, &ev))
        return 0;
    if (!yaml_stream_end_event_initialize(&ev) || !hs__emit(em, &ev))
        return 0;
    return yaml_emitter_flush(em);
}

hs_err_t hs_profile_write_yaml(const hs_profile_t *p, const char *type,
                               const char *path, hs_error_t *err)
{
    hs_atomic_t af;
    yaml_emitter_t em;
    int ok;
    hs_err_t rc;

    if ((rc = hs_atomic_open(&af, path, err)) != HS_OK)
        return rc;
    fputs("# hetsim profile\n", af.f);
    if (!yaml_emitter_initialize(&em)) {
        hs_atomic_abort(&af);
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    }
    yaml_emitter_set_output(&em, hs__write_handler, af.f);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, 100);
    ok = hs__emit_profile(&em, p, type);
    yaml_emitter_delete(&em);
    if (!ok) {
        hs_atomic_abort(&af);
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "cannot write: emitter error");
    }
    return hs_atomic_commit(&af, err);
}
