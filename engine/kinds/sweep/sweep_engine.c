/* sweep_engine.c — what the sweep kind's two engines (cpu_sweep.c, cuda_sweep.c) share:
 * the check of a requested region. */
#include "kinds/sweep/sweep.h"

#include "core/error.h"
#include "run/backend.h"

fdw_status sweep_engine_region(const fdw_problem *p, const fdw_slice *rg, const float *host,
                               int q, fdw_error *err)
{
    if (fdw_region_floats(p, rg) && host)
        return FDW_OK;
    return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                    "sweep engine: region %d (plane %d, index %d) is outside the %dx%dx%d grid",
                    q, (int)rg->plane, rg->index, p->nx, p->ny, p->nz);
}
