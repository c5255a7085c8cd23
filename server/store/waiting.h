/* waiting.h — why queued jobs wait, as the scheduler finds it. Each pass of the
 * scheduler notes the jobs it could not start and why: no free worker, devices busy,
 * host memory held by running jobs (admission.h), the disk below min-free-disk, the
 * owner's quota (sharing.h). After the pass, what changed is recorded with each job
 * (jobs_set_waiting: its reason and a "state" event on its stream) and logged; a job no
 * longer noted goes back to waiting for its place in the queue. A note is recorded again
 * only when its cause changes, so a job that keeps waiting for the same thing adds one
 * event, not one a pass. The book belongs to the scheduler's thread. */
#ifndef FDWD_WAITING_H
#define FDWD_WAITING_H

#include "core/app.h"
#include <stdint.h>

typedef enum wait_cause {
    WAIT_WORKER = 1, /* every worker runs a job */
    WAIT_DEVICES,    /* the devices it needs are busy */
    WAIT_MEMORY,     /* its host memory does not fit what running jobs leave */
    WAIT_DISK,       /* the data directory's disk is below min-free-disk */
    WAIT_QUOTA       /* its owner is at a quota's limit */
} wait_cause;

#define WAITING_MAX 72   /* jobs noted in one pass: the head and the owners over quota */
#define WAITING_WHY 240

typedef struct wait_note {
    int64_t id;
    wait_cause cause;
    char why[WAITING_WHY];
} wait_note;

typedef struct waiting_book {
    wait_note pass[WAITING_MAX]; /* this pass's notes */
    int npass;
    wait_note held[WAITING_MAX]; /* what is recorded with the jobs now */
    int nheld;
} waiting_book;

/* A pass starts: no notes yet. */
void waiting_begin(waiting_book *b);
/* Job id waits for cause; why (printf format) says it for a person, starting "waits for".
 * A second note of the same job in a pass replaces the first. */
void waiting_note(waiting_book *b, int64_t id, wait_cause cause, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The pass ended: record what changed (database work: call it without the scheduler's
 * lock held). */
void waiting_record(fdwd_app *app, waiting_book *b);

#endif
