/* checkpoint.h — a run's checkpoints (fdw_checkpoint_opts in fdwave.h): when one is due,
 * writing it, resuming from one, and removing them after a completed run.
 *
 * On disk, in the checkpoint directory: one file per process, ckpt-<step>.r<rank> (a
 * header naming the spec's hash, the kind, the backend, the plan and the step; the loop's
 * state and, on rank 0, the manifest's files so far; then the backend's part, backend.h
 * save), each written under a temporary name, checksummed, flushed and renamed; then rank
 * 0 replaces the file "current" ("step N ranks S"), the one switch that makes the new
 * checkpoint the one a resume reads; then each process removes its older files. A crash
 * at any point leaves "current" naming a complete set. Internal to libfdwave. */
#ifndef FDW_CHECKPOINT_H
#define FDW_CHECKPOINT_H

#include "fdwave/fdwave.h"

struct fdw_run_state;

/* What one run keeps of its checkpoints (in fdw_run_state). */
typedef struct fdw_ckpt_run {
    int enabled;               /* a directory was given and the backend can save */
    double t_last;             /* monotonic time of the last checkpoint (or the start) */
    long written;              /* steps held by the last checkpoint written; -1: none */
    long resumed;              /* the step the run resumed from; 0: none */
    int suspended;             /* stopped on cb->suspend */
} fdw_ckpt_run;

/* After set-up, before the loop: prepare the directory and, when opts ask to resume, read
 * the checkpoint "current" names if it fits this run (spec, kind, backend, plan, ranks):
 * the backend's state, the loop's step (r->steps_done), the snapshots delivered, the
 * manifest's files. A checkpoint that does not fit, or is damaged, is checked whole before
 * anything is read into the run, logged with the reason and left: the run starts at step
 * 0. First, rank 0 removes the temporaries of outputs an earlier run was killed while
 * writing (any run with a checkpoint directory continues one). A directory that cannot be
 * made turns checkpoints off (logged). Collective. Fails
 * only when reading a checked checkpoint fails half-way (the run's
 * state is then lost; "current" is renamed "current.unusable" so a retry starts anew). */
fdw_status fdw_checkpoint_start(struct fdw_run_state *r, fdw_error *err);

/* After step `done`: 0 nothing, 1 write a checkpoint, 2 write one and stop (cb->suspend;
 * without a directory: stop without one). Collective (one reduction per step in a
 * distributed run, only when checkpoints or suspension are possible). */
int fdw_checkpoint_due(struct fdw_run_state *r, long done);

/* Write the checkpoint of r->steps_done (the caller has delivered the snapshots up to it
 * and waited for the backend). Collective. On failure nothing of it remains and the
 * previous checkpoint stays current; the caller decides whether the run goes on. */
fdw_status fdw_checkpoint_write(struct fdw_run_state *r, fdw_error *err);

/* After a completed run: remove the checkpoints (unless opts keep them). Collective. */
void fdw_checkpoint_done(struct fdw_run_state *r);

#endif
