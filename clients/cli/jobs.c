/* jobs.c — the job commands of the fdwave CLI: submit (optionally waiting for the end),
 * list, status and cancel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "commands.h"
#include "exit_codes.h"
#include "format.h"
#include "local_models.h"
#include "progress_bar.h"
#include "report.h"

long fdc_parse_job_id(const char *s)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v <= 0) {
        fdc_fail_usage("job id must be a positive integer, got '%s'", s ? s : "");
        return 0;
    }
    return v;
}

int fdc_exit_for_state(const char *state)
{
    if (!state)
        return FDC_EXIT_SERVER;
    if (strcmp(state, "succeeded") == 0)
        return FDC_EXIT_OK;
    if (strcmp(state, "failed") == 0)
        return FDC_EXIT_JOB_FAILED;
    if (strcmp(state, "cancelled") == 0)
        return FDC_EXIT_CANCELLED;
    return FDC_EXIT_SERVER;
}

/* Reads a whole file ("-" = stdin) into a NUL-terminated buffer. */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0;
    char *b = malloc(cap);
    while (b) {
        size_t r = fread(b + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
        if (n + 1 == cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!b || bad) {
        free(b);
        return NULL;
    }
    b[n] = '\0';
    *len = n;
    return b;
}

static void print_warnings(const json_t *job)
{
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(job, "warnings"), i, w)
    {
        if (json_is_string(w))
            fprintf(stderr, "warning: %s\n", json_string_value(w));
    }
}

/* GETs /v1/jobs/ID into resp. */
static int get_job(const fdc_client *c, long id, fdc_response *resp)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    return fdc_call(c, "GET", path, NULL, NULL, 0, NULL, resp);
}

int fdc_cmd_submit(const fdc_client *c, const fdc_args *a)
{
    if (a->npos != 1)
        return fdc_fail_synopsis("submit JOB.json [--wait] [--priority N] [--idempotency-key K] "
                                 "[--upload-models]");
    char path[96] = "/v1/jobs";
    if (a->priority) {
        char *end;
        errno = 0;
        long p = strtol(a->priority, &end, 10);
        if (!*a->priority || *end || errno)
            return fdc_fail_usage("--priority must be an integer, got '%s'", a->priority);
        snprintf(path, sizeof path, "/v1/jobs?priority=%ld", p);
    }
    size_t len;
    char *spec = read_all(a->pos[0], &len);
    if (!spec)
        return fdc_fail_local("cannot read %s: %s", a->pos[0], strerror(errno));
    char keyline[512];
    const char *hdrs[2] = {NULL, NULL};
    if (a->idempotency_key) {
        snprintf(keyline, sizeof keyline, "Idempotency-Key: %s", a->idempotency_key);
        hdrs[0] = keyline;
    }
    fdc_local_model local;
    const int has_local = fdc_local_model_find(spec, len, a->pos[0], &local);
    if (has_local && a->upload_models) {
        char *named;
        int urc = fdc_local_model_upload(c, &local, spec, len, &named, &len);
        free(spec);
        if (urc)
            return urc;
        spec = named;
    }
    fdc_response r;
    int rc = fdc_call(c, "POST", path, "application/json", spec, len, hdrs, &r);
    free(spec);
    if (rc == FDC_EXIT_BAD_REQUEST && has_local && !c->json &&
        !strcmp(fdc_last_error_field(), "velocity.path"))
        fdc_local_model_hint(&local);
    if (rc)
        return rc;
    /* 200: the server's answer for an Idempotency-Key already used with this spec. */
    const int again = r.status == 200;
    json_int_t id = json_integer_value(json_object_get(r.json, "id"));
    if (id <= 0) {
        rc = fdc_fail_answer("the server's answer has no job id: %.200s", r.body);
        fdc_response_free(&r);
        return rc;
    }
    if (!a->wait) {
        /* With --wait the warnings arrive again as events; print them once. */
        print_warnings(r.json);
        if (c->json) {
            fdc_print_json(r.json);
        } else {
            char pos[32];
            fdc_fmt_value(pos, sizeof pos, json_object_get(r.json, "queue_position"));
            const char *st = json_string_value(json_object_get(r.json, "state"));
            if (again && !json_is_integer(json_object_get(r.json, "queue_position")))
                printf("already submitted as job %lld (%s)\n", (long long)id, st ? st : "?");
            else if (again)
                printf("already submitted as job %lld (%s, queue position %s)\n",
                       (long long)id, st ? st : "?", pos);
            else
                printf("job %lld submitted (%s, queue position %s)\n", (long long)id,
                       st ? st : "queued", pos);
        }
        fdc_response_free(&r);
        return FDC_EXIT_OK;
    }
    fdc_response_free(&r);
    if (!c->json)
        fprintf(stderr, "%s %lld%s; waiting for it to finish\n",
                again ? "already submitted as job" : "job", (long long)id,
                again ? "" : " submitted");
    /* Progress goes to stderr (a bar on a terminal); the result goes to stdout. */
    FILE *progress = c->json ? NULL : stderr;
    rc = fdc_watch_job(c, (long)id, progress, isatty(STDERR_FILENO), 0, NULL);
    if (rc != FDC_EXIT_OK && rc != FDC_EXIT_JOB_FAILED && rc != FDC_EXIT_CANCELLED)
        return rc;
    fdc_response j;
    int grc = get_job(c, (long)id, &j);
    if (grc)
        return grc;
    if (c->json) {
        fdc_print_json(j.json);
    } else {
        const char *st = json_string_value(json_object_get(j.json, "state"));
        const char *reason = json_string_value(json_object_get(j.json, "reason"));
        printf("job %lld %s%s%s\n", (long long)id, st ? st : "?", reason && *reason ? ": " : "",
               reason && *reason ? reason : "");
    }
    fdc_response_free(&j);
    return rc;
}

/* Appends "&key=value" (the first with '?') to path, value percent-encoded. */
static int add_query(char *path, size_t cap, const char *key, const char *value)
{
    char *esc = curl_easy_escape(NULL, value, 0);
    if (!esc)
        return -1;
    size_t n = strlen(path);
    int w = snprintf(path + n, cap - n, "%c%s=%s", strchr(path, '?') ? '&' : '?', key, esc);
    curl_free(esc);
    return w < 0 || (size_t)w >= cap - n ? -1 : 0;
}

int fdc_cmd_list(const fdc_client *c, const fdc_args *a)
{
    if (a->npos != 0)
        return fdc_fail_synopsis("list [--state S] [--name TEXT] [--limit N] [--before ID]");
    char path[1024] = "/v1/jobs";
    if (a->state) {
        static const char *ok[] = {"queued", "running", "succeeded", "failed", "cancelled"};
        int good = 0;
        for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
            good |= strcmp(a->state, ok[i]) == 0;
        if (!good)
            return fdc_fail_usage("--state must be queued, running, succeeded, failed or "
                                  "cancelled, got '%s'", a->state);
        add_query(path, sizeof path, "state", a->state);
    }
    if (a->name) {
        if (!*a->name || strlen(a->name) > 200)
            return fdc_fail_usage("--name must be 1 to 200 characters");
        add_query(path, sizeof path, "name", a->name);
    }
    if (a->limit) {
        char *end;
        long l = strtol(a->limit, &end, 10);
        if (!*a->limit || *end || l < 1 || l > 500)
            return fdc_fail_usage("--limit must be an integer 1..500, got '%s'", a->limit);
        add_query(path, sizeof path, "limit", a->limit);
    }
    if (a->before) {
        char *end;
        errno = 0;
        long long b = strtoll(a->before, &end, 10);
        if (!*a->before || *end || errno || b < 1)
            return fdc_fail_usage("--before must be a positive job id, got '%s'", a->before);
        add_query(path, sizeof path, "before", a->before);
    }
    fdc_response r;
    int rc = fdc_call(c, "GET", path, NULL, NULL, 0, NULL, &r);
    if (rc)
        return rc;
    json_t *jobs = json_object_get(r.json, "jobs");
    if (!json_is_array(jobs)) {
        rc = fdc_fail_answer("unexpected answer from the server: %.200s", r.body);
        fdc_response_free(&r);
        return rc;
    }
    if (c->json) {
        fdc_print_json(r.json);
        fdc_response_free(&r);
        return FDC_EXIT_OK;
    }
    fdc_table t;
    fdc_table_init(&t, 6);
    const char *head[] = {"ID", "STATE", "PRIO", "PROGRESS", "CREATED", "NAME"};
    fdc_table_add(&t, head);
    size_t i;
    json_t *j;
    json_int_t last = 0;
    json_array_foreach(jobs, i, j)
    {
        char id[32], st[32], prio[16], created[40], name[128], pct[16] = "-";
        fdc_fmt_value(id, sizeof id, json_object_get(j, "id"));
        fdc_fmt_value(st, sizeof st, json_object_get(j, "state"));
        fdc_fmt_value(prio, sizeof prio, json_object_get(j, "priority"));
        fdc_fmt_value(created, sizeof created, json_object_get(j, "created_at"));
        fdc_fmt_value(name, sizeof name, json_object_get(j, "name"));
        json_t *p = json_object_get(json_object_get(j, "progress"), "percent");
        if (json_is_number(p))
            snprintf(pct, sizeof pct, "%.1f%%", json_number_value(p));
        else if (strcmp(st, "succeeded") == 0)
            snprintf(pct, sizeof pct, "100.0%%");
        const char *row[] = {id, st, prio, pct, created, name};
        fdc_table_add(&t, row);
        last = json_integer_value(json_object_get(j, "id"));
    }
    fdc_table_print(&t, "rlrrll");
    fdc_table_free(&t);
    if (json_is_string(json_object_get(r.json, "next")) && last > 0)
        printf("(more: the next page is list --before %lld)\n", (long long)last);
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}

static void row(const char *k, const json_t *v)
{
    char s[512];
    fdc_fmt_value(s, sizeof s, v);
    printf("  %-13s %s\n", k, s);
}

int fdc_cmd_status(const fdc_client *c, const fdc_args *a)
{
    if (a->npos != 1)
        return fdc_fail_synopsis("status ID");
    long id = fdc_parse_job_id(a->pos[0]);
    if (!id)
        return FDC_EXIT_USAGE;
    fdc_response r;
    int rc = get_job(c, id, &r);
    if (rc)
        return rc;
    json_t *j = r.json;
    if (c->json) {
        fdc_print_json(j);
        fdc_response_free(&r);
        return FDC_EXIT_OK;
    }
    char st[32];
    fdc_fmt_value(st, sizeof st, json_object_get(j, "state"));
    printf("job %ld: %s\n", id, st);
    row("name:", json_object_get(j, "name"));
    row("owner:", json_object_get(j, "owner"));
    row("kind:", json_object_get(j, "kind"));
    json_t *model = json_object_get(j, "model");
    if (json_is_object(model)) {
        const char *mn = json_string_value(json_object_get(model, "name"));
        const char *ms = json_string_value(json_object_get(model, "sha256"));
        printf("  %-13s %s (sha256 %s)\n", "model:", mn ? mn : "?", ms ? ms : "not recorded");
    }
    size_t di;
    json_t *d;
    json_array_foreach(json_object_get(j, "data"), di, d) /* uploads it reads (imaging) */
        printf("  %-13s %s (sha256 %s)\n", "data:",
               json_string_value(json_object_get(d, "name")),
               json_string_value(json_object_get(d, "sha256")));
    row("reason:", json_object_get(j, "reason"));
    row("priority:", json_object_get(j, "priority"));
    row("attempts:", json_object_get(j, "attempts"));
    row("devices:", json_object_get(j, "devices_requested"));
    row("assigned:", json_object_get(j, "devices"));
    row("queue pos:", json_object_get(j, "queue_position"));
    row("created:", json_object_get(j, "created_at"));
    row("started:", json_object_get(j, "started_at"));
    row("finished:", json_object_get(j, "finished_at"));
    json_t *p = json_object_get(j, "progress");
    if (json_is_object(p)) {
        char rate[32], eta[32];
        progress_fmt_rate(rate, sizeof rate, json_number_value(json_object_get(p, "mpts")));
        json_t *e = json_object_get(p, "eta_s");
        progress_fmt_time(eta, sizeof eta, json_is_number(e) ? json_number_value(e) : -1);
        char shots[64] = ""; /* a survey: "shots 3/12, shot 4: " */
        if (json_is_integer(json_object_get(p, "nshots"))) {
            const long long shot = json_integer_value(json_object_get(p, "shot"));
            snprintf(shots, sizeof shots, "shots %lld/%lld%s", (long long)json_integer_value(
                         json_object_get(p, "shots_done")),
                     (long long)json_integer_value(json_object_get(p, "nshots")),
                     shot > 0 ? ", shot " : ", ");
            if (shot > 0)
                snprintf(shots + strlen(shots), sizeof shots - strlen(shots), "%lld: ", shot);
        }
        printf("  %-13s %.1f%% (%sstep %lld/%lld, %s, ETA %s)\n", "progress:",
               json_number_value(json_object_get(p, "percent")), shots,
               (long long)json_integer_value(json_object_get(p, "step")),
               (long long)json_integer_value(json_object_get(p, "nsteps")), rate, eta);
    }
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(j, "warnings"), i, w)
        row("warning:", w);
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}

int fdc_cmd_cancel(const fdc_client *c, const fdc_args *a)
{
    if (a->npos != 1)
        return fdc_fail_synopsis("cancel ID");
    long id = fdc_parse_job_id(a->pos[0]);
    if (!id)
        return FDC_EXIT_USAGE;
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/cancel", id);
    fdc_response r;
    int rc = fdc_call(c, "POST", path, NULL, NULL, 0, NULL, &r);
    if (rc)
        return rc;
    if (c->json) {
        fdc_print_json(r.json);
    } else if (r.status == 202) {
        printf("job %ld: cancel requested; it stops within about a second\n", id);
    } else {
        char st[32];
        fdc_fmt_value(st, sizeof st, json_object_get(r.json, "state"));
        printf("job %ld: %s\n", id, st);
    }
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}
