/*
 * hs_fuzz.c -- the shared fuzz entry points (see hs_fuzz.h).
 *
 * Compiled into every libFuzzer target (fuzz/CMakeLists.txt) and included
 * by tests/test_fuzz_regress.c, so that a regression file replays through
 * exactly the code that found it.  Only public library headers are used.
 */
#include "hs_fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "hs_ingest.h"
#include "hs_scenario.h"
#include "hs_units.h"

#ifndef HS_FUZZ_DATA_DIR
#define HS_FUZZ_DATA_DIR HS_SOURCE_DIR "/fuzz/data"
#endif

/* ---- helpers ------------------------------------------------------------ */

/* A broken library contract: report and abort (libFuzzer sees a crash). */
#define HS__FUZZ_CHECK(cond)                                                 \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: fuzz contract broken: %s\n", __FILE__,   \
                    __LINE__, #cond);                                        \
            abort();                                                         \
        }                                                                    \
    } while (0)

static char hs__fuzz_dir[256];

static void hs__fuzz_rmdir(void)
{
    DIR *d;
    struct dirent *e;
    char p[512];

    if (hs__fuzz_dir[0] == '\0' || (d = opendir(hs__fuzz_dir)) == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", hs__fuzz_dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(hs__fuzz_dir);
}

/* This process's temporary directory (made once, removed at exit). */
static const char *hs__fuzz_tmpdir(void)
{
    const char *t;

    if (hs__fuzz_dir[0] != '\0')
        return hs__fuzz_dir;
    t = getenv("TMPDIR");
    snprintf(hs__fuzz_dir, sizeof hs__fuzz_dir, "%s/hs-fuzz-XXXXXX",
             t != NULL && t[0] != '\0' ? t : "/tmp");
    HS__FUZZ_CHECK(mkdtemp(hs__fuzz_dir) != NULL);
    atexit(hs__fuzz_rmdir);
    return hs__fuzz_dir;
}

/* dir/name into buf. */
static const char *hs__fuzz_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", hs__fuzz_tmpdir(), name);
    return buf;
}

/* The gzip writer: one deflate stream for the process, reset per input,
   and its output buffer (grown to deflateBound).  gzopen/gzwrite would
   set up a fresh ~270 KiB deflate state and buffers for every input --
   under ASan most of the trace target's time.  Level 1 (gzwrite's
   default is 6): the reader's inflate takes the same paths (a gzip
   wrapper, 32 KiB window, stored/fixed/dynamic blocks as the data asks)
   and the fuzzer's time goes to the parser, not to compressing. */
static z_stream hs__fuzz_zs;
static int hs__fuzz_zs_ready;
static unsigned char *hs__fuzz_zbuf;
static size_t hs__fuzz_zcap;

static void hs__fuzz_zfree(void)
{
    if (hs__fuzz_zs_ready)
        deflateEnd(&hs__fuzz_zs);
    hs__fuzz_zs_ready = 0;
    free(hs__fuzz_zbuf);
    hs__fuzz_zbuf = NULL;
    hs__fuzz_zcap = 0;
}

/* data, gzip-compressed, into hs__fuzz_zbuf; returns its length. */
static size_t hs__fuzz_gzip(const uint8_t *data, size_t size)
{
    size_t need;

    if (!hs__fuzz_zs_ready) {
        memset(&hs__fuzz_zs, 0, sizeof hs__fuzz_zs);
        HS__FUZZ_CHECK(deflateInit2(&hs__fuzz_zs, 1,
                                    Z_DEFLATED, 15 + 16, 8,
                                    Z_DEFAULT_STRATEGY) == Z_OK);
        hs__fuzz_zs_ready = 1;
        atexit(hs__fuzz_zfree);
    } else {
        HS__FUZZ_CHECK(deflateReset(&hs__fuzz_zs) == Z_OK);
    }
    need = deflateBound(&hs__fuzz_zs, (uLong)size);
    if (need > hs__fuzz_zcap) {
        unsigned char *p = realloc(hs__fuzz_zbuf, need);

        HS__FUZZ_CHECK(p != NULL);
        hs__fuzz_zbuf = p;
        hs__fuzz_zcap = need;
    }
    hs__fuzz_zs.next_in = (Bytef *)(uintptr_t)data;
    hs__fuzz_zs.avail_in = (uInt)size;
    hs__fuzz_zs.next_out = hs__fuzz_zbuf;
    hs__fuzz_zs.avail_out = (uInt)hs__fuzz_zcap;
    HS__FUZZ_CHECK(deflate(&hs__fuzz_zs, Z_FINISH) == Z_STREAM_END);
    return (size_t)hs__fuzz_zs.total_out;
}

/* Writes data to path, gzip-compressed when gz. */
static void hs__fuzz_write(const char *path, const uint8_t *data,
                           size_t size, int gz)
{
    int fd;
    size_t done = 0;

    if (gz) {
        size = hs__fuzz_gzip(data, size);
        data = hs__fuzz_zbuf;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    HS__FUZZ_CHECK(fd >= 0);
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);

        if (n < 0 && errno == EINTR)
            continue;
        HS__FUZZ_CHECK(n > 0);
        done += (size_t)n;
    }
    HS__FUZZ_CHECK(close(fd) == 0);
}

/* The contract every fallible call keeps on its way out. */
static hs_err_t hs__fuzz_verdict(hs_err_t rc, const hs_error_t *err)
{
    HS__FUZZ_CHECK(rc >= HS_OK && rc <= HS_ERR_RANK);
    if (rc != HS_OK)
        HS__FUZZ_CHECK(err->msg[0] != '\0');
    return rc;
}

/* ---- units -------------------------------------------------------------- */

static int hs__fuzz_call_units(const char *text)
{
    int64_t t_ns;
    uint64_t bytes;
    double bw_bytes_per_s;
    char buf[64];
    int ok = 0;

    if (hs_parse_time_ns(text, &t_ns) == 0) {
        HS__FUZZ_CHECK(t_ns >= 0);
        hs_fmt_time(t_ns, buf, sizeof buf);
        HS__FUZZ_CHECK(memchr(buf, '\0', sizeof buf) != NULL);
        ok = 1;
    }
    if (hs_parse_bytes(text, &bytes) == 0) {
        hs_fmt_bytes(bytes, buf, sizeof buf);
        HS__FUZZ_CHECK(memchr(buf, '\0', sizeof buf) != NULL);
        ok = 1;
    }
    if (hs_parse_bandwidth(text, &bw_bytes_per_s) == 0) {
        HS__FUZZ_CHECK(bw_bytes_per_s > 0);
        hs_fmt_bandwidth(bw_bytes_per_s, buf, sizeof buf);
        HS__FUZZ_CHECK(memchr(buf, '\0', sizeof buf) != NULL);
        (void)hs_xfer_ns(1e6, bw_bytes_per_s);
        ok = 1;
    }
    return ok;
}

hs_err_t hs_fuzz_units(const uint8_t *data, size_t size, hs_error_t *err)
{
    char *text = malloc(size + 1);
    int ok;

    HS__FUZZ_CHECK(text != NULL);
    hs_error_clear(err);
    if (size > 0)
        memcpy(text, data, size);
    text[size] = '\0';
    ok = hs__fuzz_call_units(text);
    free(text);
    if (ok)
        return HS_OK;
    return hs_error_setf(err, HS_ERR_UNIT, "no unit parser accepts it");
}

/* ---- scenario ----------------------------------------------------------- */

static hs_err_t hs__fuzz_call_scenario(const char *text, size_t len,
                                       const char *base_dir,
                                       hs_error_t *err)
{
    hs_scenario_t *s = NULL;
    hs_err_t rc = hs_scenario_load_text(text, len, "fuzz.yaml", base_dir, &s,
                                        err);

    if (rc == HS_OK) {
        HS__FUZZ_CHECK(s != NULL);
        HS__FUZZ_CHECK(s->n_devices == 0 || s->ring != NULL);
        for (size_t k = 0; k < s->n_devices; k++)
            HS__FUZZ_CHECK(s->ring[k] < s->n_devices);
        (void)hs_scenario_require_profiles(s, err);
        hs_error_clear(err);
    } else {
        HS__FUZZ_CHECK(s == NULL);
    }
    hs_scenario_free(s);
    return rc;
}

hs_err_t hs_fuzz_scenario(const uint8_t *data, size_t size, hs_error_t *err)
{
    static int csv_written;
    char csv[512];

    /* an empty links_csv, so that scenarios naming "links.csv" (the
       testbed templates) get past it */
    if (!csv_written) {
        hs__fuzz_write(hs__fuzz_path(csv, sizeof csv, "links.csv"),
                       (const uint8_t *)"", 0, 0);
        csv_written = 1;
    }
    hs_error_clear(err);
    return hs__fuzz_verdict(hs__fuzz_call_scenario((const char *)data, size,
                                                   hs__fuzz_tmpdir(), err),
                            err);
}

/* ---- links CSV ---------------------------------------------------------- */

static const char hs__fuzz_csv_scenario[] =
    "name: fuzz-links\n"
    "device_types:\n"
    "  - name: t\n"
    "    count: 4\n"
    "    batch: 8\n"
    "    profile: {t_dl: 1ms, t_fwd: 2ms, t_b1: 100us, allreduce_bytes: 1MB, subsystem_size: 2}\n"
    "devices:\n"
    "  - {name: a0, type: t, addr: 10.0.0.1}\n"
    "  - {name: a1, type: t, addr: 10.0.0.2}\n"
    "  - {name: a2, type: t, addr: 10.0.0.3}\n"
    "  - {name: a3, type: t, addr: 10.0.0.4}\n"
    "ring: [a0, a1, a2, a3]\n"
    "network:\n"
    "  latency: 10us\n"
    "  default_bandwidth: 1Gbps\n"
    "  links_csv: links.csv\n";

static hs_err_t hs__fuzz_call_links(const char *base_dir, hs_error_t *err)
{
    hs_scenario_t *s = NULL;
    hs_err_t rc = hs_scenario_load_text(
        hs__fuzz_csv_scenario, sizeof hs__fuzz_csv_scenario - 1,
        "links-scenario.yaml", base_dir, &s, err);

    if (rc == HS_OK) {
        HS__FUZZ_CHECK(s != NULL && s->n_devices == 4);
        for (size_t k = 0; k < s->n_devices; k++)
            HS__FUZZ_CHECK(s->ring_bw_bytes_per_s[k] > 0);
    } else {
        HS__FUZZ_CHECK(s == NULL);
    }
    hs_scenario_free(s);
    return rc;
}

/* The same scenario through hs_scenario_load, from a file (once per
   process, on the first input that is not empty: the file path's own
   code, which the text path skips). */
static hs_err_t hs__fuzz_call_links_file(hs_error_t *err)
{
    char yaml[512];
    hs_scenario_t *s = NULL;
    hs_err_t rc;

    hs__fuzz_write(hs__fuzz_path(yaml, sizeof yaml, "links-scenario.yaml"),
                   (const uint8_t *)hs__fuzz_csv_scenario,
                   sizeof hs__fuzz_csv_scenario - 1, 0);
    rc = hs_scenario_load(yaml, &s, err);
    HS__FUZZ_CHECK((rc == HS_OK) == (s != NULL));
    hs_scenario_free(s);
    return rc;
}

hs_err_t hs_fuzz_links_csv(const uint8_t *data, size_t size,
                           hs_error_t *err)
{
    static int file_done;
    char csv[512];
    hs_err_t rc;

    hs_error_clear(err);
    hs__fuzz_write(hs__fuzz_path(csv, sizeof csv, "links.csv"), data, size,
                   0);
    rc = hs__fuzz_verdict(hs__fuzz_call_links(hs__fuzz_tmpdir(), err), err);
    if (!file_done && size > 0) {
        hs_error_t ferr;

        file_done = 1;
        HS__FUZZ_CHECK(hs__fuzz_call_links_file(&ferr) == rc);
    }
    return rc;
}

/* ---- profile ------------------------------------------------------------ */

static hs_err_t hs__fuzz_call_profile(const char *text, size_t len,
                                      hs_error_t *err)
{
    hs_profile_t p;
    hs_err_t rc;

    memset(&p, 0, sizeof p);
    rc = hs_profile_load_text(text, len, "profile.yaml", &p, err);
    if (rc == HS_OK) {
        HS__FUZZ_CHECK(p.n_fwd_ops == 0 || p.fwd_ops_ns != NULL);
        HS__FUZZ_CHECK(p.n_buckets == 0 || p.buckets != NULL);
        (void)hs_profile_payload_bytes(&p);
    }
    hs_profile_clear(&p);
    return rc;
}

hs_err_t hs_fuzz_profile(const uint8_t *data, size_t size, hs_error_t *err)
{
    static int file_done;
    hs_err_t rc;

    hs_error_clear(err);
    rc = hs__fuzz_verdict(
        hs__fuzz_call_profile((const char *)data, size, err), err);
    if (!file_done && size > 0) {
        /* once per process (on the first input that is not empty: libFuzzer
           runs an empty one first, uncounted), the same bytes through
           hs_profile_load from a file (the file path's own code): the same
           verdict */
        char path[512];
        hs_profile_t p;
        hs_error_t ferr;

        file_done = 1;
        hs__fuzz_write(hs__fuzz_path(path, sizeof path, "profile.yaml"),
                       data, size, 0);
        HS__FUZZ_CHECK(hs_profile_load(path, &p, &ferr) == rc);
        hs_profile_clear(&p);
    }
    return rc;
}

/* ---- ingestion: sidecar and traces -------------------------------------- */

/* Ingests the traces (n of them) with the sidecar (or NULL) and warm-up,
   then builds the profile and walks the per-file tables. */
static hs_err_t hs__fuzz_call_ingest(const char *const *traces, size_t n,
                                     const char *sidecar, unsigned warmup,
                                     hs_error_t *err)
{
    hs_ingest_opts_t o;
    hs_ingest_t *ing;
    hs_profile_t p;
    hs_err_t rc = HS_OK;
    size_t i, k, n_notes;

    hs_ingest_opts_default(&o);
    o.warmup = warmup;
    o.sidecar = sidecar;
    ing = hs_ingest_new(&o);
    HS__FUZZ_CHECK(ing != NULL);
    for (i = 0; i < n && rc == HS_OK; i++) {
        rc = hs_ingest_add_file(ing, traces[i], err);
        HS__FUZZ_CHECK(hs_ingest_n_files(ing) == (rc == HS_OK ? i + 1 : i));
    }
    for (i = 0; i < hs_ingest_n_files(ing); i++) {
        const hs_ingest_file_t *f = hs_ingest_file(ing, i);

        HS__FUZZ_CHECK(f != NULL && (f->n_steps == 0 || f->steps != NULL));
        for (k = 0; k < f->n_steps; k++)
            HS__FUZZ_CHECK(f->steps[k].kept == 0 || f->steps[k].kept == 1);
    }
    if (rc == HS_OK) {
        memset(&p, 0, sizeof p);
        rc = hs_ingest_profile(ing, &p, err);
        if (rc == HS_OK)
            HS__FUZZ_CHECK(p.subsys_n >= 2);
        hs_profile_clear(&p);
    }
    (void)hs_ingest_notes(ing, &n_notes);
    hs_ingest_free(ing);
    return rc;
}

hs_err_t hs_fuzz_sidecar(const uint8_t *data, size_t size, hs_error_t *err)
{
    static const char *const traces[] = {
        HS_FUZZ_DATA_DIR "/tiny-rank0.json",
        HS_FUZZ_DATA_DIR "/tiny-rank1.json.gz"};
    char path[512];

    hs_error_clear(err);
    hs__fuzz_path(path, sizeof path, "sidecar.json");
    hs__fuzz_write(path, data, size, 0);
    return hs__fuzz_verdict(hs__fuzz_call_ingest(traces, 2, path, 1, err),
                            err);
}

hs_err_t hs_fuzz_trace(const uint8_t *data, size_t size, hs_error_t *err)
{
    char path[512];
    const char *traces[1];
    int gz = size > 0 && (data[0] & 1);

    hs_error_clear(err);
    hs__fuzz_path(path, sizeof path, gz ? "trace.json.gz" : "trace.json");
    if (size > 0)
        hs__fuzz_write(path, data + 1, size - 1, gz);
    else
        hs__fuzz_write(path, data, 0, 0);
    traces[0] = path;
    return hs__fuzz_verdict(hs__fuzz_call_ingest(traces, 1, NULL, 0, err),
                            err);
}

/* ---- the table ---------------------------------------------------------- */

const hs_fuzz_target_t hs_fuzz_targets[] = {
    {"units", hs_fuzz_units},
    {"scenario", hs_fuzz_scenario},
    {"links_csv", hs_fuzz_links_csv},
    {"profile", hs_fuzz_profile},
    {"sidecar", hs_fuzz_sidecar},
    {"trace", hs_fuzz_trace},
    {NULL, NULL}};

const hs_fuzz_target_t *hs_fuzz_find(const char *name)
{
    const hs_fuzz_target_t *t;

    for (t = hs_fuzz_targets; t->name != NULL; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}
