/*
 * hs_plot.c -- gnuplot plots of a replay (hs_plot.h).
 *
 * The timeline reads the trace twice, one block of /events at a time (never
 * the whole table): a first pass finds the span and the phases present
 * among the rows kept (chosen devices, chosen steps), a second writes them
 * into one gnuplot data file per phase, which are then joined into one file
 * of `index` blocks in phase order.  The script (plots/timeline.gp) draws
 * each block in its colour with its legend title.  Each device gets three
 * lanes, top to bottom in ring order: its CPU (data loading of the next
 * batch), its compute (forward, first backward op, rest of the backward,
 * optimizer, waiting for data) and its ring (one box per round's send, with
 * a border, so the 2(N-1) rounds are visible; thinner grey boxes where it
 * waits).  Times are shown from the first drawn step's start, in the unit
 * that suits the span.
 *
 * For a large ring only the slowest and the fastest device of each type
 * are drawn (by the closed form's T(i), then the simulated step time, then
 * the lower index), so a 10,000-device run gives a picture of at most
 * 2 x types devices.
 *
 * gnuplot runs through hs_spawn with an argv array: no shell, so paths
 * need no shell quoting; strings inside the -e definitions are gnuplot
 * single-quoted strings ('' for a quote).
 */
#include "hs_plot.h"
#include "hs_atomic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_datadir.h"
#include "hs_h5.h"
#include "hs_sweep_out.h"
#include "hs_spawn.h"

/* How long gnuplot may draw one figure before it counts as hung (a
   figure of a large trace takes seconds). */
#define HS__PLOT_TIMEOUT_NS (600LL * 1000000000LL)
#include "hs_trace.h"

/* Legend title and colour of each phase (index = hs_phase_t). */
static const char *const hs__pl_title[HS_PH_COUNT] = {
    "data loading, next batch (CPU)", "forward", "backward, first op",
    "backward, rest", "optimizer", "ring all-reduce: send (1 box = 1 round)",
    "ring: waiting for peer", "waiting for data",
    "ring: processing a chunk (suspends compute)",
    "ring: hop wait (chunk reached a computing device)"};
static const char *const hs__pl_color[HS_PH_COUNT] = {
    "#4daf4a", "#377eb8", "#e41a1c", "#ff9f40",
    "#984ea3", "#a65628", "#c8c8c8", "#f781bf", "#000000", "#ffd92f"};
/* Lane of each phase within a device: 0 CPU, 1 compute, 2 ring. */
static const int hs__pl_lane[HS_PH_COUNT] = {0, 1, 1, 1, 1, 2, 2, 1, 2, 2};
/* Box half-height of each phase. */
static const double hs__pl_half[HS_PH_COUNT] = {0.32, 0.32, 0.32, 0.32,
                                                0.32, 0.32, 0.14, 0.2,
                                                0.08, 0.11};
/* Order the phases are drawn (and listed in the legend). */
static const int hs__pl_order[HS_PH_COUNT] = {
    HS_PH_DATA_LOAD, HS_PH_FORWARD, HS_PH_BACKWARD_FIRST,
    HS_PH_BACKWARD_REST, HS_PH_OPTIMIZER, HS_PH_RING_SEND, HS_PH_RING_WAIT,
    HS_PH_DATA_WAIT, HS_PH_RING_REDUCE, HS_PH_HOP_WAIT};

#define HS__PL_LANES 4      /* 3 lanes + a gap per device */

/* A box on the CPU or compute lane shorter than the drawn span over this
   is drawn this wide (about 4 pixels of the 1280-pixel figure's plot
   area), so a phase of 40 us in a 450 ms step is still seen; its legend
   entry says so.  The ring lane's rounds keep their width: their borders
   show them. */
#define HS__PL_MIN_WIDTH_DIV 250

void hs_plot_opts_init(hs_plot_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->kind = HS_PLOT_TIMELINE;
    o->first_step = 0;
    o->last_step = UINT32_MAX;
}

const char *hs_plot_time_unit(int64_t span_ns, double *unit_ns)
{
    if (span_ns < 0)
        span_ns = -span_ns;
    if (span_ns < 2000) {
        *unit_ns = 1.0;
        return "ns";
    }
    if (span_ns < 2000000) {
        *unit_ns = 1e3;
        return "us";
    }
    if (span_ns < INT64_C(2000000000)) {
        *unit_ns = 1e6;
        return "ms";
    }
    *unit_ns = 1e9;
    return "s";
}

hs_err_t hs_plot_png_size(const char *path, uint32_t *width,
                          uint32_t *height, hs_error_t *err)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G',
                                         '\r', '\n', 0x1a, '\n'};
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    size_t n;

    if (f == NULL)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot open: %s",
                            strerror(errno));
    n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n < sizeof b || memcmp(b, sig, 8) != 0 ||
        memcmp(b + 12, "IHDR", 4) != 0)
        return hs_error_set(err, HS_ERR_SYNTAX, path, 0, 0,
                            "not a PNG file (no IHDR chunk)");
    *width = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 |
             (uint32_t)b[18] << 8 | b[19];
    *height = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 |
              (uint32_t)b[22] << 8 | b[23];
    return HS_OK;
}

/* ---- the work area: data files, the gnuplot command ---- */

typedef struct hs__pl_s {
    const hs_plot_opts_t *o;
    char dir[4096];     /* where the data files go */
    int own_dir;        /* a temp dir we remove */
    char *defs;         /* the -e text */
    size_t defs_len, defs_cap;
} hs__pl_t;

static int hs__pl_defs(hs__pl_t *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends to the -e text. */
static int hs__pl_defs(hs__pl_t *p, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        size_t room = p->defs_cap - p->defs_len;
        va_start(ap, fmt);
        n = vsnprintf(p->defs ? p->defs + p->defs_len : NULL,
                      p->defs ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -1;
        if (p->defs != NULL && (size_t)n < room) {
            p->defs_len += (size_t)n;
            return 0;
        }
        {
            size_t cap = p->defs_cap ? p->defs_cap * 2 : 1024;
            char *d;
            while (cap < p->defs_len + (size_t)n + 1)
                cap *= 2;
            d = realloc(p->defs, cap);
            if (d == NULL)
                return -1;
            if (p->defs == NULL)
                d[0] = '\0';
            p->defs = d;
            p->defs_cap = cap;
        }
    }
}

/* Appends  name='value';  with value as a gnuplot single-quoted string. */
static int hs__pl_str(hs__pl_t *p, const char *name, const char *val)
{
    const char *c;

    if (hs__pl_defs(p, "%s='", name) < 0)
        return -1;
    for (c = val; *c; c++) {
        if (*c == '\'' ? hs__pl_defs(p, "''") < 0
            : *c == '\n' ? hs__pl_defs(p, " ") < 0
                         : hs__pl_defs(p, "%c", *c) < 0)
            return -1;
    }
    return hs__pl_defs(p, "';");
}

static void hs__pl_path(const hs__pl_t *p, const char *name, char *out,
                        size_t len)
{
    snprintf(out, len, "%s/%s", p->dir, name);
}

/* fopen(path, "w") for a regular file only: a symbolic link, FIFO or
   device planted in a --keep-dir folder is not written through (errno
   ELOOP, ENXIO or EINVAL). */
static FILE *hs__pl_fopen_w(const char *path)
{
    struct stat st;
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
                            O_CLOEXEC, 0666);
    FILE *f;

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        ftruncate(fd, 0) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    if ((f = fdopen(fd, "w")) == NULL)
        close(fd);
    return f;
}

static hs_err_t hs__pl_open(hs__pl_t *p, const char *name, FILE **f,
                            hs_error_t *err)
{
    char path[4200];

    hs__pl_path(p, name, path, sizeof path);
    *f = hs__pl_fopen_w(path);
    if (*f == NULL)
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot write: %s",
                            strerror(errno));
    return HS_OK;
}

static hs_err_t hs__pl_close(hs__pl_t *p, const char *name, FILE *f,
                             hs_error_t *err)
{
    char path[4200];
    int bad = ferror(f);

    if (fclose(f) != 0 || bad) {
        hs__pl_path(p, name, path, sizeof path);
        return hs_error_set(err, HS_ERR_IO, path, 0, 0, "cannot write: %s",
                            strerror(errno));
    }
    return HS_OK;
}

static hs_err_t hs__pl_setup(hs__pl_t *p, const hs_plot_opts_t *o,
                             hs_error_t *err)
{
    const char *tmp = getenv("TMPDIR");

    memset(p, 0, sizeof *p);
    p->o = o;
    if (o->keep_dir != NULL) {
        snprintf(p->dir, sizeof p->dir, "%s", o->keep_dir);
        return HS_OK;
    }
    snprintf(p->dir, sizeof p->dir, "%s/hetsim-plot.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(p->dir) == NULL)
        return hs_error_set(err, HS_ERR_IO, p->dir, 0, 0,
                            "cannot create a temporary directory: %s",
                            strerror(errno));
    p->own_dir = 1;
    return HS_OK;
}

static void hs__pl_cleanup(hs__pl_t *p)
{
    if (p->own_dir) {
        DIR *d = opendir(p->dir);
        struct dirent *e;
        char path[4400];
        if (d != NULL) {
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 ||
                    strcmp(e->d_name, "..") == 0)
                    continue;
                snprintf(path, sizeof path, "%s/%s", p->dir, e->d_name);
                unlink(path);
            }
            closedir(d);
        }
        rmdir(p->dir);
    }
    free(p->defs);
    p->defs = NULL;
}

/* The terminal for the output's extension, or NULL. */
static const char *hs__pl_term(const char *out)
{
    const char *dot = strrchr(out, '.');

    if (dot == NULL || strchr(dot, '/') != NULL)
        return NULL;
    if (strcasecmp(dot, ".png") == 0)
        return "pngcairo";
    if (strcasecmp(dot, ".svg") == 0)
        return "svg";
    if (strcasecmp(dot, ".pdf") == 0)
        return "pdfcairo";
    return NULL;
}

/* The last non-empty lines of a text file, for an error message. */
static void hs__pl_tail(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    char buf[4096];
    size_t n, from = 0;

    out[0] = '\0';
    if (f == NULL)
        return;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        n--;
    buf[n] = '\0';
    if (n > 400)
        from = n - 400;
    n = strlen(buf + from);
    if (n >= len)
        n = len - 1;
    memcpy(out, buf + from, n);
    out[n] = '\0';
}

/*
 * Runs gnuplot on script `name`.gp with the -e text built so far plus out
 * and term.  gnuplot draws into the private directory; the image, checked
 * whole, is then copied into a temp file beside o->output and renamed on
 * success, so that a write error there is hetsim's own (exit 3), never a
 * truncated image gnuplot did not notice.
 */
/* 1 when the image file at path ends as a whole PNG, SVG or PDF does
   (gnuplot exits 0 after a short write on a full file system). */
static int hs__pl_image_whole(const char *path)
{
    static const unsigned char png_end[8] = {'I', 'E', 'N', 'D', 0xae,
                                             0x42, 0x60, 0x82};
    unsigned char buf[64];
    FILE *f = fopen(path, "rb");
    long size;
    size_t n;

    if (f == NULL)
        return 0;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0) {
        fclose(f);
        return 0;
    }
    if (fseek(f, size > (long)sizeof buf ? size - (long)sizeof buf : 0,
              SEEK_SET) != 0) {
        fclose(f);
        return 0;
    }
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n >= 8 && memcmp(buf + n - 8, png_end, 8) == 0)
        return 1;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
                     buf[n - 1] == ' '))
        n--;
    if (n >= 6 && memcmp(buf + n - 6, "</svg>", 6) == 0)
        return 1;
    if (n >= 5 && memcmp(buf + n - 5, "%%EOF", 5) == 0)
        return 1;
    return 0;
}

/* Copies the file at from into f; 0, or -1 with errno set. */
static int hs__pl_copy(const char *from, FILE *f)
{
    char buf[65536];
    FILE *in = fopen(from, "rb");
    size_t n;
    int rc = 0;

    if (in == NULL)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, f) != n) {
            rc = -1;
            break;
        }
    if (ferror(in))
        rc = -1;
    fclose(in);
    return rc;
}

/* Resolves the gnuplot program (*prog: o->gnuplot, HETSIM_GNUPLOT or
   "gnuplot"; not owned) and the readable script path for plot name into
   script (cap bytes). Fills err when the script cannot be read. */
static hs_err_t hs__pl_script(const hs_plot_opts_t *o, const char *name,
                              const char **prog, char *script, size_t cap,
                              hs_error_t *err)
{
    const char *sdir = o->script_dir;
    char datadir[4096];
    hs_err_t ret;

    *prog = o->gnuplot;
    if (*prog == NULL)
        *prog = getenv("HETSIM_GNUPLOT");
    if (*prog == NULL || **prog == '\0')
        *prog = "gnuplot";
    if (sdir == NULL)
        sdir = getenv("HETSIM_PLOTS_DIR");
    if (sdir == NULL || *sdir == '\0') {
        /* the installed (or build tree's) plots/: hs_datadir.h */
        if ((ret = hs_datadir_path("plots", datadir, sizeof datadir,
                                   err)) != HS_OK)
            return ret;
        sdir = datadir;
    }
    /* gnuplot has no "--": a script path must not look like an option */
    snprintf(script, cap, "%s%s/%s.gp", sdir[0] == '-' ? "./" : "",
             sdir, name);
    if (access(script, R_OK) != 0)
        return hs_error_set(err, HS_ERR_IO, script, 0, 0,
                            "cannot read the gnuplot script (%s); set "
                            "HETSIM_PLOTS_DIR to the plots/ directory "
                            "(or HETSIM_DATADIR to the data directory)",
                            strerror(errno));
    return HS_OK;
}

/* Runs prog -e p->defs script with its stderr into errpath and waits for
   it (HS__PLOT_TIMEOUT_NS). Fills err when it cannot start, times out or
   fails; the caller aborts its output. */
static hs_err_t hs__pl_gnuplot(hs__pl_t *p, const char *prog,
                               char *script, const char *errpath,
                               hs_error_t *err)
{
    char *argv[5];
    char tail[512];
    hs_child_t child;

    argv[0] = (char *)prog;
    argv[1] = "-e";
    argv[2] = p->defs;
    argv[3] = script;
    argv[4] = NULL;
    unlink(errpath);            /* hs_spawn appends */
    if (hs_spawn(argv, NULL, 0, NULL, errpath, &child, NULL) != HS_OK) {
        if (child.start_errno == ENOENT)
            return hs_error_set(err, HS_ERR_EXTERNAL, NULL, 0, 0,
                                "cannot draw %s: gnuplot is not installed "
                                "(no '%s' on PATH); install it (Debian: "
                                "apt-get install gnuplot-nox) or set "
                                "HETSIM_GNUPLOT; everything else in hetsim "
                                "works without it", p->o->output, prog);
        return hs_error_set(err, HS_ERR_EXTERNAL, NULL, 0, 0,
                            "cannot run %s: %s", prog,
                            strerror(child.start_errno));
    }
    if (hs_child_wait(&child, HS__PLOT_TIMEOUT_NS, 2000000000LL) != 0)
        return hs_error_set(err, HS_ERR_EXTERNAL, NULL, 0, 0,
                            "gnuplot did not finish %s within %lld s and "
                            "was stopped",
                            script,
                            (long long)(HS__PLOT_TIMEOUT_NS / 1000000000LL));
    if (child.status != 0) {
        hs__pl_tail(errpath, tail, sizeof tail);
        if (child.term_signal == 0 && child.status == 127)
            return hs_error_set(err, HS_ERR_EXTERNAL, NULL, 0, 0,
                                "cannot run gnuplot ('%s'): not found",
                                prog);
        return hs_error_set(err, HS_ERR_EXTERNAL, NULL, 0, 0,
                            "gnuplot failed on %s (%s %d): %s", script,
                            child.term_signal == 0 ? "exit status"
                                                   : "signal",
                            child.term_signal == 0 ? child.status
                                                   : child.term_signal,
                            tail[0] ? tail : "no message");
    }
    return HS_OK;
}

/* Checks that gnuplot wrote a whole, non-empty image at imgpath (its
   stderr, errpath, tells why not). Fills err when it did not. */
static hs_err_t hs__pl_image_check(const hs_plot_opts_t *o,
                                   const char *imgpath, const char *errpath,
                                   hs_error_t *err)
{
    char tail[512];
    struct stat sb;

    if (stat(imgpath, &sb) != 0 || sb.st_size == 0) {
        hs__pl_tail(errpath, tail, sizeof tail);
        return hs_error_set(err, HS_ERR_EXTERNAL, NULL, 0, 0,
                            "gnuplot wrote nothing to %s: %s", o->output,
                            tail[0] ? tail : "no message");
    }
    if (!hs__pl_image_whole(imgpath))
        return hs_error_set(err, HS_ERR_IO, imgpath, 0, 0,
                            "gnuplot's image is cut short (is the "
                            "temporary directory's file system full?)");
    return HS_OK;
}

/* Draws plot name: runs its gnuplot script on p's data files and defs
   into a temporary image, then copies it to o->output (temp + rename).
   Fills err on failure; o->output is then left as it was. */
static hs_err_t hs__pl_run(hs__pl_t *p, const char *name, hs_error_t *err)
{
    const hs_plot_opts_t *o = p->o;
    const char *prog;
    const char *term = hs__pl_term(o->output);
    char script[4200], errpath[4200], imgpath[4200];
    hs_atomic_t af;
    hs_err_t ret = HS_OK;

    if ((ret = hs__pl_script(o, name, &prog, script, sizeof script,
                             err)) != HS_OK)
        return ret;
    if ((ret = hs_atomic_check_target(o->output, 0, err)) != HS_OK ||
        (ret = hs_atomic_open(&af, o->output, err)) != HS_OK)
        return ret;
    hs__pl_path(p, "image.out", imgpath, sizeof imgpath);
    unlink(imgpath);
    if (hs__pl_str(p, "out", imgpath) < 0 ||
        hs__pl_str(p, "term", term) < 0)
        goto nomem;
    if (o->keep_dir != NULL) {
        FILE *f;
        char cmd[4200];
        hs__pl_path(p, "gnuplot-command.txt", cmd, sizeof cmd);
        f = hs__pl_fopen_w(cmd);
        if (f != NULL) {
            fprintf(f, "%s -e \"%s\" %s\n", prog, p->defs, script);
            fclose(f);
        }
    }
    hs__pl_path(p, "gnuplot.stderr", errpath, sizeof errpath);
    if ((ret = hs__pl_gnuplot(p, prog, script, errpath, err)) != HS_OK ||
        (ret = hs__pl_image_check(o, imgpath, errpath, err)) != HS_OK)
        goto fail;
    if (hs__pl_copy(imgpath, af.f) != 0) {
        int e = errno;
        hs_atomic_abort(&af);
        return hs_error_set(err, HS_ERR_IO, o->output, 0, 0,
                            "cannot write: %s", strerror(e));
    }
    unlink(imgpath);
    ret = hs_atomic_commit(&af, err);
    return ret;
nomem:
    hs_atomic_abort(&af);
    return hs_error_set(err, HS_ERR_NOMEM, NULL, 0, 0, "out of memory");
fail:
    hs_atomic_abort(&af);
    return ret;
}

static hs_err_t hs__pl_common(hs__pl_t *p, unsigned w, unsigned h,
                              const char *title, hs_error_t *err)
{
    const hs_plot_opts_t *o = p->o;

    if (hs__pl_defs(p, "W=%u;H=%u;", o->width ? o->width : w,
                    o->height ? o->height : h) < 0 ||
        hs__pl_str(p, "ttl", o->title ? o->title : title) < 0)
        return hs_error_set(err, HS_ERR_NOMEM, NULL, 0, 0, "out of memory");
    return HS_OK;
}

/* ---- timeline ---- */

typedef struct hs__tl_s {
    const hs_h5_run_t *run;
    uint32_t first, last;
    int32_t *lane;          /* per device: its lane group, -1 = not drawn */
    int64_t t_min, t_max;
    int windowed;           /* keep what overlaps [win_lo, win_hi) */
    int64_t win_lo, win_hi;
    unsigned present;       /* bit per phase */
    unsigned widened;       /* bit per phase: a box drawn at min_w */
    int64_t min_w;          /* the least width drawn (ns), 0 = none */
    int32_t max_round;
    uint64_t kept;
    double unit;
    int64_t origin;
    FILE *f[HS_PH_COUNT];
    int fail;
} hs__tl_t;

/* Whether iv is drawn: a chosen device, and inside the drawn steps' time
   window (so the CPU's loading of the next batch, labelled with the step it
   feeds, is drawn beside the step it overlaps), or, for a trace without
   /steps rows, labelled with a drawn step. */
static int hs__tl_keep(const hs__tl_t *t, const hs_interval_t *iv)
{
    if (iv->device >= t->run->n_devices || t->lane[iv->device] < 0 ||
        iv->phase >= HS_PH_COUNT)
        return 0;
    if (t->windowed)
        return iv->end_ns > t->win_lo && iv->start_ns < t->win_hi;
    return iv->step >= t->first && iv->step <= t->last;
}

static int hs__tl_pass1(void *ctx, const hs_interval_t *iv, size_t n)
{
    hs__tl_t *t = ctx;
    size_t i;

    for (i = 0; i < n; i++) {
        if (!hs__tl_keep(t, &iv[i]))
            continue;
        if (t->kept == 0 || iv[i].start_ns < t->t_min)
            t->t_min = iv[i].start_ns;
        if (t->kept == 0 || iv[i].end_ns > t->t_max)
            t->t_max = iv[i].end_ns;
        t->present |= 1u << iv[i].phase;
        if (iv[i].round > t->max_round)
            t->max_round = iv[i].round;
        t->kept++;
    }
    return 0;
}

static int hs__tl_pass2(void *ctx, const hs_interval_t *iv, size_t n)
{
    hs__tl_t *t = ctx;
    size_t i;

    for (i = 0; i < n; i++) {
        const hs_interval_t *v = &iv[i];
        double y;
        if (!hs__tl_keep(t, v))
            continue;
        y = HS__PL_LANES * t->lane[v->device] + hs__pl_lane[v->phase];
        int64_t a = v->start_ns, b = v->end_ns;
        if (t->windowed) {   /* cut at the window's edges */
            if (a < t->win_lo)
                a = t->win_lo;
            if (b > t->win_hi)
                b = t->win_hi;
        }
        /* too short to see: grown to the left, over the phase before it
           (drawn earlier), keeping its end; at the left edge, rightwards */
        if (hs__pl_lane[v->phase] != 2 && b - a < t->min_w) {
            if (b - t->min_w >= t->t_min)
                a = b - t->min_w;
            else
                b = a + t->min_w;
            t->widened |= 1u << v->phase;
        }
        if (fprintf(t->f[v->phase], "%.9g %.9g %g %g %d\n",
                    (double)(a - t->origin) / t->unit,
                    (double)(b - t->origin) / t->unit, y,
                    hs__pl_half[v->phase], (int)v->round) < 0) {
            t->fail = 1;
            return 1;
        }
    }
    return 0;
}

/* Mean closed_ns and sim_ns per device over steps first..last. */
static void hs__tl_means(const hs_h5_run_t *r, uint32_t first,
                         uint32_t last, double *closed, double *sim)
{
    size_t i, *cnt = calloc(r->n_devices ? r->n_devices : 1, sizeof *cnt);

    for (i = 0; i < r->n_devices; i++)
        closed[i] = sim[i] = 0;
    for (i = 0; i < r->n_steps; i++) {
        const hs_step_rec_t *s = &r->steps[i];
        if (s->device >= r->n_devices || s->step < first || s->step > last)
            continue;
        closed[s->device] += (double)s->closed_ns;
        sim[s->device] += (double)s->sim_ns;
        if (cnt)
            cnt[s->device]++;
    }
    for (i = 0; cnt && i < r->n_devices; i++)
        if (cnt[i]) {
            closed[i] /= (double)cnt[i];
            sim[i] /= (double)cnt[i];
        }
    free(cnt);
}

/* Chooses the devices to draw; fills lane[] (group index in ring order)
   and returns how many. */
static size_t hs__tl_choose(const hs_h5_run_t *r, size_t max_dev,
                            uint32_t first, uint32_t last, int32_t *lane)
{
    size_t n = r->n_devices, i, k = 0, nt = 0;
    uint32_t pos;
    double *closed = malloc((n ? n : 1) * sizeof *closed);
    double *sim = malloc((n ? n : 1) * sizeof *sim);
    uint8_t *pick = calloc(n ? n : 1, 1);
    uint32_t *byring = malloc((n ? n : 1) * sizeof *byring);

    if (!closed || !sim || !pick || !byring) {
        free(closed);
        free(sim);
        free(pick);
        free(byring);
        return 0;
    }
    if (n <= max_dev) {
        memset(pick, 1, n);
    } else {
        hs__tl_means(r, first, last, closed, sim);
        for (i = 0; i < n; i++)
            if (r->devices[i].type_index + 1 > nt)
                nt = r->devices[i].type_index + 1;
        for (k = 0; k < nt; k++) {
            long slow = -1, fast = -1;
            for (i = 0; i < n; i++) {
                if (r->devices[i].type_index != k)
                    continue;
                /* ties: the slowest is the last, the fastest the first,
                   so a type of equal devices still shows two */
                if (slow < 0 || closed[i] > closed[slow] ||
                    (closed[i] == closed[slow] && sim[i] >= sim[slow]))
                    slow = (long)i;
                if (fast < 0 || closed[i] < closed[fast] ||
                    (closed[i] == closed[fast] && sim[i] < sim[fast]))
                    fast = (long)i;
            }
            if (slow >= 0)
                pick[slow] = pick[fast] = 1;
        }
    }
    /* lanes in ring order (ring_pos is a permutation of 0..n-1) */
    for (i = 0; i < n; i++)
        byring[i] = UINT32_MAX;
    for (i = 0; i < n; i++)
        if (r->devices[i].ring_pos < n)
            byring[r->devices[i].ring_pos] = (uint32_t)i;
    k = 0;
    for (i = 0; i < n; i++)
        lane[i] = -1;
    for (pos = 0; pos < n; pos++) {
        uint32_t d = byring[pos];
        if (d != UINT32_MAX && pick[d])
            lane[d] = (int32_t)k++;
    }
    for (i = 0; i < n; i++)   /* devices with a bad ring_pos, last */
        if (pick[i] && lane[i] < 0)
            lane[i] = (int32_t)k++;
    free(closed);
    free(sim);
    free(pick);
    free(byring);
    return k;
}

/* Sets t's time window from the steps' rows: from the earliest start of
   step t->first to the latest end of the steps t->first..t->last; none
   (t->windowed 0) when step t->first has no row. */
static void hs__tl_window(hs__tl_t *t)
{
    const hs_h5_run_t *r = t->run;
    size_t i;

    for (i = 0; i < r->n_steps; i++) {
        const hs_step_rec_t *q = &r->steps[i];
        if (q->step == t->first &&
            (!t->windowed || q->start_ns < t->win_lo)) {
            if (!t->windowed)
                t->win_hi = q->end_ns;
            t->win_lo = q->start_ns;
            t->windowed = 1;
        }
    }
    for (i = 0; t->windowed && i < r->n_steps; i++) {
        const hs_step_rec_t *q = &r->steps[i];
        if (q->step >= t->first && q->step <= t->last &&
            q->end_ns > t->win_hi)
            t->win_hi = q->end_ns;
    }
}

/* Writes phaseN.dat for each phase present from the events' second pass
   (t->unit, t->origin and t->min_w set). Closes and clears the t->f[] it
   opened, except when an open fails: the caller closes those left. Fills
   err on failure. */
static hs_err_t hs__tl_phase_files(hs__pl_t *p, hs__tl_t *t, hs_error_t *err)
{
    char name[64];
    int ph;
    hs_err_t rc;

    for (ph = 0; ph < HS_PH_COUNT; ph++) {
        if (!(t->present & (1u << ph)))
            continue;
        snprintf(name, sizeof name, "phase%d.dat", ph);
        if ((rc = hs__pl_open(p, name, &t->f[ph], err)) != HS_OK)
            return rc;
    }
    rc = hs_h5_events_each(p->o->input, hs__tl_pass2, t, err);
    for (ph = 0; ph < HS_PH_COUNT; ph++) {
        if (t->f[ph] == NULL)
            continue;
        snprintf(name, sizeof name, "phase%d.dat", ph);
        if (hs__pl_close(p, name, t->f[ph], err) != HS_OK && rc == HS_OK)
            rc = err ? err->code : HS_ERR_IO;
        t->f[ph] = NULL;
    }
    if (rc == HS_OK && t->fail)
        rc = hs_error_set(err, HS_ERR_IO, p->dir, 0, 0,
                          "cannot write the plot data: %s", strerror(errno));
    return rc;
}

/* Joins the phase files into events.dat, one index block per phase in
   legend order (each removed when the work area is ours), and adds the
   titles, colors and nblk defs; *nblk_out gets the number of blocks.
   Fills err on failure. */
static hs_err_t hs__tl_join(hs__pl_t *p, const hs__tl_t *t, int *nblk_out,
                            hs_error_t *err)
{
    FILE *f;
    char name[64];
    int ph, k, nblk = 0;
    size_t i;
    hs_err_t rc;

    if ((rc = hs__pl_open(p, "events.dat", &f, err)) != HS_OK)
        return rc;
    if (hs__pl_defs(p, "titles='") < 0)
        goto nomem;
    for (k = 0; k < HS_PH_COUNT; k++) {
        char path[4200], buf[65536];
        FILE *in;
        size_t n;
        ph = hs__pl_order[k];
        if (!(t->present & (1u << ph)))
            continue;
        snprintf(name, sizeof name, "phase%d.dat", ph);
        hs__pl_path(p, name, path, sizeof path);
        in = fopen(path, "r");
        if (in == NULL) {
            fclose(f);
            return hs_error_set(err, HS_ERR_IO, path, 0, 0,
                                "cannot read: %s", strerror(errno));
        }
        fprintf(f, "%s# %s\n", nblk ? "\n\n" : "", hs_phase_name(ph));
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, n, f);
        fclose(in);
        if (p->own_dir)
            unlink(path);
        if (hs__pl_defs(p, "%s\"%s%s\"", nblk ? " " : "", hs__pl_title[ph],
                        t->widened & (1u << ph)
                            ? " (drawn wider to be seen)"
                            : "") < 0)
            goto nomem;
        nblk++;
    }
    if ((rc = hs__pl_close(p, "events.dat", f, err)) != HS_OK)
        return rc;
    if (hs__pl_defs(p, "';colors='") < 0)
        goto nomem;
    for (k = 0, i = 0; k < HS_PH_COUNT; k++) {
        ph = hs__pl_order[k];
        if (t->present & (1u << ph))
            if (hs__pl_defs(p, "%s%s", i++ ? " " : "", hs__pl_color[ph]) < 0)
                goto nomem;
    }
    if (hs__pl_defs(p, "';nblk=%d;", nblk) < 0)
        goto nomem;
    *nblk_out = nblk;
    return HS_OK;
nomem:
    return hs_error_set(err, HS_ERR_NOMEM, NULL, 0, 0, "out of memory");
}

/* Writes lanes.dat: the labels of the shown devices' lanes (CPU, device,
   ring), in lane order, top to bottom. Fills err on failure. */
static hs_err_t hs__tl_lanes(hs__pl_t *p, const hs__tl_t *t, size_t shown,
                             hs_error_t *err)
{
    const hs_h5_run_t *r = t->run;
    FILE *f;
    uint32_t *of;
    size_t i;
    hs_err_t rc;

    if ((rc = hs__pl_open(p, "lanes.dat", &f, err)) != HS_OK)
        return rc;
    of = malloc(shown * sizeof *of);
    if (of == NULL) {
        fclose(f);
        return hs_error_set(err, HS_ERR_NOMEM, NULL, 0, 0, "out of memory");
    }
    for (i = 0; i < r->n_devices; i++)
        if (t->lane[i] >= 0)
            of[t->lane[i]] = (uint32_t)i;
    for (i = 0; i < shown; i++) {
        const hs_h5_device_t *d = &r->devices[of[i]];
        int base = HS__PL_LANES * (int)i;
        fprintf(f, "%d \"%s CPU\"\n%d \"%s (%s)\"\n%d \"%s ring\"\n",
                base, d->name, base + 1, d->name, d->type, base + 2,
                d->name);
    }
    free(of);
    return hs__pl_close(p, "lanes.dat", f, err);
}

/* The drawn steps' figures for the timeline's title. */
typedef struct {
    double sim;         /* sum over the steps of the slowest sim_ns */
    double closed;      /* the largest closed_ns of the drawn steps */
    size_t n;           /* the steps summed in sim */
} hs__tl_mean_t;

/* Writes marks.dat: each drawn step's start and the last one's end (one
   mark at 0 when there are no /steps rows), and gathers m for the title.
   Fills err on failure. */
static hs_err_t hs__tl_marks(hs__pl_t *p, const hs__tl_t *t,
                             uint32_t max_step, hs__tl_mean_t *m,
                             hs_error_t *err)
{
    const hs_h5_run_t *r = t->run;
    FILE *f;
    uint32_t s;
    int64_t end = INT64_MIN;
    int any = 0;
    size_t i;
    hs_err_t rc;

    if ((rc = hs__pl_open(p, "marks.dat", &f, err)) != HS_OK)
        return rc;
    for (s = t->first; s <= t->last && s <= max_step; s++) {
        int64_t st = INT64_MAX, smax = 0;
        for (i = 0; i < r->n_steps; i++) {
            const hs_step_rec_t *q = &r->steps[i];
            if (q->step != s || q->device >= r->n_devices)
                continue;
            if (q->start_ns < st)
                st = q->start_ns;
            if (q->end_ns > end)
                end = q->end_ns;
            if (q->sim_ns > smax)
                smax = q->sim_ns;
            if ((double)q->closed_ns > m->closed)
                m->closed = (double)q->closed_ns;
        }
        if (st != INT64_MAX) {   /* the cluster's step: the slowest */
            m->sim += (double)smax;
            m->n++;
        }
        if (st != INT64_MAX) {
            fprintf(f, "%.9g \"step %u\"\n",
                    (double)(st - t->origin) / t->unit, (unsigned)s);
            any = 1;
        }
        if (s == UINT32_MAX)
            break;
    }
    if (any && end != INT64_MIN)
        fprintf(f, "%.9g \"\"\n", (double)(end - t->origin) / t->unit);
    if (!any)   /* no /steps rows: one mark at 0 keeps the file valid */
        fprintf(f, "0 \"\"\n");
    return hs__pl_close(p, "marks.dat", f, err);
}

/* Adds the timeline's defs (data paths, time unit, sizes, title) and
   draws it with gnuplot into o->output. Fills err on failure. */
static hs_err_t hs__tl_draw(hs__pl_t *p, const hs__tl_t *t, size_t shown,
                            int nblk, const char *tunit,
                            const hs__tl_mean_t *m, hs_error_t *err)
{
    const hs_h5_run_t *r = t->run;
    char ev[4200], la[4200], ma[4200], title[512];
    int lanes_h = HS__PL_LANES * (int)shown;
    unsigned h;
    hs_err_t rc;

    hs__pl_path(p, "events.dat", ev, sizeof ev);
    hs__pl_path(p, "lanes.dat", la, sizeof la);
    hs__pl_path(p, "marks.dat", ma, sizeof ma);
    if (m->n > 0)
        snprintf(title, sizeof title,
                 "%s: steps %u-%u, %zu of %zu devices shown "
                 "(step: simulated %.4g %s, closed form max T(i) "
                 "%.4g %s)",
                 r->name[0] ? r->name : "hetsim step timeline",
                 (unsigned)t->first, (unsigned)t->last, shown,
                 r->n_devices, m->sim / (double)m->n / t->unit, tunit,
                 m->closed / t->unit, tunit);
    else
        snprintf(title, sizeof title,
                 "%s: steps %u-%u, %zu of %zu devices shown",
                 r->name[0] ? r->name : "hetsim step timeline",
                 (unsigned)t->first, (unsigned)t->last,
                 shown, r->n_devices);
    if (hs__pl_str(p, "ev", ev) < 0 || hs__pl_str(p, "lanes", la) < 0 ||
        hs__pl_str(p, "marks", ma) < 0 ||
        hs__pl_str(p, "tunit", strcmp(tunit, "us") == 0 ? "µs"
                                                         : tunit) < 0 ||
        hs__pl_defs(p, "ymax=%d;xmax=%.9g;borders=%d;", lanes_h - 1,
                    (double)(t->t_max - t->origin) / t->unit,
                    /* box borders show the rounds; with hundreds
                       of rounds they would paint the ring black */
                    (t->max_round + 1) * (int64_t)(t->last - t->first + 1)
                        <= 60) < 0)
        return hs_error_set(err, HS_ERR_NOMEM, NULL, 0, 0, "out of memory");
    /* the legend is one block right of the lanes: tall enough for
       its entries too */
    h = (unsigned)(150 + 22 * (lanes_h - 1));
    if (h < (unsigned)(110 + 17 * nblk))
        h = (unsigned)(110 + 17 * nblk);
    rc = hs__pl_common(p, 1280, h, title, err);
    if (rc == HS_OK)
        rc = hs__pl_run(p, "timeline", err);
    return rc;
}

/* Draws the step timeline of the trace o->input: per shown device its
   CPU, device and ring lanes over steps first..last, with step marks.
   Fills err on failure. */
static hs_err_t hs__pl_timeline(hs__pl_t *p, hs_error_t *err)
{
    const hs_plot_opts_t *o = p->o;
    hs_h5_run_t *r = NULL;
    hs__tl_t t;
    hs__tl_mean_t mean;
    hs_err_t rc;
    size_t shown, i, max_dev = o->max_devices ? o->max_devices : 12;
    uint32_t max_step = 0;
    int ph, nblk = 0;
    const char *tunit;

    memset(&t, 0, sizeof t);
    memset(&mean, 0, sizeof mean);
    rc = hs_h5_run_load(o->input, &r, err);
    if (rc != HS_OK)
        return rc;
    t.run = r;
    for (i = 0; i < r->n_steps; i++)
        if (r->steps[i].step > max_step)
            max_step = r->steps[i].step;
    t.first = o->first_step;
    t.last = o->last_step == UINT32_MAX ? o->first_step + 1 : o->last_step;
    if (r->n_steps > 0 && t.first > max_step) {
        rc = hs_error_set(err, HS_ERR_RANGE, o->input, 0, 0,
                          "step %u asked for, the trace has steps 0..%u",
                          (unsigned)t.first, (unsigned)max_step);
        goto done;
    }
    t.lane = malloc((r->n_devices ? r->n_devices : 1) * sizeof *t.lane);
    if (t.lane == NULL) {
        rc = hs_error_set(err, HS_ERR_NOMEM, NULL, 0, 0, "out of memory");
        goto done;
    }
    shown = hs__tl_choose(r, max_dev, t.first, t.last, t.lane);
    hs__tl_window(&t);
    rc = hs_h5_events_each(o->input, hs__tl_pass1, &t, err);
    if (rc != HS_OK)
        goto done;
    if (t.kept == 0 || shown == 0) {
        rc = hs_error_set(err, HS_ERR_TRACE, o->input, 0, 0,
                          "no intervals in steps %u..%u to draw",
                          (unsigned)t.first, (unsigned)t.last);
        goto done;
    }
    if (t.windowed) {
        t.t_min = t.win_lo;
        t.t_max = t.win_hi;
    }
    tunit = hs_plot_time_unit(t.t_max - t.t_min, &t.unit);
    t.origin = t.t_min;
    t.min_w = (t.t_max - t.t_min) / HS__PL_MIN_WIDTH_DIV;
    if ((rc = hs__tl_phase_files(p, &t, err)) != HS_OK ||
        (rc = hs__tl_join(p, &t, &nblk, err)) != HS_OK ||
        (rc = hs__tl_lanes(p, &t, shown, err)) != HS_OK ||
        (rc = hs__tl_marks(p, &t, max_step, &mean, err)) != HS_OK)
        goto done;
    rc = hs__tl_draw(p, &t, shown, nblk, tunit, &mean, err);
done:
    for (ph = 0; ph < HS_PH_COUNT; ph++)
        if (t.f[ph] != NULL)
            fclose(t.f[ph]);
    free(t.lane);
    hs_h5_run_free(r);
    return rc;
}

/* ---- closed form vs simulated, per type ---- */

/* The per-type figures of hs__pl_steps; the arrays are owned here and
   freed by hs__st_free. */
typedef struct {
    const hs_h5_run_t *r;
    size_t nt, nd;              /* device types, devices */
    uint32_t first, max_step, nsteps;
    double *dev_cl, *dev_n;     /* per device: sum and count of closed_ns */
    double *ty_cl, *ty_si;      /* per type: closed form, simulated */
    double *ndev;               /* per type: its devices */
    int64_t *tmax;   /* [type * nsteps + step], type nt = all */
    double cl_all, si_all;      /* the cluster's closed form, simulated */
} hs__st_t;

/* Frees st's arrays (not st, not the run it reads). */
static void hs__st_free(hs__st_t *st)
{
    free(st->dev_cl);
    free(st->dev_n);
    free(st->ty_cl);
    free(st->ty_si);
    free(st->ndev);
    free(st->tmax);
}

/* Fills st's sums from r's /steps rows (st's arrays allocated, zeroed):
   per type the slowest device's mean closed form and the mean over the
   steps of the longest sim_ns; the same for the whole cluster. */
static void hs__st_sums(hs__st_t *st)
{
    const hs_h5_run_t *r = st->r;
    size_t i, k, nd = st->nd, nt = st->nt;
    uint32_t s, nsteps = st->nsteps;

    for (i = 0; i < nd; i++)
        st->ndev[r->devices[i].type_index] += 1;
    for (i = 0; i < r->n_steps; i++) {
        const hs_step_rec_t *q = &r->steps[i];
        int64_t *a, *b;
        if (q->device >= nd || q->step < st->first)
            continue;
        k = r->devices[q->device].type_index;
        st->dev_cl[q->device] += (double)q->closed_ns;
        st->dev_n[q->device] += 1;
        a = &st->tmax[k * nsteps + q->step];
        b = &st->tmax[nt * nsteps + q->step];
        if (q->sim_ns > *a)
            *a = q->sim_ns;
        if (q->sim_ns > *b)
            *b = q->sim_ns;
    }
    for (i = 0; i < nd; i++) {
        double c = st->dev_n[i] > 0 ? st->dev_cl[i] / st->dev_n[i] : 0;
        k = r->devices[i].type_index;
        if (c > st->ty_cl[k])
            st->ty_cl[k] = c;
        if (c > st->cl_all)
            st->cl_all = c;
    }
    for (k = 0; k <= nt; k++) {
        double sum = 0;
        for (s = st->first; s <= st->max_step; s++)
            sum += (double)st->tmax[k * nsteps + s];
        sum /= (double)(st->max_step - st->first + 1);
        if (k < nt)
            st->ty_si[k] = sum;
        else
            st->si_all = sum;
    }
}

/* Writes steps.dat (per type and for the cluster: closed form and
   simulated, in the unit *tunit picks for the largest) and sets *tunit
   (static text). Fills err on failure. */
static hs_err_t hs__st_write(hs__pl_t *p, const hs__st_t *st,
                             const char **tunit, hs_error_t *err)
{
    const hs_h5_run_t *r = st->r;
    double vmax = 0, unit;
    size_t i, k;
    FILE *f = NULL;
    hs_err_t rc;

    for (k = 0; k < st->nt; k++) {
        if (st->ty_cl[k] > vmax)
            vmax = st->ty_cl[k];
        if (st->ty_si[k] > vmax)
            vmax = st->ty_si[k];
    }
    if (st->cl_all > vmax)
        vmax = st->cl_all;
    if (st->si_all > vmax)
        vmax = st->si_all;
    *tunit = hs_plot_time_unit((int64_t)vmax, &unit);
    if ((rc = hs__pl_open(p, "steps.dat", &f, err)) != HS_OK)
        return rc;
    fprintf(f, "# label closed sim (%s)\n", *tunit);
    for (k = 0; k < st->nt; k++) {
        const char *tn = "?";
        if (st->ndev[k] == 0)
            continue;
        for (i = 0; i < st->nd; i++)
            if (r->devices[i].type_index == k) {
                tn = r->devices[i].type;
                break;
            }
        fprintf(f, "\"%s (%.0f devices)\" %.9g %.9g\n", tn, st->ndev[k],
                st->ty_cl[k] / unit, st->ty_si[k] / unit);
    }
    fprintf(f, "\"cluster\" %.9g %.9g\n", st->cl_all / unit,
            st->si_all / unit);
    return hs__pl_close(p, "steps.dat", f, err);
}

/*
 * Per type: the closed form's T(i) of its slowest device (each device's
 * T(i) averaged over the steps), and the simulated step of the type (per
 * step the longest sim_ns among its devices, averaged over the steps); the
 * cluster: max_i T(i) and per step the longest sim_ns of all.  Step 0 is
 * left out when there are more (it starts with loading the first batch),
 * as the replay's summary does.
 */
static hs_err_t hs__pl_steps(hs__pl_t *p, hs_error_t *err)
{
    const hs_plot_opts_t *o = p->o;
    hs_h5_run_t *r = NULL;
    hs__st_t st;
    hs_err_t rc;
    size_t i, nt = 0, nd;
    const char *tunit;
    char dat[4200];

    memset(&st, 0, sizeof st);
    rc = hs_h5_run_load(o->input, &r, err);
    if (rc != HS_OK)
        return rc;
    if (r->n_steps == 0) {
        rc = hs_error_set(err, HS_ERR_TRACE, o->input, 0, 0,
                          "the trace has no /steps rows");
        goto done;
    }
    st.r = r;
    nd = st.nd = r->n_devices;
    for (i = 0; i < nd; i++)
        if (r->devices[i].type_index + 1 > nt)
            nt = r->devices[i].type_index + 1;
    st.nt = nt;
    for (i = 0; i < r->n_steps; i++)
        if (r->steps[i].step > st.max_step)
            st.max_step = r->steps[i].step;
    st.first = st.max_step > 0 ? 1 : 0;
    st.nsteps = st.max_step + 1;
    st.dev_cl = calloc(nd + 1, sizeof *st.dev_cl);
    st.dev_n = calloc(nd + 1, sizeof *st.dev_n);
    st.ty_cl = calloc(nt + 1, sizeof *st.ty_cl);
    st.ty_si = calloc(nt + 1, sizeof *st.ty_si);
    st.ndev = calloc(nt + 1, sizeof *st.ndev);
    st.tmax = calloc((nt + 1) * (size_t)st.nsteps, sizeof *st.tmax);
    if (!st.dev_cl || !st.dev_n || !st.ty_cl || !st.ty_si || !st.ndev ||
        !st.tmax) {
        rc = hs_error_set(err, HS_ERR_NOMEM, NULL, 0, 0, "out of memory");
        goto done;
    }
    hs__st_sums(&st);
    if ((rc = hs__st_write(p, &st, &tunit, err)) != HS_OK)
        goto done;
    hs__pl_path(p, "steps.dat", dat, sizeof dat);
    if (hs__pl_str(p, "dat", dat) < 0 ||
        hs__pl_str(p, "tunit", strcmp(tunit, "us") == 0 ? "µs" : tunit) <
            0) {
        rc = hs_error_set(err, HS_ERR_NOMEM, NULL, 0, 0, "out of memory");
        goto done;
    }
    {
        char title[512];
        snprintf(title, sizeof title,
                 "%s: step time per device type, closed form vs replay "
                 "(%zu devices, steps %u-%u)",
                 r->name[0] ? r->name : "hetsim", nd, (unsigned)st.first,
                 (unsigned)st.max_step);
        rc = hs__pl_common(p, 1100, 520, title, err);
    }
    if (rc == HS_OK)
        rc = hs__pl_run(p, "steps", err);
done:
    hs__st_free(&st);
    hs_h5_run_free(r);
    return rc;
}

/* ---- a sweep: a time against a varied key (hs_sweep_out.h) ---- */

static hs_err_t hs__pl_sweep(hs__pl_t *p, hs_error_t *err)
{
    const hs_plot_opts_t *o = p->o;
    hs_sweep_table_t *t = NULL;
    hs_sweep_plot_info_t info;
    FILE *f = NULL;
    char dat[4200], title[600], var[32];
    const char *fig = o->sweep_figure ? o->sweep_figure : "step";
    int legacy;
    size_t i;
    hs_err_t rc;

    memset(&info, 0, sizeof info);
    rc = hs_sweep_table_read(o->input, &t, err);
    if (rc != HS_OK)
        return rc;
    if ((rc = hs__pl_open(p, "sweep.dat", &f, err)) != HS_OK)
        goto done;
    rc = hs_sweep_plot_data(t, o->sweep_x, o->sweep_by, fig, f, &info, err);
    if (rc != HS_OK) {
        char m[HS_ERRMSG_LEN];
        snprintf(m, sizeof m, "%s", err ? err->msg : "");
        hs__pl_close(p, "sweep.dat", f, NULL);
        rc = hs_error_set(err, rc, o->input, 0, 0, "%s", m);
        goto done;
    }
    rc = hs__pl_close(p, "sweep.dat", f, err);
    if (rc != HS_OK)
        goto done;
    /* the older n,closed_ns,sim_ns file: step time against N */
    legacy = t->n_keys == 1 && strcmp(t->keys[0], "n") == 0;
    snprintf(title, sizeof title, "%s time against %s", fig,
             legacy ? "the number of devices N" : info.xlabel);
    hs__pl_path(p, "sweep.dat", dat, sizeof dat);
    if (hs__pl_str(p, "dat", dat) < 0 ||
        hs__pl_str(p, "tunit", strcmp(info.tunit, "us") == 0 ? "µs"
                                                             : info.tunit) <
            0 ||
        hs__pl_str(p, "fig", fig) < 0 ||
        hs__pl_str(p, "xlab", legacy ? "devices in the ring (N)"
                                     : info.xlabel) < 0 ||
        hs__pl_str(p, "fixed", info.fixed) < 0 ||
        hs__pl_defs(p, "nser=%zu;replay=%d;numx=%d;logx=%d;xlo=%.9g;"
                    "xhi=%.9g;intx=%d;", info.n_series, info.has_replay,
                    info.x_numeric, info.logx, info.xlo, info.xhi,
                    info.x_integer || legacy) < 0) {
        rc = hs_error_set(err, HS_ERR_NOMEM, NULL, 0, 0, "out of memory");
        goto done;
    }
    for (i = 0; i < info.n_series; i++) {
        snprintf(var, sizeof var, "s%zu", i);
        if (hs__pl_str(p, var, info.series[i]) < 0) {
            rc = hs_error_set(err, HS_ERR_NOMEM, NULL, 0, 0,
                              "out of memory");
            goto done;
        }
    }
    rc = hs__pl_common(p, 900, 520, title, err);
    if (rc == HS_OK)
        rc = hs__pl_run(p, "sweep", err);
done:
    hs_sweep_plot_info_clear(&info);
    hs_sweep_table_free(t);
    return rc;
}

hs_err_t hs_plot(const hs_plot_opts_t *o, hs_error_t *err)
{
    hs__pl_t p;
    hs_err_t rc;

    if (o->input == NULL || o->output == NULL)
        return hs_error_set(err, HS_ERR_USAGE, NULL, 0, 0,
                            "an input file and an output file are needed");
    if (hs__pl_term(o->output) == NULL)
        return hs_error_set(err, HS_ERR_USAGE, o->output, 0, 0,
                            "the output must end in .png, .svg or .pdf");
    if (o->last_step != UINT32_MAX && o->last_step < o->first_step)
        return hs_error_set(err, HS_ERR_USAGE, NULL, 0, 0,
                            "steps %u-%u: the last is before the first",
                            (unsigned)o->first_step,
                            (unsigned)o->last_step);
    rc = hs__pl_setup(&p, o, err);
    if (rc != HS_OK)
        return rc;
    switch (o->kind) {
    case HS_PLOT_TIMELINE:
        rc = hs__pl_timeline(&p, err);
        break;
    case HS_PLOT_STEPS:
        rc = hs__pl_steps(&p, err);
        break;
    case HS_PLOT_SWEEP:
        rc = hs__pl_sweep(&p, err);
        break;
    default:
        rc = hs_error_set(err, HS_ERR_USAGE, NULL, 0, 0,
                          "unknown plot kind %d", (int)o->kind);
    }
    hs__pl_cleanup(&p);
    return rc;
}
