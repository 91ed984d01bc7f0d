/*
 * hs_profile_run.h -- `hetsim profile`: the measuring sub-systems of
 * docs/method.md steps S200-S300, run for real.
 *
 * For every device type of the scenario, in order:
 *   1. pick its sub-system: the first 2 devices of that type in the
 *      device list; a type with a single device takes the first
 *      profiling.spare_devices entry of its type as the second (a device
 *      outside the ring), or, named in opts.alone, runs one rank alone
 *      (the payload D = M, the model's gradient bytes, for n = 2; the
 *      communication's cost not measured; the profile's source and notes
 *      say so); with neither, hs_profile_run refuses before running
 *      anything (HS_ERR_USAGE naming the type and both ways out).  Two
 *      ranks never share one device (they would share its cores);
 *   2. give each rank the type's data share (its shard, else the dataset
 *      split by batch sizes as in docs/method.md), sampled at random by the
 *      harness from a seed drawn with GSL's mt19937 from the scenario seed
 *      (the seed is recorded in the profile's source line);
 *   3. start the harness (live/harness/hetsim_harness.py) once per rank,
 *      torchrun-style (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
 *      MASTER_PORT in the environment, plus the type's env: and, for the
 *      nccl backend, NCCL_ALGO=Ring).  Without a launcher the ranks are
 *      local processes (MASTER_ADDR 127.0.0.1); with the scenario's
 *      profiling.launcher each rank runs through it ("{host}" = the
 *      device's addr, "{name}" = its name, see hs_spawn.h) as
 *      `env K=V... PYTHON HARNESS ARGS...`, MASTER_ADDR = rank 0's addr,
 *      and OUTDIR must be the same path on every host (a shared or local
 *      file system).  Always argv arrays, never a shell string;
 *   4. wait up to profiling.timeout; a rank that exits non-zero stops the
 *      sub-system (the other rank gets 5 s, then its process group is
 *      killed), as does the timeout;
 *   5. ingest the traces rank<R>.json and sidecars rank<R>.sidecar.json
 *      (traces/hs_ingest.h; warm-up already left out by the harness) and
 *      write OUTDIR/<type>.profile.yaml.
 * With opts.batches (hetsim profile --batches 8,16,32), steps
 * 3-5 run once per batch size for each type: first at the type's own batch
 * (in <type>/, as without the option), then at each other listed batch in
 * increasing order (in <type>/batch<B>/, the same devices, seed and data
 * share, a master port of its own); the profile file is the one at the
 * type's batch with `batch_points:` holding every batch's phase means and
 * spreads (its own included), for hetsim advise batch to interpolate
 * (model/hs_profile.h).  A failure at any batch fails the type.
 * Then OUTDIR/scenario.yaml: the input scenario with every type's profile
 * replaced by its new file and relative paths made absolute, ready for
 * predict, simulate and validate.
 *
 * Layout of OUTDIR: <type>/rank<R>.json, <type>/rank<R>.sidecar.json,
 * <type>/rank<R>.log (the rank's stdout and stderr), <type>.profile.yaml,
 * scenario.yaml.
 *
 * Failures: a rank that crashes, hangs or cannot import the model gives
 * HS_ERR_RANK naming the type, rank, device, host and the step it reached
 * (from the rank's log) and the log's path; python or the harness missing
 * gives HS_ERR_EXTERNAL.  Types measured before the failure keep their
 * profile files; scenario.yaml is written only when every type succeeded.
 */
#ifndef HS_PROFILE_RUN_H
#define HS_PROFILE_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hs_error.h"
#include "hs_scenario.h"

typedef struct hs_prun_opts_s {
    const char *out_dir;     /* required; created if missing */
    const char *python;      /* NULL: s->python, else "python3" */
    const char *harness;     /* NULL: s->harness, else the source tree's */
    uint32_t iters, warmup;  /* 0: the scenario's */
    int64_t timeout_ns;      /* 0: the scenario's */
    const char *only_type;   /* profile only this type; NULL = all */
    const char *alone;       /* comma-separated types profiled with one
                                rank (see step 1); NULL = none */
    FILE *progress;          /* progress lines; NULL = quiet */
    const uint64_t *batches; /* the batch sizes to profile every type at
                                (each >= 1; its own batch is added when
                                missing; order and repeats do not
                                matter); NULL or n_batches 0: its own
                                batch only, no batch_points */
    size_t n_batches;
    int have_hop_trials;     /* 1: pass hop_trials to the harness
                                (--hop-trials); 0: the harness's default */
    uint32_t hop_trials;     /* the hop-wait probe's trials per rank; 0
                                turns the probe off (no t_hop_wait) */
} hs_prun_opts_t;

/* What happened to one type. */
typedef struct hs_prun_type_s {
    const char *name;        /* the scenario's (borrowed) */
    int ran;                 /* its sub-system was started */
    int ok;                  /* profile written */
    uint64_t seed;           /* the data-share seed given to the harness */
    uint64_t share;          /* samples per rank, 0 = batch * iterations */
    uint32_t dev[2];         /* the devices used (dev[1] unset when a spare
                                or alone) */
    unsigned n_ranks;        /* 2, or 1 when alone */
    int alone;               /* profiled with one rank */
    int spare;               /* rank 1 ran on a profiling.spare_devices
                                entry */
    const char *dev_name[2]; /* the ranks' device names (borrowed) */
    const char *dev_addr[2]; /* and addresses, may be NULL (borrowed) */
    size_t n_notes;          /* the ingestion's notes (the profile's source
                                ends with them too); malloc'd strings */
    char **notes;
    hs_profile_t profile;    /* when ok */
    char *profile_path;      /* when ok; malloc'd */
    char *dir;               /* its trace directory; malloc'd */
    double device_s;         /* the profiling cost: each sub-system run's
                                wall time times its ranks (devices held),
                                summed over the batch points run */
} hs_prun_type_t;

typedef struct hs_prun_result_s {
    size_t n_types;
    hs_prun_type_t *types;
    char *scenario_path;     /* OUTDIR/scenario.yaml when all ok */
} hs_prun_result_t;

/* What a rank's log says (the harness's "hetsim-harness: rank R: ..."
   lines). */
typedef struct hs_prun_log_s {
    long step;              /* the step it was in (begun), -1 before any */
    char phase[40];         /* its phase in that step, or its stage after
                               training (after = 1); "" unknown */
    int after;              /* 1: every step done, past "after training" */
    long steps_total;       /* the run's steps ("steps N (P profiled)"),
                               -1 unknown */
    long steps_profiled;    /* P: steps whose events the trace holds */
    long steps_done;        /* "step N done" lines */
    double step_ms_sum;     /* the times they give */
    char error[400];        /* the harness's error line, "" none */
    char tail[400];         /* the log's last line */
} hs_prun_log_t;

/* Reads the rank log at path into *lg (an unreadable log: nothing
   known, step -1). */
void hs_prun_log_scan(const char *path, hs_prun_log_t *lg);

/*
 * The time limit of a sub-system run of n ranks, in ns from its start,
 * from what their logs say: floor_ns (profiling.timeout) until every
 * rank has done a step; then the moment the slowest rank's steps were
 * last seen to advance (last_done_ns, from the start) plus `factor`
 * times the work the logs say is left -- the steps not done, the trace
 * export (about one step's time per profiled step) and the probes after
 * training (2 x hop_trials + 2 steps) -- at the largest mean step time
 * of the ranks, plus min(floor_ns, 60 s) for the fixed costs; never
 * less than floor_ns, at most HS_LIMIT_TIME_NS.
 */
int64_t hs_prun_limit_ns(int64_t floor_ns, double factor,
                         const hs_prun_log_t *lg, size_t n,
                         int64_t last_done_ns, unsigned hop_trials);

/* Where the log says its rank was, into buf: "before its first step
   (start-up)", "in step 12 (forward)" or "after all 40 steps, in 'write
   trace'". */
void hs_prun_where(const hs_prun_log_t *lg, char *buf, size_t len);

/* Fills o with zeros/NULLs (scenario values are used). */
void hs_prun_opts_init(hs_prun_opts_t *o);

/*
 * Profiles every type of s as described above.  res is filled also on
 * failure (release with hs_prun_result_clear).  `scenario_path` is the
 * file s was loaded from; its text is rewritten into OUTDIR/scenario.yaml.
 */
hs_err_t hs_profile_run(const hs_scenario_t *s, const char *scenario_path,
                        const hs_prun_opts_t *o, hs_prun_result_t *res,
                        hs_error_t *err);

/*
 * The replay mode hetsim profile recommends and writes into the scenario
 * it produces (simulate.overlap), from the scenario and the measured
 * profiles (the rule was chosen on tuning draws of
 * bench/accuracy, see docs/accuracy.md): when every type's backend is
 * gloo, `last_bucket` if every type has timed gradient buckets, else
 * `none`; otherwise `buckets` if every type has timed gradient buckets,
 * else `patent`.  Types without a new profile in res use s's.  Writes a
 * one-line reason into why (len bytes).
 */
hs_overlap_t hs_prun_recommend_overlap(const hs_scenario_t *s,
                                       const hs_prun_result_t *res,
                                       char *why, size_t len);

/* Releases what res owns and zeroes it.  NULL is fine. */
void hs_prun_result_clear(hs_prun_result_t *res);

/*
 * Rewrites scenario YAML text (hs_rewrite_yaml): the device type named
 * types[i] gets `profile: paths[i]` (replacing what it had; paths[i] NULL
 * keeps what it had, with or without a profile), and, when abs_base is
 * not NULL,
 * the relative paths job.model.file, job.dataset.file,
 * network.links_csv and profiling.harness are made absolute against it.
 * On success *out is a malloc'd NUL-terminated YAML text.
 */
hs_err_t hs_prun_rewrite_yaml(const char *text, size_t len,
                              const char *name, const char *const *types,
                              char *const *paths, size_t n_paths,
                              const char *abs_base, char **out,
                              hs_error_t *err);

#endif
