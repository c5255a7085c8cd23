/* quota.h — per-user quotas from the config file (user-quota, default-quota): queued jobs,
 * devices running at once, device-hours per period, disk held by outputs, and a priority
 * an admin gives a user's jobs. Parsed and checked at start-up; read by submission
 * (routes_jobs.c, 429 beyond a limit), the scheduler (sharing.c: a user at their device
 * or device-hour limit waits, others go first) and GET /v1/users/me. */
#ifndef FDWD_QUOTA_H
#define FDWD_QUOTA_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct quota {
    char user[128];            /* "" for the default */
    long queued;               /* jobs queued at once; -1: no limit */
    int devices;               /* devices running at once; -1: no limit */
    double device_hours;       /* device-hours per period; -1: no limit */
    double period_s;           /* the period of device_hours (seconds) */
    uint64_t disk;             /* bytes of outputs kept; 0: no limit */
    int priority;              /* added to the rank of the user's jobs (-10..10) */
} quota;

/* Most user-quota lines (config.h's CFG_MAX_QUOTAS). */
#define QUOTA_MAX_USERS 256

/* The configured quotas: one per named user and the default (no limits when none). */
typedef struct quota_table {
    int n;
    quota users[QUOTA_MAX_USERS];
    quota fallback;
} quota_table;

/* Whether text parses (the config's check). */
int quota_check(const char *text, int named, char *why, size_t len);

/* Fill t from the default-quota text ("" for none) and the user-quota lines. Returns 0,
 * or -1 with why (a line that does not parse, a user named twice). */
int quota_init(quota_table *t, const char *default_text, const char *const *lines, int n,
               char *why, size_t len);
/* user's quota: their line, else the default-quota, else no limits. */
const quota *quota_of(const quota_table *t, const char *user);
/* JSON of a quota: {"queued": N|null, "devices": ..., "device_hours": ..., "period_s":
 * ..., "disk_bytes": ..., "priority": P}; null means no limit. */
json_t *quota_json(const quota *q);

#endif
