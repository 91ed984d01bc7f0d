/*
 * hs_limits.h -- the stated limits of hetsim: the largest time, size,
 * count and bandwidth it accepts, and the budgets a run may use.
 *
 * Why limits at all
 * -----------------
 * Times are int64_t nanoseconds (2^63 ns is about 292 years) and sizes
 * uint64_t bytes.  Those types are wide enough for any real training job,
 * but not for every number a user can type: "1e300s", a latency of
 * 2,500,000 h (9e18 ns, a hair under 2^63, so the first sum wraps
 * negative), a payload of 10,000 PB (1e19 B, beyond int64) or a scale of
 * 1e12 all used to produce wrapped, silently wrong predictions.  So every
 * quantity is bounded twice:
 *
 *   1. at load: each value read (a duration, a size, a bandwidth, a count,
 *      a factor) must lie within the limit of its kind below, or the
 *      parser refuses it with the file:line:col of the value;
 *   2. at combination: every derived quantity is computed with the
 *      overflow-checked operations of hs_checked.h and must not exceed
 *      HS_LIMIT_TIME_NS (a time) or HS_LIMIT_BYTES (a size); a result that
 *      does not fit is an HS_ERR_RANGE error naming the key, never a
 *      wrapped value.
 *
 * The values are chosen so that no real user meets them and so that the
 * arithmetic between the two checks provably fits:
 *
 *   - An input duration is at most HS_LIMIT_INPUT_TIME_NS = 1e15 ns
 *     (1,000,000 s, about 11.6 days: no single phase of one training step,
 *     no latency, no timeout is longer).  A factor (compute_scale, a
 *     straggler's factor) is at most HS_LIMIT_FACTOR_MAX = 1e3, so a
 *     scaled input is at most 1e18 ns = HS_LIMIT_TIME_NS: scaling a valid
 *     input by a valid factor always fits.  Factors that multiply (a
 *     compute_scale and the stragglers over the same step) can pass 1e3;
 *     model/hs_scenario_check.c bounds their product times the largest
 *     time at load.
 *   - Any time, input or derived (a step, an epoch, the whole run, a
 *     replayed clock), is at most HS_LIMIT_TIME_NS = 1e18 ns (about 31.7
 *     years).  Since 9 x 1e18 < 2^63 = 9.22e18, a sum of up to nine times
 *     that each passed the check cannot overflow int64: T(i) = T_fwd +
 *     t_b1 + T_ar (three terms), a round's lat + transfer (two), the
 *     replay's now + duration (two) are exact, and the check after the sum
 *     is a plain comparison.  A sum of more terms (a forward pass from its
 *     operators) is accumulated with hs_checked_add_i64 and checked at each
 *     step.
 *   - The products are where the limits alone cannot help, and where the
 *     checked operations must be used:
 *       transfer  ns = bytes * 1e9 / bw: up to 1e18 B at 1 bit/s is 8e27 ns;
 *                 computed in double, converted with hs_checked_ns_from_bytes
 *                 (a 1 TB payload on a 1 bit/s link is 8e21 ns: refused);
 *       rounds    T_ar = 2(N-1) x per-round, 2(N-1) < 2^21;
 *       epoch     T_epoch = I x T_step, I up to HS_LIMIT_COUNT;
 *       total     T_total = E x T_epoch, E up to HS_LIMIT_EPOCHS;
 *       replay    T_steps = steps x T_step, steps up to HS_LIMIT_STEPS.
 *     Each is hs_checked_mul_i64 followed by the HS_LIMIT_TIME_NS check.
 *   - Sizes are at most HS_LIMIT_BYTES = 1e18 B (1 EB, five thousand times
 *     the 200 TB data set of the method's example).  Then a size in bits
 *     (8e18) and a sum of up to nine sizes fit int64 and uint64; the
 *     payload M = D n / (2(n-1)) is at most D for n >= 2, and a chunk M/N at
 *     most M.  A data set's total times a batch size (to split it into
 *     shards) can reach 1e15 x 2^32 and is checked.
 *   - A bandwidth lies in [1 bit/s, 8 Pbit/s]: below 1 bit/s a transfer is
 *     meaningless (and 0 divides by zero), above 1e15 B/s no link exists.
 *   - A ring has at most HS_LIMIT_DEVICES = 2^20 devices, so 2(N-1) < 2^21,
 *     N^2 < 2^40 (an all-pairs link table) and N x 2(N-1) rounds of one
 *     step < 2^41 fit every integer type used.
 *
 * What the replay adds: its normal draws are truncated at mean + 16 sd
 * (HS_DRAW_SD_MAX), and the compute a device loses to processing ring
 * chunks in one step must stay below 2^43 ns (HS_LIMIT_COMM_DEBT_NS,
 * carried in an event argument).  hs_scenario_check_ranges bounds every
 * event time of a replay of K steps by K x (an upper bound of a step)
 * and refuses at load what would pass HS_LIMIT_TIME_NS, so the event
 * engine's internal checks cannot be reached from any input.
 *
 * Budgets (refused unless the user forces them, e.g. simulate --force):
 * HS_LIMIT_EVENTS events in one replay and HS_LIMIT_STATE_BYTES of replay
 * state; the estimate is printed in the message.  HS_LIMIT_FILE_BYTES bounds
 * every file read whole (scenarios, profiles, link tables, sidecars).
 *
 * The README's "Limits" section restates this table; keep both in step.
 */
#ifndef HS_LIMITS_H
#define HS_LIMITS_H

#include <stdint.h>

/* The largest duration read from any input (1e6 s, about 11.6 days). */
#define HS_LIMIT_INPUT_TIME_NS INT64_C(1000000000000000)

/* The largest time, input or derived (1e18 ns, about 31.7 years). */
#define HS_LIMIT_TIME_NS INT64_C(1000000000000000000)

/* The largest size, input or derived (1e18 B = 1 EB). */
#define HS_LIMIT_BYTES UINT64_C(1000000000000000000)

/* The bandwidth range, bytes per second: 1 bit/s .. 8 Pbit/s. */
#define HS_LIMIT_BW_MIN_BYTES_PER_S 0.125
#define HS_LIMIT_BW_MAX_BYTES_PER_S 1e15

/* The range of a multiplicative factor (compute_scale, a straggler's). */
#define HS_LIMIT_FACTOR_MIN 1e-6
#define HS_LIMIT_FACTOR_MAX 1e3

/* The most devices in one ring (2^20 = 1,048,576). */
#define HS_LIMIT_DEVICES (UINT32_C(1) << 20)

/* The largest count of samples or iterations (1e15). */
#define HS_LIMIT_COUNT UINT64_C(1000000000000000)

/* The most epochs, and the most replayed steps. */
#define HS_LIMIT_EPOCHS UINT32_C(1000000000)
#define HS_LIMIT_STEPS UINT32_C(100000000)

/* Micro-batches per step (gradient accumulation) a device type may
   have. */
#define HS_LIMIT_MICRO_BATCHES UINT64_C(65536)

/* Budgets of one replay, refused unless forced: 2^32 events, 8 GiB.  The
   event engine's own limits, never lifted (sim/hs_engine.h): 2^40 events
   in one replay (HS_ENGINE_MAX_EVENTS) and 2^24 - 1 pending at once
   (HS_ENGINE_MAX_CAPACITY); hs_replay refuses a scenario past them before
   the engine is made. */
#define HS_LIMIT_EVENTS (UINT64_C(1) << 32)
#define HS_LIMIT_STATE_BYTES (UINT64_C(8) << 30)

/* The answer budget (whatif/hs_answer.h): a command that prints a
   recommended figure replays the scenario when the replay takes about a
   second or less, measured on one core of a 2-vCPU VM (2026-12): the
   max-plus fast path about 1e9 ring rounds a second, the event engine
   about 5e7 events a second.  The fast paths over nodes do less per
   second (events as the engine counts them, 2026-12, same VM): the
   hierarchical one about 1.3e8 (2.5e8 events of 10 steps of 10,000
   devices in 1.9 s), the tree's about 1e7 (its O(N R) schedule per step:
   3.3e7 events of 10 steps of 100,000 devices in 3.2 s). */
#define HS_LIMIT_ANSWER_FAST_EVENTS 1e9
#define HS_LIMIT_ANSWER_HIER_FAST_EVENTS 1e8
#define HS_LIMIT_ANSWER_TREE_FAST_EVENTS 1e7
#define HS_LIMIT_ANSWER_ENGINE_EVENTS 5e7

/* A replay's normal draw of a time (mean, sd) is truncated to
   [0, mean + HS_DRAW_SD_MAX sd]: a bound the range check can rely on (a
   draw beyond 16 sd has a probability near 1e-58: no figure changes). */
#define HS_DRAW_SD_MAX 16.0

/* The most compute time the communication's own cost (comm_ns_per_byte)
   may take from one device in one step: the replay carries it in the top
   43 bits of an event argument (sim/hs_replay_int.h, HS__ARG_SHIFT 20),
   so 2^43 - 1 ns, about 2.44 h. */
#define HS_LIMIT_COMM_DEBT_NS ((INT64_C(1) << 43) - 1)

/* The largest file read whole (1 GiB). */
#define HS_LIMIT_FILE_BYTES (UINT64_C(1) << 30)

/* The deepest nesting of lists and mappings (YAML) or arrays and objects
   (JSON) in a document read whole: every hetsim file nests a few levels;
   the check runs before the document is built, in one linear pass, so a
   hostile document nested a million deep is refused at its 65th level,
   never recursed into. */
#define HS_LIMIT_NEST_DEPTH 64

/* The most JSON one trace may hold once inflated (4 GiB): a profiler
   trace of a few steps is tens of MB; a gzip file that inflates past this
   is refused at the byte that passes it. */
#define HS_LIMIT_TRACE_BYTES (UINT64_C(4) << 30)

/* The longest line of a CSV file (links, a sweep read back), in bytes. */
#define HS_LIMIT_CSV_LINE 65536

/* The most devices (or nodes) `advise ring` searches over without
   --force: the heuristic's passes cost O(n^2) pair costs each and take
   seconds at 4,096 devices here, minutes past 16,384. */
#define HS_LIMIT_RINGOPT_DEVICES 4096u

/* The longest name (a device, a type, a profile), in bytes. */
#define HS_LIMIT_NAME_LEN 128

/* The longest host name (RFC 1123 / DNS: 253 characters, 63 per label). */
#define HS_LIMIT_HOST_LEN 253
#define HS_LIMIT_HOST_LABEL_LEN 63

#endif
