/* ckpt_writer.h — a run's checkpoint writer: one thread (per run with checkpoints) that
 * runs one job at a time while the time loop goes on: writing a checkpoint file from its
 * host image (run/checkpoint.c), or allocating that image ahead of the first checkpoint.
 * At most one job is in flight: the loop collects it (wait) before it submits the next.
 * The loop polls busy (one atomic read) to learn, without blocking, that a job ended. The
 * thread blocks every signal, so those meant for the process reach its other threads.
 * Use from the loop's thread only. Internal to libfdwave. */
#ifndef FDW_CKPT_WRITER_H
#define FDW_CKPT_WRITER_H

#include "fdwave/fdwave.h"

/* A job: runs on the writer's thread; fills err on failure. */
typedef fdw_status (*fdw_ckpt_job)(void *arg, fdw_error *err);

typedef struct fdw_ckpt_writer fdw_ckpt_writer;

/* Start the thread (idle). */
fdw_status fdw_ckpt_writer_start(fdw_ckpt_writer **out, fdw_error *err);

/* Hand job(arg) to the thread and return at once. The previous job must have been
 * collected by fdw_ckpt_writer_wait. */
void fdw_ckpt_writer_submit(fdw_ckpt_writer *w, fdw_ckpt_job job, void *arg);

/* Whether a submitted job has not ended yet (without blocking). */
int fdw_ckpt_writer_busy(fdw_ckpt_writer *w);

/* Block until the submitted job ends and collect it: its status, its error into err.
 * FDW_OK when no job was submitted since the last wait. */
fdw_status fdw_ckpt_writer_wait(fdw_ckpt_writer *w, fdw_error *err);

/* Wait for the job in flight, stop and join the thread, free everything. NULL is fine. */
void fdw_ckpt_writer_free(fdw_ckpt_writer *w);

#endif
