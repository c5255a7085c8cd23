// imaging.cu — the imaging kinds' kernels (fdwk_imaging.h): born's source and the image's
// sums over the slab's interior, the Laplacian computed as the CPU engine computes it (no
// fused multiply-adds: -fmad=false), the sums in float32 as the CPU engine's. The image
// condition lap(u) z runs the acoustic kind's 2.5D kernel with its imaging point update
// (common/fd25.cuh: the same tiles and Laplacian, at the step's speed); born's source and
// the cross-correlation walk columns.
#include "imaging/fdwk_imaging.h"
#include "common/fd_launch.cuh"
#include <cuda_runtime.h>
#include <cstring>

namespace {

struct Lap {
    int r;
    float c0;
    float cx[FDWK_MAX_RADIUS + 1], cy[FDWK_MAX_RADIUS + 1], cz[FDWK_MAX_RADIUS + 1];
};

// A thread walks ZC planes of one (i, j) column down z, the column's 2R + 1 values in
// registers and the x and y neighbours read from global memory (a warp spans x, so they
// coalesce or hit L1); blockIdx.z picks the chunk of planes, for enough threads in flight.
// The Laplacian at each point is the CPU engine's: lx, ly, lz summed over m = 1..R from 0,
// then ((c0 u + lx) + ly) + lz.
constexpr int ZC = 32; // planes a thread walks

template <int R, int MODE> // MODE 0: born's source s += dv lap(u); 2: img += u z, ill += u u
__global__ void column_kernel(float *s, const float *dv, float *img, float *ill,
                              const float *u, const float *z, int nx, int ny, int nz,
                              long pitch, long plane, int k0, Lap l)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int ka = k0 + (int)blockIdx.z * ZC, kb = ka + ZC < nz ? ka + ZC : nz;
    if (i >= nx || j >= ny || ka >= nz) return;
    const long col = (long)j * pitch + i;
    float w[2 * R + 1]; // u at k - R .. k + R
#pragma unroll
    for (int q = 0; q < 2 * R + 1; ++q) w[q] = u[col + (long)(ka - R + q) * plane];
    for (int k = ka; k < kb; ++k) {
        const long o = col + (long)k * plane;
        const float *uo = u + o;
        if (MODE == 2) {
            const float uu = w[R];
            img[o] += uu * z[o];
            if (ill) ill[o] += uu * uu;
        } else {
            float lx = 0.f, ly = 0.f, lz = 0.f;
#pragma unroll
            for (int m = 1; m <= R; ++m) {
                lx += l.cx[m] * (uo[m] + uo[-m]);
                ly += l.cy[m] * (uo[m * pitch] + uo[-m * pitch]);
                lz += l.cz[m] * (w[R + m] + w[R - m]);
            }
            const float lap = ((l.c0 * w[R] + lx) + ly) + lz;
            s[o] += dv[o] * lap;
        }
#pragma unroll
        for (int q = 0; q < 2 * R; ++q) w[q] = w[q + 1];
        if (k + 1 < kb) w[2 * R] = u[o + (long)(R + 1) * plane]; // (past the last ghost)
    }
}

template <int MODE>
int launch(float *s, const float *dv, float *img, float *ill, const float *u, const float *z,
           const fdwk_layout *L, const Lap &l, int k0, cudaStream_t st)
{
    const dim3 block(32, 8), grid((L->nx + 31) / 32, (L->ny + 7) / 8, (L->nz - k0 + ZC - 1) / ZC);
#define FDWK_IMG_CASE(R)                                                                   \
    case R:                                                                                \
        column_kernel<R, MODE><<<grid, block, 0, st>>>(s, dv, img, ill, u, z, L->nx, L->ny, \
                                                       L->nz, L->pitch, L->plane, k0, l);  \
        break;
    switch (l.r) {
        FDWK_IMG_CASE(1) FDWK_IMG_CASE(2) FDWK_IMG_CASE(3) FDWK_IMG_CASE(4)
        FDWK_IMG_CASE(5) FDWK_IMG_CASE(6) FDWK_IMG_CASE(7) FDWK_IMG_CASE(8)
    default: return (int)cudaErrorInvalidValue;
    }
#undef FDWK_IMG_CASE
    return (int)cudaGetLastError();
}

Lap lap_of(const fdwk_img_lap *c)
{
    Lap l;
    l.r = c->radius;
    l.c0 = (c->c[0][0] + c->c[1][0]) + c->c[2][0];
    for (int m = 0; m <= FDWK_MAX_RADIUS; ++m) {
        l.cx[m] = c->c[0][m];
        l.cy[m] = c->c[1][m];
        l.cz[m] = c->c[2][m];
    }
    return l;
}

// img += lap(u) z over planes [k0, nz) by the 2.5D kernel's imaging update.
int image_sum(float *img, float *ill, const float *u, const float *z, const fdwk_layout *L,
              const fdwk_img_lap *c, int k0, cudaStream_t st)
{
    fdwk_fd_args a;
    memset(&a, 0, sizeof a);
    a.mode = FDWK_ACOUSTIC;
    a.radius = c->radius;
    a.out = img;
    a.u = u;
    a.vdt2 = z;
    a.nx = L->nx, a.ny = L->ny;
    a.k0 = k0, a.k1 = L->nz, a.kglob = 0;
    a.pitch = L->pitch, a.plane = L->plane;
    a.c0 = (c->c[0][0] + c->c[1][0]) + c->c[2][0];
    for (int m = 0; m <= FDWK_MAX_RADIUS; ++m)
        a.cx[m] = c->c[0][m], a.cy[m] = c->c[1][m], a.cz[m] = c->c[2][m];
    a.ill = ill;
    return fdwk::fd_step<true, true>(a, st);
}

// The image's scaling at each interior point, in double as imaging_finish.c's: the sum
// over V times 2 v dt (v dt = sqrt V), and for the gradient in slowness squared -v^3 / 2
// times that. A thread a point of a row (x); rows (y) and planes (z) over the grid's y
// and z, strided past its limit.
__global__ void scale_kernel(float *img, const float *vdt2, int nx, int ny, int nz, long pitch,
                             long plane, double dt, int slowness2)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx) return;
    for (int k = blockIdx.z; k < nz; k += gridDim.z)
        for (int j = blockIdx.y; j < ny; j += gridDim.y) {
            const long o = (long)k * plane + (long)j * pitch + i;
            const double V = vdt2[o], vdt = sqrt(V);
            double x = (double)img[o] / V * (2.0 * vdt * dt);
            if (slowness2) {
                const double v = vdt / dt;
                x *= -0.5 * v * v * v;
            }
            img[o] = (float)x;
        }
}

} // namespace

extern "C" {

int fdwk_img_scale(float *img, const float *vdt2, const fdwk_layout *L, double dt,
                   int slowness2, fdwk_stream st)
{
    if (L->nx <= 0 || L->ny <= 0 || L->nz <= 0) return 0;
    const int threads = 128;
    const dim3 grid((unsigned)((L->nx + threads - 1) / threads),
                    (unsigned)(L->ny < 65535 ? L->ny : 65535),
                    (unsigned)(L->nz < 65535 ? L->nz : 65535));
    scale_kernel<<<grid, threads, 0, (cudaStream_t)st>>>(img, vdt2, L->nx, L->ny, L->nz, L->pitch,
                                                         L->plane, dt, slowness2);
    return (int)cudaGetLastError();
}

int fdwk_img_born(float *s, const float *dv, const float *u, const fdwk_layout *L,
                  const fdwk_img_lap *c, int k0, fdwk_stream st)
{
    if (k0 >= L->nz) return 0;
    return launch<0>(s, dv, nullptr, nullptr, u, nullptr, L, lap_of(c), k0, (cudaStream_t)st);
}

int fdwk_img_accumulate(float *img, float *ill, const float *u, const float *z,
                        const fdwk_layout *L, const fdwk_img_lap *c, int k0, int xcorr,
                        fdwk_stream st)
{
    if (k0 >= L->nz) return 0;
    return xcorr ? launch<2>(nullptr, nullptr, img, ill, u, z, L, lap_of(c), k0,
                             (cudaStream_t)st)
                 : image_sum(img, ill, u, z, L, c, k0, (cudaStream_t)st);
}

} // extern "C"
