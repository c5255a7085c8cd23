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

#ifdef __cplusplus
}
#endif
#endif
