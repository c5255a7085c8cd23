/* cpu_stencil.c — the stencil-only kind on the CPU (seed eq. 1), out of place:
 *     D'(p) = sc[0] D(p) + sum_{m=1..r} sc[m] * ((x+m + x-m) + (y+m + y-m) + (z+m + z-m))
 * with zero outside the grid (the zero padding and outer ghost planes). One kernel body per
 * radius, used for every point of every slab, so any decomposition gives the same bits. */
#include "kinds/stencil/cpu_stencil.h"
#include "kinds/stencil/stencil.h"

typedef struct stencil_args {
    cpu_planes p;
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
        ptrdiff_t o = (ptrdiff_t)k * a->p.sz + (ptrdiff_t)j * a->p.sy;
        stencil_row(a->p.out + o, a->p.in + o, a->p.nx, a->p.sy, a->p.sz, sc, R);
    }
}

#define FDW_STENCIL_KERNEL(R)                                                           \
    FDW_CPU_CLONES static void stencil_r##R(const void *a, int k, int j0, int j1)       \
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

static cpu_rows_fn stencil_kernel(int r)
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
    stencil_args a;
    a.p = cpu_planes_of(c, s);
    const fdw_stencil_data *d = c->prob.kdata;
    for (int m = 0; m <= FDW_MAX_RADIUS; m++)
        a.sc[m] = d->sc[m];
    cpu_walk_planes(c, ka, kb, stencil_kernel(c->r), &a);
}

const fdw_cpu_ops fdw_stencil_cpu = {.planes = stencil_planes};
