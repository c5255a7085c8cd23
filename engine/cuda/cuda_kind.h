/* cuda_kind.h — what a job kind gives the CUDA backend (fdw_kind_ops.run.cuda): its per-slab
 * device state and its update of a range of planes, issued on a stream. The backend owns
 * everything shared: slab fields and layout, streams, events, the multi-GPU step order and
 * ghost pushes, MPI, snapshots, and for wave kinds the sponge arrays, free-surface mirror,
 * sources and receivers. The hooks talk to the GPU only through the kernels' C headers. */
#ifndef FDW_CUDA_KIND_H
#define FDW_CUDA_KIND_H

#include "cuda/cuda_impl.h"
#include "common/fdwk_fd.h"

typedef struct fdw_cuda_ops {
    /* Whole-layout per-point arrays the kind keeps besides the two fields (acoustic: 1,
     * (v dt)^2), for the memory estimates before anything is allocated. */
    int extra_arrays;
    /* 1: the slab layout has no ghost planes and the kind runs on one slab only (the
     * derivative, periodic inside its kernel). */
    int single_slab;
    /* Bytes of the kind's own device state of slab g besides its whole-layout arrays
     * (may be NULL). */
    uint64_t (*slab_bytes)(const fdw_problem *p, const gpu_slab *g);
    /* Allocate and upload slab g's kind state (g->kstate) on its GPU, stream g->se may be
     * used; called once the fields exist. */
    fdw_status (*slab_create)(cuda_ctx *c, gpu_slab *g, fdw_error *err);
    /* Free g->kstate (the slab's GPU is current). */
    void (*slab_destroy)(gpu_slab *g);
    /* Issue the update of local planes [k0, k1) of slab g from f[cur] into f[1 - cur] on
     * stream s; errors are noted on g (cuda_note). */
    void (*update)(const cuda_ctx *c, gpu_slab *g, int cur, int k0, int k1, fdwk_stream s);
    /* The device arrays of slab g's kind state that change from step to step, for
     * checkpoints (at most FDW_MAX_STATE_PARTS into parts; returns how many). NULL: none
     * change. */
    int (*state)(const gpu_slab *g, fdw_state_part *parts);
    /* What this backend cannot run of a problem and plan (may be NULL). */
    fdw_status (*check)(const fdw_problem *p, const fdw_plan *plan, fdw_error *err);
} fdw_cuda_ops;

/* The fields of the 2.5D kernel's arguments every kind that runs it sets alike: radius,
 * fields, slab geometry and layout, and the z chunk the run's tuning forces (0: automatic).
 * The kind adds its mode, coefficients and planes. */
void cuda_fd_args(const cuda_ctx *c, const gpu_slab *g, int cur, fdwk_fd_args *a);

#endif
