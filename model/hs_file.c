/* hs_file.c -- reading a whole file (hs_file.h). */
#include "hs_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
