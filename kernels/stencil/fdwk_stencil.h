/* fdwk_stencil.h — the stencil kind's update on the GPU: D' = c0 D + sum_d c_d (the six
 * neighbours at distance d), orders 2..16, through the shared 2.5D kernel
 * (common/fdwk_fd.h); the benchmark kind of the seed paper's table 1. */
#ifndef FDWK_STENCIL_H
#define FDWK_STENCIL_H

#include "common/fdwk_fd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Updates local planes a->k0..a->k1 of a->out from a->u (a->mode must be FDWK_STENCIL;
 * c0 and cx are the weights, cy and cz unused). 0 or a CUDA error code. */
int fdwk_stencil_step(const fdwk_fd_args *a, fdwk_stream s);

#ifdef __cplusplus
}
#endif
#endif
