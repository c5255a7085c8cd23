// acoustic_step.cu — the acoustic kind's instantiations of the 2.5D kernel (fd_launch.cuh
// with AC = true), then the CPML zeta passes (cpml.cu) on the same stream. The layer terms
// stay a separate pass: folded into the 2.5D kernel they doubled its registers in every
// block and made the whole job 2.5x slower (docs/gpu.md, decisions).
#include "acoustic/fdwk_acoustic.h"
#include "common/fd_launch.cuh"

extern "C" int fdwk_acoustic_step(const fdwk_fd_args *a, fdwk_stream s)
{
    if (a->mode != FDWK_ACOUSTIC) return (int)cudaErrorInvalidValue;
    int rc = fdwk::fd_step<true>(*a, (cudaStream_t)s);
    for (int ax = 0; ax < 3 && !rc; ++ax)
        if (a->pml[ax]) rc = fdwk_pml_zeta(a->pml[ax], s);
    return rc;
}
