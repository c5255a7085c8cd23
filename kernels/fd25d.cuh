// fd25d.cuh — the 2.5D finite-difference kernel shared by the acoustic and stencil kinds.
// A block owns a 32 x TY tile of the xy plane and walks a chunk of z planes. Each thread
// keeps the 2R+1 values of its column(s) along z in a register queue; the current plane
// (tile plus x/y halos) goes through shared memory. The loads for plane k+1 (queue head,
// halos, u_prev, vdt2) are issued right after the barrier of plane k, so they are in
// flight while plane k is computed and stored.
#pragma once
#include "kernels.h"
#include <climits>

namespace fdwk {

template <int R, int BY, int RY, bool ACOUSTIC>
__global__ void __launch_bounds__(32 * BY)
fd25d_kernel(const fdwk_fd_args a)
{
    constexpr int TX = 32;
    constexpr int TY = BY * RY;
    constexpr int SW = TX + 2 * R;             // shared row width
    constexpr int SH = TY + 2 * R;
    constexpr int NT = TX * BY;                // threads per block
    constexpr int NHALO = 2 * R * TY + 2 * R * TX;
    constexpr int NHN = (NHALO + NT - 1) / NT; // halo loads per thread

    __shared__ float s[SH * SW];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * TX + tx;
    const int i0 = blockIdx.x * TX, j0 = blockIdx.y * TY;
    const int i = i0 + tx;
    const int kb = a.k0 + blockIdx.z * a.zchunk;
    const int ke = min(kb + a.zchunk, a.k1);
    const long plane = a.plane, pitch = a.pitch;

    // Columns this thread owns: (i, j0 + ty + m*BY).
    long col[RY];
    bool ok[RY];
#pragma unroll
    for (int m = 0; m < RY; ++m) {
        int j = j0 + ty + m * BY;
        ok[m] = (i < a.nx) && (j < a.ny);
        col[m] = (long)j * pitch + i;
    }
    // Halo cells this thread loads: shared index and in-plane offset; -1: none.
    int hs[NHN];
    long hg[NHN];
#pragma unroll
    for (int n = 0; n < NHN; ++n) {
        int h = tid + n * NT;
        hs[n] = -1;
        hg[n] = 0;
        if (h < NHALO) {
            int hx, hy;
            if (h < 2 * R * TY) {               // x halos: TY rows x 2R columns
                int row = h / (2 * R), c = h % (2 * R);
                hy = row;
                hx = c < R ? c - R : TX + (c - R);
            } else {                            // y halos: 2R rows x TX columns
                int h2 = h - 2 * R * TY;
                int row = h2 / TX, c = h2 % TX;
                hx = c;
                hy = row < R ? row - R : TY + (row - R);
            }
            int gi = i0 + hx, gj = j0 + hy;
            if (gi >= -R && gi < a.nx + R && gj >= -R && gj < a.ny + R) {
                hs[n] = (hy + R) * SW + (hx + R);
                hg[n] = (long)gj * pitch + gi;
            } else {
                hs[n] = (hy + R) * SW + (hx + R);
                hg[n] = LONG_MIN;               // outside: store zero
            }
        }
    }

    float qxi = 0.f;
    float qyj[RY];
    const bool sponge = ACOUSTIC && a.qx != nullptr;
    if (sponge) {
        qxi = i < a.nx ? a.qx[i] : 0.f;
#pragma unroll
        for (int m = 0; m < RY; ++m) {
            int j = j0 + ty + m * BY;
            qyj[m] = j < a.ny ? a.qy[j] : 0.f;
        }
    } else {
#pragma unroll
        for (int m = 0; m < RY; ++m) qyj[m] = 0.f;
    }

    const float *__restrict__ u = a.u;
    float *__restrict__ out = a.out;
    const float *__restrict__ vv = a.vdt2;

    // Prologue: queue values k-R .. k+R-1 for k = kb, then the loads of plane kb.
    float q[RY][2 * R + 1];
    float qn[RY], hv[NHN], pu[RY], pv[RY];
#pragma unroll
    for (int m = 0; m < RY; ++m) {
#pragma unroll
        for (int d = 0; d < 2 * R; ++d)
            q[m][d] = ok[m] ? u[(long)(kb - R + d) * plane + col[m]] : 0.f;
        qn[m] = ok[m] ? u[(long)(kb + R) * plane + col[m]] : 0.f;
        if (ACOUSTIC) {
            pu[m] = ok[m] ? out[(long)kb * plane + col[m]] : 0.f;
            pv[m] = ok[m] ? __ldg(&vv[(long)kb * plane + col[m]]) : 0.f;
        }
    }
#pragma unroll
    for (int n = 0; n < NHN; ++n)
        hv[n] = (hs[n] >= 0 && hg[n] != LONG_MIN) ? u[(long)kb * plane + hg[n]] : 0.f;

    for (int k = kb; k < ke; ++k) {
#pragma unroll
        for (int m = 0; m < RY; ++m) {
            q[m][2 * R] = qn[m];
            s[(ty + m * BY + R) * SW + tx + R] = q[m][R];
        }
#pragma unroll
        for (int n = 0; n < NHN; ++n)
            if (hs[n] >= 0) s[hs[n]] = hv[n];
        __syncthreads();

        // Prefetch plane k+1 while plane k is computed.
        float nu[RY], nv[RY];
        const bool more = k + 1 < ke;
#pragma unroll
        for (int m = 0; m < RY; ++m) {
            const long o = (long)(k + 1) * plane + col[m];
            qn[m] = (more && ok[m]) ? u[o + (long)R * plane] : 0.f;
            if (ACOUSTIC) {
                nu[m] = (more && ok[m]) ? out[o] : 0.f;
                nv[m] = (more && ok[m]) ? __ldg(&vv[o]) : 0.f;
            }
        }
        float hn[NHN];
#pragma unroll
        for (int n = 0; n < NHN; ++n)
            hn[n] = (more && hs[n] >= 0 && hg[n] != LONG_MIN) ? u[(long)(k + 1) * plane + hg[n]] : 0.f;

        const float qzk = sponge ? a.qz[a.kglob + k] : 0.f;
#pragma unroll
        for (int m = 0; m < RY; ++m) {
            // Same operations in the same order as the CPU reference (cpu_acoustic.c,
            // cpu_stencil.c); the library is built with -fmad=false, so no contraction.
            const int sc = (ty + m * BY + R) * SW + tx + R;
            const float uc = q[m][R];
            float lap = a.c0 * uc;
#pragma unroll
            for (int d = 1; d <= R; ++d) {
                if (ACOUSTIC) {
                    lap += a.cx[d] * (s[sc + d] + s[sc - d]);
                    lap += a.cy[d] * (s[sc + d * SW] + s[sc - d * SW]);
                    lap += a.cz[d] * (q[m][R + d] + q[m][R - d]);
                } else {
                    lap += a.cx[d] * (((s[sc + d] + s[sc - d]) + (s[sc + d * SW] + s[sc - d * SW])) +
                                      (q[m][R + d] + q[m][R - d]));
                }
            }
            if (ok[m]) {
                float r;
                if (ACOUSTIC) {
                    const float qq = qxi + (qyj[m] + qzk);
                    if (qq != 0.f)
                        r = ((2.f * uc - (1.f - qq) * pu[m]) + pv[m] * lap) / (1.f + qq);
                    else
                        r = (2.f * uc - pu[m]) + pv[m] * lap;
                    if (a.free_surface && a.kglob + k == 0) r = 0.f;
                } else {
                    r = lap;
                }
                out[(long)k * plane + col[m]] = r;
            }
        }
        __syncthreads();

#pragma unroll
        for (int m = 0; m < RY; ++m) {
#pragma unroll
            for (int d = 0; d < 2 * R; ++d) q[m][d] = q[m][d + 1];
            if (ACOUSTIC) { pu[m] = nu[m]; pv[m] = nv[m]; }
        }
#pragma unroll
        for (int n = 0; n < NHN; ++n) hv[n] = hn[n];
    }
}

} // namespace fdwk
