/*
 * hs_ingest.h -- PyTorch profiler traces in, a per-type profile out
 * (docs/method.md step S300; the rules are written down in README.md,
 * "Ingesting PyTorch profiler traces").
 *
 * Input: Chrome-trace JSON as PyTorch writes it, plain or gzipped (.json,
 * .json.gz): the Kineto form (an object with "traceEvents",
 * "distributedInfo", ...) or the legacy form (a bare array of events with
 * empty args, PyTorch 1.x built without Kineto).  One file is one rank of
 * one measuring sub-system.
 *
 * Traces can be hundreds of MB.  Each is read once, streaming (yajl_parse
 * callbacks over read() or igzip/zlib-inflated chunks); what the reasoning
 * needs after the read is kept as compact records in bounded memory,
 * spilled to a temporary file past a budget (hs_reclog.h), and only
 * per-step aggregates stay: memory grows with the number of ProfilerStep
 * windows, never with the number of events or the file size.  No DOM of
 * the trace is ever built.
 *
 * The layers (each its own file): hs_jscan (a plain or gzipped JSON file
 * streamed into yajl), hs_kev (PyTorch trace events decoded from it),
 * hs_kineto (the reader: its one read, its replays and step table, one per-rank record,
 * hs_rank.h, per file), hs_sidecar (the harness's sidecar), hs_ingest.c
 * (the aggregation over ranks); the profile YAML is written by the
 * profile module (model/hs_profile.h, hs_profile_write), which owns the
 * format both ways.  Another trace format is another reader filling
 * hs_rank_t.
 *
 * Use: hs_ingest_new, hs_ingest_add_file for every rank, then
 * hs_ingest_profile for the averaged profile and/or hs_ingest_file for the
 * per-step table; hs_ingest_free.
 */
#ifndef HS_INGEST_H
#define HS_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_scenario.h"

/* The default number of first steps dropped (docs/ingest.md: the source keeps
   iterations 20..100). */
#define HS_INGEST_DEFAULT_WARMUP 20u
/* The threads each trace is read with by default (hs_ingest_opts_t). */
#define HS_INGEST_DEFAULT_THREADS 1u

/* The statistic a profile's phase times take over a rank's kept steps
   (then averaged over the ranks).  The mean is the default: the replay
   was tuned with it (docs/ingest.md, "Robust figures"). */
typedef enum hs_ingest_stat_e {
    HS_INGEST_STAT_MEAN = 0,
    HS_INGEST_STAT_MEDIAN = 1,      /* the middle sample (the mean of the two
                                       middle ones for an even count) */
    HS_INGEST_STAT_TRIMMED = 2      /* the mean of the samples left after
                                       dropping floor(HS_INGEST_TRIM * n)
                                       lowest and as many highest */
} hs_ingest_stat_t;

#define HS_INGEST_TRIM 0.1

/* The most per-step samples a profile keeps per phase (hs_dist_t's
   samples_ns), by default: 2^18, 2 MiB a phase.  A phase measured in
   more kept steps keeps a uniform subset of that many, the same for the
   same traces (docs/ingest.md, "Samples"); its mean, sd, medians and
   trimmed means are still those of all its steps.  A subset that large
   draws the replay's stochastic mode from the same distribution (a
   quantile of it off by about 1 / (2 sqrt(2^18)) = 0.1% of the steps at
   most, typically), while the ingestion's memory and the profile's YAML
   stop growing with the trace's length. */
#define HS_INGEST_MAX_SAMPLES 262144u

typedef struct hs_ingest_opts_s {
    unsigned warmup;        /* first W ProfilerStep windows dropped per rank */
    const char *sidecar;    /* the profiling harness's sidecar JSON, or NULL;
                               copied by hs_ingest_new; for every rank
                               (hs_ingest_add_file_sidecar gives a rank its
                               own instead) */
    hs_ingest_stat_t stat;  /* the phase times' statistic (mean) */
    unsigned threads;       /* 1: each trace read, inflated and parsed in
                               the caller's thread; 2: a second thread
                               reads and inflates ahead of the parse (on
                               traces of 1 MiB or more).  The same
                               profile, tables and errors either way.
                               Default HS_INGEST_DEFAULT_THREADS */
    size_t rec_mem_bytes;   /* the memory each trace's per-step record
                               may take before its steps go to an
                               unlinked temporary file, read back in
                               order (hs_kineto_opts_t.rec_mem_bytes);
                               0: the default, 4 MiB (about 16,000
                               steps).  The same profile, tables and
                               errors either way */
    size_t max_samples;     /* the most per-step samples the profile
                               keeps per phase, a uniform subset past
                               it (HS_INGEST_MAX_SAMPLES); 0: that
                               default.  The means, sd and robust
                               figures are those of all steps either
                               way */
} hs_ingest_opts_t;

/* Fills *o with the defaults: warmup 20, no sidecar, the mean,
   HS_INGEST_DEFAULT_THREADS threads, the default record budget and
   samples' cap. */
void hs_ingest_opts_default(hs_ingest_opts_t *o);

typedef enum hs_ingest_form_e {
    HS_INGEST_KINETO = 0,   /* {"traceEvents": [...], ...} */
    HS_INGEST_LEGACY = 1    /* [...] */
} hs_ingest_form_t;

/* When a rank's sidecar figures ("rank_use") make a note that it may not
   have had its device: compute sd over mean, the forward's CPU share's
   (max - min) over mean, max over median compute time, and the ranks'
   mean CPU shares' (max - min) over max; none for a rank whose compute
   (forward + backward) takes less than HS_INGEST_USE_MIN_NS (timer and
   scheduler noise dominate there). */
#define HS_INGEST_USE_MIN_NS 20000000LL
#define HS_INGEST_USE_CV 0.15
#define HS_INGEST_USE_SPAN 0.5
#define HS_INGEST_USE_OUTLIER 1.5
#define HS_INGEST_USE_RANKS 0.25

/* A time that may be unknown: -1 means "not measured". */
#define HS_INGEST_UNKNOWN ((int64_t)-1)

/* One ProfilerStep#N window of one rank. */
typedef struct hs_ingest_step_s {
    long number;            /* N of ProfilerStep#N */
    int kept;               /* 1: after the warm-up and complete: averaged */
    int complete;           /* 0: no backward operator in a trace that has
                               them elsewhere (e.g. the profiler's last,
                               cut-off window) */
    int64_t start_ns;       /* trace clock */
    int64_t dur_ns;         /* step time */
    int64_t t_dl_ns;        /* each HS_INGEST_UNKNOWN when not measured */
    int64_t t_fwd_ns;
    int64_t t_b1_ns;
    int64_t t_bwd_ns;
    int64_t t_opt_ns;
    uint64_t ar_payload_bytes; /* all-reduce payload M of this step from the
                                  rank's best source, 0 when none */
    unsigned n_allreduce;   /* all-reduce calls (buckets) in the step */
    unsigned n_kernels;     /* device kernels attributed to the step:
                               every micro-batch's and the optimizer's */
    unsigned micro_batches; /* its micro-batches (the profiling harness's
                               hetsim.micro_batch#K marks, gradient
                               accumulation), 1 without: with V > 1 the
                               phase times above are one micro-batch's
                               (t_dl, t_fwd, t_bwd the mean over the V,
                               on device traces of kernel time; t_b1 the
                               last one's, t_opt the step's) */
} hs_ingest_step_t;

/* What one ingested file (rank) held. */
typedef struct hs_ingest_file_s {
    const char *path;
    hs_ingest_form_t form;
    long rank;              /* distributedInfo.rank, else the file's index */
    long world_size;        /* distributedInfo.world_size, -1 if absent */
    const char *backend;    /* distributedInfo.backend, "" if absent */
    int gpu;                /* device kernels present: compute times are
                               kernel times */
    hs_ar_source_t ar_source; /* best payload source in this file, or
                                 HS_AR_SIDECAR when the trace has none and a
                                 sidecar was given */
    int ar_known;           /* 0: no payload source for this file */
    uint64_t n_events;      /* trace events seen (one pass) */
    uint64_t json_bytes;    /* uncompressed JSON bytes (one pass) */
    unsigned passes;        /* passes made over the file (1) */
    size_t n_steps;
    const hs_ingest_step_t *steps;  /* in start-time order; NULL when the
                                       steps were past the record's
                                       budget (rec_mem_bytes) and went
                                       to a temporary file: read them
                                       with hs_ingest_file_step */
} hs_ingest_file_t;

typedef struct hs_ingest_s hs_ingest_t;

/*
 * A new, empty ingestion with options o (NULL = defaults).  Returns NULL
 * when out of memory.  Free with hs_ingest_free.
 */
hs_ingest_t *hs_ingest_new(const hs_ingest_opts_t *o);

/* Releases ing and everything it owns.  ing may be NULL. */
void hs_ingest_free(hs_ingest_t *ing);

/*
 * Reads the trace at `path` as the next rank.  On failure returns the code
 * (HS_ERR_IO: cannot open/read; HS_ERR_SYNTAX: bad JSON or gzip, an empty
 * file; HS_ERR_SCHEMA: a value of the wrong type; HS_ERR_TRACE: no
 * ProfilerStep window, a rank seen twice), fills err with a message naming
 * the file and, where known, the byte offset (in the uncompressed JSON),
 * and leaves ing as it was.
 */
hs_err_t hs_ingest_add_file(hs_ingest_t *ing, const char *path,
                            hs_error_t *err);

/*
 * hs_ingest_add_file with the rank's own sidecar (NULL: as
 * hs_ingest_add_file).  The ranks' sidecars must agree on what belongs to
 * the sub-system and the model (world_size, alone, grad_bytes,
 * bucket_bytes, comm), else HS_ERR_TRACE; their measurements are pooled:
 * the profiler-free iterations and the rank_use entries of all ranks,
 * the probes' figures (comm_probe, hop_probe, cpu_quota, the buckets'
 * ready times) averaged over the sidecars that have them.  Not to be
 * mixed with hs_ingest_opts_t.sidecar (HS_ERR_TRACE).  Errors as
 * hs_ingest_add_file, plus the sidecar's (hs_sidecar_load); ing is left
 * as it was on failure.
 */
hs_err_t hs_ingest_add_file_sidecar(hs_ingest_t *ing, const char *path,
                                    const char *sidecar, hs_error_t *err);

/* Number of files added so far. */
size_t hs_ingest_n_files(const hs_ingest_t *ing);

/* The i-th file's figures (i < hs_ingest_n_files); owned by ing. */
const hs_ingest_file_t *hs_ingest_file(const hs_ingest_t *ing, size_t i);

/* Step j (j < n_steps) of the i-th file, whether its steps are in
   memory (hs_ingest_file(ing, i)->steps[j]) or were spilled to a
   temporary file: then read back through one cursor of ing, so the
   steps in ascending order cost one sequential read (going back starts
   again from the first).  Owned by ing, valid until the next call on
   ing.  NULL when i or j is out of range, or (err filled, HS_ERR_IO /
   HS_ERR_NOMEM) when the spilled steps cannot be read back. */
const hs_ingest_step_t *hs_ingest_file_step(hs_ingest_t *ing, size_t i,
                                            size_t j, hs_error_t *err);

/*
 * Builds the per-type profile from all files: drops each rank's warm-up,
 * averages per rank then over ranks (with opts.stat), picks the
 * all-reduce payload source and writes D = 2(n-1)/n * M.  fwd_ops: the
 * forward's time per top-level operator (hs_rank.h), the mean over each
 * rank's kept steps then over ranks, in the order the operators first
 * ran, HS_RANK_OP_OTHER for the time no operator holds; they are rounded
 * (largest remainder) and, when t_fwd is not the trace's mean (another
 * statistic, or the sidecar's profiler-free forward), scaled so that
 * they add up to t_fwd exactly.  Each phase's samples: every kept
 * step's value, rank by rank, in step order, up to opts.max_samples;
 * past it a uniform subset of that many in the same order, drawn with a
 * fixed seed (the same traces give the same profile), while the mean,
 * sd and robust figures are still those of all kept steps; memory then
 * stays max_samples values a phase whatever the number of steps.  micro_batches: V when every kept step
 * has the same V > 1 micro-batches (gradient accumulation), else 0 (the
 * profile states none).  *out is overwritten; the caller owns it and
 * releases it with hs_profile_clear.  Fails with HS_ERR_TRACE (and *out
 * zeroed) when no file was added, a rank has fewer steps than the warm-up
 * plus one, no forward/first-backward time can be measured, no payload
 * source exists or the sub-system size is below 2.
 */
hs_err_t hs_ingest_profile(hs_ingest_t *ing, hs_profile_t *out,
                           hs_error_t *err);

/* A trace phase's figures over the kept steps, each a per-rank
   statistic averaged over the ranks, as the trace measured them (before a
   sidecar's profiler-free phases replace any). */
typedef struct hs_ingest_robust_s {
    int known;
    size_t n_samples;       /* the kept steps that measured the phase (all
                               of them, past the profile's samples cap
                               too) */
    int64_t mean_ns, median_ns, trimmed_ns;
} hs_ingest_robust_t;

/* The phases of hs_ingest_robust. */
enum { HS_INGEST_PH_DL = 0, HS_INGEST_PH_FWD, HS_INGEST_PH_B1,
       HS_INGEST_PH_BWD, HS_INGEST_PH_OPT, HS_INGEST_PH_N };

/* Phase ph's figures from the last successful hs_ingest_profile (zeroed
   before one); owned by ing.  NULL when ph is out of range. */
const hs_ingest_robust_t *hs_ingest_robust(const hs_ingest_t *ing,
                                           unsigned ph);

/*
 * Notes gathered while ingesting (what was missing, which source was
 * used, inconsistencies).  *n gets the count; strings owned by ing.
 */
const char *const *hs_ingest_notes(const hs_ingest_t *ing, size_t *n);

#endif
