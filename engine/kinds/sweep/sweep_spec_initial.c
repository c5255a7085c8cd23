/* sweep_spec_initial.c — the sweep kind's "initial" section: the surface Gamma0 the front
 * starts on, as points (each with its t0), planes, a height-field surface z = h(x, y)
 * (analytic sinusoid or a raw float32 file of nx * ny heights) and/or a whole volume of
 * initial times (raw float32 or float64, +inf where unknown). Each part is checked against
 * the grid (inside it, crossing it), files by size before they are read and then sample by
 * sample (NaN, -inf, nothing finite); an empty Gamma0 is refused. */
#include "kinds/sweep/sweep.h"
#include "spec/spec_parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const SURFACES[] = {"sinusoid", "file", NULL};
static const char *const VOLUME_FORMATS[] = {"raw-f32", "raw-f64", NULL};

#define SCAN_CHUNK 65536

/* The grid box's extent along axis a. */
static void box(const fdw_spec *s, int a, double *lo, double *hi)
{
    const int n[3] = {s->nx, s->ny, s->nz};
    const double h[3] = {s->dx, s->dy, s->dz};
    *lo = s->origin[a];
    *hi = s->origin[a] + (n[a] - 1) * h[a];
}

/* A list member's n entries of size bytes each (zeroed; one at least), its normalised
 * array as name in norm (*out); NULL, failed at field, out of memory. */
static void *begin_list(spec_ctx *c, size_t n, size_t size, const char *field, json_t *norm,
                        const char *name, json_t **out)
{
    void *items = calloc(n ? n : 1, size);
    if (!items) {
        sp_fail(c, field, "out of memory");
        return NULL;
    }
    *out = json_array();
    json_object_set_new(norm, name, *out);
    return items;
}

static int parse_points(spec_ctx *c, fdw_sweep_spec *k, const json_t *arr, json_t *norm)
{
    static const char *const keys[] = {"position", "t0", NULL};
    const size_t n = json_array_size(arr);
    json_t *out;
    if (!(k->points = begin_list(c, n, sizeof *k->points, "initial.points", norm, "points",
                                 &out)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        char path[SP_PATH];
        const json_t *e = json_array_get(arr, i);
        sweep_point_src *p = &k->points[i];
        sp_idx(path, "initial.points", i);
        if (sp_entry(c, e, path, "{\"position\", \"t0\"}", keys) ||
            sp_position(c, e, path, "position", p->pos, "initial point %zu", i) ||
            sp_num(c, e, path, "t0", 0, &p->t0))
            return -1;
        k->npoints = (int)i + 1;
        json_array_append_new(out, json_pack("{sosf}", "position", sp_json_vec3(p->pos), "t0",
                                             p->t0));
    }
    return 0;
}

/* A plane must cross the grid box (the corners on both sides of it, or on it). */
static int parse_planes(spec_ctx *c, fdw_sweep_spec *k, const json_t *arr, json_t *norm)
{
    static const char *const keys[] = {"point", "normal", "t0", NULL};
    const fdw_spec *s = c->spec;
    const size_t n = json_array_size(arr);
    json_t *out;
    if (!(k->planes = begin_list(c, n, sizeof *k->planes, "initial.planes", norm, "planes",
                                 &out)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        char path[SP_PATH], field[SP_PATH];
        const json_t *e = json_array_get(arr, i);
        sweep_plane_src *p = &k->planes[i];
        sp_idx(path, "initial.planes", i);
        if (sp_entry(c, e, path, "{\"point\", \"normal\", \"t0\"}", keys) ||
            sp_vec3(c, e, path, "point", 1, p->point) ||
            sp_vec3(c, e, path, "normal", 1, p->normal) || sp_num(c, e, path, "t0", 0, &p->t0))
            return -1;
        const double len = sweep_length(p->normal);
        sp_key(field, path, "normal");
        if (!(len > 0.0) || !isfinite(len))
            return sp_fail(c, field, "%s must be a non-zero vector", field);
        for (int a = 0; a < 3; a++)
            p->normal[a] /= len;
        double smin = INFINITY, smax = -INFINITY;
        for (int corner = 0; corner < 8; corner++) {
            double d = 0.0;
            for (int a = 0; a < 3; a++) {
                double lo, hi;
                box(s, a, &lo, &hi);
                d += p->normal[a] * (((corner >> a) & 1 ? hi : lo) - p->point[a]);
            }
            smin = fmin(smin, d);
            smax = fmax(smax, d);
        }
        if (smin > 0.0 || smax < 0.0)
            return sp_fail(c, path, "%s does not cross the grid: every grid corner lies on "
                           "the same side of it (%.4g to %.4g m away)", path,
                           smin > 0.0 ? smin : -smax, smin > 0.0 ? smax : -smin);
        k->nplanes = (int)i + 1;
        json_array_append_new(out, json_pack("{sososf}", "point", sp_json_vec3(p->point),
                                             "normal", sp_json_vec3(p->normal), "t0", p->t0));
    }
    return 0;
}

/* A file of exactly want bytes: FDW_OK, or a spec error on field. */
static int check_size(spec_ctx *c, const char *field, const char *path, uint64_t want,
                      const char *what)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return sp_fail(c, field, "cannot read %s: %s", path, strerror(errno));
    if ((uint64_t)st.st_size != want)
        return sp_fail(c, field,
                       "%s holds %llu bytes but %s needs %llu: the file does not match the "
                       "grid", field, (unsigned long long)st.st_size, what,
                       (unsigned long long)want);
    return 0;
}

/* Heights (nx * ny float32, x fastest): finite, and the surface meets the grid's z range. */
static int scan_heights(spec_ctx *c, const char *field, const char *path)
{
    const fdw_spec *s = c->spec;
    const uint64_t n = (uint64_t)s->nx * (uint64_t)s->ny;
    if (check_size(c, field, path, n * 4, "a height field of nx * ny float32 values"))
        return -1;
    FILE *f = fopen(path, "rb");
    float *buf = malloc(SCAN_CHUNK * sizeof(float));
    int rc = 0;
    double hmin = INFINITY, hmax = -INFINITY;
    if (!f || !buf) {
        rc = sp_fail(c, field, "cannot read %s: %s", path, f ? "out of memory" : strerror(errno));
        goto out;
    }
    for (uint64_t at = 0; at < n;) {
        const size_t want = n - at < SCAN_CHUNK ? (size_t)(n - at) : SCAN_CHUNK;
        if (fread(buf, sizeof(float), want, f) != want) {
            rc = sp_fail(c, field, "%s: the file ended early", field);
            goto out;
        }
        for (size_t q = 0; q < want; q++) {
            if (!isfinite(buf[q])) {
                const uint64_t idx = at + q;
                rc = sp_fail(c, field, "%s: height %llu (i = %llu, j = %llu) is %s; every "
                             "height must be a finite z in metres", field,
                             (unsigned long long)idx, (unsigned long long)(idx % s->nx),
                             (unsigned long long)(idx / s->nx), isnan(buf[q]) ? "NaN" : "infinite");
                goto out;
            }
            hmin = fmin(hmin, buf[q]);
            hmax = fmax(hmax, buf[q]);
        }
        at += want;
    }
    double zlo, zhi;
    box(s, 2, &zlo, &zhi);
    if (hmax < zlo - s->dz || hmin > zhi + s->dz)
        rc = sp_fail(c, field, "%s: the heights (%g to %g m) lie outside the grid's z range "
                     "(%g to %g m): the surface does not meet the grid", field, hmin, hmax,
                     zlo, zhi);
out:
    if (f)
        fclose(f);
    free(buf);
    return rc;
}

/* An array of 2 finite numbers at obj.key (default kept when absent). */
static int pair(spec_ctx *c, const json_t *obj, const char *key, double out[2])
{
    char field[SP_PATH];
    sp_key(field, "initial.surface", key);
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    if (!json_is_array(v) || json_array_size(v) != 2)
        return sp_fail(c, field, "%s must be an array of 2 numbers [x, y]", field);
    for (size_t i = 0; i < 2; i++) {
        char f[SP_PATH];
        sp_idx(f, field, i);
        if (sp_value_num(c, json_array_get(v, i), f, &out[i]))
            return -1;
    }
    return 0;
}

static int parse_surface(spec_ctx *c, fdw_sweep_spec *k, const json_t *o, json_t *norm)
{
    static const char *const skeys[] = {"type", "z0", "amplitude", "wavelength", "phase",
                                        "t0", NULL};
    static const char *const fkeys[] = {"type", "path", "format", "t0", NULL};
    static const char *const formats[] = {"raw-f32", NULL};
    const fdw_spec *s = c->spec;
    sweep_surface *sf = &k->surface;
    int type = 0, fmt = 0;
    if (sp_enum(c, o, "initial.surface", "type", 1, SURFACES, &type))
        return -1;
    sf->t0 = 0.0;
    json_t *out = json_pack("{ss}", "type", SURFACES[type]);
    json_object_set_new(norm, "surface", out);
    if (type == 1) {
        char given[FDW_PATH_MAX];
        sf->type = SWEEP_SURF_FILE;
        if (sp_keys(c, o, "initial.surface", fkeys) ||
            sp_enum(c, o, "initial.surface", "format", 0, formats, &fmt) ||
            sp_string(c, o, "initial.surface", "path", 1, given, sizeof given) ||
            sp_num(c, o, "initial.surface", "t0", 0, &sf->t0) ||
            sp_resolve_path(c, "initial.surface.path", given, FDW_FILE_KIND_DATA, "raw-f32", 1,
                            NULL, sf->path) ||
            scan_heights(c, "initial.surface.path", sf->path))
            return -1;
        json_object_set_new(out, "path", json_string(sf->path));
        json_object_set_new(out, "format", json_string("raw-f32"));
        json_object_set_new(out, "t0", json_real(sf->t0));
        return 0;
    }
    sf->type = SWEEP_SURF_SINUSOID;
    if (sp_keys(c, o, "initial.surface", skeys) ||
        sp_num(c, o, "initial.surface", "z0", 1, &sf->z0) ||
        sp_num(c, o, "initial.surface", "t0", 0, &sf->t0) || pair(c, o, "amplitude", sf->amp) ||
        pair(c, o, "wavelength", sf->wavelength) || pair(c, o, "phase", sf->phase))
        return -1;
    for (int a = 0; a < 2; a++)
        if (sf->wavelength[a] < 0.0) {
            char f[SP_PATH];
            snprintf(f, sizeof f, "initial.surface.wavelength[%d]", a);
            return sp_fail(c, f, "%s is %g m but must be > 0 (or 0: no variation along %c)", f,
                           sf->wavelength[a], "xy"[a]);
        }
    for (int a = 0; a < 2; a++) {
        const double h = a ? s->dy : s->dx;
        if (sf->wavelength[a] > 0.0 && sf->wavelength[a] < 2.0 * h) {
            char f[SP_PATH];
            snprintf(f, sizeof f, "initial.surface.wavelength[%d]", a);
            return sp_fail(c, f, "%s is %g m, less than two grid spacings (%g m along %c): the "
                           "grid cannot resolve the surface (the nodes near it get their "
                           "times from its local tangent plane)", f, sf->wavelength[a], 2.0 * h,
                           "xy"[a]);
        }
    }
    double hmin = INFINITY, hmax = -INFINITY;
    for (int j = 0; j < s->ny; j++)
        for (int i = 0; i < s->nx; i++) {
            const double x = s->origin[0] + i * s->dx, y = s->origin[1] + j * s->dy;
            double gx, gy;
            const double h = sweep_surface_height(sf, x, y, &gx, &gy);
            if (!isfinite(h) || !isfinite(gx) || !isfinite(gy))
                return sp_fail(c, "initial.surface",
                               "the sinusoid's height at (x, y) = (%g, %g) m is %g, its "
                               "slope (%g, %g): its amplitude, wavelength or phase is too "
                               "large or too small for float64", x, y, h, gx, gy);
            hmin = fmin(hmin, h);
            hmax = fmax(hmax, h);
        }
    double zlo, zhi;
    box(s, 2, &zlo, &zhi);
    if (!isfinite(hmin) || !isfinite(hmax) || hmax < zlo - s->dz || hmin > zhi + s->dz)
        return sp_fail(c, "initial.surface.z0", "the surface's heights (%g to %g m) lie "
                       "outside the grid's z range (%g to %g m): it does not meet the grid",
                       hmin, hmax, zlo, zhi);
    json_object_set_new(out, "z0", json_real(sf->z0));
    json_object_set_new(out, "amplitude", json_pack("[ff]", sf->amp[0], sf->amp[1]));
    json_object_set_new(out, "wavelength", json_pack("[ff]", sf->wavelength[0],
                                                     sf->wavelength[1]));
    json_object_set_new(out, "phase", json_pack("[ff]", sf->phase[0], sf->phase[1]));
    json_object_set_new(out, "t0", json_real(sf->t0));
    return 0;
}

/* The scan of an initial-time volume: the first bad sample, and the finite ones. */
typedef struct times_scan {
    uint64_t bad, finite;
    double bad_value;
    double most;               /* the largest |finite time| */
    int found;
} times_scan;

static int scan_chunk(void *user, uint64_t first, const double *v, size_t n)
{
    times_scan *ts = user;
    for (size_t q = 0; q < n; q++) {
        if (isnan(v[q]) || v[q] == -INFINITY) {
            ts->bad = first + q;
            ts->bad_value = v[q];
            ts->found = 1;
            return 1;
        }
        if (v[q] != INFINITY) {
            ts->finite++;
            ts->most = fmax(ts->most, fabs(v[q]));
        }
    }
    return 0;
}

/* An initial-time volume: nx * ny * nz samples, finite or +inf, at least one finite. */
static int scan_volume(spec_ctx *c, fdw_sweep_spec *k)
{
    const char *field = "initial.volume.path";
    const fdw_spec *s = c->spec;
    const uint64_t n = fdw_spec_points(s);
    if (check_size(c, field, k->volume_path, n * (k->volume_f64 ? 8 : 4),
                   k->volume_f64 ? "nx * ny * nz float64 values" : "nx * ny * nz float32 values"))
        return -1;
    times_scan ts = {0, 0, 0.0, 0.0, 0};
    const int rc = sweep_read_times(k->volume_path, k->volume_f64, n, scan_chunk, &ts);
    if (rc < 0)
        return sp_fail(c, field, "cannot read %s: %s", k->volume_path, strerror(errno));
    if (ts.found) {
        const uint64_t plane = (uint64_t)s->nx * (uint64_t)s->ny;
        return sp_fail(c, field, "%s: sample %llu (i = %llu, j = %llu, k = %llu) is %s; "
                       "initial times are finite, or +inf where unknown", field,
                       (unsigned long long)ts.bad, (unsigned long long)(ts.bad % s->nx),
                       (unsigned long long)(ts.bad % plane / s->nx),
                       (unsigned long long)(ts.bad / plane), isnan(ts.bad_value) ? "NaN" : "-inf");
    }
    if (ts.finite == 0)
        return sp_fail(c, field, "%s holds no finite time: every sample is +inf (unknown), so "
                       "the front starts nowhere", field);
    k->volume_most = ts.most;
    return 0;
}

static int parse_volume(spec_ctx *c, fdw_sweep_spec *k, const json_t *o, json_t *norm)
{
    static const char *const keys[] = {"path", "format", NULL};
    char given[FDW_PATH_MAX];
    int fmt = 1;
    if (sp_keys(c, o, "initial.volume", keys) ||
        sp_string(c, o, "initial.volume", "path", 1, given, sizeof given) ||
        sp_enum(c, o, "initial.volume", "format", 0, VOLUME_FORMATS, &fmt) ||
        sp_resolve_path(c, "initial.volume.path", given, FDW_FILE_KIND_DATA,
                        VOLUME_FORMATS[fmt], 1, NULL, k->volume_path))
        return -1;
    k->volume_f64 = fmt == 1;
    k->volume_given = 1;
    if (scan_volume(c, k))
        return -1;
    json_object_set_new(norm, "volume", json_pack("{ssss}", "path", k->volume_path, "format",
                                                  VOLUME_FORMATS[fmt]));
    return 0;
}

int sweep_parse_initial(spec_ctx *c, fdw_sweep_spec *k, const json_t *root)
{
    static const char *const keys[] = {"points", "planes", "surface", "volume", NULL};
    json_t *o, *points = NULL, *planes = NULL, *surface = NULL, *volume = NULL;
    if (sp_object(c, root, "", "initial", 1, &o) || sp_keys(c, o, "initial", keys) ||
        sp_array(c, o, "initial", "points", 0, &points) ||
        sp_array(c, o, "initial", "planes", 0, &planes) ||
        sp_object(c, o, "initial", "surface", 0, &surface) ||
        sp_object(c, o, "initial", "volume", 0, &volume))
        return -1;
    const size_t np = points ? json_array_size(points) : 0;
    const size_t nq = planes ? json_array_size(planes) : 0;
    if (np + nq == 0 && !surface && !volume)
        return sp_fail(c, "initial", "Gamma0 is empty: give at least one of initial.points, "
                       "initial.planes, initial.surface or initial.volume");
    if ((long long)(np + nq) > sp_max_sources(c))
        return sp_fail(c, np ? "initial.points" : "initial.planes",
                       "%zu points and planes given; at most %ld are allowed", np + nq,
                       sp_max_sources(c));
    json_t *norm = json_object();
    json_object_set_new(c->norm, "initial", norm);
    if ((np && parse_points(c, k, points, norm)) || (nq && parse_planes(c, k, planes, norm)) ||
        (surface && parse_surface(c, k, surface, norm)) ||
        (volume && parse_volume(c, k, volume, norm)))
        return -1;
    return 0;
}
