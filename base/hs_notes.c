/* hs_notes.c -- a list of unique note strings (hs_notes.h). */
#include "hs_notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hs_notes_add(hs_notes_t *nl, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = hs_notes_vadd(nl, fmt, ap);
    va_end(ap);
    return rc;
}

int hs_notes_add_to(char ***items, size_t *n, const char *fmt, ...)
{
    hs_notes_t nl = {*n, *items};
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = hs_notes_vadd(&nl, fmt, ap);
    va_end(ap);
    *items = nl.items;
    *n = nl.n;
    return rc;
}

int hs_notes_vadd(hs_notes_t *nl, const char *fmt, va_list ap)
{
    char buf[1024];
    char **nn;
    size_t i;

    vsnprintf(buf, sizeof buf, fmt, ap);
    for (i = 0; i < nl->n; i++)
        if (strcmp(nl->items[i], buf) == 0)
            return 0;
    nn = realloc(nl->items, (nl->n + 1) * sizeof *nn);
    if (nn == NULL)
        return -1;
    nl->items = nn;
    if ((nn[nl->n] = strdup(buf)) == NULL)
        return -1;
    nl->n++;
    return 0;
}

void hs_notes_clear(hs_notes_t *nl)
{
    size_t i;

    if (nl == NULL)
        return;
    for (i = 0; i < nl->n; i++)
        free(nl->items[i]);
    free(nl->items);
    nl->items = NULL;
    nl->n = 0;
}
