/* models.h — velocity models uploaded with PUT /v1/models/{name}, the model kind of the
 * upload store (upload_store.h: streamed, hashed, fsync'd and renamed into
 * data/models/<name>, recorded in table models with their owner): checked by the engine
 * (fdw_model_inspect: the one read that learns the file's format, geometry and velocity
 * range) and recorded with those facts. Jobs refer to them by name through models_resolve
 * (fdw_parse_opts.resolve_model), which hands the recorded facts to the engine so a
 * spec is checked without reading the file. */
#ifndef FDWD_MODELS_H
#define FDWD_MODELS_H

#include "core/app.h"
#include "core/identity.h"
#include "data/upload_store.h"
#include "fdwave/fdwave.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* GET /v1/models: the caller's models (all for an admin), with their facts. */
json_t *models_list(fdwd_app *app, const identity *who);

/* The model resolver behind fdw_parse_opts.resolve_model: caller->who is the submitting
 * identity; a model is found when it exists and belongs to that user (or the user is an
 * admin). Fills path and the facts recorded at upload; a model stored before facts were
 * recorded is inspected now, once, and its facts kept (info->nvalues stays 0 if that
 * fails: the engine then reads the file itself and reports what is wrong). */
int models_resolve(const app_caller *caller, const char *name, char *path, size_t pathlen,
                   fdw_model_info *info);

/* Set up app->models, the store of models in app->models_dir; once at start. Returns 0,
 * or -1 (out of memory). */
int models_init(fdwd_app *app);

#endif
