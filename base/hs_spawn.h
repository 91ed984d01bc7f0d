/*
 * hs_spawn.h -- starting, watching and stopping external programs (iperf3,
 * the profiling harness) for the live pipeline (hetsim profile,
 * measure-bw).
 *
 * Programs always run from an argv array through posix_spawnp, never
 * through a local shell.  A launcher may hand its words to a shell on the
 * other side (ssh joins them for the remote shell): hs_launch_argv quotes
 * them for ssh-like launchers and refuses shell syntax for the others.  A
 * remote or namespaced host is reached through a launcher template, an
 * argv prefix such as [ssh, "{host}"] or [ip, netns, exec, "{name}"], in
 * which the placeholders "{host}" (the device's address) and "{name}" (the
 * device's name) are replaced as whole words or inside words; the command
 * follows the prefix as further arguments.
 *
 * Each child gets its own process group, so hs_spawn_kill stops whatever
 * it started in turn (a launcher's children included).  The group is
 * registered with hs_signal from its start until the child is reaped, so
 * SIGINT/SIGTERM (once the program called hs_signal_install) ends it too.
 */
#ifndef HS_SPAWN_H
#define HS_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hs_error.h"

/* A started child. */
typedef struct hs_child_s {
    pid_t pid;        /* 0 when not running (never started or reaped) */
    int done;         /* 1 once reaped */
    int status;       /* exit status, or 128+signal once done */
    int term_signal;  /* the signal that ended it once done; 0: it exited */
    int start_errno;  /* when hs_spawn failed: posix_spawnp's error (ENOENT:
                         no such program), else 0 */
} hs_child_t;

/* Monotonic clock in nanoseconds. */
int64_t hs_now_ns(void);

/* Sleeps for ns nanoseconds (restarting after signals). */
void hs_sleep_ns(int64_t ns);

/*
 * Starts argv (argv[0] looked up in PATH; NULL-terminated) in a new process
 * group with stdin from /dev/null, stdout appended to out_path and stderr
 * to err_path (either NULL: /dev/null).  env: n_env "KEY=VALUE" strings
 * that are added to (or replace entries of) this process's environment.
 * On success fills *c and returns HS_OK; a program that cannot be started
 * (not found, not executable) gives HS_ERR_EXTERNAL naming it, with the
 * cause in c->start_errno.  out_path and err_path may name the same file.
 */
hs_err_t hs_spawn(char *const argv[], char *const env[], size_t n_env,
                  const char *out_path, const char *err_path,
                  hs_child_t *c, hs_error_t *err);

/*
 * Reaps c if it has ended, without waiting.  Returns 1 when c is done
 * (now or before), 0 while it runs.
 */
int hs_child_poll(hs_child_t *c);

/*
 * Waits until every child of c[0..n) is done or the monotonic clock passes
 * deadline_ns (hs_now_ns() based), polling every 10 ms.  Returns how many
 * are still running.  When stop_on_failure is set it also returns as soon
 * as one child ends with a non-zero status.
 */
size_t hs_child_wait_all(hs_child_t *c, size_t n, int64_t deadline_ns,
                         int stop_on_failure);

/*
 * Waits until c is done.  timeout_ns <= 0 waits as long as it takes;
 * otherwise, when c still runs after timeout_ns, its process group is
 * stopped as by hs_child_kill(c, grace_ns).  Returns 0 when c ended by
 * itself, 1 when it was stopped for the timeout.  c->status then holds
 * its exit status (128+signal when a signal ended it).
 */
int hs_child_wait(hs_child_t *c, int64_t timeout_ns, int64_t grace_ns);

/*
 * Stops a running child's process group: SIGTERM, up to grace_ns for it to
 * end, then SIGKILL; reaps it.  Its status becomes 128+signal unless it
 * ended on its own first.  A done child is left alone.
 */
void hs_child_kill(hs_child_t *c, int64_t grace_ns);

/*
 * Builds the argv of a command run through a launcher template:
 * tmpl[0..n_tmpl) with "{host}" and "{name}" replaced, then cmd (NULL-
 * terminated).  With n_tmpl 0 it is a copy of cmd.  Returns a malloc'd
 * NULL-terminated array of malloc'd strings (free with hs_argv_free), or
 * NULL when out of memory.
 */
char **hs_argv_build(char *const tmpl[], size_t n_tmpl, const char *host,
                     const char *name, char *const cmd[]);

/* 1 when s stands for itself in a POSIX shell word: not empty, and only
   letters, digits and _ . / : = @ % + , - (no quote, space, $, `, ;, |,
   &, <, >, (, ), *, ?, [, ~, #, !, \\, or control character). */
int hs_shell_inert(const char *s);

/* s quoted for a POSIX shell: inert text as it is, else '...' with each
   ' written '\\''.  malloc'd; NULL when out of memory. */
char *hs_shell_quote(const char *s);

/* 1 when the launcher template runs its command through a shell on the
   other side: its program (tmpl[0], by base name) is ssh, rsh or
   slogin, which join their arguments with spaces for the remote
   shell. */
int hs_launcher_is_shell(char *const tmpl[], size_t n_tmpl);

/*
 * hs_argv_build for a launcher (n_tmpl > 0), safe against the remote
 * shell: the values substituted into the template ({host}, {name}) must
 * be shell-inert, else HS_ERR_SCHEMA naming the value; then, when the
 * launcher is a shell launcher (hs_launcher_is_shell), every word of cmd
 * is quoted for a POSIX shell (hs_shell_quote), so the remote shell
 * rebuilds exactly cmd's argv; with any other launcher (which passes
 * argv on unparsed, as `ip netns exec` does, or is not known to) a word
 * of cmd that is not shell-inert is refused, HS_ERR_SCHEMA naming it.
 * `what` names the run in messages.  With n_tmpl 0 it is
 * hs_argv_build.  *out: free with hs_argv_free.
 */
hs_err_t hs_launch_argv(char *const tmpl[], size_t n_tmpl, const char *host,
                        const char *name, char *const cmd[],
                        const char *what, char ***out, hs_error_t *err);

/* Frees an array from hs_argv_build.  NULL is fine. */
void hs_argv_free(char **argv);

/* A growing NULL-terminated array of malloc'd strings: an argv or a list
   of "KEY=VALUE" environment entries being built.  Zero-initialise it;
   v is NULL until the first string. */
typedef struct hs_strv_s {
    char **v;
    size_t n, cap;
    int oom;          /* an allocation failed: the array is incomplete */
} hs_strv_t;

/* Appends a printf-formatted string to a.  On failure sets a->oom (and
   adds nothing more afterwards); check it once when done. */
void hs_strv_addf(hs_strv_t *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Frees the strings and the array; a is zeroed.  NULL is fine. */
void hs_strv_free(hs_strv_t *a);

/*
 * Reads at most max bytes of a small text file into a malloc'd NUL-
 * terminated string (NULL when it cannot be read).  Trailing white space
 * is removed.  Used for children's output.
 */
char *hs_read_small_file(const char *path, size_t max);

/*
 * The last non-empty line of text, copied into buf (truncated to len-1
 * bytes); "" when there is none.  Returns buf.
 */
char *hs_last_line(const char *text, char *buf, size_t len);

#endif
