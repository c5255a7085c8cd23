/* spec.c — the job spec's entry points (fdw_spec_parse/load/free and the accessors of
 * fdwave.h): parse the JSON text, validate the top level (kind, name, grid, order,
 * devices), hand each section to its parser (spec_*.c), collect warnings, and keep the
 * normalised JSON that fdw_spec_to_json returns. */
#include "spec/spec_parse.h"
#include "spec/spec_survey.h"
#include "kinds/kind.h"
#include "output/segy_common.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fd_coeffs.h"


/* ---- helpers shared by the section parsers ---- */

void sp_warn(spec_ctx *c, const char *fmt, ...)
{
    fdw_spec *s = c->spec;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **w = realloc(s->warnings, (size_t)(s->nwarnings + 1) * sizeof *w);
    if (!w)
        return; /* a warning lost to memory exhaustion is not worth failing the parse */
    s->warnings = w;
    s->warnings[s->nwarnings] = strdup(buf);
    if (s->warnings[s->nwarnings])
        s->nwarnings++;
}

int sp_check_inside(spec_ctx *c, const char *field, double pos[3], const char *what)
{
    const fdw_spec *s = c->spec;
    const int n[3] = {s->nx, s->ny, s->nz};
    const double h[3] = {s->dx, s->dy, s->dz};
    static const char axis[3] = {'x', 'y', 'z'};
    for (int a = 0; a < 3; a++) {
        double lo = s->origin[a], hi = s->origin[a] + (n[a] - 1) * h[a];
        /* A relative tolerance lets a position typed as the last node's coordinate pass
         * even when (n-1)*h rounds a hair below it; it is then clamped onto the grid. */
        double tol = 1e-9 * h[a];
        if (pos[a] < lo - tol || pos[a] > hi + tol)
            return sp_fail(c, field,
                           "%s is outside the grid: %c = %g m but the grid spans %c from %g "
                           "to %g m",
                           what, axis[a], pos[a], axis[a], lo, hi);
        pos[a] = fmin(fmax(pos[a], lo), hi);
    }
    return 0;
}

int sp_position(spec_ctx *c, const json_t *obj, const char *path, const char *key,
                double pos[3], const char *what, ...)
{
    char field[SP_PATH], name[64];
    va_list ap;
    va_start(ap, what);
    vsnprintf(name, sizeof name, what, ap);
    va_end(ap);
    sp_key(field, path, key);
    return sp_vec3(c, obj, path, key, 1, pos) || sp_check_inside(c, field, pos, name) ? -1 : 0;
}

void *sp_kspec(spec_ctx *c, size_t size)
{
    void *k = calloc(1, size);
    if (k)
        c->spec->kspec = k;
    else
        sp_fail(c, "", "out of memory parsing the spec");
    return k;
}

int sp_in_sponge(const fdw_spec *s, const double pos[3])
{
    if (s->boundary.type != FDW_BOUNDARY_SPONGE && s->boundary.type != FDW_BOUNDARY_CPML)
        return 0;
    const int n[3] = {s->nx, s->ny, s->nz};
    const double h[3] = {s->dx, s->dy, s->dz};
    for (int a = 0; a < 3; a++) {
        double g = (pos[a] - s->origin[a]) / h[a]; /* fractional grid index */
        int wlo = s->boundary.width[2 * a], whi = s->boundary.width[2 * a + 1];
        if (a == 2 && s->boundary.free_surface)
            wlo = 0;
        if (g < wlo || g > (n[a] - 1) - whi)
            return 1;
    }
    return 0;
}

/* ---- top-level sections ---- */

static int parse_order(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    long long order = 8;
    json_t *v = json_object_get(root, "order");
    if (v) {
        if (sp_value_int(c, v, "order", LLONG_MIN, LLONG_MAX, &order))
            return -1;
        if (order < 2 || order > FDW_MAX_ORDER || order % 2 != 0)
            return sp_fail(c, "order", "order is %lld but must be an even number from 2 to %d",
                           order, FDW_MAX_ORDER);
    }
    if (s->kind->fixed_order && order != s->kind->fixed_order) {
        if (!v) /* absent: the kind's own order */
            order = s->kind->fixed_order;
        else
            return sp_fail(c, "order",
                           "the %s kind computes order %d only: order must be %d (or absent), "
                           "not %lld",
                           s->kind->name, s->kind->fixed_order, s->kind->fixed_order, order);
    }
    s->order = (int)order;
    s->radius = s->order / 2;
    json_object_set_new(c->norm, "order", json_integer(order));
    return 0;
}

static int parse_grid(spec_ctx *c, const json_t *root)
{
    static const char *const keys[] = {"nx", "ny", "nz", "dx", "dy", "dz", "origin", NULL};
    fdw_spec *s = c->spec;
    json_t *g;
    if (sp_object(c, root, "", "grid", 1, &g) || sp_keys(c, g, "grid", keys))
        return -1;
    const char *nk[3] = {"nx", "ny", "nz"}, *hk[3] = {"dx", "dy", "dz"};
    int *n[3] = {&s->nx, &s->ny, &s->nz};
    double *h[3] = {&s->dx, &s->dy, &s->dz};
    int minn = s->order + 1; /* 2*radius + 1 */
    for (int a = 0; a < 3; a++) {
        long long v;
        char field[SP_PATH];
        sp_key(field, "grid", nk[a]);
        if (sp_int(c, g, "grid", nk[a], 1, LLONG_MIN, LLONG_MAX, &v))
            return -1;
        if (v < minn || v > SP_MAX_GRID_N)
            return sp_fail(c, field,
                           "%s is %lld but must be between %d (2 * stencil radius + 1 for "
                           "order %d) and %d",
                           field, v, minn, s->order, SP_MAX_GRID_N);
        *n[a] = (int)v;
    }
    for (int a = 0; a < 3; a++)
        if (sp_pos(c, g, "grid", hk[a], 1, h[a]))
            return -1;
    s->origin[0] = s->origin[1] = s->origin[2] = 0.0;
    if (sp_vec3(c, g, "grid", "origin", 0, s->origin))
        return -1;
    /* The far edge must itself be a finite coordinate, and positions near the grid must
     * resolve a millionth of a cell (float64 carries 16 digits: origin 1e308 with dx 10
     * put every node at the same x). */
    for (int a = 0; a < 3; a++) {
        if (!isfinite(s->origin[a] + (*n[a] - 1) * *h[a]))
            return sp_fail(c, "grid", "the grid extent along %c is not a finite number",
                           "xyz"[a]);
        if (fabs(s->origin[a]) > 1e9 * *h[a])
            return sp_fail(c, "grid.origin",
                           "grid.origin's %c is %g m, more than 1e9 cells (%c spacing %g m) "
                           "from 0: positions there cannot resolve a fraction of a cell; "
                           "shift the coordinates nearer 0", "xyz"[a], s->origin[a], "xyz"[a],
                           *h[a]);
    }
    uint64_t pts = (uint64_t)s->nx * (uint64_t)s->ny * (uint64_t)s->nz;
    uint64_t limit = c->opts && c->opts->max_points ? c->opts->max_points
                                                    : SP_DEFAULT_MAX_POINTS;
    if (pts > limit)
        return sp_fail(c, "grid",
                       "the grid has %llu points (%d x %d x %d), more than the limit of %llu "
                       "points",
                       (unsigned long long)pts, s->nx, s->ny, s->nz, (unsigned long long)limit);
    json_object_set_new(c->norm, "grid",
                        json_pack("{sisisisfsfsfso}", "nx", s->nx, "ny", s->ny, "nz", s->nz,
                                  "dx", s->dx, "dy", s->dy, "dz", s->dz, "origin",
                                  sp_json_vec3(s->origin)));
    return 0;
}

/* A request for devices this host does not have (opts->max_devices): FDW_ERR_DEVICE, so
 * a caller can tell it from an invalid spec (the daemon answers too_many_devices). */
__attribute__((format(printf, 3, 4))) static int no_such_devices(spec_ctx *c,
                                                                 const char *field,
                                                                 const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sp_fail(c, field, "%s", msg);
    c->err->code = FDW_ERR_DEVICE;
    return -1;
}

/* How many devices the host has (0: unknown, no check), whether id is one of them, and
 * their ids for a message ("0 to 3", "2, 3"). */
static int available_devices(const fdw_parse_opts *o)
{
    return !o ? 0 : o->device_ids && o->ndevice_ids > 0 ? o->ndevice_ids : o->max_devices;
}

static int device_exists(const fdw_parse_opts *o, long long id)
{
    if (!o || available_devices(o) <= 0)
        return 1;
    if (!o->device_ids || o->ndevice_ids <= 0)
        return id < o->max_devices;
    for (int i = 0; i < o->ndevice_ids; i++)
        if (o->device_ids[i] == id)
            return 1;
    return 0;
}

static void device_list(const fdw_parse_opts *o, char *out, size_t len)
{
    if (!o->device_ids || o->ndevice_ids <= 0) {
        snprintf(out, len, "0 to %d", o->max_devices - 1);
        return;
    }
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < o->ndevice_ids && at < len; i++)
        at += (size_t)snprintf(out + at, len - at, "%s%d", i ? ", " : "", o->device_ids[i]);
}

static int parse_devices(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    json_t *d = json_object_get(root, "devices");
    long long count = 1;
    const char *cfield = "devices";
    s->device_ids_given = 0;
    if (d && json_is_object(d)) {
        static const char *const keys[] = {"count", "ids", NULL};
        json_t *ids;
        if (sp_keys(c, d, "devices", keys) || sp_array(c, d, "devices", "ids", 0, &ids))
            return -1;
        int have_count = json_object_get(d, "count") != NULL;
        if (!have_count && !ids)
            return sp_fail(c, "devices", "devices must give \"count\", \"ids\" or both");
        cfield = "devices.count";
        if (have_count &&
            sp_int(c, d, "devices", "count", 1, LLONG_MIN, LLONG_MAX, &count))
            return -1;
        if (ids) {
            size_t n = json_array_size(ids);
            if (!have_count)
                count = (long long)n;
            if (n == 0 || n > FDW_MAX_DEVICES)
                return sp_fail(c, "devices.ids",
                               "devices.ids must list 1 to %d device ids, not %zu",
                               FDW_MAX_DEVICES, n);
            if ((long long)n != count)
                return sp_fail(c, "devices.ids",
                               "devices.ids lists %zu ids but devices.count is %lld", n, count);
            for (size_t i = 0; i < n; i++) {
                char field[SP_PATH];
                long long id;
                sp_idx(field, "devices.ids", i);
                if (sp_value_int(c, json_array_get(ids, i), field, 0, INT_MAX, &id))
                    return -1;
                for (size_t j = 0; j < i; j++)
                    if (s->device_ids[j] == id)
                        return sp_fail(c, field, "device id %lld is listed twice", id);
                if (!device_exists(c->opts, id)) {
                    char list[256];
                    device_list(c->opts, list, sizeof list);
                    return no_such_devices(c, field, "there is no device %lld: the devices "
                                           "are %s", id, list);
                }
                s->device_ids[i] = (int)id;
            }
            s->device_ids_given = 1;
        }
    } else if (d) {
        if (!json_is_number(d))
            return sp_fail(c, "devices",
                           "devices must be a count (integer) or an object {\"count\", "
                           "\"ids\"}, not %s",
                           sp_type_name(d));
        if (sp_value_int(c, d, "devices", LLONG_MIN, LLONG_MAX, &count))
            return -1;
    }
    if (count < 1 || count > FDW_MAX_DEVICES)
        return sp_fail(c, cfield, "%s is %lld but must be between 1 and %d", cfield, count,
                       FDW_MAX_DEVICES);
    const int avail = available_devices(c->opts);
    if (avail > 0 && count > avail)
        return no_such_devices(c, cfield, "%lld devices requested but only %d %s available",
                               count, avail, avail == 1 ? "is" : "are");
    const int radius = s->radius;
    if (s->nz / count < radius)
        return sp_fail(c, cfield,
                       "splitting nz = %d planes over %lld devices gives slabs of %lld planes, "
                       "thinner than the stencil radius %d; use at most %d devices",
                       s->nz, count, s->nz / count, radius, s->nz / radius);
    s->ndevices = (int)count;
    if (!s->device_ids_given)
        for (int i = 0; i < s->ndevices; i++)
            s->device_ids[i] = i;
    fdw_error e;
    if (fdw_plan_slabs(s->nz, radius, s->ndevices, s->device_ids, &s->plan, &e) != FDW_OK)
        return sp_fail(c, cfield, "%s", e.message);
    json_t *nd = json_pack("{si}", "count", s->ndevices);
    if (s->device_ids_given) {
        json_t *arr = json_array();
        for (int i = 0; i < s->ndevices; i++)
            json_array_append_new(arr, json_integer(s->device_ids[i]));
        json_object_set_new(nd, "ids", arr);
    }
    json_object_set_new(c->norm, "devices", nd);
    return 0;
}

/* Members allowed at the top level: the common ones and the kind's own; a member another
 * kind owns gets a message saying it does not apply. */
static int check_top_keys(spec_ctx *c, const json_t *root)
{
    static const char *const common[] = {"kind", "name", "grid", "order", "devices",
                                         "snapshots", "wall_time", NULL};
    const fdw_kind_ops *kind = c->spec->kind;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)root, key, val) {
        /* The common keys and the kind's own first: only a key that is neither is looked
         * up in the other kinds' sections, to say it does not apply. */
        int ok = 0, other = 0;
        for (int i = 0; !ok && common[i]; i++)
            ok = strcmp(key, common[i]) == 0;
        for (int i = 0; !ok && kind->section.keys[i]; i++)
            ok = strcmp(key, kind->section.keys[i]) == 0;
        if (ok)
            continue;
        for (int k = 0; fdw_kind_at(k); k++)
            for (int i = 0; fdw_kind_at(k)->section.keys[i]; i++)
                other |= strcmp(key, fdw_kind_at(k)->section.keys[i]) == 0;
        if (other)
            return sp_fail(c, key, "\"%s\" does not apply to kind \"%s\"", key, kind->name);
        char own[256] = "";
        size_t at = 0;
        for (int i = 0; kind->section.keys[i] && at < sizeof own; i++)
            at += (size_t)snprintf(own + at, sizeof own - at, "%s%s", i ? ", " : "",
                                   kind->section.keys[i]);
        return sp_fail(c, key,
                       "unknown field \"%s\" in the spec (known fields for kind \"%s\": kind, "
                       "name, grid, order, devices, snapshots, wall_time, %s)",
                       key, kind->name, own);
    }
    return 0;
}

/* The spec's "kind" (default "acoustic"): one of the kind table's names. */
static int parse_kind(spec_ctx *c, const json_t *root)
{
    const char *names[32];
    int n = 0, k = 0;
    while (n < 31 && fdw_kind_at(n)) {
        names[n] = fdw_kind_at(n)->name;
        n++;
    }
    names[n] = NULL;
    if (sp_enum(c, root, "", "kind", 0, names, &k))
        return -1;
    c->spec->kind = fdw_kind_at(k);
    json_object_set_new(c->norm, "kind", json_string(names[k]));
    return 0;
}

/* Warnings that need the whole spec: the kind's own, then very large snapshot volumes. */
static void collect_warnings(spec_ctx *c)
{
    fdw_spec *s = c->spec;
    if (s->kind->section.warnings)
        s->kind->section.warnings(c);
    for (int i = 0; i < s->nslices; i++)
        if (s->slices[i].plane == FDW_PLANE_VOLUME && s->snapshot_every > 0) {
            double gib = (double)fdw_spec_points(s) * 4.0 / (1024.0 * 1024.0 * 1024.0);
            if (gib > 1.0)
                sp_warn(c, "each volume snapshot is %.2f GiB", gib);
        }
}

/* ---- public entry points ---- */

static fdw_status parse_root(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    if (parse_kind(c, root))
        return FDW_ERR_SPEC;
    if (check_top_keys(c, root) || sp_string(c, root, "", "name", 0, s->name, sizeof s->name))
        return FDW_ERR_SPEC;
    json_object_set_new(c->norm, "name", json_string(s->name));
    if (parse_order(c, root) || parse_grid(c, root))
        return FDW_ERR_SPEC;
    if (parse_devices(c, root))
        return c->err->code;
    if (s->kind->section.parse(c, root) || sp_parse_snapshots(c, root) || sp_parse_wall_time(c, root))
        return FDW_ERR_SPEC;
    if (s->survey && s->snapshot_every > 0)
        return sp_fail(c, "snapshots",
                       "a survey job takes no snapshots: run the shot you want to see as a "
                       "single-shot job"), FDW_ERR_SPEC;
    collect_warnings(c);
    /* Keep the normalised form; its reals read back as the same doubles. */
    s->json = sp_dump(c->norm);
    if (!s->json)
        return fdw_fail(c->err, FDW_ERR_NOMEM, "", "out of memory writing the normalised spec");
    return FDW_OK;
}

static fdw_status parse_with_base(const char *json, size_t len, const fdw_parse_opts *opts,
                                  const char *base_dir, fdw_spec **out, fdw_error *err)
{
    fdw_error_clear(err);
    if (out)
        *out = NULL;
    if (!out)
        return fdw_fail(err, FDW_ERR_INTERNAL, "", "fdw_spec_parse: out is NULL");
    size_t i = 0;
    while (json && i < len && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' ||
                               json[i] == '\r'))
        i++;
    if (!json || i == len)
        return fdw_fail(err, FDW_ERR_SPEC, "", "the spec is empty: expected a JSON object");
    json_error_t jerr;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!root)
        return fdw_fail(err, FDW_ERR_SPEC, "", "invalid JSON at line %d, column %d: %s",
                        jerr.line, jerr.column, jerr.text);
    if (!json_is_object(root)) {
        fdw_fail(err, FDW_ERR_SPEC, "", "the spec must be a JSON object, not %s",
                 sp_type_name(root));
        json_decref(root);
        return FDW_ERR_SPEC;
    }
    fdw_spec *s = calloc(1, sizeof *s);
    json_t *norm = json_object();
    if (!s || !norm) {
        free(s);
        json_decref(norm);
        json_decref(root);
        return fdw_fail(err, FDW_ERR_NOMEM, "", "out of memory parsing the spec");
    }
    fdw_error local = {0};
    spec_ctx c = {.opts = opts,
                  .base_dir = base_dir,
                  .spec = s,
                  .err = err ? err : &local,
                  .norm = norm,
                  .f0max = 0};
    fdw_status st = parse_root(&c, root);
    json_decref(norm);
    json_decref(root);
    if (st != FDW_OK) {
        fdw_spec_free(s);
        return st;
    }
    *out = s;
    return FDW_OK;
}

fdw_status fdw_spec_parse(const char *json, size_t len, const fdw_parse_opts *opts,
                          fdw_spec **out, fdw_error *err)
{
    const char *base = opts && opts->base_dir ? opts->base_dir : ".";
    return parse_with_base(json, len, opts, base, out, err);
}

fdw_status fdw_spec_load(const char *path, const fdw_parse_opts *opts, fdw_spec **out,
                         fdw_error *err)
{
    fdw_error_clear(err);
    if (out)
        *out = NULL;
    if (!path)
        return fdw_fail(err, FDW_ERR_IO, "", "no spec file given");
    FILE *f = fopen(path, "rb");
    if (!f)
        return fdw_fail(err, FDW_ERR_IO, "", "cannot open spec file %s: %s", path,
                        strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            if (cap >= (size_t)1 << 30) { /* a spec is kilobytes; refuse absurd files */
                free(buf);
                fclose(f);
                return fdw_fail(err, FDW_ERR_IO, "", "spec file %s is larger than 1 GiB",
                                path);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int rerr = ferror(f);
    fclose(f);
    if (!buf)
        return fdw_fail(err, FDW_ERR_NOMEM, "", "out of memory reading spec file %s", path);
    if (rerr) {
        free(buf);
        return fdw_fail(err, FDW_ERR_IO, "", "error reading spec file %s", path);
    }
    char dir[FDW_PATH_MAX];
    if (opts && opts->base_dir) {
        snprintf(dir, sizeof dir, "%s", opts->base_dir);
    } else {
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (!slash)
            snprintf(dir, sizeof dir, ".");
        else if (slash == dir)
            dir[1] = '\0';
        else
            *slash = '\0';
    }
    fdw_status st = parse_with_base(buf, len, opts, dir, out, err);
    free(buf);
    return st;
}

void fdw_spec_free(fdw_spec *spec)
{
    if (!spec)
        return;
    free(spec->velocity.layers);
    for (int i = 0; i < spec->nsources; i++)
        free(spec->sources[i].samples);
    free(spec->sources);
    free(spec->receivers);
    free(spec->slices);
    for (int i = 0; i < spec->nwarnings; i++)
        free(spec->warnings[i]);
    free(spec->warnings);
    free(spec->json);
    fdw_survey_free(spec->survey);
    if (spec->kind && spec->kind->section.free)
        spec->kind->section.free(spec);
    free(spec);
}

const char *fdw_spec_kind(const fdw_spec *spec)
{
    return spec && spec->kind ? spec->kind->name : NULL;
}

int fdw_spec_devices(const fdw_spec *spec)
{
    return spec ? spec->ndevices : 0;
}

const char *fdw_spec_name(const fdw_spec *spec)
{
    return spec ? spec->name : NULL;
}

int fdw_spec_device_ids(const fdw_spec *spec, int *ids, int cap)
{
    if (!spec || !spec->device_ids_given)
        return 0;
    for (int i = 0; i < spec->ndevices && i < cap; i++)
        ids[i] = spec->device_ids[i];
    return spec->ndevices;
}

uint64_t fdw_spec_points(const fdw_spec *spec)
{
    return spec ? (uint64_t)spec->nx * (uint64_t)spec->ny * (uint64_t)spec->nz : 0;
}

long fdw_spec_steps(const fdw_spec *spec)
{
    return spec ? spec->nt : 0;
}

double fdw_spec_wall_time(const fdw_spec *spec)
{
    return spec ? spec->wall_time_s : 0.0;
}

double fdw_spec_dt(const fdw_spec *spec)
{
    return spec && spec->kind && spec->kind->wave ? spec->dt : 0.0;
}

int fdw_spec_shots(const fdw_spec *spec)
{
    return spec && spec->survey ? spec->survey->nshots : 0;
}

int fdw_spec_warning_count(const fdw_spec *spec)
{
    return spec ? spec->nwarnings : 0;
}

const char *fdw_spec_warning(const fdw_spec *spec, int i)
{
    if (!spec || i < 0 || i >= spec->nwarnings)
        return NULL;
    return spec->warnings[i];
}

char *fdw_spec_to_json(const fdw_spec *spec)
{
    if (!spec || !spec->json)
        return NULL;
    return strdup(spec->json);
}
