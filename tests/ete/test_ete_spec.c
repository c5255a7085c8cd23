/* test_ete_spec.c — the ETE kind's spec: every refusal names its field and says why
 * (CPML, a dt no stable operator fits with the largest one that does, the "ete" members,
 * the order); a dt beyond the finite-difference limit is accepted; "auto" meets its
 * accuracy target; the normalised form parses back to the same job. */
#include "core/fd_coeffs.h"
#include "kinds/ete/ete.h"
#include "spec/spec.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define V 2000.0
#define H 10.0

/* A homogeneous 40^3 job with the given time, boundary and ete members. */
static void job(char *out, size_t len, const char *time, const char *extra)
{
    snprintf(out, len,
             "{\"kind\": \"ete\", \"grid\": {\"nx\": 40, \"ny\": 40, \"nz\": 40, \"dx\": %g, "
             "\"dy\": %g, \"dz\": %g}, \"velocity\": {\"type\": \"constant\", \"value\": %g}, "
             "\"time\": %s, \"sources\": [{\"position\": [200, 200, 200], \"wavelet\": "
             "{\"type\": \"ricker\", \"f0\": 13.3333}}]%s}",
             H, H, H, V, time, extra);
}

static fdw_spec *parse_ok(const char *json)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    fdw_status st = fdw_spec_parse(json, strlen(json), NULL, &spec, &err);
    ck_assert_msg(st == FDW_OK, "rejected: %s: %s", err.field, err.message);
    return spec;
}

static void parse_fails(const char *json, const char *field, const char *needle,
                        fdw_error *err)
{
    fdw_spec *spec = NULL;
    fdw_status st = fdw_spec_parse(json, strlen(json), NULL, &spec, err);
    ck_assert_msg(st == FDW_ERR_SPEC, "accepted: %s", json);
    ck_assert_msg(strcmp(err->field, field) == 0, "field %s, want %s (%s)", err->field, field,
                  err->message);
    ck_assert_msg(strstr(err->message, needle), "message \"%s\" lacks \"%s\"", err->message,
                  needle);
}

START_TEST(test_cpml_refused)
{
    char j[2048];
    fdw_error err;
    job(j, sizeof j, "{\"nt\": 10, \"dt\": \"auto\"}", ", \"boundary\": {\"type\": \"cpml\"}");
    parse_fails(j, "boundary.type", "cpml", &err);
    job(j, sizeof j, "{\"nt\": 10, \"dt\": \"auto\"}",
        ", \"boundary\": {\"type\": \"sponge\", \"width\": 8}");
    fdw_spec_free(parse_ok(j));
}
END_TEST

/* Beyond the FD limit is fine; beyond the fit limit is refused with the largest dt that
 * can be fitted, and that dt is accepted. */
START_TEST(test_dt_limits)
{
    char j[2048], t[128];
    fdw_error err;
    const double fd = fdw_dt_max(8, H, H, H, V);
    snprintf(t, sizeof t, "{\"nt\": 10, \"dt\": %.17g}", 2.25 * fd);
    job(j, sizeof j, t, "");
    fdw_spec *s = parse_ok(j);
    const fdw_ete_spec *k = s->kspec;
    ck_assert_double_gt(k->dt_fit_max, 2.5 * fd); /* r about 1.28 against 0.453 */
    ck_assert_double_eq(s->dt, 2.25 * fd);
    fdw_spec_free(s);
    snprintf(t, sizeof t, "{\"nt\": 10, \"dt\": %.17g}", 6.0 * fd);
    job(j, sizeof j, t, "");
    parse_fails(j, "time.dt", "largest dt that can be fitted is", &err);
    const char *at = strstr(err.message, "fitted is ");
    ck_assert_ptr_nonnull(at);
    const double largest = strtod(at + strlen("fitted is "), NULL);
    printf("refused 6 x FD limit: %s\n", err.message);
    ck_assert_double_gt(largest, 2.5 * fd);
    ck_assert_double_lt(largest, 6.0 * fd);
    snprintf(t, sizeof t, "{\"nt\": 10, \"dt\": %.17g}", largest);
    job(j, sizeof j, t, "");
    s = parse_ok(j);
    ck_assert_int_gt(s->nwarnings, 0); /* stable but far above the accuracy target */
    fdw_spec_free(s);
}
END_TEST

/* "auto": the largest dt whose fits meet the target (a phase error of 1e-3 by default);
 * the normalised form parses back to the same dt. */
START_TEST(test_dt_auto)
{
    char j[2048];
    job(j, sizeof j, "{\"nt\": 10, \"dt\": \"auto\"}", "");
    fdw_spec *s = parse_ok(j);
    const fdw_ete_spec *k = s->kspec;
    const double r = V * s->dt / H, fd = fdw_dt_max(8, H, H, H, V);
    printf("auto: dt %.4g ms = %.2f x the FD-8 limit (r = %.3f), phase error %.3e, fmax %g\n",
           s->dt * 1e3, s->dt / fd, r, k->phase_error, k->fmax);
    ck_assert_double_eq_tol(k->fmax, 2.5 * 13.3333, 1e-9);
    ck_assert_double_gt(s->dt, 2.0 * fd);
    ete_band b;
    fdw_ete_band(s, V, s->dt, &b);
    ck_assert_double_le(k->phase_error, ETE_PHASE_ERROR_DEFAULT);
    /* more accurate than FD-8 at a fifth of it, over the same band */
    ck_assert_double_le(k->phase_error, ete_fd8_phase_error(&b, 0.2));
    /* a little more dt no longer meets it */
    fdw_ete_band(s, V, s->dt * 1.02, &b);
    ete_op op;
    ck_assert_int_eq(ete_fit(&b, &op), ETE_FIT_OK);
    ck_assert_double_gt(op.phase_err, ETE_PHASE_ERROR_DEFAULT);
    char *norm = fdw_spec_to_json(s);
    fdw_spec *s2 = parse_ok(norm);
    ck_assert_double_eq(s2->dt, s->dt);
    ck_assert_int_eq(s2->dt_auto, 1);
    free(norm);
    fdw_spec_free(s2);
    fdw_spec_free(s);
    /* an explicit target */
    job(j, sizeof j, "{\"nt\": 10, \"dt\": \"auto\"}",
        ", \"ete\": {\"max_phase_error\": 0.002, \"nv\": 100}");
    s = parse_ok(j);
    k = s->kspec;
    ck_assert_double_le(k->phase_error, 0.002);
    ck_assert_int_eq(k->nv, 100);
    fdw_spec_free(s);
    /* a band by points per wavelength */
    job(j, sizeof j, "{\"nt\": 10, \"dt\": \"auto\", \"safety\": 0.5}", ", \"ete\": {\"ppw\": 6}");
    s = parse_ok(j);
    k = s->kspec;
    ck_assert_double_eq(k->ppw, 6.0);
    fdw_ete_band(s, V, s->dt, &b);
    ck_assert_double_eq_tol(b.phimax, b.r[0] * 2 * M_PI / 6, 1e-12);
    fdw_spec_free(s);
}
END_TEST

/* dt auto across resolutions (issue 25, item 3): the band's points per wavelength at V
 * (2.5 f0) from 4 to 12, the Courant number auto picks never falls as the band narrows;
 * from 6 up it is at least 2.2 times the FD-8 limit; below 4 no dt meets the target and
 * the refusal names ete.fmax, the band's points per wavelength and what to change. */
START_TEST(test_dt_auto_monotone)
{
    static const double ppw[] = {4.0, 4.4, 4.8, 5.4, 6.0, 7.0, 8.0, 10.0, 12.0};
    const double fd = fdw_dt_max(8, H, H, H, V);
    double last = 0.0;
    char j[2048], ete[128];
    for (size_t i = 0; i < sizeof ppw / sizeof *ppw; i++) {
        snprintf(ete, sizeof ete, ", \"ete\": {\"fmax\": %.17g}", V / (ppw[i] * H));
        job(j, sizeof j, "{\"nt\": 10, \"dt\": \"auto\"}", ete);
        fdw_spec *s = parse_ok(j);
        const double x = s->dt / fd;
        printf("band of %4.1f points per wavelength: dt auto %.4g ms = %.2f x the FD-8 limit, "
               "phase error %.3e\n", ppw[i], s->dt * 1e3, x,
               ((const fdw_ete_spec *)s->kspec)->phase_error);
        ck_assert_msg(x >= last, "dt auto fell from %.3f to %.3f x the FD-8 limit at %g ppw",
                      last, x, ppw[i]);
        if (ppw[i] >= 6.0)
            ck_assert_double_ge(x, 2.2);
        last = x;
        fdw_spec_free(s);
    }
    fdw_error err;
    snprintf(ete, sizeof ete, ", \"ete\": {\"fmax\": %.17g}", V / (3.0 * H));
    job(j, sizeof j, "{\"nt\": 10, \"dt\": \"auto\"}", ete);
    parse_fails(j, "ete.fmax", "3 points per wavelength", &err);
    ck_assert_msg(strstr(err.message, "kind \"acoustic\""), "%s", err.message);
}
END_TEST

START_TEST(test_members_refused)
{
    char j[2048];
    fdw_error err;
    const char *t = "{\"nt\": 10, \"dt\": \"auto\"}";
    job(j, sizeof j, t, ", \"ete\": {\"nv\": 70000}");
    parse_fails(j, "ete.nv", "65536", &err);
    job(j, sizeof j, t, ", \"ete\": {\"nv\": 0}");
    parse_fails(j, "ete.nv", "", &err);
    job(j, sizeof j, t, ", \"ete\": {\"fmax\": 30, \"ppw\": 6}");
    parse_fails(j, "ete.ppw", "not both", &err);
    job(j, sizeof j, t, ", \"ete\": {\"ppw\": 1.5}");
    parse_fails(j, "ete.ppw", "at least 2 points", &err);
    job(j, sizeof j, t, ", \"ete\": {\"max_phase_error\": 0.7}");
    parse_fails(j, "ete.max_phase_error", "below 0.5", &err);
    job(j, sizeof j, t, ", \"ete\": {\"kmax\": 1}");
    parse_fails(j, "ete.kmax", "kmax", &err);
    job(j, sizeof j, t, ", \"order\": 4");
    parse_fails(j, "order", "order 8 only", &err);
    job(j, sizeof j, "{\"nt\": 10, \"dt\": 0.02}", ", \"ete\": {\"fmax\": 40}");
    parse_fails(j, "time.dt", "largest dt that can be fitted", &err);
    /* a band beyond 2 points per wavelength at vmin (100 Hz here); a tiny dt (Courant
     * number 1e-4 at vmin: the fit's phase error was 5%, at 1e-5 100%, without a word) */
    job(j, sizeof j, t, ", \"ete\": {\"fmax\": 150}");
    parse_fails(j, "ete.fmax", "at most 100 Hz", &err);
    job(j, sizeof j, "{\"nt\": 10, \"dt\": 5e-7}", "");
    parse_fails(j, "time.dt", "ETE needs at least 5e-06 s", &err);
    job(j, sizeof j, "{\"nt\": 10, \"dt\": 1e-12}", "");
    parse_fails(j, "time.dt", "below the 0.001", &err);
    job(j, sizeof j, "{\"nt\": 10, \"dt\": 5e-6}", ""); /* fits, but f0 13 Hz: too slow */
    parse_fails(j, "time.dt", "too small for the wavelet of f0 13.3333 Hz", &err);
    job(j, sizeof j, "{\"nt\": 10, \"dt\": 2e-5}", "");
    fdw_spec_free(parse_ok(j));
    /* no Ricker source to take the band from: a wavelet file's */
    char wpath[] = "/tmp/fdw-ete-wavelet-XXXXXX";
    const int fd = mkstemp(wpath);
    ck_assert_int_ge(fd, 0);
    const float samples[5] = {0, 1, 0, -1, 0};
    ck_assert_int_eq(write(fd, samples, sizeof samples), (int)sizeof samples);
    close(fd);
    char nosrc[1024];
    snprintf(nosrc, sizeof nosrc,
             "{\"kind\": \"ete\", \"grid\": {\"nx\": 20, \"ny\": 20, \"nz\": 20, \"dx\": 10, "
             "\"dy\": 10, \"dz\": 10}, \"velocity\": {\"type\": \"constant\", \"value\": 2000}, "
             "\"time\": {\"nt\": 5}, \"sources\": [{\"position\": [100, 100, 100], "
             "\"wavelet\": {\"type\": \"file\", \"path\": \"%s\"}}]}", wpath);
    parse_fails(nosrc, "ete.fmax", "required", &err);
    unlink(wpath);
    /* the ete section belongs to its kind */
    const char *ac = "{\"kind\": \"acoustic\", \"grid\": {\"nx\": 20, \"ny\": 20, \"nz\": 20, "
                     "\"dx\": 10, \"dy\": 10, \"dz\": 10}, \"velocity\": {\"type\": "
                     "\"constant\", \"value\": 2000}, \"time\": {\"nt\": 5}, \"ete\": {}}";
    parse_fails(ac, "ete", "does not apply", &err);
}
END_TEST

/* A very uneven spacing with a narrow band: its fits are infeasible at the smallest
 * Courant numbers the limit search tries first and feasible above (the search took the
 * first for the limit and refused the job); the solver stalls within the bracket, which
 * counts as above the limit. */
START_TEST(test_uneven_spacing_narrow_band)
{
    const char *j = "{\"kind\": \"ete\", \"grid\": {\"nx\": 24, \"ny\": 24, \"nz\": 24, "
                    "\"dx\": 10, \"dy\": 100, \"dz\": 1}, \"velocity\": {\"type\": "
                    "\"constant\", \"value\": 2000}, \"time\": {\"nt\": 5, \"dt\": \"auto\"}, "
                    "\"sources\": [{\"position\": [120, 1200, 12], \"wavelet\": {\"type\": "
                    "\"ricker\", \"f0\": 1}}]}";
    fdw_spec *s = parse_ok(j);
    const fdw_ete_spec *k = s->kspec;
    printf("spacing (10, 100, 1) m, fmax 2.5 Hz: dt %g s, fit limit %g s, phase error %g\n",
           s->dt, k->dt_fit_max, k->phase_error);
    ck_assert_double_gt(k->dt_fit_max, 0.25 * 1.0 / V); /* r_z >= 0.25 at least */
    ck_assert_double_le(s->dt, k->dt_fit_max);
    ck_assert_double_lt(k->phase_error, 1e-3);
    fdw_spec_free(s);
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    Suite *s = suite_create("ete-spec");
    TCase *tc = tcase_create("spec");
    tcase_set_timeout(tc, 100);
    tcase_add_test(tc, test_cpml_refused);
    tcase_add_test(tc, test_dt_limits);
    tcase_add_test(tc, test_dt_auto);
    tcase_add_test(tc, test_dt_auto_monotone);
    tcase_add_test(tc, test_members_refused);
    tcase_add_test(tc, test_uneven_spacing_narrow_band);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
