/* fdwk_ete.h — the ETE kind's update on the GPU (engine/kinds/ete/ete.h states it and its
 * order of operations, which the kernels keep, so they equal the CPU backend bit for bit):
 * p(t + dt) = (2p - p(t - dt)) + L(p) with the 37-point weights of each pair of points'
 * velocity bins, the sponge's damping and the free surface. 14 bytes per point from DRAM:
 * p, p(t - dt), the 2-byte bin index read, the update written; the neighbours' bins and the
 * table's rows come from the caches (36 gathers per point). */
#ifndef FDWK_ETE_H
#define FDWK_ETE_H

#include "common/fdwk_runtime.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel variants (fdwk_ete_args.variant): the default, the 2.5D kernel with a 32 x 8 tile
 * (a block walks a chunk of z with the planes k - 1, k, k + 1 in shared memory and its
 * column's z neighbours in registers) with the table's distinct columns and the bins in
 * shared memory, which runs the fallback where the table does not fit a block's shared
 * memory; and that fallback forced: the same walk with bins and table rows through the
 * read-only cache (for the tests and fdwave-bench). */
enum { FDWK_ETE_DEFAULT = 0, FDWK_ETE_CACHE = 1, FDWK_ETE_VARIANTS = 2 };

typedef struct fdwk_ete_args {
    float *out;                /* p(t - dt) on entry, p(t + dt) on exit */
    const float *u;            /* p(t) with valid ghost planes */
    const uint16_t *idx;       /* bin per point, addressed like the fields (own origin),
                                * padding and ghost planes included (nearest grid point's) */
    const float *table;        /* nbins x 16 weights */
    int nbins;
    /* The table's distinct columns, transposed (ncol x nbins: column c's weight of bin m at
     * tabc[c * nbins + m]) for the shared-table kernel: slot s of the table is column
     * col[s] (equal spacing makes the three axes' and the three edge slots equal: 6
     * columns instead of 16, so a table of about 8,000 bins fits a block's shared memory). */
    const float *tabc;
    int ncol;
    unsigned char col[16];
    const float *qx, *qy, *qz; /* sponge (qz by global k), all NULL or all set */
    int nx, ny;                /* slab interior */
    int k0, k1;                /* local planes to update */
    int kglob;                 /* global index of local plane 0 */
    long pitch, plane;         /* layout (common/fdwk_runtime.h) of u, out and idx */
    int free_surface;          /* write 0 on global plane 0 */
    int zchunk;                /* planes per block along z; 0: automatic */
    int variant;               /* FDWK_ETE_* */
} fdwk_ete_args;

/* Update local planes a->k0..a->k1. 0 or a CUDA error code (cudaErrorInvalidValue for an
 * unknown variant). */
int fdwk_ete_step(const fdwk_ete_args *a, fdwk_stream s);
/* The distinct columns of an nbins x 16 table: slot s is column col[s], the first slot
 * whose weights equal s's bit for bit in every bin; src[c] is column c's first slot; with
 * tabc (room for 16 x nbins floats) also the columns transposed, as fdwk_ete_args.tabc
 * wants them. Returns the count (host code). */
int fdwk_ete_columns(const float *table, int nbins, unsigned char col[16], int src[16],
                     float *tabc);
/* The name of variant v (for fdwave-bench and the tests), NULL when there is none. */
const char *fdwk_ete_variant_name(int v);

#ifdef __cplusplus
}
#endif
#endif
