// fd_step.cu — launch wrapper of the 2.5D kernel (fd25d.cuh): picks the instantiation for
// the radius, mode and tile, and the z chunk that gives enough blocks to fill the GPU.
#include "fd25d.cuh"
#include <cuda_runtime.h>

namespace {

using fdwk::fd25d_kernel;

struct TileShape { int by, ry; };

TileShape tile_shape(fdwk_tile t)
{
    switch (t) {
    case FDWK_TILE_32x32_R4: return {8, 4};
    case FDWK_TILE_32x8_R1: return {8, 1};
    case FDWK_TILE_32x32_R2: return {16, 2};
    case FDWK_TILE_32x16_R2:
    default: return {8, 2};
    }
}

// Resident blocks per SM of each instantiation, cached (host-side calculation).
template <int R, int BY, int RY, bool AC>
int resident_blocks()
{
    static int cached = -1;
    if (cached < 0) {
        int n = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fd25d_kernel<R, BY, RY, AC>,
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

template <int R, int BY, int RY, bool AC>
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
        long want = 2L * resident_blocks<R, BY, RY, AC>() * sm_count();
        long xy = (long)gx * gy;
        long chunks = (want + xy - 1) / xy;
        int zc = (int)((nk + chunks - 1) / chunks);
        if (zc < 8 * R) zc = 8 * R;
        b.zchunk = zc;
    }
    dim3 grid(gx, gy, (nk + b.zchunk - 1) / b.zchunk);
    fd25d_kernel<R, BY, RY, AC><<<grid, block, 0, s>>>(b);
    return (int)cudaGetLastError();
}

template <int R, bool AC>
int by_tile(const fdwk_fd_args &a, cudaStream_t s)
{
    TileShape t = tile_shape(a.tile);
    if (t.by == 8 && t.ry == 4) return launch<R, 8, 4, AC>(a, s);
    if (t.by == 8 && t.ry == 1) return launch<R, 8, 1, AC>(a, s);
    if (t.by == 16 && t.ry == 2) return launch<R, 16, 2, AC>(a, s);
    return launch<R, 8, 2, AC>(a, s);
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

extern "C" int fdwk_fd_step(const fdwk_fd_args *a, fdwk_stream s)
{
    if (a->mode == FDWK_ACOUSTIC) return by_radius<true>(*a, (cudaStream_t)s);
    return by_radius<false>(*a, (cudaStream_t)s);
}
