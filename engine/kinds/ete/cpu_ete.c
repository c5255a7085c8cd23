/* cpu_ete.c — the ETE update on the CPU backend (ete.h gives the operations and their
 * order, which the CUDA kernel repeats, so the two agree bit for bit): per slab the bin
 * index of its owned planes in the field buffers' xy layout; the update walks rows of
 * (plane, y block) tasks, each point reading its bin's row of the coefficient table. ISO C
 * mode contracts nothing, so every clone of the kernel rounds every operation alike. */
#include "kinds/ete/cpu_ete.h"
#include "kinds/ete/ete.h"

#include <stdlib.h>
#include <string.h>

/* The ETE kind's state of one CPU slab (cpu_slab.kstate). */
typedef struct ete_slab {
    uint16_t *idx;             /* the slab's owned planes, the field buffers' layout */
} ete_slab;

/* L of ete.h at u (a point of the current field) with weights w. */
static inline __attribute__((always_inline)) float
ete_sum(const float *u, const float *w, ptrdiff_t sy, ptrdiff_t sz)
{
    float ax = w[1] * (u[-1] + u[1]);
    float ay = w[5] * (u[-sy] + u[sy]);
    float az = w[9] * (u[-sz] + u[sz]);
    for (int m = 2; m <= 4; m++) {
        ax = ax + w[m] * (u[-m] + u[m]);
        ay = ay + w[4 + m] * (u[-m * sy] + u[m * sy]);
        az = az + w[8 + m] * (u[-m * sz] + u[m * sz]);
    }
    const float exy = w[13] * ((u[-1 - sy] + u[1 - sy]) + (u[-1 + sy] + u[1 + sy]));
    const float exz = w[14] * ((u[-1 - sz] + u[1 - sz]) + (u[-1 + sz] + u[1 + sz]));
    const float eyz = w[15] * ((u[-sy - sz] + u[sy - sz]) + (u[-sy + sz] + u[sy + sz]));
    return ((((w[0] * u[0] + ax) + ay) + az) + exy) + (exz + eyz);
}

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
    const uint16_t *ix0 = es->idx + (c->origin - (ptrdiff_t)c->r * c->plane);
    for (int k = k0; k < k1; k++) {
        const float qz = c->sponge ? c->qz[s->z0 + k] : 0.0f;
        for (int j = j0; j < j1; j++) {
            const ptrdiff_t o = (ptrdiff_t)k * sz + (ptrdiff_t)j * sy;
            float *restrict up = up0 + o;
            const float *u = u0 + o;
            const uint16_t *ix = ix0 + o;
            const float qyz = c->sponge ? c->qy[j] + qz : 0.0f;
            for (int i = 0; i < nx; i++) {
                const float *w = table + (size_t)ix[i] * ETE_TABLE_STRIDE;
                const float l = ete_sum(u + i, w, sy, sz);
                const float q = c->sponge ? c->qx[i] + qyz : 0.0f;
                if (q == 0.0f)
                    up[i] = (2.0f * u[i] - up[i]) + l;
                else
                    up[i] = ((2.0f * u[i] - (1.0f - q) * up[i]) + l) / (1.0f + q);
            }
        }
    }
}

static void ete_planes(const cpu_ctx *c, const cpu_slab *s, int ka, int kb)
{
    if (kb <= ka)
        return;
    const int ny = c->ny, yb = c->yblock;
    const int nb = (ny + yb - 1) / yb, nk = kb - ka;
    const int chunk = cpu_chunk(nb, nk);
#pragma omp parallel for collapse(2) schedule(dynamic, chunk)
    for (int b = 0; b < nb; b++)
        for (int k = ka; k < kb; k++) {
            int j0 = b * yb, j1 = j0 + yb < ny ? j0 + yb : ny;
            ete_rows(c, s, k, k + 1, j0, j1);
        }
}

/* The bin index of the slab's planes: 2 bytes per padded point. */
static uint64_t ete_slab_bytes(const fdw_problem *p, int z0, int nz, uint64_t plane_bytes)
{
    (void)p;
    (void)z0;
    return (uint64_t)nz * plane_bytes / 2;
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
    es->idx = calloc((size_t)s->nz * (size_t)c->plane, sizeof *es->idx);
    if (!es->idx || !d->idx)
        return -1;
    const int nx = c->nx, ny = c->ny;
    uint16_t *dst = es->idx + (c->origin - (ptrdiff_t)c->r * c->plane);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < s->nz; k++)
        for (int j = 0; j < ny; j++)
            memcpy(dst + (ptrdiff_t)k * c->plane + (ptrdiff_t)j * c->px,
                   d->idx + ((size_t)(s->z0 + k) * ny + j) * nx, (size_t)nx * sizeof *dst);
    return 0;
}

const fdw_cpu_ops fdw_ete_cpu = {
    .slab_bytes = ete_slab_bytes,
    .slab_create = ete_slab_create,
    .slab_destroy = ete_slab_destroy,
    .planes = ete_planes,
};
