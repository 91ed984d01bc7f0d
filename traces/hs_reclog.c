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
}

void hs_reclog_set_key(hs_reclog_t *l, hs_reclog_key_fn key)
{
    l->key = key;
    l->zone_recs = HS__RECLOG_RBUF / l->rec_size;
    if (l->zone_recs == 0)
        l->zone_recs = 1;
}

void hs_reclog_clear(hs_reclog_t *l)
{
    if (l == NULL)
        return;
    free(l->zmin);
    free(l->zmax);
    l->zmin = l->zmax = NULL;
    l->n_zones = l->cap_zones = 0;
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

/* The keys of the block's records (about to be spilled after the
   n_spilled ones) into the zones; 0, or -1 when out of memory. */
static int hs__zones_add(hs_reclog_t *l)
{
    size_t i;

    for (i = 0; i < l->n_mem; i++) {
        uint64_t idx = l->n_spilled + i;
        size_t z = (size_t)(idx / l->zone_recs);
        int64_t k = l->key(l->mem + i * l->rec_size);

        if (z == l->n_zones) {
            if (z == l->cap_zones) {
                size_t nc = l->cap_zones ? l->cap_zones * 2 : 64;
                int64_t *a = realloc(l->zmin, nc * sizeof *a), *b;
                if (a == NULL)
                    return -1;
                l->zmin = a;
                if ((b = realloc(l->zmax, nc * sizeof *b)) == NULL)
                    return -1;
                l->zmax = b;
                l->cap_zones = nc;
            }
            l->zmin[z] = l->zmax[z] = k;
            l->n_zones++;
        } else {
            if (k < l->zmin[z])
                l->zmin[z] = k;
            if (k > l->zmax[z])
                l->zmax[z] = k;
        }
    }
    return 0;
}

/* Appends the in-memory block to the open spill file (its zone indexed
   first when the log is keyed) and empties the block. */
static hs_err_t hs__spill_block(hs_reclog_t *l, const char *path,
                                hs_error_t *err)
{
    if (l->key != NULL && hs__zones_add(l) != 0)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    if (fwrite(l->mem, l->rec_size, l->n_mem, l->spill) != l->n_mem)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "cannot write the trace's records to a "
                            "temporary file: %s", strerror(errno));
    l->n_spilled += l->n_mem;
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
        if (l->spill == NULL && (l->spill = hs_reclog_tmpfile()) == NULL)
            return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                "cannot make a temporary file for the "
                                "trace's records in %s: %s",
                                getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                                strerror(errno));
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
    l->mem = NULL;
    l->cap_recs = 0;
    return HS_OK;
}

hs_err_t hs_reclog_each(hs_reclog_t *l, hs_reclog_fn fn, void *ctx,
                        const char *path, hs_error_t *err)
{
    hs_err_t rc;
    size_t i;

    if (l->n_spilled > 0) {
        size_t per = HS__RECLOG_RBUF / l->rec_size;
        unsigned char *buf;
        uint64_t left = l->n_spilled;

        if (per == 0)
            per = 1;
        if (fflush(l->spill) != 0 || fseek(l->spill, 0, SEEK_SET) != 0)
            return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                "cannot read the trace's records back: %s",
                                strerror(errno));
        if ((buf = malloc(per * l->rec_size)) == NULL)
            return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                                "out of memory");
        while (left > 0) {
            size_t want = left < per ? (size_t)left : per;
            size_t got = fread(buf, l->rec_size, want, l->spill);

            if (got != want) {
                free(buf);
                return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                    "cannot read the trace's records "
                                    "back: %s",
                                    ferror(l->spill) ? strerror(errno)
                                                     : "short file");
            }
            for (i = 0; i < got; i++)
                if ((rc = fn(ctx, buf + i * l->rec_size)) != HS_OK) {
                    free(buf);
                    return rc;
                }
            left -= got;
        }
        free(buf);
        /* appending again goes on at the end */
        if (fseek(l->spill, 0, SEEK_END) != 0)
            return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                "cannot seek in the records' file: %s",
                                strerror(errno));
    }
    for (i = 0; i < l->n_mem; i++)
        if ((rc = fn(ctx, l->mem + i * l->rec_size)) != HS_OK)
            return rc;
    return HS_OK;
}

hs_err_t hs_reclog_each_range(hs_reclog_t *l, int64_t lo, int64_t hi,
                              hs_reclog_fn fn, void *ctx, const char *path,
                              hs_error_t *err)
{
    unsigned char *buf;
    hs_err_t rc = HS_OK;
    size_t z, i;

    if (l->key == NULL || l->n_spilled == 0)
        return hs_reclog_each(l, fn, ctx, path, err);
    if (fflush(l->spill) != 0)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "cannot read the trace's records back: %s",
                            strerror(errno));
    if ((buf = malloc(l->zone_recs * l->rec_size)) == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    for (z = 0; z < l->n_zones && rc == HS_OK; z++) {
        uint64_t first = (uint64_t)z * l->zone_recs;
        size_t n = l->n_spilled - first < l->zone_recs
                       ? (size_t)(l->n_spilled - first)
                       : l->zone_recs;

        if (l->zmax[z] < lo || l->zmin[z] > hi)
            continue;   /* no record of the range in this zone */
        if (hs_reclog_pread(l->spill, buf, n * l->rec_size,
                            first * l->rec_size) != 0) {
            int e = errno;

            free(buf);
            return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                "cannot read the trace's records back: %s",
                                e != 0 ? strerror(e) : "short file");
        }
        for (i = 0; i < n && rc == HS_OK; i++)
            rc = fn(ctx, buf + i * l->rec_size);
    }
    free(buf);
    for (i = 0; i < l->n_mem && rc == HS_OK; i++)
        rc = fn(ctx, l->mem + i * l->rec_size);
    return rc;
}
