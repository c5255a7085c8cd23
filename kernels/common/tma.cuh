// tma.cuh — the Hopper data path of the 2.5D kernel (fd25.cuh): the shared-memory geometry
// of a ring of plane stages, mbarrier helpers and the bulk tensor copy (TMA,
// cp.async.bulk.tensor) that fills a stage. One elected thread issues a plane's copies; the
// copy engine zero-fills out-of-bounds box cells, which matches the zero padding of the
// layout, so the kernel needs no edge branches on its loads.
#pragma once
#include <cuda.h>
#include <cstdint>

namespace fdwk {

// Shared-memory geometry of one configuration: a TX x TY tile, XL floats of x halo (R
// rounded up to 4 so every box row starts 16-byte aligned in global memory), S = R + 1 + L
// stages (the z queue's R + 1 planes plus L in flight), each holding the u box and, for
// the acoustic kind, the u_prev and (v dt)^2 tiles; sizes rounded to 128 bytes (the bulk
// copy's shared-memory alignment).
template <int R, int TX, int TY, int L, bool AC>
struct tma_geom {
    static constexpr int XL = (R + 3) / 4 * 4;
    static constexpr int SW = TX + 2 * XL;
    static constexpr int SH = TY + 2 * R;
    static constexpr int S = R + 1 + L;
    static constexpr int BOX_BYTES = SW * SH * 4;
    static constexpr int TILE_BYTES = TX * TY * 4;
    static constexpr int BOX_FLOATS = (BOX_BYTES + 127) / 128 * 32;
    static constexpr int TILE_FLOATS = (TILE_BYTES + 127) / 128 * 32;
    static constexpr int STAGE_FLOATS = BOX_FLOATS + (AC ? 2 * TILE_FLOATS : 0);
    static constexpr int SMEM_BYTES = S * STAGE_FLOATS * 4 + S * 8 + 128; // + barriers, slack
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

// The ring's S stage barriers, one arrival each, made by thread 0 and fenced for the copy
// engine; the block waits for them before any copy is issued.
__device__ __forceinline__ void ring_init(uint64_t *bar, int S, int tid)
{
    if (tid == 0) {
        for (int st = 0; st < S; ++st) mbar_init(&bar[st], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
}

} // namespace fdwk
