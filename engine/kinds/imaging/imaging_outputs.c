/* imaging_outputs.c — what an imaging shot leaves (imaging.h): born the scattered gather
 * (as the acoustic kind writes gathers); rtm the image and the source's illumination; the
 * gradient the gradient, the predicted gather and the misfit. Volumes as raw float32 (x
 * fastest) and SEG-Y (one trace a column: inline j + 1, crossline i + 1, depth samples),
 * PNG slices through the middle of the grid, each file in the manifest with its meaning
 * and units. */
#include "kinds/imaging/imaging.h"

#include "core/error.h"
#include "model/model_io.h"
#include "output/outputs.h"
#include "run/run_state.h"

#include <stdio.h>
#include <stdlib.h>

/* name.f32, name.segy and the two vertical slices through the middle as PNG. */
static fdw_status write_volume(fdw_run_state *r, const char *name, const float *vol,
                               const char *what, const char *units, fdw_error *err)
{
    const fdw_spec *s = r->spec;
    const size_t n = (size_t)s->nx * s->ny * s->nz;
    const long dims[3] = {s->nx, s->ny, s->nz};
    char path[FDW_PATH_MAX + 64], file[64], desc[384];
    snprintf(file, sizeof file, "%s.f32", name);
    snprintf(path, sizeof path, "%s/%s", r->opts->out_dir, file);
    fdw_status st = fdw_write_raw_f32(path, vol, n, err);
    if (st != FDW_OK)
        return st;
    snprintf(desc, sizeof desc, "%s, float32 little-endian, x fastest, %d x %d x %d", what,
             s->nx, s->ny, s->nz);
    fdw_manifest_add(r->manifest, file, "image", "raw-f32", desc, 3, dims, units, -1, -1.0);
    snprintf(file, sizeof file, "%s.segy", name);
    snprintf(path, sizeof path, "%s/%s", r->opts->out_dir, file);
    st = fdw_model_write_segy(path, vol, s->nx, s->ny, s->nz, s->dx, s->dy, s->dz, err);
    if (st != FDW_OK)
        return st;
    snprintf(desc, sizeof desc, "%s as SEG-Y: a trace per (i, j) column, inline j + 1, "
             "crossline i + 1, %d depth samples of %g m", what, s->nz, s->dz);
    fdw_manifest_add(r->manifest, file, "image", "segy", desc, 3, dims, units, -1, -1.0);
    /* xz at the middle j, yz at the middle i */
    float *sl = malloc((size_t)(s->nx > s->ny ? s->nx : s->ny) * (size_t)s->nz * sizeof *sl);
    if (!sl)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the image slices");
    for (int plane = 0; plane < 2 && st == FDW_OK; plane++) {
        const int w = plane ? s->ny : s->nx, mid = plane ? s->nx / 2 : s->ny / 2;
        for (int k = 0; k < s->nz; k++)
            for (int a = 0; a < w; a++)
                sl[(size_t)k * w + a] =
                    plane ? vol[((size_t)k * s->ny + a) * s->nx + mid]
                          : vol[((size_t)k * s->ny + mid) * s->nx + a];
        snprintf(file, sizeof file, "%s_%s_%c%d.png", name, plane ? "yz" : "xz",
                 plane ? 'i' : 'j', mid);
        snprintf(path, sizeof path, "%s/%s", r->opts->out_dir, file);
        st = fdw_write_png(path, sl, w, s->nz, 0.0f, err);
        if (st == FDW_OK) {
            const long pd[2] = {w, s->nz};
            snprintf(desc, sizeof desc, "%s, the %s plane at %c = %d (depth down); "
                     "blue-white-red, symmetric about 0", what, plane ? "yz" : "xz",
                     plane ? 'i' : 'j', mid);
            fdw_manifest_add(r->manifest, file, "image", "png", desc, 2, pd, "colour", -1, -1.0);
        }
    }
    free(sl);
    return st;
}

fdw_status fdw_img_finish(fdw_run_state *r, char *extra, size_t len, fdw_error *err)
{
    const fdw_img_data *d = r->prob.kdata;
    const img_result *res = r->ctx;
    if (d->mode == IMG_BORN)
        return fdw_run_write_gathers(r, extra, len, err);
    if (!r->root)
        return FDW_OK;
    fdw_status st;
    if (d->mode == IMG_RTM) {
        st = write_volume(r, "image", res->image,
                          d->condition == IMG_COND_XCORR
                              ? "the image: sum over time of u[n] z[n+1] (cross-correlation)"
                              : "the image: born's transpose in velocity applied to the data",
                          d->condition == IMG_COND_XCORR ? "arbitrary" : "data units x m/s",
                          err);
        if (st == FDW_OK && d->illumination)
            st = write_volume(r, "illumination", res->illum,
                              "the source's illumination, sum over time of u^2",
                              "wavefield amplitude squared", err);
        if (st == FDW_OK)
            snprintf(extra, len, ", \"image\": {\"condition\": \"%s\", \"illumination\": %s, "
                     "\"laplacian\": %s}", d->condition == IMG_COND_XCORR ? "crosscorrelation"
                                                                         : "adjoint",
                     d->illumination ? "true" : "false", d->laplacian ? "true" : "false");
        return st;
    }
    st = write_volume(r, "gradient", res->image,
                      d->parameter == IMG_PARAM_SLOWNESS2
                          ? "the gradient of the misfit 1/2 sum (d_mod - d_obs)^2 with respect "
                            "to the slowness squared"
                          : "the gradient of the misfit 1/2 sum (d_mod - d_obs)^2 with respect "
                            "to the velocity",
                      d->parameter == IMG_PARAM_SLOWNESS2 ? "misfit units / (s^2/m^2)"
                                                          : "misfit units / (m/s)", err);
    char gx[256] = "";
    if (st == FDW_OK) /* the predicted traces, as the acoustic kind writes its gather */
        st = fdw_run_write_gathers(r, gx, sizeof gx, err);
    if (st == FDW_OK)
        snprintf(extra, len, ", \"misfit\": %.17g, \"gradient\": {\"parameter\": \"%s\", "
                 "\"file\": \"gradient.f32\", \"predicted\": \"gather.f32\"}", res->misfit,
                 d->parameter == IMG_PARAM_SLOWNESS2 ? "slowness2" : "velocity");
    return st;
}
