/*
 * hs_scenario.h -- a training job on a heterogeneous ring cluster, as read
 * from a scenario YAML file (see README.md, "Scenario files", for the
 * schema), and the profile files it includes.
 *
 * The loaded scenario is fully resolved: every device exists with its type,
 * name and address; the ring order is an array of device indices; each ring
 * edge ring[k] -> ring[k+1 mod N] has its bandwidth and latency looked up
 * (explicit pair rows, then type-pair rows, then the default).  Only ring
 * edges are stored: memory is linear in N, never N x N.
 *
 * Ownership: hs_scenario_load* allocate one hs_scenario_t that owns every
 * pointer inside it; hs_scenario_free releases all of it.
 */
#ifndef HS_SCENARIO_H
#define HS_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"

/* A measured time: its mean, its spread and, optionally, the samples. */
typedef struct hs_dist_s {
    int known;          /* 0: not measured (e.g. no DataLoader events) */
    int64_t mean_ns;    /* mean over kept steps and ranks */
    int64_t sd_ns;      /* standard deviation, 0 when unknown */
    size_t n_samples;   /* per-step samples for the stochastic mode */
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
    HS_AR_SIDECAR = 3       /* the harness's sidecar file */
} hs_ar_source_t;

/*
 * The per-type profile, measured on a sub-system of subsys_n devices
 * (METHOD.md, S300).  Times are means per iteration.
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
    unsigned steps_kept; /* how many steps the means come from, 0 if typed */
    char *source;       /* free text: where the figures come from; may be
                           NULL */
    char *path;         /* the file it was read from, NULL when inline */
} hs_profile_t;

/* Gradient payload M from D and n: M = D * n / (2(n-1)). */
double hs_profile_payload_bytes(const hs_profile_t *p);

typedef struct hs_type_s {
    char *name;
    uint64_t count;         /* devices of this type in the full cluster */
    uint64_t batch;         /* samples per device per iteration */
    int shard_is_bytes;     /* shard given in bytes (1) or samples (0) */
    uint64_t shard;         /* per-device data per epoch, 0 = derive */
    int has_profile;        /* 0: not measured yet (`hetsim profile` and
                               `measure-bw` accept that; predict and the
                               replay reject it, see
                               hs_scenario_require_profiles) */
    hs_profile_t profile;
    /* profiling (issue 5): how to run this type's sub-system */
    char *backend;          /* "gloo" or "nccl"; NULL = gloo */
    size_t n_env;           /* extra environment for its ranks */
    char **env;             /* "KEY=VALUE" strings */
    unsigned long line, col;/* where it was declared */
} hs_type_t;

typedef struct hs_device_s {
    uint32_t type;          /* index into scenario->types */
    uint32_t ring_pos;      /* its position in the ring */
    const char *name;       /* points into the scenario's arena */
    const char *addr;       /* network address or host name; arena */
    double compute_scale;   /* multiplies t_fwd, t_b1, t_bwd; 1.0 */
    int64_t extra_compute_ns; /* added before the first backward op (a
                                 device that is late), 0 */
} hs_device_t;

/* A per-device slowdown for chosen steps of the replay. */
#define HS_MAX_STREAMS 8

typedef struct hs_straggler_s {
    uint32_t device;
    uint32_t first_step, last_step;  /* inclusive, 0-based */
    double factor;                   /* compute multiplied by this */
    int64_t extra_ns;                /* and this added */
} hs_straggler_t;

typedef enum hs_overlap_e {
    HS_OVERLAP_PATENT = 0,  /* ring starts after the first backward op and
                               carries the whole payload */
    HS_OVERLAP_BUCKETS = 1, /* one ring per gradient bucket, as it is ready */
    HS_OVERLAP_NONE = 2     /* ring after the whole backward */
} hs_overlap_t;

typedef enum hs_send_e {
    HS_SEND_RENDEZVOUS = 0, /* a transfer starts when both ends are ready */
    HS_SEND_EAGER = 1       /* a chunk may leave before the receiver is in
                               that round */
} hs_send_t;

typedef struct hs_scenario_s {
    char *file;             /* path it was loaded from, or "<default>" */
    char *text;             /* the scenario's YAML text, NUL-terminated */
    char *name;             /* scenario name; may be NULL */
    /* job */
    char *model_label;      /* job.model as text or its file, may be NULL */
    char *model_file, *model_entry;     /* job.model: {file, entry} */
    char *dataset_file, *dataset_entry; /* job.dataset: {file, entry} */
    int dataset_is_bytes;   /* total given in bytes (1) or samples (0) */
    uint64_t dataset_total; /* 0 = not given */
    uint64_t sample_bytes;  /* bytes per sample, 0 = not given */
    uint32_t epochs;        /* >= 1 */
    /* types and devices */
    size_t n_types;
    hs_type_t *types;
    size_t n_devices;
    hs_device_t *devices;   /* in listing order */
    uint32_t *ring;         /* ring[k]: device index at ring position k */
    double *ring_bw_bytes_per_s; /* edge ring[k] -> ring[k+1 mod N] */
    int64_t *ring_lat_ns;   /* latency of that edge, per message */
    /* network */
    double default_bw_bytes_per_s; /* 0 = none */
    int64_t latency_ns;     /* default per-message latency */
    /* simulation */
    hs_overlap_t overlap;
    hs_send_t send;
    uint32_t sim_steps;     /* steps to replay, default 10 */
    uint32_t streams;       /* buckets mode: bucket rings run at once,
                               1..HS_MAX_STREAMS; default 2 when every
                               type says backend: gloo (ProcessGroupGloo
                               runs 2 collectives at a time), else 1 (one
                               communication stream, as NCCL) */
    uint64_t seed;          /* default 1 */
    int stochastic;         /* draw per-op times from distributions */
    size_t n_stragglers;
    hs_straggler_t *stragglers;
    /* profiling (issue 5) */
    char *harness;          /* path of the harness script, NULL = built-in */
    char *python;           /* interpreter, NULL = "python3" */
    uint32_t prof_iters;    /* iterations to profile, default 100 */
    uint32_t prof_warmup;   /* steps dropped, default 20 */
    int64_t prof_timeout_ns;/* per sub-system, default 600 s */
    size_t n_launcher;      /* remote launcher argv template, "{host}" is
                               replaced; 0 = local processes */
    char **launcher;
    uint32_t master_port;   /* default 29500 */
    /* internal: string arena for generated names and addresses */
    char *arena;
    size_t arena_len, arena_cap;
    size_t n_warnings;      /* non-fatal notes found while loading */
    char **warnings;
} hs_scenario_t;

/*
 * Loads and resolves the scenario in file `path`.  Relative paths inside it
 * (profile includes, links_csv) are relative to its directory.
 * On success stores a new scenario in *out (free with hs_scenario_free) and
 * returns HS_OK; on failure returns the code, fills err with
 * "file:line:col: message" and leaves *out NULL.
 */
hs_err_t hs_scenario_load(const char *path, hs_scenario_t **out,
                          hs_error_t *err);

/*
 * Like hs_scenario_load on text already in memory.  `name` is used in error
 * messages; `base_dir` resolves relative paths (NULL = current directory).
 * The text is copied.
 */
hs_err_t hs_scenario_load_text(const char *text, size_t len,
                               const char *name, const char *base_dir,
                               hs_scenario_t **out, hs_error_t *err);

/* Loads the embedded default (scenarios/default.yaml as built in). */
hs_err_t hs_scenario_load_default(hs_scenario_t **out, hs_error_t *err);

/* The embedded default's YAML text, NUL-terminated; static storage. */
const char *hs_scenario_default_text(void);

/*
 * Reads a standalone profile file (the schema of a type's `profile:` map)
 * into *out, which the caller owns and releases with hs_profile_clear.
 */
hs_err_t hs_profile_load(const char *path, hs_profile_t *out,
                         hs_error_t *err);

/* Releases what *p owns and zeroes it.  p may be NULL. */
void hs_profile_clear(hs_profile_t *p);

/* Releases a scenario and all it owns.  s may be NULL. */
void hs_scenario_free(hs_scenario_t *s);

/*
 * Fails with HS_ERR_SCHEMA and "file:line:col: device type 'X' has no
 * profile ..." (the type's position) when a type has none; else HS_OK.
 * Everything that needs the timings (closed form, replay) calls it.
 */
hs_err_t hs_scenario_require_profiles(const hs_scenario_t *s,
                                      hs_error_t *err);

/* The YAML names of the modes ("patent", "buckets", "none"; "rendezvous",
   "eager"): static strings, "unknown" for a bad value. */
const char *hs_overlap_name(hs_overlap_t o);
const char *hs_send_name(hs_send_t m);

/* The mode named `name` into *out; 0, or -1 when it names none. */
int hs_overlap_parse(const char *name, hs_overlap_t *out);
int hs_send_parse(const char *name, hs_send_t *out);

/* Index of the device named `name`, or -1. O(N). */
long hs_scenario_find_device(const hs_scenario_t *s, const char *name);

/* Index of the type named `name`, or -1. */
long hs_scenario_find_type(const hs_scenario_t *s, const char *name);

/* Device index that follows device d in the ring. */
static inline uint32_t hs_scenario_next(const hs_scenario_t *s, uint32_t d)
{
    uint32_t k = s->devices[d].ring_pos + 1;
    return s->ring[k == s->n_devices ? 0 : k];
}

/* Device index that precedes device d in the ring. */
static inline uint32_t hs_scenario_prev(const hs_scenario_t *s, uint32_t d)
{
    uint32_t k = s->devices[d].ring_pos;
    return s->ring[k == 0 ? s->n_devices - 1 : k - 1];
}

#endif
