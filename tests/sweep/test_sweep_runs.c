/* test_sweep_runs.c — the sweep kind's runs on the CPU engine (issue 20): "sweeps": "auto"
 * converges and more sweeps change nothing; N virtual devices (two partitionings, halos,
 * shuffles) give T bit for bit equal to one device, in float64 and float32, for a constant
 * metric, an F field and a folded surface; exact skipping gives the bits of computing
 * every point; the outputs, the manifest's convergence record and the progress reports. */
#include "sweep_util.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The seed's metric on an uneven grid, point source off the centre, n devices. */
static void seed_spec(char *json, size_t len, const char *precision, int devices,
                      const char *sweeps)
{
    snprintf(json, len,
             "{\"kind\": \"sweep\", \"grid\": {\"nx\": 29, \"ny\": 31, \"nz\": 27, \"dx\": 0.35, "
             "\"dy\": 0.33, \"dz\": 0.37}, \"devices\": %d, \"precision\": \"%s\", \"F\": 1.1, "
             "\"psi\": 1.0, \"a\": [-0.34, 0.4, 0.7], \"initial\": {\"points\": [{\"position\": "
             "[3.1, 6.2, 5.05], \"t0\": 0.5}, {\"position\": [8.0, 1.0, 2.0]}]}, \"sweeps\": %s, "
             "\"output\": {\"volume\": \"f64\", \"slices\": []}}",
             devices, precision, sweeps);
}

START_TEST(auto_converges)
{
    char json[1024];
    seed_spec(json, sizeof json, "float64", 1, "\"auto\"");
    sw_run a;
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &a);
    ck_assert(a.converged);
    ck_assert_int_ge(a.sweeps, 2);
    ck_assert_int_lt(a.sweeps, 10);
    ck_assert_int_eq(a.changed[a.sweeps - 1], 0);
    ck_assert_int_gt(a.changed[0], 0);
    /* one report per sweep, each with the sweep's change; the last changed nothing */
    ck_assert_int_ge(a.progress_calls, a.sweeps);
    ck_assert(a.last_change == 0.0);
    char more[32];
    snprintf(more, sizeof more, "%ld", a.sweeps + 3);
    seed_spec(json, sizeof json, "float64", 1, more);
    sw_run b;
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &b);
    ck_assert_int_eq(b.sweeps, a.sweeps + 3);
    ck_assert_msg(sw_same_bits(&a, &b), "sweeps after convergence changed T");
    for (long s = a.sweeps - 1; s < b.sweeps; s++)
        ck_assert_int_eq(b.changed[s], 0);
    printf("auto: converged after %ld sweeps; %ld more change nothing\n", a.sweeps, 3L);
    sw_run_free(&a);
    sw_run_free(&b);
}
END_TEST

/* A maze: a slow wall (F = 0.02) across the grid with a hole in one corner, the source
 * below it. The first arrivals above the wall go through the hole and turn back, which
 * takes several sweeps. A tolerance stops at the first sweep whose changes of known values
 * stay within it (and reaches no new value); max_sweeps caps a run, which then says it
 * did not converge. */
static const char *maze_spec(const char *dir, char *json, size_t len, const char *stop)
{
    enum { N = 25 };
    static float v[N * N * N];
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                v[i + N * (j + N * k)] = k >= 11 && k <= 13 && !(i >= 20 && j >= 20) ? 0.02f : 1.0f;
    const char *path = sw_write_file(dir, "maze.f32", v, sizeof v);
    snprintf(json, len,
             "{\"kind\": \"sweep\", \"grid\": {\"nx\": 25, \"ny\": 25, \"nz\": 25, \"dx\": 0.4, "
             "\"dy\": 0.4, \"dz\": 0.4}, \"velocity\": {\"type\": \"file\", \"format\": "
             "\"raw-f32\", \"path\": \"%s\"}, \"initial\": {\"points\": [{\"position\": [1, 1, "
             "1]}]}, \"sweeps\": \"auto\", %s, \"output\": {\"volume\": \"f64\", \"slices\": []}}",
             path, stop);
    return path;
}

START_TEST(auto_tolerance_and_cap)
{
    char dir[] = "/tmp/fdw_sweep_maze_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char json[1024];
    sw_run exact, loose, capped;
    maze_spec(dir, json, sizeof json, "\"tolerance\": 0");
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &exact);
    maze_spec(dir, json, sizeof json, "\"tolerance\": 0.05");
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &loose);
    maze_spec(dir, json, sizeof json, "\"max_sweeps\": 2");
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &capped);
    long first = -1; /* the first sweep of the exact run within the tolerance */
    for (long s = 0; s < exact.sweeps && first < 0; s++)
        if (exact.reached[s] == 0 && exact.max_change[s] <= 0.05)
            first = s + 1;
    printf("maze: exact convergence in %ld sweeps, tolerance 0.05 in %ld (changes per sweep:",
           exact.sweeps, loose.sweeps);
    for (long s = 0; s < exact.sweeps; s++)
        printf(" %.2e", exact.max_change[s]);
    printf(")\n");
    ck_assert(exact.converged && loose.converged);
    ck_assert_int_ge(exact.sweeps, 4);
    ck_assert_int_eq(loose.sweeps, first);
    ck_assert_int_lt(loose.sweeps, exact.sweeps);
    ck_assert_int_eq(capped.sweeps, 2);
    ck_assert(!capped.converged);
    sw_run_free(&exact);
    sw_run_free(&loose);
    sw_run_free(&capped);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(devices_bit_identical)
{
    static const char *const precisions[2] = {"float64", "float32"};
    static const int counts[3] = {2, 3, 5};
    for (int p = 0; p < 2; p++) {
        char json[1024];
        seed_spec(json, sizeof json, precisions[p], 1, "4");
        sw_run one;
        sw_run_spec(json, FDW_BACKEND_CPU, NULL, &one);
        for (int q = 0; q < 3; q++) {
            seed_spec(json, sizeof json, precisions[p], counts[q], "4");
            sw_run many;
            sw_run_spec(json, FDW_BACKEND_CPU, NULL, &many);
            ck_assert_msg(sw_same_bits(&one, &many), "%s: %d devices differ from one",
                          precisions[p], counts[q]);
            sw_run_free(&many);
        }
        sw_run_free(&one);
    }
}
END_TEST

/* An F field and a folded surface (the seed's Fig. 6 kind of Gamma0), 1 vs 4 devices. */
START_TEST(devices_field_and_surface)
{
    const char *fmt =
        "{\"kind\": \"sweep\", \"grid\": {\"nx\": 26, \"ny\": 22, \"nz\": 24, \"dx\": 0.4, "
        "\"dy\": 0.45, \"dz\": 0.42}, \"devices\": %d, %s, \"initial\": {\"surface\": "
        "{\"type\": \"sinusoid\", \"z0\": 4.5, \"amplitude\": [1.2, 0.8], \"wavelength\": [6, "
        "7.5], \"phase\": [0, 1]}}, \"sweeps\": 5, \"output\": {\"slices\": []}}";
    const char *metrics[2] = {"\"velocity\": {\"type\": \"gaussian\", \"background\": 2, "
                              "\"center\": [5, 5, 5], \"sigma\": 2, \"dv\": 1}",
                              "\"F\": 1.1, \"psi\": 1, \"a\": [-0.34, 0.4, 0.7]"};
    for (int m = 0; m < 2; m++) {
        char json[1024];
        sw_run one, four;
        snprintf(json, sizeof json, fmt, 1, metrics[m]);
        sw_run_spec(json, FDW_BACKEND_CPU, NULL, &one);
        snprintf(json, sizeof json, fmt, 4, metrics[m]);
        sw_run_spec(json, FDW_BACKEND_CPU, NULL, &four);
        ck_assert_msg(sw_same_bits(&one, &four), "metric %d: 4 devices differ from one", m);
        sw_run_free(&one);
        sw_run_free(&four);
    }
}
END_TEST

/* A height file whose heights alternate between -1e30 and +1e30 m: the edge columns'
 * one-sided slopes make tangent planes that are nearly vertical and reach far outside the
 * grid (their node range is clamped before it becomes an int; the conversion overflowed
 * before); the run gives every node a finite, non-negative time. */
START_TEST(surface_file_steep)
{
    enum { NX = 12, NY = 10 };
    static float hgt[NX * NY];
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            hgt[i + NX * j] = (i + j) % 2 ? 1e30f : -1e30f;
    char dir[] = "/tmp/fdw_sweep_steep_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *path = sw_write_file(dir, "steep.f32", hgt, sizeof hgt);
    char json[1024];
    snprintf(json, sizeof json,
             "{\"kind\": \"sweep\", \"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": 8, \"dx\": 1, "
             "\"dy\": 1, \"dz\": 1}, \"F\": 2, \"initial\": {\"surface\": {\"type\": "
             "\"file\", \"path\": \"%s\"}}, \"sweeps\": 2, \"output\": {\"slices\": []}}",
             NX, NY, path);
    sw_run r;
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &r);
    for (int q = 0; q < NX * NY * 8; q++)
        ck_assert_msg(r.T[q] >= 0.0 && isfinite(r.T[q]), "T[%d] = %g", q, r.T[q]);
    sw_run_free(&r);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(skipping_is_exact)
{
    fdw_tuning full;
    memset(&full, 0, sizeof full);
    full.sweep_full = 1;
    static const char *const precisions[2] = {"float64", "float32"};
    for (int p = 0; p < 2; p++) {
        char json[1024];
        seed_spec(json, sizeof json, precisions[p], 3, "5");
        sw_run skip, all;
        sw_run_spec(json, FDW_BACKEND_CPU, NULL, &skip);
        sw_run_spec(json, FDW_BACKEND_CPU, &full, &all);
        ck_assert_msg(sw_same_bits(&skip, &all), "%s: skipping changed T", precisions[p]);
        const long long every = 6LL * 29 * 31 * 27;
        long long skipped = 0;
        for (int s = 0; s < 5; s++) {
            ck_assert_int_le(skip.computed[s], all.computed[s]);
            ck_assert_int_eq(skip.changed[s], all.changed[s]);
            skipped += all.computed[s] - skip.computed[s];
        }
        /* every point but those of the sweep's first plane is computed without skipping */
        ck_assert_int_lt(all.computed[0], every);
        ck_assert_int_gt(all.computed[0], every * 9 / 10);
        ck_assert_msg(skipped > 2 * every, "%s: only %lld of 5 sweeps' updates skipped",
                      precisions[p], skipped);
        printf("%s: %lld point updates skipped of %lld\n", precisions[p], skipped, 5 * every);
        sw_run_free(&skip);
        sw_run_free(&all);
    }
}
END_TEST

START_TEST(float32_close_to_float64)
{
    char json[1024];
    sw_run d, f;
    seed_spec(json, sizeof json, "float64", 1, "4");
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &d);
    seed_spec(json, sizeof json, "float32", 1, "4");
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &f);
    double worst = 0.0;
    for (size_t q = 0; q < (size_t)29 * 31 * 27; q++) {
        const double e = fabs(d.T[q] - f.T[q]) / fmax(d.T[q], 1.0);
        worst = e > worst || e != e ? e : worst;
    }
    printf("float32 vs float64: largest relative difference %.2e\n", worst);
    ck_assert(worst < 1e-5);
    sw_run_free(&d);
    sw_run_free(&f);
}
END_TEST

static json_t *load_manifest(const char *dir)
{
    char path[300];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_error_t je;
    json_t *m = json_load_file(path, 0, &je);
    ck_assert_msg(m != NULL, "%s", je.text);
    return m;
}

static long file_size(const char *dir, const char *name)
{
    char path[300];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* float32 settles like float64: the seed's cube at 384^3 (the size where, before the update
 * kept an old value against decreases below 16 float epsilons of it, 25,832 far points
 * still fell by a few ulps in the second sweep, so the skipping could not stop them) is
 * converged after one sweep: the second changes nothing. */
START_TEST(float32_settles)
{
    const int n = 384;
    const double h = 10.0 / (n - 1);
    char json[1024];
    snprintf(json, sizeof json,
             "{\"kind\": \"sweep\", \"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": %.17g, "
             "\"dy\": %.17g, \"dz\": %.17g}, \"precision\": \"float32\", \"F\": 1.1, \"psi\": 1.0, "
             "\"a\": [-0.34, 0.4, 0.7], \"initial\": {\"points\": [{\"position\": [5, 5, 5]}]}, "
             "\"sweeps\": 2, \"output\": {\"volume\": \"none\", \"slices\": []}}",
             n, n, n, h, h, h);
    sw_run r;
    sw_run_spec(json, FDW_BACKEND_CPU, NULL, &r);
    ck_assert_int_eq(r.sweeps, 2);
    const long long c1 = r.changed[0], c2 = r.changed[1];
    printf("float32 at %d^3: sweep 1 changed %lld values, sweep 2 %lld\n", n, c1, c2);
    ck_assert_int_gt(c1, 0);
    ck_assert_int_eq(c2, 0);
    sw_run_free(&r);
}
END_TEST

/* The outputs: T in float32, the slice images (PNG), snapshots, the manifest's entries. */
START_TEST(outputs_and_manifest)
{
    const char *json =
        "{\"kind\": \"sweep\", \"grid\": {\"nx\": 24, \"ny\": 20, \"nz\": 22, \"dx\": 0.5, "
        "\"dy\": 0.5, \"dz\": 0.5}, \"F\": 1.1, \"psi\": 1, \"a\": [-0.34, 0.4, 0.7], "
        "\"initial\": {\"surface\": {\"type\": \"sinusoid\", \"z0\": 5, \"amplitude\": [1, 0], "
        "\"wavelength\": [8, 0]}, \"points\": [{\"position\": [2, 2, 9]}]}, \"sweeps\": 3, "
        "\"snapshots\": {\"every\": 1, \"slices\": [{\"plane\": \"xz\", \"index\": 10}]}, "
        "\"output\": {\"volume\": \"f32\", \"slices\": [{\"plane\": \"xz\", \"index\": 10}, "
        "{\"plane\": \"xy\", \"index\": 3}], \"isochrons\": 8}}";
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_int_eq(fdw_spec_parse(json, strlen(json), NULL, &spec, &err), FDW_OK);
    char dir[] = "/tmp/fdw_sweep_out_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    fdw_run_opts o;
    memset(&o, 0, sizeof o);
    o.out_dir = dir;
    o.backend = FDW_BACKEND_CPU;
    fdw_result res;
    ck_assert_int_eq(fdw_run(spec, &o, NULL, &res, &err), FDW_OK);
    fdw_spec_free(spec);
    ck_assert_int_eq(file_size(dir, "T.f32"), 24L * 20 * 22 * 4);
    ck_assert_int_eq(file_size(dir, "T.f64"), -1);
    ck_assert_int_gt(file_size(dir, "T_xz_j10.png"), 100);
    ck_assert_int_gt(file_size(dir, "T_xy_k3.png"), 100);
    ck_assert_int_gt(file_size(dir, "snap_000001_xz_j10.png"), 100);
    ck_assert_int_eq(file_size(dir, "snap_000003_xz_j10.f32"), 24L * 22 * 4);
    json_t *m = load_manifest(dir);
    json_t *result = json_object_get(m, "result");
    ck_assert_int_eq(json_integer_value(json_object_get(result, "sweeps")), 3);
    ck_assert(json_number_value(json_object_get(result, "t_max")) > 1.0);
    ck_assert_int_eq(json_integer_value(json_object_get(result, "unreached")), 0);
    json_t *conv = json_object_get(m, "convergence");
    ck_assert_int_eq(json_array_size(json_object_get(conv, "per_sweep")), 3);
    int have_png = 0, have_t = 0;
    json_t *files = json_object_get(m, "files");
    for (size_t i = 0; i < json_array_size(files); i++) {
        const char *name = json_string_value(json_object_get(json_array_get(files, i), "name"));
        have_png += name && strcmp(name, "T_xz_j10.png") == 0;
        have_t += name && strcmp(name, "T.f32") == 0;
    }
    ck_assert_int_eq(have_png, 1);
    ck_assert_int_eq(have_t, 1);
    json_decref(m);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sweep_runs");
    TCase *tc = tcase_create("runs");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, auto_converges);
    tcase_add_test(tc, auto_tolerance_and_cap);
    tcase_add_test(tc, devices_bit_identical);
    tcase_add_test(tc, devices_field_and_surface);
    tcase_add_test(tc, surface_file_steep);
    tcase_add_test(tc, skipping_is_exact);
    tcase_add_test(tc, float32_close_to_float64);
    tcase_add_test(tc, float32_settles);
    tcase_add_test(tc, outputs_and_manifest);
    suite_add_tcase(s, tc);
    return sw_run_suite(s);
}
