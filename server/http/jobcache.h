/* jobcache.h — rendered answers of GET /v1/jobs/{id}, kept so that polling a job costs
 * no database read, no JSON building and no response allocation. An entry is the
 * finished libmicrohttpd response (shared by every connection that gets it) tagged with
 * the database generation read before the job was read (db_generation); any COMMIT
 * moves the generation, so an entry never outlives a change of the job, of its queue
 * position or of its progress. */
#ifndef FDWD_JOBCACHE_H
#define FDWD_JOBCACHE_H

#include "core/app.h"
#include "core/identity.h"

#include <microhttpd.h>
#include <stdint.h>

/* Answer 200 from the cache when job id has a current entry that who may see: queues
 * the response on conn, sets *ret and returns 1. Returns 0 (nothing queued) otherwise. */
int jobcache_reply(fdwd_app *app, int64_t id, const identity *who,
                   struct MHD_Connection *conn, enum MHD_Result *ret);

/* Keep resp (taken over: the cache destroys it when replaced) as the answer for job id,
 * owned by owner, rendered from data read after generation gen was read. */
void jobcache_store(fdwd_app *app, int64_t id, const char *owner, uint64_t gen,
                    struct MHD_Response *resp);

/* Drop every entry (after the HTTP daemon stopped). */
void jobcache_clear(fdwd_app *app);

/* Set up app->jobcache (before the HTTP daemon starts). Returns 0, or -1 (out of
 * memory). */
int jobcache_init(fdwd_app *app);

#endif
