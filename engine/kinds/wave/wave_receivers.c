/* wave_receivers.c — the "receivers" section: explicit points, lines of evenly spaced
 * receivers and planes of receivers on grid nodes (numbered as inlines and crosslines),
 * expanded into fdw_spec.receivers in that order (points, then lines, then planes), their
 * interpolation and recording interval. The normalised spec keeps the compact form the
 * user wrote. */
#include "kinds/wave/wave_spec.h"
#include "run/positioning.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const AXES[] = {"x", "y", "z", NULL};

/* Receivers a plane yields: one per node of the other two axes, every stride-th. */
static long long plane_count(const fdw_spec *s, int axis, long long stride)
{
    const int n[3] = {s->nx, s->ny, s->nz};
    int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;
    return ((n[a1] + stride - 1) / stride) * ((n[a2] + stride - 1) / stride);
}

/* Append the receivers of one plane at coordinate pos along axis. Order: the slower of
 * the two in-plane axes outermost, so the list follows the grid's memory order. */
static void expand_plane(fdw_spec *s, int axis, double pos, int stride)
{
    const int n[3] = {s->nx, s->ny, s->nz};
    const double h[3] = {s->dx, s->dy, s->dz};
    int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2; /* a1 faster than a2 */
    for (int q = 0; q < n[a2]; q += stride)
        for (int p = 0; p < n[a1]; p += stride) {
            fdw_receiver *r = &s->receivers[s->nreceivers++];
            r->iline = q / stride + 1; /* the slower in-plane axis numbers the inlines */
            r->xline = p / stride + 1;
            r->pos[axis] = pos;
            r->pos[a1] = s->origin[a1] + p * h[a1];
            r->pos[a2] = s->origin[a2] + q * h[a2];
        }
}

/* The rows (z planes) and taps the receivers' interpolation reads (run/positioning.h):
 * what the backends record (rows x samples floats) and what the run holds on the host
 * (taps), refused together above the recording limit. */
static int count_rows(spec_ctx *c, uint64_t slots)
{
    fdw_spec *s = c->spec;
    long long rows = 0, taps = 0;
    for (int i = 0; i < s->nreceivers; i++) {
        int planes;
        taps += fdw_position_extent(s, s->receivers[i].pos, s->receiver_interp, &planes);
        rows += planes;
    }
    s->nrec_rows = rows;
    s->nrec_taps = taps;
    const uint64_t bytes = (uint64_t)rows * slots * 4u + (uint64_t)taps * sizeof(fdw_tap);
    if (bytes > sp_max_record_bytes(c) || taps > INT_MAX || rows > INT_MAX)
        return sp_fail(c, "receivers",
                       "%d receivers interpolated by %s read %lld grid planes (%lld points); "
                       "recording %llu samples each needs %llu bytes, at most %llu are "
                       "allowed (receivers on grid nodes, \"interpolation\": \"linear\", or "
                       "a larger receivers.interval)",
                       s->nreceivers, s->receiver_interp == FDW_INTERP_SINC ? "sinc" : "linear",
                       rows, taps, (unsigned long long)slots, (unsigned long long)bytes,
                       (unsigned long long)sp_max_record_bytes(c));
    return 0;
}

/* The receivers counted up to and including the entry at field exceed the limit: refused
 * before anything is expanded. */
static int too_many(spec_ctx *c, const char *field, long long total)
{
    return sp_fail(c, field,
                   "with %s the receivers expand to %lld points or more; at most %ld are "
                   "allowed",
                   field, total, sp_max_receivers(c));
}

/* The section's own members: its keys, the arrays (NULL when absent), the interval (which
 * time.sample_interval may have fixed already, wave_time.c) and the interpolation. */
static int parse_members(spec_ctx *c, const json_t *r, json_t *norm, json_t **points,
                         json_t **lines, json_t **planes)
{
    static const char *const keys[] = {"points",   "lines",         "planes",
                                       "interval", "interpolation", NULL};
    fdw_spec *s = c->spec;
    const int by_time = s->sample_interval > 0 && s->receiver_interval >= 1;
    long long interval = by_time ? s->receiver_interval : 1;
    s->receiver_interval = (int)interval;
    s->receiver_interp = FDW_INTERP_SINC;
    if (r && (sp_keys(c, r, "receivers", keys) ||
              sp_array(c, r, "receivers", "points", 0, points) ||
              sp_array(c, r, "receivers", "lines", 0, lines) ||
              sp_array(c, r, "receivers", "planes", 0, planes) ||
              sp_int(c, r, "receivers", "interval", 0, 1, SP_MAX_NT, &interval) ||
              wave_parse_interp(c, r, "receivers", &s->receiver_interp, norm)))
        return -1;
    if (!r)
        json_object_set_new(norm, "interpolation", json_string("sinc"));
    if (by_time && interval != s->receiver_interval)
        return sp_fail(c, "receivers.interval",
                       "receivers.interval is %lld steps but time.sample_interval %.9g s is "
                       "%d steps of dt %.9g s: give one of them",
                       interval, s->sample_interval, s->receiver_interval, s->dt);
    if (interval > s->nt)
        return sp_fail(c, "receivers.interval",
                       "receivers.interval is %lld but the run has only %ld steps", interval,
                       s->nt);
    s->receiver_interval = (int)interval;
    return 0;
}

/* An empty array for the normalised member key when the spec has it (else NULL). */
static json_t *norm_array(json_t *norm, const char *key, const json_t *given)
{
    if (!given)
        return NULL;
    json_t *a = json_array();
    json_object_set_new(norm, key, a);
    return a;
}

/* Pass 1, points: each inside the grid (clamped) into npts; counted into *total. */
static int check_points(spec_ctx *c, const json_t *points, json_t *npts, long long *total)
{
    for (size_t i = 0; points && i < json_array_size(points); i++) {
        char field[SP_PATH], what[48];
        double pos[3];
        sp_idx(field, "receivers.points", i);
        snprintf(what, sizeof what, "receiver point %zu", i);
        if (sp_value_vec3(c, json_array_get(points, i), field, pos) ||
            sp_check_inside(c, field, pos, what))
            return -1;
        json_array_append_new(npts, sp_json_vec3(pos));
        if (++*total > sp_max_receivers(c))
            return too_many(c, field, *total);
    }
    return 0;
}

/* Pass 1, lines: both ends inside the grid, a count; into nlines. */
static int check_lines(spec_ctx *c, const json_t *lines, json_t *nlines, long long *total)
{
    static const char *const lkeys[] = {"from", "to", "count", NULL};
    for (size_t i = 0; lines && i < json_array_size(lines); i++) {
        char path[SP_PATH];
        json_t *l = json_array_get(lines, i);
        double from[3], to[3];
        long long count;
        sp_idx(path, "receivers.lines", i);
        if (sp_entry(c, l, path, "{\"from\", \"to\", \"count\"}", lkeys) ||
            sp_position(c, l, path, "from", from, "the start of receiver line %zu", i) ||
            sp_position(c, l, path, "to", to, "the end of receiver line %zu", i) ||
            sp_int(c, l, path, "count", 1, 1, sp_max_receivers(c), &count))
            return -1;
        *total += count;
        if (*total > sp_max_receivers(c))
            return too_many(c, path, *total);
        json_array_append_new(nlines, json_pack("{sososI}", "from", sp_json_vec3(from), "to",
                                                sp_json_vec3(to), "count", (json_int_t)count));
    }
    return 0;
}

/* Pass 1, planes: an axis, a position inside the grid (clamped), a stride; into nplanes. */
static int check_planes(spec_ctx *c, const json_t *planes, json_t *nplanes, long long *total)
{
    static const char *const pkeys[] = {"axis", "position", "stride", NULL};
    const fdw_spec *s = c->spec;
    for (size_t i = 0; planes && i < json_array_size(planes); i++) {
        char path[SP_PATH], field[SP_PATH];
        json_t *p = json_array_get(planes, i);
        int axis = 0;
        double pos;
        long long stride = 1;
        sp_idx(path, "receivers.planes", i);
        if (!json_is_object(p))
            return sp_fail(c, path,
                           "%s must be an object {\"axis\", \"position\", \"stride\"}, not %s",
                           path, sp_type_name(p));
        if (sp_keys(c, p, path, pkeys) || sp_enum(c, p, path, "axis", 1, AXES, &axis) ||
            sp_num(c, p, path, "position", 1, &pos) ||
            sp_int(c, p, path, "stride", 0, 1, SP_MAX_GRID_N, &stride))
            return -1;
        const int n[3] = {s->nx, s->ny, s->nz};
        const double h[3] = {s->dx, s->dy, s->dz};
        double lo = s->origin[axis], hi = lo + (n[axis] - 1) * h[axis], tol = 1e-9 * h[axis];
        sp_key(field, path, "position");
        if (pos < lo - tol || pos > hi + tol)
            return sp_fail(c, field,
                           "receiver plane %zu at %s = %g m is outside the grid, which spans %s "
                           "from %g to %g m",
                           i, AXES[axis], pos, AXES[axis], lo, hi);
        pos = fmin(fmax(pos, lo), hi);
        *total += plane_count(s, axis, stride);
        if (*total > sp_max_receivers(c))
            return too_many(c, path, *total);
        json_array_append_new(nplanes, json_pack("{sssfsI}", "axis", AXES[axis], "position",
                                                 pos, "stride", (json_int_t)stride));
    }
    return 0;
}

/* Pass 2: the receivers expanded from the validated, normalised copies (NULL: none). */
static int expand(spec_ctx *c, long long total, const json_t *npts, const json_t *nlines,
                  const json_t *nplanes)
{
    fdw_spec *s = c->spec;
    s->receivers = calloc((size_t)total, sizeof *s->receivers);
    if (!s->receivers)
        return sp_fail(c, "receivers", "out of memory for %lld receivers", total);
    for (size_t i = 0; npts && i < json_array_size(npts); i++) {
        fdw_receiver *rc = &s->receivers[s->nreceivers++];
        json_t *v = json_array_get(npts, i); /* the clamped, validated copy */
        for (int a = 0; a < 3; a++)
            rc->pos[a] = json_real_value(json_array_get(v, (size_t)a));
    }
    for (size_t i = 0; nlines && i < json_array_size(nlines); i++) {
        json_t *l = json_array_get(nlines, i);
        double from[3], to[3];
        long long count = json_integer_value(json_object_get(l, "count"));
        for (int a = 0; a < 3; a++) {
            from[a] = json_real_value(json_array_get(json_object_get(l, "from"), (size_t)a));
            to[a] = json_real_value(json_array_get(json_object_get(l, "to"), (size_t)a));
        }
        for (long long k = 0; k < count; k++) {
            double t = count > 1 ? (double)k / (double)(count - 1) : 0.0;
            fdw_receiver *rc = &s->receivers[s->nreceivers++];
            for (int a = 0; a < 3; a++)
                rc->pos[a] = k == count - 1 && count > 1 ? to[a] : from[a] + t * (to[a] - from[a]);
        }
    }
    for (size_t i = 0; nplanes && i < json_array_size(nplanes); i++) {
        json_t *p = json_array_get(nplanes, i);
        const char *ax = json_string_value(json_object_get(p, "axis"));
        int axis = ax[0] - 'x';
        expand_plane(s, axis, json_real_value(json_object_get(p, "position")),
                     (int)json_integer_value(json_object_get(p, "stride")));
    }
    return 0;
}

int wave_parse_receivers(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    json_t *r, *points = NULL, *lines = NULL, *planes = NULL;
    if (sp_object(c, root, "", "receivers", 0, &r))
        return -1;
    json_t *norm = json_object();
    json_object_set_new(c->norm, "receivers", norm);
    if (parse_members(c, r, norm, &points, &lines, &planes))
        return -1;

    /* Pass 1: validate and count, into the normalised form. */
    json_t *npts = norm_array(norm, "points", points);
    json_t *nlines = norm_array(norm, "lines", lines);
    json_t *nplanes = norm_array(norm, "planes", planes);
    json_object_set_new(norm, "interval", json_integer(s->receiver_interval));
    long long total = 0;
    if (check_points(c, points, npts, &total) || check_lines(c, lines, nlines, &total) ||
        check_planes(c, planes, nplanes, &total))
        return -1;
    if (total == 0)
        return 0;
    /* What the recordings take: receivers x recorded samples x 4 bytes. */
    const uint64_t slots = (uint64_t)(s->nt / s->receiver_interval) + 1;
    const uint64_t bytes = (uint64_t)total * slots * 4u;
    if (bytes > sp_max_record_bytes(c))
        return sp_fail(c, "receivers",
                       "%lld receivers recording %llu samples each need %llu bytes; at most "
                       "%llu are allowed (fewer receivers, or a larger receivers.interval)",
                       total, (unsigned long long)slots, (unsigned long long)bytes,
                       (unsigned long long)sp_max_record_bytes(c));

    /* Pass 2: expand (everything was validated above). */
    if (expand(c, total, npts, nlines, nplanes))
        return -1;
    return count_rows(c, slots);
}
