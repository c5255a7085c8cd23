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

typedef struct fdw_model_sink {
    int nx, ny, nz;
    float *out;          /* grid array (x fastest) to fill; NULL when only scanning */
    double vmin, vmax;   /* extremes of the samples put so far */
    const char *field;   /* spec field named in errors ("velocity.path") */
    const char *path;    /* file named in errors */
} fdw_model_sink;

void fdw_sink_init(fdw_model_sink *s, int nx, int ny, int nz, float *out, const char *field,
                   const char *path);
/* Accept n samples destined for flat grid indices first, first+stride, ...; fails with
 * FDW_ERR_SPEC on s->field naming the first bad sample's (i, j, k) and value. */
fdw_status fdw_sink_put(fdw_model_sink *s, const float *vals, size_t n, uint64_t first,
                        uint64_t stride, fdw_error *err);

/* Readers: check the file's geometry against the sink's grid (and spacing where the
 * format records it), then stream every sample into the sink. */
fdw_status fdw_raw_read(const char *path, fdw_model_sink *s, fdw_error *err);
fdw_status fdw_segy_read(const char *path, double dz, fdw_model_sink *s, fdw_error *err);
fdw_status fdw_rsf_read(const char *path, double dx, double dy, double dz,
                        fdw_model_sink *s, fdw_error *err);

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
