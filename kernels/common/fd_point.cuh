// fd_point.cuh — the acoustic update of one point, shared by the 2.5D kernel (fd25.cuh) and
// written once so its operations and their order stay the CPU reference's
// (engine/kinds/acoustic/cpu_acoustic.c). The library is built with -fmad=false, so
// nothing is contracted and the GPU stays bit-identical to the portable CPU kernel.
#pragma once

namespace fdwk {

// num / (1 + q), the sponge's damped quotient (q > 0). A zero numerator is its own quotient
// (sign included): CUDA's IEEE division sends a zero numerator to its slow path (a call of
// about 30 instructions), which in a sponge the wave has not reached, or has left, was a
// quarter of the acoustic kernel's instructions (Nsight Compute, docs/gpu.md).
__device__ __forceinline__ float fd_damped(float num, float qq)
{
    return num == 0.f ? num : num / (1.f + qq);
}

// u' = (2u - (1 - q) u_prev + vdt2 lap) / (1 + q) with the sponge's damping q, the undamped
// form where q = 0.
__device__ __forceinline__ float fd_acoustic_update(float uc, float up, float vdt2, float lap,
                                                    float qq)
{
    if (qq != 0.f) return fd_damped((2.f * uc - (1.f - qq) * up) + vdt2 * lap, qq);
    return (2.f * uc - up) + vdt2 * lap;
}

} // namespace fdwk
