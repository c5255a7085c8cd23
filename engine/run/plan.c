/* plan.c — split the grid into slabs along z, one per (virtual or physical) device.
 * The same plan drives the CPU backend's virtual devices, the CUDA backend's GPUs and
 * MPI ranks, so every backend decomposes a job identically. */
#include "run/plan.h"
#include "core/error.h"

#include <string.h>

fdw_status fdw_plan_slabs(int nz, int radius, int ndev, const int *device_ids,
                          fdw_plan *plan, fdw_error *err)
{
    if (!plan)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_plan_slabs: plan is NULL");
    memset(plan, 0, sizeof *plan);
    if (nz < 1)
        return fdw_fail(err, FDW_ERR_SPEC, "grid.nz", "nz must be at least 1 (got %d)", nz);
    if (radius < 0 || radius > FDW_MAX_RADIUS)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "fdw_plan_slabs: stencil radius %d outside 0..%d", radius,
                        FDW_MAX_RADIUS);
    if (ndev < 1 || ndev > FDW_MAX_DEVICES)
        return fdw_fail(err, FDW_ERR_SPEC, "devices",
                        "device count must be between 1 and %d (got %d)", FDW_MAX_DEVICES,
                        ndev);
    /* Each slab must hold at least `radius` planes so that a ghost region is filled by
     * exactly one neighbour. The thinnest slab of an even split has nz / ndev planes. */
    int need = radius > 1 ? radius : 1;
    if (nz < need)
        return fdw_fail(err, FDW_ERR_SPEC, "grid.nz",
                        "nz = %d is smaller than the stencil radius %d; the grid needs at "
                        "least %d planes in z", nz, need, need);
    if (nz / ndev < need) {
        int most = nz / need;
        if (most > FDW_MAX_DEVICES)
            most = FDW_MAX_DEVICES;
        return fdw_fail(err, FDW_ERR_SPEC, "devices",
                        "%d devices would give slabs thinner than %d planes (the stencil "
                        "radius) on a grid with nz = %d; at most %d device%s can be used",
                        ndev, need, nz, most, most == 1 ? "" : "s");
    }
    plan->ndev = ndev;
    plan->radius = radius;
    int base = nz / ndev, extra = nz % ndev, z = 0;
    for (int d = 0; d < ndev; d++) {
        plan->device_ids[d] = device_ids ? device_ids[d] : d;
        plan->z0[d] = z;
        plan->nz[d] = base + (d < extra ? 1 : 0);
        z += plan->nz[d];
    }
    return FDW_OK;
}
