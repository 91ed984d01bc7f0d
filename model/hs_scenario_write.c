/*
 * hs_scenario_write.c -- a loaded scenario back to YAML (hs_scenario.h).
 *
 * The output is resolved, not a copy of the input: devices, ring order and
 * one links row per ring edge are explicit, so the file loads back to the
 * same cluster whatever mix of defaults, type rows and CSV files built it.
 * Numbers are written exactly (integers in ns and B, bandwidth in B/s with
 * 17 significant digits).  libyaml's emitter does the quoting.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "hs_atomic.h"
#include "hs_scenario.h"

typedef struct hs__w_s {
    yaml_emitter_t em;
    int failed;
} hs__w_t;

static void hs__emit(hs__w_t *w, yaml_event_t *ev)
{
    if (w->failed)
        return;
    if (!yaml_emitter_emit(&w->em, ev))
        w->failed = 1;
}

static void hs__str(hs__w_t *w, const char *v)
{
    yaml_event_t ev;

    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)v,
                                 (int)strlen(v), 1, 1,
                                 YAML_ANY_SCALAR_STYLE);
    hs__emit(w, &ev);
}

static void hs__fmt(hs__w_t *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void hs__fmt(hs__w_t *w, const char *fmt, ...)
{
    char buf[128];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    hs__str(w, buf);
}

static void hs__map_open(hs__w_t *w, int flow)
{
    yaml_event_t ev;

    yaml_mapping_start_event_initialize(
        &ev, NULL, NULL, 1,
        flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
    hs__emit(w, &ev);
}

static void hs__map_close(hs__w_t *w)
{
    yaml_event_t ev;

    yaml_mapping_end_event_initialize(&ev);
    hs__emit(w, &ev);
}

static void hs__seq_open(hs__w_t *w, int flow)
{
    yaml_event_t ev;

    yaml_sequence_start_event_initialize(
        &ev, NULL, NULL, 1,
        flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
    hs__emit(w, &ev);
}

static void hs__seq_close(hs__w_t *w)
{
    yaml_event_t ev;

    yaml_sequence_end_event_initialize(&ev);
    hs__emit(w, &ev);
}

static void hs__kv(hs__w_t *w, const char *k, const char *v)
{
    hs__str(w, k);
    hs__str(w, v);
}

static void hs__kv_ns(hs__w_t *w, const char *k, int64_t ns)
{
    hs__str(w, k);
    hs__fmt(w, "%" PRId64 "ns", ns);
}

static void hs__dist(hs__w_t *w, const char *k, const hs_dist_t *d)
{
    size_t i;

    hs__str(w, k);
    if (!d->known) {
        hs__str(w, "unknown");
        return;
    }
    hs__map_open(w, 1);
    hs__kv_ns(w, "mean", d->mean_ns);
    hs__kv_ns(w, "sd", d->sd_ns);
    if (d->n_samples > 0) {
        hs__str(w, "samples");
        hs__seq_open(w, 1);
        for (i = 0; i < d->n_samples; i++)
            hs__fmt(w, "%" PRId64 "ns", d->samples_ns[i]);
        hs__seq_close(w);
    }
    hs__map_close(w);
}

static const char *hs__ar_source_name(hs_ar_source_t s)
{
    switch (s) {
    case HS_AR_PARAM_COMMS: return "param_comms";
    case HS_AR_SHAPES: return "shapes";
    case HS_AR_SIDECAR: return "sidecar";
    case HS_AR_GIVEN: break;
    }
    return "given";
}

static void hs__profile(hs__w_t *w, const hs_profile_t *p)
{
    size_t i;

    hs__map_open(w, 0);
    if (p->source != NULL)
        hs__kv(w, "source", p->source);
    hs__str(w, "subsystem_size");
    hs__fmt(w, "%u", p->subsys_n);
    if (p->steps_kept > 0) {
        hs__str(w, "steps_kept");
        hs__fmt(w, "%u", p->steps_kept);
    }
    hs__dist(w, "t_dl", &p->t_dl);
    hs__dist(w, "t_fwd", &p->t_fwd);
    hs__dist(w, "t_b1", &p->t_b1);
    hs__dist(w, "t_bwd", &p->t_bwd);
    hs__dist(w, "t_opt", &p->t_opt);
    hs__str(w, "allreduce_bytes");
    hs__fmt(w, "%" PRIu64 "B", p->ar_bytes);
    hs__kv(w, "allreduce_source", hs__ar_source_name(p->ar_source));
    if (p->n_buckets > 0) {
        hs__str(w, "buckets");
        hs__seq_open(w, 0);
        for (i = 0; i < p->n_buckets; i++) {
            hs__map_open(w, 1);
            hs__str(w, "bytes");
            hs__fmt(w, "%" PRIu64 "B", p->buckets[i].bytes);
            hs__kv_ns(w, "ready", p->buckets[i].ready_ns);
            hs__map_close(w);
        }
        hs__seq_close(w);
    }
    hs__map_close(w);
}

static const char *hs__overlap_name(hs_overlap_t o)
{
    return o == HS_OVERLAP_BUCKETS ? "buckets"
           : o == HS_OVERLAP_NONE  ? "none"
                                   : "patent";
}

static void hs__body(hs__w_t *w, const hs_scenario_t *s,
                     const hs_scenario_write_opts_t *o)
{
    size_t i, k;

    hs__map_open(w, 0);
    if (s->name != NULL)
        hs__kv(w, "name", s->name);
    /* job */
    hs__str(w, "job");
    hs__map_open(w, 0);
    if (s->model_file != NULL) {
        hs__str(w, "model");
        hs__map_open(w, 1);
        hs__kv(w, "file", s->model_file);
        hs__kv(w, "entry", s->model_entry ? s->model_entry : "build_model");
        hs__map_close(w);
    } else if (s->model_label != NULL) {
        hs__kv(w, "model", s->model_label);
    }
    if (s->dataset_total != 0 || s->sample_bytes != 0 ||
        s->dataset_file != NULL) {
        hs__str(w, "dataset");
        hs__map_open(w, 1);
        if (s->dataset_total != 0) {
            hs__str(w, s->dataset_is_bytes ? "size" : "samples");
            hs__fmt(w, s->dataset_is_bytes ? "%" PRIu64 "B" : "%" PRIu64,
                    s->dataset_total);
        }
        if (s->sample_bytes != 0) {
            hs__str(w, "sample_bytes");
            hs__fmt(w, "%" PRIu64 "B", s->sample_bytes);
        }
        if (s->dataset_file != NULL)
            hs__kv(w, "file", s->dataset_file);
        if (s->dataset_entry != NULL)
            hs__kv(w, "entry", s->dataset_entry);
        hs__map_close(w);
    }
    hs__str(w, "epochs");
    hs__fmt(w, "%u", s->epochs);
    hs__map_close(w);
    /* types */
    hs__str(w, "device_types");
    hs__seq_open(w, 0);
    for (k = 0; k < s->n_types; k++) {
        const hs_type_t *t = &s->types[k];
        const char *pp = o->profile_paths ? o->profile_paths[k] : NULL;
        hs__map_open(w, 0);
        hs__kv(w, "name", t->name);
        hs__str(w, "batch");
        hs__fmt(w, "%" PRIu64, t->batch);
        if (t->shard != 0) {
            hs__str(w, "shard");
            hs__fmt(w, t->shard_is_bytes ? "%" PRIu64 "B" : "%" PRIu64,
                    t->shard);
        }
        if (t->backend != NULL)
            hs__kv(w, "backend", t->backend);
        if (t->n_env > 0) {
            hs__str(w, "env");
            hs__map_open(w, 0);
            for (i = 0; i < t->n_env; i++) {
                const char *eq = strchr(t->env[i], '=');
                char key[256];
                size_t n = eq ? (size_t)(eq - t->env[i]) : 0;
                if (n >= sizeof key)
                    n = sizeof key - 1;
                memcpy(key, t->env[i], n);
                key[n] = '\0';
                hs__kv(w, key, eq ? eq + 1 : "");
            }
            hs__map_close(w);
        }
        hs__str(w, "profile");
        if (pp == NULL)
            pp = t->profile.path;
        if (pp != NULL)
            hs__str(w, pp);
        else
            hs__profile(w, &t->profile);
        hs__map_close(w);
    }
    hs__seq_close(w);
    /* devices and ring */
    hs__str(w, "devices");
    hs__seq_open(w, 0);
    for (i = 0; i < s->n_devices; i++) {
        const hs_device_t *d = &s->devices[i];
        hs__map_open(w, 1);
        hs__kv(w, "name", d->name);
        hs__kv(w, "type", s->types[d->type].name);
        hs__kv(w, "addr", d->addr);
        if (d->compute_scale != 1.0) {
            hs__str(w, "compute_scale");
            hs__fmt(w, "%.17g", d->compute_scale);
        }
        if (d->extra_compute_ns != 0)
            hs__kv_ns(w, "extra_compute", d->extra_compute_ns);
        hs__map_close(w);
    }
    hs__seq_close(w);
    hs__str(w, "ring");
    hs__seq_open(w, 1);
    for (k = 0; k < s->n_devices; k++)
        hs__str(w, s->devices[s->ring[k]].name);
    hs__seq_close(w);
    /* network */
    hs__str(w, "network");
    hs__map_open(w, 0);
    if (s->default_bw_bytes_per_s > 0) {
        hs__str(w, "default_bandwidth");
        hs__fmt(w, "%.17gB/s", s->default_bw_bytes_per_s);
    }
    hs__kv_ns(w, "latency", s->latency_ns);
    if (o->links_csv != NULL) {
        hs__kv(w, "links_csv", o->links_csv);
    } else {
        hs__str(w, "links");
        hs__seq_open(w, 0);
        for (k = 0; k < s->n_devices; k++) {
            const hs_device_t *a = &s->devices[s->ring[k]];
            const hs_device_t *b =
                &s->devices[s->ring[k + 1 == s->n_devices ? 0 : k + 1]];
            hs__seq_open(w, 1);
            hs__str(w, a->name);
            hs__str(w, b->name);
            hs__fmt(w, "%.17gB/s", s->ring_bw_bytes_per_s[k]);
            hs__fmt(w, "%" PRId64 "ns", s->ring_lat_ns[k]);
            hs__seq_close(w);
        }
        hs__seq_close(w);
    }
    hs__map_close(w);
    /* simulate */
    hs__str(w, "simulate");
    hs__map_open(w, 0);
    hs__str(w, "steps");
    hs__fmt(w, "%u", s->sim_steps);
    hs__str(w, "seed");
    hs__fmt(w, "%" PRIu64, s->seed);
    hs__kv(w, "overlap", hs__overlap_name(s->overlap));
    hs__kv(w, "send", s->send == HS_SEND_EAGER ? "eager" : "rendezvous");
    hs__kv(w, "stochastic", s->stochastic ? "true" : "false");
    if (s->n_stragglers > 0) {
        hs__str(w, "stragglers");
        hs__seq_open(w, 0);
        for (i = 0; i < s->n_stragglers; i++) {
            const hs_straggler_t *g = &s->stragglers[i];
            hs__map_open(w, 1);
            hs__kv(w, "device", s->devices[g->device].name);
            hs__str(w, "steps");
            hs__seq_open(w, 1);
            hs__fmt(w, "%u", g->first_step);
            hs__fmt(w, "%u", g->last_step);
            hs__seq_close(w);
            hs__str(w, "factor");
            hs__fmt(w, "%.17g", g->factor);
            hs__kv_ns(w, "extra", g->extra_ns);
            hs__map_close(w);
        }
        hs__seq_close(w);
    }
    hs__map_close(w);
    /* profiling */
    hs__str(w, "profiling");
    hs__map_open(w, 0);
    if (s->harness != NULL)
        hs__kv(w, "harness", s->harness);
    if (s->python != NULL)
        hs__kv(w, "python", s->python);
    hs__str(w, "iterations");
    hs__fmt(w, "%u", s->prof_iters);
    hs__str(w, "warmup");
    hs__fmt(w, "%u", s->prof_warmup);
    hs__kv_ns(w, "timeout", s->prof_timeout_ns);
    hs__str(w, "master_port");
    hs__fmt(w, "%u", s->master_port);
    if (s->n_launcher > 0) {
        hs__str(w, "launcher");
        hs__seq_open(w, 1);
        for (i = 0; i < s->n_launcher; i++)
            hs__str(w, s->launcher[i]);
        hs__seq_close(w);
    }
    hs__map_close(w);
    hs__map_close(w);
}

hs_err_t hs_scenario_write_yaml(const hs_scenario_t *s,
                                const hs_scenario_write_opts_t *opts,
                                const char *path, hs_error_t *err)
{
    static const hs_scenario_write_opts_t none = {NULL, NULL, NULL};
    const hs_scenario_write_opts_t *o = opts ? opts : &none;
    hs_atomic_t af;
    hs__w_t w;
    yaml_event_t ev;
    hs_err_t rc;

    if ((rc = hs_atomic_open(&af, path, err)) != HS_OK)
        return rc;
    fprintf(af.f, "# hetsim scenario%s%s\n", o->comment ? ": " : "",
            o->comment ? o->comment : "");
    memset(&w, 0, sizeof w);
    if (!yaml_emitter_initialize(&w.em)) {
        hs_atomic_abort(&af);
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    }
    yaml_emitter_set_output_file(&w.em, af.f);
    yaml_emitter_set_width(&w.em, 100);
    yaml_emitter_set_unicode(&w.em, 1);
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    hs__emit(&w, &ev);
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    hs__emit(&w, &ev);
    hs__body(&w, s, o);
    yaml_document_end_event_initialize(&ev, 1);
    hs__emit(&w, &ev);
    yaml_stream_end_event_initialize(&ev);
    hs__emit(&w, &ev);
    if (!w.failed && !yaml_emitter_flush(&w.em))
        w.failed = 1;
    yaml_emitter_delete(&w.em);
    if (w.failed) {
        hs_atomic_abort(&af);
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "cannot write the scenario");
    }
    return hs_atomic_commit(&af, err);
}
