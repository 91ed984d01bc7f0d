/*
 * hs_advise_int.h -- private to whatif/hs_advise*.c: the judging of
 * candidates split over processes (hs_advise_run.c).
 */
#ifndef HS_ADVISE_INT_H
#define HS_ADVISE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hs_advise.h"

/* CPU seconds of this process so far. */
double hs__advise_cpu_s(void);

/* 1 when ex splits the work over several processes. */
int hs__advise_split(const hs_advise_exec_t *ex);

/* Tells ex's progress (if any) what, done of total, best. */
void hs__advise_report(const hs_advise_exec_t *ex, const char *what,
                       uint64_t done, uint64_t total, int64_t best_ns);

/* Job k: a judging (hs_advise_judge) whose figures go to *fig. */
typedef hs_err_t (*hs__advise_job_fn)(void *ctx, size_t k,
                                      hs_advise_fig_t *fig, hs_error_t *err);

/*
 * Runs jobs 0..n-1 (those with todo[k] != 0; todo NULL: all) into
 * figs[k].  One process: in order, stopping at the first error.
 * Several (ex): the j-th job to do runs on process j mod size, each
 * stopping at its own first error; the records are gathered onto every
 * process, and the error of the lowest failing job is the one returned
 * -- the one a single process meets first.
 */
hs_err_t hs__advise_run_jobs(const hs_advise_exec_t *ex, size_t n,
                             const int *todo, hs__advise_job_fn job,
                             void *ctx, hs_advise_fig_t *figs,
                             hs_error_t *err);

#endif
