/*
 * hs_advise_run.c -- what the three questions of hs_advise.c share: the
 * replay of a candidate, and the replays split over processes
 * (hs_advise.h, "running a question"; hs_advise_int.h).
 */
#include "hs_advise.h"
#include "hs_advise_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double hs__advise_cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The replay's steady step and total of scenario c with the caller's
   options (stragglers: c's own, its device indices). */
hs_err_t hs__advise_replay(const hs_scenario_t *c, const hs_replay_opts_t *o,
                           int64_t *step_ns, int64_t *total_ns,
                           hs_error_t *err)
{
    hs_replay_opts_t mine, own;
    hs_replay_result_t *r = NULL;
    hs_err_t rc;

    hs_replay_opts_from_scenario(c, &own);
    if (o != NULL) {
        mine = *o;
        mine.stragglers = own.stragglers;
        mine.n_stragglers = own.n_stragglers;
    } else {
        mine = own;
    }
    if ((rc = hs_replay_run(c, &mine, NULL, 0, &r, err)) != HS_OK)
        return rc;
    *step_ns = r->step_ns;
    if (total_ns != NULL)
        *total_ns = r->total_ns;
    hs_replay_result_free(r);
    return HS_OK;
}

/* ---- several processes: replays split, results gathered -------------- */

/* What one replay of a split gives back, sent as bytes (the processes run
   the same binary). */
typedef struct hs__jobrec_s {
    int64_t k;                  /* the job's number */
    int64_t step_ns, total_ns;
    int32_t code;               /* HS_OK or the job's error */
    char msg[HS_ERRMSG_LEN];
} hs__jobrec_t;

int hs__advise_split(const hs_advise_exec_t *ex)
{
    return ex != NULL && ex->size > 1 && ex->allgather != NULL;
}

void hs__advise_report(const hs_advise_exec_t *ex, const char *what,
                       uint64_t done, uint64_t total, int64_t best_ns)
{
    if (ex != NULL && ex->progress != NULL)
        ex->progress(ex->progress_ctx, what, done, total, best_ns);
}

/*
 * Runs jobs 0..n-1 (those with todo[k] != 0; todo NULL: all) into
 * res[k][0..1].  One process: in order, stopping at the first error.
 * Several: the j-th job to do runs on process j mod size, each stopping
 * at its own first error; the records are gathered, and the error of the
 * lowest failing job is the one returned -- the one a single process
 * meets first.
 */
hs_err_t hs__advise_run_jobs(const hs_advise_exec_t *ex, size_t n,
                             const int *todo, hs__advise_job_fn job, void *ctx,
                             int64_t (*res)[2], hs_error_t *err)
{
    hs__jobrec_t *mine = NULL, *all = NULL;
    size_t k, j = 0, n_todo = 0, n_mine = 0, done = 0, *lens = NULL, at;
    int size = hs__advise_split(ex) ? ex->size : 1;
    int rank = hs__advise_split(ex) ? ex->rank : 0, r;
    int64_t fail_k = -1;
    hs_err_t rc = HS_OK;

    for (k = 0; k < n; k++)
        if (todo == NULL || todo[k])
            n_todo++;
    if (size == 1) {
        for (k = 0; k < n; k++) {
            if (todo != NULL && !todo[k])
                continue;
            hs__advise_report(ex, "replays", done, n_todo, -1);
            if ((rc = job(ctx, k, res[k], err)) != HS_OK)
                return rc;
            done++;
        }
        hs__advise_report(ex, "replays", done, n_todo, -1);
        return HS_OK;
    }
    mine = calloc(n_todo / (size_t)size + 1, sizeof *mine);
    lens = calloc((size_t)size, sizeof *lens);
    if (mine == NULL || lens == NULL) {
        rc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (k = 0; k < n; k++) {
        hs__jobrec_t *jr;
        hs_error_t je;

        if (todo != NULL && !todo[k])
            continue;
        if (j++ % (size_t)size != (size_t)rank)
            continue;
        jr = &mine[n_mine++];
        jr->k = (int64_t)k;
        hs__advise_report(ex, "replays", done, (n_todo + (size_t)size - 1 -
                                         (size_t)rank) / (size_t)size, -1);
        hs_error_clear(&je);
        jr->code = (int32_t)job(ctx, k, res[k], &je);
        jr->step_ns = res[k][0];
        jr->total_ns = res[k][1];
        memcpy(jr->msg, je.msg, sizeof jr->msg);
        done++;
        if (jr->code != HS_OK)
            break;
    }
    hs__advise_report(ex, "replays", done, done, -1);
    if ((rc = ex->allgather(ex->gather_ctx, mine, n_mine * sizeof *mine,
                            (void **)&all, lens, err)) != HS_OK)
        goto done;
    for (r = 0, at = 0; r < size; r++) {
        size_t m = lens[r] / sizeof *all, i;

        for (i = 0; i < m; i++) {
            const hs__jobrec_t *jr = &all[at + i];

            if (jr->k < 0 || (size_t)jr->k >= n)
                continue;
            res[jr->k][0] = jr->step_ns;
            res[jr->k][1] = jr->total_ns;
            if (jr->code != HS_OK && (fail_k < 0 || jr->k < fail_k)) {
                fail_k = jr->k;
                err->code = (hs_err_t)jr->code;
                memcpy(err->msg, jr->msg, sizeof err->msg);
                err->msg[sizeof err->msg - 1] = '\0';
                rc = (hs_err_t)jr->code;
            }
        }
        at += m;
    }
done:
    free(mine);
    free(all);
    free(lens);
    return rc;
}
