/* slurm_run.h — the Slurm back end (job-backend = slurm): a job's run as a Slurm job of
 * its own, submitted with sbatch, in place of a runner process of the daemon's
 * (runner.h); a survey's as a Slurm job array of its parts and a combining run
 * (slurm_survey.h). The daemon stays the front door (queue, quotas, events, outputs);
 * Slurm places the run. fdwave-runner runs as the batch job with the job's run file on
 * the shared file system; its protocol lines (runner_proto.h) go to the Slurm job's
 * stdout file jobs/<id>/runner.proto, which the daemon follows, and the daemon's words
 * ("suspend") go to jobs/<id>/control, which the runner reads. cancel is scancel. The
 * Slurm job is kept in the database (store/slurmjobs.h) from before its sbatch on
 * (slurm_record.h): a daemon that stops leaves it running, and the next one follows it
 * again or settles it. */
#ifndef FDWD_SLURM_RUN_H
#define FDWD_SLURM_RUN_H

#include "core/app.h"
#include "sched/runfile.h"
#include "sched/runner.h"

#include <stddef.h>
#include <stdint.h>

/* Is job-backend slurm? */
int slurm_enabled(const fdwd_app *app);

/* Does job_id run as a Slurm job already (one recorded: a daemon before this one submitted
 * it)? Its run is then followed, not started again. */
int slurm_submitted(fdwd_app *app, int64_t job_id);

/* Run job as a Slurm job (or follow the one recorded) to its end, as runner_run does:
 * cb's members called on this thread as its lines arrive, cb->cancelled passed on as
 * scancel and cb->suspend as "suspend"; at the daemon's shutdown the Slurm job is left
 * running (out->detached). A survey of more shots than one part (slurm-survey-tasks)
 * runs as an array of parts and a combining run (slurm_survey.h), whose run files are rf's
 * with their part. time_limit_s: sbatch --time (0: none). Returns 0 when it ran (out says
 * how it ended), -1 when it could not be submitted (out->why). */
int slurm_run(fdwd_app *app, const runner_job *job, const runfile_job *rf, double time_limit_s,
              const fdw_callbacks *cb, runner_outcome *out);

/* Forget the Slurm job of job_id once its end is recorded. */
void slurm_forget(fdwd_app *app, int64_t job_id);

/* scancel and forget the Slurm jobs of fdwave jobs that have ended without them (cancelled
 * while queued after a restart, given up by the start-up recovery). The scheduler's pass. */
void slurm_sweep(fdwd_app *app);

#endif
