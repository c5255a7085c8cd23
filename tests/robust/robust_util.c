/* robust_util.c — see robust_util.h. */
#include "robust_util.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char g_auth[256];

/* The Authorization header as a NULL-terminated list (NULL when no token is set). */
static const char *const *auth_headers(void)
{
    static const char *h[2];
    h[0] = g_auth;
    h[1] = NULL;
    return g_auth[0] ? h : NULL;
}

void robust_as(const char *token)
{
    if (token)
        snprintf(g_auth, sizeof g_auth, "Authorization: Bearer %s", token);
    else
        g_auth[0] = '\0';
}

json_t *get_json(const daemon_proc *d, const char *path)
{
    http_resp r;
    json_t *j = NULL;
    if (http(d, "GET", path, auth_headers(), NULL, 0, &r) == 0 && r.status == 200)
        j = http_json(&r);
    http_free(&r);
    return j;
}

int runner_pids(const daemon_proc *d, pid_t *out, int cap)
{
    char path[128];
    int n = 0;
    snprintf(path, sizeof path, "/proc/%d/task", (int)d->pid);
    DIR *dir = opendir(path);
    if (!dir)
        return 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < cap) {
        if (e->d_name[0] == '.')
            continue;
        char cp[400];
        snprintf(cp, sizeof cp, "%s/%s/children", path, e->d_name);
        FILE *f = fopen(cp, "r");
        long pid;
        while (f && n < cap && fscanf(f, "%ld", &pid) == 1)
            out[n++] = (pid_t)pid;
        if (f)
            fclose(f);
    }
    closedir(dir);
    return n;
}

pid_t wait_runner(const daemon_proc *d, double timeout_s)
{
    for (int i = 0; i < (int)(timeout_s * 50); i++) {
        pid_t p[8];
        if (runner_pids(d, p, 8) > 0)
            return p[0];
        usleep(20000);
    }
    return 0;
}

json_t *job_get(const daemon_proc *d, long id)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    return get_json(d, path);
}

void job_text(const daemon_proc *d, long id, const char *key, char *out, size_t cap)
{
    json_t *j = job_get(d, id);
    const char *s = json_string_value(json_object_get(j, key));
    snprintf(out, cap, "%s", s ? s : "");
    json_decref(j);
}

int wait_step(const daemon_proc *d, long id, long step, double timeout_s)
{
    for (int i = 0; i < (int)(timeout_s * 20); i++) {
        json_t *j = job_get(d, id);
        json_t *p = json_object_get(j, "progress");
        const int ok = j && !strcmp(json_string_value(json_object_get(j, "state")), "running") &&
                       json_integer_value(json_object_get(p, "step")) >= step;
        json_decref(j);
        if (ok)
            return 1;
        usleep(50000);
    }
    return 0;
}

int wait_attempt(const daemon_proc *d, long id, long attempt, double timeout_s)
{
    for (int i = 0; i < (int)(timeout_s * 20); i++) {
        json_t *j = job_get(d, id);
        const char *st = json_string_value(json_object_get(j, "state"));
        const int ok = st && !strcmp(st, "running") &&
                       json_integer_value(json_object_get(j, "attempts")) >= attempt;
        json_decref(j);
        if (ok)
            return 1;
        usleep(50000);
    }
    return 0;
}

int wait_state(const daemon_proc *d, long id, const char *state, double timeout_s)
{
    char s[32];
    for (int i = 0; i < (int)(timeout_s * 20); i++) {
        job_text(d, id, "state", s, sizeof s);
        if (!strcmp(s, state))
            return 1;
        usleep(50000);
    }
    return 0;
}

long job_cancel(const daemon_proc *d, long id)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/cancel", id);
    http_resp r;
    long status = http(d, "POST", path, auth_headers(), NULL, 0, &r) == 0 ? r.status : 0;
    http_free(&r);
    return status;
}

char *job_events(const daemon_proc *d, long id)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", id);
    http_resp r;
    if (http(d, "GET", path, auth_headers(), NULL, 0, &r) != 0) {
        http_free(&r);
        return strdup("");
    }
    return r.body; /* taken over */
}

void job_out_dir(const daemon_proc *d, long id, char *out, size_t cap)
{
    snprintf(out, cap, "%s/jobs/%ld/out", d->data, id);
}

long submit_expect(const daemon_proc *d, const char *spec, long status)
{
    long st = 0;
    long id = submit(d, spec, auth_headers(), &st);
    ck_assert_msg(st == status, "submit: HTTP %ld, expected %ld", st, status);
    return st / 100 == 2 ? id : -1;
}

void named_spec(char *buf, size_t cap, const char *name, int n, int nt, int snap, int devices)
{
    char tmp[4096];
    small_spec(tmp, sizeof tmp, n, nt, snap, devices);
    const char *at = strstr(tmp, "\"name\":\"");
    const char *end = at ? strchr(at + 8, '"') : NULL;
    if (!end) {
        snprintf(buf, cap, "%s", tmp);
        return;
    }
    snprintf(buf, cap, "%.*s\"name\":\"%s\"%s", (int)(at - tmp), tmp, name, end + 1);
}

int robust_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
