/* model_analytic.c — velocity models defined in the spec itself: constant, layered
 * (flat layers by depth) and a Gaussian anomaly on a constant background. Filled in
 * parallel with OpenMP, one z plane per iteration. */
#include "model/model_formats.h"
#include "core/error.h"

#include <math.h>
#include <stddef.h>

/* Velocity of the layered model at depth z: the last layer whose top <= z (layers are
 * sorted by top); depths above the first top take the first layer. */
static float layered_v(const fdw_velocity_spec *v, double z)
{
    double val = v->layers[0].v;
    for (int l = 1; l < v->nlayers; l++) {
        if (v->layers[l].top <= z)
            val = v->layers[l].v;
        else
            break;
    }
    return (float)val;
}

fdw_status fdw_model_fill_analytic(const fdw_spec *spec, float *out, fdw_error *err)
{
    const fdw_velocity_spec *v = &spec->velocity;
    const int nx = spec->nx, ny = spec->ny, nz = spec->nz;
    const size_t nxy = (size_t)nx * (size_t)ny;
    if (nx <= 0 || ny <= 0 || nz <= 0)
        return fdw_fail(err, FDW_ERR_SPEC, "grid", "grid %d x %d x %d is empty", nx, ny, nz);
    if (v->type == FDW_VEL_LAYERED && (v->nlayers < 1 || !v->layers))
        return fdw_fail(err, FDW_ERR_SPEC, "velocity.layers", "no layers");
    if (v->type != FDW_VEL_CONSTANT && v->type != FDW_VEL_LAYERED &&
        v->type != FDW_VEL_GAUSSIAN)
        return fdw_fail(err, FDW_ERR_INTERNAL, "velocity.type",
                        "velocity type %d is not an analytic model", (int)v->type);
    if (v->type == FDW_VEL_GAUSSIAN && !(v->sigma > 0))
        return fdw_fail(err, FDW_ERR_SPEC, "velocity.sigma", "sigma %g must be > 0", v->sigma);

    const double ox = spec->origin[0], oy = spec->origin[1], oz = spec->origin[2];
    const double inv2s2 = v->type == FDW_VEL_GAUSSIAN ? 1.0 / (2.0 * v->sigma * v->sigma) : 0;
    long bad_k = -1; /* smallest plane holding a non-positive or non-finite value */

#pragma omp parallel for schedule(static) reduction(max : bad_k)
    for (int k = 0; k < nz; k++) {
        float *plane = out + (size_t)k * nxy;
        double z = oz + k * spec->dz;
        if (v->type == FDW_VEL_GAUSSIAN) {
            double dz2 = (z - v->center[2]) * (z - v->center[2]);
            for (int j = 0; j < ny; j++) {
                double y = oy + j * spec->dy;
                double dy2 = (y - v->center[1]) * (y - v->center[1]);
                float *row = plane + (size_t)j * nx;
                for (int i = 0; i < nx; i++) {
                    double x = ox + i * spec->dx;
                    double r2 = (x - v->center[0]) * (x - v->center[0]) + dy2 + dz2;
                    row[i] = (float)(v->v0 + v->dv * exp(-r2 * inv2s2));
                }
            }
        } else {
            float val = v->type == FDW_VEL_CONSTANT ? (float)v->v0 : layered_v(v, z);
            for (size_t q = 0; q < nxy; q++)
                plane[q] = val;
        }
        for (size_t q = 0; q < nxy; q++) {
            if (!(plane[q] > 0.0f) || isinf(plane[q])) {
                bad_k = bad_k > k ? bad_k : k; /* any bad plane; located exactly below */
                break;
            }
        }
    }
    if (bad_k >= 0) {
        /* Report the first bad sample in grid order (rare path: a plain scan). */
        size_t n = nxy * (size_t)nz;
        for (size_t q = 0; q < n; q++) {
            if (!(out[q] > 0.0f) || isinf(out[q]))
                return fdw_fail(err, FDW_ERR_SPEC, "velocity",
                                "velocity at (i, j, k) = (%zu, %zu, %zu) is %g; velocities "
                                "must be positive and finite (m/s)",
                                q % (size_t)nx, (q / (size_t)nx) % (size_t)ny, q / nxy,
                                (double)out[q]);
        }
    }
    return FDW_OK;
}
