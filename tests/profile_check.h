/*
 * profile_check.h -- what the live tests of `hetsim profile`
 * (test_profile.c, test_profile_micro.c) share: finding a python3 with
 * torch, and launching the profiling harness on a scenario.  Failures are
 * CUnit assertions.
 */
#ifndef PROFILE_CHECK_H
#define PROFILE_CHECK_H

#include "hs_test.h"

/* A python3 with torch: /usr/bin/python3 (Debian's python3-torch), then
   /usr/local/bin/python3.  Its path (static storage), or NULL after
   printing why `test` is skipped.  Looked for once: later calls give the
   same answer and print nothing. */
const char *pc_python(const char *test);

/* Runs `hetsim profile scen -o outdir`, the further arguments (NULL-ended)
   and `--python` the python of pc_python (which must have found one) into
   *r (the caller frees it with hs_run_free).  Asserts that it ran and
   exited 0; prints its stdout and, when it failed, its status and stderr
   after `what`. */
void pc_profile(hs_run_t *r, const char *what, const char *scen,
                const char *outdir, ...);

#endif
