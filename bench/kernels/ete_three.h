/* ete_three.h — the seed paper's three-kernel ETE decomposition (Fang et al. 2015), for
 * fdwave-bench only: (a) the 21 points of the xz plane (x and z axes, centre, (+-1, 0, +-1))
 * write p(t + dt), then (b) the 8 points with y > 0 and (c) the 8 with y < 0 each read and
 * write it again: 42 bytes per point against the product's 14. Same operator as
 * kernels/ete (ETE pair weights, ete.h), summed in another order, so equal within rounding,
 * not bit for bit; no sponge or free surface. */
#ifndef FDW_ETE_THREE_H
#define FDW_ETE_THREE_H

#include "ete/fdwk_ete.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One step of a->k0..a->k1 as three kernels on stream s (variant, zchunk ignored). */
int fdwk_ete_three_step(const fdwk_ete_args *a, fdwk_stream s);

#ifdef __cplusplus
}
#endif
#endif
