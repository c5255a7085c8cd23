/* slurm_follow.h — following a Slurm job of an fdwave job from the daemon's node: the
 * runner's protocol lines (runner_proto.h) read from the file Slurm writes its stdout to
 * on the shared file system (runlines.h hands them on), the daemon's words appended to
 * the job's control file, and scontrol asked once a second whether the Slurm job ended.
 * slurm_run.c follows a whole job with it, slurm_survey.c a survey's combining run and
 * the pieces of its array tasks; and how a Slurm job that ended without its runner's
 * result ends the fdwave job (the attempt rules, slurm_ending). */
#ifndef FDWD_SLURM_FOLLOW_H
#define FDWD_SLURM_FOLLOW_H

#include "core/app.h"
#include "sched/runlines.h"
#include "sched/runner.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Monotonic seconds. */
double slurm_mono_s(void);

/* What the runner added to its protocol file path since *at, into s (nothing when the file
 * is not there yet: the Slurm job has not started). */
void slurm_read_new(const char *path, off_t *at, supervise *s);

/* Read the protocol file from 0 into s without calling s's callbacks (what a runner wrote
 * while no daemon followed it: already posted, or lost with the daemon before). */
void slurm_read_quietly(const char *path, off_t *at, supervise *s);

/* Append a word for the runners to job_dir/control. */
void slurm_tell(const char *job_dir, const char *word);

/* Follow out's Slurm job (s->out->slurm_id, whose lines go to proto) from *at until the
 * runner's result line, the job's end, or the daemon's shutdown (out->detached): cancel
 * (s->cb->cancelled) becomes scancel, suspend (s->cb->suspend) the word "suspend". */
void slurm_follow(fdwd_app *app, const runner_job *job, supervise *s, const char *proto,
                  off_t at);

/* How a Slurm job that ended without the runner's result line ends its fdwave job. */
typedef enum { SLURM_END_FAILED, SLURM_END_CANCELLED, SLURM_END_REQUEUE, SLURM_END_RETRY } slurm_end;

/* out's Slurm ending, given whether the daemon asked for a cancel or the wall time ran
 * out: its kind and the job's reason. */
slurm_end slurm_ending(const runner_outcome *out, int cancelled, int wall_time, char *reason,
                       size_t len);

#endif
