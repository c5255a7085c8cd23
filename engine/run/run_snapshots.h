/* run_snapshots.h — the snapshot pipeline of a run. The time loop copies the requested
 * slices (and volume) off the backend into one of two host buffer sets and hands the set to
 * a writer thread, which encodes the raw float32 and PNG files (each renamed into place
 * when complete) while the loop goes on issuing steps. The loop thread polls for finished
 * snapshots and, in snapshot order, lists their files in the manifest, rewrites
 * manifest.json and calls the snapshot callback: callbacks never run on the writer thread.
 *
 * Use from the loop thread only:
 *   create -> { acquire, (extract into the buffers; the backend's extract_done or wait
 *   until the copy has landed), submit, poll } ... -> drain -> free. A process that writes no files (a rank other than 0 of a distributed run) gets
 *   one buffer set and no thread; submit then just gives the set back. */
#ifndef FDW_RUN_SNAPSHOTS_H
#define FDW_RUN_SNAPSHOTS_H

#include "run/backend.h"
#include "output/outputs.h"

typedef struct fdw_snapshots fdw_snapshots;

/* What the pipeline did, for the run's debug log line and the tests. */
typedef struct fdw_snapshot_stats {
    int nsets;                 /* host buffer sets (2; 1 when a second did not fit) */
    long submitted;            /* snapshots handed to the writer */
    long written;              /* snapshots whose files the writer completed */
    long steps_while_writing;  /* steps the loop issued while the writer was writing */
    long overlapped;           /* snapshots during whose writing at least one step was issued */
    long waits;                /* times the loop waited for the writer to free a set */
    double wait_s;             /* time the loop spent in those waits (and the final drain) */
    double write_s, max_write_s; /* writer time in total and for the slowest snapshot */
} fdw_snapshot_stats;

/* Set up the pipeline for the spec's slices. *out is NULL (and FDW_OK returned) when the
 * spec asks for no snapshots. writes: this process writes the files (starts the writer
 * thread with two buffer sets; one if the second cannot be allocated). */
fdw_status fdw_snapshots_create(fdw_snapshots **out, const fdw_spec *spec, const char *out_dir,
                                fdw_manifest *manifest, int writes, fdw_error *err);

/* Buffers (one per spec->slices[] region) for the snapshot of `step`. Waits while the
 * writer still holds every set, delivering what it finishes meanwhile (see poll). */
fdw_status fdw_snapshots_acquire(fdw_snapshots *s, const fdw_callbacks *cb, long step,
                                 float ***bufs, fdw_error *err);

/* The acquired set holds its copy now (the backend's copy has landed): hand it to the
 * writer thread, and return at once. */
fdw_status fdw_snapshots_submit(fdw_snapshots *s, fdw_error *err);

/* The loop has issued `steps` steps (for the overlap statistics; one relaxed store). */
void fdw_snapshots_note_steps(fdw_snapshots *s, long steps);

/* Deliver, in order, every snapshot the writer has finished: manifest entries,
 * manifest.json, cb->snapshot. One atomic read when none finished. Returns the writer's
 * error (e.g. FDW_ERR_IO for a file that could not be written) when the next snapshot
 * in order failed; it stays failed. */
fdw_status fdw_snapshots_poll(fdw_snapshots *s, const fdw_callbacks *cb, fdw_error *err);

/* Wait for every submitted snapshot and deliver it (end of the run, or cancellation). */
fdw_status fdw_snapshots_drain(fdw_snapshots *s, const fdw_callbacks *cb, fdw_error *err);

void fdw_snapshots_stats(const fdw_snapshots *s, fdw_snapshot_stats *out);

/* Snapshots delivered so far (the index the next callback gets), and setting it for a
 * run resumed from a checkpoint that had delivered that many. NULL: 0 / nothing. */
int fdw_snapshots_delivered(const fdw_snapshots *s);
void fdw_snapshots_resume(fdw_snapshots *s, int delivered);

/* Stop the writer (it abandons what it has not started, and stops between the files of the
 * one it is writing), join it and free everything. NULL is fine. */
void fdw_snapshots_free(fdw_snapshots *s);

#endif
