/* cpml_profile.c — CPML coefficients along one axis (Collino & Tsogka 2001; Komatitsch &
 * Martin 2007, CFS with kappa = 1) and the check that a slab plan keeps its internal
 * boundaries out of the z layers (so that psi_z never needs a neighbour's values). */
#include "run/cpml.h"

#include "core/error.h"

#include <math.h>
#include <stdio.h>

/* a and b of one point at normalised depth x in (0, 1] of a layer of w points. */
static void point_coeffs(double x, int w, double h, double vmax, double dt, double reflection,
                         double frequency, float *a, float *b)
{
    const double d0 = -3.0 * vmax * log(reflection) / (2.0 * w * h);
    const double d = d0 * x * x;
    const double alpha = M_PI * frequency * (1.0 - x);
    const double bb = exp(-(d + alpha) * dt);
    *b = (float)bb;
    *a = d + alpha == 0.0 ? 0.0f : (float)(d * (bb - 1.0) / (d + alpha));
}

void fdw_cpml_profile(int n, int wlo, int whi, double h, double vmax, double dt,
                      double reflection, double frequency, float *a, float *b)
{
    for (int i = 0; i < n; i++) {
        a[i] = 0.0f;
        b[i] = 1.0f;
    }
    for (int i = 0; i < wlo && i < n; i++)
        point_coeffs((double)(wlo - i) / wlo, wlo, h, vmax, dt, reflection, frequency, &a[i],
                     &b[i]);
    for (int m = 0; m < whi && m < n; m++)
        point_coeffs((double)(whi - m) / whi, whi, h, vmax, dt, reflection, frequency,
                     &a[n - 1 - m], &b[n - 1 - m]);
}

/* The z layer widths of a spec's CPML: w[0] at the top (0 with a free surface), w[1] at
 * the bottom; both 0 when the boundary is not a CPML. */
static void fdw_cpml_z_widths(const fdw_spec *spec, int w[2])
{
    w[0] = w[1] = 0;
    if (spec->boundary.type != FDW_BOUNDARY_CPML)
        return;
    w[0] = spec->boundary.free_surface ? 0 : spec->boundary.width[4];
    w[1] = spec->boundary.width[5];
}

int fdw_cpml_bad_slab_boundary(const int wz[2], int nz, int radius, const fdw_plan *plan)
{
    for (int d = 1; d < plan->ndev; d++) {
        const int bnd = plan->z0[d];
        if (wz[0] > 0 && bnd < wz[0] + radius)
            return bnd;
        if (wz[1] > 0 && nz - bnd < wz[1] + radius)
            return bnd;
    }
    return -1;
}

fdw_status fdw_cpml_check_plan(const fdw_spec *spec, const fdw_plan *plan, int mpi,
                               fdw_error *err)
{
    int wz[2];
    fdw_cpml_z_widths(spec, wz);
    const int r = spec->radius, nz = spec->nz;
    const int bad = fdw_cpml_bad_slab_boundary(wz, nz, r, plan);
    if (bad < 0)
        return FDW_OK;
    /* The most slabs that fit these widths, and the widths that fit this many slabs. */
    int most = 1;
    for (int n = plan->ndev - 1; n > 1; n--) {
        fdw_plan p;
        fdw_error e;
        if (fdw_plan_slabs(nz, r, n, NULL, &p, &e) == FDW_OK &&
            fdw_cpml_bad_slab_boundary(wz, nz, r, &p) < 0) {
            most = n;
            break;
        }
    }
    const int last = plan->ndev - 1;
    int top = plan->z0[1] - r, bottom = nz - plan->z0[last] - r;
    if (top < 0)
        top = 0;
    if (bottom < 0)
        bottom = 0;
    /* the widths that would fit, for the faces that have a layer */
    char fit[96];
    if (wz[0] > 0 && wz[1] > 0)
        snprintf(fit, sizeof fit, "zmin %d, zmax %d", top, bottom);
    else
        snprintf(fit, sizeof fit, "%s %d", wz[0] > 0 ? "zmin" : "zmax", wz[0] > 0 ? top : bottom);
    const char *unit = mpi ? "MPI rank" : "device";
    return fdw_fail(err, FDW_ERR_SPEC, mpi ? "boundary.width" : "devices",
                    "%d %ss split the grid's %d z planes so that the slab boundary at plane "
                    "%d lies inside the CPML's z layers (zmin %d, zmax %d points) or within "
                    "the stencil radius %d of them, which the CPML does not allow; use at "
                    "most %d %s%s, or CPML widths of at most %s",
                    plan->ndev, unit, nz, bad, wz[0], wz[1], r, most, unit,
                    most == 1 ? "" : "s", fit);
}

