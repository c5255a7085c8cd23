/* imaging_cpml.h — the CPML of the imaging kinds (docs/imaging.md, "CPML"): where its
 * memory variables live, which both engines share, and the CPU engine's operations on
 * them (cpu_imaging_cpml.c; the GPU's are kernels/imaging/fdwk_img_cpml.h).
 *
 * The forward step is the acoustic kind's (acoustic.h), per axis A with a layer:
 *     psi  = b psi + a D1 u,   g = D1 psi~,   zeta = b zeta + a (D2 u + g),
 *     u'  += V (g + zeta)                                  (x, then y, then z)
 * (psi~: psi on A's layer points, 0 elsewhere). Its exact transpose, in the adjoint field
 * z = V Z lambda the engines step (lambda the adjoint of u), with chi and phi the adjoints
 * of zeta and psi:
 *     chi  = b chi + z,        phi = b phi - D1 (z + a chi)~,
 *     z'  += V (D2 (a chi)~ - D1 (a phi)~)                 (x, then y, then z)
 * the last at every point within the radius of A's layers (the band). The layer term
 * c_A = g + zeta of the forward step (what V multiplies besides lap u) completes born's
 * source and the image: dV (lap u + c) and (lap u + c) z.
 *
 * A set of memory variables (psi and zeta, or chi and phi) is one array of 2 P floats,
 * P the layer points of all axes; axis A's first variable at 2 off_A, its second at
 * 2 off_A + count_A. A layer term is P floats, axis A's at off_A. Within an axis the
 * points are compact, as the acoustic kind's CPU and GPU keep them:
 *     x: ((k ny + j) W + l),   y: ((k W + l) nx + i),   z: ((l ny + j) nx + i)
 * (W = w0 + w1; layer index l < w0 is global index l, else n - w1 + l - w0). */
#ifndef FDW_IMAGING_CPML_H
#define FDW_IMAGING_CPML_H

#include "kinds/imaging/imaging.h"

#include <stddef.h>
#include <stdint.h>

typedef struct img_pml_axis {
    int n, w0, w1, W;          /* axis length, layer widths, W = w0 + w1 (0: no layer) */
    int blo, bhi;              /* the band: global indices [0, blo) and [bhi, n) */
    size_t lines;              /* lines along the axis (the other two axes' points) */
    size_t count, off;         /* layer points (lines W); the axis's place in a set */
    const float *a, *b;        /* per global index along the axis */
    float d1[FDW_MAX_RADIUS + 1], d2[FDW_MAX_RADIUS + 1];
} img_pml_axis;

typedef struct img_pml {
    int on;                    /* a layer on some axis */
    int nx, ny, nz, r, fs;     /* grid, radius, free surface (plane 0 held at 0) */
    ptrdiff_t pitch, plane;    /* the fields' row and plane strides */
    size_t count;              /* P: layer points of all axes */
    img_pml_axis ax[3];
} img_pml;

/* ---- imaging_cpml.c ---- */
/* The CPML of problem p for fields of row stride pitch and plane stride plane; g->on = 0
 * without one. */
void fdw_img_pml_init(img_pml *g, const fdw_problem *p, ptrdiff_t pitch, ptrdiff_t plane);
/* P of a spec's slab of planes [z0, z0 + nz) (0 unless its boundary is a CPML; its z
 * layers lie in the end slabs): the memory estimates' count. */
uint64_t fdw_img_pml_points(const struct fdw_spec *spec, int z0, int nz);
/* Floats the engines hold besides fields, per mode: born the two fields' sets and a
 * layer term; rtm and gradient the background's and the adjoint's sets, one set per
 * segment start 1 .. K-1 and, where the image takes lap u (term), a layer term per store
 * entry. */
uint64_t fdw_img_pml_floats(uint64_t P, img_mode mode, long K, int L, int term);

/* ---- cpu_imaging_cpml.c: fields are pointers at point (0, 0, 0), their padding and
 * ghost planes zero (or the free surface's mirror, which no CPML term reads) ---- */
/* After the plain update of up from u: the forward step's terms, set = psi, zeta. */
void img_pml_forward(const img_pml *g, float *set, const float *u, float *up, const float *v);
/* term = g + zeta of every layer point from the set of the step just taken. */
void img_pml_term(const img_pml *g, const float *set, float *term);
/* dst += f c_A at axis A's layer points, x, then y, then z (plane 0 left out under a free
 * surface, as the scheme holds it). */
void img_pml_apply(const img_pml *g, const float *term, const float *f, float *dst);
/* After the plain update of up from z: the transposed step's terms, set = chi, phi. */
void img_pml_adjoint(const img_pml *g, float *set, const float *z, float *up, const float *v);

#endif
