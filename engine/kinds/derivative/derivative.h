/* derivative.h — the derivative kind's data: its spec members (fdw_spec.kspec), its
 * problem data (fdw_problem.kdata) and the analytic values the run checks it against. */
#ifndef FDW_DERIVATIVE_H
#define FDW_DERIVATIVE_H

#include "spec/spec.h"

typedef struct fdw_derivative_spec {
    fdw_axis axis;             /* d/d(axis), periodic */
    int periods[3];            /* the field is prod_a sin(2 pi periods[a] i_a / n_a) */
} fdw_derivative_spec;

typedef struct fdw_derivative_data {
    fdw_axis axis;
    float dc[5];               /* f'(i) = sum_m dc[m] (f(i+m) - f(i-m)), already / h */
} fdw_derivative_data;

/* max over the grid of |field - exact derivative| for a whole volume (x fastest).
 * Returns a negative value if host memory runs out. */
double fdw_derivative_max_error(const fdw_spec *spec, const float *field);

#endif
