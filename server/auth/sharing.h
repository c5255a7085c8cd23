/* sharing.h — how users share the devices: the order of the queue and who may submit.
 * A queued job's rank is its priority, plus the priority its owner's quota gives
 * (user-quota priority=), plus one level per aging period waited, plus the fair share:
 * fairshare-weight x 2^(-U/S), with U the owner's share of everyone's usage decayed with
 * fairshare-halflife (device-seconds, running jobs included) and S the owner's share of
 * the users (1/N), as Slurm's multifactor priority does. A user at their device quota or
 * over their device-hours waits; the others go first. */
#ifndef FDWD_SHARING_H
#define FDWD_SHARING_H

#include "core/app.h"
#include "core/identity.h"
#include "store/waiting.h"

#include <stddef.h>
#include <stdint.h>

#define SHARING_MAX_WANTED 64

typedef struct sharing_job {
    int64_t id;
    char owner[128];
    int priority;              /* its own, -10..10 */
    int devices_requested;
    int wanted[SHARING_MAX_WANTED], nwanted;  /* device ids the spec names */
    double rank;
    uint64_t host_bytes, device_bytes;        /* its estimates (0: not recorded) */
} sharing_job;

/* The queued job that runs next: the highest rank among those whose owners are within
 * their quotas (ties: the oldest). The candidates ranked above it that their owners'
 * quotas hold back are noted in book (WAIT_QUOTA). Returns 1 (filled), 0 (no job may
 * run), -1 (error). */
int sharing_head(fdwd_app *app, int64_t aging_ms, sharing_job *out, waiting_book *book);

/* The rank of owner's job of priority that has waited no time: its priority, its owner's
 * quota priority and fair share (a queued job adds one level per aging period). */
double sharing_rank(fdwd_app *app, const char *owner, int priority);
/* The fair-share term of user now (0 .. fairshare-weight), cached for a few seconds. */
double sharing_fairshare(fdwd_app *app, const char *user);
/* Forget the cached usage (a run ended). */
void sharing_usage_changed(fdwd_app *app);

/* May who submit a job for `devices` devices now? 0: yes; else the HTTP status (400: it
 * can never run under the quota; 429: not now) with field and the reason naming the
 * figures. */
int sharing_admit(fdwd_app *app, const identity *who, int devices, char *field, size_t flen,
                  char *why, size_t len);

/* Set up app->sharing; once at start. Returns 0, or -1 (out of memory). */
int sharing_init(fdwd_app *app);

#endif
