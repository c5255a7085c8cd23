/* usage.h — the accounting read back (table usage, written by jobruns.c at each run's
 * end, plus the running jobs' part so far): a user's device-seconds in a window (their
 * device-hour quota), everyone's usage decayed with a half-life (the fair share), the
 * report of GET /v1/usage, a user's standing for GET /v1/users/me, and the /metrics
 * totals. SQL only. */
#ifndef FDWD_USAGE_H
#define FDWD_USAGE_H

#include "core/app.h"
#include "core/identity.h"

#include <jansson.h>
#include <stdint.h>

/* Device-seconds of user's runs since since_ms (the part of a run in the window counts
 * whole when it ended inside it) and of their running jobs so far. -1 on error. */
double usage_device_seconds(fdwd_app *app, const char *user, int64_t since_ms);

/* One user's decayed usage. */
typedef struct usage_user {
    char user[128];
    double decayed;            /* device-seconds, each weighed 2^(-age / halflife) */
} usage_user;
/* Every user with usage in the last 20 half-lives (or a running job), decayed at now;
 * returns how many (at most cap), or -1 on error. */
int usage_decayed(fdwd_app *app, double halflife_s, usage_user *out, int cap);

/* Queued jobs, devices running, and disk bytes held by user: their jobs' outputs kept and
 * their uploaded models and data (GET /v1/users/me and the quota checks). 0 or -1. */
int usage_standing(fdwd_app *app, const char *user, long *queued, int *running_devices,
                   uint64_t *disk);

/* GET /v1/usage: runs ended in [since, until) with the running jobs' part, per user:
 * {"since","until","users":[{"user","runs","jobs","device_seconds","device_hours",
 * "wall_seconds","peak_host_bytes","peak_device_bytes"}]}; only_user NULL: all users. NULL
 * on a database error. */
json_t *usage_report(fdwd_app *app, const char *only_user, int64_t since_ms, int64_t until_ms);

/* /metrics: device-seconds recorded per user since the database began; calls fn for each. */
int usage_totals(fdwd_app *app, void (*fn)(void *user_arg, const char *user, double device_seconds,
                            long runs),
                 void *user_arg);

#endif
