/* fdwk_fd.h — the argument block of the 2.5D finite-difference update that the acoustic
 * and stencil kinds share (acoustic/fdwk_acoustic.h, stencil/fdwk_stencil.h), and the name of
 * the kernel configuration that runs. Both kinds run the same kernel (common/fd25.cuh) with
 * a different point update, so one struct carries what either needs; a configuration is a
 * tile shape and pipeline depth, one per kind and radius from the tuned tables
 * (common/fd_launch.cuh). */
#ifndef FDWK_FD_H
#define FDWK_FD_H

#include "common/fdwk_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { FDWK_ACOUSTIC = 0, FDWK_STENCIL = 1 } fdwk_mode;

struct fdwk_pml_args; /* acoustic/fdwk_acoustic.h: the CPML passes */

typedef struct fdwk_fd_args {
    fdwk_mode mode;          /* must match the step called (a guard against mixed-up calls) */
    int radius;              /* 1..8 */
    float *out;              /* acoustic: u(t-dt) on entry, u(t+dt) on exit; stencil: D' */
    const float *prev;       /* acoustic: u(t-dt) from here instead, out only written (NULL:
                              * from out, in place) */
    const float *u;          /* u(t) / D, with valid ghosts */
    const float *vdt2;       /* acoustic: (v dt)^2, same layout */
    const float *qx, *qy, *qz; /* sponge damping per axis (qz by global k); NULL: none */
    int nx, ny;              /* slab interior */
    int k0, k1;              /* local planes to update */
    int kglob;               /* global index of local plane 0 */
    long pitch, plane;       /* layout; all pointers are interior origins */
    int free_surface;        /* write 0 on global plane 0 */
    int zchunk;              /* planes per block along z; 0: automatic */
    float c0;                /* centre weight (acoustic: cx0+cy0+cz0; stencil: sc0) */
    float cx[FDWK_MAX_RADIUS + 1], cy[FDWK_MAX_RADIUS + 1], cz[FDWK_MAX_RADIUS + 1];
    /* CPML per axis (host structs, NULL: no layer on that axis; k0/k1 as above): after
     * the update, fdwk_acoustic_step runs each axis's zeta pass (fdwk_pml_zeta) on the same
     * stream; fdwk_pml_psi must have been called for this step before the update (it does
     * nothing where the zeta call updates psi too, which is the usual case: cpml.cu). */
    const struct fdwk_pml_args *pml[3];
    /* The imaging sum only (kernels/imaging): the illumination, u u added (NULL: none). */
    float *ill;
} fdwk_fd_args;

/* The name of the configuration that runs for this kind and radius ("V1 TMA x4 64x16:
 * 16x16, L1": its V-name, tile, threads, planes in flight); NULL for a radius outside
 * 1..FDWK_MAX_RADIUS. */
const char *fdwk_fd_config_name(fdwk_mode mode, int radius);

#ifdef __cplusplus
}
#endif
#endif
