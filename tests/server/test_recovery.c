/* test_recovery.c — nothing accepted is lost: kill -9 the daemon while a job runs and
 * while clients are submitting; restart; the interrupted job is re-queued without the
 * crash counted against it and completes; every job that got a 201 exists exactly once
 * (idempotent retries of the unanswered request add nothing); PRAGMA integrity_check is
 * ok. Also: SIGTERM re-queues a running job without counting the attempt, and a job that
 * was running through 10 daemon crashes fails. */
#include "harness.h"

#include <check.h>
#include <curl/curl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static daemon_proc D;

static void setup(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
}

static json_t *get_job(long id)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    http_resp r;
    http(&D, "GET", path, NULL, NULL, 0, &r);
    json_t *j = r.status == 200 ? http_json(&r) : NULL;
    http_free(&r);
    return j;
}

/* Wait until the job runs and has reported progress. */
static int wait_running(long id, double timeout_s)
{
    for (int i = 0; i < (int)(timeout_s * 20); i++) {
        json_t *j = get_job(id);
        int ok = j && !strcmp(json_string_value(json_object_get(j, "state")), "running") &&
                 json_is_object(json_object_get(j, "progress"));
        if (!ok && i == (int)(timeout_s * 20) - 1) {
            char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
            fprintf(stderr, "job %ld never seen running with progress: %s\n", id,
                    t ? t : "(no job)");
            free(t);
        }
        json_decref(j);
        if (ok)
            return 1;
        usleep(50000);
    }
    return 0;
}

static void integrity_ok(const char *data)
{
    char path[700];
    snprintf(path, sizeof path, "%s/fdwave.db", data);
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

typedef struct submitter {
    long ids[2000];
    int n201;
    int stopped_at;            /* index of the request that got no answer */
    volatile int stop;
} submitter;

static void *submit_loop(void *arg)
{
    submitter *s = arg;
    char spec[4096];
    small_spec(spec, sizeof spec, 16, 5, 5, 1);
    for (int i = 0; i < 2000 && !s->stop; i++) {
        char key[64];
        snprintf(key, sizeof key, "Idempotency-Key: crash-%d", i);
        const char *h[] = {key, NULL};
        long st;
        long id = submit(&D, spec, h, &st);
        if (st != 201) {
            s->stopped_at = i;
            return NULL;
        }
        s->ids[s->n201++] = id;
    }
    s->stopped_at = -1;
    return NULL;
}

START_TEST(kill9_during_run_and_submits)
{
    harness_tmpdir(D.data, sizeof D.data);
    ck_assert_int_eq(harness_start(&D, NULL), 0);
    char spec[4096];
    small_spec(spec, sizeof spec, 64, 20000, 5000, 1);
    long st;
    long long_id = submit(&D, spec, NULL, &st);
    ck_assert_int_eq(st, 201);
    ck_assert(wait_running(long_id, 20));
    static submitter s;
    memset(&s, 0, sizeof s);
    pthread_t t;
    pthread_create(&t, NULL, submit_loop, &s);
    usleep(400000);
    harness_kill9(&D); /* mid-run, mid-submit */
    pthread_join(t, NULL);
    ck_assert_msg(s.n201 > 0, "no submission got through before the kill");
    ck_assert_int_ge(s.stopped_at, 0);
    integrity_ok(D.data);
    /* The kill really hit the run. */
    char dbp[700], sql[128];
    snprintf(dbp, sizeof dbp, "%s/fdwave.db", D.data);
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(dbp, &db), SQLITE_OK);
    sqlite3_stmt *q;
    snprintf(sql, sizeof sql, "SELECT state FROM jobs WHERE id = %ld", long_id);
    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(q, 0), "running");
    sqlite3_finalize(q);
    sqlite3_close(db);

    ck_assert_int_eq(harness_start(&D, NULL), 0);
    /* The interrupted job went back to the queue and completes; the daemon's crash was not
     * the job's: it is still its first attempt. */
    ck_assert_str_eq(wait_done(&D, long_id, 600, NULL), "succeeded"); /* a bound, not a wait */
    json_t *j = get_job(long_id);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "attempts")), 1);
    json_decref(j);
    /* Retrying the request that got no answer, with its key, creates nothing new. */
    char key[64];
    snprintf(key, sizeof key, "Idempotency-Key: crash-%d", s.stopped_at);
    const char *h[] = {key, NULL};
    small_spec(spec, sizeof spec, 16, 5, 5, 1);
    long retry = submit(&D, spec, h, &st);
    ck_assert(st == 200 || st == 201);
    long again = submit(&D, spec, h, &st);
    ck_assert_int_eq(st, 200);
    ck_assert_int_eq(again, retry);
    /* Every 201'd job exists exactly once. */
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs?limit=500", NULL, NULL, 0, &r), 0);
    json_t *list = http_json(&r);
    http_free(&r);
    json_t *jobs = json_object_get(list, "jobs");
    for (int i = 0; i < s.n201; i++) {
        int count = 0;
        size_t k;
        json_t *v;
        json_array_foreach(jobs, k, v) count += json_integer_value(json_object_get(v, "id")) == s.ids[i];
        ck_assert_msg(count == 1, "job %ld appears %d times", s.ids[i], count);
    }
    /* jobs = the long one + the 201'd ones + at most the one unanswered request */
    ck_assert_int_le(json_array_size(jobs), (size_t)s.n201 + 2);
    ck_assert_int_ge(json_array_size(jobs), (size_t)s.n201 + 1);
    json_decref(list);
    ck_assert_int_eq(harness_stop(&D), 0);
    integrity_ok(D.data);
    harness_rmtree(D.data);
}
END_TEST

START_TEST(sigterm_requeues)
{
    harness_tmpdir(D.data, sizeof D.data);
    ck_assert_int_eq(harness_start(&D, NULL), 0);
    char spec[4096];
    small_spec(spec, sizeof spec, 64, 20000, 5000, 1);
    long st;
    long id = submit(&D, spec, NULL, &st);
    ck_assert_int_eq(st, 201);
    ck_assert(wait_running(id, 20));
    /* a stream open during shutdown is closed, not left hanging */
    ck_assert_int_eq(harness_stop(&D), 0);
    ck_assert_int_eq(harness_start(&D, NULL), 0);
    /* It did not count as an attempt: the next run is attempt 1. */
    ck_assert_str_eq(wait_done(&D, id, 600, NULL), "succeeded"); /* a bound */
    json_t *j = get_job(id);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "attempts")), 1);
    json_decref(j);
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", id);
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_ptr_nonnull(strstr(r.body, "re-queued at shutdown"));
    ck_assert_ptr_nonnull(strstr(r.body, "event: end"));
    http_free(&r);
    ck_assert_int_eq(harness_stop(&D), 0);
    integrity_ok(D.data);
    harness_rmtree(D.data);
}
END_TEST

START_TEST(ten_crashes_fail)
{
    harness_tmpdir(D.data, sizeof D.data);
    ck_assert_int_eq(harness_start(&D, NULL), 0);
    char spec[4096];
    small_spec(spec, sizeof spec, 16, 5, 5, 1);
    long st;
    long id = submit(&D, spec, NULL, &st);
    ck_assert_str_eq(wait_done(&D, id, 600, NULL), "succeeded"); /* a bound */
    ck_assert_int_eq(harness_stop(&D), 0);
    /* Pretend the daemon died during a run for the tenth time. */
    char path[700];
    snprintf(path, sizeof path, "%s/fdwave.db", D.data);
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    char sql[200];
    snprintf(sql, sizeof sql,
             "UPDATE jobs SET state='running', attempts=1, interruptions=9 WHERE id=%ld", id);
    ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    ck_assert_int_eq(harness_start(&D, NULL), 0);
    json_t *j = get_job(id);
    ck_assert_str_eq(json_string_value(json_object_get(j, "state")), "failed");
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(j, "reason")), "the daemon stopped 10 times"));
    json_decref(j);
    ck_assert_int_eq(harness_stop(&D), 0);
    harness_rmtree(D.data);
}
END_TEST

START_TEST(fewer_devices_after_restart)
{
    harness_tmpdir(D.data, sizeof D.data);
    ck_assert_int_eq(harness_start(&D, NULL), 0);
    char blocker[4096], wide[4096];
    small_spec(blocker, sizeof blocker, 64, 20000, 5000, 1);
    small_spec(wide, sizeof wide, 16, 10, 5, 4);
    long st;
    long b = submit(&D, blocker, NULL, &st);
    ck_assert(wait_running(b, 20));
    long w = submit(&D, wide, NULL, &st); /* waits: one device is busy */
    ck_assert_int_eq(st, 201);
    ck_assert_int_eq(harness_stop(&D), 0);
    /* Restart with 2 devices: the 4-device job can never run; it fails with a reason
     * instead of blocking the queue, and the 1-device job runs. */
    const char *two[] = {"--devices", "cpu:2", NULL};
    ck_assert_int_eq(harness_start(&D, two), 0);
    ck_assert_str_eq(wait_done(&D, w, 10, NULL), "failed");
    json_t *j = get_job(w);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(j, "reason")), "4 devices"));
    json_decref(j);
    ck_assert(wait_running(b, 20));
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/cancel", b);
    http_resp r;
    ck_assert_int_eq(http(&D, "POST", path, NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 202);
    http_free(&r);
    ck_assert_str_eq(wait_done(&D, b, 5, NULL), "cancelled");
    ck_assert_int_eq(harness_stop(&D), 0);
    harness_rmtree(D.data);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_recovery");
    TCase *tc = tcase_create("recovery");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 700); /* bounds under load, not waits */
    tcase_add_test(tc, kill9_during_run_and_submits);
    tcase_add_test(tc, sigterm_requeues);
    tcase_add_test(tc, ten_crashes_fail);
    tcase_add_test(tc, fewer_devices_after_restart);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
