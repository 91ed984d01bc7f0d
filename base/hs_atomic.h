/*
 * hs_atomic.h -- files that appear whole or not at all: write to a
 * temporary file in the same directory, then rename() it over the final
 * path.  A failed or killed writer never leaves a half-written file at the
 * final path, and never clobbers a good one.
 *
 * The temporary file is registered with hs_signal from its creation until
 * it is renamed or removed, so a run ended by SIGINT/SIGTERM (once the
 * program called hs_signal_install) leaves no "FILE.tmp.XXXXXX" behind.
 * SIGINT, SIGTERM and SIGHUP are blocked (hs_signal_block) from just
 * before the file is created until it is registered, and from just before
 * it is renamed or removed until it is forgotten: a signal is then handled
 * after the pair, never between its halves.
 */
#ifndef HS_ATOMIC_H
#define HS_ATOMIC_H

#include <stdio.h>

#include "hs_error.h"

typedef struct hs_atomic_s {
    FILE *f;            /* write here */
    char *path;         /* the final path */
    char *tmp_path;     /* path + ".tmp.XXXXXX"; NULL for standard output */
    int to_stdout;      /* path was "-": a->f is stdout */
} hs_atomic_t;

/* Creates the temporary file beside `path` (mode 0666 less the umask) and
   opens it for writing into a->f.  On failure a is left empty (nothing to
   abort).  A writer that writes by path (HDF5, gnuplot) closes a->f with
   hs_atomic_detach and writes to a->tmp_path instead; it must refuse "-"
   first (hs_atomic_check_target with allow_stdout 0).

   Only a regular file or a new name is ever replaced: an existing target
   that is a directory, a FIFO, a socket, a device or a symbolic link is
   refused (HS_ERR_IO, saying what it is), here and again just before the
   rename.  "-" means standard output: a->f is stdout, a->tmp_path NULL,
   and commit flushes it and reports a write error (a file named "-" is
   written as "./-"). */
hs_err_t hs_atomic_open(hs_atomic_t *a, const char *path, hs_error_t *err);

/* HS_OK when `path` names something an atomic writer may replace: a new
   name or a regular file (and "-" when allow_stdout), else HS_ERR_IO
   saying what the target is.  A writer calls it before a long computation
   so that a bad target is refused before the work, not after it. */
hs_err_t hs_atomic_check_target(const char *path, int allow_stdout,
                                hs_error_t *err);

/* Closes a->f (when open) and sets it to NULL, keeping the temporary file
   for a writer that writes it by path.  Returns 0, or -1 if close failed. */
int hs_atomic_detach(hs_atomic_t *a);

/* Flushes, fsyncs and closes the temporary file (fsyncs it by path when
   detached), then renames it to the final path.  On failure removes it.
   Always releases a's strings. */
hs_err_t hs_atomic_commit(hs_atomic_t *a, hs_error_t *err);

/* Closes and removes the temporary file; releases a.  Safe on an empty or
   already finished a. */
void hs_atomic_abort(hs_atomic_t *a);

#endif
