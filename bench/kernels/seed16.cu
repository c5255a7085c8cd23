// seed16.cu — the seed paper's wave-equation kernel design (Micikevicius 2009, appendix
// A, here order 8): 16x16 threads, one output each, a register queue along z and the
// current plane in a 24x24 shared tile, no prefetching, no sponge. It exists only so the
// benchmark can measure our kernel against the seed's in the same run.
#include "bench_kernels.h"
#include <cuda_runtime.h>

namespace {

constexpr int R = 4, B = 16, S = B + 2 * R;

__global__ void seed16_kernel(const fdwk_fd_args a)
{
    __shared__ float s[S][S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = blockIdx.x * B + tx, j = blockIdx.y * B + ty;
    const bool ok = i < a.nx && j < a.ny;
    const long plane = a.plane;
    const long c = (long)j * a.pitch + i;
    const float *u = a.u;
    float *out = a.out;

    float behind[R], infront[R], cur;
    long g = (long)a.k0 * plane + c;
    for (int d = 0; d < R; ++d) behind[d] = ok ? u[g - (long)(d + 1) * plane] : 0.f;
    cur = ok ? u[g] : 0.f;
    for (int d = 0; d < R; ++d) infront[d] = ok ? u[g + (long)(d + 1) * plane] : 0.f;

    for (int k = a.k0; k < a.k1; ++k, g += plane) {
        __syncthreads();
        // Halos: the first R threads in each direction load both sides (guarded by the
        // padded layout: reads stay inside the allocation).
        if (ty < R) {
            s[ty][tx + R] = (i < a.nx) ? u[g - (long)R * a.pitch] : 0.f;
            s[ty + B + R][tx + R] = (i < a.nx && j + B < a.ny + R) ? u[g + (long)B * a.pitch] : 0.f;
        }
        if (tx < R) {
            s[ty + R][tx] = (j < a.ny) ? u[g - R] : 0.f;
            s[ty + R][tx + B + R] = (j < a.ny && i + B < a.nx + R) ? u[g + B] : 0.f;
        }
        s[ty + R][tx + R] = cur;
        __syncthreads();
        float lap = a.c0 * cur;
#pragma unroll
        for (int d = 1; d <= R; ++d)
            lap += a.cx[d] * (s[ty + R][tx + R - d] + s[ty + R][tx + R + d]) +
                   a.cy[d] * (s[ty + R - d][tx + R] + s[ty + R + d][tx + R]) +
                   a.cz[d] * (behind[d - 1] + infront[d - 1]);
        if (ok) out[g] = 2.f * cur - out[g] + a.vdt2[g] * lap;
        for (int d = R - 1; d > 0; --d) behind[d] = behind[d - 1];
        behind[0] = cur;
        cur = infront[0];
        for (int d = 0; d < R - 1; ++d) infront[d] = infront[d + 1];
        infront[R - 1] = (ok && k + 1 < a.k1) ? u[g + (long)(R + 1) * plane] : 0.f;
    }
}

} // namespace

extern "C" int fdwk_seed16_step(const fdwk_fd_args *a, fdwk_stream s)
{
    if (a->radius != R || a->mode != FDWK_ACOUSTIC) return (int)cudaErrorInvalidValue;
    if (a->k1 <= a->k0) return 0;
    dim3 block(B, B), grid((a->nx + B - 1) / B, (a->ny + B - 1) / B);
    seed16_kernel<<<grid, block, 0, (cudaStream_t)s>>>(*a);
    return (int)cudaGetLastError();
}
