/* test_sweep_spec.c — the sweep kind's spec (issue 20): every bad input gets FDW_ERR_SPEC
 * naming its field (F <= |psi a|, Gamma0 outside the grid or empty, NaN in a field or in the
 * initial times, a height file of the wrong size, ...), the defaults and the normalised
 * form (which parses to itself), and examples/fold.json. */
#include "sweep_util.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GRID "\"grid\": {\"nx\": 12, \"ny\": 10, \"nz\": 8, \"dx\": 1, \"dy\": 1, \"dz\": 1}"
#define POINT "\"initial\": {\"points\": [{\"position\": [5, 5, 4]}]}"

static char g_dir[64];

/* The spec fails with FDW_ERR_SPEC on field, its message containing words. */
static void expect_fail(const char *json, const char *field, const char *words)
{
    fdw_error err;
    const fdw_status st = sw_parse_fails(json, g_dir, &err);
    ck_assert_msg(st == FDW_ERR_SPEC, "accepted (status %d): %s", (int)st, json);
    ck_assert_msg(strcmp(err.field, field) == 0, "field \"%s\" (%s), expected \"%s\"", err.field,
                  err.message, field);
    ck_assert_msg(strstr(err.message, words) != NULL, "\"%s\" does not say \"%s\"", err.message,
                  words);
}

static void write_floats(const char *name, const float *v, size_t n)
{
    sw_write_file(g_dir, name, v, n * sizeof(float));
}

START_TEST(hamiltonian_errors)
{
    /* F <= |psi a| */
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 1, \"psi\": 2, \"a\": [0.3, 0.4, 0], "
                POINT "}", "F", "must exceed |psi a|");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 0.87, \"psi\": 1, \"a\": [-0.34, 0.4, "
                "0.7], " POINT "}", "F", "must exceed |psi a|");
    expect_fail("{\"kind\": \"sweep\", " GRID ", " POINT "}", "F", "F is required");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": -1, " POINT "}", "F", "");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 1, \"velocity\": {\"type\": "
                "\"constant\", \"value\": 2}, " POINT "}", "F", "not both");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"psi\": 1, " POINT "}", "a",
                "axial direction");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"velocity\": {\"type\": \"constant\", "
                "\"value\": 2}, \"psi\": 0.5, \"a\": [1, 0, 0], " POINT "}", "psi",
                "constant F only");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"precision\": \"float16\", " POINT "}",
                "precision", "");
}
END_TEST

START_TEST(gamma0_errors)
{
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"points\": "
                "[{\"position\": [5, 5, 9]}]}}", "initial.points[0].position", "outside the grid");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"points\": [{\"position\": "
                "[1, 1, 1]}, {\"position\": [-1, 1, 1]}]}}", "initial.points[1].position",
                "outside the grid");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"planes\": [{\"point\": "
                "[0, 0, 20], \"normal\": [0, 0, 1]}]}}", "initial.planes[0]", "does not cross");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"planes\": [{\"point\": "
                "[1, 1, 1], \"normal\": [0, 0, 0]}]}}", "initial.planes[0].normal", "non-zero");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"surface\": {\"type\": "
                "\"sinusoid\", \"z0\": 30, \"amplitude\": [1, 1], \"wavelength\": [4, 4]}}}",
                "initial.surface.z0", "does not meet the grid");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"surface\": {\"type\": "
                "\"sinusoid\", \"z0\": 3, \"wavelength\": [-4, 4]}}}",
                "initial.surface.wavelength[0]", "must be > 0");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {}}", "initial",
                "Gamma0 is empty");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"points\": [], "
                "\"planes\": []}}", "initial", "Gamma0 is empty");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2}", "initial", "");
}
END_TEST

START_TEST(file_errors)
{
    const size_t n3 = 12 * 10 * 8, n2 = 12 * 10;
    float *v = malloc(n3 * sizeof(float));
    ck_assert_ptr_nonnull(v);
    for (size_t q = 0; q < n3; q++)
        v[q] = 2.0f;
    v[77] = NAN;
    write_floats("v_nan.f32", v, n3);
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"velocity\": {\"type\": \"file\", \"format\": "
                "\"raw-f32\", \"path\": \"v_nan.f32\"}, " POINT "}", "velocity.path", "");
    /* heights: wrong size, a NaN, outside the grid */
    for (size_t q = 0; q < n2; q++)
        v[q] = 3.5f;
    write_floats("h_short.f32", v, n2 - 1);
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"surface\": {\"type\": "
                "\"file\", \"path\": \"h_short.f32\"}}}", "initial.surface.path",
                "does not match the grid");
    v[13] = NAN;
    write_floats("h_nan.f32", v, n2);
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"surface\": {\"type\": "
                "\"file\", \"path\": \"h_nan.f32\"}}}", "initial.surface.path",
                "height 13 (i = 1, j = 1) is NaN");
    for (size_t q = 0; q < n2; q++)
        v[q] = 40.0f;
    write_floats("h_far.f32", v, n2);
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"surface\": {\"type\": "
                "\"file\", \"path\": \"h_far.f32\"}}}", "initial.surface.path",
                "does not meet the grid");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"surface\": {\"type\": "
                "\"file\", \"path\": \"missing.f32\"}}}", "initial.surface.path", "");
    /* initial times: wrong size, NaN, -inf, nothing finite */
    for (size_t q = 0; q < n3; q++)
        v[q] = INFINITY;
    write_floats("t_inf.f32", v, n3);
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"volume\": {\"path\": "
                "\"t_inf.f32\", \"format\": \"raw-f32\"}}}", "initial.volume.path",
                "no finite time");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"volume\": {\"path\": "
                "\"t_inf.f32\"}}}", "initial.volume.path", "does not match the grid");
    v[300] = NAN;
    write_floats("t_nan.f32", v, n3);
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"volume\": {\"path\": "
                "\"t_nan.f32\", \"format\": \"raw-f32\"}}}", "initial.volume.path",
                "sample 300 (i = 0, j = 5, k = 2) is NaN");
    v[300] = -INFINITY;
    write_floats("t_minf.f32", v, n3);
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"volume\": {\"path\": "
                "\"t_minf.f32\", \"format\": \"raw-f32\"}}}", "initial.volume.path", "-inf");
    free(v);
}
END_TEST

START_TEST(other_errors)
{
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, " POINT ", \"sweeps\": 0}", "sweeps", "");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, " POINT ", \"sweeps\": \"often\"}",
                "sweeps", "");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, " POINT ", \"sweeps\": 8, "
                "\"tolerance\": 1e-9}", "tolerance", "applies to");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, " POINT ", \"tolerance\": -1}",
                "tolerance", "at least 0");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, " POINT ", \"order\": 4}", "order",
                "order 2 only");
    expect_fail("{\"kind\": \"sweep\", \"grid\": {\"nx\": 12, \"ny\": 3, \"nz\": 8, \"dx\": 1, "
                "\"dy\": 1, \"dz\": 1}, \"devices\": 4, \"F\": 2, \"initial\": {\"points\": "
                "[{\"position\": [1, 1, 1]}]}}", "devices", "split the grid along y");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, " POINT ", \"output\": {\"slices\": "
                "[{\"plane\": \"xz\", \"index\": 10}]}}", "output.slices[0].index", "");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, " POINT ", \"output\": {\"volume\": "
                "\"f16\"}}", "output.volume", "");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, " POINT ", \"output\": "
                "{\"isochron_interval\": 0}}", "output.isochron_interval", "must be > 0");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, " POINT ", \"sources\": []}", "sources",
                "does not apply");
}
END_TEST

/* Scales the update's arithmetic cannot hold are refused (before: F = 1e-100 left the
 * triangles' constants NaN and T came from vertices and segments alone; spacing 1e-300
 * gave negative times; a t0 past float32's range left T unreached), and large vectors are
 * measured without overflow. */
START_TEST(scale_errors)
{
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 1e-100, " POINT "}", "F",
                "overflow or underflow in float64");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 1e100, " POINT "}", "F",
                "overflow or underflow in float64");
    expect_fail("{\"kind\": \"sweep\", \"grid\": {\"nx\": 12, \"ny\": 10, \"nz\": 8, "
                "\"dx\": 1e-300, \"dy\": 1e-300, \"dz\": 1e-300}, \"F\": 2, \"initial\": "
                "{\"points\": [{\"position\": [5e-300, 5e-300, 4e-300]}]}}", "F",
                "the squared cell sizes");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"velocity\": {\"type\": \"constant\", "
                "\"value\": 1e-300}, " POINT "}", "velocity", "squared slownesses");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"precision\": \"float32\", "
                "\"initial\": {\"points\": [{\"position\": [5, 5, 4], \"t0\": 3.5e38}]}}",
                "initial.points[0].t0", "leaves the range of float32");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"precision\": \"float32\", "
                "\"initial\": {\"points\": [{\"position\": [5, 5, 4]}], \"planes\": [{\"point\": "
                "[1, 1, 1], \"normal\": [0, 0, 1], \"t0\": -3.5e38}]}}", "initial.planes[0].t0",
                "leaves the range");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"surface\": "
                "{\"type\": \"sinusoid\", \"z0\": 3, \"amplitude\": [1, 1], \"wavelength\": "
                "[1e-300, 4]}}}", "initial.surface.wavelength[0]", "less than two grid spacings");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"surface\": "
                "{\"type\": \"sinusoid\", \"z0\": 3, \"amplitude\": [1e308, 1e308], "
                "\"wavelength\": [4, 4]}}}", "initial.surface", "too large or too small");
    /* float64 T written as T.f32 or in float32 snapshots: -1e300 became -inf there */
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"points\": "
                "[{\"position\": [5, 5, 4], \"t0\": -1e300}]}, \"output\": {\"volume\": "
                "\"f32\"}}", "initial.points[0].t0", "output.volume \"f32\" and snapshots");
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"points\": "
                "[{\"position\": [5, 5, 4], \"t0\": -1e300}]}, \"snapshots\": {\"every\": 1, "
                "\"slices\": [{\"plane\": \"xy\", \"index\": 2}]}}", "initial.points[0].t0",
                "leaves the range of float32");
    double *t = malloc(12 * 10 * 8 * sizeof *t);
    ck_assert_ptr_nonnull(t);
    for (int q = 0; q < 12 * 10 * 8; q++)
        t[q] = q == 5 ? 1e300 : INFINITY;
    sw_write_file(g_dir, "t_big.f64", t, 12 * 10 * 8 * sizeof *t);
    free(t);
    expect_fail("{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"precision\": \"float32\", "
                "\"initial\": {\"volume\": {\"path\": \"t_big.f64\"}}}", "initial.volume.path",
                "leaves the range of float32");
    /* accepted: |psi a| = 1 < F with |a| = 1e300, a plane normal of length 1.4e308, F = 1e-30
     * in float32 (its constants, normalised by F, stay in range), t0 = -1e300 in float64
     * written as float64 */
    const char *ok[] = {
        "{\"kind\": \"sweep\", " GRID ", \"F\": 1.1, \"psi\": 1e-300, \"a\": [1e300, 0, 0], "
        POINT "}",
        "{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"planes\": [{\"point\": "
        "[1, 1, 1], \"normal\": [1e308, 1e308, 0]}]}}",
        "{\"kind\": \"sweep\", " GRID ", \"F\": 1e-30, \"precision\": \"float32\", " POINT "}",
        "{\"kind\": \"sweep\", " GRID ", \"F\": 2, \"initial\": {\"points\": [{\"position\": "
        "[5, 5, 4], \"t0\": -1e300}]}}",
    };
    for (int i = 0; i < 4; i++) {
        fdw_spec *sp = NULL;
        fdw_error err;
        ck_assert_msg(fdw_spec_parse(ok[i], strlen(ok[i]), NULL, &sp, &err) == FDW_OK,
                      "%s: %s: %s", ok[i], err.field, err.message);
        fdw_spec_free(sp);
    }
}
END_TEST

/* Defaults, the normalised form and its round trip. */
START_TEST(normalised)
{
    const char *json = "{\"kind\": \"sweep\", " GRID ", \"F\": 2, " POINT "}";
    fdw_spec *s = NULL, *t = NULL;
    fdw_error err;
    ck_assert_int_eq(fdw_spec_parse(json, strlen(json), NULL, &s, &err), FDW_OK);
    char *norm = fdw_spec_to_json(s);
    ck_assert_ptr_nonnull(norm);
    ck_assert_ptr_nonnull(strstr(norm, "\"sweeps\":\"auto\""));
    ck_assert_ptr_nonnull(strstr(norm, "\"max_sweeps\":100"));
    ck_assert_ptr_nonnull(strstr(norm, "\"precision\":\"float64\""));
    ck_assert_ptr_nonnull(strstr(norm, "\"volume\":\"f64\""));
    ck_assert_int_eq(fdw_spec_steps(s), 100);
    ck_assert_int_eq(fdw_spec_parse(norm, strlen(norm), NULL, &t, &err), FDW_OK);
    char *again = fdw_spec_to_json(t);
    ck_assert_str_eq(norm, again);
    ck_assert_uint_gt(fdw_spec_device_bytes(s), (uint64_t)12 * 10 * 8 * 8 * 2);
    free(norm);
    free(again);
    fdw_spec_free(s);
    fdw_spec_free(t);
}
END_TEST

START_TEST(example_fold)
{
    fdw_spec *s = NULL;
    fdw_error err;
    const fdw_status st = fdw_spec_load(FDW_SOURCE_DIR "/examples/fold.json", NULL, &s, &err);
    ck_assert_msg(st == FDW_OK, "%s: %s", err.field, err.message);
    ck_assert_str_eq(fdw_spec_kind(s), "sweep");
    fdw_spec_free(s);
}
END_TEST

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/fdw_sweep_spec_XXXXXX");
    if (!mkdtemp(g_dir))
        return EXIT_FAILURE;
    Suite *s = suite_create("sweep_spec");
    TCase *tc = tcase_create("spec");
    tcase_add_test(tc, hamiltonian_errors);
    tcase_add_test(tc, gamma0_errors);
    tcase_add_test(tc, file_errors);
    tcase_add_test(tc, other_errors);
    tcase_add_test(tc, scale_errors);
    tcase_add_test(tc, normalised);
    tcase_add_test(tc, example_fold);
    suite_add_tcase(s, tc);
    const int rc = sw_run_suite(s);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_dir);
    return rc;
}
