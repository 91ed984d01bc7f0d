/*
 * hs_xsort.c -- a sort of fixed-size records in bounded memory (runs
 * sorted in memory and written to a temporary file, then merged by a
 * heap of the runs); see hs_xsort.h.
 */
#include "hs_xsort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

hs_err_t hs_xsort_init(hs_xsort_t *u, size_t rec_size, size_t mem_bytes,
                       hs_xsort_cmp_fn cmp, const char *what,
                       const char *tmp_word, const char *path,
                       hs_error_t *err)
{
    memset(u, 0, sizeof *u);
    u->rec_size = rec_size;
    u->cmp = cmp;
    u->what = what;
    u->tmp_word = tmp_word;
    u->path = path;
    u->err = err;
    u->cap = mem_bytes / rec_size;
    if (u->cap == 0)
        u->cap = 1;
    if ((u->buf = malloc(u->cap * rec_size)) == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    return HS_OK;
}

void hs_xsort_clear(hs_xsort_t *u)
{
    if (u == NULL)
        return;
    free(u->buf);
    free(u->off);
    free(u->pos);
    free(u->at);
    free(u->got);
    free(u->heap);
    if (u->file != NULL)
        fclose(u->file);
    u->buf = NULL;
    u->off = u->pos = NULL;
    u->at = u->got = u->heap = NULL;
    u->file = NULL;
    u->n = u->n_runs = u->cap_runs = u->n_heap = 0;
}

/* The run being filled, sorted, to the file (made at the first). */
static hs_err_t hs__xrun_flush(hs_xsort_t *u)
{
    hs_err_t rc;

    if (u->file == NULL &&
        (rc = hs_reclog_tmpfile_open(&u->file, u->tmp_word, u->what,
                                     u->path, u->err)) != HS_OK)
        return rc;
    if (u->n_runs + 2 > u->cap_runs) {
        size_t nc = u->cap_runs ? 2 * u->cap_runs : 16;
        uint64_t *no = realloc(u->off, nc * sizeof *no);

        if (no == NULL)
            return hs_error_set(u->err, HS_ERR_NOMEM, u->path, 0, 0,
                                "out of memory");
        u->off = no;
        u->cap_runs = nc;
    }
    qsort(u->buf, u->n, u->rec_size, u->cmp);
    if (hs_reclog_pwrite(u->file, u->buf, u->n * u->rec_size,
                         u->total * u->rec_size) != 0)
        return hs_error_set(u->err, HS_ERR_IO, u->path, 0, 0,
                            "cannot write the %s to a temporary file: %s",
                            u->what, strerror(errno));
    u->off[u->n_runs++] = u->total;
    u->total += u->n;
    u->off[u->n_runs] = u->total;
    u->n = 0;
    return HS_OK;
}

hs_err_t hs_xsort_add(hs_xsort_t *u, const void *rec)
{
    memcpy(u->buf + u->n * u->rec_size, rec, u->rec_size);
    return ++u->n == u->cap ? hs__xrun_flush(u) : HS_OK;
}

/* Run r's next record (its buffer read again from the file when it is
   used up); NULL once the run is over, or on error (err filled, *rc
   set). */
static const void *hs__xrun_head(hs_xsort_t *u, size_t r, hs_err_t *rc)
{
    unsigned char *b = u->buf + r * u->per * u->rec_size;

    if (u->at[r] == u->got[r]) {
        uint64_t left = u->off[r + 1] - u->pos[r];
        size_t n = left < u->per ? (size_t)left : u->per;

        if (n == 0)
            return NULL;
        if (hs_reclog_pread(u->file, b, n * u->rec_size,
                            u->pos[r] * u->rec_size) != 0) {
            int e = errno;

            *rc = hs_error_set(u->err, HS_ERR_IO, u->path, 0, 0,
                               "cannot read the %s back from their "
                               "temporary file: %s", u->what,
                               e != 0 ? strerror(e) : "short file");
            return NULL;
        }
        u->pos[r] += n;
        u->at[r] = 0;
        u->got[r] = n;
    }
    return b + u->at[r] * u->rec_size;
}

/* Whether run a's next record comes before run b's (both have one:
   their buffers are filled). */
static int hs__xrun_less(hs_xsort_t *u, size_t a, size_t b)
{
    hs_err_t rc = HS_OK;

    return u->cmp(hs__xrun_head(u, a, &rc), hs__xrun_head(u, b, &rc)) < 0;
}

/* The heap's entry i moved down to its place. */
static void hs__xheap_down(hs_xsort_t *u, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i, t;

        if (l < u->n_heap && hs__xrun_less(u, u->heap[l], u->heap[m]))
            m = l;
        if (l + 1 < u->n_heap &&
            hs__xrun_less(u, u->heap[l + 1], u->heap[m]))
            m = l + 1;
        if (m == i)
            return;
        t = u->heap[i];
        u->heap[i] = u->heap[m];
        u->heap[m] = t;
        i = m;
    }
}

/* The merge's buffers: the budget shared by the runs, and a read
   position, a buffer's bounds and a heap entry a run. */
static hs_err_t hs__xmerge_alloc(hs_xsort_t *u)
{
    size_t nr = u->n_runs;

    u->per = u->cap / nr;
    if (u->per == 0)
        u->per = 1;
    free(u->buf);
    u->buf = malloc(nr * u->per * u->rec_size);
    u->pos = malloc(nr * sizeof *u->pos);
    u->at = malloc(nr * sizeof *u->at);
    u->got = malloc(nr * sizeof *u->got);
    u->heap = malloc(nr * sizeof *u->heap);
    if (u->buf == NULL || u->pos == NULL || u->at == NULL ||
        u->got == NULL || u->heap == NULL)
        return hs_error_set(u->err, HS_ERR_NOMEM, u->path, 0, 0,
                            "out of memory");
    return HS_OK;
}

/* The runs merged, each record to fn as the next in cmp's order.  Every
   run's buffer is filled before the heap is made, so a comparison never
   reads the file. */
static hs_err_t hs__xmerge(hs_xsort_t *u, hs_reclog_fn fn, void *ctx)
{
    hs_err_t rc = HS_OK;
    size_t r;

    for (r = 0; r < u->n_runs && rc == HS_OK; r++) {
        u->pos[r] = u->off[r];
        u->at[r] = u->got[r] = 0;
        if (hs__xrun_head(u, r, &rc) != NULL)
            u->heap[u->n_heap++] = r;
    }
    for (r = u->n_heap; rc == HS_OK && r-- > 0;)
        hs__xheap_down(u, r);
    while (rc == HS_OK && u->n_heap > 0) {
        size_t top = u->heap[0];
        const void *rec = hs__xrun_head(u, top, &rc);

        u->at[top]++;
        if ((rc = fn(ctx, rec)) != HS_OK)
            break;
        /* the run's buffer again when used up, before it is compared */
        if (hs__xrun_head(u, top, &rc) == NULL)
            u->heap[0] = u->heap[--u->n_heap];
        if (rc == HS_OK)
            hs__xheap_down(u, 0);
    }
    return rc;
}

hs_err_t hs_xsort_each(hs_xsort_t *u, hs_reclog_fn fn, void *ctx)
{
    hs_err_t rc = HS_OK;
    size_t i;

    if (u->n_runs == 0) {   /* one run, in memory */
        qsort(u->buf, u->n, u->rec_size, u->cmp);
        for (i = 0; i < u->n && rc == HS_OK; i++)
            rc = fn(ctx, u->buf + i * u->rec_size);
        return rc;
    }
    if (u->n > 0 && (rc = hs__xrun_flush(u)) != HS_OK)
        return rc;
    if ((rc = hs__xmerge_alloc(u)) != HS_OK)
        return rc;
    return hs__xmerge(u, fn, ctx);
}
