/* sweep_util.h — helpers of the sweep kind's tests: run a JSON spec through fdw_spec_parse
 * and fdw_run (CPU backend unless asked otherwise) into a temporary directory, read back
 * the times T (T.f64) and the manifest's convergence record, parse a spec expected to
 * fail, the analytic Randers travel time, and error figures of a field against a
 * reference. */
#ifndef FDW_SWEEP_UTIL_H
#define FDW_SWEEP_UTIL_H

#include "fdwave/fdwave.h"

#include <check.h>

#include <stddef.h>

typedef struct sw_run {
    char dir[256];
    int nx, ny, nz;
    double *T;                 /* nx*ny*nz, x fastest (T.f64); NULL with volume "none" */
    long sweeps;               /* sweeps run (the result's "steps") */
    int converged;             /* the manifest's convergence.converged */
    long long computed[128];   /* per sweep (the first 128) */
    long long changed[128];
    long long reached[128];
    double max_change[128];
    fdw_result result;
    int progress_calls;        /* progress callbacks that carried has_change */
    double last_change;        /* their last change */
} sw_run;

/* Parse json and run it into a fresh temporary directory on backend be with tuning (may
 * be NULL); fails the Check test on any error. */
void sw_run_spec(const char *json, fdw_backend_kind be, const fdw_tuning *tuning, sw_run *out);
/* The same on the caller's device list (fdw_run_opts.device_ids: e.g. {0, 0, 0}, three
 * slabs on one GPU). */
void sw_run_spec_on(const char *json, fdw_backend_kind be, const fdw_tuning *tuning,
                    const int *ids, int nids, sw_run *out);
/* Remove the run's directory and free T. */
void sw_run_free(sw_run *r);

/* Parse json expecting failure: returns the status and fills err. */
fdw_status sw_parse_fails(const char *json, const char *base_dir, fdw_error *err);

/* N(d) of the Hamiltonian F |p| + b.p = 1: (sqrt(a |d|^2 + (b.d)^2) - b.d) / a. */
double sw_randers(double F, const double b[3], const double d[3]);

/* Max and mean of |T - ref| over the cells where mask is NULL or non-zero. */
void sw_error(const double *T, const double *ref, const unsigned char *mask, size_t n,
              double *max, double *mean);

/* Whether two runs' fields are bit for bit the same. */
int sw_same_bits(const sw_run *a, const sw_run *b);

/* Run suite s and free it: EXIT_SUCCESS when every test passed, else EXIT_FAILURE. */
int sw_run_suite(Suite *s);

/* Write n bytes to dir/name (a test's input file); returns the path in a static buffer. */
const char *sw_write_file(const char *dir, const char *name, const void *data, size_t n);

#endif
