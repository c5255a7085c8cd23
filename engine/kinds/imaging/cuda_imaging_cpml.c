/* cuda_imaging_cpml.c — the imaging kinds' CPML on one GPU (cuda_imaging_cpml.h): the
 * coefficients uploaded once, and the acoustic kind's CPML passes set up on the imaging
 * engine's layout and memory variables (one slab: global plane k is local plane k). */
#include "kinds/imaging/cuda_imaging_cpml.h"

#include <string.h>

int img_gpu_pml_create(img_gpu_pml *m, const fdw_problem *p, const fdwk_layout *L,
                       uint64_t *bytes)
{
    memset(m, 0, sizeof *m);
    fdw_img_pml_init(&m->g, p, L->pitch, L->plane);
    if (!m->g.on)
        return 0;
    fdwk_img_pml *k = &m->k;
    k->radius = p->radius, k->nx = p->nx, k->ny = p->ny, k->fs = p->free_surface;
    k->pitch = L->pitch, k->plane = L->plane;
    for (int a = 0; a < 3; a++) {
        const img_pml_axis *x = &m->g.ax[a];
        fdwk_img_pml_axis *y = &k->ax[a];
        y->n = x->n, y->w0 = x->w0, y->w1 = x->w1, y->W = x->W;
        y->blo = x->blo, y->bhi = x->bhi;
        y->lines = (long)x->lines, y->count = (long)x->count, y->off = (long)x->off;
        for (int q = 0; q <= FDW_MAX_RADIUS && q <= FDWK_MAX_RADIUS; q++)
            y->d1[q] = x->d1[q], y->d2[q] = x->d2[q];
        if (x->W == 0)
            continue;
        const size_t nb = (size_t)x->n * sizeof(float);
        int rc = fdwk_malloc((void **)&m->ca[a], nb);
        if (!rc)
            rc = fdwk_malloc((void **)&m->cb[a], nb);
        if (!rc)
            rc = fdwk_h2d(m->ca[a], x->a, nb);
        if (!rc)
            rc = fdwk_h2d(m->cb[a], x->b, nb);
        if (rc)
            return rc;
        *bytes += 2 * nb;
        y->a = m->ca[a], y->b = m->cb[a];
    }
    return 0;
}

void img_gpu_pml_destroy(img_gpu_pml *m)
{
    for (int a = 0; a < 3; a++) {
        fdwk_free(m->ca[a]);
        fdwk_free(m->cb[a]);
        m->ca[a] = m->cb[a] = NULL;
    }
}

int img_gpu_pml_forward(const img_gpu_pml *m, float *set, const float *u, float *out,
                        const float *v, fdwk_pml_args pa[3], fdwk_fd_args *a, fdwk_stream s)
{
    const img_pml *g = &m->g;
    for (int ax = 0; ax < 3; ax++) {
        const img_pml_axis *x = &g->ax[ax];
        if (x->W == 0)
            continue;
        fdwk_pml_args *q = &pa[ax];
        memset(q, 0, sizeof *q);
        q->axis = ax;
        q->radius = g->r;
        q->nx = g->nx, q->ny = g->ny;
        q->pitch = (long)g->pitch, q->plane = (long)g->plane;
        q->k0 = 0, q->k1 = g->nz, q->kglob = 0;
        q->n = x->n, q->w0 = x->w0, q->w1 = x->w1;
        q->free_surface = g->fs;
        q->a = m->ca[ax], q->b = m->cb[ax];
        q->u = u, q->vdt2 = v, q->out = out;
        q->psi = set + 2 * x->off;
        q->zeta = q->psi + x->count;
        for (int k = 0; k <= FDW_MAX_RADIUS && k <= FDWK_MAX_RADIUS; k++)
            q->d1[k] = x->d1[k], q->d2[k] = x->d2[k];
        const int rc = fdwk_pml_psi(q, s);
        if (rc)
            return rc;
        a->pml[ax] = q;
    }
    return 0;
}
