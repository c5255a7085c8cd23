// fd25d.cuh — the 2.5D finite-difference kernel shared by the acoustic and stencil kinds.
// A block owns a TX x TY tile of the xy plane (TX threads per row, TY = BY rows of threads
// x RY outputs per thread) and walks a chunk of z planes. Each thread keeps the 2R+1 values of its
// column(s) along z in a register queue; the current plane (tile plus x/y halos) goes
// through shared memory. Every global load is issued P planes before it is used (rings of
// P registers per stream: the queue head u(k+R), u_prev(k), vdt2(k) and the halo cells),
// so P planes of loads are in flight while a plane is computed: the version with P = 1
// reached only ~55% of the copy bandwidth on an H100 because each load had one plane's
// compute to hide DRAM latency.
#pragma once
#include "kernels.h"
#include "fd_point.cuh"
#include <climits>

namespace fdwk {

template <int R, int TX, int BY, int RY, int P, bool ACOUSTIC>
__global__ void __launch_bounds__(TX * BY)
fd25d_kernel(const fdwk_fd_args a)
{
    constexpr int TY = BY * RY;
    constexpr int SW = TX + 2 * R;             // shared row width
    constexpr int SH = TY + 2 * R;
    constexpr int NT = TX * BY;                // threads per block
    constexpr int NHALO = 2 * R * TY + 2 * R * TX;
    constexpr int NHN = (NHALO + NT - 1) / NT; // halo cells per thread

    __shared__ float s[SH * SW];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * TX + tx;
    const int i0 = blockIdx.x * TX, j0 = blockIdx.y * TY;
    const int i = i0 + tx;
    const int kb = a.k0 + blockIdx.z * a.zchunk;
    const int ke = min(kb + a.zchunk, a.k1);
    const long plane = a.plane;
    const int pitch = (int)a.pitch;

    // Columns this thread owns: (i, j0 + ty + m*BY); in-plane offsets fit 32 bits.
    int col[RY];
    bool ok[RY];
#pragma unroll
    for (int m = 0; m < RY; ++m) {
        const int j = j0 + ty + m * BY;
        ok[m] = (i < a.nx) && (j < a.ny);
        col[m] = j * pitch + i;
    }
    // Halo cells this thread loads: shared index (-1: none) and in-plane offset (INT_MIN:
    // outside the padded grid, store zero; only outputs that are not written use those).
    int hs[NHN], hg[NHN];
#pragma unroll
    for (int n = 0; n < NHN; ++n) {
        const int h = tid + n * NT;
        hs[n] = -1;
        hg[n] = INT_MIN;
        if (h < NHALO) {
            int hx, hy;
            if (h < 2 * R * TY) {               // x halos: TY rows x 2R columns
                const int row = h / (2 * R), c = h % (2 * R);
                hy = row;
                hx = c < R ? c - R : TX + (c - R);
            } else {                            // y halos: 2R rows x TX columns
                const int h2 = h - 2 * R * TY;
                const int row = h2 / TX, c = h2 % TX;
                hx = c;
                hy = row < R ? row - R : TY + (row - R);
            }
            const int gi = i0 + hx, gj = j0 + hy;
            hs[n] = (hy + R) * SW + (hx + R);
            if (gi >= -R && gi < a.nx + R && gj >= -R && gj < a.ny + R)
                hg[n] = gj * pitch + gi;
        }
    }

    float qxi = 0.f;
    float qyj[RY];
    const bool sponge = ACOUSTIC && a.qx != nullptr;
#pragma unroll
    for (int m = 0; m < RY; ++m) qyj[m] = 0.f;
    if (sponge) {
        qxi = i < a.nx ? a.qx[i] : 0.f;
#pragma unroll
        for (int m = 0; m < RY; ++m) {
            const int j = j0 + ty + m * BY;
            qyj[m] = j < a.ny ? a.qy[j] : 0.f;
        }
    }

    const float *__restrict__ u = a.u;
    float *__restrict__ out = a.out;
    const float *__restrict__ vv = a.vdt2;

    // Queue: q[m][d] = u(k - R + d). Rings: entry p is what iteration k + p needs.
    float q[RY][2 * R + 1];
    float qa[RY][P], ua[RY][P], va[RY][P], ha[NHN][P];
#pragma unroll
    for (int m = 0; m < RY; ++m) {
#pragma unroll
        for (int d = 0; d < 2 * R; ++d)
            q[m][d] = ok[m] ? u[(long)(kb - R + d) * plane + col[m]] : 0.f;
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
        const bool in = kb + p < ke;
        const long o = (long)(kb + p) * plane;
#pragma unroll
        for (int m = 0; m < RY; ++m) {
            qa[m][p] = (in && ok[m]) ? u[o + (long)R * plane + col[m]] : 0.f;
            ua[m][p] = (ACOUSTIC && in && ok[m]) ? out[o + col[m]] : 0.f;
            va[m][p] = (ACOUSTIC && in && ok[m]) ? __ldg(&vv[o + col[m]]) : 0.f;
        }
#pragma unroll
        for (int n = 0; n < NHN; ++n)
            ha[n][p] = (in && hg[n] != INT_MIN) ? u[o + hg[n]] : 0.f;
    }

    for (int k = kb; k < ke; ++k) {
#pragma unroll
        for (int m = 0; m < RY; ++m) {
            q[m][2 * R] = qa[m][0];
            s[(ty + m * BY + R) * SW + tx + R] = q[m][R];
        }
#pragma unroll
        for (int n = 0; n < NHN; ++n)
            if (hs[n] >= 0) s[hs[n]] = ha[n][0];
        __syncthreads();

        // Loads for iteration k + P, in flight during the next P iterations.
        float tq[RY], tu[RY], tv[RY], th[NHN];
        {
            const bool in = k + P < ke;
            const long o = (long)(k + P) * plane;
#pragma unroll
            for (int m = 0; m < RY; ++m) {
                tq[m] = (in && ok[m]) ? u[o + (long)R * plane + col[m]] : 0.f;
                tu[m] = (ACOUSTIC && in && ok[m]) ? out[o + col[m]] : 0.f;
                tv[m] = (ACOUSTIC && in && ok[m]) ? __ldg(&vv[o + col[m]]) : 0.f;
            }
#pragma unroll
            for (int n = 0; n < NHN; ++n)
                th[n] = (in && hg[n] != INT_MIN) ? u[o + hg[n]] : 0.f;
        }

        const float qzk = sponge ? a.qz[a.kglob + k] : 0.f;
        float *__restrict__ outk = out + (long)k * plane;
#pragma unroll
        for (int m = 0; m < RY; ++m) {
            const int sc = (ty + m * BY + R) * SW + tx + R;
            const float uc = q[m][R];
            const float lap = fd_lap<R, ACOUSTIC>(a, s, sc, SW, &q[m][R]);
            if (ok[m]) {
                float r;
                if (ACOUSTIC) {
                    const float qq = qxi + (qyj[m] + qzk);
                    r = fd_acoustic_update(uc, ua[m][0], va[m][0], lap, qq);
                    if (a.free_surface && a.kglob + k == 0) r = 0.f;
                } else {
                    r = lap;
                }
                outk[col[m]] = r;
            }
        }
        __syncthreads();

#pragma unroll
        for (int m = 0; m < RY; ++m) {
#pragma unroll
            for (int d = 0; d < 2 * R; ++d) q[m][d] = q[m][d + 1];
#pragma unroll
            for (int p = 0; p + 1 < P; ++p) {
                qa[m][p] = qa[m][p + 1];
                ua[m][p] = ua[m][p + 1];
                va[m][p] = va[m][p + 1];
            }
            qa[m][P - 1] = tq[m];
            ua[m][P - 1] = tu[m];
            va[m][P - 1] = tv[m];
        }
#pragma unroll
        for (int n = 0; n < NHN; ++n) {
#pragma unroll
            for (int p = 0; p + 1 < P; ++p) ha[n][p] = ha[n][p + 1];
            ha[n][P - 1] = th[n];
        }
    }
}

} // namespace fdwk
