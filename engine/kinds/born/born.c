/* born.c — the born kind: linearised (Born) modelling, the scattered traces of a velocity
 * perturbation in a background model (the first-order term of the acoustic kind's traces in
 * the perturbation). Its spec, problem, engines and outputs are the imaging kinds'
 * (engine/kinds/imaging/imaging.h, docs/imaging.md); this file is its entry in the kind
 * table. */
#include "kinds/imaging/imaging.h"
#include "kinds/kind.h"

static const char *const KEYS[] = {"velocity", "time", "sources", "receivers", "boundary",
                                   "survey", "perturbation", NULL};

static int born_parse(struct spec_ctx *c, const struct json_t *root)
{
    return fdw_img_parse(c, root, IMG_BORN);
}

const fdw_kind_ops fdw_kind_born = {
    .name = "born",
    .wave = 1,
    .section = {
        .keys = KEYS,
        .parse = born_parse,
        .warnings = fdw_img_warnings,
        .free = fdw_img_free_spec,
        .device_bytes = fdw_img_device_bytes,
    },
    .problem = {
        .build = fdw_img_build,
        .free = fdw_img_free_problem,
    },
    .run = {
        .cpu_engine = &fdw_img_cpu_engine,
#ifdef FDW_HAVE_CUDA
        .cuda_engine = &fdw_img_cuda_engine,
#endif
    },
    .out = {
        .finish = fdw_img_finish,
        .unstable_field = "velocity",
        .unstable_hint = FDW_IMG_UNSTABLE_HINT,
    },
};
