/* segy_reader.h — opening a SEG-Y file for reading through libsegyio, shared by the model
 * reader (model_segy.c) and the imaging kinds' observed traces (imaging_segy.c): the
 * binary header, its sample format (IBM or IEEE float, big-endian; a byte-swapped file is
 * named as such), the samples per trace (binary header, else the first trace header) and
 * the trace count the file's size implies. Internal to libfdwave. */
#ifndef FDW_SEGY_READER_H
#define FDW_SEGY_READER_H

#include "fdwave/fdwave.h"

#include <segyio/segy.h>

typedef struct fdw_segy_in {
    segy_file *fp;
    const char *path;
    const char *field;                   /* the spec member errors name */
    int format, ns, ntraces, trsize;
    long trace0;
    char bin[SEGY_BINARY_HEADER_SIZE];   /* the binary header */
    char hdr[SEGY_TRACE_HEADER_SIZE];    /* scratch for a trace header */
} fdw_segy_in;

/* Open path and read what every read needs; errors name field and call the file "SEG-Y
 * <what> <path>" where it cannot be opened. Close with fdw_segy_in_close, also after an
 * error. */
fdw_status fdw_segy_in_open(fdw_segy_in *in, const char *path, const char *field,
                            const char *what, fdw_error *err);
void fdw_segy_in_close(fdw_segy_in *in);

#endif
