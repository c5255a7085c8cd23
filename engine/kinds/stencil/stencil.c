/* stencil.c — the stencil-only kind (seed: Micikevicius 2009, eq. 1, table 1), a
 * benchmark: iterations of D' = c0 D + sum_i ci (the 6 neighbours at distance i) on a
 * seeded pseudo-random field, zero outside the grid. Spec members: iterations,
 * coefficients, seed. Output: the final field and its checksums. */
#include "kinds/stencil/stencil.h"
#include "kinds/stencil/cpu_stencil.h"
#include "kinds/kind.h"

#include "core/error.h"
#include "core/fd_coeffs.h"
#include "run/problem.h"
#include "run/run_state.h"
#include "kinds/field/field_spec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#ifdef FDW_HAVE_CUDA
extern const struct fdw_cuda_ops fdw_stencil_cuda;
#endif

static const char *const KEYS[] = {"iterations", "coefficients", "seed", NULL};

/* The largest amplification of one iteration: sup over the Nyquist cube of |c0 + sum_a
 * f(theta_a)|, f the coefficients' 1-D symbol; the three axes add, so the symbol spans
 * c0 + 3 [min f, max f] (the operator with zeros outside the grid is a section of the
 * infinite one, its norm no larger). */
static double stencil_growth(const double *cf, int r)
{
    double fmin, fmax;
    fdw_symbol_range(cf, r, 0, &fmin, &fmax);
    const double lo = fabs(cf[0] + 3.0 * fmin), hi = fabs(cf[0] + 3.0 * fmax);
    return lo > hi ? lo : hi;
}

/* Given coefficients whose iterations grow the float32 field past its range are refused
 * (a field of inf and NaN is no benchmark); the field's largest value after N iterations
 * is about g^N / sqrt(points) (the random field's share of the fastest-growing mode) and
 * at most g^N sqrt(points): refused above the first, a warning above the second. */
static int check_growth(spec_ctx *c, const fdw_stencil_spec *k)
{
    const fdw_spec *s = c->spec;
    const double g = stencil_growth(k->c, s->radius);
    const double lg = s->nt * log10(g), half = 0.5 * log10((double)fdw_spec_points(s));
    if (!isfinite(g) || lg - half > log10(FLT_MAX))
        return sp_fail(c, "coefficients",
                       "the coefficients amplify a mode by up to %g per iteration: after %ld "
                       "iterations the field reaches about 10^%.0f, past float32's range (3.4e38); "
                       "scale the coefficients or lower iterations", g, s->nt, lg - half);
    if (lg + half > log10(FLT_MAX))
        sp_warn(c, "the coefficients amplify a mode by up to %g per iteration: after %ld "
                "iterations the field may pass float32's range (up to 10^%.0f)", g, s->nt,
                lg + half);
    return 0;
}

static int stencil_parse(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    const int r = s->radius;
    fdw_stencil_spec *k = sp_kspec(c, sizeof *k);
    if (!k)
        return -1;
    if (field_parse(c, root))
        return -1;
    json_t *arr;
    if (sp_array(c, root, "", "coefficients", 0, &arr))
        return -1;
    if (arr) {
        if (json_array_size(arr) != (size_t)r + 1)
            return sp_fail(c, "coefficients",
                           "coefficients must hold radius + 1 = %d numbers [c0 .. c%d] for order "
                           "%d, not %zu",
                           r + 1, r, s->order, json_array_size(arr));
        for (int i = 0; i <= r; i++) {
            char field[SP_PATH];
            sp_idx(field, "coefficients", (size_t)i);
            if (sp_value_num(c, json_array_get(arr, (size_t)i), field, &k->c[i]))
                return -1;
        }
        k->c_given = 1;
        if (check_growth(c, k))
            return -1;
    } else {
        /* The order's 3-D Laplacian scaled by 1/(3 lambda): D' = D + L D / (3 lambda) has
         * amplification factors in [0, 1], so the iteration stays bounded yet changes the
         * field every step. */
        double w[FDW_MAX_RADIUS + 1];
        fdw_fd2_coeffs(s->order, w);
        double scale = 1.0 / (3.0 * fdw_fd2_lambda(s->order));
        k->c[0] = 1.0 + scale * 3.0 * w[0];
        for (int i = 1; i <= r; i++)
            k->c[i] = scale * w[i];
        k->c_given = 0;
    }
    long long seed = 1;
    if (sp_int(c, root, "", "seed", 0, 0, 4294967295LL, &seed))
        return -1;
    k->seed = (long)seed;
    json_t *nc = json_array();
    for (int i = 0; i <= r; i++)
        json_array_append_new(nc, json_real(k->c[i]));
    json_object_set_new(c->norm, "coefficients", nc);
    json_object_set_new(c->norm, "seed", json_integer(seed));
    return 0;
}

static void stencil_free_spec(fdw_spec *spec)
{
    free(spec->kspec);
    spec->kspec = NULL;
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

static fdw_status stencil_build(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    const fdw_stencil_spec *k = spec->kspec;
    fdw_stencil_data *d = fdw_problem_alloc(1, sizeof *d, "the stencil coefficients", err);
    if (!d)
        return FDW_ERR_NOMEM;
    prob->kdata = d;
    for (int m = 0; m <= prob->radius; m++)
        d->sc[m] = (float)k->c[m];
    const size_t npts = (size_t)spec->nx * spec->ny * spec->nz;
    float *f = fdw_problem_alloc(npts, sizeof(float), "the initial field", err);
    if (!f)
        return FDW_ERR_NOMEM;
#pragma omp parallel for schedule(static)
    for (size_t p = 0; p < npts; p++)
        f[p] = fdw_stencil_init_value(k->seed, (uint64_t)p);
    prob->init = f;
    return FDW_OK;
}

static void stencil_free_problem(fdw_problem *prob)
{
    free((void *)prob->kdata);
    prob->kdata = NULL;
}

const fdw_kind_ops fdw_kind_stencil = {
    .name = "stencil",
    .section = {
        .keys = KEYS,
        .parse = stencil_parse,
        .free = stencil_free_spec,
        .device_bytes = field_device_bytes,
    },
    .problem = {.build = stencil_build, .free = stencil_free_problem},
    .run = {
        .cpu = &fdw_stencil_cpu,
#ifdef FDW_HAVE_CUDA
        .cuda = &fdw_stencil_cuda,
#endif
    },
    .out = {
        .finish = fdw_run_write_field,
        .unstable_field = "coefficients",
        .unstable_hint = "the coefficients amplify the field at every iteration",
    },
};
