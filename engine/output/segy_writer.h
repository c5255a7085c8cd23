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

/* Free the buffer, close the file and rename it into place, or remove it when bad (a
 * write failed) or the close fails. */
fdw_status fdw_segy_writer_close(fdw_atomic_file *af, const char *path, segy_file *fp,
                                 float *buf, int bad, fdw_error *err);

#endif
