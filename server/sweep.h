/* sweep.h — the periodic sweep of partial model uploads: every --upload-sweep seconds,
 * temporary upload files that no upload in progress is writing and that were last
 * written at least that long ago are removed (models_sweep_partial). Start-up removes
 * all of them before the daemon listens (main.c). */
#ifndef FDWD_SWEEP_H
#define FDWD_SWEEP_H

int sweep_start(int interval_s);
void sweep_stop(void);

#endif
