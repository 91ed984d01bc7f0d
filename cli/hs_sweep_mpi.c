/*
 * hs_sweep_mpi.c -- a sweep's points over MPI ranks (hs_sweep_mpi.h).
 *
 * The workload: thousands of points whose costs differ by orders of
 * magnitude (a replay of N = 1,024 against a closed form of N = 8), on
 * ranks that may sit on several machines.  A static split would leave
 * ranks idle behind the one that drew the expensive points, so the work
 * is shared dynamically: rank 0 is the coordinator and hands out one
 * point number at a time; ranks 1..K-1 ask, run the point, send back its
 * fixed-size record (hs_sweep_rec_t, sent as bytes: the ranks run the same
 * binary on the same architecture) followed by its error text, and ask
 * again with the same message.  Rank 0 stores results by point number, so
 * the gathered results -- and the one output file rank 0 writes from
 * them -- are the serial run's, byte for byte, whoever ran what.
 *
 * Every rank parses the same command line and loads the same scenario;
 * only point numbers travel.  Rank 0 does not run points itself: it
 * answers requests at once, which keeps a worker's wait short even when
 * points are long.  With K = 1 it runs the sweep serially.
 *
 * Failures: MPI errors are returned (MPI_ERRORS_RETURN), not fatal, so a
 * failing call becomes an hs_error_t naming the rank; a worker that does
 * not return a point within the timeout is declared hung.  In both cases
 * the caller (cmd_sweep.c) removes what it wrote and calls MPI_Abort, which
 * ends every rank; since rank 0 writes its output only after the last
 * point is gathered, no partial output file ever appears.  A rank killed
 * by a signal makes mpirun end the job in the same way.
 *
 * `hetsim advise` uses the same start and end, and one collective of its
 * own, hs_sweep_mpi_allgather: every rank computes the same answer from
 * what all of them contributed (whatif/hs_advise.h says what is split).
 *
 * Test hooks (tests/test_sweep_mpi.c): HETSIM_SWEEP_TEST_HANG_RANK=R makes
 * worker R stop answering once it receives its first point;
 * HETSIM_SWEEP_TEST_DIE_RANK=R makes it die there (SIGKILL).
 */
#include "hs_sweep_mpi.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HETSIM_HAVE_MPI
#include <mpi.h>
#endif

#include "hs_units.h"

int hs_sweep_mpi_built(void)
{
#ifdef HETSIM_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

/* The number of processes an MPI launcher says it started: 0 when none
   started this one, -1 when one did but did not say how many. */
static long hs__launched(void)
{
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                        "MPI_LOCALNRANKS", NULL};
    static const char *const ranks[] = {"PMIX_RANK", "PMI_RANK", NULL};
    int i;

    for (i = 0; sizes[i] != NULL; i++) {
        const char *v = getenv(sizes[i]);
        if (v != NULL && *v != '\0')
            return strtol(v, NULL, 10);
    }
    for (i = 0; ranks[i] != NULL; i++)
        if (getenv(ranks[i]) != NULL)
            return -1;
    return 0;
}

hs_err_t hs_sweep_mpi_init(hs_sweep_mpi_t *m, hs_error_t *err)
{
    long n = hs__launched();

    m->active = 0;
    m->rank = 0;
    m->size = 1;
    if (n == 0)
        return HS_OK;
#ifdef HETSIM_HAVE_MPI
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return hs_error_setf(err, HS_ERR_RANK, "MPI_Init failed");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    m->active = 1;
    return HS_OK;
#else
    if (n > 1)
        return hs_error_setf(err, HS_ERR_USAGE,
                             "started by an MPI launcher as %ld processes, "
                             "but this hetsim was built without MPI (install "
                             "libopenmpi-dev and rebuild); run it as one "
                             "process", n);
    return HS_OK;
#endif
}

void hs_sweep_mpi_finalize(hs_sweep_mpi_t *m)
{
#ifdef HETSIM_HAVE_MPI
    if (m->active)
        MPI_Finalize();
#endif
    m->active = 0;
}

void hs_sweep_mpi_abort(hs_sweep_mpi_t *m, int code)
{
#ifdef HETSIM_HAVE_MPI
    if (m->active) {
        fflush(stdout);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
#endif
    (void)m;
    (void)code;
}

#ifdef HETSIM_HAVE_MPI

#define HS__TAG_RESULT 1    /* worker -> 0: [point][record][error text] */
#define HS__TAG_WORK 2      /* 0 -> worker: a point number, -1 = stop */
#define HS__HDR (sizeof(int64_t) + sizeof(hs_sweep_rec_t))
#define HS__MSG_MAX (HS__HDR + HS_ERRMSG_LEN + 1)

static int64_t hs__now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static hs_err_t hs__mpi_fail(hs_error_t *err, int rc, int rank,
                             const char *what)
{
    char es[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (MPI_Error_string(rc, es, &len) != MPI_SUCCESS)
        snprintf(es, sizeof es, "MPI error %d", rc);
    return hs_error_setf(err, HS_ERR_RANK, "rank %d: %s failed: %s", rank,
                         what, es);
}

/* What a worker does: ask, run, answer, until told to stop. */
static hs_err_t hs__worker(const hs_sweep_mpi_t *m, hs_sweep_t *sw,
                           hs_error_t *err)
{
    unsigned char *msg = malloc(HS__MSG_MAX);
    const char *hang = getenv("HETSIM_SWEEP_TEST_HANG_RANK");
    const char *die = getenv("HETSIM_SWEEP_TEST_DIE_RANK");
    int64_t point = -1;
    size_t len = HS__HDR + 1;
    int rc;

    if (msg == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "rank %d: out of memory",
                             m->rank);
    memset(msg, 0, HS__MSG_MAX);
    memcpy(msg, &point, sizeof point);
    for (;;) {
        hs_sweep_rec_t rec;
        hs_error_t pe;
        size_t el;

        rc = MPI_Send(msg, (int)len, MPI_BYTE, 0, HS__TAG_RESULT,
                      MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            break;
        rc = MPI_Recv(&point, 1, MPI_INT64_T, 0, HS__TAG_WORK,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || point < 0)
            break;
        if (hang != NULL && atoi(hang) == m->rank)
            for (;;)
                pause();
        if (die != NULL && atoi(die) == m->rank)
            raise(SIGKILL);
        hs_error_clear(&pe);
        if (hs_sweep_run_point(sw, (size_t)point, &rec, &pe) == HS_OK)
            pe.msg[0] = '\0';
        el = strlen(pe.msg);
        memcpy(msg, &point, sizeof point);
        memcpy(msg + sizeof point, &rec, sizeof rec);
        memcpy(msg + HS__HDR, pe.msg, el + 1);
        len = HS__HDR + el + 1;
    }
    free(msg);
    if (rc != MPI_SUCCESS)
        return hs__mpi_fail(err, rc, m->rank, "talking to rank 0");
    return HS_OK;
}

/* No result waiting: refuses a worker that kept its point (held[w],
   given at since[w]) longer than timeout_ns (0: no limit). */
static hs_err_t hs__coord_watch(const hs_sweep_mpi_t *m, const int64_t *held,
                                const int64_t *since, int64_t timeout_ns,
                                hs_error_t *err)
{
    int64_t now = hs__now_ns();
    char t[32];
    int w;

    for (w = 1; timeout_ns > 0 && w < m->size; w++) {
        if (held[w] >= 0 && now - since[w] > timeout_ns)
            return hs_error_setf(err, HS_ERR_RANK,
                                 "rank %d did not return point %lld "
                                 "within %s: it hung or died; the "
                                 "sweep is abandoned, no output "
                                 "written", w, (long long)held[w],
                                 hs_fmt_time(timeout_ns, t,
                                             sizeof t));
    }
    return HS_OK;
}

/* Receives the message st announced from worker src into msg and stores
   its result, if any, for point held[src] (of n) in res, reporting
   progress; refuses a message that is not a result, or a point the
   worker was not given. */
static hs_err_t hs__coord_receive(const MPI_Status *st, unsigned char *msg,
                                  size_t n, int64_t *held,
                                  hs_sweep_results_t *res,
                                  hs_sweep_progress_fn progress, void *ctx,
                                  hs_error_t *err)
{
    int count = 0, src = st->MPI_SOURCE, rc;
    int64_t point;
    hs_err_t hrc;

    MPI_Get_count(st, MPI_BYTE, &count);
    if (count < (int)HS__HDR + 1 || count > (int)HS__MSG_MAX)
        return hs_error_setf(err, HS_ERR_RANK,
                             "rank %d sent a message of %d bytes, not a "
                             "sweep result", src, count);
    rc = MPI_Recv(msg, count, MPI_BYTE, src, HS__TAG_RESULT,
                  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return hs__mpi_fail(err, rc, src, "receiving a result");
    msg[count - 1] = '\0';
    memcpy(&point, msg, sizeof point);
    if (point >= 0) {
        hs_sweep_rec_t rec;
        if ((size_t)point >= n || point != held[src])
            return hs_error_setf(err, HS_ERR_RANK,
                                 "rank %d returned point %lld, which it "
                                 "was not given", src, (long long)point);
        memcpy(&rec, msg + sizeof point, sizeof rec);
        hrc = hs_sweep_results_store(res, (size_t)point, &rec,
                                     (const char *)msg + HS__HDR, err);
        if (hrc != HS_OK)
            return hrc;
        held[src] = -1;
        if (progress != NULL && progress(ctx, res->n_done, n) != 0)
            return hs_error_setf(err, HS_ERR_USAGE,
                                 "the sweep was stopped after %zu of %zu "
                                 "points", res->n_done, n);
    }
    return HS_OK;
}

/* What rank 0 does: answer requests until every worker was told to stop;
   watch for workers that keep a point too long. */
static hs_err_t hs__coordinator(const hs_sweep_mpi_t *m, hs_sweep_t *sw,
                                hs_sweep_results_t *res, int64_t timeout_ns,
                                hs_sweep_progress_fn progress, void *ctx,
                                hs_error_t *err)
{
    size_t n = hs_sweep_n_points(sw), next = 0;
    int nw = m->size - 1, stopped = 0, w, rc = MPI_SUCCESS;
    int64_t *held = calloc((size_t)m->size, sizeof *held);
    int64_t *since = calloc((size_t)m->size, sizeof *since);
    unsigned char *msg = malloc(HS__MSG_MAX + 1);
    hs_err_t hrc = HS_OK;

    if (held == NULL || since == NULL || msg == NULL) {
        hrc = hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (w = 0; w < m->size; w++)
        held[w] = -1;
    while (stopped < nw) {
        MPI_Status st;
        int flag = 0, src;
        int64_t reply;

        rc = MPI_Iprobe(MPI_ANY_SOURCE, HS__TAG_RESULT, MPI_COMM_WORLD,
                        &flag, &st);
        if (rc != MPI_SUCCESS) {
            hrc = hs__mpi_fail(err, rc, 0, "waiting for the workers");
            goto done;
        }
        if (!flag) {
            if ((hrc = hs__coord_watch(m, held, since, timeout_ns, err)) !=
                HS_OK)
                goto done;
            usleep(100);
            continue;
        }
        src = st.MPI_SOURCE;
        if ((hrc = hs__coord_receive(&st, msg, n, held, res, progress, ctx,
                                     err)) != HS_OK)
            goto done;
        reply = next < n ? (int64_t)next++ : -1;
        rc = MPI_Send(&reply, 1, MPI_INT64_T, src, HS__TAG_WORK,
                      MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) {
            hrc = hs__mpi_fail(err, rc, src, "sending a point");
            goto done;
        }
        if (reply < 0) {
            stopped++;
        } else {
            held[src] = reply;
            since[src] = hs__now_ns();
        }
    }
    if (res->n_done != n)
        hrc = hs_error_setf(err, HS_ERR_RANK,
                            "only %zu of %zu points came back", res->n_done,
                            n);
done:
    free(held);
    free(since);
    free(msg);
    return hrc;
}

#endif /* HETSIM_HAVE_MPI */

hs_err_t hs_sweep_mpi_allgather(void *ctx, const void *mine, size_t len,
                                void **all, size_t *lens, hs_error_t *err)
{
    const hs_sweep_mpi_t *m = ctx;

#ifdef HETSIM_HAVE_MPI
    if (m->active && m->size > 1) {
        long long my = (long long)len, total = 0;
        long long *ll = malloc((size_t)m->size * sizeof *ll);
        int *cnt = malloc((size_t)m->size * sizeof *cnt);
        int *at = malloc((size_t)m->size * sizeof *at);
        char *buf = NULL;
        int r, rc;

        *all = NULL;
        if (ll == NULL || cnt == NULL || at == NULL) {
            free(ll);
            free(cnt);
            free(at);
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        }
        rc = MPI_Allgather(&my, 1, MPI_LONG_LONG, ll, 1, MPI_LONG_LONG,
                           MPI_COMM_WORLD);
        for (r = 0; rc == MPI_SUCCESS && r < m->size; r++) {
            if (ll[r] < 0 || total + ll[r] > 1LL << 30) {
                free(ll);
                free(cnt);
                free(at);
                return hs_error_setf(err, HS_ERR_RANK, "rank %d: %lld "
                                     "bytes to gather are too many", r,
                                     ll[r]);
            }
            cnt[r] = (int)ll[r];
            at[r] = (int)total;
            lens[r] = (size_t)ll[r];
            total += ll[r];
        }
        if (rc == MPI_SUCCESS && (buf = malloc((size_t)total + 1)) == NULL) {
            free(ll);
            free(cnt);
            free(at);
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Allgatherv(mine, (int)len, MPI_BYTE, buf, cnt, at,
                                MPI_BYTE, MPI_COMM_WORLD);
        free(ll);
        free(cnt);
        free(at);
        if (rc != MPI_SUCCESS) {
            free(buf);
            return hs__mpi_fail(err, rc, m->rank, "gathering the results");
        }
        *all = buf;
        return HS_OK;
    }
#endif
    (void)m;
    if ((*all = malloc(len + 1)) == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    if (len > 0)
        memcpy(*all, mine, len);
    lens[0] = len;
    return HS_OK;
}

hs_err_t hs_sweep_mpi_run(const hs_sweep_mpi_t *m, hs_sweep_t *sw,
                          hs_sweep_results_t *res, int64_t timeout_ns,
                          hs_sweep_progress_fn progress, void *ctx,
                          hs_error_t *err)
{
#ifdef HETSIM_HAVE_MPI
    if (m->active && m->size > 1) {
        if (m->rank == 0)
            return hs__coordinator(m, sw, res, timeout_ns, progress, ctx,
                                   err);
        return hs__worker(m, sw, err);
    }
#endif
    (void)m;
    (void)timeout_ns;
    return hs_sweep_run(sw, res, progress, ctx, err);
}
