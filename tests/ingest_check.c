/*
 * ingest_check.c -- what the trace readers' and the ingestion's tests
 * share (ingest_check.h).
 */
#include "ingest_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_test.h"

void ic_read_two(const char *path, const hs_kineto_opts_t o[2],
                 ic_pair_t *p)
{
    int k;

    memset(p, 0, sizeof *p);
    for (k = 0; k < 2; k++) {
        hs_error_clear(&p->err[k]);
        p->code[k] = hs_kineto_read(path, &o[k], &p->r[k], &p->err[k]);
    }
}

void ic_batch_opts(hs_kineto_opts_t *o, const size_t *budgets, size_t k)
{
    o->ops_mem_bytes = budgets[k / 6];
    o->log_mem_bytes = k % 2 ? 1 : 0;
    o->step_batch = (k / 2) % 3;
    o->rec_mem_bytes = k % 3 == 1 ? 1 : 0;
}

hs_ingest_t *ic_ingest_all(const char *const *paths, size_t n,
                           const hs_ingest_opts_t *o, hs_profile_t *p)
{
    hs_ingest_t *ing = hs_ingest_new(o);
    hs_error_t err;
    hs_err_t rc;
    size_t i;

    CU_ASSERT_PTR_NOT_NULL_FATAL(ing);
    for (i = 0; i < n; i++)
        HS_ASSERT_I64_EQ(hs_ingest_add_file(ing, paths[i], &err), HS_OK);
    rc = hs_ingest_profile(ing, p, &err);
    if (rc != HS_OK)
        fprintf(stderr, "%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, HS_OK);
    return ing;
}

void ic_spill_opts(hs_kineto_opts_t *o, int k)
{
    memset(o, 0, sizeof *o);
    o->rec_mem_bytes = k & 1 ? 1 : 0;
    o->step_batch = k & 2 ? 1 : 0;
    /* spilled logs: one record in memory (the settled windows in blocks
       of one), or a few (windows in memory up to 4, else in blocks of
       2) */
    o->log_mem_bytes = k & 4 ? (k & 1 ? 1 : 200) : 0;
}

void ic_same_profile(const hs_profile_t *a, const hs_profile_t *b)
{
    const hs_dist_t *da[5] = {&a->t_dl, &a->t_fwd, &a->t_b1, &a->t_bwd,
                              &a->t_opt};
    const hs_dist_t *db[5] = {&b->t_dl, &b->t_fwd, &b->t_b1, &b->t_bwd,
                              &b->t_opt};
    size_t i, k;

    for (i = 0; i < 5; i++) {
        HS_ASSERT_I64_EQ(da[i]->known, db[i]->known);
        HS_ASSERT_I64_EQ(da[i]->mean_ns, db[i]->mean_ns);
        HS_ASSERT_I64_EQ(da[i]->sd_ns, db[i]->sd_ns);
        HS_ASSERT_I64_EQ(da[i]->n_samples, db[i]->n_samples);
        for (k = 0; k < da[i]->n_samples && k < db[i]->n_samples; k++)
            HS_ASSERT_I64_EQ(da[i]->samples_ns[k], db[i]->samples_ns[k]);
    }
    HS_ASSERT_I64_EQ(a->n_fwd_ops, b->n_fwd_ops);
    for (k = 0; k < a->n_fwd_ops && k < b->n_fwd_ops; k++) {
        HS_ASSERT_I64_EQ(a->fwd_ops_ns[k], b->fwd_ops_ns[k]);
        CU_ASSERT_EQUAL(a->fwd_op_names[k] == NULL,
                        b->fwd_op_names[k] == NULL);
        if (a->fwd_op_names[k] != NULL && b->fwd_op_names[k] != NULL)
            CU_ASSERT_STRING_EQUAL(a->fwd_op_names[k], b->fwd_op_names[k]);
    }
    HS_ASSERT_I64_EQ(a->ar_bytes, b->ar_bytes);
    HS_ASSERT_I64_EQ(a->subsys_n, b->subsys_n);
    HS_ASSERT_I64_EQ(a->ar_source, b->ar_source);
    HS_ASSERT_I64_EQ(a->n_buckets, b->n_buckets);
    for (k = 0; k < a->n_buckets && k < b->n_buckets; k++) {
        HS_ASSERT_I64_EQ(a->buckets[k].bytes, b->buckets[k].bytes);
        HS_ASSERT_I64_EQ(a->buckets[k].ready_ns, b->buckets[k].ready_ns);
    }
    HS_ASSERT_DBL_NEAR(a->comm_ns_per_byte, b->comm_ns_per_byte, 0);
    HS_ASSERT_I64_EQ(a->t_hop_wait_ns, b->t_hop_wait_ns);
    HS_ASSERT_I64_EQ(a->steps_kept, b->steps_kept);
    HS_ASSERT_I64_EQ(a->micro_batches, b->micro_batches);
    CU_ASSERT_EQUAL(a->source == NULL, b->source == NULL);
    if (a->source != NULL && b->source != NULL)
        CU_ASSERT_STRING_EQUAL(a->source, b->source);
}

void ic_pair_free(ic_pair_t *p)
{
    hs_rank_free(p->r[0]);
    hs_rank_free(p->r[1]);
    p->r[0] = p->r[1] = NULL;
}

/* The entries of one step (hs_rank_at's views) of two records. */
static void ic__same_step(const hs_rank_cur_t *a, const hs_rank_cur_t *b)
{
    size_t j;

    CU_ASSERT_EQUAL(memcmp(a->step, b->step, sizeof *a->step), 0);
    HS_ASSERT_I64_EQ(a->bk->has_bwd, b->bk->has_bwd);
    HS_ASSERT_I64_EQ(a->bk->timed, b->bk->timed);
    HS_ASSERT_I64_EQ(a->bk->n, b->bk->n);
    for (j = 0; j < a->bk->n && j < b->bk->n; j++) {
        HS_ASSERT_I64_EQ(a->bk->bytes[j], b->bk->bytes[j]);
        HS_ASSERT_I64_EQ(a->bk->ready_ns[j], b->bk->ready_ns[j]);
    }
    HS_ASSERT_I64_EQ(a->ops->n, b->ops->n);
    for (j = 0; j < a->ops->n && j < b->ops->n; j++) {
        HS_ASSERT_I64_EQ(a->ops->name[j], b->ops->name[j]);
        HS_ASSERT_I64_EQ(a->ops->ns[j], b->ops->ns[j]);
    }
}

void ic_same_record(const hs_rank_t *a, const hs_rank_t *b, unsigned flags)
{
    hs_rank_cur_t ca, cb;
    hs_error_t err;
    size_t i;

    HS_ASSERT_I64_EQ(a->n_steps, b->n_steps);
    HS_ASSERT_I64_EQ(a->gpu, b->gpu);
    HS_ASSERT_I64_EQ(a->ar_known, b->ar_known);
    if (flags & IC_RANK) {
        HS_ASSERT_I64_EQ(a->rank, b->rank);
        HS_ASSERT_I64_EQ(a->world_size, b->world_size);
    }
    HS_ASSERT_I64_EQ(a->n_events, b->n_events);
    HS_ASSERT_I64_EQ(a->json_bytes, b->json_bytes);
    HS_ASSERT_I64_EQ(a->n_op_names, b->n_op_names);
    if (a->n_steps != b->n_steps || a->n_op_names != b->n_op_names)
        return;
    for (i = 0; i < a->n_op_names; i++)
        CU_ASSERT_STRING_EQUAL(a->op_names[i], b->op_names[i]);
    memset(&ca, 0, sizeof ca);
    memset(&cb, 0, sizeof cb);
    for (i = 0; i < a->n_steps; i++) {
        HS_ASSERT_I64_EQ(hs_rank_at(a, i, &ca, &err), HS_OK);
        HS_ASSERT_I64_EQ(hs_rank_at(b, i, &cb, &err), HS_OK);
        if (ca.step == NULL || cb.step == NULL)
            break;
        ic__same_step(&ca, &cb);
    }
    hs_rank_cur_clear(&ca);
    hs_rank_cur_clear(&cb);
}

hs_ingest_t *ic_ingest_written(const char *dir, int ranks,
                               char *(*write)(const char *dir, int rank,
                                              int v),
                               int v, unsigned warmup)
{
    hs_ingest_opts_t o;
    hs_ingest_t *ing;
    hs_error_t err;
    int r;

    hs_ingest_opts_default(&o);
    o.warmup = warmup;
    ing = hs_ingest_new(&o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ing);
    for (r = 0; r < ranks; r++) {
        char *path = write(dir, r, v);
        HS_ASSERT_I64_EQ(hs_ingest_add_file(ing, path, &err), HS_OK);
        free(path);
    }
    return ing;
}

int ic_has_note(const hs_ingest_t *ing, const char *what)
{
    size_t n, i;
    const char *const *v = hs_ingest_notes(ing, &n);

    for (i = 0; i < n; i++)
        if (strstr(v[i], what) != NULL)
            return 1;
    return 0;
}
