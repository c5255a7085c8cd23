/* cuda_acoustic.c — the acoustic kind on the CUDA backend (cuda_kind.h): per slab its
 * (v dt)^2 in the fields' layout and the CPML's coefficients and psi/zeta on the slab's
 * layer points; the update of a range of planes: each axis's psi pass, the 2.5D update
 * (kernels/acoustic), then each axis's zeta pass, in acoustic.h's order. */
#include "kinds/acoustic/acoustic.h"
#include "cuda/cuda_kind.h"
#include "core/error.h"
#include "acoustic/fdwk_acoustic.h"
#include "common/fdwk_fd.h"

#include <stdlib.h>
#include <string.h>

/* The acoustic kind's state of one GPU slab (gpu_slab.kstate). */
typedef struct acoustic_gpu {
    float *raw_v, *v;          /* (v dt)^2: allocation and interior origin */
    /* CPML per axis (NULL: no layer on that axis): coefficients by global index, psi and
     * zeta on this slab's layer points (acoustic/fdwk_acoustic.h gives the compact layout);
     * for z, pw0/pw1 are the layer planes this slab holds. */
    float *pa[3], *pb[3], *psi[3], *zeta[3];
    int pw0[3], pw1[3];
} acoustic_gpu;

/* CPML layer points of axis a held by slab g (fdw_acoustic_cpml_points); sets *w0, *w1 to
 * the layer widths this slab's compact psi/zeta layout uses: for z, the layers lie whole in
 * the top and bottom slabs (run/cpml.h), so a slab holds the top layer if it starts at 0,
 * the bottom one if it ends at nz. */
static uint64_t pml_points(const fdw_problem *p, int a, const gpu_slab *g, int *w0, int *w1)
{
    const fdw_acoustic_data *d = p->kdata;
    const uint64_t n = fdw_acoustic_cpml_points(p, a, g->z0, g->nz);
    *w0 = n ? d->pml_w[a][0] : 0;
    *w1 = n ? d->pml_w[a][1] : 0;
    if (a == 2 && g->z0 != 0)
        *w0 = 0;
    if (a == 2 && g->z0 + g->nz != p->nz)
        *w1 = 0;
    return n;
}

static uint64_t acoustic_slab_bytes(const fdw_problem *p, const gpu_slab *g)
{
    const fdw_acoustic_data *d = p->kdata;
    uint64_t bytes = 0;
    for (int a = 0; a < 3; a++) {
        int w0, w1;
        bytes += 8u * pml_points(p, a, g, &w0, &w1);
        if (d->pml_a[a])
            bytes += 8u * (uint64_t)(a == 0 ? p->nx : a == 1 ? p->ny : p->nz);
    }
    return bytes;
}

static void acoustic_slab_destroy(gpu_slab *g)
{
    acoustic_gpu *s = g->kstate;
    fdwk_free(s->raw_v);
    for (int a = 0; a < 3; a++) {
        fdwk_free(s->pa[a]);
        fdwk_free(s->pb[a]);
        fdwk_free(s->psi[a]);
        fdwk_free(s->zeta[a]);
    }
    free(s);
    g->kstate = NULL;
}

static fdw_status acoustic_slab_create(cuda_ctx *c, gpu_slab *g, fdw_error *err)
{
    const fdw_problem *p = &c->prob;
    const fdw_acoustic_data *d = p->kdata;
    acoustic_gpu *s = calloc(1, sizeof *s);
    if (!s)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory");
    g->kstate = s;
    char name[128] = "";
    fdwk_device_name(g->id, name, sizeof name);
    const size_t fbytes = g->L.total * sizeof(float);
    int rc = fdwk_malloc((void **)&s->raw_v, fbytes);
    if (rc)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                        "cuda backend: allocating %.2f GiB for (v dt)^2 on GPU %d (%s) "
                        "failed: %s", fbytes / 1073741824.0, g->id, name, fdwk_strerror(rc));
    rc = fdwk_memset_async(s->raw_v, 0, fbytes, g->se);
    if (!rc)
        rc = fdwk_stream_sync(g->se);
    s->v = s->raw_v + fdwk_origin(&g->L);
    if (!rc)
        rc = cuda_upload_planes(c, g, s->v, d->vdt2, 0, g->nz);
    if (rc)
        return cuda_device_fail(err, g, rc, "uploading the model");
    static const char *axes = "xyz";
    for (int ax = 0; ax < 3; ax++) {
        const uint64_t npts = pml_points(p, ax, g, &s->pw0[ax], &s->pw1[ax]);
        if (!d->pml_a[ax])
            continue;
        const size_t n = (size_t)(ax == 0 ? p->nx : ax == 1 ? p->ny : p->nz);
        rc = cuda_upload_array(g, (void **)&s->pa[ax], d->pml_a[ax], n * 4);
        if (!rc)
            rc = cuda_upload_array(g, (void **)&s->pb[ax], d->pml_b[ax], n * 4);
        for (int z = 0; z < 2 && !rc && npts > 0; z++) {
            float **dst = z ? &s->zeta[ax] : &s->psi[ax];
            rc = fdwk_malloc((void **)dst, (size_t)npts * 4);
            if (!rc)
                rc = fdwk_memset_async(*dst, 0, (size_t)npts * 4, g->se);
        }
        if (rc)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                            "cuda backend: allocating the CPML arrays of axis %c on GPU %d "
                            "(%s) failed: %s", axes[ax], g->id, name, fdwk_strerror(rc));
    }
    rc = fdwk_stream_sync(g->se);
    return rc ? cuda_device_fail(err, g, rc, "uploading the CPML") : FDW_OK;
}

/* The 2.5D kernel's arguments of the acoustic update of local planes [k0, k1), CPML
 * aside. */
static void acoustic_args(const cuda_ctx *c, gpu_slab *g, int cur, int k0, int k1,
                          fdwk_fd_args *a)
{
    const fdw_problem *p = &c->prob;
    const fdw_acoustic_data *d = p->kdata;
    const acoustic_gpu *s = g->kstate;
    cuda_fd_args(c, g, cur, a);
    a->mode = FDWK_ACOUSTIC;
    a->vdt2 = s->v;
    a->qx = g->qx;
    a->qy = g->qy;
    a->qz = g->qz;
    a->free_surface = p->free_surface;
    a->c0 = (d->cx[0] + d->cy[0]) + d->cz[0];
    for (int m = 0; m <= FDW_MAX_RADIUS; m++) {
        a->cx[m] = d->cx[m];
        a->cy[m] = d->cy[m];
        a->cz[m] = d->cz[m];
    }
    a->k0 = k0;
    a->k1 = k1;
}

/* The update of local planes [k0, k1) with the CPML (acoustic.h): psi of every axis first
 * (fdwk_pml_psi; a no-op for y and z, whose psi the zeta call updates), then the 2.5D
 * update, after which fdwk_acoustic_step runs each axis's zeta pass (fdwk_pml_zeta). */
static void acoustic_update(const cuda_ctx *c, gpu_slab *g, int cur, int k0, int k1,
                            fdwk_stream st)
{
    if (k1 <= k0)
        return;
    const fdw_problem *p = &c->prob;
    const fdw_acoustic_data *d = p->kdata;
    const acoustic_gpu *s = g->kstate;
    fdwk_fd_args a;
    acoustic_args(c, g, cur, k0, k1, &a);
    fdwk_pml_args pa[3];
    for (int ax = 0; ax < 3; ax++) {
        if (!s->psi[ax])
            continue;
        fdwk_pml_args *q = &pa[ax];
        memset(q, 0, sizeof *q);
        q->axis = ax;
        q->radius = p->radius;
        q->nx = p->nx;
        q->ny = p->ny;
        q->pitch = g->L.pitch;
        q->plane = g->L.plane;
        q->k0 = k0;
        q->k1 = k1;
        q->kglob = g->z0;
        q->n = ax == 0 ? p->nx : ax == 1 ? p->ny : p->nz;
        q->w0 = s->pw0[ax];
        q->w1 = s->pw1[ax];
        q->free_surface = p->free_surface;
        q->a = s->pa[ax];
        q->b = s->pb[ax];
        q->u = g->f[cur];
        q->vdt2 = s->v;
        q->out = g->f[1 - cur];
        q->psi = s->psi[ax];
        q->zeta = s->zeta[ax];
        const float *c2 = ax == 0 ? d->cx : ax == 1 ? d->cy : d->cz;
        for (int m = 0; m <= FDW_MAX_RADIUS && m <= FDWK_MAX_RADIUS; m++) {
            q->d1[m] = d->pml_d1[ax][m];
            q->d2[m] = c2[m];
        }
        cuda_note(g, fdwk_pml_psi(q, st), "CPML psi kernel");
        a.pml[ax] = q;
    }
    cuda_note(g, fdwk_acoustic_step(&a, st), "acoustic kernel");
}

/* What changes from step to step besides the fields: psi and zeta of each CPML axis. */
static int acoustic_state(const gpu_slab *g, fdw_state_part *parts)
{
    const acoustic_gpu *s = g->kstate;
    int n = 0;
    for (int ax = 0; s && ax < 3; ax++) {
        if (!s->psi[ax])
            continue;
        int w0, w1;
        const size_t bytes = (size_t)pml_points(&g->ctx->prob, ax, g, &w0, &w1) * 4;
        parts[n++] = (fdw_state_part){s->psi[ax], bytes};
        parts[n++] = (fdw_state_part){s->zeta[ax], bytes};
    }
    return n;
}

const fdw_cuda_ops fdw_acoustic_cuda = {
    .extra_arrays = 1,
    .slab_bytes = acoustic_slab_bytes,
    .slab_create = acoustic_slab_create,
    .slab_destroy = acoustic_slab_destroy,
    .update = acoustic_update,
    .state = acoustic_state,
};
