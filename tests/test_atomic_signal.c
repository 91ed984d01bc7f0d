/*
 * test_atomic_signal.c -- a writer killed at any moment leaves no
 * temporary file (issue 15): a child writes one file through hs_atomic in
 * a loop as fast as it can, the parent kills it with SIGTERM (or SIGINT)
 * at random moments and looks for "*.tmp.*" in the folder after each kill.
 *
 * Before hs_atomic blocked the signals around mkstemp + registering the
 * file, a signal between the two left the file behind; the loop runs on a
 * tmpfs where one is available (fsync is then cheap, so the window is a
 * larger share of the loop and the test finds the race when it is back).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hs_atomic.h"
#include "hs_signal.h"
#include "hs_test.h"

#define HS__KILLS 200

/* The child: installs the handler, says so on fd, then rewrites
   dir/out.txt until killed. */
static void hs__writer(const char *dir, int fd)
{
    char path[4096];
    hs_error_t err;
    long i;

    snprintf(path, sizeof path, "%s/out.txt", dir);
    if (hs_signal_install(&err) != HS_OK)
        _exit(3);
    for (i = 0;; i++) {
        hs_atomic_t a;
        if (hs_atomic_open(&a, path, &err) != HS_OK)
            _exit(4);
        fprintf(a.f, "write %ld\n", i);
        if (hs_atomic_commit(&a, &err) != HS_OK)
            _exit(5);
        if (i == 0 && write(fd, "r", 1) != 1)
            _exit(6);
    }
}

/* Temporary files in dir (removed, so the next round starts clean). */
static int hs__leftovers(const char *dir, char *first, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;
    char p[4096];

    if (d == NULL)
        return -1;
    while ((de = readdir(d)) != NULL)
        if (strstr(de->d_name, ".tmp.") != NULL) {
            if (n++ == 0)
                snprintf(first, len, "%s", de->d_name);
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
            unlink(p);
        }
    closedir(d);
    return n;
}

/* A fresh folder on tmpfs when /dev/shm is there, else under the tests'
   scratch folder. */
static const char *hs__dir(void)
{
    static char dir[256];

    snprintf(dir, sizeof dir, "/dev/shm/hs-atomic-sig-%ld", (long)getpid());
    if (mkdir(dir, 0700) == 0 || errno == EEXIST)
        return dir;
    return hs_test_tmpdir("atomic-signal");
}

static void test_kill_writer(void)
{
    const char *dir = hs__dir();
    int k, leaked = 0, killed = 0, leftover_rounds = 0;
    char first[256] = "";
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();

    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    fprintf(stderr, "\n(folder %s, seed %u)\n", dir, seed);
    srand(seed);
    for (k = 0; k < HS__KILLS; k++) {
        int pfd[2], status = 0, n;
        char c;
        pid_t pid;
        struct timespec ts;
        int sig = k % 4 == 3 ? SIGINT : SIGTERM;

        CU_ASSERT_EQUAL_FATAL(pipe(pfd), 0);
        pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            close(pfd[0]);
            hs__writer(dir, pfd[1]);
        }
        close(pfd[1]);
        /* wait until it has written once (the handler is in place) */
        n = (int)read(pfd[0], &c, 1);
        close(pfd[0]);
        CU_ASSERT_EQUAL(n, 1);
        /* then at a random moment within about 2 ms */
        ts.tv_sec = 0;
        ts.tv_nsec = (long)(rand() % 2000) * 1000L;
        nanosleep(&ts, NULL);
        kill(pid, sig);
        CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
        if (WIFSIGNALED(status) && WTERMSIG(status) == sig)
            killed++;
        else
            fprintf(stderr, "round %d: status 0x%x\n", k, status);
        n = hs__leftovers(dir, first, sizeof first);
        CU_ASSERT(n >= 0);
        if (n > 0) {
            leaked += n;
            leftover_rounds++;
        }
    }
    fprintf(stderr, "%d kills, %d ended by the signal, %d temporary files "
            "left in %d rounds%s%s\n",
            HS__KILLS, killed, leaked, leftover_rounds,
            leaked ? ", e.g. " : "", first);
    CU_ASSERT_EQUAL(killed, HS__KILLS);
    CU_ASSERT_EQUAL(leaked, 0);
    {
        char p[4096];
        snprintf(p, sizeof p, "%s/out.txt", dir);
        unlink(p);
        if (strncmp(dir, "/dev/shm/", 9) == 0)
            rmdir(dir);
    }
}

/* The mask is restored as it was, and a signal that came while blocked is
   handled at once after. */
static volatile sig_atomic_t hs__got;

static void hs__count(int sig)
{
    (void)sig;
    hs__got++;
}

static void test_block_restores(void)
{
    sigset_t before, during, after, old;
    struct sigaction sa, prev;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hs__count;
    sigemptyset(&sa.sa_mask);
    CU_ASSERT_EQUAL_FATAL(sigaction(SIGHUP, &sa, &prev), 0);
    sigprocmask(SIG_SETMASK, NULL, &before);
    hs_signal_block(&old);
    sigprocmask(SIG_SETMASK, NULL, &during);
    CU_ASSERT(sigismember(&during, SIGINT) == 1);
    CU_ASSERT(sigismember(&during, SIGTERM) == 1);
    CU_ASSERT(sigismember(&during, SIGHUP) == 1);
    hs__got = 0;
    raise(SIGHUP);
    CU_ASSERT_EQUAL(hs__got, 0);
    hs_signal_unblock(&old);
    CU_ASSERT_EQUAL(hs__got, 1);
    sigprocmask(SIG_SETMASK, NULL, &after);
    CU_ASSERT_EQUAL(sigismember(&after, SIGHUP),
                    sigismember(&before, SIGHUP));
    CU_ASSERT_EQUAL(sigismember(&after, SIGTERM),
                    sigismember(&before, SIGTERM));
    sigaction(SIGHUP, &prev, NULL);
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("atomic files and signals", NULL, NULL);

    CU_add_test(s, "hs_signal_block holds and restores the mask",
                test_block_restores);
    CU_add_test(s, "a writer killed 200 times leaves no temporary file",
                test_kill_writer);
    return 0;
}

HS_TEST_MAIN(reg)
