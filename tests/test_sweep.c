/*
 * test_sweep.c -- what-if sweeps (whatif/hs_sweep.h) and their outputs
 * (output/hs_sweep_out.h): value lists and ranges, key classes, product
 * and zip, every point against a scenario loaded from the equivalent YAML
 * (the naive reference), a failing point, order independence, and the
 * CSV, JSON and HDF5 files read back as data.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>
#include <yajl/yajl_tree.h>

#include "hs_closed.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_answer.h"
#include "hs_plot.h"
#include "hs_sweep.h"
#include "hs_sweep_out.h"
#include "hs_test.h"

/* The base: two types of two devices; %s slots for A's batch, the default
   bandwidth and the latency, so the reference can be loaded for any
   point. */
static const char hs__tmpl[] =
    "name: sweep-test\n"
    "job:\n"
    "  dataset: {samples: 1280}\n"
    "  epochs: 2\n"
    "device_types:\n"
    "  - name: A\n"
    "    count: 2\n"
    "    batch: %s\n"
    "    profile: {t_dl: 5ms, t_fwd: 10ms, t_b1: 1ms, "
    "allreduce_bytes: 8MB}\n"
    "  - name: B\n"
    "    count: 2\n"
    "    batch: 32\n"
    "    profile: {t_dl: 5ms, t_fwd: 20ms, t_b1: 2ms, "
    "allreduce_bytes: 8MB}\n"
    "network:\n"
    "  default_bandwidth: %s\n"
    "  latency: %s\n"
    "simulate:\n"
    "  steps: 3\n";

static hs_scenario_t *load3(const char *batch, const char *bw,
                            const char *lat)
{
    char text[2048];
    hs_scenario_t *s = NULL;
    hs_error_t e;

    snprintf(text, sizeof text, hs__tmpl, batch, bw, lat);
    if (hs_scenario_load_text(text, strlen(text), "sweep-test.yaml", NULL,
                              &s, &e) != HS_OK)
        fprintf(stderr, "\nload failed: %s\n", e.msg);
    return s;
}

static hs_scenario_t *base(void)
{
    return load3("32", "1GB/s", "10us");
}

static hs_sweep_t *new_sweep(int replay)
{
    hs_scenario_t *s = base();
    hs_sweep_t *sw = NULL;
    hs_error_t e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    if (hs_sweep_new(s,
                     replay ? HS_ANSWER_REPLAY_ALWAYS : HS_ANSWER_REPLAY_NEVER,
                     &sw, &e) != HS_OK)
        fprintf(stderr, "\nhs_sweep_new: %s\n", e.msg);
    hs_scenario_free(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sw);
    return sw;
}

/* The values of the single axis of a fresh sweep varied with spec; the
   sweep is returned for the caller to check and free (NULL on error, with
   *rc and e filled). */
static hs_sweep_t *vary1(const char *spec, hs_err_t *rc, hs_error_t *e)
{
    hs_sweep_t *sw = new_sweep(0);

    hs_error_clear(e);
    *rc = hs_sweep_vary(sw, spec, e);
    if (*rc != HS_OK) {
        hs_sweep_free(sw);
        return NULL;
    }
    return sw;
}

static void expect_values(const char *spec, const char *const *want,
                          size_t n)
{
    hs_error_t e;
    hs_err_t rc;
    hs_sweep_t *sw = vary1(spec, &rc, &e);
    const hs_sweep_axis_t *ax;
    size_t i;

    if (sw == NULL)
        fprintf(stderr, "\n%s: %s\n", spec, e.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sw);
    ax = hs_sweep_axis(sw, 0);
    HS_ASSERT_I64_EQ(ax->n_values, n);
    for (i = 0; i < n && i < ax->n_values; i++) {
        if (strcmp(ax->values[i], want[i]) != 0)
            fprintf(stderr, "\n%s: value %zu is '%s', want '%s'\n", spec, i,
                    ax->values[i], want[i]);
        CU_ASSERT_STRING_EQUAL(ax->values[i], want[i]);
    }
    hs_sweep_free(sw);
}

static void test_lists_and_ranges(void)
{
    static const char *const list[] = {"25Gbps", "100Gbps", "400Gbps"};
    static const char *const arith[] = {"50", "100", "150", "200",
                                        "250", "300", "350", "400"};
    static const char *const geo[] = {"1Gbps", "2Gbps", "4Gbps", "8Gbps",
                                      "16Gbps", "32Gbps", "64Gbps"};
    static const char *const mixed[] = {"500Mbps", "1000Mbps", "1500Mbps",
                                        "2000Mbps"};
    static const char *const times[] = {"0us", "5us", "10us", "7ms"};
    static const char *const rings[] = {"listing", "grouped", "interleave",
                                        "[A-0, B-0, A-1, B-1]"};

    expect_values("network.default_bandwidth=25Gbps,100Gbps,400Gbps", list,
                  3);
    expect_values("device_types.A.batch=50..400:50", arith, 8);
    expect_values("network.default_bandwidth=1Gbps..100Gbps*2", geo, 7);
    /* the end and the step in other units of the same kind */
    expect_values("network.type_links.A.B=500Mbps..2Gbps:0.5Gbps", mixed, 4);
    expect_values("network.latency=0us..10us:5us, 7ms", times, 4);
    expect_values("ring=listing,grouped,interleave,[A-0, B-0, A-1, B-1]",
                  rings, 4);
}

static void test_key_classes(void)
{
    hs_error_t e;
    hs_err_t rc;
    hs_sweep_t *sw;

    /* a bandwidth key gets a bandwidth */
    sw = vary1("network.default_bandwidth=25Gbps,20ms", &rc, &e);
    CU_ASSERT_PTR_NULL(sw);
    HS_ASSERT_I64_EQ(rc, HS_ERR_UNIT);
    HS_ASSERT_STR_CONTAINS(e.msg, "network.default_bandwidth");
    HS_ASSERT_STR_CONTAINS(e.msg, "'20ms' is not a bandwidth");
    /* a count takes no unit, in a list or a range */
    sw = vary1("device_types.A.batch=64,1GB", &rc, &e);
    HS_ASSERT_I64_EQ(rc, HS_ERR_UNIT);
    HS_ASSERT_STR_CONTAINS(e.msg, "'1GB' is not a count");
    sw = vary1("device_types.A.batch=1Gbps..4Gbps*2", &rc, &e);
    HS_ASSERT_I64_EQ(rc, HS_ERR_UNIT);
    /* a range of the wrong kind */
    sw = vary1("network.latency=1Gbps..4Gbps*2", &rc, &e);
    HS_ASSERT_I64_EQ(rc, HS_ERR_UNIT);
    HS_ASSERT_STR_CONTAINS(e.msg, "time");
    /* words */
    sw = vary1("simulate.overlap=patent,sideways", &rc, &e);
    HS_ASSERT_I64_EQ(rc, HS_ERR_SCHEMA);
    HS_ASSERT_STR_CONTAINS(e.msg, "'sideways' is not a overlap mode");
    /* syntax */
    sw = vary1("network.latency", &rc, &e);
    HS_ASSERT_I64_EQ(rc, HS_ERR_USAGE);
    sw = vary1("network.latency=", &rc, &e);
    HS_ASSERT_I64_EQ(rc, HS_ERR_USAGE);
    sw = vary1("network.latency=1us,,2us", &rc, &e);
    HS_ASSERT_I64_EQ(rc, HS_ERR_USAGE);
    sw = vary1("network.latency=5us..1us:1us", &rc, &e);
    HS_ASSERT_I64_EQ(rc, HS_ERR_USAGE);
    sw = vary1("device_types.A.batch=1..8*1", &rc, &e);
    HS_ASSERT_I64_EQ(rc, HS_ERR_USAGE);
    /* an unknown key: the scenario's setter names it */
    sw = vary1("device_types.A.cnt=3", &rc, &e);
    CU_ASSERT_PTR_NULL(sw);
    CU_ASSERT(rc != HS_OK);
    CU_ASSERT(hs_err_exit_code(rc) == 2);
    HS_ASSERT_STR_CONTAINS(e.msg, "--vary device_types.A.cnt");
    HS_ASSERT_STR_CONTAINS(e.msg, "count, batch");  /* the valid keys */
    /* an unknown type */
    sw = vary1("device_types.H100.count=3", &rc, &e);
    CU_ASSERT(rc != HS_OK);
    CU_ASSERT(hs_err_exit_code(rc) == 2);
    HS_ASSERT_STR_CONTAINS(e.msg, "H100");
    /* a key given twice */
    sw = new_sweep(0);
    CU_ASSERT_EQUAL(hs_sweep_vary(sw, "job.epochs=1,2", &e), HS_OK);
    HS_ASSERT_I64_EQ(hs_sweep_vary(sw, "job.epochs=3", &e), HS_ERR_USAGE);
    hs_sweep_free(sw);
}

static void test_product_and_zip(void)
{
    hs_sweep_t *sw = new_sweep(0);
    hs_error_t e;
    static const char *const want[6][2] = {
        {"16", "1GB/s"}, {"16", "2GB/s"}, {"32", "1GB/s"},
        {"32", "2GB/s"}, {"64", "1GB/s"}, {"64", "2GB/s"}};
    size_t p;

    CU_ASSERT_EQUAL_FATAL(hs_sweep_vary(sw, "device_types.A.batch=16,32,64",
                                        &e), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_vary(sw,
                                        "network.default_bandwidth=1GB/s,"
                                        "2GB/s", &e), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_plan(sw, &e), HS_OK);
    HS_ASSERT_I64_EQ(hs_sweep_n_points(sw), 6);
    for (p = 0; p < 6; p++) {
        CU_ASSERT_STRING_EQUAL(hs_sweep_value(sw, p, 0), want[p][0]);
        CU_ASSERT_STRING_EQUAL(hs_sweep_value(sw, p, 1), want[p][1]);
    }
    hs_sweep_free(sw);

    /* zip needs equal lengths */
    sw = new_sweep(0);
    hs_sweep_set_zip(sw, 1);
    CU_ASSERT_EQUAL(hs_sweep_vary(sw, "device_types.A.batch=16,32,64", &e),
                    HS_OK);
    CU_ASSERT_EQUAL(hs_sweep_vary(sw, "network.latency=1us,2us", &e),
                    HS_OK);
    HS_ASSERT_I64_EQ(hs_sweep_plan(sw, &e), HS_ERR_USAGE);
    HS_ASSERT_STR_CONTAINS(e.msg, "--zip");
    hs_sweep_free(sw);
    sw = new_sweep(0);
    hs_sweep_set_zip(sw, 1);
    CU_ASSERT_EQUAL(hs_sweep_vary(sw, "device_types.A.batch=16,32,64", &e),
                    HS_OK);
    CU_ASSERT_EQUAL(hs_sweep_vary(sw, "network.latency=1us..3us:1us", &e),
                    HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_plan(sw, &e), HS_OK);
    HS_ASSERT_I64_EQ(hs_sweep_n_points(sw), 3);
    CU_ASSERT_STRING_EQUAL(hs_sweep_value(sw, 2, 0), "64");
    CU_ASSERT_STRING_EQUAL(hs_sweep_value(sw, 2, 1), "3us");
    CU_ASSERT_STRING_EQUAL(hs_sweep_options_text(sw),
                           "vary device_types.A.batch=16,32,64; "
                           "vary network.latency=1us..3us:1us; zip; replay never");
    hs_sweep_free(sw);

    /* no axis */
    sw = new_sweep(0);
    HS_ASSERT_I64_EQ(hs_sweep_plan(sw, &e), HS_ERR_USAGE);
    hs_sweep_free(sw);
}

/* The sweep used by the run and output tests: batch of A x bandwidth x
   latency, with batch 0 (a point the scenario refuses) first. */
static hs_sweep_t *run_sweep(int replay, hs_sweep_results_t **res,
                             int backwards)
{
    hs_sweep_t *sw = new_sweep(replay);
    hs_error_t e;
    size_t p;

    CU_ASSERT_EQUAL_FATAL(hs_sweep_vary(sw, "device_types.A.batch=0,32,64",
                                        &e), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_vary(sw, "network.default_bandwidth="
                                        "1GB/s,4GB/s", &e), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_vary(sw, "network.latency=10us,1ms", &e),
                          HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_plan(sw, &e), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_results_new(sw, res, &e), HS_OK);
    if (!backwards) {
        CU_ASSERT_EQUAL_FATAL(hs_sweep_run(sw, *res, NULL, NULL, &e), HS_OK);
        return sw;
    }
    for (p = hs_sweep_n_points(sw); p-- > 0;) {
        hs_sweep_rec_t rec;
        hs_error_t pe;
        hs_err_t rc = hs_sweep_run_point(sw, p, &rec, &pe);
        CU_ASSERT_EQUAL(hs_sweep_results_store(*res, p, &rec,
                                               rc == HS_OK ? NULL : pe.msg,
                                               &e), HS_OK);
    }
    return sw;
}

static void test_points_against_reference(void)
{
    hs_sweep_results_t *res = NULL, *back = NULL;
    hs_sweep_t *sw = run_sweep(1, &res, 0);
    hs_sweep_t *sw2 = run_sweep(1, &back, 1);
    size_t p;

    HS_ASSERT_I64_EQ(res->n_points, 12);
    HS_ASSERT_I64_EQ(res->n_done, 12);
    /* batch 0: four failed points, with their error */
    HS_ASSERT_I64_EQ(res->n_failed, 4);
    for (p = 0; p < 12; p++) {
        const hs_sweep_rec_t *r = &res->rec[p];
        const char *batch = hs_sweep_value(sw, p, 0);
        hs_scenario_t *s;
        hs_prediction_t *pred = NULL;
        hs_replay_result_t *rr = NULL;
        hs_error_t e;

        /* the same result whatever order the points ran in */
        CU_ASSERT(memcmp(r, &back->rec[p], sizeof *r) == 0);
        if (strcmp(batch, "0") == 0) {
            CU_ASSERT_PTR_NOT_NULL(res->error[p]);
            CU_ASSERT(r->code != 0);
            HS_ASSERT_STR_CONTAINS(res->error[p], "batch");
            CU_ASSERT_STRING_EQUAL(res->error[p], back->error[p]);
            continue;
        }
        CU_ASSERT_PTR_NULL(res->error[p]);
        s = load3(batch, hs_sweep_value(sw, p, 1), hs_sweep_value(sw, p, 2));
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        CU_ASSERT_EQUAL_FATAL(hs_closed_predict(s, &pred, &e), HS_OK);
        CU_ASSERT_EQUAL_FATAL(hs_replay_run(s, NULL, NULL, 0, &rr, &e), HS_OK);
        HS_ASSERT_I64_EQ(r->n_devices, 4);
        HS_ASSERT_I64_EQ(r->step_source_ns, pred->step_ns);
        HS_ASSERT_I64_EQ(r->step_extended_ns, pred->step_ext_ns);
        HS_ASSERT_I64_EQ(r->iters_per_epoch, pred->iters_per_epoch);
        HS_ASSERT_I64_EQ(r->epoch_source_ns, pred->epoch_ns);
        HS_ASSERT_I64_EQ(r->total_source_ns, pred->total_ns);
        HS_ASSERT_I64_EQ(r->total_source_ns, 2 * r->epoch_source_ns);
        CU_ASSERT_STRING_EQUAL(r->bottleneck_device,
                               s->devices[pred->bottleneck_device].name);
        HS_ASSERT_I64_EQ(r->step_replay_ns, rr->step_ns);
        HS_ASSERT_I64_EQ(r->total_replay_ns, rr->total_ns);
        HS_ASSERT_I64_EQ(r->step_recommended_ns, rr->step_ns);
        HS_ASSERT_I64_EQ(r->predictor, HS_PREDICTOR_REPLAY);
        HS_ASSERT_I64_EQ(r->epoch_replay_ns, rr->epoch_ns);
        CU_ASSERT(r->step_source_ns > 0);
        hs_replay_result_free(rr);
        hs_prediction_free(pred);
        hs_scenario_free(s);
    }
    /* a larger batch on A: fewer iterations per epoch, as the reference */
    CU_ASSERT(res->rec[8].iters_per_epoch < res->rec[4].iters_per_epoch);
    hs_sweep_results_free(res);
    hs_sweep_results_free(back);
    hs_sweep_free(sw);
    hs_sweep_free(sw2);
}

/* ---- reading the outputs back --------------------------------------- */

/* An RFC 4180 reader for the test: rows of fields (malloc'd). */
typedef struct csv_s {
    size_t n_rows, n_cols[64];
    char *cell[64][32];
} csv_t;

static int csv_parse(const char *t, csv_t *c)
{
    size_t r = 0, k = 0;

    memset(c, 0, sizeof *c);
    while (*t != '\0' && r < 64) {
        char buf[2048];
        size_t n = 0;
        if (*t == '"') {
            t++;
            for (;;) {
                if (*t == '\0')
                    return -1;
                if (*t == '"' && t[1] == '"') {
                    buf[n++] = '"';
                    t += 2;
                } else if (*t == '"') {
                    t++;
                    break;
                } else {
                    buf[n++] = *t++;
                }
            }
        } else {
            while (*t != ',' && *t != '\n' && *t != '\0')
                buf[n++] = *t++;
        }
        buf[n] = '\0';
        if (k < 32)
            c->cell[r][k++] = strdup(buf);
        if (*t == ',') {
            t++;
        } else {
            c->n_cols[r] = k;
            k = 0;
            r++;
            if (*t == '\n')
                t++;
        }
    }
    c->n_rows = r;
    return 0;
}

static void csv_free(csv_t *c)
{
    size_t r, k;

    for (r = 0; r < 64; r++)
        for (k = 0; k < 32; k++)
            free(c->cell[r][k]);
}

static long csv_col(const csv_t *c, const char *name)
{
    size_t k;

    for (k = 0; k < c->n_cols[0]; k++)
        if (strcmp(c->cell[0][k], name) == 0)
            return (long)k;
    return -1;
}

static void test_csv_json_h5(void)
{
    hs_sweep_results_t *res = NULL;
    hs_sweep_t *sw = run_sweep(1, &res, 0);
    const char *dir = hs_test_tmpdir("sweep_out");
    char csvp[512], jsp[512], h5p[512], *text, *text2;
    hs_error_t e;
    csv_t c;
    size_t p;
    long cs, ce, cb, cd;

    snprintf(csvp, sizeof csvp, "%s/s.csv", dir);
    snprintf(jsp, sizeof jsp, "%s/s.json", dir);
    snprintf(h5p, sizeof h5p, "%s/s.h5", dir);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_write(sw, res, HS_SWEEP_FMT_CSV, csvp, &e),
                          HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_write(sw, res, HS_SWEEP_FMT_JSON, jsp,
                                         &e), HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_write(sw, res, HS_SWEEP_FMT_H5, h5p, &e),
                          HS_OK);

    /* CSV: the documented header, one row per point */
    text = hs_test_slurp(csvp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    {
        static const char hdr[] =
            "# format: hetsim.sweep, format_version: 2 (docs/output.md)\n"
            "device_types.A.batch,network.default_bandwidth,"
            "network.latency,n_devices,predictor_recommended,"
            "step_recommended_ns,epoch_recommended_ns,total_recommended_ns,"
            "step_source_ns,epoch_source_ns,total_source_ns,"
            "step_extended_ns,epoch_extended_ns,total_extended_ns,"
            "step_replay_ns,epoch_replay_ns,total_replay_ns,"
            "iters_per_epoch,bottleneck_device,bottleneck_bound,"
            "bottleneck_link,error\n";
        CU_ASSERT(strncmp(text, hdr, strlen(hdr)) == 0);
    }
    /* the rows after the format line */
    CU_ASSERT_EQUAL_FATAL(csv_parse(strchr(text, '\n') + 1, &c), 0);
    HS_ASSERT_I64_EQ(c.n_rows, 13);
    cs = csv_col(&c, "step_source_ns");
    ce = csv_col(&c, "error");
    cb = csv_col(&c, "network.default_bandwidth");
    cd = csv_col(&c, "step_replay_ns");
    CU_ASSERT_FATAL(cs >= 0 && ce >= 0 && cb >= 0 && cd >= 0);
    for (p = 0; p < 12; p++) {
        char **row = c.cell[p + 1];
        HS_ASSERT_I64_EQ(c.n_cols[p + 1], c.n_cols[0]);
        CU_ASSERT_STRING_EQUAL(row[cb], hs_sweep_value(sw, p, 1));
        if (res->error[p] != NULL) {
            CU_ASSERT_STRING_EQUAL(row[ce], res->error[p]);
            CU_ASSERT_STRING_EQUAL(row[cs], "");
        } else {
            HS_ASSERT_I64_EQ(strtoll(row[cs], NULL, 10), res->rec[p].step_source_ns);
            HS_ASSERT_I64_EQ(strtoll(row[cd], NULL, 10),
                             res->rec[p].step_replay_ns);
            CU_ASSERT_STRING_EQUAL(row[ce], "");
        }
    }
    csv_free(&c);

    /* the same sweep written again: the same bytes */
    CU_ASSERT_EQUAL(hs_sweep_write(sw, res, HS_SWEEP_FMT_CSV, csvp, &e),
                    HS_OK);
    text2 = hs_test_slurp(csvp);
    CU_ASSERT(text2 != NULL && strcmp(text, text2) == 0);
    free(text);
    free(text2);

    /* JSON, through yajl's tree parser */
    text = hs_test_slurp(jsp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    {
        char ebuf[256];
        yajl_val root = yajl_tree_parse(text, ebuf, sizeof ebuf);
        const char *pts_path[] = {"points", NULL};
        const char *nf_path[] = {"n_failed", NULL};
        const char *fmt_path[] = {"format", NULL};
        yajl_val pts, nf, fmt;
        CU_ASSERT_PTR_NOT_NULL_FATAL(root);
        pts = yajl_tree_get(root, pts_path, yajl_t_array);
        nf = yajl_tree_get(root, nf_path, yajl_t_number);
        fmt = yajl_tree_get(root, fmt_path, yajl_t_string);
        CU_ASSERT_PTR_NOT_NULL_FATAL(pts);
        CU_ASSERT_PTR_NOT_NULL_FATAL(nf);
        CU_ASSERT_STRING_EQUAL(YAJL_GET_STRING(fmt), HS_SWEEP_FORMAT);
        HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(nf), 4);
        HS_ASSERT_I64_EQ(YAJL_GET_ARRAY(pts)->len, 12);
        for (p = 0; p < 12; p++) {
            yajl_val pt = YAJL_GET_ARRAY(pts)->values[p];
            const char *sp[] = {"step_source_ns", NULL};
            const char *ep[] = {"error", NULL};
            const char *vp[] = {"values", "network.latency", NULL};
            yajl_val st = yajl_tree_get(pt, sp, yajl_t_any);
            yajl_val er = yajl_tree_get(pt, ep, yajl_t_any);
            yajl_val v = yajl_tree_get(pt, vp, yajl_t_string);
            CU_ASSERT_PTR_NOT_NULL_FATAL(v);
            CU_ASSERT_STRING_EQUAL(YAJL_GET_STRING(v),
                                   hs_sweep_value(sw, p, 2));
            if (res->error[p] != NULL) {
                CU_ASSERT(YAJL_IS_NULL(st));
                CU_ASSERT_STRING_EQUAL(YAJL_GET_STRING(er), res->error[p]);
            } else {
                HS_ASSERT_I64_EQ(YAJL_GET_INTEGER(st), res->rec[p].step_source_ns);
                CU_ASSERT(YAJL_IS_NULL(er));
            }
        }
        yajl_tree_free(root);
    }
    free(text);

    /* HDF5, with the C API: pick columns by name */
    {
        hid_t f = H5Fopen(h5p, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t ds = f >= 0 ? H5Dopen2(f, "sweep", H5P_DEFAULT) : -1;
        hid_t ft = ds >= 0 ? H5Dget_type(ds) : -1;
        hid_t et, kt, mt, a, at;
        hsize_t n = 0;
        hid_t sp;
        size_t elen, klen, row;
        char *buf, *opts = NULL;

        CU_ASSERT_FATAL(ds >= 0 && ft >= 0);
        sp = H5Dget_space(ds);
        H5Sget_simple_extent_dims(sp, &n, NULL);
        H5Sclose(sp);
        HS_ASSERT_I64_EQ(n, 12);
        et = H5Tget_member_type(ft, (unsigned)H5Tget_member_index(ft,
                                                                  "error"));
        kt = H5Tget_member_type(ft, (unsigned)H5Tget_member_index(
                                        ft, "device_types.A.batch"));
        CU_ASSERT_FATAL(et >= 0 && kt >= 0);
        elen = H5Tget_size(et);
        klen = H5Tget_size(kt);
        row = 8 + 8 + 4 + elen + klen;
        mt = H5Tcreate(H5T_COMPOUND, row);
        H5Tinsert(mt, "step_source_ns", 0, H5T_NATIVE_INT64);
        H5Tinsert(mt, "step_replay_ns", 8, H5T_NATIVE_INT64);
        H5Tinsert(mt, "code", 16, H5T_NATIVE_INT32);
        H5Tinsert(mt, "error", 20, et);
        H5Tinsert(mt, "device_types.A.batch", 20 + elen, kt);
        buf = calloc(12, row);
        CU_ASSERT_FATAL(H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                buf) >= 0);
        for (p = 0; p < 12; p++) {
            const char *r = buf + p * row;
            int64_t st, rst;
            int32_t code;
            memcpy(&st, r, 8);
            memcpy(&rst, r + 8, 8);
            memcpy(&code, r + 16, 4);
            HS_ASSERT_I64_EQ(st, res->rec[p].step_source_ns);
            HS_ASSERT_I64_EQ(rst, res->rec[p].step_replay_ns);
            HS_ASSERT_I64_EQ(code, res->rec[p].code);
            CU_ASSERT_STRING_EQUAL(r + 20, res->error[p] ? res->error[p]
                                                        : "");
            CU_ASSERT_STRING_EQUAL(r + 20 + elen, hs_sweep_value(sw, p, 0));
        }
        a = H5Aopen(ds, "options", H5P_DEFAULT);
        at = H5Tcopy(H5T_C_S1);
        H5Tset_size(at, H5T_VARIABLE);
        H5Tset_cset(at, H5T_CSET_UTF8);
        CU_ASSERT_FATAL(a >= 0 && H5Aread(a, at, &opts) >= 0 && opts);
        CU_ASSERT_STRING_EQUAL(opts, hs_sweep_options_text(sw));
        H5free_memory(opts);
        H5Tclose(at);
        H5Aclose(a);
        CU_ASSERT(H5Aexists(ds, "scenario_hash") > 0);
        CU_ASSERT(H5Aexists(ds, "scenario_file") > 0);
        free(buf);
        H5Tclose(mt);
        H5Tclose(et);
        H5Tclose(kt);
        H5Tclose(ft);
        H5Dclose(ds);
        H5Fclose(f);
    }
    /* and again: byte for byte */
    {
        char h5b[600];
        char *x, *y;
        FILE *fa, *fb;
        long la, lb;
        snprintf(h5b, sizeof h5b, "%s/s2.h5", dir);
        CU_ASSERT_EQUAL(hs_sweep_write(sw, res, HS_SWEEP_FMT_H5, h5b, &e),
                        HS_OK);
        fa = fopen(h5p, "rb");
        fb = fopen(h5b, "rb");
        CU_ASSERT_FATAL(fa != NULL && fb != NULL);
        fseek(fa, 0, SEEK_END);
        fseek(fb, 0, SEEK_END);
        la = ftell(fa);
        lb = ftell(fb);
        HS_ASSERT_I64_EQ(la, lb);
        rewind(fa);
        rewind(fb);
        x = malloc((size_t)la);
        y = malloc((size_t)la);
        CU_ASSERT(fread(x, 1, (size_t)la, fa) == (size_t)la);
        CU_ASSERT(fread(y, 1, (size_t)la, fb) == (size_t)la);
        CU_ASSERT(la == lb && memcmp(x, y, (size_t)la) == 0);
        free(x);
        free(y);
        fclose(fa);
        fclose(fb);
    }
    hs_sweep_results_free(res);
    hs_sweep_free(sw);
}

/* The terminal table has a header, one line per point and a summary. */
static void test_table(void)
{
    hs_sweep_results_t *res = NULL;
    hs_sweep_t *sw = run_sweep(0, &res, 0);
    const char *path = hs_test_write_file("sweep-table.txt", "");
    FILE *f = fopen(path, "w");
    hs_error_t e;
    char *text;

    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(hs_sweep_print_table(sw, res, f, &e), HS_OK);
    fclose(f);
    text = hs_test_slurp(path);
    HS_ASSERT_STR_CONTAINS(text, "device_types.A.batch");
    HS_ASSERT_STR_CONTAINS(text, "12 points, 4 failed");
    /* headers in words and units, not _ns names; a closed-only sweep
       recommends the extended form */
    CU_ASSERT(strstr(text, "_ns") == NULL);
    HS_ASSERT_STR_CONTAINS(text, "step (replay)");
    HS_ASSERT_STR_CONTAINS(text, " extended ");
    free(text);
    hs_sweep_results_free(res);
    hs_sweep_free(sw);
}

/* The CSV read back as a table, and the gnuplot data made from it. */
static void test_table_read_and_plot_data(void)
{
    hs_sweep_results_t *res = NULL;
    hs_sweep_t *sw = run_sweep(1, &res, 0);
    const char *dir = hs_test_tmpdir("sweep_plot");
    char csvp[600], datp[600], *text;
    hs_sweep_table_t *t = NULL;
    hs_sweep_plot_info_t info;
    hs_error_t e;
    FILE *f;
    size_t r;

    snprintf(csvp, sizeof csvp, "%s/s.csv", dir);
    snprintf(datp, sizeof datp, "%s/s.dat", dir);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_write(sw, res, HS_SWEEP_FMT_CSV, csvp, &e),
                          HS_OK);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_table_read(csvp, &t, &e), HS_OK);
    HS_ASSERT_I64_EQ(t->n_keys, 3);
    HS_ASSERT_I64_EQ(t->n_rows, 12);
    CU_ASSERT(t->has_replay);
    CU_ASSERT_STRING_EQUAL(t->keys[2], "network.latency");
    for (r = 0; r < 12; r++) {
        CU_ASSERT_STRING_EQUAL(t->values[r * 3 + 1], hs_sweep_value(sw, r, 1));
        HS_ASSERT_I64_EQ(t->fig[r * HS_SWEEP_TAB_FIGS + HS_SWEEP_TAB_STEP],
                         res->error[r] ? -1 : res->rec[r].step_source_ns);
        HS_ASSERT_I64_EQ(t->fig[r * HS_SWEEP_TAB_FIGS + HS_SWEEP_TAB_RTOTAL],
                         res->error[r] ? -1 : res->rec[r].total_replay_ns);
    }
    /* bandwidth on x (numeric, Gbit/s), one line per batch; latency held
       at 10us; the batch-0 rows (failed) are left out */
    f = fopen(datp, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL_FATAL(hs_sweep_plot_data(t, "network.default_bandwidth",
                                             "device_types.A.batch", "step",
                                             f, &info, &e), HS_OK);
    fclose(f);
    HS_ASSERT_I64_EQ(info.n_series, 2);
    CU_ASSERT_STRING_EQUAL(info.series[0], "device_types.A.batch=32");
    CU_ASSERT(info.x_numeric);
    HS_ASSERT_I64_EQ(info.n_points, 4);
    CU_ASSERT_STRING_EQUAL(info.fixed, "network.latency=10us");
    HS_ASSERT_STR_CONTAINS(info.xlabel, "Gbit/s");
    text = hs_test_slurp(datp);
    /* 1 GB/s = 8 Gbit/s; the figures in ms */
    {
        char want[128];
        snprintf(want, sizeof want, "8 \"1GB/s\" %.9g %.9g\n",
                 (double)res->rec[4].step_source_ns / info.unit_ns,
                 (double)res->rec[4].step_replay_ns / info.unit_ns);
        HS_ASSERT_STR_CONTAINS(text, want);
    }
    free(text);
    hs_sweep_plot_info_clear(&info);
    /* categorical x; unknown key and figure */
    f = fopen(datp, "w");
    CU_ASSERT_EQUAL(hs_sweep_plot_data(t, "network.latency", "", "total", f,
                                       &info, &e), HS_OK);
    CU_ASSERT(info.x_numeric);   /* times are numbers too (ms) */
    HS_ASSERT_I64_EQ(info.n_series, 1);
    hs_sweep_plot_info_clear(&info);
    HS_ASSERT_I64_EQ(hs_sweep_plot_data(t, "nope", NULL, "step", f, &info,
                                        &e), HS_ERR_USAGE);
    HS_ASSERT_I64_EQ(hs_sweep_plot_data(t, NULL, NULL, "week", f, &info, &e),
                     HS_ERR_USAGE);
    fclose(f);
    hs_sweep_table_free(t);
    /* a malformed figure: file:line:col */
    hs_test_write(csvp, "k,n_devices,step_ns,error\n1,4,12,\n2,4,x1,\n");
    HS_ASSERT_I64_EQ(hs_sweep_table_read(csvp, &t, &e), HS_ERR_SYNTAX);
    HS_ASSERT_STR_CONTAINS(e.msg, "s.csv:3:5:");
    hs_sweep_results_free(res);
    hs_sweep_free(sw);
}

static int register_sweep(void)
{
    CU_pSuite s = CU_add_suite("sweep", NULL, NULL);

    if (s == NULL)
        return -1;
    if (CU_add_test(s, "lists and ranges", test_lists_and_ranges) == NULL ||
        CU_add_test(s, "key classes", test_key_classes) == NULL ||
        CU_add_test(s, "product and zip", test_product_and_zip) == NULL ||
        CU_add_test(s, "points against the reference",
                    test_points_against_reference) == NULL ||
        CU_add_test(s, "CSV, JSON and HDF5 read back", test_csv_json_h5) ==
            NULL ||
        CU_add_test(s, "terminal table", test_table) == NULL ||
        CU_add_test(s, "table read back and plot data",
                    test_table_read_and_plot_data) == NULL)
        return -1;
    return 0;
}

HS_TEST_MAIN(register_sweep)
