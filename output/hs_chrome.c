/*
 * hs_chrome.c -- the replay as a Chrome trace (chrome://tracing, Perfetto,
 * https://ui.perfetto.dev), streamed through yajl's generator.
 *
 * One process per device (pid = device index, named "name (type)", sorted by
 * ring position), and per device the threads
 *   tid 1 "data loading (CPU)"  data_load
 *   tid 2 "compute"             forward, backward_first, backward_rest,
 *                               optimizer, data_wait
 *   tid 3 "ring send"           ring_send
 *   tid 4 "ring receive/wait"   ring_wait
 *   tid 5 "ring reduce"         ring_reduce (only with comm_ns_per_byte)
 *   tid 6 "ring hop wait"       hop_wait (only with t_hop_wait)
 * and, in the buckets overlap mode, where the rings of several buckets may
 * overlap, tid 10 + 2b / 11 + 2b "bucket b send" / "bucket b receive/wait"
 * and tid 5000 + b "bucket b hop wait".
 * A thread never holds partially overlapping slices (Perfetto cannot draw
 * those).  Every interval is one complete event ph:"X" whose ts and dur are
 * microseconds printed exactly from the integer nanoseconds ("12.345").
 *
 * The JSON goes through stdio to `path.tmp.XXXXXX` and is renamed on
 * commit, removed on failure, as the HDF5 trace.
 */
#include "hs_chrome.h"
#include "hs_atomic.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_gen.h>

#ifndef HS_VERSION
#define HS_VERSION "unknown"
#endif

struct hs_chrome_writer_s {
    hs_atomic_t af;     /* af.f: the temporary file written */
    yajl_gen g;
    int failed;
};

static void hs__chr_print(void *ctx, const char *s, size_t len)
{
    hs_chrome_writer_t *w = ctx;

    if (fwrite(s, 1, len, w->af.f) != len)
        w->failed = 1;
}

#define HS__S(g, lit) \
    yajl_gen_string((g), (const unsigned char *)(lit), strlen(lit))

static void hs__chr_str(yajl_gen g, const char *s)
{
    yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

/* Microseconds with exactly three decimals from integer nanoseconds. */
static void hs__chr_us(yajl_gen g, int64_t ns)
{
    char buf[48];
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    int len = snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03u",
                       ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));

    yajl_gen_number(g, buf, (size_t)len);
}

/* Metadata event {"ph":"M","name":what,"pid":pid[,"tid":tid],args}. */
static void hs__chr_meta(yajl_gen g, const char *what, long pid, long tid,
                         const char *name, long sort)
{
    yajl_gen_map_open(g);
    HS__S(g, "name");
    hs__chr_str(g, what);
    HS__S(g, "ph");
    HS__S(g, "M");
    HS__S(g, "pid");
    yajl_gen_integer(g, pid);
    if (tid >= 0) {
        HS__S(g, "tid");
        yajl_gen_integer(g, tid);
    }
    HS__S(g, "args");
    yajl_gen_map_open(g);
    if (name != NULL) {
        HS__S(g, "name");
        hs__chr_str(g, name);
    } else {
        HS__S(g, "sort_index");
        yajl_gen_integer(g, sort);
    }
    yajl_gen_map_close(g);
    yajl_gen_map_close(g);
}

/* The thread of an interval (see the file comment). */
static long hs__chr_tid(const hs_interval_t *iv)
{
    switch (iv->phase) {
    case HS_PH_DATA_LOAD:
        return 1;
    case HS_PH_RING_SEND:
        return iv->bucket >= 0 ? 10 + 2L * iv->bucket : 3;
    case HS_PH_RING_WAIT:
        return iv->bucket >= 0 ? 11 + 2L * iv->bucket : 4;
    case HS_PH_RING_REDUCE:
        return 5;
    case HS_PH_HOP_WAIT:
        return iv->bucket >= 0 ? 5000 + (long)iv->bucket : 6;
    default:
        return 2;
    }
}

static const char *hs__chr_cat(uint8_t ph)
{
    switch (ph) {
    case HS_PH_DATA_LOAD:
    case HS_PH_DATA_WAIT:
        return "data";
    case HS_PH_RING_SEND:
    case HS_PH_RING_WAIT:
    case HS_PH_RING_REDUCE:
    case HS_PH_HOP_WAIT:
        return "ring";
    default:
        return "compute";
    }
}

static void hs__chr_event(yajl_gen g, const hs_interval_t *iv)
{
    const char *name = hs_phase_name((hs_phase_t)iv->phase);

    yajl_gen_map_open(g);
    HS__S(g, "name");
    hs__chr_str(g, name);
    HS__S(g, "cat");
    hs__chr_str(g, hs__chr_cat(iv->phase));
    HS__S(g, "ph");
    HS__S(g, "X");
    HS__S(g, "pid");
    yajl_gen_integer(g, iv->device);
    HS__S(g, "tid");
    yajl_gen_integer(g, hs__chr_tid(iv));
    HS__S(g, "ts");
    hs__chr_us(g, iv->start_ns);
    HS__S(g, "dur");
    hs__chr_us(g, iv->end_ns - iv->start_ns);
    HS__S(g, "args");
    yajl_gen_map_open(g);
    HS__S(g, "step");
    yajl_gen_integer(g, iv->step);
    if (iv->round >= 0) {
        HS__S(g, "round");
        yajl_gen_integer(g, iv->round);
    }
    if (iv->bucket >= 0) {
        HS__S(g, "bucket");
        yajl_gen_integer(g, iv->bucket);
    }
    if (iv->peer >= 0) {
        HS__S(g, "peer");
        yajl_gen_integer(g, iv->peer);
    }
    if (iv->bytes > 0) {
        HS__S(g, "bytes");
        yajl_gen_integer(g, (long long)iv->bytes);
    }
    yajl_gen_map_close(g);
    yajl_gen_map_close(g);
}

static hs_err_t hs__chr_sink_write(void *ctx, const hs_interval_t *iv,
                                   size_t n, hs_error_t *err)
{
    hs_chrome_writer_t *w = ctx;
    size_t i;

    for (i = 0; i < n && !w->failed; i++)
        hs__chr_event(w->g, &iv[i]);
    if (w->failed || ferror(w->af.f))
        return hs_error_set(err, HS_ERR_IO, w->af.tmp_path, 0, 0,
                            "cannot write the Chrome trace: %s",
                            strerror(errno));
    return HS_OK;
}

/* Frees w; removes the temporary file unless it was committed. */
static void hs__chr_free(hs_chrome_writer_t *w)
{
    if (w->g != NULL)
        yajl_gen_free(w->g);
    hs_atomic_abort(&w->af);
    free(w);
}

static void hs__chr_header(hs_chrome_writer_t *w, const hs_scenario_t *s,
                           const hs_replay_opts_t *o)
{
    yajl_gen g = w->g;
    char buf[512];
    size_t i;
    int comm = 0, hopw = 0;

    for (i = 0; i < s->n_types; i++) {
        if (s->types[i].profile.comm_ns_per_byte > 0)
            comm = 1;
        if (s->types[i].profile.t_hop_wait_ns > 0)
            hopw = 1;
    }

    yajl_gen_map_open(g);
    HS__S(g, "displayTimeUnit");
    HS__S(g, "ns");
    HS__S(g, "otherData");
    yajl_gen_map_open(g);
    HS__S(g, "format");
    hs__chr_str(g, "hetsim.chrome");
    HS__S(g, "format_version");
    yajl_gen_integer(g, 2);
    HS__S(g, "generator");
    hs__chr_str(g, "hetsim " HS_VERSION);
    HS__S(g, "scenario");
    hs__chr_str(g, s->name ? s->name : "");
    HS__S(g, "seed");
    yajl_gen_integer(g, (long long)o->seed);
    yajl_gen_map_close(g);
    HS__S(g, "traceEvents");
    yajl_gen_array_open(g);
    for (i = 0; i < s->n_devices; i++) {
        const hs_device_t *d = &s->devices[i];
        const char *tname = d->type < s->n_types && s->types[d->type].name
                                ? s->types[d->type].name : "?";
        size_t b, nb = 0;

        snprintf(buf, sizeof buf, "%s (%s)", d->name ? d->name : "?",
                 tname);
        hs__chr_meta(g, "process_name", (long)i, -1, buf, 0);
        hs__chr_meta(g, "process_sort_index", (long)i, -1, NULL,
                     (long)d->ring_pos);
        hs__chr_meta(g, "thread_name", (long)i, 1, "data loading (CPU)", 0);
        hs__chr_meta(g, "thread_name", (long)i, 2, "compute", 0);
        hs__chr_meta(g, "thread_name", (long)i, 3, "ring send", 0);
        hs__chr_meta(g, "thread_name", (long)i, 4, "ring receive/wait", 0);
        if (comm)
            hs__chr_meta(g, "thread_name", (long)i, 5, "ring reduce", 0);
        if (hopw)
            hs__chr_meta(g, "thread_name", (long)i, 6, "ring hop wait", 0);
        if (o->overlap == HS_OVERLAP_BUCKETS && d->type < s->n_types)
            nb = s->types[d->type].profile.n_buckets;
        for (b = 0; b < nb; b++) {
            snprintf(buf, sizeof buf, "bucket %zu send", b);
            hs__chr_meta(g, "thread_name", (long)i, 10 + 2 * (long)b, buf,
                         0);
            snprintf(buf, sizeof buf, "bucket %zu receive/wait", b);
            hs__chr_meta(g, "thread_name", (long)i, 11 + 2 * (long)b, buf,
                         0);
            if (hopw) {
                snprintf(buf, sizeof buf, "bucket %zu hop wait", b);
                hs__chr_meta(g, "thread_name", (long)i, 5000 + (long)b, buf,
                             0);
            }
        }
    }
}

hs_err_t hs_chrome_writer_open(const char *path, const hs_scenario_t *s,
                               hs_chrome_writer_t **out,
                               hs_trace_sink_t *sink, hs_error_t *err)
{
    return hs_chrome_writer_open_opts(path, s, NULL, out, sink, err);
}

hs_err_t hs_chrome_writer_open_opts(const char *path, const hs_scenario_t *s,
                                    const hs_replay_opts_t *o,
                                    hs_chrome_writer_t **out,
                                    hs_trace_sink_t *sink, hs_error_t *err)
{
    hs_chrome_writer_t *w;
    hs_replay_opts_t o_s;

    *out = NULL;
    if (o == NULL) {
        hs_replay_opts_from_scenario(s, &o_s);
        o = &o_s;
    }
    w = calloc(1, sizeof *w);
    if (w == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    if (hs_atomic_open(&w->af, path, err) != HS_OK) {
        free(w);
        return HS_ERR_IO;
    }
    w->g = yajl_gen_alloc(NULL);
    if (w->g == NULL)
        goto fail_nomem;
    yajl_gen_config(w->g, yajl_gen_print_callback, hs__chr_print, w);
    yajl_gen_config(w->g, yajl_gen_validate_utf8, 1);
    hs__chr_header(w, s, o);
    if (w->failed || ferror(w->af.f)) {
        hs_error_set(err, HS_ERR_IO, w->af.tmp_path, 0, 0,
                     "cannot write the Chrome trace: %s", strerror(errno));
        hs__chr_free(w);
        return HS_ERR_IO;
    }
    sink->ctx = w;
    sink->write = hs__chr_sink_write;
    sink->steps = NULL;
    *out = w;
    return HS_OK;

fail_nomem:
    hs__chr_free(w);
    return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
}

hs_err_t hs_chrome_writer_close(hs_chrome_writer_t *w, int commit,
                                hs_error_t *err)
{
    hs_err_t rc = HS_OK;

    if (w == NULL)
        return HS_OK;
    if (commit && !w->failed) {
        yajl_gen_array_close(w->g);
        yajl_gen_map_close(w->g);
        hs__chr_print(w, "\n", 1);
    }
    if (commit && w->failed)
        rc = hs_error_set(err, HS_ERR_IO, w->af.tmp_path, 0, 0,
                          "cannot write the Chrome trace: %s",
                          strerror(errno));
    else if (commit)
        rc = hs_atomic_commit(&w->af, err);
    hs__chr_free(w);
    return rc;
}
