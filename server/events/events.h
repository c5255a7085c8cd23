/* events.h — the per-job event log (table events) that SSE streams replay: appending
 * inside a caller's transaction (state changes, which must commit with the state), and
 * posting from a running job through a bounded in-memory queue that one writer thread
 * drains into SQLite, so the engine's callbacks never wait on the database. */
#ifndef FDWD_EVENTS_H
#define FDWD_EVENTS_H

#include "core/app.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>

/* Insert one event inside the caller's open transaction. data is not stolen. Returns the
 * event id, or -1. The caller calls notify_job(&app->notify, job_id) after its COMMIT. */
int64_t events_append(sqlite3 *c, int64_t job_id, const char *type, json_t *data);
/* The same with data already as compact JSON text. */
int64_t events_append_text(sqlite3 *c, int64_t job_id, const char *type, const char *text);

/* Queue an event for the writer thread; data is stolen. droppable events (progress) are
 * discarded when the queue is full; the others are always kept. Never blocks on I/O.
 * progress events also update jobs.progress; snapshot events record their files in the
 * outputs table. */
void events_post(fdwd_app *app, int64_t job_id, const char *type, json_t *data, int droppable);

/* Wait until every event posted before this call is committed. */
void events_flush(fdwd_app *app);

/* Start / stop the writer thread (stop flushes first). */
int events_start(fdwd_app *app);
void events_stop(fdwd_app *app);

/* Progress events discarded because the queue was full (for /metrics). */
uint64_t events_dropped(fdwd_app *app);

#endif
