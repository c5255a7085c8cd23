/* spec_survey.c — the "survey" section of a wave spec: many shots over one model, given
 * as an explicit list ("shots", each optionally with its own number and receivers: an
 * irregular acquisition, or a SEG-Y file's shots) or generated along a line or a grid
 * ("generate"), each with the survey's wavelet or its own, and a receiver layout that is
 * fixed (the spec's "receivers"), listed per shot, or moves with the shot ("spread":
 * offsets from the source). Every count
 * is checked against the limits (spec_limits.c) before anything is expanded; every shot
 * position, and every spread receiver of every shot, is checked against the grid with an
 * error naming the field. The normalised spec keeps the compact form the user wrote. */
#include "kinds/wave/wave_spec.h"
#include "spec/spec_survey.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const OUTSIDE[] = {"error", "drop", NULL};

void fdw_survey_free(fdw_survey *sv)
{
    if (!sv)
        return;
    for (int i = 0; i < sv->nwavelets; i++)
        free(sv->wavelets[i].samples);
    free(sv->wavelets);
    free(sv->shots);
    free(sv->spread);
    free(sv->own);
    free(sv);
}

/* Where pos lies along axis a: -1 below the grid, 1 above, 0 inside (then clamped onto
 * the grid within 1e-9 h, as sp_check_inside does). */
static int outside_axis(const fdw_spec *s, double pos[3], int a)
{
    const int n[3] = {s->nx, s->ny, s->nz};
    const double h[3] = {s->dx, s->dy, s->dz};
    const double lo = s->origin[a], hi = lo + (n[a] - 1) * h[a], tol = 1e-9 * h[a];
    if (pos[a] < lo - tol)
        return -1;
    if (pos[a] > hi + tol)
        return 1;
    pos[a] = fmin(fmax(pos[a], lo), hi);
    return 0;
}

/* The first axis along which pos lies outside the grid, or -1 (pos clamped). */
static int outside(const fdw_spec *s, double pos[3])
{
    for (int a = 0; a < 3; a++)
        if (outside_axis(s, pos, a))
            return a;
    return -1;
}

int fdw_survey_receivers(const fdw_spec *spec, int i, fdw_receiver *out)
{
    const fdw_survey *sv = spec->survey;
    if (!sv || i < 0 || i >= sv->nshots)
        return 0;
    if (!sv->moving) {
        if (out)
            memcpy(out, spec->receivers, (size_t)spec->nreceivers * sizeof *out);
        return spec->nreceivers;
    }
    if (sv->own) {
        const fdw_shot *S = &sv->shots[i];
        for (int j = 0; out && j < S->nreceivers; j++) {
            memset(&out[j], 0, sizeof out[j]);
            memcpy(out[j].pos, sv->own[S->own + j], sizeof out[j].pos);
        }
        return S->nreceivers;
    }
    int n = 0;
    for (int j = 0; j < sv->nspread; j++) {
        double p[3];
        for (int a = 0; a < 3; a++)
            p[a] = sv->shots[i].pos[a] + sv->spread[j][a];
        if (outside(spec, p) >= 0)
            continue;
        if (out) {
            memset(&out[n], 0, sizeof out[n]); /* no plane's inline / crossline numbers */
            memcpy(out[n].pos, p, sizeof p);
        }
        n++;
    }
    return n;
}

/* A wavelet object into the survey's table (at most FDW_SURVEY_MAX_WAVELETS); *index
 * gets its place. */
static int add_wavelet(spec_ctx *c, fdw_survey *sv, const json_t *w, const char *path,
                       json_t *norm, int *index)
{
    if (sv->nwavelets >= FDW_SURVEY_MAX_WAVELETS)
        return sp_fail(c, path,
                       "a survey may give at most %d distinct wavelets (survey.wavelet and "
                       "the shots' own); give the shots survey.wavelet",
                       FDW_SURVEY_MAX_WAVELETS);
    if (!json_is_object(w))
        return sp_fail(c, path, "%s must be an object {\"type\", ...}, not %s", path,
                       sp_type_name(w));
    fdw_source *src = &sv->wavelets[sv->nwavelets];
    memset(src, 0, sizeof *src);
    sv->nwavelets++; /* so fdw_survey_free releases what it loads */
    *index = sv->nwavelets - 1;
    return wave_parse_wavelet(c, w, path, *index, src, norm);
}

/* Shot i's own "receivers" (points inside the grid) appended to sv->own; *total counts
 * them over the shots against the traces' limit. */
static int parse_own(spec_ctx *c, fdw_survey *sv, fdw_shot *S, const json_t *arr,
                     const char *path, long long *total, json_t *ns)
{
    const size_t n = json_array_size(arr);
    if (n == 0)
        return sp_fail(c, path, "%s lists no receiver; give at least one", path);
    if ((long long)n > sp_max_receivers(c))
        return sp_fail(c, path, "%s lists %zu receivers; at most %ld are allowed per shot", path,
                       n, sp_max_receivers(c));
    if (*total + (long long)n > sp_max_traces(c))
        return sp_fail(c, path, "with %s the shots list %lld receivers or more; a survey may "
                       "record at most %lld traces", path, *total + (long long)n,
                       sp_max_traces(c));
    double(*own)[3] = realloc(sv->own, (size_t)(*total + (long long)n) * sizeof *own);
    if (!own)
        return sp_fail(c, path, "out of memory for the receivers of %s", path);
    sv->own = own;
    S->own = (long)*total;
    S->nreceivers = (int)n;
    json_t *pts = json_array();
    json_object_set_new(ns, "receivers", pts);
    for (size_t j = 0; j < n; j++) {
        char field[SP_PATH], what[64];
        sp_idx(field, path, j);
        snprintf(what, sizeof what, "receiver %zu of shot %d", j, S->number);
        double *p = own[*total + (long long)j];
        if (sp_value_vec3(c, json_array_get(arr, j), field, p) ||
            sp_check_inside(c, field, p, what))
            return -1;
        json_array_append_new(pts, sp_json_vec3(p));
    }
    *total += (long long)n;
    return 0;
}

/* Shot i's own "number" (given for every listed shot or for none; increasing, so shot
 * order is number order). */
static int parse_number(spec_ctx *c, fdw_survey *sv, size_t i, const json_t *shot,
                        const char *path, json_t *ns)
{
    const int given = json_object_get(shot, "number") != NULL;
    char field[SP_PATH];
    sp_key(field, path, "number");
    if (i > 0 && given != sv->numbered)
        return sp_fail(c, given ? field : path, "%s: give \"number\" for every listed shot or "
                       "for none (survey.shots[0] %s one)", given ? field : path,
                       sv->numbered ? "has" : "has not");
    sv->numbered = given;
    if (!given)
        return 0;
    long long num;
    if (sp_int(c, shot, path, "number", 1, 0, INT_MAX, &num))
        return -1;
    if (i > 0 && num <= sv->shots[i - 1].number)
        return sp_fail(c, field, "%s is %lld: the shots' numbers must increase (the shot "
                       "before has %d)", field, num, sv->shots[i - 1].number);
    sv->shots[i].number = (int)num;
    json_object_set_new(ns, "number", json_integer(num));
    return 0;
}

/* "shots": [{"position", "wavelet"?, "number"?, "receivers"?}, ...]; dflt: the index of
 * survey.wavelet or -1. */
static int parse_list(spec_ctx *c, fdw_survey *sv, const json_t *arr, int dflt, json_t *nsv)
{
    static const char *const keys[] = {"position", "wavelet", "number", "receivers", NULL};
    const size_t n = json_array_size(arr);
    if (n == 0)
        return sp_fail(c, "survey.shots", "survey.shots lists no shot; give at least one");
    if ((long long)n > sp_max_shots(c))
        return sp_fail(c, "survey.shots", "%zu shots given; a survey may have at most %ld",
                       n, sp_max_shots(c));
    sv->shots = calloc(n, sizeof *sv->shots);
    if (!sv->shots)
        return sp_fail(c, "survey.shots", "out of memory for %zu shots", n);
    json_t *norm = json_array();
    json_object_set_new(nsv, "shots", norm);
    long long total = 0;
    for (size_t i = 0; i < n; i++) {
        char path[SP_PATH], field[SP_PATH];
        const json_t *shot = json_array_get(arr, i);
        fdw_shot *S = &sv->shots[i];
        sp_idx(path, "survey.shots", i);
        if (sp_entry(c, shot, path, "{\"position\", \"wavelet\"}", keys) ||
            sp_position(c, shot, path, "position", S->pos, "shot %zu", i))
            return -1;
        json_t *ns = json_pack("{so}", "position", sp_json_vec3(S->pos));
        json_array_append_new(norm, ns);
        if (parse_number(c, sv, i, shot, path, ns))
            return -1;
        const json_t *own = json_object_get(shot, "receivers");
        sp_key(field, path, "receivers");
        if (i > 0 && !!own != !!sv->own)
            return sp_fail(c, own ? field : path, "%s: give \"receivers\" for every listed "
                           "shot or for none (survey.shots[0] %s them)", own ? field : path,
                           sv->own ? "has" : "has not");
        if (own && !json_is_array(own))
            return sp_fail(c, field, "%s must be an array of [x, y, z] points, not %s", field,
                           sp_type_name(own));
        if (own && parse_own(c, sv, S, own, field, &total, ns))
            return -1;
        const json_t *w = json_object_get(shot, "wavelet");
        sp_key(field, path, "wavelet");
        if (w) {
            json_t *nw = json_object();
            json_object_set_new(ns, "wavelet", nw);
            if (add_wavelet(c, sv, w, field, nw, &S->wavelet))
                return -1;
        } else if (dflt < 0) {
            return sp_fail(c, field,
                           "shot %zu has no wavelet and the survey gives none: give "
                           "survey.wavelet (every shot's) or %s",
                           i, field);
        } else {
            S->wavelet = dflt;
        }
        sv->nshots = (int)i + 1;
    }
    sv->moving = sv->own != NULL;
    return 0;
}

/* One corner of a generated line or grid: refused when outside the grid, naming the
 * member that puts it there and the shot. */
static int check_corner(spec_ctx *c, const double pos[3], const char *field, long long shot)
{
    double p[3] = {pos[0], pos[1], pos[2]};
    const int a = outside(c->spec, p);
    if (a < 0)
        return 0;
    const fdw_spec *s = c->spec;
    const int n[3] = {s->nx, s->ny, s->nz};
    const double h[3] = {s->dx, s->dy, s->dz};
    return sp_fail(c, field,
                   "generated shot %lld is outside the grid: %c = %g m but the grid spans %c "
                   "from %g to %g m",
                   shot, "xyz"[a], pos[a], "xyz"[a], s->origin[a],
                   s->origin[a] + (n[a] - 1) * h[a]);
}

/* "generate": {"first", "step", "count", "cross_step"?, "cross_count"?}: count shots along
 * step (fastest), cross_count such lines along cross_step. The grid box is convex, so
 * the shots lie inside when the corners do. */
static int parse_generate(spec_ctx *c, fdw_survey *sv, const json_t *g, int dflt, json_t *nsv)
{
    static const char *const keys[] = {"first", "step", "count", "cross_step", "cross_count",
                                       NULL};
    const char *P = "survey.generate";
    double first[3], step[3], cross[3] = {0, 0, 0};
    long long count, ncross = 1;
    if (sp_entry(c, g, P, "{\"first\", \"step\", \"count\"}", keys) ||
        sp_vec3(c, g, P, "first", 1, first) ||
        sp_vec3(c, g, P, "step", 1, step) ||
        sp_int(c, g, P, "count", 1, 1, sp_max_shots(c), &count) ||
        sp_vec3(c, g, P, "cross_step", 0, cross) ||
        sp_int(c, g, P, "cross_count", 0, 1, sp_max_shots(c), &ncross))
        return -1;
    if (json_object_get(g, "cross_count") && !json_object_get(g, "cross_step") && ncross > 1)
        return sp_fail(c, "survey.generate.cross_step",
                       "survey.generate.cross_count is %lld: give cross_step too", ncross);
    if (count * ncross > sp_max_shots(c))
        return sp_fail(c, "survey.generate",
                       "survey.generate makes %lld shots (%lld x %lld); a survey may have at "
                       "most %ld",
                       count * ncross, count, ncross, sp_max_shots(c));
    if (dflt < 0)
        return sp_fail(c, "survey.wavelet",
                       "generated shots take survey.wavelet, which is missing");
    double last[3], far[3], side[3];
    for (int a = 0; a < 3; a++) {
        last[a] = first[a] + (double)(count - 1) * step[a];
        side[a] = first[a] + (double)(ncross - 1) * cross[a];
        far[a] = last[a] + (double)(ncross - 1) * cross[a];
    }
    if (check_corner(c, first, "survey.generate.first", 0) ||
        check_corner(c, last, "survey.generate.count", count - 1) ||
        check_corner(c, side, "survey.generate.cross_count", (ncross - 1) * count) ||
        check_corner(c, far, "survey.generate.cross_count", ncross * count - 1))
        return -1;
    const size_t n = (size_t)(count * ncross);
    sv->shots = calloc(n, sizeof *sv->shots);
    if (!sv->shots)
        return sp_fail(c, P, "out of memory for %zu shots", n);
    for (long long j = 0; j < ncross; j++)
        for (long long i = 0; i < count; i++) {
            fdw_shot *S = &sv->shots[sv->nshots++];
            for (int a = 0; a < 3; a++)
                S->pos[a] = first[a] + (double)i * step[a] + (double)j * cross[a];
            outside(c->spec, S->pos); /* clamps a corner within rounding onto the grid */
            S->wavelet = dflt;
        }
    json_t *ng = json_pack("{sososI}", "first", sp_json_vec3(first), "step", sp_json_vec3(step),
                           "count", (json_int_t)count);
    if (ncross > 1) {
        json_object_set_new(ng, "cross_step", sp_json_vec3(cross));
        json_object_set_new(ng, "cross_count", json_integer(ncross));
    }
    json_object_set_new(nsv, "generate", ng);
    return 0;
}

/* "spread": {"points": [[dx, dy, dz], ...], "lines": [{"from", "to", "count"}, ...]}:
 * offsets from the source, expanded (points, then lines) into sv->spread. */
static int parse_spread(spec_ctx *c, fdw_survey *sv, const json_t *sp, json_t *nsv)
{
    static const char *const keys[] = {"points", "lines", NULL};
    static const char *const lkeys[] = {"from", "to", "count", NULL};
    const char *P = "survey.spread";
    json_t *points = NULL, *lines = NULL;
    if (sp_entry(c, sp, P, "{\"points\", \"lines\"}", keys) ||
        sp_array(c, sp, P, "points", 0, &points) ||
        sp_array(c, sp, P, "lines", 0, &lines))
        return -1;
    const size_t np = points ? json_array_size(points) : 0;
    const size_t nl = lines ? json_array_size(lines) : 0;
    long long total = (long long)np;
    if (total > sp_max_receivers(c))
        return sp_fail(c, "survey.spread.points", "%lld spread points; at most %ld receivers "
                       "are allowed per shot", total, sp_max_receivers(c));
    for (size_t i = 0; i < nl; i++) {
        char path[SP_PATH];
        const json_t *l = json_array_get(lines, i);
        double v[3];
        long long count;
        sp_idx(path, "survey.spread.lines", i);
        if (sp_entry(c, l, path, "{\"from\", \"to\", \"count\"}", lkeys) ||
            sp_vec3(c, l, path, "from", 1, v) ||
            sp_vec3(c, l, path, "to", 1, v) ||
            sp_int(c, l, path, "count", 1, 1, sp_max_receivers(c), &count))
            return -1;
        total += count;
        if (total > sp_max_receivers(c))
            return sp_fail(c, path, "with %s the spread has %lld receivers or more; at most "
                           "%ld are allowed per shot", path, total, sp_max_receivers(c));
    }
    if (total == 0)
        return sp_fail(c, P, "survey.spread gives no receiver offset");
    if ((long long)sv->nshots * total > sp_max_traces(c))
        return sp_fail(c, P, "%d shots of %lld receivers make %lld traces; a survey may record "
                       "at most %lld", sv->nshots, total, (long long)sv->nshots * total,
                       sp_max_traces(c));
    sv->spread = calloc((size_t)total, sizeof *sv->spread);
    if (!sv->spread)
        return sp_fail(c, P, "out of memory for %lld spread offsets", total);
    json_t *nsp = json_object(), *npts = json_array(), *nlines = json_array();
    json_object_set_new(nsv, "spread", nsp);
    json_object_set_new(nsp, "points", npts);
    json_object_set_new(nsp, "lines", nlines);
    for (size_t i = 0; i < np; i++) {
        char field[SP_PATH];
        sp_idx(field, "survey.spread.points", i);
        if (sp_value_vec3(c, json_array_get(points, i), field, sv->spread[sv->nspread]))
            return -1;
        json_array_append_new(npts, sp_json_vec3(sv->spread[sv->nspread++]));
    }
    for (size_t i = 0; i < nl; i++) {
        char path[SP_PATH];
        const json_t *l = json_array_get(lines, i);
        double from[3], to[3];
        long long count;
        sp_idx(path, "survey.spread.lines", i);
        sp_vec3(c, l, path, "from", 1, from); /* checked above */
        sp_vec3(c, l, path, "to", 1, to);
        sp_int(c, l, path, "count", 1, 1, sp_max_receivers(c), &count);
        for (long long k = 0; k < count; k++) {
            const double t = count > 1 ? (double)k / (double)(count - 1) : 0.0;
            for (int a = 0; a < 3; a++)
                sv->spread[sv->nspread][a] =
                    k == count - 1 && count > 1 ? to[a] : from[a] + t * (to[a] - from[a]);
            sv->nspread++;
        }
        json_array_append_new(nlines, json_pack("{sososI}", "from", sp_json_vec3(from), "to",
                                                sp_json_vec3(to), "count", (json_int_t)count));
    }
    return 0;
}

int sp_parse_survey(spec_ctx *c, const json_t *root)
{
    static const char *const keys[] = {"shots", "generate", "wavelet", "first_number",
                                       "spread", "outside", NULL};
    fdw_spec *s = c->spec;
    json_t *o, *shots = NULL;
    if (json_object_get(root, "sources"))
        return sp_fail(c, "sources",
                       "a survey gives its shots in survey.shots or survey.generate; "
                       "\"sources\" does not apply");
    if (sp_object(c, root, "", "survey", 1, &o) || sp_keys(c, o, "survey", keys) ||
        sp_array(c, o, "survey", "shots", 0, &shots))
        return -1;
    const json_t *gen = json_object_get(o, "generate");
    if (!!shots == !!gen)
        return sp_fail(c, "survey",
                       "survey needs exactly one of \"shots\" (a list) and \"generate\" (a "
                       "line or grid of shots)");
    long long first = 1, most = sp_max_shots(c);
    int drop = 0;
    if (sp_int(c, o, "survey", "first_number", 0, 1, INT_MAX - most, &first) ||
        sp_enum(c, o, "survey", "outside", 0, OUTSIDE, &drop))
        return -1;
    fdw_survey *sv = calloc(1, sizeof *sv);
    if (!sv)
        return sp_fail(c, "survey", "out of memory");
    s->survey = sv;
    sv->drop_outside = drop;
    /* the wavelets: survey.wavelet and at most one per listed shot */
    size_t nw = 1 + (shots ? json_array_size(shots) : 0);
    if (nw > FDW_SURVEY_MAX_WAVELETS)
        nw = FDW_SURVEY_MAX_WAVELETS;
    sv->wavelets = calloc(nw, sizeof *sv->wavelets);
    if (!sv->wavelets)
        return sp_fail(c, "survey", "out of memory");
    json_t *nsv = json_object();
    json_object_set_new(c->norm, "survey", nsv);
    int dflt = -1;
    const json_t *w = json_object_get(o, "wavelet");
    if (w) {
        json_t *nwv = json_object();
        json_object_set_new(nsv, "wavelet", nwv);
        if (add_wavelet(c, sv, w, "survey.wavelet", nwv, &dflt))
            return -1;
    }
    if (shots ? parse_list(c, sv, shots, dflt, nsv) : parse_generate(c, sv, gen, dflt, nsv))
        return -1;
    if (sv->numbered && json_object_get(o, "first_number"))
        return sp_fail(c, "survey.first_number", "survey.first_number does not apply when the "
                       "listed shots give their own \"number\"");
    for (int i = 0; i < sv->nshots && !sv->numbered; i++)
        sv->shots[i].number = (int)first + i;
    if (!sv->numbered)
        json_object_set_new(nsv, "first_number", json_integer(first));
    json_object_set_new(nsv, "outside", json_string(OUTSIDE[drop]));
    const json_t *sp = json_object_get(o, "spread");
    if (sp && sv->own)
        return sp_fail(c, "survey.spread", "survey.spread does not apply when the listed shots "
                       "give their own \"receivers\"");
    if (sp) {
        sv->moving = 1;
        if (parse_spread(c, sv, sp, nsv))
            return -1;
    }
    return 0;
}

/* A spread receiver of shot i outside the grid: the error names the spread's entry that
 * holds offset j and the shot. */
static int spread_outside(spec_ctx *c, const json_t *root, int i, int j)
{
    const fdw_spec *s = c->spec;
    const fdw_survey *sv = s->survey;
    const json_t *sp = json_object_get(json_object_get(root, "survey"), "spread");
    const json_t *pts = json_object_get(sp, "points"), *lines = json_object_get(sp, "lines");
    const int np = (int)json_array_size(pts);
    char field[SP_PATH];
    if (j < np) {
        sp_idx(field, "survey.spread.points", (size_t)j);
    } else {
        int at = np;
        size_t l = 0;
        for (; l + 1 < json_array_size(lines); l++) {
            at += (int)json_integer_value(json_object_get(json_array_get(lines, l), "count"));
            if (j < at)
                break;
        }
        sp_idx(field, "survey.spread.lines", l);
    }
    double p[3];
    for (int a = 0; a < 3; a++)
        p[a] = sv->shots[i].pos[a] + sv->spread[j][a];
    const int a = outside(s, p);
    const int n[3] = {s->nx, s->ny, s->nz};
    const double h[3] = {s->dx, s->dy, s->dz};
    return sp_fail(c, field,
                   "shot %d (survey shot %d at (%g, %g, %g) m): its receiver at offset (%g, "
                   "%g, %g) m is outside the grid (%c = %g m but the grid spans %c from %g to "
                   "%g m); move the shot or the spread, or set survey.outside to \"drop\"",
                   sv->shots[i].number, i, sv->shots[i].pos[0], sv->shots[i].pos[1],
                   sv->shots[i].pos[2], sv->spread[j][0], sv->spread[j][1], sv->spread[j][2],
                   "xyz"[a], p[a], "xyz"[a], s->origin[a], s->origin[a] + (n[a] - 1) * h[a]);
}

/* After "receivers": the layout checked against it, every shot's receivers counted (a
 * spread's checked against the grid), the traces and recordings of all shots against
 * the limits, and the shots inside the absorbing layer warned of. root: the spec's JSON
 * (for naming a spread entry in an error). */
int sp_finish_survey(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    fdw_survey *sv = s->survey;
    if (!sv)
        return 0;
    if (sv->own && s->nreceivers > 0)
        return sp_fail(c, "receivers",
                       "the listed shots give their own receivers (survey.shots[].receivers): "
                       "receivers.interval still applies; points, lines and planes do not");
    if (sv->moving && s->nreceivers > 0)
        return sp_fail(c, "receivers",
                       "with survey.spread the receivers move with each shot: give them as "
                       "offsets in survey.spread (receivers.interval still applies; points, "
                       "lines and planes do not)");
    if (!sv->moving && s->nreceivers == 0)
        return sp_fail(c, "receivers",
                       "a survey records every shot: give receivers (the same for every shot) "
                       "or survey.spread (offsets that move with the shot)");
    if (!sv->moving && (long long)sv->nshots * s->nreceivers > sp_max_traces(c))
        return sp_fail(c, "survey",
                       "%d shots of %d receivers make %lld traces; a survey may record at most "
                       "%lld",
                       sv->nshots, s->nreceivers, (long long)sv->nshots * s->nreceivers,
                       sp_max_traces(c));
    sv->traces = 0;
    sv->max_receivers = 0;
    for (int i = 0; i < sv->nshots; i++) {
        fdw_shot *S = &sv->shots[i];
        S->nreceivers = fdw_survey_receivers(s, i, NULL);
        if (sv->moving && S->nreceivers < sv->nspread && !sv->drop_outside) {
            for (int j = 0; j < sv->nspread; j++) {
                double p[3];
                for (int a = 0; a < 3; a++)
                    p[a] = S->pos[a] + sv->spread[j][a];
                if (outside(s, p) >= 0)
                    return spread_outside(c, root, i, j);
            }
        }
        if (S->nreceivers == 0)
            return sp_fail(c, "survey.spread",
                           "shot %d at (%g, %g, %g) m keeps no receiver inside the grid", S->number,
                           S->pos[0], S->pos[1], S->pos[2]);
        sv->traces += S->nreceivers;
        if (S->nreceivers > sv->max_receivers)
            sv->max_receivers = S->nreceivers;
    }
    const uint64_t slots = (uint64_t)(s->nt / s->receiver_interval) + 1;
    const uint64_t bytes = (uint64_t)sv->traces * slots * 4u;
    if (bytes > sp_max_record_bytes(c) || bytes / slots / 4u != (uint64_t)sv->traces)
        return sp_fail(c, "survey",
                       "the %d shots record %lld traces of %llu samples, %llu bytes; at most "
                       "%llu are allowed (fewer shots or receivers, or a larger "
                       "receivers.interval)",
                       sv->nshots, sv->traces, (unsigned long long)slots,
                       (unsigned long long)bytes, (unsigned long long)sp_max_record_bytes(c));
    int inside = 0, at = -1;
    for (int i = 0; i < sv->nshots; i++)
        if (sp_in_sponge(s, sv->shots[i].pos)) {
            inside++;
            if (at < 0)
                at = i;
        }
    if (inside)
        sp_warn(c, "%d of %d shots lie inside the absorbing layer (the first is shot %d at "
                "(%g, %g, %g) m)", inside, sv->nshots, sv->shots[at].number,
                sv->shots[at].pos[0], sv->shots[at].pos[1], sv->shots[at].pos[2]);
    return 0;
}
