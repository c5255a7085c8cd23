/* test_runner_faults.c — one bad job cannot take the service down. A real fdwaved (CPU
 * devices) runs two jobs at once; the runner of one is killed with SIGSEGV, SIGABRT or
 * SIGKILL (as a crash, an abort or the OOM killer would): that job alone fails with the
 * signal named (SIGKILL: it is re-queued, resumes from its checkpoint and completes; three
 * SIGKILLs and it fails), the other job succeeds and the daemon answers throughout. A
 * runner that writes garbage fails its job; one that ignores a cancel is killed after
 * runner-stop-timeout; a CPU job's runner gets RLIMIT_DATA of its estimate plus the
 * overhead, and one that allocates past it fails with "out of memory"; with a cgroup
 * directory (a plain one standing in for a delegated cgroup v2) each runner gets its
 * memory.max and joins the cgroup, and an OOM kill recorded there fails the job as out of
 * memory. Runners are found as the daemon's children; bad_runner misbehaves by name. */
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
}

static void teardown(void)
{
    harness_stop(&D);
    harness_rmtree(D.data);
}

static void start(const char *const *extra)
{
    ck_assert_msg(harness_start(&D, extra) == 0, "fdwaved did not start: see %s", D.log);
}

static void health_ok(void)
{
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", "/v1/health", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_free(&r);
}

static void reason_has(long id, const char *text)
{
    char reason[2048];
    job_text(&D, id, "reason", reason, sizeof reason);
    ck_assert_msg(strstr(reason, text) != NULL, "job %ld: reason \"%s\" lacks \"%s\"", id,
                  reason, text);
}

/* The runner of job id (the daemon's child whose run file names the job). */
static pid_t runner_of(long id)
{
    pid_t p[16];
    int n = runner_pids(&D, p, 16);
    for (int i = 0; i < n; i++) {
        char path[64], cmd[4096] = "";
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)p[i]);
        FILE *f = fopen(path, "r");
        size_t len = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
        if (f)
            fclose(f);
        for (size_t k = 0; k < len; k++)
            cmd[k] = cmd[k] ? cmd[k] : ' ';
        char want[64];
        snprintf(want, sizeof want, "/jobs/%ld/run.json", id);
        if (strstr(cmd, want))
            return p[i];
    }
    return 0;
}

/* A job killed with sig while another runs beside it. */
static void kill_beside_another(int sig, const char *expect_state, const char *reason)
{
    const char *extra[] = {"--devices", "cpu:2", "--checkpoint-interval", "1s", NULL};
    start(extra);
    char victim_spec[4096], other_spec[4096];
    small_spec(victim_spec, sizeof victim_spec, 24, 400000, 1000000, 1);
    /* the other job lasts a few seconds: it runs beside the victim to its end */
    small_spec(other_spec, sizeof other_spec, 24, 40000, 1000000, 1);
    long victim = submit_expect(&D, victim_spec, 201);
    long other = submit_expect(&D, other_spec, 201);
    ck_assert(wait_step(&D, victim, 1, 30));
    ck_assert(wait_step(&D, other, 1, 30));
    if (sig == SIGKILL) { /* let it write a checkpoint to resume from (every second) */
        int have = 0;
        for (int i = 0; i < 1200 && !have; i++) {
            json_t *j = job_get(&D, victim);
            have = json_is_object(json_object_get(j, "checkpoint"));
            json_decref(j);
            if (!have)
                usleep(50000);
        }
        ck_assert_msg(have, "job %ld wrote no checkpoint within 60 s", victim);
    }
    pid_t pid = runner_of(victim);
    ck_assert_int_gt(pid, 0);
    ck_assert_int_eq(kill(pid, sig), 0);
    health_ok();
    if (sig == SIGKILL) {
        /* re-queued, runs again from its checkpoint; then cancelled to end the test */
        ck_assert(wait_attempt(&D, victim, 2, 30));
        json_t *j = job_get(&D, victim);
        ck_assert_int_eq(json_integer_value(json_object_get(j, "attempts")), 2);
        json_decref(j);
        for (int i = 0; i < 200 && !runner_of(victim); i++)
            usleep(50000);
        ck_assert(wait_step(&D, victim, 1, 30));
        ck_assert_int_eq(job_cancel(&D, victim), 202);
        ck_assert_str_eq(wait_done(&D, victim, 30, NULL), "cancelled");
        char *ev = job_events(&D, victim);
        /* its re-queueing is on its stream with the reason, then its resume */
        const char *requeued = strstr(ev, reason);
        ck_assert_msg(requeued && strstr(requeued, "re-queued (attempt 1 of 3)"),
                      "no re-queueing in the stream: %.3000s", ev);
        ck_assert_msg(strstr(requeued, "resumed at step"), "no resume in the stream: %.3000s",
                      ev);
        free(ev);
    } else {
        ck_assert_str_eq(wait_done(&D, victim, 30, NULL), expect_state);
        reason_has(victim, reason);
    }
    ck_assert_str_eq(wait_done(&D, other, 90, NULL), "succeeded");
    json_t *o = job_get(&D, other);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "attempts")), 1); /* never re-run */
    json_decref(o);
    health_ok();
    ck_assert_int_eq(harness_stop(&D), 0);
}

START_TEST(segv_fails_that_job_only)
{
    kill_beside_another(SIGSEGV, "failed", "crashed (SIGSEGV");
}
END_TEST

START_TEST(abort_fails_that_job_only)
{
    kill_beside_another(SIGABRT, "failed", "crashed (SIGABRT");
}
END_TEST

START_TEST(sigkill_retries_from_checkpoint)
{
    kill_beside_another(SIGKILL, "queued", "killed (SIGKILL");
}
END_TEST

START_TEST(three_sigkills_fail)
{
    const char *extra[] = {"--devices", "cpu:1", "--max-attempts", "3", NULL};
    start(extra);
    char spec[4096];
    small_spec(spec, sizeof spec, 20, 400000, 1000000, 1);
    long id = submit_expect(&D, spec, 201);
    for (int k = 0; k < 3; k++) {
        ck_assert(wait_attempt(&D, id, k + 1, 30));
        pid_t pid = 0;
        for (int i = 0; i < 200 && !(pid = runner_of(id)); i++)
            usleep(50000);
        ck_assert_int_gt(pid, 0);
        kill(pid, SIGKILL);
    }
    ck_assert_str_eq(wait_done(&D, id, 30, NULL), "failed");
    reason_has(id, "gave up after 3 attempts");
    health_ok();
}
END_TEST

static void bad_runner_daemon(const char *stop_timeout)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s {runner} {run}", BAD_RUNNER);
    const char *extra[] = {"--devices", "cpu:2", "--runner-command", cmd,
                           "--runner-stop-timeout", stop_timeout, NULL};
    start(extra);
}

/* A daemon whose runner misbehaves for jobs named name: submits one such job and a good
 * one beside it; returns the bad one's id, the good one's in *good. */
static long bad_beside_good(const char *name, long *good)
{
    bad_runner_daemon("10s");
    char spec[4096], other[4096];
    named_spec(spec, sizeof spec, name, 16, 10, 10, 1);
    small_spec(other, sizeof other, 16, 50, 50, 1);
    long bad = submit_expect(&D, spec, 201);
    *good = submit_expect(&D, other, 201);
    return bad;
}

START_TEST(garbage_fails_that_job_only)
{
    long good, bad = bad_beside_good("garbage", &good);
    ck_assert_str_eq(wait_done(&D, bad, 30, NULL), "failed");
    reason_has(bad, "exited with status 3");
    ck_assert_str_eq(wait_done(&D, good, 30, NULL), "succeeded");
    health_ok();
}
END_TEST

START_TEST(hung_runner_killed_after_stop_timeout)
{
    bad_runner_daemon("2s");
    char spec[4096];
    named_spec(spec, sizeof spec, "hang", 16, 10, 10, 1);
    long id = submit_expect(&D, spec, 201);
    ck_assert(wait_state(&D, id, "running", 20));
    ck_assert_int_gt(wait_runner(&D, 10), 0);
    ck_assert_int_eq(job_cancel(&D, id), 202);
    ck_assert_str_eq(wait_done(&D, id, 20, NULL), "cancelled");
    reason_has(id, "did not stop within 2 s and was killed");
    pid_t left[4];
    ck_assert_int_eq(runner_pids(&D, left, 4), 0);
}
END_TEST

START_TEST(memory_limit_stops_that_job_only)
{
    long good, hog = bad_beside_good("hog", &good);
    ck_assert_str_eq(wait_done(&D, hog, 60, NULL), "failed");
    reason_has(hog, "out of host memory");
    /* the limit the runner had: the job's estimate and the default 1 GiB overhead */
    json_t *j = job_get(&D, hog);
    const long long est = json_integer_value(json_object_get(json_object_get(j, "memory"),
                                                             "host_bytes"));
    json_decref(j);
    ck_assert_int_gt(est, 0);
    char *ev = job_events(&D, hog), want[64];
    snprintf(want, sizeof want, "RLIMIT_DATA %lld", est + (1LL << 30));
    ck_assert_msg(strstr(ev, want) != NULL, "expected \"%s\" in %.3000s", want, ev);
    free(ev);
    ck_assert_str_eq(wait_done(&D, good, 30, NULL), "succeeded");
    health_ok();
}
END_TEST

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    return buf;
}

START_TEST(cgroup_limits_and_oom_kill)
{
    char cg[700], path[900], cmd[1600];
    snprintf(cg, sizeof cg, "%s/cgroup", D.data);
    ck_assert_int_eq(mkdir(cg, 0755), 0);
    snprintf(path, sizeof path, "%s/cgroup.controllers", cg);
    write_text(path, "cpuset cpu io memory pids\n");
    snprintf(cmd, sizeof cmd, "%s {runner} {run} %s", BAD_RUNNER, cg);
    const char *extra[] = {"--devices", "cpu:2", "--cgroup-dir", cg, "--runner-command", cmd,
                           "--runner-memory-overhead", "256M", NULL};
    start(extra);
    /* the daemon moved itself into the leaf "daemon" and enabled memory for children */
    snprintf(path, sizeof path, "%s/daemon/cgroup.procs", cg);
    ck_assert_int_eq(atoi(read_text(path)), (int)D.pid);
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", cg);
    ck_assert_str_eq(read_text(path), "+memory");
    char spec[4096];
    small_spec(spec, sizeof spec, 16, 50, 50, 1);
    long good = submit_expect(&D, spec, 201);
    ck_assert_str_eq(wait_done(&D, good, 30, NULL), "succeeded");
    json_t *j = job_get(&D, good);
    const long long est = json_integer_value(json_object_get(json_object_get(j, "memory"),
                                                             "host_bytes"));
    json_decref(j);
    snprintf(path, sizeof path, "%s/job-%ld/memory.max", cg, good);
    ck_assert_int_eq(atoll(read_text(path)), est + (256LL << 20));
    snprintf(path, sizeof path, "%s/job-%ld/cgroup.procs", cg, good);
    ck_assert_str_eq(read_text(path), "0"); /* the runner joined it before exec */
    named_spec(spec, sizeof spec, "cgroup-oom", 16, 10, 10, 1);
    long oom = submit_expect(&D, spec, 201);
    ck_assert_str_eq(wait_done(&D, oom, 30, NULL), "failed");
    reason_has(oom, "out of memory: the runner was killed by the kernel's OOM killer");
    health_ok();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("robust_runner_faults");
    TCase *tc = tcase_create("faults");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, segv_fails_that_job_only);
    tcase_add_test(tc, abort_fails_that_job_only);
    tcase_add_test(tc, sigkill_retries_from_checkpoint);
    tcase_add_test(tc, three_sigkills_fail);
    tcase_add_test(tc, garbage_fails_that_job_only);
    tcase_add_test(tc, hung_runner_killed_after_stop_timeout);
    tcase_add_test(tc, memory_limit_stops_that_job_only);
    tcase_add_test(tc, cgroup_limits_and_oom_kill);
    suite_add_tcase(s, tc);
    return robust_run(s);
}
