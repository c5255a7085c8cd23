/* imaging_segy_survey.c — a survey of a SEG-Y file's shots for rtm and gradient
 * (imaging_segy_int.h): with "data": {"format": "segy", "path", "datum"} and a "survey" that
 * gives only its "wavelet", every FFID of the file is a shot, in ascending FFID order: its
 * traces in file order, its receivers from their headers as the one-shot reader reads them,
 * its source the first trace's (every other trace of the FFID within half a grid spacing of
 * it). The wave sections then parse a survey of listed shots (position, number = the FFID,
 * receivers) in the user's survey's place, and a shot's traces are loaded from its place in
 * the scan (spec.shot_trace0). The normalised spec keeps the user's form with the file's
 * size and mtime, which a trusted re-parse checks before it reads the headers again. */
#include "kinds/imaging/imaging_segy_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ffid_ref {
    int32_t ffid;
    int t;
} ffid_ref;

static int cmp_ffid(const void *a, const void *b)
{
    const ffid_ref *x = a, *y = b;
    return x->ffid != y->ffid ? (x->ffid > y->ffid) - (x->ffid < y->ffid) : x->t - y->t;
}

/* The survey's own members: its wavelet only. */
static int check_survey(spec_ctx *c, const json_t *root)
{
    const json_t *sv = json_object_get(root, "survey");
    if (!json_is_object(sv))
        return sp_fail(c, "survey", "survey must be an object {\"wavelet\"}, not %s",
                       sp_type_name(sv));
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)sv, key, v) {
        if (strcmp(key, "wavelet") == 0)
            continue;
        char f[SP_PATH];
        sp_key(f, "survey", key);
        return sp_fail(c, f, "%s does not apply to a survey of SEG-Y data: its shots are the "
                       "FFIDs of data.path, each with its source and receivers from the trace "
                       "headers; give survey.wavelet only", f);
    }
    if (!json_object_get(sv, "wavelet"))
        return sp_fail(c, "survey.wavelet", "a survey of SEG-Y data needs survey.wavelet, "
                       "every shot's source wavelet");
    return 0;
}

/* A trusted normalised spec: the file must be the one its record names. */
static int check_record(spec_ctx *c, const json_t *root, const img_segy *g)
{
    const json_t *d = json_object_get(root, "data");
    const json_t *sz = json_object_get(d, "size"), *mt = json_object_get(d, "mtime");
    if (!c->opts || !c->opts->normalised || !json_is_integer(sz) || !json_is_integer(mt))
        return 0;
    return fdw_img_segy_unchanged(c, g, json_integer_value(sz), json_integer_value(mt));
}

/* Every trace's FFID, sorted by FFID then trace; *nshots the distinct FFIDs. */
static ffid_ref *read_ffids(spec_ctx *c, const img_segy *g, fdw_segy_in *in, int *nshots)
{
    if (in->ntraces <= 0) {
        sp_fail(c, "data.path", "data.path: %.256s holds no trace", g->path);
        return NULL;
    }
    if (in->ntraces > sp_max_traces(c)) { /* before reading any header of it */
        sp_fail(c, "data.path", "data.path: %.256s holds %d traces; a survey may record at "
                "most %lld", g->path, in->ntraces, sp_max_traces(c));
        return NULL;
    }
    ffid_ref *r = malloc((size_t)in->ntraces * sizeof *r);
    if (!r) {
        sp_fail(c, "data.path", "out of memory for the traces of %.256s", g->path);
        return NULL;
    }
    for (int t = 0; t < in->ntraces; t++) {
        if (segy_traceheader(in->fp, t, in->hdr, in->trace0, in->trsize) != SEGY_OK) {
            sp_fail(c, "data.path", "data.path: cannot read the header of trace %d of %.256s",
                    t + 1, g->path);
            free(r);
            return NULL;
        }
        segy_get_field(in->hdr, SEGY_TR_FIELD_RECORD, &r[t].ffid);
        r[t].t = t;
        if (r[t].ffid < 0) {
            sp_fail(c, "data.path", "data.path: trace %d of %.256s has %s %d: a survey numbers "
                    "its shots by their FFIDs, which must be 0 or more", t + 1, g->path,
                    H_FFID, (int)r[t].ffid);
            free(r);
            return NULL;
        }
    }
    qsort(r, (size_t)in->ntraces, sizeof *r, cmp_ffid);
    int n = 0;
    for (int q = 0; q < in->ntraces; q++)
        n += q == 0 || r[q].ffid != r[q - 1].ffid;
    if (n > sp_max_shots(c)) {
        sp_fail(c, "data.path", "data.path: %.256s holds %d shots (FFIDs); a survey may have at "
                "most %ld", g->path, n, sp_max_shots(c));
        free(r);
        return NULL;
    }
    *nshots = n;
    return r;
}

int fdw_img_segy_same_source(spec_ctx *c, const img_segy *g, int k, int t, const char *path,
                              const char *field)
{
    const fdw_spec *s = c->spec;
    const double h[3] = {s->dx, s->dy, s->dz};
    const int f = g->shot_first[k];
    const double *a = g->src[f], *b = g->src[g->ntr - 1];
    const int ax = fdw_img_segy_far_axis(s, b, a);
    if (ax >= 0)
        return sp_fail(c, field, "%s: trace %d of %.256s puts the source of FFID %lld at %c = "
                       "%g m (%s), more than half a grid spacing (%g m) from where the shot's "
                       "first trace %d puts it (%g m): a shot has one source", field, t + 1,
                       path, g->shot_ffid[k], "xyz"[ax], b[ax], SOURCE_FIELD[ax],
                       0.5 * h[ax], g->trace[f] + 1, a[ax]);
    return 0;
}

/* The shots' traces and geometry in FFID order (r from read_ffids). */
static int read_shots(spec_ctx *c, img_segy *g, fdw_segy_in *in, const ffid_ref *r, int nshots)
{
    g->shot_ffid = calloc((size_t)nshots, sizeof *g->shot_ffid);
    g->shot_first = calloc((size_t)nshots, sizeof *g->shot_first);
    g->shot_count = calloc((size_t)nshots, sizeof *g->shot_count);
    if (!g->shot_ffid || !g->shot_first || !g->shot_count)
        return sp_fail(c, "data.path", "out of memory for the shots of %.256s", g->path);
    int k = -1;
    for (int q = 0; q < in->ntraces; q++) {
        const int t = r[q].t;
        if (q == 0 || r[q].ffid != r[q - 1].ffid) {
            k++;
            g->shot_ffid[k] = r[q].ffid;
            g->shot_first[k] = g->ntr;
        }
        if (segy_traceheader(in->fp, t, in->hdr, in->trace0, in->trsize) != SEGY_OK)
            return sp_fail(c, "data.path", "data.path: cannot read the header of trace %d of "
                           "%.256s", t + 1, g->path);
        if (fdw_img_segy_add(c, g, t, g->shot_first[k]) ||
            fdw_img_segy_geometry(c, g, in, t))
            return -1;
        if (g->ntr - 1 > g->shot_first[k]) {
            if (fdw_img_segy_same_source(c, g, k, t, g->path, "data.path"))
                return -1;
        } else {
            char what[512];
            snprintf(what, sizeof what, "the source of FFID %lld (trace %d of %.256s: "
                     "SourceX, SourceY, and data.datum - (" H_SELEV " - " H_SDEPTH "))",
                     g->shot_ffid[k], t + 1, g->path);
            if (sp_check_inside(c, "data.path", g->src[g->ntr - 1], what))
                return -1;
        }
        g->shot_count[k] = g->ntr - g->shot_first[k];
    }
    g->nshots = nshots;
    return 0;
}

int fdw_img_segy_survey_root(spec_ctx *c, const json_t *root, const img_segy *g, int numbered,
                             json_t **wave)
{
    if (fdw_img_segy_interval_root(c, root, g, wave))
        return -1;
    json_t *shots = json_array();
    for (int k = 0; k < g->nshots; k++) {
        json_t *pts = json_array();
        for (int i = 0; i < g->shot_count[k]; i++)
            json_array_append_new(pts, sp_json_vec3(g->rec[g->shot_first[k] + i]));
        json_t *shot = json_pack("{soso}", "position", sp_json_vec3(g->src[g->shot_first[k]]),
                                 "receivers", pts);
        if (numbered)
            json_object_set_new(shot, "number", json_integer(g->shot_ffid[k]));
        json_array_append_new(shots, shot);
    }
    json_object_set_new(json_object_get(*wave, "survey"), "shots", shots);
    return 0;
}

int fdw_img_segy_scan_survey(spec_ctx *c, const json_t *root, img_segy *g, json_t **wave)
{
    fdw_segy_in in;
    if (check_survey(c, root) || check_record(c, root, g) || fdw_img_segy_open(c, g, &in))
        return -1;
    int nshots = 0;
    ffid_ref *r = read_ffids(c, g, &in, &nshots);
    const int rc = r ? read_shots(c, g, &in, r, nshots) : -1;
    free(r);
    fdw_segy_in_close(&in);
    if (rc)
        return -1;
    memcpy(g->source, g->src[0], sizeof g->source);
    return fdw_img_segy_survey_root(c, root, g, 1, wave);
}

int fdw_img_segy_finish_survey(spec_ctx *c, img_segy *g, json_t *norm)
{
    if (fdw_img_segy_check_length(c, g))
        return -1;
    /* the user's form: the headers give the shots and their receivers (and with one file a
     * shot, the shots list their files: imaging_segy_shots.c) */
    json_object_del(c->norm, "receivers");
    json_t *w = json_object_get(json_object_get(c->norm, "survey"), "wavelet");
    json_t *sv = json_pack("{sO}", "wavelet", w);
    if (g->shot_path)
        json_object_set_new(sv, "shots", fdw_img_segy_shot_files(g));
    json_object_set_new(c->norm, "survey", sv);
    json_object_set_new(norm, "format", json_string("segy"));
    if (!g->shot_path) {
        json_object_set_new(norm, "path", json_string(g->path));
        json_object_set_new(norm, "datum", json_real(g->datum));
    }
    json_object_set_new(norm, "sample_interval", json_real(g->interval_us * 1e-6));
    json_object_set_new(norm, "samples", json_integer(g->samples));
    if (!g->shot_path) {
        json_object_set_new(norm, "size", json_integer(g->size));
        json_object_set_new(norm, "mtime", json_integer(g->mtime_ns));
    }
    free(g->src); /* checked */
    g->src = NULL;
    return 0;
}
