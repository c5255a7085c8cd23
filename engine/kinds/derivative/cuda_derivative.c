/* cuda_derivative.c — the derivative kind on the CUDA backend (cuda_kind.h): one periodic
 * kernel over the whole field (kernels/derivative), out of place, on a layout without
 * ghost planes, so on one slab only; the variant and chunk from the run's tuning. */
#include "kinds/derivative/derivative.h"
#include "cuda/cuda_kind.h"
#include "core/error.h"
#include "derivative/fdwk_derivative.h"

static void derivative_update(const cuda_ctx *c, gpu_slab *g, int cur, int k0, int k1,
                              fdwk_stream st)
{
    (void)k0;
    (void)k1; /* the whole slab, which is the whole grid */
    const fdw_problem *p = &c->prob;
    const fdw_derivative_data *d = p->kdata;
    cuda_note(g, fdwk_derivative(g->f[1 - cur], g->f[cur], p->nx, p->ny, p->nz, g->L.pitch,
                                 g->L.plane, (int)d->axis, d->dc, p->tuning->cuda_deriv,
                                 p->tuning->cuda_deriv_chunk, st),
              "derivative kernel");
}

static fdw_status derivative_check(const fdw_problem *p, const fdw_plan *plan, fdw_error *err)
{
    if (plan->ndev > 1)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, "devices",
                        "the derivative kind runs on one GPU in the cuda backend (%d asked); "
                        "set \"devices\": 1", plan->ndev);
    (void)p;
    return FDW_OK;
}

const fdw_cuda_ops fdw_derivative_cuda = {
    .single_slab = 1,
    .update = derivative_update,
    .check = derivative_check,
};
