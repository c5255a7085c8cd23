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

/* ---- Two steps per pass (engine/run/backend.h's step2) -----------------------------
 * Steps it and it + 1 of a whole single slab (no ghost exchange) in one pass: reads u(t)
 * (a.u, its free-surface ghosts mirrored) and u(t - dt) (a.out, read only), writes u(t + dt)
 * into out1 with step it's sources added (their taps in the CSR arrays of fdwk_inject,
 * point offsets from the interior origin) and u(t + 2 dt) into out2 without step it + 1's
 * (the caller injects those afterwards with fdwk_inject, as after a single step). The same
 * operations in the same order as two fdwk_acoustic_step calls, each followed by
 * fdwk_inject: the same bits. No CPML (a.pml all NULL); radius 1..4. */
typedef struct fdwk_fd2_args {
    fdwk_fd_args a;            /* as for fdwk_acoustic_step; k0/k1 the slab's planes */
    float *out1, *out2;        /* u(t + dt), u(t + 2 dt): same layout, distinct buffers */
    int nz;                    /* the slab's planes (= the grid's: one slab) */
    int npoints;               /* step it's source points (fdwk_inject's arrays) */
    const long *offset;
    const int *start, *owner;
    const float *weight, *wavelets;
    long nt, it;               /* wavelets are nt per source; step it's sources injected */
} fdwk_fd2_args;
/* The largest radius the two-step kernel takes (4), and whether its shared memory fits
 * the current device at radius r (1) or not (0). */
int fdwk_acoustic_step2_max_radius(void);
int fdwk_acoustic_step2_fits(int r);
int fdwk_acoustic_step2(const fdwk_fd2_args *a, fdwk_stream s);

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
