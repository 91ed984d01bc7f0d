/*
 * hs_ingest.c -- the ingestion: per-rank records in, one per-type profile
 * out (hs_ingest.h).
 *
 * The pieces.  hs_jscan.c streams a plain or gzipped JSON file into yajl;
 * hs_kev.c decodes the PyTorch profiler's trace events from it; the
 * reader, hs_kineto.c, reads one trace once and fills one
 * format-neutral per-rank record (hs_rank.h); hs_sidecar.c reads the
 * harness's sidecar.  This file keeps the records of all ranks and
 * averages them: it drops each rank's warm-up, takes the mean per rank
 * then over ranks, the sd over all kept samples, picks the all-reduce
 * payload source and the bucket ready times, and gathers the notes.
 * model/hs_profile.c (hs_profile_write) writes the profile YAML.
 */
#include "hs_ingest.h"
#include "hs_kineto.h"
#include "hs_notes.h"
#include "hs_osel.h"
#include "hs_rank.h"
#include "hs_sidecar.h"
#include "hs_stats.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *hs__basename(const char *p)
{
    const char *s = strrchr(p, '/');

    return s != NULL ? s + 1 : p;
}

/* One added file: its record and the public view of it. */
typedef struct hs__file_s {
    hs_rank_t *r;
    hs_ingest_file_t pub;
    int ar_fill;            /* the sidecar's payload goes in every step
                               (the trace has none): a spilled record's
                               steps get it as they are read back */
    uint64_t ar_fill_bytes;
} hs__file_t;

struct hs_ingest_s {
    unsigned warmup;
    hs_ingest_stat_t stat;
    unsigned threads;       /* each trace's reading threads */
    char *sidecar_path;
    hs_sidecar_t sc;
    size_t n_rank_sc;       /* sidecars given per rank, merged into sc */
    size_t sc_n_comm, sc_n_hop, sc_n_quota; /* of them, with each probe */
    hs_ingest_robust_t robust[HS_INGEST_PH_N];
    hs__file_t **files;
    size_t n_files;
    hs_notes_t notes;
    size_t rec_mem_bytes;   /* each reader's record budget */
    size_t max_samples;     /* the samples a profile keeps per phase */
    /* the steps of spilled records, read back (hs__step): the cursor,
       the step as the ingestion shows it, and the first failure */
    hs_rank_cur_t cur;
    hs_ingest_step_t rd_step;
    hs_err_t rd_rc;
    hs_error_t rd_err;
};

static void hs__file_free(hs__file_t *f)
{
    if (f == NULL)
        return;
    hs_rank_free(f->r);
    free(f);
}

/* ------------------------------------------------------------------ */
/* Public: construction, files                                           */

void hs_ingest_opts_default(hs_ingest_opts_t *o)
{
    o->warmup = HS_INGEST_DEFAULT_WARMUP;
    o->sidecar = NULL;
    o->stat = HS_INGEST_STAT_MEAN;
    o->threads = HS_INGEST_DEFAULT_THREADS;
    o->rec_mem_bytes = 0;
    o->max_samples = 0;
}

hs_ingest_t *hs_ingest_new(const hs_ingest_opts_t *o)
{
    hs_ingest_opts_t d;
    hs_ingest_t *ing;

    if (o == NULL) {
        hs_ingest_opts_default(&d);
        o = &d;
    }
    ing = calloc(1, sizeof *ing);
    if (ing == NULL)
        goto fail;
    ing->warmup = o->warmup;
    ing->stat = o->stat;
    ing->threads = o->threads;
    ing->rec_mem_bytes = o->rec_mem_bytes;
    ing->max_samples = o->max_samples > 0 ? o->max_samples
                                          : HS_INGEST_MAX_SAMPLES;
    if (o->sidecar != NULL &&
        (ing->sidecar_path = strdup(o->sidecar)) == NULL)
        goto fail;
    return ing;
fail:
    hs_ingest_free(ing);
    return NULL;
}

void hs_ingest_free(hs_ingest_t *ing)
{
    size_t i;

    if (ing == NULL)
        return;
    for (i = 0; i < ing->n_files; i++)
        hs__file_free(ing->files[i]);
    free(ing->files);
    hs_rank_cur_clear(&ing->cur);
    hs_notes_clear(&ing->notes);
    hs_sidecar_clear(&ing->sc);
    free(ing->sidecar_path);
    free(ing);
}

/* The reader's check, once a trace's rank is known: one trace per rank. */
static hs_err_t hs__check_rank(void *ctx, const hs_rank_t *r,
                               hs_error_t *err)
{
    const hs_ingest_t *ing = ctx;
    size_t i;

    if (r->rank < 0)
        return HS_OK;
    for (i = 0; i < ing->n_files; i++)
        if (ing->files[i]->pub.rank == r->rank)
            return hs_error_set(err, HS_ERR_TRACE, r->path, 0, 0,
                                "rank %ld again (already read from %s): "
                                "give one trace per rank",
                                r->rank, ing->files[i]->r->path);
    return HS_OK;
}

/* Step o (step j of file f) as the ingestion shows it: kept after the
   warm-up when complete, the sidecar's payload where the trace has none
   (f->ar_fill).  For the steps held in memory (hs__publish) and those
   read back from a spilled record (hs__step) alike. */
static void hs__view(const hs_ingest_t *ing, const hs__file_t *f, size_t j,
                     hs_ingest_step_t *o)
{
    o->kept = j >= ing->warmup && o->complete;
    if (f->ar_fill)
        o->ar_payload_bytes = f->ar_fill_bytes;
}

/* The public view of f's record: the warm-up dropped, the sidecar's
   payload where the trace has none. */
static void hs__publish(hs_ingest_t *ing, hs__file_t *f)
{
    hs_rank_t *r = f->r;
    hs_ingest_file_t *p = &f->pub;
    size_t i;

    f->ar_fill = !r->ar_known && ing->sc.loaded;
    f->ar_fill_bytes = ing->sc.grad_bytes;
    for (i = 0; r->steps != NULL && i < r->n_steps; i++)
        hs__view(ing, f, i, &r->steps[i]);
    p->path = r->path;
    p->form = r->form;
    p->rank = r->rank >= 0 ? r->rank : (long)ing->n_files;
    p->world_size = r->world_size;
    p->backend = r->backend;
    p->gpu = r->gpu;
    p->ar_known = r->ar_known || ing->sc.loaded;
    p->ar_source = r->ar_known ? r->ar_source : HS_AR_SIDECAR;
    p->n_events = r->n_events;
    p->json_bytes = r->json_bytes;
    p->passes = r->passes;
    p->n_steps = r->n_steps;
    p->steps = r->steps;
}

/* The mean of a and b over the sidecars that have the figure (na of
   them before b). */
static double hs__avg(double a, size_t na, double b)
{
    return (a * (double)na + b) / (double)(na + 1);
}

/* Whether sidecars m and t hold the same profiler-free samples (the
   harness's pool of every rank's phases, written into each sidecar). */
static int hs__same_plain(const hs_sidecar_t *m, const hs_sidecar_t *t)
{
    size_t i;

    if (m->n_plain != t->n_plain)
        return 0;
    for (i = 0; i < 4; i++)
        if (memcmp(m->plain_ns[i], t->plain_ns[i],
                   t->n_plain * sizeof *t->plain_ns[i]) != 0)
            return 0;
    return 1;
}

/* Frees t's profiler-free samples (a copy of ones already merged). */
static void hs__drop_plain(hs_sidecar_t *t)
{
    size_t i;

    for (i = 0; i < 4; i++) {
        free(t->plain_ns[i]);
        t->plain_ns[i] = NULL;
    }
    t->n_plain = 0;
}

/* The first field on which sidecars m and t (both loaded) disagree, named
   as the error message names it, or NULL when they agree on the
   sub-system and the model. */
static const char *hs__sidecar_differs(const hs_sidecar_t *m,
                                       const hs_sidecar_t *t)
{
    if (m->world_size != t->world_size)
        return "world_size";
    if (m->alone != t->alone)
        return "alone";
    if (m->grad_bytes != t->grad_bytes)
        return "grad_bytes";
    if (m->n_buckets != t->n_buckets ||
        (m->n_buckets > 0 &&
         memcmp(m->bucket_bytes, t->bucket_bytes,
                m->n_buckets * sizeof *m->bucket_bytes) != 0))
        return "bucket_bytes";
    if (m->comm_after != t->comm_after)
        return "comm";
    if (m->n_ready != t->n_ready)
        return "the number of buckets with ready times";
    return NULL;
}

/* Folds t's hop-wait figures into m: taken as they are from the first
   sidecar that has them, averaged over the sidecars after. Cannot fail;
   owns nothing. */
static void hs__merge_hop(hs_ingest_t *ing, hs_sidecar_t *m,
                          const hs_sidecar_t *t)
{
    size_t n;

    if (t->hop_wait_ns < 0)
        return;
    n = ing->sc_n_hop++;
    if (n == 0) {
        m->hop_wait_ns = t->hop_wait_ns;
        m->hop_idle_ns = t->hop_idle_ns;
        m->hop_beside_ns = t->hop_beside_ns;
        m->hop_hops = t->hop_hops;
        m->hop_n = t->hop_n;
    } else {
        m->hop_wait_ns = llround(hs__avg((double)m->hop_wait_ns, n,
                                         (double)t->hop_wait_ns));
        m->hop_idle_ns = llround(hs__avg((double)m->hop_idle_ns, n,
                                         (double)t->hop_idle_ns));
        m->hop_beside_ns = llround(hs__avg((double)m->hop_beside_ns, n,
                                           (double)t->hop_beside_ns));
        m->hop_n += t->hop_n;
    }
}

/* Folds t's measured figures (bucket ready times, comm rate, hop waits,
   CPU quota) into m as means over the k sidecars merged before t. Cannot
   fail; owns nothing (t's arrays are left to the caller). */
static void hs__merge_figures(hs_ingest_t *ing, hs_sidecar_t *m,
                              const hs_sidecar_t *t, size_t k)
{
    size_t i;

    for (i = 0; i < m->n_ready; i++)
        m->ready_ns[i] = m->ready_ns[i] < 0 || t->ready_ns[i] < 0
                             ? -1
                             : llround(hs__avg((double)m->ready_ns[i], k,
                                               (double)t->ready_ns[i]));
    if (t->comm_ns_per_byte > 0) {
        size_t n = ing->sc_n_comm++;
        m->comm_ns_per_byte = hs__avg(m->comm_ns_per_byte, n,
                                      t->comm_ns_per_byte);
        m->comm_cpu_rate = hs__avg(m->comm_cpu_rate, n, t->comm_cpu_rate);
    }
    hs__merge_hop(ing, m, t);
    if (m->hop_skipped[0] == '\0')
        memcpy(m->hop_skipped, t->hop_skipped, sizeof m->hop_skipped);
    if (t->cpu_quota_cores > 0) {
        size_t n = ing->sc_n_quota++;
        m->cpu_quota_cores = hs__avg(m->cpu_quota_cores, n,
                                     t->cpu_quota_cores);
        m->cpu_period_ns = llround(hs__avg((double)m->cpu_period_ns, n,
                                           (double)t->cpu_period_ns));
    }
}

/* Merges rank sidecar t into ing->sc (the first one: taken as it is).
   HS_ERR_TRACE when they disagree on the sub-system or the model.
   Leaves ing->sc as it was on failure; t is emptied on success. */
static hs_err_t hs__merge_sidecar(hs_ingest_t *ing, hs_sidecar_t *t,
                                  const char *tpath, hs_error_t *err)
{
    hs_sidecar_t *m = &ing->sc;
    size_t i, k = ing->n_rank_sc;   /* sidecars merged so far */
    int64_t *pl[4] = {NULL, NULL, NULL, NULL};
    struct hs_sidecar_use_s *use = NULL;
    const char *what = NULL;

    if (!m->loaded) {
        ing->sc_n_comm = t->comm_ns_per_byte > 0;
        ing->sc_n_hop = t->hop_wait_ns >= 0;
        ing->sc_n_quota = t->cpu_quota_cores > 0;
        *m = *t;
        memset(t, 0, sizeof *t);
        return HS_OK;
    }
    what = hs__sidecar_differs(m, t);
    if (what != NULL)
        return hs_error_set(err, HS_ERR_TRACE, tpath, 0, 0,
                            "this rank's sidecar and the other ranks' "
                            "differ in %s: the sidecars of one sub-system "
                            "must agree on it", what);
    /* the harness pools every rank's profiler-free phases into each
       rank's sidecar: a second copy of the same pool adds no samples */
    if (t->n_plain > 0 && hs__same_plain(m, t))
        hs__drop_plain(t);
    if (t->n_plain > 0) {
        for (i = 0; i < 4; i++) {
            pl[i] = malloc((m->n_plain + t->n_plain) * sizeof *pl[i]);
            if (pl[i] == NULL)
                goto nomem;
            if (m->n_plain > 0)
                memcpy(pl[i], m->plain_ns[i],
                       m->n_plain * sizeof *pl[i]);
            memcpy(pl[i] + m->n_plain, t->plain_ns[i],
                   t->n_plain * sizeof *pl[i]);
        }
    }
    if (t->n_use > 0) {
        use = malloc((m->n_use + t->n_use) * sizeof *use);
        if (use == NULL)
            goto nomem;
        if (m->n_use > 0)
            memcpy(use, m->use, m->n_use * sizeof *use);
        memcpy(use + m->n_use, t->use, t->n_use * sizeof *use);
    }
    /* nothing can fail from here */
    if (t->n_plain > 0) {
        for (i = 0; i < 4; i++) {
            free(m->plain_ns[i]);
            m->plain_ns[i] = pl[i];
        }
        m->n_plain += t->n_plain;
    }
    if (t->n_use > 0) {
        free(m->use);
        m->use = use;
        m->n_use += t->n_use;
    }
    hs__merge_figures(ing, m, t, k);
    hs_sidecar_clear(t);
    return HS_OK;
nomem:
    for (i = 0; i < 4; i++)
        free(pl[i]);
    free(use);
    return hs_error_set(err, HS_ERR_NOMEM, tpath, 0, 0, "out of memory");
}

hs_err_t hs_ingest_add_file(hs_ingest_t *ing, const char *path,
                            hs_error_t *err)
{
    return hs_ingest_add_file_sidecar(ing, path, NULL, err);
}

hs_err_t hs_ingest_add_file_sidecar(hs_ingest_t *ing, const char *path,
                                    const char *sidecar, hs_error_t *err)
{
    hs_kineto_opts_t ko;
    hs__file_t *f = NULL;
    hs__file_t **nf;
    hs_sidecar_t rsc;
    const hs_sidecar_t *use_sc = &ing->sc;
    hs_err_t rc;

    memset(&rsc, 0, sizeof rsc);
    if (sidecar != NULL && ing->sidecar_path != NULL)
        return hs_error_set(err, HS_ERR_TRACE, path, 0, 0,
                            "a sidecar for this rank, and one for every "
                            "rank: give one or the other");
    if (sidecar == NULL && ing->n_rank_sc > 0)
        return hs_error_set(err, HS_ERR_TRACE, path, 0, 0,
                            "no sidecar for this rank, but the other ranks "
                            "have theirs: give one per rank");
    if (sidecar != NULL && ing->n_rank_sc == 0 && ing->n_files > 0)
        return hs_error_set(err, HS_ERR_TRACE, sidecar, 0, 0,
                            "a sidecar for this rank, but the ranks before "
                            "had none: give one per rank");
    if (ing->sidecar_path != NULL && !ing->sc.loaded &&
        (rc = hs_sidecar_load(ing->sidecar_path, &ing->sc, err)) != HS_OK)
        return rc;
    if (sidecar != NULL) {
        if ((rc = hs_sidecar_load(sidecar, &rsc, err)) != HS_OK)
            return rc;
        use_sc = &rsc;
    }
    f = calloc(1, sizeof *f);
    if (f == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
        goto fail;
    }
    memset(&ko, 0, sizeof ko);
    ko.want_buckets = use_sc->loaded ? use_sc->n_buckets : 0;
    ko.check_rank = hs__check_rank;
    ko.ctx = ing;
    ko.notes = &ing->notes;
    ko.threads = ing->threads;
    ko.rec_mem_bytes = ing->rec_mem_bytes;
    if ((rc = hs_kineto_read(path, &ko, &f->r, err)) != HS_OK)
        goto fail;
    nf = realloc(ing->files, (ing->n_files + 1) * sizeof *nf);
    if (nf == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
        goto fail;
    }
    ing->files = nf;
    if (sidecar != NULL) {
        if ((rc = hs__merge_sidecar(ing, &rsc, sidecar, err)) != HS_OK)
            goto fail;
        ing->n_rank_sc++;
    }
    hs__publish(ing, f);
    ing->files[ing->n_files++] = f;
    return HS_OK;
fail:
    hs_sidecar_clear(&rsc);
    hs__file_free(f);
    return rc;
}

size_t hs_ingest_n_files(const hs_ingest_t *ing)
{
    return ing->n_files;
}

const hs_ingest_file_t *hs_ingest_file(const hs_ingest_t *ing, size_t i)
{
    return i < ing->n_files ? &ing->files[i]->pub : NULL;
}

/* Step j of file f as the ingestion shows it (kept after the warm-up,
   the sidecar's payload where the trace has none), and its buckets and
   forward operators in *bk and *ops (either may be NULL).  A spilled
   record's step is read back through ing's cursor (valid until the next
   call); one that cannot be shows as an empty step, not kept, and
   ing->rd_rc / rd_err keep the first failure (hs__rd_fail). */
static const hs_ingest_step_t *hs__step(hs_ingest_t *ing,
                                        const hs__file_t *f, size_t j,
                                        const hs_rank_buckets_t **bk,
                                        const hs_rank_ops_t **ops)
{
    static const hs_rank_buckets_t no_bk;
    static const hs_rank_ops_t no_ops;
    const hs_rank_t *r = f->r;
    hs_error_t e;
    hs_err_t rc;

    if (r->spill == NULL) {
        if (bk != NULL)
            *bk = &r->buckets[j];
        if (ops != NULL)
            *ops = &r->fwd_ops[j];
        return &r->steps[j];
    }
    if ((rc = hs_rank_at(r, j, &ing->cur, &e)) != HS_OK) {
        if (ing->rd_rc == HS_OK) {
            ing->rd_rc = rc;
            ing->rd_err = e;
        }
        memset(&ing->rd_step, 0, sizeof ing->rd_step);
        if (bk != NULL)
            *bk = &no_bk;
        if (ops != NULL)
            *ops = &no_ops;
        return &ing->rd_step;
    }
    ing->rd_step = *ing->cur.step;
    hs__view(ing, f, j, &ing->rd_step);
    if (bk != NULL)
        *bk = ing->cur.bk;
    if (ops != NULL)
        *ops = ing->cur.ops;
    return &ing->rd_step;
}

/* rc, or the failure to read a spilled record's steps back when there
   was one (what went wrong first: the steps then seemed missing). */
static hs_err_t hs__rd_fail(hs_ingest_t *ing, hs_err_t rc,
                            hs_error_t *err)
{
    if (ing->rd_rc == HS_OK)
        return rc;
    if (err != NULL)
        *err = ing->rd_err;
    return ing->rd_rc;
}

const hs_ingest_step_t *hs_ingest_file_step(hs_ingest_t *ing, size_t i,
                                            size_t j, hs_error_t *err)
{
    const hs_ingest_step_t *s;

    if (i >= ing->n_files || j >= ing->files[i]->r->n_steps)
        return NULL;
    ing->rd_rc = HS_OK;
    s = hs__step(ing, ing->files[i], j, NULL, NULL);
    if (ing->rd_rc != HS_OK) {
        hs__rd_fail(ing, HS_OK, err);
        return NULL;
    }
    return s;
}

const char *const *hs_ingest_notes(const hs_ingest_t *ing, size_t *n)
{
    *n = ing->notes.n;
    return (const char *const *)ing->notes.items;
}

/* ------------------------------------------------------------------ */
/* The profile                                                           */

/* Restores the heap order of v[0, n) below node i (hs__sort_i64). */
static void hs__sift_i64(int64_t *v, size_t i, size_t n)
{
    int64_t x = v[i];
    size_t c;

    while ((c = 2 * i + 1) < n) {
        if (c + 1 < n && v[c + 1] > v[c])
            c++;
        if (v[c] <= x)
            break;
        v[i] = v[c];
        i = c;
    }
    v[i] = x;
}

/* Sorts v[0, n) ascending in place (a heapsort: no buffer beside v, where
   qsort's merge sort takes one as large as v; equal numbers cannot be
   told apart, so the result is qsort's). */
static void hs__sort_i64(int64_t *v, size_t n)
{
    size_t i;

    for (i = n / 2; i-- > 0;)
        hs__sift_i64(v, i, n);
    for (i = n; i-- > 1;) {
        int64_t t = v[0];
        v[0] = v[i];
        v[i] = t;
        hs__sift_i64(v, 0, i);
    }
}

/* The median and the trimmed mean of v[0, n) (n > 0; sorted in place). */
static void hs__robust_of(int64_t *v, size_t n, double *median,
                          double *trimmed)
{
    size_t k = (size_t)floor(HS_INGEST_TRIM * (double)n), i;
    double sum = 0;

    hs__sort_i64(v, n);
    *median = n % 2 ? (double)v[n / 2]
                    : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
    for (i = k; i < n - k; i++)
        sum += (double)v[i];
    *trimmed = sum / (double)(n - 2 * k);
}

/* The phase times' fields in hs_ingest_step_t, by HS_INGEST_PH_*. */
static const size_t hs__ph_off[HS_INGEST_PH_N] = {
    offsetof(hs_ingest_step_t, t_dl_ns), offsetof(hs_ingest_step_t, t_fwd_ns),
    offsetof(hs_ingest_step_t, t_b1_ns), offsetof(hs_ingest_step_t, t_bwd_ns),
    offsetof(hs_ingest_step_t, t_opt_ns)};

/* Step s's phase p time (HS_INGEST_UNKNOWN when not known). */
static int64_t hs__ph_at(const hs_ingest_step_t *s, size_t p)
{
    int64_t x;

    memcpy(&x, (const char *)s + hs__ph_off[p], sizeof x);
    return x;
}

/* Calls fn(ctx, p, x) for every known phase time x of file f's kept
   steps, in step order (a step's phases in HS_INGEST_PH_* order). */
static void hs__walk(hs_ingest_t *ing, const hs__file_t *f,
                     void (*fn)(void *ctx, size_t p, int64_t x), void *ctx)
{
    size_t j, p;

    for (j = 0; j < f->r->n_steps; j++) {
        const hs_ingest_step_t *s = hs__step(ing, f, j, NULL, NULL);
        if (!s->kept)
            continue;
        for (p = 0; p < HS_INGEST_PH_N; p++) {
            int64_t x = hs__ph_at(s, p);
            if (x != HS_INGEST_UNKNOWN)
                fn(ctx, p, x);
        }
    }
}

/* One phase in hs__dists: one rank's values at a time, and when the
   phase has more values than the profile keeps ("big"), the running
   figures over all ranks. */
typedef struct hs__ph_s {
    int64_t *v;             /* the rank's values in step order, the first */
    size_t cap;             /* cap of them (all when n <= cap) */
    size_t n;               /* the rank's values */
    double sum;             /* their sum, in step order */
    int64_t lo, hi;         /* their least and greatest */
    int big;                /* more values than ing->max_samples */
    size_t all_n;           /* big: the values of all ranks; */
    double all_sum;         /* their sum in rank-then-step order, */
    double all_mean, sq;    /* their mean, the squares around it */
    size_t seen, taken;     /* the selection of the samples kept */
    uint64_t rng;
} hs__ph_t;

/* hs__walk's step: a rank's value of phase p (ctx the hs__ph_t array). */
static void hs__take(void *ctx, size_t p, int64_t x)
{
    hs__ph_t *h = (hs__ph_t *)ctx + p;

    if (h->n < h->cap)
        h->v[h->n] = x;
    if (h->n == 0 || x < h->lo)
        h->lo = x;
    if (h->n == 0 || x > h->hi)
        h->hi = x;
    h->n++;
    h->sum += (double)x;
    if (h->big)
        h->all_sum += (double)x;
}

/* hs__walk's step: the rank's values again, to v only (step order). */
static void hs__retake(void *ctx, size_t p, int64_t x)
{
    hs__ph_t *h = (hs__ph_t *)ctx + p;

    if (h->n < h->cap)
        h->v[h->n] = x;
    h->n++;
}

/* One pass over file f's kept steps into h[] (hs__take); h's v and cap
   are the caller's. */
static void hs__rank_values(hs_ingest_t *ing, const hs__file_t *f,
                            hs__ph_t *h)
{
    size_t p;

    for (p = 0; p < HS_INGEST_PH_N; p++) {
        h[p].n = 0;
        h[p].sum = 0;
    }
    hs__walk(ing, f, hs__take, h);
}

/* hs__walk's step for the exact selections of hs__rank_select (ctx the
   hs_osel_t array; NULL pointers' phases are done). */
static void hs__osel_take(void *ctx, size_t p, int64_t x)
{
    hs_osel_t **sel = ctx;

    if (sel[p] != NULL)
        hs_osel_add(sel[p], x);
}

/* The median and trimmed mean (med[p], trim[p]) of file f's values of
   every phase p whose h[p].n exceed h[p].cap (the others untouched), in
   the memory of sel[HS_INGEST_PH_N]: exact, by passes over the rank's
   steps (hs_osel.h: about 1 + (bits of hi - lo) / 8 of them, all such
   phases at once). */
static void hs__rank_select(hs_ingest_t *ing, const hs__file_t *f,
                            const hs__ph_t *h, hs_osel_t *sel, double *med,
                            double *trim)
{
    hs_osel_t *on[HS_INGEST_PH_N];
    size_t p, left = 0;

    for (p = 0; p < HS_INGEST_PH_N; p++) {
        on[p] = NULL;
        if (h[p].n > h[p].cap) {
            size_t k = (size_t)floor(HS_INGEST_TRIM * (double)h[p].n);
            hs_osel_init(&sel[p], h[p].n, k, h[p].lo, h[p].hi);
            on[p] = &sel[p];
            left++;
        }
    }
    while (left > 0) {
        hs__walk(ing, f, hs__osel_take, on);
        for (p = 0; p < HS_INGEST_PH_N; p++) {
            if (on[p] == NULL)
                continue;
            hs_osel_next(on[p]);
            if (!hs_osel_more(on[p])) {
                size_t k = (size_t)sel[p].k;
                hs_osel_result(on[p], &med[p], &trim[p]);
                trim[p] /= (double)(h[p].n - 2 * k);
                on[p] = NULL;
                left--;
            }
        }
    }
}

/* The next number of a phase's selection of samples (splitmix64). */
static uint64_t hs__rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* hs__walk's step over every rank for the big phases (ctx the hs__ph_t
   array; v the profile's samples, cap of them): the squares around the
   mean, and the samples kept by selection sampling (Knuth's Algorithm
   S: each value kept with probability (cap - taken) / (all_n - seen),
   so exactly cap of them, every subset of cap as likely, in order). */
static void hs__sample(void *ctx, size_t p, int64_t x)
{
    hs__ph_t *h = (hs__ph_t *)ctx + p;
    double dx = (double)x - h->all_mean;

    if (!h->big)
        return;
    h->sq += dx * dx;
    if (hs__rng_next(&h->rng) % (h->all_n - h->seen) < h->cap - h->taken)
        h->v[h->taken++] = x;
    h->seen++;
}

/* The per-rank sums of one phase (hs__dists). */
typedef struct hs__acc_s {
    double means, med, trim;
    size_t ranks;
} hs__acc_t;

/* One phase's figures: its n values' ranks' sums a, their sd (rounded),
   the samples kept (d->samples_ns, kept of them): d's mean, sd and
   sample count, rb's three statistics. */
static void hs__dist_end(const hs_ingest_t *ing, const hs__acc_t *a,
                         size_t n, size_t kept, int64_t sd_ns,
                         hs_dist_t *d, hs_ingest_robust_t *rb)
{
    double mean = a->means / (double)a->ranks;

    d->n_samples = kept;
    d->known = 1;
    rb->known = 1;
    rb->n_samples = n;
    rb->mean_ns = (int64_t)llround(mean);
    rb->median_ns = (int64_t)llround(a->med / (double)a->ranks);
    rb->trimmed_ns = (int64_t)llround(a->trim / (double)a->ranks);
    d->mean_ns = ing->stat == HS_INGEST_STAT_MEDIAN    ? rb->median_ns
                 : ing->stat == HS_INGEST_STAT_TRIMMED ? rb->trimmed_ns
                                                       : rb->mean_ns;
    d->sd_ns = sd_ns;
}

/* The count pass of hs__dists: n[p] the kept steps with phase p, and
   missing[p] those without. */
static void hs__count(hs_ingest_t *ing, size_t *n, size_t *missing)
{
    size_t i, j, p;

    for (p = 0; p < HS_INGEST_PH_N; p++)
        n[p] = missing[p] = 0;
    for (i = 0; i < ing->n_files; i++) {
        const hs__file_t *f = ing->files[i];
        for (j = 0; j < f->r->n_steps; j++) {
            const hs_ingest_step_t *s = hs__step(ing, f, j, NULL, NULL);
            if (!s->kept)
                continue;
            for (p = 0; p < HS_INGEST_PH_N; p++) {
                if (hs__ph_at(s, p) == HS_INGEST_UNKNOWN)
                    missing[p]++;
                else
                    n[p]++;
            }
        }
    }
}

/* One rank's part of hs__dists: its values of every phase (h[p].v, cap
   of them, set by the caller), its mean, median and trimmed mean added
   to acc; the values of the phases that are not big left in h[p].v in
   step order, h[p].n of them.  sel: room for the exact selections. */
static void hs__rank_dists(hs_ingest_t *ing, const hs__file_t *f,
                           hs__ph_t *h, hs_osel_t *sel, hs__acc_t *acc)
{
    double med[HS_INGEST_PH_N], trim[HS_INGEST_PH_N];
    size_t p, again = 0;

    hs__rank_values(ing, f, h);
    hs__rank_select(ing, f, h, sel, med, trim);
    for (p = 0; p < HS_INGEST_PH_N; p++) {
        if (h[p].n == 0)
            continue;
        if (h[p].n <= h[p].cap)   /* sorted in place */
            hs__robust_of(h[p].v, h[p].n, &med[p], &trim[p]);
        acc[p].means += h[p].sum / (double)h[p].n;
        acc[p].med += med[p];
        acc[p].trim += trim[p];
        acc[p].ranks++;
        again += !h[p].big;
    }
    if (again > 0) {    /* back in step order */
        for (p = 0; p < HS_INGEST_PH_N; p++)
            h[p].n = 0;
        hs__walk(ing, f, hs__retake, h);
    }
}

/* The seed of phase p's selection of samples: fixed, so that the same
   trace gives the same profile. */
#define HS__SAMPLE_SEED(p) (0x68657473696d5350u + (uint64_t)(p))

/*
 * Averages the phase times (d[HS_INGEST_PH_*], ing->robust): per rank
 * over its kept steps, then over ranks; sd over all kept samples of all
 * ranks (n-1 denominator).  The rank's statistic is ing->stat's;
 * ing->robust gets all three (mean, median, trimmed mean, each per rank
 * then over ranks) and the count of all samples; missing[p] the kept
 * steps without phase p.  The samples, in rank-then-step order: all of
 * them up to ing->max_samples a phase, a uniform subset of that many
 * (selection sampling, a fixed seed) past it.  Passes over the steps:
 * count, values, values again (a rank's part of the samples is sorted
 * in place for its median and trimmed mean); past the cap, the sd's
 * mean is summed in the values pass and its squares in a last pass
 * that also draws the samples, and a rank whose values outnumber the
 * cap gets its median and trimmed mean by exact selection passes
 * (hs__rank_select), so memory stays max_samples values a phase.  All
 * figures are the same whichever way.  HS_ERR_NOMEM (err untouched)
 * when out of memory; d's arrays are the caller's either way.
 */
static hs_err_t hs__dists(hs_ingest_t *ing, hs_dist_t *const *d,
                          size_t *missing)
{
    size_t i, p, n[HS_INGEST_PH_N], k[HS_INGEST_PH_N], nbig = 0;
    hs__acc_t acc[HS_INGEST_PH_N];
    hs__ph_t h[HS_INGEST_PH_N];
    hs_osel_t *sel = NULL;

    memset(acc, 0, sizeof acc);
    memset(h, 0, sizeof h);
    memset(ing->robust, 0, sizeof ing->robust);
    hs__count(ing, n, missing);
    for (p = 0; p < HS_INGEST_PH_N; p++) {
        memset(d[p], 0, sizeof *d[p]);
        k[p] = 0;
        h[p].big = n[p] > ing->max_samples;
        h[p].all_n = n[p];
        h[p].rng = HS__SAMPLE_SEED(p);
        nbig += (size_t)h[p].big;
        if (n[p] > 0 && (d[p]->samples_ns = malloc(
                             (h[p].big ? ing->max_samples : n[p]) *
                             sizeof(int64_t))) == NULL)
            return HS_ERR_NOMEM;
    }
    if (nbig > 0 && (sel = malloc(HS_INGEST_PH_N * sizeof *sel)) == NULL)
        return HS_ERR_NOMEM;
    for (i = 0; i < ing->n_files; i++) {
        for (p = 0; p < HS_INGEST_PH_N; p++) {
            /* a phase without samples has no array: no offset on NULL */
            h[p].v = n[p] == 0 ? NULL
                               : d[p]->samples_ns + (h[p].big ? 0 : k[p]);
            h[p].cap = h[p].big ? ing->max_samples : n[p] - k[p];
        }
        hs__rank_dists(ing, ing->files[i], h, sel, acc);
        for (p = 0; p < HS_INGEST_PH_N; p++)
            k[p] += h[p].big ? 0 : h[p].n;
    }
    free(sel);
    for (p = 0; p < HS_INGEST_PH_N; p++)
        if (h[p].big)
            h[p].all_mean = h[p].all_sum / (double)n[p];
    for (i = 0; nbig > 0 && i < ing->n_files; i++)
        hs__walk(ing, ing->files[i], hs__sample, h);
    for (p = 0; p < HS_INGEST_PH_N; p++) {
        int64_t sd_ns;
        if (n[p] == 0)
            continue;
        if (h[p].big)
            sd_ns = (int64_t)llround(sqrt(h[p].sq / (double)(n[p] - 1)));
        else
            hs_stats_of_ns(d[p]->samples_ns, n[p], NULL, &sd_ns);
        hs__dist_end(ing, &acc[p], n[p], h[p].big ? h[p].taken : n[p],
                     sd_ns, d[p], &ing->robust[p]);
    }
    return HS_OK;
}

const hs_ingest_robust_t *hs_ingest_robust(const hs_ingest_t *ing,
                                           unsigned ph)
{
    return ph < HS_INGEST_PH_N ? &ing->robust[ph] : NULL;
}

/* The forward's time per operator (hs_ingest.h, hs_ingest_profile):
   per rank the mean over its kept steps with a forward, then over the
   ranks, by name in the order the operators first ran.  Fills p's
   fwd_ops names and count; *acc gets their unrounded times (*n_acc of
   them; the caller frees it) for hs__round_to. */
static hs_err_t hs__fwd_ops(hs_ingest_t *ing, hs_profile_t *p, double **acc,
                            size_t *n_acc)
{
    size_t i, j, e, c, ranks = 0, n = 0, cap = 0;
    char **names = NULL;
    double *tot = NULL, *rank_sum = NULL;
    hs_err_t rc = HS_OK;

    *acc = NULL;
    *n_acc = 0;
    for (i = 0; i < ing->n_files; i++) {
        const hs_rank_t *f = ing->files[i]->r;
        size_t steps = 0;
        for (j = 0; j < f->n_steps; j++) {
            const hs_rank_ops_t *q;
            const hs_ingest_step_t *s = hs__step(ing, ing->files[i], j,
                                                 NULL, &q);
            if (!s->kept || s->t_fwd_ns == HS_INGEST_UNKNOWN)
                continue;
            steps++;
            for (e = 0; e < q->n; e++) {
                const char *nm = f->op_names[q->name[e]];
                for (c = 0; c < n && strcmp(names[c], nm) != 0; c++)
                    ;
                if (c == n) {
                    if (n == cap) {
                        size_t nc = cap ? cap * 2 : 16;
                        char **a = realloc(names, nc * sizeof *a);
                        double *b, *d;
                        if (a == NULL)
                            goto nomem;
                        names = a;
                        b = realloc(tot, nc * sizeof *b);
                        if (b == NULL)
                            goto nomem;
                        tot = b;
                        d = realloc(rank_sum, nc * sizeof *d);
                        if (d == NULL)
                            goto nomem;
                        rank_sum = d;
                        cap = nc;
                    }
                    names[n] = (char *)nm;
                    tot[n] = rank_sum[n] = 0;
                    n++;
                }
                rank_sum[c] += (double)q->ns[e];
            }
        }
        if (steps == 0)
            continue;
        for (c = 0; c < n; c++) {
            tot[c] += rank_sum[c] / (double)steps;
            rank_sum[c] = 0;
        }
        ranks++;
    }
    if (n == 0 || ranks == 0)
        goto done;
    p->fwd_ops_ns = calloc(n, sizeof *p->fwd_ops_ns);
    p->fwd_op_names = calloc(n, sizeof *p->fwd_op_names);
    if (p->fwd_ops_ns == NULL || p->fwd_op_names == NULL)
        goto nomem;
    p->n_fwd_ops = n;
    for (c = 0; c < n; c++) {
        if ((p->fwd_op_names[c] = strdup(names[c])) == NULL)
            goto nomem;
        tot[c] /= (double)ranks;
    }
    *acc = tot;
    *n_acc = n;
    tot = NULL;
    goto done;
nomem:
    rc = HS_ERR_NOMEM;
done:
    free(names);
    free(tot);
    free(rank_sum);
    return rc;
}

/* Rounds the operators' times v[0, n) (times scale) to whole ns adding up
   to total exactly (the largest remainders get the odd ns). */
static void hs__round_to(const double *v, size_t n, double scale,
                         int64_t total, int64_t *out)
{
    size_t i;
    int64_t sum = 0, left;

    for (i = 0; i < n; i++) {
        out[i] = (int64_t)floor(v[i] * scale);
        sum += out[i];
    }
    left = total - sum;
    while (left > 0) {  /* one ns to the largest remainder, in turn */
        size_t best = 0;
        double br = -1;
        for (i = 0; i < n; i++) {
            double r = v[i] * scale - (double)out[i];
            if (r > br) {
                br = r;
                best = i;
            }
        }
        out[best]++;
        left--;
    }
}

static void hs__profile_release(hs_profile_t *p)
{
    hs_profile_clear(p);
}

/* A distribution from the harness's profiler-free samples (pooled over
   the ranks): the samples in order, their sd, and as its mean the
   ingestion's statistic of them (the mean, median or trimmed mean). */
static hs_err_t hs__dist_of(const hs_ingest_t *ing, const int64_t *v,
                            size_t n, hs_dist_t *d)
{
    int64_t *cp = malloc((n ? n : 1) * sizeof *cp), *tmp;
    double med, trim;

    if (cp == NULL)
        return HS_ERR_NOMEM;
    memcpy(cp, v, n * sizeof *cp);
    if (ing->stat != HS_INGEST_STAT_MEAN && n > 0) {
        if ((tmp = malloc(n * sizeof *tmp)) == NULL) {
            free(cp);
            return HS_ERR_NOMEM;
        }
        memcpy(tmp, v, n * sizeof *tmp);
        hs__robust_of(tmp, n, &med, &trim);   /* sorts tmp */
        free(tmp);
    }
    free(d->samples_ns);
    d->samples_ns = cp;
    d->n_samples = n;
    d->known = 1;
    hs_stats_of_ns(cp, n, &d->mean_ns, &d->sd_ns);
    if (ing->stat == HS_INGEST_STAT_MEDIAN && n > 0)
        d->mean_ns = (int64_t)llround(med);
    else if (ing->stat == HS_INGEST_STAT_TRIMMED && n > 0)
        d->mean_ns = (int64_t)llround(trim);
    return HS_OK;
}

/*
 * The profiler slows the operators down (the legacy profiler
 * with shapes recorded most, models of many small operators most of all),
 * so when the sidecar has the wall-clock phases of iterations run without
 * the profiler, they give the means of t_dl, t_fwd, t_bwd and t_opt; t_b1
 * (the first backward operator, only the trace has it) is scaled by the
 * backward's ratio.  The trace keeps the operator details and buckets.
 */
static hs_err_t hs__plain_phases(hs_ingest_t *ing, hs_profile_t *out)
{
    const hs_sidecar_t *sc = &ing->sc;
    int64_t trace_fwd = out->t_fwd.mean_ns, trace_bwd = out->t_bwd.mean_ns;
    hs_err_t rc;

    if (!sc->loaded || sc->n_plain < 2)
        return HS_OK;
    if ((rc = hs__dist_of(ing, sc->plain_ns[HS_SC_DL], sc->n_plain, &out->t_dl))
            != HS_OK ||
        (rc = hs__dist_of(ing, sc->plain_ns[HS_SC_FWD], sc->n_plain,
                          &out->t_fwd)) != HS_OK ||
        (rc = hs__dist_of(ing, sc->plain_ns[HS_SC_OPT], sc->n_plain,
                          &out->t_opt)) != HS_OK)
        return rc;
    if (out->t_bwd.known && trace_bwd > 0 && out->t_b1.known) {
        double ratio;

        if ((rc = hs__dist_of(ing, sc->plain_ns[HS_SC_BWD], sc->n_plain,
                              &out->t_bwd)) != HS_OK)
            return rc;
        ratio = (double)out->t_bwd.mean_ns / (double)trace_bwd;
        out->t_b1.mean_ns = (int64_t)llround((double)out->t_b1.mean_ns *
                                             ratio);
        out->t_b1.sd_ns = (int64_t)llround((double)out->t_b1.sd_ns * ratio);
        if (out->t_b1.mean_ns > out->t_bwd.mean_ns)
            out->t_b1.mean_ns = out->t_bwd.mean_ns;
    } else if ((rc = hs__dist_of(ing, sc->plain_ns[HS_SC_BWD], sc->n_plain,
                                 &out->t_bwd)) != HS_OK)
        return rc;
    hs_notes_add(&ing->notes,
                 "compute means from %zu iterations run without the profiler "
                 "(wall-clock phases, all ranks): t_fwd %.1f ms (%.1f ms "
                 "under the profiler), t_bwd %.1f ms (%.1f ms); the trace "
                 "gives the operators, t_b1 scaled by the backward's ratio, "
                 "and the buckets", sc->n_plain, out->t_fwd.mean_ns / 1e6,
                 trace_fwd / 1e6, out->t_bwd.mean_ns / 1e6,
                 trace_bwd / 1e6);
    return HS_OK;
}

/*
 * A bucket cannot be ready after the backward has ended: when a ready
 * time (the harness's clock, from the end of the forward) exceeds the
 * backward's mean, it is clamped to it and a note says by how much.
 */
static void hs__clamp_ready(hs_ingest_t *ing, hs_profile_t *out)
{
    size_t i, n = 0;
    int64_t worst = 0;

    if (!out->t_bwd.known)
        return;
    for (i = 0; i < out->n_buckets; i++)
        if (out->buckets[i].ready_ns > out->t_bwd.mean_ns) {
            int64_t over = out->buckets[i].ready_ns - out->t_bwd.mean_ns;
            if (over > worst)
                worst = over;
            out->buckets[i].ready_ns = out->t_bwd.mean_ns;
            n++;
        }
    if (n > 0)
        hs_notes_add(&ing->notes,
                     "%zu bucket ready time%s after the end of the backward "
                     "(t_bwd %.1f ms), by up to %.1f ms: clamped to it", n,
                     n == 1 ? "" : "s", out->t_bwd.mean_ns / 1e6,
                     worst / 1e6);
}

/* What the sidecar says about each rank having had its device: notes
   with the figures (a warning, not a failure). */
static void hs__rank_use(hs_ingest_t *ing)
{
    const hs_sidecar_t *sc = &ing->sc;
    double lo = 0, hi = 0;
    size_t i;
    int small = 0;

    for (i = 0; i < sc->n_use; i++) {
        const struct hs_sidecar_use_s *u = &sc->use[i];
        double cv, span, out;

        if (u->compute_mean_ns < HS_INGEST_USE_MIN_NS) {
            small = 1;
            continue;
        }
        cv = (double)u->compute_sd_ns / (double)u->compute_mean_ns;
        span = u->cpu_mean > 0 ? (u->cpu_max - u->cpu_min) / u->cpu_mean : 0;
        out = u->compute_median_ns > 0 ? (double)u->compute_max_ns /
                                             (double)u->compute_median_ns
                                       : 0;
        if (i == 0 || u->cpu_mean < lo)
            lo = u->cpu_mean;
        if (i == 0 || u->cpu_mean > hi)
            hi = u->cpu_mean;
        if (cv > HS_INGEST_USE_CV || span > HS_INGEST_USE_SPAN ||
            out > HS_INGEST_USE_OUTLIER)
            hs_notes_add(&ing->notes,
                         "rank %ld may not have had its device to itself: "
                         "compute (forward + backward) %.1f ms, sd %.1f ms "
                         "(%.0f%%), median %.1f ms, max %.1f ms (x%.2f); CPU "
                         "share in the forward %.3f cores (%.3f to %.3f) over "
                         "%u steps", u->rank, u->compute_mean_ns / 1e6,
                         u->compute_sd_ns / 1e6, 100 * cv,
                         u->compute_median_ns / 1e6,
                         u->compute_max_ns / 1e6, out, u->cpu_mean,
                         u->cpu_min, u->cpu_max, u->steps);
    }
    if (!small && sc->n_use > 1 && hi > 0 &&
        (hi - lo) / hi > HS_INGEST_USE_RANKS)
        hs_notes_add(&ing->notes,
                     "the ranks' CPU shares differ: %.3f to %.3f cores in "
                     "the forward (a rank that did not get its device, or "
                     "devices of unequal speed in one type)", lo, hi);
}

/* Buckets with the ready times the harness measured itself (the
   sidecar's "buckets"), when the trace has no calls to time them by. */
static hs_err_t hs__sidecar_buckets(hs_ingest_t *ing, hs_profile_t *p)
{
    const hs_sidecar_t *sc = &ing->sc;
    size_t i;

    if (sc->n_ready == 0 || sc->n_ready != sc->n_buckets) {
        hs_notes_add(&ing->notes,
                     "no buckets: the trace has no all-reduce calls to time "
                     "the sidecar's bucket_bytes by, and the sidecar has no "
                     "bucket ready times");
        return HS_OK;
    }
    for (i = 0; i < sc->n_ready; i++)
        if (sc->ready_ns[i] < 0 || sc->ready_bytes[i] != sc->bucket_bytes[i]) {
            hs_notes_add(&ing->notes,
                         "no buckets: the sidecar's bucket %zu has no ready "
                         "time (or its bytes differ from bucket_bytes)", i);
            return HS_OK;
        }
    p->buckets = calloc(sc->n_ready, sizeof *p->buckets);
    if (p->buckets == NULL)
        return HS_ERR_NOMEM;
    p->n_buckets = sc->n_ready;
    for (i = 0; i < sc->n_ready; i++) {
        p->buckets[i].bytes = sc->bucket_bytes[i];
        p->buckets[i].ready_ns = sc->ready_ns[i];
    }
    hs_notes_add(&ing->notes,
                 "bucket ready times are the sidecar's (measured by the "
                 "harness's comm hook), not the trace's");
    return HS_OK;
}

/* Mean bucket sizes and ready times over the kept steps of all ranks;
   leaves p->n_buckets 0 (with a note) when they cannot be matched.  Ready
   times are CPU time from the first backward operator to the all-reduce
   call, or, on device traces, the device time of the backward kernels
   launched before that call. */
static hs_err_t hs__buckets(hs_ingest_t *ing, hs_profile_t *p,
                            int use_sidecar)
{
    size_t i, j, c, nb = 0, nsteps = 0;
    double *rsum = NULL, *bsum = NULL;
    int first = 1, bytes_vary = 0;

    if (use_sidecar && ing->sc.comm_after && ing->sc.n_ready > 0)
        /* the all-reduce calls ran after the backward: only the harness's
           own clock says when each bucket was ready */
        return hs__sidecar_buckets(ing, p);
    for (i = 0; i < ing->n_files; i++) {
        const hs_rank_t *f = ing->files[i]->r;
        for (j = 0; j < f->n_steps; j++) {
            const hs_rank_buckets_t *bk;
            const hs_ingest_step_t *s = hs__step(ing, ing->files[i], j,
                                                 &bk, NULL);
            if (!s->kept || !bk->has_bwd)
                continue;
            if (!bk->timed || (use_sidecar && bk->n != ing->sc.n_buckets)) {
                if (use_sidecar) {
                    free(rsum);
                    free(bsum);
                    return hs__sidecar_buckets(ing, p);
                }
                hs_notes_add(&ing->notes,
                             "no buckets: %s step %ld has no all-reduce "
                             "calls to time them by%s",
                             hs__basename(f->path), s->number,
                             use_sidecar ? " (as many as the sidecar's "
                                           "bucket_bytes)"
                                         : "");
                goto none;
            }
            if (first) {
                nb = bk->n;
                first = 0;
                if (nb == 0)
                    goto none;
                rsum = calloc(nb, sizeof *rsum);
                bsum = calloc(nb, sizeof *bsum);
                if (rsum == NULL || bsum == NULL) {
                    free(rsum);
                    free(bsum);
                    return HS_ERR_NOMEM;
                }
            } else if (bk->n != nb) {
                hs_notes_add(&ing->notes,
                             "no buckets: %s step %ld has %zu all-reduce "
                             "calls, other steps %zu",
                             hs__basename(f->path), s->number,
                             bk->n, nb);
                goto none;
            }
            for (c = 0; c < nb; c++) {
                double b = use_sidecar ? (double)ing->sc.bucket_bytes[c]
                                       : (double)bk->bytes[c];
                if (nsteps > 0 && fabs(bsum[c] / (double)nsteps - b) > 0.5)
                    bytes_vary = 1;
                bsum[c] += b;
                rsum[c] += (double)bk->ready_ns[c];
            }
            nsteps++;
        }
    }
    if (nsteps == 0 || nb == 0)
        goto none;
    p->buckets = calloc(nb, sizeof *p->buckets);
    if (p->buckets == NULL) {
        free(rsum);
        free(bsum);
        return HS_ERR_NOMEM;
    }
    p->n_buckets = nb;
    for (c = 0; c < nb; c++) {
        double r = rsum[c] / (double)nsteps;
        p->buckets[c].bytes = (uint64_t)llround(bsum[c] / (double)nsteps);
        p->buckets[c].ready_ns = r > 0 ? (int64_t)llround(r) : 0;
    }
    if (bytes_vary)
        hs_notes_add(&ing->notes,
                     "bucket sizes vary between steps: the means are written");
    free(rsum);
    free(bsum);
    return HS_OK;
none:
    free(rsum);
    free(bsum);
    p->n_buckets = 0;
    return HS_OK;
}

/* What hs_ingest_profile learns from the ranks' step windows before it
   measures anything; filled phase by phase, owns nothing. */
typedef struct {
    int all_pc;          /* every rank's payload from record_param_comms */
    int all_trace;       /* every rank's payload known from its trace */
    int gpu_all, gpu_any; /* ranks with device kernels: all, any */
    long world;          /* the traces' world_size, -1 when none says */
    unsigned n;          /* the sub-system size */
    unsigned kept_min;   /* the fewest kept steps of a rank */
    long first_kept, last_kept; /* the kept step numbers' range */
    uint64_t m;          /* the all-reduce payload M, bytes */
} hs__prof_scan_t;

/* Checks every rank's step windows (enough of them after the warm-up, one
   world_size) and gathers st's counts over the ranks. Fills err and
   returns HS_ERR_TRACE on a bad trace. */
static hs_err_t hs__prof_scan(hs_ingest_t *ing, hs__prof_scan_t *st,
                              hs_error_t *err)
{
    size_t i, j;

    for (i = 0; i < ing->n_files; i++) {
        const hs_rank_t *f = ing->files[i]->r;
        unsigned kept = 0;
        if (f->n_steps < (size_t)ing->warmup + 1)
            return hs_error_set(err, HS_ERR_TRACE, f->path, 0, 0,
                                "%zu ProfilerStep windows, fewer than the "
                                "warm-up (%u) plus one: profile more "
                                "iterations or lower --warmup",
                                f->n_steps, ing->warmup);
        for (j = 0; j < f->n_steps; j++) {
            const hs_ingest_step_t *s = hs__step(ing, ing->files[i], j,
                                                 NULL, NULL);
            if (s->kept) {
                kept++;
                if (st->first_kept < 0 || s->number < st->first_kept)
                    st->first_kept = s->number;
                if (s->number > st->last_kept)
                    st->last_kept = s->number;
            }
        }
        if (kept == 0)
            return hs_error_set(err, HS_ERR_TRACE, f->path, 0, 0,
                                "no complete step after the warm-up of %u "
                                "(a complete step has a backward operator)",
                                ing->warmup);
        if (kept < st->kept_min)
            st->kept_min = kept;
        if (!f->ar_known || f->ar_source != HS_AR_PARAM_COMMS)
            st->all_pc = 0;
        if (!f->ar_known)
            st->all_trace = 0;
        if (f->gpu)
            st->gpu_any = 1;
        else
            st->gpu_all = 0;
        if (f->world_size > 0) {
            if (st->world > 0 && st->world != f->world_size)
                return hs_error_set(err, HS_ERR_TRACE, f->path, 0, 0,
                                    "world_size %ld, but another trace "
                                    "says %ld: one sub-system at a time",
                                    f->world_size, st->world);
            st->world = f->world_size;
        }
    }
    return HS_OK;
}

/* Sets st->n, the sub-system size, from the traces' world_size, else the
   sidecar's, else the number of traces (a rank profiled alone counts as
   n = 2), with its notes. Fills err and returns HS_ERR_TRACE when no size
   of at least 2 follows or there are more traces than ranks. */
static hs_err_t hs__prof_subsys(hs_ingest_t *ing, hs__prof_scan_t *st,
                                hs_error_t *err)
{
    long world = st->world;

    if (st->gpu_any && !st->gpu_all)
        hs_notes_add(&ing->notes,
                     "some traces have device kernels and some not: compute "
                     "times mix kernel and CPU times");
    if (world == 1 || (world <= 0 && ing->sc.loaded && ing->sc.alone)) {
        /* profiled alone (hetsim profile --alone): no peer, so the
           payload comes from the model's gradients, for n = 2 (D = M) */
        if (!ing->sc.loaded)
            return hs_error_setf(err, HS_ERR_TRACE,
                                 "%s: a single rank (world_size 1): give its "
                                 "--sidecar for the gradient bytes",
                                 ing->files[0]->r->path);
        st->n = 2;
        st->all_trace = 0;
        hs_notes_add(&ing->notes,
                     "profiled alone (one rank, no peer): the payload M is "
                     "the model's gradient bytes, D = M for n = 2; the "
                     "communication's own cost and the hop wait were not "
                     "measured");
    } else if (world > 0)
        st->n = (unsigned)world;
    else if (ing->sc.loaded)
        st->n = (unsigned)ing->sc.world_size;
    else
        st->n = (unsigned)ing->n_files;
    if (world > 1 && ing->sc.loaded && ing->sc.world_size != world)
        hs_notes_add(&ing->notes,
                     "the sidecar says world_size %ld, the traces %ld: the "
                     "traces' value is used", ing->sc.world_size, world);
    if (st->n < 2)
        return hs_error_setf(err, HS_ERR_TRACE,
                             "%s: sub-system size %u: the traces carry no "
                             "distributedInfo.world_size; give the traces "
                             "of at least 2 ranks or a --sidecar with "
                             "world_size",
                             ing->files[0]->r->path, st->n);
    if (ing->n_files > st->n && world != 1)
        return hs_error_setf(err, HS_ERR_TRACE,
                             "%zu traces for a world of %u ranks",
                             ing->n_files, st->n);
    return HS_OK;
}

/* Fills out's phase times (t_dl, t_fwd, t_b1, t_bwd, t_opt) and
   ing->robust from the kept steps, with notes on what is missing.
   Returns a non-HS_OK code, err untouched, when out of memory; out's
   allocations are the caller's to release either way. */
static hs_err_t hs__prof_times(hs_ingest_t *ing, hs_profile_t *out)
{
    hs_dist_t *const d[HS_INGEST_PH_N] = {&out->t_dl, &out->t_fwd,
                                          &out->t_b1, &out->t_bwd,
                                          &out->t_opt};
    size_t miss[HS_INGEST_PH_N];
    hs_err_t rc;

    if ((rc = hs__dists(ing, d, miss)) != HS_OK)
        return rc;
    if (!out->t_dl.known)
        hs_notes_add(&ing->notes,
                     "no DataLoader events "
                     "(enumerate(DataLoader)#...__next__): t_dl is unknown");
    else if (miss[HS_INGEST_PH_DL] > 0)
        hs_notes_add(&ing->notes,
                     "%zu kept steps have no DataLoader event: t_dl from the "
                     "others", miss[HS_INGEST_PH_DL]);
    if (!out->t_opt.known)
        hs_notes_add(&ing->notes,
                     "no Optimizer.step# events: t_opt is unknown");
    return HS_OK;
}

/* Sets out->ar_source and st->m, the all-reduce payload M: the mean over
   the ranks of their kept steps' payloads when every trace has it, else
   the sidecar's gradient bytes. Fills err and returns HS_ERR_TRACE when
   neither is there. */
static hs_err_t hs__prof_payload(hs_ingest_t *ing, hs_profile_t *out,
                                 hs__prof_scan_t *st, hs_error_t *err)
{
    size_t i, j;
    double msum = 0;

    if (st->all_trace) {
        out->ar_source = st->all_pc ? HS_AR_PARAM_COMMS : HS_AR_SHAPES;
        for (i = 0; i < ing->n_files; i++) {
            const hs_rank_t *f = ing->files[i]->r;
            double s = 0;
            size_t k = 0;
            int vary = 0;
            for (j = 0; j < f->n_steps; j++) {
                const hs_ingest_step_t *t = hs__step(ing, ing->files[i],
                                                     j, NULL, NULL);
                if (t->kept) {
                    if (k > 0 && t->ar_payload_bytes !=
                                     (uint64_t)llround(s / (double)k))
                        vary = 1;
                    s += (double)t->ar_payload_bytes;
                    k++;
                }
            }
            if (vary)
                hs_notes_add(&ing->notes,
                             "%s: the all-reduce payload varies between "
                             "steps: the mean is used", hs__basename(f->path));
            msum += s / (double)k;
        }
        st->m = (uint64_t)llround(msum / (double)ing->n_files);
    } else if (ing->sc.loaded) {
        out->ar_source = HS_AR_SIDECAR;
        st->m = ing->sc.grad_bytes;
    } else {
        return hs_error_set(err, HS_ERR_TRACE, ing->files[0]->r->path, 0, 0,
                            "no all-reduce payload: no record_param_comms "
                            "args, no shapes of c10d::allreduce_/"
                            "nccl:all_reduce/gloo:all_reduce "
                            "(record_shapes=True), and no --sidecar");
    }
    return HS_OK;
}

/* Copies the sidecar's measured figures (comm cost, hop wait, CPU quota)
   into out, each with its note, and notes a skipped hop probe. Cannot
   fail; owns nothing. */
static void hs__prof_sidecar(hs_ingest_t *ing, hs_profile_t *out)
{
    if (ing->sc.loaded && ing->sc.comm_ns_per_byte > 0) {
        out->comm_ns_per_byte = ing->sc.comm_ns_per_byte;
        hs_notes_add(&ing->notes,
                     "communication cost %.3g ns of the device per byte sent "
                     "(the sidecar's comm_probe: CPU time of the all-reduces "
                     "at the forward's %.3f cores)",
                     ing->sc.comm_ns_per_byte, ing->sc.comm_cpu_rate);
    }
    if (ing->sc.loaded && ing->sc.hop_wait_ns >= 0) {
        out->t_hop_wait_ns = ing->sc.hop_wait_ns;
        hs_notes_add(&ing->notes,
                     "hop wait %.3f ms per ring hop that reaches a computing "
                     "device (the sidecar's hop_probe: median all-reduce "
                     "%.3f ms beside the backward, %.3f ms idle, %u hops, "
                     "%u trials)",
                     (double)ing->sc.hop_wait_ns / 1e6,
                     (double)ing->sc.hop_beside_ns / 1e6,
                     (double)ing->sc.hop_idle_ns / 1e6, ing->sc.hop_hops,
                     ing->sc.hop_n);
    }
    if (ing->sc.loaded && ing->sc.cpu_quota_cores > 0) {
        out->cpu_quota_cores = ing->sc.cpu_quota_cores;
        out->t_cpu_period_ns = ing->sc.cpu_period_ns;
        hs_notes_add(&ing->notes,
                     "CPU quota %.3g cores per %.3f ms period (the sidecar's "
                     "cpu_quota: the rank's cgroup)",
                     ing->sc.cpu_quota_cores,
                     (double)ing->sc.cpu_period_ns / 1e6);
    }
    if (ing->sc.loaded && ing->sc.hop_skipped[0] != '\0')
        hs_notes_add(&ing->notes,
                     "the hop-wait probe was skipped (%s): no t_hop_wait, "
                     "so the replay adds no wait for this type",
                     ing->sc.hop_skipped);
}

/* Fills out's forward operators (fwd_op_names, fwd_ops_ns) from the kept
   steps, scaled so they add up to t_fwd; none when t_fwd is zero.
   Returns a non-HS_OK code, err untouched, when out of memory; out's
   allocations are the caller's to release either way. */
static hs_err_t hs__prof_fwd_ops(hs_ingest_t *ing, hs_profile_t *out)
{
    double *acc = NULL, tot = 0;
    size_t nacc = 0, c;
    hs_err_t rc;

    if ((rc = hs__fwd_ops(ing, out, &acc, &nacc)) != HS_OK)
        return rc;
    for (c = 0; c < nacc; c++)
        tot += acc[c];
    if (nacc > 0 && tot > 0) {
        double scale = (double)out->t_fwd.mean_ns / tot;
        hs__round_to(acc, nacc, scale, out->t_fwd.mean_ns,
                     out->fwd_ops_ns);
        if (out->t_fwd.mean_ns != ing->robust[HS_INGEST_PH_FWD].mean_ns)
            hs_notes_add(&ing->notes,
                         "fwd_ops: the operators' mean times (%.3f ms "
                         "in all) scaled by %.4f to t_fwd (%.3f ms)",
                         tot / 1e6, scale, out->t_fwd.mean_ns / 1e6);
    } else if (nacc > 0) {
        /* no forward time: no operators */
        for (c = 0; c < nacc; c++)
            free(out->fwd_op_names[c]);
        free(out->fwd_op_names);
        free(out->fwd_ops_ns);
        out->fwd_op_names = NULL;
        out->fwd_ops_ns = NULL;
        out->n_fwd_ops = 0;
    }
    free(acc);
    return HS_OK;
}

/* With gradient accumulation in the trace (the harness's micro-batch
   marks): out->micro_batches set to the kept steps' micro-batch count V
   when they all have the same V > 1 (left 0 otherwise, so a profile
   without accumulation is written as before), and a note saying what the
   phase times are (gpu: of device kernels); none without. */
static void hs__micro(hs_ingest_t *ing, int gpu, hs_profile_t *out)
{
    unsigned lo = UINT_MAX, hi = 0;
    size_t i, j;

    for (i = 0; i < ing->n_files; i++) {
        const hs_rank_t *r = ing->files[i]->r;
        for (j = 0; j < r->n_steps; j++) {
            const hs_ingest_step_t *s = hs__step(ing, ing->files[i], j,
                                                 NULL, NULL);
            unsigned v = s->micro_batches;
            if (!s->kept)
                continue;
            if (v < lo)
                lo = v;
            if (v > hi)
                hi = v;
        }
    }
    if (hi <= 1)
        return;
    if (lo != hi) {
        hs_notes_add(&ing->notes,
                     "the kept steps have %u to %u micro-batches: the "
                     "phase times are per micro-batch, averaged over "
                     "steps of different accumulation; the profile states "
                     "no micro_batches", lo, hi);
        return;
    }
    out->micro_batches = hi;
    hs_notes_add(&ing->notes,
                 "gradient accumulation: %u micro-batches a step; "
                 "t_dl, t_fwd and t_bwd are one micro-batch's (the mean "
                 "over the step's%s), t_b1 the last micro-batch's (its "
                 "backward opens the all-reduce), t_opt the step's: the "
                 "profile says micro_batches: %u, which the device type "
                 "takes",
                 hi, gpu ? "; t_fwd and t_bwd of their kernels" : "", hi);
}

/* Sets out->source, the text that says where the profile comes from
   (files, ranks, steps, warm-up, compute and payload sources); out owns
   it. HS_ERR_NOMEM, err untouched, when out of memory. */
static hs_err_t hs__prof_source(const hs_ingest_t *ing, hs_profile_t *out,
                                const hs__prof_scan_t *st)
{
    char src[1024];
    size_t i, len = 0;

    len += (size_t)snprintf(src + len, sizeof src - len, "ingested from ");
    for (i = 0; i < ing->n_files && len < sizeof src; i++)
        len += (size_t)snprintf(src + len, sizeof src - len, "%s%s",
                                i ? ", " : "",
                                hs__basename(ing->files[i]->r->path));
    if (len < sizeof src)
        len += (size_t)snprintf(src + len, sizeof src - len, " (ranks ");
    for (i = 0; i < ing->n_files && len < sizeof src; i++)
        len += (size_t)snprintf(src + len, sizeof src - len, "%s%ld",
                                i ? "," : "", ing->files[i]->pub.rank);
    if (len < sizeof src)
        len += (size_t)snprintf(
            src + len, sizeof src - len,
            "), steps %ld..%ld, warm-up %u; compute: %s; payload M = "
            "%" PRIu64 " B from %s",
            st->first_kept, st->last_kept, ing->warmup,
            st->gpu_all ? "device kernels" : "CPU operator times", st->m,
            hs_ar_source_name(out->ar_source));
    if ((out->source = strdup(src)) == NULL)
        return HS_ERR_NOMEM;
    return HS_OK;
}

hs_err_t hs_ingest_profile(hs_ingest_t *ing, hs_profile_t *out,
                           hs_error_t *err)
{
    hs__prof_scan_t st;
    hs_err_t rc;

    memset(out, 0, sizeof *out);
    memset(&st, 0, sizeof st);
    st.all_pc = st.all_trace = st.gpu_all = 1;
    st.world = st.first_kept = st.last_kept = -1;
    st.kept_min = UINT_MAX;
    if (ing->n_files == 0)
        return hs_error_setf(err, HS_ERR_TRACE, "no trace to ingest");
    ing->rd_rc = HS_OK;
    if ((rc = hs__prof_scan(ing, &st, err)) != HS_OK)
        return hs__rd_fail(ing, rc, err);
    if ((rc = hs__prof_subsys(ing, &st, err)) != HS_OK)
        return rc;
    if (hs__prof_times(ing, out) != HS_OK)
        goto nomem;
    if (!out->t_fwd.known || !out->t_b1.known) {
        rc = hs_error_set(err, HS_ERR_TRACE, ing->files[0]->r->path, 0, 0,
                          "no backward operator (autograd::engine::"
                          "evaluate_function: ...) in the kept steps: "
                          "t_fwd and t_b1 cannot be measured");
        goto fail;
    }
    if ((rc = hs__prof_payload(ing, out, &st, err)) != HS_OK)
        goto fail;
    out->subsys_n = st.n;
    out->ar_bytes = (uint64_t)llround((double)st.m * 2.0 *
                                      (double)(st.n - 1) / (double)st.n);
    out->steps_kept = st.kept_min;
    hs__prof_sidecar(ing, out);
    if (hs__plain_phases(ing, out) != HS_OK)
        goto nomem;
    if (hs__prof_fwd_ops(ing, out) != HS_OK)
        goto nomem;
    if (hs__buckets(ing, out, out->ar_source == HS_AR_SIDECAR) != HS_OK)
        goto nomem;
    hs__clamp_ready(ing, out);
    hs__micro(ing, st.gpu_all, out);
    hs__rank_use(ing);
    if (hs__prof_source(ing, out, &st) != HS_OK)
        goto nomem;
    if ((rc = hs__rd_fail(ing, HS_OK, err)) != HS_OK)
        goto fail;
    return HS_OK;
nomem:
    rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
fail:
    rc = hs__rd_fail(ing, rc, err);
    hs__profile_release(out);
    return rc;
}
