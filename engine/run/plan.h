/* plan.h — decomposition of the grid into slabs along z, one per device; the same plan
 * drives the CPU backend's virtual devices, the CUDA backend's GPUs and MPI ranks. */
#ifndef FDW_PLAN_H
#define FDW_PLAN_H

#include "fdwave/fdwave.h"
#include "core/limits.h"

typedef struct fdw_plan {
    int ndev;
    int device_ids[FDW_MAX_DEVICES]; /* physical id per slab (CUDA ordinal / virtual index) */
    int z0[FDW_MAX_DEVICES];         /* first global z plane owned by slab d */
    int nz[FDW_MAX_DEVICES];         /* planes owned; sum = grid nz, each >= radius */
    int radius;                      /* ghost depth */
} fdw_plan;

/* Split nz planes over ndev slabs as evenly as possible (the first nz % ndev slabs get one
 * more). Fails with FDW_ERR_SPEC on "devices" if a slab would be thinner than radius. */
fdw_status fdw_plan_slabs(int nz, int radius, int ndev, const int *device_ids,
                          fdw_plan *plan, fdw_error *err);

#endif
