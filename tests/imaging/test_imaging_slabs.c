/* test_imaging_slabs.c — a shot of the imaging kinds split into slabs along z
 * (engine/kinds/imaging/imaging_slabs.c) gives the one-slab run's outputs bit for bit, on
 * the CPU: born's gather, rtm's image and illumination (both reconstruction schemes, the
 * adjoint condition with the Laplacian filter and the illumination normalisation), the
 * gradient, its predicted traces and its misfit; with a sponge (2, 3 and 5 slabs: slabs
 * of 8 planes lie wholly in its layer, and the band is cut between them) and a CPML (2 and
 * 3: its z layers stay inside the end slabs, as the spec requires), with a free surface
 * or not; the source's and the receivers' taps straddle slab boundaries. Also: a CPML cut
 * by a slab boundary is refused naming "devices", and the memory estimate of each slab
 * covers what its engine holds. */
#include "fdwave/fdwave.h"
#include "kinds/imaging/imaging.h"
#include "run/backend.h"
#include "run/problem.h"
#include "spec/spec.h"

#include "img_check.h"

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_dir[64];

#define NX 24
#define NY 20
#define NZ 40
#define NT 240
#define NREC 10
#define NS (NT / 2 + 1)

static const char *const BOUNDARY[] = {"sponge", "cpml"};

/* The shot's common members: 8-point layers; the source at plane 13.5 (its sinc taps on
 * planes 10..17, across the boundary of 3 slabs at 14) and the receivers at 20.5 (across
 * that of 2 slabs at 20), or with a free surface the receivers at 5 m interpolated
 * linearly (half their weight on plane 0, which the scheme holds at 0). */
static const char *shot(int fs, const char *bnd, int ndev)
{
    static char s[1024];
    snprintf(s, sizeof s,
             "\"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": 10, \"dy\": 10, \"dz\": 10}, "
             "\"devices\": %d, \"time\": {\"nt\": %d, \"dt\": 0.0015}, \"sources\": "
             "[{\"position\": [115, 95, 135], \"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}], "
             "\"receivers\": {\"lines\": [{\"from\": [80, 95, %s], \"to\": [160, 95, %s], "
             "\"count\": %d}], \"interval\": 2%s}, \"boundary\": {\"type\": \"%s\", "
             "\"width\": 8, \"free_surface\": %s}",
             NX, NY, NZ, ndev, NT, fs ? "5" : "205", fs ? "5" : "205", NREC,
             fs ? ", \"interpolation\": \"linear\"" : "", bnd, fs ? "true" : "false");
    return s;
}

/* A velocity rising with depth, 2000 to 2400 m/s. */
static void model(const char *path)
{
    float *v = malloc((size_t)NX * NY * NZ * sizeof *v);
    for (size_t q = 0; q < (size_t)NX * NY * NZ; q++)
        v[q] = (float)(2000.0 + 400.0 * (double)(q / (NX * NY)) / (NZ - 1));
    img_write_f32(path, v, (size_t)NX * NY * NZ);
    free(v);
}

/* The whole of a file (its size in *n). */
static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: missing", path);
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    ck_assert_int_eq(fread(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* Every float32 output of run a is in run b with the same bytes; the count compared. */
static int same_outputs(const char *a, const char *b)
{
    char da[200], pa[400], pb[400];
    snprintf(da, sizeof da, "%s/%s", g_dir, a);
    DIR *dir = opendir(da);
    ck_assert_ptr_nonnull(dir);
    int count = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        const size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".f32") != 0)
            continue;
        snprintf(pa, sizeof pa, "%s/%s/%s", g_dir, a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s/%s", g_dir, b, e->d_name);
        size_t na, nb;
        unsigned char *x = slurp(pa, &na), *y = slurp(pb, &nb);
        ck_assert_msg(na == nb && memcmp(x, y, na) == 0, "%s: %s differs from %s's", b,
                      e->d_name, a);
        free(x), free(y);
        count++;
    }
    closedir(dir);
    return count;
}

START_TEST(test_slabs_bitwise)
{
    const char *bnd = BOUNDARY[_i % 2];
    const int fs = _i / 2;
    static const int SLABS[2][3] = {{2, 3, 5}, {2, 3, 0}};
    char vp[128], dvp[128], dp[128], o[64], o1[64];
    snprintf(vp, sizeof vp, "%s/v.f32", g_dir);
    snprintf(dvp, sizeof dvp, "%s/dv.f32", g_dir);
    snprintf(dp, sizeof dp, "%s/d.f32", g_dir);
    model(vp);
    /* a random perturbation everywhere, and observed data: born's gather plus noise */
    const size_t n = (size_t)NX * NY * NZ;
    unsigned seed = 11;
    float *dv = malloc(n * sizeof *dv), *d = malloc((size_t)NREC * NS * sizeof *d);
    for (size_t q = 0; q < n; q++)
        dv[q] = (float)(20.0 * img_normal(&seed));
    img_write_f32(dvp, dv, n);
    static const char *const VEL = "\"velocity\": {\"type\": \"file\", \"format\": \"raw-f32\", "
                                   "\"path\": \"%s\"}";
    char vel[256], fmt[1024];
    snprintf(vel, sizeof vel, VEL, vp);
    /* the runs: born, rtm by both schemes (the second with the Laplacian and the
     * illumination), the gradient by both */
    static const char *const RUN[5][2] = {
        {"born", "\"perturbation\": {\"type\": \"file\", \"path\": \"%s\"}"},
        {"rtm", "\"data\": {\"path\": \"%s\"}, \"reconstruction\": \"checkpoints\""},
        {"rtm", "\"data\": {\"path\": \"%s\"}, \"reconstruction\": \"boundary\", \"imaging\": "
                "{\"laplacian\": true, \"illumination\": true}"},
        {"gradient", "\"data\": {\"path\": \"%s\"}, \"reconstruction\": \"checkpoints\""},
        {"gradient", "\"data\": {\"path\": \"%s\"}, \"reconstruction\": \"boundary\""}};
    int files = 0, runs = 0;
    for (int r = 0; r < 5; r++) {
        const char *path = r ? dp : dvp;
        snprintf(fmt, sizeof fmt, "{\"kind\": \"%s\", %%s, %s, %s}", RUN[r][0], vel, RUN[r][1]);
        snprintf(o1, sizeof o1, "r%d_1", r);
        img_run(g_dir, o1, fmt, shot(fs, bnd, 1), path);
        if (r == 0) { /* the observed data of the others */
            char gp[200];
            snprintf(gp, sizeof gp, "%s/%s/gather.f32", g_dir, o1);
            float *b0 = img_read_f32(gp, (size_t)NREC * NS);
            const double rms = sqrt(img_dot(b0, b0, (size_t)NREC * NS) / (NREC * NS));
            ck_assert_double_gt(rms, 0.0);
            for (size_t i = 0; i < (size_t)NREC * NS; i++)
                d[i] = (float)(b0[i] + rms * img_normal(&seed));
            img_write_f32(dp, d, (size_t)NREC * NS);
            free(b0);
        }
        for (int q = 0; q < 3 && SLABS[_i % 2][q]; q++) {
            const int ns = SLABS[_i % 2][q];
            snprintf(o, sizeof o, "r%d_%d", r, ns);
            img_run(g_dir, o, fmt, shot(fs, bnd, ns), path);
            const int f = same_outputs(o1, o);
            ck_assert_int_ge(f, 1);
            files += f, runs++;
            if (RUN[r][0][0] == 'g') {
                const double m1 = img_misfit(g_dir, o1), m = img_misfit(g_dir, o);
                ck_assert_msg(m == m1 && m > 0.0, "%s: misfit %.17g, one slab %.17g", o, m, m1);
            }
        }
    }
    printf("slabs (%s%s): %d runs on 2 to %d slabs, %d float32 outputs equal to one slab's "
           "bit for bit (born, rtm and gradient by both schemes, misfits equal)\n", bnd,
           fs ? ", free surface" : "", runs, SLABS[_i % 2][2] ? SLABS[_i % 2][2] : 3, files);
    free(dv), free(d);
}
END_TEST

/* A slab boundary inside the CPML's z layers (or within the radius of them) is refused,
 * naming the devices; 5 slabs of 8 planes cut the 8-point layers. */
START_TEST(test_cpml_cut_refused)
{
    char j[2048];
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", %s, \"velocity\": {\"type\": \"constant\", "
             "\"value\": 2000}, \"data\": {\"path\": \"/nonexistent.f32\"}}",
             shot(0, "cpml", 5));
    img_refused(j, "devices", "CPML");
}
END_TEST

/* Each slab's estimate (fdw_img_slab_bytes, whose largest is the spec's per-device
 * figure) covers the bytes its CPU engine holds, within a quarter: rtm by the boundary
 * scheme with a sponge on 3 slabs (the band cut between them) and by checkpoints with a
 * CPML on 2. */
START_TEST(test_slab_memory)
{
    char dp[128], j[4096];
    snprintf(dp, sizeof dp, "%s/zero.f32", g_dir);
    float *z = calloc((size_t)NREC * NS, sizeof *z);
    img_write_f32(dp, z, (size_t)NREC * NS);
    free(z);
    for (int c = 0; c < 2; c++) {
        const int ndev = c ? 2 : 3;
        snprintf(j, sizeof j, "{\"kind\": \"rtm\", %s, \"velocity\": {\"type\": \"constant\", "
                 "\"value\": 2000}, \"data\": {\"path\": \"%s\"}, \"reconstruction\": \"%s\"}",
                 shot(0, c ? "cpml" : "sponge", ndev), dp, c ? "checkpoints" : "boundary");
        fdw_spec *spec = NULL;
        fdw_error err;
        ck_assert_msg(fdw_spec_parse(j, strlen(j), NULL, &spec, &err) == FDW_OK, "%s",
                      err.message);
        fdw_problem prob;
        ck_assert_msg(fdw_problem_build(spec, NULL, &prob, &err) == FDW_OK, "%s", err.message);
        const fdw_backend *be = fdw_cpu_backend_for(spec->kind);
        void *ctx = NULL;
        ck_assert_msg(be->create(&prob, &spec->plan, &ctx, &err) == FDW_OK, "%s", err.message);
        uint64_t most = 0;
        for (int d = 0; d < ndev; d++) {
            const uint64_t held = be->device_bytes(ctx, d),
                           est = fdw_img_slab_bytes(spec, spec->plan.z0[d], spec->plan.nz[d]);
            printf("slab %d of %d (%s): planes %d..%d, engine %.2f MiB, estimate %.2f MiB\n",
                   d, ndev, c ? "checkpoints, CPML" : "boundary, sponge", spec->plan.z0[d],
                   spec->plan.z0[d] + spec->plan.nz[d] - 1, held / 1048576.0, est / 1048576.0);
            ck_assert_msg(held > 0 && held <= est && est <= held + held / 4,
                          "slab %d: engine %llu bytes, estimate %llu", d,
                          (unsigned long long)held, (unsigned long long)est);
            most = est > most ? est : most;
        }
        ck_assert_uint_eq(fdw_spec_device_bytes_max(spec), most);
        be->destroy(ctx);
        fdw_problem_free(&prob);
        fdw_spec_free(spec);
    }
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_test(tc, test_slab_memory);
    tcase_add_test(tc, test_cpml_cut_refused);
    tcase_add_loop_test(tc, test_slabs_bitwise, 0, 4);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/fdw_imgslab_XXXXXX");
    return img_check_main(g_dir, "imaging_slabs", 600.0, add_tests);
}
