/* field_spec.c — what the field kinds (stencil, derivative: iterations of an update of a
 * field with an initial value, no time, sources, receivers or boundary) share in their
 * spec: the "iterations" member, the settings of the wave sections they leave unused, and
 * the device memory of their two fields. */
#include "kinds/field/field_spec.h"

int field_parse(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    s->dt = 0;
    s->dt_auto = 0;
    s->dt_safety = SP_DEFAULT_SAFETY;
    s->boundary.type = FDW_BOUNDARY_NONE;
    s->boundary.reflection = SP_DEFAULT_REFLECTION;
    s->receiver_interval = 1;
    long long it;
    if (sp_int(c, root, "", "iterations", 1, 1, SP_MAX_NT, &it))
        return -1;
    s->nt = (long)it;
    json_object_set_new(c->norm, "iterations", json_integer(it));
    return 0;
}

uint64_t field_device_bytes(const fdw_spec *spec)
{
    const uint64_t plane = (uint64_t)spec->nx * (uint64_t)spec->ny;
    const uint64_t radius = (uint64_t)spec->radius;
    const uint64_t bounds = spec->ndevices > 1 ? (uint64_t)(spec->ndevices - 1) : 0;
    return 8 * fdw_spec_points(spec) + bounds * 2 * radius * plane * 4 * 2;
}
