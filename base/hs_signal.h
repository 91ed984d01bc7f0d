/*
 * hs_signal.h -- what a run leaves behind when it is interrupted.
 *
 * A run of hetsim writes files through temporary names (hs_atomic) and
 * starts child process groups (profiling ranks, iperf3, gnuplot: hs_spawn).
 * When the user presses ^C, or a scheduler sends SIGTERM, neither must
 * outlive the run: no "FILE.tmp.XXXXXX" stays in the output directory, and
 * no rank keeps a GPU or a port.
 *
 * The module keeps two small registries, filled and emptied by the code
 * that creates the things (hs_atomic registers its temporary file, hs_spawn
 * its child's process group), and one handler for SIGINT, SIGTERM and
 * SIGHUP, installed once by the program (the command-line tool; a library
 * caller decides for itself).  The handler
 *
 *   1. removes every registered temporary file (unlink);
 *   2. sends SIGTERM to every registered process group, waits up to
 *      HS_SIGNAL_GRACE_NS for them to end (reaping its own children), then
 *      sends SIGKILL to any group still alive;
 *   3. restores the signal's default action and raises it again, so the
 *      process ends as killed by that signal (the shell sees 130 or 143).
 *
 * Invariants.  The handler calls only async-signal-safe functions (unlink,
 * kill, waitpid, nanosleep, sigaction, sigprocmask, raise) and reads the
 * registries without locks: each slot has a lock-free atomic state, FREE,
 * BUSY (being filled or emptied) or LIVE, and the handler touches only LIVE
 * slots.  A slot's data is written before it becomes LIVE and freed only
 * after it has left LIVE, so the handler never reads a half-written path
 * or freed memory, whatever instruction it interrupts.  The registries
 * have a fixed size (HS_SIGNAL_SLOTS each); registering into a full one
 * fails and the thing is simply not cleaned up on a signal.
 *
 * What the registries cannot see is a thing made but not yet registered
 * (or renamed but not yet forgotten); the code that makes such a pair
 * blocks the three signals around it (hs_signal_block), so the handler
 * runs before or after the pair, never between its halves.
 *
 * A signal that was ignored when the handler was installed (nohup's
 * SIGHUP, a background job's SIGINT) stays ignored.
 */
#ifndef HS_SIGNAL_H
#define HS_SIGNAL_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "hs_error.h"

/* Slots in each registry (temporary files, process groups). */
#define HS_SIGNAL_SLOTS 64

/* How long the handler waits for process groups after SIGTERM. */
#define HS_SIGNAL_GRACE_NS INT64_C(500000000)

/*
 * Installs the cleanup handler for SIGINT, SIGTERM and SIGHUP; a second
 * call does nothing.  Fails with HS_ERR_EXTERNAL when sigaction does.
 */
hs_err_t hs_signal_install(hs_error_t *err);

/*
 * Registers path (copied) as a temporary file to remove on a signal.
 * Fails with HS_ERR_NOMEM, or HS_ERR_RANGE when every slot is taken; the
 * file then works as before, it is just not removed on a signal.
 */
hs_err_t hs_signal_add_file(const char *path, hs_error_t *err);

/* Forgets a path registered with hs_signal_add_file (call it after the
   file was renamed or removed).  Unknown paths and NULL are ignored. */
void hs_signal_forget_file(const char *path);

/*
 * Registers a child process group (its leader's pid, as hs_spawn makes it)
 * to end on a signal.  Fails with HS_ERR_RANGE when every slot is taken or
 * pgid is not positive.
 */
hs_err_t hs_signal_add_pgid(pid_t pgid, hs_error_t *err);

/* Forgets a registered process group (after it was reaped).  Unknown
   groups are ignored. */
void hs_signal_forget_pgid(pid_t pgid);

/*
 * Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and saves the
 * previous mask in *old; hs_signal_unblock restores it (a signal that came
 * meanwhile is handled then).  For the few steps that must not be cut in
 * two: creating a temporary file and registering it, renaming it and
 * forgetting it (hs_atomic).  Never fails (the mask is always valid).
 */
void hs_signal_block(sigset_t *old);
void hs_signal_unblock(const sigset_t *old);

/* How many temporary files and process groups are registered now (for
   tests and diagnostics). */
int hs_signal_count_files(void);
int hs_signal_count_pgids(void);

#endif
