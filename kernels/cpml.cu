// cpml.cu — the CPML absorbing layer's two passes (engine/backend.h states the recursion):
// psi_A = b psi_A + a D1_A u on every layer point of axis A, then zeta_A = b zeta_A +
// a (D2_A u + D1_A psi_A) and u' += (v dt)^2 (D1_A psi_A + zeta_A). They run after the
// stencil update of the same planes and before the sources, one axis after the other
// (x, y, z), with the CPU reference's operations in its order, so the two backends agree
// bit for bit. The layers are thin, so a plain one-thread-per-layer-point kernel is used;
// psi and zeta live only on the layer points (compact arrays, see fdwk_pml_args).
#include "kernels.h"
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
    float d = p.d1[1] * (u[st] - u[-st]);
#pragma unroll
    for (int m = 2; m <= R; ++m) d += p.d1[m] * (u[m * st] - u[-m * st]);
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
    float gp = 0.f;
#pragma unroll
    for (int m = 1; m <= R; ++m) {
        const int lp = global_to_layer(p, g + m), lm = global_to_layer(p, g - m);
        const float fp = lp >= 0 ? p.psi[neighbour_po<AXIS>(p, po, l, lp)] : 0.f;
        const float fm = lm >= 0 ? p.psi[neighbour_po<AXIS>(p, po, l, lm)] : 0.f;
        if (m == 1)
            gp = p.d1[1] * (fp - fm);
        else
            gp += p.d1[m] * (fp - fm);
    }
    float d2 = p.d2[0] * u[0];
#pragma unroll
    for (int m = 1; m <= R; ++m) d2 += p.d2[m] * (u[-m * st] + u[m * st]);
    const float z = p.b[g] * p.zeta[po] + p.a[g] * (d2 + gp);
    p.zeta[po] = z;
    if (p.fs && p.kglob + k == 0) return; // the free surface keeps u' = 0 on global plane 0
    p.out[fo] = p.out[fo] + p.vdt2[fo] * (gp + z);
}

template <int AXIS, int R>
int launch_r(const Pml &p, bool zeta, cudaStream_t s)
{
    const int nf = AXIS == 0 ? p.W : p.nx;  // fast, middle, slow extents (see decode)
    const int nm = AXIS == 1 ? p.W : p.ny;
    for (int z0 = 0; z0 < p.nk; z0 += 65535) { // grid.z's limit
        Pml q = p;
        q.k0 = p.k0 + z0;
        q.nk = p.nk - z0 < 65535 ? p.nk - z0 : 65535;
        const dim3 block(32, 8), grid((nf + 31) / 32, (nm + 7) / 8, q.nk);
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
