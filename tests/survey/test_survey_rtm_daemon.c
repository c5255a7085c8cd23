/* test_survey_rtm_daemon.c — a 16-shot rtm survey through a real fdwaved (CPU, 4 virtual
 * devices, so four shots at a time): a born survey job models the traces, they are
 * downloaded and placed in an allow-dir, an rtm survey job migrates them; its event stream
 * announces a partial stack after every shot (16 snapshot events, the last of all 16
 * shots, each file downloadable), its outputs hold the image, and the image downloaded
 * from the daemon is bit for bit fdwave-run's of the same spec. */
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSHOT 16

static daemon_proc D;
static char g_allow[512];

static void setup(void)
{
    memset(&D, 0, sizeof D);
    http_timeout_ms = 600000; /* the event stream lasts the whole job: a bound under load */
    harness_tmpdir(D.data, sizeof D.data);
    harness_tmpdir(g_allow, sizeof g_allow);
    const char *const extra[] = {"--allow-dir", g_allow, NULL};
    ck_assert_int_eq(harness_start(&D, extra), 0);
}

static void teardown(void)
{
    harness_stop(&D);
    harness_rmtree(D.data);
    harness_rmtree(g_allow);
}

/* The survey's members: 16 shots along x over a 48 x 24 x 40 grid, fixed receivers. */
static const char *COMMON =
    "\"grid\": {\"nx\": 48, \"ny\": 24, \"nz\": 40, \"dx\": 10, \"dy\": 10, \"dz\": 10}, "
    "\"velocity\": {\"type\": \"constant\", \"value\": 2000}, \"time\": {\"nt\": 240, \"dt\": "
    "0.0015}, \"boundary\": {\"type\": \"sponge\", \"width\": 8}, \"survey\": {\"generate\": "
    "{\"first\": [90, 115, 90], \"step\": [20, 0, 0], \"count\": 16}, \"wavelet\": {\"type\": "
    "\"ricker\", \"f0\": 15}}, \"receivers\": {\"lines\": [{\"from\": [90, 75, 90], \"to\": "
    "[390, 75, 90], \"count\": 16}], \"interval\": 2}, \"devices\": 4";

/* GET path into r (200 expected). */
static void get(const char *path, http_resp *r)
{
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, r), 0);
    ck_assert_msg(r->status == 200, "GET %s: %ld", path, r->status);
}

static void save(const char *path, const char *body, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(body, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(rtm_survey_through_the_daemon)
{
    char spec[4096], path[1024];
    long st;
    snprintf(spec, sizeof spec, "{\"kind\": \"born\", \"name\": \"born survey\", %s, "
             "\"perturbation\": {\"type\": \"layers\", \"layers\": [{\"top\": 250, \"dv\": "
             "400}]}}", COMMON);
    const long born = submit(&D, spec, NULL, &st);
    ck_assert_msg(st == 201, "born survey: %ld", st);
    ck_assert_str_eq(wait_done(&D, born, 240, NULL), "succeeded");
    http_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/all_shots.f32", born);
    get(path, &r);
    ck_assert_uint_eq(r.len, (size_t)NSHOT * 16 * 121 * 4);
    char data[600];
    snprintf(data, sizeof data, "%s/shots.f32", g_allow);
    save(data, r.body, r.len);
    http_free(&r);

    snprintf(spec, sizeof spec, "{\"kind\": \"rtm\", \"name\": \"rtm survey\", %s, \"data\": "
             "{\"format\": \"raw-f32\", \"path\": \"%s\"}, \"imaging\": {\"illumination\": "
             "true}}", COMMON, data);
    const long rtm = submit(&D, spec, NULL, &st);
    ck_assert_msg(st == 201, "rtm survey: %ld", st);
    snprintf(path, sizeof path, "/v1/jobs/%ld/events", rtm);
    get(path, &r); /* to the job's end */
    int snaps = 0, last = -1;
    char files[NSHOT][128];
    for (char *line = strtok(r.body, "\n"); line; line = strtok(NULL, "\n")) {
        if (strcmp(line, "event: snapshot") != 0)
            continue;
        char *d = strtok(NULL, "\n");
        ck_assert(d && !strncmp(d, "data: ", 6));
        json_t *j = json_loads(d + 6, 0, NULL);
        ck_assert_ptr_nonnull(j);
        const int index = (int)json_integer_value(json_object_get(j, "index"));
        ck_assert_int_eq(index, last + 1); /* in shot order, one per shot */
        last = index;
        /* each partial stack (image and illumination): their middle slices as raw float32
         * and as PNG */
        json_t *fs = json_object_get(j, "files");
        int pngs = 0, raws = 0;
        for (size_t q = 0; q < json_array_size(fs); q++) {
            json_t *fq = json_array_get(fs, q);
            const char *name =
                json_string_value(json_is_object(fq) ? json_object_get(fq, "name") : fq);
            ck_assert_ptr_nonnull(name);
            const size_t len = strlen(name);
            if (len > 4 && !strcmp(name + len - 4, ".png") && pngs++ == 0)
                snprintf(files[snaps], sizeof files[snaps], "%s", name);
            raws += len > 4 && !strcmp(name + len - 4, ".f32");
        }
        ck_assert_int_eq(pngs, 4);
        ck_assert_int_eq(raws, 4);
        snaps++;
        json_decref(j);
    }
    http_free(&r);
    ck_assert_int_eq(snaps, NSHOT);
    ck_assert_str_eq(wait_done(&D, rtm, 60, NULL), "succeeded");
    ck_assert_msg(strstr(files[NSHOT - 1], "stack_image_0016_"), "last partial: %s",
                  files[NSHOT - 1]);
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/%s", rtm, files[0]);
    get(path, &r);
    ck_assert(r.len > 8 && !memcmp(r.body, "\x89PNG", 4));
    http_free(&r);

    /* the image, against fdwave-run's of the same spec */
    char local[600], out[700], cmd[2048];
    snprintf(local, sizeof local, "%s/rtm.json", g_allow);
    save(local, spec, strlen(spec));
    snprintf(out, sizeof out, "%s/local", g_allow);
    snprintf(cmd, sizeof cmd, "%s --backend cpu --quiet --out %s %s", FDWAVE_RUN, out, local);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/image.f32", out);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    const size_t n = (size_t)48 * 24 * 40;
    float *want = malloc(n * sizeof *want);
    ck_assert_uint_eq(fread(want, sizeof *want, n, f), n);
    fclose(f);
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/image.f32", rtm);
    get(path, &r);
    ck_assert_uint_eq(r.len, n * sizeof(float));
    ck_assert_msg(memcmp(r.body, want, r.len) == 0, "the daemon's image differs from "
                  "fdwave-run's");
    double e = 0.0;
    for (size_t p = 0; p < n; p++)
        e += (double)want[p] * want[p];
    ck_assert_double_gt(e, 0.0);
    http_free(&r);
    free(want);
    printf("16-shot rtm survey through fdwaved: 16 partial stacks announced in shot order, "
           "the image bit for bit fdwave-run's\n");
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    Suite *s = suite_create("survey_rtm_daemon");
    TCase *t = tcase_create("daemon");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 600);
    tcase_add_test(t, rtm_survey_through_the_daemon);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
