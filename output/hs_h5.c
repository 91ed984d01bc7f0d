/*
 * hs_h5.c -- the HDF5 trace of a replay, written while the replay runs.
 *
 * Workload: a replay of N devices over S steps emits O(S * N * rounds)
 * intervals, which for a large ring is far more than fits in memory.  The
 * replay hands them to this sink in blocks; the writer copies each block
 * into a buffer of one HDF5 chunk (HS_H5_CHUNK_ROWS rows) and, when the
 * buffer is full, extends /events by that many rows and writes them with one
 * hyperslab write.  A block larger than a chunk that arrives when the
 * buffer is empty is written straight through, whole chunks at a time.  So
 * nothing is written row by row, and memory is one chunk whatever the run.
 *
 * The file types are explicit little-endian, packed compounds (never the
 * native layout of whoever wrote the file); HDF5 converts from the in-memory
 * structs (hs_interval_t, hs_step_rec_t).  The phase column is an HDF5 enum,
 * so h5dump and h5py show "ring_send" rather than 5.  Object modification
 * times are not recorded, so the same run gives a byte-identical file.
 *
 * Atomicity: everything goes to `path.tmp.XXXXXX` in the same directory;
 * close(commit=1) flushes, closes, fsyncs and renames it over `path`;
 * close(commit=0) removes it.  A process killed half way leaves at most the
 * temporary file, never a half-written `path`, and never clobbers a good
 * file already there.
 *
 * HDF5 prints its error stack on stderr by default; this module switches
 * that off (process-wide, H5Eset_auto2) and turns the innermost message of
 * the stack into the hs_error_t text instead.
 */
#include "hs_h5.h"
#include "hs_h5_attr.h"
#include "hs_atomic.h"
#include "hs_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#ifndef HS_VERSION
#define HS_VERSION "unknown"
#endif

#define HS__H5_FORMAT "hetsim.trace"
#define HS__H5_FORMAT_VERSION 2
#define HS__H5_STEP_CHUNK 4096

/* The in-memory row of /devices. */
typedef struct hs__h5_devrow_s {
    uint32_t id;
    char *name;
    char *type;
    uint32_t type_index;
    char *addr;
    uint32_t ring_pos;
} hs__h5_devrow_t;

struct hs_h5_writer_s {
    hs_atomic_t af;         /* the temporary file HDF5 writes by path */
    hid_t file;
    hid_t ev_ds, ev_mtype;
    hid_t st_ds, st_mtype;
    hs_interval_t *ev_buf;
    size_t ev_n;
    hsize_t ev_rows;        /* rows already in /events */
    hs_step_rec_t *st_buf;
    size_t st_n;
    hsize_t st_rows;
    int failed;             /* a write failed: the file is not committed */
};

/* ---- small helpers ---- */

void hs_h5_hash_text(const char *text, char out[17])
{
    uint64_t h = hs_fnv1a_str(text ? text : "");

    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

void hs_h5_init(void)
{
    static int done;

    if (!done) {
        done = 1;
        (void)H5dont_atexit();
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void hs__h5_quiet(void)
{
    hs_h5_init();
}

void hs_h5_abandon(const char *tmp_path)
{
    if (tmp_path != NULL)
        (void)truncate(tmp_path, 0);
}

int hs_h5_file_close(hid_t file, const char *tmp_path, int keep)
{
    int ok = keep;

    if (file < 0)
        return keep ? -1 : 0;
    if (ok && H5Fflush(file, H5F_SCOPE_LOCAL) < 0)
        ok = 0;
    if (!ok)
        hs_h5_abandon(tmp_path);
    /* A failed H5Fclose leaves the file half closed in libhdf5 and a
       second one crashes: it is called once, on a flushed or an emptied
       file, and a failure is reported, never retried. */
    if (H5Fclose(file) < 0)
        ok = 0;
    H5Eclear2(H5E_DEFAULT);
    return ok ? 0 : -1;
}

static herr_t hs__h5_walk(unsigned n, const H5E_error2_t *e, void *ctx)
{
    char *buf = ctx;

    (void)n;
    if (e->desc != NULL && e->desc[0] != '\0')
        snprintf(buf, 256, "%s (in %s)", e->desc,
                 e->func_name ? e->func_name : "?");
    return 0;
}

/* Fills err with "file: what: <HDF5's innermost message>". */
static hs_err_t hs__h5_fail(hs_error_t *err, hs_err_t code,
                            const char *file, const char *what)
{
    char detail[256] = "";

    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, hs__h5_walk, detail);
    H5Eclear2(H5E_DEFAULT);
    return hs_error_set(err, code, file, 0, 0, "%s%s%s", what,
                        detail[0] ? ": " : "", detail);
}

static char *hs__h5_strdup(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = malloc(n);

    if (d != NULL)
        memcpy(d, s ? s : "", n);
    return d;
}

hid_t hs_h5_vlstr(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);

    if (t < 0)
        return t;
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

/* The phase enum over base (H5T_NATIVE_UINT8 or H5T_STD_U8LE). */
static hid_t hs__h5_phase_type(hid_t base)
{
    hid_t t = H5Tenum_create(base);
    unsigned i;

    if (t < 0)
        return t;
    for (i = 0; i < HS_PH_COUNT; i++) {
        /* The value in the enum's base type: one byte either way. */
        uint8_t v = (uint8_t)i;
        if (H5Tenum_insert(t, hs_phase_name((hs_phase_t)i), &v) < 0) {
            H5Tclose(t);
            return -1;
        }
    }
    return t;
}

/* Compound type of /events: in memory (file == 0) the layout of
   hs_interval_t, in the file a packed little-endian row of 45 bytes. */
static hid_t hs__h5_event_type(int file)
{
    hid_t u32 = file ? H5T_STD_U32LE : H5T_NATIVE_UINT32;
    hid_t i32 = file ? H5T_STD_I32LE : H5T_NATIVE_INT32;
    hid_t i64 = file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
    hid_t u64 = file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
    hid_t ph = hs__h5_phase_type(file ? H5T_STD_U8LE : H5T_NATIVE_UINT8);
    hid_t t;
    size_t o[9];
    int bad = 0;

    if (ph < 0)
        return -1;
    if (file) {
        o[0] = 0; o[1] = 4; o[2] = 8; o[3] = 9; o[4] = 13; o[5] = 17;
        o[6] = 21; o[7] = 29; o[8] = 37;
        t = H5Tcreate(H5T_COMPOUND, 45);
    } else {
        o[0] = HOFFSET(hs_interval_t, device);
        o[1] = HOFFSET(hs_interval_t, step);
        o[2] = HOFFSET(hs_interval_t, phase);
        o[3] = HOFFSET(hs_interval_t, round);
        o[4] = HOFFSET(hs_interval_t, bucket);
        o[5] = HOFFSET(hs_interval_t, peer);
        o[6] = HOFFSET(hs_interval_t, start_ns);
        o[7] = HOFFSET(hs_interval_t, end_ns);
        o[8] = HOFFSET(hs_interval_t, bytes);
        t = H5Tcreate(H5T_COMPOUND, sizeof(hs_interval_t));
    }
    if (t < 0) {
        H5Tclose(ph);
        return -1;
    }
    bad |= H5Tinsert(t, "device", o[0], u32) < 0;
    bad |= H5Tinsert(t, "step", o[1], u32) < 0;
    bad |= H5Tinsert(t, "phase", o[2], ph) < 0;
    bad |= H5Tinsert(t, "round", o[3], i32) < 0;
    bad |= H5Tinsert(t, "bucket", o[4], i32) < 0;
    bad |= H5Tinsert(t, "peer", o[5], i32) < 0;
    bad |= H5Tinsert(t, "start_ns", o[6], i64) < 0;
    bad |= H5Tinsert(t, "end_ns", o[7], i64) < 0;
    bad |= H5Tinsert(t, "bytes", o[8], u64) < 0;
    H5Tclose(ph);
    if (bad) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* Compound type of /steps (hs_step_rec_t; packed LE in the file).  The
   step's figures are named as in every output (docs/output.md):
   step_replay_ns, step_source_ns; v1 (a trace of format version 1, read
   back) names them sim_ns, closed_ns. */
static hid_t hs__h5_step_type_v(int file, int v1)
{
    hid_t u32 = file ? H5T_STD_U32LE : H5T_NATIVE_UINT32;
    hid_t i64 = file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
    hid_t t;
    size_t o[6];
    int bad = 0;

    if (file) {
        o[0] = 0; o[1] = 4; o[2] = 8; o[3] = 16; o[4] = 24; o[5] = 32;
        t = H5Tcreate(H5T_COMPOUND, 40);
    } else {
        o[0] = HOFFSET(hs_step_rec_t, device);
        o[1] = HOFFSET(hs_step_rec_t, step);
        o[2] = HOFFSET(hs_step_rec_t, start_ns);
        o[3] = HOFFSET(hs_step_rec_t, end_ns);
        o[4] = HOFFSET(hs_step_rec_t, sim_ns);
        o[5] = HOFFSET(hs_step_rec_t, closed_ns);
        t = H5Tcreate(H5T_COMPOUND, sizeof(hs_step_rec_t));
    }
    if (t < 0)
        return -1;
    bad |= H5Tinsert(t, "device", o[0], u32) < 0;
    bad |= H5Tinsert(t, "step", o[1], u32) < 0;
    bad |= H5Tinsert(t, "start_ns", o[2], i64) < 0;
    bad |= H5Tinsert(t, "end_ns", o[3], i64) < 0;
    bad |= H5Tinsert(t, v1 ? "sim_ns" : "step_replay_ns", o[4], i64) < 0;
    bad |= H5Tinsert(t, v1 ? "closed_ns" : "step_source_ns", o[5], i64) < 0;
    if (bad) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static hid_t hs__h5_step_type(int file)
{
    return hs__h5_step_type_v(file, 0);
}

/* Compound type of /devices (vlen strings in both). */
static hid_t hs__h5_dev_type(int file)
{
    hid_t u32 = file ? H5T_STD_U32LE : H5T_NATIVE_UINT32;
    hid_t str = hs_h5_vlstr();
    hid_t t;
    size_t o[6];
    size_t sz = sizeof(char *);
    int bad = 0;

    if (str < 0)
        return -1;
    if (file) {
        o[0] = 0; o[1] = 4; o[2] = 4 + sz; o[3] = 4 + 2 * sz;
        o[4] = 8 + 2 * sz; o[5] = 8 + 3 * sz;
        t = H5Tcreate(H5T_COMPOUND, 12 + 3 * sz);
    } else {
        o[0] = HOFFSET(hs__h5_devrow_t, id);
        o[1] = HOFFSET(hs__h5_devrow_t, name);
        o[2] = HOFFSET(hs__h5_devrow_t, type);
        o[3] = HOFFSET(hs__h5_devrow_t, type_index);
        o[4] = HOFFSET(hs__h5_devrow_t, addr);
        o[5] = HOFFSET(hs__h5_devrow_t, ring_pos);
        t = H5Tcreate(H5T_COMPOUND, sizeof(hs__h5_devrow_t));
    }
    if (t < 0) {
        H5Tclose(str);
        return -1;
    }
    /* A vlen string's file size is fixed by HDF5 (16 bytes), whatever sz;
       H5Tpack below makes the file compound consistent. */
    bad |= H5Tinsert(t, "id", o[0], u32) < 0;
    bad |= H5Tinsert(t, "name", o[1], str) < 0;
    bad |= H5Tinsert(t, "type", o[2], str) < 0;
    bad |= H5Tinsert(t, "type_index", o[3], u32) < 0;
    bad |= H5Tinsert(t, "addr", o[4], str) < 0;
    bad |= H5Tinsert(t, "ring_pos", o[5], u32) < 0;
    if (file && !bad)
        bad |= H5Tpack(t) < 0;
    H5Tclose(str);
    if (bad) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

int hs_h5_attr_str(hid_t obj, const char *name, const char *val)
{
    hid_t t = hs_h5_vlstr(), sp = H5Screate(H5S_SCALAR), a = -1;
    int rc = -1;

    if (t >= 0 && sp >= 0)
        a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0 && H5Awrite(a, t, &val) >= 0)
        rc = 0;
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    return rc;
}

int hs_h5_attr_u64(hid_t obj, const char *name, uint64_t val)
{
    hid_t sp = H5Screate(H5S_SCALAR), a = -1;
    int rc = -1;

    if (sp >= 0)
        a = H5Acreate2(obj, name, H5T_STD_U64LE, sp, H5P_DEFAULT,
                       H5P_DEFAULT);
    if (a >= 0 && H5Awrite(a, H5T_NATIVE_UINT64, &val) >= 0)
        rc = 0;
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    return rc;
}

/* Creates an empty, extendible, chunked, compressed 1-D dataset. */
static hid_t hs__h5_table(hid_t file, const char *name, hid_t ftype,
                          hsize_t chunk)
{
    hsize_t dim0 = 0, maxd = H5S_UNLIMITED;
    hid_t sp = H5Screate_simple(1, &dim0, &maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ds = -1;

    if (sp < 0 || dcpl < 0)
        goto done;
    if (H5Pset_chunk(dcpl, 1, &chunk) < 0)
        goto done;
    H5Pset_obj_track_times(dcpl, 0);
    if (H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0)
        H5Pset_shuffle(dcpl);
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0)
        H5Pset_deflate(dcpl, 6);
    ds = H5Dcreate2(file, name, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
done:
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (sp >= 0)
        H5Sclose(sp);
    return ds;
}

/* Appends n rows of mtype at buf to the 1-D dataset ds holding *rows. */
static int hs__h5_append(hid_t ds, hid_t mtype, const void *buf, size_t n,
                         hsize_t *rows)
{
    hsize_t start = *rows, count = n, total = *rows + n;
    hid_t fs = -1, ms = -1;
    int rc = -1;

    if (n == 0)
        return 0;
    if (H5Dset_extent(ds, &total) < 0)
        return -1;
    fs = H5Dget_space(ds);
    ms = H5Screate_simple(1, &count, NULL);
    if (fs < 0 || ms < 0)
        goto done;
    if (H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count,
                            NULL) < 0)
        goto done;
    if (H5Dwrite(ds, mtype, ms, fs, H5P_DEFAULT, buf) < 0)
        goto done;
    *rows = total;
    rc = 0;
done:
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return rc;
}

/* ---- the writer ---- */

/* Appends the *n buffered rows of buf to dataset ds, counting them in
   *rows, and empties the buffer; what is the error's text. */
static hs_err_t hs__h5_flush(hs_h5_writer_t *w, hid_t ds, hid_t mtype,
                             const void *buf, size_t *n, hsize_t *rows,
                             const char *what, hs_error_t *err)
{
    if (*n == 0)
        return HS_OK;
    if (hs__h5_append(ds, mtype, buf, *n, rows) < 0) {
        w->failed = 1;
        return hs__h5_fail(err, HS_ERR_IO, w->af.path, what);
    }
    *n = 0;
    return HS_OK;
}

static hs_err_t hs__h5_flush_events(hs_h5_writer_t *w, hs_error_t *err)
{
    return hs__h5_flush(w, w->ev_ds, w->ev_mtype, w->ev_buf, &w->ev_n,
                        &w->ev_rows, "cannot append /events", err);
}

static hs_err_t hs__h5_flush_steps(hs_h5_writer_t *w, hs_error_t *err)
{
    return hs__h5_flush(w, w->st_ds, w->st_mtype, w->st_buf, &w->st_n,
                        &w->st_rows, "cannot append /steps", err);
}

static hs_err_t hs__h5_sink_write(void *ctx, const hs_interval_t *iv,
                                  size_t n, hs_error_t *err)
{
    hs_h5_writer_t *w = ctx;
    hs_err_t rc;

    if (w->failed)
        return hs_error_set(err, HS_ERR_IO, w->af.path, 0, 0,
                            "an earlier write failed");
    while (n > 0) {
        if (w->ev_n == 0 && n >= HS_H5_CHUNK_ROWS) {
            size_t whole = n - n % HS_H5_CHUNK_ROWS;
            if (hs__h5_append(w->ev_ds, w->ev_mtype, iv, whole,
                              &w->ev_rows) < 0) {
                w->failed = 1;
                return hs__h5_fail(err, HS_ERR_IO, w->af.path,
                                   "cannot append /events");
            }
            iv += whole;
            n -= whole;
            continue;
        }
        {
            size_t k = HS_H5_CHUNK_ROWS - w->ev_n;
            if (k > n)
                k = n;
            memcpy(w->ev_buf + w->ev_n, iv, k * sizeof *iv);
            w->ev_n += k;
            iv += k;
            n -= k;
        }
        if (w->ev_n == HS_H5_CHUNK_ROWS &&
            (rc = hs__h5_flush_events(w, err)) != HS_OK)
            return rc;
    }
    return HS_OK;
}

static hs_err_t hs__h5_sink_steps(void *ctx, const hs_step_rec_t *rec,
                                  size_t n, hs_error_t *err)
{
    hs_h5_writer_t *w = ctx;
    hs_err_t rc;

    if (w->failed)
        return hs_error_set(err, HS_ERR_IO, w->af.path, 0, 0,
                            "an earlier write failed");
    while (n > 0) {
        size_t k = HS__H5_STEP_CHUNK - w->st_n;
        if (k > n)
            k = n;
        memcpy(w->st_buf + w->st_n, rec, k * sizeof *rec);
        w->st_n += k;
        rec += k;
        n -= k;
        if (w->st_n == HS__H5_STEP_CHUNK &&
            (rc = hs__h5_flush_steps(w, err)) != HS_OK)
            return rc;
    }
    return HS_OK;
}

static int hs__h5_write_devices(hid_t file, const hs_scenario_t *s)
{
    hid_t ft = hs__h5_dev_type(1), mt = hs__h5_dev_type(0);
    hid_t sp = -1, dcpl = -1, ds = -1;
    hsize_t n = s->n_devices;
    hs__h5_devrow_t *rows = NULL;
    size_t i;
    int rc = -1;

    if (ft < 0 || mt < 0)
        goto done;
    rows = calloc(n ? n : 1, sizeof *rows);
    if (rows == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        const hs_device_t *d = &s->devices[i];
        rows[i].id = (uint32_t)i;
        rows[i].name = (char *)(d->name ? d->name : "");
        rows[i].type = (char *)(d->type < s->n_types &&
                                s->types[d->type].name
                                    ? s->types[d->type].name : "");
        rows[i].type_index = d->type;
        rows[i].addr = (char *)(d->addr ? d->addr : "");
        rows[i].ring_pos = d->ring_pos;
    }
    sp = H5Screate_simple(1, &n, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (sp < 0 || dcpl < 0)
        goto done;
    H5Pset_obj_track_times(dcpl, 0);
    ds = H5Dcreate2(file, "devices", ft, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0)
        goto done;
    if (n > 0 && H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0)
        goto done;
    rc = 0;
done:
    if (ds >= 0)
        H5Dclose(ds);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (sp >= 0)
        H5Sclose(sp);
    if (mt >= 0)
        H5Tclose(mt);
    if (ft >= 0)
        H5Tclose(ft);
    free(rows);
    return rc;
}

static int hs__h5_write_attrs(hid_t file, const hs_scenario_t *s,
                              const hs_replay_opts_t *o)
{
    char hash[17], tagged[32];
    hs_replay_opts_t o_s;

    if (o == NULL) {
        hs_replay_opts_from_scenario(s, &o_s);
        o = &o_s;
    }

    hs_h5_hash_text(s->text, hash);
    snprintf(tagged, sizeof tagged, "fnv1a64:%s", hash);
    if (hs_h5_attr_str(file, "format", HS__H5_FORMAT) < 0 ||
        hs_h5_attr_u64(file, "format_version", HS__H5_FORMAT_VERSION) < 0 ||
        hs_h5_attr_str(file, "hetsim_version", HS_VERSION) < 0 ||
        hs_h5_attr_str(file, "scenario", s->text ? s->text : "") < 0 ||
        hs_h5_attr_str(file, "scenario_hash", tagged) < 0 ||
        hs_h5_attr_str(file, "scenario_name", s->name ? s->name : "") < 0 ||
        hs_h5_attr_u64(file, "seed", o->seed) < 0 ||
        hs_h5_attr_str(file, "overlap", hs_overlap_name(o->overlap)) <
            0 ||
        hs_h5_attr_str(file, "send", hs_send_name(o->send)) < 0 ||
        hs_h5_attr_u64(file, "sim_steps", o->steps) < 0 ||
        hs_h5_attr_u64(file, "stochastic", (uint64_t)o->stochastic) < 0 ||
        hs_h5_attr_u64(file, "n_devices", s->n_devices) < 0 ||
        hs_h5_attr_str(file, "time_unit", "ns") < 0 ||
        hs_h5_attr_str(file, "bytes_unit", "bytes") < 0)
        return -1;
    return 0;
}

/* Closes every HDF5 id of w.  keep 1: the file is to be committed
   (flushed first; a failed flush or close sets w->failed); keep 0: it is
   abandoned, emptied first so that closing needs no new space. */
static void hs__h5_close_handles(hs_h5_writer_t *w, int keep)
{
    if (keep && w->file >= 0 && H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0) {
        w->failed = 1;
        keep = 0;
    }
    if (!keep)
        hs_h5_abandon(w->af.tmp_path);
    if (w->ev_ds >= 0)
        H5Dclose(w->ev_ds);
    if (w->st_ds >= 0)
        H5Dclose(w->st_ds);
    if (w->ev_mtype >= 0)
        H5Tclose(w->ev_mtype);
    if (w->st_mtype >= 0)
        H5Tclose(w->st_mtype);
    if (w->file >= 0 && hs_h5_file_close(w->file, w->af.tmp_path, keep) < 0)
        w->failed = 1;
    w->ev_ds = w->st_ds = w->ev_mtype = w->st_mtype = w->file = -1;
}

static void hs__h5_writer_free(hs_h5_writer_t *w)
{
    free(w->ev_buf);
    free(w->st_buf);
    hs_atomic_abort(&w->af);   /* removes the file unless committed */
    free(w);
}

hs_err_t hs_h5_writer_open(const char *path, const hs_scenario_t *s,
                           hs_h5_writer_t **out, hs_trace_sink_t *sink,
                           hs_error_t *err)
{
    return hs_h5_writer_open_opts(path, s, NULL, out, sink, err);
}

hs_err_t hs_h5_writer_open_opts(const char *path, const hs_scenario_t *s,
                                const hs_replay_opts_t *o,
                                hs_h5_writer_t **out, hs_trace_sink_t *sink,
                                hs_error_t *err)
{
    hs_h5_writer_t *w = NULL;
    hid_t fcpl = -1, fapl = -1, ft = -1;
    hs_err_t rc = HS_ERR_NOMEM;

    *out = NULL;
    hs__h5_quiet();
    w = calloc(1, sizeof *w);
    if (w == NULL)
        goto fail_nomem;
    w->file = w->ev_ds = w->st_ds = w->ev_mtype = w->st_mtype = -1;
    w->ev_buf = malloc(HS_H5_CHUNK_ROWS * sizeof *w->ev_buf);
    w->st_buf = malloc(HS__H5_STEP_CHUNK * sizeof *w->st_buf);
    if (w->ev_buf == NULL || w->st_buf == NULL)
        goto fail_nomem;
    if ((rc = hs_atomic_check_target(path, 0, err)) != HS_OK ||
        (rc = hs_atomic_open(&w->af, path, err)) != HS_OK)
        goto fail;
    hs_atomic_detach(&w->af);

    fcpl = H5Pcreate(H5P_FILE_CREATE);
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fcpl < 0 || fapl < 0)
        goto fail_h5;
    H5Pset_obj_track_times(fcpl, 0);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    w->file = H5Fcreate(w->af.tmp_path, H5F_ACC_TRUNC, fcpl, fapl);
    if (w->file < 0)
        goto fail_h5;
    if (hs__h5_write_attrs(w->file, s, o) < 0 ||
        hs__h5_write_devices(w->file, s) < 0)
        goto fail_h5;
    ft = hs__h5_event_type(1);
    w->ev_mtype = hs__h5_event_type(0);
    if (ft < 0 || w->ev_mtype < 0)
        goto fail_h5;
    w->ev_ds = hs__h5_table(w->file, "events", ft, HS_H5_CHUNK_ROWS);
    H5Tclose(ft);
    ft = -1;
    if (w->ev_ds < 0)
        goto fail_h5;
    ft = hs__h5_step_type(1);
    w->st_mtype = hs__h5_step_type(0);
    if (ft < 0 || w->st_mtype < 0)
        goto fail_h5;
    w->st_ds = hs__h5_table(w->file, "steps", ft, HS__H5_STEP_CHUNK);
    H5Tclose(ft);
    ft = -1;
    if (w->st_ds < 0)
        goto fail_h5;
    H5Pclose(fcpl);
    H5Pclose(fapl);
    sink->ctx = w;
    sink->write = hs__h5_sink_write;
    sink->steps = hs__h5_sink_steps;
    *out = w;
    return HS_OK;

fail_h5:
    rc = hs__h5_fail(err, HS_ERR_IO, w->af.path,
                     "cannot create HDF5 trace");
    goto fail;
fail_nomem:
    rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
fail:
    if (ft >= 0)
        H5Tclose(ft);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (w != NULL) {
        hs__h5_close_handles(w, 0);
        hs__h5_writer_free(w);
    }
    return rc;
}

const char *hs_h5_writer_tmp_path(const hs_h5_writer_t *w)
{
    return w ? w->af.tmp_path : NULL;
}

hs_err_t hs_h5_writer_close(hs_h5_writer_t *w, int commit, hs_error_t *err)
{
    hs_err_t rc = HS_OK;

    if (w == NULL)
        return HS_OK;
    if (commit && !w->failed) {
        rc = hs__h5_flush_events(w, err);
        if (rc == HS_OK)
            rc = hs__h5_flush_steps(w, err);
    }
    hs__h5_close_handles(w, commit && rc == HS_OK && !w->failed);
    if (commit && rc == HS_OK && w->failed)
        rc = hs__h5_fail(err, HS_ERR_IO, w->af.path,
                         "cannot finish the HDF5 trace");
    if (commit && rc == HS_OK)
        rc = hs_atomic_commit(&w->af, err);
    hs__h5_writer_free(w);
    return rc;
}

/* ---- reading ---- */

static char *hs__h5_read_attr_str(hid_t obj, const char *name)
{
    hid_t a, t;
    char *v = NULL, *copy;

    if (H5Aexists(obj, name) <= 0)
        return hs__h5_strdup("");
    a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return hs__h5_strdup("");
    t = hs_h5_vlstr();
    if (H5Aread(a, t, &v) < 0)
        v = NULL;
    copy = hs__h5_strdup(v ? v : "");
    if (v != NULL)
        H5free_memory(v);
    H5Tclose(t);
    H5Aclose(a);
    return copy;
}

static uint64_t hs__h5_read_attr_u64(hid_t obj, const char *name)
{
    uint64_t v = 0;
    hid_t a;

    if (H5Aexists(obj, name) <= 0)
        return 0;
    a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return 0;
    if (H5Aread(a, H5T_NATIVE_UINT64, &v) < 0)
        v = 0;
    H5Aclose(a);
    return v;
}

static hssize_t hs__h5_rows(hid_t ds)
{
    hid_t sp = H5Dget_space(ds);
    hssize_t n;

    if (sp < 0)
        return -1;
    n = H5Sget_simple_extent_npoints(sp);
    H5Sclose(sp);
    return n;
}

void hs_h5_run_free(hs_h5_run_t *r)
{
    size_t i;

    if (r == NULL)
        return;
    for (i = 0; i < r->n_devices && r->devices; i++) {
        free(r->devices[i].name);
        free(r->devices[i].type);
        free(r->devices[i].addr);
    }
    free(r->devices);
    free(r->steps);
    free(r->path);
    free(r->scenario);
    free(r->scenario_hash);
    free(r->overlap);
    free(r->send);
    free(r->version);
    free(r->name);
    free(r);
}

/* Reads the trace's /devices table of file f into r->devices (r owns
   the names); rows are placed by their id. Fills err (naming path) on a
   read failure or a bad id; closes what it opened either way. */
static hs_err_t hs__h5_load_devices(hid_t f, hs_h5_run_t *r,
                                    const char *path, hs_error_t *err)
{
    hid_t ds = -1, mt = -1, sp = -1;
    hs__h5_devrow_t *rows = NULL;
    hssize_t n;
    size_t i;
    hs_err_t rc;

    ds = H5Dopen2(f, "devices", H5P_DEFAULT);
    mt = hs__h5_dev_type(0);
    if (ds < 0 || mt < 0 || (n = hs__h5_rows(ds)) < 0)
        goto fail_h5;
    r->devices = calloc(n ? (size_t)n : 1, sizeof *r->devices);
    rows = calloc(n ? (size_t)n : 1, sizeof *rows);
    if (r->devices == NULL || rows == NULL)
        goto fail_nomem;
    if (n > 0 && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0)
        goto fail_h5;
    r->n_devices = (size_t)n;
    for (i = 0; i < (size_t)n; i++) {
        hs_h5_device_t *d;
        if (rows[i].id >= (uint32_t)n) {
            rc = hs_error_set(err, HS_ERR_TRACE, path, 0, 0,
                              "/devices row %zu has id %u of %zu devices",
                              i, (unsigned)rows[i].id, (size_t)n);
            sp = H5Dget_space(ds);
            H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, rows);
            goto fail;
        }
        d = &r->devices[rows[i].id];
        d->id = rows[i].id;
        d->type_index = rows[i].type_index;
        d->ring_pos = rows[i].ring_pos;
        free(d->name);
        free(d->type);
        free(d->addr);
        d->name = hs__h5_strdup(rows[i].name);
        d->type = hs__h5_strdup(rows[i].type);
        d->addr = hs__h5_strdup(rows[i].addr);
    }
    sp = H5Dget_space(ds);
    if (n > 0)
        H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, rows);
    H5Sclose(sp);
    sp = -1;
    for (i = 0; i < (size_t)n; i++)
        if (!r->devices[i].name || !r->devices[i].type ||
            !r->devices[i].addr)
            goto fail_nomem;
    H5Dclose(ds);
    H5Tclose(mt);
    free(rows);
    return HS_OK;
fail_h5:
    rc = hs__h5_fail(err, HS_ERR_TRACE, path, "cannot read the trace");
    goto fail;
fail_nomem:
    rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
fail:
    if (sp >= 0)
        H5Sclose(sp);
    if (mt >= 0)
        H5Tclose(mt);
    if (ds >= 0)
        H5Dclose(ds);
    free(rows);
    return rc;
}

/* Reads the trace's /steps table of file f into r->steps (format 1's
   figure names too). Fills err (naming path) on a read failure; closes
   what it opened either way. */
static hs_err_t hs__h5_load_steps(hid_t f, hs_h5_run_t *r, const char *path,
                                  hs_error_t *err)
{
    hid_t ds, mt;
    hssize_t n;
    hs_err_t rc;

    ds = H5Dopen2(f, "steps", H5P_DEFAULT);
    {
        /* format version 1 named the figures sim_ns, closed_ns */
        hid_t ft = ds >= 0 ? H5Dget_type(ds) : -1;
        int v1 = ft >= 0 && H5Tget_member_index(ft, "sim_ns") >= 0;

        if (ft >= 0)
            H5Tclose(ft);
        mt = hs__h5_step_type_v(0, v1);
    }
    if (ds < 0 || mt < 0 || (n = hs__h5_rows(ds)) < 0)
        goto fail_h5;
    r->steps = calloc(n ? (size_t)n : 1, sizeof *r->steps);
    if (r->steps == NULL)
        goto fail_nomem;
    if (n > 0 &&
        H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->steps) < 0)
        goto fail_h5;
    r->n_steps = (size_t)n;
    H5Dclose(ds);
    H5Tclose(mt);
    return HS_OK;
fail_h5:
    rc = hs__h5_fail(err, HS_ERR_TRACE, path, "cannot read the trace");
    goto fail;
fail_nomem:
    rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
fail:
    if (mt >= 0)
        H5Tclose(mt);
    if (ds >= 0)
        H5Dclose(ds);
    return rc;
}

hs_err_t hs_h5_run_load(const char *path, hs_h5_run_t **out,
                        hs_error_t *err)
{
    hs_h5_run_t *r = NULL;
    hid_t f = -1, ds = -1;
    hssize_t n;
    hs_err_t rc = HS_ERR_NOMEM;

    *out = NULL;
    hs__h5_quiet();
    if (access(path, R_OK) != 0)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot read: %s",
                            strerror(errno));
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return hs__h5_fail(err, HS_ERR_IO, path,
                           "not an HDF5 file or unreadable");
    r = calloc(1, sizeof *r);
    if (r == NULL)
        goto fail_nomem;
    r->path = hs__h5_strdup(path);
    r->scenario = hs__h5_read_attr_str(f, "scenario");
    r->scenario_hash = hs__h5_read_attr_str(f, "scenario_hash");
    r->overlap = hs__h5_read_attr_str(f, "overlap");
    r->send = hs__h5_read_attr_str(f, "send");
    r->version = hs__h5_read_attr_str(f, "hetsim_version");
    r->name = hs__h5_read_attr_str(f, "scenario_name");
    r->seed = hs__h5_read_attr_u64(f, "seed");
    if (!r->path || !r->scenario || !r->scenario_hash || !r->overlap ||
        !r->send || !r->version || !r->name)
        goto fail_nomem;
    if (H5Lexists(f, "devices", H5P_DEFAULT) <= 0 ||
        H5Lexists(f, "steps", H5P_DEFAULT) <= 0 ||
        H5Lexists(f, "events", H5P_DEFAULT) <= 0) {
        rc = hs_error_set(err, HS_ERR_TRACE, path, 0, 0,
                          "not a hetsim trace: /devices, /steps or /events "
                          "is missing");
        goto fail;
    }
    if ((rc = hs__h5_load_devices(f, r, path, err)) != HS_OK ||
        (rc = hs__h5_load_steps(f, r, path, err)) != HS_OK)
        goto fail;
    ds = H5Dopen2(f, "events", H5P_DEFAULT);
    if (ds < 0 || (n = hs__h5_rows(ds)) < 0)
        goto fail_h5;
    r->n_events = (uint64_t)n;
    H5Dclose(ds);
    H5Fclose(f);
    *out = r;
    return HS_OK;

fail_h5:
    rc = hs__h5_fail(err, HS_ERR_TRACE, path, "cannot read the trace");
    goto fail;
fail_nomem:
    rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
fail:
    if (ds >= 0)
        H5Dclose(ds);
    if (f >= 0)
        H5Fclose(f);
    hs_h5_run_free(r);
    return rc;
}

hs_err_t hs_h5_events_each(const char *path,
                           int (*fn)(void *ctx, const hs_interval_t *iv,
                                     size_t n),
                           void *ctx, hs_error_t *err)
{
    hid_t f = -1, ds = -1, mt = -1, fs = -1, ms = -1;
    hs_interval_t *buf = NULL;
    hssize_t total;
    hsize_t at = 0;
    hs_err_t rc = HS_OK;

    hs__h5_quiet();
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return hs__h5_fail(err, HS_ERR_IO, path,
                           "not an HDF5 file or unreadable");
    ds = H5Dopen2(f, "events", H5P_DEFAULT);
    mt = hs__h5_event_type(0);
    buf = malloc(HS_H5_CHUNK_ROWS * sizeof *buf);
    if (ds < 0 || mt < 0 || (total = hs__h5_rows(ds)) < 0) {
        rc = hs__h5_fail(err, HS_ERR_TRACE, path, "cannot read /events");
        goto done;
    }
    if (buf == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
        goto done;
    }
    fs = H5Dget_space(ds);
    while (at < (hsize_t)total) {
        hsize_t count = (hsize_t)total - at;
        if (count > HS_H5_CHUNK_ROWS)
            count = HS_H5_CHUNK_ROWS;
        ms = H5Screate_simple(1, &count, NULL);
        if (ms < 0 ||
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &count,
                                NULL) < 0 ||
            H5Dread(ds, mt, ms, fs, H5P_DEFAULT, buf) < 0) {
            rc = hs__h5_fail(err, HS_ERR_TRACE, path,
                             "cannot read /events");
            goto done;
        }
        H5Sclose(ms);
        ms = -1;
        at += count;
        if (fn(ctx, buf, (size_t)count) != 0)
            break;
    }
done:
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    if (mt >= 0)
        H5Tclose(mt);
    if (ds >= 0)
        H5Dclose(ds);
    H5Fclose(f);
    free(buf);
    return rc;
}
