/* hs_error.c -- the error buffer (see hs_error.h). */
#include "hs_error.h"

#include <stdio.h>
#include <string.h>

void hs_error_clear(hs_error_t *err)
{
    if (err == NULL)
        return;
    err->code = HS_OK;
    err->msg[0] = '\0';
}

static hs_err_t hs__error_vset(hs_error_t *err, hs_err_t code,
                               const char *file, unsigned long line,
                               unsigned long col, const char *fmt,
                               va_list ap)
{
    size_t off = 0;

    if (err == NULL)
        return code;
    err->code = code;
    err->msg[0] = '\0';
    if (file != NULL && line > 0)
        off = (size_t)snprintf(err->msg, sizeof err->msg, "%s:%lu:%lu: ",
                               file, line, col);
    else if (file != NULL)
        off = (size_t)snprintf(err->msg, sizeof err->msg, "%s: ", file);
    if (off >= sizeof err->msg)
        off = sizeof err->msg - 1;
    vsnprintf(err->msg + off, sizeof err->msg - off, fmt, ap);
    return code;
}

hs_err_t hs_error_set(hs_error_t *err, hs_err_t code, const char *file,
                      unsigned long line, unsigned long col,
                      const char *fmt, ...)
{
    va_list ap;
    hs_err_t rc;

    va_start(ap, fmt);
    rc = hs__error_vset(err, code, file, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

hs_err_t hs_error_setf(hs_error_t *err, hs_err_t code, const char *fmt, ...)
{
    va_list ap;
    hs_err_t rc;

    va_start(ap, fmt);
    rc = hs__error_vset(err, code, NULL, 0, 0, fmt, ap);
    va_end(ap);
    return rc;
}

const char *hs_err_name(hs_err_t code)
{
    switch (code) {
    case HS_OK: return "ok";
    case HS_ERR_NOMEM: return "out of memory";
    case HS_ERR_IO: return "I/O error";
    case HS_ERR_SYNTAX: return "syntax error";
    case HS_ERR_SCHEMA: return "schema error";
    case HS_ERR_UNIT: return "unit error";
    case HS_ERR_NETWORK: return "network error";
    case HS_ERR_TRACE: return "trace error";
    case HS_ERR_RANGE: return "range error";
    case HS_ERR_EXTERNAL: return "external program error";
    case HS_ERR_USAGE: return "usage error";
    case HS_ERR_TOLERANCE: return "tolerance exceeded";
    case HS_ERR_HOST: return "host error";
    case HS_ERR_RANK: return "rank failure";
    case HS_ERR_PARTIAL: return "some points failed";
    }
    return "unknown error";
}

int hs_err_exit_code(hs_err_t code)
{
    switch (code) {
    case HS_OK:
        return 0;
    case HS_ERR_SYNTAX:
    case HS_ERR_SCHEMA:
    case HS_ERR_UNIT:
    case HS_ERR_NETWORK:
    case HS_ERR_TRACE:
    case HS_ERR_RANGE:
    case HS_ERR_USAGE:
        return 2;
    case HS_ERR_IO:
        return 3;
    case HS_ERR_EXTERNAL:
    case HS_ERR_HOST:
    case HS_ERR_RANK:
        return 4;
    case HS_ERR_NOMEM:
    case HS_ERR_TOLERANCE:
    case HS_ERR_PARTIAL:
        return 1;
    }
    return 1;
}
