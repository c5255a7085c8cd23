/* segy_reader.c — opening a SEG-Y file for reading (segy_reader.h): the checks every
 * reader of the engine makes before its first trace. */
#include "output/segy_reader.h"
#include "core/error.h"

#include <errno.h>
#include <string.h>

fdw_status fdw_segy_in_open(fdw_segy_in *in, const char *path, const char *field,
                            const char *what, fdw_error *err)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    in->field = field;
    errno = 0;
    in->fp = segy_open(path, "rb");
    if (!in->fp)
        return fdw_fail(err, FDW_ERR_SPEC, field, "cannot open SEG-Y %s %s: %s", what, path,
                        strerror(errno ? errno : ENOENT));
    char *bin = in->bin;
    if (segy_binheader(in->fp, bin) != SEGY_OK)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "%s is not a SEG-Y file: shorter than the 3600-byte headers", path);
    int32_t fmt = 0, ns = 0;
    segy_get_bfield(bin, SEGY_BIN_FORMAT, &fmt);
    segy_get_bfield(bin, SEGY_BIN_SAMPLES, &ns);
    fmt &= 0xffff;
    ns &= 0xffff; /* an unsigned 16-bit field */
    if (fmt >= 0x100 && (fmt & 0xff) == 0 && (fmt >> 8) >= 1 && (fmt >> 8) <= 16)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "SEG-Y %s looks little-endian (format code %d byte-swapped is %d); "
                        "only big-endian SEG-Y is read",
                        path, (int)fmt, (int)(fmt >> 8));
    if (fmt != SEGY_IBM_FLOAT_4_BYTE && fmt != SEGY_IEEE_FLOAT_4_BYTE)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "SEG-Y %s has sample format code %d; supported are 1 (IBM float) and "
                        "5 (IEEE float), big-endian",
                        path, (int)fmt);
    in->format = fmt;
    in->trace0 = segy_trace0(bin);
    if (in->trace0 < SEGY_TEXT_HEADER_SIZE + SEGY_BINARY_HEADER_SIZE)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "SEG-Y %s has a negative extended textual header count", path);
    if (ns == 0) {
        /* Binary header left blank: take the first trace header's count. */
        if (segy_traceheader(in->fp, 0, in->hdr, in->trace0, 4) != SEGY_OK)
            return fdw_fail(err, FDW_ERR_SPEC, field, "SEG-Y %s has no traces", path);
        segy_get_field(in->hdr, SEGY_TR_SAMPLE_COUNT, &ns);
        ns &= 0xffff;
        if (ns == 0)
            return fdw_fail(err, FDW_ERR_SPEC, field,
                            "SEG-Y %s gives 0 samples per trace in both the binary header "
                            "(bytes 3221-3222) and the first trace header (bytes 115-116)",
                            path);
    }
    in->ns = ns;
    in->trsize = segy_trsize(fmt, ns);
    if (segy_set_format(in->fp, fmt) != SEGY_OK)
        return fdw_fail(err, FDW_ERR_INTERNAL, field, "segyio refused format %d", (int)fmt);
    int ntr = 0;
    int rc = segy_traces(in->fp, &ntr, in->trace0, in->trsize);
    if (rc == SEGY_TRACE_SIZE_MISMATCH)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "SEG-Y %s: the data after the headers is not a whole number of traces "
                        "of %d samples (240 + %d bytes each); the file is truncated or the "
                        "sample count is wrong",
                        path, ns, 4 * ns);
    if (rc != SEGY_OK || ntr <= 0)
        return fdw_fail(err, FDW_ERR_SPEC, field, "SEG-Y %s has no traces", path);
    in->ntraces = ntr;
    return FDW_OK;
}

void fdw_segy_in_close(fdw_segy_in *in)
{
    if (in->fp)
        segy_close(in->fp);
    in->fp = NULL;
}
