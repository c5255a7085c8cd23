/* spec_boundary.c — the "boundary" section of an acoustic spec: an absorbing sponge layer
 * (one width for all faces or one per face) or none, and an optional free surface on the
 * top (zmin) face. Widths must leave at least one interior point on every axis. */
#include "spec_parse.h"

#include <limits.h>

static const char *const TYPES[] = {"sponge", "none", NULL};
static const char *const FACES[] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax", NULL};

int sp_parse_boundary(spec_ctx *c, const json_t *root)
{
    static const char *const keys[] = {"type", "width", "free_surface", "reflection", NULL};
    fdw_spec *s = c->spec;
    fdw_boundary *b = &s->boundary;
    json_t *o;
    int type = 0;
    b->reflection = SP_DEFAULT_REFLECTION;
    b->free_surface = 0;
    /* Default width: SP_DEFAULT_SPONGE_WIDTH, but never more than a quarter of the axis,
     * so a small grid without a "boundary" section still has an interior. */
    const int n[3] = {s->nx, s->ny, s->nz};
    for (int f = 0; f < 6; f++) {
        int quarter = (n[f / 2] - 1) / 4;
        b->width[f] = quarter < SP_DEFAULT_SPONGE_WIDTH ? quarter : SP_DEFAULT_SPONGE_WIDTH;
    }
    if (sp_object(c, root, "", "boundary", 0, &o))
        return -1;
    json_t *w = NULL;
    int per_face = 0;
    if (o) {
        if (sp_keys(c, o, "boundary", keys) || sp_enum(c, o, "boundary", "type", 0, TYPES, &type) ||
            sp_bool(c, o, "boundary", "free_surface", 0, &b->free_surface) ||
            sp_num(c, o, "boundary", "reflection", 0, &b->reflection))
            return -1;
        if (!(b->reflection > 0 && b->reflection < 1))
            return sp_fail(c, "boundary.reflection",
                           "boundary.reflection is %g but must be between 0 and 1 (exclusive)",
                           b->reflection);
        w = json_object_get(o, "width");
    }
    b->type = type == 0 ? FDW_BOUNDARY_SPONGE : FDW_BOUNDARY_NONE;
    if (w && json_is_object(w)) {
        per_face = 1;
        if (sp_keys(c, w, "boundary.width", FACES))
            return -1;
        for (int f = 0; f < 6; f++) {
            long long v = b->width[f];
            if (sp_int(c, w, "boundary.width", FACES[f], 0, 0, SP_MAX_GRID_N, &v))
                return -1;
            b->width[f] = (int)v;
        }
    } else if (w) {
        long long v;
        if (!json_is_number(w))
            return sp_fail(c, "boundary.width",
                           "boundary.width must be a number of grid points or an object with "
                           "xmin, xmax, ymin, ymax, zmin, zmax, not %s",
                           sp_type_name(w));
        if (sp_value_int(c, w, "boundary.width", 0, SP_MAX_GRID_N, &v))
            return -1;
        for (int f = 0; f < 6; f++)
            b->width[f] = (int)v;
    }
    if (b->type == FDW_BOUNDARY_NONE) {
        for (int f = 0; f < 6; f++) {
            if (w && b->width[f] != 0)
                return sp_fail(c, "boundary.width",
                               "boundary.width must be 0 or absent when boundary.type is "
                               "\"none\"");
            b->width[f] = 0;
        }
    }
    if (b->free_surface)
        b->width[4] = 0; /* the top face reflects; it has no sponge */
    for (int a = 0; a < 3; a++) {
        if (b->width[2 * a] + b->width[2 * a + 1] > n[a] - 1) {
            char field[SP_PATH];
            if (per_face)
                sp_key(field, "boundary.width", FACES[2 * a + 1]);
            else
                sp_key(field, "boundary", "width");
            return sp_fail(c, field,
                           "absorbing widths %s %d + %s %d leave no interior point on the "
                           "%c axis, which has %d points",
                           FACES[2 * a], b->width[2 * a], FACES[2 * a + 1], b->width[2 * a + 1],
                           "xyz"[a], n[a]);
        }
    }
    json_t *nw = json_object();
    for (int f = 0; f < 6; f++)
        json_object_set_new(nw, FACES[f], json_integer(b->width[f]));
    json_object_set_new(c->norm, "boundary",
                        json_pack("{sssosbsf}", "type", TYPES[type], "width", nw, "free_surface",
                                  b->free_surface, "reflection", b->reflection));
    return 0;
}
