/* imaging_build.c — the imaging kinds' problem (imaging.h): the acoustic propagator's
 * coefficients and (v dt)^2, born's dV = 2 v dv dt^2 from its perturbation, the traces of
 * rtm's and gradient's "data" (raw, or SEG-Y through imaging_segy.c), the shared wave parts (sponge, the shot's source taps and
 * wavelets, the receivers' rows), the CPML's coefficients; the reconstruction's scheme,
 * segment length and interior, the run loop's step count; and the memory all that takes. */
#include "kinds/imaging/imaging.h"
#include "kinds/imaging/imaging_cpml.h"
#include "kinds/imaging/imaging_recon.h"
#include "kinds/acoustic/acoustic.h"

#include "core/error.h"
#include "model/model_io.h"
#include "run/problem.h"
#include "spec/spec.h"
#include "kinds/wave/wave_spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Working fields a run holds at once (each nx*ny*nz floats, padded): rtm and gradient the
 * background and the adjoint field (2 each), V, the Laplacian's scratch, the image and the
 * illumination; born the two fields of each wavefield, V, dV and the scratch. The
 * reconstruction's own memory (checkpoints and store, or the bands; with a CPML its
 * memory variables too) is imaging_recon.c's; born's CPML sets and the coefficients here. */
uint64_t fdw_img_slab_bytes(const fdw_spec *spec, int z0, int nz)
{
    const fdw_img_spec *k = spec->kspec;
    const int born = k->mode == IMG_BORN;
    const uint64_t P = fdw_img_pml_points(spec, z0, nz);
    const int term = k->mode == IMG_GRADIENT || k->condition == IMG_COND_ADJOINT;
    return fdw_img_field_bytes(spec, nz) * (born ? 7 : 8) +
           fdw_img_recon_bytes(spec, k->mode, term, k->recon, z0, nz) +
           (P ? 4 * (born ? fdw_img_pml_floats(P, IMG_BORN, 0, 0, 0) : 0) +
                    8 * (uint64_t)(spec->nx + spec->ny + nz)
              : 0) +
           wave_device_bytes(spec, 0, 0);
}

/* Each slab holds its planes, its ghost planes and every receiver's recordings. */
uint64_t fdw_img_device_bytes(const fdw_spec *spec)
{
    if (spec->plan.ndev <= 1)
        return fdw_img_slab_bytes(spec, 0, spec->nz);
    uint64_t sum = 0;
    for (int d = 0; d < spec->plan.ndev; d++)
        sum += fdw_img_slab_bytes(spec, spec->plan.z0[d], spec->plan.nz[d]);
    return sum;
}

/* dv per point: the file, or the points (at their nearest grid point) or layers. */
static fdw_status load_dv(const fdw_spec *spec, const fdw_img_spec *k, float *dv,
                          fdw_error *err)
{
    const size_t n = (size_t)spec->nx * spec->ny * spec->nz;
    if (k->pert == IMG_PERT_FILE) {
        FILE *f = fopen(k->pert_path, "rb");
        const size_t got = f ? fread(dv, sizeof(float), n, f) : 0;
        if (f)
            fclose(f);
        if (got != n)
            return fdw_fail(err, FDW_ERR_IO, "perturbation.path", "cannot read %zu values "
                            "from %s", n, k->pert_path);
        for (size_t p = 0; p < n; p++)
            if (!isfinite(dv[p]) || !(fabsf(dv[p]) < (float)spec->vmin))
                return fdw_fail(err, FDW_ERR_SPEC, "perturbation.path", "the perturbation "
                                "has %g m/s at point %zu: values must be finite and below "
                                "the smallest velocity (%g m/s) in size", (double)dv[p], p,
                                spec->vmin);
        return FDW_OK;
    }
    memset(dv, 0, n * sizeof *dv);
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    const int dims[3] = {spec->nx, spec->ny, spec->nz};
    if (k->pert == IMG_PERT_POINTS) {
        for (int q = 0; q < k->npieces; q++) {
            long at[3];
            for (int a = 0; a < 3; a++) {
                at[a] = lround((k->pieces[q].pos[a] - spec->origin[a]) / h[a]);
                at[a] = at[a] < 0 ? 0 : at[a] >= dims[a] ? dims[a] - 1 : at[a];
            }
            dv[((size_t)at[2] * spec->ny + (size_t)at[1]) * spec->nx + (size_t)at[0]] +=
                (float)k->pieces[q].dv;
        }
        return FDW_OK;
    }
    for (int z = 0; z < spec->nz; z++) { /* layers: each from its top down */
        const double depth = spec->origin[2] + z * spec->dz;
        double v = 0.0;
        for (int q = 0; q < k->npieces; q++)
            if (depth >= k->pieces[q].pos[2] - 1e-9 * spec->dz)
                v = k->pieces[q].dv;
        const size_t plane = (size_t)spec->nx * spec->ny;
        for (size_t p = 0; p < plane; p++)
            dv[(size_t)z * plane + p] = (float)v;
    }
    return FDW_OK;
}

static fdw_status load_data(const fdw_spec *spec, const fdw_img_spec *k, fdw_img_data *d,
                            const fdw_problem *prob, fdw_error *err)
{
    const size_t n = (size_t)spec->nreceivers * (size_t)prob->nrec_slots;
    d->data = fdw_problem_alloc(n, sizeof(float), "the data traces", err);
    if (!d->data)
        return FDW_ERR_NOMEM;
    if (k->segy) {
        const fdw_status st = fdw_img_segy_load(k->segy, spec->shot_trace0, spec->nreceivers,
                                                d->data, prob->nrec_slots, err);
        if (st != FDW_OK)
            return st;
    } else {
        /* a survey's shot: its traces after those of the shots before it */
        const off_t at = (off_t)spec->shot_trace0 * (off_t)prob->nrec_slots * 4;
        FILE *f = fopen(k->data_path, "rb");
        const size_t got = f && fseeko(f, at, SEEK_SET) == 0 ? fread(d->data, sizeof(float), n, f) : 0;
        if (f)
            fclose(f);
        if (got != n)
            return fdw_fail(err, FDW_ERR_IO, "data.path", "cannot read %zu samples from %s "
                            "at byte %lld", n, k->data_path, (long long)at);
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(d->data[i])) {
            const long r = (long)(i / prob->nrec_slots);
            char trace[80] = "";
            if (k->segy)
                snprintf(trace, sizeof trace, " (trace %d of the SEG-Y file)",
                         fdw_img_segy_trace(k->segy, spec->shot_trace0 + r));
            return fdw_fail(err, FDW_ERR_SPEC, "data.path", "the data's sample %ld of "
                            "receiver %ld%s is not a finite number",
                            (long)(i % prob->nrec_slots), r, trace);
        }
    return FDW_OK;
}

fdw_status fdw_img_build(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    const fdw_img_spec *k = spec->kspec;
    fdw_img_data *d = fdw_problem_alloc(1, sizeof *d, "the imaging problem", err);
    if (!d)
        return FDW_ERR_NOMEM;
    prob->kdata = d;
    d->mode = k->mode;
    d->condition = k->condition;
    d->illumination = k->illumination;
    d->laplacian = k->laplacian;
    d->parameter = k->parameter;
    d->nt = spec->nt;
    d->dt = spec->dt;
    d->seg = fdw_img_segment(spec->nt);
    d->recon = k->recon;
    fdw_img_interior(spec, d->ilo, d->ihi);
    fdw_status st = fdw_acoustic_coeffs(spec, d->cx, d->cy, d->cz, err);
    if (st == FDW_OK)
        st = fdw_acoustic_cpml_build(spec, d->pml_w, d->pml_a, d->pml_b, d->pml_d1, err);
    if (st != FDW_OK)
        return st;
    const size_t n = (size_t)spec->nx * spec->ny * spec->nz;
    float *v = fdw_problem_alloc(n, sizeof(float), "the velocity model", err);
    if (!v)
        return FDW_ERR_NOMEM;
    d->vdt2 = v;
    st = fdw_model_load(spec, v, err);
    if (st != FDW_OK)
        return st;
    const double dt = spec->dt;
    if (k->mode == IMG_BORN) {
        d->dvdt2 = fdw_problem_alloc(n, sizeof(float), "the perturbation", err);
        if (!d->dvdt2)
            return FDW_ERR_NOMEM;
        if ((st = load_dv(spec, k, d->dvdt2, err)) != FDW_OK)
            return st;
        for (size_t p = 0; p < n; p++) /* dV = 2 v dv dt^2, the linearisation of (v dt)^2 */
            d->dvdt2[p] = (float)(2.0 * (double)v[p] * (double)d->dvdt2[p] * dt * dt);
    }
    for (size_t p = 0; p < n; p++) {
        const double vd = (double)v[p] * dt;
        v[p] = (float)(vd * vd);
    }
    st = fdw_problem_wave(spec, prob, err);
    if (st == FDW_OK && k->mode != IMG_BORN)
        st = load_data(spec, k, d, prob, err);
    prob->nsteps = fdw_img_engine_steps(k->mode, spec->nt, d->seg, d->recon);
    return st;
}

void fdw_img_free_problem(fdw_problem *prob)
{
    fdw_img_data *d = (fdw_img_data *)prob->kdata;
    if (!d)
        return;
    free(d->vdt2);
    free(d->dvdt2);
    free(d->data);
    for (int a = 0; a < 3; a++) {
        free((void *)d->pml_a[a]);
        free((void *)d->pml_b[a]);
    }
    free(d);
    prob->kdata = NULL;
}
