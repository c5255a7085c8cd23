/* acoustic.h — the acoustic kind's own problem data (fdw_problem.kdata), read by its CPU
 * and CUDA hooks: the Laplacian's coefficients, (v dt)^2 per point, and the CPML.
 *
 * The update: u' = (2u - u_prev) + vdt2 lap(u), lap(u) = sum_axis sum_{m=-r..r} cA[|m|]
 * u(.. +m ..) with cA = Fornberg / h_A^2; with a sponge (fdw_problem.qx/qy/qz),
 * u' = ((2u - (1 - q) u_prev) + vdt2 lap(u)) / (1 + q).
 *
 * CPML (boundary type "cpml"; then there is no sponge). Axis A (0 x, 1 y, 2 z) has a layer
 * of pml_w[A][0] points at its low end and pml_w[A][1] at its high end (0: no layer
 * there); pml_a[A], pml_b[A] hold the recursive-convolution coefficients per global index
 * along A (axis length; meaningful inside the layers only), pml_d1[A][m] (m = 1..radius)
 * the central first-derivative weights of the same radius, already divided by h_A. NULL
 * pml_a[A]: no layer on axis A. Each step, after the plain update and before the sources,
 * for A = x, y, z in turn:
 *   1. for every point p of A's layers: psi_A(p) = b(p) psi_A(p) + a(p) D1_A u(p)
 *   2. then for every point p of A's layers, with g = D1_A psi_A (p) (psi_A is 0 outside
 *      A's layers and outside the grid):
 *        zeta_A(p) = b(p) zeta_A(p) + a(p) (D2_A u(p) + g)
 *        u'(p) = u'(p) + vdt2(p) (g + zeta_A(p))
 * where D1_A f(p) = sum_m pml_d1[A][m] (f(p + m e_A) - f(p - m e_A)), D2_A u the
 * Laplacian's second difference along A, u the field at time it, a/b taken at p's index
 * along A; psi and zeta start at zero. So a point in two or three layers (edges, corners)
 * gets the x, then y, then z term. A slab boundary never lies within pml_w[2][0] + radius
 * planes of the top or pml_w[2][1] + radius of the bottom (run/cpml.h), so psi_z never
 * crosses one. With a free surface there is no z layer at the top, and global plane 0
 * keeps u' = 0: its x and y terms update psi and zeta but are not added to u'.
 * The recursion is evaluated in float with a fixed operation order and no FMA, so the CPU
 * and CUDA backends agree bit for bit. */
#ifndef FDW_ACOUSTIC_H
#define FDW_ACOUSTIC_H

#include "core/limits.h"
#include "run/backend.h"

#include <stdint.h>

typedef struct fdw_acoustic_data {
    float cx[FDW_MAX_RADIUS + 1], cy[FDW_MAX_RADIUS + 1], cz[FDW_MAX_RADIUS + 1];
    const float *vdt2;         /* (v dt)^2 per point, nx*ny*nz, x fastest */
    int pml_w[3][2];
    const float *pml_a[3], *pml_b[3];
    float pml_d1[3][FDW_MAX_RADIUS + 1];
} fdw_acoustic_data;

/* Whether the problem's kind data asks for a CPML (a layer on some axis). */
static inline int fdw_acoustic_has_cpml(const fdw_acoustic_data *a)
{
    return a && (a->pml_a[0] || a->pml_a[1] || a->pml_a[2]);
}

/* Layer points of axis a (0 x, 1 y, 2 z) held by a slab of nz planes starting at global
 * plane z0: the x and y layers on every plane, the z layer planes that fall in the slab;
 * 0 when the problem has no CPML layer on that axis. Both backends size psi and zeta by it. */
uint64_t fdw_acoustic_cpml_points(const fdw_problem *p, int a, int z0, int nz);

/* The Laplacian's coefficients cA[m] = Fornberg's weights / h_A^2 (m = 0..radius) for the
 * spec's order and spacings, in float (the imaging kinds' scheme is this one); FDW_ERR_SPEC
 * for an order without weights. */
struct fdw_spec;
fdw_status fdw_acoustic_coeffs(const struct fdw_spec *spec, float *cx, float *cy, float *cz,
                               fdw_error *err);

/* The CPML of a spec whose boundary type is "cpml" (nothing for another type): layer widths
 * w[A][0], w[A][1] per axis (no top layer under a free surface), the recursion's a and b
 * per global index of each axis with a layer (new arrays into pa[A], pb[A]: NULL where
 * none; the caller frees them, also after an error), and the first-derivative weights of
 * the spec's radius over h_A. The acoustic kind's data and the imaging kinds' take it. */
fdw_status fdw_acoustic_cpml_build(const struct fdw_spec *spec, int w[3][2], const float *pa[3],
                                   const float *pb[3], float d1[3][FDW_MAX_RADIUS + 1],
                                   fdw_error *err);

#endif
