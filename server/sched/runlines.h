/* runlines.h — reading a runner's protocol lines (runner_proto.h) into the engine's
 * callbacks and a runner_outcome, whichever way they arrive: the pipe of a local runner
 * (runner.c) or the file a Slurm job's runner writes on the shared file system
 * (slurm_run.c). Bytes go in as they come; whole lines are decoded and handed on, and
 * what they say of the run's end goes into a runner_outcome. */
#ifndef FDWD_RUNLINES_H
#define FDWD_RUNLINES_H

#include "fdwave/fdwave.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How a runner ended, as its lines and its process (or Slurm job) said. */
typedef struct runner_outcome {
    int started;               /* the runner process was started */
    int have_result;           /* it wrote its result line: st, err, res hold it */
    fdw_status st;
    fdw_error err;
    fdw_result res;
    int signal;                /* it died of this signal (0: it exited) */
    int exit_code;             /* its exit status when it exited */
    int oom_killed;            /* the memory limit's OOM killer killed it */
    int stop_timed_out;        /* told to stop, it did not within runner-stop-timeout: killed */
    long last_step;            /* the last step it reported */
    uint64_t peak_rss;         /* host memory at its peak (bytes; its descendants too) */
    uint64_t peak_device_bytes; /* the most its progress reports showed on all devices */
    double wall_s;             /* from start to end */
    char tail[600];            /* the end of what it wrote on stderr (runner.log) */
    char why[600];             /* why it could not be started */
    /* job-backend = slurm (slurm_run.h): the Slurm job it ran as, and how that ended */
    int64_t slurm_id;          /* 0: not a Slurm job */
    char slurm_job[40];        /* how to name it: "ID", or "ID_K" for an array's task K
                                  ("": its id) */
    int detached;              /* the daemon stopped and left the Slurm job running */
    char slurm_state[32];      /* its final JobState ("" while unknown; GONE: purged) */
    int slurm_exit, slurm_signal; /* its ExitCode */
} runner_outcome;

typedef struct supervise {
    int64_t job_id;
    const fdw_callbacks *cb;   /* whose members are called (NULL members: not) */
    runner_outcome *out;       /* last step, peak memory and the result go here */
    char *buf;                 /* a partial line */
    size_t len, cap;           /* its length, and buf's room */
    int overlong;              /* discarding the rest of a line over 1 MiB */
    long bad_lines;
} supervise;

/* Ready s for job_id's lines. 0, or -1 when out of memory. */
int runlines_init(supervise *s, int64_t job_id, const fdw_callbacks *cb, runner_outcome *out);
void runlines_free(supervise *s);

/* Take n bytes of the runner's output: whole lines are handled, the rest kept. */
void runlines_take(supervise *s, const char *data, size_t n);

/* The end of the log file path from offset start on, as one line, into tail. */
void runlines_tail(const char *path, off_t start, char *tail, size_t cap);

#endif
