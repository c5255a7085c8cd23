/* test_sweep_analytic.c — the sweep kind against closed forms (issue 20): a point source
 * with the seed's constant F, psi, a vs the Randers distance N(x - x0), max and mean error
 * in units of h/F, and its decrease over two refinements of the grid; a plane source and
 * psi = 0 vs their closed forms; an F field of two layers vs the Snell first-arrival time. */
#include "sweep_util.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const double SEED_F = 1.1, SEED_PSI = 1.0, SEED_A[3] = {-0.34, 0.4, 0.7};

/* The seed's cube of side 10 with n points per axis, a point source at its centre. */
static void run_point(int n, const char *precision, sw_run *r)
{
    char json[1024];
    const double h = 10.0 / (n - 1);
    snprintf(json, sizeof json,
             "{\"kind\": \"sweep\", \"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": %.17g, "
             "\"dy\": %.17g, \"dz\": %.17g}, \"precision\": \"%s\", \"F\": %g, \"psi\": %g, "
             "\"a\": [%g, %g, %g], \"initial\": {\"points\": [{\"position\": [5, 5, 5]}]}, "
             "\"sweeps\": 3, \"output\": {\"volume\": \"f64\", \"slices\": []}}",
             n, n, n, h, h, h, precision, SEED_F, SEED_PSI, SEED_A[0], SEED_A[1], SEED_A[2]);
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, r);
}

/* Max and mean |T - N(x - x0)| of a run_point run. */
static void point_error(const sw_run *r, double *max, double *mean)
{
    const int n = r->nx;
    const double h = 10.0 / (n - 1), b[3] = {SEED_PSI * SEED_A[0], SEED_PSI * SEED_A[1],
                                             SEED_PSI * SEED_A[2]};
    const size_t N = (size_t)n * n * n;
    double *ref = malloc(N * sizeof(double));
    ck_assert_ptr_nonnull(ref);
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                const double d[3] = {i * h - 5.0, j * h - 5.0, k * h - 5.0};
                ref[i + (size_t)n * (j + (size_t)n * k)] = sw_randers(SEED_F, b, d);
            }
    sw_error(r->T, ref, NULL, N, max, mean);
    free(ref);
}

START_TEST(randers_point_source)
{
    sw_run r;
    run_point(41, "float64", &r);
    double mx, mean;
    point_error(&r, &mx, &mean);
    const double unit = (10.0 / 40) / SEED_F;
    printf("Randers point source, 41^3, float64: max error %.3f h/F, mean %.3f h/F\n",
           mx / unit, mean / unit);
    ck_assert_msg(mx / unit < 3.0 && mean / unit < 1.0,
                  "max %.3f h/F, mean %.3f h/F", mx / unit, mean / unit);
    ck_assert_double_eq(r.T[20 + 41 * (20 + 41 * 20)], 0.0);
    sw_run_free(&r);
}
END_TEST

START_TEST(randers_convergence)
{
    const int n[3] = {21, 41, 81};
    double mx[3], mean[3];
    for (int q = 0; q < 3; q++) {
        sw_run r;
        run_point(n[q], "float64", &r);
        point_error(&r, &mx[q], &mean[q]);
        sw_run_free(&r);
        printf("n = %d: max error %.4e (%.3f h/F), mean %.4e (%.3f h/F)\n", n[q], mx[q],
               mx[q] / ((10.0 / (n[q] - 1)) / SEED_F), mean[q],
               mean[q] / ((10.0 / (n[q] - 1)) / SEED_F));
    }
    for (int q = 1; q < 3; q++) {
        const double om = log2(mx[q - 1] / mx[q]), oa = log2(mean[q - 1] / mean[q]);
        printf("halving h (%d -> %d): max error x%.3f (order %.2f), mean x%.3f (order %.2f)\n",
               n[q - 1], n[q], mx[q] / mx[q - 1], om, mean[q] / mean[q - 1], oa);
        /* a first-order scheme slowed by the source's singularity (O(h log 1/h)): each
         * halving must cut both errors clearly */
        ck_assert_msg(om > 0.45 && oa > 0.5, "orders %.2f (max) and %.2f (mean)", om, oa);
    }
}
END_TEST

/* The plane wave of a plane through p0 with unit normal n: t0 + |s| / (F + sign(s) b.n) at
 * signed distance s. */
static double plane_wave(const double x[3], const double p0[3], const double n[3], double t0,
                         double F, const double b[3])
{
    const double s = n[0] * (x[0] - p0[0]) + n[1] * (x[1] - p0[1]) + n[2] * (x[2] - p0[2]);
    const double bn = b[0] * n[0] + b[1] * n[1] + b[2] * n[2];
    return t0 + fabs(s) / (F + (s > 0 ? bn : -bn));
}

/* The largest relative error of a run against the plane wave. */
static double plane_error(const sw_run *r, const double h[3], const double p0[3],
                          const double n[3], double t0, double F, const double b[3])
{
    double worst = 0.0;
    for (int k = 0; k < r->nz; k++)
        for (int j = 0; j < r->ny; j++)
            for (int i = 0; i < r->nx; i++) {
                const double x[3] = {i * h[0], j * h[1], k * h[2]};
                const double ex = plane_wave(x, p0, n, t0, F, b);
                const double e = fabs(r->T[i + (size_t)r->nx * (j + (size_t)r->ny * k)] - ex) / ex;
                worst = e > worst || e != e ? e : worst;
            }
    return worst;
}

/* psi = 0 and a horizontal plane: T = t0 + |z - z0| / F on the whole grid (vertical
 * characteristics never leave it), reproduced to rounding (T is linear on each side). */
START_TEST(plane_source_isotropic)
{
    const char *json =
        "{\"kind\": \"sweep\", \"grid\": {\"nx\": 21, \"ny\": 23, \"nz\": 31, \"dx\": 0.3, "
        "\"dy\": 0.35, \"dz\": 0.32}, \"F\": 1.7, \"initial\": {\"planes\": [{\"point\": "
        "[0, 0, 4.3], \"normal\": [0, 0, 1], \"t0\": 0.25}]}, \"sweeps\": \"auto\", "
        "\"output\": {\"slices\": []}}";
    sw_run r;
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &r);
    const double h[3] = {0.3, 0.35, 0.32}, p0[3] = {0, 0, 4.3}, n[3] = {0, 0, 1},
                 b[3] = {0, 0, 0};
    const double worst = plane_error(&r, h, p0, n, 0.25, 1.7, b);
    printf("plane source, psi = 0: largest relative error %.3e after %ld sweeps\n", worst,
           r.sweeps);
    ck_assert_msg(worst < 1e-13, "relative error %.3e", worst);
    ck_assert(r.converged);
    sw_run_free(&r);
}
END_TEST

/* The seed's anisotropic metric and a tilted plane. Its characteristics (along the group
 * velocity sign(s) F n + b) leave the grid through some faces, so the truncated grid's
 * solution there is not the infinite plane's; with the plane wave also given on the six
 * faces (an initial-time volume), the plane wave is the solution everywhere, and the
 * update reproduces it to rounding (T is linear on each side of the plane). */
START_TEST(plane_source_randers)
{
    const int n[3] = {33, 29, 31};
    const double h[3] = {0.3, 0.35, 0.32}, p0[3] = {4.1, 5.2, 4.9};
    const double nn[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, b[3] = {-0.34, 0.4, 0.7};
    const size_t N = (size_t)n[0] * n[1] * n[2];
    double *faces = malloc(N * sizeof(double));
    ck_assert_ptr_nonnull(faces);
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                const double x[3] = {i * h[0], j * h[1], k * h[2]};
                const int face = i == 0 || j == 0 || k == 0 || i == n[0] - 1 || j == n[1] - 1 ||
                                 k == n[2] - 1;
                faces[i + (size_t)n[0] * (j + (size_t)n[1] * k)] =
                    face ? plane_wave(x, p0, nn, 0.5, 1.1, b) : INFINITY;
            }
    char dir[] = "/tmp/fdw_sweep_in_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[600], json[1400];
    snprintf(path, sizeof path, "%s", sw_write_file(dir, "faces.f64", faces, N * sizeof(double)));
    free(faces);
    snprintf(json, sizeof json,
             "{\"kind\": \"sweep\", \"grid\": {\"nx\": 33, \"ny\": 29, \"nz\": 31, \"dx\": 0.3, "
             "\"dy\": 0.35, \"dz\": 0.32}, \"F\": 1.1, \"psi\": 1.0, \"a\": [-0.34, 0.4, 0.7], "
             "\"initial\": {\"planes\": [{\"point\": [4.1, 5.2, 4.9], \"normal\": [1, 2, 2], "
             "\"t0\": 0.5}], \"volume\": {\"path\": \"%s\", \"format\": \"raw-f64\"}}, "
             "\"sweeps\": \"auto\", \"output\": {\"slices\": []}}", path);
    sw_run r;
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &r);
    const double worst = plane_error(&r, h, p0, nn, 0.5, 1.1, b);
    printf("plane source, Randers, plane wave on the faces: largest relative error %.3e after "
           "%ld sweeps\n", worst, r.sweeps);
    ck_assert_msg(worst < 1e-13, "relative error %.3e", worst);
    ck_assert(r.converged);
    sw_run_free(&r);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* psi = 0, F constant 2: T = |x - x0| / 2, the same through F as a constant field. */
START_TEST(isotropic_point_source)
{
    const char *fmt =
        "{\"kind\": \"sweep\", \"grid\": {\"nx\": 41, \"ny\": 41, \"nz\": 41, \"dx\": 0.25, "
        "\"dy\": 0.25, \"dz\": 0.25}, %s, \"initial\": {\"points\": [{\"position\": [4.1, 5, "
        "6.3], \"t0\": 1}]}, \"sweeps\": 4, \"output\": {\"slices\": []}}";
    char json[1024];
    sw_run rc, rf;
    snprintf(json, sizeof json, fmt, "\"F\": 2");
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &rc);
    snprintf(json, sizeof json, fmt, "\"velocity\": {\"type\": \"constant\", \"value\": 2}");
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &rf);
    const size_t N = 41 * 41 * 41;
    double *ref = malloc(N * sizeof(double));
    ck_assert_ptr_nonnull(ref);
    for (int k = 0; k < 41; k++)
        for (int j = 0; j < 41; j++)
            for (int i = 0; i < 41; i++) {
                const double d[3] = {i * 0.25 - 4.1, j * 0.25 - 5.0, k * 0.25 - 6.3};
                ref[i + 41 * (j + 41 * (size_t)k)] =
                    1.0 + sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / 2.0;
            }
    double mx, mean, mxf, meanf, dmx, dmean;
    sw_error(rc.T, ref, NULL, N, &mx, &mean);
    sw_error(rf.T, ref, NULL, N, &mxf, &meanf);
    sw_error(rc.T, rf.T, NULL, N, &dmx, &dmean);
    const double unit = 0.25 / 2.0;
    printf("psi = 0: max error %.3f h/F, mean %.3f h/F; F as a field: %.3f, %.3f; the two "
           "differ by %.2e at most\n", mx / unit, mean / unit, mxf / unit, meanf / unit, dmx);
    ck_assert(mx / unit < 2.0 && mean / unit < 0.8);
    ck_assert(dmx < 1e-12 * 20.0);
    free(ref);
    sw_run_free(&rc);
    sw_run_free(&rf);
}
END_TEST

/* First arrival below a flat interface at depth zi from a source at x0 above it: the
 * least |x0 - p| / v1 + |p - x| / v2 over p on the interface (convex in the offset of p
 * along the line between the two, found by golden section). */
static double snell_time(const double x0[3], const double x[3], double zi, double v1, double v2)
{
    const double R = hypot(x[0] - x0[0], x[1] - x0[1]);
    const double a = zi - x0[2], b = x[2] - zi;
    double lo = 0.0, hi = R;
    for (int it = 0; it < 200; it++) {
        const double m1 = lo + (hi - lo) * 0.381966, m2 = lo + (hi - lo) * 0.618034;
        const double f1 = hypot(m1, a) / v1 + hypot(R - m1, b) / v2;
        const double f2 = hypot(m2, a) / v1 + hypot(R - m2, b) / v2;
        if (f1 < f2)
            hi = m2;
        else
            lo = m1;
    }
    const double r = 0.5 * (lo + hi);
    return hypot(r, a) / v1 + hypot(R - r, b) / v2;
}

START_TEST(two_layer_snell)
{
    const char *json =
        "{\"kind\": \"sweep\", \"grid\": {\"nx\": 41, \"ny\": 41, \"nz\": 41, \"dx\": 0.25, "
        "\"dy\": 0.25, \"dz\": 0.25}, \"velocity\": {\"type\": \"layered\", \"layers\": "
        "[{\"top\": 0, \"v\": 1}, {\"top\": 4.875, \"v\": 2}]}, \"initial\": {\"points\": "
        "[{\"position\": [5, 5, 2]}]}, \"sweeps\": \"auto\", \"output\": {\"slices\": []}}";
    sw_run r;
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &r);
    /* nodes at z <= 4.75 have v = 1, from z = 5 on v = 2: the interface lies between */
    const double x0[3] = {5, 5, 2}, zi = 4.875;
    double worst = 0.0, sum = 0.0;
    long cnt = 0;
    for (int k = 22; k < 41; k++)
        for (int j = 0; j < 41; j++)
            for (int i = 0; i < 41; i++) {
                const double x[3] = {i * 0.25, j * 0.25, k * 0.25};
                const double ex = snell_time(x0, x, zi, 1.0, 2.0);
                const double e = fabs(r.T[i + 41 * (j + 41 * (size_t)k)] - ex);
                worst = e > worst || e != e ? e : worst;
                sum += e;
                cnt++;
            }
    const double unit = 0.25 / 1.0;
    printf("two layers (v 1 over 2), below the interface: max error %.3f h/v1, mean %.3f h/v1 "
           "(%ld sweeps)\n", worst / unit, sum / cnt / unit, r.sweeps);
    ck_assert_msg(worst / unit < 2.0 && sum / cnt / unit < 1.0, "max %.3f, mean %.3f h/v1",
                  worst / unit, sum / cnt / unit);
    ck_assert(r.converged);
    sw_run_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sweep_analytic");
    TCase *tc = tcase_create("analytic");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, randers_point_source);
    tcase_add_test(tc, randers_convergence);
    tcase_add_test(tc, plane_source_isotropic);
    tcase_add_test(tc, plane_source_randers);
    tcase_add_test(tc, isotropic_point_source);
    tcase_add_test(tc, two_layer_snell);
    suite_add_tcase(s, tc);
    return sw_run_suite(s);
}
