/* run_snapshots.h — the snapshot pipeline of a run: start copying the requested slices
 * (and volume) off the backend, and once the copy is complete write them as raw float32
 * and PNG files, list them in the manifest and tell the snapshot callback. Copy and write
 * are split so the loop can keep stepping while an asynchronous backend copies. */
#ifndef FDW_RUN_SNAPSHOTS_H
#define FDW_RUN_SNAPSHOTS_H

#include "backend.h"
#include "outputs.h"

typedef struct fdw_snapshots {
    const fdw_spec *spec;
    const char *out_dir;
    fdw_manifest *manifest;
    float **bufs;          /* one host buffer per spec->slices[] region */
    int pending;           /* an extract was issued and its files are not written yet */
    long pending_step;
    int next_index;        /* index of the next snapshot (0, 1, ...) */
} fdw_snapshots;

/* Number of floats in one region of the spec's grid. */
size_t fdw_region_size(const fdw_spec *spec, const fdw_slice *region);

/* Allocate the host buffers for the spec's slices (nothing when the spec has none). */
fdw_status fdw_snapshots_init(fdw_snapshots *s, const fdw_spec *spec, const char *out_dir,
                              fdw_manifest *manifest, fdw_error *err);

/* Issue the copy of every region for the state after `step` steps. Any snapshot still
 * pending must have been written first (fdw_snapshots_write). */
fdw_status fdw_snapshots_issue(fdw_snapshots *s, const fdw_backend *be, void *ctx, long step,
                               fdw_error *err);

/* If a snapshot is pending, write its files (the caller has called backend->wait), add them
 * to the manifest, rewrite manifest.json and call cb->snapshot. No-op otherwise. */
fdw_status fdw_snapshots_write(fdw_snapshots *s, const fdw_callbacks *cb, fdw_error *err);

void fdw_snapshots_free(fdw_snapshots *s);

#endif
