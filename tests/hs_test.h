/*
 * hs_test.h -- shared helpers for hetsim's CUnit tests.
 *
 * Each tests/test_*.c defines its suites with a register function and ends
 * with HS_TEST_MAIN(register_fn).  The main runs the suites with CUnit's
 * basic interface (which prints the "Run Summary") and exits non-zero when
 * any assertion failed: CU_basic_run_tests returns a framework code, not the
 * number of failures.
 */
#ifndef HS_TEST_H
#define HS_TEST_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

/* Equality that prints both sides when it fails (as libuv's ASSERT_EQ). */
#define HS_ASSERT_I64_EQ(a, b)                                              \
    do {                                                                    \
        int64_t hs__a = (int64_t)(a), hs__b = (int64_t)(b);                 \
        if (hs__a != hs__b)                                                 \
            fprintf(stderr, "\n%s:%d: %s == %s: %" PRId64 " != %" PRId64 "\n",\
                    __FILE__, __LINE__, #a, #b, hs__a, hs__b);              \
        CU_ASSERT_EQUAL(hs__a, hs__b);                                      \
    } while (0)

#define HS_ASSERT_DBL_NEAR(a, b, tol)                                       \
    do {                                                                    \
        double hs__a = (double)(a), hs__b = (double)(b);                    \
        if (!(hs__a - hs__b <= (tol) && hs__b - hs__a <= (tol)))            \
            fprintf(stderr, "\n%s:%d: %s ~ %s: %.9g vs %.9g (tol %g)\n",    \
                    __FILE__, __LINE__, #a, #b, hs__a, hs__b, (double)(tol));\
        CU_ASSERT_DOUBLE_EQUAL(hs__a, hs__b, (tol));                        \
    } while (0)

#define HS_ASSERT_STR_CONTAINS(hay, needle)                                 \
    do {                                                                    \
        const char *hs__h = (hay), *hs__n = (needle);                       \
        int hs__ok = hs__h != NULL && strstr(hs__h, hs__n) != NULL;         \
        if (!hs__ok)                                                        \
            fprintf(stderr, "\n%s:%d: \"%s\" does not contain \"%s\"\n",    \
                    __FILE__, __LINE__, hs__h ? hs__h : "(null)", hs__n);   \
        CU_ASSERT_TRUE(hs__ok);                                             \
    } while (0)

/* The result of running a program. */
typedef struct hs_run_s {
    int status;     /* exit status, or 128+signal, or -1 if it could not run */
    char *out;      /* all of stdout, NUL-terminated (malloc'd) */
    char *err;      /* all of stderr, NUL-terminated (malloc'd) */
} hs_run_t;

/*
 * Runs argv (argv[0] a path; NULL-terminated) with stdin from /dev/null,
 * capturing stdout and stderr; waits for it.  Returns 0 when it ran (see
 * r->status), -1 when it could not be started.  Free with hs_run_free.
 */
int hs_run(char *const argv[], hs_run_t *r);
void hs_run_free(hs_run_t *r);

/* Runs the hetsim binary under test with the given arguments (NULL-ended). */
int hs_run_hetsim(hs_run_t *r, const char *arg0, ...);

/* Writes text to a fresh file under HS_TEST_TMP named `name`; returns the
   path in static storage (valid until the next call). */
const char *hs_test_write_file(const char *name, const char *text);

/* Writes text to the file at path (replacing it); 0, or -1. */
int hs_test_write(const char *path, const char *text);

/* The whole file at path, NUL-terminated (malloc'd), or NULL. */
char *hs_test_slurp(const char *path);

/* Runs a script (argv, NULL-ended) that writes JSON to json_path and
   prints its output.  Exit 77 (the machine cannot run it): prints the skip
   for `test` and returns NULL.  Otherwise asserts exit 0 and returns the
   parsed JSON (a yajl_val: free with yajl_tree_free), NULL after a failed
   assertion. */
struct yajl_val_s *hs_test_run_json(const char *test, char *const argv[],
                                    const char *json_path);

/* A unique scratch directory under HS_TEST_TMP (created); static storage. */
const char *hs_test_tmpdir(const char *tag);

/* 1 when running as root, else prints `why` as a skip reason and 0. */
int hs_test_require_root(const char *why);

/* Prints "SKIP: <test>: <reason>" so CI logs say why a check did not run. */
void hs_test_skip(const char *test, const char *reason);

/* The path of mpirun on PATH (a static buffer), or NULL. */
const char *hs_test_find_mpirun(void);

/* 1 when `hetsim CMD` can be tested under mpirun (mpirun on PATH, and
   `hetsim CMD --help` says "MPI: built in"); else prints why not as a
   skip of `test` and returns 0. */
int hs_test_mpi_ready(const char *cmd, const char *test);

int hs_test_main(int (*register_fn)(void));

#define HS_TEST_MAIN(register_fn)                                           \
    int main(void) { return hs_test_main(register_fn); }

#endif
