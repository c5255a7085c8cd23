/* checkpoint.h — a run's checkpoints (fdw_checkpoint_opts in fdwave.h): when one is due,
 * taking it while the loop goes on, resuming from one, and removing them after a
 * completed run.
 *
 * On disk, in the checkpoint directory: one file per process, ckpt-<step>.r<rank> (a
 * header naming the spec's hash, the kind, the backend, the plan and the step; the loop's
 * state and, on rank 0, the manifest's files so far; then the backend's part, its host
 * image: backend.h capture), each written under a temporary name, checksummed, flushed and
 * renamed; then rank 0 replaces the file "current" ("step N ranks S"), the one switch that
 * makes the new checkpoint the one a resume reads; then each process removes its older
 * files. A crash at any point leaves "current" naming a complete set.
 *
 * Asynchronous (ckpt_save.c): at a checkpoint step the loop copies the state into host
 * memory (the backend's image, allocated once per run) and goes on; the checkpoint
 * writer's thread writes the file meanwhile; the loop makes it current a step after it is
 * complete on every process. At most one write is in flight: a checkpoint due while the
 * previous one is still being written waits for it first. A write that fails fails the
 * run (the error names the file and the reason); a cancellation, a suspension, a failure
 * and the run's end wait for the write in flight, so what is on disk is always a complete
 * checkpoint. Internal to libfdwave. */
#ifndef FDW_CHECKPOINT_H
#define FDW_CHECKPOINT_H

#include "fdwave/fdwave.h"

struct fdw_run_state;

struct fdw_ckpt_save; /* ckpt_save.c: the writer thread and the write in flight */

/* What one run keeps of its checkpoints (in fdw_run_state). */
typedef struct fdw_ckpt_run {
    int enabled;               /* a directory was given and the backend can capture */
    double t_last;             /* monotonic time of the last checkpoint taken (or the start) */
    long written;              /* steps held by the last checkpoint made current; -1: none */
    long resumed;              /* the step the run resumed from; 0: none */
    int suspended;             /* stopped on cb->suspend */
    int prepared;              /* the backend's image is allocated, or being allocated */
    struct fdw_ckpt_save *save; /* NULL until the first checkpoint (or its preparation) */
} fdw_ckpt_run;

/* After set-up, before the loop: prepare the directory and, when opts ask to resume, read
 * the checkpoint "current" names if it fits this run (spec, kind, backend, plan, ranks):
 * the backend's state, the loop's step (r->steps_done), the snapshots delivered, the
 * manifest's files. A checkpoint that does not fit, or is damaged, is checked whole before
 * anything is read into the run, logged with the reason and left: the run starts at step
 * 0. First, rank 0 removes the temporaries of outputs an earlier run was killed while
 * writing (any run with a checkpoint directory continues one). Collective. Fails when the
 * directory cannot be made or written in (naming it and why), and when reading a checked
 * checkpoint fails half-way (the run's state is then lost; "current" is renamed
 * "current.unusable" so a retry starts anew). */
fdw_status fdw_checkpoint_start(struct fdw_run_state *r, fdw_error *err);

/* After step `done`: *due 0 nothing, 1 take a checkpoint, 2 take one and stop
 * (cb->suspend; without a directory: stop without one). Meanwhile makes current the write
 * in flight once it is complete on every process (its failure is returned: the run
 * fails), and starts allocating the backend's image on the writer's thread once the
 * first checkpoint is half-way due. Collective (one reduction per step in a distributed
 * run, only when checkpoints or suspension are possible). */
fdw_status fdw_checkpoint_poll(struct fdw_run_state *r, long done, int *due, fdw_error *err);

/* Take the checkpoint of r->steps_done (the caller has delivered the snapshots up to it
 * and waited for the backend): wait for the write in flight and make it current, copy the
 * state into host memory and hand it to the writer's thread; returns once the copy is
 * done. Collective. A failure (of the previous write too) is returned: the run fails. */
fdw_status fdw_checkpoint_write(struct fdw_run_state *r, fdw_error *err);

/* Wait for the write in flight (if any) and make it current when it is complete on every
 * process. st is the run's status so far: FDW_OK (a suspension's checkpoint, the run's
 * end) gives back the write's failure; otherwise (a cancellation, a failure) st is
 * returned and a failed write only logged. Collective. */
fdw_status fdw_checkpoint_settle(struct fdw_run_state *r, fdw_status st, fdw_error *err);

/* After a completed run: remove the checkpoints (unless opts keep them). Collective. */
void fdw_checkpoint_done(struct fdw_run_state *r);

/* Stop the writer's thread (after the job it has ends) and free what the checkpoints
 * hold; before the backend's context is destroyed. */
void fdw_checkpoint_release(struct fdw_run_state *r);

#endif
