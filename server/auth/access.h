/* access.h — the daemon's data-access model, in one place: who may read which file a job
 * spec names, who may see or use an uploaded model, and the rights a job is checked with
 * (its submitter's, at submission and again in the worker). The rules (docs/operations.md,
 * SECURITY.md):
 *   - an uploaded model is its owner's (identity_may_read): only the owner and admins may
 *     list it, use it by name, or name its file by path (as a model or as a wavelet);
 *   - uploaded data (PUT /v1/data, datasets.h) are their owner's alike: used by name
 *     ("data": {"name"}) or their file by path only by the owner or an admin;
 *   - files under an --allow-dir directory are shared with every user (read-only);
 *   - nothing else on the server (the rest of the data directory, any other path) can be
 *     named by a spec, and every refusal gets one message, whether or not the path exists.
 * specs.c calls access_file from the engine's fdw_parse_opts.file_access, with the models
 * and datasets directories and the --allow-dir directories as its allowed directories. */
#ifndef FDWD_ACCESS_H
#define FDWD_ACCESS_H

#include "core/app.h"
#include "core/identity.h"
#include "fdwave/fdwave.h"

/* May caller->who read real_path (for use, a model file of format)? A file under the
 * models directory must be an uploaded model who may read (its recorded facts fill info
 * for a model use), one under the datasets directory uploaded data who may read; a file
 * under an --allow-dir directory is readable by everyone (a
 * model file's facts come from factcache.h, read once per version of the file);
 * anything else under the data directory, or elsewhere, is refused. Returns 0 or -1. */
int access_file(const app_caller *caller, const char *real_path, fdw_file_use use,
                const char *format, fdw_model_info *info);

/* The sentence refusals end with (fdw_parse_opts.access_rule). */
const char *access_rule(void);

/* The rights of user as they stand now, for re-checking a stored job: admin when the user
 * holds an admin token, or when authentication is off and the user is "local". */
void access_rights_of(fdwd_app *app, const char *user, identity *who);

/* Check the --allow-dir directories against the data directory at start: none may lie
 * inside it or contain it. Returns 0, or -1 with the reason in err. */
int access_check_allowed(fdwd_app *app, char *err, size_t errlen);

#endif
