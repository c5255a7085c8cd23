/* sweep_util.c — the sweep tests' helpers (sweep_util.h): runs through the public API into
 * temporary directories, T read back, the manifest's convergence record, error figures. */
#include "sweep_util.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int on_progress(void *user, const fdw_progress *p)
{
    sw_run *r = user;
    if (p->has_change) {
        r->progress_calls++;
        r->last_change = p->change;
    }
    return 0;
}

static void read_manifest(sw_run *r)
{
    char path[300];
    snprintf(path, sizeof path, "%s/manifest.json", r->dir);
    json_error_t je;
    json_t *m = json_load_file(path, 0, &je);
    ck_assert_msg(m != NULL, "manifest: %s", je.text);
    json_t *c = json_object_get(m, "convergence");
    ck_assert_msg(c != NULL, "the manifest has no convergence record");
    r->converged = json_is_true(json_object_get(c, "converged"));
    json_t *per = json_object_get(c, "per_sweep");
    for (size_t i = 0; i < json_array_size(per) && i < 128; i++) {
        json_t *e = json_array_get(per, i);
        r->computed[i] = json_integer_value(json_object_get(e, "computed"));
        r->changed[i] = json_integer_value(json_object_get(e, "changed"));
        r->reached[i] = json_integer_value(json_object_get(e, "reached"));
        r->max_change[i] = json_number_value(json_object_get(e, "max_change"));
    }
    json_decref(m);
}

void sw_run_spec(const char *json, fdw_backend_kind be, const fdw_tuning *tuning, sw_run *out)
{
    sw_run_spec_on(json, be, tuning, NULL, 0, out);
}

void sw_run_spec_on(const char *json, fdw_backend_kind be, const fdw_tuning *tuning,
                    const int *ids, int nids, sw_run *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->dir, sizeof out->dir, "/tmp/fdw_sweep_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(out->dir));
    fdw_spec *spec = NULL;
    fdw_error err;
    fdw_status st = fdw_spec_parse(json, strlen(json), NULL, &spec, &err);
    ck_assert_msg(st == FDW_OK, "parse: %s: %s", err.field, err.message);
    fdw_run_opts o;
    memset(&o, 0, sizeof o);
    o.out_dir = out->dir;
    o.backend = be;
    o.tuning = tuning;
    o.device_ids = ids;
    o.ndevice_ids = nids;
    fdw_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.progress = on_progress;
    cb.user = out;
    cb.progress_interval_s = 1e9; /* only the reports the kind asks for, and the last */
    st = fdw_run(spec, &o, &cb, &out->result, &err);
    ck_assert_msg(st == FDW_OK, "run: %s: %s", err.field, err.message);
    json_error_t je;
    json_t *root = json_loads(json, 0, &je);
    json_t *g = json_object_get(root, "grid");
    out->nx = (int)json_integer_value(json_object_get(g, "nx"));
    out->ny = (int)json_integer_value(json_object_get(g, "ny"));
    out->nz = (int)json_integer_value(json_object_get(g, "nz"));
    const char *vol = json_string_value(
        json_object_get(json_object_get(root, "output"), "volume"));
    const int no_volume = vol && strcmp(vol, "none") == 0;
    json_decref(root);
    fdw_spec_free(spec);
    out->sweeps = out->result.steps_done;
    read_manifest(out);
    if (no_volume)
        return; /* T stays NULL */
    const size_t n = (size_t)out->nx * out->ny * out->nz;
    char path[300];
    snprintf(path, sizeof path, "%s/T.f64", out->dir);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no T.f64 in %s", out->dir);
    out->T = malloc(n * sizeof(double));
    ck_assert_ptr_nonnull(out->T);
    ck_assert_uint_eq(fread(out->T, sizeof(double), n, f), n);
    fclose(f);
}

void sw_run_free(sw_run *r)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
    if (r->dir[0] && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", r->dir);
    free(r->T);
    r->T = NULL;
}

fdw_status sw_parse_fails(const char *json, const char *base_dir, fdw_error *err)
{
    fdw_spec *spec = NULL;
    fdw_parse_opts o;
    memset(&o, 0, sizeof o);
    o.base_dir = base_dir;
    fdw_status st = fdw_spec_parse(json, strlen(json), &o, &spec, err);
    fdw_spec_free(spec);
    return st;
}

double sw_randers(double F, const double b[3], const double d[3])
{
    const double al = F * F - (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    const double bd = b[0] * d[0] + b[1] * d[1] + b[2] * d[2];
    const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    return (sqrt(al * dd + bd * bd) - bd) / al;
}

void sw_error(const double *T, const double *ref, const unsigned char *mask, size_t n,
              double *max, double *mean)
{
    double mx = 0.0, sum = 0.0;
    size_t cnt = 0;
    for (size_t q = 0; q < n; q++) {
        if (mask && !mask[q])
            continue;
        double e = fabs(T[q] - ref[q]);
        if (e != e)
            e = INFINITY;
        mx = e > mx ? e : mx;
        sum += e;
        cnt++;
    }
    *max = mx;
    *mean = cnt ? sum / (double)cnt : 0.0;
}

int sw_same_bits(const sw_run *a, const sw_run *b)
{
    const size_t n = (size_t)a->nx * a->ny * a->nz;
    return a->nx == b->nx && a->ny == b->ny && a->nz == b->nz &&
           memcmp(a->T, b->T, n * sizeof(double)) == 0;
}

const char *sw_write_file(const char *dir, const char *name, const void *data, size_t n)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    fclose(f);
    return path;
}

int sw_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
