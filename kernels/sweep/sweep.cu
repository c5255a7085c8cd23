// sweep.cu — the sweep kind's kernels (fdwk_sweep.h). A sub-sweep is one cooperative launch
// per GPU: every block owns a contiguous range of each plane of one part (the part's plane
// linearised u fastest) and walks the planes in the sweep's order, computing its range with
// the update of engine/kinds/sweep/sweep_point.h (the CPU reference's operations in its
// order; with -fmad=false and correctly rounded sqrt and fma the bits are the CPU's). Before
// plane s a block waits only for the blocks that computed the upwind rows it reads (its own
// part's, and across a cut the neighbour's, on this GPU or a peer: flags written with
// release and read with acquire semantics at GPU or system scope), so there is no grid-wide
// barrier per plane and blocks that are ahead keep the SMs busy. A changed cell next to a cut
// is also written into the neighbour's halo cell, with its brick stamp. Every read of T or
// of a stamp bypasses L1 (ld.global.cg): other SMs change them during the launch.
#include "sweep/fdwk_sweep.h"
#include "../../engine/kinds/sweep/sweep_geom.h"

#include <cuda_runtime.h>

#include <climits>
#include <cstring>
#include <cstdint>

namespace {

constexpr int SHIFT = 3; // bricks of 8 x 8 x 8 cells (engine/kinds/sweep/sweep_parts.h)

template <typename R> struct Geo;
template <> struct Geo<double> { using type = sw_geo_d; };
template <> struct Geo<float> { using type = sw_geo_f; };

template <typename R> struct Args {
    typename Geo<R>::type geo;
    const fdwk_sweep_part *parts;
    int nparts, P, sign, cut_u, epoch, skip_before, nosync;
};

__device__ __forceinline__ unsigned long long ld_acquire(const unsigned long long *p, bool sys)
{
    unsigned long long v;
    if (sys)
        asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    else
        asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void st_release(unsigned long long *p, unsigned long long v, bool sys)
{
    if (sys)
        asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
    else
        asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// The block of a part of nb blocks over n cells that owns cell q (blocks own
// [b n / nb, (b + 1) n / nb)).
__device__ __forceinline__ int owner(long long q, long long n, int nb)
{
    return (int)(((q + 1) * nb - 1) / n);
}

// Warp 0 waits until every flag of blocks [lo, hi] has reached need.
__device__ __forceinline__ void wait_flags(const unsigned long long *flags, int lo, int hi,
                                           unsigned long long need, bool sys)
{
    for (int i = lo + (int)threadIdx.x; i <= hi; i += 32)
        while (ld_acquire(flags + i, sys) < need)
            __nanosleep(40);
}

__device__ __forceinline__ long long brick(const fdwk_sweep_view &w, int u, int v, int p)
{
    return (long long)((u + 1) >> SHIFT) * w.bu + (long long)((v + 1) >> SHIFT) * w.bv +
           (long long)((p + 1) >> SHIFT) * w.bp;
}

template <typename R>
__device__ __forceinline__ R update(const typename Geo<R>::type *g, const R *t, R told, R S,
                                    bool field)
{
    if constexpr (sizeof(R) == 8)
        return field ? sw_update_field_d(g, t, told, S) : sw_update_randers_d(g, t, told);
    else
        return field ? sw_update_field_f(g, t, told, S) : sw_update_randers_f(g, t, told);
}

// The dependencies of a block covering rows [v0, v1] of its part (U x V cells): its own
// part's blocks [lo[0], hi[0]] and, across the cut, each neighbour's [lo[s], hi[s]] (empty:
// lo > hi).
struct Deps {
    int lo[3], hi[3];
};

__device__ Deps block_deps(const fdwk_sweep_part &pt, int v0, int v1, bool cut_u)
{
    Deps d;
    const int U = pt.w.U, V = pt.w.V;
    const long long n = (long long)U * V;
    long long a = (long long)(v0 > 0 ? v0 - 1 : 0) * U;
    long long b = (long long)(v1 + 2 < V ? v1 + 2 : V) * U;
    d.lo[0] = owner(a, n, pt.nblocks);
    d.hi[0] = owner(b - 1, n, pt.nblocks);
    for (int s = 0; s < 2; s++) {
        d.lo[s + 1] = 1;
        d.hi[s + 1] = 0;
        const int nb = pt.nb_blocks[s];
        if (nb == 0)
            continue;
        const int nU = pt.nb[s].U, nV = pt.nb[s].V;
        const long long nn = (long long)nU * nV;
        if (cut_u) { // the same rows, across the cut
            a = (long long)(v0 > 0 ? v0 - 1 : 0) * nU;
            b = (long long)(v1 + 2 < nV ? v1 + 2 : nV) * nU;
        } else if (s == 0 && v0 == 0) { // its last row
            a = (long long)(nV - 1) * nU;
            b = nn;
        } else if (s == 1 && v1 == V - 1) { // its first row
            a = 0;
            b = nU;
        } else {
            continue;
        }
        d.lo[s + 1] = owner(a, nn, nb);
        d.hi[s + 1] = owner(b - 1, nn, nb);
    }
    return d;
}

template <typename R, bool FIELD>
__global__ void __launch_bounds__(512) subsweep_kernel(const __grid_constant__ Args<R> a)
{
    int pi = 0;
    while (pi + 1 < a.nparts && (int)blockIdx.x >= a.parts[pi + 1].block0)
        pi++;
    const fdwk_sweep_part &pt = a.parts[pi];
    const fdwk_sweep_view w = pt.w;
    const int b = (int)blockIdx.x - pt.block0;
    const long long n = (long long)w.U * w.V;
    const long long q0 = b * n / pt.nblocks, q1 = (b + 1) * n / pt.nblocks;
    const int v0 = (int)(q0 / w.U), v1 = q1 > q0 ? (int)((q1 - 1) / w.U) : v0;
    const bool cut_u = a.cut_u != 0;
    const Deps dep = block_deps(pt, v0, v1, cut_u);
    const bool remote = pt.nb_remote[0] || pt.nb_remote[1];
    R *T = (R *)w.t;
    const R *S = (const R *)w.s;
    const R inf = (R)INFINITY;
    double mx = 0.0;
    unsigned long long changed = 0, reached = 0, computed = 0;
    const unsigned long long tag = (unsigned long long)(unsigned)a.epoch << 32;
    // this thread's first cell of each plane; later ones by steps of blockDim.x
    const long long qt = q0 + threadIdx.x;
    const int ut = (int)(qt % w.U), vt = (int)(qt / w.U);
    for (int s = 1; s < a.P; s++) {
        const int p = a.sign > 0 ? s : a.P - 1 - s, pu = p - a.sign;
        if (s >= 2 && !a.nosync) {
            if (threadIdx.x < 32) {
                const unsigned long long need = tag | (unsigned)(s - 1);
                wait_flags(pt.flags, dep.lo[0], dep.hi[0], need, false);
                for (int k = 0; k < 2; k++)
                    if (dep.lo[k + 1] <= dep.hi[k + 1])
                        wait_flags(pt.nb_flags[k], dep.lo[k + 1], dep.hi[k + 1], need,
                                   pt.nb_remote[k] != 0);
            }
            __syncthreads();
        }
        const long long up = (long long)pu * w.sp, at_p = (long long)p * w.sp;
        const long long bpu = (long long)((pu + 1) >> SHIFT) * w.bp;
        int u = ut - (int)blockDim.x, v = vt;
        for (long long q = qt; q < q1; q += blockDim.x) {
            u += (int)blockDim.x;
            while (u >= w.U) {
                u -= w.U;
                v++;
            }
            if (a.skip_before != INT_MIN) {
                const long long bu0 = (long long)(u >> SHIFT) * w.bu;
                const long long bu1 = (long long)((u + 2) >> SHIFT) * w.bu;
                const long long bv0 = (long long)(v >> SHIFT) * w.bv;
                const long long bv1 = (long long)((v + 2) >> SHIFT) * w.bv;
                int m = __ldcg(w.stamp + bpu + bv0 + bu0);
                m = max(m, __ldcg(w.stamp + bpu + bv0 + bu1));
                m = max(m, __ldcg(w.stamp + bpu + bv1 + bu0));
                m = max(m, __ldcg(w.stamp + bpu + bv1 + bu1));
                if (m < a.skip_before)
                    continue;
            }
            R t[9];
#pragma unroll
            for (int qq = -1; qq <= 1; qq++)
#pragma unroll
                for (int pp = -1; pp <= 1; pp++)
                    t[3 * (qq + 1) + (pp + 1)] =
                        __ldcg(T + (long long)(u + pp) * w.su + (long long)(v + qq) * w.sv + up);
            const long long at = (long long)u * w.su + (long long)v * w.sv + at_p;
            const R told = __ldcg(T + at);
            const R tnew = update<R>(&a.geo, t, told, FIELD ? __ldg(S + at) : (R)0, FIELD);
            computed++;
            if (!(tnew < told))
                continue;
            T[at] = tnew;
            w.stamp[brick(w, u, v, p)] = a.epoch;
            changed++;
            if (told == inf)
                reached++;
            else
                mx = fmax(mx, (double)(told - tnew));
            const int cu = cut_u ? u : v, cn = cut_u ? w.U : w.V;
            for (int side = 0; side < 2; side++) {
                if (pt.nb_blocks[side] == 0 || (side ? cu != cn - 1 : cu != 0))
                    continue;
                const fdwk_sweep_view &nw = pt.nb[side];
                const int hc = side ? -1 : (cut_u ? nw.U : nw.V);
                const int hu = cut_u ? hc : u, hv = cut_u ? v : hc;
                ((R *)nw.t)[(long long)hu * nw.su + (long long)hv * nw.sv +
                            (long long)p * nw.sp] = tnew;
                nw.stamp[brick(nw, hu, hv, p)] = a.epoch;
            }
        }
        if (!a.nosync) {
            __syncthreads();
            if (threadIdx.x == 0) {
                if (remote)
                    __threadfence_system();
                else
                    __threadfence();
                st_release(pt.flags + b, tag | (unsigned)s, remote);
            }
        }
    }
    // the block's figures: warp sums and maxima, then one atomic each per warp
    for (int o = 16; o > 0; o >>= 1) {
        mx = fmax(mx, __shfl_down_sync(0xffffffffu, mx, o));
        changed += __shfl_down_sync(0xffffffffu, changed, o);
        reached += __shfl_down_sync(0xffffffffu, reached, o);
        computed += __shfl_down_sync(0xffffffffu, computed, o);
    }
    if ((threadIdx.x & 31) == 0) {
        if (mx > 0.0)
            atomicMax(pt.stats, (unsigned long long)__double_as_longlong(mx));
        atomicAdd(pt.stats + 1, changed);
        atomicAdd(pt.stats + 2, reached);
        atomicAdd(pt.stats + 3, computed);
    }
}

template <typename R, bool FIELD> const void *subsweep_fn()
{
    return (const void *)subsweep_kernel<R, FIELD>;
}

const void *pick(int f64, int field)
{
    if (f64)
        return field ? subsweep_fn<double, true>() : subsweep_fn<double, false>();
    return field ? subsweep_fn<float, true>() : subsweep_fn<float, false>();
}

template <typename R> int launch(const fdwk_sweep_launch *l, cudaStream_t st)
{
    Args<R> a;
    memcpy(&a.geo, l->geo, sizeof a.geo);
    a.parts = l->parts;
    a.nparts = l->nparts;
    a.P = l->P;
    a.sign = l->sign;
    a.cut_u = l->cut_u;
    a.epoch = l->epoch;
    a.skip_before = l->skip_before;
    a.nosync = l->nosync;
    void *params[1] = {&a};
    cudaError_t rc = cudaLaunchCooperativeKernel(pick(sizeof(R) == 8, l->field), dim3(l->blocks),
                                                 dim3(l->threads), params, 0, st);
    return rc != cudaSuccess ? (int)rc : (int)cudaGetLastError();
}

// ---- shuffles, fills, packs -------------------------------------------------------------

struct Box {
    void *t;
    int32_t *stamp;
    int lo[3];
    long long stride[3], bstride[3];
};

__device__ __forceinline__ long long cell(const Box &b, int x, int y, int z)
{
    return (long long)(x - b.lo[0] + 1) * b.stride[0] + (long long)(y - b.lo[1] + 1) * b.stride[1] +
           (long long)(z - b.lo[2] + 1) * b.stride[2];
}

__device__ __forceinline__ long long cell_brick(const Box &b, int x, int y, int z)
{
    return (long long)((x - b.lo[0] + 1) >> SHIFT) * b.bstride[0] +
           (long long)((y - b.lo[1] + 1) >> SHIFT) * b.bstride[1] +
           (long long)((z - b.lo[2] + 1) >> SHIFT) * b.bstride[2];
}

Box box_of(const fdwk_sweep_box *b)
{
    Box o;
    o.t = b->t;
    o.stamp = b->stamp;
    for (int k = 0; k < 3; k++) {
        o.lo[k] = b->lo[k];
        o.stride[k] = b->stride[k];
        o.bstride[k] = b->bstride[k];
    }
    return o;
}

struct CopyArgs {
    Box src, dst;
    int fa, fb;                // the tile's axes: a (src fastest), b (dst fastest), 0 x / 1 y
    int lo[3], hi[3];
    int copy_after, epoch, stamped;
};

// 32 x 32 tiles of (a, b) per z, transposed through shared memory: coalesced reads along
// the source's fastest axis and writes along the destination's.
template <typename R> __global__ void __launch_bounds__(256) copy_kernel(const CopyArgs c)
{
    __shared__ R tile[32][33];
    const int a0 = c.lo[c.fa] + (int)blockIdx.x * 32, b0 = c.lo[c.fb] + (int)blockIdx.y * 32;
    const int z = c.lo[2] + (int)blockIdx.z;
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    int xyz[3];
    xyz[2] = z;
    if (c.stamped) {
        int any = 0;
        for (int k = 0; k < 4; k++) {
            const int ca = a0 + tx, cb = b0 + ty + 8 * k;
            if (ca < c.hi[c.fa] && cb < c.hi[c.fb]) {
                xyz[c.fa] = ca;
                xyz[c.fb] = cb;
                any |= __ldcg(c.src.stamp + cell_brick(c.src, xyz[0], xyz[1], xyz[2])) >
                       c.copy_after;
            }
        }
        if (!__syncthreads_or(any))
            return;
    }
    const R *src = (const R *)c.src.t;
    for (int k = 0; k < 4; k++) {
        const int ca = a0 + tx, cb = b0 + ty + 8 * k;
        if (ca < c.hi[c.fa] && cb < c.hi[c.fb]) {
            xyz[c.fa] = ca;
            xyz[c.fb] = cb;
            tile[ty + 8 * k][tx] = __ldcg(src + cell(c.src, xyz[0], xyz[1], xyz[2]));
        }
    }
    __syncthreads();
    R *dst = (R *)c.dst.t;
    for (int k = 0; k < 4; k++) {
        const int cb = b0 + tx, ca = a0 + ty + 8 * k;
        if (ca < c.hi[c.fa] && cb < c.hi[c.fb]) {
            xyz[c.fa] = ca;
            xyz[c.fb] = cb;
            const R v = tile[tx][ty + 8 * k];
            const long long at = cell(c.dst, xyz[0], xyz[1], xyz[2]);
            if (!c.stamped) {
                dst[at] = v;
            } else if (dst[at] != v) {
                dst[at] = v;
                c.dst.stamp[cell_brick(c.dst, xyz[0], xyz[1], xyz[2])] = c.epoch;
            }
        }
    }
}

template <typename R> __global__ void fill_kernel(R *p, long long n, R v)
{
    for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < n;
         q += (long long)gridDim.x * blockDim.x)
        p[q] = v;
}

// Cells [lo, hi) of a box, x fastest: the cell of linear index q.
__device__ __forceinline__ void cell_of(long long q, const int *lo, const int *hi, int *xyz)
{
    const long long nx = hi[0] - lo[0], ny = hi[1] - lo[1];
    xyz[0] = lo[0] + (int)(q % nx);
    xyz[1] = lo[1] + (int)(q / nx % ny);
    xyz[2] = lo[2] + (int)(q / (nx * ny));
}

struct IoArgs {
    Box box;
    int lo[3], hi[3];
    long long n;
};

template <typename R> __global__ void unpack_kernel(const double *src, const IoArgs io)
{
    R *t = (R *)io.box.t;
    for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < io.n;
         q += (long long)gridDim.x * blockDim.x) {
        int c[3];
        cell_of(q, io.lo, io.hi, c);
        const double v = src[q];
        t[cell(io.box, c[0], c[1], c[2])] = (R)v;
        if (io.box.stamp && v < INFINITY)
            io.box.stamp[cell_brick(io.box, c[0], c[1], c[2])] = 0;
    }
}

template <typename R, typename O> __global__ void pack_kernel(const IoArgs io, O *dst)
{
    const R *t = (const R *)io.box.t;
    for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < io.n;
         q += (long long)gridDim.x * blockDim.x) {
        int c[3];
        cell_of(q, io.lo, io.hi, c);
        dst[q] = (O)t[cell(io.box, c[0], c[1], c[2])];
    }
}

IoArgs io_of(const fdwk_sweep_box *b, const int lo[3], const int hi[3])
{
    IoArgs io;
    io.box = box_of(b);
    io.n = 1;
    for (int k = 0; k < 3; k++) {
        io.lo[k] = lo[k];
        io.hi[k] = hi[k];
        io.n *= hi[k] > lo[k] ? hi[k] - lo[k] : 0;
    }
    return io;
}

int grid_for(long long n)
{
    const long long g = (n + 255) / 256;
    return (int)(g < 65536 ? (g > 0 ? g : 1) : 65536);
}

int last() { return (int)cudaGetLastError(); }

} // namespace

extern "C" int fdwk_sweep_occupancy(int f64, int field, int threads, int *blocks_per_sm,
                                    int *sms)
{
    int dev = 0;
    cudaError_t rc = cudaGetDevice(&dev);
    if (rc == cudaSuccess)
        rc = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
    if (rc == cudaSuccess)
        rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, pick(f64, field),
                                                           threads, 0);
    return (int)rc;
}

extern "C" int fdwk_sweep_subsweep(const fdwk_sweep_launch *l, fdwk_stream s)
{
    const size_t want = l->f64 ? sizeof(sw_geo_d) : sizeof(sw_geo_f);
    if (l->geo_bytes != want || l->threads < 32 || l->threads > 512 || l->blocks < 1)
        return (int)cudaErrorInvalidValue;
    return l->f64 ? launch<double>(l, (cudaStream_t)s) : launch<float>(l, (cudaStream_t)s);
}

extern "C" int fdwk_sweep_copy(const fdwk_sweep_box *src, int src_fast, const fdwk_sweep_box *dst,
                               int dst_fast, const int lo[3], const int hi[3], int f64,
                               int copy_after, int epoch, fdwk_stream s)
{
    if (src_fast == dst_fast || src_fast < 0 || src_fast > 1 || dst_fast < 0 || dst_fast > 1)
        return (int)cudaErrorInvalidValue;
    CopyArgs c;
    c.src = box_of(src);
    c.dst = box_of(dst);
    c.fa = src_fast;
    c.fb = dst_fast;
    for (int k = 0; k < 3; k++) {
        c.lo[k] = lo[k];
        c.hi[k] = hi[k];
        if (hi[k] <= lo[k])
            return 0;
    }
    c.copy_after = copy_after;
    c.epoch = epoch;
    c.stamped = src->stamp && dst->stamp;
    for (int z = lo[2]; z < hi[2]; z += 65535) { /* the grid's z dimension holds 65535 */
        c.lo[2] = z;
        c.hi[2] = hi[2] - z > 65535 ? z + 65535 : hi[2];
        const dim3 grid((unsigned)((hi[c.fa] - lo[c.fa] + 31) / 32),
                        (unsigned)((hi[c.fb] - lo[c.fb] + 31) / 32), (unsigned)(c.hi[2] - z));
        if (f64)
            copy_kernel<double><<<grid, dim3(32, 8), 0, (cudaStream_t)s>>>(c);
        else
            copy_kernel<float><<<grid, dim3(32, 8), 0, (cudaStream_t)s>>>(c);
        const int rc = last();
        if (rc)
            return rc;
    }
    return 0;
}

extern "C" int fdwk_sweep_fill(void *p, long long n, int f64, double value, fdwk_stream s)
{
    if (n <= 0)
        return 0;
    if (f64)
        fill_kernel<double><<<grid_for(n), 256, 0, (cudaStream_t)s>>>((double *)p, n, value);
    else
        fill_kernel<float><<<grid_for(n), 256, 0, (cudaStream_t)s>>>((float *)p, n, (float)value);
    return last();
}

extern "C" int fdwk_sweep_unpack(const double *src, const fdwk_sweep_box *dst, const int lo[3],
                                 const int hi[3], int f64, fdwk_stream s)
{
    const IoArgs io = io_of(dst, lo, hi);
    if (io.n <= 0)
        return 0;
    if (f64)
        unpack_kernel<double><<<grid_for(io.n), 256, 0, (cudaStream_t)s>>>(src, io);
    else
        unpack_kernel<float><<<grid_for(io.n), 256, 0, (cudaStream_t)s>>>(src, io);
    return last();
}

extern "C" int fdwk_sweep_pack(const fdwk_sweep_box *src, const int lo[3], const int hi[3],
                               int f64, void *dst, int out_f64, fdwk_stream s)
{
    const IoArgs io = io_of(src, lo, hi);
    if (io.n <= 0)
        return 0;
    const cudaStream_t st = (cudaStream_t)s;
    if (f64 && out_f64)
        pack_kernel<double, double><<<grid_for(io.n), 256, 0, st>>>(io, (double *)dst);
    else if (f64)
        pack_kernel<double, float><<<grid_for(io.n), 256, 0, st>>>(io, (float *)dst);
    else if (out_f64)
        pack_kernel<float, double><<<grid_for(io.n), 256, 0, st>>>(io, (double *)dst);
    else
        pack_kernel<float, float><<<grid_for(io.n), 256, 0, st>>>(io, (float *)dst);
    return last();
}
