/* segy_writer.c — a SEG-Y file written through libsegyio under a temporary name: segyio
 * opens the temporary file itself, and fdw_atomic_commit renames it when all went well. */
#include "output/segy_writer.h"
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>

fdw_status fdw_segy_writer_open(fdw_atomic_file *af, const char *path, int ns, segy_file **fp,
                                float **buf, fdw_error *err)
{
    fdw_status st = fdw_atomic_open(af, path, err);
    if (st != FDW_OK)
        return st;
    fclose(af->fp); /* segyio opens the temporary file itself */
    af->fp = NULL;
    *fp = segy_open(af->tmp, "w+b");
    *buf = malloc((size_t)ns * sizeof **buf);
    if (!*fp || !*buf) {
        free(*buf);
        if (*fp)
            segy_close(*fp);
        fdw_atomic_abort(af);
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot write SEG-Y %s", path);
    }
    return FDW_OK;
}

fdw_status fdw_segy_writer_close(fdw_atomic_file *af, const char *path, segy_file *fp,
                                 float *buf, int bad, fdw_error *err)
{
    free(buf);
    if (segy_close(fp) != SEGY_OK)
        bad = 1;
    if (bad) {
        fdw_atomic_abort(af);
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot write SEG-Y %s (disk full?)", path);
    }
    return fdw_atomic_commit(af, err);
}
