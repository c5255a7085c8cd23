/* cpml.h — the CPML absorbing boundary on the engine side (no backend code): the
 * recursive-convolution coefficients a, b of a convolutional PML along one axis
 * (complex-frequency-shifted, kappa = 1), and the rule that slab boundaries keep clear of
 * the z layers, checked on a plan before any backend runs it. The per-step recursion the
 * backends apply is described in kinds/acoustic/acoustic.h. */
#ifndef FDW_CPML_H
#define FDW_CPML_H

#include "run/plan.h"
#include "spec/spec.h"

/* Coefficients of one axis of n points with layers of wlo points at index 0 and whi at
 * index n-1 (0: none), spacing h. A point at normalised depth x in (0, 1] (x = (W - i)/W
 * for i < W, mirrored at the high end, as fdw_sponge_profile) gets
 *   d = d0 x^2, d0 = -3 vmax ln(R) / (2 W h),  alpha = pi f (1 - x),
 *   b = exp(-(d + alpha) dt),  a = d (b - 1) / (d + alpha)  (0 when d + alpha = 0),
 * computed in double and stored in a[n], b[n] as float; interior points get a = 0, b = 1. */
void fdw_cpml_profile(int n, int wlo, int whi, double h, double vmax, double dt,
                      double reflection, double frequency, float *a, float *b);

/* First internal slab boundary of plan (a global plane index: the first plane of a slab
 * other than the first) that lies within wz[0] + radius planes of the top or wz[1] +
 * radius of the bottom of an nz-plane grid, which the CPML's psi_z may not cross; -1 when
 * there is none. */
int fdw_cpml_bad_slab_boundary(const int wz[2], int nz, int radius, const fdw_plan *plan);

/* FDW_ERR_SPEC when the plan splits a CPML z layer (see above), saying how many devices
 * (or MPI ranks, when mpi) would fit, and which widths would fit this count; field
 * "devices" (mpi: "boundary.width"). FDW_OK for any other boundary. */
fdw_status fdw_cpml_check_plan(const fdw_spec *spec, const fdw_plan *plan, int mpi,
                               fdw_error *err);

#endif
