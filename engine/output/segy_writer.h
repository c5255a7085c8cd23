/* segy_writer.h — opening and finishing a SEG-Y file written through libsegyio under a
 * temporary name, shared by the model writer (model_segy.c) and the gather writer
 * (segy_gather.c). Internal to libfdwave. */
#ifndef FDW_SEGY_WRITER_H
#define FDW_SEGY_WRITER_H

#include "output/atomic_file.h"
#include "fdwave/fdwave.h"

#include <segyio/segy.h>

/* Create path's temporary file, open it with segyio and allocate a trace buffer of ns
 * floats. On failure nothing is left behind. */
fdw_status fdw_segy_writer_open(fdw_atomic_file *af, const char *path, int ns, segy_file **fp,
                                float **buf, fdw_error *err);

/* The binary header's fields both writers set: traces per ensemble (0 above 65534), the
 * sample interval, ns samples of format 5 (IEEE float), the sorting code, metres, SEG-Y
 * revision 1 with fixed-length traces. The caller may set more before writing it. */
void fdw_segy_binary_header(char *bin, int ntraces, int32_t interval, int ns, int sorting);

/* The textual header of nlines lines (fdw_segy_text_header) and the binary header bin at
 * the start of the file; 0, or 1 when a write failed. */
int fdw_segy_write_headers(segy_file *fp, const char *const *lines, int nlines,
                           const char *bin);

/* Trace t (0-based) of ns samples: its header hdr and the samples in buf, which become
 * big-endian in place; 0, or 1 when a write failed. */
int fdw_segy_write_trace(segy_file *fp, int t, const char *hdr, float *buf, int ns);

/* Free the buffer, close the file and rename it into place, or remove it when bad (a
 * write failed) or the close fails. */
fdw_status fdw_segy_writer_close(fdw_atomic_file *af, const char *path, segy_file *fp,
                                 float *buf, int bad, fdw_error *err);

#endif
