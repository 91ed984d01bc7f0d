/* hs_jscan.c -- a JSON file, plain or gzipped, streamed into yajl
   (hs_jscan.h). */
#include "hs_jscan.h"
#include "hs_limits.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#define HS__CHUNK (256u * 1024u)
#define HS__GZBUF (128u * 1024u)
#define HS__GZBUF0 4096u
#define HS__GZSMALL (16u * 1024u)
#define HS__GZHINT (64u * 1024u)
#if HS__GZHINT >= HS__CHUNK
#error "HS__GZHINT must stay below HS__CHUNK (hs_jscan_file_buf's cap)"
#endif

uint64_t hs_jscan_offset(const hs_jscan_t *js)
{
    return js->base + (js->h != NULL ? yajl_get_bytes_consumed(js->h) : 0);
}

/* "<where>: " when the reader says where the parse is, else "". */
static const char *hs__where(const hs_jscan_t *js, char *buf, size_t cap)
{
    size_t n;

    buf[0] = '\0';
    if (js->where == NULL || cap < 4 || !js->where(js->ctx, buf, cap - 2) ||
        buf[0] == '\0') {
        buf[0] = '\0';
        return buf;
    }
    n = strlen(buf);
    buf[n] = ':';
    buf[n + 1] = ' ';
    buf[n + 2] = '\0';
    return buf;
}

int hs_jscan_fail(hs_jscan_t *js, hs_err_t code, const char *fmt, ...)
{
    char msg[512], w[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    js->rc = hs_error_set(js->err, code, js->path, 0, 0,
                          "byte %" PRIu64 ": %s%s", hs_jscan_offset(js),
                          hs__where(js, w, sizeof w), msg);
    return 0;
}

int hs_jscan_stop(hs_jscan_t *js, hs_err_t rc)
{
    js->rc = rc;
    return 0;
}

/* The JSON error yajl reports, without its verbose context lines. */
static void hs__yajl_msg(yajl_handle h, const unsigned char *buf, size_t len,
                         char *out, size_t cap)
{
    unsigned char *m = yajl_get_error(h, 0, buf, len);
    char *nl;

    snprintf(out, cap, "%s", m != NULL ? (const char *)m : "parse error");
    if (m != NULL)
        yajl_free_error(h, m);
    nl = strchr(out, '\n');
    if (nl != NULL)
        *nl = '\0';
}

/* zlib's message without the "path: " it puts in front. */
static const char *hs__gzmsg(gzFile gz, const char *path)
{
    int zerr;
    const char *m = gzerror(gz, &zerr);
    size_t n = strlen(path);

    if (m == NULL)
        return "read failed";
    if (strncmp(m, path, n) == 0 && m[n] == ':' && m[n + 1] == ' ')
        m += n + 2;
    return m;
}

/* gzread(gz, *buf, want), with *buf (of *cap bytes) grown only as the
   data comes: read into what there is, and when every byte asked for
   came, grow it to want and read on.  The same bytes, the same
   short count at the end and the same -1 on a zlib error as one gzread
   of want bytes (gzread keeps nothing back: a call that fills its buffer
   leaves the stream where the next call goes on; an error drops what the
   call had read, so an error in a later piece drops the earlier pieces
   too).  So a trace of a few kB, gzipped, no longer takes a 256 KiB
   buffer per pass.  Returns the count, -1 on a zlib error, -2 when out
   of memory. */
static int hs__gzread_grow(gzFile gz, unsigned char **buf, size_t *cap,
                           size_t want)
{
    size_t got = 0;

    for (;;) {
        size_t ask = (*cap < want ? *cap : want) - got;
        int n = gzread(gz, *buf + got, (unsigned)ask);

        if (n < 0)
            return -1;
        got += (size_t)n;
        if ((size_t)n < ask || got == want)
            return (int)got;
        {
            /* more than the hint: the full size at once (one copy, not a
               copy per doubling) */
            size_t nc = want;
            unsigned char *p = realloc(*buf, nc);

            if (p == NULL)
                return -2;
            *buf = p;
            *cap = nc;
        }
    }
}

hs_err_t hs_jscan_file(hs_jscan_t *js, const char *path,
                       const yajl_callbacks *cb, void *ctx,
                       hs_error_t *err)
{
    return hs_jscan_file_where(js, path, cb, ctx, NULL, err);
}

void hs_jscan_buf_free(hs_jscan_buf_t *b)
{
    if (b == NULL)
        return;
    free(b->p);
    b->p = NULL;
    b->cap = 0;
}

hs_err_t hs_jscan_file_where(hs_jscan_t *js, const char *path,
                             const yajl_callbacks *cb, void *ctx,
                             hs_jscan_where_fn where, hs_error_t *err)
{
    return hs_jscan_file_buf(js, path, cb, ctx, where, NULL, err);
}

hs_err_t hs_jscan_file_buf(hs_jscan_t *js, const char *path,
                           const yajl_callbacks *cb, void *ctx,
                           hs_jscan_where_fn where, hs_jscan_buf_t *b,
                           hs_error_t *err)
{
    hs_jscan_buf_t own = {NULL, 0};
    int fd;
    gzFile gz = NULL;
    unsigned char magic[2];
    size_t nm = 0;
    size_t cap;
    uint32_t isize = 0;
    hs_err_t rc = HS_OK;
    size_t plen = strlen(path);
    size_t chunk = HS__CHUNK;
    unsigned gzbuf = HS__GZBUF;
    struct stat fst;
    int is_gz;
    uint64_t max_bytes = HS_LIMIT_TRACE_BYTES;
    const char *lim = getenv("HETSIM_TRACE_MAX_BYTES");

    /* the environment may lower the limit, never raise it */
    if (lim != NULL && *lim != '\0') {
        char *end;
        unsigned long long v;
        errno = 0;
        v = strtoull(lim, &end, 10);
        if (errno == 0 && *end == '\0' && v > 0 && v < max_bytes)
            max_bytes = v;
    }
    memset(js, 0, sizeof *js);
    js->path = path;
    js->err = err;
    js->where = where;
    js->ctx = ctx;

    /* the magic bytes and the size (a plain descriptor: no stdio
       buffer for two bytes) */
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    while (nm < 2) {
        ssize_t r = read(fd, magic + nm, 2 - nm);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        nm += (size_t)r;
    }
    is_gz = nm == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    /* a small file: buffers of its size, not 256 + 3 x 128 KiB (plain
       JSON: the same single read; gzip: zlib's buffers only, its input
       buffer the file's size up to HS__GZSMALL -- zlib's output buffer
       is twice that, and a read of more goes straight into ours) */
    if (fstat(fd, &fst) != 0)
        memset(&fst, 0, sizeof fst);   /* not a regular file: no hints */
    if (S_ISREG(fst.st_mode) &&
        fst.st_size >= 0 && (uint64_t)fst.st_size < HS__GZBUF) {
        gzbuf = fst.st_size < 4096            ? 4096u
                : fst.st_size > HS__GZSMALL ? HS__GZSMALL
                                              : (unsigned)fst.st_size;
        if (!is_gz)
            chunk = (size_t)fst.st_size + 1;
    }
    /* gzip: the trailer's ISIZE (the data's length mod 2^32, of the last
       member) as the first size of the read buffer -- a hint only: the
       buffer grows as the data comes (hs__gzread_grow) */
    if (is_gz && S_ISREG(fst.st_mode) && fst.st_size >= 18) {
        unsigned char t[4];

        if (pread(fd, t, 4, fst.st_size - 4) == 4)
            isize = (uint32_t)t[0] | (uint32_t)t[1] << 8 |
                    (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    }
    close(fd);
    if (nm == 0)
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "the file is empty: expected a JSON trace");
    if (!is_gz && plen > 3 && strcmp(path + plen - 3, ".gz") == 0)
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "byte 0: not a gzip file (the name ends in "
                            ".gz but the gzip magic bytes 1f 8b are "
                            "missing)");
    gz = gzopen(path, "rb");
    if (gz == NULL) {
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    }
    gzbuffer(gz, gzbuf);
    /* gzip: the buffer starts at the data's size (the trailer's), at
       least HS__GZBUF0, and grows to chunk only as the data comes
       (hs__gzread_grow) */
    cap = chunk;
    if (is_gz) {
        /* room for all the data and the byte that sees its end, when the
           hint is right: one read; past HS__GZHINT, the full chunk at
           once (the trailer may claim up to 4 GiB; the buffer never
           grows past chunk, and HS__GZHINT < HS__CHUNK, a gzip file's
           chunk) */
        size_t want = (size_t)isize + 1;

        cap = want < HS__GZBUF0 ? HS__GZBUF0 : want;
        if (cap > HS__GZHINT)
            cap = chunk;
    }
    /* the caller's buffer when it has room (an earlier pass's), else a
       new one */
    if (b == NULL)
        b = &own;
    if (b->cap < cap) {
        free(b->p);
        b->cap = 0;
        if ((b->p = malloc(cap)) != NULL)
            b->cap = cap;
    }
    js->h = yajl_alloc(cb, NULL, ctx);
    if (b->p == NULL || js->h == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
        goto done;
    }
    /* kernel names are long; only ASCII prefixes are ever compared, so
       UTF-8 validation of every string is not worth its time */
    yajl_config(js->h, yajl_dont_validate_strings, 1);
    for (;;) {
        int n = hs__gzread_grow(gz, &b->p, &b->cap, chunk);
        yajl_status st;

        if (n == -2) {
            rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                              "out of memory");
            goto done;
        }

        if (n <= 0) {
            /* zlib reports a truncated gzip stream on the last read */
            int zerr = Z_OK;
            gzerror(gz, &zerr);
            if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
                char w[160];
                int wn = (int)strlen(hs__where(js, w, sizeof w));
                rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                                  "gzip error at compressed byte %ld "
                                  "(after %" PRIu64 " bytes of JSON%s%.*s): "
                                  "%s",
                                  (long)gzoffset(gz), js->base,
                                  wn > 0 ? ", in " : "",
                                  wn > 2 ? wn - 2 : 0, w,
                                  hs__gzmsg(gz, path));
                goto done;
            }
            break;
        }
        st = yajl_parse(js->h, b->p, (size_t)n);
        if (st == yajl_status_client_canceled) {
            rc = js->rc;
            goto done;
        }
        if (st != yajl_status_ok) {
            char m[256], w[160];
            uint64_t off = hs_jscan_offset(js);
            hs__yajl_msg(js->h, b->p, (size_t)n, m, sizeof m);
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                              "byte %" PRIu64 ": %sinvalid JSON: %s", off,
                              hs__where(js, w, sizeof w), m);
            goto done;
        }
        js->base += (uint64_t)n;
        if (js->base > max_bytes) {
            rc = hs_error_set(err, HS_ERR_TRACE, path, 0, 0,
                              "byte %" PRIu64 ": the trace holds more than "
                              "%" PRIu64 " bytes of JSON%s (the limit; a "
                              "profiler trace of a few steps is far "
                              "smaller)", js->base, max_bytes,
                              is_gz ? " once inflated" : "");
            goto done;
        }
    }
    {
        int zerr = Z_OK;
        gzerror(gz, &zerr);
        if (zerr != Z_OK) {
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                              "gzip error after %" PRIu64
                              " bytes of JSON: %s",
                              js->base, hs__gzmsg(gz, path));
            goto done;
        }
    }
    if (js->base == 0) {
        rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                          "the file holds no data: expected a JSON trace");
        goto done;
    }
    {
        yajl_status st = yajl_complete_parse(js->h);
        if (st == yajl_status_client_canceled) {
            rc = js->rc;
            goto done;
        }
        if (st != yajl_status_ok) {
            char m[256], w[160];
            hs__yajl_msg(js->h, (const unsigned char *)"", 0, m, sizeof m);
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                              "byte %" PRIu64
                              ": %sinvalid JSON (truncated?): %s",
                              js->base, hs__where(js, w, sizeof w), m);
            goto done;
        }
    }
done:
    if (js->h != NULL)
        yajl_free(js->h);
    js->h = NULL;
    hs_jscan_buf_free(&own);
    gzclose(gz);
    return rc;
}
