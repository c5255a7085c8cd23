/* diskguard.h — the data directory's free space: a reserve file (data/reserve,
 * disk-reserve bytes) made at start-up and given up when the disk fills, so that the end
 * of a job can still be recorded; made again once there is room; and the free-space
 * figures for /v1/health and /metrics (degraded below min-free-disk). */
#ifndef FDWD_DISKGUARD_H
#define FDWD_DISKGUARD_H

#include "core/app.h"

#include <stdint.h>

/* At start-up (after the data directory exists): make the reserve. Returns 0, or -1 when
 * it cannot be made (logged: the daemon runs without it). */
int diskguard_init(fdwd_app *app);
/* Give the reserve's space back now (a write failed for want of space). Returns 1 when
 * there was a reserve to give. */
int diskguard_release(fdwd_app *app);
/* Make the reserve again when it is gone and the space is there. */
void diskguard_maintain(fdwd_app *app);

typedef struct disk_status {
    uint64_t free_bytes, total_bytes;   /* of the data directory's file system */
    uint64_t reserve_bytes;             /* held by the reserve file now */
    int low;                            /* free below min-free-disk */
} disk_status;
int diskguard_status(const fdwd_app *app, disk_status *out);

/* Whether an error message speaks of a full disk (ENOSPC or EDQUOT as strerror words,
 * or the engine's "disk full"). */
int diskguard_is_full_message(const char *msg);

#endif
