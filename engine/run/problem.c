/* problem.c — builds the fdw_problem a backend runs from a validated spec: coefficients
 * scaled by the grid spacing, (v dt)^2 from the velocity model, sponge damping profiles or
 * CPML coefficients, trilinear source/receiver taps, wavelets scaled for injection, and the
 * initial fields of the stencil and derivative kinds. */
#include "run/problem.h"

#include "kinds/acoustic/cpml.h"
#include "core/error.h"
#include "core/fd_coeffs.h"
#include "model/model_io.h"
#include "run/wavelet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Allocation that reports its size on failure. */
static void *alloc_or_fail(size_t count, size_t size, const char *what, fdw_error *err)
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

/* Position along one axis in grid units, snapped to the node when within rounding error. */
static double grid_coord(double pos, double origin, double h)
{
    const double x = (pos - origin) / h;
    const double r = floor(x + 0.5);
    if (fabs(x - r) <= 1e-9 * (fabs(x) > 1.0 ? fabs(x) : 1.0))
        return r;
    return x;
}

int fdw_problem_taps(const fdw_spec *spec, const double pos[3], int owner, fdw_tap taps[8])
{
    const int n[3] = {spec->nx, spec->ny, spec->nz};
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    int i0[3];
    double w[3][2];
    for (int a = 0; a < 3; a++) {
        double x = grid_coord(pos[a], spec->origin[a], h[a]);
        if (x < 0.0)
            x = 0.0;
        if (x > n[a] - 1)
            x = n[a] - 1;
        int c = (int)floor(x);
        if (c >= n[a] - 1)
            c = n[a] - 1 > 0 ? n[a] - 2 : 0;
        if (c < 0)
            c = 0;
        const double f = x - c;
        i0[a] = c;
        w[a][0] = 1.0 - f;
        w[a][1] = f;
    }
    int count = 0;
    for (int dk = 0; dk < 2; dk++)
        for (int dj = 0; dj < 2; dj++)
            for (int di = 0; di < 2; di++) {
                const double wt = w[0][di] * w[1][dj] * w[2][dk];
                if (wt == 0.0)
                    continue;
                const uint64_t ii = (uint64_t)(i0[0] + di), jj = (uint64_t)(i0[1] + dj),
                               kk = (uint64_t)(i0[2] + dk);
                taps[count].index = ii + (uint64_t)n[0] * (jj + (uint64_t)n[1] * kk);
                taps[count].weight = (float)wt;
                taps[count].owner = owner;
                count++;
            }
    return count;
}

float fdw_stencil_init_value(long seed, uint64_t idx)
{
    /* splitmix64 of (seed, index): cheap, well mixed, decomposition independent. */
    uint64_t z = (uint64_t)seed * 0x9E3779B97F4A7C15ull + idx + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    /* top 24 bits -> [-1, 1] exactly representable in float */
    return (float)((double)(z >> 40) / 8388607.5 - 1.0);
}

double fdw_derivative_field(const fdw_spec *spec, int i, int j, int k)
{
    const int idx[3] = {i, j, k};
    const int n[3] = {spec->nx, spec->ny, spec->nz};
    double v = 1.0;
    for (int a = 0; a < 3; a++)
        v *= sin(2.0 * M_PI * spec->periods[a] * idx[a] / n[a]);
    return v;
}

double fdw_derivative_exact(const fdw_spec *spec, int i, int j, int k)
{
    const int idx[3] = {i, j, k};
    const int n[3] = {spec->nx, spec->ny, spec->nz};
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    const int ax = (int)spec->deriv_axis;
    double v = 1.0;
    for (int a = 0; a < 3; a++) {
        const double arg = 2.0 * M_PI * spec->periods[a] * idx[a] / n[a];
        if (a == ax)
            v *= 2.0 * M_PI * spec->periods[a] / (n[a] * h[a]) * cos(arg);
        else
            v *= sin(arg);
    }
    return v;
}

double fdw_derivative_max_error(const fdw_spec *spec, const float *field)
{
    /* Separable again: per axis a table of sin, or of the derivative factor times cos on
     * the derivative's axis, multiplied in fdw_derivative_exact's order. */
    const size_t n[3] = {(size_t)spec->nx, (size_t)spec->ny, (size_t)spec->nz};
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    double *tab[3] = {NULL, NULL, NULL};
    for (int a = 0; a < 3; a++) {
        tab[a] = malloc(n[a] * sizeof(double));
        if (!tab[a]) {
            for (int b = 0; b < a; b++)
                free(tab[b]);
            return -1.0;
        }
        for (size_t i = 0; i < n[a]; i++) {
            const double arg = 2.0 * M_PI * spec->periods[a] * (int)i / (int)n[a];
            tab[a][i] = a == (int)spec->deriv_axis
                            ? 2.0 * M_PI * spec->periods[a] / ((int)n[a] * h[a]) * cos(arg)
                            : sin(arg);
        }
    }
    double worst = 0.0;
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (long k = 0; k < (long)n[2]; k++)
        for (size_t j = 0; j < n[1]; j++)
            for (size_t i = 0; i < n[0]; i++) {
                const double exact = ((1.0 * tab[0][i]) * tab[1][j]) * tab[2][k];
                double e = fabs((double)field[i + n[0] * (j + n[1] * (size_t)k)] - exact);
                if (e != e) /* NaN must not hide */
                    e = INFINITY;
                if (e > worst)
                    worst = e;
            }
    for (int a = 0; a < 3; a++)
        free(tab[a]);
    return worst;
}

/* (v dt)^2 per point from the velocity model. */
static fdw_status build_vdt2(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    const size_t npts = (size_t)spec->nx * spec->ny * spec->nz;
    float *v = alloc_or_fail(npts, sizeof(float), "the velocity model", err);
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
    prob->vdt2 = v;
    return FDW_OK;
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
        q[a] = alloc_or_fail((size_t)n[a], sizeof(float), "the sponge profile", err);
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

/* CPML: layer widths per axis (no top layer under a free surface), the a/b coefficients of
 * each axis that has a layer, and the first-derivative weights of the stencil's radius
 * divided by the spacing. Nothing for other boundary types. */
static fdw_status build_cpml(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
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
        prob->pml_w[a][0] = b->width[2 * a];
        prob->pml_w[a][1] = b->width[2 * a + 1];
        for (int m = 0; m <= prob->radius; m++)
            prob->pml_d1[a][m] = m == 0 ? 0.0f : (float)(c1[m] / h[a]);
    }
    if (b->free_surface)
        prob->pml_w[2][0] = 0;
    for (int a = 0; a < 3; a++) {
        if (prob->pml_w[a][0] == 0 && prob->pml_w[a][1] == 0)
            continue;
        float *pa = alloc_or_fail((size_t)n[a], sizeof(float), "the CPML coefficients", err);
        float *pb = pa ? alloc_or_fail((size_t)n[a], sizeof(float), "the CPML coefficients",
                                       err)
                       : NULL;
        if (!pb) {
            free(pa);
            return FDW_ERR_NOMEM; /* what is already in prob is freed by the caller */
        }
        fdw_cpml_profile(n[a], prob->pml_w[a][0], prob->pml_w[a][1], h[a], spec->vmax,
                         spec->dt, b->reflection, b->frequency, pa, pb);
        prob->pml_a[a] = pa;
        prob->pml_b[a] = pb;
    }
    return FDW_OK;
}

/* Source taps and wavelets (scaled by dt^2 / cell volume), receiver taps. */
static fdw_status build_taps(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    const long nt = prob->nt;
    fdw_tap *st = alloc_or_fail((size_t)spec->nsources * 8, sizeof(fdw_tap), "source taps",
                                err);
    if (!st)
        return FDW_ERR_NOMEM;
    prob->src_taps = st;
    float *wav = alloc_or_fail((size_t)spec->nsources * (size_t)nt, sizeof(float),
                               "source wavelets", err);
    if (!wav)
        return FDW_ERR_NOMEM;
    prob->wavelets = wav;
    const double scale = spec->dt * spec->dt / (spec->dx * spec->dy * spec->dz);
    int ntaps = 0;
    for (int s = 0; s < spec->nsources; s++) {
        ntaps += fdw_problem_taps(spec, spec->sources[s].pos, s, st + ntaps);
        fdw_wavelet_sample(&spec->sources[s], nt, spec->dt, scale, wav + (size_t)s * nt);
    }
    prob->nsrc_taps = ntaps;

    fdw_tap *rt = alloc_or_fail((size_t)spec->nreceivers * 8, sizeof(fdw_tap),
                                "receiver taps", err);
    if (!rt)
        return FDW_ERR_NOMEM;
    prob->rec_taps = rt;
    ntaps = 0;
    for (int r = 0; r < spec->nreceivers; r++)
        ntaps += fdw_problem_taps(spec, spec->receivers[r].pos, r, rt + ntaps);
    prob->nrec_taps = ntaps;
    prob->nreceivers = spec->nreceivers;
    return FDW_OK;
}

static fdw_status build_acoustic(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    double c[FDW_MAX_RADIUS + 1];
    if (fdw_fd2_coeffs(spec->order, c) != 0)
        return fdw_fail(err, FDW_ERR_SPEC, "order", "order %d has no coefficients",
                        spec->order);
    for (int m = 0; m <= prob->radius; m++) {
        prob->cx[m] = (float)(c[m] / (spec->dx * spec->dx));
        prob->cy[m] = (float)(c[m] / (spec->dy * spec->dy));
        prob->cz[m] = (float)(c[m] / (spec->dz * spec->dz));
    }
    fdw_status st = build_vdt2(spec, prob, err);
    if (st == FDW_OK)
        st = build_sponge(spec, prob, err);
    if (st == FDW_OK)
        st = build_cpml(spec, prob, err);
    if (st == FDW_OK)
        st = build_taps(spec, prob, err);
    return st;
}

static fdw_status build_stencil(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    for (int m = 0; m <= prob->radius; m++)
        prob->sc[m] = (float)spec->stencil_c[m];
    const size_t npts = (size_t)spec->nx * spec->ny * spec->nz;
    float *f = alloc_or_fail(npts, sizeof(float), "the initial field", err);
    if (!f)
        return FDW_ERR_NOMEM;
#pragma omp parallel for schedule(static)
    for (size_t p = 0; p < npts; p++)
        f[p] = fdw_stencil_init_value(spec->stencil_seed, (uint64_t)p);
    prob->init = f;
    return FDW_OK;
}

static fdw_status build_derivative(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    double c[FDW_MAX_RADIUS + 1];
    if (spec->order != 8 || fdw_fd1_coeffs(8, c) != 0)
        return fdw_fail(err, FDW_ERR_SPEC, "order",
                        "the derivative kind is 8th order only (got %d)", spec->order);
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    const double hax = h[spec->deriv_axis];
    prob->deriv_axis = spec->deriv_axis;
    prob->dc[0] = 0.0f;
    for (int m = 1; m <= 4; m++)
        prob->dc[m] = (float)(c[m] / hax);
    const size_t nx = (size_t)spec->nx, ny = (size_t)spec->ny, nz = (size_t)spec->nz;
    float *f = alloc_or_fail(nx * ny * nz, sizeof(float), "the initial field", err);
    if (!f)
        return FDW_ERR_NOMEM;
    /* Separable: one sine table per axis, multiplied in the same order as
     * fdw_derivative_field so the values are identical. */
    const size_t n[3] = {nx, ny, nz};
    double *tab[3] = {NULL, NULL, NULL};
    for (int a = 0; a < 3; a++) {
        tab[a] = alloc_or_fail(n[a], sizeof(double), "sine tables", err);
        if (!tab[a]) {
            for (int b = 0; b < a; b++)
                free(tab[b]);
            free(f);
            return FDW_ERR_NOMEM;
        }
        for (size_t i = 0; i < n[a]; i++)
            tab[a][i] = sin(2.0 * M_PI * spec->periods[a] * (int)i / (int)n[a]);
    }
#pragma omp parallel for schedule(static)
    for (long k = 0; k < (long)nz; k++)
        for (size_t j = 0; j < ny; j++)
            for (size_t i = 0; i < nx; i++)
                f[i + nx * (j + ny * (size_t)k)] =
                    (float)(((1.0 * tab[0][i]) * tab[1][j]) * tab[2][k]);
    for (int a = 0; a < 3; a++)
        free(tab[a]);
    prob->init = f;
    return FDW_OK;
}

fdw_status fdw_problem_build(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    memset(prob, 0, sizeof *prob);
    prob->kind = spec->kind;
    prob->nx = spec->nx;
    prob->ny = spec->ny;
    prob->nz = spec->nz;
    prob->radius = spec->order / 2;
    prob->nt = spec->nt;
    prob->rec_interval = spec->receiver_interval >= 1 ? spec->receiver_interval : 1;
    prob->nrec_slots = prob->nt / prob->rec_interval + 1;
    if (prob->radius < 1 || prob->radius > FDW_MAX_RADIUS)
        return fdw_fail(err, FDW_ERR_SPEC, "order", "order %d is outside 2..%d", spec->order,
                        FDW_MAX_ORDER);

    fdw_status st;
    switch (spec->kind) {
    case FDW_KIND_ACOUSTIC: st = build_acoustic(spec, prob, err); break;
    case FDW_KIND_STENCIL: st = build_stencil(spec, prob, err); break;
    case FDW_KIND_DERIVATIVE: st = build_derivative(spec, prob, err); break;
    default: st = fdw_fail(err, FDW_ERR_INTERNAL, "kind", "unknown job kind %d", spec->kind);
    }
    if (st != FDW_OK)
        fdw_problem_free(prob);
    return st;
}

void fdw_problem_free(fdw_problem *prob)
{
    if (!prob)
        return;
    free((void *)prob->vdt2);
    free((void *)prob->qx);
    free((void *)prob->qy);
    free((void *)prob->qz);
    for (int a = 0; a < 3; a++) {
        free((void *)prob->pml_a[a]);
        free((void *)prob->pml_b[a]);
    }
    free((void *)prob->src_taps);
    free((void *)prob->wavelets);
    free((void *)prob->rec_taps);
    free((void *)prob->init);
    memset(prob, 0, sizeof *prob);
}
