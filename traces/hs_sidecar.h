/*
 * hs_sidecar.h -- the profiling harness's sidecar JSON (live/, written
 * beside the traces): what a trace may not say.  The sub-system size
 * (world_size), the gradient payload (grad_bytes, or bucket_bytes that add
 * up to it), optionally the bucket ready times the harness's comm hook
 * measured ("buckets": [{"bytes", "ready_ns"}]), whether the harness ran
 * the all-reduces after the backward ("comm": "after"), its
 * communication probe ("comm_probe") and its hop-wait probe ("hop_probe").  The ingestion uses it where the
 * traces fall short.
 */
#ifndef HS_SIDECAR_H
#define HS_SIDECAR_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"

typedef struct hs_sidecar_s {
    int loaded;
    long world_size;
    uint64_t grad_bytes;
    uint64_t *bucket_bytes;
    size_t n_buckets;
    int64_t *ready_ns;      /* "buckets": [{"bytes", "ready_ns"}], -1 =
                               null; n_ready entries */
    uint64_t *ready_bytes;
    size_t n_ready;
    int comm_after;            /* "comm": "after": the harness ran the
                                  all-reduces after the backward, so the
                                  trace's calls do not time the buckets */
    double comm_ns_per_byte;   /* from "comm_probe", 0 when absent */
    double comm_cpu_rate;      /* cores the forward ran at */
    /* "hop_probe": the wait of a ring hop whose receiver computes: the
       median of the all-reduces beside the backward minus the median of
       the same idle, over the ring's hops (0 when that is negative);
       -1 when absent */
    int64_t hop_wait_ns;
    int64_t hop_idle_ns, hop_beside_ns;   /* the two medians */
    unsigned hop_hops, hop_n;             /* hops; samples of each kind */
    char hop_skipped[256];  /* "hop_probe_skipped": why the harness did
                               not run the probe ("" when it did or the
                               key is absent or null; truncated) */
    /* "cpu_quota": the CPU limit the rank ran under (its cgroup's, read
       by the harness): cores and period; 0 when absent or null */
    double cpu_quota_cores;
    int64_t cpu_period_ns;
    int alone;                 /* "alone": true: one rank, no peer */
    /* "plain": the wall-clock phases of the iterations run without the
       profiler, pooled over the ranks (n_plain samples each; t_dl, t_fwd,
       t_bwd, t_opt in that order; NULL when absent) */
    size_t n_plain;
    int64_t *plain_ns[4];
    /* "rank_use": per rank, whether it had its device */
    size_t n_use;
    struct hs_sidecar_use_s {
        long rank;
        unsigned steps;
        double cpu_mean, cpu_min, cpu_max;  /* forward CPU share, cores */
        int64_t compute_mean_ns, compute_sd_ns, compute_median_ns,
            compute_max_ns;                 /* forward + backward */
    } *use;
} hs_sidecar_t;

/* The phases of hs_sidecar_t.plain_ns. */
enum { HS_SC_DL = 0, HS_SC_FWD = 1, HS_SC_BWD = 2, HS_SC_OPT = 3 };

/*
 * Reads the sidecar at `path` into *out (overwritten; loaded set to 1).
 * HS_ERR_IO cannot read, HS_ERR_SYNTAX empty or invalid JSON,
 * HS_ERR_SCHEMA not a sidecar or a field of the wrong type; then *out is
 * zeroed and err filled.  Release with hs_sidecar_clear.
 */
hs_err_t hs_sidecar_load(const char *path, hs_sidecar_t *out,
                         hs_error_t *err);

/* Frees what sc owns and zeroes it.  sc may be NULL. */
void hs_sidecar_clear(hs_sidecar_t *sc);

#endif
