/* hs_progress.c -- the progress line on stderr (hs_progress.h). */
#include "hs_progress.h"

#include <string.h>
#include <time.h>

#include "hs_units.h"

static double hs__now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void hs_progress_init(hs_progress_t *p, int on, double min_interval_s)
{
    memset(p, 0, sizeof *p);
    p->on = on;
    p->min_interval_s = min_interval_s;
    p->t0_s = p->phase_t0_s = hs__now_s();
    p->last_s = -1e9;
}

double hs_progress_elapsed_s(const hs_progress_t *p)
{
    return hs__now_s() - p->t0_s;
}

int hs_progress_due(hs_progress_t *p, int final)
{
    double s;

    if (!p->on)
        return 0;
    s = hs__now_s() - p->t0_s;
    if (!final && s - p->last_s < p->min_interval_s)
        return 0;
    p->last_s = s;
    return 1;
}

void hs_progress_bar(hs_progress_t *p, FILE *f, uint64_t done,
                     uint64_t total, const char *unit, const char *extra)
{
    double s = hs__now_s() - p->phase_t0_s, rate, left;
    char bar[31];
    uint64_t i, fill;

    rate = s > 0 ? (double)done / s : 0;
    left = rate > 0 && total > done ? (double)(total - done) / rate : 0;
    fill = total ? done * 30 / total : 30;
    for (i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    fprintf(f, "\r[%s] %llu/%llu %s  %.1f %s/s  %d:%02d left ", bar,
            (unsigned long long)done, (unsigned long long)total, unit, rate,
            unit, (int)(left / 60), (int)left % 60);
    if (extra != NULL)
        fputs(extra, f);
    p->open = 1;
    if (done == total) {
        fputc('\n', f);
        p->open = 0;
    }
    fflush(f);
}

void hs_progress_report(void *ctx, const char *what, uint64_t done,
                        uint64_t total, int64_t best_ns)
{
    hs_progress_t *p = ctx;
    char extra[160], best[32], unit[32];
    const char *rest;
    size_t ul;
    double el;

    if (p == NULL || !p->on)
        return;
    if (strncmp(p->phase, what, sizeof p->phase - 1) != 0) {
        snprintf(p->phase, sizeof p->phase, "%s", what);
        p->phase_t0_s = hs__now_s();
    }
    if (!hs_progress_due(p, total > 0 && done == total))
        return;
    if (strcmp(p->drawn, p->phase) != 0) {
        hs_progress_end(p, stderr);
        snprintf(p->drawn, sizeof p->drawn, "%s", p->phase);
    }
    ul = strcspn(what, " ");
    snprintf(unit, sizeof unit, "%.*s", (int)(ul < 31 ? ul : 31), what);
    rest = what[ul] == ' ' ? what + ul + 1 : "";
    el = hs_progress_elapsed_s(p);
    if (best_ns >= 0)
        hs_fmt_time(best_ns, best, sizeof best);
    snprintf(extra, sizeof extra, "%s%s%s%s%s%d:%02d spent ", rest,
             *rest ? "  " : "", best_ns >= 0 ? "best " : "",
             best_ns >= 0 ? best : "", best_ns >= 0 ? "  " : "",
             (int)(el / 60), (int)el % 60);
    if (total > 0) {
        hs_progress_bar(p, stderr, done, total, unit, extra);
    } else {
        fprintf(stderr, "\r%llu %s %s", (unsigned long long)done, unit,
                extra);
        p->open = 1;
        fflush(stderr);
    }
}

void hs_progress_end(hs_progress_t *p, FILE *f)
{
    if (p->on && p->open) {
        fputc('\n', f);
        fflush(f);
    }
    p->open = 0;
}
