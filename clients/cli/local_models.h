/* local_models.h — a job spec whose velocity model is a file on this machine
 * ("velocity": {"type": "file", "path": P} with P an existing file here, a relative P
 * taken from the spec file's directory as fdwave-run takes it). The server cannot read
 * it: after a refused submit `fdwave submit` says how to upload it, and with
 * --upload-models it uploads it (unless the server already holds a model of that name
 * with the same SHA-256) and submits the spec naming the upload instead
 * ("velocity": {"type": "model", "name": NAME}). */
#ifndef FDC_LOCAL_MODELS_H
#define FDC_LOCAL_MODELS_H

#include <stddef.h>

#include "client.h"

typedef struct fdc_local_model {
    char path[4096];  /* the file here, as found */
    char name[160];   /* the name it has (or gets) on the server */
} fdc_local_model;

/* The local model file the spec (text, len) names; spec_path "-" is stdin (relative
 * paths from the current directory). Returns 1 and fills m, or 0 when the spec names no
 * file that exists here. */
int fdc_local_model_find(const char *spec, size_t len, const char *spec_path,
                         fdc_local_model *m);

/* After a submit refused on "velocity.path": the "hint: ..." line on stderr. */
void fdc_local_model_hint(const fdc_local_model *m);

/* --upload-models: make m available on the server as m->name (upload it, or find it
 * there already with the same SHA-256), then return in *out (malloc'd, *outlen) the spec
 * naming it. Returns an exit code; a model of that name with other content is not
 * replaced (exit 4, with how to replace it). */
int fdc_local_model_upload(const fdc_client *c, const fdc_local_model *m, const char *spec,
                           size_t len, char **out, size_t *outlen);

#endif
