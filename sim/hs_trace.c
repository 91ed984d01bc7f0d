/* hs_trace.c -- names of the replay's phases (hs_trace.h). */
#include "hs_trace.h"

const char *hs_phase_name(hs_phase_t ph)
{
    static const char *const names[HS_PH_COUNT] = {
        "data_load",      /* HS_PH_DATA_LOAD */
        "forward",        /* HS_PH_FORWARD */
        "backward_first", /* HS_PH_BACKWARD_FIRST */
        "backward_rest",  /* HS_PH_BACKWARD_REST */
        "optimizer",      /* HS_PH_OPTIMIZER */
        "ring_send",      /* HS_PH_RING_SEND */
        "ring_wait",      /* HS_PH_RING_WAIT */
        "data_wait",      /* HS_PH_DATA_WAIT */
        "ring_reduce",    /* HS_PH_RING_REDUCE */
        "hop_wait"        /* HS_PH_HOP_WAIT */
    };

    if ((unsigned)ph >= HS_PH_COUNT)
        return "unknown";
    return names[ph];
}
