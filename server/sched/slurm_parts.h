/* slurm_parts.h — the parts of a survey run as a Slurm job array (slurm_survey.h): each
 * part's shots (the engine's fdw_survey_part_shots), its protocol file
 * jobs/<id>/part_<k>.proto and log part_<k>.log, what its runner said (runlines.h), and
 * following them all together: their log and checkpoint lines handed on, their progress
 * summed into the survey's (shots done of all, the lowest shot under way), each part's
 * end said on the job's stream with its array task, and how the parts ended made into
 * the run's outcome. */
#ifndef FDWD_SLURM_PARTS_H
#define FDWD_SLURM_PARTS_H

#include "core/app.h"
#include "sched/runlines.h"
#include "sched/runner.h"

#include <stdint.h>

typedef struct slurm_part slurm_part;

typedef struct slurm_parts {
    fdwd_app *app;
    const runner_job *job;
    const fdw_callbacks *cb;   /* the worker's */
    int nparts;
    int64_t array_id;          /* the array its unfinished parts run as; 0: none yet */
    slurm_part *part;          /* nparts of them (slurm_parts.c) */
    struct slurm_state *states; /* their tasks' states as Slurm last said (slurm_cli.h) */
    double t0, t_post;         /* when following began; the last progress posted */
    int posted_done;           /* shots done in that progress */
} slurm_parts;

/* job's nparts parts, what their protocol files hold read back without callbacks (a part
 * that wrote its successful result has finished, in this attempt or an earlier one).
 * NULL when out of memory. */
slurm_parts *slurm_parts_new(fdwd_app *app, const runner_job *job, const fdw_callbacks *cb,
                             int nparts);
void slurm_parts_free(slurm_parts *sp);

/* Whether part k has not finished (k = -1: how many have not). */
int slurm_parts_unfinished(const slurm_parts *sp, int k);
/* Ready every unfinished part to run anew: its protocol file removed, its outcome
 * cleared, its log read from its end on. */
void slurm_parts_restart(slurm_parts *sp);
/* The unfinished parts as sbatch's --array list ("0-3,7"); malloc'd, NULL when out of
 * memory. */
char *slurm_parts_array(const slurm_parts *sp);

/* Follow the array (sp->array_id) until every part has ended or the daemon shuts down:
 * cancel and the wall time become scancel of the array, suspend the word "suspend"; a part
 * that fails has the others scancelled. Returns 1 when every part finished; else 0 with
 * out saying how the run ended (a failed part's outcome first, then a part Slurm ended,
 * then a suspended one; out->detached at shutdown). */
int slurm_parts_follow(slurm_parts *sp, runner_outcome *out);

/* A completed survey's figures from its parts' results into out's result (the combining
 * run's): steps, shots found finished by the parts' runs, the rate over this run's wall
 * time, the peak memory. */
void slurm_parts_result(const slurm_parts *sp, runner_outcome *out);

#endif
