/* imaging_spec.c — the imaging kinds' spec (imaging.h): the acoustic kind's wave sections
 * (velocity: the background or migration velocity; time with the finite-difference dt
 * rule; boundary sponge or none, free surface; sources: the shot; receivers, required
 * unless SEG-Y data's headers give them) and each kind's own: born's "perturbation" (dv
 * per point from a file, points, or layers), rtm's and gradient's "data" (traces at the
 * spec's receivers, [receiver][sample] float32, the receivers' sampling: fdwave's own
 * gather.f32 of the same geometry; or a shot of a SEG-Y file: imaging_segy.c), rtm's
 * "imaging" (condition, illumination, Laplacian) and gradient's "gradient" (parameter).
 * A survey (spec_survey.c) runs its shots as such specs, the data then every shot's traces
 * in shot order (a forward survey's all_shots.f32). What these kinds do not take (snapshots;
 * a CPML bottom layer whose stencil reaches the free surface's mirror) is refused naming
 * it. A survey of SEG-Y data takes the file's every FFID as a
 * shot (imaging_segy_survey.c), or reads each listed shot from its own file
 * (imaging_segy_shots.c). Through the daemon, "data": {"name"} (and a listed shot's) names
 * an upload, resolved here to its file (fdw_parse_opts.resolve_data). */
#include "kinds/imaging/imaging.h"
#include "kinds/imaging/imaging_recon.h"
#include "kinds/wave/wave_spec.h"
#include "spec/spec_survey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const MODE_NAME[] = {"born", "rtm", "gradient"};

/* What the kinds refuse before the shared sections look at it. */
static int refuse(spec_ctx *c, const json_t *root, img_mode mode)
{
    const char *kind = MODE_NAME[mode];
    const int survey = json_object_get(root, "survey") != NULL;
    /* the normalised spec's "snapshots": {"every": 0, ...} asks for none */
    const json_t *snap = json_object_get(root, "snapshots");
    const json_t *every = json_is_object(snap) ? json_object_get(snap, "every") : NULL;
    if (snap && !(json_is_integer(every) && json_integer_value(every) == 0))
        return sp_fail(c, "snapshots", "kind \"%s\" takes no snapshots: its outputs are "
                       "written when the shot ends", kind);
    const int segy = mode != IMG_BORN && fdw_img_segy_wanted(root);
    if (segy && json_object_get(root, "receivers"))
        return sp_fail(c, "receivers", "kind \"%s\" with data.format \"segy\" takes its "
                       "receivers from the data's trace headers: leave \"receivers\" out", kind);
    if (!segy && !survey && !json_object_get(root, "receivers"))
        return sp_fail(c, "receivers", "kind \"%s\" needs \"receivers\": %s", kind,
                       mode == IMG_BORN ? "where the scattered traces are recorded"
                                        : "where the traces of \"data\" were recorded");
    return 0;
}

/* A kind data file (data.path, perturbation.path): resolved with the submitter's rights,
 * holding exactly `floats` float32 values. */
static int data_file(spec_ctx *c, const json_t *o, const char *sect, uint64_t floats,
                     const char *what, char *out)
{
    char given[FDW_PATH_MAX], field[SP_PATH];
    sp_key(field, sect, "path");
    static const char *const keys[] = {"format", "path", "name", NULL};
    static const char *const formats[] = {"raw-f32", NULL};
    int fmt = 0;
    if (sp_keys(c, o, sect, keys) || sp_enum(c, o, sect, "format", 0, formats, &fmt) ||
        sp_string(c, o, sect, "path", 1, given, sizeof given) ||
        sp_resolve_path(c, field, given, FDW_FILE_KIND_DATA, "raw-f32", 1, NULL, out))
        return -1;
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISREG(st.st_mode))
        return sp_fail(c, field, "%s: \"%.512s\" is not a regular file", field, given);
    if ((uint64_t)st.st_size != floats * 4)
        return sp_fail(c, field, "%s holds %lld bytes but %s are %llu float32 values (%llu "
                       "bytes)", field, (long long)st.st_size, what,
                       (unsigned long long)floats, (unsigned long long)floats * 4);
    return 0;
}

/* born's "perturbation". */
static int parse_perturbation(spec_ctx *c, const json_t *root, fdw_img_spec *k, json_t *norm)
{
    const fdw_spec *s = c->spec;
    json_t *o;
    if (sp_object(c, root, "", "perturbation", 1, &o))
        return -1;
    static const char *const types[] = {"file", "points", "layers", NULL};
    int t = 0;
    if (sp_enum(c, o, "perturbation", "type", 1, types, &t))
        return -1;
    k->pert = (img_pert_type)t;
    json_object_set_new(norm, "type", json_string(types[t]));
    if (k->pert == IMG_PERT_FILE) {
        json_t *copy = json_deep_copy(o);
        json_object_del(copy, "type");
        const uint64_t n = (uint64_t)s->nx * s->ny * s->nz;
        const int rc = data_file(c, copy, "perturbation", n, "the grid's points", k->pert_path);
        json_decref(copy);
        if (rc)
            return -1;
        json_object_set_new(norm, "format", json_string("raw-f32"));
        json_object_set_new(norm, "path", json_string(k->pert_path));
        return 0;
    }
    const char *member = k->pert == IMG_PERT_POINTS ? "points" : "layers";
    static const char *const okeys_points[] = {"type", "points", NULL};
    static const char *const okeys_layers[] = {"type", "layers", NULL};
    json_t *arr;
    if (sp_keys(c, o, "perturbation", k->pert == IMG_PERT_POINTS ? okeys_points : okeys_layers) ||
        sp_array(c, o, "perturbation", member, 1, &arr))
        return -1;
    char path[SP_PATH];
    sp_key(path, "perturbation", member);
    const size_t n = json_array_size(arr);
    if (n < 1 || n > IMG_MAX_PIECES)
        return sp_fail(c, path, "%s holds %zu entries; give 1 to %d", path, n, IMG_MAX_PIECES);
    json_t *out = json_array();
    json_object_set_new(norm, member, out);
    for (size_t i = 0; i < n; i++) {
        char ip[SP_PATH];
        sp_idx(ip, path, i);
        const json_t *e = json_array_get(arr, i);
        img_piece *p = &k->pieces[i];
        static const char *const pkeys[] = {"position", "dv", NULL};
        static const char *const lkeys[] = {"top", "dv", NULL};
        if (!json_is_object(e))
            return sp_fail(c, ip, "%s must be an object, not %s", ip, sp_type_name(e));
        if (sp_keys(c, e, ip, k->pert == IMG_PERT_POINTS ? pkeys : lkeys) ||
            sp_num(c, e, ip, "dv", 1, &p->dv))
            return -1;
        char dvf[SP_PATH];
        sp_key(dvf, ip, "dv");
        if (!(fabs(p->dv) < s->vmin))
            return sp_fail(c, dvf, "%s is %g m/s: a perturbation must stay below the "
                           "smallest velocity (%g m/s) in size", dvf, p->dv, s->vmin);
        if (k->pert == IMG_PERT_POINTS) {
            if (sp_vec3(c, e, ip, "position", 1, p->pos))
                return -1;
            char pf[SP_PATH];
            sp_key(pf, ip, "position");
            if (sp_check_inside(c, pf, p->pos, "the point"))
                return -1;
            json_array_append_new(out, json_pack("{sosf}", "position", sp_json_vec3(p->pos),
                                                 "dv", p->dv));
        } else {
            if (sp_num(c, e, ip, "top", 1, &p->pos[2]))
                return -1;
            if (i > 0 && !(p->pos[2] > k->pieces[i - 1].pos[2])) {
                char tf[SP_PATH];
                sp_key(tf, ip, "top");
                return sp_fail(c, tf, "%s is %g m: layers go down, each top below the last "
                               "(%g m)", tf, p->pos[2], k->pieces[i - 1].pos[2]);
            }
            json_array_append_new(out, json_pack("{sfsf}", "top", p->pos[2], "dv", p->dv));
        }
        k->npieces = (int)i + 1;
    }
    return 0;
}

/* rtm's and gradient's "data" (SEG-Y: imaging_segy.c). */
static int parse_data(spec_ctx *c, const json_t *root, fdw_img_spec *k, json_t *norm)
{
    const fdw_spec *s = c->spec;
    static const char *const formats[] = {"raw-f32", "segy", NULL};
    json_t *o;
    int fmt = 0;
    if (k->segy)
        return fdw_img_segy_finish(c, k, norm);
    if (sp_object(c, root, "", "data", 1, &o) || sp_enum(c, o, "data", "format", 0, formats, &fmt))
        return -1;
    const long slots = s->nt / (s->receiver_interval > 0 ? s->receiver_interval : 1) + 1;
    const uint64_t traces = s->survey ? (uint64_t)s->survey->traces : (uint64_t)s->nreceivers;
    const uint64_t n = traces * (uint64_t)slots;
    char what[200];
    if (s->survey)
        snprintf(what, sizeof what, "the survey's %llu traces (each shot's receivers, the "
                 "shots in order) x %ld samples", (unsigned long long)traces, slots);
    else
        snprintf(what, sizeof what, "%d receivers x %ld samples", s->nreceivers, slots);
    if (data_file(c, o, "data", n, what, k->data_path))
        return -1;
    json_object_set_new(norm, "format", json_string("raw-f32"));
    json_object_set_new(norm, "path", json_string(k->data_path));
    return 0;
}

static int parse_imaging(spec_ctx *c, const json_t *root, fdw_img_spec *k, json_t *norm)
{
    json_t *o;
    static const char *const keys[] = {"condition", "illumination", "laplacian", NULL};
    static const char *const conds[] = {"adjoint", "crosscorrelation", NULL};
    int cond = 0;
    if (sp_object(c, root, "", "imaging", 0, &o) || (o && sp_keys(c, o, "imaging", keys)) ||
        (o && (sp_enum(c, o, "imaging", "condition", 0, conds, &cond) ||
               sp_bool(c, o, "imaging", "illumination", 0, &k->illumination) ||
               sp_bool(c, o, "imaging", "laplacian", 0, &k->laplacian))))
        return -1;
    k->condition = (img_condition)cond;
    json_object_set_new(norm, "condition", json_string(conds[cond]));
    json_object_set_new(norm, "illumination", json_boolean(k->illumination));
    json_object_set_new(norm, "laplacian", json_boolean(k->laplacian));
    return 0;
}

static int parse_gradient(spec_ctx *c, const json_t *root, fdw_img_spec *k, json_t *norm)
{
    json_t *o;
    static const char *const keys[] = {"parameter", NULL};
    static const char *const params[] = {"velocity", "slowness2", NULL};
    int p = 0;
    if (sp_object(c, root, "", "gradient", 0, &o) || (o && sp_keys(c, o, "gradient", keys)) ||
        (o && sp_enum(c, o, "gradient", "parameter", 0, params, &p)))
        return -1;
    k->parameter = (img_parameter)p;
    json_object_set_new(norm, "parameter", json_string(params[p]));
    return 0;
}

/* rtm's and gradient's "reconstruction" (imaging_recon.h): "auto" resolved on this spec's
 * grid, steps and layers, so the normalised spec says which scheme runs. */
static int parse_recon(spec_ctx *c, const json_t *root, fdw_img_spec *k)
{
    static const char *const names[] = {"auto", "checkpoints", "boundary", NULL};
    int r = 0;
    if (sp_enum(c, root, "", "reconstruction", 0, names, &r))
        return -1;
    const int term = k->mode == IMG_GRADIENT || k->condition == IMG_COND_ADJOINT;
    k->recon = r == 0   ? fdw_img_recon_auto(c->spec, k->mode, term)
               : r == 1 ? IMG_RECON_CHECKPOINTS
                        : IMG_RECON_BOUNDARY;
    json_object_set_new(c->norm, "reconstruction",
                        json_string(names[k->recon == IMG_RECON_BOUNDARY ? 2 : 1]));
    return 0;
}

/* One "data" object (sect) that names an upload ("name"): the file and format the
 * daemon's resolver gives it, set as its "path" and "format". A normalised spec keeps the
 * name beside the path it stood for, and that path is used as it is. */
static int resolve_one(spec_ctx *c, json_t *o, const char *sect)
{
    const json_t *n = json_is_object(o) ? json_object_get(o, "name") : NULL;
    char f[SP_PATH], path[FDW_PATH_MAX], format[16];
    if (!n)
        return 0;
    sp_key(f, sect, "name");
    if (!json_is_string(n) || !json_string_length(n))
        return sp_fail(c, f, "%s must be the name of uploaded data (a string), not %s", f,
                       sp_type_name(n));
    if (json_object_get(o, "path")) {
        if (c->opts && c->opts->normalised)
            return 0;
        return sp_fail(c, f, "%s names uploaded data and %s.path a file: give one of them",
                       f, sect);
    }
    if (!c->opts || !c->opts->resolve_data)
        return sp_fail(c, f, "%s names data uploaded to fdwaved (PUT /v1/data/NAME), which "
                       "only a job submitted to it can use: give %s.path instead", f, sect);
    const char *name = json_string_value(n);
    if (c->opts->resolve_data(c->opts->resolve_user, name, path, sizeof path, format,
                              sizeof format) != 0)
        return sp_fail(c, f, "%s: no uploaded data named \"%.200s\" (GET /v1/data lists "
                       "yours)", f, name);
    const json_t *given = json_object_get(o, "format");
    if (given && !(json_is_string(given) && strcmp(json_string_value(given), format) == 0)) {
        sp_key(f, sect, "format");
        return sp_fail(c, f, "%s must be the format of the upload \"%.200s\", \"%s\", or "
                       "left out", f, name, format);
    }
    json_object_set_new(o, "format", json_string(format));
    json_object_set_new(o, "path", json_string(path));
    return 0;
}

/* root with every "data" that names an upload (the job's, each listed survey shot's)
 * resolved (resolve_one) into *named, a copy; *named stays NULL when none does. */
static int resolve_named(spec_ctx *c, const json_t *root, json_t **named)
{
    const json_t *sv = json_object_get(root, "survey");
    const json_t *shots = json_is_object(sv) ? json_object_get(sv, "shots") : NULL;
    int any = json_object_get(json_object_get(root, "data"), "name") != NULL;
    for (size_t i = 0; json_is_array(shots) && i < json_array_size(shots); i++)
        any |= json_object_get(json_object_get(json_array_get(shots, i), "data"), "name") != NULL;
    if (!any)
        return 0;
    *named = json_deep_copy(root);
    if (!*named)
        return sp_fail(c, "data", "out of memory parsing data");
    if (resolve_one(c, json_object_get(*named, "data"), "data"))
        return -1;
    shots = json_object_get(json_object_get(*named, "survey"), "shots");
    for (size_t i = 0; json_is_array(shots) && i < json_array_size(shots); i++) {
        char f[SP_PATH], d[SP_PATH];
        sp_idx(f, "survey.shots", i);
        sp_key(d, f, "data");
        if (resolve_one(c, json_object_get(json_array_get(shots, i), "data"), d))
            return -1;
    }
    return 0;
}

/* An error of data named by upload speaks of data.name where the readers say data.path. */
static void name_the_field(spec_ctx *c, const json_t *root)
{
    static const char p[] = "data.path";
    if (!c->err || !json_object_get(json_object_get(root, "data"), "name") ||
        strncmp(c->err->field, p, sizeof p - 1) != 0)
        return;
    memcpy(c->err->field, "data.name", sizeof p - 1);
    if (strncmp(c->err->message, p, sizeof p - 1) == 0)
        memcpy(c->err->message, "data.name", sizeof p - 1);
}

static int parse_kind(spec_ctx *c, const json_t *root, img_mode mode);

int fdw_img_parse(spec_ctx *c, const json_t *root, img_mode mode)
{
    json_t *named = NULL;
    int rc = mode != IMG_BORN ? resolve_named(c, root, &named) : 0;
    if (rc == 0)
        rc = parse_kind(c, named ? named : root, mode);
    if (rc == 0 && json_object_get(json_object_get(root, "data"), "name"))
        json_object_set(json_object_get(c->norm, "data"), "name",
                        json_object_get(json_object_get(root, "data"), "name"));
    if (rc)
        name_the_field(c, root);
    json_decref(named);
    return rc;
}

/* The kind's sections, its "data" a file by path. */
static int parse_kind(spec_ctx *c, const json_t *root, img_mode mode)
{
    fdw_spec *s = c->spec;
    fdw_img_spec *k = calloc(1, sizeof *k);
    if (!k)
        return sp_fail(c, "", "out of memory parsing the spec");
    s->kspec = k;
    k->mode = mode;
    json_t *wave = NULL; /* SEG-Y data: root with the receivers its headers give */
    if (refuse(c, root, mode) ||
        (mode != IMG_BORN && fdw_img_segy_wanted(root) && fdw_img_segy_scan(c, root, k, &wave)))
        return -1;
    const int rc = wave_parse(c, wave ? wave : root);
    json_decref(wave);
    if (rc)
        return -1;
    /* The CPML's transpose (imaging_cpml.h) takes the field as zero off the grid, which the
     * free surface's mirror above plane 0 is not. */
    const fdw_boundary *b = &s->boundary;
    if (b->type == FDW_BOUNDARY_CPML && b->free_surface && s->nz - b->width[5] < s->radius)
        return sp_fail(c, "boundary.width.zmax", "kind \"%s\" with a free surface needs the "
                       "CPML's bottom layer (%d planes) at least the stencil radius %d below "
                       "the surface: the grid has %d planes", MODE_NAME[mode], b->width[5],
                       s->radius, s->nz);
    if (s->nreceivers < 1 && !s->survey)
        return sp_fail(c, "receivers", "kind \"%s\" needs at least one receiver",
                       MODE_NAME[mode]);
    int shot;
    double at[3];
    const int on_surface = mode == IMG_BORN ? 0 : wave_receivers_on_surface(s, &shot, at);
    if (on_surface)
        return sp_fail(c, "receivers",
                       "%d receiver%s on the free surface (the first at (%g, %g, %g) m%s), "
                       "where the pressure is held at zero: the modelled data there are zero, "
                       "so kind \"%s\" cannot use their recorded data; put them at least one "
                       "grid spacing down (z = %g m; SEG-Y data: data.datum %g m higher), or "
                       "drop boundary.free_surface",
                       on_surface, on_surface == 1 ? " lies" : "s lie", at[0], at[1], at[2],
                       shot >= 0 ? ", of a shot" : "", MODE_NAME[mode], s->origin[2] + s->dz,
                       s->dz);
    json_t *norm = json_object();
    const char *sect = mode == IMG_BORN ? "perturbation" : "data";
    json_object_set_new(c->norm, sect, norm);
    if (mode == IMG_BORN)
        return parse_perturbation(c, root, k, norm);
    if (parse_data(c, root, k, norm))
        return -1;
    json_t *extra = json_object();
    json_object_set_new(c->norm, mode == IMG_RTM ? "imaging" : "gradient", extra);
    if (mode == IMG_RTM ? parse_imaging(c, root, k, extra) : parse_gradient(c, root, k, extra))
        return -1;
    return parse_recon(c, root, k);
}

void fdw_img_warnings(spec_ctx *c)
{
    wave_warnings(c);
}

void fdw_img_free_spec(fdw_spec *spec)
{
    if (spec->kspec)
        fdw_img_segy_free(((fdw_img_spec *)spec->kspec)->segy);
    free(spec->kspec);
    spec->kspec = NULL;
}
