/* robust_util.h — what the robustness tests share (on top of tests/server/harness.h): the
 * runner processes of a daemon, a job's fields, waiting for a state or a step, a finished
 * job's event stream, and the files of its output directory. */
#ifndef FDW_TEST_ROBUST_UTIL_H
#define FDW_TEST_ROBUST_UTIL_H

#include "harness.h"

#include <check.h>

#include <jansson.h>
#include <sys/types.h>

/* The bearer token the helpers below send (NULL: none, the default). */
void robust_as(const char *token);
/* GET path as the token set by robust_as; the body as JSON (NULL unless 200). */
json_t *get_json(const daemon_proc *d, const char *path);

/* The daemon's child processes (its runners, or their launchers); returns how many. */
int runner_pids(const daemon_proc *d, pid_t *out, int cap);
/* The first runner's pid once one runs (within timeout_s), else 0. */
pid_t wait_runner(const daemon_proc *d, double timeout_s);

/* GET /v1/jobs/ID as JSON (NULL when not 200). */
json_t *job_get(const daemon_proc *d, long id);
/* Its string member key copied into out ("" when absent). */
void job_text(const daemon_proc *d, long id, const char *key, char *out, size_t cap);
/* Wait until job id's progress reports at least step (and it runs); 1, or 0 on timeout. */
int wait_step(const daemon_proc *d, long id, long step, double timeout_s);
/* Wait until job id runs its attempt-th run (attempts counts the runs started); 1, or 0
 * on timeout. */
int wait_attempt(const daemon_proc *d, long id, long attempt, double timeout_s);
/* Wait until job id is in state; 1, or 0 on timeout. */
int wait_state(const daemon_proc *d, long id, const char *state, double timeout_s);

/* POST /v1/jobs/ID/cancel; the HTTP status (0 when no answer came). */
long job_cancel(const daemon_proc *d, long id);

/* A finished job's whole event stream as text (caller frees). */
char *job_events(const daemon_proc *d, long id);
/* Path of job id's output directory. */
void job_out_dir(const daemon_proc *d, long id, char *out, size_t cap);

/* Submit spec (as the token set by robust_as); asserts the status and returns the id (or
 * -1 when the status is not 2xx). */
long submit_expect(const daemon_proc *d, const char *spec, long status);

/* A small acoustic spec like small_spec with a name (the bad runner reads it). */
void named_spec(char *buf, size_t cap, const char *name, int n, int nt, int snap, int devices);

/* Run suite s without Check's fork (the tests hold a daemon and threads) and free it;
 * returns the exit status (0 when every test passed). */
int robust_run(Suite *s);

#endif
