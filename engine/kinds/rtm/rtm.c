/* rtm.c — the rtm kind: reverse-time migration, the image of traces recorded at the
 * receivers as born's exact transpose (or their cross-correlation). Its spec, problem,
 * engines and outputs are the imaging kinds' (engine/kinds/imaging/imaging.h,
 * docs/imaging.md); this file is its entry in the kind table. */
#include "kinds/imaging/imaging.h"
#include "kinds/kind.h"

static const char *const KEYS[] = {"velocity", "time", "sources", "receivers", "boundary",
                                   "survey", "data", "imaging", NULL};

static int rtm_parse(struct spec_ctx *c, const struct json_t *root)
{
    return fdw_img_parse(c, root, IMG_RTM);
}

const fdw_kind_ops fdw_kind_rtm = {
    .name = "rtm",
    .wave = 1,
    .section = {
        .keys = KEYS,
        .parse = rtm_parse,
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
    .stack = &fdw_img_rtm_stack,
};
