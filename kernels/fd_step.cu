// fd_step.cu — launch wrapper of the 2.5D kernel (fd25d.cuh): picks the instantiation for
// the radius, mode and configuration, and the z chunk that gives enough blocks to fill
// the GPU.
#include "fd25d.cuh"
#include <cuda_runtime.h>

namespace {

using fdwk::fd25d_kernel;

// Resident blocks per SM of each instantiation, cached (host-side calculation).
template <int R, int BY, int RY, int P, bool AC>
int resident_blocks()
{
    static int cached = -1;
    if (cached < 0) {
        int n = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fd25d_kernel<R, BY, RY, P, AC>,
                                                          32 * BY, 0) != cudaSuccess)
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

template <int R, int BY, int RY, int P, bool AC>
int launch(const fdwk_fd_args &a, cudaStream_t s)
{
    constexpr int TY = BY * RY;
    const int nk = a.k1 - a.k0;
    if (nk <= 0 || a.nx <= 0 || a.ny <= 0) return 0;
    dim3 block(32, BY);
    const int gx = (a.nx + 31) / 32, gy = (a.ny + TY - 1) / TY;
    fdwk_fd_args b = a;
    if (b.zchunk <= 0) {
        // Aim for about two waves of resident blocks; a chunk re-reads 2R halo planes,
        // so keep chunks at least 8R planes deep.
        long want = 2L * resident_blocks<R, BY, RY, P, AC>() * sm_count();
        long xy = (long)gx * gy;
        long chunks = (want + xy - 1) / xy;
        int zc = (int)((nk + chunks - 1) / chunks);
        if (zc < 8 * R) zc = 8 * R;
        b.zchunk = zc;
    }
    dim3 grid(gx, gy, (nk + b.zchunk - 1) / b.zchunk);
    fd25d_kernel<R, BY, RY, P, AC><<<grid, block, 0, s>>>(b);
    return (int)cudaGetLastError();
}

// The tuned default per radius (set from the benchmark's sweep; see docs/gpu.md).
fdwk_tile default_tile(int radius)
{
    (void)radius;
    return FDWK_TILE_A;
}

template <int R, bool AC>
int by_tile(const fdwk_fd_args &a, cudaStream_t s)
{
    fdwk_tile t = a.tile == FDWK_TILE_AUTO ? default_tile(R) : a.tile;
    if constexpr (R == 4) {
        switch (t) {
        case FDWK_TILE_32x16_P1: return launch<R, 8, 2, 1, AC>(a, s);
        case FDWK_TILE_32x32_P1: return launch<R, 8, 4, 1, AC>(a, s);
        case FDWK_TILE_32x16_P2: return launch<R, 8, 2, 2, AC>(a, s);
        case FDWK_TILE_32x16_T128: return launch<R, 4, 4, 3, AC>(a, s);
        case FDWK_TILE_32x8_P4: return launch<R, 8, 1, 4, AC>(a, s);
        case FDWK_TILE_32x32_P3: return launch<R, 16, 2, 3, AC>(a, s);
        default: break;
        }
    }
    if (t == FDWK_TILE_B) return launch<R, 8, 4, 2, AC>(a, s);
    if (t == FDWK_TILE_A) return launch<R, 8, 2, 3, AC>(a, s);
    return (int)cudaErrorInvalidValue;
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
    case FDWK_TILE_A: return "A 32x16 tile, 32x8 thr, P=3";
    case FDWK_TILE_B: return "B 32x32 tile, 32x8 thr, P=2";
    case FDWK_TILE_32x16_P1: return "32x16 tile, 32x8 thr, P=1";
    case FDWK_TILE_32x32_P1: return "32x32 tile, 32x8 thr, P=1";
    case FDWK_TILE_32x16_P2: return "32x16 tile, 32x8 thr, P=2";
    case FDWK_TILE_32x16_T128: return "32x16 tile, 32x4 thr, P=3";
    case FDWK_TILE_32x8_P4: return "32x8 tile, 32x8 thr, P=4";
    case FDWK_TILE_32x32_P3: return "32x32 tile, 32x16 thr, P=3";
    default: return "?";
    }
}

extern "C" int fdwk_fd_step(const fdwk_fd_args *a, fdwk_stream s)
{
    if (a->mode == FDWK_ACOUSTIC) return by_radius<true>(*a, (cudaStream_t)s);
    return by_radius<false>(*a, (cudaStream_t)s);
}
