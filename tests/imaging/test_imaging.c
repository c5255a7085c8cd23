/* test_imaging.c — the imaging kinds (engine/kinds/imaging, docs/imaging.md) against their
 * own definitions, on the CPU, each with a sponge and with a CPML (loop tests: _i indexes
 * BOUNDARY) where it says so:
 *   - the dot-product test <born(dv), d> = <dv, rtm(d)> with random dv and d, a free
 *     surface or not, a velocity gradient and a run of several reconstruction segments;
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
 *   - with a CPML, the forward field's traces (gradient's predicted ones) equal to the
 *     acoustic kind's bit for bit, and the memory estimate counting the CPML's memory
 *     variables in the checkpoints and the store;
 *   - the boundary reconstruction scheme against the checkpoints (dot product with dv in
 *     the interior, image, gradient, misfit) and "reconstruction": "auto"'s choice;
 *   - refusals, each naming its field; and the engine's step count. The exactness tests
 *     pin "reconstruction": "checkpoints". */
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

static const char *const BOUNDARY[] = {"sponge", "cpml"};

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

/* The shot's common members; fs: a free surface (the source nearer to it; 2: and the
 * receivers at 5 m, their taps half on the surface's plane, which the scheme holds at 0;
 * 3: at 2.5 m, interpolated linearly: three quarters of their weight on that plane);
 * bnd: the absorbing layer's type (8 points wide). */
static const char *shot(int fs, long nt, const char *bnd)
{
    static const char *const DEPTH[] = {"100", "100", "5", "2.5"};
    static char s[1024];
    snprintf(s, sizeof s,
             "\"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": 10, \"dy\": 10, \"dz\": 10}, "
             "\"time\": {\"nt\": %ld, \"dt\": 0.0015}, \"sources\": [{\"position\": [155, 155, "
             "%d], \"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}], \"receivers\": {\"lines\": "
             "[{\"from\": [90, 155, %s], \"to\": [220, 155, %s], \"count\": %d}], \"interval\": "
             "2%s}, \"boundary\": {\"type\": \"%s\", \"width\": 8, \"free_surface\": %s}",
             N, N, N, nt, fs ? 60 : 100, DEPTH[fs], DEPTH[fs], NREC,
             fs == 3 ? ", \"interpolation\": \"linear\"" : "", bnd, fs ? "true" : "false");
    return s;
}

START_TEST(test_dot_product)
{
    const char *bnd = BOUNDARY[_i];
    const long nt = 300, ns = nt / 2 + 1; /* 300 steps: 13 segments of 24 */
    const size_t n = (size_t)N * N * N;
    char model[128], dvp[128], dp[128], path[200];
    snprintf(model, sizeof model, "%s/grad.f32", g_dir);
    snprintf(dvp, sizeof dvp, "%s/dv.f32", g_dir);
    snprintf(dp, sizeof dp, "%s/d.f32", g_dir);
    gradient_model(model, NULL, 0.0);
    unsigned seed = 3;
    float *dv = malloc(n * sizeof *dv), *d = malloc((size_t)NREC * ns * sizeof *d);
    for (size_t i = 0; i < n; i++)
        dv[i] = (float)(20.0 * img_normal(&seed));
    img_write_f32(dvp, dv, n);
    static const char *const CASE[] = {"absorbing all round", "free surface",
                                       "free surface, receivers at 5 m",
                                       "free surface, linear receivers at 2.5 m"};
    for (int fs = 0; fs < 4; fs++) {
        img_run(g_dir, "born", "{\"kind\": \"born\", %s, \"velocity\": {\"type\": \"file\", "
            "\"format\": \"raw-f32\", \"path\": \"%s\"}, \"perturbation\": {\"type\": "
            "\"file\", \"path\": \"%s\"}}", shot(fs, nt, bnd), model, dvp);
        /* d: born's traces plus as much noise (its own inner product with them does not
         * cancel, and the noise carries every other direction) */
        snprintf(path, sizeof path, "%s/born/gather.f32", g_dir);
        float *b0 = img_read_f32(path, (size_t)NREC * ns);
        const double rms = sqrt(img_dot(b0, b0, (size_t)NREC * ns) / (NREC * ns));
        for (size_t i = 0; i < (size_t)NREC * ns; i++)
            d[i] = (float)(b0[i] + rms * img_normal(&seed));
        img_write_f32(dp, d, (size_t)NREC * ns);
        free(b0);
        const fdw_result res =
            img_run(g_dir, "rtm", "{\"kind\": \"rtm\", %s, \"velocity\": {\"type\": \"file\", "
                    "\"format\": \"raw-f32\", \"path\": \"%s\"}, \"data\": {\"path\": "
                    "\"%s\"}, \"reconstruction\": \"checkpoints\"}", shot(fs, nt, bnd), model, dp);
        ck_assert_int_eq(res.steps_done, fdw_img_engine_steps(IMG_RTM, nt, fdw_img_segment(nt),
                                                              IMG_RECON_CHECKPOINTS));
        snprintf(path, sizeof path, "%s/born/gather.f32", g_dir);
        float *dd = img_read_f32(path, (size_t)NREC * ns);
        snprintf(path, sizeof path, "%s/rtm/image.f32", g_dir);
        float *img = img_read_f32(path, n);
        const double a = img_dot(dd, d, (size_t)NREC * ns), b = img_dot(dv, img, n);
        const double rel = fabs(a - b) / fmax(fabs(a), fabs(b));
        printf("dot product (%s, %s): <born dv, d> = %.9e, <dv, rtm d> = %.9e, relative "
               "%.2e\n", bnd, CASE[fs], a, b, rel);
        ck_assert_double_gt(fabs(a), 0.0);
        ck_assert_double_lt(rel, 1e-6);
        free(dd), free(img);
    }
    free(dv), free(d);
}
END_TEST

/* born's traces against (d(v + e dv) - d(v - e dv)) / 2e of the acoustic kind. */
START_TEST(test_born_linearises)
{
    const char *bnd = BOUNDARY[_i];
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
    for (size_t q = 24 * (size_t)N * N; q < 28 * (size_t)N * N; q++) /* and in the bottom one */
        dv[q] = 1.0f;
    img_write_f32(dvp, dv, n);
    const double eps = 0.5;
    gradient_model(m0, NULL, 0.0);
    gradient_model(mp, dv, eps);
    gradient_model(mm, dv, -eps);
    const char *vel = "\"velocity\": {\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"%s\"}";
    char fmt[512];
    snprintf(fmt, sizeof fmt, "{\"kind\": \"acoustic\", %%s, %s}", vel);
    img_run(g_dir, "ap", fmt, shot(1, nt, bnd), mp);
    img_run(g_dir, "am", fmt, shot(1, nt, bnd), mm);
    img_run(g_dir, "bl", "{\"kind\": \"born\", %s, \"velocity\": {\"type\": \"file\", "
        "\"format\": \"raw-f32\", \"path\": \"%s\"}, \"perturbation\": {\"type\": "
        "\"file\", \"path\": \"%s\"}}", shot(1, nt, bnd), m0, dvp);
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
    printf("born against central differences of the acoustic traces (%s, two layers of dv, "
           "free surface): relative L2 difference %.2e\n", bnd, sqrt(num / den));
    ck_assert_double_gt(den, 0.0);
    ck_assert_double_lt(sqrt(num / den), 1e-2);
    free(dv), free(dp), free(dmn), free(db);
}
END_TEST

/* The gradient of the misfit along three random smooth directions (Gaussian blobs where
 * the waves go, with a CPML one more in its layers; at most 1.5 m/s) against central
 * differences of the misfit. */
START_TEST(test_gradient_fd)
{
    const char *bnd = BOUNDARY[_i];
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
    const char *fs = shot(1 - _i, nt, bnd); /* the CPML with its top layer */
    img_run(g_dir, "obs", "{\"kind\": \"acoustic\", %s, \"velocity\": {\"type\": \"file\", "
        "\"format\": \"raw-f32\", \"path\": \"%s\"}}", fs, mt);
    const char *gfmt = "{\"kind\": \"gradient\", %s, \"velocity\": {\"type\": \"file\", "
                       "\"format\": \"raw-f32\", \"path\": \"%s\"}, \"data\": {\"path\": \"%s\"}, "
                       "\"reconstruction\": \"checkpoints\"}";
    img_run(g_dir, "g", gfmt, fs, m0, dobs);
    snprintf(path, sizeof path, "%s/g/gradient.f32", g_dir);
    float *g = img_read_f32(path, n);
    unsigned seed = 11;
    float *dir = malloc(n * sizeof *dir);
    for (int trial = 0; trial < 3; trial++) {
        /* with a CPML a blob 3 in its x and top layers, where the velocity is low: the
         * layers' coefficients follow the model's largest velocity, which the directions
         * leave as it is */
        double c[4][3] = {{0}, {0}, {0}, {5, 15, 4}}, sg[4];
        const int nb = 3 + _i;
        for (int b = 0; b < nb; b++) {
            if (b < 3) {
                c[b][0] = 8 + 14 * (img_normal(&seed) * 0.2 + 0.5);
                c[b][1] = 12 + 8 * (img_normal(&seed) * 0.2 + 0.5);
                c[b][2] = 10 + 12 * (img_normal(&seed) * 0.2 + 0.5);
            }
            sg[b] = img_normal(&seed) > 0 ? 1.0 : -1.0;
        }
        double mx = 0.0;
        for (int k = 0; k < N; k++)
            for (int j = 0; j < N; j++)
                for (int i = 0; i < N; i++) {
                    double s = 0.0;
                    for (int b = 0; b < nb; b++)
                        s += sg[b] * exp(-((k - c[b][0]) * (k - c[b][0]) +
                                           (j - c[b][1]) * (j - c[b][1]) +
                                           (i - c[b][2]) * (i - c[b][2])) / 18.0);
                    dir[((size_t)k * N + j) * N + i] = (float)s;
                    mx = fmax(mx, fabs(s));
                }
        for (size_t q = 0; q < n; q++)
            dir[q] = (float)(dir[q] * 1.5 / mx);
        gradient_model(mp, dir, 1.0);
        img_run(g_dir, "gp", gfmt, fs, mp, dobs);
        const double jp = img_misfit(g_dir, "gp");
        gradient_model(mp, dir, -1.0);
        img_run(g_dir, "gm", gfmt, fs, mp, dobs);
        const double jm = img_misfit(g_dir, "gm");
        const double fd = (jp - jm) / 2.0, an = img_dot(g, dir, n);
        printf("gradient (%s) along direction %d: central difference %.6e, adjoint %.6e, "
               "relative %.2e (misfit %.6e)\n", bnd, trial, fd, an, fabs(fd - an) / fabs(fd),
               img_misfit(g_dir, "g"));
        ck_assert_double_lt(fabs(fd - an), 1e-2 * fabs(fd));
    }
    free(lay), free(g), free(dir);
}
END_TEST

/* ---- images of known structures: 64 x 24 x 56, a line of 42 receivers at 30 m ---- */
#define IX 64
#define IY 24
#define IZ 56

/* The line's shot with an absorbing layer of type bnd, 10 points wide; a CPML's top layer
 * 2 (the source and the receivers at 30 m lie above it: inside a CPML the field is not a
 * wave's). */
static const char *line_shot(const char *bnd)
{
    static char s[1024];
    snprintf(s, sizeof s,
             "\"grid\": {\"nx\": 64, \"ny\": 24, \"nz\": 56, \"dx\": 10, \"dy\": 10, \"dz\": "
             "10}, \"time\": {\"nt\": 400, \"dt\": 0.0014}, \"sources\": [{\"position\": [315, "
             "115, 30], \"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}], \"receivers\": "
             "{\"lines\": [{\"from\": [110, 115, 30], \"to\": [520, 115, 30], \"count\": 42}]}, "
             "\"boundary\": {\"type\": \"%s\", \"width\": %s}", bnd,
             strcmp(bnd, "cpml") ? "10" : "{\"xmin\": 10, \"xmax\": 10, \"ymin\": 10, \"ymax\": "
                                         "10, \"zmin\": 2, \"zmax\": 10}");
    return s;
}

/* The traces of `with` less those of `without` (the acoustic kind, absorbing layer bnd),
 * into g_dir/name.f32. */
static void scattered(const char *with, const char *without, const char *name,
                      const char *bnd)
{
    char path[200];
    const size_t nd = (size_t)42 * 401;
    img_run(g_dir, "sw", "{\"kind\": \"acoustic\", %s, \"velocity\": %s}", line_shot(bnd),
            with);
    img_run(g_dir, "so", "{\"kind\": \"acoustic\", %s, \"velocity\": %s}", line_shot(bnd),
            without);
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
    const char *bnd = BOUNDARY[_i];
    scattered("{\"type\": \"layered\", \"layers\": [{\"top\": 0, \"v\": 2000}, {\"top\": 400, "
              "\"v\": 2500}]}", "{\"type\": \"constant\", \"value\": 2000}", "refl", bnd);
    img_run(g_dir, "mig", "{\"kind\": \"rtm\", %s, \"velocity\": {\"type\": \"constant\", "
        "\"value\": 2000}, \"data\": {\"path\": \"%s/refl.f32\"}}", line_shot(bnd), g_dir);
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
            printf("flat reflector at 400 m (%s; between the planes at 390 and 400 m): column "
                   "x = %d m images at %.1f m\n", bnd, i * 10, z);
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
    scattered(with, "{\"type\": \"constant\", \"value\": 2000}", "pt", "sponge");
    img_run(g_dir, "ptm", "{\"kind\": \"rtm\", %s, \"velocity\": {\"type\": \"constant\", "
        "\"value\": 2000}, \"data\": {\"path\": \"%s/pt.f32\"}}", line_shot("sponge"),
        g_dir);
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

/* With a CPML, gradient's forward field (its predicted traces) against the acoustic kind's
 * traces of the same shot: the same recursion, so the same bits. */
START_TEST(test_cpml_forward)
{
    const long nt = 300, ns = nt / 2 + 1;
    const size_t nd = (size_t)NREC * ns;
    char model[128], zp[128], a[200], b[200];
    snprintf(model, sizeof model, "%s/fw.f32", g_dir);
    snprintf(zp, sizeof zp, "%s/zeros.f32", g_dir);
    gradient_model(model, NULL, 0.0);
    float *z = calloc(nd, sizeof *z);
    img_write_f32(zp, z, nd);
    free(z);
    const char *vel = "\"velocity\": {\"type\": \"file\", \"format\": \"raw-f32\", \"path\": "
                      "\"%s\"}";
    char fmt[512];
    for (int fs = 0; fs < 2; fs++) {
        snprintf(fmt, sizeof fmt, "{\"kind\": \"acoustic\", %%s, %s}", vel);
        img_run(g_dir, "fa", fmt, shot(fs, nt, "cpml"), model);
        snprintf(fmt, sizeof fmt, "{\"kind\": \"gradient\", %%s, %s, \"data\": {\"path\": "
                 "\"%%s\"}}", vel);
        img_run(g_dir, "fg", fmt, shot(fs, nt, "cpml"), model, zp);
        snprintf(a, sizeof a, "%s/fa/gather.f32", g_dir);
        snprintf(b, sizeof b, "%s/fg/gather.f32", g_dir);
        float *x = img_read_f32(a, nd), *y = img_read_f32(b, nd);
        ck_assert_double_gt(img_dot(x, x, nd), 0.0);
        ck_assert_msg(memcmp(x, y, nd * sizeof *x) == 0, "the gradient's forward traces with "
                      "a CPML differ from the acoustic kind's (free surface %d)", fs);
        printf("CPML forward (%s): gradient's predicted traces equal the acoustic kind's bit "
               "for bit\n", fs ? "free surface" : "absorbing all round");
        free(x), free(y);
    }
}
END_TEST

/* The estimate of a CPML shot counts its memory variables: per segment start 1 .. K-1
 * (two per layer point), a layer term per store entry, and the working sets, against the
 * same shot without an absorbing layer. */
START_TEST(test_cpml_memory)
{
    char j[4096], d[160];
    const long nt = 300, ns = nt / 2 + 1;
    snprintf(d, sizeof d, "%s/mem.f32", g_dir);
    float *z = calloc((size_t)NREC * ns, sizeof *z);
    img_write_f32(d, z, (size_t)NREC * ns);
    free(z);
    uint64_t bytes[2][2];
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 2; b++) {
            snprintf(j, sizeof j, "{\"kind\": \"%s\", %s, \"velocity\": {\"type\": "
                     "\"constant\", \"value\": 2000}, \"data\": {\"path\": \"%s\"}%s, "
                     "\"reconstruction\": \"checkpoints\"}",
                     k ? "gradient" : "rtm", shot(0, nt, b ? "cpml" : "none"), d,
                     k ? "" : ", \"imaging\": {\"condition\": \"crosscorrelation\"}");
            char *w = strstr(j, "\"width\": 8");
            if (!b) /* "none" takes no width */
                memcpy(w, "\"width\": 0", 10);
            fdw_spec *spec = NULL;
            fdw_error err;
            ck_assert_msg(fdw_spec_parse(j, strlen(j), NULL, &spec, &err) == FDW_OK, "%s",
                          err.message);
            bytes[k][b] = fdw_spec_device_bytes(spec);
            fdw_spec_free(spec);
        }
    const uint64_t P = 6u * 8 * N * N; /* six faces of 8 points */
    const int L = fdw_img_segment(nt);
    const long K = (nt + L - 1) / L;
    const uint64_t coeffs = 8u * 3 * N;
    /* rtm by cross-correlation needs no layer terms; the gradient one per store entry */
    ck_assert_uint_eq(bytes[0][1] - bytes[0][0], 4 * (4 * P + 2 * P * (K - 1)) + coeffs);
    ck_assert_uint_eq(bytes[1][1] - bytes[1][0], 4 * (4 * P + 2 * P * (K - 1) + L * P) + coeffs);
    printf("CPML memory (32^3, 8-point layers, %ld segments of %d): gradient %.2f MiB more "
           "than without a layer\n", K, L, (double)(bytes[1][1] - bytes[1][0]) / 1048576.0);
}
END_TEST

/* The boundary scheme (docs/imaging.md): with dv inside the interior, the dot-product test
 * to 1e-4 (the reconstructed u equals the forward one to rounding, not bit for bit); its
 * image against the checkpointed scheme's on the interior (and zero outside it), the
 * gradient's misfit bit for bit (the forward pass is the same) and its gradient close;
 * 2 nt engine steps; "auto" resolved in the normalised spec. A free surface (fs 1) or
 * none, each layer type. */
START_TEST(test_boundary_scheme)
{
    const char *bnd = BOUNDARY[_i % 2];
    const int fs = _i / 2;
    const long nt = 400, ns = nt / 2 + 1;
    const size_t n = (size_t)N * N * N;
    char model[128], dvp[128], dp[128], path[200];
    snprintf(model, sizeof model, "%s/bgrad.f32", g_dir);
    snprintf(dvp, sizeof dvp, "%s/bdv.f32", g_dir);
    snprintf(dp, sizeof dp, "%s/bd.f32", g_dir);
    gradient_model(model, NULL, 0.0);
    /* the interior of shot(): 8-point layers all round, none at a free surface */
    const int klo = fs ? 0 : 8;
    unsigned seed = 5;
    float *dv = calloc(n, sizeof *dv), *d = malloc((size_t)NREC * ns * sizeof *d);
    for (int k = klo; k < N - 8; k++)
        for (int j = 8; j < N - 8; j++)
            for (int i = 8; i < N - 8; i++)
                dv[((size_t)k * N + j) * N + i] = (float)(20.0 * img_normal(&seed));
    img_write_f32(dvp, dv, n);
    img_run(g_dir, "bborn", "{\"kind\": \"born\", %s, \"velocity\": {\"type\": \"file\", "
            "\"format\": \"raw-f32\", \"path\": \"%s\"}, \"perturbation\": {\"type\": "
            "\"file\", \"path\": \"%s\"}}", shot(fs, nt, bnd), model, dvp);
    snprintf(path, sizeof path, "%s/bborn/gather.f32", g_dir);
    float *b0 = img_read_f32(path, (size_t)NREC * ns);
    const double rms = sqrt(img_dot(b0, b0, (size_t)NREC * ns) / (NREC * ns));
    for (size_t i = 0; i < (size_t)NREC * ns; i++)
        d[i] = (float)(b0[i] + rms * img_normal(&seed));
    img_write_f32(dp, d, (size_t)NREC * ns);
    const char *fmt = "{\"kind\": \"%s\", %s, \"velocity\": {\"type\": \"file\", "
                      "\"format\": \"raw-f32\", \"path\": \"%s\"}, \"data\": {\"path\": "
                      "\"%s\"}, \"reconstruction\": \"%s\"}";
    float *img[2], *grad[2];
    double misfit[2];
    for (int r = 0; r < 2; r++) {
        const char *scheme = r ? "boundary" : "checkpoints";
        char o[32];
        snprintf(o, sizeof o, "brtm%d", r);
        const fdw_result res = img_run(g_dir, o, fmt, "rtm", shot(fs, nt, bnd), model, dp, scheme);
        if (r)
            ck_assert_int_eq(res.steps_done, 2 * nt);
        snprintf(path, sizeof path, "%s/%s/image.f32", g_dir, o);
        img[r] = img_read_f32(path, n);
        snprintf(o, sizeof o, "bgrad%d", r);
        img_run(g_dir, o, fmt, "gradient", shot(fs, nt, bnd), model, dp, scheme);
        snprintf(path, sizeof path, "%s/%s/gradient.f32", g_dir, o);
        grad[r] = img_read_f32(path, n);
        misfit[r] = img_misfit(g_dir, o);
        /* the phases' seconds: each measured, together within the loop's */
        double t[4];
        img_times(g_dir, o, t);
        ck_assert_msg(t[0] > 0.0 && t[1] > 0.0 && t[2] >= 0.0 && t[0] + t[1] + t[2] <= t[3],
                      "%s: time_s forward %g backward %g image %g, loop %g", o, t[0], t[1],
                      t[2], t[3]);
    }
    const double a = img_dot(b0, d, (size_t)NREC * ns), b = img_dot(dv, img[1], n);
    const double rel = fabs(a - b) / fmax(fabs(a), fabs(b));
    double mi = 0.0, di = 0.0, mg = 0.0, dg = 0.0;
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                const size_t q = ((size_t)k * N + j) * N + i;
                const int inside = k >= klo && k < N - 8 && j >= 8 && j < N - 8 && i >= 8 &&
                                   i < N - 8;
                if (!inside) {
                    ck_assert_msg(img[1][q] == 0.0f && grad[1][q] == 0.0f, "(%d, %d, %d) "
                                  "outside the interior: image %g, gradient %g", i, j, k,
                                  img[1][q], grad[1][q]);
                    continue;
                }
                mi = fmax(mi, fabs(img[0][q])), di = fmax(di, fabs(img[1][q] - img[0][q]));
                mg = fmax(mg, fabs(grad[0][q])), dg = fmax(dg, fabs(grad[1][q] - grad[0][q]));
            }
    printf("boundary scheme (%s%s): dot product <born dv, d> = %.9e, <dv, rtm d> = %.9e, "
           "relative %.2e; against the checkpoints on the interior: image %.2e, gradient "
           "%.2e of the largest; misfit %.9e and %.9e\n", bnd, fs ? ", free surface" : "", a,
           b, rel, di / mi, dg / mg, misfit[0], misfit[1]);
    ck_assert_double_gt(fabs(a), 0.0);
    ck_assert_double_lt(rel, 1e-4);
    ck_assert_double_lt(di, 1e-4 * mi);
    ck_assert_double_lt(dg, 1e-4 * mg);
    ck_assert_msg(misfit[0] == misfit[1], "misfit %.17g and %.17g", misfit[0], misfit[1]);
    free(dv), free(d), free(b0);
    for (int r = 0; r < 2; r++)
        free(img[r]), free(grad[r]);
}
END_TEST

/* "auto" is the scheme that holds less (imaging_recon.h), named in the normalised spec,
 * and the memory estimate counts that scheme's bytes. */
START_TEST(test_recon_auto)
{
    char j[4096], d[160];
    snprintf(d, sizeof d, "%s/auto.f32", g_dir);
    const long nts[2] = {400, 20000};
    for (int t = 0; t < 2; t++) {
        const long ns = nts[t] / 2 + 1;
        float *z = calloc((size_t)NREC * ns, sizeof *z);
        img_write_f32(d, z, (size_t)NREC * ns);
        free(z);
        uint64_t bytes[3];
        const char *given[3] = {"auto", "checkpoints", "boundary"};
        char *norm = NULL;
        for (int g = 0; g < 3; g++) {
            snprintf(j, sizeof j, "{\"kind\": \"rtm\", %s, \"velocity\": {\"type\": "
                     "\"constant\", \"value\": 2000}, \"data\": {\"path\": \"%s\"}, "
                     "\"reconstruction\": \"%s\"}", shot(0, nts[t], "sponge"), d, given[g]);
            fdw_spec *spec = NULL;
            fdw_error err;
            ck_assert_msg(fdw_spec_parse(j, strlen(j), NULL, &spec, &err) == FDW_OK, "%s",
                          err.message);
            bytes[g] = fdw_spec_device_bytes(spec);
            if (g == 0)
                norm = fdw_spec_to_json(spec);
            fdw_spec_free(spec);
        }
        const int boundary = bytes[2] <= bytes[1];
        ck_assert_uint_eq(bytes[0], boundary ? bytes[2] : bytes[1]);
        json_t *nj = json_loads(norm, 0, NULL);
        const char *said = json_string_value(json_object_get(nj, "reconstruction"));
        ck_assert_msg(said && strcmp(said, boundary ? "boundary" : "checkpoints") == 0, "%s",
                      norm);
        json_decref(nj);
        printf("reconstruction auto, 32^3, %ld steps: checkpoints %.1f MiB, boundary %.1f "
               "MiB: %s\n", nts[t], bytes[1] / 1048576.0, bytes[2] / 1048576.0,
               boundary ? "boundary" : "checkpoints");
        /* 400 steps: the bands are the smaller; 20000: the checkpoints */
        ck_assert_int_eq(boundary, t == 0);
        free(norm);
    }
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", %s, \"velocity\": {\"type\": \"constant\", "
             "\"value\": 2000}, \"data\": {\"path\": \"%s\"}, \"reconstruction\": \"bands\"}",
             shot(0, nts[1], "sponge"), d);
    img_refused(j, "reconstruction", "boundary");
    snprintf(j, sizeof j, "{\"kind\": \"born\", %s, \"velocity\": {\"type\": \"constant\", "
             "\"value\": 2000}, \"perturbation\": {\"type\": \"points\", \"points\": "
             "[{\"position\": [150, 150, 150], \"dv\": 10}]}, \"reconstruction\": \"boundary\"}",
             shot(0, nts[1], "sponge"));
    img_refused(j, "reconstruction", "");
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
             shot(0, 10, "sponge"), vel, d);
    img_refused(j, "data.path", "12 receivers x 6 samples");
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", %s, %s}", shot(0, 10, "sponge"), vel);
    img_refused(j, "data", "");
    snprintf(j, sizeof j, "{\"kind\": \"born\", %s, %s, \"perturbation\": {\"type\": "
             "\"points\", \"points\": [{\"position\": [100, 100, 100], \"dv\": 2500}]}}",
             shot(0, 10, "sponge"), vel);
    img_refused(j, "perturbation.points[0].dv", "below the smallest velocity");
    snprintf(j, sizeof j, "{\"kind\": \"born\", %s, %s, \"perturbation\": {\"type\": "
             "\"layers\", \"layers\": [{\"top\": 100, \"dv\": 10}, {\"top\": 50, \"dv\": 5}]}}",
             shot(0, 10, "sponge"), vel);
    img_refused(j, "perturbation.layers[1].top", "layers go down");
    snprintf(j, sizeof j, "{\"kind\": \"born\", \"grid\": {\"nx\": 20, \"ny\": 20, \"nz\": 10, "
             "\"dx\": 10, \"dy\": 10, \"dz\": 10}, %s, \"time\": {\"nt\": 10}, \"sources\": "
             "[{\"position\": [100, 100, 20], \"wavelet\": {\"type\": \"ricker\", \"f0\": 10}}], "
             "\"receivers\": {\"points\": [[50, 50, 10]]}, \"boundary\": {\"type\": \"cpml\", "
             "\"width\": {\"zmin\": 0, \"zmax\": 7}, \"free_surface\": true}, \"perturbation\": "
             "{\"type\": \"points\", \"points\": [{\"position\": [100, 100, 50], \"dv\": 10}]}}",
             vel);
    img_refused(j, "boundary.width.zmax", "stencil radius 4 below the surface");
    snprintf(j, sizeof j, "{\"kind\": \"born\", \"grid\": {\"nx\": 20, \"ny\": 20, \"nz\": 20, "
             "\"dx\": 10, \"dy\": 10, \"dz\": 10}, %s, \"time\": {\"nt\": 10}, \"sources\": "
             "[{\"position\": [100, 100, 100], \"wavelet\": {\"type\": \"ricker\", \"f0\": 10}}], "
             "\"perturbation\": {\"type\": \"points\", \"points\": [{\"position\": [100, 100, "
             "100], \"dv\": 10}]}}", vel);
    img_refused(j, "receivers", "needs");
    snprintf(j, sizeof j, "{\"kind\": \"gradient\", %s, %s, \"data\": {\"path\": \"%s\"}, "
             "\"snapshots\": {\"every\": 5}}", shot(0, 10, "sponge"), vel, d);
    img_refused(j, "snapshots", "no snapshots");
    /* receivers on the free surface record zeros: their data cannot be migrated */
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", \"grid\": {\"nx\": 20, \"ny\": 20, \"nz\": 20, "
             "\"dx\": 10, \"dy\": 10, \"dz\": 10}, %s, \"time\": {\"nt\": 10}, \"sources\": "
             "[{\"position\": [100, 100, 20], \"wavelet\": {\"type\": \"ricker\", \"f0\": 10}}], "
             "\"receivers\": {\"points\": [[50, 50, 10], [60, 50, 0]]}, \"boundary\": {\"type\": "
             "\"sponge\", \"width\": 4, \"free_surface\": true}, \"data\": {\"path\": \"%s\"}}",
             vel, d);
    img_refused(j, "receivers", "1 receiver lies on the free surface (the first at (60, 50, 0) m)");
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_cpml_forward);
    tcase_add_test(tc, test_cpml_memory);
    tcase_add_loop_test(tc, test_dot_product, 0, 2);
    tcase_add_test(tc, test_recon_auto);
    tcase_add_loop_test(tc, test_boundary_scheme, 0, 4);
    tcase_add_loop_test(tc, test_born_linearises, 0, 2);
    tcase_add_loop_test(tc, test_gradient_fd, 0, 2);
    tcase_add_loop_test(tc, test_flat_reflector, 0, 2);
    tcase_add_test(tc, test_point_diffractor);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/fdw-imaging-XXXXXX");
    return img_check_main(g_dir, "imaging", 600, add_tests);
}
