/*
 * hs_sweep_compat.h -- TEMPORARY: the "scenario as data" API as announced
 * for model/hs_scenario.h (hs_scenario_set, hs_scenario_resolve,
 * hs_scenario_clone), declared here until it lands there; see
 * hs_sweep_compat.c.  Deleted with it.
 */
#ifndef HS_SWEEP_COMPAT_H
#define HS_SWEEP_COMPAT_H

#include "hs_error.h"
#include "hs_scenario.h"

hs_err_t hs_scenario_set(hs_scenario_t *s, const char *key_path,
                         const char *value, hs_error_t *err);
hs_err_t hs_scenario_resolve(hs_scenario_t *s, hs_error_t *err);
hs_err_t hs_scenario_clone(const hs_scenario_t *s, hs_scenario_t **out,
                           hs_error_t *err);

#endif
