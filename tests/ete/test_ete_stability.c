/* test_ete_stability.c — the ETE operator as assembled on a job's own model
 * (kinds/ete/ete_stability.h): the check's operator is the kernels' (one CPU step against
 * fdw_ete_apply, with a free surface above two velocities); on an inclusion, an edge, a
 * corner and random blocks the per-bin fits at the fit-based dt auto give an operator with
 * an eigenvalue below -4, the parse's dt auto comes down to a stable dt, at which a long
 * run stays bounded, and a given unstable dt is refused naming time.dt and the largest
 * stable dt found; a layered model is checked by plane waves, whose extremes bound the
 * grid's (Lanczos on the same grid) from outside and closely. */
#include "kinds/ete/ete_stability.h"
#include "model/model_io.h"
#include "spec/spec.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 32                   /* the models' grid */
#define H 10.0

static char g_dir[64];

/* A raw float32 model of N^3 points from a function of (i, j, k); its path in out. */
static void write_model(const char *name, float (*v)(int, int, int), char *out, size_t len)
{
    snprintf(out, len, "%s/%s.f32", g_dir, name);
    FILE *f = fopen(out, "wb");
    ck_assert_ptr_nonnull(f);
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                const float x = v(i, j, k);
                ck_assert_int_eq(fwrite(&x, sizeof x, 1, f), 1);
            }
    ck_assert_int_eq(fclose(f), 0);
}

static float cube(int i, int j, int k)
{
    return i >= 12 && i < 20 && j >= 12 && j < 20 && k >= 12 && k < 20 ? 3000.0f : 2000.0f;
}
static float edge(int i, int j, int k)
{
    (void)i;
    return j >= 16 && k >= 16 ? 3000.0f : 2000.0f;
}
static float corner(int i, int j, int k)
{
    return i >= 16 && j >= 16 && k >= 16 ? 3000.0f : 2000.0f;
}
/* 8^3 blocks of velocities from 1500 to 4500 m/s (a fixed hash of the block) */
static float blocks(int i, int j, int k)
{
    unsigned h = (unsigned)(i / 8) * 73856093u ^ (unsigned)(j / 8) * 19349663u ^
                 (unsigned)(k / 8) * 83492791u;
    h = (h ^ (h >> 13)) * 0x5bd1e995u;
    return 1500.0f + 3000.0f * (float)((h >> 8) & 0xffff) / 65535.0f;
}
static float homogeneous(int i, int j, int k)
{
    (void)i, (void)j, (void)k;
    return 2000.0f;
}

/* An ETE job on model path: 32^3, a Ricker of 13.3 Hz in the middle, sponge 8. */
static void job(char *out, size_t len, const char *path, long nt, const char *dt,
                const char *extra)
{
    snprintf(out, len,
             "{\"kind\": \"ete\", \"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": %g, "
             "\"dy\": %g, \"dz\": %g}, \"velocity\": {\"type\": \"file\", \"format\": "
             "\"raw-f32\", \"path\": \"%s\"}, \"time\": {\"nt\": %ld, \"dt\": %s}, "
             "\"sources\": [{\"position\": [155, 155, 155], \"wavelet\": {\"type\": "
             "\"ricker\", \"f0\": 13.3}}], \"boundary\": {\"type\": \"sponge\", \"width\": 8}%s}",
             N, N, N, H, H, H, path, nt, dt, extra);
}

static fdw_status parse(const char *json, int defer, fdw_spec **spec, fdw_error *err)
{
    const fdw_parse_opts po = {.defer_model_checks = defer};
    return fdw_spec_parse(json, strlen(json), &po, spec, err);
}

static void free_table(fdw_ete_data *d)
{
    free(d->table), free((void *)d->idx), free(d->bin_v), free(d->bin_err), free(d->bin_max);
}

/* The spectrum of spec's model at dt. */
static ete_spectrum spectrum_at(const fdw_spec *spec, double dt)
{
    const size_t n = (size_t)spec->nx * spec->ny * spec->nz;
    float *v = malloc(n * sizeof *v);
    fdw_error err;
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(fdw_model_load(spec, v, &err), FDW_OK);
    fdw_spec at = *spec;
    at.dt = dt;
    fdw_ete_data d = {0};
    ck_assert_msg(fdw_ete_build_table(&at, v, n, &d, &err) == FDW_OK, "%s", err.message);
    const ete_grid g = {at.nx, at.ny, at.nz, at.boundary.free_surface};
    ete_spectrum s;
    ck_assert_int_eq(fdw_ete_spectrum(&g, &d, 0, 1e-7, &s, &err), FDW_OK);
    free_table(&d);
    free(v);
    return s;
}

/* The check's operator is the kernels': with a source that injects at steps 0 and 1 only,
 * L p(2) = p(3) - 2 p(2) + p(1) of a CPU run (no sponge) against fdw_ete_apply(p(2)) in
 * double precision; a free surface above a faster block that starts at plane 2, so the
 * ghost planes' bins (mirrored) matter. */
START_TEST(test_apply_matches_kernel)
{
    const int nx = 24, ny = 20, nz = 28;
    char model[128], wav[128], out[128], json[2048];
    snprintf(model, sizeof model, "%s/fs.f32", g_dir);
    FILE *f = fopen(model, "wb");
    ck_assert_ptr_nonnull(f);
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                const float x = i >= 6 && i < 14 && k >= 2 && k < 8 ? 2900.0f : 1900.0f;
                ck_assert_int_eq(fwrite(&x, sizeof x, 1, f), 1);
            }
    ck_assert_int_eq(fclose(f), 0);
    snprintf(wav, sizeof wav, "%s/spike.f32", g_dir);
    f = fopen(wav, "wb");
    const float spike[4] = {1.0f, 0.0f, 0.0f, 0.0f};
    ck_assert_int_eq(fwrite(spike, sizeof spike, 1, f), 1);
    ck_assert_int_eq(fclose(f), 0);
    snprintf(out, sizeof out, "%s/apply", g_dir);
    snprintf(json, sizeof json,
             "{\"kind\": \"ete\", \"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": 10, "
             "\"dy\": 10, \"dz\": 10}, \"velocity\": {\"type\": \"file\", \"format\": "
             "\"raw-f32\", \"path\": \"%s\"}, \"time\": {\"nt\": 3, \"dt\": 0.004}, "
             "\"sources\": [{\"position\": [93, 97, 23], \"wavelet\": {\"type\": \"file\", "
             "\"path\": \"%s\"}}], \"ete\": {\"fmax\": 30}, \"boundary\": {\"type\": "
             "\"none\", \"free_surface\": true}, \"snapshots\": {\"every\": 1, \"volume\": "
             "true, \"png\": false}}",
             nx, ny, nz, model, wav);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(parse(json, 1, &spec, &err) == FDW_OK, "%s: %s", err.field, err.message);
    fdw_run_opts opts = {.out_dir = out, .backend = FDW_BACKEND_CPU};
    fdw_result res;
    ck_assert_msg(fdw_run(spec, &opts, NULL, &res, &err) == FDW_OK, "%s", err.message);
    const size_t n = (size_t)nx * ny * nz;
    float *p[4] = {NULL};
    for (int s = 1; s <= 3; s++) {
        char path[256];
        snprintf(path, sizeof path, "%s/snap_%06d_volume.f32", out, s);
        p[s] = malloc(n * sizeof(float));
        f = fopen(path, "rb");
        ck_assert_msg(f && fread(p[s], sizeof(float), n, f) == n, "reading %s", path);
        fclose(f);
    }
    float *v = malloc(n * sizeof *v);
    ck_assert_int_eq(fdw_model_load(spec, v, &err), FDW_OK);
    fdw_ete_data d = {0};
    ck_assert_int_eq(fdw_ete_build_table(spec, v, n, &d, &err), FDW_OK);
    ck_assert_int_eq(d.nv, 2);
    double *p2 = malloc(n * sizeof *p2), *lp = malloc(n * sizeof *lp);
    for (size_t i = 0; i < n; i++)
        p2[i] = p[2][i];
    const ete_grid g = {nx, ny, nz, 1};
    fdw_ete_apply(&g, &d, p2, lp);
    double worst = 0.0, scale = 0.0, pmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double kernel = ((double)p[3][i] - 2.0 * p[2][i]) + p[1][i];
        worst = fmax(worst, fabs(kernel - lp[i]));
        scale = fmax(scale, fabs(lp[i]));
        pmax = fmax(pmax, fabs(p2[i]));
    }
    printf("one CPU step's L p against the check's operator: largest difference %.3g of "
           "max |L p| %.3g (max |p| %.3g)\n", worst, scale, pmax);
    ck_assert_double_gt(scale, 0.1 * pmax);
    ck_assert_msg(worst <= 1e-5 * pmax, "the kernel's operator differs from the check's by "
                  "%g (max |p| %g)", worst, pmax);
    free_table(&d);
    free(v), free(p2), free(lp);
    for (int s = 1; s <= 3; s++)
        free(p[s]);
    fdw_spec_free(spec);
}
END_TEST

/* An 8^3 inclusion: unstable at the fit-based dt auto, stable at 0.8 of it; the checked
 * parse comes down, says so, records the check; the fit-based dt given is refused with
 * the largest stable dt found, which is accepted as given. */
START_TEST(test_inclusion)
{
    char path[128], json[2048];
    write_model("cube", cube, path, sizeof path);
    job(json, sizeof json, path, 100, "\"auto\"", "");
    fdw_spec *fit = NULL, *checked = NULL;
    fdw_error err;
    ck_assert_int_eq(parse(json, 1, &fit, &err), FDW_OK);
    const double dt0 = fit->dt;
    const ete_spectrum bad = spectrum_at(fit, dt0), good = spectrum_at(fit, 0.8 * dt0);
    printf("inclusion: at the fit-based dt %g s lambda_min %.6f (growth %.4f a step); at "
           "0.8 of it %.6f\n", dt0, bad.lmin, fdw_ete_growth(bad.lmin), good.lmin);
    ck_assert_double_lt(bad.lmin, -4.0);
    ck_assert(!fdw_ete_spectrum_stable(&bad));
    ck_assert(fdw_ete_spectrum_stable(&good));

    ck_assert_msg(parse(json, 0, &checked, &err) == FDW_OK, "%s", err.message);
    const fdw_ete_spec *k = checked->kspec;
    printf("inclusion: dt auto came down from %g to %g s (lambda %.6f to %.6f, %d Lanczos "
           "steps, %.2f s)\n", k->dt_unstable, checked->dt, k->lambda_min, k->lambda_max,
           k->check_steps, k->check_s);
    ck_assert_double_eq(k->dt_unstable, dt0);
    ck_assert_double_lt(checked->dt, dt0);
    ck_assert_double_gt(checked->dt, 0.7 * dt0);
    ck_assert_double_ge(k->lambda_min, ETE_LAMBDA_LO);
    int warned = 0;
    for (int w = 0; w < fdw_spec_warning_count(checked); w++)
        warned |= strstr(fdw_spec_warning(checked, w), "came down") != NULL;
    ck_assert_msg(warned, "no warning that dt auto came down");
    json_t *norm = json_loads(fdw_spec_to_json(checked), 0, NULL);
    json_t *st = json_object_get(json_object_get(norm, "ete"), "stability");
    ck_assert_ptr_nonnull(st);
    ck_assert_double_eq(json_real_value(json_object_get(st, "dt_unstable")), dt0);
    json_decref(norm);

    char given[32];
    snprintf(given, sizeof given, "%.9g", dt0);
    job(json, sizeof json, path, 100, given, "");
    fdw_spec *refused = NULL;
    ck_assert_int_eq(parse(json, 0, &refused, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "time.dt");
    const char *at = strstr(err.message, "largest stable dt found is ");
    ck_assert_msg(at && strstr(err.message, "eigenvalue"), "%s", err.message);
    printf("given: %s\n", err.message);
    const double stable = atof(at + strlen("largest stable dt found is "));
    ck_assert_double_gt(stable, 0.0);
    ck_assert_double_lt(stable, dt0);
    snprintf(given, sizeof given, "%.9g", stable);
    job(json, sizeof json, path, 100, given, "");
    fdw_spec *ok = NULL;
    ck_assert_msg(parse(json, 0, &ok, &err) == FDW_OK, "%s", err.message);
    fdw_spec_free(ok);
    fdw_spec_free(fit);
    fdw_spec_free(checked);
}
END_TEST

/* An edge, a corner and random blocks: the fit-based dt auto is unstable on each; at the
 * checked parse's dt a run of 2000 steps stays bounded (the run's watch fails a run whose
 * field grows) and its field decays once the wave has left through the sponge. */
static void bounded(const char *name, float (*v)(int, int, int))
{
    char path[128], json[2048], out[128];
    write_model(name, v, path, sizeof path);
    job(json, sizeof json, path, 2000, "\"auto\"",
        ", \"snapshots\": {\"every\": 1000, \"volume\": true, \"png\": false}");
    fdw_spec *fit = NULL, *spec = NULL;
    fdw_error err;
    ck_assert_int_eq(parse(json, 1, &fit, &err), FDW_OK);
    const ete_spectrum bad = spectrum_at(fit, fit->dt);
    ck_assert_msg(!fdw_ete_spectrum_stable(&bad), "%s: stable at the fit-based dt", name);
    ck_assert_msg(parse(json, 0, &spec, &err) == FDW_OK, "%s: %s", name, err.message);
    snprintf(out, sizeof out, "%s/run-%s", g_dir, name);
    fdw_run_opts opts = {.out_dir = out, .backend = FDW_BACKEND_CPU};
    fdw_result res;
    ck_assert_msg(fdw_run(spec, &opts, NULL, &res, &err) == FDW_OK, "%s: %s", name,
                  err.message);
    double peak[2] = {0, 0};
    for (int s = 0; s < 2; s++) {
        char file[256];
        snprintf(file, sizeof file, "%s/snap_%06d_volume.f32", out, 1000 * (s + 1));
        size_t n = (size_t)N * N * N;
        float *a = malloc(n * sizeof *a);
        FILE *f = fopen(file, "rb");
        ck_assert_msg(f && fread(a, sizeof *a, n, f) == n, "%s", file);
        fclose(f);
        for (size_t i = 0; i < n; i++)
            peak[s] = fmax(peak[s], fabs(a[i]));
        free(a);
    }
    const fdw_ete_spec *k = spec->kspec;
    printf("%s: fit-based dt %g s has lambda_min %.6f; checked dt %g s (%.3f of it), 2000 "
           "steps: peak %.3g after 1000, %.3g after 2000 (check %d steps, %.2f s)\n", name,
           fit->dt, bad.lmin, spec->dt, spec->dt / fit->dt, peak[0], peak[1],
           k->check_steps, k->check_s);
    ck_assert_double_le(peak[1], peak[0]);
    fdw_spec_free(fit);
    fdw_spec_free(spec);
}

START_TEST(test_edge_corner_blocks)
{
    bounded("edge", edge);
    bounded("corner", corner);
    bounded("blocks", blocks);
}
END_TEST

/* One bin: stable at the fit-based dt (the fit's own operator cut to the grid), checked as
 * a layered model, no Lanczos steps. */
START_TEST(test_one_bin)
{
    char path[128], json[2048];
    write_model("homogeneous", homogeneous, path, sizeof path);
    job(json, sizeof json, path, 10, "\"auto\"", "");
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_int_eq(parse(json, 0, &spec, &err), FDW_OK);
    const fdw_ete_spec *k = spec->kspec;
    ck_assert_int_eq(k->check_steps, 0);
    ck_assert(k->check_layered);
    ck_assert_double_eq(k->dt_unstable, 0.0);
    ck_assert_double_ge(k->lambda_min, -4.0 + 2e-4 - 1e-9); /* the fit's margin */
    fdw_spec_free(spec);
}
END_TEST

static float two_layers(int i, int j, int k)
{
    (void)i, (void)j;
    return k >= 14 ? 2600.0f : 2000.0f;
}

/* A layered model under a free surface: by plane waves the fit-based dt has an eigenvalue
 * below -4; at 0.8 of it both methods find it stable, the plane waves' extremes lying
 * outside the grid's Lanczos values (the grid's operator is a restriction of the one
 * infinite along x and y) and within 5e-3 of them on this 32-point grid. */
START_TEST(test_layered_matches_lanczos)
{
    char path[128], json[2048];
    write_model("layers", two_layers, path, sizeof path);
    job(json, sizeof json, path, 10, "\"auto\"", "");
    char *b = strstr(json, "\"width\": 8}");
    ck_assert_ptr_nonnull(b);
    snprintf(b, sizeof json - (size_t)(b - json), "\"width\": 8, \"free_surface\": true}}");
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(parse(json, 1, &spec, &err) == FDW_OK, "%s", err.message);
    ck_assert(spec->boundary.free_surface);
    const ete_spectrum bad = spectrum_at(spec, spec->dt);
    ck_assert_int_eq(bad.method, ETE_SPECTRUM_LAYERED);
    ck_assert(!fdw_ete_spectrum_stable(&bad));
    const size_t n = (size_t)N * N * N;
    float *v = malloc(n * sizeof *v);
    ck_assert_int_eq(fdw_model_load(spec, v, &err), FDW_OK);
    fdw_spec at = *spec;
    at.dt = 0.8 * spec->dt;
    fdw_ete_data d = {0};
    ck_assert_int_eq(fdw_ete_build_table(&at, v, n, &d, &err), FDW_OK);
    const ete_grid g = {N, N, N, 1};
    ete_spectrum lay, lan;
    ck_assert_int_eq(fdw_ete_spectrum(&g, &d, 0, 1e-7, &lay, &err), FDW_OK);
    ck_assert_int_eq(fdw_ete_lanczos(&g, &d, 600, 1e-9, &lan, &err), FDW_OK);
    printf("layered: at the fit-based dt %g s lambda_min %.6f; at 0.8 of it plane waves "
           "[%.7f, %.7f] (%.3f s), Lanczos [%.7f, %.7f] (%d steps, %.3f s)\n", spec->dt,
           bad.lmin, lay.lmin, lay.lmax, lay.seconds, lan.lmin, lan.lmax, lan.iterations,
           lan.seconds);
    ck_assert_int_eq(lay.method, ETE_SPECTRUM_LAYERED);
    ck_assert(fdw_ete_spectrum_stable(&lay) && fdw_ete_spectrum_stable(&lan));
    ck_assert_double_le(lay.lmin, lan.lmin + 1e-9);
    ck_assert_double_ge(lay.lmax, lan.lmax - 1e-9);
    ck_assert_double_lt(lan.lmin - lay.lmin, 5e-3); /* the grid is 32 points wide */
    free_table(&d);
    free(v);
    fdw_spec_free(spec);
}
END_TEST

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/fdw-ete-stab-XXXXXX");
    if (!mkdtemp(g_dir))
        return 1;
    Suite *s = suite_create("ete-stability");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_apply_matches_kernel);
    tcase_add_test(tc, test_inclusion);
    tcase_add_test(tc, test_edge_corner_blocks);
    tcase_add_test(tc, test_one_bin);
    tcase_add_test(tc, test_layered_matches_lanczos);
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
