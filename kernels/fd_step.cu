// fd_step.cu — launch wrapper of the 2.5D kernel (fd25d.cuh): picks the instantiation for
// the radius, mode and configuration, and the z chunk that gives enough blocks to fill
// the GPU.
#include "fd25d.cuh"
#include "fd25a.cuh"
#include "fd25t.cuh"
#include "fd25v.cuh"
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace {

using fdwk::fd25a_kernel;
using fdwk::fd25d_kernel;
using fdwk::fd25t_kernel;
using fdwk::fd25v_kernel;

// Resident blocks per SM of each instantiation, cached (host-side calculation).
template <int R, int TX, int BY, int RY, int P, bool AC, bool ASYNC>
int resident_blocks()
{
    static std::atomic<int> cached{-1}; // host threads of several GPUs may ask at once
    if (cached.load() < 0) {
        int n = 0;
        cudaError_t e;
        if constexpr (ASYNC)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fd25a_kernel<R, TX, BY, RY, P, AC>,
                                                              TX * BY, 0);
        else
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fd25d_kernel<R, TX, BY, RY, P, AC>,
                                                              TX * BY, 0);
        if (e != cudaSuccess)
            n = 1;
        cached.store(n > 0 ? n : 1);
    }
    return cached.load();
}

int sm_count()
{
    int dev = 0, n = 0;
    cudaGetDevice(&dev);
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) n = 1;
    return n;
}

template <int R, int TX, int BY, int RY, int P, bool AC, bool ASYNC = false>
int launch(const fdwk_fd_args &a, cudaStream_t s)
{
    constexpr int TY = BY * RY;
    const int nk = a.k1 - a.k0;
    if (nk <= 0 || a.nx <= 0 || a.ny <= 0) return 0;
    dim3 block(TX, BY);
    const int gx = (a.nx + TX - 1) / TX, gy = (a.ny + TY - 1) / TY;
    fdwk_fd_args b = a;
    if (b.zchunk <= 0) {
        // 32-plane chunks measured best on the H100 (order 8) (more, shorter block lives balance
        // the SMs; a chunk re-reads 2R halo planes, so never below 8R); fewer planes when
        // the grid is too small to give two waves of blocks.
        int zc = 32 > 8 * R ? 32 : 8 * R;
        const long want = 2L * resident_blocks<R, TX, BY, RY, P, AC, ASYNC>() * sm_count();
        const long xy = (long)gx * gy;
        if (xy * ((nk + zc - 1) / zc) < want) {
            const long chunks = (want + xy - 1) / xy;
            zc = (int)((nk + chunks - 1) / chunks);
            if (zc < 2 * R) zc = 2 * R;
        }
        b.zchunk = zc;
    }
    dim3 grid(gx, gy, (nk + b.zchunk - 1) / b.zchunk);
    if constexpr (ASYNC)
        fd25a_kernel<R, TX, BY, RY, P, AC><<<grid, block, 0, s>>>(b);
    else
        fd25d_kernel<R, TX, BY, RY, P, AC><<<grid, block, 0, s>>>(b);
    return (int)cudaGetLastError();
}

// cuTensorMapEncodeTiled through the runtime's driver entry point (no -lcuda link needed);
// NULL when the driver lacks it.
PFN_cuTensorMapEncodeTiled_v12000 encode_fn()
{
    // A function-local static: initialised once, thread-safe (one host thread per GPU).
    static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void *p = nullptr;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            return (PFN_cuTensorMapEncodeTiled_v12000)p;
        return (PFN_cuTensorMapEncodeTiled_v12000) nullptr;
    }();
    return fn;
}

// A 3-D float tensor map: dims (d0, d1, d2) from base with row pitch and plane stride in
// floats, box (b0, b1, 1); out-of-bounds cells read as zero. Returns a CUDA error code.
int make_map(CUtensorMap *m, const float *base, long d0, long d1, long d2, long pitch,
             long plane, int b0, int b1)
{
    PFN_cuTensorMapEncodeTiled_v12000 fn = encode_fn();
    if (!fn) return (int)cudaErrorNotSupported;
    const cuuint64_t dims[3] = {(cuuint64_t)d0, (cuuint64_t)d1, (cuuint64_t)d2};
    const cuuint64_t strides[2] = {(cuuint64_t)pitch * 4, (cuuint64_t)plane * 4};
    const cuuint32_t box[3] = {(cuuint32_t)b0, (cuuint32_t)b1, 1};
    const cuuint32_t es[3] = {1, 1, 1};
    CUresult r = fn(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, (void *)base, dims, strides, box, es,
                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorInvalidValue;
}

// Launch of a TMA kernel (fd25t.cuh, fd25v.cuh) KERN with a TX x TY tile and `block`
// threads: tensor maps for this step's pointers, the dynamic shared memory ring, the same
// z-chunk rule as the other kernels.
template <int R, int TX, int TY, int L, int TP, bool AC, auto KERN>
int launch_tma_k(dim3 block, const fdwk_fd_args &a, cudaStream_t s)
{
    using G = fdwk::tma_geom<R, TX, TY, L, TP, AC>;
    auto kern = KERN;
    const int nthreads = (int)(block.x * block.y);
    const int nk = a.k1 - a.k0;
    if (nk <= 0 || a.nx <= 0 || a.ny <= 0) return 0;
    // The shared-memory limit is a per-device attribute of the function: raise it once on
    // each device (one bit per device id; ids >= 64 set it every launch). Host threads of
    // different GPUs may get here at once: atomics, and setting it twice is harmless.
    static std::atomic<unsigned long long> raised{0};
    static std::atomic<int> resident{-1};
    int dev = 0;
    cudaGetDevice(&dev);
    const unsigned long long bit = dev >= 0 && dev < 64 ? 1ull << dev : 0;
    if (!bit || !(raised.load() & bit)) {
        int optin = 0; // a configuration whose ring does not fit this GPU does not exist here
        if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
                cudaSuccess ||
            G::SMEM_BYTES > optin)
            return (int)cudaErrorInvalidConfiguration;
        cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             G::SMEM_BYTES);
        if (e != cudaSuccess) return (int)e;
        raised.fetch_or(bit);
    }
    if (resident.load() < 0) {
        int n = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, nthreads, G::SMEM_BYTES) !=
            cudaSuccess)
            n = 1;
        resident.store(n > 0 ? n : 1);
    }
    const int gx = (a.nx + TX - 1) / TX, gy = (a.ny + TY - 1) / TY;
    fdwk_fd_args b = a;
    if (b.zchunk <= 0) {
        // Acoustic: 48 planes (never below 8R), +0.3-0.8 points over 32 at order 8 on both
        // benchmark grids with the 4-point kernel (H100, 2026-11-23T06:17Z: 24 / 32 / 48 /
        // 64 / 96 / 128 planes gave 84.0-84.1 / 85.1-85.2 / 85.8-85.9 / 85.2-85.3 /
        // 84.5 / 82.5% on 1024x1024x512, 87.1-87.3 / 87.1-87.3 / 87.6-87.7 / 86.9-87.0 /
        // 86.4-86.6 / 84.2-84.3% on 512^3). Stencil from order 6: 128-plane chunks, +1-4%
        // over 32 at orders 6-12 on both benchmark grids (H100, runs 2026-11-23T03:04Z and
        // 03:41Z): it reads one array, so the 2R planes each chunk re-reads weigh twice as
        // much. (At orders 2 and 4 they cost 2-6% on 512^3 in the 03:41Z run: 32 there.)
        int zc = !AC && R >= 3 ? 128 : std::max(AC ? 48 : 32, 8 * R);
        const long want = 2L * resident.load() * sm_count();
        const long xy = (long)gx * gy;
        if (xy * ((nk + zc - 1) / zc) < want) {
            const long chunks = (want + xy - 1) / xy;
            zc = (int)((nk + chunks - 1) / chunks);
            if (zc < 2 * R) zc = 2 * R;
        }
        b.zchunk = zc;
    }
    CUtensorMap mu, mo, mv;
    // x extent: XL cells left of the interior (inside the 8-float row offset) and up to XL
    // right of it, but not past the row's end (the rest reads as zero, like the padding).
    const long right = a.pitch - 8 - a.nx < G::XL ? a.pitch - 8 - a.nx : G::XL;
    int e = make_map(&mu, a.u - (long)R * a.plane - (long)R * a.pitch - G::XL, a.nx + G::XL + right,
                     a.ny + 2 * R, a.k1 + 2 * R, a.pitch, a.plane, G::SW, G::SH);
    if (e) return e;
    if (AC) {
        if ((e = make_map(&mo, a.out, a.nx, a.ny, a.k1, a.pitch, a.plane, TX, TY))) return e;
        if ((e = make_map(&mv, a.vdt2, a.nx, a.ny, a.k1, a.pitch, a.plane, TX, TY))) return e;
    } else {
        mo = mu;
        mv = mu;
    }
    dim3 grid(gx, gy, (nk + b.zchunk - 1) / b.zchunk);
    kern<<<grid, block, G::SMEM_BYTES, s>>>(b, mu, mo, mv);
    return (int)cudaGetLastError();
}

template <int R, int TX, int BY, int RY, int L, int TP, bool AC>
int launch_tma(const fdwk_fd_args &a, cudaStream_t s)
{
    return launch_tma_k<R, TX, BY * RY, L, TP, AC, fd25t_kernel<R, TX, BY, RY, L, TP, AC>>(
        dim3(TX, BY), a, s);
}

// The 4-points-per-thread TMA kernel (fd25v.cuh): TXV x BY threads, a 4 TXV x BY tile,
// NB planes per iteration.
template <int R, int TXV, int BY, int L, bool AC, int NB = 1>
int launch_tmav(const fdwk_fd_args &a, cudaStream_t s)
{
    return launch_tma_k<R, 4 * TXV, BY, L + NB - 1, 0, AC, fd25v_kernel<R, TXV, BY, L, AC, NB>>(
        dim3(TXV, BY), a, s);
}

// The tuned default per radius and mode: the fastest per order over 512^3 and
// 1024x1024x512 in the H100 sweeps of 2026-11-23T01:27Z and 01:36Z (tests/bench/results,
// docs/gpu.md): the 4-points-per-thread TMA kernels won every order of both kinds.
fdwk_tile table_tile(int radius, bool acoustic)
{
    static const fdwk_tile ac[9] = {FDWK_TILE_A,  FDWK_TILE_V4, FDWK_TILE_V2, FDWK_TILE_V2, FDWK_TILE_V1,
                                    FDWK_TILE_V4, FDWK_TILE_V7, FDWK_TILE_V7, FDWK_TILE_V3};
    static const fdwk_tile st[9] = {FDWK_TILE_A,  FDWK_TILE_V4, FDWK_TILE_V4, FDWK_TILE_V4, FDWK_TILE_V1,
                                    FDWK_TILE_V7, FDWK_TILE_V7, FDWK_TILE_V3, FDWK_TILE_V5};
    if (radius < 1 || radius > 8) return FDWK_TILE_A;
    return acoustic ? ac[radius] : st[radius];
}

// The configuration a launch uses: the table's, unless FDW_CUDA_TILE forces another.
fdwk_tile default_tile(int radius, bool acoustic)
{
    if (radius < 1 || radius > 8) return FDWK_TILE_A;
    const char *env = getenv("FDW_CUDA_TILE"); // tuning and tests: force one configuration
    if (env && *env) {                          // (ignored where it does not exist)
        const int t = atoi(env);
        const bool exists = (t >= FDWK_TILE_A && t <= FDWK_TILE_D) ||
                            (t >= FDWK_TILE_E && t <= FDWK_TILE_G && radius <= 4) ||
                            (t > FDWK_TILE_D && t < FDWK_TILE_E && radius == 4) ||
                            t == FDWK_TILE_T3 || t == FDWK_TILE_T5 ||
                            (t >= FDWK_TILE_V1 && t <= FDWK_TILE_V8) ||
                            (t >= FDWK_TILE_T1 && t < FDWK_TILE_COUNT && radius == 4);
        if (exists) return (fdwk_tile)t;
    }
    return table_tile(radius, acoustic);
}

template <int R, bool AC>
int by_tile_plain(const fdwk_fd_args &a, fdwk_tile t, cudaStream_t s);

// With a CPML (acoustic, a.pml set), cpml.cu's zeta pass follows the update. (Folding it
// into the 4-point kernel was measured 2.5x slower on the whole job, 2026-11-23T02:07Z:
// the layer code doubled the kernel's registers, or spilled under a register cap, in
// every block; docs/gpu.md.)
template <int R, bool AC>
int by_tile(const fdwk_fd_args &a, cudaStream_t s)
{
    fdwk_tile t = a.tile == FDWK_TILE_AUTO ? default_tile(R, AC) : a.tile;
    int rc = by_tile_plain<R, AC>(a, t, s);
    if constexpr (AC) {
        for (int ax = 0; ax < 3 && !rc; ++ax)
            if (a.pml[ax]) rc = fdwk_pml_zeta(a.pml[ax], (fdwk_stream)s);
    }
    return rc;
}

template <int R, bool AC>
int by_tile_plain(const fdwk_fd_args &a, fdwk_tile t, cudaStream_t s)
{
    if constexpr (R <= 4) {
        switch (t) {
        case FDWK_TILE_E: return launch<R, 32, 8, 2, 2, AC, true>(a, s);
        case FDWK_TILE_F: return launch<R, 32, 8, 2, 3, AC, true>(a, s);
        case FDWK_TILE_G: return launch<R, 64, 4, 2, 2, AC, true>(a, s);
        default: break;
        }
    }
    switch (t) { // TMA, every radius
    case FDWK_TILE_T3: return launch_tma<R, 64, 4, 4, 2, 0, AC>(a, s);
    case FDWK_TILE_T5: return launch_tma<R, 64, 8, 2, 1, 0, AC>(a, s);
    case FDWK_TILE_V1: return launch_tmav<R, 16, 16, 1, AC>(a, s);
    case FDWK_TILE_V2: return launch_tmav<R, 32, 8, 1, AC>(a, s);
    case FDWK_TILE_V3: return launch_tmav<R, 16, 16, 2, AC>(a, s);
    case FDWK_TILE_V4: return launch_tmav<R, 32, 16, 1, AC>(a, s);
    case FDWK_TILE_V5: return launch_tmav<R, 16, 16, 1, AC, 2>(a, s);
    case FDWK_TILE_V6: return launch_tmav<R, 32, 8, 1, AC, 2>(a, s);
    case FDWK_TILE_V7: return launch_tmav<R, 16, 16, 2, AC, 2>(a, s);
    case FDWK_TILE_V8: return launch_tmav<R, 32, 16, 1, AC, 2>(a, s);
    default: break;
    }
    if constexpr (R == 4) {
        switch (t) {
        case FDWK_TILE_32x16_P2: return launch<R, 32, 8, 2, 2, AC>(a, s);
        case FDWK_TILE_32x16_P3: return launch<R, 32, 8, 2, 3, AC>(a, s);
        case FDWK_TILE_64x16_T256: return launch<R, 64, 4, 4, 1, AC>(a, s);
        case FDWK_TILE_128x4: return launch<R, 128, 2, 2, 1, AC>(a, s);
        case FDWK_TILE_64x8_T512: return launch<R, 64, 8, 1, 1, AC>(a, s);
        case FDWK_TILE_32x32_P1: return launch<R, 32, 8, 4, 1, AC>(a, s);
        case FDWK_TILE_T1: return launch_tma<R, 32, 8, 2, 2, 0, AC>(a, s);
        case FDWK_TILE_T2: return launch_tma<R, 32, 8, 2, 4, 0, AC>(a, s);
        case FDWK_TILE_T4: return launch_tma<R, 128, 2, 4, 1, 0, AC>(a, s);
        case FDWK_TILE_T6: return launch_tma<R, 32, 8, 4, 1, 0, AC>(a, s);
        case FDWK_TILE_T7: return launch_tma<R, 64, 8, 2, 2, 2, AC>(a, s);
        case FDWK_TILE_T8: return launch_tma<R, 64, 4, 4, 2, 2, AC>(a, s);
        case FDWK_TILE_T9: return launch_tma<R, 128, 4, 2, 1, 2, AC>(a, s);
        default: break;
        }
    }
    switch (t) {
    case FDWK_TILE_A: return launch<R, 32, 8, 2, 1, AC>(a, s);
    case FDWK_TILE_B: return launch<R, 32, 8, 4, 2, AC>(a, s);
    case FDWK_TILE_C: return launch<R, 64, 4, 2, 1, AC>(a, s);
    case FDWK_TILE_D: return launch<R, 64, 8, 2, 1, AC>(a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

template <bool AC>
int by_radius(const fdwk_fd_args &a, cudaStream_t s)
{
    switch (a.radius) {
    case 1: return by_tile<1, AC>(a, s);
    case 2: return by_tile<2, AC>(a, s);
    case 3: return by_tile<3, AC>(a, s);
    case 4: return by_tile<4, AC>(a, s);
    case 5: return by_tile<5, AC>(a, s);
    case 6: return by_tile<6, AC>(a, s);
    case 7: return by_tile<7, AC>(a, s);
    case 8: return by_tile<8, AC>(a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

} // namespace

extern "C" const char *fdwk_tile_name(fdwk_tile t)
{
    switch (t) {
    case FDWK_TILE_AUTO: return "auto";
    case FDWK_TILE_A: return "A 32x16: 32x8 thr, 2/thr, P1";
    case FDWK_TILE_B: return "B 32x32: 32x8 thr, 4/thr, P2";
    case FDWK_TILE_C: return "C 64x8: 64x4 thr, 2/thr, P1";
    case FDWK_TILE_D: return "D 64x16: 64x8 thr, 2/thr, P1";
    case FDWK_TILE_32x16_P2: return "32x16: 32x8 thr, 2/thr, P2";
    case FDWK_TILE_32x16_P3: return "32x16: 32x8 thr, 2/thr, P3";
    case FDWK_TILE_64x16_T256: return "64x16: 64x4 thr, 4/thr, P1";
    case FDWK_TILE_128x4: return "128x4: 128x2 thr, 2/thr, P1";
    case FDWK_TILE_64x8_T512: return "64x8: 64x8 thr, 1/thr, P1";
    case FDWK_TILE_32x32_P1: return "32x32: 32x8 thr, 4/thr, P1";
    case FDWK_TILE_E: return "E async 32x16: 32x8, L2";
    case FDWK_TILE_F: return "F async 32x16: 32x8, L3";
    case FDWK_TILE_G: return "G async 64x8: 64x4, L2";
    case FDWK_TILE_T1: return "T1 TMA 32x16: 32x8, L2";
    case FDWK_TILE_T2: return "T2 TMA 32x16: 32x8, L4";
    case FDWK_TILE_T3: return "T3 TMA 64x16: 64x4, L2";
    case FDWK_TILE_T4: return "T4 TMA 128x8: 128x2, L1";
    case FDWK_TILE_T5: return "T5 TMA 64x16: 64x8, L1";
    case FDWK_TILE_T6: return "T6 TMA 32x32: 32x8, L1";
    case FDWK_TILE_T7: return "T7 TMA 64x16: 64x8, L2 TP2";
    case FDWK_TILE_T8: return "T8 TMA 64x16: 64x4, L2 TP2";
    case FDWK_TILE_T9: return "T9 TMA 128x8: 128x4, L1 TP2";
    case FDWK_TILE_V1: return "V1 TMA x4 64x16: 16x16, L1";
    case FDWK_TILE_V2: return "V2 TMA x4 128x8: 32x8, L1";
    case FDWK_TILE_V3: return "V3 TMA x4 64x16: 16x16, L2";
    case FDWK_TILE_V4: return "V4 TMA x4 128x16: 32x16, L1";
    case FDWK_TILE_V5: return "V5 TMA x4 64x16: 16x16, L1, 2 planes";
    case FDWK_TILE_V6: return "V6 TMA x4 128x8: 32x8, L1, 2 planes";
    case FDWK_TILE_V7: return "V7 TMA x4 64x16: 16x16, L2, 2 planes";
    case FDWK_TILE_V8: return "V8 TMA x4 128x16: 32x16, L1, 2 planes";
    default: return "?";
    }
}

extern "C" int fdwk_fd_step(const fdwk_fd_args *a, fdwk_stream s)
{
    if (a->mode == FDWK_ACOUSTIC) return by_radius<true>(*a, (cudaStream_t)s);
    return by_radius<false>(*a, (cudaStream_t)s);
}
