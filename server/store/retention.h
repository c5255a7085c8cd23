/* retention.h — removing a finished job's outputs and keeping its record: DELETE
 * /v1/jobs/{id} by its owner or an admin, and the retention setting (outputs of jobs
 * finished longer ago than it go by themselves, swept by sweep.c). The job's out/ and
 * checkpoint/ directories and run file go, its rows in the outputs table go (the per-user
 * disk quota counts them), and the job says when and by whom ("outputs_removed"). */
#ifndef FDWD_RETENTION_H
#define FDWD_RETENTION_H

#include "core/app.h"
#include "core/identity.h"

#include <stdint.h>

/* Remove job id's outputs for who. Returns 200 (removed, or removed before), 404 (not
 * visible to who), 409 (not finished: *state says what it is) or 500. */
int retention_remove(fdwd_app *app, int64_t id, const identity *who, const char **state);

/* Remove the outputs of jobs finished more than retention seconds ago (0: none).
 * Returns how many jobs' outputs went. */
int retention_sweep(fdwd_app *app, int retention_s);

#endif
