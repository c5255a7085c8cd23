/* slurm_survey.h — a survey under the Slurm back end: its shots split into parts by the
 * engine's rule (fdw_survey_part_shots: consecutive shots, at most slurm-survey-tasks
 * parts), submitted as one Slurm job array of one task a part, so that the parts run on
 * many nodes at once; each task is fdwave-runner on its part's run file (run.part_<k>.json:
 * that part's shots, its own checkpoint directory), its protocol lines in
 * jobs/<id>/part_<k>.proto, which the daemon follows as it follows a whole job's, the
 * parts' progress summed into the survey's. Once every part has finished, one more Slurm
 * job, the combining run (run.combine.json), makes the survey's outputs from the shots'
 * files (all_shots, a stack summed in shot order, the manifest: a whole run's bits).
 * A part that fails stops the others (scancel); one that Slurm ended otherwise (an
 * scancel from outside, a node failure) is left to the attempt rules once the others have
 * ended: the job is re-queued, and its next attempt submits only the parts that have not
 * finished. */
#ifndef FDWD_SLURM_SURVEY_H
#define FDWD_SLURM_SURVEY_H

#include "core/app.h"
#include "sched/runfile.h"
#include "sched/runner.h"

/* How many parts job's survey runs as: 1 (one shot, or slurm-survey-tasks 1: a whole
 * Slurm job) or more; an earlier attempt's count while its parts' run files are there, so
 * that a job's split never changes under it. */
int slurm_survey_parts(fdwd_app *app, const runner_job *job);

/* Run job's survey as nparts parts and the combining run, or follow those recorded, as
 * slurm_run does (slurm_run.h). */
int slurm_survey_run(fdwd_app *app, const runner_job *job, const runfile_job *rf, int nparts,
                     double time_limit_s, const fdw_callbacks *cb, runner_outcome *out);

#endif
