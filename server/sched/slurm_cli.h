/* slurm_cli.h — Slurm's commands as the daemon uses them (job-backend = slurm): sbatch to
 * submit a job's batch script, scontrol to read a job's state (or each task's of an
 * array), squeue to find a job by its name, scancel to end it. They are
 * found on PATH and read the site's slurm.conf (or SLURM_CONF) as the operator's shell
 * would; each runs as a child with its output captured and a time limit. */
#ifndef FDWD_SLURM_CLI_H
#define FDWD_SLURM_CLI_H

#include <stddef.h>
#include <stdint.h>

/* Run argv (argv[0] on PATH; NULL-terminated), its stdout and stderr into out (cap bytes,
 * NUL-terminated, trailing newlines cut). Returns its exit status, or -1 when it could
 * not run or took over timeout_s seconds (killed; out says so). */
int slurm_cmd(char *const argv[], int timeout_s, char *out, size_t cap);

/* A Slurm job's state as scontrol shows it. */
typedef struct slurm_state {
    int known;                 /* Slurm knows the job (else: purged, or never existed) */
    int ended;                 /* its state is a final one */
    char state[32];            /* JobState, e.g. RUNNING, COMPLETED, CANCELLED, NODE_FAIL */
    int exit_code, signal;     /* ExitCode=code:signal */
} slurm_state;

/* Read job slurm_id's state. An array job's: the state of a task that has not ended if
 * any has not (ended 0), else the first task's. 0, or -1 (with why) when scontrol could
 * not be asked. */
int slurm_query(int64_t slurm_id, slurm_state *s, char *why, size_t len);

/* The states of array job array_id's tasks 0..n-1 into s[] (one scontrol call; s[k].known
 * 0 for a task Slurm does not show: purged, or not in the array). 0, or -1 with why. */
int slurm_query_tasks(int64_t array_id, int n, slurm_state *s, char *why, size_t len);

/* The id of the job (an array's job id) named name that Slurm knows, in any state, into
 * *slurm_id: 1, or 0 when Slurm knows none (never submitted, or purged after MinJobAge),
 * -1 with why when squeue could not be asked. */
int slurm_find_named(const char *name, int64_t *slurm_id, char *why, size_t len);

/* scancel slurm_id (an array job: every task of it). 0, or -1 with why. */
int slurm_cancel(int64_t slurm_id, char *why, size_t len);

#endif
