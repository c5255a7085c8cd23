/* test_gpu_ete.c — the ETE kind on a real GPU, through fdw_run: the CUDA backend against the
 * CPU backend bit for bit (the two evaluate engine/kinds/ete/ete.h's operations in the same
 * order, without fused multiply-adds) for every kernel variant, on a Gaussian-anomaly model
 * with sponge, free surface, two sources and receivers, and on a model of 900 velocities at
 * random without absorbing boundary; three slabs sharing the GPU against one; and the ETE
 * job's time against the acoustic kind's at a fifth of its dt on the same grid. With
 * --small it runs one small CUDA job only (for compute-sanitizer). Exits 77 (ctest:
 * skipped) when no CUDA device is present. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdwave/fdwave.h"
#include "ete/fdwk_ete.h"
#include "run/backend.h"

/* Run json on backend be with kernel variant var over ndev slabs of GPU 0 into a fresh
 * directory (dir, 64 bytes); returns the loop's seconds. */
static double run(const char *json, fdw_backend_kind be, int var, int ndev, char *dir)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    snprintf(dir, 64, "/tmp/fdw-gpu-ete-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    fdw_tuning tune = {.cuda_config = var};
    const int ids[3] = {0, 0, 0};
    fdw_run_opts opts = {.out_dir = dir, .backend = be, .tuning = &tune,
                         .device_ids = ndev > 1 ? ids : NULL, .ndevice_ids = ndev > 1 ? ndev : 0};
    fdw_result res;
    fdw_status st = fdw_run(spec, &opts, NULL, &res, &err);
    ck_assert_msg(st == FDW_OK, "run (%s, variant %d, %d slabs): %s",
                  be == FDW_BACKEND_CUDA ? "cuda" : "cpu", var, ndev, err.message);
    fdw_spec_free(spec);
    return res.elapsed_s;
}

static unsigned char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no %s", path);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*len ? *len : 1);
    ck_assert_uint_eq(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

/* The named outputs of two runs are equal byte for byte; largest difference printed. */
static void same_files(const char *a, const char *b, const char *const *names, const char *what)
{
    for (int i = 0; names[i]; i++) {
        size_t la, lb;
        unsigned char *x = slurp(a, names[i], &la), *y = slurp(b, names[i], &lb);
        ck_assert_uint_eq(la, lb);
        double dmax = 0, vmax = 0;
        for (size_t q = 0; q + 4 <= la; q += 4) {
            float fx, fy;
            memcpy(&fx, x + q, 4);
            memcpy(&fy, y + q, 4);
            dmax = fmax(dmax, fabs((double)fx - fy));
            vmax = fmax(vmax, fabs((double)fy));
        }
        printf("  %s: %s, max |difference| %.3g of max |value| %.3g\n", what, names[i], dmax,
               vmax);
        ck_assert_msg(memcmp(x, y, la) == 0, "%s: %s differs", what, names[i]);
        free(x);
        free(y);
    }
}

static void cleanup(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *JOB_GAUSS =
    "{\"kind\":\"ete\",\"grid\":{\"nx\":131,\"ny\":97,\"nz\":83,\"dx\":10,\"dy\":10,\"dz\":10},"
    "\"velocity\":{\"type\":\"gaussian\",\"background\":2000,\"center\":[650,480,410],"
    "\"sigma\":150,\"dv\":900},\"time\":{\"nt\":160,\"dt\":\"auto\"},"
    "\"sources\":[{\"position\":[400,300,200],\"wavelet\":{\"type\":\"ricker\",\"f0\":12}},"
    "{\"position\":[905,611,433.3],\"wavelet\":{\"type\":\"ricker\",\"f0\":9,\"delay\":0.15}}],"
    "\"receivers\":{\"points\":[[1000,500,300],[55.5,77.7,3.3],[650,480,700]]},"
    "\"boundary\":{\"type\":\"sponge\",\"width\":12,\"free_surface\":true},"
    "\"snapshots\":{\"every\":160,\"slices\":[{\"plane\":\"xz\",\"index\":48},"
    "{\"plane\":\"xy\",\"index\":41}],\"png\":false}}";
static const char *const GAUSS_FILES[] = {"gather.f32", "snap_000160_xz_j48.f32",
                                          "snap_000160_xy_k41.f32", NULL};

START_TEST(test_variants_vs_cpu)
{
    char cpu[64], gpu[64];
    run(JOB_GAUSS, FDW_BACKEND_CPU, 0, 1, cpu);
    for (int v = 0; v < FDWK_ETE_VARIANTS; v++) {
        const double t = run(JOB_GAUSS, FDW_BACKEND_CUDA, v, 1, gpu);
        printf("variant %d (%s): %.3f s\n", v, fdwk_ete_variant_name(v), t);
        same_files(gpu, cpu, GAUSS_FILES, "cuda against cpu");
        cleanup(gpu);
    }
    run(JOB_GAUSS, FDW_BACKEND_CUDA, 0, 3, gpu);
    same_files(gpu, cpu, GAUSS_FILES, "3 slabs on one GPU against the cpu");
    cleanup(gpu);
    cleanup(cpu);
}
END_TEST

/* Unequal spacing: the table's axis columns differ (11 distinct columns instead of the
 * cube's 6), so the shared-table kernel's slot-to-column map is not the cube's. */
START_TEST(test_unequal_spacing)
{
    static const char *job =
        "{\"kind\":\"ete\",\"grid\":{\"nx\":71,\"ny\":53,\"nz\":90,\"dx\":10,\"dy\":10,"
        "\"dz\":6},\"velocity\":{\"type\":\"layered\",\"layers\":[{\"top\":0,\"v\":1800},"
        "{\"top\":170,\"v\":2600},{\"top\":330,\"v\":3100}]},\"time\":{\"nt\":140,"
        "\"dt\":\"auto\"},\"sources\":[{\"position\":[350,260,120],\"wavelet\":{\"type\":"
        "\"ricker\",\"f0\":12}}],\"receivers\":{\"points\":[[600,260,30],[100,400,500]]},"
        "\"boundary\":{\"type\":\"sponge\",\"width\":8},\"snapshots\":{\"every\":140,"
        "\"volume\":true,\"png\":false}}";
    static const char *const files[] = {"gather.f32", "snap_000140_volume.f32", NULL};
    char cpu[64], gpu[64];
    run(job, FDW_BACKEND_CPU, 0, 1, cpu);
    for (int v = 0; v < FDWK_ETE_VARIANTS; v++) {
        run(job, FDW_BACKEND_CUDA, v, 1, gpu);
        printf("dz = 0.6 dx, variant %d:\n", v);
        same_files(gpu, cpu, files, "cuda against cpu");
        cleanup(gpu);
    }
    cleanup(cpu);
}
END_TEST

/* 900 velocities at random, no absorbing boundary, 2.25 x the FD-8 limit at vmax. */
START_TEST(test_random_model)
{
    const int n = 64;
    char model[] = "/tmp/fdw-gpu-ete-model-XXXXXX";
    const int fd = mkstemp(model);
    ck_assert_int_ge(fd, 0);
    float *v = malloc((size_t)n * n * n * sizeof *v);
    unsigned long long x = 88172645463325252ull;
    for (size_t p = 0; p < (size_t)n * n * n; p++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[p] = (float)(1500.0 + 1500.0 * (double)(p < 900 ? p : x % 900) / 899.0);
    }
    ck_assert_int_eq(write(fd, v, (size_t)n * n * n * sizeof *v), (long)n * n * n * 4);
    close(fd);
    free(v);
    char json[1024], cpu[64], gpu[64];
    snprintf(json, sizeof json,
             "{\"kind\":\"ete\",\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":10,\"dy\":10,"
             "\"dz\":10},\"velocity\":{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"%s\"},"
             "\"time\":{\"nt\":300,\"dt\":0.003396},\"sources\":[{\"position\":[320,320,320],"
             "\"wavelet\":{\"type\":\"ricker\",\"f0\":12}}],\"receivers\":{\"points\":[[100,100,"
             "100],[500,320,200]]},\"boundary\":{\"type\":\"none\"},\"snapshots\":{\"every\":300,"
             "\"volume\":true,\"png\":false}}",
             n, n, n, model);
    run(json, FDW_BACKEND_CPU, 0, 1, cpu);
    run(json, FDW_BACKEND_CUDA, 0, 1, gpu);
    static const char *const files[] = {"gather.f32", "snap_000300_volume.f32", NULL};
    same_files(gpu, cpu, files, "900 velocities, cuda against cpu");
    cleanup(gpu);
    run(json, FDW_BACKEND_CUDA, 0, 3, gpu);
    same_files(gpu, cpu, files, "900 velocities, 3 slabs against the cpu");
    cleanup(gpu);
    cleanup(cpu);
    unlink(model);
}
END_TEST

/* The same propagation (homogeneous 256^3, 0.3 s) by ETE at 2.25 x the FD-8 limit and by the
 * acoustic kind at a fifth of that dt: the time of each on this GPU. */
START_TEST(test_time_vs_fd)
{
    const double dte = 2.25 * 0.45286 * 10.0 / 2500.0;
    const double dt[2] = {dte, dte / 5.0};
    const char *kind[2] = {"ete", "acoustic"};
    double t[2];
    for (int q = 0; q < 2; q++) {
        char json[1024], dir[64];
        snprintf(json, sizeof json,
                 "{\"kind\":\"%s\",\"grid\":{\"nx\":256,\"ny\":256,\"nz\":256,\"dx\":10,"
                 "\"dy\":10,\"dz\":10},\"velocity\":{\"type\":\"constant\",\"value\":2500},"
                 "\"time\":{\"nt\":%ld,\"dt\":%.17g},\"sources\":[{\"position\":[1280,1280,"
                 "1280],\"wavelet\":{\"type\":\"ricker\",\"f0\":15}}],\"receivers\":{\"points\":"
                 "[[1800,1280,1280]]},\"boundary\":{\"type\":\"sponge\",\"width\":16}}",
                 kind[q], (long)ceil(0.3 / dt[q]), dt[q]);
        t[q] = run(json, FDW_BACKEND_CUDA, 0, 1, dir);
        cleanup(dir);
    }
    printf("256^3, 0.3 s: ETE at dt %.3f ms %.3f s; acoustic order 8 at dt %.3f ms %.3f s "
           "(ETE %.2f x faster)\n", dte * 1e3, t[0], dte * 200, t[1], t[1] / t[0]);
    ck_assert_double_gt(t[0], 0.0);
}
END_TEST

int main(int argc, char **argv)
{
    if (fdw_cuda_backend() == NULL || fdw_gpu_count() == 0) {
        printf("no CUDA device: skipping\n");
        return 77;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "--small") == 0) {
        const char *small =
            "{\"kind\":\"ete\",\"grid\":{\"nx\":40,\"ny\":33,\"nz\":29,\"dx\":10,\"dy\":10,"
            "\"dz\":10},\"velocity\":{\"type\":\"layered\",\"layers\":[{\"top\":0,\"v\":1800},"
            "{\"top\":150,\"v\":2600}]},\"time\":{\"nt\":12,\"dt\":\"auto\"},\"sources\":"
            "[{\"position\":[200,160,100],\"wavelet\":{\"type\":\"ricker\",\"f0\":15}}],"
            "\"receivers\":{\"points\":[[100,100,50]]},\"boundary\":{\"type\":\"sponge\","
            "\"width\":6,\"free_surface\":true}}";
        fdw_spec *spec = NULL;
        fdw_error err;
        if (fdw_spec_parse(small, strlen(small), NULL, &spec, &err) != FDW_OK)
            return fprintf(stderr, "%s\n", err.message), 1;
        char dir[] = "/tmp/fdw-gpu-ete-small-XXXXXX";
        if (!mkdtemp(dir))
            return 1;
        int rc = 0;
        for (int v = 0; v < FDWK_ETE_VARIANTS && !rc; v++) {
            fdw_tuning tune = {.cuda_config = v};
            fdw_run_opts opts = {.out_dir = dir, .backend = FDW_BACKEND_CUDA, .tuning = &tune};
            fdw_result res;
            rc = fdw_run(spec, &opts, NULL, &res, &err) != FDW_OK;
            printf("small ete job, variant %d: %s\n", v, rc ? err.message : "ok");
        }
        fdw_spec_free(spec);
        return rc;
    }
    Suite *s = suite_create("gpu-ete");
    TCase *tc = tcase_create("gpu-ete");
    tcase_set_timeout(tc, 400);
    tcase_add_test(tc, test_variants_vs_cpu);
    tcase_add_test(tc, test_random_model);
    tcase_add_test(tc, test_unequal_spacing);
    tcase_add_test(tc, test_time_vs_fd);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    /* CUDA is initialised above (the device check) and does not survive Check's fork */
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
