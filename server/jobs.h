/* jobs.h — the durable job queue in SQLite (table jobs): accepting a job (with the
 * idempotency key check), reading and listing jobs as the API's JSON, cancelling,
 * claiming for a run, finishing, and recovery after a crash. Every state change writes
 * its "state" event (and "end" on terminal states) in the same transaction. */
#ifndef FDWD_JOBS_H
#define FDWD_JOBS_H

#include "auth.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>

/* A validated job about to be stored. */
typedef struct job_new {
    const char *owner;
    const char *name;
    const char *kind;
    int priority;              /* -10..10 */
    int devices_requested;
    const char *devices_wanted;  /* JSON list of ids the spec names, or NULL */
    const char *idempotency_key; /* or NULL */
    const char *spec_body;
    const char *spec_json;
    json_t *warnings;          /* list of strings (not stolen) */
} job_new;

/* What jobs_insert_tx stored. */
typedef struct job_stored {
    int64_t id;
    int existed;               /* the owner's idempotency key named an earlier job: id */
    int64_t created_at;        /* new job: ms since the epoch */
    int64_t queue_position;    /* new job: jobs queued ahead of it at insert; -1 unknown */
} job_stored;

/* Store a new queued job inside the caller's open transaction (see accept.c, which
 * commits many at once with synchronous=FULL and then calls sse_notify_jobs).
 * out->existed = 1 and out->id = the first job when the owner already used this
 * idempotency key. Returns 0, or -1 (the caller rolls back to its savepoint). */
int jobs_insert_tx(sqlite3 *c, const job_new *j, job_stored *out);
/* The API object of a job jobs_insert_tx just stored (not existed) as compact JSON
 * text (caller frees): byte for byte what json_dumps(jobs_get_ex(id, ..., 0),
 * JSON_COMPACT) gives inside that transaction, written without a read or a jansson tree
 * (the POST /v1/jobs answer). NULL when out of memory. */
char *jobs_new_text(const job_new *j, const job_stored *st);

/* The job as API JSON, or NULL when it does not exist or who may not see it. */
json_t *jobs_get(int64_t id, const identity *who);
/* The same; with_spec 0 leaves out "spec" (the POST /v1/jobs answer). */
json_t *jobs_get_ex(int64_t id, const identity *who, int with_spec);

/* GET /v1/jobs: state may be NULL; newest first; ids < before when before > 0. */
json_t *jobs_list(const identity *who, const char *state, int limit, int64_t before);

/* Cancel: returns 200 (was queued, now cancelled), 202 (running: stop requested),
 * 404 (not visible), 409 (already finished) or 500; *job gets the job JSON on 200/202. */
int jobs_cancel(int64_t id, const identity *who, json_t **job);

/* Scheduler side. The head of the queue: highest priority first, with aging (one
 * priority level per aging_ms waited), then oldest. Returns 1 and fills the fields, 0 if
 * the queue is empty, -1 on error. wanted gets the device ids the spec names (nwanted 0
 * when it names none); rank the head's aged priority (priority + whole aging_ms
 * periods waited), which only grows while it waits. */
int jobs_head(int64_t aging_ms, int64_t *id, int *devices_requested, int *wanted,
              int *nwanted, int maxwanted, int64_t *rank);
/* queued -> running on devices; 0 on success, -1 when the job is no longer queued. */
int jobs_claim(int64_t id, const int *devices, int ndevices);
/* Read what a worker needs: the owner and the spec as submitted (caller frees). */
int jobs_load_for_run(int64_t id, char **owner, char **spec_body);
/* running -> succeeded | failed | cancelled with a reason (synchronous=FULL), or, when
 * requeue is set, back to queued with the attempt given back. out_dir's manifest.json
 * (if any) is recorded in the outputs table. */
int jobs_finish(int64_t id, const char *state, const char *reason, int requeue,
                const char *out_dir);
/* queued -> failed with a reason (a job this server can never run, e.g. it asks for
 * more devices than a restarted daemon has). */
int jobs_fail_queued(int64_t id, const char *reason);
/* At start: jobs left running go back to queued, or fail once they used max_attempts. */
int jobs_recover(int max_attempts);

/* Counts for /v1/health and /metrics: by state (order: queued, running, succeeded,
 * failed, cancelled). Returns 0 or -1. */
int jobs_count_by_state(int64_t counts[5]);
/* Does the job exist and may who see it? Fills *state (static string) if so. */
int jobs_visible(int64_t id, const identity *who, const char **state);

extern const char *const jobs_states[5];

#endif
