/* sweep_parts.h — how the sweep kind splits the grid over devices, for both of its engines
 * (cpu_sweep*.c, cuda_sweep*.c). Two partitionings (the seed's section 3.1): layout A, cut
 * along y into one slab per device and stored y fastest, serves the x and z sub-sweeps
 * (their planes are yz and xy: both contiguous along y); layout B, cut along z (the run's
 * slab plan) and stored x fastest, serves the y sub-sweeps. Each part of a layout is a box
 * of owned cells with padding on every side: +inf outside the grid, and at a cut a copy of
 * the neighbour's cells ("halo"), which the neighbour writes whenever it changes one of
 * them. The padding is one cell, except along a layout's cut axis when there are several
 * parts: there it is the run's reach W (the CUDA engine's parts also compute up to W - 1
 * cells beyond their cuts, so that GPUs wait for each other every W planes; the CPU engine
 * uses W = 1). Every box also has a grid of 8 x 8 x 8 bricks holding the epoch at which a
 * value in the brick last changed (the exact skipping of docs/sweep.md). */
#ifndef FDW_SWEEP_PARTS_H
#define FDW_SWEEP_PARTS_H

#include "core/limits.h"
#include "run/plan.h"

#include <stdint.h>

#define SWEEP_BRICK_SHIFT 3

/* The layouts: A (x and z sub-sweeps, cut along y) and B (y sub-sweeps, cut along z). */
enum { SWEEP_LAYOUT_A = 0, SWEEP_LAYOUT_B = 1 };

/* One part's box in one layout. Global cell (x, y, z), padding included (lo - pad ..
 * hi + pad - 1), is element sum_a (g_a - lo_a + pad_a) * stride[a] of the part's array, and
 * lies in brick sum_a ((g_a - lo_a + pad_a) >> SWEEP_BRICK_SHIFT) * bstride[a]. */
typedef struct sweep_box {
    int lo[3], hi[3];          /* owned global cells [lo, hi) per axis x, y, z */
    int pad[3];                /* padding cells on each side, per axis */
    int64_t stride[3];
    int64_t count;             /* elements, padding included */
    int64_t bstride[3];
    int64_t nbricks;
} sweep_box;

typedef struct sweep_parts {
    int nparts;
    int n[3];                  /* grid */
    int reach;                 /* W: padding along the cuts (1 with one part) */
    sweep_box a[FDW_MAX_DEVICES]; /* layout A: y slabs, y fastest */
    sweep_box b[FDW_MAX_DEVICES]; /* layout B: z slabs (the plan's), x fastest */
} sweep_parts;

/* Both layouts for the grid n on the plan's slabs (its z slabs are layout B's), with
 * padding reach along the cuts (at most the narrowest part's width there; 1 with one part:
 * sp->reach says what was taken). Returns -1 when a layout would have an empty part (ny or
 * nz smaller than the part count). */
int sweep_parts_init(sweep_parts *sp, const int n[3], const fdw_plan *plan, int reach);

static inline int64_t sweep_box_index(const sweep_box *b, int x, int y, int z)
{
    return (int64_t)(x - b->lo[0] + b->pad[0]) * b->stride[0] +
           (int64_t)(y - b->lo[1] + b->pad[1]) * b->stride[1] +
           (int64_t)(z - b->lo[2] + b->pad[2]) * b->stride[2];
}

static inline int64_t sweep_box_brick(const sweep_box *b, int x, int y, int z)
{
    return (int64_t)((x - b->lo[0] + b->pad[0]) >> SWEEP_BRICK_SHIFT) * b->bstride[0] +
           (int64_t)((y - b->lo[1] + b->pad[1]) >> SWEEP_BRICK_SHIFT) * b->bstride[1] +
           (int64_t)((z - b->lo[2] + b->pad[2]) >> SWEEP_BRICK_SHIFT) * b->bstride[2];
}

/* Whether global cell g lies inside the grid. */
static inline int sweep_in_grid(const sweep_parts *sp, int x, int y, int z)
{
    return x >= 0 && y >= 0 && z >= 0 && x < sp->n[0] && y < sp->n[1] && z < sp->n[2];
}

/* The cells a part's array holds besides padding outside the grid: owned cells and the
 * halo at its cuts (pad cells deep), [lo, hi) per axis clipped to the grid. */
void sweep_box_held(const sweep_parts *sp, const sweep_box *b, int lo[3], int hi[3]);

/* The epochs of one sweep's operations: sweep s (1-based), operation op (SWEEP_OP_*). */
static inline int sweep_epoch(long s, int op) { return (int)(8 * (s - 1) + op + 1); }

/* What a sub-sweep of sweep s at operation op may skip: a point whose upwind patch lies in
 * bricks that all changed before this epoch is unchanged since its last update in this
 * direction. A shuffle copies the cells of bricks changed after this epoch. */
int sweep_skip_before(long s, int op);
int sweep_copy_after(long s, int op);

/* One sub-sweep's view of a part: the plane axes, the strides of u, v and the sweep
 * axis, the counts, where the cut runs, and the brick strides. */
typedef struct sweep_view {
    int axis, sign, u, v;
    int U, V, P;               /* owned cells along u, v and the sweep axis */
    int64_t su, sv, sp;        /* element strides */
    int64_t bu, bv, bp;        /* brick strides */
    int ou, ov, op;            /* padding along u, v, p: local c lies in brick (c + o) >> 3 */
    int64_t base;              /* element of local (u, v, p) = (0, 0, 0) */
    int cut_u;                 /* 1: the layout's cut runs along u (A), 0: along v (B) */
} sweep_view;

void sweep_view_of(const sweep_box *b, int axis, int sign, int cut_axis, sweep_view *w);

#endif
