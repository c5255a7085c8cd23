/* imaging_recon.c — the two ways rtm and gradient get the background field backwards in
 * time (imaging.h, docs/imaging.md "Reconstructing the source field"), as rules every
 * layer asks: the interior box and its band (the boundary scheme's geometry), the memory
 * each scheme holds beyond the working fields, and the scheme "auto" picks. */
#include "kinds/imaging/imaging_recon.h"
#include "kinds/imaging/imaging_cpml.h"

#include "spec/spec.h"

#include <string.h>

void fdw_img_interior(const fdw_spec *s, int lo[3], int hi[3])
{
    const fdw_boundary *b = &s->boundary;
    const int n[3] = {s->nx, s->ny, s->nz};
    for (int a = 0; a < 3; a++) {
        int w0 = b->width[2 * a], w1 = b->width[2 * a + 1];
        if (b->type == FDW_BOUNDARY_NONE)
            w0 = w1 = 0;
        if (a == 2 && b->free_surface) /* the surface has no layer */
            w0 = 0;
        lo[a] = w0 < n[a] ? w0 : n[a];
        hi[a] = n[a] - w1 > lo[a] ? n[a] - w1 : lo[a];
    }
}

/* g's points: the grown box less the interior. */
static void band_count(img_band *g)
{
    uint64_t box = 1, in = 1;
    for (int a = 0; a < 3; a++) {
        box *= (uint64_t)(g->dhi[a] - g->dlo[a]);
        in *= (uint64_t)(g->hi[a] - g->lo[a]);
    }
    g->points = box - in;
}

void img_band_init(img_band *g, const int lo[3], const int hi[3], const int n[3], int r)
{
    memset(g, 0, sizeof *g);
    for (int a = 0; a < 3; a++) {
        g->lo[a] = lo[a], g->hi[a] = hi[a];
        g->dlo[a] = lo[a] - r > 0 ? lo[a] - r : 0;
        g->dhi[a] = hi[a] + r < n[a] ? hi[a] + r : n[a];
    }
    band_count(g);
}

/* v - z0 within [lo, hi]. */
static int clip(int v, int z0, int lo, int hi)
{
    v -= z0;
    return v < lo ? lo : v > hi ? hi : v;
}

/* The grid's band g on the planes [z0, z0 + nz), in their local z, counted again. */
static void band_clip(img_band *g, int z0, int nz)
{
    g->dlo[2] = clip(g->dlo[2], z0, 0, nz);
    g->dhi[2] = clip(g->dhi[2], z0, 0, nz);
    g->lo[2] = clip(g->lo[2], z0, g->dlo[2], g->dhi[2]);
    g->hi[2] = clip(g->hi[2], z0, g->lo[2], g->dhi[2]);
    band_count(g);
}

void img_band_of(img_band *g, const fdw_problem *p)
{
    const fdw_img_data *d = p->kdata;
    const int n[3] = {p->nx, p->ny, d->nzg > 0 ? d->nzg : p->nz};
    img_band_init(g, d->ilo, d->ihi, n, p->radius);
    band_clip(g, d->z0, p->nz);
}

uint64_t img_band_floats(const img_band *g, long nt)
{
    return g->points * (uint64_t)(nt > 2 ? nt - 2 : 0);
}

void img_band_copy(const img_band *g, float *field, ptrdiff_t sy, ptrdiff_t sz, float *store,
                   int save)
{
    size_t at = 0;
    for (int k = g->dlo[2]; k < g->dhi[2]; k++)
        for (int j = g->dlo[1]; j < g->dhi[1]; j++) {
            float *row = field + (ptrdiff_t)k * sz + (ptrdiff_t)j * sy;
            const int inner = k >= g->lo[2] && k < g->hi[2] && j >= g->lo[1] && j < g->hi[1];
            /* a row beside the interior: its two pieces; else the whole row of the box */
            const int pieces[2][2] = {{g->dlo[0], inner ? g->lo[0] : g->dhi[0]},
                                      {inner ? g->hi[0] : g->dhi[0], g->dhi[0]}};
            for (int p = 0; p < 2; p++) {
                const size_t len = (size_t)(pieces[p][1] - pieces[p][0]);
                if (!len)
                    continue;
                if (save)
                    memcpy(store + at, row + pieces[p][0], len * sizeof(float));
                else
                    memcpy(row + pieces[p][0], store + at, len * sizeof(float));
                at += len;
            }
        }
}

/* The band of a spec's slab of planes [z0, z0 + nz). */
static img_band band_of(const fdw_spec *s, int z0, int nz)
{
    int lo[3], hi[3];
    const int n[3] = {s->nx, s->ny, s->nz};
    img_band g;
    fdw_img_interior(s, lo, hi);
    img_band_init(&g, lo, hi, n, s->radius);
    band_clip(&g, z0, nz);
    return g;
}

uint64_t fdw_img_field_bytes(const fdw_spec *s, int nz)
{
    const uint64_t pts = (uint64_t)s->nx * s->ny * (uint64_t)nz;
    const uint64_t pad =
        (uint64_t)(nz + 2 * s->radius) * (s->nx + 32) * (s->ny + 2 * s->radius);
    return 4 * (pad > pts ? pad : pts);
}

uint64_t fdw_img_recon_bytes(const fdw_spec *s, img_mode mode, int term, img_recon r, int z0,
                             int nz)
{
    if (mode == IMG_BORN)
        return 0;
    const uint64_t P = fdw_img_pml_points(s, z0, nz);
    if (r == IMG_RECON_BOUNDARY) { /* the bands; u's and z's CPML sets */
        const img_band g = band_of(s, z0, nz);
        return 4 * img_band_floats(&g, s->nt) + 4 * fdw_img_pml_floats(P, mode, 1, 0, 0);
    }
    const int L = fdw_img_segment(s->nt);
    const long K = (s->nt + L - 1) / L;
    return fdw_img_field_bytes(s, nz) * ((uint64_t)(K > 2 ? 2 * (K - 2) : 0) + (uint64_t)L) +
           4 * fdw_img_pml_floats(P, mode, K, L, term);
}

img_recon fdw_img_recon_auto(const fdw_spec *s, img_mode mode, int term)
{
    return fdw_img_recon_bytes(s, mode, term, IMG_RECON_BOUNDARY, 0, s->nz) <=
                   fdw_img_recon_bytes(s, mode, term, IMG_RECON_CHECKPOINTS, 0, s->nz)
               ? IMG_RECON_BOUNDARY
               : IMG_RECON_CHECKPOINTS;
}
