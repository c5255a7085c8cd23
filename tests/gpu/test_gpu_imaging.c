/* test_gpu_imaging.c — the imaging kinds (docs/imaging.md) on a real GPU, through fdw_run:
 * the CUDA engine against the CPU engine with its portable kernels, bit for bit (born's
 * gather, rtm's image with each condition and option, the gradient and its predicted
 * gather, the misfit), with a sponge and with a CPML (loop tests: _i indexes BOUNDARY), a
 * free surface or not, a velocity gradient and a reconstruction of many segments; the
 * dot-product test on the GPU with either layer; rtm and gradient by either reconstruction
 * (checkpoints, boundary); and with --bench, rtm and gradient of one 512^3 shot of 3000
 * steps by each scheme against the acoustic kind's forward run of the same shot, in the
 * same process (the 3.5x). With --small it runs four small CUDA rtm jobs only, a
 * sponge's and a CPML's by each scheme (for compute-sanitizer). Exits 77 (ctest:
 * skipped) without a GPU. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdwave/fdwave.h"
#include "img_check.h"

static char g_dir[64];

static const char *const BOUNDARY[] = {"sponge", "cpml"};
static const char *const RECON[] = {"checkpoints", "boundary"};

static unsigned char *slurp(const char *path, size_t *len)
{
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

/* Run the spec on a backend (the CPU with its portable kernels) into g_dir/out with the
 * GPU kernels' planes per block zchunk (0: their rule); the loop's seconds. */
static double run_z(const char *out, fdw_backend_kind be, const char *json, int zchunk)
{
    char dir[160];
    snprintf(dir, sizeof dir, "%s/%s", g_dir, out);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    fdw_tuning tune = {.cpu_portable = 1, .cuda_zchunk = zchunk};
    fdw_run_opts o = {.out_dir = dir, .backend = be, .tuning = &tune};
    fdw_result res;
    ck_assert_msg(fdw_run(spec, &o, NULL, &res, &err) == FDW_OK, "%s (%s): %s", out,
                  be == FDW_BACKEND_CUDA ? "cuda" : "cpu", err.message);
    ck_assert_str_eq(res.backend, be == FDW_BACKEND_CUDA ? "cuda" : "cpu");
    fdw_spec_free(spec);
    return res.elapsed_s;
}

static double run(const char *out, fdw_backend_kind be, const char *json)
{
    return run_z(out, be, json, 0);
}

/* Files of g_dir/a and g_dir/b equal byte for byte. */
static void same(const char *a, const char *b, const char *name)
{
    char pa[200], pb[200];
    snprintf(pa, sizeof pa, "%s/%s/%s", g_dir, a, name);
    snprintf(pb, sizeof pb, "%s/%s/%s", g_dir, b, name);
    size_t la, lb;
    unsigned char *x = slurp(pa, &la), *y = slurp(pb, &lb);
    ck_assert_uint_eq(la, lb);
    double dmax = 0, vmax = 0;
    for (size_t q = 0; q + 4 <= la; q += 4) {
        float fx, fy;
        memcpy(&fx, x + q, 4), memcpy(&fy, y + q, 4);
        dmax = fmax(dmax, fabs((double)fx - fy));
        vmax = fmax(vmax, fabs((double)fy));
    }
    printf("  %s: cuda against cpu, max |difference| %.3g of max |value| %.3g\n", name, dmax,
           vmax);
    ck_assert_msg(memcmp(x, y, la) == 0, "%s differs between the GPU and the CPU", name);
    free(x), free(y);
}

#define N 40
/* The shot: 40^3, a velocity gradient, an absorbing layer of type bnd 8 points wide, the
 * free surface or not, 400 steps (15 segments of 28). */
static void shot(char *out, size_t len, const char *kind, const char *model, const char *bnd,
                 int fs, const char *extra)
{
    snprintf(out, len,
             "{\"kind\": \"%s\", \"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": 10, "
             "\"dy\": 10, \"dz\": 10}, \"velocity\": {\"type\": \"file\", \"format\": "
             "\"raw-f32\", \"path\": \"%s\"}, \"time\": {\"nt\": 400, \"dt\": 0.0015}, "
             "\"sources\": [{\"position\": [195, 185, %d], \"wavelet\": {\"type\": \"ricker\", "
             "\"f0\": 15}}], \"receivers\": {\"lines\": [{\"from\": [90, 190, 120], \"to\": "
             "[300, 190, 120], \"count\": 20}], \"interval\": 2}, \"boundary\": {\"type\": "
             "\"%s\", \"width\": 8, \"free_surface\": %s}%s}",
             kind, N, N, N, model, fs ? 50 : 100, bnd, fs ? "true" : "false", extra);
}

START_TEST(test_gpu_equals_cpu)
{
    const char *bnd = BOUNDARY[_i];
    const size_t n = (size_t)N * N * N;
    char model[128], dvp[128], dp[128], json[4096], extra[512];
    snprintf(model, sizeof model, "%s/v.f32", g_dir);
    snprintf(dvp, sizeof dvp, "%s/dv.f32", g_dir);
    float *v = malloc(n * sizeof *v), *dv = malloc(n * sizeof *dv);
    unsigned s = 7;
    for (size_t q = 0; q < n; q++) {
        v[q] = (float)(2000.0 + 500.0 * (double)(q / (N * N)) / (N - 1));
        s = s * 1664525u + 1013904223u;
        dv[q] = (float)((int)(s >> 9) % 41 - 20);
    }
    img_write_f32(model, v, n);
    img_write_f32(dvp, dv, n);
    free(v), free(dv);
    for (int fs = 0; fs < 2; fs++) {
        printf("%s, %s:\n", bnd, fs ? "free surface" : "absorbing all round");
        snprintf(extra, sizeof extra, ", \"perturbation\": {\"type\": \"file\", \"path\": \"%s\"}",
                 dvp);
        shot(json, sizeof json, "born", model, bnd, fs, extra);
        run("born_cpu", FDW_BACKEND_CPU, json);
        run("born_gpu", FDW_BACKEND_CUDA, json);
        same("born_gpu", "born_cpu", "gather.f32");
        /* born's traces as rtm's and gradient's data */
        snprintf(dp, sizeof dp, "%s/born_cpu/gather.f32", g_dir);
        static const char *const opts[] = {
            "", ", \"imaging\": {\"condition\": \"crosscorrelation\", \"illumination\": true, "
                "\"laplacian\": true}"};
        for (int r = 0; r < 2; r++) {
            printf(" reconstruction %s:\n", RECON[r]);
            for (int o = 0; o < 2; o++) {
                snprintf(extra, sizeof extra, ", \"data\": {\"path\": \"%s\"}%s, "
                         "\"reconstruction\": \"%s\"", dp, opts[o], RECON[r]);
                shot(json, sizeof json, "rtm", model, bnd, fs, extra);
                run("rtm_cpu", FDW_BACKEND_CPU, json);
                run("rtm_gpu", FDW_BACKEND_CUDA, json);
                same("rtm_gpu", "rtm_cpu", "image.f32");
                if (o)
                    same("rtm_gpu", "rtm_cpu", "illumination.f32");
            }
            snprintf(extra, sizeof extra, ", \"data\": {\"path\": \"%s\"}, \"gradient\": "
                     "{\"parameter\": \"slowness2\"}, \"reconstruction\": \"%s\"", dp,
                     RECON[r]);
            shot(json, sizeof json, "gradient", model, bnd, fs, extra);
            run("grad_cpu", FDW_BACKEND_CPU, json);
            run("grad_gpu", FDW_BACKEND_CUDA, json);
            same("grad_gpu", "grad_cpu", "gradient.f32");
            same("grad_gpu", "grad_cpu", "gather.f32");
            printf("  misfit: cuda %.17g, cpu %.17g\n", img_misfit(g_dir, "grad_gpu"), img_misfit(g_dir, "grad_cpu"));
            ck_assert(img_misfit(g_dir, "grad_gpu") == img_misfit(g_dir, "grad_cpu"));
        }
    }
}
END_TEST

/* <born dv, d> = <dv, rtm d> on the GPU (d: born's traces plus as much noise), a free
 * surface, either layer. */
START_TEST(test_gpu_dot_product)
{
    const char *bnd = BOUNDARY[_i];
    const size_t n = (size_t)N * N * N, nd = (size_t)20 * 201;
    char model[128], dvp[128], dp[128], json[4096], extra[512], path[200];
    snprintf(model, sizeof model, "%s/v.f32", g_dir);
    snprintf(dvp, sizeof dvp, "%s/dv.f32", g_dir);
    snprintf(dp, sizeof dp, "%s/d.f32", g_dir);
    snprintf(extra, sizeof extra, ", \"perturbation\": {\"type\": \"file\", \"path\": \"%s\"}", dvp);
    shot(json, sizeof json, "born", model, bnd, 1, extra);
    run("born_gpu", FDW_BACKEND_CUDA, json);
    size_t len;
    snprintf(path, sizeof path, "%s/born_gpu/gather.f32", g_dir);
    float *bd = (float *)slurp(path, &len);
    ck_assert_uint_eq(len, nd * 4);
    float *d = malloc(nd * sizeof *d);
    double rms = 0.0;
    for (size_t i = 0; i < nd; i++)
        rms += (double)bd[i] * bd[i];
    rms = sqrt(rms / nd);
    unsigned s = 3;
    for (size_t i = 0; i < nd; i++) {
        s = s * 1664525u + 1013904223u;
        d[i] = (float)(bd[i] + rms * (((s >> 8) & 0xffff) / 32768.0 - 1.0));
    }
    img_write_f32(dp, d, nd);
    snprintf(extra, sizeof extra, ", \"data\": {\"path\": \"%s\"}, \"reconstruction\": "
             "\"checkpoints\"", dp);
    shot(json, sizeof json, "rtm", model, bnd, 1, extra);
    run("rtm_gpu", FDW_BACKEND_CUDA, json);
    snprintf(path, sizeof path, "%s/rtm_gpu/image.f32", g_dir);
    float *img = (float *)slurp(path, &len);
    snprintf(path, sizeof path, "%s", dvp);
    float *dv = (float *)slurp(path, &len);
    double a = 0.0, b = 0.0;
    for (size_t i = 0; i < nd; i++)
        a += (double)bd[i] * d[i];
    for (size_t i = 0; i < n; i++)
        b += (double)dv[i] * img[i];
    printf("dot product on the GPU (%s, free surface): <born dv, d> = %.9e, <dv, rtm d> = "
           "%.9e, relative %.2e\n", bnd, a, b, fabs(a - b) / fabs(a));
    ck_assert_double_lt(fabs(a - b), 1e-6 * fabs(a));
    free(bd), free(d), free(img), free(dv);
}
END_TEST

/* rtm and gradient of one shot against the acoustic forward run of the same shot, 512^3,
 * 3000 steps, order 8, sponge 20 (--bench), each by the boundary scheme ("auto" picks it
 * here) and by the checkpoints. */
START_TEST(test_bench)
{
    const char *base =
        "\"grid\": {\"nx\": 512, \"ny\": 512, \"nz\": 512, \"dx\": 10, \"dy\": 10, \"dz\": 10}, "
        "\"velocity\": {\"type\": \"gaussian\", \"background\": 2500, \"dv\": 500, "
        "\"center\": [2560, 2560, 2560], \"sigma\": 700}, \"time\": {\"nt\": 3000, "
        "\"dt\": 0.0015}, \"sources\": [{\"position\": [2560, 2560, 300], \"wavelet\": {\"type\": "
        "\"ricker\", \"f0\": 15}}], \"receivers\": {\"lines\": [{\"from\": [300, 2560, 250], "
        "\"to\": [4800, 2560, 250], \"count\": 451}]}, \"boundary\": {\"type\": \"sponge\", "
        "\"width\": 20}";
    char json[4096], data[200];
    snprintf(json, sizeof json, "{\"kind\": \"acoustic\", %s}", base);
    const double fwd = run("b_fwd", FDW_BACKEND_CUDA, json);
    snprintf(data, sizeof data, "%s/b_fwd/gather.f32", g_dir);
    double t[2][2], ph[2][2][4]; /* [scheme][rtm, gradient]: time_s and the loop's */
    for (int r = 0; r < 2; r++) {
        snprintf(json, sizeof json, "{\"kind\": \"rtm\", %s, \"data\": {\"path\": \"%s\"}, "
                 "\"reconstruction\": \"%s\"}", base, data, RECON[1 - r]);
        t[r][0] = run("b_rtm", FDW_BACKEND_CUDA, json);
        img_times(g_dir, "b_rtm", ph[r][0]);
        snprintf(json, sizeof json, "{\"kind\": \"gradient\", %s, \"data\": {\"path\": "
                 "\"%s\"}, \"reconstruction\": \"%s\"}", base, data, RECON[1 - r]);
        t[r][1] = run("b_grad", FDW_BACKEND_CUDA, json);
        img_times(g_dir, "b_grad", ph[r][1]);
    }
    for (int r = 0; r < 2; r++)
        for (int m = 0; m < 2; m++)
            printf("  %s by %s: forward pass %.3f s, backward pass %.3f s, image %.3f s, "
                   "loop %.3f s\n", m ? "gradient" : "rtm", RECON[1 - r], ph[r][m][0],
                   ph[r][m][1], ph[r][m][2], ph[r][m][3]);
    /* the boundary scheme's rtm with longer z chunks (every kernel of the run takes them) */
    double tz[2];
    const int zc[2] = {96, 160};
    snprintf(json, sizeof json, "{\"kind\": \"rtm\", %s, \"data\": {\"path\": \"%s\"}, "
             "\"reconstruction\": \"boundary\"}", base, data);
    for (int z = 0; z < 2; z++)
        tz[z] = run_z("b_rtm", FDW_BACKEND_CUDA, json, zc[z]);
    const double pts = 512.0 * 512.0 * 512.0 * 3000.0;
    printf("{\"benchmark\": \"imaging\", \"grid\": 512, \"nt\": 3000, \"forward_s\": %.3f, "
           "\"reconstruction\": \"boundary\", \"rtm_s\": %.3f, \"gradient_s\": %.3f, "
           "\"rtm_over_forward\": %.3f, \"gradient_over_forward\": %.3f, "
           "\"rtm_checkpoints_s\": %.3f, \"gradient_checkpoints_s\": %.3f, "
           "\"rtm_checkpoints_over_forward\": %.3f, \"gradient_checkpoints_over_forward\": "
           "%.3f, \"rtm_zchunk96_s\": %.3f, \"rtm_zchunk160_s\": %.3f, "
           "\"forward_gpts\": %.2f, \"rtm_forward_pass_s\": %.3f, \"rtm_backward_pass_s\": "
           "%.3f, \"rtm_image_s\": %.3f, \"gradient_forward_pass_s\": %.3f, "
           "\"gradient_backward_pass_s\": %.3f, \"gradient_image_s\": %.3f}\n", fwd,
           t[0][0], t[0][1], t[0][0] / fwd, t[0][1] / fwd, t[1][0], t[1][1], t[1][0] / fwd,
           t[1][1] / fwd, tz[0], tz[1], pts / fwd / 1e9, ph[0][0][0], ph[0][0][1],
           ph[0][0][2], ph[0][1][0], ph[0][1][1], ph[0][1][2]);
}
END_TEST

/* Small rtm jobs on the GPU, a sponge's and a CPML's, by either scheme (for
 * compute-sanitizer: --small). */
START_TEST(test_small)
{
    char json[2048], zp[128];
    snprintf(zp, sizeof zp, "%s/zeros.f32", g_dir);
    float z[2 * 61];
    for (int i = 0; i < 2 * 61; i++)
        z[i] = (float)(i % 7) - 3.0f;
    img_write_f32(zp, z, 2 * 61);
    snprintf(json, sizeof json,
             "{\"kind\": \"rtm\", \"grid\": {\"nx\": 24, \"ny\": 20, \"nz\": 22, \"dx\": 10, "
             "\"dy\": 10, \"dz\": 10}, \"velocity\": {\"type\": \"constant\", \"value\": "
             "2000}, \"time\": {\"nt\": 60, \"dt\": 0.0015}, \"sources\": [{\"position\": "
             "[115, 95, 40], \"wavelet\": {\"type\": \"ricker\", \"f0\": 25}}], \"receivers\": "
             "{\"points\": [[50, 95, 40], [180, 95, 40]]}, \"boundary\": {\"type\": "
             "\"%s\", \"width\": 4, \"free_surface\": true}, \"data\": {\"path\": "
             "\"%s\"}, \"imaging\": {\"illumination\": true, \"laplacian\": true}, "
             "\"reconstruction\": \"%s\"}", BOUNDARY[_i % 2], zp, RECON[_i / 2]);
    run("small", FDW_BACKEND_CUDA, json);
}
END_TEST



int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (fdw_gpu_count() < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    snprintf(g_dir, sizeof g_dir, "/tmp/fdw-gpu-img-XXXXXX");
    if (!mkdtemp(g_dir))
        return 1;
    Suite *s = suite_create("gpu-imaging");
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 600);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "--bench") == 0) {
        tcase_add_test(tc, test_bench);
    } else if (strcmp(mode, "--small") == 0) {
        tcase_add_loop_test(tc, test_small, 0, 4);
    } else {
        tcase_add_loop_test(tc, test_gpu_equals_cpu, 0, 2);
        tcase_add_loop_test(tc, test_gpu_dot_product, 0, 2);
    }
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int rc = srunner_ntests_failed(sr) ? 1 : 0;
    srunner_free(sr);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        return 1;
    return rc;
}
