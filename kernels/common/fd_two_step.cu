// fd_two_step.cu — the two-step pass of the acoustic and stencil kinds (common/fdwk_fd.h,
// fdwk_fd_step2): temporal blocking for issue 19. A block owns a TX x TY output tile and
// walks a chunk of z. For each plane k it loads u(t) of its tile widened by 2R into a ring
// of 2R + 1 planes in shared memory, computes step it at plane k on the tile widened by R
// (the widening is recomputed by the neighbouring blocks too: their step it + 1 needs it)
// into a second ring, adds step it's sources there (acoustic), writes the owned part to
// out1, and computes step it + 1 of the tile at plane k - R from that ring into out2. Each
// point is computed as in the 2.5D kernel (fd25.cuh: the same sums in the same order,
// fd_acoustic_update), and the library is built with -fmad=false: the bits of two single
// steps. First version: written for correctness, one point a thread, no register queues;
// not yet run on a GPU.
#include "common/fdwk_fd.h"
#include "common/fd_point.cuh"

#include <cuda_runtime.h>

namespace fdwk {
namespace {

constexpr int TX = 32, TY = 8, ZCHUNK = 64;

// The Laplacian at cell cc of plane c (row length W) in fd25.cuh's order: per axis the
// terms d = 1..R summed in turn, then ((c0 u + lx) + ly) + lz; zsum(d) is u(k + d) + u(k - d).
template <int R, int W, class Zsum>
__device__ __forceinline__ float lap_at(const fdwk_fd_args &a, const float *c, int cc, Zsum zsum)
{
    float lx = 0.f, ly = 0.f, lz = 0.f;
#pragma unroll
    for (int dd = 1; dd <= R; ++dd) {
        const float tx_ = a.cx[dd] * (c[cc + dd] + c[cc - dd]);
        const float ty_ = a.cy[dd] * (c[cc + dd * W] + c[cc - dd * W]);
        const float tz_ = a.cz[dd] * zsum(dd);
        if (dd == 1) {
            lx = tx_;
            ly = ty_;
            lz = tz_;
        } else {
            lx += tx_;
            ly += ty_;
            lz += tz_;
        }
    }
    return ((a.c0 * c[cc] + lx) + ly) + lz;
}

// The stencil kind's sum at cell cc in fd25.cuh's order: c0 D, then per d the three axes'
// pairs; zsum(d) is D(k + d) + D(k - d).
template <int R, int W, class Zsum>
__device__ __forceinline__ float stencil_at(const fdwk_fd_args &a, const float *c, int cc,
                                            Zsum zsum)
{
    float s = a.c0 * c[cc];
#pragma unroll
    for (int dd = 1; dd <= R; ++dd)
        s += a.cx[dd] * (((c[cc + dd] + c[cc - dd]) + (c[cc + dd * W] + c[cc - dd * W])) + zsum(dd));
    return s;
}

template <int R>
constexpr size_t step2_smem()
{
    return (size_t)(2 * R + 1) *
           ((size_t)(TX + 4 * R) * (TY + 4 * R) + (size_t)(TX + 2 * R) * (TY + 2 * R)) *
           sizeof(float);
}

template <int R, bool AC>
__global__ void __launch_bounds__(TX *TY) fd2_kernel(const fdwk_fd2_args A)
{
    constexpr int W0 = TX + 4 * R, H0 = TY + 4 * R, S0 = W0 * H0; // u(t) region
    constexpr int W1 = TX + 2 * R, H1 = TY + 2 * R, S1 = W1 * H1; // u(t + dt) region
    constexpr int NP = 2 * R + 1;                                  // planes per ring
    constexpr int NTH = TX * TY;
    extern __shared__ float sm[];
    float *U0 = sm;
    float *U1 = sm + NP * S0;
    const fdwk_fd_args &a = A.a;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
    const int i0 = blockIdx.x * TX, j0 = blockIdx.y * TY;
    const int kb = a.k0 + blockIdx.z * a.zchunk;
    const int ke = min(kb + a.zchunk, a.k1);
    const int nz = A.nz, nx = a.nx, ny = a.ny;
    const long plane = a.plane, pitch = a.pitch;
    const bool sponge = a.qx != nullptr;
    const bool inject = AC && A.npoints > 0 && A.it >= 0 && A.it < A.nt;

    auto slot = [](int k) -> int {
        const int s = k % NP;
        return s < 0 ? s + NP : s;
    };
    // u(t) at plane k over the W0 x H0 region (global i0 - 2R.., j0 - 2R..); zero outside
    // the padded field (those cells feed only points outside the grid)
    auto load0 = [&](int k) {
        float *dst = U0 + slot(k) * S0;
        const bool kin = k >= -R && k < nz + R;
        for (int t = tid; t < S0; t += NTH) {
            const int y = t / W0, x = t - y * W0;
            const int i = i0 - 2 * R + x, j = j0 - 2 * R + y;
            float v = 0.f;
            if (kin && i >= -R && i < nx + R && j >= -R && j < ny + R)
                v = a.u[(long)k * plane + (long)j * pitch + i];
            dst[t] = v;
        }
    };
    // u(t + dt) at plane kk (any integer) and region cell c1: the ring, the free surface's
    // mirror above plane 0, zero outside the slab
    auto u1at = [&](int kk, int c1) -> float {
        if (kk < 0) return a.free_surface ? -U1[slot(-kk) * S1 + c1] : 0.f;
        if (kk >= nz) return 0.f;
        return U1[slot(kk) * S1 + c1];
    };

    const int kfirst = max(kb - R, 0), kend = ke + R; // step-1 planes [kfirst, min(kend, nz))
    for (int k = kfirst - R; k < kfirst + R; ++k) load0(k);
    for (int k = kfirst; k < kend; ++k) {
        if (k < nz) {
            load0(k + R);
            __syncthreads();
            // step it at plane k over the W1 x H1 region
            const float *c = U0 + slot(k) * S0;
            float *d1 = U1 + slot(k) * S1;
            const float qzk = sponge ? a.qz[a.kglob + k] : 0.f;
            for (int t = tid; t < S1; t += NTH) {
                const int y = t / W1, x = t - y * W1;
                const int i = i0 - R + x, j = j0 - R + y;
                float r = 0.f;
                if (i >= 0 && i < nx && j >= 0 && j < ny) {
                    const int cc = (y + R) * W0 + (x + R);
                    auto zsum = [&](int dd) -> float {
                        return U0[slot(k + dd) * S0 + cc] + U0[slot(k - dd) * S0 + cc];
                    };
                    if (AC) {
                        const float lap = lap_at<R, W0>(a, c, cc, zsum);
                        const long o = (long)k * plane + (long)j * pitch + i;
                        const float qq = sponge ? a.qx[i] + (a.qy[j] + qzk) : 0.f;
                        r = fd_acoustic_update(c[cc], a.out[o], a.vdt2[o], lap, qq);
                        if (a.free_surface && a.kglob + k == 0) r = 0.f;
                    } else {
                        r = stencil_at<R, W0>(a, c, cc, zsum);
                    }
                }
                d1[t] = r;
            }
            __syncthreads();
            // step it's sources at plane k, tap by tap in the problem's order (fdwk_inject)
            if (inject)
                for (int p = tid; p < A.npoints; p += NTH) {
                    const long off = A.offset[p];
                    const int kp = (int)(off / plane);
                    if (kp != k) continue;
                    const long rem = off - (long)kp * plane;
                    const int jp = (int)(rem / pitch), ip = (int)(rem - (long)jp * pitch);
                    const int x = ip - (i0 - R), y = jp - (j0 - R);
                    if (x < 0 || x >= W1 || y < 0 || y >= H1) continue;
                    float u = d1[y * W1 + x];
                    for (int q = A.start[p]; q < A.start[p + 1]; ++q)
                        u += A.wavelets[(long)A.owner[q] * A.nt + A.it] * A.weight[q];
                    d1[y * W1 + x] = u;
                }
            __syncthreads();
            // the tile's u(t + dt) of plane k, when the chunk owns it
            const int i = i0 + tx, j = j0 + ty;
            if (k >= kb && k < ke && i < nx && j < ny)
                A.out1[(long)k * plane + (long)j * pitch + i] = d1[(ty + R) * W1 + (tx + R)];
        }
        // step it + 1 at plane m = k - R for the tile
        const int m = k - R;
        if (m >= kb && m < ke) {
            const int i = i0 + tx, j = j0 + ty;
            if (i < nx && j < ny) {
                const int c1 = (ty + R) * W1 + (tx + R);
                const float *e = U1 + slot(m) * S1;
                auto zsum = [&](int dd) -> float { return u1at(m + dd, c1) + u1at(m - dd, c1); };
                const long o = (long)m * plane + (long)j * pitch + i;
                float r;
                if (AC) {
                    const float lap = lap_at<R, W1>(a, e, c1, zsum);
                    const float um = U0[slot(m) * S0 + (ty + 2 * R) * W0 + (tx + 2 * R)]; // u(t)
                    const float qq = sponge ? a.qx[i] + (a.qy[j] + a.qz[a.kglob + m]) : 0.f;
                    r = fd_acoustic_update(e[c1], um, a.vdt2[o], lap, qq);
                    if (a.free_surface && a.kglob + m == 0) r = 0.f;
                } else {
                    r = stencil_at<R, W1>(a, e, c1, zsum);
                }
                A.out2[o] = r;
            }
        }
        __syncthreads(); // the rings' oldest planes are refilled next
    }
}

template <int R, bool AC>
int launch2(const fdwk_fd2_args &A, cudaStream_t s)
{
    const size_t bytes = step2_smem<R>();
    cudaError_t e = cudaFuncSetAttribute(fd2_kernel<R, AC>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != cudaSuccess) return (int)e;
    fdwk_fd2_args b = A;
    const int nk = A.a.k1 - A.a.k0;
    b.a.zchunk = A.a.zchunk > 0 ? A.a.zchunk : ZCHUNK;
    dim3 grid((A.a.nx + TX - 1) / TX, (A.a.ny + TY - 1) / TY, (nk + b.a.zchunk - 1) / b.a.zchunk);
    fd2_kernel<R, AC><<<grid, dim3(TX, TY), bytes, s>>>(b);
    return (int)cudaGetLastError();
}

template <bool AC>
int launch2_mode(const fdwk_fd2_args &A, cudaStream_t s)
{
    switch (A.a.radius) {
    case 1: return launch2<1, AC>(A, s);
    case 2: return launch2<2, AC>(A, s);
    case 3: return launch2<3, AC>(A, s);
    case 4: return launch2<4, AC>(A, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

size_t smem_of(int r)
{
    switch (r) {
    case 1: return step2_smem<1>();
    case 2: return step2_smem<2>();
    case 3: return step2_smem<3>();
    case 4: return step2_smem<4>();
    default: return 0;
    }
}

} // namespace
} // namespace fdwk

extern "C" int fdwk_fd_step2_max_radius(void) { return 4; }

extern "C" int fdwk_fd_step2_fits(int r)
{
    const size_t need = fdwk::smem_of(r);
    int dev = 0, optin = 0;
    if (need == 0 || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
            cudaSuccess)
        return 0;
    return need <= (size_t)optin;
}

extern "C" int fdwk_fd_step2(const fdwk_fd2_args *A, fdwk_stream st)
{
    const cudaStream_t s = (cudaStream_t)st;
    if (A->a.pml[0] || A->a.pml[1] || A->a.pml[2] || !A->out1 || !A->out2)
        return (int)cudaErrorInvalidValue;
    if (A->a.k1 <= A->a.k0 || A->a.nx <= 0 || A->a.ny <= 0) return 0;
    return A->a.mode == FDWK_ACOUSTIC ? fdwk::launch2_mode<true>(*A, s)
                                      : fdwk::launch2_mode<false>(*A, s);
}
