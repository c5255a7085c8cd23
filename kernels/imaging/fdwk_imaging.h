/* fdwk_imaging.h — the imaging kinds' own kernels (engine/kinds/imaging/imaging.h): the
 * scheme's Laplacian of a field fed to born's scattered field or to the image, each point
 * computed with the CPU engine's operations in its order (kernels build without fused
 * multiply-adds), so the GPU gives the CPU's bits. Fields are interior origins of the
 * fdwk_layout L (common/fdwk_runtime.h), ghost planes valid (the free surface's mirror). */
#ifndef FDWK_IMAGING_H
#define FDWK_IMAGING_H

#include "common/fdwk_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Laplacian's coefficients: c[axis][m], m = 0..radius (already over h^2). */
typedef struct fdwk_img_lap {
    int radius;
    float c[3][FDWK_MAX_RADIUS + 1];
} fdwk_img_lap;

/* born: s += dv lap(u) at every interior point of planes [k0, nz) (dv: dV / (1 + q)). */
int fdwk_img_born(float *s, const float *dv, const float *u, const fdwk_layout *L,
                  const fdwk_img_lap *c, int k0, fdwk_stream st);

/* The image's sums at every interior point of planes [k0, nz): img += lap(u) z (xcorr:
 * u z), and ill += u u when ill is not NULL; img and ill float32 fields of the layout L
 * (interior origins, like u and z). */
int fdwk_img_accumulate(float *img, float *ill, const float *u, const float *z,
                        const fdwk_layout *L, const fdwk_img_lap *c, int k0, int xcorr,
                        fdwk_stream st);

/* The image's scaling in place at every interior point (imaging_finish.c's, in double):
 * img = img / V * (2 sqrt(V) dt), then times -v^3 / 2 (v = sqrt(V) / dt) when slowness2. */
int fdwk_img_scale(float *img, const float *vdt2, const fdwk_layout *L, double dt,
                   int slowness2, fdwk_stream st);

/* ---- the boundary scheme (engine/kinds/imaging/imaging_recon.h) ---- */

/* The interior box [lo, hi) per axis and the box grown by the radius within the grid
 * [dlo, dhi); the band is the grown box less the interior. */
typedef struct fdwk_img_box {
    int lo[3], hi[3], dlo[3], dhi[3];
} fdwk_img_box;

/* One unit of the backward pass in one pass over the grid (img_back.cu): with do_img the
 * image's term, img += lap(u) z (xcorr: u z) and ill += u u, on the interior below plane
 * k0; z's step, zo = the scheme's update of (z, zo) with the sponge, plane 0 held at 0
 * under a free surface; with do_u, u's step back on the interior, uo = (2 u - uo) +
 * V lap(u) (0 on plane 0 under a free surface). u and z have valid ghost planes. Each
 * point's operations are the CPU engine's (cpu_imaging.c's back_step and update). */
typedef struct fdwk_img_back_args {
    int radius;
    const float *u, *z;        /* u[n+1], z[n+2]: the centres */
    float *uo, *zo;            /* u[n+2] -> u[n], z[n+3] -> z[n+1] */
    const float *vdt2;
    float *img, *ill;          /* ill NULL: no illumination */
    const float *qx, *qy, *qz; /* z's sponge, all NULL or all set */
    int nx, ny, nz;
    long pitch, plane;
    int free_surface, k0;      /* k0: the image's first plane (1 under a free surface) */
    int zchunk;                /* planes per block along z; 0: automatic */
    float c0;
    float cx[FDWK_MAX_RADIUS + 1], cy[FDWK_MAX_RADIUS + 1], cz[FDWK_MAX_RADIUS + 1];
    fdwk_img_box box;
    int do_u, do_img, xcorr;
} fdwk_img_back_args;

int fdwk_img_backward(const fdwk_img_back_args *a, fdwk_stream st);

/* The band of field (interior origin; layout pitch, plane) into store (save) or back from
 * it; points is the band's size. The order is this kernel's own. */
int fdwk_img_band(float *field, float *store, const fdwk_img_box *b, long pitch, long plane,
                  long long points, int save, fdwk_stream st);

#ifdef __cplusplus
}
#endif
#endif
