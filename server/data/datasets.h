/* datasets.h — observed shot gathers uploaded with PUT /v1/data/{name} (issue 27), the
 * data kind of the upload store (upload_store.h: streamed, hashed, fsync'd and renamed into
 * data/datasets/<name>, recorded in table datasets with their owner): a SEG-Y file is
 * checked at upload by the engine's own reader rules (fdw_data_inspect) and recorded with
 * its traces, samples, sample interval and FFIDs; a raw-f32 file must hold whole float32
 * values. rtm and gradient jobs name them ("data": {"name": N}) through datasets_resolve
 * (fdw_parse_opts.resolve_data), with the submitter's rights. */
#ifndef FDWD_DATASETS_H
#define FDWD_DATASETS_H

#include "core/app.h"
#include "data/upload_store.h"

#include <stddef.h>

/* Set up app->datasets, the store of data in app->datasets_dir; once at start. Returns 0,
 * or -1 (out of memory). */
int datasets_init(fdwd_app *app);

/* The resolver behind fdw_parse_opts.resolve_data (user: an app_caller, the submitter):
 * the file of the upload name when the submitter may read it (its owner, or an admin),
 * its format and, when sha256 is not NULL, its recorded SHA-256 (65 bytes). 0, or -1
 * (unknown to that user). */
int datasets_resolve(const app_caller *caller, const char *name, char *path, size_t pathlen,
                     char *format, size_t formatlen, char *sha256);

#endif
