/* hs_reclog.c -- fixed-size records in memory, spilled to a temporary
   file past a budget (hs_reclog.h). */
#include "hs_reclog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first block: a few records, so a small trace costs little. */
#define HS__RECLOG_FIRST 64u
/* The replay's read buffer for the spilled records. */
#define HS__RECLOG_RBUF (64u * 1024u)

void hs_reclog_init(hs_reclog_t *l, size_t rec_size, size_t mem_bytes)
{
    memset(l, 0, sizeof *l);
    l->rec_size = rec_size;
    l->max_recs = mem_bytes / rec_size;
    if (l->max_recs == 0)
        l->max_recs = 1;
    l->zone_recs = HS__RECLOG_RBUF / rec_size;
    if (l->zone_recs == 0)
        l->zone_recs = 1;
}

void hs_reclog_set_key(hs_reclog_t *l, hs_reclog_key_fn key)
{
    l->key = key;
}

void hs_reclog_clear(hs_reclog_t *l)
{
    if (l == NULL)
        return;
    free(l->zones);
    l->zones = NULL;
    l->n_zones = l->cap_zones = 0;
    free(l->wbuf);
    free(l->prev);
    l->wbuf = NULL;
    l->prev = NULL;
    l->spill_bytes = 0;
    free(l->mem);
    if (l->spill != NULL)
        fclose(l->spill);
    l->mem = NULL;
    l->spill = NULL;
    l->cap_recs = l->n_mem = 0;
    l->n = l->n_spilled = 0;
}

/* A new unlinked temporary file in $TMPDIR (else /tmp), or NULL. */
FILE *hs_reclog_tmpfile_as(const char *what)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int fd;
    FILE *f;

    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    if ((size_t)snprintf(path, sizeof path, "%s/hetsim-%s-XXXXXX", dir,
                         what) >= sizeof path)
        return NULL;
    fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    unlink(path);
    f = fdopen(fd, "w+b");
    if (f == NULL)
        close(fd);
    return f;
}

FILE *hs_reclog_tmpfile(void)
{
    return hs_reclog_tmpfile_as("records");
}

hs_err_t hs_reclog_tmpfile_open(FILE **f, const char *word,
                                const char *what, const char *path,
                                hs_error_t *err)
{
    const char *dir;
    int e;

    if ((*f = hs_reclog_tmpfile_as(word)) != NULL)
        return HS_OK;
    e = errno;
    dir = getenv("TMPDIR");
    return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                        "cannot make a temporary file for the trace's %s "
                        "in %s: %s",
                        what, dir ? dir : "/tmp", strerror(e));
}

int hs_reclog_pread(FILE *f, void *buf, size_t n, uint64_t off)
{
    int fd = fileno(f);
    size_t got = 0;

    while (got < n) {
        ssize_t r = pread(fd, (unsigned char *)buf + got, n - got,
                          (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = 0;
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

int hs_reclog_pwrite(FILE *f, const void *buf, size_t n, uint64_t off)
{
    int fd = fileno(f);
    size_t put = 0;

    while (put < n) {
        ssize_t r = pwrite(fd, (const unsigned char *)buf + put, n - put,
                           (off_t)(off + put));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO;
            return -1;
        }
        put += (size_t)r;
    }
    return 0;
}

/* The spilled zones' encoding.  A record whose size is a multiple of 8
   bytes is seen as lanes of 8 bytes (in the host's order: the file never
   leaves the process), and each lane is written as the zigzag LEB128
   varint of its wrapping difference (uint64_t subtraction) from the same
   lane of the zone's previous record, the zone's first record against
   zero: every value comes back exactly, and the times, ids and small
   fields that change little from one record to the next take a byte or
   two instead of eight.  Records of other sizes are written as they are.
   Each zone is encoded on its own, so that a replay of a key range reads
   only the zones it needs. */
#define HS__VARINT_MAX 10u

/* The lanes of a record, or 0 when its records are written raw. */
static size_t hs__lanes(const hs_reclog_t *l)
{
    return l->rec_size % 8 == 0 ? l->rec_size / 8 : 0;
}

/* The most bytes a zone's records take in the file. */
static size_t hs__zone_bound(const hs_reclog_t *l)
{
    size_t lanes = hs__lanes(l);

    return lanes ? l->zone_recs * lanes * HS__VARINT_MAX
                 : l->zone_recs * l->rec_size;
}

/* Encodes the n records at rec (lanes lanes each) to out, against the
   zone's previous record prev (updated); the bytes written. */
static size_t hs__encode(uint64_t *prev, size_t lanes,
                         const unsigned char *rec, size_t n,
                         unsigned char *out)
{
    unsigned char *o = out;
    size_t i, k;

    for (i = 0; i < n; i++)
        for (k = 0; k < lanes; k++, rec += 8) {
            uint64_t v, d;

            memcpy(&v, rec, 8);
            d = v - prev[k];
            prev[k] = v;
            d = (d << 1) ^ (UINT64_C(0) - (d >> 63));
            while (d >= 0x80) {
                *o++ = (unsigned char)(d | 0x80);
                d >>= 7;
            }
            *o++ = (unsigned char)d;
        }
    return (size_t)(o - out);
}

/* Decodes n records of lanes lanes from the len bytes at in to out.  0,
   or -1 when the bytes are not exactly n records' worth: a varint that
   runs past the end or past 64 bits, or bytes left over. */
static int hs__decode(size_t lanes, const unsigned char *in, size_t len,
                      unsigned char *out, size_t n)
{
    const unsigned char *p = in, *end = in + len;
    size_t i, k;

    for (i = 0; i < n; i++)
        for (k = 0; k < lanes; k++, out += 8) {
            uint64_t d = 0, base = 0, v;
            unsigned sh = 0, b;

            for (;;) {
                if (p == end)
                    return -1;
                b = *p++;
                d |= (uint64_t)(b & 0x7fu) << sh;
                if (b < 0x80u)
                    break;
                if ((sh += 7) > 63)
                    return -1;
            }
            if (sh == 63 && b > 1)
                return -1;      /* a 10th byte past the 64th bit */
            if (i > 0)
                memcpy(&base, out - lanes * 8, 8);
            v = base + ((d >> 1) ^ (UINT64_C(0) - (d & 1)));
            memcpy(out, &v, 8);
        }
    return p == end ? 0 : -1;
}

/* Opens a zone at the file's end, starting with record rec; 0, or -1
   when out of memory. */
static int hs__zone_new(hs_reclog_t *l, const unsigned char *rec)
{
    hs_reclog_zone_t *z;

    if (l->n_zones == l->cap_zones) {
        size_t nc = l->cap_zones ? l->cap_zones * 2 : 64;
        hs_reclog_zone_t *a = realloc(l->zones, nc * sizeof *a);

        if (a == NULL)
            return -1;
        l->zones = a;
        l->cap_zones = nc;
    }
    z = &l->zones[l->n_zones++];
    z->off = l->spill_bytes;
    z->kmin = z->kmax = l->key != NULL ? l->key(rec) : 0;
    if (l->prev != NULL)
        memset(l->prev, 0, hs__lanes(l) * sizeof *l->prev);
    return 0;
}

/* The keys of the n records at rec into the open zone's span. */
static void hs__zone_keys(hs_reclog_t *l, const unsigned char *rec,
                          size_t n)
{
    hs_reclog_zone_t *z = &l->zones[l->n_zones - 1];
    size_t i;

    for (i = 0; i < n; i++, rec += l->rec_size) {
        int64_t k = l->key(rec);

        if (k < z->kmin)
            z->kmin = k;
        if (k > z->kmax)
            z->kmax = k;
    }
}

/* The encoder's buffers, when the log's records are encoded; 0, or -1
   when out of memory. */
static int hs__enc_ready(hs_reclog_t *l)
{
    size_t lanes = hs__lanes(l);

    if (lanes == 0)
        return 0;
    if (l->prev == NULL && (l->prev = calloc(lanes, sizeof *l->prev)) == NULL)
        return -1;
    if (l->wbuf == NULL && (l->wbuf = malloc(hs__zone_bound(l))) == NULL)
        return -1;
    return 0;
}

/* Appends the in-memory block to the open spill file, zone by zone
   (each encoded, and its keys' span kept when the log is keyed), and
   empties the block. */
static hs_err_t hs__spill_block(hs_reclog_t *l, const char *path,
                                hs_error_t *err)
{
    size_t lanes = hs__lanes(l), i = 0;

    if (hs__enc_ready(l) != 0)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    while (i < l->n_mem) {
        const unsigned char *rec = l->mem + i * l->rec_size;
        size_t at = (size_t)(l->n_spilled % l->zone_recs);
        size_t m = l->zone_recs - at, nb;

        if (m > l->n_mem - i)
            m = l->n_mem - i;
        if (at == 0 && hs__zone_new(l, rec) != 0)
            return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                                "out of memory");
        if (l->key != NULL)
            hs__zone_keys(l, rec, m);
        nb = lanes ? hs__encode(l->prev, lanes, rec, m, l->wbuf)
                   : m * l->rec_size;
        if (hs_reclog_pwrite(l->spill, lanes ? l->wbuf : rec, nb,
                             l->spill_bytes) != 0)
            return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                "cannot write the trace's records to a "
                                "temporary file: %s", strerror(errno));
        l->spill_bytes += nb;
        l->n_spilled += m;
        i += m;
    }
    l->n_mem = 0;
    return HS_OK;
}

hs_err_t hs_reclog_slow_add(hs_reclog_t *l, const void *rec,
                            const char *path, hs_error_t *err)
{
    hs_err_t e;

    if (l->cap_recs < l->max_recs) {
        size_t nc = l->cap_recs ? l->cap_recs * 2 : HS__RECLOG_FIRST;
        unsigned char *p;

        if (nc > l->max_recs)
            nc = l->max_recs;
        p = realloc(l->mem, nc * l->rec_size);
        if (p == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                                "out of memory");
        l->mem = p;
        l->cap_recs = nc;
    } else {
        /* the block is full at the budget: to the file with it */
        if (l->spill == NULL &&
            (e = hs_reclog_tmpfile_open(&l->spill, "records", "records",
                                        path, err)) != HS_OK)
            return e;
        if ((e = hs__spill_block(l, path, err)) != HS_OK)
            return e;
    }
    return hs_reclog_add(l, rec, path, err);
}

hs_err_t hs_reclog_seal(hs_reclog_t *l, const char *path, hs_error_t *err)
{
    if (l->spill == NULL)
        return HS_OK;
    if (l->n_mem > 0) {
        hs_err_t e = hs__spill_block(l, path, err);

        if (e != HS_OK)
            return e;
    }
    free(l->mem);
    free(l->wbuf);      /* the open zone's last record stays, in prev */
    l->mem = NULL;
    l->wbuf = NULL;
    l->cap_recs = 0;
    return HS_OK;
}

/* Reads spilled zone z back: its records (*n of them) to rbuf, through
   ebuf (hs__zone_bound bytes) when they are encoded.  HS_ERR_IO when the
   file is short, cannot be read, or does not decode. */
static hs_err_t hs__zone_read(hs_reclog_t *l, size_t z, unsigned char *ebuf,
                              unsigned char *rbuf, size_t *n,
                              const char *path, hs_error_t *err)
{
    uint64_t first = (uint64_t)z * l->zone_recs, off = l->zones[z].off;
    uint64_t end = z + 1 < l->n_zones ? l->zones[z + 1].off : l->spill_bytes;
    size_t lanes = hs__lanes(l), len;

    *n = l->n_spilled - first < l->zone_recs ? (size_t)(l->n_spilled - first)
                                             : l->zone_recs;
    if (end < off || end - off > hs__zone_bound(l) ||
        (lanes == 0 && end - off != (uint64_t)*n * l->rec_size))
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "cannot read the trace's records back: zone "
                            "%zu of the temporary file has a wrong length",
                            z);
    len = (size_t)(end - off);
    if (hs_reclog_pread(l->spill, lanes ? ebuf : rbuf, len, off) != 0) {
        int e = errno;

        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "cannot read the trace's records back: %s",
                            e != 0 ? strerror(e) : "short file");
    }
    if (lanes && hs__decode(lanes, ebuf, len, rbuf, *n) != 0)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "cannot read the trace's records back: zone "
                            "%zu of the temporary file is corrupted", z);
    return HS_OK;
}

/* Replays the spilled zones (those whose keys meet [lo, hi] when ranged
   and the log is keyed), then the block. */
static hs_err_t hs__replay(hs_reclog_t *l, int ranged, int64_t lo,
                           int64_t hi, hs_reclog_fn fn, void *ctx,
                           const char *path, hs_error_t *err)
{
    hs_err_t rc = HS_OK;
    size_t z, i, n;

    ranged = ranged && l->key != NULL;
    if (l->n_spilled > 0) {
        unsigned char *rbuf = malloc(l->zone_recs * l->rec_size);
        unsigned char *ebuf =
            hs__lanes(l) ? malloc(hs__zone_bound(l)) : NULL;

        if (rbuf == NULL || (hs__lanes(l) && ebuf == NULL)) {
            free(rbuf);
            free(ebuf);
            return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                                "out of memory");
        }
        for (z = 0; z < l->n_zones && rc == HS_OK; z++) {
            if (ranged && (l->zones[z].kmax < lo || l->zones[z].kmin > hi))
                continue;   /* no record of the range in this zone */
            rc = hs__zone_read(l, z, ebuf, rbuf, &n, path, err);
            for (i = 0; i < n && rc == HS_OK; i++)
                rc = fn(ctx, rbuf + i * l->rec_size);
        }
        free(rbuf);
        free(ebuf);
    }
    for (i = 0; i < l->n_mem && rc == HS_OK; i++)
        rc = fn(ctx, l->mem + i * l->rec_size);
    return rc;
}

hs_err_t hs_reclog_each(hs_reclog_t *l, hs_reclog_fn fn, void *ctx,
                        const char *path, hs_error_t *err)
{
    return hs__replay(l, 0, 0, 0, fn, ctx, path, err);
}

hs_err_t hs_reclog_each_range(hs_reclog_t *l, int64_t lo, int64_t hi,
                              hs_reclog_fn fn, void *ctx, const char *path,
                              hs_error_t *err)
{
    return hs__replay(l, 1, lo, hi, fn, ctx, path, err);
}
