// cpml.cu — the CPML absorbing layer's two passes (engine/run/backend.h states the recursion):
// psi_A = b psi_A + a D1_A u on every layer point of axis A, then zeta_A = b zeta_A +
// a (D2_A u + D1_A psi_A) and u' += (v dt)^2 (D1_A psi_A + zeta_A). They run one axis after
// the other (x, y, z) with the CPU reference's operations in its order, so the two backends
// agree bit for bit; psi and zeta live only on the layer points (compact arrays, see
// fdwk_pml_args). Both passes run after the update, in one kernel per axis (fdwk_pml_psi
// has nothing to do): x through shared-memory row pieces (xwalk_kernel), y and z by one
// thread per column walking its layers (walk_kernel). Where the two layers of an axis are
// closer than the stencil radius (or x layers are wider than XW_MAX), one thread per layer
// point does psi before the update (psi_kernel) and zeta after it (zeta_kernel).
#include "acoustic/fdwk_acoustic.h"
#include <cuda_runtime.h>

namespace {

struct Pml {
    int nx, ny, n, w0, w1, W, kglob, k0, nk, fs;
    int klo, khi;              // local planes the call covers (the z pass checks them)
    long pitch, plane, count;
    const float *a, *b, *u, *vdt2;
    float *out, *psi, *zeta;
    float d1[FDWK_MAX_RADIUS + 1], d2[FDWK_MAX_RADIUS + 1];
};

// The two sums every pass evaluates, f(m) giving the value at distance m along the axis,
// in the CPU reference's order: D1 f = sum_m d1[m] (f(m) - f(-m)), m = 1..R, and
// D2 f = d2[0] f(0) + sum_m d2[m] (f(-m) + f(m)).
template <int R, class F>
__device__ __forceinline__ float first_diff(const float *d1, F f)
{
    float d = d1[1] * (f(1) - f(-1));
#pragma unroll
    for (int m = 2; m <= R; ++m) d += d1[m] * (f(m) - f(-m));
    return d;
}

template <int R, class F>
__device__ __forceinline__ float second_diff(const float *d2, F f)
{
    float d = d2[0] * f(0);
#pragma unroll
    for (int m = 1; m <= R; ++m) d += d2[m] * (f(-m) + f(m));
    return d;
}

// Global index along the axis of layer index l.
__device__ __forceinline__ int layer_to_global(const Pml &p, int l)
{
    return l < p.w0 ? l : p.n - p.w1 + (l - p.w0);
}

// Layer index of global index g along the axis, or -1 outside the layers and the grid.
__device__ __forceinline__ int global_to_layer(const Pml &p, int g)
{
    if (g < 0 || g >= p.n) return -1;
    if (g < p.w0) return g;
    if (g >= p.n - p.w1) return p.w0 + g - (p.n - p.w1);
    return -1;
}

// The pass's item of this thread on a 3-D grid (fast index on x: l for the x axis, i for
// y and z; middle on y: j, l, j; slow on z: the plane, or for the z axis the layer index
// from k0): its global index g along the axis, local plane k, and its offsets in the field
// (fo) and in the compact psi/zeta arrays (po). False past the ends. (A flat index with
// 64-bit divisions cost more than the pass's memory traffic.)
template <int AXIS>
__device__ __forceinline__ bool decode(const Pml &p, int &g, int &k, long &fo, long &po)
{
    const int f = blockIdx.x * blockDim.x + threadIdx.x;
    const int m = blockIdx.y * blockDim.y + threadIdx.y;
    const int sl = p.k0 + blockIdx.z;
    int i, j, l;
    if (AXIS == 0) {
        if (f >= p.W || m >= p.ny) return false;
        l = f;
        j = m;
        k = sl;
        g = layer_to_global(p, l);
        i = g;
        po = ((long)k * p.ny + j) * p.W + l;
    } else if (AXIS == 1) {
        if (f >= p.nx || m >= p.W) return false;
        i = f;
        l = m;
        k = sl;
        g = layer_to_global(p, l);
        j = g;
        po = ((long)k * p.W + l) * p.nx + i;
    } else {
        if (f >= p.nx || m >= p.ny) return false;
        i = f;
        j = m;
        l = sl;
        g = layer_to_global(p, l);
        k = g - p.kglob;
        po = ((long)l * p.ny + j) * p.nx + i;
    }
    fo = (long)k * p.plane + (long)j * p.pitch + i;
    return true;
}

template <int AXIS>
__device__ __forceinline__ long axis_stride(const Pml &p)
{
    return AXIS == 0 ? 1L : AXIS == 1 ? p.pitch : p.plane;
}

// Compact-array offset of the neighbour at distance m along the axis.
template <int AXIS>
__device__ __forceinline__ long neighbour_po(const Pml &p, long po, int l, int l2)
{
    if (AXIS == 0) return po - l + l2;
    if (AXIS == 1) return po + (long)(l2 - l) * p.nx;
    return po + (long)(l2 - l) * p.ny * p.nx;
}

template <int AXIS, int R>
__global__ void psi_kernel(const Pml p)
{
    int g, k;
    long fo, po;
    if (!decode<AXIS>(p, g, k, fo, po)) return;
    if (AXIS == 2 && (k < p.klo || k >= p.khi)) return;
    const long st = axis_stride<AXIS>(p);
    const float *u = p.u + fo;
    const float d = first_diff<R>(p.d1, [&](int m) { return u[m * st]; });
    p.psi[po] = p.b[g] * p.psi[po] + p.a[g] * d;
}

template <int AXIS, int R>
__global__ void zeta_kernel(const Pml p)
{
    int g, k;
    long fo, po;
    if (!decode<AXIS>(p, g, k, fo, po)) return;
    if (AXIS == 2 && (k < p.klo || k >= p.khi)) return;
    const int l = global_to_layer(p, g);
    const long st = axis_stride<AXIS>(p);
    const float *u = p.u + fo;
    // Layers at least R apart: a neighbour is a layer point exactly when it is on the same
    // side (the same test global_to_layer makes, without its branches).
    const bool apart = p.n - p.w0 - p.w1 >= R;
    const int lb = l < p.w0 ? 0 : p.w0, le = l < p.w0 ? p.w0 : p.W;
    const float gp = first_diff<R>(p.d1, [&](int m) {
        const int lm = apart ? (l + m >= lb && l + m < le ? l + m : -1) : global_to_layer(p, g + m);
        return lm >= 0 ? p.psi[neighbour_po<AXIS>(p, po, l, lm)] : 0.f;
    });
    const float d2 = second_diff<R>(p.d2, [&](int m) { return u[m * st]; });
    const float z = p.b[g] * p.zeta[po] + p.a[g] * (d2 + gp);
    p.zeta[po] = z;
    if (p.fs && p.kglob + k == 0) return; // the free surface keeps u' = 0 on global plane 0
    p.out[fo] = p.out[fo] + p.vdt2[fo] * (gp + z);
}

// y and z, both passes in one kernel: a thread owns one column (x index i and the other
// index) of one of the axis's two layers and walks it twice, first updating psi
// in place as psi_kernel does (no other thread reads this column's psi), then zeta and the
// correction of u' as zeta_kernel does, from the psi it has just written. The same
// operations in the same order as the two passes, so the same bits; one launch instead of
// two per axis, u read from DRAM once (the second walk finds it in L2), and u and psi
// held in register windows along the column (one new load of each per step). Valid when the two layers of the axis are at
// least R points apart (fused_ok), so no psi neighbour lies in the other layer.
template <int AXIS, int R>
__global__ void walk_kernel(const Pml p)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int o = blockIdx.y * blockDim.y + threadIdx.y; // AXIS 1: local plane k0 + o; 2: j
    if (i >= p.nx) return;
    if (AXIS == 1 ? p.k0 + o >= p.k0 + p.nk : o >= p.ny) return;
    const long st = AXIS == 1 ? p.pitch : p.plane;
    {
        const int side = blockIdx.z; // 0: the layer at index 0, 1: the one at the far end
        const int lb = side ? p.w0 : 0, le = side ? p.W : p.w0; // layer indices of this side
        if (le <= lb) return;
        // offsets of layer index l: field fo(l) = fb + g(l) * st, compact po(l) = pb + l * ps
        long fb, pb, ps;
        int kfix = 0; // AXIS 1: the local plane
        if (AXIS == 1) {
            kfix = p.k0 + o;
            fb = (long)kfix * p.plane + i;
            pb = (long)kfix * p.W * p.nx + i;
            ps = p.nx;
        } else {
            fb = (long)o * p.pitch + i - (long)p.kglob * p.plane;
            pb = (long)o * p.nx + i;
            ps = (long)p.ny * p.nx;
        }
        int l0 = lb, l1 = le;
        if (AXIS == 2) { // the part's planes only: local k = g - kglob in [klo, khi)
            while (l0 < l1 && layer_to_global(p, l0) - p.kglob < p.klo) ++l0;
            while (l1 > l0 && layer_to_global(p, l1 - 1) - p.kglob >= p.khi) --l1;
            if (l1 <= l0) return;
        }
        // Within a side, layer index l lies at g0 + (l - l0). Register windows along the
        // column: U[k] = u(g - R + k) and P[k] = psi(l - R + k) (0 off this layer), so each
        // step loads one new u (and psi) instead of 2R + 1.
        const int g0 = layer_to_global(p, l0);
        const float *uc = p.u + fb + (long)g0 * st;
        float U[2 * R + 1];
#pragma unroll
        for (int k = 0; k <= 2 * R; ++k) U[k] = uc[(long)(k - R) * st];
        for (int l = l0; l < l1; ++l) {
            const int g = g0 + (l - l0);
            const float d = first_diff<R>(p.d1, [&](int m) { return U[R + m]; });
            float *ps_ = p.psi + pb + (long)l * ps;
            *ps_ = p.b[g] * *ps_ + p.a[g] * d;
            if (l + 1 < l1) {
#pragma unroll
                for (int k = 0; k < 2 * R; ++k) U[k] = U[k + 1];
                U[2 * R] = uc[(long)(l + 1 - l0 + R) * st];
            }
        }
        const float *pc = p.psi + pb + (long)l0 * ps;
        float P[2 * R + 1];
#pragma unroll
        for (int k = 0; k <= 2 * R; ++k) {
            const int lk = l0 - R + k;
            P[k] = lk >= lb && lk < le ? pc[(long)(k - R) * ps] : 0.f;
            U[k] = uc[(long)(k - R) * st];
        }
        for (int l = l0; l < l1; ++l) {
            const int g = g0 + (l - l0);
            const long fo = fb + (long)g * st;
            const float gp = first_diff<R>(p.d1, [&](int m) { return P[R + m]; });
            const float d2 = second_diff<R>(p.d2, [&](int m) { return U[R + m]; });
            float *zp = p.zeta + pb + (long)l * ps;
            const float z = p.b[g] * *zp + p.a[g] * (d2 + gp);
            *zp = z;
            const int kg = AXIS == 1 ? p.kglob + kfix : g;
            if (!(p.fs && kg == 0)) // the free surface keeps u' = 0 on global plane 0
                p.out[fo] = p.out[fo] + p.vdt2[fo] * (gp + z);
            if (l + 1 < l1) {
#pragma unroll
                for (int k = 0; k < 2 * R; ++k) {
                    U[k] = U[k + 1];
                    P[k] = P[k + 1];
                }
                U[2 * R] = uc[(long)(l + 1 - l0 + R) * st];
                P[2 * R] = l + 1 + R < le ? pc[(long)(l + 1 - l0 + R) * ps] : 0.f;
            }
        }
    }
}

// x, both passes in one kernel, after the update: a block holds, for one plane and one
// side, the rows' layer pieces of u (with R halo points each side) and then their new psi
// in shared memory, so u and psi are read from DRAM once (psi_kernel and zeta_kernel
// read them twice, and x-layer pieces are short: 40-80 bytes per row). Thread t of the
// block owns row t / ws and layer point t % ws of its side (ws points wide, at most
// XW_MAX). The same operations in the same order as the two passes, so the same bits.
// Valid when the two layers are at least R points apart (xwalk_ok).
constexpr int XW_THREADS = 256, XW_MAX = 128;

template <int R>
__global__ void __launch_bounds__(XW_THREADS) xwalk_kernel(const Pml p, int rows)
{
    extern __shared__ float xs[];
    const int side = blockIdx.y;
    const int ws = side ? p.w1 : p.w0;            // this side's layer points per row
    if (ws == 0) return;
    const int wmax = p.w0 > p.w1 ? p.w0 : p.w1;   // the shared tile's row length
    float *su = xs;                               // rows x (wmax + 2R): u(g0 - R ...)
    float *sp = xs + rows * (wmax + 2 * R);       // rows x wmax: the new psi
    const int k = p.k0 + blockIdx.z;
    const int j0 = blockIdx.x * rows;
    const int g0 = side ? p.n - p.w1 : 0;         // global x of the side's first point
    const int lbase = side ? p.w0 : 0;            // its compact layer index
    const int uw = ws + 2 * R;
    const float *urow0 = p.u + (long)k * p.plane + (long)j0 * p.pitch + g0 - R;
    const int r = threadIdx.x / ws, l = threadIdx.x - r * ws;
    const int j = j0 + r;
    const bool mine = r < rows && j < p.ny;
    const int g = g0 + l;
    const long po = ((long)k * p.ny + j) * p.W + lbase + l;
    const long fo = (long)k * p.plane + (long)j * p.pitch + g;
    // Every load this thread's point needs is issued before the first barrier, next to
    // the tile's, so the block waits on memory once.
    float psi0 = 0.f, zeta0 = 0.f, out0 = 0.f, vv = 0.f, ag = 0.f, bg = 0.f;
    if (mine) {
        psi0 = p.psi[po];
        zeta0 = p.zeta[po];
        out0 = p.out[fo];
        vv = p.vdt2[fo];
        ag = p.a[g];
        bg = p.b[g];
    }
    for (int t = threadIdx.x; t < rows * uw; t += XW_THREADS) {
        const int tr = t / uw, c = t - tr * uw;
        if (j0 + tr < p.ny) su[tr * (wmax + 2 * R) + c] = urow0[(long)tr * p.pitch + c];
    }
    __syncthreads();
    const float *uu = su + r * (wmax + 2 * R) + R + l; // u at this point
    if (mine) {
        const float d = first_diff<R>(p.d1, [&](int m) { return uu[m]; });
        const float ps = bg * psi0 + ag * d;
        p.psi[po] = ps;
        sp[r * wmax + l] = ps;
    }
    __syncthreads();
    if (!mine) return;
    const float *pr = sp + r * wmax;
    const float gp = first_diff<R>(p.d1, [&](int m) {
        return l + m >= 0 && l + m < ws ? pr[l + m] : 0.f;
    });
    const float d2 = second_diff<R>(p.d2, [&](int m) { return uu[m]; });
    const float z = bg * zeta0 + ag * (d2 + gp);
    p.zeta[po] = z;
    if (p.fs && p.kglob + k == 0) return; // the free surface keeps u' = 0 on global plane 0
    p.out[fo] = out0 + vv * (gp + z);
}

// Whether xwalk_kernel may do the x axis's two passes (see there).
bool xwalk_ok(const Pml &p, int radius)
{
    return p.n - p.w0 - p.w1 >= radius && p.w0 <= XW_MAX && p.w1 <= XW_MAX;
}

template <int R>
int launch_xwalk(const Pml &p, cudaStream_t s)
{
    const int wmax = p.w0 > p.w1 ? p.w0 : p.w1;
    const int rows = XW_THREADS / wmax;
    const size_t shm = sizeof(float) * (size_t)rows * (2 * wmax + 2 * R);
    for (int z0 = 0; z0 < p.nk; z0 += 65535) { // grid.z's limit
        Pml q = p;
        q.k0 = p.k0 + z0;
        q.nk = p.nk - z0 < 65535 ? p.nk - z0 : 65535;
        const dim3 grid((p.ny + rows - 1) / rows, 2, q.nk);
        xwalk_kernel<R><<<grid, XW_THREADS, shm, s>>>(q, rows);
    }
    return (int)cudaGetLastError();
}

// Whether walk_kernel may do axis a's two passes (see there).
bool fused_ok(const Pml &p, int axis, int radius)
{
    return axis != 0 && p.n - p.w0 - p.w1 >= radius;
}

template <int AXIS, int R>
int launch_walk(const Pml &p, cudaStream_t s)
{
    const int no = AXIS == 1 ? p.nk : p.ny;
    const dim3 block(32, 4), grid((p.nx + 31) / 32, (no + 3) / 4, 2); // z: the two layers
    if (grid.y > 65535) return (int)cudaErrorInvalidConfiguration;
    walk_kernel<AXIS, R><<<grid, block, 0, s>>>(p);
    return (int)cudaGetLastError();
}

template <int AXIS, int R>
int launch_r(const Pml &p, bool zeta, cudaStream_t s)
{
    if (fused_ok(p, AXIS, R)) // psi is done with zeta, after the update (walk_kernel)
        return zeta ? launch_walk<AXIS, R>(p, s) : 0;
    if constexpr (AXIS == 0) {
        if (xwalk_ok(p, R)) // the same for x (xwalk_kernel)
            return zeta ? launch_xwalk<R>(p, s) : 0;
    }
    const int nf = AXIS == 0 ? p.W : p.nx;  // fast, middle, slow extents (see decode)
    const int nm = AXIS == 1 ? p.W : p.ny;
    // x: 8 layer points by 32 rows, so a 40-point layer pair fills every lane
    const int bx = AXIS == 0 ? 8 : 32, by = AXIS == 0 ? 32 : 8;
    for (int z0 = 0; z0 < p.nk; z0 += 65535) { // grid.z's limit
        Pml q = p;
        q.k0 = p.k0 + z0;
        q.nk = p.nk - z0 < 65535 ? p.nk - z0 : 65535;
        const dim3 block(bx, by), grid((nf + bx - 1) / bx, (nm + by - 1) / by, q.nk);
        if (zeta)
            zeta_kernel<AXIS, R><<<grid, block, 0, s>>>(q);
        else
            psi_kernel<AXIS, R><<<grid, block, 0, s>>>(q);
    }
    return (int)cudaGetLastError();
}

template <int AXIS>
int launch_axis(const Pml &p, int radius, bool zeta, cudaStream_t s)
{
    switch (radius) {
    case 1: return launch_r<AXIS, 1>(p, zeta, s);
    case 2: return launch_r<AXIS, 2>(p, zeta, s);
    case 3: return launch_r<AXIS, 3>(p, zeta, s);
    case 4: return launch_r<AXIS, 4>(p, zeta, s);
    case 5: return launch_r<AXIS, 5>(p, zeta, s);
    case 6: return launch_r<AXIS, 6>(p, zeta, s);
    case 7: return launch_r<AXIS, 7>(p, zeta, s);
    case 8: return launch_r<AXIS, 8>(p, zeta, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

int run_pass(const fdwk_pml_args *a, bool zeta, cudaStream_t s)
{
    if (a->axis < 0 || a->axis > 2 || a->radius < 1 || a->radius > FDWK_MAX_RADIUS)
        return (int)cudaErrorInvalidValue;
    Pml p;
    p.nx = a->nx;
    p.ny = a->ny;
    p.n = a->n;
    p.w0 = a->w0;
    p.w1 = a->w1;
    p.W = a->w0 + a->w1;
    p.kglob = a->kglob;
    p.pitch = a->pitch;
    p.plane = a->plane;
    p.a = a->a;
    p.b = a->b;
    p.u = a->u;
    p.vdt2 = a->vdt2;
    p.out = a->out;
    p.psi = a->psi;
    p.zeta = a->zeta;
    p.fs = a->free_surface;
    for (int m = 0; m <= FDWK_MAX_RADIUS; ++m) {
        p.d1[m] = a->d1[m];
        p.d2[m] = a->d2[m];
    }
    p.klo = a->k0;
    p.khi = a->k1;
    if (p.W <= 0 || a->k1 <= a->k0) return 0;
    if (a->axis == 2) {
        // Layer indices whose planes lie in local [k0, k1).
        int l0 = -1, l1 = -1;
        for (int l = 0; l < p.W; ++l) {
            const int g = l < p.w0 ? l : p.n - p.w1 + (l - p.w0);
            const int k = g - p.kglob;
            if (k >= a->k0 && k < a->k1) {
                if (l0 < 0) l0 = l;
                l1 = l + 1;
            }
        }
        if (l0 < 0) return 0;
        p.k0 = l0;
        p.nk = l1 - l0;
        p.count = (long)p.nk * p.ny * p.nx;
    } else {
        p.k0 = a->k0;
        p.nk = a->k1 - a->k0;
        p.count = (long)p.nk * p.W * (a->axis == 0 ? p.ny : p.nx);
    }
    if (p.count <= 0) return 0;
    switch (a->axis) {
    case 0: return launch_axis<0>(p, a->radius, zeta, s);
    case 1: return launch_axis<1>(p, a->radius, zeta, s);
    default: return launch_axis<2>(p, a->radius, zeta, s);
    }
}

} // namespace

extern "C" int fdwk_pml_psi(const fdwk_pml_args *a, fdwk_stream s)
{
    return run_pass(a, false, (cudaStream_t)s);
}

extern "C" int fdwk_pml_zeta(const fdwk_pml_args *a, fdwk_stream s)
{
    return run_pass(a, true, (cudaStream_t)s);
}
