/* test_concurrency.c — load on the queue and the scheduler: 8 threads submit 400 jobs
 * at once, every tenth a repeat of the previous request's Idempotency-Key: no duplicate,
 * none lost, all run. Then with 4 virtual devices: 1-device jobs, a 4-device job, and a
 * stream of 1-device jobs after it: all finish and none submitted after the large job
 * starts before it (no starvation). */
#include "harness.h"

#include <check.h>
#include <curl/curl.h>
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
    if (harness_start(&D, NULL) != 0)
        abort();
}

static void teardown(void)
{
    harness_stop(&D);
    harness_rmtree(D.data);
}

#define THREADS 8
#define PER 50

typedef struct worker {
    int t;
    long ids[PER];
    long status[PER];
} worker;

static void *submit_many(void *arg)
{
    worker *w = arg;
    char spec[4096];
    small_spec(spec, sizeof spec, 12, 4, 4, 1);
    for (int i = 0; i < PER; i++) {
        int k = (i % 10 == 9) ? i - 1 : i; /* every tenth repeats the previous key */
        char key[64];
        snprintf(key, sizeof key, "Idempotency-Key: t%d-%d", w->t, k);
        const char *h[] = {key, NULL};
        w->ids[i] = submit(&D, spec, h, &w->status[i]);
    }
    return NULL;
}

static int health(const char *key)
{
    http_resp r;
    http(&D, "GET", "/v1/health", NULL, NULL, 0, &r);
    json_t *j = http_json(&r);
    int v = (int)json_integer_value(json_object_get(j, key));
    json_decref(j);
    http_free(&r);
    return v;
}

START_TEST(parallel_submits_idempotent)
{
    static worker w[THREADS];
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t].t = t;
        pthread_create(&th[t], NULL, submit_many, &w[t]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    static long all[THREADS * PER];
    int n = 0;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER; i++) {
            if (i % 10 == 9) {
                ck_assert_int_eq(w[t].status[i], 200);
                ck_assert_int_eq(w[t].ids[i], w[t].ids[i - 1]);
            } else {
                ck_assert_msg(w[t].status[i] == 201, "submit %d/%d gave %ld", t, i,
                              w[t].status[i]);
                all[n++] = w[t].ids[i];
            }
        }
    ck_assert_int_eq(n, THREADS * (PER - PER / 10));
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            ck_assert_msg(all[a] != all[b], "duplicate id %ld", all[a]);
    /* All are stored: list them (two pages). */
    int listed = 0;
    char path[128] = "/v1/jobs?limit=200";
    while (path[0]) {
        http_resp r;
        ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
        json_t *j = http_json(&r);
        http_free(&r);
        size_t k;
        json_t *v;
        json_array_foreach(json_object_get(j, "jobs"), k, v) {
            long id = (long)json_integer_value(json_object_get(v, "id"));
            int found = 0;
            for (int a = 0; a < n && !found; a++)
                found = all[a] == id;
            ck_assert_msg(found, "listed job %ld was never acknowledged", id);
            listed++;
        }
        const char *next = json_string_value(json_object_get(j, "next"));
        snprintf(path, sizeof path, "%s", next ? next : "");
        json_decref(j);
    }
    ck_assert_int_eq(listed, n);
    /* And they all run to the end. */
    for (int i = 0; i < 600 && (health("queue") || health("running")); i++)
        usleep(100000);
    ck_assert_int_eq(health("queue"), 0);
    ck_assert_int_eq(health("running"), 0);
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", "/v1/jobs?state=succeeded&limit=500", NULL, NULL, 0, &r), 0);
    json_t *j = http_json(&r);
    ck_assert_int_eq(json_array_size(json_object_get(j, "jobs")), (size_t)n);
    json_decref(j);
    http_free(&r);
}
END_TEST

static const char *started(long id, char *buf)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    http_resp r;
    http(&D, "GET", path, NULL, NULL, 0, &r);
    json_t *j = http_json(&r);
    snprintf(buf, 40, "%s", json_string_value(json_object_get(j, "started_at")));
    json_decref(j);
    http_free(&r);
    return buf;
}

START_TEST(no_starvation)
{
    char one[4096], four[4096];
    small_spec(one, sizeof one, 32, 250, 250, 1);
    small_spec(four, sizeof four, 32, 100, 100, 4);
    long st, before[3], after[12];
    for (int i = 0; i < 3; i++)
        before[i] = submit(&D, one, NULL, &st);
    long big = submit(&D, four, NULL, &st);
    ck_assert_int_eq(st, 201);
    for (int i = 0; i < 12; i++) {
        after[i] = submit(&D, one, NULL, &st);
        ck_assert_int_eq(st, 201);
    }
    ck_assert_str_eq(wait_done(&D, big, 60, NULL), "succeeded");
    for (int i = 0; i < 3; i++)
        ck_assert_str_eq(wait_done(&D, before[i], 60, NULL), "succeeded");
    char sb[40], sa[40];
    started(big, sb);
    for (int i = 0; i < 12; i++) {
        ck_assert_str_eq(wait_done(&D, after[i], 60, NULL), "succeeded");
        started(after[i], sa);
        ck_assert_msg(strcmp(sa, sb) >= 0, "job %ld started at %s, before the 4-device job (%s)",
                      after[i], sa, sb);
    }
    /* the 4-device job ran on all four devices */
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", big);
    http_resp r;
    http(&D, "GET", path, NULL, NULL, 0, &r);
    ck_assert_ptr_nonnull(strstr(r.body, "\"devices\":[0,1,2,3]"));
    http_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_concurrency");
    TCase *tc = tcase_create("concurrency");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 90);
    tcase_add_test(tc, parallel_submits_idempotent);
    tcase_add_test(tc, no_starvation);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
