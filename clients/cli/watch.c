/* watch.c — `fdwave watch ID` and the waiting part of `submit --wait`: follows a job's
 * Server-Sent Events stream, draws a progress bar on a terminal (progress_bar.h, shared
 * with fdwave-run) or prints one line per event, and reconnects with Last-Event-ID when
 * the connection drops, so no event is shown twice or missed. A job that goes back from
 * running to queued (fdwaved restarted under it) is said to be "re-queued after a
 * restart", and its old bar is dropped; the "end:" line is the last one on screen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "exit_codes.h"
#include "format.h"
#include "progress_bar.h"
#include "report.h"
#include "sse.h"

typedef struct watch_state {
    FILE *out;        /* NULL: silent */
    int bar, json;
    fdc_sse sse;
    int ended;
    int ran;          /* running, or progress seen since the last time it was queued */
    char end_state[32];
    int events_this_connection;
    long events_total;
    progress_bar pb;  /* a bar on a terminal, else plain progress lines */
} watch_state;

/* A number of the event, or fallback when it is absent. */
static double number_or(json_t *d, const char *key, double fallback)
{
    json_t *v = json_object_get(d, key);
    return json_is_number(v) ? json_number_value(v) : fallback;
}

static void show_progress(watch_state *w, json_t *d)
{
    const progress_report r = {
        .percent = number_or(d, "percent", 0),
        .step = (long)json_integer_value(json_object_get(d, "step")),
        .nsteps = (long)json_integer_value(json_object_get(d, "nsteps")),
        .mpts = number_or(d, "mpts", 0),
        .elapsed_s = number_or(d, "elapsed_s", -1),
        .eta_s = number_or(d, "eta_s", -1),
        .nshots = (int)number_or(d, "nshots", 0), /* a survey: "shots 3/12" */
        .shots_done = (int)number_or(d, "shots_done", 0),
        .shot = (int)number_or(d, "shot", 0)};
    progress_bar_show(&w->pb, &r);
}

/* One line of text for a non-progress event. */
static void show_line(watch_state *w, const char *type, json_t *d, const char *raw)
{
    char line[1024];
    const char *reason = json_string_value(json_object_get(d, "reason"));
    if (strcmp(type, "state") == 0 || strcmp(type, "end") == 0) {
        const char *st = json_string_value(json_object_get(d, "state"));
        snprintf(line, sizeof line, "%s: %s%s%s", type, st ? st : "?",
                 reason && *reason ? " (" : "", reason && *reason ? reason : "");
        if (reason && *reason)
            strncat(line, ")", sizeof line - strlen(line) - 1);
    } else if (strcmp(type, "snapshot") == 0) {
        int n = snprintf(line, sizeof line, "snapshot %lld: step %lld, t = %.4g s:",
                         (long long)json_integer_value(json_object_get(d, "index")),
                         (long long)json_integer_value(json_object_get(d, "step")),
                         json_number_value(json_object_get(d, "time")));
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(d, "files"), i, f)
        {
            const char *u = json_string_value(json_object_get(f, "url"));
            if (!u)
                u = json_string_value(json_object_get(f, "name"));
            if (u && n > 0 && (size_t)n < sizeof line)
                n += snprintf(line + n, sizeof line - (size_t)n, " %s", u);
        }
    } else if (strcmp(type, "warning") == 0) {
        const char *m = json_string_value(json_object_get(d, "message"));
        snprintf(line, sizeof line, "warning: %s", m ? m : raw);
    } else if (strcmp(type, "log") == 0) {
        /* "log LEVEL: MESSAGE", as the Python client prints it too. */
        const char *m = json_string_value(json_object_get(d, "message"));
        const char *lv = json_string_value(json_object_get(d, "level"));
        snprintf(line, sizeof line, "log %s: %s", lv ? lv : "info", m ? m : raw);
    } else {
        snprintf(line, sizeof line, "%s: %s", type, raw);
    }
    const char *state = strcmp(type, "state") == 0 ? json_string_value(json_object_get(d, "state"))
                                                   : NULL;
    const int requeued = state && w->ran && strcmp(state, "queued") == 0;
    if (state)
        w->ran = !requeued && (w->ran || strcmp(state, "running") == 0);
    if (strcmp(type, "end") == 0) {
        /* The last bar stays above the result, and nothing is drawn after it. */
        progress_bar_finish(&w->pb);
        fprintf(w->out, "%s\n", line);
        return;
    }
    if (requeued) {
        /* It runs again later, from its checkpoint or step 0: the old bar is history. */
        progress_bar_finish(&w->pb);
        fprintf(w->out, "%s\nre-queued after a restart: it resumes from its last checkpoint (from step 0 if it has none)\n",
                line);
        return;
    }
    progress_bar_hide(&w->pb);
    fprintf(w->out, "%s\n", line);
    progress_bar_redraw(&w->pb);
}

static int on_event(void *user, const char *id, const char *type, const char *data)
{
    watch_state *w = user;
    w->events_this_connection++;
    w->events_total++;
    json_t *d = json_loads(data, 0, NULL);
    if (strcmp(type, "end") == 0) {
        const char *st = json_string_value(json_object_get(d, "state"));
        snprintf(w->end_state, sizeof w->end_state, "%s", st ? st : "");
        w->ended = 1;
    }
    if (w->out && w->json) {
        json_t *o = json_pack("{s:s, s:s, s:O?}", "id", id, "event", type, "data", d);
        if (o && !d)
            json_object_set_new(o, "data", json_string(data));
        char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        if (s)
            fprintf(w->out, "%s\n", s);
        free(s);
        json_decref(o);
        fflush(w->out);
    } else if (w->out) {
        if (strcmp(type, "progress") == 0 && d) {
            w->ran = 1;
            show_progress(w, d);
        } else
            show_line(w, type, d, data);
        fflush(w->out);
    }
    json_decref(d);
    return w->ended;
}

static size_t sink(void *user, const char *d, size_t n)
{
    watch_state *w = user;
    fdc_sse_feed(&w->sse, d, n);
    return w->ended || w->sse.oom ? 0 : n;
}

int fdc_watch_job(const fdc_client *c, long id, FILE *out, int bar, int json, const char *since)
{
    watch_state w = {.out = out, .bar = bar && !json, .json = json};
    if (out)
        progress_bar_init(&w.pb, out, w.bar);
    fdc_sse_init(&w.sse, on_event, &w);
    if (since)
        snprintf(w.sse.last_id, sizeof w.sse.last_id, "%s", since);
    int failures = 0, rc = FDC_EXIT_OK;
    for (;;) {
        char path[64], idline[96];
        snprintf(path, sizeof path, "/v1/jobs/%ld/events", id);
        const char *hdrs[3] = {"Accept: text/event-stream", NULL, NULL};
        if (w.sse.last_id[0]) {
            snprintf(idline, sizeof idline, "Last-Event-ID: %s", w.sse.last_id);
            hdrs[1] = idline;
        }
        int dropped = 0;
        w.events_this_connection = 0;
        /* The server sends a keep-alive every 15 s; 45 s of silence means a dead link. */
        fdc_stream_opts o = {.extra_headers = hdrs, .sink = sink, .sink_user = &w,
                             .idle_timeout_s = 45, .quiet_transport = 1,
                             .transport_failed = &dropped};
        rc = fdc_stream(c, path, &o);
        if (w.ended || w.sse.oom)
            break;
        if (rc != FDC_EXIT_OK && !dropped)
            break; /* an HTTP error (404, 401...), already printed */
        /* The connection failed or closed before "end". If we never got through at all,
         * the server is down: say so at once rather than retrying for a minute. */
        if (w.events_total == 0 && dropped && failures == 0 && !w.sse.last_id[0]) {
            rc = fdc_fail_unreachable(c->url, "connection failed");
            break;
        }
        failures = w.events_this_connection ? 1 : failures + 1;
        if (failures > 10) {
            progress_bar_hide(&w.pb);
            rc = fdc_fail_unreachable(c->url, "event stream lost, gave up after 10 reconnects");
            break;
        }
        progress_bar_hide(&w.pb);
        fprintf(stderr, "connection lost; reconnecting (Last-Event-ID: %s)\n",
                w.sse.last_id[0] ? w.sse.last_id : "none");
        progress_bar_redraw(&w.pb);
        fdc_sse_reset(&w.sse);
        sleep(failures < 5 ? (unsigned)failures : 5u);
    }
    if (out)
        progress_bar_finish(&w.pb);
    int oom = w.sse.oom;
    fdc_sse_free(&w.sse);
    if (oom)
        return fdc_fail_local("out of memory reading the event stream");
    if (!w.ended)
        return rc ? rc : FDC_EXIT_SERVER;
    return fdc_exit_for_state(w.end_state);
}

int fdc_cmd_watch(const fdc_client *c, const fdc_args *a)
{
    if (a->npos != 1)
        return fdc_fail_synopsis("watch ID [--since EVENT_ID]");
    long id = fdc_parse_job_id(a->pos[0]);
    if (!id)
        return FDC_EXIT_USAGE;
    return fdc_watch_job(c, id, stdout, isatty(STDOUT_FILENO), c->json, a->since);
}
