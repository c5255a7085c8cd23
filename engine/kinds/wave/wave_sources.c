/* wave_sources.c — the "sources" section of a wave kind's spec: positions inside the grid
 * and their wavelets, a Ricker pulse (peak frequency, delay, amplitude) or a file of raw
 * little-endian float32 samples, one per time step, loaded and checked here. */
#include "kinds/wave/wave_spec.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const WAVELET_TYPES[] = {"ricker", "file", NULL};

/* Little-endian float32 from 4 bytes, whatever the host's byte order. */
static float le_f32(const unsigned char *b)
{
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Read the wavelet file into src->samples: at most nt samples are kept (one per step). */
static int load_wavelet(spec_ctx *c, const char *field, int index, fdw_source *src)
{
    FILE *f = fopen(src->path, "rb");
    if (!f)
        return sp_fail(c, field, "cannot open %s: %s", src->path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return sp_fail(c, field, "cannot read %s: not a seekable file", src->path);
    }
    long size = ftell(f);
    rewind(f);
    if (size <= 0 || size % 4 != 0) {
        fclose(f);
        return sp_fail(c, field,
                       "%s holds %ld bytes; a wavelet file holds float32 samples, a positive "
                       "multiple of 4 bytes",
                       src->path, size);
    }
    long total = size / 4;
    long keep = total < c->spec->nt ? total : c->spec->nt;
    const uint64_t limit = sp_max_record_bytes(c);
    if (c->wavelet_bytes + (uint64_t)keep * 4u > limit) {
        fclose(f);
        return sp_fail(c, field,
                       "the wavelet files of this spec load more than %llu bytes of samples "
                       "(source %d adds %ld); name fewer or shorter files",
                       (unsigned long long)limit, index, keep * 4);
    }
    c->wavelet_bytes += (uint64_t)keep * 4u;
    src->samples = malloc((size_t)keep * sizeof *src->samples);
    unsigned char *bytes = malloc((size_t)keep * 4);
    if (!src->samples || !bytes) {
        free(bytes);
        fclose(f);
        return sp_fail(c, field, "out of memory loading %ld wavelet samples", keep);
    }
    size_t got = fread(bytes, 4, (size_t)keep, f);
    fclose(f);
    if (got != (size_t)keep) {
        free(bytes);
        return sp_fail(c, field, "%s: short read (%zu of %ld samples)", src->path, got, keep);
    }
    for (long i = 0; i < keep; i++) {
        src->samples[i] = le_f32(bytes + 4 * i);
        if (!isfinite(src->samples[i])) {
            float bad = src->samples[i];
            free(bytes);
            return sp_fail(c, field, "sample %ld of wavelet file %s is not finite (%g)", i,
                           src->path, (double)bad);
        }
    }
    free(bytes);
    src->nsamples = keep;
    if (total > c->spec->nt)
        sp_warn(c, "source %d: the wavelet file has %ld samples; only the first %ld (nt) are "
                "used", index, total, c->spec->nt);
    else if (total < c->spec->nt)
        sp_warn(c, "source %d: the wavelet file has %ld samples, fewer than nt = %ld; the "
                "source is zero after the last sample", index, total, c->spec->nt);
    return 0;
}

/* The wavelet's peak times its amplitude (0, or 1e-20 to 1e20): the field is float32, so
 * a larger source overflows it (amplitude 1e300 gave NaN gathers and a run that "succeeded")
 * and a smaller one leaves nothing above its underflow. */
#define SP_AMPLITUDE_MIN 1e-20
#define SP_AMPLITUDE_MAX 1e20
static int check_amplitude(spec_ctx *c, const char *path, const fdw_source *src)
{
    double peak = 1.0; /* a Ricker's */
    if (src->wavelet == FDW_WAVELET_FILE) {
        peak = 0.0;
        for (long i = 0; i < src->nsamples; i++)
            peak = fmax(peak, fabs((double)src->samples[i]));
    }
    const double a = fabs(src->amplitude) * peak;
    if (a == 0.0 || (a >= SP_AMPLITUDE_MIN && a <= SP_AMPLITUDE_MAX))
        return 0;
    char field[SP_PATH];
    sp_key(field, path, "amplitude");
    return sp_fail(c, field,
                   "%s is %g and the wavelet's peak %g: their product must lie between %g and "
                   "%g (or be 0), as the wavefield is single precision (larger sources "
                   "overflow it, smaller ones vanish below its smallest values)",
                   field, src->amplitude, peak, SP_AMPLITUDE_MIN, SP_AMPLITUDE_MAX);
}

int wave_parse_wavelet(spec_ctx *c, const json_t *w, const char *path, int index,
                       fdw_source *src, json_t *norm)
{
    static const char *const rkeys[] = {"type", "f0", "delay", "amplitude", NULL};
    static const char *const fkeys[] = {"type", "path", "amplitude", NULL};
    fdw_spec *s = c->spec;
    int type = 0;
    if (sp_enum(c, w, path, "type", 1, WAVELET_TYPES, &type))
        return -1;
    src->amplitude = 1.0;
    json_object_set_new(norm, "type", json_string(WAVELET_TYPES[type]));
    if (type == 0) {
        char field[SP_PATH];
        src->wavelet = FDW_WAVELET_RICKER;
        if (sp_keys(c, w, path, rkeys) || sp_pos(c, w, path, "f0", 1, &src->f0))
            return -1;
        double hmax = fmax(s->dx, fmax(s->dy, s->dz));
        double fmaxok = s->vmin / (2.0 * hmax);
        sp_key(field, path, "f0");
        if (src->f0 > fmaxok)
            return sp_fail(c, field,
                           "f0 %g Hz is too high for this grid: with vmin %g m/s and spacing "
                           "%g m the grid resolves at most f0 = %.4g Hz (vmin / (2 h))",
                           src->f0, s->vmin, hmax, fmaxok);
        src->delay = 1.2 / src->f0;
        if (sp_num(c, w, path, "delay", 0, &src->delay) ||
            sp_num(c, w, path, "amplitude", 0, &src->amplitude))
            return -1;
        if (!isfinite(src->delay)) /* the default, 1.2 / f0 (a given delay is finite) */
            return sp_fail(c, field, "%s is %g Hz: so low that the wavelet's default delay "
                           "1.2 / f0 is not a finite time; give a delay", field, src->f0);
        sp_key(field, path, "delay");
        if (src->delay < 0)
            return sp_fail(c, field, "%s must be at least 0 s, not %g", field, src->delay);
        if (check_amplitude(c, path, src))
            return -1;
        if (src->f0 > c->f0max)
            c->f0max = src->f0;
        if (!(c->f0min > 0) || src->f0 < c->f0min) {
            c->f0min = src->f0;
            sp_key(c->f0min_field, path, "f0");
        }
        json_object_set_new(norm, "f0", json_real(src->f0));
        json_object_set_new(norm, "delay", json_real(src->delay));
        json_object_set_new(norm, "amplitude", json_real(src->amplitude));
    } else {
        char field[SP_PATH], given[FDW_PATH_MAX];
        src->wavelet = FDW_WAVELET_FILE;
        sp_key(field, path, "path");
        if (sp_keys(c, w, path, fkeys) ||
            sp_string(c, w, path, "path", 1, given, sizeof given) ||
            sp_num(c, w, path, "amplitude", 0, &src->amplitude) ||
            sp_resolve_path(c, field, given, FDW_FILE_WAVELET, NULL, 1, NULL, src->path) ||
            load_wavelet(c, field, index, src) || check_amplitude(c, path, src))
            return -1;
        json_object_set_new(norm, "path", json_string(src->path));
        json_object_set_new(norm, "amplitude", json_real(src->amplitude));
    }
    return 0;
}

int wave_parse_interp(spec_ctx *c, const json_t *obj, const char *path, fdw_interp *out,
                      json_t *norm)
{
    static const char *const NAMES[] = {"sinc", "linear", NULL};
    int v = FDW_INTERP_SINC;
    if (sp_enum(c, obj, path, "interpolation", 0, NAMES, &v))
        return -1;
    *out = (fdw_interp)v;
    json_object_set_new(norm, "interpolation", json_string(NAMES[v]));
    return 0;
}

int wave_parse_sources(spec_ctx *c, const json_t *root)
{
    static const char *const keys[] = {"position", "wavelet", "interpolation", NULL};
    fdw_spec *s = c->spec;
    json_t *arr;
    if (sp_array(c, root, "", "sources", 1, &arr))
        return -1;
    size_t n = json_array_size(arr);
    if (n == 0)
        return sp_fail(c, "sources", "an acoustic job needs at least one source");
    if ((long long)n > sp_max_sources(c))
        return sp_fail(c, "sources", "%zu sources given; at most %ld are allowed", n,
                       sp_max_sources(c));
    s->sources = calloc(n, sizeof *s->sources);
    if (!s->sources)
        return sp_fail(c, "sources", "out of memory");
    json_t *norm = json_array();
    json_object_set_new(c->norm, "sources", norm);
    for (size_t i = 0; i < n; i++) {
        char path[SP_PATH], wpath[SP_PATH];
        json_t *src = json_array_get(arr, i), *w;
        fdw_source *S = &s->sources[i];
        s->nsources = (int)i + 1; /* so fdw_spec_free releases what was loaded */
        sp_idx(path, "sources", i);
        sp_key(wpath, path, "wavelet");
        if (sp_entry(c, src, path, "{\"position\", \"wavelet\"}", keys) ||
            sp_position(c, src, path, "position", S->pos, "source %zu", i) ||
            sp_object(c, src, path, "wavelet", 1, &w))
            return -1;
        json_t *nw = json_object(); /* owned by the array entry below */
        json_t *ns = json_pack("{soso}", "position", sp_json_vec3(S->pos), "wavelet", nw);
        json_array_append_new(norm, ns);
        if (wave_parse_interp(c, src, path, &S->interp, ns) ||
            wave_parse_wavelet(c, w, wpath, (int)i, S, nw))
            return -1;
    }
    return 0;
}
