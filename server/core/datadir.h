/* datadir.h — the daemon's data directory: its layout (fdwave.db, models/, jobs/<id>/),
 * created if missing and opened (the database and its migrations), and the directories
 * job specs may read files from (the models directory, then each --allow-dir, as
 * realpaths). Used by main.c at start and by the HTTP fuzzer's in-process daemon. */
#ifndef FDWD_DATADIR_H
#define FDWD_DATADIR_H

#include "core/app.h"

#include <stddef.h>

/* Create app->cfg.data_dir and its folders, fill app's derived paths and open the
 * database. Returns 0, or -1 with the reason in err. */
int datadir_open(fdwd_app *app, char *err, size_t errlen);
/* Remove every file of dir, and (datadir_remove) dir itself, with the directories in it;
 * for a job's folders (outputs, checkpoints). */
void datadir_empty(const char *dir);
void datadir_remove(const char *dir);
/* Fill app->allowed (and allowed_ptrs) from the models directory and --allow-dir.
 * Returns 0, or -1 with the reason in err. */
int datadir_allowed(fdwd_app *app, char *err, size_t errlen);

#endif
