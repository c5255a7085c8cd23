/* test_survey.c — survey jobs through the public API (CPU backend, virtual devices): the
 * survey section's errors name the field (shot positions, generated lines, spreads outside
 * the grid, the limits on shots and traces); every shot's gather is the same bit for bit
 * whether the shots ran one after another on two devices, in parallel one per device, or
 * as a single-shot job of that shot; a cancelled survey keeps its finished shots (files and
 * manifest); a survey stopped and run again resumes at the first unfinished shot (and, when
 * suspended within a shot, from that shot's checkpoint) with outputs identical to an
 * uninterrupted run's; the model is read once (removed while the first shot runs, the rest
 * run all the same); the SEG-Y of each shot and all_shots.sgy read back with segyio
 * (check_survey.py) hold the shot numbers, positions and traces; fdwave-run killed with
 * SIGKILL mid-survey and started again with the same checkpoint directory resumes at the
 * first unfinished shot and ends with the uninterrupted run's outputs; an ETE survey's shots
 * equal single-shot ETE jobs and its operator fit is kept once; a survey run in parts
 * (fdw_run_opts.survey_parts: fdwaved's Slurm array tasks) then combined has a whole
 * run's outputs and manifest. */
#include "ckpt_util.h"
#include "fdwave/fdwave.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char g_dir[512];

static void setup(void)
{
    ckpt_tmpdir("survey", g_dir, sizeof g_dir);
}

static void teardown(void)
{
    ckpt_rmtree(g_dir);
}

static const char *path_in(const char *name)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ & 3];
    snprintf(b, sizeof bufs[0], "%s/%s", g_dir, name);
    return b;
}

/* The grid, model and time every spec here shares; survey and receivers vary. */
#define HEAD                                                                                  \
    "{\"kind\": \"acoustic\", \"name\": \"survey test\", "                                   \
    "\"grid\": {\"nx\": 40, \"ny\": 12, \"nz\": 32, \"dx\": 10, \"dy\": 10, \"dz\": 10}, "     \
    "\"order\": 8, \"velocity\": {\"type\": \"layered\", \"layers\": [{\"top\": 0, \"v\": "   \
    "1500}, {\"top\": 150, \"v\": 2200}]}, \"time\": {\"nt\": 120, \"dt\": \"auto\"}, "        \
    "\"boundary\": {\"type\": \"cpml\", \"width\": 5, \"free_surface\": true}, "

/* Three shots along x with a split spread of 10 receivers 10 m deep, on 2 devices. */
static const char *SURVEY =
    HEAD "\"survey\": {\"generate\": {\"first\": [120, 40, 20], \"step\": [70, 0, 0.5], "
    "\"count\": 3}, \"wavelet\": {\"type\": \"ricker\", \"f0\": 14}, \"first_number\": 101, "
    "\"spread\": {\"lines\": [{\"from\": [-100, 0, -10], \"to\": [-20, 0, -10], \"count\": 5}, "
    "{\"from\": [20, 0, -10], \"to\": [100, 0, -10], \"count\": 5}]}}, "
    "\"receivers\": {\"interval\": 2}, \"devices\": 2}";

static fdw_status parse_with(const char *json, const fdw_parse_opts *opts, fdw_spec **spec,
                             fdw_error *err)
{
    return fdw_spec_parse(json, strlen(json), opts, spec, err);
}

static fdw_spec *parse(const char *json)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(parse_with(json, NULL, &spec, &err) == FDW_OK, "spec: %s: %s", err.field,
                  err.message);
    return spec;
}

/* The spec with a survey section and receivers of our own. */
static char *with_survey(const char *survey, const char *receivers)
{
    char *s = malloc(8192);
    snprintf(s, 8192, HEAD "\"survey\": %s, \"receivers\": %s}", survey, receivers);
    return s;
}

/* A spec refused on field, its message holding words. */
static void refused(const char *json, const fdw_parse_opts *opts, const char *field,
                    const char *words)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_int_eq(parse_with(json, opts, &spec, &err), FDW_ERR_SPEC);
    ck_assert_ptr_null(spec);
    ck_assert_msg(strcmp(err.field, field) == 0, "field %s (want %s): %s", err.field, field,
                  err.message);
    ck_assert_msg(strstr(err.message, words), "message lacks \"%s\": %s", words, err.message);
}

/* refused() of the spec with that survey section and receivers. */
static void refused_survey(const char *survey, const char *receivers,
                           const fdw_parse_opts *opts, const char *field, const char *words)
{
    char *s = with_survey(survey, receivers);
    refused(s, opts, field, words);
    free(s);
}

START_TEST(parse_counts_and_positions)
{
    fdw_spec *spec = parse(SURVEY);
    ck_assert_int_eq(fdw_spec_shots(spec), 3);
    ck_assert_uint_gt(fdw_spec_device_bytes(spec), 0);
    ck_assert_uint_gt(fdw_spec_host_bytes(spec, FDW_BACKEND_CPU),
                      fdw_spec_device_bytes(spec));
    char *json = fdw_spec_to_json(spec);
    ck_assert_ptr_nonnull(strstr(json, "\"first_number\":101"));
    ck_assert_ptr_nonnull(strstr(json, "\"generate\""));
    free(json);
    fdw_spec_free(spec);
    /* a listed survey with a fixed layout and one shot's own wavelet */
    char *s = with_survey("{\"shots\": [{\"position\": [100, 40, 20]}, {\"position\": [200, 40, "
                          "20], \"wavelet\": {\"type\": \"ricker\", \"f0\": 10}}], \"wavelet\": "
                          "{\"type\": \"ricker\", \"f0\": 14}}",
                          "{\"lines\": [{\"from\": [0, 40, 10], \"to\": [390, 40, 10], "
                          "\"count\": 20}]}");
    spec = parse(s);
    ck_assert_int_eq(fdw_spec_shots(spec), 2);
    fdw_spec_free(spec);
    free(s);
    /* a single-shot spec has no shots */
    spec = parse(HEAD "\"sources\": [{\"position\": [100, 40, 20], \"wavelet\": {\"type\": "
                      "\"ricker\", \"f0\": 14}}], \"receivers\": {\"points\": [[10, 40, 10]]}}");
    ck_assert_int_eq(fdw_spec_shots(spec), 0);
    fdw_spec_free(spec);
}
END_TEST

START_TEST(parse_errors_name_the_field)
{
    static const char *W = "\"wavelet\": {\"type\": \"ricker\", \"f0\": 14}";
    static const char *REC = "{\"points\": [[10, 40, 10]]}";
    char sv[2048];
    /* a listed shot outside the grid: its index and field */
    snprintf(sv, sizeof sv, "{\"shots\": [{\"position\": [10, 40, 20]}, {\"position\": [20, "
             "40, 20]}, {\"position\": [500, 40, 20]}], %s}", W);
    refused_survey(sv, REC, NULL, "survey.shots[2].position", "outside the grid");
    /* a generated line running off the grid: its count, the shot */
    snprintf(sv, sizeof sv, "{\"generate\": {\"first\": [100, 40, 20], \"step\": [100, 0, 0], "
             "\"count\": 5}, %s}", W);
    refused_survey(sv, REC, NULL, "survey.generate.count", "generated shot 4");
    /* both a list and a generator */
    snprintf(sv, sizeof sv, "{\"shots\": [{\"position\": [10, 40, 20]}], \"generate\": "
             "{\"first\": [100, 40, 20], \"step\": [1, 0, 0], \"count\": 1}, %s}", W);
    refused_survey(sv, REC, NULL, "survey", "exactly one");
    /* a shot without a wavelet */
    refused_survey("{\"shots\": [{\"position\": [10, 40, 20]}]}", REC, NULL,
                   "survey.shots[0].wavelet", "no wavelet");
    /* a spread receiver off the grid: the spread entry, the shot named */
    snprintf(sv, sizeof sv, "{\"generate\": {\"first\": [100, 40, 20], \"step\": [100, 0, 0], "
             "\"count\": 3}, %s, \"spread\": {\"points\": [[0, 0, -10]], \"lines\": [{\"from\": "
             "[10, 0, -10], \"to\": [50, 0, -10], \"count\": 3}, {\"from\": [60, 0, -10], \"to\": "
             "[150, 0, -10], \"count\": 4}]}}", W);
    refused_survey(sv, "{\"interval\": 1}", NULL, "survey.spread.lines[1]",
                   "shot 3 (survey shot 2 at (300, 40, 20) m)");
    /* ... which "drop" accepts, keeping fewer receivers for the last shots */
    snprintf(sv, sizeof sv, "{\"generate\": {\"first\": [100, 40, 20], \"step\": [100, 0, 0], "
             "\"count\": 3}, %s, \"outside\": \"drop\", \"spread\": {\"lines\": [{\"from\": "
             "[60, 0, -10], \"to\": [150, 0, -10], \"count\": 4}]}}", W);
    char *s = with_survey(sv, "{\"interval\": 1}");
    fdw_spec *spec = parse(s);
    ck_assert_int_eq(fdw_spec_shots(spec), 3);
    fdw_spec_free(spec);
    free(s);
    /* a spread with fixed receivers too */
    snprintf(sv, sizeof sv, "{\"generate\": {\"first\": [100, 40, 20], \"step\": [10, 0, 0], "
             "\"count\": 2}, %s, \"spread\": {\"points\": [[10, 0, 0]]}}", W);
    refused_survey(sv, REC, NULL, "receivers", "move with each shot");
    /* a fixed layout without receivers */
    snprintf(sv, sizeof sv, "{\"generate\": {\"first\": [100, 40, 20], \"step\": [10, 0, 0], "
             "\"count\": 2}, %s}", W);
    refused_survey(sv, "{\"interval\": 1}", NULL, "receivers", "records every shot");
    /* the limits: shots, traces */
    fdw_parse_opts o = {.max_shots = 2};
    snprintf(sv, sizeof sv, "{\"generate\": {\"first\": [100, 40, 20], \"step\": [10, 0, 0], "
             "\"count\": 3}, %s}", W);
    refused_survey(sv, REC, &o, "survey.generate.count", "between 1 and 2");
    snprintf(sv, sizeof sv, "{\"shots\": [{\"position\": [10, 40, 20]}, {\"position\": [20, 40, "
             "20]}, {\"position\": [30, 40, 20]}], %s}", W);
    fdw_parse_opts t = {.max_traces = 5};
    refused_survey(sv, REC, &o, "survey.shots", "at most 2");
    snprintf(sv, sizeof sv, "{\"generate\": {\"first\": [100, 40, 20], \"step\": [10, 0, 0], "
             "\"count\": 3}, %s, \"spread\": {\"lines\": [{\"from\": [0, 0, 0], \"to\": [20, 0, "
             "0], \"count\": 2}]}}", W);
    refused_survey(sv, "{\"interval\": 1}", &t, "survey.spread", "at most 5");
    fdw_parse_opts rb = {.max_record_bytes = 1000};
    snprintf(sv, sizeof sv, "{\"generate\": {\"first\": [100, 40, 20], \"step\": [10, 0, 0], "
             "\"count\": 3}, %s}", W);
    refused_survey(sv, REC, &rb, "survey", "bytes");
    /* sources beside a survey, snapshots, a survey on a kind without sources */
    refused(HEAD "\"sources\": [], \"survey\": {}, \"receivers\": {}}", NULL, "sources",
            "does not apply");
    snprintf(sv, sizeof sv, "{\"generate\": {\"first\": [100, 40, 20], \"step\": [10, 0, 0], "
             "\"count\": 2}, %s}", W);
    s = malloc(8192);
    snprintf(s, 8192, HEAD "\"survey\": %s, \"receivers\": %s, \"snapshots\": {\"every\": 10, "
             "\"slices\": [{\"plane\": \"xy\", \"index\": 2}]}}", sv, REC);
    refused(s, NULL, "snapshots", "no snapshots");
    free(s);
    refused("{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 16, \"dx\": 1, "
            "\"dy\": 1, \"dz\": 1}, \"iterations\": 2, \"survey\": {}}",
            NULL, "survey", "does not apply");
}
END_TEST

/* What a run's progress reports said. */
typedef struct seen {
    int reports, max_shots_done, nshots, last_shot;
    int cancel_after;          /* cancel once this many shots are done (0: never) */
    int suspend_shot;          /* suspend when this shot number is at suspend_step */
    long suspend_step;
    int suspended_poll;
    int resumed;               /* checkpoint callbacks that said resumed */
    double last_percent;
    char log[8192];
} seen;

static int on_progress(void *user, const fdw_progress *p)
{
    seen *s = user;
    s->reports++;
    ck_assert_int_gt(p->nshots, 0);
    ck_assert_int_le(p->shots_done, p->nshots);
    ck_assert(p->percent >= 0.0 && p->percent <= 100.0);
    s->nshots = p->nshots;
    if (p->shots_done > s->max_shots_done)
        s->max_shots_done = p->shots_done;
    if (p->shot > 0)
        s->last_shot = p->shot;
    s->last_percent = p->percent;
    if (s->suspend_shot > 0 && p->shot == s->suspend_shot && p->step >= s->suspend_step)
        s->suspended_poll = 1;
    return s->cancel_after > 0 && p->shots_done >= s->cancel_after;
}

static int on_suspend(void *user)
{
    return ((seen *)user)->suspended_poll;
}

static void on_checkpoint(void *user, const fdw_checkpoint_info *c)
{
    if (c->resumed)
        ((seen *)user)->resumed++;
}

static void on_log(void *user, int level, const char *msg)
{
    seen *s = user;
    if (level < FDW_LOG_INFO)
        return;
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof s->log - n, "%s\n", msg);
}

static fdw_status run(const fdw_spec *spec, const char *out, int groups, const char *ck,
                      long every, seen *s, fdw_result *res)
{
    fdw_tuning tu = {.survey_groups = groups};
    fdw_checkpoint_opts co = {.dir = ck, .every_steps = every, .resume = 1};
    fdw_run_opts ro = {.out_dir = out, .backend = FDW_BACKEND_CPU, .threads = 2,
                       .tuning = &tu, .checkpoint = ck ? &co : NULL};
    fdw_callbacks cb = {.progress = on_progress, .suspend = on_suspend, .log = on_log,
                        .checkpoint = on_checkpoint, .user = s,
                        .progress_interval_s = 0.001};
    fdw_error err;
    fdw_status st = fdw_run(spec, &ro, &cb, res, &err);
    if (st != FDW_OK && st != FDW_ERR_CANCELLED)
        ck_abort_msg("run failed: %s: %s", err.field, err.message);
    return st;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    ck_assert_int_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void same_file(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
    ck_assert_msg(na == nb && memcmp(x, y, na) == 0, "%s and %s differ", a, b);
    free(x);
    free(y);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

START_TEST(sequential_parallel_single_identical)
{
    fdw_spec *spec = parse(SURVEY);
    seen s1 = {0}, s2 = {0}, s0 = {0};
    fdw_result r1, r2, r0;
    ck_assert_int_eq(run(spec, path_in("seq"), 1, NULL, 0, &s1, &r1), FDW_OK);
    ck_assert_int_eq(run(spec, path_in("par"), 2, NULL, 0, &s2, &r2), FDW_OK);
    ck_assert_int_eq(run(spec, path_in("auto"), 0, NULL, 0, &s0, &r0), FDW_OK);
    ck_assert_int_eq(r1.groups, 1);
    ck_assert_int_eq(r2.groups, 2);
    ck_assert_int_eq(r0.groups, 2); /* a shot fits on one virtual device */
    ck_assert_int_eq(r1.shots_done, 3);
    ck_assert_int_eq(r2.nshots, 3);
    ck_assert_int_eq(s1.max_shots_done, 3);
    ck_assert_int_eq(s2.max_shots_done, 3);
    ck_assert_int_gt(s1.reports, 3);
    ck_assert(s1.last_percent > 99.9);
    ck_assert_ptr_nonnull(strstr(s1.log, "one after another"));
    ck_assert_ptr_nonnull(strstr(s2.log, "in parallel"));
    char why[512];
    ck_assert_msg(ckpt_outputs_equal(path_in("seq"), path_in("par"), why, sizeof why), "%s",
                  why);
    ck_assert_msg(ckpt_outputs_equal(path_in("seq"), path_in("auto"), why, sizeof why), "%s",
                  why);
    /* shot 102 (the second) as a job of its own on one device */
    char *single = malloc(8192);
    snprintf(single, 8192,
             HEAD "\"sources\": [{\"position\": [190, 40, 20.5], \"wavelet\": {\"type\": "
                  "\"ricker\", \"f0\": 14}}], \"receivers\": {\"interval\": 2, \"lines\": "
                  "[{\"from\": [90, 40, 10.5], \"to\": [170, 40, 10.5], \"count\": 5}, "
                  "{\"from\": [210, 40, 10.5], \"to\": [290, 40, 10.5], \"count\": 5}]}, "
                  "\"devices\": 1}");
    fdw_spec *one = parse(single);
    free(single);
    fdw_run_opts ro = {.out_dir = path_in("single"), .backend = FDW_BACKEND_CPU, .threads = 2};
    fdw_error err;
    ck_assert_int_eq(fdw_run(one, &ro, NULL, NULL, &err), FDW_OK);
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/gather.f32", path_in("single"));
    snprintf(b, sizeof b, "%s/shot_0102.f32", path_in("par"));
    same_file(a, b);
    fdw_spec_free(one);
    /* all_shots.f32 is the shots' traces in order */
    size_t n[3], total = 0, nall;
    unsigned char *parts[3];
    for (int i = 0; i < 3; i++) {
        snprintf(a, sizeof a, "%s/shot_%04d.f32", path_in("seq"), 101 + i);
        parts[i] = slurp(a, &n[i]);
        total += n[i];
    }
    snprintf(a, sizeof a, "%s/all_shots.f32", path_in("seq"));
    unsigned char *all = slurp(a, &nall);
    ck_assert_uint_eq(nall, total);
    ck_assert(memcmp(all, parts[0], n[0]) == 0 && memcmp(all + n[0], parts[1], n[1]) == 0 &&
              memcmp(all + n[0] + n[1], parts[2], n[2]) == 0);
    for (int i = 0; i < 3; i++)
        free(parts[i]);
    free(all);
    /* no run directories or records left */
    snprintf(a, sizeof a, "%s/shot_0101.run", path_in("seq"));
    ck_assert(!exists(a));
    fdw_spec_free(spec);
}
END_TEST

/* A listed survey with fixed receivers, the second shot with its own wavelet: every shot
 * records the spec's 20 receivers; the two gathers differ; all_shots holds both. */
START_TEST(fixed_layout_runs)
{
    char *json = with_survey("{\"shots\": [{\"position\": [100, 40, 20]}, {\"position\": [200, "
                             "40, 20], \"wavelet\": {\"type\": \"ricker\", \"f0\": 10}}], "
                             "\"wavelet\": {\"type\": \"ricker\", \"f0\": 14}}",
                             "{\"lines\": [{\"from\": [0, 40, 10], \"to\": [390, 40, 10], "
                             "\"count\": 20}]}");
    fdw_spec *spec = parse(json);
    free(json);
    seen s = {0};
    fdw_result r;
    ck_assert_int_eq(run(spec, path_in("fixed"), 0, NULL, 0, &s, &r), FDW_OK);
    ck_assert_int_eq(r.shots_done, 2);
    char a[1024];
    size_t n[2], nall;
    unsigned char *g[2];
    for (int i = 0; i < 2; i++) {
        snprintf(a, sizeof a, "%s/shot_%04d.f32", path_in("fixed"), i + 1);
        g[i] = slurp(a, &n[i]);
        ck_assert_uint_eq(n[i], 20u * 121u * 4u);
    }
    ck_assert(memcmp(g[0], g[1], n[0]) != 0);
    snprintf(a, sizeof a, "%s/all_shots.f32", path_in("fixed"));
    free(slurp(a, &nall));
    ck_assert_uint_eq(nall, n[0] + n[1]);
    free(g[0]);
    free(g[1]);
    fdw_spec_free(spec);
}
END_TEST

/* Listed shots with their own numbers and receivers (an irregular acquisition): each
 * shot's gather is the single-shot job's of that source and those receivers, named by its
 * number; the refusals name the entry. */
#define OWN_SHOTS                                                                             \
    "{\"shots\": [{\"position\": [100, 40, 20], \"number\": 7, \"receivers\": [[20, 40, 10], " \
    "[60, 50, 10], [300, 30, 20]]}, {\"position\": [250, 60, 20], \"number\": 12, "             \
    "\"receivers\": [[200, 60, 10], [380, 60, 10]]}], \"wavelet\": {\"type\": \"ricker\", "   \
    "\"f0\": 14}}"
START_TEST(own_receivers_and_numbers)
{
    char *json = with_survey(OWN_SHOTS, "{\"interval\": 2}");
    fdw_spec *spec = parse(json);
    free(json);
    char *norm = fdw_spec_to_json(spec);
    ck_assert_ptr_nonnull(strstr(norm, "\"number\":12"));
    ck_assert_ptr_null(strstr(norm, "first_number"));
    free(norm);
    seen sn = {0};
    fdw_result r;
    ck_assert_int_eq(run(spec, path_in("own"), 0, NULL, 0, &sn, &r), FDW_OK);
    ck_assert_int_eq(r.shots_done, 2);
    fdw_spec_free(spec);
    fdw_spec *one = parse(HEAD "\"sources\": [{\"position\": [250, 60, 20], \"wavelet\": "
                          "{\"type\": \"ricker\", \"f0\": 14}}], \"receivers\": {\"points\": "
                          "[[200, 60, 10], [380, 60, 10]], \"interval\": 2}}");
    fdw_run_opts ro = {.out_dir = path_in("own_12"), .backend = FDW_BACKEND_CPU, .threads = 2};
    fdw_error err;
    ck_assert_int_eq(fdw_run(one, &ro, NULL, &r, &err), FDW_OK);
    fdw_spec_free(one);
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/shot_0012.f32", path_in("own"));
    snprintf(b, sizeof b, "%s/gather.f32", path_in("own_12"));
    same_file(a, b);
    size_t n;
    snprintf(a, sizeof a, "%s/shot_0007.f32", path_in("own"));
    free(slurp(a, &n));
    ck_assert_uint_eq(n, 3u * 61u * 4u);
    refused_survey("{\"shots\": [{\"position\": [100, 40, 20], \"number\": 7}, {\"position\": "
                   "[200, 40, 20]}], \"wavelet\": {\"type\": \"ricker\", \"f0\": 14}}",
                   "{\"points\": [[10, 40, 10]]}", NULL, "survey.shots[1]", "for every listed");
    refused_survey("{\"shots\": [{\"position\": [100, 40, 20], \"number\": 7}, {\"position\": "
                   "[200, 40, 20], \"number\": 7}], \"wavelet\": {\"type\": \"ricker\", "
                   "\"f0\": 14}}", "{\"points\": [[10, 40, 10]]}", NULL,
                   "survey.shots[1].number", "must increase");
    refused_survey("{\"shots\": [{\"position\": [100, 40, 20], \"number\": 7}], "
                   "\"first_number\": 3, \"wavelet\": {\"type\": \"ricker\", \"f0\": 14}}",
                   "{\"points\": [[10, 40, 10]]}", NULL, "survey.first_number",
                   "does not apply");
    refused_survey("{\"shots\": [{\"position\": [100, 40, 20], \"receivers\": [[10, 40, 10]]}, "
                   "{\"position\": [200, 40, 20], \"receivers\": [[10, 40, 10], [900, 40, "
                   "10]]}], \"wavelet\": {\"type\": \"ricker\", \"f0\": 14}}",
                   "{\"interval\": 1}", NULL, "survey.shots[1].receivers[1]", "outside");
    refused_survey(OWN_SHOTS, "{\"points\": [[10, 40, 10]]}", NULL, "receivers",
                   "their own receivers");
    refused_survey("{\"shots\": [{\"position\": [100, 40, 20], \"receivers\": [[10, 40, 10]]}], "
                   "\"spread\": {\"points\": [[10, 0, 0]]}, \"wavelet\": {\"type\": \"ricker\", "
                   "\"f0\": 14}}", "{\"interval\": 1}", NULL, "survey.spread", "does not apply");
    refused_survey("{\"shots\": [{\"position\": [100, 40, 20], \"receivers\": []}], "
                   "\"wavelet\": {\"type\": \"ricker\", \"f0\": 14}}", "{\"interval\": 1}", NULL,
                   "survey.shots[0].receivers", "no receiver");
}
END_TEST

/* The model is read once for all shots: a model file removed while the first shot runs
 * leaves the other shots running, with the outputs of a run that kept it. */
static int remove_model(void *user, const fdw_progress *p)
{
    (void)p;
    unlink((const char *)user);
    return 0;
}

START_TEST(model_read_once)
{
    const int n = 40 * 12 * 32;
    float *v = malloc((size_t)n * sizeof *v);
    for (int i = 0; i < n; i++)
        v[i] = i / (40 * 12) < 15 ? 1500.0f : 2200.0f;
    char model[700];
    snprintf(model, sizeof model, "%s/model.f32", g_dir);
    FILE *f = fopen(model, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(v, sizeof *v, (size_t)n, f), (size_t)n);
    fclose(f);
    free(v);
    char *json = malloc(8192);
    snprintf(json, 8192, "%s", SURVEY);
    const char *layered = "{\"type\": \"layered\", \"layers\": [{\"top\": 0, \"v\": 1500}, "
                          "{\"top\": 150, \"v\": 2200}]}";
    char *at = strstr(json, layered), *rest = strdup(at + strlen(layered));
    snprintf(at, 8192 - (size_t)(at - json),
             "{\"type\": \"file\", \"format\": \"raw-f32\", \"path\": \"%s\"}%s", model, rest);
    free(rest);
    fdw_spec *spec = parse(json);
    free(json);
    fdw_result r;
    seen s = {0};
    ck_assert_int_eq(run(spec, path_in("kept"), 1, NULL, 0, &s, &r), FDW_OK);
    fdw_run_opts ro = {.out_dir = path_in("gone"), .backend = FDW_BACKEND_CPU, .threads = 2};
    fdw_callbacks cb = {.progress = remove_model, .user = model, .progress_interval_s = 0.001};
    fdw_error err;
    ck_assert_msg(fdw_run(spec, &ro, &cb, &r, &err) == FDW_OK, "%s", err.message);
    ck_assert_int_eq(r.shots_done, 3);
    ck_assert(!exists(model));
    char why[512];
    ck_assert_msg(ckpt_outputs_equal(path_in("kept"), path_in("gone"), why, sizeof why), "%s",
                  why);
    fdw_spec_free(spec);
}
END_TEST

START_TEST(cancel_keeps_finished_shots)
{
    fdw_spec *spec = parse(SURVEY);
    seen s = {.cancel_after = 2};
    fdw_result r;
    ck_assert_int_eq(run(spec, path_in("cancel"), 1, NULL, 0, &s, &r), FDW_ERR_CANCELLED);
    ck_assert_int_eq(r.shots_done, 2);
    char p[1024];
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/shot_%04d.sgy", path_in("cancel"), 101 + i);
        ck_assert_int_eq(exists(p), i < 2);
    }
    snprintf(p, sizeof p, "%s/all_shots.sgy", path_in("cancel"));
    ck_assert(!exists(p));
    size_t n;
    snprintf(p, sizeof p, "%s/manifest.json", path_in("cancel"));
    char *m = (char *)slurp(p, &n);
    m[n] = '\0';
    ck_assert_ptr_nonnull(strstr(m, "\"completed\": false"));
    ck_assert_ptr_nonnull(strstr(m, "\"shots_done\": 2"));
    ck_assert_ptr_nonnull(strstr(m, "\"name\": \"shot_0102.sgy\""));
    ck_assert_ptr_null(strstr(m, "shot_0103"));
    free(m);
    fdw_spec_free(spec);
}
END_TEST

/* Stopped after its first shot (a cancellation), the survey run again with the same
 * checkpoint directory starts at the second shot; suspended within the third shot, it
 * resumes that shot from its checkpoint; the outputs equal an uninterrupted run's. */
START_TEST(resume_at_first_unfinished_shot)
{
    fdw_spec *spec = parse(SURVEY);
    fdw_result r;
    seen ref = {0};
    ck_assert_int_eq(run(spec, path_in("ref"), 1, NULL, 0, &ref, &r), FDW_OK);
    const char *ck = path_in("ck");
    seen a = {.cancel_after = 1};
    ck_assert_int_eq(run(spec, path_in("out"), 1, ck, 0, &a, &r), FDW_ERR_CANCELLED);
    ck_assert_int_eq(r.shots_done, 1);
    seen b = {.suspend_shot = 103, .suspend_step = 60};
    ck_assert_int_eq(run(spec, path_in("out"), 1, ck, 20, &b, &r), FDW_ERR_CANCELLED);
    ck_assert_int_eq(r.shots_resumed, 1);
    ck_assert_int_eq(r.shots_done, 2);
    ck_assert_int_eq(r.suspended, 1);
    ck_assert_ptr_nonnull(strstr(b.log, "survey resumed: 1 of 3 shots were finished"));
    seen c = {0};
    ck_assert_int_eq(run(spec, path_in("out"), 1, ck, 20, &c, &r), FDW_OK);
    ck_assert_int_eq(r.shots_resumed, 2);
    ck_assert_int_eq(r.shots_done, 3);
    ck_assert_int_eq(c.resumed, 1); /* shot 103 from its checkpoint */
    ck_assert_ptr_nonnull(strstr(c.log, "shot 103 resumed at step"));
    ck_assert_int_lt(r.steps_done, 120);
    char why[512];
    ck_assert_msg(ckpt_outputs_equal(path_in("ref"), path_in("out"), why, sizeof why), "%s",
                  why);
    char p[1024];
    snprintf(p, sizeof p, "%s/current", ck); /* a completed survey forgets its record */
    ck_assert(!exists(p));
    fdw_spec_free(spec);
}
END_TEST

/* A record of another spec is not used: the run starts at the first shot. */
START_TEST(record_of_another_spec_ignored)
{
    fdw_spec *spec = parse(SURVEY);
    fdw_result r;
    const char *ck = path_in("ck");
    mkdir(ck, 0755);
    char p[1024];
    snprintf(p, sizeof p, "%s/current", ck);
    ck_assert_int_eq(ckpt_write_file(p, "survey 0123456789abcdef 3\n0\n1\n"), 0);
    seen s = {0};
    ck_assert_int_eq(run(spec, path_in("out"), 1, ck, 0, &s, &r), FDW_OK);
    ck_assert_int_eq(r.shots_resumed, 0);
    ck_assert_int_eq(r.shots_done, 3);
    fdw_spec_free(spec);
}
END_TEST

/* segyio reads each shot's file and all_shots.sgy (check_survey.py). */
START_TEST(segy_read_back)
{
    if (!FDW_PYTHON_SEGYIO[0]) {
        printf("segy_read_back: no python3 with segyio; skipped\n");
        return;
    }
    fdw_spec *spec = parse(SURVEY);
    fdw_result r;
    seen s = {0};
    ck_assert_int_eq(run(spec, path_in("segy"), 0, NULL, 0, &s, &r), FDW_OK);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'", FDW_PYTHON_SEGYIO, FDW_CHECK_SURVEY_PY,
             path_in("segy"));
    ck_assert_int_eq(system(cmd), 0);
    fdw_spec_free(spec);
}
END_TEST


/* fdwave-run on spec_path into out (checkpoints in ck unless NULL); returns its pid. */
static pid_t start_run(const char *spec_path, const char *out, const char *ck)
{
    const pid_t pid = fork();
    if (pid == 0) {
        const char *argv[16];
        int n = 0;
        argv[n++] = FDWAVE_RUN;
        argv[n++] = spec_path;
        argv[n++] = "--out";
        argv[n++] = out;
        argv[n++] = "--backend";
        argv[n++] = "cpu";
        argv[n++] = "--threads";
        argv[n++] = "1";
        argv[n++] = "--quiet";
        if (ck) {
            argv[n++] = "--checkpoint";
            argv[n++] = ck;
            argv[n++] = "--checkpoint-steps";
            argv[n++] = "50";
        }
        argv[n] = NULL;
        if (!freopen("/dev/null", "w", stderr) || !freopen("/dev/null", "w", stdout))
            _exit(126);
        execv(FDWAVE_RUN, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

static int wait_exit(pid_t pid)
{
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Whether the file at path exists and holds text. */
static int record_holds(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char buf[4096];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

START_TEST(kill9_resumes_at_first_unfinished_shot)
{
    /* six shots on one device, a few hundred milliseconds each */
    char *json = malloc(8192);
    snprintf(json, 8192,
             HEAD "\"survey\": {\"generate\": {\"first\": [60, 40, 20], \"step\": [50, 0, 0], "
                  "\"count\": 6}, \"wavelet\": {\"type\": \"ricker\", \"f0\": 14}, \"outside\": "
                  "\"drop\", \"spread\": {\"lines\": [{\"from\": [-50, 0, -10], \"to\": [50, 0, "
                  "-10], \"count\": 11}]}}, \"receivers\": {\"interval\": 1}, \"devices\": 1}");
    char *nt = strstr(json, "\"nt\": 120");
    ck_assert_ptr_nonnull(nt);
    memcpy(nt, "\"nt\": 900", 9);
    const char *spec_path = path_in("kill.json");
    ck_assert_int_eq(ckpt_write_file(spec_path, json), 0);
    free(json);
    char ref[600], out[600], ck[600], probe[700];
    snprintf(ref, sizeof ref, "%s", path_in("ref"));
    snprintf(out, sizeof out, "%s", path_in("out"));
    snprintf(ck, sizeof ck, "%s", path_in("ck"));
    ck_assert_int_eq(wait_exit(start_run(spec_path, ref, NULL)), 0);
    /* killed once two shots are finished, then at random moments until it completes */
    srand((unsigned)time(NULL));
    int kills = 0, code = -1;
    struct stat first;
    for (int attempt = 0; attempt < 20 && code != 0; attempt++) {
        const pid_t pid = start_run(spec_path, out, ck);
        if (attempt == 0) {
            /* killed once the record names two finished shots */
            char rec[700];
            snprintf(rec, sizeof rec, "%s/current", ck);
            int two = 0;
            for (int t = 0; t < 600 && !two; t++) {
                usleep(20000);
                two = record_holds(rec, "\n0\n") && record_holds(rec, "\n1\n");
            }
            ck_assert_msg(two, "no two finished shots recorded after 12 s");
            kill(pid, SIGKILL);
            kills++;
            code = wait_exit(pid);
            ck_assert_int_eq(code, 128 + SIGKILL);
            ck_assert(record_holds(rec, "survey "));
            /* shot 1's file is never written again */
            snprintf(probe, sizeof probe, "%s/shot_0001.f32", out);
            ck_assert_int_eq(stat(probe, &first), 0);
            continue;
        } else if (attempt < 4) {
            usleep((useconds_t)(100000 + rand() % 400000));
            if (kill(pid, SIGKILL) == 0)
                kills++;
        }
        code = wait_exit(pid);
    }
    ck_assert_int_eq(code, 0);
    ck_assert_int_ge(kills, 1);
    struct stat last;
    ck_assert_int_eq(stat(probe, &last), 0);
    ck_assert_msg(last.st_ino == first.st_ino && last.st_mtime == first.st_mtime,
                  "shot 1 was run again after the kill");
    char why[512];
    ck_assert_msg(ckpt_outputs_equal(ref, out, why, sizeof why), "%s", why);
}
END_TEST

/* The ETE kind runs surveys too: two shots in parallel, one per device, each shot's gather
 * the same bit for bit as a single-shot ETE job of that shot; the operator fit, the same for
 * every shot, kept once as ete_fit.json and listed in the manifest; no run directory left. */
#define ETE_HEAD                                                                              \
    "{\"kind\": \"ete\", \"name\": \"ete survey test\", "                                    \
    "\"grid\": {\"nx\": 40, \"ny\": 12, \"nz\": 32, \"dx\": 10, \"dy\": 10, \"dz\": 10}, "     \
    "\"velocity\": {\"type\": \"layered\", \"layers\": [{\"top\": 0, \"v\": 1500}, "          \
    "{\"top\": 150, \"v\": 2200}]}, \"time\": {\"nt\": 60, \"dt\": \"auto\"}, "                \
    "\"boundary\": {\"type\": \"sponge\", \"width\": 4, \"free_surface\": true}, "

START_TEST(ete_survey_matches_single_shots)
{
    fdw_spec *spec = parse(
        ETE_HEAD "\"survey\": {\"shots\": [{\"position\": [120, 40, 20]}, {\"position\": "
                 "[250, 60, 35]}], \"wavelet\": {\"type\": \"ricker\", \"f0\": 14}}, "
                 "\"receivers\": {\"lines\": [{\"from\": [60, 40, 10], \"to\": [330, 40, 10], "
                 "\"count\": 8}]}, \"devices\": 2}");
    seen sv = {0};
    fdw_result res;
    ck_assert_int_eq(run(spec, path_in("ete"), 2, NULL, 0, &sv, &res), FDW_OK);
    ck_assert_int_eq(res.groups, 2);
    ck_assert_int_eq(res.shots_done, 2);
    const double pos[2][3] = {{120, 40, 20}, {250, 60, 35}};
    char a[1024], b[1024];
    for (int i = 0; i < 2; i++) {
        char single[4096];
        snprintf(single, sizeof single,
                 ETE_HEAD "\"sources\": [{\"position\": [%g, %g, %g], \"wavelet\": {\"type\": "
                          "\"ricker\", \"f0\": 14}}], \"receivers\": {\"lines\": [{\"from\": "
                          "[60, 40, 10], \"to\": [330, 40, 10], \"count\": 8}]}, "
                          "\"devices\": 1}",
                 pos[i][0], pos[i][1], pos[i][2]);
        fdw_spec *one = parse(single);
        char dir[64];
        snprintf(dir, sizeof dir, "ete_single%d", i);
        fdw_run_opts ro = {.out_dir = path_in(dir), .backend = FDW_BACKEND_CPU, .threads = 2};
        fdw_error err;
        ck_assert_int_eq(fdw_run(one, &ro, NULL, NULL, &err), FDW_OK);
        snprintf(a, sizeof a, "%s/gather.f32", path_in(dir));
        snprintf(b, sizeof b, "%s/shot_%04d.f32", path_in("ete"), i + 1);
        same_file(a, b);
        fdw_spec_free(one);
    }
    snprintf(a, sizeof a, "%s/ete_fit.json", path_in("ete"));
    ck_assert_msg(exists(a), "no %s", a);
    snprintf(a, sizeof a, "%s/manifest.json", path_in("ete"));
    size_t n;
    unsigned char *man = slurp(a, &n);
    man[n] = 0;
    ck_assert_msg(strstr((char *)man, "\"name\": \"ete_fit.json\"") ||
                      strstr((char *)man, "\"name\":\"ete_fit.json\""),
                  "manifest does not list ete_fit.json");
    free(man);
    snprintf(a, sizeof a, "%s/shot_0001.run", path_in("ete"));
    ck_assert(!exists(a));
    fdw_spec_free(spec);
}
END_TEST

/* Run spec as nparts parts into out, each with its own checkpoint directory ck/part_<k>
 * (part `again` twice: the second run finds its shots done), then the combining run
 * (ck/combine). The parts' results into res[] (at most 4). */
static void run_in_parts(const fdw_spec *spec, const char *out, const char *ck, int nparts,
                         int again, fdw_result *res)
{
    for (int k = 0; k <= nparts; k++) {
        const int join = k == nparts;
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", ck, join ? "combine" : "part");
        if (!join)
            snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "_%d", k);
        fdw_checkpoint_opts co = {.dir = dir, .resume = 1};
        fdw_run_opts ro = {.out_dir = out, .backend = FDW_BACKEND_CPU, .threads = 2,
                           .checkpoint = &co, .survey_parts = nparts,
                           .survey_part = join ? FDW_SURVEY_COMBINE : k};
        fdw_result r;
        fdw_error err;
        for (int pass = 0; pass < 1 + (k == again); pass++)
            ck_assert_msg(fdw_run(spec, &ro, NULL, &r, &err) == FDW_OK, "part %d: %s: %s", k,
                          err.field, err.message);
        if (!join && k < 4)
            res[k] = r;
    }
}

/* A survey in parts (fdwaved's Slurm back end: one array task per part), then the
 * combining run: the split is fdw_survey_part_shots'; the outputs and the manifest are a
 * whole run's; a part run again finds its shots done; a part that does not exist, or a
 * combining run with a shot missing, is refused naming what. */
START_TEST(parts_then_combine_identical)
{
    int first, count;
    fdw_survey_part_shots(12, 5, 0, &first, &count);
    ck_assert(first == 0 && count == 3);
    fdw_survey_part_shots(12, 5, 4, &first, &count);
    ck_assert(first == 10 && count == 2);
    fdw_survey_part_shots(3, 8, 2, &first, &count); /* at most a part per shot */
    ck_assert(first == 2 && count == 1);
    ck_assert_int_eq(fdw_survey_nparts(3, 8), 3);
    ck_assert_int_eq(fdw_survey_nparts(12, 0), 1);
    fdw_spec *spec = parse(SURVEY);
    seen s1 = {0};
    fdw_result whole, res[4];
    ck_assert_int_eq(run(spec, path_in("whole"), 0, NULL, 0, &s1, &whole), FDW_OK);
    run_in_parts(spec, path_in("parts"), path_in("ck"), 2, 0, res);
    ck_assert_int_eq(res[0].nshots, 2); /* shots 101, 102; then 103 */
    ck_assert_int_eq(res[1].nshots, 1);
    ck_assert_int_eq(res[0].shots_done, 2);
    ck_assert_int_eq(res[0].shots_resumed, 2); /* its second run found them done */
    ck_assert_int_eq(res[1].shots_done, 1);
    ck_assert_int_eq(res[1].shots_resumed, 0);
    ck_assert_int_eq(res[1].steps_done, 120); /* shot 103's alone */
    char why[512];
    ck_assert_msg(ckpt_outputs_equal(path_in("whole"), path_in("parts"), why, sizeof why), "%s",
                  why);
    char a[1024];
    snprintf(a, sizeof a, "%s/.survey_reports.json", path_in("parts"));
    ck_assert(!exists(a));
    /* a part that does not exist; a combining run without every shot's files */
    fdw_run_opts ro = {.out_dir = path_in("bad"), .backend = FDW_BACKEND_CPU,
                       .survey_parts = 3, .survey_part = 3};
    fdw_error err;
    ck_assert_int_eq(fdw_run(spec, &ro, NULL, NULL, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "survey_part");
    ro.survey_part = FDW_SURVEY_COMBINE;
    ck_assert_int_eq(fdw_run(spec, &ro, NULL, NULL, &err), FDW_ERR_IO);
    ck_assert_msg(strstr(err.message, "shot 101"), "%s", err.message);
    fdw_spec_free(spec);
    /* an ETE survey: its operator fit (a report kept once) listed by the combining run */
    fdw_spec *ete = parse(
        ETE_HEAD "\"survey\": {\"shots\": [{\"position\": [120, 40, 20]}, {\"position\": "
                 "[250, 60, 35]}], \"wavelet\": {\"type\": \"ricker\", \"f0\": 14}}, "
                 "\"receivers\": {\"lines\": [{\"from\": [60, 40, 10], \"to\": [330, 40, 10], "
                 "\"count\": 8}]}, \"devices\": 1}");
    ck_assert_int_eq(run(ete, path_in("ete_whole"), 0, NULL, 0, &s1, &whole), FDW_OK);
    run_in_parts(ete, path_in("ete_parts"), path_in("ete_ck"), 2, -1, res);
    ck_assert_msg(ckpt_outputs_equal(path_in("ete_whole"), path_in("ete_parts"), why,
                                     sizeof why), "%s", why);
    snprintf(a, sizeof a, "%s/.survey_reports.json", path_in("ete_parts"));
    ck_assert_msg(!exists(a), "%s outlived the combining run", a);
    fdw_spec_free(ete);
}
END_TEST

/* fdwave-run with these arguments after the spec (NULL-terminated, at most 8), quietly on
 * one CPU thread; its exit status. */
static int run_cli(const char *spec_path, const char *const *args)
{
    const pid_t pid = fork();
    if (pid == 0) {
        const char *argv[20] = {FDWAVE_RUN, spec_path, "--backend", "cpu", "--threads", "1",
                                "--quiet"};
        int n = 7;
        for (int i = 0; args[i] && n < 19; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        if (!freopen("/dev/null", "w", stderr) || !freopen("/dev/null", "w", stdout))
            _exit(126);
        execv(FDWAVE_RUN, (char *const *)argv);
        _exit(127);
    }
    return wait_exit(pid);
}

/* The same through fdwave-run's --survey-part K/N and --survey-combine N: the parts'
 * outputs combined are the whole run's; options that do not fit are usage or spec errors. */
START_TEST(cli_parts_then_combine_identical)
{
    const char *spec_path = path_in("parts.json");
    ck_assert_int_eq(ckpt_write_file(spec_path, SURVEY), 0);
    const char *whole = path_in("cli_whole"), *parts = path_in("cli_parts");
    ck_assert_int_eq(run_cli(spec_path, (const char *[]){"-o", whole, NULL}), 0);
    ck_assert_int_eq(run_cli(spec_path, (const char *[]){"-o", parts, "--survey-part", "2/2",
                                                         NULL}), 0);
    /* the combining run before every part has run: refused, nothing made */
    ck_assert_int_eq(run_cli(spec_path, (const char *[]){"-o", parts, "--survey-combine", "2",
                                                         NULL}), 1);
    ck_assert_int_eq(run_cli(spec_path, (const char *[]){"-o", parts, "--survey-part", "1/2",
                                                         NULL}), 0);
    ck_assert_int_eq(run_cli(spec_path, (const char *[]){"-o", parts, "--survey-combine", "2",
                                                         NULL}), 0);
    char why[512];
    ck_assert_msg(ckpt_outputs_equal(whole, parts, why, sizeof why), "%s", why);
    /* K/N out of range, twice, 4 parts of 3 shots, a spec without a survey */
    const char *out = path_in("cli_bad");
    ck_assert_int_eq(run_cli(spec_path, (const char *[]){"-o", out, "--survey-part", "3/2",
                                                         NULL}), 2);
    ck_assert_int_eq(run_cli(spec_path, (const char *[]){"-o", out, "--survey-part", "1/2",
                                                         "--survey-combine", "2", NULL}), 2);
    ck_assert_int_eq(run_cli(spec_path, (const char *[]){"-o", out, "--survey-part", "1/4",
                                                         NULL}), 2);
    const char *single = path_in("single.json");
    ck_assert_int_eq(ckpt_write_file(single, HEAD "\"sources\": [{\"position\": [120, 40, "
                                             "20], \"wavelet\": {\"type\": \"ricker\", "
                                             "\"f0\": 14}}], \"devices\": 1}"), 0);
    ck_assert_int_eq(run_cli(single, (const char *[]){"-o", out, "--survey-combine", "2",
                                                      NULL}), 2);
}
END_TEST

static Suite *survey_suite(void)
{
    Suite *s = suite_create("survey");
    TCase *p = tcase_create("parse");
    tcase_add_test(p, parse_counts_and_positions);
    tcase_add_test(p, parse_errors_name_the_field);
    suite_add_tcase(s, p);
    TCase *r = tcase_create("run");
    tcase_add_checked_fixture(r, setup, teardown);
    tcase_set_timeout(r, 120);
    tcase_add_test(r, sequential_parallel_single_identical);
    tcase_add_test(r, fixed_layout_runs);
    tcase_add_test(r, own_receivers_and_numbers);
    tcase_add_test(r, model_read_once);
    tcase_add_test(r, cancel_keeps_finished_shots);
    tcase_add_test(r, resume_at_first_unfinished_shot);
    tcase_add_test(r, record_of_another_spec_ignored);
    tcase_add_test(r, segy_read_back);
    tcase_add_test(r, kill9_resumes_at_first_unfinished_shot);
    tcase_add_test(r, ete_survey_matches_single_shots);
    tcase_add_test(r, parts_then_combine_identical);
    tcase_add_test(r, cli_parts_then_combine_identical);
    suite_add_tcase(s, r);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(survey_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
