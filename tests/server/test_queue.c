/* test_queue.c — queue order and the freshness of GET /v1/jobs/{id} against a real
 * fdwaved (4 virtual CPU devices). While a 4-device job holds every device: jobs of
 * priorities -5, 0, 5 (two each) report the queue positions their priority gives them
 * and, once the blocker is cancelled, run in that order (highest first, oldest first
 * within a priority). GET answers are cached by the daemon, so every change must show in
 * the very next GET: a higher-priority submit moves a queued job back, a cancel shows at
 * once, and a running job's progress advances between polls. A CPU simulation runs in
 * its runner process at low priority (SCHED_IDLE), and the daemon's threads do not. */
#include "harness.h"

#include <check.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static daemon_proc D;

static void setup(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    harness_tmpdir(D.data, sizeof D.data);
    if (harness_start(&D, NULL) != 0) {
        fprintf(stderr, "fdwaved did not start; log in %s\n", D.log);
        abort();
    }
}

static void teardown(void)
{
    harness_stop(&D);
    harness_rmtree(D.data);
}

static json_t *get_job(long id)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_msg(r.status == 200, "GET %s: %ld %s", path, r.status, r.body);
    json_t *j = http_json(&r);
    http_free(&r);
    ck_assert_ptr_nonnull(j);
    return j;
}

static long job_int(long id, const char *key)
{
    json_t *j = get_job(id);
    json_t *v = json_object_get(j, key);
    long x = json_is_integer(v) ? (long)json_integer_value(v) : -1;
    json_decref(j);
    return x;
}

static void job_str(long id, const char *key, char *out, size_t cap)
{
    json_t *j = get_job(id);
    const char *s = json_string_value(json_object_get(j, key));
    snprintf(out, cap, "%s", s ? s : "");
    json_decref(j);
}

/* Submit spec at priority prio; returns the id (asserts 201). */
static long submit_prio(const char *spec, int prio)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs?priority=%d", prio);
    const char *h[] = {"Content-Type: application/json", NULL};
    http_resp r;
    ck_assert_int_eq(http(&D, "POST", path, h, spec, strlen(spec), &r), 0);
    ck_assert_msg(r.status == 201, "POST %s: %ld %s", path, r.status, r.body);
    json_t *j = http_json(&r);
    long id = (long)json_integer_value(json_object_get(j, "id"));
    json_decref(j);
    http_free(&r);
    return id;
}

static void cancel(long id)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/cancel", id);
    http_resp r;
    ck_assert_int_eq(http(&D, "POST", path, NULL, NULL, 0, &r), 0);
    ck_assert_msg(r.status == 200 || r.status == 202, "cancel %ld: %ld %s", id, r.status,
                  r.body);
    http_free(&r);
}

/* A 4-device job that runs until cancelled; returns once it is running. */
static long start_blocker(void)
{
    char spec[4096];
    small_spec(spec, sizeof spec, 32, 1000000, 1000000, 4);
    long st, id = submit(&D, spec, NULL, &st);
    ck_assert_int_eq(st, 201);
    char state[32] = "";
    for (int i = 0; i < 1200; i++) { /* up to 60 s */
        job_str(id, "state", state, sizeof state);
        if (!strcmp(state, "running"))
            break;
        usleep(50000);
    }
    ck_assert_str_eq(state, "running");
    return id;
}

/* How many threads run SCHED_IDLE (policy 5) or niced, among those whose stat files
 * /proc/<procs>/<tasks>stat names: procs the daemon's pid, or its children's (the
 * runners, as the daemon's tasks' "children" files list them); tasks every thread with
 * the task directories' glob, the main thread with "". The spec validators ("validate", nice 5 by
 * design) are not counted. -1 if unknown. */
static int low_priority_of(const char *procs, const char *tasks)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "for p in %s; do cat /proc/$p/%sstat 2>/dev/null; done | "
             "awk '/\\(validate\\)/ {next} "
             "{sub(/^.*\\) /, \"\"); if ($39 == 5 || $17 > 0) n++} END {print n + 0}'",
             procs, tasks);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static int low_priority(const char *tasks)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)D.pid);
    return low_priority_of(pid, tasks);
}

/* The runners' threads (--cpu-job-sched idle, the default, falls back to nice 19). */
static int low_priority_threads(void)
{
    char procs[96];
    snprintf(procs, sizeof procs, "$(cat /proc/%d/task/*/children 2>/dev/null)", (int)D.pid);
    return low_priority_of(procs, "task/*/");
}

/* 1 if the daemon's main thread itself is niced or SCHED_IDLE (inherited from whoever
 * started the tests, e.g. `nice ctest`), 0 if not, -1 if unknown. */
static int daemon_started_low(void) { return low_priority(""); }

START_TEST(simulation_runs_at_low_priority)
{
    if (daemon_started_low() == 1) { /* every thread is low priority: nothing to tell apart */
        printf("simulation_runs_at_low_priority: the tests run niced or SCHED_IDLE and the "
               "daemon inherited it; run them at normal priority for this check\n");
        return;
    }
    ck_assert_int_eq(low_priority_threads(), 0); /* nothing runs yet */
    long blocker = start_blocker();
    int n = 0;
    for (int i = 0; i < 1200 && n <= 0; i++) { /* up to 60 s: the runner starts under load */
        n = low_priority_threads();
        if (n <= 0)
            usleep(50000);
    }
    ck_assert_msg(n > 0, "no SCHED_IDLE or niced runner thread while a CPU job runs");
    ck_assert_int_eq(low_priority("task/*/"), 0); /* the daemon's own threads stay normal */
    cancel(blocker);
    ck_assert_str_eq(wait_done(&D, blocker, 60, NULL), "cancelled");
}
END_TEST

START_TEST(priority_order)
{
    long blocker = start_blocker();
    char spec[4096];
    small_spec(spec, sizeof spec, 12, 4, 4, 4);
    /* submitted in this order; expected run order: hi1 hi2 mid1 mid2 lo1 lo2 */
    long lo1 = submit_prio(spec, -5), mid1 = submit_prio(spec, 0), hi1 = submit_prio(spec, 5);
    long lo2 = submit_prio(spec, -5), mid2 = submit_prio(spec, 0), hi2 = submit_prio(spec, 5);
    long order[6] = {hi1, hi2, mid1, mid2, lo1, lo2};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(job_int(order[i], "queue_position") == i,
                      "job %ld: queue_position %ld, expected %d", order[i],
                      job_int(order[i], "queue_position"), i);
    cancel(blocker);
    ck_assert_str_eq(wait_done(&D, blocker, 60, NULL), "cancelled");
    char prev_end[40] = "", start[40];
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(wait_done(&D, order[i], 60, NULL), "succeeded");
        job_str(order[i], "started_at", start, sizeof start);
        ck_assert_msg(strcmp(start, prev_end) >= 0,
                      "job %ld (place %d) started at %s, before the previous one ended (%s)",
                      order[i], i, start, prev_end);
        job_str(order[i], "finished_at", prev_end, sizeof prev_end);
    }
}
END_TEST

START_TEST(get_is_never_stale)
{
    long blocker = start_blocker();
    char spec[4096];
    small_spec(spec, sizeof spec, 12, 4, 4, 4);
    long a = submit_prio(spec, 0);
    /* Poll a few times so the answer is cached, then change what it depends on. */
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(job_int(a, "queue_position"), 0);
    long b = submit_prio(spec, 3);
    ck_assert_int_eq(job_int(a, "queue_position"), 1);
    ck_assert_int_eq(job_int(b, "queue_position"), 0);
    cancel(a);
    char state[32];
    job_str(a, "state", state, sizeof state);
    ck_assert_str_eq(state, "cancelled");
    ck_assert_int_eq(job_int(a, "queue_position"), -1); /* null once it left the queue */
    ck_assert_int_eq(job_int(b, "queue_position"), 0);

    /* The running job's progress moves between polls (events every 0.5 s). */
    long step0 = -1; /* each wait ends at the event, up to 60 s under load */
    for (int i = 0; i < 1200 && step0 < 0; i++) {
        json_t *j = get_job(blocker);
        json_t *p = json_object_get(j, "progress");
        if (json_is_object(p))
            step0 = (long)json_integer_value(json_object_get(p, "step"));
        json_decref(j);
        if (step0 < 0)
            usleep(50000);
    }
    ck_assert_int_ge(step0, 0);
    long step1 = step0;
    for (int i = 0; i < 1200 && step1 == step0; i++) {
        json_t *j = get_job(blocker);
        step1 = (long)json_integer_value(json_object_get(json_object_get(j, "progress"), "step"));
        json_decref(j);
        if (step1 == step0)
            usleep(50000);
    }
    ck_assert_msg(step1 > step0, "progress stayed at step %ld for 60 s", step0);

    cancel(blocker);
    ck_assert_str_eq(wait_done(&D, blocker, 60, NULL), "cancelled");
    ck_assert_str_eq(wait_done(&D, b, 60, NULL), "succeeded");
    job_str(b, "state", state, sizeof state);
    ck_assert_str_eq(state, "succeeded");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_queue");
    TCase *tc = tcase_create("queue");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 90);
    tcase_add_test(tc, priority_order);
    tcase_add_test(tc, get_is_never_stale);
    tcase_add_test(tc, simulation_runs_at_low_priority);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
