/*
 * test_sweep_mpi.c -- `hetsim sweep` end to end: exit statuses (a failing
 * point, an unknown key, a wrong unit, unequal zip lists), and real
 * `mpirun -n 2` / `-n 3` runs whose output files equal the serial run's
 * byte for byte; a hung rank ends the run with exit 4 and no file, a
 * killed one with mpirun's error and no file.
 * The MPI checks are skipped, with the reason printed, when mpirun is
 * absent or hetsim was built without MPI.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_test.h"

static const char hs__scn[] =
    "name: sweep-cli-test\n"
    "job:\n"
    "  dataset: {samples: 1280}\n"
    "  epochs: 2\n"
    "device_types:\n"
    "  - name: A\n"
    "    count: 2\n"
    "    batch: 32\n"
    "    profile: {t_dl: 5ms, t_fwd: 10ms, t_b1: 1ms, "
    "allreduce_bytes: 8MB}\n"
    "  - name: B\n"
    "    count: 2\n"
    "    batch: 32\n"
    "    profile: {t_dl: 5ms, t_fwd: 20ms, t_b1: 2ms, "
    "allreduce_bytes: 8MB}\n"
    "network:\n"
    "  default_bandwidth: 1GB/s\n"
    "  latency: 10us\n"
    "simulate:\n"
    "  steps: 3\n";

static const char *scenario(void)
{
    static char path[512];

    if (path[0] == '\0')
        snprintf(path, sizeof path, "%s",
                 hs_test_write_file("sweep-cli.yaml", hs__scn));
    return path;
}

static void test_exit_status(void)
{
    hs_run_t r;
    const char *dir = hs_test_tmpdir("sweep_cli");
    char out[600];

    /* a failing point (batch 0): the others run, exit 1 */
    snprintf(out, sizeof out, "%s/fail.csv", dir);
    CU_ASSERT_FATAL(hs_run_hetsim(&r, "sweep", scenario(), "--vary",
                                  "device_types.A.batch=0,32,64", "-o", out,
                                  NULL) == 0);
    HS_ASSERT_I64_EQ(r.status, 1);
    HS_ASSERT_STR_CONTAINS(r.out, "3 points, 1 failed");
    HS_ASSERT_STR_CONTAINS(r.err, "1 of 3 points failed");
    hs_run_free(&r);
    {
        char *t = hs_test_slurp(out);
        HS_ASSERT_STR_CONTAINS(t, "\n32,4,");
        HS_ASSERT_STR_CONTAINS(t, "\n64,4,");
        HS_ASSERT_STR_CONTAINS(t, "\n0,,");
        free(t);
    }
    /* every point ran: exit 0, the table on stdout */
    CU_ASSERT_FATAL(hs_run_hetsim(&r, "sweep", scenario(), "--vary",
                                  "network.latency=0us..20us:10us", NULL) ==
                    0);
    HS_ASSERT_I64_EQ(r.status, 0);
    HS_ASSERT_STR_CONTAINS(r.out, "network.latency");
    HS_ASSERT_STR_CONTAINS(r.out, "3 points, 0 failed");
    hs_run_free(&r);
    /* an unknown key: exit 2, the key named and the valid ones listed */
    CU_ASSERT_FATAL(hs_run_hetsim(&r, "sweep", scenario(), "--vary",
                                  "device_types.A.cnt=1,2", NULL) == 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "device_types.A.cnt");
    HS_ASSERT_STR_CONTAINS(r.err, "count, batch");
    hs_run_free(&r);
    /* a wrong unit: exit 2 */
    CU_ASSERT_FATAL(hs_run_hetsim(&r, "sweep", scenario(), "--vary",
                                  "network.default_bandwidth=10ms", NULL) ==
                    0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "is not a bandwidth");
    hs_run_free(&r);
    /* zip lists of unequal length: exit 2 */
    CU_ASSERT_FATAL(hs_run_hetsim(&r, "sweep", scenario(), "--zip",
                                  "--vary", "job.epochs=1,2", "--vary",
                                  "network.latency=1us", NULL) == 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "--zip");
    hs_run_free(&r);
    /* replay options are settings of every point: --steps 3 is
       --set simulate.steps=3 */
    {
        char a[600], b[600], *ta, *tb;
        snprintf(a, sizeof a, "%s/steps-a.csv", dir);
        snprintf(b, sizeof b, "%s/steps-b.csv", dir);
        CU_ASSERT_FATAL(hs_run_hetsim(&r, "sweep", scenario(), "--replay",
                                      "--steps", "2", "--vary",
                                      "network.latency=1us,1ms", "-o", a,
                                      NULL) == 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        hs_run_free(&r);
        CU_ASSERT_FATAL(hs_run_hetsim(&r, "sweep", scenario(), "--replay",
                                      "--set", "simulate.steps=2", "--vary",
                                      "network.latency=1us,1ms", "-o", b,
                                      NULL) == 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        hs_run_free(&r);
        ta = hs_test_slurp(a);
        tb = hs_test_slurp(b);
        CU_ASSERT(ta != NULL && tb != NULL && strcmp(ta, tb) == 0);
        free(ta);
        free(tb);
    }
    /* no --vary: exit 2 */
    CU_ASSERT_FATAL(hs_run_hetsim(&r, "sweep", scenario(), NULL) == 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    hs_run_free(&r);
}

/* Runs `mpirun -n K hetsim sweep SCENARIO ARGS... -o out` (extra: NULL or
   one more argument before -o); returns the exit status. */
static int mpi_sweep(int k, const char *out, const char *extra,
                     hs_run_t *r)
{
    char kbuf[8];
    char *argv[32];
    int n = 0;

    snprintf(kbuf, sizeof kbuf, "%d", k);
    argv[n++] = (char *)hs_test_find_mpirun();
    if (geteuid() == 0)
        argv[n++] = "--allow-run-as-root";
    argv[n++] = "--oversubscribe";
    argv[n++] = "-x";
    argv[n++] = "HETSIM_SWEEP_TEST_HANG_RANK";
    argv[n++] = "-x";
    argv[n++] = "HETSIM_SWEEP_TEST_DIE_RANK";
    argv[n++] = "-n";
    argv[n++] = kbuf;
    argv[n++] = HS_TEST_BIN;
    argv[n++] = "sweep";
    argv[n++] = (char *)scenario();
    argv[n++] = "--replay";
    argv[n++] = "--vary";
    argv[n++] = "device_types.A.batch=0,32,64";
    argv[n++] = "--vary";
    argv[n++] = "network.default_bandwidth=1Gbps..16Gbps*2";
    argv[n++] = "--vary";
    argv[n++] = "ring=listing,interleave";
    if (extra != NULL) {
        argv[n++] = "--rank-timeout";
        argv[n++] = (char *)extra;
    }
    argv[n++] = "-o";
    argv[n++] = (char *)out;
    argv[n] = NULL;
    if (hs_run(argv, r) != 0)
        return -1;
    return r->status;
}

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa != NULL && fb != NULL, ca, cb;

    while (same) {
        ca = fgetc(fa);
        cb = fgetc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa != NULL)
        fclose(fa);
    if (fb != NULL)
        fclose(fb);
    return same;
}

static void test_mpi_equals_serial(void)
{
    static const char *const ext[] = {"csv", "json", "h5"};
    const char *dir;
    size_t i;

    if (!hs_test_mpi_ready("sweep", "mpi_equals_serial"))
        return;
    setenv("HETSIM_SWEEP_TEST_HANG_RANK", "-1", 1);
    setenv("HETSIM_SWEEP_TEST_DIE_RANK", "-1", 1);
    dir = hs_test_tmpdir("sweep_mpi");
    for (i = 0; i < 3; i++) {
        char ser[600], par[600], par3[600];
        hs_run_t r;
        snprintf(ser, sizeof ser, "%s/serial.%s", dir, ext[i]);
        snprintf(par, sizeof par, "%s/mpi2.%s", dir, ext[i]);
        snprintf(par3, sizeof par3, "%s/mpi3.%s", dir, ext[i]);
        CU_ASSERT_FATAL(hs_run_hetsim(&r, "sweep", scenario(), "--replay",
                                      "--vary",
                                      "device_types.A.batch=0,32,64",
                                      "--vary",
                                      "network.default_bandwidth="
                                      "1Gbps..16Gbps*2",
                                      "--vary", "ring=listing,interleave",
                                      "-o", ser, NULL) == 0);
        HS_ASSERT_I64_EQ(r.status, 1);   /* the batch-0 points */
        hs_run_free(&r);
        HS_ASSERT_I64_EQ(mpi_sweep(2, par, NULL, &r), 1);
        if (r.status != 1)
            fprintf(stderr, "\nmpirun -n 2: %s\n", r.err);
        hs_run_free(&r);
        CU_ASSERT(same_file(ser, par));
        if (i > 0)
            continue;   /* three ranks: CSV is enough */
        HS_ASSERT_I64_EQ(mpi_sweep(3, par3, NULL, &r), 1);
        hs_run_free(&r);
        CU_ASSERT(same_file(ser, par3));
    }
}

static void test_mpi_hung_rank(void)
{
    char out[600];
    hs_run_t r;

    if (!hs_test_mpi_ready("sweep", "mpi_hung_rank"))
        return;
    snprintf(out, sizeof out, "%s/hung.csv", hs_test_tmpdir("sweep_hang"));
    setenv("HETSIM_SWEEP_TEST_HANG_RANK", "1", 1);
    setenv("HETSIM_SWEEP_TEST_DIE_RANK", "-1", 1);
    HS_ASSERT_I64_EQ(mpi_sweep(2, out, "1s", &r), 4);
    HS_ASSERT_STR_CONTAINS(r.err, "rank 1 did not return point");
    hs_run_free(&r);
    setenv("HETSIM_SWEEP_TEST_HANG_RANK", "-1", 1);
    CU_ASSERT(access(out, F_OK) != 0);   /* no file, not even a partial */
}

/* `hetsim plot --kind sweep` on a sweep's CSV: a picture, exit 0; an
   unknown --x: exit 2. */
static void test_plot_sweep(void)
{
    const char *dir = hs_test_tmpdir("sweep_plot_cli");
    char csv[600], png[600];
    hs_run_t r;

    if (access("/usr/bin/gnuplot", X_OK) != 0 &&
        access("/usr/local/bin/gnuplot", X_OK) != 0) {
        hs_test_skip("plot_sweep", "gnuplot is not installed");
        return;
    }
    snprintf(csv, sizeof csv, "%s/s.csv", dir);
    snprintf(png, sizeof png, "%s/s.png", dir);
    CU_ASSERT_FATAL(hs_run_hetsim(&r, "sweep", scenario(), "--replay",
                                  "--vary", "network.default_bandwidth="
                                  "1Gbps..8Gbps*2", "--vary",
                                  "ring=listing,interleave", "-o", csv,
                                  NULL) == 0);
    HS_ASSERT_I64_EQ(r.status, 0);
    hs_run_free(&r);
    CU_ASSERT_FATAL(hs_run_hetsim(&r, "plot", "--kind", "sweep", csv, "-o",
                                  png, "--figure", "total", NULL) == 0);
    if (r.status != 0)
        fprintf(stderr, "\n%s%s", r.out, r.err);
    HS_ASSERT_I64_EQ(r.status, 0);
    hs_run_free(&r);
    CU_ASSERT(access(png, F_OK) == 0);
    CU_ASSERT_FATAL(hs_run_hetsim(&r, "plot", "--kind", "sweep", csv, "-o",
                                  png, "--x", "job.epochs", NULL) == 0);
    HS_ASSERT_I64_EQ(r.status, 2);
    HS_ASSERT_STR_CONTAINS(r.err, "job.epochs");
    hs_run_free(&r);
}

/* A rank killed half way: mpirun ends the job, names the rank, exits
   non-zero, and no output file appears. */
static void test_mpi_dead_rank(void)
{
    char out[600];
    hs_run_t r;

    if (!hs_test_mpi_ready("sweep", "mpi_dead_rank"))
        return;
    snprintf(out, sizeof out, "%s/dead.csv", hs_test_tmpdir("sweep_dead"));
    setenv("HETSIM_SWEEP_TEST_HANG_RANK", "-1", 1);
    setenv("HETSIM_SWEEP_TEST_DIE_RANK", "1", 1);
    CU_ASSERT(mpi_sweep(3, out, NULL, &r) != 0);
    CU_ASSERT(r.status != 0 && r.status != 1);
    HS_ASSERT_STR_CONTAINS(r.err, "rank 1");
    hs_run_free(&r);
    setenv("HETSIM_SWEEP_TEST_DIE_RANK", "-1", 1);
    CU_ASSERT(access(out, F_OK) != 0);
}

static int register_sweep_cli(void)
{
    CU_pSuite s = CU_add_suite("sweep_cli", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "exit status", test_exit_status) == NULL ||
        CU_add_test(s, "mpirun output equals serial",
                    test_mpi_equals_serial) == NULL ||
        CU_add_test(s, "a hung rank", test_mpi_hung_rank) == NULL ||
        CU_add_test(s, "a dead rank", test_mpi_dead_rank) == NULL ||
        CU_add_test(s, "plot --kind sweep", test_plot_sweep) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_sweep_cli)
