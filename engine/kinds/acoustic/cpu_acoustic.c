/* cpu_acoustic.c — the CPU acoustic update, 2nd order in time, order 2r in space, in place:
 *     u' = (2u - (1 - q) u_prev + vdt2 * lap(u)) / (1 + q),   q = qx[i] + (qy[j] + qz[k])
 * written over u_prev: the y-block / z-walk loop shared by all kernels, the choice of
 * kernel, and the portable kernels (C, vectorised by the compiler) that run where the
 * hand-written AVX-512 ones of cpu_acoustic_avx512.c cannot.
 * Portable kernels: where q == 0 the row is computed as (2u - u_prev) + vdt2 * lap(u),
 * which is bit for bit what the damped form gives for q == 0 (1 - 0, 1 * x and x / 1 are
 * exact), so the split into damped and undamped parts never changes a result.
 * One kernel body per radius (the m loop unrolls, the x loop vectorises); the same body
 * updates every point of every slab, which is what makes N slabs equal 1 slab bit for bit. */
#include "kinds/acoustic/cpu_acoustic_kernel.h"

#include <stdlib.h>
#include <string.h>

/* Rows are processed in chunks of FDW_CHUNK points in two passes: the first sums the
 * centre, x and y terms into a small buffer that stays in L1, the second adds the z terms
 * and writes the update. Each pass then needs only about 2r + 3 pointers, which fit in
 * the registers (one pass over 4r + 3 streams spills pointers on every load). The sum is
 * ((c0 u + lx) + ly) + lz in both passes' order, whatever the chunking. */
#define FDW_CHUNK 256

/* Pass 1: t[i - i0] = (c0 u + sum_m cx[m] (x pair)) + sum_m cy[m] (y pair). */
static inline __attribute__((always_inline)) void
pass_xy(float *restrict t, const float *restrict u, int i0, int i1, ptrdiff_t sy, float c0,
        const float *cx, const float *cy, const int R)
{
#pragma GCC ivdep
    for (int i = i0; i < i1; i++) {
        float lx = cx[1] * (u[i + 1] + u[i - 1]);
        float ly = cy[1] * (u[i + sy] + u[i - sy]);
        for (int m = 2; m <= R; m++) {
            lx += cx[m] * (u[i + m] + u[i - m]);
            ly += cy[m] * (u[i + m * sy] + u[i - m * sy]);
        }
        t[i - i0] = (c0 * u[i] + lx) + ly;
    }
}

/* Points [i0, i1) of one row, damped (qyz = qy[j] + qz[k]) or not (a constant after
 * inlining, so each form compiles to its own loop). */
static inline __attribute__((always_inline)) void
row_update(float *restrict up, const float *restrict u, const float *restrict v,
           const float *restrict qx, float qyz, int i0, int i1, ptrdiff_t sy, ptrdiff_t sz,
           float c0, const float *cx, const float *cy, const float *cz, const int R,
           const int damped)
{
    float t[FDW_CHUNK];
    for (int b0 = i0; b0 < i1; b0 += FDW_CHUNK) {
        int b1 = b0 + FDW_CHUNK < i1 ? b0 + FDW_CHUNK : i1;
        pass_xy(t, u, b0, b1, sy, c0, cx, cy, R);
#pragma GCC ivdep
        for (int i = b0; i < b1; i++) {
            float lz = cz[1] * (u[i + sz] + u[i - sz]);
            for (int m = 2; m <= R; m++)
                lz += cz[m] * (u[i + m * sz] + u[i - m * sz]);
            float lap = t[i - b0] + lz;
            if (!damped) {
                up[i] = (2.0f * u[i] - up[i]) + v[i] * lap;
            } else {
                float q = qx[i] + qyz;
                up[i] = ((2.0f * u[i] - (1.0f - q) * up[i]) + v[i] * lap) / (1.0f + q);
            }
        }
    }
}

/* Rows [j0, j1) of local plane k. */
static inline __attribute__((always_inline)) void
acoustic_rows(const cpu_acoustic_args *a, int k, int j0, int j1, const int R)
{
    const ptrdiff_t sy = a->sy, sz = a->sz;
    const int nx = a->nx;
    float cx[FDW_MAX_RADIUS + 1], cy[FDW_MAX_RADIUS + 1], cz[FDW_MAX_RADIUS + 1];
    for (int m = 0; m <= R; m++) {
        cx[m] = a->cx[m];
        cy[m] = a->cy[m];
        cz[m] = a->cz[m];
    }
    const float c0 = a->c0;
    for (int j = j0; j < j1; j++) {
        ptrdiff_t o = (ptrdiff_t)k * sz + (ptrdiff_t)j * sy;
        float *up = a->up + o;
        const float *u = a->u + o, *v = a->v + o;
        if (!a->qx) {
            row_update(up, u, v, NULL, 0.0f, 0, nx, sy, sz, c0, cx, cy, cz, R, 0);
            continue;
        }
        float qyz = a->qy[j] + a->qz[k];
        int lo = 0, hi = 0;
        if (qyz == 0.0f) {
            lo = a->xlo;
            hi = a->xhi;
        }
        row_update(up, u, v, a->qx, qyz, 0, lo, sy, sz, c0, cx, cy, cz, R, 1);
        row_update(up, u, v, NULL, 0.0f, lo, hi, sy, sz, c0, cx, cy, cz, R, 0);
        row_update(up, u, v, a->qx, qyz, hi, nx, sy, sz, c0, cx, cy, cz, R, 1);
    }
}


#define FDW_ACOUSTIC_KERNEL(R)                                                          \
    FDW_CPU_CLONES static void acoustic_r##R(const cpu_acoustic_args *a, int k0, int k1, \
                                             int j0, int j1)                            \
    {                                                                                   \
        for (int k = k0; k < k1; k++)                                                   \
            acoustic_rows(a, k, j0, j1, R);                                             \
    }
FDW_ACOUSTIC_KERNEL(1)
FDW_ACOUSTIC_KERNEL(2)
FDW_ACOUSTIC_KERNEL(3)
FDW_ACOUSTIC_KERNEL(4)
FDW_ACOUSTIC_KERNEL(5)
FDW_ACOUSTIC_KERNEL(6)
FDW_ACOUSTIC_KERNEL(7)
FDW_ACOUSTIC_KERNEL(8)

/* The portable kernel for radius r. */
static cpu_acoustic_fn portable_kernel(int r)
{
    switch (r) {
    case 1: return acoustic_r1;
    case 2: return acoustic_r2;
    case 3: return acoustic_r3;
    case 4: return acoustic_r4;
    case 5: return acoustic_r5;
    case 6: return acoustic_r6;
    case 7: return acoustic_r7;
    case 8: return acoustic_r8;
    }
    return NULL;
}

/* The kernel to run: AVX-512 where the processor has it, unless the run's tuning asks for
 * the portable one (tests/cpu_kernels compares the two; they agree within a few ulps, the
 * AVX-512 one using fused multiply-adds). One kernel runs for every plane of a step, so
 * slabs stay bit for bit equal to one slab. */
cpu_acoustic_fn cpu_acoustic_kernel_for(int r, int portable)
{
    if (!portable) {
        cpu_acoustic_fn fn = cpu_acoustic_avx512_kernel(r);
        if (fn)
            return fn;
    }
    return portable_kernel(r);
}

static cpu_acoustic_fn acoustic_kernel(const cpu_ctx *c)
{
    return cpu_acoustic_kernel_for(c->r, c->prob.tuning->cpu_portable);
}

/* Working set, in bytes, that a y block's 2r + 1 planes of u may take while the block
 * walks z: three quarters of a 1 MiB L2, leaving room for the u_prev and vdt2 streams
 * (640-768 KiB measured 3% faster than 512 KiB at order 8 on 256^3, 1 MiB slower). */
#define FDW_ACOUSTIC_BLOCK_BYTES (768 * 1024)

/* Planes per kernel call: the AVX-512 kernel updates pairs of planes together. */
#define FDW_ACOUSTIC_GROUP 2

static void acoustic_planes(const cpu_ctx *c, const cpu_slab *s, int ka, int kb)
{
    if (kb <= ka)
        return;
    const fdw_acoustic_data *p = c->prob.kdata;
    const acoustic_slab *as = s->kstate;
    cpu_acoustic_args a;
    a.up = cpu_base(c, s, 1 - c->cur);
    a.u = cpu_base(c, s, c->cur);
    a.v = as->vdt2 + (c->origin - (ptrdiff_t)c->r * c->plane);
    a.sy = c->px;
    a.sz = c->plane;
    a.nx = c->nx;
    a.nzl = s->nz;
    a.c0 = (p->cx[0] + p->cy[0]) + p->cz[0];
    for (int m = 0; m <= FDW_MAX_RADIUS; m++) {
        a.cx[m] = p->cx[m];
        a.cy[m] = p->cy[m];
        a.cz[m] = p->cz[m];
    }
    a.qx = c->sponge ? c->qx : NULL;
    a.qy = c->qy;
    a.qz = c->sponge ? c->qz + s->z0 : NULL;
    a.xlo = c->xlo;
    a.xhi = c->xhi;
    cpu_acoustic_fn fn = acoustic_kernel(c);
    const int ny = c->ny, yb = cpu_yblock_rows(c, FDW_ACOUSTIC_BLOCK_BYTES);
    const int nb = (ny + yb - 1) / yb;
    const int ng = (kb - ka + FDW_ACOUSTIC_GROUP - 1) / FDW_ACOUSTIC_GROUP;
    const int chunk = cpu_chunk(nb, ng);
#pragma omp parallel for collapse(2) schedule(dynamic, chunk)
    for (int b = 0; b < nb; b++)
        for (int g = 0; g < ng; g++) {
            int j0 = b * yb, j1 = j0 + yb < ny ? j0 + yb : ny;
            int k0 = ka + g * FDW_ACOUSTIC_GROUP;
            int k1 = k0 + FDW_ACOUSTIC_GROUP < kb ? k0 + FDW_ACOUSTIC_GROUP : kb;
            fn(&a, k0, k1, j0, j1);
        }
}

/* The acoustic slab state: (v dt)^2 on the slab's planes (the field buffers' xy layout)
 * and, with a CPML, psi and zeta of its layer points. */
static uint64_t acoustic_slab_bytes(const fdw_problem *p, int z0, int nz, uint64_t plane_bytes)
{
    return (uint64_t)nz * plane_bytes + cpu_cpml_bytes(p, z0, nz);
}

static void acoustic_slab_destroy(cpu_slab *s)
{
    acoustic_slab *as = s->kstate;
    if (!as)
        return;
    free(as->vdt2);
    cpu_cpml_destroy(as->cpml);
    free(as);
    s->kstate = NULL;
}

static int acoustic_slab_create(const cpu_ctx *c, cpu_slab *s)
{
    const fdw_acoustic_data *p = c->prob.kdata;
    acoustic_slab *as = calloc(1, sizeof *as);
    if (!as)
        return -1;
    s->kstate = as;
    const size_t bytes = (size_t)s->nz * (size_t)c->plane * sizeof(float);
    as->vdt2 = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!as->vdt2)
        return -1;
    cpu_first_touch(c, as->vdt2, s->nz);
    cpu_upload(c, s, as->vdt2 + (c->origin - (ptrdiff_t)c->r * c->plane), p->vdt2);
    if (fdw_acoustic_has_cpml(p) && !(as->cpml = cpu_cpml_create(c, s)))
        return -1;
    return 0;
}

static void acoustic_after_planes(const cpu_ctx *c, const cpu_slab *s, int ka, int kb)
{
    const acoustic_slab *as = s->kstate;
    if (as->cpml)
        cpu_cpml_planes(c, s, as->cpml, as->vdt2, ka, kb);
}

/* What changes from step to step besides the fields: the CPML's psi and zeta. */
static int acoustic_state(const cpu_slab *s, fdw_state_part *parts)
{
    const acoustic_slab *as = s->kstate;
    return as ? cpu_cpml_state(as->cpml, parts) : 0;
}

const fdw_cpu_ops fdw_acoustic_cpu = {
    .slab_bytes = acoustic_slab_bytes,
    .slab_create = acoustic_slab_create,
    .slab_destroy = acoustic_slab_destroy,
    .planes = acoustic_planes,
    .after_planes = acoustic_after_planes,
    .state = acoustic_state,
};
