/* acoustic.c — the acoustic kind (seed: Micikevicius 2009, eq. 2): the second-order wave
 * equation u_tt = v^2 lap(u) + f, order 2..16 in space, variable velocity, sources,
 * receivers, sponge or CPML boundary, free surface. Its spec is the shared wave sections;
 * its problem data are the Laplacian's coefficients, (v dt)^2 per point and the CPML
 * (acoustic.h); its outputs are the receiver gathers. The backends' hooks are in
 * cpu_acoustic.c and cuda_acoustic.c. */
#include "kinds/acoustic/acoustic.h"
#include "kinds/acoustic/cpu_acoustic_kernel.h"
#include "kinds/kind.h"

#include "core/error.h"
#include "core/fd_coeffs.h"
#include "model/model_io.h"
#include "run/cpml.h"
#include "run/problem.h"
#include "run/run_state.h"
#include "kinds/wave/wave_spec.h"

#include <stdlib.h>
#include <string.h>

#ifdef FDW_HAVE_CUDA
extern const struct fdw_cuda_ops fdw_acoustic_cuda;
#endif

static const char *const KEYS[] = {"velocity", "time", "sources", "receivers", "boundary",
                                   "survey", NULL};

/* With a CPML its psi and zeta (8 B) per layer point of each axis: the state that
 * changes from step to step besides the fields. */
static uint64_t acoustic_state_bytes(const fdw_spec *spec)
{
    if (spec->boundary.type != FDW_BOUNDARY_CPML)
        return 0;
    const fdw_boundary *b = &spec->boundary;
    const uint64_t nx = (uint64_t)spec->nx, ny = (uint64_t)spec->ny, nz = (uint64_t)spec->nz;
    const uint64_t wz = (uint64_t)(b->free_surface ? 0 : b->width[4]) + (uint64_t)b->width[5];
    return 8 * ((uint64_t)(b->width[0] + b->width[1]) * ny * nz +
                (uint64_t)(b->width[2] + b->width[3]) * nx * nz + wz * nx * ny);
}

/* u, u_prev and (v dt)^2 (12 B/point) with the ghost planes of the three arrays at each
 * boundary between two devices' slabs, the receiver recordings, and the CPML's state. */
static uint64_t acoustic_device_bytes(const fdw_spec *spec)
{
    return wave_device_bytes(spec, 12, 3) + acoustic_state_bytes(spec);
}

uint64_t fdw_acoustic_cpml_points(const fdw_problem *p, int a, int z0, int nz)
{
    const fdw_acoustic_data *d = p->kdata;
    if (a < 0 || a > 2 || !d || !d->pml_a[a] || !d->pml_b[a])
        return 0;
    const uint64_t w = (uint64_t)(d->pml_w[a][0] + d->pml_w[a][1]);
    if (a == 0)
        return w * (uint64_t)p->ny * (uint64_t)nz;
    if (a == 1)
        return w * (uint64_t)p->nx * (uint64_t)nz;
    uint64_t planes = 0;
    for (int k = z0; k < z0 + nz; k++)
        planes += k < d->pml_w[2][0] || k >= p->nz - d->pml_w[2][1];
    return planes * (uint64_t)p->nx * (uint64_t)p->ny;
}

/* (v dt)^2 per point from the velocity model. */
static fdw_status build_vdt2(const fdw_spec *spec, fdw_acoustic_data *d, fdw_error *err)
{
    const size_t npts = (size_t)spec->nx * spec->ny * spec->nz;
    float *v = fdw_problem_alloc(npts, sizeof(float), "the velocity model", err);
    if (!v)
        return FDW_ERR_NOMEM;
    fdw_status st = fdw_model_load(spec, v, err);
    if (st != FDW_OK) {
        free(v);
        return st;
    }
    const double dt = spec->dt;
    for (size_t p = 0; p < npts; p++) {
        const double vd = (double)v[p] * dt;
        v[p] = (float)(vd * vd);
    }
    d->vdt2 = v;
    return FDW_OK;
}

fdw_status fdw_acoustic_cpml_build(const fdw_spec *spec, int w[3][2], const float *pa[3],
                                   const float *pb[3], float d1[3][FDW_MAX_RADIUS + 1],
                                   fdw_error *err)
{
    const fdw_boundary *b = &spec->boundary;
    if (b->type != FDW_BOUNDARY_CPML)
        return FDW_OK;
    double c1[FDW_MAX_RADIUS + 1];
    if (fdw_fd1_coeffs(spec->order, c1) != 0)
        return fdw_fail(err, FDW_ERR_SPEC, "order", "order %d has no coefficients",
                        spec->order);
    const int n[3] = {spec->nx, spec->ny, spec->nz};
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    for (int a = 0; a < 3; a++) {
        w[a][0] = b->width[2 * a];
        w[a][1] = b->width[2 * a + 1];
        for (int m = 0; m <= spec->radius; m++)
            d1[a][m] = m == 0 ? 0.0f : (float)(c1[m] / h[a]);
    }
    if (b->free_surface)
        w[2][0] = 0;
    for (int a = 0; a < 3; a++) {
        if (w[a][0] == 0 && w[a][1] == 0)
            continue;
        float *ca = fdw_problem_alloc((size_t)n[a], sizeof(float), "the CPML coefficients", err);
        float *cb = ca ? fdw_problem_alloc((size_t)n[a], sizeof(float), "the CPML coefficients",
                                           err)
                       : NULL;
        if (!cb) {
            free(ca);
            return FDW_ERR_NOMEM; /* what is already in pa, pb is freed by the caller */
        }
        fdw_cpml_profile(n[a], w[a][0], w[a][1], h[a], spec->vmax, spec->dt, b->reflection,
                         b->frequency, ca, cb);
        pa[a] = ca;
        pb[a] = cb;
    }
    return FDW_OK;
}

static fdw_status acoustic_check(const fdw_problem *p, const fdw_plan *plan, fdw_error *err)
{
    const fdw_acoustic_data *d = p->kdata;
    if (!d || !d->vdt2)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "acoustic problem without (v dt)^2");
    if (!fdw_acoustic_has_cpml(d))
        return FDW_OK;
    const int n[3] = {p->nx, p->ny, p->nz};
    for (int a = 0; a < 3; a++) {
        const int wl = d->pml_w[a][0], wh = d->pml_w[a][1];
        if (d->pml_a[a] && (!d->pml_b[a] || wl < 0 || wh < 0 || wl + wh > n[a]))
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                            "acoustic problem: CPML layers %d + %d on axis %c of %d points",
                            wl, wh, "xyz"[a], n[a]);
    }
    if (p->qx || p->qy || p->qz)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "acoustic problem: both a sponge and a CPML");
    const int wz[2] = {d->pml_a[2] ? d->pml_w[2][0] : 0, d->pml_a[2] ? d->pml_w[2][1] : 0};
    const int bad = fdw_cpml_bad_slab_boundary(wz, p->nz, p->radius, plan);
    if (bad >= 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "acoustic problem: the slab boundary at plane %d lies within the CPML "
                        "z layers (%d, %d) plus the radius %d", bad, wz[0], wz[1], p->radius);
    return FDW_OK;
}

static void acoustic_free_problem(fdw_problem *prob)
{
    fdw_acoustic_data *d = (fdw_acoustic_data *)prob->kdata;
    if (!d)
        return;
    free((void *)d->vdt2);
    for (int a = 0; a < 3; a++) {
        free((void *)d->pml_a[a]);
        free((void *)d->pml_b[a]);
    }
    free(d);
    prob->kdata = NULL;
}

static void acoustic_shed(fdw_problem *prob)
{
    fdw_acoustic_data *d = (fdw_acoustic_data *)prob->kdata;
    free((void *)d->vdt2);
    d->vdt2 = NULL;
}

fdw_status fdw_acoustic_coeffs(const fdw_spec *spec, float *cx, float *cy, float *cz,
                               fdw_error *err)
{
    double c[FDW_MAX_RADIUS + 1];
    if (fdw_fd2_coeffs(spec->order, c) != 0)
        return fdw_fail(err, FDW_ERR_SPEC, "order", "order %d has no coefficients",
                        spec->order);
    for (int m = 0; m <= spec->radius; m++) {
        cx[m] = (float)(c[m] / (spec->dx * spec->dx));
        cy[m] = (float)(c[m] / (spec->dy * spec->dy));
        cz[m] = (float)(c[m] / (spec->dz * spec->dz));
    }
    return FDW_OK;
}

static fdw_status acoustic_build(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    fdw_acoustic_data *d = fdw_problem_alloc(1, sizeof *d, "the acoustic coefficients", err);
    if (!d)
        return FDW_ERR_NOMEM;
    prob->kdata = d;
    fdw_status st = fdw_acoustic_coeffs(spec, d->cx, d->cy, d->cz, err);
    if (st == FDW_OK)
        st = build_vdt2(spec, d, err);
    if (st == FDW_OK)
        st = fdw_problem_wave(spec, prob, err);
    if (st == FDW_OK)
        st = fdw_acoustic_cpml_build(spec, d->pml_w, d->pml_a, d->pml_b, d->pml_d1, err);
    return st;
}

const fdw_kind_ops fdw_kind_acoustic = {
    .name = "acoustic",
    .wave = 1,
    .section = {
        .keys = KEYS,
        .parse = wave_parse,
        .warnings = wave_warnings,
        .device_bytes = acoustic_device_bytes,
        .state_bytes = acoustic_state_bytes,
    },
    .problem = {
        .build = acoustic_build,
        .check = acoustic_check,
        .free = acoustic_free_problem,
        .shed = acoustic_shed,
    },
    .run = {
        .cpu = &fdw_acoustic_cpu,
#ifdef FDW_HAVE_CUDA
        .cuda = &fdw_acoustic_cuda,
#endif
    },
    .out = {
        .finish = fdw_run_write_gathers,
        .unstable_field = "velocity",
        .unstable_hint = "the finite-difference scheme is stable at this dt for the model's "
                         "largest velocity (time.dt is checked against it), so look at the "
                         "velocity model (values its scan did not expect) and the absorbing "
                         "boundary's parameters (boundary)",
    },
};
