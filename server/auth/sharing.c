/* sharing.c — the queue's order and the quota checks (see sharing.h). The candidates are
 * the oldest queued job of each (owner, priority): within one owner and level the queue
 * is first-come first-served, so only those can be the head. */
#include "auth/sharing.h"
#include "core/app.h"
#include "core/db.h"
#include "core/log.h"
#include "core/quota.h"
#include "store/usage.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_USERS 1024
#define CACHE_MS 5000

/* The users' decayed usage, read at most every CACHE_MS (app->sharing). */
struct sharing {
    pthread_mutex_t lock;
    usage_user users[MAX_USERS];
    int nusers;                /* -1: read again */
    double total;
    int64_t cached_at;
};

int sharing_init(fdwd_app *app)
{
    struct sharing *sh = calloc(1, sizeof *sh);
    if (!sh)
        return -1;
    pthread_mutex_init(&sh->lock, NULL);
    sh->nusers = -1;
    app->sharing = sh;
    return 0;
}

void sharing_usage_changed(fdwd_app *app)
{
    struct sharing *sh = app->sharing;
    pthread_mutex_lock(&sh->lock);
    sh->nusers = -1;
    pthread_mutex_unlock(&sh->lock);
}

double sharing_fairshare(fdwd_app *app, const char *user)
{
    struct sharing *sh = app->sharing;
    const double weight = app->cfg.fairshare_weight;
    if (weight <= 0)
        return 0;
    pthread_mutex_lock(&sh->lock);
    const int64_t now = now_ms();
    if (sh->nusers < 0 || now - sh->cached_at > CACHE_MS) {
        int n = usage_decayed(app, app->cfg.fairshare_halflife, sh->users, MAX_USERS);
        sh->nusers = n < 0 ? 0 : n;
        sh->total = 0;
        for (int i = 0; i < sh->nusers; i++)
            sh->total += sh->users[i].decayed;
        sh->cached_at = now;
    }
    double mine = 0;
    int known = 0;
    for (int i = 0; i < sh->nusers; i++)
        if (strcmp(sh->users[i].user, user) == 0) {
            mine = sh->users[i].decayed;
            known = 1;
        }
    /* S: equal shares among the users with recent usage, the asking one included */
    const int nshare = sh->nusers + !known;
    const double total = sh->total;
    pthread_mutex_unlock(&sh->lock);
    if (total <= 0 || nshare <= 0)
        return weight;
    const double U = mine / total, S = 1.0 / nshare;
    return weight * exp2(-U / S);
}

double sharing_rank(fdwd_app *app, const char *owner, int priority)
{
    return priority + quota_of(&app->quotas, owner)->priority + sharing_fairshare(app, owner);
}

/* Whether owner may start a job of g devices now (quota devices and device-hours); when
 * not, why says so ("waits for ..."). */
static int within_quota(fdwd_app *app, const char *owner, int g, char *why, size_t len)
{
    const quota *q = quota_of(&app->quotas, owner);
    if (q->devices >= 0) {
        long queued;
        int running;
        uint64_t disk;
        if (usage_standing(app, owner, &queued, &running, &disk) != 0) {
            snprintf(why, len, "waits for the database to answer (its owner's quota)");
            return 0;
        }
        if (running + g > q->devices) {
            snprintf(why, len, "waits for its owner's quota: %s runs jobs on %d device%s and "
                     "this one needs %d; the quota allows %d at once (devices=%d)", owner,
                     running, running == 1 ? "" : "s", g, q->devices, q->devices);
            return 0;
        }
    }
    if (q->device_hours >= 0) {
        const double used =
            usage_device_seconds(app, owner, now_ms() - (int64_t)(q->period_s * 1000.0));
        if (used < 0 || used >= q->device_hours * 3600.0) {
            snprintf(why, len, "waits for its owner's quota: %s used %.2f device-hours in the "
                     "last %.3g days, the quota's limit (device-hours=%g); it starts as that "
                     "usage ages out", owner, used / 3600.0, q->period_s / 86400.0,
                     q->device_hours);
            return 0;
        }
    }
    return 1;
}

typedef struct candidate {
    sharing_job job;
    int64_t created_at;
} candidate;

static int by_rank(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->job.rank != y->job.rank)
        return x->job.rank > y->job.rank ? -1 : 1;
    return x->job.id < y->job.id ? -1 : x->job.id > y->job.id;
}

int sharing_head(fdwd_app *app, int64_t aging_ms, sharing_job *out, waiting_book *book)
{
    sqlite3 *c = db(app->db);
    sqlite3_stmt *st =
        db_stmt(c, /* each priority with queued jobs (queue_counts), each owner in it
                    * (a seek past the last one found), its oldest job: seeks in
                    * jobs_queue_heads, however long the queue is */
                "WITH RECURSIVE h(priority, owner) AS ("
                "SELECT p.priority, (SELECT owner FROM jobs WHERE state = 'queued' AND "
                "priority = p.priority ORDER BY owner LIMIT 1) FROM queue_counts p "
                "WHERE p.n > 0 UNION ALL "
                "SELECT h.priority, (SELECT owner FROM jobs WHERE state = 'queued' AND "
                "priority = h.priority AND owner > h.owner ORDER BY owner LIMIT 1) "
                "FROM h WHERE h.owner IS NOT NULL) "
                "SELECT j.id, j.owner, j.priority, j.devices_requested, j.devices_wanted, "
                "j.created_at, coalesce(j.host_bytes, 0), coalesce(j.device_bytes, 0) "
                "FROM h JOIN jobs j ON j.id = (SELECT id FROM jobs WHERE state = 'queued' "
                "AND priority = h.priority AND owner = h.owner ORDER BY id LIMIT 1)");
    if (!st)
        return -1;
    size_t n = 0, cap = 64;
    candidate *cs = malloc(cap * sizeof *cs);
    const int64_t now = now_ms();
    while (cs && sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            candidate *grown = realloc(cs, 2 * cap * sizeof *cs);
            if (!grown)
                break;
            cs = grown;
            cap *= 2;
        }
        candidate *k = &cs[n++];
        memset(k, 0, sizeof *k);
        sharing_job *j = &k->job;
        j->id = sqlite3_column_int64(st, 0);
        snprintf(j->owner, sizeof j->owner, "%s", (const char *)sqlite3_column_text(st, 1));
        j->priority = sqlite3_column_int(st, 2);
        j->devices_requested = sqlite3_column_int(st, 3);
        const char *w = (const char *)sqlite3_column_text(st, 4);
        json_t *arr = w ? json_loads(w, 0, NULL) : NULL;
        size_t i;
        json_t *v;
        json_array_foreach(arr, i, v) {
            if (j->nwanted < SHARING_MAX_WANTED)
                j->wanted[j->nwanted++] = (int)json_integer_value(v);
        }
        json_decref(arr);
        k->created_at = sqlite3_column_int64(st, 5);
        j->host_bytes = (uint64_t)sqlite3_column_int64(st, 6);
        j->device_bytes = (uint64_t)sqlite3_column_int64(st, 7);
        const int64_t waited = now - k->created_at;
        j->rank = sharing_rank(app, j->owner, j->priority) +
                  (double)(waited > 0 ? waited / (aging_ms > 0 ? aging_ms : 1) : 0);
    }
    db_stmt_done(st);
    if (!cs)
        return -1;
    qsort(cs, n, sizeof *cs, by_rank);
    int found = 0;
    struct {
        char owner[128], why[WAITING_WHY];
    } blocked[64];
    int nblocked = 0;
    for (size_t i = 0; i < n && !found; i++) {
        int b = 0;
        while (b < nblocked && strcmp(blocked[b].owner, cs[i].job.owner) != 0)
            b++;
        if (b < nblocked) { /* its owner's other level: the same limit holds it */
            waiting_note(book, cs[i].job.id, WAIT_QUOTA, "%s", blocked[b].why);
            continue;
        }
        const int g = cs[i].job.nwanted > 0 ? cs[i].job.nwanted : cs[i].job.devices_requested;
        char why[WAITING_WHY];
        if (within_quota(app, cs[i].job.owner, g, why, sizeof why)) {
            *out = cs[i].job;
            found = 1;
            continue;
        }
        waiting_note(book, cs[i].job.id, WAIT_QUOTA, "%s", why);
        if (nblocked < 64) {
            snprintf(blocked[nblocked].owner, sizeof blocked[0].owner, "%s", cs[i].job.owner);
            snprintf(blocked[nblocked++].why, sizeof blocked[0].why, "%s", why);
        }
    }
    free(cs);
    return found;
}

int sharing_admit(fdwd_app *app, const identity *who, int devices, char *field, size_t flen,
                  char *why, size_t len)
{
    const quota *q = quota_of(&app->quotas, who->user);
    long queued;
    int running;
    uint64_t disk;
    if (q->devices >= 0 && devices > q->devices) {
        snprintf(field, flen, "devices");
        snprintf(why, len, "the job asks for %d devices but the quota of %s allows %d at once",
                 devices, who->user, q->devices);
        return 400;
    }
    if (q->queued < 0 && !q->disk && q->device_hours < 0)
        return 0;
    if (usage_standing(app, who->user, &queued, &running, &disk) != 0) {
        snprintf(field, flen, "%s", "");
        snprintf(why, len, "the database is not answering");
        return 503;
    }
    if (q->queued >= 0 && queued >= q->queued) {
        snprintf(field, flen, "queued");
        snprintf(why, len, "%s has %ld jobs queued, the quota's limit (queued=%ld): wait for "
                 "some to start, or cancel some", who->user, queued, q->queued);
        return 429;
    }
    if (q->disk && disk >= q->disk) {
        snprintf(field, flen, "disk");
        snprintf(why, len, "the outputs of %s's jobs and uploads hold %.3g GiB, the quota's "
                 "limit (disk=%.3g GiB): remove old outputs (fdwave rm JOB) or uploaded data "
                 "(fdwave data rm NAME)", who->user,
                 (double)disk / (1u << 30), (double)q->disk / (1u << 30));
        return 429;
    }
    if (q->device_hours >= 0) {
        const double used =
            usage_device_seconds(app, who->user, now_ms() - (int64_t)(q->period_s * 1000.0));
        if (used >= q->device_hours * 3600.0) {
            snprintf(field, flen, "device_hours");
            snprintf(why, len, "%s used %.2f device-hours in the last %.3g days, the quota's "
                     "limit (device-hours=%g): new jobs are accepted as that usage ages out",
                     who->user, used / 3600.0, q->period_s / 86400.0, q->device_hours);
            return 429;
        }
    }
    return 0;
}
