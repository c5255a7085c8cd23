/* bench_ete.h — fdwave-bench's "ete" section (bench_ete.c): the ETE kind's kernels on 512^3
 * and 1024x1024x512 with 900 velocities at random, the seed's three-kernel decomposition,
 * the whole job against the bare kernel, and the seed's Table 3 case (320x320x912, 1 s)
 * for ETE at 1 ms against the acoustic kind at 0.2 ms. */
#ifndef FDW_BENCH_ETE_H
#define FDW_BENCH_ETE_H

#include <jansson.h>

/* Records go to records (one object each, with device, date and command); copy_bps is the
 * run's measured copy bandwidth (bytes read + written per second); quick: smaller grids. */
void bench_ete(json_t *records, double copy_bps, const char *device, const char *date,
               const char *command, int quick);

#endif
