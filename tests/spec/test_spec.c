/* test_spec.c — job spec parsing: valid specs of every kind and receiver form give the
 * expected struct values and round-trip through fdw_spec_to_json; malformed specs are
 * rejected with FDW_ERR_SPEC, the exact JSON path of the bad field and a message; warnings
 * appear where they should. Files (models, wavelets) are made in a temporary directory. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fd_coeffs.h"
#include "spec/spec_parse.h"
#include "fdwave/fdwave.h"
#include "spec/spec.h"
#include "kinds/kind.h"
#include "kinds/derivative/derivative.h"
#include "kinds/stencil/stencil.h"

#ifndef FDW_SOURCE_DIR
#error "FDW_SOURCE_DIR must name the source tree"
#endif

static char tmpdir[256];     /* files the specs refer to */
static char outsidedir[256]; /* a second directory, not in the allowed list */

/* A small valid acoustic spec; malformed cases patch one member of it. */
static const char *BASE =
    "{\"kind\": \"acoustic\", \"name\": \"base\","
    " \"grid\": {\"nx\": 32, \"ny\": 32, \"nz\": 32, \"dx\": 10, \"dy\": 10, \"dz\": 10},"
    " \"order\": 8,"
    " \"velocity\": {\"type\": \"constant\", \"value\": 2000},"
    " \"time\": {\"nt\": 50, \"dt\": \"auto\"},"
    " \"sources\": [{\"position\": [155, 155, 155],"
    "               \"wavelet\": {\"type\": \"ricker\", \"f0\": 10}}],"
    " \"receivers\": {\"lines\": [{\"from\": [90, 155, 100], \"to\": [220, 155, 100],"
    "                            \"count\": 14}], \"interval\": 1},"
    " \"boundary\": {\"type\": \"sponge\", \"width\": 8},"
    " \"snapshots\": {\"every\": 10, \"slices\": [{\"plane\": \"xy\", \"index\": 16}]},"
    " \"devices\": 1}";

/* ---- helpers ---- */

static fdw_status parse_text(const char *text, const fdw_parse_opts *opts, fdw_spec **s,
                             fdw_error *err)
{
    return fdw_spec_parse(text, strlen(text), opts, s, err);
}

/* Walk "a.b[2].c" inside root; create objects on the way when create is set. Returns the
 * parent container and the last key (object) or index (array). */
static json_t *walk(json_t *root, const char *path, char *lastkey, long *lastidx)
{
    json_t *cur = root;
    const char *p = path;
    for (;;) {
        char key[64];
        size_t n = strcspn(p, ".[");
        memcpy(key, p, n);
        key[n] = '\0';
        p += n;
        if (n > 0) {
            if (*p == '\0') {
                strcpy(lastkey, key);
                *lastidx = -1;
                return cur;
            }
            cur = json_object_get(cur, key);
        }
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '[') {
            long i = strtol(p + 1, (char **)&p, 10);
            p++; /* ']' */
            if (*p == '\0') {
                lastkey[0] = '\0';
                *lastidx = i;
                return cur;
            }
            cur = json_array_get(cur, (size_t)i);
            if (*p == '.')
                p++;
        }
    }
}

/* BASE with member `path` set to the JSON text `value` (NULL: deleted). */
static char *patched(const char *base, const char *path, const char *value)
{
    json_t *root = json_loads(base, 0, NULL);
    ck_assert_ptr_nonnull(root);
    char key[64];
    long idx;
    json_t *parent = walk(root, path, key, &idx);
    ck_assert_ptr_nonnull(parent);
    json_t *v = value ? json_loads(value, JSON_DECODE_ANY, NULL) : NULL;
    if (value)
        ck_assert_msg(v != NULL, "bad test value %s", value);
    if (idx < 0) {
        if (v)
            json_object_set_new(parent, key, v);
        else
            json_object_del(parent, key);
    } else {
        if (v && (size_t)idx >= json_array_size(parent))
            json_array_append_new(parent, v);
        else if (v)
            json_array_set_new(parent, (size_t)idx, v);
        else
            json_array_remove(parent, (size_t)idx);
    }
    char *text = json_dumps(root, 0);
    json_decref(root);
    return text;
}

static fdw_spec *parse_ok(const char *text, const fdw_parse_opts *opts)
{
    fdw_spec *s = NULL;
    fdw_error err;
    fdw_status st = parse_text(text, opts, &s, &err);
    ck_assert_msg(st == FDW_OK, "expected a valid spec, got %s on '%s': %s",
                  fdw_status_name(st), err.field, err.message);
    ck_assert_ptr_nonnull(s);
    return s;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void write_floats(const char *path, long n, float value, long nan_at)
{
    float *v = malloc((size_t)n * sizeof *v);
    for (long i = 0; i < n; i++)
        v[i] = i == nan_at ? NAN : value + (float)(i % 7);
    write_file(path, v, (size_t)n * sizeof *v);
    free(v);
}

/* The kind's own members of a parsed spec. */
#define STN(s) ((const fdw_stencil_spec *)(s)->kspec)
#define DRV(s) ((const fdw_derivative_spec *)(s)->kspec)

/* Every value the engine reads from a spec, compared field by field. stencil_c_given is
 * left out on purpose: the normalised form always lists the coefficients in use. */
static void assert_same_spec(const fdw_spec *a, const fdw_spec *b)
{
    ck_assert_ptr_eq(a->kind, b->kind);
    ck_assert_str_eq(a->name, b->name);
    ck_assert_int_eq(a->nx, b->nx);
    ck_assert_int_eq(a->ny, b->ny);
    ck_assert_int_eq(a->nz, b->nz);
    ck_assert(a->dx == b->dx && a->dy == b->dy && a->dz == b->dz);
    for (int i = 0; i < 3; i++)
        ck_assert(a->origin[i] == b->origin[i]);
    ck_assert_int_eq(a->order, b->order);
    ck_assert_int_eq(a->nt, b->nt);
    ck_assert(a->dt == b->dt);
    ck_assert_int_eq(a->dt_auto, b->dt_auto);
    ck_assert(a->dt_safety == b->dt_safety);
    ck_assert(a->dt_max == b->dt_max);
    ck_assert_int_eq(a->velocity.type, b->velocity.type);
    ck_assert(a->velocity.v0 == b->velocity.v0);
    ck_assert_int_eq(a->velocity.nlayers, b->velocity.nlayers);
    for (int i = 0; i < a->velocity.nlayers; i++)
        ck_assert(a->velocity.layers[i].top == b->velocity.layers[i].top &&
                  a->velocity.layers[i].v == b->velocity.layers[i].v);
    for (int i = 0; i < 3; i++)
        ck_assert(a->velocity.center[i] == b->velocity.center[i]);
    ck_assert(a->velocity.sigma == b->velocity.sigma && a->velocity.dv == b->velocity.dv);
    ck_assert_int_eq(a->velocity.format, b->velocity.format);
    ck_assert_str_eq(a->velocity.path, b->velocity.path);
    ck_assert_str_eq(a->velocity.name, b->velocity.name);
    ck_assert(a->vmin == b->vmin && a->vmax == b->vmax);
    ck_assert_int_eq(a->nsources, b->nsources);
    for (int i = 0; i < a->nsources; i++) {
        const fdw_source *p = &a->sources[i], *q = &b->sources[i];
        for (int k = 0; k < 3; k++)
            ck_assert(p->pos[k] == q->pos[k]);
        ck_assert_int_eq(p->wavelet, q->wavelet);
        ck_assert(p->f0 == q->f0 && p->delay == q->delay && p->amplitude == q->amplitude);
        ck_assert_str_eq(p->path, q->path);
        ck_assert_int_eq(p->nsamples, q->nsamples);
        for (long k = 0; k < p->nsamples; k++)
            ck_assert(p->samples[k] == q->samples[k]);
    }
    ck_assert_int_eq(a->nreceivers, b->nreceivers);
    for (int i = 0; i < a->nreceivers; i++)
        for (int k = 0; k < 3; k++)
            ck_assert(a->receivers[i].pos[k] == b->receivers[i].pos[k]);
    ck_assert_int_eq(a->receiver_interval, b->receiver_interval);
    ck_assert_int_eq(a->boundary.type, b->boundary.type);
    for (int f = 0; f < 6; f++)
        ck_assert_int_eq(a->boundary.width[f], b->boundary.width[f]);
    ck_assert_int_eq(a->boundary.free_surface, b->boundary.free_surface);
    ck_assert(a->boundary.reflection == b->boundary.reflection);
    ck_assert(a->boundary.frequency == b->boundary.frequency);
    ck_assert_int_eq(a->snapshot_every, b->snapshot_every);
    ck_assert_int_eq(a->nslices, b->nslices);
    for (int i = 0; i < a->nslices; i++)
        ck_assert(a->slices[i].plane == b->slices[i].plane &&
                  a->slices[i].index == b->slices[i].index);
    ck_assert_int_eq(a->snapshot_png, b->snapshot_png);
    ck_assert_int_eq(a->snapshot_raw, b->snapshot_raw);
    ck_assert_int_eq(a->ndevices, b->ndevices);
    ck_assert_int_eq(a->device_ids_given, b->device_ids_given);
    for (int i = 0; i < a->ndevices; i++)
        ck_assert_int_eq(a->device_ids[i], b->device_ids[i]);
    ck_assert_int_eq(a->radius, b->radius);
    ck_assert_int_eq(a->plan.ndev, b->plan.ndev);
    for (int d = 0; d < a->plan.ndev; d++)
        ck_assert(a->plan.z0[d] == b->plan.z0[d] && a->plan.nz[d] == b->plan.nz[d]);
    if (strcmp(a->kind->name, "stencil") == 0) {
        const fdw_stencil_spec *ka = a->kspec, *kb = b->kspec;
        for (int i = 0; i <= a->radius; i++)
            ck_assert(ka->c[i] == kb->c[i]);
        ck_assert_int_eq(ka->seed, kb->seed);
    }
    if (strcmp(a->kind->name, "derivative") == 0) {
        const fdw_derivative_spec *ka = a->kspec, *kb = b->kspec;
        ck_assert_int_eq(ka->axis, kb->axis);
        for (int i = 0; i < 3; i++)
            ck_assert_int_eq(ka->periods[i], kb->periods[i]);
    }
    ck_assert_int_eq(a->nwarnings, b->nwarnings);
}

/* parse(to_json(s)) gives the same values; the normalised JSON is stable. */
static void assert_round_trip(const fdw_spec *s, const fdw_parse_opts *opts)
{
    char *j1 = fdw_spec_to_json(s);
    ck_assert_ptr_nonnull(j1);
    fdw_spec *t = parse_ok(j1, opts);
    assert_same_spec(s, t);
    char *j2 = fdw_spec_to_json(t);
    ck_assert_str_eq(j1, j2);
    free(j1);
    free(j2);
    fdw_spec_free(t);
}

static int has_warning(const fdw_spec *s, const char *needle)
{
    for (int i = 0; i < fdw_spec_warning_count(s); i++)
        if (strstr(fdw_spec_warning(s, i), needle))
            return 1;
    return 0;
}

/* ---- valid specs ---- */

START_TEST(example_homogeneous)
{
    /* Expectations come from the example file itself (read with jansson), so the example
     * may be edited; what is checked is how the engine expands and completes it. */
    const char *path = FDW_SOURCE_DIR "/examples/homogeneous.json";
    json_t *ex = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(ex);
    json_t *g = json_object_get(ex, "grid");
    int nx = (int)json_integer_value(json_object_get(g, "nx"));
    int ny = (int)json_integer_value(json_object_get(g, "ny"));
    int nz = (int)json_integer_value(json_object_get(g, "nz"));
    double h = json_number_value(json_object_get(g, "dx"));
    long nt = (long)json_integer_value(json_object_get(json_object_get(ex, "time"), "nt"));
    double v = json_number_value(json_object_get(json_object_get(ex, "velocity"), "value"));
    json_t *src = json_array_get(json_object_get(ex, "sources"), 0);
    double f0 = json_number_value(json_object_get(json_object_get(src, "wavelet"), "f0"));
    json_t *line = json_array_get(json_object_get(json_object_get(ex, "receivers"), "lines"), 0);
    int count = (int)json_integer_value(json_object_get(line, "count"));
    json_t *from = json_object_get(line, "from"), *to = json_object_get(line, "to");
    int width = (int)json_integer_value(json_object_get(json_object_get(ex, "boundary"), "width"));
    int nslices = (int)json_array_size(json_object_get(json_object_get(ex, "snapshots"), "slices"));

    fdw_spec *s = NULL;
    fdw_error err;
    fdw_status st = fdw_spec_load(path, NULL, &s, &err);
    ck_assert_msg(st == FDW_OK, "%s: %s", err.field, err.message);
    ck_assert_str_eq(fdw_spec_kind(s), "acoustic");
    ck_assert_uint_eq(fdw_spec_points(s), (uint64_t)nx * ny * nz);
    ck_assert_int_eq(fdw_spec_steps(s), nt);
    ck_assert_int_eq(fdw_spec_devices(s), 1);
    ck_assert_int_eq(s->order, 8);
    ck_assert_int_eq(s->dt_auto, 1);
    double dtmax = fdw_dt_max(8, h, h, h, v);
    ck_assert_double_eq_tol(s->dt_max, dtmax, 1e-18);
    /* 0.8 dt_max lowered to a whole number of microseconds (the gather's interval) */
    ck_assert_double_eq_tol(fdw_spec_dt(s), floor(0.8 * dtmax * 1e6) * 1e-6, 1e-18);
    ck_assert(s->vmin == v && s->vmax == v);
    ck_assert_int_eq(s->nsources, 1);
    ck_assert(s->sources[0].f0 == f0 && s->sources[0].amplitude == 1);
    ck_assert_double_eq_tol(s->sources[0].delay, 1.2 / f0, 1e-15);
    ck_assert_int_eq(s->nreceivers, count);
    int in_sponge = 0;
    for (int k = 0; k < count; k++) {
        double t = count > 1 ? (double)k / (count - 1) : 0;
        for (int a = 0; a < 3; a++) {
            double a0 = json_number_value(json_array_get(from, a));
            double a1 = json_number_value(json_array_get(to, a));
            ck_assert_double_eq_tol(s->receivers[k].pos[a], a0 + t * (a1 - a0), 1e-9);
        }
        for (int a = 0; a < 3; a++) {
            double idx = s->receivers[k].pos[a] / h; /* origin 0, cube */
            if (idx < width || idx > (a == 0 ? nx : a == 1 ? ny : nz) - 1 - width) {
                in_sponge++;
                break;
            }
        }
    }
    ck_assert_int_eq(s->boundary.type, FDW_BOUNDARY_SPONGE);
    for (int f = 0; f < 6; f++)
        ck_assert_int_eq(s->boundary.width[f], width);
    ck_assert_int_eq(s->nslices, nslices);
    ck_assert_int_eq(has_warning(s, "receivers lie inside the absorbing layer"), in_sponge > 0);
    ck_assert(!has_warning(s, "wavelength"));
    /* 12 B/point + receivers x (nt + 1) slots x 4 B, one device: no ghost planes */
    ck_assert_uint_eq(fdw_spec_device_bytes(s),
                      12ull * nx * ny * nz + (uint64_t)count * (uint64_t)(nt + 1) * 4);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
    json_decref(ex);
}
END_TEST

START_TEST(layered_free_surface)
{
    const char *text =
        "{\"grid\": {\"nx\": 40, \"ny\": 30, \"nz\": 50, \"dx\": 10, \"dy\": 12, \"dz\": 5,"
        "          \"origin\": [1000, 2000, 0]},"
        " \"order\": 4,"
        " \"velocity\": {\"type\": \"layered\", \"layers\": [{\"top\": -10, \"v\": 1500},"
        "             {\"top\": 100, \"v\": 2500}, {\"top\": 180, \"v\": 3000},"
        "             {\"top\": 5000, \"v\": 9000}]},"
        " \"time\": {\"nt\": 20, \"dt\": 0.0005},"
        " \"sources\": [{\"position\": [1200, 2100, 20],"
        "               \"wavelet\": {\"type\": \"ricker\", \"f0\": 15, \"delay\": 0.05,"
        "                            \"amplitude\": -2.5}}],"
        " \"boundary\": {\"width\": {\"xmin\": 5, \"xmax\": 6, \"ymin\": 7, \"ymax\": 8,"
        "                          \"zmin\": 9, \"zmax\": 10}, \"free_surface\": true},"
        " \"devices\": {\"count\": 2, \"ids\": [3, 1]}}";
    fdw_spec *s = parse_ok(text, NULL);
    ck_assert_str_eq(s->kind->name, "acoustic");
    ck_assert_int_eq(s->velocity.type, FDW_VEL_LAYERED);
    ck_assert_int_eq(s->velocity.nlayers, 4);
    /* the 9000 m/s layer starts below the grid (z <= 245 m): not part of vmax */
    ck_assert(s->vmin == 1500 && s->vmax == 3000);
    ck_assert_double_eq_tol(s->dt_max, fdw_dt_max(4, 10, 12, 5, 3000), 1e-18);
    ck_assert(s->dt == 0.0005 && s->dt_auto == 0);
    ck_assert(s->sources[0].amplitude == -2.5 && s->sources[0].delay == 0.05);
    ck_assert_int_eq(s->boundary.free_surface, 1);
    ck_assert_int_eq(s->boundary.width[0], 5);
    ck_assert_int_eq(s->boundary.width[4], 0); /* the free surface has no sponge */
    ck_assert_int_eq(s->boundary.width[5], 10);
    ck_assert_int_eq(s->ndevices, 2);
    ck_assert_int_eq(s->device_ids_given, 1);
    ck_assert(s->device_ids[0] == 3 && s->device_ids[1] == 1);
    ck_assert_int_eq(s->nreceivers, 0);
    ck_assert_int_eq(s->snapshot_every, 0);
    /* ghost planes: one boundary, 2 * radius 2 planes of 40x30, 3 arrays */
    ck_assert_uint_eq(fdw_spec_device_bytes(s),
                      12ull * 40 * 30 * 50 + 2ull * 2 * 40 * 30 * 4 * 3);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
}
END_TEST

START_TEST(gaussian_anomaly)
{
    char *text = patched(BASE, "velocity",
                         "{\"type\": \"gaussian\", \"background\": 2000,"
                         " \"center\": [155, 155, 155], \"sigma\": 50, \"dv\": -300}");
    fdw_spec *s = parse_ok(text, NULL);
    ck_assert_int_eq(s->velocity.type, FDW_VEL_GAUSSIAN);
    ck_assert_double_eq_tol(s->vmin, 1700, 1e-9); /* centre inside the grid */
    ck_assert(s->vmax <= 2000 && s->vmax > 1999);
    ck_assert(s->velocity.sigma == 50 && s->velocity.dv == -300);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
    free(text);
    /* a positive anomaly centred outside the grid: vmax below v0 + dv */
    text = patched(BASE, "velocity",
                   "{\"type\": \"gaussian\", \"background\": 2000,"
                   " \"center\": [-100, 155, 155], \"sigma\": 100, \"dv\": 500}");
    s = parse_ok(text, NULL);
    ck_assert_double_eq_tol(s->vmax, 2000 + 500 * exp(-0.5), 1e-9);
    ck_assert(s->vmin >= 2000);
    fdw_spec_free(s);
    free(text);
}
END_TEST

START_TEST(stencil_kind)
{
    const char *text = "{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 17, \"nz\": 18,"
                       " \"dx\": 1, \"dy\": 1, \"dz\": 1}, \"order\": 6, \"iterations\": 7,"
                       " \"devices\": 2}";
    fdw_spec *s = parse_ok(text, NULL);
    ck_assert_str_eq(fdw_spec_kind(s), "stencil");
    ck_assert_int_eq(fdw_spec_steps(s), 7);
    ck_assert(fdw_spec_dt(s) == 0);
    ck_assert_int_eq(STN(s)->seed, 1);
    ck_assert_int_eq(STN(s)->c_given, 0);
    double w[FDW_MAX_RADIUS + 1];
    fdw_fd2_coeffs(6, w);
    double sc = 1.0 / (3.0 * fdw_fd2_lambda(6));
    ck_assert_double_eq_tol(STN(s)->c[0], 1 + sc * 3 * w[0], 1e-15);
    for (int i = 1; i <= 3; i++)
        ck_assert_double_eq_tol(STN(s)->c[i], sc * w[i], 1e-15);
    /* stable and non-trivial: the amplification c0 + sum_axes 2 sum_i ci cos(i theta_a)
     * stays in [-1, 1] for all wavenumbers, and is below 1 away from theta = 0 */
    double gmin = INFINITY, gmax = -INFINITY;
    for (int k = 0; k <= 1000; k++) {
        double th = M_PI * k / 1000, g = 0;
        for (int i = 1; i <= 3; i++)
            g += 2 * STN(s)->c[i] * cos(i * th);
        gmin = fmin(gmin, g);
        gmax = fmax(gmax, g);
    }
    ck_assert(STN(s)->c[0] + 3 * gmax <= 1 + 1e-12);
    ck_assert(STN(s)->c[0] + 3 * gmin >= -1 - 1e-12);
    ck_assert(STN(s)->c[0] + 3 * gmin < 0.5);
    ck_assert_uint_eq(fdw_spec_device_bytes(s), 8ull * 16 * 17 * 18 + 2ull * 3 * 16 * 17 * 4 * 2);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);

    s = parse_ok("{\"kind\": \"stencil\", \"grid\": {\"nx\": 9, \"ny\": 9, \"nz\": 9, \"dx\": 1,"
                 " \"dy\": 1, \"dz\": 1}, \"order\": 2, \"iterations\": 1,"
                 " \"coefficients\": [0.5, 0.25], \"seed\": 42,"
                 " \"snapshots\": {\"every\": 1, \"volume\": true}}",
                 NULL);
    ck_assert(STN(s)->c[0] == 0.5 && STN(s)->c[1] == 0.25);
    ck_assert_int_eq(STN(s)->c_given, 1);
    ck_assert_int_eq(STN(s)->seed, 42);
    ck_assert_int_eq(s->nslices, 1);
    ck_assert_int_eq(s->slices[0].plane, FDW_PLANE_VOLUME);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
}
END_TEST

/* For every order, the default stencil multiplies each Fourier mode by a factor in [0, 1]
 * (stable, and not the identity): G = c0 + sum over 3 axes of 2 sum_i ci cos(i theta). */
START_TEST(stencil_default_stable_every_order)
{
    int order = _i;
    char text[512];
    snprintf(text, sizeof text,
             "{\"kind\": \"stencil\", \"grid\": {\"nx\": 17, \"ny\": 17, \"nz\": 17,"
             " \"dx\": 1, \"dy\": 1, \"dz\": 1}, \"order\": %d, \"iterations\": 1}",
             order);
    fdw_spec *s = parse_ok(text, NULL);
    double gmin = INFINITY, gmax = -INFINITY;
    for (int k = 0; k <= 2000; k++) {
        double th = M_PI * k / 2000, g = 0;
        for (int i = 1; i <= order / 2; i++)
            g += 2 * STN(s)->c[i] * cos(i * th);
        gmin = fmin(gmin, g);
        gmax = fmax(gmax, g);
    }
    ck_assert_msg(STN(s)->c[0] + 3 * gmax <= 1 + 1e-12, "order %d grows", order);
    ck_assert_msg(STN(s)->c[0] + 3 * gmin >= -1e-12, "order %d: factor %g", order,
                  STN(s)->c[0] + 3 * gmin);
    ck_assert_msg(STN(s)->c[0] + 3 * gmin < 0.5, "order %d barely damps", order);
    fdw_spec_free(s);
}
END_TEST

START_TEST(derivative_kind)
{
    fdw_spec *s = parse_ok("{\"kind\": \"derivative\", \"grid\": {\"nx\": 64, \"ny\": 32,"
                           " \"nz\": 16, \"dx\": 1, \"dy\": 2, \"dz\": 3}, \"axis\": \"y\","
                           " \"iterations\": 3}",
                           NULL);
    ck_assert_str_eq(fdw_spec_kind(s), "derivative");
    ck_assert_int_eq(s->order, 8);
    ck_assert_int_eq(DRV(s)->axis, FDW_AXIS_Y);
    ck_assert(DRV(s)->periods[0] == 1 && DRV(s)->periods[1] == 1 && DRV(s)->periods[2] == 1);
    ck_assert_int_eq(fdw_spec_steps(s), 3);
    ck_assert_uint_eq(fdw_spec_device_bytes(s), 8ull * 64 * 32 * 16);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
    s = parse_ok("{\"kind\": \"derivative\", \"grid\": {\"nx\": 64, \"ny\": 32, \"nz\": 16,"
                 " \"dx\": 1, \"dy\": 2, \"dz\": 3}, \"order\": 8, \"axis\": \"z\","
                 " \"iterations\": 1, \"periods\": [32, 0, 8]}",
                 NULL);
    ck_assert(DRV(s)->periods[0] == 32 && DRV(s)->periods[1] == 0 && DRV(s)->periods[2] == 8);
    ck_assert_int_eq(DRV(s)->axis, FDW_AXIS_Z);
    fdw_spec_free(s);
}
END_TEST

START_TEST(receiver_forms)
{
    char *text = patched(BASE, "receivers",
                         "{\"points\": [[0, 0, 0], [310, 310, 310], [12.5, 100, 200.25]],"
                         " \"lines\": [{\"from\": [50, 50, 50], \"to\": [50, 250, 50],"
                         "             \"count\": 5},"
                         "            {\"from\": [60, 60, 60], \"to\": [90, 90, 90],"
                         "             \"count\": 1}],"
                         " \"planes\": [{\"axis\": \"z\", \"position\": 105, \"stride\": 4},"
                         "             {\"axis\": \"x\", \"position\": 0}],"
                         " \"interval\": 5}");
    fdw_spec *s = parse_ok(text, NULL);
    /* 3 points + 5 + 1 on lines + 8x8 (z plane, stride 4) + 32x32 (x plane) */
    ck_assert_int_eq(s->nreceivers, 3 + 6 + 64 + 1024);
    ck_assert_int_eq(s->receiver_interval, 5);
    ck_assert(s->receivers[1].pos[0] == 310 && s->receivers[2].pos[2] == 200.25);
    /* line 0: y from 50 to 250 in 4 steps of 50 */
    for (int k = 0; k < 5; k++)
        ck_assert_double_eq_tol(s->receivers[3 + k].pos[1], 50 + 50 * k, 1e-12);
    ck_assert(s->receivers[8].pos[0] == 60); /* count 1: at "from" */
    /* z plane: x fastest, every 4th node, z = 105 */
    const fdw_receiver *zp = &s->receivers[9];
    ck_assert(zp[0].pos[0] == 0 && zp[0].pos[1] == 0 && zp[0].pos[2] == 105);
    ck_assert(zp[1].pos[0] == 40 && zp[1].pos[1] == 0);
    ck_assert(zp[8].pos[0] == 0 && zp[8].pos[1] == 40);
    ck_assert(zp[63].pos[0] == 280 && zp[63].pos[1] == 280);
    /* x plane: y fastest then z */
    const fdw_receiver *xp = &s->receivers[73];
    ck_assert(xp[0].pos[0] == 0 && xp[1].pos[1] == 10 && xp[1].pos[2] == 0);
    ck_assert(xp[32].pos[1] == 0 && xp[32].pos[2] == 10);
    /* slots: 50/5 + 1 = 11 */
    /* rows recorded (run/positioning.h): 1552 z planes, the z plane at 105 (k 10.5)
     * reading 8 each */
    ck_assert_int_eq(s->nrec_rows, 1552);
    ck_assert_uint_eq(fdw_spec_device_bytes(s), 12ull * 32 * 32 * 32 + 1552ull * 11 * 4);
    /* plane receivers numbered as inlines (slower axis) and crosslines */
    ck_assert(zp[0].iline == 1 && zp[0].xline == 1 && zp[1].xline == 2 && zp[8].iline == 2);
    ck_assert(zp[63].iline == 8 && zp[63].xline == 8 && s->receivers[0].iline == 0);
    /* points on the grid edge and planes on the boundary sit in the sponge */
    ck_assert(has_warning(s, "inside the absorbing layer"));
    assert_round_trip(s, NULL);
    /* the normalised form keeps the compact receiver description */
    char *j = fdw_spec_to_json(s);
    json_t *root = json_loads(j, 0, NULL);
    json_t *r = json_object_get(root, "receivers");
    ck_assert_int_eq(json_array_size(json_object_get(r, "points")), 3);
    ck_assert_int_eq(json_array_size(json_object_get(r, "lines")), 2);
    ck_assert_int_eq(json_array_size(json_object_get(r, "planes")), 2);
    json_t *plane1 = json_array_get(json_object_get(r, "planes"), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(plane1, "stride")), 1);
    json_decref(root);
    free(j);
    fdw_spec_free(s);
    free(text);
    /* no receivers at all is fine */
    text = patched(BASE, "receivers", NULL);
    s = parse_ok(text, NULL);
    ck_assert_int_eq(s->nreceivers, 0);
    ck_assert_int_eq(s->receiver_interval, 1);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
    free(text);
}
END_TEST

/* The normalised JSON writes strings with jansson's escaping (the text the daemon stores and
 * serves): a name with quotes, backslashes, control characters and non-ASCII text comes out
 * as json_dumps writes it and reads back unchanged. */
START_TEST(normalised_json_escapes_like_jansson)
{
    const char *name = "q\" b\\ t\t n\n c\x01 \x1f / \xc3\xa9 \xe2\x9c\x93 end";
    json_t *spec = json_loads(BASE, 0, NULL);
    ck_assert_ptr_nonnull(spec);
    json_object_set_new(spec, "name", json_string(name));
    char *text = json_dumps(spec, JSON_COMPACT);
    fdw_spec *s = parse_ok(text, NULL);
    char *j = fdw_spec_to_json(s);
    json_t *root = json_loads(j, 0, NULL);
    ck_assert_ptr_nonnull(root);
    ck_assert_str_eq(json_string_value(json_object_get(root, "name")), name);
    json_t *str = json_string(name);
    char *ref = json_dumps(str, JSON_ENCODE_ANY | JSON_COMPACT);
    ck_assert_msg(strstr(j, ref) != NULL, "name not escaped as jansson does: %s", j);
    free(ref);
    json_decref(str);
    json_decref(root);
    free(j);
    fdw_spec_free(s);
    free(text);
    json_decref(spec);
}
END_TEST

/* The normalised spec's reals: the fewest of 15, 16 or 17 significant digits that read
 * back as the same double ("%.*g"), with ".0" when that looks like an integer. sp_dump's
 * shortcut for short decimals must write exactly that text: checked on decimals of 1 to
 * 17 digits at every exponent around its range, on random doubles, and on the edges. */
static void real_reference(char *s, double d)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(s, 40, "%.*g", prec, d);
        if (strtod(s, NULL) == d)
            break;
    }
    if (!strpbrk(s, ".eEn"))
        strcat(s, ".0");
}

START_TEST(normalised_reals_read_back)
{
    unsigned long long state = 88172645463325252ULL;
    int checked = 0;
    for (int i = 0; i < 200000; i++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        double d;
        if (i % 4 == 3) { /* any double of a plausible magnitude */
            memcpy(&d, &state, sizeof d);
            if (!isfinite(d) || fabs(d) > 1e20 || (d != 0 && fabs(d) < 1e-8))
                continue;
        } else { /* a decimal of 1 to 17 digits, 10^-8 to 10^17 */
            const int digits = 1 + (int)(state % 17), e = (int)((state >> 8) % 26) - 8;
            const long long n = (long long)((state >> 16) % 100000000000000000ULL) %
                                (long long)pow(10, digits);
            char t[64];
            snprintf(t, sizeof t, "%s%llde%d", (state >> 60) & 1 ? "-" : "", n, e - digits);
            d = strtod(t, NULL);
        }
        json_t *v = json_real(d);
        char *got = sp_dump(v), ref[40];
        real_reference(ref, d);
        ck_assert_msg(got && strcmp(got, ref) == 0, "%.17g: \"%s\", %%.*g gives \"%s\"", d,
                      got ? got : "(null)", ref);
        free(got);
        json_decref(v);
        checked++;
    }
    static const double edge[] = {0.0, -0.0, 1e-4, -1e-4, 9.9999e-5, 1e15, 999999999999999.0,
                                  1e15 - 0.5, 0.1, 0.2, 0.3, 0.7, 1.0 / 3, 2.0 / 3, 0.002,
                                  123456789012345.6, 12345678901234.56, 0.000123456789012345};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
        json_t *v = json_real(edge[i]);
        char *got = sp_dump(v), ref[40];
        real_reference(ref, edge[i]);
        ck_assert_msg(got && strcmp(got, ref) == 0, "%.17g: \"%s\", reference \"%s\"", edge[i],
                      got ? got : "(null)", ref);
        free(got);
        json_decref(v);
    }
    ck_assert_int_gt(checked, 150000);
}
END_TEST

/* fdw_spec_name and fdw_spec_device_ids (what the daemon stores with a job) say what the
 * normalised spec says: its "name" and its "devices.ids", none when it has no ids. */
START_TEST(name_and_device_ids_match_normalised)
{
    static const char *const specs[] = {
        "{\"name\":\"survey \\\"A\\\" \\u00fc\\n\",\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,"
        "\"dx\":10,\"dy\":10,\"dz\":10},\"velocity\":{\"type\":\"constant\",\"value\":2000},"
        "\"time\":{\"nt\":10},\"sources\":[{\"position\":[80,80,80],\"wavelet\":{\"type\":"
        "\"ricker\",\"f0\":10}}],\"devices\":{\"ids\":[3,1]}}",
        "{\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,\"dy\":10,\"dz\":10},\"velocity\":"
        "{\"type\":\"constant\",\"value\":2000},\"time\":{\"nt\":10},\"sources\":[{\"position\":"
        "[80,80,80],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}],\"devices\":2}",
        "{\"kind\":\"stencil\",\"name\":\"s\",\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,"
        "\"dy\":10,\"dz\":10},\"iterations\":5}",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        fdw_spec *s = parse_ok(specs[i], NULL);
        char *norm = fdw_spec_to_json(s);
        json_t *all = json_loads(norm, 0, NULL);
        ck_assert_ptr_nonnull(all);
        const char *want = json_string_value(json_object_get(all, "name"));
        ck_assert_str_eq(fdw_spec_name(s), want ? want : "");
        json_t *wids = json_object_get(json_object_get(all, "devices"), "ids");
        int ids[8];
        const int n = fdw_spec_device_ids(s, ids, 8);
        ck_assert_int_eq(n, (int)json_array_size(wids));
        for (int k = 0; k < n; k++)
            ck_assert_int_eq(ids[k], (int)json_integer_value(json_array_get(wids, k)));
        ck_assert_int_eq(fdw_spec_device_ids(s, NULL, 0), n);
        json_decref(all);
        free(norm);
        fdw_spec_free(s);
    }
}
END_TEST

START_TEST(normalised_defaults)
{
    fdw_spec *s = parse_ok(BASE, NULL);
    char *j = fdw_spec_to_json(s);
    json_t *root = json_loads(j, 0, NULL);
    ck_assert_ptr_nonnull(root);
    json_t *t = json_object_get(root, "time");
    ck_assert(json_real_value(json_object_get(t, "dt")) == s->dt);
    ck_assert(json_real_value(json_object_get(t, "dt_max")) == s->dt_max);
    ck_assert(json_is_true(json_object_get(t, "dt_auto")));
    ck_assert(json_real_value(json_object_get(t, "safety")) == 0.8);
    json_t *w = json_object_get(json_array_get(json_object_get(root, "sources"), 0), "wavelet");
    ck_assert_double_eq_tol(json_real_value(json_object_get(w, "delay")), 0.12, 1e-15);
    ck_assert(json_real_value(json_object_get(w, "amplitude")) == 1.0);
    json_t *b = json_object_get(root, "boundary");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(b, "width"), "zmax")), 8);
    ck_assert(json_is_false(json_object_get(b, "free_surface")));
    json_t *sn = json_object_get(root, "snapshots");
    ck_assert(json_is_true(json_object_get(sn, "png")) && json_is_true(json_object_get(sn, "raw")));
    json_t *dev = json_object_get(root, "devices");
    ck_assert_int_eq(json_integer_value(json_object_get(dev, "count")), 1);
    json_t *g = json_object_get(root, "grid");
    ck_assert_int_eq(json_array_size(json_object_get(g, "origin")), 3);
    /* reals print in their shortest exact form */
    ck_assert_ptr_nonnull(strstr(j, "\"safety\":0.8,") ? strstr(j, "\"safety\":0.8,")
                                                       : strstr(j, "\"safety\":0.8}"));
    ck_assert_ptr_nonnull(strstr(j, "\"dx\":10.0,"));
    json_decref(root);
    free(j);
    fdw_spec_free(s);
    /* without a boundary section: sponge, width 36 capped at a quarter of each axis */
    char *text = patched(BASE, "boundary", NULL);
    s = parse_ok(text, NULL);
    ck_assert_int_eq(s->boundary.type, FDW_BOUNDARY_SPONGE);
    for (int f = 0; f < 6; f++)
        ck_assert_int_eq(s->boundary.width[f], 7); /* (32 - 1) / 4 */
    ck_assert(s->boundary.reflection == 1e-2 && !s->boundary.free_surface);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
    free(text);
    text = patched(BASE, "grid.nx", "200");
    char *t2 = patched(text, "boundary", "{\"width\": {\"zmax\": 3}}");
    s = parse_ok(t2, NULL);
    ck_assert_int_eq(s->boundary.width[0], 36);
    ck_assert_int_eq(s->boundary.width[2], 7);
    ck_assert_int_eq(s->boundary.width[5], 3);
    fdw_spec_free(s);
    free(t2);
    free(text);
}
END_TEST

static void expect_bad(const char *text, const fdw_parse_opts *opts, const char *field,
                       const char *needle);

/* The CPML: defaults (width 20 at most a quarter of the axis, reflection 1e-3, frequency the
 * largest Ricker f0), given values, the normalised form (frequency only for a CPML), the
 * frequency needed when no source has an f0, and the absorbing-layer warnings. */
START_TEST(cpml_boundary)
{
    char *t1 = patched(BASE, "grid.nx", "120");
    char *text = patched(t1, "boundary", "{\"type\": \"cpml\"}");
    fdw_spec *s = parse_ok(text, NULL);
    ck_assert_int_eq(s->boundary.type, FDW_BOUNDARY_CPML);
    ck_assert_int_eq(s->boundary.width[0], 20); /* (120 - 1) / 4 = 29 > 20 */
    ck_assert_int_eq(s->boundary.width[1], 20);
    for (int f = 2; f < 6; f++)
        ck_assert_int_eq(s->boundary.width[f], 7); /* (32 - 1) / 4 */
    ck_assert(s->boundary.reflection == 1e-3);
    ck_assert(s->boundary.frequency == 10.0); /* the source's f0 */
    assert_round_trip(s, NULL);
    char *j = fdw_spec_to_json(s);
    json_t *root = json_loads(j, 0, NULL);
    json_t *b = json_object_get(root, "boundary");
    ck_assert_str_eq(json_string_value(json_object_get(b, "type")), "cpml");
    ck_assert(json_real_value(json_object_get(b, "frequency")) == 10.0);
    ck_assert(json_real_value(json_object_get(b, "reflection")) == 1e-3);
    json_decref(root);
    free(j);
    fdw_spec_free(s);
    free(text);
    free(t1);
    /* the sponge's normalised form has no frequency */
    s = parse_ok(BASE, NULL);
    j = fdw_spec_to_json(s);
    root = json_loads(j, 0, NULL);
    ck_assert_ptr_null(json_object_get(json_object_get(root, "boundary"), "frequency"));
    ck_assert(s->boundary.frequency == 0.0);
    json_decref(root);
    free(j);
    fdw_spec_free(s);
    /* given values; two sources: the default frequency is the larger f0 */
    text = patched(BASE, "boundary",
                   "{\"type\": \"cpml\", \"width\": {\"xmin\": 3, \"zmax\": 5}, "
                   "\"reflection\": 1e-4, \"frequency\": 7.5, \"free_surface\": true}");
    s = parse_ok(text, NULL);
    ck_assert_int_eq(s->boundary.width[0], 3);
    ck_assert_int_eq(s->boundary.width[1], 7);
    ck_assert_int_eq(s->boundary.width[4], 0); /* free surface: no top layer */
    ck_assert_int_eq(s->boundary.width[5], 5);
    ck_assert(s->boundary.reflection == 1e-4 && s->boundary.frequency == 7.5);
    ck_assert(s->boundary.free_surface);
    /* device memory: psi and zeta (8 B) per layer point of each axis */
    ck_assert_uint_eq(fdw_spec_device_bytes(s),
                      12ull * 32 * 32 * 32 + 14ull * 51 * 4 +
                          8ull * ((3 + 7) * 32 * 32 + (7 + 7) * 32 * 32 + (0 + 5) * 32 * 32));
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
    free(text);
    t1 = patched(BASE, "sources",
                 "[{\"position\": [155, 155, 155], \"wavelet\": {\"type\": \"ricker\", "
                 "\"f0\": 8}}, {\"position\": [100, 155, 155], \"wavelet\": {\"type\": "
                 "\"ricker\", \"f0\": 14}}]");
    text = patched(t1, "boundary", "{\"type\": \"cpml\", \"width\": 6}");
    s = parse_ok(text, NULL);
    ck_assert(s->boundary.frequency == 14.0);
    fdw_spec_free(s);
    free(text);
    free(t1);
    /* only file wavelets: no f0 to take the frequency from */
    char path[512], value[1024];
    snprintf(path, sizeof path, "%s/wcpml.bin", tmpdir);
    write_floats(path, 50, 0.25f, -1);
    snprintf(value, sizeof value, "{\"type\": \"file\", \"path\": \"%s\"}", path);
    t1 = patched(BASE, "sources[0].wavelet", value);
    text = patched(t1, "boundary", "{\"type\": \"cpml\", \"width\": 6}");
    expect_bad(text, NULL, "boundary.frequency", "no source has a Ricker");
    free(text);
    text = patched(t1, "boundary", "{\"type\": \"cpml\", \"width\": 6, \"frequency\": 9}");
    s = parse_ok(text, NULL);
    ck_assert(s->boundary.frequency == 9.0);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
    free(text);
    free(t1);
    /* sources and receivers in a CPML layer are warned about, as in a sponge */
    t1 = patched(BASE, "sources[0].position", "[20, 155, 155]");
    text = patched(t1, "boundary", "{\"type\": \"cpml\", \"width\": 10}");
    s = parse_ok(text, NULL);
    ck_assert(has_warning(s, "source 0"));
    ck_assert(has_warning(s, "receivers lie inside the absorbing layer"));
    fdw_spec_free(s);
    free(text);
    free(t1);
    /* 3 devices on nz = 32 (slabs 11, 11, 10) with an 8-point CPML: the boundary at plane
     * 11 lies within 8 + 4 planes of the top; 2 devices fit */
    t1 = patched(BASE, "devices", "3");
    text = patched(t1, "boundary", "{\"type\": \"cpml\", \"width\": 8}");
    expect_bad(text, NULL, "devices", "use at most 2 devices");
    free(text);
    free(t1);
    t1 = patched(BASE, "devices", "2");
    text = patched(t1, "boundary", "{\"type\": \"cpml\", \"width\": 8}");
    s = parse_ok(text, NULL);
    ck_assert_int_eq(s->ndevices, 2);
    fdw_spec_free(s);
    free(text);
    free(t1);
    /* the free-surface face has no layer: a source near the top is fine */
    t1 = patched(BASE, "sources[0].position", "[155, 155, 20]");
    text = patched(t1, "boundary", "{\"type\": \"cpml\", \"width\": 4, \"free_surface\": true}");
    s = parse_ok(text, NULL);
    ck_assert(!has_warning(s, "source 0"));
    fdw_spec_free(s);
    free(text);
    free(t1);
}
END_TEST

START_TEST(dt_limit_message_is_usable)
{
    /* The largest stable dt printed in the message is itself accepted. */
    char *text = patched(BASE, "time", "{\"nt\": 10, \"dt\": 0.01}");
    fdw_spec *s = NULL;
    fdw_error err;
    ck_assert_int_eq(parse_text(text, NULL, &s, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "time.dt");
    const char *p = strstr(err.message, "largest stable dt is ");
    ck_assert_ptr_nonnull(p);
    double shown = strtod(p + strlen("largest stable dt is "), NULL);
    ck_assert(shown > 0);
    free(text);
    char value[128];
    snprintf(value, sizeof value, "{\"nt\": 10, \"dt\": %.17g}", shown);
    text = patched(BASE, "time", value);
    s = parse_ok(text, NULL);
    ck_assert(s->dt == shown && s->dt <= s->dt_max);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
    free(text);
}
END_TEST

START_TEST(model_and_wavelet_files)
{
    char path[512], value[1024];
    snprintf(path, sizeof path, "%s/model.f32", tmpdir);
    write_floats(path, 32L * 32 * 32, 1800.0f, -1); /* values 1800..1806 */
    snprintf(path, sizeof path, "%s/w.bin", tmpdir);
    write_floats(path, 30, 0.5f, -1);
    const char *allowed[] = {tmpdir, NULL};
    fdw_parse_opts opts = {.base_dir = tmpdir, .allowed_dirs = allowed};
    char *t1 = patched(BASE, "velocity",
                       "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"model.f32\"}");
    snprintf(value, sizeof value,
             "{\"type\": \"file\", \"path\": \"%s/w.bin\", \"amplitude\": 2}", tmpdir);
    char *text = patched(t1, "sources[0].wavelet", value);
    fdw_spec *s = parse_ok(text, &opts);
    ck_assert_int_eq(s->velocity.type, FDW_VEL_FILE);
    ck_assert_int_eq(s->velocity.format, FDW_FMT_RAW_F32);
    ck_assert(s->velocity.path[0] == '/');
    ck_assert(s->vmin == 1800 && s->vmax == 1806);
    ck_assert_int_eq(s->sources[0].wavelet, FDW_WAVELET_FILE);
    ck_assert_int_eq(s->sources[0].nsamples, 30);
    ck_assert(s->sources[0].samples[0] == 0.5f && s->sources[0].samples[8] == 1.5f);
    ck_assert(s->sources[0].amplitude == 2);
    ck_assert(has_warning(s, "fewer than nt"));
    assert_round_trip(s, &opts);
    fdw_spec_free(s);
    free(text);
    free(t1);
}
END_TEST

/* The model store of these tests: "marmousi" with nothing recorded (the parser reads the
 * file); with user pointing at an fdw_model_info, that record is handed back instead. */
static int resolver(void *user, const char *name, char *path, size_t len, fdw_model_info *info)
{
    if (strcmp(name, "marmousi") != 0)
        return 1;
    snprintf(path, len, "%s/marmousi.bin", tmpdir);
    if (user)
        *info = *(const fdw_model_info *)user;
    return 0;
}

START_TEST(model_by_name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/marmousi.bin", tmpdir);
    write_floats(path, 32L * 32 * 32, 2500.0f, -1);
    fdw_parse_opts opts = {.resolve_model = resolver};
    char *text = patched(BASE, "velocity", "{\"type\": \"model\", \"name\": \"marmousi\"}");
    fdw_spec *s = parse_ok(text, &opts);
    ck_assert_int_eq(s->velocity.type, FDW_VEL_FILE);
    ck_assert_str_eq(s->velocity.name, "marmousi");
    ck_assert_int_eq(s->velocity.format, FDW_FMT_RAW_F32);
    ck_assert(s->vmin == 2500 && s->vmax == 2506);
    assert_round_trip(s, &opts);
    fdw_spec_free(s);
    free(text);
}
END_TEST

/* A model the store recorded (fdw_model_inspect at upload) is checked from the record:
 * the file's content is not read again (here it changed after the record was made, so the
 * record's range shows), and a record that does not fit the grid is refused. */
START_TEST(model_facts_from_store)
{
    char path[512];
    snprintf(path, sizeof path, "%s/marmousi.bin", tmpdir);
    write_floats(path, 32L * 32 * 32, 2500.0f, -1);
    fdw_model_info info;
    fdw_error e;
    ck_assert_int_eq(fdw_model_inspect(path, "raw-f32", "model", &info, &e), FDW_OK);
    ck_assert_str_eq(info.format, "raw-f32");
    ck_assert_uint_eq(info.nvalues, 32u * 32 * 32);
    ck_assert(info.vmin == 2500 && info.vmax == 2506);
    snprintf(info.sha256, sizeof info.sha256, "%064d", 7);
    write_floats(path, 32L * 32 * 32, 1500.0f, -1); /* changed behind the record's back */
    fdw_parse_opts opts = {.resolve_model = resolver, .resolve_user = &info};
    char *text = patched(BASE, "velocity", "{\"type\": \"model\", \"name\": \"marmousi\"}");
    fdw_spec *s = parse_ok(text, &opts);
    ck_assert(s->vmin == 2500 && s->vmax == 2506);
    ck_assert_str_eq(s->velocity.sha256, info.sha256);
    fdw_spec_free(s);
    /* a record of another size, and of another format, do not fit */
    fdw_model_info bad = info;
    bad.nvalues = 31u * 32 * 32;
    opts.resolve_user = &bad;
    expect_bad(text, &opts, "velocity.name", "the file is truncated");
    bad = info;
    snprintf(bad.format, sizeof bad.format, "segy");
    expect_bad(text, &opts, "velocity.name", "was recorded as segy");
    free(text);
    /* inspect refuses a file that is not a model of its format */
    ck_assert_int_eq(fdw_model_inspect(path, "segy", "model", &info, &e), FDW_ERR_SPEC);
    ck_assert_str_eq(e.field, "model");
    ck_assert_int_eq(fdw_model_inspect(path, "tiff", "model", &info, &e), FDW_ERR_SPEC);
}
END_TEST

/* A file model's range goes into the normalised spec; re-parsing that text with
 * opts.normalised uses it (no second read of the file), a user's text never does. */
START_TEST(normalised_reparse_keeps_range)
{
    char path[512];
    snprintf(path, sizeof path, "%s/facts.bin", tmpdir);
    write_floats(path, 32L * 32 * 32, 2500.0f, -1);
    char *text = patched(BASE, "velocity",
                         "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"facts.bin\"}");
    fdw_parse_opts opts = {.base_dir = tmpdir};
    fdw_spec *s = parse_ok(text, &opts);
    char *norm = fdw_spec_to_json(s);
    fdw_spec_free(s);
    write_floats(path, 32L * 32 * 32, 1500.0f, -1);
    fdw_parse_opts trusted = {.base_dir = tmpdir, .normalised = 1};
    s = parse_ok(norm, &trusted);
    ck_assert(s->vmin == 2500 && s->vmax == 2506);
    fdw_spec_free(s);
    s = parse_ok(norm, &opts);
    ck_assert(s->vmin == 1500 && s->vmax == 1506);
    fdw_spec_free(s);
    free(norm);
    free(text);
}
END_TEST

START_TEST(warnings)
{
    /* 2.5 ppw: f0 = 40 Hz with vmin 2000 m/s and h = 10 m (limit 100 Hz) */
    char *text = patched(BASE, "sources[0].wavelet.f0", "40");
    fdw_spec *s = parse_ok(text, NULL);
    ck_assert(has_warning(s, "2.00 grid points per shortest wavelength"));
    ck_assert(has_warning(s, "f0 <= 16 Hz"));
    fdw_spec_free(s);
    free(text);
    /* a source inside the sponge */
    text = patched(BASE, "sources[0].position", "[20, 155, 155]");
    s = parse_ok(text, NULL);
    ck_assert(has_warning(s, "source 0"));
    ck_assert(!has_warning(s, "wavelength"));
    fdw_spec_free(s);
    free(text);
    /* the free surface face is not absorbing: a source near the top is fine */
    char *t1 = patched(BASE, "sources[0].position", "[155, 155, 20]");
    text = patched(t1, "boundary.free_surface", "true");
    s = parse_ok(text, NULL);
    ck_assert_int_eq(fdw_spec_warning_count(s), 0);
    fdw_spec_free(s);
    free(text);
    free(t1);
    /* a volume snapshot over 1 GiB (1024 x 1024 x 300 x 4 B = 1.17 GiB) */
    s = parse_ok("{\"kind\": \"stencil\", \"grid\": {\"nx\": 1024, \"ny\": 1024, \"nz\": 300,"
                 " \"dx\": 1, \"dy\": 1, \"dz\": 1}, \"iterations\": 2,"
                 " \"snapshots\": {\"every\": 1, \"volume\": true}}",
                 NULL);
    ck_assert(has_warning(s, "GiB"));
    fdw_spec_free(s);
    /* a gather longer than a SEG-Y trace can hold: said at parse time, not at the end */
    text = patched(BASE, "time.nt", "40000");
    s = parse_ok(text, NULL);
    ck_assert(has_warning(s, "40001 samples per trace"));
    ck_assert(has_warning(s, "only gather.f32 will be written"));
    fdw_spec_free(s);
    free(text);
    t1 = patched(BASE, "time.nt", "40000");
    text = patched(t1, "receivers.interval", "2");
    s = parse_ok(text, NULL);
    ck_assert(!has_warning(s, "gather.f32"));
    fdw_spec_free(s);
    free(text);
    free(t1);
    /* the clean base spec has no warnings */
    s = parse_ok(BASE, NULL);
    ck_assert_int_eq(fdw_spec_warning_count(s), 0);
    ck_assert_ptr_null(fdw_spec_warning(s, 0));
    fdw_spec_free(s);
}
END_TEST

/* ---- malformed specs ---- */

typedef struct bad_case {
    const char *path;    /* member of BASE to replace */
    const char *value;   /* JSON text; NULL deletes the member */
    const char *field;   /* expected err.field */
    const char *message; /* expected substring of err.message, or NULL */
} bad_case;

static const bad_case BAD[] = {
    {"grid", NULL, "grid", "missing"},
    {"grid.nx", "\"32\"", "grid.nx", "integer"},
    {"grid.nx", "32.5", "grid.nx", "integer"},
    {"grid.ny", NULL, "grid.ny", "missing"},
    {"grid.dx", "-10", "grid.dx", "greater than 0"},
    {"grid.dz", "0", "grid.dz", NULL},
    {"grid.nx", "5", "grid.nx", "between 9"},
    {"grid.nz", "200000", "grid.nz", NULL},
    {"grid.origin", "[0, 1e308, 0]", "grid.origin", "more than 1e9 cells"},
    {"grid", "{\"nx\": 100000, \"ny\": 100000, \"nz\": 100000, \"dx\": 1, \"dy\": 1, \"dz\": 1}",
     "grid", "1000000000000000 points"},
    {"grid.origin", "[0, 0]", "grid.origin", "3 elements"},
    {"grid.origin", "[0, \"a\", 0]", "grid.origin", NULL},
    {"grid.spacing", "10", "grid.spacing", "unknown field"},
    {"order", "7", "order", "even"},
    {"order", "18", "order", "even"},
    {"order", "\"8\"", "order", "integer"},
    {"velocity", NULL, "velocity", "missing"},
    {"velocity.value", "-2000", "velocity.value", "greater than 0"},
    {"velocity.value", "0", "velocity.value", NULL},
    {"velocity.value", "\"NaN\"", "velocity.value", "number"},
    {"velocity.type", "\"marble\"", "velocity.type", "one of"},
    {"velocity.vp", "2000", "velocity.vp", "unknown field"},
    {"velocity", "{\"type\": \"layered\", \"layers\": [{\"top\": 0, \"v\": 1500},"
                 " {\"top\": 300, \"v\": 0}]}",
     "velocity.layers[1].v", NULL},
    {"velocity", "{\"type\": \"layered\", \"layers\": [{\"top\": 0, \"v\": 1500},"
                 " {\"top\": 300, \"v\": 2500}, {\"top\": 200, \"v\": 3000}]}",
     "velocity.layers[2].top", "sorted"},
    {"velocity", "{\"type\": \"layered\", \"layers\": [{\"top\": 50, \"v\": 1500}]}",
     "velocity.layers[0].top", "above it"},
    {"velocity", "{\"type\": \"layered\", \"layers\": []}", "velocity.layers", NULL},
    {"velocity", "{\"type\": \"gaussian\", \"background\": 2000, \"center\": [1, 2, 3],"
                 " \"sigma\": 10, \"dv\": -2500}",
     "velocity.dv", NULL},
    {"velocity", "{\"type\": \"gaussian\", \"background\": 2000, \"center\": [1, 2, 3],"
                 " \"sigma\": -1, \"dv\": 100}",
     "velocity.sigma", NULL},
    {"velocity", "{\"type\": \"gaussian\", \"background\": 2000, \"center\": [1, 2, 3],"
                 " \"sigma\": 1e-300, \"dv\": 100}",
     "velocity.sigma", "underflows"},
    {"velocity", "{\"type\": \"model\", \"name\": \"anything\"}", "velocity.name", NULL},
    {"velocity", "{\"type\": \"file\", \"format\": \"png\", \"path\": \"x\"}", "velocity.format",
     NULL},
    {"time", NULL, "time", "missing"},
    {"time.nt", "0", "time.nt", NULL},
    {"time.nt", "1e9", "time.nt", NULL},
    {"time.dt", "-0.001", "time.dt", "greater than 0"},
    {"time.dt", "\"fast\"", "time.dt", "auto"},
    {"time.dt", "0.003", "time.dt", "largest stable dt is 0.002264 s"},
    {"time.safety", "1.5", "time.safety", NULL},
    {"time", "{\"nt\": 10, \"dt\": 0.001, \"safety\": 0.5}", "time.safety", "auto"},
    {"sources", "[]", "sources", "at least one"},
    {"sources", NULL, "sources", "missing"},
    {"sources", "{}", "sources", "array"},
    {"sources[0]", "5", "sources[0]", NULL},
    {"sources[0].position", "[155, 155, 400]", "sources[0].position", "z = 400"},
    {"sources[0].position", "[-1, 155, 155]", "sources[0].position", "outside the grid"},
    {"sources[0].position", "[1, 2]", "sources[0].position", NULL},
    {"sources[0].wavelet", NULL, "sources[0].wavelet", "missing"},
    {"sources[0].wavelet.f0", "0", "sources[0].wavelet.f0", NULL},
    {"sources[0].wavelet.f0", "150", "sources[0].wavelet.f0", "too high"},
    {"sources[0].wavelet.delay", "-1", "sources[0].wavelet.delay", NULL},
    {"sources[0].wavelet.f0", "5e-324", "sources[0].wavelet.f0", "not a finite time"},
    /* the wave's change per step below float32's resolution (2 us: 76% error, twice the
     * peak); with dt auto the slowest wavelet is named */
    {"time", "{\"nt\": 10, \"dt\": 2e-6}", "time.dt", "too small for the wavelet of f0 10 Hz"},
    {"sources[0].wavelet.f0", "0.001", "sources[0].wavelet.f0", "f0 must be at least"},
    /* a float32 field overflows (1e300 gave NaN gathers from a run that "succeeded") */
    {"sources[0].wavelet.amplitude", "1e300", "sources[0].wavelet.amplitude",
     "between 1e-20 and 1e+20"},
    {"sources[0].wavelet.amplitude", "-1e-25", "sources[0].wavelet.amplitude", "or be 0"},
    {"sources[0].wavelet.type", "\"gabor\"", "sources[0].wavelet.type", NULL},
    {"sources[0].wavelet.bar", "1", "sources[0].wavelet.bar", "unknown field"},
    {"receivers.lines[0].to", "[400, 155, 100]", "receivers.lines[0].to", "outside the grid"},
    {"receivers.lines[0].count", "0", "receivers.lines[0].count", NULL},
    {"receivers.lines[0].from", NULL, "receivers.lines[0].from", "missing"},
    {"receivers.points", "[[1, 2, 3], [1, 2, 1000]]", "receivers.points[1]", NULL},
    {"receivers.planes", "[{\"axis\": \"w\", \"position\": 10}]", "receivers.planes[0].axis",
     NULL},
    {"receivers.planes", "[{\"axis\": \"y\", \"position\": 1000}]",
     "receivers.planes[0].position", NULL},
    {"receivers.planes", "[{\"axis\": \"y\", \"position\": 10, \"stride\": 0}]",
     "receivers.planes[0].stride", NULL},
    {"receivers.interval", "0", "receivers.interval", NULL},
    {"receivers.interval", "51", "receivers.interval", NULL},
    {"receivers", "{\"lines\": [{\"from\": [0, 0, 0], \"to\": [1, 1, 1], \"count\": 6000000},"
                  " {\"from\": [0, 0, 0], \"to\": [1, 1, 1], \"count\": 6000000}]}",
     "receivers.lines[1]", "at most"},
    {"receivers.lines[0].count", "20000000", "receivers.lines[0].count", NULL},
    {"boundary.type", "\"pml\"", "boundary.type", NULL},
    {"boundary.width", "16", "boundary.width", "no interior point"},
    {"boundary.width", "-1", "boundary.width", NULL},
    {"boundary.width", "{\"xmin\": 10, \"xmax\": 30}", "boundary.width.xmax", NULL},
    {"boundary.width", "{\"left\": 10}", "boundary.width.left", "unknown field"},
    {"boundary.free_surface", "\"yes\"", "boundary.free_surface", NULL},
    {"boundary", "{\"type\": \"none\", \"width\": 4}", "boundary.width", "none"},
    {"boundary", "{\"type\": \"cpml\", \"width\": -2}", "boundary.width", NULL},
    {"boundary", "{\"type\": \"cpml\", \"width\": 16}", "boundary.width", "no interior point"},
    {"boundary", "{\"type\": \"cpml\", \"width\": 1000000}", "boundary.width", NULL},
    {"boundary", "{\"type\": \"cpml\", \"width\": 2.5}", "boundary.width", NULL},
    {"boundary", "{\"type\": \"cpml\", \"width\": {\"zmin\": 20, \"zmax\": 12}}",
     "boundary.width.zmax", "no interior point"},
    {"boundary", "{\"type\": \"cpml\", \"width\": {\"ymin\": -1}}", "boundary.width.ymin",
     NULL},
    {"boundary", "{\"type\": \"cpml\", \"width\": \"wide\"}", "boundary.width", "not a string"},
    {"boundary", "{\"type\": \"cpml\", \"reflection\": 0}", "boundary.reflection",
     "between 0 and 1"},
    {"boundary", "{\"type\": \"cpml\", \"reflection\": 1}", "boundary.reflection",
     "between 0 and 1"},
    {"boundary", "{\"type\": \"cpml\", \"reflection\": -0.001}", "boundary.reflection", NULL},
    {"boundary", "{\"type\": \"cpml\", \"reflection\": \"low\"}", "boundary.reflection", NULL},
    {"boundary", "{\"type\": \"cpml\", \"frequency\": 0}", "boundary.frequency", "above 0"},
    {"boundary", "{\"type\": \"cpml\", \"frequency\": -12}", "boundary.frequency", "above 0"},
    {"boundary", "{\"type\": \"cpml\", \"frequency\": \"f0\"}", "boundary.frequency", NULL},
    {"boundary", "{\"type\": \"cpml\", \"frequency\": null}", "boundary.frequency", NULL},
    {"boundary", "{\"type\": \"sponge\", \"frequency\": 10}", "boundary.frequency", "cpml"},
    {"boundary", "{\"frequency\": 10}", "boundary.frequency", "cpml"},
    {"boundary", "{\"type\": \"cpml\", \"kappa\": 2}", "boundary.kappa", "unknown field"},
    {"boundary", "{\"type\": \"CPML\"}", "boundary.type", NULL},
    {"snapshots.every", "-1", "snapshots.every", NULL},
    {"snapshots.slices[0].index", "32", "snapshots.slices[0].index", "0 to 31"},
    {"snapshots.slices[0].plane", "\"xx\"", "snapshots.slices[0].plane", NULL},
    {"snapshots.slices", "[]", "snapshots.slices", "no slices"},
    {"snapshots.png", "false", "snapshots.raw", "both false"},
    {"snapshots.volume", "1", "snapshots.volume", NULL},
    {"devices", "0", "devices", NULL},
    {"devices", "100", "devices", NULL},
    {"devices", "\"two\"", "devices", NULL},
    {"devices", "9", "devices", "thinner than the stencil radius"},
    {"devices", "{\"count\": 2, \"ids\": [1, 1]}", "devices.ids[1]", "twice"},
    {"devices", "{\"count\": 3, \"ids\": [0, 1]}", "devices.ids", NULL},
    {"devices", "{\"ids\": [0, -1]}", "devices.ids[1]", NULL},
    {"kind", "\"elastic\"", "kind", NULL},
    {"name", "7", "name", "string"},
    {"iterations", "10", "iterations", "does not apply"},
    {"colour", "\"red\"", "colour", "unknown field"},
};

/* The free surface's plane is held at zero: a source there (a listed source, a survey's
 * listed or generated shot) is refused naming its field; receivers there are a warning
 * for the forward kinds and refused by rtm, whose data there would be ignored. One grid
 * spacing down both are fine. */
START_TEST(free_surface_positions)
{
    char *fs = patched(BASE, "boundary.free_surface", "true");
    char *text = patched(fs, "sources[0].position", "[155, 155, 0]");
    expect_bad(text, NULL, "sources[0].position", "lies on the free surface (z = 0 m");
    free(text);
    text = patched(fs, "sources[0].position", "[155, 155, 10]");
    fdw_spec *s = parse_ok(text, NULL);
    ck_assert_int_eq(fdw_spec_warning_count(s), 0);
    fdw_spec_free(s);
    free(text);
    /* a linear source a quarter plane down is below the surface */
    char *t1 = patched(fs, "sources[0].position", "[155, 155, 2.5]");
    text = patched(t1, "sources[0].interpolation", "\"linear\"");
    fdw_spec_free(parse_ok(text, NULL));
    free(text);
    free(t1);
    /* receivers on the surface: a warning naming the first and the count */
    t1 = patched(fs, "receivers.lines[0].from", "[90, 155, 0]");
    text = patched(t1, "receivers.lines[0].to", "[220, 155, 0]");
    s = parse_ok(text, NULL);
    ck_assert(has_warning(s, "14 receivers lie on the free surface"));
    ck_assert(has_warning(s, "the first at (90, 155, 0) m"));
    fdw_spec_free(s);
    free(text);
    free(t1);
    /* without a free surface the top plane is an ordinary one */
    text = patched(BASE, "sources[0].position", "[155, 155, 0]");
    s = parse_ok(text, NULL);
    ck_assert(!has_warning(s, "free surface"));
    fdw_spec_free(s);
    free(text);
    /* a survey's listed shot and a generated line of shots starting on the surface */
    const char *listed =
        "{\"grid\": {\"nx\": 24, \"ny\": 24, \"nz\": 24, \"dx\": 10, \"dy\": 10, \"dz\": 10},"
        " \"velocity\": {\"type\": \"constant\", \"value\": 2000}, \"time\": {\"nt\": 20},"
        " \"boundary\": {\"type\": \"sponge\", \"width\": 4, \"free_surface\": true},"
        " \"receivers\": {\"points\": [[100, 100, 50]]},"
        " \"survey\": {\"wavelet\": {\"type\": \"ricker\", \"f0\": 10},"
        "  \"shots\": [{\"position\": [100, 100, 20]}, {\"position\": [120, 100, 0]}]}}";
    expect_bad(listed, NULL, "survey.shots[1].position", "shot 2 at (120, 100, 0) m lies on");
    const char *generated =
        "{\"grid\": {\"nx\": 24, \"ny\": 24, \"nz\": 24, \"dx\": 10, \"dy\": 10, \"dz\": 10},"
        " \"velocity\": {\"type\": \"constant\", \"value\": 2000}, \"time\": {\"nt\": 20},"
        " \"boundary\": {\"type\": \"sponge\", \"width\": 4, \"free_surface\": true},"
        " \"receivers\": {\"points\": [[100, 100, 50]]},"
        " \"survey\": {\"wavelet\": {\"type\": \"ricker\", \"f0\": 10},"
        "  \"generate\": {\"first\": [60, 100, 0], \"step\": [20, 0, 0], \"count\": 3}}}";
    expect_bad(generated, NULL, "survey.generate", "lies on the free surface");
    free(fs);
}
END_TEST

START_TEST(malformed_specs)
{
    const bad_case *b = &BAD[_i];
    /* snapshots.png false alone still writes raw; make both false */
    char *t0 = strcmp(b->path, "snapshots.png") == 0 ? patched(BASE, "snapshots.raw", "false")
                                                      : strdup(BASE);
    char *text = patched(t0, b->path, b->value);
    fdw_spec *s = (fdw_spec *)1;
    fdw_error err;
    fdw_status st = parse_text(text, NULL, &s, &err);
    ck_assert_msg(st == FDW_ERR_SPEC, "case %d (%s = %s): status %s", _i, b->path,
                  b->value ? b->value : "(deleted)", fdw_status_name(st));
    ck_assert_ptr_null(s);
    ck_assert_int_eq(err.code, FDW_ERR_SPEC);
    ck_assert_msg(strcmp(err.field, b->field) == 0, "case %d (%s): field '%s', want '%s' (%s)", _i,
                  b->path, err.field, b->field, err.message);
    ck_assert_msg(strlen(err.message) > 10, "case %d: message too short", _i);
    if (b->message)
        ck_assert_msg(strstr(err.message, b->message) != NULL,
                      "case %d (%s): message '%s' lacks '%s'", _i, b->path, err.message,
                      b->message);
    free(text);
    free(t0);
}
END_TEST

/* Whole-text cases: the JSON itself, and the other kinds. */
typedef struct bad_text {
    const char *text;
    const char *field;
    const char *message;
} bad_text;

static const bad_text BAD_TEXT[] = {
    {"", "", "empty"},
    {"   \n ", "", "empty"},
    {"{\"grid\": ", "", "line 1"},
    {"{\"kind\": \"acoustic\",\n \"grid\": {\"nx\": 32,,}}", "", "line 2"},
    {"[1, 2, 3]", "", "object"},
    {"\"acoustic\"", "", "object"},
    {"{\"kind\": \"stencil\", \"kind\": \"acoustic\"}", "", "duplicate"},
    {"{\"velocity\": {\"type\": \"constant\", \"value\": 1e400}}", "", "line"},
    {"{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1, \"dy\": 1,"
     " \"dz\": 1}, \"iterations\": 3, \"velocity\": {\"type\": \"constant\", \"value\": 1}}",
     "velocity", "does not apply"},
    {"{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1, \"dy\": 1,"
     " \"dz\": 1}}",
     "iterations", "missing"},
    {"{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1, \"dy\": 1,"
     " \"dz\": 1}, \"iterations\": 3, \"coefficients\": [1, 2]}",
     "coefficients", "radius + 1"},
    {"{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1, \"dy\": 1,"
     " \"dz\": 1}, \"order\": 2, \"iterations\": 3, \"coefficients\": [1, \"x\"]}",
     "coefficients[1]", NULL},
    /* iterations that grow the float32 field past its range (a field of inf and NaN) */
    {"{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1, \"dy\": 1,"
     " \"dz\": 1}, \"order\": 2, \"iterations\": 3, \"coefficients\": [1e20, 0]}",
     "coefficients", "past float32's range"},
    {"{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1, \"dy\": 1,"
     " \"dz\": 1}, \"order\": 2, \"iterations\": 100, \"coefficients\": [1, 0.5]}",
     "coefficients", "up to 4 per iteration"},
    {"{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1, \"dy\": 1,"
     " \"dz\": 1}, \"iterations\": 3, \"seed\": -4}",
     "seed", NULL},
    {"{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1, \"dy\": 1,"
     " \"dz\": 1}, \"iterations\": 3, \"sources\": []}",
     "sources", "does not apply"},
    {"{\"kind\": \"derivative\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1,"
     " \"dy\": 1, \"dz\": 1}, \"order\": 4, \"axis\": \"x\", \"iterations\": 1}",
     "order", "order must be 8"},
    {"{\"kind\": \"derivative\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1,"
     " \"dy\": 1, \"dz\": 1}, \"iterations\": 1}",
     "axis", "missing"},
    /* iterations compound the derivative: at dx = 1 its rounding noise passes float32's
     * range after about 200 (a field of inf and NaN) */
    {"{\"kind\": \"derivative\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1,"
     " \"dy\": 1, \"dz\": 1}, \"axis\": \"x\", \"iterations\": 1000}",
     "iterations", "past float32's range"},
    {"{\"kind\": \"derivative\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1,"
     " \"dy\": 1, \"dz\": 1}, \"axis\": \"x\", \"iterations\": 1, \"periods\": [1, 9, 1]}",
     "periods[1]", NULL},
    {"{\"kind\": \"derivative\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1,"
     " \"dy\": 1, \"dz\": 1}, \"axis\": \"x\", \"iterations\": 1, \"time\": {\"nt\": 3}}",
     "time", "does not apply"},
    {"{\"kind\": \"derivative\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1,"
     " \"dy\": 1, \"dz\": 1}, \"axis\": \"x\", \"iterations\": 0}",
     "iterations", NULL},
};

START_TEST(malformed_texts)
{
    const bad_text *b = &BAD_TEXT[_i];
    fdw_spec *s = (fdw_spec *)1;
    fdw_error err;
    fdw_status st = parse_text(b->text, NULL, &s, &err);
    ck_assert_msg(st == FDW_ERR_SPEC, "text case %d: status %s", _i, fdw_status_name(st));
    ck_assert_ptr_null(s);
    ck_assert_msg(strcmp(err.field, b->field) == 0, "text case %d: field '%s', want '%s' (%s)",
                  _i, err.field, b->field, err.message);
    ck_assert(strlen(err.message) > 10);
    if (b->message)
        ck_assert_msg(strstr(err.message, b->message) != NULL,
                      "text case %d: message '%s' lacks '%s'", _i, err.message, b->message);
}
END_TEST

/* Cases that need files or options. */
/* A refusal with status want, naming field, whose message holds needle. */
static void expect_refused(const char *text, const fdw_parse_opts *opts, fdw_status want,
                           const char *field, const char *needle)
{
    fdw_spec *s = (fdw_spec *)1;
    fdw_error err;
    fdw_status st = parse_text(text, opts, &s, &err);
    ck_assert_msg(st == want && err.code == want, "status %s (%s: %s)", fdw_status_name(st),
                  err.field, err.message);
    ck_assert_ptr_null(s);
    ck_assert_msg(strcmp(err.field, field) == 0, "field '%s', want '%s' (%s)", err.field, field,
                  err.message);
    ck_assert(strlen(err.message) > 10);
    if (needle)
        ck_assert_msg(strstr(err.message, needle) != NULL, "message '%s' lacks '%s'",
                      err.message, needle);
}

static void expect_bad(const char *text, const fdw_parse_opts *opts, const char *field,
                       const char *needle)
{
    expect_refused(text, opts, FDW_ERR_SPEC, field, needle);
}

/* time.sample_interval: dt "auto" divides it (the smallest whole number of steps within
 * safety x dt_max), a given dt must divide it, whole microseconds only, receivers.interval
 * derived and checked; without it a given dt whose sampling is not whole microseconds
 * warns that no SEG-Y is written. interpolation: sinc by default, "linear", nothing else. */
START_TEST(sample_interval_and_interpolation)
{
    char *t0 = patched(BASE, "receivers.interval", NULL);
    char *t = patched(t0, "time.sample_interval", "0.002");
    free(t0);
    fdw_spec *s = parse_ok(t, NULL);
    /* 0.8 dt_max = 1.81 ms: 2 ms / 2 */
    ck_assert_int_eq(s->receiver_interval, 2);
    ck_assert(s->dt == 0.001 && s->sample_interval == 0.002);
    ck_assert_int_eq(s->receiver_interp, FDW_INTERP_SINC);
    ck_assert_int_eq(s->sources[0].interp, FDW_INTERP_SINC);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
    char *t2 = patched(t, "time.dt", "0.0005");
    s = parse_ok(t2, NULL);
    ck_assert_int_eq(s->receiver_interval, 4);
    fdw_spec_free(s);
    free(t2);
    t2 = patched(t, "time.dt", "0.0007");
    expect_bad(t2, NULL, "time.dt", "does not divide time.sample_interval");
    free(t2);
    t2 = patched(t, "receivers.interval", "3");
    expect_bad(t2, NULL, "receivers.interval", "give one of them");
    free(t2);
    t2 = patched(t, "receivers.interval", "2");
    s = parse_ok(t2, NULL);
    fdw_spec_free(s);
    free(t2);
    t2 = patched(t, "time.sample_interval", "0.0015005");
    expect_bad(t2, NULL, "time.sample_interval", "whole number of microseconds");
    free(t2);
    t2 = patched(t, "time.sample_interval", "0.07");
    expect_bad(t2, NULL, "time.sample_interval", "1 to 65535");
    free(t2);
    t2 = patched(t, "time.sample_interval", "\"auto\"");
    expect_bad(t2, NULL, "time.sample_interval", "");
    free(t2);
    free(t);
    /* a given dt without an interval: kept, and no SEG-Y when not whole microseconds */
    t = patched(BASE, "time.dt", "0.00123456");
    s = parse_ok(t, NULL);
    ck_assert(s->dt == 0.00123456);
    ck_assert(has_warning(s, "not a whole number of microseconds"));
    fdw_spec_free(s);
    free(t);
    t = patched(BASE, "receivers.interpolation", "\"linear\"");
    t2 = patched(t, "sources[0].interpolation", "\"linear\"");
    s = parse_ok(t2, NULL);
    ck_assert_int_eq(s->receiver_interp, FDW_INTERP_LINEAR);
    ck_assert_int_eq(s->sources[0].interp, FDW_INTERP_LINEAR);
    assert_round_trip(s, NULL);
    fdw_spec_free(s);
    free(t2);
    t2 = patched(t, "sources[0].interpolation", "\"cubic\"");
    expect_bad(t2, NULL, "sources[0].interpolation", "sinc");
    free(t2);
    free(t);
    t = patched(BASE, "receivers.interpolation", "1");
    expect_bad(t, NULL, "receivers.interpolation", "");
    free(t);
}
END_TEST

START_TEST(bad_files)
{
    char path[512], value[1024];
    const char *allowed[] = {tmpdir, NULL};
    fdw_parse_opts opts = {.base_dir = tmpdir, .allowed_dirs = allowed};
    /* a model file that does not exist */
    char *text = patched(BASE, "velocity",
                         "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"nope.f32\"}");
    expect_bad(text, &opts, "velocity.path", "nope.f32");
    free(text);
    /* a truncated raw model (one float short) */
    snprintf(path, sizeof path, "%s/short.f32", tmpdir);
    write_floats(path, 32L * 32 * 32 - 1, 2000.0f, -1);
    text = patched(BASE, "velocity",
                   "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"short.f32\"}");
    expect_bad(text, &opts, "velocity.path", NULL);
    free(text);
    /* a raw model with a NaN sample */
    snprintf(path, sizeof path, "%s/nan.f32", tmpdir);
    write_floats(path, 32L * 32 * 32, 2000.0f, 1234);
    text = patched(BASE, "velocity",
                   "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"nan.f32\"}");
    expect_bad(text, &opts, "velocity.path", NULL);
    free(text);
    /* a model outside the allowed directories, by absolute path and by ../ */
    snprintf(path, sizeof path, "%s/model.f32", outsidedir);
    write_floats(path, 32L * 32 * 32, 2000.0f, -1);
    snprintf(value, sizeof value,
             "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"%s\"}", path);
    text = patched(BASE, "velocity", value);
    expect_bad(text, &opts, "velocity.path", "is not a file this job may read");
    free(text);
    const char *slash = strrchr(outsidedir, '/');
    snprintf(value, sizeof value,
             "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"../%s/model.f32\"}",
             slash + 1);
    text = patched(BASE, "velocity", value);
    expect_bad(text, &opts, "velocity.path", "is not a file this job may read");
    /* ... which is accepted when no allowed directories are set */
    fdw_parse_opts open_opts = {.base_dir = tmpdir};
    fdw_spec *s = parse_ok(text, &open_opts);
    fdw_spec_free(s);
    free(text);
    /* a symbolic link inside the allowed directory pointing outside */
    snprintf(value, sizeof value, "%s/link.f32", tmpdir);
    unlink(value);
    ck_assert_int_eq(symlink(path, value), 0);
    text = patched(BASE, "velocity",
                   "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"link.f32\"}");
    expect_bad(text, &opts, "velocity.path", "is not a file this job may read");
    free(text);
    /* a directory is not a model file (a confined spec hears the one refusal) */
    text = patched(BASE, "velocity",
                   "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \".\"}");
    expect_bad(text, &open_opts, "velocity.path", "regular file");
    expect_bad(text, &opts, "velocity.path", "is not a file this job may read");
    free(text);
    /* an unknown model name, and a name when no resolver exists */
    fdw_parse_opts ropts = {.resolve_model = resolver};
    text = patched(BASE, "velocity", "{\"type\": \"model\", \"name\": \"overthrust\"}");
    expect_bad(text, &ropts, "velocity.name", "unknown model");
    expect_bad(text, NULL, "velocity.name", NULL);
    free(text);
    /* wavelet files: NaN sample, size not a multiple of 4, missing */
    snprintf(path, sizeof path, "%s/wnan.bin", tmpdir);
    write_floats(path, 40, 0.0f, 17);
    char *t1 = patched(BASE, "sources[1]",
                       "{\"position\": [100, 100, 100], \"wavelet\": {\"type\": \"file\","
                       " \"path\": \"wnan.bin\"}}");
    expect_bad(t1, &opts, "sources[1].wavelet.path", "sample 17");
    free(t1);
    snprintf(path, sizeof path, "%s/w5.bin", tmpdir);
    write_file(path, "abcde", 5);
    t1 = patched(BASE, "sources[0].wavelet", "{\"type\": \"file\", \"path\": \"w5.bin\"}");
    expect_bad(t1, &opts, "sources[0].wavelet.path", "multiple of 4");
    free(t1);
    t1 = patched(BASE, "sources[0].wavelet", "{\"type\": \"file\", \"path\": \"absent.bin\"}");
    expect_bad(t1, &opts, "sources[0].wavelet.path", NULL);
    free(t1);
}
END_TEST

START_TEST(option_limits)
{
    /* max_points: 32^3 = 32768 points over a limit of 30000 */
    fdw_parse_opts small = {.max_points = 30000};
    expect_bad(BASE, &small, "grid", "limit of 30000 points");
    /* max_devices */
    fdw_parse_opts two = {.max_devices = 2};
    char *text = patched(BASE, "devices", "4");
    expect_refused(text, &two, FDW_ERR_DEVICE, "devices", "only 2 are available");
    fdw_spec *s = parse_ok(text, NULL);
    ck_assert_int_eq(fdw_spec_devices(s), 4);
    ck_assert(s->device_ids[3] == 3 && !s->device_ids_given);
    fdw_spec_free(s);
    free(text);
    text = patched(BASE, "devices", "{\"count\": 3}");
    expect_refused(text, &two, FDW_ERR_DEVICE, "devices.count", "only 2");
    free(text);
    text = patched(BASE, "devices", "{\"ids\": [1, 2]}");
    expect_refused(text, &two, FDW_ERR_DEVICE, "devices.ids[1]", "no device 2");
    free(text);
    text = patched(BASE, "devices", "{\"ids\": [1, 0]}");
    s = parse_ok(text, &two);
    ck_assert(s->ndevices == 2 && s->device_ids[0] == 1 && s->device_ids_given);
    fdw_spec_free(s);
    /* a host whose devices are GPUs 2 and 3 (a daemon given --devices gpu:2,3) */
    const int ids23[2] = {2, 3};
    fdw_parse_opts gpus23 = {.max_devices = 2, .device_ids = ids23, .ndevice_ids = 2};
    expect_refused(text, &gpus23, FDW_ERR_DEVICE, "devices.ids[0]",
                   "there is no device 1: the devices are 2, 3");
    free(text);
    text = patched(BASE, "devices", "{\"ids\": [3, 2]}");
    s = parse_ok(text, &gpus23);
    ck_assert(s->ndevices == 2 && s->device_ids[0] == 3 && s->plan.device_ids[1] == 2);
    fdw_spec_free(s);
    free(text);
    text = patched(BASE, "devices", "3");
    expect_refused(text, &gpus23, FDW_ERR_DEVICE, "devices", "only 2 are available");
    free(text);
}
END_TEST

START_TEST(load_resolves_against_spec_dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sub", tmpdir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/sub/m.f32", tmpdir);
    write_floats(path, 32L * 32 * 32, 2200.0f, -1);
    char *text = patched(BASE, "velocity",
                         "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"m.f32\"}");
    snprintf(path, sizeof path, "%s/sub/job.json", tmpdir);
    write_file(path, text, strlen(text));
    fdw_spec *s = NULL;
    fdw_error err;
    ck_assert_int_eq(fdw_spec_load(path, NULL, &s, &err), FDW_OK);
    ck_assert(s->vmin == 2200);
    fdw_spec_free(s);
    free(text);
    /* a spec file that does not exist is an I/O error */
    ck_assert_int_eq(fdw_spec_load("/nonexistent/job.json", NULL, &s, &err), FDW_ERR_IO);
    ck_assert_ptr_null(s);
    ck_assert(strstr(err.message, "/nonexistent/job.json") != NULL);
}
END_TEST

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fdw_spec_test_XXXXXX");
    snprintf(outsidedir, sizeof outsidedir, "/tmp/fdw_spec_out_XXXXXX");
    if (!mkdtemp(tmpdir) || !mkdtemp(outsidedir)) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    Suite *su = suite_create("spec");
    TCase *valid = tcase_create("valid");
    tcase_add_test(valid, example_homogeneous);
    tcase_add_test(valid, normalised_json_escapes_like_jansson);
    tcase_add_test(valid, normalised_reals_read_back);
    tcase_add_test(valid, name_and_device_ids_match_normalised);
    tcase_add_test(valid, layered_free_surface);
    tcase_add_test(valid, gaussian_anomaly);
    tcase_add_test(valid, stencil_kind);
    for (int o = 2; o <= 16; o += 2)
        tcase_add_loop_test(valid, stencil_default_stable_every_order, o, o + 1);
    tcase_add_test(valid, derivative_kind);
    tcase_add_test(valid, receiver_forms);
    tcase_add_test(valid, normalised_defaults);
    tcase_add_test(valid, dt_limit_message_is_usable);
    tcase_add_test(valid, cpml_boundary);
    tcase_add_test(valid, model_and_wavelet_files);
    tcase_add_test(valid, model_by_name);
    tcase_add_test(valid, model_facts_from_store);
    tcase_add_test(valid, normalised_reparse_keeps_range);
    tcase_add_test(valid, warnings);
    tcase_add_test(valid, free_surface_positions);
    tcase_add_test(valid, load_resolves_against_spec_dir);
    suite_add_tcase(su, valid);
    TCase *bad = tcase_create("malformed");
    tcase_add_loop_test(bad, malformed_specs, 0, (int)(sizeof BAD / sizeof BAD[0]));
    tcase_add_loop_test(bad, malformed_texts, 0, (int)(sizeof BAD_TEXT / sizeof BAD_TEXT[0]));
    tcase_add_test(bad, bad_files);
    tcase_add_test(bad, sample_interval_and_interpolation);
    tcase_add_test(bad, option_limits);
    suite_add_tcase(su, bad);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    rm_rf(tmpdir);
    rm_rf(outsidedir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
