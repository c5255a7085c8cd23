// fd_step.cu — launch wrapper of the 2.5D kernel (fd25d.cuh): picks the instantiation for
// the radius, mode and configuration, and the z chunk that gives enough blocks to fill
// the GPU.
#include "fd25d.cuh"
#include "fd25a.cuh"
#include <cuda_runtime.h>
#include <cstdlib>

namespace {

using fdwk::fd25a_kernel;
using fdwk::fd25d_kernel;

// Resident blocks per SM of each instantiation, cached (host-side calculation).
template <int R, int TX, int BY, int RY, int P, bool AC, bool ASYNC>
int resident_blocks()
{
    static int cached = -1;
    if (cached < 0) {
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
        cached = n > 0 ? n : 1;
    }
    return cached;
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

// The tuned default per radius and mode: the fastest of A..D per order on 512^3 and
// 1024x1024x512 in the H100 sweep of 2026-11-22 (tests/bench/results, docs/gpu.md).
fdwk_tile default_tile(int radius, bool acoustic)
{
    static const fdwk_tile ac[9] = {FDWK_TILE_A, FDWK_TILE_C, FDWK_TILE_C, FDWK_TILE_C, FDWK_TILE_A,
                                    FDWK_TILE_A, FDWK_TILE_A, FDWK_TILE_C, FDWK_TILE_A};
    static const fdwk_tile st[9] = {FDWK_TILE_A, FDWK_TILE_C, FDWK_TILE_A, FDWK_TILE_C, FDWK_TILE_B,
                                    FDWK_TILE_A, FDWK_TILE_C, FDWK_TILE_A, FDWK_TILE_B};
    if (radius < 1 || radius > 8) return FDWK_TILE_A;
    const char *env = getenv("FDW_CUDA_TILE"); // tuning and tests: force one configuration
    if (env && *env) {                          // (ignored where it does not exist)
        const int t = atoi(env);
        const bool exists = (t >= FDWK_TILE_A && t <= FDWK_TILE_D) ||
                            (t >= FDWK_TILE_E && t <= FDWK_TILE_G && radius <= 4) ||
                            (t > FDWK_TILE_D && t < FDWK_TILE_E && radius == 4);
        if (exists) return (fdwk_tile)t;
    }
    return acoustic ? ac[radius] : st[radius];
}

template <int R, bool AC>
int by_tile(const fdwk_fd_args &a, cudaStream_t s)
{
    fdwk_tile t = a.tile == FDWK_TILE_AUTO ? default_tile(R, AC) : a.tile;
    if constexpr (R <= 4) {
        switch (t) {
        case FDWK_TILE_E: return launch<R, 32, 8, 2, 2, AC, true>(a, s);
        case FDWK_TILE_F: return launch<R, 32, 8, 2, 3, AC, true>(a, s);
        case FDWK_TILE_G: return launch<R, 64, 4, 2, 2, AC, true>(a, s);
        default: break;
        }
    }
    if constexpr (R == 4) {
        switch (t) {
        case FDWK_TILE_32x16_P2: return launch<R, 32, 8, 2, 2, AC>(a, s);
        case FDWK_TILE_32x16_P3: return launch<R, 32, 8, 2, 3, AC>(a, s);
        case FDWK_TILE_64x16_T256: return launch<R, 64, 4, 4, 1, AC>(a, s);
        case FDWK_TILE_128x4: return launch<R, 128, 2, 2, 1, AC>(a, s);
        case FDWK_TILE_64x8_T512: return launch<R, 64, 8, 1, 1, AC>(a, s);
        case FDWK_TILE_32x32_P1: return launch<R, 32, 8, 4, 1, AC>(a, s);
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
    default: return "?";
    }
}

extern "C" int fdwk_fd_step(const fdwk_fd_args *a, fdwk_stream s)
{
    if (a->mode == FDWK_ACOUSTIC) return by_radius<true>(*a, (cudaStream_t)s);
    return by_radius<false>(*a, (cudaStream_t)s);
}
