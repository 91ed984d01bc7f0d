/*
 * bench_capi.c -- the C side of bench/bench_python.sh: N closed-form
 * predictions (hs_capi_answer, replay never) of one scenario, loaded once,
 * with the A100 count set to COUNT (a 10,000-device ring by default).
 *
 *   bench_capi SCENARIO [N [COUNT_A [COUNT_B]]]
 * prints "c_s_per_predict <seconds>" and the step it predicted.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hs_capi.h"

static double hs__now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    hs_scenario_t *s = NULL;
    hs_capi_answer_t a;
    hs_capi_type_t ty[8];
    hs_error_t err;
    long n = argc > 2 ? atol(argv[2]) : 1000, i;
    double t0;

    if (argc < 2) {
        fprintf(stderr, "usage: bench_capi SCENARIO [N [A100 [MLU370]]]\n");
        return 2;
    }
    if (hs_scenario_load(argv[1], &s, &err) != HS_OK ||
        hs_scenario_set(s, "device_types.A100.count",
                        argc > 3 ? argv[3] : "5000", &err) != HS_OK ||
        hs_scenario_set(s, "device_types.MLU370.count",
                        argc > 4 ? argv[4] : "5000", &err) != HS_OK ||
        hs_scenario_resolve(s, &err) != HS_OK) {
        fprintf(stderr, "bench_capi: %s\n", err.msg);
        hs_scenario_free(s);
        return 1;
    }
    t0 = hs__now();
    for (i = 0; i < n; i++)
        if (hs_capi_answer(s, HS_ANSWER_REPLAY_NEVER, NULL, NULL, &a, ty, 8,
                           &err) != HS_OK) {
            fprintf(stderr, "bench_capi: %s\n", err.msg);
            hs_scenario_free(s);
            return 1;
        }
    printf("c_s_per_predict %.9f\nn_devices %" PRIu64 "\nstep_extended_ns %"
           PRId64 "\n", (hs__now() - t0) / (double)n, a.n_devices,
           a.step_ns[HS_PREDICTOR_EXTENDED]);
    hs_scenario_free(s);
    return 0;
}
