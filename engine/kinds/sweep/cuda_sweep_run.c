/* cuda_sweep_run.c — one sweep on the GPUs and the copies back (cuda_sweep.h). A sweep is
 * its eight operations issued on every GPU's stream in turn; before each, a GPU waits for
 * the others' previous operation (a shuffle reads every part; a sub-sweep writes its
 * neighbours' halos, which their previous sub-sweep may still read), so operations never
 * overlap across GPUs, and within one the blocks of all parts synchronise by flags (the
 * kernels). A sub-sweep that may skip starts with a pre-pass on every GPU (the active
 * brick layers of its parts), and every GPU's launch waits for all pre-passes: the launches
 * read them all and skip, alike, the planes before the first that can change. Events time
 * every operation; after the sweep the host waits, reads the parts' figures and clears
 * them. T is copied back from layout B, where every sweep ends. */
#include "kinds/sweep/cuda_sweep.h"

#include "core/error.h"

#include <limits.h>
#include <string.h>

/* Issue operation op of sweep s on GPU g. */
static int issue_op(sweep_cuda *c, int g, long s, int op)
{
    sweep_gpu *G = &c->gpu[g];
    const int epoch = sweep_epoch(s, op);
    if (op == SWEEP_OP_TO_A || op == SWEEP_OP_TO_B) {
        const int to = op == SWEEP_OP_TO_A ? SWEEP_LAYOUT_A : SWEEP_LAYOUT_B, from = 1 - to;
        const int after = sweep_copy_after(s, op);
        for (int p = 0; p < G->nparts; p++) {
            const int e = G->parts[p];
            const sweep_box *db = to == SWEEP_LAYOUT_A ? &c->parts.a[e] : &c->parts.b[e];
            int hlo[3], hhi[3];
            sweep_box_held(&c->parts, db, hlo, hhi);
            for (int d = 0; d < c->parts.nparts; d++) {
                const sweep_box *sb = from == SWEEP_LAYOUT_A ? &c->parts.a[d] : &c->parts.b[d];
                int lo[3], hi[3];
                for (int k = 0; k < 3; k++) {
                    lo[k] = hlo[k] > sb->lo[k] ? hlo[k] : sb->lo[k];
                    hi[k] = hhi[k] < sb->hi[k] ? hhi[k] : sb->hi[k];
                }
                const fdwk_sweep_box src = sweep_cuda_box(c, d, from, 0);
                const fdwk_sweep_box dst = sweep_cuda_box(c, e, to, 0);
                /* the fastest axis: y in layout A, x in layout B */
                const int rc = fdwk_sweep_copy(&src, from == SWEEP_LAYOUT_A ? 1 : 0, &dst,
                                               to == SWEEP_LAYOUT_A ? 1 : 0, lo, hi, c->f64,
                                               after, epoch, G->st);
                if (rc)
                    return rc;
            }
        }
        return 0;
    }
    const int dir = sweep_op_direction(op);
    const int skip = !c->no_skip && !c->nosync;
    fdwk_sweep_launch l;
    memset(&l, 0, sizeof l);
    l.parts = G->desc[dir];
    l.nparts = G->nparts;
    l.geo = c->f64 ? (const void *)&c->d->geo[dir] : (const void *)&c->d->geo_f[dir];
    l.geo_bytes = c->f64 ? sizeof(sw_geo_d) : sizeof(sw_geo_f);
    l.P = dir / 2 == 0 ? c->prob.nx : dir / 2 == 1 ? c->prob.ny : c->prob.nz; /* planes */
    l.sign = dir % 2 ? -1 : 1;
    l.cut_u = dir / 2 != 1; /* layout A is cut along u (y), B along v (z) */
    l.f64 = c->f64;
    l.field = c->d->metric.field;
    l.epoch = epoch;
    l.skip_before = c->no_skip ? INT_MIN : sweep_skip_before(s, op);
    l.blocks = G->blocks[dir];
    l.threads = G->threads[dir];
    l.reach = c->parts.reach;
    l.acts = skip ? G->acts : NULL;
    l.nacts = c->parts.nparts;
    l.nosync = c->nosync;
    return fdwk_sweep_subsweep(&l, G->st);
}

/* The pre-pass of sub-sweep op of sweep s on GPU g: each of its parts' active brick layers
 * along the sweep axis (stamps at or after the skip threshold). */
static int issue_prepass(sweep_cuda *c, int g, long s, int op)
{
    sweep_gpu *G = &c->gpu[g];
    const int dir = sweep_op_direction(op), axis = dir / 2;
    const int l = axis == 1 ? SWEEP_LAYOUT_B : SWEEP_LAYOUT_A;
    int rc = 0;
    for (int p = 0; p < G->nparts && !rc; p++) {
        const int d = G->parts[p];
        const sweep_box *b = l == SWEEP_LAYOUT_A ? &c->parts.a[d] : &c->parts.b[d];
        const int ext = b->hi[axis] - b->lo[axis] + 2 * b->pad[axis];
        rc = fdwk_sweep_active(c->part[d].stamp[l], b->nbricks, b->bstride[axis],
                               (ext + (1 << SWEEP_BRICK_SHIFT) - 1) >> SWEEP_BRICK_SHIFT,
                               sweep_skip_before(s, op), c->part[d].act, G->st);
    }
    return rc;
}

/* GPU g's stream waits for event ev[] of every other GPU. */
static int wait_others(sweep_cuda *c, int g, int op, int pre)
{
    int rc = 0;
    for (int h = 0; h < c->ngpu && !rc; h++)
        if (h != g)
            rc = fdwk_stream_wait(c->gpu[g].st, pre ? c->gpu[h].ev_pre : c->gpu[h].ev[op]);
    return rc;
}

fdw_status sweep_cuda_step(void *vctx, long it, fdw_error *err)
{
    sweep_cuda *c = vctx;
    const long s = it + 1;
    int rc = 0, g = 0;
    const char *where = "starting a sweep";
    for (g = 0; g < c->ngpu && !rc; g++) {
        sweep_gpu *G = &c->gpu[g];
        rc = fdwk_set_device(G->id);
        for (int p = 0; p < G->nparts && !rc; p++)
            rc = fdwk_memset_async(c->part[G->parts[p]].stats, 0, 32, G->st);
        if (!rc)
            rc = fdwk_event_record(G->ev[0], G->st);
    }
    for (int op = 0; op < SWEEP_NOPS && !rc; op++) {
        const int shuffle = op == SWEEP_OP_TO_A || op == SWEEP_OP_TO_B;
        const int pre = !shuffle && !c->no_skip && !c->nosync;
        where = shuffle ? "a shuffle" : "a sub-sweep";
        for (g = 0; g < c->ngpu && !rc && pre; g++) { /* every GPU's pre-pass first */
            rc = fdwk_set_device(c->gpu[g].id);
            if (!rc)
                rc = wait_others(c, g, op, 0);
            if (!rc)
                rc = issue_prepass(c, g, s, op);
            if (!rc)
                rc = fdwk_event_record(c->gpu[g].ev_pre, c->gpu[g].st);
        }
        for (g = 0; g < c->ngpu && !rc; g++) {
            sweep_gpu *G = &c->gpu[g];
            rc = fdwk_set_device(G->id);
            if (!rc)
                rc = wait_others(c, g, op, pre);
            if (!rc)
                rc = issue_op(c, g, s, op);
            if (!rc)
                rc = fdwk_event_record(G->ev[op + 1], G->st);
        }
    }
    if (rc)
        return sweep_cuda_fail(err, c->gpu[g > 0 ? g - 1 : 0].id, rc, where);
    sweep_stats st;
    memset(&st, 0, sizeof st);
    for (g = 0; g < c->ngpu; g++) {
        sweep_gpu *G = &c->gpu[g];
        rc = fdwk_set_device(G->id);
        if (!rc)
            rc = fdwk_stream_sync(G->st);
        for (int p = 0; p < G->nparts && !rc; p++)
            rc = fdwk_d2h(c->hstats + 4 * G->parts[p], c->part[G->parts[p]].stats, 32);
        for (int op = 0; op < SWEEP_NOPS && !rc; op++) {
            float ms = 0.0f;
            rc = fdwk_event_ms(G->ev[op], G->ev[op + 1], &ms);
            if (!rc && ms / 1e3 > st.op_s[op])
                st.op_s[op] = ms / 1e3;
        }
        if (rc)
            return sweep_cuda_fail(err, G->id, rc, "completing a sweep");
    }
    for (int d = 0; d < c->parts.nparts; d++) {
        const unsigned long long *h = c->hstats + 4 * d;
        double mx;
        memcpy(&mx, &h[0], sizeof mx);
        if (mx > st.max_change)
            st.max_change = mx;
        st.changed += h[1];
        st.reached += h[2];
        st.computed += h[3];
    }
    if (it >= 0 && it < c->prob.nt)
        c->log[it] = st;
    c->sweeps = s;
    return FDW_OK;
}

fdw_status sweep_cuda_wait(void *vctx, fdw_error *err)
{
    sweep_cuda *c = vctx;
    for (int g = 0; g < c->ngpu; g++) {
        int rc = fdwk_set_device(c->gpu[g].id);
        if (!rc)
            rc = fdwk_stream_sync(c->gpu[g].st);
        if (rc)
            return sweep_cuda_fail(err, c->gpu[g].id, rc, "waiting for its work");
    }
    return FDW_OK;
}

/* Copy global cells [lo, hi) of part e's layout-B box to host (x fastest), as float64 or
 * float32, in chunks of z planes through the GPU's staging buffer. */
static fdw_status sweep_cuda_pack_to_host(sweep_cuda *c, int e, const int lo[3],
                                          const int hi[3], void *host, int out_f64,
                                          fdw_error *err)
{
    sweep_gpu *G = &c->gpu[c->part[e].gpu];
    const fdwk_sweep_box box = sweep_cuda_box(c, e, SWEEP_LAYOUT_B, 0);
    const size_t es = out_f64 ? 8 : 4;
    const size_t plane = (size_t)(hi[0] - lo[0]) * (size_t)(hi[1] - lo[1]);
    int chunk = plane > 0 ? (int)(G->stage_bytes / (plane * es)) : 1;
    chunk = chunk < 1 ? 1 : chunk;
    int rc = fdwk_set_device(G->id);
    for (int z = lo[2]; z < hi[2] && !rc; z += chunk) {
        const int z1 = z + chunk < hi[2] ? z + chunk : hi[2];
        const int clo[3] = {lo[0], lo[1], z}, chi[3] = {hi[0], hi[1], z1};
        rc = fdwk_sweep_pack(&box, clo, chi, c->f64, G->stage, out_f64, G->st);
        if (!rc)
            rc = fdwk_stream_sync(G->st);
        if (!rc)
            rc = fdwk_d2h((char *)host + plane * (size_t)(z - lo[2]) * es, G->stage,
                          plane * (size_t)(z1 - z) * es);
    }
    if (rc)
        return sweep_cuda_fail(err, G->id, rc, "copying T to the host");
    return FDW_OK;
}

fdw_status sweep_cuda_fetch(void *vctx, void *out, int f64, fdw_error *err)
{
    sweep_cuda *c = vctx;
    const size_t plane = (size_t)c->prob.nx * (size_t)c->prob.ny, es = f64 ? 8 : 4;
    for (int e = 0; e < c->parts.nparts; e++) {
        const sweep_box *b = &c->parts.b[e];
        const int lo[3] = {0, 0, b->lo[2]}, hi[3] = {c->prob.nx, c->prob.ny, b->hi[2]};
        fdw_status st = sweep_cuda_pack_to_host(c, e, lo, hi,
                                                (char *)out + plane * (size_t)b->lo[2] * es, f64,
                                                err);
        if (st != FDW_OK)
            return st;
    }
    return FDW_OK;
}

fdw_status sweep_cuda_extract(void *vctx, int nregions, const fdw_slice *regions,
                              float **host, fdw_error *err)
{
    sweep_cuda *c = vctx;
    const int nx = c->prob.nx, ny = c->prob.ny;
    for (int q = 0; q < nregions; q++) {
        const fdw_slice *rg = &regions[q];
        fdw_status st = sweep_engine_region(&c->prob, rg, host[q], q, err);
        if (st != FDW_OK)
            return st;
        if (rg->plane == FDW_PLANE_VOLUME) {
            st = sweep_cuda_fetch(c, host[q], 0, err);
            if (st != FDW_OK)
                return st;
            continue;
        }
        for (int e = 0; e < c->parts.nparts; e++) {
            const sweep_box *b = &c->parts.b[e];
            int lo[3] = {0, 0, b->lo[2]}, hi[3] = {nx, ny, b->hi[2]};
            size_t at = 0;
            switch (rg->plane) {
            case FDW_PLANE_XY:
                if (rg->index < b->lo[2] || rg->index >= b->hi[2])
                    continue;
                lo[2] = rg->index;
                hi[2] = rg->index + 1;
                break;
            case FDW_PLANE_XZ:
                lo[1] = rg->index;
                hi[1] = rg->index + 1;
                at = (size_t)b->lo[2] * (size_t)nx;
                break;
            default: /* YZ */
                lo[0] = rg->index;
                hi[0] = rg->index + 1;
                at = (size_t)b->lo[2] * (size_t)ny;
                break;
            }
            st = sweep_cuda_pack_to_host(c, e, lo, hi, host[q] + at, 0, err);
            if (st != FDW_OK)
                return st;
        }
    }
    return FDW_OK;
}
