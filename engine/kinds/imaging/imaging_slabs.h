/* imaging_slabs.h — a shot of the imaging kinds over the plan's slabs (one or several
 * devices; docs/imaging.md, "Slabs"). The shot's grid is split along z as every kind
 * splits it (run/plan.h); each slab is an engine of its own (the CPU's, cpu_imaging.c, or
 * a GPU's, cuda_imaging.c) that sees a problem of its own planes: its part of V, dV, the
 * sponge and the CPML's z coefficients, a free surface only on the top slab, its source
 * taps and the receivers' (whose rows it records and feeds the adjoint through) where they
 * lie, global indices made local. Its ghost planes are its neighbours' planes
 * instead of zeros, refreshed after every engine step for the fields the step wrote, so
 * each point is computed with the same operations in the same order as on one slab: the
 * image, the gradient, the traces and the misfit are the one-slab run's bits.
 *
 * This module is that driver and the fdw_backend the kinds run: it builds the slabs'
 * problems, steps them by imaging_sched.c's units, exchanges their ghost planes, gathers
 * the receivers' rows, forms the adjoint's traces (the gradient's residual and misfit
 * once, on the host) and finishes the image over the whole grid (imaging_finish.c). */
#ifndef FDW_IMAGING_SLABS_H
#define FDW_IMAGING_SLABS_H

#include "kinds/imaging/imaging.h"

/* Most fields one engine step writes (born: u and du; the boundary scheme's step back: u
 * and z). */
#define IMG_MAX_WROTE 2

/* What one slab's engine does for the driver. Errors of asynchronous work may surface at
 * any later call that returns a status. */
typedef struct img_slab_ops {
    /* The engine of one slab problem (see above) on device dev. */
    fdw_status (*create)(const fdw_problem *slab, int dev, void **ctx, fdw_error *err);
    void (*destroy)(void *ctx);
    /* Around an engine step's work (NULL: nothing): begin forgets what the last step wrote
     * (and selects the slab's device); end returns the step's errors. */
    void (*begin)(void *ctx);
    fdw_status (*end)(void *ctx, fdw_error *err);
    /* The work of an engine step, which the driver picks as imaging_sched.c's unit says:
     * born's time step; a segment's start restored (before the unit's step); the forward
     * pass's step; a step recomputed into the store; the checkpointed scheme's adjoint
     * step; the boundary scheme's step back. Each lists the fields it wrote, and records
     * the receivers' rows on the slab's planes (a row lies in one plane, so it reads no
     * ghost plane). */
    void (*born_step)(void *ctx, long it);
    void (*restore)(void *ctx, long seg);
    void (*forward_step)(void *ctx, const img_unit *u);
    void (*recompute_step)(void *ctx, const img_unit *u);
    void (*adjoint_step)(void *ctx, const img_unit *u);
    void (*back_step)(void *ctx, const img_unit *u);
    /* dst's ghost planes of the fields the last step wrote, from src's planes next to
     * them: src_prev, src is the slab before dst (its last planes fill dst's top ghost
     * planes), else the one after it (its first planes fill dst's bottom ghost planes). */
    fdw_status (*halo)(void *dst, void *src, int src_prev, fdw_error *err);
    /* Ordering between slabs' queues (NULL where the work is done when a call returns):
     * fence marks the work issued so far on ctx; after makes ctx's later work wait for
     * other's last mark. */
    fdw_status (*fence)(void *ctx, fdw_error *err);
    fdw_status (*after)(void *ctx, void *other, fdw_error *err);
    /* The slab's recorded slots first .. first + count - 1, [slot][row] (rows it does not
     * record are 0). */
    fdw_status (*recordings)(void *ctx, long first, long count, float *host, fdw_error *err);
    /* rtm, gradient: the adjoint's traces, [receiver][slot], fed from the next step on. */
    fdw_status (*set_traces)(void *ctx, const float *traces, fdw_error *err);
    /* The sums of the slab's planes into image and illum (its part of the grid's arrays,
     * grid order; illum NULL: no illumination), the image scaled when scales is set. */
    fdw_status (*finish)(void *ctx, float *image, float *illum, fdw_error *err);
    /* Block until the slab's work is done. */
    fdw_status (*wait)(void *ctx, fdw_error *err);
    fdw_status (*peak)(void *ctx, uint32_t *bits, fdw_error *err);
    uint64_t (*bytes)(void *ctx);
    /* finish leaves the image scaled to the spec's parameter (fdw_img_scales) */
    int scales;
} img_slab_ops;

/* The kinds' backend over ops: create makes the slabs of prob's plan (a problem of one
 * process: prob->comm NULL), the rest of the table works through *ctx. */
fdw_status fdw_img_slabs_create(const img_slab_ops *ops, const fdw_problem *prob,
                                const fdw_plan *plan, void **ctx, fdw_error *err);
void fdw_img_slabs_destroy(void *ctx);
fdw_status fdw_img_slabs_step(void *ctx, long it, fdw_error *err);
fdw_status fdw_img_slabs_wait(void *ctx, fdw_error *err);
fdw_status fdw_img_slabs_fetch_receivers(void *ctx, long first, long count, float *host,
                                         fdw_error *err);
fdw_status fdw_img_slabs_peak(void *ctx, uint32_t *bits, fdw_error *err);
uint64_t fdw_img_slabs_device_bytes(void *ctx, int dev);

/* The fdw_backend entries of an engine whose create calls fdw_img_slabs_create. */
#define FDW_IMG_SLABS_TABLE(name_, create_)                                                  \
    {.name = name_, .create = create_, .destroy = fdw_img_slabs_destroy,                     \
     .step = fdw_img_slabs_step, .wait = fdw_img_slabs_wait,                                 \
     .fetch_receivers = fdw_img_slabs_fetch_receivers, .field_peak = fdw_img_slabs_peak,     \
     .device_bytes = fdw_img_slabs_device_bytes}

#endif
