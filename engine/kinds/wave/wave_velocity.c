/* wave_velocity.c — the "velocity" section: constant, layered, Gaussian anomaly, a model
 * file (raw-f32, SEG-Y, RSF) or a model uploaded to the daemon and found by name. Fills
 * fdw_spec.velocity and the model's vmin/vmax, which the stability and dispersion checks
 * need; file models are checked and measured by fdw_model_scan (model_io.c). */
#include "kinds/wave/wave_spec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/model_io.h"

#define SP_MAX_LAYERS 100000

static const char *const VEL_TYPES[] = {"constant", "layered", "gaussian", "file", "model", NULL};
static const char *const FORMATS[] = {"raw-f32", "segy", "rsf", NULL};

static int parse_constant(spec_ctx *c, const json_t *v, json_t *norm)
{
    static const char *const keys[] = {"type", "value", NULL};
    fdw_spec *s = c->spec;
    if (sp_keys(c, v, "velocity", keys) || sp_pos(c, v, "velocity", "value", 1, &s->velocity.v0))
        return -1;
    s->vmin = s->vmax = s->velocity.v0;
    json_object_set_new(norm, "value", json_real(s->velocity.v0));
    return 0;
}

static int parse_layered(spec_ctx *c, const json_t *v, json_t *norm)
{
    static const char *const keys[] = {"type", "layers", NULL};
    static const char *const lkeys[] = {"top", "v", NULL};
    fdw_spec *s = c->spec;
    json_t *arr;
    if (sp_keys(c, v, "velocity", keys) || sp_array(c, v, "velocity", "layers", 1, &arr))
        return -1;
    size_t n = json_array_size(arr);
    if (n == 0 || n > SP_MAX_LAYERS)
        return sp_fail(c, "velocity.layers", "velocity.layers must hold 1 to %d layers, not %zu",
                       SP_MAX_LAYERS, n);
    s->velocity.layers = calloc(n, sizeof *s->velocity.layers);
    if (!s->velocity.layers)
        return sp_fail(c, "velocity.layers", "out of memory");
    s->velocity.nlayers = (int)n;
    json_t *nl = json_array();
    json_object_set_new(norm, "layers", nl);
    double ztop = s->origin[2], zbot = s->origin[2] + (s->nz - 1) * s->dz;
    s->vmin = INFINITY;
    s->vmax = 0;
    for (size_t i = 0; i < n; i++) {
        char path[SP_PATH], field[SP_PATH];
        json_t *l = json_array_get(arr, i);
        fdw_layer *L = &s->velocity.layers[i];
        sp_idx(path, "velocity.layers", i);
        if (!json_is_object(l))
            return sp_fail(c, path, "%s must be an object {\"top\", \"v\"}, not %s", path,
                           sp_type_name(l));
        if (sp_keys(c, l, path, lkeys) || sp_num(c, l, path, "top", 1, &L->top) ||
            sp_pos(c, l, path, "v", 1, &L->v))
            return -1;
        sp_key(field, path, "top");
        if (i == 0 && L->top > ztop + 1e-9 * s->dz)
            return sp_fail(c, field,
                           "the first layer starts at depth %g m, below the grid top z = %g m: "
                           "the velocity above it is undefined",
                           L->top, ztop);
        if (i > 0 && !(L->top > s->velocity.layers[i - 1].top))
            return sp_fail(c, field,
                           "layers must be sorted by top: layer %zu starts at %g m, not below "
                           "layer %zu at %g m",
                           i, L->top, i - 1, s->velocity.layers[i - 1].top);
        json_array_append_new(nl, json_pack("{sfsf}", "top", L->top, "v", L->v));
    }
    /* vmin/vmax over the layers that reach the grid's depth range. */
    for (size_t i = 0; i < n; i++) {
        const fdw_layer *L = &s->velocity.layers[i];
        int reaches = L->top <= zbot && (i + 1 == n || s->velocity.layers[i + 1].top > ztop);
        if (reaches) {
            s->vmin = fmin(s->vmin, L->v);
            s->vmax = fmax(s->vmax, L->v);
        }
    }
    return 0;
}

/* Extremes of exp(-d^2 / (2 sigma^2)) over the grid box, d = distance to the centre. */
static void gaussian_range(const fdw_spec *s, double *emin, double *emax)
{
    const int n[3] = {s->nx, s->ny, s->nz};
    const double h[3] = {s->dx, s->dy, s->dz};
    double near2 = 0, far2 = 0;
    for (int a = 0; a < 3; a++) {
        double lo = s->origin[a], hi = lo + (n[a] - 1) * h[a], x = s->velocity.center[a];
        double dn = x < lo ? lo - x : x > hi ? x - hi : 0.0;
        double df = fmax(fabs(x - lo), fabs(x - hi));
        near2 += dn * dn;
        far2 += df * df;
    }
    double s2 = 2.0 * s->velocity.sigma * s->velocity.sigma;
    *emax = exp(-near2 / s2);
    *emin = exp(-far2 / s2);
}

static int parse_gaussian(spec_ctx *c, const json_t *v, json_t *norm)
{
    static const char *const keys[] = {"type", "background", "center", "sigma", "dv", NULL};
    fdw_spec *s = c->spec;
    fdw_velocity_spec *V = &s->velocity;
    if (sp_keys(c, v, "velocity", keys) || sp_pos(c, v, "velocity", "background", 1, &V->v0) ||
        sp_vec3(c, v, "velocity", "center", 1, V->center) ||
        sp_pos(c, v, "velocity", "sigma", 1, &V->sigma) ||
        sp_num(c, v, "velocity", "dv", 1, &V->dv))
        return -1;
    if (!isnormal(2.0 * V->sigma * V->sigma))
        return sp_fail(c, "velocity.sigma",
                       "velocity.sigma is %g m: its square over- or underflows float64 (the "
                       "anomaly's exp(-d^2 / (2 sigma^2)) is not defined); give it between "
                       "1e-150 and 1e150", V->sigma);
    if (!(V->v0 + V->dv > 0))
        return sp_fail(c, "velocity.dv",
                       "background %g + dv %g = %g m/s: the velocity at the anomaly's centre "
                       "must stay above 0",
                       V->v0, V->dv, V->v0 + V->dv);
    double emin, emax;
    gaussian_range(s, &emin, &emax);
    double a = V->v0 + V->dv * emin, b = V->v0 + V->dv * emax;
    s->vmin = fmin(a, b);
    s->vmax = fmax(a, b);
    if (!(s->vmin > 0) || !isfinite(s->vmax))
        return sp_fail(c, "velocity.dv", "the velocity inside the grid reaches %g m/s; it must "
                       "stay positive and finite", s->vmin);
    json_object_set_new(norm, "background", json_real(V->v0));
    json_object_set_new(norm, "center", sp_json_vec3(V->center));
    json_object_set_new(norm, "sigma", json_real(V->sigma));
    json_object_set_new(norm, "dv", json_real(V->dv));
    return 0;
}

/* A resolved model file: check it against the grid and measure its range. Errors are
 * reported on `field` (velocity.path, or velocity.name for a model found by name). */
static int scan_file(spec_ctx *c, const char *field)
{
    fdw_spec *s = c->spec;
    fdw_error e;
    fdw_error_clear(&e);
    double vmin = 0, vmax = 0;
    fdw_status st = fdw_model_scan(&s->velocity, s->nx, s->ny, s->nz, s->dx, s->dy, s->dz,
                                   &vmin, &vmax, &e);
    if (st != FDW_OK) {
        if (c->err)
            *c->err = e;
        if (c->err && st == FDW_ERR_SPEC &&
            (c->err->field[0] == '\0' || strcmp(c->err->field, "velocity.path") == 0))
            snprintf(c->err->field, sizeof c->err->field, "%s", field);
        return -1;
    }
    if (!(vmin > 0) || !isfinite(vmax))
        return sp_fail(c, field, "the model's velocities range from %g to %g m/s; "
                       "they must be positive and finite", vmin, vmax);
    s->vmin = vmin;
    s->vmax = vmax;
    return 0;
}

/* The velocity range of a file model recorded in a normalised spec ("vmin", "vmax"): used
 * instead of a new scan when the spec is one this engine normalised (opts->normalised).
 * Returns 1 when used, 0 when the spec has none or is not trusted, -1 on error. */
static int recorded_range(spec_ctx *c, const json_t *v)
{
    fdw_spec *s = c->spec;
    if (!c->opts || !c->opts->normalised || !json_object_get(v, "vmin") ||
        !json_object_get(v, "vmax"))
        return 0;
    if (sp_pos(c, v, "velocity", "vmin", 1, &s->vmin) ||
        sp_pos(c, v, "velocity", "vmax", 1, &s->vmax))
        return -1;
    return 1;
}

/* What the normalised spec records of a file model: its range, so that a trusted re-parse
 * (the daemon's worker) need not read the file again. */
static void record_range(spec_ctx *c, json_t *norm)
{
    json_object_set_new(norm, "vmin", json_real(c->spec->vmin));
    json_object_set_new(norm, "vmax", json_real(c->spec->vmax));
}

/* What a model store recorded of the file (info->nvalues > 0) stands for it: checked
 * against the grid without a read, its range taken. */
static int use_recorded(spec_ctx *c, const fdw_model_info *info)
{
    fdw_spec *s = c->spec;
    fdw_error e;
    fdw_error_clear(&e);
    if (fdw_model_check_info(&s->velocity, info, s->nx, s->ny, s->nz, s->dx, s->dy, s->dz,
                             &e) != FDW_OK) {
        if (c->err)
            *c->err = e;
        return -1;
    }
    s->vmin = info->vmin;
    s->vmax = info->vmax;
    snprintf(s->velocity.sha256, sizeof s->velocity.sha256, "%s", info->sha256);
    return 0;
}

/* An RSF header names its binary (in=); that file is a file the spec reads too, so it
 * passes the same check, and the run reads the binary checked here (data_path). */
static int pin_rsf_binary(spec_ctx *c)
{
    fdw_velocity_spec *V = &c->spec->velocity;
    char bin[FDW_PATH_MAX];
    int inside = 0;
    fdw_error e;
    fdw_error_clear(&e);
    if (fdw_model_rsf_data(V->path, "velocity.path", bin, sizeof bin, &inside, &e) != FDW_OK) {
        if (c->err)
            *c->err = e;
        return -1;
    }
    if (inside)
        return 0; /* in="stdin": the samples follow the header in the same file */
    return sp_resolve_path(c, "velocity.path", bin, FDW_FILE_MODEL_DATA, NULL, 1, NULL,
                           V->data_path);
}

static int parse_file(spec_ctx *c, const json_t *v, json_t *norm)
{
    /* vmin / vmax: what fdw_spec_to_json recorded; a user's values are ignored */
    static const char *const keys[] = {"type", "format", "path", "vmin", "vmax", NULL};
    fdw_spec *s = c->spec;
    char path[FDW_PATH_MAX];
    int fmt = -1;
    fdw_model_info info;
    if (sp_keys(c, v, "velocity", keys) ||
        sp_enum(c, v, "velocity", "format", 1, FORMATS, &fmt) ||
        sp_string(c, v, "velocity", "path", 1, path, sizeof path) ||
        sp_resolve_path(c, "velocity.path", path, FDW_FILE_MODEL, FORMATS[fmt], 1, &info,
                        s->velocity.path))
        return -1;
    s->velocity.format = (fdw_file_format)fmt;
    if (fmt == FDW_FMT_RSF && pin_rsf_binary(c))
        return -1;
    json_object_set_new(norm, "format", json_string(FORMATS[fmt]));
    json_object_set_new(norm, "path", json_string(s->velocity.path));
    int rec = recorded_range(c, v);
    if (rec < 0)
        return -1;
    if (rec == 0 && (info.nvalues > 0 ? use_recorded(c, &info) : scan_file(c, "velocity.path")))
        return -1;
    record_range(c, norm);
    return 0;
}

/* The format of an uploaded model follows its file name: .segy/.sgy, .rsf, else raw. */
static fdw_file_format format_from_name(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return FDW_FMT_RAW_F32;
    if (strcasecmp(dot, ".segy") == 0 || strcasecmp(dot, ".sgy") == 0)
        return FDW_FMT_SEGY;
    if (strcasecmp(dot, ".rsf") == 0)
        return FDW_FMT_RSF;
    return FDW_FMT_RAW_F32;
}

static int parse_model(spec_ctx *c, const json_t *v, json_t *norm)
{
    static const char *const keys[] = {"type", "name", NULL};
    fdw_spec *s = c->spec;
    if (sp_keys(c, v, "velocity", keys) ||
        sp_string(c, v, "velocity", "name", 1, s->velocity.name, sizeof s->velocity.name))
        return -1;
    if (!s->velocity.name[0])
        return sp_fail(c, "velocity.name", "velocity.name is empty");
    if (!c->opts || !c->opts->resolve_model)
        return sp_fail(c, "velocity.name",
                       "model \"%s\": models referred to by name are only available through "
                       "the fdwaved service; use {\"type\": \"file\"} here",
                       s->velocity.name);
    char path[FDW_PATH_MAX];
    fdw_model_info info;
    memset(&info, 0, sizeof info);
    path[0] = '\0';
    if (c->opts->resolve_model(c->opts->resolve_user, s->velocity.name, path, sizeof path,
                               &info) != 0 ||
        !path[0])
        return sp_fail(c, "velocity.name", "unknown model \"%s\"", s->velocity.name);
    path[sizeof path - 1] = '\0';
    /* The resolver is the daemon's own model store: it is trusted, so no allowed-dir check. */
    if (sp_resolve_path(c, "velocity.name", path, FDW_FILE_MODEL, NULL, 0, NULL,
                        s->velocity.path))
        return -1;
    s->velocity.type = FDW_VEL_FILE;
    s->velocity.format = format_from_name(s->velocity.path);
    json_object_set_new(norm, "name", json_string(s->velocity.name));
    if (info.nvalues == 0) /* nothing recorded of it: read it once here */
        return scan_file(c, "velocity.name");
    /* What the store recorded at upload stands for the file: no read here. */
    return use_recorded(c, &info);
}

int wave_parse_velocity(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    json_t *v;
    int type = 0;
    if (sp_object(c, root, "", "velocity", 1, &v) ||
        sp_enum(c, v, "velocity", "type", 1, VEL_TYPES, &type))
        return -1;
    json_t *norm = json_pack("{ss}", "type", VEL_TYPES[type]);
    json_object_set_new(c->norm, "velocity", norm);
    int rc;
    switch (type) {
    case 0: s->velocity.type = FDW_VEL_CONSTANT; rc = parse_constant(c, v, norm); break;
    case 1: s->velocity.type = FDW_VEL_LAYERED; rc = parse_layered(c, v, norm); break;
    case 2: s->velocity.type = FDW_VEL_GAUSSIAN; rc = parse_gaussian(c, v, norm); break;
    case 3: s->velocity.type = FDW_VEL_FILE; rc = parse_file(c, v, norm); break;
    default: rc = parse_model(c, v, norm); break;
    }
    return rc;
}
