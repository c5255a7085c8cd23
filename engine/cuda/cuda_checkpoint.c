/* cuda_checkpoint.c — the CUDA backend's part of a checkpoint (backend.h save / load), in
 * the same order as the CPU backend's: which field is current, then per slab both field
 * allocations whole (ghost planes and padding included), the device arrays of the kind's
 * state that change (cuda_kind.h state), and the slab's receiver slots (a receiver whose
 * taps straddle two slabs keeps one partial sum on each). Arrays travel through one pinned
 * staging buffer in pieces, so a checkpoint needs no host copy of a whole field. Called
 * with no work in flight, from the loop's thread. */
#include "cuda/cuda_kind.h"
#include "core/error.h"
#include "fdwave/comm.h"
#include "run/ckpt_io.h"

#include <stdint.h>
#include <stdlib.h>

#define STAGE_BYTES ((size_t)64 << 20)

/* A pinned staging buffer (pageable when pinned memory cannot be had). */
typedef struct stage {
    void *p;
    int pinned;
} stage;

static fdw_status stage_get(stage *s, fdw_error *err)
{
    s->pinned = fdwk_host_alloc(&s->p, STAGE_BYTES) == 0;
    if (!s->pinned)
        s->p = malloc(STAGE_BYTES);
    return s->p ? FDW_OK
                : fdw_fail(err, FDW_ERR_NOMEM, NULL,
                           "out of host memory for the checkpoint's staging buffer (64 MiB)");
}

static void stage_put(stage *s)
{
    if (s->pinned)
        fdwk_host_free(s->p);
    else
        free(s->p);
}

/* bytes of device memory at src into the checkpoint, length-prefixed. */
static fdw_status put_device(fdw_ckpt_io *io, gpu_slab *g, const void *src, size_t bytes,
                             stage *s, fdw_error *err)
{
    fdw_status st = fdw_ckpt_put_len(io, bytes, err);
    for (size_t off = 0; off < bytes && st == FDW_OK; off += STAGE_BYTES) {
        const size_t n = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
        int rc = fdwk_d2h(s->p, (const char *)src + off, n);
        if (rc)
            return cuda_device_fail(err, g, rc, "copying a checkpoint to the host");
        st = fdw_ckpt_put(io, s->p, n, err);
    }
    return st;
}

/* The inverse: bytes from the checkpoint into device memory at dst. */
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

static int32_t first_slab(const cuda_ctx *c)
{
    return c->prob.comm ? c->prob.comm->rank : 0;
}

fdw_status fdw_cuda_save(void *vctx, fdw_ckpt_io *io, fdw_error *err)
{
    cuda_ctx *c = vctx;
    const int32_t head[3] = {c->cur, c->ndev, first_slab(c)};
    stage s;
    fdw_status st = stage_get(&s, err);
    if (st != FDW_OK)
        return st;
    st = fdw_ckpt_put(io, head, sizeof head, err);
    for (int d = 0; d < c->ndev && st == FDW_OK; d++) {
        gpu_slab *g = &c->dev[d];
        int rc = fdwk_set_device(g->id);
        if (rc) {
            st = cuda_device_fail(err, g, rc, "selecting the GPU for a checkpoint");
            break;
        }
        for (int b = 0; b < 2 && st == FDW_OK; b++)
            st = put_device(io, g, g->raw[b], g->L.total * sizeof(float), &s, err);
        fdw_state_part parts[FDW_MAX_STATE_PARTS];
        const int n = c->ops->state ? c->ops->state(g, parts) : 0;
        const int32_t count = n;
        if (st == FDW_OK)
            st = fdw_ckpt_put(io, &count, sizeof count, err);
        for (int q = 0; q < n && st == FDW_OK; q++)
            st = put_device(io, g, parts[q].data, parts[q].bytes, &s, err);
        if (st == FDW_OK)
            st = put_device(io, g, g->rec, rec_bytes(c, g), &s, err);
    }
    stage_put(&s);
    return st;
}

fdw_status fdw_cuda_load(void *vctx, fdw_ckpt_io *io, fdw_error *err)
{
    cuda_ctx *c = vctx;
    int32_t head[3];
    fdw_status st = fdw_ckpt_get(io, head, sizeof head, err);
    if (st != FDW_OK)
        return st;
    if ((head[0] != 0 && head[0] != 1) || head[1] != c->ndev || head[2] != first_slab(c))
        return fdw_fail(err, FDW_ERR_IO, NULL,
                        "the checkpoint holds %d slab(s) from slab %d; this run has %d from "
                        "slab %d", head[1], head[2], c->ndev, first_slab(c));
    stage s;
    st = stage_get(&s, err);
    if (st != FDW_OK)
        return st;
    for (int d = 0; d < c->ndev && st == FDW_OK; d++) {
        gpu_slab *g = &c->dev[d];
        int rc = fdwk_set_device(g->id);
        if (rc) {
            st = cuda_device_fail(err, g, rc, "selecting the GPU for a checkpoint");
            break;
        }
        for (int b = 0; b < 2 && st == FDW_OK; b++)
            st = get_device(io, g, g->raw[b], g->L.total * sizeof(float), "a field", &s, err);
        fdw_state_part parts[FDW_MAX_STATE_PARTS];
        const int n = c->ops->state ? c->ops->state(g, parts) : 0;
        int32_t count = -1;
        if (st == FDW_OK)
            st = fdw_ckpt_get(io, &count, sizeof count, err);
        if (st == FDW_OK && count != n)
            st = fdw_fail(err, FDW_ERR_IO, NULL,
                          "the checkpoint holds %d state arrays for slab %d; this run has %d",
                          count, d, n);
        for (int q = 0; q < n && st == FDW_OK; q++)
            st = get_device(io, g, parts[q].data, parts[q].bytes, "the kind's state", &s, err);
        if (st == FDW_OK)
            st = get_device(io, g, g->rec, rec_bytes(c, g), "receiver recordings", &s, err);
    }
    stage_put(&s);
    if (st == FDW_OK)
        c->cur = head[0];
    return st;
}
