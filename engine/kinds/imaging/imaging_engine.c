/* imaging_engine.c — what the imaging kinds' two engines (cpu_imaging.c, cuda_imaging.c)
 * work out alike on the host (imaging.h): the checks of their problem, the sponge's factor
 * at a point, born's scaled source, the adjoint's taps and the gradient's residual. One
 * home, so the GPU keeps the CPU's bits. */
#include "kinds/imaging/imaging.h"

#include "core/error.h"
#include "run/positioning.h"
#include "run/progress.h"

#include <stdlib.h>

float fdw_img_sponge_at(const fdw_problem *p, uint64_t g)
{
    if (!p->qx && !p->qy && !p->qz)
        return 0.0f;
    const uint64_t nx = (uint64_t)p->nx, ny = (uint64_t)p->ny;
    return (p->qx ? p->qx[g % nx] : 0.0f) +
           ((p->qy ? p->qy[(g / nx) % ny] : 0.0f) + (p->qz ? p->qz[g / (nx * ny)] : 0.0f));
}

int fdw_img_born_source(const fdw_problem *p, float **out)
{
    const fdw_img_data *d = p->kdata;
    const size_t n = (size_t)p->nx * p->ny * p->nz;
    float *h = malloc(n * sizeof *h);
    if (!h)
        return -1;
    const int sponge = p->qx || p->qy || p->qz;
    for (size_t g = 0; g < n; g++)
        h[g] = sponge ? d->dvdt2[g] / (1.0f + fdw_img_sponge_at(p, g)) : d->dvdt2[g];
    *out = h;
    return 0;
}

int fdw_img_tap_receiver(const fdw_problem *p, const fdw_tap *t)
{
    if (!p->rec_rows)
        return t->owner;
    const int nrec = fdw_problem_receivers(p);
    int rcv = 0;
    while (rcv < nrec && p->rec_rows[rcv + 1] <= t->owner)
        rcv++;
    return rcv;
}

float fdw_img_adjoint_weight(const fdw_problem *p, const fdw_tap *t)
{
    const fdw_img_data *d = p->kdata;
    const float q = fdw_img_sponge_at(p, t->index);
    return (float)((double)t->weight * (double)d->vdt2[t->index] / (1.0 + (double)q));
}

int fdw_img_residual(const fdw_problem *p, const float *slots, float *tr, double *misfit)
{
    const fdw_img_data *d = p->kdata;
    const long ns = p->nrec_slots;
    const int nrows = p->nreceivers, nrec = fdw_problem_receivers(p);
    float *rows = malloc((size_t)nrows * ns * sizeof *rows + 1);
    if (!rows)
        return -1;
    for (long s = 0; s < ns; s++)
        for (int q = 0; q < nrows; q++)
            rows[(size_t)q * ns + s] = slots[(size_t)s * nrows + q];
    fdw_receivers_combine(p, rows, ns, tr);
    free(rows);
    double j = 0.0;
    for (size_t i = 0; i < (size_t)nrec * ns; i++) {
        tr[i] -= d->data[i];
        j += (double)tr[i] * tr[i];
    }
    *misfit = 0.5 * j;
    return 0;
}

fdw_status fdw_img_check_slots(const fdw_problem *p, long first, long count, fdw_error *err)
{
    if (first < 0 || count < 0 || first + count > p->nrec_slots)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "imaging engine: receiver slots %ld..%ld "
                        "of %ld", first, first + count, p->nrec_slots);
    return FDW_OK;
}

void fdw_img_clock(img_result *res, int phase)
{
    if (phase == 0 && res->t0 > 0.0)
        return; /* every step asks; the clock started at the first */
    const double now = fdw_now();
    if (phase == 0) {
        res->t0 = now;
    } else if (phase == 1) {
        res->forward_s = now - res->t0;
    } else if (phase == 2) {
        res->backward_s = now - res->t0 - res->forward_s;
    } else {
        res->finish_s = now - res->t0 - res->forward_s - res->backward_s;
    }
}
