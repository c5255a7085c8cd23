/* cuda_imaging.c — the imaging kinds' GPU engine (imaging.h; the CPU engine, cpu_imaging.c,
 * is its reference and both follow imaging_sched.c): one slab of a shot on one GPU, driven
 * by imaging_slabs.h's driver, which steps the slabs in lock step, has each refresh its
 * ghost planes from its neighbours' (device to device, ordered by events), gathers the
 * receivers' rows and finishes the image over the grid. A slab's fields are in the
 * kernels' padded layout, stepped by the acoustic kind's 2.5D kernel (fdwk_acoustic_step:
 * the CPU's portable kernel bit for bit), the free surface's mirror, the shot's source and
 * the receivers' rows by the common kernels, born's source and the image's sums by
 * kernels/imaging; the checkpoints and the store in device memory. The residual of the
 * gradient's traces and the outputs' last pass run on the host (the driver's, and
 * imaging_finish.c), so a run gives the CPU engine's bits with its portable kernel. With a
 * CPML the fields' memory variables, the memory checkpoints and the store's layer terms
 * are device arrays too, stepped as the CPU engine steps them (cuda_imaging_cpml.c). */
#include "kinds/imaging/imaging.h"
#include "kinds/imaging/cuda_imaging_cpml.h"
#include "kinds/imaging/imaging_recon.h"
#include "kinds/imaging/imaging_slabs.h"

#include "acoustic/fdwk_acoustic.h"
#include "cuda/cuda_kind.h"
#include "common/fdwk_runtime.h"
#include "core/error.h"
#include "core/host_memory.h"
#include "imaging/fdwk_imaging.h"
#include "run/positioning.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct img_gpu {
    fdw_problem prob;          /* the slab's problem (imaging_slabs.h) */
    const fdw_img_data *d;
    int id, k0;
    fdwk_stream s;
    fdwk_event ev;             /* fence's mark on s, which the neighbours' streams wait for */
    fdwk_layout L;
    long org;                  /* interior origin within a field's allocation */
    fdwk_img_lap lap;
    img_sched sched;           /* imaging_sched.c: L and K */
    float *u[2], *w[2];        /* allocations (interior origin + org) */
    int cu, cw;
    float *v, *dv, *qx, *qy, *qz;
    float *img, *ill;          /* the sums, fields of the layout (allocations) */
    float **ck, **store;
    long nck;
    /* the CPML (pml.g.on = 0: none, and these NULL): memory variables of u and of w, born's
     * layer term, u's memory checkpoints (segments 1 .. K-1), the store's layer terms */
    img_gpu_pml pml;
    float *mu, *mw, *term, **mck, **sterm;
    long nmck;
    /* the boundary scheme: the interior and its band, the bands of u[1] .. u[nt-2] */
    img_band band;
    fdwk_img_box box;
    float *bands;
    /* the shot's source by grid point (CSR), its wavelets */
    int nsp;
    long *src_off;
    int *src_start, *src_owner;
    float *src_w, *src_wneg, *wav; /* src_wneg: -src_w, the source taken off again */
    /* the receivers' rows (CSR by row; rows the slab does not record have no taps) and
     * their recordings [slot][row] */
    int *rec_start;
    long *rec_off;
    float *rec_w, *rec;
    /* the adjoint's source: its taps (the receivers' on the slab's planes) by grid point,
     * weight V / (1 + q), and each receiver's trace at every time step ([receiver][m],
     * m = 0..nt) */
    int nap;
    long *adj_off;
    int *adj_start, *adj_owner;
    float *adj_w, *adjw;
    unsigned *peak;            /* the field watch's word */
    float *wrote[IMG_MAX_WROTE]; /* the fields the last step wrote (their ghost planes due) */
    int nwrote;
    int status;
    uint64_t bytes;
} img_gpu;

static fdw_status gpu_fail(img_gpu *c, fdw_error *err, int rc, const char *where)
{
    return fdw_fail(err, rc == 2 ? FDW_ERR_NOMEM : FDW_ERR_DEVICE, NULL,
                    "imaging engine on GPU %d: %s: %s", c->id, where, fdwk_strerror(rc));
}

/* Device memory of bytes, counted; 0 or a CUDA error. */
static int dalloc(img_gpu *c, void **p, size_t bytes)
{
    int rc = fdwk_malloc(p, bytes ? bytes : 4);
    if (!rc)
        c->bytes += bytes;
    return rc;
}

static int upload(img_gpu *c, void **p, const void *host, size_t bytes)
{
    int rc = dalloc(c, p, bytes);
    if (!rc && bytes)
        rc = fdwk_h2d(*p, host, bytes);
    return rc;
}

static float *at(const img_gpu *c, float *f)
{
    return f + c->org;
}

/* ---- one field's step, the imaging steps ---- */

static void note(img_gpu *c, int rc)
{
    if (rc && !c->status)
        c->status = rc;
}

/* One step of a field: next = u(t+dt) from cur = u(t) and prev = u(t-dt) (NULL: next
 * holds u(t-dt) and is updated in place), with the CPML's terms when set (cur's memory
 * variables) is given: the forward recursion, or its transpose for the adjoint. */
static void step_field(img_gpu *c, float *next, float *cur, float *prev, float *set,
                       int adjoint)
{
    const fdw_img_data *d = c->d;
    if (c->prob.free_surface)
        note(c, fdwk_free_surface(at(c, cur), &c->L, c->prob.radius, c->s));
    fdwk_fd_args a;
    memset(&a, 0, sizeof a);
    a.mode = FDWK_ACOUSTIC;
    a.radius = c->prob.radius;
    a.out = at(c, next);
    a.prev = prev ? at(c, prev) : NULL;
    a.u = at(c, cur);
    a.vdt2 = at(c, c->v);
    a.qx = c->qx, a.qy = c->qy, a.qz = c->qz;
    a.nx = c->prob.nx, a.ny = c->prob.ny;
    a.k0 = 0, a.k1 = c->prob.nz, a.kglob = 0;
    a.pitch = c->L.pitch, a.plane = c->L.plane;
    a.free_surface = c->prob.free_surface;
    a.zchunk = c->prob.tuning->cuda_zchunk;
    a.c0 = (d->cx[0] + d->cy[0]) + d->cz[0];
    for (int m = 0; m <= FDW_MAX_RADIUS; m++)
        a.cx[m] = d->cx[m], a.cy[m] = d->cy[m], a.cz[m] = d->cz[m];
    fdwk_pml_args pa[3];
    if (set && !adjoint)
        note(c, img_gpu_pml_forward(&c->pml, set, a.u, a.out, a.vdt2, pa, &a, c->s));
    note(c, fdwk_acoustic_step(&a, c->s));
    if (set && adjoint)
        note(c, fdwk_img_pml_adjoint(&c->pml.k, set, a.u, a.out, a.vdt2, c->s));
}

static void update(img_gpu *c, float *next, float *cur, float *set, int adjoint)
{
    step_field(c, next, cur, NULL, set, adjoint);
}

/* The shot's source after the update of step it (sign 1), or taken off again (-1). */
static void inject_source(img_gpu *c, float *f, long it, int sign)
{
    if (c->nsp > 0)
        note(c, fdwk_inject(at(c, f), c->nsp, c->src_off, c->src_start, c->src_owner,
                            sign > 0 ? c->src_w : c->src_wneg, c->wav, c->prob.nt, it, c->s));
}

/* The fields a step wrote (b NULL: one), whose ghost planes its neighbours refresh. */
static void wrote(img_gpu *c, float *a, float *b)
{
    c->wrote[0] = a, c->wrote[1] = b;
    c->nwrote = b ? 2 : 1;
}

/* The receivers' rows of f after step it, when a slot is due (a row lies in one plane, the
 * slab's own: run/positioning.h). */
static void record(img_gpu *c, const float *f, long it)
{
    const fdw_problem *p = &c->prob;
    if ((it + 1) % p->rec_interval != 0 || (it + 1) / p->rec_interval >= p->nrec_slots)
        return;
    note(c, fdwk_record(c->rec, (it + 1) / p->rec_interval, p->nreceivers, c->rec_start,
                        c->rec_off, c->rec_w, at(c, (float *)f), c->s));
}

static void copy_field(img_gpu *c, float *dst, const float *src)
{
    note(c, fdwk_d2d_async(dst, src, c->L.total * sizeof(float), c->s));
}

/* u and du one step on, du's source dV (lap u + the layer term of u's step); u's update
 * mirrors u first, which lap u reads. */
static void born_step(void *vc, long it)
{
    img_gpu *c = vc;
    update(c, c->u[1 - c->cu], c->u[c->cu], c->mu, 0);
    inject_source(c, c->u[1 - c->cu], it, 1);
    if (c->mu)
        note(c, fdwk_img_pml_term(&c->pml.k, c->mu, c->term, c->s));
    update(c, c->w[1 - c->cw], c->w[c->cw], c->mw, 0);
    note(c, fdwk_img_born(at(c, c->w[1 - c->cw]), at(c, c->dv), at(c, c->u[c->cu]), &c->L,
                          &c->lap, c->k0, c->s));
    if (c->mu)
        note(c, fdwk_img_pml_apply(&c->pml.k, c->term, at(c, c->dv), at(c, c->w[1 - c->cw]),
                                   c->s));
    c->cw = 1 - c->cw;
    record(c, c->w[c->cw], it);
    c->cu = 1 - c->cu;
    wrote(c, c->u[c->cu], c->w[c->cw]);
}

/* A set of CPML memory variables (2 P floats). */
static void copy_set(img_gpu *c, float *dst, const float *src)
{
    note(c, fdwk_d2d_async(dst, src, 2 * c->pml.g.count * sizeof(float), c->s));
}

/* The bands' slot (imaging_sched.c: slot n holds u[n+1]'s band). */
static float *band_slot(const img_gpu *c, long slot)
{
    return c->bands + (size_t)slot * (size_t)c->band.points;
}

static void band_copy(img_gpu *c, float *field, long slot, int save)
{
    note(c, fdwk_img_band(at(c, field), band_slot(c, slot), &c->box, c->L.pitch, c->L.plane,
                          (long long)c->band.points, save, c->s));
}

static void forward_step(void *vc, const img_unit *u)
{
    img_gpu *c = vc;
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
    inject_source(c, c->u[1 - c->cu], u->it, 1);
    c->cu = 1 - c->cu;
    if (u->store >= 0 && boundary)
        band_copy(c, c->u[c->cu], u->store, 1);
    else if (u->store >= 0 && c->sterm)
        note(c, fdwk_img_pml_term(&c->pml.k, c->mu, c->sterm[u->store], c->s));
    if (c->d->mode == IMG_GRADIENT)
        record(c, c->u[c->cu], u->it);
    wrote(c, c->u[c->cu], NULL);
}

/* Segment k's start (cpu_imaging.c's restore_segment: with a CPML, u's memory variables
 * and the store's last layer term too). Whole allocations are copied, ghost planes with
 * them, so nothing is left for the neighbours to refresh. */
static void restore_segment(void *vc, long k)
{
    img_gpu *c = vc;
    for (int b = 0; b < 2; b++) {
        if (k == 0)
            note(c, fdwk_memset_async(c->u[b], 0, c->L.total * sizeof(float), c->s));
        else
            copy_field(c, c->u[b], c->ck[2 * (k - 1) + b]);
    }
    if (c->mu && k == 0)
        note(c, fdwk_memset_async(c->mu, 0, 2 * c->pml.g.count * sizeof(float), c->s));
    else if (c->mu)
        copy_set(c, c->mu, c->mck[k - 1]);
    if (c->sterm)
        note(c, fdwk_img_pml_term(&c->pml.k, c->mck[k], c->sterm[c->sched.L - 1], c->s));
    c->cu = 0;
    copy_field(c, c->store[0], c->u[0]);
}

/* Store entry j (1..L-1) stepped straight from entries j-1 and j-2 (entry 0 and u[1] are
 * the segment's start, restore_segment), so the store fills without a copy per step. */
static void recompute_step(void *vc, const img_unit *u)
{
    img_gpu *c = vc;
    const int j = u->store;
    step_field(c, c->store[j], c->store[j - 1], j >= 2 ? c->store[j - 2] : c->u[1], c->mu, 0);
    inject_source(c, c->store[j], u->it, 1);
    if (c->sterm)
        note(c, fdwk_img_pml_term(&c->pml.k, c->mu, c->sterm[j - 1], c->s));
    wrote(c, c->store[j], NULL);
}

/* The adjoint's step to time n + 1 (from n + 2 and n + 3), then the image of u[n]. */
static void adjoint_step(void *vc, const img_unit *u)
{
    img_gpu *c = vc;
    const fdw_problem *p = &c->prob;
    const long m = u->it + 1;
    update(c, c->w[1 - c->cw], c->w[c->cw], c->mw, 1);
    if (m % p->rec_interval == 0 && m / p->rec_interval < p->nrec_slots && c->nap > 0)
        note(c, fdwk_inject(at(c, c->w[1 - c->cw]), c->nap, c->adj_off, c->adj_start,
                            c->adj_owner, c->adj_w, c->adjw, c->d->nt + 1, m, c->s));
    c->cw = 1 - c->cw;
    float *un = c->store[u->store];
    const int xcorr = c->d->condition == IMG_COND_XCORR;
    if (!xcorr && p->free_surface)
        note(c, fdwk_free_surface(at(c, un), &c->L, p->radius, c->s));
    note(c, fdwk_img_accumulate(at(c, c->img), c->ill ? at(c, c->ill) : NULL, at(c, un),
                                at(c, c->w[c->cw]), &c->L, &c->lap, c->k0, xcorr, c->s));
    if (!xcorr && c->sterm)
        note(c, fdwk_img_pml_apply(&c->pml.k, c->sterm[u->store], at(c, c->w[c->cw]),
                                   at(c, c->img), c->s));
    wrote(c, c->w[c->cw], NULL);
}

/* The boundary scheme's unit n (cpu_imaging.c's back_step): the source of step n + 1 off
 * u[n+2], both centres mirrored, then one pass (fdwk_img_backward: the image's term n + 1,
 * z to n + 1, with back u to u[n] on the interior), z's CPML transpose and traces, and
 * u[n]'s band put back. */
static void back_step(void *vc, const img_unit *u)
{
    img_gpu *c = vc;
    const fdw_problem *p = &c->prob;
    const fdw_img_data *d = c->d;
    const long n = u->it, m = n + 1;
    if (n == d->nt - 1) /* the forward pass left u[nt] current: u[nt-1] is the centre */
        c->cu = 1 - c->cu;
    float *un = c->u[c->cu], *up = c->u[1 - c->cu];
    if (u->back)
        inject_source(c, up, n + 1, -1);
    if (p->free_surface) {
        note(c, fdwk_free_surface(at(c, un), &c->L, p->radius, c->s));
        note(c, fdwk_free_surface(at(c, c->w[c->cw]), &c->L, p->radius, c->s));
    }
    fdwk_img_back_args a;
    memset(&a, 0, sizeof a);
    a.radius = p->radius;
    a.u = at(c, un), a.uo = at(c, up);
    a.z = at(c, c->w[c->cw]), a.zo = at(c, c->w[1 - c->cw]);
    a.vdt2 = at(c, c->v);
    a.img = at(c, c->img), a.ill = c->ill ? at(c, c->ill) : NULL;
    a.qx = c->qx, a.qy = c->qy, a.qz = c->qz;
    a.nx = p->nx, a.ny = p->ny, a.nz = p->nz;
    a.pitch = c->L.pitch, a.plane = c->L.plane;
    a.free_surface = p->free_surface, a.k0 = c->k0;
    a.zchunk = p->tuning->cuda_zchunk;
    a.c0 = (d->cx[0] + d->cy[0]) + d->cz[0];
    for (int q = 0; q <= FDW_MAX_RADIUS; q++)
        a.cx[q] = d->cx[q], a.cy[q] = d->cy[q], a.cz[q] = d->cz[q];
    a.box = c->box;
    a.do_u = a.do_img = u->back;
    a.xcorr = d->condition == IMG_COND_XCORR;
    note(c, fdwk_img_backward(&a, c->s));
    if (c->mw)
        note(c, fdwk_img_pml_adjoint(&c->pml.k, c->mw, a.z, a.zo, a.vdt2, c->s));
    if (m % p->rec_interval == 0 && m / p->rec_interval < p->nrec_slots && c->nap > 0)
        note(c, fdwk_inject(a.zo, c->nap, c->adj_off, c->adj_start, c->adj_owner, c->adj_w,
                            c->adjw, d->nt + 1, m, c->s));
    c->cw = 1 - c->cw;
    if (u->back && u->store >= 0)
        band_copy(c, up, u->store, 0);
    if (u->back)
        c->cu = 1 - c->cu;
    wrote(c, c->w[c->cw], u->back ? up : NULL);
}

/* ---- the slab's work for the driver (imaging_slabs.h's img_slab_ops) ---- */

/* An engine step begins on the slab's GPU: nothing written yet. */
static void gpu_begin(void *vctx)
{
    img_gpu *c = vctx;
    note(c, fdwk_set_device(c->id));
    c->nwrote = 0;
}

/* An engine step's errors (its work is issued, not waited for). */
static fdw_status gpu_end(void *vctx, fdw_error *err)
{
    img_gpu *c = vctx;
    return c->status ? gpu_fail(c, err, c->status, "a step") : FDW_OK;
}

/* Padded plane k of field f (local; -r .. -1 and nz .. nz + r - 1 are the ghost planes):
 * the layout keeps zpad = r ghost planes on each side (fdwk_layout_init), and a padded
 * plane starts its y padding rows and x offset before its interior's first point. */
static float *padded_plane(const img_gpu *c, float *f, int k)
{
    return at(c, f) + (long)k * c->L.plane - (long)c->L.ypad * c->L.pitch - c->L.xoff;
}

/* dst's ghost planes of the fields the step wrote, from src's planes beside them: r whole
 * padded planes a field, one copy each on dst's stream (device to device, the same GPU or
 * another). The driver orders it after src's step (after) and dst's next step after src's
 * copies from dst (the second fence). */
static fdw_status gpu_halo(void *vdst, void *vsrc, int src_prev, fdw_error *err)
{
    img_gpu *d = vdst, *s = vsrc;
    const int r = d->prob.radius;
    const size_t bytes = (size_t)r * (size_t)d->L.plane * sizeof(float);
    int rc = fdwk_set_device(d->id);
    for (int f = 0; f < d->nwrote && !rc; f++)
        rc = src_prev ? fdwk_peer_async(padded_plane(d, d->wrote[f], -r), d->id,
                                        padded_plane(s, s->wrote[f], s->prob.nz - r), s->id,
                                        bytes, d->s)
                      : fdwk_peer_async(padded_plane(d, d->wrote[f], d->prob.nz), d->id,
                                        padded_plane(s, s->wrote[f], 0), s->id, bytes, d->s);
    note(d, rc);
    return rc ? gpu_fail(d, err, rc, "the ghost planes' copy") : FDW_OK;
}

/* A mark after the work issued so far on the slab's stream. */
static fdw_status gpu_fence(void *vctx, fdw_error *err)
{
    img_gpu *c = vctx;
    int rc = fdwk_set_device(c->id);
    if (!rc)
        rc = fdwk_event_record(c->ev, c->s);
    note(c, rc);
    return rc ? gpu_fail(c, err, rc, "an event") : FDW_OK;
}

/* The slab's later work after other's last mark. */
static fdw_status gpu_after(void *vctx, void *vother, fdw_error *err)
{
    img_gpu *c = vctx;
    const img_gpu *o = vother;
    int rc = fdwk_set_device(c->id);
    if (!rc)
        rc = fdwk_stream_wait(c->s, o->ev);
    note(c, rc);
    return rc ? gpu_fail(c, err, rc, "waiting for an event") : FDW_OK;
}

/* Traces [receiver][slot] as the adjoint's source at every time step, uploaded on the
 * stream (synchronised before the host copy goes). */
static int upload_adjoint(img_gpu *c, const float *traces)
{
    const fdw_problem *p = &c->prob;
    const int nrec = fdw_problem_receivers(p);
    const long nt = c->d->nt, ns = p->nrec_slots;
    float *h = calloc((size_t)nrec * (size_t)(nt + 1), sizeof *h);
    if (!h)
        return 2;
    for (int r = 0; r < nrec; r++)
        for (long s = 1; s < ns; s++)
            h[(size_t)r * (nt + 1) + (size_t)(s * p->rec_interval)] = traces[(size_t)r * ns + s];
    int rc = fdwk_h2d_async(c->adjw, h, (size_t)nrec * (size_t)(nt + 1) * sizeof *h, c->s);
    if (!rc)
        rc = fdwk_stream_sync(c->s);
    free(h);
    return rc;
}

/* rtm, gradient: the adjoint's traces (the data, or the driver's residual). */
static fdw_status gpu_traces(void *vctx, const float *traces, fdw_error *err)
{
    img_gpu *c = vctx;
    int rc = fdwk_set_device(c->id);
    if (!rc)
        rc = upload_adjoint(c, traces);
    return rc ? gpu_fail(c, err, rc, "uploading the adjoint's traces") : FDW_OK;
}

/* A sum field's planes into the compact host array h (nx * ny * nz of the slab, grid
 * order), plane by plane (planes have y padding). */
static int download_sum(img_gpu *c, float *h, float *field)
{
    const fdw_problem *p = &c->prob;
    const size_t row = (size_t)p->nx * sizeof(float), plane = (size_t)p->nx * p->ny;
    int rc = 0;
    for (int k = 0; k < p->nz && !rc; k++)
        rc = fdwk_d2h_2d_async(h + (size_t)k * plane, row, at(c, field) + (long)k * c->L.plane,
                               (size_t)c->L.pitch * sizeof(float), row, (size_t)p->ny, c->s);
    return rc ? rc : fdwk_stream_sync(c->s);
}

/* The slab's sums into its part of the outputs' arrays: the image scaled on the device
 * (its double-precision work is most of the host's finishing), both downloaded straight
 * into the arrays (their pages touched first by every host thread); the driver finishes
 * them over the grid. */
static fdw_status gpu_finish(void *vctx, float *image, float *illum, fdw_error *err)
{
    img_gpu *c = vctx;
    const fdw_img_data *d = c->d;
    const size_t n = (size_t)c->prob.nx * c->prob.ny * c->prob.nz;
    int rc = fdwk_set_device(c->id);
    if (!rc)
        rc = fdwk_stream_sync(c->s);
    if (!rc)
        rc = c->status;
    if (!rc && fdw_img_scales(d))
        rc = fdwk_img_scale(at(c, c->img), at(c, c->v), &c->L, d->dt,
                            d->mode == IMG_GRADIENT && d->parameter == IMG_PARAM_SLOWNESS2,
                            c->s);
    const int ill = illum && c->ill;
    fdw_touch_pages(image, n * sizeof(float));
    if (ill)
        fdw_touch_pages(illum, n * sizeof(float));
    if (!rc)
        rc = download_sum(c, image, c->img);
    if (!rc && ill)
        rc = download_sum(c, illum, c->ill);
    return rc ? gpu_fail(c, err, rc, "the image's last pass") : FDW_OK;
}

/* ---- the slab's engine: its arrays on the device ---- */

static void gpu_destroy(void *vctx)
{
    img_gpu *c = vctx;
    if (!c)
        return;
    fdwk_set_device(c->id);
    if (c->s)
        fdwk_stream_sync(c->s);
    for (int b = 0; b < 2; b++)
        fdwk_free(c->u[b]), fdwk_free(c->w[b]);
    fdwk_free(c->v), fdwk_free(c->dv), fdwk_free(c->qx), fdwk_free(c->qy), fdwk_free(c->qz);
    fdwk_free(c->img), fdwk_free(c->ill);
    for (long i = 0; c->ck && i < c->nck; i++)
        fdwk_free(c->ck[i]);
    for (int i = 0; c->store && i < c->sched.L; i++)
        fdwk_free(c->store[i]);
    free(c->ck), free(c->store);
    fdwk_free(c->mu), fdwk_free(c->mw), fdwk_free(c->term);
    for (long i = 0; c->mck && i < c->nmck; i++)
        fdwk_free(c->mck[i]);
    for (int i = 0; c->sterm && i < c->sched.L; i++)
        fdwk_free(c->sterm[i]);
    free(c->mck), free(c->sterm);
    img_gpu_pml_destroy(&c->pml);
    fdwk_free(c->src_off), fdwk_free(c->src_start), fdwk_free(c->src_owner);
    fdwk_free(c->src_w), fdwk_free(c->src_wneg), fdwk_free(c->wav);
    fdwk_free(c->bands);
    fdwk_free(c->rec_start), fdwk_free(c->rec_off), fdwk_free(c->rec_w), fdwk_free(c->rec);
    fdwk_free(c->adj_off), fdwk_free(c->adj_start), fdwk_free(c->adj_owner);
    fdwk_free(c->adj_w), fdwk_free(c->adjw), fdwk_free(c->peak);
    fdwk_event_destroy(c->ev);
    if (c->s)
        fdwk_stream_destroy(c->s);
    free(c);
}

/* A grid index of the problem (the slab's own: its planes from 0, ghost planes below nz)
 * as an offset from the interior origin. */
static long offset_of(const img_gpu *c, uint64_t g)
{
    const uint64_t nx = (uint64_t)c->prob.nx, ny = (uint64_t)c->prob.ny;
    return (long)(g / (nx * ny)) * c->L.plane + (long)((g / nx) % ny) * c->L.pitch +
           (long)(g % nx);
}

/* A tap's place and problem order, for grouping taps by grid point in order. */
typedef struct tap_ref {
    long off;
    int order;
} tap_ref;

static int cmp_ref(const void *a, const void *b)
{
    const tap_ref *x = a, *y = b;
    return x->off != y->off ? (x->off > y->off) - (x->off < y->off) : x->order - y->order;
}

/* n taps (offsets, owners, weights in problem order) grouped by grid point and uploaded
 * as fdwk_inject's CSR. */
static int upload_points(img_gpu *c, int n, const long *off, const int *owner,
                         const float *w, int *npoints, long **doff, int **dstart,
                         int **downer, float **dw)
{
    tap_ref *r = malloc((size_t)(n + 1) * sizeof *r);
    long *po = malloc((size_t)(n + 1) * sizeof *po);
    int *ps = malloc((size_t)(n + 2) * sizeof *ps), *pw = malloc((size_t)(n + 1) * sizeof *pw);
    float *pf = malloc((size_t)(n + 1) * sizeof *pf);
    int rc = r && po && ps && pw && pf ? 0 : 2, np = 0;
    if (!rc) {
        for (int t = 0; t < n; t++)
            r[t].off = off[t], r[t].order = t;
        qsort(r, (size_t)n, sizeof *r, cmp_ref);
        for (int t = 0; t < n; t++) {
            if (t == 0 || r[t].off != r[t - 1].off) {
                po[np] = r[t].off;
                ps[np++] = t;
            }
            pw[t] = owner[r[t].order];
            pf[t] = w[r[t].order];
        }
        ps[np] = n;
        *npoints = np;
        rc = upload(c, (void **)doff, po, (size_t)np * sizeof *po);
        if (!rc)
            rc = upload(c, (void **)dstart, ps, (size_t)(np + 1) * sizeof *ps);
        if (!rc)
            rc = upload(c, (void **)downer, pw, (size_t)n * sizeof *pw);
        if (!rc)
            rc = upload(c, (void **)dw, pf, (size_t)n * sizeof *pf);
    }
    free(r), free(po), free(ps), free(pw), free(pf);
    return rc;
}

/* A host array of the problem's points (the slab's planes, grid order) into a new field
 * of the layout (zero padding and ghost planes). */
static int upload_field(img_gpu *c, float **dst, const float *src)
{
    int rc = dalloc(c, (void **)dst, c->L.total * sizeof(float));
    if (!rc)
        rc = fdwk_memset_async(*dst, 0, c->L.total * sizeof(float), c->s);
    if (!rc)
        rc = fdwk_stream_sync(c->s);
    const size_t plane = (size_t)c->prob.nx * c->prob.ny;
    for (int k = 0; k < c->prob.nz && !rc; k++) /* plane by plane: planes have y padding */
        rc = fdwk_h2d_2d(at(c, *dst) + (long)k * c->L.plane, (size_t)c->L.pitch * sizeof(float),
                         src + (size_t)k * plane, (size_t)c->prob.nx * sizeof(float),
                         (size_t)c->prob.nx * sizeof(float), (size_t)c->prob.ny);
    return rc;
}

/* rtm and gradient with a CPML: whether the store keeps layer terms (the image takes
 * lap u, not u). */
static int needs_term(const img_gpu *c)
{
    return c->d->mode == IMG_GRADIENT ||
           (c->d->mode == IMG_RTM && c->d->condition == IMG_COND_ADJOINT);
}

/* What the engine will hold against what the GPU has free: FDW_ERR_NOMEM when it does
 * not fit (imaging.md's sizes), else FDW_OK with *rc any CUDA error on the way. */
static fdw_status check_fits(img_gpu *c, int *rc, fdw_error *err)
{
    const uint64_t fb = c->L.total * sizeof(float);
    const int born = c->d->mode == IMG_BORN;
    img_pml g;
    fdw_img_pml_init(&g, &c->prob, c->L.pitch, c->L.plane);
    const int boundary = !born && c->d->recon == IMG_RECON_BOUNDARY;
    const uint64_t bands = boundary ? 4 * img_band_floats(&c->band, c->d->nt) : 0;
    const uint64_t need = fb * (uint64_t)(5 + (born ? 2 : boundary ? 0 : c->nck + c->sched.L)) +
                          (born ? 0 : fb * (c->d->illumination ? 2 : 1)) + bands +
                          4 * fdw_img_pml_floats(g.count, c->d->mode, c->sched.K,
                                                 boundary ? 0 : c->sched.L, needs_term(c));
    uint64_t fr = 0, tot = 0;
    *rc = fdwk_set_device(c->id);
    if (!*rc)
        *rc = fdwk_mem_info(&fr, &tot);
    if (!*rc && need > fr)
        return boundary
                   ? fdw_fail(err, FDW_ERR_NOMEM, "grid", "the imaging engine needs %.2f GiB on "
                              "GPU %d (its fields and the bands of %ld steps%s: imaging.md) but "
                              "%.2f GiB are free", need / 1073741824.0, c->id, c->d->nt - 2,
                              g.on ? ", with the CPML's memory variables" : "",
                              fr / 1073741824.0)
                   : fdw_fail(err, FDW_ERR_NOMEM, "grid", "the imaging engine needs %.2f GiB on "
                              "GPU %d (its fields, %ld checkpoints and a store of %d%s: "
                              "imaging.md) but %.2f GiB are free", need / 1073741824.0, c->id,
                              c->nck / 2, c->sched.L,
                              g.on ? ", with the CPML's memory variables" : "",
                              fr / 1073741824.0);
    return FDW_OK;
}

/* A new array of n floats, zeroed on the stream. */
static int zero_floats(img_gpu *c, float **f, size_t n)
{
    int rc = dalloc(c, (void **)f, n * sizeof(float));
    return rc ? rc : fdwk_memset_async(*f, 0, n * sizeof(float), c->s);
}

/* A new field of the layout, zeroed on the stream. */
static int zero_field(img_gpu *c, float **f)
{
    return zero_floats(c, f, c->L.total);
}

/* The stream and its event, the watch's word, the four wavefields, V, the CPML's coefficients and
 * memory variables, and the sponge (its axes zero where none). */
static int set_fields(img_gpu *c)
{
    const fdw_problem *prob = &c->prob;
    int rc = fdwk_stream_create(&c->s, 0);
    if (!rc)
        rc = fdwk_event_create(&c->ev, 0);
    if (!rc)
        rc = dalloc(c, (void **)&c->peak, sizeof *c->peak);
    for (int b = 0; b < 2 && !rc; b++)
        if (!(rc = zero_field(c, &c->u[b])))
            rc = zero_field(c, &c->w[b]);
    if (!rc)
        rc = upload_field(c, &c->v, c->d->vdt2);
    if (!rc)
        rc = img_gpu_pml_create(&c->pml, prob, &c->L, &c->bytes);
    const size_t P = c->pml.g.count;
    if (!rc && c->pml.g.on)
        rc = zero_floats(c, &c->mu, 2 * P);
    if (!rc && c->pml.g.on)
        rc = zero_floats(c, &c->mw, 2 * P);
    if (!rc && c->pml.g.on && c->d->mode == IMG_BORN)
        rc = zero_floats(c, &c->term, P);
    if (rc || !(prob->qx || prob->qy || prob->qz))
        return rc;
    const int n[3] = {prob->nx, prob->ny, prob->nz};
    const float *q[3] = {prob->qx, prob->qy, prob->qz};
    float **dst[3] = {&c->qx, &c->qy, &c->qz};
    float *z = calloc((size_t)(prob->nx + prob->ny + prob->nz), sizeof *z);
    rc = z ? 0 : 2;
    for (int a = 0; a < 3 && !rc; a++)
        rc = upload(c, (void **)dst[a], q[a] ? q[a] : z, (size_t)n[a] * sizeof *z);
    free(z);
    return rc;
}

/* Staging of n taps for upload_points and the receivers' rows. */
typedef struct tap_stage {
    long *off;
    int *own;
    float *wt;
} tap_stage;

static int stage_alloc(tap_stage *t, int n)
{
    t->off = calloc((size_t)n + 1, sizeof *t->off);
    t->own = calloc((size_t)n + 1, sizeof *t->own);
    t->wt = calloc((size_t)n + 1, sizeof *t->wt);
    return t->off && t->own && t->wt ? 0 : 2;
}

static void stage_free(tap_stage *t)
{
    free(t->off), free(t->own), free(t->wt);
}

/* The shot's source by grid point and its wavelets (nsources x nt). */
static int set_source(img_gpu *c, tap_stage *t)
{
    const fdw_problem *prob = &c->prob;
    const int n = prob->nsrc_taps;
    for (int i = 0; i < n; i++) {
        t->off[i] = offset_of(c, prob->src_taps[i].index);
        t->own[i] = prob->src_taps[i].owner;
        t->wt[i] = prob->src_taps[i].weight;
    }
    int rc = upload_points(c, n, t->off, t->own, t->wt, &c->nsp, &c->src_off, &c->src_start,
                           &c->src_owner, &c->src_w);
    if (!rc)
        rc = upload(c, (void **)&c->wav, prob->wavelets,
                    (size_t)prob->nt * (size_t)fdw_problem_sources(prob) * sizeof(float));
    if (rc || c->d->recon != IMG_RECON_BOUNDARY || c->d->mode == IMG_BORN)
        return rc;
    /* the weights negated, in upload_points' order */
    float *w = malloc(((size_t)n + 1) * sizeof *w);
    rc = w ? fdwk_d2h(w, c->src_w, (size_t)n * sizeof *w) : 2;
    for (int i = 0; i < n && !rc; i++)
        w[i] = -w[i];
    if (!rc)
        rc = upload(c, (void **)&c->src_wneg, w, (size_t)n * sizeof *w);
    free(w);
    return rc;
}

/* The receivers' rows (CSR; the taps are in row order already, positioning.c) and their
 * recordings, zeroed. Leaves the taps' offsets in t for the adjoint. */
static int set_receivers(img_gpu *c, tap_stage *t)
{
    const fdw_problem *prob = &c->prob;
    const int n = prob->nrec_taps, nrows = prob->nreceivers;
    int *rs = calloc((size_t)nrows + 1, sizeof *rs);
    if (!rs)
        return 2;
    for (int i = 0; i < n; i++) {
        rs[prob->rec_taps[i].owner + 1]++;
        t->off[i] = offset_of(c, prob->rec_taps[i].index);
        t->wt[i] = prob->rec_taps[i].weight;
    }
    for (int q = 0; q < nrows; q++)
        rs[q + 1] += rs[q];
    const size_t rb = (size_t)prob->nrec_slots * nrows * sizeof(float);
    int rc = upload(c, (void **)&c->rec_start, rs, (size_t)(nrows + 1) * sizeof *rs);
    if (!rc)
        rc = upload(c, (void **)&c->rec_off, t->off, (size_t)n * sizeof *t->off);
    if (!rc)
        rc = upload(c, (void **)&c->rec_w, t->wt, (size_t)n * sizeof *t->wt);
    if (!rc)
        rc = dalloc(c, (void **)&c->rec, rb);
    if (!rc)
        rc = fdwk_memset_async(c->rec, 0, rb, c->s);
    free(rs);
    return rc;
}

/* born: its source dV / (1 + q) as a field (imaging_engine.c, the CPU engine's). */
static int set_born(img_gpu *c)
{
    float *h = NULL;
    int rc = fdw_img_born_source(&c->prob, &h) ? 2 : upload_field(c, &c->dv, h);
    free(h);
    return rc;
}

/* rtm, gradient with a CPML: u's memory checkpoints (segments 1 .. K-1) and, where the
 * image takes lap u, the store's layer terms. */
static int set_pml_passes(img_gpu *c)
{
    const size_t P = c->pml.g.count;
    c->nmck = c->sched.K - 1;
    c->mck = calloc((size_t)c->nmck + 1, sizeof *c->mck);
    int rc = c->mck ? 0 : 2;
    for (long i = 0; i < c->nmck && !rc; i++)
        rc = zero_floats(c, &c->mck[i], 2 * P);
    if (rc || !needs_term(c))
        return rc;
    c->sterm = calloc((size_t)c->sched.L, sizeof *c->sterm);
    rc = c->sterm ? 0 : 2;
    for (int i = 0; i < c->sched.L && !rc; i++)
        rc = zero_floats(c, &c->sterm[i], P);
    return rc;
}

/* rtm, gradient: the adjoint's taps (the receivers', each to its receiver, weight
 * V / (1 + q); t->off holds their offsets) and traces, the sums, the checkpoints and the
 * store. */
static int set_passes(img_gpu *c, tap_stage *t)
{
    const fdw_problem *prob = &c->prob;
    for (int i = 0; i < prob->nrec_taps; i++) {
        t->own[i] = fdw_img_tap_receiver(prob, &prob->rec_taps[i]);
        t->wt[i] = fdw_img_adjoint_weight(prob, &prob->rec_taps[i]);
    }
    int rc = upload_points(c, prob->nrec_taps, t->off, t->own, t->wt, &c->nap, &c->adj_off,
                           &c->adj_start, &c->adj_owner, &c->adj_w);
    if (!rc)
        rc = dalloc(c, (void **)&c->adjw, (size_t)fdw_problem_receivers(prob) *
                                              (size_t)(c->d->nt + 1) * sizeof(float));
    if (!rc)
        rc = zero_field(c, &c->img);
    if (!rc && c->d->illumination)
        rc = zero_field(c, &c->ill);
    const int boundary = c->d->recon == IMG_RECON_BOUNDARY;
    const int nstore = boundary ? 0 : c->sched.L;
    c->ck = calloc((size_t)c->nck + 1, sizeof *c->ck);
    c->store = calloc((size_t)nstore + 1, sizeof *c->store);
    if (!rc && (!c->ck || !c->store))
        rc = 2;
    for (long i = 0; i < c->nck && !rc; i++)
        rc = dalloc(c, (void **)&c->ck[i], c->L.total * sizeof(float));
    for (int i = 0; i < nstore && !rc; i++)
        rc = zero_field(c, &c->store[i]);
    const uint64_t floats = boundary ? img_band_floats(&c->band, c->d->nt) : 0;
    if (!rc && floats > 0)
        rc = dalloc(c, (void **)&c->bands, (size_t)floats * sizeof(float));
    if (!rc && c->pml.g.on && !boundary)
        rc = set_pml_passes(c);
    return rc;
}

/* One slab's engine (imaging_slabs.h) on GPU dev: prob is the slab's problem. */
static fdw_status gpu_slab_create(const fdw_problem *prob, int dev, void **out, fdw_error *err)
{
    img_gpu *c = calloc(1, sizeof *c);
    if (!c)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory");
    const fdw_img_data *d = prob->kdata;
    c->prob = *prob;
    c->d = d;
    c->id = dev;
    c->k0 = prob->free_surface ? 1 : 0;
    c->lap.radius = prob->radius;
    for (int m = 0; m <= FDW_MAX_RADIUS; m++)
        c->lap.c[0][m] = d->cx[m], c->lap.c[1][m] = d->cy[m], c->lap.c[2][m] = d->cz[m];
    fdwk_layout_init(&c->L, prob->nx, prob->ny, prob->nz, prob->radius);
    c->org = fdwk_origin(&c->L);
    const int born = d->mode == IMG_BORN;
    if (!born) {
        img_sched_init(&c->sched, d->nt, d->seg, d->recon);
        img_band_of(&c->band, &c->prob);
        for (int a = 0; a < 3; a++)
            c->box.lo[a] = c->band.lo[a], c->box.hi[a] = c->band.hi[a],
            c->box.dlo[a] = c->band.dlo[a], c->box.dhi[a] = c->band.dhi[a];
    }
    c->nck = born ? 0 : 2 * (c->sched.K > 2 ? c->sched.K - 2 : 0);
    int rc = 0;
    fdw_status st = check_fits(c, &rc, err); /* (it selects the device) */
    if (st != FDW_OK) {
        gpu_destroy(c);
        return st;
    }
    tap_stage t = {0};
    if (!rc)
        rc = set_fields(c);
    if (!rc)
        rc = stage_alloc(&t, prob->nsrc_taps + prob->nrec_taps);
    if (!rc)
        rc = set_source(c, &t);
    if (!rc)
        rc = set_receivers(c, &t);
    if (!rc)
        rc = born ? set_born(c) : set_passes(c, &t);
    stage_free(&t);
    if (!rc)
        rc = fdwk_stream_sync(c->s);
    if (rc) {
        st = gpu_fail(c, err, rc, "setting up");
        gpu_destroy(c);
        return st;
    }
    *out = c;
    return FDW_OK;
}

/* born's scattered recordings, gradient's predicted ones: slots first .. first + count - 1
 * ([slot][row]; rows the slab does not record are 0). */
static fdw_status gpu_recordings(void *vctx, long first, long count, float *host,
                                 fdw_error *err)
{
    img_gpu *c = vctx;
    const size_t nr = (size_t)c->prob.nreceivers;
    int rc = fdwk_set_device(c->id);
    if (!rc)
        rc = fdwk_stream_sync(c->s);
    if (!rc && count > 0)
        rc = fdwk_d2h(host, c->rec + (size_t)first * nr, (size_t)count * nr * sizeof(float));
    return rc ? gpu_fail(c, err, rc, "reading the traces") : FDW_OK;
}

static fdw_status gpu_wait(void *vctx, fdw_error *err)
{
    img_gpu *c = vctx;
    note(c, fdwk_set_device(c->id));
    note(c, fdwk_stream_sync(c->s));
    return c->status ? gpu_fail(c, err, c->status, "waiting for the GPU") : FDW_OK;
}

/* The largest magnitude of the current u and w (their allocations, ghost planes too). */
static fdw_status gpu_field_peak(void *vctx, uint32_t *bits, fdw_error *err)
{
    img_gpu *c = vctx;
    unsigned h = 0;
    int rc = fdwk_set_device(c->id);
    if (!rc)
        rc = fdwk_memset_async(c->peak, 0, sizeof *c->peak, c->s);
    if (!rc)
        rc = fdwk_peak_bits(c->u[c->cu], c->L.total, c->peak, c->s);
    if (!rc)
        rc = fdwk_peak_bits(c->w[c->cw], c->L.total, c->peak, c->s);
    if (!rc)
        rc = fdwk_d2h_async(&h, c->peak, sizeof h, c->s);
    if (!rc)
        rc = fdwk_stream_sync(c->s);
    *bits = h;
    return rc ? gpu_fail(c, err, rc, "reading the field's peak") : FDW_OK;
}

static uint64_t gpu_bytes(void *vctx)
{
    return ((const img_gpu *)vctx)->bytes;
}

static const img_slab_ops gpu_slab_ops = {
    .create = gpu_slab_create,
    .destroy = gpu_destroy,
    .begin = gpu_begin,
    .end = gpu_end,
    .born_step = born_step,
    .restore = restore_segment,
    .forward_step = forward_step,
    .recompute_step = recompute_step,
    .adjoint_step = adjoint_step,
    .back_step = back_step,
    .halo = gpu_halo,
    .fence = gpu_fence,
    .after = gpu_after,
    .recordings = gpu_recordings,
    .set_traces = gpu_traces,
    .finish = gpu_finish,
    .wait = gpu_wait,
    .peak = gpu_field_peak,
    .bytes = gpu_bytes,
    .scales = 1,
};

/* The backend's create: the slabs of prob's plan, each a GPU engine above. */
static fdw_status gpu_create(const fdw_problem *prob, const fdw_plan *plan, void **out,
                             fdw_error *err)
{
    return fdw_img_slabs_create(&gpu_slab_ops, prob, plan, out, err);
}

const fdw_backend fdw_img_cuda_engine = FDW_IMG_SLABS_TABLE("cuda", gpu_create);
