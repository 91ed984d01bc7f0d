/*
 * profile_check.c -- what the live tests of `hetsim profile` share:
 * the python with torch and the harness's launch (profile_check.h).
 */
#include "profile_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static char pc__py[256];
static int pc__py_state;    /* 0 not looked for, 1 found, -1 none */

const char *pc_python(const char *test)
{
    static const char *const cands[] = {"/usr/bin/python3",
                                        "/usr/local/bin/python3", NULL};
    int i;

    if (pc__py_state != 0)
        return pc__py_state > 0 ? pc__py : NULL;
    pc__py_state = -1;
    for (i = 0; cands[i] != NULL && pc__py_state < 0; i++) {
        char *argv[] = {(char *)cands[i], "-c", "import torch.distributed",
                        NULL};
        hs_run_t r;

        if (access(cands[i], X_OK) != 0 || hs_run(argv, &r) != 0)
            continue;
        if (r.status == 0) {
            snprintf(pc__py, sizeof pc__py, "%s", cands[i]);
            pc__py_state = 1;
        }
        hs_run_free(&r);
    }
    if (pc__py_state < 0) {
        hs_test_skip(test, "no python3 with torch (Debian python3-torch)");
        return NULL;
    }
    return pc__py;
}

void pc_profile(hs_run_t *r, const char *what, const char *scen,
                const char *outdir, ...)
{
    char *argv[40];
    int n = 0;
    va_list ap;
    const char *a;

    argv[n++] = (char *)HS_TEST_BIN;
    argv[n++] = "profile";
    argv[n++] = (char *)scen;
    argv[n++] = "-o";
    argv[n++] = (char *)outdir;
    va_start(ap, outdir);
    for (a = va_arg(ap, const char *); a != NULL && n < 36;
         a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n++] = "--python";
    argv[n++] = pc__py;
    argv[n] = NULL;
    CU_ASSERT_EQUAL_FATAL(hs_run(argv, r), 0);
    printf("\n%s", r->out);
    if (r->status != 0)
        fprintf(stderr, "\n%s: exit %d\n%s\n", what, r->status, r->err);
    HS_ASSERT_I64_EQ(r->status, 0);
}
