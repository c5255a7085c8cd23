/* imaging_recon.h — the reconstruction schemes of rtm and gradient (imaging.h's img_recon;
 * docs/imaging.md): the boundary scheme's interior and band, what each scheme holds in
 * memory beyond the working fields, and the choice "reconstruction": "auto" makes (the
 * scheme that holds less; the boundary scheme on a tie). One place for these rules: the
 * spec, the memory estimate and both engines ask here. */
#ifndef FDW_IMAGING_RECON_H
#define FDW_IMAGING_RECON_H

#include "kinds/imaging/imaging.h"

#include <stddef.h>
#include <stdint.h>

struct fdw_spec;

/* The interior box [lo, hi) per axis (x, y, z): the grid less the absorbing layers (a
 * sponge's or a CPML's widths; none on a free surface's face or with boundary "none"),
 * where the scheme's step has no damping or memory term and so runs backwards. */
void fdw_img_interior(const struct fdw_spec *s, int lo[3], int hi[3]);

/* The band: the points of the interior grown by the radius r (within the grid) that are
 * not in it, which the interior's next step reads. */
typedef struct img_band {
    int lo[3], hi[3];          /* the interior */
    int dlo[3], dhi[3];        /* the interior grown by r, within the grid */
    uint64_t points;
} img_band;

void img_band_init(img_band *g, const int lo[3], const int hi[3], const int n[3], int r);
/* The band of a slab problem p (imaging_slabs.h): the grid's band on its planes, in its
 * local z (the whole grid's for a problem of the whole grid). */
void img_band_of(img_band *g, const fdw_problem *p);
/* Floats of all the bands a run of nt steps saves (those of u[1] .. u[nt-2], the slots of
 * imaging_sched.c's boundary units). */
uint64_t img_band_floats(const img_band *g, long nt);
/* The band of a field (point (0,0,0) at field; row and plane strides sy, sz) into store
 * (save) or back from it, row by row of the grown box (the CPU engine's order). */
void img_band_copy(const img_band *g, float *field, ptrdiff_t sy, ptrdiff_t sz, float *store,
                   int save);

/* Bytes of one field of nz planes of the spec's grid (a slab's, or the grid's) as the
 * engines pad it (the larger of the two). */
uint64_t fdw_img_field_bytes(const struct fdw_spec *s, int nz);
/* What scheme r holds beyond the working fields on the slab of planes [z0, z0 + nz) (the
 * grid: 0, s->nz): the checkpoints and the store (with a CPML its memory checkpoints, and
 * where the image takes lap u (term) the store's layer terms), or the bands of nt - 2
 * steps; both with the CPML's sets. 0 for born. */
uint64_t fdw_img_recon_bytes(const struct fdw_spec *s, img_mode mode, int term, img_recon r,
                             int z0, int nz);
/* "auto": the scheme holding fewer bytes, the boundary scheme on a tie. */
img_recon fdw_img_recon_auto(const struct fdw_spec *s, img_mode mode, int term);

#endif
