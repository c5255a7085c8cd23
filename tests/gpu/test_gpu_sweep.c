/* test_gpu_sweep.c — the sweep kind's CUDA engine (issue 20): the initial upload (T and
 * the slowness in both layouts equal the host's, cell for cell); T bit for bit equal to the
 * CPU engine's (the same operations in the same order: correctly rounded sqrt and fma on
 * both sides, no contraction), in float64 and float32, for the Randers metric and for an F
 * field with a folded surface, one sweep computing everything and with skipping, and the
 * same run twice; several slabs on one GPU (and on several GPUs where there are) bit for
 * bit equal to one, with a wait across a cut every plane and every 8 planes; exact
 * skipping equal to computing everything; the same sweeps, changes and convergence as the
 * CPU. A difference is described (cells, first cell, values, z range) before the test
 * fails. Exits 77 (skipped) without a GPU. */
#include "../sweep/sweep_util.h"

#include "kinds/sweep/cuda_sweep.h"
#include "run/plan.h"
#include "run/problem.h"
#include "spec/spec.h"

#include <check.h>
#include <math.h>
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

/* Whether a and b hold the same bits; if not, print what differs (how many cells, the
 * first one with both values, the largest difference, cells finite on one side only, the
 * z range of the differences) under the label. */
static int same_or_describe(const sw_run *a, const sw_run *b, const char *label)
{
    if (sw_same_bits(a, b))
        return 1;
    const int nx = a->nx, ny = a->ny;
    const size_t n = (size_t)nx * ny * a->nz;
    size_t diff = 0, first = n, one_inf = 0;
    int zlo = a->nz, zhi = -1;
    double mx = 0.0;
    for (size_t q = 0; q < n; q++) {
        if (memcmp(&a->T[q], &b->T[q], sizeof(double)) == 0)
            continue;
        diff++;
        first = first < n ? first : q;
        if (isinf(a->T[q]) != isinf(b->T[q]))
            one_inf++;
        else if (fabs(a->T[q] - b->T[q]) > mx)
            mx = fabs(a->T[q] - b->T[q]);
        const int z = (int)(q / ((size_t)nx * ny));
        zlo = z < zlo ? z : zlo;
        zhi = z > zhi ? z : zhi;
    }
    const int fx = (int)(first % nx), fy = (int)(first / nx % ny), fz = (int)(first / ((size_t)nx * ny));
    printf("DIFF %s: %zu of %zu cells differ (%zu finite on one side only), largest finite "
           "difference %.3e, z %d..%d; first at (%d, %d, %d): %.17g vs %.17g\n", label, diff, n,
           one_inf, mx, zlo, zhi, fx, fy, fz, a->T[first], b->T[first]);
    return 0;
}

/* The upload: every held cell of T and of the slowness, in both layouts of every slab (1
 * and 2 slabs of GPU 0), equals the host's initial time and 1/F as the precision stores
 * them. Counts and prints the cells that do not. */
static long check_upload(const char *json, int nslabs)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    fdw_problem prob;
    fdw_plan plan;
    void *ctx = NULL;
    memset(&prob, 0, sizeof prob);
    fdw_status st = fdw_spec_parse(json, strlen(json), NULL, &spec, &err);
    if (st == FDW_OK)
        st = fdw_problem_build(spec, NULL, &prob, &err);
    if (st == FDW_OK)
        st = fdw_plan_slabs(spec->nz, 1, nslabs, (const int[]){0, 0, 0, 0}, &plan, &err);
    if (st == FDW_OK)
        st = fdw_sweep_cuda_engine.create(&prob, &plan, &ctx, &err);
    ck_assert_msg(st == FDW_OK, "upload check: %s: %s", err.field, err.message);
    sweep_cuda *c = ctx;
    const fdw_sweep_data *d = c->d;
    const int nx = spec->nx, ny = spec->ny;
    long bad = 0;
    for (int e = 0; e < c->parts.nparts; e++)
        for (int l = 0; l < 2; l++)
            for (int sl = 0; sl < (d->metric.field ? 2 : 1); sl++) {
                const sweep_box *b = l == SWEEP_LAYOUT_A ? &c->parts.a[e] : &c->parts.b[e];
                int lo[3], hi[3];
                sweep_box_held(&c->parts, b, lo, hi);
                const size_t cnt = (size_t)(hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
                double *h = malloc(cnt * sizeof(double));
                void *dev = NULL;
                const fdwk_sweep_box box = sweep_cuda_box(c, e, l, sl);
                sweep_gpu *G = &c->gpu[c->part[e].gpu];
                int rc = fdwk_set_device(G->id);
                if (!rc)
                    rc = fdwk_malloc(&dev, cnt * sizeof(double));
                if (!rc)
                    rc = fdwk_sweep_pack(&box, lo, hi, c->f64, dev, 1, G->st);
                if (!rc)
                    rc = fdwk_stream_sync(G->st);
                if (!rc)
                    rc = fdwk_d2h(h, dev, cnt * sizeof(double));
                ck_assert_msg(rc == 0, "upload check: %s", fdwk_strerror(rc));
                long here = 0;
                size_t q = 0;
                for (int z = lo[2]; z < hi[2]; z++)
                    for (int y = lo[1]; y < hi[1]; y++)
                        for (int x = lo[0]; x < hi[0]; x++, q++) {
                            const size_t g = (size_t)x + (size_t)nx * ((size_t)y + (size_t)ny * z);
                            double want = sl ? 1.0 / (double)d->speed[g] : d->t0[g];
                            if (!c->f64)
                                want = (double)(float)want;
                            if (memcmp(&want, &h[q], sizeof want) != 0 && here++ == 0)
                                printf("DIFF upload, %d slab%s, part %d, layout %s, %s: first at "
                                       "(%d, %d, %d): GPU %.17g, host %.17g\n", nslabs,
                                       nslabs == 1 ? "" : "s", e, l ? "B" : "A",
                                       sl ? "slowness" : "T", x, y, z, h[q], want);
                        }
                if (here)
                    printf("DIFF upload: %ld cells of %zu differ there\n", here, cnt);
                bad += here;
                fdwk_free(dev);
                free(h);
            }
    fdw_sweep_cuda_engine.destroy(ctx);
    fdw_problem_free(&prob);
    fdw_spec_free(spec);
    return bad;
}

START_TEST(upload_is_exact)
{
    for (int m = 0; m < 2; m++)
        for (int slabs = 1; slabs <= 2; slabs++) {
            char json[2048];
            spec(json, sizeof json, m, "float64", "1", "1");
            const long bad = check_upload(json, slabs);
            ck_assert_msg(bad == 0, "metric %d, %d slab(s): %ld uploaded cells differ", m, slabs,
                          bad);
        }
}
END_TEST

/* The F field: one sweep computing everything, one with skipping, against the CPU; and
 * the same GPU run twice (a race would show as a difference). Each comparison describes
 * its difference before the assertions, so one run tells where a difference starts. */
START_TEST(field_one_sweep)
{
    fdw_tuning full;
    memset(&full, 0, sizeof full);
    full.sweep_full = 1;
    char json[2048];
    spec(json, sizeof json, 1, "float64", "1", "1");
    sw_run cpu, gpu_full, gpu_skip, again;
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &cpu);
    sw_run_spec(json, FDW_BACKEND_CUDA, &full, &gpu_full);
    sw_run_spec(json, FDW_BACKEND_CUDA, NULL, &gpu_skip);
    sw_run_spec(json, FDW_BACKEND_CUDA, NULL, &again);
    const int a = same_or_describe(&cpu, &gpu_full, "field, 1 sweep, CPU vs GPU computing all");
    const int b = same_or_describe(&cpu, &gpu_skip, "field, 1 sweep, CPU vs GPU skipping");
    const int r = same_or_describe(&gpu_skip, &again, "field, 1 sweep, GPU run twice");
    printf("field, 1 sweep: GPU computing all %s, skipping %s, twice %s\n", a ? "== CPU" : "DIFFERS",
           b ? "== CPU" : "DIFFERS", r ? "identical" : "DIFFERS");
    ck_assert(a && b && r);
    sw_run_free(&cpu);
    sw_run_free(&gpu_full);
    sw_run_free(&gpu_skip);
    sw_run_free(&again);
}
END_TEST

START_TEST(gpu_equals_cpu)
{
    static const char *const precisions[2] = {"float64", "float32"};
    int ok = 1;
    for (int m = 0; m < 2; m++)
        for (int p = 0; p < 2; p++) {
            char json[2048];
            spec(json, sizeof json, m, precisions[p], "1", "\"auto\"");
            sw_run cpu, gpu;
            sw_run_spec(json, FDW_BACKEND_CPU, NULL, &cpu);
            sw_run_spec(json, FDW_BACKEND_CUDA, NULL, &gpu);
            ck_assert_str_eq(gpu.result.backend, "cuda");
            char label[96];
            snprintf(label, sizeof label, "metric %d %s, CPU vs GPU", m, precisions[p]);
            const int same = same_or_describe(&cpu, &gpu, label);
            ok &= same;
            if (same) { /* the figures too (a different T has different figures) */
                ck_assert_int_eq(cpu.sweeps, gpu.sweeps);
                ck_assert(cpu.converged && gpu.converged);
                for (long s = 0; s < cpu.sweeps && s < 128; s++) {
                    ck_assert_int_eq(cpu.changed[s], gpu.changed[s]);
                    ck_assert(cpu.max_change[s] == gpu.max_change[s]);
                }
            }
            printf("metric %d, %s: GPU %s CPU bit for bit, %ld sweeps (CPU %ld); points computed "
                   "per sweep (GPU):", m, precisions[p], same ? "==" : "DIFFERS from",
                   gpu.sweeps, cpu.sweeps);
            for (long s = 0; s < gpu.sweeps && s < 128; s++)
                printf(" %lld", gpu.computed[s]);
            printf("\n");
            sw_run_free(&cpu);
            sw_run_free(&gpu);
        }
    ck_assert_msg(ok, "the GPU's T differs from the CPU's (the DIFF lines above say where)");
}
END_TEST

/* Several slabs on GPU 0 (the caller's device list may repeat a GPU). */
static const int ZEROS[5] = {0, 0, 0, 0, 0};

/* Several slabs on GPU 0, waiting for each other across a cut every plane (reach 1) and
 * every 8 planes (the default: each also computes the cells within 8 of its cuts). */
START_TEST(slabs_on_one_gpu)
{
    static const int counts[3] = {2, 3, 5};
    int ok = 1;
    for (int m = 0; m < 2; m++) {
        char json[2048];
        spec(json, sizeof json, m, "float64", "1", "4");
        sw_run one;
        sw_run_spec(json, FDW_BACKEND_CUDA, NULL, &one);
        for (int r = 0; r < 2; r++)
            for (int q = 0; q < 3; q++) {
                fdw_tuning tu;
                memset(&tu, 0, sizeof tu);
                tu.sweep_reach = r ? 1 : 0;
                sw_run many;
                sw_run_spec_on(json, FDW_BACKEND_CUDA, &tu, ZEROS, counts[q], &many);
                char label[96];
                snprintf(label, sizeof label, "metric %d, %d slabs (reach %s) vs one", m,
                         counts[q], r ? "1" : "default");
                const int same = same_or_describe(&one, &many, label);
                printf("%s: %s\n", label, same ? "equal" : "DIFFER");
                ok &= same;
                sw_run_free(&many);
            }
        sw_run_free(&one);
    }
    ck_assert_msg(ok, "slabs differ from one (the DIFF lines above say where)");
}
END_TEST

START_TEST(several_gpus)
{
    if (g_ngpu < 2) {
        printf("several_gpus: %d GPU, nothing to compare\n", g_ngpu);
        return;
    }
    char devices[16], json[2048];
    snprintf(devices, sizeof devices, "%d", g_ngpu < 4 ? g_ngpu : 4);
    int ok = 1;
    for (int m = 0; m < 2; m++) {
        spec(json, sizeof json, m, "float64", "1", "4");
        sw_run one;
        sw_run_spec(json, FDW_BACKEND_CUDA, NULL, &one);
        spec(json, sizeof json, m, "float64", devices, "4");
        for (int r = 0; r < 2; r++) {
            fdw_tuning tu;
            memset(&tu, 0, sizeof tu);
            tu.sweep_reach = r ? 1 : 0;
            sw_run many;
            sw_run_spec(json, FDW_BACKEND_CUDA, &tu, &many);
            char label[96];
            snprintf(label, sizeof label, "metric %d, %s GPUs (reach %s) vs one", m, devices,
                     r ? "1" : "default");
            const int same = same_or_describe(&one, &many, label);
            printf("%s: %s\n", label, same ? "equal bit for bit" : "DIFFER");
            ok &= same;
            sw_run_free(&many);
        }
        sw_run_free(&one);
    }
    ck_assert_msg(ok, "several GPUs differ from one");
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
    tcase_add_test(tc, upload_is_exact);
    tcase_add_test(tc, field_one_sweep);
    tcase_add_test(tc, gpu_equals_cpu);
    tcase_add_test(tc, slabs_on_one_gpu);
    tcase_add_test(tc, several_gpus);
    tcase_add_test(tc, skipping_is_exact);
    suite_add_tcase(s, tc);
    return sw_run_suite(s);
}
