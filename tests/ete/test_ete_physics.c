/* test_ete_physics.c — the ETE kind against physics on the CPU backend (fdw_spec_parse +
 * fdw_run): a homogeneous medium against the analytic 3-D Green's function at 6 points per
 * shortest wavelength, ETE at 2.25 times the order-8 FD stability limit against order-8 FD
 * at a fifth of that dt (the seed's claim) and ETE at its auto dt; 10,000 steps in a model
 * of 900 velocities scattered at random (no growth, and its fit report); the reflection
 * coefficient of a two-layer model (the symmetric operator's); the free surface's polarity;
 * N slabs against one, bit for bit. */
#include "core/fd_coeffs.h"
#include "physics_util.h"
#include "run/wavelet.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define C0 2000.0
#define H 10.0
#define F0 13.3333    /* 6 points per shortest wavelength (C0 / (2.5 f0)) at h = 10 m */
#define NREC 5
#define NEAR 1        /* receivers [0, NEAR) lie in the source's near field */

/* Receivers 10 to 38 points from the source; the box has no absorbing layer and no face
 * reflection reaches a receiver before TMAX (the earliest, off the -x face to the first
 * receiver, at 0.39 s + the wavelet's 0.0225 s lead). */
static const double OFFSETS[NREC] = {100.0, 200.0, 260.0, 320.0, 380.0};
#define BACK 340.0    /* source to the -x face */
#define AHEAD 340.0   /* last receiver to the +x face */
#define SIDE 340.0    /* receiver line to the y and z faces */
#define TMAX 0.38

/* Run kind ("ete" or "acoustic", order 8) on the homogeneous box with time step dt (0:
 * "auto"); the relative L2 error against f(t - r/c) / (4 pi c^2 r) of the receivers from
 * NEAR on together (the return value) and of each (err[]), the loop's wall time and the dt
 * used. */
static double green_error(const char *kind, double dt, double err[NREC], double *seconds,
                          double *dt_used)
{
    const double ex = BACK + OFFSETS[NREC - 1] + AHEAD, eyz = 2.0 * SIDE;
    const int nx = (int)lround(ex / H) + 1, nyz = (int)lround(eyz / H) + 1;
    const double src[3] = {BACK, SIDE, SIDE};
    char recs[512] = "", time[128];
    for (int r = 0; r < NREC; r++) {
        char one[96];
        snprintf(one, sizeof one, "%s[%g,%g,%g]", r ? "," : "", src[0] + OFFSETS[r], src[1],
                 src[2]);
        strcat(recs, one);
    }
    if (dt > 0)
        snprintf(time, sizeof time, "{\"nt\":%ld,\"dt\":%.17g}", (long)ceil(TMAX / dt), dt);
    else /* auto: nt from a first parse */
        snprintf(time, sizeof time, "{\"nt\":%%ld,\"dt\":\"auto\"}");
    char json[2048], tmpl[2048];
    snprintf(tmpl, sizeof tmpl,
             "{\"kind\":\"%s\",\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":%g,\"dy\":%g,"
             "\"dz\":%g},\"order\":8,\"velocity\":{\"type\":\"constant\",\"value\":%g},"
             "\"time\":%s,\"sources\":[{\"position\":[%g,%g,%g],\"wavelet\":{\"type\":"
             "\"ricker\",\"f0\":%g,\"delay\":%.17g}}],\"receivers\":{\"points\":[%s]},"
             "\"boundary\":{\"type\":\"none\"}}",
             kind, nx, nyz, nyz, H, H, H, C0, time, src[0], src[1], src[2], F0, 1.2 / F0, recs);
    if (dt > 0) {
        snprintf(json, sizeof json, "%s", tmpl);
    } else {
        snprintf(json, sizeof json, tmpl, 1L);
        fdw_spec *s = NULL;
        fdw_error err;
        ck_assert_int_eq(fdw_spec_parse(json, strlen(json), NULL, &s, &err), FDW_OK);
        const long nt = (long)ceil(TMAX / fdw_spec_dt(s));
        fdw_spec_free(s);
        snprintf(json, sizeof json, tmpl, nt);
    }
    phys_run run;
    phys_run_spec(json, NULL, 0, &run);
    *seconds = run.result.elapsed_s;
    *dt_used = run.dt;
    fdw_source wav = {.wavelet = FDW_WAVELET_RICKER, .f0 = F0, .delay = 1.2 / F0,
                      .amplitude = 1.0};
    double num = 0.0, den = 0.0;
    for (int r = 0; r < NREC; r++) {
        const float *tr = run.traces + (size_t)r * run.ns;
        double nr = 0.0, dr = 0.0;
        for (long s = 0; s < run.ns; s++) {
            const double a = fdw_source_value(&wav, s * run.dt - OFFSETS[r] / C0, run.dt) /
                             (4.0 * M_PI * C0 * C0 * OFFSETS[r]);
            nr += (tr[s] - a) * (tr[s] - a);
            dr += a * a;
        }
        err[r] = sqrt(nr / dr);
        if (r >= NEAR) {
            num += nr;
            den += dr;
        }
    }
    phys_run_free(&run);
    return sqrt(num / den);
}

/* The seed's claim: ETE at 2.25 x the FD-8 limit is at least as accurate as FD-8 at a fifth
 * of that dt over a propagation of 2 to 4 wavelengths (at f0), in a few times less time.
 * Within 10 points of the source ETE's large step leaves a near-field error (its
 * wavenumbers beyond the band cannot keep the static response), printed, held below 1%. */
START_TEST(test_green_vs_fd)
{
    const double fd = fdw_dt_max(8, H, H, H, C0), dte = 2.25 * fd;
    double t_ete, t_fd, t_auto, dt_ete, dt_fd, dt_auto, x_ete[NREC], x_fd[NREC], x_auto[NREC];
    const double e_ete = green_error("ete", dte, x_ete, &t_ete, &dt_ete);
    const double e_fd = green_error("acoustic", dte / 5.0, x_fd, &t_fd, &dt_fd);
    const double e_auto = green_error("ete", 0.0, x_auto, &t_auto, &dt_auto);
    printf("Green's function, 6 points per shortest wavelength, %.2f s of propagation; L2 "
           "error of the receivers 20-38 points away (and of the one 10 points away):\n", TMAX);
    printf("  ETE  at dt %.4f ms (2.25 x the FD-8 limit, r = %.3f): %.3f%% (%.3f%%), loop %.2f s\n",
           dt_ete * 1e3, C0 * dt_ete / H, 100 * e_ete, 100 * x_ete[0], t_ete);
    printf("  FD-8 at dt %.4f ms (a fifth of that):              %.3f%% (%.3f%%), loop %.2f s\n",
           dt_fd * 1e3, 100 * e_fd, 100 * x_fd[0], t_fd);
    printf("  ETE  at its auto dt %.4f ms (r = %.3f):             %.3f%% (%.3f%%), loop %.2f s\n",
           dt_auto * 1e3, C0 * dt_auto / H, 100 * e_auto, 100 * x_auto[0], t_auto);
    for (int r = 0; r < NREC; r++)
        printf("    receiver at %3.0f m: ETE %.3f%%, FD-8 at dt/5 %.3f%%, ETE auto %.3f%%\n",
               OFFSETS[r], 100 * x_ete[r], 100 * x_fd[r], 100 * x_auto[r]);
    ck_assert_msg(e_ete <= e_fd, "ETE %.4f%% above FD-8 at dt/5 %.4f%%", 100 * e_ete,
                  100 * e_fd);
    ck_assert_msg(e_auto <= 0.01, "ETE at auto dt: %.4f%% > 1%%", 100 * e_auto);
    ck_assert_msg(x_ete[0] <= 0.01 && x_auto[0] <= 0.01, "near field: %.4f%%, %.4f%%",
                  100 * x_ete[0], 100 * x_auto[0]);
}
END_TEST

/* A raw float32 model file of n^3 points, nvals distinct velocities in [lo, hi] placed at
 * random (a fixed generator). */
static void random_model(const char *path, int n, int nvals, double lo, double hi)
{
    const size_t np = (size_t)n * n * n;
    float *v = malloc(np * sizeof *v);
    unsigned long long x = 88172645463325252ull;
    for (size_t p = 0; p < np; p++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const int b = p < (size_t)nvals ? (int)p : (int)(x % (unsigned long long)nvals);
        v[p] = (float)(lo + (hi - lo) * b / (nvals - 1));
    }
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(v, sizeof *v, np, f), np);
    fclose(f);
    free(v);
}

/* 10,000 steps at 2.25 x the FD-8 limit with 900 velocities at random, no absorbing
 * boundary: the recorded amplitude does not grow, and the fit report covers 900 bins. */
START_TEST(test_long_run_stable)
{
    const int n = 28;
    const double vmax = 3000.0, dt = 2.25 * fdw_dt_max(8, H, H, H, vmax);
    char model[] = "/tmp/fdw-ete-model-XXXXXX";
    int fd = mkstemp(model);
    ck_assert_int_ge(fd, 0);
    close(fd);
    random_model(model, n, 900, 1500.0, vmax);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"kind\":\"ete\",\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":%g,\"dy\":%g,"
             "\"dz\":%g},\"velocity\":{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"%s\"},"
             "\"time\":{\"nt\":10000,\"dt\":%.17g},\"sources\":[{\"position\":[135,135,135],"
             "\"wavelet\":{\"type\":\"ricker\",\"f0\":12}}],\"receivers\":{\"points\":"
             "[[60,60,60],[200,135,100],[135,220,180],[100,100,230]]},"
             "\"boundary\":{\"type\":\"none\"}}",
             n, n, n, H, H, H, model, dt);
    phys_run run;
    phys_run_spec(json, NULL, 0, &run);
    unlink(model);
    double early = 0.0, late = 0.0;
    for (int r = 0; r < run.nrec; r++)
        for (long s = 0; s < run.ns; s++) {
            const double a = fabs(run.traces[(size_t)r * run.ns + s]);
            ck_assert_msg(isfinite(a), "receiver %d sample %ld is not finite", r, s);
            if (s >= 200 && s < 2200)
                early = fmax(early, a);
            if (s >= run.ns - 2000)
                late = fmax(late, a);
        }
    char path[320];
    snprintf(path, sizeof path, "%s/ete_fit.json", run.dir);
    json_error_t je;
    json_t *rep = json_load_file(path, 0, &je);
    ck_assert_ptr_nonnull(rep);
    const size_t bins = json_array_size(json_object_get(rep, "bins"));
    const double maxs = json_number_value(json_object_get(rep, "max_abs_symbol"));
    const double perr = json_number_value(json_object_get(rep, "worst_phase_error"));
    printf("10,000 steps at dt %.4f ms (2.25 x FD-8 limit at vmax %g): max |p| steps "
           "200-2200 %.4g, last 2000 %.4g (ratio %.3f); %zu bins, worst phase error %.3g, "
           "max |S| %.12f\n", dt * 1e3, vmax, early, late, late / early, bins, perr, maxs);
    ck_assert_uint_eq(bins, 900);
    ck_assert_double_le(maxs, 1.0 + 1e-9);
    ck_assert_double_gt(early, 0.0);
    ck_assert_msg(late <= 1.5 * early, "amplitude grew: %.4g -> %.4g", early, late);
    json_decref(rep);
    phys_run_free(&run);
}
END_TEST

/* The two-layer job (homogeneous: v1 everywhere) with the given "time" member. */
static void two_layer_json(char *out, size_t len, int homogeneous, const char *time)
{
    char vel[256];
    if (!homogeneous)
        snprintf(vel, sizeof vel, "{\"type\":\"layered\",\"layers\":[{\"top\":0,\"v\":2000},"
                 "{\"top\":600,\"v\":3000}]}");
    else
        snprintf(vel, sizeof vel, "{\"type\":\"constant\",\"value\":2000}");
    snprintf(out, len,
             "{\"kind\":\"ete\",\"grid\":{\"nx\":91,\"ny\":91,\"nz\":101,\"dx\":%g,\"dy\":%g,"
             "\"dz\":%g},\"velocity\":%s,\"time\":%s,\"sources\":[{\"position\":[450,450,"
             "340],\"wavelet\":{\"type\":\"ricker\",\"f0\":%g,\"delay\":%.17g}}],"
             "\"receivers\":{\"points\":[[450,450,300]]},\"boundary\":{\"type\":\"sponge\","
             "\"width\":20},\"ete\":{\"fmax\":%g}}",
             H, H, H, vel, time, F0, 1.2 / F0, 2.5 * F0);
}

/* Two layers (2000 over 3000 m/s): the wave reflected at normal incidence, isolated as the
 * difference from a homogeneous run, projected on the analytic image-source wave. The
 * kind's symmetric operator (ete.h) acts at a contrast as p_tt = div(v^2 grad p), a density
 * proportional to 1 / v^2, so its impedance is proportional to 1 / v and the coefficient
 * is (v1 - v2) / (v1 + v2) = -0.2, of the opposite sign to the constant-density acoustic
 * kind's +0.2. At the kind's own dt (2.2 x the FD-8 limit at v2) the measured coefficient
 * is within 25 % of that (the same measure gives the acoustic kind +0.19 to +0.23); issue
 * 21's 5 % of the constant-density value is not met (docs/ete.md). */
START_TEST(test_reflection_coefficient)
{
    /* the layer starts at z = 600 m: nodes from 600 m down hold v2, so the grid's interface
     * lies half a cell above, between the nodes at 590 and 600 m */
    const double v1 = 2000.0, v2 = 3000.0, zi = 600.0 - 0.5 * H, zs = 340.0, zr = 300.0;
    const double path = (zi - zs) + (zi - zr), R = (v1 - v2) / (v1 + v2);
    const double tmax = path / v1 + 2.4 / F0 + 0.02;
    char j[2048], time[128];
    two_layer_json(j, sizeof j, 0, "{\"nt\":1,\"dt\":\"auto\"}");
    fdw_spec *s = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(j, strlen(j), NULL, &s, &err) == FDW_OK, "%s", err.message);
    const double dt = fdw_spec_dt(s); /* the two-layer model's, used by both runs */
    fdw_spec_free(s);
    snprintf(time, sizeof time, "{\"nt\":%ld,\"dt\":%.17g}", (long)ceil(tmax / dt), dt);
    phys_run run[2];
    for (int m = 0; m < 2; m++) {
        two_layer_json(j, sizeof j, m, time);
        phys_run_spec(j, NULL, 0, &run[m]);
    }
    fdw_source wav = {.wavelet = FDW_WAVELET_RICKER, .f0 = F0, .delay = 1.2 / F0,
                      .amplitude = 1.0};
    double num = 0.0, den = 0.0;
    const double t0 = (zs - zr) / v1 + 2.4 / F0; /* after the direct wave has passed */
    for (long s = 0; s < run[0].ns; s++) {
        const double t = s * run[0].dt;
        if (t < t0)
            continue;
        const double refl = (double)run[0].traces[s] - run[1].traces[s];
        const double img = fdw_source_value(&wav, t - path / v1, run[0].dt) /
                           (4.0 * M_PI * v1 * v1 * path);
        num += refl * img;
        den += img * img;
    }
    const double meas = num / den;
    printf("reflection coefficient %g over %g m/s at normal incidence (path %g m, dt %.3f ms): "
           "measured %.4f, (v1 - v2)/(v1 + v2) = %.4f, off by %.1f%%; constant density would "
           "give %+.4f\n", v2, v1, path, dt * 1e3, meas, R, 100 * fabs(meas - R) / fabs(R), -R);
    ck_assert_double_lt(meas, 0.0);
    ck_assert_double_le(fabs(meas - R), 0.25 * fabs(R));
    phys_run_free(&run[0]);
    phys_run_free(&run[1]);
}
END_TEST

/* The free surface: a receiver between the source and the surface sees the surface's
 * reflection with polarity -1 (the image method works for the symmetric 37-point
 * stencil); and 3 slabs give the same bits as one, with the surface, the sponge, a layered
 * model and snapshots. */
START_TEST(test_free_surface_and_slabs)
{
    char json[2][2048];
    for (int d = 0; d < 2; d++)
        snprintf(json[d], sizeof json[d],
                 "{\"kind\":\"ete\",\"grid\":{\"nx\":61,\"ny\":61,\"nz\":72,\"dx\":%g,\"dy\":%g,"
                 "\"dz\":%g},\"velocity\":{\"type\":\"layered\",\"layers\":[{\"top\":0,\"v\":"
                 "%g},{\"top\":450,\"v\":2600}]},\"time\":{\"nt\":110,\"dt\":\"auto\"},"
                 "\"sources\":[{\"position\":[300,300,200],\"wavelet\":{\"type\":\"ricker\","
                 "\"f0\":%g}}],\"receivers\":{\"points\":[[300,300,120],[250,330,400]]},"
                 "\"boundary\":{\"type\":\"sponge\",\"width\":12,\"free_surface\":true},"
                 "\"snapshots\":{\"every\":50,\"slices\":[{\"plane\":\"xz\",\"index\":30}]},"
                 "\"devices\":%d}",
                 H, H, H, C0, F0, d == 0 ? 1 : 3);
    phys_run one, three;
    phys_run_spec(json[0], NULL, 0, &one);
    phys_run_spec(json[1], NULL, 0, &three);
    ck_assert_int_eq(one.ns, three.ns);
    ck_assert_msg(memcmp(one.traces, three.traces, (size_t)one.nrec * one.ns * 4) == 0,
                  "3 slabs differ from 1 slab");
    /* receiver 0, 80 m above the source and 120 m below the surface: the direct wave, then
     * the surface's reflection (path 120 + 200 m) with the opposite sign */
    const float *tr = one.traces;
    const double t_dir = 80.0 / C0 + 1.2 / F0, t_ref = 320.0 / C0 + 1.2 / F0;
    double dmax = 0, rmin = 0;
    long sd = 0, sr = 0;
    for (long s = 0; s < one.ns; s++) {
        const double t = s * one.dt;
        if (fabs(t - t_dir) < 0.02 && fabs(tr[s]) > fabs(dmax)) {
            dmax = tr[s];
            sd = s;
        }
        if (fabs(t - t_ref) < 0.02 && fabs(tr[s]) > fabs(rmin)) {
            rmin = tr[s];
            sr = s;
        }
    }
    printf("free surface: direct peak %.4g at %.3f s, surface reflection peak %.4g at %.3f s "
           "(ratio %.3f; spreading 80/320 = 0.25)\n", dmax, sd * one.dt, rmin, sr * one.dt,
           rmin / dmax);
    ck_assert_double_gt(dmax, 0.0);
    ck_assert_double_lt(rmin / dmax, -0.2);
    ck_assert_double_gt(rmin / dmax, -0.3);
    char png[320];
    snprintf(png, sizeof png, "%s/snap_000100_xz_j30.png", three.dir);
    ck_assert_msg(access(png, F_OK) == 0, "no %s", png);
    phys_run_free(&one);
    phys_run_free(&three);
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    Suite *s = suite_create("ete-physics");
    TCase *tc = tcase_create("physics");
    tcase_set_timeout(tc, 280);
    tcase_add_test(tc, test_green_vs_fd);
    tcase_add_test(tc, test_long_run_stable);
    tcase_add_test(tc, test_reflection_coefficient);
    tcase_add_test(tc, test_free_surface_and_slabs);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
