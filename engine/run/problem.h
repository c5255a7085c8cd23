/* problem.h — turning a validated spec into the fdw_problem a backend runs: the shared
 * parts, the kind's own through its build hook, and the wave parts the wave kinds share
 * (sponge profiles, source and receiver taps through run/positioning.h, sampled
 * wavelets). */
#ifndef FDW_PROBLEM_H
#define FDW_PROBLEM_H

#include "run/backend.h"

/* Sponge profile exponent: sigma(d) = sigma_max (d/W)^p with d the depth into the layer. */
#ifndef FDW_SPONGE_POWER
#define FDW_SPONGE_POWER 2.0
#endif

/* Fill prob from spec (all arrays allocated here or by the kind's build; tuning NULL:
 * every choice automatic). On failure prob holds nothing to free. */
fdw_status fdw_problem_build(const fdw_spec *spec, const fdw_tuning *tuning,
                             fdw_problem *prob, fdw_error *err);

/* Release every array of prob (the kind's through kind->problem.free) and zero prob. Safe
 * on a zeroed prob. */
void fdw_problem_free(fdw_problem *prob);

/* ---- for the kinds' build functions ---- */

/* calloc that reports its size and what it was for on failure (FDW_ERR_NOMEM). */
void *fdw_problem_alloc(size_t count, size_t size, const char *what, fdw_error *err);

/* The parts every wave kind shares: free surface, sponge profiles (boundary "sponge"),
 * source taps and wavelets, receiver taps. */
fdw_status fdw_problem_wave(const fdw_spec *spec, fdw_problem *prob, fdw_error *err);

/* The sponge damping q = sigma*dt of one axis: n points, layer widths wlo (at index 0) and
 * whi (at index n-1) in points, spacing h. out[n]; zero in the interior. */
void fdw_sponge_profile(int n, int wlo, int whi, double h, double vmax, double dt,
                        double reflection, float *out);

#endif
