/* test_gpu_survey.c — a survey on the CUDA backend (issue 14): its shots run one after
 * another on two device slots, and in parallel one shot per slot (two host threads driving
 * GPUs at once: on a machine with one GPU both slots are GPU 0), give every shot's gather
 * bit for bit equal to the CPU backend's portable kernel (which is bit-identical to the GPU),
 * and all_shots.f32 holds them in shot order. Exits 77 (skipped) without a GPU; run by
 * tests/gpu/run.sh's stage "survey". */
#include "ckpt_util.h"
#include "fdwave/fdwave.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SPEC =
    "{\"kind\": \"acoustic\", \"name\": \"gpu survey\", \"grid\": {\"nx\": 96, \"ny\": 48, "
    "\"nz\": 64, \"dx\": 10, \"dy\": 10, \"dz\": 10}, \"order\": 8, \"velocity\": {\"type\": "
    "\"layered\", \"layers\": [{\"top\": 0, \"v\": 1500}, {\"top\": 300, \"v\": 2500}]}, "
    "\"time\": {\"nt\": 300, \"dt\": \"auto\"}, \"boundary\": {\"type\": \"cpml\", \"width\": "
    "8, \"free_surface\": true}, \"survey\": {\"generate\": {\"first\": [200, 240, 20.5], "
    "\"step\": [130, 0, 0], \"count\": 4}, \"wavelet\": {\"type\": \"ricker\", \"f0\": 12}, "
    "\"outside\": \"drop\", \"spread\": {\"lines\": [{\"from\": [-300, 0, -10], \"to\": [300, "
    "0, -10], \"count\": 31}]}}, \"receivers\": {\"interval\": 2}, \"devices\": 2}";

static char g_dir[512];

static void run_one(const fdw_spec *spec, fdw_backend_kind be, const int *ids, int groups,
                    const char *out, fdw_result *res)
{
    fdw_tuning tu = {.survey_groups = groups, .cpu_portable = 1};
    fdw_run_opts ro = {.out_dir = out, .backend = be, .device_ids = ids,
                       .ndevice_ids = ids ? 2 : 0, .threads = 4, .tuning = &tu};
    fdw_error err;
    const fdw_status st = fdw_run(spec, &ro, NULL, res, &err);
    ck_assert_msg(st == FDW_OK, "%s: %s: %s", out, err.field, err.message);
}

START_TEST(survey_gpu_equals_cpu)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(SPEC, strlen(SPEC), NULL, &spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    const int ngpu = fdw_gpu_count();
    const int ids[2] = {0, ngpu > 1 ? 1 : 0};
    char cpu[600], seq[600], par[600], why[512];
    snprintf(cpu, sizeof cpu, "%s/cpu", g_dir);
    snprintf(seq, sizeof seq, "%s/gpu_seq", g_dir);
    snprintf(par, sizeof par, "%s/gpu_par", g_dir);
    fdw_result r;
    run_one(spec, FDW_BACKEND_CPU, NULL, 1, cpu, &r);
    run_one(spec, FDW_BACKEND_CUDA, ids, 1, seq, &r);
    ck_assert_str_eq(r.backend, "cuda");
    ck_assert_int_eq(r.groups, 1);
    run_one(spec, FDW_BACKEND_CUDA, ids, 2, par, &r);
    ck_assert_int_eq(r.groups, 2);
    ck_assert_int_eq(r.shots_done, 4);
    printf("survey: 4 shots on GPUs %d and %d, one after another and in parallel\n", ids[0],
           ids[1]);
    ck_assert_msg(ckpt_outputs_equal(cpu, seq, why, sizeof why), "cpu vs gpu sequential: %s",
                  why);
    ck_assert_msg(ckpt_outputs_equal(cpu, par, why, sizeof why), "cpu vs gpu parallel: %s",
                  why);
    fdw_spec_free(spec);
}
END_TEST

int main(void)
{
    if (fdw_gpu_count() < 1) {
        printf("no GPU: skipped\n");
        return 77;
    }
    ckpt_tmpdir("gpu-survey", g_dir, sizeof g_dir);
    Suite *s = suite_create("gpu_survey");
    TCase *t = tcase_create("survey");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, survey_gpu_equals_cpu);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK); /* CUDA is initialised by the GPU count */
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    ckpt_rmtree(g_dir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
