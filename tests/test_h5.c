/*
 * test_h5.c -- the HDF5 trace: what is written is what HDF5 reads back
 * (column by column, through types built here by member name, independent
 * of the writer's own), the layout h5dump shows, determinism, and that a
 * killed or failed run leaves no file at the final path.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include <hdf5.h>

#include "hs_h5.h"
#include "hs_synth.h"
#include "hs_test.h"

static const hs_synth_type_t hs__types[2] = {
    {"A100", 30000000, 40000000, 1500000, 60000000, 700000},
    {"MLU370", 20000000, 55000000, 2500000, 80000000, 900000}};

static const char *hs__text =
    "# synthetic scenario text\nname: synthetic\nsimulate: {seed: 42}\n";

/* FNV-1a 64, written out again here as the reference. */
static uint64_t hs__fnv(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* Feeds run r to the sink in blocks of irregular sizes (1, 7, one chunk +
   3, 2 chunks...), so every buffering path of the writer is taken. */
static hs_err_t hs__feed(hs_trace_sink_t *sink, const hs_synth_run_t *r,
                         hs_error_t *err)
{
    static const size_t sizes[] = {1, 7, HS_H5_CHUNK_ROWS + 3, 500,
                                   2 * HS_H5_CHUNK_ROWS, 13, 4096};
    size_t at = 0, k = 0;
    hs_err_t rc;

    while (at < r->n) {
        size_t b = sizes[k++ % (sizeof sizes / sizeof sizes[0])];
        if (b > r->n - at)
            b = r->n - at;
        if ((rc = sink->write(sink->ctx, r->iv + at, b, err)) != HS_OK)
            return rc;
        at += b;
    }
    at = 0;
    while (at < r->n_st) {
        size_t b = r->n_st - at < 5 ? r->n_st - at : 5;
        if ((rc = sink->steps(sink->ctx, r->st + at, b, err)) != HS_OK)
            return rc;
        at += b;
    }
    return HS_OK;
}

static hs_err_t hs__write(const char *path, const hs_scenario_t *s,
                          const hs_synth_run_t *r, hs_error_t *err)
{
    hs_h5_writer_t *w;
    hs_trace_sink_t sink;
    hs_err_t rc = hs_h5_writer_open(path, s, &w, &sink, err);

    if (rc != HS_OK)
        return rc;
    rc = hs__feed(&sink, r, err);
    if (rc != HS_OK) {
        hs_h5_writer_close(w, 0, NULL);
        return rc;
    }
    return hs_h5_writer_close(w, 1, err);
}

/* Reads one column of a 1-D compound dataset into buf (n elements of
   mem_type), through a one-member compound named `field`. */
static int hs__col(hid_t ds, const char *field, hid_t mem_type, size_t esz,
                   void *buf)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, esz);
    int rc;

    H5Tinsert(t, field, 0, mem_type);
    rc = H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0 ? -1 : 0;
    H5Tclose(t);
    return rc;
}

static char *hs__attr_str(hid_t f, const char *name)
{
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    char *v = NULL, *c;

    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    if (a < 0 || H5Aread(a, t, &v) < 0) {
        H5Tclose(t);
        if (a >= 0)
            H5Aclose(a);
        return strdup("<missing>");
    }
    c = strdup(v);
    H5free_memory(v);
    H5Tclose(t);
    H5Aclose(a);
    return c;
}

static void hs__check_file(const char *path, const hs_scenario_t *s,
                           const hs_synth_run_t *r)
{
    hid_t f, ds, sp, dcpl, ft, pt;
    hssize_t n;
    size_t i;
    uint32_t *u32 = malloc(r->n * sizeof *u32);
    int32_t *i32 = malloc(r->n * sizeof *i32);
    int64_t *i64 = malloc(r->n * sizeof *i64);
    uint64_t *u64 = malloc(r->n * sizeof *u64);
    uint8_t *u8 = malloc(r->n);
    char *v, want[40];
    unsigned bad = 0;

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CU_ASSERT_FATAL(f >= 0);

    /* /events: size, layout, filters, every column */
    ds = H5Dopen2(f, "events", H5P_DEFAULT);
    CU_ASSERT_FATAL(ds >= 0);
    sp = H5Dget_space(ds);
    n = H5Sget_simple_extent_npoints(sp);
    HS_ASSERT_I64_EQ(n, r->n);
    {
        hsize_t dim, maxd;
        H5Sget_simple_extent_dims(sp, &dim, &maxd);
        CU_ASSERT(maxd == H5S_UNLIMITED);
    }
    H5Sclose(sp);
    dcpl = H5Dget_create_plist(ds);
    CU_ASSERT(H5Pget_layout(dcpl) == H5D_CHUNKED);
    {
        hsize_t chunk = 0;
        unsigned flags, cd[8];
        size_t ncd = 8;
        H5Pget_chunk(dcpl, 1, &chunk);
        HS_ASSERT_I64_EQ(chunk, HS_H5_CHUNK_ROWS);
        HS_ASSERT_I64_EQ(H5Pget_nfilters(dcpl), 2);
        CU_ASSERT(H5Pget_filter2(dcpl, 0, &flags, &ncd, cd, 0, NULL, NULL) ==
                  H5Z_FILTER_SHUFFLE);
        ncd = 8;
        CU_ASSERT(H5Pget_filter2(dcpl, 1, &flags, &ncd, cd, 0, NULL, NULL) ==
                  H5Z_FILTER_DEFLATE);
    }
    H5Pclose(dcpl);
    ft = H5Dget_type(ds);
    HS_ASSERT_I64_EQ(H5Tget_nmembers(ft), 9);
    pt = H5Tget_member_type(ft, (unsigned)H5Tget_member_index(ft, "phase"));
    CU_ASSERT(H5Tget_class(pt) == H5T_ENUM);
    HS_ASSERT_I64_EQ(H5Tget_nmembers(pt), HS_PH_COUNT);
    {
        static const char *names[] = {"data_load", "forward",
            "backward_first", "backward_rest", "optimizer", "ring_send",
            "ring_wait", "data_wait", "ring_reduce", "hop_wait"};
        for (i = 0; i < HS_PH_COUNT; i++) {
            char nm[64] = "";
            uint8_t val = (uint8_t)i;
            H5Tenum_nameof(pt, &val, nm, sizeof nm);
            HS_ASSERT_STR_CONTAINS(nm, names[i]);
            CU_ASSERT(strcmp(nm, names[i]) == 0);
        }
    }
    H5Tclose(pt);
    H5Tclose(ft);

    CU_ASSERT(hs__col(ds, "device", H5T_NATIVE_UINT32, 4, u32) == 0);
    for (i = 0; i < r->n; i++)
        bad += u32[i] != r->iv[i].device;
    CU_ASSERT(hs__col(ds, "step", H5T_NATIVE_UINT32, 4, u32) == 0);
    for (i = 0; i < r->n; i++)
        bad += u32[i] != r->iv[i].step;
    {   /* the phase read through an integer: the enum's stored value */
        hid_t e = H5Tenum_create(H5T_NATIVE_UINT8);
        unsigned k;
        for (k = 0; k < HS_PH_COUNT; k++) {
            static const char *names[] = {"data_load", "forward",
                "backward_first", "backward_rest", "optimizer", "ring_send",
                "ring_wait", "data_wait", "ring_reduce", "hop_wait"};
            uint8_t val = (uint8_t)k;
            H5Tenum_insert(e, names[k], &val);
        }
        CU_ASSERT(hs__col(ds, "phase", e, 1, u8) == 0);
        H5Tclose(e);
    }
    for (i = 0; i < r->n; i++)
        bad += u8[i] != r->iv[i].phase;
    CU_ASSERT(hs__col(ds, "round", H5T_NATIVE_INT32, 4, i32) == 0);
    for (i = 0; i < r->n; i++)
        bad += i32[i] != r->iv[i].round;
    CU_ASSERT(hs__col(ds, "bucket", H5T_NATIVE_INT32, 4, i32) == 0);
    for (i = 0; i < r->n; i++)
        bad += i32[i] != r->iv[i].bucket;
    CU_ASSERT(hs__col(ds, "peer", H5T_NATIVE_INT32, 4, i32) == 0);
    for (i = 0; i < r->n; i++)
        bad += i32[i] != r->iv[i].peer;
    CU_ASSERT(hs__col(ds, "start_ns", H5T_NATIVE_INT64, 8, i64) == 0);
    for (i = 0; i < r->n; i++)
        bad += i64[i] != r->iv[i].start_ns;
    CU_ASSERT(hs__col(ds, "end_ns", H5T_NATIVE_INT64, 8, i64) == 0);
    for (i = 0; i < r->n; i++)
        bad += i64[i] != r->iv[i].end_ns;
    CU_ASSERT(hs__col(ds, "bytes", H5T_NATIVE_UINT64, 8, u64) == 0);
    for (i = 0; i < r->n; i++)
        bad += u64[i] != r->iv[i].bytes;
    HS_ASSERT_I64_EQ(bad, 0);
    H5Dclose(ds);

    /* /steps */
    ds = H5Dopen2(f, "steps", H5P_DEFAULT);
    CU_ASSERT_FATAL(ds >= 0);
    sp = H5Dget_space(ds);
    HS_ASSERT_I64_EQ(H5Sget_simple_extent_npoints(sp), r->n_st);
    H5Sclose(sp);
    bad = 0;
    hs__col(ds, "device", H5T_NATIVE_UINT32, 4, u32);
    for (i = 0; i < r->n_st; i++)
        bad += u32[i] != r->st[i].device;
    hs__col(ds, "step", H5T_NATIVE_UINT32, 4, u32);
    for (i = 0; i < r->n_st; i++)
        bad += u32[i] != r->st[i].step;
    hs__col(ds, "start_ns", H5T_NATIVE_INT64, 8, i64);
    for (i = 0; i < r->n_st; i++)
        bad += i64[i] != r->st[i].start_ns;
    hs__col(ds, "end_ns", H5T_NATIVE_INT64, 8, i64);
    for (i = 0; i < r->n_st; i++)
        bad += i64[i] != r->st[i].end_ns;
    hs__col(ds, "step_replay_ns", H5T_NATIVE_INT64, 8, i64);
    for (i = 0; i < r->n_st; i++)
        bad += i64[i] != r->st[i].sim_ns;
    hs__col(ds, "step_source_ns", H5T_NATIVE_INT64, 8, i64);
    for (i = 0; i < r->n_st; i++)
        bad += i64[i] != r->st[i].closed_ns;
    HS_ASSERT_I64_EQ(bad, 0);
    H5Dclose(ds);

    /* /devices */
    ds = H5Dopen2(f, "devices", H5P_DEFAULT);
    CU_ASSERT_FATAL(ds >= 0);
    sp = H5Dget_space(ds);
    HS_ASSERT_I64_EQ(H5Sget_simple_extent_npoints(sp), s->n_devices);
    H5Sclose(sp);
    bad = 0;
    hs__col(ds, "id", H5T_NATIVE_UINT32, 4, u32);
    for (i = 0; i < s->n_devices; i++)
        bad += u32[i] != i;
    hs__col(ds, "ring_pos", H5T_NATIVE_UINT32, 4, u32);
    for (i = 0; i < s->n_devices; i++)
        bad += u32[i] != s->devices[i].ring_pos;
    hs__col(ds, "type_index", H5T_NATIVE_UINT32, 4, u32);
    for (i = 0; i < s->n_devices; i++)
        bad += u32[i] != s->devices[i].type;
    {
        hid_t st = H5Tcopy(H5T_C_S1);
        char **names = calloc(s->n_devices, sizeof *names);
        const char *cols[3] = {"name", "type", "addr"};
        int c;
        H5Tset_size(st, H5T_VARIABLE);
        H5Tset_cset(st, H5T_CSET_UTF8);
        for (c = 0; c < 3; c++) {
            CU_ASSERT(hs__col(ds, cols[c], st, sizeof(char *), names) == 0);
            for (i = 0; i < s->n_devices; i++) {
                const hs_device_t *d = &s->devices[i];
                const char *w = c == 0 ? d->name
                                : c == 1 ? s->types[d->type].name : d->addr;
                bad += names[i] == NULL || strcmp(names[i], w) != 0;
                H5free_memory(names[i]);
            }
        }
        free(names);
        H5Tclose(st);
    }
    HS_ASSERT_I64_EQ(bad, 0);
    H5Dclose(ds);

    /* attributes */
    v = hs__attr_str(f, "scenario");
    CU_ASSERT(strcmp(v, s->text) == 0);
    free(v);
    snprintf(want, sizeof want, "fnv1a64:%016llx",
             (unsigned long long)hs__fnv(s->text));
    v = hs__attr_str(f, "scenario_hash");
    CU_ASSERT(strcmp(v, want) == 0);
    free(v);
    v = hs__attr_str(f, "overlap");
    CU_ASSERT(strcmp(v, "patent") == 0);
    free(v);
    v = hs__attr_str(f, "send");
    CU_ASSERT(strcmp(v, "rendezvous") == 0);
    free(v);
    v = hs__attr_str(f, "time_unit");
    CU_ASSERT(strcmp(v, "ns") == 0);
    free(v);
    v = hs__attr_str(f, "bytes_unit");
    CU_ASSERT(strcmp(v, "bytes") == 0);
    free(v);
    v = hs__attr_str(f, "hetsim_version");
    CU_ASSERT(strcmp(v, HS_VERSION) == 0);
    free(v);
    {
        uint64_t seed = 0;
        hid_t a = H5Aopen(f, "seed", H5P_DEFAULT);
        CU_ASSERT(a >= 0 && H5Aread(a, H5T_NATIVE_UINT64, &seed) >= 0);
        HS_ASSERT_I64_EQ(seed, s->seed);
        H5Aclose(a);
    }
    H5Fclose(f);
    free(u32);
    free(i32);
    free(i64);
    free(u64);
    free(u8);
}

static void test_roundtrip(void)
{
    hs_scenario_t *s = hs_synth_scenario(8, hs__types, 2, hs__text);
    hs_synth_run_t r;
    hs_error_t err;
    char path[4096];

    hs_synth_run(s, hs__types, 200, &r);
    CU_ASSERT(r.n > 2 * HS_H5_CHUNK_ROWS); /* several chunks */
    snprintf(path, sizeof path, "%s/run.h5", hs_test_tmpdir("h5rt"));
    if (hs__write(path, s, &r, &err) != HS_OK)
        fprintf(stderr, "%s\n", err.msg);
    hs__check_file(path, s, &r);
    hs_synth_run_free(&r);
    hs_synth_scenario_free(s);
}

/* The library's own reader gives back the same rows. */
typedef struct hs__cmp_s {
    const hs_synth_run_t *r;
    size_t at, bad;
} hs__cmp_t;

static int hs__cmp_block(void *ctx, const hs_interval_t *iv, size_t n)
{
    hs__cmp_t *c = ctx;
    size_t i;

    for (i = 0; i < n; i++, c->at++) {
        const hs_interval_t *w = &c->r->iv[c->at];
        c->bad += iv[i].device != w->device || iv[i].step != w->step ||
                  iv[i].phase != w->phase || iv[i].round != w->round ||
                  iv[i].peer != w->peer || iv[i].bucket != w->bucket ||
                  iv[i].start_ns != w->start_ns ||
                  iv[i].end_ns != w->end_ns || iv[i].bytes != w->bytes;
    }
    return 0;
}

static void test_reader(void)
{
    hs_scenario_t *s = hs_synth_scenario(5, hs__types, 2, hs__text);
    hs_synth_run_t r;
    hs_error_t err;
    hs_h5_run_t *run = NULL;
    hs__cmp_t c = {0};
    char path[4096];
    size_t i;

    hs_synth_run(s, hs__types, 40, &r);
    snprintf(path, sizeof path, "%s/run.h5", hs_test_tmpdir("h5rd"));
    CU_ASSERT_FATAL(hs__write(path, s, &r, &err) == HS_OK);
    CU_ASSERT_FATAL(hs_h5_run_load(path, &run, &err) == HS_OK);
    HS_ASSERT_I64_EQ(run->n_devices, 5);
    HS_ASSERT_I64_EQ(run->n_steps, r.n_st);
    HS_ASSERT_I64_EQ(run->n_events, r.n);
    HS_ASSERT_I64_EQ(run->seed, 42);
    CU_ASSERT(strcmp(run->scenario, hs__text) == 0);
    CU_ASSERT(strcmp(run->overlap, "patent") == 0);
    for (i = 0; i < 5; i++) {
        CU_ASSERT(strcmp(run->devices[i].name, s->devices[i].name) == 0);
        CU_ASSERT(strcmp(run->devices[i].type,
                         s->types[s->devices[i].type].name) == 0);
        HS_ASSERT_I64_EQ(run->devices[i].ring_pos, s->devices[i].ring_pos);
    }
    for (i = 0; i < r.n_st; i++)
        CU_ASSERT(memcmp(&run->steps[i], &r.st[i], sizeof r.st[i]) == 0);
    c.r = &r;
    CU_ASSERT(hs_h5_events_each(path, hs__cmp_block, &c, &err) == HS_OK);
    HS_ASSERT_I64_EQ(c.at, r.n);
    HS_ASSERT_I64_EQ(c.bad, 0);
    hs_h5_run_free(run);

    /* not a trace */
    CU_ASSERT(hs_h5_run_load("/nonexistent/x.h5", &run, &err) == HS_ERR_IO);
    CU_ASSERT(run == NULL);
    hs_synth_run_free(&r);
    hs_synth_scenario_free(s);
}

static void test_h5dump(void)
{
    hs_scenario_t *s = hs_synth_scenario(4, hs__types, 2, hs__text);
    hs_synth_run_t r;
    hs_error_t err;
    hs_run_t out;
    char path[4096];
    char *argv[] = {"/usr/bin/h5dump", "-H", path, NULL};

    if (access(argv[0], X_OK) != 0) {
        hs_test_skip("test_h5dump", "h5dump not installed (hdf5-tools)");
        hs_synth_scenario_free(s);
        return;
    }
    hs_synth_run(s, hs__types, 3, &r);
    snprintf(path, sizeof path, "%s/run.h5", hs_test_tmpdir("h5dump"));
    CU_ASSERT_FATAL(hs__write(path, s, &r, &err) == HS_OK);
    CU_ASSERT_FATAL(hs_run(argv, &out) == 0);
    HS_ASSERT_I64_EQ(out.status, 0);
    HS_ASSERT_STR_CONTAINS(out.out, "DATASET \"events\"");
    HS_ASSERT_STR_CONTAINS(out.out, "DATASET \"devices\"");
    HS_ASSERT_STR_CONTAINS(out.out, "DATASET \"steps\"");
    HS_ASSERT_STR_CONTAINS(out.out, "H5T_ENUM");
    HS_ASSERT_STR_CONTAINS(out.out, "\"ring_send\"");
    HS_ASSERT_STR_CONTAINS(out.out, "H5S_UNLIMITED");
    HS_ASSERT_STR_CONTAINS(out.out, "ATTRIBUTE \"scenario_hash\"");
    HS_ASSERT_STR_CONTAINS(out.out, "ATTRIBUTE \"hetsim_version\"");
    hs_run_free(&out);
    hs_synth_run_free(&r);
    hs_synth_scenario_free(s);
}

static int hs__read_all(const char *path, char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long n;

    if (f == NULL)
        return -1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *buf = malloc((size_t)n + 1);
    *len = fread(*buf, 1, (size_t)n, f);
    fclose(f);
    return 0;
}

static void test_deterministic(void)
{
    hs_scenario_t *s = hs_synth_scenario(5, hs__types, 2, hs__text);
    hs_synth_run_t r;
    hs_error_t err;
    char p1[4096], p2[4096];
    char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;

    hs_synth_run(s, hs__types, 30, &r);
    snprintf(p1, sizeof p1, "%s/a.h5", hs_test_tmpdir("h5det"));
    snprintf(p2, sizeof p2, "%s/b.h5", hs_test_tmpdir("h5det"));
    CU_ASSERT_FATAL(hs__write(p1, s, &r, &err) == HS_OK);
    CU_ASSERT_FATAL(hs__write(p2, s, &r, &err) == HS_OK);
    CU_ASSERT_FATAL(hs__read_all(p1, &a, &la) == 0);
    CU_ASSERT_FATAL(hs__read_all(p2, &b, &lb) == 0);
    HS_ASSERT_I64_EQ(la, lb);
    CU_ASSERT(la == lb && memcmp(a, b, la) == 0);
    free(a);
    free(b);
    hs_synth_run_free(&r);
    hs_synth_scenario_free(s);
}

/* Counts entries of dir whose name starts with prefix. */
static int hs__count_prefix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void hs__rm_prefix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[4400];

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
}

/* A run killed half way (SIGKILL) leaves no file at the final path and
   does not touch a good file already there. */
static void test_killed_run(void)
{
    hs_scenario_t *s = hs_synth_scenario(6, hs__types, 2, hs__text);
    hs_synth_run_t r;
    char dir[4096], path[4200];
    int pfd[2];
    pid_t pid;
    int st, k;
    struct stat sb;

    hs_synth_run(s, hs__types, 60, &r);
    snprintf(dir, sizeof dir, "%s", hs_test_tmpdir("h5kill"));
    for (k = 0; k < 2; k++) {
        char c = 0;
        snprintf(path, sizeof path, "%s/run%d.h5", dir, k);
        unlink(path);
        if (k == 1) {   /* a good file from an earlier run */
            FILE *f = fopen(path, "w");
            fputs("earlier good file\n", f);
            fclose(f);
        }
        CU_ASSERT_FATAL(pipe(pfd) == 0);
        pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            hs_h5_writer_t *w;
            hs_trace_sink_t sink;
            hs_error_t err;
            close(pfd[0]);
            if (hs_h5_writer_open(path, s, &w, &sink, &err) != HS_OK)
                _exit(3);
            /* some whole chunks reach the temporary file */
            if (sink.write(sink.ctx, r.iv, r.n / 2, &err) != HS_OK)
                _exit(4);
            if (write(pfd[1], "x", 1) != 1)
                _exit(5);
            for (;;)
                pause();
        }
        close(pfd[1]);
        CU_ASSERT(read(pfd[0], &c, 1) == 1 && c == 'x');
        close(pfd[0]);
        /* the temporary file is there and holds data */
        HS_ASSERT_I64_EQ(hs__count_prefix(dir, k ? "run1.h5.tmp."
                                                 : "run0.h5.tmp."), 1);
        kill(pid, SIGKILL);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        if (k == 0) {
            CU_ASSERT(stat(path, &sb) != 0 && errno == ENOENT);
        } else {
            char *buf = NULL;
            size_t len = 0;
            CU_ASSERT_FATAL(hs__read_all(path, &buf, &len) == 0);
            CU_ASSERT(len == 18 && memcmp(buf, "earlier good file\n", 18) ==
                                       0);
            free(buf);
        }
        hs__rm_prefix(dir, k ? "run1.h5.tmp." : "run0.h5.tmp.");
    }
    hs_synth_run_free(&r);
    hs_synth_scenario_free(s);
}

/* close(commit=0) removes the temporary file and creates nothing. */
static void test_abort_and_errors(void)
{
    hs_scenario_t *s = hs_synth_scenario(3, hs__types, 2, hs__text);
    hs_synth_run_t r;
    hs_h5_writer_t *w = NULL;
    hs_trace_sink_t sink;
    hs_error_t err;
    char dir[4096], path[4200], tmp[4300];
    struct stat sb;

    hs_synth_run(s, hs__types, 4, &r);
    snprintf(dir, sizeof dir, "%s", hs_test_tmpdir("h5abort"));
    snprintf(path, sizeof path, "%s/run.h5", dir);
    CU_ASSERT_FATAL(hs_h5_writer_open(path, s, &w, &sink, &err) == HS_OK);
    snprintf(tmp, sizeof tmp, "%s", hs_h5_writer_tmp_path(w));
    CU_ASSERT(stat(tmp, &sb) == 0);
    CU_ASSERT(sink.write(sink.ctx, r.iv, r.n, &err) == HS_OK);
    CU_ASSERT(hs_h5_writer_close(w, 0, &err) == HS_OK);
    CU_ASSERT(stat(tmp, &sb) != 0);
    CU_ASSERT(stat(path, &sb) != 0);
    HS_ASSERT_I64_EQ(hs__count_prefix(dir, "run.h5"), 0);
    CU_ASSERT(hs_h5_writer_close(NULL, 1, &err) == HS_OK);

    /* a directory that does not exist: an I/O error naming the path */
    w = (hs_h5_writer_t *)1;
    CU_ASSERT(hs_h5_writer_open("/nonexistent-dir/run.h5", s, &w, &sink,
                                &err) == HS_ERR_IO);
    CU_ASSERT(w == NULL);
    HS_ASSERT_STR_CONTAINS(err.msg, "/nonexistent-dir/run.h5");
    hs_synth_run_free(&r);
    hs_synth_scenario_free(s);
}

/* Fills cnt[phase] with the number of /events rows of each phase. */
static int hs__count_phases(void *ctx, const hs_interval_t *iv, size_t n)
{
    size_t *cnt = ctx, i;

    for (i = 0; i < n; i++)
        if (iv[i].phase < HS_PH_COUNT)
            cnt[iv[i].phase]++;
    return 0;
}

/*
 * End to end: `hetsim simulate --h5` on the two figure scenarios.  By hand
 * (scenario comments): T_ar = 6 x 12.5 MB / 1.25 GB/s + 6 x 50 us =
 * 60.3 ms; fig3: T(fast) = 30 + 2 + 60.3 = 92.3 ms, T(slow) = 40 + 3 +
 * 60.3 = 103.3 ms, and the ring waits for the slow devices, so the steady
 * step is 103.3 ms; fig4: t_dl = 150 ms rules, devices wait for data.
 */
static void test_simulate_figures(void)
{
    static const struct {
        const char *scn;
        int64_t closed_fast, closed_slow, step;
        int data_wait;
    } fig[2] = {
        {"fig3-compute-bound.yaml", 92300000, 103300000, 103300000, 0},
        {"fig4-dataload-bound.yaml", 150000000, 150000000, 150000000, 1}};
    int k;

    for (k = 0; k < 2; k++) {
        char scn[4096], path[4200];
        hs_run_t out;
        hs_h5_run_t *run = NULL;
        hs_error_t err;
        size_t i, cnt[HS_PH_COUNT] = {0}, bad = 0;
        int64_t smax[4] = {0};

        snprintf(scn, sizeof scn, "%s/scenarios/%s", HS_TEST_SRC,
                 fig[k].scn);
        snprintf(path, sizeof path, "%s/fig%d.h5", hs_test_tmpdir("h5sim"),
                 k + 3);
        CU_ASSERT_FATAL(hs_run_hetsim(&out, "simulate", scn, "--h5", path,
                                      NULL) == 0);
        if (out.status != 0)
            fprintf(stderr, "%s%s", out.out, out.err);
        HS_ASSERT_I64_EQ(out.status, 0);
        hs_run_free(&out);
        CU_ASSERT_FATAL(hs_h5_run_load(path, &run, &err) == HS_OK);
        HS_ASSERT_I64_EQ(run->n_devices, 4);
        HS_ASSERT_I64_EQ(run->n_steps, 16);     /* 4 devices x 4 steps */
        CU_ASSERT(strcmp(run->overlap, "patent") == 0);
        HS_ASSERT_I64_EQ(run->seed, 1);
        for (i = 0; i < run->n_steps; i++) {
            const hs_step_rec_t *q = &run->steps[i];
            int slow = strcmp(run->devices[q->device].type, "slow") == 0;
            bad += q->closed_ns !=
                   (slow ? fig[k].closed_slow : fig[k].closed_fast);
            if (q->step < 4 && q->sim_ns > smax[q->step])
                smax[q->step] = q->sim_ns;
        }
        HS_ASSERT_I64_EQ(bad, 0);
        for (i = 1; i < 4; i++)
            HS_ASSERT_I64_EQ(smax[i], fig[k].step);
        CU_ASSERT(hs_h5_events_each(path, hs__count_phases, cnt, &err) ==
                  HS_OK);
        /* per device and step: forward, first backward, 6 ring sends */
        HS_ASSERT_I64_EQ(cnt[HS_PH_FORWARD], 16);
        HS_ASSERT_I64_EQ(cnt[HS_PH_BACKWARD_FIRST], 16);
        HS_ASSERT_I64_EQ(cnt[HS_PH_RING_SEND], 16 * 6);
        CU_ASSERT(cnt[HS_PH_DATA_LOAD] >= 16);
        CU_ASSERT(fig[k].data_wait ? cnt[HS_PH_DATA_WAIT] > 0
                                   : cnt[HS_PH_DATA_WAIT] == 0);
        hs_h5_run_free(run);
    }
}

static int hs__register(void)
{
    CU_pSuite su = CU_add_suite("h5", NULL, NULL);

    if (su == NULL)
        return -1;
    CU_add_test(su, "roundtrip", test_roundtrip);
    CU_add_test(su, "reader", test_reader);
    CU_add_test(su, "h5dump", test_h5dump);
    CU_add_test(su, "deterministic", test_deterministic);
    CU_add_test(su, "killed_run", test_killed_run);
    CU_add_test(su, "abort_and_errors", test_abort_and_errors);
    CU_add_test(su, "simulate_figures", test_simulate_figures);
    return 0;
}

HS_TEST_MAIN(hs__register)
