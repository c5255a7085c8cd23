/* test_daemon_gpu.c — issue 4's daemon-level GPU test: fdwaved scheduling onto the CUDA
 * GPUs (not virtual CPU devices) refuses a job too large for its GPU at submission (issue
 * 15: the derived device memory is checked against the GPUs' before the job is stored)
 * with a reason that says how much it needs and how much the GPU holds, and keeps
 * serving: the health check answers, the GPU is free, and a job submitted afterwards runs
 * on the GPU to the end with its outputs. Exits 77 (ctest: skipped) where no CUDA GPU is
 * present.
 * Uses the server tests' harness (tests/server/harness.h). */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fdwave/fdwave.h"
#include "harness.h"

static daemon_proc g_d;

static void setup(void)
{
    harness_tmpdir(g_d.data, sizeof g_d.data);
    const char *extra[] = {"--devices", "gpu:0", NULL};
    ck_assert_msg(harness_start(&g_d, extra) == 0, "fdwaved did not start on GPU 0 (log %s)",
                  g_d.log);
}

static void teardown(void)
{
    ck_assert_int_eq(harness_stop(&g_d), 0);
    harness_rmtree(g_d.data);
}

/* GET path as JSON (NULL unless 200). */
static json_t *get_json(const char *path)
{
    http_resp r;
    json_t *j = NULL;
    if (http(&g_d, "GET", path, NULL, NULL, 0, &r) == 0 && r.status == 200)
        j = http_json(&r);
    http_free(&r);
    return j;
}

/* A job that did not end as expected: its record and the daemon's last log lines, on
 * stdout before the assertion fails (the data folder goes with the fixture). */
static void dump_job(long id)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    http_resp r;
    if (http(&g_d, "GET", path, NULL, NULL, 0, &r) == 0)
        printf("job %ld: %s\n", id, r.body ? r.body : "");
    http_free(&r);
    char cmd[sizeof g_d.log + 32];
    snprintf(cmd, sizeof cmd, "tail -n 60 '%s'", g_d.log);
    fflush(stdout);
    if (system(cmd) != 0)
        printf("(no daemon log at %s)\n", g_d.log);
    fflush(stdout);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

START_TEST(test_too_large_job_fails_and_daemon_serves)
{
    /* The daemon lists GPU 0 as a gpu device with its memory. */
    json_t *devs = get_json("/v1/devices");
    ck_assert_ptr_nonnull(devs);
    json_t *d0 = json_array_get(json_object_get(devs, "devices"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(d0, "kind")), "gpu");
    const double total = (double)json_integer_value(json_object_get(d0, "memory_total"));
    ck_assert(total > 1e9);
    json_decref(devs);

    /* An acoustic grid whose three wavefields alone need 1.25x the GPU's memory. */
    int n = (int)ceil(cbrt(1.25 * total / 12.0));
    n = (n + 15) / 16 * 16;
    char spec[1024];
    snprintf(spec, sizeof spec,
             "{\"kind\":\"acoustic\",\"name\":\"too large\","
             "\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":8,\"velocity\":{\"type\":\"constant\",\"value\":2000},"
             "\"time\":{\"nt\":10,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[%d,%d,%d],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}",
             n, n, n, 5 * n, 5 * n, 5 * n);
    long status = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const char *hdr[] = {"Content-Type: application/json", NULL};
    http_resp br;
    ck_assert_int_eq(http(&g_d, "POST", "/v1/jobs", hdr, spec, strlen(spec), &br), 0);
    const double took = seconds_since(&t0);
    ck_assert_int_eq(br.status, 400);
    char body[8192];
    snprintf(body, sizeof body, "%s", br.body ? br.body : "");
    http_free(&br);
    printf("test_daemon_gpu: %d^3 (%.1f GiB of wavefields on a %.1f GiB GPU) refused in %.2f s: "
           "%s\n", n, 12.0 * n * n * n / 1073741824.0, total / 1073741824.0, took, body);
    ck_assert_msg(strstr(body, "needs") && strstr(body, "GiB") && strstr(body, "hold") &&
                      strstr(body, "\"grid\""),
                  "the refusal must say how much the job needs and how much the GPU holds: %s",
                  body);
    ck_assert_msg(took < 30, "the too-large job took %.1f s to be refused", took);

    /* The daemon is alive and healthy, the GPU is free. */
    ck_assert_int_eq(kill(g_d.pid, 0), 0);
    json_t *health = get_json("/v1/health");
    ck_assert_ptr_nonnull(health);
    json_decref(health);
    devs = get_json("/v1/devices");
    ck_assert_ptr_nonnull(devs);
    d0 = json_array_get(json_object_get(devs, "devices"), 0);
    ck_assert(json_is_null(json_object_get(d0, "busy_job")));
    json_decref(devs);

    /* A job submitted afterwards runs on the GPU to the end, with its outputs. */
    small_spec(spec, sizeof spec, 48, 60, 30, 1);
    const long small = submit(&g_d, spec, NULL, &status);
    ck_assert_int_eq(status, 201);
    const char *end = wait_done(&g_d, small, 120, NULL);
    if (strcmp(end, "succeeded") != 0)
        dump_job(small);
    ck_assert_str_eq(end, "succeeded");
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", small);
    json_t *job = get_json(path);
    ck_assert_ptr_nonnull(job);
    json_t *devices = json_object_get(job, "devices");
    ck_assert_msg(json_array_size(devices) == 1 && json_integer_value(json_array_get(devices, 0)) == 0,
                  "the small job must have run on GPU 0");
    json_decref(job);
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs", small);
    json_t *man = get_json(path);
    ck_assert_ptr_nonnull(man);
    ck_assert_int_gt(json_array_size(json_object_get(man, "files")), 0);
    json_decref(man);
}
END_TEST

int main(void)
{
    if (fdw_gpu_count() == 0) {
        printf("test_daemon_gpu: no CUDA device, skipped\n");
        return 77;
    }
    Suite *s = suite_create("daemon_gpu");
    TCase *tc = tcase_create("too_large");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_too_large_job_fails_and_daemon_serves);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
