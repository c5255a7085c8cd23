/* fdwk_img_cpml.h — the imaging kinds' CPML kernels (engine/kinds/imaging/imaging_cpml.h
 * states the operations and the memory variables' layout): the forward step's layer term,
 * its product into a field, and the transposed step of the adjoint field, each point
 * computed with the CPU engine's operations in its order (no fused multiply-adds), so the
 * GPU gives the CPU's bits. The forward recursion itself is the acoustic kind's
 * (acoustic/fdwk_acoustic.h: fdwk_pml_psi, fdwk_pml_zeta). Fields are interior origins of
 * rows of pitch floats and planes of plane floats, their padding zero. */
#ifndef FDWK_IMG_CPML_H
#define FDWK_IMG_CPML_H

#include "common/fdwk_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One axis: length n, layers w0 and w1 (W = w0 + w1; 0: none), the band [0, blo) and
 * [bhi, n), lines along the axis, the axis's layer points (count = lines W) and its place
 * in a set (2 off) and in a term (off); a and b per global index (device), d1 and d2. */
typedef struct fdwk_img_pml_axis {
    int n, w0, w1, W, blo, bhi;
    long lines, count, off;
    const float *a, *b;
    float d1[FDWK_MAX_RADIUS + 1], d2[FDWK_MAX_RADIUS + 1];
} fdwk_img_pml_axis;

typedef struct fdwk_img_pml {
    int radius, nx, ny, fs;    /* fs: plane 0 held at 0 (free surface) */
    long pitch, plane;
    fdwk_img_pml_axis ax[3];
} fdwk_img_pml;

/* term = D1 psi~ + zeta at every layer point (set: psi and zeta). */
int fdwk_img_pml_term(const fdwk_img_pml *g, const float *set, float *term, fdwk_stream s);
/* dst += f term at each axis's layer points, x, then y, then z (plane 0 left out under a
 * free surface). */
int fdwk_img_pml_apply(const fdwk_img_pml *g, const float *term, const float *f, float *dst,
                       fdwk_stream s);
/* After the plain update of up from z: per axis chi = b chi + z, phi = b phi -
 * D1 (z + a chi)~, then up += v (D2 (a chi)~ - D1 (a phi)~) over the band (set: chi and
 * phi). */
int fdwk_img_pml_adjoint(const fdwk_img_pml *g, float *set, const float *z, float *up,
                         const float *v, fdwk_stream s);

#ifdef __cplusplus
}
#endif
#endif
