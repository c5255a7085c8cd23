// img_back.cu — the boundary scheme's backward pass on the GPU (fdwk_imaging.h): one kernel
// per time step that steps the adjoint field z and the background u back in time together
// and adds the image's term, so the pass moves u[n+1] and z[n+2] (their stencils), u[n+2],
// z[n+3], V and the image once: 36 bytes a point against 16 + 16 + 16 for the steps and the
// sum apart. It is the 2.5D kernel of common/fd25.cuh (Micikevicius 2009 on Hopper: a ring
// of shared-memory stages filled by bulk tensor copies, each thread 4 x points and their
// z neighbours in registers) with both fields' boxes in each stage, and a second ring of two
// stages for the point tiles read once (V, u[n+2], z[n+3]), a plane ahead; the sums come
// straight from global memory as 16-byte vectors. And the band's copies, one thread a band
// point.
#include "imaging/fdwk_imaging.h"
#include "common/fd_launch.cuh"
#include "common/fd_point.cuh"
#include "common/tma.cuh"
#include <cuda_runtime.h>

namespace fdwk {
namespace {

// 4 values at p (all4: one 16-byte load; else those of the grid).
__device__ __forceinline__ void load4(const float *p, bool all4, const bool (&ok)[4], float (&v)[4])
{
    if (all4) {
        const float4 w = *reinterpret_cast<const float4 *>(p);
        v[0] = w.x, v[1] = w.y, v[2] = w.z, v[3] = w.w;
    } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) v[e] = ok[e] ? p[e] : 0.f;
    }
}

__device__ __forceinline__ void store4(float *p, bool all4, const bool (&ok)[4], const float (&v)[4])
{
    if (all4) {
        *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
            if (ok[e]) p[e] = v[e];
    }
}

// Two rings: S stages of the two boxes (plane k's x/y neighbours, plane k + R's centre for
// the queues), and T = 2 stages of plane k's point tiles (V, u[n+2], z[n+3]), filled a
// plane ahead, so no point value waits on a global load.
// 4 values at p where in[e] (the interior's points; allin: all four, one 16-byte store).
__device__ __forceinline__ void store_in(float *p, bool allin, const bool (&in)[4],
                                         const float (&v)[4])
{
    if (allin) {
        *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
            if (in[e]) p[e] = v[e];
    }
}

template <int R, int TX, int TY, int L>
struct back_geom {
    using G = tma_geom<R, TX, TY, L, false>;
    static constexpr int T = 2;
    static constexpr int STAGE = 2 * G::BOX_FLOATS;  // u box, z box
    static constexpr int TSTAGE = 3 * G::TILE_FLOATS; // V, u[n+2], z[n+3]
    static constexpr int SMEM = G::S * STAGE * 4 + T * TSTAGE * 4 + (G::S + T) * 8 + 128;
};

// Two blocks an SM up to radius 4 (their rings fit its shared memory; 128 registers a
// thread), one above.
template <int R, int TXV, int BY, int L>
__global__ void __launch_bounds__(TXV * BY, R <= 4 ? 2 : 1)
back25_kernel(const fdwk_img_back_args a, const __grid_constant__ CUtensorMap mu,
              const __grid_constant__ CUtensorMap mz, const __grid_constant__ CUtensorMap mv,
              const __grid_constant__ CUtensorMap muo, const __grid_constant__ CUtensorMap mzo)
{
    constexpr int TX = 4 * TXV, TY = BY;
    using B = back_geom<R, TX, TY, L>;
    using G = typename B::G;
    constexpr int SW = G::SW, XL = G::XL, S = G::S;

    extern __shared__ unsigned char smem_raw[];
    float *ring = reinterpret_cast<float *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 127) & ~static_cast<uintptr_t>(127));
    float *tiles = ring + S * B::STAGE;
    uint64_t *bar = reinterpret_cast<uint64_t *>(tiles + B::T * B::TSTAGE), *tbar = bar + S;

    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TXV + tx;
    const int i0 = blockIdx.x * TX, j0 = blockIdx.y * TY;
    const int xq = 4 * tx, i = i0 + xq, j = j0 + ty;
    const int kb = blockIdx.z * a.zchunk;
    const int ke = min(kb + a.zchunk, a.nz);
    const int kl = ke + R;
    const long plane = a.plane;

    auto issue = [&](int p) {
        const int st = (p - kb) % S;
        float *stage = ring + st * B::STAGE;
        mbar_expect_tx(&bar[st], 2 * G::BOX_BYTES);
        tma_load_3d(stage, &mu, i0, j0, p + R, &bar[st]);
        tma_load_3d(stage + G::BOX_FLOATS, &mz, i0, j0, p + R, &bar[st]);
    };
    auto issue_tiles = [&](int p) {
        const int st = (p - kb) % B::T;
        float *stage = tiles + st * B::TSTAGE;
        mbar_expect_tx(&tbar[st], 3 * G::TILE_BYTES);
        tma_load_3d(stage, &mv, i0, j0, p, &tbar[st]);
        tma_load_3d(stage + G::TILE_FLOATS, &muo, i0, j0, p, &tbar[st]);
        tma_load_3d(stage + 2 * G::TILE_FLOATS, &mzo, i0, j0, p, &tbar[st]);
    };
    auto wait = [&](int p) {
        const int lp = p - kb;
        mbar_wait(&bar[lp % S], (uint32_t)((lp / S) & 1));
    };
    auto wait_tiles = [&](int p) {
        const int lp = p - kb;
        mbar_wait(&tbar[lp % B::T], (uint32_t)((lp / B::T) & 1));
    };

    ring_init(bar, S + B::T, tid);
    if (tid == 0) {
        for (int p = kb; p < kb + S && p < kl; ++p) issue(p);
        for (int p = kb; p < kb + B::T && p < ke; ++p) issue_tiles(p);
    }

    const bool rowok = j < a.ny;
    bool ok[4], in[4];
    const bool jin = j >= a.box.lo[1] && j < a.box.hi[1];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        ok[e] = rowok && (i + e < a.nx);
        in[e] = ok[e] && jin && i + e >= a.box.lo[0] && i + e < a.box.hi[0];
    }
    const bool all4 = rowok && (i + 3 < a.nx);
    const bool allin = all4 && in[0] && in[1] && in[2] && in[3];
    const long col = (long)j * a.pitch + i;

    float qxi[4] = {0.f, 0.f, 0.f, 0.f}, qyj = 0.f;
    const bool sponge = a.qx != nullptr;
    if (sponge) {
#pragma unroll
        for (int e = 0; e < 4; ++e) qxi[e] = i + e < a.nx ? a.qx[i + e] : 0.f;
        qyj = rowok ? a.qy[j] : 0.f;
    }

    // the queues: qu[e][d] = u(k - R + d), qz likewise, at column i + e (one float a load:
    // 16-byte loads here measured no faster on an H200, 2026-12-03)
    float qu[4][2 * R + 1], qz[4][2 * R + 1];
#pragma unroll
    for (int d = 0; d < 2 * R; ++d) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const long o = (long)(kb - R + d) * plane + col + e;
            qu[e][d] = ok[e] ? a.u[o] : 0.f;
            qz[e][d] = ok[e] ? a.z[o] : 0.f;
        }
    }
    for (int p = kb; p < kb + R && p < kl; ++p) wait(p);

    const int rc = (ty + R) * SW + xq;
    for (int k = kb; k < ke; ++k) {
        // the sums' values first, so their loads fly while the stages' copies land (loading
        // them a plane ahead instead measured slower on an H200, 2026-12-03)
        const long o = (long)k * plane + col;
        const bool kin = k >= a.box.lo[2] && k < a.box.hi[2];
        const bool dou = a.do_u && kin, doi = a.do_img && kin && k >= a.k0;
        float im[4];
        if (doi) load4(a.img + o, all4, ok, im);
        wait(k + R);
        {
            const float *head = ring + ((k + R - kb) % S) * B::STAGE;
            const float4 hu = *reinterpret_cast<const float4 *>(head + rc + XL);
            const float4 hz = *reinterpret_cast<const float4 *>(head + G::BOX_FLOATS + rc + XL);
            qu[0][2 * R] = hu.x, qu[1][2 * R] = hu.y, qu[2][2 * R] = hu.z, qu[3][2 * R] = hu.w;
            qz[0][2 * R] = hz.x, qz[1][2 * R] = hz.y, qz[2][2 * R] = hz.z, qz[3][2 * R] = hz.w;
        }
        const float *s = ring + ((k - kb) % S) * B::STAGE;
        float lu[4], lz[4];
        box_lap<R, SW, XL>(a, s, rc, qu, 0, lu);
        box_lap<R, SW, XL>(a, s + G::BOX_FLOATS, rc, qz, 0, lz);
        wait_tiles(k);
        const float *t = tiles + ((k - kb) % B::T) * B::TSTAGE + ty * TX + xq;
        float vv[4], up[4], zp[4];
        {
            const float4 v4 = *reinterpret_cast<const float4 *>(t);
            const float4 u4 = *reinterpret_cast<const float4 *>(t + G::TILE_FLOATS);
            const float4 z4 = *reinterpret_cast<const float4 *>(t + 2 * G::TILE_FLOATS);
            vv[0] = v4.x, vv[1] = v4.y, vv[2] = v4.z, vv[3] = v4.w;
            up[0] = u4.x, up[1] = u4.y, up[2] = u4.z, up[3] = u4.w;
            zp[0] = z4.x, zp[1] = z4.y, zp[2] = z4.z, zp[3] = z4.w;
        }
        const bool zero = a.free_surface && k == 0;
        if (doi) { // the image's term: u[n+1] with z[n+2]
#pragma unroll
            for (int e = 0; e < 4; ++e)
                im[e] = im[e] + (a.xcorr ? qu[e][R] * qz[e][R] : lu[e] * qz[e][R]);
            store_in(a.img + o, allin, in, im);
            if (a.ill) {
                float il[4];
                load4(a.ill + o, all4, ok, il);
#pragma unroll
                for (int e = 0; e < 4; ++e) il[e] = il[e] + qu[e][R] * qu[e][R];
                store_in(a.ill + o, allin, in, il);
            }
        }
        {
            const float qzk = sponge ? a.qz[k] : 0.f;
            float r[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const float v = fd_acoustic_update(qz[e][R], zp[e], vv[e], lz[e],
                                                   qxi[e] + (qyj + qzk));
                r[e] = zero ? 0.f : v;
            }
            store4(a.zo + o, all4, ok, r);
        }
        if (dou) {
            float r[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) r[e] = zero ? 0.f : (2.f * qu[e][R] - up[e]) + vv[e] * lu[e];
            store_in(a.uo + o, allin, in, r);
        }
#pragma unroll
        for (int e = 0; e < 4; ++e) {
#pragma unroll
            for (int d = 0; d < 2 * R; ++d) qu[e][d] = qu[e][d + 1], qz[e][d] = qz[e][d + 1];
        }
        __syncthreads(); // every thread is done with plane k's stages
        if (tid == 0 && k + S < kl) issue(k + S);
        if (tid == 0 && k + B::T < ke) issue_tiles(k + B::T);
    }
}

// Radius R's launch: 64 x 16 tiles (64 x 8 from radius 5: the two boxes of the ring
// fit a block's shared memory), one plane in flight beyond the ring.
template <int R>
int launch_back(const fdwk_img_back_args &a, cudaStream_t s)
{
    constexpr int TXV = 16, BY = R <= 4 ? 16 : 8, L = 1, TX = 4 * TXV;
    using B = back_geom<R, TX, BY, L>;
    using G = typename B::G;
    auto kern = back25_kernel<R, TXV, BY, L>;
    static std::atomic<unsigned long long> raised{0};
    if (const int e = raise_smem(kern, B::SMEM, raised)) return e;
    const int gx = (a.nx + TX - 1) / TX, gy = (a.ny + BY - 1) / BY;
    fdwk_img_back_args b = a;
    if (b.zchunk <= 0) // 48 planes, fewer where that leaves fewer than two blocks an SM
        b.zchunk = fit_zchunk(48, (long)gx * gy, a.nz, 2L * sm_count(), R);
    CUtensorMap mu, mz, mv, muo, mzo;
    int e = make_box_map(&mu, a.u, a.nx, a.ny, a.nz, a.pitch, a.plane, R, G::XL, G::SW, G::SH);
    if (!e)
        e = make_box_map(&mz, a.z, a.nx, a.ny, a.nz, a.pitch, a.plane, R, G::XL, G::SW, G::SH);
    if (!e) e = make_map(&mv, a.vdt2, a.nx, a.ny, a.nz, a.pitch, a.plane, TX, BY);
    if (!e) e = make_map(&muo, a.uo, a.nx, a.ny, a.nz, a.pitch, a.plane, TX, BY);
    if (!e) e = make_map(&mzo, a.zo, a.nx, a.ny, a.nz, a.pitch, a.plane, TX, BY);
    if (e) return e;
    dim3 grid(gx, gy, (a.nz + b.zchunk - 1) / b.zchunk);
    kern<<<grid, dim3(TXV, BY), B::SMEM, s>>>(b, mu, mz, mv, muo, mzo);
    return (int)cudaGetLastError();
}

// Band point idx's (i, j, k): first the rows of the grown box wholly in the band (the
// planes below the interior, the rows beside it in its planes, the planes above), then
// the two pieces of each row through the interior. I is the index type: 32 bits where
// the band's points allow (the divisions are most of the copy's work; 64-bit ones cost
// several times as much).
template <typename I>
struct band_shape {
    fdwk_img_box b;
    I nlow, nmid, nfull; // rows below, rows beside; points of whole rows
    I DW, DH, IH, PW;
};

template <typename I>
__device__ __forceinline__ void band_point(const band_shape<I> &g, I idx, int &i, int &j, int &k)
{
    const fdwk_img_box &b = g.b;
    if (idx < g.nfull) {
        const I r = idx / g.DW;
        i = b.dlo[0] + (int)(idx - r * g.DW);
        if (r < g.nlow) {
            const I q = r / g.DH;
            k = b.dlo[2] + (int)q, j = b.dlo[1] + (int)(r - q * g.DH);
        } else if (r < g.nlow + g.nmid) {
            const I t = r - g.nlow, side = g.DH - g.IH, q = t / side;
            const int m = (int)(t - q * side), below = b.lo[1] - b.dlo[1];
            k = b.lo[2] + (int)q;
            j = m < below ? b.dlo[1] + m : b.hi[1] + (m - below);
        } else {
            const I t = r - g.nlow - g.nmid, q = t / g.DH;
            k = b.hi[2] + (int)q, j = b.dlo[1] + (int)(t - q * g.DH);
        }
    } else {
        const I t = idx - g.nfull, rr = t / g.PW, q = rr / g.IH;
        const int x = (int)(t - rr * g.PW), left = b.lo[0] - b.dlo[0];
        k = b.lo[2] + (int)q, j = b.lo[1] + (int)(rr - q * g.IH);
        i = x < left ? b.dlo[0] + x : b.hi[0] + (x - left);
    }
}

// V band points a thread, their loads all in flight before the stores (one point a
// thread left the copy waiting on memory latency: 47 us for 5.4 M points on an H200).
constexpr int BAND_V = 8;

template <typename I>
__global__ void band_kernel(float *field, float *store, band_shape<I> g, long pitch, long plane,
                            I points, int save)
{
    const I stride = (I)gridDim.x * blockDim.x;
    const I first = (I)blockIdx.x * blockDim.x + threadIdx.x;
    float *f[BAND_V];
    float v[BAND_V];
#pragma unroll
    for (int e = 0; e < BAND_V; ++e) {
        const I idx = first + (I)e * stride;
        if (idx < points) {
            int i, j, k;
            band_point(g, idx, i, j, k);
            f[e] = field + (long)k * plane + (long)j * pitch + i;
            v[e] = save ? *f[e] : store[idx];
        }
    }
#pragma unroll
    for (int e = 0; e < BAND_V; ++e) {
        const I idx = first + (I)e * stride;
        if (idx < points) {
            if (save)
                store[idx] = v[e];
            else
                *f[e] = v[e];
        }
    }
}

template <typename I>
int launch_band(float *field, float *store, const fdwk_img_box *b, long pitch, long plane,
                long long points, int save, cudaStream_t s)
{
    band_shape<I> g;
    g.b = *b;
    g.DW = b->dhi[0] - b->dlo[0], g.DH = b->dhi[1] - b->dlo[1];
    g.IH = b->hi[1] - b->lo[1], g.PW = g.DW - (b->hi[0] - b->lo[0]);
    g.nlow = (I)(b->lo[2] - b->dlo[2]) * g.DH;
    g.nmid = (I)(b->hi[2] - b->lo[2]) * (g.DH - g.IH);
    g.nfull = (g.nlow + g.nmid + (I)(b->dhi[2] - b->hi[2]) * g.DH) * g.DW;
    const int threads = 256;
    const unsigned blocks = (unsigned)((points + (long long)threads * BAND_V - 1) /
                                       ((long long)threads * BAND_V));
    band_kernel<I><<<blocks, threads, 0, s>>>(field, store, g, pitch, plane, (I)points, save);
    return (int)cudaGetLastError();
}

} // namespace
} // namespace fdwk

extern "C" int fdwk_img_backward(const fdwk_img_back_args *a, fdwk_stream st)
{
    const cudaStream_t s = (cudaStream_t)st;
    if (a->nx <= 0 || a->ny <= 0 || a->nz <= 0) return 0;
    switch (a->radius) {
    case 1: return fdwk::launch_back<1>(*a, s);
    case 2: return fdwk::launch_back<2>(*a, s);
    case 3: return fdwk::launch_back<3>(*a, s);
    case 4: return fdwk::launch_back<4>(*a, s);
    case 5: return fdwk::launch_back<5>(*a, s);
    case 6: return fdwk::launch_back<6>(*a, s);
    case 7: return fdwk::launch_back<7>(*a, s);
    case 8: return fdwk::launch_back<8>(*a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int fdwk_img_band(float *field, float *store, const fdwk_img_box *b, long pitch,
                             long plane, long long points, int save, fdwk_stream st)
{
    if (points <= 0) return 0;
    const cudaStream_t s = (cudaStream_t)st;
    return points < (1LL << 32) - 256LL * fdwk::BAND_V
               ? fdwk::launch_band<unsigned>(field, store, b, pitch, plane, points, save, s)
               : fdwk::launch_band<unsigned long long>(field, store, b, pitch, plane, points,
                                                       save, s);
}
