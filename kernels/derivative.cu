// derivative.cu — periodic 8th-order first derivative along x, y or z, out of place
// (kind "derivative"): x through a shared-memory row segment, y and z by threads walking
// the axis with a register window (see the kernels).
#include "kernels.h"
#include <cuda_runtime.h>

namespace {

struct Coef { float c[5]; };

__device__ __forceinline__ int wrap(int p, int n)
{
    while (p >= n) p -= n;
    while (p < 0) p += n;
    return p;
}

// x: a block of 128 threads holds a 512-point row segment plus 4-point periodic halos in
// shared memory; each thread loads and computes 4 points (128 apart), so 4 loads are in
// flight per thread.
constexpr int XSEG = 512;

__global__ void dx_kernel(float *__restrict__ out, const float *__restrict__ in, int nx,
                          long pitch, long plane, Coef c)
{
    __shared__ float s[XSEG + 8];
    const int j = blockIdx.y, k = blockIdx.z;
    const float *row = in + (long)k * plane + (long)j * pitch;
    float *orow = out + (long)k * plane + (long)j * pitch;
    const int x0 = blockIdx.x * XSEG;
    const int cnt = min(XSEG, nx - x0); // points in this segment
    float v[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int t = threadIdx.x + q * 128;
        v[q] = t < cnt ? __ldg(&row[x0 + t]) : 0.f;
    }
    float hl = 0.f, hr = 0.f;
    if (threadIdx.x < 4) {
        hl = __ldg(&row[wrap(x0 - 4 + (int)threadIdx.x, nx)]);
        hr = __ldg(&row[wrap(x0 + cnt + (int)threadIdx.x, nx)]);
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int t = threadIdx.x + q * 128;
        if (t < cnt) s[t + 4] = v[q];
    }
    if (threadIdx.x < 4) {
        s[threadIdx.x] = hl;
        s[4 + cnt + threadIdx.x] = hr; // past the segment's last point
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int t = threadIdx.x + q * 128;
        if (t < cnt) {
            const int e = t + 4;
            float d = c.c[1] * (s[e + 1] - s[e - 1]); // the CPU's order, no contraction
            d += c.c[2] * (s[e + 2] - s[e - 2]);
            d += c.c[3] * (s[e + 3] - s[e - 3]);
            d += c.c[4] * (s[e + 4] - s[e - 4]);
            orow[x0 + t] = d;
        }
    }
}

// y or z: thread (i, other index) walks a chunk of the axis with a register window of the
// 9 values the stencil needs plus L values loaded ahead, so each value is loaded once
// (coalesced across the warp along x) and L loads are in flight.
constexpr int L = 4;

template <int AXIS>
__global__ void dwalk_kernel(float *__restrict__ out, const float *__restrict__ in, int nx,
                             int ny, int nz, long pitch, long plane, int chunk, Coef c)
{
    const int i = blockIdx.x * 32 + threadIdx.x;
    const int o = blockIdx.y * blockDim.y + threadIdx.y;   // k for AXIS 1, j for AXIS 2
    const int n = AXIS == 1 ? ny : nz;
    const int no = AXIS == 1 ? nz : ny;
    if (i >= nx || o >= no) return;
    const long step = AXIS == 1 ? pitch : plane;
    const long base = (AXIS == 1 ? (long)o * plane : (long)o * pitch) + i;
    const int p0 = blockIdx.z * chunk, p1 = min(p0 + chunk, n);
    float w[9 + L]; // w[d] = f(p - 4 + d)
#pragma unroll
    for (int d = 0; d < 8 + L; ++d)
        w[d] = __ldg(&in[base + (long)wrap(p0 - 4 + d, n) * step]);
    for (int p = p0; p < p1; ++p) {
        w[8 + L] = __ldg(&in[base + (long)wrap(p + 4 + L, n) * step]);
        float d = c.c[1] * (w[5] - w[3]);
        d += c.c[2] * (w[6] - w[2]);
        d += c.c[3] * (w[7] - w[1]);
        d += c.c[4] * (w[8] - w[0]);
        out[base + (long)p * step] = d;
#pragma unroll
        for (int e = 0; e < 8 + L; ++e) w[e] = w[e + 1];
    }
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
        dim3 grid((nx + XSEG - 1) / XSEG, ny, nz);
        dx_kernel<<<grid, 128, 0, st>>>(out, in, nx, pitch, plane, c);
    } else {
        const int n = axis == 1 ? ny : nz, no = axis == 1 ? nz : ny;
        const int chunk = n < 256 ? n : 128;
        dim3 block(32, 8), grid((nx + 31) / 32, (no + 7) / 8, (n + chunk - 1) / chunk);
        if (axis == 1)
            dwalk_kernel<1><<<grid, block, 0, st>>>(out, in, nx, ny, nz, pitch, plane, chunk, c);
        else
            dwalk_kernel<2><<<grid, block, 0, st>>>(out, in, nx, ny, nz, pitch, plane, chunk, c);
    }
    return (int)cudaGetLastError();
}
