/*
 * hs_notes.h -- the one notes list: the assumptions and remarks a loader,
 * the ingestion or the replay makes, as printf-formatted strings, each kept
 * once (a repeated text is dropped).  The list owns its strings.
 */
#ifndef HS_NOTES_H
#define HS_NOTES_H

#include <stdarg.h>
#include <stddef.h>

typedef struct hs_notes_s {
    size_t n;
    char **items;       /* n strings, each malloc'ed */
} hs_notes_t;

/* Appends the formatted text unless the list holds it already.  Returns 0,
   or -1 when out of memory (the list is then unchanged). */
int hs_notes_add(hs_notes_t *nl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The same with a va_list. */
int hs_notes_vadd(hs_notes_t *nl, const char *fmt, va_list ap);

/* Appends to a list kept as a bare (items, n) pair in another struct: the
   same as hs_notes_add on {*n, *items}, written back. */
int hs_notes_add_to(char ***items, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Frees every string and zeroes nl.  nl may be NULL. */
void hs_notes_clear(hs_notes_t *nl);

#endif
