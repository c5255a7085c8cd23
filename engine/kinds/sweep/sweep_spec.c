/* sweep_spec.c — the sweep kind's members of the job spec besides "initial" (which
 * sweep_spec_initial.c parses): precision, the Hamiltonian (F or a velocity field as F,
 * psi, a) and its well-posedness F > |psi a|, the sweep count ("auto" with tolerance and
 * max_sweeps), the outputs (volume, slice images with isochrons), and the devices the two
 * partitionings can use. Each adds its normalised form to the spec's JSON. */
#include "kinds/sweep/sweep.h"
#include "kinds/wave/wave_spec.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_DEFAULT_MAX_SWEEPS 100
#define SWEEP_MAX_SWEEPS 100000 /* each sweep keeps a record of its figures */
#define SWEEP_DEFAULT_ISOCHRONS 12
#define SWEEP_MAX_ISOCHRONS 1000

static const char *const PRECISIONS[] = {"float64", "float32", NULL};
static const char *const VOLUMES[] = {"none", "f32", "f64", NULL};
static const char *const PLANES[] = {"xy", "xz", "yz", NULL};

/* F (a number) or "velocity" (a field), psi and a; F > |psi a|. */
static int parse_hamiltonian(spec_ctx *c, fdw_sweep_spec *k, const json_t *root)
{
    fdw_spec *s = c->spec;
    const int has_f = json_object_get(root, "F") != NULL;
    const int has_v = json_object_get(root, "velocity") != NULL;
    if (has_f && has_v)
        return sp_fail(c, "F", "give F (a constant) or velocity (F as a field), not both");
    if (!has_f && !has_v)
        return sp_fail(c, "F", "F is required: a constant > 0, or give \"velocity\" (any "
                       "velocity model section) for F as a field");
    if (has_v) {
        if (wave_parse_velocity(c, root))
            return -1;
        k->field = 1;
        k->F = s->vmin;
    } else {
        if (sp_pos(c, root, "", "F", 1, &k->F))
            return -1;
        json_object_set_new(c->norm, "F", json_real(k->F));
    }
    k->psi = 0.0;
    k->a[0] = k->a[1] = k->a[2] = 0.0;
    const int has_a = json_object_get(root, "a") != NULL;
    if (sp_num(c, root, "", "psi", 0, &k->psi) || sp_vec3(c, root, "", "a", 0, k->a))
        return -1;
    if (k->psi != 0.0 && !has_a)
        return sp_fail(c, "a", "psi is %g: the axial direction a ([ax, ay, az]) is required",
                       k->psi);
    if (k->field && k->psi != 0.0)
        return sp_fail(c, "psi",
                       "psi is %g but F is a field (velocity): the anisotropic term is "
                       "computed for a constant F only; set psi to 0 (the eikonal equation "
                       "with speed F) or give F as a number", k->psi);
    const double na = sweep_length(k->a);
    const double nb = fabs(k->psi) * na;
    if (!isfinite(nb) || !(k->F > nb))
        return sp_fail(c, "F",
                       "F = %g must exceed |psi a| = %g (|psi| %g times |a| %g): otherwise "
                       "the front cannot move against a and T is not defined everywhere",
                       k->F, nb, fabs(k->psi), na);
    json_object_set_new(c->norm, "psi", json_real(k->psi));
    json_object_set_new(c->norm, "a", sp_json_vec3(k->a));
    return 0;
}

/* "sweeps": a count or "auto"; tolerance and max_sweeps (auto only). Sets spec->nt. */
static int parse_sweeps(spec_ctx *c, fdw_sweep_spec *k, const json_t *root)
{
    fdw_spec *s = c->spec;
    const json_t *v = json_object_get(root, "sweeps");
    long long n = 0, most = SWEEP_DEFAULT_MAX_SWEEPS;
    k->sweeps_auto = !v || (json_is_string(v) && strcmp(json_string_value(v), "auto") == 0);
    if (v && !k->sweeps_auto) {
        if (!json_is_integer(v))
            return sp_fail(c, "sweeps", "sweeps must be a count (integer >= 1) or \"auto\", "
                           "not %s", sp_type_name(v));
        if (sp_value_int(c, v, "sweeps", 1, SWEEP_MAX_SWEEPS, &n))
            return -1;
    }
    const int has_tol = json_object_get(root, "tolerance") != NULL;
    const int has_max = json_object_get(root, "max_sweeps") != NULL;
    if (!k->sweeps_auto && (has_tol || has_max))
        return sp_fail(c, has_tol ? "tolerance" : "max_sweeps",
                       "%s applies to \"sweeps\": \"auto\" only; sweeps is %lld",
                       has_tol ? "tolerance" : "max_sweeps", n);
    k->tolerance = 0.0;
    if (sp_num(c, root, "", "tolerance", 0, &k->tolerance) ||
        sp_int(c, root, "", "max_sweeps", 0, 1, SWEEP_MAX_SWEEPS, &most))
        return -1;
    if (k->tolerance < 0.0)
        return sp_fail(c, "tolerance", "tolerance is %g but must be at least 0", k->tolerance);
    s->nt = k->sweeps_auto ? (long)most : (long)n;
    if (k->sweeps_auto) {
        json_object_set_new(c->norm, "sweeps", json_string("auto"));
        json_object_set_new(c->norm, "tolerance", json_real(k->tolerance));
        json_object_set_new(c->norm, "max_sweeps", json_integer(most));
    } else {
        json_object_set_new(c->norm, "sweeps", json_integer(n));
    }
    return 0;
}

/* One entry of output.slices. */
static int parse_slice(spec_ctx *c, const json_t *e, const char *path, fdw_slice *out)
{
    static const char *const keys[] = {"plane", "index", NULL};
    const fdw_spec *s = c->spec;
    int plane = 0;
    long long index = 0;
    if (sp_entry(c, e, path, "{\"plane\", \"index\"}", keys) ||
        sp_enum(c, e, path, "plane", 1, PLANES, &plane))
        return -1;
    const int across = plane == FDW_PLANE_XY ? s->nz : plane == FDW_PLANE_XZ ? s->ny : s->nx;
    if (sp_int(c, e, path, "index", 1, 0, across - 1, &index))
        return -1;
    out->plane = (fdw_plane)plane;
    out->index = (int)index;
    return 0;
}

/* "output": the T volume's format, the slice images and their isochrons. */
static int parse_output(spec_ctx *c, fdw_sweep_spec *k, const json_t *root)
{
    static const char *const keys[] = {"volume", "slices", "isochrons", "isochron_interval",
                                       NULL};
    const fdw_spec *s = c->spec;
    json_t *o = NULL, *arr = NULL;
    int vol = k->precision == SWEEP_F64 ? SWEEP_OUT_F64 : SWEEP_OUT_F32;
    long long iso = SWEEP_DEFAULT_ISOCHRONS;
    k->isochron_interval = 0.0;
    if (sp_object(c, root, "", "output", 0, &o) ||
        (o && (sp_keys(c, o, "output", keys) ||
               sp_enum(c, o, "output", "volume", 0, VOLUMES, &vol) ||
               sp_array(c, o, "output", "slices", 0, &arr) ||
               sp_int(c, o, "output", "isochrons", 0, 0, SWEEP_MAX_ISOCHRONS, &iso) ||
               sp_num(c, o, "output", "isochron_interval", 0, &k->isochron_interval))))
        return -1;
    if (o && json_object_get(o, "isochron_interval") && !(k->isochron_interval > 0.0))
        return sp_fail(c, "output.isochron_interval",
                       "output.isochron_interval is %g but must be > 0 (seconds of T between "
                       "two isochrons)", k->isochron_interval);
    k->out_volume = (sweep_out_volume)vol;
    k->isochrons = (int)iso;
    json_t *ns = json_array();
    if (arr) {
        const size_t n = json_array_size(arr);
        if (n > SWEEP_MAX_SLICES) {
            json_decref(ns);
            return sp_fail(c, "output.slices", "%zu slices given; at most %d are allowed", n,
                           SWEEP_MAX_SLICES);
        }
        for (size_t i = 0; i < n; i++) {
            char path[SP_PATH];
            sp_idx(path, "output.slices", i);
            if (parse_slice(c, json_array_get(arr, i), path, &k->slices[i])) {
                json_decref(ns);
                return -1;
            }
        }
        k->nslices = (int)n;
    } else { /* the three slices through the centre */
        const fdw_slice mid[3] = {{FDW_PLANE_XY, s->nz / 2}, {FDW_PLANE_XZ, s->ny / 2},
                                  {FDW_PLANE_YZ, s->nx / 2}};
        memcpy(k->slices, mid, sizeof mid);
        k->nslices = 3;
    }
    for (int i = 0; i < k->nslices; i++)
        json_array_append_new(ns, json_pack("{sssi}", "plane", PLANES[k->slices[i].plane],
                                            "index", k->slices[i].index));
    json_t *no = json_pack("{sssosi}", "volume", VOLUMES[vol], "slices", ns, "isochrons",
                           k->isochrons);
    if (k->isochron_interval > 0.0)
        json_object_set_new(no, "isochron_interval", json_real(k->isochron_interval));
    json_object_set_new(c->norm, "output", no);
    return 0;
}

/* The update's arithmetic at this job's scale (F, psi a, the spacing, the F field's range,
 * the initial times): squares that overflow or underflow, or times past the precision's
 * range, would give wrong times without an error. */
static int check_scale(spec_ctx *c, const fdw_sweep_spec *k, int snapshots)
{
    const fdw_spec *s = c->spec;
    const int f32 = k->precision == SWEEP_F32;
    const char *prec = f32 ? "float32" : "float64";
    const sweep_metric m = sweep_spec_metric(k);
    const double h[3] = {s->dx, s->dy, s->dz};
    const long n[3] = {s->nx, s->ny, s->nz};
    const double smin = k->field ? 1.0 / s->vmax : 1.0, smax = k->field ? 1.0 / s->vmin : 1.0;
    double span = 0.0;
    if (!sweep_geometry_usable(h, n, &m, smin, smax, f32, &span)) {
        if (k->field)
            return sp_fail(c, "velocity",
                           "F (the velocity) ranges from %g to %g with spacing (%g, %g, %g) m: "
                           "the update's squared slownesses and cell sizes or the travel time "
                           "across the grid overflow or underflow in %s; give the velocity "
                           "and the spacing in units that keep them nearer 1",
                           s->vmin, s->vmax, s->dx, s->dy, s->dz, prec);
        return sp_fail(c, "F",
                       "F = %g and |psi a| = %g with spacing (%g, %g, %g) m: the update's "
                       "constants (F^2 - |psi a|^2, the squared cell sizes) or the travel "
                       "time across the grid overflow or underflow in %s; give F, psi a and "
                       "the spacing in units that keep them nearer 1",
                       k->F, fabs(k->psi) * sweep_length(k->a), s->dx, s->dy, s->dz, prec);
    }
    /* T = t0 + a travel time of at most span must stay in range (float32's when T is
     * computed or written in it: precision, output.volume "f32", snapshots) */
    const int t32 = f32 || k->out_volume == SWEEP_OUT_F32 || snapshots;
    const double most = t32 ? FLT_MAX : DBL_MAX;
    char field[SP_PATH];
    double t0 = 0.0;
    field[0] = '\0';
    for (int i = 0; i < k->npoints; i++)
        if (fabs(k->points[i].t0) > fabs(t0)) {
            t0 = k->points[i].t0;
            snprintf(field, sizeof field, "initial.points[%d].t0", i);
        }
    for (int i = 0; i < k->nplanes; i++)
        if (fabs(k->planes[i].t0) > fabs(t0)) {
            t0 = k->planes[i].t0;
            snprintf(field, sizeof field, "initial.planes[%d].t0", i);
        }
    if (k->surface.type != SWEEP_SURF_NONE && fabs(k->surface.t0) > fabs(t0)) {
        t0 = k->surface.t0;
        snprintf(field, sizeof field, "initial.surface.t0");
    }
    if (k->volume_given && k->volume_most > fabs(t0)) {
        t0 = k->volume_most;
        snprintf(field, sizeof field, "initial.volume.path");
    }
    if (field[0] && !(fabs(t0) + span <= most))
        return sp_fail(c, field,
                       "%s: an initial time of %g with travel times up to %g across the "
                       "grid leaves the range of %s (largest %g)%s", field, t0, span,
                       t32 ? "float32" : "float64", most,
                       t32 && !f32 ? ", in which output.volume \"f32\" and snapshots write T"
                                   : "");
    return 0;
}

int sweep_parse(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    fdw_sweep_spec *k = sp_kspec(c, sizeof *k);
    if (!k)
        return -1;
    /* what the shared parts of the engine read of a kind without time or boundary */
    s->dt = 0.0;
    s->boundary.type = FDW_BOUNDARY_NONE;
    s->receiver_interval = 1;
    int prec = 0;
    if (sp_enum(c, root, "", "precision", 0, PRECISIONS, &prec))
        return -1;
    k->precision = (sweep_precision)prec;
    json_object_set_new(c->norm, "precision", json_string(PRECISIONS[prec]));
    if (s->ny < s->ndevices)
        return sp_fail(c, "devices",
                       "%d devices but ny = %d: the x and z sub-sweeps split the grid along y "
                       "into one slab per device, at least one plane each", s->ndevices, s->ny);
    if (parse_hamiltonian(c, k, root) || parse_sweeps(c, k, root) ||
        sweep_parse_initial(c, k, root) || parse_output(c, k, root))
        return -1;
    /* snapshots (parsed after the kind) write T as float32 */
    const json_t *snap = json_object_get(json_object_get(root, "snapshots"), "every");
    if (check_scale(c, k, json_is_integer(snap) && json_integer_value(snap) > 0))
        return -1;
    return 0;
}

void sweep_free_spec(fdw_spec *spec)
{
    fdw_sweep_spec *k = spec->kspec;
    if (!k)
        return;
    free(k->points);
    free(k->planes);
    free(k);
    spec->kspec = NULL;
}
