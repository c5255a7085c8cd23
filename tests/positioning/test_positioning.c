/* test_positioning.c — where sources inject and receivers sample (run/positioning.h):
 * the Kaiser-windowed sinc weights against their formula, the delta on a node, the
 * image method below a free surface, truncation at a face; off-grid accuracy of sinc
 * and trilinear against the analytic Green's function u = f(t - r/c) / (4 pi c^2 r) at
 * 6.7 points per wavelength, order 8 (the figures are printed); and the gather of an
 * off-grid sinc job identical bit for bit on 1, 2 and 3 slabs (CPU backend). */
#include "core/fd_coeffs.h"
#include "physics_util.h"
#include "run/positioning.h"
#include "run/problem.h"
#include "run/wavelet.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C0 2000.0
#define NREC 5

static fdw_spec *parse(const char *json)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    return spec;
}

/* The test's own oracle of Hicks' weight: sinc(d) I0(b sqrt(1-(d/4)^2)) / I0(b). */
static double i0_ref(double x)
{
    double s = 0, t = 1;
    for (int m = 1; m < 200; m++) {
        s += t;
        t *= (x / 2) * (x / 2) / ((double)m * m);
    }
    return s;
}

static double hicks(double d)
{
    if (fabs(d) >= 4)
        return 0;
    const double s = d == 0 ? 1 : sin(M_PI * d) / (M_PI * d);
    return s * i0_ref(6.31 * sqrt(1 - (d / 4) * (d / 4))) / i0_ref(6.31);
}

static const char *GRID =
    "{\"kind\":\"acoustic\",\"grid\":{\"nx\":30,\"ny\":20,\"nz\":16,\"dx\":10,\"dy\":10,"
    "\"dz\":5},\"order\":8,\"velocity\":{\"type\":\"constant\",\"value\":2000},"
    "\"time\":{\"nt\":10,\"dt\":\"auto\"},"
    "\"sources\":[{\"position\":[100,100,40],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}],"
    "\"boundary\":{\"type\":\"none\",\"free_surface\":%s}}";

static fdw_spec *grid_spec(int free_surface)
{
    char json[1024];
    snprintf(json, sizeof json, GRID, free_surface ? "true" : "false");
    return parse(json);
}

static void ijk(const fdw_spec *s, uint64_t idx, int *i, int *j, int *k)
{
    *i = (int)(idx % (uint64_t)s->nx);
    *j = (int)(idx / (uint64_t)s->nx % (uint64_t)s->ny);
    *k = (int)(idx / ((uint64_t)s->nx * s->ny));
}

START_TEST(test_on_grid_is_a_delta)
{
    fdw_spec *s = grid_spec(1);
    fdw_tap t[FDW_MAX_TAPS];
    const double on[3] = {120, 50, 35};
    for (int interp = 0; interp < 2; interp++) {
        ck_assert_int_eq(fdw_position_taps(s, on, (fdw_interp)interp, 3, t), 1);
        ck_assert_uint_eq(t[0].index, 12 + 30 * (5 + 20 * 7));
        ck_assert(t[0].weight == 1.0f);
        ck_assert_int_eq(t[0].owner, 3);
    }
    /* on a node in x and y only: 8 taps along z, each the 1-D weight */
    const double z_off[3] = {120, 50, 36.5}; /* k = 7.3 */
    ck_assert_int_eq(fdw_position_taps(s, z_off, FDW_INTERP_SINC, 0, t), 8);
    for (int q = 0; q < 8; q++) {
        int i, j, k;
        ijk(s, t[q].index, &i, &j, &k);
        ck_assert_int_eq(i, 12);
        ck_assert_int_eq(j, 5);
        ck_assert_int_eq(k, 4 + q);
        ck_assert_double_eq_tol(t[q].weight, hicks(k - 7.3), 1e-6);
    }
    fdw_spec_free(s);
}
END_TEST

START_TEST(test_sinc_weights)
{
    fdw_spec *s = grid_spec(0);
    fdw_tap t[FDW_MAX_TAPS];
    const double x = 10.37, y = 7.5, z = 8.81; /* grid units */
    const double pos[3] = {10 * x, 10 * y, 5 * z};
    const int n = fdw_position_taps(s, pos, FDW_INTERP_SINC, 0, t);
    ck_assert_int_eq(n, 512);
    double sum = 0, mx = 0, my = 0, mz = 0;
    for (int q = 0; q < n; q++) {
        int i, j, k;
        ijk(s, t[q].index, &i, &j, &k);
        ck_assert_int_ge(i, 7);
        ck_assert_int_le(i, 14);
        const double w = hicks(i - x) * hicks(j - y) * hicks(k - z);
        ck_assert_msg(fabs(t[q].weight - w) <= 1e-6 * fabs(w) + 1e-9,
                      "tap (%d,%d,%d): %.9g, formula %.9g", i, j, k, t[q].weight, w);
        if (q > 0) /* z-plane order, then y, then x */
            ck_assert_uint_gt(t[q].index, t[q - 1].index);
        sum += t[q].weight;
        mx += t[q].weight * i;
        my += t[q].weight * j;
        mz += t[q].weight * k;
    }
    /* a windowed sinc nearly preserves a constant and a linear function */
    printf("sinc weights: sum %.6f, first moments %.4f %.4f %.4f (position %g %g %g)\n", sum,
           mx / sum, my / sum, mz / sum, x, y, z);
    ck_assert_double_eq_tol(sum, 1.0, 2e-2);
    ck_assert_double_eq_tol(mx / sum, x, 2e-2);
    ck_assert_double_eq_tol(my / sum, y, 1e-6);
    ck_assert_double_eq_tol(mz / sum, z, 2e-2);
    /* near the x = 0 face: the nodes beyond it are dropped */
    const double edge[3] = {10 * 1.4, 10 * y, 5 * z};
    ck_assert_int_eq(fdw_position_taps(s, edge, FDW_INTERP_SINC, 0, t), 6 * 8 * 8);
    int planes = 0;
    ck_assert_int_eq(fdw_position_extent(s, edge, FDW_INTERP_SINC, &planes), 6 * 8 * 8);
    ck_assert_int_eq(planes, 8);
    /* trilinear: the 8 corners */
    ck_assert_int_eq(fdw_position_taps(s, pos, FDW_INTERP_LINEAR, 0, t), 8);
    fdw_spec_free(s);
}
END_TEST

START_TEST(test_free_surface_image)
{
    fdw_spec *s = grid_spec(1);
    fdw_tap t[FDW_MAX_TAPS];
    const double z = 1.3; /* grid units below the surface k = 0 */
    const double pos[3] = {120, 50, 5 * z};
    const int n = fdw_position_taps(s, pos, FDW_INTERP_SINC, 0, t);
    int planes = 0;
    fdw_position_extent(s, pos, FDW_INTERP_SINC, &planes);
    ck_assert_int_eq(planes, 5); /* k = 1 .. 5; k = 0 held at zero, k < 0 mirrored */
    ck_assert_int_eq(n, 5);
    for (int q = 0; q < n; q++) {
        int i, j, k;
        ijk(s, t[q].index, &i, &j, &k);
        ck_assert_int_ge(k, 1);
        /* u(-k) = -u(k): the weight above the surface subtracted at its image */
        const double w = hicks(k - z) - hicks(-k - z);
        ck_assert_double_eq_tol(t[q].weight, w, 1e-6);
    }
    /* without a free surface the same position is truncated at k = 0 instead */
    fdw_spec *open = grid_spec(0);
    ck_assert_int_eq(fdw_position_taps(open, pos, FDW_INTERP_SINC, 0, t), 6);
    fdw_spec_free(open);
    fdw_spec_free(s);
}
END_TEST

/* ---- accuracy against the analytic Green's function ---- */

/* The geometry of tests/physics/test_analytic.c (order 8, 6.7 points per wavelength at
 * 2.5 f0, h = 10 m): receivers along +x from the source, a box no reflection crosses
 * before tmax. */
static const double OFFSETS[NREC] = {100.0, 140.0, 180.0, 220.0, 250.0};
#define BACK 290.0
#define AHEAD 340.0
#define SIDE 340.0
#define F0 12.0
#define TMAX 0.36
#define H 10.0

/* Run with the source at the on-grid point + sshift*h and the receivers at the on-grid
 * points + rshift*h, interpolated by interp; traces into tr[NREC][ns] (malloc'd), the
 * relative L2 error of each against the analytic trace at its true distance into err. */
static long run_geometry(const double sshift[3], const double rshift[3], const char *interp,
                         float **tr, double err[NREC])
{
    const int nx = (int)lround((BACK + OFFSETS[NREC - 1] + AHEAD) / H) + 1;
    const int nyz = (int)lround(2 * SIDE / H) + 1;
    const double dt = 0.0018; /* 0.8 of dt_max (2.26 ms) */
    const long nt = (long)ceil(TMAX / dt);
    double src[3] = {BACK, SIDE, SIDE}, rec[NREC][3];
    char recs[1024] = "";
    for (int a = 0; a < 3; a++)
        src[a] += sshift[a] * H;
    for (int r = 0; r < NREC; r++) {
        char one[128];
        rec[r][0] = BACK + OFFSETS[r] + rshift[0] * H;
        rec[r][1] = SIDE + rshift[1] * H;
        rec[r][2] = SIDE + rshift[2] * H;
        snprintf(one, sizeof one, "%s[%.17g,%.17g,%.17g]", r ? "," : "", rec[r][0], rec[r][1],
                 rec[r][2]);
        strcat(recs, one);
    }
    char json[2048];
    snprintf(json, sizeof json,
             "{\"kind\":\"acoustic\",\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":%g,"
             "\"dy\":%g,\"dz\":%g},\"order\":8,"
             "\"velocity\":{\"type\":\"constant\",\"value\":%g},"
             "\"time\":{\"nt\":%ld,\"dt\":%.17g},"
             "\"sources\":[{\"position\":[%.17g,%.17g,%.17g],\"interpolation\":\"%s\","
             "\"wavelet\":{\"type\":\"ricker\",\"f0\":%g,\"delay\":%.17g}}],"
             "\"receivers\":{\"points\":[%s],\"interpolation\":\"%s\"},"
             "\"boundary\":{\"type\":\"none\"}}",
             nx, nyz, nyz, H, H, H, C0, nt, dt, src[0], src[1], src[2], interp, F0, 1.2 / F0,
             recs, interp);
    phys_run run;
    phys_run_spec(json, NULL, 0, &run);
    ck_assert_int_eq(run.nrec, NREC);
    fdw_source wav = {.wavelet = FDW_WAVELET_RICKER, .f0 = F0, .delay = 1.2 / F0,
                      .amplitude = 1.0};
    double *ana = malloc((size_t)run.ns * sizeof(double));
    for (int r = 0; r < NREC; r++) {
        const double d = sqrt((rec[r][0] - src[0]) * (rec[r][0] - src[0]) +
                              (rec[r][1] - src[1]) * (rec[r][1] - src[1]) +
                              (rec[r][2] - src[2]) * (rec[r][2] - src[2]));
        for (long s = 0; s < run.ns; s++)
            ana[s] = fdw_source_value(&wav, s * run.dt - d / C0, run.dt) /
                     (4.0 * M_PI * C0 * C0 * d);
        err[r] = phys_rel_l2(run.traces + (size_t)r * run.ns, ana, run.ns);
    }
    free(ana);
    const long ns = run.ns;
    *tr = malloc((size_t)NREC * (size_t)ns * sizeof(float));
    memcpy(*tr, run.traces, (size_t)NREC * (size_t)ns * sizeof(float));
    phys_run_free(&run);
    return ns;
}

/* ||a - b|| / ||b|| of two traces. */
static double trace_diff(const float *a, const float *b, long n)
{
    double num = 0, den = 0;
    for (long s = 0; s < n; s++) {
        num += ((double)a[s] - b[s]) * ((double)a[s] - b[s]);
        den += (double)b[s] * b[s];
    }
    return sqrt(num / den);
}

START_TEST(test_off_grid_accuracy)
{
    const double zero[3] = {0, 0, 0};
    /* the same sub-grid shift for source and receivers keeps every distance, so the
     * off-grid traces must reproduce the on-grid ones; a different shift for each tests
     * source and receivers at unrelated fractions (distances change; vs analytic) */
    const double shift[3] = {0.37, 0.61, 0.23};
    const double s2[3] = {0.5, 0.5, 0.5}, r2[3] = {0.29, 0.73, 0.44};
    static const char *names[2] = {"sinc", "linear"};
    float *on, *off[2], *cross[2];
    double e_on[NREC], e_off[2][NREC], e_cross[2][NREC];
    const long ns = run_geometry(zero, zero, "sinc", &on, e_on);
    for (int m = 0; m < 2; m++) {
        run_geometry(shift, shift, names[m], &off[m], e_off[m]);
        run_geometry(s2, r2, names[m], &cross[m], e_cross[m]);
    }
    printf("positioning, order 8, h = 10 m, 6.7 points per wavelength (relative L2):\n"
           "  offset   on-grid vs analytic | shifted (0.37,0.61,0.23)h vs on-grid trace,"
           " vs analytic | source (.5,.5,.5)h, receivers (.29,.73,.44)h vs analytic\n");
    double worst[2][3] = {{0}};
    for (int r = 0; r < NREC; r++) {
        printf("  %4.0f m  %6.3f%%", OFFSETS[r], 100 * e_on[r]);
        for (int m = 0; m < 2; m++) {
            const double d = trace_diff(off[m] + (size_t)r * ns, on + (size_t)r * ns, ns);
            printf("  | %s: %6.3f%% %6.3f%% %6.3f%%", names[m], 100 * d, 100 * e_off[m][r],
                   100 * e_cross[m][r]);
            worst[m][0] = fmax(worst[m][0], d);
            worst[m][1] = fmax(worst[m][1], e_off[m][r] - e_on[r]);
            worst[m][2] = fmax(worst[m][2], e_cross[m][r] - e_on[r]);
        }
        printf("\n");
    }
    for (int m = 0; m < 2; m++)
        printf("  %s: worst difference from the on-grid trace %.3f%%; worst excess error vs "
               "analytic over on-grid %.3f%% (same shift), %.3f%% (different shifts)\n",
               names[m], 100 * worst[m][0], 100 * worst[m][1], 100 * worst[m][2]);
    /* the target of issue 14: off-grid within 1% of the on-grid result */
    ck_assert_msg(worst[0][0] < 0.01, "sinc: off-grid trace %.3f%% from on-grid",
                  100 * worst[0][0]);
    ck_assert_msg(worst[0][1] < 0.01 && worst[0][2] < 0.01,
                  "sinc: off-grid error exceeds on-grid by %.3f%% / %.3f%%",
                  100 * worst[0][1], 100 * worst[0][2]);
    /* and clearly better than trilinear, which is what it replaced */
    ck_assert_msg(worst[0][0] < 0.5 * worst[1][0], "sinc %.3f%% not better than linear %.3f%%",
                  100 * worst[0][0], 100 * worst[1][0]);
    free(on);
    for (int m = 0; m < 2; m++) {
        free(off[m]);
        free(cross[m]);
    }
}
END_TEST

/* ---- slabs ---- */

/* nz 48: 2 slabs meet at k = 24, 3 at k = 16 and 32. The source's support and receivers'
 * straddle those planes; a receiver sits right below the free surface. */
static void slab_json(char *json, size_t len, int devices)
{
    snprintf(json, len,
             "{\"kind\":\"acoustic\",\"grid\":{\"nx\":28,\"ny\":24,\"nz\":48,\"dx\":10,"
             "\"dy\":10,\"dz\":10},\"order\":8,"
             "\"velocity\":{\"type\":\"constant\",\"value\":2000},"
             "\"time\":{\"nt\":70,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[133.3,117.1,241.7],"
             "\"wavelet\":{\"type\":\"ricker\",\"f0\":15}}],"
             "\"receivers\":{\"points\":[[101.5,99.9,235.5],[150.2,120.7,161.2],"
             "[170.4,90.3,318.8],[120.5,100.5,3.3]],"
             "\"lines\":[{\"from\":[60.3,110.2,5.1],\"to\":[200.7,110.2,460.9],\"count\":17}]},"
             "\"boundary\":{\"type\":\"sponge\",\"width\":6,\"free_surface\":true},"
             "\"devices\":%d}",
             devices);
}

START_TEST(test_slabs_identical)
{
    char json[2048];
    slab_json(json, sizeof json, 1);
    phys_run one;
    phys_run_spec(json, NULL, 0, &one);
    double peak = 0;
    for (long e = 0; e < (long)one.nrec * one.ns; e++)
        peak = fmax(peak, fabs(one.traces[e]));
    ck_assert_double_gt(peak, 0); /* the wave reached the receivers */
    for (int ndev = 2; ndev <= 3; ndev++) {
        slab_json(json, sizeof json, ndev);
        phys_run many;
        phys_run_spec(json, NULL, 0, &many);
        ck_assert_int_eq(many.nrec, one.nrec);
        ck_assert_msg(memcmp(many.traces, one.traces,
                             (size_t)one.nrec * (size_t)one.ns * sizeof(float)) == 0,
                      "%d slabs: the off-grid sinc gather differs from 1 slab", ndev);
        phys_run_free(&many);
    }
    phys_run_free(&one);
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    Suite *s = suite_create("positioning");
    TCase *tc = tcase_create("positioning");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, test_on_grid_is_a_delta);
    tcase_add_test(tc, test_sinc_weights);
    tcase_add_test(tc, test_free_surface_image);
    tcase_add_test(tc, test_off_grid_accuracy);
    tcase_add_test(tc, test_slabs_identical);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
