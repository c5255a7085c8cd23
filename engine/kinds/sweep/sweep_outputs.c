/* sweep_outputs.c — what a sweep run leaves: the first-arrival times T as a raw volume
 * (float64 or float32, +inf where the front never arrives), one PNG per requested slice
 * coloured from the earliest to the latest time with isochrons drawn (darkened pixels where
 * T crosses a multiple of the interval; unreached cells grey), the convergence record of
 * every sweep in manifest.json ("convergence"), and the result's summary members. */
#include "kinds/sweep/sweep.h"

#include "core/error.h"
#include "output/outputs.h"
#include "run/run_state.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One slice image: T, the grid, the slice, the colour range and the isochron spacing. */
typedef struct slice_img {
    const double *T;
    int nx, ny, nz;
    fdw_slice sl;
    double tmin, tmax, step;   /* step 0: no isochrons */
} slice_img;

static int img_width(const slice_img *im)
{
    return im->sl.plane == FDW_PLANE_YZ ? im->ny : im->nx;
}

static int img_height(const slice_img *im)
{
    return im->sl.plane == FDW_PLANE_XY ? im->ny : im->nz;
}

/* T at column x, row y of the image (xy: rows along y; xz, yz: rows along z, depth down). */
static double img_at(const slice_img *im, int x, int y)
{
    size_t i, j, k;
    switch (im->sl.plane) {
    case FDW_PLANE_XY: i = (size_t)x; j = (size_t)y; k = (size_t)im->sl.index; break;
    case FDW_PLANE_XZ: i = (size_t)x; j = (size_t)im->sl.index; k = (size_t)y; break;
    default: i = (size_t)im->sl.index; j = (size_t)x; k = (size_t)y; break;
    }
    return im->T[i + (size_t)im->nx * (j + (size_t)im->ny * k)];
}

/* A perceptually ordered ramp (viridis' ends and three points between) at u in [0, 1]. */
static void ramp(double u, unsigned char *rgb)
{
    static const unsigned char P[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140},
                                          {94, 201, 98}, {253, 231, 37}};
    u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
    const double x = u * 4.0;
    const int a = x >= 4.0 ? 3 : (int)x;
    const double f = x - a;
    for (int c = 0; c < 3; c++)
        rgb[c] = (unsigned char)lround(P[a][c] + f * (P[a + 1][c] - P[a][c]));
}

static long band(const slice_img *im, double t)
{
    return (long)floor((t - im->tmin) / im->step);
}

static void img_row(void *user, int y, int w, unsigned char *rgb)
{
    const slice_img *im = user;
    const int h = img_height(im);
    const double span = im->tmax > im->tmin ? im->tmax - im->tmin : 1.0;
    for (int x = 0; x < w; x++) {
        unsigned char *px = rgb + 3 * x;
        const double t = img_at(im, x, y);
        if (!isfinite(t)) {
            px[0] = px[1] = px[2] = 128;
            continue;
        }
        ramp((t - im->tmin) / span, px);
        if (im->step > 0.0) {
            const long b = band(im, t);
            const double tr = x + 1 < w ? img_at(im, x + 1, y) : t;
            const double td = y + 1 < h ? img_at(im, x, y + 1) : t;
            if ((isfinite(tr) && band(im, tr) != b) || (isfinite(td) && band(im, td) != b))
                for (int c = 0; c < 3; c++) /* darkened, so dense lines keep their colour */
                    px[c] = (unsigned char)(px[c] * 3 / 10);
        }
    }
}

static const char *plane_name(fdw_plane p)
{
    return p == FDW_PLANE_XY ? "xy" : p == FDW_PLANE_XZ ? "xz" : "yz";
}

/* The slice images with isochrons, each listed in the manifest. */
static fdw_status write_slices(fdw_run_state *r, const double *T, double tmin, double tmax,
                               fdw_error *err)
{
    const fdw_spec *s = r->spec;
    const fdw_sweep_spec *k = s->kspec;
    for (int q = 0; q < k->nslices; q++) {
        slice_img im = {T, s->nx, s->ny, s->nz, k->slices[q], tmin, tmax, 0.0};
        if (k->isochron_interval > 0.0)
            im.step = k->isochron_interval;
        else if (k->isochrons > 0 && tmax > tmin)
            im.step = (tmax - tmin) / (k->isochrons + 1);
        const char axis = im.sl.plane == FDW_PLANE_XY ? 'k' : im.sl.plane == FDW_PLANE_XZ ? 'j'
                                                                                          : 'i';
        char name[64], path[FDW_PATH_MAX + 80], desc[256];
        snprintf(name, sizeof name, "T_%s_%c%d.png", plane_name(im.sl.plane), axis,
                 im.sl.index);
        snprintf(path, sizeof path, "%s/%s", r->opts->out_dir, name);
        fdw_status st = fdw_write_png_rgb(path, img_width(&im), img_height(&im), img_row, &im,
                                          err);
        if (st != FDW_OK)
            return st;
        snprintf(desc, sizeof desc,
                 "first-arrival times on the %s plane at %c = %d: %.4g s (dark) to %.4g s "
                 "(light), isochrons every %.4g s, grey where the front never arrives",
                 plane_name(im.sl.plane), axis, im.sl.index, tmin, tmax, im.step);
        const long dims[2] = {img_width(&im), img_height(&im)};
        fdw_manifest_add(r->manifest, name, "slice", "png", desc, 2, dims, "s", r->steps_done,
                         -1.0);
    }
    return FDW_OK;
}

/* T as the spec asks (float64 or float32). */
static fdw_status write_volume(fdw_run_state *r, const double *T, fdw_error *err)
{
    const fdw_spec *s = r->spec;
    const fdw_sweep_spec *k = s->kspec;
    const size_t n = (size_t)fdw_spec_points(s);
    if (k->out_volume == SWEEP_OUT_NONE)
        return FDW_OK;
    const int f64 = k->out_volume == SWEEP_OUT_F64;
    const char *name = f64 ? "T.f64" : "T.f32";
    char path[FDW_PATH_MAX + 16], desc[200];
    snprintf(path, sizeof path, "%s/%s", r->opts->out_dir, name);
    fdw_status st;
    if (f64) {
        st = fdw_write_raw_f64(path, T, n, err);
    } else {
        float *f = malloc(n * sizeof(float));
        if (!f)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for T as float32 "
                            "(%.1f MiB)", (double)n * 4.0 / 1048576.0);
        for (size_t q = 0; q < n; q++)
            f[q] = (float)T[q];
        st = fdw_write_raw_f32(path, f, n, err);
        free(f);
    }
    if (st != FDW_OK)
        return st;
    snprintf(desc, sizeof desc, "first-arrival times T after %ld sweeps, %s little-endian, x "
             "fastest, +inf where the front never arrives", r->steps_done,
             f64 ? "float64" : "float32");
    const long dims[3] = {s->nx, s->ny, s->nz};
    fdw_manifest_add(r->manifest, name, "field", f64 ? "raw-f64" : "raw-f32", desc, 3, dims,
                     "s", r->steps_done, -1.0);
    return FDW_OK;
}

/* manifest.json's "convergence": the figures of every sweep. */
static fdw_status write_convergence(fdw_run_state *r, const sweep_stats *log, long n,
                                    int converged, fdw_error *err)
{
    const fdw_sweep_data *d = r->prob.kdata;
    json_t *per = json_array();
    for (long q = 0; q < n; q++) {
        double secs = 0.0;
        for (int op = 0; op < SWEEP_NOPS; op++)
            secs += log[q].op_s[op];
        json_array_append_new(
            per, json_pack("{sIsfsIsIsIsf}", "sweep", (json_int_t)(q + 1), "max_change",
                           log[q].max_change, "changed", (json_int_t)log[q].changed, "reached",
                           (json_int_t)log[q].reached, "computed", (json_int_t)log[q].computed,
                           "seconds", secs));
    }
    json_t *c = json_pack("{sIsbsbsfso}", "sweeps", (json_int_t)n, "auto", d->sweeps_auto,
                          "converged", converged, "tolerance", d->tolerance, "per_sweep", per);
    char *text = c ? json_dumps(c, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(c);
    if (!text)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory for the convergence record");
    fdw_manifest_set_json(r->manifest, "convergence", text);
    free(text);
    return FDW_OK;
}

fdw_status sweep_write_outputs(fdw_run_state *r, const sweep_stats *log, long n, char *extra,
                               size_t len, fdw_error *err)
{
    const fdw_sweep_data *d = r->prob.kdata;
    const sweep_engine *e = r->ctx;
    const size_t N = (size_t)fdw_spec_points(r->spec);
    double *T = malloc(N * sizeof(double));
    if (!T)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for T (%.1f MiB)",
                        (double)N * 8.0 / 1048576.0);
    fdw_status st = e->fetch(r->ctx, T, 1, err);
    double tmin = INFINITY, tmax = -INFINITY;
    unsigned long long unreached = 0;
    for (size_t q = 0; st == FDW_OK && q < N; q++) {
        if (isfinite(T[q])) {
            tmin = fmin(tmin, T[q]);
            tmax = fmax(tmax, T[q]);
        } else {
            unreached++;
        }
    }
    const int converged = n > 0 && sweep_converged(d, &log[n - 1]);
    if (st == FDW_OK)
        st = write_volume(r, T, err);
    if (st == FDW_OK && tmin <= tmax)
        st = write_slices(r, T, tmin, tmax, err);
    if (st == FDW_OK)
        st = write_convergence(r, log, n, converged, err);
    free(T);
    if (st != FDW_OK)
        return st;
    if (d->sweeps_auto && !converged)
        fdw_run_log(r, FDW_LOG_WARN, "sweeps \"auto\" stopped at max_sweeps = %ld without "
                    "converging (the last sweep changed %llu values, the largest by %.3e)",
                    n, n > 0 ? (unsigned long long)log[n - 1].changed : 0ULL,
                    n > 0 ? log[n - 1].max_change : 0.0);
    snprintf(extra, len, ", \"sweeps\": %ld, \"converged\": %s, \"t_min\": %.17g, \"t_max\": "
             "%.17g, \"unreached\": %llu", n, converged ? "true" : "false",
             tmin <= tmax ? tmin : 0.0, tmin <= tmax ? tmax : 0.0, unreached);
    return FDW_OK;
}
