/* model_raw.c — raw little-endian float32 velocity models: the file is exactly nx*ny*nz
 * samples, x fastest, with no header. Read in chunks (models may be tens of GB). */
#include "model/model_io.h"
#include "output/outputs.h"
#include "model/model_formats.h"
#include "output/atomic_file.h"
#include "core/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

fdw_status fdw_raw_read(const char *path, fdw_model_sink *s, const fdw_model_grid_h *h,
                        fdw_model_info *info, fdw_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fdw_fail(err, FDW_ERR_SPEC, s->field, "cannot open model file %s: %s", path,
                        strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return fdw_fail(err, FDW_ERR_SPEC, s->field, "model file %s is not a regular file",
                        path);
    }
    memset(info, 0, sizeof *info);
    snprintf(info->format, sizeof info->format, "raw-f32");
    info->nvalues = (uint64_t)st.st_size / 4u;
    fdw_status fit = (uint64_t)st.st_size % 4u
                         ? fdw_fail(err, FDW_ERR_SPEC, s->field,
                                    "raw-f32 model %s has %llu bytes, not a whole number of "
                                    "float32 samples", path, (unsigned long long)st.st_size)
                         : fdw_model_fit(info, s, h, err);
    if (fit != FDW_OK) {
        fclose(f);
        return fit;
    }
    const uint64_t n = info->nvalues;
    size_t cap = n < FDW_MODEL_CHUNK ? (size_t)n : FDW_MODEL_CHUNK;
    float *buf = malloc((cap ? cap : 1) * sizeof *buf);
    if (!buf) {
        fclose(f);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cannot allocate a %zu-byte read buffer",
                        cap * sizeof *buf);
    }
    int swap = !fdw_host_is_little_endian();
    fdw_status rc = FDW_OK;
    for (uint64_t done = 0; done < n && rc == FDW_OK;) {
        size_t want_now = (n - done) < cap ? (size_t)(n - done) : cap;
        size_t got = fread(buf, sizeof *buf, want_now, f);
        if (got != want_now) {
            rc = fdw_fail(err, FDW_ERR_IO, s->field, "read error in %s after %llu samples%s%s",
                          path, (unsigned long long)(done + got), ferror(f) ? ": " : "",
                          ferror(f) ? strerror(errno) : " (file shrank)");
            break;
        }
        if (swap)
            fdw_swap32(buf, got);
        rc = fdw_sink_put(s, buf, got, done, 1, err);
        done += got;
    }
    free(buf);
    fclose(f);
    return rc;
}

/* A raw model is a raw float32 array like any output: one writer for both. */
fdw_status fdw_model_write_raw(const char *path, const float *v, int nx, int ny, int nz,
                               fdw_error *err)
{
    if (!path || !v || nx <= 0 || ny <= 0 || nz <= 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_model_write_raw: bad arguments");
    return fdw_write_raw_f32(path, v, (size_t)nx * (size_t)ny * (size_t)nz, err);
}
