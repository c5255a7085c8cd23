/* wave_boundary.c — the "boundary" section of a wave kind's spec: an absorbing layer, either
 * a sponge or a CPML (one width for all faces or one per face), or none, and an optional
 * free surface on the top (zmin) face. Widths must leave at least one interior point on
 * every axis, and a CPML's z layers must each fit in one of the devices' slabs. The
 * CPML's frequency defaults to the sources' largest Ricker f0, which is known only once
 * the sources are parsed: wave_finish_boundary fills it in then. */
#include "kinds/wave/wave_spec.h"

#include "run/cpml.h"

#include <limits.h>
#include <math.h>

static const char *const TYPES[] = {"sponge", "none", "cpml", NULL};
static const fdw_boundary_type TYPE_VALUES[] = {FDW_BOUNDARY_SPONGE, FDW_BOUNDARY_NONE,
                                                FDW_BOUNDARY_CPML};
static const char *const FACES[] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax", NULL};

/* Reflection and frequency of boundary object o (NULL: absent) for a layer of type type. */
static int parse_reflection(spec_ctx *c, const json_t *o, int type)
{
    fdw_boundary *b = &c->spec->boundary;
    const int cpml = b->type == FDW_BOUNDARY_CPML;
    if (sp_bool(c, o, "boundary", "free_surface", 0, &b->free_surface) ||
        sp_num(c, o, "boundary", "reflection", 0, &b->reflection))
        return -1;
    if (!(b->reflection > 0 && b->reflection < 1))
        return sp_fail(c, "boundary.reflection",
                       "boundary.reflection is %g but must be between 0 and 1 (exclusive)",
                       b->reflection);
    json_t *fq = json_object_get(o, "frequency");
    if (fq && !cpml)
        return sp_fail(c, "boundary.frequency",
                       "boundary.frequency applies to boundary.type \"cpml\" only (the "
                       "type here is \"%s\")",
                       TYPES[type]);
    if (fq) {
        if (sp_num(c, o, "boundary", "frequency", 0, &b->frequency))
            return -1;
        if (!(b->frequency > 0) || !isfinite(b->frequency))
            return sp_fail(c, "boundary.frequency",
                           "boundary.frequency is %g Hz but must be a frequency above 0 "
                           "(the CPML's alpha = pi f at the layer's inner edge)",
                           b->frequency);
    }
    return 0;
}

/* boundary.width w (NULL: the defaults stay): one number for every face or an object of
 * faces (*per_face = 1). */
static int parse_widths(spec_ctx *c, const json_t *w, int *per_face)
{
    fdw_boundary *b = &c->spec->boundary;
    if (w && json_is_object(w)) {
        *per_face = 1;
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
    return 0;
}

/* The widths as the type and free surface make them, each axis left an interior point. */
static int check_widths(spec_ctx *c, const json_t *w, int per_face)
{
    const fdw_spec *s = c->spec;
    fdw_boundary *b = &c->spec->boundary;
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
        b->width[4] = 0; /* the top face reflects; it has no absorbing layer */
    const int n[3] = {s->nx, s->ny, s->nz};
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
    return 0;
}

int wave_parse_boundary(spec_ctx *c, const json_t *root)
{
    static const char *const keys[] = {"type",       "width",     "free_surface",
                                       "reflection", "frequency", NULL};
    fdw_spec *s = c->spec;
    fdw_boundary *b = &s->boundary;
    json_t *o;
    int type = 0;
    b->free_surface = 0;
    b->frequency = 0.0;
    if (sp_object(c, root, "", "boundary", 0, &o))
        return -1;
    if (o && (sp_keys(c, o, "boundary", keys) ||
              sp_enum(c, o, "boundary", "type", 0, TYPES, &type)))
        return -1;
    b->type = TYPE_VALUES[type];
    const int cpml = b->type == FDW_BOUNDARY_CPML;
    b->reflection = cpml ? SP_DEFAULT_CPML_REFLECTION : SP_DEFAULT_REFLECTION;
    /* Default width: the type's (sponge 36, CPML 20 points), but never more than a
     * quarter of the axis, so a small grid without a "boundary" section still has an
     * interior. */
    const int defw = cpml ? SP_DEFAULT_CPML_WIDTH : SP_DEFAULT_SPONGE_WIDTH;
    const int n[3] = {s->nx, s->ny, s->nz};
    for (int f = 0; f < 6; f++) {
        int quarter = (n[f / 2] - 1) / 4;
        b->width[f] = quarter < defw ? quarter : defw;
    }
    json_t *w = o ? json_object_get(o, "width") : NULL;
    int per_face = 0;
    if ((o && parse_reflection(c, o, type)) || parse_widths(c, w, &per_face) ||
        check_widths(c, w, per_face))
        return -1;
    /* The devices asked for must not split a CPML z layer (see cpml.h); a run on another
     * plan (a caller's device list, MPI ranks) checks its own the same way. */
    fdw_error e;
    if (fdw_cpml_check_plan(s, &s->plan, 0, &e) != FDW_OK)
        return sp_fail(c, e.field, "%s", e.message);
    json_t *nw = json_object();
    for (int f = 0; f < 6; f++)
        json_object_set_new(nw, FACES[f], json_integer(b->width[f]));
    json_object_set_new(c->norm, "boundary",
                        json_pack("{sssosbsf}", "type", TYPES[type], "width", nw, "free_surface",
                                  b->free_surface, "reflection", b->reflection));
    return 0;
}

int wave_finish_boundary(spec_ctx *c)
{
    fdw_boundary *b = &c->spec->boundary;
    if (b->type != FDW_BOUNDARY_CPML)
        return 0;
    if (b->frequency == 0.0) {
        if (!(c->f0max > 0))
            return sp_fail(c, "boundary.frequency",
                           "boundary.frequency is needed for a CPML when no source has a "
                           "Ricker wavelet to take its f0 from: give the dominant frequency "
                           "of the wavelets in Hz");
        b->frequency = c->f0max;
    }
    json_t *nb = json_object_get(c->norm, "boundary");
    if (!nb || json_object_set_new(nb, "frequency", json_real(b->frequency)) != 0)
        return sp_fail(c, "boundary", "out of memory writing the normalised boundary");
    return 0;
}
