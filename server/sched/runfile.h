/* runfile.h — what a runner is told about its job: the run file (data/jobs/<id>/run.json)
 * the worker writes before starting fdwave-runner. It holds the normalised spec stored at
 * submission (the runner's parse is the job's only one after that submission's), the
 * recorded facts of the uploaded model the job names (resolved now, with the submitter's
 * rights, so the runner needs no database), the directories the spec may read from, the output and checkpoint
 * directories, the devices, the CPU thread share and scheduling, and the job's lock. */
#ifndef FDWD_RUNFILE_H
#define FDWD_RUNFILE_H

#include "core/app.h"
#include "core/identity.h"
#include "fdwave/fdwave.h"

#include <stddef.h>
#include <stdint.h>

typedef struct runfile_job {
    int64_t job_id;
    const identity *who;       /* the submitter's rights, for model names */
    const char *spec_json;     /* the normalised spec stored at submission */
    const char *job_dir, *out_dir, *checkpoint_dir;
    double checkpoint_interval_s; /* 0: no checkpoints by time */
    long checkpoint_every_steps;  /* 0: none by steps */
    const int *device_ids;
    int ndevices;
    int threads;               /* CPU backend OpenMP threads (0: the runner decides) */
    const char *control_file;  /* a Slurm job's: the daemon's words come from this file
                                  instead of the runner's stdin; NULL: stdin */
    const char *tag;           /* NULL: run.json and the lock runner.lock; else run.<tag>.json
                                  and <tag>.lock (a survey's Slurm array task or its
                                  combining run: part_<k>, combine) */
    int survey_parts;          /* > 1: a survey in parts (fdw_run_opts.survey_parts), */
    int survey_part;           /* this part, or FDW_SURVEY_COMBINE */
} runfile_job;

/* Write job_dir/run.json (run.<tag>.json) atomically; its path into path. Returns 0, or -1
 * with why. */
int runfile_write(fdwd_app *app, const runfile_job *j, char *path, size_t pathlen, char *why,
                  size_t len);

#endif
