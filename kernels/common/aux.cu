// aux.cu — the small kernels around the stencil: source injection, receiver sampling,
// the free-surface mirror, extraction of slices/volumes into compact arrays, and a
// pseudo-random fill for benchmarks. Each touches few points, so each is a plain
// one-thread-per-item kernel; all sums run in a fixed order so results are deterministic.
#include "common/fdwk_runtime.h"
#include <cuda_runtime.h>

namespace {

__global__ void inject_kernel(float *field, int npoints, const long *offset, const int *start,
                              const int *owner, const float *weight, const float *wavelets,
                              long nt, long it)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoints) return;
    // Taps of one point are added one by one in the problem's order, like the CPU.
    float u = field[offset[p]];
    for (int t = start[p]; t < start[p + 1]; ++t)
        u += wavelets[(long)owner[t] * nt + it] * weight[t];
    field[offset[p]] = u;
}

__global__ void record_kernel(float *rec, long slot, int nrec, const int *start,
                              const long *offset, const float *weight, const float *field)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrec) return;
    float sum = 0.f;
    for (int t = start[r]; t < start[r + 1]; ++t) sum += field[offset[t]] * weight[t];
    rec[slot * (long)nrec + r] = sum;
}

// Over whole padded planes: p0 points at padded plane 0's first float.
__global__ void free_surface_kernel(float *p0, long plane, int radius)
{
    const long e = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= plane) return;
    for (int m = 1; m <= radius; ++m) p0[e - (long)m * plane] = -p0[e + (long)m * plane];
}

__global__ void gather_kernel(float *dst, const float *field, long pitch, long plane, int i0,
                              int ni, int j0, int nj, int k0, int nk)
{
    const long n = (long)ni * nj * nk;
    for (long e = (long)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (long)gridDim.x * blockDim.x) {
        const int i = (int)(e % ni);
        const long r = e / ni;
        const int j = (int)(r % nj);
        const int k = (int)(r / nj);
        dst[e] = field[(long)(k0 + k) * plane + (long)(j0 + j) * pitch + (i0 + i)];
    }
}

// Magnitude bits of a float order like the magnitudes (NaNs above +inf), so the watch's
// "largest |x|, or not finite" is one integer max: per warp, then one atomic per block.
__global__ void peak_kernel(const unsigned *p, size_t n, unsigned *out)
{
    unsigned m = 0;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x)
        m = max(m, __ldg(p + e) & 0x7fffffffu);
    m = __reduce_max_sync(0xffffffffu, m);
    __shared__ unsigned warp_max[32];
    if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned w = 1; w < blockDim.x / 32; ++w) m = max(m, warp_max[w]);
        atomicMax(out, m);
    }
}

__device__ unsigned hash32(unsigned x)
{
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}

__global__ void fill_kernel(float *field, int nx, int ny, int nz, long pitch, long plane,
                            unsigned seed, float scale, float offset)
{
    const long n = (long)nx * ny * nz;
    for (long e = (long)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (long)gridDim.x * blockDim.x) {
        const int i = (int)(e % nx);
        const long r = e / nx;
        const int j = (int)(r % ny);
        const int k = (int)(r / ny);
        unsigned h = hash32((unsigned)e * 2654435761U ^ hash32(seed));
        field[(long)k * plane + (long)j * pitch + i] = offset + scale * ((h >> 8) * (1.f / 16777216.f) - 0.5f);
    }
}

int grid_for(long n)
{
    long b = (n + 255) / 256;
    if (b > 65536) b = 65536;
    return b < 1 ? 1 : (int)b;
}

} // namespace

extern "C" {

int fdwk_inject(float *field, int npoints, const long *offset, const int *start,
                const int *owner, const float *weight, const float *wavelets, long nt,
                long it, fdwk_stream s)
{
    if (npoints <= 0) return 0;
    inject_kernel<<<(npoints + 127) / 128, 128, 0, (cudaStream_t)s>>>(
        field, npoints, offset, start, owner, weight, wavelets, nt, it);
    return (int)cudaGetLastError();
}

int fdwk_record(float *rec, long slot, int nrec, const int *start, const long *offset,
                const float *weight, const float *field, fdwk_stream s)
{
    if (nrec <= 0) return 0;
    record_kernel<<<(nrec + 127) / 128, 128, 0, (cudaStream_t)s>>>(rec, slot, nrec, start,
                                                                   offset, weight, field);
    return (int)cudaGetLastError();
}

int fdwk_free_surface(float *field, const fdwk_layout *L, int radius, fdwk_stream s)
{
    float *p0 = field - (long)L->ypad * L->pitch - L->xoff; // padded plane 0
    free_surface_kernel<<<grid_for(L->plane), 256, 0, (cudaStream_t)s>>>(p0, L->plane, radius);
    return (int)cudaGetLastError();
}

int fdwk_gather(float *dst, const float *field, const fdwk_layout *L, int i0, int ni, int j0,
                int nj, int k0, int nk, fdwk_stream s)
{
    long n = (long)ni * nj * nk;
    if (n <= 0) return 0;
    gather_kernel<<<grid_for(n), 256, 0, (cudaStream_t)s>>>(dst, field, L->pitch, L->plane,
                                                            i0, ni, j0, nj, k0, nk);
    return (int)cudaGetLastError();
}

int fdwk_peak_bits(const float *p, size_t n, unsigned *out, fdwk_stream s)
{
    if (n == 0) return 0;
    const size_t blocks = (n + 255) / 256;
    peak_kernel<<<(unsigned)(blocks < 2048 ? blocks : 2048), 256, 0, (cudaStream_t)s>>>(
        reinterpret_cast<const unsigned *>(p), n, out);
    return (int)cudaGetLastError();
}

int fdwk_fill_random(float *field, const fdwk_layout *L, unsigned seed, float scale,
                     float offset, fdwk_stream s)
{
    long n = (long)L->nx * L->ny * L->nz;
    fill_kernel<<<grid_for(n), 256, 0, (cudaStream_t)s>>>(field, L->nx, L->ny, L->nz, L->pitch,
                                                          L->plane, seed, scale, offset);
    return (int)cudaGetLastError();
}

} // extern "C"
