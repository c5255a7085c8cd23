/* cpu_stencil.c — the stencil-only kind on the CPU (seed eq. 1), out of place:
 *     D'(p) = sc[0] D(p) + sum_{m=1..r} sc[m] * ((x+m + x-m) + (y+m + y-m) + (z+m + z-m))
 * with zero outside the grid (the zero padding and outer ghost planes). One kernel body per
 * radius, used for every point of every slab, so any decomposition gives the same bits. */
#include "kinds/stencil/cpu_stencil.h"
#include "kinds/stencil/stencil.h"

typedef struct stencil_args {
    float *out;                /* result at (0,0) of local plane 0 */
    const float *in;           /* current field at the same point */
    ptrdiff_t sy, sz;
    int nx;
    float sc[FDW_MAX_RADIUS + 1];
} stencil_args;

static inline __attribute__((always_inline)) void
stencil_row(float *restrict out, const float *restrict d, int nx, ptrdiff_t sy, ptrdiff_t sz,
            const float *sc, const int R)
{
#pragma GCC ivdep
    for (int i = 0; i < nx; i++) {
        float acc = sc[0] * d[i];
        for (int m = 1; m <= R; m++)
            acc += sc[m] * (((d[i + m] + d[i - m]) + (d[i + m * sy] + d[i - m * sy])) +
                            (d[i + m * sz] + d[i - m * sz]));
        out[i] = acc;
    }
}

static inline __attribute__((always_inline)) void
stencil_rows(const stencil_args *a, int k, int j0, int j1, const int R)
{
    float sc[FDW_MAX_RADIUS + 1];
    for (int m = 0; m <= R; m++)
        sc[m] = a->sc[m];
    for (int j = j0; j < j1; j++) {
        ptrdiff_t o = (ptrdiff_t)k * a->sz + (ptrdiff_t)j * a->sy;
        stencil_row(a->out + o, a->in + o, a->nx, a->sy, a->sz, sc, R);
    }
}

typedef void (*stencil_fn)(const stencil_args *a, int k, int j0, int j1);

#define FDW_STENCIL_KERNEL(R)                                                           \
    FDW_CPU_CLONES static void stencil_r##R(const stencil_args *a, int k, int j0, int j1) \
    {                                                                                   \
        stencil_rows(a, k, j0, j1, R);                                                  \
    }
FDW_STENCIL_KERNEL(1)
FDW_STENCIL_KERNEL(2)
FDW_STENCIL_KERNEL(3)
FDW_STENCIL_KERNEL(4)
FDW_STENCIL_KERNEL(5)
FDW_STENCIL_KERNEL(6)
FDW_STENCIL_KERNEL(7)
FDW_STENCIL_KERNEL(8)

static stencil_fn stencil_kernel(int r)
{
    switch (r) {
    case 1: return stencil_r1;
    case 2: return stencil_r2;
    case 3: return stencil_r3;
    case 4: return stencil_r4;
    case 5: return stencil_r5;
    case 6: return stencil_r6;
    case 7: return stencil_r7;
    case 8: return stencil_r8;
    }
    return NULL;
}

static void stencil_planes(const cpu_ctx *c, const cpu_slab *s, int ka, int kb)
{
    if (kb <= ka)
        return;
    stencil_args a;
    a.out = cpu_base(c, s, 1 - c->cur);
    a.in = cpu_base(c, s, c->cur);
    a.sy = c->px;
    a.sz = c->plane;
    a.nx = c->nx;
    const fdw_stencil_data *d = c->prob.kdata;
    for (int m = 0; m <= FDW_MAX_RADIUS; m++)
        a.sc[m] = d->sc[m];
    stencil_fn fn = stencil_kernel(c->r);
    const int ny = c->ny, yb = c->yblock, nb = (ny + yb - 1) / yb;
    const int chunk = cpu_chunk(nb, kb - ka);
#pragma omp parallel for collapse(2) schedule(dynamic, chunk)
    for (int b = 0; b < nb; b++)
        for (int k = ka; k < kb; k++) {
            int j0 = b * yb, j1 = j0 + yb < ny ? j0 + yb : ny;
            fn(&a, k, j0, j1);
        }
}

const fdw_cpu_ops fdw_stencil_cpu = {.planes = stencil_planes};
