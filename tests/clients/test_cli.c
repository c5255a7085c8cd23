/* test_cli.c — the `fdwave` CLI against a real fdwaved on an ephemeral loopback port:
 * every command, its output and exit code, including the error paths (invalid spec with
 * the field path, unknown job, conflict, unreachable server, bad token) and a watch that
 * survives a daemon restart by reconnecting with Last-Event-ID. */
#include <check.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include "harness.h"

static fdt_daemon daemon_;
static char tmp[512];

/* A job that runs in well under a second on the CPU backend. */
static const char small_spec[] =
    "{\"kind\":\"acoustic\",\"name\":\"cli small\","
    "\"grid\":{\"nx\":32,\"ny\":32,\"nz\":32,\"dx\":10,\"dy\":10,\"dz\":10},\"order\":4,"
    "\"velocity\":{\"type\":\"constant\",\"value\":2000},\"time\":{\"nt\":60,\"dt\":\"auto\"},"
    "\"sources\":[{\"position\":[160,160,160],\"wavelet\":{\"type\":\"ricker\",\"f0\":15}}],"
    "\"receivers\":{\"lines\":[{\"from\":[40,160,100],\"to\":[280,160,100],\"count\":13}]},"
    "\"boundary\":{\"type\":\"sponge\",\"width\":6},"
    "\"snapshots\":{\"every\":30,\"slices\":[{\"plane\":\"xy\",\"index\":16}],"
    "\"png\":true,\"raw\":true}}";

/* A job that runs for many seconds (to be cancelled or interrupted). */
static char *long_spec(int nt)
{
    char *s = malloc(1024);
    snprintf(s, 1024,
             "{\"kind\":\"acoustic\",\"name\":\"cli long\","
             "\"grid\":{\"nx\":64,\"ny\":64,\"nz\":64,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":8,\"velocity\":{\"type\":\"constant\",\"value\":2000},"
             "\"time\":{\"nt\":%d,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[320,320,320],\"wavelet\":{\"type\":\"ricker\","
             "\"f0\":10}}],\"boundary\":{\"type\":\"sponge\",\"width\":8}}",
             nt);
    return s;
}

static char *write_tmp(const char *name, const char *text)
{
    char *p = malloc(1024);
    snprintf(p, 1024, "%s/%s", tmp, name);
    ck_assert_int_eq(fdt_write_file(p, text, strlen(text)), 0);
    return p;
}

/* Runs the CLI with --url URL and the given arguments (NULL-terminated). */
static void cli_env(fdt_run *r, const char *url, char *const env[], ...)
{
    char *argv[32];
    int n = 0;
    argv[n++] = FDT_CLI;
    if (url) {
        argv[n++] = "--url";
        argv[n++] = (char *)url;
    }
    va_list ap;
    va_start(ap, env);
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL && n < 31)
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    ck_assert_int_eq(fdt_exec(r, argv, env, 120), 0);
}
#define cli(r, ...) cli_env((r), daemon_.url, NULL, __VA_ARGS__, (const char *)NULL)

static void dump(const char *what, const fdt_run *r)
{
    fprintf(stderr, "--- %s: exit %d\nstdout:\n%s\nstderr:\n%s\n", what, r->code, r->out,
            r->err);
}

/* With --json a failure is one line of JSON on stdout, {"error": {"code", "message",
 * "field"}, "http_status"}, and stderr stays empty; returns the error's code. */
static const char *cli_error_code(const fdt_run *r)
{
    static char code[64];
    ck_assert_msg(r->err[0] == '\0', "stderr in --json mode: %s", r->err);
    ck_assert_msg(strchr(r->out, '\n') == r->out + strlen(r->out) - 1, "not one line: %s",
                  r->out);
    json_t *j = json_loads(r->out, 0, NULL);
    ck_assert_msg(j != NULL, "not JSON: %s", r->out);
    json_t *e = json_object_get(j, "error");
    ck_assert(json_string_length(json_object_get(e, "message")) > 0);
    ck_assert(json_object_get(e, "field") != NULL);
    ck_assert(json_object_get(j, "http_status") != NULL);
    snprintf(code, sizeof code, "%s", json_string_value(json_object_get(e, "code")));
    json_decref(j);
    return code;
}

/* Runs the CLI with --json and the arguments; it must fail with want_exit and, as JSON on
 * stdout, the error code want_code. */
#define json_fails(want_exit, want_code, ...)                                              \
    do {                                                                                   \
        fdt_run jr_;                                                                       \
        cli(&jr_, "--json", __VA_ARGS__);                                                  \
        ck_assert_int_eq(jr_.code, (want_exit));                                           \
        ck_assert_str_eq(cli_error_code(&jr_), (want_code));                               \
        fdt_run_free(&jr_);                                                                \
    } while (0)

/* Submits spec text with --json and returns the new job's id. */
static long submit_json(const char *spec_text)
{
    char *path = write_tmp("submit.json", spec_text);
    fdt_run r;
    cli(&r, "--json", "submit", path);
    if (r.code != 0)
        dump("submit", &r);
    ck_assert_int_eq(r.code, 0);
    json_t *j = json_loads(r.out, 0, NULL);
    ck_assert_ptr_nonnull(j);
    long id = (long)json_integer_value(json_object_get(j, "id"));
    ck_assert_int_gt(id, 0);
    /* "queued", or already "running" when the scheduler claimed it before answering. */
    const char *st = json_string_value(json_object_get(j, "state"));
    ck_assert_msg(st && (!strcmp(st, "queued") || !strcmp(st, "running")), "state %s", st);
    json_decref(j);
    fdt_run_free(&r);
    free(path);
    return id;
}

static json_t *status_json(long id)
{
    char ids[32];
    snprintf(ids, sizeof ids, "%ld", id);
    fdt_run r;
    cli(&r, "--json", "status", ids);
    ck_assert_int_eq(r.code, 0);
    json_t *j = json_loads(r.out, 0, NULL);
    ck_assert_ptr_nonnull(j);
    fdt_run_free(&r);
    return j;
}

static void setup(void)
{
    ck_assert_int_eq(fdt_tmpdir(tmp, sizeof tmp), 0);
    char data[600];
    snprintf(data, sizeof data, "%s/data", tmp);
    mkdir(data, 0755);
    ck_assert_msg(fdt_daemon_start(&daemon_, FDT_DAEMON, data, 0) == 0,
                  "fdwaved did not start (log in %s/daemon.log)", data);
}

static void teardown(void)
{
    fdt_daemon_stop(&daemon_);
}

START_TEST(usage_errors)
{
    fdt_run r;
    cli_env(&r, NULL, NULL, (const char *)NULL);
    ck_assert_int_eq(r.code, 2);
    fdt_run_free(&r);
    cli(&r, "frobnicate");
    ck_assert_int_eq(r.code, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "unknown command"));
    fdt_run_free(&r);
    cli(&r, "list", "--bogus");
    ck_assert_int_eq(r.code, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "unknown option --bogus"));
    fdt_run_free(&r);
    cli(&r, "list", "--limit");
    ck_assert_int_eq(r.code, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "option --limit needs a value"));
    fdt_run_free(&r);
    cli(&r, "--json=yes", "list");
    ck_assert_int_eq(r.code, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "option --json takes no value"));
    fdt_run_free(&r);
    cli(&r, "status", "abc");
    ck_assert_int_eq(r.code, 2);
    fdt_run_free(&r);
    cli(&r, "list", "--state", "sleeping");
    ck_assert_int_eq(r.code, 2);
    fdt_run_free(&r);
    cli(&r, "fetch", "1", "../etc/passwd");
    ck_assert_int_eq(r.code, 2);
    fdt_run_free(&r);
    /* --json anywhere on the line: usage errors too are JSON on stdout, exit code 2. */
    cli(&r, "frobnicate", "--json");
    ck_assert_int_eq(r.code, 2);
    ck_assert_str_eq(cli_error_code(&r), "usage");
    fdt_run_free(&r);
    json_fails(2, "usage", "list", "--bogus");
    json_fails(2, "usage", "status");
    cli(&r, "--help");
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Exit codes"));
    ck_assert_ptr_nonnull(strstr(r.out, "5  the server cannot be reached"));
    fdt_run_free(&r);
}
END_TEST

START_TEST(unreachable)
{
    fdt_run r;
    /* Port 1 on loopback: nothing listens there. */
    cli_env(&r, "http://127.0.0.1:1", NULL, "status", "1", (const char *)NULL);
    ck_assert_int_eq(r.code, 5);
    ck_assert_ptr_nonnull(strstr(r.err, "cannot reach fdwaved at http://127.0.0.1:1"));
    fdt_run_free(&r);
    cli_env(&r, "http://127.0.0.1:1", NULL, "watch", "1", (const char *)NULL);
    ck_assert_int_eq(r.code, 5);
    ck_assert_ptr_nonnull(strstr(r.err, "cannot reach fdwaved"));
    fdt_run_free(&r);
    /* --json: the same exit code, the error as JSON on stdout. */
    cli_env(&r, "http://127.0.0.1:1", NULL, "--json", "status", "1", (const char *)NULL);
    ck_assert_int_eq(r.code, 5);
    ck_assert_str_eq(cli_error_code(&r), "unreachable");
    ck_assert_ptr_nonnull(strstr(r.out, "cannot reach fdwaved at http://127.0.0.1:1"));
    fdt_run_free(&r);
    cli_env(&r, "http://127.0.0.1:1", NULL, "--json", "watch", "1", (const char *)NULL);
    ck_assert_int_eq(r.code, 5);
    ck_assert_str_eq(cli_error_code(&r), "unreachable");
    fdt_run_free(&r);
    /* FDWAVE_URL is honoured when --url is absent. */
    char *env[] = {"FDWAVE_URL=http://127.0.0.1:1/", NULL};
    cli_env(&r, NULL, env, "list", (const char *)NULL);
    ck_assert_int_eq(r.code, 5);
    ck_assert_ptr_nonnull(strstr(r.err, "http://127.0.0.1:1"));
    fdt_run_free(&r);
}
END_TEST

START_TEST(invalid_spec_shows_field)
{
    /* Source far outside the 32^3 grid of 10 m cells. */
    char *bad = strdup(small_spec);
    char *pos = strstr(bad, "[160,160,160]");
    memcpy(pos, "[960,160,160]", 13);
    char *path = write_tmp("bad.json", bad);
    fdt_run r;
    cli(&r, "submit", path);
    if (r.code != 4)
        dump("bad submit", &r);
    ck_assert_int_eq(r.code, 4);
    ck_assert_ptr_nonnull(strstr(r.err, "error: invalid_spec: sources[0].position: "));
    fdt_run_free(&r);
    /* Not JSON at all: the document as a whole is at fault (path ""). */
    char *junk = write_tmp("junk.json", "{\"grid\": ");
    cli(&r, "submit", junk);
    ck_assert_int_eq(r.code, 4);
    ck_assert_ptr_nonnull(strstr(r.err, "error: invalid_spec: malformed JSON at line 1"));
    fdt_run_free(&r);
    /* --json: the same error as one line of JSON on stdout, nothing on stderr, the same
     * exit code. */
    cli(&r, "--json", "submit", junk);
    ck_assert_int_eq(r.code, 4);
    ck_assert_str_eq(cli_error_code(&r), "invalid_spec");
    ck_assert_ptr_nonnull(strstr(r.out, "\"field\":\"\"},\"http_status\":400}"));
    fdt_run_free(&r);
    /* A spec file that does not exist is a local error. */
    cli(&r, "submit", "/nonexistent/job.json");
    ck_assert_int_eq(r.code, 9);
    fdt_run_free(&r);
    cli(&r, "--json", "submit", "/nonexistent/job.json");
    ck_assert_int_eq(r.code, 9);
    ck_assert_str_eq(cli_error_code(&r), "local_io");
    ck_assert_ptr_nonnull(strstr(r.out, "\"http_status\":null}"));
    fdt_run_free(&r);
    free(bad);
    free(path);
    free(junk);
}
END_TEST

START_TEST(submit_wait_status_list_outputs_fetch)
{
    char *path = write_tmp("small.json", small_spec);
    fdt_run r;
    cli(&r, "submit", path, "--wait");
    if (r.code != 0)
        dump("submit --wait", &r);
    ck_assert_int_eq(r.code, 0);
    long id = 0;
    ck_assert_int_eq(sscanf(r.out, "job %ld succeeded", &id), 1);
    /* Not a terminal: one line per event on stderr, ending with the end event. */
    ck_assert_ptr_nonnull(strstr(r.err, "progress "));
    ck_assert_ptr_nonnull(strstr(r.err, "snapshot 0: step"));
    ck_assert_ptr_nonnull(strstr(r.err, "end: succeeded"));
    fdt_run_free(&r);

    char ids[32];
    snprintf(ids, sizeof ids, "%ld", id);
    cli(&r, "status", ids);
    ck_assert_int_eq(r.code, 0);
    char want[64];
    snprintf(want, sizeof want, "job %ld: succeeded", id);
    ck_assert_ptr_nonnull(strstr(r.out, want));
    ck_assert_ptr_nonnull(strstr(r.out, "cli small"));
    fdt_run_free(&r);

    cli(&r, "list", "--state", "succeeded");
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "cli small"));
    fdt_run_free(&r);
    cli(&r, "--json", "list", "--state", "queued");
    ck_assert_int_eq(r.code, 0);
    json_t *l = json_loads(r.out, 0, NULL);
    ck_assert_ptr_nonnull(l);
    size_t i;
    json_t *j;
    json_array_foreach(json_object_get(l, "jobs"), i, j)
        ck_assert_int_ne(json_integer_value(json_object_get(j, "id")), id);
    json_decref(l);
    fdt_run_free(&r);

    cli(&r, "outputs", ids);
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "gather.segy"));
    ck_assert_ptr_nonnull(strstr(r.out, ".png"));
    fdt_run_free(&r);

    char dir[600];
    snprintf(dir, sizeof dir, "%s/one", tmp);
    cli(&r, "fetch", ids, "gather.segy", "-o", dir);
    ck_assert_int_eq(r.code, 0);
    char gpath[700];
    snprintf(gpath, sizeof gpath, "%s/gather.segy", dir);
    struct stat st;
    ck_assert_int_eq(stat(gpath, &st), 0);
    /* 3600-byte textual+binary header, then 13 traces of 240 bytes + samples. */
    ck_assert_int_gt(st.st_size, 3600 + 13 * 240);
    fdt_run_free(&r);

    cli(&r, "fetch", ids, "no-such-file.png", "-o", dir);
    ck_assert_int_eq(r.code, 7);
    fdt_run_free(&r);

    snprintf(dir, sizeof dir, "%s/all", tmp);
    cli(&r, "--json", "fetch", ids, "--all", "-o", dir);
    if (r.code != 0)
        dump("fetch --all", &r);
    ck_assert_int_eq(r.code, 0);
    json_t *got = json_loads(r.out, 0, NULL);
    ck_assert_ptr_nonnull(got);
    int pngs = 0;
    json_array_foreach(json_object_get(got, "files"), i, j)
    {
        const char *f = json_string_value(j);
        ck_assert_int_eq(stat(f, &st), 0);
        size_t n = strlen(f);
        if (n > 4 && strcmp(f + n - 4, ".png") == 0) {
            size_t len;
            char *png = fdt_read_file(f, &len);
            ck_assert_ptr_nonnull(png);
            ck_assert_int_gt(len, 8);
            ck_assert_int_eq(memcmp(png, "\x89PNG\r\n\x1a\n", 8), 0);
            free(png);
            pngs++;
        }
    }
    ck_assert_int_ge(pngs, 2); /* every 30 of 60 steps, one xy slice */
    char mpath[700];
    snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
    ck_assert_int_eq(stat(mpath, &st), 0);
    json_decref(got);
    fdt_run_free(&r);
    free(path);
}
END_TEST

START_TEST(watch_lines_and_json)
{
    long id = submit_json(small_spec);
    char ids[32];
    snprintf(ids, sizeof ids, "%ld", id);
    fdt_run r;
    cli(&r, "watch", ids);
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "state: running"));
    ck_assert_ptr_nonnull(strstr(r.out, "progress 100.0%"));
    ck_assert_ptr_nonnull(strstr(r.out, "end: succeeded"));
    fdt_run_free(&r);

    /* A finished job replays its whole history; --json gives one event per line with
     * strictly increasing ids. */
    cli(&r, "--json", "watch", ids);
    ck_assert_int_eq(r.code, 0);
    long last = -1, n = 0;
    int saw_end = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        json_t *e = json_loads(line, 0, NULL);
        ck_assert_msg(e != NULL, "not JSON: %s", line);
        long eid = atol(json_string_value(json_object_get(e, "id")));
        ck_assert_int_gt(eid, last);
        last = eid;
        n++;
        saw_end |= strcmp(json_string_value(json_object_get(e, "event")), "end") == 0;
        json_decref(e);
    }
    ck_assert_int_ge(n, 3);
    ck_assert(saw_end);
    fdt_run_free(&r);

    /* --since: only what came after that event. */
    char since[32];
    snprintf(since, sizeof since, "%ld", last - 1);
    cli(&r, "--json", "watch", ids, "--since", since);
    ck_assert_int_eq(r.code, 0);
    ck_assert_int_eq(strchr(r.out, '\n') - r.out + 1, (long)strlen(r.out)); /* one line */
    ck_assert_ptr_nonnull(strstr(r.out, "\"end\""));
    fdt_run_free(&r);
}
END_TEST

/* On a terminal, watch draws a progress bar with rate and ETA, redrawn in place. */
START_TEST(watch_on_a_terminal_draws_a_bar)
{
    char *spec = long_spec(400);
    long id = submit_json(spec);
    free(spec);
    char ids[32];
    snprintf(ids, sizeof ids, "%ld", id);
    char *argv[] = {FDT_CLI, "--url", daemon_.url, "watch", ids, NULL};
    fdt_run r;
    ck_assert_int_eq(fdt_exec_pty(&r, argv, 120), 0);
    if (r.code != 0)
        dump("watch on a pty", &r);
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "\r\033[K["));          /* redrawn in place */
    ck_assert_ptr_nonnull(strstr(r.out, "##############################] 100.0%"));
    ck_assert_ptr_nonnull(strstr(r.out, "step 400/400"));
    ck_assert_ptr_nonnull(strstr(r.out, "pt/s")); /* Mpt/s or Gpt/s */
    ck_assert_ptr_nonnull(strstr(r.out, "ETA "));
    ck_assert_ptr_nonnull(strstr(r.out, "end: succeeded"));
    ck_assert_ptr_null(strstr(r.out, "progress ")); /* no plain progress lines */
    fdt_run_free(&r);
}
END_TEST

START_TEST(cancel_running_and_conflict)
{
    char *spec = long_spec(20000);
    long id = submit_json(spec);
    free(spec);
    char ids[32];
    snprintf(ids, sizeof ids, "%ld", id);
    /* Wait until it runs. */
    for (int i = 0; i < 200; i++) {
        json_t *j = status_json(id);
        int running = strcmp(json_string_value(json_object_get(j, "state")), "running") == 0;
        json_decref(j);
        if (running)
            break;
        usleep(50000);
    }
    fdt_run r;
    cli(&r, "cancel", ids);
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "cancel"));
    fdt_run_free(&r);
    cli(&r, "watch", ids);
    ck_assert_int_eq(r.code, 3); /* cancelled */
    ck_assert_ptr_nonnull(strstr(r.out, "end: cancelled"));
    fdt_run_free(&r);
    cli(&r, "cancel", ids);
    ck_assert_int_eq(r.code, 4); /* 409: already finished */
    ck_assert_ptr_nonnull(strstr(r.err, "error: conflict"));
    fdt_run_free(&r);
    json_fails(4, "conflict", "cancel", ids);
    cli(&r, "status", "987654");
    ck_assert_int_eq(r.code, 7);
    ck_assert_ptr_nonnull(strstr(r.err, "not_found"));
    fdt_run_free(&r);
    json_fails(7, "not_found", "status", "987654");
    cli(&r, "watch", "987654");
    ck_assert_int_eq(r.code, 7);
    fdt_run_free(&r);
    json_fails(7, "not_found", "watch", "987654");
    cli(&r, "cancel", "987654");
    ck_assert_int_eq(r.code, 7);
    fdt_run_free(&r);
}
END_TEST

START_TEST(models_and_devices)
{
    /* A 32^3 constant model as raw little-endian float32. */
    size_t n = 32 * 32 * 32;
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = i < n / 2 ? 1800.0f : 2400.0f;
    char mpath[600];
    snprintf(mpath, sizeof mpath, "%s/model.f32", tmp);
    ck_assert_int_eq(fdt_write_file(mpath, v, n * sizeof *v), 0);
    free(v);
    fdt_run r;
    cli(&r, "--json", "models", "upload", mpath, "two-layer.f32");
    if (r.code != 0)
        dump("models upload", &r);
    ck_assert_int_eq(r.code, 0);
    json_t *m = json_loads(r.out, 0, NULL);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(json_integer_value(json_object_get(m, "bytes")), (json_int_t)(n * 4));
    ck_assert_int_eq(strlen(json_string_value(json_object_get(m, "sha256"))), 64);
    json_decref(m);
    fdt_run_free(&r);
    cli(&r, "models", "list");
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "two-layer.f32"));
    ck_assert_ptr_nonnull(strstr(r.out, "32768 values")); /* what the server recorded */
    ck_assert_ptr_nonnull(strstr(r.out, "1800-2400 m/s"));
    fdt_run_free(&r);
    /* the same name again: refused (409, exit 4) unless the replace is explicit */
    cli(&r, "models", "upload", mpath, "two-layer.f32");
    ck_assert_int_eq(r.code, 4);
    ck_assert_ptr_nonnull(strstr(r.err, "409"));
    fdt_run_free(&r);
    cli(&r, "models", "upload", "--replace", mpath, "two-layer.f32");
    if (r.code != 0)
        dump("models upload --replace", &r);
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "model two-layer.f32 uploaded"));
    fdt_run_free(&r);
    cli(&r, "models", "upload", mpath, "..hidden.f32");
    ck_assert_int_eq(r.code, 4);
    fdt_run_free(&r);
    cli(&r, "models", "upload", "/nonexistent.f32", "x.f32");
    ck_assert_int_eq(r.code, 9);
    fdt_run_free(&r);

    /* A job that uses the uploaded model by name. */
    char *spec = strdup(small_spec);
    const char *from = "{\"type\":\"constant\",\"value\":2000}";
    char *at = strstr(spec, from);
    char *with = malloc(strlen(spec) + 64);
    snprintf(with, strlen(spec) + 64, "%.*s{\"type\":\"model\",\"name\":\"two-layer.f32\"}%s",
             (int)(at - spec), spec, at + strlen(from));
    char *path = write_tmp("model-job.json", with);
    cli(&r, "submit", path, "--wait");
    if (r.code != 0)
        dump("submit model job", &r);
    ck_assert_int_eq(r.code, 0);
    fdt_run_free(&r);
    free(spec);
    free(with);
    free(path);

    cli(&r, "devices");
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "cpu"));
    fdt_run_free(&r);
    cli(&r, "--json", "devices");
    ck_assert_int_eq(r.code, 0);
    json_t *d = json_loads(r.out, 0, NULL);
    ck_assert_int_eq(json_array_size(json_object_get(d, "devices")), 2);
    json_decref(d);
    fdt_run_free(&r);
    cli(&r, "health");
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "ok"));
    fdt_run_free(&r);
}
END_TEST

/* rtm on data uploaded with `data put`: 4 receivers x 61 samples of raw float32. */
static const char rtm_spec[] =
    "{\"kind\":\"rtm\",\"name\":\"cli rtm\","
    "\"grid\":{\"nx\":32,\"ny\":32,\"nz\":32,\"dx\":10,\"dy\":10,\"dz\":10},"
    "\"velocity\":{\"type\":\"constant\",\"value\":2000},\"time\":{\"nt\":60,\"dt\":0.0015},"
    "\"sources\":[{\"position\":[155,155,100],\"wavelet\":{\"type\":\"ricker\",\"f0\":15}}],"
    "\"receivers\":{\"points\":[[90,155,100],[130,155,100],[170,155,100],[210,155,100]]},"
    "\"boundary\":{\"type\":\"sponge\",\"width\":8},\"data\":{\"name\":\"cli-gather.f32\"}}";

START_TEST(data_put_ls_rm_and_an_image)
{
    float v[4 * 61];
    for (int i = 0; i < 4 * 61; i++)
        v[i] = (float)((i * 37) % 11) - 5.0f;
    char dpath[600], odd[600];
    snprintf(dpath, sizeof dpath, "%s/gather.f32", tmp);
    snprintf(odd, sizeof odd, "%s/odd.f32", tmp);
    ck_assert_int_eq(fdt_write_file(dpath, v, sizeof v), 0);
    ck_assert_int_eq(fdt_write_file(odd, v, 6), 0);
    fdt_run r;
    cli(&r, "data", "put", "cli-gather.f32", dpath);
    if (r.code != 0)
        dump("data put", &r);
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "data cli-gather.f32 uploaded"));
    fdt_run_free(&r);
    cli(&r, "data", "put", "cli-gather.f32", dpath); /* a name in use: 409, exit 4 */
    ck_assert_int_eq(r.code, 4);
    ck_assert_ptr_nonnull(strstr(r.err, "409"));
    fdt_run_free(&r);
    cli(&r, "--json", "data", "put", "cli-odd.f32", odd); /* no whole float32: 400 */
    ck_assert_int_eq(r.code, 4);
    ck_assert_ptr_nonnull(strstr(r.out, "invalid_data"));
    fdt_run_free(&r);
    cli(&r, "data", "ls");
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "cli-gather.f32"));
    ck_assert_ptr_null(strstr(r.out, "cli-odd.f32"));
    fdt_run_free(&r);

    /* An rtm job on it by name, and its image fetched. */
    char *spec = write_tmp("rtm.json", rtm_spec);
    cli(&r, "submit", spec, "--wait");
    if (r.code != 0)
        dump("submit rtm --wait", &r);
    ck_assert_int_eq(r.code, 0);
    long id = 0;
    ck_assert_int_eq(sscanf(r.out, "job %ld succeeded", &id), 1);
    fdt_run_free(&r);
    char ids[32], dir[600], ipath[700];
    snprintf(ids, sizeof ids, "%ld", id);
    snprintf(dir, sizeof dir, "%s/rtm", tmp);
    cli(&r, "fetch", ids, "image.f32", "-o", dir);
    ck_assert_int_eq(r.code, 0);
    fdt_run_free(&r);
    snprintf(ipath, sizeof ipath, "%s/image.f32", dir);
    struct stat st;
    ck_assert_int_eq(stat(ipath, &st), 0);
    ck_assert_int_eq(st.st_size, 32 * 32 * 32 * 4);
    free(spec);

    cli(&r, "data", "rm", "cli-gather.f32");
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "data cli-gather.f32 removed"));
    fdt_run_free(&r);
    cli(&r, "data", "rm", "cli-gather.f32"); /* gone: 404, exit 7 */
    ck_assert_int_eq(r.code, 7);
    fdt_run_free(&r);
    cli(&r, "data", "frob");
    ck_assert_int_eq(r.code, 2);
    fdt_run_free(&r);
}
END_TEST

START_TEST(idempotent_submit_and_priority)
{
    char *path = write_tmp("idem.json", small_spec);
    fdt_run a, b;
    cli(&a, "--json", "submit", path, "--idempotency-key", "cli-test-key-1", "--priority", "5");
    cli(&b, "--json", "submit", path, "--idempotency-key", "cli-test-key-1", "--priority", "5");
    ck_assert_int_eq(a.code, 0);
    ck_assert_int_eq(b.code, 0);
    json_t *ja = json_loads(a.out, 0, NULL), *jb = json_loads(b.out, 0, NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(ja, "id")),
                     json_integer_value(json_object_get(jb, "id")));
    json_t *st = status_json((long)json_integer_value(json_object_get(ja, "id")));
    ck_assert_int_eq(json_integer_value(json_object_get(st, "priority")), 5);
    json_decref(st);
    json_decref(ja);
    json_decref(jb);
    fdt_run_free(&a);
    fdt_run_free(&b);
    cli(&a, "submit", path, "--priority", "high");
    ck_assert_int_eq(a.code, 2);
    fdt_run_free(&a);
    cli(&a, "submit", path, "--priority", "99");
    ck_assert_int_eq(a.code, 4); /* the server's range check */
    fdt_run_free(&a);
    /* In text the retry says which job it is (issue 14), also before --wait follows it;
     * another spec under the key is refused (422: exit 4) naming that job. */
    cli(&a, "--json", "submit", path, "--idempotency-key", "cli-test-key-2");
    json_t *first = json_loads(a.out, 0, NULL);
    const long id = (long)json_integer_value(json_object_get(first, "id"));
    json_decref(first);
    fdt_run_free(&a);
    char want[96];
    snprintf(want, sizeof want, "already submitted as job %ld (", id);
    cli(&a, "submit", path, "--idempotency-key", "cli-test-key-2");
    ck_assert_int_eq(a.code, 0);
    ck_assert_msg(strncmp(a.out, want, strlen(want)) == 0, "%s", a.out);
    fdt_run_free(&a);
    cli(&a, "submit", path, "--idempotency-key", "cli-test-key-2", "--wait");
    ck_assert_int_eq(a.code, 0);
    snprintf(want, sizeof want, "already submitted as job %ld; waiting for it to finish\n", id);
    ck_assert_msg(strncmp(a.err, want, strlen(want)) == 0, "%s", a.err);
    fdt_run_free(&a);
    char *other_spec = strdup(small_spec);
    memcpy(strstr(other_spec, "cli small"), "cli other", 9);
    char *other = write_tmp("idem-other.json", other_spec);
    cli(&a, "submit", other, "--idempotency-key", "cli-test-key-2");
    ck_assert_int_eq(a.code, 4);
    snprintf(want, sizeof want, "was already used for job %ld with a different spec", id);
    ck_assert_msg(strstr(a.err, "error: idempotency_key_reused: Idempotency-Key: ") &&
                      strstr(a.err, want),
                  "%s", a.err);
    fdt_run_free(&a);
    free(other);
    free(other_spec);
    free(path);
}
END_TEST

/* `fetch -o` creates the folders it needs (the docs' `-o results/shot42`), and says so
 * when a part of the path is a file. */
START_TEST(fetch_creates_nested_folders)
{
    long id = submit_json(small_spec);
    char ids[32], dir[1024], file[1200];
    snprintf(ids, sizeof ids, "%ld", id);
    fdt_run r;
    cli(&r, "watch", ids);
    fdt_run_free(&r);
    snprintf(dir, sizeof dir, "%s/nested/a/b/c", tmp);
    cli(&r, "fetch", ids, "gather.segy", "-o", dir);
    ck_assert_msg(r.code == 0, "%s", r.err);
    snprintf(file, sizeof file, "%s/gather.segy\n", dir);
    ck_assert_str_eq(r.out, file);
    fdt_run_free(&r);
    file[strlen(file) - 1] = '\0';
    ck_assert_int_eq(access(file, R_OK), 0);
    snprintf(dir, sizeof dir, "%s/x", file); /* below the file just fetched */
    cli(&r, "fetch", ids, "gather.segy", "-o", dir);
    ck_assert_int_eq(r.code, 9);
    ck_assert_msg(strstr(r.err, "cannot create directory") && strstr(r.err, "Not a directory"),
                  "%s", r.err);
    fdt_run_free(&r);
}
END_TEST

/* The daemon goes away in the middle of a watch and comes back on the same port: the
 * watch reconnects with Last-Event-ID and still ends with the job's result. */
START_TEST(watch_reconnects_after_restart)
{
    char *spec = long_spec(20000);
    long id = submit_json(spec);
    free(spec);
    char ids[32];
    snprintf(ids, sizeof ids, "%ld", id);
    char *argv[] = {FDT_CLI, "--url", daemon_.url, "--json", "watch", ids, NULL};
    fdt_proc p;
    ck_assert_int_eq(fdt_spawn(&p, argv, NULL), 0);
    for (int i = 0; i < 400; i++) {
        json_t *j = status_json(id);
        int running = strcmp(json_string_value(json_object_get(j, "state")), "running") == 0 &&
                      json_is_object(json_object_get(j, "progress"));
        json_decref(j);
        if (running)
            break;
        usleep(25000);
    }
    int port = daemon_.port;
    char data[600];
    snprintf(data, sizeof data, "%s", daemon_.data_dir);
    fdt_daemon_stop(&daemon_);
    usleep(1500000);
    ck_assert_int_eq(fdt_daemon_start(&daemon_, FDT_DAEMON, data, port), 0);
    fdt_run r;
    ck_assert_int_eq(fdt_wait(&p, &r, 600), 0); /* a bound under load, not a wait */
    if (r.code != 0)
        dump("watch across restart", &r);
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.err, "reconnecting (Last-Event-ID: "));
    /* Every event once, in order, across the reconnect; one "end", the last line. */
    long last = -1;
    int ends = 0;
    const char *final_state = NULL;
    json_t *e = NULL;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        json_decref(e);
        e = json_loads(line, 0, NULL);
        ck_assert_msg(e != NULL, "not JSON: %s", line);
        long eid = atol(json_string_value(json_object_get(e, "id")));
        ck_assert_msg(eid > last, "event %ld after %ld: replayed or out of order", eid, last);
        last = eid;
        if (strcmp(json_string_value(json_object_get(e, "event")), "end") == 0) {
            ends++;
            final_state = json_string_value(json_object_get(json_object_get(e, "data"), "state"));
            ck_assert_str_eq(final_state, "succeeded");
        }
    }
    ck_assert_int_eq(ends, 1);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(json_string_value(json_object_get(e, "event")), "end");
    json_decref(e);
    fdt_run_free(&r);
}
END_TEST

/* A second daemon with a token configured: auth is on even on loopback. */
START_TEST(tokens)
{
    char dir[600], data[700];
    snprintf(dir, sizeof dir, "%s/auth", tmp);
    snprintf(data, sizeof data, "%s/data", dir);
    mkdir(dir, 0755);
    mkdir(data, 0755);
    char *add[] = {FDT_DAEMON, "token", "add", "alice", "--data", data, NULL};
    fdt_run r;
    ck_assert_int_eq(fdt_exec(&r, add, NULL, 30), 0);
    ck_assert_int_eq(r.code, 0);
    char token[256];
    ck_assert_int_eq(sscanf(r.out, "%255s", token), 1);
    fdt_run_free(&r);
    fdt_daemon d2;
    ck_assert_int_eq(fdt_daemon_start(&d2, FDT_DAEMON, data, 0), 0);
    cli_env(&r, d2.url, NULL, "list", (const char *)NULL);
    ck_assert_int_eq(r.code, 6);
    ck_assert_ptr_nonnull(strstr(r.err, "unauthorized"));
    fdt_run_free(&r);
    cli_env(&r, d2.url, NULL, "--token", "wrong", "list", (const char *)NULL);
    ck_assert_int_eq(r.code, 6);
    fdt_run_free(&r);
    cli_env(&r, d2.url, NULL, "--token", token, "list", (const char *)NULL);
    ck_assert_int_eq(r.code, 0);
    fdt_run_free(&r);
    char envtok[300];
    snprintf(envtok, sizeof envtok, "FDWAVE_TOKEN=%s", token);
    char *env[] = {envtok, NULL};
    cli_env(&r, d2.url, env, "devices", (const char *)NULL);
    ck_assert_int_eq(r.code, 0);
    fdt_run_free(&r);
    fdt_daemon_stop(&d2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("clients-cli");
    TCase *t = tcase_create("against fdwaved");
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, usage_errors);
    tcase_add_test(t, unreachable);
    tcase_add_test(t, invalid_spec_shows_field);
    tcase_add_test(t, submit_wait_status_list_outputs_fetch);
    tcase_add_test(t, fetch_creates_nested_folders);
    tcase_add_test(t, watch_lines_and_json);
    tcase_add_test(t, watch_on_a_terminal_draws_a_bar);
    tcase_add_test(t, cancel_running_and_conflict);
    tcase_add_test(t, models_and_devices);
    tcase_add_test(t, data_put_ls_rm_and_an_image);
    tcase_add_test(t, idempotent_submit_and_priority);
    tcase_add_test(t, tokens);
    suite_add_tcase(s, t);
    /* Restarts the daemon: run it last, in the parent, so the fixture sees the new pid. */
    TCase *t2 = tcase_create("restart");
    tcase_add_unchecked_fixture(t2, setup, teardown);
    tcase_set_timeout(t2, 700);
    tcase_add_test(t2, watch_reconnects_after_restart);
    suite_add_tcase(s, t2);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
