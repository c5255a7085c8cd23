/* rtm.c — the rtm kind: reverse-time migration, the image of traces recorded at the
 * receivers as born's exact transpose (or their cross-correlation). Its spec, problem,
 * engines and outputs are the imaging kinds' (engine/kinds/imaging/imaging.h,
 * docs/imaging.md); this file is its entry in the kind table. */
#include "kinds/imaging/imaging.h"
#include "kinds/kind.h"

static const char *const KEYS[] = {"velocity", "time", "sources", "receivers", "boundary",
                                   "survey", "data", "imaging", "reconstruction", NULL};

static int rtm_parse(struct spec_ctx *c, const struct json_t *root)
{
    return fdw_img_parse(c, root, IMG_RTM);
}

const fdw_kind_ops fdw_kind_rtm = {FDW_IMG_KIND("rtm", KEYS, rtm_parse),
                                     .stack = &fdw_img_rtm_stack};
