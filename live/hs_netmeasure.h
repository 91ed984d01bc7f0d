/*
 * hs_netmeasure.h -- measuring the bandwidth between devices with iperf3
 * (docs/method.md, S100: the bandwidth between every pair of devices,
 * measured with iperf from the devices' addresses, one row
 * (device-ip-1, device-ip-2, bandwidth) per pair).
 *
 * Which pairs.  By default the ring edges: device ring[k] sends to
 * ring[k+1 mod N], so each edge is measured in the direction the ring
 * all-reduce uses it (N pairs; for N = 2 both directions).  With all_pairs,
 * every unordered pair {a, b} once, a before b in listing order, a sending
 * (N(N-1)/2 pairs; the row stands for both directions, as the source's
 * adjacency list does).  With all_pairs = HS_NM_ORDERED_PAIRS, every
 * ordered pair a -> b, b -> a separately (N(N-1) pairs: the first device to every
 * other in listing order, then the second's, ...), one pair at a time: for links whose rate depends on the direction and the
 * destination (per-pair shaping), which `advise ring` needs for any order.
 *
 * How.  For a pair a -> b: an iperf3 server `iperf3 -s -1 -p PORT` runs
 * where b runs, a client `iperf3 -c ADDR(b) -p PORT -J -t T -O OMIT
 * --connect-timeout MS` where a runs; the bandwidth is the client's JSON
 * `end.sum_received.bits_per_second` (what reached b), read with yajl.
 * Pairs are grouped into rounds in which no device appears twice (a ring
 * of even length takes 2 rounds, odd 3; ordered pairs: one per round); the pairs of a round run
 * concurrently, rounds one after the other, so a device never sends or
 * receives two measurements at once.  Each pair of a round uses its own
 * port (PORT + its index in the round), so devices that share a machine
 * do not collide.  A client that finds the server not yet listening
 * ("Connection refused") is retried for up to 5 s.
 *
 * Where.  A device's iperf3 runs on this machine when there is no launcher;
 * with a launcher template (the scenario's profiling.launcher, e.g.
 * [ssh, "{host}"] or [ip, netns, exec, "{name}"]) it runs through it, with
 * "{host}" replaced by the device's addr and "{name}" by its name (see
 * hs_spawn.h).  The client connects to the server device's addr.
 *
 * Failures.  A pair that cannot be measured (unreachable address, iperf3
 * missing there, a timeout) does not stop the others: every pair is tried,
 * the result says which failed and why, and the function returns
 * HS_ERR_HOST (HS_ERR_EXTERNAL when iperf3 itself could not be run) naming
 * the first failed pair.  hs_nm_measure_to_csv then writes the rows that
 * were measured to PATH.partial and leaves PATH alone, so a good old file
 * is never replaced by an incomplete one and nothing measured is lost.
 */
#ifndef HS_NETMEASURE_H
#define HS_NETMEASURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hs_error.h"
#include "hs_scenario.h"

/* Which pairs (hs_nm_opts_t.all_pairs, hs_nm_plan's all_pairs). */
#define HS_NM_RING_EDGES 0      /* the ring edges, in the ring's direction */
#define HS_NM_ALL_PAIRS 1       /* every unordered pair once */
#define HS_NM_ORDERED_PAIRS 2   /* every ordered pair, one at a time */

/* A device as the measurement sees it; strings are borrowed. */
typedef struct hs_nm_host_s {
    const char *name;   /* for messages and "{name}" */
    const char *addr;   /* where its iperf3 server is reached; "{host}" */
} hs_nm_host_t;

typedef struct hs_nm_opts_s {
    char *const *launcher;  /* argv template, NULL/0 = run locally */
    size_t n_launcher;
    const char *iperf3;     /* program, NULL = "iperf3" */
    double time_s;          /* -t, seconds measured, rounded to whole
                               seconds (iperf3's unit), >= 1; default 3 */
    unsigned omit_s;        /* -O, seconds of slow start left out; 1 */
    int all_pairs;          /* HS_NM_RING_EDGES (0), HS_NM_ALL_PAIRS (1)
                               or HS_NM_ORDERED_PAIRS (2) */
    unsigned port;          /* first port; default 5201 */
    unsigned connect_ms;    /* --connect-timeout; default 3000 */
    int64_t slack_ns;       /* per round on top of time + omit; 30 s */
    FILE *progress;         /* a line per measured pair; NULL = quiet */
} hs_nm_opts_t;

/* One measured (or failed) pair: from sends to to. */
typedef struct hs_nm_pair_s {
    uint32_t from, to;      /* host indices */
    unsigned round;         /* the round it ran in */
    int ok;                 /* 1 measured, 0 failed */
    double bw_bytes_per_s;  /* when ok */
    char why[256];          /* when failed: what went wrong */
} hs_nm_pair_t;

typedef struct hs_nm_result_s {
    size_t n_pairs;
    hs_nm_pair_t *pairs;
    size_t n_failed;
    unsigned n_rounds;
} hs_nm_result_t;

/* Fills o with the defaults above. */
void hs_nm_opts_init(hs_nm_opts_t *o);

/*
 * Plans the pairs of n hosts (ring order `ring`, a permutation of 0..n-1;
 * NULL = listing order) and their rounds, without measuring: fills res
 * (pairs not yet ok).  all_pairs: HS_NM_RING_EDGES, HS_NM_ALL_PAIRS or
 * HS_NM_ORDERED_PAIRS.  Returns HS_ERR_RANGE for n < 2 or another
 * all_pairs, HS_ERR_NOMEM.
 * Release with hs_nm_result_clear.
 */
hs_err_t hs_nm_plan(size_t n, const uint32_t *ring, int all_pairs,
                    hs_nm_result_t *res, hs_error_t *err);

/*
 * Measures the pairs of hs_nm_plan(n, ring, o->all_pairs) with iperf3 as
 * described above.  res is always filled (free with hs_nm_result_clear),
 * also on failure.  Returns HS_OK when every pair was measured, else
 * HS_ERR_HOST or HS_ERR_EXTERNAL with err naming the first failed pair
 * ("a (addr) -> b (addr): ...") and the number of failures.
 */
hs_err_t hs_nm_measure(const hs_nm_host_t *hosts, size_t n,
                       const uint32_t *ring, const hs_nm_opts_t *o,
                       hs_nm_result_t *res, hs_error_t *err);

/*
 * Writes the measured pairs of res as adjacency rows
 * "addr1,addr2,bandwidth" (bandwidth as "123.456Mbit/s"), one per line,
 * in plan order, to path via a temporary file and rename.  Failed pairs
 * are left out.  Returns HS_ERR_IO on a write failure.
 */
hs_err_t hs_nm_write_csv(const char *path, const hs_nm_host_t *hosts,
                         const hs_nm_result_t *res, hs_error_t *err);

/*
 * The scenario-facing call: hosts from s->devices (name, addr), ring order
 * s->ring, launcher from s->launcher unless o->launcher is set.  Measures
 * and writes csv_path when every pair was measured; otherwise writes what
 * was measured to csv_path + ".partial" (when anything was), leaves
 * csv_path untouched and returns the measuring error, whose message names
 * the failed pair and the partial file.  res as for hs_nm_measure; may be
 * NULL when the caller does not want it.
 */
hs_err_t hs_nm_measure_scenario(const hs_scenario_t *s,
                                const hs_nm_opts_t *o, const char *csv_path,
                                hs_nm_result_t *res, hs_error_t *err);

/* Releases what res owns and zeroes it.  NULL is fine. */
void hs_nm_result_clear(hs_nm_result_t *res);

#endif
