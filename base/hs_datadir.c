/*
 * hs_datadir.c -- finding the data directory (see hs_datadir.h).
 *
 * The relative paths of the install layout come from the build
 * (HS_DATADIR_FROM_BIN: BINDIR to DATADIR/hetsim, HS_DATADIR_FROM_LIB:
 * LIBDIR to DATADIR/hetsim, HS_DATADIR_FULL: PREFIX/DATADIR/hetsim), so a
 * tree installed with other GNUInstallDirs folders is still found.
 */
#define _GNU_SOURCE /* dladdr */
#include "hs_datadir.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HS_DATADIR_FROM_BIN
#define HS_DATADIR_FROM_BIN "../share/hetsim"
#endif
#ifndef HS_DATADIR_FROM_LIB
#define HS_DATADIR_FROM_LIB "../share/hetsim"
#endif
#ifndef HS_DATADIR_FULL
#define HS_DATADIR_FULL "/usr/local/share/hetsim"
#endif

/* What a search has tried, for the error message. */
typedef struct hs__dd_s {
    const char *rel;
    char *out;
    size_t cap;
    char tried[768];
    size_t n_tried;
} hs__dd_t;

/* The directory part of path into dir (without the last '/'); 0, or -1
   when path has no '/' or does not fit. */
static int hs__dd_dirname(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t n;

    if (slash == NULL)
        return -1;
    n = (size_t)(slash - path);
    if (n == 0)
        n = 1;                  /* "/prog": the root */
    if (n >= cap)
        return -1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return 0;
}

/* 1 when path names a shared library ("/x/libname.so" or ".so.N..."),
   0 for a program (the static library linked in) or NULL. */
static int hs__dd_is_lib(const char *path)
{
    const char *base, *so;

    if (path == NULL || (base = strrchr(path, '/')) == NULL)
        return 0;
    so = strstr(base, ".so");
    return so != NULL && (so[3] == '\0' || so[3] == '.');
}

/*
 * Tries "<base>/<sub>/<rel>" (sub may be ""): 1 and d->out filled with
 * its resolved path when it is readable, -1 when that path does not fit
 * in d->out, else 0 (the place is noted for the error message).
 */
static int hs__dd_try(hs__dd_t *d, const char *base, const char *sub)
{
    char path[PATH_MAX], real[PATH_MAX];
    int n;
    size_t at = d->n_tried;

    n = snprintf(path, sizeof path, "%s%s%s/%s", base, *sub ? "/" : "", sub,
                 d->rel);
    if (n < 0 || (size_t)n >= sizeof path)
        return 0;
    if (access(path, R_OK) == 0) {
        const char *p = realpath(path, real) != NULL ? real : path;

        if (strlen(p) >= d->cap)
            return -1;
        strcpy(d->out, p);
        return 1;
    }
    path[n - strlen(d->rel) - 1] = '\0';  /* the directory, for the note */
    if (at < sizeof d->tried) {
        n = snprintf(d->tried + at, sizeof d->tried - at, "%s%s",
                     at ? ", " : "", path);
        d->n_tried = n < 0 ? at : at + (size_t)n;
    }
    return 0;
}

hs_err_t hs_datadir_path(const char *rel, char *out, size_t cap,
                         hs_error_t *err)
{
    hs__dd_t d;
    const char *env = getenv(HS_DATADIR_ENV);
    char exe[PATH_MAX], dir[PATH_MAX];
    Dl_info info;
    ssize_t n;
    int r = 0;

    if (cap > 0)
        out[0] = '\0';
    memset(&d, 0, sizeof d);
    d.rel = rel;
    d.out = out;
    d.cap = cap;
    if (env != NULL && *env != '\0') {
        r = hs__dd_try(&d, env, "");
        if (r == 0)
            return hs_error_setf(err, HS_ERR_IO, "%s: no %s there (%s "
                                 "names hetsim's data directory: "
                                 "PREFIX/share/hetsim or the source tree)",
                                 env, rel, HS_DATADIR_ENV);
        goto done;
    }
    /* 2: the shared library this code is in */
    if (dladdr((void *)&hs_datadir_path, &info) != 0
        && hs__dd_is_lib(info.dli_fname)
        && hs__dd_dirname(info.dli_fname, dir, sizeof dir) == 0
        && (r = hs__dd_try(&d, dir, HS_DATADIR_FROM_LIB)) != 0)
        goto done;
    /* 3 and 4: the running program's folder */
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        if (hs__dd_dirname(exe, dir, sizeof dir) == 0
            && ((r = hs__dd_try(&d, dir, HS_DATADIR_FROM_BIN)) != 0
                || (r = hs__dd_try(&d, dir, "share/hetsim")) != 0
                || (r = hs__dd_try(&d, dir, "../share/hetsim")) != 0))
            goto done;
    }
    /* 5: the install prefix */
    if ((r = hs__dd_try(&d, HS_DATADIR_FULL, "")) != 0)
        goto done;
    return hs_error_setf(err, HS_ERR_IO, "hetsim's data file %s is in none "
                         "of %s; set %s to hetsim's data directory "
                         "(PREFIX/share/hetsim or the source tree)", rel,
                         d.tried, HS_DATADIR_ENV);
done:
    if (r < 0)
        return hs_error_setf(err, HS_ERR_RANGE, "the path of hetsim's data "
                             "file %s is longer than %zu bytes", rel,
                             cap ? cap - 1 : 0);
    return HS_OK;
}
