/* test_api.c — the HTTP API end to end against a real fdwaved (CPU backend, 4 virtual
 * devices): submit -> follow the SSE stream to its end -> manifest, PNG, SEG-Y gather;
 * Last-Event-ID replay; cancelling queued and running jobs; model uploads (with the
 * facts recorded at upload, and invalid models refused); every kind of
 * bad request with its status and JSON error; Range requests; system endpoints; the
 * POST answer against the job read back; many watchers of one job under a slow paced
 * fan-out (--sse-wake-rate) each getting the whole event sequence. */
#include "harness.h"

#include <check.h>
#include <curl/curl.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static daemon_proc D;

static void setup(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    harness_tmpdir(D.data, sizeof D.data);
    const char *extra[] = {"--max-body", "65536", "--log-level", "debug", "--sse-keepalive", "2",
                           NULL};
    if (harness_start(&D, extra) != 0) {
        fprintf(stderr, "fdwaved did not start; log in %s\n", D.log);
        abort();
    }
}

static void teardown(void)
{
    int rc = harness_stop(&D);
    if (rc != 0)
        fprintf(stderr, "fdwaved exited with %d\n", rc);
    harness_rmtree(D.data);
}

/* Expect status and an error object with code (and field when non-NULL). */
static void expect_error(http_resp *r, long status, const char *code, const char *field)
{
    ck_assert_msg(r->status == status, "expected %ld, got %ld: %s", status, r->status, r->body);
    json_t *j = http_json(r);
    ck_assert_msg(j != NULL, "error body is not JSON: %s", r->body);
    json_t *e = json_object_get(j, "error");
    ck_assert_str_eq(json_string_value(json_object_get(e, "code")), code);
    ck_assert(json_string_length(json_object_get(e, "message")) > 0);
    ck_assert(json_object_get(e, "field") != NULL);
    if (field)
        ck_assert_str_eq(json_string_value(json_object_get(e, "field")), field);
    json_decref(j);
}

typedef struct sse_event {
    long id;
    char type[32];
    char data[8192];
} sse_event;

/* Parse an SSE body into events (comments skipped). Returns the count. */
static int parse_sse(const char *body, sse_event *ev, int max)
{
    int n = 0;
    const char *p = body;
    sse_event cur = {0};
    int have = 0;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len == 0) {
            if (have && n < max)
                ev[n++] = cur;
            memset(&cur, 0, sizeof cur);
            have = 0;
        } else if (!strncmp(p, "id: ", 4)) {
            cur.id = atol(p + 4);
            have = 1;
        } else if (!strncmp(p, "event: ", 7)) {
            snprintf(cur.type, sizeof cur.type, "%.*s", (int)len - 7, p + 7);
        } else if (!strncmp(p, "data: ", 6)) {
            snprintf(cur.data, sizeof cur.data, "%.*s", (int)len - 6, p + 6);
        }
        p += len + (eol ? 1 : 0);
    }
    return n;
}

static long ran_job; /* a finished job shared by the replay test */

START_TEST(submit_follow_fetch)
{
    char spec[4096];
    small_spec(spec, sizeof spec, 32, 60, 20, 1);
    const char *h[] = {"Content-Type: application/json", NULL};
    http_resp r;
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", h, spec, strlen(spec), &r), 0);
    ck_assert_msg(r.status == 201, "POST gave %ld: %s", r.status, r.body);
    json_t *j = http_json(&r);
    long id = (long)json_integer_value(json_object_get(j, "id"));
    ck_assert(id > 0);
    ck_assert_str_eq(json_string_value(json_object_get(j, "state")), "queued");
    ck_assert(json_is_integer(json_object_get(j, "queue_position")));
    ck_assert(json_is_array(json_object_get(j, "warnings")));
    char want[64], loc[128];
    snprintf(want, sizeof want, "/v1/jobs/%ld/events", id);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "links"), "events")),
                     want);
    ck_assert_int_eq(header_value(&r, "Location", loc, sizeof loc), 0);
    snprintf(want, sizeof want, "/v1/jobs/%ld", id);
    ck_assert_str_eq(loc, want);
    json_decref(j);
    http_free(&r);

    /* Follow the stream to its end: the server closes it after "end". */
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", id);
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    char ct[128];
    ck_assert_int_eq(header_value(&r, "Content-Type", ct, sizeof ct), 0);
    ck_assert_str_eq(ct, "text/event-stream");
    static sse_event ev[512];
    int n = parse_sse(r.body, ev, 512);
    http_free(&r);
    ck_assert(n >= 5);
    ck_assert_str_eq(ev[0].type, "state");
    ck_assert(strstr(ev[0].data, "\"queued\""));
    ck_assert_str_eq(ev[n - 1].type, "end");
    ck_assert_msg(strstr(ev[n - 1].data, "\"succeeded\""), "end: %s", ev[n - 1].data);
    int saw_running = 0, saw_progress = 0, snapshots = 0;
    char png[256] = "";
    for (int i = 0; i < n; i++) {
        if (i)
            ck_assert_msg(ev[i].id > ev[i - 1].id, "event ids must increase");
        json_t *d = json_loads(ev[i].data, 0, NULL);
        ck_assert_msg(d != NULL, "event data is not JSON: %s", ev[i].data);
        if (!strcmp(ev[i].type, "state") && strstr(ev[i].data, "\"running\""))
            saw_running = 1;
        if (!strcmp(ev[i].type, "progress")) {
            ck_assert(saw_running);
            ck_assert(json_is_number(json_object_get(d, "percent")));
            ck_assert(json_is_number(json_object_get(d, "mpts")));
            ck_assert(json_is_number(json_object_get(d, "eta_s")));
            ck_assert(json_integer_value(json_object_get(d, "nsteps")) == 60);
            saw_progress = 1;
        }
        if (!strcmp(ev[i].type, "snapshot")) {
            snapshots++;
            size_t k;
            json_t *f;
            json_array_foreach(json_object_get(d, "files"), k, f) {
                const char *url = json_string_value(json_object_get(f, "url"));
                ck_assert(url && !strncmp(url, path, strlen(path) - 6));
                if (!strcmp(json_string_value(json_object_get(f, "format")), "png"))
                    snprintf(png, sizeof png, "%s", url);
            }
        }
        json_decref(d);
    }
    ck_assert(saw_running && saw_progress);
    ck_assert_int_eq(snapshots, 3);
    ck_assert(png[0]);

    /* The PNG: signature and the slice's size (32 x 32) in IHDR. */
    ck_assert_int_eq(http(&D, "GET", png, NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_int_eq(header_value(&r, "Content-Type", ct, sizeof ct), 0);
    ck_assert_str_eq(ct, "image/png");
    ck_assert(r.len > 33);
    ck_assert(!memcmp(r.body, "\x89PNG\r\n\x1a\n", 8));
    const unsigned char *ih = (const unsigned char *)r.body + 16;
    ck_assert_int_eq((ih[0] << 24) | (ih[1] << 16) | (ih[2] << 8) | ih[3], 32);
    ck_assert_int_eq((ih[4] << 24) | (ih[5] << 16) | (ih[6] << 8) | ih[7], 32);
    http_free(&r);

    /* The manifest, with a url on each file, and the SEG-Y gather it lists. */
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs", id);
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    j = http_json(&r);
    http_free(&r);
    size_t k;
    json_t *f;
    char segy[256] = "";
    json_array_foreach(json_object_get(j, "files"), k, f) {
        ck_assert(json_string_value(json_object_get(f, "url")) != NULL);
        if (!strcmp(json_string_value(json_object_get(f, "format")), "segy"))
            snprintf(segy, sizeof segy, "%s", json_string_value(json_object_get(f, "url")));
    }
    json_decref(j);
    ck_assert_msg(segy[0], "the manifest lists no SEG-Y gather");
    ck_assert_int_eq(http(&D, "GET", segy, NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_int_eq(header_value(&r, "Content-Type", ct, sizeof ct), 0);
    ck_assert_str_eq(ct, "application/octet-stream");
    /* 3200-byte text + 400-byte binary header; 5 traces of 240 + 4*ns bytes. */
    ck_assert(r.len > 3600);
    const unsigned char *bh = (const unsigned char *)r.body + 3200;
    int ns = (bh[20] << 8) | bh[21];
    ck_assert_msg(ns >= 60, "samples per trace %d", ns);
    ck_assert_uint_eq(r.len, 3600 + 5 * (240 + 4 * (size_t)ns));
    http_free(&r);

    /* Job record: succeeded with a reason, timestamps, attempts 1. */
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    j = http_json(&r);
    http_free(&r);
    ck_assert_str_eq(json_string_value(json_object_get(j, "state")), "succeeded");
    ck_assert(json_string_length(json_object_get(j, "reason")) > 0);
    ck_assert(json_is_string(json_object_get(j, "finished_at")));
    ck_assert_int_eq(json_integer_value(json_object_get(j, "attempts")), 1);
    ck_assert(json_is_null(json_object_get(j, "queue_position")));
    ck_assert(json_is_object(json_object_get(j, "spec")));
    json_decref(j);
}
END_TEST

/* A finished job's events, as text and parsed. */
static int all_events(long id, sse_event *ev, int max)
{
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", id);
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    int n = parse_sse(r.body, ev, max);
    http_free(&r);
    return n;
}

START_TEST(last_event_id_replay)
{
    char spec[4096];
    small_spec(spec, sizeof spec, 24, 40, 10, 1);
    long status;
    ran_job = submit(&D, spec, NULL, &status);
    ck_assert_int_eq(status, 201);
    ck_assert_str_eq(wait_done(&D, ran_job, 60, NULL), "succeeded");
    static sse_event all[512], part[512];
    int n = all_events(ran_job, all, 512);
    ck_assert(n >= 6);
    for (int cut = 1; cut < n; cut += n / 4 + 1) {
        char hdr[64], path[128];
        snprintf(hdr, sizeof hdr, "Last-Event-ID: %ld", all[cut - 1].id);
        const char *h[] = {hdr, NULL};
        snprintf(path, sizeof path, "/v1/jobs/%ld/events", ran_job);
        http_resp r;
        ck_assert_int_eq(http(&D, "GET", path, h, NULL, 0, &r), 0);
        int m = parse_sse(r.body, part, 512);
        http_free(&r);
        ck_assert_int_eq(m, n - cut);
        for (int i = 0; i < m; i++) {
            ck_assert_int_eq(part[i].id, all[cut + i].id);
            ck_assert_str_eq(part[i].type, all[cut + i].type);
            ck_assert_str_eq(part[i].data, all[cut + i].data);
        }
        /* ?since= gives the same. */
        snprintf(path, sizeof path, "/v1/jobs/%ld/events?since=%ld", ran_job, all[cut - 1].id);
        ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
        ck_assert_int_eq(parse_sse(r.body, part, 512), n - cut);
        ck_assert_int_eq(part[0].id, all[cut].id);
        http_free(&r);
    }
    /* Resuming after the end event: nothing to replay, and the stream closes at once. */
    http_resp r;
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events?since=%ld", ran_job, all[n - 1].id);
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_int_eq(parse_sse(r.body, part, 512), 0);
    http_free(&r);
    snprintf(path, sizeof path, "/v1/jobs/%ld/events?since=abc", ran_job);
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    expect_error(&r, 400, "bad_request", "since");
    http_free(&r);
}
END_TEST

START_TEST(live_stream_sees_new_events)
{
    /* Connect to a job's stream before it runs: the watcher gets every event live. */
    char spec[4096];
    small_spec(spec, sizeof spec, 24, 30, 10, 4); /* 4 devices: waits for a free machine */
    long status;
    long id = submit(&D, spec, NULL, &status);
    ck_assert_int_eq(status, 201);
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", id);
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    static sse_event ev[512];
    int n = parse_sse(r.body, ev, 512);
    http_free(&r);
    ck_assert_str_eq(ev[n - 1].type, "end");
    ck_assert(strstr(ev[n - 1].data, "succeeded"));
}
END_TEST

START_TEST(cancel_queued_and_running)
{
    /* A long 4-device job occupies every device; a second job stays queued. */
    char big[4096], small[4096];
    small_spec(big, sizeof big, 64, 100000, 50000, 4);
    small_spec(small, sizeof small, 16, 10, 5, 1);
    long st1, st2;
    long running = submit(&D, big, NULL, &st1);
    ck_assert_int_eq(st1, 201);
    long queued = submit(&D, small, NULL, &st2);
    ck_assert_int_eq(st2, 201);
    char path[128];
    http_resp r;
    /* Wait until the big one runs. */
    snprintf(path, sizeof path, "/v1/jobs/%ld", running);
    for (int i = 0; i < 100; i++) {
        ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
        int is_running = strstr(r.body, "\"state\":\"running\"") != NULL;
        http_free(&r);
        if (is_running)
            break;
        usleep(50000);
    }
    /* Queued -> cancelled at once. */
    snprintf(path, sizeof path, "/v1/jobs/%ld/cancel", queued);
    ck_assert_int_eq(http(&D, "POST", path, NULL, NULL, 0, &r), 0);
    ck_assert_msg(r.status == 200, "%ld %s", r.status, r.body);
    json_t *j = http_json(&r);
    ck_assert_str_eq(json_string_value(json_object_get(j, "state")), "cancelled");
    json_decref(j);
    http_free(&r);
    /* Again: 409. */
    ck_assert_int_eq(http(&D, "POST", path, NULL, NULL, 0, &r), 0);
    expect_error(&r, 409, "conflict", NULL);
    http_free(&r);
    /* Running -> 202, cancelled within about a second (DELETE this time). */
    snprintf(path, sizeof path, "/v1/jobs/%ld", running);
    ck_assert_int_eq(http(&D, "DELETE", path, NULL, NULL, 0, &r), 0);
    ck_assert_msg(r.status == 202, "%ld %s", r.status, r.body);
    j = http_json(&r);
    ck_assert(json_is_true(json_object_get(j, "cancel_requested")));
    json_decref(j);
    http_free(&r);
    ck_assert_str_eq(wait_done(&D, running, 2.0, NULL), "cancelled");
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert(strstr(r.body, "cancelled while running"));
    http_free(&r);
    /* The stream of the cancelled job ends with end/cancelled. */
    static sse_event ev[512];
    int n = all_events(running, ev, 512);
    ck_assert_str_eq(ev[n - 1].type, "end");
    ck_assert(strstr(ev[n - 1].data, "cancelled"));
}
END_TEST

START_TEST(keepalive_on_idle_stream)
{
    /* A 4-device job holds every device, so a 1-device job stays queued and its stream
     * is idle: after --sse-keepalive (2 s here) the server sends a keep-alive comment. */
    char big[4096], small[4096];
    small_spec(big, sizeof big, 64, 100000, 50000, 4);
    small_spec(small, sizeof small, 16, 10, 5, 1);
    long st;
    long blocker = submit(&D, big, NULL, &st);
    ck_assert_int_eq(st, 201);
    long idle = submit(&D, small, NULL, &st);
    ck_assert_int_eq(st, 201);
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", idle);
    http_resp r;
    http_timeout_ms = 5000;
    http(&D, "GET", path, NULL, NULL, 0, &r); /* ends by our timeout */
    http_timeout_ms = 60000;
    ck_assert_ptr_nonnull(strstr(r.body, "event: state"));
    ck_assert_ptr_nonnull(strstr(r.body, "\n: keepalive\n\n"));
    http_free(&r);
    snprintf(path, sizeof path, "/v1/jobs/%ld/cancel", blocker);
    ck_assert_int_eq(http(&D, "POST", path, NULL, NULL, 0, &r), 0);
    http_free(&r);
    ck_assert_str_eq(wait_done(&D, blocker, 5, NULL), "cancelled");
    ck_assert_str_eq(wait_done(&D, idle, 30, NULL), "succeeded");
}
END_TEST

START_TEST(bad_requests)
{
    const char *json_ct[] = {"Content-Type: application/json", NULL};
    http_resp r;
    /* malformed JSON, an empty body, JSON that is not an object: the document as a
     * whole is at fault (invalid_spec, path ""), as docs/spec.md says */
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", json_ct, "{\"grid\": ", 9, &r), 0);
    expect_error(&r, 400, "invalid_spec", "");
    ck_assert_ptr_nonnull(strstr(r.body, "malformed JSON at line 1, column 9"));
    http_free(&r);
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", json_ct, "", 0, &r), 0);
    expect_error(&r, 400, "invalid_spec", "");
    http_free(&r);
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", json_ct, "[1, 2]", 6, &r), 0);
    expect_error(&r, 400, "invalid_spec", "");
    http_free(&r);
    /* wrong content type */
    const char *text_ct[] = {"Content-Type: text/plain", NULL};
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", text_ct, "{}", 2, &r), 0);
    expect_error(&r, 415, "unsupported_media_type", NULL);
    http_free(&r);
    /* oversized body (limit 65536 in this daemon), refused before it is read */
    size_t big = 200000;
    char *body = malloc(big);
    memset(body, ' ', big);
    body[0] = '{';
    body[big - 1] = '}';
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", json_ct, body, big, &r), 0);
    expect_error(&r, 413, "payload_too_large", NULL);
    http_free(&r);
    /* ... and the same sent chunked (no Content-Length): counted as it arrives */
    const char *chunked[] = {"Content-Type: application/json", "Transfer-Encoding: chunked",
                             NULL};
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", chunked, body, big, &r), 0);
    expect_error(&r, 413, "payload_too_large", NULL);
    http_free(&r);
    free(body);
    /* invalid spec: the engine's field path */
    const char *neg = "{\"grid\":{\"nx\":10,\"ny\":10,\"nz\":10,\"dx\":-1,\"dy\":10,\"dz\":10}}";
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", json_ct, neg, strlen(neg), &r), 0);
    ck_assert_int_eq(r.status, 400);
    json_t *j = http_json(&r);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "code")),
                     "invalid_spec");
    ck_assert(json_string_length(json_object_get(json_object_get(j, "error"), "field")) > 0);
    json_decref(j);
    http_free(&r);
    /* too many devices */
    char spec[4096];
    small_spec(spec, sizeof spec, 16, 10, 5, 5);
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", json_ct, spec, strlen(spec), &r), 0);
    expect_error(&r, 400, "too_many_devices", "devices");
    http_free(&r);
    /* a model file outside the allowed directories */
    const char *escape =
        "{\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,\"dy\":10,\"dz\":10},"
        "\"velocity\":{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"../../../../etc/passwd\"},"
        "\"time\":{\"nt\":10},\"sources\":[{\"position\":[80,80,80],"
        "\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}";
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", json_ct, escape, strlen(escape), &r), 0);
    ck_assert_msg(r.status == 400, "%ld %s", r.status, r.body);
    j = http_json(&r);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "code")),
                     "invalid_spec");
    ck_assert(strstr(json_string_value(json_object_get(json_object_get(j, "error"), "field")),
                     "velocity"));
    json_decref(j);
    http_free(&r);
    /* bad priority */
    small_spec(spec, sizeof spec, 16, 10, 5, 1);
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs?priority=11", json_ct, spec, strlen(spec), &r), 0);
    expect_error(&r, 400, "bad_request", "priority");
    http_free(&r);
    /* unknown route, unknown job, not a job id, wrong method */
    ck_assert_int_eq(http(&D, "GET", "/v1/nothing", NULL, NULL, 0, &r), 0);
    expect_error(&r, 404, "not_found", NULL);
    http_free(&r);
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs/999999", NULL, NULL, 0, &r), 0);
    expect_error(&r, 404, "not_found", NULL);
    http_free(&r);
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs/abc", NULL, NULL, 0, &r), 0);
    expect_error(&r, 404, "not_found", NULL);
    http_free(&r);
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs/999999/events", NULL, NULL, 0, &r), 0);
    expect_error(&r, 404, "not_found", NULL);
    http_free(&r);
    ck_assert_int_eq(http(&D, "PUT", "/v1/jobs", NULL, "x", 1, &r), 0);
    expect_error(&r, 405, "method_not_allowed", NULL);
    char allow[128];
    ck_assert_int_eq(header_value(&r, "Allow", allow, sizeof allow), 0);
    http_free(&r);
    /* path traversal in a model name (encoded slashes and dots) */
    ck_assert_int_eq(http(&D, "PUT", "/v1/models/..%2F..%2Fetc%2Fpasswd.f32", NULL, "abcd", 4,
                          &r), 0);
    expect_error(&r, 400, "bad_request", "name");
    http_free(&r);
    ck_assert_int_eq(http(&D, "PUT", "/v1/models/.hidden.f32", NULL, "abcd", 4, &r), 0);
    expect_error(&r, 400, "bad_request", "name");
    http_free(&r);
    ck_assert_int_eq(http(&D, "PUT", "/v1/models/noextension", NULL, "abcd", 4, &r), 0);
    expect_error(&r, 400, "bad_request", "name");
    http_free(&r);
    /* output names: traversal refused */
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs/1/outputs/..%2F..%2Ffdwave.db", NULL, NULL, 0, &r),
                     0);
    expect_error(&r, 400, "bad_request", "name");
    http_free(&r);
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs?state=bogus", NULL, NULL, 0, &r), 0);
    expect_error(&r, 400, "bad_request", "state");
    http_free(&r);
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs?limit=0", NULL, NULL, 0, &r), 0);
    expect_error(&r, 400, "bad_request", "limit");
    http_free(&r);
}
END_TEST

START_TEST(range_requests)
{
    char spec[4096];
    small_spec(spec, sizeof spec, 16, 10, 5, 1);
    long st;
    long id = submit(&D, spec, NULL, &st);
    ck_assert_int_eq(st, 201);
    ck_assert_str_eq(wait_done(&D, id, 30, NULL), "succeeded");
    char path[160], cr[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/manifest.json", id);
    http_resp full, r;
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &full), 0);
    ck_assert_int_eq(full.status, 200);
    size_t size = full.len;
    ck_assert(size > 100);
    const char *h1[] = {"Range: bytes=10-19", NULL};
    ck_assert_int_eq(http(&D, "GET", path, h1, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 206);
    ck_assert_uint_eq(r.len, 10);
    ck_assert(!memcmp(r.body, full.body + 10, 10));
    ck_assert_int_eq(header_value(&r, "Content-Range", cr, sizeof cr), 0);
    char want[128];
    snprintf(want, sizeof want, "bytes 10-19/%zu", size);
    ck_assert_str_eq(cr, want);
    http_free(&r);
    const char *h2[] = {"Range: bytes=-5", NULL};
    ck_assert_int_eq(http(&D, "GET", path, h2, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 206);
    ck_assert_uint_eq(r.len, 5);
    ck_assert(!memcmp(r.body, full.body + size - 5, 5));
    http_free(&r);
    const char *h3[] = {"Range: bytes=100-", NULL};
    ck_assert_int_eq(http(&D, "GET", path, h3, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 206);
    ck_assert_uint_eq(r.len, size - 100);
    http_free(&r);
    char h4s[64];
    snprintf(h4s, sizeof h4s, "Range: bytes=%zu-", size + 10);
    const char *h4[] = {h4s, NULL};
    ck_assert_int_eq(http(&D, "GET", path, h4, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 416);
    ck_assert_int_eq(header_value(&r, "Content-Range", cr, sizeof cr), 0);
    snprintf(want, sizeof want, "bytes */%zu", size);
    ck_assert_str_eq(cr, want);
    http_free(&r);
    http_free(&full);
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/nonexistent.png", id);
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    expect_error(&r, 404, "not_found", NULL);
    http_free(&r);
}
END_TEST

START_TEST(model_upload_and_use)
{
    int n = 16;
    size_t bytes = (size_t)n * n * n * 4;
    float *v = malloc(bytes);
    for (int i = 0; i < n * n * n; i++)
        v[i] = 1800.0f + (float)(i % 7);
    http_resp r;
    ck_assert_int_eq(http(&D, "PUT", "/v1/models/test-model.f32", NULL, (const char *)v, bytes,
                          &r), 0);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    json_t *j = http_json(&r);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "bytes")), (json_int_t)bytes);
    ck_assert_str_eq(json_string_value(json_object_get(j, "format")), "raw-f32");
    ck_assert_int_eq(json_string_length(json_object_get(j, "sha256")), 64);
    /* The facts the one read at upload established. */
    ck_assert_int_eq(json_integer_value(json_object_get(j, "nvalues")), n * n * n);
    ck_assert(json_real_value(json_object_get(j, "vmin")) == 1800.0);
    ck_assert(json_real_value(json_object_get(j, "vmax")) == 1806.0);
    ck_assert(json_is_null(json_object_get(j, "dims"))); /* raw-f32 records none */
    char sha[65];
    snprintf(sha, sizeof sha, "%s", json_string_value(json_object_get(j, "sha256")));
    json_decref(j);
    http_free(&r);
    ck_assert_int_eq(http(&D, "GET", "/v1/models", NULL, NULL, 0, &r), 0);
    ck_assert(strstr(r.body, "\"test-model.f32\""));
    ck_assert_ptr_nonnull(strstr(r.body, sha));
    ck_assert_ptr_nonnull(strstr(r.body, "\"vmax\":1806"));
    http_free(&r);
    /* A file that is not a valid model of its format is refused, naming the problem, and
     * nothing of it is kept: a negative velocity, a NaN, bytes that are no whole float32
     * samples, an empty file. */
    v[5] = -1.0f;
    ck_assert_int_eq(http(&D, "PUT", "/v1/models/bad-model.f32", NULL, (const char *)v, bytes,
                          &r), 0);
    expect_error(&r, 400, "invalid_model", "body");
    ck_assert_msg(strstr(r.body, "bad-model.f32") && !strstr(r.body, ".upload-"), "%s", r.body);
    http_free(&r);
    v[5] = 0.0f / 0.0f;
    ck_assert_int_eq(http(&D, "PUT", "/v1/models/bad-model.f32", NULL, (const char *)v, bytes,
                          &r), 0);
    expect_error(&r, 400, "invalid_model", "body");
    http_free(&r);
    ck_assert_int_eq(http(&D, "PUT", "/v1/models/bad-model.f32", NULL, "abcdef", 6, &r), 0);
    expect_error(&r, 400, "invalid_model", "body");
    http_free(&r);
    ck_assert_int_eq(http(&D, "PUT", "/v1/models/bad-model.f32", NULL, "", 0, &r), 0);
    expect_error(&r, 400, "invalid_model", "body");
    http_free(&r);
    ck_assert_int_eq(http(&D, "GET", "/v1/models", NULL, NULL, 0, &r), 0);
    ck_assert_ptr_null(strstr(r.body, "bad-model"));
    http_free(&r);
    char mdir[700];
    snprintf(mdir, sizeof mdir, "%s/models", D.data);
    DIR *dir = opendir(mdir);
    ck_assert_ptr_nonnull(dir);
    struct dirent *de;
    while ((de = readdir(dir)))
        ck_assert_msg(!strstr(de->d_name, "bad-model") && !strstr(de->d_name, ".upload-"),
                      "left behind: %s", de->d_name);
    closedir(dir);
    free(v);
    const char *spec =
        "{\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,\"dy\":10,\"dz\":10},"
        "\"order\":4,\"velocity\":{\"type\":\"model\",\"name\":\"test-model.f32\"},"
        "\"time\":{\"nt\":10},\"sources\":[{\"position\":[80,80,80],"
        "\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}";
    long st;
    long id = submit(&D, spec, NULL, &st);
    ck_assert_int_eq(st, 201);
    ck_assert_str_eq(wait_done(&D, id, 30, NULL), "succeeded");
    /* An unknown model name is an invalid spec. */
    const char *bad =
        "{\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,\"dy\":10,\"dz\":10},"
        "\"velocity\":{\"type\":\"model\",\"name\":\"nope.f32\"},"
        "\"time\":{\"nt\":10},\"sources\":[{\"position\":[80,80,80],"
        "\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}";
    const char *h[] = {"Content-Type: application/json", NULL};
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", h, bad, strlen(bad), &r), 0);
    ck_assert_int_eq(r.status, 400);
    ck_assert(strstr(r.body, "invalid_spec") && strstr(r.body, "velocity"));
    http_free(&r);
}
END_TEST

/* A job whose grid cannot fit in the devices' memory is refused at submission with a
 * reason that says so (issue 15: the derived memory is range-checked, naming the field),
 * and the daemon goes on serving: the next job succeeds (issue 4: "a job too large ...
 * the daemon keeps running"; the CPU backend stands in for a GPU here). */
START_TEST(too_large_job_fails_daemon_lives)
{
    const char *huge =
        "{\"grid\":{\"nx\":4000,\"ny\":4000,\"nz\":4000,\"dx\":10,\"dy\":10,\"dz\":10},"
        "\"order\":8,\"velocity\":{\"type\":\"constant\",\"value\":2000},"
        "\"time\":{\"nt\":10,\"dt\":\"auto\"},"
        "\"sources\":[{\"position\":[20000,20000,20000],\"wavelet\":{\"type\":\"ricker\",\"f0\":5}}]}";
    const char *h[] = {"Content-Type: application/json", NULL};
    http_resp r;
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", h, huge, strlen(huge), &r), 0);
    ck_assert_msg(r.status == 400, "huge job: %ld %s", r.status, r.body);
    json_t *j = http_json(&r);
    json_t *e = json_object_get(j, "error");
    const char *reason = json_string_value(json_object_get(e, "message"));
    ck_assert_str_eq(json_string_value(json_object_get(e, "field")), "grid");
    ck_assert_msg(reason && strstr(reason, "memory") && strstr(reason, "GiB"),
                  "reason does not speak of memory: %s", reason ? reason : "(null)");
    json_decref(j);
    http_free(&r);
    long status = 0, id;

    char spec[4096];
    small_spec(spec, sizeof spec, 24, 20, 0, 1);
    id = submit(&D, spec, NULL, &status);
    ck_assert_int_eq(status, 201);
    ck_assert_str_eq(wait_done(&D, id, 60, NULL), "succeeded");
}
END_TEST

START_TEST(system_endpoints)
{
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", "/v1/health", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    json_t *j = http_json(&r);
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "ok");
    ck_assert(json_is_integer(json_object_get(j, "queue")));
    json_decref(j);
    http_free(&r);
    ck_assert_int_eq(http(&D, "GET", "/v1/devices", NULL, NULL, 0, &r), 0);
    j = http_json(&r);
    ck_assert_int_eq(json_array_size(json_object_get(j, "devices")), 4);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_array_get(json_object_get(j, "devices"), 0), "kind")),
        "cpu");
    json_decref(j);
    http_free(&r);
    ck_assert_int_eq(http(&D, "GET", "/metrics", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert(strstr(r.body, "fdwave_jobs{state=\"queued\"}"));
    ck_assert(strstr(r.body, "fdwave_queue_length"));
    ck_assert(strstr(r.body, "fdwave_mpoints_per_second"));
    ck_assert(strstr(r.body, "fdwave_device_busy{device=\"3\""));
    ck_assert(strstr(r.body, "fdwave_http_requests_total"));
    http_free(&r);
    ck_assert_int_eq(http(&D, "GET", "/v1/openapi.yaml", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert(strstr(r.body, "openapi:"));
    ck_assert(strstr(r.body, "/v1/jobs/{id}/events"));
    http_free(&r);
    /* listing with pagination */
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs?limit=1", NULL, NULL, 0, &r), 0);
    j = http_json(&r);
    ck_assert(json_array_size(json_object_get(j, "jobs")) <= 1);
    json_decref(j);
    http_free(&r);
}
END_TEST

/* GET /v1/jobs?name=TEXT: jobs whose name contains TEXT (ASCII case ignored, % and _
 * taken literally); its "next" page keeps the filter. */
START_TEST(list_filters_by_name)
{
    static const char *const names[] = {"Alpha 50% one", "alpha two", "beta"};
    long ids[3];
    for (int i = 0; i < 3; i++) {
        char spec[4096], named[4200];
        small_spec(spec, sizeof spec, 16, 10, 5, 1);
        const char *tail = strstr(spec, "\"grid\"");
        snprintf(named, sizeof named, "{\"kind\":\"acoustic\",\"name\":\"%s\",%s", names[i],
                 tail);
        long status;
        ids[i] = submit(&D, named, NULL, &status);
        ck_assert_int_eq(status, 201);
    }
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs?name=ALPHA&limit=1", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    json_t *j = http_json(&r);
    http_free(&r);
    json_t *jobs = json_object_get(j, "jobs");
    ck_assert_int_eq(json_array_size(jobs), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(jobs, 0), "id")), ids[1]);
    char next[256];
    snprintf(next, sizeof next, "%s", json_string_value(json_object_get(j, "next")));
    json_decref(j);
    char want[128];
    snprintf(want, sizeof want, "/v1/jobs?name=ALPHA&limit=1&before=%ld", ids[1]);
    ck_assert_str_eq(next, want);
    ck_assert_int_eq(http(&D, "GET", next, NULL, NULL, 0, &r), 0);
    j = http_json(&r);
    http_free(&r);
    jobs = json_object_get(j, "jobs");
    ck_assert_int_eq(json_array_size(jobs), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(jobs, 0), "id")), ids[0]);
    ck_assert(json_is_null(json_object_get(j, "next")));
    json_decref(j);
    /* "%" is a character, not a wildcard; the next page's path escapes it. */
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs?name=50%25%20o&limit=500", NULL, NULL, 0, &r), 0);
    j = http_json(&r);
    http_free(&r);
    ck_assert_int_eq(json_array_size(json_object_get(j, "jobs")), 1);
    json_decref(j);
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs?name=a%20&limit=1", NULL, NULL, 0, &r), 0);
    j = http_json(&r);
    http_free(&r);
    snprintf(want, sizeof want, "/v1/jobs?name=a%%20&limit=1&before=%ld", ids[1]);
    ck_assert_str_eq(json_string_value(json_object_get(j, "next")), want);
    json_decref(j);
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs?name=a%01b", NULL, NULL, 0, &r), 0);
    expect_error(&r, 400, "bad_request", "name");
    http_free(&r);
}
END_TEST

/* The 201 answer to POST /v1/jobs is what GET /v1/jobs/{id} shows (less "spec", and the
 * reason once the scheduler has said what it waits for) while the job waits; an Idempotency-Key repeat answers 200 with the same job. */
START_TEST(post_answer_matches_get)
{
    char big[4096], small[4096];
    small_spec(big, sizeof big, 64, 100000, 50000, 4);
    small_spec(small, sizeof small, 16, 10, 5, 1);
    long status;
    long blocker = submit(&D, big, NULL, &status);
    ck_assert_int_eq(status, 201);
    const char *h[] = {"Content-Type: application/json", "Idempotency-Key: answer-1", NULL};
    http_resp r;
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs?priority=2", h, small, strlen(small), &r), 0);
    ck_assert_msg(r.status == 201, "POST gave %ld: %s", r.status, r.body);
    json_t *posted = http_json(&r);
    http_free(&r);
    long id = (long)json_integer_value(json_object_get(posted, "id"));
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    json_t *got = http_json(&r);
    http_free(&r);
    ck_assert_str_eq(json_string_value(json_object_get(got, "state")), "queued");
    ck_assert(json_is_object(json_object_get(got, "spec")));
    json_object_del(got, "spec");
    /* The reason may have changed since: what the scheduler found it waits for. */
    const char *was = json_string_value(json_object_get(posted, "reason"));
    const char *now = json_string_value(json_object_get(got, "reason"));
    ck_assert_msg((!was && !now) || (was && now && !strcmp(was, now)) ||
                      (now && !strncmp(now, "waits for devices: ", 19)),
                  "reason: POST %s, GET %s", was ? was : "null", now ? now : "null");
    json_object_del(posted, "reason");
    json_object_del(got, "reason");
    char *a = json_dumps(posted, JSON_SORT_KEYS), *b = json_dumps(got, JSON_SORT_KEYS);
    ck_assert_msg(strcmp(a, b) == 0, "POST %s\nGET  %s", a, b);
    free(a);
    free(b);
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs?priority=2", h, small, strlen(small), &r), 0);
    ck_assert_int_eq(r.status, 200);
    json_t *again = http_json(&r);
    http_free(&r);
    ck_assert_int_eq(json_integer_value(json_object_get(again, "id")), id);
    ck_assert(json_equal(json_object_get(again, "created_at"),
                         json_object_get(posted, "created_at")));
    json_decref(again);
    json_decref(posted);
    json_decref(got);
    snprintf(path, sizeof path, "/v1/jobs/%ld/cancel", blocker);
    ck_assert_int_eq(http(&D, "POST", path, NULL, NULL, 0, &r), 0);
    http_free(&r);
    ck_assert_str_eq(wait_done(&D, blocker, 30, NULL), "cancelled");
    ck_assert_str_eq(wait_done(&D, id, 30, NULL), "succeeded");
}
END_TEST

typedef struct watcher {
    const daemon_proc *d;
    long job;
    http_resp r;
    int rc;
} watcher;

static void *watch(void *arg)
{
    watcher *w = arg;
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", w->job);
    w->rc = http(w->d, "GET", path, NULL, NULL, 0, &w->r);
    return NULL;
}

/* 24 watchers of one job on a daemon that resumes 8 streams at once and the other 16
 * at 10 a second: events come faster than the paced wake-ups, so deferred streams read
 * several at a time. Every watcher still gets the job's whole event sequence, in order,
 * ending with "end", the same as a replay after the job finished. */
START_TEST(many_watchers_paced)
{
    daemon_proc d2 = {0};
    harness_tmpdir(d2.data, sizeof d2.data);
    const char *extra[] = {"--sse-wake-rate", "10", NULL};
    ck_assert_int_eq(harness_start(&d2, extra), 0);
    char spec[4096];
    small_spec(spec, sizeof spec, 32, 400, 100, 4);
    long status;
    long id = submit(&d2, spec, NULL, &status);
    ck_assert_int_eq(status, 201);
    enum { NW = 24 };
    static watcher w[NW];
    pthread_t t[NW];
    for (int i = 0; i < NW; i++) {
        w[i] = (watcher){.d = &d2, .job = id};
        ck_assert_int_eq(pthread_create(&t[i], NULL, watch, &w[i]), 0);
    }
    for (int i = 0; i < NW; i++)
        pthread_join(t[i], NULL);
    ck_assert_str_eq(wait_done(&d2, id, 30, NULL), "succeeded");
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", id);
    http_resp all;
    ck_assert_int_eq(http(&d2, "GET", path, NULL, NULL, 0, &all), 0);
    static sse_event want[512], ev[512];
    int n = parse_sse(all.body, want, 512);
    ck_assert(n >= 6);
    ck_assert_str_eq(want[n - 1].type, "end");
    for (int i = 0; i < NW; i++) {
        ck_assert_int_eq(w[i].rc, 0);
        ck_assert_int_eq(w[i].r.status, 200);
        int m = parse_sse(w[i].r.body, ev, 512);
        ck_assert_msg(m == n, "watcher %d got %d events of %d", i, m, n);
        for (int k = 0; k < n; k++) {
            ck_assert_int_eq(ev[k].id, want[k].id);
            ck_assert_str_eq(ev[k].type, want[k].type);
            ck_assert_str_eq(ev[k].data, want[k].data);
        }
        http_free(&w[i].r);
    }
    http_free(&all);
    ck_assert_int_eq(harness_stop(&d2), 0);
    harness_rmtree(d2.data);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_api");
    TCase *tc = tcase_create("api");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, submit_follow_fetch);
    tcase_add_test(tc, last_event_id_replay);
    tcase_add_test(tc, live_stream_sees_new_events);
    tcase_add_test(tc, cancel_queued_and_running);
    tcase_add_test(tc, keepalive_on_idle_stream);
    tcase_add_test(tc, bad_requests);
    tcase_add_test(tc, range_requests);
    tcase_add_test(tc, model_upload_and_use);
    tcase_add_test(tc, system_endpoints);
    tcase_add_test(tc, too_large_job_fails_daemon_lives);
    tcase_add_test(tc, post_answer_matches_get);
    tcase_add_test(tc, list_filters_by_name);
    tcase_add_test(tc, many_watchers_paced);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
