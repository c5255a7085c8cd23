/* cuda_stencil.c — the stencil kind on the CUDA backend (cuda_kind.h): the 2.5D kernel of
 * kernels/stencil on a range of planes, out of place, and two steps per pass through the
 * shared two-step kernel. No state besides the two fields. */
#include "kinds/stencil/stencil.h"
#include "cuda/cuda_kind.h"
#include "common/fdwk_fd.h"
#include "stencil/fdwk_stencil.h"

#include <string.h>

/* The 2.5D kernel's arguments of the stencil update of local planes [k0, k1). */
static void stencil_args(const cuda_ctx *c, gpu_slab *g, int cur, int k0, int k1,
                         fdwk_fd_args *a)
{
    const fdw_stencil_data *d = c->prob.kdata;
    cuda_fd_args(c, g, cur, a);
    a->mode = FDWK_STENCIL;
    a->c0 = d->sc[0];
    for (int m = 0; m <= FDW_MAX_RADIUS; m++)
        a->cx[m] = a->cy[m] = a->cz[m] = d->sc[m];
    a->k0 = k0;
    a->k1 = k1;
}

static void stencil_update(const cuda_ctx *c, gpu_slab *g, int cur, int k0, int k1,
                           fdwk_stream st)
{
    if (k1 <= k0)
        return;
    fdwk_fd_args a;
    stencil_args(c, g, cur, k0, k1, &a);
    cuda_note(g, fdwk_stencil_step(&a, st), "stencil kernel");
}

/* Two steps per pass (cuda_kind.h's update2) through the two-step kernel
 * (kernels/common/fd_two_step.cu); the kind has no sources. */
static void stencil_update2(const cuda_ctx *c, gpu_slab *g, int cur, float *out1, float *out2,
                            const src_set *src, long it, fdwk_stream st)
{
    (void)src;
    fdwk_fd2_args a2;
    memset(&a2, 0, sizeof a2);
    stencil_args(c, g, cur, 0, g->nz, &a2.a);
    a2.out1 = out1;
    a2.out2 = out2;
    a2.nz = g->nz;
    a2.it = it;
    cuda_note(g, fdwk_fd_step2(&a2, st), "stencil two-step kernel");
}

const fdw_cuda_ops fdw_stencil_cuda = {.update = stencil_update, .update2 = stencil_update2};
