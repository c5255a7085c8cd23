/* problem.h — turning a validated spec into the fdw_problem a backend runs: stencil
 * coefficients, (v dt)^2, sponge damping profiles, source and receiver taps, sampled
 * wavelets, and the initial fields of the stencil and derivative kinds. Also the
 * analytic values the engine checks the derivative kind against. */
#ifndef FDW_PROBLEM_H
#define FDW_PROBLEM_H

#include "run/backend.h"

/* Sponge profile exponent: sigma(d) = sigma_max (d/W)^p with d the depth into the layer. */
#ifndef FDW_SPONGE_POWER
#define FDW_SPONGE_POWER 2.0
#endif

/* Fill prob from spec (all arrays allocated here). On failure prob holds nothing to free.
 * Reads the velocity model for the acoustic kind. */
fdw_status fdw_problem_build(const fdw_spec *spec, fdw_problem *prob, fdw_error *err);

/* Release every array fdw_problem_build allocated and zero prob. Safe on a zeroed prob. */
void fdw_problem_free(fdw_problem *prob);

/* Trilinear taps of the position pos (metres) on the spec's grid: the up to 8 nodes of the
 * cell around it with non-zero weight (exactly one, weight 1, for a position on a node).
 * Returns the number written to taps[8]. */
int fdw_problem_taps(const fdw_spec *spec, const double pos[3], int owner, fdw_tap taps[8]);

/* The sponge damping q = sigma*dt of one axis: n points, layer widths wlo (at index 0) and
 * whi (at index n-1) in points, spacing h. out[n]; zero in the interior. */
void fdw_sponge_profile(int n, int wlo, int whi, double h, double vmax, double dt,
                        double reflection, float *out);

/* Stencil kind's initial value at flat index idx: a hash of (seed, idx) mapped to [-1, 1],
 * so identical whatever the decomposition. */
float fdw_stencil_init_value(long seed, uint64_t idx);

/* Derivative kind: the field prod_a sin(2 pi periods[a] i_a / n_a) at (i,j,k), and its
 * exact derivative along spec->deriv_axis in physical units (per metre). */
double fdw_derivative_field(const fdw_spec *spec, int i, int j, int k);
double fdw_derivative_exact(const fdw_spec *spec, int i, int j, int k);
/* max over the grid of |field - exact derivative| for a whole volume (x fastest).
 * Returns a negative value if host memory runs out. */
double fdw_derivative_max_error(const fdw_spec *spec, const float *field);

#endif
