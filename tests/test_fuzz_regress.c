/*
 * test_fuzz_regress.c -- replays the fuzzers' findings and seeds in the
 * normal build, through the very entry points the libFuzzer targets use
 * (fuzz/hs_fuzz.c is compiled into this test).
 *
 *  - every file in fuzz/regress/<target>/ (an input that once crashed,
 *    leaked or broke a contract; see bench/fuzz.sh) must come back with a
 *    clean error: the process survives, the code is one of hs_err_t's
 *    failures with a message; a wrong success fails the test too.  A file
 *    whose name contains ".ok." is an input that must be accepted instead.
 *  - every seed in fuzz/corpus/<target>/ must not crash (any verdict).
 * Each input runs in a child process, so one crash names its file and the
 * others still run.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hs_test.h"

#include "../fuzz/hs_fuzz.c"

#define HS_FUZZ_ROOT HS_TEST_SRC "/fuzz"

/* Exit statuses of the child beyond hs_err_t's values. */
#define CHILD_NO_FILE 100

/* Runs target t on the file at path in a child (which prints the error
   message when verbose); returns the child's wait status. */
static int replay(const hs_fuzz_target_t *t, const char *path, int verbose)
{
    pid_t pid;
    int status = 0;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        hs_error_t err;
        FILE *f = fopen(path, "rb");
        char *buf = NULL;
        long len = -1;
        hs_err_t rc;

        /* the exact bytes: inputs may hold NUL bytes */
        if (f != NULL && fseek(f, 0, SEEK_END) == 0)
            len = ftell(f);
        if (len < 0 || fseek(f, 0, SEEK_SET) != 0 ||
            (buf = malloc((size_t)len + 1)) == NULL ||
            fread(buf, 1, (size_t)len, f) != (size_t)len)
            _exit(CHILD_NO_FILE);
        fclose(f);
        rc = t->run((const uint8_t *)buf, (size_t)len, &err);
        if (rc != HS_OK && verbose)
            printf("    %s: %s: %s\n", t->name, hs_err_name(rc), err.msg);
        free(buf);
        fflush(stdout);
        hs__fuzz_rmdir(); /* _exit skips the atexit handler */
        _exit((int)rc);
    }
    while (waitpid(pid, &status, 0) < 0)
        ;
    return status;
}

/* Replays every regular file of dir through t.  must_fail: 1 for the
   regression folder (a clean failure wanted), 0 for seeds (no crash).
   Returns the number of files replayed. */
static int replay_dir(const hs_fuzz_target_t *t, const char *dir,
                      int must_fail)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1024];
    int n = 0;

    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        int st, want_ok;

        if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        st = replay(t, path, must_fail);
        n++;
        if (!WIFEXITED(st)) {
            fprintf(stderr, "\n%s: target %s: killed by signal %d\n", path,
                    t->name, WIFSIGNALED(st) ? WTERMSIG(st) : -1);
            CU_FAIL("an input crashed the parser");
            continue;
        }
        HS_ASSERT_I64_EQ(WEXITSTATUS(st) == CHILD_NO_FILE, 0);
        if (!must_fail)
            continue;
        want_ok = strstr(e->d_name, ".ok.") != NULL;
        if (want_ok != (WEXITSTATUS(st) == HS_OK))
            fprintf(stderr, "\n%s: target %s: exit %d, want %s\n", path,
                    t->name, WEXITSTATUS(st),
                    want_ok ? "success" : "a clean error");
        CU_ASSERT(want_ok == (WEXITSTATUS(st) == HS_OK));
    }
    closedir(d);
    return n;
}

static void test_regress(void)
{
    const hs_fuzz_target_t *t;
    char dir[512];
    int n;

    for (t = hs_fuzz_targets; t->name != NULL; t++) {
        snprintf(dir, sizeof dir, "%s/regress/%s", HS_FUZZ_ROOT, t->name);
        n = replay_dir(t, dir, 1);
        printf("\n  %s: %d regression input(s)", t->name, n);
    }
    printf("\n");
}

static void test_seeds(void)
{
    const hs_fuzz_target_t *t;
    char dir[512];
    int n;

    for (t = hs_fuzz_targets; t->name != NULL; t++) {
        snprintf(dir, sizeof dir, "%s/corpus/%s", HS_FUZZ_ROOT, t->name);
        n = replay_dir(t, dir, 0);
        printf("\n  %s: %d seed(s)", t->name, n);
        CU_ASSERT(n > 0);
    }
    printf("\n");
}

/* The table and the lookup the targets are built from. */
static void test_table(void)
{
    CU_ASSERT(hs_fuzz_find("units") == &hs_fuzz_targets[0]);
    CU_ASSERT(hs_fuzz_find("trace") != NULL);
    CU_ASSERT(hs_fuzz_find("nope") == NULL);
}

static int register_tests(void)
{
    CU_pSuite s = CU_add_suite("fuzz_regress", NULL, NULL);

    if (s == NULL)
        return -1;
    CU_add_test(s, "target table", test_table);
    CU_add_test(s, "regression inputs fail cleanly", test_regress);
    CU_add_test(s, "seed corpus does not crash", test_seeds);
    return 0;
}

HS_TEST_MAIN(register_tests)
