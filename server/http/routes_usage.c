/* routes_usage.c — GET /v1/usage (accounting: device-seconds, wall time and peak memory of
 * the runs in a window, per user; a user sees their own, an admin anyone's or everyone's)
 * and GET /v1/users/me (who the token is, their quota, where they stand against it and
 * their fair-share term). */
#include "core/app.h"
#include "core/db.h"
#include "core/quota.h"
#include "http/routes.h"
#include "auth/sharing.h"
#include "store/usage.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A time for since / until: RFC 3339 UTC ("2026-11-22T10:00:00Z"), a date ("2026-11-22"),
 * or a span before now ("30d", "12h", "90m"). Returns 0 with *ms, or -1. */
static int parse_when(const char *v, int64_t now, int64_t *ms)
{
    size_t n = strlen(v);
    if (n >= 2 && n < 16 && isdigit((unsigned char)v[0]) && strchr("smhd", v[n - 1])) {
        char *end;
        long long x = strtoll(v, &end, 10);
        if (end != v + n - 1 || x < 0 || x > 100000000)
            return -1;
        const long long mul = v[n - 1] == 's' ? 1 : v[n - 1] == 'm' ? 60 : v[n - 1] == 'h' ? 3600 : 86400;
        *ms = now - x * mul * 1000;
        return 0;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *rest = strptime(v, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest) {
        memset(&tm, 0, sizeof tm);
        rest = strptime(v, "%Y-%m-%d", &tm);
    } else if (*rest == '.') { /* fractional seconds: whole seconds count */
        rest++;
        while (isdigit((unsigned char)*rest))
            rest++;
    }
    if (!rest || (*rest && strcmp(rest, "Z") != 0))
        return -1;
    *ms = (int64_t)timegm(&tm) * 1000;
    return 0;
}

enum MHD_Result route_usage(request *r)
{
    fdwd_app *app = r->app;
    const char *user = http_query(r, "user");
    if (user && !identity_valid_name(user))
        return reply_error(r, 400, "bad_request", "user", "user must be a user name");
    if (!r->who.admin && user && strcmp(user, r->who.user) != 0)
        return reply_error(r, 403, "forbidden", "user",
                           "only an admin may see another user's usage");
    if (!r->who.admin)
        user = r->who.user;
    const int64_t now = now_ms();
    int64_t since = now - 30LL * 86400 * 1000, until = now;
    const char *s = http_query(r, "since"), *u = http_query(r, "until");
    if (s && parse_when(s, now, &since))
        return reply_error(r, 400, "bad_request", "since",
                           "since must be a UTC time (2026-11-22T10:00:00Z or 2026-11-22) or a "
                           "span before now (30d, 12h, 90m)");
    if (u && parse_when(u, now, &until))
        return reply_error(r, 400, "bad_request", "until",
                           "until must be a UTC time (2026-11-22T10:00:00Z or 2026-11-22) or a "
                           "span before now (30d, 12h, 90m)");
    if (until <= since)
        return reply_error(r, 400, "bad_request", "until", "until must come after since");
    json_t *rep = usage_report(app, user, since, until);
    if (!rep)
        return reply_error(r, 500, "internal", NULL, "database error");
    return reply_json(r, 200, rep);
}

enum MHD_Result route_users_me(request *r)
{
    fdwd_app *app = r->app;
    const quota *q = quota_of(&app->quotas, r->who.user);
    long queued = 0;
    int running = 0;
    uint64_t disk = 0;
    if (usage_standing(app, r->who.user, &queued, &running, &disk) != 0)
        return reply_error(r, 503, "unavailable", NULL, "the database is not answering");
    json_t *standing = json_pack("{s:I, s:i, s:I}", "queued", (json_int_t)queued,
                                 "running_devices", running, "disk_bytes", (json_int_t)disk);
    if (q->device_hours >= 0) {
        const double used =
            usage_device_seconds(app, r->who.user, now_ms() - (int64_t)(q->period_s * 1000.0));
        json_object_set_new(standing, "device_hours", json_real(used > 0 ? used / 3600.0 : 0));
    }
    return reply_json(r, 200,
                      json_pack("{s:s, s:b, s:o, s:o, s:{s:f, s:f, s:f}}", "user", r->who.user,
                                "admin", r->who.admin, "quota", quota_json(q), "standing",
                                standing, "fair_share", "priority",
                                sharing_fairshare(app, r->who.user), "weight",
                                (double)app->cfg.fairshare_weight, "halflife_s",
                                (double)app->cfg.fairshare_halflife));
}
