// fd_launch.cuh — how the 2.5D kernel (fd25.cuh) is launched for the acoustic and stencil
// kinds: the configurations (tile shapes and pipeline depths), the tuned one per kind and
// radius, the tensor maps of a step, the z-chunk rule, and the dispatch from a radius to its
// one template instantiation. acoustic/acoustic_step.cu and stencil/stencil_step.cu include
// it with AC = true and false, so each kind compiles one kernel per radius: its tuned one.
// docs/gpu.md's kernel table is generated from FDWK_FD_CONFIGS and the DEFAULT_ tables below
// (bench/kernel_table.py): keep their one-entry-per-line form.
#pragma once
#include "common/fd25.cuh"
#include "common/fdwk_fd.h"
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <atomic>

// The configurations the tuned tables use (the others measured are docs/gpu.md's decisions):
// X(name, TXV, BY, L, NB, description): TXV x BY threads own a 4 TXV x BY tile, L planes in
// flight beyond the ring's R + NB, NB planes updated per iteration.
#define FDWK_FD_CONFIGS(X)                                        \
    X(V1, 16, 16, 1, 1, "V1 TMA x4 64x16: 16x16, L1")            \
    X(V2, 32, 8, 1, 1, "V2 TMA x4 128x8: 32x8, L1")              \
    X(V3, 16, 16, 2, 1, "V3 TMA x4 64x16: 16x16, L2")            \
    X(V4, 32, 16, 1, 1, "V4 TMA x4 128x16: 32x16, L1")           \
    X(V5, 16, 16, 1, 2, "V5 TMA x4 64x16: 16x16, L1, 2 planes")  \
    X(V7, 16, 16, 2, 2, "V7 TMA x4 64x16: 16x16, L2, 2 planes")

namespace fdwk {

enum fd_config : int {
#define FDWK_X(name, TXV, BY, L, NB, desc) FD_##name,
    FDWK_FD_CONFIGS(FDWK_X)
#undef FDWK_X
    FD_END
};

// A configuration's shape as data, indexed by fd_config (for the compile-time dispatch).
struct fd_shape {
    int txv, by, l, nb;
    const char *desc;
};
constexpr fd_shape SHAPES[FD_END] = {
#define FDWK_X(name, TXV, BY, L, NB, desc) {TXV, BY, L, NB, desc},
    FDWK_FD_CONFIGS(FDWK_X)
#undef FDWK_X
};

// A tuned default: the configuration, and planes per block along z before the fit rule
// (launch_fd25). Chosen from the H100 sweeps over 512^3 and 1024x1024x512 (docs/gpu.md).
// Acoustic chunks of 48 planes (never below 8R) beat 32 by 0.3-0.8 points; the stencil reads
// one array, so the 2R planes a chunk re-reads weigh twice: 128 planes from order 6 (+1-4%).
struct fd_default {
    int config;
    int zchunk;
};

// Index: radius (order / 2); entry 0 unused.
constexpr fd_default DEFAULT_ACOUSTIC[FDWK_MAX_RADIUS + 1] = {
    {FD_V1, 0},
    {FD_V4, 48}, // order 2
    {FD_V2, 48}, // order 4
    {FD_V2, 48}, // order 6
    {FD_V1, 48}, // order 8
    {FD_V4, 48}, // order 10
    {FD_V7, 48}, // order 12
    {FD_V7, 56}, // order 14
    {FD_V3, 64}, // order 16
};
constexpr fd_default DEFAULT_STENCIL[FDWK_MAX_RADIUS + 1] = {
    {FD_V1, 0},
    {FD_V4, 32},  // order 2
    {FD_V4, 32},  // order 4
    {FD_V4, 128}, // order 6
    {FD_V1, 128}, // order 8
    {FD_V7, 128}, // order 10
    {FD_V7, 128}, // order 12
    {FD_V3, 128}, // order 14
    {FD_V5, 128}, // order 16
};

inline int sm_count()
{
    int dev = 0, n = 0;
    cudaGetDevice(&dev);
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) n = 1;
    return n;
}

// cuTensorMapEncodeTiled through the runtime's driver entry point (no -lcuda link needed);
// NULL when the driver lacks it.
inline PFN_cuTensorMapEncodeTiled_v12000 encode_fn()
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
inline int make_map(CUtensorMap *m, const float *base, long d0, long d1, long d2, long pitch,
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

// A field's box map for the 2.5D walk: u (interior origin) from (x, y, z) = (-XL, -R, -R)
// with dims (nx + 2XL, ny + 2R, nk + 2R), boxes of SW x SH; XL cells left of the interior
// (inside the row offset) and up to XL right of it (row padding, zeros), cells past the
// map reading as zero.
inline int make_box_map(CUtensorMap *m, const float *u, int nx, int ny, int nk, long pitch,
                        long plane, int R, int XL, int SW, int SH)
{
    const long right = pitch - 8 - nx < XL ? pitch - 8 - nx : XL;
    return make_map(m, u - (long)R * plane - (long)R * pitch - XL, nx + XL + right, ny + 2 * R,
                    nk + 2 * R, pitch, plane, SW, SH);
}

// A kernel's dynamic shared-memory limit raised to bytes on this device, once per device
// (one bit per device id in raised, the caller's per-kernel static; ids >= 64 set it every
// launch). Host threads of different GPUs may get here at once: atomics, and setting it
// twice is harmless. 0, or a CUDA error (cudaErrorInvalidConfiguration: it does not fit).
template <class K>
int raise_smem(K kern, int bytes, std::atomic<unsigned long long> &raised)
{
    int dev = 0;
    cudaGetDevice(&dev);
    const unsigned long long bit = dev >= 0 && dev < 64 ? 1ull << dev : 0;
    if (bit && (raised.load() & bit)) return 0;
    int optin = 0;
    if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
            cudaSuccess ||
        bytes > optin)
        return (int)cudaErrorInvalidConfiguration;
    const cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               bytes);
    if (e != cudaSuccess) return (int)e;
    raised.fetch_or(bit);
    return 0;
}

// Planes per block along z: zbase, fewer when the grid (xy tiles, nk planes) would give
// fewer than `want` blocks (more, shorter block lives balance the SMs), never below 2R.
inline int fit_zchunk(int zbase, long xy, int nk, long want, int R)
{
    int zc = zbase;
    if (xy * ((nk + zc - 1) / zc) < want) {
        const long chunks = (want + xy - 1) / xy;
        zc = (int)((nk + chunks - 1) / chunks);
        if (zc < 2 * R) zc = 2 * R;
    }
    return zc;
}

// One step of configuration (TXV, BY, L, NB): tensor maps for this step's pointers, the
// dynamic shared-memory ring, and the z chunk (zbase planes, fewer when the grid is too
// small to give two waves of blocks: more, shorter block lives balance the SMs).
//
// Tensor maps: mu covers u from (x, y, z) = (-XL, -R, -R) with dims (nx + 2XL, ny + 2R,
// k1 + 2R), so plane k of tile (i0, j0) is box origin (i0, j0, k + R); mo and mv cover
// u_prev (a.prev, else out) and (v dt)^2 from the interior origin, dims (nx, ny, k1).
template <int R, int TXV, int BY, int L, int NB, bool AC, bool IMG = false>
int launch_fd25(const fdwk_fd_args &a, int zbase, cudaStream_t s)
{
    constexpr int TX = 4 * TXV, TY = BY;
    using G = tma_geom<R, TX, TY, L + NB - 1, AC>;
    auto kern = fd25_kernel<R, TXV, BY, L, AC, NB, IMG>;
    const dim3 block(TXV, BY);
    const int nthreads = TXV * BY;
    const int nk = a.k1 - a.k0;
    if (nk <= 0 || a.nx <= 0 || a.ny <= 0) return 0;
    // The shared-memory limit is a per-device attribute of the function (a ring that does
    // not fit this GPU: the launch fails).
    static std::atomic<unsigned long long> raised{0};
    static std::atomic<int> resident{-1};
    if (const int e = raise_smem(kern, G::SMEM_BYTES, raised)) return e;
    if (resident.load() < 0) {
        int n = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, nthreads, G::SMEM_BYTES) !=
            cudaSuccess)
            n = 1;
        resident.store(n > 0 ? n : 1);
    }
    const int gx = (a.nx + TX - 1) / TX, gy = (a.ny + TY - 1) / TY;
    fdwk_fd_args b = a;
    if (b.zchunk <= 0)
        b.zchunk = fit_zchunk(zbase, (long)gx * gy, nk, 2L * resident.load() * sm_count(), R);
    CUtensorMap mu, mo, mv;
    int e = make_box_map(&mu, a.u, a.nx, a.ny, a.k1, a.pitch, a.plane, R, G::XL, G::SW, G::SH);
    if (e) return e;
    if (AC) {
        if ((e = make_map(&mo, a.prev ? a.prev : a.out, a.nx, a.ny, a.k1, a.pitch, a.plane, TX,
                          TY)))
            return e;
        if ((e = make_map(&mv, a.vdt2, a.nx, a.ny, a.k1, a.pitch, a.plane, TX, TY))) return e;
    } else {
        mo = mu;
        mv = mu;
    }
    dim3 grid(gx, gy, (nk + b.zchunk - 1) / b.zchunk);
    kern<<<grid, block, G::SMEM_BYTES, s>>>(b, mu, mo, mv);
    return (int)cudaGetLastError();
}

// The tuned default of radius R for the acoustic (AC) or the stencil kind.
template <int R, bool AC>
constexpr fd_default tuned() { return AC ? DEFAULT_ACOUSTIC[R] : DEFAULT_STENCIL[R]; }

// Radius R: its tuned configuration, the only one compiled for it (the imaging sum, IMG,
// runs the acoustic kind's).
template <int R, bool AC, bool IMG = false>
int fd_step_r(const fdwk_fd_args &a, cudaStream_t s)
{
    constexpr fd_default d = tuned<R, AC>();
    constexpr fd_shape c = SHAPES[d.config];
    return launch_fd25<R, c.txv, c.by, c.l, c.nb, AC, IMG>(a, d.zchunk, s);
}

// One update of a.k0..a.k1 (the acoustic kind with AC, the stencil kind without, the
// imaging sum with AC and IMG); a CUDA error code, cudaErrorInvalidValue for a radius that
// does not exist.
template <bool AC, bool IMG = false>
int fd_step(const fdwk_fd_args &a, cudaStream_t s)
{
    switch (a.radius) {
    case 1: return fd_step_r<1, AC, IMG>(a, s);
    case 2: return fd_step_r<2, AC, IMG>(a, s);
    case 3: return fd_step_r<3, AC, IMG>(a, s);
    case 4: return fd_step_r<4, AC, IMG>(a, s);
    case 5: return fd_step_r<5, AC, IMG>(a, s);
    case 6: return fd_step_r<6, AC, IMG>(a, s);
    case 7: return fd_step_r<7, AC, IMG>(a, s);
    case 8: return fd_step_r<8, AC, IMG>(a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

} // namespace fdwk
