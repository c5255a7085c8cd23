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

const fdw_kind_ops fdw_kind_born = {FDW_IMG_KIND("born", KEYS, born_parse)};
