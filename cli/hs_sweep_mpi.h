/*
 * hs_sweep_mpi.h -- running a sweep's points over MPI ranks (`mpirun -n K
 * hetsim sweep ...`), with a serial fallback when hetsim was built
 * without MPI or was not started by an MPI launcher.  See the essay at
 * the top of hs_sweep_mpi.c.
 */
#ifndef HS_SWEEP_MPI_H
#define HS_SWEEP_MPI_H

#include <stdint.h>

#include "hs_error.h"
#include "hs_sweep.h"

typedef struct hs_sweep_mpi_s {
    int active;     /* MPI_Init was called */
    int rank;       /* 0 when not active */
    int size;       /* 1 when not active */
} hs_sweep_mpi_t;

/* 1 when this hetsim was built with MPI (HETSIM_HAVE_MPI). */
int hs_sweep_mpi_built(void);

/*
 * Starts MPI when the process was started by an MPI launcher (mpirun,
 * mpiexec, srun with PMI/PMIx: the environment says so) and hetsim has
 * MPI; else fills m for one serial process.  Fails with HS_ERR_USAGE when
 * a launcher started several processes but hetsim was built without MPI
 * (each would run the whole sweep and write the same file).
 */
hs_err_t hs_sweep_mpi_init(hs_sweep_mpi_t *m, hs_error_t *err);

/*
 * Runs every point of sw.  Serial (m not active, or one rank): like
 * hs_sweep_run.  Under MPI with K ranks, rank 0 hands out one point
 * number per request to ranks 1..K-1 as they ask, gathers their records
 * and error texts into res (res is only filled on rank 0) and calls
 * progress; a rank that does not return a point within timeout_ns (0: no
 * limit), or an MPI call that fails, makes it return HS_ERR_RANK naming
 * the rank and point.  Workers return HS_OK when told to stop.
 */
hs_err_t hs_sweep_mpi_run(const hs_sweep_mpi_t *m, hs_sweep_t *sw,
                          hs_sweep_results_t *res, int64_t timeout_ns,
                          hs_sweep_progress_fn progress, void *ctx,
                          hs_error_t *err);

/*
 * Gathers len bytes (mine) from every rank onto every rank (an
 * hs_advise_allgather_fn; ctx: the hs_sweep_mpi_t): *all, malloc'd (the
 * caller frees it), holds the ranks' parts in rank order, rank r's length
 * in lens[r] (m->size entries).  Not active or one rank: a copy of mine.
 * Fails with HS_ERR_RANK when an MPI call fails, HS_ERR_NOMEM.
 */
hs_err_t hs_sweep_mpi_allgather(void *ctx, const void *mine, size_t len,
                                void **all, size_t *lens, hs_error_t *err);

/* Finalizes MPI after a run that ended well on every rank. */
void hs_sweep_mpi_finalize(hs_sweep_mpi_t *m);

/* Ends every rank of the job with exit status code (MPI_Abort); for a
   failure on one rank once its temporary files are gone.  Returns only
   when m is not active. */
void hs_sweep_mpi_abort(hs_sweep_mpi_t *m, int code);

#endif
