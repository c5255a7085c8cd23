/* test_boundary.c — boundaries against reference runs: a wave leaving through the sponge
 * or the CPML reflects less than 1% of its amplitude, and the 20-point CPML less than the
 * 36-point sponge (small grids compared with a grid large enough that nothing comes back
 * within the window); the CPML stays stable over thousands of steps at the stability limit
 * in a heterogeneous model; the free surface reflects with reversed polarity and unit
 * strength at normal incidence. Runs through fdw_spec_parse + fdw_run. */
#include "core/fd_coeffs.h"
#include "physics_util.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define C0 2000.0
#define H 10.0
#define F0 12.0

/* JSON of a homogeneous order-8 job: n^3 grid (nz given separately), the source at node
 * src, one receiver at node rec, boundary object text as given. */
static void job_json(char *json, size_t len, int nx, int ny, int nz, const int src[3],
                     const int rec[3], long nt, double dt, const char *boundary)
{
    snprintf(json, len,
             "{\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":%g,\"dy\":%g,\"dz\":%g},"
             "\"order\":8,\"velocity\":{\"type\":\"constant\",\"value\":%g},"
             "\"time\":{\"nt\":%ld,\"dt\":%.17g},"
             "\"sources\":[{\"position\":[%g,%g,%g],\"wavelet\":{\"type\":\"ricker\","
             "\"f0\":%g}}],"
             "\"receivers\":{\"points\":[[%g,%g,%g]]},\"boundary\":%s}",
             nx, ny, nz, H, H, H, C0, nt, dt, src[0] * H, src[1] * H, src[2] * H, F0,
             rec[0] * H, rec[1] * H, rec[2] * H, boundary);
}

static double max_abs(const float *v, long n, long *at)
{
    double m = 0.0;
    for (long i = 0; i < n; i++)
        if (fabs(v[i]) > m) {
            m = fabs(v[i]);
            if (at)
                *at = i;
        }
    return m;
}

/* Sponge width and target of the test: the defaults this project recommends (see
 * problem.c: a p = 2 profile with sigma_max from reflection 1e-2 measured best). */
#define SPONGE_W 36
#define SPONGE_R "0.01"

/* Offset of the receiver from the source (+x, points) and of the reference grid's centre
 * from its faces: the reference is (2 REF_M + 1)^3 with no boundary layer, so its nearest
 * reflection comes back after every window below. */
#define REC_OFF 14
#define REF_M 76

/* Window of a test grid whose layer is w points wide: the source sits w + 15 points from
 * every face, and the window ends once the wave has crossed the layer to the outer face
 * and come back to the receiver, plus the wavelet's length. */
static long window_steps(int w, double dt)
{
    const double face_path = 2.0 * (w + 15) - REC_OFF;
    return (long)ceil((0.2 + face_path * H / C0 + 0.02) / dt);
}

/* The reference run: the same source and receiver, far from every face. */
static void reference_run(long nt, double dt, phys_run *big)
{
    const int mb = REF_M, nb = 2 * mb + 1;
    const int src_b[3] = {mb, mb, mb}, rec_b[3] = {mb + REC_OFF, mb, mb};
    /* nearest reflection in the reference: via the +x face; the wavelet starts at 0.025 s */
    const double first_refl = 0.025 + (2.0 * mb - REC_OFF) * H / C0;
    ck_assert_double_gt(first_refl, nt * dt);
    char json[2048];
    job_json(json, sizeof json, nb, nb, nb, src_b, rec_b, nt, dt, "{\"type\":\"none\"}");
    phys_run_spec(json, NULL, 0, big);
}

/* Largest reflected amplitude over the largest direct one for an absorbing layer of w
 * points described by the boundary object bnd, on a (2(w+15)+1)^3 grid with the layer on
 * every face; big is the reference run (at least as long). */
static double reflection_ratio(const char *what, const char *bnd, int w, double dt,
                               const phys_run *big)
{
    const int m = w + 15, ns = 2 * m + 1;
    const long nt = window_steps(w, dt);
    const int src_s[3] = {m, m, m}, rec_s[3] = {m + REC_OFF, m, m};
    char json[2048];
    job_json(json, sizeof json, ns, ns, ns, src_s, rec_s, nt, dt, bnd);
    phys_run small;
    phys_run_spec(json, NULL, 0, &small);
    ck_assert_int_le(small.ns, big->ns);

    float *diff = malloc((size_t)small.ns * sizeof(float));
    for (long s = 0; s < small.ns; s++)
        diff[s] = small.traces[s] - big->traces[s];
    const double direct = max_abs(big->traces, small.ns, NULL);
    long at = 0;
    const double refl = max_abs(diff, small.ns, &at);
    const double ratio = refl / direct;
    /* The same corrected for geometric spreading: the reflection at time t has travelled
     * c (t - delay) instead of REC_OFF points, so its coefficient at the layer is larger. */
    const double travelled = C0 * (at * small.dt - 1.2 / F0) / H;
    const double coeff = ratio * travelled / REC_OFF;
    printf("%s, width %d: max |reflection| / max |direct| = %.4f%% at t=%.3f s (window "
           "%.2f s); spreading-corrected reflection coefficient ~%.3f%%\n",
           what, w, 100.0 * ratio, at * small.dt, nt * dt, 100.0 * coeff);
    free(diff);
    phys_run_free(&small);
    return ratio;
}

/* Sponge (width 36) and CPML (widths 10 and 20) against one reference run: the sponge and
 * the 10-point CPML reflect less than 1% of the direct wave, and the 20-point CPML less
 * than the 36-point sponge. */
START_TEST(test_absorbing_reflection)
{
    const double dt = 0.8 * fdw_dt_max(8, H, H, H, C0);
    phys_run big;
    reference_run(window_steps(SPONGE_W, dt), dt, &big);
    char bnd[160];
    snprintf(bnd, sizeof bnd, "{\"type\":\"sponge\",\"width\":%d,\"reflection\":%s}",
             SPONGE_W, SPONGE_R);
    const double sponge = reflection_ratio("sponge (reflection " SPONGE_R ")", bnd, SPONGE_W,
                                           dt, &big);
    ck_assert_msg(sponge < 0.01, "sponge reflects %.3f%% of the direct wave", 100.0 * sponge);
    double cpml[2];
    const int widths[2] = {10, 20};
    for (int q = 0; q < 2; q++) {
        snprintf(bnd, sizeof bnd, "{\"type\":\"cpml\",\"width\":%d}", widths[q]);
        cpml[q] = reflection_ratio("CPML (defaults: reflection 1e-3, frequency f0)", bnd,
                                   widths[q], dt, &big);
    }
    ck_assert_msg(cpml[0] < 0.01, "CPML of 10 points reflects %.3f%%", 100.0 * cpml[0]);
    ck_assert_msg(cpml[1] < sponge,
                  "CPML of 20 points reflects %.4f%%, the sponge of %d points %.4f%%",
                  100.0 * cpml[1], SPONGE_W, 100.0 * sponge);
    ck_assert_msg(cpml[1] < cpml[0], "CPML 20 points %.4f%% is not better than 10 points %.4f%%",
                  100.0 * cpml[1], 100.0 * cpml[0]);
    phys_run_free(&big);
}
END_TEST

/* Energy of the recorded field at sample s: the sum of u^2 over all receivers. */
static double sample_energy(const phys_run *r, long s)
{
    double e = 0.0;
    for (int q = 0; q < r->nrec; q++) {
        const double v = r->traces[(size_t)q * (size_t)r->ns + (size_t)s];
        e += v * v;
    }
    return e;
}

static double max_energy(const phys_run *r, long s0, long s1)
{
    double m = 0.0;
    for (long s = s0; s < s1; s++) {
        const double e = sample_energy(r, s);
        ck_assert_msg(isfinite(e), "energy not finite at sample %ld", s);
        if (e > m)
            m = e;
    }
    return m;
}

/* CPML on every face of a three-layer model (1500 / 3500 / 2000 m/s, the layers running
 * through the side layers) at dt = the stability limit, 4400 steps: after the source has
 * stopped the energy seen by two receiver planes falls by orders of magnitude and keeps
 * falling, with no late growth. */
START_TEST(test_cpml_long_run_stable)
{
    const long nt = 4400;
    char json[2048];
    snprintf(json, sizeof json,
             "{\"grid\":{\"nx\":38,\"ny\":34,\"nz\":36,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":8,\"velocity\":{\"type\":\"layered\",\"layers\":[{\"top\":0,"
             "\"v\":1500},{\"top\":125,\"v\":3500},{\"top\":245,\"v\":2000}]},"
             "\"time\":{\"nt\":%ld,\"dt\":\"auto\",\"safety\":1},"
             "\"sources\":[{\"position\":[185,165,175],\"wavelet\":{\"type\":\"ricker\","
             "\"f0\":20}}],"
             "\"receivers\":{\"planes\":[{\"axis\":\"z\",\"position\":150,\"stride\":3},"
             "{\"axis\":\"x\",\"position\":40,\"stride\":3}],\"interval\":4},"
             "\"boundary\":{\"type\":\"cpml\",\"width\":{\"xmin\":8,\"xmax\":9,"
             "\"ymin\":8,\"ymax\":7,\"zmin\":9,\"zmax\":8}}}",
             nt);
    phys_run r;
    phys_run_spec(json, NULL, 1, &r); /* small grid: one thread is fastest */
    const long ns = r.ns, q = (ns - 1) / 8;
    /* the Ricker wavelet (delay 0.06 s) is over by 0.15 s */
    const long src_end = (long)ceil(0.15 / r.dt);
    ck_assert_int_lt(src_end, q);
    const double peak = max_energy(&r, 0, ns);
    double e[8];
    for (int w = 0; w < 8; w++)
        e[w] = max_energy(&r, 1 + w * q, 1 + (w + 1) * q);
    printf("CPML long run: %ld steps of %.3g s (%.2f s); energy peak %.3g; max energy per "
           "eighth of the run relative to the peak:",
           nt, r.dt / 4, nt * r.dt / 4, peak);
    for (int w = 0; w < 8; w++)
        printf(" %.2e", e[w] / peak);
    printf("\n");
    ck_assert(peak > 0.0);
    /* the wave has left the grid: what remains is tiny, and it does not grow back */
    ck_assert_msg(e[2] < 1e-4 * peak, "energy after a quarter of the run %.3g of the peak",
                  e[2] / peak);
    for (int w = 3; w < 8; w++)
        ck_assert_msg(e[w] <= e[2], "energy grows late in the run: eighth %d at %.3g, the "
                      "third eighth %.3g (of the peak)", w, e[w] / peak, e[2] / peak);
    phys_run_free(&r);
}
END_TEST

/* Free surface: source 24 points below the top, receiver 10 points below the source, no
 * absorbing layer and faces far enough that only the surface reflection arrives within the
 * window. The reflected pulse, scaled by its path length, must be -1 times the direct one. */
START_TEST(test_free_surface_polarity)
{
    const double dt = 0.8 * fdw_dt_max(8, H, H, H, C0);
    const double tmax = 0.47;
    const long nt = (long)ceil(tmax / dt);
    char json[2048];
    const int nxy = 93, nz = 75;
    const int src[3] = {46, 46, 24}, rec[3] = {46, 46, 34};
    const double r1 = (rec[2] - src[2]) * H, r2 = (rec[2] + src[2]) * H;
    /* side faces: 2 sqrt(46^2 + 5^2) points; bottom: 2 (nz-1-24) - 10 points */
    const double side = 2.0 * sqrt(46.0 * 46.0 + 25.0) * H / C0;
    const double bottom = (2.0 * (nz - 1 - src[2]) - 10.0) * H / C0;
    ck_assert_double_gt((side < bottom ? side : bottom) + 0.025, tmax);

    job_json(json, sizeof json, nxy, nxy, nz, src, rec, nt, dt,
             "{\"type\":\"none\",\"free_surface\":true}");
    phys_run fs;
    phys_run_spec(json, NULL, 0, &fs);

    /* direct arrival peaks at delay + r1/c, the reflection at delay + r2/c; split midway */
    const double t_direct = 1.2 / F0 + r1 / C0, t_refl = 1.2 / F0 + r2 / C0;
    const long split = (long)((t_direct + t_refl) / 2.0 / fs.dt);
    long at_d = 0, at_r = 0;
    const double direct = max_abs(fs.traces, split, &at_d);
    max_abs(fs.traces + split, fs.ns - split, &at_r);
    at_r += split;
    const double ratio = (fs.traces[at_r] * r2) / (fs.traces[at_d] * r1);
    printf("free surface: reflected / direct at normal incidence, spreading-corrected = %.4f "
           "(reflection peak at t=%.3f s, expected %.3f s; direct peak %.3g at t=%.3f s)\n",
           ratio, at_r * fs.dt, t_refl, direct, at_d * fs.dt);
    ck_assert_msg(ratio < -0.95 && ratio > -1.05, "free-surface reflection ratio %.4f, want -1",
                  ratio);
    ck_assert_double_lt(fabs(at_r * fs.dt - t_refl), 2.0 * dt);
    phys_run_free(&fs);
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    Suite *s = suite_create("physics-boundary");
    TCase *tc = tcase_create("boundary");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_absorbing_reflection);
    tcase_add_test(tc, test_cpml_long_run_stable);
    tcase_add_test(tc, test_free_surface_polarity);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
