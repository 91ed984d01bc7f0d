/*
 * hs_consumer.c -- a program written against the installed library only
 * (#include <hetsim/hetsim.h>), built by packaging/tests/install.sh with
 * pkg-config and with find_package(hetsim).  It predicts the embedded
 * default scenario and scenarios/fig3-compute-bound.yaml of the installed
 * data directory with the closed form and prints, one per line:
 *   version V
 *   default_step_ns N
 *   datadir_scenario PATH
 *   fig3_step_ns N
 *   time_1500ms_ns N      (hs_parse_time_ns("1.5s"))
 * The test compares the steps with `hetsim predict --json`.
 */
#include <inttypes.h>
#include <stdio.h>

#include <hetsim/hetsim.h>

/* The cluster step of scenario s (the embedded default when path is
   NULL) into *step_ns: 0, or 1 with the error printed. */
static int predict(const char *path, int64_t *step_ns)
{
    hs_scenario_t *s = NULL;
    hs_prediction_t *p = NULL;
    hs_error_t err;
    hs_err_t rc;

    hs_error_clear(&err);
    rc = path ? hs_scenario_load(path, &s, &err)
              : hs_scenario_load_default(&s, &err);
    if (rc == HS_OK)
        rc = hs_scenario_require_profiles(s, &err);
    if (rc == HS_OK)
        rc = hs_closed_predict(s, &p, &err);
    if (rc == HS_OK)
        *step_ns = p->step_ns;
    else
        fprintf(stderr, "hs_consumer: %s\n", err.msg);
    hs_prediction_free(p);
    hs_scenario_free(s);
    return rc != HS_OK;
}

int main(void)
{
    char path[4096];
    int64_t step_ns, t_ns;
    hs_error_t err;

    printf("version %s\n", HETSIM_VERSION);
    if (predict(NULL, &step_ns) != 0)
        return 1;
    printf("default_step_ns %" PRId64 "\n", step_ns);
    hs_error_clear(&err);
    if (hs_datadir_path("scenarios/fig3-compute-bound.yaml", path,
                        sizeof path, &err) != HS_OK) {
        fprintf(stderr, "hs_consumer: %s\n", err.msg);
        return 1;
    }
    printf("datadir_scenario %s\n", path);
    if (predict(path, &step_ns) != 0)
        return 1;
    printf("fig3_step_ns %" PRId64 "\n", step_ns);
    if (hs_parse_time_ns("1.5s", &t_ns) != 0)
        return 1;
    printf("time_1500ms_ns %" PRId64 "\n", t_ns);
    return 0;
}
