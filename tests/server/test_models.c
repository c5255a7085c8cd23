/* test_models.c — "parse once, carry the facts": a real fdwaved runs under strace, and
 * the opens of each model file by the daemon (any thread) are counted. A model whose
 * facts were recorded at upload is opened once per job — by the run's load; the spec
 * checks at submission and in the worker use the facts. A model without recorded facts
 * (as migration 002 leaves an earlier upload) is inspected once, at its first use, and
 * its facts kept: one more open, and one per job after that. Skips (exit 77) when
 * strace is missing or cannot trace here. */
#include "harness.h"

#include <check.h>
#include <curl/curl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { N = 16 };

static daemon_proc D;
static char trace_log[700];

/* Can strace trace a child here? (It needs ptrace, which some sandboxes forbid.) */
static int strace_works(void)
{
    return system("strace -f -o /dev/null true >/dev/null 2>&1") == 0;
}

static void upload(const char *name)
{
    float v[N * N * N];
    for (int i = 0; i < N * N * N; i++)
        v[i] = 1500.0f + (float)(i % 11);
    char path[200];
    snprintf(path, sizeof path, "/v1/models/%s", name);
    http_resp r;
    ck_assert_int_eq(http(&D, "PUT", path, NULL, (const char *)v, sizeof v, &r), 0);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    http_free(&r);
}

/* Submit a small acoustic job on the model and wait for it to succeed. */
static void run_job_on(const char *name)
{
    char spec[1024];
    snprintf(spec, sizeof spec,
             "{\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":4,\"velocity\":{\"type\":\"model\",\"name\":\"%s\"},"
             "\"time\":{\"nt\":8},\"sources\":[{\"position\":[80,80,80],"
             "\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}",
             N, N, N, name);
    long status;
    long id = submit(&D, spec, NULL, &status);
    ck_assert_msg(id > 0 && status == 201, "submit on %s: %ld", name, status);
    ck_assert_str_eq(wait_done(&D, id, 60, NULL), "succeeded");
}

/* Forget a model's facts, as if it had been uploaded before they were recorded. */
static void strip_facts(const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/fdwave.db", D.data);
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "UPDATE models SET nvalues = NULL, nx = NULL, "
                                        "ny = NULL, nz = NULL, dx = NULL, dy = NULL, dz = NULL, "
                                        "vmin = NULL, vmax = NULL WHERE name = ?1",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    ck_assert_int_eq(sqlite3_changes(db), 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* GET /v1/models: the entry of name, its "nvalues" (-1 when null). */
static long recorded_nvalues(const char *name)
{
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", "/v1/models", NULL, NULL, 0, &r), 0);
    json_t *j = http_json(&r);
    http_free(&r);
    long n = -2;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(j, "models"), i, m) {
        if (strcmp(json_string_value(json_object_get(m, "name")), name) == 0) {
            json_t *v = json_object_get(m, "nvalues");
            n = json_is_integer(v) ? (long)json_integer_value(v) : -1;
        }
    }
    json_decref(j);
    ck_assert_msg(n != -2, "model %s not listed", name);
    return n;
}

/* Lines of the trace that open data/models/<name> (an open split by another thread's
 * line shows the path on its first half only, so each open counts once). */
static int opens_of(const char *name)
{
    char needle[300];
    snprintf(needle, sizeof needle, "/models/%s\"", name);
    FILE *f = fopen(trace_log, "r");
    ck_assert_ptr_nonnull(f);
    char line[8192];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, needle) && (strstr(line, "open(") || strstr(line, "openat(")))
            n++;
    fclose(f);
    return n;
}

/* The traced daemon: the first pid in the trace (strace -f prefixes each line with it). */
static pid_t traced_daemon(void)
{
    FILE *f = fopen(trace_log, "r");
    ck_assert_ptr_nonnull(f);
    long pid = 0;
    ck_assert_int_eq(fscanf(f, "%ld", &pid), 1);
    fclose(f);
    return (pid_t)pid;
}

START_TEST(model_file_opened_once_per_job)
{
    curl_global_init(CURL_GLOBAL_ALL);
    harness_tmpdir(D.data, sizeof D.data);
    snprintf(trace_log, sizeof trace_log, "%s.strace", D.data);
    const char *wrap[] = {"strace", "-f", "-s", "4096", "-e", "trace=openat,open",
                          "-o", trace_log, "--", NULL};
    D.wrapper = wrap;
    ck_assert_msg(harness_start(&D, NULL) == 0, "fdwaved under strace did not start; see %s",
                  D.log);

    /* Facts recorded at upload: one open per job, the run's load. */
    upload("counted.f32");
    run_job_on("counted.f32");
    run_job_on("counted.f32");

    /* No facts recorded (an upload older than migration 002): inspected at first use,
     * then one open per job. */
    upload("older.f32");
    strip_facts("older.f32");
    ck_assert_int_eq(recorded_nvalues("older.f32"), -1);
    run_job_on("older.f32");
    ck_assert_int_eq(recorded_nvalues("older.f32"), N * N * N);
    run_job_on("older.f32");

    /* Stop the daemon itself (SIGTERM to strace would only detach it); strace then
     * writes its last lines and exits with the daemon's status. */
    ck_assert_int_eq(kill(traced_daemon(), SIGTERM), 0);
    int st = 0;
    ck_assert_int_eq(waitpid(D.pid, &st, 0), D.pid);
    D.pid = 0;
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fdwaved exited with status %d", st);

    ck_assert_int_eq(opens_of("counted.f32"), 2);
    ck_assert_int_eq(opens_of("older.f32"), 3);
    unlink(trace_log);
    harness_rmtree(D.data);
}
END_TEST

int main(void)
{
    if (!strace_works()) {
        printf("SKIP: strace is missing or cannot trace here (install strace; in a container "
               "ptrace must be allowed); the model-open count needs it\n");
        return 77;
    }
    Suite *s = suite_create("server_models");
    TCase *tc = tcase_create("models");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, model_file_opened_once_per_job);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
