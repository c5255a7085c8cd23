// fd25t.cuh — the 2.5D finite-difference kernel fed by the Hopper tensor-memory accelerator
// (TMA, cp.async.bulk.tensor). Same computation and summation order as fd25d.cuh (bit-identical
// to the CPU), different data path: one elected thread issues, per z plane, three bulk tensor
// copies into a shared-memory stage — the u tile with its x/y halo, the u_prev tile and the
// (v dt)^2 tile — completing on the stage's mbarrier. S = R + 1 + L stages form a ring: plane
// p lives in stage p % S; iteration k reads the xy halo of plane k and the centre of plane
// k + R (the head of the z register queue), and planes up to k + R + L are in flight. With
// TP > 0 the u_prev and (v dt)^2 tiles get their own ring of TP stages (loaded TP - 1 planes
// ahead instead of R + L), which saves shared memory for more resident blocks. Out-of-bounds
// box cells are zero-filled by the copy engine, which matches the zero padding of the layout,
// so the kernel has no edge branches on the loads.
#pragma once
#include "kernels.h"
#include "fd_point.cuh"
#include <cuda.h>
#include <cstdint>

namespace fdwk {

// Shared-memory geometry of one configuration: XL floats of x halo (R rounded up to 4 so
// every box row starts 16-byte aligned in global memory), stage sizes rounded to 128 bytes
// (the bulk tensor copy's shared-memory alignment).
template <int R, int TX, int TY, int L, int TP, bool AC>
struct tma_geom {
    static constexpr int XL = (R + 3) / 4 * 4;
    static constexpr int SW = TX + 2 * XL;
    static constexpr int SH = TY + 2 * R;
    static constexpr int S = R + 1 + L;
    static constexpr int BOX_BYTES = SW * SH * 4;
    static constexpr int TILE_BYTES = TX * TY * 4;
    static constexpr int BOX_FLOATS = (BOX_BYTES + 127) / 128 * 32;
    static constexpr int TILE_FLOATS = (TILE_BYTES + 127) / 128 * 32;
    static constexpr int STAGE_FLOATS = BOX_FLOATS + (AC && TP == 0 ? 2 * TILE_FLOATS : 0);
    static constexpr int TRING_FLOATS = AC && TP > 0 ? TP * 2 * TILE_FLOATS : 0;
    static constexpr int SMEM_BYTES =
        (S * STAGE_FLOATS + TRING_FLOATS) * 4 + (S + TP) * 8 + 128; // + barriers, slack
};

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}

__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ uint32_t mbar_try(uint64_t *bar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem_addr(bar)), "r"(parity)
                 : "memory");
    return done;
}

// Spins until the barrier's phase with the given parity has completed. A copy that never
// completes (it cannot, unless a tensor map is wrong) would hang the GPU: after 10 s of
// waiting the kernel traps instead, so the launch fails with an error the host reports.
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
    if (mbar_try(bar, parity)) return;
    uint64_t t0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (!mbar_try(bar, parity)) {
        uint64_t t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > 10000000000ull) __trap();
    }
}

// One 3-D tile copy global -> shared, completion counted in bytes on `bar`.
__device__ __forceinline__ void tma_load_3d(void *dst, const CUtensorMap *map, int x, int y, int z,
                                            uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(smem_addr(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(z), "r"(smem_addr(bar))
                 : "memory");
}

// Tensor maps: mu covers u from (x, y, z) = (-XL, -R, -R) with dims (nx + 2XL, ny + 2R,
// k1 + 2R), so plane k of tile (i0, j0) is box origin (i0, j0, k + R); mo and mv cover
// u_prev (out) and (v dt)^2 from the interior origin, dims (nx, ny, k1).
template <int R, int TX, int BY, int RY, int L, int TP, bool ACOUSTIC>
__global__ void __launch_bounds__(TX * BY)
fd25t_kernel(const fdwk_fd_args a, const __grid_constant__ CUtensorMap mu,
             const __grid_constant__ CUtensorMap mo, const __grid_constant__ CUtensorMap mv)
{
    constexpr int TY = BY * RY;
    using G = tma_geom<R, TX, TY, L, TP, ACOUSTIC>;
    constexpr int SW = G::SW, XL = G::XL, S = G::S;
    constexpr int TPD = TP > 0 ? TP : 1; // divisor for the tile ring (unused when TP == 0)

    extern __shared__ unsigned char smem_raw[];
    float *ring = reinterpret_cast<float *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 127) & ~static_cast<uintptr_t>(127));
    float *tring = ring + S * G::STAGE_FLOATS; // TP > 0: u_prev, (v dt)^2 tiles
    uint64_t *bar = reinterpret_cast<uint64_t *>(tring + G::TRING_FLOATS);
    uint64_t *tbar = bar + S;

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * TX + tx;
    const int i0 = blockIdx.x * TX, j0 = blockIdx.y * TY;
    const int i = i0 + tx;
    const int kb = a.k0 + blockIdx.z * a.zchunk;
    const int ke = min(kb + a.zchunk, a.k1);
    const int kl = ke + R; // planes kb .. kl-1 of u are copied (the queue needs k + R)
    const long plane = a.plane;
    const int pitch = (int)a.pitch;

    // Issues the copies of plane p into its stage (u box always; with TP == 0 also u_prev
    // and (v dt)^2, only for planes this block updates).
    auto issue = [&](int p) {
        const int st = (p - kb) % S;
        float *stage = ring + st * G::STAGE_FLOATS;
        const bool upd = ACOUSTIC && TP == 0 && p < ke;
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
    // TP > 0: the u_prev and (v dt)^2 tiles of plane p (p < ke) into their own ring.
    auto issue_t = [&](int p) {
        const int st = (p - kb) % TPD;
        float *t = tring + st * 2 * G::TILE_FLOATS;
        mbar_expect_tx(&tbar[st], 2 * G::TILE_BYTES);
        tma_load_3d(t, &mo, i0, j0, p, &tbar[st]);
        tma_load_3d(t + G::TILE_FLOATS, &mv, i0, j0, p, &tbar[st]);
    };

    if (tid == 0) {
        for (int st = 0; st < S + TP; ++st) mbar_init(&bar[st], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (tid == 0) {
        for (int p = kb; p < kb + S && p < kl; ++p) issue(p);
        if (ACOUSTIC && TP > 0)
            for (int p = kb; p < kb + TP && p < ke; ++p) issue_t(p);
    }

    int col[RY];
    bool ok[RY];
#pragma unroll
    for (int m = 0; m < RY; ++m) {
        const int j = j0 + ty + m * BY;
        ok[m] = (i < a.nx) && (j < a.ny);
        col[m] = j * pitch + i;
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

    // Queue: q[m][d] = u(k - R + d); the first 2R values with plain loads.
    const float *__restrict__ u = a.u;
    float q[RY][2 * R + 1];
#pragma unroll
    for (int m = 0; m < RY; ++m) {
#pragma unroll
        for (int d = 0; d < 2 * R; ++d)
            q[m][d] = ok[m] ? u[(long)(kb - R + d) * plane + col[m]] : 0.f;
    }
    for (int p = kb; p < kb + R && p < kl; ++p) wait(p);

    float *__restrict__ out = a.out;
    for (int k = kb; k < ke; ++k) {
        wait(k + R);
        const float *head = ring + ((k + R - kb) % S) * G::STAGE_FLOATS;
        const float *s = ring + ((k - kb) % S) * G::STAGE_FLOATS;
        const float *tt = s + G::BOX_FLOATS; // u_prev tile, then (v dt)^2
        if (ACOUSTIC && TP > 0) {
            const int lp = k - kb;
            mbar_wait(&tbar[lp % TPD], (uint32_t)((lp / TPD) & 1));
            tt = tring + (lp % TPD) * 2 * G::TILE_FLOATS;
        }
#pragma unroll
        for (int m = 0; m < RY; ++m) q[m][2 * R] = head[(ty + m * BY + R) * SW + tx + XL];

        const float qzk = sponge ? a.qz[a.kglob + k] : 0.f;
        float *__restrict__ outk = out + (long)k * plane;
#pragma unroll
        for (int m = 0; m < RY; ++m) {
            const int sc = (ty + m * BY + R) * SW + tx + XL;
            const float uc = q[m][R];
            const float lap = fd_lap<R, ACOUSTIC>(a, s, sc, SW, &q[m][R]);
            if (ok[m]) {
                float r;
                if (ACOUSTIC) {
                    const int tc = (ty + m * BY) * TX + tx;
                    const float up = tt[tc];
                    const float vv = tt[G::TILE_FLOATS + tc];
                    const float qq = qxi + (qyj[m] + qzk);
                    r = fd_acoustic_update(uc, up, vv, lap, qq);
                    if (a.free_surface && a.kglob + k == 0) r = 0.f;
                } else {
                    r = lap;
                }
                outk[col[m]] = r;
            }
        }
#pragma unroll
        for (int m = 0; m < RY; ++m) {
#pragma unroll
            for (int d = 0; d < 2 * R; ++d) q[m][d] = q[m][d + 1];
        }
        __syncthreads(); // every thread is done with plane k's stages
        if (tid == 0) {
            if (k + S < kl) issue(k + S);
            if (ACOUSTIC && TP > 0 && k + TP < ke) issue_t(k + TP);
        }
    }
    // Copies still in flight when the block ends: none (every issued plane < kl was waited:
    // planes kb..kb+R-1 before the loop, k+R inside it, up to ke-1+R = kl-1; tiles of
    // planes < ke at their iteration).
}

} // namespace fdwk
