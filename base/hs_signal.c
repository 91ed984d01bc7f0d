/* hs_signal.c -- cleanup on SIGINT/SIGTERM/SIGHUP (hs_signal.h). */
#include "hs_signal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

_Static_assert(ATOMIC_INT_LOCK_FREE == 2,
               "the handler needs lock-free atomic ints");

/* A slot's states; the handler reads only LIVE slots. */
enum { HS__FREE = 0, HS__BUSY = 1, HS__LIVE = 2 };

static atomic_int hs__file_state[HS_SIGNAL_SLOTS];
static char *hs__file_path[HS_SIGNAL_SLOTS];  /* set while not FREE */
static atomic_int hs__pg_state[HS_SIGNAL_SLOTS];
static pid_t hs__pg_id[HS_SIGNAL_SLOTS];      /* set while not FREE */
static atomic_int hs__installed;

static const int hs__signals[] = {SIGINT, SIGTERM, SIGHUP};
#define HS__NSIG (sizeof hs__signals / sizeof hs__signals[0])

/* Takes a FREE slot (now BUSY); -1 when none is left. */
static int hs__claim(atomic_int *state)
{
    int i;

    for (i = 0; i < HS_SIGNAL_SLOTS; i++) {
        int expect = HS__FREE;
        if (atomic_compare_exchange_strong(&state[i], &expect, HS__BUSY))
            return i;
    }
    return -1;
}

/* Sleeps ms milliseconds (async-signal-safe; an interruption cuts it
   short, which only shortens the grace). */
static void hs__nap_ms(long ms)
{
    struct timespec ts;

    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* Reaps what of group pg is our child; 1 while a member is alive. */
static int hs__group_alive(pid_t pg)
{
    while (waitpid(-pg, NULL, WNOHANG) > 0)
        ;
    return kill(-pg, 0) == 0 || errno == EPERM;
}

static void hs__unlink_all(void)
{
    int i;

    for (i = 0; i < HS_SIGNAL_SLOTS; i++)
        if (atomic_load(&hs__file_state[i]) == HS__LIVE)
            (void)unlink(hs__file_path[i]);
}

/* 1 when a registered group still has a process.  Visits every group
   (hs__group_alive reaps what exited in each), not only up to the first
   alive one. */
static int hs__any_group_alive(void)
{
    int i, any = 0;

    for (i = 0; i < HS_SIGNAL_SLOTS; i++)
        if (atomic_load(&hs__pg_state[i]) == HS__LIVE &&
            hs__group_alive(hs__pg_id[i]))
            any = 1;
    return any;
}

/* Ends every registered group: SIGTERM, the grace, SIGKILL. */
static void hs__end_groups(void)
{
    long waited_ms = 0, grace_ms = (long)(HS_SIGNAL_GRACE_NS / 1000000);
    int i, any = 0;

    for (i = 0; i < HS_SIGNAL_SLOTS; i++)
        if (atomic_load(&hs__pg_state[i]) == HS__LIVE &&
            kill(-hs__pg_id[i], SIGTERM) == 0)
            any = 1;
    while (any && waited_ms < grace_ms) {
        hs__nap_ms(10);
        waited_ms += 10;
        any = hs__any_group_alive();
    }
    if (!any)
        return;
    for (i = 0; i < HS_SIGNAL_SLOTS; i++)
        if (atomic_load(&hs__pg_state[i]) == HS__LIVE)
            (void)kill(-hs__pg_id[i], SIGKILL);
    /* Reap what was ours; init reaps the rest. */
    for (waited_ms = 0; waited_ms < 100; waited_ms += 10) {
        any = hs__any_group_alive();
        if (!any)
            break;
        hs__nap_ms(10);
    }
}

static void hs__handler(int sig)
{
    int saved = errno;
    struct sigaction dfl;
    sigset_t set;

    hs__unlink_all();
    hs__end_groups();
    /* A child that wrote a registered file by path may have made it again
       before it ended. */
    hs__unlink_all();

    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    (void)sigaction(sig, &dfl, NULL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    (void)sigprocmask(SIG_UNBLOCK, &set, NULL);
    (void)raise(sig);
    errno = saved; /* only reached if the default action did not end us */
}

hs_err_t hs_signal_install(hs_error_t *err)
{
    struct sigaction sa, old;
    size_t k;

    if (atomic_exchange(&hs__installed, 1) != 0)
        return HS_OK;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hs__handler;
    sigemptyset(&sa.sa_mask);
    for (k = 0; k < HS__NSIG; k++)
        sigaddset(&sa.sa_mask, hs__signals[k]);
    for (k = 0; k < HS__NSIG; k++) {
        if (sigaction(hs__signals[k], NULL, &old) != 0)
            goto fail;
        if (old.sa_handler == SIG_IGN)
            continue; /* nohup, a background job: leave it ignored */
        if (sigaction(hs__signals[k], &sa, NULL) != 0)
            goto fail;
    }
    return HS_OK;

fail:
    atomic_store(&hs__installed, 0);
    return hs_error_setf(err, HS_ERR_EXTERNAL,
                         "cannot install the signal handler: %s",
                         strerror(errno));
}

hs_err_t hs_signal_add_file(const char *path, hs_error_t *err)
{
    int i;
    char *copy;

    if (path == NULL)
        return hs_error_setf(err, HS_ERR_RANGE, "no path to register");
    copy = strdup(path);
    if (copy == NULL)
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    if ((i = hs__claim(hs__file_state)) < 0) {
        free(copy);
        return hs_error_set(err, HS_ERR_RANGE, path, 0, 0,
                            "more than %d temporary files open at once; "
                            "this one is not removed on a signal",
                            HS_SIGNAL_SLOTS);
    }
    hs__file_path[i] = copy;
    atomic_store(&hs__file_state[i], HS__LIVE);
    return HS_OK;
}

void hs_signal_forget_file(const char *path)
{
    int i;

    if (path == NULL)
        return;
    for (i = 0; i < HS_SIGNAL_SLOTS; i++) {
        int expect = HS__LIVE;
        if (atomic_load(&hs__file_state[i]) != HS__LIVE ||
            strcmp(hs__file_path[i], path) != 0)
            continue;
        if (!atomic_compare_exchange_strong(&hs__file_state[i], &expect,
                                            HS__BUSY))
            continue;
        free(hs__file_path[i]);
        hs__file_path[i] = NULL;
        atomic_store(&hs__file_state[i], HS__FREE);
        return;
    }
}

hs_err_t hs_signal_add_pgid(pid_t pgid, hs_error_t *err)
{
    int i;

    if (pgid <= 0)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "process group %ld cannot be registered",
                             (long)pgid);
    if ((i = hs__claim(hs__pg_state)) < 0)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "more than %d child process groups at once; "
                             "group %ld is not ended on a signal",
                             HS_SIGNAL_SLOTS, (long)pgid);
    hs__pg_id[i] = pgid;
    atomic_store(&hs__pg_state[i], HS__LIVE);
    return HS_OK;
}

void hs_signal_forget_pgid(pid_t pgid)
{
    int i;

    for (i = 0; i < HS_SIGNAL_SLOTS; i++) {
        int expect = HS__LIVE;
        if (atomic_load(&hs__pg_state[i]) != HS__LIVE ||
            hs__pg_id[i] != pgid)
            continue;
        if (!atomic_compare_exchange_strong(&hs__pg_state[i], &expect,
                                            HS__BUSY))
            continue;
        hs__pg_id[i] = 0;
        atomic_store(&hs__pg_state[i], HS__FREE);
        return;
    }
}

void hs_signal_block(sigset_t *old)
{
    sigset_t set;
    size_t k;

    sigemptyset(&set);
    for (k = 0; k < HS__NSIG; k++)
        sigaddset(&set, hs__signals[k]);
    (void)pthread_sigmask(SIG_BLOCK, &set, old);
}

void hs_signal_unblock(const sigset_t *old)
{
    (void)pthread_sigmask(SIG_SETMASK, old, NULL);
}

static int hs__count(atomic_int *state)
{
    int i, n = 0;

    for (i = 0; i < HS_SIGNAL_SLOTS; i++)
        if (atomic_load(&state[i]) == HS__LIVE)
            n++;
    return n;
}

int hs_signal_count_files(void)
{
    return hs__count(hs__file_state);
}

int hs_signal_count_pgids(void)
{
    return hs__count(hs__pg_state);
}
