// stencil_step.cu — the stencil kind's instantiations of the 2.5D kernel (fd_launch.cuh with
// AC = false): one array read and one written, 8 bytes per point.
#include "common/fd_launch.cuh"
#include "stencil/fdwk_stencil.h"

extern "C" int fdwk_stencil_step(const fdwk_fd_args *a, fdwk_stream s)
{
    if (a->mode != FDWK_STENCIL) return (int)cudaErrorInvalidValue;
    return fdwk::fd_step<false>(*a, (cudaStream_t)s);
}
