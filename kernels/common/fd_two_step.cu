// fd_two_step.cu — the two-step pass of the acoustic and stencil kinds (common/fdwk_fd.h,
// fdwk_fd_step2): temporal blocking for issue 19. A block of 32 x 8 threads computes step it
// on a 32 x 32 region and step it + 1 on its inner (32 - 2R)^2 tile (the region's edge is
// recomputed by the neighbouring blocks: their step it + 1 needs it), walking a chunk of z:
// at plane k, step it from u(t) (the plane with an R-wide ring in shared memory, each owned
// column's z neighbours in a register queue) into a shared ring of 2R + 1 planes, step it's
// sources added there, the tile's part written to out1; then step it + 1 at plane k - R from
// that ring. A thread owns 4 rows of one column. Two block barriers a plane (three where a
// source lies). Each point is computed as in the 2.5D kernel (fd25.cuh: the same sums in the
// same order, fd_acoustic_update), and the library is built with -fmad=false: the bits of
// two single steps.
#include "common/fdwk_fd.h"
#include "common/fd_point.cuh"

#include <cuda_runtime.h>

namespace fdwk {
namespace {

constexpr int ZCHUNK = 64;

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

// The block: 32 x BY threads; a thread owns NY rows (y = ty + BY r) of one column of the
// 32 x 32 region on which step it is computed, whose inner (32 - 2R)^2 part is the tile on
// which step it + 1 is; the region's u(t) plane (with an R-wide ring) is in shared memory,
// each owned column's u(t) along z in a register queue, and step it's planes k - 2R .. k
// in a shared ring (step it + 1's z neighbours and the free surface's mirror planes).
constexpr int BY = 8, NY = 4, RW = 32, RH = BY * NY; // region 32 x 32
constexpr int MAXTAPS = 512; // source points a block keeps in its own list

template <int R>
constexpr size_t step2_smem()
{
    return ((size_t)(RW + 2 * R) * (RH + 2 * R) + (size_t)(2 * R + 1) * RW * RH) * sizeof(float) +
           (size_t)(2 * R + 1) * RW * RH * sizeof(float) + (size_t)MAXTAPS * sizeof(int) +
           4 * sizeof(int);
}

template <int R, bool AC>
__global__ void __launch_bounds__(RW *BY, 2) fd2_kernel(const fdwk_fd2_args A)
{
    constexpr int TX = RW - 2 * R, TY = RH - 2 * R;  // the tile of step it + 1
    constexpr int W0 = RW + 2 * R, H0 = RH + 2 * R;  // u(t) plane with its ring
    constexpr int NP = 2 * R + 1;                     // step it's planes in the ring
    constexpr int NTH = RW * BY;
    constexpr int NRING = W0 * H0 - RW * RH;
    extern __shared__ float sm[];
    float *U = sm;                 // u(t) at plane k, W0 x H0
    // step it's field, NP planes of RW x RH, each written twice (slot s and s + NP), so the
    // 2R + 1 planes step it + 1 reads lie at one base and constant offsets
    float *V = U + W0 * H0;
    int *taps = reinterpret_cast<int *>(V + 2 * NP * RW * RH);
    int *tinfo = taps + MAXTAPS;   // count, overflow, first plane, last plane
    const fdwk_fd_args &a = A.a;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * RW + tx;
    const int ib = blockIdx.x * TX - R, jb = blockIdx.y * TY - R; // region origin (global)
    const int kb = a.k0 + blockIdx.z * a.zchunk;
    const int ke = min(kb + a.zchunk, a.k1);
    const int nz = A.nz, nx = a.nx, ny = a.ny;
    const long plane = a.plane, pitch = a.pitch;
    const bool sponge = a.qx != nullptr;
    const int kfirst = max(kb - R, 0), kend = ke + R; // step it at [kfirst, min(kend, nz))

    // Step it's source points in this block's region and planes, once: a short list the
    // plane loop scans (all points when the list overflows).
    bool inject = AC && A.npoints > 0 && A.it >= 0 && A.it < A.nt;
    if (inject) {
        if (tid == 0) {
            tinfo[0] = 0;
            tinfo[1] = 0;
            tinfo[2] = 1 << 30;
            tinfo[3] = -(1 << 30);
        }
        __syncthreads();
        for (int p = tid; p < A.npoints; p += NTH) {
            const long off = A.offset[p];
            const int kp = (int)(off / plane);
            const long rem = off - (long)kp * plane;
            const int jp = (int)(rem / pitch), ip = (int)(rem - (long)jp * pitch);
            if (kp < kfirst || kp >= min(kend, nz) || ip < ib || ip >= ib + RW || jp < jb ||
                jp >= jb + RH)
                continue;
            const int n = atomicAdd(&tinfo[0], 1);
            if (n < MAXTAPS) taps[n] = p;
            else tinfo[1] = 1;
            atomicMin(&tinfo[2], kp);
            atomicMax(&tinfo[3], kp);
        }
        __syncthreads();
        inject = tinfo[0] > 0;
    }
    const int tk0 = inject ? tinfo[2] : 0, tk1 = inject ? tinfo[3] : -1;
    const bool tover = inject && tinfo[1];
    const int ntaps = inject ? min(tinfo[0], MAXTAPS) : 0;

    const int i = ib + tx;
    int j[NY];
    bool ing[NY], own[NY], ld[NY];
    long col[NY];
#pragma unroll
    for (int r = 0; r < NY; ++r) {
        const int y = ty + BY * r;
        j[r] = jb + y;
        ing[r] = i >= 0 && i < nx && j[r] >= 0 && j[r] < ny;
        own[r] = ing[r] && tx >= R && tx < RW - R && y >= R && y < RH - R;
        ld[r] = i >= -R && i < nx + R && j[r] >= -R && j[r] < ny + R;
        col[r] = (long)j[r] * pitch + i;
    }
    // q[r][d] = u(t) at plane k - R + d of row r's column (zero outside the padded field)
    float q[NY][2 * R + 1];
    auto uload = [&](int r, int k) -> float {
        return ld[r] && k >= -R && k < nz + R ? a.u[(long)k * plane + col[r]] : 0.f;
    };
#pragma unroll
    for (int r = 0; r < NY; ++r)
#pragma unroll
        for (int d = 0; d < 2 * R; ++d) q[r][d] = uload(r, kfirst - R + d);

    // This thread's cells of the u(t) plane's ring (cell n = tid + NTH e): where they sit in
    // U and in a plane of the field; their values are loaded one plane ahead.
    constexpr int NRI = (NRING + NTH - 1) / NTH;
    int rsm[NRI], roff[NRI];
    bool rok[NRI];
#pragma unroll
    for (int e = 0; e < NRI; ++e) {
        const int n = tid + NTH * e;
        int x = 0, y = 0;
        if (n < 2 * R * W0) {
            const int sd = n / (R * W0), f = n - sd * (R * W0);
            y = f / W0;
            x = f - y * W0;
            if (sd) y += R + RH;
        } else if (n < NRING) {
            const int e0 = n - 2 * R * W0, sd = e0 / (RH * R), f = e0 - sd * (RH * R);
            y = f / R + R;
            x = f - (y - R) * R + (sd ? R + RW : 0);
        }
        const int gi = ib - R + x, gj = jb - R + y;
        rsm[e] = n < NRING ? y * W0 + x : -1;
        rok[e] = n < NRING && gi >= -R && gi < nx + R && gj >= -R && gj < ny + R;
        roff[e] = gj * (int)pitch + gi;
    }
    float rv[NRI];
    auto rload = [&](int k) {
#pragma unroll
        for (int e = 0; e < NRI; ++e)
            rv[e] = rok[e] && k < nz ? a.u[(long)k * plane + roff[e]] : 0.f;
    };
    // acoustic: u(t - dt) and (v dt)^2 of step it's next plane, (v dt)^2 of step it + 1's,
    // loaded one plane ahead; the sponge's x and y factors of the thread's points
    float po[NY], pv[NY], pv2[NY], qyj[NY];
    const float qxi = sponge && i >= 0 && i < nx ? a.qx[i] : 0.f;
    auto pload1 = [&](int k) {
#pragma unroll
        for (int r = 0; r < NY; ++r) {
            const bool ok = AC && ing[r] && k < nz;
            po[r] = ok ? a.out[(long)k * plane + col[r]] : 0.f;
            pv[r] = ok ? a.vdt2[(long)k * plane + col[r]] : 0.f;
        }
    };
    auto pload2 = [&](int m) {
#pragma unroll
        for (int r = 0; r < NY; ++r)
            pv2[r] = AC && own[r] && m >= 0 && m < nz ? a.vdt2[(long)m * plane + col[r]] : 0.f;
    };
#pragma unroll
    for (int r = 0; r < NY; ++r) qyj[r] = sponge && ing[r] ? a.qy[j[r]] : 0.f;
    rload(kfirst);
    pload1(kfirst);
    pload2(kfirst - R);

    auto slot = [](int k) -> int { return k % NP; }; // k >= 0 here
    // step it's field at plane kk (any integer) and region cell c: the ring, the free
    // surface's mirror above plane 0, zero below the slab
    auto vat = [&](int kk, int c) -> float {
        if (kk < 0) return a.free_surface ? -V[slot(-kk) * (RW * RH) + c] : 0.f;
        if (kk >= nz) return 0.f;
        return V[slot(kk) * (RW * RH) + c];
    };

    for (int k = kfirst; k < kend; ++k) {
        const bool step1 = k < nz;
#pragma unroll
        for (int r = 0; r < NY; ++r) q[r][2 * R] = uload(r, k + R);
        float v1[NY];
        if (step1) {
            // u(t) at plane k into U: the owned columns from the queues, the ring from memory
#pragma unroll
            for (int r = 0; r < NY; ++r) U[(ty + BY * r + R) * W0 + tx + R] = q[r][R];
#pragma unroll
            for (int e = 0; e < NRI; ++e)
                if (rsm[e] >= 0) U[rsm[e]] = rv[e];
            rload(k + 1);
        }
        __syncthreads(); // U complete; the ring's plane k - 2R - 1 is no longer read
        if (step1) {
            const float qzk = sponge ? a.qz[a.kglob + k] : 0.f;
            float *vk = V + slot(k) * (RW * RH);
#pragma unroll
            for (int r = 0; r < NY; ++r) {
                const int y = ty + BY * r;
                float res = 0.f;
                if (ing[r]) {
                    const int cc = (y + R) * W0 + tx + R;
                    auto zsum = [&](int dd) -> float { return q[r][R + dd] + q[r][R - dd]; };
                    if (AC) {
                        const float lap = lap_at<R, W0>(a, U, cc, zsum);
                        const float qq = sponge ? qxi + (qyj[r] + qzk) : 0.f;
                        res = fd_acoustic_update(q[r][R], po[r], pv[r], lap, qq);
                        if (a.free_surface && a.kglob + k == 0) res = 0.f;
                    } else {
                        res = stencil_at<R, W0>(a, U, cc, zsum);
                    }
                }
                v1[r] = res;
                vk[y * RW + tx] = res;
                vk[NP * (RW * RH) + y * RW + tx] = res;
            }
            pload1(k + 1);
        }
        __syncthreads(); // step it at plane k complete in the ring
        if (step1 && inject && k >= tk0 && k <= tk1) {
            // step it's sources at plane k, tap by tap in the problem's order (fdwk_inject)
            float *vk = V + slot(k) * (RW * RH);
            const int np = tover ? A.npoints : ntaps;
            for (int n = tid; n < np; n += NTH) {
                const int p = tover ? n : taps[n];
                const long off = A.offset[p];
                const int kp = (int)(off / plane);
                if (kp != k) continue;
                const long rem = off - (long)kp * plane;
                const int jp = (int)(rem / pitch), ip = (int)(rem - (long)jp * pitch);
                const int x = ip - ib, y = jp - jb;
                if (x < 0 || x >= RW || y < 0 || y >= RH) continue;
                float u = vk[y * RW + x];
                for (int t = A.start[p]; t < A.start[p + 1]; ++t)
                    u += A.wavelets[(long)A.owner[t] * A.nt + A.it] * A.weight[t];
                vk[y * RW + x] = u;
                vk[NP * (RW * RH) + y * RW + x] = u;
            }
            __syncthreads();
#pragma unroll
            for (int r = 0; r < NY; ++r) v1[r] = vk[(ty + BY * r) * RW + tx];
        }
        // the tile's u(t + dt) at plane k, when the chunk owns it
        if (step1 && k >= kb && k < ke)
#pragma unroll
            for (int r = 0; r < NY; ++r)
                if (own[r]) A.out1[(long)k * plane + col[r]] = v1[r];
        // step it + 1 at plane m = k - R for the tile
        const int m = k - R;
        if (m >= kb && m < ke) {
            const float qzm = sponge ? a.qz[a.kglob + m] : 0.f;
            const float *vm = V + slot(m) * (RW * RH);
            auto step2 = [&](auto zpair) {
#pragma unroll
                for (int r = 0; r < NY; ++r) {
                    if (!own[r]) continue;
                    const int c1 = (ty + BY * r) * RW + tx;
                    auto zsum = [&](int dd) -> float { return zpair(c1, dd); };
                    const long o = (long)m * plane + col[r];
                    float res;
                    if (AC) {
                        const float lap = lap_at<R, RW>(a, vm, c1, zsum);
                        const float qq = sponge ? qxi + (qyj[r] + qzm) : 0.f;
                        res = fd_acoustic_update(vm[c1], q[r][0], pv2[r], lap, qq);
                        if (a.free_surface && a.kglob + m == 0) res = 0.f;
                    } else {
                        res = stencil_at<R, RW>(a, vm, c1, zsum);
                    }
                    A.out2[o] = res;
                }
            };
            if (m - R >= 0 && m + R < nz) { // planes m - R .. m + R in the ring, in order
                const float *vb = V + slot(m - R) * (RW * RH);
                step2([&](int c1, int dd) -> float {
                    return vb[(R + dd) * (RW * RH) + c1] + vb[(R - dd) * (RW * RH) + c1];
                });
            } else { // the free surface's mirror or the slab's end within reach
                step2([&](int c1, int dd) -> float { return vat(m + dd, c1) + vat(m - dd, c1); });
            }
        }
        pload2(m + 1);
#pragma unroll
        for (int r = 0; r < NY; ++r)
#pragma unroll
            for (int d = 0; d < 2 * R; ++d) q[r][d] = q[r][d + 1];
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
    constexpr int TX = RW - 2 * R, TY = RH - 2 * R;
    dim3 grid((A.a.nx + TX - 1) / TX, (A.a.ny + TY - 1) / TY, (nk + b.a.zchunk - 1) / b.a.zchunk);
    fd2_kernel<R, AC><<<grid, dim3(RW, BY), bytes, s>>>(b);
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
