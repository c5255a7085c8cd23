/* kinds.c — the table of job kinds: one line per kind (kind.h says what a kind provides).
 * Adding a kind is a folder engine/kinds/<kind>/ defining fdw_kind_<kind>, and its name
 * in FDW_KINDS below. */
#include "kinds/kind.h"

#include <string.h>

#define FDW_KINDS(X) \
    X(acoustic)      \
    X(stencil)       \
    X(derivative)    \
    X(ete)           \
    X(sweep)         \
    X(born)          \
    X(rtm)           \
    X(gradient)

#define FDW_KIND_DECLARE(k) extern const fdw_kind_ops fdw_kind_##k;
FDW_KINDS(FDW_KIND_DECLARE)
#define FDW_KIND_ENTRY(k) &fdw_kind_##k,
static const fdw_kind_ops *const TABLE[] = {FDW_KINDS(FDW_KIND_ENTRY) NULL};

const fdw_kind_ops *fdw_kind_find(const char *name)
{
    for (int i = 0; name && TABLE[i]; i++)
        if (strcmp(TABLE[i]->name, name) == 0)
            return TABLE[i];
    return NULL;
}

int fdw_kind_on_cuda(const fdw_kind_ops *kind)
{
    return kind && (kind->run.cuda || kind->run.cuda_engine);
}

const fdw_kind_ops *fdw_kind_at(int i)
{
    return i >= 0 && i < (int)(sizeof TABLE / sizeof *TABLE) ? TABLE[i] : NULL;
}
