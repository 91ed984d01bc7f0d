/* hs_suggest.c -- the nearest valid word to a mistyped one (hs_suggest.h). */
#include "hs_suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Characters equal but for case (ASCII letters only). */
static int hs__same(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

size_t hs_suggest_distance(const char *a, const char *b)
{
    /* three rows of the dynamic programme: i-2, i-1 and i */
    size_t row[3][HS_SUGGEST_MAX_LEN + 1];
    size_t la = strlen(a), lb = strlen(b), i, j;

    if (la > HS_SUGGEST_MAX_LEN || lb > HS_SUGGEST_MAX_LEN)
        return HS_SUGGEST_MAX_LEN + 1;
    for (j = 0; j <= lb; j++)
        row[0][j] = j;
    for (i = 1; i <= la; i++) {
        size_t *cur = row[i % 3], *prev = row[(i + 2) % 3];
        size_t *prev2 = row[(i + 1) % 3];
        cur[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t cost = hs__same(a[i - 1], b[j - 1]) ? 0 : 1;
            size_t d = prev[j] + 1;                /* deletion */
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;                /* insertion */
            if (prev[j - 1] + cost < d)
                d = prev[j - 1] + cost;            /* substitution */
            if (i > 1 && j > 1 && hs__same(a[i - 1], b[j - 2]) &&
                hs__same(a[i - 2], b[j - 1]) && prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;              /* neighbours swapped */
            cur[j] = d;
        }
    }
    return row[la % 3][lb];
}

int hs_suggest_close(size_t d, size_t word_len)
{
    size_t max = word_len <= 4 ? 1 : word_len <= 8 ? 2 : 3;

    return d <= max && d < word_len;
}

void hs_suggest_init(hs_suggest_t *sg, const char *word)
{
    sg->word = word;
    sg->best = NULL;
    sg->best_dist = 0;
}

void hs_suggest_add(hs_suggest_t *sg, const char *cand)
{
    size_t d;

    if (cand == NULL || sg->word == NULL || strcmp(cand, sg->word) == 0)
        return;
    d = hs_suggest_distance(sg->word, cand);
    if (!hs_suggest_close(d, strlen(sg->word)))
        return;
    if (sg->best == NULL || d < sg->best_dist) {
        sg->best = cand;
        sg->best_dist = d;
    }
}

const char *hs_suggest_list(const char *word, const char *const *cands)
{
    hs_suggest_t sg;
    size_t i;

    hs_suggest_init(&sg, word);
    for (i = 0; cands != NULL && cands[i] != NULL; i++)
        hs_suggest_add(&sg, cands[i]);
    return sg.best;
}

const char *hs_suggest_hint(const hs_suggest_t *sg, char *buf, size_t cap)
{
    if (cap == 0)
        return "";
    buf[0] = '\0';
    if (sg->best != NULL)
        snprintf(buf, cap, "; did you mean '%s'?", sg->best);
    return buf;
}

const char *hs_suggest_hint_list(const char *word, const char *const *cands,
                                 char *buf, size_t cap)
{
    hs_suggest_t sg;

    hs_suggest_init(&sg, word);
    sg.best = hs_suggest_list(word, cands);
    if (sg.best != NULL)
        sg.best_dist = hs_suggest_distance(word, sg.best);
    return hs_suggest_hint(&sg, buf, cap);
}
