/* imaging_segy.c — rtm's and gradient's observed traces from SEG-Y (imaging.h; "data":
 * {"format": "segy", "path", "ffid", "datum"}, docs/spec.md): one shot of the file (its
 * only FFID, or data.ffid), its geometry from the trace headers by the SEG-Y rev 1 fields
 * and scalars (source and group x/y, elevations and depths; z = datum - elevation), its
 * receivers and sample interval handed to the shared wave sections as if the spec had
 * given them ("receivers" points, time.sample_interval: wave_time.c's dt rule makes the
 * interval a whole number of steps), its source checked against the spec's, and its
 * traces read for the run. The normalised spec records what the headers gave and the
 * file's size and mtime; a trusted re-parse (opts->normalised) uses that record instead
 * of reading the headers again, and the run refuses a file that changed since. A survey
 * of the file's every FFID: imaging_segy_survey.c. */
#include "kinds/imaging/imaging_segy_int.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int fdw_img_segy_wanted(const json_t *root)
{
    const json_t *f = json_object_get(json_object_get(root, "data"), "format");
    return (json_is_string(f) && strcmp(json_string_value(f), "segy") == 0) ||
           fdw_img_segy_per_shot(root);
}

void fdw_img_segy_free(img_segy *g)
{
    if (!g)
        return;
    free(g->trace);
    free(g->rec);
    free(g->src);
    free(g->shot_ffid);
    free(g->shot_first);
    free(g->shot_count);
    for (int k = 0; g->shot_path && k < g->nshots; k++)
        free(g->shot_path[k]);
    free(g->shot_path);
    free(g->shot_size);
    free(g->shot_mtime);
    free(g->shot_datum);
    free(g);
}

int fdw_img_segy_trace(const img_segy *g, long receiver)
{
    return g->trace[receiver] + 1;
}

/* A header value under a SEG-Y rev 1 scalar: positive multiplies, negative divides, 0
 * counts as 1. */
double fdw_img_segy_scaled(int32_t v, int32_t scalar)
{
    return scalar > 0 ? (double)v * scalar : scalar < 0 ? (double)v / -scalar : (double)v;
}

static int scalar_valid(int32_t s)
{
    const int32_t a = s < 0 ? -s : s;
    return a == 0 || a == 1 || a == 10 || a == 100 || a == 1000 || a == 10000;
}

int fdw_img_segy_stamp(const char *path, long long *size, long long *mtime_ns)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    *size = (long long)st.st_size;
    *mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    return 0;
}

int fdw_img_segy_add(spec_ctx *c, img_segy *g, int t, int first)
{
    if (g->ntr - first >= sp_max_receivers(c))
        return sp_fail(c, "data.path", "data.path: the shot of trace %d of %.256s has more than "
                       "%ld traces, the most receivers a job may have", t + 1, g->path,
                       sp_max_receivers(c));
    if (g->ntr >= sp_max_traces(c))
        return sp_fail(c, "data.path", "data.path: %.256s has more than %lld traces, the most "
                       "a survey may record", g->path, sp_max_traces(c));
    if (g->ntr == g->cap) {
        const int cap = g->cap ? 2 * g->cap : 64;
        int *tr = realloc(g->trace, (size_t)cap * sizeof *tr);
        if (tr)
            g->trace = tr;
        double(*r)[3] = tr ? realloc(g->rec, (size_t)cap * sizeof *r) : NULL;
        if (r)
            g->rec = r;
        double(*s)[3] = r ? realloc(g->src, (size_t)cap * sizeof *s) : NULL;
        if (!s)
            return sp_fail(c, "data.path", "out of memory for the traces of %.256s", g->path);
        g->src = s;
        g->cap = cap;
    }
    g->trace[g->ntr++] = t;
    return 0;
}

int fdw_img_segy_header_check(spec_ctx *c, const img_segy *g, const fdw_segy_in *in, int t)
{
    const char *p = g->path;
    int32_t ns, dt, units, esc, csc;
    segy_get_field(in->hdr, SEGY_TR_SAMPLE_COUNT, &ns);
    segy_get_field(in->hdr, SEGY_TR_SAMPLE_INTER, &dt);
    segy_get_field(in->hdr, SEGY_TR_COORD_UNITS, &units);
    segy_get_field(in->hdr, SEGY_TR_ELEV_SCALAR, &esc);
    segy_get_field(in->hdr, SEGY_TR_SOURCE_GROUP_SCALAR, &csc);
    ns &= 0xffff, dt &= 0xffff; /* unsigned 16-bit fields */
    if (ns != 0 && ns != g->samples)
        return sp_fail(c, "data.path", "data.path: trace %d of %.256s has %s %d but the file's "
                       "traces hold %d samples (%s): every trace must be as long", t + 1, p,
                       H_NS, (int)ns, g->samples, B_NS " or trace 1's " H_NS);
    if (dt != 0 && dt != g->interval_us)
        return sp_fail(c, "data.path", "data.path: trace %d of %.256s has %s %d us but the "
                       "file's sample interval is %d us (%s): they must agree", t + 1, p, H_DT,
                       (int)dt, g->interval_us, g->interval_in_trace ? "trace 1's " H_DT : B_DT);
    if (units != 0 && units != 1)
        return sp_fail(c, "data.path", "data.path: trace %d of %.256s has %s %d: only lengths "
                       "(1) place a trace on the grid, not seconds of arc (2), degrees (3) or "
                       "DMS (4)", t + 1, p, H_UNITS, (int)units);
    if (!scalar_valid(esc) || !scalar_valid(csc))
        return sp_fail(c, "data.path", "data.path: trace %d of %.256s has %s %d: SEG-Y rev 1 "
                       "scalars are 0, +-1, +-10, +-100, +-1000 or +-10000 (negative divides)",
                       t + 1, p, scalar_valid(esc) ? H_CSCAL : H_ESCAL,
                       (int)(scalar_valid(esc) ? csc : esc));
    return 0;
}

/* The trace's header checks, its geometry, its receiver inside the grid. */
int fdw_img_segy_geometry(spec_ctx *c, img_segy *g, fdw_segy_in *in, int t)
{
    const char *p = g->path;
    int32_t esc, csc, v[7];
    if (fdw_img_segy_header_check(c, g, in, t))
        return -1;
    segy_get_field(in->hdr, SEGY_TR_ELEV_SCALAR, &esc);
    segy_get_field(in->hdr, SEGY_TR_SOURCE_GROUP_SCALAR, &csc);
    static const int fields[7] = {SEGY_TR_SOURCE_X, SEGY_TR_SOURCE_Y, SEGY_TR_SOURCE_SURF_ELEV,
                                  SEGY_TR_SOURCE_DEPTH, SEGY_TR_GROUP_X, SEGY_TR_GROUP_Y,
                                  SEGY_TR_RECV_GROUP_ELEV};
    for (int q = 0; q < 7; q++)
        segy_get_field(in->hdr, fields[q], &v[q]);
    double *s = g->src[g->ntr - 1], *r = g->rec[g->ntr - 1];
    s[0] = fdw_img_segy_scaled(v[0], csc);
    s[1] = fdw_img_segy_scaled(v[1], csc);
    s[2] = g->datum - (fdw_img_segy_scaled(v[2], esc) - fdw_img_segy_scaled(v[3], esc));
    r[0] = fdw_img_segy_scaled(v[4], csc);
    r[1] = fdw_img_segy_scaled(v[5], csc);
    r[2] = g->datum - fdw_img_segy_scaled(v[6], esc);
    char what[640];
    snprintf(what, sizeof what, "the receiver of trace %d of %.256s (x: GroupX, bytes 81-84, "
             "y: GroupY, bytes 85-88, scaled by " H_CSCAL " %d; z: data.datum - " H_GELEV
             " scaled by " H_ESCAL " %d)", t + 1, p, (int)csc, (int)esc);
    return sp_check_inside(c, "data.path", r, what);
}

int fdw_img_segy_open(spec_ctx *c, img_segy *g, fdw_segy_in *in)
{
    const char *p = g->path;
    memset(in, 0, sizeof *in);
    if (fdw_img_segy_stamp(p, &g->size, &g->mtime_ns) != 0 ||
        fdw_segy_in_open(in, p, "data.path", "data", c->err) != FDW_OK)
        goto fail;
    int32_t units = 0, bdt = 0;
    segy_get_bfield(in->bin, SEGY_BIN_MEASUREMENT_SYSTEM, &units);
    segy_get_bfield(in->bin, SEGY_BIN_INTERVAL, &bdt);
    if (units != 0 && units != 1) {
        sp_fail(c, "data.path", "data.path: %.256s has %s %d: only metres (1) are read; "
                "convert a file in feet (2) to metres", p, B_UNITS, (int)units);
        goto fail;
    }
    g->samples = in->ns;
    g->interval_us = bdt & 0xffff;
    if (g->interval_us == 0 && in->ntraces > 0) {
        int32_t dt;
        if (segy_traceheader(in->fp, 0, in->hdr, in->trace0, in->trsize) != SEGY_OK) {
            sp_fail(c, "data.path", "data.path: cannot read the header of trace 1 of %.256s", p);
            goto fail;
        }
        segy_get_field(in->hdr, SEGY_TR_SAMPLE_INTER, &dt);
        g->interval_us = dt & 0xffff;
        g->interval_in_trace = 1;
    }
    if (g->interval_us == 0) {
        sp_fail(c, "data.path", "data.path: %.256s records no sample interval: %s and trace 1's "
                "%s are both 0", p, B_DT, H_DT);
        goto fail;
    }
    return 0;
fail:
    if (c->err && c->err->field[0] == '\0')
        sp_fail(c, "data.path", "data.path: cannot read %.256s", p);
    fdw_segy_in_close(in);
    return -1;
}

/* The shot's traces from the file's headers: those of data.ffid (ffid_given) or of the
 * file's only FFID, each checked (fdw_img_segy_geometry). */
int fdw_img_segy_scan_one(spec_ctx *c, img_segy *g, int ffid_given)
{
    fdw_segy_in in;
    const char *p = g->path;
    if (fdw_img_segy_open(c, g, &in))
        return -1;
    int rc = -1;
    int32_t lo = 0, hi = 0;
    for (int t = 0; t < in.ntraces; t++) {
        if (segy_traceheader(in.fp, t, in.hdr, in.trace0, in.trsize) != SEGY_OK) {
            sp_fail(c, "data.path", "data.path: cannot read the header of trace %d of %.256s",
                    t + 1, p);
            goto done;
        }
        int32_t ffid;
        segy_get_field(in.hdr, SEGY_TR_FIELD_RECORD, &ffid);
        lo = t == 0 || ffid < lo ? ffid : lo;
        hi = t == 0 || ffid > hi ? ffid : hi;
        if (!ffid_given && t == 0)
            g->ffid = ffid;
        if (!ffid_given && ffid != g->ffid) {
            sp_fail(c, "data.path", "data.path: trace %d of %.256s has %s %d but trace 1 has "
                    "%lld: the file holds several shots; give data.ffid to choose one, or a "
                    "survey to take them all", t + 1, p, H_FFID, (int)ffid, g->ffid);
            goto done;
        }
        if (ffid != g->ffid)
            continue;
        if (fdw_img_segy_add(c, g, t, 0) || fdw_img_segy_geometry(c, g, &in, t))
            goto done;
    }
    if (g->ntr == 0) {
        sp_fail(c, "data.ffid", "data.ffid is %lld but no trace of %.256s has that %s (they "
                "range from %d to %d)", g->ffid, p, H_FFID, (int)lo, (int)hi);
        goto done;
    }
    memcpy(g->source, g->src[0], sizeof g->source);
    rc = 0;
done:
    if (rc && c->err && c->err->field[0] == '\0')
        sp_fail(c, "data.path", "data.path: cannot read %.256s", p);
    fdw_segy_in_close(&in);
    return rc;
}

int fdw_img_segy_unchanged(spec_ctx *c, const img_segy *g, long long size, long long mtime)
{
    long long sz, mt;
    if (fdw_img_segy_stamp(g->path, &sz, &mt) != 0 || sz != size || mt != mtime)
        return sp_fail(c, "data.path", "data.path: %.256s changed after the spec was checked "
                       "(its size or modification time is not the one recorded): submit the "
                       "job again", g->path);
    return 0;
}

int fdw_img_segy_far_axis(const fdw_spec *s, const double *a, const double *b)
{
    const double h[3] = {s->dx, s->dy, s->dz};
    for (int ax = 0; ax < 3; ax++)
        if (!(fabs(a[ax] - b[ax]) <= 0.5 * h[ax] * (1.0 + 1e-9)))
            return ax;
    return -1;
}

/* What a normalised spec recorded of the file (opts->normalised, every record member
 * present): used instead of the headers when the file's size and mtime are the same.
 * 1 when used, 0 when not, -1 on error. */
static int recorded(spec_ctx *c, const json_t *o, img_segy *g)
{
    static const char *const rec[] = {"ffid", "sample_interval", "samples", "traces",
                                      "receivers", "source", "size", "mtime", NULL};
    if (!c->opts || !c->opts->normalised)
        return 0;
    for (int q = 0; rec[q]; q++)
        if (!json_object_get(o, rec[q]))
            return 0;
    long long size, mtime, ns, first, count;
    double si;
    json_t *runs, *pts;
    if (sp_int(c, o, "data", "size", 1, 0, LLONG_MAX, &size) ||
        sp_int(c, o, "data", "mtime", 1, LLONG_MIN, LLONG_MAX, &mtime) ||
        sp_int(c, o, "data", "samples", 1, 1, 65535, &ns) ||
        sp_pos(c, o, "data", "sample_interval", 1, &si) ||
        sp_vec3(c, o, "data", "source", 1, g->source) ||
        sp_array(c, o, "data", "traces", 1, &runs) ||
        sp_array(c, o, "data", "receivers", 1, &pts))
        return -1;
    if (fdw_img_segy_unchanged(c, g, size, mtime))
        return -1;
    g->size = size, g->mtime_ns = mtime, g->samples = (int)ns;
    g->interval_us = (int)nearbyint(si * 1e6);
    for (size_t i = 0; i < json_array_size(runs); i++) {
        char f[SP_PATH];
        sp_idx(f, "data.traces", i);
        const json_t *run = json_array_get(runs, i);
        if (!json_is_array(run) || json_array_size(run) != 2)
            return sp_fail(c, f, "%s must be [first trace, count]", f);
        if (sp_value_int(c, json_array_get(run, 0), f, 1, INT32_MAX, &first) ||
            sp_value_int(c, json_array_get(run, 1), f, 1, INT32_MAX - first + 1, &count))
            return -1;
        for (long long t = first - 1; t < first - 1 + count; t++)
            if (fdw_img_segy_add(c, g, (int)t, 0))
                return -1;
    }
    if (json_array_size(pts) != (size_t)g->ntr || g->ntr == 0)
        return sp_fail(c, "data.receivers", "data.receivers holds %zu points but data.traces "
                       "%d traces", json_array_size(pts), g->ntr);
    for (int i = 0; i < g->ntr; i++) {
        char f[SP_PATH];
        sp_idx(f, "data.receivers", (size_t)i);
        if (sp_value_vec3(c, json_array_get(pts, (size_t)i), f, g->rec[i]))
            return -1;
    }
    free(g->src); /* the record keeps the shot's source only */
    g->src = NULL;
    return 1;
}

int fdw_img_segy_interval_root(spec_ctx *c, const json_t *root, const img_segy *g, json_t **w)
{
    const double S = g->interval_us * 1e-6;
    json_t *t = json_object_get(root, "time");
    const json_t *si = json_is_object(t) ? json_object_get(t, "sample_interval") : NULL;
    if (si && !(json_is_number(si) && nearbyint(json_number_value(si) * 1e6) == g->interval_us))
        return sp_fail(c, "time.sample_interval", "time.sample_interval must be the sample "
                       "interval of data.path %.256s, %d us (%s), or left out", g->path,
                       g->interval_us, g->interval_in_trace ? "trace 1's " H_DT : B_DT);
    snprintf(c->si_field, sizeof c->si_field, "data.path");
    snprintf(c->si_what, sizeof c->si_what, "the sample interval of data.path %.256s (%s)",
             g->path, g->src ? g->interval_in_trace ? "trace 1's " H_DT : B_DT
                             : "data.sample_interval, as recorded");
    *w = json_deep_copy(root);
    t = json_object_get(*w, "time");
    if (json_is_object(t))
        json_object_set_new(t, "sample_interval", json_real(S));
    return 0;
}

/* The root the wave sections parse: the user's, with the shot's receivers as points and
 * its sample interval as time.sample_interval. */
static int wave_root(spec_ctx *c, const json_t *root, const img_segy *g, json_t **wave)
{
    if (fdw_img_segy_interval_root(c, root, g, wave))
        return -1;
    json_t *pts = json_array();
    for (int i = 0; i < g->ntr; i++)
        json_array_append_new(pts, sp_json_vec3(g->rec[i]));
    json_object_set_new(*wave, "receivers", json_pack("{so}", "points", pts));
    return 0;
}

int fdw_img_segy_scan(spec_ctx *c, const json_t *root, fdw_img_spec *k, json_t **wave)
{
    static const char *const keys[] = {"format", "path", "ffid", "datum", "sample_interval",
                                       "samples", "traces", "receivers", "source", "size",
                                       "mtime", "name", NULL};
    json_t *o;
    char given[FDW_PATH_MAX];
    long long ffid = -1;
    img_segy *g = calloc(1, sizeof *g);
    if (!g)
        return sp_fail(c, "data", "out of memory parsing data");
    k->segy = g;
    if (fdw_img_segy_per_shot(root))
        return fdw_img_segy_scan_shots(c, root, g, wave);
    if (sp_object(c, root, "", "data", 1, &o) || sp_keys(c, o, "data", keys) ||
        sp_string(c, o, "data", "path", 1, given, sizeof given) ||
        sp_resolve_path(c, "data.path", given, FDW_FILE_KIND_DATA, "segy", 1, NULL, g->path) ||
        sp_int(c, o, "data", "ffid", 0, 0, INT32_MAX, &ffid) ||
        sp_num(c, o, "data", "datum", 0, &g->datum))
        return -1;
    g->ffid = ffid;
    if (json_object_get(root, "survey")) {
        if (ffid >= 0)
            return sp_fail(c, "data.ffid", "data.ffid chooses one shot of the file, but the "
                           "survey takes every FFID of data.path: leave data.ffid out, or the "
                           "survey for one shot");
        return fdw_img_segy_scan_survey(c, root, g, wave);
    }
    const int rec = recorded(c, o, g);
    if (rec < 0 || (rec == 0 && fdw_img_segy_scan_one(c, g, ffid >= 0)))
        return -1;
    return wave_root(c, root, g, wave);
}

/* The spec's source against the file's, per axis within half a grid spacing. */
static int check_source(spec_ctx *c, const img_segy *g)
{
    const fdw_spec *s = c->spec;
    const double h[3] = {s->dx, s->dy, s->dz}, *at = s->sources[0].pos;
    for (int i = 0; i < (g->src ? g->ntr : 1); i++) {
        const double *v = g->src ? g->src[i] : g->source;
        const int a = fdw_img_segy_far_axis(s, v, at);
        if (a >= 0)
            return sp_fail(c, "data.path", "data.path: trace %d of %.256s puts the source at "
                           "%c = %g m (%s), more than half a grid spacing (%g m) from the "
                           "spec's sources[0] at %c = %g m", g->trace[i] + 1, g->path, "xyz"[a],
                           v[a], g->src ? SOURCE_FIELD[a] : "data.source, as recorded",
                           0.5 * h[a], "xyz"[a], at[a]);
    }
    return 0;
}

int fdw_img_segy_check_length(spec_ctx *c, const img_segy *g)
{
    const fdw_spec *s = c->spec;
    const long slots = s->nt / s->receiver_interval + 1;
    if (g->samples < slots)
        return sp_fail(c, "data.path", "data.path: the traces of %.256s hold %d samples (%s) "
                       "at %d us, 0 to %.9g s, but the run records %ld, 0 to %.9g s (time.nt "
                       "%ld steps of %.9g s): give time.nt at most %ld", g->path, g->samples,
                       B_NS " or trace 1's " H_NS, g->interval_us,
                       (g->samples - 1) * g->interval_us * 1e-6, slots,
                       (slots - 1) * s->receiver_interval * s->dt, s->nt, s->dt,
                       (long)(g->samples - 1) * s->receiver_interval);
    return 0;
}

int fdw_img_segy_finish(spec_ctx *c, fdw_img_spec *k, json_t *norm)
{
    const fdw_spec *s = c->spec;
    img_segy *g = k->segy;
    if (g->nshots > 0)
        return fdw_img_segy_finish_survey(c, g, norm);
    if (s->nsources != 1)
        return sp_fail(c, "sources", "data.format \"segy\" gives one shot, its source where "
                       "the trace headers put it: give one source, not %d", s->nsources);
    if (check_source(c, g))
        return -1;
    if (fdw_img_segy_check_length(c, g))
        return -1;
    json_object_del(c->norm, "receivers"); /* the headers give them: recorded below */
    json_t *runs = json_array(), *pts = json_array();
    for (int i = 0; i < g->ntr;) {
        int n = 1;
        while (i + n < g->ntr && g->trace[i + n] == g->trace[i] + n)
            n++;
        json_array_append_new(runs, json_pack("[ii]", g->trace[i] + 1, n));
        i += n;
    }
    for (int i = 0; i < s->nreceivers; i++)
        json_array_append_new(pts, sp_json_vec3(s->receivers[i].pos));
    json_object_set_new(norm, "format", json_string("segy"));
    json_object_set_new(norm, "path", json_string(g->path));
    json_object_set_new(norm, "ffid", json_integer(g->ffid));
    json_object_set_new(norm, "datum", json_real(g->datum));
    json_object_set_new(norm, "sample_interval", json_real(g->interval_us * 1e-6));
    json_object_set_new(norm, "samples", json_integer(g->samples));
    json_object_set_new(norm, "traces", runs);
    json_object_set_new(norm, "receivers", pts);
    json_object_set_new(norm, "source", sp_json_vec3(g->source));
    json_object_set_new(norm, "size", json_integer(g->size));
    json_object_set_new(norm, "mtime", json_integer(g->mtime_ns));
    free(g->src); /* checked */
    g->src = NULL;
    return 0;
}

/* The file of the shot whose traces start at first: g's one file, or that shot's own. */
static void file_of(const img_segy *g, long first, const char **path, long long *size,
                    long long *mtime)
{
    *path = g->path, *size = g->size, *mtime = g->mtime_ns;
    for (int k = 0; g->shot_path && k < g->nshots; k++)
        if (g->shot_first[k] == first)
            *path = g->shot_path[k], *size = g->shot_size[k], *mtime = g->shot_mtime[k];
}

fdw_status fdw_img_segy_load(const img_segy *g, long first, long count, float *data,
                             long slots, fdw_error *err)
{
    long long size, mtime, was_size, was_mtime;
    const char *path;
    file_of(g, first, &path, &was_size, &was_mtime);
    if (fdw_img_segy_stamp(path, &size, &mtime) != 0 || size != was_size || mtime != was_mtime)
        return fdw_fail(err, FDW_ERR_IO, "data.path", "data.path: %.256s changed after the "
                        "spec was checked (its size or modification time): submit the job "
                        "again", path);
    fdw_segy_in in;
    fdw_status st = fdw_segy_in_open(&in, path, "data.path", "data", err);
    float *buf = st == FDW_OK ? malloc((size_t)in.ns * sizeof *buf) : NULL;
    if (st == FDW_OK && in.ns != g->samples)
        st = fdw_fail(err, FDW_ERR_IO, "data.path", "data.path: %.256s changed after the spec "
                      "was checked: its traces hold %d samples, not %d", path, in.ns,
                      g->samples);
    else if (st == FDW_OK && !buf)
        st = fdw_fail(err, FDW_ERR_NOMEM, "data.path", "out of memory for a trace");
    if (st == FDW_OK && (first < 0 || count < 0 || first + count > g->ntr))
        st = fdw_fail(err, FDW_ERR_INTERNAL, "data.path", "data.path: traces %ld..%ld of a "
                      "scan of %d", first, first + count, g->ntr);
    for (long r = 0; st == FDW_OK && r < count; r++) {
        const int t = g->trace[first + r];
        if (segy_readtrace(in.fp, t, buf, in.trace0, in.trsize) != SEGY_OK) {
            st = fdw_fail(err, FDW_ERR_IO, "data.path", "data.path: cannot read trace %d of "
                          "%.256s", t + 1, path);
            break;
        }
        segy_to_native(in.format, in.ns, buf);
        memcpy(data + (size_t)r * (size_t)slots, buf, (size_t)slots * sizeof *buf);
    }
    free(buf);
    fdw_segy_in_close(&in);
    return st;
}
