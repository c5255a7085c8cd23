/* problem.c — builds the fdw_problem a backend runs from a validated spec: the shared
 * parts (grid, radius, time, tuning), then the kind's own (kind->build), which calls the
 * wave parts kept here for every wave kind: sponge damping profiles, source/receiver
 * taps (positioning.c) and wavelets scaled for injection. */
#include "run/problem.h"

#include "kinds/kind.h"
#include "core/error.h"
#include "run/positioning.h"
#include "run/wavelet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void *fdw_problem_alloc(size_t count, size_t size, const char *what, fdw_error *err)
{
    if (count == 0)
        count = 1;
    void *p = calloc(count, size);
    if (!p)
        fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory allocating %s (%.1f MiB)", what,
                 (double)count * (double)size / (1024.0 * 1024.0));
    return p;
}

void fdw_sponge_profile(int n, int wlo, int whi, double h, double vmax, double dt,
                        double reflection, float *out)
{
    /* Damping u_tt + 2 sigma u_t: a wave crossing the layer twice keeps
     * exp(-2 int sigma dx / v) of its amplitude, so sigma_max = (p+1) v ln(1/R) / (2 W h)
     * gives reflection R for a profile sigma_max (d/W)^p. The depth d runs from 1 at the
     * first damped point to W at the outer face. */
    const double p = FDW_SPONGE_POWER;
    const double lnr = log(1.0 / (reflection > 0.0 && reflection < 1.0 ? reflection : 1e-3));
    for (int i = 0; i < n; i++)
        out[i] = 0.0f;
    if (wlo > 0) {
        const double smax = (p + 1.0) * vmax * lnr / (2.0 * wlo * h);
        for (int i = 0; i < wlo && i < n; i++) {
            const double d = (double)(wlo - i) / wlo;
            out[i] = (float)(dt * smax * pow(d, p));
        }
    }
    if (whi > 0) {
        const double smax = (p + 1.0) * vmax * lnr / (2.0 * whi * h);
        for (int m = 0; m < whi && m < n; m++) {
            const double d = (double)(whi - m) / whi;
            const int i = n - 1 - m;
            const float q = (float)(dt * smax * pow(d, p));
            if (q > out[i]) /* overlapping layers on a tiny grid: the stronger wins */
                out[i] = q;
        }
    }
}

/* Sponge damping per axis; NULL arrays when the run has no absorbing layer at all. */
static fdw_status build_sponge(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    const fdw_boundary *b = &spec->boundary;
    prob->free_surface = b->free_surface ? 1 : 0;
    if (b->type != FDW_BOUNDARY_SPONGE)
        return FDW_OK;
    int w[6];
    memcpy(w, b->width, sizeof w);
    if (b->free_surface)
        w[4] = 0;
    int any = 0;
    for (int f = 0; f < 6; f++)
        any |= w[f] > 0;
    if (!any)
        return FDW_OK;
    const int n[3] = {spec->nx, spec->ny, spec->nz};
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    float *q[3] = {NULL, NULL, NULL};
    for (int a = 0; a < 3; a++) {
        q[a] = fdw_problem_alloc((size_t)n[a], sizeof(float), "the sponge profile", err);
        if (!q[a]) {
            for (int b2 = 0; b2 < a; b2++)
                free(q[b2]);
            return FDW_ERR_NOMEM;
        }
        fdw_sponge_profile(n[a], w[2 * a], w[2 * a + 1], h[a], spec->vmax, spec->dt,
                           b->reflection, q[a]);
    }
    prob->qx = q[0];
    prob->qy = q[1];
    prob->qz = q[2];
    return FDW_OK;
}

/* Source and receiver taps (positioning.c), wavelets scaled by dt^2 / cell volume. */
static fdw_status build_taps(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    const long nt = prob->nt;
    fdw_status st = fdw_position_build(spec, prob, err);
    if (st != FDW_OK)
        return st;
    float *wav = fdw_problem_alloc((size_t)spec->nsources * (size_t)nt, sizeof(float),
                               "source wavelets", err);
    if (!wav)
        return FDW_ERR_NOMEM;
    prob->wavelets = wav;
    const double scale = spec->dt * spec->dt / (spec->dx * spec->dy * spec->dz);
    for (int s = 0; s < spec->nsources; s++)
        fdw_wavelet_sample(&spec->sources[s], nt, spec->dt, scale, wav + (size_t)s * nt);
    return FDW_OK;
}

fdw_status fdw_problem_wave(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    fdw_status st = build_sponge(spec, prob, err);
    if (st == FDW_OK)
        st = build_taps(spec, prob, err);
    return st;
}

fdw_status fdw_problem_build(const fdw_spec *spec, const fdw_tuning *tuning,
                             fdw_problem *prob, fdw_error *err)
{
    static const fdw_tuning automatic;
    memset(prob, 0, sizeof *prob);
    prob->kind = spec->kind;
    prob->nx = spec->nx;
    prob->ny = spec->ny;
    prob->nz = spec->nz;
    prob->radius = spec->radius;
    prob->nt = spec->nt;
    prob->nsteps = spec->nt;
    prob->rec_interval = spec->receiver_interval >= 1 ? spec->receiver_interval : 1;
    prob->nrec_slots = prob->nt / prob->rec_interval + 1;
    prob->tuning = tuning ? tuning : &automatic;
    if (prob->radius < 1 || prob->radius > FDW_MAX_RADIUS)
        return fdw_fail(err, FDW_ERR_SPEC, "order", "order %d is outside 2..%d", spec->order,
                        FDW_MAX_ORDER);
    fdw_status st = spec->kind->problem.build(spec, prob, err);
    if (st != FDW_OK)
        fdw_problem_free(prob);
    return st;
}

void fdw_problem_free(fdw_problem *prob)
{
    if (!prob)
        return;
    if (prob->kind && prob->kind->problem.free)
        prob->kind->problem.free(prob);
    free((void *)prob->qx);
    free((void *)prob->qy);
    free((void *)prob->qz);
    free((void *)prob->src_taps);
    free((void *)prob->wavelets);
    free((void *)prob->rec_taps);
    free((void *)prob->rec_rows);
    free((void *)prob->init);
    memset(prob, 0, sizeof *prob);
}
