/*
 * test_outputs.c -- every writer of the CLI (simulate --h5 and --chrome,
 * sweep -o as CSV, JSON and HDF5, ingest -o, advise -o, plot -o) against
 * targets it must not replace and file systems that fill up:
 *
 *  - a FIFO, a character device (made with mknod as root), a directory and
 *    a symbolic link as the target: exit 3, a message saying what the
 *    target is, and the target still what it was;
 *  - "-": standard output for the text writers (the Chrome trace arrives
 *    on stdout), refused with exit 3 for the HDF5 writers and the plot;
 *  - a small tmpfs mounted for the test, filled to the last page or left
 *    with room for only part of the file: exit 3 (never a signal), and no
 *    temporary file left on it.  The tmpfs is always unmounted;
 *  - plot --keep-data into a folder holding a planted symbolic link: not
 *    written through (exit 3, the link's target unchanged).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hs_test.h"

#define DATA HS_TEST_SRC "/tests/data/ingest/"
#define SCEN HS_TEST_SRC "/scenarios/validate-divergent.yaml"

/* The writers, each as argv with "@" where the output path goes. */
typedef struct hs__writer_s {
    const char *name;
    int path_only;          /* writes by path: "-" is refused */
    const char *argv[12];
} hs__writer_t;

static const hs__writer_t hs__writers[] = {
    {"simulate --h5", 1, {"simulate", SCEN, "--steps", "400", "--h5", "@",
                          NULL}},
    {"simulate --chrome", 0, {"simulate", SCEN, "--steps", "400",
                              "--chrome", "@", NULL}},
    {"sweep csv", 0, {"sweep", SCEN, "--vary", "job.epochs=1..400:1",
                      "--format", "csv", "-o", "@", NULL}},
    {"sweep json", 0, {"sweep", SCEN, "--vary", "job.epochs=1..400:1",
                       "--format", "json", "-o", "@", NULL}},
    {"sweep h5", 1, {"sweep", SCEN, "--vary", "job.epochs=1..4000:1",
                     "--format", "h5", "-o", "@", NULL}},
    {"ingest", 0, {"ingest", "--type", "cpu", "--sidecar",
                   DATA "legacy.sidecar.json", DATA "legacy-rank0.json.gz",
                   DATA "legacy-rank1.json.gz", "-o", "@", NULL}},
    {"advise ring", 0, {"advise", "ring", SCEN, "-o", "@", NULL}},
};
#define HS__N_WRITERS (sizeof hs__writers / sizeof hs__writers[0])

/* Runs writer w with its output at `out` (with extension ext appended
   unless out is "-"). */
static int hs__run_writer(const hs__writer_t *w, const char *out,
                          const char *ext, hs_run_t *r)
{
    char *argv[16], path[1024];
    size_t i, k = 0;

    if (strcmp(out, "-") == 0)
        snprintf(path, sizeof path, "-");
    else
        snprintf(path, sizeof path, "%s%s", out, ext);
    argv[k++] = HS_TEST_BIN;
    for (i = 0; w->argv[i] != NULL; i++)
        argv[k++] = strcmp(w->argv[i], "@") == 0 ? path
                                                 : (char *)w->argv[i];
    argv[k] = NULL;
    return hs_run(argv, r);
}

/* The extension each writer wants (by its name). */
static const char *hs__ext(const hs__writer_t *w)
{
    if (strstr(w->name, "h5") != NULL)
        return ".h5";
    if (strstr(w->name, "csv") != NULL)
        return ".csv";
    if (strstr(w->name, "json") != NULL || strstr(w->name, "chrome"))
        return ".json";
    return ".yaml";
}

static void test_special_targets(void)
{
    const char *dir = hs_test_tmpdir("outputs-special");
    static const char *kinds[] = {"fifo", "chardev", "dir", "symlink"};
    size_t i, k;

    if (!hs_test_require_root("special_targets (mknod)"))
        return;
    for (k = 0; k < 4; k++) {
        for (i = 0; i < HS__N_WRITERS; i++) {
            const hs__writer_t *w = &hs__writers[i];
            char path[1024], full[1100];
            struct stat st;
            hs_run_t r;
            int made;

            snprintf(path, sizeof path, "%s/t%zu-%s", dir, i, kinds[k]);
            snprintf(full, sizeof full, "%s%s", path, hs__ext(w));
            if (k == 0)
                made = mkfifo(full, 0600);
            else if (k == 1)
                made = mknod(full, S_IFCHR | 0600, makedev(1, 3));
            else if (k == 2)
                made = mkdir(full, 0700);
            else
                made = symlink("/nonexistent-hetsim-target", full);
            CU_ASSERT_EQUAL_FATAL(made, 0);
            CU_ASSERT_EQUAL_FATAL(hs__run_writer(w, path, hs__ext(w), &r),
                                  0);
            if (r.status != 3)
                fprintf(stderr, "\n%s into a %s: exit %d: %s\n", w->name,
                        kinds[k], r.status, r.err);
            HS_ASSERT_I64_EQ(r.status, 3);
            HS_ASSERT_STR_CONTAINS(r.err, "replaces only a regular file");
            hs_run_free(&r);
            CU_ASSERT_EQUAL(lstat(full, &st), 0);
            if (k == 0)
                CU_ASSERT(S_ISFIFO(st.st_mode));
            if (k == 1)
                CU_ASSERT(S_ISCHR(st.st_mode));
            if (k == 2)
                CU_ASSERT(S_ISDIR(st.st_mode));
            if (k == 3)
                CU_ASSERT(S_ISLNK(st.st_mode));
            if (k == 2)
                rmdir(full);
            else
                unlink(full);
        }
    }
}

static void test_stdout(void)
{
    size_t i;

    for (i = 0; i < HS__N_WRITERS; i++) {
        const hs__writer_t *w = &hs__writers[i];
        hs_run_t r;

        if (strstr(w->name, "advise") != NULL)
            continue;   /* its report is on stdout too */
        CU_ASSERT_EQUAL_FATAL(hs__run_writer(w, "-", "", &r), 0);
        if (w->path_only) {
            HS_ASSERT_I64_EQ(r.status, 3);
            HS_ASSERT_STR_CONTAINS(r.err, "standard output");
        } else {
            HS_ASSERT_I64_EQ(r.status, 0);
            if (strstr(w->name, "chrome") != NULL)
                HS_ASSERT_STR_CONTAINS(r.out, "\"traceEvents\"");
            if (strcmp(w->name, "ingest") == 0)
                HS_ASSERT_STR_CONTAINS(r.out, "allreduce_bytes:");
            if (strcmp(w->name, "sweep csv") == 0)
                HS_ASSERT_STR_CONTAINS(r.out, "job.epochs");
        }
        hs_run_free(&r);
    }
}

/* Mounts a tmpfs of `size` at dir; 0, or -1 (the reason printed). */
static int hs__mount(const char *dir, const char *size)
{
    char opt[64];
    char *argv[] = {"/bin/mount", "-t", "tmpfs", "-o", opt, "tmpfs",
                    (char *)dir, NULL};
    hs_run_t r;
    int ok;

    snprintf(opt, sizeof opt, "size=%s,mode=0777", size);
    if (hs_run(argv, &r) != 0)
        return -1;
    ok = r.status == 0;
    if (!ok)
        fprintf(stderr, "mount failed: %s", r.err);
    hs_run_free(&r);
    return ok ? 0 : -1;
}

static void hs__umount(const char *dir)
{
    char *argv[] = {"/bin/umount", (char *)dir, NULL};
    hs_run_t r;

    if (hs_run(argv, &r) == 0) {
        CU_ASSERT_EQUAL(r.status, 0);
        hs_run_free(&r);
    }
}

/* Fills the file system at dir to its last byte with dir/filler. */
static void hs__fill(const char *dir)
{
    char path[1024], buf[4096];
    FILE *f;

    memset(buf, 'x', sizeof buf);
    snprintf(path, sizeof path, "%s/filler", dir);
    f = fopen(path, "w");
    CU_ASSERT(f != NULL);   /* not fatal: the caller must unmount */
    if (f == NULL)
        return;
    setvbuf(f, NULL, _IONBF, 0);
    while (fwrite(buf, 1, sizeof buf, f) == sizeof buf)
        ;
    while (fwrite(buf, 1, 1, f) == 1)
        ;
    fclose(f);
}

/* The number of entries in dir other than . , .. and filler. */
static int hs__left(const char *dir, char *first, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    first[0] = '\0';
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, "filler") == 0)
            continue;
        if (n++ == 0)
            snprintf(first, len, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

/* Every writer into a full tmpfs (fill 1) or a small one (fill 0). */
static void hs__full_fs(const char *tag, const char *size, int fill)
{
    const char *dir = hs_test_tmpdir(tag);
    size_t i;

    if (!hs_test_require_root(tag))
        return;
    if (hs__mount(dir, size) != 0) {
        hs_test_skip(tag, "cannot mount a tmpfs here (mount(8) failed: "
                          "no CAP_SYS_ADMIN in this container?)");
        return;
    }
    for (i = 0; i < HS__N_WRITERS; i++) {
        const hs__writer_t *w = &hs__writers[i];
        char out[1024], left[256];
        hs_run_t r;

        if (!fill && !w->path_only && strstr(w->name, "chrome") == NULL)
            continue;   /* only the large outputs outgrow the small one */
        if (fill)
            hs__fill(dir);
        snprintf(out, sizeof out, "%s/out", dir);
        CU_ASSERT_EQUAL(hs__run_writer(w, out, hs__ext(w), &r), 0);
        if (r.status != 3)
            fprintf(stderr, "\n%s on a %s tmpfs: exit %d: %s\n", w->name,
                    size, r.status, r.err);
        HS_ASSERT_I64_EQ(r.status, 3);
        hs_run_free(&r);
        CU_ASSERT_EQUAL(hs__left(dir, left, sizeof left), 0);
        if (left[0] != '\0')
            fprintf(stderr, "\n%s left %s behind\n", w->name, left);
        {
            char p[1100];
            snprintf(p, sizeof p, "%s/filler", dir);
            unlink(p);
        }
    }
    hs__umount(dir);
}

static void test_full_fs(void)
{
    hs__full_fs("outputs-full", "64k", 1);
}

/* Room for the file's start but not its end: HDF5 fails inside a dataset
   write or the close's metadata flush, the case that crashed. */
static void test_small_fs(void)
{
    hs__full_fs("outputs-small", "40k", 0);
}

static void test_plot_full_fs(void)
{
    char dir[900], h5[1024], png[1024], left[256];
    hs_run_t r;

    snprintf(dir, sizeof dir, "%s", hs_test_tmpdir("outputs-plot"));
    if (!hs_test_require_root("plot_full_fs"))
        return;
    if (access("/usr/bin/gnuplot", X_OK) != 0) {
        hs_test_skip("plot_full_fs", "gnuplot is not installed");
        return;
    }
    snprintf(h5, sizeof h5, "%s/run.h5", hs_test_tmpdir("outputs-plot-in"));
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", SCEN, "--steps", "3",
                                        "--h5", h5, NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    hs_run_free(&r);
    if (hs__mount(dir, "16k") != 0) {
        hs_test_skip("plot_full_fs", "cannot mount a tmpfs here");
        return;
    }
    snprintf(png, sizeof png, "%s/t.png", dir);
    CU_ASSERT_EQUAL(hs_run_hetsim(&r, "plot", h5, "-o", png, NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 3);
    HS_ASSERT_STR_CONTAINS(r.err, "No space left");
    hs_run_free(&r);
    CU_ASSERT_EQUAL(hs__left(dir, left, sizeof left), 0);
    /* no standard output for an image: refused, no file named "-" */
    CU_ASSERT_EQUAL(hs_run_hetsim(&r, "plot", h5, "-o", "-", NULL), 0);
    CU_ASSERT(r.status == 2 || r.status == 3);
    CU_ASSERT(access("-", F_OK) != 0);
    hs_run_free(&r);
    hs__umount(dir);
}

/* plot --keep-data writes its data files into a folder the user names:
   a symbolic link planted there is not written through. */
static void test_plot_keep_symlink(void)
{
    char dir[900], h5[1024], link[1024], victim[1024], png[1024];
    char *text;
    hs_run_t r;

    if (access("/usr/bin/gnuplot", X_OK) != 0) {
        hs_test_skip("plot_keep_symlink", "gnuplot is not installed");
        return;
    }
    snprintf(dir, sizeof dir, "%s", hs_test_tmpdir("outputs-keep"));
    snprintf(h5, sizeof h5, "%s/run.h5", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(png, sizeof png, "%s/t.png", dir);
    snprintf(link, sizeof link, "%s/keep", dir);
    mkdir(link, 0700);
    snprintf(link, sizeof link, "%s/keep/events.dat", dir);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "simulate", SCEN, "--steps", "3",
                                        "--h5", h5, NULL), 0);
    hs_run_free(&r);
    {
        FILE *f = fopen(victim, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs("precious\n", f);
        fclose(f);
    }
    unlink(link);
    CU_ASSERT_EQUAL_FATAL(symlink(victim, link), 0);
    snprintf(link, sizeof link, "%s/keep", dir);
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "plot", h5, "-o", png,
                                        "--keep-data", link, NULL), 0);
    HS_ASSERT_I64_EQ(r.status, 3);
    HS_ASSERT_STR_CONTAINS(r.err, "events.dat: cannot write");
    hs_run_free(&r);
    text = hs_test_slurp(victim);
    CU_ASSERT_PTR_NOT_NULL(text);
    if (text != NULL)
        CU_ASSERT_STRING_EQUAL(text, "precious\n");
    free(text);
}

static int hs__register(void)
{
    CU_pSuite su = CU_add_suite("outputs", NULL, NULL);

    if (su == NULL)
        return -1;
    CU_add_test(su, "special_targets", test_special_targets);
    CU_add_test(su, "stdout", test_stdout);
    CU_add_test(su, "full_fs", test_full_fs);
    CU_add_test(su, "small_fs", test_small_fs);
    CU_add_test(su, "plot_full_fs", test_plot_full_fs);
    CU_add_test(su, "plot_keep_symlink", test_plot_keep_symlink);
    return 0;
}

HS_TEST_MAIN(hs__register)
