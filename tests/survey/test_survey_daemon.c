/* test_survey_daemon.c — a survey job through a real fdwaved (CPU, 4 virtual devices): its
 * progress events carry the shots done / total and the shot under way, its outputs list
 * every shot's SEG-Y and all_shots.sgy, which download; a cancelled survey keeps the
 * shots it finished (files and outputs); `fdwave status` (C and Python) says "shots 4/4";
 * a daemon killed with SIGKILL mid-survey restarts
 * and the job resumes at the first unfinished shot, ending with every shot. */
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static daemon_proc D;

static void setup(void)
{
    memset(&D, 0, sizeof D);
    harness_tmpdir(D.data, sizeof D.data);
    ck_assert_int_eq(harness_start(&D, NULL), 0);
}

static void teardown(void)
{
    harness_stop(&D);
    harness_rmtree(D.data);
}

/* A survey of nshots shots along x, a split spread moving with them; n x 12 x 32 points. */
static void survey_spec(char *buf, size_t cap, int nx, int nshots, int nt, int devices)
{
    snprintf(buf, cap,
             "{\"kind\": \"acoustic\", \"name\": \"daemon survey\", \"grid\": {\"nx\": %d, "
             "\"ny\": 12, \"nz\": 32, \"dx\": 10, \"dy\": 10, \"dz\": 10}, \"order\": 8, "
             "\"velocity\": {\"type\": \"constant\", \"value\": 1800}, \"time\": {\"nt\": %d, "
             "\"dt\": \"auto\"}, \"boundary\": {\"type\": \"cpml\", \"width\": 5}, "
             "\"survey\": {\"generate\": {\"first\": [60, 60, 20], \"step\": [%d, 0, 0], "
             "\"count\": %d}, \"wavelet\": {\"type\": \"ricker\", \"f0\": 12}, \"outside\": "
             "\"drop\", \"spread\": {\"lines\": [{\"from\": [-50, 0, 0], \"to\": [50, 0, 0], "
             "\"count\": 11}]}}, \"receivers\": {\"interval\": 2}, \"devices\": %d}",
             nx, nt, (nx * 10 - 120) / (nshots > 1 ? nshots - 1 : 1), nshots, devices);
}

/* Submit survey_spec's survey; its job id. */
static long submit_survey(int nx, int nshots, int nt, int devices)
{
    char spec[4096];
    survey_spec(spec, sizeof spec, nx, nshots, nt, devices);
    long st;
    const long id = submit(&D, spec, NULL, &st);
    ck_assert_int_eq(st, 201);
    return id;
}

static json_t *get_json(const char *path)
{
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_msg(r.status == 200, "GET %s: %ld %s", path, r.status, r.body);
    json_t *j = http_json(&r);
    http_free(&r);
    ck_assert_ptr_nonnull(j);
    return j;
}

/* The job's progress: shots done (-1 before any survey progress). */
static int shots_done(long id)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    json_t *j = get_json(path);
    json_t *n = json_object_get(json_object_get(j, "progress"), "shots_done");
    const int v = json_is_integer(n) ? (int)json_integer_value(n) : -1;
    json_decref(j);
    return v;
}

static void wait_shots(long id, int want, double timeout_s)
{
    for (double t = 0; t < timeout_s; t += 0.05) {
        if (shots_done(id) >= want)
            return;
        usleep(50000);
    }
    ck_abort_msg("job %ld did not finish %d shots in %g s", id, want, timeout_s);
}

/* The names of the job's outputs, "|"-separated, and the survey member's shots_done. */
static int outputs(long id, char *names, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs", id);
    json_t *m = get_json(path);
    names[0] = '\0';
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(m, "files"), i, f) {
        size_t n = strlen(names);
        snprintf(names + n, cap - n, "%s|", json_string_value(json_object_get(f, "name")));
    }
    const int done =
        (int)json_integer_value(json_object_get(json_object_get(m, "survey"), "shots_done"));
    json_decref(m);
    return done;
}

START_TEST(survey_job_progress_and_outputs)
{
    const long id = submit_survey(40, 4, 150, 2);
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", id);
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0); /* to the job's end */
    ck_assert_int_eq(r.status, 200);
    int progress = 0, most = -1, shot_seen = 0;
    for (char *line = strtok(r.body, "\n"); line; line = strtok(NULL, "\n")) {
        if (strcmp(line, "event: progress") != 0)
            continue;
        char *data = strtok(NULL, "\n");
        ck_assert(data && !strncmp(data, "data: ", 6));
        json_t *d = json_loads(data + 6, 0, NULL);
        ck_assert_ptr_nonnull(d);
        if (json_object_get(d, "nshots")) {
            ck_assert_int_eq(json_integer_value(json_object_get(d, "nshots")), 4);
            ck_assert(json_is_integer(json_object_get(d, "step"))); /* the old members stay */
            ck_assert(json_is_number(json_object_get(d, "percent")));
            const int done = (int)json_integer_value(json_object_get(d, "shots_done"));
            most = done > most ? done : most;
            shot_seen |= json_integer_value(json_object_get(d, "shot")) >= 1;
            progress++;
        }
        json_decref(d);
    }
    http_free(&r);
    ck_assert_int_gt(progress, 0);
    ck_assert(shot_seen);
    ck_assert_str_eq(wait_done(&D, id, 60, NULL), "succeeded");
    ck_assert_int_eq(shots_done(id), 4);
    ck_assert(most >= 3);
    {   /* the end's reason counts the shots */
        char path[64];
        snprintf(path, sizeof path, "/v1/jobs/%ld", id);
        json_t *j = get_json(path);
        const char *reason = json_string_value(json_object_get(j, "reason"));
        ck_assert_msg(reason && strstr(reason, "completed 4 shots ("), "reason: %s",
                      reason ? reason : "(none)");
        json_decref(j);
    }
    /* the C and Python CLIs say it too */
    char cmd[1024], line[512];
    const char *clis[2] = {FDWAVE_CLI, FDWAVE_PY_CLI};
    for (int c = 0; c < 2; c++) {
        if (!clis[c][0])
            continue;
        snprintf(cmd, sizeof cmd, "%s --url %s status %ld", clis[c], D.base, id);
        FILE *p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        int found = 0;
        while (fgets(line, sizeof line, p))
            found |= strstr(line, "progress:") && strstr(line, "(shots 4/4, step");
        pclose(p);
        ck_assert_msg(found, "%s: no \"shots 4/4\" in its status", cmd);
    }
    char names[4096];
    ck_assert_int_eq(outputs(id, names, sizeof names), 4);
    for (int s = 1; s <= 4; s++) {
        char want[32];
        snprintf(want, sizeof want, "shot_%04d.sgy|", s);
        ck_assert_msg(strstr(names, want), "%s not in %s", want, names);
    }
    ck_assert_ptr_nonnull(strstr(names, "all_shots.sgy|"));
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/all_shots.sgy", id);
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_gt(r.len, 3600 + 4 * 240);
    http_free(&r);
}
END_TEST

START_TEST(cancelled_survey_keeps_finished_shots)
{
    const long id = submit_survey(64, 12, 800, 1);
    wait_shots(id, 1, 60);
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/cancel", id);
    http_resp r;
    ck_assert_int_eq(http(&D, "POST", path, NULL, "", 0, &r), 0);
    ck_assert_msg(r.status == 200 || r.status == 202, "cancel: %ld %s", r.status, r.body);
    http_free(&r);
    ck_assert_str_eq(wait_done(&D, id, 60, NULL), "cancelled");
    char names[8192];
    const int done = outputs(id, names, sizeof names);
    ck_assert_int_ge(done, 1);
    ck_assert_int_lt(done, 12);
    ck_assert_ptr_nonnull(strstr(names, "shot_0001.sgy|"));
    ck_assert_ptr_null(strstr(names, "all_shots.sgy"));
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/shot_0001.sgy", id);
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_free(&r);
}
END_TEST

START_TEST(daemon_killed_resumes_at_first_unfinished_shot)
{
    const long id = submit_survey(64, 8, 800, 1);
    wait_shots(id, 2, 90);
    harness_kill9(&D); /* the runner sees its stdin end: it suspends with a checkpoint */
    ck_assert_int_eq(harness_start(&D, NULL), 0);
    ck_assert_str_eq(wait_done(&D, id, 120, NULL), "succeeded");
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", id);
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_msg(strstr(r.body, "survey resumed: "), "no resume in the job's events");
    int resumed = 0;
    const char *at = strstr(r.body, "survey resumed: ");
    ck_assert_int_eq(sscanf(at, "survey resumed: %d of 8", &resumed), 1);
    ck_assert_int_ge(resumed, 2);
    http_free(&r);
    char names[8192];
    ck_assert_int_eq(outputs(id, names, sizeof names), 8);
    ck_assert_ptr_nonnull(strstr(names, "shot_0008.sgy|"));
    ck_assert_ptr_nonnull(strstr(names, "all_shots.sgy|"));
}
END_TEST

static Suite *daemon_suite(void)
{
    Suite *s = suite_create("survey_daemon");
    TCase *t = tcase_create("daemon");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 240);
    tcase_add_test(t, survey_job_progress_and_outputs);
    tcase_add_test(t, cancelled_survey_keeps_finished_shots);
    tcase_add_test(t, daemon_killed_resumes_at_first_unfinished_shot);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(daemon_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
