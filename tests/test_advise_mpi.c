/*
 * test_advise_mpi.c -- `hetsim advise` end to end under mpirun and with
 * progress: for ring, batch and mix on flat and nodes scenarios,
 * `mpirun -n 1/2/3 hetsim advise ... --json -o FILE` prints the serial
 * run's JSON byte for byte (search_cpu_s, a measured CPU time, aside) and
 * writes the same scenario file; a question no mix answers fails the same
 * way.  Progress goes to stderr only with --progress (stdout unchanged),
 * never with --quiet or without a terminal.
 * The MPI checks are skipped, with the reason printed, when mpirun is
 * absent or hetsim was built without MPI.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_test.h"

static const char hs__ring6[] =
    "device_types:\n"
    "  - {name: f, count: 2, batch: 8, profile: {t_fwd: 10ms, t_b1: 1ms,\n"
    "     allreduce_bytes: 60MB}}\n"
    "  - {name: m, count: 2, batch: 8, profile: {t_fwd: 20ms, t_b1: 1ms,\n"
    "     allreduce_bytes: 60MB}}\n"
    "  - {name: s, count: 3, batch: 8, profile: {t_fwd: 40ms, t_b1: 1ms,\n"
    "     allreduce_bytes: 60MB}}\n"
    "network:\n"
    "  default_bandwidth: 10Gbps\n"
    "  latency: 20us\n"
    "  type_links: [[f, f, 100Gbps], [m, m, 100Gbps], [s, s, 40Gbps],\n"
    "               [f, s, 2Gbps]]\n"
    "  links: [[s-0, s-1, 1Gbps], [f-1, m-0, 1Gbps]]\n"
    "simulate: {steps: 4}\n";

static const char hs__batch4[] =
    "job: {model: x, dataset: {samples: 9600}}\n"
    "device_types:\n"
    "  - {name: fast, count: 2, batch: 24, profile: {t_fwd: 12ms,\n"
    "     t_b1: 1us, t_bwd: 12ms, allreduce_bytes: 1KB}}\n"
    "  - {name: slow, count: 2, batch: 24, profile: {t_fwd: 24ms,\n"
    "     t_b1: 1us, t_bwd: 24ms, allreduce_bytes: 1KB}}\n"
    "network: {default_bandwidth: 100Gbps, latency: 1us}\n"
    "simulate: {steps: 4, overlap: none}\n";

static const char hs__mix3[] =
    "job: {model: x, dataset: {samples: 20000}, epochs: 2}\n"
    "device_types:\n"
    "  - {name: a, count: 1, batch: 32, profile: {t_fwd: 30ms, "
    "t_b1: 1ms, t_dl: 5ms, allreduce_bytes: 40MB}}\n"
    "  - {name: b, count: 1, batch: 32, profile: {t_fwd: 12ms, "
    "t_b1: 1ms, allreduce_bytes: 40MB}}\n"
    "  - {name: c, count: 1, batch: 16, profile: {t_fwd: 20ms, "
    "t_b1: 1ms, allreduce_bytes: 40MB}}\n"
    "ring: grouped\n"
    "network: {default_bandwidth: 10Gbps, latency: 10us,\n"
    "          type_links: [[b, b, 50Gbps]]}\n"
    "simulate: {steps: 3}\n";

/* One question: its arguments after `advise`, up to 23, NULL-ended;
   `@F` is the scenario file F written from the texts above; `@nodes`,
   `@full` and `@fig3` the repository's scenarios/nodes-example.yaml,
   example-full.yaml and fig3-compute-bound.yaml.  Most cases run under
   mpirun -n 2, a few also under -n 1 and -n 3 (each mpirun costs
   about 2 s of start-up, so not every case runs under every count). */
typedef struct hs__case_s {
    const char *name;
    unsigned ranks;         /* bit k: run under mpirun -n k (0: serial
                               only, for the progress test) */
    const char *args[24];
} hs__case_t;

static const hs__case_t hs__cases[] = {
    {"ring-exact", 1u << 1 | 1u << 2, {"ring", "@ring6", NULL}},
    {"ring-heuristic", 0, {"ring", "@ring6", "--exact-max", "3", NULL}},
    {"ring-nodes", 1u << 2 | 1u << 3, {"ring", "@nodes", NULL}},
    {"batch", 1u << 2, {"batch", "@batch4", NULL}},
    {"batch-nodes", 1u << 2,
     {"batch", "@nodes", "--global-batch", "1024", NULL}},
    {"mix-budget", 1u << 2 | 1u << 3,
     {"mix", "@mix3", "--avail", "a=6", "--avail", "b=5",
                    "--avail", "c=5", "--min", "c=1", "--price", "a=1",
                    "--price", "b=3", "--price", "c=1.5", "--budget",
                    "0.05", NULL}},
    {"mix-deadline", 0, {"mix", "@mix3", "--avail", "a=6", "--avail", "b=5",
                      "--avail", "c=5", "--price", "a=1", "--price", "b=3",
                      "--price", "c=1.5", "--deadline", "20s", NULL}},
    {"mix-nodes", 1u << 2, {"mix", "@nodes", "--price", "A100=3", "--price",
                   "V100=1", "--budget", "0.25", NULL}},
    {"mix-none", 1u << 2, {"mix", "@mix3", "--price", "a=1", "--price", "b=3",
                  "--price", "c=1.5", "--budget", "0.0000001", NULL}},
    /* the search's split is slower by the replay: a fallback wins */
    {"batch-fallback", 1u << 2, {"batch", "@full", NULL}},
    /* no order beats the given one: nothing written */
    {"ring-none", 1u << 2, {"ring", "@fig3", NULL}},
};

static const char *hs__scn(const char *at)
{
    static char nodes[1024];

    if (strcmp(at, "@ring6") == 0)
        return hs_test_write_file("advmpi-ring6.yaml", hs__ring6);
    if (strcmp(at, "@batch4") == 0)
        return hs_test_write_file("advmpi-batch4.yaml", hs__batch4);
    if (strcmp(at, "@mix3") == 0)
        return hs_test_write_file("advmpi-mix3.yaml", hs__mix3);
    snprintf(nodes, sizeof nodes, "%s/scenarios/%s", HS_TEST_SRC,
             strcmp(at, "@full") == 0   ? "example-full.yaml"
             : strcmp(at, "@fig3") == 0 ? "fig3-compute-bound.yaml"
                                        : "nodes-example.yaml");
    return nodes;
}

/* Runs hetsim advise for case c (k = 0: alone, else mpirun -n k) with
   --json and -o out (and extra, NULL-ended, before them); 0 or -1. */
static int advise(const hs__case_t *c, int k, const char *out,
                  const char *const *extra, hs_run_t *r)
{
    char kbuf[8];
    char *argv[48];
    int n = 0, i;

    snprintf(kbuf, sizeof kbuf, "%d", k % 10);
    if (k > 0) {
        /* under the sanitizers: Open MPI's own allocations (MPI_Init,
           its plugins) are still held at exit, so the ranks do not check
           for leaks; the runs alone above do */
        static char asan[512];
        const char *a = getenv("ASAN_OPTIONS");

        snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s%sdetect_leaks=0",
                 a != NULL ? a : "", a != NULL && *a ? ":" : "");
        argv[n++] = (char *)hs_test_find_mpirun();
        if (geteuid() == 0)
            argv[n++] = "--allow-run-as-root";
        argv[n++] = "--oversubscribe";
        argv[n++] = "-x";
        argv[n++] = asan;
        argv[n++] = "-n";
        argv[n++] = kbuf;
    }
    argv[n++] = HS_TEST_BIN;
    argv[n++] = "advise";
    for (i = 0; c->args[i] != NULL; i++)
        argv[n++] = (char *)(c->args[i][0] == '@' ? hs__scn(c->args[i])
                                                  : c->args[i]);
    for (i = 0; extra != NULL && extra[i] != NULL; i++)
        argv[n++] = (char *)extra[i];
    argv[n++] = "--json";
    if (out != NULL) {
        argv[n++] = "-o";
        argv[n++] = (char *)out;
    }
    argv[n] = NULL;
    return hs_run(argv, r);
}

/* text without its "search_cpu_s" line (a measured CPU time); malloc'd */
static char *mask(const char *text)
{
    char *t = strdup(text != NULL ? text : ""), *p;

    if (t != NULL && (p = strstr(t, "\"search_cpu_s\"")) != NULL) {
        char *eol = strchr(p, '\n');
        while (p > t && p[-1] != '\n')
            p--;
        if (eol != NULL)
            memmove(p, eol + 1, strlen(eol + 1) + 1);
    }
    return t;
}

static void test_mpi_equals_serial(void)
{
    const char *dir;
    size_t i;
    int mpi = hs_test_mpi_ready("advise", "advise_mpi_equals_serial");

    if (!mpi)
        return;
    dir = hs_test_tmpdir("advise_mpi");
    for (i = 0; i < sizeof hs__cases / sizeof hs__cases[0]; i++) {
        const hs__case_t *c = &hs__cases[i];
        char out[700], *json0, *yaml0;
        hs_run_t r;
        int status0, k;

        if (c->ranks == 0)
            continue;
        snprintf(out, sizeof out, "%s/%s.yaml", dir, c->name);
        unlink(out);
        CU_ASSERT_FATAL(advise(c, 0, out, NULL, &r) == 0);
        status0 = r.status;
        json0 = mask(r.out);
        hs_run_free(&r);
        yaml0 = hs_test_slurp(out);
        if (strcmp(c->name, "mix-none") == 0) {
            HS_ASSERT_I64_EQ(status0, 2);
            CU_ASSERT_PTR_NULL(yaml0);
        } else if (strcmp(c->name, "ring-none") == 0) {
            HS_ASSERT_I64_EQ(status0, 0);
            HS_ASSERT_STR_CONTAINS(json0, "\"outcome\": \"none\"");
            CU_ASSERT_PTR_NULL(yaml0);
        } else {
            if (strcmp(c->name, "batch-fallback") == 0)
                HS_ASSERT_STR_CONTAINS(json0, "\"outcome\": \"fallback\"");
            HS_ASSERT_I64_EQ(status0, 0);
            CU_ASSERT_PTR_NOT_NULL(yaml0);
        }
        for (k = 1; k <= 3; k++) {
            char *json, *yaml;

            if (!(c->ranks & (1u << k)))
                continue;
            unlink(out);
            CU_ASSERT_FATAL(advise(c, k, out, NULL, &r) == 0);
            HS_ASSERT_I64_EQ(r.status, status0);
            json = mask(r.out);
            CU_ASSERT_STRING_EQUAL(json, json0);
            if (strcmp(json, json0) != 0 || r.status != status0)
                fprintf(stderr, "\n%s, mpirun -n %d: status %d\n%s\n%s\n",
                        c->name, k, r.status, r.out, r.err);
            if (status0 == 2)
                HS_ASSERT_STR_CONTAINS(r.err, "no mix meets the budget");
            hs_run_free(&r);
            yaml = hs_test_slurp(out);
            CU_ASSERT((yaml == NULL) == (yaml0 == NULL));
            if (yaml != NULL && yaml0 != NULL)
                CU_ASSERT_STRING_EQUAL(yaml, yaml0);
            free(json);
            free(yaml);
        }
        free(json0);
        free(yaml0);
    }
}

/* --progress: lines on stderr, stdout as without; --quiet and no
   terminal (the test's pipes): nothing on stderr. */
static void test_progress(void)
{
    static const char *const prog[] = {"--progress", NULL};
    static const char *const quiet[] = {"--progress", "--quiet", NULL};
    const hs__case_t *cases[2] = {&hs__cases[1], &hs__cases[5]};
    size_t i;

    for (i = 0; i < 2; i++) {
        hs_run_t r;
        char *plain, *with;

        CU_ASSERT_FATAL(advise(cases[i], 0, NULL, NULL, &r) == 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        CU_ASSERT(r.err == NULL || r.err[0] == '\0');
        plain = mask(r.out);
        hs_run_free(&r);
        CU_ASSERT_FATAL(advise(cases[i], 0, NULL, prog, &r) == 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        with = mask(r.out);
        CU_ASSERT_STRING_EQUAL(with, plain);
        HS_ASSERT_STR_CONTAINS(r.err, "spent");
        HS_ASSERT_STR_CONTAINS(r.err, "replays");
        HS_ASSERT_STR_CONTAINS(r.err, i == 0 ? "ring search" : "mixes");
        hs_run_free(&r);
        CU_ASSERT_FATAL(advise(cases[i], 0, NULL, quiet, &r) == 0);
        HS_ASSERT_I64_EQ(r.status, 0);
        CU_ASSERT(r.err == NULL || r.err[0] == '\0');
        hs_run_free(&r);
        free(plain);
        free(with);
    }
}

static int register_advise_mpi(void)
{
    CU_pSuite s = CU_add_suite("advise_mpi", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "mpirun -n 1/2/3 equals one process",
                    test_mpi_equals_serial) == NULL ||
        CU_add_test(s, "progress on stderr only", test_progress) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_advise_mpi)
