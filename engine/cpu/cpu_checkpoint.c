/* cpu_checkpoint.c — the CPU backend's part of a checkpoint (backend.h prepare, capture,
 * load): which buffer is current, then per slab both field buffers whole (ghost planes
 * and padding included, so nothing need be exchanged again at resume) and the arrays of
 * the kind's state that change (cpu_kind.h state), then the receiver slots recorded so
 * far. Every array is length-prefixed, so a checkpoint made for another grid, plan or kind
 * is refused with what differs instead of read into the wrong place. A capture copies
 * them (memcpy over the threads) into one host block allocated once per run, which the
 * checkpoint writer's thread writes while the steps go on: the steps update the slabs'
 * buffers in place, so the copy is what lets the loop continue. */
#include "cpu/cpu_kind.h"
#include "core/error.h"
#include "core/host_memory.h"
#include "run/ckpt_image.h"
#include "run/ckpt_io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of one field buffer of slab s (as cpu_create allocates it). */
static size_t buffer_bytes(const cpu_ctx *c, const cpu_slab *s)
{
    return (size_t)(s->nz + 2 * c->r) * (size_t)c->plane * sizeof(float);
}

static size_t trace_bytes(const cpu_ctx *c)
{
    return c->traces ? (size_t)c->prob.nrec_slots * (size_t)c->prob.nreceivers * sizeof(float)
                     : 0;
}

/* The block of the host image: every array a capture takes, each at its aligned span. */
static size_t image_size(const cpu_ctx *c)
{
    size_t n = fdw_ckpt_image_span(trace_bytes(c));
    for (int d = 0; d < c->ndev; d++) {
        fdw_state_part parts[FDW_MAX_STATE_PARTS];
        const int k = c->ops->state ? c->ops->state(&c->slab[d], parts) : 0;
        n += fdw_ckpt_image_slab_span(buffer_bytes(c, &c->slab[d]), parts, k);
    }
    return n;
}

fdw_status fdw_cpu_prepare(void *vctx, fdw_error *err)
{
    cpu_ctx *c = vctx;
    if (c->ckpt_block)
        return FDW_OK;
    const size_t size = image_size(c);
    void *p = aligned_alloc(64, fdw_ckpt_image_span(size > 0 ? size : 1));
    if (!p)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                        "out of host memory for the checkpoints' image (%.1f MiB)",
                        (double)size / (1024.0 * 1024.0));
    /* touched here, so that a capture copies at full speed instead of faulting pages in */
    fdw_touch_pages(p, size);
    c->ckpt_block = p;
    c->ckpt_size = size;
    return FDW_OK;
}

/* One array of the state into the image. */
static fdw_status take(fdw_ckpt_image *img, const void *src, size_t bytes, fdw_error *err)
{
    void *dst = fdw_ckpt_image_array(img, bytes, err);
    if (!dst)
        return err ? err->code : FDW_ERR_INTERNAL;
    if (bytes > 0)
        fdw_copy_parallel(dst, src, bytes); /* a capture copies the state in the loop's time */
    return FDW_OK;
}

fdw_status fdw_cpu_capture(void *vctx, fdw_ckpt_image *img, fdw_error *err)
{
    cpu_ctx *c = vctx;
    fdw_status st = fdw_cpu_prepare(c, err);
    if (st != FDW_OK)
        return st;
    fdw_ckpt_image_begin(img, c->ckpt_block, c->ckpt_size);
    st = fdw_ckpt_image_head(img, c->cur, c->ndev, c->gslab, err);
    for (int d = 0; d < c->ndev && st == FDW_OK; d++) {
        const cpu_slab *s = &c->slab[d];
        for (int b = 0; b < 2 && st == FDW_OK; b++)
            st = take(img, s->buf[b], buffer_bytes(c, s), err);
        fdw_state_part parts[FDW_MAX_STATE_PARTS];
        const int n = c->ops->state ? c->ops->state(s, parts) : 0;
        if (st == FDW_OK)
            st = fdw_ckpt_image_count(img, n, err);
        for (int q = 0; q < n && st == FDW_OK; q++)
            st = take(img, parts[q].data, parts[q].bytes, err);
    }
    if (st == FDW_OK)
        st = take(img, c->traces, trace_bytes(c), err);
    return st;
}

fdw_status fdw_cpu_load(void *vctx, fdw_ckpt_io *io, fdw_error *err)
{
    cpu_ctx *c = vctx;
    fdw_status st = fdw_ckpt_get_head(io, c->ndev, c->gslab, &c->cur, err);
    for (int d = 0; d < c->ndev && st == FDW_OK; d++) {
        cpu_slab *s = &c->slab[d];
        for (int b = 0; b < 2 && st == FDW_OK; b++)
            st = fdw_ckpt_get_array(io, s->buf[b], buffer_bytes(c, s), "a field buffer", err);
        fdw_state_part parts[FDW_MAX_STATE_PARTS];
        const int n = c->ops->state ? c->ops->state(s, parts) : 0;
        if (st == FDW_OK)
            st = fdw_ckpt_get_count(io, n, d, err);
        for (int q = 0; q < n && st == FDW_OK; q++)
            st = fdw_ckpt_get_array(io, parts[q].data, parts[q].bytes, "the kind's state",
                                    err);
    }
    if (st == FDW_OK)
        st = fdw_ckpt_get_array(io, c->traces, trace_bytes(c), "receiver recordings", err);
    /* The buffers hold their ghost planes as they were: nothing to exchange first. */
    if (st == FDW_OK)
        c->ghosts_stale = 0;
    return st;
}
