/*
 * hs_netmeasure.c -- pairwise iperf3 bandwidth measurement (see
 * hs_netmeasure.h for which pairs, where each end runs, and what a failure
 * leaves behind).
 *
 * A round is a set of pairs no two of which share a device.  Its servers
 * start first; its clients follow and are retried while the server is not
 * yet listening.  The loop polls the children every 10 ms and gives the
 * round time + omit + slack before it stops what is left.  Children write
 * into files of a private temporary directory: the client's JSON report
 * (stdout) and each end's stderr, which explain a failure.
 */
#include "hs_netmeasure.h"
#include "hs_jcheck.h"
#include "hs_valid.h"
#include "hs_limits.h"
#include "hs_atomic.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "hs_spawn.h"

#define HS__NM_RETRY_NS (5LL * 1000000000)   /* "refused" retried this long */
#define HS__NM_OUT_MAX (8u << 20)             /* iperf3 JSON read at most */

void hs_nm_opts_init(hs_nm_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->iperf3 = NULL;
    o->time_s = 3.0;
    o->omit_s = 1;
    o->port = 5201;
    o->connect_ms = 3000;
    o->slack_ns = 30LL * 1000000000;
}

void hs_nm_result_clear(hs_nm_result_t *res)
{
    if (res == NULL)
        return;
    free(res->pairs);
    memset(res, 0, sizeof *res);
}

/* Greedy round assignment: each pair goes to the first round in which
   neither end is busy.  used[] is n_rounds_max x n bytes. */
hs_err_t hs_nm_plan(size_t n, const uint32_t *ring, int all_pairs,
                    hs_nm_result_t *res, hs_error_t *err)
{
    size_t np, i, j, k = 0, max_rounds;
    unsigned char *used = NULL;

    memset(res, 0, sizeof *res);
    if (n < 2)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "measure-bw: need at least 2 devices, have %zu",
                             n);
    if (all_pairs < HS_NM_RING_EDGES || all_pairs > HS_NM_ORDERED_PAIRS)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "measure-bw: pair plan %d is not one of ring "
                             "edges (0), all pairs (1), ordered pairs (2)",
                             all_pairs);
    if (all_pairs == HS_NM_ORDERED_PAIRS)
        np = n * (n - 1);
    else if (all_pairs)
        np = n * (n - 1) / 2;
    else
        np = n;     /* ring edges; for n = 2 both directions */
    res->pairs = calloc(np, sizeof *res->pairs);
    /* ordered pairs take one round each and need no used[] */
    max_rounds = all_pairs == HS_NM_ORDERED_PAIRS ? 1 : np;
    used = calloc(max_rounds * n, 1);
    if (res->pairs == NULL || used == NULL) {
        free(used);
        hs_nm_result_clear(res);
        return hs_error_setf(err, HS_ERR_NOMEM, "measure-bw: out of memory");
    }
    if (all_pairs == HS_NM_ORDERED_PAIRS) {
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                if (j != i) {
                    res->pairs[k].from = (uint32_t)i;
                    res->pairs[k].round = (unsigned)k;
                    res->pairs[k++].to = (uint32_t)j;
                }
        res->n_pairs = np;
        res->n_rounds = (unsigned)np;
        free(used);
        return HS_OK;
    } else if (all_pairs) {
        for (i = 0; i < n; i++)
            for (j = i + 1; j < n; j++) {
                res->pairs[k].from = (uint32_t)i;
                res->pairs[k++].to = (uint32_t)j;
            }
    } else {
        for (i = 0; i < n; i++) {
            uint32_t a = ring ? ring[i] : (uint32_t)i;
            uint32_t b = ring ? ring[(i + 1) % n] : (uint32_t)((i + 1) % n);

            res->pairs[k].from = a;
            res->pairs[k++].to = b;
        }
    }
    res->n_pairs = np;
    for (k = 0; k < np; k++) {
        hs_nm_pair_t *p = &res->pairs[k];
        size_t r = 0;

        while (used[r * n + p->from] || used[r * n + p->to])
            r++;
        used[r * n + p->from] = used[r * n + p->to] = 1;
        p->round = (unsigned)r;
        if (r + 1 > res->n_rounds)
            res->n_rounds = (unsigned)(r + 1);
    }
    free(used);
    return HS_OK;
}

/* iperf3 takes whole seconds: time_s rounded, at least 1. */
static unsigned hs__nm_secs(double time_s)
{
    return time_s < 1.5 ? 1u : (unsigned)(time_s + 0.5);
}

/* The state of one pair while its round runs. */
typedef struct hs__nm_run_s {
    hs_nm_pair_t *pair;
    unsigned port;
    hs_child_t server, client;
    int client_started;
    int resolved;
    int external;          /* failure is iperf3/launcher missing */
    int64_t retry_at_ns;   /* 0: no retry pending */
    char out_path[PATH_MAX], cerr_path[PATH_MAX], serr_path[PATH_MAX];
} hs__nm_run_t;

static void hs__nm_fail(hs__nm_run_t *r, int external, const char *fmt,
                        const char *what)
{
    r->resolved = 1;
    r->pair->ok = 0;
    r->external = external;
    snprintf(r->pair->why, sizeof r->pair->why, fmt, what);
}

static int hs__looks_missing(const char *text)
{
    return text != NULL
           && (strstr(text, "No such file") != NULL
               || strstr(text, "not found") != NULL
               || strstr(text, "cannot run") != NULL);
}

/* Starts the command cmd for host h through the launcher (or locally). */
static hs_err_t hs__nm_start(const hs_nm_opts_t *o, const hs_nm_host_t *h,
                             char *const cmd[], const char *out,
                             const char *errp, hs_child_t *c,
                             hs_error_t *err)
{
    char **argv = NULL;
    hs_err_t rc = hs_launch_argv(o->launcher, o->n_launcher, h->addr,
                                 h->name, cmd, "measure-bw", &argv, err);

    if (rc != HS_OK)
        return rc;
    rc = hs_spawn(argv, NULL, 0, out, errp, c, err);
    hs_argv_free(argv);
    return rc;
}

static void hs__nm_start_client(const hs_nm_opts_t *o,
                                const hs_nm_host_t *hosts,
                                hs__nm_run_t *r)
{
    char port[16], t[32], omit[16], cto[16];
    const char *prog = o->iperf3 ? o->iperf3 : "iperf3";
    char *cmd[16];
    size_t k = 0;
    hs_error_t e;

    snprintf(port, sizeof port, "%u", r->port);
    snprintf(t, sizeof t, "%u", hs__nm_secs(o->time_s));
    snprintf(omit, sizeof omit, "%u", o->omit_s);
    snprintf(cto, sizeof cto, "%u", o->connect_ms);
    cmd[k++] = (char *)prog;
    cmd[k++] = "-c";
    cmd[k++] = (char *)hosts[r->pair->to].addr;
    cmd[k++] = "-p";
    cmd[k++] = port;
    cmd[k++] = "-J";
    cmd[k++] = "-t";
    cmd[k++] = t;
    if (o->omit_s > 0) {
        cmd[k++] = "-O";
        cmd[k++] = omit;
    }
    cmd[k++] = "--connect-timeout";
    cmd[k++] = cto;
    cmd[k] = NULL;
    unlink(r->out_path);
    unlink(r->cerr_path);
    hs_error_clear(&e);
    if (hs__nm_start(o, &hosts[r->pair->from], cmd, r->out_path,
                     r->cerr_path, &r->client, &e) != HS_OK) {
        hs__nm_fail(r, e.code == HS_ERR_EXTERNAL, "iperf3 client: %.200s",
                    e.msg);
        return;
    }
    r->client_started = 1;
}

/* Reads the client's JSON report.  Returns 1 with *bps on success, 0 with
   the error text in why otherwise. */
static int hs__nm_parse(const char *path, double *bps, char *why,
                        size_t why_len)
{
    static const char *p_bps[] = {"end", "sum_received", "bits_per_second",
                                  NULL};
    static const char *p_err[] = {"error", NULL};
    char ebuf[256];
    char *text = hs_read_small_file(path, HS__NM_OUT_MAX);
    yajl_val root, v;
    int ok = 0;

    why[0] = '\0';
    if (text == NULL || text[0] == '\0') {
        snprintf(why, why_len, "no report");
        free(text);
        return 0;
    }
    {
        hs_error_t jerr;
        if (hs_json_check(path, text, strlen(text), &jerr) != HS_OK) {
            snprintf(why, why_len, "unreadable JSON report: %.150s", jerr.msg);
            free(text);
            return 0;
        }
    }
    root = yajl_tree_parse(text, ebuf, sizeof ebuf);
    free(text);
    if (root == NULL) {
        snprintf(why, why_len, "unreadable JSON report");
        return 0;
    }
    v = yajl_tree_get(root, p_err, yajl_t_string);
    if (v != NULL) {
        hs_valid_quote(YAJL_GET_STRING(v), why, why_len);
    } else {
        v = yajl_tree_get(root, p_bps, yajl_t_number);
        if (v != NULL) {
            double x = YAJL_IS_DOUBLE(v) ? YAJL_GET_DOUBLE(v)
                       : (double)YAJL_GET_INTEGER(v);

            /* the same limits the scenario's bandwidths keep (predict
               refuses a links CSV past them): 1 bit/s to 8 Pbit/s */
            if (!isfinite(x) || x <= 0)
                snprintf(why, why_len, "measured %g bit/s", x);
            else if (x / 8 < HS_LIMIT_BW_MIN_BYTES_PER_S ||
                     x / 8 > HS_LIMIT_BW_MAX_BYTES_PER_S)
                snprintf(why, why_len,
                         "reported %g bit/s, outside the limits (1 bit/s "
                         "to 8 Pbit/s): not a measurement", x);
            else {
                *bps = x;
                ok = 1;
            }
        } else
            snprintf(why, why_len, "report lacks end.sum_received");
    }
    yajl_tree_free(root);
    return ok;
}

/* Why a child failed: its stderr's last line, else its exit status. */
static void hs__nm_child_why(const hs_child_t *c, const char *errp,
                             char *buf, size_t len)
{
    char *t = hs_read_small_file(errp, 64 * 1024);
    char line[200];

    hs_last_line(t, line, sizeof line);
    free(t);
    if (line[0] != '\0')
        snprintf(buf, len, "%s", line);
    else
        snprintf(buf, len, "exit status %d", c->status);
}

/* Starts one round's iperf3 servers (one test each, on the runs' target
   hosts), their outputs under dir; a run whose server cannot start is
   resolved as failed. */
static void hs__nm_start_servers(const hs_nm_host_t *hosts,
                                 const hs_nm_opts_t *o, const char *dir,
                                 hs__nm_run_t *runs, size_t nr)
{
    const char *prog = o->iperf3 ? o->iperf3 : "iperf3";
    size_t i;
    hs_error_t e;

    for (i = 0; i < nr; i++) {
        hs__nm_run_t *r = &runs[i];
        char port[16];
        char *cmd[8];

        if (snprintf(r->out_path, sizeof r->out_path, "%s/c%zu.json", dir,
                     i) >= (int)sizeof r->out_path
            || snprintf(r->cerr_path, sizeof r->cerr_path, "%s/c%zu.err",
                        dir, i) >= (int)sizeof r->cerr_path
            || snprintf(r->serr_path, sizeof r->serr_path, "%s/s%zu.err",
                        dir, i) >= (int)sizeof r->serr_path) {
            hs__nm_fail(r, 0, "%s", "temporary path too long");
            continue;
        }
        unlink(r->serr_path);
        snprintf(port, sizeof port, "%u", r->port);
        cmd[0] = (char *)prog;
        cmd[1] = "-s";
        cmd[2] = "-1";
        cmd[3] = "-p";
        cmd[4] = port;
        cmd[5] = NULL;
        hs_error_clear(&e);
        if (hs__nm_start(o, &hosts[r->pair->to], cmd, NULL, r->serr_path,
                         &r->server, &e) != HS_OK)
            hs__nm_fail(r, e.code == HS_ERR_EXTERNAL, "iperf3 server: %.200s",
                        e.msg);
    }
}

/* Looks at unresolved run r at time now (the round started at start):
   starts its client when a retry is due; once the client has ended,
   resolves r with the measured bandwidth, or schedules a retry when the
   server was not listening yet, or fails r with the reason. */
static void hs__nm_check(const hs_nm_host_t *hosts, const hs_nm_opts_t *o,
                         hs__nm_run_t *r, int64_t now, int64_t start)
{
    char why[200];
    double bps = 0;

    if (!r->client_started) {
        if (r->retry_at_ns != 0 && now >= r->retry_at_ns) {
            r->retry_at_ns = 0;
            hs__nm_start_client(o, hosts, r);
        }
        return;
    }
    if (!hs_child_poll(&r->client))
        return;
    r->client_started = 0;
    if (hs__nm_parse(r->out_path, &bps, why, sizeof why)) {
        r->pair->ok = 1;
        r->pair->bw_bytes_per_s = bps / 8.0;
        r->resolved = 1;
        if (o->progress != NULL)
            fprintf(o->progress, "measured %s (%s) -> %s (%s): "
                    "%.3f Mbit/s\n", hosts[r->pair->from].name,
                    hosts[r->pair->from].addr,
                    hosts[r->pair->to].name,
                    hosts[r->pair->to].addr, bps / 1e6);
        return;
    }
    if (strcmp(why, "no report") == 0)
        hs__nm_child_why(&r->client, r->cerr_path, why, sizeof why);
    if (strstr(why, "refused") != NULL
        && now - start < HS__NM_RETRY_NS
        && !hs_child_poll(&r->server)) {
        r->retry_at_ns = now + 100 * 1000000;
        return;
    }
    if (hs_child_poll(&r->server) && r->server.status != 0) {
        char swhy[200];

        hs__nm_child_why(&r->server, r->serr_path, swhy,
                         sizeof swhy);
        hs__nm_fail(r, hs__looks_missing(swhy), "iperf3 server: %.200s",
                    swhy);
    } else
        hs__nm_fail(r, hs__looks_missing(why), "iperf3 client: %.200s",
                    why);
}

/* Ends a round: fails the runs still unresolved (timed out after
   deadline - start), stops their clients, and gives the servers 2 s to
   end by themselves before stopping them. */
static void hs__nm_finish(hs__nm_run_t *runs, size_t nr, int64_t start,
                          int64_t deadline)
{
    hs_child_t *srv;
    size_t i;

    for (i = 0; i < nr; i++) {
        hs__nm_run_t *r = &runs[i];

        if (!r->resolved) {
            char t[64];

            snprintf(t, sizeof t, "%.0f s",
                     (double)(deadline - start) / 1e9);
            hs__nm_fail(r, 0, "timed out after %s", t);
        }
        if (r->client_started)
            hs_child_kill(&r->client, 500 * 1000000);
    }
    /* Servers end by themselves after their one test; give them 2 s. */
    srv = calloc(nr, sizeof *srv);
    if (srv != NULL) {
        for (i = 0; i < nr; i++)
            srv[i] = runs[i].server;
        hs_child_wait_all(srv, nr, hs_now_ns() + 2000000000LL, 0);
        for (i = 0; i < nr; i++) {
            runs[i].server = srv[i];
        }
        free(srv);
    }
    for (i = 0; i < nr; i++)
        hs_child_kill(&runs[i].server, 500 * 1000000);
}

/* Measures the nr runs of one round at once: servers, then clients, each
   run resolved with its bandwidth or a failure; nothing left running. */
static void hs__nm_round(const hs_nm_host_t *hosts, const hs_nm_opts_t *o,
                         const char *dir, hs__nm_run_t *runs, size_t nr)
{
    int64_t start, deadline;
    size_t i, left;

    hs__nm_start_servers(hosts, o, dir, runs, nr);
    hs_sleep_ns(150 * 1000000);
    start = hs_now_ns();
    for (i = 0; i < nr; i++)
        if (!runs[i].resolved)
            hs__nm_start_client(o, hosts, &runs[i]);
    deadline = start + (int64_t)hs__nm_secs(o->time_s) * 1000000000
               + (int64_t)o->omit_s * 1000000000
               + o->slack_ns;
    for (;;) {
        int64_t now = hs_now_ns();

        left = 0;
        for (i = 0; i < nr; i++) {
            if (runs[i].resolved)
                continue;
            left++;
            hs__nm_check(hosts, o, &runs[i], now, start);
        }
        if (left == 0 || now >= deadline)
            break;
        hs_sleep_ns(10 * 1000000);
    }
    hs__nm_finish(runs, nr, start, deadline);
}

hs_err_t hs_nm_measure(const hs_nm_host_t *hosts, size_t n,
                       const uint32_t *ring, const hs_nm_opts_t *o,
                       hs_nm_result_t *res, hs_error_t *err)
{
    char dir[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    hs__nm_run_t *runs = NULL;
    hs_err_t rc;
    unsigned round;
    size_t i, first_bad = SIZE_MAX;
    int any_external = 0;

    rc = hs_nm_plan(n, ring, o->all_pairs, res, err);
    if (rc != HS_OK)
        return rc;
    if (o->time_s <= 0)
        return hs_error_setf(err, HS_ERR_RANGE,
                             "measure-bw: time must be > 0, not %g",
                             o->time_s);
    snprintf(dir, sizeof dir, "%s/hetsim-bw-XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL)
        return hs_error_setf(err, HS_ERR_IO, "%s: %s", dir, strerror(errno));
    runs = calloc(res->n_pairs, sizeof *runs);
    if (runs == NULL) {
        rmdir(dir);
        return hs_error_setf(err, HS_ERR_NOMEM, "measure-bw: out of memory");
    }
    for (round = 0; round < res->n_rounds; round++) {
        size_t nr = 0;

        for (i = 0; i < res->n_pairs; i++)
            if (res->pairs[i].round == round) {
                memset(&runs[nr], 0, sizeof runs[nr]);
                runs[nr].pair = &res->pairs[i];
                runs[nr].port = o->port + (unsigned)nr;
                nr++;
            }
        hs__nm_round(hosts, o, dir, runs, nr);
        for (i = 0; i < nr; i++) {
            unlink(runs[i].out_path);
            unlink(runs[i].cerr_path);
            unlink(runs[i].serr_path);
            if (runs[i].external)
                any_external = 1;
        }
    }
    rmdir(dir);
    free(runs);
    res->n_failed = 0;
    for (i = 0; i < res->n_pairs; i++)
        if (!res->pairs[i].ok) {
            res->n_failed++;
            if (first_bad == SIZE_MAX)
                first_bad = i;
        }
    if (first_bad != SIZE_MAX) {
        const hs_nm_pair_t *p = &res->pairs[first_bad];

        return hs_error_setf(err, any_external ? HS_ERR_EXTERNAL
                                               : HS_ERR_HOST,
                             "measure-bw: %s (%s) -> %s (%s): %s"
                             " (%zu of %zu pairs failed)",
                             hosts[p->from].name, hosts[p->from].addr,
                             hosts[p->to].name, hosts[p->to].addr, p->why,
                             res->n_failed, res->n_pairs);
    }
    return HS_OK;
}

hs_err_t hs_nm_write_csv(const char *path, const hs_nm_host_t *hosts,
                         const hs_nm_result_t *res, hs_error_t *err)
{
    hs_atomic_t af;
    size_t i;
    hs_err_t rc;

    if ((rc = hs_atomic_open(&af, path, err)) != HS_OK)
        return rc;
    for (i = 0; i < res->n_pairs; i++) {
        const hs_nm_pair_t *p = &res->pairs[i];

        if (!p->ok)
            continue;
        fprintf(af.f, "%s,%s,%.3fMbit/s\n", hosts[p->from].addr,
                hosts[p->to].addr, p->bw_bytes_per_s * 8.0 / 1e6);
    }
    return hs_atomic_commit(&af, err);
}

hs_err_t hs_nm_measure_scenario(const hs_scenario_t *s,
                                const hs_nm_opts_t *o, const char *csv_path,
                                hs_nm_result_t *res, hs_error_t *err)
{
    hs_nm_result_t local;
    hs_nm_result_t *r = res ? res : &local;
    hs_nm_host_t *hosts;
    hs_nm_opts_t oo = *o;
    hs_err_t rc;
    size_t i;

    memset(r, 0, sizeof *r);
    hosts = calloc(s->n_devices ? s->n_devices : 1, sizeof *hosts);
    if (hosts == NULL)
        return hs_error_setf(err, HS_ERR_NOMEM, "measure-bw: out of memory");
    for (i = 0; i < s->n_devices; i++) {
        hosts[i].name = s->devices[i].name;
        hosts[i].addr = s->devices[i].addr;
        if (hosts[i].addr == NULL || hosts[i].addr[0] == '\0') {
            rc = hs_error_setf(err, HS_ERR_SCHEMA,
                               "%s: device %s has no addr to measure",
                               s->file, hosts[i].name);
            goto out;
        }
    }
    if (oo.n_launcher == 0 && s->n_launcher > 0) {
        oo.launcher = s->launcher;
        oo.n_launcher = s->n_launcher;
    }
    rc = hs_nm_measure(hosts, s->n_devices, s->ring, &oo, r, err);
    if (rc == HS_OK) {
        rc = hs_nm_write_csv(csv_path, hosts, r, err);
    } else if (r->n_pairs > r->n_failed && r->n_pairs > 0) {
        char part[PATH_MAX];
        hs_error_t e2;

        snprintf(part, sizeof part, "%s.partial", csv_path);
        hs_error_clear(&e2);
        if (hs_nm_write_csv(part, hosts, r, &e2) == HS_OK && err != NULL) {
            size_t len = strlen(err->msg);

            snprintf(err->msg + len, sizeof err->msg - len,
                     "; the %zu measured pairs are in %s, %s left as it was",
                     r->n_pairs - r->n_failed, part, csv_path);
        }
    }
out:
    free(hosts);
    if (res == NULL)
        hs_nm_result_clear(&local);
    return rc;
}
