/* imaging_slabs.c — a shot of the imaging kinds over the plan's slabs (imaging_slabs.h):
 * the slabs' own problems, the engine steps in lock step with the ghost planes exchanged
 * between them, the receivers' rows gathered from the slab recording each, the adjoint's
 * traces formed once, and the image finished over the whole grid. With one slab it is the
 * engine's own run (no exchange), so one code path serves one device and several. */
#include "kinds/imaging/imaging_slabs.h"

#include "core/error.h"
#include "run/distrib.h"
#include "run/positioning.h"

#include <stdlib.h>
#include <string.h>

typedef struct img_slab {
    fdw_problem prob;          /* the slab's problem (its own planes, local indices) */
    fdw_img_data data;         /* its kdata */
    fdw_tap *src, *rec;        /* its source and receiver taps */
    void *eng;
} img_slab;

typedef struct img_slabs {
    img_result res;            /* first: what imaging_outputs.c reads */
    const img_slab_ops *ops;
    fdw_problem prob;
    const fdw_img_data *d;
    fdw_plan plan;
    img_slab *s;
    int n;
    int *row_slab;             /* the slab recording each receiver row (-1: none) */
    float *slots;              /* a slab's recordings, [slot][row], when n > 1 */
    img_sched sched;
} img_slabs;

/* The taps of list (n of them) on grid indices [lo, hi), their indices made local (less
 * lo); the count in *kept. NULL out of memory. */
static fdw_tap *taps_of(const fdw_tap *list, int n, uint64_t lo, uint64_t hi, int *kept)
{
    fdw_tap *t = malloc(((size_t)n + 1) * sizeof *t);
    if (!t)
        return NULL;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (list[i].index >= lo && list[i].index < hi) {
            t[m] = list[i];
            t[m++].index -= lo;
        }
    *kept = m;
    return t;
}

/* Slab k's problem: its planes of the grid, its taps. */
static fdw_status slab_problem(img_slabs *c, int k, fdw_error *err)
{
    img_slab *s = &c->s[k];
    const fdw_problem *p = &c->prob;
    const fdw_img_data *d = c->d;
    const int z0 = c->plan.z0[k], nz = c->plan.nz[k];
    const uint64_t nxy = (uint64_t)p->nx * (uint64_t)p->ny, shift = (uint64_t)z0 * nxy;
    s->prob = *p;
    s->data = *d;
    s->prob.kdata = &s->data;
    s->prob.nz = nz;
    s->prob.qz = p->qz ? p->qz + z0 : NULL;
    s->prob.free_surface = p->free_surface && z0 == 0;
    s->data.z0 = z0;
    s->data.nzg = p->nz;
    s->data.vdt2 = d->vdt2 + shift;
    s->data.dvdt2 = d->dvdt2 ? d->dvdt2 + shift : NULL;
    /* the CPML's z layers lie whole in the top and bottom slabs (fdw_cpml_check_plan) */
    const int top = z0 == 0, bottom = z0 + nz == p->nz;
    s->data.pml_w[2][0] = top ? d->pml_w[2][0] : 0;
    s->data.pml_w[2][1] = bottom ? d->pml_w[2][1] : 0;
    if (d->pml_a[2] && s->data.pml_w[2][0] + s->data.pml_w[2][1] > 0) {
        s->data.pml_a[2] = d->pml_a[2] + z0;
        s->data.pml_b[2] = d->pml_b[2] + z0;
    } else {
        s->data.pml_a[2] = s->data.pml_b[2] = NULL;
    }
    const uint64_t end = shift + (uint64_t)nz * nxy;
    int ns = 0, nr = 0;
    s->src = taps_of(p->src_taps, p->nsrc_taps, shift, end, &ns);
    s->rec = taps_of(p->rec_taps, p->nrec_taps, shift, end, &nr);
    if (!s->src || !s->rec)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory");
    /* a receiver row lies in one plane (run/positioning.h), so the taps on the slab's
     * planes are those of the rows it records, and its adjoint's taps */
    for (int i = 0; i < nr; i++)
        if (c->row_slab[s->rec[i].owner] != k)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: receiver row %d "
                            "spans slabs %d and %d", s->rec[i].owner, c->row_slab[s->rec[i].owner],
                            k);
    s->prob.src_taps = s->src, s->prob.nsrc_taps = ns;
    s->prob.rec_taps = s->rec, s->prob.nrec_taps = nr;
    return FDW_OK;
}

fdw_status fdw_img_slabs_create(const img_slab_ops *ops, const fdw_problem *prob,
                                const fdw_plan *plan, void **ctx, fdw_error *err)
{
    const fdw_img_data *d = prob->kdata;
    if (!d || !d->vdt2 || prob->radius < 1 || prob->radius > FDW_MAX_RADIUS)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: the problem is "
                        "incomplete");
    if (prob->comm)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, "devices", "the imaging kinds run a shot in "
                        "one process (its slabs on the devices of one machine), not over MPI "
                        "ranks");
    if (plan->ndev < 1 || plan->z0[0] != 0 ||
        plan->z0[plan->ndev - 1] + plan->nz[plan->ndev - 1] != prob->nz)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: the plan does not "
                        "cover the grid");
    img_slabs *c = calloc(1, sizeof *c);
    if (!c)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory");
    c->ops = ops;
    c->prob = *prob;
    c->d = d;
    c->plan = *plan;
    c->n = plan->ndev;
    if (d->mode != IMG_BORN)
        img_sched_init(&c->sched, d->nt, d->seg, d->recon);
    const size_t rows = (size_t)prob->nreceivers + 1;
    const size_t grid = (size_t)prob->nx * prob->ny * prob->nz;
    c->s = calloc((size_t)c->n, sizeof *c->s);
    c->row_slab = malloc(rows * sizeof *c->row_slab);
    if (c->n > 1)
        c->slots = malloc(((size_t)prob->nrec_slots * rows + 1) * sizeof *c->slots);
    if (d->mode != IMG_BORN) {
        c->res.image = malloc(grid * sizeof(float));
        c->res.illum = malloc(grid * sizeof(float));
    }
    fdw_status st = FDW_OK;
    if (!c->s || !c->row_slab || (c->n > 1 && !c->slots) ||
        (d->mode != IMG_BORN && (!c->res.image || !c->res.illum)))
        st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory");
    if (st == FDW_OK)
        fdw_receiver_slabs(prob, plan, c->row_slab);
    for (int k = 0; k < c->n && st == FDW_OK; k++)
        if ((st = slab_problem(c, k, err)) == FDW_OK)
            st = ops->create(&c->s[k].prob, plan->device_ids[k], &c->s[k].eng, err);
    if (st != FDW_OK) {
        fdw_img_slabs_destroy(c);
        return st;
    }
    *ctx = c;
    return FDW_OK;
}

void fdw_img_slabs_destroy(void *vctx)
{
    img_slabs *c = vctx;
    if (!c)
        return;
    for (int k = 0; c->s && k < c->n; k++) {
        if (c->s[k].eng)
            c->ops->destroy(c->s[k].eng);
        free(c->s[k].src), free(c->s[k].rec);
    }
    free(c->s), free(c->row_slab), free(c->slots);
    free(c->res.image), free(c->res.illum), free(c->res.predicted);
    free(c);
}

/* The ghost planes of what the step wrote, from each slab's neighbours; a slab's next
 * step waits until its neighbours have read the planes it gave them. */
static fdw_status exchange(img_slabs *c, fdw_error *err)
{
    const img_slab_ops *o = c->ops;
    fdw_status st = FDW_OK;
    for (int pass = 0; pass < 2 && st == FDW_OK; pass++) {
        for (int k = 0; k < c->n && st == FDW_OK; k++)
            if (o->fence)
                st = o->fence(c->s[k].eng, err);
        for (int k = 0; k < c->n && st == FDW_OK; k++)
            for (int side = 0; side < 2 && st == FDW_OK; side++) {
                const int nb = side ? k + 1 : k - 1;
                if (nb < 0 || nb >= c->n)
                    continue;
                if (o->after)
                    st = o->after(c->s[k].eng, c->s[nb].eng, err);
                if (st == FDW_OK && pass == 0)
                    st = o->halo(c->s[k].eng, c->s[nb].eng, !side, err);
            }
    }
    return st;
}

static fdw_status wait_all(img_slabs *c, fdw_error *err)
{
    fdw_status st = FDW_OK;
    for (int k = 0; k < c->n && st == FDW_OK; k++)
        st = c->ops->wait(c->s[k].eng, err);
    return st;
}

/* Every slab's rows into host ([slot][row] of slots first .. first + count - 1): each
 * row from the slab recording it. */
static fdw_status gather(img_slabs *c, long first, long count, float *host, fdw_error *err)
{
    if (c->n == 1)
        return c->ops->recordings(c->s[0].eng, first, count, host, err);
    const size_t nr = (size_t)c->prob.nreceivers;
    fdw_status st = FDW_OK;
    memset(host, 0, (size_t)count * nr * sizeof *host);
    for (int k = 0; k < c->n && st == FDW_OK; k++) {
        st = c->ops->recordings(c->s[k].eng, first, count, c->slots, err);
        for (size_t i = 0; i < (size_t)count * nr && st == FDW_OK; i++)
            if (c->row_slab[i % nr] == k)
                host[i] = c->slots[i];
    }
    return st;
}

/* The adjoint's traces once the forward pass is done: rtm the data; gradient the
 * residual of the recorded traces and the misfit (imaging_engine.c). */
static fdw_status start_adjoint(img_slabs *c, fdw_error *err)
{
    const fdw_problem *p = &c->prob;
    const float *traces = c->d->data;
    float *slots = NULL, *tr = NULL;
    fdw_status st = FDW_OK;
    if (c->d->mode == IMG_GRADIENT) {
        const size_t ns = (size_t)p->nrec_slots;
        slots = malloc((ns * (size_t)p->nreceivers + 1) * sizeof *slots);
        tr = malloc((ns * (size_t)fdw_problem_receivers(p) + 1) * sizeof *tr);
        if (!slots || !tr)
            st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory");
        if (st == FDW_OK)
            st = gather(c, 0, p->nrec_slots, slots, err);
        if (st == FDW_OK && fdw_img_residual(p, slots, tr, &c->res.misfit) != 0)
            st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory");
        traces = tr;
    }
    for (int k = 0; k < c->n && st == FDW_OK; k++)
        st = c->ops->set_traces(c->s[k].eng, traces, err);
    free(slots), free(tr);
    return st;
}

/* The sums of every slab into the outputs' arrays, finished over the grid. */
static fdw_status finish_outputs(img_slabs *c, fdw_error *err)
{
    fdw_status st = wait_all(c, err);
    fdw_img_clock(&c->res, 2);
    const size_t nxy = (size_t)c->prob.nx * c->prob.ny;
    const int ill = c->d->illumination;
    for (int k = 0; k < c->n && st == FDW_OK; k++) {
        const size_t at = (size_t)c->plan.z0[k] * nxy;
        st = c->ops->finish(c->s[k].eng, c->res.image + at, ill ? c->res.illum + at : NULL,
                            err);
    }
    if (st == FDW_OK && fdw_img_finish_sums(&c->prob, c->res.image, ill ? c->res.illum : NULL,
                                            c->ops->scales, &c->res) != 0)
        st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "imaging engine: out of host memory for the "
                      "image's last pass");
    fdw_img_clock(&c->res, 3);
    return st;
}

/* Unit u's work on slab engine e, as imaging_sched.c orders it (born: its time step). */
static fdw_status unit_work(const img_slabs *c, void *e, const img_unit *u, fdw_error *err)
{
    const img_slab_ops *o = c->ops;
    if (o->begin)
        o->begin(e);
    if (c->d->mode == IMG_BORN) {
        o->born_step(e, u->it);
    } else {
        if (u->restore)
            o->restore(e, u->seg);
        if (u->phase == IMG_FORWARD)
            o->forward_step(e, u);
        else if (u->phase == IMG_RECOMPUTE)
            o->recompute_step(e, u);
        else if (c->d->recon == IMG_RECON_BOUNDARY)
            o->back_step(e, u);
        else
            o->adjoint_step(e, u);
    }
    return o->end ? o->end(e, err) : FDW_OK;
}

fdw_status fdw_img_slabs_step(void *vctx, long it, fdw_error *err)
{
    img_slabs *c = vctx;
    const int born = c->d->mode == IMG_BORN;
    img_unit u;
    if (born) {
        memset(&u, 0, sizeof u);
        u.phase = IMG_FORWARD, u.it = it;
        u.checkpoint = u.memory = u.store = -1;
    } else {
        u = img_sched_unit(&c->sched);
        if (u.phase == IMG_DONE)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: step %ld after the "
                            "last", it);
        fdw_img_clock(&c->res, 0);
    }
    fdw_status st = FDW_OK;
    for (int k = 0; k < c->n && st == FDW_OK; k++)
        st = unit_work(c, c->s[k].eng, &u, err);
    if (st == FDW_OK && c->n > 1)
        st = exchange(c, err);
    if (born || st != FDW_OK)
        return st;
    if (u.phase == IMG_FORWARD && u.last) {
        st = start_adjoint(c, err);
        if (st == FDW_OK && (st = wait_all(c, err)) == FDW_OK)
            fdw_img_clock(&c->res, 1);
    }
    img_sched_advance(&c->sched);
    if (st == FDW_OK && c->sched.phase == IMG_DONE)
        st = finish_outputs(c, err);
    return st;
}

fdw_status fdw_img_slabs_wait(void *vctx, fdw_error *err)
{
    return wait_all(vctx, err);
}

fdw_status fdw_img_slabs_fetch_receivers(void *vctx, long first, long count, float *host,
                                         fdw_error *err)
{
    img_slabs *c = vctx;
    fdw_status st = fdw_img_check_slots(&c->prob, first, count, err);
    if (st == FDW_OK && count > 0)
        st = gather(c, first, count, host, err);
    return st;
}

fdw_status fdw_img_slabs_peak(void *vctx, uint32_t *bits, fdw_error *err)
{
    img_slabs *c = vctx;
    uint32_t best = 0;
    fdw_status st = FDW_OK;
    for (int k = 0; k < c->n && st == FDW_OK; k++) {
        uint32_t b = 0;
        if ((st = c->ops->peak(c->s[k].eng, &b, err)) == FDW_OK && b > best)
            best = b;
    }
    *bits = best;
    return st;
}

uint64_t fdw_img_slabs_device_bytes(void *vctx, int dev)
{
    const img_slabs *c = vctx;
    return dev >= 0 && dev < c->n ? c->ops->bytes(c->s[dev].eng) : 0;
}
