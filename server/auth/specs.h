/* specs.h — parsing a job spec the daemon's way: every file it names checked with the
 * submitter's rights (access.h: their own uploads, the --allow-dir directories, nothing
 * else), relative paths against the models directory, model names resolved among the
 * uploads the submitter may read (with the facts recorded at upload, so the model file
 * is not read), the configured caps on sources, receivers, snapshots, recordings and
 * grid points, and the devices checked by the engine against this server's
 * (FDW_ERR_DEVICE, answered as too_many_devices). A new job whose derived device memory
 * (fdw_spec_device_bytes) exceeds what the largest devices it could get hold together is
 * refused on "grid". The daemon parses a spec once, at submission: the job keeps the
 * normalised spec (which its runner parses) and what this parse read (spec_reads). */
#ifndef FDWD_SPECS_H
#define FDWD_SPECS_H

#include "core/app.h"
#include "core/identity.h"
#include "fdwave/fdwave.h"

#include <jansson.h>
#include <stddef.h>

/* What the parse of a new spec read, kept with the job so that its spec is parsed once:
 * the uploaded model it names (by name, or its file by path) with the SHA-256 its record
 * held, and every file it names, for the worker to check again with the submitter's
 * rights when the job runs (specs_recheck). */
typedef struct spec_reads {
    char model[160];           /* "" when it names no uploaded model */
    char model_sha[65];
    json_t *files;             /* [{"path", "use", "format"}], owned (specs_reads_free) */
} spec_reads;

/* Parse and validate a new job's body for who, recording what it reads into reads.
 * Returns the engine's status; *out on FDW_OK. */
fdw_status specs_parse(fdwd_app *app, const identity *who, const char *body, size_t len,
                       spec_reads *reads, fdw_spec **out, fdw_error *err);
void specs_reads_free(spec_reads *reads);

/* Whether who may still read each file of files (spec_reads.files as stored, JSON text;
 * NULL: nothing recorded, nothing to check). Returns 0, or -1 with why naming the file. */
int specs_recheck(fdwd_app *app, const identity *who, const char *files, char *why, size_t len);

#endif
