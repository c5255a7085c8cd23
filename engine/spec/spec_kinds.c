/* spec_kinds.c — the members specific to the benchmark kinds: "stencil" (iterations of
 * D' = c0 D + sum ci * neighbours, with given or default coefficients, on a seeded random
 * field) and "derivative" (the 8th-order periodic first derivative of a product of sines
 * along one axis). Neither has velocity, sources, receivers, time or boundary. */
#include "spec/spec_parse.h"

#include <limits.h>
#include <math.h>

#include "core/fd_coeffs.h"

static const char *const AXES[] = {"x", "y", "z", NULL};

/* Settings of the acoustic-only parts that the benchmark kinds leave unused. */
static void no_acoustic(fdw_spec *s)
{
    s->dt = 0;
    s->dt_auto = 0;
    s->dt_safety = SP_DEFAULT_SAFETY;
    s->boundary.type = FDW_BOUNDARY_NONE;
    s->boundary.reflection = SP_DEFAULT_REFLECTION;
    s->receiver_interval = 1;
}

static int parse_iterations(spec_ctx *c, const json_t *root)
{
    long long it;
    if (sp_int(c, root, "", "iterations", 1, 1, SP_MAX_NT, &it))
        return -1;
    c->spec->nt = (long)it;
    json_object_set_new(c->norm, "iterations", json_integer(it));
    return 0;
}

int sp_parse_stencil(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    int r = s->order / 2;
    no_acoustic(s);
    if (parse_iterations(c, root))
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
            if (sp_value_num(c, json_array_get(arr, (size_t)i), field, &s->stencil_c[i]))
                return -1;
        }
        s->stencil_c_given = 1;
    } else {
        /* The order's 3-D Laplacian scaled by 1/(3 lambda): D' = D + L D / (3 lambda) has
         * amplification factors in [0, 1], so the iteration stays bounded yet changes the
         * field every step. */
        double w[FDW_MAX_RADIUS + 1];
        fdw_fd2_coeffs(s->order, w);
        double scale = 1.0 / (3.0 * fdw_fd2_lambda(s->order));
        s->stencil_c[0] = 1.0 + scale * 3.0 * w[0];
        for (int i = 1; i <= r; i++)
            s->stencil_c[i] = scale * w[i];
        s->stencil_c_given = 0;
    }
    long long seed = 1;
    if (sp_int(c, root, "", "seed", 0, 0, 4294967295LL, &seed))
        return -1;
    s->stencil_seed = (long)seed;
    json_t *nc = json_array();
    for (int i = 0; i <= r; i++)
        json_array_append_new(nc, json_real(s->stencil_c[i]));
    json_object_set_new(c->norm, "coefficients", nc);
    json_object_set_new(c->norm, "seed", json_integer(seed));
    return 0;
}

int sp_parse_derivative(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    int axis = 0;
    no_acoustic(s);
    if (sp_enum(c, root, "", "axis", 1, AXES, &axis) || parse_iterations(c, root))
        return -1;
    s->deriv_axis = (fdw_axis)axis;
    json_t *arr;
    s->periods[0] = s->periods[1] = s->periods[2] = 1;
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
            s->periods[a] = (int)p;
        }
    }
    json_object_set_new(c->norm, "axis", json_string(AXES[axis]));
    json_object_set_new(c->norm, "periods",
                        json_pack("[iii]", s->periods[0], s->periods[1], s->periods[2]));
    return 0;
}
