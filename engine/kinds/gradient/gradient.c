/* gradient.c — the gradient kind: the gradient of the L2 data misfit with respect to the
 * velocity (or the slowness squared) and the misfit, for full-waveform inversion pipelines
 * that take their own steps. Its spec, problem, engines and outputs are the imaging kinds'
 * (engine/kinds/imaging/imaging.h, docs/imaging.md); this file is its entry in the kind
 * table. */
#include "kinds/imaging/imaging.h"
#include "kinds/kind.h"

static const char *const KEYS[] = {"velocity", "time", "sources", "receivers", "boundary",
                                   "survey", "data", "gradient", NULL};

static int gradient_parse(struct spec_ctx *c, const struct json_t *root)
{
    return fdw_img_parse(c, root, IMG_GRADIENT);
}

const fdw_kind_ops fdw_kind_gradient = {
    .name = "gradient",
    .keys = KEYS,
    .wave = 1,
    .parse = gradient_parse,
    .warnings = fdw_img_warnings,
    .free_spec = fdw_img_free_spec,
    .build = fdw_img_build,
    .free_problem = fdw_img_free_problem,
    .device_bytes = fdw_img_device_bytes,
    .cpu = &fdw_img_cpu,
#ifdef FDW_HAVE_CUDA
    .cuda = &fdw_img_cuda,
#endif
    .finish = fdw_img_finish,
    .stack = &fdw_img_gradient_stack,
    .unstable_field = "velocity",
    .unstable_hint = "the finite-difference scheme is stable at this dt for the model's largest "
                     "velocity (time.dt is checked against it), so look at the velocity model "
                     "and the data's amplitudes",
};
