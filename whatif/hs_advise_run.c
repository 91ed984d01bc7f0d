/*
 * hs_advise_run.c -- what the three questions of hs_advise.c share: the
 * judge (hs_answer_run on a candidate, hs_advise.h "the judge"), and the
 * judging split over processes (hs_advise.h, "running a question";
 * hs_advise_int.h).
 */
#include "hs_advise.h"
#include "hs_advise_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double hs__advise_cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *hs_advise_outcome_name(hs_advise_outcome_t o)
{
    switch (o) {
    case HS_ADVISE_IMPROVED:
        return "improved";
    case HS_ADVISE_FALLBACK:
        return "fallback";
    case HS_ADVISE_NONE:
        return "none";
    }
    return "unknown";
}

/* ---- the judge ------------------------------------------------------- */

hs_err_t hs_advise_judge(const hs_scenario_t *c, const hs_replay_opts_t *o,
                         int replay, hs_advise_fig_t *fig, hs_error_t *err)
{
    hs_replay_opts_t mine;
    hs_answer_t *a = NULL;
    hs_answer_replay_t mode;
    hs_err_t rc;

    /* the caller's options, but the candidate's own stragglers (they
       name its device indices) */
    hs_replay_opts_from_scenario(c, &mine);
    if (o != NULL) {
        const hs_straggler_t *st = mine.stragglers;
        size_t n_st = mine.n_stragglers;

        mine = *o;
        mine.stragglers = st;
        mine.n_stragglers = n_st;
    }
    mode = !replay ? HS_ANSWER_REPLAY_NEVER
                   : mine.force ? HS_ANSWER_REPLAY_ALWAYS
                                : HS_ANSWER_REPLAY_AUTO;
    memset(fig, 0, sizeof *fig);
    if ((rc = hs_answer_run(c, &mine, mode, NULL, 0, &a, err)) != HS_OK)
        return rc;
    memcpy(fig->est, a->est, sizeof fig->est);
    fig->recommended = a->recommended;
    if (!replay)
        snprintf(fig->why, sizeof fig->why, "the replay was not asked for: "
                 "the extended closed form judges every candidate");
    else
        snprintf(fig->why, sizeof fig->why, "%s", a->why);
    hs_answer_free(a);
    return HS_OK;
}

void hs_advise_fig_pair(const hs_advise_fig_t *a, const hs_advise_fig_t *b,
                        int want_total, int64_t *va, int64_t *vb,
                        hs_predictor_t *pred, int *quantity)
{
    hs_predictor_t p = a->recommended == b->recommended
                           ? a->recommended
                           : HS_PREDICTOR_EXTENDED;
    const hs_estimate_t *ea = &a->est[p], *eb = &b->est[p];
    int q;

    if (want_total && ea->total_ns >= 0 && eb->total_ns >= 0) {
        q = 2;
        *va = ea->total_ns;
        *vb = eb->total_ns;
    } else if (ea->epoch_ns >= 0 && eb->epoch_ns >= 0) {
        q = 1;
        *va = ea->epoch_ns;
        *vb = eb->epoch_ns;
    } else {
        q = 0;
        *va = ea->step_ns;
        *vb = eb->step_ns;
    }
    if (pred != NULL)
        *pred = p;
    if (quantity != NULL)
        *quantity = q;
}

int hs_advise_fig_faster(const hs_advise_fig_t *a, const hs_advise_fig_t *b,
                         int want_total)
{
    int64_t va, vb;

    hs_advise_fig_pair(a, b, want_total, &va, &vb, NULL, NULL);
    return va >= 0 && (vb < 0 || va < vb);
}

/* ---- several processes: replays split, results gathered -------------- */

/* What one judging of a split gives back, sent as bytes (the processes
   run the same binary). */
typedef struct hs__jobrec_s {
    int64_t k;                  /* the job's number */
    int32_t code;               /* HS_OK or the job's error */
    char msg[HS_ERRMSG_LEN];
    hs_advise_fig_t fig;
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

/* (hs_advise_int.h) */
hs_err_t hs__advise_run_jobs(const hs_advise_exec_t *ex, size_t n,
                             const int *todo, hs__advise_job_fn job, void *ctx,
                             hs_advise_fig_t *figs, hs_error_t *err)
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
            if ((rc = job(ctx, k, &figs[k], err)) != HS_OK)
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
        jr->code = (int32_t)job(ctx, k, &jr->fig, &je);
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
            figs[jr->k] = jr->fig;
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
