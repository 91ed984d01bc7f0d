/*
 * hs_progress.h -- the one progress line on stderr for long commands
 * (`hetsim sweep`, `hetsim advise`): a bar, done / total, the rate, the
 * time left and the time spent, redrawn in place ('\r') no more often than
 * the caller's interval, so a long search costs a clock read per report
 * and at most a few lines per second on the terminal.
 *
 * The library never prints: searches report through an hs_progress_fn
 * (a phase in words, done of total, the best figure so far), and the
 * command decides whether and how to draw it (hs_progress_t below, only
 * on rank 0, never on stdout, so --json output is never touched).
 */
#ifndef HS_PROGRESS_H
#define HS_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

/* A search's report: what it is doing (a short phrase, e.g. "mixes"),
   done of total (total 0: unknown), and the best figure found so far
   (ns; -1: none yet).  Called often: it must be cheap. */
typedef void (*hs_progress_fn)(void *ctx, const char *what, uint64_t done,
                               uint64_t total, int64_t best_ns);

typedef struct hs_progress_s {
    int on;                 /* draw at all */
    double min_interval_s;  /* between two draws */
    double t0_s;            /* when it started (monotonic) */
    double phase_t0_s;      /* when the current phase started */
    double last_s;          /* the last draw, -1e9 before the first */
    int open;               /* a line was drawn and not ended */
    char phase[64];         /* the current phase's `what` */
    char drawn[64];         /* the phase of the line drawn last */
} hs_progress_t;

/* Starts p: on = 0 makes every call below a no-op. */
void hs_progress_init(hs_progress_t *p, int on, double min_interval_s);

/* Seconds since hs_progress_init. */
double hs_progress_elapsed_s(const hs_progress_t *p);

/*
 * 1 when a line should be drawn now (p on, and the interval passed since
 * the last one or final != 0); it then counts as drawn.
 */
int hs_progress_due(hs_progress_t *p, int final);

/*
 * Draws "\r[######........] done/total UNIT  R UNIT/s  M:SS left " on f,
 * then extra when not NULL, and a newline when done == total.  The
 * caller asks hs_progress_due first.
 */
void hs_progress_bar(hs_progress_t *p, FILE *f, uint64_t done,
                     uint64_t total, const char *unit, const char *extra);

/*
 * An hs_progress_fn that draws p (ctx) on stderr: the bar over done/total
 * with the first word of `what` as the unit and the rest after it (total
 * 0: the count alone), then the best figure and the time spent.  A new
 * `what` restarts the rate; its first line drawn ends the previous
 * phase's.  Only the last report of a phase (done == total) is drawn
 * regardless of the interval.
 */
void hs_progress_report(void *ctx, const char *what, uint64_t done,
                        uint64_t total, int64_t best_ns);

/* Ends a line left open (a newline on f when one was drawn). */
void hs_progress_end(hs_progress_t *p, FILE *f);

#endif
