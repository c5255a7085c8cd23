/* physics_util.h — shared helpers of the physics tests: run a JSON spec through
 * fdw_spec_parse + fdw_run on the CPU backend into a temporary directory, read back the
 * receiver gather, compare traces, and remove the directory. */
#ifndef FDW_PHYSICS_UTIL_H
#define FDW_PHYSICS_UTIL_H

#include "fdwave/fdwave.h"

#include <stddef.h>

/* A finished run: its gather ([receiver][sample]) and where its files are. */
typedef struct phys_run {
    char dir[256];
    int nrec;
    long ns;
    double dt;          /* sample interval of the gather, s */
    float *traces;      /* nrec * ns; NULL when the run has no receivers */
    fdw_result result;
} phys_run;

/* Parse json and run it on the CPU backend into a fresh temporary directory; fail the
 * Check test on any error. cb may be NULL; threads 0 = OpenMP's default. */
void phys_run_spec(const char *json, const fdw_callbacks *cb, int threads, phys_run *out);

/* Read a whole file; *len gets its size. NULL if unreadable. Caller frees. */
unsigned char *phys_read_file(const char *path, size_t *len);

/* Relative L2 difference ||a - b|| / ||b|| over n samples. */
double phys_rel_l2(const float *a, const double *b, long n);

/* Remove the run's directory and free its traces. */
void phys_run_free(phys_run *r);

#endif
