/*
 * hs_datadir.h -- where hetsim's data files are: the gnuplot scripts
 * (plots/), the example scenarios and their models (scenarios/), the
 * profiling harness (live/harness/).
 *
 * The data directory has the source tree's layout, so an installed tree
 * (PREFIX/share/hetsim), a build tree and the source tree itself all serve.
 * It is looked up at run time, never compiled in as the source's path, so
 * a moved or installed hetsim finds its files:
 *
 *   1. $HETSIM_DATADIR when it is set and not empty (then nothing else);
 *   2. beside the shared library libhetsim, when the code runs from it:
 *      LIBDIR/../share/hetsim (the relative path of the install layout);
 *   3. beside the running program (/proc/self/exe): BINDIR/../share/hetsim;
 *   4. the build tree: BUILD/share/hetsim, a link to the source tree that
 *      the build makes, seen from a program in BUILD/ or BUILD/<folder>/;
 *   5. the install prefix's data directory (PREFIX/share/hetsim), for a
 *      program elsewhere that links the static library.
 */
#ifndef HS_DATADIR_H
#define HS_DATADIR_H

#include <stddef.h>

#include "hs_error.h"

/* The environment variable that names the data directory. */
#define HS_DATADIR_ENV "HETSIM_DATADIR"

/*
 * Writes "<data directory>/<rel>" into out[0..cap) for the first data
 * directory of the order above in which rel (a file or folder, e.g.
 * "plots" or "live/harness/hetsim_harness.py") is readable, its symbolic
 * links and ".." resolved.  Returns HS_OK; HS_ERR_IO when rel is in none
 * of them (the message names rel, every place looked in and
 * HETSIM_DATADIR), out then empty; HS_ERR_RANGE when the path does not fit
 * in cap bytes.  Nothing is allocated.
 */
hs_err_t hs_datadir_path(const char *rel, char *out, size_t cap,
                         hs_error_t *err);

#endif
