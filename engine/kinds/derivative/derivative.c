/* derivative.c — the derivative kind ("Finite Difference Methods in CUDA C/C++, Part 1"),
 * a benchmark: the 8th-order periodic first derivative along x, y or z of a product of
 * sines, checked after iteration 1 against the exact derivative. Spec members: iterations,
 * axis, periods. Output: the final field, its checksums and the largest error. */
#include "kinds/derivative/derivative.h"
#include "kinds/derivative/cpu_derivative.h"
#include "kinds/kind.h"

#include "core/error.h"
#include "core/fd_coeffs.h"
#include "run/problem.h"
#include "run/run_state.h"
#include "kinds/field/field_spec.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FDW_HAVE_CUDA
extern const struct fdw_cuda_ops fdw_derivative_cuda;
#endif

static const char *const KEYS[] = {"iterations", "axis", "periods", NULL};
static const char *const AXES[] = {"x", "y", "z", NULL};

/* Iterations compound the derivative (each differentiates the last result), so the field
 * scales by the stencil's symbol per iteration: the sines' mode by |s(theta_p)| / h, the
 * rounding noise by up to max |s| / h (its fastest mode starts near float32's half epsilon
 * over sqrt(points): 24^3 at dx = 1 measured 7.4e32 after 180 iterations, this estimate
 * 1.6e33). Iterations that would carry either past float32's range (dx = 1, 24^3: about
 * 200; the field became inf and NaN) are refused naming iterations.
 * s(theta) = 2 sum_m c_m sin(m theta). */
static int check_growth(spec_ctx *c, const fdw_derivative_spec *k)
{
    const fdw_spec *s = c->spec;
    double cf[FDW_MAX_RADIUS + 1];
    if (fdw_fd1_coeffs(8, cf) != 0)
        return 0; /* the order's own error comes later */
    const double h[3] = {s->dx, s->dy, s->dz};
    const int n[3] = {s->nx, s->ny, s->nz};
    const double hax = h[k->axis];
    double lo, hi;
    fdw_symbol_range(cf, 4, 1, &lo, &hi);
    const double sup = fmax(-lo, hi);
    const double mode = fdw_symbol(cf, 4, 1, 2.0 * M_PI * k->periods[k->axis] / n[k->axis]);
    const double lmode = s->nt * log10(fabs(mode) / hax);
    const double lnoise = s->nt * log10(sup / hax) + log10(FLT_EPSILON / 2) -
                          0.5 * log10((double)fdw_spec_points(s));
    const double top = lmode > lnoise ? lmode : lnoise;
    if (top > log10(FLT_MAX))
        return sp_fail(c, "iterations",
                       "iterations is %ld: each differentiates the last result, which grows by "
                       "up to %g per iteration (the stencil's largest symbol over the spacing "
                       "%g m), reaching about 10^%.0f, past float32's range; take fewer "
                       "iterations or a spacing of at least %g m along the axis",
                       s->nt, sup / hax, hax, top, sup);
    return 0;
}

static int derivative_parse(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    int axis = 0;
    fdw_derivative_spec *k = sp_kspec(c, sizeof *k);
    if (!k)
        return -1;
    if (sp_enum(c, root, "", "axis", 1, AXES, &axis) || field_parse(c, root))
        return -1;
    k->axis = (fdw_axis)axis;
    json_t *arr;
    k->periods[0] = k->periods[1] = k->periods[2] = 1;
    if (sp_array(c, root, "", "periods", 0, &arr))
        return -1;
    const int n[3] = {s->nx, s->ny, s->nz};
    if (arr) {
        if (json_array_size(arr) != 3)
            return sp_fail(c, "periods", "periods must hold 3 integers [px, py, pz], not %zu",
                           json_array_size(arr));
        for (int a = 0; a < 3; a++) {
            char field[SP_PATH];
            long long p;
            sp_idx(field, "periods", (size_t)a);
            /* Above n/2 periods the sampled sine aliases and the analytic check is void. */
            if (sp_value_int(c, json_array_get(arr, (size_t)a), field, 0, n[a] / 2, &p))
                return -1;
            k->periods[a] = (int)p;
        }
    }
    if (check_growth(c, k))
        return -1;
    json_object_set_new(c->norm, "axis", json_string(AXES[axis]));
    json_object_set_new(c->norm, "periods",
                        json_pack("[iii]", k->periods[0], k->periods[1], k->periods[2]));
    return 0;
}

static void derivative_free_spec(fdw_spec *spec)
{
    free(spec->kspec);
    spec->kspec = NULL;
}

double fdw_derivative_max_error(const fdw_spec *spec, const float *field)
{
    const fdw_derivative_spec *ks = spec->kspec;
    /* Separable again: per axis a table of sin, or of the derivative factor times cos on
     * the derivative's axis, multiplied x, y, z in that order. */
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
            const double arg = 2.0 * M_PI * ks->periods[a] * (int)i / (int)n[a];
            tab[a][i] = a == (int)ks->axis
                            ? 2.0 * M_PI * ks->periods[a] / ((int)n[a] * h[a]) * cos(arg)
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

static fdw_status derivative_build(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    double c[FDW_MAX_RADIUS + 1];
    if (spec->order != 8 || fdw_fd1_coeffs(8, c) != 0)
        return fdw_fail(err, FDW_ERR_SPEC, "order",
                        "the derivative kind is 8th order only (got %d)", spec->order);
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    const fdw_derivative_spec *k = spec->kspec;
    fdw_derivative_data *d = fdw_problem_alloc(1, sizeof *d, "the derivative weights", err);
    if (!d)
        return FDW_ERR_NOMEM;
    prob->kdata = d;
    const double hax = h[k->axis];
    d->axis = k->axis;
    d->dc[0] = 0.0f;
    for (int m = 1; m <= 4; m++)
        d->dc[m] = (float)(c[m] / hax);
    const size_t nx = (size_t)spec->nx, ny = (size_t)spec->ny, nz = (size_t)spec->nz;
    float *f = fdw_problem_alloc(nx * ny * nz, sizeof(float), "the initial field", err);
    if (!f)
        return FDW_ERR_NOMEM;
    /* Separable: one sine table per axis, multiplied x, y, z in that order (as
     * fdw_derivative_max_error's exact values are). */
    const size_t n[3] = {nx, ny, nz};
    double *tab[3] = {NULL, NULL, NULL};
    for (int a = 0; a < 3; a++) {
        tab[a] = fdw_problem_alloc(n[a], sizeof(double), "sine tables", err);
        if (!tab[a]) {
            for (int b = 0; b < a; b++)
                free(tab[b]);
            free(f);
            return FDW_ERR_NOMEM;
        }
        for (size_t i = 0; i < n[a]; i++)
            tab[a][i] = sin(2.0 * M_PI * k->periods[a] * (int)i / (int)n[a]);
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

static void derivative_free_problem(fdw_problem *prob)
{
    free((void *)prob->kdata);
    prob->kdata = NULL;
}

/* After iteration 1 (the only one whose output is a first derivative of the sines), its
 * largest error against the exact derivative, kept for the result and logged. */
static fdw_status derivative_after_step(fdw_run_state *r, long done, fdw_error *err)
{
    if (done != 1)
        return FDW_OK;
    fdw_status st = fdw_run_fetch_volume(r, err);
    if (st != FDW_OK || !r->root)
        return st;
    r->max_abs_error = fdw_derivative_max_error(r->spec, r->volume);
    if (r->max_abs_error < 0.0)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory checking the derivative");
    fdw_run_log(r, FDW_LOG_INFO, "derivative after iteration 1: max |error| = %.3e",
                r->max_abs_error);
    return FDW_OK;
}

/* The final field, and the largest error of iteration 1. */
static fdw_status derivative_finish(fdw_run_state *r, char *extra, size_t len, fdw_error *err)
{
    fdw_status st = fdw_run_write_field(r, extra, len, err);
    const size_t used = strlen(extra);
    if (st == FDW_OK && r->root && used < len)
        snprintf(extra + used, len - used, ", \"max_abs_error\": %.17g", r->max_abs_error);
    return st;
}

const fdw_kind_ops fdw_kind_derivative = {
    .name = "derivative",
    .fixed_order = 8,
    .periodic = 1,
    .section = {
        .keys = KEYS,
        .parse = derivative_parse,
        .free = derivative_free_spec,
        .device_bytes = field_device_bytes,
    },
    .problem = {.build = derivative_build, .free = derivative_free_problem},
    .run = {
        .cpu = &fdw_derivative_cpu,
#ifdef FDW_HAVE_CUDA
        .cuda = &fdw_derivative_cuda,
#endif
        .after_step = derivative_after_step,
    },
    .out = {
        .finish = derivative_finish,
        .unstable_field = "iterations",
        .unstable_hint = "each iteration differentiates the field again and amplifies its "
                         "rounding noise",
    },
};
