// pml_dev.cuh — the CPML's zeta pass as a device function, for the stencil kernels that
// fold it into the update (fd25v.cuh with PML = true): per axis, the layer geometry, the
// coefficients and the psi/zeta arrays of one slab (kernels.h gives their compact layout),
// passed by value as a kernel parameter. The operations and their order are those of
// cpml.cu's zeta kernel and of the CPU reference (engine/cpu_cpml.c).
#pragma once
#include "kernels.h"

namespace fdwk {

struct PmlAxis {
    int n, w0, w1;                 // axis length (global) and layer widths (0, 0: no layer)
    const float *a, *b;            // per global index along the axis
    const float *psi;              // updated for this step by fdwk_pml_psi
    float *zeta;
    float d1[FDWK_MAX_RADIUS + 1]; // first-derivative weights (/ h)
    float d2[FDWK_MAX_RADIUS + 1]; // the Laplacian's weights along the axis
};

struct PmlK {
    PmlAxis ax[3];
    int nx, ny, kglob;
};

// Layer index of global index g along an axis, or -1 outside its layers and the grid.
__device__ __forceinline__ int pml_layer(const PmlAxis &p, int g)
{
    if (g < 0 || g >= p.n) return -1;
    if (g < p.w0) return g;
    if (g >= p.n - p.w1) return p.w0 + g - (p.n - p.w1);
    return -1;
}

// The term of one axis at a layer point: zeta updated (and stored), returns
// g + zeta with g = D1 psi. base + l * lstride is the compact offset of layer index l.
template <int R>
__device__ __forceinline__ float pml_term(const PmlAxis &p, int g, int l, long base, long lstride,
                                          float d2)
{
    float gs = 0.f;
#pragma unroll
    for (int m = 1; m <= R; ++m) {
        const int lp = pml_layer(p, g + m), lm = pml_layer(p, g - m);
        const float fp = lp >= 0 ? p.psi[base + lp * lstride] : 0.f;
        const float fm = lm >= 0 ? p.psi[base + lm * lstride] : 0.f;
        if (m == 1)
            gs = p.d1[1] * (fp - fm);
        else
            gs += p.d1[m] * (fp - fm);
    }
    const long po = base + l * lstride;
    const float z = p.b[g] * p.zeta[po] + p.a[g] * (d2 + gs);
    p.zeta[po] = z;
    return gs + z;
}

} // namespace fdwk
