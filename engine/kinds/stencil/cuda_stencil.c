/* cuda_stencil.c — the stencil kind on the CUDA backend (cuda_kind.h): the 2.5D kernel of
 * kernels/stencil on a range of planes, out of place. No state besides the two fields. */
#include "kinds/stencil/stencil.h"
#include "cuda/cuda_kind.h"
#include "common/fdwk_fd.h"
#include "stencil/fdwk_stencil.h"

/* The stencil update of local planes [k0, k1) from f[cur] into f[1 - cur] on stream st. */
static void stencil_update(const cuda_ctx *c, gpu_slab *g, int cur, int k0, int k1,
                           fdwk_stream st)
{
    if (k1 <= k0)
        return;
    const fdw_stencil_data *d = c->prob.kdata;
    fdwk_fd_args a;
    cuda_fd_args(c, g, cur, &a);
    a.mode = FDWK_STENCIL;
    a.c0 = d->sc[0];
    for (int m = 0; m <= FDW_MAX_RADIUS; m++)
        a.cx[m] = a.cy[m] = a.cz[m] = d->sc[m];
    a.k0 = k0;
    a.k1 = k1;
    cuda_note(g, fdwk_stencil_step(&a, st), "stencil kernel");
}

const fdw_cuda_ops fdw_stencil_cuda = {.update = stencil_update};
