/* raw_output.c — raw float32 and float64 output arrays (snapshots, gathers, fields, the
 * sweep kind's times): little-endian, no header; the manifest records their dimensions.
 * Written atomically. */
#include "output/outputs.h"
#include "output/atomic_file.h"
#include "model/model_formats.h"
#include "core/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* n elements of es (4 or 8) bytes, little-endian, in chunks (byte-swapped on a big-endian
 * host). */
static fdw_status write_raw(const char *path, const void *data, size_t es, size_t n,
                            fdw_error *err)
{
    if (!path || (!data && n))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "raw output: null argument");
    fdw_atomic_file af;
    fdw_status st = fdw_atomic_open(&af, path, err);
    if (st != FDW_OK)
        return st;
    int swap = !fdw_host_is_little_endian();
    unsigned char *buf = NULL;
    if (swap && !(buf = malloc(FDW_MODEL_CHUNK * es))) {
        fdw_atomic_abort(&af);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cannot allocate a write buffer");
    }
    for (size_t done = 0; done < n;) {
        size_t m = n - done < FDW_MODEL_CHUNK ? n - done : FDW_MODEL_CHUNK;
        const unsigned char *src = (const unsigned char *)data + done * es;
        if (swap) {
            for (size_t q = 0; q < m; q++)
                for (size_t b = 0; b < es; b++)
                    buf[q * es + b] = src[q * es + es - 1 - b];
            src = buf;
        }
        if (fwrite(src, es, m, af.fp) != m) {
            int e = errno;
            free(buf);
            fdw_atomic_abort(&af);
            return fdw_fail(err, FDW_ERR_IO, NULL, "cannot write %s: %s", path, strerror(e));
        }
        done += m;
    }
    free(buf);
    return fdw_atomic_commit(&af, err);
}

fdw_status fdw_write_raw_f32(const char *path, const float *data, size_t n, fdw_error *err)
{
    return write_raw(path, data, sizeof(float), n, err);
}

fdw_status fdw_write_raw_f64(const char *path, const double *data, size_t n, fdw_error *err)
{
    return write_raw(path, data, sizeof(double), n, err);
}
