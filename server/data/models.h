/* models.h — velocity models uploaded with PUT /v1/models/{name}: streamed to a
 * temporary file with a running SHA-256, checked by the engine (fdw_model_inspect: the
 * one read that learns the file's format, geometry and velocity range), fsync'd and
 * renamed into data/models/<name>, and recorded in table models with their owner and
 * those facts. Jobs refer to them by name through models_resolve
 * (fdw_parse_opts.resolve_model), which hands the recorded facts to the engine so a
 * spec is checked without reading the file. */
#ifndef FDWD_MODELS_H
#define FDWD_MODELS_H

#include "core/app.h"
#include "core/identity.h"
#include "fdwave/fdwave.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct model_upload model_upload;

/* Why an upload could not start or finish: the HTTP status (400, 409, 500), the API's
 * error code and field (NULL when none) and a message. */
typedef struct model_error {
    int status;
    const char *code;
    const char *field;
    char message[768];
} model_error;

/* Temporary files of uploads in progress are data/models/<this prefix><random>. */
#define MODELS_PARTIAL_PREFIX ".upload-"

/* Start an upload (PUT /v1/models/{name}?replace=&owner=). A name is created once; an
 * existing model is replaced only when replace is "true" (or "1") and who owns it or is
 * an admin, and it keeps its owner; another user gets 409. owner (admins only, else 403):
 * the user a new model is uploaded for. replace and owner may be NULL. The same checks
 * run again, atomically, when the upload finishes. Returns NULL with the reason in e. */
model_upload *models_upload_begin(fdwd_app *app, const identity *who, const char *name,
                                  const char *replace, const char *owner, model_error *e);
/* Append bytes; -1 on a write error. */
int models_upload_write(model_upload *u, const char *data, size_t len);
/* fsync, inspect (a file that is not a valid model of its format is refused with 400,
 * and nothing is kept), rename into place, record it with its facts. Returns the
 * model's JSON, or NULL with the reason in e. Frees u either way. */
json_t *models_upload_finish(model_upload *u, model_error *e);
/* Drop a partial upload (removes the temporary file). NULL is fine. */
void models_upload_abort(model_upload *u);
uint64_t models_upload_bytes(const model_upload *u);

/* Remove partial upload files (a daemon killed during an upload leaves one) that belong to
 * no upload in progress and were last written at least min_age_ms ago (0 at start-up,
 * when none is in progress). Returns how many were removed. */
int models_sweep_partial(fdwd_app *app, int64_t min_age_ms);

/* GET /v1/models: the caller's models (all for an admin), with their facts. */
json_t *models_list(fdwd_app *app, const identity *who);

/* The model resolver behind fdw_parse_opts.resolve_model: caller->who is the submitting
 * identity; a model is found when it exists and belongs to that user (or the user is an
 * admin). Fills path and the facts recorded at upload; a model stored before facts were
 * recorded is inspected now, once, and its facts kept (info->nvalues stays 0 if that
 * fails: the engine then reads the file itself and reports what is wrong). */
int models_resolve(const app_caller *caller, const char *name, char *path, size_t pathlen,
                   fdw_model_info *info);

/* Set up app->models (uploads in progress, the commit lock); once at start. Returns 0, or
 * -1 (out of memory). */
int models_init(fdwd_app *app);

#endif
