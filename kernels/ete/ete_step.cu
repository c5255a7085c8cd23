// ete_step.cu — the ETE kind's kernel (fdwk_ete.h): the 2.5D kernel, whose block owns a
// 32 x 8 tile and walks a chunk of z with planes k - 1, k and k + 1 of its tile (x/y halo
// 4) in a ring of three shared-memory stages and its column's z neighbours in a register
// queue, with the table's distinct columns and the bins in shared memory (the default), or
// where the table does not fit, bins and table rows through the read-only cache (the
// fallback); and fdwk_ete_columns, which finds the distinct columns on the host. Both
// evaluate ete_point.cuh's update. The variants measured and dropped: docs/gpu.md.
#include "ete/fdwk_ete.h"
#include "ete/ete_point.cuh"

#include <cuda_runtime.h>
#include <cstring>

namespace fdwk {
namespace {

constexpr int ER = 4; // the 37-point stencil's radius

__device__ __forceinline__ float ete_damping(const fdwk_ete_args &a, int i, int j, int k)
{
    return a.qx ? a.qx[i] + (a.qy[j] + a.qz[a.kglob + k]) : 0.f;
}

// The table in shared memory, its distinct columns transposed: weight s of bin m at
// T[col[s] * stride + m], stride odd, so a warp's 32 gathers of one slot from random bins
// spread over the banks (the 16-float rows of the global table would put every bin's slot s
// in two banks).
struct ete_shared_table {
    const float *T;
    int stride;
    const unsigned char *col;
    __device__ __forceinline__ float operator()(unsigned m, int s) const
    {
        return T[col[s] * stride + (int)m];
    }
};

__host__ __device__ constexpr int ete_tab_stride(int nbins) { return nbins | 1; }

// Shared memory of the 2.5D kernel: three stages of the tile's p; TAB: the table's ncol
// columns first and three stages of its bins after.
template <int TX, int TY, bool TAB>
__host__ __device__ constexpr size_t ete25_smem(int nbins, int ncol)
{
    return TAB ? (size_t)ncol * ete_tab_stride(nbins) * 4 +
                     (size_t)3 * (TY + 2 * ER) * (TX + 2 * ER) * (4 + 2)
               : (size_t)3 * (TY + 2 * ER) * (TX + 2 * ER) * 4;
}

// The 2.5D walk: a block owns a TX x TY tile and walks a chunk of z with planes k - 1, k and
// k + 1 of its tile (x/y halo 4) in a ring of three shared-memory stages and its column's z
// neighbours in a register queue. TAB: the table is copied into shared memory by each
// block and the bins of the three planes sit in a shared ring beside p's (their z
// neighbours in a register queue), so the 36 gathers of a point come from shared memory
// instead of the read-only cache, where a warp's gathers from random bins touch up to 32
// lines each; else bins and table rows come through the read-only cache.
template <int TX, int TY, bool TAB>
__global__ void __launch_bounds__(TX *TY) ete25_kernel(const fdwk_ete_args a)
{
    constexpr int SW = TX + 2 * ER, SH = TY + 2 * ER, SS = SW * SH;
    extern __shared__ __align__(16) unsigned char smem[];
    const int stride = TAB ? ete_tab_stride(a.nbins) : 0;
    float *T = reinterpret_cast<float *>(smem); // TAB: the table
    float *U = T + (TAB ? a.ncol : 0) * stride; // three stages of p
    uint16_t *B = reinterpret_cast<uint16_t *>(U + 3 * SS); // TAB: three stages of bins
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
    const int i = blockIdx.x * TX + tx, j = blockIdx.y * TY + ty;
    const int kb = a.k0 + blockIdx.z * a.zchunk;
    const int ke = min(kb + a.zchunk, a.k1);
    const bool in = i < a.nx && j < a.ny;
    const long plane = a.plane, col = (long)j * a.pitch + i;
    const float *__restrict__ u = a.u;
    const uint16_t *__restrict__ idx = a.idx;
    const int gi0 = blockIdx.x * TX - ER, gj0 = blockIdx.y * TY - ER;

    if (TAB)
        for (int c = 0; c < a.ncol; ++c)
            for (int m = tid; m < a.nbins; m += TX * TY)
                T[c * stride + m] = __ldg(a.tabc + (long)c * a.nbins + m);

    // plane k's tile and halo (p, and with TAB the bins) into a stage; cells outside the
    // padded region (never needed by a point of the grid) read as zero.
    auto load = [&](int st, int k) {
        for (int t = tid; t < SS; t += TX * TY) {
            const int yy = t / SW, xx = t - yy * SW;
            const int gi = gi0 + xx, gj = gj0 + yy;
            float v = 0.f;
            uint16_t bb = 0;
            if (gi >= -ER && gi < a.nx + ER && gj >= -ER && gj < a.ny + ER) {
                const long o = (long)k * plane + (long)gj * a.pitch + gi;
                v = u[o];
                if (TAB) bb = __ldg(idx + o);
            }
            U[st * SS + t] = v;
            if (TAB) B[st * SS + t] = bb;
        }
    };

    float q[2 * ER + 1];     // q[d] = p(k - ER + d) at the thread's column
    unsigned qb[2 * ER + 1]; // TAB: and its bin
#pragma unroll
    for (int d = 0; d < 2 * ER; ++d) {
        q[d] = in ? u[(long)(kb - ER + d) * plane + col] : 0.f;
        if (TAB) qb[d] = in ? __ldg(idx + (long)(kb - ER + d) * plane + col) : 0u;
    }
    int sm = 0, sc = 1, sp = 2; // stages of planes k - 1, k, k + 1
    if (kb < ke) {
        load(sm, kb - 1);
        load(sc, kb);
    }
    const int x = tx + ER, y = ty + ER;
    for (int k = kb; k < ke; ++k) {
        q[2 * ER] = in ? u[(long)(k + ER) * plane + col] : 0.f;
        if (TAB) qb[2 * ER] = in ? __ldg(idx + (long)(k + ER) * plane + col) : 0u;
        load(sp, k + 1);
        __syncthreads();
        if (in) {
            const float *M = U + sm * SS, *C = U + sc * SS, *P = U + sp * SS;
            auto at = [&](int dx, int dy, int dz) -> float {
                const int c = (y + dy) * SW + x + dx;
                if (dz == 0) return C[c];
                if (dx == 0 && dy == 0) return q[ER + dz];
                return dz < 0 ? M[c] : P[c];
            };
            const long o = (long)k * plane + col;
            float l;
            if constexpr (TAB) {
                const uint16_t *BM = B + sm * SS, *BC = B + sc * SS, *BP = B + sp * SS;
                auto bin = [&](int dx, int dy, int dz) -> unsigned {
                    const int c = (y + dy) * SW + x + dx;
                    if (dz == 0) return BC[c];
                    if (dx == 0 && dy == 0) return qb[ER + dz];
                    return dz < 0 ? BM[c] : BP[c];
                };
                l = ete_sum(qb[ER], ete_shared_table{T, stride, a.col}, at, bin);
            } else {
                const uint16_t *__restrict__ ix = idx + o;
                auto bin = [&](int dx, int dy, int dz) -> unsigned {
                    return __ldg(ix + (long)dz * plane + (long)dy * a.pitch + dx);
                };
                l = ete_sum(ix[0], ete_global_table{a.table}, at, bin);
            }
            float r = ete_update(q[ER], a.out[o], l, ete_damping(a, i, j, k));
            if (a.free_surface && a.kglob + k == 0) r = 0.f;
            a.out[o] = r;
        }
        __syncthreads(); // every thread is done with stage sm before it is refilled
        const int t = sm;
        sm = sc;
        sc = sp;
        sp = t;
#pragma unroll
        for (int d = 0; d < 2 * ER; ++d) {
            q[d] = q[d + 1];
            if (TAB) qb[d] = qb[d + 1];
        }
    }
}

int sm_count_now()
{
    int dev = 0, n = 0;
    cudaGetDevice(&dev);
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) n = 1;
    return n;
}

// Planes per block: 64, fewer when that leaves fewer than four blocks per SM.
int zchunk_for(int zchunk, long xy, int nk)
{
    if (zchunk > 0) return zchunk;
    int zc = 64;
    const long want = 4L * sm_count_now();
    if (xy * ((nk + zc - 1) / zc) < want) {
        const long chunks = (want + xy - 1) / xy;
        zc = (int)((nk + chunks - 1) / chunks);
        if (zc < 2 * ER) zc = 2 * ER;
    }
    return zc;
}

// The 2.5D kernel; TAB where the table and the rings fit a block's shared memory, else the
// kernel of the same tile without it (a model of more bins than that).
template <int TX, int TY, bool TAB>
int launch_25d(const fdwk_ete_args &a, int nk, cudaStream_t s)
{
    size_t bytes = ete25_smem<TX, TY, TAB>(a.nbins, a.ncol);
    if (TAB) {
        int dev = 0, optin = 0;
        cudaGetDevice(&dev);
        if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
                cudaSuccess ||
            a.nbins < 1 || !a.tabc || a.ncol < 1 || a.ncol > 16 || bytes > (size_t)optin)
            return launch_25d<TX, TY, false>(a, nk, s);
        const cudaError_t e = cudaFuncSetAttribute(
            ete25_kernel<TX, TY, TAB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (e != cudaSuccess) return (int)e;
    }
    const int gx = (a.nx + TX - 1) / TX, gy = (a.ny + TY - 1) / TY;
    fdwk_ete_args b = a;
    b.zchunk = zchunk_for(a.zchunk, (long)gx * gy, nk);
    dim3 grid(gx, gy, (nk + b.zchunk - 1) / b.zchunk);
    ete25_kernel<TX, TY, TAB><<<grid, dim3(TX, TY), bytes, s>>>(b);
    return (int)cudaGetLastError();
}

} // namespace
} // namespace fdwk

extern "C" int fdwk_ete_step(const fdwk_ete_args *a, fdwk_stream st)
{
    const cudaStream_t s = (cudaStream_t)st;
    const int nk = a->k1 - a->k0;
    if (nk <= 0 || a->nx <= 0 || a->ny <= 0) return 0;
    switch (a->variant) {
    case FDWK_ETE_DEFAULT: return fdwk::launch_25d<32, 8, true>(*a, nk, s);
    case FDWK_ETE_CACHE: return fdwk::launch_25d<32, 8, false>(*a, nk, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int fdwk_ete_columns(const float *table, int nbins, unsigned char col[16], int src[16],
                                float *tabc)
{
    int ncol = 0;
    for (int s = 0; s < 16; s++) {
        int c = 0;
        for (; c < ncol; c++) {
            bool same = true;
            for (int m = 0; m < nbins && same; m++)
                same = memcmp(&table[(size_t)m * 16 + s], &table[(size_t)m * 16 + src[c]],
                              sizeof(float)) == 0;
            if (same) break;
        }
        if (c == ncol) src[ncol++] = s;
        col[s] = (unsigned char)c;
    }
    if (tabc)
        for (int c = 0; c < ncol; c++)
            for (int m = 0; m < nbins; m++)
                tabc[(size_t)c * nbins + m] = table[(size_t)m * 16 + src[c]];
    return ncol;
}

extern "C" const char *fdwk_ete_variant_name(int v)
{
    switch (v) {
    case FDWK_ETE_DEFAULT: return "default (2.5D 32x8, table in shared memory)";
    case FDWK_ETE_CACHE: return "2.5D 32x8, table through the read-only cache (the fallback)";
    default: return nullptr;
    }
}
