/* raw_output.c — raw float32 output arrays (snapshots, gathers, fields): little-endian,
 * no header; the manifest records their dimensions. Written atomically. */
#include "output/outputs.h"
#include "output/atomic_file.h"
#include "model/model_formats.h"
#include "core/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

fdw_status fdw_write_raw_f32(const char *path, const float *data, size_t n, fdw_error *err)
{
    if (!path || (!data && n))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_write_raw_f32: null argument");
    fdw_atomic_file af;
    fdw_status st = fdw_atomic_open(&af, path, err);
    if (st != FDW_OK)
        return st;
    int swap = !fdw_host_is_little_endian();
    float *buf = NULL;
    if (swap && !(buf = malloc(FDW_MODEL_CHUNK * sizeof *buf))) {
        fdw_atomic_abort(&af);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cannot allocate a write buffer");
    }
    for (size_t done = 0; done < n;) {
        size_t m = n - done < FDW_MODEL_CHUNK ? n - done : FDW_MODEL_CHUNK;
        const float *src = data + done;
        if (swap) {
            memcpy(buf, src, m * sizeof *buf);
            fdw_swap32(buf, m);
            src = buf;
        }
        if (fwrite(src, sizeof *src, m, af.fp) != m) {
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
