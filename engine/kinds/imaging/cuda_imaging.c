/* cuda_imaging.c — the imaging kinds' engine on one GPU (imaging.h; the CPU engine,
 * cpu_imaging.c, is its reference and both follow imaging_sched.c): the fields in the
 * kernels' padded layout, stepped by the acoustic kind's 2.5D kernel (fdwk_acoustic_step:
 * the CPU's portable kernel bit for bit), the free surface's mirror, the shot's source and
 * the receivers' rows by the common kernels, born's source and the image's sums by
 * kernels/imaging; the checkpoints and the store in device memory. The residual of the
 * gradient's traces and the outputs' last pass run on the host (imaging_finish.c), so a
 * run gives the CPU engine's bits with its portable kernel. */
#include "kinds/imaging/imaging.h"

#include "acoustic/fdwk_acoustic.h"
#include "cuda/cuda_kind.h"
#include "common/fdwk_runtime.h"
#include "core/error.h"
#include "imaging/fdwk_imaging.h"
#include "run/positioning.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct img_gpu {
    img_result res;            /* first: what imaging_outputs.c reads */
    fdw_problem prob;
    const fdw_img_data *d;
    int id, k0;
    fdwk_stream s;
    fdwk_layout L;
    long org;                  /* interior origin within a field's allocation */
    fdwk_img_lap lap;
    img_sched sched;
    float *u[2], *w[2];        /* allocations (interior origin + org) */
    int cu, cw;
    float *v, *dv, *qx, *qy, *qz;
    float *img, *ill;          /* the sums, fields of the layout (allocations) */
    float **ck, **store;
    long nck;
    /* the shot's source by grid point (CSR), its wavelets */
    int nsp;
    long *src_off;
    int *src_start, *src_owner;
    float *src_w, *wav;
    /* the receivers' rows (CSR by row) and their recordings [slot][row] */
    int *rec_start;
    long *rec_off;
    float *rec_w, *rec;
    /* the adjoint's source: the receivers' taps by grid point, weight V / (1 + q), and
     * each receiver's trace at every time step ([receiver][m], m = 0..nt) */
    int nap;
    long *adj_off;
    int *adj_start, *adj_owner;
    float *adj_w, *adjw;
    unsigned *peak;            /* the field watch's word */
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
 * holds u(t-dt) and is updated in place). */
static void step_field(img_gpu *c, float *next, float *cur, float *prev)
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
    note(c, fdwk_acoustic_step(&a, c->s));
}

static void update(img_gpu *c, float *next, float *cur)
{
    step_field(c, next, cur, NULL);
}

static void inject_source(img_gpu *c, float *f, long it)
{
    if (c->nsp > 0)
        note(c, fdwk_inject(at(c, f), c->nsp, c->src_off, c->src_start, c->src_owner, c->src_w,
                            c->wav, c->prob.nt, it, c->s));
}

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

static void born_step(img_gpu *c, long it)
{
    if (c->prob.free_surface) /* lap u reads the mirror */
        note(c, fdwk_free_surface(at(c, c->u[c->cu]), &c->L, c->prob.radius, c->s));
    update(c, c->w[1 - c->cw], c->w[c->cw]);
    note(c, fdwk_img_born(at(c, c->w[1 - c->cw]), at(c, c->dv), at(c, c->u[c->cu]), &c->L,
                          &c->lap, c->k0, c->s));
    c->cw = 1 - c->cw;
    record(c, c->w[c->cw], it);
    update(c, c->u[1 - c->cu], c->u[c->cu]);
    inject_source(c, c->u[1 - c->cu], it);
    c->cu = 1 - c->cu;
}

static void forward_step(img_gpu *c, const img_unit *u)
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

static void restore_segment(img_gpu *c, long k)
{
    for (int b = 0; b < 2; b++) {
        if (k == 0)
            note(c, fdwk_memset_async(c->u[b], 0, c->L.total * sizeof(float), c->s));
        else
            copy_field(c, c->u[b], c->ck[2 * (k - 1) + b]);
    }
    c->cu = 0;
    copy_field(c, c->store[0], c->u[0]);
}

/* Store entry j (1..L-1) stepped straight from entries j-1 and j-2 (entry 0 and u[1] are
 * the segment's start, restore_segment), so the store fills without a copy per step. */
static void recompute_step(img_gpu *c, const img_unit *u)
{
    const int j = u->store;
    step_field(c, c->store[j], c->store[j - 1], j >= 2 ? c->store[j - 2] : c->u[1]);
    inject_source(c, c->store[j], u->it);
}

static void adjoint_step(img_gpu *c, const img_unit *u)
{
    const fdw_problem *p = &c->prob;
    const long m = u->it + 1;
    update(c, c->w[1 - c->cw], c->w[c->cw]);
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
}

/* ---- the adjoint's traces and the outputs (host) ---- */

/* Traces [receiver][slot] as the adjoint's source at every time step, uploaded. */
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
    int rc = fdwk_h2d(c->adjw, h, (size_t)nrec * (size_t)(nt + 1) * sizeof *h);
    free(h);
    return rc;
}

/* gradient: the residual of the predicted traces and the misfit; rtm: the data. */
static fdw_status start_adjoint(img_gpu *c, fdw_error *err)
{
    const fdw_problem *p = &c->prob;
    const long ns = p->nrec_slots;
    const int nrows = p->nreceivers, nrec = fdw_problem_receivers(p);
    if (c->d->mode == IMG_RTM) {
        const int rc = upload_adjoint(c, c->d->data);
        return rc ? gpu_fail(c, err, rc, "uploading the data") : FDW_OK;
    }
    float *slots = malloc((size_t)ns * nrows * sizeof *slots);
    float *rows = malloc((size_t)ns * nrows * sizeof *rows);
    float *tr = malloc((size_t)ns * nrec * sizeof *tr);
    int rc = slots && rows && tr ? fdwk_stream_sync(c->s) : 2;
    if (!rc)
        rc = fdwk_d2h(slots, c->rec, (size_t)ns * nrows * sizeof *slots);
    if (!rc) {
        for (long s = 0; s < ns; s++)
            for (int q = 0; q < nrows; q++)
                rows[(size_t)q * ns + s] = slots[(size_t)s * nrows + q];
        fdw_receivers_combine(p, rows, ns, tr);
        double j = 0.0;
        for (size_t i = 0; i < (size_t)nrec * ns; i++) {
            tr[i] -= c->d->data[i];
            j += (double)tr[i] * tr[i];
        }
        c->res.misfit = 0.5 * j;
        rc = upload_adjoint(c, tr);
    }
    free(slots), free(rows), free(tr);
    return rc ? gpu_fail(c, err, rc, "the residual") : FDW_OK;
}

/* A sum field's interior into the compact host array h (nx * ny * nz), plane by plane
 * (planes have y padding). */
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

static fdw_status finish_outputs(img_gpu *c, fdw_error *err)
{
    const size_t n = (size_t)c->prob.nx * c->prob.ny * c->prob.nz;
    float *img = malloc(n * sizeof *img), *ill = calloc(n, sizeof *ill);
    int rc = img && ill ? fdwk_stream_sync(c->s) : 2;
    if (!rc)
        rc = download_sum(c, img, c->img);
    if (!rc && c->ill)
        rc = download_sum(c, ill, c->ill);
    if (!rc && fdw_img_finish_sums(&c->prob, img, ill, &c->res) != 0)
        rc = 2;
    free(img), free(ill);
    return rc ? gpu_fail(c, err, rc, "the image's last pass") : FDW_OK;
}

/* ---- the backend table ---- */

static fdw_status gpu_step(void *vctx, long it, fdw_error *err)
{
    img_gpu *c = vctx;
    note(c, fdwk_set_device(c->id));
    fdw_status st = FDW_OK;
    if (c->d->mode == IMG_BORN) {
        born_step(c, it);
    } else {
        const img_unit u = img_sched_unit(&c->sched);
        if (u.restore)
            restore_segment(c, u.seg);
        switch (u.phase) {
        case IMG_FORWARD:
            forward_step(c, &u);
            if (u.last)
                st = start_adjoint(c, err);
            break;
        case IMG_RECOMPUTE:
            recompute_step(c, &u);
            break;
        case IMG_ADJOINT:
            adjoint_step(c, &u);
            break;
        case IMG_DONE:
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: step %ld after the "
                            "last", it);
        }
        img_sched_advance(&c->sched);
        if (st == FDW_OK && c->sched.phase == IMG_DONE)
            st = finish_outputs(c, err);
    }
    if (st == FDW_OK && c->status)
        st = gpu_fail(c, err, c->status, "a step");
    return st;
}

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
    fdwk_free(c->src_off), fdwk_free(c->src_start), fdwk_free(c->src_owner);
    fdwk_free(c->src_w), fdwk_free(c->wav);
    fdwk_free(c->rec_start), fdwk_free(c->rec_off), fdwk_free(c->rec_w), fdwk_free(c->rec);
    fdwk_free(c->adj_off), fdwk_free(c->adj_start), fdwk_free(c->adj_owner);
    fdwk_free(c->adj_w), fdwk_free(c->adjw), fdwk_free(c->peak);
    if (c->s)
        fdwk_stream_destroy(c->s);
    free(c->res.image), free(c->res.illum);
    free(c);
}

/* A global grid index as an offset from the interior origin. */
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

/* A whole-grid host array into a new field of the layout (zero padding). */
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

static fdw_status gpu_create(const fdw_problem *prob, const fdw_plan *plan, void **out,
                             fdw_error *err)
{
    const fdw_img_data *d = prob->kdata;
    if (!d || !d->vdt2)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: the problem is "
                        "incomplete");
    if (plan->ndev != 1 || prob->comm)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, "devices", "the imaging kinds run a shot on "
                        "one device (asked for %d)", plan->ndev);
    img_gpu *c = calloc(1, sizeof *c);
    if (!c)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory");
    c->prob = *prob;
    c->d = d;
    c->id = plan->device_ids[0];
    c->k0 = prob->free_surface ? 1 : 0;
    c->lap.radius = prob->radius;
    for (int m = 0; m <= FDW_MAX_RADIUS; m++)
        c->lap.c[0][m] = d->cx[m], c->lap.c[1][m] = d->cy[m], c->lap.c[2][m] = d->cz[m];
    fdwk_layout_init(&c->L, prob->nx, prob->ny, prob->nz, prob->radius);
    c->org = fdwk_origin(&c->L);
    const size_t n = (size_t)prob->nx * prob->ny * prob->nz, fb = c->L.total * sizeof(float);
    const int born = d->mode == IMG_BORN, ill = d->illumination;
    if (!born)
        img_sched_init(&c->sched, d->nt, d->seg);
    c->nck = born ? 0 : 2 * (c->sched.K > 2 ? c->sched.K - 2 : 0);
    /* what it will hold, against what the GPU has free */
    const uint64_t need = (uint64_t)fb * (uint64_t)(5 + (born ? 2 : c->nck + c->sched.L)) +
                          (born ? 0 : (uint64_t)fb * (ill ? 2 : 1));
    uint64_t fr = 0, tot = 0;
    int rc = fdwk_set_device(c->id);
    if (!rc)
        rc = fdwk_mem_info(&fr, &tot);
    if (!rc && need > fr) {
        gpu_destroy(c);
        return fdw_fail(err, FDW_ERR_NOMEM, "grid", "the imaging engine needs %.2f GiB on GPU "
                        "%d (its fields, %ld checkpoints and a store of %d: imaging.md) but "
                        "%.2f GiB are free", need / 1073741824.0, plan->device_ids[0],
                        c->nck / 2, c->sched.L, fr / 1073741824.0);
    }
    if (!rc)
        rc = fdwk_stream_create(&c->s, 0);
    if (!rc)
        rc = dalloc(c, (void **)&c->peak, sizeof *c->peak);
    for (int b = 0; b < 2 && !rc; b++) {
        rc = dalloc(c, (void **)&c->u[b], fb);
        if (!rc)
            rc = dalloc(c, (void **)&c->w[b], fb);
        if (!rc)
            rc = fdwk_memset_async(c->u[b], 0, fb, c->s);
        if (!rc)
            rc = fdwk_memset_async(c->w[b], 0, fb, c->s);
    }
    if (!rc)
        rc = upload_field(c, &c->v, d->vdt2);
    if (!rc && (prob->qx || prob->qy || prob->qz)) {
        float *z = calloc((size_t)(prob->nx + prob->ny + prob->nz), sizeof *z);
        rc = z ? 0 : 2;
        if (!rc)
            rc = upload(c, (void **)&c->qx, prob->qx ? prob->qx : z, (size_t)prob->nx * 4);
        if (!rc)
            rc = upload(c, (void **)&c->qy, prob->qy ? prob->qy : z, (size_t)prob->ny * 4);
        if (!rc)
            rc = upload(c, (void **)&c->qz, prob->qz ? prob->qz : z, (size_t)prob->nz * 4);
        free(z);
    }
    /* the source by point, its wavelets; the receivers' rows */
    const int ns = prob->nsrc_taps, nt = prob->nrec_taps, nrows = prob->nreceivers;
    long *off = malloc((size_t)(ns + nt + 1) * sizeof *off);
    int *own = malloc((size_t)(ns + nt + 1) * sizeof *own);
    float *wt = malloc((size_t)(ns + nt + 1) * sizeof *wt);
    int *rs = calloc((size_t)nrows + 1, sizeof *rs);
    if (!rc && (!off || !own || !wt || !rs))
        rc = 2;
    if (!rc) {
        for (int t = 0; t < ns; t++) {
            off[t] = offset_of(c, prob->src_taps[t].index);
            own[t] = prob->src_taps[t].owner;
            wt[t] = prob->src_taps[t].weight;
        }
        rc = upload_points(c, ns, off, own, wt, &c->nsp, &c->src_off, &c->src_start,
                           &c->src_owner, &c->src_w);
    }
    int nsrc = 0; /* the sources: their wavelets are nsrc x nt */
    for (int t = 0; t < ns; t++)
        nsrc = prob->src_taps[t].owner + 1 > nsrc ? prob->src_taps[t].owner + 1 : nsrc;
    if (!rc)
        rc = upload(c, (void **)&c->wav, prob->wavelets,
                    (size_t)prob->nt * (size_t)nsrc * sizeof(float));
    if (!rc) { /* rows: the taps are in row order already (positioning.c) */
        for (int t = 0; t < nt; t++) {
            rs[prob->rec_taps[t].owner + 1]++;
            off[t] = offset_of(c, prob->rec_taps[t].index);
            wt[t] = prob->rec_taps[t].weight;
        }
        for (int q = 0; q < nrows; q++)
            rs[q + 1] += rs[q];
        rc = upload(c, (void **)&c->rec_start, rs, (size_t)(nrows + 1) * sizeof *rs);
        if (!rc)
            rc = upload(c, (void **)&c->rec_off, off, (size_t)nt * sizeof *off);
        if (!rc)
            rc = upload(c, (void **)&c->rec_w, wt, (size_t)nt * sizeof *wt);
        if (!rc)
            rc = dalloc(c, (void **)&c->rec, (size_t)prob->nrec_slots * nrows * sizeof(float));
        if (!rc)
            rc = fdwk_memset_async(c->rec, 0, (size_t)prob->nrec_slots * nrows * sizeof(float),
                                   c->s);
    }
    if (!rc && born) {
        float *h = malloc(n * sizeof *h);
        rc = h ? 0 : 2;
        for (size_t g = 0; g < n && !rc; g++) { /* dV / (1 + q), as the CPU engine */
            const int i = (int)(g % prob->nx), j = (int)((g / prob->nx) % prob->ny),
                      k = (int)(g / ((size_t)prob->nx * prob->ny));
            const float q = prob->qx || prob->qy || prob->qz
                                ? (prob->qx ? prob->qx[i] : 0.0f) +
                                      ((prob->qy ? prob->qy[j] : 0.0f) +
                                       (prob->qz ? prob->qz[k] : 0.0f))
                                : 0.0f;
            h[g] = prob->qx || prob->qy || prob->qz ? d->dvdt2[g] / (1.0f + q) : d->dvdt2[g];
        }
        if (!rc)
            rc = upload_field(c, &c->dv, h);
        free(h);
    }
    if (!rc && !born) {
        /* the adjoint's taps: the receivers', each to its receiver, weight V / (1 + q) */
        const int nrec = fdw_problem_receivers(prob);
        for (int t = 0; t < nt && !rc; t++) {
            const fdw_tap *tp = &prob->rec_taps[t];
            int rcv = tp->owner;
            if (prob->rec_rows)
                for (rcv = 0; rcv < nrec && prob->rec_rows[rcv + 1] <= tp->owner; rcv++)
                    ;
            own[t] = rcv;
            const uint64_t g = tp->index, nx = (uint64_t)prob->nx, ny = (uint64_t)prob->ny;
            const float q = prob->qx || prob->qy || prob->qz
                                ? (prob->qx ? prob->qx[g % nx] : 0.0f) +
                                      ((prob->qy ? prob->qy[(g / nx) % ny] : 0.0f) +
                                       (prob->qz ? prob->qz[g / (nx * ny)] : 0.0f))
                                : 0.0f;
            wt[t] = (float)((double)tp->weight * (double)d->vdt2[g] / (1.0 + (double)q));
        }
        if (!rc)
            rc = upload_points(c, nt, off, own, wt, &c->nap, &c->adj_off, &c->adj_start,
                               &c->adj_owner, &c->adj_w);
        if (!rc)
            rc = dalloc(c, (void **)&c->adjw, (size_t)nrec * (size_t)(d->nt + 1) * sizeof(float));
        if (!rc)
            rc = dalloc(c, (void **)&c->img, fb);
        if (!rc)
            rc = fdwk_memset_async(c->img, 0, fb, c->s);
        if (!rc && ill && !(rc = dalloc(c, (void **)&c->ill, fb)))
            rc = fdwk_memset_async(c->ill, 0, fb, c->s);
        c->ck = calloc((size_t)c->nck + 1, sizeof *c->ck);
        c->store = calloc((size_t)c->sched.L, sizeof *c->store);
        if (!rc && (!c->ck || !c->store))
            rc = 2;
        for (long i = 0; i < c->nck && !rc; i++)
            rc = dalloc(c, (void **)&c->ck[i], fb);
        for (int i = 0; i < c->sched.L && !rc; i++)
            if (!(rc = dalloc(c, (void **)&c->store[i], fb)))
                rc = fdwk_memset_async(c->store[i], 0, fb, c->s);
        c->res.image = malloc(n * sizeof(float));
        c->res.illum = malloc(n * sizeof(float));
        if (!rc && (!c->res.image || !c->res.illum))
            rc = 2;
    }
    free(off), free(own), free(wt), free(rs);
    if (!rc)
        rc = fdwk_stream_sync(c->s);
    if (rc) {
        const fdw_status st = gpu_fail(c, err, rc, "setting up");
        gpu_destroy(c);
        return st;
    }
    *out = c;
    return FDW_OK;
}

static fdw_status gpu_extract(void *vctx, int nregions, const fdw_slice *regions, float **host,
                              fdw_error *err)
{
    (void)vctx, (void)nregions, (void)regions, (void)host;
    return fdw_fail(err, FDW_ERR_UNSUPPORTED, "snapshots", "the imaging kinds take no "
                    "snapshots");
}

static fdw_status gpu_extract_done(void *vctx, int *done, fdw_error *err)
{
    (void)vctx, (void)err;
    *done = 1;
    return FDW_OK;
}

static fdw_status gpu_wait(void *vctx, fdw_error *err)
{
    img_gpu *c = vctx;
    note(c, fdwk_set_device(c->id));
    note(c, fdwk_stream_sync(c->s));
    return c->status ? gpu_fail(c, err, c->status, "waiting for the GPU") : FDW_OK;
}

static fdw_status gpu_fetch_receivers(void *vctx, long first, long count, float *host,
                                      fdw_error *err)
{
    img_gpu *c = vctx;
    const fdw_problem *p = &c->prob;
    if (first < 0 || count < 0 || first + count > p->nrec_slots)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: receiver slots %ld..%ld "
                        "of %ld", first, first + count, p->nrec_slots);
    int rc = fdwk_set_device(c->id);
    if (!rc)
        rc = fdwk_stream_sync(c->s);
    if (!rc && count > 0)
        rc = fdwk_d2h(host, c->rec + (size_t)first * p->nreceivers,
                      (size_t)count * (size_t)p->nreceivers * sizeof(float));
    return rc ? gpu_fail(c, err, rc, "reading the traces") : FDW_OK;
}

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

static uint64_t gpu_device_bytes(void *vctx, int dev)
{
    const img_gpu *c = vctx;
    return dev == 0 ? c->bytes : 0;
}

const fdw_backend fdw_img_cuda_engine = {
    .name = "cuda",
    .create = gpu_create,
    .destroy = gpu_destroy,
    .step = gpu_step,
    .extract = gpu_extract,
    .extract_done = gpu_extract_done,
    .wait = gpu_wait,
    .fetch_receivers = gpu_fetch_receivers,
    .field_peak = gpu_field_peak,
    .device_bytes = gpu_device_bytes,
};
