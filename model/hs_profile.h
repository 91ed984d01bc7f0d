/*
 * hs_profile.h -- a device type's measured profile (docs/method.md, S300) and
 * its YAML format, both ways: the reader (a standalone profile file, or
 * the `profile:` mapping of a type inside a scenario) and the writer
 * (what `hetsim ingest` and `hetsim profile` produce).  One key table in
 * hs_profile.c drives both, so a key is named once.
 *
 * Ownership: an hs_profile_t owns every pointer in it; hs_profile_clear
 * releases them.  Structs are caller storage (zero them before a load).
 */
#ifndef HS_PROFILE_H
#define HS_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"

/* Room for the positions of a profile's keys (its key table has 20). */
#define HS_PROFILE_NKEYS 20

/* A measured time: its mean, its spread and, optionally, the samples. */
typedef struct hs_dist_s {
    int known;          /* 0: not measured (e.g. no DataLoader events) */
    int64_t mean_ns;    /* mean over kept steps and ranks */
    int64_t sd_ns;      /* standard deviation, 0 when unknown */
    size_t n_samples;   /* per-step samples for the stochastic mode; from
                           the ingestion, all kept steps' up to
                           HS_INGEST_MAX_SAMPLES (hs_ingest.h), a uniform
                           subset of that many past it, so mean_ns and
                           sd_ns are the steps' figures, not always
                           the samples' */
    int64_t *samples_ns;
} hs_dist_t;

/* A gradient bucket as DDP all-reduces it. */
typedef struct hs_bucket_s {
    uint64_t bytes;        /* payload of this bucket (M share), bytes */
    int64_t ready_ns;      /* when its gradients are ready, from the start
                              of the backward pass */
} hs_bucket_t;

/* Where a profile's all-reduce volume came from. */
typedef enum hs_ar_source_e {
    HS_AR_GIVEN = 0,        /* typed in */
    HS_AR_PARAM_COMMS = 1,  /* record_param_comms args */
    HS_AR_SHAPES = 2,       /* Input Dims of c10d::allreduce_ etc. */
    HS_AR_SIDECAR = 3,      /* the harness's sidecar file */
    HS_AR_GRADIENT = 4      /* gradient_bytes: the model's gradient size,
                               M, made D for the sub-system */
} hs_ar_source_t;

/*
 * One batch point: the phase times measured with the type
 * profiled at another batch size, in the profile's `batch_points:` list
 * ({batch: 8, t_dl: .., t_fwd: .., t_b1: .., t_bwd: .., t_opt: ..}, each
 * time a duration, `unknown` or {mean, sd}).  batch, t_fwd and t_b1 are
 * required; the list's batches are strictly increasing.  The profile's
 * own times are the point at the scenario type's batch: they win over a
 * list entry at that batch (`hetsim profile --batches` writes them equal).
 */
typedef struct hs_batch_point_s {
    uint64_t batch;     /* samples per device per step, >= 1 */
    hs_dist_t t_dl, t_fwd, t_b1, t_bwd, t_opt;
    unsigned long line, col;    /* where the entry was read, 0 if not */
} hs_batch_point_t;

/*
 * The per-type profile, measured on a sub-system of subsys_n devices
 * (docs/method.md, S300).  Times are means per iteration.
 */
typedef struct hs_profile_s {
    hs_dist_t t_dl;     /* data loading of one batch (CPU) */
    hs_dist_t t_fwd;    /* forward, whole (sum of fwd_ops when given) */
    hs_dist_t t_b1;     /* the first backward operator */
    hs_dist_t t_bwd;    /* the whole backward, t_b1 included; may be
                           unknown */
    hs_dist_t t_opt;    /* the optimizer step; may be unknown */
    size_t n_fwd_ops;   /* optional per-operator forward times */
    int64_t *fwd_ops_ns;
    char **fwd_op_names;    /* may be NULL; else n_fwd_ops strings */
    uint64_t ar_bytes;  /* D: bytes one device sent per iteration */
    unsigned subsys_n;  /* n: devices in the measuring sub-system, >= 2 */
    hs_ar_source_t ar_source;
    size_t n_buckets;   /* optional gradient buckets, in all-reduce order */
    hs_bucket_t *buckets;
    double comm_ns_per_byte; /* the communication's own cost on the device:
                           ns of the device's compute per byte it sends in
                           the ring (gloo on CPU devices: sends, receives
                           and reductions share the cores with the
                           compute); 0 = none (NCCL on a GPU, or unknown) */
    int64_t t_hop_wait_ns; /* the wait of a ring hop that reaches the
                           device while it computes (its backward): on CPU
                           devices under a CPU quota the thread that takes
                           the chunk waits for the quota's next period once
                           the compute has used it up; the harness's
                           hop-wait probe measures it, in its sub-system
                           of subsys_n devices (hs_profile_hop_wait_ns
                           gives it for a longer ring).  0 = none */
    double cpu_quota_cores; /* the CPU quota the device ran under (its
                           cgroup's limit, in cores), read by the harness;
                           0 = none or unknown */
    int64_t t_cpu_period_ns; /* the quota's period; 0 = unknown */
    unsigned steps_kept; /* how many steps the means come from, 0 if typed */
    uint32_t micro_batches; /* gradient accumulation the profile was
                           measured with: its steps ran this many
                           micro-batches (DDP's no_sync on all but the
                           last) and the times above are one
                           micro-batch's.  0 = not stated (the key left
                           out: no accumulation, or unknown).  The
                           scenario's type takes it as its own
                           micro_batches when it states none, and refuses
                           a different one (model/hs_scenario.c).
                           Written when > 1 */
    char *source;       /* free text: where the figures come from; may be
                           NULL */
    size_t n_points;    /* batch_points, batches strictly increasing; 0 =
                           the profile was measured at one batch only */
    hs_batch_point_t *points;
    char *path;         /* the file it was read from, NULL when inline */
    /* where each key's value was read, 1-based (line 0: not read from
       YAML), in the order of the profile's key table; the file is path,
       or the including scenario's when inline.  See hs_profile_where. */
    unsigned long key_line[HS_PROFILE_NKEYS], key_col[HS_PROFILE_NKEYS];
} hs_profile_t;

/*
 * Where the value of `key` ("allreduce_bytes", "t_fwd", ...) was read:
 * 0 with *line and *col (1-based) set, or -1 when the key is unknown or
 * its value was not read from YAML (set afterwards, or from a trace).
 */
int hs_profile_where(const hs_profile_t *p, const char *key,
                     unsigned long *line, unsigned long *col);

/* What hs_profile_write puts around the profile's own fields. */
typedef struct hs_profile_info_s {
    const char *type;       /* the `type:` line (device type name); NULL =
                               none */
    const char *comment;    /* first-line comment text after "# ";
                               NULL = "hetsim profile" */
} hs_profile_info_t;

/*
 * The hop wait of this type's devices in a ring of ring_n devices (ns):
 * the profile's t_hop_wait was probed in its sub-system of subsys_n
 * devices; a longer ring waits longer a hop, up to a ceiling
 * (docs/method.md "The hop wait in a longer ring", from bench/hopwait):
 *   t_hop_wait                        ring_n <= subsys_n, no quota known
 *                                     (cpu_quota_cores or t_cpu_period 0)
 *                                     or a quota of 1 core or more;
 *   min(t_hop_wait (ring_n-1)/(subsys_n-1), max(t_hop_wait, P / (2 q)))
 *                                     otherwise, q = cpu_quota_cores and
 *                                     P = t_cpu_period.
 * 0 when t_hop_wait is 0.  Pure; no allocation.
 */
int64_t hs_profile_hop_wait_ns(const hs_profile_t *p, size_t ring_n);

/* The profile file's name of an all-reduce source: "given",
   "param_comms", "shapes" or "sidecar" (static). */
const char *hs_ar_source_name(hs_ar_source_t s);

/* Gradient payload M from D and n: M = D * n / (2(n-1)). */
double hs_profile_payload_bytes(const hs_profile_t *p);

/*
 * Reads a standalone profile file (the schema of a type's `profile:` map)
 * into *out, which the caller owns and releases with hs_profile_clear.
 * On failure *out is cleared and err says "file:line:col: what".
 */
hs_err_t hs_profile_load(const char *path, hs_profile_t *out,
                         hs_error_t *err);

/*
 * Like hs_profile_load on the len bytes at text, already in memory (the
 * same parser; no file is read).  `name` stands for the file in messages
 * and in out->path.  The text is not kept.
 */
hs_err_t hs_profile_load_text(const char *text, size_t len, const char *name,
                              hs_profile_t *out, hs_error_t *err);

/*
 * Like hs_profile_load, appending non-fatal notes (e.g. t_fwd against the
 * sum of fwd_ops) to *warnings / *n_warnings (both may be NULL: dropped).
 * Sets out->path.  *out must be zeroed; on failure it may hold part of the
 * profile: the caller clears it.
 */
hs_err_t hs_profile_read_file(const char *path, hs_profile_t *out,
                              char ***warnings, size_t *n_warnings,
                              hs_error_t *err);

struct hs_yaml_ctx_s;
struct yaml_node_s;

/*
 * Parses the profile mapping n (inside a document walked with c) into *p
 * (zeroed by the caller; partly filled on failure, the caller clears it).
 * `what` names it in messages ("the profile of type 'A'").
 */
hs_err_t hs_profile_parse(struct hs_yaml_ctx_s *c, struct yaml_node_s *n,
                          const char *what, hs_profile_t *p);

/*
 * Sets one scalar key of *p from node n as the reader would read it:
 * t_fwd, t_b1, t_bwd, t_dl, t_opt (a duration: the mean, sd 0, samples
 * dropped), allreduce_bytes (a size), comm_ns_per_byte (a number).
 * `what` names the value in messages.  An unknown key fails with
 * HS_ERR_SCHEMA "<c->file>: unknown key; valid: ..." (hs_scenario_set
 * names the key path as c->file).
 */
hs_err_t hs_profile_set_key(struct hs_yaml_ctx_s *c, hs_profile_t *p,
                            const char *key, struct yaml_node_s *n,
                            const char *what);

/*
 * Writes *p as a profile YAML file at path (a temporary file renamed over
 * it, base/hs_atomic.h): "# <comment>" then the keys in the key table's
 * order, the same bytes `hetsim ingest` writes.  err gets HS_ERR_IO or
 * HS_ERR_NOMEM with the path.  info may be NULL.
 */
hs_err_t hs_profile_write(const hs_profile_t *p, const char *path,
                          const hs_profile_info_t *info, hs_error_t *err);

/* ---- the profile at another batch (advise batch) ---------------------- */

/* The phases a batch changes, in the order of hs_profile_means_at_batch's
   output. */
enum { HS_PH_DL, HS_PH_FWD, HS_PH_B1, HS_PH_BWD, HS_PH_OPT, HS_PH_N };

/* Which scaling model gave a profile at another batch, and how. */
typedef enum hs_bscale_model_e {
    HS_BSCALE_LINEAR = 0,   /* one point: t(b) = t(b0) b / b0 for t_dl,
                               t_fwd, t_b1, t_bwd; t_opt unchanged */
    HS_BSCALE_POINTS = 1    /* >= 2 points: piecewise linear */
} hs_bscale_model_t;

typedef struct hs_bscale_s {
    hs_bscale_model_t model;
    size_t n_points;        /* the points used (the profile's own included) */
    uint64_t lo, hi;        /* their smallest and largest batch */
    int extrapolated;       /* -1 below lo, +1 above hi, 0 within */
    double how_far;         /* b / hi above, lo / b below, 1 within */
    int floored;            /* a phase was raised to the floor (below lo) */
} hs_bscale_t;

/*
 * The means of the phases (HS_PH_*) of profile p, measured at batch b0
 * (the scenario type's batch), at batch b >= 1, into means_ns[HS_PH_N];
 * how it was done into *how (may be NULL).
 *
 * The points are the profile's own times at b0 and its batch_points at
 * other batches.  With one point: the linear model (llround(t(b0) * b /
 * b0) for t_dl, t_fwd, t_b1, t_bwd; t_opt as measured, so a profile
 * without batch_points scales as it always has).  With >= 2 points, per phase
 * known at every point (else that phase takes the linear model):
 *   1. the running maximum over the points in batch order (a time that
 *      falls with a larger batch is measurement noise; the batch search
 *      needs T(b) non-decreasing in b), then
 *   2. piecewise linear interpolation between the neighbouring points;
 *   3. above the largest batch, the line through the two largest points
 *      (its slope >= 0 after step 1: the last measured cost per extra
 *      sample goes on);
 *   4. below the smallest batch, the line through the two smallest points,
 *      but never below b times the smallest per-sample time measured
 *      (min_k t_k / b_k): a device with a fixed per-step cost c >= 0 has
 *      t(b) / b non-increasing, so this floor holds for it, and it keeps
 *      a steep line from reaching zero.
 * Each step keeps the time non-decreasing in b.  t_b1 is then capped at
 * t_bwd where both are known.  Results are clamped to HS_LIMIT_TIME_NS.
 */
void hs_profile_means_at_batch(const hs_profile_t *p, uint64_t b0,
                               uint64_t b, int64_t *means_ns,
                               hs_bscale_t *how);

/*
 * Deep copy of p (measured at b0) with its times moved to batch b as
 * hs_profile_means_at_batch says: means set, each phase's sd and samples
 * scaled by its mean's ratio (the linear model: by b / b0), fwd_ops by
 * t_fwd's, bucket ready times by t_bwd's (t_b1's when t_bwd is unknown).
 * batch_points are kept.  *out is overwritten (not freed first); 0, or -1
 * when out of memory (out cleared).  how may be NULL.
 */
int hs_profile_at_batch(const hs_profile_t *p, uint64_t b0, uint64_t b,
                        hs_profile_t *out, hs_bscale_t *how);

/*
 * One line saying how *how was made, for a type at batch b0 moved to b:
 * "linear from one profile at batch 16" or "interpolated over 3 points
 * (batch 8..32)" with ", extrapolated above 32 to 48 (1.50x)" or ", ...
 * below ..., floored" as it happened.  Writes into buf (len bytes).
 */
void hs_bscale_describe(const hs_bscale_t *how, uint64_t b0, uint64_t b,
                        char *buf, size_t len);

/* Deep copy of src into *dst (overwritten, not freed first).  0, or -1
   when out of memory (dst is then cleared). */
int hs_profile_copy(hs_profile_t *dst, const hs_profile_t *src);

/* Releases what *p owns and zeroes it.  p may be NULL. */
void hs_profile_clear(hs_profile_t *p);

#endif
