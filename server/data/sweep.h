/* sweep.h — the daemon's periodic housekeeping, on one thread: the sweep of partial model
 * uploads of models and data (every --upload-sweep seconds, temporary upload files that no
 * upload in progress is writing and that were last written at least that long ago are
 * removed, upload_sweep_partial; start-up removes all of them before the daemon listens,
 * main.c); every minute the retention setting's removal of old outputs (retention.h)
 * and the disk reserve made again once there is room (diskguard.h). */
#ifndef FDWD_SWEEP_H
#define FDWD_SWEEP_H

#include "core/app.h"

int sweep_start(fdwd_app *app, int interval_s);
void sweep_stop(fdwd_app *app);

#endif
