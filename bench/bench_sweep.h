/* bench_sweep.h — fdwave-bench's "sweep" section (bench_sweep.c): the sweep kind's CUDA
 * engine on the seed paper's table sizes, 8 sweeps, its figures per sweep and per
 * operation, against the memory bound and the compute floor. */
#ifndef FDW_BENCH_SWEEP_H
#define FDW_BENCH_SWEEP_H

#include <jansson.h>

/* What the section needs of the benchmark run: where its records go, the measured copy
 * bandwidth (bytes read + written per second), the device's name, the run's date and
 * command line (in every record), --quick, and --gpus. */
typedef struct bench_sweep_ctx {
    json_t *records;
    double copy_bps;
    const char *device, *date, *command;
    int quick, gpus;
} bench_sweep_ctx;

void bench_sweep(const bench_sweep_ctx *b);

#endif
