/*
 * hs_fuzz.h -- the entry points the fuzz targets (fuzz/fuzz_*.c, libFuzzer)
 * and the regression replay (tests/test_fuzz_regress.c, the normal build)
 * share: one function per input parser, bytes in, the parser's verdict out.
 *
 * Each entry feeds `data` to one public library call (from memory where the
 * library takes text, else written to a temporary file first) and checks the
 * library's contract on the way out: a failure has a code in the enum and
 * a non-empty message; a success hands back a usable object, which is then
 * freed.  A broken contract calls abort(), which libFuzzer reports like a
 * crash.  Each entry keeps its library call in one small function
 * (hs__fuzz_call_*), so that an API change touches only those.
 *
 * The temporary files live in one directory per process (made on first
 * use, under $TMPDIR or /tmp, removed at exit).
 */
#ifndef HS_FUZZ_H
#define HS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"

/* One fuzzed parser: its name (the folder under fuzz/regress/) and entry. */
typedef struct hs_fuzz_target_s {
    const char *name;
    hs_err_t (*run)(const uint8_t *data, size_t size, hs_error_t *err);
} hs_fuzz_target_t;

/*
 * The unit parser (base/hs_units.h): data as one NUL-terminated string
 * through hs_parse_time_ns, hs_parse_bytes and hs_parse_bandwidth, each
 * result formatted back.  HS_OK when at least one parser accepted it, else
 * HS_ERR_UNIT.
 */
hs_err_t hs_fuzz_units(const uint8_t *data, size_t size, hs_error_t *err);

/* A scenario's YAML bytes through hs_scenario_load_text (base_dir: an
   empty temporary directory). */
hs_err_t hs_fuzz_scenario(const uint8_t *data, size_t size, hs_error_t *err);

/* data as the links_csv file of a fixed, valid 4-device scenario (devices
   a0..a3 at 10.0.0.1..4), through hs_scenario_load_text (the scenario from
   memory, the CSV from the temporary directory); the first non-empty input
   of a process also through hs_scenario_load (from a file), which must
   agree. */
hs_err_t hs_fuzz_links_csv(const uint8_t *data, size_t size,
                           hs_error_t *err);

/* data as a standalone profile, through hs_profile_load_text (from
   memory); the first non-empty input of a process also through
   hs_profile_load (from a file), which must agree.  A profile read is
   written (hs_profile_write), loaded back and written again: it must
   load, with the same counts, and the two files must be the same bytes. */
hs_err_t hs_fuzz_profile(const uint8_t *data, size_t size, hs_error_t *err);

/* data as the harness's sidecar (hs_ingest_opts_t.sidecar) of two small
   traces, fuzz/data/tiny-rank0.json and tiny-rank1.json.gz (cut from
   tests/data/ingest/legacy-rank{0,1} by fuzz/data/make_tiny.py), with a
   warm-up of 1, then hs_ingest_profile. */
hs_err_t hs_fuzz_sidecar(const uint8_t *data, size_t size, hs_error_t *err);

/*
 * A profiler trace (the input's bytes after the first) read one of four
 * ways, which the first byte picks.  Bit 0: 0, the rest is written as it
 * is (plain JSON, or gzip when it starts with gzip's magic); 1, the rest
 * is gzip-compressed first, so that the gzip path sees valid JSON too.
 * Bits 1-2 (m) and 3-7 (v):
 *   m 0  hs_ingest_add_file with the default options but warm-up v & 3
 *        and the median when v & 16 (else the mean); every step through
 *        hs_ingest_file_step (and the first again), hs_ingest_profile,
 *        the robust figures, and the profile written (hs_profile_write),
 *        loaded back (hs_profile_load) and written again, as the profile
 *        target does;
 *   m 1  the same, and a second ingestion with the per-step record
 *        spilled to a temporary file (rec_mem_bytes 1, or two steps'
 *        worth when v & 4) and two reading threads when v & 8: the same
 *        verdict and message, files, steps, notes, profile and robust
 *        figures;
 *   m 2  hs_kineto_read with its default budgets and with tiny ones
 *        (phases by batches of 1 + (v & 3) steps; the record logs
 *        spilled unless v & 4, at one byte when v & 1, else 200, the
 *        main thread's settled windows with them, the forward's operators by batches unless
 *        v & 8, the record spilled unless v & 16): the same verdict and
 *        message, record (every entry, read back through hs_rank_at) and
 *        notes;
 *   m 3  m 2 with two reading threads for the tiny read.
 * Two-thread reading is forced for any file size
 * (HETSIM_TRACE_THREAD_MIN_BYTES=0).  An empty input is an empty file,
 * read as m 0.
 */
hs_err_t hs_fuzz_trace(const uint8_t *data, size_t size, hs_error_t *err);

/* Every target, then {NULL, NULL}. */
extern const hs_fuzz_target_t hs_fuzz_targets[];

/* The target named name, or NULL. */
const hs_fuzz_target_t *hs_fuzz_find(const char *name);

#endif
