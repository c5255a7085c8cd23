/* model_io.c — the public face of velocity models (model_io.h): scan a model named by a
 * spec (geometry and values checked, extremes found) and load it into a grid array.
 * File formats live in model_raw.c, model_segy.c, model_rsf.c; analytic models in
 * model_analytic.c. This file holds the dispatch and the per-sample check they share. */
#include "model/model_io.h"
#include "model/model_formats.h"
#include "core/error.h"

#include <math.h>
#include <string.h>

void fdw_sink_init(fdw_model_sink *s, int nx, int ny, int nz, float *out, const char *field,
                   const char *path)
{
    s->nx = nx;
    s->ny = ny;
    s->nz = nz;
    s->out = out;
    s->vmin = INFINITY;
    s->vmax = -INFINITY;
    s->field = field;
    s->path = path;
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
    fdw_status st;
    switch (v->format) {
    case FDW_FMT_RAW_F32: st = fdw_raw_read(v->path, &sink, err); break;
    case FDW_FMT_SEGY: st = fdw_segy_read(v->path, dz, &sink, err); break;
    case FDW_FMT_RSF: st = fdw_rsf_read(v->path, dx, dy, dz, &sink, err); break;
    default:
        return fdw_fail(err, FDW_ERR_SPEC, "velocity.format", "unknown model file format %d",
                        (int)v->format);
    }
    if (st != FDW_OK)
        return st;
    if (vmin)
        *vmin = sink.vmin;
    if (vmax)
        *vmax = sink.vmax;
    return FDW_OK;
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
    if (spec->velocity.type == FDW_VEL_FILE)
        return read_file_model(&spec->velocity, spec->nx, spec->ny, spec->nz, spec->dx,
                               spec->dy, spec->dz, out, NULL, NULL, err);
    return fdw_model_fill_analytic(spec, out, err);
}
