/* slurm_submit.h — one Slurm batch job of an fdwave job: its batch script (exec
 * fdwave-runner RUN.json, or an array task's own run file) and the sbatch command line
 * with the resources of its spec: one task, slurm-cpus-per-device CPUs per device, GPUs as
 * --gpus when the daemon's backend is CUDA, --mem from the engine's host-memory estimate
 * plus runner-memory-overhead, --time from the job's wall time left, --array for a
 * survey's parts, and the site's partition and sbatch words (slurm-partition,
 * slurm-args). */
#ifndef FDWD_SLURM_SUBMIT_H
#define FDWD_SLURM_SUBMIT_H

#include "core/app.h"

#include <stddef.h>
#include <stdint.h>

/* What one sbatch submits. */
typedef struct slurm_batch {
    int64_t job_id;            /* the fdwave job (the script's comment) */
    const char *name;          /* --job-name */
    const char *job_dir;       /* --chdir */
    const char *script;        /* the batch script, written here */
    const char *run_file;      /* the runner's run file; "%a" in it: the array task's id */
    const char *output, *error; /* --output, --error (Slurm's patterns: %a the array task) */
    const char *array;         /* --array=LIST; NULL: one job */
    int ndevices;              /* devices of each task: CPUs, and GPUs when gpus */
    int gpus;                  /* ask for the devices as --gpus (the CUDA backend) */
    uint64_t memory_limit;     /* --mem (bytes); 0: none */
    double time_limit_s;       /* --time; 0: none */
} slurm_batch;

/* Write b's script and submit it. The Slurm job's id (an array's job id) into *slurm_id.
 * Returns 0, or -1 with why. */
int slurm_submit(fdwd_app *app, const slurm_batch *b, int64_t *slurm_id, char *why,
                 size_t len);

#endif
