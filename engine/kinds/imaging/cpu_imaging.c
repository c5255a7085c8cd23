/* cpu_imaging.c — the imaging kinds' CPU engine (imaging.h; the reference of the CUDA
 * one): one slab (imaging_slabs.h drives the slabs of a shot) in the CPU backend's padded
 * layout, stepped by the acoustic kind's own
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
 * With a CPML each field has its memory variables (imaging_cpml.h): the background's and
 * born's scattered field's step by the acoustic kind's recursion, the adjoint's by its
 * transpose; the checkpoints keep the background's, the store each step's layer term
 * (born's source and the image take lap u plus it).
 * Every engine step is one time step of one field (the run loop counts them, imaging.h's
 * fdw_img_engine_steps), so progress and cancellation work as for any kind. */
#include "kinds/imaging/imaging.h"
#include "kinds/imaging/imaging_cpml.h"
#include "kinds/imaging/imaging_recon.h"
#include "kinds/imaging/imaging_slabs.h"
#include "kinds/acoustic/cpu_acoustic_kernel.h"
#include "cpu/cpu_kind.h"

#include "core/error.h"
#include "run/positioning.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct img_cpu {
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
    int nrt;                   /* receiver taps (those on the slab's planes) */
    ptrdiff_t *rt_off;
    int *rt_row, *rt_rcv;
    float *rt_w, *rt_adj;      /* weight; weight V / (1 + q) at the tap (the adjoint's) */
    float *rec;                /* recordings [slot][row] */
    float *adj;                /* the adjoint's traces [receiver][slot] */
    float **ck;                /* checkpoints: u[n], u[n-1] at segment k's start, k = 1..K-2 */
    float **store;             /* u of the segment being imaged, L fields */
    img_pml pml;               /* the CPML (pml.on = 0: none, and the arrays below NULL) */
    float *mu, *mw;            /* memory variables of u, and of w (born's or the adjoint's) */
    float *term;               /* born: the background's layer term of the step */
    float **mck;               /* u's memory variables at segment k's start, k = 1..K-1 */
    float **sterm;             /* the store's layer terms (where the image takes lap u) */
    img_band band;             /* the boundary scheme: the interior and its band */
    float *bands;              /* the bands of u[1] .. u[nt-2], band.points floats each */
    img_sched sched;           /* imaging_sched.c: L and K */
    float *wrote[IMG_MAX_WROTE]; /* the fields the last step wrote (their ghost planes due) */
    int nwrote;
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

/* next = the scheme's update of (cur, next), every owned plane, with the CPML's terms when
 * set (cur's memory variables) is given: the forward recursion, or its transpose for the
 * adjoint; plane 0 held at 0 under a free surface. cur's mirror first. */
static void update(img_cpu *c, float *next, float *cur, float *set, int adjoint)
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
    if (set && adjoint)
        img_pml_adjoint(&c->pml, set, a.u, a.up, a.v);
    else if (set)
        img_pml_forward(&c->pml, set, a.u, a.up, a.v);
    if (c->prob.free_surface)
        memset(next + (ptrdiff_t)c->r * c->plane, 0, (size_t)c->plane * sizeof(float));
}

/* The shot's source after the update of step it, as the backends add it (sign 1), or
 * taken off again (-1: the boundary scheme's step back). */
static void inject_source(const img_cpu *c, float *buf, long it, float sign)
{
    float *f = at_origin(c, buf);
    for (int t = 0; t < c->nsrc; t++)
        f[c->src_off[t]] += c->prob.wavelets[(size_t)c->src_owner[t] * (size_t)c->prob.nt + it] *
                            (sign * c->src_w[t]);
}

/* The fields a step wrote (b NULL: one), whose ghost planes its neighbours refresh. */
static void wrote(img_cpu *c, float *a, float *b)
{
    c->wrote[0] = a, c->wrote[1] = b;
    c->nwrote = b ? 2 : 1;
}

/* The receivers' rows of buf after step it, when a slot is due (a row lies in one plane,
 * the slab's own: run/positioning.h). */
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

/* out = the scheme's Laplacian of buf (mirrored first) at the points of the box [lo, hi)
 * (NULL: every owned point), in the order ((c0 u + x terms) + y terms) + z terms. */
static void laplacian(const img_cpu *c, float *buf, float *out, const int *lo, const int *hi)
{
    mirror(c, buf);
    const fdw_img_data *d = c->d;
    const float c0 = (d->cx[0] + d->cy[0]) + d->cz[0];
    const int R = c->r;
    const ptrdiff_t sy = c->px, sz = c->plane;
    const int all_lo[3] = {0, 0, 0}, all_hi[3] = {c->nx, c->ny, c->nz};
    const int *a = lo ? lo : all_lo, *b = hi ? hi : all_hi;
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = a[2]; k < b[2]; k++)
        for (int j = a[1]; j < b[1]; j++) {
            const ptrdiff_t o = c->origin + k * sz + j * sy;
            const float *u = buf + o;
            float *l = out + o;
            for (int i = a[0]; i < b[0]; i++) {
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

/* u and du one step on, du's source dV (lap u + the layer term of u's step). */
static void born_step(void *vc, long it)
{
    img_cpu *c = vc;
    laplacian(c, c->u[c->cu], c->lap, NULL, NULL);
    update(c, c->u[1 - c->cu], c->u[c->cu], c->mu, 0);
    inject_source(c, c->u[1 - c->cu], it, 1.0f);
    if (c->mu)
        img_pml_term(&c->pml, c->mu, c->term);
    update(c, c->w[1 - c->cw], c->w[c->cw], c->mw, 0);
    float *s = c->w[1 - c->cw];
    const ptrdiff_t from = c->origin + (ptrdiff_t)c->k0 * c->plane,
                    to = c->origin + (ptrdiff_t)c->nz * c->plane;
#pragma omp parallel for schedule(static)
    for (ptrdiff_t i = from; i < to; i++) /* (padding: dv is 0 there) */
        s[i] += c->dv[i] * c->lap[i];
    if (c->mu)
        img_pml_apply(&c->pml, c->term, at_origin(c, c->dv), at_origin(c, s));
    c->cw = 1 - c->cw;
    record(c, c->w[c->cw], it);
    c->cu = 1 - c->cu;
    wrote(c, c->u[c->cu], c->w[c->cw]);
}

static void copy_field(const img_cpu *c, float *dst, const float *src)
{
    memcpy(dst, src, c->nbuf * sizeof(float));
}

/* A set of CPML memory variables (2 P floats). */
static void copy_set(const img_cpu *c, float *dst, const float *src)
{
    memcpy(dst, src, 2 * c->pml.count * sizeof(float));
}

/* The bands' slot of u[n + 1] (imaging_sched.c: slot n). */
static float *band_slot(const img_cpu *c, long slot)
{
    return c->bands + (size_t)slot * (size_t)c->band.points;
}

/* One forward step of the background from time it (checkpoint or store first; the
 * boundary scheme: the new field's band saved after it). */
static void forward_step(void *vc, const img_unit *u)
{
    img_cpu *c = vc;
    const int boundary = c->d->recon == IMG_RECON_BOUNDARY;
    if (u->checkpoint >= 0) {
        copy_field(c, c->ck[2 * u->checkpoint], c->u[c->cu]);
        copy_field(c, c->ck[2 * u->checkpoint + 1], c->u[1 - c->cu]);
    }
    if (u->memory >= 0 && c->mu)
        copy_set(c, c->mck[u->memory], c->mu);
    if (u->store >= 0 && !boundary)
        copy_field(c, c->store[u->store], c->u[c->cu]);
    update(c, c->u[1 - c->cu], c->u[c->cu], c->mu, 0);
    inject_source(c, c->u[1 - c->cu], u->it, 1.0f);
    c->cu = 1 - c->cu;
    if (u->store >= 0 && boundary)
        img_band_copy(&c->band, at_origin(c, c->u[c->cu]), c->px, c->plane,
                      band_slot(c, u->store), 1);
    else if (u->store >= 0 && c->sterm)
        img_pml_term(&c->pml, c->mu, c->sterm[u->store]);
    if (c->d->mode == IMG_GRADIENT)
        record(c, c->u[c->cu], u->it);
    wrote(c, c->u[c->cu], NULL);
}

/* Segment k's start into the background and the store's first field: its checkpoint
 * (segment 0: the zero initial state); with a CPML its memory variables too, and the
 * store's last layer term, that of the next segment's memory checkpoint (the step from
 * the segment's last field, which the recomputation does not take). */
static void restore_segment(void *vc, long k)
{
    img_cpu *c = vc;
    if (k == 0) {
        memset(c->u[0], 0, c->nbuf * sizeof(float));
        memset(c->u[1], 0, c->nbuf * sizeof(float));
    } else {
        copy_field(c, c->u[0], c->ck[2 * (k - 1)]);
        copy_field(c, c->u[1], c->ck[2 * (k - 1) + 1]);
    }
    if (c->mu && k == 0)
        memset(c->mu, 0, 2 * c->pml.count * sizeof(float));
    else if (c->mu)
        copy_set(c, c->mu, c->mck[k - 1]);
    if (c->sterm)
        img_pml_term(&c->pml, c->mck[k], c->sterm[c->sched.L - 1]);
    c->cu = 0;
    copy_field(c, c->store[0], c->u[0]);
}

/* A step of a segment again, into the store's next slot. */
static void recompute_step(void *vc, const img_unit *u)
{
    img_cpu *c = vc;
    update(c, c->u[1 - c->cu], c->u[c->cu], c->mu, 0);
    inject_source(c, c->u[1 - c->cu], u->it, 1.0f);
    c->cu = 1 - c->cu;
    copy_field(c, c->store[u->store], c->u[c->cu]);
    if (c->sterm)
        img_pml_term(&c->pml, c->mu, c->sterm[u->store - 1]);
    wrote(c, c->u[c->cu], c->store[u->store]);
}

/* The adjoint's step to time n + 1 (from n + 2 and n + 3), then the image of u[n]. */
static void adjoint_step(void *vc, const img_unit *u)
{
    img_cpu *c = vc;
    const long n = u->it;
    update(c, c->w[1 - c->cw], c->w[c->cw], c->mw, 1);
    inject_adjoint(c, c->w[1 - c->cw], n + 1);
    c->cw = 1 - c->cw;
    float *un = c->store[u->store];
    const float *z = c->w[c->cw];
    const int xcorr = c->d->condition == IMG_COND_XCORR, ill = c->d->illumination;
    if (!xcorr)
        laplacian(c, un, c->lap, NULL, NULL);
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
    if (!xcorr && c->sterm)
        img_pml_apply(&c->pml, c->sterm[u->store], z + c->origin, c->img + c->origin);
    wrote(c, c->w[c->cw], NULL);
}

/* The boundary scheme's unit n (imaging_sched.c): with back, the image's term n + 1 and
 * u[n] on the interior from u[n+1] (the centre, whose Laplacian both take) and u[n+2] less
 * the source of step n + 1, its band put back from the forward pass's; z's step to n + 1
 * as adjoint_step's. Per point the GPU's fused kernel's operations (kernels/imaging). */
static void back_step(void *vc, const img_unit *u)
{
    img_cpu *c = vc;
    const long n = u->it;
    if (n == c->d->nt - 1) /* the forward pass left u[nt] current: u[nt-1] is the centre */
        c->cu = 1 - c->cu;
    float *un = c->u[c->cu], *up = c->u[1 - c->cu];
    const float *z = c->w[c->cw];
    if (u->back) {
        inject_source(c, up, n + 1, -1.0f);
        const img_band *g = &c->band;
        laplacian(c, un, c->lap, g->lo, g->hi); /* the interior: all that reads it */
        const int xcorr = c->d->condition == IMG_COND_XCORR, ill = c->d->illumination;
#pragma omp parallel for collapse(2) schedule(static)
        for (int k = g->lo[2]; k < g->hi[2]; k++)
            for (int j = g->lo[1]; j < g->hi[1]; j++) {
                const ptrdiff_t o = c->origin + k * c->plane + (ptrdiff_t)j * c->px;
                for (int i = g->lo[0]; i < g->hi[0]; i++) {
                    if (k < c->k0) { /* a free surface's plane 0: held at zero, no image */
                        up[o + i] = 0.f;
                        continue;
                    }
                    const float uc = un[o + i], l = c->lap[o + i];
                    c->img[o + i] += xcorr ? uc * z[o + i] : l * z[o + i];
                    if (ill)
                        c->ill[o + i] += uc * uc;
                    up[o + i] = (2.f * uc - up[o + i]) + c->v[o + i] * l;
                }
            }
        if (u->store >= 0)
            img_band_copy(g, at_origin(c, up), c->px, c->plane, band_slot(c, u->store), 0);
    }
    update(c, c->w[1 - c->cw], c->w[c->cw], c->mw, 1);
    inject_adjoint(c, c->w[1 - c->cw], n + 1);
    c->cw = 1 - c->cw;
    if (u->back)
        c->cu = 1 - c->cu;
    wrote(c, c->w[c->cw], u->back ? up : NULL);
}

/* An engine step begins: nothing written yet. */
static void cpu_img_begin(void *vctx)
{
    ((img_cpu *)vctx)->nwrote = 0;
}

/* dst's ghost planes of the fields the step wrote, from src's planes beside them. */
static fdw_status cpu_img_halo(void *vdst, void *vsrc, int src_prev, fdw_error *err)
{
    (void)err;
    img_cpu *d = vdst;
    const img_cpu *s = vsrc;
    const size_t bytes = (size_t)d->r * (size_t)d->plane * sizeof(float);
    for (int f = 0; f < d->nwrote; f++) /* a buffer's plane k starts at (k + r) planes */
        memcpy(d->wrote[f] + (src_prev ? 0 : (ptrdiff_t)(d->nz + d->r) * d->plane),
               s->wrote[f] + (src_prev ? (ptrdiff_t)s->nz : (ptrdiff_t)s->r) * s->plane, bytes);
    return FDW_OK;
}

static fdw_status cpu_img_traces(void *vctx, const float *traces, fdw_error *err)
{
    (void)err;
    img_cpu *c = vctx;
    const fdw_problem *p = &c->prob;
    memcpy(c->adj, traces,
           (size_t)fdw_problem_receivers(p) * (size_t)p->nrec_slots * sizeof(float));
    return FDW_OK;
}

/* The sums of the slab's planes in the grid's order. */
static fdw_status cpu_img_finish(void *vctx, float *image, float *illum, fdw_error *err)
{
    (void)err;
    img_cpu *c = vctx;
    for (int k = 0; k < c->nz; k++)
        for (int j = 0; j < c->ny; j++) {
            const ptrdiff_t o = c->origin + k * c->plane + (ptrdiff_t)j * c->px;
            const size_t g = ((size_t)k * c->ny + j) * c->nx;
            memcpy(image + g, c->img + o, (size_t)c->nx * sizeof(float));
            if (illum)
                memcpy(illum + g, c->ill + o, (size_t)c->nx * sizeof(float));
        }
    return FDW_OK;
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
    free(c->mu), free(c->mw), free(c->term);
    for (long i = 0; c->mck && i < c->sched.K - 1; i++)
        free(c->mck[i]);
    free(c->mck);
    for (int i = 0; c->sterm && i < c->sched.L; i++)
        free(c->sterm[i]);
    free(c->sterm);
    free(c->bands);
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

/* The padded layout of the CPU backend (px a multiple of 16 floats) and the kernel. */
static void set_layout(img_cpu *c, const fdw_problem *prob)
{
    c->prob = *prob;
    c->d = prob->kdata;
    c->nx = prob->nx, c->ny = prob->ny, c->nz = prob->nz, c->r = prob->radius;
    c->k0 = prob->free_surface ? 1 : 0;
    c->px = (c->nx + FDW_CPU_XOFF + c->r + 15) / 16 * 16;
    c->py = c->ny + 2 * c->r;
    c->plane = (ptrdiff_t)c->px * c->py;
    c->origin = (ptrdiff_t)c->r * c->plane + (ptrdiff_t)c->r * c->px + FDW_CPU_XOFF;
    c->nbuf = (size_t)(c->nz + 2 * c->r) * (size_t)c->plane;
    c->kernel = cpu_acoustic_kernel_for(c->r, prob->tuning->cpu_portable);
}

/* The acoustic kernel's fixed arguments: V, strides, coefficients and the sponge (its
 * axes zero where none, the kernel reads all three; qx == 0 on [xlo, xhi)). */
static void set_kernel_args(img_cpu *c, int sponge)
{
    const fdw_img_data *d = c->d;
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
    if (sponge) {
        int lo = 0, hi = c->nx;
        while (lo < c->nx && c->qx[lo] != 0.0f)
            lo++;
        while (hi > lo && c->qx[hi - 1] != 0.0f)
            hi--;
        a->xlo = lo, a->xhi = hi;
    }
}

/* The source's and the receivers' taps as offsets in the field layout, the adjoint's
 * weights, and the recordings and adjoint traces; 0, or -1 out of memory. */
static int set_taps(img_cpu *c)
{
    const fdw_problem *prob = &c->prob;
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
        return -1;
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
        c->rt_rcv[t] = fdw_img_tap_receiver(prob, tp);
        c->rt_adj[t] = fdw_img_adjoint_weight(prob, tp);
    }
    return 0;
}

/* born: its source dV / (1 + q) in the field layout; 0, or -1 out of memory. */
static int set_born(img_cpu *c)
{
    float *h = NULL;
    if (!(c->dv = alloc_field(c, c->nbuf)) || fdw_img_born_source(&c->prob, &h) != 0)
        return -1;
    spread(c, c->dv, h);
    free(h);
    return 0;
}

/* rtm, gradient with a CPML: the memory checkpoints and, where the image takes lap u, the
 * store's layer terms; 0, or -1 out of memory. */
static int set_pml_passes(img_cpu *c)
{
    const long nm = c->sched.K - 1;
    c->mck = calloc((size_t)nm + 1, sizeof *c->mck);
    if (!c->mck)
        return -1;
    for (long i = 0; i < nm; i++)
        if (!(c->mck[i] = alloc_field(c, 2 * c->pml.count)))
            return -1;
    if (c->d->mode == IMG_RTM && c->d->condition == IMG_COND_XCORR)
        return 0;
    c->sterm = calloc((size_t)c->sched.L, sizeof *c->sterm);
    if (!c->sterm)
        return -1;
    for (int i = 0; i < c->sched.L; i++)
        if (!(c->sterm[i] = alloc_field(c, c->pml.count)))
            return -1;
    return 0;
}

/* rtm, gradient: the schedule, the checkpoints and the store or the bands, and the sums;
 * 0, or -1 out of memory. */
static int set_passes(img_cpu *c)
{
    const int boundary = c->d->recon == IMG_RECON_BOUNDARY;
    img_sched_init(&c->sched, c->d->nt, c->d->seg, c->d->recon);
    const long nck = boundary ? 0 : 2 * (c->sched.K > 2 ? c->sched.K - 2 : 0);
    const int nstore = boundary ? 0 : c->sched.L;
    if (boundary) {
        img_band_of(&c->band, &c->prob);
        const uint64_t floats = img_band_floats(&c->band, c->d->nt);
        if (floats > 0 && !(c->bands = alloc_field(c, (size_t)floats)))
            return -1;
    }
    c->ck = calloc((size_t)(nck + 1), sizeof *c->ck);
    c->store = calloc((size_t)nstore + 1, sizeof *c->store);
    c->img = malloc(c->nbuf * sizeof(float));
    c->ill = malloc(c->nbuf * sizeof(float));
    if (!c->ck || !c->store || !c->img || !c->ill)
        return -1;
    c->bytes += 2 * c->nbuf * sizeof(float);
    memset(c->img, 0, c->nbuf * sizeof(float));
    memset(c->ill, 0, c->nbuf * sizeof(float));
    for (long i = 0; i < nck; i++)
        if (!(c->ck[i] = alloc_field(c, c->nbuf)))
            return -1;
    for (int i = 0; i < nstore; i++)
        if (!(c->store[i] = alloc_field(c, c->nbuf)))
            return -1;
    return c->pml.on && !boundary ? set_pml_passes(c) : 0;
}

/* One slab's engine (imaging_slabs.h; dev: a virtual device, the host's). */
static fdw_status cpu_slab_create(const fdw_problem *prob, int dev, void **out, fdw_error *err)
{
    (void)dev;
    img_cpu *c = calloc(1, sizeof *c);
    if (!c)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory");
    set_layout(c, prob);
    for (int b = 0; b < 2; b++)
        if (!(c->u[b] = alloc_field(c, c->nbuf)) || !(c->w[b] = alloc_field(c, c->nbuf)))
            return nomem(c, err);
    if (!(c->v = alloc_field(c, c->nbuf)) || !(c->lap = alloc_field(c, c->nbuf)))
        return nomem(c, err);
    spread(c, c->v, c->d->vdt2);
    if (cpu_copy_sponge(prob, &c->qx, &c->qy, &c->qz))
        return nomem(c, err);
    fdw_img_pml_init(&c->pml, prob, c->px, c->plane);
    if (c->pml.on && (!(c->mu = alloc_field(c, 2 * c->pml.count)) ||
                      !(c->mw = alloc_field(c, 2 * c->pml.count)) ||
                      (c->d->mode == IMG_BORN && !(c->term = alloc_field(c, c->pml.count)))))
        return nomem(c, err);
    set_kernel_args(c, prob->qx || prob->qy || prob->qz);
    if (set_taps(c) != 0 || (c->d->mode == IMG_BORN ? set_born(c) : set_passes(c)) != 0)
        return nomem(c, err);
    *out = c;
    return FDW_OK;
}

/* born's scattered recordings, gradient's predicted ones ([slot][row]). */
static fdw_status cpu_img_recordings(void *vctx, long first, long count, float *host,
                                     fdw_error *err)
{
    (void)err;
    const img_cpu *c = vctx;
    const size_t nr = (size_t)c->prob.nreceivers;
    memcpy(host, c->rec + (size_t)first * nr, (size_t)count * nr * sizeof(float));
    return FDW_OK;
}

static fdw_status cpu_img_wait(void *vctx, fdw_error *err)
{
    (void)vctx, (void)err;
    return FDW_OK;
}

static fdw_status cpu_img_field_peak(void *vctx, uint32_t *bits, fdw_error *err)
{
    (void)err;
    const img_cpu *c = vctx;
    float best = 0.0f;
    int bad = 0;
    cpu_peak_fold(c->u[c->cu], c->nbuf, &best, &bad);
    cpu_peak_fold(c->w[c->cw], c->nbuf, &best, &bad);
    *bits = cpu_peak_bits(best, bad);
    return FDW_OK;
}

static uint64_t cpu_img_bytes(void *vctx)
{
    return ((const img_cpu *)vctx)->bytes;
}

static const img_slab_ops cpu_slab_ops = {
    .create = cpu_slab_create,
    .destroy = cpu_img_destroy,
    .begin = cpu_img_begin,
    .born_step = born_step,
    .restore = restore_segment,
    .forward_step = forward_step,
    .recompute_step = recompute_step,
    .adjoint_step = adjoint_step,
    .back_step = back_step,
    .halo = cpu_img_halo,
    .recordings = cpu_img_recordings,
    .set_traces = cpu_img_traces,
    .finish = cpu_img_finish,
    .wait = cpu_img_wait,
    .peak = cpu_img_field_peak,
    .bytes = cpu_img_bytes,
    .scales = 0,
};

static fdw_status cpu_img_create(const fdw_problem *prob, const fdw_plan *plan, void **out,
                                 fdw_error *err)
{
    return fdw_img_slabs_create(&cpu_slab_ops, prob, plan, out, err);
}

const fdw_backend fdw_img_cpu_engine = FDW_IMG_SLABS_TABLE("cpu", cpu_img_create);
