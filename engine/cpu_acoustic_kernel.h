/* cpu_acoustic_kernel.h — what the acoustic update's row kernels share: the arguments of one
 * (plane, row range) call and the entry points of the hand-vectorised AVX-512 kernels in
 * cpu_acoustic_avx512.c. Internal to the CPU backend (cpu_acoustic.c is the only user).
 *
 * Every kernel computes each point with the same operations in the same order,
 *     t   = (c0 u + sum_m cx[m] (u[x+m] + u[x-m])) + sum_m cy[m] (u[y+m] + u[y-m])
 *     lap = t + sum_m cz[m] (u[z+m] + u[z-m])          (sums from m = 1 up, mul then add)
 *     u'  = (2u - u_prev) + vdt2 lap                                  where q == 0
 *     u'  = ((2u - (1 - q) u_prev) + vdt2 lap) / (1 + q)              where q != 0
 * with no fused multiply-add, so the portable and the AVX-512 kernels agree bit for bit,
 * and both forms agree where q == 0 (1 - 0, 1 * x and x / 1 are exact). */
#ifndef FDW_CPU_ACOUSTIC_KERNEL_H
#define FDW_CPU_ACOUSTIC_KERNEL_H

#include "cpu_backend_impl.h"

typedef struct cpu_acoustic_args {
    float *up;                 /* u_prev / u_next at (0,0) of local plane 0 */
    const float *u;            /* u at the same point */
    const float *v;            /* vdt2 at the same point (same xy layout) */
    ptrdiff_t sy, sz;          /* row and plane strides */
    int nx;
    int nzl;                   /* owned planes of the slab (planes k + 1 >= nzl are not
                                * prefetched: they may lie past the buffers) */
    float c0;                  /* (cx[0] + cy[0]) + cz[0] */
    float cx[FDW_MAX_RADIUS + 1], cy[FDW_MAX_RADIUS + 1], cz[FDW_MAX_RADIUS + 1];
    const float *qx, *qy, *qz; /* NULL when the job has no sponge; qz is local (slab) */
    int xlo, xhi;              /* qx == 0 on [xlo, xhi) */
} cpu_acoustic_args;

/* Update rows [j0, j1) of local plane k. */
typedef void (*cpu_acoustic_fn)(const cpu_acoustic_args *a, int k, int j0, int j1);

/* The AVX-512 kernel for stencil radius r (1..FDW_MAX_RADIUS), or NULL when this build or
 * this processor has no AVX-512F. */
cpu_acoustic_fn cpu_acoustic_avx512_kernel(int r);

#endif
