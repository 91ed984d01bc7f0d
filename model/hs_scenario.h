/*
 * hs_scenario.h -- a training job on a heterogeneous ring cluster, as read
 * from a scenario YAML file (see README.md, "Scenario files", for the
 * schema), and the profile files it includes.
 *
 * The loaded scenario is fully resolved: every device exists with its type,
 * name and address; the ring order is an array of device indices; each ring
 * edge ring[k] -> ring[k+1 mod N] has its bandwidth and latency looked up
 * (explicit pair rows, then type-pair rows, then the default).  The whole
 * link table is kept (model/hs_links.h, linear in the rows given, never
 * N x N) so any pair can be asked for (hs_scenario_link); the ring edges
 * are precomputed arrays for speed.
 *
 * A loaded scenario is also data: hs_scenario_set changes one setting as a
 * user would type it in the YAML ("device_types.A100.count", "64"), and
 * hs_scenario_resolve re-derives the devices (when generated from the
 * counts), the ring and its edges once after several sets.  A sweep keeps
 * a pristine base and sets a deep copy (hs_scenario_clone) per point.
 *
 * Ownership: hs_scenario_load* and hs_scenario_clone allocate one
 * hs_scenario_t that owns every pointer inside it; hs_scenario_free
 * releases all of it.
 */
#ifndef HS_SCENARIO_H
#define HS_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_links.h"
#include "hs_profile.h"

typedef struct hs_type_s {
    char *name;
    uint64_t count;         /* devices of this type in the full cluster
                               (0 allowed when given: a type left out of
                               this cluster, as a device mix may do) */
    int has_count;          /* count: was given */
    uint64_t batch;         /* samples per device per iteration */
    uint32_t micro_batches; /* gradient accumulation: the step's batch is
                               processed as this many micro-batches of
                               batch / micro_batches samples, one forward
                               and backward each, gradients added up
                               (DDP's no_sync), then one all-reduce and
                               one optimizer step; the profile holds one
                               micro-batch's times.  1 = none.  A
                               type that states none takes its
                               profile's (hs_profile_t micro_batches);
                               one that states another is refused at
                               load */
    int shard_is_bytes;     /* shard given in bytes (1) or samples (0) */
    uint64_t shard;         /* per-device data per epoch, 0 = derive */
    int has_profile;        /* 0: not measured yet (`hetsim profile` and
                               `measure-bw` accept that; predict and the
                               replay reject it, see
                               hs_scenario_require_profiles) */
    hs_profile_t profile;
    /* profiling: how hetsim profile runs this type's sub-system */
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
    HS_OVERLAP_NONE = 2,    /* ring after the whole backward */
    HS_OVERLAP_LAST_BUCKET = 3 /* one ring of the whole payload, opened when
                               the last gradient bucket is ready (as none
                               when no profile lists buckets) */
} hs_overlap_t;

typedef enum hs_send_e {
    HS_SEND_RENDEZVOUS = 0, /* a transfer starts when both ends are ready */
    HS_SEND_EAGER = 1       /* a chunk may leave before the receiver is in
                               that round */
} hs_send_t;

/* How a type's probed hop wait (its profile's t_hop_wait) is replayed. */
typedef enum hs_hop_wait_e {
    HS_HOP_WAIT_RING = 0,   /* grown to the ring's size
                               (hs_profile_hop_wait_ns), the default */
    HS_HOP_WAIT_PROBE = 1   /* as probed, in the 2-device sub-system */
} hs_hop_wait_t;

/* How the ring order is derived (the YAML's `ring:`). */
typedef enum hs_ring_mode_e {
    HS_RING_LISTING = 0,    /* the devices' listing order (the default) */
    HS_RING_GROUPED = 1,    /* type by type, each in listing order */
    HS_RING_INTERLEAVE = 2, /* round robin over the types */
    HS_RING_EXPLICIT = 3    /* a list of device names (ring_names) */
} hs_ring_mode_t;

/* A per-device setting made with hs_scenario_set on generated devices,
   applied again each time they are generated. */
typedef struct hs_dev_override_s {
    char *name;             /* the device's name */
    int has_scale, has_extra;
    double compute_scale;
    int64_t extra_compute_ns;
} hs_dev_override_t;

/* Where one value was read (hs_scenario_fail): the key path, and the
   file:line:col of its value, or no file when hs_scenario_set set it. */
typedef struct hs_where_s {
    char *key;              /* "job.epochs", "devices.d0.compute_scale" */
    char *file;             /* NULL: set by hs_scenario_set */
    unsigned long line, col;/* 1-based */
} hs_where_t;

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
    hs_hop_wait_t hop_wait; /* simulate.hop_wait, default ring */
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
    /* profiling: how hetsim profile and measure-bw run */
    char *harness;          /* path of the harness script, NULL = built-in */
    char *python;           /* interpreter, NULL = "python3" */
    uint32_t prof_iters;    /* iterations to profile, default 100 */
    uint32_t prof_warmup;   /* steps dropped, default 20 */
    int64_t prof_timeout_ns;/* per sub-system, default 600 s: the floor
                               of the limit (hs_prun_limit_ns) */
    double prof_timeout_factor; /* the limit's slack over the work the
                               logs say is left, default 3 */
    size_t n_launcher;      /* remote launcher argv template, "{host}" is
                               replaced; 0 = local processes */
    char **launcher;
    uint32_t master_port;   /* default 29500 */
    size_t n_spares;        /* profiling.spare_devices: devices outside the
                               ring a type's sub-system may use as its
                               second device (a sub-system of a type
                               with one device) */
    char **spares;          /* 3 * n_spares: name, type, addr of each */
    /* internal: string arena for generated names and addresses */
    char *arena;
    size_t arena_len, arena_cap;
    size_t n_warnings;      /* non-fatal notes found while loading */
    char **warnings;
    /* as data: what hs_scenario_resolve derives devices, ring and edges
       from */
    int devices_listed;     /* devices given (1) or generated from counts */
    hs_ring_mode_t ring_mode;
    size_t n_ring_names;    /* HS_RING_EXPLICIT: device names in order */
    char **ring_names;
    char **straggler_names; /* n_stragglers names (stragglers[i].device
                               is looked up again on resolve) */
    size_t n_dev_overrides; /* devices.<name>.* set on generated devices */
    hs_dev_override_t *dev_overrides;
    hs_links_t links;       /* every pair row and type-pair row; its
                               defaults mirror default_bw_bytes_per_s and
                               latency_ns at each resolve */
    int dirty;              /* hs_scenario_set since the last resolve */
    /* nodes (model/hs_nodes.h) and the collective */
    struct hs_nodes_s *nodes; /* the `nodes:` section, NULL = flat: the
                               devices, the ring (NCCL's order by
                               default) and the edges come from it, and
                               ring_bw_bytes_per_s / ring_lat_ns hold 3N
                               entries (hs_nodes.h, "Edge arrays") */
    char *collective;       /* `collective:` (hs_collective.h), NULL =
                               ring; the closed form and the replay's
                               default */
    unsigned long coll_line, coll_col; /* where it was given, 0 = set */
    uint32_t tree_chunks;   /* `tree_chunks:` chunks per tree of the tree
                               all-reduce (1..64), 0 = the default
                               (HS_TREE_CHUNKS, hs_coll_tree_shape.h) */
    size_t n_where, cap_where; /* where values were read (the keys whose */
    hs_where_t *where;      /* overflow a derived quantity can blame; a
                               profile's keys are in the profile) */
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

/* "ring" or "probe" (static), and back: 0 and *out set, or -1. */
const char *hs_hop_wait_name(hs_hop_wait_t m);
int hs_hop_wait_parse(const char *name, hs_hop_wait_t *out);

/*
 * Sets one setting of a loaded scenario from the text a user would type in
 * the YAML (value "25Gbps", "128", "grouped", "[a, b, c]" for the ring),
 * with the loader's validation.  key_path is one of:
 *   device_types.<T>.count | batch | shard
 *   device_types.<T>.profile.t_fwd | t_b1 | t_bwd | t_dl | t_opt |
 *                            allreduce_bytes | comm_ns_per_byte
 *       (a time sets the mean: sd 0, samples dropped)
 *   job.epochs, job.dataset.samples | size | sample_bytes
 *   network.default_bandwidth | latency
 *   network.type_links.<A>.<B>  (bandwidth or [bandwidth, latency]; adds
 *                                or replaces the row for A, B either way)
 *   ring  (listing | grouped | interleave | [name, ...])
 *   simulate.steps | seed | overlap | send | streams | stochastic
 *   devices.<name>.compute_scale | extra_compute
 *   collective  (ring | hierarchical | tree | auto)
 *   nodes.<kind>.count  (nodes of that kind; with a nodes: section)
 * Marks the scenario dirty: call hs_scenario_resolve once after the sets
 * before using devices, ring or edges.  On failure s is unchanged, err
 * says "key_path: what is wrong" (an unknown key lists the valid keys at
 * its level, an unknown type the type names) with the loader's class for
 * the same fault (HS_ERR_SCHEMA, HS_ERR_UNIT, HS_ERR_RANGE).
 */
hs_err_t hs_scenario_set(hs_scenario_t *s, const char *key_path,
                         const char *value, hs_error_t *err);

/*
 * Re-derives what the settings imply: the devices (when generated from the
 * type counts, with the devices.<name>.* settings applied again), the ring
 * (its mode or names), the stragglers' device indices and every ring
 * edge's bandwidth and latency.  O(N + rows); fails as the loader would
 * for the same settings ("file: ring link a (x) -> b (y) has no
 * bandwidth ...", an unknown name), leaving s dirty.  Cheap when clean.
 */
hs_err_t hs_scenario_resolve(hs_scenario_t *s, hs_error_t *err);

/* A deep copy of s in *out (free with hs_scenario_free); NULL and
   HS_ERR_NOMEM when out of memory. */
hs_err_t hs_scenario_clone(const hs_scenario_t *s, hs_scenario_t **out,
                           hs_error_t *err);

/*
 * The link from device dev_a to dev_b (any pair, ring edge or not): the
 * exact-direction pair row, else the other-direction one, else the
 * type-pair row, else the default.  With nodes (hs_nodes.h): the
 * intra-node link, or the node-pair row, kind-pair row, inter-node
 * default, capped by both ends' NICs as a lone edge would be.  Fails with
 * HS_ERR_NETWORK naming both devices when none applies, HS_ERR_RANGE for
 * a bad index.
 */
hs_err_t hs_scenario_link(const hs_scenario_t *s, uint32_t dev_a,
                          uint32_t dev_b, double *bw_bytes_per_s,
                          int64_t *lat_ns, hs_error_t *err);

/*
 * Fills err with code and a message that says where the value of `key`
 * came from: "file:line:col: key: message" when the scenario (or the
 * profile, for "device_types.<T>.profile.<k>") read it from YAML, "key:
 * message" when hs_scenario_set set it, "file: key: message" when neither
 * is known.  Returns code.  For the errors of derived quantities (an
 * overflow, a budget): the closed form, the replay, the range check.
 */
hs_err_t hs_scenario_fail(const hs_scenario_t *s, const char *key,
                          hs_err_t code, hs_error_t *err,
                          const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/*
 * Checks, with overflow-checked arithmetic and the limits of
 * base/hs_limits.h, that every quantity the closed form and a replay of
 * `steps` steps (0: no replay) derive from s fits: scaled times, the ring
 * rounds, a step, steps x step.  Types without a profile are skipped.
 * Fails with HS_ERR_RANGE naming the key to blame (hs_scenario_fail), so
 * no later computation can wrap or reach the event engine's internal
 * checks.  The loader runs it with simulate.steps; the closed form and the
 * replay again with what they use.
 */
hs_err_t hs_scenario_check_ranges(const hs_scenario_t *s, uint32_t steps,
                                  hs_error_t *err);

/* hs_scenario_check_ranges for a replay whose options differ from the
   scenario's simulate: section (its overlap mode and stragglers), with
   the scenario's collective. */
hs_err_t hs_scenario_check_ranges_with(const hs_scenario_t *s,
                                       uint32_t steps, hs_overlap_t overlap,
                                       const hs_straggler_t *stragglers,
                                       size_t n_stragglers, hs_error_t *err);

struct hs_collective_s;   /* model/hs_collective.h */

/* hs_scenario_check_ranges_with for collective coll (NULL: the ring;
   auto: the one it picks): the all-reduce term of a step is coll's
   bound (hs_collective_bound), the flat ring's 2(N-1) rounds x its worst
   edge for the ring, each collective's own otherwise. */
hs_err_t hs_scenario_check_ranges_coll(const hs_scenario_t *s,
                                       uint32_t steps, hs_overlap_t overlap,
                                       const hs_straggler_t *stragglers,
                                       size_t n_stragglers,
                                       const struct hs_collective_s *coll,
                                       hs_error_t *err);

/*
 * T_epoch = iters x step_ns and T_total = s->epochs x T_epoch, checked
 * and within HS_LIMIT_TIME_NS; else HS_ERR_RANGE blamed on job.dataset or
 * job.epochs (hs_scenario_fail).  For the replay's simulated step.
 */
hs_err_t hs_scenario_epoch_total(const hs_scenario_t *s, uint64_t iters,
                                 int64_t step_ns, int64_t *epoch_ns,
                                 int64_t *total_ns, hs_error_t *err);

/*
 * What a replay of `steps` steps in `overlap` mode with collective coll
 * (NULL: the ring; `auto`: the one it picks, hs_collective_resolve) costs,
 * roughly: events and bytes of state.  Events: per step and gradient
 * bucket the chunks of one all-reduce (hs_collective_chunks: the ring's
 * N x 2(N-1), quadratic in N; the hierarchical one's 2(N-K) + 2N(K-1)
 * over K nodes; the tree's 4P(N-1)), and per device and step a bucket's
 * ring opening and a handful of phase events.  The event engine and the
 * exact fast paths count the same events (their n_events).  Bytes: per
 * device and step a fixed figure, plus the state the collective holds
 * for the whole cluster (hs_collective_state_bytes: the tree's
 * schedule).
 */
void hs_scenario_replay_estimate(const hs_scenario_t *s, uint32_t steps,
                                 hs_overlap_t overlap,
                                 const struct hs_collective_s *coll,
                                 double *events, double *bytes);

/*
 * Refuses (HS_ERR_RANGE, blamed on simulate.steps, the estimate in the
 * message) a replay with collective coll (as hs_scenario_replay_estimate)
 * beyond the budgets HS_LIMIT_EVENTS (2^32 events) or
 * HS_LIMIT_STATE_BYTES (8 GiB); the command line skips it with --force.
 */
hs_err_t hs_scenario_check_budget(const hs_scenario_t *s, uint32_t steps,
                                  hs_overlap_t overlap,
                                  const struct hs_collective_s *coll,
                                  hs_error_t *err);

/* Index of the device named `name`, or -1. O(N). */
long hs_scenario_find_device(const hs_scenario_t *s, const char *name);

/*
 * The tail of an error about an unknown device type or device name:
 * "; did you mean 'X'?" when a name of the scenario is close to `name`
 * (base/hs_suggest.h), then the valid names, " (types: A100, MLU370)" or
 * " (devices: A100-0..A100-99, d0, d1)" with numbered runs folded and a
 * long list cut with ", ... (N in all)".  Written into buf (cap bytes; 512
 * hold any of them); returns buf, ready for a "%s" after the name.
 */
const char *hs_scenario_type_hint(const hs_scenario_t *s, const char *name,
                                  char *buf, size_t cap);
const char *hs_scenario_device_hint(const hs_scenario_t *s,
                                    const char *name, char *buf, size_t cap);

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
