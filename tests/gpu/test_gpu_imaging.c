/* test_gpu_imaging.c — the imaging kinds (docs/imaging.md) on a real GPU, through fdw_run:
 * the CUDA engine against the CPU engine with its portable kernels, bit for bit (born's
 * gather, rtm's image with each condition and option, the gradient and its predicted
 * gather, the misfit), with a sponge and with a CPML (loop tests: _i indexes BOUNDARY), a
 * free surface or not, a velocity gradient and a reconstruction of many segments; the
 * dot-product test on the GPU with either layer; rtm and gradient by either reconstruction
 * (checkpoints, boundary); the GPU engine over 2 and 3 slabs of GPU 0 (the ghost planes'
 * exchange between slabs, imaging_slabs.h) against the CPU on one slab, bit for bit (born,
 * rtm, gradient, each layer, a free surface or not; --slabs runs only these); and with
 * --bench, rtm and gradient of one 512^3 shot of 3000 steps by each scheme against the
 * acoustic kind's forward run of the same shot, in the same process (the 3.5x).
 * With --small it runs eight small CUDA rtm jobs only, a sponge's and a CPML's by each
 * scheme, on one slab and on two slabs of GPU 0 (for compute-sanitizer). Exits 77 (ctest:
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

/* Run the spec on a backend (the CPU with its portable kernels) into g_dir/out; the loop's
 * seconds. */
static double run(const char *out, fdw_backend_kind be, const char *json)
{
    char dir[160];
    snprintf(dir, sizeof dir, "%s/%s", g_dir, out);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    fdw_tuning tune = {.cpu_portable = 1};
    fdw_run_opts o = {.out_dir = dir, .backend = be, .tuning = &tune};
    fdw_result res;
    ck_assert_msg(fdw_run(spec, &o, NULL, &res, &err) == FDW_OK, "%s (%s): %s", out,
                  be == FDW_BACKEND_CUDA ? "cuda" : "cpu", err.message);
    ck_assert_str_eq(res.backend, be == FDW_BACKEND_CUDA ? "cuda" : "cpu");
    fdw_spec_free(spec);
    return res.elapsed_s;
}

/* The progress reports' most devices (the plan's slabs) into *user. */
static int count_slabs(void *user, const fdw_progress *p)
{
    int *n = user;
    if (p->ndevices > *n)
        *n = p->ndevices;
    return 0;
}

/* Run the spec on the GPU engine over nslabs slabs (2 or 3) all on GPU 0 into g_dir/out:
 * the caller's device list {0, 0, 0} makes fdw_run plan the slabs (fdw_plan_slabs, the
 * CPML's z layers checked against the cuts) as for that many GPUs; the loop's seconds. */
static double run_slabs(const char *out, const char *json, int nslabs)
{
    static const int ids[3] = {0, 0, 0};
    char dir[160];
    snprintf(dir, sizeof dir, "%s/%s", g_dir, out);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    fdw_tuning tune = {.cpu_portable = 1};
    fdw_run_opts o = {.out_dir = dir, .backend = FDW_BACKEND_CUDA, .device_ids = ids,
                      .ndevice_ids = nslabs, .tuning = &tune};
    int seen = 0;
    fdw_callbacks cb = {.progress = count_slabs, .user = &seen};
    fdw_result res;
    ck_assert_msg(fdw_run(spec, &o, &cb, &res, &err) == FDW_OK, "%s (cuda, %d slabs): %s",
                  out, nslabs, err.message);
    ck_assert_str_eq(res.backend, "cuda");
    ck_assert_int_eq(seen, nslabs);
    fdw_spec_free(spec);
    return res.elapsed_s;
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

/* The velocity (a gradient in z) and born's perturbation (pseudo-random) of the N^3 shots
 * into g_dir, their paths into model and dvp (128 chars each). */
static void write_models(char *model, char *dvp)
{
    const size_t n = (size_t)N * N * N;
    snprintf(model, 128, "%s/v.f32", g_dir);
    snprintf(dvp, 128, "%s/dv.f32", g_dir);
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
}

START_TEST(test_gpu_equals_cpu)
{
    const char *bnd = BOUNDARY[_i];
    char model[128], dvp[128], dp[128], json[4096], extra[512];
    write_models(model, dvp);
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

/* The shot for the slabs: shot()'s grid, model and layer of type bnd (8 points: the CPML's
 * z layers and the radius 4 stay clear of the cuts at planes 20, and 14 and 27, of 2 and 3
 * slabs), the source at plane 25.5 (its taps on both sides of the cut at 27), receivers on
 * a slanting line over planes 5.5 .. 30.5 (rows in every slab, some beside each cut), 160
 * steps (9 segments of 18, the last of 16). */
static void slab_shot(char *out, size_t len, const char *kind, const char *model,
                      const char *bnd, int fs, const char *extra)
{
    snprintf(out, len,
             "{\"kind\": \"%s\", \"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": 10, "
             "\"dy\": 10, \"dz\": 10}, \"velocity\": {\"type\": \"file\", \"format\": "
             "\"raw-f32\", \"path\": \"%s\"}, \"time\": {\"nt\": 160, \"dt\": 0.0015}, "
             "\"sources\": [{\"position\": [195, 185, 255], \"wavelet\": {\"type\": \"ricker\", "
             "\"f0\": 15}}], \"receivers\": {\"lines\": [{\"from\": [90, 190, 55], \"to\": "
             "[300, 190, 305], \"count\": 20}], \"interval\": 2}, \"boundary\": {\"type\": "
             "\"%s\", \"width\": 8, \"free_surface\": %s}%s}",
             kind, N, N, N, model, bnd, fs ? "true" : "false", extra);
}

/* The GPU engine over 2 and 3 slabs of GPU 0 against the CPU engine on one slab, bit for
 * bit: born's gather, rtm's image (and illumination) by each reconstruction and condition,
 * the gradient, its predicted gather and misfit by each reconstruction; layer _i, with a
 * free surface and without. */
START_TEST(test_gpu_slabs)
{
    const char *bnd = BOUNDARY[_i];
    char model[128], dvp[128], dp[160], json[4096], extra[512];
    write_models(model, dvp);
    static const char *const opts[] = {
        ", \"imaging\": {\"illumination\": true}",
        ", \"imaging\": {\"condition\": \"crosscorrelation\", \"illumination\": true, "
        "\"laplacian\": true}"};
    for (int fs = 0; fs < 2; fs++) {
        printf("%s, %s: the GPU on 2 and 3 slabs of GPU 0 against the CPU on one slab\n", bnd,
               fs ? "free surface" : "absorbing all round");
        snprintf(extra, sizeof extra, ", \"perturbation\": {\"type\": \"file\", \"path\": "
                 "\"%s\"}", dvp);
        slab_shot(json, sizeof json, "born", model, bnd, fs, extra);
        run("sborn_cpu", FDW_BACKEND_CPU, json);
        for (int ns = 2; ns <= 3; ns++) {
            printf(" born, %d slabs:\n", ns);
            run_slabs("sborn_gpu", json, ns);
            same("sborn_gpu", "sborn_cpu", "gather.f32");
        }
        /* born's traces as rtm's and gradient's data */
        snprintf(dp, sizeof dp, "%s/sborn_cpu/gather.f32", g_dir);
        for (int r = 0; r < 2; r++) {
            for (int o = 0; o < 2; o++) {
                snprintf(extra, sizeof extra, ", \"data\": {\"path\": \"%s\"}%s, "
                         "\"reconstruction\": \"%s\"", dp, opts[o], RECON[r]);
                slab_shot(json, sizeof json, "rtm", model, bnd, fs, extra);
                run("srtm_cpu", FDW_BACKEND_CPU, json);
                for (int ns = 2; ns <= 3; ns++) {
                    printf(" rtm by %s, %s condition, %d slabs:\n", RECON[r],
                           o ? "cross-correlation" : "adjoint", ns);
                    run_slabs("srtm_gpu", json, ns);
                    same("srtm_gpu", "srtm_cpu", "image.f32");
                    same("srtm_gpu", "srtm_cpu", "illumination.f32");
                }
            }
            snprintf(extra, sizeof extra, ", \"data\": {\"path\": \"%s\"}, \"gradient\": "
                     "{\"parameter\": \"slowness2\"}, \"reconstruction\": \"%s\"", dp,
                     RECON[r]);
            slab_shot(json, sizeof json, "gradient", model, bnd, fs, extra);
            run("sgrad_cpu", FDW_BACKEND_CPU, json);
            for (int ns = 2; ns <= 3; ns++) {
                printf(" gradient by %s, %d slabs:\n", RECON[r], ns);
                run_slabs("sgrad_gpu", json, ns);
                same("sgrad_gpu", "sgrad_cpu", "gradient.f32");
                same("sgrad_gpu", "sgrad_cpu", "gather.f32");
                const double mg = img_misfit(g_dir, "sgrad_gpu"), mc = img_misfit(g_dir, "sgrad_cpu");
                printf("  misfit: cuda %.17g, cpu %.17g\n", mg, mc);
                ck_assert(mg == mc);
            }
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
 * here) and by the checkpoints; and the boundary scheme's rtm on two slabs of the one GPU
 * (what the slabs' exchange costs where no second GPU shares the work). */
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
        char name[16];
        snprintf(name, sizeof name, "b_rtm%d", r);
        t[r][0] = run(name, FDW_BACKEND_CUDA, json);
        img_times(g_dir, name, ph[r][0]);
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
    snprintf(json, sizeof json, "{\"kind\": \"rtm\", %s, \"data\": {\"path\": \"%s\"}, "
             "\"reconstruction\": \"boundary\"}", base, data);
    const double t2 = run_slabs("b_rtm2", json, 2);
    char p1[200], p2[200];
    snprintf(p1, sizeof p1, "%s/b_rtm0/image.f32", g_dir); /* the boundary scheme's */
    snprintf(p2, sizeof p2, "%s/b_rtm2/image.f32", g_dir);
    size_t l1, l2;
    unsigned char *i1 = slurp(p1, &l1), *i2 = slurp(p2, &l2);
    const int same2 = l1 == l2 && memcmp(i1, i2, l1) == 0;
    free(i1), free(i2);
    const double pts = 512.0 * 512.0 * 512.0 * 3000.0;
    printf("{\"benchmark\": \"imaging\", \"grid\": 512, \"nt\": 3000, \"forward_s\": %.3f, "
           "\"reconstruction\": \"boundary\", \"rtm_s\": %.3f, \"gradient_s\": %.3f, "
           "\"rtm_over_forward\": %.3f, \"gradient_over_forward\": %.3f, "
           "\"rtm_checkpoints_s\": %.3f, \"gradient_checkpoints_s\": %.3f, "
           "\"rtm_checkpoints_over_forward\": %.3f, \"gradient_checkpoints_over_forward\": "
           "%.3f, \"rtm_2slabs_one_gpu_s\": %.3f, \"rtm_2slabs_image_equal\": %s, "
           "\"forward_gpts\": %.2f, \"rtm_forward_pass_s\": %.3f, \"rtm_backward_pass_s\": "
           "%.3f, \"rtm_image_s\": %.3f, \"gradient_forward_pass_s\": %.3f, "
           "\"gradient_backward_pass_s\": %.3f, \"gradient_image_s\": %.3f}\n", fwd,
           t[0][0], t[0][1], t[0][0] / fwd, t[0][1] / fwd, t[1][0], t[1][1], t[1][0] / fwd,
           t[1][1] / fwd, t2, same2 ? "true" : "false", pts / fwd / 1e9, ph[0][0][0], ph[0][0][1],
           ph[0][0][2], ph[0][1][0], ph[0][1][1], ph[0][1][2]);
}
END_TEST

/* Small rtm jobs on the GPU, a sponge's and a CPML's, by either scheme, on one slab and on
 * two slabs of GPU 0 (for compute-sanitizer: --small; the CPML's bottom layer of 4 and the
 * radius 4 stay clear of the cut at plane 11). */
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
             "\"reconstruction\": \"%s\"}", BOUNDARY[_i % 2], zp, RECON[_i / 2 % 2]);
    if (_i < 4)
        run("small", FDW_BACKEND_CUDA, json);
    else
        run_slabs("small", json, 2);
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
        tcase_add_loop_test(tc, test_small, 0, 8);
    } else if (strcmp(mode, "--slabs") == 0) {
        tcase_add_loop_test(tc, test_gpu_slabs, 0, 2);
    } else {
        tcase_add_loop_test(tc, test_gpu_equals_cpu, 0, 2);
        tcase_add_loop_test(tc, test_gpu_slabs, 0, 2);
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
