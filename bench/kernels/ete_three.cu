// ete_three.cu — the seed's three-kernel ETE decomposition (ete_three.h): one thread per
// point, global loads through the caches, each kernel adding its sub-stencil's terms.
#include "ete_three.h"

#include <cuda_runtime.h>

namespace {

// The pair term of ete.h for neighbour (dx, dy, dz) of slot s: the point's alpha (w[0] of
// its bin b's row) times the faster bin's weight.
__device__ __forceinline__ float term(const fdwk_ete_args &a, long o, float uc, const float *w,
                                      int dx, int dy, int dz, int s)
{
    const long d = (long)dz * a.plane + (long)dy * a.pitch + dx;
    const unsigned b = __ldg(a.idx + o), bn = __ldg(a.idx + o + d);
    const float g = __ldg(a.table + (size_t)(bn > b ? bn : b) * 16 + s);
    return (__ldg(w) * g) * (__ldg(a.u + o + d) - uc);
}

template <int PART>
__global__ void three_kernel(const fdwk_ete_args a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = a.k0 + blockIdx.z;
    if (i >= a.nx || j >= a.ny || k >= a.k1) return;
    const long o = (long)k * a.plane + (long)j * a.pitch + i;
    const float uc = __ldg(a.u + o);
    const float *w = a.table + (size_t)__ldg(a.idx + o) * 16;
    float l = 0.f;
    if (PART == 0) { // the xz plane: x and z axes, the centre, (+-1, 0, +-1)
        for (int m = 1; m <= 4; ++m)
            l += term(a, o, uc, w, -m, 0, 0, m) + term(a, o, uc, w, m, 0, 0, m);
        for (int m = 1; m <= 4; ++m)
            l += term(a, o, uc, w, 0, 0, -m, 8 + m) + term(a, o, uc, w, 0, 0, m, 8 + m);
        l += (term(a, o, uc, w, -1, 0, -1, 14) + term(a, o, uc, w, 1, 0, -1, 14)) +
             (term(a, o, uc, w, -1, 0, 1, 14) + term(a, o, uc, w, 1, 0, 1, 14));
        a.out[o] = (2.f * uc - a.out[o]) + l;
        return;
    }
    const int sg = PART == 1 ? 1 : -1; // y > 0, then y < 0
    for (int m = 1; m <= 4; ++m) l += term(a, o, uc, w, 0, sg * m, 0, 4 + m);
    l += term(a, o, uc, w, -1, sg, 0, 13) + term(a, o, uc, w, 1, sg, 0, 13);
    l += term(a, o, uc, w, 0, sg, -1, 15) + term(a, o, uc, w, 0, sg, 1, 15);
    a.out[o] += l;
}

} // namespace

extern "C" int fdwk_ete_three_step(const fdwk_ete_args *a, fdwk_stream st)
{
    const int nk = a->k1 - a->k0;
    if (nk <= 0) return 0;
    const dim3 block(32, 8), grid((a->nx + 31) / 32, (a->ny + 7) / 8, nk);
    const cudaStream_t s = (cudaStream_t)st;
    three_kernel<0><<<grid, block, 0, s>>>(*a);
    three_kernel<1><<<grid, block, 0, s>>>(*a);
    three_kernel<2><<<grid, block, 0, s>>>(*a);
    return (int)cudaGetLastError();
}
