/* test_steps_per_pass.c — the steps-per-pass contract (fdw_tuning.steps_per_pass, issue
 * 19's temporal blocking) through the public API on the CPU backend, whose two-step pass is
 * the reference the GPU's will be held to: two steps per pass give the outputs of one step
 * per pass bit for bit, with variable velocity, two sources (one off the grid, its taps on
 * several planes) injected at every step, receivers sampled at every step and every third,
 * snapshots at odd steps (the pass falls back to one step there), the sponge, the free
 * surface, an odd step count, checkpoints by steps and a run suspended and resumed, on one
 * slab and on 3 and 4; the stencil and ETE kinds alike; a job the CPU cannot pass two at a time (the CPML) runs one per pass,
 * says why and gives the same outputs; a steps_per_pass other than 0, 1, 2 is refused. */
#include "ckpt_util.h"
#include "fdwave/fdwave.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_dir[512];

static void setup(void) { ckpt_tmpdir("spp", g_dir, sizeof g_dir); }
static void teardown(void) { ckpt_rmtree(g_dir); }

static const char *path_in(const char *name)
{
    static char bufs[4][768];
    static int next;
    char *b = bufs[next++ & 3];
    snprintf(b, sizeof bufs[0], "%s/%s", g_dir, name);
    return b;
}

/* An acoustic job with every per-step feature; boundary and receivers.interval vary. */
static char *acoustic_json(const char *boundary, int interval)
{
    char *j = malloc(4096);
    snprintf(j, 4096,
             "{\"kind\": \"acoustic\", \"grid\": {\"nx\": 37, \"ny\": 29, \"nz\": 33, \"dx\": 10, "
             "\"dy\": 10, \"dz\": 10}, \"order\": 8, \"velocity\": {\"type\": \"gaussian\", "
             "\"background\": 2000, \"center\": [180, 140, 160], \"sigma\": 60, \"dv\": 500}, "
             "\"time\": {\"nt\": 61, \"dt\": \"auto\"}, \"sources\": [{\"position\": [100, 140, 60], "
             "\"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}, {\"position\": [201.5, 93.25, "
             "171.7], \"wavelet\": {\"type\": \"ricker\", \"f0\": 11, \"delay\": 0.05}}], "
             "\"receivers\": {\"interval\": %d, \"lines\": [{\"from\": [20, 140, 10], \"to\": "
             "[340, 140, 10], \"count\": 17}], \"points\": [[185.5, 141.2, 233.3], [180, 140, "
             "0]]}, \"boundary\": %s, \"snapshots\": {\"every\": 7, \"slices\": [{\"plane\": "
             "\"xz\", \"index\": 14}, {\"plane\": \"xy\", \"index\": 0}]}}",
             interval, boundary);
    return j;
}

static const char *SPONGE_FS = "{\"type\": \"sponge\", \"width\": 6, \"free_surface\": true}";

static fdw_spec *parse(const char *json)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    return spec;
}

/* Run spec into out with spp steps per pass (checkpoints every `every` steps in ck when ck
 * is given; w may be NULL). */
static fdw_status run(const fdw_spec *spec, const char *out, int spp, const char *ck,
                      long every, ckpt_watch *w, fdw_error *err)
{
    fdw_tuning tu = {.steps_per_pass = spp};
    fdw_checkpoint_opts co = {.dir = ck, .every_steps = every, .resume = 1};
    fdw_run_opts ro = {.out_dir = out, .backend = FDW_BACKEND_CPU, .threads = 2,
                       .tuning = &tu, .checkpoint = ck ? &co : NULL};
    fdw_callbacks cb;
    if (w)
        cb = ckpt_callbacks(w);
    return fdw_run(spec, &ro, w ? &cb : NULL, NULL, err);
}

/* The same outputs with one step per pass and with two. */
static void same_both_ways(const char *json, const char *tag, ckpt_watch *w2)
{
    fdw_spec *spec = parse(json);
    char one[64], two[64], why[512];
    snprintf(one, sizeof one, "%s-1", tag);
    snprintf(two, sizeof two, "%s-2", tag);
    fdw_error err;
    ck_assert_msg(run(spec, path_in(one), 1, NULL, 0, NULL, &err) == FDW_OK, "%s", err.message);
    ck_assert_msg(run(spec, path_in(two), 2, NULL, 0, w2, &err) == FDW_OK, "%s", err.message);
    ck_assert_msg(ckpt_outputs_equal(path_in(one), path_in(two), why, sizeof why), "%s: %s",
                  tag, why);
    fdw_spec_free(spec);
}

START_TEST(acoustic_two_steps_same_bits)
{
    ckpt_watch w;
    memset(&w, 0, sizeof w);
    char *j = acoustic_json(SPONGE_FS, 1);
    same_both_ways(j, "every-step", &w);
    free(j);
    ck_assert_msg(strstr(w.log, "steps per pass: 2"), "log: %s", w.log);
    j = acoustic_json("{\"type\": \"sponge\", \"width\": 5}", 3);
    same_both_ways(j, "every-third", NULL);
    free(j);
}
END_TEST

/* Slabs (virtual devices; 3 of 11 planes and 4 of 8 or 9, thinner than two radii): each
 * plane a pass produces goes to the ghost planes of the slabs that mirror it. */
START_TEST(slabs_two_steps_same_bits)
{
    for (int n = 3; n <= 4; n++) {
        ckpt_watch w;
        memset(&w, 0, sizeof w);
        char *j = acoustic_json(SPONGE_FS, 1), tag[32];
        char *end = strrchr(j, '}');
        snprintf(end, 32, ", \"devices\": %d}", n);
        snprintf(tag, sizeof tag, "slabs%d", n);
        same_both_ways(j, tag, &w);
        free(j);
        ck_assert_msg(strstr(w.log, "steps per pass: 2"), "log: %s", w.log);
    }
}
END_TEST

START_TEST(stencil_two_steps_same_bits)
{
    same_both_ways("{\"kind\": \"stencil\", \"grid\": {\"nx\": 31, \"ny\": 27, \"nz\": 41, "
                   "\"dx\": 1, \"dy\": 1, \"dz\": 1}, \"order\": 12, \"iterations\": 9, "
                   "\"seed\": 7, \"snapshots\": {\"every\": 9, \"volume\": true}}",
                   "stencil", NULL);
}
END_TEST

/* The ETE kind (a wave kind with its own update): the same contract. */
START_TEST(ete_two_steps_same_bits)
{
    same_both_ways("{\"kind\": \"ete\", \"grid\": {\"nx\": 33, \"ny\": 25, \"nz\": 29, "
                   "\"dx\": 10, \"dy\": 10, \"dz\": 10}, \"velocity\": {\"type\": "
                   "\"layered\", \"layers\": [{\"top\": 0, \"v\": 1800}, {\"top\": 150, "
                   "\"v\": 2600}]}, \"time\": {\"nt\": 23, \"dt\": \"auto\"}, \"sources\": "
                   "[{\"position\": [160.5, 120, 80.25], \"wavelet\": {\"type\": \"ricker\", "
                   "\"f0\": 12}}], \"receivers\": {\"points\": [[100, 120, 10], [200, 130, "
                   "250]]}, \"boundary\": {\"type\": \"sponge\", \"width\": 5, "
                   "\"free_surface\": true}, \"snapshots\": {\"every\": 5, \"slices\": "
                   "[{\"plane\": \"xz\", \"index\": 12}]}}",
                   "ete", NULL);
}
END_TEST

/* The CPML's auxiliary fields: one step per pass, the log says why, same outputs. */
START_TEST(cpml_falls_back)
{
    ckpt_watch w;
    memset(&w, 0, sizeof w);
    char *j = acoustic_json("{\"type\": \"cpml\", \"width\": 5, \"free_surface\": true}", 2);
    same_both_ways(j, "cpml", &w);
    free(j);
    ck_assert_msg(strstr(w.log, "steps per pass: 1, not the 2 asked for") &&
                      strstr(w.log, "CPML"),
                  "log: %s", w.log);
}
END_TEST

/* Checkpoints every 5 steps (a pass falls back to one step before each), a run suspended
 * after 20 steps and resumed, all with two steps per pass: the outputs of an uninterrupted
 * one-step run. */
START_TEST(checkpoints_and_resume)
{
    char *j = acoustic_json(SPONGE_FS, 1);
    fdw_spec *spec = parse(j);
    free(j);
    fdw_error err;
    char why[512];
    ck_assert_int_eq(run(spec, path_in("ref"), 1, NULL, 0, NULL, &err), FDW_OK);
    ckpt_watch w;
    memset(&w, 0, sizeof w);
    w.suspend_at = 20;
    ck_assert_int_eq(run(spec, path_in("ck"), 2, path_in("ckdir"), 5, &w, &err),
                     FDW_ERR_CANCELLED);
    ck_assert_int_ge(w.checkpoints, 4);
    memset(&w, 0, sizeof w);
    ck_assert_msg(run(spec, path_in("ck"), 2, path_in("ckdir"), 5, &w, &err) == FDW_OK, "%s",
                  err.message);
    ck_assert_int_eq(w.resumed, 1);
    ck_assert_msg(ckpt_outputs_equal(path_in("ref"), path_in("ck"), why, sizeof why), "%s",
                  why);
    fdw_spec_free(spec);
}
END_TEST

START_TEST(bad_value_refused)
{
    char *j = acoustic_json(SPONGE_FS, 1);
    fdw_spec *spec = parse(j);
    free(j);
    fdw_error err;
    ck_assert_int_eq(run(spec, path_in("bad"), 3, NULL, 0, NULL, &err), FDW_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.message, "steps_per_pass"), "%s", err.message);
    fdw_spec_free(spec);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("steps-per-pass");
    TCase *tc = tcase_create("cpu");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, acoustic_two_steps_same_bits);
    tcase_add_test(tc, slabs_two_steps_same_bits);
    tcase_add_test(tc, stencil_two_steps_same_bits);
    tcase_add_test(tc, ete_two_steps_same_bits);
    tcase_add_test(tc, cpml_falls_back);
    tcase_add_test(tc, checkpoints_and_resume);
    tcase_add_test(tc, bad_value_refused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
