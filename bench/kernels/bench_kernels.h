/* bench_kernels.h — kernels that exist only to be measured against the product's, linked
 * into fdwave-bench alone (fdwave_bench_kernels): the seed paper's 16x16 design. */
#ifndef FDW_BENCH_KERNELS_H
#define FDW_BENCH_KERNELS_H

#include "common/fdwk_fd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The seed paper's design (Micikevicius 2009, appendix A): 16x16 threads, one output each,
 * order 8, acoustic, no sponge; the product's argument block (radius must be 4, mode
 * FDWK_ACOUSTIC; zchunk, config, sponge and CPML fields are ignored). */
int fdwk_seed16_step(const fdwk_fd_args *a, fdwk_stream s);

#ifdef __cplusplus
}
#endif
#endif
