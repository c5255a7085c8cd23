/* test_waiting.c — a queued job says what it waits for (issue 29), each case against a
 * real fdwaved on CPU devices: its reason in GET /v1/jobs/{id} and a "state" event
 * (queued, with that reason) on its event stream, for each thing a job can wait for:
 *   devices: a job that holds every device keeps the next one waiting, the reason names
 *   the busy devices and the job on them; once they are free it runs, the wait said on
 *   its stream before "running", once however many passes the scheduler made meanwhile;
 *   its place in the queue: the job behind that one ("1 job ahead of it", in the POST
 *   answer, GET and its first event);
 *   a worker: --workers 1 and a running job;
 *   host memory: two jobs that fit the budget one at a time;
 *   the disk: min-free-disk above what the disk has;
 *   a quota: alice at her devices= limit while a device is free.
 * Each waits for the event it checks (a reason, a state, a line on a stream), never for
 * a time. */
#include "robust_util.h"

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
    robust_as(NULL);
}

static void teardown(void)
{
    robust_as(NULL);
    harness_stop(&D);
    harness_rmtree(D.data);
}

static void start(const char *const *extra)
{
    ck_assert_msg(harness_start(&D, extra) == 0, "fdwaved did not start: see %s", D.log);
}

/* A job on 24^3 points that runs until cancelled, on devices devices; nothing recorded,
 * so its memory is little more than its runner's. */
static void long_job(char *spec, size_t cap, int devices)
{
    snprintf(spec, cap,
             "{\"kind\":\"acoustic\",\"name\":\"waiter\",\"grid\":{\"nx\":24,\"ny\":24,"
             "\"nz\":24,\"dx\":10,\"dy\":10,\"dz\":10},\"order\":4,\"velocity\":{\"type\":"
             "\"constant\",\"value\":2000},\"time\":{\"nt\":1000000,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[115,115,115],\"wavelet\":{\"type\":\"ricker\","
             "\"f0\":25}}],\"boundary\":{\"type\":\"sponge\",\"width\":4},\"devices\":%d}",
             devices);
}

/* Wait until job id, queued, gives a reason starting with prefix; that reason into why
 * (the whole of it). Fails when the job leaves the queue or 60 s pass. */
static void wait_reason(long id, const char *prefix, char *why, size_t cap)
{
    char state[32];
    for (int i = 0; i < 1200; i++) {
        job_text(&D, id, "state", state, sizeof state);
        ck_assert_msg(!strcmp(state, "queued"), "job %ld is %s", id, state);
        job_text(&D, id, "reason", why, cap);
        if (!strncmp(why, prefix, strlen(prefix)))
            return;
        usleep(50000);
    }
    ck_abort_msg("job %ld never gave a reason \"%s...\" (last: \"%s\")", id, prefix, why);
}

/* The event stream of job id has the state event queued with reason why. */
static void stream_says(long id, const char *token, const char *why)
{
    char needle[600];
    snprintf(needle, sizeof needle, "{\"state\":\"queued\",\"reason\":\"%s\"}", why);
    char *text = events_until(&D, id, token, needle, 60);
    ck_assert_msg(text != NULL, "job %ld's stream never said %s", id, needle);
    free(text);
}

/* How many times needle occurs in s. */
static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

START_TEST(devices_then_place_in_queue)
{
    const char *extra[] = {"--devices", "cpu:2", NULL};
    start(extra);
    char all[4096], one[4096], why[512], first[512];
    long_job(all, sizeof all, 2);
    long_job(one, sizeof one, 1);
    long a = submit_expect(&D, all, 201);
    ck_assert(wait_state(&D, a, "running", 60));
    long b = submit_expect(&D, one, 201);
    wait_reason(b, "waits for devices: ", why, sizeof why);
    char busy[128];
    snprintf(busy, sizeof busy, "busy: 0: job %ld, 1: job %ld", a, a);
    ck_assert_msg(strstr(why, "it needs 1, 0 of 2 free") && strstr(why, busy), "%s", why);
    stream_says(b, NULL, why);
    snprintf(first, sizeof first, "%s", why);

    /* The job behind it waits for its place: said in the POST answer, GET, its stream. */
    const char *h[] = {"Content-Type: application/json", NULL};
    http_resp r;
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", h, one, strlen(one), &r), 0);
    ck_assert_int_eq(r.status, 201);
    json_t *j = http_json(&r);
    http_free(&r);
    const long c = (long)json_integer_value(json_object_get(j, "id"));
    ck_assert_int_eq(json_integer_value(json_object_get(j, "queue_position")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(j, "reason")),
                     "waits for its place in the queue: 1 job ahead of it");
    json_decref(j);
    job_text(&D, c, "reason", why, sizeof why);
    ck_assert_str_eq(why, "waits for its place in the queue: 1 job ahead of it");
    stream_says(c, NULL, why);

    /* Once a's devices are free both run; b's stream said its wait once, before running,
     * however many passes the scheduler made meanwhile (each submission makes one). */
    ck_assert_int_eq(job_cancel(&D, a), 202);
    ck_assert(wait_state(&D, b, "running", 60));
    ck_assert(wait_state(&D, c, "running", 60));
    char *text = events_until(&D, b, NULL, "{\"state\":\"running\"", 60);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(count(text, "waits for devices"), 1);
    const char *said = strstr(text, first), *ran = strstr(text, "{\"state\":\"running\"");
    ck_assert_msg(said && ran && said < ran, "the wait not before running: %s", text);
    free(text);
    job_text(&D, b, "reason", why, sizeof why);
    ck_assert_str_eq(why, "");
    ck_assert_int_eq(job_cancel(&D, b), 202);
    ck_assert_int_eq(job_cancel(&D, c), 202);
}
END_TEST

/* The case of a second one-device job kept waiting by a first that runs (as token, NULL:
 * none): the second's reason starts with prefix and is whole into why, its stream says it;
 * once the first is cancelled the second runs. */
static void second_waits(const char *token, const char *prefix, char *why, size_t cap)
{
    char one[4096];
    long_job(one, sizeof one, 1);
    long a = submit_expect(&D, one, 201);
    ck_assert(wait_state(&D, a, "running", 60));
    long b = submit_expect(&D, one, 201);
    wait_reason(b, prefix, why, cap);
    stream_says(b, token, why);
    ck_assert_int_eq(job_cancel(&D, a), 202);
    ck_assert(wait_state(&D, b, "running", 60));
    ck_assert_int_eq(job_cancel(&D, b), 202);
}

START_TEST(a_worker)
{
    const char *extra[] = {"--devices", "cpu:2", "--workers", "1", NULL};
    start(extra);
    char why[512];
    second_waits(NULL, "waits for a worker: ", why, sizeof why);
    ck_assert_str_eq(why, "waits for a worker: 1 job runs, the most at once (workers=1)");
}
END_TEST

START_TEST(host_memory)
{
    /* Each job needs a little over half the budget (the runner's 256 MiB and its arrays). */
    const char *extra[] = {"--devices", "cpu:2", "--runner-memory-overhead", "256M",
                           "--host-memory", "400M", NULL};
    start(extra);
    char why[512];
    second_waits(NULL, "waits for host memory: ", why, sizeof why);
    ck_assert_msg(strstr(why, "GiB of 0.391 GiB is held by running jobs"), "%s", why);
}
END_TEST

START_TEST(a_quota)
{
    char alice[128];
    harness_add_token(&D, "alice", 0, alice);
    const char *extra[] = {"--devices", "cpu:2", "--user-quota", "alice: devices=1", NULL};
    start(extra);
    robust_as(alice);
    char why[512];
    second_waits(alice, "waits for its owner's quota: ", why, sizeof why);
    ck_assert_str_eq(why, "waits for its owner's quota: alice runs jobs on 1 device and this "
                          "one needs 1; the quota allows 1 at once (devices=1)");
}
END_TEST

START_TEST(the_disk)
{
    const char *extra[] = {"--devices", "cpu:2", "--min-free-disk", "1000000T", NULL};
    start(extra);
    char one[4096], why[512];
    long_job(one, sizeof one, 1);
    long a = submit_expect(&D, one, 201);
    wait_reason(a, "waits for disk space: ", why, sizeof why);
    ck_assert_msg(strstr(why, "below min-free-disk (1.02e+09 GiB)"), "%s", why);
    stream_says(a, NULL, why);
    ck_assert_int_eq(job_cancel(&D, a), 200);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("robust_waiting");
    TCase *tc = tcase_create("waiting");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, devices_then_place_in_queue);
    tcase_add_test(tc, a_worker);
    tcase_add_test(tc, host_memory);
    tcase_add_test(tc, the_disk);
    tcase_add_test(tc, a_quota);
    suite_add_tcase(s, tc);
    return robust_run(s);
}
