/* cuda_ete.c — the ETE kind on the CUDA backend (cuda_kind.h): per slab its bin index in
 * the fields' whole layout (padding and ghost planes hold the nearest grid point's bin: the
 * update reads its neighbours'), the coefficient table, and the table's distinct columns
 * transposed (the shared-table kernels' copy); the update of a range of planes through
 * kernels/ete. */
#include "kinds/ete/ete.h"
#include "cuda/cuda_kind.h"
#include "core/error.h"
#include "ete/fdwk_ete.h"

#include <stdlib.h>
#include <string.h>

/* The ETE kind's state of one GPU slab (gpu_slab.kstate). */
typedef struct ete_gpu {
    uint16_t *raw_idx, *idx;   /* allocation, interior origin */
    float *table;
    float *tabc;               /* ncol x nv: the distinct columns, transposed */
    int ncol;
    unsigned char col[ETE_TABLE_STRIDE]; /* slot -> column */
} ete_gpu;

/* The index has the fields' whole layout. */
static size_t idx_elems(const gpu_slab *g) { return g->L.total; }

static uint64_t ete_slab_bytes(const fdw_problem *p, const gpu_slab *g)
{
    const fdw_ete_data *d = p->kdata;
    return idx_elems(g) * 2u + (uint64_t)d->nv * ETE_TABLE_STRIDE * 4u * 2u;
}

static void ete_slab_destroy(gpu_slab *g)
{
    ete_gpu *s = g->kstate;
    if (!s)
        return;
    fdwk_free(s->raw_idx);
    fdwk_free(s->table);
    fdwk_free(s->tabc);
    free(s);
    g->kstate = NULL;
}

static fdw_status ete_slab_create(cuda_ctx *c, gpu_slab *g, fdw_error *err)
{
    const fdw_problem *p = &c->prob;
    const fdw_ete_data *d = p->kdata;
    ete_gpu *s = calloc(1, sizeof *s);
    if (!s)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory");
    g->kstate = s;
    const size_t n = idx_elems(g);
    uint16_t *host = calloc(n, sizeof *host);
    if (!host || !d->idx) {
        free(host);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory staging "
                        "the ETE bin index (%.1f MiB)", n * 2.0 / 1048576.0);
    }
    const fdwk_layout *L = &g->L;
    const long planes = (long)g->nz + 2L * L->zpad, rows = (long)p->ny + 2L * L->ypad;
    for (long kk = 0; kk < planes; kk++)
        for (long y = 0; y < rows; y++)
            for (long x = 0; x < L->pitch; x++)
                host[kk * L->plane + y * L->pitch + x] =
                    fdw_ete_bin(p, d, x - L->xoff, y - L->ypad, g->z0 + kk - L->zpad);
    int rc = cuda_upload_array(g, (void **)&s->raw_idx, host, n * sizeof *host);
    free(host);
    if (!rc)
        rc = cuda_upload_array(g, (void **)&s->table, d->table,
                               (size_t)d->nv * ETE_TABLE_STRIDE * sizeof(float));
    if (!rc) {
        int src[ETE_TABLE_STRIDE];
        float *tc = malloc((size_t)ETE_TABLE_STRIDE * (size_t)d->nv * sizeof *tc);
        if (!tc)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory "
                            "staging the ETE table");
        s->ncol = fdwk_ete_columns(d->table, d->nv, s->col, src, tc);
        rc = cuda_upload_array(g, (void **)&s->tabc, tc,
                               (size_t)s->ncol * (size_t)d->nv * sizeof *tc);
        free(tc);
    }
    if (rc) {
        char name[128] = "";
        fdwk_device_name(g->id, name, sizeof name);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: allocating the ETE bin index "
                        "and table on GPU %d (%s) failed: %s", g->id, name, fdwk_strerror(rc));
    }
    s->idx = s->raw_idx + fdwk_origin(&g->L);
    return FDW_OK;
}

static void ete_update(const cuda_ctx *c, gpu_slab *g, int cur, int k0, int k1, fdwk_stream st)
{
    if (k1 <= k0)
        return;
    const fdw_problem *p = &c->prob;
    const ete_gpu *s = g->kstate;
    fdwk_ete_args a;
    memset(&a, 0, sizeof a);
    a.u = g->f[cur];
    a.out = g->f[1 - cur];
    a.idx = s->idx;
    a.table = s->table;
    a.nbins = ((const fdw_ete_data *)p->kdata)->nv;
    a.tabc = s->tabc;
    a.ncol = s->ncol;
    memcpy(a.col, s->col, sizeof a.col);
    a.qx = g->qx;
    a.qy = g->qy;
    a.qz = g->qz;
    a.nx = p->nx;
    a.ny = p->ny;
    a.k0 = k0;
    a.k1 = k1;
    a.kglob = g->z0;
    a.pitch = g->L.pitch;
    a.plane = g->L.plane;
    a.free_surface = p->free_surface;
    a.zchunk = p->tuning->cuda_zchunk;
    a.variant = p->tuning->cuda_config;
    cuda_note(g, fdwk_ete_step(&a, st), "ete kernel");
}

static fdw_status ete_cuda_check(const fdw_problem *p, const fdw_plan *plan, fdw_error *err)
{
    (void)plan;
    const int v = p->tuning->cuda_config;
    if (v < 0 || v >= FDWK_ETE_VARIANTS)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: the ete kind has kernel "
                        "variants 0..%d, not %d", FDWK_ETE_VARIANTS - 1, v);
    return FDW_OK;
}

const fdw_cuda_ops fdw_ete_cuda = {
    .extra_arrays = 0,
    .slab_bytes = ete_slab_bytes,
    .slab_create = ete_slab_create,
    .slab_destroy = ete_slab_destroy,
    .update = ete_update,
    .check = ete_cuda_check,
};
