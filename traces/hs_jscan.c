/* hs_jscan.c -- a JSON file, plain or gzipped, streamed into yajl
   (hs_jscan.h). */
#include "hs_jscan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#define HS__CHUNK (256u * 1024u)
#define HS__GZBUF (128u * 1024u)

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

hs_err_t hs_jscan_file(hs_jscan_t *js, const char *path,
                       const yajl_callbacks *cb, void *ctx,
                       hs_error_t *err)
{
    return hs_jscan_file_where(js, path, cb, ctx, NULL, err);
}

hs_err_t hs_jscan_file_where(hs_jscan_t *js, const char *path,
                             const yajl_callbacks *cb, void *ctx,
                             hs_jscan_where_fn where, hs_error_t *err)
{
    FILE *f;
    gzFile gz = NULL;
    unsigned char magic[2];
    size_t nm;
    unsigned char *buf = NULL;
    hs_err_t rc = HS_OK;
    size_t plen = strlen(path);
    size_t chunk = HS__CHUNK;
    unsigned gzbuf = HS__GZBUF;
    struct stat fst;
    int is_gz;

    memset(js, 0, sizeof *js);
    js->path = path;
    js->err = err;
    js->where = where;
    js->ctx = ctx;

    f = fopen(path, "rb");
    if (f == NULL)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    nm = fread(magic, 1, 2, f);
    /* a small file: buffers of its size, not 256 + 3 x 128 KiB (plain
       JSON: the same single read; gzip: zlib's buffers only) */
    if (fstat(fileno(f), &fst) == 0 && S_ISREG(fst.st_mode) &&
        fst.st_size >= 0 && (uint64_t)fst.st_size < HS__GZBUF) {
        gzbuf = fst.st_size < 4096 ? 4096u : (unsigned)fst.st_size;
        if (!(nm == 2 && magic[0] == 0x1f && magic[1] == 0x8b))
            chunk = (size_t)fst.st_size + 1;
    }
    fclose(f);
    is_gz = nm == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
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
    buf = malloc(chunk);
    js->h = yajl_alloc(cb, NULL, ctx);
    if (buf == NULL || js->h == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
        goto done;
    }
    /* kernel names are long; only ASCII prefixes are ever compared, so
       UTF-8 validation of every string is not worth its time */
    yajl_config(js->h, yajl_dont_validate_strings, 1);
    for (;;) {
        int n = gzread(gz, buf, (unsigned)chunk);
        yajl_status st;

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
        st = yajl_parse(js->h, buf, (size_t)n);
        if (st == yajl_status_client_canceled) {
            rc = js->rc;
            goto done;
        }
        if (st != yajl_status_ok) {
            char m[256], w[160];
            uint64_t off = hs_jscan_offset(js);
            hs__yajl_msg(js->h, buf, (size_t)n, m, sizeof m);
            rc = hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                              "byte %" PRIu64 ": %sinvalid JSON: %s", off,
                              hs__where(js, w, sizeof w), m);
            goto done;
        }
        js->base += (uint64_t)n;
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
    free(buf);
    gzclose(gz);
    return rc;
}
