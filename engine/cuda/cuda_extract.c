/* cuda_extract.c — copies from the GPUs back to the host: snapshot slices through pinned
 * staging buffers, each slab's copies followed by an event that extract_done polls, so
 * the loop keeps issuing steps while they travel; volumes straight into the engine's
 * buffer; waiting; and the receiver traces, summed over the slabs that hold taps of a
 * receiver. */
#include "cuda/cuda_impl.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

static pending_copy *get_pending(cuda_ctx *c, size_t floats, int nregions)
{
    pending_copy *pc = NULL;
    for (int i = 0; i < c->npend; i++)
        if (!c->pend[i].busy && c->pend[i].cap >= floats) {
            pc = &c->pend[i];
            break;
        }
    if (!pc) {
        pending_copy *np = realloc(c->pend, sizeof *np * (size_t)(c->npend + 1));
        if (!np)
            return NULL;
        c->pend = np;
        pc = &c->pend[c->npend++];
        memset(pc, 0, sizeof *pc);
        if (fdwk_host_alloc((void **)&pc->pinned, floats * sizeof(float) + 64)) {
            c->npend--;
            return NULL;
        }
        pc->cap = floats;
    }
    free(pc->dst);
    free(pc->off);
    free(pc->n);
    pc->dst = calloc((size_t)nregions, sizeof *pc->dst);
    pc->off = calloc((size_t)nregions, sizeof *pc->off);
    pc->n = calloc((size_t)nregions, sizeof *pc->n);
    if (!pc->dst || !pc->off || !pc->n)
        return NULL;
    pc->nregions = nregions;
    pc->busy = 1;
    return pc;
}

/* Copy the part of region rg held by slab g into dst (host, region-ordered). */
static int extract_part(gpu_slab *g, const fdw_problem *p, const fdw_slice *rg, int b,
                        float *dst, int pinned_ok)
{
    const fdwk_layout *L = &g->L;
    const size_t fl = sizeof(float);
    const float *f = g->f[b];
    int rc = 0;
    switch (rg->plane) {
    case FDW_PLANE_XY:
        if (rg->index >= g->z0 && rg->index < g->z0 + g->nz)
            rc = fdwk_d2h_2d_async(dst, (size_t)p->nx * fl, f + (long)(rg->index - g->z0) * L->plane,
                                   (size_t)L->pitch * fl, (size_t)p->nx * fl, (size_t)p->ny, g->si);
        break;
    case FDW_PLANE_XZ:
        rc = fdwk_d2h_2d_async(dst + (size_t)g->z0 * p->nx, (size_t)p->nx * fl,
                               f + (long)rg->index * L->pitch, (size_t)L->plane * fl,
                               (size_t)p->nx * fl, (size_t)g->nz, g->si);
        break;
    case FDW_PLANE_YZ: {
        size_t need = (size_t)p->ny * g->nz;
        if (need > g->stage_cap) {
            rc = fdwk_stream_sync(g->si);
            if (!rc) {
                fdwk_free(g->stage);
                g->stage = NULL;
                g->stage_cap = 0;
                rc = fdwk_malloc((void **)&g->stage, need * fl);
                if (!rc)
                    g->stage_cap = need;
            }
        }
        if (!rc)
            rc = fdwk_gather(g->stage, f, L, rg->index, 1, 0, p->ny, 0, g->nz, g->si);
        if (!rc)
            rc = fdwk_d2h_async(dst + (size_t)g->z0 * p->ny, g->stage, need * fl, g->si);
        break;
    }
    case FDW_PLANE_VOLUME:
        for (int k = 0; k < g->nz && !rc; k++)
            rc = fdwk_d2h_2d_async(dst + ((size_t)(g->z0 + k) * p->ny) * p->nx, (size_t)p->nx * fl,
                                   f + (long)k * L->plane, (size_t)L->pitch * fl,
                                   (size_t)p->nx * fl, (size_t)p->ny, g->si);
        break;
    }
    (void)pinned_ok;
    return rc;
}

fdw_status cuda_extract(void *vctx, int nregions, const fdw_slice *regions, float **host,
                               fdw_error *err)
{
    cuda_ctx *c = vctx;
    const fdw_problem *p = &c->prob;
    size_t total = 0;
    for (int q = 0; q < nregions; q++) {
        size_t n = fdw_region_floats(p, &regions[q]);
        if (!n || !host[q])
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                            "cuda backend: extract region %d (plane %d, index %d) is outside "
                            "the %dx%dx%d grid",
                            q, (int)regions[q].plane, regions[q].index, p->nx, p->ny, p->nz);
        if (regions[q].plane != FDW_PLANE_VOLUME)
            total += n;
    }
    /* Slices go through a pinned buffer (truly asynchronous); volumes are copied straight
     * into the engine's buffer (the copy waits for the queued steps). */
    pending_copy *pc = NULL;
    if (total > 0) {
        pc = get_pending(c, total, nregions);
        if (!pc)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                            "cuda backend: no pinned host memory for %zu snapshot floats", total);
    }
    size_t off = 0;
    for (int q = 0; q < nregions; q++) {
        const fdw_slice *rg = &regions[q];
        float *dst = host[q];
        if (rg->plane != FDW_PLANE_VOLUME) {
            pc->dst[q] = host[q];
            pc->off[q] = off;
            pc->n[q] = fdw_region_floats(p, rg);
            dst = pc->pinned + off;
            off += pc->n[q];
        }
        for (int d = 0; d < c->ndev; d++) {
            gpu_slab *g = &c->dev[d];
            int rc = fdwk_set_device(g->id);
            if (!rc)
                rc = extract_part(g, p, rg, c->cur, dst, 1);
            if (rc)
                return cuda_device_fail(err, g, rc, "snapshot copy");
        }
    }
    /* Each slab's copies end with an event, which extract_done() polls. */
    for (int d = 0; pc && d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        int rc = fdwk_set_device(g->id);
        if (!rc && !pc->ev[d])
            rc = fdwk_event_create(&pc->ev[d], 0);
        if (!rc)
            rc = fdwk_event_record(pc->ev[d], g->si);
        if (rc)
            return cuda_device_fail(err, g, rc, "snapshot copy event");
    }
    return FDW_OK;
}

/* Hand a finished copy's regions from the pinned staging to the engine's buffers. */
static void deliver(pending_copy *pc)
{
    for (int q = 0; q < pc->nregions; q++)
        if (pc->dst[q])
            memcpy(pc->dst[q], pc->pinned + pc->off[q], pc->n[q] * sizeof(float));
    pc->busy = 0;
}

fdw_status cuda_extract_done(void *vctx, int *done, fdw_error *err)
{
    cuda_ctx *c = vctx;
    *done = 1;
    for (int i = 0; i < c->npend; i++) {
        pending_copy *pc = &c->pend[i];
        if (!pc->busy)
            continue;
        int all = 1;
        for (int d = 0; d < c->ndev && all; d++) {
            gpu_slab *g = &c->dev[d];
            int fin = 1, rc = fdwk_set_device(g->id);
            if (!rc && pc->ev[d])
                rc = fdwk_event_query(pc->ev[d], &fin);
            if (rc)
                return cuda_device_fail(err, g, rc, "snapshot copy");
            all = fin;
        }
        if (all)
            deliver(pc);
        else
            *done = 0;
    }
    return FDW_OK;
}

fdw_status cuda_wait(void *vctx, fdw_error *err)
{
    cuda_ctx *c = vctx;
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        int rc = fdwk_set_device(g->id);
        if (!rc)
            rc = fdwk_stream_sync(g->se);
        if (!rc && g->si != g->se)
            rc = fdwk_stream_sync(g->si);
        if (!rc)
            rc = fdwk_last_error();
        cuda_note(g, rc, "waiting for the GPU");
    }
    fdw_status st = cuda_collect_status(c, err);
    if (st != FDW_OK)
        return st;
    for (int i = 0; i < c->npend; i++)
        if (c->pend[i].busy)
            deliver(&c->pend[i]);
    return FDW_OK;
}

/* The watch's peak (backend.h): one reduction of each slab's whole current field
 * allocation (ghost planes hold copies, padding zeros) on its interior stream. */
fdw_status cuda_field_peak(void *vctx, uint32_t *bits, fdw_error *err)
{
    cuda_ctx *c = vctx;
    uint32_t best = 0;
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        unsigned h = 0;
        int rc = fdwk_set_device(g->id);
        if (!rc)
            rc = fdwk_memset_async(g->peak, 0, sizeof *g->peak, g->si);
        if (!rc)
            rc = fdwk_peak_bits(g->raw[c->cur], g->L.total, g->peak, g->si);
        if (!rc)
            rc = fdwk_d2h_async(&h, g->peak, sizeof h, g->si);
        if (!rc)
            rc = fdwk_stream_sync(g->si);
        cuda_note(g, rc, "reading the field's peak");
        best = h > best ? h : best;
    }
    *bits = best;
    return cuda_collect_status(c, err);
}

fdw_status cuda_fetch_receivers(void *vctx, long first, long count, float *host,
                                       fdw_error *err)
{
    cuda_ctx *c = vctx;
    const fdw_problem *p = &c->prob;
    if (count == 0)
        return FDW_OK;
    if (!c->dev[0].rec || first < 0 || count < 0 || first + count > p->nrec_slots || !host)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cuda backend: receiver slots [%ld, %ld) requested, %ld recorded", first,
                        first + count, c->dev[0].rec ? p->nrec_slots : 0L);
    const size_t n = (size_t)count * (size_t)p->nreceivers;
    float *tmp = host;
    if (c->ndev > 1) {
        tmp = malloc(n * sizeof(float));
        if (!tmp)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory");
        for (size_t e = 0; e < n; e++)
            host[e] = 0.0f;
    }
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        int rc = fdwk_set_device(g->id);
        if (!rc)
            rc = fdwk_stream_sync(g->si);
        if (!rc)
            rc = fdwk_d2h(tmp, g->rec + (size_t)first * (size_t)p->nreceivers, n * sizeof(float));
        if (rc) {
            if (tmp != host)
                free(tmp);
            return cuda_device_fail(err, g, rc, "copying receiver traces");
        }
        if (c->ndev > 1)
            for (size_t e = 0; e < n; e++)
                host[e] += tmp[e];
    }
    if (tmp != host)
        free(tmp);
    return FDW_OK;
}

