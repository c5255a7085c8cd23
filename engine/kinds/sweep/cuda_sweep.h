/* cuda_sweep.h — the sweep kind's CUDA engine inside (cuda_sweep.c: the backend table,
 * GPUs, memory, launch shapes, the upload; cuda_sweep_run.c: one sweep, its figures and
 * timings, the copies back to the host). The parts of sweep_parts.h live on the plan's
 * GPUs (several on one GPU are one launch); a sub-sweep is a pre-pass over the stamps (the
 * first plane that can change) and one cooperative launch per GPU, in which parts wait for
 * each other across a cut every W planes (the reach) and compute the cells within W of it
 * meanwhile; a shuffle is a transposing copy per pair of parts, read from the source part's
 * GPU over peer access; one host thread issues every GPU's work (eight operations per
 * sweep), and events order the GPUs between operations. */
#ifndef FDW_CUDA_SWEEP_H
#define FDW_CUDA_SWEEP_H

#include "kinds/sweep/sweep.h"
#include "kinds/sweep/sweep_parts.h"
#include "run/backend.h"
#include "sweep/fdwk_sweep.h"

typedef struct sweep_gpu_part {
    int gpu;                   /* index in sweep_cuda.gpu */
    void *t[2];                /* T in layouts A and B */
    void *s[2];                /* slowness (field runs), else NULL */
    int32_t *stamp[2];
    unsigned long long *flags; /* one per block of its GPU's largest launch */
    unsigned long long *stats; /* 4: max change bits, changed, reached, computed */
    int *act;                  /* 2: the sub-sweep's active brick layers (pre-pass) */
    uint64_t bytes;
} sweep_gpu_part;

typedef struct sweep_gpu {
    int id;                    /* CUDA ordinal */
    int sms;
    fdwk_stream st;
    fdwk_event ev[SWEEP_NOPS + 1]; /* ev[0] at a sweep's start, ev[op + 1] after op */
    fdwk_event ev_pre;         /* after a sub-sweep's pre-pass */
    const int **acts;          /* device: every part's act (all GPUs), for the launches */
    int nparts;
    int parts[FDW_MAX_DEVICES];    /* its parts (plan slabs), in order */
    fdwk_sweep_part *desc[6];      /* device: its parts' launch descriptors per direction */
    fdwk_sweep_part *hdesc[6];     /* host copies */
    int blocks[6], threads[6];
    void *stage;               /* device staging of packs and unpacks */
    size_t stage_bytes;
} sweep_gpu;

typedef struct sweep_cuda {
    sweep_engine head;         /* first: read through fdw_run_state.ctx */
    fdw_problem prob;
    const fdw_sweep_data *d;
    sweep_parts parts;
    sweep_gpu_part part[FDW_MAX_DEVICES];
    sweep_gpu gpu[FDW_MAX_DEVICES];
    int ngpu;
    int f64, no_skip;
    int nosync;                /* benchmarks: blocks do not wait (wrong T; times compute) */
    long sweeps;
    sweep_stats *log;
    unsigned long long *hstats; /* pinned: 4 per part */
} sweep_cuda;

/* The element size of the run's precision. */
static inline size_t sweep_cuda_elem(const sweep_cuda *c) { return c->f64 ? 8 : 4; }
/* Part d's box of layout l as the kernels see it (array, stamps, lo, strides). */
fdwk_sweep_box sweep_cuda_box(const sweep_cuda *c, int d, int l, int slowness);
/* FDW_ERR_DEVICE naming GPU gpu, where, and the CUDA error rc. */
fdw_status sweep_cuda_fail(fdw_error *err, int gpu, int rc, const char *where);

/* cuda_sweep_run.c: the backend table's step, extract, fetch and wait. */
fdw_status sweep_cuda_step(void *vctx, long it, fdw_error *err);
fdw_status sweep_cuda_wait(void *vctx, fdw_error *err);
fdw_status sweep_cuda_extract(void *vctx, int nregions, const fdw_slice *regions,
                              float **host, fdw_error *err);
fdw_status sweep_cuda_fetch(void *vctx, void *out, int f64, fdw_error *err);

#endif
