// fd25.cuh — the 2.5D finite-difference kernel of the acoustic and stencil kinds (Micikevicius
// 2009's design on Hopper). A block owns a 4 TXV x BY tile of an xy plane and walks a chunk
// of z: a ring of shared-memory stages, filled L planes ahead by bulk tensor copies
// (tma.cuh), holds each plane's tile with its x/y halo, and every thread keeps its column's
// z neighbours in a register queue. A thread owns 4 consecutive x points, so a plane's
// neighbours come out of shared memory as 16-byte vectors (shared-memory instructions, not
// DRAM, bound the high orders); with NB > 1 it updates NB planes per iteration, halving
// barriers and queue moves. The operations and their order are the CPU reference's, so
// results are bit-identical; stores are 16-byte vectors where the 4 points lie in the grid.
// With IMG (acoustic only) the point update is the imaging kinds' sum instead: out (the
// image) += lap(u) vdt2 (the adjoint field, in vdt2's place) and a.ill += u u where given:
// the same tiles, the same Laplacian (kernels/imaging).
#pragma once
#include "common/fd_point.cuh"
#include "common/fdwk_fd.h"
#include "common/tma.cuh"
#include <cstdint>

namespace fdwk {

// A stage's x window of the thread (columns [xq, xq + NXS) of its box row, from rc).
template <int NXS>
__device__ __forceinline__ void load_window(const float *s, int rc, float (&xs)[NXS])
{
#pragma unroll
    for (int t = 0; t < NXS / 4; ++t) {
        const float4 v = *reinterpret_cast<const float4 *>(s + rc + 4 * t);
        xs[4 * t] = v.x;
        xs[4 * t + 1] = v.y;
        xs[4 * t + 2] = v.z;
        xs[4 * t + 3] = v.w;
    }
}

// The acoustic Laplacian at the thread's 4 points of a plane: x and y neighbours from the
// plane's box in a stage (s, the thread's window from rc), z neighbours from its queue q
// (the point at q[e][b + R]); a's c0, cx, cy, cz. The CPU reference's order of operations.
template <int R, int SW, int XL, int QN, class A>
__device__ __forceinline__ void box_lap(const A &a, const float *s, int rc,
                                        const float (&q)[4][QN], int b, float (&lap)[4])
{
    float xs[4 + 2 * XL];
    load_window(s, rc, xs);
    float lx[4], ly[4], lz[4];
#pragma unroll
    for (int d = 1; d <= R; ++d) {
        const float4 yp = *reinterpret_cast<const float4 *>(s + rc + XL + d * SW);
        const float4 ym = *reinterpret_cast<const float4 *>(s + rc + XL - d * SW);
        const float ypv[4] = {yp.x, yp.y, yp.z, yp.w};
        const float ymv[4] = {ym.x, ym.y, ym.z, ym.w};
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const float tx_ = a.cx[d] * (xs[XL + e + d] + xs[XL + e - d]);
            const float ty_ = a.cy[d] * (ypv[e] + ymv[e]);
            const float tz_ = a.cz[d] * (q[e][b + R + d] + q[e][b + R - d]);
            if (d == 1) {
                lx[e] = tx_;
                ly[e] = ty_;
                lz[e] = tz_;
            } else {
                lx[e] += tx_;
                ly[e] += ty_;
                lz[e] += tz_;
            }
        }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) lap[e] = ((a.c0 * q[e][b + R] + lx[e]) + ly[e]) + lz[e];
}

// TXV threads per row (tile width 4 TXV), BY thread rows (tile height), L planes in flight
// beyond the ring's R + NB, NB planes per iteration.
template <int R, int TXV, int BY, int L, bool ACOUSTIC, int NB = 1, bool IMG = false>
__global__ void __launch_bounds__(TXV * BY)
fd25_kernel(const fdwk_fd_args a, const __grid_constant__ CUtensorMap mu,
             const __grid_constant__ CUtensorMap mo, const __grid_constant__ CUtensorMap mv)
{
    constexpr int TX = 4 * TXV, TY = BY;
    using G = tma_geom<R, TX, TY, L + NB - 1, ACOUSTIC>; // S = R + NB + L stages
    constexpr int SW = G::SW, XL = G::XL, S = G::S;
    constexpr int NXS = 4 + 2 * XL; // x window of a thread: columns [xq, xq + 4 + 2 XL)

    extern __shared__ unsigned char smem_raw[];
    float *ring = reinterpret_cast<float *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 127) & ~static_cast<uintptr_t>(127));
    uint64_t *bar = reinterpret_cast<uint64_t *>(ring + S * G::STAGE_FLOATS);

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * TXV + tx;
    const int i0 = blockIdx.x * TX, j0 = blockIdx.y * TY;
    const int xq = 4 * tx;          // first of the thread's 4 columns within the tile
    const int i = i0 + xq;          // its global x
    const int j = j0 + ty;
    const int kb = a.k0 + blockIdx.z * a.zchunk;
    const int ke = min(kb + a.zchunk, a.k1);
    const int kl = ke + R;
    const long plane = a.plane;
    const int pitch = (int)a.pitch;

    auto issue = [&](int p) {
        const int st = (p - kb) % S;
        float *stage = ring + st * G::STAGE_FLOATS;
        const bool upd = ACOUSTIC && p < ke;
        mbar_expect_tx(&bar[st], G::BOX_BYTES + (upd ? 2 * G::TILE_BYTES : 0));
        tma_load_3d(stage, &mu, i0, j0, p + R, &bar[st]);
        if (upd) {
            tma_load_3d(stage + G::BOX_FLOATS, &mo, i0, j0, p, &bar[st]);
            tma_load_3d(stage + G::BOX_FLOATS + G::TILE_FLOATS, &mv, i0, j0, p, &bar[st]);
        }
    };
    auto wait = [&](int p) {
        const int lp = p - kb;
        mbar_wait(&bar[lp % S], (uint32_t)((lp / S) & 1));
    };

    ring_init(bar, S, tid);
    if (tid == 0)
        for (int p = kb; p < kb + S && p < kl; ++p) issue(p);

    const bool rowok = j < a.ny;
    bool ok[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) ok[e] = rowok && (i + e < a.nx);
    const bool all4 = rowok && (i + 3 < a.nx);
    const int col = j * pitch + i;

    float qxi[4] = {0.f, 0.f, 0.f, 0.f};
    float qyj = 0.f;
    const bool sponge = ACOUSTIC && a.qx != nullptr;
    if (sponge) {
#pragma unroll
        for (int e = 0; e < 4; ++e) qxi[e] = i + e < a.nx ? a.qx[i + e] : 0.f;
        qyj = rowok ? a.qy[j] : 0.f;
    }

    // Queue: q[e][d] = u(k - R + d) at column i + e; the first 2R values from the ring's
    // planes would need R more stages, so they are plain loads (once per z chunk).
    const float *__restrict__ u = a.u;
    float q[4][2 * R + NB];
#pragma unroll
    for (int d = 0; d < 2 * R; ++d) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
            q[e][d] = ok[e] ? u[(long)(kb - R + d) * plane + col + e] : 0.f;
    }
    for (int p = kb; p < kb + R && p < kl; ++p) wait(p);

    float *__restrict__ out = a.out;
    const int rc = (ty + R) * SW + xq; // start of the thread's x window in its box row
    for (int k = kb; k < ke; k += NB) {
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            if (NB > 1 && k + b >= ke) break;
            wait(k + b + R);
            const float *head = ring + ((k + b + R - kb) % S) * G::STAGE_FLOATS;
            const float4 h = *reinterpret_cast<const float4 *>(head + rc + XL);
            q[0][2 * R + b] = h.x;
            q[1][2 * R + b] = h.y;
            q[2][2 * R + b] = h.z;
            q[3][2 * R + b] = h.w;
        }
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            if (NB > 1 && k + b >= ke) break;
            const int kk = k + b;
            const float *s = ring + ((kk - kb) % S) * G::STAGE_FLOATS;
            float lap[4];
            if (ACOUSTIC) {
                box_lap<R, SW, XL>(a, s, rc, q, b, lap);
            } else {
                float xs[NXS];
                load_window(s, rc, xs);
#pragma unroll
                for (int e = 0; e < 4; ++e) lap[e] = a.c0 * q[e][b + R];
#pragma unroll
                for (int d = 1; d <= R; ++d) {
                    const float4 yp = *reinterpret_cast<const float4 *>(s + rc + XL + d * SW);
                    const float4 ym = *reinterpret_cast<const float4 *>(s + rc + XL - d * SW);
                    const float ypv[4] = {yp.x, yp.y, yp.z, yp.w};
                    const float ymv[4] = {ym.x, ym.y, ym.z, ym.w};
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        lap[e] += a.cx[d] * (((xs[XL + e + d] + xs[XL + e - d]) + (ypv[e] + ymv[e])) +
                                             (q[e][b + R + d] + q[e][b + R - d]));
                }
            }
            float r[4];
            float upv[4], vvv[4]; // the point's tiles: u_prev (IMG: the image), vdt2 (IMG: z)
            if (ACOUSTIC) {
                const float *tt = s + G::BOX_FLOATS;
                const int tc = ty * TX + xq;
                const float4 up4 = *reinterpret_cast<const float4 *>(tt + tc);
                const float4 vv4 = *reinterpret_cast<const float4 *>(tt + G::TILE_FLOATS + tc);
                upv[0] = up4.x, upv[1] = up4.y, upv[2] = up4.z, upv[3] = up4.w;
                vvv[0] = vv4.x, vvv[1] = vv4.y, vvv[2] = vv4.z, vvv[3] = vv4.w;
            }
            if (IMG) {
#pragma unroll
                for (int e = 0; e < 4; ++e) r[e] = upv[e] + lap[e] * vvv[e];
                if (a.ill) {
                    float *__restrict__ il = a.ill + (long)kk * plane + col;
                    if (all4) {
                        float4 w = *reinterpret_cast<const float4 *>(il);
                        w.x = w.x + q[0][b + R] * q[0][b + R];
                        w.y = w.y + q[1][b + R] * q[1][b + R];
                        w.z = w.z + q[2][b + R] * q[2][b + R];
                        w.w = w.w + q[3][b + R] * q[3][b + R];
                        *reinterpret_cast<float4 *>(il) = w;
                    } else {
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                            if (ok[e]) il[e] = il[e] + q[e][b + R] * q[e][b + R];
                    }
                }
            } else if (ACOUSTIC) {
                const float qzk = sponge ? a.qz[a.kglob + kk] : 0.f;
                const bool zero = a.free_surface && a.kglob + kk == 0;
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const float uc = q[e][b + R];
                    const float qq = qxi[e] + (qyj + qzk);
                    const float v = fd_acoustic_update(uc, upv[e], vvv[e], lap[e], qq);
                    r[e] = zero ? 0.f : v;
                }
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) r[e] = lap[e];
            }
            float *__restrict__ outk = out + (long)kk * plane + col;
            if (all4) {
                *reinterpret_cast<float4 *>(outk) = make_float4(r[0], r[1], r[2], r[3]);
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (ok[e]) outk[e] = r[e];
            }
        }
#pragma unroll
        for (int e = 0; e < 4; ++e) {
#pragma unroll
            for (int d = 0; d < 2 * R; ++d) q[e][d] = q[e][d + NB];
        }
        __syncthreads(); // every thread is done with the stages of planes k .. k + NB - 1
        if (tid == 0) {
#pragma unroll
            for (int b = 0; b < NB; ++b)
                if (k + b + S < kl) issue(k + b + S);
        }
    }
}

} // namespace fdwk
