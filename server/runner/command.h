/* command.h — the runner-command template (--runner-command): words separated by spaces,
 * {run} among them; placeholders {runner}, {run}, {job}, {ndevices}, {devices}. Checked
 * when the settings are read (core/config.c) and filled for each run (sched/runner.c). */
#ifndef FDWD_RUNNER_COMMAND_H
#define FDWD_RUNNER_COMMAND_H

#include <stddef.h>
#include <stdint.h>

/* Most words of one command line, its NULL included. */
#define RUNNER_MAX_WORDS 64

/* What the placeholders stand for in one run. */
typedef struct runner_words {
    const char *runner;        /* {runner}: the runner program */
    const char *run_file;      /* {run} */
    int64_t job_id;            /* {job} */
    int ndevices;              /* {ndevices} */
    const int *device_ids;     /* {devices}: comma-separated */
} runner_words;

/* Split tmpl into argv (its words into buf, cap bytes), the placeholders filled from w.
 * Returns the count, or -1 with why. */
int runner_command_argv(const char *tmpl, const runner_words *w, char **argv, char *buf,
                        size_t cap, char *why, size_t wlen);

/* Check a template at start-up (placeholders filled with stand-ins). 0, or -1 with why. */
int runner_check_command(const char *tmpl, char *why, size_t len);

#endif
