/*
 * test_datadir.c -- where the data files are found (base/hs_datadir.h):
 * from a test program in BUILD/tests/, the build tree's BUILD/share/hetsim
 * (links to the source's folders); $HETSIM_DATADIR over it, and only it;
 * the errors.  The installed and moved trees are test_install's
 * (packaging/tests/install.sh).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_datadir.h"
#include "hs_test.h"

/* realpath of HS_TEST_SRC/rel into out (a static buffer's size). */
static const char *src_real(const char *rel, char *out)
{
    char p[PATH_MAX];

    snprintf(p, sizeof p, "%s/%s", HS_TEST_SRC, rel);
    if (realpath(p, out) == NULL)
        out[0] = '\0';
    return out;
}

static void test_build_tree(void)
{
    char got[PATH_MAX], want[PATH_MAX];
    hs_error_t err;

    unsetenv(HS_DATADIR_ENV);
    hs_error_clear(&err);
    /* a file and a folder, resolved through the build tree's links */
    CU_ASSERT_EQUAL(hs_datadir_path("plots/timeline.gp", got, sizeof got,
                                    &err), HS_OK);
    CU_ASSERT_STRING_EQUAL(got, src_real("plots/timeline.gp", want));
    CU_ASSERT_EQUAL(hs_datadir_path("live/harness/hetsim_harness.py", got,
                                    sizeof got, &err), HS_OK);
    CU_ASSERT_STRING_EQUAL(got,
                           src_real("live/harness/hetsim_harness.py", want));
    CU_ASSERT_EQUAL(hs_datadir_path("scenarios/models", got, sizeof got,
                                    &err), HS_OK);
    CU_ASSERT_STRING_EQUAL(got, src_real("scenarios/models", want));
    /* a file that is nowhere: every place looked in, and the variable */
    CU_ASSERT_EQUAL(hs_datadir_path("plots/no-such.gp", got, sizeof got,
                                    &err), HS_ERR_IO);
    CU_ASSERT_STRING_EQUAL(got, "");
    HS_ASSERT_STR_CONTAINS(err.msg, "plots/no-such.gp");
    HS_ASSERT_STR_CONTAINS(err.msg, "share/hetsim");
    HS_ASSERT_STR_CONTAINS(err.msg, "HETSIM_DATADIR");
}

static void test_env(void)
{
    const char *dir = hs_test_tmpdir("datadir");
    char got[PATH_MAX], want[PATH_MAX], sub[PATH_MAX], file[PATH_MAX];
    hs_error_t err;

    hs_error_clear(&err);
    snprintf(sub, sizeof sub, "%s/plots", dir);
    snprintf(file, sizeof file, "%s/plots/timeline.gp", dir);
    CU_ASSERT_EQUAL(mkdir(sub, 0755), 0);
    CU_ASSERT_EQUAL(hs_test_write(file, "# a script\n"), 0);
    setenv(HS_DATADIR_ENV, dir, 1);
    CU_ASSERT_EQUAL(hs_datadir_path("plots/timeline.gp", got, sizeof got,
                                    &err), HS_OK);
    CU_ASSERT_STRING_EQUAL(got, realpath(file, want));
    /* the variable wins even where it lacks the file: nothing else is
       tried, and the error names it */
    CU_ASSERT_EQUAL(hs_datadir_path("plots/steps.gp", got, sizeof got,
                                    &err), HS_ERR_IO);
    HS_ASSERT_STR_CONTAINS(err.msg, dir);
    HS_ASSERT_STR_CONTAINS(err.msg, "HETSIM_DATADIR");
    /* empty: as unset */
    setenv(HS_DATADIR_ENV, "", 1);
    CU_ASSERT_EQUAL(hs_datadir_path("plots/steps.gp", got, sizeof got,
                                    &err), HS_OK);
    CU_ASSERT_STRING_EQUAL(got, src_real("plots/steps.gp", want));
    unsetenv(HS_DATADIR_ENV);
    unlink(file);
    rmdir(sub);
    rmdir(dir);
}

static void test_too_long(void)
{
    char got[8];
    hs_error_t err;

    unsetenv(HS_DATADIR_ENV);
    hs_error_clear(&err);
    CU_ASSERT_EQUAL(hs_datadir_path("plots", got, sizeof got, &err),
                    HS_ERR_RANGE);
    HS_ASSERT_STR_CONTAINS(err.msg, "longer than 7 bytes");
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("datadir", NULL, NULL);

    CU_add_test(s, "the build tree's share/hetsim", test_build_tree);
    CU_add_test(s, "HETSIM_DATADIR", test_env);
    CU_add_test(s, "a path longer than the buffer", test_too_long);
    return 0;
}

HS_TEST_MAIN(reg)
