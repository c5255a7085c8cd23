/* test_problem.c — problem set-up pieces: trilinear taps (one weight on a node, weights that
 * reproduce linear functions off the grid), the sponge profile, the wavelet scaling of the
 * built problem, and the stencil kind's decomposition-independent random field. */
#include "run/problem.h"
#include "run/positioning.h"
#include "kinds/acoustic/acoustic.h"
#include "kinds/stencil/stencil.h"
#include "run/wavelet.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fdw_spec *parse(const char *json)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    return spec;
}

static const char *JOB =
    "{\"grid\":{\"nx\":20,\"ny\":16,\"nz\":12,\"dx\":10,\"dy\":5,\"dz\":4,"
    "\"origin\":[100,-20,3]},\"order\":4,\"velocity\":{\"type\":\"constant\",\"value\":1500},"
    "\"time\":{\"nt\":50,\"dt\":0.001},"
    "\"sources\":[{\"position\":[150,0,23],\"wavelet\":{\"type\":\"ricker\",\"f0\":20,"
    "\"amplitude\":3}},{\"position\":[133.3,1.7,30.1],\"interpolation\":\"linear\","
    "\"wavelet\":{\"type\":\"ricker\",\"f0\":15}}],"
    "\"receivers\":{\"points\":[[290,55,47],[101,-19,4]],\"interval\":5,"
    "\"interpolation\":\"linear\"},"
    "\"boundary\":{\"type\":\"sponge\",\"width\":{\"xmin\":3,\"xmax\":4,\"ymin\":0,\"ymax\":2,"
    "\"zmin\":5,\"zmax\":1},\"free_surface\":true}}";

START_TEST(test_taps)
{
    fdw_spec *spec = parse(JOB);
    fdw_tap taps[FDW_MAX_TAPS];
    /* on a node: (150-100)/10 = 5, (0+20)/5 = 4, (23-3)/4 = 5 */
    const double on[3] = {150.0, 0.0, 23.0};
    ck_assert_int_eq(fdw_position_taps(spec, on, FDW_INTERP_LINEAR, 7, taps), 1);
    ck_assert_uint_eq(taps[0].index, 5 + 20 * (4 + 16 * 5));
    ck_assert_float_eq(taps[0].weight, 1.0f);
    ck_assert_int_eq(taps[0].owner, 7);
    /* the last node of the grid */
    const double corner[3] = {290.0, 55.0, 47.0};
    ck_assert_int_eq(fdw_position_taps(spec, corner, FDW_INTERP_LINEAR, 0, taps), 1);
    ck_assert_uint_eq(taps[0].index, 19 + 20 * (15 + 16 * 11));
    /* off the grid: weights sum to 1 and interpolate x, y and z exactly */
    const double off[3] = {133.3, 1.7, 30.1};
    const int n = fdw_position_taps(spec, off, FDW_INTERP_LINEAR, 1, taps);
    ck_assert_int_eq(n, 8);
    double sum = 0.0, x = 0.0, y = 0.0, z = 0.0;
    for (int t = 0; t < n; t++) {
        const uint64_t idx = taps[t].index;
        const int i = (int)(idx % 20), j = (int)(idx / 20 % 16), k = (int)(idx / 320);
        sum += taps[t].weight;
        x += taps[t].weight * (100.0 + 10.0 * i);
        y += taps[t].weight * (-20.0 + 5.0 * j);
        z += taps[t].weight * (3.0 + 4.0 * k);
    }
    ck_assert_double_eq_tol(sum, 1.0, 1e-6);
    ck_assert_double_eq_tol(x, off[0], 1e-4);
    ck_assert_double_eq_tol(y, off[1], 1e-4);
    ck_assert_double_eq_tol(z, off[2], 1e-4);
    fdw_spec_free(spec);
}
END_TEST

START_TEST(test_problem_build)
{
    fdw_spec *spec = parse(JOB);
    fdw_problem p;
    fdw_error err;
    ck_assert_int_eq(fdw_problem_build(spec, NULL, &p, &err), FDW_OK);
    ck_assert_int_eq(p.radius, 2);
    /* order 4: -5/2, 4/3, -1/12 over h^2 */
    const fdw_acoustic_data *ad = p.kdata;
    ck_assert_float_eq_tol(ad->cx[0], -2.5f / 100.0f, 1e-9f);
    ck_assert_float_eq_tol(ad->cy[1], (4.0f / 3.0f) / 25.0f, 1e-8f);
    ck_assert_float_eq_tol(ad->cz[2], (-1.0f / 12.0f) / 16.0f, 1e-8f);
    ck_assert_float_eq_tol(ad->vdt2[17], 1.5f * 1.5f, 1e-6f);
    /* wavelets are f(it dt) dt^2 / (dx dy dz) */
    const double scale = 1e-6 / (10.0 * 5.0 * 4.0);
    for (int it = 0; it < 50; it += 7) {
        ck_assert_float_eq_tol(p.wavelets[it], (float)(scale * fdw_ricker(it * 1e-3, 20.0,
                                                                          1.2 / 20.0, 3.0)),
                               1e-12f);
        ck_assert_float_eq_tol(p.wavelets[50 + it],
                               (float)(scale * fdw_ricker(it * 1e-3, 15.0, 1.2 / 15.0, 1.0)),
                               1e-12f);
    }
    ck_assert_int_eq(p.nsrc_taps, 1 + 8);
    /* one on the last node, one off the grid a quarter plane under the free surface,
     * whose linear weight on the surface plane (held at zero) is dropped as the sinc's
     * is: 1 + 1 rows (z planes), 1 + 4 taps */
    ck_assert_int_eq(p.nrec_out, 2);
    ck_assert_int_eq(p.nreceivers, 2);
    ck_assert_int_eq(p.rec_rows[0], 0);
    ck_assert_int_eq(p.rec_rows[1], 1);
    ck_assert_int_eq(p.rec_rows[2], 2);
    ck_assert_int_eq(p.nrec_taps, 1 + 4);
    ck_assert_int_eq(p.rec_interval, 5);
    ck_assert_int_eq(p.nrec_slots, 11);
    /* sponge: per-face widths, free surface on top (no zmin layer), zero inside */
    ck_assert_int_eq(p.free_surface, 1);
    ck_assert_float_gt(p.qx[0], p.qx[1]);
    ck_assert_float_gt(p.qx[2], 0.0f);
    ck_assert_float_eq(p.qx[3], 0.0f);
    ck_assert_float_eq(p.qx[15], 0.0f);
    ck_assert_float_gt(p.qx[16], 0.0f);
    ck_assert_float_gt(p.qx[19], p.qx[18]);
    ck_assert_float_eq(p.qy[0], 0.0f);
    ck_assert_float_eq(p.qy[13], 0.0f);
    ck_assert_float_gt(p.qy[14], 0.0f);
    for (int k = 0; k < 11; k++)
        ck_assert_float_eq(p.qz[k], 0.0f);
    ck_assert_float_gt(p.qz[11], 0.0f);
    fdw_problem_free(&p);
    fdw_spec_free(spec);
}
END_TEST

/* A Ricker far from its delay is 0, not NaN: a delay of 1e300 made (1 - 2a) exp(-a) =
 * -inf * 0, and a job "succeeded" with NaN gathers and snapshots. */
START_TEST(test_ricker_far_from_delay)
{
    const double delays[] = {1e300, -1e300, 1.7976931348623157e308, 10.0};
    for (int i = 0; i < 4; i++) {
        const double v = fdw_ricker(0.01, 12.0, delays[i], 1.0);
        ck_assert_msg(v == 0.0, "ricker at delay %g: %g", delays[i], v);
    }
    ck_assert_double_eq(fdw_ricker(0.1, 10.0, 0.1, 2.0), 2.0); /* the peak */
    ck_assert_double_lt(fdw_ricker(0.1 + 0.5 / 10.0, 10.0, 0.1, 1.0), 0.0); /* a side lobe */
}
END_TEST

START_TEST(test_sponge_profile)
{
    float q[40];
    /* theory: a wave crossing the layer twice keeps exp(-2 int sigma dx / v) = R */
    fdw_sponge_profile(40, 10, 0, 10.0, 2000.0, 1e-3, 1e-3, q);
    double integral = 0.0;
    for (int i = 0; i < 10; i++) {
        ck_assert_float_gt(q[i], 0.0f);
        if (i > 0)
            ck_assert_float_lt(q[i], q[i - 1]);
        integral += q[i] / 1e-3 * 10.0; /* sigma * h */
    }
    for (int i = 10; i < 40; i++)
        ck_assert_float_eq(q[i], 0.0f);
    /* the sampled profile is within a grid cell's worth of the continuous integral */
    const double r = exp(-2.0 * integral / 2000.0);
    ck_assert_double_gt(r, 1e-4);
    ck_assert_double_lt(r, 1e-2);
}
END_TEST

START_TEST(test_stencil_init)
{
    double mean = 0.0;
    for (uint64_t i = 0; i < 100000; i++) {
        const float v = fdw_stencil_init_value(1, i);
        ck_assert(v >= -1.0f && v <= 1.0f);
        ck_assert_float_eq(v, fdw_stencil_init_value(1, i));
        mean += v;
    }
    ck_assert_double_lt(fabs(mean / 100000.0), 0.02);
    ck_assert_float_ne(fdw_stencil_init_value(1, 5), fdw_stencil_init_value(2, 5));
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    Suite *s = suite_create("physics-problem");
    TCase *tc = tcase_create("problem");
    tcase_add_test(tc, test_taps);
    tcase_add_test(tc, test_problem_build);
    tcase_add_test(tc, test_ricker_far_from_delay);
    tcase_add_test(tc, test_sponge_profile);
    tcase_add_test(tc, test_stencil_init);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
