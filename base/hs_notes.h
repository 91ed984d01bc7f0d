/*
 * hs_notes.h -- the one notes list: the assumptions and remarks a loader,
 * the ingestion or the replay makes, as printf-formatted strings, each kept
 * once (a repeated text is dropped).  The list owns its strings.
 */
#ifndef HS_NOTES_H
#define HS_NOTES_H

#include <stddef.h>

typedef struct hs_notes_s {
    size_t n;
    char **items;       /* n strings, each malloc'ed */
} hs_notes_t;

/* Appends the formatted text unless the list holds it already.  Returns 0,
   or -1 when out of memory (the list is then unchanged). */
int hs_notes_add(hs_notes_t *nl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Frees every string and zeroes nl.  nl may be NULL. */
void hs_notes_clear(hs_notes_t *nl);

#endif
