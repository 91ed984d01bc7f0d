/* hs_test.c -- shared helpers for the CUnit tests (hs_test.h). */
#include "hs_test.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

extern char **environ;

typedef struct hs__buf_s {
    char *p;
    size_t len, cap;
} hs__buf_t;

static int hs__buf_add(hs__buf_t *b, const char *d, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        char *p;
        while (cap < b->len + n + 1)
            cap *= 2;
        p = realloc(b->p, cap);
        if (p == NULL)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

int hs_run(char *const argv[], hs_run_t *r)
{
    int po[2], pe[2];
    posix_spawn_file_actions_t fa;
    pid_t pid;
    hs__buf_t bo = {0}, be = {0};
    struct pollfd fds[2];
    int open_n = 2, st;

    memset(r, 0, sizeof *r);
    r->status = -1;
    if (pipe(po) != 0)
        return -1;
    if (pipe(pe) != 0) {
        close(po[0]);
        close(po[1]);
        return -1;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    posix_spawn_file_actions_addclose(&fa, po[0]);
    posix_spawn_file_actions_addclose(&fa, pe[0]);
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
        return -1;
    }
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    fds[0].fd = po[0];
    fds[1].fd = pe[0];
    fds[0].events = fds[1].events = POLLIN;
    while (open_n > 0) {
        int i;
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (i = 0; i < 2; i++) {
            char tmp[65536];
            ssize_t n;
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
                continue;
            n = read(fds[i].fd, tmp, sizeof tmp);
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_n--;
                continue;
            }
            hs__buf_add(i == 0 ? &bo : &be, tmp, (size_t)n);
        }
    }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (bo.p == NULL)
        hs__buf_add(&bo, "", 0);
    if (be.p == NULL)
        hs__buf_add(&be, "", 0);
    r->out = bo.p;
    r->err = be.p;
    return 0;
}

void hs_run_free(hs_run_t *r)
{
    if (r == NULL)
        return;
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

int hs_run_hetsim(hs_run_t *r, const char *arg0, ...)
{
    char *argv[64];
    int n = 0;
    va_list ap;
    const char *a;

    argv[n++] = (char *)HS_TEST_BIN;
    va_start(ap, arg0);
    for (a = arg0; a != NULL && n < 63; a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    return hs_run(argv, r);
}

static void hs__mkdirs(const char *path)
{
    char tmp[4096];
    char *p;

    snprintf(tmp, sizeof tmp, "%s", path);
    for (p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    }
    mkdir(tmp, 0755);
}

int hs_test_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    int bad;

    if (f == NULL)
        return -1;
    bad = fputs(text, f) < 0;
    return fclose(f) != 0 || bad ? -1 : 0;
}

const char *hs_test_write_file(const char *name, const char *text)
{
    static char path[4096];

    hs__mkdirs(HS_TEST_TMP);
    snprintf(path, sizeof path, "%s/%s", HS_TEST_TMP, name);
    hs_test_write(path, text);
    return path;
}

char *hs_test_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    hs__buf_t b = {0};
    char tmp[65536];
    size_t n;

    if (f == NULL)
        return NULL;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        if (hs__buf_add(&b, tmp, n) != 0)
            break;
    fclose(f);
    if (b.p == NULL)
        hs__buf_add(&b, "", 0);
    return b.p;
}

const char *hs_test_tmpdir(const char *tag)
{
    static char path[4096];

    snprintf(path, sizeof path, "%s/%s.%ld", HS_TEST_TMP, tag,
             (long)getpid());
    hs__mkdirs(path);
    return path;
}

void hs_test_skip(const char *test, const char *reason)
{
    printf("\nSKIP: %s: %s\n", test, reason);
    fflush(stdout);
}

int hs_test_require_root(const char *why)
{
    if (geteuid() == 0)
        return 1;
    hs_test_skip(why, "needs root");
    return 0;
}

int hs_test_main(int (*register_fn)(void))
{
    unsigned failures;

    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    if (register_fn() != 0 || CU_get_error() != CUE_SUCCESS) {
        fprintf(stderr, "test registration failed: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures();
    if (failures != 0) {
        /* Again after the summary: a CI log keeps only its tail. */
        printf("\nFailed assertions (%u):\n", failures);
        CU_basic_show_failures(CU_get_failure_list());
        printf("\n");
    }
    CU_cleanup_registry();
    return failures != 0 ? 1 : 0;
}

const char *hs_test_find_mpirun(void)
{
    static char path[1024];
    const char *p = getenv("PATH");

    while (p != NULL && *p != '\0') {
        size_t n = strcspn(p, ":");
        snprintf(path, sizeof path, "%.*s/mpirun", (int)n, p);
        if (access(path, X_OK) == 0)
            return path;
        p += n;
        if (*p == ':')
            p++;
    }
    return NULL;
}

int hs_test_mpi_ready(const char *cmd, const char *test)
{
    hs_run_t r;
    int built;

    if (hs_test_find_mpirun() == NULL) {
        hs_test_skip(test, "mpirun is not installed");
        return 0;
    }
    if (hs_run_hetsim(&r, cmd, "--help", NULL) != 0)
        return 0;
    built = r.out != NULL && strstr(r.out, "MPI: built in") != NULL;
    hs_run_free(&r);
    if (!built)
        hs_test_skip(test, "hetsim was built without MPI");
    return built;
}

struct yajl_val_s *hs_test_run_json(const char *test, char *const argv[],
                                    const char *json_path)
{
    hs_run_t r;
    char *text;
    char eb[256];
    yajl_val root;

    if (hs_run(argv, &r) != 0) {
        CU_FAIL("the script could not be started");
        return NULL;
    }
    printf("\n%s\n", r.out);
    if (r.status == 77) {
        hs_test_skip(test, r.out);
        hs_run_free(&r);
        return NULL;
    }
    if (r.status != 0)
        fprintf(stderr, "%s failed (%d):\n%s\n", argv[0], r.status, r.err);
    HS_ASSERT_I64_EQ(r.status, 0);
    hs_run_free(&r);
    text = hs_test_slurp(json_path);
    if (text == NULL) {
        CU_FAIL("no JSON written");
        return NULL;
    }
    root = yajl_tree_parse(text, eb, sizeof eb);
    free(text);
    CU_ASSERT(root != NULL);
    return root;
}
