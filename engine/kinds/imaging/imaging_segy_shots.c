/* imaging_segy_shots.c — a survey of rtm or gradient whose listed shots each name their own
 * SEG-Y file (imaging_segy_int.h): "survey": {"wavelet", "shots": [{"data": {"format":
 * "segy", "path", "ffid", "datum"}}, ...]}. Each file is read as the one-shot reader reads
 * it (its only FFID, or the shot's data.ffid: fdw_img_segy_scan_one), its errors named
 * after the shot's member (survey.shots[i].data.path: the file, the trace, the header
 * field); the files' sample counts and intervals must agree; a shot's source is its first
 * trace's, every other trace's within half a grid spacing of it. The wave sections then
 * parse a survey of listed shots (position, receivers; numbered by their order) in the
 * user's place, and a shot's traces are loaded from its own file (fdw_img_segy_load). The
 * normalised spec keeps the user's form with each file's size and mtime, which a trusted
 * re-parse checks before it reads the headers again. */
#include "kinds/imaging/imaging_segy_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fdw_img_segy_per_shot(const json_t *root)
{
    const json_t *sv = json_object_get(root, "survey");
    const json_t *shots = json_is_object(sv) ? json_object_get(sv, "shots") : NULL;
    return json_is_object(json_object_get(json_array_get(shots, 0), "data"));
}

/* An error of the one-shot reader (on data, data.path, data.ffid) moved to the shot's
 * member sect ("survey.shots[i].data"). Returns -1. */
static int in_shot(spec_ctx *c, const char *sect)
{
    fdw_error *e = c->err;
    if (!e)
        return -1;
    if (strncmp(e->field, "data", 4) == 0 && (e->field[4] == '.' || e->field[4] == '\0')) {
        char f[sizeof e->field];
        snprintf(f, sizeof f, "%.100s%.100s", sect, e->field + 4);
        snprintf(e->field, sizeof e->field, "%s", f);
    }
    if (strncmp(e->message, "data.", 5) == 0) {
        char m[sizeof e->message];
        snprintf(m, sizeof m, "%.100s%.600s", sect, e->message + 4);
        snprintf(e->message, sizeof e->message, "%s", m);
    }
    return -1;
}

/* Shot k's traces (read into one) appended to g: the sampling shot 0's, one source inside
 * the grid. field: the shot's data.path member. */
static int add_shot(spec_ctx *c, img_segy *g, const img_segy *one, int k, const char *field)
{
    if (k == 0) {
        g->samples = one->samples, g->interval_us = one->interval_us;
        g->interval_in_trace = one->interval_in_trace;
        snprintf(g->path, sizeof g->path, "%s", one->path);
    } else if (one->samples != g->samples || one->interval_us != g->interval_us) {
        return sp_fail(c, field, "%s: %.256s holds traces of %d samples at %d us (%s) but "
                       "shot 0's %.256s of %d at %d us: the shots of a survey share their "
                       "sampling", field, one->path, one->samples, one->interval_us,
                       B_NS ", " B_DT " or trace 1's " H_NS ", " H_DT, g->path, g->samples,
                       g->interval_us);
    }
    g->shot_ffid[k] = one->ffid, g->shot_first[k] = g->ntr;
    g->shot_size[k] = one->size, g->shot_mtime[k] = one->mtime_ns, g->shot_datum[k] = one->datum;
    g->shot_path[k] = strdup(one->path);
    g->nshots = k + 1;
    if (!g->shot_path[k])
        return sp_fail(c, field, "out of memory for the shots' files");
    for (int i = 0; i < one->ntr; i++) {
        if (fdw_img_segy_add(c, g, one->trace[i], g->shot_first[k]))
            return -1;
        memcpy(g->rec[g->ntr - 1], one->rec[i], sizeof *g->rec);
        memcpy(g->src[g->ntr - 1], one->src[i], sizeof *g->src);
        if (i > 0 && fdw_img_segy_same_source(c, g, k, one->trace[i], one->path, field))
            return -1;
    }
    g->shot_count[k] = one->ntr;
    char what[600];
    snprintf(what, sizeof what, "the source of shot %d (trace %d of %.256s: SourceX, SourceY, "
             "and datum - (" H_SELEV " - " H_SDEPTH "))", k, one->trace[0] + 1, one->path);
    return sp_check_inside(c, field, g->src[g->shot_first[k]], what);
}

/* survey.shots[i], {"data": {...}}: its file read and its shot appended to g. */
static int read_shot(spec_ctx *c, const json_t *sh, int i, img_segy *g)
{
    static const char *const skeys[] = {"data", NULL};
    static const char *const keys[] = {"format", "path", "ffid", "datum", "size", "mtime",
                                       "name", NULL};
    static const char *const formats[] = {"segy", NULL};
    char ip[SP_PATH], sect[SP_PATH], field[SP_PATH], given[FDW_PATH_MAX];
    json_t *o;
    int fmt = 0;
    long long ffid = -1, size = -1, mtime = 0;
    sp_idx(ip, "survey.shots", (size_t)i);
    sp_key(sect, ip, "data");
    sp_key(field, sect, "path");
    if (!json_is_object(sh))
        return sp_fail(c, ip, "%s must be an object {\"data\"}, not %s", ip, sp_type_name(sh));
    img_segy one = {0};
    if (sp_keys(c, sh, ip, skeys) || sp_object(c, sh, ip, "data", 1, &o) ||
        sp_keys(c, o, sect, keys) || sp_enum(c, o, sect, "format", 0, formats, &fmt) ||
        sp_string(c, o, sect, "path", 1, given, sizeof given) ||
        sp_resolve_path(c, field, given, FDW_FILE_KIND_DATA, "segy", 1, NULL, one.path) ||
        sp_int(c, o, sect, "ffid", 0, 0, INT32_MAX, &ffid) ||
        sp_num(c, o, sect, "datum", 0, &one.datum) ||
        sp_int(c, o, sect, "size", 0, 0, LLONG_MAX, &size) ||
        sp_int(c, o, sect, "mtime", 0, LLONG_MIN, LLONG_MAX, &mtime))
        return -1;
    one.ffid = ffid;
    int rc = c->opts && c->opts->normalised && size >= 0
                 ? fdw_img_segy_unchanged(c, &one, size, mtime)
                 : 0;
    if (rc == 0)
        rc = fdw_img_segy_scan_one(c, &one, ffid >= 0);
    if (rc)
        in_shot(c, sect);
    else
        rc = add_shot(c, g, &one, i, field);
    free(one.trace);
    free(one.rec);
    free(one.src);
    return rc;
}

int fdw_img_segy_scan_shots(spec_ctx *c, const json_t *root, img_segy *g, json_t **wave)
{
    static const char *const svkeys[] = {"wavelet", "shots", NULL};
    static const char *const dkeys[] = {"format", "sample_interval", "samples", NULL};
    const json_t *sv = json_object_get(root, "survey"), *d = json_object_get(root, "data");
    const json_t *shots = json_object_get(sv, "shots");
    if (sp_keys(c, sv, "survey", svkeys) || (d && sp_keys(c, d, "data", dkeys)))
        return -1;
    if (!json_object_get(sv, "wavelet"))
        return sp_fail(c, "survey.wavelet", "a survey whose shots name their SEG-Y files needs "
                       "survey.wavelet, every shot's source wavelet");
    const size_t n = json_array_size(shots);
    if ((long)n > sp_max_shots(c))
        return sp_fail(c, "survey.shots", "survey.shots lists %zu shots; a survey may have at "
                       "most %ld", n, sp_max_shots(c));
    g->shot_ffid = calloc(n, sizeof *g->shot_ffid);
    g->shot_first = calloc(n, sizeof *g->shot_first);
    g->shot_count = calloc(n, sizeof *g->shot_count);
    g->shot_path = calloc(n, sizeof *g->shot_path);
    g->shot_size = calloc(n, sizeof *g->shot_size);
    g->shot_mtime = calloc(n, sizeof *g->shot_mtime);
    g->shot_datum = calloc(n, sizeof *g->shot_datum);
    if (!g->shot_ffid || !g->shot_first || !g->shot_count || !g->shot_path || !g->shot_size ||
        !g->shot_mtime || !g->shot_datum)
        return sp_fail(c, "survey.shots", "out of memory for the survey's shots");
    for (size_t i = 0; i < n; i++)
        if (read_shot(c, json_array_get(shots, i), (int)i, g))
            return -1;
    memcpy(g->source, g->src[0], sizeof g->source);
    return fdw_img_segy_survey_root(c, root, g, 0, wave);
}

json_t *fdw_img_segy_shot_files(const img_segy *g)
{
    json_t *shots = json_array();
    for (int k = 0; k < g->nshots; k++)
        json_array_append_new(shots, json_pack("{s{sssssIsfsIsI}}", "data", "format", "segy",
                                               "path", g->shot_path[k], "ffid",
                                               (json_int_t)g->shot_ffid[k], "datum",
                                               g->shot_datum[k], "size",
                                               (json_int_t)g->shot_size[k], "mtime",
                                               (json_int_t)g->shot_mtime[k]));
    return shots;
}
