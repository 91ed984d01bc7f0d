/*
 * hs_fuzz.c -- the shared fuzz entry points (see hs_fuzz.h).
 *
 * Compiled into every libFuzzer target (fuzz/CMakeLists.txt) and included
 * by tests/test_fuzz_regress.c, so that a regression file replays through
 * exactly the code that found it.  Only public library headers are used,
 * but for the trace target's reader-level comparison (hs_kineto.h,
 * hs_rank.h, hs_notes.h: the budgets hs_ingest_opts_t does not expose,
 * as tests/test_ingest_onepass.c uses them).
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
#include "hs_kineto.h"
#include "hs_notes.h"
#include "hs_rank.h"
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

/* The bytes of the file at path (malloc'ed, NUL-terminated). */
static char *hs__fuzz_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, got;

    HS__FUZZ_CHECK(f != NULL);
    do {
        if (cap - n < 4096) {
            char *nb = realloc(buf, cap + 65536);
            HS__FUZZ_CHECK(nb != NULL);
            buf = nb;
            cap += 65536;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* p written as `hetsim ingest -o` writes a profile, loaded back and
   written again: the reader takes what the writer wrote, with the same
   sub-system, payload, operator and bucket counts, batch points, kept
   steps and micro-batches, and the second file has the first's bytes. */
static void hs__fuzz_write_back(const hs_profile_t *p)
{
    char a[512], b[512];
    char *ta, *tb;
    size_t la, lb;
    hs_profile_t q;
    hs_error_t e;
    hs_err_t rc;

    hs__fuzz_path(a, sizeof a, "written-1.yaml");
    hs__fuzz_path(b, sizeof b, "written-2.yaml");
    rc = hs_profile_write(p, a, NULL, &e);
    if (rc != HS_OK)
        fprintf(stderr, "the profile is not written: %s\n", e.msg);
    HS__FUZZ_CHECK(rc == HS_OK);
    memset(&q, 0, sizeof q);
    rc = hs_profile_load(a, &q, &e);
    if (rc != HS_OK)
        fprintf(stderr, "the written profile does not load: %s\n", e.msg);
    HS__FUZZ_CHECK(rc == HS_OK);
    HS__FUZZ_CHECK(q.subsys_n == p->subsys_n && q.ar_bytes == p->ar_bytes);
    HS__FUZZ_CHECK(q.n_fwd_ops == p->n_fwd_ops &&
                   q.n_buckets == p->n_buckets &&
                   q.n_points == p->n_points);
    HS__FUZZ_CHECK(q.steps_kept == p->steps_kept &&
                   (q.micro_batches > 1 ? q.micro_batches : 0) ==
                       (p->micro_batches > 1 ? p->micro_batches : 0));
    HS__FUZZ_CHECK(hs_profile_write(&q, b, NULL, &e) == HS_OK);
    hs_profile_clear(&q);
    ta = hs__fuzz_slurp(a, &la);
    tb = hs__fuzz_slurp(b, &lb);
    if (la != lb || memcmp(ta, tb, la) != 0)
        fprintf(stderr, "written twice, the profile differs:\n%s\n--\n%s\n",
                ta, tb);
    HS__FUZZ_CHECK(la == lb && memcmp(ta, tb, la) == 0);
    free(ta);
    free(tb);
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
        hs__fuzz_write_back(&p);
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

/* Two steps' figures, field by field (kept too when kept_too). */
static int hs__fuzz_same_step(const hs_ingest_step_t *a,
                              const hs_ingest_step_t *b, int kept_too)
{
    return a->number == b->number && (!kept_too || a->kept == b->kept) &&
           a->complete == b->complete && a->start_ns == b->start_ns &&
           a->dur_ns == b->dur_ns && a->t_dl_ns == b->t_dl_ns &&
           a->t_fwd_ns == b->t_fwd_ns && a->t_b1_ns == b->t_b1_ns &&
           a->t_bwd_ns == b->t_bwd_ns && a->t_opt_ns == b->t_opt_ns &&
           a->ar_payload_bytes == b->ar_payload_bytes &&
           a->n_allreduce == b->n_allreduce &&
           a->n_kernels == b->n_kernels &&
           a->micro_batches == b->micro_batches;
}

/* File i's steps through hs_ingest_file_step, as `ingest --summary`
   prints them: each one there (the array's own figures where the steps
   are in memory), kept 0 or 1, none past the last; then the first again
   (a spilled record's cursor starts over). */
static void hs__fuzz_walk_steps(hs_ingest_t *ing, size_t i)
{
    const hs_ingest_file_t *f = hs_ingest_file(ing, i);
    const hs_ingest_step_t *s;
    hs_ingest_step_t first;
    hs_error_t e;
    size_t j;

    HS__FUZZ_CHECK(f != NULL);
    memset(&first, 0, sizeof first);
    for (j = 0; j < f->n_steps; j++) {
        s = hs_ingest_file_step(ing, i, j, &e);
        HS__FUZZ_CHECK(s != NULL && (s->kept == 0 || s->kept == 1));
        HS__FUZZ_CHECK(f->steps == NULL ||
                       hs__fuzz_same_step(s, &f->steps[j], 1));
        if (j == 0)
            first = *s;
    }
    HS__FUZZ_CHECK(hs_ingest_file_step(ing, i, f->n_steps, &e) == NULL);
    if (f->n_steps > 1) {
        s = hs_ingest_file_step(ing, i, 0, &e);
        HS__FUZZ_CHECK(s != NULL && hs__fuzz_same_step(s, &first, 1));
    }
}

/* A new ingestion (*out; the caller frees it) with options o of the
   traces (n of them) with the sidecar (or NULL), each file's steps
   walked; the first failure's code (the files before it kept). */
static hs_err_t hs__fuzz_add_files(const hs_ingest_opts_t *o,
                                   const char *const *traces, size_t n,
                                   hs_ingest_t **out, hs_error_t *err)
{
    hs_ingest_t *ing = hs_ingest_new(o);
    hs_err_t rc = HS_OK;
    size_t i;

    HS__FUZZ_CHECK(ing != NULL);
    for (i = 0; i < n && rc == HS_OK; i++) {
        rc = hs_ingest_add_file(ing, traces[i], err);
        HS__FUZZ_CHECK(hs_ingest_n_files(ing) == (rc == HS_OK ? i + 1 : i));
    }
    for (i = 0; i < hs_ingest_n_files(ing); i++)
        hs__fuzz_walk_steps(ing, i);
    *out = ing;
    return rc;
}

/* hs_ingest_profile into *p (the caller clears it) and what `ingest
   --summary` prints beside it: each phase's robust figures; written and
   loaded back when write_back. */
static hs_err_t hs__fuzz_profile(hs_ingest_t *ing, hs_profile_t *p,
                                 int write_back, hs_error_t *err)
{
    hs_err_t rc;
    unsigned ph;

    memset(p, 0, sizeof *p);
    rc = hs_ingest_profile(ing, p, err);
    for (ph = 0; ph < HS_INGEST_PH_N; ph++)
        HS__FUZZ_CHECK(hs_ingest_robust(ing, ph) != NULL);
    HS__FUZZ_CHECK(hs_ingest_robust(ing, HS_INGEST_PH_N) == NULL);
    if (rc == HS_OK) {
        HS__FUZZ_CHECK(p->subsys_n >= 2);
        HS__FUZZ_CHECK(hs_ar_source_name(p->ar_source) != NULL);
        if (write_back)
            hs__fuzz_write_back(p);
    }
    return rc;
}

/* Ingests the traces (n of them) with the sidecar (or NULL) and warm-up,
   then builds the profile and walks the per-file tables. */
static hs_err_t hs__fuzz_call_ingest(const char *const *traces, size_t n,
                                     const char *sidecar, unsigned warmup,
                                     hs_error_t *err)
{
    hs_ingest_opts_t o;
    hs_ingest_t *ing;
    hs_profile_t p;
    hs_err_t rc;
    size_t n_notes;

    hs_ingest_opts_default(&o);
    o.warmup = warmup;
    o.sidecar = sidecar;
    rc = hs__fuzz_add_files(&o, traces, n, &ing, err);
    if (rc == HS_OK) {
        rc = hs__fuzz_profile(ing, &p, 0, err);
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

/* ---- trace: one read against another ------------------------------------ */

/* The same verdict: code and message. */
static void hs__fuzz_same_verdict(hs_err_t ra, const hs_error_t *ea,
                                  hs_err_t rb, const hs_error_t *eb)
{
    if (ra != rb || (ra != HS_OK && strcmp(ea->msg, eb->msg) != 0))
        fprintf(stderr, "verdicts differ:\n  %d %s\n  %d %s\n", (int)ra,
                ra != HS_OK ? ea->msg : "", (int)rb,
                rb != HS_OK ? eb->msg : "");
    HS__FUZZ_CHECK(ra == rb);
    HS__FUZZ_CHECK(ra == HS_OK || strcmp(ea->msg, eb->msg) == 0);
}

/* The same notes, in the same order. */
static void hs__fuzz_same_notes(const char *const *a, size_t na,
                                const char *const *b, size_t nb)
{
    size_t k;

    HS__FUZZ_CHECK(na == nb);
    for (k = 0; k < na; k++)
        HS__FUZZ_CHECK(strcmp(a[k], b[k]) == 0);
}

static void hs__fuzz_same_dist(const hs_dist_t *a, const hs_dist_t *b)
{
    size_t k;

    HS__FUZZ_CHECK(a->known == b->known && a->mean_ns == b->mean_ns &&
                   a->sd_ns == b->sd_ns && a->n_samples == b->n_samples);
    for (k = 0; k < a->n_samples; k++)
        HS__FUZZ_CHECK(a->samples_ns[k] == b->samples_ns[k]);
}

/* Two profiles of hs_ingest_profile, field by field. */
static void hs__fuzz_same_profile(const hs_profile_t *a,
                                  const hs_profile_t *b)
{
    size_t k;

    hs__fuzz_same_dist(&a->t_dl, &b->t_dl);
    hs__fuzz_same_dist(&a->t_fwd, &b->t_fwd);
    hs__fuzz_same_dist(&a->t_b1, &b->t_b1);
    hs__fuzz_same_dist(&a->t_bwd, &b->t_bwd);
    hs__fuzz_same_dist(&a->t_opt, &b->t_opt);
    HS__FUZZ_CHECK(a->n_fwd_ops == b->n_fwd_ops);
    HS__FUZZ_CHECK((a->fwd_op_names == NULL) == (b->fwd_op_names == NULL));
    for (k = 0; k < a->n_fwd_ops; k++) {
        HS__FUZZ_CHECK(a->fwd_ops_ns[k] == b->fwd_ops_ns[k]);
        HS__FUZZ_CHECK(a->fwd_op_names == NULL ||
                       (a->fwd_op_names[k] == NULL) ==
                           (b->fwd_op_names[k] == NULL));
        HS__FUZZ_CHECK(a->fwd_op_names == NULL ||
                       a->fwd_op_names[k] == NULL ||
                       strcmp(a->fwd_op_names[k], b->fwd_op_names[k]) == 0);
    }
    HS__FUZZ_CHECK(a->ar_bytes == b->ar_bytes &&
                   a->subsys_n == b->subsys_n &&
                   a->ar_source == b->ar_source &&
                   a->n_buckets == b->n_buckets);
    for (k = 0; k < a->n_buckets; k++)
        HS__FUZZ_CHECK(a->buckets[k].bytes == b->buckets[k].bytes &&
                       a->buckets[k].ready_ns == b->buckets[k].ready_ns);
    HS__FUZZ_CHECK(a->comm_ns_per_byte == b->comm_ns_per_byte &&
                   a->t_hop_wait_ns == b->t_hop_wait_ns &&
                   a->steps_kept == b->steps_kept &&
                   a->micro_batches == b->micro_batches);
    HS__FUZZ_CHECK((a->source == NULL) == (b->source == NULL));
    HS__FUZZ_CHECK(a->source == NULL || strcmp(a->source, b->source) == 0);
}

/* Two ingestions of the same files: the same files, steps, notes. */
static void hs__fuzz_same_files(hs_ingest_t *a, hs_ingest_t *b)
{
    size_t i, j, na, nb;
    const char *const *va = hs_ingest_notes(a, &na);
    const char *const *vb = hs_ingest_notes(b, &nb);

    hs__fuzz_same_notes(va, na, vb, nb);
    HS__FUZZ_CHECK(hs_ingest_n_files(a) == hs_ingest_n_files(b));
    for (i = 0; i < hs_ingest_n_files(a); i++) {
        const hs_ingest_file_t *fa = hs_ingest_file(a, i);
        const hs_ingest_file_t *fb = hs_ingest_file(b, i);
        HS__FUZZ_CHECK(strcmp(fa->path, fb->path) == 0 &&
                       fa->form == fb->form && fa->rank == fb->rank &&
                       fa->world_size == fb->world_size &&
                       strcmp(fa->backend, fb->backend) == 0 &&
                       fa->gpu == fb->gpu && fa->ar_source == fb->ar_source &&
                       fa->ar_known == fb->ar_known &&
                       fa->n_events == fb->n_events &&
                       fa->json_bytes == fb->json_bytes &&
                       fa->passes == fb->passes &&
                       fa->n_steps == fb->n_steps);
        for (j = 0; j < fa->n_steps; j++) {
            hs_error_t e;
            const hs_ingest_step_t *sa = hs_ingest_file_step(a, i, j, &e);
            const hs_ingest_step_t *sb = hs_ingest_file_step(b, i, j, &e);
            HS__FUZZ_CHECK(sa != NULL && sb != NULL &&
                           hs__fuzz_same_step(sa, sb, 1));
        }
    }
}

/* The robust figures of two ingestions' profiles. */
static void hs__fuzz_same_robust(const hs_ingest_t *a, const hs_ingest_t *b)
{
    unsigned ph;

    for (ph = 0; ph < HS_INGEST_PH_N; ph++) {
        const hs_ingest_robust_t *x = hs_ingest_robust(a, ph);
        const hs_ingest_robust_t *y = hs_ingest_robust(b, ph);
        HS__FUZZ_CHECK(x->known == y->known &&
                       x->n_samples == y->n_samples &&
                       x->mean_ns == y->mean_ns &&
                       x->median_ns == y->median_ns &&
                       x->trimmed_ns == y->trimmed_ns);
    }
}

/*
 * The trace at path ingested with o (*err: the verdict), and, when
 * other is not NULL, again with *other: the same verdict, files, steps,
 * notes, profile and robust figures (hs_ingest.h: the record's budget
 * and the threads change none of them).
 */
static hs_err_t hs__fuzz_ingest_trace(const char *path,
                                      const hs_ingest_opts_t *o,
                                      const hs_ingest_opts_t *other,
                                      hs_error_t *err)
{
    const char *traces[1];
    hs_ingest_t *a, *b = NULL;
    hs_profile_t pa, pb;
    hs_error_t eb;
    hs_err_t rc, rb = HS_OK;

    traces[0] = path;
    rc = hs__fuzz_add_files(o, traces, 1, &a, err);
    if (other != NULL) {
        rb = hs__fuzz_add_files(other, traces, 1, &b, &eb);
        hs__fuzz_same_verdict(rc, err, rb, &eb);
        hs__fuzz_same_files(a, b);
    }
    if (rc == HS_OK) {
        rc = hs__fuzz_profile(a, &pa, 1, err);
        if (b != NULL) {
            rb = hs__fuzz_profile(b, &pb, 0, &eb);
            hs__fuzz_same_verdict(rc, err, rb, &eb);
            if (rc == HS_OK)
                hs__fuzz_same_profile(&pa, &pb);
            hs__fuzz_same_robust(a, b);
            hs_profile_clear(&pb);
        }
        hs_profile_clear(&pa);
    }
    hs_ingest_free(b);
    hs_ingest_free(a);
    return rc;
}

/* One step's entries of two records (hs_rank_at's views). */
static void hs__fuzz_same_entry(const hs_rank_cur_t *a,
                                const hs_rank_cur_t *b)
{
    size_t k;

    HS__FUZZ_CHECK(hs__fuzz_same_step(a->step, b->step, 1));
    HS__FUZZ_CHECK(a->bk->has_bwd == b->bk->has_bwd &&
                   a->bk->timed == b->bk->timed && a->bk->n == b->bk->n);
    for (k = 0; k < a->bk->n; k++)
        HS__FUZZ_CHECK(a->bk->bytes[k] == b->bk->bytes[k] &&
                       a->bk->ready_ns[k] == b->bk->ready_ns[k]);
    HS__FUZZ_CHECK(a->ops->n == b->ops->n);
    for (k = 0; k < a->ops->n; k++)
        HS__FUZZ_CHECK(a->ops->name[k] == b->ops->name[k] &&
                       a->ops->ns[k] == b->ops->ns[k]);
}

/* Two records of one trace: the same header, operator names and
   entries, each step read through hs_rank_at (in memory or spilled). */
static void hs__fuzz_same_record(const hs_rank_t *a, const hs_rank_t *b)
{
    hs_rank_cur_t ca, cb;
    hs_error_t e;
    size_t i;

    HS__FUZZ_CHECK(strcmp(a->path, b->path) == 0 && a->form == b->form &&
                   a->rank == b->rank && a->world_size == b->world_size &&
                   strcmp(a->backend, b->backend) == 0 && a->gpu == b->gpu &&
                   a->ar_known == b->ar_known &&
                   a->ar_source == b->ar_source &&
                   a->n_events == b->n_events &&
                   a->json_bytes == b->json_bytes &&
                   a->passes == b->passes && a->n_steps == b->n_steps &&
                   a->n_op_names == b->n_op_names);
    for (i = 0; i < a->n_op_names; i++)
        HS__FUZZ_CHECK(strcmp(a->op_names[i], b->op_names[i]) == 0);
    memset(&ca, 0, sizeof ca);
    memset(&cb, 0, sizeof cb);
    for (i = 0; i < a->n_steps; i++) {
        HS__FUZZ_CHECK(hs_rank_at(a, i, &ca, &e) == HS_OK);
        HS__FUZZ_CHECK(hs_rank_at(b, i, &cb, &e) == HS_OK);
        hs__fuzz_same_entry(&ca, &cb);
        HS__FUZZ_CHECK(ca.ops->n == 0 || ca.ops->name[0] < a->n_op_names);
    }
    hs_rank_cur_clear(&ca);
    hs_rank_cur_clear(&cb);
}

/*
 * The trace at path read by the reader with its default budgets (*err:
 * the verdict) and with o's (tiny: spilled logs and record, operators and
 * phases by small batches of steps, maybe two threads): the same verdict,
 * record and notes (hs_kineto.h: "the same record either way").
 */
static hs_err_t hs__fuzz_read_trace(const char *path,
                                    const hs_kineto_opts_t *o,
                                    hs_error_t *err)
{
    hs_kineto_opts_t d;
    hs_notes_t na, nb;
    hs_kineto_opts_t t = *o;
    hs_rank_t *ra = NULL, *rb = NULL;
    hs_error_t eb;
    hs_err_t rc, rb_rc;

    memset(&d, 0, sizeof d);
    memset(&na, 0, sizeof na);
    memset(&nb, 0, sizeof nb);
    d.notes = &na;
    t.notes = &nb;
    rc = hs_kineto_read(path, &d, &ra, err);
    rb_rc = hs_kineto_read(path, &t, &rb, &eb);
    hs__fuzz_same_verdict(rc, err, rb_rc, &eb);
    HS__FUZZ_CHECK((rc == HS_OK) == (ra != NULL) &&
                   (rb_rc == HS_OK) == (rb != NULL));
    if (rc == HS_OK)
        hs__fuzz_same_record(ra, rb);
    hs__fuzz_same_notes((const char *const *)na.items, na.n,
                        (const char *const *)nb.items, nb.n);
    hs_notes_clear(&na);
    hs_notes_clear(&nb);
    hs_rank_free(ra);
    hs_rank_free(rb);
    return rc;
}

/* The trace target's ways of reading, by the first byte's bits 1-2 (m)
   and 3-7 (v); hs_fuzz.h. */
static hs_err_t hs__fuzz_trace_by(const char *path, unsigned m, unsigned v,
                                  hs_error_t *err)
{
    hs_ingest_opts_t o, sp;
    hs_kineto_opts_t k;

    hs_ingest_opts_default(&o);
    o.warmup = v & 3u;
    o.stat = v & 16u ? HS_INGEST_STAT_MEDIAN : HS_INGEST_STAT_MEAN;
    if (m == 0)
        return hs__fuzz_ingest_trace(path, &o, NULL, err);
    if (m == 1) {
        sp = o;
        sp.rec_mem_bytes = v & 4u ? 2 * HS_RANK_STEP_BYTES : 1;
        sp.threads = v & 8u ? 2 : 1;
        return hs__fuzz_ingest_trace(path, &o, &sp, err);
    }
    memset(&k, 0, sizeof k);
    k.step_batch = 1 + (v & 3u);
    /* the logs spilled, the settled windows too: in blocks of one
       window (1 byte) or of two past four windows (200 bytes) */
    k.log_mem_bytes = v & 4u ? 0 : v & 1u ? 1 : 200;
    k.ops_mem_bytes = v & 8u ? 0 : 1;
    k.rec_mem_bytes = v & 16u ? 0 : 1;
    k.threads = m == 3 ? 2 : 1;
    return hs__fuzz_read_trace(path, &k, err);
}

hs_err_t hs_fuzz_trace(const uint8_t *data, size_t size, hs_error_t *err)
{
    char path[512];
    unsigned b = size > 0 ? data[0] : 0;
    int gz = b & 1;

    /* two threads read whatever the file's size (hs_jscan.c) */
    setenv("HETSIM_TRACE_THREAD_MIN_BYTES", "0", 1);
    hs_error_clear(err);
    hs__fuzz_path(path, sizeof path, gz ? "trace.json.gz" : "trace.json");
    if (size > 0)
        hs__fuzz_write(path, data + 1, size - 1, gz);
    else
        hs__fuzz_write(path, data, 0, 0);
    return hs__fuzz_verdict(hs__fuzz_trace_by(path, (b >> 1) & 3u, b >> 3,
                                              err),
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
