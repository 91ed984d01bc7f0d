/* hs_rank.c -- the per-rank record (hs_rank.h). */
#include "hs_rank.h"

#include <stdlib.h>
#include <string.h>

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

void hs_rank_free(hs_rank_t *r)
{
    size_t i;

    if (r == NULL)
        return;
    for (i = 0; r->buckets != NULL && i < r->n_steps; i++) {
        free(r->buckets[i].bytes);
        free(r->buckets[i].ready_ns);
    }
    free(r->buckets);
    for (i = 0; r->fwd_ops != NULL && i < r->n_steps; i++) {
        free(r->fwd_ops[i].name);
        free(r->fwd_ops[i].ns);
    }
    free(r->fwd_ops);
    for (i = 0; i < r->n_op_names; i++)
        free(r->op_names[i]);
    free(r->op_names);
    free(r->steps);
    free(r->path);
    free(r);
}
