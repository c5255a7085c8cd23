/* imaging_outputs.c — what an imaging shot, or a survey of them, leaves (imaging.h): born
 * the scattered gather (as the acoustic kind writes gathers); rtm the image and the
 * source's illumination; the gradient the gradient, the predicted gather and the misfit.
 * Volumes as raw float32, SEG-Y and PNG slices (output/volume_out.h), each file in the
 * manifest with its meaning and units. A survey's shots add up (the kinds' stack ops,
 * run/survey_stack.c): the sum of the shots' images (each already divided by its own
 * illumination and filtered, where rtm asks), of their illuminations, of their gradients
 * and misfits. */
#include "kinds/imaging/imaging.h"

#include "kinds/kind.h"
#include "output/volume_out.h"
#include "run/run_state.h"

#include <stdio.h>
#include <string.h>

/* The volumes and result members of rtm and the gradient: one shot's (nshots 0) or the
 * sum of a survey's nshots; predicted names the predicted traces' file. */
/* The units of each output volume, one place for the outputs and the partial stacks. */
static const char *image_units(const fdw_img_spec *k)
{
    return k->condition == IMG_COND_XCORR ? "arbitrary" : "data units x m/s";
}

static const char *gradient_units(const fdw_img_spec *k)
{
    return k->parameter == IMG_PARAM_SLOWNESS2 ? "misfit units / (s^2/m^2)"
                                               : "misfit units / (m/s)";
}

#define ILLUMINATION_UNITS "wavefield amplitude squared"

static fdw_status write_outputs(const fdw_spec *s, const char *out_dir, fdw_manifest *m,
                                const float *image, const float *illum, double misfit,
                                int nshots, const char *predicted, char *extra, size_t len,
                                fdw_error *err)
{
    const fdw_img_spec *k = s->kspec;
    char what[320], of[64] = "";
    if (nshots > 0)
        snprintf(of, sizeof of, ", summed over %d shots", nshots);
    fdw_status st;
    if (k->mode == IMG_RTM) {
        snprintf(what, sizeof what, "%s%s",
                 k->condition == IMG_COND_XCORR
                     ? "the image: sum over time of u[n] z[n+1] (cross-correlation)"
                     : "the image: born's transpose in velocity applied to the data", of);
        st = fdw_volume_write(s, out_dir, m, "image", image, what, image_units(k), err);
        snprintf(what, sizeof what, "the source's illumination, sum over time of u^2%s", of);
        if (st == FDW_OK && k->illumination)
            st = fdw_volume_write(s, out_dir, m, "illumination", illum, what,
                                  ILLUMINATION_UNITS, err);
        if (st == FDW_OK)
            snprintf(extra, len, ", \"image\": {\"condition\": \"%s\", \"illumination\": %s, "
                     "\"laplacian\": %s}",
                     k->condition == IMG_COND_XCORR ? "crosscorrelation" : "adjoint",
                     k->illumination ? "true" : "false", k->laplacian ? "true" : "false");
        return st;
    }
    const int s2 = k->parameter == IMG_PARAM_SLOWNESS2;
    snprintf(what, sizeof what, "the gradient of the misfit 1/2 sum (d_mod - d_obs)^2 with "
             "respect to the %s%s", s2 ? "slowness squared" : "velocity", of);
    st = fdw_volume_write(s, out_dir, m, "gradient", image, what, gradient_units(k), err);
    if (st == FDW_OK)
        snprintf(extra, len, ", \"misfit\": %.17g, \"gradient\": {\"parameter\": \"%s\", "
                 "\"file\": \"gradient.f32\", \"predicted\": \"%s\"}", misfit,
                 s2 ? "slowness2" : "velocity", predicted);
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
    char gx[256] = "";
    fdw_status st = FDW_OK;
    if (d->mode == IMG_GRADIENT) /* the predicted traces, as the acoustic kind writes its gather */
        st = fdw_run_write_gathers(r, gx, sizeof gx, err);
    if (st == FDW_OK)
        st = write_outputs(r->spec, r->opts->out_dir, r->manifest, res->image, res->illum,
                           res->misfit, 0, "gather.f32", extra, len, err);
    const size_t used = strlen(extra);
    if (st == FDW_OK && used < len) /* where the shot's time went */
        snprintf(extra + used, len - used, ", \"time_s\": {\"forward\": %.6f, \"backward\": "
                 "%.6f, \"image\": %.6f}", res->forward_s, res->backward_s, res->finish_s);
    return st;
}

/* ---- a survey's stack (kind.h's fdw_stack_ops) ---- */

static int stack_volumes(const fdw_spec *spec, const char **names, const char **units,
                         int max)
{
    const fdw_img_spec *k = spec->kspec;
    const char *u[2] = {NULL, NULL};
    int n = 0;
    if (k->mode == IMG_RTM) {
        u[n] = image_units(k);
        names[n++] = "image";
        if (k->illumination && n < max) {
            u[n] = ILLUMINATION_UNITS;
            names[n++] = "illumination";
        }
    } else if (k->mode == IMG_GRADIENT) {
        u[n] = gradient_units(k);
        names[n++] = "gradient";
    }
    for (int v = 0; units && v < n; v++)
        units[v] = u[v];
    return n;
}

static fdw_status stack_write(const fdw_spec *spec, const char *out_dir, fdw_manifest *m,
                              const float *const *vol, const double *num, int nshots,
                              char *extra, size_t len, fdw_error *err)
{
    const fdw_img_spec *k = spec->kspec;
    return write_outputs(spec, out_dir, m, vol[0], k->mode == IMG_RTM && k->illumination
                                                       ? vol[1] : NULL,
                         num ? num[0] : 0.0, nshots, "all_shots.f32", extra, len, err);
}

static const char *const MISFIT[] = {"misfit", NULL};

const fdw_stack_ops fdw_img_rtm_stack = {.volumes = stack_volumes, .write = stack_write};
const fdw_stack_ops fdw_img_gradient_stack = {.volumes = stack_volumes, .numbers = MISFIT,
                                              .write = stack_write};
