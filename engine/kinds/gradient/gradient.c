/* gradient.c — the gradient kind: the gradient of the L2 data misfit with respect to the
 * velocity (or the slowness squared) and the misfit, for full-waveform inversion pipelines
 * that take their own steps. Its spec, problem, engines and outputs are the imaging kinds'
 * (engine/kinds/imaging/imaging.h, docs/imaging.md); this file is its entry in the kind
 * table. */
#include "kinds/imaging/imaging.h"
#include "kinds/kind.h"

static const char *const KEYS[] = {"velocity", "time", "sources", "receivers", "boundary",
                                   "survey", "data", "gradient", "reconstruction", NULL};

static int gradient_parse(struct spec_ctx *c, const struct json_t *root)
{
    return fdw_img_parse(c, root, IMG_GRADIENT);
}

const fdw_kind_ops fdw_kind_gradient = {FDW_IMG_KIND("gradient", KEYS, gradient_parse),
                                          .stack = &fdw_img_gradient_stack};
