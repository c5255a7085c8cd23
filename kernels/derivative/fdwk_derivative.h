/* fdwk_derivative.h — the derivative kind on the GPU: the periodic 8th-order first
 * derivative along x, y or z (NVIDIA's "Finite Difference Methods in CUDA C/C++"), out of
 * place, on a layout without ghosts. A memory-bound benchmark kind: 8 bytes per point. */
#ifndef FDWK_DERIVATIVE_H
#define FDWK_DERIVATIVE_H

#include "common/fdwk_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel versions (all give the same bits): the tuned default per axis, one point per
 * thread and load, a walk along the axis with 4 x points per thread, a shared-memory tile
 * of rows along the axis with 4 x points per thread. x has its own row-segment kernel,
 * scalar for FDWK_DERIV_SCALAR, vector otherwise. */
enum {
    FDWK_DERIV_DEFAULT = 0,
    FDWK_DERIV_SCALAR = 1,
    FDWK_DERIV_WALK = 2,
    FDWK_DERIV_TILE = 3
};

/* out(i) = sum_m dc[m] (f(i+m) - f(i-m)), m = 1..4, along axis (0 x, 1 y, 2 z) of the
 * nx x ny x nz field `in` (row pitch and plane stride in floats). version: FDWK_DERIV_*;
 * chunk: planes per walk (0: automatic). 0 or a CUDA error code (cudaErrorInvalidValue
 * for a bad size, axis or version). */
int fdwk_derivative(float *out, const float *in, int nx, int ny, int nz, long pitch,
                    long plane, int axis, const float dc[5], int version, int chunk,
                    fdwk_stream s);

#ifdef __cplusplus
}
#endif
#endif
