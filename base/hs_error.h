/*
 * hs_error.h -- the one error enum of hetsim and the error buffer.
 *
 * Every fallible library function returns an hs_err_t and, on failure, fills
 * an hs_error_t with a message of the form "file:line:col: what is wrong"
 * (or "file: what is wrong" where no position is known).  Library code never
 * exits or aborts; the command-line tool maps codes to exit statuses.
 *
 * Values are never reused: add new ones at the end.
 */
#ifndef HS_ERROR_H
#define HS_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum hs_err_e {
    HS_OK = 0,          /* success */
    HS_ERR_NOMEM = 1,   /* an allocation failed */
    HS_ERR_IO = 2,      /* a file could not be read or written */
    HS_ERR_SYNTAX = 3,  /* malformed YAML, JSON, CSV or gzip input */
    HS_ERR_SCHEMA = 4,  /* well-formed input with an unknown key, a wrong
                           type, a missing or duplicate item */
    HS_ERR_UNIT = 5,    /* a quantity without a unit or with a bad one */
    HS_ERR_NETWORK = 6, /* a ring link with no bandwidth or another bad
                           network description */
    HS_ERR_TRACE = 7,   /* a profiler trace lacks what is needed */
    HS_ERR_RANGE = 8,   /* a value out of its allowed range */
    HS_ERR_EXTERNAL = 9,/* an external program (gnuplot, iperf3, python)
                           failed or is missing */
    HS_ERR_USAGE = 10,  /* a bad call of the command-line tool */
    HS_ERR_TOLERANCE = 11, /* validation found a difference beyond the
                              tolerance asked for */
    HS_ERR_HOST = 12,   /* an unreachable host or a failed measurement */
    HS_ERR_RANK = 13,   /* a profiling or MPI rank crashed, hung or timed
                           out */
    HS_ERR_PARTIAL = 14 /* some points of a sweep failed (each says why);
                           the others ran and were written */
} hs_err_t;

#define HS_ERRMSG_LEN 1024

/* The error buffer: caller-owned, usually on the stack. */
typedef struct hs_error_s {
    hs_err_t code;
    char msg[HS_ERRMSG_LEN];
} hs_error_t;

/* Clears err (code HS_OK, empty message).  err may be NULL. */
void hs_error_clear(hs_error_t *err);

/*
 * Fills err with code and "file:line:col: message" and returns code.
 * line and col are 1-based; pass line 0 to omit the position, and file NULL
 * to omit the file.  err may be NULL (then only code is returned).
 */
hs_err_t hs_error_set(hs_error_t *err, hs_err_t code, const char *file,
                      unsigned long line, unsigned long col,
                      const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Like hs_error_set without a position. */
hs_err_t hs_error_setf(hs_error_t *err, hs_err_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A short static name for code, e.g. "schema error".  Never NULL. */
const char *hs_err_name(hs_err_t code);

/*
 * The exit status the command-line tool uses for code:
 * 0 success, 1 tolerance exceeded or an internal failure, 2 bad input
 * (usage, syntax, schema, unit, network description, trace, range),
 * 3 I/O, 4 external program, host or rank failure.
 */
int hs_err_exit_code(hs_err_t code);

#endif
