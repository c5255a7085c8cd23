/* img_check.c — the imaging tests' shared helpers (img_check.h). */
#include "img_check.h"

#include "fdwave/fdwave.h"

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
