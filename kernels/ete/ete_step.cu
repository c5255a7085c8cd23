// ete_step.cu — the ETE kind's kernels (fdwk_ete.h): the 2.5D kernel, whose block owns a
// TX x TY tile and walks a chunk of z with planes k - 1, k and k + 1 of its tile (x/y halo
// 4) in a ring of three shared-memory stages and its column's z neighbours in a register
// queue, and the one-thread-per-point reference. Both evaluate ete_point.cuh's update.
#include "ete/fdwk_ete.h"
#include "ete/ete_point.cuh"

#include <cuda_runtime.h>

namespace fdwk {
namespace {

constexpr int ER = 4; // the 37-point stencil's radius

__device__ __forceinline__ float ete_damping(const fdwk_ete_args &a, int i, int j, int k)
{
    return a.qx ? a.qx[i] + (a.qy[j] + a.qz[a.kglob + k]) : 0.f;
}

template <int TX, int TY>
__global__ void __launch_bounds__(TX *TY) ete25_kernel(const fdwk_ete_args a)
{
    constexpr int SW = TX + 2 * ER, SH = TY + 2 * ER;
    __shared__ float ring[3][SH][SW];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
    const int i = blockIdx.x * TX + tx, j = blockIdx.y * TY + ty;
    const int kb = a.k0 + blockIdx.z * a.zchunk;
    const int ke = min(kb + a.zchunk, a.k1);
    const bool in = i < a.nx && j < a.ny;
    const long plane = a.plane, col = (long)j * a.pitch + i;
    const float *__restrict__ u = a.u;
    const int gi0 = blockIdx.x * TX - ER, gj0 = blockIdx.y * TY - ER;

    // plane k's tile and halo into a stage; cells outside the padded region (never needed
    // by a point of the grid) read as zero
    auto load = [&](int st, int k) {
        for (int t = tid; t < SH * SW; t += TX * TY) {
            const int yy = t / SW, xx = t - yy * SW;
            const int gi = gi0 + xx, gj = gj0 + yy;
            float v = 0.f;
            if (gi >= -ER && gi < a.nx + ER && gj >= -ER && gj < a.ny + ER)
                v = u[(long)k * plane + (long)gj * a.pitch + gi];
            ring[st][yy][xx] = v;
        }
    };

    float q[2 * ER + 1]; // q[d] = p(k - ER + d) at the thread's column
#pragma unroll
    for (int d = 0; d < 2 * ER; ++d) q[d] = in ? u[(long)(kb - ER + d) * plane + col] : 0.f;
    int sm = 0, sc = 1, sp = 2; // stages of planes k - 1, k, k + 1
    if (kb < ke) {
        load(sm, kb - 1);
        load(sc, kb);
    }
    const int x = tx + ER, y = ty + ER;
    for (int k = kb; k < ke; ++k) {
        q[2 * ER] = in ? u[(long)(k + ER) * plane + col] : 0.f;
        load(sp, k + 1);
        __syncthreads();
        if (in) {
            const float(*M)[SW] = ring[sm];
            const float(*C)[SW] = ring[sc];
            const float(*P)[SW] = ring[sp];
            auto at = [&](int dx, int dy, int dz) -> float {
                if (dz == 0) return C[y + dy][x + dx];
                if (dx == 0 && dy == 0) return q[ER + dz];
                return dz < 0 ? M[y + dy][x + dx] : P[y + dy][x + dx];
            };
            const long o = (long)k * plane + col;
            const uint16_t *__restrict__ ix = a.idx + o;
            auto bin = [&](int dx, int dy, int dz) -> unsigned {
                return __ldg(ix + (long)dz * plane + (long)dy * a.pitch + dx);
            };
            const unsigned b = ix[0];
            const float l = ete_sum(ete_alpha(a.table, b), b, a.table, at, bin);
            float r = ete_update(q[ER], a.out[o], l, ete_damping(a, i, j, k));
            if (a.free_surface && a.kglob + k == 0) r = 0.f;
            a.out[o] = r;
        }
        __syncthreads(); // every thread is done with stage sm before it is refilled
        const int t = sm;
        sm = sc;
        sc = sp;
        sp = t;
#pragma unroll
        for (int d = 0; d < 2 * ER; ++d) q[d] = q[d + 1];
    }
}

__global__ void ete_point_kernel(const fdwk_ete_args a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= a.nx || j >= a.ny) return;
    for (int k = a.k0 + blockIdx.z; k < a.k1; k += gridDim.z) {
        const long o = (long)k * a.plane + (long)j * a.pitch + i;
        const float *__restrict__ u = a.u + o;
        const uint16_t *__restrict__ ix = a.idx + o;
        auto at = [&](int dx, int dy, int dz) -> float {
            return u[(long)dz * a.plane + (long)dy * a.pitch + dx];
        };
        auto bin = [&](int dx, int dy, int dz) -> unsigned {
            return __ldg(ix + (long)dz * a.plane + (long)dy * a.pitch + dx);
        };
        const unsigned b = ix[0];
        const float l = ete_sum(ete_alpha(a.table, b), b, a.table, at, bin);
        float r = ete_update(u[0], a.out[o], l, ete_damping(a, i, j, k));
        if (a.free_surface && a.kglob + k == 0) r = 0.f;
        a.out[o] = r;
    }
}

int sm_count_now()
{
    int dev = 0, n = 0;
    cudaGetDevice(&dev);
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) n = 1;
    return n;
}

// Planes per block: 64, fewer when that leaves fewer than four blocks per SM.
template <int TX, int TY>
int launch_25d(const fdwk_ete_args &a, int nk, cudaStream_t s)
{
    const int gx = (a.nx + TX - 1) / TX, gy = (a.ny + TY - 1) / TY;
    fdwk_ete_args b = a;
    if (b.zchunk <= 0) {
        int zc = 64;
        const long want = 4L * sm_count_now(), xy = (long)gx * gy;
        if (xy * ((nk + zc - 1) / zc) < want) {
            const long chunks = (want + xy - 1) / xy;
            zc = (int)((nk + chunks - 1) / chunks);
            if (zc < 2 * ER) zc = 2 * ER;
        }
        b.zchunk = zc;
    }
    dim3 grid(gx, gy, (nk + b.zchunk - 1) / b.zchunk);
    ete25_kernel<TX, TY><<<grid, dim3(TX, TY), 0, s>>>(b);
    return (int)cudaGetLastError();
}

} // namespace
} // namespace fdwk

extern "C" int fdwk_ete_step(const fdwk_ete_args *a, fdwk_stream st)
{
    const cudaStream_t s = (cudaStream_t)st;
    const int nk = a->k1 - a->k0;
    if (nk <= 0 || a->nx <= 0 || a->ny <= 0) return 0;
    switch (a->variant) {
    case FDWK_ETE_DEFAULT:
    case FDWK_ETE_25D_32X16: return fdwk::launch_25d<32, 16>(*a, nk, s);
    case FDWK_ETE_25D_32X8: return fdwk::launch_25d<32, 8>(*a, nk, s);
    case FDWK_ETE_POINT: {
        dim3 block(32, 8), grid((a->nx + 31) / 32, (a->ny + 7) / 8, nk < 65535 ? nk : 65535);
        fdwk::ete_point_kernel<<<grid, block, 0, s>>>(*a);
        return (int)cudaGetLastError();
    }
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" const char *fdwk_ete_variant_name(int v)
{
    switch (v) {
    case FDWK_ETE_DEFAULT: return "default (2.5D 32x16)";
    case FDWK_ETE_25D_32X16: return "2.5D 32x16";
    case FDWK_ETE_25D_32X8: return "2.5D 32x8";
    case FDWK_ETE_POINT: return "one thread per point";
    default: return nullptr;
    }
}
