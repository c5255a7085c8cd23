// img_cpml.cu — the imaging kinds' CPML kernels (fdwk_img_cpml.h): one thread per point of
// a line along an axis (the line's index fastest across threads, so the y and z axes'
// accesses coalesce; the layer or band index on grid.y), each point computed with the CPU
// engine's operations in its order (engine/kinds/imaging/cpu_imaging_cpml.c: the same line
// decoding, the same sums from m = 1 up; -fmad=false), one launch per pass and axis on the
// stream, so every pass sees the whole of the pass before, as the CPU's lines do.
#include "imaging/fdwk_img_cpml.h"
#include <cuda_runtime.h>

namespace {

struct Line {
    long base, st;   // field offset of the line's global index 0 along the axis; stride
    long pbase, pst; // compact offset of its layer index 0; stride
    bool held;       // x, y: the line lies in plane 0 under a free surface
};

template <int A>
__device__ __forceinline__ Line line_of(const fdwk_img_pml &g, long q)
{
    const fdwk_img_pml_axis &x = g.ax[A];
    Line ln;
    if (A == 0) { // q = k ny + j
        const long k = q / g.ny, j = q % g.ny;
        ln = {k * g.plane + j * g.pitch, 1, q * x.W, 1, g.fs && k == 0};
    } else if (A == 1) { // q = k nx + i
        const long k = q / g.nx, i = q % g.nx;
        ln = {k * g.plane + i, g.pitch, k * x.W * g.nx + i, g.nx, g.fs && k == 0};
    } else { // q = j nx + i
        const long j = q / g.nx, i = q % g.nx;
        ln = {j * g.pitch + i, g.plane, q, (long)g.nx * g.ny, false};
    }
    return ln;
}

template <int A>
__device__ __forceinline__ bool held(const fdwk_img_pml &g, const Line &ln, int i)
{
    return ln.held || (A == 2 && g.fs && i == 0);
}

__device__ __forceinline__ int index_of(const fdwk_img_pml_axis &x, int l)
{
    return l < x.w0 ? l : x.n - x.w1 + (l - x.w0);
}

__device__ __forceinline__ int slot_of(const fdwk_img_pml_axis &x, int i)
{
    if (i < 0 || i >= x.n) return -1;
    if (i < x.w0) return i;
    if (i >= x.n - x.w1) return x.w0 + (i - (x.n - x.w1));
    return -1;
}

// What the sums take at global index i, 0 off the layers: PLAIN v, SCALED a v,
// PLUS_FIELD f + a v.
enum { PLAIN, SCALED, PLUS_FIELD };

template <int HOW>
__device__ __forceinline__ float tilde(const fdwk_img_pml_axis &x, const Line &ln,
                                       const float *v, const float *f, int i)
{
    const int s = slot_of(x, i);
    if (s < 0) return 0.0f;
    const float w = v[ln.pbase + (long)s * ln.pst];
    return HOW == PLAIN ? w : HOW == SCALED ? x.a[i] * w : f[ln.base + (long)i * ln.st] + x.a[i] * w;
}

template <int HOW>
__device__ __forceinline__ float layer_d1(const fdwk_img_pml_axis &x, const Line &ln,
                                          const float *v, const float *f, int i, int R)
{
    float d = x.d1[1] * (tilde<HOW>(x, ln, v, f, i + 1) - tilde<HOW>(x, ln, v, f, i - 1));
    for (int m = 2; m <= R; ++m)
        d = d + x.d1[m] * (tilde<HOW>(x, ln, v, f, i + m) - tilde<HOW>(x, ln, v, f, i - m));
    return d;
}

__device__ __forceinline__ float layer_d2(const fdwk_img_pml_axis &x, const Line &ln,
                                          const float *v, int i, int R)
{
    float d = x.d2[0] * tilde<SCALED>(x, ln, v, nullptr, i);
    for (int m = 1; m <= R; ++m)
        d = d + x.d2[m] * (tilde<SCALED>(x, ln, v, nullptr, i - m) +
                           tilde<SCALED>(x, ln, v, nullptr, i + m));
    return d;
}

enum Pass { TERM, APPLY, CHI, PHI, BAND };

// One pass of axis A at line q and, on grid.y, layer index l (BAND: band index).
template <int A, int P>
__global__ void pass_kernel(const fdwk_img_pml g, float *set, float *term, const float *f,
                            float *out, const float *v)
{
    const long q = (long)blockIdx.x * blockDim.x + threadIdx.x;
    const fdwk_img_pml_axis &x = g.ax[A];
    if (q >= x.lines) return;
    const Line ln = line_of<A>(g, q);
    const int R = g.radius;
    float *first = set ? set + 2 * x.off : nullptr, *second = set ? first + x.count : nullptr;
    if (P == BAND) {
        const int t = blockIdx.y, i = t < x.blo ? t : x.bhi + (t - x.blo);
        if (held<A>(g, ln, i)) return;
        const float corr = layer_d2(x, ln, first, i, R) -
                           layer_d1<SCALED>(x, ln, second, nullptr, i, R);
        const long o = ln.base + (long)i * ln.st;
        out[o] = out[o] + v[o] * corr;
        return;
    }
    const int l = blockIdx.y, i = index_of(x, l);
    const long pl = ln.pbase + (long)l * ln.pst, o = ln.base + (long)i * ln.st;
    if (P == TERM) {
        term[x.off + pl] = layer_d1<PLAIN>(x, ln, first, nullptr, i, R) + second[pl];
    } else if (P == APPLY) {
        if (!held<A>(g, ln, i)) out[o] = out[o] + f[o] * term[x.off + pl];
    } else if (P == CHI) {
        first[pl] = x.b[i] * first[pl] + f[o];
    } else { // PHI
        second[pl] = x.b[i] * second[pl] - layer_d1<PLUS_FIELD>(x, ln, first, f, i, R);
    }
}

template <int A, int P>
int launch_axis(const fdwk_img_pml &g, float *set, float *term, const float *f, float *out,
                const float *v, cudaStream_t s)
{
    const fdwk_img_pml_axis &x = g.ax[A];
    const int ny = P == BAND ? x.blo + (x.n - x.bhi) : x.W;
    if (x.W == 0 || ny == 0 || x.lines == 0) return 0;
    if (ny > 65535) return (int)cudaErrorInvalidConfiguration;
    const dim3 block(256), grid((unsigned)((x.lines + 255) / 256), (unsigned)ny);
    pass_kernel<A, P><<<grid, block, 0, s>>>(g, set, term, f, out, v);
    return (int)cudaGetLastError();
}

// Pass P on the x, then the y, then the z axis.
template <int P>
int each_axis(const fdwk_img_pml &g, float *set, float *term, const float *f, float *out,
              const float *v, cudaStream_t s)
{
    int rc = launch_axis<0, P>(g, set, term, f, out, v, s);
    if (!rc) rc = launch_axis<1, P>(g, set, term, f, out, v, s);
    if (!rc) rc = launch_axis<2, P>(g, set, term, f, out, v, s);
    return rc;
}

// The transposed step of axis A: chi, phi, then the band.
template <int A>
int adjoint_axis(const fdwk_img_pml &g, float *set, const float *z, float *up, const float *v,
                 cudaStream_t s)
{
    int rc = launch_axis<A, CHI>(g, set, nullptr, z, nullptr, nullptr, s);
    if (!rc) rc = launch_axis<A, PHI>(g, set, nullptr, z, nullptr, nullptr, s);
    if (!rc) rc = launch_axis<A, BAND>(g, set, nullptr, nullptr, up, v, s);
    return rc;
}

bool valid(const fdwk_img_pml *g)
{
    return g && g->radius >= 1 && g->radius <= FDWK_MAX_RADIUS;
}

} // namespace

extern "C" {

int fdwk_img_pml_term(const fdwk_img_pml *g, const float *set, float *term, fdwk_stream s)
{
    if (!valid(g)) return (int)cudaErrorInvalidValue;
    return each_axis<TERM>(*g, (float *)set, term, nullptr, nullptr, nullptr, (cudaStream_t)s);
}

int fdwk_img_pml_apply(const fdwk_img_pml *g, const float *term, const float *f, float *dst,
                       fdwk_stream s)
{
    if (!valid(g)) return (int)cudaErrorInvalidValue;
    return each_axis<APPLY>(*g, nullptr, (float *)term, f, dst, nullptr, (cudaStream_t)s);
}

int fdwk_img_pml_adjoint(const fdwk_img_pml *g, float *set, const float *z, float *up,
                         const float *v, fdwk_stream s)
{
    if (!valid(g)) return (int)cudaErrorInvalidValue;
    int rc = adjoint_axis<0>(*g, set, z, up, v, (cudaStream_t)s);
    if (!rc) rc = adjoint_axis<1>(*g, set, z, up, v, (cudaStream_t)s);
    if (!rc) rc = adjoint_axis<2>(*g, set, z, up, v, (cudaStream_t)s);
    return rc;
}

} // extern "C"
