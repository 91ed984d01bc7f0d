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
   renamed or removed): hs_signal forgets it first. */
static void hs__atomic_release(hs_atomic_t *a)
{
    hs_signal_forget_file(a->tmp_path);
    free(a->path);
    free(a->tmp_path);
    a->path = a->tmp_path = NULL;
    a->f = NULL;
}

hs_err_t hs_atomic_open(hs_atomic_t *a, const char *path, hs_error_t *err)
{
    size_t n = strlen(path);
    int fd;

    memset(a, 0, sizeof *a);
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
    fd = mkstemp(a->tmp_path);
    if (fd < 0) {
        hs_err_t rc = hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                   "cannot create a file here: %s",
                                   strerror(errno));
        free(a->path);
        free(a->tmp_path);
        memset(a, 0, sizeof *a);
        return rc;
    }
    /* From here a signal removes the file (best effort: a full registry
       only means it is not). */
    (void)hs_signal_add_file(a->tmp_path, NULL);
    {
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
    }
    a->f = fdopen(fd, "w");
    if (a->f == NULL) {
        close(fd);
        unlink(a->tmp_path);
        hs__atomic_release(a);
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    }
    return HS_OK;
}

int hs_atomic_detach(hs_atomic_t *a)
{
    int rc = 0;

    if (a->f != NULL && fclose(a->f) != 0)
        rc = -1;
    a->f = NULL;
    return rc;
}

hs_err_t hs_atomic_commit(hs_atomic_t *a, hs_error_t *err)
{
    int bad = 0;
    hs_err_t rc = HS_OK;

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
    if (bad || rename(a->tmp_path, a->path) != 0) {
        rc = hs_error_set(err, HS_ERR_IO, a->path, 0, 0,
                          "cannot write: %s", strerror(errno));
        unlink(a->tmp_path);
    }
    hs__atomic_release(a);
    return rc;
}

void hs_atomic_abort(hs_atomic_t *a)
{
    if (a == NULL)
        return;
    if (a->f != NULL)
        fclose(a->f);
    if (a->tmp_path != NULL)
        unlink(a->tmp_path);
    hs__atomic_release(a);
}
