/* model_io.c — the public face of velocity models (model_io.h): scan a model named by a
 * spec (geometry and values checked, extremes found) and load it into a grid array.
 * File formats live in model_raw.c, model_segy.c, model_rsf.c; analytic models in
 * model_analytic.c. This file holds the dispatch and the per-sample check they share. */
#include "model/model_io.h"
#include "model/model_formats.h"
#include "core/error.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* A sink for an nx*ny*nz grid (0: learn the grid from the file), into out (NULL: scan). */
static void fdw_sink_init(fdw_model_sink *s, int nx, int ny, int nz, float *out,
                          const char *field, const char *path)
{
    s->nx = nx;
    s->ny = ny;
    s->nz = nz;
    s->out = out;
    s->vmin = INFINITY;
    s->vmax = -INFINITY;
    s->field = field;
    s->path = path;
    s->data_path = NULL;
}

fdw_status fdw_sink_put(fdw_model_sink *s, const float *vals, size_t n, uint64_t first,
                        uint64_t stride, fdw_error *err)
{
    float lo = INFINITY, hi = -INFINITY;
    for (size_t q = 0; q < n; q++) {
        float v = vals[q];
        /* !(v > 0) also catches NaN; isinf catches +inf. */
        if (!(v > 0.0f) || isinf(v)) {
            uint64_t idx = first + (uint64_t)q * stride;
            uint64_t nxy = (uint64_t)s->nx * (uint64_t)s->ny;
            long i = (long)(idx % (uint64_t)s->nx);
            long j = (long)((idx / (uint64_t)s->nx) % (uint64_t)s->ny);
            long k = (long)(idx / nxy);
            return fdw_fail(err, FDW_ERR_SPEC, s->field,
                            "velocity sample (i, j, k) = (%ld, %ld, %ld) of %s is %g; "
                            "velocities must be positive and finite (m/s)",
                            i, j, k, s->path, (double)v);
        }
        if (v < lo)
            lo = v;
        if (v > hi)
            hi = v;
    }
    if (n > 0) {
        if (lo < s->vmin)
            s->vmin = lo;
        if (hi > s->vmax)
            s->vmax = hi;
    }
    if (s->out) {
        if (stride == 1) {
            memcpy(s->out + first, vals, n * sizeof *vals);
        } else {
            for (size_t q = 0; q < n; q++)
                s->out[first + (uint64_t)q * stride] = vals[q];
        }
    }
    return FDW_OK;
}

fdw_status fdw_model_fit(const fdw_model_info *info, fdw_model_sink *s,
                         const fdw_model_grid_h *h, fdw_error *err)
{
    const char *path = s->path, *field = s->field;
    const int segy = strcmp(info->format, "segy") == 0, rsf = strcmp(info->format, "rsf") == 0;
    if (info->nvalues == 0)
        return fdw_fail(err, FDW_ERR_SPEC, field, "model file %s holds no samples", path);
    if (s->nx == 0) { /* learn: the file's geometry becomes the grid */
        if (info->nx > 0 && info->ny > 0 && info->nz > 0) {
            s->nx = info->nx;
            s->ny = info->ny;
            s->nz = info->nz;
        } else if (info->nz > 0) { /* SEG-Y without line numbers: traces along x */
            s->nx = (int)(info->nvalues / (uint64_t)info->nz);
            s->ny = 1;
            s->nz = info->nz;
        } else if (info->nvalues <= INT_MAX) { /* raw: one flat axis */
            s->nx = (int)info->nvalues;
            s->ny = s->nz = 1;
        } else {
            s->nx = 1 << 30;
            s->ny = (int)((info->nvalues + (1u << 30) - 1) >> 30);
            s->nz = 1;
        }
        return FDW_OK;
    }
    const uint64_t want = (uint64_t)s->nx * (uint64_t)s->ny * (uint64_t)s->nz;
    if (segy) {
        if (info->nx > 0 && (info->ny != s->ny || info->nx != s->nx || info->nz != s->nz))
            return fdw_fail(err, FDW_ERR_SPEC, field,
                            "SEG-Y %s has %d inlines x %d crosslines x %d samples; the grid "
                            "needs ny=%d x nx=%d x nz=%d (inline = y, crossline = x, samples = "
                            "z)",
                            path, info->ny, info->nx, info->nz, s->ny, s->nx, s->nz);
        if (info->nx == 0 && (info->nvalues != want || info->nz != s->nz))
            return fdw_fail(err, FDW_ERR_SPEC, field,
                            "SEG-Y %s has %llu traces without inline/crossline numbers x %d "
                            "samples; the grid needs nx*ny = %ld traces x nz=%d samples",
                            path, (unsigned long long)(info->nvalues / (uint64_t)info->nz),
                            info->nz, (long)s->nx * s->ny, s->nz);
        if (info->dz != 0 && fabs(info->dz * 1000.0 - h->dz * 1000.0) > 0.5)
            return fdw_fail(err, FDW_ERR_SPEC, field,
                            "SEG-Y %s has sample interval %.0f, i.e. dz = %g m (the interval "
                            "holds dz*1000); the grid has dz = %g m",
                            path, info->dz * 1000.0, info->dz, h->dz);
        return FDW_OK;
    }
    if (rsf) {
        if (info->nx != s->nx || info->ny != s->ny || info->nz != s->nz)
            return fdw_fail(err, FDW_ERR_SPEC, field,
                            "RSF %s has n1=%d n2=%d n3=%d; the grid needs n1=nx=%d n2=ny=%d "
                            "n3=nz=%d (axis 1 = x, fastest)",
                            path, info->nx, info->ny, info->nz, s->nx, s->ny, s->nz);
        const double have[3] = {info->dx, info->dy, info->dz}, need[3] = {h->dx, h->dy, h->dz};
        for (int a = 0; a < 3; a++) {
            if (have[a] == 0.0)
                return fdw_fail(err, FDW_ERR_SPEC, field,
                                "RSF header %s has no d%d; the grid has d%c=%g m", path, a + 1,
                                "xyz"[a], need[a]);
            if (fabs(have[a] - need[a]) > 1e-6 * fabs(need[a]))
                return fdw_fail(err, FDW_ERR_SPEC, field,
                                "RSF %s has d%d=%g; the grid has d%c=%g m (they must agree "
                                "within a relative 1e-6)",
                                path, a + 1, have[a], "xyz"[a], need[a]);
        }
        return FDW_OK;
    }
    if (info->nvalues != want)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "raw-f32 model %s has %llu bytes; the grid %d x %d x %d needs %llu "
                        "bytes (nx*ny*nz*4)%s",
                        path, (unsigned long long)(info->nvalues * 4u), s->nx, s->ny, s->nz,
                        (unsigned long long)(want * 4u),
                        info->nvalues < want ? ": the file is truncated"
                                             : ": the file is too long");
    return FDW_OK;
}

static const char *const FORMAT_NAMES[] = {"raw-f32", "segy", "rsf"};

/* Stream a model file of format fmt into the sink (learn mode when s->nx is 0), filling
 * info with what the file records and its velocity range. */
static fdw_status read_model_file(const char *path, fdw_file_format fmt, fdw_model_sink *s,
                                  const fdw_model_grid_h *h, fdw_model_info *info,
                                  fdw_error *err)
{
    fdw_status st;
    switch (fmt) {
    case FDW_FMT_RAW_F32: st = fdw_raw_read(path, s, h, info, err); break;
    case FDW_FMT_SEGY: st = fdw_segy_read(path, s, h, info, err); break;
    case FDW_FMT_RSF: st = fdw_rsf_read(path, s, h, info, err); break;
    default:
        return fdw_fail(err, FDW_ERR_SPEC, "velocity.format", "unknown model file format %d",
                        (int)fmt);
    }
    if (st == FDW_OK) {
        info->vmin = s->vmin;
        info->vmax = s->vmax;
    }
    return st;
}

fdw_status fdw_model_inspect(const char *path, const char *format, const char *field,
                             fdw_model_info *info, fdw_error *err)
{
    fdw_error local;
    if (!err)
        err = &local;
    fdw_error_clear(err);
    if (!path || !format || !info)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_model_inspect: null argument");
    int fmt = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(format, FORMAT_NAMES[i]) == 0)
            fmt = i;
    if (fmt < 0)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "unknown model format \"%s\": use raw-f32, segy or rsf", format);
    fdw_model_sink sink;
    fdw_sink_init(&sink, 0, 0, 0, NULL, field ? field : "", path);
    const fdw_model_grid_h none = {0, 0, 0};
    return read_model_file(path, (fdw_file_format)fmt, &sink, &none, info, err);
}

/* The fdw_file_format of info->format, or -1. */
static int fdw_model_info_format(const fdw_model_info *info)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(info->format, FORMAT_NAMES[i]) == 0)
            return i;
    return -1;
}

/* The spec field a model file error points at: the uploaded model's name when the spec
 * named one, else the file path. */
static const char *model_field(const fdw_velocity_spec *v)
{
    return v->name[0] ? "velocity.name" : "velocity.path";
}

static fdw_status read_file_model(const fdw_velocity_spec *v, int nx, int ny, int nz,
                                  double dx, double dy, double dz, float *out,
                                  double *vmin, double *vmax, fdw_error *err)
{
    const char *field = model_field(v);
    if (nx <= 0 || ny <= 0 || nz <= 0)
        return fdw_fail(err, FDW_ERR_SPEC, "grid", "grid %d x %d x %d is empty", nx, ny, nz);
    if (!v->path[0])
        return fdw_fail(err, FDW_ERR_SPEC, field, "no model file path");
    fdw_model_sink sink;
    fdw_sink_init(&sink, nx, ny, nz, out, field, v->path);
    sink.data_path = v->data_path;
    const fdw_model_grid_h h = {dx, dy, dz};
    fdw_model_info info;
    fdw_status st = read_model_file(v->path, v->format, &sink, &h, &info, err);
    if (st != FDW_OK)
        return st;
    if (vmin)
        *vmin = sink.vmin;
    if (vmax)
        *vmax = sink.vmax;
    return FDW_OK;
}

fdw_status fdw_model_check_info(const fdw_velocity_spec *v, const fdw_model_info *info,
                                int nx, int ny, int nz, double dx, double dy, double dz,
                                fdw_error *err)
{
    const char *field = model_field(v);
    if (fdw_model_info_format(info) != (int)v->format)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "model %s was recorded as %s, but its name says %s", v->path,
                        info->format, FORMAT_NAMES[v->format]);
    fdw_model_sink sink;
    fdw_sink_init(&sink, nx, ny, nz, NULL, field, v->path);
    const fdw_model_grid_h h = {dx, dy, dz};
    fdw_status st = fdw_model_fit(info, &sink, &h, err);
    if (st == FDW_OK && !(info->vmin > 0 && info->vmax >= info->vmin && isfinite(info->vmax)))
        st = fdw_fail(err, FDW_ERR_SPEC, field,
                      "model %s was recorded with velocities from %g to %g m/s; they must be "
                      "positive and finite", v->path, info->vmin, info->vmax);
    return st;
}

fdw_status fdw_model_scan(const fdw_velocity_spec *v, int nx, int ny, int nz, double dx,
                          double dy, double dz, double *vmin, double *vmax, fdw_error *err)
{
    double lo = v->v0, hi = v->v0;
    switch (v->type) {
    case FDW_VEL_FILE:
        return read_file_model(v, nx, ny, nz, dx, dy, dz, NULL, vmin, vmax, err);
    case FDW_VEL_CONSTANT:
        break;
    case FDW_VEL_LAYERED:
        /* Without the grid origin the layers that fall inside the grid are unknown here:
         * report the extremes over all layers (a bound). */
        if (v->nlayers < 1 || !v->layers)
            return fdw_fail(err, FDW_ERR_SPEC, "velocity.layers", "no layers");
        lo = hi = v->layers[0].v;
        for (int l = 1; l < v->nlayers; l++) {
            if (v->layers[l].v < lo)
                lo = v->layers[l].v;
            if (v->layers[l].v > hi)
                hi = v->layers[l].v;
        }
        break;
    case FDW_VEL_GAUSSIAN:
        /* Extremes of v0 + dv * exp(...) over all space (a bound over the grid). */
        if (v->v0 + v->dv < lo)
            lo = v->v0 + v->dv;
        if (v->v0 + v->dv > hi)
            hi = v->v0 + v->dv;
        break;
    default:
        return fdw_fail(err, FDW_ERR_SPEC, "velocity.type", "unknown velocity type %d",
                        (int)v->type);
    }
    if (!(lo > 0) || !isfinite(lo) || !isfinite(hi))
        return fdw_fail(err, FDW_ERR_SPEC, "velocity",
                        "velocity model reaches %g m/s; velocities must be positive and finite",
                        !(lo > 0) ? lo : hi);
    if (vmin)
        *vmin = lo;
    if (vmax)
        *vmax = hi;
    return FDW_OK;
}

fdw_status fdw_model_load(const fdw_spec *spec, float *out, fdw_error *err)
{
    if (!spec || !out)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_model_load: null argument");
    if (spec->model_cache) { /* a survey's shot: the model was read once for all shots */
        memcpy(out, spec->model_cache,
               (size_t)spec->nx * (size_t)spec->ny * (size_t)spec->nz * sizeof(float));
        return FDW_OK;
    }
    if (spec->velocity.type == FDW_VEL_FILE)
        return read_file_model(&spec->velocity, spec->nx, spec->ny, spec->nz, spec->dx,
                               spec->dy, spec->dz, out, NULL, NULL, err);
    return fdw_model_fill_analytic(spec, out, err);
}
