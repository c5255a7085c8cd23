// sweep.cu — the sweep kind's kernels (fdwk_sweep.h). A sub-sweep is one cooperative launch
// per GPU: every block owns a contiguous range of each plane of one part (the part's plane
// linearised u fastest, with the cells beyond its cuts that it also computes) and walks the
// planes in the sweep's order, computing its range with the update of
// engine/kinds/sweep/sweep_point.h (the CPU reference's operations in its order; with
// -fmad=false and correctly rounded sqrt and fma the bits are the CPU's). Before plane s a
// block waits only for the blocks that computed the upwind rows it reads: its own part's
// every plane, and across a cut the neighbour's every W planes (the reach; flags written
// with release and read with acquire semantics at GPU or system scope), so there is no
// grid-wide barrier per plane, blocks that are ahead keep the SMs busy, and GPUs wait for
// each other once per W planes. Between those waits a part also computes the neighbour's
// cells within W - k of the cut at the k-th plane (exactly the cells whose upwind cone lies
// in what it holds), with the same inputs and operations as their owner, so every value
// ever stored into a cell during the sub-sweep is that cell's final value and the races
// between a part's copy and its owner's store are between equal bits. A changed own cell
// within W of a cut is also written into the neighbour's copy, with its brick stamp. The
// planes before the first whose upwind plane holds a change (a pre-pass over the stamps) are
// skipped without waiting. Every read of T or of a stamp bypasses L1 (ld.global.cg): other
// SMs change them during the launch.
#include "sweep/fdwk_sweep.h"
#include "sweep/sweep_walk.h"

#include <cuda_runtime.h>

#include <climits>
#include <cstring>
#include <cstdint>

namespace {

using swk::SHIFT;

template <typename R> struct Geo;
template <> struct Geo<double> { using type = sw_geo_d; };
template <> struct Geo<float> { using type = sw_geo_f; };

template <typename R> struct Args {
    typename Geo<R>::type geo;
    const fdwk_sweep_part *parts;
    const int *const *acts;
    int nparts, nacts, P, sign, cut_u, epoch, skip_before, nosync, reach;
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

// Warp 0 waits until every flag of blocks [lo, hi] has reached need.
__device__ __forceinline__ void wait_flags(const unsigned long long *flags, int lo, int hi,
                                           unsigned long long need, bool sys)
{
    for (int i = lo + (int)threadIdx.x; i <= hi; i += 32)
        while (ld_acquire(flags + i, sys) < need)
            __nanosleep(40);
}

// The sub-sweep: each block walks the planes from the first that can change (sweep_walk.h
// says what it computes and whom it waits for); a flag per block says which step it has
// finished (the epoch in the high half, so older sub-sweeps' flags are always smaller).
template <typename R, bool FIELD>
__global__ void __launch_bounds__(512) subsweep_kernel(const __grid_constant__ Args<R> a)
{
    const bool cut_u = a.cut_u != 0;
    const swk::Block k = swk::block_of(a.parts, a.nparts, (int)blockIdx.x, cut_u);
    const fdwk_sweep_part &pt = a.parts[k.pi];
    const fdwk_sweep_view w = pt.w; // in registers: the cells' loop reads it throughout
    const bool remote = pt.nb_remote[0] || pt.nb_remote[1];
    const int s_first = a.acts ? swk::first_step(a.acts, a.nacts, a.P, a.sign) : 1;
    swk::Figures f = {0.0, 0, 0, 0};
    const unsigned long long tag = (unsigned long long)(unsigned)a.epoch << 32;
    // this thread's first cell of each plane; later ones by steps of blockDim.x
    const long long qt = k.q0 + threadIdx.x;
    const int ct = (int)(qt % k.x.Ul), rt = (int)(qt / k.x.Ul);
    for (int s = s_first; s < a.P; s++) {
        if (s > s_first && !a.nosync) {
            if (threadIdx.x < 32) {
                const unsigned long long need = tag | (unsigned)(s - 1);
                wait_flags(pt.flags, k.lo[0], k.hi[0], need, false);
                if (swk::waits_across(s, a.reach))
                    for (int j = 0; j < 2; j++)
                        if (k.lo[j + 1] <= k.hi[j + 1])
                            wait_flags(pt.nb_flags[j], k.lo[j + 1], k.hi[j + 1], need,
                                       pt.nb_remote[j] != 0);
            }
            __syncthreads();
        }
        const swk::Plane pl = swk::plane_of(w, cut_u, a.P, a.sign, s, a.reach,
                                            a.skip_before, a.epoch);
        int col = ct - (int)blockDim.x, row = rt;
        for (long long q = qt; q < k.q1; q += blockDim.x) {
            col += (int)blockDim.x;
            while (col >= k.x.Ul) {
                col -= k.x.Ul;
                row++;
            }
            swk::cell<R, FIELD>(&a.geo, w, pt, k.x, pl, col, row, f);
        }
        if (!a.nosync) {
            __syncthreads();
            if (threadIdx.x == 0) {
                if (remote)
                    __threadfence_system();
                else
                    __threadfence();
                st_release(pt.flags + k.b, tag | (unsigned)s, remote);
            }
        }
    }
    // the block's figures: warp sums and maxima, then one atomic each per warp
    double mx = f.mx;
    unsigned long long changed = f.changed, reached = f.reached, computed = f.computed;
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

// The pre-pass (fdwk_sweep_active): the least and greatest layer of the bricks stamped at or
// after skip_before.
__global__ void active_kernel(const int32_t *stamp, long long nbricks, long long ls, int nl,
                              int skip_before, int *act)
{
    int lo = INT_MAX, hi = -1;
    for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < nbricks;
         q += (long long)gridDim.x * blockDim.x)
        if (stamp[q] >= skip_before) {
            const int l = (int)(q / ls % nl);
            lo = l < lo ? l : lo;
            hi = l > hi ? l : hi;
        }
    for (int o = 16; o > 0; o >>= 1) {
        lo = min(lo, __shfl_down_sync(0xffffffffu, lo, o));
        hi = max(hi, __shfl_down_sync(0xffffffffu, hi, o));
    }
    if ((threadIdx.x & 31) == 0 && lo <= hi) {
        atomicMin(act, lo);
        atomicMax(act + 1, hi);
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
    a.acts = l->acts;
    a.nacts = l->nacts;
    a.reach = l->reach;
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
    int lo[3];                 /* less the padding: cell g is element sum (g - lo) stride */
    long long stride[3], bstride[3];
};

__device__ __forceinline__ long long cell(const Box &b, int x, int y, int z)
{
    return (long long)(x - b.lo[0]) * b.stride[0] + (long long)(y - b.lo[1]) * b.stride[1] +
           (long long)(z - b.lo[2]) * b.stride[2];
}

__device__ __forceinline__ long long cell_brick(const Box &b, int x, int y, int z)
{
    return (long long)((x - b.lo[0]) >> SHIFT) * b.bstride[0] +
           (long long)((y - b.lo[1]) >> SHIFT) * b.bstride[1] +
           (long long)((z - b.lo[2]) >> SHIFT) * b.bstride[2];
}

Box box_of(const fdwk_sweep_box *b)
{
    Box o;
    o.t = b->t;
    o.stamp = b->stamp;
    for (int k = 0; k < 3; k++) {
        o.lo[k] = b->lo[k] - b->pad[k];
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
    if (l->geo_bytes != want || l->threads < 32 || l->threads > 512 || l->blocks < 1 ||
        l->reach < 1)
        return (int)cudaErrorInvalidValue;
    return l->f64 ? launch<double>(l, (cudaStream_t)s) : launch<float>(l, (cudaStream_t)s);
}

extern "C" int fdwk_sweep_active(const int32_t *stamp, long long nbricks, long long layer_stride,
                                 int nlayers, int skip_before, int *act, fdwk_stream s)
{
    const cudaStream_t st = (cudaStream_t)s;
    cudaError_t rc = cudaMemsetAsync(act, 0x7f, sizeof(int), st); /* a large positive */
    if (rc == cudaSuccess)
        rc = cudaMemsetAsync(act + 1, 0xff, sizeof(int), st); /* -1 */
    if (rc != cudaSuccess)
        return (int)rc;
    if (nbricks <= 0 || layer_stride <= 0 || nlayers <= 0)
        return 0;
    const long long g = (nbricks + 255) / 256;
    active_kernel<<<(unsigned)(g < 1024 ? g : 1024), 256, 0, st>>>(stamp, nbricks, layer_stride,
                                                                   nlayers, skip_before, act);
    return last();
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
