/*
 * fast_check.h -- shared checks of the exact fast paths' tests
 * (test_ringfast.c, test_hierfast.c, test_treefast.c) against the event
 * engine.  Failures are CUnit assertions plus a line on stderr.
 */
#ifndef FAST_CHECK_H
#define FAST_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"
#include "hs_replay.h"

/* fc_same_results flags: also compare iters_per_epoch and epochs; also
   compare the collective's name. */
#define FC_EPOCHS 1u
#define FC_COLLECTIVE 2u

/* Every figure of the two results (a: the replay's, b: the fast path's),
   with the fields flags add; prints the first difference.  1 when they
   agree. */
int fc_same_results(const hs_replay_result_t *a, const hs_replay_result_t *b,
                    const char *what, unsigned flags);

/* A fast path over nodes (hierarchical, tree): the collective it replays,
   its predicate and run, and the test's count of runs compared. */
typedef struct fc_path_s {
    const char *collective;
    int (*supports)(const hs_scenario_t *s, const hs_replay_opts_t *o,
                    const hs_collective_t *coll, char *why, size_t why_len);
    hs_err_t (*run)(const hs_scenario_t *s, const hs_replay_opts_t *o,
                    hs_replay_result_t **out, hs_error_t *err);
    int *n_compared;
    int tree_chunks;    /* random clusters draw tree_chunks too */
} fc_path_t;

/* Runs the replay (engine = 1), p's fast path and hs_replay_run by itself
   on s (as p's collective) under its overlap and send; asserts the fast
   path takes it and that all agree.  1 when they do. */
int fc_compare(hs_scenario_t *s, const char *what, const fc_path_t *p);

/* fc_compare on s under patent and none, rendezvous and eager; asserts the fast path
   takes each and that all agree.  1 when they do. */
int fc_compare_modes(hs_scenario_t *s, const char *name, const fc_path_t *p);

/* fc_compare_modes on every shipped scenario with nodes and profiles, as
   p's collective; asserts there are at least 4. */
void fc_test_shipped(const fc_path_t *p);

/* count random clusters of nodes from seed (equal: nodes of one size;
   else of different sizes), with random device types, bandwidths,
   latencies, NICs, kind-pair rows, stragglers, compute scales and extra
   compute, as p's collective; fc_compare_modes on each, printing the
   YAML of the first failures; prints the runs compared and asserts they
   are 4 per cluster. */
void fc_random_clusters(const fc_path_t *p, uint64_t seed, int count,
                        int equal);

/* xorshift64*: the next number of the stream in *s. */
uint64_t fc_rng_next(uint64_t *s);

/* A number in [lo, hi] from the stream in *s. */
uint64_t fc_rnd(uint64_t *s, uint64_t lo, uint64_t hi);

/* A growing text buffer (p malloc'ed by the caller, freed by it). */
typedef struct fc_buf_s {
    char *p;
    size_t n, cap;
} fc_buf_t;

/* Appends printf-style text to b, growing it. */
void fc_put(fc_buf_t *b, const char *fmt, ...);

#endif
