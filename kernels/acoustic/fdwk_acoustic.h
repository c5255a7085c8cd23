/* fdwk_acoustic.h — the acoustic kind's update on the GPU: u(t+dt) = 2u - u(t-dt) +
 * (v dt)^2 lap(u) (with sponge damping or the CPML's terms, and the free surface), orders
 * 2..16, through the shared 2.5D kernel (common/fdwk_fd.h) followed by the CPML passes
 * (cpml.cu). The seed paper's eq. 2; 16 bytes per point. */
#ifndef FDWK_ACOUSTIC_H
#define FDWK_ACOUSTIC_H

#include "common/fdwk_fd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Updates local planes a->k0..a->k1 (a->mode must be FDWK_ACOUSTIC): out, which holds
 * u(t-dt), becomes u(t+dt); then each axis's CPML zeta pass where a->pml[axis] is set.
 * 0 or a CUDA error code. */
int fdwk_acoustic_step(const fdwk_fd_args *a, fdwk_stream s);

/* ---- CPML (engine/run/backend.h states the recursion) ------------------------
 * One axis's layer points in local planes [k0, k1) of a slab. Layer index l along the axis:
 * l < w0 is global index l, l >= w0 is n - w1 + (l - w0). psi and zeta are compact:
 *   x: ((k * ny + j) * (w0 + w1) + l)      (k local, all planes of the slab)
 *   y: ((k * (w0 + w1) + l) * nx + i)
 *   z: ((l * ny + j) * nx + i)              (w0/w1: the layer planes this slab holds)
 * fdwk_pml_psi updates psi from u; fdwk_pml_zeta then updates zeta and adds the term to
 * out (skipping global plane 0 when free_surface is set). */
typedef struct fdwk_pml_args {
    int axis, radius;
    int nx, ny;              /* slab interior */
    long pitch, plane;       /* layout; u, out, vdt2 are interior origins */
    int k0, k1;              /* local planes */
    int kglob;               /* global index of local plane 0 */
    int n, w0, w1;           /* axis length (global) and layer widths */
    int free_surface;
    const float *a, *b;      /* per global axis index */
    const float *u, *vdt2;
    float *out, *psi, *zeta;
    float d1[FDWK_MAX_RADIUS + 1], d2[FDWK_MAX_RADIUS + 1];
} fdwk_pml_args;
int fdwk_pml_psi(const fdwk_pml_args *a, fdwk_stream s);
int fdwk_pml_zeta(const fdwk_pml_args *a, fdwk_stream s);

#ifdef __cplusplus
}
#endif
#endif
