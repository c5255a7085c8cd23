/* cpu_imaging.c — the imaging kinds' CPU engine (imaging.h; the reference of the CUDA
 * one): one slab in the CPU backend's padded layout, stepped by the acoustic kind's own
 * kernel (cpu_acoustic_kernel_for), the free surface's mirror and hold, the shot's source
 * and the receivers' rows as the backend has them, and the imaging steps:
 *   born      one step of the background u and of the scattered field du with its source
 *             dV lap u / (1 + q), the receivers recording du;
 *   rtm,      the forward pass (u with checkpoints every L steps; gradient: the receivers
 *   gradient  recording u), then segment by segment from the last: u stepped again from
 *             its checkpoint into the store, and the adjoint field z stepped backwards in
 *             time through it, fed the traces (rtm: the data; gradient: the residual) at
 *             the receivers weighted by V / (1 + q), the image summing lap u[n] z[n+1]
 *             (or u[n] z[n+1]) and the illumination u[n]^2 in float32 (the division by
 *             V is the outputs' last pass, imaging_finish.c).
 * Every engine step is one time step of one field (the run loop counts them, imaging.h's
 * fdw_img_engine_steps), so progress and cancellation work as for any kind. */
#include "kinds/imaging/imaging.h"
#include "kinds/acoustic/cpu_acoustic_kernel.h"
#include "cpu/cpu_kind.h"

#include "core/error.h"
#include "run/positioning.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct img_cpu {
    img_result res;            /* first: what imaging_outputs.c reads */
    fdw_problem prob;          /* shallow copy; the engine's arrays are its own */
    const fdw_img_data *d;
    int nx, ny, nz, r, px, py, k0;
    ptrdiff_t plane, origin;   /* floats a padded plane; point (0,0,0) in a buffer */
    size_t nbuf;               /* floats a buffer: nz + 2r planes */
    cpu_acoustic_fn kernel;
    cpu_acoustic_args a;       /* coefficients and sponge; field pointers set per step */
    float *qx, *qy, *qz;       /* sponge per axis, zeros where none (NULL: none at all) */
    float *u[2], *w[2];        /* background; born's scattered or the adjoint field */
    int cu, cw;                /* which buffer holds the current time */
    float *v, *dv, *lap;       /* V; born's dV / (1 + q); the Laplacian's scratch */
    float *img, *ill;          /* image (or gradient) and illumination sums, field layout */
    int nsrc;                  /* source taps */
    ptrdiff_t *src_off;
    int *src_owner;
    float *src_w;
    int nrt;                   /* receiver taps */
    ptrdiff_t *rt_off;
    int *rt_row, *rt_rcv;
    float *rt_w, *rt_adj;      /* weight; weight V / (1 + q) at the tap (the adjoint's) */
    float *rec;                /* recordings [slot][row] */
    float *adj;                /* the adjoint's traces [receiver][slot] */
    float **ck;                /* checkpoints: u[n], u[n-1] at segment k's start, k = 1..K-2 */
    float **store;             /* u of the segment being imaged, L fields */
    img_sched sched;           /* imaging_sched.c */
    uint64_t bytes;
} img_cpu;

static void *alloc_field(img_cpu *c, size_t floats)
{
    const size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
    void *p = aligned_alloc(64, bytes);
    if (p) {
        memset(p, 0, bytes);
        c->bytes += bytes;
    }
    return p;
}

static float *at_origin(const img_cpu *c, float *buf)
{
    return buf + c->origin;
}

/* ---- one field's time step ---- */

/* Above a free surface the field is odd across plane 0: ghost plane -m holds -plane m. */
static void mirror(const img_cpu *c, float *buf)
{
    if (!c->prob.free_surface)
        return;
    float *p0 = buf + (ptrdiff_t)c->r * c->plane;
#pragma omp parallel for collapse(2) schedule(static)
    for (int m = 1; m <= c->r; m++)
        for (ptrdiff_t i = 0; i < c->plane; i++)
            p0[i - m * c->plane] = -p0[i + m * c->plane];
}

/* next = the scheme's update of (cur, next), every owned plane; plane 0 held at 0 under a
 * free surface. cur's mirror first. */
static void update(img_cpu *c, float *next, float *cur)
{
    mirror(c, cur);
    cpu_acoustic_args a = c->a;
    a.up = at_origin(c, next);
    a.u = at_origin(c, cur);
    const int yb = 8, nb = (c->ny + yb - 1) / yb, ng = (c->nz + 1) / 2;
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
    for (int b = 0; b < nb; b++)
        for (int g = 0; g < ng; g++) {
            const int j0 = b * yb, j1 = j0 + yb < c->ny ? j0 + yb : c->ny;
            const int k0 = 2 * g, k1 = k0 + 2 < c->nz ? k0 + 2 : c->nz;
            c->kernel(&a, k0, k1, j0, j1);
        }
    if (c->prob.free_surface)
        memset(next + (ptrdiff_t)c->r * c->plane, 0, (size_t)c->plane * sizeof(float));
}

/* The shot's source after the update of step it, as the backends add it. */
static void inject_source(const img_cpu *c, float *buf, long it)
{
    float *f = at_origin(c, buf);
    for (int t = 0; t < c->nsrc; t++)
        f[c->src_off[t]] += c->prob.wavelets[(size_t)c->src_owner[t] * (size_t)c->prob.nt + it] *
                            c->src_w[t];
}

/* The receivers' rows of buf after step it, when a slot is due. */
static void record(const img_cpu *c, const float *buf, long it)
{
    const fdw_problem *p = &c->prob;
    if ((it + 1) % p->rec_interval != 0 || (it + 1) / p->rec_interval >= p->nrec_slots)
        return;
    float *slot = c->rec + (size_t)((it + 1) / p->rec_interval) * (size_t)p->nreceivers;
    const float *f = buf + c->origin;
    for (int t = 0; t < c->nrt; t++)
        slot[c->rt_row[t]] += f[c->rt_off[t]] * c->rt_w[t];
}

/* The adjoint's source after its update of time m (a receivers' time): each receiver's
 * trace at that slot, spread over its taps with weight V / (1 + q). */
static void inject_adjoint(const img_cpu *c, float *buf, long m)
{
    const fdw_problem *p = &c->prob;
    if (m % p->rec_interval != 0 || m / p->rec_interval >= p->nrec_slots || m == 0)
        return;
    const long s = m / p->rec_interval;
    float *f = at_origin(c, buf);
    for (int t = 0; t < c->nrt; t++)
        f[c->rt_off[t]] += c->adj[(size_t)c->rt_rcv[t] * (size_t)p->nrec_slots + s] *
                           c->rt_adj[t];
}

/* out = the scheme's Laplacian of buf (mirrored first) at every owned point, in the
 * order ((c0 u + x terms) + y terms) + z terms. */
static void laplacian(const img_cpu *c, float *buf, float *out)
{
    mirror(c, buf);
    const fdw_img_data *d = c->d;
    const float c0 = (d->cx[0] + d->cy[0]) + d->cz[0];
    const int R = c->r;
    const ptrdiff_t sy = c->px, sz = c->plane;
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < c->nz; k++)
        for (int j = 0; j < c->ny; j++) {
            const ptrdiff_t o = c->origin + k * sz + j * sy;
            const float *u = buf + o;
            float *l = out + o;
            for (int i = 0; i < c->nx; i++) {
                float lx = 0.0f, ly = 0.0f, lz = 0.0f;
                for (int m = 1; m <= R; m++) {
                    lx += d->cx[m] * (u[i + m] + u[i - m]);
                    ly += d->cy[m] * (u[i + m * sy] + u[i - m * sy]);
                    lz += d->cz[m] * (u[i + m * sz] + u[i - m * sz]);
                }
                l[i] = ((c0 * u[i] + lx) + ly) + lz;
            }
        }
}

/* ---- the imaging steps ---- */

static void born_step(img_cpu *c, long it)
{
    laplacian(c, c->u[c->cu], c->lap);
    update(c, c->w[1 - c->cw], c->w[c->cw]);
    float *s = c->w[1 - c->cw];
    const ptrdiff_t from = c->origin + (ptrdiff_t)c->k0 * c->plane,
                    to = c->origin + (ptrdiff_t)c->nz * c->plane;
#pragma omp parallel for schedule(static)
    for (ptrdiff_t i = from; i < to; i++) /* (padding: dv is 0 there) */
        s[i] += c->dv[i] * c->lap[i];
    c->cw = 1 - c->cw;
    record(c, c->w[c->cw], it);
    update(c, c->u[1 - c->cu], c->u[c->cu]);
    inject_source(c, c->u[1 - c->cu], it);
    c->cu = 1 - c->cu;
}

static void copy_field(const img_cpu *c, float *dst, const float *src)
{
    memcpy(dst, src, c->nbuf * sizeof(float));
}

/* One forward step of the background from time it (checkpoint or store first). */
static void forward_step(img_cpu *c, const img_unit *u)
{
    if (u->checkpoint >= 0) {
        copy_field(c, c->ck[2 * u->checkpoint], c->u[c->cu]);
        copy_field(c, c->ck[2 * u->checkpoint + 1], c->u[1 - c->cu]);
    }
    if (u->store >= 0)
        copy_field(c, c->store[u->store], c->u[c->cu]);
    update(c, c->u[1 - c->cu], c->u[c->cu]);
    inject_source(c, c->u[1 - c->cu], u->it);
    c->cu = 1 - c->cu;
    if (c->d->mode == IMG_GRADIENT)
        record(c, c->u[c->cu], u->it);
}

/* The adjoint's traces once the forward pass is done: rtm the data; gradient the
 * residual of the recorded traces and the misfit 1/2 sum r^2. */
static void start_adjoint(img_cpu *c)
{
    const fdw_problem *p = &c->prob;
    const long ns = p->nrec_slots;
    const int nrows = p->nreceivers, nrec = fdw_problem_receivers(p);
    if (c->d->mode == IMG_RTM) {
        memcpy(c->adj, c->d->data, (size_t)nrec * ns * sizeof(float));
        return;
    }
    float *rows = malloc((size_t)nrows * ns * sizeof(float));
    if (!rows) { /* (the traces' own size; create reserved c->adj of it) */
        memset(c->adj, 0, (size_t)nrec * ns * sizeof(float));
        c->res.misfit = NAN;
        return;
    }
    for (long s = 0; s < ns; s++)
        for (int q = 0; q < nrows; q++)
            rows[(size_t)q * ns + s] = c->rec[(size_t)s * nrows + q];
    fdw_receivers_combine(p, rows, ns, c->adj);
    free(rows);
    double j = 0.0;
    for (size_t i = 0; i < (size_t)nrec * ns; i++) {
        c->adj[i] -= c->d->data[i];
        j += (double)c->adj[i] * c->adj[i];
    }
    c->res.misfit = 0.5 * j;
}

/* Segment k's start into the background and the store's first field: its checkpoint
 * (segment 0: the zero initial state). */
static void restore_segment(img_cpu *c, long k)
{
    if (k == 0) {
        memset(c->u[0], 0, c->nbuf * sizeof(float));
        memset(c->u[1], 0, c->nbuf * sizeof(float));
    } else {
        copy_field(c, c->u[0], c->ck[2 * (k - 1)]);
        copy_field(c, c->u[1], c->ck[2 * (k - 1) + 1]);
    }
    c->cu = 0;
    copy_field(c, c->store[0], c->u[0]);
}

/* A step of a segment again, into the store's next slot. */
static void recompute_step(img_cpu *c, const img_unit *u)
{
    update(c, c->u[1 - c->cu], c->u[c->cu]);
    inject_source(c, c->u[1 - c->cu], u->it);
    c->cu = 1 - c->cu;
    copy_field(c, c->store[u->store], c->u[c->cu]);
}

/* The adjoint's step to time n + 1 (from n + 2 and n + 3), then the image of u[n]. */
static void adjoint_step(img_cpu *c, const img_unit *u)
{
    const long n = u->it;
    update(c, c->w[1 - c->cw], c->w[c->cw]);
    inject_adjoint(c, c->w[1 - c->cw], n + 1);
    c->cw = 1 - c->cw;
    float *un = c->store[u->store];
    const float *z = c->w[c->cw];
    const int xcorr = c->d->condition == IMG_COND_XCORR, ill = c->d->illumination;
    if (!xcorr)
        laplacian(c, un, c->lap);
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = c->k0; k < c->nz; k++)
        for (int j = 0; j < c->ny; j++) {
            const ptrdiff_t o = c->origin + k * c->plane + (ptrdiff_t)j * c->px;
            for (int i = 0; i < c->nx; i++) {
                const float u = un[o + i];
                c->img[o + i] += xcorr ? u * z[o + i] : c->lap[o + i] * z[o + i];
                if (ill)
                    c->ill[o + i] += u * u;
            }
        }
}

static int finish_outputs(img_cpu *c);

static fdw_status cpu_img_step(void *vctx, long it, fdw_error *err)
{
    img_cpu *c = vctx;
    if (c->d->mode == IMG_BORN) {
        born_step(c, it);
        return FDW_OK;
    }
    const img_unit u = img_sched_unit(&c->sched);
    if (u.restore)
        restore_segment(c, u.seg);
    switch (u.phase) {
    case IMG_FORWARD:
        forward_step(c, &u);
        if (u.last)
            start_adjoint(c);
        break;
    case IMG_RECOMPUTE:
        recompute_step(c, &u);
        break;
    case IMG_ADJOINT:
        adjoint_step(c, &u);
        break;
    case IMG_DONE:
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: step %ld after the last",
                        it);
    }
    img_sched_advance(&c->sched);
    if (c->sched.phase == IMG_DONE && finish_outputs(c) != 0)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory for the "
                        "image's last pass");
    return FDW_OK;
}

/* The sums in the grid's order, then the outputs' arrays (imaging_finish.c). */
static int finish_outputs(img_cpu *c)
{
    const size_t n = (size_t)c->nx * c->ny * c->nz;
    float *img = malloc(n * sizeof *img), *ill = malloc(n * sizeof *ill);
    int rc = -1;
    if (img && ill) {
        for (int k = 0; k < c->nz; k++)
            for (int j = 0; j < c->ny; j++) {
                const ptrdiff_t o = c->origin + k * c->plane + (ptrdiff_t)j * c->px;
                const size_t g = ((size_t)k * c->ny + j) * c->nx;
                memcpy(img + g, c->img + o, (size_t)c->nx * sizeof *img);
                memcpy(ill + g, c->ill + o, (size_t)c->nx * sizeof *ill);
            }
        rc = fdw_img_finish_sums(&c->prob, img, ill, &c->res);
    }
    free(img), free(ill);
    return rc;
}

/* ---- the backend table ---- */

static void cpu_img_destroy(void *vctx)
{
    img_cpu *c = vctx;
    if (!c)
        return;
    free(c->qx), free(c->qy), free(c->qz);
    for (int b = 0; b < 2; b++)
        free(c->u[b]), free(c->w[b]);
    free(c->v), free(c->dv), free(c->lap), free(c->img), free(c->ill);
    free(c->src_off), free(c->src_owner), free(c->src_w);
    free(c->rt_off), free(c->rt_row), free(c->rt_rcv), free(c->rt_w), free(c->rt_adj);
    free(c->rec), free(c->adj);
    for (long i = 0; c->ck && i < 2 * (c->sched.K > 2 ? c->sched.K - 2 : 0); i++)
        free(c->ck[i]);
    free(c->ck);
    for (int i = 0; c->store && i < c->sched.L; i++)
        free(c->store[i]);
    free(c->store);
    free(c->res.image), free(c->res.illum), free(c->res.predicted);
    free(c);
}

/* A global grid index as an offset from the buffers' point (0,0,0). */
static ptrdiff_t offset_of(const img_cpu *c, uint64_t g)
{
    const uint64_t i = g % (uint64_t)c->nx, j = (g / (uint64_t)c->nx) % (uint64_t)c->ny,
                   k = g / ((uint64_t)c->nx * c->ny);
    return (ptrdiff_t)k * c->plane + (ptrdiff_t)j * c->px + (ptrdiff_t)i;
}

/* A whole-grid array into a field-layout one (times f where given). */
static void spread(const img_cpu *c, float *dst, const float *src)
{
    for (int k = 0; k < c->nz; k++)
        for (int j = 0; j < c->ny; j++)
            memcpy(dst + c->origin + k * c->plane + (ptrdiff_t)j * c->px,
                   src + ((size_t)k * c->ny + j) * c->nx, (size_t)c->nx * sizeof(float));
}

static fdw_status nomem(img_cpu *c, fdw_error *err)
{
    const uint64_t b = c->bytes;
    cpu_img_destroy(c);
    return fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory after "
                    "%.1f MiB (its fields, checkpoints and store)", (double)b / 1048576.0);
}

static fdw_status cpu_img_create(const fdw_problem *prob, const fdw_plan *plan, void **out,
                                 fdw_error *err)
{
    const fdw_img_data *d = prob->kdata;
    if (!d || !d->vdt2 || prob->radius < 1 || prob->radius > FDW_MAX_RADIUS)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: the problem is "
                        "incomplete");
    if (plan->ndev != 1 || prob->comm)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, "devices", "the imaging kinds run a shot on "
                        "one device (asked for %d)", plan->ndev);
    img_cpu *c = calloc(1, sizeof *c);
    if (!c)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory");
    c->prob = *prob;
    c->d = d;
    c->nx = prob->nx, c->ny = prob->ny, c->nz = prob->nz, c->r = prob->radius;
    c->k0 = prob->free_surface ? 1 : 0;
    c->px = (c->nx + FDW_CPU_XOFF + c->r + 15) / 16 * 16;
    c->py = c->ny + 2 * c->r;
    c->plane = (ptrdiff_t)c->px * c->py;
    c->origin = (ptrdiff_t)c->r * c->plane + (ptrdiff_t)c->r * c->px + FDW_CPU_XOFF;
    c->nbuf = (size_t)(c->nz + 2 * c->r) * (size_t)c->plane;
    c->kernel = cpu_acoustic_kernel_for(c->r, prob->tuning->cpu_portable);
    const size_t n = (size_t)c->nx * c->ny * c->nz;
    for (int b = 0; b < 2; b++)
        if (!(c->u[b] = alloc_field(c, c->nbuf)) || !(c->w[b] = alloc_field(c, c->nbuf)))
            return nomem(c, err);
    if (!(c->v = alloc_field(c, c->nbuf)) || !(c->lap = alloc_field(c, c->nbuf)))
        return nomem(c, err);
    spread(c, c->v, d->vdt2);
    /* the sponge, zeros on the axes without (the kernel reads all three) */
    const int sponge = prob->qx || prob->qy || prob->qz;
    if (sponge) {
        c->qx = calloc((size_t)c->nx, sizeof(float));
        c->qy = calloc((size_t)c->ny, sizeof(float));
        c->qz = calloc((size_t)c->nz, sizeof(float));
        if (!c->qx || !c->qy || !c->qz)
            return nomem(c, err);
        if (prob->qx)
            memcpy(c->qx, prob->qx, (size_t)c->nx * sizeof(float));
        if (prob->qy)
            memcpy(c->qy, prob->qy, (size_t)c->ny * sizeof(float));
        if (prob->qz)
            memcpy(c->qz, prob->qz, (size_t)c->nz * sizeof(float));
    }
    cpu_acoustic_args *a = &c->a;
    a->v = at_origin(c, c->v);
    a->sy = c->px;
    a->sz = c->plane;
    a->nx = c->nx;
    a->nzl = c->nz;
    a->c0 = (d->cx[0] + d->cy[0]) + d->cz[0];
    for (int m = 0; m <= FDW_MAX_RADIUS; m++)
        a->cx[m] = d->cx[m], a->cy[m] = d->cy[m], a->cz[m] = d->cz[m];
    a->qx = sponge ? c->qx : NULL;
    a->qy = c->qy;
    a->qz = sponge ? c->qz : NULL;
    a->xlo = 0, a->xhi = 0;
    if (sponge) { /* qx == 0 on [xlo, xhi) */
        int lo = 0, hi = c->nx;
        while (lo < c->nx && c->qx[lo] != 0.0f)
            lo++;
        while (hi > lo && c->qx[hi - 1] != 0.0f)
            hi--;
        a->xlo = lo, a->xhi = hi;
    }
    /* taps */
    c->nsrc = prob->nsrc_taps;
    c->src_off = malloc((size_t)(c->nsrc + 1) * sizeof *c->src_off);
    c->src_owner = malloc((size_t)(c->nsrc + 1) * sizeof *c->src_owner);
    c->src_w = malloc((size_t)(c->nsrc + 1) * sizeof *c->src_w);
    c->nrt = prob->nrec_taps;
    c->rt_off = malloc((size_t)(c->nrt + 1) * sizeof *c->rt_off);
    c->rt_row = malloc((size_t)(c->nrt + 1) * sizeof *c->rt_row);
    c->rt_rcv = malloc((size_t)(c->nrt + 1) * sizeof *c->rt_rcv);
    c->rt_w = malloc((size_t)(c->nrt + 1) * sizeof *c->rt_w);
    c->rt_adj = malloc((size_t)(c->nrt + 1) * sizeof *c->rt_adj);
    const int nrec = fdw_problem_receivers(prob);
    c->rec = calloc((size_t)prob->nrec_slots * (size_t)(prob->nreceivers + 1), sizeof(float));
    c->adj = calloc((size_t)prob->nrec_slots * (size_t)(nrec + 1), sizeof(float));
    if (!c->src_off || !c->src_owner || !c->src_w || !c->rt_off || !c->rt_row || !c->rt_rcv ||
        !c->rt_w || !c->rt_adj || !c->rec || !c->adj)
        return nomem(c, err);
    for (int t = 0; t < c->nsrc; t++) {
        c->src_off[t] = offset_of(c, prob->src_taps[t].index);
        c->src_owner[t] = prob->src_taps[t].owner;
        c->src_w[t] = prob->src_taps[t].weight;
    }
    for (int t = 0; t < c->nrt; t++) {
        const fdw_tap *tp = &prob->rec_taps[t];
        c->rt_off[t] = offset_of(c, tp->index);
        c->rt_row[t] = tp->owner;
        c->rt_w[t] = tp->weight;
        int rcv = tp->owner; /* the receiver whose rows include this one */
        if (prob->rec_rows)
            for (rcv = 0; rcv < nrec && prob->rec_rows[rcv + 1] <= tp->owner; rcv++)
                ;
        c->rt_rcv[t] = rcv;
        const ptrdiff_t o = c->origin + c->rt_off[t];
        const float q = sponge ? c->qx[tp->index % (uint64_t)c->nx] +
                                     (c->qy[(tp->index / (uint64_t)c->nx) % (uint64_t)c->ny] +
                                      c->qz[tp->index / ((uint64_t)c->nx * c->ny)])
                               : 0.0f;
        c->rt_adj[t] = (float)((double)tp->weight * (double)c->v[o] / (1.0 + (double)q));
    }
    if (d->mode == IMG_BORN) { /* dV / (1 + q) in the field layout */
        if (!(c->dv = alloc_field(c, c->nbuf)))
            return nomem(c, err);
        spread(c, c->dv, d->dvdt2);
        if (sponge)
            for (int k = 0; k < c->nz; k++)
                for (int j = 0; j < c->ny; j++)
                    for (int i = 0; i < c->nx; i++) {
                        const ptrdiff_t o = c->origin + k * c->plane + (ptrdiff_t)j * c->px + i;
                        c->dv[o] = c->dv[o] / (1.0f + (c->qx[i] + (c->qy[j] + c->qz[k])));
                    }
        *out = c;
        return FDW_OK;
    }
    img_sched_init(&c->sched, d->nt, d->seg);
    const long nck = 2 * (c->sched.K > 2 ? c->sched.K - 2 : 0);
    c->ck = calloc((size_t)(nck + 1), sizeof *c->ck);
    c->store = calloc((size_t)c->sched.L, sizeof *c->store);
    c->img = malloc(c->nbuf * sizeof(float));
    c->ill = malloc(c->nbuf * sizeof(float));
    c->res.image = malloc(n * sizeof(float));
    c->res.illum = malloc(n * sizeof(float));
    if (!c->ck || !c->store || !c->img || !c->ill || !c->res.image || !c->res.illum)
        return nomem(c, err);
    c->bytes += 2 * c->nbuf * sizeof(float) + 2 * n * sizeof(float);
    memset(c->img, 0, c->nbuf * sizeof(float));
    memset(c->ill, 0, c->nbuf * sizeof(float));
    for (long i = 0; i < nck; i++)
        if (!(c->ck[i] = alloc_field(c, c->nbuf)))
            return nomem(c, err);
    for (int i = 0; i < c->sched.L; i++)
        if (!(c->store[i] = alloc_field(c, c->nbuf)))
            return nomem(c, err);
    *out = c;
    return FDW_OK;
}

static fdw_status cpu_img_extract(void *vctx, int nregions, const fdw_slice *regions,
                                  float **host, fdw_error *err)
{
    (void)vctx, (void)nregions, (void)regions, (void)host;
    return fdw_fail(err, FDW_ERR_UNSUPPORTED, "snapshots", "the imaging kinds take no "
                    "snapshots");
}

static fdw_status cpu_img_extract_done(void *vctx, int *done, fdw_error *err)
{
    (void)vctx, (void)err;
    *done = 1;
    return FDW_OK;
}

static fdw_status cpu_img_wait(void *vctx, fdw_error *err)
{
    (void)vctx, (void)err;
    return FDW_OK;
}

/* born's scattered recordings, gradient's predicted ones ([slot][row]). */
static fdw_status cpu_img_fetch_receivers(void *vctx, long first, long count, float *host,
                                          fdw_error *err)
{
    const img_cpu *c = vctx;
    const fdw_problem *p = &c->prob;
    if (first < 0 || count < 0 || first + count > p->nrec_slots)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: receiver slots %ld..%ld "
                        "of %ld", first, first + count, p->nrec_slots);
    memcpy(host, c->rec + (size_t)first * p->nreceivers,
           (size_t)count * (size_t)p->nreceivers * sizeof(float));
    return FDW_OK;
}

static fdw_status cpu_img_field_peak(void *vctx, uint32_t *bits, fdw_error *err)
{
    (void)err;
    const img_cpu *c = vctx;
    float best = 0.0f;
    int bad = 0;
    const float *f[2] = {c->u[c->cu], c->w[c->cw]};
    for (int q = 0; q < 2; q++)
#pragma omp parallel for reduction(max : best) reduction(| : bad) schedule(static)
        for (size_t i = 0; i < c->nbuf; i++) {
            const float m = fabsf(f[q][i]);
            bad |= !(m <= FLT_MAX);
            best = m > best ? m : best;
        }
    if (bad)
        best = NAN;
    memcpy(bits, &best, sizeof *bits);
    *bits &= 0x7fffffffu;
    return FDW_OK;
}

static uint64_t cpu_img_device_bytes(void *vctx, int dev)
{
    const img_cpu *c = vctx;
    return dev == 0 ? c->bytes : 0;
}

const fdw_backend fdw_img_cpu_engine = {
    .name = "cpu",
    .create = cpu_img_create,
    .destroy = cpu_img_destroy,
    .step = cpu_img_step,
    .extract = cpu_img_extract,
    .extract_done = cpu_img_extract_done,
    .wait = cpu_img_wait,
    .fetch_receivers = cpu_img_fetch_receivers,
    .field_peak = cpu_img_field_peak,
    .device_bytes = cpu_img_device_bytes,
};
