/* hs_file.c -- reading a whole file (hs_file.h). */
#include "hs_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_limits.h"

char *hs_file_join(const char *base_dir, const char *path)
{
    size_t nb, np;
    char *r;

    if (path[0] == '/' || base_dir == NULL || base_dir[0] == '\0')
        return strdup(path);
    nb = strlen(base_dir);
    np = strlen(path);
    r = malloc(nb + np + 2);
    if (r == NULL)
        return NULL;
    memcpy(r, base_dir, nb);
    r[nb] = '/';
    memcpy(r + nb + 1, path, np + 1);
    return r;
}

char *hs_file_absdir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char cwd[4096], *rel, *d;

    if (slash == path)
        return strdup("/");
    if (slash == NULL) {
        rel = strdup(".");
    } else {
        rel = malloc((size_t)(slash - path) + 1);
        if (rel == NULL)
            return NULL;
        memcpy(rel, path, (size_t)(slash - path));
        rel[slash - path] = '\0';
    }
    if (rel == NULL || rel[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
        return rel;
    d = strcmp(rel, ".") == 0 ? strdup(cwd) : hs_file_join(cwd, rel);
    free(rel);
    return d;
}

/* Opens path for reading without blocking on a FIFO; checks what it is
   against the rules of hs_file_read_bounded.  Returns the descriptor, or
   -1 with err filled. */
static int hs__open_checked(const char *path, uint64_t max_bytes,
                            unsigned flags, hs_error_t *err)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                     strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot stat: %s",
                     strerror(errno));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        hs_error_set(err, HS_ERR_IO, path, 0, 0,
                     "is a directory, not a file");
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        if (!(flags & HS_FILE_ALLOW_SPECIAL)) {
            hs_error_set(err, HS_ERR_IO, path, 0, 0,
                         "is not a regular file (a device, a pipe or a "
                         "socket); copy it into a file first");
            goto fail;
        }
        /* A pipe the caller asked for: read it blocking, bounded below. */
        close(fd);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                         strerror(errno));
            return -1;
        }
        return fd;
    }
    if ((uint64_t)st.st_size > max_bytes) {
        hs_error_set(err, HS_ERR_IO, path, 0, 0,
                     "is %llu bytes, over the %llu-byte limit on a file "
                     "read whole",
                     (unsigned long long)st.st_size,
                     (unsigned long long)max_bytes);
        goto fail;
    }
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;

fail:
    close(fd);
    return -1;
}

hs_err_t hs_file_read_bounded(const char *path, uint64_t max_bytes,
                              unsigned flags, char **out, size_t *len,
                              hs_error_t *err)
{
    char *buf = NULL;
    size_t cap = 0, n = 0, first = 65536 * 2;
    struct stat st;
    int fd;

    *out = NULL;
    if (max_bytes > (uint64_t)SIZE_MAX - 65536 - 1)
        max_bytes = (uint64_t)SIZE_MAX - 65536 - 1;
    if ((fd = hs__open_checked(path, max_bytes, flags, err)) < 0)
        return err != NULL ? err->code : HS_ERR_IO;
    /* a small regular file: a first buffer of its size (plus the byte
       that sees its end), not 128 KiB */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
        (uint64_t)st.st_size + 2 < first)
        first = (size_t)st.st_size + 2;
    for (;;) {
        ssize_t got;
        if (n + 1 >= cap) {
            char *p;
            cap = cap ? cap * 2 : first;
            p = realloc(buf, cap);
            if (p == NULL) {
                free(buf);
                close(fd);
                return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                                    "out of memory");
            }
            buf = p;
        }
        got = read(fd, buf + n, cap - n - 1 < 65536 ? cap - n - 1 : 65536);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            hs_err_t rc = hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                       "read error: %s", strerror(errno));
            free(buf);
            close(fd);
            return rc;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if ((uint64_t)n > max_bytes) {
            /* A file that grew, or a pipe or device with no end. */
            free(buf);
            close(fd);
            return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                "holds more than %llu bytes, the limit on "
                                "a file read whole",
                                (unsigned long long)max_bytes);
        }
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return HS_OK;
}

hs_err_t hs_file_read(const char *path, char **out, size_t *len,
                      hs_error_t *err)
{
    return hs_file_read_bounded(path, HS_LIMIT_FILE_BYTES, 0, out, len, err);
}
