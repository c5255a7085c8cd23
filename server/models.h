/* models.h — velocity models uploaded with PUT /v1/models/{name}: streamed to a
 * temporary file with a running SHA-256, fsync'd and renamed into data/models/<name>,
 * recorded in table models with their owner. Jobs refer to them by name through
 * models_resolve (fdw_parse_opts.resolve_model). */
#ifndef FDWD_MODELS_H
#define FDWD_MODELS_H

#include "auth.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Check a model name: [A-Za-z0-9._-]{1,128}, not starting with '.', with a known
 * extension (.f32/.bin/.raw -> raw-f32, .segy/.sgy -> segy). Returns the format, or NULL
 * with the reason in why. */
const char *models_format_of(const char *name, const char **why);

typedef struct model_upload model_upload;

/* Start an upload. Returns NULL with *status (400, 409, 500) and a message in err. */
model_upload *models_upload_begin(const identity *who, const char *name, int *status,
                                  char *err, size_t errlen);
/* Append bytes; -1 on a write error. */
int models_upload_write(model_upload *u, const char *data, size_t len);
/* fsync, rename into place, record it; returns the model JSON, or NULL (error in err). */
json_t *models_upload_finish(model_upload *u, char *err, size_t errlen);
/* Drop a partial upload (removes the temporary file). NULL is fine. */
void models_upload_abort(model_upload *u);
uint64_t models_upload_bytes(const model_upload *u);

/* GET /v1/models: the caller's models (all for an admin). */
json_t *models_list(const identity *who);

/* fdw_model_resolver: user is the submitting identity; a model is found when it exists
 * and belongs to that user (or the user is an admin). */
int models_resolve(void *user, const char *name, char *path, size_t pathlen);

#endif
