/* distrib.c — ownership rules of a slab-decomposed run (see distrib.h). */
#include "run/distrib.h"

/* The slab of the plan owning global z plane k, or -1 when k is outside the grid. */
static int fdw_plan_slab_of(const fdw_plan *plan, int k)
{
    for (int d = 0; d < plan->ndev; d++)
        if (k >= plan->z0[d] && k < plan->z0[d] + plan->nz[d])
            return d;
    return -1;
}

void fdw_receiver_slabs(const fdw_problem *p, const fdw_plan *plan, int *slab_of)
{
    const uint64_t nxy = (uint64_t)p->nx * (uint64_t)p->ny;
    for (int r = 0; r < p->nreceivers; r++)
        slab_of[r] = -1;
    /* lowest plane first, then its slab */
    for (int t = 0; t < p->nrec_taps; t++) {
        const fdw_tap *tp = &p->rec_taps[t];
        if (tp->owner < 0 || tp->owner >= p->nreceivers)
            continue;
        const int k = (int)(tp->index / nxy);
        if (slab_of[tp->owner] < 0 || k < slab_of[tp->owner])
            slab_of[tp->owner] = k;
    }
    for (int r = 0; r < p->nreceivers; r++)
        if (slab_of[r] >= 0)
            slab_of[r] = fdw_plan_slab_of(plan, slab_of[r]);
}

void fdw_region_parts(int nx, int ny, const fdw_plan *plan, const fdw_slice *rg,
                      size_t *bytes)
{
    for (int d = 0; d < plan->ndev; d++) {
        const size_t nzd = (size_t)plan->nz[d], f = sizeof(float);
        switch (rg->plane) {
        case FDW_PLANE_XY:
            bytes[d] = rg->index >= plan->z0[d] && rg->index < plan->z0[d] + plan->nz[d]
                           ? (size_t)nx * (size_t)ny * f
                           : 0;
            break;
        case FDW_PLANE_XZ: bytes[d] = nzd * (size_t)nx * f; break;
        case FDW_PLANE_YZ: bytes[d] = nzd * (size_t)ny * f; break;
        case FDW_PLANE_VOLUME: bytes[d] = nzd * (size_t)nx * (size_t)ny * f; break;
        default: bytes[d] = 0; break;
        }
    }
}
