/* test_gpu_sweep.c — the sweep kind's CUDA engine (issue 20): T bit for bit equal to the
 * CPU engine's (the same operations in the same order: correctly rounded sqrt and fma on
 * both sides, no contraction), in float64 and float32, for the Randers metric and for an F
 * field with a folded surface; several slabs on one GPU (and on several GPUs where there
 * are) bit for bit equal to one; exact skipping equal to computing everything; the same
 * sweeps, changes and convergence as the CPU. Exits 77 (skipped) without a GPU. */
#include "../sweep/sweep_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_ngpu;

static const char *const METRICS[2] = {
    "\"F\": 1.1, \"psi\": 1.0, \"a\": [-0.34, 0.4, 0.7], \"initial\": {\"points\": "
    "[{\"position\": [3.1, 6.2, 5.05], \"t0\": 0.5}, {\"position\": [8.0, 1.0, 2.0]}]}",
    "\"velocity\": {\"type\": \"gaussian\", \"background\": 2, \"center\": [5, 5, 5], "
    "\"sigma\": 2, \"dv\": -1}, \"initial\": {\"surface\": {\"type\": \"sinusoid\", \"z0\": "
    "4.5, \"amplitude\": [1.2, 0.8], \"wavelength\": [6, 7.5], \"phase\": [0, 1]}}"};

/* A 45 x 41 x 43 job: metric m, precision, devices (a JSON value), sweeps. */
static void spec(char *json, size_t len, int m, const char *precision, const char *devices,
                 const char *sweeps)
{
    snprintf(json, len,
             "{\"kind\": \"sweep\", \"grid\": {\"nx\": 45, \"ny\": 41, \"nz\": 43, \"dx\": 0.23, "
             "\"dy\": 0.25, \"dz\": 0.24}, \"devices\": %s, \"precision\": \"%s\", %s, "
             "\"sweeps\": %s, \"output\": {\"volume\": \"f64\", \"slices\": []}}",
             devices, precision, METRICS[m], sweeps);
}

START_TEST(gpu_equals_cpu)
{
    static const char *const precisions[2] = {"float64", "float32"};
    for (int m = 0; m < 2; m++)
        for (int p = 0; p < 2; p++) {
            char json[2048];
            spec(json, sizeof json, m, precisions[p], "1", "\"auto\"");
            sw_run cpu, gpu;
            sw_run_spec(json, FDW_BACKEND_CPU, NULL, &cpu);
            sw_run_spec(json, FDW_BACKEND_CUDA, NULL, &gpu);
            ck_assert_str_eq(gpu.result.backend, "cuda");
            ck_assert_msg(sw_same_bits(&cpu, &gpu), "metric %d %s: the GPU's T differs from the "
                          "CPU's", m, precisions[p]);
            ck_assert_int_eq(cpu.sweeps, gpu.sweeps);
            ck_assert(cpu.converged && gpu.converged);
            for (long s = 0; s < cpu.sweeps && s < 128; s++) {
                ck_assert_int_eq(cpu.changed[s], gpu.changed[s]);
                ck_assert(cpu.max_change[s] == gpu.max_change[s]);
            }
            printf("metric %d, %s: GPU == CPU bit for bit, %ld sweeps; points computed per "
                   "sweep (GPU):", m, precisions[p], gpu.sweeps);
            for (long s = 0; s < gpu.sweeps && s < 128; s++)
                printf(" %lld", gpu.computed[s]);
            printf("\n");
            sw_run_free(&cpu);
            sw_run_free(&gpu);
        }
}
END_TEST

/* Several slabs on GPU 0 (the caller's device list may repeat a GPU). */
static const int ZEROS[5] = {0, 0, 0, 0, 0};

START_TEST(slabs_on_one_gpu)
{
    static const int counts[3] = {2, 3, 5};
    for (int m = 0; m < 2; m++) {
        char json[2048];
        spec(json, sizeof json, m, "float64", "1", "4");
        sw_run one;
        sw_run_spec(json, FDW_BACKEND_CUDA, NULL, &one);
        for (int q = 0; q < 3; q++) {
            sw_run many;
            sw_run_spec_on(json, FDW_BACKEND_CUDA, NULL, ZEROS, counts[q], &many);
            ck_assert_msg(sw_same_bits(&one, &many), "metric %d: %d slabs differ from one", m,
                          counts[q]);
            sw_run_free(&many);
        }
        sw_run_free(&one);
    }
}
END_TEST

START_TEST(several_gpus)
{
    if (g_ngpu < 2) {
        printf("several_gpus: %d GPU, nothing to compare\n", g_ngpu);
        return;
    }
    char devices[64], json[2048];
    snprintf(devices, sizeof devices, "%d", g_ngpu < 4 ? g_ngpu : 4);
    spec(json, sizeof json, 0, "float64", "1", "4");
    sw_run one, many;
    sw_run_spec(json, FDW_BACKEND_CUDA, NULL, &one);
    spec(json, sizeof json, 0, "float64", devices, "4");
    sw_run_spec(json, FDW_BACKEND_CUDA, NULL, &many);
    ck_assert_msg(sw_same_bits(&one, &many), "%s GPUs differ from one", devices);
    printf("%s GPUs == one GPU bit for bit\n", devices);
    sw_run_free(&one);
    sw_run_free(&many);
}
END_TEST

START_TEST(skipping_is_exact)
{
    fdw_tuning full;
    memset(&full, 0, sizeof full);
    full.sweep_full = 1;
    for (int m = 0; m < 2; m++) {
        char json[2048];
        spec(json, sizeof json, m, "float64", "1", "5");
        sw_run skip, all;
        sw_run_spec_on(json, FDW_BACKEND_CUDA, NULL, ZEROS, 2, &skip);
        sw_run_spec_on(json, FDW_BACKEND_CUDA, &full, ZEROS, 2, &all);
        ck_assert_msg(sw_same_bits(&skip, &all), "metric %d: skipping changed T", m);
        long long a = 0, b = 0;
        for (int s = 0; s < 5; s++) {
            a += skip.computed[s];
            b += all.computed[s];
        }
        printf("metric %d: %lld of %lld point updates computed with skipping\n", m, a, b);
        ck_assert_int_lt(a, b);
        sw_run_free(&skip);
        sw_run_free(&all);
    }
}
END_TEST

int main(void)
{
    g_ngpu = fdw_gpu_count();
    if (g_ngpu < 1) {
        printf("test_gpu_sweep: no CUDA GPU here; skipped\n");
        return 77;
    }
    /* CUDA is initialised above (the GPU count) and does not survive Check's fork */
    setenv("CK_FORK", "no", 1);
    Suite *s = suite_create("gpu_sweep");
    TCase *tc = tcase_create("sweep");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, gpu_equals_cpu);
    tcase_add_test(tc, slabs_on_one_gpu);
    tcase_add_test(tc, several_gpus);
    tcase_add_test(tc, skipping_is_exact);
    suite_add_tcase(s, tc);
    return sw_run_suite(s);
}
