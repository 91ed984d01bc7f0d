/* hs_atomic.c -- temp file + rename (hs_atomic.h). */
#include "hs_atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_signal.h"

/* Releases a's strings once its temporary file was made (and is now
   renamed or removed): hs_signal forgets it first.  The caller blocked the
   signals around the rename or unlink and this. */
static void hs__atomic_release(hs_atomic_t *a)
{
    hs_signal_forget_file(a->tmp_path);
    free(a->path);
    free(a->tmp_path);
    a->path = a->tmp_path = NULL;
    a->f = NULL;
}

/* What an existing, non-regular st is, for a message. */
static const char *hs__atomic_kind(const struct stat *st)
{
    if (S_ISLNK(st->st_mode))
        return "a symbolic link";
    if (S_ISDIR(st->st_mode))
        return "a directory";
    if (S_ISFIFO(st->st_mode))
        return "a FIFO";
    if (S_ISSOCK(st->st_mode))
        return "a socket";
    if (S_ISCHR(st->st_mode))
        return "a character device";
    if (S_ISBLK(st->st_mode))
        return "a block device";
    return "not a regular file";
}

hs_err_t hs_atomic_check_target(const char *path, int allow_stdout,
                                hs_error_t *err)
{
    struct stat st;

    if (path == NULL || path[0] == '\0')
        return hs_error_setf(err, HS_ERR_IO, "an empty output path");
    if (strcmp(path, "-") == 0) {
        if (allow_stdout)
            return HS_OK;
        return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                            "this output cannot go to standard output "
                            "(name a file; a file named '-' is './-')");
    }
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return HS_OK;
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot check: %s",
                            strerror(errno));
    }
    if (S_ISREG(st.st_mode))
        return HS_OK;
    return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                        "is %s: an output replaces only a regular file or "
                        "makes a new one (use '-' for standard output "
                        "where the command allows it)",
                        hs__atomic_kind(&st));
}

hs_err_t hs_atomic_open(hs_atomic_t *a, const char *path, hs_error_t *err)
{
    size_t n = strlen(path);
    int fd;
    sigset_t old;
    hs_err_t crc;

    memset(a, 0, sizeof *a);
    if ((crc = hs_atomic_check_target(path, 1, err)) != HS_OK)
        return crc;
    if (strcmp(path, "-") == 0) {
        a->f = stdout;
        a->to_stdout = 1;
        return HS_OK;
    }
    a->path = malloc(n + 1);
    a->tmp_path = malloc(n + 12);
    if (a->path == NULL || a->tmp_path == NULL) {
        free(a->path);
        free(a->tmp_path);
        memset(a, 0, sizeof *a);
        return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0, "out of memory");
    }
    memcpy(a->path, path, n + 1);
    memcpy(a->tmp_path, path, n);
    memcpy(a->tmp_path + n, ".tmp.XXXXXX", 12);
    /* No signal between the file's creation and its registration: it
       would leave the file behind.  From the registration on, a signal
       removes it (best effort: a full registry only means it is not). */
    hs_signal_block(&old);
    fd = mkstemp(a->tmp_path);
    if (fd < 0) {
        int e = errno;
        hs_err_t rc;
        hs_signal_unblock(&old);
        rc = hs_error_set(err, HS_ERR_IO, path, 0, 0,
                          "cannot create a file here: %s", strerror(e));
        free(a->path);
        free(a->tmp_path);
        memset(a, 0, sizeof *a);
        return rc;
    }
    (void)hs_signal_add_file(a->tmp_path, NULL);
    hs_signal_unblock(&old);
    {
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
    }
    a->f = fdopen(fd, "w");
    if (a->f == NULL) {
        int e = errno;
        close(fd);
        hs_signal_block(&old);
        unlink(a->tmp_path);
        hs__atomic_release(a);
        hs_signal_unblock(&old);
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(e));
    }
    return HS_OK;
}

int hs_atomic_detach(hs_atomic_t *a)
{
    int rc = 0;

    if (a->to_stdout)
        return -1;  /* a writer by path refuses "-" before opening */

    if (a->f != NULL && fclose(a->f) != 0)
        rc = -1;
    a->f = NULL;
    return rc;
}

hs_err_t hs_atomic_commit(hs_atomic_t *a, hs_error_t *err)
{
    int bad = 0, e = 0;
    hs_err_t rc = HS_OK;
    sigset_t old;

    if (a->to_stdout) {
        bad = fflush(stdout) != 0 || ferror(stdout);
        memset(a, 0, sizeof *a);
        if (bad)
            return hs_error_setf(err, HS_ERR_IO,
                                 "-: cannot write standard output");
        return HS_OK;
    }
    if (a->tmp_path == NULL) {
        hs__atomic_release(a);
        return hs_error_setf(err, HS_ERR_IO, "no file open to commit");
    }
    if (a->f != NULL) {
        bad = fflush(a->f) != 0 || ferror(a->f) ||
              fsync(fileno(a->f)) != 0;
        if (fclose(a->f) != 0)
            bad = 1;
        a->f = NULL;
    } else {
        int fd = open(a->tmp_path, O_RDONLY);
        if (fd < 0 || fsync(fd) != 0)
            bad = 1;
        if (fd >= 0)
            close(fd);
    }
    if (bad)
        e = errno;
    /* the rename (or the removal) and forgetting the name go together: a
       signal between them would remove a name that may be reused */
    if (!bad && (rc = hs_atomic_check_target(a->path, 0, err)) != HS_OK) {
        /* the target was replaced by something else while we wrote */
        hs_signal_block(&old);
        unlink(a->tmp_path);
        hs__atomic_release(a);
        hs_signal_unblock(&old);
        return rc;
    }
    hs_signal_block(&old);
    if (bad || rename(a->tmp_path, a->path) != 0) {
        if (!bad)
            e = errno;
        rc = hs_error_set(err, HS_ERR_IO, a->path, 0, 0,
                          "cannot write: %s", strerror(e));
        unlink(a->tmp_path);
    }
    hs__atomic_release(a);
    hs_signal_unblock(&old);
    return rc;
}

void hs_atomic_abort(hs_atomic_t *a)
{
    sigset_t old;

    if (a == NULL)
        return;
    if (a->to_stdout) {
        fflush(stdout);
        memset(a, 0, sizeof *a);
        return;
    }
    if (a->f != NULL)
        fclose(a->f);
    hs_signal_block(&old);
    if (a->tmp_path != NULL)
        unlink(a->tmp_path);
    hs__atomic_release(a);
    hs_signal_unblock(&old);
}
