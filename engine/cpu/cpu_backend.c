/* cpu_backend.c — the CPU reference backend (C + OpenMP): the fdw_backend table, slab
 * allocation for each virtual device, and the step that follows the multi-device plan of
 * DESIGN.md: update the planes next to internal slab boundaries first, exchange ghost
 * planes, then update the interior. Each kind's update and per-slab state come through its
 * hooks (cpu_kind.h; the kernels live in engine/kinds/<kind>/cpu_*.c); what wave kinds
 * share (free surface, sponge arrays, sources, receivers) is here; ghost planes and
 * padding in halo_cpu.c. In a distributed run (prob->comm set) the context holds the process's own
 * slab only and exchanges ghost planes with the other ranks through the communicator. */
#include "cpu/cpu_kind.h"
#include "kinds/kind.h"
#include "run/distrib.h"
#include "core/error.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Working set a y block may use while walking z (2r+1 planes of it), in bytes. */
#ifndef FDW_CPU_BLOCK_BYTES
#define FDW_CPU_BLOCK_BYTES (512 * 1024)
#endif

static void *alloc64(size_t bytes)
{
    size_t n = (bytes + 63) / 64 * 64;
    return aligned_alloc(64, n ? n : 64);
}

static void cpu_destroy(void *vctx)
{
    cpu_ctx *c = vctx;
    if (!c)
        return;
    for (int d = 0; d < c->ndev; d++) {
        if (c->ops && c->ops->slab_destroy)
            c->ops->slab_destroy(&c->slab[d]);
        free(c->slab[d].buf[0]);
        free(c->slab[d].buf[1]);
        free(c->slab[d].src);
    }
    free(c->qx);
    free(c->qy);
    free(c->qz);
    free(c->rec);
    free(c->traces);
    free(c->ckpt_block);
    free(c);
}

/* Zero a buffer of nplanes padded planes (ghosts included) in parallel, split into
 * (y block, plane) pairs with the kernels' schedule, so pages are first touched by the
 * threads that update them (the schedule is dynamic, so this holds on average; on one
 * NUMA node it mainly spreads the page faults over the threads). */
void cpu_first_touch(const cpu_ctx *c, float *buf, int nplanes)
{
    const int yb = c->yblock, nb = (c->ny + yb - 1) / yb;
    const int chunk = cpu_chunk(nb, nplanes);
#pragma omp parallel for collapse(2) schedule(dynamic, chunk)
    for (int b = 0; b < nb; b++)
        for (int k = 0; k < nplanes; k++) {
            int j0 = b == 0 ? 0 : b * yb + c->r;
            int j1 = b == nb - 1 ? c->py : (b + 1) * yb + c->r;
            memset(buf + (ptrdiff_t)k * c->plane + (ptrdiff_t)j0 * c->px, 0,
                   (size_t)(j1 - j0) * (size_t)c->px * sizeof(float));
        }
}

void cpu_walk_planes(const cpu_ctx *c, int ka, int kb, cpu_rows_fn fn, const void *arg)
{
    if (kb <= ka)
        return;
    const int ny = c->ny, yb = c->yblock, nb = (ny + yb - 1) / yb;
    const int chunk = cpu_chunk(nb, kb - ka);
#pragma omp parallel for collapse(2) schedule(dynamic, chunk)
    for (int b = 0; b < nb; b++)
        for (int k = ka; k < kb; k++) {
            int j0 = b * yb, j1 = j0 + yb < ny ? j0 + yb : ny;
            fn(arg, k, j0, j1);
        }
}

void cpu_upload(const cpu_ctx *c, const cpu_slab *s, float *dst, const float *src)
{
    const int nx = c->nx, ny = c->ny;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < s->nz; k++)
        for (int j = 0; j < ny; j++)
            memcpy(dst + (ptrdiff_t)k * c->plane + (ptrdiff_t)j * c->px,
                   src + ((size_t)(s->z0 + k) * ny + j) * nx, (size_t)nx * sizeof(float));
}

/* Check what the backend relies on in the problem and the plan. */
static fdw_status check_problem(const fdw_problem *p, const fdw_plan *plan, fdw_error *err)
{
    if (p->nx < 1 || p->ny < 1 || p->nz < 1)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cpu backend: grid %dx%dx%d is empty",
                        p->nx, p->ny, p->nz);
    if (p->radius < 1 || p->radius > FDW_MAX_RADIUS)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cpu backend: radius %d outside 1..%d",
                        p->radius, FDW_MAX_RADIUS);
    if (!p->kind || !p->kind->run.cpu || !p->kind->run.cpu->planes)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cpu backend: the problem has no kind");
    if (!p->kind->wave && !p->init)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cpu backend: no initial field");
    if (p->kind->wave && p->nsrc_taps > 0 && (!p->src_taps || !p->wavelets))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cpu backend: source taps without data");
    if (p->nrec_taps > 0 && (!p->rec_taps || p->rec_interval < 1 || p->nreceivers < 1))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cpu backend: bad receiver set-up");
    if (!plan || plan->ndev < 1 || plan->ndev > FDW_MAX_DEVICES || plan->radius != p->radius)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cpu backend: the plan does not match the problem");
    int z = 0;
    for (int d = 0; d < plan->ndev; d++) {
        if (plan->z0[d] != z || plan->nz[d] < p->radius || plan->nz[d] < 1)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                            "cpu backend: slab %d of the plan is malformed", d);
        z += plan->nz[d];
    }
    if (z != p->nz)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cpu backend: the plan's slabs cover %d planes, the grid has %d", z,
                        p->nz);
    if (p->comm && (p->comm->size != plan->ndev || p->comm->rank < 0 ||
                    p->comm->rank >= plan->ndev))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cpu backend: rank %d of %d does not match a plan of %d slabs",
                        p->comm->rank, p->comm->size, plan->ndev);
    if (p->kind->problem.check)
        return p->kind->problem.check(p, plan, err);
    return FDW_OK;
}

int cpu_yblock_rows(const cpu_ctx *c, long bytes)
{
    long rows = bytes / ((long)c->px * (long)sizeof(float) * (2 * c->r + 1)) - 2 * c->r;
    if (rows < 8)
        rows = 8;
    if (rows > c->ny)
        rows = c->ny;
    return (int)rows;
}

static int slab_of_plane(const cpu_ctx *c, int k)
{
    for (int d = 0; d < c->ndev; d++)
        if (k >= c->slab[d].z0 && k < c->slab[d].z0 + c->slab[d].nz)
            return d;
    return -1;
}

static fdw_status nomem(cpu_ctx *c, fdw_error *err, int d, uint64_t need, uint64_t total)
{
    long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    double avail = pages > 0 && psz > 0 ? (double)pages * (double)psz : 0.0;
    cpu_destroy(c);
    return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                    "cpu backend: could not allocate %.1f MiB for virtual device %d (the job "
                    "needs %.1f MiB in all; %.1f MiB of memory is free)",
                    need / 1048576.0, d, total / 1048576.0, avail / 1048576.0);
}

/* Bytes the slab of global planes [z0, z0 + nzd) needs. */
static uint64_t slab_bytes(const fdw_problem *p, int z0, int nzd, uint64_t plane_bytes)
{
    uint64_t b = 2 * (uint64_t)(nzd + 2 * p->radius) * plane_bytes;
    if (p->kind->run.cpu->slab_bytes)
        b += p->kind->run.cpu->slab_bytes(p, z0, nzd, plane_bytes);
    return b;
}

int cpu_copy_sponge(const fdw_problem *prob, float **qx, float **qy, float **qz)
{
    if (!prob->qx && !prob->qy && !prob->qz)
        return 0;
    const int n[3] = {prob->nx, prob->ny, prob->nz};
    const float *src[3] = {prob->qx, prob->qy, prob->qz};
    float **dst[3] = {qx, qy, qz};
    for (int a = 0; a < 3; a++) {
        *dst[a] = calloc((size_t)n[a], sizeof(float));
        if (!*dst[a])
            return -1;
        if (src[a])
            memcpy(*dst[a], src[a], (size_t)n[a] * sizeof(float));
    }
    return 0;
}

/* The context of prob on plan, its layout (padded planes, the 64-byte aligned x offset)
 * and the slabs this process holds; NULL when out of memory. */
static cpu_ctx *ctx_new(const fdw_problem *prob, const fdw_plan *plan)
{
    cpu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->prob = *prob;
    c->nx = prob->nx;
    c->ny = prob->ny;
    c->nz = prob->nz;
    c->r = prob->radius;
    c->px = (FDW_CPU_XOFF + prob->nx + c->r + 15) / 16 * 16;
    c->py = prob->ny + 2 * c->r;
    c->plane = (ptrdiff_t)c->px * c->py;
    c->origin = (ptrdiff_t)c->r * c->plane + (ptrdiff_t)c->r * c->px + FDW_CPU_XOFF;
    c->yblock = cpu_yblock_rows(c, FDW_CPU_BLOCK_BYTES);
    c->ops = prob->kind->run.cpu;
    c->plan = *plan;
    c->comm = prob->comm;
    c->ndev = c->comm ? 1 : plan->ndev;      /* slabs held by this process */
    c->gslab = c->comm ? c->comm->rank : 0;  /* plan index of slab[0] */
    c->nslabs = plan->ndev;
    return c;
}

/* Each slab's two fields (first touched by the threads that update them), the kind's
 * state, and a field kind's initial field. On failure c is destroyed. */
static fdw_status create_slabs(cpu_ctx *c, const fdw_problem *prob, uint64_t plane_bytes,
                               uint64_t total, fdw_error *err)
{
    const fdw_plan *plan = &c->plan;
    for (int d = 0; d < c->ndev; d++) {
        cpu_slab *s = &c->slab[d];
        s->z0 = plan->z0[c->gslab + d];
        s->nz = plan->nz[c->gslab + d];
        s->bytes = slab_bytes(prob, s->z0, s->nz, plane_bytes);
        int nplanes = s->nz + 2 * c->r;
        for (int b = 0; b < 2; b++) {
            s->buf[b] = alloc64((size_t)nplanes * plane_bytes);
            if (!s->buf[b])
                return nomem(c, err, d, s->bytes, total);
            cpu_first_touch(c, s->buf[b], nplanes);
        }
        if (c->ops->slab_create && c->ops->slab_create(c, s) != 0)
            return nomem(c, err, d, s->bytes, total);
        if (!prob->kind->wave)
            cpu_upload(c, s, cpu_base(c, s, 0), prob->init);
    }
    return FDW_OK;
}

/* A wave kind's source taps, each to the slab that owns its point in the problem's order,
 * and the sponge profiles (zeros for an axis without one). On failure c is destroyed. */
static fdw_status place_sources(cpu_ctx *c, const fdw_problem *prob, uint64_t total,
                                fdw_error *err)
{
    const uint64_t npts = (uint64_t)c->nx * c->ny * c->nz;
    for (int t = 0; t < prob->nsrc_taps; t++) {
        const fdw_tap *tp = &prob->src_taps[t];
        if (tp->index >= npts || tp->owner < 0)
            return cpu_destroy(c), fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                                            "cpu backend: source tap %d is off the grid", t);
        int k = (int)(tp->index / ((uint64_t)c->nx * c->ny));
        int d = slab_of_plane(c, k);
        if (d < 0)
            continue; /* another rank's plane: that rank injects it */
        cpu_slab *s = &c->slab[d];
        if (!s->src) {
            s->src = malloc((size_t)prob->nsrc_taps * sizeof *s->src);
            if (!s->src)
                return nomem(c, err, (int)(s - c->slab), s->bytes, total);
        }
        uint64_t rem = tp->index % ((uint64_t)c->nx * c->ny);
        cpu_tap *ct = &s->src[s->nsrc++];
        ct->k = k - s->z0;
        ct->offset = (ptrdiff_t)ct->k * c->plane +
                     (ptrdiff_t)(rem / (uint64_t)c->nx) * c->px +
                     (ptrdiff_t)(rem % (uint64_t)c->nx);
        ct->owner = tp->owner;
        ct->weight = tp->weight;
    }
    c->sponge = prob->qx || prob->qy || prob->qz;
    if (cpu_copy_sponge(prob, &c->qx, &c->qy, &c->qz))
        return nomem(c, err, 0, (uint64_t)(c->nx + c->ny + c->nz) * 4, total);
    if (c->sponge) {
        c->xlo = 0;
        while (c->xlo < c->nx && c->qx[c->xlo] != 0.0f)
            c->xlo++;
        c->xhi = c->xlo;
        while (c->xhi < c->nx && c->qx[c->xhi] == 0.0f)
            c->xhi++;
    }
    return FDW_OK;
}

/* Receivers: every tap resolved to its slab; traces summed in the problem's order.
 * Distributed: only the receivers this rank records (fdw_receiver_slabs), every tap of
 * one read here, a tap in the next rank's first plane from this slab's ghost planes,
 * which after a step hold the neighbour's values of the same time level. On failure c is
 * destroyed. */
static fdw_status place_receivers(cpu_ctx *c, const fdw_problem *prob, uint64_t total,
                                  fdw_error *err)
{
    const uint64_t npts = (uint64_t)c->nx * c->ny * c->nz;
    if (prob->nrec_taps > 0) {
        c->rec = malloc((size_t)prob->nrec_taps * sizeof *c->rec);
        int *rec_slab = c->comm ? malloc((size_t)prob->nreceivers * sizeof(int)) : NULL;
        if (!c->rec || (c->comm && !rec_slab)) {
            free(rec_slab);
            return nomem(c, err, 0, (uint64_t)prob->nrec_taps * sizeof *c->rec, total);
        }
        if (rec_slab)
            fdw_receiver_slabs(prob, &c->plan, rec_slab);
        int n = 0;
        for (int t = 0; t < prob->nrec_taps; t++) {
            const fdw_tap *tp = &prob->rec_taps[t];
            if (tp->index >= npts || tp->owner < 0 || tp->owner >= prob->nreceivers) {
                free(rec_slab);
                return cpu_destroy(c), fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                                                "cpu backend: receiver tap %d is invalid", t);
            }
            int k = (int)(tp->index / ((uint64_t)c->nx * c->ny));
            uint64_t rem = tp->index % ((uint64_t)c->nx * c->ny);
            int d = slab_of_plane(c, k);
            if (rec_slab) {
                if (rec_slab[tp->owner] != c->gslab)
                    continue;
                d = 0;
                if (k - c->slab[0].z0 > c->slab[0].nz + c->r - 1) {
                    free(rec_slab);
                    return cpu_destroy(c), fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                                                    "cpu backend: receiver tap %d lies beyond "
                                                    "the ghost planes of slab %d", t, c->gslab);
                }
            }
            c->rec[n].slab = d;
            c->rec[n].offset = (ptrdiff_t)(k - c->slab[d].z0) * c->plane +
                               (ptrdiff_t)(rem / (uint64_t)c->nx) * c->px +
                               (ptrdiff_t)(rem % (uint64_t)c->nx);
            c->rec[n].owner = tp->owner;
            c->rec[n].weight = tp->weight;
            n++;
        }
        free(rec_slab);
        c->ntaps_rec = n;
    }
    if (prob->nreceivers > 0 && prob->nrec_slots > 0) {
        c->traces = calloc((size_t)prob->nrec_slots * (size_t)prob->nreceivers, sizeof(float));
        if (!c->traces)
            return nomem(c, err, 0,
                         (uint64_t)prob->nrec_slots * (uint64_t)prob->nreceivers * 4, total);
    }
    return FDW_OK;
}

static fdw_status cpu_create(const fdw_problem *prob, const fdw_plan *plan, void **out,
                             fdw_error *err)
{
    *out = NULL;
    fdw_status st = check_problem(prob, plan, err);
    if (st != FDW_OK)
        return st;
    cpu_ctx *c = ctx_new(prob, plan);
    if (!c)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cpu backend: out of memory");
    /* what every slab takes, for the out-of-memory message */
    const uint64_t plane_bytes = (uint64_t)c->plane * sizeof(float);
    uint64_t total = 0;
    for (int d = 0; d < c->ndev; d++)
        total += slab_bytes(prob, plan->z0[c->gslab + d], plan->nz[c->gslab + d], plane_bytes);
    if ((st = create_slabs(c, prob, plane_bytes, total, err)) != FDW_OK)
        return st;
    c->cur = 0;
    if (prob->kind->wave && (st = place_sources(c, prob, total, err)) != FDW_OK)
        return st;
    if ((st = place_receivers(c, prob, total, err)) != FDW_OK)
        return st;

    /* The initial field's ghost planes (stencil, derivative along z). Distributed: at the
     * first step, so that create never waits on a rank that failed to create. */
    if (c->comm)
        c->ghosts_stale = !prob->kind->wave;
    else if (!prob->kind->wave)
        cpu_exchange_ghosts(c, c->cur, prob->kind->periodic);
    *out = c;
    return FDW_OK;
}

/* Owned local planes of slab d split as the plan wants: [0, top) next to the upper
 * neighbour, [bot, nz) next to the lower one, [top, bot) the interior. */
static void slab_ranges(const cpu_ctx *c, int d, int periodic, int *top, int *bot)
{
    const cpu_slab *s = &c->slab[d];
    const int g = c->gslab + d; /* the slab's index in the whole plan */
    int has_top = periodic || g > 0, has_bot = periodic || g < c->nslabs - 1;
    *top = has_top ? (c->r < s->nz ? c->r : s->nz) : 0;
    *bot = has_bot ? (s->nz - c->r > *top ? s->nz - c->r : *top) : s->nz;
}

/* Update local planes [ka, kb) of slab d in step it: the kind's update and its follow-up
 * (the acoustic CPML), then for wave kinds hold the free surface at zero and add the
 * sources whose taps lie in those planes. */
static void update_planes(const cpu_ctx *c, int d, int ka, int kb, long it)
{
    const cpu_slab *s = &c->slab[d];
    c->ops->planes(c, s, ka, kb);
    if (c->ops->after_planes)
        c->ops->after_planes(c, s, ka, kb);
    if (!c->prob.kind->wave)
        return;
    float *u = cpu_base(c, s, 1 - c->cur);
    if (c->prob.free_surface && s->z0 == 0 && ka == 0 && kb > 0)
        memset(s->buf[1 - c->cur] + (ptrdiff_t)c->r * c->plane, 0,
               (size_t)c->plane * sizeof(float));
    if (it < 0 || it >= c->prob.nt)
        return;
    for (int t = 0; t < s->nsrc; t++) {
        const cpu_tap *tp = &s->src[t];
        if (tp->k >= ka && tp->k < kb)
            u[tp->offset] += c->prob.wavelets[(size_t)tp->owner * (size_t)c->prob.nt + it] *
                             tp->weight;
    }
}

static void record_receivers(cpu_ctx *c, long it)
{
    const fdw_problem *p = &c->prob;
    if (!c->traces || p->rec_interval < 1 || (it + 1) % p->rec_interval != 0)
        return;
    long slot = (it + 1) / p->rec_interval;
    if (slot >= p->nrec_slots)
        return;
    float *tr = c->traces + (size_t)slot * (size_t)p->nreceivers;
    for (int t = 0; t < c->ntaps_rec; t++) {
        const cpu_rec_tap *rt = &c->rec[t];
        tr[rt->owner] += cpu_base(c, &c->slab[rt->slab], c->cur)[rt->offset] * rt->weight;
    }
}

static fdw_status cpu_step(void *vctx, long it, fdw_error *err)
{
    cpu_ctx *c = vctx;
    const fdw_problem *p = &c->prob;
    const int periodic = p->kind->periodic, wave = p->kind->wave;
    const int exchange = c->ops->begin_step ? c->ops->begin_step(c, it) : 1;
    if (wave && p->free_surface && c->slab[0].z0 == 0)
        cpu_mirror_free_surface(c, c->cur);
    int top[FDW_MAX_DEVICES], bot[FDW_MAX_DEVICES];
    if (c->ghosts_stale && exchange) {
        void *pending = NULL;
        int rc = cpu_exchange_remote_start(c, c->cur, periodic, &pending);
        rc |= cpu_exchange_remote_finish(c, pending);
        if (rc != 0)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                            "cpu backend: ghost exchange of slab %d failed", c->gslab);
    }
    c->ghosts_stale = 0;

    /* 1. planes next to internal boundaries (their values feed the neighbours) */
    for (int d = 0; d < c->ndev; d++) {
        const cpu_slab *s = &c->slab[d];
        if (!exchange) {
            top[d] = 0;
            bot[d] = s->nz;
            continue;
        }
        slab_ranges(c, d, periodic, &top[d], &bot[d]);
        update_planes(c, d, 0, top[d], it);
        update_planes(c, d, bot[d], s->nz, it);
    }
    /* 2. ghost exchange of the new field (on a GPU and across MPI ranks it overlaps 3) */
    void *pending = NULL;
    int xrc = 0;
    if (exchange && c->comm)
        xrc = cpu_exchange_remote_start(c, 1 - c->cur, periodic, &pending);
    else if (exchange)
        cpu_exchange_ghosts(c, 1 - c->cur, periodic);
    /* 3. interiors */
    for (int d = 0; d < c->ndev; d++)
        update_planes(c, d, top[d], bot[d], it);
    if (c->comm)
        xrc |= cpu_exchange_remote_finish(c, pending);
    if (xrc != 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cpu backend: ghost exchange of slab %d at step %ld failed", c->gslab,
                        it);
    c->cur = 1 - c->cur;
    if (wave)
        record_receivers(c, it);
    return FDW_OK;
}

static fdw_status cpu_extract(void *vctx, int nregions, const fdw_slice *regions, float **host,
                              fdw_error *err)
{
    cpu_ctx *c = vctx;
    const int nx = c->nx, ny = c->ny;
    for (int q = 0; q < nregions; q++) {
        const fdw_slice *rg = &regions[q];
        if (!fdw_region_floats(&c->prob, rg) || !host[q])
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                            "cpu backend: extract region %d (plane %d, index %d) is outside "
                            "the %dx%dx%d grid",
                            q, (int)rg->plane, rg->index, c->nx, c->ny, c->nz);
        float *h = host[q];
        for (int d = 0; d < c->ndev; d++) {
            const cpu_slab *s = &c->slab[d];
            const float *u = cpu_base(c, s, c->cur);
            for (int k = 0; k < s->nz; k++) {
                const float *pl = u + (ptrdiff_t)k * c->plane;
                int gk = s->z0 + k;
                switch (rg->plane) {
                case FDW_PLANE_XY:
                    if (gk == rg->index)
                        for (int j = 0; j < ny; j++)
                            memcpy(h + (size_t)j * nx, pl + (ptrdiff_t)j * c->px,
                                   (size_t)nx * sizeof(float));
                    break;
                case FDW_PLANE_XZ:
                    memcpy(h + (size_t)gk * nx, pl + (ptrdiff_t)rg->index * c->px,
                           (size_t)nx * sizeof(float));
                    break;
                case FDW_PLANE_YZ:
                    for (int j = 0; j < ny; j++)
                        h[(size_t)gk * ny + j] = pl[(ptrdiff_t)j * c->px + rg->index];
                    break;
                case FDW_PLANE_VOLUME:
                    for (int j = 0; j < ny; j++)
                        memcpy(h + ((size_t)gk * ny + j) * nx, pl + (ptrdiff_t)j * c->px,
                               (size_t)nx * sizeof(float));
                    break;
                }
            }
        }
    }
    return FDW_OK;
}

static fdw_status cpu_fetch_receivers(void *vctx, long first, long count, float *host,
                                      fdw_error *err)
{
    cpu_ctx *c = vctx;
    const fdw_problem *p = &c->prob;
    if (count == 0)
        return FDW_OK;
    if (!c->traces || first < 0 || count < 0 || first + count > p->nrec_slots || !host)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cpu backend: receiver slots [%ld, %ld) requested, %ld recorded", first,
                        first + count, c->traces ? p->nrec_slots : 0L);
    memcpy(host, c->traces + (size_t)first * (size_t)p->nreceivers,
           (size_t)count * (size_t)p->nreceivers * sizeof(float));
    return FDW_OK;
}

static uint64_t cpu_device_bytes(void *vctx, int dev)
{
    const cpu_ctx *c = vctx;
    if (c->comm) /* any rank's slab: the same formula its process allocated by */
        return dev >= 0 && dev < c->nslabs
                   ? slab_bytes(&c->prob, c->plan.z0[dev], c->plan.nz[dev],
                                (uint64_t)c->plane * sizeof(float))
                   : 0;
    return dev >= 0 && dev < c->ndev ? c->slab[dev].bytes : 0;
}

/* The watch's peak (backend.h): the magnitude bits' largest over every slab's current
 * buffer, ghost planes and padding included. */
void cpu_peak_fold(const float *f, size_t n, float *peak, int *bad)
{
    float best = *peak;
    int nan = *bad;
#pragma omp parallel for reduction(max : best) reduction(| : nan) schedule(static)
    for (size_t i = 0; i < n; i++) {
        const float m = fabsf(f[i]);
        nan |= !(m <= FLT_MAX);
        best = m > best ? m : best;
    }
    *peak = best;
    *bad = nan;
}

uint32_t cpu_peak_bits(float peak, int bad)
{
    const float v = bad ? NAN : peak;
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits & 0x7fffffffu;
}

static fdw_status cpu_field_peak(void *vctx, uint32_t *bits, fdw_error *err)
{
    (void)err;
    const cpu_ctx *c = vctx;
    float best = 0.0f;
    int bad = 0;
    for (int d = 0; d < c->ndev; d++) {
        const cpu_slab *s = &c->slab[d];
        cpu_peak_fold(s->buf[c->cur], (size_t)(s->nz + 2 * c->r) * (size_t)c->plane, &best,
                      &bad);
    }
    *bits = cpu_peak_bits(best, bad);
    return FDW_OK;
}

static const fdw_backend cpu_backend = {
    .name = "cpu",
    .create = cpu_create,
    .destroy = cpu_destroy,
    .step = cpu_step,
    .extract = cpu_extract,
    .fetch_receivers = cpu_fetch_receivers,
    .device_bytes = cpu_device_bytes,
    .field_peak = cpu_field_peak,
    .prepare = fdw_cpu_prepare,
    .capture = fdw_cpu_capture,
    .load = fdw_cpu_load,
};

const fdw_backend *fdw_cpu_backend(void) { return &cpu_backend; }

const fdw_backend *fdw_cpu_backend_for(const fdw_kind_ops *kind)
{
    return kind && kind->run.cpu_engine ? kind->run.cpu_engine : &cpu_backend;
}
