/* model_formats.h — internal interface between model_io.c (the public model_io.h
 * functions) and the per-format readers: model_raw.c, model_segy.c, model_rsf.c and
 * model_analytic.c. Readers stream a file in chunks into a "sink" that checks every
 * sample (positive, finite), tracks the extremes and, when loading, stores the sample at
 * its grid position. Internal to libfdwave. */
#ifndef FDW_MODEL_FORMATS_H
#define FDW_MODEL_FORMATS_H

#include "spec/spec.h"
#include <stddef.h>
#include <stdint.h>

/* Samples per read chunk (4 MiB of float32). */
#define FDW_MODEL_CHUNK (1u << 20)

/* Where a reader's samples go. nx = 0 on entry: "learn" mode (fdw_model_inspect): the grid
 * is taken from the file's own geometry instead of being checked against it. */
typedef struct fdw_model_sink {
    int nx, ny, nz;
    float *out;          /* grid array (x fastest) to fill; NULL when only scanning */
    double vmin, vmax;   /* extremes of the samples put so far */
    const char *field;   /* spec field named in errors ("velocity.path") */
    const char *path;    /* file named in errors */
    const char *data_path; /* RSF: the binary the spec checked (NULL or "": not pinned) */
} fdw_model_sink;

/* Accept n samples destined for flat grid indices first, first+stride, ...; fails with
 * FDW_ERR_SPEC on s->field naming the first bad sample's (i, j, k) and value. */
fdw_status fdw_sink_put(fdw_model_sink *s, const float *vals, size_t n, uint64_t first,
                        uint64_t stride, fdw_error *err);

/* The grid spacing a model must agree with where the file records one (dx, dy, dz in m;
 * all 0 in learn mode). */
typedef struct fdw_model_grid_h {
    double dx, dy, dz;
} fdw_model_grid_h;

/* The one geometry check: does a file with geometry info fit the sink's grid (and h, where
 * the file records a spacing)? Errors name s->field and s->path, in each format's terms.
 * In learn mode (s->nx == 0) it adopts the file's geometry into the sink instead. */
fdw_status fdw_model_fit(const fdw_model_info *info, fdw_model_sink *s,
                         const fdw_model_grid_h *h, fdw_error *err);

/* Readers: fill info with what the file's header says (format, nvalues, geometry,
 * spacing), fit it to the sink (fdw_model_fit), then stream every sample into the sink. */
fdw_status fdw_raw_read(const char *path, fdw_model_sink *s, const fdw_model_grid_h *h,
                        fdw_model_info *info, fdw_error *err);
fdw_status fdw_segy_read(const char *path, fdw_model_sink *s, const fdw_model_grid_h *h,
                         fdw_model_info *info, fdw_error *err);
fdw_status fdw_rsf_read(const char *path, fdw_model_sink *s, const fdw_model_grid_h *h,
                        fdw_model_info *info, fdw_error *err);

/* Constant / layered / Gaussian models: fill out (OpenMP). */
fdw_status fdw_model_fill_analytic(const fdw_spec *spec, float *out, fdw_error *err);

/* Byte order helpers: files are little-endian (raw, native RSF) or big-endian (SEG-Y,
 * xdr RSF); these swap 4-byte words in place when the host differs. */
static inline int fdw_host_is_little_endian(void)
{
    const uint32_t one = 1;
    return *(const unsigned char *)&one == 1;
}

static inline void fdw_swap32(void *buf, size_t n)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++, p += 4) {
        unsigned char a = p[0], b = p[1];
        p[0] = p[3];
        p[1] = p[2];
        p[2] = b;
        p[3] = a;
    }
}

#endif
