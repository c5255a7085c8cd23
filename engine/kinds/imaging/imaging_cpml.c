/* imaging_cpml.c — the imaging kinds' CPML on the host side of both engines
 * (imaging_cpml.h): where each axis's memory variables and band lie, and how much memory
 * they take, so the engines and the memory estimate count alike. */
#include "kinds/imaging/imaging_cpml.h"

#include "spec/spec.h"

#include <string.h>

void fdw_img_pml_init(img_pml *g, const fdw_problem *p, ptrdiff_t pitch, ptrdiff_t plane)
{
    const fdw_img_data *d = p->kdata;
    memset(g, 0, sizeof *g);
    g->nx = p->nx, g->ny = p->ny, g->nz = p->nz, g->r = p->radius;
    g->fs = p->free_surface;
    g->pitch = pitch, g->plane = plane;
    const int n[3] = {p->nx, p->ny, p->nz};
    const size_t lines[3] = {(size_t)p->ny * p->nz, (size_t)p->nx * p->nz,
                             (size_t)p->nx * p->ny};
    const float *c2[3] = {d->cx, d->cy, d->cz};
    for (int a = 0; a < 3; a++) {
        img_pml_axis *x = &g->ax[a];
        x->n = n[a];
        x->lines = lines[a];
        x->off = g->count;
        x->blo = 0, x->bhi = n[a];
        if (!d->pml_a[a] || !d->pml_b[a])
            continue;
        x->w0 = d->pml_w[a][0], x->w1 = d->pml_w[a][1], x->W = x->w0 + x->w1;
        x->a = d->pml_a[a], x->b = d->pml_b[a];
        for (int m = 0; m <= FDW_MAX_RADIUS; m++)
            x->d1[m] = d->pml_d1[a][m], x->d2[m] = c2[a][m];
        /* the band: the points within the radius of a layer point */
        x->blo = x->w0 > 0 ? (x->w0 + g->r < n[a] ? x->w0 + g->r : n[a]) : 0;
        x->bhi = x->w1 > 0 ? (n[a] - x->w1 - g->r > 0 ? n[a] - x->w1 - g->r : 0) : n[a];
        if (x->bhi < x->blo)
            x->bhi = x->blo;
        x->count = lines[a] * (size_t)x->W;
        g->count += x->count;
        g->on = g->on || x->W > 0;
    }
}

uint64_t fdw_img_pml_points(const fdw_spec *spec, int z0, int nz)
{
    const fdw_boundary *b = &spec->boundary;
    if (b->type != FDW_BOUNDARY_CPML)
        return 0;
    const uint64_t nx = (uint64_t)spec->nx, ny = (uint64_t)spec->ny, n = (uint64_t)nz;
    const uint64_t wz = (uint64_t)(z0 == 0 && !b->free_surface ? b->width[4] : 0) +
                        (uint64_t)(z0 + nz == spec->nz ? b->width[5] : 0);
    return (uint64_t)(b->width[0] + b->width[1]) * ny * n +
           (uint64_t)(b->width[2] + b->width[3]) * nx * n + wz * nx * ny;
}

uint64_t fdw_img_pml_floats(uint64_t P, img_mode mode, long K, int L, int term)
{
    if (mode == IMG_BORN)
        return 5 * P;
    return 4 * P + 2 * P * (uint64_t)(K > 1 ? K - 1 : 0) + (term ? (uint64_t)L * P : 0);
}
