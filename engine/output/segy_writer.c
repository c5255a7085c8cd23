/* segy_writer.c — a SEG-Y file written through libsegyio under a temporary name: segyio
 * opens the temporary file itself, and fdw_atomic_commit renames it when all went well;
 * the headers and traces as both writers (models, gathers) lay them out. */
#include "output/segy_writer.h"
#include "output/segy_common.h"
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void fdw_segy_binary_header(char *bin, int ntraces, int32_t interval, int ns, int sorting)
{
    memset(bin, 0, SEGY_BINARY_HEADER_SIZE);
    segy_set_bfield(bin, SEGY_BIN_TRACES, ntraces < 65535 ? ntraces : 0);
    segy_set_bfield(bin, SEGY_BIN_INTERVAL, interval);
    segy_set_bfield(bin, SEGY_BIN_SAMPLES, ns);
    segy_set_bfield(bin, SEGY_BIN_FORMAT, SEGY_IEEE_FLOAT_4_BYTE);
    segy_set_bfield(bin, SEGY_BIN_SORTING_CODE, sorting);
    segy_set_bfield(bin, SEGY_BIN_MEASUREMENT_SYSTEM, 1); /* metres */
    segy_set_bfield(bin, SEGY_BIN_SEGY_REVISION, 0x0100);
    segy_set_bfield(bin, SEGY_BIN_TRACE_FLAG, 1);
}

int fdw_segy_write_headers(segy_file *fp, const char *const *lines, int nlines,
                           const char *bin)
{
    char text[3201];
    fdw_segy_text_header(text, lines, nlines);
    return segy_write_textheader(fp, 0, text) != SEGY_OK ||
           segy_write_binheader(fp, bin) != SEGY_OK;
}

int fdw_segy_write_trace(segy_file *fp, int t, const char *hdr, float *buf, int ns)
{
    const long trace0 = SEGY_TEXT_HEADER_SIZE + SEGY_BINARY_HEADER_SIZE;
    const int trsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, ns);
    segy_from_native(SEGY_IEEE_FLOAT_4_BYTE, ns, buf);
    return segy_write_traceheader(fp, t, hdr, trace0, trsize) != SEGY_OK ||
           segy_writetrace(fp, t, buf, trace0, trsize) != SEGY_OK;
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
