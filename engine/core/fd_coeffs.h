/* fd_coeffs.h — finite-difference weights (Fornberg's algorithm) and the stability limit
 * of the acoustic scheme. Shared by spec validation, problem set-up and the benchmarks. */
#ifndef FDW_FD_COEFFS_H
#define FDW_FD_COEFFS_H

/* Central second-derivative weights of accuracy order `order` (even, 2..16) on unit
 * spacing: f''(0) ~ c[0] f(0) + sum_{m=1..order/2} c[m] (f(m) + f(-m)).
 * Order 8: -205/72, 8/5, -1/5, 8/315, -1/560. Returns 0, or -1 for a bad order. */
int fdw_fd2_coeffs(int order, double *c);

/* Central first-derivative weights on unit spacing: f'(0) ~ sum_{m=1..order/2}
 * c[m] (f(m) - f(-m)); c[0] = 0. Order 8: 4/5, -1/5, 4/105, -1/280. */
int fdw_fd1_coeffs(int order, double *c);

/* lambda = |c0| + 2 sum |cm|, the largest eigenvalue magnitude of the 1-D operator. */
double fdw_fd2_lambda(int order);

/* The 1-D symbol of weights c[1..r] at angle theta: 2 sum_m c[m] cos(m theta) (odd = 0, a
 * symmetric stencil) or 2 sum_m c[m] sin(m theta) (odd = 1, an antisymmetric one). */
double fdw_symbol(const double *c, int r, int odd, double theta);

/* Its smallest and largest value over [0, pi], sampled at 4097 angles (how much an
 * iteration of the stencil can amplify a mode: the field kinds' overflow checks). */
void fdw_symbol_range(const double *c, int r, int odd, double *lo, double *hi);

/* Largest stable dt for the 2nd-order-in-time acoustic update:
 * vmax dt sqrt(lambda (1/dx^2 + 1/dy^2 + 1/dz^2)) <= 2. */
double fdw_dt_max(int order, double dx, double dy, double dz, double vmax);

#endif
