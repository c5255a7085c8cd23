/* jobcache.c — the GET /v1/jobs/{id} answer cache (see jobcache.h): 256 slots chosen by
 * the job id, each with its own lock. A hit queues the shared response while holding
 * the slot's lock, so a concurrent replacement cannot free it in between (libmicrohttpd
 * counts the connections that use a response and frees it after the last one). */
#include "http/jobcache.h"
#include "core/db.h"
#include "http/metrics.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define SLOTS 256

typedef struct entry {
    pthread_mutex_t lock;
    int64_t id;
    uint64_t gen;
    char owner[128];
    struct MHD_Response *resp;
} entry;

/* The kept answers (app->jobcache). */
struct jobcache {
    entry slots[SLOTS];
};

int jobcache_init(fdwd_app *app)
{
    struct jobcache *jc = calloc(1, sizeof *jc);
    if (!jc)
        return -1;
    for (int i = 0; i < SLOTS; i++)
        pthread_mutex_init(&jc->slots[i].lock, NULL);
    app->jobcache = jc;
    return 0;
}

static entry *slot_of(struct jobcache *jc, int64_t id)
{
    return &jc->slots[(uint64_t)id % SLOTS];
}

int jobcache_reply(fdwd_app *app, int64_t id, const identity *who,
                   struct MHD_Connection *conn, enum MHD_Result *ret)
{
    entry *e = slot_of(app->jobcache, id);
    int hit = 0;
    pthread_mutex_lock(&e->lock);
    if (e->resp && e->id == id && e->gen == db_generation(app->db) &&
        (who->admin || strcmp(e->owner, who->user) == 0)) {
        metrics_count_status(app, 200);
        *ret = MHD_queue_response(conn, 200, e->resp);
        hit = 1;
    }
    pthread_mutex_unlock(&e->lock);
    return hit;
}

void jobcache_store(fdwd_app *app, int64_t id, const char *owner, uint64_t gen,
                    struct MHD_Response *resp)
{
    entry *e = slot_of(app->jobcache, id);
    struct MHD_Response *old = resp;
    pthread_mutex_lock(&e->lock);
    /* Keep whichever is fresher when two threads rendered the same job. */
    if (!e->resp || e->id != id || gen >= e->gen) {
        old = e->resp;
        e->resp = resp;
        e->id = id;
        e->gen = gen;
        snprintf(e->owner, sizeof e->owner, "%s", owner);
    }
    pthread_mutex_unlock(&e->lock);
    if (old)
        MHD_destroy_response(old);
}

void jobcache_clear(fdwd_app *app)
{
    for (int i = 0; app->jobcache && i < SLOTS; i++) {
        entry *e = slot_of(app->jobcache, i);
        pthread_mutex_lock(&e->lock);
        struct MHD_Response *old = e->resp;
        e->resp = NULL;
        e->id = 0;
        pthread_mutex_unlock(&e->lock);
        if (old)
            MHD_destroy_response(old);
    }
}
