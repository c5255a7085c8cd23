/* test_resume.c — a long job survives (issue 16, points 1 and 3), against a real fdwaved
 * on CPU devices, each interrupted job's outputs compared bit for bit with those of the
 * same spec run uninterrupted on the same daemon (tests/checkpoint's comparison):
 *   the daemon stopped (SIGTERM: its runner checkpoints and the job is re-queued) and
 *   started again: the job resumes, its event stream says "resumed at step N", N > 0;
 *   the daemon killed with SIGKILL mid-job: its runner sees its stdin end, checkpoints and
 *   exits; the next daemon resumes the job from that checkpoint;
 *   preemption: a job of an admin's priority preempt-gap above a running one suspends it
 *   (checkpoint, re-queued "preempted by job X"), runs, and the preempted job resumes;
 *   the runner launched by a configured command line under mpirun with 2 ranks (one slab
 *   each; skipped where fdwave-runner has no MPI or there is no mpirun). */
#include "ckpt_util.h"
#include "robust_util.h"

#include <check.h>
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* The job of this file: 2 slabs, snapshots (PNG and raw) and receivers, a few seconds. */
static void long_spec(char *buf, size_t cap, int nt)
{
    small_spec(buf, cap, 24, nt, nt / 8, 2);
}

/* Whether job b's outputs equal job a's bit for bit (manifest less its result). */
static void same_outputs(long a, long b)
{
    char da[700], db[700], why[800] = "";
    job_out_dir(&D, a, da, sizeof da);
    job_out_dir(&D, b, db, sizeof db);
    ck_assert_msg(ckpt_outputs_equal(da, db, why, sizeof why), "jobs %ld and %ld: %s", a, b,
                  why);
}

/* The step of the first "resumed at step N" in job id's stream (0 when none). */
static long resumed_step(long id)
{
    char *ev = job_events(&D, id);
    const char *at = strstr(ev, "resumed at step ");
    const long n = at ? atol(at + 16) : 0;
    free(ev);
    return n;
}

/* The reference run, then the job to interrupt once it passed step `at` (as token, the
 * one robust_as set). */
static long reference_then(const char *spec, long *ref, long at, const char *token)
{
    *ref = submit_expect(&D, spec, 201);
    ck_assert_str_eq(wait_done(&D, *ref, 90, token), "succeeded");
    long id = submit_expect(&D, spec, 201);
    ck_assert(wait_step(&D, id, at, 60));
    return id;
}

START_TEST(daemon_restart_resumes)
{
    const char *extra[] = {"--devices", "cpu:2", "--checkpoint-interval", "1s", NULL};
    start(extra);
    char spec[4096];
    long_spec(spec, sizeof spec, 16000);
    long ref, id = reference_then(spec, &ref, 2000, NULL);
    ck_assert_int_eq(harness_stop(&D), 0); /* SIGTERM: suspended with a checkpoint */
    start(extra);
    ck_assert_str_eq(wait_done(&D, id, 90, NULL), "succeeded");
    const long n = resumed_step(id);
    ck_assert_msg(n >= 2000, "resumed at step %ld", n);
    char reason[1024];
    job_text(&D, id, "reason", reason, sizeof reason);
    ck_assert_msg(strstr(reason, "resumed at step") != NULL, "%s", reason);
    same_outputs(ref, id);
}
END_TEST

START_TEST(daemon_kill9_resumes)
{
    const char *extra[] = {"--devices", "cpu:2", "--checkpoint-interval", "1s", NULL};
    start(extra);
    char spec[4096];
    long_spec(spec, sizeof spec, 16000);
    long ref, id = reference_then(spec, &ref, 2000, NULL);
    harness_kill9(&D); /* the runner is left: its stdin ends, it checkpoints and exits */
    start(extra);
    ck_assert_str_eq(wait_done(&D, id, 90, NULL), "succeeded");
    const long n = resumed_step(id);
    ck_assert_msg(n >= 2000, "resumed at step %ld", n);
    json_t *j = job_get(&D, id);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "attempts")), 1); /* not charged */
    json_decref(j);
    same_outputs(ref, id);
}
END_TEST

START_TEST(preemption_uses_checkpoints)
{
    char admin[128], user[128];
    harness_add_token(&D, "bob", 0, user);
    harness_add_token(&D, "root", 1, admin);
    const char *extra[] = {"--devices", "cpu:2", "--preempt-gap", "3", NULL};
    start(extra);
    char spec[4096], small[4096], auth[256];
    long_spec(spec, sizeof spec, 16000);
    small_spec(small, sizeof small, 16, 300, 1000, 2);
    robust_as(user);
    long ref, low = reference_then(spec, &ref, 2000, user);
    /* the admin's job at priority 5: no device is free, the low job is 5 levels below */
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", admin);
    const char *h[] = {"Content-Type: application/json", auth, NULL};
    http_resp r;
    ck_assert_int_eq(http(&D, "POST", "/v1/jobs?priority=5", h, small, strlen(small), &r), 0);
    const long st = r.status;
    json_t *j = http_json(&r);
    const long high = (long)json_integer_value(json_object_get(j, "id"));
    json_decref(j);
    http_free(&r);
    ck_assert_int_eq(st, 201);
    ck_assert_str_eq(wait_done(&D, high, 60, admin), "succeeded");
    ck_assert_str_eq(wait_done(&D, low, 90, user), "succeeded");
    char *ev = job_events(&D, low), want[80];
    snprintf(want, sizeof want, "preempted by job %ld (resumes at step", high);
    ck_assert_msg(strstr(ev, want) != NULL, "expected \"%s\" in %.3000s", want, ev);
    free(ev);
    ck_assert_int_gt(resumed_step(low), 0);
    same_outputs(ref, low);
}
END_TEST

START_TEST(runner_under_mpirun)
{
    struct stat sb;
    if (!HAVE_MPI || stat(MPIRUN, &sb) != 0) {
        fprintf(stderr, "runner_under_mpirun: no MPI in fdwave-runner or no mpirun: skipped\n");
        return;
    }
    const char *plain[] = {"--devices", "cpu:2", NULL};
    start(plain);
    char spec[4096];
    long_spec(spec, sizeof spec, 400);
    long ref = submit_expect(&D, spec, 201);
    ck_assert_str_eq(wait_done(&D, ref, 60, NULL), "succeeded");
    ck_assert_int_eq(harness_stop(&D), 0);
    const char *mpi[] = {"--devices", "cpu:2", "--runner-command",
                         MPIRUN " --oversubscribe -np {ndevices} {runner} {run}", NULL};
    start(mpi);
    long id = submit_expect(&D, spec, 201);
    ck_assert_str_eq(wait_done(&D, id, 90, NULL), "succeeded");
    char *ev = job_events(&D, id);
    ck_assert_msg(strstr(ev, "2 MPI ranks") != NULL, "no MPI ranks in %.3000s", ev);
    free(ev);
    same_outputs(ref, id);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("robust_resume");
    TCase *tc = tcase_create("resume");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, daemon_restart_resumes);
    tcase_add_test(tc, daemon_kill9_resumes);
    tcase_add_test(tc, preemption_uses_checkpoints);
    tcase_add_test(tc, runner_under_mpirun);
    suite_add_tcase(s, tc);
    return robust_run(s);
}
