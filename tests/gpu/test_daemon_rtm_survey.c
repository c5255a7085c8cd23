/* test_daemon_rtm_survey.c — issue 27's survey through fdwaved on the GPU: a 16-shot
 * acoustic survey models the traces, they are downloaded into an allow-dir, and a 16-shot
 * rtm survey migrates them, all on GPU 0 through the daemon. Checks that the rtm job
 * succeeds on the GPU, announces one partial stack per shot in shot order over SSE, and
 * leaves a finite, non-zero image; prints the wall times (submission to the end, as a
 * client sees them) as one JSON line for bench/results. Exits 77 (ctest: skipped) where
 * no CUDA GPU is present. Uses the server tests' harness (tests/server/harness.h). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fdwave/fdwave.h"
#include "harness.h"

#define NSHOT 16
#define NX 320
#define NY 160
#define NZ 160
#define NT 2000
#define NREC 300

static daemon_proc g_d;
static char g_allow[512];

static void setup(void)
{
    harness_tmpdir(g_d.data, sizeof g_d.data);
    harness_tmpdir(g_allow, sizeof g_allow);
    const char *extra[] = {"--devices", "gpu:0", "--allow-dir", g_allow, NULL};
    ck_assert_msg(harness_start(&g_d, extra) == 0, "fdwaved did not start on GPU 0 (log %s)",
                  g_d.log);
}

static void teardown(void)
{
    ck_assert_int_eq(harness_stop(&g_d), 0);
    harness_rmtree(g_d.data);
    harness_rmtree(g_allow);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The members both jobs share: a two-layer model, 16 shots along x, a fixed line of
 * receivers. */
static void common(char *buf, size_t cap)
{
    snprintf(buf, cap,
             "\"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": 10, \"dy\": 10, \"dz\": 10}, "
             "\"order\": 8, \"velocity\": {\"type\": \"layered\", \"layers\": [{\"top\": 0, "
             "\"v\": 2000}, {\"top\": 900, \"v\": 2600}]}, \"time\": {\"nt\": %d, \"dt\": 0.001}, "
             "\"boundary\": {\"type\": \"sponge\", \"width\": 20}, \"survey\": {\"generate\": "
             "{\"first\": [400, 800, 250], \"step\": [150, 0, 0], \"count\": %d}, \"wavelet\": "
             "{\"type\": \"ricker\", \"f0\": 12}}, \"receivers\": {\"lines\": [{\"from\": [250, "
             "800, 240], \"to\": [2940, 800, 240], \"count\": %d}], \"interval\": 2}",
             NX, NY, NZ, NT, NSHOT, NREC);
}

/* Submit spec and wait for its end: the wall time, the job succeeded. */
static double run_job(const char *spec, long *id)
{
    long status = 0;
    const double t0 = now();
    *id = submit(&g_d, spec, NULL, &status);
    ck_assert_msg(status == 201, "submission: HTTP %ld", status);
    const char *end = wait_done(&g_d, *id, 900, NULL);
    const double took = now() - t0;
    ck_assert_msg(strcmp(end, "succeeded") == 0, "job %ld ended %s (log %s)", *id, end, g_d.log);
    return took;
}

START_TEST(test_rtm_survey_on_the_gpu)
{
    char common_members[2048], spec[4096], path[1024];
    common(common_members, sizeof common_members);
    snprintf(spec, sizeof spec, "{\"kind\": \"acoustic\", \"name\": \"survey data\", %s}",
             common_members);
    long fwd = 0, rtm = 0;
    const double fwd_s = run_job(spec, &fwd);
    /* the traces into the allow-dir */
    http_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/all_shots.f32", fwd);
    ck_assert_int_eq(http(&g_d, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    const size_t want = (size_t)NSHOT * NREC * (NT / 2 + 1) * sizeof(float);
    ck_assert_uint_eq(r.len, want);
    char data[700];
    snprintf(data, sizeof data, "%s/all_shots.f32", g_allow);
    FILE *f = fopen(data, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(r.body, 1, r.len, f), r.len);
    ck_assert_int_eq(fclose(f), 0);
    http_free(&r);
    snprintf(spec, sizeof spec, "{\"kind\": \"rtm\", \"name\": \"rtm survey\", %s, \"data\": "
             "{\"path\": \"%s\"}, \"imaging\": {\"illumination\": true}}", common_members, data);
    const double rtm_s = run_job(spec, &rtm);
    /* one partial stack per shot, in shot order */
    char *ev = events_until(&g_d, rtm, NULL, "event: end", 60);
    ck_assert_ptr_nonnull(ev);
    int snaps = 0;
    for (const char *p = ev; (p = strstr(p, "event: snapshot")) != NULL; p++)
        snaps++;
    char last[64];
    snprintf(last, sizeof last, "stack_image_%04d_", NSHOT);
    ck_assert_int_eq(snaps, NSHOT);
    ck_assert_ptr_nonnull(strstr(ev, last));
    free(ev);
    /* ran on GPU 0; the image finite and not zero */
    snprintf(path, sizeof path, "/v1/jobs/%ld", rtm);
    ck_assert_int_eq(http(&g_d, "GET", path, NULL, NULL, 0, &r), 0);
    json_t *job = http_json(&r);
    http_free(&r);
    ck_assert_ptr_nonnull(job);
    json_t *devs = json_object_get(job, "devices");
    ck_assert(json_array_size(devs) == 1 && json_integer_value(json_array_get(devs, 0)) == 0);
    json_decref(job);
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/image.f32", rtm);
    ck_assert_int_eq(http(&g_d, "GET", path, NULL, NULL, 0, &r), 0);
    ck_assert_uint_eq(r.len, (size_t)NX * NY * NZ * sizeof(float));
    const float *img = (const float *)r.body;
    double e = 0.0;
    for (size_t i = 0; i < (size_t)NX * NY * NZ; i++) {
        ck_assert_msg(isfinite(img[i]), "image value %zu is not finite", i);
        e += (double)img[i] * img[i];
    }
    http_free(&r);
    ck_assert(e > 0.0);
    printf("{\"benchmark\": \"rtm_survey_daemon\", \"grid\": [%d, %d, %d], \"nt\": %d, "
           "\"shots\": %d, \"receivers\": %d, \"gpus\": 1, \"forward_survey_s\": %.3f, "
           "\"rtm_survey_s\": %.3f, \"rtm_s_per_shot\": %.3f}\n", NX, NY, NZ, NT, NSHOT, NREC,
           fwd_s, rtm_s, rtm_s / NSHOT);
}
END_TEST

int main(void)
{
    if (fdw_gpu_count() == 0) {
        printf("test_daemon_rtm_survey: no CUDA device, skipped\n");
        return 77;
    }
    Suite *s = suite_create("daemon_rtm_survey");
    TCase *tc = tcase_create("gpu");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_rtm_survey_on_the_gpu);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
