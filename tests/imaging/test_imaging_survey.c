/* test_imaging_survey.c — surveys of the imaging kinds (run/survey_stack.c,
 * docs/imaging.md#surveys) on the CPU, each against single-shot runs of the same shots:
 *   - rtm of three shots (fixed receivers, illumination on) from a born survey's
 *     all_shots.f32: the image and the illumination are the float sums in shot order of the
 *     three single-shot runs' (each fed its slice of the file), bit for bit; a partial
 *     stack is announced after every shot with files that exist; the same survey in three
 *     device groups (shots finishing out of order), in two groups of two devices (each shot
 *     over two slabs), or in two parts then combined (as fdwaved's Slurm array tasks run
 *     it), gives the same bits;
 *   - the gradient of three shots with a moving spread: the gradient the sum of the
 *     single-shot gradients, the misfit their sum, the predicted traces (all_shots.f32) the
 *     single-shot gathers one after another;
 *   - a survey stopped after its first shot and resumed: the shot is not run again and the
 *     image has the uninterrupted run's bits;
 *   - born's survey: each shot's gather is the single-shot born run's;
 *   - refusals: a survey with SEG-Y data, data that do not hold the survey's traces. */
#include "fdwave/fdwave.h"

#include "img_check.h"

#include <check.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 32
#define NT 200
#define NS (NT / 2 + 1)      /* samples per trace: receivers.interval 2 */
#define NSHOT 3
#define NREC 10

static char g_dir[64];

static float *read_out(const char *out, const char *file, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/%s", g_dir, out, file);
    return img_read_f32(path, n);
}

/* What the callbacks saw: partial stacks announced, progress after a shot. */
typedef struct seen {
    int nsnap, last_index, files_ok;
    int stop_after;            /* > 0: cancel once this many shots are done */
    char dir[160];             /* the run's output directory */
} seen;

static void on_snapshot(void *user, const fdw_snapshot_info *s)
{
    seen *w = user;
    w->nsnap++;
    w->last_index = s->index;
    w->files_ok &= s->nfiles > 0;
    for (int i = 0; i < s->nfiles; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", w->dir, s->files[i]);
        struct stat st;
        w->files_ok &= stat(path, &st) == 0 && st.st_size > 0;
    }
}

static int on_progress(void *user, const fdw_progress *p)
{
    seen *w = user;
    return w->stop_after > 0 && p->shots_done >= w->stop_after;
}

/* Parse json (a printf format) and run it on the CPU into g_dir/out; ckpt: a checkpoint
 * directory (NULL: none), resume it; groups > 0: that many device groups. Returns the
 * status; *res the result. */
static fdw_status run_opts(const char *out, const char *ckpt, int resume, int groups, seen *w,
                           fdw_result *res, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* The spec of json (printf format fmt with ap) for run out, parsed; its output directory
 * g_dir/out into dir. */
static fdw_spec *vparse(const char *out, char *dir, size_t len, const char *fmt, va_list ap)
{
    char json[8192];
    vsnprintf(json, sizeof json, fmt, ap);
    snprintf(dir, len, "%s/%s", g_dir, out);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s: %s",
                  out, err.field, err.message);
    return spec;
}

static fdw_status run_opts(const char *out, const char *ckpt, int resume, int groups, seen *w,
                           fdw_result *res, const char *fmt, ...)
{
    char dir[160], ck[160];
    va_list ap;
    va_start(ap, fmt);
    fdw_spec *spec = vparse(out, dir, sizeof dir, fmt, ap);
    va_end(ap);
    fdw_error err;
    fdw_tuning tun;
    memset(&tun, 0, sizeof tun);
    tun.survey_groups = groups;
    fdw_checkpoint_opts cko = {.resume = resume};
    fdw_run_opts o = {.out_dir = dir, .backend = FDW_BACKEND_CPU, .tuning = &tun};
    if (ckpt) {
        snprintf(ck, sizeof ck, "%s/%s", g_dir, ckpt);
        cko.dir = ck;
        o.checkpoint = &cko;
    }
    if (w)
        snprintf(w->dir, sizeof w->dir, "%s", dir);
    fdw_callbacks cb = {.snapshot = on_snapshot, .progress = on_progress, .user = w,
                        .progress_interval_s = 1e9};
    const fdw_status st = fdw_run(spec, &o, w ? &cb : NULL, res, &err);
    ck_assert_msg(st == FDW_OK || st == FDW_ERR_CANCELLED, "%s: %s", out, err.message);
    fdw_spec_free(spec);
    return st;
}

static void run(const char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run(const char *out, const char *fmt, ...)
{
    char json[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(json, sizeof json, fmt, ap);
    va_end(ap);
    fdw_result res;
    ck_assert_int_eq(run_opts(out, NULL, 0, 0, NULL, &res, "%s", json), FDW_OK);
}

/* Run json (a printf format) on the CPU into g_dir/out as nparts parts, each with its own
 * checkpoint directory, then the combining run (fdw_run_opts.survey_parts), whose
 * callbacks w sees. */
static void run_parts(const char *out, int nparts, seen *w, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void run_parts(const char *out, int nparts, seen *w, const char *fmt, ...)
{
    char dir[160], ck[200];
    va_list ap;
    va_start(ap, fmt);
    fdw_spec *spec = vparse(out, dir, sizeof dir, fmt, ap);
    va_end(ap);
    snprintf(w->dir, sizeof w->dir, "%s", dir);
    fdw_error err;
    for (int k = 0; k <= nparts; k++) {
        snprintf(ck, sizeof ck, "%s/%s_ck%d", g_dir, out, k);
        fdw_checkpoint_opts cko = {.dir = ck, .resume = 1};
        fdw_run_opts o = {.out_dir = dir, .backend = FDW_BACKEND_CPU, .checkpoint = &cko,
                          .survey_parts = nparts,
                          .survey_part = k == nparts ? FDW_SURVEY_COMBINE : k};
        fdw_callbacks cb = {.snapshot = on_snapshot, .user = w, .progress_interval_s = 1e9};
        ck_assert_msg(fdw_run(spec, &o, &cb, NULL, &err) == FDW_OK, "%s part %d: %s", out, k,
                      err.message);
        if (k < nparts)
            ck_assert_int_eq(w->nsnap, 0); /* a part stacks nothing */
    }
    fdw_spec_free(spec);
}

static double result_number(const char *out, const char *key)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/manifest.json", g_dir, out);
    json_t *m = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(m);
    const json_t *v = json_object_get(json_object_get(m, "result"), key);
    ck_assert_msg(json_is_number(v), "%s: no result.%s", out, key);
    const double x = json_number_value(v);
    json_decref(m);
    return x;
}

/* The string member key of the manifest's entry for file name in run out ("" when the
 * entry or the member is missing: the caller's assertion names it). */
static void file_member(const char *out, const char *name, const char *key, char *val,
                        size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/manifest.json", g_dir, out);
    json_t *m = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(m);
    const json_t *files = json_object_get(m, "files");
    snprintf(val, len, "%s", "");
    for (size_t i = 0; i < json_array_size(files); i++) {
        const json_t *f = json_array_get(files, i);
        const char *n = json_string_value(json_object_get(f, "name"));
        if (n && strcmp(n, name) == 0 && json_is_string(json_object_get(f, key)))
            snprintf(val, len, "%s", json_string_value(json_object_get(f, key)));
    }
    json_decref(m);
}

/* The common members: a 32^3 grid, 2000 m/s, a sponge, nt 200. */
static const char *common(void)
{
    return "\"grid\": {\"nx\": 32, \"ny\": 32, \"nz\": 32, \"dx\": 10, \"dy\": 10, \"dz\": 10}, "
           "\"velocity\": {\"type\": \"constant\", \"value\": 2000}, \"time\": {\"nt\": 200, "
           "\"dt\": 0.0015}, \"boundary\": {\"type\": \"sponge\", \"width\": 8}";
}

static const char *RECEIVERS =
    "\"receivers\": {\"lines\": [{\"from\": [90, 155, 90], \"to\": [220, 155, 90], \"count\": "
    "10}], \"interval\": 2}";
static const char *SURVEY =
    "\"survey\": {\"generate\": {\"first\": [105, 155, 90], \"step\": [50, 0, 0], \"count\": 3}, "
    "\"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}";
static const char *PERT =
    "\"perturbation\": {\"type\": \"layers\", \"layers\": [{\"top\": 200, \"dv\": 300}]}";

/* The single-shot source of shot s of SURVEY. */
static void source_of(int s, char *out, size_t len)
{
    snprintf(out, len, "\"sources\": [{\"position\": [%d, 155, 90], \"wavelet\": {\"type\": "
             "\"ricker\", \"f0\": 15}}]", 105 + 50 * s);
}

/* A born survey's traces, then each shot's slice of them in its own file. */
static void born_data(void)
{
    run("born", "{\"kind\": \"born\", %s, %s, %s, %s}", common(), SURVEY, RECEIVERS, PERT);
    float *all = read_out("born", "all_shots.f32", (size_t)NSHOT * NREC * NS);
    for (int s = 0; s < NSHOT; s++) {
        char path[200];
        snprintf(path, sizeof path, "%s/d%d.f32", g_dir, s);
        img_write_f32(path, all + (size_t)s * NREC * NS, (size_t)NREC * NS);
    }
    free(all);
}

static void assert_same(const float *a, const float *b, size_t n, const char *what)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += memcmp(&a[i], &b[i], sizeof *a) != 0;
    ck_assert_msg(bad == 0, "%s: %zu of %zu values differ", what, bad, n);
}

START_TEST(test_born_survey)
{
    born_data();
    float *all = read_out("born", "all_shots.f32", (size_t)NSHOT * NREC * NS);
    for (int s = 0; s < NSHOT; s++) {
        char src[200], out[32];
        source_of(s, src, sizeof src);
        snprintf(out, sizeof out, "born1_%d", s);
        run(out, "{\"kind\": \"born\", %s, %s, %s, %s}", common(), src, RECEIVERS, PERT);
        float *g = read_out(out, "gather.f32", (size_t)NREC * NS);
        assert_same(g, all + (size_t)s * NREC * NS, (size_t)NREC * NS, "born shot gather");
        free(g);
    }
    free(all);
    printf("born survey: every shot's gather equals its single-shot run's\n");
}
END_TEST

START_TEST(test_rtm_survey)
{
    born_data();
    const size_t n = (size_t)N * N * N;
    const char *img = "\"imaging\": {\"illumination\": true}";
    char data[200];
    snprintf(data, sizeof data, "\"data\": {\"path\": \"%s/born/all_shots.f32\"}", g_dir);
    seen w = {.files_ok = 1};
    fdw_result res;
    run_opts("rtm", NULL, 0, 0, &w, &res, "{\"kind\": \"rtm\", %s, %s, %s, %s, %s}", common(),
             SURVEY, RECEIVERS, data, img);
    ck_assert_int_eq(w.nsnap, NSHOT);
    ck_assert_int_eq(w.last_index, NSHOT - 1);
    ck_assert_msg(w.files_ok, "a partial stack's files were missing when announced");
    char path[256];
    snprintf(path, sizeof path, "%s/rtm/stack_image_0003_xz_j16.png", g_dir);
    ck_assert_msg(access(path, R_OK) == 0, "no partial slice %s", path);
    /* the float sums of the single shots in shot order */
    float *sum = calloc(n, sizeof *sum), *ill = calloc(n, sizeof *ill);
    for (int s = 0; s < NSHOT; s++) {
        char src[200], out[32], d1[200];
        source_of(s, src, sizeof src);
        snprintf(out, sizeof out, "rtm1_%d", s);
        snprintf(d1, sizeof d1, "\"data\": {\"path\": \"%s/d%d.f32\"}", g_dir, s);
        run(out, "{\"kind\": \"rtm\", %s, %s, %s, %s, %s}", common(), src, RECEIVERS, d1, img);
        float *a = read_out(out, "image.f32", n), *b = read_out(out, "illumination.f32", n);
        for (size_t p = 0; p < n; p++)
            sum[p] += a[p], ill[p] += b[p];
        free(a), free(b);
    }
    float *stack = read_out("rtm", "image.f32", n), *stack_ill = read_out("rtm", "illumination.f32", n);
    assert_same(stack, sum, n, "rtm survey image");
    assert_same(stack_ill, ill, n, "rtm survey illumination");
    /* the partial stack of all the shots: its float32 xz slice is the image's plane j = 16 */
    float *slice = read_out("rtm", "stack_image_0003_xz_j16.f32", (size_t)N * N);
    float *plane = malloc((size_t)N * N * sizeof *plane);
    for (int k = 0; k < N; k++)
        for (int i = 0; i < N; i++)
            plane[(size_t)k * N + i] = stack[((size_t)k * N + 16) * N + i];
    assert_same(slice, plane, (size_t)N * N, "the last partial stack's xz slice");
    free(slice), free(plane);
    /* the partial stacks' entries carry their volume's units, as the final image's */
    char units[64];
    file_member("rtm", "stack_image_0001_xz_j16.f32", "units", units, sizeof units);
    ck_assert_str_eq(units, "data units x m/s");
    file_member("rtm", "stack_illumination_0002_yz_i16.f32", "units", units, sizeof units);
    ck_assert_str_eq(units, "wavefield amplitude squared");
    double e = 0.0;
    for (size_t p = 0; p < n; p++)
        e += (double)stack[p] * stack[p];
    ck_assert_double_gt(e, 0.0);
    /* three groups: the shots finish in any order, the stack is the same */
    run_opts("rtm3", NULL, 0, 3, NULL, &res, "{\"kind\": \"rtm\", %s, %s, %s, %s, %s, "
             "\"devices\": 3}", common(), SURVEY, RECEIVERS, data, img);
    ck_assert_int_eq(res.groups, 3);
    float *s3 = read_out("rtm3", "image.f32", n);
    assert_same(s3, sum, n, "rtm survey image in three groups");
    /* two groups of two devices: each shot over two slabs, the stack the same */
    run_opts("rtm22", NULL, 0, 2, NULL, &res, "{\"kind\": \"rtm\", %s, %s, %s, %s, %s, "
             "\"devices\": 4}", common(), SURVEY, RECEIVERS, data, img);
    ck_assert_int_eq(res.groups, 2);
    float *s22 = read_out("rtm22", "image.f32", n), *i22 = read_out("rtm22", "illumination.f32", n);
    assert_same(s22, sum, n, "rtm survey image, each shot on two slabs");
    assert_same(i22, ill, n, "rtm survey illumination, each shot on two slabs");
    free(s22), free(i22);
    /* in two parts (fdwaved's Slurm array tasks), then the combining run */
    seen wp = {.files_ok = 1};
    run_parts("rtmp", 2, &wp, "{\"kind\": \"rtm\", %s, %s, %s, %s, %s}", common(), SURVEY,
              RECEIVERS, data, img);
    ck_assert_int_eq(wp.nsnap, NSHOT); /* the combining run announces each partial stack */
    ck_assert_msg(wp.files_ok, "a partial stack's files were missing when announced");
    float *sp = read_out("rtmp", "image.f32", n), *ip = read_out("rtmp", "illumination.f32", n);
    assert_same(sp, sum, n, "rtm survey image in two parts");
    assert_same(ip, ill, n, "rtm survey illumination in two parts");
    float *pa = read_out("rtm", "stack_image_0002_xz_j16.f32", (size_t)N * N),
          *pb = read_out("rtmp", "stack_image_0002_xz_j16.f32", (size_t)N * N);
    assert_same(pb, pa, (size_t)N * N, "the partial stack of two shots in two parts");
    snprintf(path, sizeof path, "%s/rtmp/shot_0001.done", g_dir);
    ck_assert_msg(access(path, F_OK) != 0, "%s outlived the combining run", path);
    printf("rtm survey: the image and illumination are the single shots' sums in shot order "
           "bit for bit, in one group, in three, in two of two slabs a shot and in two parts "
           "combined; %d partial stacks "
           "announced\n", w.nsnap);
    free(sum), free(ill), free(stack), free(stack_ill), free(s3), free(sp), free(ip), free(pa),
        free(pb);
}
END_TEST

START_TEST(test_gradient_survey)
{
    /* observed: the acoustic kind in a model with a faster layer; the gradient in 2000 m/s */
    const char *spread =
        "\"survey\": {\"generate\": {\"first\": [105, 155, 90], \"step\": [50, 0, 0], "
        "\"count\": 3}, \"wavelet\": {\"type\": \"ricker\", \"f0\": 15}, \"spread\": {\"lines\": "
        "[{\"from\": [-10, 0, 0], \"to\": [80, 0, 0], \"count\": 10}]}}";
    const char *layered = "\"velocity\": {\"type\": \"layered\", \"layers\": [{\"top\": 0, "
                          "\"v\": 2000}, {\"top\": 200, \"v\": 2300}]}";
    char acoustic[1024];
    snprintf(acoustic, sizeof acoustic, "%s", common());
    char *v = strstr(acoustic, "\"velocity\"");
    char *t = strstr(acoustic, ", \"time\"");
    char fixed[1024];
    snprintf(fixed, sizeof fixed, "%.*s%s%s", (int)(v - acoustic), acoustic, layered, t);
    run("obs", "{\"kind\": \"acoustic\", %s, %s, \"receivers\": {\"interval\": 2}}", fixed, spread);
    const size_t n = (size_t)N * N * N, nd = (size_t)NSHOT * NREC * NS;
    float *obs = read_out("obs", "all_shots.f32", nd);
    char data[200];
    snprintf(data, sizeof data, "\"data\": {\"path\": \"%s/obs/all_shots.f32\"}", g_dir);
    run("grad", "{\"kind\": \"gradient\", %s, %s, \"receivers\": {\"interval\": 2}, %s}",
        common(), spread, data);
    float *sum = calloc(n, sizeof *sum);
    double misfit = 0.0;
    float *pred = read_out("grad", "all_shots.f32", nd);
    for (int s = 0; s < NSHOT; s++) {
        char src[200], out[32], d1[200], recs[300];
        source_of(s, src, sizeof src);
        snprintf(out, sizeof out, "grad1_%d", s);
        snprintf(d1, sizeof d1, "%s/o%d.f32", g_dir, s);
        img_write_f32(d1, obs + (size_t)s * NREC * NS, (size_t)NREC * NS);
        const int x = 105 + 50 * s;
        snprintf(recs, sizeof recs, "\"receivers\": {\"lines\": [{\"from\": [%d, 155, 90], "
                 "\"to\": [%d, 155, 90], \"count\": 10}], \"interval\": 2}", x - 10, x + 80);
        run(out, "{\"kind\": \"gradient\", %s, %s, %s, \"data\": {\"path\": \"%s\"}}", common(),
            src, recs, d1);
        float *g = read_out(out, "gradient.f32", n), *p1 = read_out(out, "gather.f32", (size_t)NREC * NS);
        for (size_t p = 0; p < n; p++)
            sum[p] += g[p];
        misfit += result_number(out, "misfit");
        assert_same(p1, pred + (size_t)s * NREC * NS, (size_t)NREC * NS, "predicted traces");
        free(g), free(p1);
    }
    float *stack = read_out("grad", "gradient.f32", n);
    assert_same(stack, sum, n, "gradient survey");
    const double m = result_number("grad", "misfit");
    ck_assert_msg(m == misfit && m > 0.0, "misfit %.17g against the shots' sum %.17g", m, misfit);
    printf("gradient survey (moving spread): the gradient is the shots' sum bit for bit, the "
           "misfit %.9e their sum, the predicted traces theirs\n", m);
    free(obs), free(sum), free(pred), free(stack);
}
END_TEST

START_TEST(test_resume)
{
    born_data();
    const size_t n = (size_t)N * N * N;
    char data[200];
    snprintf(data, sizeof data, "\"data\": {\"path\": \"%s/born/all_shots.f32\"}", g_dir);
    fdw_result res;
    run_opts("full", NULL, 0, 0, NULL, &res, "{\"kind\": \"rtm\", %s, %s, %s, %s}", common(),
             SURVEY, RECEIVERS, data);
    seen w = {.files_ok = 1, .stop_after = 1};
    const fdw_status st = run_opts("part", "ck", 1, 0, &w, &res, "{\"kind\": \"rtm\", %s, %s, "
                                   "%s, %s}", common(), SURVEY, RECEIVERS, data);
    ck_assert_int_eq(st, FDW_ERR_CANCELLED);
    ck_assert_int_eq(res.shots_done, 1);
    char path[256];
    snprintf(path, sizeof path, "%s/ck/stack_1.f32", g_dir);
    ck_assert_msg(access(path, R_OK) == 0, "no stack state %s", path);
    seen w2 = {.files_ok = 1};
    ck_assert_int_eq(run_opts("part", "ck", 1, 0, &w2, &res, "{\"kind\": \"rtm\", %s, %s, %s, "
                              "%s}", common(), SURVEY, RECEIVERS, data), FDW_OK);
    ck_assert_int_eq(res.shots_resumed, 1);
    ck_assert_int_eq(w2.nsnap, NSHOT - 1);
    ck_assert(w.files_ok && w2.files_ok);
    ck_assert_msg(access(path, F_OK) != 0, "the stack state %s outlived the survey", path);
    float *a = read_out("full", "image.f32", n), *b = read_out("part", "image.f32", n);
    assert_same(b, a, n, "resumed survey image");
    printf("rtm survey stopped after shot 1 and resumed: shot 1 not run again, the image "
           "bit for bit the uninterrupted run's\n");
    free(a), free(b);
}
END_TEST

START_TEST(test_refusals)
{
    char j[4096], d[160];
    snprintf(d, sizeof d, "%s/one_shot.f32", g_dir);
    float *x = calloc((size_t)NREC * NS, sizeof *x);
    img_write_f32(d, x, (size_t)NREC * NS);
    free(x);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", %s, %s, %s, \"data\": {\"path\": \"%s\"}}",
             common(), SURVEY, RECEIVERS, d);
    img_refused(j, "data.path", "the survey's 30 traces");
    snprintf(j, sizeof j, "{\"kind\": \"gradient\", %s, %s, \"data\": {\"format\": \"segy\", "
             "\"path\": \"%s\"}}", common(), SURVEY, d);
    img_refused(j, "survey.generate", "FFIDs of data.path"); /* SEG-Y: the file's shots */
    snprintf(j, sizeof j, "{\"kind\": \"born\", %s, %s, %s, \"snapshots\": {\"every\": 10}}",
             common(), SURVEY, PERT);
    img_refused(j, "snapshots", "");
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_born_survey);
    tcase_add_test(tc, test_rtm_survey);
    tcase_add_test(tc, test_gradient_survey);
    tcase_add_test(tc, test_resume);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/fdw-imgsurvey-XXXXXX");
    return img_check_main(g_dir, "imaging_survey", 600, add_tests);
}
