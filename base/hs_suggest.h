/*
 * hs_suggest.h -- "did you mean ...?": the valid word nearest to a mistyped
 * one (a command, an option, a scenario key, a device or type name).
 *
 * Nearness is the optimal-string-alignment form of the Damerau-Levenshtein
 * distance: an insertion, a deletion, a substitution or a swap of two
 * neighbouring characters costs 1; letters that differ only in case cost
 * nothing ("a100" is next to "A100").  A candidate is offered only when it
 * is close for the word's length (hs_suggest_close), so a word that is not
 * a typo of anything gets no suggestion rather than a random one.  Ties go
 * to the candidate seen first.  Nothing here allocates.
 */
#ifndef HS_SUGGEST_H
#define HS_SUGGEST_H

#include <stddef.h>

/* Words longer than this are never matched (their distance is not
   computed); names and keys are far shorter. */
#define HS_SUGGEST_MAX_LEN 64

/* The running best match of one word against candidates fed one by one. */
typedef struct hs_suggest_s {
    const char *word;   /* the mistyped word (not copied) */
    const char *best;   /* the nearest close candidate so far, or NULL */
    size_t best_dist;   /* its distance */
} hs_suggest_t;

/*
 * Distance between a and b (see above), or HS_SUGGEST_MAX_LEN + 1 when
 * either is longer than HS_SUGGEST_MAX_LEN bytes.
 */
size_t hs_suggest_distance(const char *a, const char *b);

/*
 * Whether distance d makes a candidate a plausible typo of a word of
 * word_len bytes: d <= 1 up to 4 bytes, d <= 2 up to 8, else d <= 3; and
 * always d < word_len (one letter is never "near" another word).
 */
int hs_suggest_close(size_t d, size_t word_len);

/* Starts a search for the nearest candidate to word (kept by pointer). */
void hs_suggest_init(hs_suggest_t *sg, const char *word);

/* Considers one candidate (kept by pointer; NULL and word itself are
   skipped). */
void hs_suggest_add(hs_suggest_t *sg, const char *cand);

/*
 * The nearest close candidate of a NULL-terminated list, or NULL.
 * The result points into the list.
 */
const char *hs_suggest_list(const char *word, const char *const *cands);

/* Room for a hint of a candidate up to HS_SUGGEST_MAX_LEN bytes. */
#define HS_SUGGEST_HINT_LEN (HS_SUGGEST_MAX_LEN + 24)

/*
 * Writes "; did you mean 'X'?" into buf (cap bytes, truncated to fit)
 * when sg found a close candidate X, else the empty string; returns buf,
 * ready for a "%s" right after the words that name the mistyped one.
 */
const char *hs_suggest_hint(const hs_suggest_t *sg, char *buf, size_t cap);

/* hs_suggest_hint of word against a NULL-terminated list. */
const char *hs_suggest_hint_list(const char *word, const char *const *cands,
                                 char *buf, size_t cap);

#endif
