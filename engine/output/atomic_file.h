/* atomic_file.h — write an output file under a temporary name in the same directory and
 * rename it into place when complete, so a reader (the daemon serving outputs, a client
 * polling the manifest) never sees a partial file. Internal to libfdwave. */
#ifndef FDW_ATOMIC_FILE_H
#define FDW_ATOMIC_FILE_H

#include "fdwave/fdwave.h"
#include "spec/spec.h"
#include <stdio.h>

typedef struct fdw_atomic_file {
    FILE *fp;                       /* open for writing ("wb") on the temporary file */
    char tmp[FDW_PATH_MAX + 16];    /* temporary path: <path>.tmpXXXXXX */
    char path[FDW_PATH_MAX];        /* final path */
} fdw_atomic_file;

/* Create the temporary file next to path. Errors: FDW_ERR_IO naming the path. */
fdw_status fdw_atomic_open(fdw_atomic_file *af, const char *path, fdw_error *err);
/* Flush, close and rename into place. On failure the temporary file is removed. A caller
 * that wrote the temporary file through another library may fclose af->fp itself, set it
 * to NULL and then commit: only the rename is done. */
fdw_status fdw_atomic_commit(fdw_atomic_file *af, fdw_error *err);
/* Close and remove the temporary file (after an error). Safe to call twice. */
void fdw_atomic_abort(fdw_atomic_file *af);

#endif
