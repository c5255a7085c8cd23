/* quota.c — per-user quotas (see quota.h). */
#include "core/quota.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const quota no_limits = {.user = "", .queued = -1, .devices = -1, .device_hours = -1};

static void unlimited(quota *q)
{
    *q = no_limits;
}

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* A value's n characters as a string in buf (32 bytes); -1 when empty or too long. errno
 * is cleared for the strto* call that follows. */
static int value_text(char buf[32], const char *t, size_t n)
{
    if (n == 0 || n >= 32)
        return -1;
    memcpy(buf, t, n);
    buf[n] = '\0';
    errno = 0;
    return 0;
}

/* "30d", "7d", "24h", "90m", "3600s", "3600" -> seconds; -1 when malformed. */
static double period_of(const char *t, size_t n)
{
    char buf[32], *end;
    if (value_text(buf, t, n))
        return -1;
    double v = strtod(buf, &end);
    if (end == buf || errno || !(v > 0) || !isfinite(v))
        return -1;
    double mul = 1;
    if (*end) {
        mul = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : *end == 'd' ? 86400 : -1;
        if (mul < 0 || end[1])
            return -1;
    }
    return v * mul;
}

/* "200G" -> bytes; 0 when malformed or zero. */
static uint64_t size_of(const char *t, size_t n)
{
    char buf[32], *end;
    if (value_text(buf, t, n))
        return 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (end == buf || errno || buf[0] == '-')
        return 0;
    unsigned long long mul = 1;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': mul = 1ull << 10; break;
    case 'M': mul = 1ull << 20; break;
    case 'G': mul = 1ull << 30; break;
    case 'T': mul = 1ull << 40; break;
    default: return 0;
    }
    if (*end && end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB"))
        return 0;
    return v > UINT64_MAX / mul ? 0 : v * mul;
}

/* A whole number in [lo, hi] -> *out; -1 when malformed or out of range. */
static int whole(const char *t, size_t n, long lo, long hi, long *out)
{
    char buf[32], *end;
    if (value_text(buf, t, n))
        return -1;
    long v = strtol(buf, &end, 10);
    if (end == buf || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Parse "[NAME:] key=value, ..." (named: the NAME part is required, else not allowed).
 * Keys: queued=N, devices=N, device-hours=H/PERIOD (PERIOD: 30d, 7d, 24h ...),
 * disk=SIZE (K/M/G/T), priority=P. Returns 0, or -1 with why. */
static int quota_parse(const char *text, int named, quota *q, char *why, size_t len)
{
    unlimited(q);
    const char *p = skip_space(text);
    const char *colon = strchr(p, ':');
    if (named) {
        size_t n = colon ? (size_t)(colon - p) : 0;
        while (n > 0 && isspace((unsigned char)p[n - 1]))
            n--;
        if (!colon || n == 0 || n >= sizeof q->user) {
            snprintf(why, len, "expected \"NAME: key=value, ...\", got \"%.100s\"", text);
            return -1;
        }
        memcpy(q->user, p, n);
        q->user[n] = '\0';
        p = colon + 1;
    } else if (colon && strchr(colon, '=') && strchr(p, '=') > colon) {
        snprintf(why, len, "default-quota takes \"key=value, ...\" without a user name");
        return -1;
    }
    int any = 0;
    while (*(p = skip_space(p))) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        if (!eq || eq > end) {
            snprintf(why, len, "expected key=value at \"%.60s\"", p);
            return -1;
        }
        size_t kl = (size_t)(eq - p);
        while (kl > 0 && isspace((unsigned char)p[kl - 1]))
            kl--;
        const char *v = skip_space(eq + 1);
        size_t vl = (size_t)(end - v);
        while (vl > 0 && isspace((unsigned char)v[vl - 1]))
            vl--;
        long n;
        if (kl == 6 && !strncmp(p, "queued", 6)) {
            if (whole(v, vl, 0, 100000000, &n)) {
                snprintf(why, len, "queued must be a whole number of jobs");
                return -1;
            }
            q->queued = n;
        } else if (kl == 7 && !strncmp(p, "devices", 7)) {
            if (whole(v, vl, 0, 4096, &n)) {
                snprintf(why, len, "devices must be a whole number from 0 to 4096");
                return -1;
            }
            q->devices = (int)n;
        } else if (kl == 12 && !strncmp(p, "device-hours", 12)) {
            const char *slash = memchr(v, '/', vl);
            char *e;
            errno = 0;
            double h = slash ? strtod(v, &e) : -1;
            q->period_s = slash ? period_of(slash + 1, vl - (size_t)(slash + 1 - v)) : -1;
            if (!slash || e != slash || errno || !(h >= 0) || !isfinite(h) || q->period_s <= 0) {
                snprintf(why, len, "device-hours must be HOURS/PERIOD, e.g. 500/30d or 20/24h");
                return -1;
            }
            q->device_hours = h;
        } else if (kl == 4 && !strncmp(p, "disk", 4)) {
            q->disk = size_of(v, vl);
            if (!q->disk) {
                snprintf(why, len, "disk must be a positive size such as 200G");
                return -1;
            }
        } else if (kl == 8 && !strncmp(p, "priority", 8)) {
            if (whole(v, vl, -10, 10, &n)) {
                snprintf(why, len, "priority must be a whole number from -10 to 10");
                return -1;
            }
            q->priority = (int)n;
        } else {
            snprintf(why, len, "unknown quota key \"%.*s\" (known: queued, devices, "
                     "device-hours, disk, priority)", (int)(kl > 40 ? 40 : kl), p);
            return -1;
        }
        any = 1;
        p = comma ? comma + 1 : end;
    }
    if (!any) {
        snprintf(why, len, "no quota given (keys: queued, devices, device-hours, disk, priority)");
        return -1;
    }
    return 0;
}

int quota_check(const char *text, int named, char *why, size_t len)
{
    quota q;
    return quota_parse(text, named, &q, why, len);
}

int quota_init(quota_table *t, const char *default_text, const char *const *lines, int n,
               char *why, size_t len)
{
    t->n = 0;
    unlimited(&t->fallback);
    if (default_text[0] && quota_parse(default_text, 0, &t->fallback, why, len))
        return -1;
    for (int i = 0; i < n && i < QUOTA_MAX_USERS; i++) {
        quota *q = &t->users[t->n];
        if (quota_parse(lines[i], 1, q, why, len))
            return -1;
        for (int k = 0; k < t->n; k++)
            if (strcmp(t->users[k].user, q->user) == 0) {
                snprintf(why, len, "user-quota: user \"%s\" has two lines", q->user);
                return -1;
            }
        t->n++;
    }
    return 0;
}

const quota *quota_of(const quota_table *t, const char *user)
{
    for (int i = 0; user && i < t->n; i++)
        if (strcmp(t->users[i].user, user) == 0)
            return &t->users[i];
    return &t->fallback;
}

json_t *quota_json(const quota *q)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i}", "queued",
                     q->queued >= 0 ? json_integer(q->queued) : json_null(), "devices",
                     q->devices >= 0 ? json_integer(q->devices) : json_null(), "device_hours",
                     q->device_hours >= 0 ? json_real(q->device_hours) : json_null(),
                     "period_s", q->device_hours >= 0 ? json_real(q->period_s) : json_null(),
                     "disk_bytes", q->disk ? json_integer((json_int_t)q->disk) : json_null(),
                     "priority", q->priority);
}
