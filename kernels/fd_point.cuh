// fd_point.cuh — the per-point arithmetic shared by the 2.5D kernels (fd25d, fd25a, fd25t,
// fd25v): the Laplacian / stencil sum of one point from its plane (x and y neighbours in a
// shared-memory tile) and its z register queue, and the acoustic update. The operations
// and their order are the CPU reference's (cpu_acoustic.c, cpu_stencil.c); the library is
// built with -fmad=false, so nothing is contracted and every kernel stays bit-identical
// to the portable CPU kernel.
#pragma once
#include "kernels.h"

namespace fdwk {

// Point at s[sc] of a plane tile with rows of sw floats; qc points at the point's own
// entry of its z queue (qc[+-d] are the planes d above and below). Acoustic:
// ((c0 u + sum_d cx (x pair)) + sum_d cy (y pair)) + sum_d cz (z pair); stencil:
// c0 u + sum_d c_d ((x pair + y pair) + z pair).
template <int R, bool ACOUSTIC>
__device__ __forceinline__ float fd_lap(const fdwk_fd_args &a, const float *s, int sc, int sw,
                                        const float *qc)
{
    const float uc = qc[0];
    if (ACOUSTIC) {
        float lx = a.cx[1] * (s[sc + 1] + s[sc - 1]);
        float ly = a.cy[1] * (s[sc + sw] + s[sc - sw]);
        float lz = a.cz[1] * (qc[1] + qc[-1]);
#pragma unroll
        for (int d = 2; d <= R; ++d) {
            lx += a.cx[d] * (s[sc + d] + s[sc - d]);
            ly += a.cy[d] * (s[sc + d * sw] + s[sc - d * sw]);
            lz += a.cz[d] * (qc[d] + qc[-d]);
        }
        return ((a.c0 * uc + lx) + ly) + lz;
    }
    float lap = a.c0 * uc;
#pragma unroll
    for (int d = 1; d <= R; ++d)
        lap += a.cx[d] * (((s[sc + d] + s[sc - d]) + (s[sc + d * sw] + s[sc - d * sw])) +
                          (qc[d] + qc[-d]));
    return lap;
}

// The acoustic update of one point: u' = (2u - (1 - q) u_prev + vdt2 lap) / (1 + q) with the
// sponge's damping q, the undamped form where q = 0.
__device__ __forceinline__ float fd_acoustic_update(float uc, float up, float vdt2, float lap,
                                                    float qq)
{
    if (qq != 0.f) return ((2.f * uc - (1.f - qq) * up) + vdt2 * lap) / (1.f + qq);
    return (2.f * uc - up) + vdt2 * lap;
}

} // namespace fdwk
