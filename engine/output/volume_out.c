/* volume_out.c — a grid volume as raw float32, SEG-Y and two PNG slices (volume_out.h). */
#include "output/volume_out.h"

#include "core/error.h"
#include "model/model_io.h"

#include <stdio.h>
#include <stdlib.h>

fdw_status fdw_volume_slices(const fdw_spec *s, const char *out_dir, fdw_manifest *m,
                             const char *name, const float *vol, const char *what,
                             const char *kind, char files[2][FDW_VOLUME_NAME_MAX],
                             fdw_error *err)
{
    float *sl = malloc((size_t)(s->nx > s->ny ? s->nx : s->ny) * (size_t)s->nz * sizeof *sl);
    if (!sl)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the slices of %s",
                        name);
    fdw_status st = FDW_OK;
    for (int plane = 0; plane < 2 && st == FDW_OK; plane++) {
        const int w = plane ? s->ny : s->nx, mid = plane ? s->nx / 2 : s->ny / 2;
        for (int k = 0; k < s->nz; k++)
            for (int a = 0; a < w; a++)
                sl[(size_t)k * w + a] =
                    plane ? vol[((size_t)k * s->ny + a) * s->nx + mid]
                          : vol[((size_t)k * s->ny + mid) * s->nx + a];
        char *file = files[plane], path[FDW_PATH_MAX + FDW_VOLUME_NAME_MAX + 2];
        snprintf(file, FDW_VOLUME_NAME_MAX, "%s_%s_%c%d.png", name, plane ? "yz" : "xz",
                 plane ? 'i' : 'j', mid);
        snprintf(path, sizeof path, "%s/%s", out_dir, file);
        st = fdw_write_png(path, sl, w, s->nz, 0.0f, err);
        if (st == FDW_OK && m) {
            const long pd[2] = {w, s->nz};
            char desc[512];
            snprintf(desc, sizeof desc, "%s, the %s plane at %c = %d (depth down); "
                     "blue-white-red, symmetric about 0", what, plane ? "yz" : "xz",
                     plane ? 'i' : 'j', mid);
            fdw_manifest_add(m, file, kind ? kind : "image", "png", desc, 2, pd, "colour", -1,
                             -1.0);
        }
    }
    free(sl);
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
    char slices[2][FDW_VOLUME_NAME_MAX];
    return fdw_volume_slices(s, out_dir, m, name, vol, what, NULL, slices, err);
}
