/*
 * hs_chrome.h -- Chrome trace / Perfetto JSON export of a replay
 * (docs/traces.md).
 */
#ifndef HS_CHROME_H
#define HS_CHROME_H

#include "hs_error.h"
#include "hs_replay.h"
#include "hs_scenario.h"
#include "hs_trace.h"

typedef struct hs_chrome_writer_s hs_chrome_writer_t;

/* As hs_h5_writer_open, for a Chrome-trace JSON file. */
hs_err_t hs_chrome_writer_open(const char *path, const hs_scenario_t *s,
                               hs_chrome_writer_t **out,
                               hs_trace_sink_t *sink, hs_error_t *err);

/* As hs_h5_writer_open_opts: the seed and the overlap mode from o (NULL:
   the scenario's). */
hs_err_t hs_chrome_writer_open_opts(const char *path, const hs_scenario_t *s,
                                    const hs_replay_opts_t *o,
                                    hs_chrome_writer_t **out,
                                    hs_trace_sink_t *sink, hs_error_t *err);

/* As hs_h5_writer_close. */
hs_err_t hs_chrome_writer_close(hs_chrome_writer_t *w, int commit,
                                hs_error_t *err);

#endif
