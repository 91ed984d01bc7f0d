/* hs_file.c -- reading a whole file (hs_file.h). */
#include "hs_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

hs_err_t hs_file_read(const char *path, char **out, size_t *len,
                      hs_error_t *err)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    *out = NULL;
    if (f == NULL)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    for (;;) {
        size_t got;
        if (n + 65536 + 1 > cap) {
            char *p;
            cap = cap ? cap * 2 : 65536 * 2;
            p = realloc(buf, cap);
            if (p == NULL) {
                free(buf);
                fclose(f);
                return hs_error_set(err, HS_ERR_NOMEM, path, 0, 0,
                                    "out of memory");
            }
            buf = p;
        }
        got = fread(buf + n, 1, 65536, f);
        n += got;
        if (got < 65536)
            break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "read error");
    }
    fclose(f);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return HS_OK;
}
