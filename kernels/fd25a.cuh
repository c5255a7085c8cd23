// fd25a.cuh — the 2.5D kernel with asynchronous copies (cp.async, sm_80+): the same
// computation as fd25d.cuh, but the xy tiles of u (with halos), u_prev and vdt2 go from
// global to shared memory without passing through registers, L planes ahead, so the loads
// in flight no longer cost registers (fd25d's register lookahead raised register use and
// cut occupancy, which ate the gain). u tiles live in a ring of R+1+L planes (the current
// plane k and the planes up to k+R+L; the queue head u(k+R) is read from its tile), the
// u_prev and vdt2 tiles in rings of L+1. One barrier per plane.
#pragma once
#include "kernels.h"
#include "fd_point.cuh"
#include <climits>

namespace fdwk {

__device__ __forceinline__ void cp_async4(float *smem, const float *g, bool valid)
{
    const unsigned sa = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(sa), "l"(g),
                 "r"(valid ? 4 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

template <int R, int TX, int BY, int RY, int L, bool ACOUSTIC>
__global__ void __launch_bounds__(TX * BY)
fd25a_kernel(const fdwk_fd_args a)
{
    constexpr int TY = BY * RY;
    constexpr int SW = TX + 2 * R;
    constexpr int SH = TY + 2 * R;
    constexpr int NT = TX * BY;
    constexpr int NHALO = 2 * R * TY + 2 * R * TX;
    constexpr int NHN = (NHALO + NT - 1) / NT;
    constexpr int S = R + 1 + L;               // u tile ring
    constexpr int SP = ACOUSTIC ? L + 1 : 1;   // u_prev / vdt2 rings

    __shared__ float su[S][SH * SW];
    __shared__ float sup[SP][TY * TX];
    __shared__ float sv[SP][TY * TX];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * TX + tx;
    const int i0 = blockIdx.x * TX, j0 = blockIdx.y * TY;
    const int i = i0 + tx;
    const int kb = a.k0 + blockIdx.z * a.zchunk;
    const int ke = min(kb + a.zchunk, a.k1);
    const long plane = a.plane;
    const int pitch = (int)a.pitch;

    int col[RY];
    bool ok[RY];
#pragma unroll
    for (int m = 0; m < RY; ++m) {
        const int j = j0 + ty + m * BY;
        ok[m] = (i < a.nx) && (j < a.ny);
        col[m] = j * pitch + i;
    }
    int hs[NHN], hg[NHN];
#pragma unroll
    for (int n = 0; n < NHN; ++n) {
        const int h = tid + n * NT;
        hs[n] = -1;
        hg[n] = INT_MIN;
        if (h < NHALO) {
            int hx, hy;
            if (h < 2 * R * TY) {
                const int row = h / (2 * R), c = h % (2 * R);
                hy = row;
                hx = c < R ? c - R : TX + (c - R);
            } else {
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

    // u tile of plane p (centre and halos) into its ring slot.
    auto load_u = [&](int p) {
        float *t = su[(p - kb + S * 4) % S];
        const long o = (long)p * plane;
#pragma unroll
        for (int m = 0; m < RY; ++m)
            cp_async4(&t[(ty + m * BY + R) * SW + tx + R], ok[m] ? u + o + col[m] : u, ok[m]);
#pragma unroll
        for (int n = 0; n < NHN; ++n)
            if (hs[n] >= 0)
                cp_async4(&t[hs[n]], hg[n] != INT_MIN ? u + o + hg[n] : u, hg[n] != INT_MIN);
    };
    // Stage j: u tile of plane j+R, u_prev and vdt2 of plane j.
    auto issue = [&](int j) {
        if (j < ke) {
            load_u(j + R);
            if (ACOUSTIC) {
                const long o = (long)j * plane;
                const int sl = (j - kb) % SP;
#pragma unroll
                for (int m = 0; m < RY; ++m) {
                    const int e = (ty + m * BY) * TX + tx;
                    cp_async4(&sup[sl][e], ok[m] ? out + o + col[m] : out, ok[m]);
                    cp_async4(&sv[sl][e], ok[m] ? vv + o + col[m] : vv, ok[m]);
                }
            }
        }
        cp_async_commit(); // an empty group past the end keeps the counting uniform
    };

    // Prologue: queue registers, the current tiles of planes kb .. kb+R-1, stages kb..kb+L-1.
    float q[RY][2 * R + 1];
#pragma unroll
    for (int m = 0; m < RY; ++m) {
#pragma unroll
        for (int d = 0; d < 2 * R; ++d)
            q[m][d] = ok[m] ? u[(long)(kb - R + d) * plane + col[m]] : 0.f;
    }
    for (int p = kb; p < kb + R && p < ke; ++p) load_u(p);
    cp_async_commit();
#pragma unroll
    for (int l = 0; l < L; ++l) issue(kb + l);

    for (int k = kb; k < ke; ++k) {
        cp_async_wait<L - 1>(); // this thread's copies of stage k (and older) are done
        __syncthreads();        // everyone's are; everyone has finished plane k-1
        issue(k + L);           // into the slots plane k-1 used

        const float *t = su[(k - kb) % S];
        const float *th = su[(k + R - kb) % S];
        const float qzk = sponge ? a.qz[a.kglob + k] : 0.f;
        float *__restrict__ outk = out + (long)k * plane;
#pragma unroll
        for (int m = 0; m < RY; ++m) {
            const int sc = (ty + m * BY + R) * SW + tx + R;
            q[m][2 * R] = th[sc];
            const float uc = q[m][R];
            const float lap = fd_lap<R, ACOUSTIC>(a, t, sc, SW, &q[m][R]);
            if (ok[m]) {
                float r;
                if (ACOUSTIC) {
                    const int e = (ty + m * BY) * TX + tx;
                    const int sl = (k - kb) % SP;
                    const float pu = sup[sl][e], pv = sv[sl][e];
                    const float qq = qxi + (qyj[m] + qzk);
                    r = fd_acoustic_update(uc, pu, pv, lap, qq);
                    if (a.free_surface && a.kglob + k == 0) r = 0.f;
                } else {
                    r = lap;
                }
                outk[col[m]] = r;
            }
#pragma unroll
            for (int d = 0; d < 2 * R; ++d) q[m][d] = q[m][d + 1];
        }
    }
    cp_async_wait<0>();
}

} // namespace fdwk
