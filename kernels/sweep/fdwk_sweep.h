/* fdwk_sweep.h — the C face of the sweep kind's kernels (kernels/sweep/sweep.cu): one
 * sub-sweep of every part a GPU holds as one cooperative launch (blocks stay resident and
 * walk the planes in order, each waiting only for the blocks that computed its upwind
 * rows, in its own part or a neighbour's, on this GPU or a peer), the shuffle between the
 * two layouts (a transposing copy from a part on this GPU or a peer), and the fills,
 * packs and unpacks around them. The engine's host code (engine/kinds/sweep/cuda_sweep*.c)
 * reaches the GPU only through this header and common/fdwk_runtime.h. Every function
 * returns 0 or a CUDA error code (fdwk_strerror names it). */
#ifndef FDWK_SWEEP_H
#define FDWK_SWEEP_H

#include "common/fdwk_runtime.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A part as a sub-sweep sees it: the plane axes u (fastest stride first) and v and the
 * sweep axis p, local cell (u, v, p) at t[u su + v sv + p sp] (t, s at local (0, 0, 0)), in
 * brick (u + ou >> 3) bu + (v + ov >> 3) bv + (p + op >> 3) bp (ou, ov, op: the box's
 * padding along each axis). e0 and e1: the cells beyond its cut (before its first cell, after
 * its last) that the part computes besides its own, the reach W where there is a neighbour
 * there, else 0. */
typedef struct fdwk_sweep_view {
    void *t;                   /* T (float64 or float32) */
    const void *s;             /* slowness 1/F per cell (field runs), else NULL */
    int32_t *stamp;
    int U, V;
    long long su, sv, sp;
    long long bu, bv, bp;
    int ou, ov, op;
    int e0, e1;
} fdwk_sweep_view;

/* One part in one sub-sweep launch: its view, its blocks, its progress flags (one per
 * block, device memory on its GPU), and its neighbours across the layout's cut (index 0:
 * the part before, 1: after; nb_blocks 0 where there is none). A changed value of one of
 * its own cells within W of a cut is written, with its brick stamp, into that neighbour's
 * arrays (the neighbour's cells beyond its own cut); the neighbour's flags are read to wait
 * for the values its cells need. */
typedef struct fdwk_sweep_part {
    fdwk_sweep_view w;
    int block0, nblocks;
    unsigned long long *flags;
    fdwk_sweep_view nb[2];
    int nb_blocks[2];
    const unsigned long long *nb_flags[2];
    int nb_remote[2];          /* the neighbour is on another GPU */
    /* figures of the sub-sweep, accumulated: max_change bits (a non-negative double),
     * then changed, reached, computed */
    unsigned long long *stats;
} fdwk_sweep_part;

/* A sub-sweep launch on one GPU: parts[] in device memory (nparts of them, blocks
 * consecutive), the sweep direction's constants (sw_geo_d or sw_geo_f: geo_bytes), the
 * plane count P along the sweep axis and its direction, the cut (1: along u, 0: along v),
 * the precision, the field form, the epoch and the skip threshold (INT32_MIN: compute
 * every point). reach W: across a cut the blocks wait for the neighbour's every W planes
 * (1: every plane), computing meanwhile the neighbour's cells within W - k of the cut at
 * the k-th plane after a wait. acts (device memory, nacts pointers: every part of the
 * sub-sweep on every GPU, each part's two ints from fdwk_sweep_active) or NULL: the planes
 * before the first that can change are skipped without waiting. nosync (benchmarks only):
 * blocks do not wait for each other, which gives wrong T but times the computation
 * alone. */
typedef struct fdwk_sweep_launch {
    const fdwk_sweep_part *parts;
    int nparts;
    const void *geo;
    size_t geo_bytes;
    int P, sign, cut_u, f64, field;
    int epoch, skip_before;
    int blocks, threads;
    int reach;
    const int *const *acts;
    int nacts;
    int nosync;
} fdwk_sweep_launch;

/* The pre-pass of a sub-sweep: act[0] and act[1] of a part become the least and the
 * greatest brick layer along the sweep axis (layer index: brick index / layer_stride %
 * nlayers) holding a stamp at or after skip_before (act[0] > act[1] when none). */
int fdwk_sweep_active(const int32_t *stamp, long long nbricks, long long layer_stride,
                      int nlayers, int skip_before, int *act, fdwk_stream s);

/* Blocks of threads threads that stay resident per SM for the sub-sweep kernel of this
 * precision and form, and the GPU's SM count (current device). */
int fdwk_sweep_occupancy(int f64, int field, int threads, int *blocks_per_sm, int *sms);
/* Issue one sub-sweep (cooperative launch) on stream s of the current device. */
int fdwk_sweep_subsweep(const fdwk_sweep_launch *l, fdwk_stream s);

/* A box of cells in a part's array: lo[3] and pad[3] (global cell g is element sum_a
 * (g_a - lo_a + pad_a) stride[a], in brick sum_a ((g_a - lo_a + pad_a) >> 3) bstride[a]);
 * stamps may be NULL. */
typedef struct fdwk_sweep_box {
    void *t;                   /* array base (element 0) */
    int32_t *stamp;
    int lo[3], pad[3];
    long long stride[3], bstride[3];
} fdwk_sweep_box;

/* Copy global cells [lo, hi) from src (a part on this GPU or a peer) to dst (on this
 * GPU), transposing between the layouts: src_fast and dst_fast name each side's fastest
 * axis (0 x, 1 y). With stamps: only cells of source bricks stamped after copy_after, and
 * a destination cell that changes stamps its brick with epoch; without: every cell. */
int fdwk_sweep_copy(const fdwk_sweep_box *src, int src_fast, const fdwk_sweep_box *dst,
                    int dst_fast, const int lo[3], const int hi[3], int f64, int copy_after,
                    int epoch, fdwk_stream s);

/* Fill n elements (float64 or float32) with value. */
int fdwk_sweep_fill(void *p, long long n, int f64, double value, fdwk_stream s);
/* Unpack: compact float64 cells [lo, hi) (x fastest) into a box, as float64 or float32;
 * with stamps, a finite value stamps its brick 0. */
int fdwk_sweep_unpack(const double *src, const fdwk_sweep_box *dst, const int lo[3],
                      const int hi[3], int f64, fdwk_stream s);
/* Pack: a box's cells [lo, hi) into compact x-fastest dst, as float64 (out_f64) or
 * float32. */
int fdwk_sweep_pack(const fdwk_sweep_box *src, const int lo[3], const int hi[3], int f64,
                    void *dst, int out_f64, fdwk_stream s);

#ifdef __cplusplus
}
#endif
#endif
