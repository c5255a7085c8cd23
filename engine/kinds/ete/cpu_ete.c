/* cpu_ete.c — the ETE update on the CPU backend (ete.h gives the operations and their
 * order, which the CUDA kernel repeats, so the two agree bit for bit): per slab the bin
 * index of its planes and ghost planes in the field buffers' layout; the update walks rows
 * of (plane, y block) tasks, each point reading its own and its 36 neighbours' weights,
 * 16 points a vector where the processor has AVX-512F (cpu_ete_avx512.c; the rest of a row
 * and other processors through the scalar ete_sum below, which also runs everywhere when
 * the tuning asks for the portable kernels). ISO C mode contracts nothing, so every kernel
 * rounds every operation alike. */
#include "kinds/ete/cpu_ete.h"
#include "kinds/ete/cpu_ete_avx512.h"
#include "kinds/ete/ete.h"

#include <stdlib.h>
#include <string.h>

/* The ETE kind's state of one CPU slab (cpu_slab.kstate). */
typedef struct ete_slab {
    uint16_t *idx;             /* bins of the slab's planes and ghost planes, padding included
                                * (the field buffers' layout), nearest grid point's outside */
} ete_slab;

/* The faster of the point's bin and the neighbour's (bins go up with the velocity). */
#define ETE_BMAX(N) ((N) > b0 ? (N) : b0)
/* t(dx,dy,dz) of ete.h: the pair weight of slot S times the neighbour's difference. */
#define ETE_T(DX, DY, DZ, S)                                                              \
    ((alpha * table[(int)ETE_BMAX((unsigned)ix[(DX) + (DY) * sy + (DZ) * sz]) *           \
                    ETE_TABLE_STRIDE + (S)]) *                                           \
     (u[(DX) + (DY) * sy + (DZ) * sz] - u[0]))

/* L of ete.h at u (a point of the current field) and ix (its bin). Written without
 * branches and with 32-bit table indices, so a row's loop vectorises (gathers of the
 * weights); every lane does the scalar operations in the same order. */
static inline __attribute__((always_inline)) float
ete_sum(const float *u, const uint16_t *ix, const float *table, ptrdiff_t sy, ptrdiff_t sz)
{
    const unsigned b0 = ix[0];
    const float alpha = table[(int)b0 * ETE_TABLE_STRIDE];
    float ax = ETE_T(-1, 0, 0, 1) + ETE_T(1, 0, 0, 1);
    float ay = ETE_T(0, -1, 0, 5) + ETE_T(0, 1, 0, 5);
    float az = ETE_T(0, 0, -1, 9) + ETE_T(0, 0, 1, 9);
#pragma GCC unroll 3
    for (int m = 2; m <= 4; m++) {
        ax = ax + (ETE_T(-m, 0, 0, m) + ETE_T(m, 0, 0, m));
        ay = ay + (ETE_T(0, -m, 0, 4 + m) + ETE_T(0, m, 0, 4 + m));
        az = az + (ETE_T(0, 0, -m, 8 + m) + ETE_T(0, 0, m, 8 + m));
    }
    const float exy = (ETE_T(-1, -1, 0, 13) + ETE_T(1, -1, 0, 13)) +
                      (ETE_T(-1, 1, 0, 13) + ETE_T(1, 1, 0, 13));
    const float exz = (ETE_T(-1, 0, -1, 14) + ETE_T(1, 0, -1, 14)) +
                      (ETE_T(-1, 0, 1, 14) + ETE_T(1, 0, 1, 14));
    const float eyz = (ETE_T(0, -1, -1, 15) + ETE_T(0, 1, -1, 15)) +
                      (ETE_T(0, -1, 1, 15) + ETE_T(0, 1, 1, 15));
    return (((ax + ay) + az) + exy) + (exz + eyz);
}
#undef ETE_T
#undef ETE_BMAX

/* Points a row is updated in at a time (L of the piece first, then the update). */
#define ETE_PIECE 256

/* Rows [j0, j1) of local planes [k0, k1) of slab s. */
FDW_CPU_CLONES static void ete_rows(const cpu_ctx *c, const cpu_slab *s, int k0, int k1,
                                    int j0, int j1)
{
    const fdw_ete_data *d = c->prob.kdata;
    const ete_slab *es = s->kstate;
    const float *table = d->table;
    const ptrdiff_t sy = c->px, sz = c->plane;
    const int nx = c->nx;
    float *up0 = cpu_base(c, s, 1 - c->cur);
    const float *u0 = cpu_base(c, s, c->cur);
    const uint16_t *ix0 = es->idx + c->origin;
    float l[ETE_PIECE];
    const cpu_ete_row_fn vec = c->prob.tuning->cpu_portable ? NULL : cpu_ete_avx512_row();
    for (int k = k0; k < k1; k++) {
        const float qz = c->sponge ? c->qz[s->z0 + k] : 0.0f;
        for (int j = j0; j < j1; j++) {
            const ptrdiff_t o = (ptrdiff_t)k * sz + (ptrdiff_t)j * sy;
            float *restrict up = up0 + o;
            const float *u = u0 + o;
            const uint16_t *ix = ix0 + o;
            const float qyz = c->sponge ? c->qy[j] + qz : 0.0f;
            for (int i0 = 0; i0 < nx; i0 += ETE_PIECE) {
                const int n = nx - i0 < ETE_PIECE ? nx - i0 : ETE_PIECE;
                const int nv = vec ? n & ~15 : 0;
                if (nv)
                    vec(u + i0, ix + i0, table, sy, sz, l, nv);
                for (int i = nv; i < n; i++)
                    l[i] = ete_sum(u + i0 + i, ix + i0 + i, table, sy, sz);
                if (!c->sponge) {
                    for (int i = 0; i < n; i++)
                        up[i0 + i] = (2.0f * u[i0 + i] - up[i0 + i]) + l[i];
                    continue;
                }
                for (int i = 0; i < n; i++) {
                    const float q = c->qx[i0 + i] + qyz, p = up[i0 + i], uc = u[i0 + i];
                    const float plain = (2.0f * uc - p) + l[i];
                    const float damped = ((2.0f * uc - (1.0f - q) * p) + l[i]) / (1.0f + q);
                    up[i0 + i] = q == 0.0f ? plain : damped;
                }
            }
        }
    }
}

/* cpu_walk_planes' view of ete_rows: one plane of slab s. */
typedef struct ete_walk {
    const cpu_ctx *c;
    const cpu_slab *s;
} ete_walk;

static void ete_plane_rows(const void *arg, int k, int j0, int j1)
{
    const ete_walk *w = arg;
    ete_rows(w->c, w->s, k, k + 1, j0, j1);
}

static void ete_planes(const cpu_ctx *c, const cpu_slab *s, int ka, int kb)
{
    const ete_walk w = {c, s};
    cpu_walk_planes(c, ka, kb, ete_plane_rows, &w);
}

/* The bin index of the slab's planes and ghost planes: 2 bytes per padded point. */
static uint64_t ete_slab_bytes(const fdw_problem *p, int z0, int nz, uint64_t plane_bytes)
{
    (void)z0;
    return (uint64_t)(nz + 2 * p->radius) * plane_bytes / 2;
}

static void ete_slab_destroy(cpu_slab *s)
{
    ete_slab *es = s->kstate;
    if (!es)
        return;
    free(es->idx);
    free(es);
    s->kstate = NULL;
}

static int ete_slab_create(const cpu_ctx *c, cpu_slab *s)
{
    const fdw_ete_data *d = c->prob.kdata;
    ete_slab *es = calloc(1, sizeof *es);
    if (!es)
        return -1;
    s->kstate = es;
    const int r = c->r, nplanes = s->nz + 2 * r;
    es->idx = malloc((size_t)nplanes * (size_t)c->plane * sizeof *es->idx);
    if (!es->idx || !d->idx)
        return -1;
    /* every padded position: (i, j) = (x - FDW_CPU_XOFF, y - r) of the padded plane */
#pragma omp parallel for schedule(static)
    for (int kk = 0; kk < nplanes; kk++)
        for (int y = 0; y < c->py; y++)
            for (int x = 0; x < c->px; x++)
                es->idx[(size_t)kk * c->plane + (size_t)y * c->px + x] =
                    fdw_ete_bin(&c->prob, d, x - FDW_CPU_XOFF, y - r, s->z0 + kk - r);
    return 0;
}

const fdw_cpu_ops fdw_ete_cpu = {
    .slab_bytes = ete_slab_bytes,
    .slab_create = ete_slab_create,
    .slab_destroy = ete_slab_destroy,
    .planes = ete_planes,
};
