/* stencil.h — the stencil-only kind's data (seed: Micikevicius 2009, eq. 1): its spec
 * members (fdw_spec.kspec) and its problem data (fdw_problem.kdata). */
#ifndef FDW_STENCIL_H
#define FDW_STENCIL_H

#include "core/limits.h"

#include <stdint.h>

typedef struct fdw_stencil_spec {
    /* D' = c0 D + sum_i ci (6 neighbours at distance i); given or the default (the
     * order's 3-D Laplacian scaled so the update is stable). */
    double c[FDW_MAX_RADIUS + 1];
    int c_given;
    /* "seed" of the pseudo-random initial field; the field is a hash of (seed, flat
     * index), so it does not depend on the decomposition. */
    long seed;
} fdw_stencil_spec;

typedef struct fdw_stencil_data {
    float sc[FDW_MAX_RADIUS + 1];
} fdw_stencil_data;

/* The initial value at flat index idx: a hash of (seed, idx) mapped to [-1, 1], so the
 * same whatever the decomposition. */
float fdw_stencil_init_value(long seed, uint64_t idx);

#endif
