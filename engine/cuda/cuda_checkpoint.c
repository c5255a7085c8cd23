/* cuda_checkpoint.c — the CUDA backend's part of a checkpoint (backend.h prepare, capture,
 * load), in the same order as the CPU backend's: which field is current, then per slab
 * both field allocations whole (ghost planes and padding included), the device arrays of
 * the kind's state that change (cuda_kind.h state), and the slab's receiver slots (a
 * receiver whose taps straddle two slabs keeps one partial sum on each). A capture copies
 * them on each slab's stream, 64 MiB at a time through two pinned staging buffers, into
 * one pageable host block (the image, allocated and touched once per run on the writer's
 * thread: pinning it whole held the loop for 3.8 s at 9.6 GiB on an H200 host), the host's
 * threads copying one buffer while the other fills, and returns once all has landed; the
 * checkpoint writer's thread writes the image while the GPUs step on.
 * Loading reads through a 64 MiB pinned staging buffer in pieces. Captures and loads run
 * with no work in flight, from the loop's thread; prepare may run on the writer's. */
#include "cuda/cuda_kind.h"
#include "core/error.h"
#include "core/host_memory.h"
#include "fdwave/comm.h"
#include "run/ckpt_image.h"
#include "run/ckpt_io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STAGE_BYTES FDW_CKPT_STAGE_BYTES
_Static_assert(FDW_CKPT_STAGES == 2, "take() fills one staging buffer while the other empties");

/* size bytes of pinned host memory, or of pageable memory (touched, so that a copy into it
 * does not fault its pages in) when pinned memory cannot be had; NULL when neither can. */
static void *host_get(size_t size, int *pinned)
{
    void *p = NULL;
    *pinned = fdwk_host_alloc(&p, size) == 0;
    if (!*pinned && (p = malloc(size)) != NULL)
        memset(p, 0, size);
    return p;
}

static void host_put(void *p, int pinned)
{
    if (pinned)
        fdwk_host_free(p);
    else
        free(p);
}

/* The staging buffer of a load. */
typedef struct stage {
    void *p;
    int pinned;
} stage;

static fdw_status stage_get(stage *s, fdw_error *err)
{
    s->p = host_get(STAGE_BYTES, &s->pinned);
    return s->p ? FDW_OK
                : fdw_fail(err, FDW_ERR_NOMEM, NULL,
                           "out of host memory for the checkpoint's staging buffer (64 MiB)");
}

static void stage_put(stage *s)
{
    host_put(s->p, s->pinned);
}

/* bytes from the checkpoint into device memory at dst (through the staging buffer). */
static fdw_status get_device(fdw_ckpt_io *io, gpu_slab *g, void *dst, size_t bytes,
                             const char *what, stage *s, fdw_error *err)
{
    fdw_status st = fdw_ckpt_get_len(io, bytes, what, err);
    for (size_t off = 0; off < bytes && st == FDW_OK; off += STAGE_BYTES) {
        const size_t n = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
        st = fdw_ckpt_get(io, s->p, n, err);
        if (st != FDW_OK)
            return st;
        int rc = fdwk_h2d((char *)dst + off, s->p, n);
        if (rc)
            return cuda_device_fail(err, g, rc, "copying a checkpoint to the GPU");
    }
    return st;
}

static size_t rec_bytes(const cuda_ctx *c, const gpu_slab *g)
{
    return g->rec ? (size_t)c->prob.nrec_slots * (size_t)c->prob.nreceivers * sizeof(float)
                  : 0;
}

static fdw_status select_gpu(gpu_slab *g, fdw_error *err)
{
    const int rc = fdwk_set_device(g->id);
    return rc ? cuda_device_fail(err, g, rc, "selecting the GPU for a checkpoint") : FDW_OK;
}

static int32_t first_slab(const cuda_ctx *c)
{
    return c->prob.comm ? c->prob.comm->rank : 0;
}

/* The arrays of slab g a checkpoint holds, in file order after the fields (the kind's
 * changing state): into parts, their count returned. */
static int state_parts(const cuda_ctx *c, gpu_slab *g, fdw_state_part *parts)
{
    return c->ops->state ? c->ops->state(g, parts) : 0;
}

/* The block of the host image: every array a capture takes, each at its aligned span. */
static size_t image_size(cuda_ctx *c)
{
    size_t n = 0;
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        fdw_state_part parts[FDW_MAX_STATE_PARTS];
        const int k = state_parts(c, g, parts);
        n += fdw_ckpt_image_slab_span(g->L.total * sizeof(float), parts, k) +
             fdw_ckpt_image_span(rec_bytes(c, g));
    }
    return n;
}

fdw_status fdw_cuda_prepare(void *vctx, fdw_error *err)
{
    cuda_ctx *c = vctx;
    if (c->ckpt_block)
        return FDW_OK;
    const size_t size = image_size(c);
    /* this thread's device first: an allocation on a thread without one would make a
     * context on GPU 0, which this run may not use */
    int rc = fdwk_set_device(c->dev[0].id);
    if (rc)
        return cuda_device_fail(err, &c->dev[0], rc, "selecting the GPU for the checkpoints' "
                                "image");
    if ((c->ckpt_block = malloc(size ? size : 1)) != NULL) /* pageable, touched by every thread */
        fdw_touch_pages(c->ckpt_block, size);
    for (int b = 0; b < 2 && c->ckpt_block; b++)
        if (!c->ckpt_stage[b])
            c->ckpt_stage[b] = host_get(STAGE_BYTES, &c->ckpt_stage_pinned[b]);
    if (!c->ckpt_block || !c->ckpt_stage[0] || !c->ckpt_stage[1]) {
        fdw_cuda_image_free(c);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                        "out of host memory for the checkpoints' image (%.1f MiB)",
                        (double)size / (1024.0 * 1024.0));
    }
    c->ckpt_size = size;
    return FDW_OK;
}

void fdw_cuda_image_free(cuda_ctx *c)
{
    free(c->ckpt_block);
    c->ckpt_block = NULL;
    for (int b = 0; b < 2; b++) {
        if (c->ckpt_stage[b])
            host_put(c->ckpt_stage[b], c->ckpt_stage_pinned[b]);
        c->ckpt_stage[b] = NULL;
    }
}

/* bytes of device memory at src into the image, on slab g's stream through the two
 * staging buffers: piece i + 1 is copied off the device while the host copies piece i. */
static fdw_status take(cuda_ctx *c, fdw_ckpt_image *img, gpu_slab *g, const void *src,
                       size_t bytes, fdw_error *err)
{
    char *dst = fdw_ckpt_image_array(img, bytes, err);
    if (!dst)
        return err ? err->code : FDW_ERR_INTERNAL;
    const size_t pieces = (bytes + STAGE_BYTES - 1) / STAGE_BYTES;
    int rc = 0;
    for (size_t i = 0; i <= pieces && !rc; i++) {
        if (i < pieces) { /* piece i into stage i % 2 (piece i - 2, its last use, is done) */
            const size_t o = i * STAGE_BYTES;
            rc = fdwk_d2h_async(c->ckpt_stage[i % 2], (const char *)src + o,
                                bytes - o < STAGE_BYTES ? bytes - o : STAGE_BYTES, g->si);
        }
        if (!rc && i > 0) { /* piece i - 1, landed once the stream has passed it */
            const size_t o = (i - 1) * STAGE_BYTES;
            fdw_copy_parallel(dst + o, c->ckpt_stage[(i - 1) % 2],
                          bytes - o < STAGE_BYTES ? bytes - o : STAGE_BYTES);
        }
        if (!rc && i < pieces)
            rc = fdwk_stream_sync(g->si);
    }
    return rc ? cuda_device_fail(err, g, rc, "copying a checkpoint to host memory") : FDW_OK;
}

/* Slab by slab, array by array, into the image (see take). */
fdw_status fdw_cuda_capture(void *vctx, fdw_ckpt_image *img, fdw_error *err)
{
    cuda_ctx *c = vctx;
    fdw_status st = fdw_cuda_prepare(c, err);
    if (st != FDW_OK)
        return st;
    fdw_ckpt_image_begin(img, c->ckpt_block, c->ckpt_size);
    st = fdw_ckpt_image_head(img, c->cur, c->ndev, first_slab(c), err);
    for (int d = 0; d < c->ndev && st == FDW_OK; d++) {
        gpu_slab *g = &c->dev[d];
        if ((st = select_gpu(g, err)) != FDW_OK)
            break;
        for (int b = 0; b < 2 && st == FDW_OK; b++)
            st = take(c, img, g, g->raw[b], g->L.total * sizeof(float), err);
        fdw_state_part parts[FDW_MAX_STATE_PARTS];
        const int n = state_parts(c, g, parts);
        if (st == FDW_OK)
            st = fdw_ckpt_image_count(img, n, err);
        for (int q = 0; q < n && st == FDW_OK; q++)
            st = take(c, img, g, parts[q].data, parts[q].bytes, err);
        if (st == FDW_OK)
            st = take(c, img, g, g->rec, rec_bytes(c, g), err);
    }
    return st;
}

fdw_status fdw_cuda_load(void *vctx, fdw_ckpt_io *io, fdw_error *err)
{
    cuda_ctx *c = vctx;
    int cur = 0;
    fdw_status st = fdw_ckpt_get_head(io, c->ndev, first_slab(c), &cur, err);
    if (st != FDW_OK)
        return st;
    stage s;
    st = stage_get(&s, err);
    if (st != FDW_OK)
        return st;
    for (int d = 0; d < c->ndev && st == FDW_OK; d++) {
        gpu_slab *g = &c->dev[d];
        if ((st = select_gpu(g, err)) != FDW_OK)
            break;
        for (int b = 0; b < 2 && st == FDW_OK; b++)
            st = get_device(io, g, g->raw[b], g->L.total * sizeof(float), "a field", &s, err);
        fdw_state_part parts[FDW_MAX_STATE_PARTS];
        const int n = c->ops->state ? c->ops->state(g, parts) : 0;
        if (st == FDW_OK)
            st = fdw_ckpt_get_count(io, n, d, err);
        for (int q = 0; q < n && st == FDW_OK; q++)
            st = get_device(io, g, parts[q].data, parts[q].bytes, "the kind's state", &s, err);
        if (st == FDW_OK)
            st = get_device(io, g, g->rec, rec_bytes(c, g), "receiver recordings", &s, err);
    }
    stage_put(&s);
    if (st == FDW_OK)
        c->cur = cur;
    return st;
}
