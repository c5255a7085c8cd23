/* cpu_acoustic_kernel.h — the acoustic kind on the CPU: its slab state and hooks, the
 * arguments of one (planes, row range) kernel call and the entry point of the
 * hand-vectorised AVX-512 kernels in cpu_acoustic_avx512.c.
 *
 * Every kernel computes each point from u, u_prev, vdt2 and the sponge q as
 *     lap = c0 u + sum over axes and m = 1..r of c_axis[m] (u[+m] + u[-m])
 *     u'  = (2u - u_prev) + vdt2 lap                                  where q == 0
 *     u'  = ((2u - (1 - q) u_prev) + vdt2 lap) / (1 + q)              where q != 0
 * with an order of operations that is fixed per kernel and the same for every point (both
 * forms give the same bits where q == 0). The portable kernels round every multiply and add
 * (ISO C, no contraction); the AVX-512 kernels use fused multiply-adds, so the two agree
 * within a few ulps, not bit for bit. */
#ifndef FDW_CPU_ACOUSTIC_KERNEL_H
#define FDW_CPU_ACOUSTIC_KERNEL_H

#include "cpu/cpu_kind.h"
#include "kinds/acoustic/acoustic.h"
#include "kinds/acoustic/cpu_cpml.h"

/* The acoustic kind's state of one CPU slab (cpu_slab.kstate). */
typedef struct acoustic_slab {
    float *vdt2;               /* the slab's planes of (v dt)^2, the field buffers' layout */
    cpu_cpml *cpml;            /* psi and zeta of the slab's layer points; NULL: no CPML */
} acoustic_slab;

/* The acoustic kind's CPU hooks (cpu_acoustic.c). */
extern const fdw_cpu_ops fdw_acoustic_cpu;

typedef struct cpu_acoustic_args {
    float *up;                 /* u_prev / u_next at (0,0) of local plane 0 */
    const float *u;            /* u at the same point */
    const float *v;            /* vdt2 at the same point (same xy layout) */
    ptrdiff_t sy, sz;          /* row and plane strides */
    int nx;
    int nzl;                   /* owned planes of the slab (nothing at or past plane nzl
                                * is prefetched: it may lie past the buffers) */
    float c0;                  /* (cx[0] + cy[0]) + cz[0] */
    float cx[FDW_MAX_RADIUS + 1], cy[FDW_MAX_RADIUS + 1], cz[FDW_MAX_RADIUS + 1];
    const float *qx, *qy, *qz; /* NULL when the job has no sponge; qz is local (slab) */
    int xlo, xhi;              /* qx == 0 on [xlo, xhi) */
} cpu_acoustic_args;

/* Update rows [j0, j1) of local planes [k0, k1). */
typedef void (*cpu_acoustic_fn)(const cpu_acoustic_args *a, int k0, int k1, int j0, int j1);

/* The AVX-512 kernel for stencil radius r (1..FDW_MAX_RADIUS), or NULL when this build or
 * this processor has no AVX-512F. */
cpu_acoustic_fn cpu_acoustic_avx512_kernel(int r);

/* The kernel a run of radius r takes: the AVX-512 one where there is one, unless portable
 * (fdw_tuning.cpu_portable). The imaging kinds step fields of their own with it. */
cpu_acoustic_fn cpu_acoustic_kernel_for(int r, int portable);

#endif
