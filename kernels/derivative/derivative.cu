// derivative.cu — periodic 8th-order first derivative along x, y or z, out of place
// (kind "derivative"). x: a block holds row segments in shared memory. y: a block holds a
// tile of rows (along y) of a 128-point x segment in shared memory, all its loads in flight
// at once. z: threads walk the axis with a register window. The scalar kernels (one point
// per thread and load; also the path for layouts without 16-byte aligned rows), the walk
// and the tile stay selectable on y and z (fdwk_derivative's version) for the benchmark
// and tests; every version evaluates the same operations in the same order, so all give
// the same bits.
#include "derivative/fdwk_derivative.h"
#include <cuda_runtime.h>
#include <cstdint>

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

// x, vector: a block of 128 x ROWS threads holds ROWS row segments of 512 points plus the
// 4-point periodic halos; each thread loads one float4 (when the segment is whole and
// the row 16-byte aligned) and computes its 4 points.
constexpr int XROWS = 2;

__global__ void dx4_kernel(float *__restrict__ out, const float *__restrict__ in, int nx, int ny,
                           long pitch, long plane, Coef c)
{
    __shared__ __align__(16) float s[XROWS][XSEG + 16];
    const int j = min(blockIdx.y * XROWS + threadIdx.y, ny - 1), k = blockIdx.z;
    const bool rowok = blockIdx.y * XROWS + threadIdx.y < ny;
    const float *row = in + (long)k * plane + (long)j * pitch;
    float *orow = out + (long)k * plane + (long)j * pitch;
    const int x0 = blockIdx.x * XSEG;
    const int cnt = min(XSEG, nx - x0);
    const int t4 = threadIdx.x * 4;
    float *sr = s[threadIdx.y] + 8; // s[-4..-1]: left halo, s[cnt..cnt+3]: right halo
    if (t4 + 3 < cnt) {
        const float4 v = __ldg(reinterpret_cast<const float4 *>(row + x0 + t4));
        *reinterpret_cast<float4 *>(sr + t4) = v;
    } else {
        for (int e = 0; e < 4; ++e)
            if (t4 + e < cnt) sr[t4 + e] = __ldg(&row[x0 + t4 + e]);
    }
    if (threadIdx.x < 4) {
        sr[-4 + (int)threadIdx.x] = __ldg(&row[wrap(x0 - 4 + (int)threadIdx.x, nx)]);
        sr[cnt + threadIdx.x] = __ldg(&row[wrap(x0 + cnt + (int)threadIdx.x, nx)]);
    }
    __syncthreads();
    float r[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const int q = t4 + e;
        float d = c.c[1] * (sr[q + 1] - sr[q - 1]); // the CPU's order, no contraction
        d += c.c[2] * (sr[q + 2] - sr[q - 2]);
        d += c.c[3] * (sr[q + 3] - sr[q - 3]);
        d += c.c[4] * (sr[q + 4] - sr[q - 4]);
        r[e] = d;
    }
    if (!rowok) return; // (ny - 1 again, to reach the barrier; it stores nothing)
    if (t4 + 3 < cnt) {
        *reinterpret_cast<float4 *>(orow + x0 + t4) = make_float4(r[0], r[1], r[2], r[3]);
    } else {
        for (int e = 0; e < 4; ++e)
            if (t4 + e < cnt) orow[x0 + t4 + e] = r[e];
    }
}

// y or z, vector: as dwalk_kernel with 4 consecutive x points per thread (16-byte loads;
// rows are 32-byte aligned and padded, so a quad never leaves its row's allocation) and one
// plane loaded ahead; registers for 8 blocks of 128 threads per SM.
template <int AXIS>
__global__ void __launch_bounds__(128, 8) dwalk4_kernel(float *__restrict__ out,
                                                        const float *__restrict__ in, int nx,
                                                        int ny, int nz, long pitch, long plane,
                                                        int chunk, Coef c)
{
    constexpr int LA = 1;
    const int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const int o = blockIdx.y * blockDim.y + threadIdx.y;
    const int n = AXIS == 1 ? ny : nz;
    const int no = AXIS == 1 ? nz : ny;
    if (i >= nx || o >= no) return;
    const long step = AXIS == 1 ? pitch : plane;
    const long base = (AXIS == 1 ? (long)o * plane : (long)o * pitch) + i;
    const int p0 = blockIdx.z * chunk, p1 = min(p0 + chunk, n);
    const int nv = min(4, nx - i); // valid points of the quad
    float4 w[9 + LA];
#pragma unroll
    for (int d = 0; d < 8 + LA; ++d)
        w[d] = __ldg(reinterpret_cast<const float4 *>(in + base + (long)wrap(p0 - 4 + d, n) * step));
    for (int p = p0; p < p1; ++p) {
        w[8 + LA] = __ldg(reinterpret_cast<const float4 *>(in + base + (long)wrap(p + 4 + LA, n) * step));
        float4 r;
        r.x = c.c[1] * (w[5].x - w[3].x);
        r.y = c.c[1] * (w[5].y - w[3].y);
        r.z = c.c[1] * (w[5].z - w[3].z);
        r.w = c.c[1] * (w[5].w - w[3].w);
#pragma unroll
        for (int m = 2; m <= 4; ++m) {
            r.x += c.c[m] * (w[4 + m].x - w[4 - m].x);
            r.y += c.c[m] * (w[4 + m].y - w[4 - m].y);
            r.z += c.c[m] * (w[4 + m].z - w[4 - m].z);
            r.w += c.c[m] * (w[4 + m].w - w[4 - m].w);
        }
        float *dst = out + base + (long)p * step;
        if (nv == 4) {
            *reinterpret_cast<float4 *>(dst) = r;
        } else {
            const float rv[4] = {r.x, r.y, r.z, r.w};
            for (int e = 0; e < nv; ++e) dst[e] = rv[e];
        }
#pragma unroll
        for (int e = 0; e < 8 + LA; ++e) w[e] = w[e + 1];
    }
}

// y or z, tile: a block of 32 x TB threads holds TL + 8 rows (along the axis) of a
// 128-point x segment in shared memory, all loaded at once as 16-byte vectors (every load
// of the block in flight together, as in dx4_kernel, instead of a walk's few planes
// ahead), then computes its TL rows. Rows wrap periodically; the 8 halo rows are the
// neighbouring tiles' and mostly come from L2. Quads past nx read the row's padding
// (rows are 32-byte aligned and padded) and are not stored. Grid: (x segment, tile along
// the axis, other index).
template <int AXIS, int TL, int TB>
__global__ void __launch_bounds__(32 * TB) dtile_kernel(float *__restrict__ out,
                                                        const float *__restrict__ in, int nx,
                                                        int ny, int nz, long pitch, long plane,
                                                        Coef c)
{
    __shared__ float4 s[TL + 8][32];
    const int q = threadIdx.x;
    const int i = blockIdx.x * 128 + 4 * q;
    const int n = AXIS == 1 ? ny : nz;
    const int o = blockIdx.z; // k for y, j for z
    const long step = AXIS == 1 ? pitch : plane;
    const long base = (AXIS == 1 ? (long)o * plane : (long)o * pitch) + i;
    const int p0 = blockIdx.y * TL;
    const bool ok = i < nx;
#pragma unroll
    for (int r = threadIdx.y; r < TL + 8; r += TB)
        s[r][q] = ok ? __ldg(reinterpret_cast<const float4 *>(in + base + (long)wrap(p0 - 4 + r, n) * step))
                     : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
    if (!ok) return;
    const int nv = min(4, nx - i);
#pragma unroll
    for (int r = threadIdx.y; r < TL; r += TB) {
        if (p0 + r >= n) break;
        const float4 *w = &s[r + 4][q]; // w[d * 32] = f(p + d)
        float4 v;
        v.x = c.c[1] * (w[32].x - w[-32].x); // the CPU's order, no contraction
        v.y = c.c[1] * (w[32].y - w[-32].y);
        v.z = c.c[1] * (w[32].z - w[-32].z);
        v.w = c.c[1] * (w[32].w - w[-32].w);
#pragma unroll
        for (int m = 2; m <= 4; ++m) {
            v.x += c.c[m] * (w[32 * m].x - w[-32 * m].x);
            v.y += c.c[m] * (w[32 * m].y - w[-32 * m].y);
            v.z += c.c[m] * (w[32 * m].z - w[-32 * m].z);
            v.w += c.c[m] * (w[32 * m].w - w[-32 * m].w);
        }
        float *dst = out + base + (long)(p0 + r) * step;
        if (nv == 4) {
            *reinterpret_cast<float4 *>(dst) = v;
        } else {
            const float rv[4] = {v.x, v.y, v.z, v.w};
            for (int e = 0; e < nv; ++e) dst[e] = rv[e];
        }
    }
}

// The default version along each axis: y the tile (a plane's rows are contiguous, so the
// tile's 40 rows are one stream: 88-92% of the copy rate, the walk 81-85%), z the walk (the
// tile's rows lie in 40 planes; bench/RESULTS.md, docs/gpu.md decisions).
int default_version(int axis) { return axis == 1 ? FDWK_DERIV_TILE : FDWK_DERIV_WALK; }

// Planes per walk chunk: the caller's (at most the axis), else the whole axis below 256
// planes and 128 above (enough blocks to fill the GPU, few halo re-reads).
int walk_chunk(int chunk, int n)
{
    if (chunk > 0) return chunk < n ? chunk : n;
    return n < 256 ? n : 128;
}

} // namespace

extern "C" int fdwk_derivative(float *out, const float *in, int nx, int ny, int nz,
                               long pitch, long plane, int axis, const float dc[5],
                               int version, int chunk, fdwk_stream s)
{
    Coef c;
    for (int m = 0; m < 5; ++m) c.c[m] = dc[m];
    cudaStream_t st = (cudaStream_t)s;
    if (nx < 1 || ny < 1 || nz < 1 || axis < 0 || axis > 2 || version < FDWK_DERIV_DEFAULT ||
        version > FDWK_DERIV_TILE || chunk < 0)
        return (int)cudaErrorInvalidValue;
    const int ver = version == FDWK_DERIV_DEFAULT ? default_version(axis) : version;
    // The vector kernels need 16-byte aligned rows (the layout's rows are 32-byte aligned).
    const bool vec = ver != FDWK_DERIV_SCALAR && pitch % 4 == 0 && plane % 4 == 0 &&
                     (reinterpret_cast<uintptr_t>(in) & 15) == 0 &&
                     (reinterpret_cast<uintptr_t>(out) & 15) == 0;
    if (axis == 0 && vec) {
        dim3 grid((nx + XSEG - 1) / XSEG, (ny + XROWS - 1) / XROWS, nz);
        dx4_kernel<<<grid, dim3(128, XROWS), 0, st>>>(out, in, nx, ny, pitch, plane, c);
    } else if (axis == 0) {
        dim3 grid((nx + XSEG - 1) / XSEG, ny, nz);
        dx_kernel<<<grid, 128, 0, st>>>(out, in, nx, pitch, plane, c);
    } else if (vec && ver == FDWK_DERIV_TILE && (axis == 1 ? nz : ny) <= 65535) {
        const int n = axis == 1 ? ny : nz, no = axis == 1 ? nz : ny;
        const dim3 grid((nx + 127) / 128, (n + 31) / 32, no), block(32, 8);
        if (axis == 1)
            dtile_kernel<1, 32, 8><<<grid, block, 0, st>>>(out, in, nx, ny, nz, pitch, plane, c);
        else
            dtile_kernel<2, 32, 8><<<grid, block, 0, st>>>(out, in, nx, ny, nz, pitch, plane, c);
    } else if (vec) {
        const int n = axis == 1 ? ny : nz, no = axis == 1 ? nz : ny;
        constexpr int by = 4;
        const int ch = walk_chunk(chunk, n);
        const dim3 block(32, by), grid((nx + 127) / 128, (no + by - 1) / by, (n + ch - 1) / ch);
        if (axis == 1)
            dwalk4_kernel<1><<<grid, block, 0, st>>>(out, in, nx, ny, nz, pitch, plane, ch, c);
        else
            dwalk4_kernel<2><<<grid, block, 0, st>>>(out, in, nx, ny, nz, pitch, plane, ch, c);
    } else {
        const int n = axis == 1 ? ny : nz, no = axis == 1 ? nz : ny;
        const int ch = walk_chunk(chunk, n);
        dim3 block(32, 8), grid((nx + 31) / 32, (no + 7) / 8, (n + ch - 1) / ch);
        if (axis == 1)
            dwalk_kernel<1><<<grid, block, 0, st>>>(out, in, nx, ny, nz, pitch, plane, ch, c);
        else
            dwalk_kernel<2><<<grid, block, 0, st>>>(out, in, nx, ny, nz, pitch, plane, ch, c);
    }
    return (int)cudaGetLastError();
}
