/* test_sharing.c — users share the service (issue 16, points 2, 5 and 6), each against a
 * real fdwaved on CPU devices with two users (alice, bob) and an admin:
 *   admission: a job whose memory can never fit the host budget is refused at submission
 *   with 400 naming its figures and the budget; two jobs that fit one at a time run one
 *   after the other (the second waits, queued, while the first holds the budget);
 *   quotas: queued= refuses a submission with 429 naming "queued", devices= keeps a user's
 *   second job waiting while another user's job takes the free device, GET /v1/users/me
 *   shows the quota and the standing, device-hours= refuses a user past them (429);
 *   fair share: under a mixed load (alice's job holds the only device while two jobs of
 *   hers and then two of bob's are queued) bob's jobs start before alice's once it ends,
 *   and alice's fair-share term is below bob's;
 *   wall_time: a job ends failed when its wall_time is spent; one asking more than
 *   max-wall-time is refused (400, field wall_time);
 *   accounting: GET /v1/usage (a user sees their own runs' device-seconds and wall time,
 *   another user's is 403, an admin sees both), /metrics (device-seconds per user);
 *   retention: DELETE /v1/jobs/{id} removes a finished job's outputs and keeps its record
 *   (owner or admin; someone else gets 404; a running job is cancelled), the per-user
 *   disk quota refuses a submission (429, field disk) until outputs are removed, and the
 *   retention setting removes old outputs by itself. */
#include "robust_util.h"

#include <check.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static daemon_proc D;
static char ALICE[128], BOB[128], ADMIN[128];

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

/* Start fdwaved with extra flags and the three users' tokens. */
static void start_with_users(const char *const *extra)
{
    harness_add_token(&D, "alice", 0, ALICE);
    harness_add_token(&D, "bob", 0, BOB);
    harness_add_token(&D, "root", 1, ADMIN);
    ck_assert_msg(harness_start(&D, extra) == 0, "fdwaved did not start: see %s", D.log);
}

/* POST a spec as token: the status; the id into *id (or -1); the error body's field and
 * message into field/msg when given. */
static long post_as(const char *token, const char *spec, long *id, char *field, char *msg)
{
    char auth[256];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    const char *h[] = {"Content-Type: application/json", auth, NULL};
    http_resp r;
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs", h, spec, strlen(spec), &r), 0);
    json_t *j = http_json(&r);
    if (id)
        *id = r.status / 100 == 2 ? (long)json_integer_value(json_object_get(j, "id")) : -1;
    json_t *e = json_object_get(j, "error");
    if (field)
        snprintf(field, 64, "%s", json_string_value(json_object_get(e, "field"))
                                      ? json_string_value(json_object_get(e, "field"))
                                      : "");
    if (msg)
        snprintf(msg, 1024, "%s", json_string_value(json_object_get(e, "message"))
                                      ? json_string_value(json_object_get(e, "message"))
                                      : "");
    json_decref(j);
    const long status = r.status;
    http_free(&r);
    return status;
}

static long submit_as(const char *token, const char *spec)
{
    long id;
    char field[64], msg[1024];
    const long st = post_as(token, spec, &id, field, msg);
    ck_assert_msg(st == 201, "submit: HTTP %ld: %s: %s", st, field, msg);
    return id;
}

static const char *done_as(const char *token, long id, double timeout_s)
{
    return wait_done(&D, id, timeout_s, token);
}

/* A job's string member as token sees it ("" when absent). */
static void text_as(const char *token, long id, const char *key, char *out, size_t cap)
{
    robust_as(token);
    job_text(&D, id, key, out, cap);
    robust_as(NULL);
}

START_TEST(admission_by_memory)
{
    const char *extra[] = {"--devices", "cpu:2", "--runner-memory-overhead", "256M",
                           "--host-memory", "400M", NULL};
    start_with_users(extra);
    char spec[4096], field[64], msg[1024];
    small_spec(spec, sizeof spec, 240, 10, 10, 1); /* 240^3: some 300 MiB of arrays */
    long id;
    ck_assert_int_eq(post_as(ALICE, spec, &id, field, msg), 400);
    ck_assert_str_eq(field, "grid");
    ck_assert_msg(strstr(msg, "GiB of host memory") && strstr(msg, "jobs may hold 0.391 GiB"),
                  "%s", msg);
    /* Two jobs of some 267 MiB each (with the runner's 256 MiB): one at a time. */
    small_spec(spec, sizeof spec, 80, 40000, 1000000, 1); /* until cancelled */
    long a = submit_as(ALICE, spec), b = submit_as(BOB, spec);
    robust_as(ADMIN);
    json_t *j = job_get(&D, a);
    const long long est = json_integer_value(json_object_get(json_object_get(j, "memory"),
                                                             "host_bytes"));
    json_decref(j);
    ck_assert_msg(est + (256 << 20) > (200 << 20) && est + (256 << 20) <= (400 << 20),
                  "the test's job should need between half and all of the budget: %lld", est);
    ck_assert(wait_step(&D, a, 1, 30));
    /* b waits for the memory a holds although a device is free */
    char state[32], a_state[32];
    for (int i = 0; i < 10; i++) {
        job_text(&D, b, "state", state, sizeof state);
        job_text(&D, a, "state", a_state, sizeof a_state);
        ck_assert_msg(!strcmp(state, "queued"), "job b %s while job a is %s", state, a_state);
        usleep(100000);
    }
    ck_assert_int_eq(job_cancel(&D, a), 202);
    ck_assert(wait_state(&D, b, "running", 30));
    ck_assert_int_eq(job_cancel(&D, b), 202);
    ck_assert_str_eq(done_as(ADMIN, b, 30), "cancelled");
}
END_TEST

START_TEST(quotas)
{
    const char *extra[] = {"--devices", "cpu:2", "--user-quota", "alice: queued=1, devices=1",
                           "--user-quota", "bob: device-hours=0.0002/1d", NULL};
    start_with_users(extra);
    char long_job[4096], field[64], msg[1024];
    small_spec(long_job, sizeof long_job, 20, 400000, 1000000, 1);
    long a1 = submit_as(ALICE, long_job);
    robust_as(ALICE);
    ck_assert(wait_step(&D, a1, 1, 30));
    long a2 = submit_as(ALICE, long_job); /* queued: alice runs her one device */
    long id;
    ck_assert_int_eq(post_as(ALICE, long_job, &id, field, msg), 429);
    ck_assert_str_eq(field, "queued");
    ck_assert_msg(strstr(msg, "alice has 1 jobs queued") != NULL, "%s", msg);
    /* a two-device job can never run under her quota */
    char two[4096];
    small_spec(two, sizeof two, 20, 10, 10, 2);
    ck_assert_int_eq(post_as(ALICE, two, &id, field, msg), 400);
    ck_assert_str_eq(field, "devices");
    /* bob's job takes the free device while alice's second waits */
    long b1 = submit_as(BOB, long_job);
    robust_as(BOB);
    ck_assert(wait_step(&D, b1, 1, 30));
    robust_as(ALICE);
    char state[32];
    job_text(&D, a2, "state", state, sizeof state);
    ck_assert_str_eq(state, "queued");
    json_t *me = get_json(&D, "/v1/users/me");
    ck_assert_ptr_nonnull(me);
    ck_assert_str_eq(json_string_value(json_object_get(me, "user")), "alice");
    json_t *q = json_object_get(me, "quota"), *s = json_object_get(me, "standing");
    ck_assert_int_eq(json_integer_value(json_object_get(q, "queued")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(q, "devices")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "queued")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "running_devices")), 1);
    json_decref(me);
    /* a1 ends: a2 starts */
    ck_assert_int_eq(job_cancel(&D, a1), 202);
    ck_assert(wait_state(&D, a2, "running", 30));
    ck_assert_int_eq(job_cancel(&D, a2), 202);
    /* bob's run used more than his 0.0002 device-hours (0.72 s) a day: no new job */
    usleep(800000);
    robust_as(BOB);
    ck_assert_int_eq(job_cancel(&D, b1), 202);
    ck_assert_str_eq(done_as(BOB, b1, 30), "cancelled");
    ck_assert_int_eq(post_as(BOB, long_job, &id, field, msg), 429);
    ck_assert_str_eq(field, "device_hours");
    ck_assert_msg(strstr(msg, "bob used") != NULL, "%s", msg);
}
END_TEST

/* started_at of job id as token sees it, into out. */
static void started(const char *token, long id, char *out, size_t cap)
{
    text_as(token, id, "started_at", out, cap);
    ck_assert_msg(out[0], "job %ld never started", id);
}

START_TEST(fair_share_order)
{
    const char *extra[] = {"--devices", "cpu:1", "--fairshare-weight", "5", NULL};
    start_with_users(extra);
    char first[4096], small[4096];
    small_spec(first, sizeof first, 24, 400000, 1000000, 1); /* until cancelled */
    small_spec(small, sizeof small, 16, 200, 1000, 1);
    long a0 = submit_as(ALICE, first);
    robust_as(ALICE);
    ck_assert(wait_step(&D, a0, 1, 30));
    /* the mixed load, alice's first: FIFO would run a1 a2 b1 b2 */
    long a1 = submit_as(ALICE, small), a2 = submit_as(ALICE, small);
    long b1 = submit_as(BOB, small), b2 = submit_as(BOB, small);
    /* while a0 runs, alice's usage lowers her fair-share term */
    double fa = 0, fb = 0;
    for (int i = 0; i < 100 && !(fa < fb); i++) {
        robust_as(ALICE);
        json_t *me = get_json(&D, "/v1/users/me");
        fa = json_number_value(json_object_get(json_object_get(me, "fair_share"), "priority"));
        json_decref(me);
        robust_as(BOB);
        me = get_json(&D, "/v1/users/me");
        fb = json_number_value(json_object_get(json_object_get(me, "fair_share"), "priority"));
        json_decref(me);
        usleep(50000);
    }
    ck_assert_msg(fa < fb, "fair share: alice %g, bob %g", fa, fb);
    /* all four are queued behind a0; a0 ends and the queue's order decides */
    robust_as(ALICE);
    char state[32];
    for (int k = 0; k < 2; k++) {
        job_text(&D, k ? a2 : a1, "state", state, sizeof state);
        ck_assert_str_eq(state, "queued");
    }
    ck_assert_int_eq(job_cancel(&D, a0), 202);
    const long ids[] = {a1, a2, b1, b2};
    const char *tok[] = {ALICE, ALICE, BOB, BOB};
    for (int k = 0; k < 4; k++)
        ck_assert_str_eq(done_as(tok[k], ids[k], 60), "succeeded");
    char s_a1[40], s_a2[40], s_b1[40], s_b2[40];
    started(ALICE, a1, s_a1, sizeof s_a1);
    started(ALICE, a2, s_a2, sizeof s_a2);
    started(BOB, b1, s_b1, sizeof s_b1);
    started(BOB, b2, s_b2, sizeof s_b2);
    printf("fair share: started a1 %s, a2 %s, b1 %s, b2 %s\n", s_a1, s_a2, s_b1, s_b2);
    ck_assert_msg(strcmp(s_b1, s_a1) < 0 && strcmp(s_b2, s_a1) < 0,
                  "bob's jobs should start before alice's: a1 %s, b1 %s, b2 %s", s_a1, s_b1,
                  s_b2);
    ck_assert_msg(strcmp(s_a1, s_a2) < 0, "alice's own jobs in order: %s %s", s_a1, s_a2);
}
END_TEST

START_TEST(wall_time_limit)
{
    const char *extra[] = {"--devices", "cpu:1", "--max-wall-time", "1h", NULL};
    start_with_users(extra);
    char spec[4096], field[64], msg[1024];
    small_spec(spec, sizeof spec, 20, 400000, 1000000, 1);
    char *brace = strrchr(spec, '}');
    snprintf(brace, 40, ",\"wall_time\":\"2h\"}");
    long id;
    ck_assert_int_eq(post_as(ALICE, spec, &id, field, msg), 400);
    ck_assert_str_eq(field, "wall_time");
    ck_assert_msg(strstr(msg, "max-wall-time") != NULL, "%s", msg);
    brace = strrchr(spec, ',');
    snprintf(brace, 40, ",\"wall_time\":1.5}");
    id = submit_as(ALICE, spec);
    ck_assert_str_eq(done_as(ALICE, id, 30), "failed");
    char reason[1024];
    text_as(ALICE, id, "reason", reason, sizeof reason);
    ck_assert_msg(strstr(reason, "wall-time limit reached at step") != NULL, "%s", reason);
}
END_TEST

/* The users[] entry of user in a GET /v1/usage answer (borrowed), or NULL. */
static json_t *usage_of(json_t *rep, const char *user)
{
    size_t i;
    json_t *u;
    json_array_foreach(json_object_get(rep, "users"), i, u) {
        if (!strcmp(json_string_value(json_object_get(u, "user")), user))
            return u;
    }
    return NULL;
}

START_TEST(accounting)
{
    const char *extra[] = {"--devices", "cpu:2", NULL};
    start_with_users(extra);
    char spec[4096];
    small_spec(spec, sizeof spec, 24, 3000, 1000, 2);
    long a = submit_as(ALICE, spec), b = submit_as(BOB, spec);
    ck_assert_str_eq(done_as(ALICE, a, 60), "succeeded");
    ck_assert_str_eq(done_as(BOB, b, 60), "succeeded");
    robust_as(ALICE);
    json_t *rep = get_json(&D, "/v1/usage");
    ck_assert_ptr_nonnull(rep);
    json_t *u = usage_of(rep, "alice");
    ck_assert_ptr_nonnull(u);
    ck_assert_ptr_null(usage_of(rep, "bob"));
    ck_assert_int_eq(json_integer_value(json_object_get(u, "runs")), 1);
    const double ds = json_number_value(json_object_get(u, "device_seconds"));
    const double ws = json_number_value(json_object_get(u, "wall_seconds"));
    ck_assert_msg(ds > 0 && ws > 0 && ds >= 1.9 * ws, "2 devices: device-seconds %g, wall %g",
                  ds, ws);
    ck_assert_int_gt(json_integer_value(json_object_get(u, "peak_host_bytes")), 0);
    json_decref(rep);
    http_resp r;
    char auth[256];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", ALICE);
    const char *h[] = {auth, NULL};
    ck_assert_int_eq(http(&D, "GET", "/v1/usage?user=bob", h, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 403);
    http_free(&r);
    robust_as(ADMIN);
    rep = get_json(&D, "/v1/usage?since=1h");
    ck_assert_ptr_nonnull(usage_of(rep, "alice"));
    ck_assert_ptr_nonnull(usage_of(rep, "bob"));
    json_decref(rep);
    /* the job's own accounting */
    json_t *j = job_get(&D, a);
    ck_assert_ptr_nonnull(json_object_get(j, "usage"));
    json_decref(j);
    ck_assert_int_eq(http(&D, "GET", "/metrics", NULL, NULL, 0, &r), 0);
    ck_assert_msg(strstr(r.body, "fdwave_device_seconds_total{user=\"alice\"}") &&
                      strstr(r.body, "fdwave_job_runs_total{user=\"bob\"} 1") &&
                      strstr(r.body, "fdwave_disk_free_bytes"),
                  "%.4000s", r.body);
    http_free(&r);
}
END_TEST

/* DELETE /v1/jobs/ID as token: the status. */
static long delete_as(const char *token, long id)
{
    char auth[256], path[64];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    const char *h[] = {auth, NULL};
    http_resp r;
    ck_assert_int_eq(http(&D, "DELETE", path, h, NULL, 0, &r), 0);
    const long st = r.status;
    http_free(&r);
    return st;
}

/* Who removed a job's outputs, by its JSON ("" when they are there). */
static const char *removed_by(json_t *job)
{
    const char *by = json_string_value(json_object_get(json_object_get(job, "outputs_removed"),
                                                       "by"));
    return by ? by : "";
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

START_TEST(retention_and_disk_quota)
{
    const char *extra[] = {"--devices", "cpu:2", "--user-quota", "alice: disk=1K",
                           "--upload-sweep", "1", NULL};
    start_with_users(extra);
    char spec[4096], field[64], msg[1024], out[700];
    small_spec(spec, sizeof spec, 16, 30, 10, 1); /* snapshots and gathers: several KiB */
    long a = submit_as(ALICE, spec);
    ck_assert_str_eq(done_as(ALICE, a, 30), "succeeded");
    job_out_dir(&D, a, out, sizeof out);
    ck_assert(exists(out));
    /* her outputs hold more than her disk quota: no new job */
    long id;
    ck_assert_int_eq(post_as(ALICE, spec, &id, field, msg), 429);
    ck_assert_str_eq(field, "disk");
    ck_assert_msg(strstr(msg, "fdwave rm") != NULL, "%s", msg);
    /* bob cannot see (nor remove) it */
    ck_assert_int_eq(delete_as(BOB, a), 404);
    ck_assert_int_eq(delete_as(ALICE, a), 200);
    ck_assert(!exists(out));
    robust_as(ALICE);
    json_t *j = job_get(&D, a);
    ck_assert_str_eq(json_string_value(json_object_get(j, "state")), "succeeded");
    ck_assert_str_eq(removed_by(j), "alice");
    json_decref(j);
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs", a);
    j = get_json(&D, path);
    ck_assert_int_eq(json_array_size(json_object_get(j, "files")), 0);
    json_decref(j);
    ck_assert_int_eq(delete_as(ALICE, a), 200); /* again: nothing left, same answer */
    /* room again; a running job is cancelled by DELETE */
    char long_job[4096];
    small_spec(long_job, sizeof long_job, 20, 400000, 1000000, 1);
    long r = submit_as(ALICE, long_job);
    ck_assert(wait_step(&D, r, 1, 30));
    ck_assert_int_eq(delete_as(ALICE, r), 202);
    ck_assert_str_eq(done_as(ALICE, r, 30), "cancelled");
    /* an admin removes anyone's */
    long b = submit_as(BOB, spec);
    ck_assert_str_eq(done_as(BOB, b, 30), "succeeded");
    job_out_dir(&D, b, out, sizeof out);
    ck_assert_int_eq(delete_as(ADMIN, b), 200);
    ck_assert(!exists(out));
    robust_as(BOB);
    j = job_get(&D, b);
    ck_assert_str_eq(removed_by(j), "root");
    json_decref(j);
    ck_assert_int_eq(harness_stop(&D), 0);

    /* the retention setting: outputs older than 2 s go by themselves */
    const char *again[] = {"--devices", "cpu:2", "--retention", "2s", "--upload-sweep", "1",
                           NULL};
    ck_assert_msg(harness_start(&D, again) == 0, "fdwaved did not start: see %s", D.log);
    long c = submit_as(BOB, spec);
    ck_assert_str_eq(done_as(BOB, c, 30), "succeeded");
    job_out_dir(&D, c, out, sizeof out);
    /* the record says so last (the files go first): wait for it, then the files are gone */
    robust_as(BOB);
    int marked = 0;
    for (int i = 0; i < 300 && !marked; i++) {
        j = job_get(&D, c);
        marked = strcmp(removed_by(j), "retention") == 0;
        json_decref(j);
        if (!marked)
            usleep(100000);
    }
    ck_assert_msg(marked, "retention 2s: job %ld not marked removed after 30 s", c);
    ck_assert_msg(!exists(out), "retention 2s: %s still there once the job says removed", out);
}
END_TEST

int main(void)
{
    /* Two cases, run as two ctest tests (CK_RUN_CASE) so that each stays short. */
    Suite *s = suite_create("robust_sharing");
    TCase *share = tcase_create("share"), *keep = tcase_create("keep");
    tcase_add_checked_fixture(share, setup, teardown);
    tcase_add_checked_fixture(keep, setup, teardown);
    tcase_set_timeout(share, 120);
    tcase_set_timeout(keep, 120);
    tcase_add_test(share, admission_by_memory);
    tcase_add_test(share, quotas);
    tcase_add_test(share, fair_share_order);
    tcase_add_test(keep, wall_time_limit);
    tcase_add_test(keep, accounting);
    tcase_add_test(keep, retention_and_disk_quota);
    suite_add_tcase(s, share);
    suite_add_tcase(s, keep);
    return robust_run(s);
}
