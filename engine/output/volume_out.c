/* volume_out.c — a grid volume as raw float32, SEG-Y and slices (volume_out.h). */
#include "output/volume_out.h"

#include "core/error.h"
#include "model/model_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Slice file p (0: xz at the middle j, 1: yz at the middle i) of name: its width, the
 * index of its plane, and its file name with suffix. */
static int slice_name(const fdw_spec *s, const char *name, int plane, const char *suffix,
                      char *file, size_t len, int *mid)
{
    *mid = plane ? s->nx / 2 : s->ny / 2;
    snprintf(file, len, "%s_%s_%c%d.%s", name, plane ? "yz" : "xz", plane ? 'i' : 'j', *mid,
             suffix);
    return plane ? s->ny : s->nx;
}

/* The largest |value| of the raw file at path holding n floats; -1 when it cannot be read
 * whole, NaN when it holds a non-finite value. */
static double raw_max_abs(const char *path, size_t n)
{
    FILE *f = fopen(path, "rb");
    float *v = f ? malloc(n * sizeof *v) : NULL;
    double m = -1.0;
    if (v && fread(v, sizeof *v, n, f) == n) {
        m = 0.0;
        for (size_t q = 0; q < n; q++) {
            if (!isfinite(v[q])) {
                m = NAN;
                break;
            }
            m = fmax(m, fabs((double)v[q]));
        }
    }
    free(v);
    if (f)
        fclose(f);
    return m;
}

void fdw_volume_slices_list(const fdw_spec *s, const char *out_dir, fdw_manifest *m,
                            const char *name, const char *what, const char *kind,
                            const char *units, int shots)
{
    for (int plane = 0; plane < 2; plane++)
        for (int raw = 1; raw >= 0; raw--) {
            char file[FDW_VOLUME_NAME_MAX], path[FDW_PATH_MAX + FDW_VOLUME_NAME_MAX + 2];
            char desc[512];
            int mid;
            const int w = slice_name(s, name, plane, raw ? "f32" : "png", file, sizeof file,
                                     &mid);
            snprintf(path, sizeof path, "%s/%s", out_dir, file);
            struct stat st;
            if (stat(path, &st) != 0)
                continue;
            snprintf(desc, sizeof desc, "%s, the %s plane at %c = %d (depth down); %s", what,
                     plane ? "yz" : "xz", plane ? 'i' : 'j', mid,
                     raw ? "float32 little-endian [z][across]"
                         : "blue-white-red, symmetric about 0");
            const long pd[2] = {w, s->nz};
            fdw_manifest_add(m, file, kind ? kind : "image", raw ? "raw-f32" : "png", desc, 2,
                             pd, raw ? units : "colour", -1, -1.0);
            if (raw) {
                const double mx = raw_max_abs(path, (size_t)w * (size_t)s->nz);
                if (mx >= 0.0)
                    fdw_manifest_set_number(m, file, "max_abs", mx);
                else if (isnan(mx))
                    fdw_manifest_set_number(m, file, "nonfinite", 1);
            }
            if (shots > 0)
                fdw_manifest_set_number(m, file, "shots", shots);
        }
}

fdw_status fdw_volume_slices(const fdw_spec *s, const char *out_dir, fdw_manifest *m,
                             const char *name, const float *vol, const char *what,
                             const char *kind, const char *units,
                             char files[FDW_VOLUME_SLICE_FILES][FDW_VOLUME_NAME_MAX],
                             fdw_error *err)
{
    float *sl = malloc((size_t)(s->nx > s->ny ? s->nx : s->ny) * (size_t)s->nz * sizeof *sl);
    if (!sl)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the slices of %s",
                        name);
    fdw_status st = FDW_OK;
    for (int plane = 0; plane < 2 && st == FDW_OK; plane++) {
        int mid;
        char *raw = files[2 * plane], *png = files[2 * plane + 1];
        const int w = slice_name(s, name, plane, "f32", raw, FDW_VOLUME_NAME_MAX, &mid);
        slice_name(s, name, plane, "png", png, FDW_VOLUME_NAME_MAX, &mid);
        for (int k = 0; k < s->nz; k++)
            for (int a = 0; a < w; a++)
                sl[(size_t)k * w + a] =
                    plane ? vol[((size_t)k * s->ny + a) * s->nx + mid]
                          : vol[((size_t)k * s->ny + mid) * s->nx + a];
        char path[FDW_PATH_MAX + FDW_VOLUME_NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", out_dir, raw);
        st = fdw_write_raw_f32(path, sl, (size_t)w * (size_t)s->nz, err);
        snprintf(path, sizeof path, "%s/%s", out_dir, png);
        if (st == FDW_OK)
            st = fdw_write_png(path, sl, w, s->nz, 0.0f, err);
    }
    free(sl);
    if (st == FDW_OK && m)
        fdw_volume_slices_list(s, out_dir, m, name, what, kind, units, 0);
    return st;
}

fdw_status fdw_volume_write(const fdw_spec *s, const char *out_dir, fdw_manifest *m,
                            const char *name, const float *vol, const char *what,
                            const char *units, fdw_error *err)
{
    const size_t n = (size_t)s->nx * s->ny * s->nz;
    const long dims[3] = {s->nx, s->ny, s->nz};
    char path[FDW_PATH_MAX + FDW_VOLUME_NAME_MAX + 2], file[FDW_VOLUME_NAME_MAX], desc[512];
    snprintf(file, sizeof file, "%s.f32", name);
    snprintf(path, sizeof path, "%s/%s", out_dir, file);
    fdw_status st = fdw_write_raw_f32(path, vol, n, err);
    if (st != FDW_OK)
        return st;
    snprintf(desc, sizeof desc, "%s, float32 little-endian, x fastest, %d x %d x %d", what,
             s->nx, s->ny, s->nz);
    fdw_manifest_add(m, file, "image", "raw-f32", desc, 3, dims, units, -1, -1.0);
    snprintf(file, sizeof file, "%s.segy", name);
    snprintf(path, sizeof path, "%s/%s", out_dir, file);
    st = fdw_model_write_segy(path, vol, s->nx, s->ny, s->nz, s->dx, s->dy, s->dz, err);
    if (st != FDW_OK)
        return st;
    snprintf(desc, sizeof desc, "%s as SEG-Y: a trace per (i, j) column, inline j + 1, "
             "crossline i + 1, %d depth samples of %g m", what, s->nz, s->dz);
    fdw_manifest_add(m, file, "image", "segy", desc, 3, dims, units, -1, -1.0);
    char slices[FDW_VOLUME_SLICE_FILES][FDW_VOLUME_NAME_MAX];
    return fdw_volume_slices(s, out_dir, m, name, vol, what, NULL, units, slices, err);
}
