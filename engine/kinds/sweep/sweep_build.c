/* sweep_build.c — the sweep kind's problem: the metric and the update's constants for the
 * six sweep directions, the F field (F as a velocity model), and the initial times: +inf
 * everywhere, then per part of Gamma0 the exact travel time to the nodes next to it (the
 * min where parts overlap): the nodes of the cell around a point, the nodes within one
 * cell of a plane (T = t0 + |s| / (F + sign(s) b.n) at signed distance s), the same for a
 * height-field surface through its tangent plane at each column, and an initial-time
 * volume as given. docs/sweep.md says why one cell is enough. */
#include "kinds/sweep/sweep.h"

#include "core/error.h"
#include "model/model_io.h"
#include "run/problem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double sweep_surface_height(const sweep_surface *sf, double x, double y, double *hx,
                            double *hy)
{
    double h = sf->z0, g[2] = {0.0, 0.0};
    const double p[2] = {x, y};
    for (int a = 0; a < 2; a++)
        if (sf->wavelength[a] > 0.0) {
            const double w = 2.0 * M_PI / sf->wavelength[a];
            h += sf->amp[a] * sin(w * p[a] + sf->phase[a]);
            g[a] = sf->amp[a] * w * cos(w * p[a] + sf->phase[a]);
        }
    if (hx)
        *hx = g[0];
    if (hy)
        *hy = g[1];
    return h;
}

/* F at node q: the field's value, or the constant. */
static double speed_at(const fdw_sweep_data *d, const fdw_sweep_spec *k, size_t q)
{
    return d->speed ? (double)d->speed[q] : k->F;
}

/* Travel time across a plane of unit normal n from signed distance s, with speed F at the
 * node: |s| / (F + sign(s) b.n). */
static double plane_time(const fdw_sweep_data *d, double F, const double n[3], double s)
{
    const double *b = d->metric.b;
    const double bn = d->metric.field ? 0.0 : b[0] * n[0] + b[1] * n[1] + b[2] * n[2];
    return s == 0.0 ? 0.0 : fabs(s) / (F + (s > 0.0 ? bn : -bn));
}

static void put_min(double *t, size_t q, double v)
{
    if (v < t[q])
        t[q] = v;
}

/* The nodes of the cell around each point get t0 + N(node - point). */
static void init_points(const fdw_spec *s, const fdw_sweep_spec *k, const fdw_sweep_data *d,
                        double *t)
{
    const int n[3] = {s->nx, s->ny, s->nz};
    const double h[3] = {s->dx, s->dy, s->dz};
    for (int p = 0; p < k->npoints; p++) {
        const sweep_point_src *src = &k->points[p];
        int lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            const double g = (src->pos[a] - s->origin[a]) / h[a];
            const double r = nearbyint(g);
            if (fabs(g - r) <= 1e-9 * fmax(1.0, fabs(g))) { /* on a node */
                lo[a] = hi[a] = (int)r;
            } else {
                lo[a] = (int)floor(g);
                hi[a] = lo[a] + 1;
            }
            if (lo[a] < 0)
                lo[a] = 0;
            if (hi[a] > n[a] - 1)
                hi[a] = n[a] - 1;
        }
        for (int kk = lo[2]; kk <= hi[2]; kk++)
            for (int j = lo[1]; j <= hi[1]; j++)
                for (int i = lo[0]; i <= hi[0]; i++) {
                    const size_t q = (size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * kk);
                    const double dv[3] = {s->origin[0] + i * h[0] - src->pos[0],
                                          s->origin[1] + j * h[1] - src->pos[1],
                                          s->origin[2] + kk * h[2] - src->pos[2]};
                    const double nn = sweep_norm(&d->metric, dv);
                    put_min(t, q, src->t0 + (d->metric.field ? nn / speed_at(d, k, q) : nn));
                }
    }
}

/* Nodes within one cell of each plane (|s| <= sum_a |n_a| h_a) get the plane wave's time. */
static void init_planes(const fdw_spec *s, const fdw_sweep_spec *k, const fdw_sweep_data *d,
                        double *t)
{
    const double h[3] = {s->dx, s->dy, s->dz};
    for (int p = 0; p < k->nplanes; p++) {
        const sweep_plane_src *pl = &k->planes[p];
        const double band = fabs(pl->normal[0]) * h[0] + fabs(pl->normal[1]) * h[1] +
                            fabs(pl->normal[2]) * h[2];
#pragma omp parallel for schedule(static)
        for (int kk = 0; kk < s->nz; kk++)
            for (int j = 0; j < s->ny; j++)
                for (int i = 0; i < s->nx; i++) {
                    const double x[3] = {s->origin[0] + i * h[0], s->origin[1] + j * h[1],
                                         s->origin[2] + kk * h[2]};
                    double dist = 0.0;
                    for (int a = 0; a < 3; a++)
                        dist += pl->normal[a] * (x[a] - pl->point[a]);
                    if (fabs(dist) > band)
                        continue;
                    const size_t q = (size_t)i + (size_t)s->nx * ((size_t)j + (size_t)s->ny * kk);
                    put_min(t, q, pl->t0 + plane_time(d, speed_at(d, k, q), pl->normal, dist));
                }
    }
}

/* Heights of a surface file (nx * ny float32) into hgt; the size was checked at parse. */
static fdw_status read_heights(const fdw_spec *s, const char *path, float *hgt, fdw_error *err)
{
    const size_t n = (size_t)s->nx * (size_t)s->ny;
    FILE *f = fopen(path, "rb");
    if (!f)
        return fdw_fail(err, FDW_ERR_IO, "initial.surface.path", "cannot open %s: %s", path,
                        strerror(errno));
    const size_t got = fread(hgt, sizeof(float), n, f);
    fclose(f);
    if (got != n)
        return fdw_fail(err, FDW_ERR_IO, "initial.surface.path",
                        "%s holds %zu heights, %zu expected (nx * ny); was it changed after "
                        "the job was submitted?", path, got, n);
    return FDW_OK;
}

/* The surface z = h(x, y): per column, the nodes within one cell of its tangent plane. */
static fdw_status init_surface(const fdw_spec *s, const fdw_sweep_spec *k,
                               const fdw_sweep_data *d, double *t, fdw_error *err)
{
    const sweep_surface *sf = &k->surface;
    const double h[3] = {s->dx, s->dy, s->dz};
    float *hgt = NULL;
    if (sf->type == SWEEP_SURF_FILE) {
        hgt = fdw_problem_alloc((size_t)s->nx * (size_t)s->ny, sizeof(float), "the heights", err);
        if (!hgt)
            return FDW_ERR_NOMEM;
        fdw_status st = read_heights(s, sf->path, hgt, err);
        if (st != FDW_OK) {
            free(hgt);
            return st;
        }
    }
#pragma omp parallel for schedule(static)
    for (int j = 0; j < s->ny; j++)
        for (int i = 0; i < s->nx; i++) {
            double z, gx, gy;
            if (hgt) { /* slopes by central differences, one-sided at the edges */
                const size_t q = (size_t)i + (size_t)s->nx * j;
                const int il = i > 0 ? i - 1 : i, ir = i < s->nx - 1 ? i + 1 : i;
                const int jl = j > 0 ? j - 1 : j, jr = j < s->ny - 1 ? j + 1 : j;
                z = hgt[q];
                gx = ir > il ? (hgt[(size_t)ir + (size_t)s->nx * j] -
                                hgt[(size_t)il + (size_t)s->nx * j]) / ((ir - il) * h[0])
                             : 0.0;
                gy = jr > jl ? (hgt[(size_t)i + (size_t)s->nx * jr] -
                                hgt[(size_t)i + (size_t)s->nx * jl]) / ((jr - jl) * h[1])
                             : 0.0;
            } else {
                z = sweep_surface_height(sf, s->origin[0] + i * h[0], s->origin[1] + j * h[1],
                                         &gx, &gy);
            }
            const double len = hypot(1.0, hypot(gx, gy)); /* steep slopes: no overflow */
            const double nrm[3] = {-gx / len, -gy / len, 1.0 / len};
            const double band = fabs(nrm[0]) * h[0] + fabs(nrm[1]) * h[1] + fabs(nrm[2]) * h[2];
            /* s = nrm_z (z_k - z): the nodes with |s| <= band; clamped before the
             * conversion, as a steep slope makes the reach vast */
            const double reach = band / nrm[2];
            const double lo = fmax(ceil((z - reach - s->origin[2]) / h[2]), 0.0);
            const double hi = fmin(floor((z + reach - s->origin[2]) / h[2]), s->nz - 1.0);
            if (!(lo <= hi))
                continue;
            for (int kk = (int)lo; kk <= (int)hi; kk++) {
                const size_t q = (size_t)i + (size_t)s->nx * ((size_t)j + (size_t)s->ny * kk);
                const double dist = nrm[2] * (s->origin[2] + kk * h[2] - z);
                put_min(t, q, sf->t0 + plane_time(d, speed_at(d, k, q), nrm, dist));
            }
        }
    free(hgt);
    return FDW_OK;
}

/* The initial times of a volume file, the min with what is there. */
typedef struct times_into {
    double *t;
    uint64_t bad;
    int found;
} times_into;

static int take_chunk(void *user, uint64_t first, const double *v, size_t n)
{
    times_into *ti = user;
    for (size_t q = 0; q < n; q++) {
        if (isnan(v[q]) || v[q] == -INFINITY) {
            ti->bad = first + q;
            ti->found = 1;
            return 1;
        }
        put_min(ti->t, first + q, v[q]);
    }
    return 0;
}

/* The initial-time volume (checked sample by sample at parse; checked again here, in case
 * the file changed since). */
static fdw_status init_volume(const fdw_spec *s, const fdw_sweep_spec *k, double *t,
                              fdw_error *err)
{
    times_into ti = {t, 0, 0};
    const int rc = sweep_read_times(k->volume_path, k->volume_f64, fdw_spec_points(s),
                                    take_chunk, &ti);
    if (rc < 0)
        return fdw_fail(err, FDW_ERR_IO, "initial.volume.path",
                        "cannot read %s in full; was it changed after the job was submitted?",
                        k->volume_path);
    if (ti.found)
        return fdw_fail(err, FDW_ERR_SPEC, "initial.volume.path",
                        "sample %llu of %s is NaN or -inf; was the file changed after the job "
                        "was submitted?", (unsigned long long)ti.bad, k->volume_path);
    return FDW_OK;
}

static void sweep_problem_data_free(fdw_sweep_data *d)
{
    if (!d)
        return;
    free(d->t0);
    free(d->speed);
    free(d);
}

void sweep_free_problem(fdw_problem *prob)
{
    sweep_problem_data_free((fdw_sweep_data *)prob->kdata);
    prob->kdata = NULL;
}

sweep_metric sweep_spec_metric(const fdw_sweep_spec *k)
{
    sweep_metric m = {.field = k->field, .F = k->field ? 1.0 : k->F};
    for (int a = 0; a < 3; a++)
        m.b[a] = k->field ? 0.0 : k->psi * k->a[a];
    return m;
}

fdw_status sweep_build(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    const fdw_sweep_spec *k = spec->kspec;
    const size_t n = (size_t)fdw_spec_points(spec);
    fdw_sweep_data *d = fdw_problem_alloc(1, sizeof *d, "the sweep's constants", err);
    if (!d)
        return FDW_ERR_NOMEM;
    prob->kdata = d;
    d->precision = k->precision;
    d->sweeps_auto = k->sweeps_auto;
    d->tolerance = k->tolerance;
    d->metric = sweep_spec_metric(k);
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    for (int dir = 0; dir < 6; dir++) {
        sweep_geometry(h, dir / 2, dir % 2 ? -1 : 1, &d->metric, &d->geo[dir]);
        sweep_geometry_float(&d->geo[dir], &d->geo_f[dir]);
    }
    fdw_status st = FDW_OK;
    if (k->field) {
        float *v = fdw_problem_alloc(n, sizeof(float), "the F field", err);
        if (!v)
            return FDW_ERR_NOMEM;
        d->speed = v;
        st = fdw_model_load(spec, v, err);
        if (st != FDW_OK)
            return st;
    }
    double *t = fdw_problem_alloc(n, sizeof(double), "the initial times", err);
    if (!t)
        return FDW_ERR_NOMEM;
    d->t0 = t;
#pragma omp parallel for schedule(static)
    for (size_t q = 0; q < n; q++)
        t[q] = INFINITY;
    if (k->volume_given)
        st = init_volume(spec, k, t, err);
    if (st == FDW_OK) {
        init_points(spec, k, d, t);
        init_planes(spec, k, d, t);
        if (k->surface.type != SWEEP_SURF_NONE)
            st = init_surface(spec, k, d, t, err);
    }
    return st;
}
