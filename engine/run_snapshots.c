/* run_snapshots.c — snapshot extraction and files (raw float32, PNG) for the time loop. */
#include "run_snapshots.h"

#include "error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t fdw_region_size(const fdw_spec *spec, const fdw_slice *region)
{
    const size_t nx = (size_t)spec->nx, ny = (size_t)spec->ny, nz = (size_t)spec->nz;
    switch (region->plane) {
    case FDW_PLANE_XY: return nx * ny;
    case FDW_PLANE_XZ: return nx * nz;
    case FDW_PLANE_YZ: return ny * nz;
    case FDW_PLANE_VOLUME: return nx * ny * nz;
    }
    return 0;
}

fdw_status fdw_snapshots_init(fdw_snapshots *s, const fdw_spec *spec, const char *out_dir,
                              fdw_manifest *manifest, fdw_error *err)
{
    memset(s, 0, sizeof *s);
    s->spec = spec;
    s->out_dir = out_dir;
    s->manifest = manifest;
    if (spec->snapshot_every <= 0 || spec->nslices <= 0)
        return FDW_OK;
    s->bufs = calloc((size_t)spec->nslices, sizeof *s->bufs);
    if (!s->bufs)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for snapshot buffers");
    for (int r = 0; r < spec->nslices; r++) {
        const size_t n = fdw_region_size(spec, &spec->slices[r]);
        s->bufs[r] = malloc(n * sizeof(float));
        if (!s->bufs[r]) {
            fdw_snapshots_free(s);
            return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                            "out of host memory for a snapshot buffer (%.1f MiB)",
                            (double)n * 4.0 / (1024.0 * 1024.0));
        }
    }
    return FDW_OK;
}

fdw_status fdw_snapshots_issue(fdw_snapshots *s, const fdw_backend *be, void *ctx, long step,
                               fdw_error *err)
{
    if (!s->bufs)
        return FDW_OK;
    if (s->pending)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "snapshot of step %ld issued before step %ld was written", step,
                        s->pending_step);
    fdw_status st = be->extract(ctx, s->spec->nslices, s->spec->slices, s->bufs, err);
    if (st != FDW_OK)
        return st;
    s->pending = 1;
    s->pending_step = step;
    return FDW_OK;
}

/* File stem of one region, e.g. "snap_000100_xy_k48" or "snap_000100_volume". */
static void region_stem(const fdw_slice *r, long step, char *out, size_t len)
{
    switch (r->plane) {
    case FDW_PLANE_XY: snprintf(out, len, "snap_%06ld_xy_k%d", step, r->index); break;
    case FDW_PLANE_XZ: snprintf(out, len, "snap_%06ld_xz_j%d", step, r->index); break;
    case FDW_PLANE_YZ: snprintf(out, len, "snap_%06ld_yz_i%d", step, r->index); break;
    case FDW_PLANE_VOLUME: snprintf(out, len, "snap_%06ld_volume", step); break;
    }
}

/* Width (fastest) and height of a region image; volume: nx, ny*nz. */
static void region_dims(const fdw_spec *spec, const fdw_slice *r, long dims[3], int *ndims)
{
    switch (r->plane) {
    case FDW_PLANE_XY: dims[0] = spec->nx; dims[1] = spec->ny; *ndims = 2; break;
    case FDW_PLANE_XZ: dims[0] = spec->nx; dims[1] = spec->nz; *ndims = 2; break;
    case FDW_PLANE_YZ: dims[0] = spec->ny; dims[1] = spec->nz; *ndims = 2; break;
    case FDW_PLANE_VOLUME:
        dims[0] = spec->nx; dims[1] = spec->ny; dims[2] = spec->nz; *ndims = 3;
        break;
    }
}

static const char *plane_desc(const fdw_slice *r, char *buf, size_t len)
{
    switch (r->plane) {
    case FDW_PLANE_XY: snprintf(buf, len, "xy plane at k=%d", r->index); break;
    case FDW_PLANE_XZ: snprintf(buf, len, "xz plane at j=%d", r->index); break;
    case FDW_PLANE_YZ: snprintf(buf, len, "yz plane at i=%d", r->index); break;
    case FDW_PLANE_VOLUME: snprintf(buf, len, "whole volume"); break;
    }
    return buf;
}

static float max_abs(const float *v, size_t n)
{
    float m = 0.0f;
    for (size_t i = 0; i < n; i++) {
        const float a = fabsf(v[i]);
        if (a > m)
            m = a;
    }
    return m;
}

fdw_status fdw_snapshots_write(fdw_snapshots *s, const fdw_callbacks *cb, fdw_error *err)
{
    if (!s->pending)
        return FDW_OK;
    const fdw_spec *spec = s->spec;
    const long step = s->pending_step;
    const double time = spec->dt > 0.0 ? (double)step * spec->dt : -1.0;
    const int maxfiles = 2 * spec->nslices;
    char **names = calloc((size_t)maxfiles, sizeof *names);
    if (!names)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for snapshot names");
    int nfiles = 0;
    fdw_status st = FDW_OK;
    char path[FDW_PATH_MAX + 64], stem[96], desc[256], where[64];
    for (int r = 0; r < spec->nslices && st == FDW_OK; r++) {
        const fdw_slice *reg = &spec->slices[r];
        const size_t n = fdw_region_size(spec, reg);
        long dims[3];
        int ndims = 0;
        region_dims(spec, reg, dims, &ndims);
        region_stem(reg, step, stem, sizeof stem);
        plane_desc(reg, where, sizeof where);
        for (int png = 0; png < 2 && st == FDW_OK; png++) {
            if (png && (!spec->snapshot_png || reg->plane == FDW_PLANE_VOLUME))
                continue;
            if (!png && !spec->snapshot_raw)
                continue;
            char *name = malloc(strlen(stem) + 8);
            if (!name) {
                st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory");
                break;
            }
            sprintf(name, "%s.%s", stem, png ? "png" : "f32");
            names[nfiles++] = name;
            snprintf(path, sizeof path, "%s/%s", s->out_dir, name);
            if (png) {
                const float clip = max_abs(s->bufs[r], n);
                st = fdw_write_png(path, s->bufs[r], (int)dims[0], (int)dims[1], clip, err);
                snprintf(desc, sizeof desc,
                         "wavefield snapshot, %s, step %ld; blue-white-red, symmetric scale "
                         "clipped at %g",
                         where, step, (double)clip);
                if (st == FDW_OK)
                    fdw_manifest_add(s->manifest, name, "snapshot", "png", desc, 2, dims,
                                     "colour", step, time);
            } else {
                st = fdw_write_raw_f32(path, s->bufs[r], n, err);
                snprintf(desc, sizeof desc,
                         "wavefield snapshot, %s, step %ld; float32 little-endian, "
                         "first dimension fastest",
                         where, step);
                if (st == FDW_OK)
                    fdw_manifest_add(s->manifest, name, "snapshot", "raw-f32", desc, ndims,
                                     dims, "wavefield amplitude (arbitrary)", step, time);
            }
        }
    }
    s->pending = 0;
    if (st == FDW_OK)
        st = fdw_manifest_write(s->manifest, err);
    if (st == FDW_OK && cb && cb->snapshot) {
        fdw_snapshot_info info = {.index = s->next_index,
                                  .step = step,
                                  .time = time,
                                  .nfiles = nfiles,
                                  .files = (const char *const *)names};
        cb->snapshot(cb->user, &info);
    }
    if (st == FDW_OK)
        s->next_index++;
    for (int f = 0; f < nfiles; f++)
        free(names[f]);
    free(names);
    return st;
}

void fdw_snapshots_free(fdw_snapshots *s)
{
    if (s->bufs) {
        for (int r = 0; r < s->spec->nslices; r++)
            free(s->bufs[r]);
        free(s->bufs);
    }
    s->bufs = NULL;
    s->pending = 0;
}
