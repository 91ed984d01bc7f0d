/*
 * hs_rank.c -- the per-rank record (hs_rank.h).
 *
 * A spilled record's file holds its entries back to back, in step
 * order, each: the hs_ingest_step_t as it is in memory; has_bwd and
 * timed (int32 each), the bucket count (uint64) and the buckets'
 * bytes then ready times (8 bytes each); the operator count (uint64)
 * and the operators' name indices (uint32 each) then times (int64
 * each).  The file is this process's own and is read back by the same
 * build, so the raw layout needs no versioning.  A cursor reads it
 * with pread through its own buffer: several cursors, and the writer's
 * stdio position, do not disturb one another.
 */
#include "hs_rank.h"
#include "hs_reclog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A cursor's read buffer. */
#define HS_RANK_CUR_BUF 65536u

hs_rank_t *hs_rank_new(const char *path)
{
    hs_rank_t *r = calloc(1, sizeof *r);

    if (r == NULL)
        goto fail;
    if ((r->path = strdup(path)) == NULL)
        goto fail;
    r->rank = -1;
    r->world_size = -1;
    return r;
fail:
    hs_rank_free(r);
    return NULL;
}

/* Frees the arrays of held entries [0, n) of r and zeroes them. */
static void hs__entries_free(hs_rank_t *r, size_t n)
{
    size_t i;

    for (i = 0; r->buckets != NULL && i < n; i++) {
        free(r->buckets[i].bytes);
        free(r->buckets[i].ready_ns);
        memset(&r->buckets[i], 0, sizeof r->buckets[i]);
    }
    for (i = 0; r->fwd_ops != NULL && i < n; i++) {
        free(r->fwd_ops[i].name);
        free(r->fwd_ops[i].ns);
        memset(&r->fwd_ops[i], 0, sizeof r->fwd_ops[i]);
    }
    if (r->steps != NULL)
        memset(r->steps, 0, n * sizeof *r->steps);
}

void hs_rank_free(hs_rank_t *r)
{
    size_t i;

    if (r == NULL)
        return;
    hs__entries_free(r, r->spill != NULL ? r->n_held : r->n_steps);
    free(r->buckets);
    free(r->fwd_ops);
    for (i = 0; i < r->n_op_names; i++)
        free(r->op_names[i]);
    free(r->op_names);
    free(r->steps);
    free(r->path);
    if (r->spill != NULL)
        fclose(r->spill);
    free(r);
}

hs_err_t hs_rank_spill_start(hs_rank_t *r, hs_error_t *err)
{
    if (r->spill != NULL)
        return HS_OK;
    return hs_reclog_tmpfile_open(&r->spill, "records", "steps", r->path,
                                  err);
}

/* Writes held entry i of r to its spill file; 0, or -1 on a write
   error. */
static int hs__entry_write(hs_rank_t *r, size_t i)
{
    const hs_rank_buckets_t *b = &r->buckets[i];
    const hs_rank_ops_t *o = &r->fwd_ops[i];
    int32_t flags[2] = {b->has_bwd, b->timed};
    uint64_t nb = b->n, no = o->n;
    FILE *f = r->spill;

    if (fwrite(&r->steps[i], sizeof r->steps[i], 1, f) != 1 ||
        fwrite(flags, sizeof flags, 1, f) != 1 ||
        fwrite(&nb, sizeof nb, 1, f) != 1 ||
        (nb > 0 && (fwrite(b->bytes, sizeof *b->bytes, nb, f) != nb ||
                    fwrite(b->ready_ns, sizeof *b->ready_ns, nb, f) !=
                        nb)) ||
        fwrite(&no, sizeof no, 1, f) != 1 ||
        (no > 0 && (fwrite(o->name, sizeof *o->name, no, f) != no ||
                    fwrite(o->ns, sizeof *o->ns, no, f) != no)))
        return -1;
    return 0;
}

hs_err_t hs_rank_spill(hs_rank_t *r, size_t n, hs_error_t *err)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (hs__entry_write(r, i) != 0)
            goto fail;
    if (fflush(r->spill) != 0)
        goto fail;
    hs__entries_free(r, n);
    r->n_spilled += n;
    return HS_OK;
fail:
    return hs_error_set(err, HS_ERR_IO, r->path, 0, 0,
                        "cannot write the trace's steps to a temporary "
                        "file: %s", strerror(errno));
}

/* len bytes of c's record's spill file, from where c is, into dst; 0,
   or -1 when the file ends first or cannot be read (errno). */
static int hs__cur_take(hs_rank_cur_t *c, void *dst, size_t len)
{
    unsigned char *d = dst;

    while (len > 0) {
        size_t k;
        if (c->buf_at == c->buf_len) {
            ssize_t got = pread(fileno(c->r->spill), c->buf,
                                HS_RANK_CUR_BUF, (off_t)c->pos);
            if (got <= 0) {
                if (got == 0)
                    errno = EIO;
                return -1;
            }
            c->pos += (uint64_t)got;
            c->buf_len = (size_t)got;
            c->buf_at = 0;
        }
        k = c->buf_len - c->buf_at < len ? c->buf_len - c->buf_at : len;
        memcpy(d, c->buf + c->buf_at, k);
        c->buf_at += k;
        d += k;
        len -= k;
    }
    return 0;
}

/* Room in c for nb buckets and no operators; 0, or -1 (out of memory). */
static int hs__cur_room(hs_rank_cur_t *c, size_t nb, size_t no)
{
    if (nb > c->cap_b) {
        uint64_t *b = realloc(c->b.bytes, nb * sizeof *b);
        int64_t *t;
        if (b == NULL)
            return -1;
        c->b.bytes = b;
        if ((t = realloc(c->b.ready_ns, nb * sizeof *t)) == NULL)
            return -1;
        c->b.ready_ns = t;
        c->cap_b = nb;
    }
    if (no > c->cap_o) {
        uint32_t *nm = realloc(c->o.name, no * sizeof *nm);
        int64_t *t;
        if (nm == NULL)
            return -1;
        c->o.name = nm;
        if ((t = realloc(c->o.ns, no * sizeof *t)) == NULL)
            return -1;
        c->o.ns = t;
        c->cap_o = no;
    }
    return 0;
}

/* The next entry of the file into c; HS_OK, or the error. */
static hs_err_t hs__cur_next(hs_rank_cur_t *c, hs_error_t *err)
{
    int32_t flags[2];
    uint64_t nb, no;

    if (hs__cur_take(c, &c->s, sizeof c->s) != 0 ||
        hs__cur_take(c, flags, sizeof flags) != 0 ||
        hs__cur_take(c, &nb, sizeof nb) != 0)
        goto io;
    if (nb > SIZE_MAX / sizeof(uint64_t) || hs__cur_room(c, nb, 0) != 0)
        goto nomem;
    if (nb > 0 && (hs__cur_take(c, c->b.bytes, nb * 8) != 0 ||
                   hs__cur_take(c, c->b.ready_ns, nb * 8) != 0))
        goto io;
    if (hs__cur_take(c, &no, sizeof no) != 0)
        goto io;
    if (no > SIZE_MAX / sizeof(int64_t) || hs__cur_room(c, 0, no) != 0)
        goto nomem;
    if (no > 0 && (hs__cur_take(c, c->o.name, no * 4) != 0 ||
                   hs__cur_take(c, c->o.ns, no * 8) != 0))
        goto io;
    c->b.has_bwd = flags[0];
    c->b.timed = flags[1];
    c->b.n = nb;
    c->o.n = no;
    c->next++;
    return HS_OK;
io:
    return hs_error_set(err, HS_ERR_IO, c->r->path, 0, 0,
                        "cannot read the trace's steps back from their "
                        "temporary file: %s", strerror(errno));
nomem:
    return hs_error_set(err, HS_ERR_NOMEM, c->r->path, 0, 0,
                        "out of memory");
}

hs_err_t hs_rank_at(const hs_rank_t *r, size_t j, hs_rank_cur_t *c,
                    hs_error_t *err)
{
    hs_err_t rc;

    if (r->spill == NULL) {
        c->step = &r->steps[j];
        c->bk = &r->buckets[j];
        c->ops = &r->fwd_ops[j];
        return HS_OK;
    }
    if (c->buf == NULL && (c->buf = malloc(HS_RANK_CUR_BUF)) == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, r->path, 0, 0,
                            "out of memory");
    if (c->r != r || j + 1 < c->next || c->next == 0) {
        /* from the first entry */
        if (fflush(r->spill) != 0)
            return hs_error_set(err, HS_ERR_IO, r->path, 0, 0,
                                "cannot write the trace's steps to a "
                                "temporary file: %s", strerror(errno));
        c->r = r;
        c->next = 0;
        c->pos = 0;
        c->buf_len = c->buf_at = 0;
    }
    while (c->next <= j)
        if ((rc = hs__cur_next(c, err)) != HS_OK) {
            c->next = 0;
            return rc;
        }
    c->step = &c->s;
    c->bk = &c->b;
    c->ops = &c->o;
    return HS_OK;
}

void hs_rank_cur_clear(hs_rank_cur_t *c)
{
    free(c->b.bytes);
    free(c->b.ready_ns);
    free(c->o.name);
    free(c->o.ns);
    free(c->buf);
    memset(c, 0, sizeof *c);
}
