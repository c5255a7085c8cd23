/* cuda_sweep.c — the sweep kind's CUDA engine: its backend table (kind.h's run.cuda_engine),
 * the GPUs of the plan (peer access between every pair: the shuffles read any part, the
 * sub-sweeps write their neighbours' halos), every part's memory on its GPU after a check
 * against the GPU's free memory, the shape of each sub-sweep's cooperative launch (threads
 * per block chosen so the blocks' ranges fill their rounds, blocks shared by the GPU's parts
 * in proportion to their planes), the launch descriptors, and the upload of the initial
 * times (and slowness) into layout B and from there, by the shuffle's kernel, into A. */
#include "kinds/sweep/cuda_sweep.h"

#include "core/error.h"
#include "cuda/cuda_kind.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_CUDA_REACH 8 /* the default reach (docs/sweep.md's cost model) */
#define STAGE_BYTES ((size_t)64 << 20) /* device staging of uploads and copies back, at
                                          least one xy plane of float64 */

fdw_status sweep_cuda_fail(fdw_error *err, int gpu, int rc, const char *where)
{
    return fdw_fail(err, FDW_ERR_DEVICE, NULL, "GPU %d: %s: %s", gpu, where, fdwk_strerror(rc));
}

fdwk_sweep_box sweep_cuda_box(const sweep_cuda *c, int d, int l, int slowness)
{
    const sweep_box *b = l == SWEEP_LAYOUT_A ? &c->parts.a[d] : &c->parts.b[d];
    fdwk_sweep_box o;
    o.t = slowness ? c->part[d].s[l] : c->part[d].t[l];
    o.stamp = slowness ? NULL : c->part[d].stamp[l];
    for (int k = 0; k < 3; k++) {
        o.lo[k] = b->lo[k];
        o.pad[k] = b->pad[k];
        o.stride[k] = b->stride[k];
        o.bstride[k] = b->bstride[k];
    }
    return o;
}

static void sweep_cuda_destroy(void *vctx)
{
    sweep_cuda *c = vctx;
    if (!c)
        return;
    for (int g = 0; g < c->ngpu; g++) {
        sweep_gpu *G = &c->gpu[g];
        if (fdwk_set_device(G->id) != 0)
            continue;
        if (G->st)
            fdwk_stream_sync(G->st);
        for (int p = 0; p < G->nparts; p++) {
            sweep_gpu_part *P = &c->part[G->parts[p]];
            for (int l = 0; l < 2; l++) {
                fdwk_free(P->t[l]);
                fdwk_free(P->s[l]);
                fdwk_free(P->stamp[l]);
            }
            fdwk_free(P->flags);
            fdwk_free(P->stats);
            fdwk_free(P->act);
        }
        for (int dir = 0; dir < 6; dir++) {
            fdwk_free(G->desc[dir]);
            free(G->hdesc[dir]);
        }
        fdwk_free(G->stage);
        fdwk_free((void *)G->acts);
        for (int e = 0; e <= SWEEP_NOPS; e++)
            if (G->ev[e])
                fdwk_event_destroy(G->ev[e]);
        if (G->ev_pre)
            fdwk_event_destroy(G->ev_pre);
        if (G->st)
            fdwk_stream_destroy(G->st);
    }
    if (c->hstats)
        fdwk_host_free(c->hstats);
    free(c->log);
    free(c);
}

static const sweep_stats *sweep_cuda_log(const void *vctx, long *n)
{
    const sweep_cuda *c = vctx;
    *n = c->sweeps;
    return c->log;
}

/* The plan's distinct GPUs, each with its parts, a stream and timing events. */
static fdw_status open_gpus(sweep_cuda *c, const fdw_plan *plan, fdw_error *err)
{
    const int have = fdw_gpu_count();
    for (int d = 0; d < plan->ndev; d++) {
        const int id = plan->device_ids[d];
        if (id < 0 || id >= have)
            return fdw_fail(err, FDW_ERR_DEVICE, "devices", "GPU %d does not exist (%d GPU%s "
                            "found)", id, have, have == 1 ? "" : "s");
        int g = 0;
        while (g < c->ngpu && c->gpu[g].id != id)
            g++;
        if (g == c->ngpu) {
            sweep_gpu *G = &c->gpu[c->ngpu++];
            G->id = id;
            int rc = fdwk_set_device(id);
            if (!rc)
                rc = fdwk_stream_create(&G->st, 0);
            for (int e = 0; !rc && e <= SWEEP_NOPS; e++)
                rc = fdwk_event_create(&G->ev[e], 1);
            if (!rc)
                rc = fdwk_event_create(&G->ev_pre, 0);
            int bps = 0;
            if (!rc)
                rc = fdwk_sweep_occupancy(c->f64, c->d->metric.field, 128, &bps, &G->sms);
            if (rc)
                return sweep_cuda_fail(err, id, rc, "creating its stream and events");
        }
        c->part[d].gpu = g;
        c->gpu[g].parts[c->gpu[g].nparts++] = d;
    }
    /* every pair: the shuffles read any part; the sub-sweeps write the neighbours' */
    for (int g = 0; g < c->ngpu; g++)
        for (int h = 0; h < c->ngpu; h++) {
            if (g == h)
                continue;
            int en = 0, rc = fdwk_set_device(c->gpu[g].id);
            if (!rc)
                rc = fdwk_enable_peer(c->gpu[h].id, &en);
            if (rc)
                return sweep_cuda_fail(err, c->gpu[g].id, rc, "enabling peer access");
            if (!en)
                return fdw_fail(err, FDW_ERR_UNSUPPORTED, "devices",
                                "GPUs %d and %d cannot access each other's memory (no NVLink "
                                "or PCIe peer access): the sweep kind's halos and shuffles go "
                                "GPU to GPU; run it on GPUs that are peers, on one GPU, or "
                                "with --backend cpu", c->gpu[g].id, c->gpu[h].id);
        }
    return FDW_OK;
}

/* Bytes part d needs on its GPU. */
static uint64_t part_bytes(const sweep_cuda *c, int d, int max_blocks)
{
    const uint64_t es = sweep_cuda_elem(c);
    uint64_t b = 0;
    for (int l = 0; l < 2; l++) {
        const sweep_box *x = l ? &c->parts.b[d] : &c->parts.a[d];
        b += (uint64_t)x->count * es * (c->d->metric.field ? 2 : 1) + (uint64_t)x->nbricks * 4;
    }
    return b + (uint64_t)max_blocks * 8 + 32 + 8;
}

/* The cells beyond part d's cut that its sub-sweeps compute: before its first cell (e0)
 * and after its last (e1); the reach where there is a neighbour, else none. */
static void reach_of(const sweep_cuda *c, int d, int *e0, int *e1)
{
    *e0 = d > 0 ? c->parts.reach : 0;
    *e1 = d + 1 < c->parts.nparts ? c->parts.reach : 0;
}

/* Threads per block and blocks of direction dir's launch on GPU g: all blocks resident,
 * the threads per block that leave the fewest idle lanes in the blocks' last round (with
 * at least two blocks per SM where that costs little), the blocks shared by the GPU's
 * parts in proportion to their planes. */
static fdw_status shape_launch(sweep_cuda *c, int g, int dir, int *blocks_of, fdw_error *err)
{
    sweep_gpu *G = &c->gpu[g];
    const int axis = dir / 2, l = axis == 1 ? SWEEP_LAYOUT_B : SWEEP_LAYOUT_A;
    double cells = 0.0;
    long long pc[FDW_MAX_DEVICES];
    for (int p = 0; p < G->nparts; p++) {
        sweep_view w;
        int e0, e1;
        const int d = G->parts[p];
        sweep_view_of(l ? &c->parts.b[d] : &c->parts.a[d], axis, 1, l ? 2 : 1, &w);
        reach_of(c, d, &e0, &e1);
        /* the cells its blocks walk: its own and those beyond its cuts */
        pc[p] = (long long)(w.U + (w.cut_u ? e0 + e1 : 0)) * (w.V + (w.cut_u ? 0 : e0 + e1));
        cells += (double)pc[p];
    }
    double best = -1.0;
    int bt = 0, bb = 0;
    for (int t = 128; t <= 512; t += 64) {
        int k = 0, sms = 0;
        const int rc = fdwk_sweep_occupancy(c->f64, c->d->metric.field, t, &k, &sms);
        if (rc)
            return sweep_cuda_fail(err, G->id, rc, "the sub-sweep kernel's occupancy");
        if (k < 1)
            continue;
        const double B = (double)sms * k, per = cells / B;
        /* lanes busy in the blocks' rounds, less when a lone block per SM leaves the SM
         * idle while it waits for its upwind blocks, a little more for more warps */
        const double util =
            per / (t * ceil(per / t)) - (k < 2 ? 0.1 : 0.0) + 1e-3 * k * t / 2048.0;
        if (util > best) {
            best = util;
            bt = t;
            bb = sms * k;
        }
    }
    if (bb < G->nparts)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, "devices",
                        "GPU %d holds %d slabs but keeps only %d sub-sweep blocks resident",
                        G->id, G->nparts, bb);
    int used = 0;
    for (int p = 0; p < G->nparts; p++) {
        long long nb = (long long)floor(bb * ((double)pc[p] / cells));
        nb = nb < 1 ? 1 : nb > pc[p] ? pc[p] : nb;
        blocks_of[p] = (int)nb;
        used += (int)nb;
    }
    while (used > bb) /* rounding: take back from the largest */
        for (int p = 0; p < G->nparts && used > bb; p++)
            if (blocks_of[p] > 1) {
                blocks_of[p]--;
                used--;
            }
    G->threads[dir] = bt;
    G->blocks[dir] = used;
    return FDW_OK;
}

/* Part d's view of a direction as the kernels take it. */
static fdwk_sweep_view view_of(const sweep_cuda *c, int d, int dir)
{
    const int axis = dir / 2, l = axis == 1 ? SWEEP_LAYOUT_B : SWEEP_LAYOUT_A;
    sweep_view w;
    sweep_view_of(l ? &c->parts.b[d] : &c->parts.a[d], axis, dir % 2 ? -1 : 1, l ? 2 : 1, &w);
    const size_t es = sweep_cuda_elem(c);
    fdwk_sweep_view o;
    o.t = (char *)c->part[d].t[l] + (size_t)w.base * es;
    o.s = c->part[d].s[l] ? (const char *)c->part[d].s[l] + (size_t)w.base * es : NULL;
    o.stamp = c->part[d].stamp[l];
    o.U = w.U;
    o.V = w.V;
    o.su = w.su;
    o.sv = w.sv;
    o.sp = w.sp;
    o.bu = w.bu;
    o.bv = w.bv;
    o.bp = w.bp;
    o.ou = w.ou;
    o.ov = w.ov;
    o.op = w.op;
    reach_of(c, d, &o.e0, &o.e1);
    return o;
}

/* The launch descriptors of every GPU and direction (after every shape is known: a part
 * waits for its neighbours' blocks). */
static fdw_status build_descriptors(sweep_cuda *c, int nblk[6][FDW_MAX_DEVICES], fdw_error *err)
{
    for (int g = 0; g < c->ngpu; g++) {
        sweep_gpu *G = &c->gpu[g];
        for (int dir = 0; dir < 6; dir++) {
            fdwk_sweep_part *h = calloc((size_t)G->nparts, sizeof *h);
            if (!h)
                return fdw_fail(err, FDW_ERR_NOMEM, NULL, "sweep engine: out of host memory");
            G->hdesc[dir] = h;
            int block0 = 0;
            for (int p = 0; p < G->nparts; p++) {
                const int d = G->parts[p];
                h[p].w = view_of(c, d, dir);
                h[p].block0 = block0;
                h[p].nblocks = nblk[dir][d];
                block0 += nblk[dir][d];
                h[p].flags = c->part[d].flags;
                h[p].stats = c->part[d].stats;
                for (int s = 0; s < 2; s++) {
                    const int nb = s ? d + 1 : d - 1;
                    if (nb < 0 || nb >= c->parts.nparts)
                        continue;
                    h[p].nb[s] = view_of(c, nb, dir);
                    h[p].nb_blocks[s] = nblk[dir][nb];
                    h[p].nb_flags[s] = c->part[nb].flags;
                    h[p].nb_remote[s] = c->part[nb].gpu != g;
                }
            }
            const size_t bytes = (size_t)G->nparts * sizeof *h;
            int rc = fdwk_set_device(G->id);
            if (!rc && dir == 0) { /* every part's pre-pass result, read by every launch */
                const int *hacts[FDW_MAX_DEVICES];
                for (int d = 0; d < c->parts.nparts; d++)
                    hacts[d] = c->part[d].act;
                const size_t ab = (size_t)c->parts.nparts * sizeof hacts[0];
                rc = fdwk_malloc((void **)&G->acts, ab);
                if (!rc)
                    rc = fdwk_h2d_async((void *)G->acts, hacts, ab, G->st);
            }
            if (!rc)
                rc = fdwk_malloc((void **)&G->desc[dir], bytes);
            if (!rc) /* ordered before the launches on the same stream */
                rc = fdwk_h2d_async(G->desc[dir], h, bytes, G->st);
            if (!rc)
                rc = fdwk_stream_sync(G->st);
            if (rc)
                return sweep_cuda_fail(err, G->id, rc, "uploading the launch descriptors");
        }
    }
    return FDW_OK;
}

/* Allocate the parts of GPU g after checking they fit its free memory. */
static fdw_status alloc_parts(sweep_cuda *c, int g, int max_blocks, fdw_error *err)
{
    sweep_gpu *G = &c->gpu[g];
    const size_t plane = (size_t)c->prob.nx * (size_t)c->prob.ny * 8;
    G->stage_bytes = plane > STAGE_BYTES ? plane : STAGE_BYTES;
    uint64_t need = G->stage_bytes, fr = 0, tot = 0;
    for (int p = 0; p < G->nparts; p++)
        need += part_bytes(c, G->parts[p], max_blocks);
    int rc = fdwk_set_device(G->id);
    if (!rc)
        rc = fdwk_mem_info(&fr, &tot);
    if (rc)
        return sweep_cuda_fail(err, G->id, rc, "querying its memory");
    if (need > fr)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                        "sweep engine: GPU %d needs %.2f GiB for its %d slab%s (T in both "
                        "layouts%s) but has %.2f GiB of %.2f GiB free; ask for more devices, "
                        "float32 or a smaller grid", G->id, need / 1073741824.0, G->nparts,
                        G->nparts == 1 ? "" : "s", c->d->metric.field ? ", the slowness" : "",
                        fr / 1073741824.0, tot / 1073741824.0);
    const size_t es = sweep_cuda_elem(c);
    for (int p = 0; p < G->nparts && !rc; p++) {
        const int d = G->parts[p];
        sweep_gpu_part *P = &c->part[d];
        for (int l = 0; l < 2 && !rc; l++) {
            const sweep_box *b = l ? &c->parts.b[d] : &c->parts.a[d];
            rc = fdwk_malloc(&P->t[l], (size_t)b->count * es);
            if (!rc && c->d->metric.field)
                rc = fdwk_malloc(&P->s[l], (size_t)b->count * es);
            if (!rc)
                rc = fdwk_malloc((void **)&P->stamp[l], (size_t)b->nbricks * 4);
        }
        if (!rc)
            rc = fdwk_malloc((void **)&P->flags, (size_t)max_blocks * 8);
        if (!rc)
            rc = fdwk_malloc((void **)&P->stats, 32);
        if (!rc)
            rc = fdwk_malloc((void **)&P->act, 8);
        if (!rc)
            rc = fdwk_memset_async(P->flags, 0, (size_t)max_blocks * 8, G->st);
        P->bytes = part_bytes(c, d, max_blocks);
    }
    if (!rc)
        rc = fdwk_malloc(&G->stage, G->stage_bytes);
    if (rc)
        return sweep_cuda_fail(err, G->id, rc, "allocating its slabs");
    return FDW_OK;
}

/* Part d's box of layout l emptied: T +inf, slowness 0, stamps -1 (never finite). */
static int reset_box(sweep_cuda *c, int d, int l)
{
    sweep_gpu *G = &c->gpu[c->part[d].gpu];
    sweep_gpu_part *P = &c->part[d];
    const sweep_box *b = l == SWEEP_LAYOUT_A ? &c->parts.a[d] : &c->parts.b[d];
    int rc = fdwk_set_device(G->id);
    if (!rc)
        rc = fdwk_sweep_fill(P->t[l], b->count, c->f64, INFINITY, G->st);
    if (!rc && P->s[l])
        rc = fdwk_sweep_fill(P->s[l], b->count, c->f64, 0.0, G->st);
    if (!rc)
        rc = fdwk_memset_async(P->stamp[l], 0xff, (size_t)b->nbricks * 4, G->st);
    return rc;
}

/* Layout B of part d: +inf and stamps -1 everywhere, then the held planes of the initial
 * times (finite values stamp their bricks 0) and of the slowness, through the staging
 * buffer, z planes at a time. */
static fdw_status upload_b(sweep_cuda *c, int d, double *hs, fdw_error *err)
{
    sweep_gpu *G = &c->gpu[c->part[d].gpu];
    const size_t plane = (size_t)c->prob.nx * (size_t)c->prob.ny;
    int lo[3], hi[3];
    sweep_box_held(&c->parts, &c->parts.b[d], lo, hi);
    int rc = reset_box(c, d, SWEEP_LAYOUT_B);
    int chunk = (int)(G->stage_bytes / (plane * 8));
    chunk = chunk < 1 ? 1 : chunk;
    fdwk_sweep_box tb = sweep_cuda_box(c, d, SWEEP_LAYOUT_B, 0);
    fdwk_sweep_box sb = sweep_cuda_box(c, d, SWEEP_LAYOUT_B, 1);
    for (int z = lo[2]; z < hi[2] && !rc; z += chunk) {
        const int z1 = z + chunk < hi[2] ? z + chunk : hi[2];
        const int clo[3] = {lo[0], lo[1], z}, chi[3] = {hi[0], hi[1], z1};
        const size_t n = plane * (size_t)(z1 - z);
        /* The copies into the staging buffer go on the GPU's own stream: a plain cudaMemcpy
         * from pageable memory may return before its DMA has landed, and the stream is
         * non-blocking, so an unpack issued after it could read the buffer's old bytes. */
        rc = fdwk_stream_sync(G->st); /* the staging buffer is free again */
        if (!rc)
            rc = fdwk_h2d_async(G->stage, c->d->t0 + plane * (size_t)z, n * 8, G->st);
        if (!rc)
            rc = fdwk_sweep_unpack(G->stage, &tb, clo, chi, c->f64, G->st);
        if (!rc && hs) {
            for (size_t q = 0; q < n; q++)
                hs[q] = 1.0 / (double)c->d->speed[plane * (size_t)z + q];
            rc = fdwk_stream_sync(G->st);
            if (!rc)
                rc = fdwk_h2d_async(G->stage, hs, n * 8, G->st);
            if (!rc)
                rc = fdwk_sweep_unpack(G->stage, &sb, clo, chi, c->f64, G->st);
        }
    }
    if (!rc)
        rc = fdwk_stream_sync(G->st);
    if (rc)
        return sweep_cuda_fail(err, G->id, rc, "uploading the initial times");
    return FDW_OK;
}

/* Layout A of part d: +inf and stamps -1, then every held cell from the B parts (the
 * shuffle's kernel: finite values stamp their bricks 0), and the slowness likewise. */
static fdw_status upload_a(sweep_cuda *c, int d, fdw_error *err)
{
    sweep_gpu *G = &c->gpu[c->part[d].gpu];
    sweep_gpu_part *P = &c->part[d];
    int hlo[3], hhi[3];
    sweep_box_held(&c->parts, &c->parts.a[d], hlo, hhi);
    int rc = reset_box(c, d, SWEEP_LAYOUT_A);
    for (int e = 0; e < c->parts.nparts && !rc; e++) {
        const sweep_box *b = &c->parts.b[e];
        int lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = hlo[k] > b->lo[k] ? hlo[k] : b->lo[k];
            hi[k] = hhi[k] < b->hi[k] ? hhi[k] : b->hi[k];
        }
        for (int s = 0; s < (P->s[SWEEP_LAYOUT_A] ? 2 : 1) && !rc; s++) {
            const fdwk_sweep_box src = sweep_cuda_box(c, e, SWEEP_LAYOUT_B, s);
            const fdwk_sweep_box dst = sweep_cuda_box(c, d, SWEEP_LAYOUT_A, s);
            rc = fdwk_sweep_copy(&src, 0, &dst, 1, lo, hi, c->f64, -2, 0, G->st);
        }
    }
    if (!rc)
        rc = fdwk_stream_sync(G->st);
    if (rc)
        return sweep_cuda_fail(err, G->id, rc, "filling the y-slab layout");
    return FDW_OK;
}

static fdw_status sweep_cuda_create(const fdw_problem *prob, const fdw_plan *plan, void **out,
                                    fdw_error *err)
{
    *out = NULL;
    const fdw_sweep_data *d = prob->kdata;
    if (prob->comm)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                        "the sweep kind does not run across MPI ranks: run it in one process "
                        "(its GPUs are peers of one process)");
    if (!d || !d->t0 || (d->metric.field && !d->speed))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "sweep engine: the problem is incomplete");
    sweep_cuda *c = calloc(1, sizeof *c);
    if (!c)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "sweep engine: out of host memory");
    c->head.log = sweep_cuda_log;
    c->head.fetch = sweep_cuda_fetch;
    c->prob = *prob;
    c->d = d;
    c->f64 = d->precision == SWEEP_F64;
    c->no_skip = prob->tuning && prob->tuning->sweep_full;
    const int n[3] = {prob->nx, prob->ny, prob->nz};
    fdw_status st = FDW_OK;
    double *hs = NULL;
    /* the reach W: GPUs wait for each other across a cut every W planes (docs/sweep.md) */
    const int reach = prob->tuning && prob->tuning->sweep_reach > 0 ? prob->tuning->sweep_reach
                                                                    : SWEEP_CUDA_REACH;
    if (sweep_parts_init(&c->parts, n, plan, reach) != 0)
        st = fdw_fail(err, FDW_ERR_SPEC, "devices", "%d devices cannot split a %dx%dx%d grid: "
                      "each needs at least one y and one z plane", plan->ndev, n[0], n[1], n[2]);
    c->log = calloc(prob->nt > 0 ? (size_t)prob->nt : 1, sizeof *c->log);
    if (st == FDW_OK && !c->log)
        st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "sweep engine: out of host memory");
    if (st == FDW_OK)
        st = open_gpus(c, plan, err);
    int nblk[6][FDW_MAX_DEVICES];
    for (int g = 0; g < c->ngpu && st == FDW_OK; g++)
        for (int dir = 0; dir < 6 && st == FDW_OK; dir++) {
            int of[FDW_MAX_DEVICES];
            st = shape_launch(c, g, dir, of, err);
            for (int p = 0; st == FDW_OK && p < c->gpu[g].nparts; p++)
                nblk[dir][c->gpu[g].parts[p]] = of[p];
        }
    for (int g = 0; g < c->ngpu && st == FDW_OK; g++) {
        int most = 1;
        for (int dir = 0; dir < 6; dir++)
            most = c->gpu[g].blocks[dir] > most ? c->gpu[g].blocks[dir] : most;
        st = alloc_parts(c, g, most, err);
    }
    if (st == FDW_OK)
        st = build_descriptors(c, nblk, err);
    if (st == FDW_OK && fdwk_host_alloc((void **)&c->hstats, (size_t)c->parts.nparts * 32) != 0)
        st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "sweep engine: out of pinned host memory");
    if (st == FDW_OK && d->metric.field) {
        hs = malloc(c->gpu[0].stage_bytes);
        if (!hs)
            st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "sweep engine: out of host memory");
    }
    for (int e = 0; e < c->parts.nparts && st == FDW_OK; e++)
        st = upload_b(c, e, hs, err);
    for (int e = 0; e < c->parts.nparts && st == FDW_OK; e++)
        st = upload_a(c, e, err);
    free(hs);
    if (st != FDW_OK) {
        sweep_cuda_destroy(c);
        return st;
    }
    *out = c;
    return FDW_OK;
}



static uint64_t sweep_cuda_device_bytes(void *vctx, int dev)
{
    const sweep_cuda *c = vctx;
    return dev >= 0 && dev < c->parts.nparts ? c->part[dev].bytes : 0;
}

const fdw_backend fdw_sweep_cuda_engine = {
    .name = "cuda",
    .create = sweep_cuda_create,
    .destroy = sweep_cuda_destroy,
    .step = sweep_cuda_step,
    .extract = sweep_cuda_extract,
    .wait = sweep_cuda_wait,
    .device_bytes = sweep_cuda_device_bytes,
};

