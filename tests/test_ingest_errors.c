/*
 * test_ingest_errors.c -- what the ingestion says about a bad trace or
 * sidecar (issue 15): every error about a trace's content reads
 *
 *   FILE: byte N: event #K ("name", ph X, ts T): what is wrong
 *
 * with the fields of the event read before the fault (the name cut and
 * cleaned), N the offset in the uncompressed JSON just past the faulty
 * value, K the event's index in traceEvents (or the bare array); a
 * sidecar's error names the file and the key (an element's index).  The
 * messages and codes are read from the hs_error_t, as data; plain and
 * gzip files give the same message.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hs_ingest.h"
#include "hs_sidecar.h"
#include "hs_test.h"

/* Writes text to name in the scratch folder, plain or gzipped; the path
   in buf. */
static const char *hs__put(char *buf, size_t cap, const char *name,
                           const char *text, int gz)
{
    snprintf(buf, cap, "%s/%s", hs_test_tmpdir("ingest-errors"), name);
    if (gz) {
        gzFile f = gzopen(buf, "wb");
        if (f == NULL)
            return NULL;
        gzwrite(f, text, (unsigned)strlen(text));
        gzclose(f);
    } else if (hs_test_write(buf, text) != 0) {
        return NULL;
    }
    return buf;
}

/* Ingests the one trace at path; the code, err filled. */
static hs_err_t hs__ingest(const char *path, hs_error_t *err)
{
    hs_ingest_t *ing = hs_ingest_new(NULL);
    hs_err_t rc;

    hs_error_clear(err);
    if (ing == NULL)
        return HS_ERR_NOMEM;
    rc = hs_ingest_add_file(ing, path, err);
    hs_ingest_free(ing);
    return rc;
}

/* One bad trace: its text, the code, the event part of the message, the
   complaint, and the token the offset must point just past (NULL: the end
   of the text). */
typedef struct hs__case_s {
    const char *name, *text;
    hs_err_t code;
    const char *where, *what, *token;
} hs__case_t;

static const hs__case_t hs__cases[] = {
    {"ts-string.json",
     "[{\"name\": \"ProfilerStep#0\", \"ph\": \"X\", \"ts\": 100, "
     "\"dur\": 50, \"tid\": 1, \"pid\": 1},\n"
     " {\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": \"one hundred\", "
     "\"dur\": 5, \"tid\": 1, \"pid\": 1}]\n",
     HS_ERR_SCHEMA, "event #1 (\"aten::mm\", ph X): ",
     "\"ts\" is not a number of microseconds", "\"one hundred\""},
    {"kineto-neg-dur.json",
     "{\"schemaVersion\": 1, \"traceEvents\": [\n"
     " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ok\", \"pid\": 1, "
     "\"tid\": 1, \"ts\": 1, \"dur\": 1},\n"
     " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\", "
     "\"pid\": 1, \"tid\": 1, \"ts\": 12.5, \"dur\": -3}]}\n",
     HS_ERR_SCHEMA, "event #1 (\"aten::add_\", ph X, ts 12.5): ",
     "negative \"dur\"", "-3"},
    {"not-object.json",
     "{\"traceEvents\": [{\"name\": \"a\", \"ph\": \"i\", \"ts\": 1}, 7]}",
     HS_ERR_SCHEMA, "", "event #1 of traceEvents is not an object", "7"},
    {"pid-list.json",
     "[{\"ts\": 3, \"name\": \"w\", \"pid\": [1]}]",
     HS_ERR_SCHEMA, "event #0 (\"w\", ts 3): ",
     "\"pid\" is neither a number nor a string", "\"pid\": ["},
    {"args-number.json",
     "[{\"ph\": \"B\", \"args\": 5}]",
     HS_ERR_SCHEMA, "event #0 (ph B): ", "\"args\" is not an object", "5"},
    {"ts-huge.json",
     "[{\"name\": \"big\", \"ts\": 1e300}]",
     HS_ERR_SCHEMA, "event #0 (\"big\"): ",
     "\"ts\" is not a number of microseconds that fits", "1e300"},
    {"name-number.json",
     "[{\"ph\": \"X\", \"ts\": 0.001, \"name\": 12}]",
     HS_ERR_SCHEMA, "event #0 (ph X, ts 0.001): ",
     "\"name\" is not a string", "12"},
    {"bad-json.json",
     "[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 5, \"dur\": 1},\n"
     " {\"name\": \"bad\", \"ph\": \"X\", \"ts\": 7, \"dur\": @}]",
     HS_ERR_SYNTAX, "event #1 (\"bad\", ph X, ts 7): ", "invalid JSON",
     NULL},
    {"truncated.json",
     "[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 5, \"dur\": 1},\n"
     " {\"name\": \"cut\", \"ph\": \"X\", \"ts\": 9",
     HS_ERR_SYNTAX, "event #1 (\"cut\", ph X, ts 9): ",
     "invalid JSON (truncated?)", NULL},
};

/* The offset the message must give: just past the token (unique in the
   text), or the text's length. */
static size_t hs__offset(const hs__case_t *c)
{
    if (c->token == NULL)
        return strlen(c->text);
    return (size_t)(strstr(c->text, c->token) - c->text) + strlen(c->token);
}

static void test_trace_errors(void)
{
    size_t i;
    int gz;

    for (i = 0; i < sizeof hs__cases / sizeof hs__cases[0]; i++)
        for (gz = 0; gz < 2; gz++) {
            const hs__case_t *c = &hs__cases[i];
            char path[1024], name[128], want[2048];
            hs_error_t err;
            hs_err_t rc;

            snprintf(name, sizeof name, "%s%s", c->name, gz ? ".gz" : "");
            CU_ASSERT_PTR_NOT_NULL_FATAL(
                hs__put(path, sizeof path, name, c->text, gz));
            rc = hs__ingest(path, &err);
            if (rc != c->code)
                fprintf(stderr, "\n%s: code %d: %s\n", name, (int)rc,
                        err.msg);
            CU_ASSERT_EQUAL(rc, c->code);
            CU_ASSERT_EQUAL(err.code, c->code);
            if (c->code == HS_ERR_SYNTAX && c->token == NULL &&
                strstr(c->what, "truncated") == NULL) {
                /* yajl reports a syntax error at the offset it stopped
                   at: the event and the complaint, any offset */
                snprintf(want, sizeof want, "%s: byte ", path);
                HS_ASSERT_STR_CONTAINS(err.msg, want);
                snprintf(want, sizeof want, "%s%s", c->where, c->what);
            } else {
                snprintf(want, sizeof want, "%s: byte %zu: %s%s", path,
                         hs__offset(c), c->where, c->what);
            }
            HS_ASSERT_STR_CONTAINS(err.msg, want);
        }
}

/* A long name with quotes, a backslash and a newline: cut to 57 bytes and
   "...", the unprintable and quoting bytes as '?'. */
static void test_name_cleaned(void)
{
    char text[1024], path[1024], want[512];
    hs_error_t err;

    snprintf(text, sizeof text,
             "[{\"name\": \"q\\\"uo\\\\te\\nd %s\", \"ph\": \"X\", "
             "\"ts\": \"x\"}]",
             "0123456789012345678901234567890123456789012345678901234567890");
    CU_ASSERT_PTR_NOT_NULL_FATAL(
        hs__put(path, sizeof path, "long-name.json", text, 0));
    CU_ASSERT_EQUAL(hs__ingest(path, &err), HS_ERR_SCHEMA);
    snprintf(want, sizeof want,
             "event #0 (\"q?uo?te?d 0123456789012345678901234567890123456"
             "7890123456...\", ph X): \"ts\" is not a number of "
             "microseconds");
    HS_ASSERT_STR_CONTAINS(err.msg, want);
}

/* Errors outside any event keep the offset alone, and the CLI prints the
   library's message with exit status 2. */
static void test_outside_events_and_cli(void)
{
    char path[1024], want[1200];
    hs_error_t err;
    hs_run_t r;

    CU_ASSERT_PTR_NOT_NULL_FATAL(
        hs__put(path, sizeof path, "te-string.json",
                "{\"traceEvents\": \"none\"}", 0));
    CU_ASSERT_EQUAL(hs__ingest(path, &err), HS_ERR_SCHEMA);
    snprintf(want, sizeof want, "%s: byte 22: \"traceEvents\" is not an "
             "array", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_PTR_NULL(strstr(err.msg, "event #"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(
        hs__put(path, sizeof path, "cli-bad.json.gz", hs__cases[0].text, 1));
    CU_ASSERT_EQUAL_FATAL(hs_run_hetsim(&r, "ingest", "--summary", path,
                                        NULL),
                          0);
    CU_ASSERT_EQUAL(r.status, 2);
    snprintf(want, sizeof want, "hetsim: %s: byte %zu: event #1 "
             "(\"aten::mm\", ph X): \"ts\" is not a number of microseconds\n",
             path, hs__offset(&hs__cases[0]));
    CU_ASSERT_STRING_EQUAL(r.err, want);
    hs_run_free(&r);
}

/* Sidecars: the file and the key. */
static void test_sidecar_errors(void)
{
    static const struct {
        const char *text, *msg;
        hs_err_t code;
    } cases[] = {
        {"{\"hetsim_sidecar\": 1, \"world_size\": \"two\", "
         "\"grad_bytes\": 1000}",
         "world_size: must be a positive integer", HS_ERR_SCHEMA},
        {"{\"hetsim_sidecar\": 1, \"grad_bytes\": 1000}",
         "world_size: missing", HS_ERR_SCHEMA},
        {"{\"hetsim_sidecar\": 1, \"world_size\": 2, \"rank\": -1, "
         "\"grad_bytes\": 1}",
         "rank: must be a non-negative integer", HS_ERR_SCHEMA},
        {"{\"hetsim_sidecar\": 1, \"world_size\": 2, "
         "\"bucket_bytes\": [1, -2, 3]}",
         "bucket_bytes[1]: must be a non-negative integer", HS_ERR_SCHEMA},
        {"{\"hetsim_sidecar\": 1, \"world_size\": 2, \"grad_bytes\": 5, "
         "\"bucket_bytes\": [1, 2]}",
         "bucket_bytes: add up to 3 bytes, grad_bytes says 5",
         HS_ERR_SCHEMA},
        {"{\"hetsim_sidecar\": 1, \"world_size\": 2, \"grad_bytes\": 5, "
         "\"buckets\": [{\"bytes\": 1, \"ready_ns\": 2}, "
         "{\"bytes\": 4, \"ready_ns\": \"x\"}]}",
         "buckets[1].ready_ns: must be a non-negative integer",
         HS_ERR_SCHEMA},
        {"{\"hetsim_sidecar\": 1, \"world_size\": 2, \"grad_bytes\": 5, "
         "\"buckets\": [{\"bytes\": 1}, 3]}",
         "buckets[1]: must be an object", HS_ERR_SCHEMA},
        {"{\"hetsim_sidecar\": 1, \"world_size\": 2, \"grad_bytes\": 5, "
         "\"backend\": 5}",
         "backend: must be a string", HS_ERR_SCHEMA},
        {"{\"hetsim_sidecar\": 1, \"world_size\": 2, \"grad_bytes\": 5, "
         "\"plain\": {\"t_dl_ns\": [1], \"t_fwd_ns\": [2], "
         "\"t_bwd_ns\": [-3], \"t_opt_ns\": [4]}}",
         "plain.t_bwd_ns[0]: must be a non-negative integer", HS_ERR_SCHEMA},
        {"{\"hetsim_sidecar\": 1, \"world_size\": 2, \"grad_bytes\": 5, "
         "\"comm\": 1}",
         "comm: must be \"after\" or \"overlap\"", HS_ERR_SCHEMA},
        {"{\"world_size\": 2}", "hetsim_sidecar: not a hetsim sidecar",
         HS_ERR_SCHEMA},
        {"[1, 2]", "the sidecar must be a JSON object", HS_ERR_SCHEMA},
        /* the streaming check before the tree parse gives the place */
        {"{\"hetsim_sidecar\": 1,", "invalid JSON", HS_ERR_SYNTAX},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024], name[64], want[1200];
        hs_sidecar_t sc;
        hs_error_t err;
        hs_err_t rc;

        snprintf(name, sizeof name, "bad%zu.sidecar.json", i);
        CU_ASSERT_PTR_NOT_NULL_FATAL(
            hs__put(path, sizeof path, name, cases[i].text, 0));
        hs_error_clear(&err);
        rc = hs_sidecar_load(path, &sc, &err);
        CU_ASSERT_EQUAL(rc, cases[i].code);
        CU_ASSERT_EQUAL(err.code, cases[i].code);
        if (strcmp(cases[i].msg, "invalid JSON") == 0)
            snprintf(want, sizeof want, "%s:1:22: %s", path, cases[i].msg);
        else
            snprintf(want, sizeof want, "%s: %s", path, cases[i].msg);
        HS_ASSERT_STR_CONTAINS(err.msg, want);
        CU_ASSERT_EQUAL(sc.loaded, 0);
    }
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("ingest errors", NULL, NULL);

    CU_add_test(s, "trace errors: file, byte, event, name, ph, ts",
                test_trace_errors);
    CU_add_test(s, "an event's name is cut and cleaned", test_name_cleaned);
    CU_add_test(s, "outside an event: the offset alone; the CLI",
                test_outside_events_and_cli);
    CU_add_test(s, "sidecar errors: the file and the key",
                test_sidecar_errors);
    return 0;
}

HS_TEST_MAIN(reg)
