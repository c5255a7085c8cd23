// ete_point.cuh — the ETE update of one point (engine/kinds/ete/ete.h), written once for
// every kernel variant so its operations and their order stay the CPU reference's
// (engine/kinds/ete/cpu_ete.c). at(dx, dy, dz) returns p(t) at the neighbour; the library
// is built with -fmad=false, so nothing is contracted.
#pragma once
#include "common/fd_point.cuh"

#include <cstdint>

namespace fdwk {

// The table through the read-only cache: weight s of bin m (16-float, 64-byte aligned rows;
// s = 0 is the bin's alpha).
struct ete_global_table {
    const float *t;
    __device__ __forceinline__ float operator()(unsigned m, int s) const
    {
        return __ldg(t + (size_t)m * 16 + s);
    }
};

// L of engine/kinds/ete/ete.h: t(dx,dy,dz) = (alpha g_m[s]) (p_j - p) with alpha = tab(b, 0)
// the point's (bin b) and g_m[s] = tab(m, s) the weights of the faster of b and the
// neighbour's bin bin(dx,dy,dz) (bins go up with the velocity);
// L = (((ax + ay) + az) + exy) + (exz + eyz).
template <class Tab, class At, class Bin>
__device__ __forceinline__ float ete_sum(unsigned b, Tab tab, At at, Bin bin)
{
    const float alpha = tab(b, 0);
    const float uc = at(0, 0, 0);
    auto t = [&](int dx, int dy, int dz, int s) -> float {
        const unsigned bn = bin(dx, dy, dz);
        const float g = tab(bn > b ? bn : b, s);
        return (alpha * g) * (at(dx, dy, dz) - uc);
    };
    float ax = t(-1, 0, 0, 1) + t(1, 0, 0, 1);
    float ay = t(0, -1, 0, 5) + t(0, 1, 0, 5);
    float az = t(0, 0, -1, 9) + t(0, 0, 1, 9);
#pragma unroll
    for (int m = 2; m <= 4; ++m) {
        ax = ax + (t(-m, 0, 0, m) + t(m, 0, 0, m));
        ay = ay + (t(0, -m, 0, 4 + m) + t(0, m, 0, 4 + m));
        az = az + (t(0, 0, -m, 8 + m) + t(0, 0, m, 8 + m));
    }
    const float exy = (t(-1, -1, 0, 13) + t(1, -1, 0, 13)) + (t(-1, 1, 0, 13) + t(1, 1, 0, 13));
    const float exz = (t(-1, 0, -1, 14) + t(1, 0, -1, 14)) + (t(-1, 0, 1, 14) + t(1, 0, 1, 14));
    const float eyz = (t(0, -1, -1, 15) + t(0, 1, -1, 15)) + (t(0, -1, 1, 15) + t(0, 1, 1, 15));
    return (((ax + ay) + az) + exy) + (exz + eyz);
}

// p(t + dt) from p(t) = uc, p(t - dt) = pp, L and the sponge's damping qq.
__device__ __forceinline__ float ete_update(float uc, float pp, float l, float qq)
{
    if (qq != 0.f) return fd_damped((2.f * uc - (1.f - qq) * pp) + l, qq);
    return (2.f * uc - pp) + l;
}

} // namespace fdwk
