/*
 * test_plot.c -- `hetsim plot`: gnuplot draws PNGs of the asked size (read
 * from the IHDR chunk) and SVGs for the three kinds; the data files hold
 * exactly the intervals of the drawn steps and devices; a large ring is
 * drawn per type (slowest and fastest device only); without gnuplot the
 * command says so and exits 4, leaving no file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_h5.h"
#include "hs_plot.h"
#include "hs_synth.h"
#include "hs_test.h"

static const hs_synth_type_t hs__types[2] = {
    {"A100", 30000000, 40000000, 1500000, 60000000, 3000000},
    {"MLU370", 20000000, 55000000, 2500000, 80000000, 4000000}};

/* 1 when gnuplot is on PATH. */
static int hs__have_gnuplot(void)
{
    const char *path = getenv("PATH");
    char buf[4096], *save = NULL, *dir, *copy;
    int found = 0;

    if (path == NULL)
        return 0;
    copy = strdup(path);
    for (dir = strtok_r(copy, ":", &save); dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        snprintf(buf, sizeof buf, "%s/gnuplot", dir);
        found = access(buf, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* Writes a synthetic trace of n devices of the 2 types ty; device d's
   closed form is offset by d us so that per type one device is the
   slowest. */
static void hs__trace_of(const char *path, size_t n, uint32_t steps,
                         const hs_synth_type_t *ty, hs_synth_run_t *r)
{
    hs_scenario_t *s = hs_synth_scenario(n, ty, 2, "name: plot\n");
    hs_h5_writer_t *w;
    hs_trace_sink_t sink;
    hs_error_t err;
    size_t i;

    hs_synth_run(s, ty, steps, r);
    for (i = 0; i < r->n_st; i++)
        r->st[i].closed_ns += 1000 * (int64_t)r->st[i].device;
    CU_ASSERT_FATAL(hs_h5_writer_open(path, s, &w, &sink, &err) == HS_OK);
    CU_ASSERT(sink.write(sink.ctx, r->iv, r->n, &err) == HS_OK);
    CU_ASSERT(sink.steps(sink.ctx, r->st, r->n_st, &err) == HS_OK);
    CU_ASSERT_FATAL(hs_h5_writer_close(w, 1, &err) == HS_OK);
    hs_synth_scenario_free(s);
}

static void hs__trace(const char *path, size_t n, uint32_t steps,
                      hs_synth_run_t *r)
{
    hs__trace_of(path, n, steps, hs__types, r);
}

static size_t hs__count_lines(const char *path, const char *skip_prefix)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t n = 0;

    if (f == NULL)
        return (size_t)-1;
    while (fgets(line, sizeof line, f) != NULL)
        if (line[0] != '\n' && (skip_prefix == NULL ||
                                strncmp(line, skip_prefix,
                                        strlen(skip_prefix)) != 0))
            n++;
    fclose(f);
    return n;
}

static void test_png_size_reader(void)
{
    /* a hand-made PNG header: 8-byte signature, IHDR of 640 x 480 */
    static const unsigned char png[33] = {
        0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
        'I', 'H', 'D', 'R', 0, 0, 2, 0x80, 0, 0, 1, 0xe0, 8, 2, 0, 0, 0,
        0, 0, 0, 0};
    const char *dir = hs_test_tmpdir("plot");
    char path[4200];
    FILE *f;
    uint32_t w = 0, h = 0;
    hs_error_t err;
    double u;

    snprintf(path, sizeof path, "%s/hand.png", dir);
    f = fopen(path, "wb");
    fwrite(png, 1, sizeof png, f);
    fclose(f);
    CU_ASSERT(hs_plot_png_size(path, &w, &h, &err) == HS_OK);
    HS_ASSERT_I64_EQ(w, 640);
    HS_ASSERT_I64_EQ(h, 480);
    f = fopen(path, "wb");
    fputs("GIF89a not a png at all......", f);
    fclose(f);
    CU_ASSERT(hs_plot_png_size(path, &w, &h, &err) == HS_ERR_SYNTAX);
    CU_ASSERT(strcmp(hs_plot_time_unit(1500, &u), "ns") == 0 && u == 1);
    CU_ASSERT(strcmp(hs_plot_time_unit(150000, &u), "us") == 0 && u == 1e3);
    CU_ASSERT(strcmp(hs_plot_time_unit(150000000, &u), "ms") == 0);
    CU_ASSERT(strcmp(hs_plot_time_unit(INT64_C(15000000000), &u), "s") ==
              0);
}

static void test_timeline_png(void)
{
    const char *dir;
    char h5[4200], png[4200], svg[4200], keep[4200], ev[4300], la[4300];
    hs_synth_run_t r;
    hs_run_t out;
    hs_error_t err;
    uint32_t w = 0, h = 0;
    size_t i, want = 0;
    char *text;

    if (!hs__have_gnuplot()) {
        hs_test_skip("timeline_png", "gnuplot is not installed");
        return;
    }
    dir = hs_test_tmpdir("plot");
    snprintf(h5, sizeof h5, "%s/run4.h5", dir);
    snprintf(png, sizeof png, "%s/timeline.png", dir);
    snprintf(svg, sizeof svg, "%s/timeline.svg", dir);
    snprintf(keep, sizeof keep, "%s/keep4", dir);
    mkdir(keep, 0755);
    hs__trace(h5, 4, 5, &r);

    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "-o", png, "--size",
                                  "800x600", "--keep-data", keep,
                                  NULL) == 0);
    if (out.status != 0)
        fprintf(stderr, "%s%s", out.out, out.err);
    HS_ASSERT_I64_EQ(out.status, 0);
    hs_run_free(&out);
    CU_ASSERT(hs_plot_png_size(png, &w, &h, &err) == HS_OK);
    HS_ASSERT_I64_EQ(w, 800);
    HS_ASSERT_I64_EQ(h, 600);
    /* the data: every interval of steps 0-1 of the 4 devices, 12 lanes */
    for (i = 0; i < r.n; i++)
        want += r.iv[i].step <= 1;
    snprintf(ev, sizeof ev, "%s/events.dat", keep);
    snprintf(la, sizeof la, "%s/lanes.dat", keep);
    HS_ASSERT_I64_EQ(hs__count_lines(ev, "#"), want);
    HS_ASSERT_I64_EQ(hs__count_lines(la, NULL), 12);
    text = hs_test_slurp(la);
    HS_ASSERT_STR_CONTAINS(text, "\"A100-0 CPU\"");
    HS_ASSERT_STR_CONTAINS(text, "\"MLU370-1 (MLU370)\"");
    HS_ASSERT_STR_CONTAINS(text, "\"A100-1 ring\"");
    /* ring order: the synthetic ring reverses the listing, so device 3
       (MLU370-1) is drawn first */
    CU_ASSERT(text != NULL && strncmp(text, "0 \"MLU370-1 CPU\"", 16) == 0);
    free(text);

    /* the default size, and svg by extension */
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "-o", png, "--steps",
                                  "2-4", NULL) == 0);
    HS_ASSERT_I64_EQ(out.status, 0);
    hs_run_free(&out);
    CU_ASSERT(hs_plot_png_size(png, &w, &h, &err) == HS_OK);
    HS_ASSERT_I64_EQ(w, 1280);
    CU_ASSERT(h >= 300);
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "-o", svg, NULL) == 0);
    HS_ASSERT_I64_EQ(out.status, 0);
    hs_run_free(&out);
    text = hs_test_slurp(svg);
    HS_ASSERT_STR_CONTAINS(text, "<svg");
    HS_ASSERT_STR_CONTAINS(text, "ring all-reduce: send");
    free(text);

    /* bad requests: exit 2 and no file */
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "-o", "x.gif",
                                  NULL) == 0);
    HS_ASSERT_I64_EQ(out.status, 2);
    hs_run_free(&out);
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "-o", png, "--steps",
                                  "9", NULL) == 0);
    HS_ASSERT_I64_EQ(out.status, 2);
    HS_ASSERT_STR_CONTAINS(out.err, "steps 0..4");
    hs_run_free(&out);
    hs_synth_run_free(&r);
}

static void test_large_ring_per_type(void)
{
    const char *dir;
    char h5[4200], png[4200], keep[4200], la[4300];
    hs_synth_run_t r;
    hs_run_t out;
    hs_error_t err;
    uint32_t w, h;
    char *text;

    if (!hs__have_gnuplot()) {
        hs_test_skip("large_ring_per_type", "gnuplot is not installed");
        return;
    }
    dir = hs_test_tmpdir("plot");
    snprintf(h5, sizeof h5, "%s/run40.h5", dir);
    snprintf(png, sizeof png, "%s/large.png", dir);
    snprintf(keep, sizeof keep, "%s/keep40", dir);
    mkdir(keep, 0755);
    hs__trace(h5, 40, 2, &r);
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "-o", png,
                                  "--keep-data", keep, NULL) == 0);
    if (out.status != 0)
        fprintf(stderr, "%s%s", out.out, out.err);
    HS_ASSERT_I64_EQ(out.status, 0);
    hs_run_free(&out);
    snprintf(la, sizeof la, "%s/lanes.dat", keep);
    /* 2 types x (slowest, fastest) = 4 devices, 3 lanes each */
    HS_ASSERT_I64_EQ(hs__count_lines(la, NULL), 12);
    text = hs_test_slurp(la);
    /* closed form grows with the index: per type the last is slowest,
       the first fastest (A100 = even ids 0..38, MLU370 = odd 1..39) */
    HS_ASSERT_STR_CONTAINS(text, "\"A100-0 CPU\"");
    HS_ASSERT_STR_CONTAINS(text, "\"A100-19 CPU\"");
    HS_ASSERT_STR_CONTAINS(text, "\"MLU370-0 CPU\"");
    HS_ASSERT_STR_CONTAINS(text, "\"MLU370-19 CPU\"");
    CU_ASSERT(text == NULL || strstr(text, "A100-1 ") == NULL);
    free(text);
    CU_ASSERT(hs_plot_png_size(png, &w, &h, &err) == HS_OK);
    CU_ASSERT(w == 1280 && h < 1000);
    hs_synth_run_free(&r);
}

static void test_steps_and_sweep(void)
{
    const char *dir;
    char h5[4200], png[4200], csv[4200], keep[4200], dat[4300];
    hs_synth_run_t r;
    hs_run_t out;
    hs_error_t err;
    uint32_t w = 0, h = 0;
    char *text;

    if (!hs__have_gnuplot()) {
        hs_test_skip("steps_and_sweep", "gnuplot is not installed");
        return;
    }
    dir = hs_test_tmpdir("plot");
    snprintf(h5, sizeof h5, "%s/run6.h5", dir);
    snprintf(png, sizeof png, "%s/bars.png", dir);
    snprintf(keep, sizeof keep, "%s/keepbars", dir);
    mkdir(keep, 0755);
    hs__trace(h5, 6, 3, &r);
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "--kind", "steps", "-o",
                                  png, "--keep-data", keep, NULL) == 0);
    if (out.status != 0)
        fprintf(stderr, "%s%s", out.out, out.err);
    HS_ASSERT_I64_EQ(out.status, 0);
    hs_run_free(&out);
    CU_ASSERT(hs_plot_png_size(png, &w, &h, &err) == HS_OK);
    HS_ASSERT_I64_EQ(w, 1100);
    HS_ASSERT_I64_EQ(h, 520);
    /* A100 devices 0, 2, 4: T(i) = max(dl, fwd + b1 + 10 x xfer) + i us,
       the type's slowest is device 4: 71.5 ms + 4 us; MLU370's is device
       5: 97.5 ms + 5 us.  The synthetic step is the later of the ring's
       end (57.5 + 10 x 4 = 97.5 ms) and MLU370's backward end
       (55 + 2.5 + 80 = 137.5 ms), for every device */
    snprintf(dat, sizeof dat, "%s/steps.dat", keep);
    text = hs_test_slurp(dat);
    HS_ASSERT_STR_CONTAINS(text, "\"A100 (3 devices)\" 71.504 137.5\n");
    HS_ASSERT_STR_CONTAINS(text, "\"MLU370 (3 devices)\" 97.505 137.5\n");
    HS_ASSERT_STR_CONTAINS(text, "\"cluster\" 97.505 137.5\n");
    free(text);

    snprintf(csv, sizeof csv, "%s/sweep.csv", dir);
    hs_test_write(csv, "# made by hand\nn,closed_ns,sim_ns\n2,100000000,101000000\n"
          "4,120000000,125000000\n8,160000000,170000000\n");
    snprintf(png, sizeof png, "%s/sweep.png", dir);
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", "--kind", "sweep", csv,
                                  "-o", png, "--size", "640x480",
                                  NULL) == 0);
    if (out.status != 0)
        fprintf(stderr, "%s%s", out.out, out.err);
    HS_ASSERT_I64_EQ(out.status, 0);
    hs_run_free(&out);
    CU_ASSERT(hs_plot_png_size(png, &w, &h, &err) == HS_OK);
    HS_ASSERT_I64_EQ(w, 640);
    HS_ASSERT_I64_EQ(h, 480);
    /* a malformed CSV: file:line and exit 2 */
    hs_test_write(csv, "n,closed_ns,sim_ns\n2,1e8,abc\n");
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", "--kind", "sweep", csv,
                                  "-o", png, NULL) == 0);
    HS_ASSERT_I64_EQ(out.status, 2);
    HS_ASSERT_STR_CONTAINS(out.err, "sweep.csv:2:");
    hs_run_free(&out);
    hs_synth_run_free(&r);
}

/*
 * A first backward op of 50 us in a 2-step window of about 270 ms: drawn
 * at the least width (the window / 250), its end kept, and its legend
 * entry says so; the phases wide enough keep their true extent.
 */
static void test_min_width(void)
{
    static const hs_synth_type_t tiny[2] = {
        {"A100", 30000000, 40000000, 50000, 60000000, 3000000},
        {"MLU370", 20000000, 55000000, 90000, 80000000, 4000000}};
    const char *dir;
    char h5[4200], png[4200], keep[4200], path[4300], line[512];
    hs_synth_run_t r;
    hs_run_t out;
    FILE *f;
    double x_lo = 1e300, x_hi = -1e300, min_w;
    int block = -1, n_b1 = 0, n_fwd = 0, ok_b1 = 1, ok_fwd = 1;
    char *text;

    if (!hs__have_gnuplot()) {
        hs_test_skip("min_width", "gnuplot is not installed");
        return;
    }
    dir = hs_test_tmpdir("plot");
    snprintf(h5, sizeof h5, "%s/tiny.h5", dir);
    snprintf(png, sizeof png, "%s/tiny.png", dir);
    snprintf(keep, sizeof keep, "%s/keeptiny", dir);
    mkdir(keep, 0755);
    hs__trace_of(h5, 4, 4, tiny, &r);
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "-o", png, "--steps",
                                  "1-2", "--keep-data", keep, NULL) == 0);
    if (out.status != 0)
        fprintf(stderr, "%s%s", out.out, out.err);
    HS_ASSERT_I64_EQ(out.status, 0);
    hs_run_free(&out);
    /* the window: the extent of everything drawn (x from 0) */
    snprintf(path, sizeof path, "%s/events.dat", keep);
    f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    while (fgets(line, sizeof line, f) != NULL) {
        double a, b;
        if (sscanf(line, "%lf %lf", &a, &b) == 2) {
            x_lo = a < x_lo ? a : x_lo;
            x_hi = b > x_hi ? b : x_hi;
        }
    }
    rewind(f);
    min_w = (x_hi - x_lo) / 250.0;
    CU_ASSERT(x_lo == 0.0);
    /* per block: forward 40 or 55 ms wide as is; the first backward op
       (true width 0.05 or 0.09 ms) at least min_w, a little over 1 ms */
    CU_ASSERT(min_w > 1.0 && min_w < 1.2);
    while (fgets(line, sizeof line, f) != NULL) {
        double a, b;
        if (strncmp(line, "# ", 2) == 0) {
            block = strncmp(line, "# forward", 9) == 0        ? 1
                    : strncmp(line, "# backward_first", 16) == 0 ? 2
                                                                 : 0;
            continue;
        }
        if (sscanf(line, "%lf %lf", &a, &b) != 2)
            continue;
        if (block == 2) {
            n_b1++;
            ok_b1 &= b - a >= min_w * 0.999 && b - a < min_w * 1.001;
        } else if (block == 1) {
            n_fwd++;
            ok_fwd &= (b - a > 39.999 && b - a < 40.001) ||
                      (b - a > 54.999 && b - a < 55.001) || a == 0.0 ||
                      b == x_hi;
        }
    }
    fclose(f);
    CU_ASSERT(n_b1 >= 8);
    CU_ASSERT(n_fwd >= 8);
    CU_ASSERT(ok_b1);
    CU_ASSERT(ok_fwd);
    snprintf(path, sizeof path, "%s/gnuplot-command.txt", keep);
    text = hs_test_slurp(path);
    HS_ASSERT_STR_CONTAINS(text, "\"backward, first op (drawn wider to be "
                                 "seen)\"");
    HS_ASSERT_STR_CONTAINS(text, "\"forward\"");
    free(text);
    hs_synth_run_free(&r);
}

/* A sweep over a count gets whole-number ticks (intx=1), one over a
   duration does not. */
static void test_sweep_integer_axis(void)
{
    static const struct {
        const char *vary, *want;
    } cases[] = {{"device_types.A100.count=50,60,70", "intx=1;"},
                 {"job.epochs=1,2,3", "intx=1;"},
                 {"network.latency=0us,5us,10us", "intx=0;"}};
    const char *dir;
    char csv[4200], png[4200], keep[4200], path[4300];
    size_t i;

    if (!hs__have_gnuplot()) {
        hs_test_skip("sweep_integer_axis", "gnuplot is not installed");
        return;
    }
    dir = hs_test_tmpdir("plot");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hs_run_t out;
        char *text;
        snprintf(csv, sizeof csv, "%s/intx%zu.csv", dir, i);
        snprintf(png, sizeof png, "%s/intx%zu.png", dir, i);
        snprintf(keep, sizeof keep, "%s/keepintx%zu", dir, i);
        mkdir(keep, 0755);
        CU_ASSERT_FATAL(hs_run_hetsim(&out, "sweep", "--vary", cases[i].vary,
                                      "-o", csv, NULL) == 0);
        HS_ASSERT_I64_EQ(out.status, 0);
        hs_run_free(&out);
        CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", "--kind", "sweep", csv,
                                      "-o", png, "--keep-data", keep,
                                      NULL) == 0);
        HS_ASSERT_I64_EQ(out.status, 0);
        hs_run_free(&out);
        snprintf(path, sizeof path, "%s/gnuplot-command.txt", keep);
        text = hs_test_slurp(path);
        HS_ASSERT_STR_CONTAINS(text, cases[i].want);
        free(text);
    }
}

/* gnuplot missing: a clear message, exit status 4, no output file. */
static void test_no_gnuplot(void)
{
    const char *dir = hs_test_tmpdir("plot");
    char h5[4200], png[4200], empty[4200];
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    hs_synth_run_t r;
    hs_run_t out;
    struct stat sb;

    snprintf(h5, sizeof h5, "%s/run-nognuplot.h5", dir);
    snprintf(png, sizeof png, "%s/nognuplot.png", dir);
    snprintf(empty, sizeof empty, "%s/empty-bin", dir);
    mkdir(empty, 0755);
    unlink(png);
    hs__trace(h5, 3, 2, &r);
    setenv("PATH", empty, 1);
    unsetenv("HETSIM_GNUPLOT");
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "-o", png, NULL) == 0);
    if (saved != NULL)
        setenv("PATH", saved, 1);
    free(saved);
    HS_ASSERT_I64_EQ(out.status, 4);
    HS_ASSERT_STR_CONTAINS(out.err, "gnuplot is not installed");
    CU_ASSERT(stat(png, &sb) != 0 && errno == ENOENT);
    hs_run_free(&out);
    /* a gnuplot that fails: exit 4 with its status, no file */
    setenv("HETSIM_GNUPLOT", "/bin/false", 1);
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "-o", png, NULL) == 0);
    unsetenv("HETSIM_GNUPLOT");
    HS_ASSERT_I64_EQ(out.status, 4);
    HS_ASSERT_STR_CONTAINS(out.err, "gnuplot failed");
    CU_ASSERT(stat(png, &sb) != 0 && errno == ENOENT);
    hs_run_free(&out);
    /* --help works without gnuplot too */
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", "--help", NULL) == 0);
    HS_ASSERT_I64_EQ(out.status, 0);
    HS_ASSERT_STR_CONTAINS(out.out, "--kind timeline|steps|sweep");
    hs_run_free(&out);
    hs_synth_run_free(&r);
}

/* End to end on a real replay: the figure-3 scenario, simulated and
   drawn as in the README. */
static void test_simulate_and_plot(void)
{
    const char *dir;
    char scn[4096], h5[4200], png[4200];
    hs_run_t out;
    hs_error_t err;
    uint32_t w = 0, h = 0;

    if (!hs__have_gnuplot()) {
        hs_test_skip("simulate_and_plot", "gnuplot is not installed");
        return;
    }
    dir = hs_test_tmpdir("plot");
    snprintf(scn, sizeof scn, "%s/scenarios/fig3-compute-bound.yaml",
             HS_TEST_SRC);
    snprintf(h5, sizeof h5, "%s/fig3.h5", dir);
    snprintf(png, sizeof png, "%s/fig3.png", dir);
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "simulate", scn, "--h5", h5,
                                  NULL) == 0);
    HS_ASSERT_I64_EQ(out.status, 0);
    hs_run_free(&out);
    CU_ASSERT_FATAL(hs_run_hetsim(&out, "plot", h5, "-o", png, "--steps",
                                  "1-2", NULL) == 0);
    if (out.status != 0)
        fprintf(stderr, "%s%s", out.out, out.err);
    HS_ASSERT_I64_EQ(out.status, 0);
    hs_run_free(&out);
    CU_ASSERT(hs_plot_png_size(png, &w, &h, &err) == HS_OK);
    HS_ASSERT_I64_EQ(w, 1280);
    CU_ASSERT(h > 300 && h < 800);
}

static int hs__register(void)
{
    CU_pSuite su = CU_add_suite("plot", NULL, NULL);

    if (su == NULL)
        return -1;
    CU_add_test(su, "png_size_reader", test_png_size_reader);
    CU_add_test(su, "timeline_png", test_timeline_png);
    CU_add_test(su, "large_ring_per_type", test_large_ring_per_type);
    CU_add_test(su, "steps_and_sweep", test_steps_and_sweep);
    CU_add_test(su, "no_gnuplot", test_no_gnuplot);
    CU_add_test(su, "min_width", test_min_width);
    CU_add_test(su, "sweep_integer_axis", test_sweep_integer_axis);
    CU_add_test(su, "simulate_and_plot", test_simulate_and_plot);
    return 0;
}

HS_TEST_MAIN(hs__register)
