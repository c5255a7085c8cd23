/* cpu_checkpoint.c — the CPU backend's part of a checkpoint (backend.h save / load): which
 * buffer is current, then per slab both field buffers whole (ghost planes and padding
 * included, so nothing need be exchanged again at resume) and the arrays of the kind's
 * state that change (cpu_kind.h state), then the receiver slots recorded so far. Every
 * array is length-prefixed, so a checkpoint made for another grid, plan or kind is
 * refused with what differs instead of read into the wrong place. */
#include "cpu/cpu_kind.h"
#include "core/error.h"
#include "run/ckpt_io.h"

#include <stdint.h>

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

fdw_status fdw_cpu_save(void *vctx, fdw_ckpt_io *io, fdw_error *err)
{
    const cpu_ctx *c = vctx;
    const int32_t head[3] = {c->cur, c->ndev, c->gslab};
    fdw_status st = fdw_ckpt_put(io, head, sizeof head, err);
    for (int d = 0; d < c->ndev && st == FDW_OK; d++) {
        const cpu_slab *s = &c->slab[d];
        for (int b = 0; b < 2 && st == FDW_OK; b++)
            st = fdw_ckpt_put_array(io, s->buf[b], buffer_bytes(c, s), err);
        fdw_state_part parts[FDW_MAX_STATE_PARTS];
        const int n = c->ops->state ? c->ops->state(s, parts) : 0;
        const int32_t count = n;
        if (st == FDW_OK)
            st = fdw_ckpt_put(io, &count, sizeof count, err);
        for (int q = 0; q < n && st == FDW_OK; q++)
            st = fdw_ckpt_put_array(io, parts[q].data, parts[q].bytes, err);
    }
    if (st == FDW_OK)
        st = fdw_ckpt_put_array(io, c->traces, trace_bytes(c), err);
    return st;
}

fdw_status fdw_cpu_load(void *vctx, fdw_ckpt_io *io, fdw_error *err)
{
    cpu_ctx *c = vctx;
    int32_t head[3];
    fdw_status st = fdw_ckpt_get(io, head, sizeof head, err);
    if (st != FDW_OK)
        return st;
    if ((head[0] != 0 && head[0] != 1) || head[1] != c->ndev || head[2] != c->gslab)
        return fdw_fail(err, FDW_ERR_IO, NULL,
                        "the checkpoint holds %d slab(s) from slab %d; this run has %d from "
                        "slab %d", head[1], head[2], c->ndev, c->gslab);
    c->cur = head[0];
    for (int d = 0; d < c->ndev && st == FDW_OK; d++) {
        cpu_slab *s = &c->slab[d];
        for (int b = 0; b < 2 && st == FDW_OK; b++)
            st = fdw_ckpt_get_array(io, s->buf[b], buffer_bytes(c, s), "a field buffer", err);
        fdw_state_part parts[FDW_MAX_STATE_PARTS];
        const int n = c->ops->state ? c->ops->state(s, parts) : 0;
        int32_t count = -1;
        if (st == FDW_OK)
            st = fdw_ckpt_get(io, &count, sizeof count, err);
        if (st == FDW_OK && count != n)
            return fdw_fail(err, FDW_ERR_IO, NULL,
                            "the checkpoint holds %d state arrays for slab %d; this run has %d",
                            count, d, n);
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
