/* distrib.h — who owns what in a run split into slabs (one per device or MPI rank): the
 * slab of a plane, the slab that records each receiver, and each slab's share of a
 * snapshot region. The CPU backend and the distributed run loop use the same rules, so
 * a receiver or a region is assembled exactly as one process computes it. */
#ifndef FDW_DISTRIB_H
#define FDW_DISTRIB_H

#include "run/backend.h"

/* For every receiver r of p: the slab owning the lowest z plane among its taps (that slab
 * sums all its taps, the lower ones read from its ghost planes), or -1 for a receiver
 * without taps. slab_of[p->nreceivers]. */
void fdw_receiver_slabs(const fdw_problem *p, const fdw_plan *plan, int *slab_of);

/* Region rg (a slice or the volume) of an nx*ny*nz grid, laid out as the snapshot buffers
 * are (first dimension fastest, z slowest): each slab's planes form one contiguous part,
 * in slab order. bytes[d] receives the size of slab d's part (0 for an xy slice outside
 * the slab); the parts concatenated are the whole region. */
void fdw_region_parts(int nx, int ny, const fdw_plan *plan, const fdw_slice *rg,
                      size_t *bytes);

#endif
