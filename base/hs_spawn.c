/* hs_spawn.c -- external programs from argv arrays (see hs_spawn.h). */
#include "hs_spawn.h"
#include "hs_valid.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hs_signal.h"

extern char **environ;

int64_t hs_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void hs_sleep_ns(int64_t ns)
{
    struct timespec ts, rem;

    if (ns <= 0)
        return;
    ts.tv_sec = (time_t)(ns / 1000000000);
    ts.tv_nsec = (long)(ns % 1000000000);
    while (nanosleep(&ts, &rem) != 0 && errno == EINTR)
        ts = rem;
}

/* The environment for a child: environ with env[] added or replacing
   entries of the same key.  The strings are borrowed. */
static char **hs__env_merge(char *const env[], size_t n_env)
{
    size_t n_base = 0, n = 0, i, k;
    char **out;

    while (environ != NULL && environ[n_base] != NULL)
        n_base++;
    out = calloc(n_base + n_env + 1, sizeof *out);
    if (out == NULL)
        return NULL;
    for (i = 0; i < n_base; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t klen = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        int replaced = 0;

        for (k = 0; k < n_env && !replaced; k++)
            if (strncmp(env[k], environ[i], klen) == 0
                && env[k][klen] == '=')
                replaced = 1;
        if (!replaced)
            out[n++] = environ[i];
    }
    for (k = 0; k < n_env; k++)
        out[n++] = env[k];
    out[n] = NULL;
    return out;
}

hs_err_t hs_spawn(char *const argv[], char *const env[], size_t n_env,
                  const char *out_path, const char *err_path,
                  hs_child_t *c, hs_error_t *err)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    char **envp = NULL;
    pid_t pid = 0;
    int rc, fa_ok = 0, attr_ok = 0;
    hs_err_t ret = HS_OK;
    sigset_t held;

    memset(c, 0, sizeof *c);
    if (argv == NULL || argv[0] == NULL)
        return hs_error_setf(err, HS_ERR_USAGE, "spawn: empty command");
    envp = n_env > 0 ? hs__env_merge(env, n_env) : environ;
    if (envp == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "spawn: out of memory");
    if (posix_spawn_file_actions_init(&fa) != 0) {
        ret = hs_error_setf(err, HS_ERR_NOMEM, "spawn: out of memory");
        goto fail;
    }
    fa_ok = 1;
    if (posix_spawnattr_init(&attr) != 0) {
        ret = hs_error_setf(err, HS_ERR_NOMEM, "spawn: out of memory");
        goto fail;
    }
    attr_ok = 1;
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path
                                     : "/dev/null",
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path ? err_path
                                     : "/dev/null",
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawnattr_setpgroup(&attr, 0);
    {
        sigset_t none, all;

        sigemptyset(&none);
        sigfillset(&all);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &all);
    }
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP
                             | POSIX_SPAWN_SETSIGMASK
                             | POSIX_SPAWN_SETSIGDEF);
    /* No signal between the start and the registration: the handler
       would not know the group yet. */
    {
        sigset_t stop;
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        sigaddset(&stop, SIGHUP);
        sigprocmask(SIG_BLOCK, &stop, &held);
    }
    rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, envp);
    if (rc == 0)
        (void)hs_signal_add_pgid(pid, NULL); /* full registry: best effort */
    sigprocmask(SIG_SETMASK, &held, NULL);
    if (rc != 0) {
        c->start_errno = rc;
        ret = hs_error_setf(err, HS_ERR_EXTERNAL, "cannot run %s: %s",
                            argv[0], strerror(rc));
        goto fail;
    }
    c->pid = pid;
    c->done = 0;
    c->status = -1;
fail:
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    if (attr_ok)
        posix_spawnattr_destroy(&attr);
    if (envp != environ)
        free(envp);
    return ret;
}

static void hs__set_status(hs_child_t *c, int ws)
{
    c->done = 1;
    hs_signal_forget_pgid(c->pid);
    c->pid = 0;
    c->term_signal = 0;
    if (WIFEXITED(ws))
        c->status = WEXITSTATUS(ws);
    else if (WIFSIGNALED(ws)) {
        c->term_signal = WTERMSIG(ws);
        c->status = 128 + WTERMSIG(ws);
    } else
        c->status = -1;
}

int hs_child_wait(hs_child_t *c, int64_t timeout_ns, int64_t grace_ns)
{
    int ws = 0;
    pid_t r;

    if (c->done || c->pid <= 0)
        return 0;
    if (timeout_ns > 0) {
        if (hs_child_wait_all(c, 1, hs_now_ns() + timeout_ns, 0) == 0)
            return 0;
        hs_child_kill(c, grace_ns);
        return 1;
    }
    while ((r = waitpid(c->pid, &ws, 0)) < 0 && errno == EINTR)
        ;
    if (r == c->pid)
        hs__set_status(c, ws);
    else {
        c->done = 1;
        hs_signal_forget_pgid(c->pid);
        c->pid = 0;
        c->status = -1;
    }
    return 0;
}

int hs_child_poll(hs_child_t *c)
{
    int ws = 0;
    pid_t r;

    if (c->done)
        return 1;
    if (c->pid <= 0)
        return 1;
    r = waitpid(c->pid, &ws, WNOHANG);
    if (r == c->pid) {
        hs__set_status(c, ws);
        return 1;
    }
    if (r < 0 && errno == ECHILD) {
        c->done = 1;
        hs_signal_forget_pgid(c->pid);
        c->pid = 0;
        c->status = -1;
        return 1;
    }
    return 0;
}

size_t hs_child_wait_all(hs_child_t *c, size_t n, int64_t deadline_ns,
                         int stop_on_failure)
{
    for (;;) {
        size_t running = 0, i;
        int failed = 0;

        for (i = 0; i < n; i++) {
            if (!hs_child_poll(&c[i]))
                running++;
            else if (c[i].status != 0)
                failed = 1;
        }
        if (running == 0 || (stop_on_failure && failed)
            || hs_now_ns() >= deadline_ns)
            return running;
        hs_sleep_ns(10 * 1000000);
    }
}

void hs_child_kill(hs_child_t *c, int64_t grace_ns)
{
    int64_t until;
    int ws = 0;
    pid_t pid = c->pid;

    if (c->done || pid <= 0)
        return;
    if (hs_child_poll(c)) {
        kill(-pid, SIGKILL);    /* what its group left behind, if any */
        return;
    }
    kill(-pid, SIGTERM);
    kill(pid, SIGTERM);
    until = hs_now_ns() + grace_ns;
    while (hs_now_ns() < until) {
        if (hs_child_poll(c)) {
            kill(-pid, SIGKILL);
            return;
        }
        hs_sleep_ns(10 * 1000000);
    }
    {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        if (waitpid(pid, &ws, 0) == pid)
            hs__set_status(c, ws);
        else {
            c->done = 1;
            hs_signal_forget_pgid(c->pid);
            c->pid = 0;
            c->status = 128 + SIGKILL;
            c->term_signal = SIGKILL;
        }
    }
}

/* text with every "{host}" and "{name}" replaced; malloc'd. */
static char *hs__subst(const char *text, const char *host, const char *name)
{
    size_t cap = strlen(text) + 1, len = 0;
    const char *p = text;
    char *out;

    if (host == NULL)
        host = "";
    if (name == NULL)
        name = "";
    cap += 8 * (strlen(host) + strlen(name));
    out = malloc(cap);
    if (out == NULL)
        return NULL;
    while (*p != '\0') {
        const char *rep = NULL;
        size_t skip = 0;

        if (strncmp(p, "{host}", 6) == 0) {
            rep = host;
            skip = 6;
        } else if (strncmp(p, "{name}", 6) == 0) {
            rep = name;
            skip = 6;
        }
        if (rep != NULL) {
            size_t rl = strlen(rep);

            if (len + rl + 1 > cap) {
                char *n2;

                cap = 2 * (len + rl + 1) + strlen(p);
                n2 = realloc(out, cap);
                if (n2 == NULL) {
                    free(out);
                    return NULL;
                }
                out = n2;
            }
            memcpy(out + len, rep, rl);
            len += rl;
            p += skip;
        } else {
            if (len + 2 > cap) {
                char *n2;

                cap = 2 * cap + 2;
                n2 = realloc(out, cap);
                if (n2 == NULL) {
                    free(out);
                    return NULL;
                }
                out = n2;
            }
            out[len++] = *p++;
        }
    }
    out[len] = '\0';
    return out;
}

char **hs_argv_build(char *const tmpl[], size_t n_tmpl, const char *host,
                     const char *name, char *const cmd[])
{
    size_t n_cmd = 0, i, k = 0;
    char **argv;

    while (cmd != NULL && cmd[n_cmd] != NULL)
        n_cmd++;
    argv = calloc(n_tmpl + n_cmd + 1, sizeof *argv);
    if (argv == NULL)
        return NULL;
    for (i = 0; i < n_tmpl; i++) {
        argv[k] = hs__subst(tmpl[i], host, name);
        if (argv[k++] == NULL)
            goto fail;
    }
    for (i = 0; i < n_cmd; i++) {
        argv[k] = strdup(cmd[i]);
        if (argv[k++] == NULL)
            goto fail;
    }
    argv[k] = NULL;
    return argv;
fail:
    hs_argv_free(argv);
    return NULL;
}

int hs_shell_inert(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    if (s == NULL || *s == '\0')
        return 0;
    for (; *p != '\0'; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr("_./:=@%+,-", *p) != NULL))
            return 0;
    return 1;
}

char *hs_shell_quote(const char *s)
{
    size_t n = 3, i, k = 0;
    char *q;

    if (hs_shell_inert(s))
        return strdup(s);
    for (i = 0; s[i] != '\0'; i++)
        n += s[i] == '\'' ? 4 : 1;
    if ((q = malloc(n)) == NULL)
        return NULL;
    q[k++] = '\'';
    for (i = 0; s[i] != '\0'; i++) {
        if (s[i] == '\'') {
            memcpy(q + k, "'\\''", 4);
            k += 4;
        } else {
            q[k++] = s[i];
        }
    }
    q[k++] = '\'';
    q[k] = '\0';
    return q;
}

int hs_launcher_is_shell(char *const tmpl[], size_t n_tmpl)
{
    const char *b;

    if (n_tmpl == 0 || tmpl[0] == NULL)
        return 0;
    b = strrchr(tmpl[0], '/');
    b = b != NULL ? b + 1 : tmpl[0];
    return strcmp(b, "ssh") == 0 || strcmp(b, "rsh") == 0 ||
           strcmp(b, "slogin") == 0;
}

/* 1 when the template uses placeholder ph ("{host}" or "{name}"). */
static int hs__uses(char *const tmpl[], size_t n_tmpl, const char *ph)
{
    size_t i;

    for (i = 0; i < n_tmpl; i++)
        if (strstr(tmpl[i], ph) != NULL)
            return 1;
    return 0;
}

hs_err_t hs_launch_argv(char *const tmpl[], size_t n_tmpl, const char *host,
                        const char *name, char *const cmd[],
                        const char *what, char ***out, hs_error_t *err)
{
    int shell = hs_launcher_is_shell(tmpl, n_tmpl);
    size_t i, n_cmd = 0;
    char **argv;

    *out = NULL;
    if (n_tmpl > 0) {
        const char *ph[2] = {"{host}", "{name}"};
        const char *val[2] = {host, name};
        for (i = 0; i < 2; i++)
            if (hs__uses(tmpl, n_tmpl, ph[i]) &&
                !hs_shell_inert(val[i] ? val[i] : ""))
                return hs_error_setf(
                    err, HS_ERR_SCHEMA,
                    "%s: the launcher's %s would be '%s', which a shell "
                    "would read as more than a word: a value put into the "
                    "launcher template holds only letters, digits and "
                    "_ . / : = @ %% + , -", what, ph[i],
                    hs_ex(val[i] ? val[i] : ""));
    }
    while (cmd != NULL && cmd[n_cmd] != NULL)
        n_cmd++;
    if (n_tmpl > 0 && !shell)
        for (i = 0; i < n_cmd; i++)
            if (!hs_shell_inert(cmd[i]))
                return hs_error_setf(
                    err, HS_ERR_SCHEMA,
                    "%s: the command's word '%s' holds a character a "
                    "shell would read (a space, quote, $, `, ;, ...), and "
                    "launcher '%s' is not known to pass argv on unparsed: "
                    "refused (with ssh each word is quoted instead)",
                    what, hs_ex(cmd[i]), hs_ex(tmpl[0]));
    if (!shell || n_tmpl == 0) {
        if ((argv = hs_argv_build(tmpl, n_tmpl, host, name, cmd)) == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        *out = argv;
        return HS_OK;
    }
    /* a shell launcher: every command word quoted */
    {
        char **q = calloc(n_cmd + 1, sizeof *q);
        if (q == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
        for (i = 0; i < n_cmd; i++)
            if ((q[i] = hs_shell_quote(cmd[i])) == NULL) {
                hs_argv_free(q);
                return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
            }
        argv = hs_argv_build(tmpl, n_tmpl, host, name, q);
        hs_argv_free(q);
        if (argv == NULL)
            return hs_error_setf(err, HS_ERR_NOMEM, "out of memory");
    }
    *out = argv;
    return HS_OK;
}

void hs_argv_free(char **argv)
{
    size_t i;

    if (argv == NULL)
        return;
    for (i = 0; argv[i] != NULL; i++)
        free(argv[i]);
    free(argv);
}

void hs_strv_addf(hs_strv_t *a, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    int n;

    if (a->oom)
        return;
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 32;
        char **v = realloc(a->v, cap * sizeof *v);

        if (v == NULL) {
            a->oom = 1;
            return;
        }
        a->v = v;
        a->cap = cap;
    }
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || (s = malloc((size_t)n + 1)) == NULL) {
        a->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

void hs_strv_free(hs_strv_t *a)
{
    size_t i;

    if (a == NULL)
        return;
    for (i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof *a);
}

char *hs_read_small_file(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    size_t n;

    if (f == NULL)
        return NULL;
    buf = malloc(max + 1);
    if (buf == NULL) {
        fclose(f);
        return NULL;
    }
    n = fread(buf, 1, max, f);
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'
                     || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
        n--;
    buf[n] = '\0';
    return buf;
}

char *hs_last_line(const char *text, char *buf, size_t len)
{
    const char *end, *start;

    buf[0] = '\0';
    if (text == NULL || len == 0)
        return buf;
    end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == '\r'
                          || end[-1] == ' '))
        end--;
    start = end;
    while (start > text && start[-1] != '\n')
        start--;
    if ((size_t)(end - start) >= len)
        end = start + len - 1;
    memcpy(buf, start, (size_t)(end - start));
    buf[end - start] = '\0';
    return buf;
}
