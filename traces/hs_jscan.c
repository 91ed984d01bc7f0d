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
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HS_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

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

/* The bytes of the JSON text: a plain file read as it is, or a gzip file
   inflated as a stream (ISA-L's igzip when built with it, else zlib),
   member after member as gzip readers do; bytes after the last member
   that do not start another member are ignored, as zlib's gzread ignores
   them.  Memory: igzip's state and one input buffer, or zlib's. */
typedef struct hs__src_s {
    int fd;
    int is_gz;
    const char *path;
    uint64_t cin_bytes;         /* compressed bytes consumed */
    char msg[96];               /* the last error */
#ifdef HS_HAVE_ISAL
    struct inflate_state *st;   /* 87 KB: on the heap */
    unsigned char *in;
    size_t in_cap, in_len;      /* bytes: in[0, in_len) read, not yet
                                   inflated */
    int in_eof;
    int done;                   /* the last member ended */
#else
    gzFile gz;
#endif
} hs__src_t;

/* read() until n bytes or the end; -1 on error (errno). */
static ssize_t hs__read_full(int fd, unsigned char *p, size_t n)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

#ifdef HS_HAVE_ISAL
static const char *hs__isal_msg(int rc)
{
    switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block type";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    default: return "inflate failed";
    }
}

/* Tops the input buffer up from the file; -1 on a read error. */
static int hs__isal_fill(hs__src_t *s)
{
    ssize_t r;

    if (s->in_eof)
        return 0;
    if (s->st->avail_in > 0 && s->st->next_in != s->in)
        memmove(s->in, s->st->next_in, s->st->avail_in);
    s->in_len = s->st->avail_in;
    r = hs__read_full(s->fd, s->in + s->in_len, s->in_cap - s->in_len);
    if (r < 0) {
        snprintf(s->msg, sizeof s->msg, "read failed: %s", strerror(errno));
        return -1;
    }
    if ((size_t)r < s->in_cap - s->in_len)
        s->in_eof = 1;
    s->in_len += (size_t)r;
    s->st->next_in = s->in;
    s->st->avail_in = (uint32_t)s->in_len;
    return 0;
}

/* Up to n inflated bytes into p; 0 at the end, -1 on an error (s->msg). */
static int hs__isal_read(hs__src_t *s, unsigned char *p, size_t n)
{
    struct inflate_state *st = s->st;
    size_t got = 0;

    if (s->msg[0] != '\0')
        return -1;   /* an error stays */
    while (got < n && !s->done) {
        int rc;
        uint32_t before;

        if (st->avail_in == 0 && hs__isal_fill(s) != 0)
            return -1;
        if (st->block_state == ISAL_BLOCK_FINISH) {
            /* a member ended: another one follows, or the data ends */
            if (st->avail_in < 2 && !s->in_eof && hs__isal_fill(s) != 0)
                return -1;
            if (st->avail_in >= 2 && st->next_in[0] == 0x1f &&
                st->next_in[1] == 0x8b) {
                uint8_t *ni = st->next_in;
                uint32_t ai = st->avail_in;

                isal_inflate_reset(st);
                st->crc_flag = ISAL_GZIP;
                st->next_in = ni;
                st->avail_in = ai;
                continue;
            }
            s->done = 1;
            break;
        }
        st->next_out = p + got;
        st->avail_out = (uint32_t)(n - got);
        before = st->avail_in;
        rc = isal_inflate(st);
        s->cin_bytes += before - st->avail_in;
        got = n - st->avail_out;
        if (rc < 0) {
            snprintf(s->msg, sizeof s->msg, "%s", hs__isal_msg(rc));
            return -1;
        }
        if (st->block_state != ISAL_BLOCK_FINISH && st->avail_in == 0 &&
            s->in_eof && st->avail_out > 0) {
            /* the input ended inside a member: igzip may still hold
               bytes it could not yet write; one more call with no new
               input drains them, then the stream is cut */
            rc = isal_inflate(st);
            got = n - st->avail_out;
            if (rc >= 0 && st->block_state != ISAL_BLOCK_FINISH &&
                st->avail_out > 0) {
                snprintf(s->msg, sizeof s->msg, "unexpected end of file");
                return got > 0 ? (int)got : -1;
            }
        }
    }
    return (int)got;
}
#else
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
#endif

/* Opens the source on fd (positioned at 0); gzbuf is the input buffer's
   size for gzip.  HS_OK, or HS_ERR_NOMEM / HS_ERR_IO with err filled. */
static hs_err_t hs__src_open(hs__src_t *s, int fd, int is_gz, unsigned gzbuf,
                             const char *path, hs_error_t *err)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->is_gz = is_gz;
    s->path = path;
    if (!is_gz)
        return HS_OK;
#ifdef HS_HAVE_ISAL
    s->st = malloc(sizeof *s->st);
    s->in_cap = gzbuf;
    s->in = malloc(s->in_cap);
    if (s->st == NULL || s->in == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    isal_inflate_init(s->st);
    s->st->crc_flag = ISAL_GZIP;
    s->st->next_in = s->in;
    s->st->avail_in = 0;
    return HS_OK;
#else
    /* by name: zlib's messages then start with the path, which
       hs__gzmsg takes off */
    if ((s->gz = gzopen(path, "rb")) == NULL)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    gzbuffer(s->gz, gzbuf);
    return HS_OK;
#endif
}

static void hs__src_close(hs__src_t *s)
{
#ifdef HS_HAVE_ISAL
    free(s->st);
    free(s->in);
#else
    if (s->gz != NULL)
        gzclose(s->gz);
#endif
    if (s->fd >= 0)
        close(s->fd);
}

/* Up to n bytes of JSON text into p: n unless the data ends; 0 at the
   end; -1 on an error (hs__src_msg says what). */
static int hs__src_read(hs__src_t *s, unsigned char *p, size_t n)
{
    if (!s->is_gz) {
        ssize_t r = hs__read_full(s->fd, p, n);

        if (r < 0)
            snprintf(s->msg, sizeof s->msg, "read failed: %s",
                     strerror(errno));
        return (int)r;
    }
#ifdef HS_HAVE_ISAL
    return hs__isal_read(s, p, n);
#else
    return gzread(s->gz, p, (unsigned)n);
#endif
}

/* What went wrong in the last hs__src_read, and the compressed offset. */
static const char *hs__src_msg(hs__src_t *s, long *coff)
{
#ifdef HS_HAVE_ISAL
    *coff = (long)s->cin_bytes;
    return s->msg;
#else
    if (!s->is_gz) {
        *coff = 0;
        return s->msg;
    }
    *coff = (long)gzoffset(s->gz);
    return hs__gzmsg(s->gz, s->path);
#endif
}

/* 1 when the gzip stream reported a problem at its end (zlib: a
   truncated stream shows on the last read, not as -1). */
static int hs__src_bad_end(hs__src_t *s)
{
#ifdef HS_HAVE_ISAL
    return s->is_gz && s->msg[0] != '\0';
#else
    int zerr = Z_OK;

    if (!s->is_gz)
        return 0;
    gzerror(s->gz, &zerr);
    return zerr != Z_OK && zerr != Z_STREAM_END;
#endif
}

/* hs__src_read(s, *buf, want), with *buf (of *cap bytes) grown only as
   the data comes: read into what there is, and when every byte asked for
   came, grow it to want and read on.  The same bytes and the same short
   count at the end as one read of want bytes.  So a trace of a few kB,
   gzipped, does not take a 256 KiB buffer.  Returns the count, -1 on an
   error, -2 when out of memory. */
static int hs__read_grow(hs__src_t *s, unsigned char **buf, size_t *cap,
                         size_t want)
{
    size_t got = 0;

    for (;;) {
        size_t ask = (*cap < want ? *cap : want) - got;
        int n = hs__src_read(s, *buf + got, ask);

        if (n < 0)
            return got > 0 ? (int)got : -1;
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

hs_err_t hs_jscan_read_only(const char *path, uint64_t *bytes,
                            hs_error_t *err)
{
    unsigned char magic[2];
    hs__src_t src;
    unsigned char *buf;
    hs_err_t rc = HS_OK;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    *bytes = 0;
    if (fd < 0)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    if ((buf = malloc(HS__CHUNK)) == NULL) {
        close(fd);
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    }
    magic[0] = magic[1] = 0;
    if (hs__read_full(fd, magic, 2) < 0 || lseek(fd, 0, SEEK_SET) != 0) {
        free(buf);
        close(fd);
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot read: %s",
                            strerror(errno));
    }
    if ((rc = hs__src_open(&src, fd, magic[0] == 0x1f && magic[1] == 0x8b,
                           HS__GZBUF, path, err)) == HS_OK) {
        for (;;) {
            int n = hs__src_read(&src, buf, HS__CHUNK);
            if (n < 0 || (n == 0 && hs__src_bad_end(&src))) {
                long coff;
                const char *m = hs__src_msg(&src, &coff);
                rc = src.is_gz ? hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                                              "gzip error at compressed "
                                              "byte %ld: %s", coff, m)
                               : hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                              "%s", m);
                break;
            }
            if (n == 0)
                break;
            *bytes += (uint64_t)n;
        }
    }
    hs__src_close(&src);
    free(buf);
    return rc;
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

/* The environment variable name as a whole decimal number, when it is
   one, at least lo and below cap; cap otherwise (the environment may lower
   a limit, never raise it). */
static uint64_t hs__env_lowered(const char *name, uint64_t cap, uint64_t lo)
{
    const char *v = getenv(name);

    if (v != NULL && *v != '\0') {
        char *end;
        unsigned long long x;
        errno = 0;
        x = strtoull(v, &end, 10);
        if (errno == 0 && *end == '\0' && x >= lo && x < cap)
            return x;
    }
    return cap;
}

/* The most bytes of JSON a trace may hold: HS_LIMIT_TRACE_BYTES, or
   less (never 0) when HETSIM_TRACE_MAX_BYTES says so. */
static uint64_t hs__max_bytes(void)
{
    return hs__env_lowered("HETSIM_TRACE_MAX_BYTES", HS_LIMIT_TRACE_BYTES, 1);
}

/* The smallest file read in two threads when asked:
   HS_JSCAN_THREAD_MIN_BYTES, or less when HETSIM_TRACE_THREAD_MIN_BYTES
   says so (the tests take small traces through the two-thread path). */
static uint64_t hs__thread_min_bytes(void)
{
    return hs__env_lowered("HETSIM_TRACE_THREAD_MIN_BYTES",
                           HS_JSCAN_THREAD_MIN_BYTES, 0);
}

/* What a file's first bytes and size say about how to read it. */
typedef struct hs__probe_s {
    size_t nm;          /* magic bytes read: 0 for an empty file */
    int is_gz;          /* the gzip magic bytes 1f 8b */
    size_t chunk;       /* bytes: the read buffer's most */
    unsigned gzbuf;     /* bytes: the inflater's input buffer */
    uint32_t isize;     /* the gzip trailer's ISIZE; 0 when unknown */
    uint64_t file_bytes;    /* the file's size as stored; 0 when unknown */
} hs__probe_t;

/* Fills *p from fd's magic bytes and size (a plain descriptor: no stdio
   buffer for two bytes).  Never fails: a read error reads as fewer
   magic bytes, a failed fstat as no size hints.  Leaves fd's offset
   anywhere (the caller rewinds). */
static void hs__probe(int fd, hs__probe_t *p)
{
    unsigned char magic[2];
    struct stat fst;

    p->nm = 0;
    p->chunk = HS__CHUNK;
    p->gzbuf = HS__GZBUF;
    p->isize = 0;
    while (p->nm < 2) {
        ssize_t r = read(fd, magic + p->nm, 2 - p->nm);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        p->nm += (size_t)r;
    }
    p->is_gz = p->nm == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    /* a small file: buffers of its size, not 256 + 3 x 128 KiB (plain
       JSON: the same single read; gzip: zlib's buffers only, its input
       buffer the file's size up to HS__GZSMALL -- zlib's output buffer
       is twice that, and a read of more goes straight into ours) */
    if (fstat(fd, &fst) != 0)
        memset(&fst, 0, sizeof fst);   /* not a regular file: no hints */
    if (S_ISREG(fst.st_mode) && fst.st_size > 0)
        p->file_bytes = (uint64_t)fst.st_size;
    if (S_ISREG(fst.st_mode) &&
        fst.st_size >= 0 && (uint64_t)fst.st_size < HS__GZBUF) {
        p->gzbuf = fst.st_size < 4096            ? 4096u
                   : fst.st_size > HS__GZSMALL ? HS__GZSMALL
                                                 : (unsigned)fst.st_size;
        if (!p->is_gz)
            p->chunk = (size_t)fst.st_size + 1;
    }
    /* gzip: the trailer's ISIZE (the data's length mod 2^32, of the last
       member) as the first size of the read buffer -- a hint only: the
       buffer grows as the data comes (hs__read_grow) */
    if (p->is_gz && S_ISREG(fst.st_mode) && fst.st_size >= 18) {
        unsigned char t[4];

        if (pread(fd, t, 4, fst.st_size - 4) == 4)
            p->isize = (uint32_t)t[0] | (uint32_t)t[1] << 8 |
                       (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    }
}

/* Opens path, probes it into *p, and opens *src on it at offset 0.
   HS_OK with *src to close (hs__src_close, which closes the file), or
   an error in err with nothing left open: the file cannot be opened or
   read, is empty, or is named .gz without being gzip. */
static hs_err_t hs__open_src(const char *path, hs__src_t *src,
                             hs__probe_t *p, hs_error_t *err)
{
    size_t plen = strlen(path);
    hs_err_t rc;
    int fd;

    memset(p, 0, sizeof *p);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    hs__probe(fd, p);
    if (p->nm == 0) {
        close(fd);
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "the file is empty: expected a JSON trace");
    }
    if (!p->is_gz && plen > 3 && strcmp(path + plen - 3, ".gz") == 0) {
        close(fd);
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "byte 0: not a gzip file (the name ends in "
                            ".gz but the gzip magic bytes 1f 8b are "
                            "missing)");
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        rc = hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot read: %s",
                          strerror(errno));
        close(fd);
        return rc;
    }
    if ((rc = hs__src_open(src, fd, p->is_gz, p->gzbuf, path, err)) !=
        HS_OK)
        hs__src_close(src);
    return rc;
}

/* The read buffer's first size.  Plain JSON: chunk.  gzip: the data's
   size (the trailer's), at least HS__GZBUF0, and growing to chunk only
   as the data comes (hs__read_grow) -- room for all the data and the
   byte that sees its end, when the hint is right: one read; past
   HS__GZHINT, the full chunk at once (the trailer may claim up to
   4 GiB; the buffer never grows past chunk, and HS__GZHINT <
   HS__CHUNK, a gzip file's chunk). */
static size_t hs__first_cap(const hs__probe_t *p)
{
    size_t cap = p->chunk;

    if (p->is_gz) {
        size_t want = (size_t)p->isize + 1;

        cap = want < HS__GZBUF0 ? HS__GZBUF0 : want;
        if (cap > HS__GZHINT)
            cap = p->chunk;
    }
    return cap;
}

/* b with room for cap bytes: kept when it has it (an earlier pass's),
   else a new buffer; b->p is NULL when out of memory. */
static void hs__buf_reserve(hs_jscan_buf_t *b, size_t cap)
{
    if (b->cap < cap) {
        free(b->p);
        b->cap = 0;
        if ((b->p = malloc(cap)) != NULL)
            b->cap = cap;
    }
}

/* The error of a read that ended the stream early or badly: the gzip
   error with where the JSON parse stood.  Returns the error code. */
static hs_err_t hs__gz_fail(hs_jscan_t *js, hs__src_t *src)
{
    char w[160];
    long coff;
    const char *m = hs__src_msg(src, &coff);
    int wn = (int)strlen(hs__where(js, w, sizeof w));

    return hs_error_set(js->err, HS_ERR_SYNTAX, js->path, 0, 0,
                        "gzip error at compressed byte %ld "
                        "(after %" PRIu64 " bytes of JSON%s%.*s): "
                        "%s",
                        coff, js->base,
                        wn > 0 ? ", in " : "",
                        wn > 2 ? wn - 2 : 0, w, m);
}

/* The parse of one chunk p[0, n): HS_OK, or the error in
   js->err (invalid JSON, more than max_bytes, the reader's own). */
static hs_err_t hs__parse_chunk(hs_jscan_t *js, const unsigned char *p,
                                size_t n, int is_gz, uint64_t max_bytes)
{
    yajl_status st = yajl_parse(js->h, p, n);

    if (st == yajl_status_client_canceled)
        return js->rc;
    if (st != yajl_status_ok) {
        char m[256], w[160];
        uint64_t off = hs_jscan_offset(js);
        hs__yajl_msg(js->h, p, n, m, sizeof m);
        return hs_error_set(js->err, HS_ERR_SYNTAX, js->path, 0, 0,
                            "byte %" PRIu64 ": %sinvalid JSON: %s", off,
                            hs__where(js, w, sizeof w), m);
    }
    js->base += (uint64_t)n;
    if (js->base > max_bytes)
        return hs_error_set(js->err, HS_ERR_TRACE, js->path, 0, 0,
                            "byte %" PRIu64 ": the trace holds more "
                            "than %" PRIu64 " bytes of JSON%s (the "
                            "limit; a profiler trace of a few steps "
                            "is far smaller)", js->base, max_bytes,
                            is_gz ? " once inflated" : "");
    return HS_OK;
}

/* Streams src's data through js->h (in b, reads of up to p->chunk
   bytes) to its end.  HS_OK, or the error in js->err: a read or gzip
   error, invalid JSON, more than max_bytes of it, out of memory, or
   the reader's own (js->rc, when it cancelled the parse). */
static hs_err_t hs__feed(hs_jscan_t *js, hs__src_t *src, hs_jscan_buf_t *b,
                         const hs__probe_t *p, uint64_t max_bytes)
{
    const char *path = js->path;
    hs_error_t *err = js->err;

    for (;;) {
        int n = hs__read_grow(src, &b->p, &b->cap, p->chunk);
        hs_err_t rc;

        if (n == -2)
            return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                                "out of memory");
        if (n < 0 && !p->is_gz)
            return hs_error_set(err, HS_ERR_IO, path, 0, 0, "%s", src->msg);
        if (n <= 0) {
            /* a truncated gzip stream shows on the last read */
            if (n < 0 || hs__src_bad_end(src))
                return hs__gz_fail(js, src);
            return HS_OK;
        }
        if ((rc = hs__parse_chunk(js, b->p, (size_t)n, p->is_gz,
                                  max_bytes)) != HS_OK)
            return rc;
    }
}

/* The read-ahead ring of two-thread reading: the reading thread fills
   chunks (each one hs__read_grow of p->chunk bytes, as hs__feed reads
   them) in order; the parse takes them in the same order.  The reading
   thread stops after the chunk that ends the data (n <= 0: the end or
   an error, which it leaves in src for the parse to report), or when
   the parse sets stop. */
typedef struct hs__slot_s {
    unsigned char *p;
    size_t cap;
    int n;          /* hs__read_grow's count */
    int bad_end;    /* n <= 0 and hs__src_bad_end said so */
} hs__slot_t;

typedef struct hs__ring_s {
    hs__src_t *src;
    size_t chunk;
    hs__slot_t slot[HS_JSCAN_RING];
    unsigned head, count;   /* the next chunk to parse; chunks filled */
    int stop;               /* the parse gave up: stop reading */
    pthread_mutex_t mu;
    pthread_cond_t filled, freed;
    pthread_t th;
} hs__ring_t;

static void *hs__ring_reader(void *arg)
{
    hs__ring_t *r = arg;
    unsigned tail = 0;

    for (;;) {
        hs__slot_t *sl;

        pthread_mutex_lock(&r->mu);
        /* on a full ring, wait until half of it is free: a wake-up per
           half ring, not per chunk */
        if (r->count == HS_JSCAN_RING)
            while (r->count > HS_JSCAN_RING / 2 && !r->stop)
                pthread_cond_wait(&r->freed, &r->mu);
        if (r->stop) {
            pthread_mutex_unlock(&r->mu);
            return NULL;
        }
        pthread_mutex_unlock(&r->mu);
        sl = &r->slot[tail];
        /* sl->cap == chunk: the read never grows it (no -2) */
        sl->n = hs__read_grow(r->src, &sl->p, &sl->cap, r->chunk);
        sl->bad_end = sl->n <= 0 && (sl->n < 0 || hs__src_bad_end(r->src));
        pthread_mutex_lock(&r->mu);
        if (r->count++ == 0)
            pthread_cond_signal(&r->filled);   /* the parse may wait */
        pthread_mutex_unlock(&r->mu);
        if (sl->n <= 0)
            return NULL;
        tail = (tail + 1) % HS_JSCAN_RING;
    }
}

/* Frees the ring's chunks and primitives (after the thread, if any,
   was joined). */
static void hs__ring_free(hs__ring_t *r, int primitives)
{
    unsigned i;

    for (i = 0; i < HS_JSCAN_RING; i++)
        free(r->slot[i].p);
    if (primitives) {
        pthread_cond_destroy(&r->freed);
        pthread_cond_destroy(&r->filled);
        pthread_mutex_destroy(&r->mu);
    }
}

/* Allocates the ring's chunks and starts the reading thread.  0, or -1
   with nothing left (out of memory, or no thread: the caller reads in
   one thread instead). */
static int hs__ring_start(hs__ring_t *r, hs__src_t *src, size_t chunk)
{
    unsigned i;
    int nprim = 0;   /* of mu, filled, freed: how many are initialised */

    memset(r, 0, sizeof *r);
    r->src = src;
    r->chunk = chunk;
    for (i = 0; i < HS_JSCAN_RING; i++) {
        if ((r->slot[i].p = malloc(chunk)) == NULL)
            goto fail;
        r->slot[i].cap = chunk;
    }
    if (pthread_mutex_init(&r->mu, NULL) != 0)
        goto fail;
    nprim = 1;
    if (pthread_cond_init(&r->filled, NULL) != 0)
        goto fail;
    nprim = 2;
    if (pthread_cond_init(&r->freed, NULL) != 0)
        goto fail;
    nprim = 3;
    if (pthread_create(&r->th, NULL, hs__ring_reader, r) != 0)
        goto fail;
    return 0;
fail:
    if (nprim >= 3)
        pthread_cond_destroy(&r->freed);
    if (nprim >= 2)
        pthread_cond_destroy(&r->filled);
    if (nprim >= 1)
        pthread_mutex_destroy(&r->mu);
    hs__ring_free(r, 0);
    return -1;
}

/* Stops the reading thread (waiting for room: it wakes and ends;
   reading a chunk: it publishes it, sees stop and ends; done: it has
   ended), joins it and frees the ring.  Every path of the two-thread
   read ends here. */
static void hs__ring_stop(hs__ring_t *r)
{
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_signal(&r->freed);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->th, NULL);
    hs__ring_free(r, 1);
}

/* The next filled chunk (waits for it). */
static hs__slot_t *hs__ring_take(hs__ring_t *r)
{
    hs__slot_t *sl;

    pthread_mutex_lock(&r->mu);
    while (r->count == 0)
        pthread_cond_wait(&r->filled, &r->mu);
    sl = &r->slot[r->head];
    pthread_mutex_unlock(&r->mu);
    return sl;
}

/* Gives the chunk taken last back to the reading thread. */
static void hs__ring_give(hs__ring_t *r)
{
    pthread_mutex_lock(&r->mu);
    r->head = (r->head + 1) % HS_JSCAN_RING;
    if (r->count-- == HS_JSCAN_RING / 2 + 1)
        pthread_cond_signal(&r->freed);   /* the reader may wait */
    pthread_mutex_unlock(&r->mu);
}

/* hs__feed with the reading in a second thread (r, started): the same
   chunks in the same order, so the same results and errors.  The
   caller stops the ring. */
static hs_err_t hs__feed_ring(hs_jscan_t *js, hs__src_t *src, hs__ring_t *r,
                              const hs__probe_t *p, uint64_t max_bytes)
{
    for (;;) {
        hs__slot_t *sl = hs__ring_take(r);
        hs_err_t rc;

        /* n <= 0: the reading thread has stopped and left src alone;
           what it wrote there is seen through the ring's mutex */
        if (sl->n < 0 && !p->is_gz)
            return hs_error_set(js->err, HS_ERR_IO, js->path, 0, 0, "%s",
                                src->msg);
        if (sl->n <= 0)
            return sl->bad_end ? hs__gz_fail(js, src) : HS_OK;
        rc = hs__parse_chunk(js, sl->p, (size_t)sl->n, p->is_gz, max_bytes);
        if (rc != HS_OK)
            return rc;
        hs__ring_give(r);
    }
}

/* After the last byte: no data at all is an error, else yajl's end of
   document (a truncated one is an error).  HS_OK, or the error in
   js->err (js->rc when the reader cancelled). */
static hs_err_t hs__finish(hs_jscan_t *js)
{
    yajl_status st;

    if (js->base == 0)
        return hs_error_set(js->err, HS_ERR_SYNTAX, js->path, 0, 0,
                            "the file holds no data: expected a JSON "
                            "trace");
    st = yajl_complete_parse(js->h);
    if (st == yajl_status_client_canceled)
        return js->rc;
    if (st != yajl_status_ok) {
        char m[256], w[160];
        hs__yajl_msg(js->h, (const unsigned char *)"", 0, m, sizeof m);
        return hs_error_set(js->err, HS_ERR_SYNTAX, js->path, 0, 0,
                            "byte %" PRIu64
                            ": %sinvalid JSON (truncated?): %s",
                            js->base, hs__where(js, w, sizeof w), m);
    }
    return HS_OK;
}

hs_err_t hs_jscan_file_buf(hs_jscan_t *js, const char *path,
                           const yajl_callbacks *cb, void *ctx,
                           hs_jscan_where_fn where, hs_jscan_buf_t *b,
                           hs_error_t *err)
{
    hs_jscan_buf_t own = {NULL, 0, 1};
    hs__src_t src;
    hs__probe_t probe;
    hs__ring_t ring;
    hs_err_t rc;
    uint64_t max_bytes = hs__max_bytes();

    memset(js, 0, sizeof *js);
    js->path = path;
    js->err = err;
    js->where = where;
    js->ctx = ctx;
    if ((rc = hs__open_src(path, &src, &probe, err)) != HS_OK)
        return rc;
    if (b == NULL)
        b = &own;
    js->h = yajl_alloc(cb, NULL, ctx);
    if (js->h == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
        goto done;
    }
    /* kernel names are long; only ASCII prefixes are ever compared, so
       UTF-8 validation of every string is not worth its time */
    yajl_config(js->h, yajl_dont_validate_strings, 1);
    if (b->threads >= 2 && probe.file_bytes >= hs__thread_min_bytes() &&
        hs__ring_start(&ring, &src, probe.chunk) == 0) {
        rc = hs__feed_ring(js, &src, &ring, &probe, max_bytes);
        hs__ring_stop(&ring);
    } else {
        /* the caller's buffer when it has room (an earlier pass's),
           else a new one */
        hs__buf_reserve(b, hs__first_cap(&probe));
        rc = b->p == NULL ? hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                                         "out of memory")
                          : hs__feed(js, &src, b, &probe, max_bytes);
    }
    if (rc != HS_OK)
        goto done;
    rc = hs__finish(js);
done:
    if (js->h != NULL)
        yajl_free(js->h);
    js->h = NULL;
    hs_jscan_buf_free(&own);
    hs__src_close(&src);
    return rc;
}
