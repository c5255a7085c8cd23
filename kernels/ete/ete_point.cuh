// ete_point.cuh — the ETE update of one point (engine/kinds/ete/ete.h), written once for
// every kernel variant so its operations and their order stay the CPU reference's
// (engine/kinds/ete/cpu_ete.c). at(dx, dy, dz) returns p(t) at the neighbour; the library
// is built with -fmad=false, so nothing is contracted.
#pragma once
#include <cstdint>

namespace fdwk {

// The weights of bin b: 16 floats, 64-byte aligned rows, through the read-only cache.
struct ete_weights {
    float w[16];
};

__device__ __forceinline__ ete_weights ete_row(const float *table, unsigned b)
{
    const float4 *r = reinterpret_cast<const float4 *>(table + (size_t)b * 16);
    ete_weights e;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const float4 v = __ldg(r + q);
        e.w[4 * q] = v.x;
        e.w[4 * q + 1] = v.y;
        e.w[4 * q + 2] = v.z;
        e.w[4 * q + 3] = v.w;
    }
    return e;
}

// L = ((((w0 u + ax) + ay) + az) + exy) + (exz + eyz)
template <class At>
__device__ __forceinline__ float ete_sum(const ete_weights &e, At at)
{
    const float *w = e.w;
    float ax = w[1] * (at(-1, 0, 0) + at(1, 0, 0));
    float ay = w[5] * (at(0, -1, 0) + at(0, 1, 0));
    float az = w[9] * (at(0, 0, -1) + at(0, 0, 1));
#pragma unroll
    for (int m = 2; m <= 4; ++m) {
        ax = ax + w[m] * (at(-m, 0, 0) + at(m, 0, 0));
        ay = ay + w[4 + m] * (at(0, -m, 0) + at(0, m, 0));
        az = az + w[8 + m] * (at(0, 0, -m) + at(0, 0, m));
    }
    const float exy = w[13] * ((at(-1, -1, 0) + at(1, -1, 0)) + (at(-1, 1, 0) + at(1, 1, 0)));
    const float exz = w[14] * ((at(-1, 0, -1) + at(1, 0, -1)) + (at(-1, 0, 1) + at(1, 0, 1)));
    const float eyz = w[15] * ((at(0, -1, -1) + at(0, 1, -1)) + (at(0, -1, 1) + at(0, 1, 1)));
    return ((((w[0] * at(0, 0, 0) + ax) + ay) + az) + exy) + (exz + eyz);
}

// p(t + dt) from p(t) = uc, p(t - dt) = pp, L and the sponge's damping qq.
__device__ __forceinline__ float ete_update(float uc, float pp, float l, float qq)
{
    if (qq != 0.f) return ((2.f * uc - (1.f - qq) * pp) + l) / (1.f + qq);
    return (2.f * uc - pp) + l;
}

} // namespace fdwk
