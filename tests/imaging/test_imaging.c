/* test_imaging.c — the imaging kinds (engine/kinds/imaging, docs/imaging.md) against their
 * own definitions, on the CPU:
 *   - the dot-product test <born(dv), d> = <dv, rtm(d)> with random dv and d, a sponge, a
 *     free surface, a velocity gradient and a run of several reconstruction segments;
 *   - born against finite differences of the acoustic kind's traces;
 *   - the gradient against central differences of its own misfit along random smooth
 *     directions;
 *   - a flat reflector (2000 over 2500 m/s at 400 m) migrated in 2000 m/s from the traces
 *     of the acoustic kind less the direct wave: the image is a perturbation of the
 *     velocity, so the reflector lies where it changes fastest with depth (reflectivity, 1/2
 *     d(dv/v)/dz): at 400 m within one grid spacing over the specular aperture;
 *   - a point diffractor (one grid point 300 m/s faster) focused at its position within one
 *     grid spacing;
 * (the images are searched below 250 m: above it, within two wavelengths of the source and
 * the receivers at 30 m, the image holds the acquisition's own footprint, as RTM images do);
 *   - refusals, each naming its field; and the engine's step count. */
#include "fdwave/fdwave.h"
#include "kinds/imaging/imaging.h"

#include "img_check.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define H 10.0

static char g_dir[64];

/* A deterministic normal deviate stream (Box-Muller on a counter hash). */
static double normal(unsigned *state)
{
    double u[2];
    for (int q = 0; q < 2; q++) {
        unsigned x = (*state += 0x9E3779B9u);
        x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
        u[q] = (x + 0.5) / 4294967296.0;
    }
    return sqrt(-2.0 * log(u[0])) * cos(2.0 * M_PI * u[1]);
}

/* Parse json (a printf format) and run it on the CPU into g_dir/out; the result. */
static fdw_result run(const char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static fdw_result run(const char *out, const char *fmt, ...)
{
    char json[8192], dir[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(json, sizeof json, fmt, ap);
    va_end(ap);
    snprintf(dir, sizeof dir, "%s/%s", g_dir, out);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s: %s",
                  out, err.field, err.message);
    fdw_run_opts o = {.out_dir = dir, .backend = FDW_BACKEND_CPU};
    fdw_result res;
    ck_assert_msg(fdw_run(spec, &o, NULL, &res, &err) == FDW_OK, "%s: %s", out, err.message);
    fdw_spec_free(spec);
    return res;
}

static double misfit_of(const char *out)
{
    char path[200];
    snprintf(path, sizeof path, "%s/%s/manifest.json", g_dir, out);
    json_t *m = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(m);
    const double j = json_number_value(json_object_get(json_object_get(m, "result"), "misfit"));
    json_decref(m);
    return j;
}

/* ---- a small shot: 32^3, a velocity gradient 2000-2400 m/s with depth ---- */
#define N 32
#define NREC 12

static void gradient_model(const char *path, const float *dv, double eps)
{
    float *v = malloc((size_t)N * N * N * sizeof *v);
    for (int k = 0; k < N; k++)
        for (size_t p = 0; p < (size_t)N * N; p++) {
            const size_t q = (size_t)k * N * N + p;
            v[q] = (float)(2000.0 + 400.0 * k / (N - 1) + (dv ? eps * dv[q] : 0.0));
        }
    img_write_f32(path, v, (size_t)N * N * N);
    free(v);
}

/* The shot's common members; fs: a free surface (the source nearer to it). */
static const char *shot(int fs, long nt)
{
    static char s[1024];
    snprintf(s, sizeof s,
             "\"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": 10, \"dy\": 10, \"dz\": 10}, "
             "\"time\": {\"nt\": %ld, \"dt\": 0.0015}, \"sources\": [{\"position\": [155, 155, "
             "%d], \"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}], \"receivers\": {\"lines\": "
             "[{\"from\": [90, 155, 100], \"to\": [220, 155, 100], \"count\": %d}], \"interval\": "
             "2}, \"boundary\": {\"type\": \"sponge\", \"width\": 8, \"free_surface\": %s}",
             N, N, N, nt, fs ? 60 : 100, NREC, fs ? "true" : "false");
    return s;
}

static double dot(const float *a, const float *b, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

START_TEST(test_dot_product)
{
    const long nt = 300, ns = nt / 2 + 1; /* 300 steps: 24 segments of 12 */
    const size_t n = (size_t)N * N * N;
    char model[128], dvp[128], dp[128], path[200];
    snprintf(model, sizeof model, "%s/grad.f32", g_dir);
    snprintf(dvp, sizeof dvp, "%s/dv.f32", g_dir);
    snprintf(dp, sizeof dp, "%s/d.f32", g_dir);
    gradient_model(model, NULL, 0.0);
    unsigned seed = 3;
    float *dv = malloc(n * sizeof *dv), *d = malloc((size_t)NREC * ns * sizeof *d);
    for (size_t i = 0; i < n; i++)
        dv[i] = (float)(20.0 * normal(&seed));
    img_write_f32(dvp, dv, n);
    for (int fs = 0; fs < 2; fs++) {
        run("born", "{\"kind\": \"born\", %s, \"velocity\": {\"type\": \"file\", \"format\": "
            "\"raw-f32\", \"path\": \"%s\"}, \"perturbation\": {\"type\": \"file\", \"path\": "
            "\"%s\"}}", shot(fs, nt), model, dvp);
        /* d: born's traces plus as much noise (its own inner product with them does not
         * cancel, and the noise carries every other direction) */
        snprintf(path, sizeof path, "%s/born/gather.f32", g_dir);
        float *b0 = img_read_f32(path, (size_t)NREC * ns);
        const double rms = sqrt(dot(b0, b0, (size_t)NREC * ns) / (NREC * ns));
        for (size_t i = 0; i < (size_t)NREC * ns; i++)
            d[i] = (float)(b0[i] + rms * normal(&seed));
        img_write_f32(dp, d, (size_t)NREC * ns);
        free(b0);
        const fdw_result res = run("rtm", "{\"kind\": \"rtm\", %s, \"velocity\": {\"type\": "
                                   "\"file\", \"format\": \"raw-f32\", \"path\": \"%s\"}, "
                                   "\"data\": {\"path\": \"%s\"}}", shot(fs, nt), model, dp);
        ck_assert_int_eq(res.steps_done, fdw_img_engine_steps(IMG_RTM, nt, fdw_img_segment(nt)));
        snprintf(path, sizeof path, "%s/born/gather.f32", g_dir);
        float *dd = img_read_f32(path, (size_t)NREC * ns);
        snprintf(path, sizeof path, "%s/rtm/image.f32", g_dir);
        float *img = img_read_f32(path, n);
        const double a = dot(dd, d, (size_t)NREC * ns), b = dot(dv, img, n);
        const double rel = fabs(a - b) / fmax(fabs(a), fabs(b));
        printf("dot product (%s): <born dv, d> = %.9e, <dv, rtm d> = %.9e, relative %.2e\n",
               fs ? "free surface" : "sponge all round", a, b, rel);
        ck_assert_double_gt(fabs(a), 0.0);
        ck_assert_double_lt(rel, 1e-4);
        free(dd), free(img);
    }
    free(dv), free(d);
}
END_TEST

/* born's traces against (d(v + e dv) - d(v - e dv)) / 2e of the acoustic kind. */
START_TEST(test_born_linearises)
{
    const long nt = 300, ns = nt / 2 + 1;
    const size_t n = (size_t)N * N * N;
    char m0[128], mp[128], mm[128], dvp[128], path[200];
    snprintf(m0, sizeof m0, "%s/b0.f32", g_dir);
    snprintf(mp, sizeof mp, "%s/bp.f32", g_dir);
    snprintf(mm, sizeof mm, "%s/bm.f32", g_dir);
    snprintf(dvp, sizeof dvp, "%s/bdv.f32", g_dir);
    float *dv = calloc(n, sizeof *dv);
    for (size_t q = 16 * (size_t)N * N; q < 20 * (size_t)N * N; q++) /* a layer at 160-190 m */
        dv[q] = 1.0f;
    img_write_f32(dvp, dv, n);
    const double eps = 0.5;
    gradient_model(m0, NULL, 0.0);
    gradient_model(mp, dv, eps);
    gradient_model(mm, dv, -eps);
    const char *vel = "\"velocity\": {\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"%s\"}";
    char fmt[512];
    snprintf(fmt, sizeof fmt, "{\"kind\": \"acoustic\", %%s, %s}", vel);
    run("ap", fmt, shot(1, nt), mp);
    run("am", fmt, shot(1, nt), mm);
    run("bl", "{\"kind\": \"born\", %s, \"velocity\": {\"type\": \"file\", \"format\": "
        "\"raw-f32\", \"path\": \"%s\"}, \"perturbation\": {\"type\": \"file\", \"path\": "
        "\"%s\"}}", shot(1, nt), m0, dvp);
    const size_t nd = (size_t)NREC * ns;
    snprintf(path, sizeof path, "%s/ap/gather.f32", g_dir);
    float *dp = img_read_f32(path, nd);
    snprintf(path, sizeof path, "%s/am/gather.f32", g_dir);
    float *dmn = img_read_f32(path, nd);
    snprintf(path, sizeof path, "%s/bl/gather.f32", g_dir);
    float *db = img_read_f32(path, nd);
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < nd; i++) {
        const double fd = ((double)dp[i] - dmn[i]) / (2.0 * eps);
        num += (fd - db[i]) * (fd - db[i]);
        den += fd * fd;
    }
    printf("born against central differences of the acoustic traces (a layer, free surface): "
           "relative L2 difference %.2e\n", sqrt(num / den));
    ck_assert_double_gt(den, 0.0);
    ck_assert_double_lt(sqrt(num / den), 1e-2);
    free(dv), free(dp), free(dmn), free(db);
}
END_TEST

/* The gradient of the misfit along three random smooth directions (Gaussian blobs where
 * the waves go, at most 1.5 m/s) against central differences of the misfit. */
START_TEST(test_gradient_fd)
{
    const long nt = 300;
    const size_t n = (size_t)N * N * N;
    char m0[128], mt[128], mp[128], dobs[128], path[200];
    snprintf(m0, sizeof m0, "%s/g0.f32", g_dir);
    snprintf(mt, sizeof mt, "%s/gt.f32", g_dir);
    snprintf(mp, sizeof mp, "%s/gp.f32", g_dir);
    snprintf(dobs, sizeof dobs, "%s/obs/gather.f32", g_dir);
    /* the observed traces: a faster layer the starting model lacks */
    float *lay = calloc(n, sizeof *lay);
    for (size_t q = 16 * (size_t)N * N; q < 20 * (size_t)N * N; q++)
        lay[q] = 150.0f;
    gradient_model(mt, lay, 1.0);
    gradient_model(m0, NULL, 0.0);
    const char *fs = shot(1, nt);
    run("obs", "{\"kind\": \"acoustic\", %s, \"velocity\": {\"type\": \"file\", \"format\": "
        "\"raw-f32\", \"path\": \"%s\"}}", fs, mt);
    const char *gfmt = "{\"kind\": \"gradient\", %s, \"velocity\": {\"type\": \"file\", "
                       "\"format\": \"raw-f32\", \"path\": \"%s\"}, \"data\": {\"path\": \"%s\"}}";
    run("g", gfmt, fs, m0, dobs);
    snprintf(path, sizeof path, "%s/g/gradient.f32", g_dir);
    float *g = img_read_f32(path, n);
    unsigned seed = 11;
    float *dir = malloc(n * sizeof *dir);
    for (int trial = 0; trial < 3; trial++) {
        double c[3][3], sg[3];
        for (int b = 0; b < 3; b++) {
            c[b][0] = 8 + 14 * (normal(&seed) * 0.2 + 0.5);
            c[b][1] = 12 + 8 * (normal(&seed) * 0.2 + 0.5);
            c[b][2] = 10 + 12 * (normal(&seed) * 0.2 + 0.5);
            sg[b] = normal(&seed) > 0 ? 1.0 : -1.0;
        }
        double mx = 0.0;
        for (int k = 0; k < N; k++)
            for (int j = 0; j < N; j++)
                for (int i = 0; i < N; i++) {
                    double s = 0.0;
                    for (int b = 0; b < 3; b++)
                        s += sg[b] * exp(-((k - c[b][0]) * (k - c[b][0]) + (j - c[b][1]) * (j - c[b][1]) +
                                           (i - c[b][2]) * (i - c[b][2])) / 18.0);
                    dir[((size_t)k * N + j) * N + i] = (float)s;
                    mx = fmax(mx, fabs(s));
                }
        for (size_t q = 0; q < n; q++)
            dir[q] = (float)(dir[q] * 1.5 / mx);
        gradient_model(mp, dir, 1.0);
        run("gp", gfmt, fs, mp, dobs);
        const double jp = misfit_of("gp");
        gradient_model(mp, dir, -1.0);
        run("gm", gfmt, fs, mp, dobs);
        const double jm = misfit_of("gm");
        const double fd = (jp - jm) / 2.0, an = dot(g, dir, n);
        printf("gradient along direction %d: central difference %.6e, adjoint %.6e, relative "
               "%.2e (misfit %.6e)\n", trial, fd, an, fabs(fd - an) / fabs(fd), misfit_of("g"));
        ck_assert_double_lt(fabs(fd - an), 1e-2 * fabs(fd));
    }
    free(lay), free(g), free(dir);
}
END_TEST

/* ---- images of known structures: 64 x 24 x 56, a line of 42 receivers at 30 m ---- */
#define IX 64
#define IY 24
#define IZ 56

static const char *line_shot(void)
{
    return "\"grid\": {\"nx\": 64, \"ny\": 24, \"nz\": 56, \"dx\": 10, \"dy\": 10, \"dz\": 10}, "
           "\"time\": {\"nt\": 400, \"dt\": 0.0014}, \"sources\": [{\"position\": [315, 115, "
           "30], \"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}], \"receivers\": {\"lines\": "
           "[{\"from\": [110, 115, 30], \"to\": [520, 115, 30], \"count\": 42}]}, "
           "\"boundary\": {\"type\": \"sponge\", \"width\": 10}";
}

/* The traces of `with` less those of `without` (the acoustic kind), into g_dir/name.f32. */
static void scattered(const char *with, const char *without, const char *name)
{
    char path[200];
    const size_t nd = (size_t)42 * 401;
    run("sw", "{\"kind\": \"acoustic\", %s, \"velocity\": %s}", line_shot(), with);
    run("so", "{\"kind\": \"acoustic\", %s, \"velocity\": %s}", line_shot(), without);
    snprintf(path, sizeof path, "%s/sw/gather.f32", g_dir);
    float *a = img_read_f32(path, nd);
    snprintf(path, sizeof path, "%s/so/gather.f32", g_dir);
    float *b = img_read_f32(path, nd);
    for (size_t i = 0; i < nd; i++)
        a[i] -= b[i];
    snprintf(path, sizeof path, "%s/%s.f32", g_dir, name);
    img_write_f32(path, a, nd);
    free(a), free(b);
}

START_TEST(test_flat_reflector)
{
    scattered("{\"type\": \"layered\", \"layers\": [{\"top\": 0, \"v\": 2000}, {\"top\": 400, "
              "\"v\": 2500}]}", "{\"type\": \"constant\", \"value\": 2000}", "refl");
    run("mig", "{\"kind\": \"rtm\", %s, \"velocity\": {\"type\": \"constant\", \"value\": "
        "2000}, \"data\": {\"path\": \"%s/refl.f32\"}}", line_shot(), g_dir);
    char path[200];
    snprintf(path, sizeof path, "%s/mig/image.f32", g_dir);
    float *img = img_read_f32(path, (size_t)IX * IY * IZ);
    /* specular points lie between the source and the receivers: x 212-417 m */
    for (int i = 22; i <= 41; i++) {
        double g[IZ] = {0};
        int at = 26;
        for (int k = 26; k < IZ - 11; k++) { /* |d image / dz| below the footprint */
            const float *c = img + (size_t)12 * IX + i;
            g[k] = fabs((double)c[(size_t)(k + 1) * IY * IX] - c[(size_t)(k - 1) * IY * IX]) / 2;
            if (g[k] > g[at])
                at = k;
        }
        const double a = g[at - 1], b = g[at], cc = g[at + 1], den = a - 2 * b + cc;
        const double z = (at + (den != 0.0 ? 0.5 * (a - cc) / den : 0.0)) * H;
        if (i % 4 == 2)
            printf("flat reflector at 400 m (between the planes at 390 and 400 m): column x = "
                   "%d m images at %.1f m\n", i * 10, z);
        ck_assert_msg(fabs(z - 400.0) <= H, "column x = %d m: the reflector's image lies at "
                      "%.1f m, not 400 m", i * 10, z);
    }
    free(img);
}
END_TEST

START_TEST(test_point_diffractor)
{
    /* one grid point (350, 120, 300) m 300 m/s faster: a file model */
    char model[128];
    snprintf(model, sizeof model, "%s/pt.f32", g_dir);
    float *v = malloc((size_t)IX * IY * IZ * sizeof *v);
    for (size_t q = 0; q < (size_t)IX * IY * IZ; q++)
        v[q] = 2000.0f;
    v[((size_t)30 * IY + 12) * IX + 35] = 2300.0f;
    img_write_f32(model, v, (size_t)IX * IY * IZ);
    free(v);
    char with[256];
    snprintf(with, sizeof with, "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"%s\"}",
             model);
    scattered(with, "{\"type\": \"constant\", \"value\": 2000}", "pt");
    run("ptm", "{\"kind\": \"rtm\", %s, \"velocity\": {\"type\": \"constant\", \"value\": "
        "2000}, \"data\": {\"path\": \"%s/pt.f32\"}}", line_shot(), g_dir);
    char path[200];
    snprintf(path, sizeof path, "%s/ptm/image.f32", g_dir);
    float *img = img_read_f32(path, (size_t)IX * IY * IZ);
    double best = -1.0;
    int at[3] = {0, 0, 0};
    for (int k = 25; k < IZ; k++) /* below the acquisition's footprint (250 m) */
        for (int j = 0; j < IY; j++)
            for (int i = 0; i < IX; i++) {
                const double a = fabs(img[((size_t)k * IY + j) * IX + i]);
                if (a > best)
                    best = a, at[0] = i, at[1] = j, at[2] = k;
            }
    printf("point diffractor at (350, 120, 300) m: the image focuses at (%d, %d, %d) m\n",
           at[0] * 10, at[1] * 10, at[2] * 10);
    ck_assert_int_le(abs(at[0] - 35), 1);
    ck_assert_int_le(abs(at[1] - 12), 1);
    ck_assert_int_le(abs(at[2] - 30), 1);
    free(img);
}
END_TEST

/* Each refusal names its field. */
START_TEST(test_refusals)
{
    char j[4096], d[160];
    snprintf(d, sizeof d, "%s/short.f32", g_dir);
    const float x[3] = {0, 0, 0};
    img_write_f32(d, x, 3);
    const char *vel = "\"velocity\": {\"type\": \"constant\", \"value\": 2000}";
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", %s, %s, \"data\": {\"path\": \"%s\"}}",
             shot(0, 10), vel, d);
    img_refused(j, "data.path", "12 receivers x 6 samples");
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", %s, %s}", shot(0, 10), vel);
    img_refused(j, "data", "");
    snprintf(j, sizeof j, "{\"kind\": \"born\", %s, %s, \"perturbation\": {\"type\": "
             "\"points\", \"points\": [{\"position\": [100, 100, 100], \"dv\": 2500}]}}",
             shot(0, 10), vel);
    img_refused(j, "perturbation.points[0].dv", "below the smallest velocity");
    snprintf(j, sizeof j, "{\"kind\": \"born\", %s, %s, \"perturbation\": {\"type\": "
             "\"layers\", \"layers\": [{\"top\": 100, \"dv\": 10}, {\"top\": 50, \"dv\": 5}]}}",
             shot(0, 10), vel);
    img_refused(j, "perturbation.layers[1].top", "layers go down");
    snprintf(j, sizeof j, "{\"kind\": \"born\", \"grid\": {\"nx\": 20, \"ny\": 20, \"nz\": 20, "
             "\"dx\": 10, \"dy\": 10, \"dz\": 10}, %s, \"time\": {\"nt\": 10}, \"sources\": "
             "[{\"position\": [100, 100, 100], \"wavelet\": {\"type\": \"ricker\", \"f0\": 10}}], "
             "\"receivers\": {\"points\": [[50, 50, 50]]}, \"boundary\": {\"type\": \"cpml\"}, "
             "\"perturbation\": {\"type\": \"points\", \"points\": [{\"position\": [100, 100, "
             "100], \"dv\": 10}]}}", vel);
    img_refused(j, "boundary.type", "cpml");
    snprintf(j, sizeof j, "{\"kind\": \"born\", \"grid\": {\"nx\": 20, \"ny\": 20, \"nz\": 20, "
             "\"dx\": 10, \"dy\": 10, \"dz\": 10}, %s, \"time\": {\"nt\": 10}, \"sources\": "
             "[{\"position\": [100, 100, 100], \"wavelet\": {\"type\": \"ricker\", \"f0\": 10}}], "
             "\"perturbation\": {\"type\": \"points\", \"points\": [{\"position\": [100, 100, "
             "100], \"dv\": 10}]}}", vel);
    img_refused(j, "receivers", "needs");
    snprintf(j, sizeof j, "{\"kind\": \"gradient\", %s, %s, \"data\": {\"path\": \"%s\"}, "
             "\"snapshots\": {\"every\": 5}}", shot(0, 10), vel, d);
    img_refused(j, "snapshots", "no snapshots");
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_dot_product);
    tcase_add_test(tc, test_born_linearises);
    tcase_add_test(tc, test_gradient_fd);
    tcase_add_test(tc, test_flat_reflector);
    tcase_add_test(tc, test_point_diffractor);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/fdw-imaging-XXXXXX");
    return img_check_main(g_dir, "imaging", 600, add_tests);
}
