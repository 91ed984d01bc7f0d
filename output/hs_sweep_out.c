/*
 * hs_sweep_out.c -- writers for a sweep's results (hs_sweep_out.h): the
 * columns are listed once, in hs__cols, and every writer walks that list,
 * so the formats cannot drift apart.
 */
#include "hs_sweep_out.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>
#include <yajl/yajl_gen.h>

#include "hs_answer.h"
#include "hs_atomic.h"
#include "hs_h5_attr.h"
#include "hs_limits.h"
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
    int time;           /* a time in ns (the table prints it in units) */
} hs__col_t;

#define HS__OFF(f) offsetof(hs_sweep_rec_t, f)
#define HS__LEN(f) sizeof(((hs_sweep_rec_t *)0)->f)

static const hs__col_t hs__cols[] = {
    {"n_devices", HS__U32, HS__OFF(n_devices), 0, 0},
    {"predictor_recommended", HS__STR, 0, 16, 0},  /* from the enum */
    {"step_recommended_ns", HS__I64, HS__OFF(step_recommended_ns), 0, 1},
    {"epoch_recommended_ns", HS__I64, HS__OFF(epoch_recommended_ns), 0, 1},
    {"total_recommended_ns", HS__I64, HS__OFF(total_recommended_ns), 0, 1},
    {"step_source_ns", HS__I64, HS__OFF(step_source_ns), 0, 1},
    {"epoch_source_ns", HS__I64, HS__OFF(epoch_source_ns), 0, 1},
    {"total_source_ns", HS__I64, HS__OFF(total_source_ns), 0, 1},
    {"step_extended_ns", HS__I64, HS__OFF(step_extended_ns), 0, 1},
    {"epoch_extended_ns", HS__I64, HS__OFF(epoch_extended_ns), 0, 1},
    {"total_extended_ns", HS__I64, HS__OFF(total_extended_ns), 0, 1},
    {"step_replay_ns", HS__I64, HS__OFF(step_replay_ns), 0, 1},
    {"epoch_replay_ns", HS__I64, HS__OFF(epoch_replay_ns), 0, 1},
    {"total_replay_ns", HS__I64, HS__OFF(total_replay_ns), 0, 1},
    {"iters_per_epoch", HS__U64, HS__OFF(iters_per_epoch), 0, 0},
    {"bottleneck_device", HS__STR, HS__OFF(bottleneck_device),
     HS__LEN(bottleneck_device), 0},
    {"bottleneck_bound", HS__STR, 0, 16, 0},  /* from the enum */
    {"bottleneck_link", HS__STR, HS__OFF(bottleneck_link),
     HS__LEN(bottleneck_link), 0},
    {NULL, HS__I64, 0, 0, 0}};

/* Every column is in every output (the replay's are empty, null or -1
   where a point was not replayed), so a file's columns do not depend on
   how it was made. */

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
    if (strcmp(c->name, "predictor_recommended") == 0)
        return hs_predictor_name((hs_predictor_t)r->predictor);
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

    fprintf(f, "# format: %s, format_version: %d (docs/output.md)\n",
            HS_SWEEP_FORMAT, HS_SWEEP_FORMAT_VERSION);
    for (a = 0; a < na; a++) {
        hs__csv_field(f, hs_sweep_axis(sw, a)->key);
        fputc(',', f);
    }
    for (c = hs__cols; c->name != NULL; c++)
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
            if (ok && c->kind == HS__STR)
                hs__csv_field(f, hs__col_str(rec, c));
            else if (ok && !(c->time && hs__col_i64(rec, c) < 0))
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
    hs__js(g, "format_version");
    yajl_gen_integer(g, HS_SWEEP_FORMAT_VERSION);
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
            hs__js(g, c->name);
            if (!ok || (c->time && hs__col_i64(rec, c) < 0))
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
    if (c->time && hs__col_i64(rec, c) < 0)
        return "-";
    if (c->time)
        return hs_fmt_time(hs__col_i64(rec, c), buf, len);
    snprintf(buf, len, "%" PRId64, hs__col_i64(rec, c));
    return buf;
}

/* The terminal table: the recommended predictor's figures, every
   predictor's step, the bottleneck device; CSV, JSON and HDF5 have every
   column. */
static const struct {
    const char *col, *head;
} hs__table_heads[] = {
    {"n_devices", "devices"},
    {"predictor_recommended", "predictor"},
    {"step_recommended_ns", "step"},
    {"epoch_recommended_ns", "epoch"},
    {"total_recommended_ns", "total"},
    {"step_source_ns", "step (source)"},
    {"step_extended_ns", "step (extended)"},
    {"step_replay_ns", "step (replay)"},
    {"bottleneck_device", "bottleneck"},
    {NULL, NULL}};

/* The table's header of column c, NULL when the table leaves it out. */
static const char *hs__table_head(const hs__col_t *c)
{
    size_t i;

    for (i = 0; hs__table_heads[i].col != NULL; i++)
        if (strcmp(hs__table_heads[i].col, c->name) == 0)
            return hs__table_heads[i].head;
    return NULL;
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
        if (hs__table_head(c) == NULL)
            continue;
        *wc = strlen(hs__table_head(c));
        for (p = 0; p < r->n_points; p++) {
            size_t l = strlen(hs__cell(sw, r, p, c, buf, sizeof buf));
            if (l > *wc)
                *wc = l;
        }
    }
    for (a = 0; a < na; a++)
        fprintf(f, "%-*s  ", (int)w[a], hs_sweep_axis(sw, a)->key);
    for (i = 0, c = hs__cols; c->name != NULL; c++, i++)
        if (hs__table_head(c) != NULL)
            fprintf(f, "%*s  ", (int)w[na + i], hs__table_head(c));
    fputs("error\n", f);
    for (p = 0; p < r->n_points; p++) {
        for (a = 0; a < na; a++)
            fprintf(f, "%-*s  ", (int)w[a], hs_sweep_value(sw, p, a));
        for (i = 0, c = hs__cols; c->name != NULL; c++, i++)
            if (hs__table_head(c) != NULL)
                fprintf(f, "%*s  ", (int)w[na + i],
                        hs__cell(sw, r, p, c, buf, sizeof buf));
        fprintf(f, "%s\n", r->error[p] ? r->error[p] : "");
    }
    fprintf(f, "%zu points, %zu failed; step, epoch and total by the "
               "recommended predictor of each point (docs/output.md)\n",
            r->n_points, r->n_failed);
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
            if (!ok)
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
    hs_atomic_t af = {NULL, NULL, NULL, 0};
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
    hs_h5_init();
    rc = hs_atomic_check_target(path, 0, err);
    if (rc == HS_OK)
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
    if (hs_h5_attr_str(ds, "format", HS_SWEEP_FORMAT) < 0 ||
        hs_h5_attr_u64(ds, "format_version", HS_SWEEP_FORMAT_VERSION) < 0 ||
        hs_h5_attr_str(ds, "hetsim_version", HS_VERSION) < 0 ||
        hs_h5_attr_str(ds, "scenario_file", s->file ? s->file : "") < 0 ||
        hs_h5_attr_str(ds, "scenario_hash", hash) < 0 ||
        hs_h5_attr_str(ds, "options", hs_sweep_options_text(sw)) < 0 ||
        hs_h5_attr_str(ds, "time_unit", "ns") < 0 ||
        hs_h5_attr_u64(ds, "n_failed", r->n_failed) < 0)
        goto done;
    if (H5Fflush(file, H5F_SCOPE_LOCAL) < 0)
        goto done;
    ok = 1;
done:
    if (!ok)
        hs_h5_abandon(af.tmp_path);
    if (ds >= 0 && H5Dclose(ds) < 0)
        ok = 0;
    if (sp >= 0)
        H5Sclose(sp);
    if (file >= 0 && hs_h5_file_close(file, af.tmp_path, ok) < 0)
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
    hs_atomic_t af = {NULL, NULL, NULL, 0};
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

/* ---- reading a sweep CSV back --------------------------------------- */

/* Splits line (no newline) into fields in place, RFC 4180 quotes within
   one line.  Returns the number of fields, or -(1 + byte offset) at a
   malformed quote. */
static long hs__csv_split(char *line, char **f, size_t max)
{
    char *r = line, *w;
    size_t n = 0;

    for (;;) {
        char *start = r;
        if (n == max)
            return -1;
        if (*r == '"') {
            w = start;
            r++;
            for (;;) {
                if (*r == '\0')
                    return -(1 + (long)(start - line));
                if (*r == '"' && r[1] == '"') {
                    *w++ = '"';
                    r += 2;
                } else if (*r == '"') {
                    r++;
                    break;
                } else {
                    *w++ = *r++;
                }
            }
            if (*r != ',' && *r != '\0')
                return -(1 + (long)(r - line));
            f[n++] = start;
            if (*r == '\0') {
                *w = '\0';
                return (long)n;
            }
            *w = '\0';
            r++;
        } else {
            char *c = strchr(r, ',');
            f[n++] = start;
            if (c == NULL)
                return (long)n;
            *c = '\0';
            r = c + 1;
        }
    }
}

void hs_sweep_table_free(hs_sweep_table_t *t)
{
    size_t i;

    if (t == NULL)
        return;
    for (i = 0; i < t->n_keys; i++)
        free(t->keys[i]);
    free(t->keys);
    for (i = 0; i < t->n_rows * t->n_keys; i++)
        free(t->values[i]);
    free(t->values);
    free(t->fig);
    free(t);
}

#define HS__TAB_MAXCOLS 256

/* The figures' column names: format 2's, then format 1's. */
static const char *const hs__tab_figs[HS_SWEEP_TAB_FIGS] = {
    "step_source_ns", "epoch_source_ns", "total_source_ns",
    "step_replay_ns", "epoch_replay_ns", "total_replay_ns"};
static const char *const hs__tab_figs1[HS_SWEEP_TAB_FIGS] = {
    "step_ns", "epoch_ns", "total_ns", "replay_step_ns",
    "replay_epoch_ns", "replay_total_ns"};

/* The state of hs_sweep_table_read between lines; t is owned by the
   reader until it is handed out. */
typedef struct {
    const char *path;
    hs_sweep_table_t *t;
    int fcol[HS_SWEEP_TAB_FIGS];    /* each figure's column, -1 none */
    long kcol[HS__TAB_MAXCOLS];     /* each key's column */
    size_t rows_cap;
    unsigned long lineno;
} hs__tab_rd_t;

/* Opens path for reading into *in: a regular file of at most
   HS_LIMIT_FILE_BYTES, so that its size bounds a line. Fills err. */
static hs_err_t hs__tab_open(const char *path, FILE **in, hs_error_t *err)
{
    struct stat st;

    *in = fopen(path, "r");
    if (*in == NULL)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot read: %s",
                            strerror(errno));
    if (fstat(fileno(*in), &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > HS_LIMIT_FILE_BYTES) {
        fclose(*in);
        *in = NULL;
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "not a regular file of at most 1 GiB");
    }
    return HS_OK;
}

/* Reads the header's n fields f: the figures' columns and the keys
   (format 2 or 1: the columns before n_devices; the old n,closed_ns,
   sim_ns form: n). rd->t owns the key names. Fills err on a header that
   is neither. */
static hs_err_t hs__tab_header(hs__tab_rd_t *rd, char **f, long n,
                               hs_error_t *err)
{
    hs_sweep_table_t *t = rd->t;
    long nd = -1, i;
    size_t k;

    for (i = 0; i < HS_SWEEP_TAB_FIGS; i++)
        rd->fcol[i] = -1;
    for (i = 0; i < n; i++) {
        for (k = 0; k < HS_SWEEP_TAB_FIGS; k++)
            if (strcmp(f[i], hs__tab_figs[k]) == 0 ||
                strcmp(f[i], hs__tab_figs1[k]) == 0)
                rd->fcol[k] = (int)i;
        if (strcmp(f[i], "n_devices") == 0 && nd < 0)
            nd = i;
    }
    t->keys = calloc((size_t)n, sizeof *t->keys);
    if (t->keys == NULL)
        goto nomem;
    if (nd > 0 && rd->fcol[HS_SWEEP_TAB_STEP] >= 0) {
        for (i = 0; i < nd; i++) {
            rd->kcol[t->n_keys] = i;
            if ((t->keys[t->n_keys++] = strdup(f[i])) == NULL)
                goto nomem;
        }
    } else {
        long cn = -1, cc = -1, cs = -1;
        for (i = 0; i < n; i++) {
            cn = strcmp(f[i], "n") == 0 ? i : cn;
            cc = strcmp(f[i], "closed_ns") == 0 ? i : cc;
            cs = strcmp(f[i], "sim_ns") == 0 ? i : cs;
        }
        if (cn < 0 || cc < 0 || cs < 0)
            return hs_error_set(err, HS_ERR_SCHEMA, rd->path, rd->lineno, 1,
                                "not a sweep's header: expected the "
                                "varied keys, then n_devices, "
                                "step_ns, ... (hetsim sweep), or "
                                "n,closed_ns,sim_ns");
        rd->kcol[0] = cn;
        if ((t->keys[t->n_keys++] = strdup("n")) == NULL)
            goto nomem;
        rd->fcol[HS_SWEEP_TAB_STEP] = (int)cc;
        rd->fcol[HS_SWEEP_TAB_RSTEP] = (int)cs;
    }
    t->has_replay = rd->fcol[HS_SWEEP_TAB_RSTEP] >= 0;
    return HS_OK;
nomem:
    return hs_error_set(err, HS_ERR_NOMEM, rd->path, 0, 0, "out of memory");
}

/* Appends the data row f (fields of line) to rd->t: its figures (-1 when
   empty) and its keys' values, which rd->t owns. Fills err on a figure
   that is not a non-negative number. */
static hs_err_t hs__tab_row(hs__tab_rd_t *rd, const char *line, char **f,
                            hs_error_t *err)
{
    hs_sweep_table_t *t = rd->t;
    const int *fcol = rd->fcol;
    size_t r, k;

    if (t->n_rows == rd->rows_cap) {
        size_t nc = rd->rows_cap ? 2 * rd->rows_cap : 64;
        char **nv = realloc(t->values, nc * t->n_keys * sizeof *nv);
        int64_t *nf;
        if (nv == NULL)
            goto nomem;
        t->values = nv;
        nf = realloc(t->fig, nc * HS_SWEEP_TAB_FIGS * sizeof *nf);
        if (nf == NULL)
            goto nomem;
        t->fig = nf;
        rd->rows_cap = nc;
    }
    r = t->n_rows;
    for (k = 0; k < HS_SWEEP_TAB_FIGS; k++) {
        int64_t *v = &t->fig[r * HS_SWEEP_TAB_FIGS + k];
        const char *x = fcol[k] >= 0 ? f[fcol[k]] : "";
        char *end;
        double d;
        *v = -1;
        if (*x == '\0')
            continue;
        errno = 0;
        d = strtod(x, &end);
        if (end == x || *end != '\0' || errno != 0 || !(d >= 0) ||
            d > 9.2e18 || !((*x >= '0' && *x <= '9') || *x == '.'))
            return hs_error_set(err, HS_ERR_SYNTAX, rd->path, rd->lineno,
                                (unsigned long)(f[fcol[k]] - line) + 1,
                                "column %d (%s): '%s' is not a "
                                "non-negative number", fcol[k] + 1,
                                hs__tab_figs[k], x);
        *v = (int64_t)(d + 0.5);
    }
    for (k = 0; k < t->n_keys; k++)
        t->values[r * t->n_keys + k] = NULL;
    t->n_rows++;
    for (k = 0; k < t->n_keys; k++)
        if ((t->values[r * t->n_keys + k] = strdup(f[rd->kcol[k]])) == NULL)
            goto nomem;
    return HS_OK;
nomem:
    return hs_error_set(err, HS_ERR_NOMEM, rd->path, 0, 0, "out of memory");
}

hs_err_t hs_sweep_table_read(const char *path, hs_sweep_table_t **out,
                             hs_error_t *err)
{
    FILE *in;
    hs__tab_rd_t rd;
    hs_sweep_table_t *t = NULL;
    char *line = NULL, *f[HS__TAB_MAXCOLS];
    size_t cap = 0;
    long ncols = 0, n;
    ssize_t len;
    hs_err_t rc = HS_OK;

    *out = NULL;
    memset(&rd, 0, sizeof rd);
    rd.path = path;
    if ((rc = hs__tab_open(path, &in, err)) != HS_OK)
        return rc;
    t = rd.t = calloc(1, sizeof *t);
    if (t == NULL)
        goto nomem;
    while ((len = getline(&line, &cap, in)) >= 0) {
        rd.lineno++;
        if (len > HS_LIMIT_CSV_LINE) {
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, rd.lineno,
                              HS_LIMIT_CSV_LINE + 1,
                              "the line is longer than %d bytes (the limit)",
                              HS_LIMIT_CSV_LINE);
            goto done;
        }
        if (strlen(line) != (size_t)len) {
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, rd.lineno,
                              (unsigned long)strlen(line) + 1,
                              "a NUL byte: a sweep CSV is text");
            goto done;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        n = hs__csv_split(line, f, HS__TAB_MAXCOLS);
        if (n < 0) {
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, rd.lineno,
                              n == -1 ? 1 : (unsigned long)(-n),
                              n == -1 ? "more than %d columns"
                                      : "a malformed quoted field%.0d",
                              HS__TAB_MAXCOLS);
            goto done;
        }
        if (ncols == 0) {   /* the header */
            if ((rc = hs__tab_header(&rd, f, n, err)) != HS_OK)
                goto done;
            ncols = n;
            continue;
        }
        if (n != ncols) {
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, rd.lineno, 1,
                              "expected %ld columns, found %ld", ncols, n);
            goto done;
        }
        if ((rc = hs__tab_row(&rd, line, f, err)) != HS_OK)
            goto done;
    }
    if (t->has_replay) {
        /* format 2 always has the replay's columns: a replay is there
           when some point has one */
        size_t r;

        t->has_replay = 0;
        for (r = 0; r < t->n_rows; r++)
            if (t->fig[r * HS_SWEEP_TAB_FIGS + HS_SWEEP_TAB_RSTEP] >= 0)
                t->has_replay = 1;
    }
    if (ncols == 0) {
        rc = hs_error_set(err, HS_ERR_SCHEMA, path, 0, 0,
                          "empty: no header and no rows");
        goto done;
    }
    goto done;
nomem:
    rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
done:
    free(line);
    fclose(in);
    if (rc != HS_OK) {
        hs_sweep_table_free(t);
        return rc;
    }
    *out = t;
    return HS_OK;
}
