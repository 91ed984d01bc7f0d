/*
 * hs_sweep_out.c -- writers for a sweep's results (hs_sweep_out.h): the
 * columns are listed once, in hs__cols, and every writer walks that list,
 * so the formats cannot drift apart.
 */
#include "hs_sweep_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>
#include <yajl/yajl_gen.h>

#include "hs_atomic.h"
#include "hs_hash.h"
#include "hs_units.h"

#ifndef HS_VERSION
#define HS_VERSION "unknown"
#endif

/* ---- the columns ---------------------------------------------------- */

typedef enum hs__ckind_e {
    HS__I64 = 0,    /* an int64_t figure */
    HS__U64 = 1,    /* a uint64_t figure */
    HS__U32 = 2,    /* a uint32_t figure */
    HS__STR = 3     /* a fixed char array of the record */
} hs__ckind_t;

typedef struct hs__col_s {
    const char *name;
    hs__ckind_t kind;
    size_t off;         /* in hs_sweep_rec_t */
    size_t len;         /* HS__STR: the array's size */
    int replay;         /* only when the sweep replays */
    int time;           /* a time in ns (the table prints it in units) */
} hs__col_t;

#define HS__OFF(f) offsetof(hs_sweep_rec_t, f)
#define HS__LEN(f) sizeof(((hs_sweep_rec_t *)0)->f)

static const hs__col_t hs__cols[] = {
    {"n_devices", HS__U32, HS__OFF(n_devices), 0, 0, 0},
    {"step_ns", HS__I64, HS__OFF(step_ns), 0, 0, 1},
    {"step_ext_ns", HS__I64, HS__OFF(step_ext_ns), 0, 0, 1},
    {"iters_per_epoch", HS__U64, HS__OFF(iters_per_epoch), 0, 0, 0},
    {"epoch_ns", HS__I64, HS__OFF(epoch_ns), 0, 0, 1},
    {"total_ns", HS__I64, HS__OFF(total_ns), 0, 0, 1},
    {"bottleneck_device", HS__STR, HS__OFF(bottleneck_device),
     HS__LEN(bottleneck_device), 0, 0},
    {"bottleneck_bound", HS__STR, 0, 16, 0, 0},  /* from the enum */
    {"bottleneck_link", HS__STR, HS__OFF(bottleneck_link),
     HS__LEN(bottleneck_link), 0, 0},
    {"replay_step_ns", HS__I64, HS__OFF(replay_step_ns), 0, 1, 1},
    {"replay_epoch_ns", HS__I64, HS__OFF(replay_epoch_ns), 0, 1, 1},
    {"replay_total_ns", HS__I64, HS__OFF(replay_total_ns), 0, 1, 1},
    {"replay_diff_ns", HS__I64, HS__OFF(replay_diff_ns), 0, 1, 1},
    {NULL, HS__I64, 0, 0, 0, 0}};

static int hs__col_on(const hs_sweep_t *sw, const hs__col_t *c)
{
    return !c->replay || hs_sweep_replays(sw);
}

static int64_t hs__col_i64(const hs_sweep_rec_t *r, const hs__col_t *c)
{
    const char *b = (const char *)r + c->off;
    int64_t i;
    uint64_t u;
    uint32_t w;

    switch (c->kind) {
    case HS__I64:
        memcpy(&i, b, sizeof i);
        return i;
    case HS__U64:
        memcpy(&u, b, sizeof u);
        return (int64_t)u;
    case HS__U32:
        memcpy(&w, b, sizeof w);
        return (int64_t)w;
    default:
        return 0;
    }
}

static const char *hs__col_str(const hs_sweep_rec_t *r, const hs__col_t *c)
{
    if (strcmp(c->name, "bottleneck_bound") == 0)
        return hs_sweep_bound_name(r->bottleneck_bound);
    return (const char *)r + c->off;
}

/* ---- CSV ------------------------------------------------------------ */

static void hs__csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s != '\0'; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

hs_err_t hs_sweep_write_csv(const hs_sweep_t *sw,
                            const hs_sweep_results_t *r, FILE *f,
                            hs_error_t *err)
{
    size_t a, p, na = hs_sweep_n_axes(sw);
    const hs__col_t *c;

    for (a = 0; a < na; a++) {
        hs__csv_field(f, hs_sweep_axis(sw, a)->key);
        fputc(',', f);
    }
    for (c = hs__cols; c->name != NULL; c++)
        if (hs__col_on(sw, c))
            fprintf(f, "%s,", c->name);
    fputs("error\n", f);
    for (p = 0; p < r->n_points; p++) {
        const hs_sweep_rec_t *rec = &r->rec[p];
        int ok = r->error[p] == NULL;
        for (a = 0; a < na; a++) {
            hs__csv_field(f, hs_sweep_value(sw, p, a));
            fputc(',', f);
        }
        for (c = hs__cols; c->name != NULL; c++) {
            if (!hs__col_on(sw, c))
                continue;
            if (ok && c->kind == HS__STR)
                hs__csv_field(f, hs__col_str(rec, c));
            else if (ok)
                fprintf(f, "%" PRId64, hs__col_i64(rec, c));
            fputc(',', f);
        }
        if (!ok)
            hs__csv_field(f, r->error[p]);
        fputc('\n', f);
    }
    if (ferror(f))
        return hs_error_setf(err, HS_ERR_IO, "cannot write the CSV");
    return HS_OK;
}

/* ---- JSON ----------------------------------------------------------- */

static void hs__js(yajl_gen g, const char *s)
{
    yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

static void hs__scenario_hash(const hs_scenario_t *s, char out[32])
{
    snprintf(out, 32, "fnv1a64:%016" PRIx64,
             hs_fnv1a_str(s->text ? s->text : ""));
}

hs_err_t hs_sweep_write_json(const hs_sweep_t *sw,
                             const hs_sweep_results_t *r, FILE *f,
                             hs_error_t *err)
{
    const hs_scenario_t *s = hs_sweep_base(sw);
    yajl_gen g = yajl_gen_alloc(NULL);
    size_t a, p, na = hs_sweep_n_axes(sw), len;
    const unsigned char *buf;
    const hs__col_t *c;
    char hash[32];

    if (g == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    yajl_gen_config(g, yajl_gen_beautify, 1);
    yajl_gen_map_open(g);
    hs__js(g, "format");
    hs__js(g, HS_SWEEP_FORMAT);
    hs__js(g, "hetsim_version");
    hs__js(g, HS_VERSION);
    hs__js(g, "scenario");
    yajl_gen_map_open(g);
    hs__js(g, "name");
    if (s->name != NULL)
        hs__js(g, s->name);
    else
        yajl_gen_null(g);
    hs__js(g, "file");
    hs__js(g, s->file ? s->file : "");
    hs__scenario_hash(s, hash);
    hs__js(g, "hash");
    hs__js(g, hash);
    yajl_gen_map_close(g);
    hs__js(g, "options");
    hs__js(g, hs_sweep_options_text(sw));
    hs__js(g, "keys");
    yajl_gen_array_open(g);
    for (a = 0; a < na; a++)
        hs__js(g, hs_sweep_axis(sw, a)->key);
    yajl_gen_array_close(g);
    hs__js(g, "n_points");
    yajl_gen_integer(g, (long long)r->n_points);
    hs__js(g, "n_failed");
    yajl_gen_integer(g, (long long)r->n_failed);
    hs__js(g, "points");
    yajl_gen_array_open(g);
    for (p = 0; p < r->n_points; p++) {
        const hs_sweep_rec_t *rec = &r->rec[p];
        int ok = r->error[p] == NULL;
        yajl_gen_map_open(g);
        hs__js(g, "point");
        yajl_gen_integer(g, (long long)p);
        hs__js(g, "values");
        yajl_gen_map_open(g);
        for (a = 0; a < na; a++) {
            hs__js(g, hs_sweep_axis(sw, a)->key);
            hs__js(g, hs_sweep_value(sw, p, a));
        }
        yajl_gen_map_close(g);
        for (c = hs__cols; c->name != NULL; c++) {
            if (!hs__col_on(sw, c))
                continue;
            hs__js(g, c->name);
            if (!ok)
                yajl_gen_null(g);
            else if (c->kind == HS__STR)
                hs__js(g, hs__col_str(rec, c));
            else
                yajl_gen_integer(g, (long long)hs__col_i64(rec, c));
        }
        hs__js(g, "error");
        if (ok)
            yajl_gen_null(g);
        else
            hs__js(g, r->error[p]);
        yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
    yajl_gen_map_close(g);
    if (yajl_gen_get_buf(g, &buf, &len) != yajl_gen_status_ok) {
        yajl_gen_free(g);
        return hs_error_setf(err, HS_ERR_NOMEM, "cannot build the JSON");
    }
    fwrite(buf, 1, len, f);
    yajl_gen_free(g);
    if (ferror(f))
        return hs_error_setf(err, HS_ERR_IO, "cannot write the JSON");
    return HS_OK;
}

/* ---- the terminal table --------------------------------------------- */

/* The text of cell (p, col) into buf: key values, then the table's
   columns. */
static const char *hs__cell(const hs_sweep_t *sw,
                            const hs_sweep_results_t *r, size_t p,
                            const hs__col_t *c, char *buf, size_t len)
{
    const hs_sweep_rec_t *rec = &r->rec[p];

    if (r->error[p] != NULL)
        return "-";
    if (c->kind == HS__STR)
        return hs__col_str(rec, c);
    if (c->time)
        return hs_fmt_time(hs__col_i64(rec, c), buf, len);
    snprintf(buf, len, "%" PRId64, hs__col_i64(rec, c));
    return buf;
}

/* The table leaves out step_ext, the epoch count and the link's name;
   CSV and JSON have every column. */
static int hs__table_col(const hs_sweep_t *sw, const hs__col_t *c)
{
    return hs__col_on(sw, c) && strcmp(c->name, "iters_per_epoch") != 0 &&
           strcmp(c->name, "bottleneck_link") != 0 &&
           strcmp(c->name, "replay_epoch_ns") != 0 &&
           strcmp(c->name, "replay_total_ns") != 0;
}

hs_err_t hs_sweep_print_table(const hs_sweep_t *sw,
                              const hs_sweep_results_t *r, FILE *f,
                              hs_error_t *err)
{
    size_t na = hs_sweep_n_axes(sw), nc = 0, a, p, i;
    size_t w[64];
    const hs__col_t *c;
    char buf[64];

    for (c = hs__cols; c->name != NULL; c++)
        nc++;
    if (na + nc > sizeof w / sizeof w[0])
        na = sizeof w / sizeof w[0] - nc;
    for (a = 0; a < na; a++) {
        w[a] = strlen(hs_sweep_axis(sw, a)->key);
        for (p = 0; p < r->n_points; p++) {
            size_t l = strlen(hs_sweep_value(sw, p, a));
            if (l > w[a])
                w[a] = l;
        }
    }
    for (i = 0, c = hs__cols; c->name != NULL; c++, i++) {
        size_t *wc = &w[na + i];
        *wc = strlen(c->name);
        if (!hs__table_col(sw, c))
            continue;
        for (p = 0; p < r->n_points; p++) {
            size_t l = strlen(hs__cell(sw, r, p, c, buf, sizeof buf));
            if (l > *wc)
                *wc = l;
        }
    }
    for (a = 0; a < na; a++)
        fprintf(f, "%-*s  ", (int)w[a], hs_sweep_axis(sw, a)->key);
    for (i = 0, c = hs__cols; c->name != NULL; c++, i++)
        if (hs__table_col(sw, c))
            fprintf(f, "%*s  ", (int)w[na + i], c->name);
    fputs("error\n", f);
    for (p = 0; p < r->n_points; p++) {
        for (a = 0; a < na; a++)
            fprintf(f, "%-*s  ", (int)w[a], hs_sweep_value(sw, p, a));
        for (i = 0, c = hs__cols; c->name != NULL; c++, i++)
            if (hs__table_col(sw, c))
                fprintf(f, "%*s  ", (int)w[na + i],
                        hs__cell(sw, r, p, c, buf, sizeof buf));
        fprintf(f, "%s\n", r->error[p] ? r->error[p] : "");
    }
    fprintf(f, "%zu points, %zu failed\n", r->n_points, r->n_failed);
    if (ferror(f))
        return hs_error_setf(err, HS_ERR_IO, "cannot write the table");
    return HS_OK;
}

/* ---- HDF5 ----------------------------------------------------------- */

static hid_t hs__h5_fstr(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);

    if (t >= 0) {
        H5Tset_size(t, n);
        H5Tset_strpad(t, H5T_STR_NULLTERM);
        H5Tset_cset(t, H5T_CSET_UTF8);
    }
    return t;
}

static int hs__h5_attr(hid_t obj, const char *name, const char *val)
{
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a = -1;
    int rc = -1;

    if (t >= 0) {
        H5Tset_size(t, H5T_VARIABLE);
        H5Tset_cset(t, H5T_CSET_UTF8);
    }
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

static int hs__h5_attr_u64(hid_t obj, const char *name, uint64_t val)
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

/* The packed row: point u64, one string per key, the columns, code i32,
   error string.  Offsets and sizes computed once per write. */
typedef struct hs__h5_layout_s {
    size_t row;             /* bytes per row */
    size_t key_off[64], key_len[64];
    size_t col_off[32];
    size_t code_off, err_off, err_len;
} hs__h5_layout_t;

static size_t hs__h5_csize(const hs__col_t *c)
{
    return c->kind == HS__STR ? c->len : c->kind == HS__U32 ? 4 : 8;
}

static hid_t hs__h5_col_type(const hs__col_t *c)
{
    switch (c->kind) {
    case HS__I64: return H5Tcopy(H5T_STD_I64LE);
    case HS__U64: return H5Tcopy(H5T_STD_U64LE);
    case HS__U32: return H5Tcopy(H5T_STD_U32LE);
    default: return hs__h5_fstr(c->len);
    }
}

/* Builds the file type (a packed compound of little-endian members) and
   fills lay; the memory buffer uses the same layout in native order,
   which HDF5 converts (on a little-endian host it is the same bytes). */
static hid_t hs__h5_rowtype(const hs_sweep_t *sw, const hs_sweep_results_t *r,
                            hs__h5_layout_t *lay, int native)
{
    size_t na = hs_sweep_n_axes(sw), a, p, off = 0, i;
    const hs__col_t *c;
    hid_t t, m;
    int ok = 1;

    /* first pass: sizes */
    off = 8;
    for (a = 0; a < na; a++) {
        size_t l = 1;
        for (p = 0; p < r->n_points; p++) {
            size_t vl = strlen(hs_sweep_value(sw, p, a)) + 1;
            if (vl > l)
                l = vl;
        }
        lay->key_off[a] = off;
        lay->key_len[a] = l;
        off += l;
    }
    for (i = 0, c = hs__cols; c->name != NULL; c++, i++) {
        if (!hs__col_on(sw, c))
            continue;
        lay->col_off[i] = off;
        off += hs__h5_csize(c);
    }
    lay->code_off = off;
    off += 4;
    lay->err_len = 1;
    for (p = 0; p < r->n_points; p++)
        if (r->error[p] != NULL && strlen(r->error[p]) + 1 > lay->err_len)
            lay->err_len = strlen(r->error[p]) + 1;
    lay->err_off = off;
    off += lay->err_len;
    lay->row = off;

    t = H5Tcreate(H5T_COMPOUND, lay->row);
    if (t < 0)
        return -1;
    ok &= H5Tinsert(t, "point", 0, native ? H5T_NATIVE_UINT64
                                          : H5T_STD_U64LE) >= 0;
    for (a = 0; a < na && ok; a++) {
        m = hs__h5_fstr(lay->key_len[a]);
        ok &= m >= 0 && H5Tinsert(t, hs_sweep_axis(sw, a)->key,
                                  lay->key_off[a], m) >= 0;
        if (m >= 0)
            H5Tclose(m);
    }
    for (i = 0, c = hs__cols; c->name != NULL && ok; c++, i++) {
        if (!hs__col_on(sw, c))
            continue;
        if (native && c->kind != HS__STR)
            m = H5Tcopy(c->kind == HS__I64 ? H5T_NATIVE_INT64
                        : c->kind == HS__U64 ? H5T_NATIVE_UINT64
                                             : H5T_NATIVE_UINT32);
        else
            m = hs__h5_col_type(c);
        ok &= m >= 0 && H5Tinsert(t, c->name, lay->col_off[i], m) >= 0;
        if (m >= 0)
            H5Tclose(m);
    }
    ok &= H5Tinsert(t, "code", lay->code_off,
                    native ? H5T_NATIVE_INT32 : H5T_STD_I32LE) >= 0;
    m = hs__h5_fstr(lay->err_len);
    ok &= m >= 0 && H5Tinsert(t, "error", lay->err_off, m) >= 0;
    if (m >= 0)
        H5Tclose(m);
    if (!ok) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* Fills the rows of the /sweep table into buf (lay.row bytes each). */
static void hs__h5_fill(const hs_sweep_t *sw, const hs_sweep_results_t *r,
                        const hs__h5_layout_t *lay, unsigned char *buf)
{
    size_t na = hs_sweep_n_axes(sw), a, p, i;
    const hs__col_t *c;

    for (p = 0; p < r->n_points; p++) {
        unsigned char *row = buf + p * lay->row;
        const hs_sweep_rec_t *rec = &r->rec[p];
        uint64_t pt = p;
        int ok = r->error[p] == NULL;
        int32_t code = rec->code;

        memcpy(row, &pt, 8);
        for (a = 0; a < na; a++)
            strncpy((char *)row + lay->key_off[a], hs_sweep_value(sw, p, a),
                    lay->key_len[a] - 1);
        for (i = 0, c = hs__cols; c->name != NULL; c++, i++) {
            unsigned char *d = row + lay->col_off[i];
            if (!hs__col_on(sw, c) || !ok)
                continue;
            if (c->kind == HS__STR)
                strncpy((char *)d, hs__col_str(rec, c), c->len - 1);
            else if (c->kind == HS__U32) {
                uint32_t v = (uint32_t)hs__col_i64(rec, c);
                memcpy(d, &v, 4);
            } else {
                int64_t v = hs__col_i64(rec, c);
                memcpy(d, &v, 8);
            }
        }
        memcpy(row + lay->code_off, &code, 4);
        if (!ok)
            strncpy((char *)row + lay->err_off, r->error[p],
                    lay->err_len - 1);
    }
}

hs_err_t hs_sweep_write_h5(const hs_sweep_t *sw, const hs_sweep_results_t *r,
                           const char *path, hs_error_t *err)
{
    const hs_scenario_t *s = hs_sweep_base(sw);
    hs_atomic_t af = {NULL, NULL, NULL};
    hs__h5_layout_t lay;
    hid_t file = -1, fcpl = -1, dcpl = -1, ft = -1, mt = -1, sp = -1,
          ds = -1;
    hsize_t dim = r->n_points;
    unsigned char *buf = NULL;
    char hash[32];
    hs_err_t rc;
    int ok = 0;

    if (hs_sweep_n_axes(sw) > 64)
        return hs_error_set(err, HS_ERR_USAGE, path, 0, 0,
                            "HDF5 output takes at most 64 varied keys");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    rc = hs_atomic_open(&af, path, err);
    if (rc != HS_OK)
        return rc;
    hs_atomic_detach(&af);
    memset(&lay, 0, sizeof lay);
    ft = hs__h5_rowtype(sw, r, &lay, 0);
    mt = hs__h5_rowtype(sw, r, &lay, 1);
    buf = calloc(r->n_points ? r->n_points : 1, lay.row);
    fcpl = H5Pcreate(H5P_FILE_CREATE);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (ft < 0 || mt < 0 || buf == NULL || fcpl < 0 || dcpl < 0)
        goto done;
    hs__h5_fill(sw, r, &lay, buf);
    H5Pset_obj_track_times(fcpl, 0);
    H5Pset_obj_track_times(dcpl, 0);
    file = H5Fcreate(af.tmp_path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    sp = H5Screate_simple(1, &dim, NULL);
    if (file < 0 || sp < 0)
        goto done;
    ds = H5Dcreate2(file, "sweep", ft, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0 || H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        goto done;
    hs__scenario_hash(s, hash);
    if (hs__h5_attr(ds, "format", HS_SWEEP_FORMAT) < 0 ||
        hs__h5_attr(ds, "hetsim_version", HS_VERSION) < 0 ||
        hs__h5_attr(ds, "scenario_file", s->file ? s->file : "") < 0 ||
        hs__h5_attr(ds, "scenario_hash", hash) < 0 ||
        hs__h5_attr(ds, "options", hs_sweep_options_text(sw)) < 0 ||
        hs__h5_attr(ds, "time_unit", "ns") < 0 ||
        hs__h5_attr_u64(ds, "n_failed", r->n_failed) < 0)
        goto done;
    ok = 1;
done:
    if (ds >= 0 && H5Dclose(ds) < 0)
        ok = 0;
    if (sp >= 0)
        H5Sclose(sp);
    if (file >= 0 && H5Fclose(file) < 0)
        ok = 0;
    if (ft >= 0)
        H5Tclose(ft);
    if (mt >= 0)
        H5Tclose(mt);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    free(buf);
    if (!ok) {
        H5Eclear2(H5E_DEFAULT);
        hs_atomic_abort(&af);
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "cannot write the HDF5 sweep table");
    }
    return hs_atomic_commit(&af, err);
}

/* ---- by path -------------------------------------------------------- */

int hs_sweep_fmt_from_path(const char *path)
{
    const char *dot = strrchr(path, '.');

    if (dot == NULL)
        return -1;
    if (strcmp(dot, ".csv") == 0)
        return HS_SWEEP_FMT_CSV;
    if (strcmp(dot, ".json") == 0)
        return HS_SWEEP_FMT_JSON;
    if (strcmp(dot, ".h5") == 0 || strcmp(dot, ".hdf5") == 0)
        return HS_SWEEP_FMT_H5;
    if (strcmp(dot, ".txt") == 0)
        return HS_SWEEP_FMT_TABLE;
    return -1;
}

hs_err_t hs_sweep_write(const hs_sweep_t *sw, const hs_sweep_results_t *r,
                        hs_sweep_fmt_t fmt, const char *path,
                        hs_error_t *err)
{
    hs_atomic_t af = {NULL, NULL, NULL};
    hs_err_t rc;

    if (fmt == HS_SWEEP_FMT_H5)
        return hs_sweep_write_h5(sw, r, path, err);
    rc = hs_atomic_open(&af, path, err);
    if (rc != HS_OK)
        return rc;
    if (fmt == HS_SWEEP_FMT_CSV)
        rc = hs_sweep_write_csv(sw, r, af.f, err);
    else if (fmt == HS_SWEEP_FMT_JSON)
        rc = hs_sweep_write_json(sw, r, af.f, err);
    else
        rc = hs_sweep_print_table(sw, r, af.f, err);
    if (rc != HS_OK) {
        char msg[HS_ERRMSG_LEN];
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
        hs_atomic_abort(&af);
        return hs_error_set(err, rc, path, 0, 0, "%s", msg);
    }
    return hs_atomic_commit(&af, err);
}
