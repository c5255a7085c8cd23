// derivative.cu — periodic 8th-order first derivative along x, y or z, out of place
// (kind "derivative"). x: a block holds a row segment plus 4-point halos in shared
// memory, wrapping at the row ends; y and z: each thread walks a few points and reads its
// neighbours straight from global memory (they are reused through L1/L2), with periodic
// wrap of the neighbour index.
#include "kernels.h"
#include <cuda_runtime.h>

namespace {

struct Coef { float c[5]; };

// x: one row per blockIdx.y/z, 128 threads, each thread 1 point per 128-wide segment.
__global__ void dx_kernel(float *__restrict__ out, const float *__restrict__ in, int nx,
                          int ny, long pitch, long plane, Coef c)
{
    __shared__ float s[128 + 8];
    const int j = blockIdx.y, k = blockIdx.z;
    const float *row = in + (long)k * plane + (long)j * pitch;
    float *orow = out + (long)k * plane + (long)j * pitch;
    const int i = blockIdx.x * 128 + threadIdx.x;
    if (i < nx) s[threadIdx.x + 4] = __ldg(&row[i]); // threads past the row end write
                                                      // nothing: their slots hold the halo
    if (threadIdx.x < 4) {
        int il = blockIdx.x * 128 - 4 + (int)threadIdx.x;
        il = (il % nx + nx) % nx;
        s[threadIdx.x] = __ldg(&row[il]);
        const int cnt = min(128, nx - (int)blockIdx.x * 128); // points in this segment
        int ir = (blockIdx.x * 128 + cnt + (int)threadIdx.x) % nx;
        s[4 + cnt + threadIdx.x] = __ldg(&row[ir]);
    }
    __syncthreads();
    if (i < nx) {
        const int t = threadIdx.x + 4;
        float d = c.c[1] * (s[t + 1] - s[t - 1]); // the CPU's order, no contraction
        d += c.c[2] * (s[t + 2] - s[t - 2]);
        d += c.c[3] * (s[t + 3] - s[t - 3]);
        d += c.c[4] * (s[t + 4] - s[t - 4]);
        orow[i] = d;
    }
}

// y or z: thread (i, j) of plane blockIdx.z; neighbours `step` apart (pitch or plane),
// n points along the axis, wrapped periodically.
template <int AXIS>
__global__ void dyz_kernel(float *__restrict__ out, const float *__restrict__ in, int nx,
                           int ny, int nz, long pitch, long plane, Coef c)
{
    const int i = blockIdx.x * 32 + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z;
    if (i >= nx || j >= ny) return;
    const int n = AXIS == 1 ? ny : nz;
    const int p = AXIS == 1 ? j : k;
    const long step = AXIS == 1 ? pitch : plane;
    const long base = (long)k * plane + (long)j * pitch + i - (long)p * step;
    float d = 0.f;
#pragma unroll
    for (int m = 1; m <= 4; ++m) {
        int pp = p + m, pm = p - m;
        while (pp >= n) pp -= n;
        while (pm < 0) pm += n;
        const float t = c.c[m] * (__ldg(&in[base + (long)pp * step]) - __ldg(&in[base + (long)pm * step]));
        d = m == 1 ? t : d + t;
    }
    out[base + (long)p * step] = d;
}

} // namespace

extern "C" int fdwk_derivative(float *out, const float *in, int nx, int ny, int nz,
                               long pitch, long plane, int axis, const float dc[5],
                               fdwk_stream s)
{
    Coef c;
    for (int m = 0; m < 5; ++m) c.c[m] = dc[m];
    cudaStream_t st = (cudaStream_t)s;
    if (nx < 1 || ny < 1 || nz < 1) return (int)cudaErrorInvalidValue;
    if (axis == 0) {
        dim3 grid((nx + 127) / 128, ny, nz);
        dx_kernel<<<grid, 128, 0, st>>>(out, in, nx, ny, pitch, plane, c);
    } else {
        dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8, nz);
        if (axis == 1) dyz_kernel<1><<<grid, block, 0, st>>>(out, in, nx, ny, nz, pitch, plane, c);
        else dyz_kernel<2><<<grid, block, 0, st>>>(out, in, nx, ny, nz, pitch, plane, c);
    }
    return (int)cudaGetLastError();
}
