/* img_check.c — the imaging tests' shared helpers (img_check.h). */
#include "img_check.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void img_write_f32(const char *path, const float *v, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(v, sizeof *v, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

float *img_read_f32(const char *path, size_t n)
{
    float *v = malloc(n * sizeof *v);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f && v && fread(v, sizeof *v, n, f) == n, "reading %zu values of %s", n, path);
    ck_assert_msg(fgetc(f) == EOF, "%s holds more than %zu values", path, n);
    fclose(f);
    return v;
}

void img_refused(const char *json, const char *field, const char *needle)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    const fdw_status st = fdw_spec_parse(json, strlen(json), NULL, &spec, &err);
    ck_assert_msg(st == FDW_ERR_SPEC, "accepted: %s", json);
    ck_assert_msg(strcmp(err.field, field) == 0 && strstr(err.message, needle),
                  "field %s (want %s): %s", err.field, field, err.message);
}

fdw_result img_run(const char *dir, const char *out, const char *fmt, ...)
{
    char json[8192], path[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(json, sizeof json, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s/%s", dir, out);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s: %s",
                  out, err.field, err.message);
    fdw_run_opts o = {.out_dir = path, .backend = FDW_BACKEND_CPU};
    fdw_result res;
    ck_assert_msg(fdw_run(spec, &o, NULL, &res, &err) == FDW_OK, "%s: %s", out, err.message);
    fdw_spec_free(spec);
    return res;
}

double img_misfit(const char *dir, const char *out)
{
    char path[200];
    snprintf(path, sizeof path, "%s/%s/manifest.json", dir, out);
    json_t *m = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(m);
    const double j = json_number_value(json_object_get(json_object_get(m, "result"), "misfit"));
    json_decref(m);
    return j;
}

void img_times(const char *dir, const char *out, double t[4])
{
    char path[200];
    snprintf(path, sizeof path, "%s/%s/manifest.json", dir, out);
    json_t *m = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(m);
    const json_t *r = json_object_get(m, "result"), *ts = json_object_get(r, "time_s");
    ck_assert_msg(json_is_object(ts), "%s: no result.time_s", path);
    const char *const key[3] = {"forward", "backward", "image"};
    for (int q = 0; q < 3; q++) {
        const json_t *v = json_object_get(ts, key[q]);
        ck_assert_msg(json_is_number(v), "%s: no result.time_s.%s", path, key[q]);
        t[q] = json_number_value(v);
    }
    t[3] = json_number_value(json_object_get(r, "elapsed_s"));
    json_decref(m);
}

double img_normal(unsigned *state)
{
    double u[2];
    for (int q = 0; q < 2; q++) {
        unsigned x = (*state += 0x9E3779B9u);
        x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
        u[q] = (x + 0.5) / 4294967296.0;
    }
    return sqrt(-2.0 * log(u[0])) * cos(2.0 * M_PI * u[1]);
}

double img_dot(const float *a, const float *b, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

int img_check_main(char *dir, const char *suite, double timeout, void (*add)(TCase *tc))
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!mkdtemp(dir))
        return 1;
    Suite *s = suite_create(suite);
    TCase *tc = tcase_create("cpu");
    tcase_set_timeout(tc, timeout);
    add(tc);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return failed ? 1 : 0;
}
