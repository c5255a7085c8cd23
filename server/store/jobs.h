/* jobs.h — the job store: the jobs table in SQLite and nothing else. Accepting a job
 * (with the idempotency key check), reading one job or a page of them as rows,
 * cancelling, the scheduler's head of the queue and its claim, finishing, and recovery
 * after a crash. Every state change writes its "state" event (and "end" on terminal
 * states) in the same transaction, then tells the notifier (notify.h). The API's JSON
 * of a job is made from these rows by job_json.c. */
#ifndef FDWD_JOBS_H
#define FDWD_JOBS_H

#include "core/app.h"
#include "core/identity.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
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
    const char *request_hash;  /* the body's fingerprint (idempotency.h); NULL without a key */
    const char *model_name;    /* the uploaded model the spec names, or NULL */
    const char *model_sha256;  /* its SHA-256 as recorded when the spec was checked */
    const char *spec_body;
    const char *spec_json;
    const char *spec_files;    /* the files it names (specs.h, spec_reads) as JSON text */
    const char *warnings;      /* JSON list of strings as compact text; NULL: none */
    uint64_t host_bytes;       /* memory estimates (admission.h); 0: none */
    uint64_t device_bytes;
    double wall_time;          /* seconds it may run in all; 0: no limit */
    int shots;                 /* a survey's shots (fdw_spec_shots); 0: one shot */
} job_new;

/* What jobs_insert_tx stored. */
typedef struct job_stored {
    int64_t id;
    int existed;               /* the owner's idempotency key named an earlier job: id */
    int key_reused;            /* ... made with another request: nothing stored (422) */
    int64_t created_at;        /* new job: ms since the epoch */
    int64_t queue_position;    /* new job: jobs queued ahead of it at insert; -1 unknown */
} job_stored;

/* One job as stored. The text fields point into the row being read (or into the job_new
 * a record was made from) and live as long as the visit (job_visitor) that sees them. */
typedef struct job_record {
    int64_t id;
    const char *owner, *name, *kind;
    const char *state;         /* one of jobs_states */
    const char *reason;        /* NULL when none */
    int priority, attempts, devices_requested;
    const char *devices;       /* JSON list text: devices of the current or last run */
    int64_t created_at;        /* ms since the epoch */
    int64_t started_at, finished_at; /* ms since the epoch; -1 when not set */
    int64_t queue_position;    /* queued: jobs that run before it; -1 otherwise or unknown */
    const char *progress;      /* JSON text of the latest progress event, or NULL */
    const char *warnings;      /* JSON list text */
    const char *spec_json;     /* the engine's normalised spec (JSON text) */
    int cancel_requested;
    const char *model_name;    /* the uploaded model it names and that model's SHA-256 */
    const char *model_sha256;  /* when the job was submitted; NULL when none */
    const char *waiting;       /* queued: what the scheduler found it waits for, or NULL */
    const char *spec_files;    /* the files it names (specs.h) as JSON text, or NULL */
    const job_new *fresh;      /* a record of a job just stored (jobs_new_record): the
                                  estimates it was submitted with; NULL: read from a row */
} job_record;

/* Called once per job read; job and its text are valid during the call only. */
typedef void (*job_visitor)(void *user, const job_record *job);

/* Store a new queued job inside the caller's open transaction (see accept.c, which
 * commits many at once with synchronous=FULL and then notifies). out->existed = 1 and
 * out->id = the first job when the owner already used this idempotency key for the same
 * request (idempotency.h), also out->key_reused = 1 when for another. Returns 0,
 * or -1 (the caller rolls back to its savepoint). */
int jobs_insert_tx(sqlite3 *c, const job_new *j, job_stored *out);
/* The record of a job jobs_insert_tx just stored (not existed), as a read inside that
 * transaction would give it, made without a read (the POST /v1/jobs answer). */
void jobs_new_record(const job_new *j, const job_stored *st, job_record *out);

/* Visit job id if it exists and who may see it. Returns 1 (visited), 0 (no such job for
 * who) or -1 (database error). */
int jobs_read(fdwd_app *app, int64_t id, const identity *who, job_visitor fn, void *user);
/* Visit the jobs who may see, newest first: state may be NULL; name (may be NULL): only
 * jobs whose name contains it, ASCII letters compared without case; ids < before when
 * before > 0; at most limit. Returns how many were visited (and *more = 1 when further
 * jobs match), or -1. */
int jobs_page(fdwd_app *app, const identity *who, const char *state, const char *name, int limit,
              int64_t before, job_visitor fn, void *user, int *more);

/* Cancel: returns 200 (was queued, now cancelled), 202 (running: stop requested),
 * 404 (not visible), 409 (already finished) or 500. */
int jobs_cancel(fdwd_app *app, int64_t id, const identity *who);

/* Scheduler side (the head of the queue is sharing.h's). */
/* queued -> running on devices; 0 on success, -1 when the job is no longer queued. */
int jobs_claim(fdwd_app *app, int64_t id, const int *devices, int ndevices);
/* A queued job waits for why (the scheduler's finding, waiting.h), or, why NULL, for
 * nothing but its place in the queue. When that changes, it is stored with the job and
 * said on its stream as a "state" event (queued, with the reason). Returns 1 (changed),
 * 0 (the same, or the job is no longer queued) or -1. */
int jobs_set_waiting(fdwd_app *app, int64_t id, const char *why);
/* "waits for its place in the queue: N jobs ahead of it", the reason of a queued job
 * with ahead jobs before it and nothing else to wait for. */
void jobs_place_reason(int64_t ahead, char *out, size_t cap);
/* What a worker needs of a job (jobs_load_for_run; jobs_run_facts_free). */
typedef struct job_run_facts {
    char *owner;
    char *spec_json;           /* the engine's normalised spec, as stored */
    char *spec_files;          /* the files it names (specs.h), or NULL when not recorded */
    char *warnings;            /* its spec's warnings, a JSON list of strings */
    int shots;                 /* a survey's shots as recorded at submission (0: one) */
    int attempts;              /* its runs so far, this one included */
} job_run_facts;
int jobs_load_for_run(fdwd_app *app, int64_t id, job_run_facts *out);
void jobs_run_facts_free(job_run_facts *f);
/* The uploaded model job id names and its SHA-256 as recorded at submission, into name
 * and hex ("" when it names none or was stored before they were recorded). Returns 0,
 * or -1. */
int jobs_model(fdwd_app *app, int64_t id, char name[160], char hex[65]);
/* running -> succeeded | failed | cancelled with a reason (synchronous=FULL), or, when
 * requeue is set, back to queued with the attempt given back. files (a manifest's
 * "files" list, may be NULL) are recorded in the outputs table in the same
 * transaction. */
int jobs_finish(fdwd_app *app, int64_t id, const char *state, const char *reason, int requeue,
                const json_t *files);
/* running -> queued with a reason, the attempt kept (its runner was killed: it resumes
 * from its checkpoint), unless it has had max_attempts runs: then running -> failed with
 * "gave up after N attempts: " and the reason. Returns 1 (re-queued), 0 (failed), -1. */
int jobs_retry(fdwd_app *app, int64_t id, const char *reason, int max_attempts);
/* queued -> failed with a reason (a job this server can never run, e.g. it asks for
 * more devices than a restarted daemon has). */
int jobs_fail_queued(fdwd_app *app, int64_t id, const char *reason);
/* At start: jobs left running by a daemon that stopped go back to queued (resuming from
 * their checkpoints), their attempt given back: a daemon's crash is not the job's. A job
 * that was running through max_interruptions such crashes fails with a reason. */
int jobs_recover(fdwd_app *app, int max_interruptions);

/* Counts for /v1/health and /metrics: by state (order: queued, running, succeeded,
 * failed, cancelled). Returns 0 or -1. */
int jobs_count_by_state(fdwd_app *app, int64_t counts[5]);
/* Does the job exist and may who see it? Fills *state (static string) if so. */
int jobs_visible(fdwd_app *app, int64_t id, const identity *who, const char **state);

extern const char *const jobs_states[5];

#endif
