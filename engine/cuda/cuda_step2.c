/* cuda_step2.c — two time steps per pass on the CUDA backend (run/backend.h's step2 and
 * steps_per_pass; issue 19): one slab on one GPU, the kind's 2.5D arguments (its fd_args
 * hook) through the two-step kernel (kernels/common/fd_two_step.cu: acoustic, stencil). The pass
 * reads u(t) and u(t - dt) and writes u(t + dt) and u(t + 2 dt) into two spare fields
 * (neighbouring blocks recompute each other's edges of step it from the old fields, so no
 * field can be overwritten in place); then the spare pair and the old pair trade places, so f[cur] and
 * f[1 - cur] mean what they mean after single steps (snapshots, checkpoints, receivers).
 * The kernel gives the bits of two single steps but is slower than one step per pass
 * (0.30x at order 8 on an H200, docs/gpu.md), so a pass takes two steps only when the run's
 * tuning asks for it. */
#include "cuda/cuda_kind.h"
#include "core/error.h"
#include "kinds/kind.h"

#include <string.h>

/* What keeps this job from two steps per pass on this backend; NULL: nothing. */
static const char *obstacle(const cuda_ctx *c)
{
    if (c->mpi)
        return "a distributed run";
    if (c->ndev != 1)
        return "several slabs (the two-step kernel runs on one slab)";
    if (!c->ops->fd_args)
        return "the kind has no two-step kernel";
    const gpu_slab *g = &c->dev[0];
    if (g->split || g->si != g->se)
        return "a split slab";
    if (c->prob.radius > fdwk_fd_step2_max_radius())
        return "orders above 8 (the two-step kernel takes radius 1 to 4)";
    if (!fdwk_fd_step2_fits(c->prob.radius))
        return "the two-step kernel's shared memory does not fit this GPU";
    return c->ops->update2_obstacle ? c->ops->update2_obstacle(c) : NULL;
}

/* The two spare fields, zeroed (their padding and ghost planes stay zero: the kernel
 * writes interiors only). */
static const char *make_spares(cuda_ctx *c)
{
    gpu_slab *g = &c->dev[0];
    if (g->raw2[0])
        return NULL;
    const size_t bytes = g->L.total * sizeof(float);
    const long org = fdwk_origin(&g->L);
    for (int b = 0; b < 2; b++) {
        if (fdwk_malloc((void **)&g->raw2[b], bytes) ||
            fdwk_memset_async(g->raw2[b], 0, bytes, g->se)) {
            fdwk_free(g->raw2[0]);
            fdwk_free(g->raw2[1]);
            g->raw2[0] = g->raw2[1] = NULL;
            return "no GPU memory for the two further fields it needs";
        }
        g->f2[b] = g->raw2[b] + org;
    }
    if (fdwk_stream_sync(g->se))
        return "zeroing its two further fields failed";
    g->bytes += 2 * bytes;
    return NULL;
}

int cuda_steps_per_pass(void *vctx, const char **why)
{
    cuda_ctx *c = vctx;
    const char *ob = fdwk_set_device(c->dev[0].id) ? "the GPU could not be selected" : NULL;
    if (!ob)
        ob = obstacle(c); /* its kernel checks ask the current device */
    if (!ob && c->prob.tuning->steps_per_pass != 2)
        ob = "the CUDA backend's choice: its two-step kernel is slower than one step per pass "
             "(docs/gpu.md)";
    if (!ob)
        ob = make_spares(c);
    *why = ob;
    return ob ? 1 : 2;
}

fdw_status cuda_step2(void *vctx, long it, fdw_error *err)
{
    cuda_ctx *c = vctx;
    gpu_slab *g = &c->dev[0];
    if (!g->raw2[0]) { /* steps_per_pass said 1 (it makes the spares when it says 2) */
        fdw_status st = cuda_step(vctx, it, err);
        return st == FDW_OK ? cuda_step(vctx, it + 1, err) : st;
    }
    const fdw_problem *p = &c->prob;
    const int cur = c->cur;
    float *out1 = g->f2[0], *out2 = g->f2[1];
    cuda_note(g, fdwk_set_device(g->id), "cudaSetDevice");
    if (p->kind->wave && p->free_surface && g->z0 == 0)
        cuda_note(g, fdwk_free_surface(g->f[cur], &g->L, p->radius, g->se), "free surface");
    const src_set *src = &g->src_int;
    fdwk_fd2_args a2;
    memset(&a2, 0, sizeof a2);
    c->ops->fd_args(c, g, cur, 0, g->nz, &a2.a);
    a2.out1 = out1;
    a2.out2 = out2;
    a2.nz = g->nz;
    a2.it = it;
    if (p->kind->wave) { /* step it's sources go in inside the kernel */
        a2.npoints = src->npoints;
        a2.offset = src->offset;
        a2.start = src->start;
        a2.owner = src->owner;
        a2.weight = src->weight;
        a2.wavelets = g->wavelets;
        a2.nt = p->nt;
    }
    cuda_note(g, fdwk_fd_step2(&a2, g->se), "two-step kernel");
    if (p->kind->wave) /* step it + 1's sources and both steps' receivers, as after one */
        cuda_inject(c, g, src, out2, it + 1, g->se);
    cuda_record(c, g, it, out1);
    cuda_record(c, g, it + 1, out2);
    /* the new fields take the places of the old ones, the old ones become the spares */
    float *raw_prev = g->raw[1 - cur], *raw_cur = g->raw[cur];
    float *f_prev = g->f[1 - cur], *f_cur = g->f[cur];
    g->raw[1 - cur] = g->raw2[0];
    g->f[1 - cur] = out1;
    g->raw[cur] = g->raw2[1];
    g->f[cur] = out2;
    g->raw2[0] = raw_prev;
    g->f2[0] = f_prev;
    g->raw2[1] = raw_cur;
    g->f2[1] = f_cur;
    c->steps += 2;
    return cuda_collect_status(c, err);
}
