/* test_watch.c — no silent blow-up (run/watch.h): an unstable run of each kind that can
 * make one fails with FDW_ERR_UNSTABLE, naming the step and the kind's likely cause (ETE at
 * a dt its own check would refuse, skipped here; the acoustic kind past its step limit,
 * forced after the parse; the stencil kind whose coefficients amplify the field, forced
 * likewise); the snapshots written before the failure say in the manifest how many of their
 * values are not finite; stable runs whose field grows for long (a slow Ricker's onset in a
 * reflecting box) or comes back after a long silence (a second, weaker burst) succeed. */
#include "physics_util.h"
#include "kinds/stencil/stencil.h"
#include "spec/spec.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[64];

static fdw_spec *parse(const char *json, int defer)
{
    const fdw_parse_opts po = {.defer_model_checks = defer};
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), &po, &spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    return spec;
}

/* Run spec on the CPU into g_dir/name; its status, err filled. */
static fdw_status run(const fdw_spec *spec, const char *name, fdw_error *err)
{
    char out[128];
    snprintf(out, sizeof out, "%s/%s", g_dir, name);
    fdw_run_opts opts = {.out_dir = out, .backend = FDW_BACKEND_CPU};
    fdw_result res;
    return fdw_run(spec, &opts, NULL, &res, err);
}

static void expect_unstable(fdw_status st, const fdw_error *err, const char *field,
                            const char *what)
{
    printf("%s: %s: %s\n", what, err->field, err->message);
    ck_assert_msg(st == FDW_ERR_UNSTABLE, "%s: status %d (%s)", what, st, err->message);
    ck_assert_str_eq(err->field, field);
    ck_assert_msg(strstr(err->message, "after step") && strstr(err->message, "unstable"),
                  "%s: %s", what, err->message);
}

/* ETE on an 8^3 inclusion at the fit-based dt (the model check deferred, as the daemon
 * defers it to the runner): the field grows 1.2 times a step and the run fails at its
 * second check, naming time.dt. */
START_TEST(test_ete_blowup)
{
    char model[128], json[2048];
    snprintf(model, sizeof model, "%s/cube.f32", g_dir);
    FILE *f = fopen(model, "wb");
    ck_assert_ptr_nonnull(f);
    for (int k = 0; k < 32; k++)
        for (int j = 0; j < 32; j++)
            for (int i = 0; i < 32; i++) {
                const int in = i >= 12 && i < 20 && j >= 12 && j < 20 && k >= 12 && k < 20;
                const float v = in ? 3000.0f : 2000.0f;
                ck_assert_int_eq(fwrite(&v, sizeof v, 1, f), 1);
            }
    ck_assert_int_eq(fclose(f), 0);
    snprintf(json, sizeof json,
             "{\"kind\": \"ete\", \"grid\": {\"nx\": 32, \"ny\": 32, \"nz\": 32, \"dx\": 10, "
             "\"dy\": 10, \"dz\": 10}, \"velocity\": {\"type\": \"file\", \"format\": "
             "\"raw-f32\", \"path\": \"%s\"}, \"time\": {\"nt\": 1000, \"dt\": \"auto\"}, "
             "\"sources\": [{\"position\": [155, 155, 155], \"wavelet\": {\"type\": "
             "\"ricker\", \"f0\": 13.3}}], \"boundary\": {\"type\": \"sponge\", \"width\": 8}}",
             model);
    fdw_spec *spec = parse(json, 1);
    fdw_error err;
    expect_unstable(run(spec, "ete", &err), &err, "time.dt", "ete");
    ck_assert_msg(strstr(err.message, "grows without bound"), "%s", err.message);
    fdw_spec_free(spec);
}
END_TEST

/* The acoustic kind past its limit (dt doubled after the parse, as a wrong limit would):
 * the field overflows within some 45 steps; the run fails at its first check, and the
 * snapshots taken every 4 steps until then record the values that are not finite. */
START_TEST(test_acoustic_blowup)
{
    const char *json =
        "{\"kind\": \"acoustic\", \"grid\": {\"nx\": 24, \"ny\": 24, \"nz\": 24, \"dx\": 10, "
        "\"dy\": 10, \"dz\": 10}, \"order\": 8, \"velocity\": {\"type\": \"constant\", "
        "\"value\": 2000}, \"time\": {\"nt\": 200, \"dt\": \"auto\"}, \"sources\": "
        "[{\"position\": [115, 115, 115], \"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}], "
        "\"boundary\": {\"type\": \"none\"}, \"snapshots\": {\"every\": 4, \"volume\": true, "
        "\"png\": false}}";
    fdw_spec *spec = parse(json, 0);
    spec->dt = 2.0 * spec->dt_max;
    fdw_error err;
    const fdw_status st = run(spec, "acoustic", &err);
    expect_unstable(st, &err, "velocity", "acoustic");
    ck_assert_msg(strstr(err.message, "not finite") && strstr(err.message, "after step 64"),
                  "%s", err.message);
    char path[160];
    snprintf(path, sizeof path, "%s/acoustic/manifest.json", g_dir);
    json_t *m = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(m);
    size_t i;
    json_t *e;
    int flagged = 0, clean = 0;
    json_array_foreach(json_object_get(m, "files"), i, e) {
        const json_t *nf = json_object_get(e, "nonfinite");
        const double mx = json_number_value(json_object_get(e, "max_abs"));
        ck_assert(isfinite(mx));
        if (nf && json_number_value(nf) > 0)
            flagged++;
        else
            clean++;
    }
    printf("acoustic: %d snapshots recorded as holding non-finite values, %d clean\n",
           flagged, clean);
    ck_assert_int_gt(flagged, 0);
    ck_assert_int_gt(clean, 0);
    json_decref(m);
    fdw_spec_free(spec);
}
END_TEST

/* The stencil kind with coefficients that amplify the field (set after the parse, which
 * refuses coefficients whose growth overflows within the iterations asked for). */
START_TEST(test_stencil_blowup)
{
    const char *json =
        "{\"kind\": \"stencil\", \"grid\": {\"nx\": 24, \"ny\": 24, \"nz\": 24, \"dx\": 1, "
        "\"dy\": 1, \"dz\": 1}, \"order\": 2, \"iterations\": 128}";
    fdw_spec *spec = parse(json, 0);
    fdw_stencil_spec *k = spec->kspec;
    k->c[0] = 1e10;
    fdw_error err;
    expect_unstable(run(spec, "stencil", &err), &err, "coefficients", "stencil");
    fdw_spec_free(spec);
}
END_TEST

/* A stable field that grows over many checks: a 2.5 Hz Ricker (its onset spans some 260
 * steps) in a box that reflects at every face, 3000 steps. */
START_TEST(test_slow_onset_ok)
{
    const char *json =
        "{\"kind\": \"acoustic\", \"grid\": {\"nx\": 40, \"ny\": 40, \"nz\": 40, \"dx\": 10, "
        "\"dy\": 10, \"dz\": 10}, \"order\": 8, \"velocity\": {\"type\": \"constant\", "
        "\"value\": 2000}, \"time\": {\"nt\": 3000, \"dt\": \"auto\"}, \"sources\": "
        "[{\"position\": [195, 195, 195], \"wavelet\": {\"type\": \"ricker\", \"f0\": 2.5}}], "
        "\"boundary\": {\"type\": \"none\", \"free_surface\": true}}";
    fdw_spec *spec = parse(json, 0);
    fdw_error err;
    ck_assert_msg(run(spec, "onset", &err) == FDW_OK, "%s", err.message);
    fdw_spec_free(spec);
}
END_TEST

/* A field that all but vanishes through the sponge and comes back: a file wavelet with a
 * burst of amplitude 1, 1.5 s of silence, and a burst of 0.5. */
START_TEST(test_second_burst_ok)
{
    const long nt = 1500;
    char wav[128], json[2048];
    snprintf(wav, sizeof wav, "%s/bursts.f32", g_dir);
    FILE *f = fopen(wav, "wb");
    ck_assert_ptr_nonnull(f);
    const double dt = 0.0015, f0 = 12.0;
    for (long it = 0; it < nt; it++) {
        double s = 0.0;
        const double t0[2] = {0.1, 1.8}, a[2] = {1.0, 0.5};
        for (int b = 0; b < 2; b++) {
            const double x = M_PI * f0 * (it * dt - t0[b]);
            s += a[b] * (1.0 - 2.0 * x * x) * exp(-x * x);
        }
        const float v = (float)s;
        ck_assert_int_eq(fwrite(&v, sizeof v, 1, f), 1);
    }
    ck_assert_int_eq(fclose(f), 0);
    snprintf(json, sizeof json,
             "{\"kind\": \"acoustic\", \"grid\": {\"nx\": 40, \"ny\": 40, \"nz\": 40, \"dx\": "
             "10, \"dy\": 10, \"dz\": 10}, \"order\": 8, \"velocity\": {\"type\": "
             "\"constant\", \"value\": 2000}, \"time\": {\"nt\": %ld, \"dt\": %g}, "
             "\"sources\": [{\"position\": [195, 195, 195], \"wavelet\": {\"type\": \"file\", "
             "\"path\": \"%s\"}}], \"boundary\": {\"type\": \"sponge\", \"width\": 12}}",
             nt, dt, wav);
    fdw_spec *spec = parse(json, 0);
    fdw_error err;
    ck_assert_msg(run(spec, "bursts", &err) == FDW_OK, "%s", err.message);
    fdw_spec_free(spec);
}
END_TEST

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/fdw-watch-XXXXXX");
    if (!mkdtemp(g_dir))
        return 1;
    Suite *s = suite_create("watch");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_ete_blowup);
    tcase_add_test(tc, test_acoustic_blowup);
    tcase_add_test(tc, test_stencil_blowup);
    tcase_add_test(tc, test_slow_onset_ok);
    tcase_add_test(tc, test_second_burst_ok);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        return 1;
    return failed ? 1 : 0;
}
