/* sweep_geom.h — the sweep kind's metric and the constants of its local update per sweep
 * direction (sweep_point.h's sw_geo, in float64 and float32), the Randers norm the tests
 * and the initial values use, and which grid axes span the planes of a sweep along each
 * axis. Included by C (the CPU engine, the problem set-up) and by CUDA (the kernels use the
 * sw_geo types and the update functions only). */
#ifndef FDW_SWEEP_GEOM_H
#define FDW_SWEEP_GEOM_H

#include <math.h>

#define SW_REAL double
#define SW_SUF _d
#define SW_FMA fma
#define SW_SQRT sqrt
#define SW_KEEP 0.0
#include "sweep_point.h"
#undef SW_REAL
#undef SW_SUF
#undef SW_FMA
#undef SW_SQRT
#undef SW_KEEP
#define SW_REAL float
#define SW_SUF _f
#define SW_FMA fmaf
#define SW_SQRT sqrtf
#define SW_KEEP 1.9073486328125e-6f /* 16 float epsilons */
#include "sweep_point.h"
#undef SW_REAL
#undef SW_SUF
#undef SW_FMA
#undef SW_SQRT
#undef SW_KEEP

#ifdef __cplusplus
extern "C" {
#endif

/* The Hamiltonian F |p| + b.p = 1 (b = psi a), or the isotropic field form (field = 1:
 * F varies per point and b = 0; the constants are those of F = 1, scaled at the point). */
typedef struct sweep_metric {
    int field;
    double F;
    double b[3];
} sweep_metric;

/* The axes (0 x, 1 y, 2 z) of the plane of a sweep along axis: u is the fastest axis of
 * the layout that sweep runs on (x and z sweeps: y-fastest; y sweeps: x-fastest). */
static inline void sweep_plane_axes(int axis, int *u, int *v)
{
    *u = axis == 1 ? 0 : 1;
    *v = axis == 0 ? 2 : axis == 1 ? 2 : 0;
}

/* |v|, without overflow or underflow of the squares (a = [1e300, 0, 0] has length 1e300). */
double sweep_length(const double v[3]);

/* Travel time N(d) of the displacement d in metric m (field: for F = 1). */
double sweep_norm(const sweep_metric *m, const double d[3]);

/* The constants of the update of a sweep along axis (0..2) in direction sign (+1: the
 * index grows) on a grid of spacing h, for metric m. */
void sweep_geometry(const double h[3], int axis, int sign, const sweep_metric *m,
                    sw_geo_d *g);
/* The same constants rounded to float32. */
void sweep_geometry_float(const sw_geo_d *g, sw_geo_f *out);
/* Whether the update's constants on a grid of n points of spacing h, at slownesses smin
 * to smax (the Randers form: 1 and 1), are representable in float64 (and float32 when f32)
 * and the update computes travel times within its bounds: 1, with in span an upper bound of
 * the travel time across the grid; else 0 (F, |b| or h so large or small that squares
 * overflow or underflow, e.g. F = 1e-300 or h = 1e300). */
int sweep_geometry_usable(const double h[3], const long n[3], const sweep_metric *m,
                          double smin, double smax, int f32, double *span);

#ifdef __cplusplus
}
#endif
#endif
